"""The page reaches the bench only through its API, site/static/js/bench/api.js: no script
outside site/static/js/bench/ names the bench's classes or ids (its markup is `b-*`, under `#b`)
or reads its data (`#bench-state`), and inside the bench only bench.js reads that data."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
JS = REPO / "site" / "static" / "js"
# Not the bench's: the embed's class for the chapter it shows (frames.css), on the chapters' sections.
PAGE_OWNED = {"b-shown"}
STRING = re.compile(r"""(["'`])((?:\\.|(?!\1).)*)\1""")
BENCH_NAME = re.compile(r"(?:^|[\s.#\[>~+,(])(b-[\w-]+)(?![\w-])|^#?b$|^#b[\s.\[:]|bench-state")


def strings(source: str) -> list[str]:
    """The script's string literals, its comments left out (a comment may name anything)."""
    return [m.group(2) for m in STRING.finditer(re.sub(r"//[^\n]*|/\*.*?\*/", "", source, flags=re.S))]


def bench_names(source: str) -> list[str]:
    found = []
    for text in strings(source):
        hit = BENCH_NAME.search(text)
        if hit and (hit.group(1) or hit.group(0)) not in PAGE_OWNED:
            found.append(text)
    return found


def test_no_page_script_reaches_into_the_bench():
    outside = {path.relative_to(REPO).as_posix(): bench_names(path.read_text(encoding="utf-8"))
               for path in sorted(JS.glob("*.js"))}
    assert {rel: names for rel, names in outside.items() if names} == {}


def test_the_benchs_data_is_read_in_one_place():
    readers = [path.relative_to(REPO).as_posix() for path in sorted(JS.rglob("*.js"))
               if "bench-state" in "".join(strings(path.read_text(encoding="utf-8")))]
    assert readers == ["site/static/js/bench/bench.js"]


def test_the_check_can_fail():
    """The power check: the ways the page used to reach in are found."""
    for source in ('bench.querySelector(".b-sheet-close")', 'document.getElementById("b-title").focus()',
                   'document.getElementById("b")', 'JSON.parse(document.getElementById("bench-state").textContent)',
                   "root.querySelector(`#b-part-${part}-label`)"):
        assert bench_names(source), source
    assert not bench_names('section.classList.toggle("b-shown", on); text("b_fail_start")')
