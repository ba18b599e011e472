// A session's review, like a pull request's, end to end: the real server, real Chromium, and a
// tiny OpenAI-compatible model written here that answers review comments by their tags. A git
// repository is the workspace; a session made in the new-session form works in a worktree of its
// own from a branch picked there (its header names the branch). Files changed by `!` commands
// (which run unasked for the signed-in user) show in the review: the file tree with each file's
// and folder's counts and the totals, unified and split (the choice kept), a hunk staged (then
// unstaged) and one reverted (the file on disk changes), a file marked viewed (unmarked when it
// changes again), and three line comments (one line, a range, a removed line) sent together:
// "sent" while the model works, then each with its answer. On a plan agent's plan card, lines
// commented on (picked by their numbers, and by selecting the rendered text) go back with
// "Request changes": "sent", then answered by the next revision, which the revision comparison
// says. Deleting the worktree session with uncommitted work is refused, and the app offers the
// forced delete, which removes the worktree and keeps its branch. Without a worktree, what changed
// after the session's last change to a file is shown apart and a hunk stages into the repository's
// own index; with snapshots off, the review says
// why and offers `git diff HEAD`. A review of 300 files shows its tree whole and the first files
// drawn, the rest following (`npm run bench` prints how long that takes; target ≤ 300 ms). axe finds nothing on the review at desktop and phone width, light
// and dark. Each test owns its server; waits are on DOM states and events, never on timers.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { apiCall, assertClean, haveServer, launchBrowser, newPage, sendPrompt, shot, signInWithToken, startServer } from "./harness.mjs";
import { axe, get, shows } from "./checks.mjs";

const skip = haveServer() ? false : "server binary not built (target/debug/tradewind)";
const PHONE = { width: 390, height: 844 };
const GIT_ID = ["-c", "user.name=T", "-c", "user.email=t@e"];

const A_TXT = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
const PLAN_V1 = ["# Add a cache", "", "## Steps", "", "1. Add the cache module.", "2. Wire it into the handlers.", "3. Test hits and misses."].join("\n");
const PLAN_V2 = `${PLAN_V1}\n4. Document the TTL setting.`;

/** The text of a chat message, whether a string or a list of parts. */
const textOf = (m) => (typeof m?.content === "string" ? m.content : Array.isArray(m?.content) ? m.content.map((p) => p.text ?? "").join("") : "");

/**
 * An OpenAI-compatible model on 127.0.0.1 (`POST /v1/chat/completions`, streamed). The last
 * message's `[c:ID]` tags are review comments: on a plan it proposes the plan again with an answer
 * to each (`exit_plan` with `answers`), on code it replies `[c:ID] Done <n>` to each. A first
 * prompt starting with `PLAN:` gets a plan; anything else "ok". `hold()` keeps the answers to
 * comments back until the function it returns is called.
 */
async function startModel() {
  let gate = null;
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (d) => (raw += d));
    req.on("end", async () => {
      if (req.method === "GET" && req.url === "/v1/models") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ object: "list", data: [{ id: "test" }] }));
        return;
      }
      if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
        return;
      }
      const body = JSON.parse(raw);
      const messages = body.messages ?? [];
      const last = textOf(messages[messages.length - 1]);
      const tags = [...new Set([...last.matchAll(/\[c:([0-9A-Za-z]+)\]/g)].map((m) => m[1]))];
      const firstUser = textOf(messages.find((m) => m.role === "user"));
      if (tags.length > 0 && gate) await gate;
      let tool = null;
      let text = "ok";
      if (tags.length > 0 && /on the plan/.test(last)) {
        tool = ["plan-2", "exit_plan", { title: "Cache", plan: PLAN_V2, answers: tags.map((comment, i) => ({ comment, text: `Done ${i + 1}` })) }];
      } else if (tags.length > 0) {
        text = tags.map((id, i) => `[c:${id}] Done ${i + 1}`).join("\n");
      } else if (firstUser.startsWith("PLAN:") && messages.every((m) => m.role !== "tool")) {
        tool = ["plan-1", "exit_plan", { title: "Cache", plan: PLAN_V1 }];
      }
      const chunk = (delta, finish = null) => `data: ${JSON.stringify({ id: "x", object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      if (tool) {
        const [id, name, args] = tool;
        res.write(chunk({ role: "assistant", tool_calls: [{ index: 0, id, type: "function", function: { name, arguments: "" } }] }));
        res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify(args) } }] }));
        res.write(chunk({}, "tool_calls"));
      } else {
        res.write(chunk({ role: "assistant", content: text }));
        res.write(chunk({}, "stop"));
      }
      res.end("data: [DONE]\n\n");
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${server.address().port}/v1`,
    hold() {
      let release;
      gate = new Promise((r) => (release = r));
      return () => {
        gate = null;
        release();
      };
    },
    close: () => new Promise((r) => server.close(r)),
  };
}

describe("a session's review, like a pull request's", { skip, timeout: 600_000 }, () => {
  let browser;
  let model;

  before(async () => {
    browser = await launchBrowser();
    model = await startModel();
  });

  after(async () => {
    await browser?.close();
    await model?.close();
  });

  /**
   * A server of its own on the model above, whose workspace is a git repository of `files`
   * (committed on `main`, with a branch `feature` one commit ahead); worktrees go to a folder
   * beside the workspace. Returns it with a signed-in page (CSP bypassed only so axe can be
   * injected).
   */
  async function boot(files, { viewport, config = {} } = {}) {
    const root = mkdtempSync(join(tmpdir(), "tw-review-"));
    const worktrees = join(root, "worktrees");
    const server = await startServer({
      root,
      files,
      provider: false,
      args: ["--provider", "openai", "--base-url", model.url, "--model", "test"],
      config: { worktrees: { dir: worktrees }, ...config },
    });
    const git = (...args) => execFileSync("git", args, { cwd: server.workspace, encoding: "utf8" });
    git("init", "-q", "-b", "main");
    git("add", ".");
    git(...GIT_ID, "commit", "-qm", "start");
    git("checkout", "-q", "-b", "feature");
    execFileSync("sh", ["-c", "printf 'on feature\\n' > feature.txt"], { cwd: server.workspace });
    git("add", "feature.txt");
    git(...GIT_ID, "commit", "-qm", "feature");
    git("checkout", "-q", "main");
    const first = await newPage(browser, server);
    const state = await signInWithToken(first.page, server);
    await first.context.close();
    const p = await newPage(browser, server, { storageState: state, viewport, bypassCSP: true });
    p.page.setDefaultTimeout(10_000);
    await p.page.goto(server.base + "/");
    return {
      server,
      p,
      git,
      async stop() {
        await p.context.close();
        await server.stop();
        rmSync(root, { recursive: true, force: true });
      },
    };
  }

  /** Send `text` to the session and wait (long-polling its events) for the run it starts to end. */
  async function run(page, server, id, text) {
    const before = await get(page, server, `/api/sessions/${id}`);
    const sent = await apiCall(page, server, "POST", `/api/sessions/${id}/messages`, { text });
    assert.equal(sent.status, 202, JSON.stringify(sent.json));
    let after = before.last_seq;
    for (;;) {
      const r = await get(page, server, `/api/sessions/${id}/events?after=${after}&limit=5000&wait=30`);
      after = r.next_cursor;
      const end = r.data.find((e) => e.type === "run_finished" && e.run_id === sent.json.run_id);
      if (end) {
        assert.equal(end.status, "completed", `${text}: ${JSON.stringify(end)}`);
        return;
      }
    }
  }

  const review = (page) => page.getByRole("region", { name: "Review" });
  const fileOf = (page, path) => review(page).locator(`.rv-file[data-path="${path}"]`);
  const treeFile = (page, path) => review(page).locator(`.rv-tree-file[data-path="${path}"]`);
  const statOf = async (locator) => (await locator.locator(".diff-stat").first().innerText()).replace(/\s+/g, " ").trim();

  test("a worktree session from the new-session form: the review's tree, layouts, stage, revert, viewed, three comments sent and answered; the forced delete", { timeout: 240_000 }, async () => {
    const env = await boot({ "a.txt": A_TXT, "src/b.txt": "alpha\nbeta\ngamma\n", "old.txt": "bye\n", "src/keep.txt": "same\n" });
    const { server, p, git } = env;
    const { page } = p;
    try {
      // The form offers a worktree once the folder is known to be in a repository, with its branches.
      await page.getByRole("button", { name: "+ New" }).click();
      const form = page.locator("form.new-session");
      await form.locator('input[name="workspace"]').fill(server.workspace);
      const check = form.getByRole("checkbox", { name: "Work in its own worktree" });
      await check.check();
      const base = form.getByRole("combobox", { name: "Base branch" });
      assert.equal(await base.inputValue(), "main", "the main checkout's branch by default");
      assert.deepEqual((await base.locator("option").allInnerTexts()).sort(), ["feature", "main (current)"]);
      await base.selectOption("feature");
      await form.locator('input[name="title"]').fill("Worktree review");
      await form.getByRole("button", { name: "Create session" }).click();
      await page.waitForURL(/\/s\/[^/]+$/);
      const id = decodeURIComponent(new URL(page.url()).pathname.split("/").pop());
      const session = await get(page, server, `/api/sessions/${id}`);
      assert.equal(session.worktree?.base, "feature", JSON.stringify(session));
      const wt = session.worktree;
      assert.ok(wt.branch.startsWith("tw/") && !wt.dir.startsWith(server.workspace), JSON.stringify(wt));
      await shows(page.locator(".session-header .chip-branch"), wt.branch, "the header's branch chip");

      // Changes by commands: a.txt committed with two hunks; the rest not committed.
      await run(page, server, id, `!sed -i -e 's/^line 2$/LINE 2/' -e 's/^line 18$/LINE 18/' a.txt && git add a.txt && git ${GIT_ID.join(" ")} commit -qm x`);
      await run(page, server, id, "!printf 'alpha\\nBETA\\ngamma\\ndelta\\n' > src/b.txt && printf 'fresh\\n' > src/new.txt && rm old.txt");

      // The review: every file in the tree with its counts, the folders' and the totals.
      await page.locator(".session-header").getByRole("link", { name: "Review" }).click();
      await page.waitForURL(`${server.base}/s/${id}/review`);
      await fileOf(page, "a.txt").waitFor();
      await shows(review(page).locator(".rv-branch"), `Branch ${wt.branch} from feature`, "the worktree's branch and base");
      assert.deepEqual(
        await review(page).locator(".rv-files > .rv-file").evaluateAll((els) => els.map((e) => e.dataset.path)),
        ["src/b.txt", "src/new.txt", "a.txt", "old.txt"],
        "folders first, then by name (feature.txt is in the base, not a change)",
      );
      for (const [path, stat] of [["a.txt", "+2 −2"], ["src/b.txt", "+2 −1"], ["src/new.txt", "+1 −0"], ["old.txt", "+0 −1"]]) {
        assert.equal(await statOf(treeFile(page, path)), stat, `${path}'s counts in the tree`);
        assert.equal(await statOf(fileOf(page, path).locator(".rv-file-head")), stat, `${path}'s counts on its header`);
      }
      assert.equal(await statOf(review(page).locator('.rv-tree-folder[data-path="src"]')), "+3 −1", "the folder's counts");
      await shows(review(page).locator(".rv-totals"), /4 files,\s*\+5\s*−4/, "the totals");
      await shows(fileOf(page, "src/new.txt").locator(".badge-new"), "new file", "the added file");
      await shows(fileOf(page, "old.txt").locator(".badge-del"), "deleted", "the deleted file");
      assert.equal(await fileOf(page, "a.txt").locator("tbody").count(), 2, "a.txt's two hunks");

      // Split and unified; the choice is kept.
      await review(page).getByRole("button", { name: "Split" }).click();
      await fileOf(page, "a.txt").locator("table.diff-split").waitFor();
      await page.reload();
      await fileOf(page, "a.txt").locator("table.diff-split").waitFor();
      assert.equal(await review(page).getByRole("button", { name: "Split" }).getAttribute("aria-pressed"), "true");
      await shot(page, "review-split");
      await review(page).getByRole("button", { name: "Unified" }).click();
      await fileOf(page, "a.txt").locator("table.diff-unified").waitFor();

      // Stage a hunk: marked staged; unstaged again.
      const bHunk = fileOf(page, "src/b.txt").locator("tbody").first();
      await bHunk.getByRole("button", { name: "Stage" }).click();
      await fileOf(page, "src/b.txt").locator('tbody[data-staged="true"] .badge-staged').waitFor();
      assert.match(execFileSync("git", ["diff", "--cached", "--name-only"], { cwd: wt.dir, encoding: "utf8" }), /src\/b\.txt/);
      await bHunk.getByRole("button", { name: "Unstage" }).click();
      await fileOf(page, "src/b.txt").locator("tbody .badge-staged").waitFor({ state: "detached" });

      // Revert a hunk (asked first): the file on disk has its line back, the review one hunk less.
      await fileOf(page, "a.txt").locator('tbody[data-header^="@@ -15"]').getByRole("button", { name: "Revert" }).click();
      await page.getByRole("alertdialog", { name: "Revert this change to a.txt?" }).getByRole("button", { name: "Revert", exact: true }).click();
      await page.waitForFunction(() => document.querySelectorAll('.rv-file[data-path="a.txt"] tbody').length === 1);
      const aNow = readFileSync(join(wt.dir, "a.txt"), "utf8");
      assert.ok(aNow.includes("LINE 2\n") && aNow.includes("\nline 18\n"), aNow);
      assert.equal(await statOf(treeFile(page, "a.txt")), "+1 −1", "a.txt's counts after the revert");

      // Viewed: the file folds, the tree marks it, a reload keeps it; a change unmarks it.
      const fresh = fileOf(page, "src/new.txt");
      await fresh.getByRole("checkbox", { name: "Viewed" }).check();
      await fresh.locator('.rv-file-toggle[aria-expanded="false"]').waitFor();
      await treeFile(page, "src/new.txt").locator(".rv-tree-viewed").waitFor();
      await page.reload();
      await fileOf(page, "src/new.txt").locator('.rv-file-toggle[aria-expanded="false"]').waitFor();
      assert.equal(await fileOf(page, "src/new.txt").getByRole("checkbox", { name: "Viewed" }).isChecked(), true);
      await run(page, server, id, "!printf 'fresher\\n' > src/new.txt");
      await fileOf(page, "src/new.txt").locator('.rv-file-toggle[aria-expanded="true"]').waitFor();
      assert.equal(await fileOf(page, "src/new.txt").getByRole("checkbox", { name: "Viewed" }).isChecked(), false, "changed: no longer viewed");

      // Three comments: a line, a range (Shift-click), a removed line.
      const comment = async (file, first, last, body) => {
        await fileOf(page, file).getByRole("button", { name: first, exact: true }).click();
        if (last) await fileOf(page, file).getByRole("button", { name: last, exact: true }).click({ modifiers: ["Shift"] });
        const box = fileOf(page, file).locator(".comment-new textarea");
        await box.fill(body);
        await fileOf(page, file).locator(".comment-new").getByRole("button", { name: "Comment", exact: true }).click();
        await fileOf(page, file).locator(".comment[data-status=draft]").filter({ hasText: body }).waitFor();
      };
      await comment("a.txt", "Comment on line 2", null, "Why upper case?");
      await comment("src/b.txt", "Comment on line 2", "Comment on line 4", "Explain these lines.");
      await comment("src/b.txt", "Comment on removed line 2", null, "Keep beta.");
      await shows(fileOf(page, "src/b.txt").locator('.comment:has-text("Explain these lines.")'), "lines 2–4", "the range's lines");
      await shows(treeFile(page, "src/b.txt").locator(".rv-tree-comments"), "2", "the tree's count of open comments");
      const send = review(page).getByRole("button", { name: "Send comments (3)" });
      await send.waitFor();
      await axe(page, "the review with draft comments");
      await shot(page, "review-drafts");

      // Sent while the model works, then each answered under it.
      const release = model.hold();
      await send.click();
      await page.waitForFunction(() => document.querySelectorAll('.review .comment[data-status="sent"]').length === 3);
      await review(page).getByRole("button", { name: "Send comments (0)" }).waitFor();
      release();
      await page.waitForFunction(() => document.querySelectorAll('.review .comment[data-status="answered"]').length === 3, null, { timeout: 20_000 });
      const answers = await review(page).locator(".comment .comment-answer p").allInnerTexts();
      assert.deepEqual(answers.map((a) => a.trim()).sort(), ["Done 1", "Done 2", "Done 3"]);
      // Resolve one, and open it again.
      const first = fileOf(page, "a.txt").locator(".comment").first();
      await first.getByRole("button", { name: "Resolve" }).click();
      await fileOf(page, "a.txt").locator('.comment[data-status="resolved"]').waitFor();
      await first.getByRole("button", { name: "Reopen" }).click();
      await fileOf(page, "a.txt").locator('.comment[data-status="resolved"]').waitFor({ state: "detached" });
      await axe(page, "the review with answered comments");
      await page.setViewportSize(PHONE);
      await review(page).getByRole("button", { name: "Files (4)" }).waitFor();
      await axe(page, "the review at phone width");
      await shot(page, "review-phone");
      await page.setViewportSize({ width: 1280, height: 860 });

      // Deleting it with uncommitted work: refused, then deleted anyway; the branch is kept.
      await page.locator(".session-header").getByRole("button", { name: "Delete" }).click();
      const ask = page.getByRole("alertdialog", { name: "Delete the session “Worktree review”?" });
      await shows(ask, `its branch ${wt.branch} is kept`, "the delete dialog names the branch kept");
      await shows(ask, wt.dir, "the delete dialog names the worktree folder");
      await ask.getByRole("button", { name: "Delete", exact: true }).click();
      const anyway = page.getByRole("alertdialog", { name: "Its worktree has uncommitted changes" });
      await shows(anyway, "uncommitted change", "the server's reason");
      await anyway.getByRole("button", { name: "Delete anyway (discard uncommitted changes)" }).click();
      await page.waitForURL(`${server.base}/`);
      assert.equal((await apiCall(page, server, "GET", `/api/sessions/${id}`)).status, 404);
      assert.equal(existsSync(wt.dir), false, "the worktree folder is gone");
      assert.match(git("branch", "--list", wt.branch), new RegExp(wt.branch.replace("/", "\\/")), "the branch is kept");
      assertClean(p);
    } finally {
      await env.stop();
    }
  });

  test("plan comments: lines picked and text selected on the plan card, Request changes, sent, answered by the next revision", { timeout: 120_000 }, async () => {
    const env = await boot({ "README.md": "cache\n" });
    const { server, p } = env;
    const { page } = p;
    try {
      const created = await apiCall(page, server, "POST", "/api/sessions", { title: "Plan review", agent: "plan" });
      assert.equal(created.status, 201, JSON.stringify(created.json));
      const id = created.json.id;
      await page.goto(`${server.base}/s/${id}`);
      await sendPrompt(page, "PLAN: a response cache");
      const card = page.locator(".plan-card.pending").first();
      await card.waitFor({ timeout: 20_000 });

      // Lines picked by their numbers (Shift-click extends).
      await card.getByRole("button", { name: "Comment on lines" }).click();
      await card.getByRole("button", { name: "Comment on line 5", exact: true }).click();
      await card.getByRole("button", { name: "Comment on line 6", exact: true }).click({ modifiers: ["Shift"] });
      await card.getByRole("textbox", { name: "Comment on lines 5–6 of the plan" }).fill("Say where the module goes.");
      await card.getByRole("button", { name: "Comment", exact: true }).click();
      await card.locator(".comment[data-status=draft]").filter({ hasText: "Say where the module goes." }).waitFor();

      // Text selected in the rendered plan: "Comment on line 7".
      await card.getByRole("button", { name: "Comment on lines" }).click();
      await card.locator(".plan-markdown li").filter({ hasText: "Test hits and misses." }).evaluate((li) => {
        const range = document.createRange();
        range.selectNodeContents(li);
        const sel = window.getSelection();
        sel.removeAllRanges();
        sel.addRange(range);
        li.dispatchEvent(new MouseEvent("mouseup", { bubbles: true }));
      });
      await card.getByRole("button", { name: "Comment on line 7" }).click();
      await card.getByRole("textbox", { name: "Comment on line 7 of the plan" }).fill("Test expiry too.");
      await card.getByRole("button", { name: "Comment", exact: true }).click();
      await card.locator(".comment[data-status=draft]").filter({ hasText: "Test expiry too." }).waitFor();
      await axe(page, "a plan card with comments on its lines");

      // Request changes: sent while the model works; the next revision answers each.
      const release = model.hold();
      await card.getByRole("button", { name: "Request changes (2)" }).click();
      const first = page.locator(".plan-card").first();
      await page.waitForFunction(() => document.querySelectorAll('.plan-card .comment[data-status="sent"]').length === 2);
      release();
      await page.locator(".plan-card.pending[data-revision='2']").waitFor({ timeout: 20_000 });
      await page.waitForFunction(() => document.querySelectorAll('.plan-card .comment[data-status="answered"]').length === 2, null, { timeout: 20_000 });
      assert.deepEqual((await first.locator(".comment .comment-answer p").allInnerTexts()).map((t) => t.trim()), ["Done 1", "Done 2"]);
      // The revision comparison says which comments revision 2 answered.
      const second = page.locator(".plan-card.pending[data-revision='2']");
      await second.getByRole("button", { name: "Compare revisions (2)" }).click();
      await shows(second.locator(".plan-answered"), "Revision 2 answered 2 comments", "the comparison's answers");
      await shows(second.locator(".plan-answered li").first(), "Done 1", "the answer to the first comment");
      await shot(page, "plan-comments-answered");
      assertClean(p);
    } finally {
      await env.stop();
    }
  });

  test("without a worktree: what changed after the session's change is apart; with snapshots off, git diff HEAD is offered", { timeout: 120_000 }, async () => {
    const env = await boot({ "notes.txt": "one\ntwo\nthree\n" });
    const off = await boot({ "notes.txt": "one\n" }, { config: { undo: false } });
    try {
      const { server, p } = env;
      const { page } = p;
      const created = await apiCall(page, server, "POST", "/api/sessions", { title: "Snapshots" });
      assert.equal(created.status, 201, JSON.stringify(created.json));
      const id = created.json.id;
      await page.goto(`${server.base}/s/${id}`);
      await run(page, server, id, "!sed -i 's/^one$/ONE/' notes.txt");
      // A hand edit after the session's.
      execFileSync("sed", ["-i", "s/^three$/THREE/", join(server.workspace, "notes.txt")]);
      await page.goto(`${server.base}/s/${id}/review`);
      const notes = fileOf(page, "notes.txt");
      await notes.locator("tbody").first().waitFor();
      assert.equal(await review(page).getAttribute("data-base"), "snapshots");
      await shows(notes.locator("tbody").first().locator(".dl-add"), "ONE", "the session's change");
      const outside = notes.getByRole("region", { name: "Changed outside this session: notes.txt" });
      await shows(outside.locator(".dl-add"), "THREE", "the hand edit, apart");
      // In a git repository the session's hunk stages into the repository's own index.
      await notes.locator("tbody").first().getByRole("button", { name: "Stage" }).click();
      await notes.locator('tbody[data-staged="true"] .badge-staged').waitFor();
      assert.equal(execFileSync("git", ["diff", "--cached", "--name-only"], { cwd: server.workspace, encoding: "utf8" }).trim(), "notes.txt");
      assert.equal(await outside.getByRole("button", { name: "Revert" }).count(), 0, "what changed outside is not the session's to revert");
      await axe(page, "a review with a change made outside the session");

      const q = off.p.page;
      const made = await apiCall(q, off.server, "POST", "/api/sessions", { title: "No snapshots" });
      const offId = made.json.id;
      await q.goto(`${off.server.base}/s/${offId}/review`);
      const none = review(q).locator(".rv-no-base");
      await none.waitFor();
      assert.equal(await review(q).getAttribute("data-base"), "none");
      assert.ok((await none.innerText()).trim().length > "Show git diff HEAD".length, "the reason there is no base");
      await none.getByRole("button", { name: "Show git diff HEAD" }).click();
      await q.waitForURL(`${off.server.base}/s/${offId}`);
      await shows(q.locator(".transcript .msg-user"), "!git diff HEAD", "the command sent to the session");
      assertClean(p);
      assertClean(off.p);
    } finally {
      await env.stop();
      await off.stop();
    }
  });

  test("a review of 300 files: the tree whole, the first file drawn, the rest following, and any file opens from the tree", { timeout: 120_000 }, async () => {
    const files = {};
    for (let i = 0; i < 300; i++) files[`d${i % 10}/f${i}.txt`] = Array.from({ length: 30 }, (_, k) => `row ${k}`).join("\n") + "\n";
    const env = await boot(files);
    const { server, p } = env;
    const { page } = p;
    try {
      const created = await apiCall(page, server, "POST", "/api/sessions", { title: "Big review", worktree: true });
      assert.equal(created.status, 201, JSON.stringify(created.json));
      const id = created.json.id;
      await page.goto(`${server.base}/s/${id}`);
      await run(page, server, id, "!sed -i -e 's/^row 3$/ROW 3/' -e 's/^row 25$/ROW 25/' d*/f*.txt");
      // When the tree lists the 300 files, the first file's diff is there, and the frame that
      // shows them is painted: the review answers the user from then on.
      await page.evaluate(() => {
        window.__drawn = null;
        const watch = new MutationObserver(() => {
          if (document.querySelectorAll(".rv-tree-file").length < 300 || !document.querySelector(".rv-file tbody")) return;
          watch.disconnect();
          requestAnimationFrame(() => setTimeout(() => (window.__drawn = performance.now())));
        });
        watch.observe(document.body, { childList: true, subtree: true });
      });
      await page.locator(".session-header").getByRole("link", { name: "Review" }).click();
      await page.waitForFunction(() => window.__drawn !== null, null, { timeout: 20_000 });
      const ms = await page.evaluate(() => {
        const answer = performance.getEntriesByType("resource").filter((e) => /\/review$/.test(e.name)).pop();
        return { answered: answer?.responseEnd ?? null, drawn: window.__drawn };
      });
      assert.ok(ms.answered !== null && ms.drawn !== null, JSON.stringify(ms));
      // A figure, not a bound (speed targets live in the benchmarks: `npm run bench` prints it
      // with the target, ≤ 300 ms).
      const took = ms.drawn - ms.answered;
      if (process.env.TW_BENCH) console.log(`bench: 300-file review drawn ${Math.round(took)} ms after its answer (target ≤ 300 ms)`);
      // The other files follow, a chunk a frame.
      await page.waitForFunction(() => document.querySelectorAll(".rv-files > .rv-file").length === 300);
      await shows(review(page).locator(".rv-totals"), /300 files,\s*\+600\s*−600/, "the totals");
      // The last file, from the tree: opened and drawn.
      await treeFile(page, "d9/f99.txt").click();
      await fileOf(page, "d9/f99.txt").locator("tbody").first().waitFor();
      assert.equal(await fileOf(page, "d9/f99.txt").locator(".rv-file-toggle").evaluate((el) => el === document.activeElement), true);
      assertClean(p);
    } finally {
      await env.stop();
    }
  });
});
