"""The built pages as a reader and a search engine meet them: anchors, metadata, FAQ, sources."""

import json
import re
from html.parser import HTMLParser

import pytest

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
