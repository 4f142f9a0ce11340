"""A course site on another origin than the site under test (the site at 127.0.0.1, the course at
localhost), serving the host pages a test writes: the embed's tests and the offline tests use it."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FRAME_WIDTH = 700  # a course page's content column (the dialog's height is for this width and wider)


class CoursePages(ThreadingHTTPServer):
    """A course site on another origin: serves the pages a test puts in `pages` (path -> HTML)."""

    daemon_threads = True

    def __init__(self):
        self.pages: dict[str, str] = {}

        class Handler(BaseHTTPRequestHandler):
            def do_GET(handler):  # noqa: N805
                body = self.pages.get(handler.path.split("?")[0])
                handler.send_response(200 if body else 404)
                handler.send_header("Content-Type", "text/html; charset=utf-8")
                handler.end_headers()
                handler.wfile.write((body or "not found").encode())

            def log_message(handler, *args):  # noqa: N805
                pass

        super().__init__(("127.0.0.1", 0), Handler)


@contextmanager
def course_site():
    """A running CoursePages with `url` on localhost (not 127.0.0.1: another origin)."""
    server = CoursePages()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    server.url = f"http://localhost:{server.server_address[1]}"  # not 127.0.0.1: another origin
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def course_page(frames: list[str], script: str = "", width: int = FRAME_WIDTH) -> str:
    """A plain course page: a heading, the frames in a column `width` px wide, maybe the script,
    and a recorder of every message the frames post (to count them)."""
    recorder = """<script>
      window.posted = [];
      addEventListener("message", function (e) {
        var frames = [].slice.call(document.getElementsByTagName("iframe"));
        window.posted.push({frame: frames.findIndex(function (f) { return f.contentWindow === e.source; }), data: e.data});
      });
    </script>"""
    body = "\n".join(f"<p>Frame {i}</p>\n{code}" for i, code in enumerate(frames))
    # An icon of its own: without one, the browser asks the course's server for /favicon.ico once
    # per profile, and whichever test loads a course page first saw that 404 as a console error.
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Course</title>'
            f'<link rel="icon" href="data:,">{recorder}</head>'
            f'<body style="margin:0"><main style="width:{width}px;margin:0 16px"><h1>Week 3: speculative decoding</h1>'
            f"{body}</main>{script}</body></html>")
