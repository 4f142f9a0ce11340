"""What the build does to a snapshot's memory before saving it: the stdlib's line
tables lose their columns but keep their lines (in_pyodide.without_columns, run here in CPython:
the table's format is the same from 3.11 on), and the heap's free chunks are zeroed past their
links (pyodide_adapter.mjs, zeroFreeChunks, run in Node on a heap laid out by hand as dlmalloc lays it out).
These are the build adapter's own tests, so they name the internals they fake (test_pyodide_adapter.py)."""

from __future__ import annotations

import json
import subprocess
import zlib
from pathlib import Path

import pytest

from sitebuild.startup import in_pyodide, maker

RUNTIME = Path(in_pyodide.__file__).resolve().parent


def codes(code):
    yield code
    for const in code.co_consts:
        if isinstance(const, type(code)):
            yield from codes(const)


@pytest.mark.adapter("without_columns")
def test_line_tables_keep_every_line_and_lose_their_columns():
    source = (RUNTIME / "in_pyodide.py").read_text()
    code = compile(source, "in_pyodide.py", "exec")
    stripped = in_pyodide.without_columns(code)
    pairs = list(zip(codes(code), codes(stripped), strict=True))
    assert len(pairs) > 15  # the module, its functions and their comprehensions
    for before, after in pairs:
        assert list(after.co_lines()) == list(before.co_lines())
        assert all(start is None and end is None for _, _, start, end in after.co_positions())
    before = b"".join(b.co_linetable for b, _ in pairs)
    after = b"".join(a.co_linetable for _, a in pairs)
    assert len(after) < len(before) and len(zlib.compress(after)) < 0.6 * len(zlib.compress(before))


@pytest.mark.adapter("without_columns")
def test_a_line_table_that_loses_its_lines_fails_the_build(monkeypatch):
    """The power check: a rewrite that gets the lines wrong (here: every entry twice, well formed)
    is caught by the co_lines check."""
    rewrite = in_pyodide._lines_only
    monkeypatch.setattr(in_pyodide, "_lines_only", lambda table: rewrite(table) * 2)
    with pytest.raises(ValueError, match="lost its lines"):
        in_pyodide.without_columns(compile("x = 1\n\ny = 2\n", "m.py", "exec"))


# A heap from 64 to 64 + 40 + 32 + 512 + 48 + 40 (the break): an in-use chunk of 40 bytes, a free
# small one of 32, a free tree chunk of 512 (then in use again: the next chunk's P-in-use bit
# clear), an in-use one of 48 and the fake chunk after the top, whose head is its size, 40.
CHECK = """
import { zeroFreeChunks } from %(module)s;
const build = (chunks) => {
  const buffer = new ArrayBuffer(4096);
  const words = new Uint32Array(buffer);
  const bytes = new Uint8Array(buffer);
  bytes.fill(0xab, 64, 4000);
  let at = 64;
  for (const [size, head] of chunks) { words[(at + 4) >> 2] = size | head; at += size; }
  words[8 >> 2] = at; // the break, where _emscripten_get_sbrk_ptr points
  return { HEAPU32: words, HEAPU8: bytes, ___heap_base: 64, _emscripten_get_sbrk_ptr: () => 8 };
};
const heap = build([[40, 3], [32, 1], [512, 0], [48, 2], [40, 0]]);
const report = zeroFreeChunks(heap);
const nonzero = (from, to) => heap.HEAPU8.subarray(from, to).some((b) => b !== 0);
const result = {
  report,
  inUseKept: !nonzero(64 + 8, 64 + 40) ? "zeroed" : "kept",
  smallLinksKept: nonzero(104 + 8, 104 + 16),
  smallRestZeroed: !nonzero(104 + 16, 104 + 32),
  treeLinksKept: nonzero(136 + 8, 136 + 32),
  treeRestZeroed: !nonzero(136 + 32, 136 + 512),
  nextInUseKept: nonzero(648 + 8, 648 + 48),
};
try { zeroFreeChunks(build([[40, 3], [7, 3]])); result.bad = "accepted"; }
catch (error) { result.bad = error.message; }
try { zeroFreeChunks(build([[40, 3], [32, 1], [40, 1]])); result.lying = "accepted"; }
catch (error) { result.lying = error.message; }
console.log(JSON.stringify(result));
"""


@pytest.mark.adapter("zeroFreeChunks")
def test_free_chunks_are_zeroed_past_their_links_and_nothing_else(tmp_path):
    script = tmp_path / "check.mjs"
    script.write_text(CHECK % {"module": json.dumps((RUNTIME / "pyodide_adapter.mjs").as_uri())})
    run = subprocess.run([maker.node_binary(), str(script)], capture_output=True, text=True, check=True)
    result = json.loads(run.stdout)
    assert result["report"] == {"heap": 672, "chunks": 4, "free": 544, "zeroed": 16 + 480}
    assert result["inUseKept"] == "kept" and result["nextInUseKept"]
    assert result["smallLinksKept"] and result["smallRestZeroed"]
    assert result["treeLinksKept"] and result["treeRestZeroed"]
    assert "not dlmalloc's" in result["bad"]  # a chunk too small to be one
    assert "calls in use" in result["lying"]  # a free chunk whose next says it is in use
