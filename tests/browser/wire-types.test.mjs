// The SPA's wire types are generated from the OpenAPI document: web/src/api/schema.gen.ts must be
// exactly what `npm run gen:types` (the pinned openapi-typescript of web/package-lock.json) makes
// from openapi/openapi.json today. The script runs in a temporary copy of web/'s package files, so
// the committed file is never touched; that the SPA type-checks against it is build.test.mjs's job
// (`npm run build` starts with `tsc --noEmit`).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { repoRoot } from "./harness.mjs";

const GENERATED = join("src", "api", "schema.gen.ts");

/** The first differing line of two texts, with a little context, for the failure message. */
function firstDifference(committed, fresh) {
  const a = committed.split("\n");
  const b = fresh.split("\n");
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const show = (lines) => lines.slice(i, i + 3).map((l) => `    ${l}`).join("\n") || "    (end of file)";
  return `line ${i + 1}:\n  committed:\n${show(a)}\n  generated:\n${show(b)}`;
}

test("web/src/api/schema.gen.ts is what gen:types makes from openapi/openapi.json", { timeout: 300_000 }, () => {
  const tmp = mkdtempSync(join(tmpdir(), "tw-wire-types-"));
  try {
    // Same relative layout as the repository, so the npm script's paths hold.
    const web = join(tmp, "web");
    mkdirSync(join(web, "src", "api"), { recursive: true });
    mkdirSync(join(tmp, "openapi"));
    for (const f of ["package.json", "package-lock.json"]) copyFileSync(join(repoRoot, "web", f), join(web, f));
    copyFileSync(join(repoRoot, "openapi", "openapi.json"), join(tmp, "openapi", "openapi.json"));

    const opts = { cwd: web, stdio: "pipe", env: { ...process.env, CI: "true" } };
    execFileSync("npm", ["ci", "--ignore-scripts", "--prefer-offline", "--no-audit", "--no-fund"], opts);
    execFileSync("npm", ["run", "gen:types"], opts);

    const fresh = readFileSync(join(web, GENERATED), "utf8");
    const committed = readFileSync(join(repoRoot, "web", GENERATED), "utf8");
    assert.ok(fresh.includes("export interface components"), "gen:types wrote no component schemas");
    assert.ok(
      committed === fresh,
      `web/${GENERATED} is stale: run \`npm run gen:types\` in web/ (then \`npm run build\`).\n` +
        firstDifference(committed, fresh),
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
