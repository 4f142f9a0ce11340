"""Count each language's book into the model JSON that the sim package loads (sim/models.py).

The build counts with sim/counting.py, the standard-library counter the page's worker uses for
a reader's own text: one counter for every model the page runs. On the two books it costs about
0.2 s of CPU; the numpy counter it replaced counted in 0.05 s but needed numpy imported first
(0.45 s), so one counter is also the quicker build (docs/architecture.md).
"""

from __future__ import annotations

import json

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from corpus import sources, tokenize
from sim.bench.settings import MAX_CANDIDATES, MAX_GAMMA
from sim.counting import count_document, dump
from sim.free_drafts import SkipGramHeads

from .errors import BuildError


@dataclass
class ModelFile:
    lang: str
    json_text: str
    report: str
    tokens: int = 0
    words: tuple = field(default=(), repr=False)  # the tokens counted, for the heads' table

    @cached_property
    def heads_json(self) -> str:
        """The heads' skip-gram table (sim.free_drafts.SkipGramHeads: a head per gamma, a token per candidate),
        a file of its own beside the model that the page fetches only for the heads draft; counted when asked."""
        index = {t: i for i, t in enumerate(json.loads(self.json_text)["vocab"])}
        heads = SkipGramHeads([index[t] for t in self.words], MAX_GAMMA, MAX_CANDIDATES)
        return json.dumps(heads.to_doc(), separators=(",", ":"))

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


def size_report(doc: dict, text: str) -> str:
    """The model's sizes in one line."""
    bigram, trigram = doc["bigram"], doc["trigram"]
    return (
        f"model {doc['lang']}: vocabulary {len(doc['vocab']):,}, tokens {doc['tokens']:,}, "
        f"bigram types {len(bigram['next']):,} over {len(bigram['types']):,} histories, "
        f"trigram types {len(trigram['next']):,} over {len(trigram['types']):,} histories, "
        f"{len(text.encode('utf-8')):,} bytes"
    )


def model_of_texts(lang: str, texts: list[str], provenance: list[dict]) -> ModelFile:
    """The model file of some books' texts: each tokenised whole (its Gutenberg lines stripped)."""
    tokens = [t for text in texts for t in tokenize.tokenize(lang, text)]
    doc = count_document(lang, tokens, provenance)
    text = dump(doc)
    return ModelFile(lang, text, size_report(doc, text), len(tokens), tuple(tokens))


def count_model(lang: str, corpus: Path, download: bool = False) -> ModelFile:
    texts = read_books(lang, corpus, download)
    provenance = [{"path": b.path, "sha256": b.sha256} for b in sources.book_files(lang)]
    try:
        return model_of_texts(lang, texts, provenance)
    except ValueError as err:
        raise BuildError(f"corpus {lang}: {err}", file=corpus) from None
