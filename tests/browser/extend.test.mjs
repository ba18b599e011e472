// Settings → Skills and Settings → Hooks against the real server, with skill folders and hooks
// files written on disk before it starts. Skills: the workspace's `review` is held back behind a
// banner while the user's `notes` is listed (a folder without a description is left out, with
// why); Trust with the skills changed since they were shown is refused in plain words and shows
// them again, a second Trust lists `review` (its tools "listed, never a grant", its instructions
// unfolded from the keyboard) before `notes`, in the server's lookup order (the workspace's, the
// user's, the plugins', then those turned off) which the panel keeps; `notes` turned off stays
// off after a reload and in GET /api/skills, and comes back on from the keyboard; `/skills` in
// the composer opens the panel with the focus on its title. Hooks: the user's PostToolUse hook is listed with its matcher,
// command and time limit, the workspace's file is listed as held back with what it leaves out;
// Trust lists its hooks under their events. axe finds nothing on either panel, at desktop and
// phone width, light and dark. Each test starts its own server; waits are on DOM states and API
// answers, never on timers.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { apiCall, assertClean, haveServer, launchBrowser, newPage, shot, signInWithToken, startServer } from "./harness.mjs";
import { axe, get, shows } from "./checks.mjs";

const skip = haveServer() ? false : "server binary not built (target/debug/tradewind)";

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 860 };
const REVIEW_FILE = ".tradewind/skills/review/SKILL.md";

const REVIEW = `---
name: review
description: Review the staged changes for bugs before a commit.
allowed-tools: read_file, search_text
---
# Review

Read every changed file and list the problems, most serious first.
`;

const NOTES = `---
name: notes
description: Keep running notes of the session in NOTES.md.
---
Append a line to NOTES.md after each step.
`;

const BROKEN = `---
name: broken
---
No description above.
`;

const USER_HOOKS = { hooks: { PostToolUse: [{ matcher: "edit_file", hooks: [{ type: "command", command: "true", timeout: 5 }] }] } };

const WORKSPACE_HOOKS = {
  hooks: {
    PreToolUse: [{ matcher: "shell", hooks: [{ type: "command", command: "./scripts/check-command.sh", timeout: 7 }] }],
    Stop: [{ hooks: [{ type: "command", command: "echo done" }] }],
    Notification: [{ hooks: [{ type: "command", command: "notify-send hi" }] }],
  },
};

/** A server with these files, a signed-in page at `viewport` (bypassCSP only to inject axe). */
async function boot(browser, { files = {}, homeFiles = {}, viewport }) {
  const server = await startServer({ scripts: [{ turns: [{ text: "hi" }] }], files, homeFiles });
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

describe("Settings → Skills and Hooks", { skip, timeout: 300_000 }, () => {
  let browser;

  before(async () => {
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
  });

  test("skills: the workspace's held back until trusted, one turned off stays off, /skills opens the panel", { timeout: 120_000 }, async () => {
    const { server, p } = await boot(browser, {
      files: { [REVIEW_FILE]: REVIEW },
      homeFiles: { "skills/notes/SKILL.md": NOTES, "skills/broken/SKILL.md": BROKEN },
      viewport: DESKTOP,
    });
    try {
      const { page } = p;
      const panel = page.getByRole("region", { name: "Skills" });
      const row = (name) => panel.locator(`li[data-skill="${name}"]`);
      const banner = panel.locator('[data-untrusted="skills"]');
      const trust = banner.getByRole("button", { name: "Trust this workspace's skills" });

      // Held back: the banner, the user's skill listed, the workspace's not.
      await page.goto(`${server.base}/settings`);
      await shows(banner, "This workspace has skills that are held back until you trust them", "the untrusted banner");
      await row("notes").waitFor();
      await shows(row("notes").locator(".extension-source"), "user", "the user skill's source");
      await shows(row("notes").locator(".extension-desc"), "Keep running notes of the session in NOTES.md.", "the description");
      assert.equal(await row("review").count(), 0, "the workspace's skill is held back");
      const held = await get(page, server, "/api/skills");
      assert.equal(held.untrusted, true);
      assert.ok(held.workspace_hash, "the workspace's skills have a hash to trust");
      assert.deepEqual(held.data.map((s) => s.name), ["notes"]);

      // The folder left out, with why.
      const skipped = panel.locator("[data-skills-skipped] li");
      await shows(skipped, "the front matter has no description", "the left-out folder's reason");
      assert.match(await skipped.locator("code").innerText(), /\/skills\/broken$/);
      await axe(page, "Settings → Skills, held back");

      // Changed since shown: refused in plain words, shown again (a new hash), still held back.
      writeFileSync(join(server.workspace, REVIEW_FILE), REVIEW.replace("most serious first", "worst first"));
      await trust.click();
      await shows(panel.locator("[data-trust-error]"), "changed since they were shown", "the refusal of a changed skill");
      const again = await get(page, server, "/api/skills");
      assert.notEqual(again.workspace_hash, held.workspace_hash);
      assert.equal(again.untrusted, true);
      assert.equal(await row("review").count(), 0);

      // Trusted as now shown: listed, the banner gone, the focus on the panel's title.
      await trust.click();
      await row("review").waitFor();
      await banner.waitFor({ state: "detached" });
      await focused(page, "skills-h", "after Trust");
      await shows(panel.getByRole("status"), "Trusted: the workspace's skills are listed below.", "the trusted note");
      await panel.locator("[data-skills-trusted]").waitFor();
      assert.equal(await panel.locator("[data-trust-error]").count(), 0, "the refusal is gone");
      const review = row("review");
      await shows(review.locator(".extension-source"), "workspace", "the workspace skill's source");
      await shows(review.locator(".skill-tools"), "listed, never a grant", "the allowed tools' note");
      assert.deepEqual(await review.locator(".skill-tools code").allInnerTexts(), ["read_file", "search_text"]);
      assert.match(await review.locator(".extension-where code").innerText(), /\.tradewind\/skills\/review$/);
      const trusted = await get(page, server, "/api/skills");
      assert.equal(trusted.untrusted, false);
      // The server's lookup order, which the panel keeps: the workspace's first (a same-named one
      // of the user's is left out), then the user's, then the plugins', then those turned off.
      assert.deepEqual(trusted.data.map((s) => [s.name, s.source, s.enabled]), [["review", "workspace", true], ["notes", "user", true]]);
      assert.deepEqual(await panel.locator("li[data-skill]").evaluateAll((els) => els.map((e) => e.dataset.skill)), ["review", "notes"]);

      // The instructions, folded: opened from the keyboard.
      const preview = review.locator(".skill-preview");
      await preview.locator("summary").focus();
      await page.keyboard.press("Enter");
      await shows(preview.locator("pre"), "list the problems, worst first", "the instructions");

      // notes off: the switch says so, and so do a reload and the server.
      const notesSwitch = panel.getByRole("switch", { name: "Enabled: skill notes" });
      assert.equal(await notesSwitch.isChecked(), true);
      await notesSwitch.click();
      await page.locator('li[data-skill="notes"][data-enabled="false"]').waitFor();
      await row("notes").locator("[data-skill-off]").waitFor();
      assert.equal(await notesSwitch.isChecked(), false);
      await axe(page, "Settings → Skills, trusted, one off");
      await shot(page, "skills-desktop");
      await page.reload();
      await page.locator('li[data-skill="notes"][data-enabled="false"]').waitFor();
      assert.equal(await notesSwitch.isChecked(), false, "off after a reload");
      assert.equal(await panel.getByRole("switch", { name: "Enabled: skill review" }).isChecked(), true);
      const off = await get(page, server, "/api/skills");
      assert.deepEqual(off.data.map((s) => [s.name, s.enabled]), [["review", true], ["notes", false]]);
      assert.deepEqual(await panel.locator("li[data-skill]").evaluateAll((els) => els.map((e) => e.dataset.skill)), ["review", "notes"]);

      // On again from the keyboard.
      await notesSwitch.focus();
      await page.keyboard.press("Space");
      await page.locator('li[data-skill="notes"][data-enabled="true"]').waitFor();
      assert.equal((await get(page, server, "/api/skills")).data.find((s) => s.name === "notes").enabled, true);

      // Phone width, both themes.
      await page.setViewportSize(PHONE);
      await axe(page, "Settings → Skills at phone width");
      await shot(page, "skills-phone");

      // /skills in a session's composer: the picker offers it, Enter opens the panel.
      const created = await apiCall(page, server, "POST", "/api/sessions", { title: "Skills" });
      assert.equal(created.status, 201, JSON.stringify(created.json));
      await page.setViewportSize(DESKTOP);
      await page.goto(`${server.base}/s/${created.json.id}`);
      const box = page.locator(".composer textarea");
      await box.fill("/skil");
      const option = page.getByRole("listbox", { name: "Commands" }).locator('[data-command="skills"]');
      await shows(option, "Open Settings → Skills", "the command's description");
      await box.press("Enter");
      await page.waitForURL(`${server.base}/settings`);
      await focused(page, "skills-h", "after /skills");
      await row("review").waitFor();
      const sent = await get(page, server, `/api/sessions/${created.json.id}/events?after=0`);
      assert.deepEqual(sent.data.filter((e) => e.type === "user_message"), [], "/skills is never sent as a prompt");
      assertClean(p);
    } finally {
      await p.context.close();
      await server.stop();
    }
  });

  test("hooks: listed by event; the workspace's held back until trusted", { timeout: 120_000 }, async () => {
    const { server, p } = await boot(browser, {
      files: { ".tradewind/hooks.json": JSON.stringify(WORKSPACE_HOOKS, null, 2) },
      homeFiles: { "hooks.json": JSON.stringify(USER_HOOKS, null, 2) },
      viewport: PHONE,
    });
    try {
      const { page } = p;
      const panel = page.getByRole("region", { name: "Hooks" });
      const group = (event) => panel.locator(`[data-hook-group="${event}"]`);
      const file = (source) => panel.locator(`li.hook-file[data-source="${source}"]`);
      const banner = panel.locator('[data-untrusted="hooks"]');

      // The user's hook, by its event; the workspace's file held back, what it leaves out said.
      await page.goto(`${server.base}/settings`);
      await shows(banner, "This workspace has hooks that are held back until you trust them", "the untrusted banner");
      const post = group("PostToolUse");
      await shows(post.locator("h3"), "PostToolUse", "the event");
      await shows(post.locator(".hook-matcher"), "For tools matching edit_file", "the matcher");
      assert.equal(await post.locator(".hook-command").innerText(), "true");
      await shows(post.locator(".hook-timeout"), "timeout 5 s", "the time limit");
      await shows(post.locator(".extension-source"), "user", "the hook's source");
      assert.equal(await group("PreToolUse").count(), 0, "the workspace's hooks are held back");
      await file("user").waitFor();
      await shows(file("workspace").locator("[data-held-back]"), "held back", "the held-back file");
      assert.match(await file("workspace").locator(".extension-path").innerText(), /\.tradewind\/hooks\.json$/);
      await shows(file("workspace").locator(".hook-file-skipped"), "Notification: not an event this server runs hooks at", "what the file leaves out");
      const held = await get(page, server, "/api/hooks");
      assert.equal(held.untrusted, true);
      assert.deepEqual(held.data.map((h) => h.command), ["true"]);
      await axe(page, "Settings → Hooks, held back, phone width");

      // Trusted: its hooks listed under their events, in the order a run meets them.
      await banner.getByRole("button", { name: "Trust this workspace's hooks" }).click();
      await banner.waitFor({ state: "detached" });
      await focused(page, "hooks-h", "after Trust");
      await shows(panel.getByRole("status"), "Trusted: the workspace's hooks are listed below.", "the trusted note");
      const pre = group("PreToolUse");
      await shows(pre.locator(".hook-matcher"), "For tools matching shell", "the workspace hook's matcher");
      assert.equal(await pre.locator(".hook-command").innerText(), "./scripts/check-command.sh");
      await shows(pre.locator(".hook-timeout"), "timeout 7 s", "its time limit");
      await shows(pre.locator(".extension-source"), "workspace", "its source");
      const stop = group("Stop");
      assert.equal(await stop.locator(".hook-command").innerText(), "echo done");
      await shows(stop.locator(".hook-timeout"), "timeout 10 s", "the default time limit");
      assert.equal(await stop.locator(".hook-matcher").count(), 0, "Stop runs for no tool");
      assert.deepEqual(await panel.locator("[data-hook-group] > h3").allInnerTexts(), ["PreToolUse", "PostToolUse", "Stop"]);
      assert.equal(await file("workspace").locator("[data-held-back]").count(), 0);
      await panel.locator("[data-hooks-trusted]").waitFor();
      const trusted = await get(page, server, "/api/hooks");
      assert.equal(trusted.untrusted, false);
      assert.deepEqual(trusted.data.map((h) => h.command).sort(), ["./scripts/check-command.sh", "echo done", "true"]);
      await axe(page, "Settings → Hooks, trusted, phone width");
      await shot(page, "hooks-phone");

      await page.setViewportSize(DESKTOP);
      await axe(page, "Settings → Hooks, trusted, desktop");
      await shot(page, "hooks-desktop");
      assertClean(p);
    } finally {
      await p.context.close();
      await server.stop();
    }
  });
});
