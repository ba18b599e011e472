// Cards in people's words (an outside trial's findings), end to end: the real server with the
// replay provider, real Chromium. An approval reads as one plain sentence per effect; tool inputs
// and results show no JSON blob, no `\n` escapes, no fingerprints or task ids (those fold under
// Details) and no empty summary; the server's limit under the composer reads as a limit; a turn of
// tool calls only has no timestamp of its own; provider kinds go by their proper names and the
// test-only replay kind is never offered (a saved one still shows and works); a search snippet is
// plain text and the hit it opens stays marked until the user moves on; "Cancel, keep the queue"
// keeps an unsaved edit of a queued message; subscribing to push shows progress and gives up with
// a clear error when the browser never answers; a Mermaid syntax error is a short message with
// the source folded; a program the shell cannot find is not "hidden by the sandbox", and a path
// let in can be tried again with a button. Each test starts its own server; waits are on DOM
// states, requests or events, never on timers.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  apiCall,
  assertClean,
  createSessionViaUi,
  haveServer,
  launchBrowser,
  newPage,
  openFixtureSession,
  sendPrompt,
  shot,
  signInWithToken,
  startServer,
} from "./harness.mjs";
import { axe, get, shows } from "./checks.mjs";

const skip = haveServer() ? false : "server binary not built (target/debug/tradewind)";

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

/** Waits, in the workspace, until the test creates the file `name`. */
const gate = (name) => `while [ ! -f ${name} ]; do sleep 0.05; done`;

const HEX = "9f2c4e1a7b3d5f60817263544536271809fadbecfd0e1f2a3b4c5d6e7f809112";
const TASK = "01J9ZK3W4X5Y6Z7A8B9C0D1E2F";

const scripts = [
  {
    match: "list the files",
    turns: [{ text: "Listing.", tool_calls: [{ name: "shell", arguments: { command: "ls -la" } }] }, { text: "Listed." }],
  },
  {
    match: "read quietly",
    // A turn of tool calls and no words, then the answer.
    turns: [{ tool_calls: [{ name: "read_file", arguments: { path: "notes.txt" } }] }, { text: "Read it: the notes say hi." }],
  },
  {
    match: "tell me the cache plan",
    turns: [{ text: "## Cache plan\n\nUse **Redis** for the `session` store, and keep *nothing* else." }],
  },
  {
    match: "run the slow check",
    turns: [{ text: "Checking.", tool_calls: [{ name: "shell", arguments: { command: `${gate("release")}; echo released` } }] }, { text: "Checked." }],
  },
  { match: "edited queued words", turns: [{ text: "Got the edited words." }] },
  { match: "old queued words", turns: [{ text: "Got the OLD words." }] },
  { turns: [{ text: "Hello from replay." }] },
];

describe("cards in people's words", { skip, timeout: 600_000 }, () => {
  let browser;

  before(async () => {
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
  });

  /** A server of its own and a signed-in page on it (CSP bypassed only so axe can be injected). */
  async function boot({ viewport = DESKTOP, server: opts = {}, page: pageOpts = {} } = {}) {
    const server = await startServer({ scripts, files: { "notes.txt": "hi\n" }, ...opts });
    const first = await newPage(browser, server);
    const state = await signInWithToken(first.page, server);
    await first.context.close();
    const p = await newPage(browser, server, { storageState: state, bypassCSP: true, viewport, ...pageOpts });
    p.page.setDefaultTimeout(10_000);
    await p.page.goto(server.base + "/");
    await p.page.locator(".topbar").waitFor();
    return { server, p };
  }

  async function finish(server, p) {
    await p?.context.close();
    await server?.stop();
  }

  /** The run's "working" line (always last in the log) goes when the session has nothing at work. */
  const idle = (page) => page.locator(".transcript .working").waitFor({ state: "detached", timeout: 20_000 });

  const events = async (page, server, id) => (await get(page, server, `/api/sessions/${id}/events?after=0&limit=5000`)).data;

  /** The page's text has none of the internals: ids, fingerprints, `\n` escapes, JSON braces. */
  function assertNoInternals(text, what) {
    assert.ok(!text.includes(HEX), `${what}: a SHA-256 fingerprint shows:\n${text}`);
    assert.ok(!text.includes(TASK), `${what}: a task id shows:\n${text}`);
    assert.ok(!text.includes("\\n"), `${what}: an escaped \\n shows:\n${text}`);
    assert.doesNotMatch(text, /\{\s*"|"\s*:\s*"/, `${what}: raw JSON shows:\n${text}`);
  }

  test("an approval reads as one plain sentence per effect: a command, a file outside the workspace, the network", async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      // The server's own approval: a command in ask mode.
      await createSessionViaUi(page, { title: "Sentences", mode: "ask" });
      await sendPrompt(page, "list the files");
      const card = page.locator(".transcript .approval-card");
      await card.waitFor({ timeout: 20_000 });
      const head = card.locator(".approval-head");
      await shows(head, "The agent wants to run a command: ls -la", "the command's sentence");
      const said = (await card.innerText()).replace(/\s+/g, " ");
      assert.doesNotMatch(said, /wants to use the|wants an? \w+ effect|\beffect\b/, `no effect jargon: ${said}`);
      await axe(page, "an approval card's sentence");
      await card.getByRole("button", { name: "Deny", exact: true }).click();
      await idle(page);

      // Written files outside the workspace, and the network (as the server sends them).
      const { inj } = await openFixtureSession(p, server, "More sentences");
      const run = "01RUNPOLISHSENTENCES000000";
      inj.send({ type: "run_started", run, run_id: run, agent: "build", mode: "ask", trigger: "prompt" });
      inj.send({ type: "tool_call", run, call_id: "w1", tool: "write_file", effect: "write", input: { path: "/srv/data/out.txt", content: "x\n" } });
      inj.send({
        type: "approval_requested", run, approval_id: "01APPROVALPOLISHWRITE", call_id: "w1", tool: "write_file", effect: "write",
        input: { path: "/srv/data/out.txt", content: "x\n" }, scope: "directory", directory: "/srv/data",
        reason: "`write_file` wants to access /srv/data/out.txt, outside the workspace; `write_file` wants a write effect: mode `ask` asks for write effects",
        reasons: ["`write_file` wants to access /srv/data/out.txt, outside the workspace", "`write_file` wants a write effect: mode `ask` asks for write effects"],
        warnings: [], session_keeps: ["writing under /srv/data"],
      });
      inj.send({ type: "tool_call", run, call_id: "n1", tool: "webfetch", effect: "external", input: { url: "https://example.com/docs" } });
      inj.send({
        type: "approval_requested", run, approval_id: "01APPROVALPOLISHNET", call_id: "n1", tool: "webfetch", effect: "external",
        input: { url: "https://example.com/docs" }, scope: "effect",
        reason: "`webfetch` wants a external effect: the server was started without --allow-external",
        reasons: ["`webfetch` wants a external effect: the server was started without --allow-external"], warnings: [],
        session_keeps: ["network access (external)"],
      });
      const write = page.locator('.transcript [data-approval-id="01APPROVALPOLISHWRITE"]');
      await shows(write.locator(".approval-head"), "The agent wants to edit a file outside the workspace: /srv/data/out.txt", "the write's sentence");
      await shows(write.locator(".approval-reasons li"), "In ask mode, file edits ask first.", "why the write asks");
      const net = page.locator('.transcript [data-approval-id="01APPROVALPOLISHNET"]');
      await shows(net.locator(".approval-head"), "The agent wants to reach the network: https://example.com/docs", "the network's sentence");
      await shows(net.locator(".approval-reason"), "The server was started without --allow-external, so network access always asks.", "why the fetch asks");
      const all = (await page.locator(".transcript").innerText()).replace(/\s+/g, " ");
      assert.doesNotMatch(all, /wants an? \w+ effect|wants to use the \w+ effect/, `no effect jargon: ${all}`);
      await axe(page, "approval cards for a write outside the workspace and a fetch");
      await shot(page, "polish-approval-sentences");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("tool cards show no raw internals: rows with real line breaks, ids and fingerprints under Details, no empty summary", async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      const { inj } = await openFixtureSession(p, server, "Internals");
      const run = "01RUNPOLISHINTERNALS000000";
      inj.send({ type: "run_started", run, run_id: run, agent: "build", mode: "auto", trigger: "prompt" });
      // An edit: its input carries the file's fingerprint and two lines each side.
      inj.send({
        type: "tool_call", run, call_id: "e1", tool: "edit_file", effect: "write",
        input: { path: "notes.txt", old: "first line\nsecond line", new: "first line\nchanged line", sha256: HEX },
      });
      inj.send({ type: "tool_result", run, call_id: "e1", tool: "edit_file", ok: true, text: `edited notes.txt; sha256: ${HEX}`, parts: [] });
      // A background task's output: the JSON the model reads, with the task's id and a log.
      inj.send({ type: "tool_call", run, call_id: "b1", tool: "bg_output", effect: "process", input: { id: TASK, offset: 0 } });
      const answer = { id: TASK, status: "exited", exit_code: 0, text: "alpha\nbeta\n", next_offset: 11, eof: true, output_truncated: false };
      inj.send({ type: "tool_result", run, call_id: "b1", tool: "bg_output", ok: true, text: JSON.stringify(answer, null, 2), parts: [] });
      // A call with nothing to summarise.
      inj.send({ type: "tool_call", run, call_id: "g1", tool: "get_goal", effect: "internal", input: {} });
      inj.send({ type: "tool_result", run, call_id: "g1", tool: "get_goal", ok: true, text: "no goal", parts: [] });
      // The wake-up after the task ended.
      inj.send({ type: "wakeup", task_ids: [TASK], text: `Background tasks finished:\n- ${TASK} \`watcher\`: exited, exit code 0\nRead their output with bg_output {"id": …, "offset": 0}.` });

      const card = (id) => page.locator(`.transcript .tool-card[data-call-id="${id}"]`);
      await card("g1").locator(".tool-status").waitFor();
      assert.equal(await card("g1").locator(".tool-summary").count(), 0, "no empty summary on a call without one");
      await shows(card("b1").locator(".tool-summary"), "a background task's output", "the task call's summary");
      await shows(page.locator(".transcript .wakeup"), "watcher: exited, exit code 0", "the wake-up's task");
      for (const id of ["e1", "b1"]) await card(id).locator(".tool-head").click();

      // The edit: old and new as text with their line breaks; the fingerprint under Details.
      const edit = card("e1").locator(".tool-body");
      await shows(edit.locator(".kv"), "changed line", "the edit's new text");
      assert.match(await edit.locator("pre.edit-new").innerText(), /^first line\nchanged line$/, "the new text with its real line break");
      await shows(edit.locator(".tool-output"), "edited notes.txt", "the edit's result");
      // The task's output: rows, its log with real line breaks, the id and offset under Details.
      const out = card("b1").locator(".tool-body .tool-output");
      await shows(out.locator('.result-field[data-key="text"] dd'), "alpha", "the task's log");
      assert.equal((await out.locator('.result-field[data-key="text"] dd').innerText()).trimEnd(), "alpha\nbeta", "the log's real line breaks");
      await shows(out.locator('.result-field[data-key="status"] dd'), "exited", "the task's status");
      const text = await page.locator(".transcript").innerText();
      assertNoInternals(text, "the cards, opened");

      // Details shows what was set apart, on request.
      const details = edit.locator("details.tool-internals").first();
      assert.equal(await details.evaluate((d) => d.open), false, "the internals are folded");
      await details.locator("summary").click();
      await shows(details, HEX, "the fingerprint, on request");
      const taskDetails = out.locator("details.tool-internals");
      await taskDetails.locator("summary").click();
      await shows(taskDetails, TASK, "the task's id, on request");
      await axe(page, "tool cards with their internals folded and opened");
      await shot(page, "polish-internals");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("the line under the composer reads as the server's limit", async () => {
    const { server, p } = await boot({ server: { args: ["--allow-write"] } });
    try {
      const { page } = p;
      await createSessionViaUi(page, { title: "Limit", mode: "ask" });
      const line = page.locator(".composer .mode-menu .ceiling");
      await shows(line, "This server allows at most auto mode; commands and network access always ask", "the limit line");
      assert.doesNotMatch(await line.innerText(), /allows without asking/, "not read as behaviour");
      assert.match(await line.getAttribute("title"), /limit/, "its title says it is a limit");
      await axe(page, "the composer's limit line");
      await shot(page, "polish-ceiling");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("a turn of tool calls only has no timestamp of its own: every timestamp belongs to words", async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      const id = await createSessionViaUi(page, { title: "Timestamps", mode: "auto" });
      await sendPrompt(page, "read quietly");
      await shows(page.locator(".transcript .msg-assistant"), "Read it: the notes say hi.", "the answer");
      await page.locator('.transcript .tool-card[data-tool="read_file"] .tool-status.status-ok').waitFor();
      await idle(page);
      const silent = (await events(page, server, id)).filter((e) => e.type === "message_complete" && e.text === "");
      assert.equal(silent.length, 1, "the server recorded a turn without words");
      // Every timestamp sits in a message with words: the prompt's and the answer's.
      const stamps = await page.locator(".transcript time.timestamp").evaluateAll((ts) =>
        ts.map((t) => {
          const msg = t.closest(".msg");
          return msg ? (msg.querySelector(".markdown, .msg-user-bubble, .user-command")?.textContent ?? "").trim() : "";
        }),
      );
      assert.equal(stamps.length, 2, `one timestamp for the prompt, one for the answer: ${JSON.stringify(stamps)}`);
      assert.ok(stamps.every((t) => t !== ""), `a timestamp without words: ${JSON.stringify(stamps)}`);
      // Nothing between the prompt and the card: the silent turn has no row of its own.
      const rows = await page.locator(".transcript .t-row").evaluateAll((rs) =>
        rs.filter((r) => r.offsetHeight > 0).map((r) => (r.querySelector(".msg-user") ? "user" : r.querySelector(".tool-card") ? "tool" : r.querySelector(".msg-assistant") ? "assistant" : "other")),
      );
      const user = rows.indexOf("user");
      assert.equal(rows[user + 1], "tool", `the card follows the prompt: ${rows}`);
      await shot(page, "polish-timestamps");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("provider kinds by their proper names; the setup form never offers replay; a saved replay provider still shows and works", async () => {
    // No provider: the setup screen's form.
    const bare = await boot({ server: { provider: false } });
    try {
      const { page } = bare.p;
      const kind = page.locator('.setup select[name="kind"]');
      await kind.waitFor();
      assert.deepEqual(await kind.locator("option").allInnerTexts(), ["OpenAI-compatible", "Anthropic"]);
      assert.deepEqual(await kind.locator("option").evaluateAll((os) => os.map((o) => o.value)), ["openai", "anthropic"]);
      await axe(page, "the setup form's kinds");
      assertClean(bare.p);
    } finally {
      await finish(bare.server, bare.p);
    }

    // The replay provider from the start flags, and two more added over the API.
    const { server, p } = await boot();
    try {
      const { page } = p;
      for (const [id, body] of [
        ["claude", { kind: "anthropic", model: "claude-x" }],
        ["codex", { kind: "openai", base_url: "http://127.0.0.1:9/v1", model: "gpt-x", api_mode: "responses" }],
      ]) {
        const r = await apiCall(page, server, "PUT", `/api/providers/${id}`, body);
        assert.equal(r.status, 200, JSON.stringify(r.json));
      }
      await page.goto(`${server.base}/settings`);
      const panel = page.getByRole("region", { name: "Model providers" });
      const kindOf = (id) => panel.locator(`li[data-provider="${id}"] [data-fact="kind"]`);
      await shows(kindOf("default"), "Replay (scripted, for tests)", "the replay provider's kind");
      await shows(kindOf("claude"), /^Anthropic$/, "an Anthropic provider's kind");
      await shows(kindOf("codex"), /^OpenAI Responses$/, "an OpenAI provider on the Responses API");
      const kinds = await panel.locator('[data-fact="kind"]').allInnerTexts();
      assert.ok(kinds.every((k) => /^[A-Z]/.test(k)), `every kind by its proper name: ${kinds}`);
      // The add form offers the two kinds a form can set.
      await panel.getByRole("button", { name: "Add a provider" }).click();
      const options = await panel.locator('select[name="kind"] option').allInnerTexts();
      assert.deepEqual(options, ["OpenAI-compatible", "Anthropic"]);
      await axe(page, "Settings → Model providers with proper names");
      await shot(page, "polish-providers");

      // The replay provider still answers.
      await page.goto(server.base + "/");
      await createSessionViaUi(page, { title: "Replay works" });
      await sendPrompt(page, "hello there");
      await shows(page.locator(".transcript .msg-assistant"), "Hello from replay.", "the replay provider's answer", 20_000);
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("search: the snippet is plain text; the hit it opens stays marked until the user moves on", async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      await createSessionViaUi(page, { title: "Cache talk" });
      await sendPrompt(page, "tell me the cache plan");
      await shows(page.locator(".transcript .msg-assistant"), "Use Redis for the session store", "the answer");
      await idle(page);

      await page.keyboard.press("Control+k");
      const dialog = page.getByRole("dialog", { name: "Search sessions" });
      await dialog.getByRole("combobox", { name: "Words to find" }).fill("redis");
      const hit = dialog.locator('.search-hit[data-kind="message_complete"]');
      await hit.waitFor();
      const snippet = hit.locator(".search-snippet");
      const said = await snippet.innerText();
      assert.doesNotMatch(said, /\*|`|#/, `no Markdown marks in the snippet: ${said}`);
      assert.match(said, /Cache plan Use Redis for the session store/);
      assert.deepEqual(await snippet.locator("mark").allInnerTexts(), ["Redis"]);
      await axe(page, "a search hit in plain text");

      await dialog.getByRole("combobox", { name: "Words to find" }).press("Enter");
      await dialog.waitFor({ state: "detached" });
      const marked = page.locator(".transcript .t-row.search-marked");
      await shows(marked, "Use Redis for the session store", "the marked row");
      await shows(marked.locator(".search-marked-label"), "Search match", "the mark's label");
      assert.equal(await marked.count(), 1);
      const outline = await marked.locator(".msg-assistant").evaluate((el) => getComputedStyle(el).outlineStyle);
      assert.equal(outline, "solid", "the message is outlined");
      // Still marked once the moment's highlight is over.
      await page.waitForFunction(() => !document.querySelector(".transcript .t-row[data-flash]"), null, { timeout: 10_000 });
      assert.equal(await marked.count(), 1, "the mark outlasts the flash");
      await axe(page, "a transcript with a search hit marked");
      await shot(page, "polish-search-marked");
      // The user moves on (a click in the prompt): the mark goes.
      await page.locator(".composer textarea").click();
      await marked.waitFor({ state: "detached" });
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("Cancel, keep the queue: a queued message being edited starts with its new words, never the old", async () => {
    const { server, p } = await boot({ server: { args: ["--allow-process"] } });
    try {
      const { page } = p;
      const id = await createSessionViaUi(page, { title: "Keep the queue", mode: "full" });
      await sendPrompt(page, "run the slow check");
      await page.locator('.transcript .tool-card[data-tool="shell"] .tool-status.status-run').waitFor({ timeout: 20_000 });
      const composer = page.locator(".composer");
      await composer.getByRole("textbox", { name: "Prompt" }).fill("old queued words");
      await composer.getByRole("button", { name: "Send after" }).click();
      const row = page.locator(".queue-item");
      await shows(row.locator(".queue-text"), "old queued words", "the queued message");

      // Edit it, and leave the edit unsaved.
      await row.getByRole("button", { name: /^Edit queued message/ }).click();
      await row.getByRole("textbox", { name: "Queued message" }).fill("edited queued words");
      await composer.getByRole("button", { name: "Cancel run" }).click();
      const dialog = page.getByRole("dialog", { name: "Cancel the run?" });
      await dialog.getByRole("button", { name: "Cancel, keep the queue" }).click();

      // The queued message runs with the words being edited.
      await shows(page.locator(".transcript .msg-user"), "edited queued words", "the queued message as sent", 20_000);
      await shows(page.locator(".transcript .msg-assistant"), "Got the edited words.", "its answer", 20_000);
      await idle(page);
      const said = (await events(page, server, id)).filter((e) => e.type === "user_message").map((e) => e.text);
      assert.deepEqual(said, ["run the slow check", "edited queued words"], "the old words were never sent");
      assert.equal(await page.locator(".transcript .msg-user", { hasText: "old queued words" }).count(), 0);
      writeFileSync(join(server.workspace, "release"), "");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("Notify me: with no push service the panel shows progress, gives up after 10 s with a clear error; the pending bar never goes silent", async () => {
    // Notifications allowed, but no service worker can start (so no push service): the browser
    // never answers the subscription.
    const { server, p } = await boot({ viewport: PHONE, page: { serviceWorkers: "block" } });
    try {
      const { page, context } = p;
      await context.grantPermissions(["notifications"], { origin: server.base });
      await page.goto(`${server.base}/settings`);
      const panel = page.locator("section.push-panel");
      await shows(panel.locator("[data-push-here]"), "This device: off", "this browser's state");
      const button = panel.getByRole("button", { name: "Notify me when the app is closed" });
      await button.click();
      await shows(panel.locator(".push-progress"), "Subscribing this browser", "the progress while it subscribes");
      assert.equal(await button.getAttribute("aria-busy"), "true", "the button is busy meanwhile");
      await axe(page, "Settings → notifications while subscribing, at phone width");
      await shows(panel.getByRole("alert"), /did not finish subscribing within 10 seconds: it may have no push service/, "why it gave up", 20_000);
      assert.equal(await panel.locator(".push-progress").count(), 0, "no progress left behind");
      assert.equal(await button.getAttribute("aria-busy"), null);
      await shows(panel.locator("[data-push-here]"), "This device: off", "this browser's state after giving up");
      assert.deepEqual((await get(page, server, "/api/push")).data, [], "nothing registered");
      await shot(page, "polish-push-timeout");
      assertClean(p);
    } finally {
      await finish(server, p);
    }

    // Notifications not allowed (headless Chromium refuses at once): the pending bar says so.
    const b = await boot({ viewport: PHONE });
    try {
      const { page } = b.p;
      const { inj } = await openFixtureSession(b.p, b.server, "Notify me");
      const run = "01RUNPOLISHNOTIFY000000000";
      inj.send({ type: "run_started", run, run_id: run, agent: "build", mode: "ask", trigger: "prompt" });
      inj.send({ type: "tool_call", run, call_id: "c1", tool: "shell", effect: "process", input: { command: "make" } });
      inj.send({
        type: "approval_requested", run, approval_id: "01APPROVALPOLISHNOTIFY", call_id: "c1", tool: "shell", effect: "process",
        input: { command: "make" }, scope: "effect", reason: "runs a process", warnings: [], session_keeps: [],
      });
      const bar = page.locator(".pending-bar");
      await bar.getByRole("button", { name: "Notify me next time" }).click();
      await shows(bar.locator("[data-notify-note]"), "Notifications are blocked for this site in the browser's settings.", "what the browser answered");
      await axe(page, "the pending bar after Notify me was refused, at phone width");
      assertClean(b.p);
    } finally {
      await finish(b.server, b.p);
    }
  });

  test("at phone width, a plan diagram with a syntax error says so in a line, its source folded", async () => {
    const { server, p } = await boot({ viewport: PHONE });
    try {
      const { page } = p;
      const { inj } = await openFixtureSession(p, server, "Broken diagram");
      const run = "01RUNPOLISHDIAGRAM00000000";
      inj.send({ type: "run_started", run, run_id: run, agent: "plan", mode: "ask", trigger: "prompt" });
      inj.send({
        type: "plan_proposed", run, plan_id: "01PLANPOLISHDIAGRAM", artifact_id: "01ARTPOLISHDIAGRAM", call_id: "x1", revision: 1, title: "Greeter",
        plan: "# Greeter\n\n## Flow\n\nSay hello.", hash: "h", files: [], removed: [], dropped: [],
        diagrams: [{ id: "broken", title: "Broken", explanation: "", section: "Flow", type: "flowchart", mermaid: "flowchart TD\n  A --> B\n  B --> --> C", mark: "new" }],
      });
      const fig = page.locator('.plan-card [data-diagram-id="broken"] .diagram-error');
      await fig.waitFor({ timeout: 30_000 });
      const line = fig.locator(".error");
      const said = await line.innerText();
      assert.match(said, /^This diagram could not be drawn: \S.*$/, `a short message: ${JSON.stringify(said)}`);
      assert.doesNotMatch(said, /\n|Expecting|-{3,}\^/, `no parser dump: ${JSON.stringify(said)}`);
      const source = fig.locator("details.diagram-source");
      assert.equal(await source.evaluate((d) => d.open), false, "the source is folded");
      assert.equal(await fig.locator("pre:visible").count(), 0, "no code shows until asked");
      await source.locator("summary").click();
      await shows(source.locator("pre"), "B --> --> C", "the source, once opened");
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), "no sideways scroll at 390 px");
      await axe(page, "a diagram that could not be drawn, at phone width");
      await shot(page, "polish-diagram-error");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("the jail card: a program the shell cannot find is not a hidden path; a path let in can be run again with a button", async () => {
    // The server's HOME: the jail gives commands an empty one, so a file here is hidden.
    const home = mkdtempSync(join(tmpdir(), "tw-polish-home-"));
    const conf = join(home, ".config", "tool", "settings.toml");
    mkdirSync(join(home, ".config", "tool"), { recursive: true });
    writeFileSync(conf, "SETTING-5c2e\n");
    const { server, p } = await boot({ server: { env: { HOME: home } } });
    try {
      const { page } = p;
      await createSessionViaUi(page, { title: "Jail card", mode: "ask" });
      const terminals = page.locator(".transcript .terminal");

      // A program that is not there: the shell says so; the sandbox hid nothing.
      await sendPrompt(page, "!xyzzy-not-installed --version");
      const missing = terminals.nth(0);
      await missing.locator('.terminal-foot .exit-fail').waitFor({ timeout: 20_000 });
      await shows(missing.locator(".stderr"), "xyzzy-not-installed: not found", "the shell's message");
      await shows(missing.locator(".terminal-missing"), "xyzzy-not-installed was not found: it is not installed, or not on the PATH", "the card's reading");
      assert.equal(await missing.locator(".terminal-hidden").count(), 0, "no claim that the sandbox hid the shell");
      assert.doesNotMatch(await missing.innerText(), /sandbox hid/);
      await idle(page);

      // A path the jail hides: let in, then run again from the card.
      await sendPrompt(page, `!cat ${conf}`);
      const hidden = page.locator(`.transcript .terminal-hidden [data-hidden-path="${conf}"]`);
      await hidden.waitFor({ timeout: 20_000 });
      assert.match(await hidden.innerText(), /The sandbox hid/);
      await idle(page);
      await hidden.getByRole("button", { name: "Allow for this session" }).click();
      await shows(hidden.getByRole("status").first(), "Allowed for this session", "the grant");
      assert.doesNotMatch(await hidden.getByRole("status").first().innerText(), /run it again/i, "the grant promises nothing it does not offer");
      await axe(page, "a jail card with a path let in");
      const again = page.waitForRequest((r) => r.method() === "POST" && r.url().endsWith("/messages"));
      await hidden.getByRole("button", { name: "Run it again" }).click();
      assert.deepEqual((await again).postDataJSON(), { text: `!cat ${conf}` });
      await shows(page.locator(".transcript .terminal .stdout"), "SETTING-5c2e", "the command, run again, reads it", 20_000);
      await shows(hidden, "Sent again", "the card says it was sent");
      await idle(page);
      await shot(page, "polish-jail-card");
      assertClean(p);
    } finally {
      await finish(server, p);
      rmSync(home, { recursive: true, force: true });
    }
  });
});
