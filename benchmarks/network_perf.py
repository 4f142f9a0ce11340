"""browser_perf.py --network: cold and warm visits over simulated links (throttled_server.py).

For each link (localhost, 20 Mbit/s + 40 ms, 5 Mbit/s + 80 ms: one server each, gzip as a host
sends it) and each round, interleaved: a cold visit of the bare page (the npm package's
loadPyodide() with its own python_stdlib.zip and lock) and of the full page until the bench is
live, each in a new browser profile, then a warm repeat visit in the same profile. Medians and
ratios page / bare within the run (the machine is shared and noisy: only the ratios travel), the
bytes on the wire until live, and the bytes of every file of the page's cold visit.
"""

from __future__ import annotations

import gzip
import os
import shutil
import statistics
import tempfile
import time
import urllib.parse
from pathlib import Path

from throttled_server import COMPRESSED_AS_IS, Link, brotli_available, throttled_server

LINKS = (("localhost", None, 0.0), ("20 Mbit/s, 40 ms", 20e6, 0.040), ("5 Mbit/s, 80 ms", 5e6, 0.080))
TARGETS = {"localhost": 0.4, "20 Mbit/s, 40 ms": 0.6, "5 Mbit/s, 80 ms": 0.8}  # page / bare, issue 24
WARM_TARGET_S = 1.0
BYTES_TARGET_MB = 7.0
BYTES_STRETCH_MB = 6.34


def _visit(context, link: Link, url: str, wait_for: str, dwell_s: float = 0.0) -> dict:
    """One visit until live. Its bytes are those of the requests it made before it went live (the
    page's clock and the server's are this machine's): what the page needed, without what it
    fetches after (the service worker's offline copy of the other pages, registered once live)."""
    first = len(link.requests)
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector(wait_for, timeout=300_000)
    marks = page.evaluate("""() => {
      const m = performance.getEntriesByName('bare:ready')[0] || performance.getEntriesByName('specdec:bench-live')[0];
      const bare = performance.getEntriesByName('bare:ready').length > 0;
      const via = bare ? 'bare' : performance.getEntriesByName('specdec:stage-fallback').length ? 'wheel' : 'snapshot';
      const worker = Object.fromEntries(performance.getEntriesByType('mark')
        .filter((e) => e.name.startsWith('specdec:worker-')).map((e) => [e.name.slice(15), e.startTime / 1000]));
      return {ready: m ? m.startTime / 1000 : null, live_at: m ? (performance.timeOrigin + m.startTime) / 1000 : null, via, worker};
    }""")
    sent, by_path = link.sent_before(first, marks.pop("live_at") or time.time())
    if dwell_s:
        time.sleep(dwell_s)  # the reader stays on the page before the next visit
    page.close()
    return {**marks, "bytes": sent, "by_path": by_path}


def run(playwright, site: Path, lang: str, visits: int, port_base: int, new_context, use_brotli: bool,
        wait_bare: str, wait_page: str, before: Path | None = None, dwell_s: float = 0.0) -> None:
    """before: another build's site (say, the one before a change), visited in the same rounds on
    servers of its own (ports port_base + 3...) behind the same links. dwell_s: how long the cold
    visit's page stays open once live before the warm visit (0: it follows at once, while the
    service worker installs)."""
    site = _copy_with_bare_page(site)
    servers = []
    results = {}
    kinds = [("bare", "_perf/bare/", wait_bare), ("page", f"{lang}/specdec/", wait_page)]
    if before:
        kinds.append(("before", f"{lang}/specdec/", wait_page))
    for i, (name, bits, latency) in enumerate(LINKS):
        link = Link(bits, latency)
        servers.append(throttled_server(site, port_base + i, link, brotli=use_brotli))
        roots = {"bare": f"http://127.0.0.1:{port_base + i}/", "page": f"http://127.0.0.1:{port_base + i}/"}
        if before:
            servers.append(throttled_server(before, port_base + len(LINKS) + i, link, brotli=use_brotli))
            roots["before"] = f"http://127.0.0.1:{port_base + len(LINKS) + i}/"
        results[name] = {"link": link, "roots": roots,
                         **{f"{kind}_{when}": [] for kind, _, _ in kinds for when in ("cold", "warm")}}
    files = {}
    try:
        for _ in range(visits):
            for name, r in results.items():
                for kind, path, wait in kinds:
                    context = new_context(playwright, kind)
                    cold = _visit(context, r["link"], r["roots"][kind] + path, wait, dwell_s)
                    warm = _visit(context, r["link"], r["roots"][kind] + path, wait)
                    context.close()
                    r[f"{kind}_cold"].append(cold)
                    r[f"{kind}_warm"].append(warm)
                    if kind == "page" and name == LINKS[1][0] and not files:
                        files = cold["by_path"]
    finally:
        for server in servers:
            server.shutdown()
    _print_table(results, visits, use_brotli)
    _print_worker_parts(results)
    _print_files(site, files)
    shutil.rmtree(site.parent, ignore_errors=True)


def _copy_with_bare_page(site: Path) -> Path:
    from browser_perf import add_bare_page

    copy = Path(tempfile.mkdtemp(prefix="specdec-net-")) / "_site"
    shutil.copytree(site, copy, ignore=shutil.ignore_patterns("_perf"))
    add_bare_page(copy)
    return copy


def _median(rows, key):
    values = [row[key] for row in rows if row[key] is not None]
    return statistics.median(values) if values else float("nan")


def _print_table(results: dict, visits: int, use_brotli: bool) -> None:
    load = os.getloadavg()[0]
    encoding = "brotli where accepted, else gzip" if use_brotli else "gzip"
    print(f"\nbench live, seconds from navigation (bare: its worker's loadPyodide() done); medians of {visits} "
          f"interleaved cold visits each, new profile each; warm = a repeat visit in the same profile.\n"
          f"Content-Encoding {encoding}; the machine is shared: compare ratios within this run (load {load:.1f}).")
    head = (f"| link | bare cold | page cold | page / bare | target | bare MB sent | page MB sent "
            f"| bare warm | page warm | page warm MB |")
    print(head)
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, r in results.items():
        bare, page = _median(r["bare_cold"], "ready"), _median(r["page_cold"], "ready")
        ratio = page / bare
        mark = "met" if ratio <= TARGETS[name] else "MISSED"
        page_mb = _median(r["page_cold"], "bytes") / 1e6
        warm = _median(r["page_warm"], "ready")
        print(f"| {name} | {bare:.2f} s | {page:.2f} s | {ratio:.2f}x | <= {TARGETS[name]}x {mark} "
              f"| {_median(r['bare_cold'], 'bytes') / 1e6:.2f} | {page_mb:.2f} "
              f"| {_median(r['bare_warm'], 'ready'):.2f} s | {warm:.2f} s | {_median(r['page_warm'], 'bytes') / 1e6:.2f} |")
    if "before_cold" in next(iter(results.values())):
        print("\nthe same rounds, the build before (--compare-site):")
        print("| link | before cold | before / bare | before MB sent | before warm | page / before |")
        print("|---|---|---|---|---|---|")
        for name, r in results.items():
            bare, old = _median(r["bare_cold"], "ready"), _median(r["before_cold"], "ready")
            print(f"| {name} | {old:.2f} s | {old / bare:.2f}x | {_median(r['before_cold'], 'bytes') / 1e6:.2f} "
                  f"| {_median(r['before_warm'], 'ready'):.2f} s | {_median(r['page_cold'], 'ready') / old:.2f}x |")
    vias = sorted({row["via"] or "?" for r in results.values() for row in r["page_cold"]})
    print(f"start path of the page's cold visits: {', '.join(vias)}; targets: bytes <= {BYTES_TARGET_MB} MB "
          f"(stretch {BYTES_STRETCH_MB}), warm <= {WARM_TARGET_S} s")


# The worker's marks (sim-worker.js: when each part of its start was done), in the order they happen.
WORKER_PARTS = ("evaluated", "start", "pyodide-mjs", "asm-mjs", "wasm-compiled", "snapshot-read", "wasm-instantiated",
                "delta-undone", "restored", "ready")


def _print_worker_parts(results: dict) -> None:
    """Where a visit's time goes: the medians of the worker's marks, seconds from navigation
    (a build without the marks shows n/a)."""
    kinds = [k for k in ("page", "before") if f"{k}_cold" in next(iter(results.values()))]
    print("\nthe worker's start, seconds from navigation (medians of its marks; n/a: a build without them):")
    print("| link | visit | " + " | ".join(WORKER_PARTS) + " |")
    print("|---|---|" + "---|" * len(WORKER_PARTS))
    for name, r in results.items():
        for kind in kinds:
            for when in ("cold", "warm"):
                cells = []
                for part in WORKER_PARTS:
                    values = [row["worker"][part] for row in r[f"{kind}_{when}"] if part in row.get("worker", {})]
                    cells.append(f"{statistics.median(values):.2f}" if values else "n/a")
                print(f"| {name} | {kind} {when} | " + " | ".join(cells) + " |")


def _print_files(site: Path, sent_by_path: dict[str, int]) -> None:
    """Every file of the page's cold visit (20 Mbit/s link): its size, what the server sent
    (headers included), gzip -6 and brotli -q 11 of the file (a host that precompresses)."""
    if not sent_by_path:
        return
    brotli = None
    if brotli_available():
        import brotli
    print("\nfiles of a cold visit to the page (until live): file, sent (gzip, with headers), gzip -6, brotli -q 11")
    print("| path | file kB | sent kB | gzip kB | brotli kB |")
    print("|---|---|---|---|---|")
    totals = [0, 0, 0, 0]
    for path, sent in sorted(sent_by_path.items(), key=lambda item: -item[1]):
        rel = urllib.parse.unquote(path).lstrip("/")
        file = site / rel
        if file.is_dir():
            file = file / "index.html"
        data = file.read_bytes() if file.is_file() else b""
        as_is = path.endswith(COMPRESSED_AS_IS)
        gz = len(data) if as_is else len(gzip.compress(data, 6, mtime=0))
        br = (len(data) if as_is else len(brotli.compress(data, quality=11))) if brotli else None
        totals = [totals[0] + len(data), totals[1] + sent, totals[2] + gz, totals[3] + (br or 0)]
        print(f"| {path} | {len(data) / 1e3:.1f} | {sent / 1e3:.1f} | {gz / 1e3:.1f} | "
              + (f"{br / 1e3:.1f} |" if brotli else "n/a |"))
    print(f"| in all ({len(sent_by_path)} files) | {totals[0] / 1e3:.1f} | {totals[1] / 1e3:.1f} | {totals[2] / 1e3:.1f} | "
          + (f"{totals[3] / 1e3:.1f} |" if brotli else "n/a (pip install brotli) |"))
