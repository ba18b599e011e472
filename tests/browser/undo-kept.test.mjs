// A revert leaves what it did not do: two sessions in one workspace, each in auto mode, with the
// replay provider. Session A's agent writes a.txt, then session B's agent writes b.txt, then the
// user edits hand.txt (there from the start) by hand. A's "Rewind to here" dialog lists a.txt as
// the file that changes, and b.txt ("changed by session “Writer B”") and hand.txt ("changed by
// hand") apart, each with what putting it back would do and a checkbox, unticked. Reverting as it
// is deletes a.txt and leaves b.txt and hand.txt; after a redo, b.txt ticked from the keyboard is
// sent as `include` and deleted too (it did not exist before A's message), hand.txt still left.
// axe finds nothing on the dialog in either theme. Waits are on DOM states, never on timers.
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { assertClean, createSessionViaUi, haveServer, launchBrowser, newPage, sendPrompt, shot, signInWithToken, startServer } from "./harness.mjs";
import { axe, shows } from "./checks.mjs";

const A_PROMPT = "write alpha please";
const B_PROMPT = "write bravo please";
const A_DONE = "Alpha is written.";
const B_DONE = "Bravo is written.";

const scripts = [
  {
    match: "write alpha",
    turns: [{ text: "Writing alpha.", tool_calls: [{ name: "write_file", arguments: { path: "a.txt", content: "alpha\n" } }] }, { text: A_DONE }],
  },
  {
    match: "write bravo",
    turns: [{ text: "Writing bravo.", tool_calls: [{ name: "write_file", arguments: { path: "b.txt", content: "bravo\n" } }] }, { text: B_DONE }],
  },
  { turns: [{ text: "Hello." }] },
];

const skip = haveServer() ? false : "server binary not built (target/debug/tradewind)";

describe("revert: files changed by hand or by another session are listed apart and put back only when ticked", { skip, timeout: 300_000 }, () => {
  let browser;

  before(async () => {
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
  });

  test("two sessions in one workspace: A's revert keeps B's b.txt and the hand edit unless ticked", { timeout: 180_000 }, async () => {
    const server = await startServer({ scripts, args: ["--allow-write"], files: { "hand.txt": "as it was\n" } });
    let p;
    try {
      const first = await newPage(browser, server);
      const state = await signInWithToken(first.page, server);
      await first.context.close();
      // CSP bypassed only so axe can be injected.
      p = await newPage(browser, server, { storageState: state, bypassCSP: true });
      const { page } = p;
      page.setDefaultTimeout(8000);
      await page.goto(server.base + "/");
      const file = (name) => join(server.workspace, name);
      const read = (name) => readFileSync(file(name), "utf8");

      const turn = async (text, reply) => {
        await sendPrompt(page, text);
        await page.locator(".transcript .msg-assistant").getByText(reply).waitFor({ timeout: 20_000 });
        await page.locator(".transcript .working").waitFor({ state: "detached", timeout: 20_000 });
      };

      // A writes a.txt, then B (same workspace) writes b.txt.
      const a = await createSessionViaUi(page, { title: "Writer A", mode: "auto" });
      await turn(A_PROMPT, A_DONE);
      assert.equal(read("a.txt"), "alpha\n");
      await createSessionViaUi(page, { title: "Writer B", mode: "auto" });
      await turn(B_PROMPT, B_DONE);
      assert.equal(read("b.txt"), "bravo\n");

      // The bodies of the page's revert and redo calls, in order, without the message id.
      const calls = [];
      page.on("request", (r) => {
        const m = /\/api\/sessions\/[^/]+\/(revert|redo)$/.exec(new URL(r.url()).pathname);
        if (m && r.method() === "POST") {
          const { message_id, ...rest } = r.postDataJSON();
          calls.push({ call: m[1], ...rest });
        }
      });

      await page.goto(`${server.base}/s/${a}`);
      const userRow = page.locator(".transcript .t-row").filter({ has: page.locator(".msg-user", { hasText: A_PROMPT }) });
      const revertHere = userRow.getByRole("button", { name: "Rewind to here" });
      const dialog = page.getByRole("dialog", { name: "Rewind to before this message?" });
      const changes = dialog.locator(".revert-changes");
      const kept = dialog.getByRole("region", { name: /^Changed elsewhere, left as they are/ });
      const rowText = (loc) => loc.allInnerTexts().then((t) => t.map((s) => s.replace(/\s+/g, " ").trim()).sort());

      // The dry run lists B's file apart. (It also waits for B's last snapshot: the hand edit
      // below comes after it, with no run going.)
      await revertHere.click();
      await shows(kept.locator("h3"), "Changed elsewhere, left as they are (1)", "B's file, apart");
      await dialog.getByRole("button", { name: "Cancel" }).click();
      await dialog.waitFor({ state: "detached" });
      writeFileSync(file("hand.txt"), "edited by hand\n");

      // Asked again: a.txt changes; b.txt and hand.txt are listed apart, unticked.
      await revertHere.click();
      await shows(changes.locator("h3"), "Files that change (1)", "A's own file");
      assert.deepEqual(await rowText(changes.locator("li")), ["a.txt deleted"]);
      await shows(kept.locator("h3"), "Changed elsewhere, left as they are (2)", "the files left");
      assert.deepEqual(await rowText(kept.locator("li")), [
        "b.txt if ticked: deleted · changed by session “Writer B”",
        "hand.txt if ticked: restored · changed by hand",
      ]);
      const tickB = kept.getByRole("checkbox", { name: "b.txt", exact: true });
      const tickHand = kept.getByRole("checkbox", { name: "hand.txt", exact: true });
      assert.equal(await tickB.isChecked(), false, "b.txt is unticked at first");
      assert.equal(await tickHand.isChecked(), false, "hand.txt is unticked at first");
      assert.equal(await tickB.getAttribute("aria-describedby").then((id) => page.locator(`[id="${id}"]`).innerText()).then((t) => t.replace(/\s+/g, " ").trim()), "if ticked: deleted · changed by session “Writer B”", "the checkbox is described by what it does and who changed the file");
      await page.waitForFunction(() => document.activeElement?.textContent === "Rewind").catch(() => assert.fail("the Rewind button does not have the focus"));
      await axe(page, "the revert dialog with files left apart");
      await shot(page, "revert-kept");

      // Reverted as it is: only A's file goes; B's and the hand edit stay.
      await dialog.getByRole("button", { name: "Rewind", exact: true }).click();
      await dialog.waitFor({ state: "detached" });
      const note = page.locator(".transcript .revert-note");
      await shows(note, `Rewound 1 file and the conversation to before “${A_PROMPT}”`, "the revert note");
      assert.equal(existsSync(file("a.txt")), false, "a.txt, A's, is gone");
      assert.equal(read("b.txt"), "bravo\n", "b.txt, B's, is intact");
      assert.equal(read("hand.txt"), "edited by hand\n", "the hand edit is intact");

      // Redo: a.txt is back; nothing changed elsewhere since the revert, so nothing is listed apart.
      await note.getByRole("button", { name: "Redo" }).click();
      const redo = page.getByRole("dialog", { name: "Redo: bring back what the rewind took?" });
      await shows(redo.locator(".revert-changes h3"), "Files that change (1)", "what the redo changes");
      assert.equal(await redo.locator(".revert-kept").count(), 0, "nothing apart on the redo");
      await redo.getByRole("button", { name: "Redo", exact: true }).click();
      await redo.waitFor({ state: "detached" });
      await shows(note, "Redone", "the note after the redo");
      assert.equal(read("a.txt"), "alpha\n");

      // Again, with b.txt ticked from the keyboard: it goes too, the hand edit stays.
      await revertHere.click();
      await shows(kept.locator("h3"), "Changed elsewhere, left as they are (2)", "the files left, again");
      await tickB.focus();
      await page.keyboard.press("Space");
      assert.equal(await tickB.isChecked(), true, "Space ticks b.txt");
      assert.equal(await tickHand.isChecked(), false);
      await dialog.getByRole("button", { name: "Rewind", exact: true }).click();
      await dialog.waitFor({ state: "detached" });
      await shows(page.locator('.transcript .revert-note[data-state="active"]'), `Rewound 2 files and the conversation to before “${A_PROMPT}”`, "the note of the revert with b.txt");
      assert.equal(existsSync(file("a.txt")), false, "a.txt is gone again");
      assert.equal(existsSync(file("b.txt")), false, "b.txt, ticked, is gone: it did not exist before A's message");
      assert.equal(read("hand.txt"), "edited by hand\n", "the hand edit, not ticked, stays");

      assert.deepEqual(
        calls,
        [
          { call: "revert", dry_run: true },
          { call: "revert", dry_run: true },
          { call: "revert", force: false },
          { call: "redo", dry_run: true },
          { call: "redo", force: false },
          { call: "revert", dry_run: true },
          { call: "revert", force: false, include: ["b.txt"] },
        ],
        "include is sent only with the ticked file",
      );
      assertClean(p);
    } finally {
      await p?.context.close();
      await server.stop();
    }
  });
});
