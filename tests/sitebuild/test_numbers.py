"""The bench's two writers of numbers write every number alike: the build's (sitebuild/numbers.py,
the first picture) and the page's (site/static/js/bench/text.js, every picture after it, run here
in Node), over a table of values: ties, signs, zero, the large and the small, figures near a
rounding edge (0.3661, 0.045), and a thousand drawn with a fixed seed."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from sitebuild import numbers

ROOT = Path(__file__).resolve().parents[2]
TEXT_JS = ROOT / "site" / "static" / "js" / "bench" / "text.js"

TABLE = [0, -0.0, 1, -1, 0.5, 1.5, 2.5, -2.5, 0.125, 0.135, 1.005, 1234.5, 999.995, 999999.5, 1234567.891,
         0.0005, 0.00049, 1e-7, 1.5e21, 123456789012, 0.99995, -0.001, 0.045, 0.0445, 0.36, 0.3661, 0.3605,
         4096, 376.4, 2.465, 0.63149, 1.7449999]
# (name in text.js's format, the Python writer, its digits argument or None)
WAYS = [("num", numbers.num, d) for d in (0, 1, 2, 3, 4)] + [
    ("int", numbers.int_, None), ("pct", numbers.pct, None), ("upTo", numbers.up_to, 1), ("upTo", numbers.up_to, 3)]

# An ES module run by `node --input-type=module -e`: text.js reads the page's language as it loads.
NODE_WRITER = """
import { readFileSync } from "node:fs";
const [textJs, lang] = process.argv.slice(-2);
globalThis.document = { documentElement: { lang } };
const { format } = await import(textJs);
const { xs, ways } = JSON.parse(readFileSync(0, "utf8"));
const write = (x) => ways.map(([name, digits]) => (digits === null ? format[name](x) : format[name](x, digits)));
process.stdout.write(JSON.stringify(xs.map((x) => write(Number(x)))));
"""


def values() -> list[float]:
    draw = random.Random(56)
    xs = list(TABLE)
    for _ in range(500):
        e = draw.randrange(-5, 7)
        xs.append((draw.random() - 0.2) * 10 ** e)
        xs.append(round(draw.random() * 10 ** (e + 5)) / 10 ** draw.randrange(0, 6))
    return xs


def js_writer(xs: list[float], lang: str) -> list[list[str]]:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not on PATH (the build needs it too)")
    # Each value as its shortest round-trip text, which JavaScript's Number() reads back exactly.
    stdin = json.dumps({"xs": [repr(x) for x in xs], "ways": [[name, digits] for name, _, digits in WAYS]})
    done = subprocess.run([node, "--input-type=module", "-e", NODE_WRITER, TEXT_JS.as_uri(), lang],
                          input=stdin, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_build_and_the_page_write_every_number_alike(lang):
    xs = values()
    page = js_writer(xs, lang)
    wrong = []
    for x, row in zip(xs, page):
        for (name, write, digits), theirs in zip(WAYS, row):
            ours = write(x) if digits is None else write(x, digits)
            if ours != theirs:
                wrong.append((x, name, digits, ours, theirs))
    assert wrong == [], wrong[:10]


def test_the_figures_once_written_two_ways():
    """First paint wrote "(formula 36.0%)", "0.12" and "1234.50" where the page writes these."""
    assert numbers.pct(0.36) == "36%" and numbers.pct(0.3661) == "36.6%"
    assert numbers.num(0.125) == "0.13"
    assert numbers.num(1234.5) == "1,234.50"
    assert numbers.int_(4096) == "4,096"


def test_a_number_that_is_not_one_is_refused():
    with pytest.raises(ValueError, match="not finite"):
        numbers.num(float("nan"))
    with pytest.raises(TypeError, match="not a number"):
        numbers.num("0.5")
