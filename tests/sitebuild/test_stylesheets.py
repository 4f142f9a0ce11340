"""Each page links one style sheet (sitebuild/stylesheets.py, bundled by esbuild: sitebuild/bundles.py):
the file exists, its ?v= is its bytes' hash, and its source map holds the page's component sheets
whole, in the cascade's order. Read from the shared built site; the refusals are tried on small
folders, without a build."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from sitebuild import frames, stylesheets
from sitebuild.assets import short_hash
from sitebuild.errors import BuildError

REPO = Path(__file__).resolve().parents[2]
SOURCES = REPO / "site" / "static" / "css"
# Which built sheet each page links: the chooser and 404 have no bench.
PAGES = {
    "index.html": "index",
    "404.html": "index",
    "en/specdec/index.html": "all",
    "zh/specdec/index.html": "all",
    "embed/en/specdec/index.html": "all",
    "embed/zh/specdec/index.html": "all",
}
class Sheets(HTMLParser):
    """Every <link rel="stylesheet"> and <style> of a page."""

    def __init__(self):
        super().__init__()
        self.links, self.styles = [], 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "link" and attrs.get("rel") == "stylesheet":
            self.links.append(attrs["href"])
        self.styles += tag == "style"


def test_every_html_page_of_the_site_is_listed_here(built_site):
    pages = {p.relative_to(built_site).as_posix() for p in built_site.rglob("*.html")}
    assert pages == set(PAGES)


@pytest.mark.parametrize("page,kind", PAGES.items())
def test_each_page_links_one_style_sheet_that_exists_under_its_hash(built_site, page, kind):
    found = Sheets()
    found.feed((built_site / page).read_text(encoding="utf-8"))
    assert found.styles == 0
    assert len(found.links) == 1, found.links
    href, _, version = found.links[0].partition("?v=")
    path = (built_site / page).parent / href if not href.startswith("/") else built_site / href.lstrip("/")
    assert path.resolve() == (built_site / "static" / "css" / f"{kind}.css").resolve()
    assert version == short_hash(path.read_bytes())


@pytest.mark.parametrize("kind", stylesheets.BUNDLES)
def test_a_bundle_is_its_sources_whole_in_the_declared_order_minified(built_site, kind):
    """The sheet's source map names its sources in the declared order and holds each one whole;
    the sheet is minified (every rule of the sources is there: the pages' layout tests read it)."""
    sheet = built_site / "static" / "css" / f"{kind}.css"
    text = sheet.read_text(encoding="utf-8")
    assert text.rstrip().endswith(f"/*# sourceMappingURL={kind}.css.map */")
    source_map = json.loads((sheet.parent / f"{kind}.css.map").read_text(encoding="utf-8"))
    names = [Path(source).name for source in source_map["sources"]]
    assert names == list(stylesheets.BUNDLES[kind])
    for name, body in zip(names, source_map["sourcesContent"]):  # each source with its frames written out
        assert body == frames.expand((SOURCES / name).read_text(encoding="utf-8"), SOURCES / name)
    sources = sum(len((SOURCES / name).read_bytes()) for name in names)
    assert len(text.encode()) < 0.8 * sources, "not minified"
    assert "\n\n" not in text and "/* " not in text


def test_the_cascade_order_is_the_pages_own():
    """site.css under everything, the dialog's last; the pages with the bench take every source."""
    bundles = stylesheets.BUNDLES
    assert bundles["index"] == ("site.css",)
    assert bundles["all"][0] == "site.css" and bundles["all"][-1] == "dialog.css"
    assert sorted(bundles["all"]) == sorted(p.name for p in SOURCES.glob("*.css"))


def test_the_dialogs_rules_match_nothing_in_the_embed(built_site):
    """The embed shares the full page's sheet: the dialog's rules, which it did not link before,
    all start from an .embed-dialog* class, and the embed holds no such name."""
    rules = re.sub(r"/\*.*?\*/", "", (SOURCES / "dialog.css").read_text(encoding="utf-8"), flags=re.S)
    selectors = [sel.strip() for block in re.findall(r"([^{}]+)\{", rules) for sel in block.split(",")]
    assert selectors and all(sel.startswith(".embed-dialog") for sel in selectors), selectors
    for lang in ("en", "zh"):
        assert "embed-dialog" not in (built_site / f"embed/{lang}/specdec/index.html").read_text(encoding="utf-8")


def test_only_the_bundles_and_their_maps_are_published_and_the_bundles_kept_offline(built_site):
    published = sorted(p.name for p in (built_site / "static" / "css").iterdir())
    sheets = sorted(f"{kind}.css" for kind in stylesheets.BUNDLES)
    assert published == sorted(sheets + [f"{name}.map" for name in sheets])
    worker = (built_site / "sw.js").read_text(encoding="utf-8")
    shell = json.loads(re.search(r"const SHELL = (\[.*?\]);", worker, re.S).group(1))
    assert sorted(p for p in shell if p.startswith("static/css/")) == [f"static/css/{n}" for n in sheets]


def test_a_source_no_page_takes_stops_the_build(tmp_path):
    static = tmp_path / "static"
    (static / "css").mkdir(parents=True)
    for name in stylesheets.BUNDLES["all"]:
        (static / "css" / name).write_text(f".{name[:-4]} {{}}\n", encoding="utf-8")
    (static / "css" / "extra.css").write_text(".x {}\n", encoding="utf-8")
    with pytest.raises(BuildError, match=r"extra\.css: no page's style sheet takes extra\.css; add it to BUNDLES"):
        stylesheets.sheets(static)
    (static / "css" / "extra.css").unlink()
    (static / "css" / "race.css").unlink()
    with pytest.raises(BuildError, match=r"the style sheet css/all\.css lists race\.css, which is not in"):
        stylesheets.sheets(static)


# --- the frames' thresholds, defined once (sitebuild/frames.py) ------------------------------------
NAMED = re.compile(r"@(media|container)[^{;]*\(--")
RAW_SIZE = re.compile(r"@(?:media|container)[^{;]*\((?:min-|max-)?(?:width|height)\b|@(?:media|container)[^{;]*\((?:width|height)\s*[<>]")


def test_every_frame_is_named_and_written_out_from_the_one_table(built_site):
    """The style sheets name each threshold of a window's, a frame's or a panel's size, never write one out;
    the built sheets hold none of the names; each page's scripts read their kind's queries from
    the same table."""
    for path in sorted(SOURCES.glob("*.css")):
        raw = [m.group(0) for m in RAW_SIZE.finditer(path.read_text(encoding="utf-8"))]
        assert not raw, (path.name, raw)
    launcher = REPO / "sitebuild" / "course" / "launcher" / "launcher.css"
    assert not RAW_SIZE.search(launcher.read_text(encoding="utf-8"))
    for kind in stylesheets.BUNDLES:
        text = (built_site / "static" / "css" / f"{kind}.css").read_text(encoding="utf-8")
        assert not NAMED.search(text)
    bare = lambda css: re.sub(r"[\s()]", "", css)  # noqa: E731 - minified: no spaces, no parentheses it need not keep
    bundle = bare((built_site / "static" / "css" / "all.css").read_text(encoding="utf-8"))
    for query in frames.MEDIA.values():  # every named frame is used
        assert bare(f"@media ({query})") in bundle, query
    for query in frames.CONTAINER.values():  # and every named container condition
        assert re.search(r"@container\w*" + re.escape(bare(f"({query})")), bundle), query
    for page, kind in PAGES.items():
        if kind == "all":
            data = re.search(r'<script type="application/json" id="page-frames">(.*?)</script>',
                             (built_site / page).read_text(encoding="utf-8")).group(1)
            assert json.loads(data) == frames.for_page("embed" if page.startswith("embed/") else "page")


def test_a_frame_the_table_lacks_stops_the_build(tmp_path):
    sheet = tmp_path / "x.css"
    text = ".a {}\n@media (--page-beside) { .b {} }\n\n@media (--page-besides) { .c {} }\n"
    with pytest.raises(BuildError, match=r"x\.css:4: @media names --page-besides, which sitebuild/frames\.py does not define; "
                                         r"use one of --page-beside"):
        frames.expand(text, sheet)
    assert frames.expand("@container bench (--bench-wide) { }", sheet) == f"@container bench ({frames.CONTAINER['bench-wide']}) {{ }}"
    with pytest.raises(BuildError, match=r"@container names --page-beside"):  # a media query's name is no container's
        frames.expand("@container bench (--page-beside) { }", sheet)


def test_a_size_written_out_in_a_prelude_stops_the_build(tmp_path):
    """A threshold lives in sitebuild/frames.py alone: a sheet that writes one out is refused."""
    sheet = tmp_path / "x.css"
    for text in (".a {}\n@container deck (min-width: 33rem) { .b {} }\n", "\n@media (width < 20rem) { }"):
        with pytest.raises(BuildError, match=r"x\.css:2: @(container|media) writes a size out .*sitebuild/frames\.py"):
            frames.expand(text, sheet)
    assert frames.expand("@media (pointer: fine) { }", sheet) == "@media (pointer: fine) { }"
