// Images in the composer and goals, end to end against the real server (replay provider).
//
// Images: a PNG pasted (a synthetic paste event carrying a DataTransfer), a GIF dropped and a PNG
// picked with "Attach image" wait above the prompt as labelled thumbnails, each removable by
// keyboard; files the server would refuse (over 5 MiB, not an image, a ninth) are refused here
// with a reason. The prompt goes with its images (the POST body, the `user_message` event with
// each image's name and size, `GET /api/attachments/{id}` giving the same bytes back), the
// transcript shows them as thumbnails (loaded under the app's CSP with the session cookie) that
// open full size in a modal dialog. A model that takes no images refuses in the server's words
// and the text and images stay; a `!command` cannot carry images.
//
// Goals: `/goal` alone opens the goal panel's form; a goal turn's prompt shows as "Goal turn N",
// folded; Pause, a second goal refused (409 goal_exists), a plan session refused (409
// plan_agent), the objective edited, Resume, then `update_goal` reports it complete with its
// evidence. A budget of 2 turns runs out (budget_exhausted with the reason), Resume is refused
// in the server's words, Raise budget to 3 and resume gives one more turn, Delete removes the
// panel. axe finds nothing on the composer with thumbnails, the image dialog and the goal panel
// at phone width in both themes. Each test starts its own server; waits are on DOM states and
// API answers, never on timers.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { deflateSync } from "node:zlib";
import { afterPaint, apiCall, assertClean, haveServer, launchBrowser, newPage, pageHeaders, shot, signInWithToken, startServer } from "./harness.mjs";
import { axe, get, shows } from "./checks.mjs";

const skip = haveServer() ? false : "server binary not built (target/debug/tradewind)";

const PHONE = { width: 390, height: 844 };

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** A real PNG of `w`×`h` pixels of one colour (8-bit RGB). */
function png(w, h, rgb) {
  const chunk = (type, data) => {
    const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const row = Buffer.from([0, ...Array.from({ length: w }, () => rgb).flat()]);
  const raw = Buffer.concat(Array.from({ length: h }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

const RED = png(3, 2, [200, 30, 30]);
const BLUE = png(2, 2, [20, 60, 200]);
/** A 1×1 GIF. */
const GIF = Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");
/** A PNG's signature followed by zeros: over the 5 MiB limit when `size` is. */
function bigPng(size) {
  const b = Buffer.alloc(size);
  RED.copy(b, 0, 0, 8);
  return b;
}

const file = (name, type, buffer) => ({ name, type, b64: buffer.toString("base64") });

/** Dispatch `type` on the prompt with a DataTransfer holding `files` (a paste, or a drag's events). */
async function transfer(page, type, files) {
  await page.locator(".composer textarea").evaluate(
    (el, { type, files }) => {
      const dt = new DataTransfer();
      for (const f of files) dt.items.add(new File([Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0))], f.name, { type: f.type }));
      const ev =
        type === "paste"
          ? new ClipboardEvent("paste", { clipboardData: dt, bubbles: true, cancelable: true })
          : new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true });
      el.dispatchEvent(ev);
    },
    { type, files },
  );
}

/** What has the focus: `tag[name=…]:accessible text` (its aria-label, else its text). */
const FOCUSED = `(() => {
  const a = document.activeElement;
  if (!a) return "";
  const name = a.getAttribute("name");
  return a.tagName.toLowerCase() + (name ? "[name=" + name + "]" : "") + ":" + (a.getAttribute("aria-label") ?? a.textContent.trim());
})()`;

/** Waits until the focus is on what `re` matches; fails with where it is. */
async function focusOn(page, re, what) {
  await page
    .waitForFunction(`new RegExp(${JSON.stringify(re.source)}).test(${FOCUSED})`, null, { timeout: 8000 })
    .catch(async () => assert.fail(`${what}: the focus is on ${(await page.evaluate(FOCUSED)).slice(0, 200)}`));
}

const GOAL_SCRIPTS = [
  {
    match: "Keep working towards the goal: Write the notes file",
    turns: [
      { text: "Writing the notes.", tool_calls: [{ name: "write_file", arguments: { path: "notes.txt", content: "notes\n" } }] },
      { text: "Stopping here." },
    ],
  },
  {
    match: "Keep working towards the goal: Make the counter test pass",
    turns: [
      {
        text: "The test passes now.",
        tool_calls: [
          {
            name: "update_goal",
            arguments: {
              status: "complete",
              summary: "The counter test passes.",
              evidence: [
                { kind: "test", detail: "cargo test counter: 1 passed" },
                { kind: "file", detail: "src/counter.rs" },
              ],
            },
          },
        ],
      },
      { text: "Done: the counter test passes." },
    ],
  },
  { match: "Keep working towards the goal: Count the sheep", turns: [{ text: "Still counting." }] },
  { turns: [{ text: "Seen." }] },
];

describe("images in the composer, and goals", { skip, timeout: 600_000 }, () => {
  let browser;

  before(async () => {
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
  });

  /** Its own server and a signed-in page at phone width (bypassCSP only to inject axe). */
  async function boot({ config, scripts = GOAL_SCRIPTS } = {}) {
    const server = await startServer({ scripts, config });
    const first = await newPage(browser, server);
    const state = await signInWithToken(first.page, server);
    await first.context.close();
    const p = await newPage(browser, server, { storageState: state, viewport: PHONE, bypassCSP: true });
    p.page.setDefaultTimeout(8000);
    return { server, p, state };
  }

  async function finish({ server, p }) {
    await p?.context.close();
    await server?.stop();
  }

  /** A session made over the API, opened in the page. */
  async function openSession(page, server, body) {
    await page.goto(`${server.base}/`);
    const created = await apiCall(page, server, "POST", "/api/sessions", body);
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const id = created.json.id;
    await page.goto(`${server.base}/s/${id}`);
    await page.locator(".session-view .composer textarea").waitFor();
    // Read: until then a `/command` would go as a prompt.
    await page.locator(".session-header .session-name").waitFor();
    return id;
  }

  const events = async (page, server, id) => (await get(page, server, `/api/sessions/${id}/events?after=0&limit=5000`)).data;

  test("paste, drop and pick images; refusals; sent with the prompt; thumbnails in the transcript open full size", { timeout: 120_000 }, async () => {
    const ctx = await boot();
    const { server, p } = ctx;
    try {
      const { page } = p;
      const id = await openSession(page, server, { title: "Images" });
      const composer = page.locator(".composer");
      const thumbs = composer.getByRole("list", { name: /^Images to send/ });
      const error = composer.locator(".error");
      const picker = composer.locator('input[type="file"][name="images"]');
      assert.equal(await picker.getAttribute("accept"), "image/png,image/jpeg,image/gif,image/webp");

      // Pasted, dropped (the composer shows where while dragged over), picked.
      await transfer(page, "paste", [file("pasted.png", "image/png", RED)]);
      await thumbs.locator('li[data-name="pasted.png"]').waitFor();
      await shows(composer.locator(".composer-note"), `Added pasted.png (${RED.length} B)`, "the note of the paste");
      await transfer(page, "dragover", [file("dropped.gif", "image/gif", GIF)]);
      await page.locator(".composer.is-dropping").waitFor();
      await transfer(page, "drop", [file("dropped.gif", "image/gif", GIF)]);
      await thumbs.locator('li[data-name="dropped.gif"]').waitFor();
      assert.equal(await page.locator(".composer.is-dropping").count(), 0, "the drop highlight goes");
      await composer.getByRole("button", { name: "Attach image" }).waitFor();
      await picker.setInputFiles([{ name: "picked.png", mimeType: "image/png", buffer: BLUE }]);
      await thumbs.locator('li[data-name="picked.png"]').waitFor();
      assert.deepEqual(await thumbs.locator("li").evaluateAll((l) => l.map((x) => x.dataset.name)), ["pasted.png", "dropped.gif", "picked.png"]);
      await shows(thumbs.locator('li[data-name="dropped.gif"]'), `${GIF.length} B`, "the dropped image's size");

      // Refused here, with the reason: too big, not an image (picked or dropped).
      await picker.setInputFiles([
        { name: "big.png", mimeType: "image/png", buffer: bigPng(5 * 1024 * 1024 + 1) },
        { name: "notes.png", mimeType: "image/png", buffer: Buffer.from("only words\n") },
      ]);
      await shows(error, "big.png is 5.0 MiB: an image may be at most 5 MiB.", "the size refusal");
      await shows(error, "notes.png is not a PNG, JPEG, GIF or WebP image", "the type refusal");
      await transfer(page, "drop", [file("readme.txt", "text/plain", Buffer.from("hello\n"))]);
      await shows(error, "readme.txt is not a PNG, JPEG, GIF or WebP image", "the dropped text file's refusal");
      assert.equal(await thumbs.locator("li").count(), 3, "nothing refused was added");

      await axe(page, "the composer with three images waiting, at phone width");
      await shot(page, "images-composer-phone");

      // Removed by keyboard: the focus goes to the next one's Remove.
      await composer.getByRole("button", { name: "Remove image dropped.gif" }).focus();
      await page.keyboard.press("Enter");
      await thumbs.locator('li[data-name="dropped.gif"]').waitFor({ state: "detached" });
      await focusOn(page, /^button:Remove image picked\.png$/, "the focus on the next image's Remove");
      await page.keyboard.press("Enter");
      await thumbs.locator('li[data-name="picked.png"]').waitFor({ state: "detached" });
      await focusOn(page, /^button:Remove image pasted\.png$/, "the focus on the previous image's Remove");
      await transfer(page, "drop", [file("dropped.gif", "image/gif", GIF)]);
      await thumbs.locator('li[data-name="dropped.gif"]').waitFor();

      // Sent with the prompt; the composer is empty after.
      const box = composer.locator("textarea");
      await box.fill("What is in these?");
      const posted = page.waitForRequest((r) => r.url().endsWith(`/api/sessions/${id}/messages`) && r.method() === "POST");
      await box.press("Enter");
      assert.deepEqual((await posted).postDataJSON(), {
        text: "What is in these?",
        images: [
          { media_type: "image/png", data: RED.toString("base64"), name: "pasted.png" },
          { media_type: "image/gif", data: GIF.toString("base64"), name: "dropped.gif" },
        ],
      });
      await thumbs.waitFor({ state: "detached" });
      assert.equal(await box.inputValue(), "");
      await page.locator(".transcript .run-end").first().waitFor({ timeout: 20_000 });
      await page.locator(".msg-assistant").getByText("Seen.").waitFor();

      // The event lists them; the server gives the same bytes back.
      const um = (await events(page, server, id)).find((e) => e.type === "user_message");
      assert.ok(um, "a user_message event");
      assert.deepEqual(
        um.images.map(({ name, media_type, bytes }) => ({ name, media_type, bytes })),
        [
          { name: "pasted.png", media_type: "image/png", bytes: RED.length },
          { name: "dropped.gif", media_type: "image/gif", bytes: GIF.length },
        ],
      );
      const headers = await pageHeaders(page);
      for (const [img, bytes] of [
        [um.images[0], RED],
        [um.images[1], GIF],
      ]) {
        const served = await page.evaluate(
          async ({ url, headers }) => {
            const r = await fetch(url, { credentials: "same-origin", headers });
            const b = new Uint8Array(await r.arrayBuffer());
            return { status: r.status, type: r.headers.get("content-type"), b64: btoa(String.fromCharCode(...b)) };
          },
          { url: `/api/attachments/${img.id}`, headers },
        );
        assert.deepEqual(served, { status: 200, type: img.media_type, b64: bytes.toString("base64") }, `GET /api/attachments/${img.id}`);
      }

      // The transcript's thumbnails: loaded (an <img> sends no header: the address carries the
      // sign-in's view token), labelled; one opens full size, Esc closes it.
      const view = (await get(page, server, "/api/whoami")).view_token;
      assert.ok(view, "a browser sign-in has a view token");
      const sent = page.locator(".msg-user .msg-images");
      await sent.getByRole("button", { name: `Open image pasted.png (${RED.length} B)` }).waitFor();
      assert.deepEqual(
        await sent.locator("img").evaluateAll((l) => l.map((i) => new URL(i.src).pathname + new URL(i.src).search)),
        um.images.map((i) => `/api/attachments/${i.id}?view=${encodeURIComponent(view)}`),
      );
      await page.waitForFunction(() => [...document.querySelectorAll(".msg-user .msg-images img")].every((i) => i.complete && i.naturalWidth > 0));
      await sent.getByRole("button", { name: /^Open image dropped\.gif/ }).focus();
      await page.keyboard.press("Enter");
      const dialog = page.getByRole("dialog", { name: "Image dropped.gif" });
      await dialog.waitFor();
      await focusOn(page, /^button:Close$/, "the dialog's Close has the focus");
      assert.equal(
        await dialog.getByRole("link", { name: "Open in a new tab" }).getAttribute("href"),
        `/api/attachments/${um.images[1].id}?view=${encodeURIComponent(view)}`,
      );
      await page.waitForFunction(() => {
        const i = document.querySelector("dialog.image-dialog img");
        return i && i.complete && i.naturalWidth === 1;
      });
      await axe(page, "the image dialog at phone width");
      await shot(page, "images-dialog-phone");
      await page.keyboard.press("Escape");
      await dialog.waitFor({ state: "detached" });
      await focusOn(page, /^button:Open image dropped\.gif/, "Esc gives the focus back to the thumbnail");

      // A ninth image is refused.
      await picker.setInputFiles(
        Array.from({ length: 9 }, (_, i) => ({ name: `n${i + 1}.png`, mimeType: "image/png", buffer: png(1, 1, [i * 20, 0, 0]) })),
      );
      await shows(error, "n9.png was not added: at most 8 images go with one prompt.", "the ninth image's refusal");
      assert.equal(await thumbs.locator("li").count(), 8);
      assertClean(p);

      // Under the app's real CSP (no bypass), the transcript's images load with the cookie.
      const strict = await newPage(browser, server, { storageState: ctx.state, viewport: PHONE });
      try {
        await strict.page.goto(`${server.base}/s/${id}`);
        await strict.page.locator(".msg-user .msg-images img").first().waitFor();
        await strict.page.waitForFunction(() => {
          const l = [...document.querySelectorAll(".msg-user .msg-images img")];
          return l.length === 2 && l.every((i) => i.complete && i.naturalWidth > 0);
        });
        assert.deepEqual(await strict.page.evaluate(() => window.__cspViolations), [], "CSP violations");
        assertClean(strict);
      } finally {
        await strict.context.close();
      }
    } finally {
      await finish(ctx);
    }
  });

  test("a model that takes no images: the server's reason shown, the text and images kept; no !command with images", { timeout: 120_000 }, async () => {
    const ctx = await boot({ config: { models: { "replay/replay": { vision: false } } } });
    const { server, p } = ctx;
    try {
      const { page } = p;
      const id = await openSession(page, server, { title: "No vision" });
      const composer = page.locator(".composer");
      const thumbs = composer.getByRole("list", { name: /^Images to send/ });
      const box = composer.locator("textarea");
      await composer.locator('input[name="images"]').setInputFiles([{ name: "chart.png", mimeType: "image/png", buffer: RED }]);
      await thumbs.locator('li[data-name="chart.png"]').waitFor();
      await box.fill("Describe the chart");
      const answer = page.waitForResponse((r) => r.url().endsWith(`/api/sessions/${id}/messages`) && r.request().method() === "POST");
      await box.press("Enter");
      assert.equal((await answer).status(), 422);
      const alert = composer.getByRole("alert");
      await shows(alert, "Not sent (your text and images are kept)", "the refusal");
      await shows(alert, "does not take images: pick a model that does for this session", "the server's reason");
      await shows(alert, 'vision to true in config.json', "the server's advice");
      assert.equal(await box.inputValue(), "Describe the chart", "the text is kept");
      assert.deepEqual(await thumbs.locator("li").evaluateAll((l) => l.map((x) => x.dataset.name)), ["chart.png"], "the image is kept");
      assert.equal((await events(page, server, id)).filter((e) => e.type === "user_message").length, 0, "nothing was sent");
      await axe(page, "the composer with the refusal and the image kept, at phone width");
      await shot(page, "images-refused-phone");

      // A !command cannot carry images: said here, nothing lost.
      await box.fill("!ls");
      await box.press("Enter");
      await shows(alert, "A !command cannot carry images", "the command's refusal");
      assert.equal(await box.inputValue(), "!ls");
      assert.equal(await thumbs.locator("li").count(), 1);

      // Without the image the prompt goes.
      await composer.getByRole("button", { name: "Remove image chart.png" }).click();
      await thumbs.waitFor({ state: "detached" });
      await focusOn(page, /^textarea\[name=prompt\]/, "the last image removed: the focus on the prompt");
      await box.fill("Describe it in words");
      await box.press("Enter");
      await page.locator(".msg-user").getByText("Describe it in words").waitFor();
      await page.locator(".transcript .run-end").first().waitFor({ timeout: 20_000 });
      assert.equal(await composer.locator(".error").count(), 0, "the error went with the next send");
      assertClean(p);
    } finally {
      await finish(ctx);
    }
  });

  test("goals: /goal opens the form, Pause, 409s in the server's words, edit, Resume, complete with evidence", { timeout: 180_000 }, async () => {
    const ctx = await boot();
    const { server, p } = ctx;
    try {
      const { page } = p;
      // A plan session takes no goal (409 plan_agent).
      await openSession(page, server, { title: "Planning", agent: "plan" });
      const composer = page.locator(".composer");
      const box = composer.locator("textarea");
      await box.fill("/goal Anything at all");
      await box.press("Enter");
      await shows(composer.getByRole("alert"), "the plan agent only plans", "the plan session's refusal");

      // The goal is read only for a session that has one (`has_goal`): without, nothing is asked
      // (the API's 404 would be an error in the browser's console).
      const goalReads = [];
      page.on("request", (r) => r.method() === "GET" && /\/goal$/.test(new URL(r.url()).pathname) && goalReads.push(r.url()));
      const id = await openSession(page, server, { title: "Towards a goal", mode: "ask" });
      const panel = page.getByRole("region", { name: "Goal", exact: true });
      await afterPaint(page);
      assert.equal(await panel.count(), 0, "no panel without a goal");
      assert.deepEqual(goalReads, [], "no goal read for a session without one");

      // The command is listed; `/goal` alone opens the form with the focus on the objective.
      await box.fill("/go");
      await shows(page.getByRole("listbox", { name: "Commands" }).locator('[data-command="goal"]'), "opens the goal panel", "the command's description");
      await box.fill("/goal");
      await box.press("Enter");
      const form = panel.getByRole("form", { name: "Set a goal" });
      await form.waitFor();
      await focusOn(page, /^textarea\[name=objective\]/, "the objective has the focus");
      await axe(page, "the goal form at phone width");
      await page.keyboard.type("Write the notes file");
      await form.getByRole("button", { name: "Start working towards it" }).click();
      await form.waitFor({ state: "detached" });
      await focusOn(page, /^summary:/, "the focus on the panel's summary");
      await shows(panel.locator(".goal-objective"), "Write the notes file", "the objective");

      // The goal turn's prompt is a folded note, not the user's words; it asks to write.
      const note = page.locator(".transcript .system-note.goal-turn");
      await shows(note.locator(".system-note-label"), "Goal turn 1", "the goal turn's note");
      assert.equal(await page.locator(".transcript .msg-user").count(), 0, "no user bubble for a goal prompt");
      assert.equal(await note.locator("details").first().getAttribute("open"), null, "folded");
      await note.locator("summary").first().focus();
      await page.keyboard.press("Enter");
      await shows(note.first(), "Keep working towards the goal: Write the notes file", "what the agent was told");
      const card = page.locator(".transcript .approval-card").first();
      await card.waitFor({ timeout: 20_000 });
      await page.locator(".pending-bar").waitFor();

      // Pause: the panel says so; a second goal is refused while this one is live.
      await panel.getByRole("button", { name: "Pause" }).click();
      await panel.locator('summary .goal-status[data-status="paused"]').waitFor();
      await shows(panel.locator(".goal-reason"), "Paused by the user.", "the reason");
      await shows(panel.getByRole("status"), "Paused: no further turn starts.", "the pause's note");
      await box.fill("/goal Something else");
      await box.press("Enter");
      await shows(composer.getByRole("alert"), "the session already has a goal: edit, pause or delete it first", "409 goal_exists");
      assert.equal(await box.inputValue(), "/goal Something else", "the command is kept");
      await box.fill("");

      // The paused goal's turn ends (the write denied); no further turn starts.
      // By keyboard: on a phone the log is a strip between the bars, and it moves as they come.
      await card.getByRole("button", { name: "Deny", exact: true }).focus();
      await page.keyboard.press("Enter");
      await page.locator(".transcript .approval-done.denied").waitFor();
      // The run's "working" line (always last in the log, whatever rows are windowed) goes when it ends.
      await page.locator(".transcript .working").waitFor({ state: "detached", timeout: 20_000 });
      assert.equal((await get(page, server, `/api/sessions/${id}/goal`)).status, "paused");

      // Edit the objective: Esc cancels, Save keeps it; the focus back on the button.
      await panel.getByRole("button", { name: "Edit objective" }).click();
      const edit = panel.getByRole("form", { name: "Edit the objective" });
      await focusOn(page, /^textarea\[name=objective\]/, "the objective field has the focus");
      await page.keyboard.press("Escape");
      await edit.waitFor({ state: "detached" });
      await focusOn(page, /^button:Edit objective$/, "Esc gives the focus back");
      await page.keyboard.press("Enter");
      await edit.getByLabel("Objective").fill("Make the counter test pass");
      await edit.getByRole("button", { name: "Save objective" }).click();
      await edit.waitFor({ state: "detached" });
      await shows(panel.locator(".goal-objective"), "Make the counter test pass", "the edited objective");
      await focusOn(page, /^button:Edit objective$/, "the focus back on Edit objective");

      // Resume: a turn reports it complete with evidence.
      await panel.getByRole("button", { name: "Resume" }).click();
      await panel.locator('summary .goal-status[data-status="complete"]').waitFor({ timeout: 20_000 });
      // Neither piece of evidence is backed by the session (no such file, no such command ran):
      // complete, but said to be unverified, with the reason on each item.
      await shows(panel.locator(".goal-reason"), "Reported complete — evidence unverified.", "the reason");
      await shows(panel.locator("summary .goal-status[data-unverified]"), "complete — evidence unverified", "the badge");
      const latest = panel.locator(".goal-latest");
      await shows(latest.locator('li[data-kind="file"] .goal-evidence-unverified'), "Not verified: `src/counter.rs` does not exist.", "the file's reason");
      await shows(latest.locator('li[data-kind="test"] .goal-evidence-unverified'), "no command this session ran matches it", "the test's reason");
      await shows(latest.locator(".goal-report-summary"), "The counter test passes.", "the report's summary");
      assert.deepEqual(
        await latest.getByRole("list", { name: /^Evidence/ }).locator("li").evaluateAll((l) => l.map((x) => [x.dataset.kind, x.querySelector(".goal-evidence-detail").textContent])),
        [
          ["test", "cargo test counter: 1 passed"],
          ["file", "src/counter.rs"],
        ],
      );
      await shows(panel.locator('[data-budget="turns"] .goal-meter-text'), "1 of 50", "the turns used");
      assert.equal(await panel.getByRole("meter", { name: "Turns" }).getAttribute("value"), "1");
      await page.locator(".transcript .working").waitFor({ state: "detached", timeout: 20_000 });
      // The clicks in the log (the note, Deny) may have left it off the bottom: back there.
      await page.locator(".transcript").evaluate((el) => el.scrollTo(0, el.scrollHeight));
      await page.locator(".msg-assistant").getByText("Done: the counter test passes.").waitFor();
      // (Rows far from the bottom may be windowed out of the DOM: the events say how many there were.)
      const origins = (await events(page, server, id)).filter((e) => e.type === "user_message").map((e) => e.origin);
      assert.deepEqual(origins, ["goal", "goal"], "two goal turns, no prompt of the user's");
      await shows(note.last().locator(".system-note-label"), "Goal turn", "the second goal turn's note");
      assert.equal(await page.locator(".transcript .msg-user").count(), 0);
      await panel.getByRole("button", { name: "New goal" }).waitFor();
      const goal = await get(page, server, `/api/sessions/${id}/goal`);
      assert.equal(goal.status, "complete");
      assert.deepEqual(goal.reports.at(-1).evidence, [
        { kind: "test", detail: "cargo test counter: 1 passed" },
        { kind: "file", detail: "src/counter.rs" },
      ]);
      await axe(page, "the goal panel, complete with evidence, at phone width");
      await shot(page, "goal-complete-phone");

      // Folded, the summary still says where it stands; `/goal` alone unfolds it with the focus.
      await panel.locator("summary").first().click();
      await shows(panel.locator("summary").first(), "Make the counter test pass", "the folded summary");
      assert.equal(await panel.locator(".goal-objective").isVisible(), false);
      await box.fill("/goal");
      await box.press("Enter");
      await panel.locator(".goal-objective").waitFor({ state: "visible" });
      await focusOn(page, /^summary:Goal/, "/goal alone: the focus on the panel");

      // Opened again, the session says it has a goal: the panel reads it.
      const read = page.waitForRequest((r) => r.method() === "GET" && new URL(r.url()).pathname === `/api/sessions/${id}/goal`, {
        timeout: 10_000,
      });
      await page.reload();
      await read;
      await panel.locator('summary .goal-status[data-status="complete"]').waitFor();
      assertClean(p);
    } finally {
      await finish(ctx);
    }
  });

  test("goals: a budget of 2 turns runs out, Resume refused (409), raised to 3 and resumed, one more turn, deleted", { timeout: 180_000 }, async () => {
    const ctx = await boot();
    const { server, p } = ctx;
    try {
      const { page } = p;
      const id = await openSession(page, server, { title: "Budget", mode: "auto" });
      const box = page.locator(".composer textarea");
      const panel = page.getByRole("region", { name: "Goal", exact: true });
      await box.fill("/goal");
      await box.press("Enter");
      const form = panel.getByRole("form", { name: "Set a goal" });
      await form.getByLabel("Objective").fill("Count the sheep");
      await form.getByLabel("Turns").fill("2");
      await form.getByRole("button", { name: "Start working towards it" }).click();

      await panel.locator('summary .goal-status[data-status="budget_exhausted"]').waitFor({ timeout: 30_000 });
      await shows(panel.locator(".goal-reason"), "The turns budget ran out: raise it and resume to go on.", "the reason");
      await shows(panel.locator('[data-budget="turns"] .goal-meter-text'), "2 of 2", "the turns used");
      const notes = page.locator(".transcript .system-note.goal-turn .system-note-label");
      const goalTurns = async () =>
        (await events(page, server, id)).filter((e) => e.type === "user_message").map((e) => [e.origin, e.text.split("\n")[0]]);
      const prompt = ["goal", "Keep working towards the goal: Count the sheep"];
      assert.deepEqual(await goalTurns(), [prompt, prompt]);
      // The newest rows are in the DOM (older ones may be windowed out).
      await shows(notes.last(), "Goal turn 2", "the second turn's note");

      // Resume alone is refused in the server's words.
      await panel.getByRole("button", { name: "Resume" }).click();
      await shows(panel.getByRole("alert"), "Not resumed: the turns budget is used up: raise it in the same call to resume", "409 budget_exhausted");
      assert.equal((await get(page, server, `/api/sessions/${id}/goal`)).status, "budget_exhausted");

      // Raise it to 3 and resume in one go: one more turn, then out again.
      await panel.getByRole("button", { name: "Raise budget" }).click();
      const budget = panel.getByRole("form", { name: "Change the budget" });
      await focusOn(page, /^input\[name=turns\]/, "the turns field has the focus");
      assert.equal(await budget.getByLabel("Turns").inputValue(), "2");
      assert.equal(await budget.getByLabel("Resume the goal").isChecked(), true);
      await axe(page, "the budget form at phone width");
      await budget.getByLabel("Turns").fill("3");
      await budget.getByRole("button", { name: "Save and resume" }).click();
      await budget.waitFor({ state: "detached" });
      await shows(panel.locator('[data-budget="turns"] .goal-meter-text'), "3 of 3", "the turns used after the raise", 30_000);
      await panel.locator('summary .goal-status[data-status="budget_exhausted"]').waitFor();
      await shows(notes.last(), "Goal turn 3", "the third turn's note");
      assert.deepEqual(await goalTurns(), [prompt, prompt, prompt]);
      const goal = await get(page, server, `/api/sessions/${id}/goal`);
      assert.deepEqual([goal.status, goal.budget.turns, goal.budget.used_turns], ["budget_exhausted", 3, 3]);
      await axe(page, "the goal panel, out of budget, at phone width");
      await shot(page, "goal-budget-phone");

      // Delete: asked first, in the app's dialog; the panel goes, the focus to the prompt.
      await panel.getByRole("button", { name: "Delete goal" }).click();
      await page.getByRole("alertdialog", { name: "Delete this session’s goal?" }).getByRole("button", { name: "Delete goal" }).click();
      await panel.waitFor({ state: "detached" });
      await focusOn(page, /^textarea\[name=prompt\]/, "the focus on the prompt");
      assert.equal((await apiCall(page, server, "GET", `/api/sessions/${id}/goal`)).status, 404);
      assertClean(p);
    } finally {
      await finish(ctx);
    }
  });
});
