// The service worker of the site, served at /sw.js (app/api/webapp_pages.py), its scope the whole site.
//
// It shows a table's turn notifications (a push from the server) and opens the table when one is clicked (at
// the end of this script). It keeps two things, and nothing else:
// - the static files (URLs under {{ static_prefix }}), cache first: they are versioned, and this script
//   names its caches by their version, so a new version of any of them is a new worker, which drops the
//   old caches when it takes over;
// - the offline page in each language, fetched when the worker installs.
// Every other request (a room, a hand, a seat link, the API, "your tables", the sockets) goes to the
// network as if there were no worker, and is never stored: a table kept in a cache would show a hand
// to the next person holding the phone. When a page cannot be fetched at all, the offline page in the
// visitor's language (the Content-Language of the last page that came) answers instead.
"use strict";

const VERSION = {{ version|tojson }};
const STATIC_PREFIX = {{ static_prefix|tojson }};
const OFFLINE_PAGES = {{ offline_pages|tojson }};
const DEFAULT_LANGUAGE = {{ default_language|tojson }};
const ROOM_PATH = {{ room_path|tojson }};  // a room's page, CODE standing for its code
const ICON = {{ icon|tojson }};
const STATIC_CACHE = "static-" + VERSION;
const OFFLINE_CACHE = "offline-" + VERSION;
const LANGUAGE_KEY = "/offline/spoken";  // the key of the visitor's language, kept in the offline cache
const STATIC_FILE = new RegExp("(?:href|src)=\"(" + STATIC_PREFIX.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + "[^\"]+)\"", "g");

let spoken = null;  // the language last kept, to write it only when it changes

self.addEventListener("install", (event) => {
  event.waitUntil(installed());
});

async function installed() {
  const offline = await caches.open(OFFLINE_CACHE);
  const needed = new Set();
  for (const path of Object.values(OFFLINE_PAGES)) {
    const response = await fetch(path, { cache: "no-cache", credentials: "omit" });
    if (!response.ok) throw new Error("the offline page " + path + " answered " + response.status);
    for (const found of (await response.clone().text()).matchAll(STATIC_FILE)) needed.add(found[1]);
    await offline.put(path, response);
  }
  // The offline page's own style and scripts, so that it shows as it should with no network.
  await (await caches.open(STATIC_CACHE)).addAll([...needed]);
  await self.skipWaiting();
}

// It does not claim the pages already open (clients.claim()): a page claimed while it sits in the
// back/forward cache is dropped from it, and the table would load afresh instead of coming back at once.
// Each page loaded after the worker is active is the worker's.
self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    const kept = [STATIC_CACHE, OFFLINE_CACHE];
    for (const name of await caches.keys()) {
      if (!kept.includes(name)) await caches.delete(name);
    }
  })());
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname.startsWith(STATIC_PREFIX)) {
    event.respondWith(staticFile(request));
  } else if (request.mode === "navigate") {
    event.respondWith(page(event));
  }
  // Anything else the browser fetches itself, as without a worker.
});

async function staticFile(request) {
  const cache = await caches.open(STATIC_CACHE);
  const kept = await cache.match(request);
  if (kept) return kept;
  const response = await fetch(request);
  if (response.status === 200 && response.type === "basic") await cache.put(request, response.clone());
  return response;
}

async function page(event) {
  let response;
  try {
    response = await fetch(event.request);
  } catch (error) {
    return offlinePage();
  }
  const language = response.headers.get("Content-Language");
  if (language && language !== spoken && Object.hasOwn(OFFLINE_PAGES, language)) {
    spoken = language;
    event.waitUntil(caches.open(OFFLINE_CACHE).then((cache) => cache.put(LANGUAGE_KEY, new Response(language))));
  }
  return response;
}

async function offlinePage() {
  const cache = await caches.open(OFFLINE_CACHE);
  const kept = await cache.match(LANGUAGE_KEY);
  const language = kept ? await kept.text() : browserLanguage();
  const found = await cache.match(OFFLINE_PAGES[language] || OFFLINE_PAGES[DEFAULT_LANGUAGE]);
  return found || Response.error();
}

function browserLanguage() {
  for (const tag of self.navigator.languages || []) {
    const code = tag.split("-")[0].toLowerCase();
    if (Object.hasOwn(OFFLINE_PAGES, code)) return code;
  }
  return DEFAULT_LANGUAGE;
}

// ---- Turn notifications (Web Push, issue 40). A push carries JSON from the server: the room's code, its page
// and the words to show (title, body), never a card or a hand. The notification's tag is the room, so a newer
// one for the same table replaces the one before.
self.addEventListener("push", (event) => {
  event.waitUntil(notify(event.data));
});

async function notify(data) {
  let message = {};
  try {
    message = data ? data.json() : {};
  } catch (error) {
    message = {};  // not JSON: shown with the site's name alone
  }
  const room = typeof message.room === "string" && /^[A-Za-z0-9]{1,16}$/.test(message.room) ? message.room : null;
  const title = typeof message.title === "string" && message.title ? message.title : self.registration.scope;
  const options = {
    body: typeof message.body === "string" ? message.body : "",
    tag: room || "cucumber",
    renotify: true,
    lang: typeof message.lang === "string" ? message.lang : "",
    icon: ICON,
    badge: ICON,
    data: { url: room ? ROOM_PATH.replace("CODE", room) : "/" },
  };
  await self.registration.showNotification(title, options);
}

// A click opens the table: a window already showing it comes to the front; otherwise a new window opens on it,
// or, where the browser refuses one (an installed app on a phone may keep to one window), a window of the
// site goes there.
self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const opened = openRoom(event.notification);
  try {
    event.waitUntil(opened);
  } catch (error) {
    // An event dispatched by a script, not the browser, cannot be waited for; the table opens all the same.
  }
});

async function openRoom(notification) {
  const path = notification.data && typeof notification.data.url === "string" ? notification.data.url : "/";
  const target = new URL(path, self.location.origin);
  if (target.origin !== self.location.origin) return null;
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const showing = windows.find((client) => new URL(client.url).pathname === target.pathname);
  if (showing) return showing.focus().catch(() => showing);
  try {
    const opened = await self.clients.openWindow(target.href);
    if (opened) return opened;
  } catch (error) {
    // Refused: go on with a window of the site.
  }
  // Only a window this worker controls may be sent elsewhere.
  const [ours] = await self.clients.matchAll({ type: "window" });
  if (!ours) return null;
  const moved = await ours.navigate(target.href).catch(() => null);
  if (moved) await moved.focus().catch(() => null);
  return moved;
}
