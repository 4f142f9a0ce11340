"""Build the sim package into a wheel with setuptools, the standard build backend.

The wheel is what the fallback path installs with Pyodide's loadPackage (checked against the
sha256 in our pyodide-lock.json), and what the snapshot maker installs before it saves memory.
The project's own pyproject.toml describes the build tools (sim, corpus, sitebuild and their
numpy/jinja2 dependencies), so the wheel is built from a throwaway project holding sim alone.
SOURCE_DATE_EPOCH and fixed file modes make the same sources give the same wheel bytes.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

from ..errors import BuildError

DIST_NAME = "specdec-sim"
SOURCE_DATE_EPOCH = "315532800"  # 1980-01-01, the earliest date a zip can hold

PYPROJECT = """\
[build-system]
requires = ["setuptools>=70"]
build-backend = "setuptools.build_meta"

[project]
name = "{name}"
version = "{version}"
description = "specdec's speculative sampler: pure standard-library Python, run in Pyodide"
requires-python = ">=3.12"
license = "MIT"

[tool.setuptools.packages.find]
include = ["sim", "sim.*"]
"""

# PEP 517's build_wheel hook, called the way a build frontend calls it (in the project folder).
BUILD_HOOK = "import sys, setuptools.build_meta as backend; print(backend.build_wheel(sys.argv[1]))"


def project_version(pyproject: Path) -> str:
    return tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]["version"]


def build_sim_wheel(package: Path, version: str, out_dir: Path) -> Path:
    """Write the wheel of `package` (the sim folder) into out_dir and return its path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="specdec-wheel-") as tmp:
        project = Path(tmp)
        shutil.copytree(package, project / "sim", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        for path in (project / "sim").rglob("*"):
            path.chmod(0o755 if path.is_dir() else 0o644)
        (project / "pyproject.toml").write_text(PYPROJECT.format(name=DIST_NAME, version=version))
        env = {**os.environ, "SOURCE_DATE_EPOCH": SOURCE_DATE_EPOCH, "PYTHONHASHSEED": "0"}
        run = subprocess.run(
            [sys.executable, "-c", BUILD_HOOK, str(out_dir.resolve())],
            cwd=project, env=env, capture_output=True, text=True,
        )
        if run.returncode != 0:
            raise BuildError(f"{package}: setuptools could not build the sim wheel:\n{run.stderr.strip()[-2000:]}")
        name = run.stdout.strip().splitlines()[-1]
    return out_dir / name
