"""The SCORM 1.2 package of one language: imsmanifest.xml, the launcher and the embed with
everything it loads (files.py), zipped the same way every build.

One SCO for the whole page, not one per chapter: the bench is one machine whose state runs
through every chapter, and SCORM 1.2 gives each SCO its own suspend data and status, with nothing
shared between them; one SCO per chapter would start Python again at every chapter, restore each
chapter's own copy of the bench, and leave the teacher to set how thirteen statuses add up to one
in the gradebook. The launcher keeps the chapter in lesson_location instead, and shows any chapter
from its own list.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .. import frames, stylesheets
from ..headers import csp_meta
from . import files, zips
from .xml import document, element

HERE = Path(__file__).resolve().parent / "launcher"
LAUNCHER = "index.html"
LAUNCHER_FILES = ("launcher.js", "launcher.css")
LAUNCHER_STYLESHEET = stylesheets.published("all")  # under static/: the embed's own
CP = "http://www.imsproject.org/xsd/imscp_rootv1p1p2"
ADLCP = "http://www.adlnet.org/xsd/adlcp_rootv1p2"
# The strings the launcher's script words (strings.toml, "The course package's launcher").
SCRIPT_STRINGS = ("course_progress", "course_completed", "course_predicted")


@dataclass(frozen=True)
class Course:
    """What a language's packages say: the site's title, the chapters (anchor, number, title) and
    their groups (title, anchors), as the chapters' front matter begins them (content.GROUP_KEY);
    a page without groups is one group under the site's title."""

    lang: str
    html_lang: str
    strings: dict
    chapters: tuple[tuple[str, int, str], ...]
    groups: tuple[tuple[str, tuple[str, ...]], ...]

    @property
    def title(self) -> str:
        return self.strings["site_title"]

    @classmethod
    def of(cls, lang: str, html_lang: str, strings: dict, chapters) -> Course:
        """From the chapters as (anchor, number, title, the title of the group it begins or None)."""
        groups: list[tuple[str, list[str]]] = []
        for anchor, _, _, group in chapters:
            if group or not groups:
                groups.append((group or strings["site_title"], []))
            groups[-1][1].append(anchor)
        return cls(lang, html_lang, strings, tuple((a, n, t) for a, n, t, _ in chapters),
                   tuple((title, tuple(anchors)) for title, anchors in groups))


def name(lang: str) -> str:
    return f"specdec-{lang}-scorm12.zip"


def identifier(lang: str) -> str:
    return f"specdec-{lang}-scorm12"


def launcher_page(env, course: Course) -> bytes:
    data = {"chapters": [anchor for anchor, _, _ in course.chapters],
            "strings": {key: course.strings[key] for key in SCRIPT_STRINGS}}
    html = env.get_template(LAUNCHER).render(
        html_lang=course.html_lang, csp=csp_meta(), t=course.strings, data=data, embed=files.embed_path(course.lang),
        stylesheet=LAUNCHER_STYLESHEET,
        groups=[{"title": title, "chapters": [{"anchor": a, "number": n, "title": t} for a, n, t in course.chapters if a in anchors]}
                for title, anchors in course.groups])
    return html.encode("utf-8")


def manifest(course: Course, names: list[str]) -> bytes:
    cp = lambda tag: f"{{{CP}}}{tag}"  # noqa: E731
    root = element(cp("manifest"), {"identifier": identifier(course.lang), "version": "1.0"},
        element(cp("metadata"), None,
                element(cp("schema"), text="ADL SCORM"), element(cp("schemaversion"), text="1.2")),
        element(cp("organizations"), {"default": "specdec"},
                element(cp("organization"), {"identifier": "specdec"},
                        element(cp("title"), text=course.title),
                        element(cp("item"), {"identifier": "specdec-page", "identifierref": "specdec-sco", "isvisible": "true"},
                                element(cp("title"), text=course.title)))),
        element(cp("resources"), None,
                element(cp("resource"), {"identifier": "specdec-sco", "type": "webcontent",
                                         f"{{{ADLCP}}}scormtype": "sco", "href": LAUNCHER},
                        *[element(cp("file"), {"href": n}) for n in sorted(names)])))
    return document(root, {"": CP, "adlcp": ADLCP})


def package_files(env, site: Path, course: Course, page: str) -> dict[str, bytes]:
    """Every file of the package but its manifest, by its path in the zip; page: the package's copy
    of the embed (sitebuild/render.py, package_pages)."""
    found = files.package_files(site, course.lang, page)
    found[LAUNCHER] = launcher_page(env, course)
    for launcher_file in LAUNCHER_FILES:
        found[launcher_file] = (HERE / launcher_file).read_bytes()
    css = HERE / "launcher.css"  # its frame's threshold written out, as the site's sheets' are
    found[css.name] = frames.expand(css.read_text(encoding="utf-8"), css).encode("utf-8")
    script = found["launcher.js"].decode("utf-8")
    # The launcher's modules are the site's (progress.js), with the chunks they import.
    for rel in files.modules(site, [ref.removeprefix("./") for ref in files.MODULE_REFS.findall(script)]):
        found.setdefault(rel, files.read(site, rel))
    sheet = f"static/{LAUNCHER_STYLESHEET}"
    found.setdefault(sheet, files.read(site, sheet))
    return found


def package(env, site: Path, course: Course, page: str) -> bytes:
    found = package_files(env, site, course, page)
    found["imsmanifest.xml"] = manifest(course, list(found))
    return zips.deterministic_zip(found)
