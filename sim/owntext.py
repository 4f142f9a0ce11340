"""A reader's own text, checked and counted into the bench's models, in the browser's worker.

The text is tokenised as the books are (sim.text: Gutenberg sentinels stripped, then the
language's tokeniser) and counted by sim.counting, so a book pasted whole gives the build's
model. Nothing here keeps the text: the models hold token counts only.

Bad input raises OwnTextError with a code the page words in its language (strings.toml,
"b_own_error_<code>") and the numbers it quotes:

    empty           nothing but white space
    too_long        more than MAX_CHARACTERS characters (code points)
    binary          NUL, or more than JUNK_SHARE of the characters are not text (NOT_TEXT:
                    control characters, U+FFFD from a broken decoding, private code points)
    other_language  the letters are mostly of the other language (Chinese on the English
                    bench, or the reverse): the tokeniser would count nonsense
    no_words        no letters at all (the bench starts its sentences on words)
    too_short       fewer than MIN_TOKENS tokens: too few for a trigram model to have seen any
                    pair of tokens more than once or twice
"""

from __future__ import annotations

import re

from . import text as text_module
from .counting import count_document
from .errors import BenchError
from .models import load_language
from .text import is_word

MAX_CHARACTERS = 200_000
MIN_TOKENS = 100
JUNK_SHARE = 0.01
SHOWN = 2  # tokens of the prefix the bench starts from


class OwnTextError(BenchError):
    """Bad input: `code` names the problem, `details` the numbers the message quotes."""

    def __init__(self, code: str, message: str, **details):
        super().__init__("text", message)
        self.code = code
        self.details = details


# Characters that are not text: control characters other than white space, U+FFFD (what a
# broken decoding leaves), surrogates, private use and the two noncharacters of each plane's end.
NOT_TEXT = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\uf8ff\ufffd-\uffff"
                      "\U000f0000-\U0010ffff]")
LETTER = re.compile(r"[^\W\d_]")  # a letter of any script (a word character, not a digit or "_")
CHINESE = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]")  # CJK ideographs


def junk(text: str) -> tuple[int, int]:
    """(how many characters are not text, the position of the first, or -1)."""
    found = NOT_TEXT.findall(text)
    return len(found), (NOT_TEXT.search(text).start() if found else -1)


def check_text(lang: str, text) -> list[str]:
    """The text's tokens, or OwnTextError saying what is wrong with it (see the module docstring)."""
    if lang not in text_module.LANGUAGES:
        raise BenchError("lang", f"no tokenizer for language {lang!r}")
    if not isinstance(text, str):
        raise BenchError("text", f"text must be a string; got {type(text).__name__}")
    if not text.strip():
        raise OwnTextError("empty", "the text is empty")
    if len(text) > MAX_CHARACTERS:
        raise OwnTextError("too_long", f"the text has {len(text):,} characters; the limit is {MAX_CHARACTERS:,}",
                           characters=len(text), max=MAX_CHARACTERS)
    bad, first = junk(text)
    if bad and ("\x00" in text or bad > JUNK_SHARE * len(text)):
        raise OwnTextError("binary", f"{bad:,} characters are not text (the first at character {first + 1:,},"
                           f" U+{ord(text[first]):04X}); is it a binary file?",
                           count=bad, position=first + 1, code_point=f"U+{ord(text[first]):04X}")
    letters = len(LETTER.findall(text))
    if not letters:
        raise OwnTextError("no_words", "the text has no letters")
    chinese = len(CHINESE.findall(text))
    if (lang == "en") == (2 * chinese > letters):
        other = "zh" if lang == "en" else "en"
        share = chinese / letters
        raise OwnTextError("other_language", f"the text looks like {other} ({share:.0%} of its letters are "
                           f"Chinese characters); this bench counts {lang}", other=other, share=share)
    tokens = text_module.tokenize(lang, text_module.strip_gutenberg(text))
    if len(tokens) < MIN_TOKENS:
        raise OwnTextError("too_short", f"the text has {len(tokens)} tokens; a trigram model needs at least "
                           f"{MIN_TOKENS}", tokens=len(tokens), min=MIN_TOKENS)
    return tokens


def start_prefix(doc: dict) -> list[int]:
    """The two tokens the bench starts from: the trigram history seen most often, preferring
    one of two words (the earliest in id order among equals), so that the tubes show a rich
    distribution and the sentence a readable start."""
    table, lang = doc["trigram"], doc["lang"]
    word = [is_word(lang, token) for token in doc["vocab"]]
    rows = range(len(table["types"]))
    first, second = table["history"]
    words = [i for i in rows if word[first[i]] and word[second[i]]]
    best = max(words or rows, key=lambda i: (table["total"][i], -i))
    return [column[best] for column in table["history"]]


def count_text(lang: str, text, progress=None) -> dict:
    """The model document of a reader's text (sim.counting); progress(stage) as each stage
    begins (sim.counting.STAGES). Raises OwnTextError for bad input, before anything is counted."""
    tell = progress or (lambda stage: None)
    tell("tokens")
    return count_document(lang, check_text(lang, text), [], progress=tell)


def count_language(lang: str, text, progress=None):
    """(Language, summary) counted from a reader's text (see count_text)."""
    doc = count_text(lang, text, progress)
    if progress:
        progress("models")
    prefix = start_prefix(doc)
    language = load_language(doc)
    language.prefixes = {"bench": prefix, "tube": prefix}
    summary = {
        "characters": len(text),
        "tokens": doc["tokens"],
        "vocab": len(doc["vocab"]),
        "bigram_types": len(doc["bigram"]["next"]),
        "trigram_types": len(doc["trigram"]["next"]),
        "prefix": language.decode(prefix),
    }
    return language, summary
