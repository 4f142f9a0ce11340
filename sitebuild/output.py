"""The output folder: refuse one the build did not make, write a fresh copy beside it, swap it in.

A build writes its marker (MARKER, which also holds its stamp) into every site it makes. It only
ever replaces a folder that is absent, empty, or holds that marker; anything else, a folder with
a reader's notes, the project itself, a home folder, is refused before any work is done. The new
site is written to a staging folder next to the old one and swapped in whole, so a failed build
changes nothing.
"""

from __future__ import annotations

import os
import shutil
from contextlib import contextmanager
from pathlib import Path

from .errors import OutputRefused

REPO = Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO / "_site"
MARKER = ".specdec-site.json"
# Builds before markers existed left an unmarked _site/; it may be replaced if it is plainly one.
UNMARKED_BUILD = "en/specdec/index.html"
# Project folders an output folder may not be, or be inside: the build reads them.
PROJECT_FOLDERS = (".git", "benchmarks", "corpus", "docs", "node_modules", "sim", "site", "sitebuild",
                   "templates", "tests")
FIX = "choose a new or empty folder, or one an earlier build made (the default is _site/)"


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _refuse(out: Path, why: str) -> OutputRefused:
    return OutputRefused(f"--out {out} {why}; the build replaces its output folder whole", fix=FIX)


def check_target(out: Path, inputs: tuple[Path, ...] = ()) -> Path:
    """The resolved output folder, or OutputRefused if replacing it could destroy anything."""
    out = Path(out).expanduser().resolve()
    if out.parent == out:
        raise _refuse(out, "is the root of the file system")
    if _within(REPO, out):
        raise _refuse(out, "holds the project itself")
    home = Path.home().resolve()
    if _within(home, out):
        raise _refuse(out, "is a home folder, or holds one")
    for name in PROJECT_FOLDERS:
        if _within(out, REPO / name):
            raise _refuse(out, f"is inside the project's {name}/ folder")
    for folder in inputs:
        folder = Path(folder).resolve()
        if _within(out, folder) or _within(folder, out):
            raise _refuse(out, f"overlaps the input folder {folder}")
    if out.exists() and not out.is_dir():
        raise _refuse(out, "is a file, not a folder")
    unmarked_build = out == DEFAULT_OUT and (out / UNMARKED_BUILD).is_file()
    if out.is_dir() and not (out / MARKER).is_file() and not unmarked_build:
        stranger = next(iter(sorted(os.listdir(out))), None)
        if stranger is not None:
            raise _refuse(out, f"holds files this build did not make (e.g. {stranger}) and no {MARKER}")
    return out


@contextmanager
def staged(out: Path):
    """Yield an empty staging folder beside `out`; on success it replaces `out`.

    The caller writes MARKER into the stage; a stage without one is not swapped in.
    """
    import tempfile  # here: a build that finds the site up to date stages nothing
    import uuid

    out = check_target(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{out.name}.staging-", dir=out.parent))
    stage.chmod(0o755)  # mkdtemp's 0700 would hide the site from a web server running as another user
    try:
        yield stage
        if not (stage / MARKER).is_file():
            raise RuntimeError(f"the build wrote no {MARKER} into its output")
        check_target(out)  # again: the folder may have changed while the site was built
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        raise
    old = out.with_name(f".{out.name}.old-{uuid.uuid4().hex[:12]}")
    if out.exists():
        out.rename(old)
    stage.rename(out)
    shutil.rmtree(old, ignore_errors=True)
