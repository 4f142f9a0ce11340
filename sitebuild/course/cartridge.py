"""The Common Cartridge (1.1, the version every LMS that imports cartridges reads) of one
language: a module with one web link per chapter, each to the hosted embed showing that chapter
(`chapter=`), so it needs the address the site is published at (--base-url).

Canvas, Moodle, Brightspace and Schoology import it as a module of external links; the links
open the hosted embed, which tells the course page its height (docs/embedding.md).
"""

from __future__ import annotations

from ..pages import page_route
from . import zips
from .scorm import Course
from .xml import document, element

CP = "http://www.imsglobal.org/xsd/imsccv1p1/imscp_v1p1"
LOM = "http://ltsc.ieee.org/xsd/imsccv1p1/LOM/manifest"
WL = "http://www.imsglobal.org/xsd/imsccv1p1/imswl_v1p1"
WEB_LINK = "imswl_xmlv1p1"


def name(lang: str) -> str:
    return f"specdec-{lang}.imscc"


def chapter_url(base_url: str, lang: str, anchor: str) -> str:
    return f"{base_url}{page_route(lang, embed=True).path}?chapter={anchor}"


def link_file(anchor: str) -> str:
    return f"weblinks/{anchor}.xml"


def web_link(title: str, url: str) -> bytes:
    root = element(f"{{{WL}}}webLink", None, element(f"{{{WL}}}title", text=title),
                   element(f"{{{WL}}}url", {"href": url}))
    return document(root, {"": WL})


def manifest(course: Course) -> bytes:
    cp = lambda tag: f"{{{CP}}}{tag}"  # noqa: E731
    lom = lambda tag: f"{{{LOM}}}{tag}"  # noqa: E731
    items = [element(cp("item"), {"identifier": f"item-{a}", "identifierref": f"link-{a}"},
                     element(cp("title"), text=f"{n:02d} {t}")) for a, n, t in course.chapters]
    resources = [element(cp("resource"), {"identifier": f"link-{a}", "type": WEB_LINK},
                         element(cp("file"), {"href": link_file(a)})) for a, _, _ in course.chapters]
    root = element(cp("manifest"), {"identifier": f"specdec-{course.lang}-cc"},
        element(cp("metadata"), None,
                element(cp("schema"), text="IMS Common Cartridge"), element(cp("schemaversion"), text="1.1.0"),
                element(lom("lom"), None, element(lom("general"), None, element(lom("title"), None,
                        element(lom("string"), {"language": course.html_lang}, text=course.title))))),
        element(cp("organizations"), None,
                element(cp("organization"), {"identifier": "specdec", "structure": "rooted-hierarchy"},
                        element(cp("item"), {"identifier": "root"},
                                element(cp("item"), {"identifier": "specdec-module"},
                                        element(cp("title"), text=course.title), *items)))),
        element(cp("resources"), None, *resources))
    return document(root, {"": CP, "lomimscc": LOM})


def cartridge(course: Course, base_url: str) -> bytes:
    files = {link_file(a): web_link(f"{n:02d} {t}", chapter_url(base_url, course.lang, a))
             for a, n, t in course.chapters}
    files["imsmanifest.xml"] = manifest(course)
    return zips.deterministic_zip(files)
