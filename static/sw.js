// Tradewind's service worker: keeps the static app shell (the page and its hashed assets) so the
// app opens at once and installs as an app, and shows notifications, among them the server's Web
// Push notices while the app is closed. It never stores API responses, sign-in links or anything
// else that carries data; the app clears its cache on sign-out and when the server says this
// device is signed out.
const CACHE = "tw-shell-v1";

self.addEventListener("install", (e) => {
  // Requests the browser makes without waking this worker, where it can (static routing): the
  // API, and the hashed assets, which the browser's HTTP cache keeps a year and serves faster
  // than a worker could (also offline). Elsewhere the fetch handler below does the work.
  try {
    e.addRoutes?.([
      { condition: { urlPattern: { pathname: "/api/*" } }, source: "network" },
      { condition: { urlPattern: { pathname: "/assets/*" } }, source: "network" },
    ])?.catch(() => undefined);
    // A session's page: the network and the fetch handler race, so the page's request does not
    // wait for this worker, which still answers with the shell when the server is away. (Its own
    // call: a browser without this source keeps the routes above.)
    e.addRoutes?.([
      {
        condition: { requestMode: "navigate", urlPattern: { pathname: "/s/*" } },
        source: "race-network-and-fetch-handler",
      },
    ])?.catch(() => undefined);
  } catch {
    // Only an optimisation: without it, every request comes to the fetch handler.
  }
  self.skipWaiting();
});
self.addEventListener("activate", (e) => {
  e.waitUntil(
    Promise.all([
      // A page's request starts while this worker starts, not after (navigation preload).
      self.registration.navigationPreload?.enable().catch(() => undefined),
      caches.keys().then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k)))),
    ]).then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (e) => {
  const req = e.request;
  const url = new URL(req.url);
  if (req.method !== "GET" || url.origin !== self.location.origin) return;
  if (url.pathname.startsWith("/api/") || url.pathname.startsWith("/tls") || url.search) return;
  if (url.pathname.startsWith("/assets/")) {
    // Hashed names never change: cache first.
    e.respondWith(
      caches.match(req).then(
        (hit) =>
          hit ||
          fetch(req).then((res) => {
            if (res.ok) {
              const copy = res.clone();
              caches.open(CACHE).then((c) => c.put(req, copy));
            }
            return res;
          }),
      ),
    );
  } else if (req.mode === "navigate") {
    // The shell: network first (a new build shows at once), the cached copy when offline. The copy
    // kept is the home page's: another page's also names what it asks for early (a session's events).
    e.respondWith(
      Promise.resolve(e.preloadResponse)
        .then((pre) => pre || fetch(req))
        .then((res) => {
          if (res.ok && url.pathname === "/") {
            const copy = res.clone();
            caches.open(CACHE).then((c) => c.put("/", copy));
          } else if (res.ok) {
            caches.open(CACHE).then((c) => c.add("/")).catch(() => undefined);
          }
          return res;
        })
        .catch(() => caches.match("/").then((hit) => hit || Response.error())),
    );
  }
});

self.addEventListener("message", (e) => {
  if (e.data && e.data.type === "clear") e.waitUntil(caches.delete(CACHE));
});

// A click on a notification brings the app forward at the session it names.
self.addEventListener("notificationclick", (e) => {
  e.notification.close();
  const target = new URL((e.notification.data && e.notification.data.url) || "/", self.location.origin).href;
  e.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((wins) => {
      for (const w of wins) {
        if ("focus" in w) {
          if (w.url !== target && "navigate" in w) w.navigate(target).catch(() => undefined);
          return w.focus();
        }
      }
      return self.clients.openWindow(target);
    }),
  );
});

// A Web Push notice from the server (the browser has decrypted it): {title, body, url, tag}. Not
// shown while a window of the app is on screen and focused: that page shows the prompt itself.
// Notices with the same tag (one per prompt; the page's own notification uses it too) replace
// each other without alerting twice.
self.addEventListener("push", (e) => {
  let n = null;
  try {
    n = e.data ? e.data.json() : null;
  } catch {
    n = null;
  }
  if (!n || typeof n !== "object") n = {};
  const text = (v) => (typeof v === "string" ? v : "");
  const title = text(n.title) || "Tradewind";
  const options = { body: text(n.body), data: { url: text(n.url) || "/" } };
  if (text(n.tag)) options.tag = n.tag;
  e.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((wins) => {
      if (wins.some((w) => w.focused && w.visibilityState === "visible")) return undefined;
      return self.registration.showNotification(title, options);
    }),
  );
});

// The browser replaced the subscription: subscribe again with the same key. The worker cannot
// tell the server (it has no page token, and the cookie alone authorises nothing): the app
// registers the browser's current subscription each time it opens (`renewPushSubscription`).
self.addEventListener("pushsubscriptionchange", (e) => {
  const old = e.oldSubscription && e.oldSubscription.options && e.oldSubscription.options.applicationServerKey;
  if (e.newSubscription || !old) return;
  e.waitUntil(
    self.registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: old }).catch(() => undefined),
  );
});
