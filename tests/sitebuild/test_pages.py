"""The built pages as a reader and a search engine meet them: anchors, metadata, FAQ, sources."""

import json
import re
import tomllib
from html.parser import HTMLParser
from pathlib import Path

import pytest

from sitebuild.startup import contract

REPO = Path(__file__).resolve().parents[2]
PAGES = ["en/specdec/index.html", "zh/specdec/index.html", "embed/en/specdec/index.html", "embed/zh/specdec/index.html"]
PLACEHOLDER = re.compile(r"\b(placeholder|lorem ipsum|TODO|TBD|FIXME|XXX)\b|待写|占位", re.I)


class Collector(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.hrefs, self.jsonld, self.text = set(), [], [], []
        self._in_jsonld = False
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "a" and "href" in attrs:
            self.hrefs.append(attrs["href"])
        if tag == "script":
            self._in_jsonld = attrs.get("type") == "application/ld+json"
            self._skip += 1
        if tag == "style":
            self._skip += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self._skip -= 1
            self._in_jsonld = False

    def handle_data(self, data):
        if self._in_jsonld:
            self.jsonld.append(data)
        elif not self._skip:
            self.text.append(data)


def parse(built_site, route) -> Collector:
    c = Collector()
    c.feed((built_site / route).read_text(encoding="utf-8"))
    return c


@pytest.mark.parametrize("route", PAGES)
def test_every_internal_anchor_resolves(built_site, route):
    page = parse(built_site, route)
    missing = [h for h in page.hrefs if h.startswith("#") and h[1:] not in page.ids]
    assert not missing


@pytest.mark.parametrize("route", PAGES)
def test_no_placeholder_text_is_left(built_site, route):
    text = " ".join(parse(built_site, route).text)
    found = PLACEHOLDER.findall(text)
    assert not found, found


def test_both_languages_have_the_same_anchors_links_and_sources(built_site):
    en, zh = (parse(built_site, f"{lang}/specdec/index.html") for lang in ("en", "zh"))
    assert en.ids == zh.ids
    internal = lambda p: sorted(h for h in p.hrefs if h.startswith("#"))  # noqa: E731
    # Licence deeds may be localised (…/4.0/deed.zh-hans): the same licence either way.
    external = lambda p: sorted(re.sub(r"deed\.[a-z-]+$", "", h) for h in p.hrefs if h.startswith("http"))  # noqa: E731
    assert internal(en) == internal(zh)
    assert external(en) == external(zh)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_faq_is_published_as_faqpage_structured_data(built_site, lang):
    page = parse(built_site, f"{lang}/specdec/index.html")
    docs = [json.loads(block) for block in page.jsonld]
    faq = next(d for d in docs if d.get("@type") == "FAQPage")
    questions = faq["mainEntity"]
    assert len(questions) >= 4
    for q in questions:
        assert q["name"] and q["acceptedAnswer"]["text"]
        assert q["acceptedAnswer"]["url"].split("#")[1] in page.ids


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_page_metadata(built_site, base_url_site, lang):
    """Without a base URL the pages carry what needs no address; with one, canonical and og:url too."""
    needles = ('<meta name="description"', 'property="og:title"', 'property="article:modified_time"',
               "<time datetime=")
    for site, extra in ((built_site, ()), (base_url_site, ('rel="canonical"', 'property="og:url"'))):
        html = (site / f"{lang}/specdec/index.html").read_text(encoding="utf-8")
        for needle in needles + extra:
            assert needle in html, needle


class ModuleLinks(HTMLParser):
    """The head's modulepreload links, the body's async module scripts and its first element, as written."""

    def __init__(self):
        super().__init__()
        self.preloads, self.async_modules, self._in_head = [], [], False
        self.body_attrs, self.body_first = None, None  # <body>'s attributes; its first element: (tag, attrs)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "head":
            self._in_head = True
        elif tag == "body":
            self._in_head = False
            self.body_attrs = attrs
        elif tag == "link" and attrs.get("rel") == "modulepreload":
            assert self._in_head, f"modulepreload outside <head>: {attrs['href']}"
            self.preloads.append(attrs["href"])
        elif tag == "script" and attrs.get("type") == "module" and "async" in attrs:
            self.async_modules.append(attrs["src"])
        if tag != "body" and self.body_attrs is not None and self.body_first is None:
            self.body_first = (tag, attrs)


# A module's static imports, as esbuild writes them (`import"./x.js"`, `from"./x.js"`) or by hand.
STATIC_IMPORTS = re.compile(r'(?:\bfrom\s*|^import\s*|[;}]import\s*)"(\./[\w.-]+\.js)"', re.M)


@pytest.mark.parametrize("route", PAGES)
def test_the_head_preloads_every_module_the_page_script_imports(built_site, route):
    """The head asks for what the page's script imports, and theirs, with it (docs/architecture.md):
    the bundle's chunks, which hold the bench and the sim client that takes over the worker. A
    preload that is not the very address the module graph asks for would download a file twice;
    one the graph does not ask for would download a file for nothing."""
    import posixpath

    links = ModuleLinks()
    html = (built_site / route).read_text(encoding="utf-8")
    links.feed(html)
    entry = re.search(r'<script type="module" src="([^"?]+)', html).group(1)
    folder = posixpath.dirname(entry)
    imported, todo = [], [posixpath.basename(entry)]
    while todo:
        source = (built_site / "static" / "js" / todo.pop()).read_text(encoding="utf-8")
        for name in STATIC_IMPORTS.findall(source):
            if name[2:] not in imported:
                imported.append(name[2:])
                todo.append(name[2:])
    assert imported, "the page's script imports nothing: the preloads name what it no longer needs"
    assert sorted(links.preloads) == sorted(posixpath.join(folder, name) for name in imported)
    chunks = "".join((built_site / "static" / "js" / name).read_text(encoding="utf-8") for name in imported)
    assert "specdecSimBoot" in chunks, "the sim client (sim-start.js) is not among the preloaded modules"
    assert links.async_modules == [], "the worker starts from sim-boot.js, not a module script"


@pytest.mark.parametrize("route", PAGES)
def test_the_worker_starts_from_a_classic_script_that_opens_the_body(built_site, route):
    """sim-boot.js is the first thing in <body>, and runs as the parser reaches it: not a module,
    not async or deferred (an async module there ran only after the long body was parsed and laid
    out). It carries the page's start-up settings, one attribute per start field of the start
    contract, and the contract itself, which nothing else states."""
    links = ModuleLinks()
    links.feed((built_site / route).read_text(encoding="utf-8"))
    tag, boot = links.body_first
    assert tag == "script" and boot["src"].split("?")[0].endswith("/static/js/startup/sim-boot.js"), links.body_first
    assert not {"type", "async", "defer"} & set(boot), boot
    lang = route.split("/")[-3]
    assert boot["data-lang"] == lang and boot["data-snapshot"].split("/")[-1].startswith(f"{lang}.")
    for field in contract.FIELDS:
        assert boot[f"data-{contract.attribute(field.name)}"], field.name
    assert json.loads(boot["data-contract"]) == contract.page_contract()
    assert not [a for a in links.body_attrs if a.startswith(("data-worker", "data-snapshot", "data-lang"))]


# Tables that never scroll sideways, so need no region of their own: each is laid out as a table
# (bench.css: display: table), whose box cannot scroll, in a panel it fits at every width.
NOT_SCROLLING = {
    "b-tube-table": "the tubes' counts: the panel's width, short numbers (bench.css)",
    "b-exact-table": "the exactness view in words, visually hidden (_exact.html)",
    "b-bridge-table": "the bridge in words, visually hidden (_bridge.html)",
}


class TableParents(HTMLParser):
    """Each <table>, its class and its parent's attributes (the element opened just before it with
    nothing closed in between; None when something was), and every id on the page."""

    def __init__(self):
        super().__init__()
        self.tables, self.ids, self._open = [], set(), None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "table":
            self.tables.append((attrs.get("class") or "", self._open))
        self._open = attrs

    def handle_endtag(self, tag):
        self._open = None


@pytest.mark.parametrize("route", PAGES)
def test_every_table_scrolls_in_a_region_the_keyboard_reaches(built_site, route):
    """A table wider than a phone's column scrolls sideways; its parent, not the table, is what
    scrolls (site.css, race.css), and a keyboard must reach it (WCAG 2.1.1, axe-core's
    scrollable-region-focusable): a region in the tab order with a name. The chapters' tables
    (sitebuild/markdown.py) are named in the page's language by their column headings."""
    page = TableParents()
    page.feed((built_site / route).read_text(encoding="utf-8"))
    chapters = [parent for _, parent in page.tables if parent and parent.get("class") == "table-scroll"]
    assert chapters, page.tables  # the chapters have tables (exact, serving, further)
    unreached = []
    for cls, parent in page.tables:
        if cls in NOT_SCROLLING:
            continue
        parent = parent or {}
        labelled = parent.get("aria-labelledby", "").split()
        named = parent.get("aria-label", "").strip() or (labelled and all(i in page.ids for i in labelled))
        if not (parent.get("role") == "region" and parent.get("tabindex") == "0" and named):
            unreached.append((cls or "a chapter's table", parent))
    assert not unreached
    lang = route.split("/")[-3]
    strings = tomllib.loads((REPO / "site" / lang / "strings.toml").read_text(encoding="utf-8"))
    words = strings["table_region"].split("{columns}")[0]
    for parent in chapters:
        label = parent["aria-label"]
        assert label.startswith(words) and len(label) > len(words) + 2, label


def test_each_control_marks_the_parts_its_parameter_names(built_site):
    """A control's data-parts come from its parameter (sim/bench/settings.py), and each names
    something a chapter can be about (a chapter's `part`), so the chapter marks the control."""
    from sim.bench.settings import PARAMETERS

    html = (built_site / PAGES[0]).read_text(encoding="utf-8")
    marked = dict(re.findall(r'class="b-(?:field|check|rule) b-field--(\w+)[^"]*" data-parts="([^"]*)"', html))
    with_parts = {p.name: " ".join(p.parts) for p in PARAMETERS if p.parts}
    assert with_parts and {name: marked.get(name) for name in with_parts} == with_parts
    assert not {name for name, parts in marked.items() if parts and name not in with_parts}
    chapters = {tomllib.loads(path.read_text(encoding="utf-8").split("+++")[1]).get("part")
                for path in (REPO / "site" / "en").glob("[0-9]*.md")}
    assert {part for p in PARAMETERS for part in p.parts} <= chapters


HAN_BESIDE_ASCII_PAREN = re.compile(r"\(\s*[\u4e00-\u9fff]|[\u4e00-\u9fff]\s*\)")


@pytest.mark.parametrize("route", ["zh/specdec/index.html", "embed/zh/specdec/index.html"])
def test_the_chinese_readouts_write_their_asides_and_ratios_as_chinese_text_does(built_site, route):
    """The readouts' asides ("（公式 36.3%）", "最佳 γ 3（1.76 倍）") come with their brackets from
    the language's strings: an ASCII "(" around Chinese words, which a template writing the
    brackets itself gives, is mixed punctuation. (The formulas' MathML keeps its own brackets.)"""
    html = (built_site / route).read_text(encoding="utf-8")
    start = html.index('id="b-readouts-title"')
    panel = html[start:html.index("</section>", start)]
    text = re.sub(r"<[^>]+>", "", re.sub(r"<math\b.*?</math>", "", panel, flags=re.S))
    assert "（" in text  # the asides are there, in full-width brackets
    assert not HAN_BESIDE_ASCII_PAREN.findall(text), HAN_BESIDE_ASCII_PAREN.findall(text)
    # A ratio keeps its unit on its line ("1.76\u00a0倍"), and a full-width bracket takes no space before it.
    assert "倍" in text and " 倍" not in text and " （" not in text


def test_a_chinese_ratio_runs_on_into_the_words_after_it(built_site):
    """A ratio's unit is a Chinese word ("3.01 倍"), so the sentence goes on without a space
    ("3.01 倍降到…"), as Chinese text does between two characters; a space is written before a
    figure in the source, and after one only where the figure ends in a digit or a Latin letter."""
    html = re.sub(r"<math\b.*?</math>", "", (built_site / "zh/specdec/index.html").read_text(encoding="utf-8"), flags=re.S)
    text = re.sub(r"<[^>]+>", "", html)
    spaced = re.findall(r".{10}倍[ \u00a0][\u4e00-\u9fff].{5}", text)
    assert spaced == []
