"""The published scripts (sitebuild/bundles.py): bundled and minified by esbuild, with their source
maps beside them, every source reached by an entry, nothing else of site/static/js/ published; the
refusals (a script no page loads, a script esbuild cannot read) tried on small folders; and the
unbundled build's files as written. That the bundled site behaves as the unbundled one is the
browser tests' part: they run on the bundled build (the default), and
tests/browser/test_unbundled.py runs the unbundled one."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from sitebuild import bundles, stylesheets
from sitebuild.assets import short_hash
from sitebuild.errors import BuildError

REPO = Path(__file__).resolve().parents[2]
STATIC = REPO / "site" / "static"
ENTRIES = bundles.PAGE_ENTRIES + bundles.WORKER_ENTRIES + bundles.CLASSIC_ENTRIES


def published_scripts(site: Path) -> set[str]:
    return {p.relative_to(site / "static" / "js").as_posix() for p in (site / "static" / "js").rglob("*.js")}


def test_the_entries_chunks_and_the_vendored_decoder_are_all_that_is_published(built_site):
    chunks = {name for name in published_scripts(built_site) if re.fullmatch(r"chunk-\w{8}\.js", name)}
    assert chunks, "no chunk: the page's entries share nothing"
    assert published_scripts(built_site) == set(ENTRIES) | chunks | {"startup/vendor/xz-decompress.js"}


@pytest.mark.parametrize("name", ENTRIES)
def test_each_entry_is_minified_with_its_source_map_beside_it(built_site, name):
    script = built_site / "static" / "js" / name
    text = script.read_text(encoding="utf-8")
    assert text.rstrip().endswith(f"//# sourceMappingURL={Path(name).name}.map")
    source_map = json.loads(script.with_name(script.name + ".map").read_text(encoding="utf-8"))
    if not source_map["sources"]:  # all of it in a chunk it shares (progress.js: the embed's and the launcher's)
        assert re.fullmatch(r'import\{[\w ,]+\}from"\./chunk-\w+\.js";export\{[\w ,]+\};', text.split("\n")[0]), text
        return
    assert len(source_map["sources"]) == len(source_map["sourcesContent"])
    for source, content in zip(source_map["sources"], source_map["sourcesContent"]):
        # Named by the component's path in the repository, and holding it whole.
        rel = re.sub(r"^(\.\./)+", "", source)
        assert rel.startswith("site/static/js/"), source
        assert content == (REPO / rel).read_text(encoding="utf-8"), source
    sources = sum(len(content.encode()) for content in source_map["sourcesContent"])
    assert len(text.encode()) < 0.7 * sources, "not minified"
    assert "\n//" not in text.rstrip().rsplit("\n", 1)[0], "comments left in"


def test_every_script_source_is_in_a_bundle(built_site):
    """Each of site/static/js/ (the debug hooks' included) is in some published source map."""
    mapped = set()
    for source_map in (built_site / "static" / "js").rglob("*.js.map"):
        mapped |= {re.sub(r"^(\.\./)+site/static/js/", "", s) for s in json.loads(source_map.read_text())["sources"]}
    sources = {p.relative_to(STATIC / "js").as_posix() for p in (STATIC / "js").rglob("*.js")}
    assert sources == mapped


def test_the_pages_versions_are_the_bundles_hashes(built_site):
    page = (built_site / "en/specdec/index.html").read_text(encoding="utf-8")
    for name in ("page.js", "startup/sim-boot.js", "startup/sim-worker.js"):
        version = re.search(rf'static/js/{re.escape(name)}\?v=(\w+)"', page).group(1)
        assert version == short_hash((built_site / "static/js" / name).read_bytes()), name


def test_the_source_maps_are_not_kept_offline(built_site):
    worker = (built_site / "sw.js").read_text(encoding="utf-8")
    files = json.loads(re.search(r"const FILES = (\{.*?\});", worker, re.S).group(1))
    assert not [path for path in files if path.endswith(".map")]
    assert "static/js/page.js" in files and any(re.fullmatch(r"static/js/chunk-\w+\.js", p) for p in files)


def small_static(tmp_path: Path) -> Path:
    """A site/static of one-line scripts: every entry, the modules they import, and the sheets."""
    static = tmp_path / "site" / "static"
    for name in ENTRIES:
        path = static / "js" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"export const name = {json.dumps(name)};\n" if name not in bundles.CLASSIC_ENTRIES
                        else "self.x = 1;\n", encoding="utf-8")
    (static / "css").mkdir()
    for name in stylesheets.BUNDLES["all"]:
        (static / "css" / name).write_text(f".{name[:-4]} {{ color: red }}\n", encoding="utf-8")
    return static


def test_a_script_no_page_loads_stops_the_build(tmp_path):
    static = small_static(tmp_path)
    (static / "js" / "extra.js").write_text("export const lost = 1;\n", encoding="utf-8")
    with pytest.raises(BuildError, match=r"extra\.js: no page loads js/extra\.js: no entry of sitebuild/bundles\.py imports it"):
        bundles.write(static, tmp_path / "out", stylesheets.sheets(static))
    assert not (tmp_path / "out").exists()


def test_a_script_esbuild_cannot_read_is_named_with_its_line(tmp_path):
    static = small_static(tmp_path)
    (static / "js" / "page.js").write_text('import "./tryit.js";\n\nconst = 1;\n', encoding="utf-8")
    (static / "js" / "tryit.js").write_text("export {};\n", encoding="utf-8")
    with pytest.raises(BuildError, match=r"esbuild refused .*js/page\.js:3: "):
        bundles.write(static, tmp_path / "out", stylesheets.sheets(static))


def test_unbundled_the_scripts_are_left_to_be_copied_and_the_sheets_joined_unminified(tmp_path):
    static = small_static(tmp_path)
    published = bundles.write(static, tmp_path / "out", stylesheets.sheets(static), bundled=False)
    assert sorted(published.versions) == ["css/all.css", "css/all.css.map", "css/index.css", "css/index.css.map"]
    assert not (tmp_path / "out" / "static" / "js").exists()
    sheet = (tmp_path / "out" / "static" / "css" / "all.css").read_text(encoding="utf-8")
    assert sheet.index(".site {") < sheet.index(".bench {") < sheet.index(".dialog {")
    assert published.preloads["js/page.js"] == list(bundles.UNBUNDLED_PRELOADS)
