"""The start files: the files the page's worker starts Python from (beside Pyodide's files), and
the page's settings that point to them.

Two ways to start, both from files made here at build time:
  - fast: restore a memory snapshot of Pyodide in which sim is imported, the language's model
    loaded and the session open (`<lang>.snapshot.xz`, one per language);
  - fallback (no snapshot, or it fails to restore or does not match): start Pyodide on the
    trimmed precompiled stdlib and install sim's wheel with loadPackage, which checks the
    sha256 recorded in our pyodide-lock.json.
Both use the same trimmed stdlib (a snapshot reads modules it had not imported from it).
Making them runs Pyodide in Node for seconds, so the results are cached under .cache/ by the
hash of everything they hold (.cache/start-files/): Pyodide's files, the sim wheel, the models and the makers. A build
without snapshots takes the fallback's files from a cached making with them, when there is one.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from .. import assets
from . import cache, maker, wheel

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
SIM = REPO / "sim"
CACHE_ENV = "SPECDEC_START_FILES_CACHE"  # another cache folder (benchmarks time a cold one)


def pyodide_inputs() -> tuple[str, ...]:
    """The files of the Pyodide package the snapshots depend on (restoring checks the build id too)."""
    return (*assets.PYODIDE_FILES, "python_stdlib.zip", "pyodide-lock.json")

# Files here that nothing in the cached start files depends on: editing them remakes no snapshot.
NOT_IN_SNAPSHOTS = ("offline.py", "service_worker.js", "contract.py")
# The delta the snapshots are stored as: the build and the page's worker share this module, and
# the page's adapter to Pyodide, which knows where the memory lies in a snapshot.
SNAPSHOT_DELTA = REPO / "site" / "static" / "js" / "startup" / "snapshot-delta.js"
# How they are packed, without their long runs of zeros: the build packs, the page's decoder unpacks.
SNAPSHOT_SPANS = REPO / "site" / "static" / "js" / "startup" / "snapshot-spans.js"
PAGE_ADAPTER = REPO / "site" / "static" / "js" / "startup" / "pyodide-adapter.js"
# The Cache Storage where the page's worker keeps the decoded .wasm (the start field wasmCache).
# Not a build's cache: the service worker deletes only those (specdec-<build>), and the .wasm is
# kept under its Pyodide version's address, good for every build on that version. Readers'
# browsers hold it under this name: another would leave their copy behind, never deleted.
WASM_CACHE = "specdec-runtime"


def _sources(folder: Path, pattern: str = "*") -> list[tuple[str, bytes]]:
    return [(p.relative_to(REPO).as_posix(), p.read_bytes())
            for p in sorted(folder.glob(pattern)) if p.is_file() and "__pycache__" not in p.parts]


def cache_root() -> Path:
    return Path(os.environ.get(CACHE_ENV) or REPO / ".cache" / "start-files")


def sim_wheel(root: Path) -> Path:
    """The sim wheel, rebuilt only when sim, the wheel recipe or setuptools change."""
    import setuptools

    version = wheel.project_version(REPO / "pyproject.toml")
    key = cache.digest([*_sources(SIM, "**/*.py"), ("sitebuild/startup/wheel.py", (HERE / "wheel.py").read_bytes()),
                        ("version", version.encode()), ("setuptools", setuptools.__version__.encode())])
    folder = cache.cached(root, "sim-wheel", key, lambda out: wheel.build_sim_wheel(SIM, version, out))
    (found,) = folder.glob("*.whl")
    return found


def wasm_stream(root: Path) -> Path:
    """Pyodide's .wasm as an .xz stream (maker.compress_wasm), made again only for another .wasm,
    other settings of the compressor or another Python (whose lzma writes it): 3.4 s of CPU."""
    source = (assets.PYODIDE_PACKAGE / assets.WASM_PLAIN).read_bytes()
    key = cache.digest([(f"pyodide/{assets.WASM_PLAIN}", source), ("filters", repr(maker.WASM_XZ_FILTERS).encode()),
                        ("python", sys.version.encode())])
    folder = cache.cached(root, "pyodide-wasm", key, lambda out: (out / assets.WASM_XZ).write_bytes(maker.compress_wasm(source)))
    return folder / assets.WASM_XZ


def start_files(models: dict[str, bytes], root: Path, measured: dict[str, bytes],
                snapshots: bool = True) -> tuple[Path, str]:
    """The folder holding the stdlib, lock, wheel and snapshots for these models, and its key.
    measured: per language, the readout table (sim.session.measurements_json) each snapshot's
    session opens with. snapshots=False (`--start=wheel`): no snapshots, only the fallback's files."""
    built_wheel = sim_wheel(root)
    pyodide = assets.PYODIDE_PACKAGE
    inputs = [
        *[(f"pyodide/{name}", (pyodide / name).read_bytes()) for name in pyodide_inputs()],
        ("wheel", built_wheel.read_bytes()),
        *[(f"model/{lang}", data) for lang, data in sorted(models.items())],
        *[(f"measured/{lang}", data) for lang, data in sorted(measured.items())],
        *[source for source in _sources(HERE) if Path(source[0]).name not in NOT_IN_SNAPSHOTS],
        ("snapshot-delta.js", SNAPSHOT_DELTA.read_bytes()),
        ("snapshot-spans.js", SNAPSHOT_SPANS.read_bytes()),
        ("pyodide-adapter.js", PAGE_ADAPTER.read_bytes()),
        ("node", maker.node_version().encode()),
        # lzma is the Python's own, built with its liblzma (which the stream's bytes depend on).
        ("python", sys.version.encode()),
    ]
    key = cache.digest([*inputs, ("snapshots", b"yes" if snapshots else b"no")])

    def make(out: Path) -> None:
        full = cache.digest([*inputs, ("snapshots", b"yes")])  # the same inputs' making with snapshots
        with_snapshots = None if snapshots else cache.found(root, "pyodide-start", full)
        if with_snapshots:
            _without_snapshots(with_snapshots, out)
            return
        maker.make(out, pyodide=pyodide, wheel=built_wheel, package=wheel.DIST_NAME, sim=SIM,
                   models=models, measured=measured, token=key[:16], snapshots=snapshots)

    return cache.cached(root, "pyodide-start", key, make), key[:16]


def _without_snapshots(made: Path, out: Path) -> None:
    """The fallback's files of a making with snapshots (`made`), for a build without them: its
    stdlib, lock and wheel are what that site's own fallback starts from, and the survey that
    makes them is the same with or without snapshots (byte for byte), so a --start=wheel build
    after a full one does not run Pyodide in Node again (5 s of a quiet machine's 8)."""
    for name in ("python_stdlib.zip", "pyodide-lock.json", *(p.name for p in made.glob("*.whl"))):
        shutil.copyfile(made / name, out / name)
    report = json.loads((made / "report.json").read_text())
    report["snapshots"] = {}
    (out / "report.json").write_text(json.dumps(report, indent=1, sort_keys=True))


@dataclass(frozen=True)
class StartFiles:
    """The start files as the site holds them: site-relative addresses, sizes and what the worker
    checks (write_start_files makes it; page_settings reads it)."""

    pyodide: str  # Pyodide's folder (its files: assets.PYODIDE_SITE_FILES)
    token: str  # the build's token, which each snapshot carries
    stdlib: str
    lock: str
    wheel: str
    snapshots: dict[str, str]  # per language; none in a build without snapshots
    # What Pyodide checks in a lock (its ABI): the snapshot path needs no package, so the worker
    # hands Pyodide this instead of downloading the lock.
    lock_info: dict
    # Bytes of each file the worker may fetch, by the names its loading message counts them under;
    # per language under "snapshots", "snapshots_decoded" (each snapshot's own size: the array
    # Pyodide restores from is made at once) and "models".
    sizes: dict


def write_start_files(stage: Path, models: dict[str, bytes], measured: dict[str, bytes],
                      snapshots: bool = True) -> StartFiles:
    """Copy Pyodide's files and the start files into the site; return where they are and their sizes, for
    page_settings. snapshots=False: no snapshots (`--start=wheel`)."""
    pyodide_rel = assets.copy_pyodide(stage)
    # Both from the cache, where the build's StartFilesMaker made them side by side (pipeline.py).
    folder, token = start_files(models, cache_root(), measured, snapshots)
    shutil.copyfile(wasm_stream(cache_root()), stage / pyodide_rel / assets.WASM_XZ)
    py = stage / "py"
    py.mkdir(exist_ok=True)

    def publish(source: Path, name: str) -> str:
        """Copy under a name that carries the content's hash: a changed file gets a new address."""
        data = source.read_bytes()
        stem, dot, ext = name.partition(".")
        rel = f"py/{stem}.{assets.short_hash(data)}{dot}{ext}"
        (stage / rel).write_bytes(data)
        return rel

    # The lock holds the wheel's sha256: its hash names the folder of both.
    (built_wheel,) = folder.glob("*.whl")
    lock_dir = f"py/sim.{assets.short_hash((folder / 'pyodide-lock.json').read_bytes())}"
    (stage / lock_dir).mkdir()
    for name in ("pyodide-lock.json", built_wheel.name):
        shutil.copyfile(folder / name, stage / lock_dir / name)
    stdlib = publish(folder / "python_stdlib.zip", "python_stdlib.zip")
    lock = f"{lock_dir}/pyodide-lock.json"
    wheel_rel = f"{lock_dir}/{built_wheel.name}"
    snapshots = {lang: publish(folder / f"{lang}.snapshot.xz", f"{lang}.snapshot.xz")
                 for lang in models if (folder / f"{lang}.snapshot.xz").exists()}
    made = json.loads((folder / "report.json").read_text())["snapshots"]
    size = lambda rel: (stage / rel).stat().st_size  # noqa: E731
    return StartFiles(
        pyodide=pyodide_rel, token=token, stdlib=stdlib, lock=lock, wheel=wheel_rel, snapshots=snapshots,
        lock_info=json.loads((folder / "pyodide-lock.json").read_text())["info"],
        sizes={
            **{name: size(pyodide_rel + name) for name in assets.PYODIDE_SITE_FILES},
            "stdlib": size(stdlib), "lock": size(lock), "wheel": size(wheel_rel),
            "snapshots": {lang: size(rel) for lang, rel in snapshots.items()},
            "snapshots_decoded": {lang: made[lang]["bytes"] for lang in snapshots},
            "models": {lang: len(data) for lang, data in models.items()},
        })


def page_settings(files, root: str, profile) -> dict:
    """A page's start-up settings, by the contract's start fields (contract.FIELDS): addresses
    relative to the page (root: the way back to the site's root; the static files with their
    `?v=` versions), and per language where the contract says so.
    files: the files the pages name (sitebuild/settings.py, PageFiles: the start files, the static
    files' and the models' versions); profile: where the page is served (sitebuild/profiles.py), which says whether
    it names the service worker, the .wasm cache and the plain .wasm, and Pyodide's scripts' names."""
    start = files.start_files
    pyodide = root + start.pyodide
    sizes = start.sizes
    langs = sizes["models"]
    static = lambda rel: f"{root}static/{rel}?v={files.versions[rel]}"  # noqa: E731
    layout = assets.pyodide_files()
    return {
        "worker": static("js/startup/sim-worker.js"),
        "pyodide": pyodide,
        "pyodideScript": pyodide + profile.pyodide_name(layout["loader"]),
        "pyodideModule": pyodide + profile.pyodide_name(layout["module"]),
        "wasm": pyodide + assets.WASM_XZ,
        "wasmPlain": pyodide + assets.WASM_PLAIN if profile.wasm_plain else "",
        "sheetBrotli": files.sheet_brotli,
        "wasmCache": WASM_CACHE if profile.wasm_cache else "",
        "wasmKept": True,
        "stdlib": root + start.stdlib,
        "lock": root + start.lock,
        "lockInfo": start.lock_info,
        "snapshot": {lang: root + rel for lang, rel in start.snapshots.items()},
        "snapshotSize": sizes["snapshots_decoded"],
        "snapshotToken": start.token,
        "decoder": static("js/startup/snapshot-inflate-worker.js") if start.snapshots else "",
        "model": {lang: f"{root}models/{lang}.json?v={files.models[lang]}" for lang in langs},
        "sizes": {lang: {
            **{name: sizes[name] for name in assets.PYODIDE_SITE_FILES},
            "stdlib": sizes["stdlib"], "lock": sizes["lock"], "wheel": sizes["wheel"],
            "snapshot": sizes["snapshots"].get(lang, 0), "model": sizes["models"][lang],
        } for lang in langs},
        "serviceWorker": f"{root}sw.js" if profile.service_worker else "",
    }
