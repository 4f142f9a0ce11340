"""Detokenising for display, and encoding a reader's text (the rules are tested in tests/corpus)."""

from __future__ import annotations

import pytest

from sim import text


def test_english_detokenising():
    tokens = ["“", "oh", ",", "dear", "!", "”", "said", "alice", ".", "(", "she", "was", "—", "well", ")",
              "‘", "it's", "a", "well", "-", "known", "fact", "'", "?"]
    expected = "“oh, dear!” said alice. (she was—well) ‘it's a well-known fact'?"
    assert text.detokenize("en", tokens) == expected
    assert text.detokenize("en", []) == ""
    assert text.detokenize("en", [","]) == ","


def test_chinese_detokenising():
    assert text.detokenize("zh", ["慢", "慢", "地", "，", "“", "好", "”"]) == "慢慢地，“好”"


def test_unknown_language():
    with pytest.raises(ValueError, match="language"):
        text.detokenize("fr", ["a"])
    with pytest.raises(ValueError, match="language"):
        text.tokenize("fr", "a")


def test_encode_decode(en, zh):
    ids = en.encode("“Oh, my ears and whiskers!” said the Rabbit.")
    assert en.decode(ids) == "“oh, my ears and whiskers!” said the rabbit."
    assert en.encode("Alice’s  _little_ sister") == en.encode("alice's little sister")
    assert zh.decode(zh.encode("慢慢 地")) == "慢慢地"
    with pytest.raises(ValueError, match="'zzz'"):
        en.encode("alice zzz")
