"""Lay the rendered sections into the page templates: full pages, embeds and the root index."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import jinja2
from markupsafe import Markup

from . import frames, stylesheets
from .content import LANGS, LanguageContent
from .headers import csp_meta
from .profiles import Profile
from .references import Sources
from .settings import Alternate, PageFiles, Site
from .startup import contract, page_settings
from .templating import page_environment

REPO = Path(__file__).resolve().parent.parent
TEMPLATES = REPO / "templates"


@dataclass(frozen=True)
class Route:
    path: str  # folder under the site root, "" for the root index
    lang: str | None
    embed: bool

    @property
    def depth(self) -> int:
        return len([p for p in self.path.split("/") if p])

    @property
    def root(self) -> str:
        """Relative path back to the site root, so the site works under any base path."""
        return "../" * self.depth or "./"


def page_route(lang: str, embed: bool) -> Route:
    return Route(f"{'embed/' if embed else ''}{lang}/specdec/", lang, embed)


ROUTES = [Route("", None, False)] + [page_route(l, e) for e in (False, True) for l in LANGS]


@lru_cache(maxsize=4)
def environment(templates: Path = TEMPLATES) -> jinja2.Environment:
    """One environment per templates folder: it recompiles a template only when its file changes
    (Jinja checks the modification time), which keeps the development server's rebuilds quick."""
    return page_environment(jinja2.FileSystemLoader(templates))


def faq_jsonld(faq: list[dict], canonical: str | None) -> Markup:
    """schema.org FAQPage for search engines; answers as plain text with their chapter link
    (relative, "#anchor", to the page itself when there is no base URL)."""
    doc = {
        "@context": "https://schema.org",
        "@type": "FAQPage",
        "mainEntity": [
            {
                "@type": "Question",
                "name": item["q"],
                "acceptedAnswer": {
                    "@type": "Answer",
                    "text": Markup(item["a"]).striptags(),
                    "url": f"{canonical or ''}#{item['chapter']}",
                },
            }
            for item in faq
        ],
    }
    # "</" cannot end the script element early once escaped this way.
    return Markup(json.dumps(doc, ensure_ascii=False, indent=1).replace("</", "<\\/"))


def full_page_url(base_url: str | None, lang: str) -> str | None:
    """The full page's absolute address, or None without a base URL."""
    return base_url + page_route(lang, False).path if base_url else None


def alternates(base_url: str | None, contents: dict[str, LanguageContent]) -> tuple[Alternate, ...]:
    """hreflang links: every language's full page, and the chooser as x-default. Search engines
    take only absolute addresses here, so there are none without a base URL."""
    if not base_url:
        return ()
    links = [Alternate(c.strings["html_lang"], full_page_url(base_url, lang)) for lang, c in contents.items()]
    return (*links, Alternate("x-default", base_url))


def _site_values(site: Site, files: PageFiles) -> dict:
    """What every page's template reads of the site's settings."""
    return {"base_url": site.base_url, "site_path": site.site_path, "updated": site.updated,
            "alternates": site.alternates, "files": files}


def render_page(env, route: Route, content: LanguageContent, sections: list[dict], site: Site, files: PageFiles,
                profile: Profile, sources: list[dict], bench: dict) -> str:
    """A full page or an embed, as `profile` serves it (sitebuild/profiles.py: the site's, or a
    course package's copy of the embed); sources: source_list's; bench: the first picture."""
    lang = content.lang
    faq = [item for s in sections for item in s["faq"]]
    canonical = full_page_url(site.base_url, lang)
    template = env.get_template("embed.html" if route.embed else "page.html")
    other = next(l for l in LANGS if l != lang)
    # The embed's link to the full page: relative when there is no address to give and the full
    # page is served beside it; none (hidden) when it is not.
    beside = route.root + page_route(lang, False).path if profile.full_page_beside else ""
    return template.render(
        route=route,
        root=route.root,
        stylesheet=stylesheets.published("all"),
        lang=lang,
        html_lang=content.strings["html_lang"],
        csp=csp_meta(),
        other={"lang": other, "path": page_route(other, route.embed).path},
        t=content.strings,
        chapters=[s for s in sections if s["is_chapter"]],
        frames=frames.for_page("embed" if route.embed else "page"),
        titles={s["anchor"]: s["title"] for s in sections},
        closing=[s for s in sections if not s["is_chapter"]],
        faq_jsonld=faq_jsonld(faq, canonical) if faq else None,
        canonical=canonical,
        page_url=canonical or beside,
        profile=profile,
        # The boot script's data attributes: the start fields and the start contract.
        startup_attributes=contract.attributes(page_settings(files, route.root, profile), lang),
        sources=sources,
        bench=bench,
        **_site_values(site, files),
    )


def render_index(env, route: Route, contents: dict[str, LanguageContent], site: Site, files: PageFiles) -> str:
    return env.get_template("index.html").render(
        route=route,
        root=route.root,
        stylesheet=stylesheets.published("index"),
        html_lang="en",
        csp=csp_meta(),
        strings={l: c.strings for l, c in contents.items()},
        **_site_values(site, files),
    )


def source_list(sources: Sources, lang: str) -> list[dict]:
    out = []
    for n, entry in enumerate(sources.entries, start=1):
        supports = entry.get("supports", {})
        out.append({**entry, "n": n, "supports_text": supports.get(lang, "")})
    return out


def render_not_found(env, contents: dict[str, LanguageContent], site: Site, files: PageFiles) -> str:
    """404.html: hosts send it for a missing path at any depth, so its links cannot be relative;
    they start from the site's path on its host (the base URL's, else '/')."""
    return env.get_template("404.html").render(
        root=site.site_path,
        stylesheet=stylesheets.published("index"),
        html_lang="en",
        csp=csp_meta(),
        strings={l: c.strings for l, c in contents.items()},
        **_site_values(site, files),
    )
