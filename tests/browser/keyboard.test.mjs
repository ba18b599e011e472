// The web app's keyboard (issue 47, item 10 and its Esc items), end to end: the real server with
// the replay provider, real Chromium. Alt+N opens the New-session form (at phone width from a
// session's page too), Alt+↑/↓ go to the previous/next session in the list (from the prompt, to the
// next session's prompt), `/` focuses the prompt and `?` opens a sheet of every shortcut, both only
// outside text fields; Shift+Tab in the prompt cycles the permission mode through the mode menu;
// ↑ in an empty prompt edits the last queued message; an approval is answered with keys on its
// focused card (Enter or A allow once, D or Esc deny) or with Ctrl+Enter from anywhere but a text
// field with something typed in it, never with a bare letter in the prompt; Esc in the prompt
// while an approval waits stops the run as it does while the run streams (asking first when
// messages are queued); Esc closes the Permissions panel and the Artifacts drawer; Esc while plan
// revisions are compared closes only the comparison (Skip skips). Each test starts its own server;
// waits are on DOM states, requests or events, never on timers.
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  afterPaint,
  apiCall,
  assertClean,
  createSessionViaUi,
  haveServer,
  launchBrowser,
  newPage,
  sendPrompt,
  shot,
  signInWithToken,
  startServer,
} from "./harness.mjs";
import { axe, get, shows } from "./checks.mjs";

const PLAN = ["# Add a cache", "", "## Why", "", "Fewer queries.", "", "## Steps", "", "1. Add the module.", "2. Test it."].join("\n");
const FILES = ["f1.txt", "f2.txt", "f3.txt", "f4.txt", "f5.txt", "f6.txt"];

const scripts = [
  {
    match: "write six files",
    turns: [
      ...FILES.map((path) => ({ text: `Writing ${path}.`, tool_calls: [{ name: "write_file", arguments: { path, content: `${path}\n` } }] })),
      { text: "All six answered." },
    ],
  },
  {
    match: "write the notes",
    turns: [{ text: "Writing.", tool_calls: [{ name: "write_file", arguments: { path: "notes.txt", content: "n\n" } }] }, { text: "Done." }],
  },
  {
    match: "write the log",
    turns: [{ text: "Logging.", tool_calls: [{ name: "write_file", arguments: { path: "log.txt", content: "l\n" } }] }, { text: "Done." }],
  },
  {
    match: "run the slow check",
    turns: [
      // Runs until the test creates `release` in the workspace: the run is at work meanwhile.
      { text: "Checking.", tool_calls: [{ name: "shell", arguments: { command: "while [ ! -e release ]; do sleep 0.05; done; echo released" } }] },
      { text: "Checked." },
    ],
  },
  {
    match: "plan the cache",
    turns: [
      { text: "Here is the plan.", tool_calls: [{ name: "exit_plan", arguments: { title: "Cache", plan: PLAN } }] },
      { text: "Revised.", tool_calls: [{ name: "exit_plan", arguments: { title: "Cache", plan: `${PLAN}\n3. Document it.` } }] },
    ],
  },
  { turns: [{ text: "Hello." }] },
];

const skip = haveServer() ? false : "server binary not built (target/debug/tradewind)";

const DESKTOP = { width: 1280, height: 860 };
const PHONE = { width: 390, height: 844 };
const WIDTHS = [
  ["desktop", DESKTOP],
  ["390 px", PHONE],
];

describe("keyboard shortcuts", { skip, timeout: 600_000 }, () => {
  let browser;

  before(async () => {
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
  });

  /** A server of its own and a signed-in page on it (CSP bypassed only so axe can be injected). */
  async function boot(viewport = DESKTOP) {
    const server = await startServer({ scripts, args: ["--allow-write", "--allow-process"] });
    const first = await newPage(browser, server);
    const state = await signInWithToken(first.page, server);
    await first.context.close();
    const p = await newPage(browser, server, { storageState: state, bypassCSP: true, viewport });
    p.page.setDefaultTimeout(10_000);
    await p.page.goto(server.base + "/");
    return { server, p };
  }

  async function finish(server, p) {
    await p?.context.close();
    await server?.stop();
  }

  /** Sessions made over the API, then the list read again (a fresh page). */
  async function sessionsNamed(page, server, titles) {
    const ids = [];
    for (const title of titles) {
      const r = await apiCall(page, server, "POST", "/api/sessions", { title });
      assert.equal(r.status, 201);
      ids.push(r.json.id);
    }
    await page.goto(server.base + "/");
    await page.locator(".sidebar a.session-item").nth(titles.length - 1).waitFor();
    return ids;
  }

  /** The sessions in the order the list shows them. */
  const listed = (page) => page.locator(".sidebar a.session-item").evaluateAll((as) => as.map((a) => a.dataset.sessionId));

  /** Waits until the focused element matches `selector`. */
  const focusOn = (page, selector, what) =>
    page
      .waitForFunction((sel) => document.activeElement?.matches(sel) ?? false, selector, { timeout: 5000 })
      .catch(async () => {
        const now = await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 160));
        assert.fail(`${what}: the focus is on ${now}`);
      });

  const blur = (page) => page.evaluate(() => document.activeElement instanceof HTMLElement && document.activeElement.blur());
  const sessionUrl = (server, id) => `${server.base}/s/${encodeURIComponent(id)}`;
  const PROMPT = '.composer textarea[name="prompt"]';

  /** The next request the page makes to `path` with `method`. */
  const nextRequest = (page, method, path) =>
    page.waitForRequest((r) => r.method() === method && new URL(r.url()).pathname === path, { timeout: 10_000 });

  const decisions = (p) => p.log.requests.filter((u) => /\/api\/approvals\//.test(u)).length;
  const cancels = (p) => p.log.requests.filter((u) => /\/api\/runs\/[^/]+\/cancel$/.test(u)).length;

  test("desktop: Alt+N opens the New-session form; Alt+↓/↑ go through the list as shown; / focuses the prompt; from the prompt Alt+↓ lands in the next prompt", async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      await sessionsNamed(page, server, ["First", "Second", "Third"]);
      const order = await listed(page);
      assert.equal(order.length, 3);
      const create = page.locator(".session-list-head .btn.primary");
      assert.equal(await create.getAttribute("aria-keyshortcuts"), "Alt+N", "the button names its shortcut");
      assert.match(await create.getAttribute("title"), /Alt\+N/);

      await page.keyboard.press("Alt+n");
      await page.locator("form.new-session").waitFor();
      await focusOn(page, 'form.new-session input[name="workspace"]', "Alt+N focuses the form's first field");
      // In a text field Alt+N is left alone, and a bare ? or / is typed.
      await page.keyboard.type("/tmp?");
      assert.equal(await page.locator('form.new-session input[name="workspace"]').inputValue(), "/tmp?");
      assert.equal(await page.getByRole("dialog").count(), 0, "? in a field opened nothing");
      await create.click();
      await page.locator("form.new-session").waitFor({ state: "detached" });

      await blur(page);
      await page.keyboard.press("Alt+ArrowDown");
      await page.waitForURL(sessionUrl(server, order[0]));
      await page.keyboard.press("Alt+ArrowDown");
      await page.waitForURL(sessionUrl(server, order[1]));
      await page.keyboard.press("Alt+ArrowDown");
      await page.waitForURL(sessionUrl(server, order[2]));
      await page.keyboard.press("Alt+ArrowUp");
      await page.waitForURL(sessionUrl(server, order[1]));
      await page.locator(".sidebar a.session-item.active").filter({ hasText: "Second" }).waitFor();

      // `/` outside text fields: the prompt has the focus and nothing is typed.
      await blur(page);
      await page.keyboard.press("/");
      await focusOn(page, PROMPT, "/ focuses the prompt");
      assert.equal(await page.locator(PROMPT).inputValue(), "", "the / was not typed");
      assert.equal(await page.locator(PROMPT).getAttribute("aria-keyshortcuts"), "/");
      // In the prompt `/` is typed (a command), not a shortcut.
      await page.keyboard.press("/");
      assert.equal(await page.locator(PROMPT).inputValue(), "/");
      await page.locator(PROMPT).fill("");

      // From the prompt, Alt+↑ goes to the session before and its prompt has the focus.
      await page.keyboard.press("Alt+ArrowUp");
      await page.waitForURL(sessionUrl(server, order[0]));
      await focusOn(page, PROMPT, "Alt+↑ from the prompt lands in the next session's prompt");
      await shot(page, "keys-session-switch");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("390 px: Alt+↓ opens the first session from the list page and then the next; Alt+N from a session's page opens the list page's New-session form", async () => {
    const { server, p } = await boot(PHONE);
    try {
      const { page } = p;
      await sessionsNamed(page, server, ["One", "Two"]);
      const order = await listed(page);
      await blur(page);
      await page.keyboard.press("Alt+ArrowDown");
      await page.waitForURL(sessionUrl(server, order[0]));
      await page.locator(".session-view " + PROMPT).waitFor();
      await page.keyboard.press("Alt+ArrowDown");
      await page.waitForURL(sessionUrl(server, order[1]));
      await blur(page);
      await page.keyboard.press("Alt+n");
      await page.waitForURL(server.base + "/");
      const form = page.locator("main.list-page form.new-session");
      await form.waitFor();
      await focusOn(page, 'main.list-page form.new-session input[name="workspace"]', "the form's first field has the focus");
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), "no sideways scroll at 390 px");
      await shot(page, "keys-new-session-phone");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  for (const [name, viewport] of WIDTHS) {
    test(`${name}: ? opens the shortcuts sheet (never while typing), listing every shortcut; Esc and Close close it; the top bar's button opens it too`, async () => {
      const { server, p } = await boot(viewport);
      try {
        const { page } = p;
        const [id] = await sessionsNamed(page, server, ["Sheet"]);
        await page.goto(sessionUrl(server, id));
        const box = page.locator(PROMPT);
        await box.click();
        await page.keyboard.type("why? and/or");
        assert.equal(await box.inputValue(), "why? and/or", "? and / are typed in the prompt");
        assert.equal(await page.getByRole("dialog").count(), 0, "no sheet while typing");
        await box.fill("");

        await blur(page);
        await page.keyboard.press("?");
        const sheet = page.getByRole("dialog", { name: "Keyboard shortcuts" });
        await sheet.waitFor();
        const lines = (await sheet.locator(".shortcut-line").allInnerTexts()).map((t) => t.replace(/\s+/g, " ").trim());
        for (const [keys, what] of [
          ["Alt+N", "New session"],
          ["Alt+↑", "Previous session"],
          ["Alt+↓", "Next session"],
          ["Ctrl+K", "Search every session"],
          ["/", "Go to the prompt"],
          ["?", "Show these shortcuts"],
          ["Shift+Tab", "Next permission mode"],
          ["↑", "Edit the last queued message"],
          ["Ctrl+Enter or ⌘+Enter", "Allow the waiting call once"],
          ["Enter or A", "Allow once"],
          ["D or Esc", "Deny"],
        ]) {
          assert.ok(
            lines.some((l) => l.startsWith(keys) && l.includes(what)),
            `the sheet lists ${keys} — ${what}: ${JSON.stringify(lines)}`,
          );
        }
        assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), "no sideways scroll");
        await axe(page, `the shortcuts sheet (${name})`);
        await shot(page, `keys-sheet-${name === "desktop" ? "desktop" : "phone"}`);
        await page.keyboard.press("Escape");
        await sheet.waitFor({ state: "detached" });

        const button = page.getByRole("button", { name: "Keyboard shortcuts" });
        assert.equal(await button.getAttribute("aria-keyshortcuts"), "?");
        await button.click();
        await sheet.waitFor();
        await sheet.getByRole("button", { name: "Close" }).click();
        await sheet.waitFor({ state: "detached" });
        await focusOn(page, 'button[aria-label="Keyboard shortcuts"]', "the focus goes back to the button");
        assertClean(p);
      } finally {
        await finish(server, p);
      }
    });
  }

  test("390 px: Shift+Tab in the prompt cycles the permission mode ask → auto → full → ask through the mode menu; the focus stays in the prompt", async () => {
    const { server, p } = await boot(PHONE);
    try {
      const { page } = p;
      const id = await createSessionViaUi(page, { title: "Modes", mode: "ask" });
      const select = page.locator('.composer select[name="mode"]');
      assert.equal(await select.inputValue(), "ask");
      await page.locator(PROMPT).focus();
      for (const want of ["auto", "full", "ask"]) {
        const patched = nextRequest(page, "PATCH", `/api/sessions/${id}`);
        await page.keyboard.press("Shift+Tab");
        assert.deepEqual((await patched).postDataJSON(), { mode: want });
        await page.waitForFunction((w) => document.querySelector('.composer select[name="mode"]')?.value === w, want);
        await focusOn(page, PROMPT, `after Shift+Tab to ${want}`);
        await shows(page.locator(".mode-menu [role=status]"), `Permissions ${want}:`, "the change is said");
        assert.equal((await get(page, server, `/api/sessions/${id}`)).mode, want, "the server's session has the mode");
      }
      assert.match(await select.getAttribute("title"), /Shift\+Tab/, "the menu names its key");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("desktop: ↑ in an empty prompt edits the last queued message in the queue's editor (Esc gives the prompt back; Save saves); not with text typed", async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      const id = await createSessionViaUi(page, { title: "Queue editing", mode: "full" });
      await sendPrompt(page, "run the slow check");
      await page.locator(".transcript .tool-card").waitFor({ timeout: 20_000 });
      const box = page.locator(PROMPT);
      const panel = page.getByRole("region", { name: /Queued/ });
      for (const text of ["first queued", "second queued"]) {
        await box.fill(text);
        await page.locator(".composer").getByRole("button", { name: "Send after" }).click();
        await shows(panel.locator(".queue-text"), text, "the queued message");
      }
      const last = panel.locator(".queue-item").nth(1);
      const editor = last.getByRole("textbox", { name: "Queued message" });

      // With text typed, ↑ is the caret's.
      await box.fill("a draft");
      await box.press("ArrowUp");
      await afterPaint(page);
      assert.equal(await page.locator(".queue-edit").count(), 0, "no editor with text in the prompt");

      await box.fill("");
      await box.press("ArrowUp");
      await editor.waitFor();
      assert.equal(await editor.inputValue(), "second queued", "the last one opens");
      await focusOn(page, ".queue-item .queue-edit textarea", "the editor has the focus");
      await page.keyboard.press("Escape");
      await editor.waitFor({ state: "detached" });
      await focusOn(page, PROMPT, "Esc gives the prompt back");
      assert.equal(cancels(p), 0, "Esc in the editor stopped nothing");

      await box.press("ArrowUp");
      await editor.waitFor();
      await editor.fill("second, edited");
      await last.getByRole("button", { name: "Save" }).click();
      await shows(last.locator(".queue-text"), "second, edited", "the edited message");
      await focusOn(page, PROMPT, "the prompt has the focus after saving");
      const q = await get(page, server, `/api/sessions/${id}/queue`);
      assert.deepEqual(q.data.map((x) => x.text), ["first queued", "second, edited"]);
      await shot(page, "keys-queue-edit");

      // The run ends; the queued messages run after it, as edited.
      writeFileSync(join(server.workspace, "release"), "");
      await panel.waitFor({ state: "detached", timeout: 30_000 });
      await shows(page.locator(".transcript .msg-user"), "second, edited", "the edited message, sent", 20_000);
      const said = (await get(page, server, `/api/sessions/${id}/events?after=0&limit=5000`)).data.filter((e) => e.type === "user_message").map((e) => e.text);
      assert.deepEqual(said, ["run the slow check", "first queued", "second, edited"]);
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("desktop: approvals by key — never a bare letter typed in the prompt; on the focused card Enter and A allow once, D and Esc deny; Ctrl+Enter from anywhere or an empty prompt allows once", async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      await createSessionViaUi(page, { title: "Approvals by key", mode: "ask" });
      await sendPrompt(page, "write six files");
      const card = page.locator(".transcript .approval-card");
      await card.waitFor({ timeout: 20_000 });
      const box = page.locator(PROMPT);
      assert.equal(await card.getAttribute("tabindex"), "0", "the card takes the focus");
      assert.equal(await card.getByRole("button", { name: "Allow once" }).getAttribute("aria-keyshortcuts"), "A Control+Enter Meta+Enter");
      assert.equal(await card.getByRole("button", { name: "Deny", exact: true }).getAttribute("aria-keyshortcuts"), "D Escape");

      // Letters and Ctrl+Enter with words typed in the prompt are the prompt's.
      await box.focus();
      await page.keyboard.type("ad");
      await page.keyboard.press("Control+Enter");
      // Enter sends the words as a denial: the only answer, and one the prompt says it gives.
      const first = page.waitForRequest((r) => r.method() === "POST" && /\/api\/approvals\//.test(r.url()));
      await page.keyboard.press("Enter");
      assert.deepEqual((await first).postDataJSON(), { decision: "deny", reason: "ad" }, "the typed letters answered nothing by themselves");
      await page.locator(".transcript .approval-done").first().waitFor();
      assert.equal(decisions(p), 1, "one answer: Enter's");

      /** The next card: `how` puts the focus somewhere, `key` answers; the answer sent is `want`. */
      const answer = async (how, key, want) => {
        await page.locator(".transcript .approval-card").waitFor({ timeout: 20_000 });
        const c = page.locator(".transcript .approval-card");
        const aid = await c.getAttribute("data-approval-id");
        const sent = nextRequest(page, "POST", `/api/approvals/${aid}`);
        await how(c);
        await page.keyboard.press(key);
        assert.equal((await sent).postDataJSON().decision, want, `${key} answers ${want}`);
        await page.locator(`.transcript .approval-done[data-approval-id="${aid}"]`).waitFor();
      };
      await answer((c) => c.focus(), "Enter", "once");
      await answer((c) => c.focus(), "a", "once");
      await answer((c) => c.getByRole("button", { name: "Allow once" }).focus(), "d", "deny");
      await answer((c) => c.focus(), "Escape", "deny");
      await answer(() => box.focus(), "Control+Enter", "once");
      await shows(page.locator(".transcript .msg-assistant"), "All six answered.", "the run's end", 20_000);
      await page.locator(".transcript .working").waitFor({ state: "detached", timeout: 20_000 });
      assert.deepEqual(
        FILES.map((f) => existsSync(join(server.workspace, f))),
        [false, true, true, false, false, true],
        "the allowed writes ran, the denied ones did not",
      );
      assert.equal(cancels(p), 0, "no key stopped the run");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("desktop: Ctrl+Enter with the focus nowhere allows the waiting call once", async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      await createSessionViaUi(page, { title: "Ctrl+Enter", mode: "ask" });
      await sendPrompt(page, "write the notes");
      const card = page.locator(".transcript .approval-card");
      await card.waitFor({ timeout: 20_000 });
      const sent = nextRequest(page, "POST", `/api/approvals/${await card.getAttribute("data-approval-id")}`);
      await blur(page);
      await page.keyboard.press("Control+Enter");
      assert.deepEqual((await sent).postDataJSON(), { decision: "once" });
      await shows(page.locator(".transcript .approval-done"), "Allowed once", "the decided line");
      await page.locator(".transcript .working").waitFor({ state: "detached", timeout: 20_000 });
      assert.ok(existsSync(join(server.workspace, "notes.txt")), "the write ran");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  for (const [name, viewport] of WIDTHS) {
    test(`${name}: Esc in the prompt while an approval waits stops the run, as while it streams`, async () => {
      const { server, p } = await boot(viewport);
      try {
        const { page } = p;
        await createSessionViaUi(page, { title: "Esc stops", mode: "ask" });
        await sendPrompt(page, "write the notes");
        const card = page.locator(".transcript .approval-card");
        await card.waitFor({ timeout: 20_000 });
        // Esc with the focus nowhere leaves the approval alone (the card or the prompt is where Esc acts).
        await blur(page);
        await page.keyboard.press("Escape");
        await afterPaint(page);
        assert.equal(cancels(p) + decisions(p), 0, "Esc outside the prompt and the card did nothing");

        const cancel = page.waitForRequest((r) => r.method() === "POST" && /\/api\/runs\/[^/]+\/cancel$/.test(r.url()));
        await page.locator(PROMPT).focus();
        await page.keyboard.press("Escape");
        await cancel;
        const end = page.locator('.run-end[data-status="cancelled"]');
        await shows(end, "Stopped — press Resume to continue", "the run's end says Esc stopped it", 10_000);
        await card.waitFor({ state: "detached" });
        assert.equal(decisions(p), 0, "Esc stopped the run: it answered nothing");
        assert.ok(!existsSync(join(server.workspace, "notes.txt")), "the write did not run");
        assertClean(p);
      } finally {
        await finish(server, p);
      }
    });
  }

  test("desktop: Esc in the prompt while an approval waits and a message is queued asks first, as while it streams", async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      await createSessionViaUi(page, { title: "Esc asks", mode: "ask" });
      await sendPrompt(page, "write the log");
      const card = page.locator(".transcript .approval-card");
      await card.waitFor({ timeout: 20_000 });
      const box = page.locator(PROMPT);
      await box.fill("afterwards");
      await page.locator(".composer").getByRole("button", { name: "Send after" }).click();
      await shows(page.locator(".queue-item .queue-text"), "afterwards", "the queued message");

      await box.focus();
      await page.keyboard.press("Escape");
      const dialog = page.getByRole("dialog", { name: "Cancel the run?" });
      await dialog.waitFor();
      await dialog.getByText("1 queued message is waiting").waitFor();
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "hidden" });
      assert.equal(cancels(p), 0, "Esc on the dialog cancels nothing");
      await focusOn(page, PROMPT, "the prompt has the focus back");

      await page.keyboard.press("Escape");
      await dialog.waitFor();
      const cancel = page.waitForRequest((r) => r.method() === "POST" && /\/api\/runs\/[^/]+\/cancel$/.test(r.url()));
      await dialog.getByRole("button", { name: "Cancel and drop the queue" }).click();
      await cancel;
      await page.locator('.run-end[data-status="cancelled"]').first().waitFor({ timeout: 10_000 });
      await page.locator(".queue-item").waitFor({ state: "detached" });
      assert.equal(decisions(p), 0);
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  for (const [name, viewport] of WIDTHS) {
    test(`${name}: Esc closes the Permissions panel (from inside it) and the Artifacts drawer (from its button, inside it or the prompt); the focus goes back to the button`, async () => {
      const { server, p } = await boot(viewport);
      try {
        const { page } = p;
        const [id] = await sessionsNamed(page, server, ["Panels"]);
        await page.goto(sessionUrl(server, id));
        const header = page.locator(".session-header");

        const permissions = header.getByRole("button", { name: "Permissions", exact: true });
        await permissions.click();
        const panel = page.locator(".permissions-panel");
        await panel.getByRole("button", { name: "Refresh" }).focus();
        await page.keyboard.press("Escape");
        await panel.waitFor({ state: "detached" });
        assert.equal(await permissions.getAttribute("aria-pressed"), "false");
        await focusOn(page, ".session-actions button[aria-pressed]", "back on the Permissions button");
        assert.equal(await page.evaluate(() => document.activeElement?.textContent?.trim()), "Permissions");

        const artifacts = header.getByRole("button", { name: "Artifacts", exact: true });
        const drawer = page.locator(".artifacts-panel");
        // Opened from its button, which keeps the focus: Esc closes it.
        await artifacts.click();
        await drawer.waitFor();
        await page.keyboard.press("Escape");
        await drawer.waitFor({ state: "detached" });
        // From inside it: closed, and the focus is back on the button.
        await artifacts.click();
        await drawer.getByRole("button", { name: "Close artifacts" }).focus();
        await page.keyboard.press("Escape");
        await drawer.waitFor({ state: "detached" });
        assert.equal(await artifacts.getAttribute("aria-pressed"), "false");
        await focusOn(page, ".session-actions button[aria-pressed]", "back on the Artifacts button");
        assert.equal(await page.evaluate(() => document.activeElement?.textContent?.trim()), "Artifacts");
        // Esc in the prompt closes it too (nothing typed is lost, the focus stays).
        await artifacts.click();
        await drawer.waitFor();
        await page.locator(PROMPT).focus();
        await page.keyboard.type("x");
        await page.keyboard.press("Escape");
        await drawer.waitFor({ state: "detached" });
        assert.equal(await page.locator(PROMPT).inputValue(), "x");
        await focusOn(page, PROMPT, "the prompt keeps the focus");
        assertClean(p);
      } finally {
        await finish(server, p);
      }
    });
  }

  test("desktop: on a plan, Esc while revisions are compared closes only the comparison (never a skip); Esc on Compare skips nothing; Skip skips", async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      const id = await createSessionViaUi(page, { title: "Plan keys", agent: "plan" });
      await sendPrompt(page, "plan the cache");
      await page.locator('.plan-card.pending[data-revision="1"]').waitFor({ timeout: 20_000 });
      await page.getByRole("button", { name: "Add feedback" }).click();
      await page.getByLabel("Feedback on the plan").fill("Document it too.");
      await page.getByRole("button", { name: "Send feedback" }).click();
      await page.locator('.plan-card.pending[data-revision="2"]').waitFor({ timeout: 20_000 });
      const card = page.locator('.plan-card[data-revision="2"]');
      const decided = async () => (await get(page, server, `/api/sessions/${id}/events?after=0&limit=5000`)).data.filter((e) => e.type === "plan_decided");

      const compare = card.getByRole("button", { name: /Compare revisions/ });
      const diff = card.locator(".plan-revdiff");
      // Esc on the Compare button (focused by the click) closes the comparison.
      await compare.click();
      await diff.waitFor();
      await page.keyboard.press("Escape");
      await diff.waitFor({ state: "detached" });
      assert.equal(await compare.getAttribute("aria-expanded"), "false");
      await focusOn(page, '.plan-card[data-revision="2"] .plan-tools button[aria-expanded]', "the focus is back on Compare");
      // Esc elsewhere on the card while comparing: the comparison closes, the plan waits on.
      await compare.click();
      await diff.waitFor();
      await card.getByRole("button", { name: "Approve", exact: true }).focus();
      await page.keyboard.press("Escape");
      await diff.waitFor({ state: "detached" });
      // Esc on the closed Compare button skips nothing either.
      await compare.focus();
      await page.keyboard.press("Escape");
      await afterPaint(page);
      assert.equal(await card.locator(".plan-undo").count(), 0, "no skip offered");
      assert.deepEqual((await decided()).map((e) => e.decision), ["feedback"], "the plan still waits");

      // Skip is its own button.
      await card.getByRole("button", { name: "Skip", exact: true }).click();
      await card.locator(".plan-decision").getByText("Skipped").waitFor({ timeout: 15_000 });
      assert.equal((await decided()).at(-1).decision, "skipped");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });
});
