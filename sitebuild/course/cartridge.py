"""The Common Cartridge (1.1, the version every LMS that imports cartridges reads) of one
language: the page's chapters as web links, each to the hosted embed showing that chapter
(`chapter=`), so it needs the address the site is published at (--base-url).

Every link is to the embed route, the one route any site may frame (headers.py): Moodle's
restore shows every link in a frame of the course page whatever the cartridge asks for, and the
full page, which only the site itself may frame, would be refused there. The first link is the
bench on its own, whose top line opens the full page in a new tab.

The organization's top-level items are folders: the first holds the bench's link, then
one per group of chapters (the chapters' front matter begins them), holding its chapters' links.
Moodle's restore makes each top-level folder a course section (the first is the course's
"General" section) with the folder's title as the section's summary, and each link a URL
resource; Canvas makes each folder a module of external links (a link outside any folder would go
to a "Misc Module"). The course's name is the page's title, its description the page's lede.
Common Cartridge 1.1 has no field for a course's short name: Moodle makes one of the title
(upper case, spaces removed), which the restore's Schema step lets the author change.
Both show each link in a frame by default; the links open the hosted embed, which lays itself out
for that frame and tells the course page its height (docs/embedding.md, docs/courses.md).
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


PAGE = "page"  # the bench's own link, beside the chapters' anchors


def chapter_url(base_url: str, lang: str, anchor: str) -> str:
    return f"{base_url}{page_route(lang, embed=True).path}?chapter={anchor}"


def page_url(base_url: str, lang: str) -> str:
    return f"{base_url}{page_route(lang, embed=False).path}"


def bench_url(base_url: str, lang: str) -> str:
    return f"{base_url}{page_route(lang, embed=True).path}"


def link_file(anchor: str) -> str:
    return f"weblinks/{anchor}.xml"


def links(course: Course, base_url: str) -> dict[str, tuple[str, str]]:
    """Every web link, by its anchor: (title, address)."""
    found = {PAGE: (course.strings["course_bench_link"], bench_url(base_url, course.lang))}
    for a, n, t in course.chapters:
        found[a] = (f"{n:02d} {t}", chapter_url(base_url, course.lang, a))
    return found


def web_link(title: str, url: str) -> bytes:
    root = element(f"{{{WL}}}webLink", None, element(f"{{{WL}}}title", text=title),
                   element(f"{{{WL}}}url", {"href": url}))
    return document(root, {"": WL})


def manifest(course: Course, base_url: str) -> bytes:
    cp = lambda tag: f"{{{CP}}}{tag}"  # noqa: E731
    lom = lambda tag: f"{{{LOM}}}{tag}"  # noqa: E731
    titled = links(course, base_url)
    item = lambda a: element(cp("item"), {"identifier": f"item-{a}", "identifierref": f"link-{a}"},  # noqa: E731
                             element(cp("title"), text=titled[a][0]))
    folder = lambda ident, title, anchors: element(cp("item"), {"identifier": ident},  # noqa: E731
                                                   element(cp("title"), text=title), *[item(a) for a in anchors])
    folders = [folder("specdec-page", course.title, [PAGE])]
    folders += [folder(f"group-{i}", title, anchors) for i, (title, anchors) in enumerate(course.groups, start=1)]
    resources = [element(cp("resource"), {"identifier": f"link-{a}", "type": WEB_LINK},
                         element(cp("file"), {"href": link_file(a)})) for a in titled]
    text = lambda tag, value: element(lom(tag), None, element(lom("string"), {"language": course.html_lang}, text=value))  # noqa: E731
    root = element(cp("manifest"), {"identifier": f"specdec-{course.lang}-cc"},
        element(cp("metadata"), None,
                element(cp("schema"), text="IMS Common Cartridge"), element(cp("schemaversion"), text="1.1.0"),
                element(lom("lom"), None, element(lom("general"), None, text("title", course.title),
                                                  text("description", course.strings["lede"])))),
        element(cp("organizations"), None,
                element(cp("organization"), {"identifier": "specdec", "structure": "rooted-hierarchy"},
                        element(cp("item"), {"identifier": "root"}, *folders))),
        element(cp("resources"), None, *resources))
    return document(root, {"": CP, "lomimscc": LOM})


def cartridge(course: Course, base_url: str) -> bytes:
    files = {link_file(a): web_link(title, url) for a, (title, url) in links(course, base_url).items()}
    files["imsmanifest.xml"] = manifest(course, base_url)
    return zips.deterministic_zip(files)
