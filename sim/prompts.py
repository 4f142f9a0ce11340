"""The prompt a request starts from: what prompt lookup and suffix decoding search besides the text written.

The bench writes after a prompt, as an engine writes after a request's prompt; the prompt is the
material a draft without a model quotes from. Kinds (PROMPT_KINDS), for a reader to choose:

- "none": the bench's two-token prefix alone ("said the", "慢慢"): the drafts find only what the
  text itself repeats.
- "echo": a passage of the book (PASSAGES), then its own first ECHO_CUE tokens, as if the request
  said "say it again": the continuation repeats the passage for as long as the target follows it.
- "fresh": the same passage, then the bench's prefix: new text, with the passage only as material.
- "own": the reader's own text, then the bench's prefix (tokens the models do not know are an error).

The passages are quoted from the books (tests/sim/test_free_drafts.py finds each in its book): a
refrain, chosen by running prompt lookup on every 64-token stretch of each book as "echo" and keeping
the one it gains most on. The counted target repeats a passage only where it is sure of each next
token, and a trigram whose context the book holds once gives the book's next token about half its
mass, so sampled at T = 1 it leaves any passage within a few tokens (on the stretches tried, lookup
gains 5% at most). Greedy (T = 0) it takes its likeliest token each time, and from a refrain's opening that
is the refrain again: the Mock Turtle's "beau—ootiful soo—oop!", sung twice as the Gryphon calls for
the chorus, and 九斤老太's "一代不如一代！" in 风波. Greedy n-gram text soon runs into a loop of its
own from any start, so on "fresh" lookup gains too, once the loop has begun; sampled, it writes new
text on every prompt. The figures the chapters quote are measured at build time
(sitebuild/figures/freedrafts.py).
"""

from __future__ import annotations

from .stats import default_prefix

PROMPT_KINDS = ("none", "echo", "fresh", "own")
ECHO_CUE = 3

PASSAGES = {  # a refrain of each book, which the target repeats at T = 0 (see the module docstring)
    "en": ("beau—ootiful soo—oop! beau—ootiful soo—oop! soo—oop of the e—e—evening, beautiful, beauti—ful soup!” "
           "“chorus again!” cried the gryphon, and the mock turtle had just begun to repeat it, when a cry of "
           "“the trial's beginning!” was heard"),
    "zh": "“一代不如一代！”九斤老太说。七斤慢慢地抬起头来，叹一口气说，“皇帝坐了龙庭了。”七斤嫂呆了一刻，忽而恍然大悟的道，“这可好了，",
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
