// Hand-written service worker: keeps the app shell so the client opens without a network, and shows
// the your-turn notification the page asks for while it is in the background (a tap on it brings the
// game back). Never touches the API or the socket: moves and views always come from the server (a
// cached view would show a game that has moved on). The server fills in __BUILD__ from a hash of the
// files, so every release gets a fresh cache and the old one is deleted on activate.

const CACHE = 'alcabohne-shell-__BUILD__';
// Every module of the app (tests/e2e/test_web.py checks the list against the files); no comments
// inside the list: the test reads it as JSON.
const SHELL = [
  '/',
  '/manifest.webmanifest',
  '/css/app.css',
  '/js/app.js', '/js/client.js', '/js/cues.js', '/js/html.js', '/js/i18n.js', '/js/narrate.js',
  '/js/session.js', '/js/sync.js', '/js/present.js', '/js/store.js', '/js/targets.js',
  '/js/replay.js', '/js/history.js', '/js/fly.js', '/js/views/follow.js',
  '/js/views/banner.js', '/js/views/flow.js', '/js/views/bits.js', '/js/views/curtain.js', '/js/views/end.js',
  '/js/views/game.js', '/js/views/home.js', '/js/views/lobby.js', '/js/views/steps.js',
  '/js/views/table.js', '/js/views/art.js', '/js/views/info.js', '/js/names.js',
  '/i18n/de.json', '/i18n/en.json',
  '/js/learn.js', '/js/views/coach.js', '/js/views/coachcard.js',
  '/js/views/hinttext.js', '/js/views/rules.js', '/js/views/sketch.js',
  '/js/beans.js', '/i18n/rules.de.json', '/i18n/rules.en.json',
  '/vendor/preact/preact.mjs', '/vendor/preact/hooks.mjs', '/vendor/htm/htm.mjs',
  '/icons/icon-192.png', '/icons/icon-512.png', '/icons/maskable-512.png', '/icons/apple-touch-icon.png',
];

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches.open(CACHE)
      .then((c) => c.addAll(SHELL.map((u) => new Request(u, { cache: 'reload' }))))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('alcabohne-shell-') && k !== CACHE)
        .map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const req = event.request;
  const url = new URL(req.url);
  // Only our own GETs of the shell; the API, the socket, QR codes and everything else go to the network.
  if (req.method !== 'GET' || url.origin !== self.location.origin || url.pathname.startsWith('/api/')) return;
  if (req.mode === 'navigate') {
    // Network first for the page, so an online phone always gets the newest index.html.
    event.respondWith(fetch(req).catch(() => caches.match('/', { cacheName: CACHE })));
    return;
  }
  if (!SHELL.includes(url.pathname)) return;
  event.respondWith(caches.match(req, { cacheName: CACHE }).then((hit) => hit || fetch(req)));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const url = (event.notification.data && event.notification.data.url) || '/';
  event.waitUntil(
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((list) => {
      // The game's own tab if it is still open, else any tab of ours, else a new one.
      const same = list.find((c) => c.url === url) || list[0];
      if (same) return same.focus();
      return self.clients.openWindow(url);
    }),
  );
});
