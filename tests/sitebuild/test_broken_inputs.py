"""Broken inputs, one per row: each fails the build with one line naming the file, the line in
that file's own numbering, what is wrong and the fix, and leaves the previous site untouched.

Each row breaks a private copy of site/ or templates/ (the `project` fixture) and returns the
message it expects, with {site} and {templates} for the copies' folders and `…` where the text
depends on names the content defines (the nearest figures, for example).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sitebuild.errors import BuildError
from sitebuild.pipeline import Options, build

TOML_VALUE = 'a value is a "quoted string", a number, true or false, a date, [a, list] or {a = table}'
PARITY = "both languages compute, quote, cite, link and draw the same things in each section"
LATEX = "write LaTeX that latex2mathml accepts, e.g. $\\frac{a}{b}$, $x_{i}^{2}$"


def chapter(site: Path, lang: str = "en") -> Path:
    return sorted((site / lang).glob("0*.md"))[0]


def insert_line(path: Path, number: int, text: str) -> int:
    """Insert text as line `number` of the file; return that number."""
    lines = path.read_text(encoding="utf-8").split("\n")
    lines.insert(number - 1, text)
    path.write_text("\n".join(lines), encoding="utf-8")
    return number


def append_paragraph(path: Path, text: str) -> int:
    """Add a paragraph at the end of a chapter; return its line."""
    body = path.read_text(encoding="utf-8").rstrip("\n") + "\n\n"
    path.write_text(body + text + "\n", encoding="utf-8")
    return body.count("\n") + 1


def drop_line(path: Path, pattern: str) -> None:
    lines = path.read_text(encoding="utf-8").split("\n")
    path.write_text("\n".join(l for l in lines if not re.match(pattern, l)), encoding="utf-8")


def line_of(path: Path, needle: str) -> int:
    return next(i for i, l in enumerate(path.read_text(encoding="utf-8").split("\n"), 1) if needle in l)


def rel(path: Path, opts: Options) -> str:
    return "{site}/" + path.relative_to(opts.site).as_posix()


# --- the rows -----------------------------------------------------------------------------------


def bad_toml_value(o: Options) -> str:
    path = chapter(o.site)
    line = insert_line(path, 2, "subtitle = ")
    return f"{rel(path, o)}:{line}: the front matter is not valid TOML (invalid value); {TOML_VALUE}"


def unterminated_string(o: Options) -> str:
    path = chapter(o.site)
    line = insert_line(path, 3, 'subtitle = """never closed')
    return (f"{rel(path, o)}:{line}: the front matter is not valid TOML (unterminated string); "
            'close the quote; text over several lines goes in """triple quotes"""')


def front_matter_never_closed(o: Options) -> str:
    path = chapter(o.site)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("\n+++\n", "\n\n", 1), encoding="utf-8")
    return f"{rel(path, o)}:1: the front matter is never closed; end it with a line holding only '+++'"


def missing_caption(o: Options) -> str:
    path = chapter(o.site, "zh")
    drop_line(path, r"caption\s*=")
    return f"{rel(path, o)}:1: the front matter lacks caption; a chapter needs caption, part, title"


def group_in_one_language_only(o: Options) -> str:
    path = sorted((o.site / "zh").glob("0*.md"))[1]
    line = insert_line(path, 2, 'group = "多出来的一组"')
    return (f"{rel(path, o)}:{line}: begins a group, but en/{path.name} does not; "
            "the same chapters begin the groups in every language")


def first_chapter_in_no_group(o: Options) -> str:
    for lang in ("en", "zh"):
        drop_line(chapter(o.site, lang), r"group\s*=")
    path = chapter(o.site)
    later = next(p for p in sorted((o.site / "en").glob("*.md")) if "\ngroup = " in p.read_text(encoding="utf-8"))
    return (f"{rel(path, o)}:1: chapters before {later.name} belong to no group; "
            'the first chapter begins the first group: add group = "…" to its front matter')


def badly_named_file(o: Options) -> str:
    (o.site / "en" / "1-intro.md").write_text('+++\ntitle = "x"\n+++\n', encoding="utf-8")
    return ("{site}/en/1-intro.md: content files are named NN-anchor.md; "
            "rename it, e.g. 01-onebyone.md (two digits, a dash, a lower-case anchor)")


def unknown_figure_in_a_caption(o: Options) -> str:
    for lang in ("en", "zh"):
        path = chapter(o.site, lang)
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace('caption = "', 'caption = "{{ fig.batch_sise }} ', 1), encoding="utf-8")
    path = chapter(o.site)
    return (f"{rel(path, o)}:{line_of(path, 'caption =')}: unknown figure fig.batch_sise (nearest known: batch…); "
            f"{FIGURE_FIX}")


def figure_in_one_language_only(o: Options) -> str:
    path = chapter(o.site, "zh")
    line = append_paragraph(path, "{{ fig.batch }}")
    other = chapter(o.site).name
    return f"{rel(path, o)}:{line}: uses fig.batch, which en/{other} does not; {PARITY}"


def missing_interface_string(o: Options) -> str:
    path = o.site / "zh" / "strings.toml"
    drop_line(path, r"toc_title\s*=")
    line = line_of(o.site / "en" / "strings.toml", "toc_title =")
    return (f"{{site}}/zh/strings.toml: no key toc_title (en/strings.toml:{line} has it); "
            "every language's strings.toml has the same keys")


def missing_chapter_file(o: Options) -> str:
    path = sorted((o.site / "zh").glob("*.md"))[-1]
    path.unlink()
    return f"{rel(path, o)}: missing, but en has {path.name}; every language has the same content files"


def template_string_missing_everywhere(o: Options) -> str:
    for lang in ("en", "zh"):
        drop_line(o.site / lang / "strings.toml", r"skip_to_content\s*=")
    page = o.templates / "page.html"
    return (f"{{templates}}/page.html:{line_of(page, 't.skip_to_content')}: unknown interface string "
            "t.skip_to_content (…); add skip_to_content = \"…\" to every language's strings.toml "
            "(while building /en/specdec/)")


def script_string_missing(o: Options) -> str:
    js = o.site / "static" / "js" / "extra.js"
    js.write_text('// reads one string\nexport const label = () => text("no_such_label");\n', encoding="utf-8")
    return ("{site}/static/js/extra.js:2: the script reads interface string 'no_such_label', which en lacks; "
            "add no_such_label = \"…\" to every language's strings.toml (missing from en/strings.toml)")


def bad_strings_toml(o: Options) -> str:
    path = o.site / "en" / "strings.toml"
    line = insert_line(path, 2, 'broken = "no end')
    return (f"{{site}}/en/strings.toml:{line}: not valid TOML (illegal character '\\n'); "
            'close the quote on the same line, or use """triple quotes""" for several lines')


def faq_links_nowhere(o: Options) -> str:
    paths = [p for p in sorted((o.site / "en").glob("*.md")) if "[[faq]]" in p.read_text(encoding="utf-8")]
    path = paths[0]
    text = path.read_text(encoding="utf-8")
    anchor = re.search(r'chapter = "([^"]+)"', text).group(1)
    path.write_text(text.replace(f'chapter = "{anchor}"', f'chapter = "{anchor}x"', 1), encoding="utf-8")
    line = line_of(path, f'chapter = "{anchor}x"')
    return (f"{rel(path, o)}:{line}: FAQ question 1 links to chapter "
            f"'{anchor}x', which no section has; use a section's anchor (nearest: {anchor}…)")


def banned_variant(where: str, lang: str, variant: str, term: str, means: str) -> str:
    """The glossary check's one line for a banned variant planted at `where` (file:line)."""
    return (f"{where}: '{variant}' is a banned variant of '{term}' ({means}); "
            f"write '{term}': site/{lang}/glossary.toml keeps one term per idea")


def glossary_variant_in_a_chinese_chapter(o: Options) -> str:
    path = chapter(o.site, "zh")
    line = append_paragraph(path, "每一轮都要把键值缓存读一遍。")
    return banned_variant(f"{rel(path, o)}:{line}", "zh", "键值缓存", "KV 缓存", "the key/value cache")


def glossary_variant_in_an_english_string(o: Options) -> str:
    path = o.site / "en" / "strings.toml"
    line = insert_line(path, 2, 'planted = "The drafters guess ahead."')
    return banned_variant(f"{rel(path, o)}:{line}", "en", "drafter", "draft model", "the cheap model that guesses ahead")


UTF8_FIX = "save it as UTF-8 (in the editor's Save As, choose the encoding UTF-8"


def saved_as_gbk(path: Path, o: Options) -> str:
    """Save a Chinese file as GBK, as an editor on Windows may: the message names its first
    byte that is not UTF-8 and says what it looks like. That byte is where UTF-8's decoder
    stops (a GBK pair can happen to be valid UTF-8: 一 is D2 BB); its line and column here are
    counted in the GBK reading, the character it starts."""
    data = path.read_text(encoding="utf-8").encode("gbk", errors="replace")  # as an editor does: ? for −
    path.write_bytes(data)
    with pytest.raises(UnicodeDecodeError) as caught:
        data.decode("utf-8")
    before = data[: caught.value.start].decode("gbk").split("\n")
    line, column, byte = len(before), len(before[-1]) + 1, data[caught.value.start]
    return (f"{rel(path, o)}:{line}:{column}: not UTF-8 text (byte 0x{byte:02x} is not UTF-8); it looks like GBK "
            f"(read as GBK, line {line} reads \"…\"); {UTF8_FIX}, not GBK)")


def chapter_saved_as_gbk(o: Options) -> str:
    return saved_as_gbk(chapter(o.site, "zh"), o)


def strings_saved_as_gbk(o: Options) -> str:
    return saved_as_gbk(o.site / "zh" / "strings.toml", o)


def chapter_saved_as_latin1(o: Options) -> str:
    """Not UTF-8 and not Chinese either: the message says to save it as UTF-8, and guesses nothing."""
    path = chapter(o.site)
    line = append_paragraph(path, "A café, a naïve guess.")
    path.write_bytes(path.read_text(encoding="utf-8").encode("cp1252"))
    return f"{rel(path, o)}:{line}:6: not UTF-8 text (byte 0xe9 is not UTF-8); {UTF8_FIX})"


def chapter_missing_that_a_faq_links_to(o: Options) -> str:
    """The missing file is named, not the FAQ link to it that the other language's file still
    satisfies (the parity of the file lists is checked before the links between sections)."""
    path = o.site / "zh" / "07-alpha.md"
    assert (o.site / "en" / "07-alpha.md").is_file()
    path.unlink()
    return f"{rel(path, o)}: missing, but en has 07-alpha.md; every language has the same content files"


SCRIPT_FIX = ("the page's Content-Security-Policy blocks it, so it would silently do nothing: put behaviour in "
              "site/static/js/ (raw HTML that does not run may stay)")


FIGURE_FIX = "use a figure computed in sitebuild/figures/, or compute it there"
# Rows that add one paragraph to the first English chapter (or, with "both", to the first chapter
# of both languages, so that they still agree): (name, the paragraph, the message after "file:line: ").
PARAGRAPHS = [
    ("unknown_figure_in_one_language", "Read {{ fig.ms_per_tokn }} here.",
     f"unknown figure fig.ms_per_tokn (nearest known: ms_per_token…); {FIGURE_FIX}"),
    ("unknown_quoted_figure", "{{ paper.no_such_paper_figure }}",
     "unknown quoted figure paper.no_such_paper_figure (…); "
     "add [no_such_paper_figure] with its value and source to site/quoted.toml"),
    ("latex_without_superscript", "A formula $x^$ is broken.", f"$x^$: a ^ or _ has nothing after it; {LATEX}"),
    ("unclosed_fraction", "Half is $\\frac{1$ here.",
     f"'{{' at character 6 of $\\frac{{1$ is never closed; {LATEX}"),
    ("fraction_without_denominator", "$$\n\\frac{1}\n$$",
     f"$\\frac{{1}}$ is incomplete: \\frac{{…}}{{…}} needs a numerator and a denominator, it has 1; {LATEX}"),
    ("unknown_latex_command", "Cost $\\gama c + 1$ per step.",
     f"$\\gama c + 1$ uses \\gama, a command latex2mathml does not know; {LATEX}"),
    ("formula_in_raw_html", "<details><summary>where $\\alpha$ is</summary></details>",
     "a formula ($…$) that is not rendered: “$\\alpha$”; inside raw HTML (<details>) write the symbol itself (α), "
     "not $\\alpha$"),
    ("emphasis_closed_by_cjk_punctuation", "3. **一段代码。**贴几百行程序。",
     "** that is not rendered as emphasis: “**”; inside raw HTML use <strong>; next to CJK punctuation put the "
     "mark outside: **标题**。 not **标题。**"),
    ("unknown_citation", '{{ cite("leviathan2O23") }}',
     "unknown source 'leviathan2O23' (nearest known: leviathan2023…); add it to site/sources.toml, or cite one "
     "listed there", "both"),
    ("script_in_a_chapter", "<script>\nalert('hi')\n</script>", f"a raw <script>; {SCRIPT_FIX}"),
    ("handler_in_a_chapter", "Click <span class=\"k\" onclick=\"go()\">here</span>.",
     f"an onclick= handler in raw HTML; {SCRIPT_FIX}"),
    ("javascript_link_in_a_chapter", '<a href="javascript:go()">go</a> now',
     f"a javascript: address in raw HTML; {SCRIPT_FIX}"),
    ("jinja_syntax_in_a_chapter", "A figure {{ fig.batch",
     "template syntax: unexpected end of template, expected 'end of print statement'; "
     "see https://jinja.palletsprojects.com/templates/", "both"),
]


def paragraph_row(name: str, paragraph: str, message: str, languages: str = "en"):
    def row(o: Options) -> str:
        if languages == "both":
            append_paragraph(chapter(o.site, "zh"), paragraph)
        path = chapter(o.site)
        return f"{rel(path, o)}:{append_paragraph(path, paragraph)}: {message}"

    row.__name__ = name
    return row


def base_url_in_meta_not_http(o: Options) -> str:
    meta = o.site / "meta.toml"
    line = append_paragraph(meta, 'base_url = "ftp://example.org/specdec/"')
    return (f"{rel(meta, o)}:{line}: base_url 'ftp://example.org/specdec/' is not an http:// or https:// "
            "address; give the address the site's root is published at, e.g. https://example.org/courses/specdec/, "
            "or remove the line to publish without one")


def base_url_option_with_a_query(o: Options) -> str:
    o.base_url = "https://example.org/specdec/?lang=en"
    return ("--base-url 'https://example.org/specdec/?lang=en' has a ?query or #fragment; the base URL is a "
            "folder; give the address the site's root is published at, e.g. https://example.org/courses/specdec/")


def questions(o: Options, lang: str = "en") -> Path:
    return o.site / lang / "questions.toml"


def replace_line(path: Path, old: str, new: str) -> int:
    """Replace the first line holding `old` (the whole line) by `new`; return its number."""
    line = line_of(path, old)
    lines = path.read_text(encoding="utf-8").split("\n")
    lines[line - 1] = new
    path.write_text("\n".join(lines), encoding="utf-8")
    return line


def question_the_sim_cannot_compute(o: Options) -> str:
    path = questions(o)
    line = replace_line(path, "given = {alpha = 0.7, gamma = 4}", "given = {alpha = 1.5, gamma = 4}")
    return (f"{rel(path, o)}:{line}: the sim cannot compute tokens_per_pass from {{'alpha': 1.5, 'gamma': 4}}: "
            "alpha must lie in [0, 1], got 1.5; give values the computation accepts")


def option_marked_right_that_the_sim_finds_false(o: Options) -> str:
    """The claims are checked, not trusted: swapping which option is right stops the build."""
    path = questions(o)
    line = replace_line(path, 'claim = "greedy_lowers_alpha"', 'claim = "greedy_raises_alpha"')
    return (f"{rel(path, o)}:{line}: the sim finds claim 'greedy_raises_alpha' false, but the option is marked right; "
            "mark the option the sim finds true as correct = true, and rewrite its feedback")


def question_with_an_unknown_computation(o: Options) -> str:
    path = questions(o)
    line = replace_line(path, 'answer = "tokens_per_pass"', 'answer = "tokens_per_passes"')
    return (f"{rel(path, o)}:{line}: no computation named 'tokens_per_passes'; use one of "
            "sitebuild/course/answers.py's (nearest: tokens_per_pass…)")


def question_that_differs_between_languages(o: Options) -> str:
    path = questions(o, "zh")
    replace_line(path, "given = {alpha = 0.8, gamma = 4, c = 0.1}", "given = {alpha = 0.9, gamma = 4, c = 0.1}")
    start = line_of(path, 'name = "speedup-at-cost"') - 1
    en_start = line_of(questions(o), 'name = "speedup-at-cost"') - 1
    return (f"{rel(path, o)}:{start}: question 'speedup-at-cost' differs from en's 'speedup-at-cost' "
            f"(en/questions.toml:{en_start}); both languages ask the same questions in the same order, with the same "
            "name, chapter, bench, kind, answer, given, decimals, tolerance and claims: only the wording differs")


ROWS = [
    base_url_in_meta_not_http, base_url_option_with_a_query,
    bad_toml_value, unterminated_string, front_matter_never_closed, missing_caption, badly_named_file,
    group_in_one_language_only, first_chapter_in_no_group,
    unknown_figure_in_a_caption, figure_in_one_language_only, missing_interface_string, missing_chapter_file,
    template_string_missing_everywhere, script_string_missing, bad_strings_toml, faq_links_nowhere,
    glossary_variant_in_a_chinese_chapter, glossary_variant_in_an_english_string,
    chapter_saved_as_gbk, strings_saved_as_gbk, chapter_saved_as_latin1, chapter_missing_that_a_faq_links_to,
    question_the_sim_cannot_compute, option_marked_right_that_the_sim_finds_false, question_with_an_unknown_computation,
    question_that_differs_between_languages,
] + [paragraph_row(*row) for row in PARAGRAPHS]


def expected_pattern(expected: str, o: Options) -> str:
    text = expected.replace("{site}", str(o.site)).replace("{templates}", str(o.templates))
    return ".*?".join(re.escape(part) for part in text.split("…"))


@pytest.mark.parametrize("row", ROWS, ids=lambda f: f.__name__)
def test_broken_input_fails_with_its_message_and_keeps_the_previous_site(
    row, project, previous_site, build_memo, tree_digest
):
    project.out, project.force = previous_site, True
    before = tree_digest(previous_site)
    expected = row(project)
    with pytest.raises(BuildError) as caught:
        build(project, build_memo)
    message = str(caught.value)
    print(f"{row.__name__}: {message}")
    assert "\n" not in message
    assert re.fullmatch(expected_pattern(expected, project), message), message
    assert tree_digest(previous_site) == before
    assert not list(previous_site.parent.glob(".out.*")), "a staging folder was left behind"


def test_a_figure_that_cannot_be_printed_names_the_figure_code_at_fault(
    project, previous_site, build_memo, monkeypatch, tree_digest
):
    """The figures code itself is at fault here (a figure declared with a format that cannot
    print its value): the error names the module and line of the figures package."""
    from fractions import Fraction

    from sitebuild import figures
    from sitebuild.figures.formats import ExactDecimal, Figures

    def compute(languages):
        out = {}
        for lang in languages:
            f = Figures()
            f.add("third", Fraction(1, 3), ExactDecimal())
            out[lang] = f
        return out

    monkeypatch.setattr(figures, "compute", compute)
    memo = {kind: kept for kind, kept in build_memo.items() if kind != "figures"}
    project.out, project.force = previous_site, True
    before = tree_digest(previous_site)
    with pytest.raises(BuildError, match=r"^sitebuild/figures/formats\.py:\d+: ValueError: 1/3 has no short "
                                         r"exact decimal.*\(while building the en figures\)$") as caught:
        build(project, memo)
    print(caught.value)
    assert tree_digest(previous_site) == before


def test_raw_html_that_does_not_run_may_stay():
    """The executable-HTML check (sitebuild/raw_html.py) refuses what runs, nothing else: HTML
    that does not run, a <script> shown as code, and prose about an "onset = 3" are fine."""
    from sitebuild import raw_html

    fine = ("Press <kbd>Tab</kbd>.\n\n<details><summary>More</summary>\n\nText.\n\n</details>\n\n"
            "Write `<script>` or `onclick=` in code.\n\n```html\n<button onclick=\"go()\">\n```\n\n"
            "An onset = 3 here. <!-- onclick= in a comment -->")
    raw_html.check(fine, "x.md", 1)
    with pytest.raises(BuildError, match=r"^x\.md:18: an onload= handler"):
        raw_html.check(fine + '\n\n<img src="a.png"\n  onload="go()">', "x.md", 1)
