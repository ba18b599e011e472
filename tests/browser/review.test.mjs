// Browser tests of questions, plan review, artifacts, background tasks and the
// first-start setup screen, against the real server (replay provider).
// A feature whose endpoint the binary does not have yet is skipped at run time.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { readFileSync } from "node:fs";
import { after, before, describe, test } from "node:test";
import {
  apiCall,
  createSessionViaUi,
  hasRoute,
  haveServer,
  launchBrowser,
  newPage,
  pageHeaders,
  sendPrompt,
  shot,
  signInWithToken,
  sleep,
  startServer,
} from "./harness.mjs";

const PLAN_V1 = [
  "# Add a response cache",
  "",
  "## Architecture",
  "",
  "Requests go through a small in-memory cache in front of the database.",
  "",
  "## Steps",
  "",
  "1. Add the cache module.",
  "2. Wire it into the handlers.",
  "3. Test hits and misses.",
].join("\n");

const PLAN_V2 = PLAN_V1.replace("3. Test hits and misses.", "3. Test hits, misses and expiry.\n4. Document the TTL setting.");

const ARCH = "flowchart LR\n  C[Client] --> K[Cache]\n  K --> D[(Database)]";
const SEQ = "sequenceDiagram\n  Client->>Cache: get key\n  Cache-->>Client: hit";
const BROKEN = "flowchart LR\n  A -->";
const EVIL = `%%{init: {"securityLevel":"loose"}}%%\nflowchart LR\n  A[evil-marker-node] --> B\n  click A call alert(1)`;

const scripts = [
  {
    match: "ask me things",
    turns: [
      {
        text: "A few questions first.",
        tool_calls: [
          {
            name: "ask_user_question",
            arguments: {
              questions: [
                {
                  question: "Which database should the cache front?",
                  header: "Database",
                  options: [
                    { label: "SQLite", description: "embedded, the default", recommended: true },
                    { label: "Postgres", description: "for several replicas" },
                  ],
                },
                {
                  question: "Which features do you want?",
                  header: "Features",
                  multi_select: true,
                  options: [{ label: "Metrics" }, { label: "Eviction" }, { label: "Warm-up" }],
                },
                {
                  question: "Anything about naming?",
                  header: "Naming",
                  options: [{ label: "cache" }, { label: "memo" }],
                },
              ],
            },
          },
        ],
      },
      { text: "Thanks — noted your answers." },
    ],
  },
  {
    match: "plan the cache",
    turns: [
      {
        text: "Here is the plan.",
        tool_calls: [
          {
            name: "exit_plan",
            arguments: {
              title: "Response cache",
              plan: PLAN_V1,
              diagrams: [
                { id: "architecture", title: "Architecture", explanation: "Where the cache sits.", section: "Architecture", mermaid: ARCH },
                { id: "broken-flow", title: "Broken flow", explanation: "Does not parse.", section: "Steps", mermaid: BROKEN },
                { id: "evil", title: "Evil", explanation: "Tries to loosen security.", mermaid: EVIL },
              ],
            },
          },
        ],
      },
      {
        text: "Revised.",
        tool_calls: [
          {
            name: "exit_plan",
            arguments: {
              title: "Response cache",
              plan: PLAN_V2,
              diagrams: [
                { id: "architecture", title: "Architecture", explanation: "Where the cache sits.", section: "Architecture", mermaid: ARCH },
                { id: "request-sequence", title: "Request sequence", explanation: "A cache hit.", mermaid: SEQ },
              ],
            },
          },
        ],
      },
      { text: "The build agent will implement this plan." },
    ],
  },
  {
    match: "start the watcher",
    turns: [
      {
        text: "Starting it in the background.",
        tool_calls: [
          {
            name: "bg_run",
            arguments: {
              label: "watcher",
              command: "for i in 1 2 3; do echo tick$i; sleep 0.2; done; printf '\\033[32mgreen-ok\\033[0m\\n'; sleep 60",
            },
          },
        ],
      },
      { text: "It is running." },
    ],
  },
  {
    match: "quick background job",
    turns: [
      {
        text: "Starting a short job.",
        tool_calls: [{ name: "bg_run", arguments: { label: "short job", command: "echo short-job-done" } }],
      },
      { text: "I will be woken when it ends." },
    ],
  },
  { turns: [{ text: "Hello from replay" }] },
];

const skip = haveServer() ? false : "server binary not built (target/debug/tradewind)";

describe("plans, questions, artifacts, tasks", { skip, timeout: 900_000 }, () => {
  let server;
  let browser;
  let state;
  let planSession = null; // shared by the plan and artifact tests

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

  const open = (opts = {}) => newPage(browser, server, { storageState: state, ...opts });

  function assertClean(p) {
    assert.deepEqual(p.log.foreign, [], "requests to other origins");
    assert.deepEqual(p.log.errors, [], "page errors");
  }

  async function assertNoScript(page) {
    assert.equal(await page.evaluate(() => window.__pwned), undefined, "hostile script ran");
    assert.deepEqual(await page.evaluate(() => window.__cspViolations), [], "CSP violations");
  }

  async function events(page, id) {
    const r = await apiCall(page, server, "GET", `/api/sessions/${id}/events?after=0&limit=5000`);
    assert.equal(r.status, 200);
    return r.json.data;
  }

  async function waitEvent(page, id, pred, timeout = 20_000) {
    const deadline = Date.now() + timeout;
    for (;;) {
      const found = (await events(page, id)).find(pred);
      if (found) return found;
      if (Date.now() > deadline) throw new Error("event not seen in time");
      await sleep(250);
    }
  }

  test("ask_user_question: answered with the keyboard in the panel, the model gets the answers", async (t) => {
    if (!hasRoute("POST /api/questions/{id}")) return t.skip("endpoint not available yet");
    const p = await open();
    await p.page.goto(server.base + "/");
    const id = await createSessionViaUi(p.page, { title: "Questions" });
    await sendPrompt(p.page, "please ask me things");
    const panel = p.page.locator(".question-panel");
    await panel.waitFor({ timeout: 15_000 });
    await panel.getByText("Which database should the cache front?").waitFor();
    await panel.locator(".badge-recommended").getByText("recommended").waitFor();
    await p.page.locator(".pending-bar").getByText("Answer a question").waitFor();
    await shot(p.page, "20-question-panel");
    // Q1 (single): key 2 picks Postgres; Enter goes on.
    await p.page.keyboard.press("2");
    assert.equal(await panel.locator('.q-current input[value="Postgres"]').isChecked(), true);
    await p.page.keyboard.press("Enter");
    // Q2 (multi): 1 and 3, Enter.
    await panel.getByText("Which features do you want?").waitFor();
    assert.equal(await panel.locator(".q-current input[type=checkbox]").count(), 3);
    await p.page.keyboard.press("1");
    await p.page.keyboard.press("3");
    await shot(p.page, "21-question-multi");
    await p.page.keyboard.press("Enter");
    // Q3: Esc skips only this question, and being the last one, sends the answers.
    await panel.getByText("Anything about naming?").waitFor();
    await p.page.keyboard.press("Escape");
    await p.page.locator(".msg-assistant").getByText("Thanks — noted your answers.").waitFor({ timeout: 15_000 });
    assert.equal(await p.page.locator(".question-panel").count(), 0, "answered question disappears");
    const answered = await waitEvent(p.page, id, (e) => e.type === "question_answered");
    assert.deepEqual(answered.answers, [["Postgres"], ["Metrics", "Warm-up"], null]);
    const record = p.page.locator(".question-record");
    await record.getByText("Postgres").waitFor();
    await record.getByText("Metrics, Warm-up").waitFor();
    await record.getByText("skipped").waitFor();
    // The answers reached the model as the tool result.
    const result = (await events(p.page, id)).find((e) => e.type === "tool_result" && e.tool === "ask_user_question");
    assert.ok(result, "tool_result for ask_user_question");
    assert.match(result.text, /Postgres/);
    await shot(p.page, "22-question-answered");
    assertClean(p);
    await assertNoScript(p.page);
    await p.context.close();
  });

  test("plan review: diagrams in place, malicious one dropped, broken one as code + error, feedback, revision diff, approve", async (t) => {
    if (!hasRoute("POST /api/plans/{id}/decision")) return t.skip("endpoint not available yet");
    const p = await open({ viewport: { width: 1280, height: 1000 } });
    await p.page.goto(server.base + "/");
    const id = await createSessionViaUi(p.page, { title: "Plan review", agent: "plan" });
    planSession = id;
    await sendPrompt(p.page, "please plan the cache");
    const card = p.page.locator('.plan-card[data-revision="1"]');
    await card.waitFor({ timeout: 15_000 });
    await card.locator("h1").getByText("Add a response cache").waitFor();
    // The architecture diagram sits right after its section's heading, rendered as an image.
    const placed = card.locator("h2 + .plan-diagram-slot .plan-diagram[data-diagram-id=architecture]");
    await placed.waitFor();
    assert.equal(await placed.locator("xpath=../preceding-sibling::h2[1]").innerText(), "Architecture");
    await placed.locator(".plan-diagram-title").getByText("Architecture").waitFor();
    await placed.getByText("Where the cache sits.").waitFor();
    await placed.locator(".badge-new").waitFor();
    await placed.locator("img.diagram-img").waitFor({ timeout: 30_000 });
    assert.match(await placed.locator("img.diagram-img").getAttribute("src"), /^blob:/);
    // The syntax error shows the code and Mermaid's error.
    const broken = card.locator(".plan-diagram[data-diagram-id=broken-flow]");
    await broken.locator(".diagram-error").waitFor({ timeout: 30_000 });
    assert.match(await broken.locator(".diagram-error-text").innerText(), /^This diagram could not be drawn: /);
    await broken.locator(".diagram-source summary").click();
    assert.match(await broken.locator(".diagram-source pre").innerText(), /A -->/);
    // The malicious diagram never reached the page; it is listed as dropped with its reason.
    await card.locator(".plan-dropped li code").getByText("evil", { exact: true }).waitFor();
    assert.ok((await card.locator(".plan-dropped li").innerText()).length > "evil — ".length, "dropped with a reason");
    assert.equal(await p.page.locator("[data-diagram-id=evil]").count(), 0);
    const html = await p.page.content();
    assert.ok(!html.includes("evil-marker-node"), "malicious diagram source not in the page");
    assert.ok(!html.includes("alert(1)"), "malicious click handler not in the page");
    const proposed = await waitEvent(p.page, id, (e) => e.type === "plan_proposed");
    assert.equal(JSON.stringify(proposed).includes("alert(1)"), false, "dropped diagram not in the event");
    await p.page.waitForFunction(() => document.querySelectorAll(".plan-card .diagram.loading").length === 0, null, { timeout: 30_000 });
    await shot(p.page, "23-plan-review");

    // Feedback → the plan agent revises.
    await card.getByRole("button", { name: "Add feedback" }).click();
    await card.getByLabel("Feedback on the plan").fill("Also cover expiry, please.");
    await card.getByRole("button", { name: "Send feedback" }).click();
    const card2 = p.page.locator('.plan-card[data-revision="2"]');
    await card2.waitFor({ timeout: 15_000 });
    await card.locator(".plan-decision").getByText("Feedback sent").waitFor();
    await card2.locator(".plan-diagram[data-diagram-id=architecture] .badge-unchanged").waitFor();
    // A diagram without a section goes to the diagrams list.
    await card2.locator(".plan-diagrams .plan-diagram[data-diagram-id=request-sequence] .badge-new").waitFor();
    await card2.locator(".plan-removed").getByText("broken-flow").waitFor();
    await card2.locator(".plan-diagram[data-diagram-id=request-sequence] img.diagram-img").waitFor({ timeout: 30_000 });
    // Revision diff of plan.md.
    await card2.getByRole("button", { name: /Compare revisions/ }).click();
    const diff = card2.locator(".line-diff");
    await diff.waitFor();
    assert.match(await diff.locator(".ld-del").first().innerText(), /Test hits and misses/);
    assert.match(await diff.locator(".ld-add").allInnerTexts().then((x) => x.join("\n")), /Document the TTL setting/);
    await card2.getByLabel("From revision").selectOption({ index: 1 });
    await card2.getByText("plan.md is identical").waitFor();
    await card2.getByLabel("From revision").selectOption({ index: 0 });
    await p.page.waitForFunction(() => document.querySelectorAll(".plan-card .diagram.loading").length === 0, null, { timeout: 30_000 });
    await card2.scrollIntoViewIfNeeded();
    await shot(p.page, "24-plan-revision-diff");

    // Approve → the session switches to build and the implementation run starts.
    await card2.getByRole("button", { name: "Approve", exact: true }).click();
    await card2.locator(".plan-decision").getByText("Approved").waitFor({ timeout: 15_000 });
    await shot(p.page, "25-plan-approved");
    assert.deepEqual(p.log.dialogs, []);
    assertClean(p);
    await assertNoScript(p.page);
    await p.context.close();
  });

  test("after approval the session switches to build and the implementation run (trigger plan) starts", async (t) => {
    if (!hasRoute("POST /api/plans/{id}/decision")) return t.skip("endpoint not available yet");
    if (!planSession) return t.skip("needs the plan review test's session");
    const id = planSession;
    const p = await open();
    await p.page.goto(`${server.base}/s/${id}`);
    await p.page.locator('.plan-card[data-revision="2"] .plan-decision').getByText("Approved").waitFor({ timeout: 15_000 });
    const started = await waitEvent(p.page, id, (e) => e.type === "run_started" && e.trigger === "plan", 30_000);
    assert.equal(started.agent, "build");
    await waitEvent(p.page, id, (e) => e.type === "session_updated" && e.data?.agent === "build");
    await p.page.locator(".run-start").getByText("Implementing the approved plan").waitFor({ timeout: 15_000 });
    await p.page.locator('.session-sub select[name="agent"][data-agent="build"]').waitFor({ timeout: 15_000 });
    assert.equal((await apiCall(p.page, server, "GET", `/api/sessions/${id}`)).json.agent, "build");
    await shot(p.page, "25b-plan-build-run");
    assertClean(p);
    await p.context.close();
  });

  test("Esc skips a plan", async (t) => {
    if (!hasRoute("POST /api/plans/{id}/decision")) return t.skip("endpoint not available yet");
    const p = await open();
    await p.page.goto(server.base + "/");
    const id = await createSessionViaUi(p.page, { title: "Plan skip", agent: "plan" });
    await sendPrompt(p.page, "plan the cache quickly");
    const card = p.page.locator('.plan-card[data-revision="1"]');
    await card.waitFor({ timeout: 15_000 });
    // Esc on the card is Skip, with an Undo for half a minute; Skip now sends it.
    await card.getByRole("button", { name: "Approve", exact: true }).focus();
    await p.page.keyboard.press("Escape");
    await card.locator(".plan-undo").getByRole("button", { name: "Skip now" }).click();
    await card.locator(".plan-decision").getByText("Skipped").waitFor({ timeout: 15_000 });
    const decided = await waitEvent(p.page, id, (e) => e.type === "plan_decided");
    assert.equal(decided.decision, "skipped");
    assertClean(p);
    await p.context.close();
  });

  test("artifact viewer: folder tree, previews, zip and tar downloads", async (t) => {
    if (!hasRoute("GET /api/sessions/{id}/artifacts")) return t.skip("endpoint not available yet");
    if (!planSession) return t.skip("needs the plan review test's session");
    const p = await open({ viewport: { width: 1280, height: 900 } });
    await p.page.goto(`${server.base}/s/${planSession}`);
    await p.page.getByRole("button", { name: "Artifacts" }).click();
    const panel = p.page.locator(".artifacts-panel");
    await panel.waitFor();
    await panel.locator(".artifact-item").nth(1).waitFor({ timeout: 10_000 });
    assert.equal(await panel.locator(".artifact-item").count(), 2, "two plan revisions");
    // The newest revision is selected, plan.md previewed as Markdown.
    await panel.locator(".tree-file[data-path='plan.md']").waitFor();
    await panel.locator(".tree-file[data-path='plan.json']").waitFor();
    await panel.locator(".tree-folder").getByText("diagrams/").waitFor();
    await panel.locator(".tree-file[data-path='diagrams/architecture.mmd']").waitFor();
    const preview = panel.locator(".artifact-preview");
    await preview.locator(".markdown h1").getByText("Add a response cache").waitFor({ timeout: 10_000 });
    await preview.locator(".markdown").getByText("Document the TTL setting").waitFor();
    await shot(p.page, "26-artifacts-plan-md");
    // .mmd → diagram
    await panel.locator(".tree-file[data-path='diagrams/architecture.mmd']").click();
    await preview.locator("img.diagram-img").waitFor({ timeout: 30_000 });
    // JSON pretty-printed
    await panel.locator(".tree-file[data-path='plan.json']").click();
    await preview.locator("pre.artifact-code").waitFor();
    const json = await preview.locator("pre.artifact-code").innerText();
    assert.match(json, /\n  "/, "indented JSON");
    assert.equal(JSON.parse(json).revision, 2);
    await shot(p.page, "27-artifacts-json");
    // Downloads: links the browser follows itself, so their addresses carry the view token.
    for (const name of ["Download .zip", ".tar"]) {
      const href = new URL(await panel.getByRole("link", { name }).getAttribute("href"), server.base);
      assert.ok(href.searchParams.get("view"), `${name}: ${href}`);
    }
    const [zip] = await Promise.all([p.page.waitForEvent("download"), panel.getByRole("link", { name: "Download .zip" }).click()]);
    const zipBytes = readFileSync(await zip.path());
    assert.equal(zipBytes.subarray(0, 2).toString("latin1"), "PK", "a zip archive");
    assert.ok(zipBytes.includes(Buffer.from("plan.md")), "the zip holds plan.md");
    const [tar] = await Promise.all([p.page.waitForEvent("download"), panel.getByRole("link", { name: ".tar" }).click()]);
    const tarBytes = readFileSync(await tar.path());
    assert.equal(tarBytes.subarray(257, 262).toString("latin1"), "ustar", "a tar archive");
    // The older revision has only its own files.
    await panel.locator(".artifact-item").nth(1).click();
    await panel.locator(".tree-file[data-path='plan.md']").click();
    await preview.locator(".markdown").getByText("Test hits and misses.").waitFor({ timeout: 10_000 });
    assertClean(p);
    await assertNoScript(p.page);
    await p.context.close();
  });

  test("artifact files inline are text/plain under a sandbox CSP (SECURITY X5)", async (t) => {
    if (!hasRoute("GET /api/sessions/{id}/artifacts")) return t.skip("endpoint not available yet");
    if (!planSession) return t.skip("needs the plan review test's session");
    const p = await open();
    await p.page.goto(server.base + "/");
    // The inline file route is text/plain with a sandbox CSP.
    const head = await p.page.evaluate(
      async ({ id, headers }) => {
        const list = await (await fetch(`/api/sessions/${id}/artifacts`, { headers })).json();
        const r = await fetch(`/api/artifacts/${list.data[0].id}/files/plan.md?inline=1`, { headers });
        return { type: r.headers.get("content-type"), csp: r.headers.get("content-security-policy") };
      },
      { id: planSession, headers: await pageHeaders(p.page) },
    );
    assert.match(head.type, /^text\/plain/);
    assert.match(head.csp ?? "", /sandbox/);
    await p.context.close();
  });

  test("tasks panel: live output, stop", async (t) => {
    if (!hasRoute("GET /api/sessions/{id}/tasks") || !hasRoute("GET /api/tasks/{id}/output")) {
      return t.skip("endpoint not available yet");
    }
    const p = await open();
    await p.page.goto(server.base + "/");
    const id = await createSessionViaUi(p.page, { title: "Tasks", mode: "full" });
    await sendPrompt(p.page, "start the watcher");
    // A shell loop of plain commands runs without asking in full mode: the parser sees its parts.
    const row = p.page.locator(".tasks-panel .task").first();
    await row.waitFor({ timeout: 20_000 });
    await row.locator(".task-label").getByText("watcher").waitFor();
    await row.locator(".task-status").getByText("running").waitFor({ timeout: 10_000 });
    assert.equal(await p.page.locator(".transcript .approval-card").count(), 0, "nothing asked");
    assert.match(await row.locator(".task-cmd").innerText(), /for i in 1 2 3/);
    await row.locator(".task-pid").waitFor();
    const out = row.locator(".task-output");
    await out.getByText("tick3").waitFor({ timeout: 15_000 });
    await out.locator(".ansi-green-fg").getByText("green-ok").waitFor({ timeout: 10_000 });
    assert.equal(await out.locator("script, img, a").count(), 0);
    await shot(p.page, "28-tasks-running");
    await row.getByRole("button", { name: "Stop" }).click();
    await row.locator(".task-status").getByText("cancelled").waitFor({ timeout: 15_000 });
    await row.getByText("stopped by user").waitFor();
    const listed = await apiCall(p.page, server, "GET", `/api/sessions/${id}/tasks`);
    assert.equal(listed.json.data[0].status, "cancelled");
    assert.equal(listed.json.data[0].stopped_by, "user");
    await shot(p.page, "29-tasks-stopped");
    assertClean(p);
    await assertNoScript(p.page);
    await p.context.close();
  });

  test("a task that ends by itself wakes the session: wake-up item in the transcript", async (t) => {
    if (!hasRoute("GET /api/sessions/{id}/tasks")) return t.skip("endpoint not available yet");
    const p = await open();
    await p.page.goto(server.base + "/");
    const id = await createSessionViaUi(p.page, { title: "Wake-up", mode: "full" });
    await sendPrompt(p.page, "a quick background job");
    await p.page.locator(".tasks-panel .task .task-status").getByText("succeeded").waitFor({ timeout: 20_000 });
    const wake = p.page.locator(".transcript .wakeup");
    await wake.waitFor({ timeout: 30_000 });
    await wake.getByText("Background task finished").waitFor();
    await p.page.locator(".run-start").getByText("background tasks finished").waitFor({ timeout: 15_000 });
    const ev = await waitEvent(p.page, id, (e) => e.type === "wakeup");
    assert.equal(ev.task_ids.length, 1);
    await waitEvent(p.page, id, (e) => e.type === "run_started" && e.trigger === "wakeup");
    await shot(p.page, "30-wakeup");
    assertClean(p);
    await p.context.close();
  });
});

describe("first-start setup", { skip, timeout: 300_000 }, () => {
  let server;
  let browser;
  let fake;
  let fakePort = null;

  before(async () => {
    // A fake Ollama on its usual port, when the port is free.
    fake = createServer((req, res) => {
      if (req.url === "/v1/models") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ object: "list", data: [{ id: "qwen-test:7b" }, { id: "llama-test:8b" }] }));
      } else {
        res.writeHead(404);
        res.end();
      }
    });
    fakePort = await new Promise((res) => {
      fake.once("error", () => res(null));
      fake.listen(11434, "127.0.0.1", () => res(11434));
    });
    server = await startServer({ provider: false });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    await new Promise((r) => (fakePort ? fake.close(() => r()) : r()));
  });

  test("no provider: the setup screen offers a server found on loopback; one click configures it", async (t) => {
    if (!hasRoute("GET /api/setup/probe")) return t.skip("endpoint not available yet");
    const p = await newPage(browser, server);
    await signInWithToken(p.page, server);
    const prov = await apiCall(p.page, server, "GET", "/api/settings/provider");
    if (prov.json.kind) return t.skip(`the server starts with provider "${prov.json.kind}"`);
    await p.page.locator(".setup h1").getByText("Set up a model").waitFor({ timeout: 10_000 });
    await p.page.locator('.setup select[name="kind"]').waitFor(); // the manual form
    if (!fakePort) {
      await shot(p.page, "31-setup");
      return t.skip("port 11434 busy: cannot offer a fake server");
    }
    const item = p.page.locator('.probe-item[data-base-url*="11434"]');
    await item.waitFor({ timeout: 15_000 });
    await item.getByLabel(/Model on/).selectOption("llama-test:8b");
    await shot(p.page, "31-setup");
    await item.getByRole("button", { name: "Use this" }).click();
    await p.page.locator(".setup").waitFor({ state: "detached", timeout: 10_000 });
    const saved = await apiCall(p.page, server, "GET", "/api/settings/provider");
    assert.equal(saved.json.kind, "openai");
    assert.match(saved.json.base_url, /127\.0\.0\.1:11434|localhost:11434/);
    assert.equal(saved.json.model, "llama-test:8b");
    assertCleanLocal(p);
    await p.context.close();
  });

  test("the manual setup form chooses the API an OpenAI provider speaks", async (t) => {
    // A server of its own: the test above may have configured the shared one.
    const own = await startServer({ provider: false });
    t.after(() => own.stop());
    const p = await newPage(browser, own);
    await signInWithToken(p.page, own);
    const prov = await apiCall(p.page, own, "GET", "/api/settings/provider");
    assert.equal(prov.json.api_mode, "chat");
    const form = p.page.locator(".setup form.settings-form");
    await form.locator('select[name="kind"]').selectOption("openai");
    await form.locator('select[name="api_mode"]').selectOption("responses");
    await form.locator('input[name="base_url"]').fill("http://127.0.0.1:9/v1");
    await form.locator('input[name="model"]').fill("gpt-5");
    await form.getByRole("button", { name: "Save" }).click();
    await p.page.locator(".setup").waitFor({ state: "detached", timeout: 10_000 });
    const saved = await apiCall(p.page, own, "GET", "/api/settings/provider");
    assert.equal(saved.json.api_mode, "responses");
    assert.equal(saved.json.model, "gpt-5");
    const list = await apiCall(p.page, own, "GET", "/api/providers");
    assert.equal(list.json.data.find((e) => e.id === "default")?.api_mode, "responses");
    assertCleanLocal(p);
    await p.context.close();
  });

  function assertCleanLocal(p) {
    assert.deepEqual(p.log.foreign, [], "requests to other origins");
    assert.deepEqual(p.log.errors, [], "page errors");
  }
});

// The tasks panel, the wake-up item and the setup screen driven by frames and
// answers shaped exactly as docs/PROTOCOL.md says, injected into a real
// server's WebSocket and REST traffic. These check the UI's side of the
// contract while the server side is landing; the tests above use the real thing.
describe("UI against protocol fixtures", { skip, timeout: 300_000 }, () => {
  let server;
  let browser;
  let state;

  before(async () => {
    server = await startServer({ scripts: [{ turns: [{ text: "Hello from replay" }] }] });
    browser = await launchBrowser();
    const p = await newPage(browser, server);
    state = await signInWithToken(p.page, server);
    await p.context.close();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  /** Proxy the app's WebSocket; after the app subscribes to `session`, `inject` may push frames. */
  async function injectable(page, session) {
    let client = null;
    let lastSeq = 0;
    let resolve;
    const subscribed = new Promise((r) => (resolve = r));
    // The route must be in place before the page opens its socket: await its installation.
    await page.routeWebSocket(/\/api\/ws/, (ws) => {
      const upstream = ws.connectToServer();
      upstream.onMessage((m) => {
        try {
          const f = JSON.parse(m);
          if (f.session === session && typeof f.seq === "number") lastSeq = Math.max(lastSeq, f.seq);
        } catch {
          /* not JSON */
        }
        ws.send(m);
      });
      ws.onMessage((m) => {
        upstream.send(m);
        try {
          const f = JSON.parse(m);
          if (f.type === "subscribe" && f.session === session) {
            client = ws;
            resolve();
          }
        } catch {
          /* ignore */
        }
      });
    });
    const ready = Promise.race([
      subscribed,
      sleep(15_000).then(() => {
        throw new Error("the app did not subscribe through the WebSocket proxy in 15 s");
      }),
    ]);
    return {
      ready,
      send(payload) {
        lastSeq++;
        client.send(JSON.stringify({ seq: lastSeq, session, run: null, at: Date.now(), ...payload }));
      },
    };
  }

  const task = (over = {}) => ({
    id: "01TASKFIXTURE000000000000A",
    session_id: "",
    label: "dev server",
    command: "npm run dev\u001b[2J\u202e",
    cwd: "/ws",
    status: "running",
    exit_code: null,
    error: null,
    stopped_by: null,
    pid: 4242,
    output_bytes: 0,
    timeout_ms: 3_600_000,
    created_at: Date.now() - 5000,
    started_at: Date.now() - 5000,
    finished_at: null,
    ...over,
  });

  test("tasks panel from task_updated frames: output by offset (ANSI), Stop, wake-up item", async () => {
    const p = await newPage(browser, server, { storageState: state });
    const created = await (async () => {
      await p.page.goto(server.base + "/");
      return apiCall(p.page, server, "POST", "/api/sessions", { title: "Tasks (fixtures)" });
    })();
    const id = created.json.id;
    const chunks = [
      "starting…\n",
      "\u001b[32mready\u001b[0m on http://127.0.0.1:5173\n<img src=x onerror=\"window.__pwned='task'\">\n",
    ];
    const offsets = [];
    let stopped = false;
    await p.page.route(/\/api\/tasks\/[^/]+\/output/, (route) => {
      const u = new URL(route.request().url());
      const off = Number(u.searchParams.get("offset"));
      offsets.push(off);
      let text = "";
      let pos = 0;
      for (const c of chunks) {
        const len = Buffer.byteLength(c);
        if (off === pos) {
          text = c;
          break;
        }
        pos += len;
      }
      const next = off + Buffer.byteLength(text);
      const status = stopped ? "cancelled" : "running";
      route.fulfill({
        json: { id: "01TASKFIXTURE000000000000A", status, exit_code: null, text, next_offset: next, eof: !text, output_truncated: false },
      });
    });
    await p.page.route(/\/api\/tasks\/[^/]+\/stop/, (route) => {
      stopped = true;
      route.fulfill({ json: task({ session_id: id, status: "cancelled", stopped_by: "user", finished_at: Date.now() }) });
    });
    await p.page.route(/\/api\/sessions\/[^/]+\/tasks$/, (route) => route.fulfill({ json: { data: [] } }));
    const inj = await injectable(p.page, id);
    await p.page.goto(`${server.base}/s/${id}`);
    await inj.ready;
    inj.send({ type: "task_updated", task: task({ session_id: id }) });
    const row = p.page.locator(".tasks-panel .task").first();
    await row.waitFor({ timeout: 10_000 });
    await row.locator(".task-status").getByText("running").waitFor();
    await row.locator(".task-pid").getByText("pid 4242").waitFor();
    // Control characters in the command are visible.
    await row.locator(".task-cmd mark.ctrl").getByText("⟨ESC⟩").waitFor();
    await row.locator(".task-cmd mark.ctrl").getByText("⟨RLO⟩").waitFor();
    const out = row.locator(".task-output");
    await out.locator(".ansi-green-fg").getByText("ready").waitFor({ timeout: 10_000 });
    await out.getByText("<img src=x onerror=", { exact: false }).waitFor();
    assert.equal(await out.locator("img, a, script").count(), 0);
    assert.deepEqual(offsets.slice(0, 3), [0, Buffer.byteLength(chunks[0]), Buffer.byteLength(chunks[0] + chunks[1])]);
    await sleep(1300);
    assert.ok(offsets.length >= 4, "keeps polling while running");
    assert.ok(offsets.slice(3).every((o) => o === Buffer.byteLength(chunks.join(""))), "never re-reads");
    await shot(p.page, "32-tasks-fixture");
    await row.getByRole("button", { name: "Stop" }).click();
    await row.locator(".task-status").getByText("cancelled").waitFor({ timeout: 10_000 });
    await row.getByText("stopped by user").waitFor();
    assert.equal(await row.getByRole("button", { name: "Stop" }).count(), 0);
    // A second task ends by itself and wakes the session.
    const t2 = task({ id: "01TASKFIXTURE000000000000B", label: "tests", command: "cargo test", status: "succeeded", exit_code: 0, pid: 99, session_id: id, finished_at: Date.now() });
    inj.send({ type: "task_updated", task: t2 });
    inj.send({ type: "wakeup", task_ids: [t2.id], text: "Background task tests (01TASKFIXTURE000000000000B) succeeded, exit code 0." });
    inj.send({ type: "run_started", run: "01RUNFIXTURE0000000000000A", run_id: "01RUNFIXTURE0000000000000A", agent: "build", mode: "ask", trigger: "wakeup" });
    const wake = p.page.locator(".transcript .wakeup");
    await wake.waitFor({ timeout: 10_000 });
    await wake.getByText("Background task finished").waitFor();
    await wake.getByText("succeeded, exit code 0").waitFor();
    await p.page.locator(".run-start").getByText("background tasks finished").waitFor();
    const second = p.page.locator('.tasks-panel .task[data-task-id="01TASKFIXTURE000000000000B"]');
    await second.locator(".task-exit").getByText("exit 0").waitFor();
    await shot(p.page, "33-wakeup-fixture");
    assert.equal(await p.page.evaluate(() => window.__pwned), undefined);
    assert.deepEqual(await p.page.evaluate(() => window.__cspViolations), []);
    assert.deepEqual(p.log.errors, []);
    await p.context.close();
  });

  test("setup screen from /api/setup/probe: one click saves kind openai, base_url and the model", async () => {
    const p = await newPage(browser, server, { storageState: state });
    let put = null;
    await p.page.route("**/api/settings/provider", (route) => {
      if (route.request().method() === "PUT") {
        put = JSON.parse(route.request().postData());
        return route.fulfill({ json: { ...put, api_key_set: false } });
      }
      return route.fulfill({ json: { kind: "", base_url: "", model: "", api_key_set: false } });
    });
    await p.page.route("**/api/setup/probe", (route) =>
      route.fulfill({
        json: {
          servers: [
            { name: "Ollama", base_url: "http://127.0.0.1:11434/v1", models: ["qwen2.5-coder:7b", "llama3.1:8b"] },
            { name: "LM Studio <img src=x onerror=\"window.__pwned='probe'\">", base_url: "http://127.0.0.1:1234/v1", models: [] },
          ],
        },
      }),
    );
    await p.page.goto(server.base + "/");
    await p.page.locator(".setup h1").getByText("Set up a model").waitFor({ timeout: 10_000 });
    await p.page.locator('.setup select[name="kind"]').waitFor();
    const item = p.page.locator('.probe-item[data-base-url="http://127.0.0.1:11434/v1"]');
    await item.waitFor();
    await p.page.locator(".probe-item").getByText("LM Studio <img", { exact: false }).waitFor();
    await item.getByLabel("Model on Ollama").selectOption("llama3.1:8b");
    await shot(p.page, "34-setup-fixture");
    await item.getByRole("button", { name: "Use this" }).click();
    await p.page.locator(".setup").waitFor({ state: "detached", timeout: 10_000 });
    assert.deepEqual(put, { kind: "openai", base_url: "http://127.0.0.1:11434/v1", model: "llama3.1:8b" });
    assert.equal(await p.page.evaluate(() => window.__pwned), undefined);
    assert.deepEqual(p.log.errors, []);
    await p.context.close();
  });
});

describe("provider retries, live", { skip, timeout: 300_000 }, () => {
  let fake;
  let server;
  let browser;
  let requests = 0;

  before(async () => {
    // A scripted OpenAI-compatible server on loopback: 429 with Retry-After 2 s, then an answer.
    // Its model list (asked once for the model's context window) is empty and not counted.
    fake = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        if (req.method === "GET") {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify({ data: [] }));
          return;
        }
        requests++;
        if (requests === 1) {
          res.writeHead(429, { "content-type": "application/json", "retry-after": "2" });
          res.end(JSON.stringify({ error: { message: "slow down" } }));
          return;
        }
        res.writeHead(200, { "content-type": "text/event-stream" });
        const chunk = (delta, finish = null) =>
          `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
        res.end(chunk({ content: "Answered after the wait." }) + chunk({}, "stop") + "data: [DONE]\n\n");
      });
    });
    const port = await new Promise((res) => fake.listen(0, "127.0.0.1", () => res(fake.address().port)));
    server = await startServer({
      provider: false,
      args: ["--provider", "openai", "--base-url", `http://127.0.0.1:${port}/v1`, "--model", "m"],
    });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    await new Promise((r) => fake.close(() => r()));
  });

  test("a retry shows as one line counting down while it waits, then as retried", async () => {
    const p = await newPage(browser, server);
    await signInWithToken(p.page, server);
    await p.page.goto(server.base + "/");
    await createSessionViaUi(p.page, { title: "Retries" });
    await sendPrompt(p.page, "hello");
    const note = p.page.locator(".retry-note");
    // Seen while the wait lasts, before any answer: the event came when the wait began.
    await note.getByText(/retry 2 of \d+ in [12] s/).waitFor({ timeout: 10_000 });
    assert.equal(await p.page.locator(".msg-assistant").getByText("Answered after the wait.").count(), 0);
    await p.page.locator(".msg-assistant").getByText("Answered after the wait.").waitFor({ timeout: 15_000 });
    await p.page.locator(".retry-note.over").getByText(/retried/).waitFor();
    assert.equal(await note.count(), 1, "one line per run, updated in place");
    assert.equal(requests, 2);
    await shot(p.page, "30-provider-retry");
    await p.context.close();
  });
});
