// Subagents, end to end: the real server on a small OpenAI-compatible server of this file, which
// answers each chat request by the first user message of its conversation. The parent ("PARENT")
// starts a subagent with `task`, waits for it with `task_wait`, then answers; the subagent
// ("CHILD") writes hello.txt, then answers. The session is in `ask` mode, so the subagent's write
// asks for approval: the approval shows in the PARENT's page, labelled with the subagent's title
// and a link to it, with the same notification and tab title as the parent's own; approved there,
// the file is written, the parent's answer follows, the list of subagents shows the subagent as
// completed and the task cards show what it did. The subagent's page names its parent and links
// back, and its task (written by the parent agent) is not offered for editing; the sidebar lists
// only the parent. axe finds nothing on either page, in both themes. A second test nests one level
// deeper: the subagent in the middle is open in the page when its own subagent asks, and the
// prompts show there live (every reason, the directory, the "Allow commands like this" choice) and
// go when answered there. The tests start their own servers; waits are on DOM states, never on
// timers.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { apiCall, assertClean, haveServer, launchBrowser, newPage, sendPrompt, shot, signInWithToken, startServer } from "./harness.mjs";
import { axe, shows } from "./checks.mjs";

const skip = haveServer() ? false : "server binary not built (target/debug/tradewind)";

const PARENT_ANSWER = "The subagent wrote the greeting.";
const CHILD_ANSWER = "Wrote hello.txt.";

/** The text of a message's content (a string, or a list of parts). */
function textOf(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p?.text === "string" ? p.text : "")).join("");
  return "";
}

/** The first user message of a conversation (what names its script) and how many tool results it holds. */
function turnOf(body) {
  const messages = Array.isArray(body?.messages) ? body.messages : [];
  return {
    first: textOf(messages.find((m) => m.role === "user")?.content),
    step: messages.filter((m) => m.role === "tool").length,
  };
}

/**
 * What the model says next in one conversation: the parent's script or the child's, chosen by the
 * first user message, at the step given by the tool results it already holds.
 */
function reply(body) {
  const { first, step } = turnOf(body);
  // A parent that starts a helper and never waits on it.
  if (first.includes("SOLO-BOSS")) {
    if (step === 0) return { tool: ["b-task", "task", { description: "Side job", prompt: "SOLO-HELPER: say done" }] };
    return { text: "Started the side job." };
  }
  if (first.includes("SOLO-HELPER")) return { text: "done" };
  if (first.includes("PARENT")) {
    if (step === 0) return { tool: ["p-task", "task", { description: "Write the greeting", prompt: "CHILD: write hello.txt" }] };
    if (step === 1) return { tool: ["p-wait", "task_wait", {}] };
    return { text: PARENT_ANSWER };
  }
  if (first.includes("CHILD")) {
    if (step === 0) return { tool: ["c-write", "write_file", { path: "hello.txt", content: "hi\n" }] };
    return { text: CHILD_ANSWER };
  }
  return { text: "ok" };
}

/**
 * An OpenAI-compatible server on 127.0.0.1: a model list, and streamed answers by `script` (which
 * may answer with a promise: the response waits for it).
 */
async function startFakeOpenAi(script = reply) {
  const chats = [];
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (d) => (raw += d));
    req.on("end", async () => {
      if (req.method === "GET" && req.url === "/v1/models") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ object: "list", data: [{ id: "m" }] }));
        return;
      }
      if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
        return;
      }
      const body = JSON.parse(raw);
      chats.push(body);
      const r = await script(body);
      const chunk = (delta, finish = null) => `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      if (r.tool) {
        const [id, name, args] = r.tool;
        res.write(chunk({ tool_calls: [{ index: 0, id, type: "function", function: { name, arguments: "" } }] }));
        res.write(chunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify(args) } }] }));
        res.write(chunk({}, "tool_calls"));
      } else {
        res.write(chunk({ role: "assistant", content: r.text }));
        res.write(chunk({}, "stop"));
      }
      res.end("data: [DONE]\n\n");
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${server.address().port}/v1`,
    chats,
    close: () => new Promise((r) => server.close(r)),
  };
}

/** Runs in the page first: notifications are allowed and recorded, and the page never has the focus. */
const NOTIFICATIONS = () => {
  window.__notes = [];
  window.Notification = class {
    static permission = "granted";
    static requestPermission() {
      return Promise.resolve("granted");
    }
    constructor(title, opts) {
      window.__notes.push({ title, body: opts?.body ?? "", via: "page" });
    }
    close() {}
  };
  // With a service worker (the app registers one), notifications go through it.
  if (typeof ServiceWorkerRegistration !== "undefined") {
    ServiceWorkerRegistration.prototype.showNotification = function (title, opts) {
      window.__notes.push({ title, body: opts?.body ?? "", via: "worker", url: opts?.data?.url });
      return Promise.resolve();
    };
  }
  document.hasFocus = () => false;
};

describe("subagents", { skip, timeout: 300_000 }, () => {
  let browser;

  before(async () => {
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
  });

  test("a subagent's approval is answered in the parent's page; the parent lists it, it links back", { timeout: 120_000 }, async () => {
    const fake = await startFakeOpenAi();
    const server = await startServer({
      provider: false,
      args: ["--provider", "openai", "--base-url", fake.url, "--model", "m", "--allow-write"],
    });
    let p;
    try {
      const first = await newPage(browser, server);
      const state = await signInWithToken(first.page, server);
      await first.context.close();
      // bypassCSP only to inject axe.
      p = await newPage(browser, server, { storageState: state, bypassCSP: true, serviceWorkers: "allow" });
      await p.context.addInitScript(NOTIFICATIONS);
      const { page } = p;
      page.setDefaultTimeout(10_000);

      await page.goto(`${server.base}/`);
      const created = await apiCall(page, server, "POST", "/api/sessions", { title: "Greeting work", mode: "ask" });
      assert.equal(created.status, 201, JSON.stringify(created.json));
      const parent = created.json.id;
      await page.goto(`${server.base}/s/${parent}`);
      await page.locator(".session-view .composer textarea").waitFor();
      // The app's service worker is active: the page's notifications go through it.
      await page.evaluate(() => navigator.serviceWorker.ready.then(() => true));
      await sendPrompt(page, "PARENT: delegate the greeting");

      // The subagent's approval, in the parent's page: labelled with the subagent, linked to it.
      const asks = page.locator(".subagent-prompts .subagent-prompt");
      const card = asks.locator(".approval-card");
      await card.waitFor({ timeout: 20_000 });
      const from = asks.locator(".subagent-from a");
      await shows(from, "Write the greeting", "the subagent that asks");
      const child = decodeURIComponent((await from.getAttribute("href")).split("/").pop());
      assert.notEqual(child, parent);
      assert.equal(await asks.getAttribute("data-subagent"), child);
      await shows(card.locator(".approval-head"), "write_file", "the tool the subagent wants to run");
      // Why it asks, as the parent's own approval would say it.
      await shows(card.locator(".approval-reason"), "In ask mode, file edits ask first", "the reason the subagent asks");
      await shows(card.locator(".tool-input"), "hello.txt", "the file it would write");
      assert.equal(await page.locator(".transcript .approval-card").count(), 0, "the parent itself asks nothing");
      await shows(page.locator(".pending-bar .pending-chip"), "for a subagent", "the pending bar's chip");
      // The task card names the subagent it started, linked.
      await shows(page.locator('.tool-card[data-tool="task"] .subagent-result a'), "Write the greeting", "the started subagent");
      // The same attention as the parent's own prompts: the tab title and a notification.
      await page.waitForFunction(() => document.title.startsWith("(1) needs you"));
      await page.waitForFunction(
        (url) =>
          window.__notes.some(
            (n) => n.via === "worker" && n.url === url && n.body.startsWith("A subagent needs an approval: write_file"),
          ),
        `/s/${parent}`,
      );
      await shot(page, "subagent-approval-in-parent");
      await axe(page, "the parent's page with a subagent's approval");

      // Approved there: the prompt goes, the file is written, the parent answers.
      await card.getByRole("button", { name: "Allow once" }).click();
      await page.locator(".subagent-prompts").waitFor({ state: "detached" });
      await shows(page.locator(".transcript .msg-assistant"), PARENT_ANSWER, "the parent's answer", 20_000);
      await page.locator('.transcript .run-end[data-status="completed"]').waitFor();
      assert.equal(readFileSync(join(server.workspace, "hello.txt"), "utf8"), "hi\n");
      assert.equal(await page.locator(".pending-bar").count(), 0, "nothing waits any more");
      await page.waitForFunction(() => !document.title.includes("needs you"));

      // The subagents list: the subagent, completed, linked; task_wait's card shows its answer.
      const row = page.locator(`.subagents-panel li[data-subagent-id="${child}"]`);
      await page.locator(`.subagents-panel li[data-subagent-id="${child}"][data-status="completed"]`).waitFor();
      await shows(row.locator("a"), "Write the greeting", "the subagent's title in the list");
      await shows(row.locator(".subagent-status"), "completed", "the subagent's status");
      const waited = page.locator(`.tool-card[data-tool="task_wait"] .subagent-view[data-subagent-id="${child}"]`);
      await shows(waited.locator(".subagent-status"), "completed", "task_wait's status of the subagent");
      await shows(waited.locator(".subagent-answer"), CHILD_ANSWER, "the subagent's answer");
      // The sidebar lists the parent, not the subagent.
      await page.locator(`.session-list [data-session-id="${parent}"]`).waitFor();
      assert.equal(await page.locator(`.session-list [data-session-id="${child}"]`).count(), 0, "no subagent in the sidebar");
      await shot(page, "subagent-done-in-parent");
      await axe(page, "the parent's page with its subagent done");

      // The subagent's page names its parent and links back.
      await row.locator("a").click();
      await page.waitForURL(`${server.base}/s/${child}`);
      const banner = page.locator(".subagent-banner");
      await shows(banner, "Subagent of Greeting work", "the subagent's banner");
      await shows(page.locator(".transcript .approval-done"), "Allowed once", "the approval in the subagent's own transcript");
      await shows(page.locator(".transcript .msg-assistant"), CHILD_ANSWER, "the subagent's answer in its transcript");
      // Its task was written by the parent agent, not typed: shown, but not offered for editing.
      const task = page.locator(".transcript .msg-user", { hasText: "CHILD: write hello.txt" });
      await task.waitFor();
      assert.equal(await task.locator(".msg-edit").count(), 0, "no Edit on a subagent's task");
      assert.equal(await page.locator(".session-list .session-item[aria-current=page]").count(), 0);
      await shot(page, "subagent-page");
      await axe(page, "the subagent's page");
      await banner.getByRole("link", { name: "Greeting work" }).click();
      await page.waitForURL(`${server.base}/s/${parent}`);
      await page.locator(`.subagents-panel li[data-subagent-id="${child}"]`).waitFor();

      // Each conversation went as scripted: three parent turns, two of the subagent.
      const firsts = fake.chats.map((b) => textOf(b.messages.find((m) => m.role === "user")?.content));
      assert.equal(firsts.filter((t) => t.includes("PARENT")).length, 3);
      assert.equal(firsts.filter((t) => t.includes("CHILD")).length, 2);
      assertClean(p);
    } finally {
      await p?.context.close();
      await server.stop();
      await fake.close();
    }
  });

  test("a subagent the parent never waited on is listed as its run ended, not idle; its use shows beside the parent's cost", { timeout: 120_000 }, async () => {
    const fake = await startFakeOpenAi();
    const server = await startServer({
      provider: false,
      args: ["--provider", "openai", "--base-url", fake.url, "--model", "m", "--allow-write"],
    });
    let p;
    try {
      const first = await newPage(browser, server);
      const state = await signInWithToken(first.page, server);
      await first.context.close();
      p = await newPage(browser, server, { storageState: state, bypassCSP: true });
      const { page } = p;
      page.setDefaultTimeout(10_000);
      await page.goto(`${server.base}/`);
      const created = await apiCall(page, server, "POST", "/api/sessions", { title: "Side work", mode: "ask" });
      const parent = created.json.id;
      await page.goto(`${server.base}/s/${parent}`);
      await page.locator(".session-view .composer textarea").waitFor();
      await sendPrompt(page, "SOLO-BOSS: start a side job");
      await page.locator('.transcript .run-end[data-status="completed"]').waitFor({ timeout: 20_000 });
      // (The panel may start folded: only its rows' attributes are waited on until it is open.)
      const row = page.locator(".subagents-panel li.subagent");
      await row.waitFor({ state: "attached" });
      const child = await row.getAttribute("data-subagent-id");
      // The helper's own run ends: the server's list says how (the parent never asked).
      let kids = [];
      for (let i = 0; i < 400 && !kids.some((c) => c.last_run_status === "completed"); i++) {
        kids = (await apiCall(page, server, "GET", `/api/sessions/${parent}/children`)).json;
      }
      assert.ok(kids.some((c) => c.last_run_status === "completed"), `the helper's run ended: ${JSON.stringify(kids)}`);
      await page.reload();
      await page.locator(`.subagents-panel li[data-subagent-id="${child}"][data-status="completed"]`).waitFor({ state: "attached" });
      if ((await page.locator(".subagents-panel details").getAttribute("open")) === null) await page.locator(".subagents-panel summary").click();
      await shows(page.locator(`.subagents-panel li[data-subagent-id="${child}"] .subagent-status`), "completed", "the helper's status");
      await shows(page.locator(".usage-subagents"), "in 1 subagent", "the helper's use beside the parent's cost");
      await axe(page, "the parent's page with a finished helper");
      assertClean(p);
    } finally {
      await p?.context.close();
      await server.stop();
      await fake.close();
    }
  });

  test("a nested subagent's prompts show live in its parent subagent's page, with every detail, and go when answered there", { timeout: 120_000 }, async () => {
    // TOP starts MIDDLE, which starts LEAF. LEAF writes outside the workspace (two reasons, the
    // directory), then lists files (the "Allow commands like this" choice). Its first model call
    // waits until MIDDLE's page is open, so both prompts arrive while that page listens.
    let open;
    const middleOpen = new Promise((r) => (open = r));
    const script = async (body) => {
      const { first, step } = turnOf(body);
      if (first.includes("TOP")) {
        if (step === 0) return { tool: ["t-task", "task", { description: "Middle work", prompt: "MIDDLE: delegate the files" }] };
        if (step === 1) return { tool: ["t-wait", "task_wait", {}] };
        return { text: "Top done." };
      }
      if (first.includes("MIDDLE")) {
        if (step === 0) return { tool: ["m-task", "task", { description: "Leaf work", prompt: "LEAF: write and list" }] };
        if (step === 1) return { tool: ["m-wait", "task_wait", {}] };
        return { text: MIDDLE_ANSWER };
      }
      if (first.includes("LEAF")) {
        if (step === 0) {
          await middleOpen;
          return { tool: ["l-write", "write_file", { path: "../outside/note.txt", content: "hi\n" }] };
        }
        if (step === 1) return { tool: ["l-list", "shell", { command: "ls -la" }] };
        return { text: "Leaf done." };
      }
      return { text: "ok" };
    };
    const MIDDLE_ANSWER = "The leaf wrote the note.";
    const fake = await startFakeOpenAi(script);
    const server = await startServer({
      provider: false,
      args: ["--provider", "openai", "--base-url", fake.url, "--model", "m", "--allow-write", "--allow-process"],
    });
    let p;
    try {
      const first = await newPage(browser, server);
      const state = await signInWithToken(first.page, server);
      await first.context.close();
      p = await newPage(browser, server, { storageState: state });
      const { page } = p;
      page.setDefaultTimeout(10_000);

      await page.goto(`${server.base}/`);
      const created = await apiCall(page, server, "POST", "/api/sessions", { title: "Top work", mode: "ask" });
      assert.equal(created.status, 201, JSON.stringify(created.json));
      await page.goto(`${server.base}/s/${created.json.id}`);
      await page.locator(".session-view .composer textarea").waitFor();
      await sendPrompt(page, "TOP: delegate");

      // MIDDLE's page, once it has started LEAF (whose model call waits for this).
      const middle = page.locator(".subagents-panel li a", { hasText: "Middle work" });
      await middle.waitFor({ timeout: 20_000 });
      await middle.click();
      await shows(page.locator(".subagent-banner"), "Subagent of Top work", "MIDDLE's banner");
      const leaf = page.locator(".subagents-panel li a", { hasText: "Leaf work" });
      await leaf.waitFor({ timeout: 20_000 });
      const leafId = decodeURIComponent((await leaf.getAttribute("href")).split("/").pop());
      open();

      // LEAF's write, live in MIDDLE's page: every reason and the directory, as an own approval shows them.
      const asks = page.locator(".subagent-prompts .subagent-prompt");
      const write = asks.locator(".approval-card", { hasText: "write_file" });
      await write.waitFor({ timeout: 20_000 });
      assert.equal(await asks.getAttribute("data-subagent"), leafId);
      await shows(asks.locator(".subagent-from a"), "Leaf work", "the subagent that asks");
      const reasons = write.locator(".approval-reasons li");
      await shows(reasons, "outside the workspace", "the reason about the directory");
      await shows(reasons, "In ask mode, file edits ask first", "the reason about the mode");
      assert.equal(await reasons.count(), 2, "both reasons");
      await shows(write.locator(".approval-dir"), /Outside the workspace: \S*[\\/]outside$/, "the directory an answer covers");
      await write.getByRole("button", { name: "Allow this directory" }).waitFor();
      await shows(page.locator(".pending-bar .pending-chip"), "for a subagent", "MIDDLE's pending bar");
      await shot(page, "nested-subagent-approval");
      await write.getByRole("button", { name: "Allow once" }).click();
      await write.waitFor({ state: "detached" });

      // LEAF's command: offered as "Allow commands like this", answered so; the prompts go.
      const list = asks.locator(".approval-card", { hasText: "shell" });
      await list.waitFor({ timeout: 20_000 });
      await list.getByRole("button", { name: /in this workspace/ }).waitFor();
      await list.getByRole("button", { name: /Allow ls … in this session/ }).click();
      await page.locator(".subagent-prompts").waitFor({ state: "detached" });
      await shows(page.locator(".transcript .msg-assistant"), MIDDLE_ANSWER, "MIDDLE's answer", 20_000);
      assert.equal(readFileSync(join(server.dir, "outside", "note.txt"), "utf8"), "hi\n");
      assert.equal(await page.locator(".pending-bar").count(), 0, "nothing waits any more");
      assertClean(p);
    } finally {
      await p?.context.close();
      await server.stop();
      await fake.close();
    }
  });
});
