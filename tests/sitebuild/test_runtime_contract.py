"""The start-up contract (sitebuild/startup/contract.py, issue 42) is declared once and read by the
page's scripts: the doc's tables are made from it, the page's words cover every stage and failure
it lists, and the worker, the client and the boot script use no name it lacks."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from sitebuild.startup import contract

REPO = Path(__file__).resolve().parents[2]
JS = REPO / "site" / "static" / "js"


def js(name: str) -> str:
    """A script without its comments (a comment may name anything)."""
    return re.sub(r"//[^\n]*|/\*.*?\*/", "", (JS / name).read_text(encoding="utf-8"), flags=re.S)


def table(source: str, name: str) -> dict[str, str]:
    """A `const NAME = { key: (...) => text("words"), ... };` table: key -> the words' key."""
    body = re.search(rf"const {name} = \{{(.*?)\n\}};", source, re.S).group(1)
    entries = re.split(r"^  (?=\w+: )", body, flags=re.M)[1:]
    return {entry.split(":")[0]: re.search(r'text\("(\w+)"', entry).group(1) for entry in entries}


def test_the_docs_tables_are_made_from_the_contract():
    doc = (REPO / "docs" / "bench-protocol.md").read_text(encoding="utf-8")
    assert contract.written(doc) == contract.markdown(), "run: python -m sitebuild.startup.contract --write"


def test_names_are_unique_and_kinds_known():
    for group in (contract.FIELDS, contract.STAGES):
        names = [x.name for x in group]
        assert len(names) == len(set(names)), names
    codes = [f.code for f in contract.FAILURES]
    assert len(codes) == len(set(codes))
    assert {f.kind for f in contract.FIELDS} <= set(contract.KINDS)
    assert [contract.attribute(n) for n in ("lockInfo", "pyodideScript", "lang")] == ["lock-info", "pyodide-script", "lang"]


def test_the_page_words_every_stage_and_failure_as_the_contract_says():
    status = js("bench/status.js")
    stages, failures = table(status, "STAGE_TEXT"), table(status, "FAILURES")
    assert stages == {s.name: s.words for s in contract.STAGES if s.words}
    assert failures == {f.code: f.words for f in contract.FAILURES}
    for lang in ("en", "zh"):
        strings = tomllib.loads((REPO / "site" / lang / "strings.toml").read_text(encoding="utf-8"))
        assert not [w for w in [*stages.values(), *failures.values()] if w not in strings], lang


def test_the_worker_and_the_client_use_only_the_contracts_names():
    worker, client = js("startup/sim-worker.js"), js("startup/sim-client.js")
    stages = {s.name for s in contract.STAGES}
    failures = {f.code for f in contract.FAILURES}
    marks = {name for name, _ in contract.MARKS}
    used_stages = set(re.findall(r'progress\("(\w+)"', worker)) | set(re.findall(r'onProgress\("(\w+)"', client))
    failing = [*re.findall(r"StartFailure\(([^,]+),", worker), *re.findall(r"code: (\"\w+\")", worker),
               *re.findall(r"this\.fail\(([^,]+),", client), *re.findall(r"SimFailure\(([^,]+),", client)]
    used_failures = {code for call in failing for code in re.findall(r'"(\w+)"', call)}
    used_marks = set(re.findall(r'mark\("([\w-]+)"', worker)) | set(re.findall(r'mark\("([\w-]+)"', js("startup/pyodide-adapter.js")))
    assert used_stages and used_stages <= stages, used_stages - stages
    assert used_failures and used_failures <= failures, used_failures - failures
    assert used_marks == marks, used_marks ^ marks
    assert {f.code for f in contract.FAILURES if f.by == "client"} <= used_failures
    # The start message's fields the worker reads are the contract's, and it reads each of them.
    carried = {f.name for f in contract.FIELDS if f.message}
    read = set(re.findall(r"\b(?:message|start)\.(\w+)", worker)) - {"type", "contract"}
    assert read == carried, (read - carried, carried - read)


def test_the_boot_script_knows_no_field_by_name():
    """sim-boot.js makes the options and the start message from the contract's list alone (the
    browser's own navigator.serviceWorker, which ifControlled reads, is not the field of that name)."""
    boot = js("startup/sim-boot.js")
    for field in contract.FIELDS:
        if field.name != "worker":  # the worker's address: the script it starts
            assert not re.search(rf"(?<!\bnavigator)\.{field.name}\b|\b{field.name}:", boot), field.name
