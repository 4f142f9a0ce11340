// Pyodide's .wasm as the site serves it: one .xz stream of it (sitebuild/startup/maker.py,
// compress_wasm: 2.64 MB, against 3.53 MB gzipped and 2.74 MB with brotli -q 11, the encodings a
// host may send the .wasm itself in). The sim worker decodes it here as its bytes come in, with the
// snapshot's decoder (npm xz-decompress, snapshot-inflate.js), and compiles it as it is decoded
// (wasmOf, below): its 0.23-0.29 s of CPU (in Chromium) goes by during the download, and on a fast
// link the start waits for it. Any host serves it under any type: the compile is handed the decoded
// bytes as application/wasm. Where the host sends the site's files with brotli at its best quality
// (the page's guess: sim-boot.js, hostSendsBrotli), the worker fetches the .wasm itself instead,
// which the browser decodes as it comes (brotliWasm); the .xz only if that answer is not brotli.
// Once the page has registered the site's service worker (its offline copy), the worker keeps the
// decoded .wasm too (keepWasm), which later visits compile without decoding.

import { readAll, xzDecoder } from "./snapshot-inflate.js";

const said = (error) => String(error && error.message || error);

// The .wasm's bytes from its .xz at `url`: a promise of a stream of them. Fetched with the global
// fetch, so that a watcher counts its bytes (pyodide-adapter.js, watchFetches). Rejects when it
// cannot be fetched; the stream errors when the .xz is cut short or corrupt (its CRC32 or its
// structure). The errors do not name the file: the caller does.
// signal: an AbortSignal that drops the request (wasmOf, when a kept copy is found).
// Its decoding runs in promise jobs, which hold up the worker's tasks while the .xz is all in (a
// fast link): the snapshot's decoder hears from this worker only after it, and starts up to 0.3 s
// later. Left so: letting the tasks run every 8 ms (a message to itself) gave the two decodings
// side by side, which on the benchmark's two cores went live in about the same time (0.90x-1.00x)
// and took CPU from the page's own start: Lighthouse's mobile blocking time in English was higher
// in each of five comparisons, by 50-100 ms (in Chinese, higher in three of five).
async function wasmStream(url, signal = undefined) {
  let response;
  try {
    response = await globalThis.fetch(url, { signal });
  } catch (error) {
    throw new Error(said(error));
  }
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const { XzReadableStream } = await xzDecoder();
  let ended = false; // every byte of the file was read: an error after that is the stream's own
  const body = response.body.pipeThrough(new TransformStream({ flush() { ended = true; } }));
  const decoded = new XzReadableStream(body).getReader();
  return new ReadableStream({
    async pull(controller) {
      try {
        const { done, value } = await decoded.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        controller.error(new Error(`its .xz stream ${ended ? "is cut short or corrupt" : "failed"}: ${said(error)}`));
      }
    },
    cancel: (reason) => decoded.cancel(reason),
  });
}

// The .wasm itself at `url`, where the host sends it brotli-encoded as application/wasm: its
// response, whose body the browser decodes as it comes. null where the answer is anything else (not
// brotli: gzip would be 0.9 MB more than the .xz, nothing 7 MB more; not application/wasm, which
// the compile refuses; an error) or there is none: the request is dropped before its body is read,
// and the worker fetches the .xz (wasmOf). Fetched with the global fetch, so that a watcher counts
// its bytes. signal: an AbortSignal that drops the request (a kept copy found).
async function brotliWasm(url, signal) {
  const ask = new AbortController();
  signal.addEventListener("abort", () => ask.abort(), { once: true });
  try {
    const response = await globalThis.fetch(url, { signal: ask.signal });
    const type = response.headers.get("Content-Type") || "";
    if (response.ok && response.headers.get("Content-Encoding") === "br" && type.startsWith("application/wasm")) return response;
  } catch {
    // no answer: the .xz's request says what is wrong, if anything is
  }
  ask.abort();
  return null;
}

// The .wasm as it is fetched: {response} (the .wasm itself, where `plain` is its address and the
// host sends it brotli-encoded: brotliWasm) or {stream} (its bytes decoded from the .xz at `source`).
async function fetchWasm(source, plain, signal) {
  const response = plain ? await brotliWasm(plain, signal) : null;
  return response ? { response } : { stream: await wasmStream(source, signal) };
}

// The .wasm compiled as it comes in: {url, source, module, bytes, kept} (promises; bytes: an
// ArrayBuffer of all of it, for the snapshot's delta; kept: whether it came from the kept copy).
// url: the address Pyodide asks for it at (pyodide-adapter.js, wasmAddress, whose
// withPrecompiledWasm answers it with this module); source: the address of its .xz, which a
// failure names (the .wasm's own, once that is what comes); cacheName: the Cache Storage where a
// copy may be kept (keepWasm; null: none); plain: the address of the .wasm itself, asked for first
// (null: the .xz alone; sim-boot.js decides).
// A kept copy is compiled as the Response Cache Storage gives, without decoding (a repeat visit
// after real use went live in 0.96 s that way, 1.06 s decoding again, 0.93 s when the site served
// the .wasm itself); one that fails to compile is deleted, so that a new start decodes the .xz.
// Otherwise the .xz's bytes are handed to the compile as application/wasm, whatever type the host
// gave the .xz; a stream that fails fails both with its own error (the compile's would only say
// that its body failed, as would a Response's arrayBuffer(): "Failed to fetch"). The .xz is asked
// for at once, beside the lookup of a kept copy, and dropped when one is found: asked for after
// the lookup, it left up to 0.1 s later on a first visit (Cache Storage's first use in a profile
// took 5-60 ms), and a start on localhost waited for it (three traced first visits each: live in
// 1.07-1.09 s asked beside, 1.11-1.15 s asked after). lookFirst: a copy is most likely kept (the
// page has the site's service worker: the start field wasmKept), so the .xz is asked for only
// once the lookup found none: a request started to be dropped shows as an aborted one in the
// browser's tools (twice: the worker's and the service worker's), at every visit after the first.
export function wasmOf(url, source, cacheName = null, plain = null, lookFirst = false) {
  const kept = keptWasm(cacheName, url);
  const drop = new AbortController();
  const ask = () => fetchWasm(source, plain, drop.signal);
  const fetched = lookFirst && cacheName ? kept.then((response) => (response ? null : ask())) : ask();
  fetched.catch(() => {}); // awaited below, or dropped
  const chosen = kept.then((response) => {
    if (!response) return fetched.then((got) => (got.response ? fromResponse(got.response) : fromXz(got.stream)));
    drop.abort();
    return fromKept(response, cacheName, url);
  });
  const module = chosen.then((c) => c.module);
  const bytes = chosen.then((c) => c.bytes);
  module.catch(() => {}); // each is awaited where it is used
  bytes.catch(() => {});
  const wasm = { url, source, module, bytes, kept: kept.then(Boolean) };
  fetched.then((got) => { if (got && got.response) wasm.source = plain; }, () => {}); // the file a failure names
  return wasm;
}

function fromXz(decoded) {
  const branches = Promise.resolve(decoded.tee());
  const bytes = branches.then(([, copy]) => readAll(copy)).then((all) => all.buffer);
  const module = branches.then(([code]) => WebAssembly.compileStreaming(
    new Response(code, { headers: { "Content-Type": "application/wasm" } })))
    .catch((error) => bytes.then(() => Promise.reject(error)));
  return { module, bytes };
}

function fromResponse(response) {
  const bytes = response.clone().arrayBuffer();
  return { module: WebAssembly.compileStreaming(response), bytes };
}

function fromKept(response, cacheName, url) {
  const bytes = response.clone().arrayBuffer();
  const module = WebAssembly.compileStreaming(response).catch(async (error) => {
    await forget(cacheName, url);
    throw new Error(`its copy kept in Cache Storage "${cacheName}" (now deleted: Retry decodes the .xz): ${said(error)}`);
  });
  return { module, bytes };
}

// The decoded .wasm kept in Cache Storage `cacheName` under Pyodide's address for it, or null.
async function keptWasm(cacheName, url) {
  if (!cacheName || !globalThis.caches) return null;
  try {
    return (await (await caches.open(cacheName)).match(url)) || null;
  } catch {
    return null; // storage the browser denies this page (a private window, a frame's partition)
  }
}

async function forget(cacheName, url) {
  try {
    await (await caches.open(cacheName)).delete(url);
  } catch {
    // nothing kept, or no storage
  }
}

// Keep the decoded .wasm (an ArrayBuffer) in Cache Storage `cacheName` under Pyodide's address for
// it (url), in place of any other Pyodide's. Rejects where the browser stores nothing.
export async function keepWasm(cacheName, url, bytes) {
  const cache = await caches.open(cacheName);
  for (const request of await cache.keys()) {
    if (request.url !== url) await cache.delete(request);
  }
  await cache.put(url, new Response(bytes, { headers: { "Content-Type": "application/wasm" } }));
}
