"""Our copy of Pyodide's pyodide-lock.json, with the sim wheel recorded in it by pyodide-lock.

pyodide-lock is the library behind pyodide-build's `pyodide lockfile add-wheels`; calling it
directly spares the build pyodide-build's command line and its other commands, which download a
cross-build environment. The copy keeps Pyodide's `info` (ABI, platform, Python version: the
loader checks them) and lists only the packages this site serves, which is the sim wheel:
Pyodide's own 350-odd packages are not copied here, so the lock names nothing the site lacks,
and a cold visit fetches a few hundred bytes instead of Pyodide's 119 kB lock.
loadPackage fetches the wheel beside the lock and refuses it if its sha256 differs.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import BuildError


def write_lock(pyodide_lock: Path, wheel: Path, out: Path) -> dict:
    """Write the lock for `wheel` (which must sit in out's folder) to out; return the package's entry."""
    from pyodide_lock import PyodideLockSpec
    from pyodide_lock.utils import add_wheels_to_spec

    if wheel.parent.resolve() != out.parent.resolve():
        raise BuildError(f"{wheel}: the wheel must sit beside its lock file {out}")
    stock = PyodideLockSpec.from_json(pyodide_lock)
    served = PyodideLockSpec(info=stock.info, packages={})
    try:
        spec = add_wheels_to_spec(served, [wheel], base_path=out.parent)
    except RuntimeError as err:  # a dependency Pyodide's core lacks, or a wheel for another platform
        raise BuildError(f"{wheel.name}: pyodide-lock refused it: {err}") from err
    spec.check_wheel_filenames()
    spec.to_json(out, indent=1)
    (entry,) = spec.packages.values()
    return entry.to_dict()
