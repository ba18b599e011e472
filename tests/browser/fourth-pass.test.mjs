// Browser tests of the web app's fourth pass (issue 14, "Figures"): a long session opens at its
// end from one page of events (`events?before=`), the transcript is windowed (a bounded number of
// rows in the DOM), scrolling up reads older pages without moving what the user looks at, and a
// run whose start is in a page not read yet still shows as running and ends as it should.
// Every test opens its own session; waits are on DOM state, requests or events, never on timers.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { apiCall, assertClean, haveServer, launchBrowser, newPage, shot, signInWithToken, startServer } from "./harness.mjs";

const CALLS = 1000; // tool_call + policy_decision + tool_result each: 3,000+ events, 1,000+ items
/** About 40 s of streaming after the tools: the run is still going when the page opens. */
const SLOW = Array.from({ length: 400 }, (_, i) => `slow${i}`).join(" ");

/** A reply whose markdown changes shape as it streams: emphasis and a link close, a code block and a list open. */
const MD_REPLY =
  // Over 300 characters of plain text at 3 every 15 ms or more: longer than three of the slowest
  // update intervals (500 ms), so the reply grows in place at least once however busy the page.
  "Intro words that stream in as plain text, long enough to grow in place several times over. ".repeat(4) + "\n\n" +
  "A **bold claim** and a [link](https://example.com) then more plain words to add at the end.\n\n" +
  "```js\nconst a = 1;\nconst b = 2;\n```\n\n- one\n- two\n\nThe end of it all, said plainly and slowly enough to be seen.";

const scripts = [
  { match: "markdown stream", turns: [{ text: MD_REPLY, chunk_chars: 3, delay_ms: 15 }] },
  {
    match: "many tools",
    turns: [
      { text: "Listing many times.", tool_calls: Array.from({ length: CALLS }, () => ({ name: "list_files", arguments: {} })) },
      { text: "All listed." },
    ],
  },
  {
    match: "tools then a slow reply",
    turns: [
      { text: "Listing first.", tool_calls: Array.from({ length: 300 }, () => ({ name: "list_files", arguments: {} })) },
      { text: SLOW, chunk_chars: 4, delay_ms: 100 },
    ],
  },
  {
    match: "keep a checklist",
    turns: [
      {
        text: "Planning the steps.",
        tool_calls: [
          {
            name: "todo_write",
            arguments: {
              items: [
                { text: "Write the failing test", status: "done" },
                { text: "Fix the parser", status: "in_progress" },
                { text: "Update the docs", status: "pending" },
              ],
            },
          },
        ],
      },
      { text: "On it." },
    ],
  },
  {
    match: "tools then a write",
    turns: [
      { text: "Listing, then writing.", tool_calls: [...Array.from({ length: 400 }, () => ({ name: "list_files", arguments: {} })), { name: "write_file", arguments: { path: "late.txt", content: "late\n" } }] },
      { text: "Written at last." },
    ],
  },
];

const skip = haveServer() ? false : "server binary not built (target/debug/tradewind)";

/** At most this many transcript rows in the DOM, however long the session. */
const MAX_ROWS = 150;

describe("fourth pass", { skip, timeout: 600_000 }, () => {
  let server;
  let browser;
  let state;

  before(async () => {
    server = await startServer({
      scripts,
      args: ["--allow-write"],
      files: { "sessions.ts": "x\n", "session_store.rs": "x\n", "README.md": "# hi\n", "notes.txt": "n\n" },
    });
    browser = await launchBrowser();
    const p = await newPage(browser, server);
    state = await signInWithToken(p.page, server);
    await p.context.close();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  async function open() {
    const p = await newPage(browser, server, { storageState: state });
    p.page.setDefaultTimeout(15_000);
    return p;
  }

  /** A session over the API, with the prompt sent; resolves once the server stored `minSeq` events. */
  async function sessionWith(p, title, prompt, { minSeq, idle, until, mode = "full" }) {
    await p.page.goto(server.base + "/");
    const created = await apiCall(p.page, server, "POST", "/api/sessions", { title, mode });
    assert.equal(created.status, 201);
    const id = created.json.id;
    assert.equal((await apiCall(p.page, server, "POST", `/api/sessions/${id}/messages`, { text: prompt })).status, 202);
    // Long-poll the event log (the server answers as soon as events are stored): no timer.
    let after = 0;
    let seen = false;
    for (;;) {
      const r = await apiCall(p.page, server, "GET", `/api/sessions/${id}/events?after=${after}&limit=5000&wait=30`);
      assert.equal(r.status, 200);
      after = r.json.next_cursor;
      const done = !idle || r.json.data.some((e) => e.type === "run_finished");
      if (until) seen ||= r.json.data.some((e) => e.type === until);
      if (after >= minSeq && done && (!until || seen)) return { id, lastSeq: after };
    }
  }

  /** Keep scrolling the transcript to its top, page after page, until the session's start. */
  const scrollToStart = (p, timeout) =>
    p.page.waitForFunction(
      () => {
        const el = document.querySelector(".transcript");
        // To the top, whichever end its scroll offsets count from.
        el.scrollTop = -el.scrollHeight;
        return !!el.querySelector(".msg-user") && !el.querySelector(".t-older");
      },
      null,
      { polling: "raf", timeout },
    );

  /** How far the transcript's content goes below its view (px; in the page). */
  const belowView = (el) => el.firstElementChild.getBoundingClientRect().bottom - el.getBoundingClientRect().top - el.clientHeight;

  /** The transcript's rows in the DOM: their keys, in order. */
  const rowKeys = (p) => p.page.$$eval(".transcript .t-row", (rows) => rows.map((r) => r.dataset.key));

  test("a long session opens at its end from one page, with a bounded DOM; scrolling up reads older pages, keeps the view in place, and reaches the first message", { timeout: 240_000 }, async () => {
    const p = await open();
    const { id, lastSeq } = await sessionWith(p, "long", "many tools please", { minSeq: 3 * CALLS, idle: true });
    p.log.requests.length = 0;
    const warnings = [];
    p.page.on("console", (m) => m.type() === "warning" && warnings.push(m.text()));
    await p.page.goto(`${server.base}/s/${id}`);
    await p.page.locator(".transcript .run-end").waitFor();
    await p.page.locator(".conn[data-state=open]").waitFor();

    // The app asked for the newest page and who is signed in as its script started, once each,
    // with its page token (a preload by <link> could not send it, and would answer 401).
    const early = await p.page.evaluate(() =>
      performance
        .getEntriesByType("resource")
        .filter((e) => /\/api\/(whoami$|sessions\/[^/]+\/events\?)/.test(e.name))
        .map((e) => `${new URL(e.name).pathname} by ${e.initiatorType}`),
    );
    assert.deepEqual(early.sort(), [`/api/sessions/${id}/events by fetch`, "/api/whoami by fetch"]);

    // One page from the end, not the log from seq 0.
    const eventReads = p.log.requests.filter((u) => u.includes(`/api/sessions/${id}/events`));
    assert.equal(eventReads.length, 1, `one page of events: ${eventReads.join(", ")}`);
    assert.match(eventReads[0], /[?&]before=\d+/);
    assert.doesNotMatch(eventReads[0], /[?&]after=/);

    // At the end: the run's end is in view, the first message is not in the DOM, few rows are.
    const keys = await rowKeys(p);
    assert.ok(keys.length > 5 && keys.length <= MAX_ROWS, `${keys.length} rows in the DOM`);
    assert.equal(new Set(keys).size, keys.length, "no duplicate rows");
    assert.equal(await p.page.locator(".transcript .msg-user").count(), 0, "the first message is not loaded yet");
    assert.equal(await p.page.locator(".transcript .working").count(), 0, "the run has ended: nothing is working");
    const atEnd = await p.page.$eval(".transcript", belowView);
    assert.ok(atEnd < 2, `opened at the bottom (${atEnd} px above it)`);
    assert.equal(await p.page.locator(".transcript .t-older", { hasText: "Loading earlier messages…" }).count(), 1);

    // Near the top, an older page is read and put above without moving the rows in view. Its
    // answer is held back until the rows in view are noted.
    let release;
    const held = new Promise((r) => (release = r));
    let asked;
    const olderAsked = new Promise((r) => (asked = r));
    await p.page.route(/\/events\?before=/, async (route) => {
      asked();
      await held;
      await route.continue();
    });
    await p.page.$eval(".transcript", (el) => {
      // 300 px below the content's top.
      el.scrollBy(0, 300 - (el.getBoundingClientRect().top - el.firstElementChild.getBoundingClientRect().top));
    });
    await olderAsked;
    await p.page.waitForFunction(() => document.querySelector(".transcript").getAttribute("aria-busy") === "true");
    // Wait until rows fill the view (they come into the DOM a frame after the scroll).
    const anchor = await p.page.waitForFunction(() => {
      const el = document.querySelector(".transcript");
      const top = el.getBoundingClientRect().top;
      const row = [...el.querySelectorAll(".t-row")].find((r) => r.getBoundingClientRect().bottom > top + 1);
      if (!row || row.getBoundingClientRect().top > top + el.clientHeight / 2) return null;
      return { key: row.dataset.key, offset: row.getBoundingClientRect().top - top, height: el.scrollHeight };
    }).then((h) => h.jsonValue());
    release();
    await p.page.waitForFunction(
      (h) => {
        const el = document.querySelector(".transcript");
        return el.scrollHeight > h + 1000 && !el.hasAttribute("aria-busy");
      },
      anchor.height,
    );
    await p.page.unroute(/\/events\?before=/);
    const moved = await p.page.$eval(
      ".transcript",
      (el, key) => {
        const row = [...el.querySelectorAll(".t-row")].find((r) => r.dataset.key === key);
        return row ? row.getBoundingClientRect().top - el.getBoundingClientRect().top : null;
      },
      anchor.key,
    );
    assert.notEqual(moved, null, "the row in view stays in the DOM");
    assert.ok(Math.abs(moved - anchor.offset) < 2, `the row in view stayed put (${anchor.offset} → ${moved})`);

    // To the top, page after page, until the session's first message.
    await scrollToStart(p, 120_000);
    await shot(p.page, "fourth-long-session-top");
    assert.equal(await p.page.locator(".transcript .msg-user .user-text").first().innerText(), "many tools please");
    const topKeys = await rowKeys(p);
    assert.ok(topKeys.length <= MAX_ROWS, `${topKeys.length} rows in the DOM at the top`);
    assert.equal(new Set(topKeys).size, topKeys.length, "no duplicate rows");
    // Every tool card, whichever page its call and result came in, is whole: named, and done.
    const cards = await p.page.$$eval(".transcript .tool-card", (els) =>
      els.map((c) => `${c.dataset.tool} ${c.querySelector(".tool-status")?.textContent}`),
    );
    assert.ok(cards.length > 10);
    for (const c of cards) assert.equal(c, "list_files done");

    // Every item of the session is there once: walk down to the bottom counting distinct rows.
    const seen = await p.page.evaluate(async () => {
      const el = document.querySelector(".transcript");
      const keys = new Set();
      let dup = 0;
      let maxRows = 0;
      for (;;) {
        const rows = [...el.querySelectorAll(".t-row")];
        maxRows = Math.max(maxRows, rows.length);
        const ks = rows.map((r) => r.dataset.key);
        if (new Set(ks).size !== ks.length) dup++;
        ks.forEach((k) => keys.add(k));
        if (el.firstElementChild.getBoundingClientRect().bottom - el.getBoundingClientRect().top - el.clientHeight < 2) break;
        el.scrollTop += el.clientHeight;
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      }
      return { keys: [...keys], dup, maxRows };
    });
    assert.equal(seen.dup, 0, "no duplicate rows on the way down");
    assert.ok(seen.maxRows <= MAX_ROWS, `${seen.maxRows} rows at most in the DOM`);
    const toolKeys = seen.keys.filter((k) => k.startsWith("t:"));
    assert.equal(toolKeys.length, CALLS, "every tool call once");
    assert.ok(seen.keys.some((k) => k.startsWith("re:")), "the run's end");
    const s = (await apiCall(p.page, server, "GET", `/api/sessions/${id}`)).json;
    assert.equal(s.last_seq, lastSeq);
    // Chrome warns of a preload left unused a few seconds after the load: long past by now.
    assert.deepEqual(warnings.filter((w) => /preload/i.test(w)), [], "every preload used");
    assertClean(p);
    await p.context.close();
  });

  test("a session opened mid-run, its start in a page not read: it shows as running, follows the bottom as the reply streams, and ends", { timeout: 180_000 }, async () => {
    const p = await open();
    const { id } = await sessionWith(p, "mid-run", "tools then a slow reply", { minSeq: 3 * 300 + 10, idle: false });
    await p.page.goto(`${server.base}/s/${id}`);
    await p.page.locator(".conn[data-state=open]").waitFor();
    // The run_started is hundreds of events back: the run is known to run from its events.
    await p.page.locator(".transcript .working").getByText("Working…").waitFor();
    await p.page.getByRole("button", { name: "Cancel run" }).waitFor();
    assert.equal(await p.page.locator(".transcript .msg-user").count(), 0, "the prompt is in an older page");
    // The reply grows and the view stays at the bottom.
    const reply = p.page.locator(".transcript .msg-assistant").last();
    const before = (await reply.innerText()).length;
    await p.page.waitForFunction(
      (n) => {
        const el = document.querySelector(".transcript");
        const msgs = el.querySelectorAll(".msg-assistant");
        const text = msgs[msgs.length - 1]?.textContent ?? "";
        return text.length > n + 40 && el.firstElementChild.getBoundingClientRect().bottom - el.getBoundingClientRect().top - el.clientHeight < 2;
      },
      before,
    );
    // Cancel (the button works on the run it inferred) and the run ends, once.
    await p.page.getByRole("button", { name: "Cancel run" }).click();
    await p.page.locator(".transcript .run-end").waitFor({ timeout: 30_000 });
    await p.page.locator(".transcript .working").waitFor({ state: "detached" });
    assert.equal(await p.page.locator(".transcript .run-end").count(), 1);
    const keys = await rowKeys(p);
    assert.ok(keys.length <= MAX_ROWS, `${keys.length} rows in the DOM`);
    assert.equal(new Set(keys).size, keys.length, "no duplicate rows");
    assertClean(p);
    await p.context.close();
  });

  test("a streaming reply grows in place where its text only grows, keeps its closed blocks, and ends as a fresh page shows it", { timeout: 60_000 }, async () => {
    const p = await open();
    await p.page.goto(server.base + "/");
    const id = (await apiCall(p.page, server, "POST", "/api/sessions", { title: "streamed markdown", mode: "full" })).json.id;
    await p.page.goto(`${server.base}/s/${id}`);
    await p.page.locator(".conn[data-state=open]").waitFor();
    // Text added to the reply's last text node (in place) and the reply's DOM built anew.
    await p.page.evaluate(() => {
      window.__grown = 0;
      window.__built = 0;
      window.__introDropped = 0;
      new MutationObserver((records) => {
        for (const r of records) {
          const el = r.target.nodeType === Node.TEXT_NODE ? r.target.parentElement : r.target;
          if (!el?.closest?.(".msg-assistant .markdown")) continue;
          if (r.type === "characterData") window.__grown++;
          else if (r.target.classList?.contains("markdown")) window.__built++;
          for (const n of r.removedNodes) {
            if (n.nodeName === "P" && n.textContent.startsWith("Intro words")) window.__introDropped++;
          }
        }
      }).observe(document.querySelector(".transcript"), { childList: true, subtree: true, characterData: true });
    });
    assert.equal((await apiCall(p.page, server, "POST", `/api/sessions/${id}/messages`, { text: "markdown stream" })).status, 202);
    await p.page.locator('.transcript .run-end[data-status="completed"]').waitFor();
    const reply = p.page.locator(".transcript .msg-assistant .markdown");
    const grown = await p.page.evaluate(() => window.__grown);
    const built = await p.page.evaluate(() => window.__built);
    assert.ok(grown > 0, `the reply grew in place (${grown} times; built ${built} times)`);
    assert.ok(built > 1, `the reply was built anew where its shape changed (${built} times)`);
    // A block closed by a blank line and the next block stays as drawn while the reply streams
    // and when it ends: the first paragraph is drawn again at most once, when it closes (its HTML
    // as the last block can differ by a trailing space).
    const introDropped = await p.page.evaluate(() => window.__introDropped);
    assert.ok(introDropped <= 1, `the closed first paragraph was drawn again ${introDropped} times`);
    const shape = () =>
      reply.evaluate((el) => ({
        text: el.innerText,
        strong: [...el.querySelectorAll("strong")].map((e) => e.textContent),
        links: [...el.querySelectorAll("a")].map((a) => a.getAttribute("href")),
        code: [...el.querySelectorAll("pre code")].map((e) => e.textContent),
        items: [...el.querySelectorAll("li")].map((e) => e.textContent),
        paragraphs: el.querySelectorAll(":scope > p").length,
      }));
    const live = await shape();
    assert.deepEqual(live.strong, ["bold claim"]);
    assert.deepEqual(live.links, ["https://example.com"]);
    assert.deepEqual(live.code, ["const a = 1;\nconst b = 2;"]);
    assert.deepEqual(live.items, ["one", "two"]);
    assert.equal(live.paragraphs, 3);
    await p.page.reload();
    await p.page.locator('.transcript .run-end[data-status="completed"]').waitFor();
    assert.deepEqual(await shape(), live, "the page read afresh shows the same reply");
    assertClean(p);
    await p.context.close();
  });

  test("a pending approval out of the window: its chip brings the card into view and focuses it", { timeout: 120_000 }, async () => {
    const p = await open();
    const { id } = await sessionWith(p, "late approval", "tools then a write", { minSeq: 1200, until: "approval_requested", mode: "ask" });
    await p.page.goto(`${server.base}/s/${id}`);
    const card = p.page.locator(".transcript .approval-card");
    await card.waitFor();
    // Up to the session's start: the card leaves the DOM.
    await scrollToStart(p, 60_000);
    assert.equal(await card.count(), 0, "the card is out of the DOM");
    await p.page.locator(".pending-bar .pending-chip", { hasText: "write_file" }).click();
    await card.waitFor();
    const box = await p.page.$eval(".transcript", (el) => {
      const c = el.querySelector(".approval-card").getBoundingClientRect();
      const v = el.getBoundingClientRect();
      return { inView: c.top >= v.top - 1 && c.top < v.bottom, focused: !!document.activeElement?.closest(".approval-card") };
    });
    assert.ok(box.inView, "the card is in view");
    assert.ok(box.focused, "focus is in the card");
    await card.getByRole("button", { name: "Allow once" }).click();
    await p.page.locator(".transcript .run-end").waitFor({ timeout: 30_000 });
    assertClean(p);
    await p.context.close();
  });

  test("the agent's checklist (todo_write) is pinned above the composer with each item's state", { timeout: 60_000 }, async () => {
    const p = await open();
    const { id } = await sessionWith(p, "checklist", "keep a checklist", { minSeq: 5, idle: true, mode: "ask" });
    await p.page.goto(`${server.base}/s/${id}`);
    const panel = p.page.locator(".session-view .todo-panel");
    await panel.waitFor();
    const items = await panel.locator(".todo-item").evaluateAll((els) =>
      els.map((e) => [e.getAttribute("data-status"), e.querySelector(".todo-text").textContent]),
    );
    assert.deepEqual(items, [
      ["done", "Write the failing test"],
      ["in_progress", "Fix the parser"],
      ["pending", "Update the docs"],
    ]);
    assert.match(await panel.locator(".todo-title").innerText(), /1 of 3 done/);
    // It sits between the transcript and the composer, and asked for nothing in `ask` mode.
    const order = await p.page.$eval(".session-view", (v) => {
      const kids = [...v.children];
      return [kids.findIndex((k) => k.classList.contains("transcript") || k.querySelector?.(".transcript")), kids.findIndex((k) => k.classList.contains("todo-panel"))];
    });
    assert.ok(order[1] > order[0], `panel after the transcript: ${order}`);
    assert.equal(await p.page.locator(".approval-card").count(), 0);
    assertClean(p);
    await p.context.close();
  });

  test("@ in the composer offers workspace files ranked by the server; Enter inserts the path, Esc closes the list; a sent @path is attached as a read", { timeout: 60_000 }, async () => {
    const p = await open();
    await p.page.goto(server.base + "/");
    const created = await apiCall(p.page, server, "POST", "/api/sessions", { title: "mentions" });
    const id = created.json.id;
    await p.page.goto(`${server.base}/s/${id}`);
    const prompt = p.page.getByRole("textbox", { name: "Prompt" });
    await prompt.click();
    await prompt.pressSequentially("look at @sess");
    const options = p.page.getByRole("listbox", { name: "Files" }).getByRole("option");
    // The list answers what was typed, not an earlier keystroke's query still on its way.
    const answering = (q) => p.page.locator(`.mention-list[data-query="${q}"][aria-busy="false"]`).waitFor();
    await answering("sess");
    const names = await options.allInnerTexts();
    assert.deepEqual(names.slice(0, 2).sort(), ["session_store.rs", "sessions.ts"], `${names}`);
    assert.ok(!names.includes("notes.txt"));
    // The textarea keeps the focus and points at the highlighted option.
    const active = await prompt.getAttribute("aria-activedescendant");
    assert.equal(await p.page.locator(`#${active}`).getAttribute("aria-selected"), "true");
    await p.page.keyboard.press("ArrowDown");
    const second = names[1];
    await p.page.keyboard.press("Enter");
    assert.equal(await prompt.inputValue(), `look at @${second} `);
    assert.equal(await options.count(), 0, "the list closed");
    // Esc closes the list and keeps the text; nothing was sent.
    await prompt.pressSequentially("and @read");
    await answering("read");
    assert.equal(await options.first().innerText(), "README.md");
    await p.page.keyboard.press("Escape");
    await p.page.waitForFunction(() => !document.querySelector(".mention-list"));
    assert.equal(await prompt.inputValue(), `look at @${second} and @read`);
    const events = await apiCall(p.page, server, "GET", `/api/sessions/${id}/events`);
    assert.equal(events.json.data.length, 0, "nothing was sent");
    // Sent, the mentioned file is attached: a read_file card marked as the mention's.
    await prompt.fill(`look at @${second} `);
    await p.page.keyboard.press("Enter");
    const card = p.page.locator('.tool-card[data-call-id^="mention_"]');
    await card.locator(".tool-status.status-ok").waitFor();
    assert.equal(await card.locator(".tool-name").innerText(), "read_file");
    assert.equal(await card.locator(".tool-origin").innerText(), "@ mention");
    assert.ok((await card.locator(".tool-summary").innerText()).includes(second));
    assertClean(p);
    await p.context.close();
  });
});
