// Layout and contrast polish, end to end: the real server (replay provider, or frames pushed through
// the page's WebSocket), real Chromium. Highlighted code and a finished retry note reach 4.5:1 in
// both themes; a scrolling command preview on an approval card (and any box in a tool card that
// scrolls) is reachable with the keyboard; at 390×844 the transcript keeps most of the height (a
// one-line header, pinned panels folded) and the header's toggle shows the rest; at 1366×768 the
// header shows the whole workspace path and model name; Settings has an index of its sections that
// jumps to each one, and at 390 px its Usage table fits; a message's Copy/Rewind/Regenerate take no
// room until shown. axe finds nothing on each screen, light and dark. Each test starts its own
// server; waits are on DOM states, never on timers.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  apiCall,
  assertClean,
  createSessionViaUi,
  haveServer,
  launchBrowser,
  newPage,
  openFixtureSession,
  sendPrompt,
  shot,
  signInWithToken,
  startServer,
} from "./harness.mjs";
import { axe } from "./checks.mjs";

const LONG_COMMAND = Array.from({ length: 60 }, (_, i) => `echo "step ${i + 1}: check the module"`).join("\n");
const PRICED = { models: { "replay/replay": { contextWindow: 4000, price: { input: 1000, output: 1000 } } } };

const scripts = [
  { match: "run the long check", turns: [{ text: "Checking.", tool_calls: [{ name: "shell", arguments: { command: LONG_COMMAND } }] }, { text: "Checked." }] },
  { turns: [{ text: "Hello there." }] },
];

/** Code in five languages: keywords, strings, numbers, titles, parameters, variables, comments, types, regexps. */
const CODE = [
  "Here is the code.",
  "",
  "```js",
  "// load the settings",
  'const name = "tradewind";',
  "function load(path, retries = 3) {",
  "  return /\\.json$/.test(path) ? console.log(name, 42, true) : null;",
  "}",
  "```",
  "",
  "```python",
  "def greet(who: str) -> None:",
  '    print(f"hello {who}", 1.5)',
  "```",
  "",
  "```rust",
  "fn main() { let v: Vec<u8> = vec![1, 2]; }",
  "```",
  "",
  "```bash",
  'echo "$HOME" && export PATH=/usr/bin',
  "```",
  "",
  "```css",
  ".card > h2 { color: #333; margin: 0 4px; }",
  "```",
].join("\n");

const skip = haveServer() ? false : "server binary not built (target/debug/tradewind)";

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const LAPTOP = { width: 1366, height: 768 };

describe("layout and contrast polish", { skip, timeout: 600_000 }, () => {
  let browser;

  before(async () => {
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
  });

  /** A server of its own and a signed-in page on it (CSP bypassed only so axe can be injected). */
  async function boot(viewport = DESKTOP, { config } = {}) {
    const server = await startServer({ scripts, config, args: ["--allow-write", "--allow-process"] });
    const first = await newPage(browser, server);
    const state = await signInWithToken(first.page, server);
    await first.context.close();
    const p = await newPage(browser, server, { storageState: state, bypassCSP: true, viewport });
    p.page.setDefaultTimeout(10_000);
    await p.page.goto(server.base + "/");
    return { server, p };
  }

  async function finish(server, p) {
    await p?.context.close();
    await server?.stop();
  }

  /** A finished run pushed as frames: the prompt, `extra` events, the answer `text`. */
  function pushRun(inj, n, text, extra = []) {
    const run = `01RUNPOLISH${String(n).padStart(15, "0")}`;
    inj.send({ type: "run_started", run, run_id: run, agent: "build", mode: "ask", trigger: "prompt" });
    inj.send({ type: "user_message", run, message_id: `01MSGU${n}`, text: `question ${n}` });
    for (const ev of extra) inj.send({ run, ...ev });
    inj.send({ type: "message_complete", run, message_id: `01MSGA${n}`, reasoning: "", text });
    inj.send({ type: "run_finished", run, run_id: run, status: "completed", usage: { input_tokens: 10, output_tokens: 5 }, duration_ms: 40 });
  }

  /** Boxes under `selector` that scroll but are not reachable with the keyboard (nor hold anything that is). */
  const unreachableScrollers = (page, selector) =>
    page.evaluate((sel) => {
      const out = [];
      for (const root of document.querySelectorAll(sel)) {
        for (const el of root.querySelectorAll("*")) {
          const s = getComputedStyle(el);
          if (!/auto|scroll/.test(`${s.overflowX} ${s.overflowY}`)) continue;
          if (el.scrollHeight <= el.clientHeight + 1 && el.scrollWidth <= el.clientWidth + 1) continue;
          if (el.hasAttribute("tabindex") && el.tabIndex >= 0 && (el.getAttribute("aria-label") || el.getAttribute("aria-labelledby"))) continue;
          if (el.querySelector("a[href], button, input, select, textarea, summary, [tabindex]:not([tabindex='-1'])")) continue;
          out.push(el.outerHTML.slice(0, 140));
        }
      }
      return out;
    }, selector);

  /** Waits until the focused element has id `id`. */
  const focusedId = (page, id, what) =>
    page
      .waitForFunction((want) => document.activeElement?.id === want, id, { timeout: 5000 })
      .catch(async () => assert.fail(`${what}: the focus is on ${await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 120))}`));

  test("1280 px: highlighted code (five languages) and a finished retry note reach 4.5:1 in both themes", async () => {
    const { server, p } = await boot(DESKTOP);
    try {
      const { page } = p;
      const { inj } = await openFixtureSession(p, server, "Code colours");
      pushRun(inj, 1, CODE, [{ type: "provider_retry", attempt: 2, max_attempts: 4, delay_ms: 1000, reason: "rate limited" }]);
      await page.locator(".retry-note.over").waitFor();
      // Every block highlighted (each language loads on its own).
      await page.waitForFunction(() => {
        const blocks = [...document.querySelectorAll(".transcript .markdown pre code")];
        return blocks.length === 5 && blocks.every((b) => b.querySelector('span[class^="hljs-"]'));
      });
      for (const token of ["keyword", "string", "number", "title", "params", "variable", "comment", "type", "regexp", "built_in"]) {
        assert.ok(await page.locator(`.transcript .markdown .hljs-${token}`).count() > 0, `a .hljs-${token} token shows`);
      }
      await shot(page, "polish-code-colours");
      await axe(page, "highlighted code and a finished retry note");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("1280 px: an approval card's long command scrolls in a box the keyboard reaches (Tab, then PageDown); a tool card's long input and output too; axe in both themes", async () => {
    const { server, p } = await boot(DESKTOP);
    try {
      const { page } = p;
      await createSessionViaUi(page, { title: "Long command", mode: "ask" });
      await sendPrompt(page, "run the long check");
      const card = page.locator(".transcript .approval-card");
      await card.waitFor({ timeout: 15_000 });
      const box = card.locator('pre[tabindex="0"][role="group"]');
      await box.waitFor();
      assert.equal(await box.count(), 1, "one scrolling box on the card");
      assert.ok((await box.getAttribute("aria-label"))?.trim(), "the box is named");
      assert.ok(await box.evaluate((el) => el.scrollHeight > el.clientHeight), "the command preview scrolls");
      assert.ok((await box.textContent()).includes("step 60"), "the whole command is in it");
      // From the card, Tab lands on the box; PageDown scrolls it.
      await card.focus();
      await page.keyboard.press("Tab");
      await page.waitForFunction(() => document.activeElement?.matches(".approval-card pre"));
      await page.keyboard.press("PageDown");
      await page.waitForFunction(() => document.querySelector(".approval-card pre").scrollTop > 0);
      assert.equal(p.log.requests.filter((u) => /\/api\/approvals\//.test(u)).length, 0, "no key answered the approval");
      assert.deepEqual(await unreachableScrollers(page, ".transcript .approval-card"), []);
      await axe(page, "an approval card with a long command");

      // A tool card whose input and output are long: every box in it that scrolls is reachable.
      const { inj } = await openFixtureSession(p, server, "Long tool card");
      const content = Array.from({ length: 80 }, (_, i) => `line ${i + 1} of the file`).join("\n");
      pushRun(inj, 2, "Written.", [
        { type: "tool_call", call_id: "w1", tool: "write_file", effect: "write", input: { path: "notes.txt", content } },
        { type: "tool_result", call_id: "w1", tool: "write_file", ok: true, text: Array.from({ length: 80 }, (_, i) => `output ${i + 1}`).join("\n"), parts: [] },
      ]);
      const tool = page.locator('.transcript .tool-card[data-call-id="w1"]');
      await tool.locator(".tool-head").click();
      await tool.locator('[tabindex="0"][role="group"]').first().waitFor();
      assert.deepEqual(await unreachableScrollers(page, ".transcript .tool-card"), []);
      await axe(page, "an open tool card with a long input and output");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("390×844: with a session open (a conversation, a checklist, a background task) the transcript keeps at least 60 % of the height; the header's toggle shows the rest; axe in both themes", async () => {
    const { server, p } = await boot(PHONE);
    try {
      const { page } = p;
      const { id, inj } = await openFixtureSession(p, server, "Phone room");
      const todos = [
        { text: "Read the module", status: "done" },
        { text: "Write the cache", status: "in_progress" },
        { text: "Test it", status: "pending" },
        { text: "Document it", status: "pending" },
      ];
      pushRun(inj, 1, "First answer.");
      pushRun(inj, 2, "Second answer, with a plan.", [
        { type: "tool_call", call_id: "t1", tool: "todo_write", effect: "read", input: { todos } },
        { type: "tool_result", call_id: "t1", tool: "todo_write", ok: true, text: "4 items", parts: [{ type: "todos", items: todos }] },
      ]);
      const t0 = Date.now();
      inj.send({
        type: "task_updated",
        task: { id: "01TASKPOLISH", session_id: id, label: "watcher", command: "npm run dev", cwd: "/ws", status: "running", exit_code: null, error: null, stopped_by: null, pid: 9, output_bytes: 0, timeout_ms: 60_000, created_at: t0, started_at: t0, finished_at: null },
      });
      await page.locator(".todo-panel").waitFor();
      await page.locator(".tasks-panel").waitFor();
      await page.locator(".transcript .msg-assistant", { hasText: "Second answer" }).waitFor();
      await page.locator(".session-header .model-button").waitFor();

      const room = await page.evaluate(() => ({
        transcript: document.querySelector(".transcript").getBoundingClientRect().height,
        header: document.querySelector(".session-header").getBoundingClientRect().height,
        height: window.innerHeight,
        sideways: document.documentElement.scrollWidth - window.innerWidth,
      }));
      assert.ok(room.transcript >= 0.6 * room.height, `the transcript gets ${Math.round(room.transcript)} of ${room.height} px (${Math.round((100 * room.transcript) / room.height)} %)`);
      assert.ok(room.sideways <= 0, `no sideways scroll (${room.sideways} px)`);
      // The folded panels still say what they hold, and unfold.
      assert.equal(await page.locator(".todo-panel details").evaluate((d) => d.open), false, "the checklist starts folded");
      await page.locator(".todo-panel summary").click();
      await page.locator(".todo-panel .todo-item").first().waitFor();
      await page.locator(".todo-panel summary").click();
      await page.locator(".todo-panel .todo-item").first().waitFor({ state: "hidden" });

      // The title line holds the title, the model and the toggle; the rest shows on demand.
      const toggle = page.locator(".session-header").getByRole("button", { name: "Session details" });
      assert.equal(await toggle.getAttribute("aria-expanded"), "false");
      assert.equal(await page.locator(".session-header .ws-path").isVisible(), false, "the workspace waits behind the toggle");
      for (const name of ["Artifacts", "Permissions", "Export"]) {
        await page.locator(".session-actions").getByRole("button", { name, exact: true }).waitFor();
      }
      await shot(page, "polish-phone-session");
      await axe(page, "a phone session, header folded");
      await toggle.click();
      await page.locator(".session-header .ws-path").waitFor();
      assert.equal(await toggle.getAttribute("aria-expanded"), "true");
      await page.locator('.session-sub select[name="agent"]').waitFor();
      await page.locator(".session-actions").getByRole("button", { name: "Delete", exact: true }).waitFor();
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), "no sideways scroll with the details shown");
      await shot(page, "polish-phone-session-details");
      await axe(page, "a phone session, header unfolded");
      await toggle.click();
      await page.locator(".session-header .ws-path").waitFor({ state: "hidden" });
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("1366×768: the header shows the whole workspace path and the whole model name (nothing clipped, nothing overlapping); axe in both themes", async () => {
    const { server, p } = await boot(LAPTOP);
    try {
      const { page } = p;
      const workspace = join(server.workspace, "projects", "customer-portal", "services", "billing-reconciliation-worker");
      mkdirSync(workspace, { recursive: true });
      const model = "qwen2.5-coder-32b-instruct-q4_K_M";
      const made = await apiCall(page, server, "POST", "/api/sessions", { title: "Wide header", workspace });
      assert.equal(made.status, 201, JSON.stringify(made.json));
      const set = await apiCall(page, server, "PATCH", `/api/sessions/${made.json.id}`, { provider: "default", model });
      assert.equal(set.status, 200, JSON.stringify(set.json));
      await page.goto(`${server.base}/s/${made.json.id}`);
      await page.locator(`.session-header .model-button[data-model="default/${model}"]`).waitFor();
      await page.locator(".session-header .ws-path").waitFor();

      const seen = await page.evaluate(() => {
        const clipped = (el) => el.scrollWidth > el.clientWidth;
        const ws = document.querySelector(".session-header .ws-path");
        const current = document.querySelector(".session-header .model-current");
        const a = document.querySelector(".session-header .session-actions").getBoundingClientRect();
        const overlaps = [...document.querySelectorAll(".session-header .session-sub > *")].filter((el) => {
          const b = el.getBoundingClientRect();
          return b.left < a.right && b.right > a.left && b.top < a.bottom && b.bottom > a.top;
        }).length;
        return {
          path: ws.textContent,
          pathClipped: [ws, ...ws.querySelectorAll("*")].some(clipped),
          model: current.textContent,
          modelClipped: clipped(current) || clipped(current.closest("button")),
          overlaps,
        };
      });
      assert.equal(seen.path, workspace, "the whole path is the text");
      assert.equal(seen.pathClipped, false, "the path is not cut");
      assert.equal(seen.model, `default/${model}`);
      assert.equal(seen.modelClipped, false, "the model name is not cut");
      assert.equal(seen.overlaps, 0, "the actions overlap none of the facts");
      assert.equal(await page.locator(".session-header .ws-path").getAttribute("title"), workspace);
      await shot(page, "polish-header-1366");
      await axe(page, "the session header at 1366 px");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  test("390 px: Settings › Usage — the table's six columns fit the phone (in its own focusable, named box), nothing of the page sticks out sideways; axe in both themes", async () => {
    const { server, p } = await boot(PHONE, { config: PRICED });
    try {
      const { page } = p;
      const made = await apiCall(page, server, "POST", "/api/sessions", { title: "A session whose title is long enough to wrap in the table" });
      assert.equal(made.status, 201);
      await page.goto(`${server.base}/s/${made.json.id}`);
      await sendPrompt(page, "hello");
      await page.locator(".transcript .run-end").waitFor({ timeout: 15_000 });
      await page.goto(`${server.base}/settings`);
      const table = page.locator(".usage-table");
      await table.locator("tbody tr").first().waitFor();
      for (const group of ["day", "model", "session"]) {
        await page.locator('.usage-panel select[name="group"]').selectOption(group);
        await page.locator(`.usage-table[data-group="${group}"] tbody tr`).first().waitFor();
        await page.locator(".usage-scroll").scrollIntoViewIfNeeded();
        const fit = await page.evaluate(() => {
          const box = document.querySelector(".usage-scroll");
          const b = box.getBoundingClientRect();
          const cost = [...document.querySelectorAll(".usage-table thead th")].at(-1).getBoundingClientRect();
          const settings = document.querySelector(".settings");
          return {
            scroll: box.scrollWidth - box.clientWidth,
            right: b.right,
            costRight: cost.right,
            width: window.innerWidth,
            page: settings.scrollWidth - settings.clientWidth,
            tab: box.getAttribute("tabindex"),
            name: box.getAttribute("aria-label"),
          };
        });
        assert.ok(fit.scroll <= 0, `by ${group}: the table fits its box (${fit.scroll} px over)`);
        assert.ok(fit.costRight <= fit.right + 0.5 && fit.right <= fit.width, `by ${group}: the Cost column shows whole: ${JSON.stringify(fit)}`);
        assert.ok(fit.page <= 0, `by ${group}: nothing of Settings sticks out sideways (${fit.page} px)`);
        assert.equal(fit.tab, "0", "its box is focusable (wider numbers scroll in it)");
        assert.ok(fit.name, "its box is named");
      }
      await shot(page, "polish-usage-phone");
      await axe(page, "Settings › Usage at 390 px");
      assertClean(p);
    } finally {
      await finish(server, p);
    }
  });

  for (const [name, viewport] of [
    ["1280 px", DESKTOP],
    ["390 px", PHONE],
  ]) {
    test(`${name}: Settings opens on an index of its sections; each link names a section that exists and brings its heading into view with the focus; axe in both themes`, async () => {
      const { server, p } = await boot(viewport);
      try {
        const { page } = p;
        await page.goto(`${server.base}/settings`);
        const index = page.getByRole("navigation", { name: "Settings sections" });
        await index.waitFor();
        await page.locator("#tokens-h").waitFor();
        const links = await index.getByRole("link").evaluateAll((as) => as.map((a) => ({ text: a.textContent.trim(), target: a.getAttribute("href").slice(1) })));
        assert.ok(links.length >= 12, `the index lists the sections: ${JSON.stringify(links)}`);
        const missing = await page.evaluate((ids) => ids.filter((id) => !document.getElementById(id)), links.map((l) => l.target));
        assert.deepEqual(missing, [], "every link has its section");
        const headings = await page.locator(".settings .card > h2").allTextContents();
        for (const l of links) assert.ok(headings.some((h) => h.trim().startsWith(l.text.split(" ")[0])), `“${l.text}” names a section heading: ${JSON.stringify(headings)}`);
        await axe(page, `Settings with its index (${name})`);

        for (const [text, id] of [
          ["API tokens", "tokens-h"],
          ["Usage", "usage-h"],
          ["Appearance and alerts", "appearance-h"],
        ]) {
          await index.getByRole("link", { name: text, exact: true }).click();
          await focusedId(page, id, `after “${text}”`);
          // At the top of the page, or as high as it goes (the last sections: scrolled to the end).
          const at = await page.evaluate((hid) => {
            const h = document.getElementById(hid).getBoundingClientRect();
            const settings = document.querySelector(".settings");
            const s = settings.getBoundingClientRect();
            return { top: h.top - s.top, bottom: s.bottom - h.bottom, atEnd: settings.scrollTop + settings.clientHeight >= settings.scrollHeight - 1 };
          }, id);
          assert.ok(at.top >= -1 && at.bottom >= 0 && (at.top <= 40 || at.atEnd), `“${text}” brings its heading into view, at the top: ${JSON.stringify(at)}`);
        }
        assert.equal(new URL(page.url()).pathname, "/settings", "still on Settings");
        await shot(page, `polish-settings-index-${name === "390 px" ? "phone" : "desktop"}`);
        assertClean(p);
      } finally {
        await finish(server, p);
      }
    });
  }

  for (const [name, viewport] of [
    ["1280 px", DESKTOP],
    ["390 px", PHONE],
  ]) {
    test(`${name}: a message's Copy, Rewind and Regenerate take no room until shown (no empty row, the text never moves), show on hover and on focus; axe in both themes`, async () => {
      const { server, p } = await boot(viewport);
      try {
        const { page } = p;
        await createSessionViaUi(page, { title: "Actions" });
        await sendPrompt(page, "hello");
        const answer = page.locator(".transcript .msg-assistant", { hasText: "Hello there." });
        await answer.getByRole("button", { name: "Regenerate", exact: true }).waitFor({ state: "attached" });
        const user = page.locator(".transcript .msg-user").first();
        await user.getByRole("button", { name: "Rewind to here" }).waitFor({ state: "attached" });
        // Away from the messages: nothing hovered.
        await page.mouse.move(2, viewport.height - 2);

        /** The meta line against its timestamp, hidden things that take room, and the message's box. */
        const measure = () =>
          page.evaluate(() => {
            const msg = [...document.querySelectorAll(".transcript .msg-assistant")].at(-1);
            const meta = msg.querySelector(".msg-meta");
            const stamp = meta.querySelector(".timestamp, time");
            const hiddenInFlow = [];
            for (const m of document.querySelectorAll(".transcript .msg-meta")) {
              for (const el of m.querySelectorAll("*")) {
                if (el.getClientRects().length === 0) continue;
                let opacity = 1;
                let inFlow = true;
                for (let e = el; e && e !== m; e = e.parentElement) {
                  const s = getComputedStyle(e);
                  opacity *= Number(s.opacity);
                  if (s.position === "absolute" || s.position === "fixed") inFlow = false;
                }
                if (inFlow && opacity === 0) hiddenInFlow.push(el.textContent.trim() || el.tagName);
              }
            }
            const t = document.querySelector(".transcript");
            return {
              meta: meta.getBoundingClientRect().height,
              stamp: stamp.getBoundingClientRect().height,
              box: msg.getBoundingClientRect().height,
              textTop: msg.querySelector(".markdown").getBoundingClientRect().top,
              hiddenInFlow,
              sideways: t.scrollWidth - t.clientWidth,
            };
          });
        const shown = (loc) => loc.evaluate((el) => getComputedStyle(el.closest(".msg-actions") ?? el).opacity === "1");

        const rest = await measure();
        assert.ok(rest.meta - rest.stamp <= 2, `the answer's meta line is its timestamp's height (${rest.meta} vs ${rest.stamp}): no empty action row`);
        assert.deepEqual(rest.hiddenInFlow, [], "no hidden action takes room");
        assert.ok(rest.sideways <= 0, `nothing widens the transcript (${rest.sideways} px)`);

        // Hover: the actions show, over the line; the message's box and text stay where they were.
        const regen = answer.getByRole("button", { name: "Regenerate", exact: true });
        assert.equal(await shown(regen), false, "hidden at rest");
        await answer.locator(".markdown").hover();
        await page.waitForFunction(() => getComputedStyle([...document.querySelectorAll(".transcript .msg-assistant .msg-actions")].at(-1)).opacity === "1");
        const hovered = await measure();
        assert.equal(hovered.box, rest.box, "the message's height does not change");
        assert.equal(hovered.textTop, rest.textTop, "its text does not move");
        await axe(page, `a message with its actions shown (${name})`);

        // Focus (the keyboard's way in) shows them too.
        await page.mouse.move(2, viewport.height - 2);
        await page.waitForFunction(() => getComputedStyle([...document.querySelectorAll(".transcript .msg-assistant .msg-actions")].at(-1)).opacity === "0");
        await answer.getByRole("button", { name: "Copy message" }).focus();
        await page.waitForFunction(() => getComputedStyle([...document.querySelectorAll(".transcript .msg-assistant .msg-actions")].at(-1)).opacity === "1");
        assert.equal((await measure()).box, rest.box, "focus does not change the height either");
        await shot(page, `polish-message-actions-${name === "390 px" ? "phone" : "desktop"}`);
        assertClean(p);
      } finally {
        await finish(server, p);
      }
    });
  }
});
