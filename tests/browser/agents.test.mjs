// Custom agents against the real server, with agent files written on disk before it starts: the
// user's `docs-writer` (state directory's agents/, always counted; an unknown tool left out of it,
// `Bash(git log:*)` narrowing shell), a file without a description (left out, with why), and the
// workspace's `.claude/agents/code-reviewer.md` (held back until trusted). Settings → Agents lists
// build, plan and docs-writer with the untrusted banner; Trust lists code-reviewer with Claude's
// tool names mapped to ours (Read, Grep, Glob → list_files, read_file, search_text), its ceiling
// and model. The New session form offers every agent (the chosen one's description as a hint); a
// session made with code-reviewer says so in its header and over the API; the header's agent list
// switches it; `/agent NAME` switches to any agent (the picker lists them after `/agent `), an
// unknown name shows the server's refusal; `/agents` opens the panel with the focus on its title.
// axe finds nothing on the panel (held back and trusted) or the session header, at desktop and
// phone width, light and dark. Waits are on DOM states and API answers, never on timers.
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { apiCall, assertClean, createSessionViaUi, haveServer, launchBrowser, newPage, shot, signInWithToken, startServer } from "./harness.mjs";
import { axe, get, shows } from "./checks.mjs";

const skip = haveServer() ? false : "server binary not built (target/debug/tradewind)";

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 860 };

const REVIEWER = `---
description: Review the changes for bugs before a commit; never edits.
tools: Read, Grep, Glob
mode: auto
model: sonnet
---
You are a careful code reviewer. List the problems, most serious first.
`;

const DOCS = `---
description: Write and tidy the project's documentation.
tools: Read, Write, Bash(git log:*), Frobnicate
reasoning: high
---
Write plain, short documentation.
`;

const NO_DESCRIPTION = `---
tools: Read
---
Nothing above says what this is for.
`;

/** A server with these agent files, a signed-in page at `viewport` (bypassCSP only to inject axe). */
async function boot(browser, viewport) {
  const server = await startServer({
    scripts: [{ turns: [{ text: "hi" }] }],
    files: { ".claude/agents/code-reviewer.md": REVIEWER },
    homeFiles: { "agents/docs-writer.md": DOCS, "agents/untitled.md": NO_DESCRIPTION },
  });
  const first = await newPage(browser, server);
  const state = await signInWithToken(first.page, server);
  await first.context.close();
  const p = await newPage(browser, server, { storageState: state, viewport, bypassCSP: true });
  p.page.setDefaultTimeout(10_000);
  return { server, p };
}

/**
 * Waits until the list `select` (a CSS selector) offers `value`. An option's value is a property
 * (Preact sets it so), not always an attribute: `option[value=…]` would not find it.
 */
async function offers(page, select, value) {
  await page.waitForFunction(
    ([sel, v]) => [...(document.querySelector(sel)?.options ?? [])].some((o) => o.value === v),
    [select, value],
  );
}

/** Whether the element with this id has the focus, once the page settles on it. */
async function focused(page, id, what) {
  await page.waitForFunction((i) => document.activeElement?.id === i, id).catch(async () => {
    const now = await page.evaluate(() => `${document.activeElement?.tagName}#${document.activeElement?.id}`);
    assert.fail(`${what}: the focus is on ${now}`);
  });
}

describe("custom agents", { skip, timeout: 300_000 }, () => {
  let browser;

  before(async () => {
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
  });

  test("Settings → Agents, the New session form, the header's picker, /agent and /agents", { timeout: 150_000 }, async () => {
    const { server, p } = await boot(browser, DESKTOP);
    try {
      const { page } = p;
      const panel = page.getByRole("region", { name: "Agents" });
      const row = (name) => panel.locator(`li[data-agent="${name}"]`);
      const banner = panel.locator('[data-untrusted="agents"]');
      const trust = banner.getByRole("button", { name: "Trust this workspace's agents" });

      // Held back: the banner; the built-ins and the user's agent listed, the workspace's not.
      await page.goto(`${server.base}/settings`);
      await shows(banner, "This workspace has agents that are held back until you trust them", "the untrusted banner");
      await row("docs-writer").waitFor();
      assert.deepEqual(await panel.locator("li[data-agent]").evaluateAll((els) => els.map((e) => e.dataset.agent)), ["build", "plan", "docs-writer"]);
      await shows(row("build").locator(".extension-source"), "built in", "a built-in's source");
      await shows(row("plan").locator(".extension-desc"), "Read-only", "plan's description");
      const docs = row("docs-writer");
      await shows(docs.locator(".extension-source"), "user", "the user agent's source");
      await shows(docs.locator(".extension-desc"), "Write and tidy the project's documentation.", "its description");
      await shows(docs.locator(".agent-base"), "build", "its base");
      assert.deepEqual(await docs.locator(".agent-tools code").allInnerTexts(), ["read_file", "shell", "write_file"]);
      assert.deepEqual(await docs.locator(".agent-commands code").allInnerTexts(), ["shell", "git log *"]);
      await shows(docs.locator(".agent-mode"), "the session's mode", "no ceiling");
      await shows(docs.locator(".agent-reasoning"), "high", "its reasoning effort");
      assert.equal(await docs.locator(".agent-model").count(), 0, "no model of its own");
      assert.match(await docs.locator(".extension-where code").innerText(), /\/agents\/docs-writer\.md$/);
      await shows(docs.locator(".agent-skipped li"), "unknown tool `Frobnicate`", "what of its front matter was left out");
      assert.equal(await row("code-reviewer").count(), 0, "the workspace's agent is held back");
      const skipped = panel.locator("[data-agents-skipped] li");
      await shows(skipped, "the front matter has no description", "the left-out file's reason");
      assert.match(await skipped.locator("code").innerText(), /\/agents\/untitled\.md$/);
      const held = await get(page, server, "/api/agents");
      assert.equal(held.untrusted, true);
      assert.ok(held.workspace_hash, "the workspace's agents have a hash to trust");
      assert.deepEqual(held.data.map((a) => [a.name, a.source]), [["build", "builtin"], ["plan", "builtin"], ["docs-writer", "user"]]);
      await axe(page, "Settings → Agents, held back");
      await page.setViewportSize(PHONE);
      await axe(page, "Settings → Agents, held back, phone width");
      await page.setViewportSize(DESKTOP);

      // Trusted: listed with Claude's tool names mapped to ours, the banner gone, the focus on the title.
      await trust.click();
      await row("code-reviewer").waitFor();
      await banner.waitFor({ state: "detached" });
      await focused(page, "agents-h", "after Trust");
      await shows(panel.getByRole("status"), "Trusted: the workspace's agents are listed below.", "the trusted note");
      await panel.locator("[data-agents-trusted]").waitFor();
      const reviewer = row("code-reviewer");
      await shows(reviewer.locator(".extension-source"), "workspace", "the workspace agent's source");
      assert.deepEqual(await reviewer.locator(".agent-tools code").allInnerTexts(), ["list_files", "read_file", "search_text"]);
      await shows(reviewer.locator(".agent-mode"), "at most auto", "its mode ceiling");
      assert.equal(await reviewer.locator(".agent-model code").innerText(), "sonnet");
      assert.equal(await reviewer.locator(".agent-commands").count(), 0, "no shell narrowing");
      assert.match(await reviewer.locator(".extension-where code").innerText(), /\.claude\/agents\/code-reviewer\.md$/);
      const trusted = await get(page, server, "/api/agents");
      assert.equal(trusted.untrusted, false);
      const info = trusted.data.find((a) => a.name === "code-reviewer");
      assert.deepEqual([info.source, info.base, info.tools, info.mode, info.model], ["workspace", "build", ["list_files", "read_file", "search_text"], "auto", "sonnet"]);
      await axe(page, "Settings → Agents, trusted");
      await shot(page, "agents-desktop");
      await page.setViewportSize(PHONE);
      await axe(page, "Settings → Agents, trusted, phone width");
      await shot(page, "agents-phone");
      await page.setViewportSize(DESKTOP);

      // The New session form offers every agent, the chosen one's description as a hint.
      await page.goto(`${server.base}/`);
      await page.getByRole("button", { name: "+ New" }).click();
      const form = page.locator("form.new-session");
      const pick = form.locator('select[name="agent"]');
      await offers(page, 'form.new-session select[name="agent"]', "code-reviewer");
      assert.deepEqual(await pick.locator("option").evaluateAll((os) => os.map((o) => o.value)), ["build", "plan", "code-reviewer", "docs-writer"]);
      await pick.selectOption("code-reviewer");
      await shows(form.locator('[data-agent-hint="code-reviewer"]'), "Review the changes for bugs before a commit", "the chosen agent's hint");
      await shot(page, "agents-new-session");
      await page.getByRole("button", { name: "Close" }).click();
      await form.waitFor({ state: "detached" });

      // A session made with code-reviewer: its header and the server say so.
      const id = await createSessionViaUi(page, { title: "Review", agent: "code-reviewer" });
      const header = page.locator('.session-sub select[name="agent"]');
      await page.locator('.session-sub select[name="agent"][data-agent="code-reviewer"]').waitFor();
      assert.equal(await header.inputValue(), "code-reviewer");
      assert.equal((await get(page, server, `/api/sessions/${id}`)).agent, "code-reviewer");
      await axe(page, "a custom agent's session header");
      await shot(page, "agents-header-desktop");

      // Switched from the header.
      await header.selectOption("docs-writer");
      await page.locator('.session-sub select[name="agent"][data-agent="docs-writer"]').waitFor();
      assert.equal((await get(page, server, `/api/sessions/${id}`)).agent, "docs-writer");

      // /agent NAME: any agent; an unknown one is refused in the server's words.
      const box = page.locator(".composer textarea");
      const note = page.locator(".composer .composer-note");
      await box.fill("/agent plan");
      await box.press("Enter");
      await page.locator('.session-sub select[name="agent"][data-agent="plan"]').waitFor();
      await shows(note, "Switched to the plan agent", "what /agent plan did");
      await box.fill("/agent nope");
      await box.press("Enter");
      await shows(page.locator(".composer").getByRole("alert"), "no agent named `nope` here; agents: build, plan, code-reviewer, docs-writer", "the refusal");
      assert.equal((await get(page, server, `/api/sessions/${id}`)).agent, "plan", "unchanged by the refusal");

      // The picker lists the agents after `/agent `; picking one switches to it.
      await box.fill("/agent ");
      const option = page.getByRole("listbox", { name: "Commands" }).locator('[data-command="agent code-reviewer"]');
      await shows(option, "Review the changes for bugs before a commit", "the agent's entry");
      await option.click();
      await page.locator('.session-sub select[name="agent"][data-agent="code-reviewer"]').waitFor();
      await shows(note, "Switched to the code-reviewer agent.", "what the pick did");
      assert.equal((await get(page, server, `/api/sessions/${id}`)).agent, "code-reviewer");
      await page.setViewportSize(PHONE);
      await axe(page, "a custom agent's session header, phone width");
      await shot(page, "agents-header-phone");
      await page.setViewportSize(DESKTOP);

      // /agents opens the panel with the focus on its title.
      await box.fill("/agents");
      await shows(page.getByRole("listbox", { name: "Commands" }).locator('[data-command="agents"]'), "Open Settings → Agents", "the command's description");
      await box.press("Enter");
      await page.waitForURL(`${server.base}/settings`);
      await focused(page, "agents-h", "after /agents");
      await row("code-reviewer").waitFor();
      const sent = await get(page, server, `/api/sessions/${id}/events?after=0`);
      assert.deepEqual(sent.data.filter((e) => e.type === "user_message"), [], "no command is sent as a prompt");
      assertClean(p);
    } finally {
      await p.context.close();
      await server.stop();
    }
  });

  test("an agent gone since the list was read: the header says the server's refusal, and keeps a session's own", { timeout: 60_000 }, async () => {
    const { server, p } = await boot(browser, DESKTOP);
    try {
      const { page } = p;
      await page.goto(`${server.base}/`);
      const make = async (agent) => {
        const r = await apiCall(page, server, "POST", "/api/sessions", { title: agent, agent });
        assert.equal(r.status, 201, JSON.stringify(r.json));
        return r.json.id;
      };
      const docsSession = await make("docs-writer");
      const buildSession = await make("build");
      // The workspace's agent is held back: no session may take it.
      const heldBack = await apiCall(page, server, "PATCH", `/api/sessions/${buildSession}`, { agent: "code-reviewer" });
      assert.equal(heldBack.status, 422, JSON.stringify(heldBack.json));

      await page.goto(`${server.base}/s/${buildSession}`);
      const header = page.locator('.session-sub select[name="agent"]');
      await offers(page, '.session-sub select[name="agent"]', "docs-writer");
      rmSync(join(server.dir, "home", "agents", "docs-writer.md"));
      await header.selectOption("docs-writer");
      await shows(page.locator(".agent-menu [role=alert]"), "Not changed: no agent named `docs-writer` here; agents: build, plan", "the refusal");
      await page.locator('.session-sub select[name="agent"][data-agent="build"]').waitFor();
      assert.equal(await header.inputValue(), "build", "the list shows the session as it is");
      assert.equal((await get(page, server, `/api/sessions/${buildSession}`)).agent, "build");

      // A session whose agent is gone still shows it, after those there are now (the
      // workspace's, trusted meanwhile, among them).
      const hash = (await get(page, server, "/api/agents")).workspace_hash;
      const trusted = await apiCall(page, server, "POST", "/api/agents/trust", { hash });
      assert.equal(trusted.status, 200, JSON.stringify(trusted.json));
      await page.goto(`${server.base}/s/${docsSession}`);
      await page.locator('.session-sub select[name="agent"][data-agent="docs-writer"]').waitFor();
      await offers(page, '.session-sub select[name="agent"]', "code-reviewer");
      assert.deepEqual(await header.locator("option").evaluateAll((os) => os.map((o) => o.value)), ["build", "plan", "code-reviewer", "docs-writer"]);
      assert.equal(await header.inputValue(), "docs-writer");
      assertClean(p);
    } finally {
      await p.context.close();
      await server.stop();
    }
  });
});
