// Settings → Memory, end to end: the real server with the replay provider, whose turn calls the
// agent's `memory_write` tool twice with scope `workspace` (no approval asked). Before the run the
// panel shows its empty state; after it, both notes are listed with their scope, key and text; the
// search field narrows the list to the one that has the words; Edit opens the text inline, a blank
// text is refused in the server's words, a new text is saved (the PATCH seen through a GET after);
// Delete asks, then the note is gone, and with the last one the empty state comes back. The focus
// lands where the action left it. axe finds nothing at phone width, light and dark. Each test
// starts its own server; waits are on DOM states and API answers, never on timers.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { apiCall, assertClean, haveServer, launchBrowser, newPage, shot, signInWithToken, startServer } from "./harness.mjs";
import { axe, get, shows } from "./checks.mjs";

const skip = haveServer() ? false : "server binary not built (target/debug/tradewind)";

const PHONE = { width: 390, height: 844 };
const EMPTY = "Nothing kept yet: the agent keeps notes with memory_write.";

const scripts = [
  {
    match: "remember this",
    turns: [
      {
        text: "Noting it.",
        tool_calls: [
          { name: "memory_write", arguments: { key: "build", text: "Build the teapot with make teapot.", scope: "workspace" } },
          { name: "memory_write", arguments: { key: "style", text: "Prefer tabs over spaces in the kettle module.", scope: "workspace" } },
        ],
      },
      { text: "Noted both." },
    ],
  },
];

describe("Settings → Memory", { skip, timeout: 300_000 }, () => {
  let browser;

  before(async () => {
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
  });

  test("lists the agent's notes, searches, edits and deletes them", { timeout: 120_000 }, async () => {
    const server = await startServer({ scripts });
    let p;
    try {
      const first = await newPage(browser, server);
      const state = await signInWithToken(first.page, server);
      await first.context.close();
      // bypassCSP only to inject axe.
      p = await newPage(browser, server, { storageState: state, viewport: PHONE, bypassCSP: true });
      const { page } = p;
      page.setDefaultTimeout(8000);

      const panel = page.locator("section.memories");
      const rows = panel.locator("li[data-memory]");
      const row = (key) => rows.filter({ has: page.locator("h3", { hasText: key }) });

      // Nothing kept yet.
      await page.goto(`${server.base}/settings`);
      await shows(panel.locator("[data-memories-empty]"), EMPTY, "the empty state");
      await axe(page, "Settings → Memory, empty");

      // A run whose turn calls memory_write (workspace scope: no approval).
      const created = await apiCall(page, server, "POST", "/api/sessions", { title: "Memory" });
      assert.equal(created.status, 201, JSON.stringify(created.json));
      const id = created.json.id;
      await page.goto(`${server.base}/s/${id}`);
      await page.locator(".session-view").waitFor();
      const sent = await apiCall(page, server, "POST", `/api/sessions/${id}/messages`, { text: "remember this, please" });
      assert.equal(sent.status, 202, JSON.stringify(sent.json));
      await page.locator('.transcript .run-end[data-status="completed"]').waitFor({ timeout: 20_000 });
      const stored = (await get(page, server, "/api/memories")).data;
      assert.deepEqual(stored.map((m) => [m.key, m.scope]).sort(), [["build", "workspace"], ["style", "workspace"]]);
      const build = stored.find((m) => m.key === "build");

      // Both listed, with their scope, key, text and when they changed.
      await page.goto(`${server.base}/settings`);
      await row("build").waitFor();
      await row("style").waitFor();
      assert.equal(await rows.count(), 2);
      await shows(row("build").locator(".memory-text"), "Build the teapot with make teapot.", "the first note's text");
      await shows(row("build").locator(".memory-scope"), "workspace", "the note's scope");
      await shows(row("build").locator("time"), "updated just now", "when the note changed");
      assert.equal(await panel.locator("[data-memories-empty]").count(), 0);
      await axe(page, "Settings → Memory with two notes");

      // The search keeps the note that has the word and hides the other.
      const search = panel.getByLabel("Search memories");
      await search.fill("teapot");
      await row("style").waitFor({ state: "detached" });
      await row("build").waitFor();
      assert.equal(await rows.count(), 1);
      await search.fill("zebra");
      await shows(panel.locator("[data-memories-empty]"), "No memory matches “zebra”.", "a search that finds nothing");
      await search.fill("teapot");
      await row("build").waitFor();

      // Edit: a blank text is refused in the server's words, then a new text is saved.
      await row("build").getByRole("button", { name: "Edit memory build" }).click();
      const box = row("build").getByLabel("Text of the memory");
      await box.waitFor();
      assert.equal(await box.evaluate((el) => el === document.activeElement), true, "the editor's text has the focus");
      assert.equal(await box.inputValue(), "Build the teapot with make teapot.");
      await box.fill("   ");
      await row("build").getByRole("button", { name: "Save" }).click();
      const refusal = row("build").getByRole("alert");
      await shows(refusal, /^Not saved: ./, "the refusal of a blank text");
      assert.equal(await box.getAttribute("aria-invalid"), "true");
      await axe(page, "Settings → Memory, editor with an error");
      // Escape cancels: the old text is back, the focus on Edit.
      await box.press("Escape");
      await shows(row("build").locator(".memory-text"), "Build the teapot with make teapot.", "the text after Cancel");
      const edit = row("build").getByRole("button", { name: "Edit memory build" });
      assert.equal(await edit.evaluate((el) => el === document.activeElement), true, "Edit has the focus after Cancel");

      await edit.click();
      await box.fill("Build the teapot with just teapot.");
      await row("build").getByRole("button", { name: "Save" }).click();
      await shows(row("build").locator(".memory-text"), "Build the teapot with just teapot.", "the saved text");
      await shows(panel.getByRole("status"), "Saved.", "the saved note");
      assert.equal(await edit.evaluate((el) => el === document.activeElement), true, "Edit has the focus after Save");
      const afterEdit = (await get(page, server, "/api/memories")).data.find((m) => m.id === build.id);
      assert.equal(afterEdit.text, "Build the teapot with just teapot.");
      assert.ok(afterEdit.updated_at >= build.updated_at);
      await shot(page, "memory-edited-phone");

      // Delete asks first, in the app's dialog: cancelled, nothing happens; confirmed, the note is gone.
      const ask = (key) => page.getByRole("alertdialog", { name: `Delete the memory “${key}”?` });
      await row("build").getByRole("button", { name: "Delete memory build" }).click();
      await ask("build").getByRole("button", { name: "Cancel" }).click();
      await ask("build").waitFor({ state: "detached" });
      assert.equal((await get(page, server, "/api/memories")).data.length, 2);
      await row("build").getByRole("button", { name: "Delete memory build" }).click();
      await ask("build").getByRole("button", { name: "Delete", exact: true }).click();
      await row("build").waitFor({ state: "detached" });
      await shows(panel.getByRole("status"), "Deleted.", "the deleted note");
      assert.equal(await panel.locator("h2").evaluate((el) => el === document.activeElement), true, "the title has the focus after Delete");
      assert.deepEqual((await get(page, server, "/api/memories")).data.map((m) => m.key), ["style"]);

      // The other one, then the empty state.
      await search.fill("");
      await row("style").waitFor();
      await row("style").getByRole("button", { name: "Delete memory style" }).click();
      await ask("style").getByRole("button", { name: "Delete", exact: true }).click();
      await shows(panel.locator("[data-memories-empty]"), EMPTY, "the empty state after the last delete");
      assert.equal(await rows.count(), 0);
      assert.deepEqual((await get(page, server, "/api/memories")).data, []);
      await axe(page, "Settings → Memory, emptied");
      assertClean(p);
    } finally {
      await p?.context.close();
      await server.stop();
    }
  });
});
