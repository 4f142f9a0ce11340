import pytest

from corpus.tokenize import tokenize
from sim.text import strip_gutenberg


def words(text: str) -> str:
    return " ".join(text.split())


def tokenize_en(text: str) -> list[str]:
    return tokenize("en", text)


def test_gutenberg_sentinels_and_illustrations_are_stripped():
    text = (
        "Preamble\n*** START OF THE PROJECT GUTENBERG EBOOK 11 ***\n[Illustration]\n"
        "Body  text\n*** END OF THE PROJECT GUTENBERG EBOOK 11 ***\nLicence"
    )
    assert words(strip_gutenberg(text)) == "Body text"


def test_text_without_sentinels_is_kept_whole():
    assert words(strip_gutenberg("a\n\n b\t c")) == "a b c"


def test_english_words_and_punctuation_are_separate_tokens():
    text = "“Curiouser and curiouser!” cried Alice—she was so _much_ surprised."
    assert tokenize_en(text) == [
        "“", "curiouser", "and", "curiouser", "!", "”", "cried", "alice", "—",
        "she", "was", "so", "much", "surprised", ".",
    ]


def test_english_apostrophes_stay_inside_words_and_are_straightened():
    assert tokenize_en("Alice’s cat didn't") == ["alice's", "cat", "didn't"]
    assert tokenize_en("the Queen’ said") == ["the", "queen", "'", "said"]


def test_chinese_is_one_character_per_token_punctuation_included():
    assert tokenize("zh", "孔乙己，\n“温两碗酒。”") == ["孔", "乙", "己", "，", "“", "温", "两", "碗", "酒", "。", "”"]


def test_unknown_language_is_named():
    with pytest.raises(ValueError, match="'fr'"):
        tokenize("fr", "bonjour")
