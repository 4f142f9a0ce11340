"""The build's heavy steps, imported only when something has to be built: read and check the
content, count the models, compute the figures, render the sections, lay out the pages.

`memo` (the development server's, kept between rebuilds) holds the products that depend only
on the corpus and the code: the models, figures and the bench's first picture. The server
restarts itself when code changes, so within one process they are keyed by the corpus alone.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from . import base_url as base_urls
from . import content, diagrams, glossary, js_strings, pages, profiles, site_files, tryit
from .counting import ModelFile, count_model
from .errors import Namespace, boundary
from .figures.serving import quoted_numbers_digest
from .frontmatter import load_toml
from .references import Sources, quoted_figures
from .sections import render_section, table_name
from .settings import PageFiles, Site
from .startup import contract

REPO = Path(__file__).resolve().parent.parent
FIGURES_CODE = REPO / "sitebuild" / "figures"
PICTURE_CODE = REPO / "sitebuild" / "bench_picture.py"


@dataclass
class Products:
    """Everything the pages are made of, before anything is written."""

    contents: dict
    site: Site
    sources: Sources
    models: dict[str, ModelFile]
    measured: dict[str, str]  # per language: the readout table the page's session opens with
    rendered: dict
    templates: Path
    languages: dict  # per language: the sim's models (sim.models.load_language), for the question banks
    files: PageFiles | None = None  # the files the pages name, once written (pipeline.write_page_files)


def _remember(memo: dict | None, kind: str, key, compute, computed: list | None = None):
    """compute(), or the value kept from the last build if its key is the same; `computed`
    hears the kinds that were computed this time."""
    if memo is None or memo.get(kind) is None or memo[kind][0] != key:
        value = compute()
        if computed is not None:
            computed.append(kind)
        if memo is None:
            return value
        memo[kind] = (key, value)
    return memo[kind][1]


def site_settings(site_folder: Path, base_url: str | None, contents: dict) -> Site:
    meta_path = site_folder / "meta.toml"
    meta = load_toml(meta_path)
    base = base_urls.choose(base_url, meta, meta_path)
    return Site(base_url=base, site_path=base_urls.site_path(base), updated=meta["updated"].isoformat(),
                alternates=pages.alternates(base, contents))


def figure_namespace(values: dict) -> Namespace:
    return Namespace(values, "fig", "figure", "sitebuild/figures/",
                     "use a figure computed in {defined_in}, or compute it there")


def figure_texts(languages: dict) -> dict:
    """Per language: every figure the chapters print, as text."""
    from . import figures

    with boundary(file=FIGURES_CODE):
        raw = figures.compute(languages)
    texts = {}
    for lang in languages:
        with boundary(page=f"the {lang} figures", file=FIGURES_CODE):
            texts[lang] = figures.formatted(lang, raw[lang])
    return texts


def readout_tables(models: dict, languages: dict) -> dict:
    """Per language: every readout measurement on the book's model, for the page's session."""
    from .figures.measured import readout_table

    with boundary(file=FIGURES_CODE):
        return {lang: readout_table(models[lang].json_text, language) for lang, language in languages.items()}


def bench_pictures(languages: dict, strings: dict) -> dict:
    """Per language: the bench's first picture, computed by the sim as the page's worker would,
    and alpha against temperature for each draft (measured at build time: figures.measured)."""
    from . import bench_picture
    from .figures.measured import alpha_temperature

    pictures = {}
    for lang, language in languages.items():
        with boundary(page=f"the {lang} bench picture", file=PICTURE_CODE):
            pictures[lang] = bench_picture.render(language, strings[lang])
        with boundary(file=FIGURES_CODE):
            pictures[lang]["alpha_temperature"] = alpha_temperature(language)
    return pictures


def prepare(opts, memo: dict | None = None, progress=None, on_models=None) -> Products:
    """Read, check, count, compute and render everything the pages need (opts: pipeline.Options).

    progress (sitebuild.progress.Progress) times the stages; on_models(models, measured) is
    called as soon as the models and their readout tables exist, so that the start files can
    be made (in Node) while the figures are measured and the pages rendered."""
    from sim.models import load_language  # after the content checks, so a broken sim surfaces later

    from .progress import Progress

    progress = progress or Progress()
    with progress.part("pages"):
        contents = content.load_all(opts.site)
        glossary.check(opts.site, contents)  # one term per idea (site/<lang>/glossary.toml)
        js_strings.check(opts.site / "static" / "js", {l: (c.strings, c.strings_path) for l, c in contents.items()},
                         declared={Path(contract.__file__): contract.words()})
        site = site_settings(opts.site, opts.base_url, contents)
        sources = Sources.load(opts.site / "sources.toml")
        paper = {lang: quoted_figures(opts.site / "quoted.toml", lang, sources) for lang in contents}

    kept = "kept from the last build"
    with progress.stage("counting") as note:
        computed: list[str] = []
        # Keyed by the corpus folder alone: a book whose bytes change fails its sha256 check first.
        models = _remember(memo, "models", (str(opts.corpus), opts.download),
                           lambda: {lang: count_model(lang, opts.corpus, opts.download) for lang in contents}, computed)
        model_key = tuple(m.json_text for m in models.values())
        languages = _remember(memo, "languages", model_key, lambda: {
            lang: load_language(json.loads(m.json_text)) for lang, m in models.items()})
        measured = _remember(memo, "measured", model_key, lambda: readout_tables(models, languages), computed)
        note.detail = (", ".join(m.summary for m in models.values()) + "; the first picture's readouts measured"
                       if computed else kept)
    if on_models is not None:
        on_models(models, measured)
    with progress.stage("figures") as note:
        computed = []
        # The serving chapter's ratios read quoted.toml's numbers: an edit there recomputes the figures.
        texts = _remember(memo, "figures", (model_key, quoted_numbers_digest()), lambda: figure_texts(languages), computed)
        strings = {lang: dict(c.strings) for lang, c in contents.items()}
        pictures = _remember(memo, "pictures", (model_key, json.dumps(strings, sort_keys=True)),
                             lambda: bench_pictures(languages, strings), computed)
        note.detail = ("measured on both books (or read from .cache/measurements/, where each is kept)"
                       if "figures" in computed else kept if not computed else "the bench's first picture")

    with progress.part("pages"):
        rendered = render_all(contents, texts, paper, sources, site, pictures[next(iter(contents))]["spec"], pictures)
    return Products(contents, site, sources, models, measured, rendered, opts.templates, languages)


def render_all(contents, texts, paper, sources, site, spec, pictures) -> dict:
    """Check every name the sections use, then render them: per language, (sections, picture).
    spec: the bench's actions and parameters, the same in every language."""
    first = next(iter(contents))
    content.check_names(contents, {"figures": figure_namespace(texts[first]),
                                   "quoted figures": paper[first], "citations": sources.ids})
    content.check_all_parity(contents)
    tryit.check(contents, spec)
    rendered = {}
    for lang, language_content in contents.items():
        values = {
            "fig": figure_namespace(texts[lang]),
            "paper": paper[lang],
            "cite": sources.cite,
            "diagram": diagrams.render,
            "meta": {
                "updated": site.updated,
                "title": language_content.strings["site_title"],
                "canonical": pages.full_page_url(site.base_url, lang) or "",
            },
        }
        tables = table_name(language_content.strings)
        sections = [render_section(s, values, tables=tables) for s in language_content.sections]
        for section, shown in zip(language_content.sections, sections):
            shown["try"] = tryit.render(section, values, spec) if (section.is_chapter or "try" in section.meta) else None
        # The bench quotes the papers' figures too (its alpha-against-temperature line): bench.paper.NAME.
        rendered[lang] = (sections, {**pictures[lang], "paper": paper[lang]})
    return rendered


def write_pages(stage: Path, products: Products) -> None:
    env = pages.environment(products.templates)
    site, files = products.site, products.files
    for route in pages.ROUTES:
        target = stage / route.path / "index.html"
        target.parent.mkdir(parents=True, exist_ok=True)
        with boundary(page=f"/{route.path}"):
            if route.lang is None:
                html = pages.render_index(env, route, products.contents, site, files)
            else:
                html = _render_page(env, products, route, profiles.SITE)
        target.write_text(html, encoding="utf-8")
    with boundary(page="/404.html and the crawlers' files"):
        site_files.write(stage, env, products.contents, site, files)


def package_pages(products: Products) -> dict[str, str]:
    """Per language: the course package's copy of the embed, rendered from the same templates
    with the package's profile (sitebuild/profiles.py)."""
    env = pages.environment(products.templates)
    made = {}
    for lang in products.rendered:
        route = pages.page_route(lang, embed=True)
        with boundary(page=f"the course package's /{route.path}"):
            made[lang] = _render_page(env, products, route, profiles.PACKAGE)
    return made


def _render_page(env, products: Products, route: pages.Route, profile: profiles.Profile) -> str:
    sections, picture = products.rendered[route.lang]
    return pages.render_page(env, route, products.contents[route.lang], sections, products.site, products.files,
                             profile, pages.source_list(products.sources, route.lang), picture)
