"""Where the benchmark scripts get a model: a built site's file, or one counted as the build counts it."""

from __future__ import annotations

from pathlib import Path


def model_json(lang: str, models_dir: Path | None) -> str:
    if models_dir is not None:
        return (models_dir / f"{lang}.json").read_text(encoding="utf-8")
    from corpus.sources import corpus_dir
    from sitebuild.counting import count_model

    return count_model(lang, corpus_dir()).json_text
