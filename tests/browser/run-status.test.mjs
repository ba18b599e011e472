// How a run's state reads (issue 47, minor list), the real server and Chromium: a run the user
// stopped reads "Stopped" when it happens and after a reload alike (it read "cancelled" then);
// while the server cannot be reached, a session last seen running says its state is unknown
// instead of "running". Each test starts its own server; the commands wait on files the test
// creates; waits are on DOM states, never on timers.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { assertClean, createSessionViaUi, haveServer, launchBrowser, newPage, sendPrompt, signInWithToken, startServer } from "./harness.mjs";
import { axe, shows } from "./checks.mjs";

const skip = haveServer() ? false : "server binary not built (target/debug/tradewind)";
const GATED = "!echo started; while [ ! -f go ]; do sleep 0.05; done; echo finished";

describe("how a run's state reads", { skip, timeout: 300_000 }, () => {
  let browser;

  before(async () => {
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
  });

  async function boot(viewport) {
    const server = await startServer({ scripts: [{ turns: [{ text: "Hello." }] }] });
    const first = await newPage(browser, server);
    const state = await signInWithToken(first.page, server);
    await first.context.close();
    const p = await newPage(browser, server, { storageState: state, bypassCSP: true, viewport });
    p.page.setDefaultTimeout(10_000);
    await p.page.goto(server.base + "/");
    return { server, p };
  }

  test("a run the user stopped reads Stopped, and still does after a reload", async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      await createSessionViaUi(page, { title: "Stop me", mode: "ask" });
      await sendPrompt(page, GATED);
      await shows(page.locator(".transcript .tool-card .live-output"), "started", "the command running", 20_000);
      await page.getByRole("button", { name: "Cancel run" }).click();
      const end = page.locator('.transcript .run-end[data-status="cancelled"]');
      await shows(end, "Stopped — press Resume to continue", "the run's end");
      await page.reload();
      await shows(end, "Stopped — press Resume to continue", "the run's end after a reload");
      assert.equal(await end.getByText("cancelled", { exact: true }).count(), 0, "no bare status word");
      writeFileSync(join(server.workspace, "go"), "");
      assertClean(p);
    } finally {
      await p?.context.close();
      await server.stop();
    }
  });

  test("an open queue edit survives another queued message's removal, and Esc still closes it", async () => {
    const { server, p } = await boot();
    try {
      const { page } = p;
      await createSessionViaUi(page, { title: "Queue edit", mode: "ask" });
      await sendPrompt(page, GATED);
      await shows(page.locator(".transcript .tool-card .live-output"), "started", "the command running", 20_000);
      const composer = page.locator(".composer");
      const box = composer.getByRole("textbox", { name: "Prompt" });
      for (const text of ["first queued", "second queued"]) {
        await box.fill(text);
        await composer.getByRole("button", { name: "Send after" }).click();
        await page.locator(".queue-item .queue-text", { hasText: text }).waitFor();
      }
      const panel = page.getByRole("region", { name: /Queued/ });
      await panel.getByRole("button", { name: "Edit queued message 2" }).click();
      const editor = panel.getByRole("textbox", { name: "Queued message" });
      await editor.fill("second queued, not saved yet");
      // The other message goes: the open edit stays, with what was typed.
      await panel.getByRole("button", { name: "Remove queued message 1" }).click();
      await panel.locator(".queue-item").nth(1).waitFor({ state: "detached" });
      assert.equal(await editor.inputValue(), "second queued, not saved yet");
      // Esc still closes it (nothing saved), and the message is as it was.
      await editor.focus();
      await page.keyboard.press("Escape");
      await editor.waitFor({ state: "detached" });
      await shows(panel.locator(".queue-item .queue-text"), "second queued", "the queued message, unchanged");
      writeFileSync(join(server.workspace, "go"), "");
      assertClean(p);
    } finally {
      await p?.context.close();
      await server.stop();
    }
  });

  test("while the server is down, a session last seen running says its state is unknown", async () => {
    const { server, p } = await boot({ width: 390, height: 844 });
    try {
      const { page } = p;
      await createSessionViaUi(page, { title: "Server goes away", mode: "ask" });
      await sendPrompt(page, GATED);
      const badge = page.locator(".session-name .badge");
      await shows(badge, "running", "the header while the command runs", 20_000);
      server.proc.kill("SIGKILL");
      await shows(page.locator('.session-name .badge[data-status="unknown"]'), "was running · server unreachable", "the header once the server is gone", 20_000);
      assert.equal(await page.locator(".session-name .badge-running").count(), 0, "no running badge while nothing is known");
      await axe(page, "the header while the server is unreachable, at phone width");
      // (The page's own errors while the server is gone are expected: no assertClean here.)
    } finally {
      await p?.context.close();
      await server.stop();
    }
  });
});
