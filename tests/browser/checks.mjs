// Checks the newer browser tests share: axe in both themes, a locator that must come to show a
// text (failing with what it shows), and a REST read that must succeed.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { apiCall } from "./harness.mjs";

const axePath = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"];

/** No axe violation (WCAG 2.0–2.2 A/AA and best practices) on the page, in light and dark. */
export async function axe(page, label) {
  await page.addScriptTag({ path: axePath });
  for (const scheme of ["light", "dark"]) {
    await page.emulateMedia({ colorScheme: scheme });
    const result = await page.evaluate(
      (tags) => window.axe.run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] }),
      TAGS,
    );
    const text = result.violations
      .map((v) => `  ${v.id} (${v.impact}): ${v.help}\n${v.nodes.slice(0, 6).map((n) => `      ${n.target.join(" ")}\n        ${n.failureSummary ?? ""}`).join("\n")}`)
      .join("\n");
    assert.equal(result.violations.length, 0, `axe violations on ${label} (${scheme}):\n${text}`);
  }
  await page.emulateMedia({ colorScheme: "light" });
}

/** Waits until `locator` shows `expected` (a string it contains, or a RegExp); fails with what it shows. */
export async function shows(locator, expected, what, timeout = 8000) {
  try {
    await locator.filter({ hasText: expected }).first().waitFor({ timeout });
  } catch {
    const now = await locator.allInnerTexts().catch(() => []);
    assert.fail(`${what}: expected ${expected}, the page shows ${JSON.stringify(now)}`);
  }
}

export async function get(page, server, path) {
  const r = await apiCall(page, server, "GET", path);
  assert.equal(r.status, 200, `GET ${path}: ${JSON.stringify(r.json)}`);
  return r.json;
}
