// The committed static/ must be exactly what `npm ci && npm run build` makes
// from web/, and the initial JS must stay small.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { test } from "node:test";
import { gzipSync } from "node:zlib";
import { repoRoot } from "./harness.mjs";

const webDir = join(repoRoot, "web");
const staticDir = join(repoRoot, "static");

function hashes(dir) {
  const out = {};
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(dir, p)] = createHash("sha256").update(readFileSync(p)).digest("hex");
    }
  };
  walk(dir);
  return out;
}

test("npm ci && npm run build reproduces static/ byte for byte", { timeout: 600_000 }, () => {
  const tmp = mkdtempSync(join(tmpdir(), "tw-build-"));
  try {
    cpSync(webDir, join(tmp, "web"), {
      recursive: true,
      filter: (src) => !src.includes(`${join(webDir, "node_modules")}`),
    });
    const opts = { cwd: join(tmp, "web"), stdio: "pipe", env: { ...process.env, CI: "true" } };
    execFileSync("npm", ["ci", "--no-audit", "--no-fund"], opts);
    execFileSync("npm", ["run", "build"], opts);
    const fresh = hashes(join(tmp, "static"));
    const committed = hashes(staticDir);
    assert.deepEqual(committed, fresh, "static/ differs from a fresh build: run `npm ci && npm run build` in web/");
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});

test("index.html has no inline script or style; initial JS < 150 KB gzipped", () => {
  const html = readFileSync(join(staticDir, "index.html"), "utf8");
  assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/i, "inline script");
  assert.doesNotMatch(html, /<style/i, "inline style element");
  assert.doesNotMatch(html, /\sstyle=/i, "style attribute");
  assert.doesNotMatch(html, /https?:\/\//i, "external URL in the shell");
  const initial = new Set();
  for (const m of html.matchAll(/<script[^>]*\bsrc="([^"]+)"/g)) initial.add(m[1]);
  for (const m of html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g)) initial.add(m[1]);
  // Static imports of the entry chunk are loaded up front too.
  const queue = [...initial];
  while (queue.length) {
    const src = queue.pop();
    const code = readFileSync(join(staticDir, src), "utf8");
    for (const m of code.matchAll(/(?:^|[;\n}])\s*import\s*(?:[^"'()]*?from\s*)?["'](\.\/[^"']+\.js)["']/g)) {
      const dep = new URL(m[1], `http://x${src}`).pathname;
      if (!initial.has(dep)) {
        initial.add(dep);
        queue.push(dep);
      }
    }
  }
  let gz = 0;
  for (const src of initial) gz += gzipSync(readFileSync(join(staticDir, src)), { level: 9 }).length;
  console.log(`initial JS: ${[...initial].join(", ")} = ${(gz / 1024).toFixed(1)} KB gzipped`);
  assert.ok(initial.size > 0, "found the entry script");
  assert.ok(gz < 150 * 1024, `initial JS is ${gz} bytes gzipped`);
});
