"""A local server for the network benchmark: the site's own server (sitebuild.serve, with the
built _headers) behind a simulated link, answering as a static host does.

- One link for all responses together: every chunk of every response waits for its turn on a
  shared clock (bits / bandwidth), so six parallel downloads share the bandwidth as on a real
  link instead of each getting all of it.
- A fixed latency before each response (sleep before the status line): the round trip a request
  costs on a phone's link.
- Content-Encoding as a static host applies it: gzip -6 (brotli -q 5 with `brotli=True`, when the
  client accepts it and the brotli module is installed) for text, JSON and wasm; never for files
  that are compressed already (.xz, .gz, .zip, .whl, images, fonts), which go as they are.
- Last-Modified and If-Modified-Since (304), as the warm repeat visit revalidates the pages.

It counts the bytes it sends (headers and bodies) per request, with the time (the machine's clock)
the request arrived, so that a visit's bytes can be those of the requests it made before a moment
(say, the bench going live: what the service worker fetches after it is not part of the start).
"""

from __future__ import annotations

import email.utils
import functools
import gzip
import io
import os
import threading
import time
from dataclasses import dataclass
from http import HTTPStatus
from pathlib import Path
from urllib.parse import unquote, urlsplit

from sitebuild.serve import SiteHandler, make_server

COMPRESSED_AS_IS = (".zip", ".gz", ".whl", ".png", ".jpg", ".woff2", ".xz", ".br")
CHUNK = 16 * 1024


class Link:
    """A shared link: bandwidth (bits/s, None = unlimited) and a latency before each response."""

    def __init__(self, bits_per_s: float | None, latency_s: float):
        self.bits_per_s = bits_per_s
        self.latency_s = latency_s
        self._lock = threading.Lock()
        self._free_at = 0.0
        self.requests: list[Request] = []

    def request(self, path: str) -> "Request":
        """A new request for path, arrived now; its bytes are counted by send()."""
        with self._lock:
            self.requests.append(Request(time.time(), path))
            return self.requests[-1]

    def send(self, request: "Request", nbytes: int) -> None:
        """Account for nbytes and wait until the link has carried them (after whatever it carries)."""
        with self._lock:
            request.sent += nbytes
            if not self.bits_per_s:
                return
            start = max(time.perf_counter(), self._free_at)
            self._free_at = done = start + nbytes * 8 / self.bits_per_s
        delay = done - time.perf_counter()
        if delay > 0:
            time.sleep(delay)

    def sent_before(self, first: int, moment: float) -> tuple[int, dict[str, int]]:
        """The bytes of requests[first:] that arrived before moment (time.time()), in all and per path."""
        by_path: dict[str, int] = {}
        with self._lock:
            for request in self.requests[first:]:
                if request.arrived <= moment:
                    by_path[request.path] = by_path.get(request.path, 0) + request.sent
        return sum(by_path.values()), by_path


@dataclass
class Request:
    arrived: float  # time.time()
    path: str
    sent: int = 0


class _ThrottledWriter(io.RawIOBase):
    def __init__(self, raw, link: Link):
        self.raw, self.link = raw, link
        self.request = Request(time.time(), "?")  # until the first request line is read

    def writable(self):
        return True

    def write(self, data) -> int:
        view = memoryview(data)
        for at in range(0, len(view), CHUNK):
            part = view[at:at + CHUNK]
            self.link.send(self.request, len(part))
            self.raw.write(part)
        return len(view)

    def flush(self):
        self.raw.flush()


@functools.lru_cache(maxsize=256)
def _encoded(path: str, mtime_ns: int, encoding: str) -> bytes:
    data = Path(path).read_bytes()
    if encoding == "br":
        import brotli

        return brotli.compress(data, quality=5)
    return gzip.compress(data, compresslevel=6, mtime=0)


def brotli_available() -> bool:
    try:
        import brotli  # noqa: F401
    except ImportError:
        return False
    return True


class ThrottledHandler(SiteHandler):
    link: Link
    use_brotli = False
    protocol_version = "HTTP/1.1"  # keep-alive, as browsers and hosts use

    def setup(self):
        super().setup()
        self.wfile = _ThrottledWriter(self.wfile, self.link)

    def do_GET(self):
        self.wfile.request = self.link.request(self.path.split("?")[0])
        if self.link.latency_s:
            time.sleep(self.link.latency_s)
        super().do_GET()

    def _encoding(self, fs_path: str) -> str | None:
        if fs_path.endswith(COMPRESSED_AS_IS) or not os.path.isfile(fs_path):
            return None
        accepted = self.headers.get("Accept-Encoding", "")
        if self.use_brotli and "br" in accepted and brotli_available():
            return "br"
        return "gzip" if "gzip" in accepted else None

    def send_head(self):
        inside = self.site_path()
        if inside is None or unquote(inside) == "/_headers":
            return super().send_head()
        fs_path = self.translate_path(self.path)
        if os.path.isdir(fs_path):
            if not urlsplit(self.path).path.endswith("/"):
                return super().send_head()  # the redirect to the folder
            fs_path = os.path.join(fs_path, "index.html")
        encoding = self._encoding(fs_path)
        if encoding is None:
            return super().send_head()
        stat = os.stat(fs_path)
        since = self.headers.get("If-Modified-Since")
        if since:
            try:
                if int(stat.st_mtime) <= email.utils.parsedate_to_datetime(since).timestamp():
                    self.send_response(HTTPStatus.NOT_MODIFIED)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return None
            except (TypeError, ValueError):
                pass
        body = _encoded(fs_path, stat.st_mtime_ns, encoding)
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", self.guess_type(fs_path))
        self.send_header("Content-Encoding", encoding)
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Last-Modified", self.date_time_string(int(stat.st_mtime)))
        self.end_headers()
        return io.BytesIO(body)


def throttled_server(root: Path, port: int, link: Link, brotli: bool = False):
    """A threaded server for root on 127.0.0.1:port behind link (serve_forever it in a thread)."""
    handler_class = type("Throttled", (ThrottledHandler,), {"link": link, "use_brotli": brotli})
    handler = functools.partial(handler_class, directory=str(root))
    server = make_server(root, "127.0.0.1", port, verbose=False, handler=handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
