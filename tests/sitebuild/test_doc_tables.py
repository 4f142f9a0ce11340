"""The docs' tables made from the code (sitebuild/doc_tables.py) are the ones the docs hold."""

from __future__ import annotations

from sitebuild import doc_tables


def test_the_docs_hold_the_tables_made_from_the_code():
    assert not [t.name for t in doc_tables.stale()], "run: python -m sitebuild.doc_tables --write"


def test_a_table_out_of_date_is_found_and_written_again(tmp_path):
    """The check reads what stands between the markers: an edited table is stale until written."""
    table = doc_tables.TABLES[1]
    doc = tmp_path / table.doc
    doc.parent.mkdir(parents=True)
    made = table.made()
    for other in doc_tables.TABLES:
        if other.doc == table.doc and other is not table:
            made += "\n\n" + other.made()
    doc.write_text("# A doc\n\n" + made.replace("| `python` |", "| `stale` |") + "\n\nafter\n", encoding="utf-8")
    assert [t.name for t in doc_tables.stale(tmp_path)] == [table.name]
    doc_tables.write(tmp_path)
    assert not doc_tables.stale(tmp_path)
    assert doc.read_text(encoding="utf-8").startswith("# A doc\n\n") and doc.read_text(encoding="utf-8").endswith("\n\nafter\n")
