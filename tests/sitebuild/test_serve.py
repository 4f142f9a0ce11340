"""The local servers answer as a static host does: the headers `_headers` gives each path, the
404 page with status 404 for a missing path, no folder listings, the MIME types of Pyodide's files, and
the site under a sub-path. `build.py serve` does the same, with its reload tags in the 404 page."""

from __future__ import annotations

import functools
import shutil
import socket
import struct
import threading
import urllib.error
import urllib.request
from contextlib import contextmanager

import pytest

from sitebuild import header_rules, headers
from sitebuild.devserver import BuildState, DevHandler, saved_since
from sitebuild.serve import make_server


@contextmanager
def serving(root, prefix="/", handler=None):
    server = make_server(root, "127.0.0.1", 0, verbose=False, handler=handler, prefix=prefix)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def get(url: str, method: str = "GET"):
    """(status, headers, body) without following redirects."""
    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(urllib.request.Request(url, method=method), timeout=30) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers, err.read()


@pytest.fixture(scope="module")
def site(built_site, tmp_path_factory):
    """A copy of the built site (the tests leave the shared one alone)."""
    root = tmp_path_factory.mktemp("served") / "site"
    shutil.copytree(built_site, root)
    return root


@pytest.fixture(scope="module")
def url(site):
    with serving(site) as address:
        yield address


@pytest.mark.parametrize("path", ["/no-such-page", "/en/specdec/nope.html", "/embed/zh/nope/", "/pyodide/nope.js"])
def test_a_missing_path_gets_the_404_page_with_status_404(url, site, path):
    status, sent, body = get(url + path)
    assert status == 404
    assert sent["Content-Type"] == "text/html; charset=utf-8"
    assert body == (site / "404.html").read_bytes()


def test_the_404_page_carries_the_headers_of_the_path_asked_for(url):
    assert "frame-ancestors *" in get(url + "/embed/en/nope")[1]["Content-Security-Policy"]
    assert "frame-ancestors 'self'" in get(url + "/en/nope")[1]["Content-Security-Policy"]


def test_a_head_request_for_a_missing_path_is_a_404_without_a_body(url):
    status, _, body = get(url + "/en/nope", "HEAD")
    assert status == 404 and body == b""


@pytest.mark.parametrize("path", ["/en/", "/embed/", "/static/"])
def test_a_folder_without_an_index_is_not_listed(url, path):
    status, _, body = get(url + path)
    assert status == 404 and b"Directory listing" not in body


def test_the_headers_file_itself_is_not_served(url):
    assert get(url + "/_headers")[0] == 404


def served(site, path: str) -> str:
    """A path of the site; a glob (the start files' names carry their content's hash) names one file."""
    if "*" not in path:
        return path
    (found,) = site.glob(path.lstrip("/"))
    return "/" + found.relative_to(site).as_posix()


@pytest.mark.parametrize("path", ["/", "/en/specdec/", "/embed/zh/specdec/", "/static/js/startup/sim-worker.js",
                                  "/models/en.json", "/py/python_stdlib.*.zip", "/py/zh.*.snapshot.xz",
                                  "/py/sim.*/*.whl", "/robots.txt", "/404.html"])
def test_each_path_gets_the_headers_the_file_gives_it(url, site, path):
    path = served(site, path)
    status, sent, _ = get(url + path)
    assert status == 200
    rules = header_rules.parse((site / headers.FILE).read_text(encoding="utf-8"))
    for name, value in header_rules.response_headers(rules, path):
        assert sent.get_all(name) == [value], name


@pytest.mark.parametrize("path,cache", [
    ("/en/specdec/", "no-cache"),
    ("/static/js/startup/sim-worker.js", "no-cache"),
    ("/py/en.*.snapshot.xz", "public, max-age=31536000, immutable"),
    ("/pyodide/v*/pyodide.asm.wasm.xz", "public, max-age=31536000, immutable"),
])
def test_cache_control_is_the_files_or_else_no_cache(url, site, path, cache):
    """_headers keeps Pyodide's files and the start files for good; the server asks for everything else again."""
    assert get(url + served(site, path))[1].get_all("Cache-Control") == [cache]


@pytest.mark.parametrize("path,mime", [
    ("/py/python_stdlib.*.zip", "application/zip"),
    ("/py/en.*.snapshot.xz", "application/x-xz"),
    ("/py/sim.*/*.whl", "application/zip"),
    ("/py/sim.*/pyodide-lock.json", "application/json"),
    ("/robots.txt", "text/plain; charset=utf-8"),
    ("/models/zh.json", "application/json"),
    ("/static/js/page.js", "text/javascript"),
])
def test_mime_types(url, site, path, mime):
    status, sent, _ = get(url + served(site, path))
    assert status == 200 and sent["Content-Type"] == mime
    assert sent["Content-Encoding"] is None  # the worker decodes .xz itself


def test_the_module_type_pyodide_needs_and_the_wasms_stream(url, site):
    version = next(site.glob("pyodide/v*/")).name
    sent = get(f"{url}/pyodide/{version}/pyodide.asm.wasm.xz")[1]
    assert sent["Content-Type"] == "application/x-xz" and sent["Content-Encoding"] is None
    assert get(f"{url}/pyodide/{version}/pyodide.mjs")[1]["Content-Type"] == "text/javascript"


def test_under_a_sub_path(site):
    with serving(site, prefix="/courses/specdec/") as address:
        status, sent, _ = get(address + "/courses/specdec/embed/en/specdec/")
        assert status == 200 and "frame-ancestors *" in sent["Content-Security-Policy"]
        assert get(address + "/courses/specdec/zh/nope")[2] == (site / "404.html").read_bytes()
        status, sent, _ = get(address + "/courses/specdec")
        assert status == 301 and sent["Location"] == "/courses/specdec/"
        # Outside the sub-path is not the site: a bare 404, none of its headers.
        status, sent, body = get(address + "/en/specdec/")
        assert status == 404 and "Content-Security-Policy" not in sent and body != (site / "404.html").read_bytes()


def test_the_dev_server_sends_the_404_page_with_its_reload_tags(site):
    handler = type("BoundDevHandler", (DevHandler,), {"state": BuildState(site)})
    with serving(site, handler=functools.partial(handler, directory=str(site))) as address:
        status, sent, body = get(address + "/en/specdec/typo/")
        assert status == 404
        assert b"/__specdec__/reload.js" in body and b"Page not found" in body
        assert "frame-ancestors 'self'" in sent["Content-Security-Policy"]


def test_a_save_made_while_the_dev_server_builds_is_caught_up(tmp_path):
    """The watcher starts after the first build: saved_since finds what was saved meanwhile
    (and not what only the tools write, like bytecode), so the server rebuilds for it."""
    import os

    site, single = tmp_path / "site", tmp_path / "build.py"
    (site / "en").mkdir(parents=True)
    old, new, cache = site / "en" / "01.md", site / "en" / "02.md", site / "en" / "x.pyc"
    for path in (old, new, cache, single):
        path.write_text("text", encoding="utf-8")
    os.utime(old, (1_000, 1_000))
    os.utime(single, (1_000, 1_000))
    assert saved_since([site, single], 2_000) == [new]
    os.utime(single, (3_000, 3_000))
    assert saved_since([site, single], 2_000) == sorted([new, single])


def test_a_burst_of_connections_is_queued_not_dropped(tmp_path):
    """A page opens its files several at a time, each on its own connection, while its service worker
    fetches the rest: 40 connections made while the server accepts none must all be queued at once
    (with socketserver's backlog of 5 the rest wait for TCP's retry, a second or more)."""
    server = make_server(tmp_path, "127.0.0.1", 0, verbose=False)  # not serving: nothing is accepted
    sockets = []
    try:
        for _ in range(40):
            connection = socket.socket()
            connection.settimeout(0.5)
            sockets.append(connection)
            connection.connect(server.server_address)  # times out once the queue is full
    finally:
        for connection in sockets:
            connection.close()
        server.server_close()


def test_a_request_the_browser_drops_mid_answer_leaves_no_traceback(tmp_path, capsys):
    """A client that resets its connection while the answer is being sent (as a browser drops a
    request it no longer needs) makes the server's write fail: that is said nowhere, while any other
    error in a request still prints its traceback."""
    (tmp_path / "big.bin").write_bytes(bytes(32 << 20))  # more than loopback's buffers hold
    server = make_server(tmp_path, "127.0.0.1", 0, verbose=False)
    closed = threading.Event()  # set once a request is over, its error (if any) handled
    shutdown_request = server.shutdown_request
    server.shutdown_request = lambda request: (shutdown_request(request), closed.set())
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        client = socket.create_connection(server.server_address)
        client.sendall(b"GET /big.bin HTTP/1.0\r\n\r\n")
        assert client.recv(1024).startswith(b"HTTP/1.0 200")  # the answer has begun
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        client.close()  # closed with a reset, not a goodbye
        assert closed.wait(60)
    finally:
        server.shutdown()
        server.server_close()
    assert "Traceback" not in capsys.readouterr().err
    try:
        raise ValueError("a fault of the server's own")
    except ValueError:
        server.handle_error(None, ("127.0.0.1", 1))
    assert "ValueError: a fault of the server's own" in capsys.readouterr().err
