// Web Push for a closed app, with real Chromium and nothing beyond loopback. A fake push service
// (a Node HTTP server on 127.0.0.1) plays the browser vendor's: a subscription made of a key pair
// and secret generated here is registered over the REST API, an approval asked in an "ask"
// session reaches the service, and the test decrypts it itself (RFC 8291 aes128gcm) and checks
// the VAPID token (RFC 8292, ES256 with the server's public key, audience the service's origin).
// The decrypted notice is then handed to the app's own service worker through the DevTools
// protocol (what the browser does with a push message it decrypted): it is not shown while the
// app's window is focused, and shown, with its body, tag and link, once the app is closed.
// Settings lists the subscription with its push service and how its deliveries went, sends a test
// (one device reached, one refusing shown with the service's reason), removes both, and says
// clearly why subscribing this browser fails (Playwright's contexts are private windows: Chromium
// has no push service there). Waits are on DOM states, events and answers, never on timers.
import assert from "node:assert/strict";
import { createDecipheriv, createECDH, createHmac, createPublicKey, randomBytes, verify } from "node:crypto";
import { createServer } from "node:http";
import { after, before, describe, test } from "node:test";
import { apiCall, assertClean, haveServer, launchBrowser, newPage, shot, signInWithToken, sleep, startServer } from "./harness.mjs";
import { axe, get, shows } from "./checks.mjs";

const skip = haveServer() ? false : "server binary not built (target/debug/tradewind)";

const scripts = [
  {
    match: "make a file",
    turns: [{ text: "Writing it.", tool_calls: [{ name: "write_file", arguments: { path: "hello.txt", content: "hi\n" } }] }],
  },
  { turns: [{ text: "Hello from replay" }] },
];

/**
 * A push service on loopback: records every POST; `/push/broken` answers 400 (a refusal that is
 * not "gone"), every other path 201. `next()` is the next request not read yet.
 */
async function startPushService() {
  const received = [];
  let wake = null;
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      received.push({ method: req.method, path: req.url, headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(req.url === "/push/broken" ? 400 : 201).end();
      wake?.();
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  let read = 0;
  return {
    base: `http://127.0.0.1:${server.address().port}`,
    received,
    /** The next request; fails after 30 s with what came so far. */
    async next(what) {
      const deadline = Date.now() + 30_000;
      while (received.length <= read) {
        const left = deadline - Date.now();
        if (left <= 0) assert.fail(`${what}: the push service heard nothing in 30 s`);
        await new Promise((r) => {
          const t = setTimeout(r, left);
          wake = () => {
            clearTimeout(t);
            r();
          };
        });
      }
      return received[read++];
    },
    close: () => new Promise((r) => server.close(r)),
  };
}

/** A browser's side of a subscription: its P-256 key pair and 16-byte authentication secret. */
function fakeBrowser() {
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  const auth = randomBytes(16);
  return {
    ecdh,
    auth,
    subscription: (endpoint) => ({
      endpoint,
      expirationTime: null,
      keys: { p256dh: ecdh.getPublicKey().toString("base64url"), auth: auth.toString("base64url") },
    }),
  };
}

const hmac = (key, data) => createHmac("sha256", key).update(data).digest();

/**
 * RFC 8291 + RFC 8188: decrypt a Web Push body (one aes128gcm record) with the browser's key and
 * secret, written here from the RFCs (not the server's code).
 */
function decrypt(body, browser) {
  const salt = body.subarray(0, 16);
  const rs = body.readUInt32BE(16);
  const idlen = body[20];
  assert.equal(idlen, 65, "the key id is the server's 65-byte ephemeral public key");
  const asPublic = body.subarray(21, 21 + idlen);
  const record = body.subarray(21 + idlen);
  assert.ok(record.length <= rs, `one record (${record.length} bytes, record size ${rs})`);
  const uaPublic = browser.ecdh.getPublicKey();
  const ecdhSecret = browser.ecdh.computeSecret(asPublic);
  const prkKey = hmac(browser.auth, ecdhSecret);
  const ikm = hmac(prkKey, Buffer.concat([Buffer.from("WebPush: info\0"), uaPublic, asPublic, Buffer.from([1])]));
  const prk = hmac(salt, ikm);
  const cek = hmac(prk, Buffer.from("Content-Encoding: aes128gcm\0\x01", "latin1")).subarray(0, 16);
  const nonce = hmac(prk, Buffer.from("Content-Encoding: nonce\0\x01", "latin1")).subarray(0, 12);
  const decipher = createDecipheriv("aes-128-gcm", cek, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  const plain = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
  // The last record ends with the delimiter 0x02, then any zero padding.
  let end = plain.length - 1;
  while (end >= 0 && plain[end] === 0) end--;
  assert.equal(plain[end], 2, "the last record's delimiter");
  return plain.subarray(0, end).toString("utf8");
}

/** RFC 8292: `vapid t=<JWT>, k=<key>`, the JWT signed (ES256) by the server's key for `audience`. */
function checkVapid(authorization, publicKey, audience) {
  const m = /^vapid t=([\w-]+\.[\w-]+\.[\w-]+), k=([\w-]+)$/.exec(authorization ?? "");
  assert.ok(m, `Authorization: ${authorization}`);
  const [, jwt, k] = m;
  assert.equal(k, publicKey, "k is the server's public key");
  const point = Buffer.from(publicKey, "base64url");
  assert.equal(point.length, 65);
  assert.equal(point[0], 4, "an uncompressed P-256 point");
  const key = createPublicKey({
    key: { kty: "EC", crv: "P-256", x: point.subarray(1, 33).toString("base64url"), y: point.subarray(33).toString("base64url") },
    format: "jwk",
  });
  const [header, claims, sig] = jwt.split(".");
  const signed = Buffer.from(`${header}.${claims}`);
  const signature = Buffer.from(sig, "base64url");
  assert.ok(verify("sha256", signed, { key, dsaEncoding: "ieee-p1363" }, signature), "the token is signed by the server's key");
  const forged = Buffer.from(signature);
  forged[10] ^= 1;
  assert.equal(verify("sha256", signed, { key, dsaEncoding: "ieee-p1363" }, forged), false, "a changed signature does not verify");
  assert.equal(JSON.parse(Buffer.from(header, "base64url")).alg, "ES256");
  const c = JSON.parse(Buffer.from(claims, "base64url"));
  assert.equal(c.aud, audience, "aud is the push service's origin");
  const now = Date.now() / 1000;
  assert.ok(c.exp > now && c.exp <= now + 24 * 3600, `exp within 24 h: ${JSON.stringify(c)}`);
  assert.match(c.sub, /^mailto:/);
}

describe("Web Push", { skip, timeout: 300_000 }, () => {
  let server;
  let push;
  let browser;
  let state;
  let publicKey;
  /** The subscribed "browser" of the first test, and the notice it received (decrypted). */
  let phone;
  let delivered = null;

  before(async () => {
    server = await startServer({ scripts });
    push = await startPushService();
    browser = await launchBrowser();
    const p = await newPage(browser, server);
    state = await signInWithToken(p.page, server);
    await p.context.close();
  });

  after(async () => {
    await browser?.close();
    await push?.close();
    await server?.stop();
  });

  test("an approval reaches the push service encrypted for the browser, with a VAPID token", { timeout: 60_000 }, async () => {
    const p = await newPage(browser, server, { storageState: state, serviceWorkers: "allow" });
    const { page } = p;
    page.setDefaultTimeout(10_000);
    await page.goto(`${server.base}/`);
    await page.locator(".topbar").waitFor();

    const info = await get(page, server, "/api/push");
    publicKey = info.public_key;
    assert.equal(Buffer.from(publicKey, "base64url").length, 65);
    assert.deepEqual(info.data, []);

    phone = fakeBrowser();
    const sub = await apiCall(page, server, "POST", "/api/push/subscriptions", phone.subscription(`${push.base}/push/x`));
    assert.equal(sub.status, 201, JSON.stringify(sub.json));
    assert.equal(sub.json.origin, push.base);
    assert.equal(sub.json.current, true, "registered by this sign-in");

    // An approval in an "ask" session: write_file waits for the user, and the server pushes.
    const created = await apiCall(page, server, "POST", "/api/sessions", { title: "Push", mode: "ask" });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const sid = created.json.id;
    const sent = await apiCall(page, server, "POST", `/api/sessions/${sid}/messages`, { text: "make a file" });
    assert.equal(sent.status, 202, JSON.stringify(sent.json));

    const req = await push.next("the approval's notice");
    assert.equal(req.method, "POST");
    assert.equal(req.path, "/push/x");
    assert.equal(req.headers["content-encoding"], "aes128gcm");
    assert.equal(req.headers.urgency, "high");
    assert.ok(Number(req.headers.ttl) > 0, `TTL ${req.headers.ttl}`);
    checkVapid(req.headers.authorization, publicKey, push.base);
    assert.ok(!req.body.includes(Buffer.from("Approval needed")), "the body is not plaintext");

    const json = decrypt(req.body, phone);
    const notice = JSON.parse(json);
    const pending = await get(page, server, `/api/sessions/${sid}/pending`);
    assert.equal(pending.approvals.length, 1);
    const approval = pending.approvals[0].approval_id;
    assert.equal(notice.title, "Tradewind needs you");
    assert.match(notice.body, /^Approval needed: write_file/);
    assert.equal(notice.url, `/s/${sid}`);
    assert.equal(notice.tag, approval, "tagged with the approval's id");
    assert.equal(notice.session, sid);
    // Another browser's key cannot read it.
    assert.throws(() => decrypt(req.body, fakeBrowser()));
    delivered = { json, notice, sid };

    // The server records the delivery once the push service has answered, which is after the
    // request reached it: read the subscriptions until the record is there (bounded).
    let after = (await get(page, server, "/api/push")).data;
    for (let i = 0; i < 200 && !(after[0]?.last_sent_at > 0); i++) {
      await sleep(25);
      after = (await get(page, server, "/api/push")).data;
    }
    assert.equal(after.length, 1);
    assert.ok(after[0].last_sent_at > 0, "the delivery is recorded");
    assert.equal(after[0].last_error ?? null, null);
    assertClean(p);
    await p.context.close();
  });

  test("the service worker shows the notice when the app is closed, not while its window is focused", { timeout: 60_000 }, async () => {
    assert.ok(delivered, "the previous test received a notice");
    const p = await newPage(browser, server, { storageState: state, serviceWorkers: "allow" });
    const { page, context } = p;
    page.setDefaultTimeout(10_000);
    await context.grantPermissions(["notifications"], { origin: server.base });
    const swSeen = context.waitForEvent("serviceworker");
    await page.goto(`${server.base}/settings`);
    await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
    const sw = context.serviceWorkers().find((w) => w.url() === `${server.base}/sw.js`) ?? (await swSeen);

    // The registration's id, as the DevTools protocol names it.
    const cdp = await context.newCDPSession(page);
    const registrationId = new Promise((resolve) => {
      cdp.on("ServiceWorker.workerRegistrationUpdated", (e) => {
        const r = e.registrations.find((x) => x.scopeURL === `${server.base}/` && !x.isDeleted);
        if (r) resolve(r.registrationId);
      });
    });
    await cdp.send("ServiceWorker.enable");
    const deliver = async (data) =>
      cdp.send("ServiceWorker.deliverPushMessage", { origin: server.base, registrationId: await registrationId, data });

    // A probe in the worker, to know when the app's push handler is done without waiting on a
    // timer. It records each showNotification promise and adds its own push listener after the
    // app's, which therefore runs after it in each dispatch: its clients.matchAll answers after
    // the app's (same channel, in order), so by then the app has called showNotification or
    // decided not to; the probe then waits for those calls and lists the notifications.
    await sw.evaluate(() => {
      const reg = self.registration;
      const show = reg.showNotification.bind(reg);
      const shows = [];
      reg.showNotification = (...args) => {
        const shown = show(...args);
        shows.push(shown.catch(() => undefined));
        return shown;
      };
      self.__handled = [];
      self.__wake = null;
      self.addEventListener("push", (e) => {
        const done = self.clients
          .matchAll({ type: "window", includeUncontrolled: true })
          .then(() => Promise.all(shows))
          .then(() => reg.getNotifications())
          .then((list) => list.map((n) => ({ title: n.title, body: n.body, tag: n.tag, data: n.data })));
        e.waitUntil(done);
        self.__handled.push(done);
        self.__wake?.();
      });
    });
    const handled = (i) =>
      sw.evaluate(async (i) => {
        while (self.__handled.length <= i) await new Promise((r) => (self.__wake = r));
        return self.__handled[i];
      }, i);
    const windows = () =>
      sw.evaluate(async () =>
        (await self.clients.matchAll({ type: "window", includeUncontrolled: true })).map((c) => ({ focused: c.focused, visible: c.visibilityState })),
      );

    // 1. The app's window is on screen and focused: the page shows the prompt itself, so the
    //    worker shows nothing.
    assert.deepEqual(await windows(), [{ focused: true, visible: "visible" }], "the app's window has the focus");
    const onScreen = { ...delivered.notice, tag: "on-screen", body: "Shown by the page" };
    await deliver(JSON.stringify(onScreen));
    assert.deepEqual(await handled(0), [], "nothing shown while the app's window has the focus");

    // 2. The app closed (its page navigated away; at most a hidden copy stays in the back-forward
    //    cache): the notice the push service carried, byte for byte as decrypted above, is shown
    //    with its body, tag and link.
    await page.goto("about:blank");
    const left = await windows();
    assert.ok(!left.some((w) => w.focused && w.visible === "visible"), `no app window on screen: ${JSON.stringify(left)}`);
    await deliver(delivered.json);
    const expected = {
      title: "Tradewind needs you",
      body: delivered.notice.body,
      tag: delivered.notice.tag,
      data: { url: `/s/${delivered.sid}` },
    };
    assert.deepEqual(await handled(1), [expected]);

    // 3. A payload that is not JSON still shows something (a push must be visible): the app's name.
    await deliver("not json");
    const plain = await handled(2);
    assert.deepEqual(plain.find((n) => n.tag === ""), { title: "Tradewind", body: "", tag: "", data: { url: "/" } }, JSON.stringify(plain));

    // The app, opened again, sees the notification in its registration.
    await page.goto(`${server.base}/settings`);
    await page.waitForFunction(
      async (tag) => (await (await navigator.serviceWorker.ready).getNotifications()).some((n) => n.tag === tag && n.title === "Tradewind needs you"),
      delivered.notice.tag,
    );
    assertClean(p);
    await p.context.close();
  });

  test("Settings lists the subscriptions, sends a test, removes them, and says why this browser cannot subscribe", { timeout: 90_000 }, async () => {
    const p = await newPage(browser, server, { storageState: state, bypassCSP: true, serviceWorkers: "allow" });
    const { page, context } = p;
    page.setDefaultTimeout(10_000);
    await context.grantPermissions(["notifications"], { origin: server.base });

    // A second subscription whose push service refuses every notice.
    const laptop = fakeBrowser();
    await page.goto(`${server.base}/`);
    await page.locator(".topbar").waitFor();
    const broken = await apiCall(page, server, "POST", "/api/push/subscriptions", laptop.subscription(`${push.base}/push/broken`));
    assert.equal(broken.status, 201, JSON.stringify(broken.json));

    await page.goto(`${server.base}/settings`);
    const panel = page.locator("section.push-panel");
    const rows = panel.locator("li[data-push]");
    await shows(panel.locator("[data-push-here]"), "This device: off", "this browser's state");
    await rows.nth(1).waitFor();
    assert.equal(await rows.count(), 2);
    await shows(rows.first(), push.base, "the push service of the first subscription");
    await shows(rows.first(), "last delivery", "the first subscription's last delivery");
    await shows(rows.first(), "this device", "a subscription of this sign-in");
    await shows(rows.nth(1), "nothing sent yet", "the second subscription before any notice");
    await axe(page, "Settings → notifications when the app is closed");

    // The test notice: one device reached (decrypted here), the other's refusal shown.
    await panel.getByRole("button", { name: "Send a test notification" }).click();
    await shows(panel.getByRole("status"), "Sent to 1 device.", "the test's result");
    await shows(panel.getByRole("status"), "the push service refused the notice (400)", "the refusing service's answer");
    const reqs = [await push.next("a test notice"), await push.next("a test notice")];
    const ok = reqs.find((r) => r.path === "/push/x");
    assert.ok(ok, "the working subscription got the test");
    const testNotice = JSON.parse(decrypt(ok.body, phone));
    assert.equal(testNotice.title, "Tradewind");
    assert.equal(testNotice.body, "Notifications reach this device even when the app is closed.");
    assert.equal(testNotice.tag, "test");
    await shows(rows.nth(1), "last delivery failed: the push service refused the notice (400)", "the refusal in the list");
    await axe(page, "Settings → notifications, after a test with a failure");
    await shot(page, "push-settings");

    // Remove both: the server forgets them.
    for (let left = 2; left > 0; left--) {
      await rows.first().getByRole("button", { name: /^Remove / }).click();
      await page.waitForFunction((n) => document.querySelectorAll("section.push-panel li[data-push]").length === n, left - 1);
      await shows(panel.getByRole("status"), "Removed Chrome", "the removal");
      assert.equal(await panel.locator("h2").evaluate((el) => el === document.activeElement), true, "the title has the focus after Remove");
    }
    await shows(panel.locator("[data-push-empty]"), "No device is subscribed.", "the empty list");
    assert.deepEqual((await get(page, server, "/api/push")).data, []);

    // This browser: the permission is granted, but Playwright's contexts are private windows,
    // where Chromium has no push service, so pushManager.subscribe rejects. The reason is shown.
    await panel.getByRole("button", { name: "Notify me when the app is closed" }).click();
    await shows(panel.getByRole("alert"), /^This browser could not subscribe: .+\. A private window/, "why subscribing failed");
    await shows(panel.locator("[data-push-here]"), "This device: off", "this browser's state after the failure");
    assert.deepEqual((await get(page, server, "/api/push")).data, [], "nothing registered");
    await axe(page, "Settings → notifications, subscribing failed");
    assertClean(p);
    await p.context.close();
  });
});
