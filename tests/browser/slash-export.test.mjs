// The slash commands answered in the composer, and the session's export, end to end: the real
// server with the replay provider, real Chromium. `/help` lists the built-in commands and the
// workspace's templates in a panel over the prompt, and nothing goes to the model; `/clear` (and
// `/new`) open a new session on the same workspace, model, mode and agent, the old one still
// listed; `/cost` shows the session's usage and spend as the server counts them; `/status` its
// model, mode, agent, workspace, context fill, run and queue state and the server's version;
// `/diff` opens the session's review with each file the tools changed and the file a command made; `/model NAME`
// refuses a model the provider does not list and only warns (and sets it) when the list cannot be
// read; `/export json` downloads the very document `tradewind sessions export` writes (which
// `POST /api/sessions/import` takes back) and `/export markdown` the transcript with every tool's
// output whole; the header's Export does both, at phone width too. axe finds nothing on a panel
// and on the export choices. Each test starts its own server; waits are on DOM states, never on
// timers.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { apiCall, assertClean, haveServer, launchBrowser, newPage, sendPrompt, serverBin, shot, signInWithToken, startServer } from "./harness.mjs";
import { axe, get, shows } from "./checks.mjs";

const LINES = Array.from({ length: 40 }, (_, i) => String(i + 1));
const SLOW = "Working on it. ".repeat(24).trim();
const TEMPLATE = "---\ndescription: Review a file for problems\n---\nReview $ARGUMENTS carefully.\n";
// A price, so that /cost has a spend to show, and a window, so that /status has a context fill.
const CONFIG = { models: { "replay/replay": { contextWindow: 40_000, price: { input: 1000, output: 1000 } } } };

const scripts = [
  {
    match: "first change",
    turns: [{ text: "Writing.", tool_calls: [{ name: "write_file", arguments: { path: "notes.txt", content: "one\n" } }] }, { text: "First done." }],
  },
  {
    match: "second change",
    turns: [
      {
        text: "Rewriting.",
        tool_calls: [
          { name: "write_file", arguments: { path: "notes.txt", content: "two\n" } },
          { name: "write_file", arguments: { path: "extra.txt", content: "extra\n" } },
          { name: "shell", arguments: { command: "printf 'made\\n' > made.txt" } },
        ],
      },
      { text: "Second done." },
    ],
  },
  { match: "count to forty", turns: [{ text: "Counting.", tool_calls: [{ name: "shell", arguments: { command: "seq 1 40" } }] }, { text: "Counted to forty." }] },
  // Streamed slowly: long enough to ask /status while it works.
  { match: "take your time", turns: [{ text: SLOW, chunk_chars: 2, delay_ms: 40 }] },
  { turns: [{ text: "Hello." }] },
];

const PHONE = { width: 390, height: 844 };
const skip = haveServer() ? false : "server binary not built (target/debug/tradewind)";
const fmt = (n) => n.toLocaleString("en-US");
const dollars = (v) => `$${v.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;

/** An OpenAI-compatible server that refuses every request (401): a provider whose model list cannot be read. */
async function startLockedProvider() {
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(401, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { message: "this key is not allowed here", type: "invalid_request_error" } }));
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${server.address().port}/v1`, close: () => new Promise((r) => server.close(r)) };
}

describe("slash commands answered in the composer, and the session's export", { skip, timeout: 600_000 }, () => {
  let browser;

  before(async () => {
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
  });

  /** A server of its own and a signed-in page on it (CSP bypassed only so axe can be injected). */
  async function boot({ viewport, files = {} } = {}) {
    const server = await startServer({ scripts, args: ["--allow-write", "--allow-process"], files, config: CONFIG });
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

  /** A session made over the API (then patched with `patch`), opened once its header and composer are there. */
  async function openSession(page, server, body, patch) {
    const created = await apiCall(page, server, "POST", "/api/sessions", body);
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const id = created.json.id;
    if (patch) {
      const r = await apiCall(page, server, "PATCH", `/api/sessions/${id}`, patch);
      assert.equal(r.status, 200, JSON.stringify(r.json));
    }
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

  /** Type a command and send it. */
  async function command(page, text) {
    const box = page.locator(".composer textarea");
    await box.fill(text);
    await box.press("Enter");
  }

  const panel = (page, name) => page.getByRole("region", { name, exact: true });
  /** The value a panel's fact shows. */
  const fact = (region, name) => region.locator(".local-fact").filter({ has: region.page().locator("dt", { hasText: new RegExp(`^${name}$`) }) }).locator("dd");
  const prompts = async (page, server, id) =>
    (await get(page, server, `/api/sessions/${id}/events?limit=5000`)).data.filter((e) => e.type === "user_message").map((e) => e.text);

  test("/help lists the built-in commands and the workspace's templates, nothing sent; each new command is in the picker", { timeout: 90_000 }, async () => {
    const { server, p } = await boot({ files: { ".tradewind/commands/review.md": TEMPLATE } });
    try {
      const { page } = p;
      const id = await openSession(page, server, { title: "Help" });
      const box = page.locator(".composer textarea");

      // The picker offers each new command with what it does.
      await box.fill("/");
      const picker = page.getByRole("listbox", { name: "Commands" });
      await picker.locator('[data-command="review"]').waitFor();
      for (const [name, says] of [
        ["help", "nothing is sent to the model"],
        ["clear", "this one stays in the list"],
        ["cost", "used and spent"],
        ["status", "context use and run state"],
        ["diff", "as one diff"],
        ["export json", "tradewind sessions export"],
        ["export markdown", "their whole output"],
        ["new", "permissions and model"],
      ]) {
        await shows(picker.locator(`[data-command="${name}"] .slash-desc`), says, `/${name}'s description`);
      }

      await command(page, "/help");
      const help = panel(page, "Commands");
      await help.waitFor();
      const names = await help.locator("dt").allInnerTexts();
      for (const name of ["/help", "/clear", "/cost", "/status", "/diff", "/export json", "/export markdown", "/model", "/new", "/init", "/review"]) {
        assert.ok(names.includes(name), `/help lists ${name}: ${JSON.stringify(names)}`);
      }
      await shows(fact(help, "/review"), "Review a file for problems (workspace)", "the template's line");
      await shows(help.locator("h3"), "Templates", "the templates' heading");
      assert.equal(await box.inputValue(), "", "the prompt is cleared");
      assert.deepEqual(await prompts(page, server, id), [], "nothing was sent to the model");
      assert.equal(await page.locator(".transcript .msg-user").count(), 0, "no message in the transcript");
      await axe(page, "the /help panel");
      await shot(page, "slash-help");

      // Close takes it away and gives the prompt the focus.
      await help.getByRole("button", { name: "Close" }).click();
      await help.waitFor({ state: "detached" });
      assert.equal(await box.evaluate((el) => el === document.activeElement), true, "the prompt has the focus");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("/clear and /new open a new session on the same workspace, model, mode and agent; the old one stays listed", { timeout: 90_000 }, async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      const same = { provider: "default", model: "replay", reasoning_effort: "high" };
      const old = await openSession(page, server, { title: "Before clear", mode: "auto", agent: "plan" }, same);
      await turn(page, "hello", "Hello.");

      await command(page, "/clear");
      await page.waitForURL((u) => u.pathname.startsWith("/s/") && !u.pathname.endsWith(old));
      const cleared = decodeURIComponent(new URL(page.url()).pathname.split("/").pop());
      const made = await get(page, server, `/api/sessions/${cleared}`);
      const like = (s) => ({ workspace: s.workspace, mode: s.mode, agent: s.agent, provider: s.provider, model: s.model, reasoning_effort: s.reasoning_effort });
      assert.deepEqual(like(made), { workspace: server.workspace, mode: "auto", agent: "plan", ...same });
      await page.locator(`.session-header .model-button[data-model="default/replay"]`).waitFor();
      assert.deepEqual(await prompts(page, server, cleared), [], "the new session starts empty");

      // The old session is still there, in the list and on the server, with its turn.
      await page.locator(`a.session-item[href="/s/${old}"]`).waitFor();
      assert.deepEqual(await prompts(page, server, old), ["hello"]);

      // /new keeps the model too.
      await command(page, "/new");
      await page.waitForURL((u) => u.pathname.startsWith("/s/") && !u.pathname.endsWith(cleared));
      const fresh = decodeURIComponent(new URL(page.url()).pathname.split("/").pop());
      assert.notEqual(fresh, old);
      assert.deepEqual(like(await get(page, server, `/api/sessions/${fresh}`)), { workspace: server.workspace, mode: "auto", agent: "plan", ...same });
      await page.locator(`a.session-item[href="/s/${cleared}"]`).waitFor();
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("/cost shows the session's usage and spend as the server counts them, nothing sent", { timeout: 90_000 }, async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      const id = await openSession(page, server, { title: "Cost" }, { spend_cap_usd: 500 });
      await turn(page, "hello", "Hello.");
      const u = await get(page, server, `/api/sessions/${id}/usage`);
      assert.ok(u.calls > 0 && u.usage.cost_usd > 0, JSON.stringify(u));

      await command(page, "/cost");
      const cost = panel(page, "Cost of this session");
      await cost.waitFor();
      assert.equal(await fact(cost, "Spent").innerText(), dollars(u.usage.cost_usd));
      assert.equal(await fact(cost, "Model calls").innerText(), fmt(u.calls));
      assert.match(await fact(cost, "Input tokens").innerText(), new RegExp(`^${fmt(u.usage.input_tokens)}`));
      assert.match(await fact(cost, "Output tokens").innerText(), new RegExp(`^${fmt(u.usage.output_tokens)}`));
      assert.equal(await fact(cost, "Spend cap").innerText(), "$500.00 (this session's own)");
      assert.match(await fact(cost, "Today, all sessions").innerText(), new RegExp(`^\\${dollars(u.day_spent_usd)}`));
      assert.deepEqual(await prompts(page, server, id), ["hello"], "/cost was not sent");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("/status shows the model, mode, agent, workspace, context, run and queue state and the server's version", { timeout: 120_000 }, async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      const id = await openSession(page, server, { title: "Checking the state", mode: "auto", agent: "plan" });
      const version = (await get(page, server, "/api/health")).version;
      const flags = (await get(page, server, "/api/providers")).data.find((x) => x.id === "default");

      // Before any model call.
      await command(page, "/status");
      let status = panel(page, "Status");
      await status.waitFor();
      assert.equal(await fact(status, "Session").innerText(), "Checking the state");
      assert.equal(await fact(status, "Model").innerText(), `default/${flags.model} (the default)`);
      assert.equal(await fact(status, "Mode").innerText(), "auto: edits in the workspace run; commands and network ask");
      assert.equal(await fact(status, "Agent").innerText(), "plan");
      assert.equal(await fact(status, "Workspace").innerText(), server.workspace);
      assert.equal(await fact(status, "Context").innerText(), "not known yet: no model call so far");
      assert.equal(await fact(status, "State").innerText(), "idle: nothing is running");
      assert.equal(await fact(status, "Server").innerText(), `Tradewind ${version}`);

      // While a run works, with a message queued behind it.
      await sendPrompt(page, "take your time");
      await page.locator(".transcript .working").waitFor();
      const box = page.locator(".composer textarea");
      await box.fill("then this");
      await page.getByRole("button", { name: "Send after" }).click();
      await page.locator(".queue-panel").getByText("then this").waitFor();
      await command(page, "/status");
      status = panel(page, "Status");
      await shows(fact(status, "State"), "running: the agent is working; 1 message queued", "the state while a run works");

      // Once both ran: idle, and the context of the last call.
      await page.locator(".transcript .msg-user").getByText("then this").waitFor({ timeout: 30_000 });
      await page.locator(".transcript .working").waitFor({ state: "detached", timeout: 30_000 });
      await page.waitForFunction(() => document.querySelectorAll(".transcript .run-end").length >= 2, null, { timeout: 30_000 });
      const u = await get(page, server, `/api/sessions/${id}/usage`);
      const ctx = u.context;
      assert.ok(ctx && ctx.context_window === 40_000, JSON.stringify(u));
      await command(page, "/status");
      status = panel(page, "Status");
      await shows(fact(status, "State"), /^idle: nothing is running$/, "the state once the runs ended");
      const pct = Math.round((ctx.context_tokens / ctx.context_window) * 100);
      assert.equal(await fact(status, "Context").innerText(), `${fmt(ctx.context_tokens)} of ${fmt(ctx.context_window)} tokens (${pct} %)`);
      assert.deepEqual(await prompts(page, server, id), ["take your time", "then this"], "no /status was sent");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("/diff opens the session's review: each file the session changed, the file a command made too", { timeout: 120_000 }, async () => {
    const { server, p } = await boot({ files: { "notes.txt": "original\n" } });
    try {
      const { page } = p;
      const id = await openSession(page, server, { title: "Diff", mode: "full", agent: "build" });
      await turn(page, "make the first change", "First done.");
      await turn(page, "now the second change", "Second done.");
      assert.equal(readFileSync(join(server.workspace, "made.txt"), "utf8"), "made\n", "the command ran");

      await command(page, "/diff");
      await page.waitForURL(`${server.base}/s/${id}/review`);
      const review = page.getByRole("region", { name: "Review" });
      const notes = review.locator('.rv-file[data-path="notes.txt"]');
      await notes.waitFor();
      assert.deepEqual(await review.locator(".rv-files > .rv-file").evaluateAll((els) => els.map((e) => e.dataset.path)), ["extra.txt", "made.txt", "notes.txt"]);
      await shows(notes.locator(".dl-del"), "original", "notes.txt as it was before the session");
      await shows(notes.locator(".dl-add"), "two", "notes.txt now");
      await shows(review.locator('.rv-file[data-path="extra.txt"] .badge-new'), "new file", "extra.txt is new");
      await shows(review.locator('.rv-file[data-path="made.txt"] .dl-add'), "made", "the file the command made");
      assert.deepEqual(await prompts(page, server, id), ["make the first change", "now the second change"], "/diff was not sent");
      await shot(page, "slash-diff");
      // Back to the conversation from the header.
      await page.locator(".session-header").getByRole("link", { name: "Conversation" }).click();
      await page.locator(".session-view .composer textarea").waitFor();
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("/model NAME refuses a model the provider does not list, and warns but sets it when the list cannot be read", { timeout: 90_000 }, async () => {
    const locked = await startLockedProvider();
    const { server, p } = await boot();
    try {
      const { page } = p;
      const put = await apiCall(page, server, "PUT", "/api/providers/locked", { kind: "openai", base_url: locked.url, model: "tiny" });
      assert.equal(put.status, 200, JSON.stringify(put.json));
      const id = await openSession(page, server, { title: "Model" });
      const choice = async () => {
        const s = await get(page, server, `/api/sessions/${id}`);
        return { provider: s.provider ?? null, model: s.model ?? null };
      };
      const note = page.locator(".composer .composer-note");

      await command(page, "/model nope");
      await shows(page.locator(".composer .error"), "default has no model nope (it lists replay). The model was not changed.", "the refusal");
      assert.deepEqual(await choice(), { provider: null, model: null });

      await command(page, "/model replay");
      await shows(note, "Model: default/replay", "a listed model is set");
      assert.equal(await note.innerText(), "Model: default/replay", "without a warning");
      assert.deepEqual(await choice(), { provider: "default", model: "replay" });

      await command(page, "/model locked/anything");
      await shows(note, /^Model: locked\/anything\. Warning: locked's model list could not be read \(.+\), so anything was not checked\.$/, "the warning");
      assert.deepEqual(await choice(), { provider: "locked", model: "anything" });
      await page.locator('.session-header .model-button[data-model="locked/anything"]').waitFor();
      assert.deepEqual(await prompts(page, server, id), [], "nothing was sent");
      assertClean(p);
    } finally {
      await finish(server, p);
      await locked.close();
    }
  });

  test("/export json is the CLI's document (and imports back); /export markdown has every tool's output whole", { timeout: 120_000 }, async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      const id = await openSession(page, server, { title: "Export me", mode: "full", agent: "build" });
      await turn(page, "count to forty", "Counted to forty.");
      const box = page.locator(".composer textarea");
      const note = page.locator(".composer .composer-note");

      await box.fill("/export json");
      const [json] = await Promise.all([page.waitForEvent("download"), box.press("Enter")]);
      assert.equal(json.suggestedFilename(), `export-me-${id}.json`);
      await shows(note, `Downloaded export-me-${id}.json.`, "what /export json did");
      const text = readFileSync(await json.path(), "utf8");
      const doc = JSON.parse(text);
      const cli = JSON.parse(
        execFileSync(serverBin, ["sessions", "export", id, "--format", "json", "--state-dir", join(server.dir, "home")], { encoding: "utf8", maxBuffer: 64 << 20 }),
      );
      assert.deepEqual(Object.keys(doc), ["format", "session", "events", "messages"]);
      assert.deepEqual(doc, cli, "the same document as `tradewind sessions export --format json`");
      assert.ok(doc.events.some((e) => e.type === "tool_result") && doc.messages.length > 0);
      const imported = await apiCall(page, server, "POST", "/api/sessions/import", doc);
      assert.equal(imported.status, 201, JSON.stringify(imported.json));
      assert.equal(imported.json.session.title, "Export me");

      await box.fill("/export markdown");
      const [md] = await Promise.all([page.waitForEvent("download"), box.press("Enter")]);
      assert.equal(md.suggestedFilename(), `export-me-${id}.md`);
      const markdown = readFileSync(await md.path(), "utf8");
      const cliMd = execFileSync(serverBin, ["sessions", "export", id, "--format", "md", "--state-dir", join(server.dir, "home")], { encoding: "utf8" });
      assert.equal(markdown.split("\n").slice(0, 3).join("\n"), cliMd.split("\n").slice(0, 3).join("\n"), "the CLI's heading");
      assert.ok(markdown.includes("\n## User\n\ncount to forty\n"), markdown);
      assert.ok(markdown.includes("\n## Assistant\n\nCounted to forty.\n"), markdown);
      assert.ok(markdown.includes('\n**shell** `{"command":"seq 1 40"}`\n'), markdown);
      assert.ok(markdown.includes(`\n${LINES.join("\n")}\n`), "the whole output, all forty lines");
      assert.ok(!/more lines/.test(markdown), "never cut");
      assert.ok(/more lines/.test(cliMd), "(the CLI's own transcript cuts it)");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("the header's Export downloads Markdown and JSON, at phone width", { timeout: 90_000 }, async () => {
    const { server, p } = await boot({ viewport: PHONE });
    try {
      const { page } = p;
      const id = await openSession(page, server, { title: "Phone export" });
      await turn(page, "hello", "Hello.");
      const button = page.locator(".session-header").getByRole("button", { name: "Export", exact: true });
      const choices = page.getByRole("group", { name: "Export this session" });

      await button.click();
      await choices.waitFor();
      assert.equal(await button.getAttribute("aria-expanded"), "true");
      const fits = await page.evaluate(() => {
        const r = document.querySelector(".export-pop").getBoundingClientRect();
        return { left: r.left, right: r.right, width: window.innerWidth, scroll: document.documentElement.scrollWidth };
      });
      assert.ok(fits.left >= 0 && fits.right <= fits.width && fits.scroll <= fits.width, `the choices fit the phone: ${JSON.stringify(fits)}`);
      await axe(page, "the export choices at phone width");
      await shot(page, "export-menu-phone");

      // Esc closes the choices and gives the button the focus back.
      await page.keyboard.press("Escape");
      await choices.waitFor({ state: "detached" });
      assert.equal(await button.evaluate((el) => el === document.activeElement), true, "the button has the focus");

      await button.click();
      const [md] = await Promise.all([page.waitForEvent("download"), choices.getByRole("button", { name: "Markdown (.md)" }).click()]);
      assert.equal(md.suggestedFilename(), `phone-export-${id}.md`);
      const markdown = readFileSync(await md.path(), "utf8");
      assert.ok(markdown.startsWith(`# Phone export\n\nSession \`${id}\``), markdown);
      assert.ok(markdown.includes("\n## User\n\nhello\n\n## Assistant\n\nHello.\n"), markdown);
      await choices.waitFor({ state: "detached" });
      await page.locator(".session-header").getByRole("button", { name: "Export", exact: true, disabled: false }).waitFor();

      await button.click();
      const [json] = await Promise.all([page.waitForEvent("download"), choices.getByRole("button", { name: "JSON (.json)" }).click()]);
      assert.equal(json.suggestedFilename(), `phone-export-${id}.json`);
      const doc = JSON.parse(readFileSync(await json.path(), "utf8"));
      assert.equal(doc.format, "tradewind-session/1");
      assert.equal(doc.session.id, id);
      assert.deepEqual(
        doc.events.filter((e) => e.type === "user_message").map((e) => e.text),
        ["hello"],
      );
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });
});
