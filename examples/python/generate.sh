#!/usr/bin/env bash
# Generate the Python client from the committed spec into OUT/tradewind_client (fails on any
# warning the generator prints).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: generate.sh OUT}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log="$tmp/log"
openapi-python-client generate --path "$here/../../openapi/openapi.json" \
  --config "$here/openapi-python-client.yaml" --meta none --output-path "$tmp/tradewind_client" \
  --overwrite >"$log" 2>&1 || { cat "$log"; exit 1; }
if grep -qiE "warning|error|unsupported|cannot" "$log"; then
  cat "$log"
  echo "openapi-python-client: warnings (above)" >&2
  exit 1
fi
rm -rf "$out/tradewind_client"
mv "$tmp/tradewind_client" "$out/tradewind_client"
