"""The Markdown renderer puts each table in a region the keyboard reaches (WCAG 2.1.1): focusable,
and named in the page's language by the table's column headings (sitebuild/markdown.py).
The built pages are checked in test_pages.py."""

import re

from sitebuild.markdown import TableName, to_html

TABLE = "| $x$ | $\\min(p, q)$ | tom & \"jerry\" |\n|---|---|---|\n| a | 1 | 2 |\n"
ENGLISH = TableName("Table: {columns}", "; ")
REGION = re.compile(r'<div class="table-scroll" role="region" tabindex="0" aria-label="([^"]*)">\n<table>')


def test_a_table_sits_in_a_focusable_region_named_by_its_headings():
    html = to_html(TABLE, 1, ENGLISH)
    found = REGION.search(html)
    assert found, html
    # a formula reads as its symbols; quotes and ampersands stay inside the attribute
    assert found.group(1) == "Table: x; min(p,q); tom &amp; &quot;jerry&quot;"
    assert html.rstrip().endswith("</table>\n</div>")


def test_the_words_and_the_joins_are_the_languages():
    html = to_html("| 规则 | a |\n|---|---|\n| 一 | 1 |\n", 1, TableName("表格：{columns}", "；"))
    assert 'aria-label="表格：规则；a"' in html


def test_every_table_gets_its_own_region_even_inside_a_block():
    text = f"::: note\n{TABLE}:::\n\n| k | α |\n|---|---|\n| 2 | 0.5 |\n"
    html = to_html(text, 1, ENGLISH)
    assert [m.group(1) for m in REGION.finditer(html)] == ["Table: x; min(p,q); tom &amp; &quot;jerry&quot;", "Table: k; α"]
    assert html.count("<table>") == html.count('class="table-scroll"') == 2


def test_text_without_a_table_has_no_region():
    assert "table-scroll" not in to_html("Prose with a | pipe.\n", 1, ENGLISH)
