// Signing in again with the app's service worker installed. The worker turns navigation preload
// on, so the browser sends a second request for every page it opens (the preload) beside the
// real navigation: a one-time sign-in link must never be spent by that request, or every new
// link reads "already used" and nobody gets back in after Sign out.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { PAGE_KEY, haveServer, launchBrowser, newPage, pageHeaders, serverBin, startServer } from "./harness.mjs";
import { axe } from "./checks.mjs";

const skip = haveServer() ? false : "server binary not built (target/debug/tradewind)";

function newLink(server) {
  const out = execFileSync(serverBin, ["link", "--state-dir", join(server.dir, "home")], { encoding: "utf8" });
  const link = /https?:\/\/\S+/.exec(out)?.[0];
  if (!link) throw new Error(`tradewind link printed no link:\n${out}`);
  return link;
}

describe("sign-in links with the service worker installed", { skip, timeout: 300_000 }, () => {
  let server;
  let browser;

  before(async () => {
    server = await startServer({ scripts: [{ turns: [{ text: "hello" }] }] });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  test("sign in, sign out, a new link signs in again", async () => {
    const { context, page, log } = await newPage(browser, server, { serviceWorkers: "allow" });
    const linkRequests = [];
    page.on("request", (r) => {
      if (new URL(r.url()).searchParams.has("token")) linkRequests.push(r.url());
    });
    await page.goto(server.url);
    await page.locator(".topbar").waitFor({ timeout: 15_000 });
    assert.equal(new URL(page.url()).search, "", "the code is gone from the address bar");
    assert.equal(new URL(page.url()).hash, "", "so is the page token");

    // The worker controls the page, with navigation preload on: the case that locked users out.
    const preload = await page.evaluate(async () => {
      const reg = await navigator.serviceWorker.ready;
      if (!navigator.serviceWorker.controller) {
        await new Promise((r) => navigator.serviceWorker.addEventListener("controllerchange", r, { once: true }));
      }
      const state = await reg.navigationPreload?.getState();
      return { controlled: !!navigator.serviceWorker.controller, enabled: state?.enabled ?? null };
    });
    assert.deepEqual(preload, { controlled: true, enabled: true });

    const signedIn = await pageHeaders(page);
    assert.ok(Object.keys(signedIn).length === 1, "the link's redirect gave the page its token");
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByTestId("link-help").waitFor({ timeout: 10_000 });
    assert.equal(await page.evaluate((key) => localStorage.getItem(key), PAGE_KEY), null, "the page token is forgotten");
    const whoami = await page.evaluate(async (headers) => (await fetch("/api/whoami", { headers })).status, signedIn);
    assert.equal(whoami, 401, "signed out on the server too");

    // A fresh link, opened in the same tab (the worker is in charge of this navigation).
    const link = newLink(server);
    const sent = linkRequests.length;
    const answers = [];
    const onResponse = (r) => {
      if (r.url() === link) answers.push(r.status());
    };
    page.on("response", onResponse);
    await page.goto(link);
    await page.locator(".topbar").waitFor({ timeout: 15_000 });
    page.off("response", onResponse);
    assert.equal(await page.locator("h1", { hasText: "Sign-in link not valid" }).count(), 0);
    assert.equal(new URL(page.url()).pathname, "/");
    assert.equal(new URL(page.url()).search, "");
    assert.equal(new URL(page.url()).hash, "");
    assert.ok(linkRequests.length > sent, "the link was requested");
    assert.ok(answers.includes(303), `the link's answers: ${answers.join(", ")}`);
    const headers = await pageHeaders(page);
    assert.equal(await page.evaluate(async (headers) => (await fetch("/api/whoami", { headers })).status, headers), 200, "signed in");

    // The same link again, in this signed-in browser: straight to the app, no error page.
    await page.goto(link);
    await page.locator(".topbar").waitFor({ timeout: 15_000 });
    assert.equal(await page.locator("h1", { hasText: "Sign-in link not valid" }).count(), 0);

    // Reload after signing in sends no code again (the redirect took it out of the address).
    await page.reload();
    await page.locator(".topbar").waitFor({ timeout: 15_000 });

    assert.deepEqual(log.errors, [], "page errors");
    assert.deepEqual(log.foreign, [], "requests to other origins");
    await context.close();
  });

  test("the server's own pages (sign-in, a bad link) are styled under the app's CSP and pass axe in both themes", async () => {
    // Under the real CSP first: the stylesheet is the server's own, no inline style.
    const plain = await newPage(browser, server, { viewport: { width: 390, height: 844 } });
    await plain.page.goto(`${server.base}/login`);
    const look = () =>
      plain.page.locator("main").evaluate((m) => {
        const s = getComputedStyle(m);
        return { radius: s.borderRadius, width: m.getBoundingClientRect().width, font: getComputedStyle(document.body).fontFamily };
      });
    const login = await look();
    assert.equal(login.radius, "12px", JSON.stringify(login));
    assert.ok(login.width <= 390, JSON.stringify(login));
    assert.match(login.font, /system-ui/);
    await plain.page.goto(`${server.base}/?token=${"0".repeat(32)}`);
    await plain.page.locator("h1", { hasText: "Sign-in link not valid" }).waitFor({ timeout: 15_000 });
    assert.equal((await look()).radius, "12px");
    assert.ok(await plain.page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), "no sideways scroll at 390 px");
    await plain.context.close();
    // Then axe (injected: the CSP bypassed for that only).
    const checked = await newPage(browser, server, { bypassCSP: true });
    await checked.page.goto(`${server.base}/login`);
    await checked.page.locator("#password").waitFor();
    await axe(checked.page, "the sign-in page");
    await checked.page.goto(`${server.base}/?token=${"0".repeat(32)}`);
    await checked.page.locator("h1", { hasText: "Sign-in link not valid" }).waitFor({ timeout: 15_000 });
    await axe(checked.page, "the bad sign-in link page");
    await checked.context.close();
  });

  test("a used link in another browser says so, and that browser stays signed out", async () => {
    const link = newLink(server);
    const first = await newPage(browser, server);
    await first.page.goto(link);
    await first.page.locator(".topbar").waitFor({ timeout: 15_000 });
    const second = await newPage(browser, server);
    await second.page.goto(link);
    await second.page.locator("h1", { hasText: "Sign-in link not valid" }).waitFor({ timeout: 15_000 });
    const cookies = await second.context.cookies(server.base);
    assert.equal(cookies.length, 0, `cookies: ${cookies.map((c) => c.name).join(", ")}`);
    await first.context.close();
    await second.context.close();
  });
});
