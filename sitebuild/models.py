"""Count each language's book into the model JSON that the sim package reads."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from corpus import count, export, sources, tokenize

from .errors import BuildError


@dataclass
class ModelFile:
    lang: str
    json_text: str
    report: str


def build_model(lang: str, root: Path, download: bool = False) -> ModelFile:
    books = sources.book_files(lang)
    try:
        if download:
            cache = sources.DOWNLOAD_CACHE
            for book in books:
                sources.download(book, cache)
            root = cache
        texts = [sources.read_verified(root, book) for book in books]
    except (sources.CorpusError, OSError) as err:
        raise BuildError(str(err)) from None
    tokens = [t for text in texts for t in tokenize.tokenize(lang, text)]
    try:
        counts = count.count_ngrams(tokens)
    except ValueError as err:
        raise BuildError(f"corpus {lang} ({root}): {err}") from None
    provenance = [{"path": b.path, "sha256": b.sha256} for b in books]
    text = export.to_json(lang, counts, provenance)
    return ModelFile(lang, text, export.size_report(lang, counts, text))
