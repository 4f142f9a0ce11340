"""The trimmed stdlib's docstring removal (sitebuild/startup/in_pyodide.py, run in Pyodide at build
time) walks statement lists only; here, in CPython, it gives the very trees a walk over every node
(ast.walk) gives, on real stdlib modules and on every statement that can hold a def. A walk that
skips one kind of statement list fails the same comparison."""

from __future__ import annotations

import ast
import inspect
import json
import textwrap

import pytest

from sitebuild.startup import in_pyodide

# A def or a class inside every statement that holds statements, each with a docstring.
NESTED = textwrap.dedent('''
    """module"""
    import sys
    class A:
        """class"""
        x = "class"
        def f(self):
            """method"""
        class B:
            """inner"""
            async def g(self):
                """async"""
                return 1
    if sys:
        def h():
            """in if"""
    else:
        def h():
            """in else"""
    for _ in ():
        def i():
            """in for"""
    else:
        def i2():
            """in for-else"""
    while False:
        def j():
            """in while"""
    try:
        def k():
            """in try"""
    except Exception:
        def k2():
            """in except"""
    else:
        def k3():
            """in try-else"""
    finally:
        def k4():
            """in finally"""
    with open(__file__):
        def m():
            """in with"""
    match sys:
        case _:
            def n():
                """in case"""
    def outer():
        def inner():
            """nested def"""
        return inner
''')


def every_node_walk(tree):
    """The removal as it was: the same per-node removal at every node of the tree (ast.walk), so
    the comparison is of the walks alone."""
    holders = in_pyodide.docstring_holders()
    for node in ast.walk(tree):
        if isinstance(node, holders):
            in_pyodide.drop_docstring(node)
    return tree


def sources():
    yield "nested", NESTED
    for module in (json.decoder, textwrap):  # classes, methods, try (small: the check stays cheap)
        yield module.__name__, inspect.getsource(module)


@pytest.mark.parametrize("name,source", list(sources()), ids=[n for n, _ in sources()])
def test_the_statement_walk_removes_the_docstrings_ast_walk_removes(name, source):
    expected = ast.dump(every_node_walk(ast.parse(source)), include_attributes=True)
    assert ast.dump(in_pyodide.without_docstrings(ast.parse(source)), include_attributes=True) == expected


def test_a_walk_that_skips_a_statement_list_is_caught(monkeypatch):
    """The power check: without "finalbody" the def in `finally` keeps its docstring."""
    expected = ast.dump(every_node_walk(ast.parse(NESTED)))
    monkeypatch.setattr(in_pyodide, "STATEMENT_LISTS", tuple(n for n in in_pyodide.STATEMENT_LISTS if n != "finalbody"))
    assert ast.dump(in_pyodide.without_docstrings(ast.parse(NESTED))) != expected
