"""The build, step by step: corpus -> models -> sim -> figures -> pages, into one staged folder."""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import assets, content, output, pages, runtime
from .errors import BuildError
from .frontmatter import load_toml
from .models import build_model
from .references import QuotedFigures, Sources
from .sections import render_section

REPO = Path(__file__).resolve().parent.parent
SITE = REPO / "site"
STAMP_DIR = REPO / ".cache"
# Everything whose change can change the output; the corpus is covered by the manifest's hashes.
INPUTS = ("build.py", "corpus", "sim", "sitebuild", "site", "templates", "package-lock.json")


@dataclass
class Options:
    out: Path
    corpus: Path
    download: bool = False
    force: bool = False
    base_url: str | None = None


@dataclass
class Result:
    out: Path
    skipped: bool
    seconds: float
    reports: list[str] = field(default_factory=list)


def input_fingerprint(opts: Options) -> str:
    digest = hashlib.sha256()
    for name in INPUTS:
        root = REPO / name
        paths = [root] if root.is_file() else sorted(p for p in root.rglob("*") if p.is_file())
        for path in paths:
            if "__pycache__" in path.parts:
                continue
            digest.update(path.relative_to(REPO).as_posix().encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    digest.update(f"{opts.corpus}|{opts.download}|{opts.base_url}|{assets.pyodide_version()}".encode())
    return digest.hexdigest()


def _stamp_path(out: Path) -> Path:
    return STAMP_DIR / f"build-stamp-{hashlib.sha256(str(out.resolve()).encode()).hexdigest()[:12]}"


def site_settings(opts: Options) -> dict:
    meta = load_toml(SITE / "meta.toml")
    base = opts.base_url or meta["base_url"]
    if not base.endswith("/"):
        base += "/"
    return {"base_url": base, "updated": meta["updated"].isoformat()}


def render_languages(contents, languages, site: dict, sources: Sources) -> dict:
    """Per language: its rendered sections and the bench's first picture (shared by page and embed)."""
    from . import bench_picture, diagrams, figures

    raw_figures = figures.compute(languages)
    rendered = {}
    for lang, language_content in contents.items():
        values = {
            "fig": figures.formatted(lang, raw_figures[lang]),
            "paper": QuotedFigures.load(SITE / "quoted.toml", lang, sources),
            "cite": sources.cite,
            "diagram": diagrams.render,
            "meta": {
                **site,
                "title": language_content.strings["site_title"],
                "canonical": site["base_url"] + pages.page_route(lang, False).path,
            },
        }
        sections = [render_section(s, values) for s in language_content.sections]
        rendered[lang] = (sections, bench_picture.render(languages[lang], language_content.strings))
    return rendered


def write_runtime(stage: Path, models: dict) -> dict:
    """Static files, Pyodide and its start-up files, and the models; return their versioned paths."""
    static_versions = assets.copy_static(SITE / "static", stage)
    model_bytes = {lang: model.json_text.encode("utf-8") for lang, model in models.items()}
    python = runtime.write_runtime_files(stage, model_bytes)
    (stage / "models").mkdir()
    model_versions = {}
    for lang, data in model_bytes.items():
        (stage / "models" / f"{lang}.json").write_bytes(data)
        model_versions[lang] = assets.short_hash(data)
    return {**python, "static": static_versions, "models": model_versions}


def write_pages(stage: Path, contents, rendered: dict, site: dict, sources: Sources) -> None:
    env = pages.environment()
    for route in pages.ROUTES:
        target = stage / route.path / "index.html"
        target.parent.mkdir(parents=True, exist_ok=True)
        if route.lang is None:
            html = pages.render_index(env, route, contents, site)
        else:
            sections, picture = rendered[route.lang]
            page_site = {**site, "sources": pages.source_list(sources, route.lang), "bench": picture}
            html = pages.render_page(env, route, contents[route.lang], sections, page_site)
        target.write_text(html, encoding="utf-8")
    (stage / "_headers").write_text(pages.headers_file(), encoding="utf-8")


def build(opts: Options) -> Result:
    """Build the site into opts.out, or do nothing if no input changed since the last build there."""
    started = time.perf_counter()
    fingerprint = input_fingerprint(opts)
    stamp = _stamp_path(opts.out)
    if not opts.force and opts.out.exists() and stamp.exists() and stamp.read_text() == fingerprint:
        return Result(opts.out, True, time.perf_counter() - started, ["nothing changed"])

    # Imported here so that a broken sim surfaces after the content checks have run.
    from sim.models import load_language

    contents = content.load_all(SITE)
    site = site_settings(opts)
    site["alternates"] = pages.alternates(site["base_url"], contents)
    models = {lang: build_model(lang, opts.corpus, opts.download) for lang in contents}
    languages = {lang: load_language(json.loads(m.json_text)) for lang, m in models.items()}
    sources = Sources.load(SITE / "sources.toml")
    rendered = render_languages(contents, languages, site, sources)
    with output.staged(opts.out) as stage:
        site["runtime"] = write_runtime(stage, models)
        write_pages(stage, contents, rendered, site, sources)
    STAMP_DIR.mkdir(exist_ok=True)
    stamp.write_text(fingerprint)
    return Result(opts.out, False, time.perf_counter() - started, [m.report for m in models.values()])
