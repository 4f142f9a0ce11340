// The site's service worker: the page and its bench work offline after one visit.
// sitebuild/startup/offline.py writes it to /sw.js with this build's files filled in (BUILD, FILES,
// SHELL); its scope is the site's root, wherever the site is hosted. docs/architecture.md, "Offline".
//
// - One cache per build (specdec-<BUILD>), holding only this build's bytes: every file is checked
//   against its hash in FILES before it is stored. Older builds' caches go when this one activates.
// - Pages: the network first (a page from the network is checked against this build's hash);
//   offline, or with no answer from the network within NETWORK_WAIT_MS (a connection that takes
//   requests and answers none: a crowded lecture hall's wifi), the cached page. A page that is not this build's (a new build is deployed, or the
//   development server, which adds its reload script) means this worker is out of date: it
//   empties its cache, so it serves nothing of its own build again. The browser finds the new build's
//   worker itself (its update check after a navigation); this worker never asks for it.
// - Files of this build (by path; a `?v=` version that is not this build's passes through): the
//   cache first, else the network (stored if its bytes are this build's).
// - Pyodide's .wasm (its .xz): the network (the browser's HTTP cache) first, then the cache
//   (see below), also after NETWORK_WAIT_MS without an answer.
// - Anything else (another origin, a host page around an embed, the development server's reload
//   channel, a file this build does not have) is not touched: the browser fetches it as usual.
const BUILD = "__BUILD__";
const FILES = __FILES__; // path below the site's root ("en/specdec/" for a folder's index.html) -> short sha256
const SHELL = __SHELL__; // the paths stored at install: every page, the scripts and styles, Pyodide
const CACHE = `specdec-${BUILD}`;
// Every build's cache, as named above; the page's worker keeps the decoded .wasm in a cache of its
// own (the start contract's wasmCache), good for every build on the same Pyodide.
const BUILD_CACHE = /^specdec-[0-9a-f]{16}$/;
const ROOT = new URL("./", self.location.href).href;
// Named by their content, so the browser's HTTP cache may answer for them without asking.
const IMMUTABLE = /^(py|pyodide)\//;
const WASM = /^pyodide\/.*\.wasm\.xz$/; // the .wasm as the site serves it, an .xz stream
// How long a page or the .wasm waits for the network's answer (its headers) when this worker holds
// a copy: past it the copy is served. The network's answer, when it comes, is not used for that
// visit (a page of a newer build arriving then could otherwise retire this build's files while
// the copy's page still loads them: a mix of two builds).
const NETWORK_WAIT_MS = 4000;
// Set once a page from the network is not this build's: from then on this worker stores nothing.
// The browser may stop this worker and start it again (a fresh `retired`), so a retired worker
// is also known by its cache being gone: it made the cache at install and deletes it on retiring.
let retired = false;

async function isRetired() {
  return retired || !(await caches.has(CACHE));
}

async function shortHash(response) {
  const digest = await crypto.subtle.digest("SHA-256", await response.arrayBuffer());
  return Array.from(new Uint8Array(digest).slice(0, 5), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function isOurs(response, path) {
  return response.ok && response.type === "basic" && (await shortHash(response.clone())) === FILES[path];
}

// Fetch a file of this build and store it, if the bytes are this build's; the response either way.
async function fetchAndKeep(request, path) {
  const response = await fetch(request, { cache: IMMUTABLE.test(path) ? "default" : "no-cache" });
  if (!(await isRetired()) && (await isOurs(response, path))) {
    const cache = await caches.open(CACHE);
    await cache.put(ROOT + path, response.clone());
  }
  return response;
}

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    for (const path of SHELL) {
      const response = await fetch(ROOT + path, { cache: IMMUTABLE.test(path) ? "default" : "no-cache" });
      // The host already serves another build: do not install a mix of the two.
      if (!(await isOurs(response, path))) throw new Error(`${path} is not build ${BUILD}'s`);
      await cache.put(ROOT + path, response);
    }
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (BUILD_CACHE.test(name) && name !== CACHE) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

// The page asks for the files its visit used that this worker did not see (it was not yet in
// control): the language's snapshot. They come from the browser's HTTP cache.
self.addEventListener("message", (event) => {
  const urls = (event.data && event.data.type === "keep" && event.data.urls) || [];
  const paths = urls.map((url) => pathOf(new URL(url, ROOT)));
  if (retired) return;
  event.waitUntil(Promise.all(paths.filter((path) => path !== null && path in FILES).map(async (path) => {
    if (!(await caches.match(ROOT + path, { cacheName: CACHE }))) await fetchAndKeep(ROOT + path, path);
  })).catch(() => {})); // fetchAndKeep stores nothing once this worker is retired
});

function pathOf(url) {
  return url.href.startsWith(ROOT) ? decodeURI(url.pathname).slice(new URL(ROOT).pathname.length) : null;
}

// The network's answer, or the cached copy when the network fails or keeps it waiting past
// NETWORK_WAIT_MS: {response, fromNetwork}. Without a copy, the network's answer however late.
async function networkOrCopy(request, path) {
  const network = fetch(request);
  const cached = await caches.match(ROOT + path, { cacheName: CACHE });
  if (!cached) return { response: await network, fromNetwork: true };
  network.catch(() => {}); // a late failure, once the copy was served, is nobody's business
  let timer;
  const late = new Promise((resolve) => { timer = setTimeout(resolve, NETWORK_WAIT_MS, null); });
  try {
    const response = await Promise.race([network, late]);
    return response ? { response, fromNetwork: true } : { response: cached, fromNetwork: false };
  } catch {
    return { response: cached, fromNetwork: false };
  } finally {
    clearTimeout(timer);
  }
}

async function page(request, path) {
  const { response, fromNetwork } = await networkOrCopy(request, path);
  if (!fromNetwork || retired) return response;
  if (await isOurs(response.clone(), path)) {
    const cache = await caches.open(CACHE);
    await cache.put(ROOT + path, response.clone());
  } else if (response.ok) {
    retired = true; // another build's page: serve and store nothing of this build from now on
    await caches.delete(CACHE);
    // No self.registration.update() here: Chrome counts a worker's own update as work it has in
    // flight, and the new build's worker (skipWaiting) cannot take over while the old one has work,
    // so the two waited on each other for Chrome's five-minute limit while the page stayed open.
  }
  return response;
}

async function file(request, path) {
  const cached = !retired && (await caches.match(ROOT + path, { cacheName: CACHE }));
  return cached || fetchAndKeep(request, path);
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  const path = pathOf(url);
  if (path === null || !(path in FILES)) return;
  if (request.mode === "navigate") {
    event.respondWith(page(request, path));
    return;
  }
  // Pyodide's .wasm (its .xz): the browser's HTTP cache first (its address is immutable); the
  // copy in Cache Storage only when that fails (offline). Measured on the .wasm itself, when the
  // site served it: 1.5 s from the start to Python with Cache Storage first against 1.05 s this way
  // (medians of 6 warm visits, interleaved; 1.2 s with no service worker). A page that has been
  // live here compiles the decoded .wasm the sim worker keeps, and drops its request for the .xz
  // as soon as it finds that copy (wasm-inflate.js).
  if (WASM.test(path)) {
    event.respondWith(networkOrCopy(request, path).then(({ response }) => response));
    return;
  }
  const version = url.searchParams.get("v");
  if (version && version !== FILES[path]) return; // asked for by another build's page
  event.respondWith(file(request, path));
});
