"""A local static server with the headers the hosted site sends (CSP, wasm and module MIME types)."""

from __future__ import annotations

import functools
import http.server
from pathlib import Path

from .pages import csp


class SiteHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".wasm": "application/wasm",
        ".json": "application/json",
        ".zip": "application/zip",
        ".svg": "image/svg+xml",
    }

    def end_headers(self) -> None:
        self.send_header("Content-Security-Policy", csp(self.path.startswith("/embed/")))
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Cache-Control", "no-cache")
        super().end_headers()

    def log_message(self, format: str, *args) -> None:  # keep test output quiet
        if getattr(self.server, "verbose", True):
            super().log_message(format, *args)


def make_server(root: Path, host: str = "127.0.0.1", port: int = 8000, verbose: bool = True, handler=None):
    """A threaded server for root; handler defaults to the static SiteHandler."""
    handler = handler or functools.partial(SiteHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer((host, port), handler)
    server.verbose = verbose
    return server
