// Shared helpers for the browser tests: start the real server with the replay
// provider, drive Debian's Chromium with playwright-core, and watch the page
// for script execution, CSP violations and requests to other origins.
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
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
 * Resolves when it prints its URL.
 */
export async function startServer({ scripts, args = [], files = {}, provider = true, env = {} } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "tw-browser-"));
  const home = join(dir, "home");
  const workspace = join(dir, "ws");
  mkdirSync(home, { mode: 0o700 });
  mkdirSync(workspace);
  for (const [name, content] of Object.entries(files)) writeFileSync(join(workspace, name), content);
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
      const m = /http:\/\/\S+/.exec(out);
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

export async function launchBrowser() {
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

/** A new page whose every request, dialog, console error and CSP violation is recorded. */
export async function newPage(browser, server, { storageState, viewport, colorScheme } = {}) {
  const context = await browser.newContext({
    storageState,
    viewport: viewport ?? { width: 1280, height: 860 },
    colorScheme: colorScheme ?? "light",
    deviceScaleFactor: 1,
  });
  await context.addInitScript(INIT);
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

/** REST call with the browser's cookie (same-origin headers set explicitly). */
export async function apiCall(page, server, method, path, body) {
  return page.evaluate(
    async ({ method, path, body }) => {
      const r = await fetch(path, {
        method,
        credentials: "same-origin",
        headers: body !== undefined ? { "Content-Type": "application/json" } : {},
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
      const text = await r.text();
      return { status: r.status, json: text ? JSON.parse(text) : null };
    },
    { method, path, body },
  );
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
