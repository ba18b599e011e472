// Projects, drafts and the app's own questions (issue 47, item 13 and minor items), end to end:
// the real server with the replay provider, real Chromium. The session list groups sessions by
// workspace folder; each session's "⋯" menu (a keyboard menu: arrows, Home/End, a letter, Esc)
// renames it in place, forks it and deletes it after the app's confirmation dialog (an
// alertdialog that keeps the focus, Esc cancels), and a project's "⋯" starts a session in its
// folder. The composer's text and images are kept per session in IndexedDB, across moving between
// sessions and a reload, and cleared when sent. A Markdown link asks in the same dialog, never
// the browser's confirm(). Settings → MCP servers offers only the action that applies: Connect or
// Disconnect. A session address that does not exist shows a page that says so, with a way back;
// no session yet, and a session without messages, show what to do next. At phone width: the list
// page's menus and dialog, and axe on them. Each test starts its own server; waits are on DOM
// states and requests, never on timers.
import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { after, before, describe, test } from "node:test";
import { apiCall, assertClean, haveServer, launchBrowser, newPage, repoRoot, shot, signInWithToken, startServer } from "./harness.mjs";
import { axe, get } from "./checks.mjs";

const skip = haveServer() ? false : "server binary not built (target/debug/tradewind)";
const PHONE = { width: 390, height: 844 };

const scripts = [
  { match: "draft for A", turns: [{ text: "Got your draft." }] },
  { match: "show me a link", turns: [{ text: "The docs are at [the guide](https://example.com/guide)." }] },
  { turns: [{ text: "Hello." }] },
];

/** A 2×2 PNG of one colour (8-bit RGB). */
function png() {
  const table = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf) => {
    let c = 0xffffffff;
    for (const b of buf) c = table[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type, data) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([len, body, sum]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(2, 0);
  ihdr.writeUInt32BE(2, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const row = Buffer.from([0, 200, 30, 30, 200, 30, 30]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(Buffer.concat([row, row]))),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}
const CHART = png();

/** What has the focus: `role:name` (its role or tag, then its aria-label, label or text). */
function focused() {
  const a = document.activeElement;
  if (!a) return "";
  const name = a.getAttribute("aria-label") ?? a.labels?.[0]?.textContent ?? a.textContent;
  return `${a.getAttribute("role") ?? a.tagName.toLowerCase()}:${name.trim()}`;
}

/** Waits until the focus is on `expected` (`role:name`); fails with where it is. */
async function focusOn(page, expected, what) {
  await page
    .waitForFunction(({ exp, fn }) => new Function(`return (${fn})()`)() === exp, { exp: expected, fn: focused.toString() }, { timeout: 8000 })
    .catch(async () => assert.fail(`${what}: the focus is on ${await page.evaluate(focused)}, not ${expected}`));
}

describe("projects, drafts and the app's own questions", { skip, timeout: 600_000 }, () => {
  let browser;

  before(async () => {
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
  });

  /** A server of its own and a signed-in page on it, on the home page (CSP bypassed only for axe). */
  async function boot({ viewport, config } = {}) {
    const server = await startServer({ scripts, config });
    const first = await newPage(browser, server);
    const state = await signInWithToken(first.page, server);
    await first.context.close();
    const p = await newPage(browser, server, { storageState: state, bypassCSP: true, viewport });
    p.page.setDefaultTimeout(10_000);
    await p.page.goto(server.base + "/");
    await p.page.locator(".topbar").waitFor();
    return { server, p };
  }

  async function finish(server, p) {
    await p?.context.close();
    await server?.stop();
  }

  async function create(page, server, body) {
    const r = await apiCall(page, server, "POST", "/api/sessions", body);
    assert.equal(r.status, 201, `create a session: ${JSON.stringify(r.json)}`);
    return r.json.id;
  }

  const idFromUrl = (page) => decodeURIComponent(new URL(page.url()).pathname.split("/").pop());

  /** The project groups of the list, in order: [name, [session ids]]. */
  const groups = (page) =>
    page.locator(".session-list .ws-group").evaluateAll((gs) =>
      gs.map((g) => [g.querySelector(":is(h2, h3)").textContent, [...g.querySelectorAll("[data-session-id]")].map((a) => a.dataset.sessionId)]),
    );

  test("projects: sessions grouped by workspace; a session's ⋯ menu renames, forks and deletes (asked in the app's dialog); a project's ⋯ starts a session there", async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      const other = join(server.dir, "other-project");
      mkdirSync(other);
      const parser = await create(page, server, { title: "Parser work" });
      const lexer = await create(page, server, { title: "Lexer work" });
      const elsewhere = await create(page, server, { title: "Elsewhere", workspace: other });
      for (const id of [parser, lexer, elsewhere]) await page.locator(`.sessions [data-session-id="${id}"]`).waitFor();

      // Grouped by folder: the one changed last first, each newest first, named by its last part.
      assert.deepEqual(await groups(page), [
        ["other-project", [elsewhere]],
        ["ws", [lexer, parser]],
      ]);
      const wsGroup = page.getByRole("list", { name: "ws", exact: true });
      assert.equal(await wsGroup.locator("[data-session-id]").count(), 2, "the group's list is named by its heading");
      assert.equal(await page.locator(".ws-group .ws-group-path").first().getAttribute("title"), other);

      // The menu from the keyboard: Enter opens it on its first entry; arrows wrap, Home/End, a letter jumps.
      const menuButton = page.getByRole("button", { name: "Actions for Parser work", exact: true });
      await menuButton.focus();
      await page.keyboard.press("Enter");
      const menu = page.getByRole("menu", { name: "Actions for Parser work" });
      await menu.waitFor();
      assert.deepEqual(await menu.getByRole("menuitem").allInnerTexts(), ["Rename", "Fork", "Delete"]);
      assert.equal(await menuButton.getAttribute("aria-expanded"), "true");
      await focusOn(page, "menuitem:Rename", "Enter opens the menu on its first entry");
      await page.keyboard.press("ArrowDown");
      await focusOn(page, "menuitem:Fork", "↓ moves down");
      await page.keyboard.press("End");
      await focusOn(page, "menuitem:Delete", "End goes to the last");
      await page.keyboard.press("ArrowDown");
      await focusOn(page, "menuitem:Rename", "↓ wraps to the first");
      await page.keyboard.press("d");
      await focusOn(page, "menuitem:Delete", "a letter jumps to the entry it starts");
      await page.keyboard.press("Home");
      await focusOn(page, "menuitem:Rename", "Home goes to the first");
      await page.keyboard.press("Escape");
      await menu.waitFor({ state: "detached" });
      await focusOn(page, "button:Actions for Parser work", "Esc closes the menu onto its button");
      assert.equal(await menuButton.getAttribute("aria-expanded"), "false");

      // Rename in place: ↓ opens the menu; Enter on Rename; Enter saves; the focus back on the menu.
      await page.keyboard.press("ArrowDown");
      await focusOn(page, "menuitem:Rename", "↓ opens the menu on its first entry");
      await page.keyboard.press("Enter");
      const title = page.getByRole("textbox", { name: "New title for Parser work" });
      await focusOn(page, "input:New title for Parser work", "the title field has the focus");
      assert.equal(await title.inputValue(), "Parser work");
      await title.fill("Parser, renamed");
      await title.press("Enter");
      await page.locator(`.sessions [data-session-id="${parser}"]`).getByText("Parser, renamed").waitFor();
      await focusOn(page, "button:Actions for Parser, renamed", "the focus back on the menu after the rename");
      assert.equal((await get(page, server, `/api/sessions/${parser}`)).title, "Parser, renamed");
      // Esc cancels a rename.
      await page.keyboard.press("Enter");
      await focusOn(page, "menuitem:Rename", "the menu again");
      await page.keyboard.press("Enter");
      await page.getByRole("textbox", { name: "New title for Parser, renamed" }).fill("Not kept");
      await page.keyboard.press("Escape");
      await focusOn(page, "button:Actions for Parser, renamed", "Esc gives the focus back to the menu");
      assert.equal(await page.locator(`[data-session-id="${parser}"] .session-title`).innerText(), "Parser, renamed");

      // Fork: a copy of the conversation, opened, in the same project.
      await page.keyboard.press("Enter");
      await focusOn(page, "menuitem:Rename", "the menu open again");
      await page.keyboard.press("f");
      await focusOn(page, "menuitem:Fork", "f jumps to Fork");
      await page.keyboard.press("Enter");
      await page.waitForURL((u) => u.pathname.startsWith("/s/") && !u.pathname.endsWith(parser));
      const fork = idFromUrl(page);
      const forked = await get(page, server, `/api/sessions/${fork}`);
      assert.equal(forked.forked_from?.session, parser);
      assert.equal(forked.title, "Parser, renamed (fork)");
      await wsGroup.locator(`[data-session-id="${fork}"][aria-current="page"]`).waitFor();

      // Delete: asked in the app's dialog (never the browser's); Esc cancels, Delete deletes.
      const lexerMenu = page.getByRole("button", { name: "Actions for Lexer work", exact: true });
      await lexerMenu.click();
      await page.getByRole("menuitem", { name: "Delete" }).click();
      const ask = page.getByRole("alertdialog", { name: "Delete the session “Lexer work”?" });
      await ask.waitFor();
      await ask.getByText("This cannot be undone.", { exact: false }).waitFor();
      assert.equal(await ask.evaluate((d) => d.open && d.matches(":modal")), true, "a modal dialog");
      await focusOn(page, "button:Cancel", "the focus on Cancel, the safe answer");
      await page.keyboard.press("Tab");
      await focusOn(page, "button:Delete", "Tab moves to Delete");
      await page.keyboard.press("Tab");
      await focusOn(page, "button:Cancel", "Tab stays in the dialog");
      await page.keyboard.press("Shift+Tab");
      await focusOn(page, "button:Delete", "Shift+Tab stays in the dialog");
      await page.keyboard.press("Escape");
      await ask.waitFor({ state: "detached" });
      await focusOn(page, "button:Actions for Lexer work", "Esc cancels, the focus back on the menu");
      assert.equal((await apiCall(page, server, "GET", `/api/sessions/${lexer}`)).status, 200, "Esc deleted nothing");

      await page.keyboard.press("Enter");
      await focusOn(page, "menuitem:Rename", "the menu open again");
      await page.keyboard.press("End");
      await focusOn(page, "menuitem:Delete", "End on Delete");
      await page.keyboard.press("Enter");
      await ask.waitFor();
      await ask.getByRole("button", { name: "Delete", exact: true }).click();
      await page.locator(`[data-session-id="${lexer}"]`).waitFor({ state: "detached" });
      assert.equal((await apiCall(page, server, "GET", `/api/sessions/${lexer}`)).status, 404);
      await page.waitForFunction(() => document.activeElement?.matches("a.session-item"));

      // A project's menu: New session here, opened, in that folder.
      await page.getByRole("button", { name: "Actions for the project other-project", exact: true }).click();
      await page.getByRole("menuitem", { name: "New session here" }).click();
      await page.waitForURL((u) => u.pathname.startsWith("/s/") && !u.pathname.endsWith(fork));
      const here = idFromUrl(page);
      assert.equal((await get(page, server, `/api/sessions/${here}`)).workspace, other);
      await page.getByRole("list", { name: "other-project", exact: true }).locator(`[data-session-id="${here}"][aria-current="page"]`).waitFor();
      assert.deepEqual(p.log.dialogs, [], "no native dialog");
      await shot(page, "projects-desktop");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("drafts: text and images kept per session across sessions and a reload, cleared when sent", async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      const a = await create(page, server, { title: "Draft A" });
      const b = await create(page, server, { title: "Draft B" });
      const composer = page.locator("form.composer");
      const box = composer.locator("textarea[name=prompt]");
      const thumbs = composer.locator(".image-draft");
      const saved = () => page.locator('form.composer[data-draft="saved"]').waitFor();
      const heading = (t) => page.locator("h1.session-name").getByText(t, { exact: true }).waitFor();
      /** The prompt shows exactly `text`. */
      const promptIs = (text) => page.waitForFunction((t) => document.querySelector(".composer textarea[name=prompt]")?.value === t, text);

      await page.goto(`${server.base}/s/${a}`);
      await heading("Draft A");
      await saved();
      const TEXT_A = "draft for A: explain the parser";
      await box.fill(TEXT_A);
      await composer.locator('input[name="images"]').setInputFiles([{ name: "chart.png", mimeType: "image/png", buffer: CHART }]);
      await composer.locator('.image-draft[data-name="chart.png"]').waitFor();
      await saved();

      // Another session: its own, empty composer; a draft of its own.
      await page.locator(`.sessions [data-session-id="${b}"]`).click();
      await heading("Draft B");
      await saved();
      assert.equal(await box.inputValue(), "");
      assert.equal(await thumbs.count(), 0, "A's image stays with A");
      await box.fill("draft for B");
      await saved();

      // Back to A: its text and image again.
      await page.locator(`.sessions [data-session-id="${a}"]`).click();
      await heading("Draft A");
      await promptIs(TEXT_A);
      await composer.locator('.image-draft[data-name="chart.png"] img').waitFor();
      assert.equal(await thumbs.count(), 1);

      // A reload keeps both (IndexedDB).
      await page.reload();
      await heading("Draft A");
      await promptIs(TEXT_A);
      await composer.locator('.image-draft[data-name="chart.png"]').waitFor();
      assert.equal(await composer.locator('.image-draft[data-name="chart.png"] img').evaluate((i) => i.naturalWidth), 2, "the image itself came back");
      await saved();

      // Sent: the text and image go with the message, the draft is cleared, and stays so after a reload.
      const posted = page.waitForRequest((r) => r.method() === "POST" && new URL(r.url()).pathname === `/api/sessions/${a}/messages`);
      await box.press("Enter");
      const body = JSON.parse((await posted).postData());
      assert.equal(body.text, TEXT_A);
      assert.deepEqual(body.images.map((i) => i.name), ["chart.png"]);
      await page.locator(".msg-assistant").getByText("Got your draft.").waitFor({ timeout: 20_000 });
      await promptIs("");
      await thumbs.first().waitFor({ state: "detached" });
      await saved();
      await page.reload();
      await heading("Draft A");
      await page.locator(".msg-assistant").getByText("Got your draft.").waitFor();
      await saved();
      assert.equal(await box.inputValue(), "", "a sent draft does not come back");
      assert.equal(await thumbs.count(), 0);

      // B's draft is still there after the reload.
      await page.locator(`.sessions [data-session-id="${b}"]`).click();
      await heading("Draft B");
      await promptIs("draft for B");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("confirmations: a session's Delete and a Markdown link ask in the app's dialog, never the browser's", async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      const id = await create(page, server, { title: "Links" });
      await page.goto(`${server.base}/s/${id}`);
      const box = page.locator(".composer textarea[name=prompt]");
      await box.fill("show me a link");
      await box.press("Enter");
      const link = page.locator(".msg-assistant a", { hasText: "the guide" });
      await link.waitFor({ timeout: 20_000 });

      // A link asks first: Esc cancels, nothing opens.
      const popups = [];
      p.context.on("page", (pg) => popups.push(pg.url()));
      await link.click();
      const ask = page.getByRole("alertdialog", { name: "Open this link in a new tab?" });
      await ask.waitFor();
      await ask.getByText("https://example.com/guide").waitFor();
      await focusOn(page, "button:Open link", "the focus on the dialog's answer");
      await page.keyboard.press("Escape");
      await ask.waitFor({ state: "detached" });
      assert.deepEqual(popups, [], "nothing opened");

      // The header's Delete: Cancel keeps the session, Delete deletes it and goes home.
      const del = page.locator(".session-actions").getByRole("button", { name: "Delete", exact: true });
      await del.click();
      const sure = page.getByRole("alertdialog", { name: "Delete the session “Links”?" });
      await sure.waitFor();
      await sure.getByRole("button", { name: "Cancel" }).click();
      await sure.waitFor({ state: "detached" });
      await focusOn(page, "button:Delete", "the focus back on Delete");
      assert.equal((await apiCall(page, server, "GET", `/api/sessions/${id}`)).status, 200);
      await del.click();
      await sure.getByRole("button", { name: "Delete", exact: true }).click();
      await page.waitForURL(server.base + "/");
      assert.equal((await apiCall(page, server, "GET", `/api/sessions/${id}`)).status, 404);
      assert.deepEqual(p.log.dialogs, [], "no native dialog");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("a session that does not exist: a page that says so, and a way back", async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      const known = await create(page, server, { title: "A real one" });
      await page.goto(`${server.base}/s/01J0000000000000000NOSUCH`);
      const gone = page.locator("[data-not-found]");
      await gone.getByRole("heading", { name: "Session not found", level: 1 }).waitFor();
      await gone.getByText("01J0000000000000000NOSUCH").waitFor();
      await focusOn(page, "h1:Session not found", "the heading is read first");
      await gone.getByRole("link", { name: "Back to your sessions" }).click();
      await page.waitForURL(server.base + "/");
      await page.getByRole("heading", { name: "Welcome to Tradewind" }).waitFor();
      await page.locator(`.sessions [data-session-id="${known}"]`).waitFor();

      // Its New session opens the form.
      await page.goBack();
      await gone.waitFor();
      await gone.getByRole("button", { name: "New session" }).click();
      await page.waitForURL(server.base + "/");
      await page.locator("form.new-session").waitFor();
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("empty states: no session yet, and a session without messages, say what to do next", async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      const empty = page.locator(".session-list [data-list-empty]");
      await empty.getByText("No sessions yet.").waitFor();
      await page.locator('[data-welcome="empty"]').getByRole("listitem").first().waitFor();
      await empty.getByRole("button", { name: "New session" }).click();
      const form = page.locator("form.new-session");
      await form.waitFor();
      await focusOn(page, "input:Workspace folder", "the form's first field has the focus");
      await empty.waitFor({ state: "detached" });
      await form.getByRole("button", { name: "Create session" }).click();
      await page.waitForURL((u) => u.pathname.startsWith("/s/"));
      const none = page.locator("[data-empty-session]");
      await none.getByText("No messages yet").waitFor();
      await none.getByText("in the prompt below", { exact: false }).waitFor();
      assert.equal(await none.getByRole("listitem").count(), 3, "examples of what to write");
      await shot(page, "empty-session");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  const everything = join(repoRoot, "tests", "mcp", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
  test("MCP servers: only the action that applies is offered, Connect or Disconnect", { skip: existsSync(everything) ? false : "tests/mcp not installed" }, async () => {
    const { server, p } = await boot({ config: { mcpServers: { everything: { command: "node", args: [everything, "stdio"] } } } });
    try {
      const { page } = p;
      await page.goto(server.base + "/settings");
      const row = page.getByRole("region", { name: "MCP servers" }).locator('li[data-mcp-server="everything"]');
      const connect = row.getByRole("button", { name: "Connect everything", exact: true });
      const disconnect = row.getByRole("button", { name: "Disconnect everything", exact: true });
      const offered = async () => [await connect.getAttribute("aria-disabled"), await disconnect.getAttribute("aria-disabled")];

      await row.and(page.locator('[data-state="disconnected"]')).waitFor();
      assert.deepEqual(await offered(), ["false", "true"], "not connected: Connect only");
      await connect.focus();
      await page.keyboard.press("Enter");
      await row.and(page.locator('[data-state="connected"]')).waitFor({ timeout: 40_000 });
      assert.deepEqual(await offered(), ["true", "false"], "connected: Disconnect only");
      await focusOn(page, "button:Disconnect everything", "the focus moves to the action that applies");
      await page.keyboard.press("Enter");
      await row.and(page.locator('[data-state="disconnected"]')).waitFor();
      assert.deepEqual(await offered(), ["false", "true"], "disconnected again: Connect only");
      await focusOn(page, "button:Connect everything", "the focus back on Connect");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("phone width: the list page's menus and dialog work, and axe finds nothing on them", async () => {
    const { server, p } = await boot({ viewport: PHONE });
    try {
      const { page } = p;
      const keep = await create(page, server, { title: "Phone keeps" });
      const drop = await create(page, server, { title: "Phone drops" });
      for (const id of [keep, drop]) await page.locator(`.sessions [data-session-id="${id}"]`).waitFor();
      assert.deepEqual(await groups(page), [["ws", [drop, keep]]]);
      const menuButton = page.getByRole("button", { name: "Actions for Phone drops", exact: true });
      await menuButton.click();
      const menu = page.getByRole("menu", { name: "Actions for Phone drops" });
      await menu.waitFor();
      const box = await menu.boundingBox();
      assert.ok(box.x >= 0 && box.x + box.width <= PHONE.width, `the menu fits the screen: ${JSON.stringify(box)}`);
      await axe(page, "the list page with a session's menu open, at phone width");
      await menu.getByRole("menuitem", { name: "Delete" }).click();
      const ask = page.getByRole("alertdialog", { name: "Delete the session “Phone drops”?" });
      await ask.waitFor();
      const dbox = await ask.boundingBox();
      assert.ok(dbox.x >= 0 && dbox.x + dbox.width <= PHONE.width, `the dialog fits the screen: ${JSON.stringify(dbox)}`);
      await axe(page, "the confirmation dialog, at phone width");
      await shot(page, "projects-phone-confirm");
      await ask.getByRole("button", { name: "Delete", exact: true }).click();
      await page.locator(`[data-session-id="${drop}"]`).waitFor({ state: "detached" });
      assert.equal((await apiCall(page, server, "GET", `/api/sessions/${drop}`)).status, 404);
      await page.locator(`[data-session-id="${keep}"]`).waitFor();
      // The project's menu on the phone: New session here.
      await page.getByRole("button", { name: "Actions for the project ws", exact: true }).click();
      await page.getByRole("menuitem", { name: "New session here" }).click();
      await page.waitForURL((u) => u.pathname.startsWith("/s/"));
      await page.locator("[data-empty-session]").getByText("No messages yet").waitFor();
      assert.deepEqual(p.log.dialogs, [], "no native dialog");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });
});
