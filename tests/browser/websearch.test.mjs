// Settings → Web search against the real server: the default provider is shown, a keyed provider
// is chosen and its key stored (write-only: the page only learns that a key is set), a SearXNG URL
// the server refuses shows its message and stores nothing, and a loopback SearXNG is saved.
// Waits are on DOM states and API answers, never on timers.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { readFileSync } from "node:fs";
import { apiCall, assertClean, createSessionViaUi, haveServer, launchBrowser, newPage, sendPrompt, shot, signInWithToken, startServer } from "./harness.mjs";
import { axe } from "./checks.mjs";

const skip = haveServer() ? false : "server binary not built (target/debug/tradewind)";

describe("settings: web search", { skip, timeout: 120_000 }, () => {
  let server;
  let browser;
  let state;

  before(async () => {
    // No key in the server's environment: "a key is set" can only come from the one saved here.
    server = await startServer({ scripts: [{ turns: [{ text: "hi" }] }], env: { TAVILY_API_KEY: "" } });
    browser = await launchBrowser();
    const p = await newPage(browser, server);
    state = await signInWithToken(p.page, server);
    await p.context.close();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  test("choose tavily with a key, a refused SearXNG URL, then a loopback SearXNG", async () => {
    const p = await newPage(browser, server, { storageState: state });
    p.page.setDefaultTimeout(10_000);
    const { page } = p;
    await page.goto(server.base + "/settings");
    const section = page.getByRole("region", { name: "Web search" });
    const radio = (name) => section.getByRole("radio", { name, exact: true });
    const urlField = section.getByRole("textbox", { name: "SearXNG URL" });
    const keyField = section.locator('input[name="websearch_api_key"]');
    const status = section.getByRole("status");
    const save = section.getByRole("button", { name: "Save" });

    // The default: SearXNG at the public instance (shown as the field's placeholder), no key field.
    const initial = await apiCall(page, server, "GET", "/api/settings/websearch");
    assert.equal(initial.status, 200);
    assert.equal(initial.json.provider, "searxng");
    assert.equal(initial.json.source, "default");
    await section.locator('[data-websearch-source="default"]').waitFor();
    await page.waitForFunction(() => document.querySelector('.websearch input[name="websearch_provider"]:checked')?.value === "searxng");
    assert.equal(await radio("SearXNG").isChecked(), true);
    assert.equal(await urlField.getAttribute("placeholder"), initial.json.searxng_url);
    assert.equal(await urlField.inputValue(), "");
    assert.equal(await keyField.count(), 0, "no key field for a keyless provider");
    // Every provider is offered with its note.
    for (const info of initial.json.providers) {
      await section.getByRole("radio", { name: info.label, exact: true }).waitFor();
      await section.getByText(info.note, { exact: true }).waitFor();
    }

    // Tavily: the URL field goes, the key field comes, naming the variable the key is read from.
    await radio("Tavily").check();
    await urlField.waitFor({ state: "detached" });
    await keyField.waitFor();
    assert.equal(await keyField.getAttribute("type"), "password");
    await section.getByText("$TAVILY_API_KEY", { exact: false }).waitFor();
    await keyField.fill("tvly-test-key-123");
    await save.click();
    await status.getByText("Saved.").waitFor();
    await section.locator('[data-key-state="set"]').getByText("a key is set", { exact: false }).waitFor();
    await section.locator('[data-websearch-source="settings"]').waitFor();
    assert.equal(await keyField.inputValue(), "", "the key is write-only: the field empties after saving");
    const saved = await apiCall(page, server, "GET", "/api/settings/websearch");
    assert.equal(saved.json.provider, "tavily");
    assert.equal(saved.json.api_key_set, true);
    assert.equal(saved.json.source, "settings");
    assert.ok(!JSON.stringify(saved.json).includes("tvly-test-key-123"), "the key is never returned");
    await shot(page, "websearch-tavily");

    // A plain-http SearXNG off loopback: the server's 422 message next to the form, nothing stored.
    await radio("SearXNG").check();
    await urlField.fill("http://search.example");
    await save.click();
    await section.locator('p.error[role="status"]').filter({ hasText: "must use https://" }).waitFor();
    assert.equal(await radio("SearXNG").isChecked(), true, "the choice stays in the form");
    assert.equal(await urlField.inputValue(), "http://search.example", "the URL stays in the form to correct");
    const unchanged = await apiCall(page, server, "GET", "/api/settings/websearch");
    assert.equal(unchanged.json.provider, "tavily");
    assert.equal(unchanged.json.api_key_set, true);
    await shot(page, "websearch-refused");

    // The same instance on loopback is accepted.
    await urlField.fill("http://127.0.0.1:8080");
    await save.click();
    await status.getByText("Saved.").waitFor();
    await section.locator('[data-websearch-source="settings"]').getByText("127.0.0.1:8080", { exact: false }).waitFor();
    const local = await apiCall(page, server, "GET", "/api/settings/websearch");
    assert.equal(local.json.provider, "searxng");
    assert.equal(local.json.searxng_url, "http://127.0.0.1:8080");

    // A fresh load shows what was stored.
    await page.reload();
    await section.locator('[data-websearch-source="settings"]').waitFor();
    assert.equal(await radio("SearXNG").isChecked(), true);
    assert.equal(await urlField.inputValue(), "http://127.0.0.1:8080");
    assertClean(p);
    await p.context.close();
  });
});

// A search the model's provider ran on its side (a recorded Responses API stream: a
// `web_search_call` with its pages, then an answer with a `url_citation`): the transcript shows
// the query and, opened, the pages as links; the answer lists the page it cites under Sources,
// opening in a new tab without the opener. axe finds nothing on it, in both themes (a page
// that bypasses the CSP, so it can be injected; the first page keeps it).
describe("transcript: the provider's own web search", { skip, timeout: 120_000 }, () => {
  let server;
  let browser;
  let state;

  before(async () => {
    const sse = readFileSync(new URL("../recorded/responses-web-search.sse", import.meta.url), "utf8");
    server = await startServer({ scripts: [{ turns: [{ recorded: { format: "responses", sse } }] }] });
    browser = await launchBrowser();
    const p = await newPage(browser, server);
    state = await signInWithToken(p.page, server);
    await p.context.close();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  test("the search, its pages and the answer's sources", async () => {
    const p = await newPage(browser, server, { storageState: state });
    p.page.setDefaultTimeout(10_000);
    const { page } = p;
    await page.goto(server.base + "/");
    await createSessionViaUi(page, { title: "Search" });
    await sendPrompt(page, "what is new in tokio?");
    const note = page.locator(".web-search");
    await note.getByText("“tokio 1.54 release notes”").waitFor();
    await note.getByText("2 pages", { exact: false }).waitFor();
    await note.locator("summary").click();
    const pages = note.locator(".source-list a");
    await pages.nth(1).waitFor();
    assert.equal(await pages.nth(0).getAttribute("href"), "https://github.com/tokio-rs/tokio/releases");
    const sources = page.locator(".msg-assistant .citations");
    const cited = sources.getByRole("link", { name: /Releases · tokio-rs\/tokio/ });
    await cited.waitFor();
    assert.equal(await cited.getAttribute("target"), "_blank");
    assert.equal(await cited.getAttribute("rel"), "noopener noreferrer");
    assert.match(await cited.getAttribute("href"), /^https:\/\/github\.com\/tokio-rs\/tokio\/releases/);
    await page.locator(".run-end").first().waitFor();
    await shot(page, "native-web-search");
    assertClean(p);
    // axe is injected as a script: a page of its own lets it past the app's CSP.
    const checked = await newPage(browser, server, { storageState: state, bypassCSP: true });
    await checked.page.goto(page.url());
    await checked.page.locator(".web-search summary").click();
    await checked.page.locator(".web-search .source-list a").nth(1).waitFor();
    await axe(checked.page, "a provider's web search and an answer's sources");
    await checked.context.close();
    await p.context.close();
  });
});
