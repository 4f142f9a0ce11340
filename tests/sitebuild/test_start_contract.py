"""The start contract (sitebuild/startup/contract.py) is declared once and read by the page's
scripts: the page words every stage and failure with the words it gives, and the worker, the
client and the boot script use no name it lacks."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from sitebuild import js_strings
from sitebuild.errors import BuildError
from sitebuild.startup import contract

REPO = Path(__file__).resolve().parents[2]
JS = REPO / "site" / "static" / "js"


def js(name: str) -> str:
    """A script without its comments (a comment may name anything)."""
    return re.sub(r"//[^\n]*|/\*.*?\*/", "", (JS / name).read_text(encoding="utf-8"), flags=re.S)


def test_names_are_unique_and_kinds_known():
    for group in (contract.FIELDS, contract.STAGES):
        names = [x.name for x in group]
        assert len(names) == len(set(names)), names
    codes = [f.code for f in contract.FAILURES]
    assert len(codes) == len(set(codes))
    assert {f.kind for f in contract.FIELDS} <= set(contract.KINDS)
    assert [contract.attribute(n) for n in ("lockInfo", "pyodideScript", "lang")] == ["lock-info", "pyodide-script", "lang"]


def test_the_page_words_every_stage_and_failure_with_the_contracts_words():
    """The page reads each stage's and failure's words from the contract (page_contract), which the
    build holds to every language's strings; bench/status.js names none of its own."""
    page = contract.page_contract()
    assert page["stageWords"] == {s.name: s.words for s in contract.STAGES if s.words}
    assert page["failureWords"] == {f.code: f.words for f in contract.FAILURES}
    assert set(page["stageWords"]) <= set(page["stages"]) and list(page["failureWords"]) == page["failures"]
    status = js("bench/status.js")
    assert "startContract().stageWords" in status and "startContract().failureWords" in status
    # One failure is worded without the contract: the one where sim-boot.js, which holds it, did not load.
    own = set(re.findall(r'\btext\("(\w+)"', status))
    assert own & set(contract.words()) == {"b_fail_worker"}, own & set(contract.words())
    for lang in ("en", "zh"):
        strings = tomllib.loads((REPO / "site" / lang / "strings.toml").read_text(encoding="utf-8"))
        assert not [w for w in contract.words() if w not in strings], lang


def test_the_build_refuses_a_contract_word_a_language_lacks(tmp_path):
    strings = {"en": ({"b_fail_start": "x"}, tmp_path / "en" / "strings.toml")}
    declared = {Path(contract.__file__): ["b_fail_start", "b_fail_nowhere"]}
    with pytest.raises(BuildError, match="b_fail_nowhere.*en lacks") as refused:
        js_strings.check(tmp_path, strings, declared=declared)
    assert "contract.py" in str(refused.value)


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
