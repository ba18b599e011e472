// Settings → MCP servers against the real server and a real MCP server (server-everything over
// stdio, installed in tests/mcp): a configured server is listed as not connected; Connect shows
// it connected with its tools (read-only hints as chips) while the button says "Connecting…" and
// keeps the focus; once connected only Disconnect is offered (the focus moves to it), and it takes
// it back; a server whose command fails shows its stderr in
// plain words. axe finds nothing on the panel at phone width, in both themes. A --read-only server
// says MCP is off and offers no working button; with no server configured the panel shows how to
// add one. Waits are on DOM states and API answers, never on timers.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { apiCall, assertClean, haveServer, launchBrowser, newPage, pageHeaders, repoRoot, shot, signInWithToken, startServer } from "./harness.mjs";

const everything = join(repoRoot, "tests", "mcp", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
const axePath = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"];

const CONFIG = {
  mcpServers: {
    everything: { command: "node", args: [everything, "stdio"] },
    broken: { command: "node", args: ["-e", "console.error('boom here'); process.exit(3)"] },
  },
};

const skip = !haveServer() ? "server binary not built (target/debug/tradewind)" : false;
if (!skip && !existsSync(everything)) {
  throw new Error(`${everything} is missing: run npm ci in tests/mcp (scripts/test does)`);
}

/** The panel, one server's row in it, and that row's buttons. */
function panel(page) {
  const section = page.getByRole("region", { name: "MCP servers" });
  const row = (name) => section.locator(`li[data-mcp-server="${name}"]`);
  const button = (name, label) => row(name).getByRole("button", { name: `${label} ${name}`, exact: true });
  return { section, row, button };
}

async function axe(page, label) {
  await page.addScriptTag({ path: axePath });
  const result = await page.evaluate(
    (tags) => window.axe.run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] }),
    TAGS,
  );
  const text = result.violations
    .map((v) => `  ${v.id} (${v.impact}): ${v.help}\n${v.nodes.slice(0, 6).map((n) => `      ${n.target.join(" ")}`).join("\n")}`)
    .join("\n");
  assert.equal(result.violations.length, 0, `axe violations on ${label}:\n${text}`);
}

describe("settings: MCP servers", { skip, timeout: 180_000 }, () => {
  let server;
  let browser;
  let state;

  before(async () => {
    server = await startServer({ scripts: [{ turns: [{ text: "hi" }] }], config: CONFIG });
    browser = await launchBrowser();
    const p = await newPage(browser, server);
    state = await signInWithToken(p.page, server);
    await p.context.close();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  test("connect a server, see its tools, disconnect it; a failing server says why", async () => {
    const p = await newPage(browser, server, { storageState: state });
    p.page.setDefaultTimeout(40_000);
    const { page } = p;
    const { section, row, button } = panel(page);
    await page.goto(server.base + "/settings");

    // Both servers are listed, not connected, with their command line.
    const ev = row("everything");
    await ev.and(page.locator('[data-state="disconnected"]')).waitFor();
    await row("broken").and(page.locator('[data-state="disconnected"]')).waitFor();
    assert.match(await ev.getByTestId("mcp-state").innerText(), /not connected$/);
    const target = ev.locator(".mcp-target");
    assert.equal(await target.getAttribute("title"), `node ${everything} stdio`);
    await section.getByText("Every call of an MCP tool asks for your approval", { exact: false }).waitFor();
    assert.equal(await button("everything", "Disconnect").getAttribute("aria-disabled"), "true", "nothing to disconnect yet");

    // Connect: held at the network until the in-flight state is seen, then let through.
    let release;
    const held = new Promise((r) => (release = r));
    let seen;
    const requested = new Promise((r) => (seen = r));
    let passed;
    const through = new Promise((r) => (passed = r));
    await page.route("**/api/mcp/servers/everything/connect", async (route) => {
      seen();
      await held;
      await route.continue();
      passed();
    });
    await button("everything", "Connect").click();
    await requested;
    const connecting = button("everything", "Connecting");
    await connecting.getByText("Connecting…").waitFor();
    assert.equal(await connecting.getAttribute("aria-disabled"), "true");
    assert.equal(await connecting.evaluate((el) => el === document.activeElement), true, "the button keeps the focus");
    await ev.and(page.locator('[data-state="connecting"]')).waitFor();
    release();
    await through;
    await page.unroute("**/api/mcp/servers/everything/connect");

    await ev.and(page.locator('[data-state="connected"]')).waitFor();
    assert.match(await ev.getByTestId("mcp-state").innerText(), /connected$/);
    assert.doesNotMatch(await ev.getByTestId("mcp-state").innerText(), /not connected/);
    await ev.locator(".mcp-info").getByText("everything", { exact: false }).waitFor();
    // Connected: only Disconnect applies, and the focus moves to it.
    assert.equal(await button("everything", "Connect").getAttribute("aria-disabled"), "true");
    const disconnect = button("everything", "Disconnect");
    assert.equal(await disconnect.getAttribute("aria-disabled"), "false");
    await page.waitForFunction(() => document.activeElement?.getAttribute("aria-label") === "Disconnect everything");

    // The tools, folded: opened from the keyboard.
    const summary = ev.locator(".mcp-tools summary");
    assert.match(await summary.innerText(), /^\d+ tools$/);
    await summary.focus();
    await page.keyboard.press("Enter");
    const echo = ev.locator('li[data-tool="mcp_everything_echo"]');
    await echo.waitFor();
    await echo.getByText("mcp_everything_echo", { exact: true }).waitFor();
    await echo.getByText("Echoes back the input string").waitFor();
    await echo.locator('.chip[data-hint="read-only"]').getByText("read-only", { exact: true }).waitFor();
    const listed = await apiCall(page, server, "GET", "/api/mcp/servers");
    const info = listed.json.data.find((s) => s.name === "everything");
    assert.equal(info.state, "connected");
    assert.equal(await ev.locator("li[data-tool]").count(), info.tools.length, "every tool is listed");
    await shot(page, "mcp-connected");

    // Disconnect, from the keyboard: the tools go, Connect comes back.
    await disconnect.focus();
    await page.keyboard.press("Enter");
    await ev.and(page.locator('[data-state="disconnected"]')).waitFor();
    await ev.locator(".mcp-tools").waitFor({ state: "detached" });
    await button("everything", "Connect").waitFor();
    assert.equal((await apiCall(page, server, "GET", "/api/mcp/servers")).json.data.find((s) => s.name === "everything").state, "disconnected");

    // A command that exits at once: failed, with what it wrote to stderr, never the JSON body.
    const broken = row("broken");
    await button("broken", "Connect").click();
    await broken.and(page.locator('[data-state="failed"]')).waitFor();
    const alert = broken.getByRole("alert");
    await alert.getByText("boom here", { exact: false }).waitFor();
    const said = await alert.innerText();
    assert.doesNotMatch(said, /[{}]|"error"|provider_error/, `plain words, not the error body: ${said}`);
    assert.equal(await alert.locator("p").count(), 1, "the reason is shown once");
    assert.match(await broken.getByTestId("mcp-state").innerText(), /failed$/);
    // Connect stays offered, to try again.
    assert.equal(await button("broken", "Connect").getAttribute("aria-disabled"), "false");
    await shot(page, "mcp-failed");

    // A fresh load shows the same states from the server.
    await page.reload();
    await row("broken").and(page.locator('[data-state="failed"]')).getByRole("alert").getByText("boom here", { exact: false }).waitFor();
    await ev.and(page.locator('[data-state="disconnected"]')).waitFor();
    assertClean(p);
    await p.context.close();
  });

  for (const scheme of ["light", "dark"]) {
    test(`axe at phone width (${scheme}): a connected server with its tools open and a failed one`, async () => {
      const p = await newPage(browser, server, {
        storageState: state,
        viewport: { width: 390, height: 844 },
        colorScheme: scheme,
        bypassCSP: true,
      });
      p.page.setDefaultTimeout(40_000);
      const { page } = p;
      const { section, row, button } = panel(page);
      await page.goto(server.base + "/settings");
      const ev = row("everything");
      await ev.locator("[data-testid=mcp-state]").waitFor();
      if ((await ev.getAttribute("data-state")) !== "connected") {
        await button("everything", "Connect").click();
        await ev.and(page.locator('[data-state="connected"]')).waitFor();
      }
      await ev.locator(".mcp-tools summary").click();
      await ev.locator('li[data-tool="mcp_everything_echo"]').waitFor();
      const broken = row("broken");
      if ((await broken.getAttribute("data-state")) !== "failed") {
        await button("broken", "Connect").click();
        await broken.and(page.locator('[data-state="failed"]')).waitFor();
      }
      await section.locator(".mcp-help summary").click();
      await section.locator(".mcp-help .mcp-example").waitFor();
      await section.scrollIntoViewIfNeeded();
      // Nothing wider than the phone: the long command line is cut, not scrolled.
      const widths = await section.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
      assert.ok(widths.scroll <= widths.client, `the panel overflows: ${JSON.stringify(widths)}`);
      await axe(page, `the MCP panel at phone width (${scheme})`);
      await broken.scrollIntoViewIfNeeded();
      await shot(page, `mcp-phone-${scheme}`);
      await p.context.close();
    });
  }
});

describe("settings: MCP servers off or none", { skip, timeout: 120_000 }, () => {
  let readOnly;
  let empty;
  let browser;

  before(async () => {
    readOnly = await startServer({ scripts: [{ turns: [{ text: "hi" }] }], config: CONFIG, args: ["--read-only"] });
    empty = await startServer({ scripts: [{ turns: [{ text: "hi" }] }] });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await readOnly?.stop();
    await empty?.stop();
  });

  test("a --read-only server: MCP is off, no button works", async () => {
    const p = await newPage(browser, readOnly);
    p.page.setDefaultTimeout(10_000);
    const { page } = p;
    await signInWithToken(page, readOnly);
    const { section, row, button } = panel(page);
    await page.goto(readOnly.base + "/settings");
    await section.locator("[data-mcp-blocked]").getByText("MCP is off", { exact: false }).waitFor();
    await row("everything").waitFor();
    for (const name of ["everything", "broken"]) {
      assert.equal(await button(name, "Connect").getAttribute("aria-disabled"), "true");
      assert.equal(await button(name, "Disconnect").getAttribute("aria-disabled"), "true");
    }
    // A click does nothing: no request leaves the page.
    const before = p.log.requests.filter((u) => u.includes("/connect")).length;
    await button("everything", "Connect").click({ force: true });
    await page.evaluate((headers) => fetch("/api/mcp/servers", { headers }).then((r) => r.json()), await pageHeaders(page));
    assert.equal(p.log.requests.filter((u) => u.includes("/connect")).length, before);
    assert.equal(await row("everything").getAttribute("data-state"), "disconnected");
    assertClean(p);
    await p.context.close();
  });

  test("no server configured: how to add one", async () => {
    const p = await newPage(browser, empty);
    p.page.setDefaultTimeout(10_000);
    const { page } = p;
    await signInWithToken(page, empty);
    const { section } = panel(page);
    await page.goto(empty.base + "/settings");
    const help = section.locator("[data-mcp-empty]");
    await help.getByText("No MCP server is configured.").waitFor();
    await help.getByText("config.json", { exact: true }).first().waitFor();
    const example = await help.locator(".mcp-example").innerText();
    assert.ok(JSON.parse(example).mcpServers, "the example is config.json as it would be written");
    await section.getByText("Every call of an MCP tool asks for your approval", { exact: false }).waitFor();
    assert.equal(await section.getByRole("button").count(), 0);
    assertClean(p);
    await p.context.close();
  });
});
