"""The prompt a request starts from: what prompt lookup and suffix decoding search besides the text written.

The bench writes after a prompt, as an engine writes after a request's prompt; the prompt is the
material a draft without a model quotes from. Kinds (PROMPT_KINDS), for a reader to choose:

- "none": the bench's two-token prefix alone ("said the", "慢慢"): the drafts find only what the
  text itself repeats.
- "echo": a passage of the book (PASSAGES), then its own first ECHO_CUE tokens, as if the request
  said "say it again": the continuation repeats the passage for as long as the target follows it
  (a trigram whose context the book holds once puts at least half its mass on the book's next token).
- "fresh": the same passage, then the bench's prefix: new text, with the passage only as material.
- "own": the reader's own text, then the bench's prefix (tokens the models do not know are an error).

The passages are quoted from the books (tests/sim/test_free_drafts.py finds each in its book):
the stretch of about 64 tokens on which the target's own probability of the book's next token is
highest (geometric mean 0.55 in English: "Beautiful Soup", a song that repeats itself; 0.40 in
Chinese: how farm hands are hired, in 故乡), so that "echo" shows what a quoting continuation does.
"""

from __future__ import annotations

from .stats import default_prefix

PROMPT_KINDS = ("none", "echo", "fresh", "own")
ECHO_CUE = 3

PASSAGES = {  # the 64-odd tokens of each book the target itself follows most closely (a song that repeats itself)
    "en": ("“beautiful soup, so rich and green, waiting in a hot tureen! who for such dainties would not "
           "stoop? soup of the evening, beautiful soup! soup of the evening, beautiful soup! beau—ootiful "
           "soo—oop! beau—ootiful soo—oop! soo—oop of the e—e—evening, beautiful, beautiful soup!"),
    "zh": "我们这里给人做工的分三种：整年给一定人家做工的叫长年；按日给人做工的叫短工；自己也种地，只在过年过节以及收租时候来给一定的人家做工",
}


def prompt_ids(language, kind: str, own_text: str | None = None) -> list[int]:
    """The prompt's token ids for a kind of PROMPT_KINDS (own_text for "own"); ValueError if a
    kind is unknown, a passage is missing for the language, or a token is not in its vocabulary."""
    if kind not in PROMPT_KINDS:
        raise ValueError(f"unknown prompt {kind!r}; choose one of {list(PROMPT_KINDS)}")
    prefix = default_prefix(language)
    if kind == "none":
        return prefix
    if kind == "own":
        if not own_text:
            raise ValueError("the prompt \"own\" needs the reader's text")
        return language.encode(own_text) + prefix
    passage = PASSAGES.get(language.lang)
    if passage is None:
        raise ValueError(f"no passage for language {language.lang!r}")
    ids = language.encode(passage)
    return ids + (ids[:ECHO_CUE] if kind == "echo" else prefix)
