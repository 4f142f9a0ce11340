"""The interface-string keys the page's scripts read are found, and checked at build time."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sitebuild.errors import BuildError
from sitebuild.js_strings import check, scan, scan_source

FIXTURES = Path(__file__).with_name("js_fixtures")
KEYS = {"b_ready", "b_slow", "b_failed", "b_draft_bigram", "b_draft_unigram"}


def test_every_literal_call_is_found_with_its_line_and_nothing_else():
    uses = [(u.path.name, u.line, u.key) for u in scan(FIXTURES / "good")]
    assert uses == [
        ("status.js", 13, "b_ready"),
        ("status.js", 14, "b_slow"),
        ("status.js", 15, "b_failed"),
        ("status.js", 23, "b_draft_bigram"),
        ("status.js", 23, "b_draft_unigram"),
    ]


def test_keys_present_in_every_language_pass(tmp_path):
    strings = {lang: (KEYS, tmp_path / lang / "strings.toml") for lang in ("en", "zh")}
    assert len(check(FIXTURES / "good", strings)) == 5


def test_a_key_missing_from_one_language_fails_naming_the_script_line(tmp_path):
    strings = {"en": (KEYS, tmp_path / "en" / "strings.toml"),
               "zh": (KEYS - {"b_slow"}, tmp_path / "zh" / "strings.toml")}
    with pytest.raises(BuildError) as caught:
        check(FIXTURES / "good", strings)
    assert str(caught.value).endswith(
        "good/status.js:14: the script reads interface string 'b_slow', which zh lacks; "
        "add b_slow = \"…\" to every language's strings.toml (missing from zh/strings.toml)")


def test_a_key_the_build_cannot_read_fails(tmp_path):
    root = tmp_path / "js"
    shutil.copytree(FIXTURES, root)
    with pytest.raises(BuildError, match=r"dynamic/choice\.js:4: text\(\) is called without a string literal"):
        check(root, {"en": (KEYS, tmp_path / "strings.toml")})


@pytest.mark.parametrize(
    "source,keys",
    [
        ('text("a")', ["a"]),
        ("context('a'); text ( 'b' )", ["b"]),
        ("obj.text('a'); $text('b')", []),
        ("function text(key) { return key; }", []),
        ("const s = `text(\"in a template string\")`;", []),
        ("text(`x${y}`)", [None]),
        ("text(key)", [None]),
    ],
)
def test_what_counts_as_a_call(source, keys):
    assert [u.key for u in scan_source(source, Path("x.js"))] == keys


def test_the_site_scripts_only_read_keys_that_exist(built_site):
    """The real scripts, against the real strings (the build ran this check; here it is visible)."""
    from sitebuild.content import load_all
    from sitebuild.pipeline import SITE

    contents = load_all(SITE)
    check(SITE / "static" / "js", {l: (c.strings, c.strings_path) for l, c in contents.items()})
