// A running command's card (issue 47, item 4, and three polish items), end to end: the real server
// with the replay provider, real Chromium. A `!command`'s card shows what it writes as it runs
// (`tool_output`), stdout and stderr in the order they came, stderr marked; the box follows the end
// until the user scrolls up in it; the result then shows the whole output. A reload mid-run builds
// the live output again from the stored events. A command allowed from its approval card says
// running, not "waiting for approval", while it runs. A result labels each block by its stream and
// colours it by the exit status (a passing command's stderr is no alarm). A failed card shows the
// first lines of its error closed. axe finds nothing on a streaming card, at desktop and phone
// width. Each test starts its own server; the commands wait on files the test creates in the
// workspace; waits are on DOM states, never on timers.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
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

/** Waits, in the workspace, until the test creates the file `name`. */
const gate = (name) => `while [ ! -f ${name} ]; do sleep 0.05; done`;

/**
 * 300 numbered lines (more than the box shows) and a first line; once `go` exists, a line on
 * stderr; once `more` exists, 300 more lines; once `done` exists, a last line. (The server sends
 * what waited of both streams together, stdout first: the gates keep each step in its own event.)
 */
const STREAMING = `!seq 1 300; echo first-line; ${gate("go")}; echo second-line >&2; ${gate("more")}; seq 301 600; ${gate("done")}; echo last-line`;

const scripts = [
  {
    match: "run the gated check",
    turns: [
      { text: "Checking.", tool_calls: [{ name: "shell", arguments: { command: `echo started; ${gate("go")}; echo finished` } }] },
      { text: "Checked." },
    ],
  },
  {
    match: "start the gated task",
    turns: [
      { text: "Starting.", tool_calls: [{ name: "bg_run", arguments: { command: `echo task-first; echo task-err >&2; ${gate("task-go")}; echo task-last`, label: "gated task" } }] },
      { text: "Started." },
    ],
  },
  { turns: [{ text: "Hello." }] },
];

const skip = haveServer() ? false : "server binary not built (target/debug/tradewind)";

const PHONE = { width: 390, height: 844 };

describe("a running command's output", { skip, timeout: 600_000 }, () => {
  let browser;

  before(async () => {
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
  });

  /** A server of its own and a signed-in page on it (CSP bypassed only so axe can be injected). */
  async function boot(viewport) {
    const server = await startServer({ scripts });
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

  const release = (server, name) => writeFileSync(join(server.workspace, name), "");

  /** The run's "working" line (always last in the log) goes when the session has nothing at work. */
  const idle = (page) => page.locator(".transcript .working").waitFor({ state: "detached", timeout: 20_000 });

  /** Where the box's view stands: its scroll offset and how far its end is below the view. */
  const scrollOf = (box) => box.evaluate((el) => ({ top: el.scrollTop, fromEnd: el.scrollHeight - el.scrollTop - el.clientHeight, overflows: el.scrollHeight > el.clientHeight }));

  /** The computed colour of the first element `locator` finds. */
  const colour = (locator) => locator.first().evaluate((el) => getComputedStyle(el).color);

  /** "rgb(r, g, b)" → [r, g, b]. */
  const rgb = (c) => c.match(/\d+/g).slice(0, 3).map(Number);

  test("a !command's card shows its output as it runs, stderr marked, following the end until scrolled up; then the whole result", async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      await createSessionViaUi(page, { title: "Live output", mode: "ask" });
      await sendPrompt(page, STREAMING);
      const card = page.locator(".transcript .tool-card");
      const status = card.locator(".tool-status");
      const box = card.getByRole("region", { name: /^Output so far of / });

      // The first line shows while the command still runs (it waits for `go`).
      await shows(box, "first-line", "the live output", 20_000);
      await shows(status, "running", "the card's status");
      assert.equal(await card.locator(".terminal[data-exit-code]").count(), 0, "no result yet");
      assert.equal(await card.getAttribute("data-tool"), "shell");
      await shows(card.locator(".terminal-live .terminal-cmd"), "seq 1 300; echo first-line", "the command above its output");
      const at = await scrollOf(box);
      assert.ok(at.overflows && at.fromEnd < 8, `the box follows the end of the output: ${JSON.stringify(at)}`);
      await axe(page, "a command's card while its output streams");
      await shot(page, "live-output-streaming");

      // The user scrolls up in the box: what comes next does not pull it back down.
      await box.evaluate(async (el) => {
        el.scrollTop = 0;
        await new Promise((r) => el.addEventListener("scroll", r, { once: true }));
      });
      release(server, "go");
      // Then a line on stderr, marked, then more stdout: in the order they came; still running.
      const err = box.locator(".live-stderr");
      await shows(err, "second-line", "the stderr line", 20_000);
      release(server, "more");
      await shows(box.locator('[data-stream="stdout"]'), /(^|\n)600\n/, "the stdout after it", 20_000);
      await shows(status, "running", "the card's status after more output");
      const text = await box.innerText();
      assert.match(text, /\n300\nfirst-line\nsecond-line\n301\n/, "stdout and stderr interleaved in arrival order");
      assert.equal((await box.evaluate((el) => el.scrollTop)), 0, "the box stayed where the user scrolled");
      const [errStyle, outStyle] = await Promise.all([
        err.first().evaluate((el) => { const s = getComputedStyle(el); return `${s.color} ${s.backgroundColor} ${s.boxShadow}`; }),
        box.locator('[data-stream="stdout"]').first().evaluate((el) => { const s = getComputedStyle(el); return `${s.color} ${s.backgroundColor} ${s.boxShadow}`; }),
      ]);
      assert.notEqual(errStyle, outStyle, "stderr looks different from stdout");
      await shows(card.locator(".live-key"), "stderr", "the key to the marking");

      // The command ends: the result shows the whole output in place of the live box.
      release(server, "done");
      const result = card.locator('.terminal[data-exit-code="0"]');
      await result.waitFor({ timeout: 20_000 });
      await box.waitFor({ state: "detached" });
      await shows(status, "done", "the card's status at the end");
      await shows(result.locator(".stdout"), "last-line", "the whole stdout");
      await shows(result.locator(".stderr"), "second-line", "the whole stderr");
      await idle(page);
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("at phone width: the streaming card passes axe and fits; a reload mid-run builds the live output again from the stored events", async () => {
    const { server, p } = await boot(PHONE);
    try {
      const { page } = p;
      const id = await createSessionViaUi(page, { title: "Live output, phone", mode: "ask" });
      await sendPrompt(page, STREAMING);
      const box = page.locator(".transcript .tool-card").getByRole("region", { name: /^Output so far of / });
      await shows(box, "first-line", "the live output", 20_000);
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), "no sideways scroll at 390 px");
      await axe(page, "a command's card while its output streams, at phone width");
      await shot(page, "live-output-phone");

      // Reloaded mid-run: the events held give the same output again, still running.
      await page.reload();
      await shows(box, "first-line", "the live output after a reload");
      await shows(page.locator(".transcript .tool-card .tool-status"), "running", "the card's status after a reload");
      const stored = (await get(page, server, `/api/sessions/${id}/events?after=0&limit=5000`)).data;
      assert.ok(stored.some((e) => e.type === "tool_output" && e.text.includes("first-line")), "the output is in the event log");
      assert.equal((await box.innerText()).match(/first-line/g).length, 1, "each line once");

      release(server, "go");
      await shows(box.locator(".live-stderr"), "second-line", "the stderr line after a reload", 20_000);
      await shot(page, "live-output-phone-stderr");
      release(server, "more");
      release(server, "done");
      await page.locator('.transcript .terminal[data-exit-code="0"]').waitFor({ timeout: 20_000 });
      await idle(page);
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), "no sideways scroll at 390 px");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("a background task's output streams into its row while it runs; its whole log once it ended", async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      await createSessionViaUi(page, { title: "Live task", mode: "ask" });
      await sendPrompt(page, "start the gated task");
      const approval = page.locator(".transcript .approval-card");
      await approval.waitFor({ timeout: 20_000 });
      await approval.getByRole("button", { name: "Allow once" }).click();
      const row = page.locator(".tasks-panel .task", { hasText: "gated task" });
      await shows(row.locator(".task-status"), "running", "the task's state");
      // Both lines show while the task still waits for `task-go`, from its events (no log read).
      const live = row.locator("[data-task-output][data-live]");
      await shows(live, /task-first\ntask-err/, "the task's live output", 20_000);
      await shows(row.locator(".task-status"), "running", "the task's state while its output shows");
      await axe(page, "a background task's live output");
      release(server, "task-go");
      await shows(row.locator(".task-status"), "succeeded", "the task's end", 20_000);
      const log = row.locator("[data-task-output]:not([data-live])");
      await shows(log, /task-first\ntask-err\ntask-last/, "the whole log after the end", 20_000);
      await idle(page);
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("a command allowed from its approval card says running, with its output, until its result", async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      await createSessionViaUi(page, { title: "Allowed command", mode: "ask" });
      await sendPrompt(page, "run the gated check");
      const approval = page.locator(".transcript .approval-card");
      await approval.waitFor({ timeout: 20_000 });
      const card = page.locator('.transcript .tool-card[data-tool="shell"]');
      const status = card.locator(".tool-status");
      await shows(status, "waiting for approval", "the card before the answer");
      await approval.getByRole("button", { name: "Allow once" }).click();
      await page.locator(".transcript .approval-done").waitFor();
      // Allowed, it runs (it waits for `go`): the card says so, and shows what it wrote.
      await shows(status, "running", "the card once allowed");
      await shows(card.getByRole("region", { name: /^Output so far of / }), "started", "the live output", 20_000);
      await shows(status, "running", "the card while its output shows");
      assert.equal(await card.locator(".terminal[data-exit-code]").count(), 0, "no result yet");
      release(server, "go");
      await card.locator('.terminal[data-exit-code="0"]').waitFor({ timeout: 20_000 });
      await shows(status, "done", "the card at the end");
      await idle(page);
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("a result labels each block by its stream and colours it by the exit status: a passing command's stderr is no alarm, a failing one's is", async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      await createSessionViaUi(page, { title: "Stream labels", mode: "ask" });
      await sendPrompt(page, "!echo out-line; echo progress-line >&2");
      const pass = page.locator('.transcript .terminal[data-exit-code="0"]');
      await pass.waitFor({ timeout: 20_000 });
      await idle(page);
      await sendPrompt(page, "!echo out-line; echo fatal-line >&2; exit 3");
      const fail = page.locator('.transcript .terminal[data-exit-code="3"]');
      await fail.waitFor({ timeout: 20_000 });
      await idle(page);

      await shows(pass.locator(".stderr"), "progress-line", "the passing command's stderr");
      await shows(fail.locator(".stderr"), "fatal-line", "the failing command's stderr");
      // Passing: stderr in the output's own colour, its label as quiet as stdout's.
      assert.equal(await colour(pass.locator(".ansi.stderr")), await colour(pass.locator(".ansi.stdout")), "a passing command's stderr is not in alarm colours");
      for (const t of [pass, fail]) {
        assert.deepEqual(await t.locator(".stream-label").allInnerTexts(), ["STDOUT", "STDERR"], "each block is labelled by its stream");
        await t.getByRole("region", { name: /^Standard output of echo out-line/ }).waitFor();
        await t.getByRole("region", { name: /^Standard error of echo out-line/ }).waitFor();
      }
      assert.equal(await colour(pass.locator(".stderr-block .stream-label")), await colour(pass.locator(".stdout-block .stream-label")));
      // Failing: stderr (and its label) in red.
      const [r, g] = rgb(await colour(fail.locator(".ansi.stderr")));
      assert.ok(r > g + 60, `a failing command's stderr is red: ${[r, g]}`);
      assert.notEqual(await colour(fail.locator(".stderr-block .stream-label")), await colour(fail.locator(".stdout-block .stream-label")));
      await axe(page, "a passing and a failing command's results");
      await shot(page, "live-output-stream-labels");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("a failed card shows the first lines of its error without being opened", async () => {
    const { server, p } = await boot();
    try {
      const { inj } = await openFixtureSession(p, server, "Failed card");
      const { page } = p;
      const run = "01RUNLIVEFAILED00000000000";
      inj.send({ type: "run_started", run, run_id: run, agent: "build", mode: "ask", trigger: "prompt" });
      inj.send({ type: "tool_call", run, call_id: "f1", tool: "read_file", effect: "read", input: { path: "missing.txt" } });
      const error = ["no such file: missing.txt", "looked in the workspace", "did you mean notes.txt?", "fourth line", "fifth line"].join("\n");
      inj.send({ type: "tool_result", run, call_id: "f1", tool: "read_file", ok: false, text: error, parts: [] });
      const card = page.locator('.transcript .tool-card[data-call-id="f1"]');
      await shows(card.locator(".tool-status"), "failed", "the card's status");
      const head = card.locator(".tool-head");
      assert.equal(await head.getAttribute("aria-expanded"), "false");
      const peek = card.locator(".tool-error-peek");
      await shows(peek, "no such file: missing.txt", "the closed card's error");
      const peeked = await peek.innerText();
      assert.match(peeked, /looked in the workspace\ndid you mean notes\.txt\?/);
      assert.doesNotMatch(peeked, /fourth line/, "only the first lines");
      await axe(page, "a failed card, closed");

      // Opened: the whole error, once.
      await head.click();
      await shows(card.locator(".tool-body .tool-error"), "fifth line", "the opened card's whole error");
      assert.equal(await peek.count(), 0, "the first lines are not shown twice");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });
});
