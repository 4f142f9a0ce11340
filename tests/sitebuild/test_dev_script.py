"""./dev's Chromium install waits for the apt lock, says so, and names the cause when it fails; its
npm ci, run beside the Python set-up, ends the command when it fails.

A stand-in apt-get on PATH plays the other process holding the lock; the real apt is not run (nor
the real npm: a stand-in plays it too).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LOCKED = ("E: Could not get lock /var/lib/apt/lists/lock. It is held by process 4242 (unattended-upgr)\n"
          "E: Unable to lock directory /var/lib/apt/lists/\n")


def fake_apt(tmp_path: Path, locked_calls: int, then: str = "ok") -> dict:
    """PATH and environment for a stand-in apt-get: locked for the first calls, then `then`."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "apt-get"
    script.write_text(f"""#!/usr/bin/env bash
echo "$@" >> {tmp_path}/calls
n=$(wc -l < {tmp_path}/calls)
if [ "$n" -le {locked_calls} ]; then printf '%s' "{LOCKED}" >&2; exit 100; fi
if [ "{then}" = broken ]; then echo "E: Unable to locate package chromium" >&2; exit 100; fi
exit 0
""")
    script.chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}", "SPECDEC_APT_LOCK_WAIT": "30"}


def run_dev(env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([str(REPO / "dev"), "install-chromium"], env=env, capture_output=True, text=True,
                          timeout=120)


def test_a_held_lock_is_waited_for_and_said(tmp_path):
    done = run_dev(fake_apt(tmp_path, locked_calls=2))
    assert done.returncode == 0, done.stderr
    assert "waiting for the apt lock, held by process 4242 (unattended-upgr) (up to 30 s)" in done.stdout
    assert done.stdout.count("waiting for the apt lock") == 1  # said once, not at every retry
    calls = (tmp_path / "calls").read_text().splitlines()
    assert len(calls) == 4 and all("-o DPkg::Lock::Timeout=" in c for c in calls)
    assert calls[-1].endswith("install -y -qq chromium chromium-headless-shell")


def test_a_lock_held_too_long_fails_naming_the_cause(tmp_path):
    env = fake_apt(tmp_path, locked_calls=1000) | {"SPECDEC_APT_LOCK_WAIT": "3"}
    done = run_dev(env)
    assert done.returncode == 1
    assert ("could not install Chromium: the apt lock was held by process 4242 (unattended-upgr) for 3 s"
            in done.stderr)


def test_another_apt_failure_is_named(tmp_path):
    done = run_dev(fake_apt(tmp_path, locked_calls=0, then="broken"))
    assert done.returncode == 1
    assert "could not install Chromium: apt-get update failed: E: Unable to locate package chromium" in done.stderr


def test_an_engine_apt_cannot_install_is_skipped_with_the_reason(tmp_path):
    """Firefox and WebKit are optional: where apt-get fails, ./dev goes on and hands the reason to
    the smoke test (tests/browser/test_other_engines.py skips with it)."""
    env = fake_apt(tmp_path, locked_calls=0, then="broken") | {
        "SPECDEC_FIREFOX": str(tmp_path / "no-firefox"), "SPECDEC_WEBKIT_DRIVER": str(tmp_path / "no-webkit")}
    done = subprocess.run([str(REPO / "dev"), "install-other-engines"], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    for engine in ("Firefox", "WebKit"):
        assert (f"{engine}: could not install {engine}: apt-get update failed: E: Unable to locate package "
                f"chromium; its smoke test is skipped") in done.stdout.splitlines(), done.stdout


def dev_copy(tmp_path: Path, npm_exit: int) -> tuple[Path, dict]:
    """A copy of ./dev with its set-up's inputs, a Python environment already set up (a venv whose
    python is this one, its stamp current) and a stand-in npm that fails with npm_exit or succeeds."""
    project = tmp_path / "project"
    project.mkdir(parents=True)
    for name in ("dev", "requirements.lock", "pyproject.toml", "package-lock.json"):
        (project / name).write_bytes((REPO / name).read_bytes())
    (project / "dev").chmod(0o755)
    (project / "build.py").write_text("import pathlib; pathlib.Path('built').write_text('yes')\n")
    venv_bin = project / ".venv" / "bin"
    venv_bin.mkdir(parents=True)
    (venv_bin / "python").symlink_to(os.path.realpath(sys.executable))
    stamp = subprocess.run("cat requirements.lock pyproject.toml | sha256sum | cut -c1-16", shell=True, cwd=project,
                           capture_output=True, text=True, check=True).stdout
    (project / ".venv" / ".specdec-deps").write_text(stamp)
    bin_dir = tmp_path / "npm-bin"
    bin_dir.mkdir()
    (bin_dir / "npm").write_text(f"""#!/usr/bin/env bash
if [ {npm_exit} != 0 ]; then echo "npm ERR! code ENOTFOUND (stand-in)" >&2; exit {npm_exit}; fi
mkdir -p node_modules
""")
    (bin_dir / "npm").chmod(0o755)
    return project, {**os.environ, "PATH": f"{bin_dir}:{os.environ['PATH']}"}


def test_a_failed_npm_ci_beside_the_python_set_up_ends_the_command_with_its_message(tmp_path):
    """Node's packages are installed beside Python's (./dev, setup_python_and_node): when npm ci
    fails, the command stops there with npm's message and runs nothing after it; when it works,
    the command goes on (here: the stand-in build.py)."""
    project, env = dev_copy(tmp_path, npm_exit=1)
    done = subprocess.run([str(project / "dev"), "build"], env=env, cwd=project, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "npm ERR! code ENOTFOUND (stand-in)" in done.stderr
    assert not (project / "built").exists() and not (project / "node_modules" / ".specdec-lock").exists()
    project, env = dev_copy(tmp_path / "works", npm_exit=0)
    done = subprocess.run([str(project / "dev"), "build"], env=env, cwd=project, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert (project / "built").read_text() == "yes" and (project / "node_modules" / ".specdec-lock").exists()
