// Several model providers side by side and a model per session, end to end: the real server (its
// start flags give the replay provider, id `default`) and a small OpenAI-compatible server of this
// file on 127.0.0.1 (it lists tiny-a and tiny-b, streams "hello from tiny-b", and records every
// request). Settings → Model providers adds one (listed with its source and facts, its key never
// shown), tests it, makes it the default and back, refuses to remove the default or the flags'
// provider with the server's words, edits and removes it. The session header's model picker lists
// each provider's models (a provider that cannot list them says so in its group), is driven by
// the keyboard, and the run that follows goes to the chosen model. `/model` sets the model (on the
// current provider, or PROVIDER/NAME; one the provider does not list is refused) and alone opens
// the picker, whose "Use default" resets it;
// a change made elsewhere reaches the header by `session_updated`. axe finds nothing on the list
// and the picker, at phone width too, in both themes. Each test starts its own servers; waits are
// on DOM states and API answers, never on timers.
import assert from "node:assert/strict";
import { createServer } from "node:http";
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

const skip = haveServer() ? false : "server binary not built (target/debug/tradewind)";

const PHONE = { width: 390, height: 844 };

/**
 * An OpenAI-compatible server on 127.0.0.1: `/v1` lists two models and streams one answer;
 * `/locked/v1` refuses every request with 401 (a provider whose models cannot be listed).
 * `requests` holds each request's method, path and JSON body.
 */
async function startFakeOpenAi() {
  const requests = [];
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (d) => (raw += d));
    req.on("end", () => {
      const body = raw ? JSON.parse(raw) : null;
      requests.push({ method: req.method, path: req.url, body });
      if (req.url.startsWith("/locked/")) {
        res.writeHead(401, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "this key is not allowed here", type: "invalid_request_error" } }));
      } else if (req.method === "GET" && req.url === "/api/v0/models") {
        // LM Studio's own model list: tiny-b's capabilities name no tool use.
        res.writeHead(200, { "content-type": "application/json" });
        res.end(
          JSON.stringify({
            object: "list",
            data: [
              { id: "tiny-a", object: "model", type: "llm", max_context_length: 8192, capabilities: ["tool_use"] },
              { id: "tiny-b", object: "model", type: "llm", max_context_length: 4096, capabilities: [] },
            ],
          }),
        );
      } else if (req.method === "GET" && req.url === "/v1/models") {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ object: "list", data: [{ id: "tiny-a" }, { id: "tiny-b" }] }));
      } else if (req.method === "POST" && req.url === "/v1/chat/completions") {
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        const chunk = (delta, finish = null) =>
          `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", model: body?.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
        res.write(chunk({ role: "assistant", content: "hello from tiny-b" }));
        res.write(chunk({}, "stop"));
        res.end("data: [DONE]\n\n");
      } else {
        res.writeHead(404, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
      }
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${server.address().port}`;
  return {
    url: `${base}/v1`,
    lockedUrl: `${base}/locked/v1`,
    requests,
    close: () => new Promise((r) => server.close(r)),
  };
}

describe("model providers side by side and a model per session", { skip, timeout: 600_000 }, () => {
  let browser;

  before(async () => {
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
  });

  /** Its own server (no key in the environment: "set" means saved here) and a signed-in page. */
  async function boot({ viewport } = {}) {
    const fake = await startFakeOpenAi();
    const server = await startServer({
      scripts: [{ turns: [{ text: "Hello from replay." }] }],
      env: { OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "" },
    });
    const first = await newPage(browser, server);
    const state = await signInWithToken(first.page, server);
    await first.context.close();
    // bypassCSP only to inject axe.
    const p = await newPage(browser, server, { storageState: state, viewport, bypassCSP: true });
    p.page.setDefaultTimeout(8000);
    return { fake, server, p };
  }

  async function finish({ fake, server, p }) {
    await p?.context.close();
    await server?.stop();
    await fake?.close();
  }

  async function addLocal(page, server, fake, id = "local", url = fake.url) {
    const r = await apiCall(page, server, "PUT", `/api/providers/${id}`, { kind: "openai", base_url: url, model: "tiny-a" });
    assert.equal(r.status, 200, JSON.stringify(r.json));
  }

  /** The header's model button, which shows `provider/model`. */
  const modelButton = (page) => page.locator(".session-header").getByRole("button", { name: /^Model / });

  async function headerShows(page, label) {
    await page
      .locator(`.session-header .model-button[data-model="${label}"]`)
      .waitFor()
      .catch(async () => assert.fail(`the header shows ${await modelButton(page).getAttribute("data-model")}, not ${label}`));
    assert.equal(await modelButton(page).locator(".model-current").innerText(), label);
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

  test("Settings: add a provider, test it, make it the default and back, refused removals in the server's words, edit and remove it", { timeout: 120_000 }, async () => {
    const ctx = await boot();
    const { fake, server, p } = ctx;
    try {
      const { page } = p;
      await page.goto(`${server.base}/settings`);
      const panel = page.getByRole("region", { name: "Model providers" });
      const row = (id) => panel.locator(`li[data-provider="${id}"]`);
      const button = (id, name) => row(id).getByRole("button", { name, exact: true });

      // The flags' provider: the default, from the start flags.
      await shows(row("default").locator(".provider-source"), "start flags", "the flags' provider's source");
      await row("default").locator(".provider-default").getByText("Default").waitFor();
      await shows(row("default").locator('[data-fact="kind"]'), "replay", "its kind");
      assert.equal(await button("default", "Make default: default").count(), 0, "the default offers no Make default");

      // Add: the id has the focus; an empty form says what is missing, field by field.
      await panel.getByRole("button", { name: "Add a provider" }).click();
      const form = panel.getByRole("form", { name: "Add a provider" });
      const id = form.getByLabel("Id");
      await id.waitFor();
      await focusOn(page, /^input\[name=provider_id\]/, "the id field has the focus");
      await form.getByRole("button", { name: "Add provider" }).click();
      await shows(form, "Use 1 to 32 of a–z", "the id's error");
      await shows(form, "Enter the model sessions use", "the model's error");
      assert.equal(await id.getAttribute("aria-invalid"), "true");
      await focusOn(page, /^input\[name=provider_id\]/, "the first wrong field has the focus");
      await id.fill("default");
      await form.getByLabel("Model", { exact: true }).fill("tiny-a");
      await form.getByRole("button", { name: "Add provider" }).click();
      await shows(form, "There is a provider default already", "a taken id");
      await axe(page, "Settings → Model providers with the add form's errors");

      // A base URL the server refuses: its words, nothing stored.
      await id.fill("local");
      await form.getByLabel("Base URL").fill("ftp://127.0.0.1/v1");
      await form.getByRole("button", { name: "Add provider" }).click();
      await shows(form.getByRole("alert"), "Not saved: base_url must start with http:// or https://", "the server's refusal");
      assert.equal((await get(page, server, "/api/providers")).data.length, 1, "nothing stored");

      await form.getByLabel("Base URL").fill(fake.url);
      await form.getByLabel("Key from environment variable (optional)").fill("TW_TINY_KEY");
      await form.getByRole("button", { name: "Add provider" }).click();
      await row("local").waitFor();
      await form.waitFor({ state: "detached" });
      await shows(row("local").getByRole("status"), "Added.", "the row's note");
      await shows(row("local").locator(".provider-source"), "Settings", "the new provider's source");
      await shows(row("local").locator('[data-fact="kind"]'), "OpenAI-compatible", "its kind");
      await shows(row("local").locator('[data-fact="base_url"]'), fake.url, "its base URL");
      await shows(row("local").locator('[data-fact="model"]'), "tiny-a", "its model");
      await shows(row("local").locator('[data-fact="key"]'), "not set (read from TW_TINY_KEY)", "its key");
      assert.equal(await row("local").locator(".provider-default").count(), 0, "not the default");
      await focusOn(page, /^button:Edit local$/, "the focus on the new row's Edit");
      let listed = await get(page, server, "/api/providers");
      assert.deepEqual(
        listed.data.find((x) => x.id === "local"),
        {
          id: "local",
          kind: "openai",
          base_url: fake.url,
          model: "tiny-a",
          api_key_set: false,
          api_key_env: "TW_TINY_KEY",
          source: "settings",
          default: false,
          // What the server behind it is (LM Studio, by its own model list) and does for tiny-a.
          model_server: { server: "lm_studio", tools: true, tool_calls: "auto", constrained: "off", context_window: 8192 },
        },
      );

      // Test: its models, asked of the fake server.
      await button("local", "Test local").click();
      await shows(row("local").getByRole("status"), "Connected: 2 models available (tiny-a, tiny-b).", "the test");
      assert.ok(fake.requests.some((r) => r.method === "GET" && r.path === "/v1/models"), "the fake server was asked for its models");

      // Make default, and the refusal to remove the default, in the server's words.
      await button("local", "Make default: local").click();
      await row("local").locator(".provider-default").waitFor();
      assert.equal(await row("default").locator(".provider-default").count(), 0);
      await button("default", "Make default: default").waitFor();
      assert.equal((await get(page, server, "/api/providers")).default, "local");
      await focusOn(page, /^h3:local$/, "the focus on the new default's name");
      await shot(page, "models-settings-default");

      // Asked first, in the app's dialog.
      const confirmRemove = (id) => page.getByRole("alertdialog", { name: `Remove the provider ${id}?` }).getByRole("button", { name: "Remove", exact: true }).click();
      await button("local", "Remove local").click();
      await confirmRemove("local");
      await shows(row("local").getByRole("alert"), "Not removed: `local` is the default provider: make another the default first", "the refused removal");
      // The flags' provider cannot be removed either (it would come back at the next start).
      await button("default", "Remove default").click();
      await confirmRemove("default");
      await shows(row("default").getByRole("alert"), "comes from the start flags or config.json: remove it there", "the flags' provider's refusal");
      assert.deepEqual((await get(page, server, "/api/providers")).data.map((x) => x.id).sort(), ["default", "local"]);

      await button("default", "Make default: default").click();
      await row("default").locator(".provider-default").waitFor();
      await button("local", "Make default: local").waitFor();
      assert.equal((await get(page, server, "/api/providers")).default, "default");

      // Edit: the kind has the focus; a new key is saved and never shown, the model changes.
      await button("local", "Edit local").click();
      const edit = row("local").getByRole("form", { name: "Edit the provider local" });
      await edit.waitFor();
      await focusOn(page, /^select\[name=kind\]/, "the kind has the focus");
      assert.equal(await edit.getByLabel("Model", { exact: true }).inputValue(), "tiny-a");
      assert.equal(await edit.getByLabel(/^API key/).inputValue(), "", "no key shown");
      await edit.getByLabel("Model", { exact: true }).fill("tiny-b");
      await edit.getByLabel(/^API key/).fill("sk-tiny-secret");
      await edit.getByRole("button", { name: "Save" }).click();
      await edit.waitFor({ state: "detached" });
      await shows(row("local").locator('[data-fact="model"]'), "tiny-b", "the edited model");
      await shows(row("local").locator('[data-fact="key"]'), "set (read from TW_TINY_KEY)", "the saved key");
      listed = await get(page, server, "/api/providers");
      assert.equal(listed.data.find((x) => x.id === "local").api_key_set, true);
      assert.ok(!JSON.stringify(listed).includes("sk-tiny-secret"), "the key is never sent back");
      await button("local", "Edit local").click();
      assert.equal(await row("local").getByLabel(/^API key/).inputValue(), "", "the saved key is not shown in the form");
      await row("local").getByLabel(/^API key/).press("Escape");
      await row("local").getByRole("form").waitFor({ state: "detached" });
      await focusOn(page, /^button:Edit local$/, "Esc gives the focus back to Edit");
      assert.ok(!(await page.content()).includes("sk-tiny-secret"), "the key is nowhere in the page");

      // Phone width: the list fits and axe finds nothing, the editor open too.
      await page.setViewportSize(PHONE);
      await panel.scrollIntoViewIfNeeded();
      const widths = await panel.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
      assert.ok(widths.scroll <= widths.client, `the list overflows: ${JSON.stringify(widths)}`);
      await axe(page, "Settings → Model providers at phone width");
      await button("local", "Edit local").click();
      await row("local").getByRole("form").waitFor();
      const doc = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
      assert.ok(doc.scroll <= doc.client, `the page overflows: ${JSON.stringify(doc)}`);
      await axe(page, "the provider editor at phone width");
      await shot(page, "models-settings-phone");
      await row("local").getByRole("button", { name: "Cancel" }).click();

      // Remove: asked first, gone from the list and the server; the focus on the section's title.
      await button("local", "Remove local").click();
      await confirmRemove("local");
      await row("local").waitFor({ state: "detached" });
      await shows(panel.getByRole("status"), "Removed local.", "the removal's note");
      await focusOn(page, /^h2:Model providers$/, "the focus on the section's title");
      assert.deepEqual((await get(page, server, "/api/providers")).data.map((x) => x.id), ["default"]);
      assertClean(p);
    } finally {
      await finish(ctx);
    }
  });

  test("the header's picker lists each provider's models; tiny-b picked by keyboard; the next run goes to it", { timeout: 120_000 }, async () => {
    const ctx = await boot();
    const { fake, server, p } = ctx;
    try {
      const { page } = p;
      await page.goto(`${server.base}/`);
      await addLocal(page, server, fake);
      await addLocal(page, server, fake, "locked", fake.lockedUrl);
      const flags = (await get(page, server, "/api/providers")).data.find((x) => x.id === "default");
      const id = await createSessionViaUi(page, { title: "Models" });
      await headerShows(page, `default/${flags.model}`);

      await modelButton(page).click();
      const list = page.getByRole("listbox", { name: "Model for this session" });
      await list.waitFor();
      await focusOn(page, /^div:/, "the list has the focus");
      assert.equal(await list.evaluate((el) => el === document.activeElement), true, "the list has the focus");
      assert.equal(await modelButton(page).getAttribute("aria-expanded"), "true");
      const local = list.getByRole("group", { name: "local", exact: true });
      await local.locator('[role="option"][data-model="tiny-b"]').waitFor();
      // Each model with what its server (LM Studio's list here) says of it.
      assert.deepEqual(await local.getByRole("option").allInnerTexts(), [
        "tiny-a 8k context",
        "tiny-b 4k context · no tools",
        "Other model for local…",
      ]);
      // The provider that cannot list its models says why, and still takes a name by hand.
      const locked = list.getByRole("group", { name: "locked", exact: true });
      await shows(locked.locator('[role="option"][aria-disabled="true"]'), "Could not list its models", "the locked provider's error");
      await locked.getByRole("option", { name: "Other model for locked…" }).waitFor();
      assert.equal(await list.getByRole("option", { name: /^Use default/ }).getAttribute("aria-selected"), "true");
      await axe(page, "the open model picker");
      await shot(page, "models-picker");

      // End is the last row (Other model for locked…); up to tiny-b of local; Enter picks it.
      await list.press("End");
      for (let i = 0; i < 4; i++) await list.press("ArrowUp");
      const activeText = await list.evaluate((el) => document.getElementById(el.getAttribute("aria-activedescendant"))?.textContent);
      assert.equal(activeText, "tiny-b 4k context · no tools", "ArrowUp reached tiny-b");
      const patched = page.waitForResponse((r) => r.url().endsWith(`/api/sessions/${id}`) && r.request().method() === "PATCH");
      // A model that takes no tools warns first; picked again, it is used.
      await list.press("Enter");
      await shows(page.locator(".model-pop").getByRole("alert"), "tiny-b takes no tools", "the no-tools warning");
      await list.press("Enter");
      assert.deepEqual((await patched).request().postDataJSON(), { provider: "local", model: "tiny-b" });
      await list.waitFor({ state: "detached" });
      await headerShows(page, "local/tiny-b");
      await focusOn(page, /^button:Model local\/tiny-b/, "the focus back on the button");
      const session = await get(page, server, `/api/sessions/${id}`);
      assert.equal(session.provider, "local");
      assert.equal(session.model, "tiny-b");

      // The run goes to the fake server, with the chosen model.
      await sendPrompt(page, "say hello");
      await page.locator(".msg-assistant").getByText("hello from tiny-b").waitFor({ timeout: 20_000 });
      await page.locator('.transcript .run-end[data-status="completed"]').waitFor({ timeout: 20_000 });
      const chats = fake.requests.filter((r) => r.method === "POST" && r.path === "/v1/chat/completions");
      assert.ok(chats.length >= 1, "the fake server was asked");
      assert.ok(chats.some((r) => r.body.model === "tiny-b"), `a request with "model":"tiny-b": ${JSON.stringify(chats.map((r) => r.body.model))}`);
      assert.ok(chats.every((r) => r.body.model === "tiny-b"), "no other model asked");

      // A name typed by hand, for the provider that could not list its models.
      await modelButton(page).click();
      await list.waitFor();
      assert.equal(await local.locator('[role="option"][data-model="tiny-b"]').getAttribute("aria-selected"), "true");
      await locked.getByRole("option", { name: "Other model for locked…" }).click();
      const field = page.getByLabel("Model name for locked");
      await field.waitFor();
      await focusOn(page, /^input\[name=custom_model\]/, "the name field has the focus");
      await axe(page, "the picker's field for another model");
      await field.fill("tiny-custom");
      await field.press("Enter");
      await list.waitFor({ state: "detached" });
      await headerShows(page, "locked/tiny-custom");
      assert.deepEqual(
        (({ provider, model }) => ({ provider, model }))(await get(page, server, `/api/sessions/${id}`)),
        { provider: "locked", model: "tiny-custom" },
      );

      // Esc closes without a change, the focus back on the button.
      await modelButton(page).click();
      await list.waitFor();
      await list.press("Escape");
      await list.waitFor({ state: "detached" });
      await focusOn(page, /^button:Model locked\/tiny-custom/, "Esc gives the focus back to the button");
      assertClean(p);
    } finally {
      await finish(ctx);
    }
  });

  test("/model NAME and /model PROVIDER/NAME set the model, /model alone opens the picker and Use default resets it (phone width)", { timeout: 120_000 }, async () => {
    const ctx = await boot({ viewport: PHONE });
    const { fake, server, p } = ctx;
    try {
      const { page } = p;
      await page.goto(`${server.base}/`);
      await addLocal(page, server, fake);
      const flags = (await get(page, server, "/api/providers")).data.find((x) => x.id === "default");
      const created = await apiCall(page, server, "POST", "/api/sessions", { title: "Slash model" });
      assert.equal(created.status, 201);
      const id = created.json.id;
      await page.goto(`${server.base}/s/${id}`);
      await headerShows(page, `default/${flags.model}`);
      const box = page.locator(".composer textarea");
      const note = page.locator(".composer .composer-note");
      const choice = async () => {
        const s = await get(page, server, `/api/sessions/${id}`);
        return { provider: s.provider ?? null, model: s.model ?? null };
      };

      // Listed with the other commands, with what it does.
      await box.fill("/mod");
      const picker = page.getByRole("listbox", { name: "Commands" });
      await shows(picker.locator('[data-command="model"]'), "opens the picker", "the command's description");

      // A model the provider does not list is refused, nothing changed; one it lists is set.
      await box.fill("/model default/whatever");
      await box.press("Enter");
      await shows(page.locator(".composer .error"), "default has no model whatever (it lists replay). The model was not changed.", "the refusal");
      assert.deepEqual(await choice(), { provider: null, model: null });
      await box.fill("/model default/replay");
      await box.press("Enter");
      await shows(note, "Model: default/replay", "what /model did");
      assert.deepEqual(await choice(), { provider: "default", model: "replay" });

      await box.fill("/model local/tiny-b");
      await box.press("Enter");
      await shows(note, "Model: local/tiny-b", "what /model PROVIDER/NAME did");
      assert.deepEqual(await choice(), { provider: "local", model: "tiny-b" });
      await headerShows(page, "local/tiny-b");

      // A name alone stays on the current provider, even with a / in it (and local lists no such model).
      await box.fill("/model org/big-model");
      await box.press("Enter");
      await shows(page.locator(".composer .error"), "local has no model org/big-model (it lists tiny-a, tiny-b)", "what /model NAME did");
      assert.deepEqual(await choice(), { provider: "local", model: "tiny-b" });

      // A change made elsewhere reaches the header (session_updated).
      const other = await apiCall(page, server, "PATCH", `/api/sessions/${id}`, { provider: "default", model: "whatever" });
      assert.equal(other.status, 200);
      await headerShows(page, "default/whatever");

      // /model alone, from the command picker: the model picker opens with the focus.
      await box.fill("/model");
      await picker.locator('[data-command="model"]').waitFor();
      await box.press("Enter");
      const list = page.getByRole("listbox", { name: "Model for this session" });
      await list.waitFor();
      await focusOn(page, /^div:/, "the picker's list has the focus");
      assert.equal(await list.evaluate((el) => el === document.activeElement), true, "the list has the focus");
      await list.getByRole("group", { name: "local", exact: true }).locator('[role="option"][data-model="tiny-b"]').waitFor();
      const def = list.getByRole("group", { name: "default", exact: true });
      assert.equal(await def.getByRole("option", { name: "whatever", exact: true }).getAttribute("aria-selected"), "true");
      const fits = await page.evaluate(() => {
        const r = document.querySelector(".model-pop").getBoundingClientRect();
        return { left: r.left, right: r.right, width: window.innerWidth, scroll: document.documentElement.scrollWidth };
      });
      assert.ok(fits.left >= 0 && fits.right <= fits.width && fits.scroll <= fits.width, `the picker fits the phone: ${JSON.stringify(fits)}`);
      await axe(page, "the model picker at phone width");
      await shot(page, "models-picker-phone");

      await list.press("Home");
      await list.press("Enter");
      await list.waitFor({ state: "detached" });
      await headerShows(page, `default/${flags.model}`);
      assert.deepEqual(await choice(), { provider: null, model: null });

      // An empty name after PROVIDER/ is refused here, nothing sent.
      await box.fill("/model local/");
      await box.press("Enter");
      await shows(page.locator(".composer .error"), "Give a model name after local/", "the empty name's error");
      assert.deepEqual(await choice(), { provider: null, model: null });
      assertClean(p);
    } finally {
      await finish(ctx);
    }
  });
});
