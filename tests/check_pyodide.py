"""`./dev check-pyodide VERSION`: does this site work on another Pyodide? (docs/upgrading-pyodide.md)

Installs that version of the `pyodide` npm package into a scratch copy of this checkout (the
checkout's own node_modules and .venv are left as they are: the copy links every other package),
builds the site there (with the snapshots, and with --start=wheel), runs the tests that start the
page both ways (snapshot and fallback) and the build's start files' tests in it, and prints what broke,
by the function of the Pyodide adapters each test depends on (its `adapter` markers;
tests/helpers/adapter_report.py collects them).

    python tests/check_pyodide.py 314.0.8 [pytest options]

SPECDEC_CHECK_DIR puts the scratch copy elsewhere (default: a folder in the system's temp folder,
made afresh). The exit status is 0 when the builds and every test passed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PYTHON = sys.executable
sys.path.insert(0, str(REPO))
from corpus.sources import corpus_dir  # noqa: E402  (this checkout's books: the copy has no ../shared beside it)
# The tests that start the page's worker both ways or make its start files, and those that hold
# the adapters' declarations (docs/upgrading-pyodide.md names them).
TESTS = [
    "tests/sitebuild/test_pyodide_adapter.py",
    "tests/sitebuild/test_snapshot_memory.py",
    "tests/sitebuild/test_start_files.py",
    "tests/sim/test_tree_pyodide.py",
    "tests/browser/test_start_paths.py",
    "tests/browser/test_pyodide_parity.py",
    "tests/browser/test_offline.py",
    "tests/browser/test_bench_failures.py",
    "tests/browser/test_course_package.py",
]
# Where each adapter function lives, for the report.
# (in_pyodide.py: the functions its INTERNALS name; its others are the survey's own.)
ADAPTERS = {
    "site/static/js/startup/pyodide-adapter.js": re.compile(r"^export (?:async )?function (\w+)", re.M),
    "sitebuild/startup/pyodide_adapter.mjs": re.compile(r"^export function (\w+)", re.M),
    "sitebuild/startup/in_pyodide.py": re.compile(r'^    "[^"]+": "(\w+):', re.M),
}
NO_FUNCTION = "(Pyodide's Python)"


def say(line: str = "") -> None:
    print(line, flush=True)


def scratch_copy(version: str) -> Path:
    """This checkout's files (tracked and new, not ignored) in a fresh folder."""
    folder = Path(os.environ.get("SPECDEC_CHECK_DIR") or Path(tempfile.gettempdir()) / f"specdec-pyodide-{version}")
    if folder.exists():
        shutil.rmtree(folder)
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO, capture_output=True,
                            text=True, check=True).stdout
    for rel in filter(None, listed.split("\0")):
        source = REPO / rel
        if source.is_file():
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, folder / rel)
    return folder


def install_pyodide(folder: Path, version: str) -> dict:
    """node_modules: links to the checkout's packages, and pyodide@version from npm; the copy's
    package.json pins it. Returns the version's lock info (its Python, ABI, platform)."""
    modules = folder / "node_modules"
    modules.mkdir()
    for entry in (REPO / "node_modules").iterdir():
        if entry.name != "pyodide":
            (modules / entry.name).symlink_to(entry)
    packed = folder / ".npm-pack"
    packed.mkdir()
    run = subprocess.run(["npm", "pack", f"pyodide@{version}", "--pack-destination", str(packed), "--silent"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"npm could not fetch pyodide@{version}: {run.stderr.strip()[-500:]}")
    (tarball,) = packed.glob("*.tgz")
    with tarfile.open(tarball) as archive:
        archive.extractall(packed, filter="data")
    (packed / "package").rename(modules / "pyodide")
    manifest = json.loads((folder / "package.json").read_text())
    manifest["dependencies"]["pyodide"] = version
    (folder / "package.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return json.loads((modules / "pyodide" / "pyodide-lock.json").read_text())["info"]


def environment(folder: Path) -> dict:
    return {**os.environ, "SPECDEC_START_FILES_CACHE": str(folder / ".cache" / "start-files"), "SPECDEC_CORPUS": str(corpus_dir())}


def build(folder: Path, start: str) -> tuple[bool, str, float]:
    env = environment(folder)
    started = time.monotonic()
    run = subprocess.run([PYTHON, "build.py", "--out", f"_site-{start}", "--force", "--quiet", f"--start={start}"],
                         cwd=folder, env=env, capture_output=True, text=True)
    return run.returncode == 0, (run.stderr or run.stdout).strip(), time.monotonic() - started


def adapter_functions(folder: Path) -> dict[str, str]:
    functions = {}
    for rel, pattern in ADAPTERS.items():
        for name in pattern.findall((folder / rel).read_text(encoding="utf-8")):
            functions[name] = rel
    return functions


def run_tests(folder: Path, extra: list[str]) -> tuple[dict, float]:
    report = folder / "adapter-report.json"
    env = {**environment(folder), "SPECDEC_ADAPTER_REPORT": str(report)}
    started = time.monotonic()
    subprocess.run([PYTHON, "-m", "pytest", "-p", "tests.helpers.adapter_report", "-q", "-p", "no:cacheprovider", *TESTS, *extra],
                   cwd=folder, env=env)
    return (json.loads(report.read_text()) if report.exists() else {}), time.monotonic() - started


def failed_function(message: str) -> str | None:
    found = re.search(r"pyodide_adapter\.(\w+)", message)
    return found.group(1) if found else None


def main(argv: list[str]) -> int:
    if not argv or argv[0].startswith("-"):
        sys.exit("usage: ./dev check-pyodide VERSION [pytest options]   (npm view pyodide versions lists them)")
    version, extra = argv[0], argv[1:]
    pinned = json.loads((REPO / "package.json").read_text())["dependencies"]["pyodide"]
    say(f"check-pyodide {version} (pinned: {pinned})")
    folder = scratch_copy(version)
    info = install_pyodide(folder, version)
    say(f"  scratch copy: {folder}")
    say(f"  pyodide {version}: Python {info.get('python')}, ABI {info.get('abi_version')}, {info.get('platform')}")
    builds = {}
    for start in ("snapshot", "wheel"):
        ok, message, seconds = build(folder, start)
        builds[start] = (ok, message)
        first = message.splitlines()[0] if message else ""
        say(f"  build --start={start}: {'ok' if ok else 'FAILED'} ({seconds:.0f} s){'' if ok else ': ' + first[:600]}")
    results, seconds = run_tests(folder, extra)
    functions = adapter_functions(folder)
    by_function: dict[str, list[tuple[str, dict]]] = {name: [] for name in functions}
    for test, result in results.items():
        for name in result["adapter"] or [NO_FUNCTION]:
            by_function.setdefault(name, []).append((test, result))
    counts = {o: sum(r["outcome"] == o for r in results.values()) for o in ("passed", "failed", "skipped")}
    say(f"  tests: {counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped ({seconds:.0f} s)")
    say("")
    say("by adapter function:")
    for start, (ok, message) in builds.items():
        if not ok and failed_function(message):
            by_function.setdefault(failed_function(message), []).append(
                (f"build --start={start}", {"outcome": "failed", "why": message.splitlines()[0][:400]}))
    broken = 0
    for name, tests in sorted(by_function.items(), key=lambda item: (functions.get(item[0], "~"), item[0])):
        failed = [(t, r) for t, r in tests if r["outcome"] == "failed"]
        where = functions.get(name, "")
        verdict = "BROKEN" if failed else ("ok" if tests else "no test ran it")
        say(f"  {name:24} {where:40} {verdict} ({len(tests) - len(failed)}/{len(tests)} passed)")
        for test, result in failed:
            broken += 1
            say(f"      {test}: {result['why']}")
    ok = all(ok for ok, _ in builds.values()) and counts["failed"] == 0 and results
    say("")
    say(f"pyodide {version}: {'everything passed' if ok else 'something broke (docs/upgrading-pyodide.md says what each message means)'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
