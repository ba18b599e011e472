import assert from "node:assert/strict";
// Shared helpers for the browser tests: start the real server with the replay
// provider, drive Debian's Chromium with playwright-core, and watch the page
// for script execution, CSP violations and requests to other origins.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = resolve(here, "..", "..");
export const serverBin = process.env.TRADEWIND_BIN ?? join(repoRoot, "target", "debug", "tradewind");
export const chromiumPath = process.env.CHROMIUM ?? "/usr/bin/chromium";
export const screenshotDir = join(repoRoot, "test-output", "screenshots");

export function haveServer() {
  return existsSync(serverBin);
}

/**
 * Start `tradewind serve` on a free port with the replay provider.
 * `config`: written to config.json in the state directory before the start (with `titles.enabled`
 *   false unless it says otherwise).
 * `files`: written into the workspace before the start, by relative path (`.tradewind/config.json`).
 * `homeFiles`: written into the state directory before the start, by relative path (`hooks.json`).
 * `root`: the folder the server's scratch directory (state, workspace) is made in, the temp folder
 * by default (the Landlock fallback refuses to start with a state directory under a temp folder).
 * Resolves when it prints its URL.
 */
export async function startServer({ scripts, args = [], files = {}, homeFiles = {}, provider = true, env = {}, config, root = tmpdir() } = {}) {
  mkdirSync(root, { recursive: true });
  const dir = mkdtempSync(join(root, "tw-browser-"));
  const home = join(dir, "home");
  const workspace = join(dir, "ws");
  mkdirSync(home, { mode: 0o700 });
  mkdirSync(workspace);
  // No model-written titles (an extra model call a scripted model would answer) unless asked.
  writeFileSync(join(home, "config.json"), JSON.stringify({ titles: { enabled: false }, ...(config ?? {}) }, null, 2));
  for (const [base, written] of [[workspace, files], [home, homeFiles]]) {
    for (const [name, content] of Object.entries(written)) {
      mkdirSync(dirname(join(base, name)), { recursive: true });
      writeFileSync(join(base, name), content);
    }
  }
  const replay = join(dir, "replay.json");
  writeFileSync(replay, JSON.stringify({ scripts }, null, 2));
  const providerArgs = provider ? ["--provider", "replay", "--replay", replay] : [];
  const proc = spawn(
    serverBin,
    ["serve", "--port", "0", "--workspace", workspace, ...providerArgs, ...args],
    { env: { ...process.env, TRADEWIND_HOME: home, ...env }, stdio: ["ignore", "pipe", "pipe"] },
  );
  // Never leave a server behind, even when the test process is cut short.
  const killOnExit = () => proc.kill("SIGKILL");
  process.once("exit", killOnExit);
  let stderr = "";
  proc.stderr.on("data", (d) => {
    stderr += d;
    if (stderr.length > 200_000) stderr = stderr.slice(-100_000);
  });
  const url = await new Promise((res, rej) => {
    let out = "";
    const timer = setTimeout(() => rej(new Error(`server did not start in 30 s\n${out}\n${stderr}`)), 30_000);
    proc.stdout.on("data", (d) => {
      out += d;
      const m = /https?:\/\/\S+/.exec(out);
      if (m) {
        clearTimeout(timer);
        res(m[0]);
      }
    });
    proc.on("exit", (code) => {
      clearTimeout(timer);
      rej(new Error(`server exited with ${code}\n${out}\n${stderr}`));
    });
  });
  const u = new URL(url);
  const base = `${u.protocol}//${u.host}`;
  return {
    url,
    base,
    workspace,
    dir,
    proc,
    stderr: () => stderr,
    async stop() {
      process.off("exit", killOnExit);
      if (proc.exitCode === null) {
        proc.kill("SIGTERM");
        await new Promise((r) => {
          const t = setTimeout(() => {
            proc.kill("SIGKILL");
            r();
          }, 5000);
          proc.once("exit", () => {
            clearTimeout(t);
            r();
          });
        });
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function launchBrowser(extraArgs = []) {
  return chromium.launch({
    executablePath: chromiumPath,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      // A page fulfilled by a route has no address: let it reach the loopback server.
      ...(process.env.TW_STATIC_OVERRIDE ? ["--disable-features=LocalNetworkAccessChecks"] : []),
      ...extraArgs,
    ],
  });
}

// Runs in the page before any app script: records CSP violations, counts
// dialogs and probes, and keeps a handle on every WebSocket the app opens.
const INIT = () => {
  window.__cspViolations = [];
  document.addEventListener("securitypolicyviolation", (e) => {
    window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`);
  });
  window.__sockets = [];
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...a) {
      super(...a);
      window.__sockets.push(this);
    }
  };
};

/**
 * A new page whose every request, dialog, console error and CSP violation is recorded.
 * `serviceWorkers`: "allow" or "block"; blocked by default under TW_STATIC_OVERRIDE, where the
 * app's service worker would fetch the next page through navigation preload, which no route
 * sees: a reload or a second page would get the server's own build instead of the override.
 */
export async function newPage(browser, server, { storageState, viewport, colorScheme, bypassCSP, serviceWorkers } = {}) {
  const context = await browser.newContext({
    storageState,
    // Only for injecting test tooling (axe-core) into the page; never for the app's own checks.
    bypassCSP: bypassCSP ?? false,
    serviceWorkers: serviceWorkers ?? (process.env.TW_STATIC_OVERRIDE ? "block" : "allow"),
    viewport: viewport ?? { width: 1280, height: 860 },
    colorScheme: colorScheme ?? "light",
    deviceScaleFactor: 1,
  });
  await context.addInitScript(INIT);
  if (process.env.TW_STATIC_OVERRIDE) await serveStaticFrom(context, server, process.env.TW_STATIC_OVERRIDE);
  const page = await context.newPage();
  // acceptDialogs: how many upcoming confirm() dialogs to accept (others are dismissed).
  const log = { foreign: [], dialogs: [], errors: [], requests: [], acceptDialogs: 0 };
  const origin = server.base;
  page.on("request", (r) => {
    const u = r.url();
    log.requests.push(u);
    if (!(u.startsWith(`${origin}/`) || u === origin || u.startsWith("data:") || u.startsWith("blob:") || u.startsWith(origin.replace("http", "ws")))) {
      log.foreign.push(u);
    }
  });
  page.on("websocket", (ws) => {
    const u = ws.url();
    if (!u.startsWith(origin.replace("http", "ws"))) log.foreign.push(u);
  });
  page.on("dialog", async (d) => {
    log.dialogs.push(`${d.type()}: ${d.message()}`);
    if (log.acceptDialogs > 0) {
      log.acceptDialogs--;
      await d.accept().catch(() => undefined);
    } else {
      await d.dismiss().catch(() => undefined);
    }
  });
  page.on("pageerror", (e) => log.errors.push(String(e)));
  return { context, page, log };
}

/**
 * TW_STATIC_OVERRIDE=DIR serves the web app from another build (e.g. one of an older commit, made
 * with `vite build --outDir DIR`) instead of the server's: how a test is shown to fail before a fix.
 */
async function serveStaticFrom(context, server, dir) {
  const types = { ".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml", ".html": "text/html", ".webmanifest": "application/manifest+json" };
  await context.route(
    (u) => u.origin === server.base && !u.pathname.startsWith("/api/"),
    async (route) => {
      const url = new URL(route.request().url());
      if (url.searchParams.has("token")) return signInLink(route);
      const path = url.pathname;
      const own = path.startsWith("/assets/") || ["/favicon.svg", "/sw.js", "/manifest.webmanifest"].includes(path);
      const file = own ? join(dir, path) : join(dir, "index.html");
      if (!existsSync(file)) return route.fulfill({ status: 404, body: "not found" });
      const upstream = await route.fetch({ url: server.base + "/" }).catch(() => null);
      const headers = { "content-type": types[file.slice(file.lastIndexOf("."))] ?? "application/octet-stream" };
      const csp = upstream?.headers()["content-security-policy"];
      if (csp) headers["content-security-policy"] = csp;
      await route.fulfill({ status: 200, headers, body: readFileSync(file) });
    },
  );
}

/**
 * A routed sign-in link: the server's own answer sets the cookie. Its redirect (to `/#tw-page=…`)
 * is passed on as a page that goes there, since the browser would follow a fulfilled redirect
 * past the routes; an answer that is no redirect (a used link) is passed on as it is.
 */
async function signInLink(route) {
  const answer = await route.fetch({ maxRedirects: 0 });
  const h = answer.headers();
  if (!h.location) return route.fulfill({ response: answer });
  const headers = { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" };
  if (h["set-cookie"]) headers["set-cookie"] = h["set-cookie"];
  const to = h.location.replace(/&/g, "&amp;").replace(/"/g, "&quot;");
  return route.fulfill({ status: 200, headers, body: `<!doctype html><meta http-equiv="refresh" content="0;url=${to}">` });
}

/**
 * A signed-in cookie for a test of its own, not the server's first link (which a test of the
 * sign-in flow may use): `tradewind link` mints a fresh one-time link for this server's state
 * directory, a throwaway page opens it, and its storage state is returned.
 */
export async function freshSignIn(browser, server) {
  const out = execFileSync(serverBin, ["link", "--state-dir", join(server.dir, "home")], { encoding: "utf8" });
  const link = /https?:\/\/\S+/.exec(out)?.[0];
  if (!link) throw new Error(`tradewind link printed no link:\n${out}`);
  const p = await newPage(browser, server);
  await p.page.goto(link);
  await p.page.waitForSelector(".topbar");
  const state = await p.context.storageState();
  await p.context.close();
  return state;
}

/** Sign in by opening the one-time token URL; returns the storage state (cookie) for later contexts. */
export async function signInWithToken(page, server) {
  await page.goto(server.url);
  await page.waitForSelector(".topbar");
  return page.context().storageState();
}

export async function shot(page, name) {
  mkdirSync(screenshotDir, { recursive: true });
  await page.screenshot({ path: join(screenshotDir, `${name}.png`) });
}

/** Where the app keeps its page token (localStorage), and the header every API request carries it in. */
export const PAGE_KEY = "tradewind.page";
export const PAGE_HEADER = "X-Tradewind-Page";

/**
 * REST call as the app makes it: the browser's cookie and the page token from the page's
 * localStorage (same-origin headers set explicitly).
 */
export async function apiCall(page, server, method, path, body) {
  return page.evaluate(
    async ({ method, path, body, key, header }) => {
      const headers = {};
      const token = localStorage.getItem(key);
      if (token) headers[header] = token;
      if (body !== undefined) headers["Content-Type"] = "application/json";
      const r = await fetch(path, {
        method,
        credentials: "same-origin",
        headers,
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
      const text = await r.text();
      return { status: r.status, json: text ? JSON.parse(text) : null };
    },
    { method, path, body, key: PAGE_KEY, header: PAGE_HEADER },
  );
}

/** The headers of an API request made in the page as the app makes it (the page token), for page.evaluate. */
export async function pageHeaders(page) {
  const token = await page.evaluate((key) => localStorage.getItem(key), PAGE_KEY);
  return token ? { [PAGE_HEADER]: token } : {};
}

/** The API routes the server binary has ("GET /api/…"), from `tradewind openapi`. */
let routesCache = null;
export function serverRoutes() {
  if (routesCache) return routesCache;
  routesCache = new Set();
  try {
    const spec = JSON.parse(execFileSync(serverBin, ["openapi"], { encoding: "utf8", maxBuffer: 64 << 20 }));
    for (const [path, ops] of Object.entries(spec.paths ?? {})) {
      for (const m of Object.keys(ops)) routesCache.add(`${m.toUpperCase()} ${path}`);
    }
  } catch {
    // no binary: every route counts as missing
  }
  return routesCache;
}

export function hasRoute(route) {
  return serverRoutes().has(route);
}

export async function createSessionViaUi(page, { title, mode = "ask", workspace, agent } = {}) {
  await page.getByRole("button", { name: "+ New" }).click();
  const form = page.locator("form.new-session");
  if (workspace) await form.locator('input[name="workspace"]').fill(workspace);
  if (title) await form.locator('input[name="title"]').fill(title);
  if (agent) await form.locator('select[name="agent"]').selectOption(agent);
  await form.locator('select[name="mode"]').selectOption(mode);
  await form.getByRole("button", { name: "Create session" }).click();
  await page.waitForURL(/\/s\//);
  await page.waitForSelector(".session-view .composer textarea");
  return decodeURIComponent(new URL(page.url()).pathname.split("/").pop());
}

export async function sendPrompt(page, text) {
  const box = page.locator(".composer textarea");
  await box.fill(text);
  await box.press("Enter");
}

export function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * Proxy the page's WebSocket so a test can push protocol frames for `session` after the app
 * subscribed to it (call before the page opens its socket; await `ready` after navigating).
 * Frames get the next seq after the newest one the app has (read over REST or sent by the server).
 */
export async function injectFrames(page, session) {
  let client = null;
  let lastSeq = 0;
  let resolve;
  const subscribed = new Promise((r) => (resolve = r));
  await page.routeWebSocket(/\/api\/ws/, (ws) => {
    const upstream = ws.connectToServer();
    upstream.onMessage((m) => {
      try {
        const frames = [JSON.parse(m)].flat();
        for (const f of frames) if (f.session === session && typeof f.seq === "number") lastSeq = Math.max(lastSeq, f.seq);
      } catch {
        /* not JSON */
      }
      ws.send(m);
    });
    ws.onMessage((m) => {
      upstream.send(m);
      try {
        const f = JSON.parse(m);
        if (f.type === "subscribe" && f.session === session) {
          // The app read the events up to `after` over REST (the newest page) before subscribing.
          if (typeof f.after === "number") lastSeq = Math.max(lastSeq, f.after);
          client = ws;
          resolve();
        }
      } catch {
        /* ignore */
      }
    });
  });
  let timer;
  const ready = Promise.race([
    subscribed,
    new Promise((_, rej) => {
      timer = setTimeout(() => rej(new Error("the app did not subscribe through the WebSocket proxy in 15 s")), 15_000);
    }),
  ]).finally(() => clearTimeout(timer));
  return {
    ready,
    /** Push one frame; `at` defaults to now. Returns its seq. */
    send(payload) {
      lastSeq++;
      client.send(JSON.stringify({ seq: lastSeq, session, run: null, at: Date.now(), ...payload }));
      return lastSeq;
    },
  };
}

/** Resolves after the page has painted twice: effects of the last render have run. */
export async function afterPaint(page) {
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 0)))));
}

/** No request left the server's origin and no script error happened on the page. */
export function assertClean(p) {
  assert.deepEqual(p.log.foreign, [], "requests to other origins");
  assert.deepEqual(p.log.errors, [], "page errors");
}

/** A session made over the API (fast), opened in the page with frames injectable. */
export async function openFixtureSession(p, server, title) {
  await p.page.goto(server.base + "/");
  const created = await apiCall(p.page, server, "POST", "/api/sessions", { title });
  assert.equal(created.status, 201);
  const id = created.json.id;
  const inj = await injectFrames(p.page, id);
  await p.page.goto(`${server.base}/s/${id}`);
  await inj.ready;
  return { id, inj };
}
