"""What each chapter's Try-it must leave on the bench, checked on the views it ran through.

One function per chapter anchor, given the final view and the snapshots ({"start": view, label:
view}); the same checks run on the sim in CPython (tests/sitebuild/test_tryit_blocks.py) and on the page's
worker in Chromium (tests/browser/test_tryit.py). They check the state the chapter describes
(settings, passes, rounds, verdicts) and that the readouts moved the way the answer says.
"""

from __future__ import annotations


def _s(view):
    return view["state"]["settings"]


def _ro(view):
    return view["readouts"]


def _roof(view):
    return view["readouts"]["roofline"]


def _plain(view):
    return _roof(view)["plain"]["weights_only"]


def onebyone(end, snaps):
    assert end["state"]["steps"] == end["tape"]["passes"] == 3 and _s(end)["batch"] == 1
    assert end["tape"]["written"] >= end["tape"]["passes"]  # at least one token per turn
    assert _plain(end)["tokens_per_s"] > 200 and _plain(end)["arith_busy_fraction"] < 0.01


def batch(end, snaps):
    assert _s(end)["batch"] == 64 and _s(snaps["start"])["batch"] == 1
    assert _plain(end)["tokens_per_s"] > 60 * _plain(snaps["start"])["tokens_per_s"]
    assert _roof(end)["plain"]["with_cache"]["tokens_per_s"] < _plain(end)["tokens_per_s"]
    assert end["drawing"]["machine"]["drawers_in_use"] > 1


def draft(end, snaps):
    p, gamma = end["pass"], _s(end)["gamma"]
    assert end["state"]["steps"] == 2 and len(p["guesses"]) == gamma
    assert p["lanes_per_sequence"] == gamma + 1 and p["n_written"] == p["n_kept"] + 1


def verify(end, snaps):
    p, gamma = end["pass"], _s(end)["gamma"]
    assert not p["rejected"] and p["bonus"] is not None
    assert p["n_kept"] == gamma and p["n_written"] == gamma + 1
    assert all(g["verdict"] == "kept" for g in p["guesses"])


def rule(end, snaps):
    p = end["pass"]
    assert p["rejected"] and p["replacement"] is not None
    rejected = next(g for g in p["guesses"] if g["verdict"] == "rejected")
    assert rejected["r"] > rejected["ratio"]  # the red line above the bar
    after = p["guesses"][p["guesses"].index(rejected) + 1:]
    assert all(g["verdict"] == "void" for g in after)


def exact(end, snaps):
    assert snaps["exact"]["state"]["rounds"] == 10 and _s(snaps["exact"])["rule"] == "exact"
    assert snaps["exact"]["tubes"]["gap"]["size"] == 0
    assert _s(end)["rule"] == "replace_from_p" and end["state"]["rounds"] == 20
    gap = end["tubes"]["gap"]
    assert gap["size"] > 0.03
    assert (gap["speculative"] > gap["direct"]) == (gap["spec_p"] > gap["p"])  # the counts show the drift


def alpha(end, snaps):
    assert _s(end)["draft"] == "unigram" and _s(snaps["start"])["draft"] == "bigram"
    assert _ro(end)["alpha"] < _ro(snaps["start"])["alpha"]
    assert _ro(end)["tokens_per_pass_counted"] < _ro(snaps["start"])["tokens_per_pass_counted"]
    assert _ro(end)["speedup"] < _ro(snaps["start"])["speedup"]


def speedup(end, snaps):
    assert _s(end)["gamma"] == 8 and _s(snaps["start"])["gamma"] == 4
    assert _ro(end)["tokens_per_pass_counted"] > _ro(snaps["start"])["tokens_per_pass_counted"]
    assert _ro(end)["speedup"] < _ro(snaps["start"])["speedup"]
    assert end["readouts"]["curve_drawing"]["current"] == 8


def idle(end, snaps):
    start = snaps["start"]
    assert _s(end)["batch"] == 256 and _s(start)["batch"] == 1
    assert _roof(start)["tokens_per_s_weights_only"] > _plain(start)["tokens_per_s"]  # speculation pays...
    assert _roof(end)["tokens_per_s_weights_only"] < _plain(end)["tokens_per_s"]  # ...until the room is gone
    assert _roof(end)["lanes"] > _roof(end)["lanes_to_match"] and _roof(end)["arith_busy_fraction"] == 1


def selfdraft(end, snaps):
    same = snaps["same"]
    assert _s(same)["draft"] == "same" and _ro(same)["alpha"] == 1
    assert _ro(same)["tokens_per_pass_counted"] == _s(same)["gamma"] + 1
    assert _ro(same)["speedup"] > _ro(snaps["start"])["speedup"] > _ro(end)["speedup"] > 1
    assert _s(end)["draft"] == "heads" and end["tape"]["passes"] == 11  # the pass the change starts with, and ten
    kept = _ro(end)["accepted_by_position"]
    assert kept[0] > kept[1] > kept[2] > 0  # a head further ahead is kept less often


def readhead(end, snaps):
    one = snaps["one"]
    assert _s(one)["gamma"] == 8 and _s(one)["batch"] == 1 and _roof(one)["lanes"] == 9
    assert _roof(one)["arith_busy_fraction"] < 0.05
    assert _s(end)["batch"] == 64 and _roof(end)["lanes"] == 64 * 9 > _roof(end)["lanes_to_match"]
    assert _roof(end)["arith_busy_fraction"] == 1 and end["drawing"]["machine"]["gauge"]["full"]


def parts(end, snaps):
    assert end["state"]["steps"] == 2 and end["pass"] is not None


def lab(end, snaps):
    start, unigram, wide = snaps["start"], snaps["unigram"], snaps["wide"]
    assert _s(unigram)["draft"] == "unigram" and unigram["tubes"]["gap"]["size"] == 0
    assert _ro(unigram)["alpha"] < _ro(start)["alpha"] and _ro(unigram)["speedup"] < _ro(start)["speedup"]
    assert (_s(wide)["draft"], _s(wide)["gamma"]) == ("bigram", 8)
    assert _ro(wide)["speedup"] < _ro(start)["speedup"]
    assert _s(end) == {**_s(start), "temperature": 0}  # greedy
    assert _ro(end)["alpha_kind"] == "acceptance_rate"  # greedy: counted over many short runs


def serving(end, snaps):
    from sitebuild.figures.serving import capacity_batch

    roof, batch = _roof(end), _s(end)["batch"]
    assert batch == capacity_batch() and _s(snaps["start"])["batch"] == 1
    per_sequence = roof["cache_gb"] / batch  # the batch fills the memory: one more would not fit
    assert roof["weights_gb"] + roof["cache_gb"] <= roof["memory_gb"] < roof["weights_gb"] + roof["cache_gb"] + per_sequence
    assert roof["lanes"] > roof["lanes_to_match"]
    assert roof["tokens_per_s_weights_only"] < _plain(end)["tokens_per_s"]  # weights alone: speculation loses
    assert roof["tokens_per_s_with_cache"] > roof["plain"]["with_cache"]["tokens_per_s"]  # with the caches: it pays
    assert roof["arith_busy_fraction_with_cache"] < 1


def further(end, snaps):
    """Going further: three candidates drawn keep the first guess more often and light 1 + 3 gamma
    lanes; the draft's three likeliest (topk) hold less of p than three draws on these flat n-gram
    models; a lower temperature (both models sharper) moves the top-k chance."""
    start, three, topk = snaps["start"], snaps["three"], snaps["topk"]
    assert _s(three) == {**_s(start), "candidates": 3} and _s(topk) == {**_s(three), "rule": "topk"}
    assert _s(end) == {**_s(topk), "temperature": 0.5}
    assert _ro(three)["alpha_candidates"] > _ro(start)["alpha"]
    assert three["pass"]["lanes_per_sequence"] == 1 + 3 * _s(three)["gamma"] > start["pass"]["lanes_per_sequence"]
    assert _ro(three)["speedup"] > _ro(start)["speedup"]  # batch 1: the extra lanes cost nothing
    assert _ro(topk)["alpha_candidates"] < _ro(three)["alpha_candidates"]
    assert _ro(end)["alpha_candidates"] != _ro(topk)["alpha_candidates"]


def lookup(end, snaps):
    """Prompt lookup: on new text, sampled, few passes have a guess and a pass writes little more than
    one token; on the refrain, greedy, every pass has guesses, the first three positions are kept in
    nearly every pass, and the tape writes several tokens a pass."""
    fresh = snaps["fresh"]
    assert _s(fresh)["draft"] == "lookup" and _s(fresh)["prompt"] == "fresh" and _s(fresh)["temperature"] == 1
    assert _s(end) == {**_s(fresh), "prompt": "echo", "temperature": 0}
    assert _ro(fresh)["coverage"] < 0.2 and _ro(fresh)["tokens_per_pass_counted"] < 1.1
    assert _ro(end)["coverage"] == 1 and min(_ro(end)["accepted_by_position"][:3]) > 0.9
    assert _ro(end)["speedup"] > 4 > 1.1 > _ro(fresh)["speedup"] and _ro(end)["c"] == 0
    assert end["tape"]["passes"] == 8 and end["tape"]["written"] >= 3 * end["tape"]["passes"]


def suffix(end, snaps):
    """Suffix decoding, greedy, on the passage not repeated: the second sentence (the next seed, the
    same request) finds the first in its tree of earlier sentences and writes far more in as many passes."""
    first = snaps["first"]
    assert _s(first)["draft"] == "suffix" and _s(first)["prompt"] == "fresh" and _s(first)["temperature"] == 0
    assert _s(end) == {**_s(first), "seed": _s(first)["seed"] + 1}
    assert first["tape"]["passes"] == end["tape"]["passes"] == 8
    assert end["tape"]["written"] >= 3 * first["tape"]["written"]
    assert _ro(end)["tokens_per_pass_counted"] > 4 and _ro(end)["c"] == 0


EXPECT = {f.__name__: f for f in (onebyone, batch, draft, verify, rule, exact, alpha, speedup, idle,
                                   selfdraft, readhead, parts, lab, serving, lookup, suffix, further)}
