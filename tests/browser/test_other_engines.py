"""Readers are not all on Chromium: one smoke test per other engine, each one launch and
one page. The bench goes live, steps once, starts Python from the snapshot, and after the server is
stopped (the network gone) a reload goes live again from the service worker's copy and steps.

- Firefox: Debian's firefox-esr through npm's puppeteer-core over WebDriver BiDi
  (tests/browser/firefox_smoke.mjs, run in Node).
- WebKit: Debian's webkit2gtk-driver (WebKitWebDriver and its MiniBrowser) through PyPI's selenium,
  under xvfb-run (WebKitGTK needs a display).

./dev test installs both engines with apt-get, as it does Chromium. A test skips only when ./dev
could not install its engine (it says why in SPECDEC_NO_FIREFOX / SPECDEC_NO_WEBKIT); an engine
missing without such a reason fails.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
import warnings
from pathlib import Path

import pytest
from helpers.benchpage import LIVE, LOAD_DEBUG_HOOKS, PYODIDE_TIMEOUT_MS
from helpers.loopback import LoopbackSite
from helpers.run_warnings import FirefoxStall
from helpers.service_worker import KEPT


pytestmark = [pytest.mark.browser, pytest.mark.long(45)]

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
# The bench once it has taken the step in Python ({steps}: the count after it; a reload may keep
# the count the bench's link carries).
STEPPED = "#b[data-platform=emscripten][data-steps='{steps}']"
FIREFOX = os.environ.get("SPECDEC_FIREFOX", "/usr/bin/firefox-esr")
WEBKIT_DRIVER = os.environ.get("SPECDEC_WEBKIT_DRIVER", "/usr/bin/WebKitWebDriver")
XVFB_RUN = "/usr/bin/xvfb-run"
# How start-up is read in the page: sim-start.js marks the "fallback" stage only when the snapshot failed.
VIA = "performance.getEntriesByName('specdec:stage-fallback').length ? 'wheel' : 'snapshot'"


def engine(paths: list[str], no_engine_variable: str, name: str) -> None:
    """Skip when ./dev could not install the engine (and said why); fail when it is missing anyway."""
    missing = [path for path in paths if not os.access(path, os.X_OK)]
    if not missing:
        return
    reason = os.environ.get(no_engine_variable)
    if reason:
        pytest.skip(f"{name}: {reason}")
    pytest.fail(f"{name}: {', '.join(missing)} not found; run ./dev test, which installs it with apt-get")


PAGE = "en/specdec/"


@pytest.fixture
def site(built_site):
    """The built site on a server of the test's own, which the test closes to go offline (every
    request is then refused, as with the network off)."""
    with LoopbackSite(built_site) as served:
        yield served


def check(phases: dict, started: float) -> None:
    online, offline = phases["online"], phases["offline"]
    assert online["via"] == "snapshot" and offline["via"] == "snapshot", phases
    assert online["kept"]["active"], online["kept"]  # the service worker runs and keeps the snapshot
    assert not online.get("errors") and not offline.get("errors"), phases  # recorded in Firefox
    print(f"\n{phases['engine']}: launched {online.get('launched', 0):.1f} s, live {online['live']:.1f} s, "
          f"stepped {online['stepped']:.1f} s, offline live and stepped {offline['stepped']:.1f} s "
          f"(the test: {time.monotonic() - started:.1f} s)")
    met = [f"the {name} start went quiet and the page started it again in a fresh worker"
           for name in ("online", "offline") if phases[name].get("restarted")]
    if offline.get("reloadHung"):
        met.append(f"the offline reload hung and a second navigation worked ({offline['reloadHung']})")
    for what in met:
        warnings.warn(FirefoxStall(f"{phases['engine']}: {what}"), stacklevel=2)


def firefox_smoke(built_site: Path, work: Path) -> dict:
    """One run of firefox_smoke.mjs against a server of its own; its phases, or an AssertionError."""
    site = LoopbackSite(built_site)
    work.mkdir()
    job = work / "job.json"
    job.write_text(json.dumps({"firefox": FIREFOX, "url": site.url + PAGE, "live": LIVE, "stepped": STEPPED,
                               "kept": KEPT, "hooks": LOAD_DEBUG_HOOKS, "timeoutMs": PYODIDE_TIMEOUT_MS}))
    node = subprocess.Popen(["node", str(HERE / "firefox_smoke.mjs"), str(job)], cwd=REPO, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    phases = {"engine": "Firefox"}
    try:
        for line in node.stdout:
            phase = json.loads(line)
            if phase["phase"] == "error":
                raise AssertionError(phase["error"])
            phases[phase["phase"]] = phase
            if phase["phase"] == "online":
                site.close()
                node.stdin.write("offline\n")
                node.stdin.flush()
            if phase["phase"] == "offline":
                break
        else:
            pytest.fail(f"firefox_smoke.mjs ended early: {node.stderr.read()[-2000:]}")
    finally:
        node.stdin.close()
        node.wait(timeout=60)
        site.close()
    phases["engine"] += " " + phases["online"]["version"]
    return phases


def test_firefox_goes_live_steps_and_works_offline(built_site, tmp_path):
    """Firefox ESR 153 on a loaded machine now and then never returns from `new Worker()` called in
    a worker (benchmarks/firefox_worker_stall.py shows it on a page with no code of this project):
    the page therefore starts the snapshot's decoding worker itself, beside the sim worker
    (startup/sim-boot.js), and the sim worker starts none. One run, no second chance: a failure fails.
    A start gone quiet that the page's watchdog started again in a fresh worker (sim-client.js), or
    an offline reload that hung and was navigated again, is reported as a FirefoxStall warning in the
    run's summary."""
    engine([FIREFOX], "SPECDEC_NO_FIREFOX", "Firefox")
    started = time.monotonic()
    check(firefox_smoke(built_site, tmp_path / "run"), started)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def webkit_driver(config: Path):
    """WebKitWebDriver under xvfb-run, in a process group of its own (stopped whole at the end).
    config: its XDG_CONFIG_HOME, where GTK's settings turn animations off, which WebKitGTK reports
    as reduced motion (as the Chromium tests' pages have: a step is drawn at once, not animated)."""
    (config / "gtk-3.0").mkdir(parents=True)
    (config / "gtk-3.0" / "settings.ini").write_text("[Settings]\ngtk-enable-animations=0\n")
    port = free_port()
    process = subprocess.Popen([XVFB_RUN, "-a", WEBKIT_DRIVER, f"--port={port}"], start_new_session=True,
                               env={**os.environ, "XDG_CONFIG_HOME": str(config)},
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"WebKitWebDriver under xvfb-run exited with {process.returncode}: {process.stderr.read()[-2000:]}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return process, f"http://127.0.0.1:{port}"
        time.sleep(0.05)
    pytest.fail("WebKitWebDriver did not listen within 30 s")


def test_webkit_goes_live_steps_and_works_offline(site, tmp_path):
    engine([WEBKIT_DRIVER, XVFB_RUN], "SPECDEC_NO_WEBKIT", "WebKit")
    from selenium import webdriver
    from selenium.webdriver.common.by import By
    from selenium.webdriver.remote.client_config import ClientConfig
    from selenium.webdriver.remote.remote_connection import RemoteConnection
    from selenium.webdriver.support.ui import WebDriverWait
    from selenium.webdriver.webkitgtk.options import Options

    started = time.monotonic()
    process, address = webkit_driver(tmp_path / "config")
    driver = None
    try:
        # The address goes in a ClientConfig: selenium deprecates it as RemoteConnection's argument,
        # which is where Remote() puts an address given as a string (a DeprecationWarning per run).
        connection = RemoteConnection(client_config=ClientConfig(remote_server_addr=address))
        driver = webdriver.Remote(command_executor=connection, options=Options())
        driver.set_window_size(1280, 900)
        launched = time.monotonic() - started

        def live_and_step():
            wait = WebDriverWait(driver, PYODIDE_TIMEOUT_MS / 1000, poll_frequency=0.05)
            driver.execute_script(LOAD_DEBUG_HOOKS)  # the marks LIVE and STEPPED read
            wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, LIVE))
            live = time.monotonic() - started
            via, reduced = driver.execute_script(f"return [{VIA}, matchMedia('(prefers-reduced-motion: reduce)').matches]")
            assert reduced, "WebKitGTK did not take reduced motion from GTK's settings"
            before = int(driver.find_element(By.CSS_SELECTOR, "#b").get_attribute("data-steps"))
            driver.find_element(By.CSS_SELECTOR, "#b button.b-step").click()
            wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, STEPPED.format(steps=before + 1)))
            return {"live": live, "stepped": time.monotonic() - started, "via": via, "steps": [before, before + 1]}

        driver.set_script_timeout(PYODIDE_TIMEOUT_MS / 1000)
        driver.get(site.url + PAGE)
        online = {"launched": launched, **live_and_step()}
        online["kept"] = driver.execute_async_script(f"({KEPT})(null).then(arguments[arguments.length - 1])")
        version = driver.capabilities.get("browserVersion", "")
        site.close()
        driver.refresh()
        check({"engine": f"WebKit {version}", "online": online, "offline": live_and_step()}, started)
    finally:
        if driver is not None:
            driver.quit()
        os.killpg(process.pid, 15)
        process.wait(timeout=30)
