"""What the page's service worker keeps, read in the page (the offline tests and the other engines' smoke tests)."""

# Once the service worker is active and a cache (not `old`) holds this page's snapshot, and `old`
# is gone: the service worker's caches (not the sim worker's, the page's setting wasmCache, which
# keeps the decoded .wasm) and the paths in the one holding it. After 90 s it fails, naming the caches it
# saw (page.evaluate has no timeout of its own: a worker that never caches would hang the suite).
KEPT = """async (old) => {
  const registration = await navigator.serviceWorker.ready;
  const snapshot = new URL(self.specdecSimBoot.settings.snapshot, document.baseURI).href;
  const deadline = performance.now() + 90000;
  for (;;) {
    if (performance.now() > deadline) {
      throw new Error(`no cache but ${old} holds ${snapshot} after 90 s: caches ${JSON.stringify(await caches.keys())}`);
    }
    const builds = async () => (await caches.keys()).filter((name) => name !== self.specdecSimBoot.settings.wasmCache);
    const names = await builds();
    for (const name of names.includes(old) ? [] : names) {
      const cache = await caches.open(name);
      if (await cache.match(snapshot)) {
        return { active: !!registration.active, caches: await builds(),
                 paths: (await cache.keys()).map((r) => new URL(r.url).pathname) };
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}"""
