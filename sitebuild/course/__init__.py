"""Course packages (docs/courses.md), written into the site's course/ folder:

- specdec-<lang>-scorm12.zip: SCORM 1.2, the embed with Pyodide's files and the start files, and a
  launcher that reports to the LMS (scorm.py; what it holds: files.py; how it copes with an LMS's
  MIME table: the package's profile, sitebuild/profiles.py, with which its copy of the embed is
  rendered);
- specdec-<lang>.imscc: a Common Cartridge with one web link per chapter to the hosted embed,
  only with a base URL (cartridge.py);
- specdec-<lang>-questions.xml: the question bank as Moodle XML (moodle_xml.py), its wording from
  site/<lang>/questions.toml and its answers computed by the sim (bank.py, answers.py), only with
  a base URL (each question links the hosted chapter that teaches it).

Made from the staged site's own files, after the pages, so a package holds the bytes the site
serves, and the package's own copy of the embed. The same site gives the same bytes (zips.py).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import jinja2

from . import answers, bank, cartridge, moodle_xml, scorm
from .scorm import Course

FOLDER = "course"
HERE = Path(__file__).resolve().parent


def environment() -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(HERE / "launcher"), autoescape=True,
                              undefined=jinja2.StrictUndefined, keep_trailing_newline=True)


def courses(products) -> list[Course]:
    """Each language's Course, from the build's products (render.Products)."""
    found = []
    for lang, content in products.contents.items():
        sections, _ = products.rendered[lang]
        chapters = [(s["anchor"], s["number"], s["title"], s["group"]) for s in sections if s["is_chapter"]]
        found.append(Course.of(lang, content.strings["html_lang"], dict(content.strings), chapters))
    return found


def question_banks(site_folder: Path, courses: list[Course], languages: dict) -> list[bank.Bank]:
    """Each language's bank, every answer computed and claim checked, the languages alike
    (BuildError at the question's file and line otherwise)."""
    banks = [bank.read(site_folder / c.lang / bank.FILE, [a for a, _, _ in c.chapters], answers.BenchReadouts(languages[c.lang]),
                       c.lang) for c in courses]
    bank.check_parity(banks)
    return banks


def bank_files(banks: list[bank.Bank], courses: list[Course], base_url: str | None) -> dict[str, bytes]:
    """The banks' Moodle XML, by file name: none without a base URL (their links need it)."""
    if not base_url:
        return {}
    by_lang = {c.lang: c for c in courses}
    made = {}
    for b in banks:
        course = by_lang[b.lang]
        chapters = {a: (n, t) for a, n, t in course.chapters}
        made[moodle_xml.name(b.lang)] = moodle_xml.quiz(b, chapters, course.strings, cartridge.page_url(base_url, b.lang))
    return made


def packages(site: Path, courses: list[Course], pages: dict[str, str], base_url: str | None) -> dict[str, bytes]:
    """Every package, by its file name: what write() puts in course/. pages: per language, the
    package's copy of the embed (sitebuild/render.py, package_pages)."""
    env = environment()
    made = {}
    for course in courses:
        made[scorm.name(course.lang)] = scorm.package(env, site, course, pages[course.lang])
        if base_url:
            made[cartridge.name(course.lang)] = cartridge.cartridge(course, base_url)
    return made


def write(stage: Path, courses: list[Course], pages: dict[str, str], base_url: str | None,
          memo: dict | None = None, banks: dict[str, bytes] | None = None) -> str:
    """Write the packages (and the banks' files, bank_files) into stage/course/; return what the
    build says about them. pages: per language, the package's copy of the embed; memo (the
    development server's): packages kept when their inputs' bytes are the same."""
    key = _inputs_digest(stage, courses, pages, base_url) if memo is not None else None
    if memo is not None and memo.get("course packages", (None,))[0] == key:
        made = memo["course packages"][1]
    else:
        made = packages(stage, courses, pages, base_url)
        if memo is not None:
            memo["course packages"] = (key, made)
    made = {**made, **(banks or {})}
    folder = stage / FOLDER
    folder.mkdir()
    for file_name, data in made.items():
        (folder / file_name).write_bytes(data)
    skipped = "" if base_url else ("; no Common Cartridge or question bank (they link to the hosted site: "
                                   "set --base-url)")
    return sizes({name: len(data) for name, data in made.items()}) + skipped


def sizes(lengths: dict[str, int]) -> str:
    """The build's report of the packages' sizes, by file name (docs/courses.md quotes it)."""
    return ", ".join(f"{name} {_size(n)}" for name, n in sorted(lengths.items()))


def _size(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 100_000 else f"{n / 1e3:.1f} kB"


def _inputs_digest(stage: Path, courses: list[Course], pages: dict[str, str], base_url: str | None) -> str:
    from .files import needed

    digest = hashlib.sha256(repr((courses, pages, base_url)).encode())
    for course in courses:
        for rel in needed(stage, course.lang, pages[course.lang]):
            digest.update(rel.encode() + b"\0" + (stage / rel).read_bytes())
    return digest.hexdigest()
