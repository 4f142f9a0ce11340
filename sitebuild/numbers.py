"""The build's writer of the bench's numbers: the page's own rule (site/static/js/bench/text.js,
`format`), so that the first picture and every later one write a number alike.

One rule, in the page's two languages' way (which is Intl.NumberFormat's): the number's shortest
round-trip decimal form rounded half away from zero, the whole part grouped by three with ",",
and the same four formats under the same names:

    num(x, digits)  fixed digits (2 unless given)      num(1234.5) "1,234.50", num(0.125) "0.13"
    int(x)          no fraction                        int(4096) "4,096"
    pct(x)          a percentage, at most one decimal   pct(0.36) "36%", pct(0.3661) "36.6%"
    up_to(x, digits) at most that many decimals        up_to(0.5, 3) "0.5"

The templates call them (sitebuild/pages.py makes them the page templates' globals);
tests/sitebuild/test_numbers.py runs a table of values through both writers, this one and
text.js in Node, and compares them.
"""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Context, Decimal

# Enough digits for any finite double written at a few decimals (1.8e308 has 309 whole digits).
_CONTEXT = Context(prec=400)


def written(x, places: int, least: int | None = None, shift: int = 0) -> str:
    """x rounded half away from zero at `places` decimals (after moving the point `shift` places
    right: 2 for a percentage), grouped by three, the fraction's trailing zeros dropped down to
    `least` digits (all kept by default)."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise TypeError(f"a number to write is not a number: {x!r}")
    if not math.isfinite(x):
        raise ValueError(f"a number to write is not finite: {x!r}")
    least = places if least is None else least
    # repr: the shortest decimal that reads back as the same float, as JavaScript's toString.
    digits = Decimal(repr(abs(x))).scaleb(shift, _CONTEXT).quantize(Decimal(1).scaleb(-places), ROUND_HALF_UP, _CONTEXT)
    text = f"{digits:,f}"
    whole, _, fraction = text.partition(".")
    while len(fraction) > least and fraction.endswith("0"):
        fraction = fraction[:-1]
    sign = "-" if x < 0 or (isinstance(x, float) and math.copysign(1, x) < 0) else ""
    return sign + whole + ("." + fraction if fraction else "")


def num(x, digits: int = 2) -> str:
    return written(x, digits)


def int_(x) -> str:
    return written(x, 0)


def pct(x) -> str:
    return written(x, 1, 0, 2) + "%"


def up_to(x, digits: int) -> str:
    return written(x, digits, 0)


# The names the templates call them by (text.js's, `int` for int_).
TEMPLATE_GLOBALS = {"num": num, "int": int_, "pct": pct, "up_to": up_to}
