// Long sessions in the web app, end to end: the real server with the replay provider, priced
// through config.json's models table (1,000 USD per million tokens, a 4,000-token window) so every
// cost shows. The session header's cost and context meter are read when the session opens and
// follow a run live; a run's end shows what it cost; /compact from the composer's picker leaves a
// note with the summary folded away as Markdown; a run stopped by the session's (or the day's)
// spend cap offers "Raise cap and continue", which raises the cap and completes the run; the
// workspace's own templates appear in the picker and send their expanded text, built-in commands
// act on the session and an unknown /word is sent as typed; Settings → Usage lists the day, model
// and session and saves the caps, its validation errors in plain words. axe finds nothing on the
// new states in either theme. Each test starts its own server; waits are on DOM states, never on
// timers.
import assert from "node:assert/strict";
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


const CONFIG = { models: { "replay/replay": { contextWindow: 4000, price: { input: 1000, output: 1000 } } } };

const SUMMARY = "## Goal\nGreet the user.\n\n## Progress and next step\n- Greeted them **once**.";
const TEMPLATE = "---\ndescription: Review a file for problems\n---\nReview $ARGUMENTS carefully and list the problems.\n";

// The summary call's prompt quotes the conversation, so its script comes first.
const scripts = [
  { match: "Summarise this conversation", turns: [{ text: SUMMARY }] },
  { match: "Continue the previous task", turns: [{ text: "Picked up where it stopped." }] },
  { match: "carefully and list the problems", turns: [{ text: "Reviewed: no problems." }] },
  { turns: [{ text: "Hello there." }] },
];

const skip = haveServer() ? false : "server binary not built (target/debug/tradewind)";

/** Dollars as the app shows them at a cent or more. */
const dollars = (v) => `$${v.toFixed(2)}`;

/**
 * The header's cost is the server's (to a millionth of a dollar: the page may sum live events in
 * another order than the database), shown as the page's own value rounded to cents.
 */
async function costShows(page, expected, what) {
  const cost = page.locator(".session-header .usage-cost");
  await page
    .waitForFunction(
      (v) => {
        const el = document.querySelector(".session-header .usage-cost");
        return el !== null && Math.abs(Number(el.getAttribute("data-cost-usd")) - v) < 1e-6;
      },
      expected,
      { timeout: 8000 },
    )
    .catch(async () => assert.fail(`${what}: expected ${expected}, the page has ${await cost.getAttribute("data-cost-usd")}`));
  const own = Number(await cost.getAttribute("data-cost-usd"));
  await shows(cost, dollars(own), what);
}


async function events(page, server, id) {
  return (await get(page, server, `/api/sessions/${id}/events?after=0&limit=5000`)).data;
}

describe("usage, cost, compaction, spend caps and slash commands", { skip, timeout: 600_000 }, () => {
  let browser;

  before(async () => {
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
  });

  /**
   * A server of its own with the priced replay model, and a signed-in page on it. `bypassCSP`
   * only where axe is injected.
   */
  async function boot({ files = {}, bypassCSP = true } = {}) {
    const server = await startServer({ scripts, config: CONFIG, files });
    const first = await newPage(browser, server);
    const state = await signInWithToken(first.page, server);
    await first.context.close();
    const p = await newPage(browser, server, { storageState: state, bypassCSP });
    p.page.setDefaultTimeout(8000);
    await p.page.goto(server.base + "/");
    return { server, p };
  }

  async function finish(server, p) {
    await p?.context.close();
    await server?.stop();
  }

  test("the header's cost and context meter are read at open and follow each run live; a run's end shows its cost", { timeout: 90_000 }, async () => {
    const { server, p } = await boot({ bypassCSP: false });
    try {
      const { page } = p;
      const id = await createSessionViaUi(page, { title: "Costs" });
      const cost = page.locator(".session-header .usage-cost");
      await shows(cost, "$0.00", "the cost of a new session");
      const meter = page.locator(".session-header").getByRole("meter");
      assert.equal(await meter.count(), 0, "no context meter before the first model call");

      await sendPrompt(page, "hello");
      const end = page.locator('.transcript .run-end[data-status="completed"]');
      await end.waitFor({ timeout: 15_000 });
      let usage = await get(page, server, `/api/sessions/${id}/usage`);
      assert.ok(usage.usage.cost_usd > 0.01, `the replay model is priced: ${JSON.stringify(usage)}`);
      await costShows(page, usage.usage.cost_usd, "the header's cost after the first run");
      const pct = Math.round((usage.context.context_tokens / usage.context.context_window) * 100);
      await meter.and(page.getByRole("meter", { name: `Context ${pct} % of 4k tokens` })).waitFor().catch(async () => {
        assert.fail(`context meter: expected "Context ${pct} % of 4k tokens", got ${JSON.stringify(await meter.getAttribute("aria-label").catch(() => null))}`);
      });
      assert.equal(await meter.getAttribute("aria-valuenow"), String(pct));

      // The run's end: tokens in and out, and what the run cost.
      const finished = (await events(page, server, id)).filter((e) => e.type === "run_finished");
      assert.equal(finished.length, 1);
      await shows(end.locator(".run-usage"), /\d.* in · \d+ out · \$\d/, "the run's usage");
      assert.equal(await end.locator(".run-cost").innerText(), dollars(finished[0].usage.cost_usd));
      // model_usage draws no row of its own: the run's start (hidden for a prompt), the prompt,
      // the answer and the run's end.
      assert.equal(await page.locator(".transcript .t-row").count(), 4, "one row per item, none for model_usage");

      // A second run: the header follows without a reload.
      await sendPrompt(page, "and again");
      await page.locator('.transcript .run-end[data-status="completed"]').nth(1).waitFor({ timeout: 15_000 });
      usage = await get(page, server, `/api/sessions/${id}/usage`);
      await costShows(page, usage.usage.cost_usd, "the header's cost after the second run");
      const pct2 = Math.round((usage.context.context_tokens / 4000) * 100);
      await page.getByRole("meter", { name: `Context ${pct2} % of 4k tokens` }).waitFor();
      await shot(page, "usage-header");

      // Opened again: read from the server, the same.
      await page.reload();
      await costShows(page, usage.usage.cost_usd, "the header's cost after a reload");
      await page.getByRole("meter", { name: `Context ${pct2} % of 4k tokens` }).waitFor();
      assert.deepEqual(await page.evaluate(() => window.__cspViolations), [], "CSP violations");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("/compact from the composer's picker: a note says what was summarised and its cost, the summary folded as Markdown; again, nothing to compact", { timeout: 90_000 }, async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      const id = await createSessionViaUi(page, { title: "Compact" });
      // Longer than the summary: a summary that would not shrink the conversation is refused.
      await sendPrompt(page, `hello — ${"please greet me warmly, and say who you are. ".repeat(6)}`);
      await page.locator('.transcript .run-end[data-status="completed"]').waitFor({ timeout: 15_000 });

      const box = page.locator(".composer textarea");
      await box.fill("/comp");
      const picker = page.getByRole("listbox", { name: "Commands" });
      const option = picker.getByRole("option", { name: /^\/compact/ });
      await option.waitFor();
      assert.equal(await option.getAttribute("aria-selected"), "true");
      await shows(option, "Summarise the older turns", "the command's description");
      assert.equal(await box.getAttribute("aria-activedescendant"), await option.getAttribute("id"));
      await axe(page, "the command picker");
      await box.press("Enter");

      const note = page.locator(".transcript .compaction-note");
      await note.waitFor({ timeout: 15_000 });
      await page.locator(".transcript .run-start").getByText("Compacting the conversation").waitFor();
      const ev = (await events(page, server, id)).find((e) => e.type === "context_compacted");
      assert.ok(ev, "the server compacted");
      assert.equal(ev.trigger, "manual");
      const n = ev.messages_summarized;
      const fmt = (x) => x.toLocaleString("en-US");
      const line = `Conversation compacted by hand: ${n} older message${n === 1 ? "" : "s"} summarised · ~${fmt(ev.tokens_before)} → ${fmt(ev.tokens_after)} tokens · ${dollars(ev.usage.cost_usd)}`;
      assert.equal(await note.locator(".system-note-label").innerText(), line);
      assert.equal(await note.getAttribute("role"), "note");

      // The summary: folded, then Markdown (headings, emphasis), never raw.
      const details = note.locator("details");
      assert.equal(await details.evaluate((d) => d.open), false, "the summary starts folded");
      await details.locator("summary").click();
      await note.locator(".markdown h2").getByText("Goal").waitFor();
      assert.equal(await note.locator(".markdown strong").innerText(), "once");
      assert.doesNotMatch(await note.locator(".markdown").innerText(), /##/);

      // The header: the fill after the compaction, the cost with the summary call.
      await page.getByRole("meter", { name: `Context ${Math.round((ev.tokens_after / 4000) * 100)} % of 4k tokens` }).waitFor();
      const usage = await get(page, server, `/api/sessions/${id}/usage`);
      await costShows(page, usage.usage.cost_usd, "the cost with the compaction");
      await axe(page, "the compaction note with its summary open");
      await shot(page, "usage-compacted");

      // Typed in full: the same command; with nothing older to summarise it says so, quietly.
      await box.fill("/compact");
      await box.press("Enter");
      const nothing = page.locator('.transcript .system-note[data-code="nothing_to_compact"]');
      await shows(nothing, "Nothing to compact yet", "the note when nothing can be compacted", 15_000);
      assert.equal(await page.locator(".transcript .compaction-note").count(), 1);
      assert.equal(await page.locator('.transcript .error-note[data-code="nothing_to_compact"]').count(), 0, "not shown as an error");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("a run stopped by the session's spend cap offers Raise cap and continue: the cap goes up and the run completes", { timeout: 90_000 }, async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      const id = await createSessionViaUi(page, { title: "Capped" });
      await sendPrompt(page, "hello");
      await page.locator('.transcript .run-end[data-status="completed"]').waitFor({ timeout: 15_000 });
      const spent = (await get(page, server, `/api/sessions/${id}/usage`)).usage.cost_usd;
      const patched = await apiCall(page, server, "PATCH", `/api/sessions/${id}`, { spend_cap_usd: 1 });
      assert.equal(patched.status, 200, JSON.stringify(patched.json));
      await shows(page.locator(".session-header .usage-cost"), `${dollars(spent)} of $1.00`, "the header's cost with the cap");

      await sendPrompt(page, "second question");
      const stopped = page.locator('.transcript .run-end[data-status="failed"]');
      await stopped.waitFor({ timeout: 15_000 });
      await shows(stopped.locator(".error-sentence"), "This session reached its spend cap", "the stopped run's sentence");
      assert.equal(await stopped.getByRole("button", { name: "Retry" }).count(), 0, "no plain Retry: it would stop again");
      await stopped.getByRole("button", { name: "Raise cap and continue" }).click();

      const form = stopped.getByRole("form", { name: "Raise the spend cap and continue" });
      const input = form.getByLabel("New spend cap for this session (USD)");
      await shows(form, `Spent by this session: ${dollars(spent)} of a $1.00 cap.`, "what was spent");
      const prefilled = Number(await input.inputValue());
      assert.ok(prefilled > spent, `prefilled above what was spent: ${prefilled} > ${spent}`);
      assert.equal(await input.evaluate((el) => el === document.activeElement), true, "the amount has the focus");
      await axe(page, "the raise-the-cap form");

      // Not above what was spent: said in plain words, nothing sent.
      await input.fill("1");
      await form.getByRole("button", { name: "Raise and continue" }).click();
      await shows(form.getByRole("alert"), `Enter more than the ${dollars(spent)} already spent`, "the error under the form");
      assert.equal(await input.getAttribute("aria-invalid"), "true");
      await axe(page, "the raise-the-cap form with an error");

      await input.fill(String(prefilled));
      const resumed = page.waitForResponse((r) => /\/api\/runs\/[^/]+\/resume$/.test(r.url()) && r.request().method() === "POST");
      await form.getByRole("button", { name: "Raise and continue" }).click();
      assert.equal((await resumed).status(), 202);
      await page.locator(".msg-assistant").getByText("Picked up where it stopped.").waitFor({ timeout: 15_000 });
      await page.locator('.transcript .run-end[data-status="completed"]').nth(1).waitFor();
      assert.equal(await form.count(), 0, "the form goes once the run goes on");
      const session = await get(page, server, `/api/sessions/${id}`);
      assert.equal(session.spend_cap_usd, prefilled);
      await shows(page.locator(".session-header .usage-cost"), `of ${dollars(prefilled)}`, "the header's cap after the raise");
      await shot(page, "usage-cap-raised");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("a run stopped by the daily cap raises the day's cap (the session cap kept) and completes", { timeout: 90_000 }, async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      await createSessionViaUi(page, { title: "Day capped" });
      await sendPrompt(page, "hello");
      await page.locator('.transcript .run-end[data-status="completed"]').waitFor({ timeout: 15_000 });
      const put = await apiCall(page, server, "PUT", "/api/usage/caps", { session_usd: 500, day_usd: 1 });
      assert.equal(put.status, 200, JSON.stringify(put.json));

      await sendPrompt(page, "second question");
      const stopped = page.locator('.transcript .run-end[data-status="failed"]');
      await stopped.waitFor({ timeout: 15_000 });
      await shows(stopped.locator(".error-sentence"), "Today's spend cap for all sessions together is reached", "the stopped run's sentence");
      await stopped.getByRole("button", { name: "Raise cap and continue" }).click();
      const input = stopped.getByLabel("New daily cap for all sessions (USD)");
      await shows(stopped.locator(".spend-cap-form"), "Spent today by all sessions", "what was spent today");
      const prefilled = Number(await input.inputValue());
      assert.ok(prefilled > 1, `prefilled above what was spent: ${prefilled}`);
      await stopped.getByRole("button", { name: "Raise and continue" }).click();
      await page.locator(".msg-assistant").getByText("Picked up where it stopped.").waitFor({ timeout: 15_000 });
      assert.deepEqual(await get(page, server, "/api/usage/caps"), { session_usd: 500, day_usd: prefilled });
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("the picker lists the built-in commands and the workspace's templates; a template sends its expanded text; built-ins act; /etc/… is sent as typed", { timeout: 90_000 }, async () => {
    const { server, p } = await boot({ files: { ".tradewind/commands/review.md": TEMPLATE } });
    try {
      const { page } = p;
      const id = await createSessionViaUi(page, { title: "Commands", mode: "ask" });
      const box = page.locator(".composer textarea");
      const picker = page.getByRole("listbox", { name: "Commands" });

      // Everything, with descriptions; the template marked as the workspace's.
      await box.fill("/");
      const review = picker.locator('[data-command="review"]');
      await review.waitFor();
      const labels = await picker.locator(".slash-name").allInnerTexts();
      assert.deepEqual(labels, [
        "/help", "/compact", "/plan", "/build", "/agent", "/mode ask", "/mode auto", "/mode full", "/model", "/goal", "/new", "/clear", "/cost", "/status",
        "/diff", "/export json", "/export markdown", "/undo", "/redo", "/search", "/skills", "/agents", "/plugins", "/init", "/review",
      ]);
      await shows(review, "Review a file for problems", "the template's description");
      await shows(review.locator(".slash-kind"), "workspace", "the template's tag");
      await axe(page, "the picker with the workspace's template");
      await shot(page, "usage-picker");

      // Esc closes it, the text stays; it stays closed while the same command is typed on.
      await box.fill("/rev");
      await review.waitFor();
      assert.equal(await picker.getByRole("option").count(), 1);
      await box.press("Escape");
      await picker.waitFor({ state: "detached" });
      assert.equal(await box.inputValue(), "/rev");
      await box.press("i");
      assert.equal(await box.inputValue(), "/revi");
      assert.equal(await picker.count(), 0, "still closed after Esc");

      // Tab completes the name; the arguments follow; Enter sends the template's text.
      await box.fill("");
      await box.fill("/rev");
      await review.waitFor();
      await box.press("Tab");
      await picker.waitFor({ state: "detached" });
      assert.equal(await box.inputValue(), "/review ");
      await box.pressSequentially("src/app.ts");
      await box.press("Enter");
      await page.locator(".msg-user .user-text").getByText("Review src/app.ts carefully and list the problems.", { exact: true }).waitFor({ timeout: 15_000 });
      await page.locator(".msg-assistant").getByText("Reviewed: no problems.").waitFor({ timeout: 15_000 });
      const sent = (await events(page, server, id)).filter((e) => e.type === "user_message").map((e) => e.text);
      assert.deepEqual(sent, ["Review src/app.ts carefully and list the problems."]);

      // Arrows pick among the matches: /mode auto.
      await box.fill("/mode");
      await picker.getByRole("option").nth(2).waitFor();
      await box.press("ArrowDown");
      await picker.locator('[data-command="mode auto"][aria-selected="true"]').waitFor().catch(async () => {
        assert.fail(`ArrowDown did not select /mode auto: ${await picker.locator('[aria-selected="true"]').allInnerTexts()}`);
      });
      await box.press("Enter");
      await shows(page.locator(".composer .composer-note"), "Permissions set to auto.", "what /mode did");
      assert.equal(await page.locator('.composer select[name="mode"]').inputValue(), "auto");
      assert.equal((await get(page, server, `/api/sessions/${id}`)).mode, "auto");

      // /plan and /build switch the agent.
      await box.fill("/plan");
      await box.press("Enter");
      await page.locator('.session-sub select[name="agent"][data-agent="plan"]').waitFor();
      await box.fill("/build");
      await box.press("Enter");
      await page.locator('.session-sub select[name="agent"][data-agent="build"]').waitFor();

      // Not a command: the text goes to the agent as typed.
      await box.fill("/etc/hosts is missing");
      assert.equal(await picker.count(), 0, "no picker for a path");
      await box.press("Enter");
      await page.locator(".msg-user .user-text").getByText("/etc/hosts is missing", { exact: true }).waitFor({ timeout: 15_000 });
      await page.locator('.transcript .run-end[data-status="completed"]').nth(1).waitFor({ timeout: 15_000 });

      // /new: a new session in the same workspace, with the same agent and permissions.
      const before = await get(page, server, `/api/sessions/${id}`);
      await box.fill("/new");
      await box.press("Enter");
      await page.waitForURL((u) => u.pathname.startsWith("/s/") && !u.pathname.endsWith(id));
      const fresh = decodeURIComponent(new URL(page.url()).pathname.split("/").pop());
      const made = await get(page, server, `/api/sessions/${fresh}`);
      assert.equal(made.workspace, before.workspace);
      assert.equal(made.mode, "auto");
      assert.equal(made.agent, "build");
      await page.locator(".empty-transcript").waitFor();
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("Settings → Usage: the day's row by day, model and session, and the spend caps saved (validation errors in plain words)", { timeout: 90_000 }, async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      const id = await createSessionViaUi(page, { title: "Usage view" });
      await sendPrompt(page, "hello");
      await page.locator('.transcript .run-end[data-status="completed"]').waitFor({ timeout: 15_000 });
      const byDay = await get(page, server, "/api/usage?group=day");
      assert.equal(byDay.rows.length, 1);
      const day = byDay.rows[0];

      await page.getByRole("link", { name: "Settings" }).click();
      const panel = page.getByRole("region", { name: "Usage", exact: true });
      const table = panel.getByRole("table");
      await table.locator(`tr[data-key="${day.key}"]`).waitFor();
      const cells = async (key) => table.locator(`tr[data-key="${key}"]`).locator("th, td").allInnerTexts();
      const fmt = (x) => x.toLocaleString("en-US");
      assert.deepEqual(await cells(day.key), [
        day.key,
        String(day.calls),
        fmt(day.usage.input_tokens),
        fmt(day.usage.cached_input_tokens),
        fmt(day.usage.output_tokens),
        dollars(day.usage.cost_usd),
      ]);
      assert.deepEqual((await cells("total")).slice(0, 2), ["Total", String(day.calls)]);
      assert.deepEqual(await table.locator("thead th").allInnerTexts(), ["Day (UTC)", "Calls", "Input", "Cached", "Output", "Cost"]);

      const group = panel.getByLabel("Group by");
      await group.selectOption("model");
      await table.locator('tr[data-key="replay/replay"]').waitFor();
      await group.selectOption("session");
      const row = table.locator(`tr[data-key="${id}"]`);
      await row.getByRole("link", { name: "Usage view" }).waitFor();
      assert.equal((await cells(id))[5], dollars(day.usage.cost_usd));

      // The caps: a negative amount is refused here, one the server refuses says why, then saved.
      const perSession = panel.getByLabel("Per session (USD)");
      const perDay = panel.getByLabel("Per day, all sessions (USD)");
      await perSession.fill("-5");
      await panel.getByRole("button", { name: "Save" }).click();
      await shows(panel.locator("#session_usd-error"), "Enter an amount in US dollars (0 or more)", "the field's error");
      assert.equal(await perSession.getAttribute("aria-invalid"), "true");
      await axe(page, "Settings → Usage with a field error");
      await perSession.fill("2000000");
      await panel.getByRole("button", { name: "Save" }).click();
      await shows(panel.getByRole("alert"), /Not saved: .*session_usd/, "the server's refusal");
      await perSession.fill("5");
      await perDay.fill("$20");
      await panel.getByRole("button", { name: "Save" }).click();
      await shows(panel.getByRole("status"), "Saved.", "the save");
      assert.deepEqual(await get(page, server, "/api/usage/caps"), { session_usd: 5, day_usd: 20 });
      await shot(page, "usage-settings");

      // Read back from the server when the page opens again.
      await page.reload();
      await page
        .waitForFunction(() => document.querySelector('input[name="day_usd"]')?.value === "20", null, { timeout: 8000 })
        .catch(() => assert.fail("the saved daily cap was not read back after a reload"));
      assert.equal(await page.getByLabel("Per session (USD)").inputValue(), "5");
      await axe(page, "Settings → Usage");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });
});
