// Remote access on a LAN, in real Chromium: the server runs `--tls auto`, the browser reaches it
// by a LAN-style name (`tradewind.test`, mapped to 127.0.0.1 by the resolver) and trusts the
// server's own leaf key (as a device that installed the CA would). The secure-context features
// the web app relies on must then work: the service worker registers, `navigator.clipboard`
// exists, a notification permission request can be made; the login cookie is `__Host-` Secure;
// Settings shows the CA fingerprint printed at start, the devices, and "Add a device" as a QR.
import assert from "node:assert/strict";
import { X509Certificate, createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { haveServer, launchBrowser, newPage, shot, startServer } from "./harness.mjs";

const skip = haveServer() ? false : "server binary not built (target/debug/tradewind)";

describe("LAN access over HTTPS", { skip, timeout: 300_000 }, () => {
  let server;
  let browser;
  let origin;
  let caFingerprint;

  before(async () => {
    server = await startServer({
      scripts: [{ turns: [{ text: "hello" }] }],
      args: ["--tls", "auto", "--public-url", "https://tradewind.test"],
    });
    assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]{32}$/, "the ready line has an https link");
    const tlsDir = join(server.dir, "home", "tls");
    const leaf = new X509Certificate(readFileSync(join(tlsDir, "leaf.pem")));
    assert.ok(leaf.subjectAltName.includes("DNS:tradewind.test"), leaf.subjectAltName);
    caFingerprint = new X509Certificate(readFileSync(join(tlsDir, "ca.pem"))).fingerprint256;
    const spki = createHash("sha256")
      .update(leaf.publicKey.export({ type: "spki", format: "der" }))
      .digest("base64");
    browser = await launchBrowser([
      "--host-resolver-rules=MAP tradewind.test 127.0.0.1",
      `--ignore-certificate-errors-spki-list=${spki}`,
    ]);
    origin = `https://tradewind.test:${new URL(server.url).port}`;
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  test("secure-context features work on a LAN-style name; Settings shows the CA and devices", async () => {
    const lan = { ...server, base: origin };
    const { context, page, log } = await newPage(browser, lan, { serviceWorkers: "allow" });
    const code = new URL(server.url).searchParams.get("token");
    await page.goto(`${origin}/?token=${code}`);
    await page.locator(".topbar").waitFor({ timeout: 15_000 });
    assert.equal(new URL(page.url()).search, "", "the code is gone from the address bar");
    assert.equal(await page.evaluate(() => window.isSecureContext), true, "a secure context");

    const cookies = await context.cookies(origin);
    const login = cookies.find((c) => c.name === "__Host-tw_session");
    assert.ok(login, `cookies: ${cookies.map((c) => c.name).join(", ")}`);
    assert.equal(login.secure, true);
    assert.equal(login.httpOnly, true);
    assert.equal(login.sameSite, "Strict");

    const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope);
    assert.equal(scope, `${origin}/`, "the service worker registered");
    assert.equal(await page.evaluate(() => typeof navigator.clipboard?.writeText), "function");
    await context.grantPermissions(["notifications"], { origin });
    assert.equal(await page.evaluate(() => Notification.requestPermission()), "granted");

    await page.goto(`${origin}/settings`);
    const fp = page.getByTestId("ca-fingerprint");
    await fp.waitFor({ timeout: 10_000 });
    assert.equal((await fp.textContent()).trim(), caFingerprint, "the fingerprint printed at start");
    const device = page.locator(".device-list li", { hasText: "this device" });
    await device.waitFor({ timeout: 10_000 });
    assert.match(await device.textContent(), /Chrom/);
    // Where it signed in from, and a name of the user's own (two identical browsers told apart).
    assert.match(await device.textContent(), /signed in .+ from \S+/);
    await device.getByRole("button", { name: /^Rename / }).click();
    await device.getByLabel("Name of this browser (this device)").fill("Work laptop");
    await device.getByRole("button", { name: "Save" }).click();
    await page.locator(".device-list li .device-name", { hasText: "Work laptop" }).waitFor({ timeout: 10_000 });

    await page.getByRole("button", { name: "Add a device" }).click();
    const link = page.getByTestId("device-link");
    await link.waitFor({ timeout: 10_000 });
    const url = await link.locator("code").first().textContent();
    assert.match(url, /^https:\/\/tradewind\.test\/\?token=[0-9a-f]{32}$/);
    const qrLoaded = await link.locator("img.qr").evaluate((img) => img.complete && img.naturalWidth > 0);
    assert.ok(qrLoaded, "the QR code renders");
    await shot(page, "lan-settings-devices");

    // The API is never served on plain HTTP at this port: a plain request is sent to https.
    const plain = await fetch(`http://127.0.0.1:${new URL(origin).port}/api/health`, { redirect: "manual" });
    assert.equal(plain.status, 308);
    assert.equal(plain.headers.get("location"), `https://127.0.0.1:${new URL(origin).port}/api/health`);

    assert.deepEqual(log.errors, [], "page errors");
    assert.deepEqual(log.foreign, [], "requests to other origins");
    await context.close();
  });
});
