"""How a computed figure is printed, declared beside the code that computes it.

A `Figures` collection maps each name to its value and its `Format`; adding a name twice is
an error, so every figure's name is written once, where it is computed. Digits, separators
and unit symbols are shared by both languages; a `Words` format gives each language its own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable


@dataclass(frozen=True)
class Format:
    """Rounding (fixed decimals, or significant digits), then an optional unit symbol.

    Significant digits keep the printed precision honest: a figure computed from a
    bandwidth quoted to three digits (3.35 TB/s) is printed to three, "about 14,300", not
    "14,284"; one computed from an exact count of parameters may keep four.
    """

    decimals: int = 0
    unit: str = ""
    sig: int | None = None  # significant digits; overrides decimals
    space: bool = True  # a space before the unit ("4.48 ms"), none for "%" and "×"
    unit_zh: str | None = None  # the unit as the Chinese page writes it, space included (" 倍")

    def number(self, value: float | int) -> str:
        if self.sig is None:
            return f"{value:,.{self.decimals}f}"
        if value == 0:
            return "0"
        places = self.sig - 1 - math.floor(math.log10(abs(value)))
        rounded = round(value, places)
        if rounded and math.floor(math.log10(abs(rounded))) != math.floor(math.log10(abs(value))):
            places -= 1  # 9.996 rounds up to 10.0: one digit fewer after the point
            rounded = round(value, places)
        return f"{rounded:,.{max(places, 0)}f}"

    def text(self, value: float | int, lang: str) -> str:
        number = self.number(value)
        if lang == "zh" and self.unit_zh is not None:
            return number + self.unit_zh
        if not self.unit:
            return number
        return f"{number} {self.unit}" if self.space else f"{number}{self.unit}"


@dataclass(frozen=True)
class Words:
    """A figure that needs words, one function per language: "8.03 billion" / "80.3 亿"."""

    en: Callable[[float], str]
    zh: Callable[[float], str]

    def text(self, value: float | int, lang: str) -> str:
        return getattr(self, lang)(value)


@dataclass(frozen=True)
class ExactDecimal:
    """An exact fraction printed as its terminating decimal (1/4 -> 0.25); refuses 1/3."""

    def text(self, value: Fraction | int, lang: str) -> str:
        value = Fraction(value)
        places = 0
        while (value * 10**places).denominator != 1:
            places += 1
            if places > 12:
                raise ValueError(f"{value} has no short exact decimal")
        digits = str(abs(value.numerator * 10**places // value.denominator)).rjust(places + 1, "0")
        sign = "-" if value < 0 else ""
        return sign + (f"{digits[:-places]}.{digits[-places:]}" if places else digits)


@dataclass(frozen=True)
class AsReadout:
    """A figure the bench's readouts show too, written by their own writer (sitebuild.numbers, the
    page's rule), so that a sentence quoting a readout prints it as the readout beside it does:
    "36.6%", not "37%". `write` takes the figure's value as the readout takes it (0.366 for 36.6%)."""

    write: Callable[[float], str]

    def text(self, value: float, lang: str) -> str:
        return self.write(value)


COUNT = Format(0)


def fixed(decimals: int, unit: str = "") -> Format:
    return Format(decimals, unit)


def sig(digits: int, unit: str = "") -> Format:
    return Format(unit=unit, sig=digits)


def pct(decimals: int = 0, *, digits: int | None = None) -> Format:
    return Format(decimals, "%", sig=digits, space=False)


def times(decimals: int = 2) -> Format:
    """A ratio: "2.05×" on the English page, "2.05 倍" on the Chinese one (its glossary's form)."""
    return Format(decimals, "×", space=False, unit_zh=" 倍")


@dataclass(frozen=True)
class Figure:
    value: float | int | Fraction
    format: Format | Words | ExactDecimal | AsReadout

    def text(self, lang: str) -> str:
        return self.format.text(self.value, lang)


class Figures(dict):
    """name -> Figure; each name is added once, with its format, where it is computed."""

    def add(self, name: str, value, fmt: Format | Words | ExactDecimal | AsReadout = COUNT) -> None:
        if name in self:
            raise ValueError(f"figure {name!r} is computed twice")
        self[name] = Figure(value, fmt)

    def merge(self, other: "Figures") -> None:
        for name, figure in other.items():
            self.add(name, figure.value, figure.format)

    def raw(self) -> dict:
        """The raw numbers, for tests and for code that compares them."""
        return {name: figure.value for name, figure in self.items()}

    def texts(self, lang: str) -> dict[str, str]:
        """The strings {{ fig.NAME }} inserts on the `lang` page."""
        return {name: figure.text(lang) for name, figure in self.items()}
