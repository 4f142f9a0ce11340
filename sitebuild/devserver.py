"""`build.py serve`: build, serve, watch the sources, rebuild on every save, reload the open pages.

The reload channel lives only here, never in the built files: this server adds one same-origin
script and style sheet to each HTML page it sends (the site's CSP allows scripts from 'self', and
nothing inline is added), and answers /__specdec__/events with server-sent events: "reload"
after a build that changed the site, "failed" with the error when a rebuild fails (the page shows
it over the last good site, which is still served), "ok" when a failure is fixed without a change.

A change to Python code (the sim, the build, the corpus code) restarts the whole server, since
a running process cannot drop the modules it has imported; open pages reconnect by themselves.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
import threading
import time
import traceback
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from .errors import BuildError
from .output import MARKER
from .pipeline import Options, build
from .serve import SiteHandler, make_server

REPO = Path(__file__).resolve().parent.parent
CLIENT = Path(__file__).with_name("dev_client")
PREFIX = "/__specdec__/"
CODE = ("sim", "corpus", "sitebuild", "build.py")
KEEPALIVE_S = 15


class BuildState:
    """The last build's outcome, which every open page's event stream waits on."""

    def __init__(self, out: Path):
        self.out = out
        self.changed = threading.Condition()
        self.version = 0
        self.error: str | None = None
        self.build_id = self.current_build_id()

    def current_build_id(self) -> str:
        """Names the site being served: the hash of its marker's file list."""
        try:
            files = json.loads((self.out / MARKER).read_text(encoding="utf-8"))["files"]
        except (OSError, ValueError, KeyError):
            return "none"
        return hashlib.sha256(json.dumps(files, sort_keys=True).encode()).hexdigest()[:16]

    def publish(self, error: str | None) -> None:
        with self.changed:
            self.error = error
            if error is None:
                self.build_id = self.current_build_id()
            self.version += 1
            self.changed.notify_all()

    def wait(self, seen_version: int, timeout: float):
        """(version, build_id, error) once something newer than seen_version happened, else None."""
        with self.changed:
            if not self.changed.wait_for(lambda: self.version != seen_version, timeout):
                return None
            return self.version, self.build_id, self.error


class DevHandler(SiteHandler):
    """The production headers, plus the reload channel and its script in every HTML page."""

    state: BuildState

    def do_GET(self) -> None:
        route = urlsplit(self.path).path
        if route.startswith(PREFIX):
            return self.dev_endpoint(route[len(PREFIX):])
        path = Path(self.translate_path(self.path))
        if path.is_dir() and route.endswith("/"):
            path = path / "index.html"
        if path.suffix == ".html" and path.is_file():
            return self.send_html(path.read_bytes())
        if not path.exists() and self.state.error and route.endswith(("/", ".html")):
            return self.send_html(b"<!doctype html><title>specdec: build failed</title><h1>No site yet</h1>", 503)
        return super().do_GET()

    def send_html(self, body: bytes, status: int = 200) -> None:
        """Every HTML page, the 404 page included, with the reload channel's two tags."""
        tags = (f'<link rel="stylesheet" href="{PREFIX}overlay.css">'
                f'<script src="{PREFIX}reload.js?build={self.state.build_id}" defer></script>')
        at = body.find(b"</head>")
        at = at if at >= 0 else 0
        super().send_html(body[:at] + tags.encode() + body[at:], status)

    def dev_endpoint(self, name: str) -> None:
        if name == "events":
            return self.event_stream()
        files = {"reload.js": "text/javascript", "overlay.css": "text/css"}
        if name not in files:
            return self.send_error(404)
        body = (CLIENT / name).read_bytes()
        self.send_response(200)
        self.send_header("Content-Type", f"{files[name]}; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def event_stream(self) -> None:
        seen_build = parse_qs(urlsplit(self.path).query).get("build", [""])[0]
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        version = -1  # anything: the first wait reports the present state
        try:
            self.wfile.write(b"retry: 500\n\n")
            while True:
                news = self.state.wait(version, KEEPALIVE_S)
                if news is None:
                    self.wfile.write(b": still here\n\n")
                else:
                    version, build_id, error = news
                    if error is not None:
                        self.send_event("failed", {"message": error})
                    elif build_id != seen_build:
                        self.send_event("reload", {"build": build_id})
                    else:
                        self.send_event("ok", {})
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            return

    def send_event(self, name: str, data: dict) -> None:
        self.wfile.write(f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode())


def watched_paths(opts: Options) -> list[Path]:
    """The content, the templates, the code and the books."""
    paths = [opts.site, opts.templates, *(REPO / name for name in CODE), opts.corpus]
    return [p for p in paths if p.exists()]


def is_code(path: Path) -> bool:
    return path.suffix == ".py"


def saved_since(paths: list[Path], since: float) -> list[Path]:
    """Watched files saved after `since`: a save made while the server built, before its watcher
    ran, which the watcher never hears of."""
    from watchfiles import Change, DefaultFilter

    keep = DefaultFilter()
    found = []
    for root in paths:
        for path in [root] if root.is_file() else root.rglob("*"):
            try:
                if path.is_file() and path.stat().st_mtime > since and keep(Change.modified, str(path)):
                    found.append(path)
            except OSError:
                continue
    return sorted(found)


def rebuild(opts: Options, memo: dict, state: BuildState | None = None, show_traceback: bool = False,
            quiet: bool = False):
    """Build once, say how it went in the terminal, and tell the open pages (if serving).
    The first build (no state yet) says its stages; a rebuild, its summary alone."""
    say = None if quiet or state is not None else (lambda line: print(line, flush=True))
    try:
        result = build(opts, memo, say)
    except BuildError as err:
        if show_traceback:
            traceback.print_exception(err)
        print(f"build failed: {err}", file=sys.stderr, flush=True)
        if err.exit_code == 1 and opts.out.exists():
            print("(still serving the last good site)", file=sys.stderr, flush=True)
        if state:
            state.publish(str(err))
        return err
    if say:
        print("\n".join(result.reports))
    if not quiet:
        print(result.summary, flush=True)
    if state:
        state.publish(None)
    return None


def restart(port: int, why: Path) -> None:
    """Run the server again from scratch, on the same port, with the code as it is now."""
    print(f"code changed ({why.relative_to(REPO) if REPO in why.parents else why}): restarting", flush=True)
    argv = [sys.executable, str(REPO / "build.py"), *sys.argv[1:], "--port", str(port)]
    os.execv(sys.executable, argv)


def serve(opts: Options, host: str, port: int, show_traceback: bool = False, quiet: bool = False) -> int:
    """Build, serve opts.out, and rebuild it on every change under the watched folders.

    Returns only on Ctrl+C (0) or when the output folder is refused (2).
    """
    import watchfiles

    opts.out = opts.out.resolve()
    memo: dict = {}  # the models and figures, kept while only content and templates change
    opts.force = True  # a fresh site, and a warm memo for the first save
    began = time.time()
    first = rebuild(opts, memo, None, show_traceback, quiet)
    opts.force = False
    if first is not None and first.exit_code != 1:
        return first.exit_code
    state = BuildState(opts.out)
    if first is not None:
        state.publish(str(first))
    handler = type("BoundDevHandler", (DevHandler,), {"state": state})
    server = make_server(opts.out, host, port, handler=functools.partial(handler, directory=str(opts.out)))
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    watched = watched_paths(opts)
    watching = False
    try:
        # yield_on_timeout: the first (empty) answer comes once the watcher runs, and only then
        # does the server say it is serving, after catching up on saves made while it built.
        for changes in watchfiles.watch(*watched, step=50, rust_timeout=500, yield_on_timeout=True):
            if not watching:
                watching = True
                print(f"serving http://{host}:{port}/en/specdec/ and /zh/specdec/; rebuilding on every "
                      f"change (Ctrl+C stops)", flush=True)
                changes = {(None, str(p)) for p in saved_since(watched, began)}
            if not changes:
                continue
            paths = sorted(Path(p) for _, p in changes)
            code = next((p for p in paths if is_code(p)), None)
            if code is not None:
                server.server_close()
                restart(port, code)
            rebuild(opts, memo, state, show_traceback, quiet)
    except KeyboardInterrupt:
        pass
    finally:
        server.shutdown()
    return 0
