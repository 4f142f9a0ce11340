"""The site served as a production host serves it, for the network benchmark (network_perf.py).

Debian's nginx (with its brotli modules: `apt-get install nginx-light libnginx-mod-http-brotli-filter
libnginx-mod-http-brotli-static`) serves a built site over TLS with a self-signed certificate on
loopback, made here for 127.0.0.1, in one of two ways:

  h1  HTTP/1.1 and gzip -6, as the benchmark served it before (and as a host without HTTP/2 does)
  h2  HTTP/2 and brotli for the types a host compresses (the files precompressed at -q 11, as a
      host that compresses ahead serves them: `brotli_static`), gzip -6 for a browser without brotli

Either way with the headers of the site's `_headers` that a host sends (the immutable caching of
/py/ and /pyodide/, the CSP), `404.html` for a missing path, and each request logged with the bytes
it sent (headers included, as HTTP/2's compressed headers) and when it began.

In front of nginx, a link (LinkProxy): a TCP proxy on its own port that carries the bytes as a
phone's link would, for both protocols alike: every byte down waits its turn on one shared clock
(bits / bandwidth) and then half the round trip, every byte up half the round trip. TLS passes
through it untouched, so the handshake costs its round trips too. Chromium trusts the certificate
by its key's hash (`--ignore-certificate-errors-spki-list`, for the benchmark's own profiles only:
`chromium_flags`): its cache and service workers then work as on a real host, which they do not
with `--ignore-certificate-errors`.

Ports are free ones the system picks; nothing here listens on a fixed port.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import re
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from sitebuild import header_rules  # the built _headers as the hosts read it (browser_perf.py puts the repository on sys.path)

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
MODULES = Path("/usr/lib/nginx/modules")
PROTOCOLS = {"h1": "HTTP/1.1 + gzip", "h2": "HTTP/2 + brotli"}
# What hosts compress (Cloudflare's and Netlify's lists include these); the snapshots (.xz), the
# stdlib (.zip) and the wheel go as they are.
COMPRESSED_TYPES = ("text/html", "text/css", "text/javascript", "application/javascript", "application/json",
                    "application/wasm", "image/svg+xml", "application/xml", "text/plain", "application/manifest+json")
BROTLI_SUFFIXES = (".html", ".css", ".js", ".mjs", ".json", ".wasm", ".svg", ".xml", ".txt")
CACHE = Path(__file__).resolve().parent.parent / ".cache" / "brotli"
CHUNK = 16 * 1024
BUFFER = 64 * 1024  # the proxy's receive buffer from nginx, and nginx's send buffer


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def available() -> str | None:
    """Why the host server cannot run here, or None."""
    if not Path(NGINX).exists():
        return "nginx is not installed (apt-get install nginx-light)"
    for name in ("ngx_http_brotli_filter_module.so", "ngx_http_brotli_static_module.so"):
        if not (MODULES / name).exists():
            return f"{MODULES / name} is missing (apt-get install libnginx-mod-http-brotli-filter libnginx-mod-http-brotli-static)"
    if shutil.which("openssl") is None:
        return "openssl is not installed"
    return None


@dataclass
class Certificate:
    cert: Path
    key: Path
    spki: str  # base64 of the sha256 of the public key: what Chromium is told to trust

    @classmethod
    def make(cls, folder: Path) -> "Certificate":
        cert, key = folder / "cert.pem", folder / "key.pem"
        subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                        "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                        "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
        der = subprocess.run(["openssl", "x509", "-in", str(cert), "-pubkey", "-noout"], check=True,
                             capture_output=True).stdout
        pub = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=der, check=True,
                             capture_output=True).stdout
        return cls(cert, key, base64.b64encode(hashlib.sha256(pub).digest()).decode())


def chromium_flags(certificate: Certificate) -> list[str]:
    """Chromium's flags to trust the benchmark's certificate (needs a profile folder of its own)."""
    return [f"--ignore-certificate-errors-spki-list={certificate.spki}"]


def precompress(site: Path, cache: Path = CACHE) -> None:
    """file.br beside each file a host compresses, at brotli -q 11 (brotli_static sends it). -q 11
    takes about a minute for Pyodide's .wasm here, so each result is kept in .cache/brotli/ under
    the sha256 of the file's bytes. Source maps are left out: only developer tools read them."""
    import brotli

    cache.mkdir(parents=True, exist_ok=True)
    for path in site.rglob("*"):
        if path.is_file() and path.name.endswith(BROTLI_SUFFIXES) and not path.name.endswith(".map"):
            data = path.read_bytes()
            kept = cache / (hashlib.sha256(data).hexdigest() + ".br")
            if not kept.exists():
                kept.write_bytes(brotli.compress(data, quality=11))
            shutil.copyfile(kept, path.with_name(path.name + ".br"))


def _locations(site: Path) -> str:
    """One nginx location per _headers rule (each rule is one top-level file or folder)."""
    blocks = []
    for rule in header_rules.parse((site / "_headers").read_text(encoding="utf-8")):
        pattern, headers = rule.pattern, rule.headers
        if ":" in pattern.split("/")[-1]:  # Netlify's placeholders (/py/:p1): the /py/* rule says the same
            continue
        add = "".join(f'        add_header {name} "{value}" always;\n' for name, value in headers)
        if pattern.endswith("/*"):
            blocks.append(f"    location ^~ {pattern[:-1]} {{\n{add}    }}\n")
        else:
            blocks.append(f"    location = {pattern} {{\n{add}    }}\n")
    return "".join(blocks)


CONFIG = """\
load_module {modules}/ngx_http_brotli_filter_module.so;
load_module {modules}/ngx_http_brotli_static_module.so;
worker_processes 1;
pid {work}/nginx.pid;
error_log {work}/error.log warn;
events {{ worker_connections 256; }}
http {{
    include /etc/nginx/mime.types;
    types {{ text/javascript mjs; application/x-xz xz; }}
    default_type application/octet-stream;
    log_format timing '$msec $request_time $bytes_sent $status $server_port "$request_uri"';
    access_log {work}/access.log timing;
    sendfile on;
    etag on;
    client_body_temp_path {work}/tmp;
    proxy_temp_path {work}/tmp;
    fastcgi_temp_path {work}/tmp;
    uwsgi_temp_path {work}/tmp;
    scgi_temp_path {work}/tmp;
    gzip on;
    gzip_comp_level 6;
    gzip_min_length 256;
    gzip_vary on;
    gzip_types {types};
{servers}
}}
"""

SERVER = """\
    server {{
        listen 127.0.0.1:{port} ssl{http2} sndbuf=64k;
        ssl_certificate {cert};
        ssl_certificate_key {key};
        root {root};
        error_page 404 /404.html;
        brotli_static {brotli};
        brotli {brotli};
        brotli_comp_level 5;
        brotli_types {types};
{locations}    }}
"""


class Nginx:
    """nginx serving `site` on one port per protocol; stop() ends it."""

    def __init__(self, site: Path, certificate: Certificate, protocols=tuple(PROTOCOLS)):
        if why := available():
            raise RuntimeError(why)
        self.site = site
        self.work = Path(tempfile.mkdtemp(prefix="specdec-nginx-"))
        (self.work / "tmp").mkdir()
        self.ports = {protocol: free_port() for protocol in protocols}
        types = " ".join(t for t in COMPRESSED_TYPES if t != "text/html")  # text/html: always, in nginx
        servers = "".join(SERVER.format(
            port=port, http2=" http2" if protocol == "h2" else "", cert=certificate.cert, key=certificate.key,
            root=site, brotli="on" if protocol == "h2" else "off", types=types,
            locations=_locations(site).replace("\n    ", "\n        ").replace("    location", "        location", 1))
            for protocol, port in self.ports.items())
        config = self.work / "nginx.conf"
        config.write_text(CONFIG.format(modules=MODULES, work=self.work, types=types, servers=servers))
        self.process = subprocess.Popen([NGINX, "-p", str(self.work), "-c", str(config), "-g", "daemon off;"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.time() + 10
        while not all(_listening(port) for port in self.ports.values()):
            if self.process.poll() is not None or time.time() > deadline:
                self.process.kill()
                log = self.work / "error.log"
                why = self.process.stderr.read().decode() + (log.read_text() if log.exists() else "")
                shutil.rmtree(self.work, ignore_errors=True)
                raise RuntimeError(f"nginx did not start: {why}")
            time.sleep(0.05)

    def requests(self) -> list["Logged"]:
        """Every request logged so far, in the order they ended."""
        found = []
        for line in (self.work / "access.log").read_text().splitlines():
            m = re.match(r'(\S+) (\S+) (\d+) (\d+) (\d+) "(.*)"$', line)
            if m:
                ended, took = float(m.group(1)), float(m.group(2))
                found.append(Logged(ended - took, int(m.group(3)), int(m.group(4)), int(m.group(5)), m.group(6)))
        return found

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)
        shutil.rmtree(self.work, ignore_errors=True)


@dataclass
class Logged:
    began: float  # time.time() when nginx began to read the request
    sent: int  # bytes sent, headers included
    status: int
    port: int
    path: str  # with its query

    @property
    def file(self) -> str:
        return self.path.split("?")[0]


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


class LinkProxy:
    """A TCP proxy on a free port in front of upstream_port: one shared link down (bits_per_s,
    None: unlimited), half of rtt_s each way. Runs its own event loop in a thread; stop() ends it."""

    def __init__(self, upstream_port: int, bits_per_s: float | None, rtt_s: float):
        self.upstream_port, self.bits_per_s, self.one_way = upstream_port, bits_per_s, rtt_s / 2
        self.free_at = 0.0  # when the shared link is free (loop time)
        self.port = free_port()
        self.loop = asyncio.new_event_loop()
        started = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(started,), daemon=True)
        self.thread.start()
        started.wait()

    def _run(self, started: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)
        self.server = self.loop.run_until_complete(asyncio.start_server(self._connection, "127.0.0.1", self.port))
        started.set()
        self.loop.run_forever()

    async def _connection(self, client_reader, client_writer):
        try:
            # A small receive buffer: nginx then sends as the link carries, as over a real link (a
            # window of about one bandwidth-delay product), not its whole answer into the proxy at
            # once; HTTP/2's priorities then apply to what is still to send.
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, BUFFER)
            sock.setblocking(False)
            await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", self.upstream_port))
            upstream_reader, upstream_writer = await asyncio.open_connection(sock=sock)
        except OSError:
            client_writer.close()
            return
        await asyncio.gather(self._pump(client_reader, upstream_writer, down=False),
                             self._pump(upstream_reader, client_writer, down=True), return_exceptions=True)

    async def _pump(self, reader, writer, down: bool) -> None:
        """Carry bytes one way: each chunk is delivered when the link has carried it (down) plus
        half the round trip, in order; a queue keeps reading while earlier chunks wait."""
        queue: asyncio.Queue = asyncio.Queue()
        loop = asyncio.get_running_loop()

        async def deliver():
            while True:
                at, data = await queue.get()
                if data is None:
                    break
                delay = at - loop.time()
                if delay > 0:
                    await asyncio.sleep(delay)
                writer.write(data)
                await writer.drain()
            writer.close()

        delivering = asyncio.ensure_future(deliver())
        try:
            while data := await reader.read(CHUNK):
                now = loop.time()
                done = now
                if down and self.bits_per_s:
                    start = max(now, self.free_at)
                    self.free_at = done = start + len(data) * 8 / self.bits_per_s
                queue.put_nowait((done + self.one_way, data))
                if done > now:  # read on once the link has carried this chunk: connections share it in turn
                    await asyncio.sleep(done - now)
        except (ConnectionError, OSError):
            pass
        queue.put_nowait((0, None))
        await asyncio.gather(delivering, return_exceptions=True)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.server.close)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5)
