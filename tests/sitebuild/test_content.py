"""Content loading and the parity check between languages, on tiny sites the tests write."""

import re
from pathlib import Path

import pytest
from helpers.projects import CHAPTER, write_site

from sitebuild.content import check_all_parity, load_all, load_section
from sitebuild.errors import BuildError
from sitebuild.markdown import to_html
from sitebuild.references import Sources
from sitebuild.sections import render_section


def test_matching_languages_load(tmp_path):
    site = write_site(tmp_path, "Fast: {{ fig.ms }} [x](#onebyone)", "快：{{ fig.ms }} [甲](#onebyone)")
    content = load_all(site)
    check_all_parity(content)
    assert [s.anchor for s in content["zh"].chapters] == ["onebyone"]


@pytest.mark.parametrize(
    "en,zh,message",
    [
        ("{{ fig.ms }}", "{{ fig.tokens }}", "en/01-onebyone.md:7: uses fig.ms, which zh/01-onebyone.md does not"),
        ('{{ cite("a") }}', '{{ cite("b") }}', 'en/01-onebyone.md:7: uses cite("a"), which zh/01-onebyone.md does not'),
        ("[x](#alpha)", "[x](#beta)", "en/01-onebyone.md:7: uses a link to #alpha, which zh/01-onebyone.md does not"),
        ("", "{{ paper.t5 }}", "zh/01-onebyone.md:7: uses paper.t5, which en/01-onebyone.md does not"),
    ],
)
def test_languages_that_differ_fail_naming_the_one_difference_and_its_line(tmp_path, en, zh, message):
    site = write_site(tmp_path, en, zh)
    with pytest.raises(BuildError, match=re.escape(message)):
        check_all_parity(load_all(site))


def test_interface_strings_must_match_and_the_missing_key_is_named(tmp_path):
    site = write_site(tmp_path, "x", "x", zh_strings='b = "乙"\n')
    with pytest.raises(BuildError, match=r"zh/strings\.toml: no key a \(en/strings\.toml:1 has it\)"):
        check_all_parity(load_all(site))


def test_missing_chapter_in_one_language_names_the_file(tmp_path):
    site = write_site(tmp_path, "x", "x")
    (site / "en" / "02-batch.md").write_text(CHAPTER.format(title="T", caption="C", body="x"))
    with pytest.raises(BuildError, match=r"zh/02-batch\.md: missing, but en has 02-batch\.md"):
        check_all_parity(load_all(site))


def test_bad_front_matter_names_the_file_and_its_own_line(tmp_path):
    path = tmp_path / "01-onebyone.md"
    path.write_text("+++\ntitle = \n+++\n")
    with pytest.raises(BuildError, match=r"01-onebyone\.md:2: the front matter is not valid TOML \(invalid value\)"):
        load_section(path)
    path.write_text('+++\ntitle = "x"\n+++\n')
    with pytest.raises(BuildError, match="lacks caption, part"):
        load_section(path)


@pytest.mark.parametrize(
    "front,line,problem",
    [
        ('title = "T"\ncaption = "C\npart = "drum"', 3, "illegal character"),
        ('title = "T"\ncaption = "C"\npart = """drum', 4, "unterminated string"),
        ('title = "T"\nfaq = [\n  {q = "a"},\n', 3, "invalid value"),
        ('title = "T"\ntitle = "U"\ncaption = "C"\npart = "drum"', 3, "cannot overwrite a value"),
    ],
)
def test_toml_errors_at_the_end_of_the_front_matter_still_name_a_line(tmp_path, front, line, problem):
    path = tmp_path / "01-onebyone.md"
    path.write_text(f"+++\n{front}\n+++\nbody\n")
    with pytest.raises(BuildError, match=rf"01-onebyone\.md:{line}: the front matter is not valid TOML \({problem}"):
        load_section(path)


def test_unknown_figure_names_the_file_line_and_nearest_names(tmp_path):
    from sitebuild.errors import Namespace

    path = tmp_path / "01-onebyone.md"
    path.write_text(CHAPTER.format(title="T", caption="C", body="Fast\n\n{{ fig.ms_per_tokn }}"))
    figures = Namespace({"ms_per_token": "4 ms", "batch": "64"}, "fig", "figure", "figures.py", "fix it")
    with pytest.raises(BuildError, match=r"01-onebyone\.md:9: unknown figure fig\.ms_per_tokn "
                                         r"\(nearest known: ms_per_token\); fix it$"):
        render_section(load_section(path), {"fig": figures})


def test_math_becomes_mathml_and_dollars_in_prose_stay_text():
    html = to_html("Cost $\\gamma c + 1$ per step, from $5 to $6.\n\n$$\\frac{1}{2}$$\n")
    assert "<math" in html and "<mi>&#x003B3;</mi>" in html
    assert "from $5 to $6" in html
    assert 'display="block"' in html


def test_citations_are_numbered_in_source_order(tmp_path):
    path = tmp_path / "sources.toml"
    path.write_text(
        '[[source]]\nid = "a"\ntitle = "A"\nurl = "https://a"\n'
        '[[source]]\nid = "b"\ntitle = "B"\nurl = "https://b"\n'
    )
    sources = Sources.load(path)
    assert str(sources.cite("b", "a")) == (
        '<sup class="cite">[<a href="#src-a">1</a>, <a href="#src-b">2</a>]</sup>'
    )
    with pytest.raises(BuildError, match="unknown source 'c'"):
        sources.cite("c")


# --- the content itself --------------------------------------------------------------------------

import re
import tomllib

SITE = Path(__file__).resolve().parents[2] / "site"
LINK = re.compile(r"(.)\[([^\]]+)\]\(#([a-z0-9-]+)\)(.)")


def _sections(lang):
    return {s.anchor: s for s in load_all(SITE)[lang].sections}


def test_zh_chapter_titles_used_as_links_are_in_title_marks():
    """A link whose text is a section's title reads as a title: 《标题》."""
    sections = _sections("zh")
    titles = {s.title for s in sections.values()}
    bare = []
    for s in sections.values():
        for before, text, anchor, after in LINK.findall(s.body):
            if text in titles and (before, after) != ("《", "》"):
                bare.append((s.path.name, text))
    assert not bare, bare


def test_zh_uses_one_picture_and_one_word_for_each_thing():
    """The music-box cylinder (滚筒, 钉子), 批大小 for batch size, 实测 for what was counted."""
    text = "\n".join(s.body + str(s.meta) for s in _sections("zh").values())
    for wrong in ("大鼓", "小鼓", "鼓上", "的针", "批次", "实际数下来", "实数"):
        assert wrong not in text, wrong
    assert "大滚筒" in text and "钉子" in text and "批大小" in text


def test_every_quoted_figure_says_how_it_was_checked():
    quoted = tomllib.loads((SITE / "quoted.toml").read_text(encoding="utf-8"))
    unchecked = [name for name, entry in quoted.items() if not entry.get("checked", "").strip()]
    assert not unchecked, unchecked


def test_the_medusa_heads_are_numbered_as_the_paper_numbers_them():
    """Head k predicts position t+k+1: the model's own head already predicts t+1."""
    for lang in ("en", "zh"):
        body = _sections(lang)["selfdraft"].body
        assert "$t+k+1$" in body and "$t+1$" in body
