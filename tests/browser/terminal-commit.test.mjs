// The session's terminal panel (xterm.js over the app's WebSocket: a shell in the session's jail,
// resized with its box, attached again after a reload with its output replayed, never reading
// the user's SSH keys, with a key row at phone width) and the commit panel (commit all tracked
// changes, the agent's draft of the message, push to a repository on disk, a force push only
// with the branch's name typed). Without --allow-terminal there is no Terminal button.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { axe, shows } from "./checks.mjs";
import { apiCall, haveServer, launchBrowser, newPage, shot, signInWithToken, startServer } from "./harness.mjs";

const skip = haveServer() ? false : "server binary not built (target/debug/tradewind)";
const KEY = "PLANTED-BROWSER-KEY-9c2d";

/** A HOME for the server with a planted SSH key and a git identity. */
function userHome() {
  const home = mkdtempSync(join(tmpdir(), "tw-term-home-"));
  mkdirSync(join(home, ".ssh"), { mode: 0o700 });
  writeFileSync(join(home, ".ssh", "id_rsa"), `-----BEGIN OPENSSH PRIVATE KEY-----\n${KEY}\n-----END OPENSSH PRIVATE KEY-----\n`, { mode: 0o600 });
  writeFileSync(join(home, ".gitconfig"), "[user]\n\tname = Terminal Tester\n\temail = tester@example.test\n[init]\n\tdefaultBranch = main\n");
  return home;
}

/** The text on the shown terminal's screen (xterm's DOM rows). */
const screen = (page) => page.locator(".terminal-panel .term-screen.active .xterm-rows");

/** Type a line into the shown terminal and press Enter. */
async function typeLine(page, text) {
  await page.locator(".terminal-panel .term-screen.active .xterm-helper-textarea").focus();
  await page.keyboard.type(text);
  await page.keyboard.press("Enter");
}

async function openSession(p, server, title) {
  await p.page.goto(server.base + "/");
  const created = await apiCall(p.page, server, "POST", "/api/sessions", { title });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  await p.page.goto(`${server.base}/s/${created.json.id}`);
  await p.page.locator(".session-view .composer textarea").waitFor();
  return created.json.id;
}

describe("terminal panel", { skip, timeout: 300_000 }, () => {
  let server;
  let browser;
  let state;
  let home;

  before(async () => {
    home = userHome();
    server = await startServer({ scripts: [{ turns: [{ text: "Hello from replay" }] }], args: ["--allow-terminal"], env: { HOME: home } });
    browser = await launchBrowser();
    const p = await newPage(browser, server);
    state = await signInWithToken(p.page, server);
    await p.context.close();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  test("a shell in the jail: echo, resize, share into the prompt, no SSH key, output replayed after a reload, no CSP violation", async () => {
    const p = await newPage(browser, server, { storageState: state });
    const { page } = p;
    await openSession(p, server, "Terminal");
    const before = new Set(p.log.requests.filter((u) => /xterm/.test(u)));
    assert.equal(before.size, 0, "xterm.js is not loaded before a terminal opens");
    await page.getByRole("button", { name: "Terminal", exact: true }).click();
    const panel = page.locator(".terminal-panel");
    await panel.getByText("it sees only what the agent's commands see").waitFor();
    await panel.locator('.term-screen.active[data-status="open"]').waitFor({ timeout: 20_000 });
    assert.ok(p.log.requests.some((u) => /\/assets\/xterm-.*\.js$/.test(u)), "xterm.js came in its own chunk");
    // xterm took the focus: what is typed goes to the shell.
    assert.equal(await page.evaluate(() => document.activeElement?.classList.contains("xterm-helper-textarea")), true);

    await typeLine(page, "echo hi-$((6*7))");
    await shows(screen(page), "hi-42", "the shell's answer");

    // The terminal follows its box: a narrower window, fewer columns, and the shell knows it.
    const shell = panel.locator(".term-screen.active");
    const cols = Number(await shell.getAttribute("data-cols"));
    await page.setViewportSize({ width: 900, height: 700 });
    await page.waitForFunction((c) => Number(document.querySelector(".term-screen.active")?.getAttribute("data-cols")) < c, cols);
    const size = `${await shell.getAttribute("data-rows")} ${await shell.getAttribute("data-cols")}`;
    await typeLine(page, "stty size");
    await shows(screen(page), size, "stty size after the resize");

    // The user's keys are not in the jail, by ~ or by their real path.
    await typeLine(page, "cat ~/.ssh/id_rsa; echo cat-done-$?");
    await shows(screen(page), /cat-done-[1-9]/, "cat of the key fails");
    await typeLine(page, `cat ${join(home, ".ssh", "id_rsa")}; echo abs-done-$?`);
    await shows(screen(page), /abs-done-[1-9]/, "cat of the key's real path fails");
    assert.ok(!(await screen(page).innerText()).includes(KEY), "the planted key never shows");

    // Share into prompt: the visible screen as a fenced block in the composer, nothing sent.
    await panel.getByRole("button", { name: "Share into prompt" }).click();
    const prompt = page.locator(".composer textarea");
    await page.waitForFunction(() => document.querySelector(".composer textarea")?.value.includes("hi-42"));
    const shared = await prompt.inputValue();
    assert.match(shared, /^```console\n[\s\S]*hi-42[\s\S]*\n```$/);
    assert.equal(await prompt.evaluate((el) => el === document.activeElement), true, "the prompt has the focus");
    await prompt.fill("");
    await shot(page, "terminal-desktop");

    // A reload within 10 s attaches again: the old output is replayed.
    await page.reload();
    await page.locator('.terminal-panel .term-screen.active[data-status="open"]').waitFor({ timeout: 20_000 });
    await shows(screen(page), "hi-42", "the replayed output");
    await typeLine(page, "echo again-$((2+3))");
    await shows(screen(page), "again-5", "the same shell after the reload");
    assert.equal(await page.locator(".terminal-panel .term-tab").count(), 1, "one terminal, attached again");

    assert.deepEqual(await page.evaluate(() => window.__cspViolations), [], "no CSP violation");
    assert.deepEqual(p.log.errors, []);
    await p.context.close();
  });

  test("tabs: + opens another shell, × ends it; the shell's exit shows", async () => {
    const p = await newPage(browser, server, { storageState: state });
    const { page } = p;
    await openSession(p, server, "Tabs");
    await page.getByRole("button", { name: "Terminal", exact: true }).click();
    const panel = page.locator(".terminal-panel");
    await panel.locator('.term-screen.active[data-status="open"]').waitFor({ timeout: 20_000 });
    await panel.getByRole("button", { name: "Open another terminal" }).click();
    await panel.locator(".term-tab").nth(1).waitFor();
    await panel.locator('.term-screen.active[data-status="open"]').waitFor({ timeout: 20_000 });
    assert.equal(await panel.getByRole("button", { name: "Shell 2", exact: true }).getAttribute("aria-current"), "true");
    await typeLine(page, "exit 3");
    await shows(panel.locator(".term-status"), "exit code 3", "the shell's exit");
    // Tab completes in the shell; Shift+Tab leaves the terminal.
    await page.locator(".terminal-panel .term-screen.active .xterm-helper-textarea").focus();
    await page.keyboard.press("Shift+Tab");
    assert.equal(await page.evaluate(() => document.activeElement?.classList.contains("xterm-helper-textarea")), false, "Shift+Tab left the terminal");
    await panel.getByRole("button", { name: "Close shell 2" }).click();
    assert.equal(await panel.locator(".term-tab").count(), 1);
    assert.equal(await panel.getByRole("button", { name: "Shell 1", exact: true }).getAttribute("aria-current"), "true");
    assert.deepEqual(p.log.errors, []);
    await p.context.close();
  });

  test("phone width: the key row types Esc, a sticky Ctrl, Tab and arrows", async () => {
    const p = await newPage(browser, server, { storageState: state, viewport: { width: 390, height: 844 } });
    const { page } = p;
    await openSession(p, server, "Phone terminal");
    await page.locator(".session-header").getByRole("button", { name: "Terminal", exact: true }).click();
    const panel = page.locator(".terminal-panel");
    await panel.locator('.term-screen.active[data-status="open"]').waitFor({ timeout: 20_000 });
    const keys = panel.getByRole("group", { name: "Terminal keys" });
    await keys.waitFor();
    // ← moves the cursor: "X" lands between 1 and 2.
    await page.locator(".terminal-panel .term-screen.active .xterm-helper-textarea").focus();
    await page.keyboard.type("echo 1-2");
    await keys.getByRole("button", { name: "Left arrow" }).click();
    await page.keyboard.type("X");
    await page.keyboard.press("Enter");
    await shows(screen(page), "1-X2", "the left arrow moved the cursor");
    // Ctrl then u: the line typed so far is erased (Ctrl+U), so only the rest runs.
    await page.keyboard.type("echo gone");
    await keys.getByRole("button", { name: "Ctrl" }).click();
    assert.equal(await keys.getByRole("button", { name: "Ctrl" }).getAttribute("aria-pressed"), "true");
    await page.keyboard.type("u");
    assert.equal(await keys.getByRole("button", { name: "Ctrl" }).getAttribute("aria-pressed"), "false", "Ctrl applies to one key");
    await page.keyboard.type("echo kept-$((3*3))");
    await page.keyboard.press("Enter");
    await shows(screen(page), "kept-9", "the line after Ctrl+U");
    assert.ok(!(await screen(page).innerText()).includes("goneecho"), "Ctrl+U erased the line");
    // The panel fits the phone's width.
    const box = await panel.boundingBox();
    assert.ok(box && box.width <= 390, `the panel fits (${box?.width})`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.equal(overflow, 0, "no sideways scroll");
    await shot(page, "terminal-phone");
    assert.deepEqual(p.log.errors, []);
    await p.context.close();
  });

  test("the terminal panel passes axe in both themes", async () => {
    const p = await newPage(browser, server, { storageState: state, bypassCSP: true });
    const { page } = p;
    await openSession(p, server, "Axe terminal");
    await page.getByRole("button", { name: "Terminal", exact: true }).click();
    await page.locator('.terminal-panel .term-screen.active[data-status="open"]').waitFor({ timeout: 20_000 });
    await typeLine(page, "echo axe-ok");
    await shows(screen(page), "axe-ok", "output");
    await axe(page, "the terminal panel");
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator(".term-keys").waitFor();
    await axe(page, "the terminal panel at phone width");
    await p.context.close();
  });
});

describe("commit panel", { skip, timeout: 300_000 }, () => {
  let server;
  let browser;
  let state;
  let home;
  let bare;
  const git = (args, cwd) => execFileSync("git", args, { cwd, env: { ...process.env, HOME: home }, encoding: "utf8" }).trim();

  before(async () => {
    home = userHome();
    server = await startServer({
      scripts: [
        { match: "Write a commit message", turns: [{ text: "```\nAdd x to a.txt\n```" }] },
        { turns: [{ text: "Hello from replay" }] },
      ],
      env: { HOME: home },
    });
    const ws = server.workspace;
    writeFileSync(join(ws, "a.txt"), "a\n");
    git(["init", "-q", "-b", "main"], ws);
    git(["add", "a.txt"], ws);
    git(["commit", "-q", "-m", "Initial"], ws);
    bare = join(server.dir, "origin.git");
    git(["init", "-q", "--bare", "-b", "main", bare], server.dir);
    git(["remote", "add", "origin", bare], ws);
    git(["push", "-q", "-u", "origin", "main"], ws);
    browser = await launchBrowser();
    const p = await newPage(browser, server);
    state = await signInWithToken(p.page, server);
    await p.context.close();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  test("commit all tracked changes with the agent's draft, push, force push only with the branch typed", async () => {
    const p = await newPage(browser, server, { storageState: state });
    const { page } = p;
    const id = await openSession(p, server, "Commit");
    // No terminal without --allow-terminal.
    await page.locator(".session-header").getByRole("button", { name: "Commit", exact: true }).waitFor();
    assert.equal(await page.locator(".session-header").getByRole("button", { name: "Terminal", exact: true }).count(), 0);

    // The user's own !command changes a file.
    const sent = await apiCall(page, server, "POST", `/api/sessions/${id}/messages`, { text: "!echo x >> a.txt" });
    assert.ok(sent.status < 300, JSON.stringify(sent.json));
    await page.locator('.transcript .terminal[data-exit-code="0"]').waitFor({ timeout: 20_000 });

    await page.locator(".session-header").getByRole("button", { name: "Commit", exact: true }).click();
    const panel = page.locator(".commit-panel");
    await panel.locator(".git-head-subject").getByText("Initial").waitFor();
    await shows(panel.locator(".git-file-group"), "a.txt", "the changed file");
    assert.equal(await panel.getByRole("heading", { name: "Commit" }).evaluate((el) => el === document.activeElement), true, "the panel's heading has the focus");
    await panel.getByText("As Terminal Tester <tester@example.test>").waitFor();
    assert.equal(await panel.getByRole("button", { name: "Commit staged" }).isDisabled(), true, "nothing staged");

    // The agent drafts the message: its answer (fence dropped) fills the box.
    await panel.getByRole("button", { name: "Ask the agent to draft" }).click();
    const box = panel.getByLabel("Commit message");
    await page.waitForFunction(() => document.querySelector('.commit-panel textarea[name="commit-message"]')?.value === "Add x to a.txt", null, { timeout: 20_000 });
    await page.locator(".transcript").getByText("Write a commit message for the changes in this session.").first().waitFor();
    await box.fill("Add x to a.txt");
    await panel.getByRole("button", { name: "Commit all tracked changes" }).click();
    await panel.locator(".git-head-subject").getByText("Add x to a.txt").waitFor({ timeout: 15_000 });
    await panel.locator(".git-output").getByText("Committed.").waitFor();
    assert.equal(git(["log", "-1", "--format=%s|%an"], server.workspace), "Add x to a.txt|Terminal Tester");
    await shot(page, "commit-panel");

    // Push (with the user's keys, says the panel) to the repository on disk.
    await panel.getByText("Pushing uses your SSH keys").waitFor();
    await panel.getByRole("button", { name: "Push main to origin" }).click();
    await panel.locator(".git-output").getByText("Pushed.").waitFor({ timeout: 15_000 });
    assert.equal(git(["rev-parse", "main"], bare), git(["rev-parse", "HEAD"], server.workspace));

    // Amend: the remote's branch is now behind a rewritten history; a plain push is refused.
    await panel.getByLabel("Amend the last commit").check();
    await box.fill("Add x to a.txt, amended");
    await panel.getByRole("button", { name: "Amend with staged" }).click();
    await panel.locator(".git-head-subject").getByText("Add x to a.txt, amended").waitFor({ timeout: 15_000 });
    await panel.getByRole("button", { name: "Push main to origin" }).click();
    await panel.locator(".git-push .error").waitFor({ timeout: 15_000 });
    assert.notEqual(git(["rev-parse", "main"], bare), git(["rev-parse", "HEAD"], server.workspace));

    // Force push: only once the branch's name is typed.
    await panel.getByLabel("Force push…").check();
    const force = panel.getByRole("button", { name: "Force push (with lease)" });
    assert.equal(await force.isDisabled(), true);
    const confirm = panel.locator('input[name="force-confirm"]');
    await confirm.fill("mai");
    assert.equal(await force.isDisabled(), true, "a partial name does not confirm");
    await confirm.fill("main");
    assert.equal(await force.isDisabled(), false);
    await force.click();
    await panel.locator(".git-output").getByText("Pushed.").waitFor({ timeout: 15_000 });
    await page.waitForFunction(() => !document.querySelector('.commit-panel input[name="force-confirm"]'));
    assert.equal(git(["rev-parse", "main"], bare), git(["rev-parse", "HEAD"], server.workspace));
    assert.deepEqual(await page.evaluate(() => window.__cspViolations), []);
    assert.deepEqual(p.log.errors, []);
    await p.context.close();
  });

  test("a worktree session: Apply to main checkout shows the conflicting files; Open pull request starts from the title and the last answer", async () => {
    const p = await newPage(browser, server, { storageState: state });
    const { page } = p;
    const id = await openSession(p, server, "Worktree PR");
    await apiCall(page, server, "POST", `/api/sessions/${id}/messages`, { text: "say hello" });
    await page.locator(".msg-assistant").getByText("Hello from replay").waitFor({ timeout: 20_000 });
    // The server's answers for a worktree session with gh installed (this repository has neither).
    const real = await apiCall(page, server, "GET", `/api/sessions/${id}/git`);
    await page.route(`**/api/sessions/${id}/git`, (route) => route.fulfill({ json: { ...real.json, worktree: true, forges: ["gh"] } }));
    let applied = null;
    await page.route(`**/api/sessions/${id}/git/apply`, (route) => {
      applied = JSON.parse(route.request().postData());
      route.fulfill({ status: 409, json: { error: { code: "conflicts", message: "Applying would conflict in a.txt, b.txt: nothing was changed." } } });
    });
    let pr = null;
    await page.route(`**/api/sessions/${id}/git/pr`, (route) => {
      pr = JSON.parse(route.request().postData());
      route.fulfill({ json: { output: "Creating pull request for main", url: "https://forge.example.test/o/r/pull/7" } });
    });
    await page.locator(".session-header").getByRole("button", { name: "Commit", exact: true }).click();
    const panel = page.locator(".commit-panel");
    await panel.getByLabel("Apply by").selectOption("cherry_pick");
    await panel.getByRole("button", { name: "Apply to main checkout" }).click();
    await shows(panel.locator(".error"), "conflict in a.txt, b.txt", "the conflict");
    assert.deepEqual(applied, { how: "cherry_pick" });

    await panel.getByRole("button", { name: "Open pull request…" }).click();
    assert.equal(await panel.getByLabel("Title").inputValue(), "Worktree PR");
    assert.equal(await panel.getByLabel("Description").inputValue(), "Hello from replay");
    await panel.getByLabel("Description").fill("Hello from replay, edited.");
    await panel.getByRole("button", { name: "Open pull request", exact: true }).click();
    await panel.locator(".git-output a").getByText("https://forge.example.test/o/r/pull/7").waitFor();
    assert.deepEqual(pr, { title: "Worktree PR", body: "Hello from replay, edited." });
    assert.deepEqual(p.log.errors, []);
    await p.context.close();
  });

  test("the commit panel passes axe in both themes, and fits a phone", async () => {
    const p = await newPage(browser, server, { storageState: state, bypassCSP: true });
    const { page } = p;
    await openSession(p, server, "Axe commit");
    await page.locator(".session-header").getByRole("button", { name: "Commit", exact: true }).click();
    const panel = page.locator(".commit-panel");
    await panel.locator(".git-head-subject").waitFor();
    await panel.getByLabel("Force push…").check();
    await axe(page, "the commit panel");
    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.equal(overflow, 0, "no sideways scroll");
    await axe(page, "the commit panel at phone width");
    await shot(page, "commit-phone");
    // Esc closes it, back to its button.
    await panel.getByRole("heading", { name: "Commit" }).focus();
    await page.keyboard.press("Escape");
    await panel.waitFor({ state: "detached" });
    await p.context.close();
  });
});
