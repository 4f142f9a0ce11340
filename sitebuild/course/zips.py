"""Zip files that are the same bytes on every build: entries sorted by name, one fixed date
(1980-01-01, the earliest a zip can hold), fixed permissions and system, fixed compression.

Written here rather than with zipfile so that a member's compressed bytes can be reused: both
languages' packages hold the same 11 MB of Pyodide, and deflating it is most of a package's cost
(about 0.5 s of CPU each time). Members are kept by their sha256 for the life of the process (the
two packages of a build, the development server's rebuilds). tests/sitebuild/test_course_packages.py reads the zips back
with zipfile, which checks every CRC.
"""

from __future__ import annotations

import hashlib
import struct
import zlib

DOS_DATE = (0 << 9) | (1 << 5) | 1  # 1980-01-01
DOS_TIME = 0
# Already compressed: deflating them again costs time and saves nothing.
STORED = (".xz", ".zip", ".whl")
LEVEL = 6
UNIX_FILE = 0o100644 << 16
MADE_BY = (3 << 8) | 20  # Unix, zip 2.0
NEEDED = 20

_deflated: dict[str, tuple[int, int, bytes]] = {}  # sha256 -> (method, crc, bytes in the zip)


def _member(name: str, data: bytes) -> tuple[int, int, bytes]:
    key = hashlib.sha256(data).hexdigest() + ("s" if name.endswith(STORED) else "d")
    if key not in _deflated:
        crc = zlib.crc32(data)
        if name.endswith(STORED):
            _deflated[key] = (0, crc, data)
        else:
            packer = zlib.compressobj(LEVEL, zlib.DEFLATED, -15)
            _deflated[key] = (8, crc, packer.compress(data) + packer.flush())
    return _deflated[key]


def deterministic_zip(files: dict[str, bytes]) -> bytes:
    out, central = bytearray(), bytearray()
    for name in sorted(files):
        data = files[name]
        method, crc, body = _member(name, data)
        encoded = name.encode("utf-8")
        flags = 0x800  # names are UTF-8
        offset = len(out)
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, NEEDED, flags, method, DOS_TIME, DOS_DATE, crc,
                           len(body), len(data), len(encoded), 0) + encoded + body
        central += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, MADE_BY, NEEDED, flags, method, DOS_TIME,
                               DOS_DATE, crc, len(body), len(data), len(encoded), 0, 0, 0, 0, UNIX_FILE,
                               offset) + encoded
    if len(out) + len(central) >= 0xFFFFFFFF or len(files) >= 0xFFFF:
        raise ValueError("a course package this large needs ZIP64, which this writer does not write")
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(files), len(files), len(central), len(out), 0)
    return bytes(out + central + end)
