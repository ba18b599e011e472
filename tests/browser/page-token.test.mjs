// The page token, in real Chromium: a login cookie alone opens only the app's files. Cookies do
// not care about ports, so any other server on this host (a dev server's preview port, a tool's
// web UI) gets the Tradewind cookie from the browser; with the cookie alone it can neither read
// nor write. Every API request of the app also carries the page token its sign-in gave it (kept
// in localStorage, which is per origin, port included), the WebSocket's first frame is that token,
// and the addresses the browser loads itself (images, downloads) carry the sign-in's view token.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createServer, request } from "node:http";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  PAGE_HEADER,
  PAGE_KEY,
  apiCall,
  assertClean,
  freshSignIn,
  haveServer,
  launchBrowser,
  newPage,
  serverBin,
  startServer,
} from "./harness.mjs";

const skip = haveServer() ? false : "server binary not built (target/debug/tradewind)";

/** A 1×1 PNG. */
const DOT = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/** An HTTP request from Node, as curl would make it: only the headers given. */
function curl(method, url, headers = {}, body) {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    const req = request(
      url,
      { method, headers: { ...headers, ...(data ? { "Content-Type": "application/json", "Content-Length": data.length } : {}) } },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode, text }));
      },
    );
    req.on("error", reject);
    req.end(data);
  });
}

/** Another server on 127.0.0.1 (another port): records the Cookie header of each request. */
async function previewServer() {
  const cookies = [];
  const srv = createServer((req, res) => {
    cookies.push(req.headers.cookie ?? "");
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end("<!doctype html><title>Preview</title><h1>A dev server's preview</h1>");
  });
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${srv.address().port}/`,
    cookies,
    close: () => new Promise((r) => srv.close(r)),
  };
}

/** The page's sign-in: its cookies as a Cookie header, and its page token. */
async function credentials(p, server) {
  const cookies = await p.context.cookies(server.base);
  assert.ok(cookies.length > 0, "signed in with a cookie");
  const token = await p.page.evaluate((key) => localStorage.getItem(key), PAGE_KEY);
  assert.ok(token, "the page keeps a page token");
  return { cookie: cookies.map((c) => `${c.name}=${c.value}`).join("; "), token };
}

describe("the page token", { skip, timeout: 300_000 }, () => {
  let server;
  let browser;

  before(async () => {
    server = await startServer({ scripts: [{ turns: [{ text: "Seen." }] }, { turns: [{ text: "Seen." }] }] });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  /** A page signed in by a link of its own, showing the app. */
  async function signedIn() {
    const p = await newPage(browser, server, { storageState: await freshSignIn(browser, server) });
    await p.page.goto(`${server.base}/`);
    await p.page.locator(".topbar").waitFor({ timeout: 15_000 });
    return p;
  }

  test("a preview port gets the cookie, and with it alone can neither read nor write", async () => {
    const preview = await previewServer();
    const p = await signedIn();
    try {
      const { cookie, token } = await credentials(p, server);
      // The signed-in browser opens the other port (a link, a redirect, the user's own click).
      const shown = await p.page.goto(preview.url);
      assert.equal(shown.status(), 200);
      const stolen = preview.cookies.find((c) => c !== "");
      assert.ok(stolen, `the browser sent the Tradewind cookie to another port: ${JSON.stringify(preview.cookies)}`);
      for (const c of cookie.split("; ")) assert.ok(stolen.split("; ").includes(c), `${c} in ${stolen}`);
      assert.equal(await p.page.evaluate((key) => localStorage.getItem(key), PAGE_KEY), null, "the token stays with its origin");

      const origin = server.base;
      const read = await curl("GET", `${origin}/api/sessions`, { Cookie: stolen });
      assert.equal(read.status, 401, `a read with the cookie alone: ${read.text}`);
      const write = await curl("POST", `${origin}/api/sessions`, { Cookie: stolen, Origin: origin }, { title: "Planted" });
      assert.equal(write.status, 401, `a write with the cookie alone: ${write.text}`);

      // The same requests with the page's token: the app's own.
      const withToken = { Cookie: stolen, [PAGE_HEADER]: token };
      const ok = await curl("GET", `${origin}/api/sessions`, withToken);
      assert.equal(ok.status, 200, ok.text);
      const made = await curl("POST", `${origin}/api/sessions`, { ...withToken, Origin: origin }, { title: "Mine" });
      assert.equal(made.status, 201, made.text);
      const titles = JSON.parse((await curl("GET", `${origin}/api/sessions`, withToken)).text).data.map((s) => s.title);
      assert.ok(titles.includes("Mine"), titles.join(", "));
      assert.ok(!titles.includes("Planted"), "nothing was made with the cookie alone");
      assertClean({ log: { ...p.log, foreign: p.log.foreign.filter((u) => !u.startsWith(preview.url)) } });
    } finally {
      await p.context.close();
      await preview.close();
    }
  });

  test("after Sign out, the sign-in's cookie and page token open nothing", async () => {
    const p = await signedIn();
    try {
      const { cookie, token } = await credentials(p, server);
      const pair = { Cookie: cookie, [PAGE_HEADER]: token };
      assert.equal((await curl("GET", `${server.base}/api/sessions`, pair)).status, 200, "the pair works while signed in");

      await p.page.getByRole("button", { name: "Sign out" }).click();
      await p.page.getByTestId("link-help").waitFor({ timeout: 10_000 });
      assert.equal(await p.page.evaluate((key) => localStorage.getItem(key), PAGE_KEY), null, "the page forgot its token");

      const read = await curl("GET", `${server.base}/api/sessions`, pair);
      assert.equal(read.status, 401, read.text);
      const write = await curl("POST", `${server.base}/api/sessions`, { ...pair, Origin: server.base }, { title: "After" });
      assert.equal(write.status, 401, write.text);
      assertClean(p);
    } finally {
      await p.context.close();
    }
  });

  test("a cookie's WebSocket must say the page token first: otherwise it is closed with 1008", async () => {
    const p = await signedIn();
    try {
      // The app's own socket: its first frame is the token, and it stays open.
      const first = new Promise((resolve) => {
        p.page.on("websocket", (ws) => ws.once("framesent", (f) => resolve(f.payload)));
      });
      await p.page.reload();
      await p.page.locator(".conn[data-state=open]").waitFor({ timeout: 10_000 });
      const { token } = await credentials(p, server);
      assert.deepEqual(JSON.parse(await first), { type: "auth", page: token }, "the app's first frame");

      // Same origin, same cookie; the first frame is something else, or a token it never gave.
      const socket = (frames) =>
        p.page.evaluate(
          (frames) =>
            new Promise((resolve) => {
              const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/api/ws`);
              ws.onopen = () => frames.forEach((f) => ws.send(JSON.stringify(f)));
              ws.onmessage = (m) => {
                const f = JSON.parse(m.data);
                if (f.type === "ack" && f.id === "p1") {
                  ws.onclose = null;
                  ws.close();
                  resolve({ answered: true });
                }
              };
              ws.onclose = (e) => resolve({ closed: e.code });
            }),
          frames,
        );
      const ping = { type: "ping", id: "p1" };
      assert.deepEqual(await socket([{ type: "subscribe_sessions" }, ping]), { closed: 1008 }, "a subscribe first");
      assert.deepEqual(await socket([ping]), { closed: 1008 }, "a ping first");
      assert.deepEqual(await socket([{ type: "auth", page: "0".repeat(token.length) }, ping]), { closed: 1008 }, "a made-up token");
      // With the page's token first, the socket serves.
      assert.deepEqual(await socket([{ type: "auth", page: token }, ping]), { answered: true }, "the page token first");
      assertClean(p);
    } finally {
      await p.context.close();
    }
  });

  test("end to end: a link signs in, the list loads, an image's address carries the view token", async () => {
    const out = execFileSync(serverBin, ["link", "--state-dir", join(server.dir, "home")], { encoding: "utf8" });
    const link = /https?:\/\/\S+/.exec(out)?.[0];
    assert.ok(link, out);
    const p = await newPage(browser, server);
    try {
      const { page } = p;
      await page.goto(link);
      await page.locator(".topbar").waitFor({ timeout: 15_000 });
      const at = new URL(page.url());
      assert.equal(at.search + at.hash, "", "neither the link's code nor the page token stays in the address");
      assert.ok(await page.evaluate((key) => localStorage.getItem(key), PAGE_KEY), "the token is kept");
      await page.locator(".conn[data-state=open]").waitFor({ timeout: 10_000 });

      // The list loads, and follows the socket.
      const created = await apiCall(page, server, "POST", "/api/sessions", { title: "With a picture" });
      assert.equal(created.status, 201, JSON.stringify(created.json));
      const id = created.json.id;
      await page.locator(`.session-list [data-session-id="${id}"]`).waitFor({ timeout: 5000 });

      const sent = await apiCall(page, server, "POST", `/api/sessions/${id}/messages`, {
        text: "What is this?",
        images: [{ media_type: "image/png", data: DOT, name: "dot.png" }],
      });
      assert.equal(sent.status, 202, JSON.stringify(sent.json));
      await page.locator(`.session-list [data-session-id="${id}"]`).click();
      await page.locator(".msg-assistant").getByText("Seen.").waitFor({ timeout: 20_000 });

      // The thumbnail: an <img> sends no header, its address carries the view token, and it loads.
      const view = (await apiCall(page, server, "GET", "/api/whoami")).json.view_token;
      assert.ok(view, "a browser sign-in has a view token");
      const img = page.locator(".msg-user .msg-images img").first();
      await img.waitFor();
      const src = new URL(await img.evaluate((i) => i.src));
      assert.match(src.pathname, /^\/api\/attachments\//);
      assert.equal(src.searchParams.get("view"), view);
      await page.waitForFunction(() => {
        const i = document.querySelector(".msg-user .msg-images img");
        return i && i.complete && i.naturalWidth === 1;
      });
      // The same address without it, cookie only: refused.
      const bare = await page.evaluate(async (path) => (await fetch(path, { credentials: "same-origin" })).status, src.pathname);
      assert.equal(bare, 401, "an attachment with the cookie alone");
      assertClean(p);
    } finally {
      await p.context.close();
    }
  });

  test("Settings → API tokens: each token's scopes; a new one reads and prompts unless told otherwise", async () => {
    const p = await signedIn();
    try {
      const { page } = p;
      await page.goto(`${server.base}/settings`);
      const card = page.locator("section.tokens");
      const form = card.getByRole("form", { name: "New API token" });
      await form.waitFor();
      const box = (scope) => form.locator(`input[name="scope_${scope}"]`);
      assert.deepEqual(
        [await box("read").isChecked(), await box("read").isDisabled(), await box("prompt").isChecked(), await box("admin").isChecked()],
        [true, true, true, false],
        "read always, prompt by default, admin not",
      );
      await form.getByText("Admin is needed to answer approvals", { exact: false }).waitFor();

      // The defaults.
      await form.locator('input[name="token_name"]').fill("ci");
      await form.getByRole("button", { name: "Create token" }).click();
      const secret = card.getByTestId("token-secret");
      await secret.waitFor();
      const ci = (await secret.locator("code").first().innerText()).trim();
      assert.match(ci, /^tw_[0-9a-f]{64}$/);
      const bearer = await curl("GET", `${server.base}/api/sessions`, { Authorization: `Bearer ${ci}` });
      assert.equal(bearer.status, 200, bearer.text);
      await secret.getByRole("button", { name: "Done" }).click();

      // Admin ticked.
      await form.locator('input[name="token_name"]').fill("ops");
      await box("admin").check();
      await form.getByRole("button", { name: "Create token" }).click();
      await secret.waitFor();
      await secret.getByRole("button", { name: "Done" }).click();

      const row = (name) => card.locator(".token-list li", { has: page.locator("strong", { hasText: new RegExp(`^${name}$`) }) });
      await row("ops").waitFor();
      assert.equal(await row("ci").locator(".token-scopes").getAttribute("data-scopes"), "read prompt");
      assert.equal(await row("ops").locator(".token-scopes").getAttribute("data-scopes"), "read prompt admin");
      const listed = (await apiCall(page, server, "GET", "/api/tokens")).json.data.map((t) => [t.name, [...t.scopes].sort()]);
      assert.deepEqual(listed, [
        ["ci", ["prompt", "read"]],
        ["ops", ["admin", "prompt", "read"]],
      ]);

      await card.getByRole("button", { name: "Revoke ci" }).click();
      await row("ci").waitFor({ state: "detached" });
      const revoked = await curl("GET", `${server.base}/api/sessions`, { Authorization: `Bearer ${ci}` });
      assert.equal(revoked.status, 401, revoked.text);
      assertClean(p);
    } finally {
      await p.context.close();
    }
  });
});
