"""The reader's colour scheme (and the embed's theme=) changes colours and nothing else: every
colour is a light-dark() variable (site/static/css/site.css), the theme sets only color-scheme,
and no stylesheet, template or script reads the scheme. The browser tests that measure sizes and
places lean on this: they check every window in light and only a sample in dark
(tests/browser/test_viewport_matrix.py: DARK_FRAMES; the clip sweeps, tests/browser/test_clip_sweep.py
and the launcher's in test_course_package.py, find every text's box the same in both schemes there)."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# The site's styles, scripts and templates, and the course package's launcher (its page, sheet and script).
SOURCES = [*sorted((REPO / "site" / "static").rglob("*.css")), *sorted((REPO / "site" / "static").rglob("*.js")),
           *sorted((REPO / "templates").rglob("*.html")), *sorted((REPO / "sitebuild" / "course" / "launcher").glob("*.*"))]
THEME_RULE = re.compile(r"([^{}]*\[data-theme[^{}]*)\{([^}]*)\}")


def scheme_readers(texts: dict[str, str]) -> list[str]:
    """The files that ask for the colour scheme (a media query, or matchMedia in a script)."""
    return [name for name, text in texts.items() if "prefers-color-scheme" in text]


def theme_rules(texts: dict[str, str]) -> list[tuple[str, str, set[str]]]:
    """Every rule that selects on the theme: (file, selector, the properties it sets)."""
    return [(name, selector.strip(), {d.split(":")[0].strip() for d in body.split(";") if d.strip()})
            for name, text in texts.items() if name.endswith(".css")
            for selector, body in THEME_RULE.findall(text)]


def sources() -> dict[str, str]:
    return {p.relative_to(REPO).as_posix(): p.read_text(encoding="utf-8") for p in SOURCES}


def test_nothing_reads_the_colour_scheme():
    texts = sources()
    assert len(texts) > 10 and scheme_readers(texts) == []


def test_the_theme_sets_only_the_colour_scheme():
    rules = theme_rules(sources())
    assert len(rules) >= 2, rules  # light and dark
    assert [r for r in rules if r[2] != {"color-scheme"}] == []


def test_a_rule_for_dark_alone_is_found():
    """Power check: the two checks above see a layout rule that depends on the scheme."""
    bad = {"x.css": "@media (prefers-color-scheme: dark) { .bench { width: 10px; } }\n"
                    ':root[data-theme="dark" i] { color-scheme: dark; gap: 1px; }'}
    assert scheme_readers(bad) == ["x.css"]
    assert theme_rules(bad) == [("x.css", ':root[data-theme="dark" i]', {"color-scheme", "gap"})]
