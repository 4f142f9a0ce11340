"""Both ways to build: without a base URL (the default: the project has no official host) and
with one (`--base-url` or `base_url` in site/meta.toml).

Without: no absolute canonical, og:url or hreflang links, no sitemap, valid FAQ data with
relative links, and the build says so in one line. With: all of them, pointing at the base URL.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest

import build as build_cli
from sitebuild import base_url
from sitebuild.errors import BuildError
from sitebuild.frontmatter import load_toml
from sitebuild.pipeline import SITE, build

FULL_PAGES = ["en/specdec/index.html", "zh/specdec/index.html"]
ALL_PAGES = ["index.html", *FULL_PAGES, "embed/en/specdec/index.html", "embed/zh/specdec/index.html", "404.html"]
SITEMAP_NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}


def read(site, rel: str) -> str:
    return (site / rel).read_text(encoding="utf-8")


def faq(html: str) -> dict:
    block = re.search(r'<script type="application/ld\+json">(.*?)</script>', html, re.S).group(1)
    return json.loads(block)


# --- without a base URL ------------------------------------------------------------------------


def test_meta_toml_sets_no_base_url():
    assert "base_url" not in load_toml(SITE / "meta.toml")


@pytest.mark.parametrize("rel", ALL_PAGES)
def test_without_a_base_url_no_page_names_an_absolute_address_of_its_own(built_site, rel):
    html = read(built_site, rel)
    for needle in ('rel="canonical"', 'rel="alternate"', 'property="og:url"', "specdec.github.io"):
        assert needle not in html, (rel, needle)


def test_without_a_base_url_there_is_no_sitemap_and_robots_says_why(built_site):
    assert not (built_site / "sitemap.xml").exists()
    robots = read(built_site, "robots.txt")
    assert "Sitemap:" not in robots and "User-agent: *" in robots


@pytest.mark.parametrize("rel", FULL_PAGES)
def test_without_a_base_url_the_faq_data_links_its_chapters_relatively(built_site, rel):
    questions = faq(read(built_site, rel))["mainEntity"]
    assert questions and all(re.fullmatch(r"#[a-z0-9-]+", q["acceptedAnswer"]["url"]) for q in questions)


def test_without_a_base_url_the_citation_has_no_stray_value(built_site):
    text = read(built_site, "en/specdec/index.html")
    cite = text[text.index('id="cite"'):][:1500]
    assert "None" not in cite and "Updated 20" in cite


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_without_a_base_url_the_embed_links_the_full_page_relatively(built_site, lang):
    html = read(built_site, f"embed/{lang}/specdec/index.html")
    assert f'href="../../../{lang}/specdec/" target="_blank"' in html


def test_without_a_base_url_the_404_page_links_from_the_host_root(built_site):
    html = read(built_site, "404.html")
    assert 'href="/en/specdec/"' in html and 'href="/zh/specdec/"' in html
    assert 'href="/static/css/index.css?v=' in html


def test_the_build_says_in_one_line_that_there_is_no_base_url(project, build_memo):
    reports = build(project, build_memo).reports
    said = [line for line in reports if "base URL" in line]
    assert said == ["no base URL: no canonical, og:url or hreflang links, no sitemap.xml, and 404.html links to "
                    "the host's root (set --base-url or base_url in site/meta.toml)"]


# --- with a base URL ---------------------------------------------------------------------------


@pytest.mark.parametrize("lang,hreflang", [("en", "en"), ("zh", "zh-Hans")])
def test_with_a_base_url_the_full_pages_carry_canonical_og_and_hreflang(base_url_site, published_at, lang, hreflang):
    html = read(base_url_site, f"{lang}/specdec/index.html")
    page = f"{published_at}{lang}/specdec/"
    assert f'<link rel="canonical" href="{page}">' in html
    assert f'<meta property="og:url" content="{page}">' in html
    for code, href in (("en", "en/specdec/"), ("zh-Hans", "zh/specdec/"), ("x-default", "")):
        assert f'<link rel="alternate" hreflang="{code}" href="{published_at}{href}">' in html
    assert f'<html lang="{hreflang}"' in html
    assert all(q["acceptedAnswer"]["url"].startswith(page + "#") for q in faq(html)["mainEntity"])


def test_with_a_base_url_the_embed_points_to_its_full_page_and_stays_noindex(base_url_site, published_at):
    html = read(base_url_site, "embed/zh/specdec/index.html")
    assert f'<link rel="canonical" href="{published_at}zh/specdec/">' in html
    assert '<meta name="robots" content="noindex">' in html


def test_with_a_base_url_the_sitemap_lists_the_indexable_pages_with_their_alternates(base_url_site, published_at):
    root = ET.fromstring(read(base_url_site, "sitemap.xml"))
    urls = root.findall("s:url", SITEMAP_NS)
    locs = [u.find("s:loc", SITEMAP_NS).text for u in urls]
    assert locs == [published_at, f"{published_at}en/specdec/", f"{published_at}zh/specdec/"]
    for url in urls:
        assert url.find("s:lastmod", SITEMAP_NS).text == load_toml(SITE / "meta.toml")["updated"].isoformat()
        links = {l.get("hreflang"): l.get("href") for l in url.findall("x:link", SITEMAP_NS)}
        assert links == {"en": f"{published_at}en/specdec/", "zh-Hans": f"{published_at}zh/specdec/",
                         "x-default": published_at}
    assert f"Sitemap: {published_at}sitemap.xml" in read(base_url_site, "robots.txt")


def test_with_a_base_url_the_404_page_links_from_the_sites_path(base_url_site):
    html = read(base_url_site, "404.html")
    assert 'href="/courses/specdec/en/specdec/"' in html and 'href="/courses/specdec/zh/specdec/"' in html
    assert 'href="/courses/specdec/static/css/index.css?v=' in html
    assert '<meta name="robots" content="noindex">' in html


def test_with_a_base_url_the_citation_gives_the_address(base_url_site, published_at):
    text = read(base_url_site, "zh/specdec/index.html")
    assert f"{published_at}zh/specdec/" in text[text.index('id="cite"'):]


def test_base_url_in_meta_toml_turns_them_on(project, build_memo):
    meta = project.site / "meta.toml"
    meta.write_text(meta.read_text(encoding="utf-8") + 'base_url = "https://example.net/x"\n', encoding="utf-8")
    result = build(project, build_memo)
    assert "base URL https://example.net/x/: canonical, og:url and hreflang links, sitemap.xml" in result.reports
    assert 'href="https://example.net/x/en/specdec/"' in read(project.out, "en/specdec/index.html")
    project.base_url = "https://example.com/"  # the option wins over the file
    build(project, build_memo)
    assert (project.out / "sitemap.xml").read_text(encoding="utf-8").count("https://example.com/") == 12


# --- what counts as a base URL -------------------------------------------------------------------


@pytest.mark.parametrize("text,normalised", [
    ("https://example.org", "https://example.org/"),
    ("https://example.org/courses/specdec", "https://example.org/courses/specdec/"),
    ("http://localhost:8000/", "http://localhost:8000/"),
    ("https://example.org/v1.2/", "https://example.org/v1.2/"),
])
def test_good_base_urls(text, normalised):
    assert base_url.from_option(text) == normalised


@pytest.mark.parametrize("text,why", [
    ("example.org/specdec/", "is not an http:// or https:// address"),
    ("ftp://example.org/", "is not an http:// or https:// address"),
    ("https:///specdec/", "names no host"),
    ("https://user:pw@example.org/", "holds a user name or password"),
    ("https://example.org:80x/", "has a port that is not a number"),
    ("https://example.org/specdec/#top", "has a ?query or #fragment"),
    ("https://example.org/specdec/index.html", "ends in a file name (index.html)"),
    ("https://example.org/spec dec/", "holds ' '"),
    ('https://example.org/"x"/', "holds '\"'"),
    ("", "is empty"),
])
def test_bad_base_urls_are_refused_naming_the_option(text, why):
    with pytest.raises(BuildError) as caught:
        base_url.from_option(text)
    message = str(caught.value)
    assert message.startswith(f"--base-url {text!r} {why}"), message
    assert "e.g. https://example.org/courses/specdec/" in message


def test_the_command_line_refuses_a_bad_base_url_before_any_work(capsys):
    with pytest.raises(SystemExit) as caught:
        build_cli.main(["--base-url", "example.org/specdec/"])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert "argument --base-url: 'example.org/specdec/' is not an http:// or https:// address" in err
