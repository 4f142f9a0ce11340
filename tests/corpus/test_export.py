import json

from corpus.count import count_ngrams
from corpus.export import FORMAT, size_report, to_json

TOKENS = "the cat sat on the mat . the cat ran .".split()


def test_json_is_compact_integer_arrays():
    doc = json.loads(to_json("en", count_ngrams(TOKENS), [{"path": "x", "sha256": "0"}]))
    assert doc["format"] == FORMAT
    assert doc["vocab"][0] == "the"
    assert doc["tokens"] == len(TOKENS)
    for level in ("bigram", "trigram"):
        table = doc[level]
        assert set(table) == {"history", "types", "total", "next", "count"}
        assert sum(table["types"]) == len(table["next"]) == len(table["count"])
        assert all(isinstance(v, int) for v in table["next"] + table["count"] + table["total"])
    assert len(doc["trigram"]["history"]) == 2  # two history positions, oldest first


def test_same_input_gives_identical_bytes():
    a = to_json("en", count_ngrams(TOKENS), [])
    b = to_json("en", count_ngrams(list(TOKENS)), [])
    assert a == b


def test_size_report_names_the_sizes():
    counts = count_ngrams(TOKENS)
    report = size_report("en", counts, to_json("en", counts, []))
    assert "vocabulary 7" in report and "bytes" in report
