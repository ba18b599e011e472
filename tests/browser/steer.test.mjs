// Telling the agent something while it works (issue 47, items 5–7), end to end: the real server
// with the replay provider, real Chromium. An approval's buttons say what each grants, the narrow
// one first and primary, the broad one naming all that "for this session" keeps (hidden when it
// would keep nothing), the directory named; "Deny, and tell the agent…" opens a labelled box (Esc
// cancels, Ctrl+Enter sends) whose words reach the agent and the decided line. While an approval
// waits, the composer says that Send denies it with the typed words (and posts no message), and
// Send after queues them; while a run works, Send steers the message into it at its next tool call
// (the queue says so until its queued run ends "steered"; the transcript tags it "sent mid-turn"),
// and Send after queues it as before. axe finds nothing on the new parts, at desktop and phone
// width. Each test starts its own server; waits are on DOM states, requests or events, never on
// timers.
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
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

const REASON = "Use the staging database, not production";
const LOOK = "also look at the README";

const scripts = [
  {
    match: "list the files",
    turns: [
      { text: "Listing.", tool_calls: [{ name: "shell", arguments: { command: "ls -la" } }] },
      { text: "Understood: not listing." },
    ],
  },
  {
    match: "write the notes",
    turns: [
      { text: "Writing.", tool_calls: [{ name: "write_file", arguments: { path: "notes.txt", content: "prod\n" } }] },
      { text: "Understood: I will write to staging instead." },
    ],
  },
  {
    match: "run the slow check",
    turns: [
      // Runs until the test creates `release` in the workspace: the run is at work meanwhile.
      { text: "Checking.", tool_calls: [{ name: "shell", arguments: { command: "while [ ! -e release ]; do sleep 0.05; done; echo released" } }] },
      { text: "Checked, nothing else to do." },
    ],
  },
  { match: "look at the README", turns: [{ text: "Reading the README now." }] },
  { match: "summarise", turns: [{ text: "Summary: all done." }] },
  { turns: [{ text: "Hello." }] },
];

const skip = haveServer() ? false : "server binary not built (target/debug/tradewind)";

const PHONE = { width: 390, height: 844 };

describe("steering and telling the agent", { skip, timeout: 600_000 }, () => {
  let browser;

  before(async () => {
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
  });

  /** A server of its own and a signed-in page on it (CSP bypassed only so axe can be injected). */
  async function boot(viewport) {
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

  const events = async (page, server, id) => (await get(page, server, `/api/sessions/${id}/events?after=0&limit=5000`)).data;

  /** The next request the page makes to `path` with `method`. */
  const nextRequest = (page, method, path) =>
    page.waitForRequest((r) => r.method() === method && new URL(r.url()).pathname === path, { timeout: 10_000 });

  /** The next answer to a POST of a message to the session (its body names the run it queued). */
  const nextMessage = (page, id) =>
    page.waitForResponse((r) => r.request().method() === "POST" && new URL(r.url()).pathname === `/api/sessions/${id}/messages`, { timeout: 10_000 });

  /** The run's "working" line (always last in the log) goes when the session has nothing at work. */
  const idle = (page) => page.locator(".transcript .working").waitFor({ state: "detached", timeout: 20_000 });

  /** The accessible text of each button of the card, in order. */
  const buttonTexts = (card) => card.locator(".approval-actions button").evaluateAll((bs) => bs.map((b) => b.textContent.replace(/\s+/g, " ").trim()));

  test("a command's card: Allow `ls …` first and primary, the session button names every command; Deny, and tell the agent… (Esc cancels, Ctrl+Enter sends)", async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      const id = await createSessionViaUi(page, { title: "Deny with a reason", mode: "ask" });
      await sendPrompt(page, "list the files");
      const card = page.locator(".transcript .approval-card");
      await card.waitFor({ timeout: 20_000 });
      assert.deepEqual(await buttonTexts(card), [
        "Allow ls … in this session",
        "… in this workspace",
        "Allow once",
        "Allow every command (process) for this session",
        "Deny",
        "Deny, and tell the agent…",
      ]);
      const primary = await card.locator(".approval-actions button.primary").allInnerTexts();
      assert.deepEqual(primary.map((t) => t.replace(/\s+/g, " ").trim()), ["Allow ls … in this session"], "the narrow choice is the one primary button");
      await card.getByRole("button", { name: "Allow ls … in this workspace" }).waitFor();
      await shot(page, "steer-card-buttons");

      // The box opens labelled and focused; Esc closes it, gives the focus back and answers nothing.
      const tell = card.getByRole("button", { name: "Deny, and tell the agent…" });
      await tell.click();
      const box = card.getByRole("textbox", { name: "Tell the agent why, or what to do instead" });
      await box.waitFor();
      assert.equal(await tell.getAttribute("aria-expanded"), "true");
      assert.ok(await box.evaluate((el) => el === document.activeElement), "the box has the focus");
      await axe(page, "an approval card with the reason box open");
      await box.fill("not this");
      await box.press("Escape");
      await box.waitFor({ state: "detached" });
      assert.ok(await tell.evaluate((el) => el === document.activeElement), "Esc gives the focus back to the button");
      assert.equal(p.log.requests.filter((u) => u.includes("/api/approvals/")).length, 0, "Esc answered nothing");
      assert.equal(await page.locator(".transcript .working").count(), 1, "Esc in the box did not stop the run");

      // Ctrl+Enter denies with the reason.
      await tell.click();
      await box.fill(REASON);
      const decided = nextRequest(page, "POST", `/api/approvals/${await card.getAttribute("data-approval-id")}`);
      await box.press("Control+Enter");
      assert.deepEqual((await decided).postDataJSON(), { decision: "deny", reason: REASON });
      const done = page.locator(".transcript .approval-done.denied");
      await shows(done, `Denied: ${REASON}`, "the decided line says what the agent was told");
      await shows(page.locator(".transcript .msg-assistant"), "Understood: not listing.", "the agent's answer");
      await idle(page);
      await shot(page, "steer-deny-reason");

      const evs = await events(page, server, id);
      const verdict = evs.find((e) => e.type === "approval_decided");
      assert.deepEqual([verdict.decision, verdict.reason], ["deny", REASON]);
      const told = evs.find((e) => e.type === "tool_result");
      assert.match(told.text, /Use the staging database, not production/, "the agent read the reason with the denial");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("at phone width, a write's card: Allow once first and primary, then Allow every file edit (write) for this session; the decided line names it", async () => {
    const { server, p } = await boot(PHONE);
    try {
      const { page } = p;
      await createSessionViaUi(page, { title: "Write grant", mode: "ask" });
      await sendPrompt(page, "write the notes");
      const card = page.locator(".transcript .approval-card");
      await card.waitFor({ timeout: 20_000 });
      assert.deepEqual(await buttonTexts(card), [
        "Allow once",
        "Allow every file edit (write) for this session",
        "Deny",
        "Deny, and tell the agent…",
      ]);
      assert.deepEqual(await card.locator(".approval-actions button.primary").allInnerTexts(), ["Allow once"]);
      // Every button is inside the screen: nothing to scroll sideways for.
      const rights = await card.locator(".approval-actions button").evaluateAll((bs) => bs.map((b) => b.getBoundingClientRect().right));
      assert.ok(rights.every((r) => r <= PHONE.width), `buttons past the right edge: ${rights}`);
      await card.getByRole("button", { name: "Deny, and tell the agent…" }).click();
      await card.getByRole("textbox", { name: "Tell the agent why, or what to do instead" }).waitFor();
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), "no sideways scroll at 390 px");
      await axe(page, "an approval card and its reason box at phone width");
      await shot(page, "steer-card-phone");
      await card.getByRole("button", { name: "Cancel" }).click();

      await card.getByRole("button", { name: "Allow every file edit (write) for this session" }).click();
      await shows(page.locator(".transcript .approval-done"), "Allowed every file edit (write) for this session", "the decided line");
      await idle(page);
      assert.ok(existsSync(join(server.workspace, "notes.txt")), "the write ran");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("a card whose 'for this session' would keep nothing offers no session button; a directory's names the directory", async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      const { inj } = await openFixtureSession(p, server, "Cards");
      const run = "01RUNSTEERCARDS00000000000";
      inj.send({ type: "run_started", run, run_id: run, agent: "build", mode: "ask", trigger: "prompt" });
      inj.send({ type: "tool_call", run, call_id: "c1", tool: "ssh_agent", effect: "external", input: {} });
      inj.send({
        type: "approval_requested", run, approval_id: "01APPROVALSTEERONCE", call_id: "c1", tool: "ssh_agent", effect: "external",
        input: {}, scope: "once", reason: "uses your SSH agent", warnings: [], session_keeps: [],
      });
      const once = page.locator('.transcript [data-approval-id="01APPROVALSTEERONCE"]');
      await once.waitFor();
      assert.deepEqual(await buttonTexts(once), ["Allow once", "Deny", "Deny, and tell the agent…"]);

      inj.send({ type: "tool_call", run, call_id: "c2", tool: "read_file", effect: "read", input: { path: "/srv/data/a.txt" } });
      inj.send({
        type: "approval_requested", run, approval_id: "01APPROVALSTEERDIR", call_id: "c2", tool: "read_file", effect: "read",
        input: { path: "/srv/data/a.txt" }, scope: "directory", directory: "/srv/data", reason: "outside the workspace", warnings: [],
        session_keeps: ["reading under /srv/data"],
      });
      const dir = page.locator('.transcript [data-approval-id="01APPROVALSTEERDIR"]');
      await dir.waitFor();
      assert.deepEqual(await buttonTexts(dir), ["Allow once", "Allow this directory: /srv/data", "Deny", "Deny, and tell the agent…"]);
      await axe(page, "a card without a session button and a directory's card");

      // Decided: a prefix grant names its prefix; a denial without a reason says Denied.
      inj.send({
        type: "approval_requested", run, approval_id: "01APPROVALSTEERPREFIX", call_id: "c3", tool: "shell", effect: "process",
        input: { command: "git status" }, scope: "effect", reason: "runs a process", warnings: [], prefix: ["git", "status"],
        session_keeps: ["every command (process)"],
      });
      inj.send({ type: "approval_decided", run, approval_id: "01APPROVALSTEERPREFIX", decision: "prefix_workspace" });
      inj.send({ type: "approval_decided", run, approval_id: "01APPROVALSTEERONCE", decision: "deny" });
      await shows(page.locator('.transcript .approval-done[data-approval-id="01APPROVALSTEERPREFIX"]'), "Allowed git status … in this workspace", "the prefix grant's line");
      await shows(page.locator('.transcript .approval-done[data-approval-id="01APPROVALSTEERONCE"]'), "Denied — ssh_agent (external)", "a plain denial");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("at phone width, while an approval waits: the composer says Send denies it; Send after queues; Send denies with the words and posts no message", async () => {
    const { server, p } = await boot(PHONE);
    try {
      const { page } = p;
      const id = await createSessionViaUi(page, { title: "Deny from the composer", mode: "ask" });
      await sendPrompt(page, "write the notes");
      const card = page.locator(".transcript .approval-card");
      await card.waitFor({ timeout: 20_000 });
      const approval = await card.getAttribute("data-approval-id");
      const composer = page.locator(".composer");
      const line = composer.locator(".composer-mode");
      await shows(line, "Send will deny the waiting write_file call and tell the agent your message", "the composer's line");
      const box = composer.getByRole("textbox", { name: "Prompt" });
      assert.match(await box.evaluate((el) => el.getAttribute("aria-describedby") ?? ""), /composer-mode/, "the prompt is described by the line");
      await axe(page, "the composer while an approval waits, at phone width");
      await shot(page, "steer-composer-deny-phone");

      // Send after: an ordinary queued message; the approval still waits.
      await box.fill("then summarise it");
      const queued = nextMessage(page, id);
      await composer.getByRole("button", { name: "Send after" }).click();
      const q = await queued;
      assert.deepEqual(q.request().postDataJSON(), { text: "then summarise it", delivery: "queue" });
      const row = page.locator(".queue-item");
      await shows(row.locator(".queue-text"), "then summarise it", "the queued message");
      assert.equal(await row.locator(".queue-steer").count(), 0, "queued, not steering");
      assert.equal(await card.count(), 1, "the approval still waits");

      // Send (Enter): the waiting call is denied with the words; no message is posted.
      const messages = () => p.log.requests.filter((u) => new URL(u).pathname === `/api/sessions/${id}/messages`).length;
      const before = messages();
      await box.fill("Write it to staging.txt instead");
      const decided = nextRequest(page, "POST", `/api/approvals/${approval}`);
      await box.press("Enter");
      assert.deepEqual((await decided).postDataJSON(), { decision: "deny", reason: "Write it to staging.txt instead" });
      await shows(page.locator(".transcript .approval-done.denied"), "Denied: Write it to staging.txt instead", "the decided line");
      assert.equal(await box.inputValue(), "", "the prompt is cleared");
      // The run answers, then the queued message runs as its own turn.
      await shows(page.locator(".transcript .msg-assistant"), "Summary: all done.", "the queued message's answer", 20_000);
      await idle(page);
      assert.equal(await line.count(), 0, "nothing waits: the composer's line is gone");
      assert.equal(messages(), before, "Send posted no message");
      const said = (await events(page, server, id)).filter((e) => e.type === "user_message").map((e) => e.text);
      assert.deepEqual(said, ["write the notes", "then summarise it"], "the denial's words were not sent as a message");
      assert.ok(!existsSync(join(server.workspace, "notes.txt")), "the denied write did not run");
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), "no sideways scroll at 390 px");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("while a run works: Send steers the message into it at the next tool call (queue says so, transcript tags it), Send after queues", async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      const id = await createSessionViaUi(page, { title: "Steer", mode: "full" });
      await sendPrompt(page, "run the slow check");
      await page.locator(".transcript .tool-card").waitFor({ timeout: 20_000 });
      const composer = page.locator(".composer");
      await shows(composer.locator(".composer-mode"), "Send goes to the agent at its next step", "the composer's line while the run works");
      const box = composer.getByRole("textbox", { name: "Prompt" });

      // Send (Enter): steered; the queue says when it is delivered.
      await box.fill("also look at the READM");
      const steered = nextMessage(page, id);
      await box.press("Enter");
      const s = await steered;
      assert.deepEqual(s.request().postDataJSON(), { text: "also look at the READM", delivery: "steer" });
      const steerRun = (await s.json()).run_id;
      const panel = page.getByRole("region", { name: /Queued/ });
      const steerRow = panel.locator(`.queue-item[data-queue-id="${steerRun}"]`);
      await shows(steerRow.locator(".queue-steer"), "steering — delivered at the next tool call", "the steered row");

      // Send after: queued for after the run, as before.
      await box.fill("then summarise");
      const queued = nextMessage(page, id);
      await composer.getByRole("button", { name: "Send after" }).click();
      const q = await queued;
      assert.deepEqual(q.request().postDataJSON(), { text: "then summarise", delivery: "queue" });
      const queuedRow = panel.locator(`.queue-item[data-queue-id="${(await q.json()).run_id}"]`);
      await shows(queuedRow.locator(".queue-text"), "then summarise", "the queued row");
      assert.equal(await queuedRow.locator(".queue-steer").count(), 0);
      await shows(panel.locator(".queue-title"), "sent when the current run ends", "the queue's title");
      await axe(page, "the composer while a run works, and a queue with a steered message");
      await shot(page, "steer-queue");

      // A steered message can still be edited while it waits.
      await steerRow.getByRole("button", { name: /^Edit queued message/ }).click();
      await steerRow.getByRole("textbox", { name: "Queued message" }).fill(LOOK);
      await steerRow.getByRole("button", { name: "Save" }).click();
      await shows(steerRow.locator(".queue-text"), LOOK, "the edited steer");

      // The command ends: at that tool call the run takes the message; its queued run ends "steered".
      writeFileSync(join(server.workspace, "release"), "");
      const mid = page.locator(".transcript .msg-user").filter({ hasText: LOOK });
      await shows(mid.locator(".msg-steered"), "sent mid-turn", "the steered message's tag", 20_000);
      await steerRow.waitFor({ state: "detached" });
      await shows(page.locator(".transcript .msg-assistant"), "Reading the README now.", "the answer to the steer");
      await shows(page.locator(".transcript .msg-assistant"), "Summary: all done.", "the queued message's answer", 20_000);
      await idle(page);
      await panel.waitFor({ state: "detached" });
      assert.equal(await page.locator(".transcript .msg-steered").count(), 1, "only the steered message is tagged");
      await axe(page, "a transcript with a message sent mid-turn");
      await shot(page, "steer-mid-turn");

      const evs = await events(page, server, id);
      const said = evs.filter((e) => e.type === "user_message");
      assert.deepEqual(said.map((e) => [e.text, e.steered_from ?? null]), [
        ["run the slow check", null],
        [LOOK, steerRun],
        ["then summarise", null],
      ]);
      assert.equal(said[1].run, said[0].run, "recorded in the run that took it");
      const end = evs.find((e) => e.type === "run_finished" && e.run_id === steerRun);
      assert.deepEqual([end.status, end.reason], ["completed", "steered"]);
      const r = await apiCall(page, server, "GET", `/api/sessions/${id}/queue`);
      assert.deepEqual(r.json.data, []);
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });
});
