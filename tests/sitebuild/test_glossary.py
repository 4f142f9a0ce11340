"""The glossary check (sitebuild/glossary.py) on small made-up sites: what it reads, how it
matches, and that the real glossaries hold for the real content. The broken-input table
(test_broken_inputs.py) checks the same refusal through a whole build."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitebuild import glossary
from sitebuild.errors import BuildError

SITE = Path(__file__).resolve().parents[2] / "site"

EN = '''[[term]]
use = "draft model"
means = "the model that guesses"
banned = ["drafter", "assistant model"]
'''
ZH = '''[[term]]
use = "KV 缓存"
means = "the key/value cache"
banned = ["键值缓存"]
'''


def make_site(tmp_path: Path, en_chapter: str = "", zh_chapter: str = "", sources: str = "") -> Path:
    site = tmp_path / "site"
    for lang, terms, text in (("en", EN, en_chapter), ("zh", ZH, zh_chapter)):
        (site / lang).mkdir(parents=True)
        (site / lang / "glossary.toml").write_text(terms, encoding="utf-8")
        (site / lang / "01-one.md").write_text(f"+++\ntitle = \"x\"\n+++\n\n{text}\n", encoding="utf-8")
        (site / lang / "strings.toml").write_text('title = "x"\n', encoding="utf-8")
    (site / "sources.toml").write_text(sources, encoding="utf-8")
    (site / "quoted.toml").write_text("", encoding="utf-8")
    return site


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_real_content_uses_only_the_glossarys_terms(lang):
    glossary.check_language(SITE, lang)


@pytest.mark.parametrize("text", ["The drafter guesses.", "Two Drafters guess.", "an Assistant Model"])
def test_an_english_variant_fails_naming_file_line_and_term(tmp_path, text):
    site = make_site(tmp_path, en_chapter=text)
    with pytest.raises(BuildError) as caught:
        glossary.check_language(site, "en")
    error = caught.value
    assert (Path(error.file).name, error.line) == ("01-one.md", 5)
    assert "'draft model'" in str(error) and "banned variant" in str(error)


@pytest.mark.parametrize("text", ["The drafting guesses.", "a redrafter", "`drafter` is an option name"])
def test_english_variants_match_whole_words_outside_code(tmp_path, text):
    glossary.check_language(make_site(tmp_path, en_chapter=text), "en")


def test_a_chinese_variant_matches_inside_a_sentence(tmp_path):
    site = make_site(tmp_path, zh_chapter="每一轮都读一遍键值缓存。")
    with pytest.raises(BuildError, match="'键值缓存' is a banned variant of 'KV 缓存'"):
        glossary.check_language(site, "zh")


def test_shared_files_are_read_in_each_languages_own_fields_only(tmp_path):
    """A paper's title may use any word; a supports.zh line is Chinese prose and is checked."""
    sources = ('[[source]]\nid = "x"\ntitle = "Decoding with Any Assistant Model"\n'
               'supports.en = "fine"\nsupports.zh = "读键值缓存"\n')
    site = make_site(tmp_path, sources=sources)
    glossary.check_language(site, "en")
    with pytest.raises(BuildError) as caught:
        glossary.check_language(site, "zh")
    assert (Path(caught.value.file).name, caught.value.line) == ("sources.toml", 5)


def test_a_term_without_its_variants_is_refused(tmp_path):
    site = make_site(tmp_path)
    (site / "en" / "glossary.toml").write_text('[[term]]\nuse = "pass"\nmeans = "one run"\n', encoding="utf-8")
    with pytest.raises(BuildError, match="term 1 lacks banned"):
        glossary.check_language(site, "en")


def real_variants(lang: str) -> list[tuple[str, str]]:
    return [(term.use, variant) for term in glossary.load_terms(SITE / lang / glossary.GLOSSARY)
            for variant in term.banned]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_banned_variant_of_the_real_glossaries_is_refused(tmp_path, lang):
    """Each variant the real glossary bans, planted in a sentence, fails naming the term to use
    (zh's one-idea terms among them: 额外词元, 采样, 核对, 二元语法草稿模型, 三元语法模型, 自投机, 一组, 保证)."""
    terms = real_variants(lang)
    assert terms
    for use, variant in terms:
        sentence = f"A line with {variant} in it." if lang == "en" else f"这一行里有{variant}。"
        site = make_site(tmp_path / f"{lang}-{abs(hash(variant))}", **{f"{lang}_chapter": sentence})
        (site / lang / "glossary.toml").write_text((SITE / lang / glossary.GLOSSARY).read_text(encoding="utf-8"),
                                                   encoding="utf-8")
        with pytest.raises(BuildError) as caught:
            glossary.check_language(site, lang)
        assert f"'{variant}' is a banned variant of '{use}'" in str(caught.value), (variant, str(caught.value))


def test_the_chosen_zh_terms_are_in_the_glossary():
    uses = {use for use, _ in real_variants("zh")}
    assert {"额外词元", "采样", "核对", "二元语法草稿模型", "三元语法模型", "自投机", "一组", "保证",
            "残差", "被拒", "倍"} <= uses


def test_a_quoted_value_is_read_in_every_language(tmp_path):
    """A quoted figure's `value` is shown on both pages: "2.8×" passes the English check and fails
    the Chinese one, which writes 倍; the real glossary's variant is what fails it."""
    site = make_site(tmp_path)
    (site / "zh" / "glossary.toml").write_text((SITE / "zh" / glossary.GLOSSARY).read_text(encoding="utf-8"),
                                               encoding="utf-8")
    (site / "quoted.toml").write_text('[x]\nvalue = "2.8×"\nsource = "s"\n', encoding="utf-8")
    glossary.check_language(site, "en")
    with pytest.raises(BuildError, match="'8×' is a banned variant of '倍'") as caught:
        glossary.check_language(site, "zh")
    assert (Path(caught.value.file).name, caught.value.line) == ("quoted.toml", 2)


def test_the_chinese_page_prints_its_computed_ratios_with_its_own_word():
    """Every figure the Chinese page inserts passes its glossary: a speed-up reads "1.75 倍", not "1.75×"."""
    from helpers.typed_figures import computed_figures
    from sitebuild import figures
    pattern, found = glossary._matcher(glossary.load_terms(SITE / "zh" / glossary.GLOSSARY))
    shown = figures.formatted("zh", computed_figures()["zh"])
    hits = {name: text for name, text in shown.items() if pattern.search(text)}
    assert not hits, hits
    assert shown["bench_speedup"].endswith(" 倍") and figures.formatted("en", computed_figures()["en"])[
        "bench_speedup"].endswith("×")
