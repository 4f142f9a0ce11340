"""browser_perf.py --network: cold and warm visits over simulated links, served as a host serves.

The site (and the bare page beside it: the npm package's loadPyodide() with its own
python_stdlib.zip and lock) is served by nginx over TLS (host_server.py) in two ways side by side,
HTTP/1.1 with gzip and HTTP/2 with brotli, each behind the same simulated links (localhost,
20 Mbit/s + 40 ms, 5 Mbit/s + 80 ms: host_server.LinkProxy). In each round, interleaved, for every
link and protocol: a cold visit of the bare page and of the full page until the bench is live (and
of --compare-site's, the build before a change), each in a new browser profile once that browser is
idle (browser_perf.wait_until_idle), then two warm visits in the same profile: one at once (while
the page's service worker, registered once the bench is live, is still storing the site's files
for offline use) and one after it has stored them (a reader's next visit). Medians and ratios page / bare within the run (the machine is shared
and noisy: only the ratios travel); the requests and the bytes on the wire until live, from
nginx's log; and the bytes of every file of the page's cold visit at 20 Mbit/s on each protocol.
"""

from __future__ import annotations

import os
import shutil
import statistics
import tempfile
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

from host_server import PROTOCOLS, Certificate, LinkProxy, Nginx, chromium_flags, precompress

LINKS = (("localhost", None, 0.0), ("20 Mbit/s, 40 ms", 20e6, 0.040), ("5 Mbit/s, 80 ms", 5e6, 0.080))
TARGETS = {"localhost": 0.4, "20 Mbit/s, 40 ms": 0.6, "5 Mbit/s, 80 ms": 0.8}  # page / bare, issues 24 and 40
WARM_TARGET_S = 1.0
REQUESTS_TARGET = 15
BYTES_TARGET_MB = 7.0


@dataclass
class Served:
    """One site on one protocol behind one link: its address and the nginx that logs it."""
    nginx: Nginx
    protocol: str
    proxy: LinkProxy

    @property
    def root(self) -> str:
        return f"https://127.0.0.1:{self.proxy.port}/"

    def requests_between(self, began: float, until: float):
        port = self.nginx.ports[self.protocol]
        return [r for r in self.nginx.requests() if r.port == port and began - 0.002 <= r.began <= until]


@dataclass
class Cell:
    """The visits of one kind (bare, page, before) on one link and protocol."""
    cold: list = field(default_factory=list)
    warm: list = field(default_factory=list)  # at once, the service worker still installing
    repeat: list = field(default_factory=list)  # after the service worker has installed


# Until the page's service worker is active (its install, which stores the site's files, is over).
# The page registers it once the bench is live, maybe after the visit's marks are read: `ready`
# waits for that registration too (and never resolves on a page that registers none: the bare one).
INSTALLED = """async () => {
    const registration = await navigator.serviceWorker.ready;
    while (registration.active.state !== 'activated') await new Promise((r) => setTimeout(r, 50));
}"""


def _visit(context, served: Served, path: str, wait_for: str, until_installed: bool = False) -> dict:
    """One visit until live: its time, and the requests it made before it went live (the page's
    clock and nginx's are this machine's), without what it fetches after (the service worker's
    offline copy of the other pages, registered once live)."""
    time.sleep(0.01)
    began = time.time()
    page = context.new_page()
    page.goto(served.root + path)
    page.wait_for_selector(wait_for, timeout=300_000)
    marks = page.evaluate("""() => {
      const m = performance.getEntriesByName('bare:ready')[0] || performance.getEntriesByName('specdec:bench-live')[0];
      const bare = performance.getEntriesByName('bare:ready').length > 0;
      const via = bare ? 'bare' : performance.getEntriesByName('specdec:stage-fallback').length ? 'wheel' : 'snapshot';
      return {ready: m ? m.startTime / 1000 : null, live_at: m ? (performance.timeOrigin + m.startTime) / 1000 : null, via};
    }""")
    if until_installed:  # after the marks: what the visit waited for is measured already
        page.evaluate(INSTALLED)
    page.close()
    time.sleep(0.05)  # nginx logs a request when it is done
    requests = served.requests_between(began, marks.pop("live_at") or time.time())
    by_path: dict[str, int] = {}
    for request in requests:
        by_path[request.file] = by_path.get(request.file, 0) + request.sent
    return {**marks, "bytes": sum(by_path.values()), "requests": len(requests), "by_path": by_path}


def run(playwright, site: Path, lang: str, visits: int, new_context, wait_bare: str, wait_page: str,
        before: Path | None = None, protocols=tuple(PROTOCOLS)) -> None:
    """new_context(playwright, kind, flags): a browser with a new profile, given Chromium's flags.
    before: another build's site (say, the one before a change), visited in the same rounds on its
    own nginx behind the same links."""
    from browser_perf import add_bare_page

    work = Path(tempfile.mkdtemp(prefix="specdec-net-"))
    work.chmod(0o755)  # nginx's workers run as another user when it is started by root
    sites = {"page": _copy(site, work / "page")}
    add_bare_page(sites["page"])
    if before:
        sites["before"] = _copy(before, work / "before")
    started = time.perf_counter()
    for folder in sites.values():
        precompress(folder)
    print(f"brotli -q 11 of both sites' files: {time.perf_counter() - started:.0f} s (kept in .cache/brotli/)")
    certificate = Certificate.make(work)
    flags = chromium_flags(certificate)
    servers = {name: Nginx(folder, certificate, protocols) for name, folder in sites.items()}
    served, proxies = {}, []
    for link, bits, rtt in LINKS:
        for protocol in protocols:
            for name, nginx in servers.items():
                proxy = LinkProxy(nginx.ports[protocol], bits, rtt)
                proxies.append(proxy)
                served[link, protocol, name] = Served(nginx, protocol, proxy)
    kinds = [("bare", "page", "_perf/bare/", wait_bare), ("page", "page", f"{lang}/specdec/", wait_page)]
    if before:
        kinds.append(("before", "before", f"{lang}/specdec/", wait_page))
    cells = {(link, protocol, kind): Cell() for link, _, _ in LINKS for protocol in protocols for kind, *_ in kinds}
    loads = [os.getloadavg()[0]]
    try:
        for _ in range(visits):
            for link, _, _ in LINKS:
                for protocol in protocols:
                    for kind, server, path, wait in kinds:
                        context = new_context(playwright, kind, flags)
                        where = served[link, protocol, server]
                        cold = _visit(context, where, path, wait)
                        warm = _visit(context, where, path, wait, until_installed=kind != "bare")
                        repeat = _visit(context, where, path, wait)
                        context.close()
                        cells[link, protocol, kind].cold.append(cold)
                        cells[link, protocol, kind].warm.append(warm)
                        cells[link, protocol, kind].repeat.append(repeat)
            loads.append(os.getloadavg()[0])
            print(f"round {len(loads) - 1} of {visits} done (load average {loads[-1]:.1f})", flush=True)
    finally:
        for proxy in proxies:
            proxy.stop()
        for nginx in servers.values():
            nginx.stop()
    _print_table(cells, visits, protocols, before is not None, loads)
    _print_files(sites["page"], cells, protocols)
    shutil.rmtree(work, ignore_errors=True)


def _copy(site: Path, to: Path) -> Path:
    shutil.copytree(site, to, ignore=shutil.ignore_patterns("_perf"))
    return to


def _median(rows, key):
    values = [row[key] for row in rows if row[key] is not None]
    return statistics.median(values) if values else float("nan")


def _verdict(warm_s: float) -> str:
    return "met" if warm_s <= WARM_TARGET_S else "MISSED"


def _print_table(cells: dict, visits: int, protocols, with_before: bool, loads: list[float]) -> None:
    print(f"\nbench live, seconds from navigation (bare: its worker's loadPyodide() done); medians of {visits} "
          f"interleaved cold visits each, new profile each (the new browser idle first); warm = a visit at once in the same profile (the page's "
          f"service worker still storing the site's files), repeat = one after it has stored them; requests "
          f"and MB on the wire until live (nginx's log, headers included). The machine is shared: compare "
          f"ratios within this run (load average {', '.join(f'{x:.1f}' for x in loads)} at the start and after each round).")
    print("| link | protocol | bare cold | page cold | page / bare | target | page requests | page MB | bare MB "
          "| bare warm | page warm | page repeat | warm target (warm, repeat) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for link, _, _ in LINKS:
        for protocol in protocols:
            bare, page = cells[link, protocol, "bare"], cells[link, protocol, "page"]
            ratio = _median(page.cold, "ready") / _median(bare.cold, "ready")
            met = "met" if ratio <= TARGETS[link] else "MISSED"
            warm, repeat = _median(page.warm, "ready"), _median(page.repeat, "ready")
            requests = _median(page.cold, "requests")
            print(f"| {link} | {PROTOCOLS[protocol]} | {_median(bare.cold, 'ready'):.2f} s | {_median(page.cold, 'ready'):.2f} s "
                  f"| {ratio:.2f}x | <= {TARGETS[link]}x {met} | {requests:.0f} ({'met' if requests <= REQUESTS_TARGET else 'MISSED'}) "
                  f"| {_median(page.cold, 'bytes') / 1e6:.2f} | {_median(bare.cold, 'bytes') / 1e6:.2f} "
                  f"| {_median(bare.warm, 'ready'):.2f} s | {warm:.2f} s | {repeat:.2f} s | {_verdict(warm)}, {_verdict(repeat)} |")
    if with_before:
        print("\nthe same rounds, the build before (--compare-site):")
        print("| link | protocol | before cold | before / bare | before requests | before MB | before warm "
              "| page / before cold | page / before warm |")
        print("|---|---|---|---|---|---|---|---|---|")
        for link, _, _ in LINKS:
            for protocol in protocols:
                bare, page, old = (cells[link, protocol, k] for k in ("bare", "page", "before"))
                print(f"| {link} | {PROTOCOLS[protocol]} | {_median(old.cold, 'ready'):.2f} s "
                      f"| {_median(old.cold, 'ready') / _median(bare.cold, 'ready'):.2f}x | {_median(old.cold, 'requests'):.0f} "
                      f"| {_median(old.cold, 'bytes') / 1e6:.2f} | {_median(old.warm, 'ready'):.2f} s "
                      f"| {_median(page.cold, 'ready') / _median(old.cold, 'ready'):.2f}x "
                      f"| {_median(page.warm, 'ready') / _median(old.warm, 'ready'):.2f}x |")
    vias = sorted({row["via"] or "?" for (_, _, kind), cell in cells.items() if kind != "bare" for row in cell.cold})
    print(f"start path of the pages' cold visits: {', '.join(vias)}; targets: requests until live <= {REQUESTS_TARGET}, "
          f"bytes <= {BYTES_TARGET_MB} MB, warm <= {WARM_TARGET_S} s")


def _print_files(site: Path, cells: dict, protocols) -> None:
    """Every file of the page's first cold visit at 20 Mbit/s, with the bytes each protocol sent
    for it (headers included)."""
    link = LINKS[1][0]
    sent = {protocol: cells[link, protocol, "page"].cold[0]["by_path"] for protocol in protocols}
    paths = sorted({path for by_path in sent.values() for path in by_path},
                   key=lambda path: -max(by_path.get(path, 0) for by_path in sent.values()))
    print(f"\nfiles of a cold visit to the page until live ({link}): the file's size, and the bytes sent")
    print("| path | file kB | " + " | ".join(f"{PROTOCOLS[p]} kB" for p in protocols) + " |")
    print("|---|---|" + "---|" * len(protocols))
    totals = {protocol: 0 for protocol in protocols}
    size_total = 0
    for path in paths:
        file = site / urllib.parse.unquote(path).lstrip("/")
        if file.is_dir():
            file = file / "index.html"
        size = file.stat().st_size if file.is_file() else 0
        size_total += size
        cells_text = []
        for protocol in protocols:
            n = sent[protocol].get(path)
            totals[protocol] += n or 0
            cells_text.append(f"{n / 1e3:.1f}" if n is not None else "-")
        print(f"| {path} | {size / 1e3:.1f} | " + " | ".join(cells_text) + " |")
    print(f"| in all | {size_total / 1e3:.1f} | " + " | ".join(
        f"{totals[p] / 1e3:.1f} ({len(sent[p])} files)" for p in protocols) + " |")
