"""The built pages' frames: the embed puts the bench first and carries the chapters for chapter=,
the colours follow the reader (no forced light scheme), the one host script is the same in the
dialog and docs/embedding.md, and the style sheets agree with the layout they size the machine by."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from sim.bench import layout

REPO = Path(__file__).resolve().parents[2]
CSS = REPO / "site" / "static" / "css"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_embed_shows_the_bench_first_and_holds_the_chapters_for_chapter(built_site, lang):
    page = (built_site / f"embed/{lang}/specdec/index.html").read_text(encoding="utf-8")
    assert page.index('id="bench"') < page.index('class="embed__text" hidden')
    chapters = re.findall(r'<section class="chapter" id="([a-z]+)"', page)
    assert len(chapters) == 16 and "exact" in chapters
    listed = re.search(r'<script type="application/json" id="page-chapters">(.*?)</script>', page).group(1)
    assert listed == "[" + ", ".join(f'"{c}"' for c in chapters) + "]"
    # theme= applies before the first paint: a classic script in the head, from the site itself.
    head = page[: page.index("</head>")]
    assert re.search(r'<script src="\.\./\.\./\.\./static/js/theme\.js\?v=\w+"></script>', head)
    assert "embed-dialog" not in page  # the full page's, not the frame's
    # The machine's bar, for a chapter in a frame too narrow for it beside the bench (frames.css).
    assert page.index('class="embed__text" hidden') < page.index('class="b-strip"')


def test_no_page_forces_a_colour_scheme(built_site):
    for path in CSS.glob("*.css"):
        assert not re.search(r"color-scheme:\s*light\s*;", path.read_text().split(":root[data-theme")[0]), path
    site = (CSS / "site.css").read_text()
    assert "color-scheme: light dark;" in site


def test_the_machine_ratio_in_the_style_sheet_is_the_layouts():
    css = (CSS / "bench.css").read_text()
    assert f"--machine-w: {layout.MACHINE['width']};" in css
    assert f"--machine-h: {layout.MACHINE['height']};" in css


def test_the_host_script_is_one_text_in_the_dialog_and_the_embedding_guide(built_site):
    script = (REPO / "templates" / "_host_script.txt").read_text(encoding="utf-8").strip()
    page = (built_site / "en/specdec/index.html").read_text(encoding="utf-8")
    shown = re.search(r'<textarea id="embed-script"[^>]*>(.*?)</textarea>', page, re.S).group(1)
    assert html.unescape(shown).strip() == script
    guide = (REPO / "docs" / "embedding.md").read_text(encoding="utf-8")
    assert script in guide
    assert len(script) < 700  # tiny: a course author reads what they paste
