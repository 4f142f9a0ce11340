"""Turn LaTeX written in the chapters into MathML at build time: no math library in the browser.

latex2mathml raises on some mistakes but publishes others silently as broken MathML (`\\frac{1`
gives a fraction with one part, `\\foo` an identifier named "\\foo"). So every formula is checked
twice: its braces in the LaTeX, and the number of children of each MathML element that needs a
fixed number. A formula that fails either check fails the build.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from functools import lru_cache

from latex2mathml.converter import convert

MATHML_NS = "{http://www.w3.org/1998/Math/MathML}"
# MathML elements with a fixed number of children (MathML Core, "the layout schemata").
ARITY = {"mfrac": 2, "msub": 2, "msup": 2, "msubsup": 3, "mroot": 2, "munder": 2, "mover": 2,
         "munderover": 3}
PARTS = {"mfrac": "\\frac{…}{…} needs a numerator and a denominator",
         "mroot": "\\sqrt[n]{…} needs an index and a radicand"}
FIX = "write LaTeX that latex2mathml accepts, e.g. $\\frac{a}{b}$, $x_{i}^{2}$"


class MathError(ValueError):
    """A formula that would not render as the author meant."""


# latex2mathml says what went wrong by its exception's name; these are the ones authors meet.
PROBLEMS = {
    "MissingSuperScriptOrSubscriptError": "a ^ or _ has nothing after it",
    "DoubleSuperscriptsError": "two ^ on one base (group them: x^{ab})",
    "DoubleSubscriptsError": "two _ on one base (group them: x_{ab})",
    "ExtraLeftOrMissingRightError": "a \\left has no \\right",
    "NoAvailableTokensError": "a command has nothing to act on (a missing argument)",
    "MissingEndError": "a \\begin{…} has no \\end{…}",
    "NumeratorNotFoundError": "a fraction has no numerator",
    "DenominatorNotFoundError": "a fraction has no denominator",
}


def _problem(err: Exception) -> str:
    """latex2mathml's exception in words: MissingEndError -> 'missing end'."""
    name = type(err).__name__
    words = PROBLEMS.get(name) or re.sub(r"(?<!^)(?=[A-Z])", " ", name.removesuffix("Error")).lower()
    return f"{words}: {err}" if str(err) else words


def check_braces(latex: str) -> None:
    opened = []
    i = 0
    while i < len(latex):
        ch = latex[i]
        if ch == "\\":
            i += 2  # \{ and \} are literal braces
            continue
        if ch == "{":
            opened.append(i)
        elif ch == "}":
            if not opened:
                raise MathError(f"'}}' at character {i + 1} of ${latex}$ closes nothing")
            opened.pop()
        i += 1
    if opened:
        raise MathError(f"'{{' at character {opened[-1] + 1} of ${latex}$ is never closed")


def check_mathml(mathml: str, latex: str) -> None:
    root = ET.fromstring(mathml)
    for element in root.iter():
        tag = element.tag.removeprefix(MATHML_NS)
        want = ARITY.get(tag)
        if want is not None and len(element) != want:
            need = PARTS.get(tag, f"<{tag}> needs {want} parts")
            raise MathError(f"${latex}$ is incomplete: {need}, it has {len(element)}")
        if tag in ("mi", "mo", "mtext") and (element.text or "").startswith("\\"):
            raise MathError(f"${latex}$ uses {element.text}, a command latex2mathml does not know")


@lru_cache(maxsize=4096)
def to_mathml(latex: str, display: str) -> str:
    """MathML for one formula, or MathError saying what is wrong with it."""
    latex = latex.strip()
    check_braces(latex)
    try:
        mathml = convert(latex, display=display)
    except Exception as err:  # latex2mathml's own exception types, one per mistake
        raise MathError(f"${latex}$: {_problem(err)}") from None
    check_mathml(mathml, latex)
    return mathml


def render_math(latex: str, options: dict) -> str:
    """The renderer markdown-it's dollarmath plugin calls."""
    return to_mathml(latex, "block" if options.get("display_mode") else "inline")
