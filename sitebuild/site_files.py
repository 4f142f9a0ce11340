"""The files hosts and crawlers look for at the site's root: 404.html, robots.txt, and
sitemap.xml (only with a base URL: a sitemap lists absolute addresses)."""

from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

from . import pages
from .settings import Alternate, PageFiles, Site

SITEMAP = "sitemap.xml"
ROBOTS = """\
# specdec. Everything may be crawled. The embeds (/embed/) are for course platforms' iframes:
# they stay crawlable so that crawlers see their noindex (a meta tag, and an X-Robots-Tag header
# on hosts that read _headers), which keeps them out of search results.
User-agent: *
Allow: /
"""


def robots_txt(base_url: str | None) -> str:
    if base_url:
        return ROBOTS + f"\nSitemap: {base_url}{SITEMAP}\n"
    return ROBOTS + "\n# No sitemap: this build has no base URL (build.py --base-url URL writes one).\n"


def sitemap_xml(base_url: str, alternates: tuple[Alternate, ...], updated: str) -> str:
    """Every indexable page (the chooser and the full pages, not the embeds), each with the
    whole set of hreflang alternates, as search engines ask."""
    links = "".join(
        f'\n    <xhtml:link rel="alternate" hreflang={quoteattr(alt.hreflang)} href={quoteattr(alt.href)}/>'
        for alt in alternates
    )
    urls = [base_url + route.path for route in pages.ROUTES if not route.embed]
    entries = "".join(
        f"\n  <url>\n    <loc>{escape(url)}</loc>\n    <lastmod>{updated}</lastmod>{links}\n  </url>" for url in urls
    )
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
            f'xmlns:xhtml="http://www.w3.org/1999/xhtml">{entries}\n</urlset>\n')


def write(stage: Path, env, contents: dict, site: Site, files: PageFiles) -> None:
    (stage / "404.html").write_text(pages.render_not_found(env, contents, site, files), encoding="utf-8")
    (stage / "robots.txt").write_text(robots_txt(site.base_url), encoding="utf-8")
    if site.base_url:
        sitemap = sitemap_xml(site.base_url, site.alternates, site.updated)
        (stage / SITEMAP).write_text(sitemap, encoding="utf-8")
