// Display parts of MCP tool results in the tool cards, end to end: the real server with the replay
// provider calls real MCP servers (server-everything, and tests/mcp/shapes.mjs for the shapes it
// has no tool for); each call is approved in the UI. The image decodes (through the CSP), the
// key–value pairs are a <dl>, the table has column headers and scrolls sideways inside the card at
// phone width (with "more rows not shown" past 500 rows), the tree's labels and notes show, and the
// text the model saw stays behind the card's head. The same parts come back from the stored
// transcript after a reload, and axe finds nothing on the transcript in either theme.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  apiCall,
  assertClean,
  createSessionViaUi,
  haveServer,
  launchBrowser,
  newPage,
  repoRoot,
  sendPrompt,
  shot,
  signInWithToken,
  startServer,
} from "./harness.mjs";

const mcpDir = join(repoRoot, "tests", "mcp");
const everything = join(mcpDir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js");
const shapes = join(mcpDir, "shapes.mjs");
const axePath = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"];

const CONFIG = {
  mcpServers: {
    everything: { command: "node", args: [everything, "stdio"] },
    shapes: { command: "node", args: [shapes] },
  },
};

const IMAGE = "mcp_everything_get-tiny-image";
const WEATHER = "mcp_everything_get-structured-content";
const TABLE = "mcp_shapes_table";
const TREE = "mcp_shapes_tree";
const WIDE = "mcp_shapes_wide";

const call = (name, args = {}) => ({ tool_calls: [{ name, arguments: args }] });
const scripts = [
  {
    match: "show the shapes",
    turns: [call(IMAGE), call(WEATHER, { location: "New York" }), call(TABLE), call(TREE), { text: "All four shown." }],
  },
  { match: "a wide table", turns: [call(WIDE), { text: "Wide table shown." }] },
  { turns: [{ text: "hi" }] },
];

const skip = !haveServer() ? "server binary not built (target/debug/tradewind)" : false;
if (!skip && !existsSync(everything)) {
  throw new Error(`${everything} is missing: run npm ci in tests/mcp (scripts/test does)`);
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

/** The tool card of `tool` in the transcript. */
const card = (page, tool) => page.locator(`.transcript .tool-card[data-tool="${tool}"]`);

/** Approve each call of `tools`, in order, with the approval card's "Allow once". */
async function allowEach(page, tools) {
  for (const tool of tools) {
    const ask = page.locator(".transcript").getByRole("group", { name: `Approval needed: ${tool}`, exact: true });
    await ask.getByRole("button", { name: "Allow once" }).click();
    await ask.waitFor({ state: "detached" });
  }
}

/** The image in `tool`'s card has loaded and decoded to real pixels. */
async function imageDecoded(page, tool) {
  const img = card(page, tool).locator(".part-image img");
  await img.waitFor({ state: "visible" });
  await img.evaluate((el) => (el.complete ? undefined : new Promise((r) => el.addEventListener("load", r, { once: true }))));
  await img.evaluate((el) => el.decode());
  return img;
}

/** The four parts of the "show the shapes" run, as the page shows them. */
async function assertShapes(page) {
  // Image: a data: URL the CSP lets through, really decoded, with an alt text.
  const img = await imageDecoded(page, IMAGE);
  const natural = await img.evaluate((el) => ({ w: el.naturalWidth, h: el.naturalHeight }));
  assert.ok(natural.w > 0 && natural.h > 0, `the image decoded: ${JSON.stringify(natural)}`);
  assert.equal(await img.getAttribute("alt"), "Image from the tool (image/png)");
  assert.match(await img.getAttribute("src"), /^data:image\/png;base64,iVBOR/);

  // Key–value pairs: a definition list with the weather's keys and values.
  const dl = card(page, WEATHER).locator("dl.part-kv");
  await dl.waitFor();
  const pairs = await dl.evaluate((el) =>
    Object.fromEntries([...el.querySelectorAll("dt")].map((dt) => [dt.textContent, dt.nextElementSibling?.textContent])),
  );
  assert.deepEqual(pairs, { conditions: "Cloudy", humidity: "82", temperature: "33" });

  // Table: column headers and the cells, row by row; nothing was cut.
  const table = card(page, TABLE).locator("table.part-table");
  await table.waitFor();
  assert.deepEqual(await table.locator('thead th[scope="col"]').allInnerTexts(), ["name", "size"]);
  const rows = await table.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
  assert.deepEqual(rows, [["a.txt", "3"], ["b.txt", "5"]]);
  assert.equal(await card(page, TABLE).getByText("more rows not shown").count(), 0);

  // Tree: the branch is open (first levels), the leaf shows its note beside the label.
  const tree = card(page, TREE).locator(".part-tree");
  await tree.waitFor();
  const branch = tree.locator("details").first();
  assert.equal(await branch.evaluate((d) => d.open), true, "the first levels are open");
  assert.equal(await branch.locator("summary .tree-label").innerText(), "src");
  const leaf = branch.locator(".tree-leaf");
  await leaf.locator(".tree-label").getByText("main.rs", { exact: true }).waitFor({ state: "visible" });
  assert.equal(await leaf.locator(".tree-meta").innerText(), "2 KB");
}

describe("tool result parts from MCP servers", { skip, timeout: 240_000 }, () => {
  let server;
  let browser;
  let state;
  let shapesSession;

  before(async () => {
    server = await startServer({ scripts, config: CONFIG });
    browser = await launchBrowser();
    const p = await newPage(browser, server);
    p.page.setDefaultTimeout(40_000);
    state = await signInWithToken(p.page, server);
    for (const name of ["everything", "shapes"]) {
      const r = await apiCall(p.page, server, "POST", `/api/mcp/servers/${name}/connect`, {});
      assert.equal(r.status, 200, `connect ${name}: ${JSON.stringify(r.json)}`);
      assert.equal(r.json.state, "connected");
    }
    await p.context.close();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  test("an image, key–value pairs, a table and a tree, approved in the UI; again after a reload", async () => {
    const p = await newPage(browser, server, { storageState: state });
    p.page.setDefaultTimeout(40_000);
    const { page } = p;
    await page.goto(server.base + "/");
    shapesSession = await createSessionViaUi(page, { title: "Shapes", mode: "ask" });
    await sendPrompt(page, "show the shapes");
    await allowEach(page, [IMAGE, WEATHER, TABLE, TREE]);
    await page.locator('.transcript .run-end[data-status="completed"]').waitFor();
    await page.locator(".msg-assistant").getByText("All four shown.").waitFor();
    await assertShapes(page);
    await shot(page, "parts-shapes");

    // The text the model saw stays behind the head: folded, under its own name.
    const imageCard = card(page, IMAGE);
    await imageCard.locator(".tool-head").click();
    const raw = imageCard.locator(".tool-body details.tool-output");
    assert.equal(await raw.evaluate((d) => d.open), false, "the text is folded when parts show");
    await raw.locator("summary").getByText("Text the model saw", { exact: true }).click();
    const said = await raw.locator("pre").innerText();
    assert.match(said, /Here's the image you requested:\n\[image image\/png, \d+ bytes\]\nThe image above is the MCP logo\./);
    const tableCard = card(page, TABLE);
    await tableCard.locator(".tool-head").click();
    await tableCard.locator(".tool-body details.tool-output summary").click();
    assert.equal(await tableCard.locator(".tool-body details.tool-output pre").innerText(), "name | size\na.txt | 3\nb.txt | 5");

    // From the stored transcript: the same parts.
    await page.reload();
    await page.locator(".msg-assistant").getByText("All four shown.").waitFor();
    await assertShapes(page);
    assert.deepEqual(await page.evaluate(() => window.__cspViolations), [], "CSP violations");
    assertClean(p);
    await p.context.close();
  });

  test("a table wider than a phone scrolls inside its card; past 500 rows it says more are not shown", async () => {
    const p = await newPage(browser, server, { storageState: state, viewport: { width: 390, height: 844 } });
    p.page.setDefaultTimeout(40_000);
    const { page } = p;
    await page.goto(server.base + "/");
    await createSessionViaUi(page, { title: "Wide", mode: "ask" });
    await sendPrompt(page, "a wide table");
    await allowEach(page, [WIDE]);
    await page.locator(".msg-assistant").getByText("Wide table shown.").waitFor();
    const wide = card(page, WIDE);
    const region = wide.getByRole("region", { name: /^Table from the tool/ });
    await region.waitFor();
    assert.equal(await region.locator("thead th").count(), 8);
    assert.equal(await region.locator("tbody tr").count(), 500, "the server keeps 500 rows");
    await wide.getByText("more rows not shown", { exact: true }).waitFor({ state: "visible" });
    // The table scrolls, not the card or the page; the region takes the focus to scroll by keys.
    const sizes = await region.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
    assert.ok(sizes.scroll > sizes.client, `the table is wider than the card: ${JSON.stringify(sizes)}`);
    const cardSizes = await wide.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
    assert.ok(cardSizes.scroll <= cardSizes.client, `the card overflows: ${JSON.stringify(cardSizes)}`);
    const doc = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }));
    assert.ok(doc.scroll <= doc.client, `the page overflows: ${JSON.stringify(doc)}`);
    await region.focus();
    await page.keyboard.press("ArrowRight");
    await page.waitForFunction((el) => el.scrollLeft > 0, await region.elementHandle());
    await shot(page, "parts-wide-phone");
    assertClean(p);
    await p.context.close();
  });

  for (const scheme of ["light", "dark"]) {
    test(`axe on the transcript with every part shown, at phone width (${scheme})`, async () => {
      assert.ok(shapesSession, "the first test made the session");
      const p = await newPage(browser, server, {
        storageState: state,
        viewport: { width: 390, height: 844 },
        colorScheme: scheme,
        bypassCSP: true,
      });
      p.page.setDefaultTimeout(40_000);
      const { page } = p;
      await page.goto(`${server.base}/s/${encodeURIComponent(shapesSession)}`);
      await page.locator(".msg-assistant").getByText("All four shown.").waitFor();
      await assertShapes(page);
      // With a card's body and its raw text open too.
      await card(page, TREE).locator(".tool-head").click();
      await card(page, TREE).locator(".tool-body details.tool-output summary").click();
      await axe(page, `the transcript with parts (${scheme})`);
      await card(page, IMAGE).scrollIntoViewIfNeeded();
      await shot(page, `parts-phone-${scheme}`);
      await p.context.close();
    });
  }
});
