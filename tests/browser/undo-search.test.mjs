// Search, revert and redo, and the reasoning effort in the web app, end to end: the real server
// with the replay provider, whose build agent writes notes.txt (there from the start) in a first
// turn and rewrites it, adding extra.txt, in a second. Search finds a prompt and an answer across
// sessions as you type, marks the matched words and opens a hit at its event, reading back pages
// the transcript had not loaded; Rewind to here asks first (the files that change listed), puts
// the files on disk back, dims the turns it took back and labels them, the note it leaves offers
// Redo, and a reload shows the same; files changed by hand are named in the dialog before they are
// overwritten; /undo and /redo work from the composer and say in plain words why not when they
// cannot; the reasoning selector PATCHes the session and survives a reload. axe finds nothing on
// the search dialog, the revert dialogs and the dimmed turns, in either theme. Each test starts
// its own server; waits are on DOM states, never on timers.
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
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


const FIRST = "make the first change to notes";
const SECOND = "now the second change";
const FIRST_DONE = "The first version is written.";
const SECOND_DONE = "Changed notes to two and added extra.";
/** Enough tool calls (three events each) to push the first prompt out of the newest page. */
const LISTINGS = 150;

const scripts = [
  {
    match: "first change",
    turns: [
      { text: "Writing the first version.", tool_calls: [{ name: "write_file", arguments: { path: "notes.txt", content: "one\n" } }] },
      { text: FIRST_DONE },
    ],
  },
  {
    match: "second change",
    turns: [
      {
        text: "Rewriting the notes.",
        tool_calls: [
          { name: "write_file", arguments: { path: "notes.txt", content: "two\n" } },
          { name: "write_file", arguments: { path: "extra.txt", content: "extra\n" } },
        ],
      },
      { text: SECOND_DONE },
    ],
  },
  {
    match: "list everything",
    turns: [
      { text: "Listing many times.", tool_calls: Array.from({ length: LISTINGS }, () => ({ name: "list_files", arguments: {} })) },
      { text: "All listed." },
    ],
  },
  { match: "hello again", turns: [{ text: "Hello again to you." }] },
  { match: "look around", turns: [{ text: "Looked around: nothing to change." }] },
  { turns: [{ text: "Hello." }] },
];

const skip = haveServer() ? false : "server binary not built (target/debug/tradewind)";


const read = (server, name) => readFileSync(join(server.workspace, name), "utf8");

describe("search, revert and redo, reasoning effort", { skip, timeout: 600_000 }, () => {
  let browser;

  before(async () => {
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
  });

  /** A server of its own (writes allowed, notes.txt in the workspace) and a signed-in page on it. */
  async function boot() {
    const server = await startServer({ scripts, args: ["--allow-write"], files: { "notes.txt": "original\n" } });
    const first = await newPage(browser, server);
    const state = await signInWithToken(first.page, server);
    await first.context.close();
    // CSP bypassed only so axe can be injected.
    const p = await newPage(browser, server, { storageState: state, bypassCSP: true });
    p.page.setDefaultTimeout(8000);
    await p.page.goto(server.base + "/");
    return { server, p };
  }

  async function finish(server, p) {
    await p?.context.close();
    await server?.stop();
  }

  /**
   * Send a prompt and wait for its run's end: the answer `reply` shown, then nothing at work. (Run
   * ends are not counted: a long transcript keeps only the rows near the view in the DOM.)
   */
  async function turn(page, text, reply) {
    await sendPrompt(page, text);
    await page.locator(".transcript .msg-assistant").getByText(reply).waitFor({ timeout: 20_000 });
    await page.locator(".transcript .working").waitFor({ state: "detached", timeout: 20_000 });
  }

  /** A session in auto mode (edits run without asking) where the agent wrote notes.txt twice. */
  async function twoTurns(page, server, title) {
    const id = await createSessionViaUi(page, { title, mode: "auto" });
    await turn(page, FIRST, FIRST_DONE);
    assert.equal(read(server, "notes.txt"), "one\n", "the first turn wrote notes.txt");
    await turn(page, SECOND, SECOND_DONE);
    assert.equal(read(server, "notes.txt"), "two\n", "the second turn rewrote notes.txt");
    assert.equal(read(server, "extra.txt"), "extra\n", "the second turn added extra.txt");
    return id;
  }

  /** The bodies of the page's revert and redo calls, in order, without the message id. */
  function undoCalls(page) {
    const calls = [];
    page.on("request", (r) => {
      const m = /\/api\/sessions\/[^/]+\/(revert|redo)$/.exec(new URL(r.url()).pathname);
      if (m && r.method() === "POST") {
        const { message_id, ...rest } = r.postDataJSON();
        calls.push({ call: m[1], ...rest });
      }
    });
    return calls;
  }

  const userRow = (page, text) => page.locator(".transcript .t-row").filter({ has: page.locator(".msg-user", { hasText: text }) });

  test("search finds a prompt and an answer as you type, marks the words, and opens each hit at its event", { timeout: 120_000 }, async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      const id = await createSessionViaUi(page, { title: "Notes work", mode: "auto" });
      await turn(page, FIRST, FIRST_DONE);
      await turn(page, "list everything many times", "All listed.");
      await turn(page, SECOND, SECOND_DONE);
      await createSessionViaUi(page, { title: "Elsewhere" });

      // From the session list: the dialog opens with the field focused, and says what it does.
      await page.locator(".sidebar").getByRole("button", { name: "Search" }).click();
      const dialog = page.getByRole("dialog", { name: "Search sessions" });
      const field = dialog.getByRole("combobox", { name: "Words to find" });
      await field.waitFor();
      assert.equal(await field.evaluate((el) => el === document.activeElement), true, "the field has the focus");
      const status = dialog.locator("#search-status");
      await shows(status, "Type words to find in the prompts, answers and tool output of every session.", "the empty state");

      // Typed fast: asked once the typing pauses (not once per key), and the hits are for the last words.
      let asked = 0;
      page.on("request", (r) => r.url().includes("/api/search?") && asked++);
      const words = "first chang";
      await field.pressSequentially(words);
      const hits = dialog.getByRole("option");
      const prompt = hits.filter({ hasText: FIRST });
      await prompt.first().waitFor();
      assert.ok(asked >= 1 && asked < words.length, `${asked} search requests for ${words.length} keys`);
      assert.equal(await prompt.count(), 1, "the prompt is found once");
      assert.equal(await prompt.locator(".search-hit-title").innerText(), "Notes work");
      assert.equal(await prompt.locator(".search-hit-kind").innerText(), "prompt");
      await shows(prompt.locator("time"), "just now", "the hit's time");
      assert.deepEqual(await prompt.locator("mark").allInnerTexts(), ["first", "change"], "the matched words are marked (the last as a prefix)");
      assert.equal(await prompt.getAttribute("aria-selected"), "true", "the best hit is highlighted");
      assert.equal(await field.getAttribute("aria-expanded"), "true");
      assert.equal(await field.getAttribute("aria-activedescendant"), await prompt.getAttribute("id"));
      await axe(page, "the search dialog with hits");
      await shot(page, "search-hits");

      // Nothing found: said plainly.
      await field.fill("zzqxj");
      await shows(status, "No matches for “zzqxj”.", "the no-result state");
      assert.equal(await field.getAttribute("aria-expanded"), "false");
      await axe(page, "the search dialog with no match");

      // Arrows move through many hits.
      await field.fill("notes");
      await hits.nth(2).waitFor();
      await field.press("ArrowDown");
      assert.equal(await field.getAttribute("aria-activedescendant"), "search-hit-1");
      assert.equal(await hits.nth(1).getAttribute("aria-selected"), "true");
      await field.press("ArrowUp");
      assert.equal(await field.getAttribute("aria-activedescendant"), "search-hit-0");

      // Enter opens the prompt's session at the prompt, read back from an older page, highlighted.
      await field.fill("first change");
      await prompt.first().waitFor();
      await hits.first().and(prompt).waitFor().catch(() => assert.fail("the prompt is not the best hit for its own words"));
      const seq = Number(await prompt.getAttribute("data-seq"));
      const newest = await get(page, server, `/api/sessions/${id}/events?before=${Number.MAX_SAFE_INTEGER}&limit=300`);
      assert.ok(newest.data[0].seq > seq, "the prompt is older than the newest page the session opens with");
      await field.press("Enter");
      await dialog.waitFor({ state: "detached" });
      await page.waitForURL((u) => u.pathname === `/s/${id}`);
      const flashed = page.locator(".transcript .t-row[data-flash]");
      await shows(flashed, FIRST, "the highlighted row");
      const row = await flashed.boundingBox();
      const view = await page.locator(".transcript").boundingBox();
      assert.ok(row.y >= view.y - 1 && row.y + Math.min(row.height, 30) <= view.y + view.height, `the prompt's row is in view: ${JSON.stringify({ row, view })}`);

      // An answer, picked with the mouse.
      await page.keyboard.press("Control+k");
      await field.fill("changed notes");
      const answer = hits.filter({ hasText: "Changed notes to two and added extra." });
      await answer.first().waitFor();
      assert.equal(await answer.first().locator(".search-hit-kind").innerText(), "answer");
      assert.deepEqual(await answer.first().locator("mark").allInnerTexts(), ["Changed", "notes"]);
      await answer.first().click();
      await dialog.waitFor({ state: "detached" });
      await shows(flashed, "Changed notes to two and added extra.", "the highlighted answer");

      // /search from the composer opens the dialog with the words in the field.
      const box = page.locator(".composer textarea");
      await box.fill("/sea");
      await page.getByRole("listbox", { name: "Commands" }).locator('[data-command="search"]').waitFor();
      await box.press("Tab");
      assert.equal(await box.inputValue(), "/search ");
      await box.pressSequentially("first change");
      await box.press("Enter");
      await field.waitFor();
      assert.equal(await field.inputValue(), "first change");
      await prompt.first().waitFor();
      await field.press("Escape");
      await dialog.waitFor({ state: "detached" });
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("Rewind to here asks first, puts the files back, dims the turns taken back; Redo brings them back; a reload shows the same", { timeout: 120_000 }, async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      await twoTurns(page, server, "Undo me");
      const calls = undoCalls(page);

      await userRow(page, FIRST).getByRole("button", { name: "Rewind to here" }).click();
      const dialog = page.getByRole("dialog", { name: "Rewind to before this message?" });
      await dialog.waitFor();
      await shows(dialog.locator("#revert-dialog-desc"), `before “${FIRST}”`, "what the revert does");
      const files = dialog.locator(".revert-changes");
      await shows(files.locator("h3"), "Files that change (2)", "the files the dry run lists");
      assert.deepEqual((await files.locator("li").allInnerTexts()).map((t) => t.replace(/\s+/g, " ").trim()).sort(), ["extra.txt deleted", "notes.txt restored"]);
      assert.equal(await dialog.locator(".revert-warning").count(), 0, "no hand edits to warn about");
      const go = dialog.getByRole("button", { name: "Rewind", exact: true });
      await page.waitForFunction(() => document.activeElement?.textContent === "Rewind").catch(() => assert.fail("the Rewind button does not have the focus"));
      assert.equal(read(server, "notes.txt"), "two\n", "the dry run changes nothing");
      await axe(page, "the revert dialog");
      await shot(page, "revert-dialog");
      await go.click();
      await dialog.waitFor({ state: "detached" });

      const note = page.locator(".transcript .revert-note");
      await shows(note, `Rewound 2 files and the conversation to before “${FIRST}”`, "the revert note");
      assert.equal(read(server, "notes.txt"), "original\n", "notes.txt is back as it was before the first message");
      assert.equal(existsSync(join(server.workspace, "extra.txt")), false, "extra.txt, created since, is gone");
      assert.deepEqual(calls, [{ call: "revert", dry_run: true }, { call: "revert", force: false }], "a dry run, then the revert");
      const dimmed = page.locator(".transcript .t-row.taken-back");
      const labels = page.locator(".transcript .taken-back-label");
      await labels.nth(1).waitFor();
      assert.equal(await labels.count(), 2, "each turn taken back is labelled once");
      await shows(userRow(page, FIRST).locator(".taken-back-label"), "Taken back", "the first turn's label");
      await shows(userRow(page, SECOND).locator(".taken-back-label"), "Taken back", "the second turn's label");
      assert.equal(await dimmed.filter({ hasText: "Changed notes to two and added extra." }).count(), 1, "the answers are dimmed too");
      assert.equal(await userRow(page, FIRST).getByRole("button", { name: "Rewind to here" }).count(), 0, "no revert of a turn taken back");
      await axe(page, "the turns taken back and the revert note");
      await shot(page, "reverted");

      // From the events: a reload shows the same.
      await page.reload();
      await shows(page.locator(".transcript .revert-note"), `Rewound 2 files and the conversation to before “${FIRST}”`, "the note after a reload");
      await labels.nth(1).waitFor();
      assert.equal(await labels.count(), 2);

      // Redo: the same question, then the files and the turns are back.
      await note.getByRole("button", { name: "Redo" }).click();
      const redo = page.getByRole("dialog", { name: "Redo: bring back what the rewind took?" });
      await redo.waitFor();
      await shows(redo.locator(".revert-changes h3"), "Files that change (2)", "what the redo changes");
      await axe(page, "the redo dialog");
      await redo.getByRole("button", { name: "Redo", exact: true }).click();
      await redo.waitFor({ state: "detached" });
      await shows(note, "Redone: 2 files and the turns are back", "the note after the redo");
      assert.equal(read(server, "notes.txt"), "two\n");
      assert.equal(read(server, "extra.txt"), "extra\n");
      await dimmed.first().waitFor({ state: "detached" });
      assert.equal(await note.getByRole("button", { name: "Redo" }).count(), 0, "nothing left to redo");
      await page.reload();
      await shows(page.locator(".transcript .revert-note"), "Redone", "the redone note after a reload");
      assert.equal(await dimmed.count(), 0, "nothing is dimmed after the redo");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("files changed by hand are named in the dialog before a revert overwrites them", { timeout: 120_000 }, async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      await twoTurns(page, server, "Hand edits");
      const calls = undoCalls(page);
      writeFileSync(join(server.workspace, "notes.txt"), "my own edit\n");

      const revert = userRow(page, SECOND).getByRole("button", { name: "Rewind to here" });
      await revert.click();
      const dialog = page.getByRole("dialog", { name: "Rewind to before this message?" });
      const warning = dialog.locator(".revert-warning");
      await shows(warning.locator("h3"), "Changed by hand since the agent’s last step", "the hand-edit warning");
      await shows(warning, "Rewinding overwrites your own changes to this file:", "what the warning says");
      assert.deepEqual(await warning.locator("li").allInnerTexts(), ["notes.txt"]);
      const go = dialog.getByRole("button", { name: "Rewind and overwrite my changes" });
      await go.waitFor();
      assert.equal(await dialog.getByRole("button", { name: "Cancel" }).evaluate((el) => el === document.activeElement), true, "Cancel keeps the focus");
      await axe(page, "the revert dialog with a hand-edit warning");
      await shot(page, "revert-hand-edits");

      // Cancel: nothing changes.
      await dialog.getByRole("button", { name: "Cancel" }).click();
      await dialog.waitFor({ state: "detached" });
      assert.equal(read(server, "notes.txt"), "my own edit\n");

      // Confirmed: overwritten, as the dialog said.
      await revert.click();
      await go.click();
      await dialog.waitFor({ state: "detached" });
      await shows(page.locator(".transcript .revert-note"), `Rewound 2 files and the conversation to before “${SECOND}”`, "the revert note");
      assert.equal(read(server, "notes.txt"), "one\n");
      assert.equal(existsSync(join(server.workspace, "extra.txt")), false);
      assert.deepEqual(
        calls,
        [{ call: "revert", dry_run: true }, { call: "revert", dry_run: true }, { call: "revert", force: true }],
        "forced only once the hand edits were shown and confirmed",
      );
      assert.equal(await userRow(page, FIRST).locator(".taken-back-label").count(), 0, "the first turn stays");
      await shows(userRow(page, SECOND).locator(".taken-back-label"), "Taken back", "the second turn is taken back");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("/undo and /redo from the composer; once the conversation goes on, /redo says why it cannot", { timeout: 120_000 }, async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      const id = await twoTurns(page, server, "Slash undo");
      const box = page.locator(".composer textarea");
      const picker = page.getByRole("listbox", { name: "Commands" });
      await box.fill("/");
      // The server's own /init arrives with the session's templates: wait for it, so the list is whole.
      await picker.locator('[data-command="init"]').waitFor();
      assert.deepEqual((await picker.locator(".slash-name").allInnerTexts()).slice(-7), ["/undo", "/redo", "/search", "/skills", "/agents", "/plugins", "/init"]);

      await box.fill("/undo");
      await box.press("Enter");
      const dialog = page.getByRole("dialog", { name: "Rewind to before this message?" });
      await shows(dialog.locator("#revert-dialog-desc"), `before “${SECOND}”`, "/undo reverts the last message");
      await dialog.getByRole("button", { name: "Rewind", exact: true }).click();
      await dialog.waitFor({ state: "detached" });
      await shows(page.locator(".transcript .revert-note"), `Rewound 2 files and the conversation to before “${SECOND}”`, "the revert note");
      assert.equal(read(server, "notes.txt"), "one\n");
      assert.equal(await userRow(page, FIRST).locator(".taken-back-label").count(), 0);
      await userRow(page, SECOND).locator(".taken-back-label").waitFor();

      await box.fill("/redo");
      await box.press("Enter");
      const redo = page.getByRole("dialog", { name: "Redo: bring back what the rewind took?" });
      await redo.getByRole("button", { name: "Redo", exact: true }).click();
      await redo.waitFor({ state: "detached" });
      await shows(page.locator(".transcript .revert-note"), "Redone", "the note after /redo");
      assert.equal(read(server, "notes.txt"), "two\n");

      // Undo again, then go on: the note no longer offers Redo, and /redo says why in plain words.
      await box.fill("/undo");
      await box.press("Enter");
      await dialog.getByRole("button", { name: "Rewind", exact: true }).click();
      await dialog.waitFor({ state: "detached" });
      const active = page.locator('.transcript .revert-note[data-state="active"]');
      await active.getByRole("button", { name: "Redo" }).waitFor();
      await turn(page, "hello again", "Hello again to you.");
      await active.getByRole("button", { name: "Redo" }).waitFor({ state: "detached" });
      await box.fill("/redo");
      await box.press("Enter");
      await shows(redo.getByRole("alert"), "The conversation went on after the revert, so it can no longer be redone.", "why /redo cannot");
      await axe(page, "the redo dialog with its reason");
      await redo.getByRole("button", { name: "Close" }).click();
      await redo.waitFor({ state: "detached" });

      // A plan-agent message has no snapshot: no Rewind to here on it.
      await box.fill("/plan");
      await box.press("Enter");
      await page.locator('.session-sub select[name="agent"][data-agent="plan"]').waitFor();
      await turn(page, "just look around", "Looked around: nothing to change.");
      await userRow(page, "just look around").locator(".msg-meta").waitFor();
      assert.equal(await userRow(page, "just look around").getByRole("button", { name: "Rewind to here" }).count(), 0);
      assert.equal((await get(page, server, `/api/sessions/${id}`)).agent, "plan");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("the reasoning selector PATCHes the session, follows changes made elsewhere and survives a reload", { timeout: 90_000 }, async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      const id = await createSessionViaUi(page, { title: "Effort" });
      const select = page.locator(".session-header").getByRole("combobox", { name: "Reasoning effort" });
      assert.equal(await select.inputValue(), "", "Default at first");
      assert.deepEqual(await select.locator("option").allInnerTexts(), ["Default", "Low", "Medium", "High"]);

      const patched = page.waitForResponse((r) => r.url().endsWith(`/api/sessions/${id}`) && r.request().method() === "PATCH");
      await select.selectOption("high");
      const res = await patched;
      assert.equal(res.status(), 200);
      assert.deepEqual(res.request().postDataJSON(), { reasoning_effort: "high" });
      assert.equal((await get(page, server, `/api/sessions/${id}`)).reasoning_effort, "high");

      await page.reload();
      await page.waitForFunction(() => document.querySelector('select[name="reasoning_effort"]')?.value === "high").catch(() => assert.fail("the effort was not read back after a reload"));

      // Changed elsewhere (another tab, a script): the header follows.
      const other = await apiCall(page, server, "PATCH", `/api/sessions/${id}`, { reasoning_effort: "low" });
      assert.equal(other.status, 200, JSON.stringify(other.json));
      await page.waitForFunction(() => document.querySelector('select[name="reasoning_effort"]')?.value === "low").catch(() => assert.fail("the header did not follow session_updated"));

      // Default sends null: the model's own.
      const back = page.waitForResponse((r) => r.url().endsWith(`/api/sessions/${id}`) && r.request().method() === "PATCH");
      await select.selectOption("");
      assert.deepEqual((await back).request().postDataJSON(), { reasoning_effort: null });
      assert.equal((await get(page, server, `/api/sessions/${id}`)).reasoning_effort, null);
      await axe(page, "the session header with the reasoning selector");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });
});
