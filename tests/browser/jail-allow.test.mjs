// "Allow for this session" on a command the jail stopped (the jail issue): the command's card
// names the path the sandbox hid, the button lets it in (read-only, for this session), and the
// same command then reads it. Real server (replay provider, real bubblewrap), real Chromium.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createSessionViaUi, haveServer, launchBrowser, newPage, sendPrompt, signInWithToken, startServer } from "./harness.mjs";

const skip = haveServer() ? false : "build the server first (cargo build -p tradewind --bins)";

describe("a path the jail hid", { skip, timeout: 120_000 }, () => {
  // The server's HOME: the jail gives commands an empty one, so a file here is hidden.
  const home = mkdtempSync(join(tmpdir(), "tw-jail-home-"));
  const conf = join(home, ".config", "tool", "settings.toml");
  let server;
  let browser;

  before(async () => {
    mkdirSync(join(home, ".config", "tool"), { recursive: true });
    writeFileSync(conf, "SETTING-41d7\n");
    const turns = [
      { text: "Reading.", tool_calls: [{ name: "shell", arguments: { command: `cat ${conf}` } }] },
      { text: "Done." },
    ];
    server = await startServer({
      scripts: [
        { match: "first read", turns },
        { match: "second read", turns },
      ],
      args: ["--yolo"],
      env: { HOME: home },
    });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  const runEnds = (page, n) =>
    page.waitForFunction((n) => document.querySelectorAll(".transcript .run-end").length >= n, n, { timeout: 30_000 });

  test("the card names it, and Allow for this session lets the next command read it", async () => {
    const p = await newPage(browser, server);
    await signInWithToken(p.page, server);
    await createSessionViaUi(p.page, { title: "Jail", mode: "full" });
    await sendPrompt(p.page, "first read");
    await runEnds(p.page, 1);
    const hidden = p.page.locator(`.terminal-hidden [data-hidden-path="${conf}"]`);
    await hidden.waitFor({ timeout: 10_000 });
    assert.match(await hidden.innerText(), /The sandbox hid/);
    await hidden.getByRole("button", { name: "Allow for this session" }).click();
    await hidden.getByRole("status").waitFor({ timeout: 10_000 });
    assert.match(await hidden.getByRole("status").innerText(), /Allowed for this session/);

    await sendPrompt(p.page, "second read");
    await runEnds(p.page, 2);
    const read = p.page.locator(".terminal .stdout", { hasText: "SETTING-41d7" });
    await read.waitFor({ timeout: 10_000 });
    // The command succeeded: its card offers nothing more.
    assert.equal(await p.page.locator(".terminal-hidden").count(), 1);
    await p.context.close();
  });
});
