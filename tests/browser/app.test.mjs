// Browser tests of the web app against the real server (replay provider).
// Run: cd tests/browser && npm ci && npm test
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  apiCall,
  createSessionViaUi,
  freshSignIn,
  haveServer,
  launchBrowser,
  newPage,
  pageHeaders,
  sendPrompt,
  shot,
  signInWithToken,
  sleep,
  startServer,
} from "./harness.mjs";

const XSS = [
  `<img src=x onerror="window.__pwned='img'">`,
  `<script>window.__pwned='script'</script>`,
  `<svg onload="window.__pwned='svg'"><circle r=5 /></svg>`,
  `<iframe srcdoc="<script>parent.__pwned='iframe'</script>"></iframe>`,
  `[click me](javascript:window.__pwned='link')`,
  `[data](data:text/html,<script>parent.__pwned='data'</script>)`,
  `[vb](vbscript:msgbox)`,
  `[proto-rel](//evil.example/x)`,
  `![tracker](https://evil.example/pixel.png)`,
  `<img src="https://evil.example/raw.png">`,
  `<a href="https://evil.example" onclick="window.__pwned='onclick'">raw anchor</a>`,
  `<style>body{background:url(https://evil.example/css.png)}</style>`,
].join("\n\n");

const HOSTILE_NAME = `<img src=x onerror="window.__pwned='file'">.txt`;
const SLOW_TEXT = Array.from({ length: 60 }, (_, i) => `word${i}`).join(" ") + " THE END.";

const scripts = [
  {
    match: "make a file",
    turns: [
      { text: "Writing it.", tool_calls: [{ name: "write_file", arguments: { path: "hello.txt", content: "hi\n" } }] },
      { text: "Done: **hello.txt** written." },
    ],
  },
  {
    match: "phone file",
    turns: [
      { text: "Writing it.", tool_calls: [{ name: "write_file", arguments: { path: "phone.txt", content: "small\n" } }] },
      { text: "Done: **phone.txt** written." },
    ],
  },
  {
    match: "forbidden file",
    turns: [
      { text: "Trying.", tool_calls: [{ name: "write_file", arguments: { path: "denied.txt", content: "nope\n" } }] },
      { text: "Understood, not written." },
    ],
  },
  {
    match: "run a command",
    turns: [
      {
        text: "Running.",
        tool_calls: [{ name: "shell", arguments: { command: "printf '\\033[31mred\\033[0m plain\\n'; echo oops >&2; exit 3" } }],
      },
      { text: "It exited with 3." },
    ],
  },
  {
    match: "slow story",
    turns: [{ text: SLOW_TEXT, chunk_chars: 6, delay_ms: 60 }],
  },
  {
    match: "be hostile",
    turns: [
      {
        text: XSS,
        tool_calls: [
          { name: "shell", arguments: { command: `printf '%s\\n' '<img src=x onerror="window.__pwned=1">' '<script>window.__pwned=2</script>'` } },
          { name: "write_file", arguments: { path: HOSTILE_NAME, content: `<script>window.__pwned='diff'</script>\n<svg onload="window.__pwned='diff2'">\n` } },
        ],
      },
      { text: `Done. ${XSS}` },
    ],
  },
  {
    match: "draw a diagram",
    turns: [
      {
        text: [
          "A good one:",
          "```mermaid\nflowchart LR\n  A[Prompt] --> B{Policy}\n  B -->|allow| C[Run]\n```",
          "A broken one:",
          "```mermaid\nflowchart LR\n  A -->\n```",
          "A hostile one:",
          "```mermaid\n%%{init: {\"securityLevel\": \"loose\", \"themeCSS\": \"body{background:url(https://evil.example/m.png)}\"}}%%\nflowchart LR\n  A[\"<img src=x onerror=window.__pwned='mermaid'>\"] --> B\n  click A call alert(1)\n  click B href \"javascript:window.__pwned='href'\"\n```",
        ].join("\n\n"),
      },
    ],
  },
  {
    match: "list twice",
    turns: [
      { text: "Listing.", tool_calls: [{ name: "shell", arguments: { command: "ls -la" } }] },
      { text: "Again.", tool_calls: [{ name: "shell", arguments: { command: "ls . 2>&1 | head -3" } }] },
      { text: "Listed twice." },
    ],
  },
  { turns: [{ text: "Hello from replay", chunk_chars: 4, delay_ms: 5 }] },
];

const skip = haveServer() ? false : "server binary not built (target/debug/tradewind)";

describe("web app", { skip, timeout: 900_000 }, () => {
  let server;
  let browser;
  let state; // cookie storage after sign-in

  before(async () => {
    server = await startServer({ scripts, args: ["--allow-write", "--allow-process"] });
    browser = await launchBrowser();
    // Every test signs in with this cookie, whichever tests run (the first one tests the
    // sign-in flow itself with the server's own link).
    state = await freshSignIn(browser, server);
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  /** Open a signed-in page; every test checks that nothing foreign was loaded and nothing ran. */
  async function open(opts = {}) {
    const p = await newPage(browser, server, { storageState: state, ...opts });
    return p;
  }

  function assertClean(p) {
    assert.deepEqual(p.log.foreign, [], "requests to other origins");
    assert.deepEqual(p.log.errors, [], "page errors");
  }

  async function assertNoScript(page) {
    assert.equal(await page.evaluate(() => window.__pwned), undefined, "hostile script ran");
    assert.deepEqual(await page.evaluate(() => window.__cspViolations), [], "CSP violations");
  }

  async function approvalCard(page) {
    const card = page.locator(".transcript .approval-card");
    await card.first().waitFor({ timeout: 15_000 });
    return card.first();
  }

  async function waitRunEnd(page, n = 1) {
    await page.waitForFunction((n) => document.querySelectorAll(".transcript .run-end").length >= n, n, {
      timeout: 20_000,
    });
  }

  test("sign-in screen without a cookie, then sign in with the token link", async () => {
    const fresh = await newPage(browser, server);
    await fresh.page.goto(server.base + "/");
    // No password is set: no password field to fail on, but the way in (`tradewind link`).
    const help = fresh.page.getByTestId("link-help");
    await help.waitFor({ timeout: 10_000 });
    assert.match(await help.textContent(), /tradewind link/);
    assert.equal(await fresh.page.locator("form.signin-card input[type=password]").count(), 0, "no password field");
    await shot(fresh.page, "01-sign-in");
    assertClean(fresh);
    await fresh.context.close();

    const p = await newPage(browser, server);
    state = await signInWithToken(p.page, server);
    assert.equal(new URL(p.page.url()).search, "", "token removed from the URL");
    await p.page.locator(".conn[data-state=open]").waitFor({ timeout: 10_000 });
    const who = await apiCall(p.page, server, "GET", "/api/whoami");
    assert.equal(who.status, 200);
    await shot(p.page, "02-empty-home");
    assertClean(p);
    await p.context.close();

    // The used link is a page that says what to do, never raw JSON.
    const used = await newPage(browser, server);
    const resp = await used.page.goto(server.url);
    assert.equal(resp.status(), 401);
    assert.match(resp.headers()["content-type"], /^text\/html/);
    await used.page.getByText("already used").waitFor({ timeout: 5_000 });
    await used.page.locator("code", { hasText: "tradewind link" }).first().waitFor();
    await used.context.close();
  });

  test("allow commands like this, then see and revoke the rule in the permissions panel", async () => {
    const p = await open();
    await p.page.goto(server.base + "/");
    const id = await createSessionViaUi(p.page, { title: "Rules", mode: "ask" });
    await sendPrompt(p.page, "list twice");
    const card = await approvalCard(p.page);
    const rule = card.getByRole("button", { name: /Allow ls … in this session/ });
    await rule.waitFor();
    await rule.click();
    await waitRunEnd(p.page);
    await p.page.locator(".msg-assistant").getByText("Listed twice.").waitFor();
    assert.equal(await p.page.locator(".transcript .approval-card").count(), 0, "the second `ls` ran under the rule");
    await p.page.locator(".approval-done").getByText("Allowed ls … in this session").waitFor();
    await p.page.getByRole("button", { name: "Permissions" }).click();
    const panel = p.page.locator(".permissions-panel");
    const grant = panel.locator('.grant[data-kind="prefix"]');
    await grant.getByText("commands starting with `ls`").waitFor();
    assert.equal(await grant.locator(".chip").innerText(), "session");
    await panel.locator(".ceiling").getByText("--allow-process").waitFor();
    await panel.locator(".tools-status summary").click();
    await panel.locator('.tool-status[data-tool="shell"]').getByText("ask", { exact: true }).waitFor();
    await shot(p.page, "29-permissions");
    await grant.getByRole("button", { name: "Revoke" }).click();
    await panel.getByText("Nothing granted").waitFor();
    const perms = await apiCall(p.page, server, "GET", `/api/sessions/${id}/permissions`);
    assert.deepEqual(perms.json.grants, []);
    assertClean(p);
    await p.context.close();
  });

  test("rename, archive, unarchive and delete a session", async () => {
    const p = await open();
    await p.page.goto(server.base + "/");
    const id = await createSessionViaUi(p.page, { title: "To rename" });
    await p.page.getByRole("button", { name: "Rename", exact: true }).click();
    await p.page.getByLabel("Session title").fill("Renamed session");
    await p.page.getByRole("button", { name: "Save" }).click();
    await p.page.locator(".session-name-text").getByText("Renamed session").waitFor();
    await p.page.locator(`.sessions [data-session-id="${id}"]`).getByText("Renamed session").waitFor();
    const got = await apiCall(p.page, server, "GET", `/api/sessions/${id}`);
    assert.equal(got.json.title, "Renamed session");
    await p.page.getByRole("button", { name: "Archive", exact: true }).click();
    await p.page.locator(".session-header .badge").getByText("archived").waitFor();
    await p.page.getByRole("button", { name: /Archived \(/ }).waitFor();
    await p.page.getByRole("button", { name: "Unarchive" }).click();
    await p.page.getByRole("button", { name: "Archive", exact: true }).waitFor();
    // Asked first, in the app's own dialog.
    await p.page.locator(".session-actions").getByRole("button", { name: "Delete", exact: true }).click();
    await p.page.getByRole("alertdialog", { name: "Delete the session “Renamed session”?" }).getByRole("button", { name: "Delete", exact: true }).click();
    await p.page.waitForURL(server.base + "/");
    assert.equal(await p.page.locator(`.sessions [data-session-id="${id}"]`).count(), 0);
    assert.equal((await apiCall(p.page, server, "GET", `/api/sessions/${id}`)).status, 404);
    assertClean(p);
    await p.context.close();
  });

  test("create a session and stream a reply", async () => {
    const p = await open();
    await p.page.goto(server.base + "/");
    const id = await createSessionViaUi(p.page, { title: "First session" });
    assert.ok(id);
    await p.page.locator(`.sessions [data-session-id="${id}"]`).waitFor();
    await sendPrompt(p.page, "hello there");
    await p.page.locator(".msg-user").getByText("hello there").waitFor();
    await p.page.locator(".msg-assistant").getByText("Hello from replay").waitFor({ timeout: 15_000 });
    await waitRunEnd(p.page);
    assert.equal(await p.page.locator(".run-end").first().getAttribute("data-status"), "completed");
    assert.equal(await p.page.locator(".msg-assistant").count(), 1);
    await shot(p.page, "03-session-streamed");
    assertClean(p);
    await assertNoScript(p.page);
    await p.context.close();
  });

  test("approve a write: diff part shown and the file changes on disk", async () => {
    const p = await open();
    await p.page.goto(server.base + "/");
    await createSessionViaUi(p.page, { title: "Approve a write", mode: "ask" });
    await sendPrompt(p.page, "please make a file");
    const card = await approvalCard(p.page);
    await card.getByText("hello.txt").first().waitFor();
    await p.page.locator(".pending-bar").getByText("write_file").waitFor();
    // The title follows the pending state on its own render: wait for it, do not sample it.
    await p.page.waitForFunction(() => /needs you/.test(document.title), null, { timeout: 10_000 });
    await shot(p.page, "04-approval");
    assert.equal(existsSync(join(server.workspace, "hello.txt")), false, "not written before approval");
    await card.getByRole("button", { name: "Allow once" }).click();
    await p.page.locator(".diff").waitFor({ timeout: 15_000 });
    await waitRunEnd(p.page);
    assert.equal(readFileSync(join(server.workspace, "hello.txt"), "utf8"), "hi\n");
    // Diff viewer: path, line numbers, the added line, a layout toggle.
    const diff = p.page.locator(".diff").first();
    await diff.locator(".diff-path").getByText("hello.txt").waitFor();
    await diff.locator(".dl-add").first().waitFor();
    assert.match(await diff.locator(".dl-add .code").first().innerText(), /hi/);
    await diff.getByRole("button", { name: "Split" }).click();
    await diff.locator("table.diff-split").waitFor();
    await diff.getByRole("button", { name: "Unified" }).click();
    await p.page.locator(".approval-done").getByText("Allowed once").waitFor();
    assert.equal(await p.page.locator(".pending-bar").count(), 0);
    await p.page.waitForFunction(() => !/needs you/.test(document.title), null, { timeout: 10_000 });
    await p.page.locator(".msg-assistant strong").getByText("hello.txt").waitFor();
    await shot(p.page, "05-diff");
    assertClean(p);
    await assertNoScript(p.page);
    await p.context.close();
  });

  test("deny a write: the file is not created", async () => {
    const p = await open();
    await p.page.goto(server.base + "/");
    await createSessionViaUi(p.page, { title: "Deny a write", mode: "ask" });
    await sendPrompt(p.page, "write the forbidden file");
    const card = await approvalCard(p.page);
    await card.getByRole("button", { name: "Deny", exact: true }).click();
    await p.page.locator(".approval-done.denied").waitFor({ timeout: 15_000 });
    await waitRunEnd(p.page);
    assert.equal(existsSync(join(server.workspace, "denied.txt")), false);
    assertClean(p);
    await p.context.close();
  });

  test("terminal part: command, coloured stdout, stderr, exit code", async () => {
    const p = await open();
    await p.page.goto(server.base + "/");
    await createSessionViaUi(p.page, { title: "Terminal", mode: "full" });
    await sendPrompt(p.page, "please run a command");
    // Depending on the server's policy a command may still ask: allow it.
    const term = p.page.locator(".terminal");
    const deadline = Date.now() + 20_000;
    while ((await term.count()) === 0 && Date.now() < deadline) {
      const allow = p.page.locator(".transcript .approval-card button", { hasText: "Allow once" });
      if (await allow.count()) await allow.first().click().catch(() => undefined);
      await sleep(200);
    }
    await term.first().waitFor({ timeout: 1000 });
    await waitRunEnd(p.page);
    const t = term.first();
    assert.match(await t.locator(".terminal-cmd").innerText(), /printf/);
    const red = t.locator(".stdout .ansi-red-fg");
    assert.equal(await red.innerText(), "red");
    assert.match(await t.locator(".stdout").innerText(), /red plain/);
    assert.match(await t.locator(".stderr").innerText(), /oops/);
    assert.match(await t.locator(".exit").innerText(), /exit 3/);
    await shot(p.page, "06-terminal");
    assertClean(p);
    await assertNoScript(p.page);
    await p.context.close();
  });

  test("reload mid-run gives the same transcript, without duplicates", async () => {
    const p = await open();
    await p.page.goto(server.base + "/");
    await createSessionViaUi(p.page, { title: "Reload" });
    await sendPrompt(p.page, "tell a slow story");
    await p.page.locator(".msg-assistant").getByText("word5", { exact: false }).waitFor({ timeout: 15_000 });
    await p.page.reload();
    await p.page.locator(".msg-assistant").getByText("THE END.", { exact: false }).waitFor({ timeout: 30_000 });
    await waitRunEnd(p.page);
    assert.equal(await p.page.locator(".msg-assistant").count(), 1);
    assert.equal((await p.page.locator(".msg-assistant .markdown").innerText()).trim(), SLOW_TEXT);
    assert.equal(await p.page.locator(".msg-user").count(), 1);
    assertClean(p);
    await p.context.close();
  });

  test("a dropped WebSocket reconnects and resumes without duplicates", async () => {
    const p = await open();
    await p.page.goto(server.base + "/");
    await createSessionViaUi(p.page, { title: "Reconnect" });
    await p.page.locator(".conn[data-state=open]").waitFor();
    await sendPrompt(p.page, "another slow story");
    await p.page.locator(".msg-assistant").getByText("word3", { exact: false }).waitFor({ timeout: 15_000 });
    const before = await p.page.evaluate(() => window.__sockets.length);
    await p.page.evaluate(() => window.__sockets.at(-1).close());
    await p.page.locator(".conn[data-state=reconnecting]").waitFor({ timeout: 5000 }).catch(() => undefined);
    await p.page.locator(".conn[data-state=open]").waitFor({ timeout: 15_000 });
    assert.ok((await p.page.evaluate(() => window.__sockets.length)) > before, "a new socket was opened");
    await p.page.locator(".msg-assistant").getByText("THE END.", { exact: false }).waitFor({ timeout: 30_000 });
    await waitRunEnd(p.page);
    assert.equal(await p.page.locator(".msg-assistant").count(), 1);
    assert.equal((await p.page.locator(".msg-assistant .markdown").innerText()).trim(), SLOW_TEXT);
    assert.equal(await p.page.locator(".run-end").count(), 1);
    assertClean(p);
    await p.context.close();
  });

  test("hostile content renders as text: no script, no foreign request", async () => {
    const p = await open();
    await p.page.goto(server.base + "/");
    const title = `<img src=x onerror="window.__pwned='title'"><script>window.__pwned='t2'</script>`;
    await createSessionViaUi(p.page, { title, mode: "full" });
    await sendPrompt(p.page, `be hostile <img src=x onerror="window.__pwned='user'">`);
    const deadline = Date.now() + 25_000;
    while ((await p.page.locator(".run-end").count()) === 0 && Date.now() < deadline) {
      const allow = p.page.locator(".transcript .approval-card button", { hasText: "Allow once" });
      if (await allow.count()) await allow.first().click().catch(() => undefined);
      await sleep(200);
    }
    await waitRunEnd(p.page);
    // Titles, user text, assistant text, terminal output and file names are all text.
    await p.page.locator(".session-name-text").getByText("<img src=x", { exact: false }).waitFor();
    await p.page.locator(".msg-user").getByText("<img src=x", { exact: false }).waitFor();
    await p.page.locator(".msg-assistant").first().getByText("<script>window.__pwned='script'</script>", { exact: false }).waitFor();
    const md = p.page.locator(".msg-assistant .markdown").first();
    assert.equal(await md.locator("img, script, svg, iframe, style").count(), 0, "no live elements from model text");
    for (const a of await md.locator("a").all()) {
      const href = await a.getAttribute("href");
      if (href !== null) assert.match(href, /^(https?:|mailto:)/);
    }
    assert.equal(await md.locator('a[href^="javascript"], a[href^="data"], a[href^="vbscript"]').count(), 0);
    await md.locator(".blocked-image").first().waitFor();
    if (await p.page.locator(".terminal").count()) {
      await p.page.locator(".terminal .stdout").getByText("<script>window.__pwned=2</script>", { exact: false }).waitFor();
    }
    if (await p.page.locator(".diff").count()) {
      await p.page.locator(".diff .diff-path").getByText("<img src=x", { exact: false }).waitFor();
      await p.page.locator(".diff").getByText("<script>window.__pwned='diff'</script>", { exact: false }).waitFor();
    }
    await p.page.locator(".sessions .session-title").getByText("<img src=x", { exact: false }).first().waitFor();
    await sleep(500);
    await shot(p.page, "07-hostile");
    await assertNoScript(p.page);
    assert.deepEqual(p.log.dialogs, []);
    assertClean(p);
    await p.context.close();
  });

  test("cancel a run and change the permission mode", async () => {
    const p = await open();
    await p.page.goto(server.base + "/");
    const id = await createSessionViaUi(p.page, { title: "Cancel and mode" });
    await p.page.locator(".mode-menu .ceiling").getByText("This server allows at most full mode; network access always asks").waitFor();
    await p.page.locator('.mode-menu select[name="mode"]').selectOption("auto");
    const headers = await pageHeaders(p.page);
    await p.page.waitForFunction(
      async ({ id, headers }) => (await (await fetch(`/api/sessions/${id}`, { headers })).json()).mode === "auto",
      { id, headers },
      { timeout: 10_000, polling: 200 },
    );
    await sendPrompt(p.page, "yet another slow story");
    await p.page.locator(".msg-assistant").getByText("word2", { exact: false }).waitFor({ timeout: 15_000 });
    await p.page.getByRole("button", { name: "Cancel run" }).click();
    await waitRunEnd(p.page);
    assert.equal(await p.page.locator(".run-end").first().getAttribute("data-status"), "cancelled");
    assert.equal(await p.page.getByRole("button", { name: "Cancel run" }).count(), 0);
    // A !command is passed through as text.
    await p.page.locator(".composer textarea").fill("!echo hi");
    await p.page.locator(".composer .chip-cmd").waitFor();
    assertClean(p);
    await p.context.close();
  });

  test("settings: provider shown, test connection lists models", async () => {
    const p = await open();
    await p.page.goto(server.base + "/settings");
    const row = p.page.locator('.settings li[data-provider="default"]');
    await row.locator('[data-fact="kind"]').getByText("replay").waitFor();
    await row.getByRole("button", { name: "Test default", exact: true }).click();
    await row.locator(".ok").getByText("Connected").waitFor({ timeout: 10_000 });
    // The key is write-only: the editor's field for it is a password field.
    await row.getByRole("button", { name: "Edit default", exact: true }).click();
    assert.equal(await row.locator('input[name="api_key"]').getAttribute("type"), "password");
    await shot(p.page, "11-settings");
    assertClean(p);
    await p.context.close();
  });

  test("Mermaid fences render as images; broken ones show code + error; no script", async () => {
    const p = await open();
    await p.page.goto(server.base + "/");
    await createSessionViaUi(p.page, { title: "Diagrams" });
    await sendPrompt(p.page, "please draw a diagram");
    await waitRunEnd(p.page);
    await p.page.locator(".diagram img.diagram-img").first().waitFor({ timeout: 30_000 });
    assert.match(await p.page.locator(".diagram img.diagram-img").first().getAttribute("src"), /^blob:/);
    await p.page.locator(".diagram-error").first().waitFor({ timeout: 30_000 });
    assert.match(await p.page.locator(".diagram-error .diagram-error-text").first().innerText(), /^This diagram could not be drawn: /);
    await p.page.locator(".diagram-error .diagram-source summary").first().click();
    assert.equal(await p.page.locator(".diagram-error .diagram-source pre").first().isVisible(), true, "broken diagram shows its code, once opened");
    await p.page.waitForFunction(() => document.querySelectorAll(".diagram.loading").length === 0, null, { timeout: 30_000 });
    // Nothing from a diagram lives in the page: no inline SVG, no links.
    assert.equal(await p.page.locator(".markdown svg, .markdown a[href^=javascript]").count(), 0);
    await p.page.locator(".diagram img").first().scrollIntoViewIfNeeded();
    await shot(p.page, "10-diagrams");
    await assertNoScript(p.page);
    assert.deepEqual(p.log.dialogs, []);
    assertClean(p);
    await p.context.close();
  });

  test("phone viewport and dark theme", async () => {
    const p = await open({ viewport: { width: 390, height: 800 }, colorScheme: "dark" });
    await p.page.goto(server.base + "/");
    // Its own session with a diff in it (a write in `full` mode needs no approval).
    const made = await apiCall(p.page, server, "POST", "/api/sessions", { title: "Phone diff", mode: "full" });
    assert.equal(made.status, 201, JSON.stringify(made.json));
    const sent = await apiCall(p.page, server, "POST", `/api/sessions/${made.json.id}/messages`, { text: "phone file please" });
    assert.equal(sent.status, 202, JSON.stringify(sent.json));
    await p.page.locator(".session-list .session-item", { hasText: "Phone diff" }).first().waitFor();
    assert.equal(await p.page.locator(".main").isVisible(), false, "list only at phone width");
    await shot(p.page, "08-phone-list");
    await p.page.locator(".session-list .session-item", { hasText: "Phone diff" }).first().click();
    await p.page.locator(".session-view .composer").waitFor();
    assert.equal(await p.page.locator(".sidebar").isVisible(), false);
    await p.page.locator(".diff").first().waitFor();
    const overflow = await p.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `no horizontal page overflow (${overflow}px)`);
    await shot(p.page, "09-phone-session");
    await p.page.getByRole("link", { name: "All sessions" }).click();
    await p.page.locator(".session-list").waitFor();
    assertClean(p);
    await p.context.close();
  });
});
