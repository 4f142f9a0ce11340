"""The question banks (sitebuild/course/bank.py, answers.py, moodle_xml.py) as the base-URL build
publishes them: Moodle XML that parses, with its question types and tolerances; every numerical
answer recomputed here from the sim's own functions; every choice question with one right option
and feedback on each wrong one; every question linking the chapter (and bench state) that
teaches it. A question the sim cannot compute, or an option it finds wrongly marked, stops the
build at its line: tests/sitebuild/test_broken_inputs.py.
"""

from __future__ import annotations

import re
import tomllib
import xml.etree.ElementTree as ET
from fractions import Fraction
from pathlib import Path

import pytest

from sim import alpha as sim_alpha
from sim import roofline as rl
from sim import stats
from sim.bench import MAX_GAMMA
from sim.weights import Weights
from sitebuild.course import moodle_xml
from sitebuild.figures.measured import readouts

REPO = Path(__file__).resolve().parents[2]
LANGS = ("en", "zh")
GPU, MODEL = rl.gpu(rl.DEFAULT_GPU), rl.model(rl.DEFAULT_MODEL)


def exact(values):
    return [Fraction(str(v)) for v in values]


def alpha_k(p, q, k):
    p, q = exact(p), exact(q)
    return sim_alpha.candidate_alpha(Weights(range(len(p)), p), Weights(range(len(q)), q), k)


def residual(p, q, token):
    """max(0, p - q) normalised, at one token: written out here, not taken from sim.speculative."""
    p, q = exact(p), exact(q)
    excess = [max(Fraction(0), a - b) for a, b in zip(p, q)]
    return excess[token] / sum(excess)


# Each computation the bank names, written again from the sim's functions and the formulas the
# chapters give, so that a wrong wiring in answers.py shows here.
def recomputed(name: str, g: dict, bench: dict):
    tokens = lambda a, n: sum(a ** i for i in range(n + 1))  # noqa: E731  1 + α + … + α^γ
    return {
        "tokens_per_pass": lambda: tokens(g.get("alpha"), g.get("gamma")),
        "mean_acceptance_length": lambda: tokens(g.get("alpha"), g.get("gamma")),
        "speedup": lambda: tokens(g.get("alpha"), g.get("gamma")) / (g.get("gamma") * g.get("c", 0) + 1),
        "best_gamma": lambda: max(range(1, MAX_GAMMA + 1), key=lambda n: (stats.speedup(g["alpha"], n, g["c"]), -n)),
        "all_kept_pct": lambda: g["alpha"] ** g["gamma"] * 100,
        "tokens_written": lambda: g["kept"] + 1,
        "extra_arithmetic_pct": lambda: ((g["gamma"] * g["c"] + g["gamma"] + 1) / tokens(g["alpha"], g["gamma"]) - 1) * 100,
        "draft_acceptance_rate_pct": lambda: (tokens(g["alpha"], g["gamma"]) - 1) / g["gamma"] * 100,
        "gb_per_token": lambda: (MODEL.streamed_bytes + g["batch"] * g["context"] * MODEL.kv_bytes_per_token) / g["batch"] / 1e9,
        "ms_per_step": lambda: rl.step_seconds(GPU, MODEL, g["batch"], g["context"]) * 1e3,
        "lanes_busy_pct": lambda: g["lanes"] / rl.balance_lanes(GPU, MODEL) * 100,
        "balance_lanes": lambda: rl.machine_balance(GPU) / rl.intensity(MODEL, 1),
        "keep_chance": lambda: min(Fraction(1), exact(g["p"])[g["token"]] / exact(g["q"])[g["token"]]),
        "beta": lambda: sum(min(a, b) for a, b in zip(exact(g["p"]), exact(g["q"]))),
        "residual": lambda: residual(g["p"], g["q"], g["token"]),
        "alpha_k": lambda: 1 - (1 - stats.beta(exact(g["p"]), exact(g["q"])))
                          * (1 - stats.beta([residual(g["p"], g["q"], i) for i in range(len(g["p"]))], exact(g["q"])))
                          if g["k"] == 2 else alpha_k(g["p"], g["q"], g["k"]),
        "bench_alpha": lambda: bench["bigram"]["alpha"],
        "bench_unigram_alpha": lambda: bench["unigram"]["alpha"],
        "bench_mean_acceptance_length": lambda: bench["bigram"]["tokens_per_pass_counted"],
        "bench_draft_acceptance_rate_pct": lambda: bench["bigram"]["draft_acceptance_rate"] * 100,
        "bench_speedup": lambda: bench["bigram"]["speedup"],
    }[name]()


def bank_file(site: Path, lang: str) -> ET.Element:
    return ET.parse(site / "course" / moodle_xml.name(lang)).getroot()


def content(lang: str) -> list[dict]:
    return tomllib.loads((REPO / "site" / lang / "questions.toml").read_text(encoding="utf-8"))["question"]


def questions(root: ET.Element) -> dict[str, ET.Element]:
    return {q.findtext("idnumber"): q for q in root.findall("question") if q.get("type") != "category"}


@pytest.mark.parametrize("lang", LANGS)
def test_every_numerical_answer_is_the_sims(base_url_site, sim_languages, lang):
    measured = readouts(sim_languages[lang])
    published = questions(bank_file(base_url_site, lang))
    checked = 0
    for q in content(lang):
        if q["kind"] != "numerical":
            continue
        element = published[f"specdec-{lang}-{q['name']}"]
        (answer,) = element.findall("answer")
        want = float(recomputed(q["answer"], q.get("given", {}), measured))
        assert answer.get("fraction") == "100"
        assert answer.findtext("text") == f"{want:.{q['decimals']}f}", (q["name"], want)
        assert float(answer.findtext("tolerance")) == q["tolerance"]
        checked += 1
    assert checked >= 14


@pytest.mark.parametrize("lang", LANGS)
def test_the_moodle_xml_holds_the_kinds_the_chapters_and_the_feedback(base_url_site, published_at, lang):
    root = bank_file(base_url_site, lang)
    assert root.tag == "quiz"
    category = root.find("question")
    assert category.get("type") == "category" and category.findtext("category/text").startswith("$course$/top/")
    published = questions(root)
    kinds = [q.get("type") for q in published.values()]
    assert set(kinds) == {"numerical", "multichoice"} and kinds.count("numerical") * 2 >= len(kinds)
    page = f"{published_at}{lang}/specdec/"
    per_chapter: dict[str, int] = {}
    for q in content(lang):
        element = published[f"specdec-{lang}-{q['name']}"]
        text = element.findtext("questiontext/text")
        assert f'<a href="{page}#{q["chapter"]}">' in text
        if q.get("bench"):
            assert f'<a href="{page}?{q["bench"]}#{q["chapter"]}">' in text.replace("&amp;", "&")
        assert "{" not in text  # every placeholder filled
        per_chapter[q["chapter"]] = per_chapter.get(q["chapter"], 0) + 1
        if element.get("type") == "multichoice":
            assert element.findtext("single") == "true"
            answers = element.findall("answer")
            assert sorted(a.get("fraction") for a in answers) == ["0"] * (len(answers) - 1) + ["100"]
            assert len(answers) >= 3 and all(a.findtext("feedback/text") for a in answers)
        else:
            assert float(element.findtext("answer/tolerance")) > 0
    chapters = re.findall(r'"(\w+)"', (base_url_site / "embed" / lang / "specdec" / "index.html").read_text(
        encoding="utf-8").split('id="page-chapters">')[1].split("</script>")[0])
    assert chapters and all(per_chapter.get(anchor, 0) >= 2 for anchor in chapters), per_chapter


def test_both_languages_ask_the_same_questions(base_url_site):
    shapes = {}
    for lang in LANGS:
        shapes[lang] = [(q["name"], q["kind"], q.get("answer"), q.get("given"), q.get("tolerance"),
                         [(o["claim"], o.get("correct", False)) for o in q.get("option", [])]) for q in content(lang)]
    assert shapes["en"] == shapes["zh"]
    assert [q.findtext("answer/text") for q in questions(bank_file(base_url_site, "en")).values()
            if q.get("type") == "numerical" and not q.findtext("idnumber").endswith(("bench-mal", "bench-unigram-alpha"))] == \
           [q.findtext("answer/text") for q in questions(bank_file(base_url_site, "zh")).values()
            if q.get("type") == "numerical" and not q.findtext("idnumber").endswith(("bench-mal", "bench-unigram-alpha"))]
