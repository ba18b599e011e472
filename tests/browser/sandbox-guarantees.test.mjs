// The sandbox's guarantees in the Permissions panel: each one the server reports (`GET /api/config`
// → `sandbox.guarantees`) is listed with its held / not-held state in a mark and in words, the
// ones that do not hold first, under a count of them. Checked on the jail this machine gives, and
// on a server forced to the Landlock fallback, where (when Landlock works here) a change to `full`
// is refused and the mode menu and the new-session form say the server's reason and keep the old
// mode. Real server (replay provider), real Chromium.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { apiCall, assertClean, haveServer, launchBrowser, newPage, repoRoot, shot, signInWithToken, startServer } from "./harness.mjs";

const skip = haveServer() ? false : "build the server first (cargo build -p tradewind --bins)";
const axePath = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

/** axe-core (WCAG 2 A/AA and best practice) finds nothing wrong in the Permissions panel. */
async function axePanel(page, label) {
  await page.addScriptTag({ path: axePath });
  const violations = await page.evaluate(
    () =>
      window.axe
        .run(
          { include: [[".permissions-panel"]] },
          { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"] }, resultTypes: ["violations"] },
        )
        .then((r) => r.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`)),
  );
  assert.deepEqual(violations, [], `axe violations in the Permissions panel (${label})`);
}

/**
 * Opens the Permissions panel of session `id` and checks its guarantees against the server's:
 * the same ids in the panel as in `GET /api/config` and the session's permissions, not-held
 * first, each with ✓ / ✕ (hidden from screen readers) and "Holds" / "Does not hold" in words,
 * and its detail. Returns the server's list and its jail.
 */
async function checkGuarantees(page, server, id) {
  const cfg = await apiCall(page, server, "GET", "/api/config");
  assert.equal(cfg.status, 200);
  const want = cfg.json.sandbox.guarantees;
  assert.ok(Array.isArray(want) && want.length > 0, `GET /api/config lists no guarantees: ${JSON.stringify(cfg.json.sandbox)}`);
  const perms = await apiCall(page, server, "GET", `/api/sessions/${id}/permissions`);
  assert.equal(perms.status, 200);
  assert.deepEqual(perms.json.sandbox.guarantees, want, "the session's permissions say what the config says");

  await page.goto(`${server.base}/s/${id}`);
  await page.getByRole("button", { name: "Permissions" }).click();
  const panel = page.locator(".permissions-panel");
  const list = panel.getByRole("list", { name: "Sandbox guarantees" });
  await list.waitFor({ timeout: 10_000 });
  await panel.getByRole("heading", { name: "Sandbox guarantees" }).waitFor();

  const shown = await list.locator("li.guarantee").evaluateAll((lis) =>
    lis.map((li) => ({
      id: li.dataset.guarantee,
      holds: li.dataset.holds,
      mark: li.querySelector(".mark")?.textContent,
      markHidden: li.querySelector(".mark")?.getAttribute("aria-hidden"),
      said: li.querySelector(".visually-hidden")?.textContent,
      text: li.textContent,
    })),
  );
  const order = [...want.filter((g) => !g.holds), ...want.filter((g) => g.holds)];
  assert.deepEqual(
    shown.map((s) => [s.id, s.holds]),
    order.map((g) => [g.id, String(g.holds)]),
    "every guarantee, its state as the server says, the ones that do not hold first",
  );
  for (const [i, g] of order.entries()) {
    const s = shown[i];
    assert.equal(s.mark, g.holds ? "✓" : "✕", `${g.id}: mark`);
    assert.equal(s.markHidden, "true", `${g.id}: the mark is not read out`);
    assert.equal(s.said, g.holds ? "Holds: " : "Does not hold: ", `${g.id}: the state in words`);
    assert.ok(s.text.includes(g.detail), `${g.id}: detail ${JSON.stringify(g.detail)} in ${JSON.stringify(s.text)}`);
  }
  // What a screen reader gets: the state in words, no mark.
  const aria = await list.ariaSnapshot();
  for (const g of want) assert.ok(aria.includes(`${g.holds ? "Holds" : "Does not hold"}:`), aria);
  assert.ok(!aria.includes("✓") && !aria.includes("✕"), aria);

  const missing = want.filter((g) => !g.holds).length;
  const gap = panel.locator(".guarantees-gap");
  if (missing > 0) {
    assert.match(await gap.innerText(), new RegExp(`^${missing} of ${want.length} do not hold on this server`));
  } else {
    assert.equal(await gap.count(), 0, "no warning when every guarantee holds");
  }
  return { want, jail: cfg.json.sandbox.jail };
}

describe("the sandbox's guarantees in the Permissions panel", { skip, timeout: 180_000 }, () => {
  let browser;
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  test("on the jail this machine gives, as GET /api/config says", async () => {
    const server = await startServer({ scripts: [] });
    try {
      const p = await newPage(browser, server);
      await signInWithToken(p.page, server);
      const created = await apiCall(p.page, server, "POST", "/api/sessions", { title: "Guarantees", mode: "ask" });
      assert.equal(created.status, 201, JSON.stringify(created.json));
      const { jail, want } = await checkGuarantees(p.page, server, created.json.id);
      if (jail === "bwrap") assert.ok(want.every((g) => g.holds), `the jail holds every guarantee: ${JSON.stringify(want)}`);
      if (jail === "none") assert.ok(!want.find((g) => g.id === "home_allow_list")?.holds, JSON.stringify(want));
      await shot(p.page, `sandbox-guarantees-${jail}`);
      assertClean(p);
      await p.context.close();
    } finally {
      await server.stop();
    }
  });

  test("on the Landlock fallback: what does not hold comes first, and full is refused with the server's reason", async (t) => {
    // The fallback refuses a state directory under a temp folder: this one is under target/.
    const server = await startServer({
      scripts: [],
      config: { sandbox: { jail: "landlock" } },
      root: join(repoRoot, "target", "tw-browser"),
    });
    try {
      const p = await newPage(browser, server);
      await signInWithToken(p.page, server);
      const created = await apiCall(p.page, server, "POST", "/api/sessions", { title: "Fallback", mode: "auto" });
      assert.equal(created.status, 201, JSON.stringify(created.json));
      const id = created.json.id;
      const { jail, want } = await checkGuarantees(p.page, server, id);
      if (jail !== "landlock") {
        // Landlock does not work on this kernel: the list was still checked, against "none".
        t.skip(`Landlock is not available here (jail: ${jail})`);
        await p.context.close();
        return;
      }
      const full = want.find((g) => g.id === "full_mode");
      assert.equal(full?.holds, false, JSON.stringify(want));
      const panel = p.page.locator(".permissions-panel");
      await panel.locator('.guarantee.missing[data-guarantee="full_mode"]').waitFor();
      await shot(p.page, "sandbox-guarantees-landlock");
      // The not-held marks and the warning read well in both themes (axe is injected: no CSP).
      const storageState = await p.context.storageState();
      for (const colorScheme of ["light", "dark"]) {
        const a = await newPage(browser, server, { storageState, colorScheme, bypassCSP: true });
        await a.page.goto(`${server.base}/s/${id}`);
        await a.page.getByRole("button", { name: "Permissions" }).click();
        await a.page.locator(".permissions-panel .guarantee.missing").first().waitFor({ timeout: 10_000 });
        await axePanel(a.page, colorScheme);
        await a.context.close();
      }

      // The mode menu: the refusal's message is shown and the menu stays on `auto`.
      const select = p.page.locator(".composer .mode-menu select[name=mode]");
      assert.equal(await select.inputValue(), "auto");
      const [answer] = await Promise.all([
        p.page.waitForResponse((r) => r.request().method() === "PATCH" && new URL(r.url()).pathname === `/api/sessions/${id}`),
        select.selectOption("full"),
      ]);
      assert.equal(answer.status(), 409);
      const body = await answer.json();
      assert.equal(body.error.code, "mode_unsafe_here");
      const alert = p.page.locator(".composer .mode-menu").getByRole("alert");
      await alert.waitFor({ timeout: 10_000 });
      assert.equal(await alert.innerText(), body.error.message);
      await p.page.waitForFunction(() => {
        const s = document.querySelector(".composer .mode-menu select");
        return s && !s.disabled && s.value === "auto";
      });
      const after = await apiCall(p.page, server, "GET", `/api/sessions/${id}`);
      assert.equal(after.json.mode, "auto");
      await shot(p.page, "sandbox-mode-refused");

      // The new-session form: the same refusal shown, no session made.
      const before = (await apiCall(p.page, server, "GET", "/api/sessions")).json.data.length;
      await p.page.getByRole("button", { name: "+ New" }).click();
      const form = p.page.locator("form.new-session");
      await form.locator('select[name="mode"]').selectOption("full");
      await form.getByRole("button", { name: "Create session" }).click();
      const formError = form.getByRole("alert");
      await formError.waitFor({ timeout: 10_000 });
      assert.equal(await formError.innerText(), body.error.message);
      assert.equal((await apiCall(p.page, server, "GET", "/api/sessions")).json.data.length, before);
      assertClean(p);
      await p.context.close();
    } finally {
      await server.stop();
    }
  });
});
