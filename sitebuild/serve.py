"""A local static server that answers as the hosted site does: each path gets the headers the
built `_headers` file gives it (read as Cloudflare Pages reads it), the MIME types Pyodide's
files need, the site's 404 page with status 404 for a missing path, and no folder listings.

`prefix` serves the site under a sub-path (https://example.org/courses/specdec/ is prefix
"/courses/specdec/"), as a course server might; paths outside it are plain 404s.
"""

from __future__ import annotations

import functools
import http.server
import sys
from http import HTTPStatus
from pathlib import Path
from urllib.parse import unquote, urlsplit

from . import header_rules
from .headers import FILE as HEADERS_FILE

NOT_FOUND_PAGE = "404.html"


@functools.lru_cache(maxsize=8)
def _rules(path: str, mtime_ns: int) -> list[header_rules.Rule]:
    return header_rules.parse(Path(path).read_text(encoding="utf-8"))


def site_rules(root: Path) -> list[header_rules.Rule]:
    """The rules of root's _headers (re-read when the file changes), or none."""
    path = root / HEADERS_FILE
    try:
        return _rules(str(path), path.stat().st_mtime_ns)
    except FileNotFoundError:
        return []


class SiteHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".wasm": "application/wasm",
        ".json": "application/json",
        ".zip": "application/zip",
        ".whl": "application/zip",
        # A compressed file the page unpacks itself: never sent with Content-Encoding.
        ".xz": "application/x-xz",
        ".svg": "image/svg+xml",
        ".xml": "application/xml",
        ".txt": "text/plain; charset=utf-8",
    }
    prefix = "/"

    def site_path(self) -> str | None:
        """The request's path within the site ('/en/specdec/'), or None outside the prefix."""
        path = urlsplit(self.path).path  # still %-encoded, as translate_path expects
        if path + "/" == self.prefix:
            return ""  # the prefix without its slash: the folder, which redirects to it
        if not path.startswith(self.prefix):
            return None
        return "/" + path[len(self.prefix):]

    def send_head(self):
        inside = self.site_path()
        if inside is None or unquote(inside) == "/" + HEADERS_FILE:  # hosts never serve _headers
            self.send_error(HTTPStatus.NOT_FOUND)
            return None
        return super().send_head()

    def translate_path(self, path: str) -> str:
        inside = self.site_path()
        return super().translate_path(path if inside is None else inside or "/")

    def list_directory(self, path):
        """Hosts answer a folder without index.html with their 404 page, not a listing."""
        self.send_error(HTTPStatus.NOT_FOUND)
        return None

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        page = Path(self.directory) / NOT_FOUND_PAGE
        if code != HTTPStatus.NOT_FOUND or self.site_path() is None or not page.is_file():
            return super().send_error(code, message, explain)
        self.send_html(page.read_bytes(), HTTPStatus.NOT_FOUND)

    def send_html(self, body: bytes, status: int = HTTPStatus.OK) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def end_headers(self) -> None:
        inside = self.site_path()
        sent = []
        if inside is not None:
            sent = header_rules.response_headers(site_rules(Path(self.directory)), inside or "/")
            for name, value in sent:
                self.send_header(name, value)
        if not any(name.lower() == "cache-control" for name, _ in sent):  # what _headers leaves to us
            self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, format: str, *args) -> None:  # keep test output quiet
        if getattr(self.server, "verbose", True):
            super().log_message(format, *args)


class SiteServer(http.server.ThreadingHTTPServer):
    # One connection per request (HTTP/1.0), and a page opens its files six at a time while the
    # service worker fetches the rest: socketserver's default backlog of 5 can overflow, and a
    # dropped connection waits a second or more for its retry.
    request_queue_size = 128

    def handle_error(self, request, client_address) -> None:
        """A browser that drops a request mid-answer (a closed tab; the page's worker dropping the
        .wasm's .xz once it has found its kept copy) is not the server's error: no traceback."""
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)


def make_server(root: Path, host: str = "127.0.0.1", port: int = 8000, verbose: bool = True, handler=None,
                prefix: str = "/"):
    """A threaded server for root at prefix; handler defaults to the static SiteHandler."""
    if not (prefix.startswith("/") and prefix.endswith("/")):
        raise ValueError(f"prefix {prefix!r}: a path that starts and ends with '/'")
    handler = handler or functools.partial(type("PrefixedHandler", (SiteHandler,), {"prefix": prefix}),
                                           directory=str(root))
    server = SiteServer((host, port), handler)
    server.verbose = verbose
    return server
