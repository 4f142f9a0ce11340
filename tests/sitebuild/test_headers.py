"""`_headers` as Cloudflare Pages and Netlify read it: every route, file and missing path of the
built site gets exactly one Content-Security-Policy, with the intended frame-ancestors, and no
header is set twice.

The two readings (sitebuild/header_rules.py) are first held to the hosts' own documented
examples, so that the check of the built file means something.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sitebuild import content, header_rules, headers
from sitebuild.pages import ROUTES

HOSTS = header_rules.HOSTS
MISSING = "no-such-file.html"

# --- the readings, against the hosts' documentation -------------------------------------------

# Cloudflare Pages' example file and the headers its documentation says each request gets.
CLOUDFLARE_EXAMPLE = """\
# This is a comment
/secure/page
  X-Frame-Options: DENY
  X-Content-Type-Options: nosniff
  Referrer-Policy: no-referrer

/static/*
  Access-Control-Allow-Origin: *
  X-Robots-Tag: nosnippet

/*
  X-Robots-Tag: noindex
"""


def test_cloudflare_reading_gives_the_documented_headers():
    rules = header_rules.parse(CLOUDFLARE_EXAMPLE)
    sent = lambda path: dict(header_rules.response_headers(rules, path, "cloudflare"))  # noqa: E731
    assert sent("/secure/page") == {"x-frame-options": "DENY", "x-content-type-options": "nosniff",
                                    "referrer-policy": "no-referrer", "x-robots-tag": "noindex"}
    # A header two matching rules set is one header, values joined with a comma, in file order.
    assert sent("/static/styles.css") == {"access-control-allow-origin": "*", "x-robots-tag": "nosnippet, noindex"}
    assert sent("/home") == {"x-robots-tag": "noindex"}


@pytest.mark.parametrize("pattern,path,matches", [
    ("/movies/:title", "/movies/alien", True),
    ("/movies/:title", "/movies/alien/2", False),  # a placeholder is one segment
    ("/static/*", "/static/a/b/c.css", True),  # a splat takes '/' too
    ("/static/*", "/static", False),
    ("/py/*", "/pyodide/v1/pyodide.mjs", False),
    ("/Static/*", "/static/x", False),  # case counts
    ("/", "/", True),
    ("/", "/index.html", False),
])
def test_cloudflare_patterns(pattern, path, matches):
    assert bool(header_rules.cloudflare_regex(pattern).match(path)) is matches


@pytest.mark.parametrize("pattern,path,matches", [
    ("/movies/:title", "/movies/alien", True),
    ("/movies/:title", "/movies/alien/2", False),
    ("/static/*", "/static/a/b/c.css", True),
    ("/static/*", "/static", True),  # a lone * segment is optional, slash and all
    ("/py/*", "/pyodide/v1/pyodide.mjs", True),  # ... so /py/* takes in /pyodide/
    ("/py/:p1", "/pyodide/v1/pyodide.mjs", False),
    ("/Static/*", "/static/x", True),  # case is ignored
    ("/en/specdec", "/en/specdec/", True),  # the trailing slash is optional
    ("/", "/", True),
    ("/", "/index.html", False),
])
def test_netlify_patterns(pattern, path, matches):
    assert bool(header_rules.netlify_regex(pattern).match(path)) is matches


def test_the_old_rules_would_send_two_policies_and_refuse_the_embed():
    """The file before this check: /* and /embed/* both set a CSP, so the embed got both."""
    old = "\n".join(["/*", f"  Content-Security-Policy: {headers.csp(False)}",
                     "/embed/*", f"  Content-Security-Policy: {headers.csp(True)}", ""])
    for host in HOSTS:
        policies = header_rules.resolve(header_rules.parse(old), "/embed/en/specdec/", host)["content-security-policy"]
        assert len(policies) == 2 and "frame-ancestors 'self'" in policies[0]


def test_a_malformed_line_is_named():
    with pytest.raises(ValueError, match=r"_headers:2: not a 'Name: value' header"):
        header_rules.parse("/a\n  no colon here\n")


# --- the built file ---------------------------------------------------------------------------


def expected_frame_ancestors(path: str) -> str:
    embed = {route.path.split("/")[0] for route in ROUTES if route.embed}
    return "*" if path.split("/")[1] in embed else "'self'"


def served_paths(site: Path) -> list[str]:
    """Every route (as a folder and as its index.html), every file, and a missing file in every
    folder but the root (a host sends its 404 page there, with the headers of the path asked for)."""
    paths = set()
    for route in ROUTES:
        paths |= {f"/{route.path}", f"/{route.path}index.html"}
    for file in site.rglob("*"):
        rel = file.relative_to(site).as_posix()
        if file.is_file() and rel != headers.FILE:
            paths.add(f"/{rel}")
        elif file.is_dir():
            paths.add(f"/{rel}/{MISSING}")
    return sorted(paths)


@pytest.fixture(scope="module")
def built_rules(built_site):
    return header_rules.parse((built_site / headers.FILE).read_text(encoding="utf-8"))


def resolution_table(site: Path, rules) -> list[tuple[str, str, list[str]]]:
    """(host, path, the CSP values sent) for every served path."""
    return [(host, path, header_rules.resolve(rules, path, host).get("content-security-policy", []))
            for host in HOSTS for path in served_paths(site)]


def test_every_path_gets_exactly_one_policy_with_the_intended_frame_ancestors(built_site, built_rules):
    table = resolution_table(built_site, built_rules)
    assert len(table) > 2 * 40  # the routes, the start files and the missing paths
    wrong = []
    for host, path, policies in table:
        want = f"frame-ancestors {expected_frame_ancestors(path)}"
        if len(policies) != 1 or not policies[0].endswith(want):
            wrong.append((host, path, policies))
    assert not wrong, wrong[:5]


def test_no_header_is_set_twice_for_any_path(built_site, built_rules):
    for host in HOSTS:
        for path in served_paths(built_site):
            twice = {name: values for name, values in header_rules.resolve(built_rules, path, host).items()
                     if len(values) > 1}
            assert not twice, (host, path, twice)


def test_no_two_rules_match_one_path_under_either_reading(built_site, built_rules):
    for host in HOSTS:
        for path in served_paths(built_site):
            matched = header_rules.matching(built_rules, path, host)
            assert len(matched) == 1, (host, path, [r.pattern for r in matched])


def test_the_embeds_say_noindex_and_nothing_else_does(built_site, built_rules):
    for path in served_paths(built_site):
        sent = header_rules.resolve(built_rules, path, "cloudflare")
        assert ("x-robots-tag" in sent) is (expected_frame_ancestors(path) == "*"), path
        assert sent["x-content-type-options"] == ["nosniff"]


def test_only_the_folders_of_pyodide_and_the_start_files_are_cached_for_good(built_site, built_rules):
    """/py/ and /pyodide/ never change a file under its name (tests/sitebuild/test_start_files.py
    checks the names): browsers keep them a year without asking. Everything else, the pages and
    /static/ above all, is asked for again."""
    forever = "public, max-age=31536000, immutable"
    for host in HOSTS:
        for path in served_paths(built_site):
            sent = header_rules.resolve(built_rules, path, host).get("cache-control")
            kept = path.split("/")[1] in ("py", "pyodide")
            assert sent == ([forever] if kept else None), (host, path, sent)


def test_a_missing_top_level_path_gets_no_policy_but_the_404_page_carries_its_own(built_site, built_rules):
    """No rule may cover every path without overlapping the others: the 404 page sent there
    keeps its <meta> policy (all but frame-ancestors, which a meta tag cannot carry)."""
    for host in HOSTS:
        assert "content-security-policy" not in header_rules.resolve(built_rules, f"/{MISSING}", host)
    assert f'http-equiv="Content-Security-Policy" content="{headers.csp_meta()}"'.replace("'", "&#39;") in \
        (built_site / "404.html").read_text(encoding="utf-8")


def test_the_file_stays_within_cloudflare_limits(built_site, built_rules):
    assert len(built_rules) <= 100  # rules per project
    assert max(len(line) for line in (built_site / headers.FILE).read_text(encoding="utf-8").split("\n")) <= 2000


# --- the course cartridges' links ---------------------------------------------------------------


def cartridge_links(site: Path) -> list[tuple[str, str]]:
    """(cartridge, address) of every web link in every built cartridge."""
    import io
    import xml.etree.ElementTree as ET
    import zipfile

    wl = "{http://www.imsglobal.org/xsd/imsccv1p1/imswl_v1p1}"
    found = []
    for path in sorted((site / "course").glob("*.imscc")):
        archive = zipfile.ZipFile(io.BytesIO(path.read_bytes()))
        for name in archive.namelist():
            if name.startswith("weblinks/"):
                found.append((path.name, ET.fromstring(archive.read(name)).find(f"{wl}url").get("href")))
    return found


def test_every_cartridge_link_may_be_framed_by_a_course_under_the_rule_that_serves_it(base_url_site, published_at):
    """Moodle's restore shows every cartridge link in a frame of the course page (Display: Embed):
    each link's path must get exactly one policy, and it must let any site frame it."""
    rules = header_rules.parse((base_url_site / headers.FILE).read_text(encoding="utf-8"))
    links = cartridge_links(base_url_site)
    assert sorted({name for name, _ in links}) == ["specdec-en.imscc", "specdec-zh.imscc"]
    chapters = {lang: len(c.chapters) for lang, c in content.load_all(Path(__file__).resolve().parents[2] / "site").items()}
    for lang, count in chapters.items():  # the bench's own link and one per chapter
        assert sum(name == f"specdec-{lang}.imscc" for name, _ in links) == 1 + count
    for host in HOSTS:
        for name, url in links:
            assert url.startswith(published_at), url
            path = "/" + url[len(published_at):].split("?")[0]
            policies = header_rules.resolve(rules, path, host).get("content-security-policy", [])
            assert len(policies) == 1 and policies[0].endswith("frame-ancestors *"), (host, name, url, policies)


def test_the_full_page_may_not_be_framed_by_a_course(base_url_site):
    """The check above can fail: the full page's own path gets frame-ancestors 'self'."""
    rules = header_rules.parse((base_url_site / headers.FILE).read_text(encoding="utf-8"))
    for host in HOSTS:
        (policy,) = header_rules.resolve(rules, "/en/specdec/", host)["content-security-policy"]
        assert policy.endswith("frame-ancestors 'self'")


# --- new files and folders ------------------------------------------------------------------


def test_a_new_folder_or_file_is_covered_by_its_folder(tmp_path):
    """What later build steps add (a snapshot, a wheel, a lock file) needs no new rule by name."""
    site = tmp_path / "site"
    for rel in ("index.html", "en/specdec/index.html", "embed/en/specdec/index.html", "py/sim.zip",
                "py/wheels/sim-1.0-py3-none-any.whl", "pyodide/v1/pyodide-lock.json",
                "pyodide/v1/snapshot-en.bin.gz", "snapshots/zh.gz"):
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text("x")
    rules = header_rules.parse(headers.headers_text(site, ROUTES))
    patterns = [r.pattern for r in rules]
    assert "/snapshots/*" in patterns and "/pyodide/*" in patterns
    # /py/ is a prefix of /pyodide/: one placeholder rule per depth instead of Netlify's greedy /py/*.
    assert {"/py/:p1", "/py/:p1/:p2"} <= set(patterns) and "/py/*" not in patterns
    for host in HOSTS:
        for rel in ("py/wheels/sim-1.0-py3-none-any.whl", "pyodide/v1/snapshot-en.bin.gz", "snapshots/zh.gz",
                    "embed/en/specdec/"):
            assert len(header_rules.matching(rules, f"/{rel}", host)) == 1, (host, rel)


def test_the_hosting_guide_gives_the_current_policies_to_copy():
    """docs/hosting.md has header lines for other servers: they must be the policies built."""
    readme = (Path(__file__).resolve().parents[2] / "docs" / "hosting.md").read_text(encoding="utf-8")
    for embed in (False, True):
        assert readme.count(f'"{headers.csp(embed)}"') == 2, embed  # nginx and Apache
