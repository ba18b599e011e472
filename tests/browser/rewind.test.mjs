// Rewind, Regenerate and the plan approval's mode, end to end: the real server with the replay
// provider. "Rewind to here" asks what goes back — the conversation and the files (the default),
// the conversation only or the files only — with the dry run read again for each choice: a
// conversation-only rewind lists no file and leaves every file as it is, a files-only one puts the
// files back and dims no turn; the note says which, and Redo (the button, and /redo) brings each
// back. Regenerate sits on the last finished answer only (never while the run streams): it rewinds
// the conversation only to before the last prompt and sends the same prompt with its image again,
// the old answer dimmed and a new one after it; "with another model…" opens the session's model
// picker first. A plan's review approves keeping the mode, in auto, or (where the start flags
// allow more than edits) in full, and the session then runs in that mode. axe finds nothing on
// the rewind dialog, the answer with Regenerate and the plan card, at desktop and phone width.
// Each test starts its own server; waits are on DOM states, never on timers.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { after, before, describe, test } from "node:test";
import { apiCall, assertClean, haveServer, launchBrowser, newPage, sendPrompt, shot, signInWithToken, startServer } from "./harness.mjs";
import { axe, get, shows } from "./checks.mjs";

const FIRST = "make the first change to notes";
const SECOND = "now the second change";
const FIRST_DONE = "The first version is written.";
const SECOND_DONE = "Changed notes to two and added extra.";
const PICTURE = "describe the picture";
const PICTURE_DONE = "A small red rectangle, nothing else in it.";
const PLAN = "# Add a cache\n\n## Steps\n\n1. Add the cache module.\n2. Wire it in.";

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
  // Streamed slowly: long enough to see that Regenerate is not offered while it runs.
  { match: PICTURE, turns: [{ text: PICTURE_DONE, chunk_chars: 2, delay_ms: 60 }] },
  {
    match: "plan the cache",
    turns: [
      { text: "Here is the plan.", tool_calls: [{ name: "exit_plan", arguments: { title: "Cache", plan: PLAN } }] },
      { text: "The build agent will implement this plan." },
    ],
  },
  { turns: [{ text: "Hello." }] },
];

const PHONE = { width: 390, height: 844 };
const skip = haveServer() ? false : "server binary not built (target/debug/tradewind)";

// ---- A real PNG (what the image test sends) ---------------------------------

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** A PNG of `w`×`h` pixels of one colour (8-bit RGB). */
function png(w, h, rgb) {
  const chunk = (type, data) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  const row = Buffer.from([0, ...Array.from({ length: w }, () => rgb).flat()]);
  const raw = Buffer.concat(Array.from({ length: h }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

const RED = png(3, 2, [200, 30, 30]);

describe("rewind, regenerate, and the mode a plan is approved in", { skip, timeout: 600_000 }, () => {
  let browser;

  before(async () => {
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
  });

  /** A server of its own (notes.txt in the workspace) and a signed-in page on it (CSP bypassed only for axe). */
  async function boot({ args = ["--allow-write"], viewport } = {}) {
    const server = await startServer({ scripts, args, files: { "notes.txt": "original\n" } });
    const first = await newPage(browser, server);
    const state = await signInWithToken(first.page, server);
    await first.context.close();
    const p = await newPage(browser, server, { storageState: state, viewport, bypassCSP: true });
    p.page.setDefaultTimeout(8000);
    await p.page.goto(server.base + "/");
    return { server, p };
  }

  async function finish(server, p) {
    await p?.context.close();
    await server?.stop();
  }

  /** A session made over the API, opened in the page once its header and composer are there. */
  async function openSession(page, server, body) {
    const created = await apiCall(page, server, "POST", "/api/sessions", body);
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const id = created.json.id;
    await page.goto(`${server.base}/s/${id}`);
    await page.locator(".session-view .composer textarea").waitFor();
    await page.locator(".session-header .session-name").waitFor();
    return id;
  }

  /** Send a prompt and wait for its answer, then for nothing at work. */
  async function turn(page, text, reply) {
    await sendPrompt(page, text);
    await page.locator(".transcript .msg-assistant").getByText(reply).waitFor({ timeout: 20_000 });
    await page.locator(".transcript .working").waitFor({ state: "detached", timeout: 20_000 });
  }

  /** The bodies of the page's calls to `re` (a path pattern), in order, without the message id. */
  function calls(page, re) {
    const list = [];
    page.on("request", (r) => {
      const m = re.exec(new URL(r.url()).pathname);
      if (m && r.method() !== "GET") {
        const { message_id, ...rest } = r.postDataJSON() ?? {};
        list.push({ call: m[1], ...rest });
      }
    });
    return list;
  }

  const read = (server, name) => readFileSync(join(server.workspace, name), "utf8");
  const row = (page, selector, text) => page.locator(".transcript .t-row").filter({ has: page.locator(selector, { hasText: text }) });

  test("Rewind to here: conversation only leaves every file, files only dims no turn; Redo and /redo bring each back", { timeout: 150_000 }, async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      await openSession(page, server, { title: "Rewind", mode: "auto", agent: "build" });
      await turn(page, FIRST, FIRST_DONE);
      await turn(page, SECOND, SECOND_DONE);
      assert.equal(read(server, "notes.txt"), "two\n");
      const undo = calls(page, /\/api\/sessions\/[^/]+\/(revert|redo)$/);

      // The dialog offers the choice, both by default, with the dry run's files.
      await row(page, ".msg-user", FIRST).getByRole("button", { name: "Rewind to here" }).click();
      const dialog = page.getByRole("dialog", { name: "Rewind to before this message?" });
      const choice = dialog.getByRole("group", { name: "What goes back" });
      await choice.waitFor();
      assert.equal(await choice.getByRole("radio", { name: "Conversation and files" }).isChecked(), true, "both by default");
      const files = dialog.locator(".revert-changes");
      await shows(files.locator("h3"), "Files that change (2)", "the files a rewind of both changes");
      await page.waitForFunction(() => document.activeElement?.textContent === "Rewind").catch(() => assert.fail("the Rewind button does not have the focus"));

      // Conversation only: the dry run is read again and no file is listed.
      await choice.getByRole("radio", { name: "Conversation only" }).check();
      await shows(dialog.locator("#revert-dialog-desc"), "Every file stays as it is.", "what a conversation-only rewind does");
      await dialog.locator(".revert-files-stay").waitFor();
      assert.equal(await files.count(), 0, "no file is listed");
      assert.equal(await choice.getByRole("radio", { name: "Conversation only" }).evaluate((el) => el === document.activeElement), true, "the focus stays on the choice");
      await axe(page, "the rewind dialog, conversation only");
      await shot(page, "rewind-dialog-conversation");
      await dialog.getByRole("button", { name: "Rewind", exact: true }).click();
      await dialog.waitFor({ state: "detached" });
      const note = page.locator(".transcript .revert-note");
      await shows(note, `Rewound the conversation to before “${FIRST}”; no files changed`, "the conversation-only note");
      const labels = page.locator(".transcript .taken-back-label");
      await labels.nth(1).waitFor();
      assert.equal(read(server, "notes.txt"), "two\n", "notes.txt stays as the agent left it");
      assert.equal(read(server, "extra.txt"), "extra\n", "extra.txt stays");
      assert.deepEqual(undo, [
        { call: "revert", dry_run: true },
        { call: "revert", scope: "conversation", dry_run: true },
        { call: "revert", scope: "conversation", force: false },
      ]);

      // Redo: the turns are back, no file changes.
      await note.getByRole("button", { name: "Redo" }).click();
      const redo = page.getByRole("dialog", { name: "Redo: bring back what the rewind took?" });
      await shows(redo.locator(".revert-changes h3"), "No files change", "what the redo changes");
      await redo.getByRole("button", { name: "Redo", exact: true }).click();
      await redo.waitFor({ state: "detached" });
      await shows(note, "Redone: the turns are back", "the note after the redo");
      await page.locator(".transcript .t-row.taken-back").first().waitFor({ state: "detached" });

      // Files only, at phone width: the files go back, every turn stays as it was.
      await page.setViewportSize(PHONE);
      undo.length = 0;
      await row(page, ".msg-user", SECOND).getByRole("button", { name: "Rewind to here" }).click();
      await choice.getByRole("radio", { name: "Files only" }).check();
      await shows(files.locator("h3"), "Files that change (2)", "the files a files-only rewind changes");
      assert.deepEqual((await files.locator("li").allInnerTexts()).map((t) => t.replace(/\s+/g, " ").trim()).sort(), ["extra.txt deleted", "notes.txt restored"]);
      await shows(dialog.locator("#revert-dialog-desc"), "The conversation stays as it is", "what a files-only rewind does");
      const fits = await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
      assert.equal(fits, true, "the dialog fits the phone");
      await axe(page, "the rewind dialog, files only, at phone width");
      await shot(page, "rewind-dialog-files-phone");
      await dialog.getByRole("button", { name: "Rewind", exact: true }).click();
      await dialog.waitFor({ state: "detached" });
      const active = page.locator('.transcript .revert-note[data-state="active"]');
      await shows(active, `Rewound 2 files to before “${SECOND}”; the conversation stays`, "the files-only note");
      assert.equal(await page.locator(".transcript .t-row.taken-back").count(), 0, "no turn is dimmed");
      assert.equal(read(server, "notes.txt"), "one\n", "notes.txt is back as the first turn left it");
      assert.equal(existsSync(join(server.workspace, "extra.txt")), false, "extra.txt is gone");
      assert.deepEqual(undo, [
        { call: "revert", dry_run: true },
        { call: "revert", scope: "files", dry_run: true },
        { call: "revert", scope: "files", force: false },
      ]);
      await row(page, ".msg-user", SECOND).getByRole("button", { name: "Rewind to here" }).waitFor();

      // A reload reads the same from the events.
      await page.reload();
      await shows(active, `Rewound 2 files to before “${SECOND}”; the conversation stays`, "the files-only note after a reload");
      await shows(note.first(), `Rewound the conversation to before “${FIRST}”`, "the first note after a reload");
      assert.equal(await page.locator(".transcript .t-row.taken-back").count(), 0, "still no turn dimmed");

      // /redo: the files are back.
      const box = page.locator(".composer textarea");
      await box.fill("/redo");
      await box.press("Enter");
      await redo.getByRole("button", { name: "Redo", exact: true }).click();
      await redo.waitFor({ state: "detached" });
      await shows(page.locator('.transcript .revert-note[data-revert-id]').last(), "Redone: 2 files are back", "the note after /redo");
      assert.equal(read(server, "notes.txt"), "two\n");
      assert.equal(read(server, "extra.txt"), "extra\n");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("Regenerate: only on the last finished answer; the same prompt and image again after a conversation-only rewind; with another model… picks one first (phone width)", { timeout: 150_000 }, async () => {
    const { server, p } = await boot({ viewport: PHONE });
    try {
      const { page } = p;
      const id = await openSession(page, server, { title: "Regenerate", mode: "ask", agent: "build" });
      await turn(page, "hello there", "Hello.");
      const regen = page.locator(".transcript").getByRole("button", { name: "Regenerate", exact: true });
      await row(page, ".msg-assistant", "Hello.").getByRole("button", { name: "Regenerate", exact: true }).waitFor();

      // A prompt with an image; while its answer streams nothing offers Regenerate.
      await page.locator('.composer input[type="file"][name="images"]').setInputFiles([{ name: "red.png", mimeType: "image/png", buffer: RED }]);
      await page.locator('.composer li[data-name="red.png"]').waitFor();
      await sendPrompt(page, PICTURE);
      await page.locator(".transcript .msg-assistant.streaming").waitFor({ timeout: 20_000 });
      assert.equal(await regen.count(), 0, "no Regenerate while the run goes on");
      await page.locator(".transcript .working").waitFor({ state: "detached", timeout: 20_000 });
      const answers = page.locator(".transcript .msg-assistant", { hasText: PICTURE_DONE });
      await answers.getByRole("button", { name: "Regenerate", exact: true }).waitFor();
      assert.equal(await regen.count(), 1, "only the last answer offers it");
      await axe(page, "the last answer with Regenerate, at phone width");
      await shot(page, "regenerate-offered-phone");

      const sent = calls(page, /\/api\/sessions\/[^/]+\/(revert|messages)$/);
      await answers.getByRole("button", { name: "Regenerate", exact: true }).click();
      await shows(page.locator(".transcript .revert-note"), `Rewound the conversation to before “${PICTURE}”; no files changed`, "the rewind's note");
      await answers.nth(1).waitFor({ timeout: 20_000 });
      await page.locator(".transcript .working").waitFor({ state: "detached", timeout: 20_000 });
      assert.deepEqual(sent, [
        { call: "revert", scope: "conversation" },
        { call: "messages", text: PICTURE, images: [{ media_type: "image/png", data: RED.toString("base64"), name: "red.png" }] },
      ]);
      const pictureRows = row(page, ".msg-user", PICTURE);
      assert.equal(await pictureRows.count(), 2, "the prompt was sent again");
      assert.equal(await pictureRows.nth(0).evaluate((el) => el.classList.contains("taken-back")), true, "the first prompt is taken back");
      assert.equal(await pictureRows.nth(1).evaluate((el) => el.classList.contains("taken-back")), false, "the new prompt counts");
      await pictureRows.nth(1).locator('button.msg-image').waitFor();
      const answerRows = row(page, ".msg-assistant", PICTURE_DONE);
      assert.equal(await answerRows.nth(0).evaluate((el) => el.classList.contains("taken-back")), true, "the old answer is taken back");
      assert.equal(await answerRows.nth(1).evaluate((el) => el.classList.contains("taken-back")), false, "the new answer counts");
      await answerRows.nth(1).getByRole("button", { name: "Regenerate", exact: true }).waitFor();
      assert.equal(await regen.count(), 1, "Regenerate moved to the new answer");
      const events = (await get(page, server, `/api/sessions/${id}/events?after=0&limit=5000`)).data;
      const reverted = events.filter((e) => e.type === "session_reverted");
      assert.equal(reverted.length, 1);
      assert.deepEqual(reverted[0].files, [], "the files were left alone");
      const prompts = events.filter((e) => e.type === "user_message" && e.text === PICTURE);
      assert.equal(prompts.length, 2);
      assert.equal(prompts[1].images?.[0]?.id, prompts[0].images?.[0]?.id, "the same image went again");

      // With another model…: the picker opens first; once a model is picked, the answer is asked for again.
      sent.length = 0;
      await answerRows.nth(1).getByRole("button", { name: "Regenerate with another model…" }).click();
      const list = page.getByRole("listbox", { name: "Model for this session" });
      await list.waitFor();
      assert.deepEqual(sent, [], "nothing is sent before a model is picked");
      await list.getByRole("group", { name: "default", exact: true }).getByRole("option", { name: "Other model for default…" }).click();
      const field = page.getByLabel("Model name for default");
      await field.fill("second-model");
      await field.press("Enter");
      await list.waitFor({ state: "detached" });
      await page.locator(".session-header .model-button[data-model='default/second-model']").waitFor();
      await answers.nth(2).waitFor({ timeout: 20_000 });
      await page.locator(".transcript .working").waitFor({ state: "detached", timeout: 20_000 });
      assert.deepEqual(sent.map((c) => c.call), ["revert", "messages"]);
      assert.equal((await get(page, server, `/api/sessions/${id}`)).model, "second-model");
      await answerRows.nth(2).getByRole("button", { name: "Regenerate", exact: true }).waitFor();
      assert.equal(await regen.count(), 1);
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  /** A plan session in ask mode with the plan card waiting. */
  async function planWaiting(page, server) {
    const id = await openSession(page, server, { title: "Plan", mode: "ask", agent: "plan" });
    await sendPrompt(page, "please plan the cache");
    const card = page.locator(".plan-card.pending");
    await card.waitFor({ timeout: 15_000 });
    return { id, card };
  }

  test("approving a plan chooses the mode of its implementation: auto-accept edits, or full where the flags allow it", { timeout: 150_000 }, async () => {
    const { server, p } = await boot({ args: ["--allow-write", "--allow-process"] });
    try {
      const { page } = p;
      const decided = calls(page, /\/api\/plans\/[^/]+\/(decision)$/);
      const { id, card } = await planWaiting(page, server);
      await card.getByRole("button", { name: "Approve", exact: true }).waitFor();
      await card.getByRole("button", { name: "Approve in full mode" }).waitFor();
      await axe(page, "the plan card's approvals");
      await shot(page, "plan-approve-modes");
      await card.getByRole("button", { name: "Approve and auto-accept edits" }).click();
      await page.locator(".plan-card .plan-decision").getByText("Approved").waitFor({ timeout: 15_000 });
      assert.deepEqual(decided, [{ call: "decision", decision: "approved", mode: "auto" }]);
      const mode = page.locator('.composer select[name="mode"]');
      await page.waitForFunction(() => document.querySelector('.composer select[name="mode"]')?.value === "auto").catch(() => assert.fail("the session does not show auto"));
      await shows(page.locator(".transcript .run-start"), "build · auto", "the implementation runs in auto");
      assert.equal((await get(page, server, `/api/sessions/${id}`)).mode, "auto");
      assert.equal(await mode.inputValue(), "auto");

      // Full, at phone width.
      await page.setViewportSize(PHONE);
      const second = await planWaiting(page, server);
      await axe(page, "the plan card's approvals at phone width");
      await second.card.getByRole("button", { name: "Approve in full mode" }).click();
      await page.locator(".plan-card .plan-decision").getByText("Approved").waitFor({ timeout: 15_000 });
      assert.deepEqual(decided.at(-1), { call: "decision", decision: "approved", mode: "full" });
      await page.waitForFunction(() => document.querySelector('.composer select[name="mode"]')?.value === "full").catch(() => assert.fail("the session does not show full"));
      assert.equal((await get(page, server, `/api/sessions/${second.id}`)).mode, "full");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("Approve keeps the mode, and full is not offered when the start flags allow only edits", { timeout: 120_000 }, async () => {
    const { server, p } = await boot({ args: ["--allow-write"] });
    try {
      const { page } = p;
      const decided = calls(page, /\/api\/plans\/[^/]+\/(decision)$/);
      const { id, card } = await planWaiting(page, server);
      await card.getByRole("button", { name: "Approve and auto-accept edits" }).waitFor();
      assert.equal(await card.getByRole("button", { name: "Approve in full mode" }).count(), 0, "no full mode above the ceiling");
      await card.getByRole("button", { name: "Approve", exact: true }).click();
      await page.locator(".plan-card .plan-decision").getByText("Approved").waitFor({ timeout: 15_000 });
      assert.deepEqual(decided, [{ call: "decision", decision: "approved" }]);
      await shows(page.locator(".transcript .run-start"), "build · ask", "the implementation runs in ask");
      assert.equal((await get(page, server, `/api/sessions/${id}`)).mode, "ask");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });
});
