"""The drawn figures: one template per diagram, every word from the content, colours from CSS."""

import re
from pathlib import Path

import pytest

from sitebuild import diagrams
from sitebuild.content import check_all_parity, load_all
from sitebuild.errors import BuildError

SITE = Path(__file__).resolve().parents[2] / "site"
DIAGRAM_CALL = re.compile(r"\{\{\s*diagram\(\s*\"([a-z]+)\"")


def _labels(name):
    return {label: f"{label} text" for label in diagrams.labels_of(name)}


def test_each_diagram_is_one_template():
    assert diagrams.names() == ["eagle", "lookahead", "medusa"]


@pytest.mark.parametrize("name", ["eagle", "lookahead", "medusa"])
def test_a_diagram_renders_as_one_figure_block_with_its_caption(name):
    html = diagrams.render(name, caption="The caption.", **_labels(name))
    assert html.startswith(f'<figure class="diagram" id="diagram-{name}">')
    assert "<figcaption>The caption.</figcaption>" in html
    assert "\n\n" not in html  # a blank line would end Markdown's HTML block early
    for label in diagrams.labels_of(name):
        assert f"{label} text" in html


@pytest.mark.parametrize("name", ["eagle", "lookahead", "medusa"])
def test_templates_hold_no_words_and_no_colours(name):
    """Words come from the content of each language; colours from diagrams.css (themeable)."""
    source = (diagrams.TEMPLATES / f"{name}.svg.j2").read_text(encoding="utf-8")
    drawn = re.sub(r"\{#.*?#\}|\{\{.*?\}\}|\{%.*?%\}", " ", source, flags=re.S)
    text_nodes = re.findall(r">([^<]+)<", drawn)
    assert not [t for t in text_nodes if re.search(r"[A-Za-z\u4e00-\u9fff]", t)], text_nodes
    assert not re.search(r"(fill|stroke|color)=\"#|style=", source + (
        diagrams.TEMPLATES / "_parts.j2").read_text(encoding="utf-8"))


def test_labels_missing_or_unknown_fail_with_their_names():
    labels = _labels("medusa")
    del labels["own_head"]
    with pytest.raises(BuildError, match=r"missing \['own_head'\]"):
        diagrams.render("medusa", caption="c", **labels)
    with pytest.raises(BuildError, match=r"unknown \['colour'\]"):
        diagrams.render("medusa", caption="c", colour="red", **_labels("medusa"))
    with pytest.raises(BuildError, match="unknown diagram 'hydra'"):
        diagrams.render("hydra", caption="c")


def test_labels_are_escaped():
    labels = _labels("medusa") | {"model": "<b>&</b>"}
    assert "&lt;b&gt;&amp;&lt;/b&gt;" in diagrams.render("medusa", caption="<i>", **labels)


def test_both_languages_draw_the_same_diagrams_in_the_same_chapters():
    content = load_all(SITE)
    drawn = {lang: [(s.anchor, DIAGRAM_CALL.findall(s.body)) for s in c.sections]
             for lang, c in content.items()}
    assert drawn["en"] == drawn["zh"]
    assert ("selfdraft", ["medusa", "eagle", "lookahead"]) in drawn["en"]


def test_a_language_without_a_diagram_fails_the_parity_check(tmp_path):
    from helpers.projects import write_site

    site = write_site(tmp_path, '{{ diagram("medusa", caption="x") }}', "x")
    with pytest.raises(BuildError, match=r'uses diagram\("medusa"\), which zh/.* does not'):
        check_all_parity(load_all(site))
