// Accessibility: axe-core (WCAG 2.x A and AA rules) finds no violation on the main screens, in
// the light and the dark theme. axe is injected as a script, so these pages run with
// bypassCSP: the app's CSP is checked by the other browser tests.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { after, before, describe, test } from "node:test";
import {
  apiCall,
  createSessionViaUi,
  haveServer,
  injectFrames,
  launchBrowser,
  newPage,
  sendPrompt,
  signInWithToken,
  startServer,
} from "./harness.mjs";

const axePath = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"];

const PLAN = ["# Add a cache", "", "## Why", "", "Fewer queries.", "", "## Steps", "", "1. Add the module.", "2. Test it."].join("\n");
const DIAGRAM = { id: "flow", title: "Flow", explanation: "Where the cache sits.", section: "Why", mermaid: "flowchart LR\n  A[Client] --> B[Cache]" };
const scripts = [
  {
    match: "plan the cache",
    turns: [
      { text: "Here is the plan.", tool_calls: [{ name: "exit_plan", arguments: { title: "Cache", plan: PLAN, diagrams: [DIAGRAM] } }] },
      { text: "Revised.", tool_calls: [{ name: "exit_plan", arguments: { title: "Cache", plan: `${PLAN}\n3. Document it.`, diagrams: [DIAGRAM] } }] },
    ],
  },
  {
    match: "make a file",
    turns: [{ text: "Writing it.", tool_calls: [{ name: "write_file", arguments: { path: "hello.txt", content: "hi\n" } }] }],
  },
  {
    match: "ask me",
    turns: [
      {
        text: "A question first.",
        tool_calls: [
          {
            name: "ask_user_question",
            arguments: {
              questions: [
                { question: "Which database?", header: "Database", options: [{ label: "SQLite", description: "embedded", recommended: true }, { label: "Postgres" }] },
                { question: "Which features?", header: "Features", multi_select: true, options: [{ label: "Metrics" }, { label: "Eviction" }] },
              ],
            },
          },
        ],
      },
    ],
  },
  { match: "slow reply", turns: [{ text: Array.from({ length: 400 }, (_, i) => `slow${i}`).join(" "), chunk_chars: 4, delay_ms: 100 }] },
  { turns: [{ text: "Hello from replay" }] },
];

const skip = haveServer() ? false : "server binary not built (target/debug/tradewind)";

/** The violations as readable lines: rule, impact, and the first few offending nodes. */
function describeViolations(violations) {
  return violations
    .map((v) => {
      const nodes = v.nodes
        .slice(0, 6)
        .map((n) => `      ${n.target.join(" ")}\n        ${(n.failureSummary ?? "").replace(/\n/g, "\n        ")}`)
        .join("\n");
      return `  ${v.id} (${v.impact}): ${v.help} — ${v.nodes.length} node(s)\n${nodes}`;
    })
    .join("\n");
}

async function axe(page, label) {
  await page.addScriptTag({ path: axePath });
  const result = await page.evaluate(
    (tags) => window.axe.run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] }),
    TAGS,
  );
  assert.equal(result.violations.length, 0, `axe violations on ${label}:\n${describeViolations(result.violations)}`);
}

describe("accessibility (axe-core, WCAG 2 AA)", { skip, timeout: 300_000 }, () => {
  let server;
  let browser;
  let state;
  const ids = {};

  before(async () => {
    server = await startServer({ scripts, args: ["--allow-write", "--allow-process"] });
    browser = await launchBrowser();
    const p = await newPage(browser, server);
    p.page.setDefaultTimeout(10_000);
    state = await signInWithToken(p.page, server);
    // A pending plan (plan agent) and a pending approval (ask mode), from the real server.
    ids.plan = await createSessionViaUi(p.page, { title: "Plan pending", agent: "plan" });
    await sendPrompt(p.page, "plan the cache");
    await p.page.locator(".plan-card.pending").waitFor({ timeout: 15_000 });
    // A second revision: two plan cards in one transcript (their landmarks must differ).
    await p.page.getByRole("button", { name: "Add feedback" }).click();
    await p.page.getByLabel("Feedback on the plan").fill("Document it too.");
    await p.page.getByRole("button", { name: "Send feedback" }).click();
    await p.page.locator('.plan-card.pending[data-revision="2"]').waitFor({ timeout: 15_000 });
    await p.page.goto(server.base + "/");
    ids.approval = await createSessionViaUi(p.page, { title: "Approval pending", mode: "ask" });
    await sendPrompt(p.page, "make a file");
    await p.page.locator(".transcript .approval-card").waitFor({ timeout: 15_000 });
    await p.page.goto(server.base + "/");
    ids.question = await createSessionViaUi(p.page, { title: "Question pending" });
    await sendPrompt(p.page, "ask me");
    await p.page.locator(".question-panel").waitFor({ timeout: 15_000 });
    const created = await apiCall(p.page, server, "POST", "/api/sessions", { title: "Rich transcript" });
    ids.rich = created.json.id;
    await p.context.close();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  for (const scheme of ["light", "dark"]) {
    const open = async (opts = {}) => {
      const p = await newPage(browser, server, { storageState: state, colorScheme: scheme, bypassCSP: true, ...opts });
      p.page.setDefaultTimeout(10_000);
      return p;
    };

    test(`${scheme} theme: sign-in page`, { timeout: 30_000 }, async () => {
      const p = await open({ storageState: undefined });
      await p.page.goto(server.base + "/");
      await p.page.locator(".signin-card").waitFor();
      await axe(p.page, `the sign-in page (${scheme})`);
      await p.context.close();
    });

    test(`${scheme} theme: session list and settings`, { timeout: 30_000 }, async () => {
      const p = await open();
      await p.page.goto(server.base + "/");
      await p.page.locator(".session-list .session-item").first().waitFor();
      await p.page.locator(".conn[data-state=open]").waitFor();
      await axe(p.page, `the home page (${scheme})`);
      await p.page.goto(server.base + "/settings");
      await p.page.locator('.settings li[data-provider="default"]').waitFor();
      // The web search section: its provider list with the SearXNG URL, then a keyed provider's key field.
      await p.page.locator('.websearch input[name="searxng_url"]').waitFor();
      await axe(p.page, `the settings page (${scheme})`);
      await p.page.getByRole("radio", { name: "Tavily", exact: true }).check();
      await p.page.locator('.websearch input[name="websearch_api_key"]').waitFor();
      await axe(p.page, `the settings page with a keyed web search provider (${scheme})`);
      await p.context.close();
    });

    test(`${scheme} theme: a pending plan and a pending approval`, { timeout: 30_000 }, async () => {
      const p = await open();
      await p.page.goto(`${server.base}/s/${ids.plan}`);
      await p.page.locator('.plan-card.pending[data-revision="2"]').waitFor();
      await p.page.locator(".pending-bar").waitFor();
      await p.page.locator('.plan-card[data-revision="1"] .badge-new').waitFor();
      await p.page.waitForFunction(() => document.querySelectorAll(".plan-card .diagram.loading").length === 0);
      await axe(p.page, `a session with a pending plan (${scheme})`);
      await p.page.goto(`${server.base}/s/${ids.approval}`);
      await p.page.locator(".transcript .approval-card").waitFor();
      await p.page.locator("h1.session-name").waitFor();
      await axe(p.page, `a session with a pending approval (${scheme})`);
      await p.context.close();
    });

    test(`${scheme} theme: a pending question, the new-session form, the permissions and artifacts panels`, { timeout: 30_000 }, async () => {
      const p = await open();
      await p.page.goto(`${server.base}/s/${ids.question}`);
      await p.page.locator(".question-panel").waitFor();
      // The pending question can show before the session's header (its title, the page's h1).
      await p.page.locator("h1.session-name").waitFor();
      await axe(p.page, `a session with a pending question (${scheme})`);
      await p.page.goto(`${server.base}/s/${ids.plan}`);
      await p.page.getByRole("button", { name: "+ New" }).click();
      await p.page.locator("form.new-session").waitFor();
      await p.page.getByRole("button", { name: "Permissions" }).click();
      await p.page.locator(".permissions-panel").waitFor();
      await p.page.getByRole("button", { name: "Artifacts" }).click();
      await p.page.locator(".artifacts-panel .artifact-item").first().waitFor();
      await axe(p.page, `the new-session form, permissions and artifacts panels (${scheme})`);
      await p.context.close();
    });

    test(`${scheme} theme: phone width, list and session`, { timeout: 30_000 }, async () => {
      const p = await open({ viewport: { width: 390, height: 800 } });
      await p.page.goto(server.base + "/");
      await p.page.locator(".session-list .session-item").first().waitFor();
      await axe(p.page, `the phone home (${scheme})`);
      await p.page.goto(`${server.base}/s/${ids.approval}`);
      await p.page.locator(".transcript .approval-card").waitFor();
      await axe(p.page, `a phone session (${scheme})`);
      await p.context.close();
    });

    test(`${scheme} theme: transcript with Markdown, terminal output, a diff, notes and errors`, { timeout: 30_000 }, async () => {
      const p = await open();
      await p.page.goto(server.base + "/");
      const inj = await injectFrames(p.page, ids.rich);
      await p.page.goto(`${server.base}/s/${ids.rich}`);
      await inj.ready;
      const run = "01RUNFIXTUREA11Y000000000A";
      inj.send({ type: "run_started", run, run_id: run, agent: "build", mode: "ask", trigger: "prompt" });
      inj.send({ type: "user_message", run, message_id: "01MSGA11Y", text: "show me everything" });
      inj.send({ type: "provider_retry", run, attempt: 2, max_attempts: 4, delay_ms: 1000, reason: "rate limited" });
      inj.send({
        type: "message_complete", run, message_id: "01ASSA11Y", reasoning: "",
        text: "# Title\n\n### Deep heading\n\nSome `code`, a [link](https://example.com).\n\n- [ ] todo\n- [x] done\n\n| a | b |\n|---|---|\n| 1 | wide-cell-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx |\n\n```js\nconst x = 1;\n```\n\n> quoted",
      });
      inj.send({ type: "tool_call", run, call_id: "t1", tool: "shell", effect: "process", input: { command: "ls -la" } });
      inj.send({
        type: "tool_result", run, call_id: "t1", tool: "shell", ok: true, text: "ok",
        parts: [{ type: "terminal", command: "ls -la", stdout: Array.from({ length: 60 }, (_, i) => `\u001b[32mline ${i}\u001b[0m`).join("\n"), stderr: "warning: x\n", exit_code: 0, duration_ms: 12, truncated: false }],
      });
      inj.send({ type: "tool_call", run, call_id: "t2", tool: "write_file", effect: "write", input: { path: "a.txt", content: "x\n" } });
      inj.send({
        type: "tool_result", run, call_id: "t2", tool: "write_file", ok: true, text: "written",
        parts: [{ type: "diff", path: "a.txt", lang: "text", patch: `--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n keep\n-old\n+new ${"wide".repeat(120)}\n`, truncated: false }],
      });
      inj.send({ type: "error", run, code: "provider_overloaded", message: "the provider is overloaded (503): busy" });
      inj.send({ type: "run_finished", run, run_id: run, status: "failed", error: { code: "provider_overloaded", message: "the provider is overloaded (503): busy" }, usage: { input_tokens: 10, output_tokens: 5 }, duration_ms: 40 });
      const t0 = Date.now();
      inj.send({
        type: "task_updated",
        task: { id: "01TASKA11Y", session_id: ids.rich, label: "watcher", command: "npm run dev", cwd: "/ws", status: "succeeded", exit_code: 0, error: null, stopped_by: null, pid: 9, output_bytes: 0, timeout_ms: 60_000, created_at: t0, started_at: t0, finished_at: t0 + 5 },
      });
      await p.page.locator(".run-end").waitFor();
      await p.page.locator(".tasks-panel .task").waitFor();
      await p.page.locator(".diff").waitFor();
      await p.page.locator(".terminal").waitFor();
      await axe(p.page, `a rich transcript (${scheme})`);
      // Terminal output scrolls: it must be reachable with the keyboard.
      const out = p.page.locator(".terminal .stdout");
      assert.equal(await out.getAttribute("tabindex"), "0", "terminal output is focusable");
      await p.context.close();
    });

    test(`${scheme} theme: the queue, the cancel dialog, an interrupted run with Resume, the resend editor and a fork's banner`, { timeout: 60_000 }, async () => {
      const p = await open();
      await p.page.goto(server.base + "/");
      await createSessionViaUi(p.page, { title: `Steering ${scheme}` });
      await sendPrompt(p.page, "slow reply please");
      await p.page.locator(".msg-assistant").waitFor();
      await sendPrompt(p.page, "a queued message");
      await p.page.locator(".queue-item").waitFor();
      await axe(p.page, `the queue (${scheme})`);
      await p.page.getByRole("button", { name: "Cancel run" }).click();
      const dialog = p.page.getByRole("dialog", { name: "Cancel the run?" });
      await dialog.waitFor();
      await axe(p.page, `the cancel dialog (${scheme})`);
      await dialog.getByRole("button", { name: "Cancel and drop the queue" }).click();
      await p.page.locator('.run-end[data-status="cancelled"]').getByRole("button", { name: "Resume" }).waitFor();
      await p.page.locator(".queue-panel").waitFor({ state: "detached" });
      await p.page.locator(".msg-user").getByRole("button", { name: "Edit" }).click();
      await p.page.getByRole("textbox", { name: "Edited message" }).fill("hello again");
      await axe(p.page, `the resend editor and an ended run (${scheme})`);
      await p.page.getByRole("button", { name: "Send as a new session" }).click();
      await p.page.locator(".fork-banner a").waitFor();
      await p.page.locator(".run-end").waitFor();
      await axe(p.page, `a forked session (${scheme})`);
      await p.context.close();
    });
  }
});

describe("accessibility of the first-start setup (axe-core)", { skip, timeout: 120_000 }, () => {
  let server;
  let browser;
  let setupState;

  before(async () => {
    server = await startServer({ provider: false });
    browser = await launchBrowser();
    const p = await newPage(browser, server);
    setupState = await signInWithToken(p.page, server);
    await p.context.close();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  for (const scheme of ["light", "dark"]) {
    test(`${scheme} theme: the model setup screen`, { timeout: 30_000 }, async () => {
      const p = await newPage(browser, server, { storageState: setupState, colorScheme: scheme, bypassCSP: true });
      p.page.setDefaultTimeout(10_000);
      await p.page.route("**/api/setup/probe", (route) =>
        route.fulfill({ json: { servers: [{ name: "Ollama", base_url: "http://127.0.0.1:11434/v1", models: ["qwen2.5-coder:7b"] }] } }),
      );
      await p.page.goto(server.base + "/");
      await p.page.locator(".setup .probe-item").first().waitFor();
      await axe(p.page, `the setup screen (${scheme})`);
      await p.context.close();
    });
  }
});
