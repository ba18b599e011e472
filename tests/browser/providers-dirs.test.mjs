// "Test connection" and the workspace picker, end to end against the real server (issue 47, items
// 2 and 13). A small OpenAI-compatible server of this file on 127.0.0.1 lists three models under
// `/v1` and `/alt/v1` and answers 500 under `/broken/v1`, recording each request's Authorization.
// The first-run screen and Settings' Add/Edit provider form test what the form says through
// `POST /api/providers/test` (never `GET /api/models` of the saved provider): the number of models,
// a list that fills the model field, which key was sent (typed, saved, none for a changed address)
// and the server's refusal in words; nothing is saved. The new-session form pre-fills the last
// workspace used (selected, warned about when it is /etc), lists the recent ones, browses the
// server's folders under its home folder (into, up, hidden ones, choose), warns for a typed system
// or home folder, and shows the server's default mode chosen. axe finds nothing on each, at 390 px
// too. Each test starts its own servers; waits are on DOM states, never on timers.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { apiCall, assertClean, haveServer, launchBrowser, newPage, shot, signInWithToken, startServer } from "./harness.mjs";
import { axe, get, shows } from "./checks.mjs";

const skip = haveServer() ? false : "server binary not built (target/debug/tradewind)";

const PHONE = { width: 390, height: 844 };

/** The OpenAI-compatible server: `requests` holds each request's path and Authorization header. */
async function startFakeOpenAi() {
  const requests = [];
  const server = createServer((req, res) => {
    requests.push({ method: req.method, path: req.url, auth: req.headers.authorization ?? null });
    if (req.url.startsWith("/broken/")) {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "the model server is down for maintenance" } }));
    } else if (req.method === "GET" && (req.url === "/v1/models" || req.url === "/alt/v1/models")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: [{ id: "tiny-a" }, { id: "tiny-b" }, { id: "coder-x" }] }));
    } else {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
    }
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${server.address().port}`;
  return {
    url: `${base}/v1`,
    altUrl: `${base}/alt/v1`,
    brokenUrl: `${base}/broken/v1`,
    requests,
    /** The last model-list request under `prefix`. */
    lastList: (prefix) => requests.filter((r) => r.path === `${prefix}/models`).at(-1),
    close: () => new Promise((r) => server.close(r)),
  };
}

/** The page's document is no wider than its window. */
async function fits(page, what) {
  const doc = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
  assert.ok(doc.scroll <= doc.client, `${what} overflows: ${JSON.stringify(doc)}`);
}

describe("Test connection and the workspace picker", { skip, timeout: 600_000 }, () => {
  let browser;

  before(async () => {
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
  });

  /** Its own server (keys from the environment emptied) and a signed-in page that can run axe. */
  async function boot(options, { before: prepare } = {}) {
    const server = await startServer({ scripts: [{ turns: [{ text: "Hello." }] }], ...options, env: { OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "", ...options.env } });
    const p = await newPage(browser, server, { bypassCSP: true });
    p.page.setDefaultTimeout(8000);
    await prepare?.(p.page);
    await signInWithToken(p.page, server);
    return { server, p };
  }

  test("first-run screen: Test connection tests the form unsaved, offers its models, says the key and the refusal", { timeout: 120_000 }, async () => {
    const fake = await startFakeOpenAi();
    // No probe: the screen shows the manual form at once.
    const { server, p } = await boot({ provider: false }, { before: (page) => page.route("**/api/setup/probe", (r) => r.fulfill({ json: { servers: [] } })) });
    try {
      const { page } = p;
      await page.locator(".setup h1").getByText("Set up a model").waitFor();
      const form = page.locator(".setup form.settings-form");
      await form.locator('input[name="base_url"]').fill(fake.url);
      await form.locator('input[name="model"]').fill("not-there");
      await form.locator('input[name="api_key"]').fill("sk-typed-first");
      await form.getByRole("button", { name: "Test connection" }).click();

      const result = form.locator(".provider-test-result");
      await shows(result, "Connected with your typed key: 3 models listed.", "the test's result");
      await shows(result, "The server does not list “not-there”", "the model not listed");
      assert.equal(fake.lastList("/v1")?.auth, "Bearer sk-typed-first", "the typed key was sent to the form's server");
      assert.ok(p.log.requests.some((u) => u.endsWith("/api/providers/test")), "tested through POST /api/providers/test");
      assert.ok(!p.log.requests.some((u) => new URL(u).pathname === "/api/models"), "not the saved provider's GET /api/models");

      // The listed models fill the model field.
      const pick = form.getByLabel("Use a model the server lists");
      assert.deepEqual(await pick.locator("option:not([disabled])").allInnerTexts(), ["tiny-a", "tiny-b", "coder-x"]);
      await pick.selectOption("coder-x");
      assert.equal(await form.locator('input[name="model"]').inputValue(), "coder-x");
      await axe(page, "the first-run screen with a test's result");

      // A server that refuses: its words, plainly; nothing is saved.
      await form.locator('input[name="base_url"]').fill(fake.brokenUrl);
      await form.getByRole("button", { name: "Test connection" }).click();
      await shows(form.getByRole("alert"), /^Connection failed: .*500/, "the refusal");
      assert.equal(await result.count(), 0, "the earlier success is gone");
      assert.ok(fake.lastList("/broken/v1"), "the broken server was asked");
      assert.equal((await get(page, server, "/api/settings/provider")).kind, "", "nothing saved");

      await page.setViewportSize(PHONE);
      await fits(page, "the first-run screen at 390 px");
      await axe(page, "the first-run screen's refused test at 390 px");
      await shot(page, "providers-test-first-run-phone");
      assertClean(p);
    } finally {
      await p.context.close();
      await server.stop();
      await fake.close();
    }
  });

  test("Settings: the provider form tests with the saved key, none for a changed address, the typed one; nothing stored", { timeout: 120_000 }, async () => {
    const fake = await startFakeOpenAi();
    const { server, p } = await boot({});
    try {
      const { page } = p;
      await page.goto(`${server.base}/settings`);
      const saved = await apiCall(page, server, "PUT", "/api/providers/local", { kind: "openai", base_url: fake.url, model: "tiny-a", api_key: "sk-saved" });
      assert.equal(saved.status, 200, JSON.stringify(saved.json));
      await page.reload();
      const panel = page.getByRole("region", { name: "Model providers" });
      const row = panel.locator('li[data-provider="local"]');
      await row.getByRole("button", { name: "Edit local" }).click();
      const edit = row.getByRole("form", { name: "Edit the provider local" });
      const result = edit.locator(".provider-test-result");
      const testIt = () => edit.getByRole("button", { name: "Test connection" }).click();

      // Unchanged address: the saved key.
      await testIt();
      await shows(result, "Connected with the saved key: 3 models listed.", "the saved key's test");
      assert.equal(fake.lastList("/v1")?.auth, "Bearer sk-saved");
      await edit.getByLabel("Use a model the server lists").selectOption("tiny-b");
      assert.equal(await edit.getByLabel("Model", { exact: true }).inputValue(), "tiny-b");

      // A changed address: no key, and the form says to type it again.
      await edit.getByLabel(/^Base URL/).fill(fake.altUrl);
      await testIt();
      await shows(result, "Connected with no key — type the key again for a changed address: 3 models listed.", "the changed address's test");
      assert.equal(fake.lastList("/alt/v1")?.auth, null, "no key sent to a changed address");

      // Typed: that key, for this test only.
      await edit.getByLabel(/^API key/).fill("sk-typed-edit");
      await testIt();
      await shows(result, "Connected with your typed key: 3 models listed.", "the typed key's test");
      assert.equal(fake.lastList("/alt/v1")?.auth, "Bearer sk-typed-edit");
      await axe(page, "the provider editor with a test's result");

      const stored = (await get(page, server, "/api/providers")).data.find((x) => x.id === "local");
      assert.equal(stored.base_url, fake.url, "the test stored nothing");
      assert.equal(stored.model, "tiny-a", "the test stored nothing");
      await edit.getByRole("button", { name: "Cancel" }).click();

      // The add form: a server that refuses, in words; at phone width.
      await page.setViewportSize(PHONE);
      await panel.getByRole("button", { name: "Add a provider" }).click();
      const add = panel.getByRole("form", { name: "Add a provider" });
      await add.getByLabel(/^Base URL/).fill(fake.brokenUrl);
      await add.getByRole("button", { name: "Test connection" }).click();
      await shows(add.getByRole("alert"), /^Connection failed: .*500/, "the refusal");
      await fits(page, "the add form at 390 px");
      await axe(page, "the add form's refused test at 390 px");
      await shot(page, "providers-test-settings-phone");
      assert.ok(!p.log.requests.some((u) => new URL(u).pathname === "/api/models"), "no test went to GET /api/models");
      assertClean(p);
    } finally {
      await p.context.close();
      await server.stop();
      await fake.close();
    }
  });

  test("new session: the last workspace pre-filled and selected, warned about; recent ones; Browse…; the server's default mode", { timeout: 120_000 }, async () => {
    // A home folder of the test's own: what the picker lists.
    const home = realpathSync(mkdtempSync(join(tmpdir(), "tw-home-")));
    for (const d of ["projects/alpha/inner", "projects/beta", ".secret-proj"]) mkdirSync(join(home, d), { recursive: true });
    const alpha = join(home, "projects", "alpha");
    const beta = join(home, "projects", "beta");
    const { server, p } = await boot({ args: ["--allow-write", "--allow-process"], env: { HOME: home } });
    try {
      const { page } = p;
      const cfg = await get(page, server, "/api/config");
      assert.notEqual(cfg.default_mode, "ask", "the server's default is not ask here (what the form must show)");
      // Sessions ran in alpha, then in /etc: the last used is /etc.
      for (const workspace of [alpha, "/etc"]) {
        const r = await apiCall(page, server, "POST", "/api/sessions", { workspace, title: `in ${workspace}` });
        assert.equal(r.status, 201, JSON.stringify(r.json));
      }
      assert.deepEqual((await get(page, server, "/api/fs/dirs")).recent.map((r) => r.path).slice(0, 2), ["/etc", alpha]);

      await page.goto(`${server.base}/`);
      await page.getByRole("button", { name: "+ New" }).click();
      const form = page.locator("form.new-session");
      const ws = form.getByLabel("Workspace folder");
      await page.waitForFunction(() => document.querySelector('form.new-session input[name="workspace"]')?.value === "/etc");
      // Selected: typing replaces it.
      const selection = await ws.evaluate((el) => [el === document.activeElement, el.selectionStart, el.selectionEnd]);
      assert.deepEqual(selection, [true, 0, 4], "the pre-filled folder has the focus, all selected");
      const warning = form.locator(".workspace-warning");
      await shows(warning, "/etc is a system folder", "the pre-filled /etc's warning");
      assert.equal(await ws.getAttribute("aria-describedby"), await warning.getAttribute("id"), "the warning describes the field");

      // The server's default mode shown chosen.
      const mode = form.locator('select[name="mode"]');
      assert.equal(await mode.inputValue(), cfg.default_mode);
      assert.equal(await mode.evaluate((el) => el.selectedOptions[0].textContent), `${cfg.default_mode} (server default)`);

      // The recent workspaces, to pick from.
      const recent = form.getByRole("list", { name: "Recent" });
      assert.deepEqual(await recent.getByRole("button").allInnerTexts(), ["/etc ⚠", alpha]);
      await recent.getByRole("button", { name: alpha }).click();
      assert.equal(await ws.inputValue(), alpha);
      await warning.waitFor({ state: "detached" });

      // Typed: a system folder and the home folder itself are warned about here too.
      await ws.fill("/usr/");
      await shows(warning, "/usr is a system folder", "a typed system folder");
      await ws.fill(home);
      await shows(warning, "is your home folder itself", "the typed home folder");
      await ws.fill("/usr");

      // Browse…: from the home folder (/usr is outside it), hidden folders on request, in, up, choose.
      await form.getByRole("button", { name: "Browse…" }).click();
      const picker = form.getByRole("group", { name: home });
      const folders = () => picker.locator(".folder-list button").allInnerTexts();
      await picker.locator(".folder-list").waitFor();
      assert.deepEqual(await folders(), ["📁 projects"], "no hidden folder listed");
      await picker.getByLabel("Show hidden folders").check();
      await picker.getByRole("button", { name: ".secret-proj" }).waitFor();
      await picker.getByLabel("Show hidden folders").uncheck();
      await picker.getByRole("button", { name: ".secret-proj" }).waitFor({ state: "detached" });
      await axe(page, "the new-session form's folder picker");
      await picker.getByRole("button", { name: "projects" }).click();
      const inProjects = form.getByRole("group", { name: join(home, "projects") });
      // The keyboard carries on from the folder opened: its path has the focus.
      await page.waitForFunction((p) => document.activeElement?.classList.contains("folder-picker-path") && document.activeElement.textContent === p, join(home, "projects"));
      await inProjects.getByRole("button", { name: "alpha" }).click();
      const inAlpha = form.getByRole("group", { name: alpha });
      await inAlpha.getByRole("button", { name: "inner" }).waitFor();
      await inAlpha.getByRole("button", { name: "Up to the parent folder" }).click();
      await inProjects.getByRole("button", { name: "beta" }).click();
      await form.getByRole("group", { name: beta }).getByRole("button", { name: "Use this folder" }).click();
      assert.equal(await ws.inputValue(), beta);
      await form.locator(".folder-picker").waitFor({ state: "detached" });
      assert.equal(await warning.count(), 0, "no warning for a project folder");

      // The mode can still be changed; the session starts where and how the form says.
      await mode.selectOption("ask");
      await form.getByRole("button", { name: "Create session" }).click();
      await page.waitForURL(/\/s\//);
      const id = decodeURIComponent(new URL(page.url()).pathname.split("/").pop());
      const s = await get(page, server, `/api/sessions/${id}`);
      assert.equal(s.workspace, beta);
      assert.equal(s.mode, "ask");

      // At 390 px: the folder just used is the one pre-filled now; the picker opens in it.
      await page.setViewportSize(PHONE);
      await page.goto(`${server.base}/`);
      await page.getByRole("button", { name: "+ New" }).click();
      await page.waitForFunction((b) => document.querySelector('form.new-session input[name="workspace"]')?.value === b, beta);
      await form.getByRole("button", { name: "Browse…" }).click();
      await form.getByRole("group", { name: beta }).getByText("No folders here.").waitFor();
      await fits(page, "the new-session form at 390 px");
      await axe(page, "the new-session form and its picker at 390 px");
      await shot(page, "new-session-picker-phone");
      assertClean(p);
    } finally {
      await p.context.close();
      await server.stop();
      rmSync(home, { recursive: true, force: true });
    }
  });
});
