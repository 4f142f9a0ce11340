"""The worker's start files (sitebuild/startup): the sim wheel and its lock, the trimmed
precompiled stdlib, the snapshots; that making them is deterministic; that sim's imports load
from the trimmed stdlib in Pyodide, and that an import Pyodide cannot satisfy fails the build."""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import shutil
import struct
import lzma
import subprocess
import zipfile
from pathlib import Path

import pytest
from helpers.pyodide_snapshot import ADAPTER, memory_offset, unpack_spans

from sitebuild import assets, startup
from sitebuild.assets import PYODIDE_PACKAGE, pyodide_version, short_hash
from sitebuild.errors import BuildError
from sitebuild.startup import imports, maker, wheel

pytestmark = pytest.mark.long(45)  # it runs Pyodide in Node four times (tests/conftest.py: the order)

SIM = Path(__file__).resolve().parents[2] / "sim"


def one(paths):
    (path,) = list(paths)
    return path


def built_models(built_site: Path) -> dict[str, bytes]:
    return {lang: (built_site / "models" / f"{lang}.json").read_bytes() for lang in ("en", "zh")}


def built_tables(built_site: Path) -> dict[str, bytes]:
    """The readout tables the build opened the snapshots' sessions with (its measurement cache's)."""
    from sim.models import load_language
    from sitebuild.figures.measured import readout_table

    texts = {lang: data.decode("utf-8") for lang, data in built_models(built_site).items()}
    return {lang: readout_table(text, load_language(json.loads(text))).encode("utf-8") for lang, text in texts.items()}


# --- the wheel and the lock ----------------------------------------------------------------------

def test_the_sim_wheel_is_built_by_setuptools_and_byte_stable(tmp_path):
    first = wheel.build_sim_wheel(SIM, "0.1.0", tmp_path / "a")
    second = wheel.build_sim_wheel(SIM, "0.1.0", tmp_path / "b")
    assert first.name == "specdec_sim-0.1.0-py3-none-any.whl"
    assert first.read_bytes() == second.read_bytes()
    with zipfile.ZipFile(first) as archive:
        names = archive.namelist()
        assert "Generator: setuptools" in archive.read("specdec_sim-0.1.0.dist-info/WHEEL").decode()
    assert sorted(n for n in names if n.startswith("sim/")) == sorted(
        p.relative_to(SIM.parent).as_posix() for p in SIM.rglob("*.py") if "__pycache__" not in p.parts)
    assert "sim/bench/__init__.py" in names  # subpackages too


def test_the_lock_records_the_wheel_and_its_sha256(built_site):
    lock_file = one(built_site.glob("py/sim.*/pyodide-lock.json"))
    lock = json.loads(lock_file.read_text())
    stock = json.loads((PYODIDE_PACKAGE / "pyodide-lock.json").read_text())
    assert lock["info"] == stock["info"]  # ABI, platform and Python: Pyodide's loader checks them
    assert list(lock["packages"]) == ["specdec-sim"]
    entry = lock["packages"]["specdec-sim"]
    served = lock_file.parent / entry["file_name"]
    assert hashlib.sha256(served.read_bytes()).hexdigest() == entry["sha256"]
    assert entry["imports"] == ["sim"] and entry["depends"] == []


# --- the trimmed stdlib and the snapshots --------------------------------------------------------

@pytest.mark.adapter("write_pyc_zip")
def test_the_stdlib_is_trimmed_and_precompiled_without_source_checks(built_site):
    with zipfile.ZipFile(one(built_site.glob("py/python_stdlib.*.zip"))) as archive:
        files = [n for n in archive.namelist() if not n.endswith("/")]
        assert files and all(n.endswith(".pyc") for n in files)
        # What sim imports (encodings.utf_8, which Pyodide's start imports, is frozen into CPython 3.15:
        # no file of the zip's there).
        for needed in ("json/__init__.pyc", "random.pyc", "fractions.pyc", "bisect.pyc"):
            assert needed in files
        for left_out in ("tkinter/__init__.pyc", "unittest/__init__.pyc", "csv.pyc", "pydoc.pyc"):
            assert left_out not in files
        assert len(files) < 200  # Pyodide's full stdlib has over 600 modules
        magics = set()
        for name in files:
            header = archive.read(name)[:16]
            magic, flags = header[:4], struct.unpack("<I", header[4:8])[0]
            magics.add(magic)
            assert flags == 0b01, name  # hash-based and unchecked (PEP 552): no .py to compare with
        assert len(magics) == 1


def test_every_file_in_the_folders_kept_for_good_is_named_by_what_it_holds(built_site):
    """_headers lets browsers keep /py/ and /pyodide/ without asking again (sitebuild/headers.py),
    which is safe only because a changed file gets a new name: under /py/ each name carries the
    short hash of its bytes (the wheel and its lock share a folder named by the lock's hash, and
    the lock holds the wheel's sha256); /pyodide/ holds the pinned release in a folder named by
    its version (its .wasm as an .xz stream of it: a copy compressed otherwise holds the same)."""
    files = [p for p in (built_site / "py").rglob("*") if p.is_file()]
    assert len(files) == 5  # stdlib, two snapshots, lock and wheel
    for path in files:
        if path.parent.name.startswith("sim."):
            lock = path.parent / "pyodide-lock.json"
            assert path.parent.name == f"sim.{short_hash(lock.read_bytes())}"
            if path.suffix == ".whl":
                assert hashlib.sha256(path.read_bytes()).hexdigest() in lock.read_text()
        else:
            assert path.name.split(".")[1] == short_hash(path.read_bytes()), path.name
    (release,) = (built_site / "pyodide").iterdir()
    assert release.name == f"v{pyodide_version()}"
    for path in release.iterdir():
        held = lzma.decompress(path.read_bytes()) if path.suffix == ".xz" else path.read_bytes()
        assert held == (PYODIDE_PACKAGE / path.name.removesuffix(".xz")).read_bytes(), path.name


# The built snapshot-inflate.js in Node: the bytes it decodes (xz-decompress, vendored into the
# site), as sha256, given the snapshot's size; and what it says of a stream cut short, of a byte
# changed, and of a size that is not the snapshot's.
READ_SNAPSHOT = """
import fs from "node:fs";
import crypto from "node:crypto";
const [module, file, size] = process.argv.slice(2);
const { inflate } = await import(module);
const data = new Uint8Array(fs.readFileSync(file));
const stream = (bytes, chunk = 65536) => new ReadableStream({
  start(controller) {
    for (let at = 0; at < bytes.length; at += chunk) controller.enqueue(bytes.slice(at, at + chunk));
    controller.close();
  },
});
const said = (promise) => promise.then(() => "decoded", (error) => error.message);
const bytes = await inflate(stream(data, 1000), null, Promise.resolve(Number(size)));
const changed = data.slice();
changed[data.length >> 1] ^= 1;
console.log(JSON.stringify({
  length: bytes.length, sha256: crypto.createHash("sha256").update(bytes).digest("hex"),
  short: await said(inflate(stream(data.subarray(0, data.length - 100)), null, Number(size))),
  changed: await said(inflate(stream(changed), null, Number(size))),
  smaller: await said(inflate(stream(data), null, Number(size) - 1)),
  larger: await said(inflate(stream(data), null, Number(size) + 1)),
  unknown: await said(inflate(stream(data), null, null)),
}));
"""


@pytest.mark.adapter("snapshotMemory", "saveMemory")
def test_snapshots_are_xz_streams_the_page_decodes_as_they_come(built_site, tmp_path):
    """Each snapshot is one .xz stream (CRC32) of the snapshot packed without its long runs of
    zeros (less than half of it is left), whose size the page's settings give (data-snapshot-size);
    the page's own decoder (built static/js/startup/snapshot-inflate.js in Node) decodes it from 1,000-byte
    chunks to the same bytes as Python's lzma and this test's unpacking, and refuses a stream cut
    short, a byte changed (its CRC32 or its structure) and any other size, naming the snapshot."""
    (tmp_path / "read.mjs").write_text(READ_SNAPSHOT)
    module = (built_site / "static/js/startup/snapshot-inflate.js").as_uri()
    for lang in ("en", "zh"):
        path = one(built_site.glob(f"py/{lang}.*.snapshot.xz"))
        data = path.read_bytes()
        assert data[:6] == b"\xfd7zXZ\x00" and data[7] == 1  # the .xz magic; stream flags: CRC32
        packed = lzma.decompress(data, format=lzma.FORMAT_XZ)
        raw = unpack_spans(packed)
        assert len(packed) < len(raw) / 2, (lang, len(packed), len(raw))
        assert memory_offset(raw[: 1 << 20]) > 0  # a Pyodide memory snapshot, as the page's adapter reads one
        page = (built_site / f"{lang}/specdec/index.html").read_text()
        assert re.search(r"data-snapshot-size='(\d+)'", page).group(1) == str(len(raw)), lang
        run = subprocess.run(["node", str(tmp_path / "read.mjs"), module, str(path), str(len(raw))],
                             capture_output=True, text=True, check=True, timeout=120)
        read = json.loads(run.stdout)
        assert (read["length"], read["sha256"]) == (len(raw), hashlib.sha256(raw).hexdigest()), lang
        assert read["short"].startswith("the snapshot's .xz stream: "), read
        assert read["changed"].startswith("the snapshot's .xz stream: "), read
        for other in ("smaller", "larger"):
            given = len(raw) + (1 if other == "larger" else -1)
            assert read[other] == f"the snapshot's .xz stream: the snapshot has {len(raw)} bytes, not the {given} the page gives", read
        assert read["unknown"] == "the snapshot's own size is not known (null)", read


# The page's .wasm path in Node (the sources, beside the site's vendored decoder): wasm-inflate.js's
# wasmOf decodes the .xz served from `file` (a stub of fetch gives it in 1,000-byte chunks) and
# compiles it as it is decoded; the module's export count, the bytes' sha256, and
# what each says of a stream cut short, a byte changed and an HTTP error.
READ_WASM = """
import fs from "node:fs";
import crypto from "node:crypto";
const [folder, file, plain] = process.argv.slice(2);
const { wasmOf } = await import(`${folder}/wasm-inflate.js`);
const data = new Uint8Array(fs.readFileSync(file));
let served = data;
globalThis.fetch = async (url) => (url.endsWith("missing") ? new Response("", { status: 404 }) : new Response(new ReadableStream({
  start(controller) {
    for (let at = 0; at < served.length; at += 1000) controller.enqueue(served.slice(at, at + 1000));
    controller.close();
  },
})));
const said = (promise) => promise.then(() => "read", (error) => String(error.message || error));
const read = async (bytes, url = "https://host/pyodide.asm.wasm.xz") => {
  served = bytes;
  const wasm = wasmOf("https://host/pyodide.asm.wasm", url);
  return { module: await said(wasm.module), bytes: await said(wasm.bytes) };
};
const wasm = wasmOf("https://host/pyodide.asm.wasm", "https://host/pyodide.asm.wasm.xz");
const exports = WebAssembly.Module.exports(await wasm.module).length;
const bytes = new Uint8Array(await wasm.bytes);
const changed = data.slice();
changed[data.length >> 1] ^= 1;
const sha256 = (bytes) => crypto.createHash("sha256").update(new Uint8Array(bytes)).digest("hex");
const cases = {
  exports, length: bytes.length, sha256: sha256(bytes),
  short: await read(data.subarray(0, data.length - 100)),
  changed: await read(changed),
  missing: await read(data, "https://host/missing"),
};
// A kept copy in Cache Storage (a stub whose lookup answers only when told): the .xz is asked for
// before the lookup answers, and dropped once it finds the copy, which is what is compiled; the
// fetch watcher of the page's adapter hears of no request left unanswered.
let asked = null;
let found;
const lookup = new Promise((resolve) => { found = resolve; });
globalThis.fetch = (url, init) => {
  asked = url;
  return new Promise((_, reject) => init.signal.addEventListener("abort", () => reject(new DOMException("dropped", "AbortError"))));
};
const { watchFetches } = await import(`${folder}/pyodide-adapter.js`);
const unanswered = [];
watchFetches({ name: () => null, bytes: () => {}, failed: (url) => unanswered.push(url) });
const copy = new Uint8Array(fs.readFileSync(plain));
globalThis.caches = { open: async () => {
  await lookup;
  return { match: async () => new Response(copy, { headers: { "Content-Type": "application/wasm" } }) };
} };
const fromKept = wasmOf("https://host/pyodide.asm.wasm", "https://host/pyodide.asm.wasm.xz", "specdec-runtime");
const askedFirst = asked;
found();
cases.kept = {
  askedFirst, kept: await fromKept.kept, exports: WebAssembly.Module.exports(await fromKept.module).length,
  sha256: sha256(await fromKept.bytes), unanswered,
};
// Looked up first (the page has the site's service worker: the start field wasmKept): with the copy
// there the .xz is never asked for; with none, it is asked for once the lookup has answered.
asked = null;
const first = wasmOf("https://host/pyodide.asm.wasm", "https://host/pyodide.asm.wasm.xz", "specdec-runtime", null, true);
const foundFirst = { asked, exports: WebAssembly.Module.exports(await first.module).length, kept: await first.kept };
foundFirst.asked = asked;
globalThis.caches = { open: async () => ({ match: async () => undefined }) };
const askedLate = [];
globalThis.fetch = async (url) => { askedLate.push(url); return new Response(data.slice()); };
const none = wasmOf("https://host/pyodide.asm.wasm", "https://host/pyodide.asm.wasm.xz", "specdec-runtime", null, true);
const askedAtOnce = askedLate.length;
cases.lookFirst = { found: foundFirst, none: { askedAtOnce, asked: askedLate, kept: await none.kept, sha256: sha256(await none.bytes) } };
// The .wasm itself (the page's guess that the host sends brotli: sim-boot.js), from a stub host
// whose answer for it is each of `answers`: taken where it is brotli-encoded application/wasm (the
// .xz never asked for), else dropped before its body is read and the .xz fetched.
const answers = {
  br: () => new Response(copy, { headers: { "Content-Encoding": "br", "Content-Type": "application/wasm" } }),
  gzip: () => new Response(copy, { headers: { "Content-Encoding": "gzip", "Content-Type": "application/wasm" } }),
  none: () => new Response(copy, { headers: { "Content-Type": "application/wasm" } }),
  octets: () => new Response(copy, { headers: { "Content-Encoding": "br", "Content-Type": "application/octet-stream" } }),
  missing: () => new Response("", { status: 404 }),
  down: () => Promise.reject(new TypeError("Failed to fetch")),
};
globalThis.caches = undefined;
cases.plain = {};
for (const [kind, answer] of Object.entries(answers)) {
  const asked = [];
  const signals = [];
  served = data;
  globalThis.fetch = async (url, init) => {
    asked.push(url);
    signals.push(init && init.signal);
    if (url.endsWith(".xz")) return new Response(data.slice());
    return answer();
  };
  const wasm = wasmOf("https://host/pyodide.asm.wasm", "https://host/pyodide.asm.wasm.xz", null, "https://host/py/pyodide.asm.wasm");
  const exported = WebAssembly.Module.exports(await wasm.module).length;
  cases.plain[kind] = { asked, dropped: signals[0].aborted, exports: exported, sha256: sha256(await wasm.bytes), source: wasm.source };
}
console.log(JSON.stringify(cases));
"""


def test_the_wasm_is_an_xz_stream_of_pyodides_own_that_the_page_compiles_as_it_decodes(built_site, tmp_path):
    """The site serves Pyodide's .wasm as one .xz stream (CRC32) of the npm package's file, byte for
    byte, and not the .wasm itself; it is smaller than the best gzip of it. The page's path (the
    source of wasm-inflate.js's wasmOf, in Node, with the site's xz-decompress)
    compiles it from 1,000-byte chunks and gives the same bytes; a stream cut short or a byte
    changed fails both the module and the bytes with the stream's error, and an HTTP error both.
    With a copy kept in Cache Storage, the .xz is asked for before the lookup of the copy answers
    and dropped once it does (not reported as a request left unanswered), and the copy is compiled;
    where the page says a copy is most likely kept (wasmKept), the lookup comes first and the .xz is
    asked for only when it finds none.
    The site also serves the .wasm itself, which wasmOf, given its address, asks for first and takes
    only if the host sends it brotli-encoded as application/wasm; else it drops it and reads the .xz.
    (The failure the page shows names the file: tests/browser/test_bench_failures.py.)"""
    path = one(built_site.glob(f"pyodide/*/{assets.WASM_XZ}"))
    data = path.read_bytes()
    original = (PYODIDE_PACKAGE / "pyodide.asm.wasm").read_bytes()
    assert data[:6] == b"\xfd7zXZ\x00" and data[7] == 1  # the .xz magic; stream flags: CRC32
    assert lzma.decompress(data, format=lzma.FORMAT_XZ) == original
    assert len(data) < len(gzip.compress(original, 9)) * 0.8, len(data)
    assert one(built_site.glob(f"pyodide/*/{assets.WASM_PLAIN}")).read_bytes() == original  # for a host that sends brotli
    folder = tmp_path / "js"
    shutil.copytree(SIM.parent / "site/static/js/startup", folder)
    (folder / "vendor").mkdir()
    shutil.copyfile(built_site / "static/js/startup/vendor/xz-decompress.js", folder / "vendor/xz-decompress.js")
    (tmp_path / "read.mjs").write_text(READ_WASM)
    run = subprocess.run(["node", str(tmp_path / "read.mjs"), folder.as_uri(), str(path), str(PYODIDE_PACKAGE / "pyodide.asm.wasm")],
                         capture_output=True, text=True, check=True, timeout=120)
    read = json.loads(run.stdout)
    assert read["exports"] > 100, read
    assert (read["length"], read["sha256"]) == (len(original), hashlib.sha256(original).hexdigest())
    for case in ("short", "changed"):
        assert read[case]["module"] != "read" and read[case]["bytes"] != "read", (case, read)
    for case in ("short", "changed"):
        assert read[case]["module"] == read[case]["bytes"], (case, read)  # the stream's error, not the compile's
    assert read["short"]["bytes"].startswith("its .xz stream is cut short or corrupt: "), read
    assert read["missing"] == {"module": "HTTP 404", "bytes": "HTTP 404"}, read
    assert read["kept"] == {"askedFirst": "https://host/pyodide.asm.wasm.xz", "kept": True, "exports": read["exports"],
                            "sha256": hashlib.sha256(original).hexdigest(), "unanswered": []}, read["kept"]
    assert read["lookFirst"] == {  # a page the service worker controls: no .xz asked for to be dropped
        "found": {"asked": None, "exports": read["exports"], "kept": True},
        "none": {"askedAtOnce": 0, "asked": ["https://host/pyodide.asm.wasm.xz"], "kept": False,
                 "sha256": hashlib.sha256(original).hexdigest()}}, read["lookFirst"]
    # The .wasm itself: taken only as brotli-encoded application/wasm; any other answer is dropped
    # before its body is read, and the .xz gives the same module and bytes.
    plain, xz = "https://host/py/pyodide.asm.wasm", "https://host/pyodide.asm.wasm.xz"
    same = {"exports": read["exports"], "sha256": hashlib.sha256(original).hexdigest()}
    assert read["plain"]["br"] == {"asked": [plain], "dropped": False, "source": plain, **same}, read["plain"]
    for kind in ("gzip", "none", "octets", "missing", "down"):
        assert read["plain"][kind] == {"asked": [plain, xz], "dropped": True, "source": xz, **same}, (kind, read["plain"])


# The loading message's meter (sim-worker-bytes.js) in Node: the .wasm itself (its size as the build
# records it) in chunks of a seeded random size, counted as the .xz's share, over many chunkings.
COUNT_SHARE = """
const [module, xz, plain] = process.argv.slice(2).map((a, i) => (i ? Number(a) : a));
const { ByteMeter } = await import(module);
let seed = 1;
const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const ends = [];
for (let round = 0; round < 200; round++) {
  const reports = [];
  const meter = new ByteMeter({ "pyodide.asm.wasm.xz": xz, "pyodide.asm.wasm": plain }, (loaded, total) => reports.push([loaded, total]));
  meter.plan(["pyodide.asm.wasm.xz"]);
  for (let left = plain; left > 0;) {
    const n = Math.min(left, 1 + Math.floor(random() * 70000));
    meter.addShare("pyodide.asm.wasm.xz", "pyodide.asm.wasm", n);
    left -= n;
  }
  ends.push(reports[reports.length - 1]);
}
console.log(JSON.stringify(ends));
"""


def test_the_wasm_itself_counts_as_all_of_its_xz_to_the_byte(built_site, tmp_path):
    """Where the .wasm itself comes in place of its .xz, the loading message counts its bytes as
    their share of the .xz's: once all of it is in, the count is the .xz's size to the byte and the
    meter reports it at once, however its chunks came (200 seeded chunkings), so the message goes
    on to say that Python is starting (a share taken chunk by chunk fell short by a rounding
    error about half the time: tests/browser/test_start_paths.py saw the bar stop short)."""
    xz = one(built_site.glob(f"pyodide/*/{assets.WASM_XZ}")).stat().st_size
    plain = one(built_site.glob(f"pyodide/*/{assets.WASM_PLAIN}")).stat().st_size
    (tmp_path / "count.mjs").write_text(COUNT_SHARE)
    module = (SIM.parent / "site/static/js/startup/sim-worker-bytes.js").as_uri()
    run = subprocess.run(["node", str(tmp_path / "count.mjs"), module, str(xz), str(plain)],
                         capture_output=True, text=True, check=True, timeout=60)
    ends = json.loads(run.stdout)
    assert len(ends) == 200 and all(end == [xz, xz] for end in ends), [end for end in ends if end != [xz, xz]][:5]


# snapshot-spans.js's packing in Node, of the bytes of one file into another.
PACK_SPANS = """
import fs from "node:fs";
const [module, from, to] = process.argv.slice(2);
const { packSpans } = await import(module);
fs.writeFileSync(to, packSpans(new Uint8Array(fs.readFileSync(from))));
"""


def test_a_snapshot_is_packed_without_its_long_runs_of_zeros(tmp_path):
    """packSpans (the build's, site/static/js/startup/snapshot-spans.js) leaves out every run of 16 or more
    4 kB pages of zeros (a last page cut short counts) and nothing else, and its packing unpacks
    (this test's own reading of the format) to the same bytes."""
    script = tmp_path / "pack.mjs"
    script.write_text(PACK_SPANS)
    p = 4096
    cases = {  # name: (bytes, the spans packed)
        "runs at the start, between and at the end": (
            bytes(16 * p) + b"\1" * p + bytes(16 * p) + b"\2" * p + bytes(16 * p), [(16 * p, p), (33 * p, p)]),
        "a run one page short": (b"\3" * p + bytes(15 * p) + b"\4" * p, [(0, 17 * p)]),
        "a run as long as 16 pages, not 16 whole pages": (b"\5" * 10 + bytes(16 * p + 100) + b"\6", [(0, 16 * p + 111)]),
        "a run ending in a short last page": (b"\7" * p + bytes(15 * p + 7), [(0, p)]),
        "nothing but zeros": (bytes(16 * p + 7), []),
    }
    module = (SIM.parent / "site/static/js/startup/snapshot-spans.js").as_uri()
    for name, (raw, expected) in cases.items():
        (tmp_path / "raw").write_bytes(raw)
        subprocess.run(["node", str(script), module, str(tmp_path / "raw"), str(tmp_path / "packed")],
                       capture_output=True, text=True, check=True, timeout=60)
        packed = (tmp_path / "packed").read_bytes()
        count = int.from_bytes(packed[8:12], "little")
        spans = [struct.unpack_from("<II", packed, 12 + 8 * i) for i in range(count)]
        assert spans == expected, name
        assert unpack_spans(packed) == raw, name


def test_the_snapshot_decoder_is_npm_xz_decompress_as_pinned_with_its_licenses(built_site):
    """The vendored file is the npm file as it is, between the CommonJS head that gives it a
    `module` to fill and the export of its one name, under the package's license."""
    shipped = (built_site / "static/js/startup/vendor/xz-decompress.js").read_text(encoding="utf-8")
    npm = PYODIDE_PACKAGE.parent / "xz-decompress"
    pinned = json.loads((SIM.parent / "package.json").read_text())["dependencies"]["xz-decompress"]
    assert json.loads((npm / "package.json").read_text())["version"] == pinned
    notice, code = shipped.split("*/\n", 1)
    original = (npm / "dist/package/xz-decompress.min.js").read_text(encoding="utf-8")
    assert code == f"{assets.COMMONJS_HEAD}{original}\nexport const {{ XzReadableStream }} = module.exports;\n"
    assert f"xz-decompress {pinned}" in notice and "License: MIT" in notice
    # The code's own notice: xzwasm (MIT), xz-embedded (public domain) and walloc (MIT).
    assert "xzwasm" in code and "xz-embedded by Lasse Collin and Igor Pavlov. License: Public domain" in code and "walloc" in code


def test_a_missing_npm_package_the_page_imports_is_named_with_what_to_do(monkeypatch):
    monkeypatch.setitem(assets.VENDORED_JS, "vendor/none.js", ("no-such-package", "index.mjs", ()))
    with pytest.raises(BuildError, match=r"no-such-package.*missing; the page imports no-such-package from npm \(run `npm ci`\)"):
        assets.vendored_js("vendor/none.js")


# The data image's bytes in a snapshot's memory, stored (the delta) and with the image XORed back in.
DATA_IMAGE_SHARE = """
import fs from "node:fs";
const [delta, module, adapter, wasm] = process.argv.slice(2);
const { dataImage, xorDataImage } = await import(module);
const { snapshotMemory } = await import(adapter);
const image = dataImage(fs.readFileSync(wasm));
const snapshot = new Uint8Array(fs.readFileSync(delta));
const memory = snapshotMemory(snapshot);
const equal = () => image.reduce((n, byte, i) => n + (byte !== 0 && memory[i] === byte), 0);
const nonzero = image.reduce((n, byte) => n + (byte !== 0), 0);
const stored = equal();
xorDataImage(snapshot, image);
console.log(JSON.stringify({ nonzero, stored, restored: equal() }));
"""


@pytest.mark.adapter("snapshotMemory", "saveMemory")
def test_each_snapshot_is_stored_as_a_delta_against_the_wasms_data(built_site, tmp_path):
    """The wasm's data segments are XORed out of the stored snapshot (site/static/js/startup/snapshot-delta.js):
    where the data image's bytes stay as the wasm wrote them (nearly all of them), the stored
    snapshot holds zeros, and XORing the image back in gives them back."""
    script = tmp_path / "share.mjs"
    script.write_text(DATA_IMAGE_SHARE)
    delta_module = startup.SNAPSHOT_DELTA.as_uri()
    wasm = PYODIDE_PACKAGE / "pyodide.asm.wasm"  # the site's .xz decodes to it byte for byte (above)
    for lang in ("en", "zh"):
        stored = tmp_path / f"{lang}.snapshot"
        stored.write_bytes(unpack_spans(lzma.decompress(one(built_site.glob(f"py/{lang}.*.snapshot.xz")).read_bytes())))
        run = subprocess.run(["node", str(script), str(stored), delta_module, ADAPTER.as_uri(), str(wasm)],
                             capture_output=True, text=True, check=True, timeout=120)
        share = json.loads(run.stdout)
        assert share["nonzero"] > 2_000_000, share  # the image is the 3.2 MB of Pyodide's data
        assert share["stored"] < share["nonzero"] * 0.01 and share["restored"] > share["nonzero"] * 0.99, (lang, share)


@pytest.mark.adapter("startPyodide", "unpackWheel", "saveMemory", "zeroFreeChunks", "write_pyc_zip", "without_columns", "refill_stdin_buffer")
def test_making_the_start_files_is_deterministic(built_site, tmp_path, monkeypatch):
    """Made again from nothing (an empty cache, a new Node process), every byte is the same. The
    snapshots are compared before their compression, which is a function of the snapshot alone
    (test_compressing_a_snapshot_is_a_function_of_its_bytes): compressing them again at the
    build's level would cost 6 s of CPU each and could not differ where the snapshots do not."""
    monkeypatch.setattr(maker, "compress_snapshot", bytes)  # the second making keeps them raw
    folder, token = startup.start_files(built_models(built_site), tmp_path / "cache", built_tables(built_site))
    page = (built_site / "en/specdec/index.html").read_text()
    assert re.search(r'data-snapshot-token="(\w+)"', page).group(1) == token
    assert (folder / "python_stdlib.zip").read_bytes() == one(built_site.glob("py/python_stdlib.*.zip")).read_bytes()
    for lang in ("en", "zh"):
        shipped = lzma.decompress(one(built_site.glob(f"py/{lang}.*.snapshot.xz")).read_bytes())
        assert (folder / f"{lang}.snapshot.xz").read_bytes() == shipped, lang
    lock_dir = one(built_site.glob("py/sim.*"))
    for name in ("pyodide-lock.json", one(lock_dir.glob("*.whl")).name):
        assert (folder / name).read_bytes() == (lock_dir / name).read_bytes(), name


def test_a_build_without_snapshots_takes_the_fallbacks_files_of_one_with_them(tmp_path, monkeypatch):
    """--start=wheel after a full build on the same inputs: start_files takes the stdlib, lock and
    wheel of the making with snapshots in the cache, with no snapshot and a report naming none, and
    runs no making of its own (maker.make stands in here, writing what the real one names); with
    none cached for these inputs (an empty cache, other models) it makes its own, without snapshots."""
    made = []
    fallback = ("python_stdlib.zip", "pyodide-lock.json", "specdec_sim-0.1.0-py3-none-any.whl")

    def make(out, *, models, snapshots, **_):
        made.append(snapshots)
        for name in fallback:
            (out / name).write_bytes(f"{name} of {sorted(models)}".encode())
        report = {"lock": {"packages": 1}, "stdlib": {"files": ["a.py"]}, "snapshots": {}}
        for lang in models if snapshots else ():
            (out / f"{lang}.snapshot.xz").write_bytes(b"snapshot")
            report["snapshots"][lang] = {"bytes": 8}
        (out / "report.json").write_text(json.dumps(report, indent=1, sort_keys=True))

    wheel_file = tmp_path / "specdec_sim-0.1.0-py3-none-any.whl"
    wheel_file.write_bytes(b"wheel")
    monkeypatch.setattr(startup, "sim_wheel", lambda root: wheel_file)
    monkeypatch.setattr(maker, "make", make)
    models, measured = {"en": b"model", "zh": b"model"}, {"en": b"table", "zh": b"table"}
    full, _ = startup.start_files(models, tmp_path / "cache", measured)
    without, _ = startup.start_files(models, tmp_path / "cache", measured, snapshots=False)
    assert made == [True]
    assert sorted(p.name for p in without.iterdir() if p.name != ".complete") == sorted([*fallback, "report.json"])
    for name in fallback:
        assert (without / name).read_bytes() == (full / name).read_bytes(), name
    report = json.loads((without / "report.json").read_text())
    assert report == {**json.loads((full / "report.json").read_text()), "snapshots": {}}
    startup.start_files(models, tmp_path / "empty", measured, snapshots=False)
    startup.start_files({"en": b"another model"}, tmp_path / "cache", {"en": b"table"}, snapshots=False)
    assert made == [True, False, False]


def test_compressing_a_snapshot_is_a_function_of_its_bytes(built_site):
    """compress_snapshot gives the same stream for the same bytes, in a fresh compressor each time
    (no state carried between calls, no clock, no threads' order): what lets the determinism test
    compare the snapshots before compression. Checked on the first MB of a built snapshot (the
    shipped stream is this function's output: test_snapshots_are_xz_streams...)."""
    raw = unpack_spans(lzma.decompress(one(built_site.glob("py/en.*.snapshot.xz")).read_bytes()))[: 1 << 20]
    first = maker.compress_snapshot(raw)
    assert maker.compress_snapshot(raw) == first
    assert maker.compress_snapshot(raw + b"\0") != first
    assert lzma.decompress(first) == raw


# --- sim's imports in Pyodide ------------------------------------------------------------------------

CHECK_IMPORTS = """
import fs from "node:fs";
const job = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const { loadPyodide } = await import(job.pyodide + "pyodide.mjs");
const pyodide = await loadPyodide({ indexURL: job.pyodide, stdLibURL: job.stdlib, lockFileURL: job.lock });
await pyodide.loadPackage("specdec-sim", { checkIntegrity: true, messageCallback: () => {} });
pyodide.globals.set("job_json", JSON.stringify(job));
const report = pyodide.runPython(`
import json, sys
job = json.loads(job_json)
failed = {}
for module, fromlist in job["imports"] + [[name, []] for name in job["sim"]]:
    try:
        imported = __import__(module, fromlist=fromlist)
        missing = [n for n in fromlist if not hasattr(imported, n)]
        if missing:
            failed[module] = f"no {missing}"
    except ImportError as err:
        failed[module] = str(err)
absent = {}
for module in job["absent"]:
    try:
        __import__(module)
        absent[module] = "imported"
    except ModuleNotFoundError:
        absent[module] = "missing"
origin = sys.modules["json"].__spec__.origin
json.dumps({"failed": failed, "absent": absent, "json_origin": origin})
`);
fs.writeFileSync(job.report, report);
"""


@pytest.mark.adapter("write_pyc_zip", "stdlib_zip_path")
def test_every_module_sim_imports_loads_from_the_trimmed_stdlib(built_site, tmp_path):
    """The fallback's start in Node: Pyodide on the trimmed stdlib, sim installed through the
    lock (sha256 checked); every import sim names, anywhere in its code, succeeds. A module left
    out of the trimmed stdlib does fail (csv), so the check can fail."""
    job = {
        "pyodide": f"{PYODIDE_PACKAGE}/",
        "stdlib": str(one(built_site.glob("py/python_stdlib.*.zip"))),
        "lock": str(one(built_site.glob("py/sim.*/pyodide-lock.json"))),
        "imports": imports.named_imports(SIM),
        "sim": imports.package_modules(SIM),
        "absent": ["csv"],
        "report": str(tmp_path / "report.json"),
    }
    (tmp_path / "job.json").write_text(json.dumps(job))
    (tmp_path / "check.mjs").write_text(CHECK_IMPORTS)
    subprocess.run([maker.node_binary(), str(tmp_path / "check.mjs"), str(tmp_path / "job.json")],
                   check=True, capture_output=True, timeout=300)
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["failed"] == {}
    assert report["absent"] == {"csv": "missing"}
    assert report["json_origin"].endswith("/json/__init__.pyc")


def test_imports_are_read_from_every_statement_in_the_package(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("from __future__ import annotations\nfrom .part import x\nimport json\n")
    (package / "part.py").write_text(
        "from collections import OrderedDict, deque\nimport os.path\n"
        "def later():\n    import csv\n    from importlib import resources\n    from . import other\n")
    assert imports.named_imports(package) == [
        ["collections", ["OrderedDict", "deque"]], ["csv", []], ["importlib", ["resources"]],
        ["json", []], ["os.path", []]]
    assert imports.package_modules(package) == ["pkg", "pkg.part"]


def copy_of_sim_with(tmp_path: Path, code: str) -> Path:
    package = tmp_path / "sim"
    shutil.copytree(SIM, package, ignore=shutil.ignore_patterns("__pycache__"))
    with (package / "text.py").open("a", encoding="utf-8") as f:
        f.write(f"\n\ndef _only_when_asked():\n    {code}\n")
    return package


def make_stdlib(tmp_path: Path, package: Path) -> dict:
    """The survey alone (no snapshot) on a copy of sim. With no model it runs no session command:
    the imports it carries out are those the package's statements name (imports.named_imports),
    which is what these tests change; the commands' own late imports are the build's survey's
    (test_making_the_start_files_is_deterministic makes the whole of it). Without the commands
    the survey took 11 s of CPU instead of 14 s (Pyodide's start in Node is most of it)."""
    built = wheel.build_sim_wheel(package, "0.1.0", tmp_path / "wheel")
    work = tmp_path / "work"
    work.mkdir()
    return maker.make(work, pyodide=PYODIDE_PACKAGE, wheel=built, package=wheel.DIST_NAME, sim=package,
                      models={}, token="test", snapshots=False)


@pytest.mark.adapter("unpackWheel", "write_pyc_zip", "stdlib_zip_path")
def test_a_new_import_in_sim_is_shipped_in_the_trimmed_stdlib(tmp_path):
    """An import that only runs when a reader asks for it still reaches the stdlib (csv here)."""
    report = make_stdlib(tmp_path, copy_of_sim_with(tmp_path, "import csv"))
    assert "csv.py" in report["stdlib"]["files"]
    with zipfile.ZipFile(tmp_path / "work" / "python_stdlib.zip") as archive:
        assert "csv.pyc" in archive.namelist()


@pytest.mark.adapter("unpackWheel")
def test_an_import_pyodide_cannot_satisfy_fails_the_build(tmp_path):
    with pytest.raises(BuildError, match="tkinter"):
        make_stdlib(tmp_path, copy_of_sim_with(tmp_path, "import tkinter"))


def test_a_failed_snapshot_names_the_guide_and_suggests_the_wheel_start(tmp_path):
    """The maker's message for a failure while making the snapshots (a new Pyodide, say) names the
    upgrade guide and the build that goes without them; a failed survey names the guide alone
    (the wheel's start needs the survey's stdlib too)."""
    run = subprocess.CompletedProcess([], 1, "", "")
    for phase, wheel_too in (("snapshot", True), ("survey", False)):
        (tmp_path / "report.json").write_text(json.dumps({"error": "Error: Pyodide has no snapshot API", "phase": phase}))
        with pytest.raises(BuildError) as failed:
            maker._read_report(tmp_path / "report.json", run)
        message = str(failed.value)
        assert "docs/upgrading-pyodide.md" in message and "no snapshot API" in message, message
        assert ("--start=wheel" in message) == wheel_too, message
