// Settings → Plugins against the real server, with a plugin folder written into the state
// directory's plugins/ before it starts: `greeter` (tradewind-plugin.json with a version, a
// description and an MCP server; a skill `hello`, an agent `helper`). The panel lists it off, with
// what it bundles (skills, agents, the MCP server by name) and its folder; while it is off, Settings
// → Skills has no `hello` and Settings → Agents no `helper`. Switched on: the switch says so after a
// reload too and GET /api/plugins says enabled; Skills lists `hello` (source plugin), Agents and the
// New session form's agent list have `helper`, MCP servers lists `greeter` (source plugin), all
// without a reload. Switched off again from the keyboard (the focus stays on the switch): they go
// away again. `/plugins` in the composer opens the panel with the focus on its title. axe finds
// nothing on the panel, off and on, at desktop and phone width, light and dark. With none
// installed, the panel says how to install one (the CLI, or the agent's plugin_install) and what a
// plugin folder holds. Waits are on DOM states and API answers, never on timers.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { apiCall, assertClean, haveServer, launchBrowser, newPage, shot, signInWithToken, startServer } from "./harness.mjs";
import { axe, get, shows } from "./checks.mjs";

const skip = haveServer() ? false : "server binary not built (target/debug/tradewind)";

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 860 };

const MANIFEST = {
  name: "greeter",
  version: "1.0.0",
  description: "Greets.",
  mcpServers: { greeter: { command: "node", args: ["${CLAUDE_PLUGIN_ROOT}/server.mjs"] } },
};

const PLUGIN_FILES = {
  "plugins/greeter/tradewind-plugin.json": JSON.stringify(MANIFEST, null, 2),
  "plugins/greeter/skills/hello/SKILL.md": "---\nname: hello\ndescription: Say hello.\n---\nHi.",
  "plugins/greeter/agents/helper.md": "---\ndescription: Helps.\ntools: Read\n---\nHelp.",
};

/** A server with the plugin installed (off) unless `homeFiles` says otherwise, a signed-in page at `viewport` (bypassCSP only to inject axe). */
async function boot(browser, viewport, homeFiles = PLUGIN_FILES) {
  const server = await startServer({ scripts: [{ turns: [{ text: "hi" }] }], homeFiles });
  const first = await newPage(browser, server);
  const state = await signInWithToken(first.page, server);
  await first.context.close();
  const p = await newPage(browser, server, { storageState: state, viewport, bypassCSP: true });
  p.page.setDefaultTimeout(10_000);
  return { server, p };
}

/** Whether the element with this id has the focus, once the page settles on it. */
async function focused(page, id, what) {
  await page.waitForFunction((i) => document.activeElement?.id === i, id).catch(async () => {
    const now = await page.evaluate(() => `${document.activeElement?.tagName}#${document.activeElement?.id}`);
    assert.fail(`${what}: the focus is on ${now}`);
  });
}

/** The values the list `select` (a CSS selector) offers, once it offers `build` (the list is read). */
async function offered(page, select) {
  await page.waitForFunction((sel) => [...(document.querySelector(sel)?.options ?? [])].some((o) => o.value === "build"), select);
  return page.evaluate((sel) => [...document.querySelector(sel).options].map((o) => o.value), select);
}

/** Waits until the list `select` offers `value` (`present`) or does not. */
async function offers(page, select, value, present = true) {
  await page.waitForFunction(
    ([sel, v, want]) => {
      const options = [...(document.querySelector(sel)?.options ?? [])];
      return options.some((o) => o.value === "build") && options.some((o) => o.value === v) === want;
    },
    [select, value, present],
  );
}

describe("Settings → Plugins", { skip, timeout: 300_000 }, () => {
  let browser;

  before(async () => {
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
  });

  test("installed off; on, its skill, agent and MCP server count; off again, they go; /plugins opens the panel", { timeout: 150_000 }, async () => {
    const { server, p } = await boot(browser, DESKTOP);
    try {
      const { page } = p;
      const panel = page.getByRole("region", { name: "Plugins" });
      const row = panel.locator('li[data-plugin="greeter"]');
      const toggle = panel.getByRole("switch", { name: "Enabled: plugin greeter" });
      const skills = page.getByRole("region", { name: "Skills" });
      const hello = skills.locator('li[data-skill="hello"]');
      const agents = page.getByRole("region", { name: "Agents" });
      const helper = agents.locator('li[data-agent="helper"]');
      const mcpServer = page.locator('li[data-mcp-server="greeter"]');

      // Off: listed with what it bundles, its folder; the note that an installed plugin is off.
      await page.goto(`${server.base}/settings`);
      await row.waitFor();
      await shows(panel.locator(".plugins-off-note"), "An installed plugin is off until you turn it on here", "the off-until-enabled note");
      assert.equal(await row.getAttribute("data-enabled"), "false");
      assert.equal(await toggle.isChecked(), false);
      await shows(row.locator(".plugin-version"), "1.0.0", "the version");
      await shows(row.locator(".extension-desc"), "Greets.", "the description");
      await shows(row.locator("[data-plugin-off]"), "none of it is used", "the off note");
      assert.deepEqual(await row.locator("[data-bundle]").evaluateAll((els) => els.map((e) => e.dataset.bundle)), ["skills", "agents", "mcp"]);
      await shows(row.locator(".plugin-bundle"), "Bundles: skills; agents; MCP server greeter", "what it bundles");
      assert.deepEqual(await row.locator('[data-bundle="mcp"] code').allInnerTexts(), ["greeter"]);
      assert.match(await row.locator(".extension-where code").innerText(), /\/plugins\/greeter$/);
      assert.equal(await row.locator("[data-plugin-problems]").count(), 0, "no problem");
      const listed = await get(page, server, "/api/plugins");
      assert.deepEqual(
        listed.data.map((x) => [x.name, x.version, x.enabled, x.skills, x.agents, x.commands, x.hooks, x.mcp_servers, x.websearch ?? null, x.problems]),
        [["greeter", "1.0.0", false, true, true, false, false, ["greeter"], null, []]],
      );

      // While it is off, its skill and agent are nowhere.
      await skills.locator("[data-skills-empty]").waitFor();
      assert.equal(await hello.count(), 0, "no plugin skill while it is off");
      await agents.locator('li[data-agent="build"]').waitFor();
      assert.equal(await helper.count(), 0, "no plugin agent while it is off");
      assert.equal(await mcpServer.count(), 0, "no plugin MCP server while it is off");
      assert.deepEqual((await get(page, server, "/api/skills")).data.map((s) => s.name), []);
      assert.deepEqual((await get(page, server, "/api/agents")).data.map((a) => a.name), ["build", "plan"]);
      await axe(page, "Settings → Plugins, off");
      await page.setViewportSize(PHONE);
      await axe(page, "Settings → Plugins, off, phone width");
      await page.setViewportSize(DESKTOP);

      // On: the switch, the server and the other panels say so, without a reload.
      await toggle.click();
      await panel.locator('li[data-plugin="greeter"][data-enabled="true"]').waitFor();
      assert.equal(await toggle.isChecked(), true);
      await shows(panel.getByRole("status"), "greeter is on", "the switched-on note");
      await row.locator("[data-plugin-on]").waitFor();
      await hello.waitFor();
      await shows(hello.locator(".extension-source"), "plugin", "the plugin skill's source");
      await shows(hello.locator(".extension-desc"), "Say hello.", "the plugin skill's description");
      await helper.waitFor();
      await shows(helper.locator(".extension-source"), "plugin", "the plugin agent's source");
      await shows(helper.locator(".extension-desc"), "Helps.", "the plugin agent's description");
      await mcpServer.locator('.mcp-source[data-source="plugin"]').waitFor();
      assert.deepEqual((await get(page, server, "/api/plugins")).data.map((x) => [x.name, x.enabled]), [["greeter", true]]);
      assert.deepEqual((await get(page, server, "/api/skills")).data.map((s) => [s.name, s.source, s.enabled]), [["hello", "plugin", true]]);
      const withHelper = await get(page, server, "/api/agents");
      assert.deepEqual(withHelper.data.map((a) => [a.name, a.source]), [["build", "builtin"], ["plan", "builtin"], ["helper", "plugin"]]);
      await axe(page, "Settings → Plugins, on");
      await shot(page, "plugins-desktop");
      await page.setViewportSize(PHONE);
      await axe(page, "Settings → Plugins, on, phone width");
      await row.scrollIntoViewIfNeeded();
      await shot(page, "plugins-phone");
      await page.setViewportSize(DESKTOP);

      // Still on after a reload.
      await page.reload();
      await panel.locator('li[data-plugin="greeter"][data-enabled="true"]').waitFor();
      assert.equal(await toggle.isChecked(), true, "on after a reload");
      await hello.waitFor();
      await helper.waitFor();

      // The New session form offers its agent.
      await page.getByRole("button", { name: "+ New" }).click();
      const pick = 'form.new-session select[name="agent"]';
      await offers(page, pick, "helper");
      assert.deepEqual(await offered(page, pick), ["build", "plan", "helper"]);
      await page.getByRole("button", { name: "Close", exact: true }).click();
      await page.locator("form.new-session").waitFor({ state: "detached" });

      // /plugins in a session's composer: the picker offers it, Enter opens the panel.
      const created = await apiCall(page, server, "POST", "/api/sessions", { title: "Plugins" });
      assert.equal(created.status, 201, JSON.stringify(created.json));
      await page.goto(`${server.base}/s/${created.json.id}`);
      const box = page.locator(".composer textarea");
      await box.fill("/plug");
      const option = page.getByRole("listbox", { name: "Commands" }).locator('[data-command="plugins"]');
      await shows(option, "Open Settings → Plugins", "the command's description");
      await box.press("Enter");
      await page.waitForURL(`${server.base}/settings`);
      await focused(page, "plugins-h", "after /plugins");
      await row.waitFor();
      const sent = await get(page, server, `/api/sessions/${created.json.id}/events?after=0`);
      assert.deepEqual(sent.data.filter((e) => e.type === "user_message"), [], "/plugins is never sent as a prompt");

      // Off again from the keyboard: the focus stays on the switch; its skill, agent and server go.
      await panel.locator('li[data-plugin="greeter"][data-enabled="true"]').waitFor();
      await hello.waitFor();
      await helper.waitFor();
      await toggle.focus();
      await page.keyboard.press("Space");
      await panel.locator('li[data-plugin="greeter"][data-enabled="false"]').waitFor();
      assert.equal(await toggle.isChecked(), false);
      assert.equal(await toggle.evaluate((el) => el === document.activeElement), true, "the focus stays on the switch");
      await shows(panel.getByRole("status"), "greeter is off", "the switched-off note");
      await hello.waitFor({ state: "detached" });
      await helper.waitFor({ state: "detached" });
      await mcpServer.waitFor({ state: "detached" });
      assert.deepEqual((await get(page, server, "/api/plugins")).data.map((x) => [x.name, x.enabled]), [["greeter", false]]);
      assert.deepEqual((await get(page, server, "/api/skills")).data.map((s) => s.name), []);
      assert.deepEqual((await get(page, server, "/api/agents")).data.map((a) => a.name), ["build", "plan"]);
      await page.getByRole("button", { name: "+ New" }).click();
      await offers(page, pick, "helper", false);
      assert.deepEqual(await offered(page, pick), ["build", "plan"]);
      assertClean(p);
    } finally {
      await p.context.close();
      await server.stop();
    }
  });

  test("none installed: how to install one and what a plugin is", { timeout: 60_000 }, async () => {
    const { server, p } = await boot(browser, PHONE, {});
    try {
      const { page } = p;
      const panel = page.getByRole("region", { name: "Plugins" });
      const empty = panel.locator("[data-plugins-empty]");
      await page.goto(`${server.base}/settings`);
      await shows(empty, "No plugin is installed.", "the empty state");
      const commands = await empty.locator("pre").first().innerText();
      assert.match(commands, /tradewind plugin install npm:<package> --yes/);
      assert.match(commands, /tradewind plugin install file:\.\/my-plugin\.tgz --yes/);
      await shows(empty, "its plugin_install tool asks you every time", "asking the agent");
      await shows(empty, "installed off", "installed off");
      for (const part of ["tradewind-plugin.json", ".claude-plugin/plugin.json", "skills/", "agents/", "commands/", "hooks/hooks.json", "mcpServers"]) {
        assert.ok((await empty.locator("code").allInnerTexts()).includes(part), `the help names ${part}`);
      }
      assert.equal(await panel.locator("li[data-plugin]").count(), 0);
      assert.deepEqual((await get(page, server, "/api/plugins")).data, []);
      const unknown = await apiCall(page, server, "PUT", "/api/plugins/nope", { enabled: true });
      assert.equal(unknown.status, 404, JSON.stringify(unknown.json));
      await axe(page, "Settings → Plugins, none installed, phone width");
      await empty.scrollIntoViewIfNeeded();
      await shot(page, "plugins-empty-phone");
      await page.setViewportSize(DESKTOP);
      await axe(page, "Settings → Plugins, none installed");
      assertClean(p);
    } finally {
      await p.context.close();
      await server.stop();
    }
  });
});
