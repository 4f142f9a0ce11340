"""Count each language's book into the model JSON that the sim package loads (sim/models.py)."""

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
    tokens: int = 0

    @property
    def summary(self) -> str:
        """What the build's counting line says of this model."""
        return f"{self.lang} {self.tokens:,} tokens ({len(self.json_text.encode('utf-8')) / 1e3:,.0f} kB)"


def read_books(lang: str, corpus: Path, download: bool = False) -> list[str]:
    """The texts of one language's books, verified; with download, fetching what can be fetched."""
    texts = []
    try:
        for book in sources.book_files(lang):
            root = sources.book_root(book, corpus, download)
            if root == sources.DOWNLOAD_CACHE:
                sources.download(book, root)
            texts.append(sources.read_verified(root, book))
    except (sources.CorpusError, OSError) as err:
        raise BuildError(str(err)) from None
    return texts


def count_model(lang: str, corpus: Path, download: bool = False) -> ModelFile:
    tokens = [t for text in read_books(lang, corpus, download) for t in tokenize.tokenize(lang, text)]
    try:
        counts = count.count_ngrams(tokens)
    except ValueError as err:
        raise BuildError(f"corpus {lang}: {err}", file=corpus) from None
    provenance = [{"path": b.path, "sha256": b.sha256} for b in sources.book_files(lang)]
    text = export.to_json(lang, counts, provenance)
    return ModelFile(lang, text, export.size_report(lang, counts, text), len(tokens))
