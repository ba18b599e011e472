// Browser tests of the web app's second pass (issue 14): archived sessions, offline handling,
// plan review without focus stealing and with an undoable Esc, errors in plain words with Retry,
// internal prompts as system notes, copy buttons and timestamps, and polish of tool summaries.
// Every test opens its own session; waits are on DOM state or events, never on timers.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import {
  afterPaint,
  apiCall,
  assertClean,
  createSessionViaUi,
  haveServer,
  injectFrames,
  launchBrowser,
  newPage,
  openFixtureSession,
  sendPrompt,
  shot,
  signInWithToken,
  startServer,
} from "./harness.mjs";

const PLAN = ["# Add a cache", "", "## Steps", "", "1. Add the module.", "2. Test it."].join("\n");

const scripts = [
  {
    match: "plan the cache",
    turns: [
      { text: "Here is the plan.", tool_calls: [{ name: "exit_plan", arguments: { title: "Cache", plan: PLAN } }] },
      { text: "Noted." },
    ],
  },
  { match: "fail with a bad key", turns: [{ error: { status: 401, message: "invalid api key sk-test" } }] },
  { turns: [{ text: "Hello from replay" }] },
];

const skip = haveServer() ? false : "server binary not built (target/debug/tradewind)";

/** Polls the REST events of a session until `pred` matches one (the server's record is the proof). */
async function events(page, server, id) {
  const r = await apiCall(page, server, "GET", `/api/sessions/${id}/events?after=0&limit=5000`);
  assert.equal(r.status, 200);
  return r.json.data;
}

describe("sessions list", { skip, timeout: 120_000 }, () => {
  let server;
  let browser;

  before(async () => {
    // Its own server: "every session archived" must hold for the whole list.
    server = await startServer({ scripts });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  test("archived sessions are listed under Archived (n), also when every session is archived, and live updates and a fresh read keep them", { timeout: 30_000 }, async () => {
    const p = await newPage(browser, server);
    p.page.setDefaultTimeout(8000);
    await signInWithToken(p.page, server);
    const ids = [];
    for (const title of ["Old work", "Older work"]) {
      const s = await apiCall(p.page, server, "POST", "/api/sessions", { title });
      assert.equal(s.status, 201, `create ${title}: ${JSON.stringify(s.json)}`);
      ids.push(s.json.id);
      const a = await apiCall(p.page, server, "PATCH", `/api/sessions/${s.json.id}`, { archived: true });
      assert.equal(a.status, 200);
    }
    // The list (archived sessions included) is read once as the app opens: when the socket opens,
    // after subscribing to its changes.
    const listReads = [];
    p.page.on("request", (r) => r.method() === "GET" && /\/api\/sessions\?/.test(r.url()) && listReads.push(r.url()));
    await p.page.goto(server.base + "/");
    await p.page.locator(".conn[data-state=open]").waitFor();
    const toggle = p.page.getByRole("button", { name: /Archived \(2\)/ });
    await toggle.waitFor({ timeout: 5000 }).catch(() => {
      throw new Error("no 'Archived (2)' button: the list did not ask for archived sessions");
    });
    assert.equal(await p.page.getByText("No sessions yet").count(), 0, "archived sessions exist, so not 'No sessions yet'");
    await p.page.getByText("No active sessions").waitFor();
    await afterPaint(p.page);
    assert.equal(listReads.length, 1, `the list read once as the app opens: ${listReads.join(", ")}`);
    await toggle.click();
    for (const id of ids) await p.page.locator(`.archived [data-session-id="${id}"]`).waitFor();
    // A live change (session_updated) and a fresh read of the list (after a reconnect) keep them.
    const renamed = await apiCall(p.page, server, "PATCH", `/api/sessions/${ids[1]}`, { title: "Older work, renamed" });
    assert.equal(renamed.status, 200);
    await p.page.locator(`.archived [data-session-id="${ids[1]}"]`).getByText("Older work, renamed").waitFor({ timeout: 3000 });
    const reread = p.page.waitForResponse((r) => /\/api\/sessions\?/.test(r.url()) && r.request().method() === "GET", { timeout: 15_000 });
    await p.page.evaluate(() => window.__sockets.at(-1).close());
    await reread;
    await afterPaint(p.page);
    for (const id of ids) assert.equal(await p.page.locator(`.archived [data-session-id="${id}"]`).count(), 1, "still listed after the list was read again");
    await shot(p.page, "40-archived-only");
    // An open archived session keeps its group unfolded, itself marked as the current one.
    await p.page.goto(`${server.base}/s/${ids[0]}`);
    await p.page.locator(`.archived [data-session-id="${ids[0]}"][aria-current="page"]`).waitFor({ timeout: 5000 });
    assert.deepEqual(p.log.errors, []);
    await p.context.close();
  });
});

describe("second pass", { skip, timeout: 600_000 }, () => {
  let server;
  let browser;
  let state;

  before(async () => {
    server = await startServer({ scripts, args: ["--allow-write", "--allow-process"] });
    browser = await launchBrowser();
    const p = await newPage(browser, server);
    state = await signInWithToken(p.page, server);
    await p.context.close();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function open(opts = {}) {
    const p = await newPage(browser, server, { storageState: state, ...opts });
    // Short waits with a clear failure rather than the 30 s default.
    p.page.setDefaultTimeout(8000);
    return p;
  }


  const fixtureSession = (p, title) => openFixtureSession(p, server, title);

  test("the browser's offline event shows Offline at once; back online it reconnects and no stale 'cannot be reached' stays", { timeout: 40_000 }, async () => {
    const p = await open();
    await p.page.goto(server.base + "/");
    await createSessionViaUi(p.page, { title: "Offline" });
    await p.page.locator(".conn[data-state=open]").waitFor({ timeout: 10_000 });
    await p.context.setOffline(true);
    await p.page.locator(".conn[data-state=offline]").waitFor({ timeout: 3000 }).catch(() => {
      throw new Error("the connection badge did not follow the browser's offline event");
    });
    await sendPrompt(p.page, "hello while offline");
    const err = p.page.locator(".composer .error");
    await err.getByText("The server cannot be reached.").waitFor({ timeout: 5000 });
    await shot(p.page, "41-offline");
    await p.context.setOffline(false);
    await p.page.locator(".conn[data-state=open]").waitFor({ timeout: 10_000 });
    await err.waitFor({ state: "detached", timeout: 5000 }).catch(() => {
      throw new Error("'The server cannot be reached.' stayed after reconnecting");
    });
    assert.equal(await p.page.locator(".composer textarea").inputValue(), "hello while offline", "the unsent prompt is kept");
    assertClean(p);
    await p.context.close();
  });

  test("the 'server cannot be reached' start screen goes away by itself once the server answers", { timeout: 30_000 }, async () => {
    const p = await open();
    let down = true;
    await p.page.route("**/api/whoami", (route) => (down ? route.abort("connectionrefused") : route.fallback()));
    await p.page.goto(server.base + "/");
    await p.page.getByText("The Tradewind server cannot be reached.").waitFor();
    down = false;
    // The browser says the network is back: no click on "Try again" needed.
    await p.page.evaluate(() => window.dispatchEvent(new Event("online")));
    await p.page.locator(".topbar").waitFor({ timeout: 5000 }).catch(() => {
      throw new Error("the unreachable screen stayed after the server came back");
    });
    assert.equal(await p.page.getByText("cannot be reached").count(), 0);
    assert.deepEqual(p.log.errors, []);
    await p.context.close();
  });

  test("a plan card never takes the focus; Esc shows 'Plan skipped — Undo' for 30 s (or until Skip now) before the skip is sent", { timeout: 60_000 }, async () => {
    const p = await open();
    await p.page.goto(server.base + "/");
    const id = await createSessionViaUi(p.page, { title: "Plan undo", agent: "plan" });
    await sendPrompt(p.page, "plan the cache");
    const card = p.page.locator('.plan-card[data-revision="1"]');
    await card.waitFor({ timeout: 15_000 });
    await card.getByRole("button", { name: "Approve", exact: true }).waitFor();
    await afterPaint(p.page);
    const focused = await p.page.evaluate(() => ({
      inCard: !!document.activeElement?.closest(".plan-card"),
      what: `${document.activeElement?.tagName}.${document.activeElement?.className}`,
    }));
    assert.equal(focused.inCard, false, `the arriving plan card took the focus (${focused.what})`);
    await p.page.locator(".transcript .working").getByText("Waiting for your review of the plan").waitFor({ timeout: 2000 });

    // Esc on the card: an Undo, and nothing sent yet.
    await card.getByRole("button", { name: "Approve", exact: true }).focus();
    await p.page.keyboard.press("Escape");
    const undo = card.locator(".plan-undo");
    await undo.getByText("Plan skipped").waitFor({ timeout: 2000 });
    assert.equal(await p.page.evaluate(() => document.activeElement?.textContent), "Undo", "Undo has the focus");
    await shot(p.page, "42-plan-undo");
    assert.equal((await events(p.page, server, id)).filter((e) => e.type === "plan_decided").length, 0, "skip not sent during the grace period");
    await p.page.keyboard.press("Enter"); // Undo
    await card.getByRole("button", { name: "Approve", exact: true }).waitFor();
    assert.equal(await undo.count(), 0);

    // Esc again: the Undo stays half a minute, counting down (it lasted 5 s, gone before it was
    // read); Skip now sends it at once.
    await card.getByRole("button", { name: "Approve", exact: true }).focus();
    await p.page.keyboard.press("Escape");
    const left = Number((await undo.locator(".plan-undo-left").innerText()).match(/\d+/)[0]);
    assert.ok(left >= 25, `the Undo lasts about 30 s: ${left} s left`);
    assert.equal((await events(p.page, server, id)).filter((e) => e.type === "plan_decided").length, 0, "not sent yet");
    await undo.getByRole("button", { name: "Skip now" }).click();
    await card.locator(".plan-decision").getByText("Skipped").waitFor({ timeout: 10_000 });
    const decided = (await events(p.page, server, id)).filter((e) => e.type === "plan_decided");
    assert.equal(decided.length, 1, "one decision, after the undone one was never sent");
    assert.equal(decided[0].decision, "skipped");
    assertClean(p);
    await p.context.close();
  });

  test("a failed run: one error in a plain sentence, a Settings link, and Retry resumes the run", { timeout: 40_000 }, async () => {
    const p = await open();
    await p.page.goto(server.base + "/");
    await createSessionViaUi(p.page, { title: "Errors" });
    await sendPrompt(p.page, "fail with a bad key");
    const end = p.page.locator('.run-end[data-status="failed"]').first();
    await end.waitFor({ timeout: 15_000 });
    await afterPaint(p.page);
    const transcript = p.page.locator(".transcript");
    const text = await transcript.innerText();
    assert.equal(text.match(/refused the API key/g)?.length ?? 0, 1, `the error is shown exactly once:\n${text}`);
    assert.doesNotMatch(text, /provider_auth/, "no raw error code in view");
    assert.doesNotMatch(text, /invalid api key/, "the provider's raw message is folded under Details");
    const link = end.getByRole("link", { name: "Settings" });
    assert.equal(await link.getAttribute("href"), "/settings");
    await end.locator("summary").getByText("Details").click();
    await end.getByText("invalid api key sk-test").waitFor();
    await shot(p.page, "43-run-error");
    await end.getByRole("button", { name: "Retry" }).click();
    await p.page.locator('.run-end[data-status="failed"]').nth(1).waitFor({ timeout: 15_000 });
    // Retry resumes the run (trigger resume): the prompt is not repeated in the history.
    await p.page.locator('.system-note[data-internal="resume"]').waitFor();
    assert.equal(await p.page.locator(".msg-user").getByText("fail with a bad key").count(), 1, "Retry does not send the prompt again");
    assert.equal(await p.page.getByRole("button", { name: "Retry" }).count(), 1, "Retry only on the latest run");
    assertClean(p);
    // The link leads to Settings (what that page shows is other tests' business).
    await link.click();
    await p.page.waitForURL(server.base + "/settings");
    await p.context.close();
  });

  test("provider retries: one line updated in place; when they give up, it says so and the error shows once", { timeout: 30_000 }, async () => {
    const p = await open();
    const { inj } = await fixtureSession(p, "Retries give up");
    const run = "01RUNFIXTURERETRY00000000A";
    inj.send({ type: "run_started", run, run_id: run, agent: "build", mode: "ask", trigger: "prompt" });
    inj.send({ type: "user_message", run, message_id: "01MSGRETRY", text: "hello" });
    for (const attempt of [2, 3, 4]) {
      inj.send({ type: "provider_retry", run, attempt, max_attempts: 4, delay_ms: 60_000, reason: "the provider is overloaded or failing (503): busy" });
      await p.page.locator(`.retry-note[data-attempt="${attempt}"]`).waitFor();
      assert.equal(await p.page.locator(".retry-note").count(), 1, "one retry line, updated in place");
    }
    const message = "the provider is overloaded or failing (503): busy";
    inj.send({ type: "error", run, code: "provider_overloaded", message });
    inj.send({ type: "run_finished", run, run_id: run, status: "failed", error: { code: "provider_overloaded", message }, usage: { input_tokens: 0, output_tokens: 0 }, duration_ms: 9000 });
    await p.page.locator('.run-end[data-status="failed"]').waitFor();
    await p.page.locator(".retry-note").getByText("gave up after attempt 4 of 4").waitFor({ timeout: 2000 });
    const text = await p.page.locator(".transcript").innerText();
    assert.equal(text.match(/overloaded or failing right now/g)?.length ?? 0, 1, `one final error:\n${text}`);
    assert.doesNotMatch(text, /provider_overloaded|provider_retry/, "no raw codes");
    await p.page.getByRole("button", { name: "Retry" }).waitFor();
    await shot(p.page, "48-retries-gave-up");
    assertClean(p);
    await p.context.close();
  });

  test("internal prompts (plan implementation, wake-up) are small system notes, not user bubbles", { timeout: 30_000 }, async () => {
    const p = await open();
    const { inj } = await fixtureSession(p, "Internal prompts");
    const run1 = "01RUNFIXTUREPLAN000000000A";
    inj.send({ type: "run_started", run: run1, run_id: run1, agent: "build", mode: "ask", trigger: "plan" });
    inj.send({ type: "user_message", run: run1, message_id: "01MSGPLAN", text: `Implement this approved plan exactly.\n\n${PLAN}` });
    inj.send({ type: "run_finished", run: run1, run_id: run1, status: "completed", error: null, usage: { input_tokens: 1, output_tokens: 1 }, duration_ms: 5 });
    const wakeText = "Background tasks finished:\n- 01TASKX `tests`: succeeded, exit code 0\nRead their output with bg_output {\"id\": …, \"offset\": 0}.";
    inj.send({ type: "wakeup", task_ids: ["01TASKX"], text: wakeText });
    const run2 = "01RUNFIXTUREWAKE000000000A";
    inj.send({ type: "run_started", run: run2, run_id: run2, agent: "build", mode: "ask", trigger: "wakeup" });
    inj.send({ type: "user_message", run: run2, message_id: "01MSGWAKE", text: wakeText });
    inj.send({ type: "run_finished", run: run2, run_id: run2, status: "completed", error: null, usage: { input_tokens: 1, output_tokens: 1 }, duration_ms: 5 });
    const run3 = "01RUNFIXTURERESUME0000000A";
    inj.send({ type: "run_started", run: run3, run_id: run3, agent: "build", mode: "ask", trigger: "resume" });
    inj.send({ type: "user_message", run: run3, message_id: "01MSGRESUME", text: "Continue the previous task from where it stopped (it failed). The request was:\n\nhello" });
    inj.send({ type: "run_finished", run: run3, run_id: run3, status: "completed", error: null, usage: { input_tokens: 1, output_tokens: 1 }, duration_ms: 5 });
    await p.page.locator(".run-end").nth(2).waitFor({ timeout: 10_000 });
    await p.page.locator('.system-note[data-internal="resume"]').getByText("asked to continue the run that stopped").waitFor();
    await p.page.locator(".run-start").getByText("Resuming the run that stopped").waitFor();
    const note = p.page.locator('.system-note[data-internal="plan"]');
    await note.getByText("The approved plan was sent to the build agent.").waitFor();
    assert.equal(await p.page.locator(".msg-user").count(), 0, "no user bubble for internal prompts");
    assert.equal(await note.locator("h1").isVisible(), false, "the plan text is folded");
    await note.getByText("What the agent was told").click();
    await note.locator("h1").getByText("Add a cache").waitFor();
    const text = await p.page.locator(".transcript").innerText();
    assert.equal(await p.page.locator(".wakeup").count(), 1);
    assert.equal(text.match(/succeeded, exit code 0/g)?.length ?? 0, 1, `the wake-up text is shown once:\n${text}`);
    assert.doesNotMatch(text, /bg_output/, "the model-facing instruction is not shown");
    await shot(p.page, "44-system-notes");
    assertClean(p);
    await p.context.close();
  });

  test("copy buttons on code blocks, messages, terminal output and diffs; timestamps relative with the exact time on hover", { timeout: 30_000 }, async () => {
    const p = await open();
    await p.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.base });
    const { inj } = await fixtureSession(p, "Copy");
    const run = "01RUNFIXTURECOPY000000000A";
    const hoursAgo = Date.now() - 3 * 3600_000;
    inj.send({ type: "run_started", run, run_id: run, agent: "build", mode: "ask", trigger: "prompt", at: hoursAgo });
    inj.send({ type: "user_message", run, message_id: "01MSGCOPY", text: "show me the code", at: hoursAgo });
    const md = "Here:\n\n```js\nconst answer = 42;\nconsole.log(answer);\n```\n\nDone.";
    inj.send({ type: "message_complete", run, message_id: "01ASSCOPY", text: md, reasoning: "" });
    inj.send({ type: "tool_call", run, call_id: "c1", tool: "shell", effect: "process", input: { command: "echo hi" } });
    inj.send({
      type: "tool_result", run, call_id: "c1", tool: "shell", ok: true, text: "hi",
      parts: [{ type: "terminal", command: "echo hi", stdout: "\u001b[32mgreen\u001b[0m line\n", stderr: "warn line\n", exit_code: 0, duration_ms: 3, truncated: false }],
    });
    const patch = "--- /dev/null\n+++ b/a.txt\n@@ -0,0 +1 @@\n+new line\n";
    inj.send({ type: "tool_call", run, call_id: "c2", tool: "write_file", effect: "write", input: { path: "a.txt", content: "new line\n" } });
    inj.send({ type: "tool_result", run, call_id: "c2", tool: "write_file", ok: true, text: "written", parts: [{ type: "diff", path: "a.txt", lang: "text", patch, truncated: false }] });
    inj.send({ type: "run_finished", run, run_id: run, status: "completed", error: null, usage: { input_tokens: 1, output_tokens: 1 }, duration_ms: 5 });
    await p.page.locator(".run-end").waitFor({ timeout: 10_000 });
    // The code is highlighted, its language (an alias: js) loaded when first needed.
    await p.page.locator(".msg-assistant pre.code code[data-hl] .hljs-keyword", { hasText: "const" }).waitFor();
    assert.equal(await p.page.locator(".msg-assistant pre.code code").innerText(), "const answer = 42;\nconsole.log(answer);");

    const clip = () => p.page.evaluate(() => navigator.clipboard.readText());
    const codeCopy = p.page.locator(".msg-assistant pre.code .code-copy");
    await codeCopy.click();
    await p.page.locator('.code-copy[data-copied="copied"]').waitFor();
    assert.equal(await clip(), "const answer = 42;\nconsole.log(answer);");
    await p.page.locator(".msg-assistant").getByRole("button", { name: "Copy message" }).click();
    await p.page.locator('.msg-assistant .msg-meta .copy-btn[data-copied="copied"]').waitFor();
    assert.equal(await clip(), md);
    await p.page.locator(".msg-user").getByRole("button", { name: "Copy message" }).click();
    await p.page.locator('.msg-user .msg-meta .copy-btn[data-copied="copied"]').waitFor();
    assert.equal(await clip(), "show me the code");
    await p.page.locator(".terminal").getByRole("button", { name: "Copy output" }).click();
    await p.page.locator('.terminal .copy-btn[data-copied="copied"]').waitFor();
    assert.equal(await clip(), "green line\nwarn line\n", "output without escape codes");
    await p.page.locator(".diff").getByRole("button", { name: "Copy diff" }).click();
    await p.page.locator('.diff .copy-btn[data-copied="copied"]').waitFor();
    assert.equal(await clip(), patch);

    // A background task's output.
    await p.page.route(/\/api\/tasks\/[^/]+\/output/, (route) =>
      route.fulfill({ json: { id: "01TASKCOPY", status: "succeeded", exit_code: 0, text: "\u001b[32mtask ok\u001b[0m\n", next_offset: 17, eof: true, output_truncated: false } }),
    );
    const now = Date.now();
    inj.send({
      type: "task_updated",
      task: { id: "01TASKCOPY", session_id: "", label: "job", command: "echo task ok", cwd: "/ws", status: "running", exit_code: null, error: null, stopped_by: null, pid: 7, output_bytes: 17, timeout_ms: 60_000, created_at: now, started_at: now, finished_at: null },
    });
    const task = p.page.locator('.tasks-panel .task[data-task-id="01TASKCOPY"]');
    await task.locator(".task-output").getByText("task ok").waitFor();
    await task.getByRole("button", { name: "Copy output" }).click();
    await task.locator('.copy-btn[data-copied="copied"]').waitFor();
    assert.equal(await clip(), "task ok\n");

    // Timestamps: relative, exact on hover.
    const userTime = p.page.locator(".msg-user time.timestamp");
    assert.equal(await userTime.innerText(), "3 h ago");
    assert.equal(await userTime.getAttribute("datetime"), new Date(hoursAgo).toISOString());
    assert.ok((await userTime.getAttribute("title")).length > 8, "the exact time on hover");
    await p.page.locator(".msg-assistant time.timestamp").waitFor();
    await shot(p.page, "45-copy-timestamps");
    assertClean(p);
    await p.context.close();
  });

  test("copy falls back to a selection when navigator.clipboard is unavailable (plain HTTP on a LAN)", { timeout: 30_000 }, async () => {
    const p = await open();
    await p.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.base });
    await p.context.addInitScript(() => {
      const real = navigator.clipboard;
      window.__readClipboard = () => real.readText();
      Object.defineProperty(Navigator.prototype, "clipboard", { get: () => undefined, configurable: true });
      Object.defineProperty(navigator, "clipboard", { get: () => undefined, configurable: true });
    });
    const { inj } = await fixtureSession(p, "Copy fallback");
    const run = "01RUNFIXTUREFALLBACK00000A";
    inj.send({ type: "run_started", run, run_id: run, agent: "build", mode: "ask", trigger: "prompt" });
    inj.send({ type: "message_complete", run, message_id: "01ASSFALL", text: "```\nplain-http-copy\n```", reasoning: "" });
    inj.send({ type: "run_finished", run, run_id: run, status: "completed", error: null, usage: { input_tokens: 1, output_tokens: 1 }, duration_ms: 5 });
    await p.page.locator(".run-end").waitFor({ timeout: 10_000 });
    assert.equal(await p.page.evaluate(() => navigator.clipboard), undefined);
    await p.page.locator(".code-copy").click();
    await p.page.locator('.code-copy[data-copied="copied"]').waitFor({ timeout: 3000 });
    assert.equal(await p.page.evaluate(() => window.__readClipboard()), "plain-http-copy");
    assert.equal(await p.page.locator(".copy-buffer").count(), 0, "the helper textarea is gone");
    assertClean(p);
    await p.context.close();
  });
  test("polish: approval reasons show inline code, tool summaries are readable, read_file output opens in one click", { timeout: 30_000 }, async () => {
    const p = await open();
    const { inj } = await fixtureSession(p, "Polish tools");
    const run = "01RUNFIXTUREPOLISH0000000A";
    inj.send({ type: "run_started", run, run_id: run, agent: "build", mode: "ask", trigger: "prompt" });
    const call = (call_id, tool, input, effect = "read") => inj.send({ type: "tool_call", run, call_id, tool, effect, input });
    const result = (call_id, tool, text) => inj.send({ type: "tool_result", run, call_id, tool, ok: true, text, parts: [] });
    call("p1", "exit_plan", { title: "Response cache", plan: "# Plan" });
    call("p2", "ask_user_question", { questions: [{ question: "Which database?", header: "DB", options: [{ label: "SQLite" }] }, { question: "Name?", header: "N", options: [{ label: "a" }] }] });
    call("p3", "git_status", {});
    call("p4", "bg_run", { label: "watcher", command: "npm run dev" }, "process");
    call("p5", "read_file", { path: "src/main.rs" });
    result("p5", "read_file", "fn main() {\n    println!(\"read-me\");\n}\n");
    inj.send({
      type: "approval_requested", run, approval_id: "01APPROVALPOLISH", call_id: "p6", tool: "shell", effect: "process",
      input: { command: "rm -rf build" }, scope: "once", reason: "`rm` deletes files; mode `ask` asks first", reasons: ["`rm` deletes files; mode `ask` asks first"], warnings: [],
    });
    const card = p.page.locator(".transcript .approval-card");
    await card.waitFor();
    const reason = card.locator(".approval-reason");
    await reason.locator("code").first().waitFor({ timeout: 2000 }).catch(async () => {
      throw new Error(`the approval reason has no inline code: ${await reason.innerText()}`);
    });
    assert.equal(await reason.locator("code").first().innerText(), "rm", "backtick span rendered as code");
    assert.doesNotMatch(await reason.innerText(), /`/, "no raw backticks");
    const summary = (id) => p.page.locator(`.tool-card[data-call-id="${id}"] .tool-summary`).innerText();
    assert.equal(await summary("p1"), "Response cache");
    assert.equal(await summary("p2"), "Which database? (+1 more)");
    assert.equal(await summary("p3"), "working tree");
    assert.equal(await summary("p4"), "watcher: npm run dev");
    assert.equal(await summary("p5"), "src/main.rs");
    const text = await p.page.locator(".transcript").innerText();
    assert.doesNotMatch(text, /[{}]"|\{\}/, `no raw JSON in the summaries:\n${text}`);
    await p.page.locator('.tool-card[data-call-id="p5"] .tool-head').click();
    await p.page.locator('.tool-card[data-call-id="p5"] .tool-output').getByText("read-me", { exact: false }).waitFor({ timeout: 2000 }).catch(() => {
      throw new Error("read_file output not visible after one click");
    });
    await shot(p.page, "46-polish-tools");
    assertClean(p);
    await p.context.close();
  });

  test("polish: Markdown task lists render as checkboxes", { timeout: 30_000 }, async () => {
    const p = await open();
    const { inj } = await fixtureSession(p, "Task list");
    inj.send({ type: "message_complete", message_id: "01MSGTASKS", text: "Todo:\n\n- [ ] open task\n- [x] done task\n- plain item", reasoning: "" });
    const md = p.page.locator(".msg-assistant .markdown");
    await md.waitFor();
    const boxes = md.locator('li input[type="checkbox"]');
    assert.equal(await boxes.count(), 2, "two task boxes");
    assert.equal(await boxes.nth(0).isChecked(), false);
    assert.equal(await boxes.nth(1).isChecked(), true);
    assert.equal(await boxes.nth(0).isDisabled(), true, "read-only");
    await md.getByRole("checkbox", { name: "open task" }).waitFor({ timeout: 1000 }); // labelled by its text
    const bullet = (i) => md.locator("li").nth(i).evaluate((li) => getComputedStyle(li).listStyleType);
    assert.equal(await bullet(0), "none", "a task item shows its box, not a bullet");
    assert.notEqual(await bullet(2), "none", "a plain item keeps its bullet");
    assertClean(p);
    await p.context.close();
  });

  test("polish: the tab title names the open session", { timeout: 30_000 }, async () => {
    const p = await open();
    await p.page.goto(server.base + "/");
    await createSessionViaUi(p.page, { title: "Named tab" });
    await p.page.waitForFunction(() => document.title === "Named tab — Tradewind", null, { timeout: 5000 }).catch(async () => {
      throw new Error(`tab title is ${JSON.stringify(await p.page.title())}`);
    });
    assertClean(p);
    await p.page.getByRole("link", { name: "Settings" }).first().click();
    await p.page.waitForFunction(() => document.title === "Settings — Tradewind", null, { timeout: 5000 });
    await p.context.close();
  });

  test("polish: on a light system the theme toggle's first click switches to dark, the next back to light", { timeout: 30_000 }, async () => {
    const p = await open({ colorScheme: "light" });
    await p.page.goto(server.base + "/");
    const theme = () => p.page.evaluate(() => document.documentElement.dataset.resolvedTheme);
    assert.equal(await theme(), "light");
    const toggle = p.page.locator(".topbar .theme-toggle, .topbar button[aria-label^='Theme']").first();
    await toggle.click();
    await p.page.waitForFunction(() => document.documentElement.dataset.resolvedTheme === "dark", null, { timeout: 2000 }).catch(() => {
      throw new Error("the first click did not change the theme");
    });
    await toggle.click();
    await p.page.waitForFunction(() => document.documentElement.dataset.resolvedTheme === "light", null, { timeout: 2000 });
    assert.equal(await p.page.evaluate(() => localStorage.getItem("tradewind.theme")), "system", "back on the system's theme, it follows the system");
    assertClean(p);
    await p.context.close();
  });
});

describe("first start on a phone", { skip, timeout: 120_000 }, () => {
  let server;
  let browser;

  before(async () => {
    server = await startServer({ provider: false });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  test("polish: a new install on a phone opens on model setup, not on an empty list", { timeout: 30_000 }, async () => {
    const p = await newPage(browser, server, { viewport: { width: 390, height: 800 } });
    p.page.setDefaultTimeout(8000);
    await p.page.route("**/api/setup/probe", (route) => route.fulfill({ json: { servers: [] } }));
    await signInWithToken(p.page, server);
    await p.page.locator(".setup h1").getByText("Set up a model").waitFor({ timeout: 5000 }).catch(() => {
      throw new Error("the phone home screen does not offer model setup");
    });
    assert.equal(await p.page.locator(".session-list").isVisible(), false, "the setup, not the empty list");
    const overflow = await p.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `no horizontal page overflow (${overflow}px)`);
    await shot(p.page, "47-phone-setup");
    assert.deepEqual(p.log.errors, []);
    await p.context.close();
  });
});

