"""The Content Security Policy, and the `_headers` file that carries it as HTTP headers on
static hosts that read one (Cloudflare Pages, Netlify; GitHub Pages does not).

Both hosts send the headers of every rule that matches a path and join a header that two rules
set with a comma; two Content-Security-Policy values are two policies, both enforced. A `/*`
rule with `frame-ancestors 'self'` beside an `/embed/*` rule with `frame-ancestors *` would
therefore refuse the embed everywhere. So no two rules here match the same path, under either
host's reading (sitebuild/header_rules.py): one rule per top-level file or folder of the built
site, read from the folder as built, so every file a build step adds is covered by its folder.

Two folders never change a file under its name, so browsers may keep their files for a year
without asking again (`immutable`): /py/, whose start files carry their content's hash in
their names (sitebuild/startup), and /pyodide/, which holds one pinned release per version
folder. A repeat visit then takes the 20 MB of Pyodide's files and the start files from the cache without a round trip per
file. The pages and /static/ (whose modules import each other by plain names) are revalidated.
"""

from __future__ import annotations

from pathlib import Path

CSP_COMMON = (
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; "
    "img-src 'self' data:; connect-src 'self'; worker-src 'self'; object-src 'none'; "
    "base-uri 'none'; form-action 'none'"
)
# Course platforms frame the embed route; everything else may only be framed by the site itself.
FRAME_ANCESTORS = {False: "'self'", True: "*"}
FILE = "_headers"
# Top-level folders whose files never change under their names (see the docstring).
IMMUTABLE_FOLDERS = ("py", "pyodide")
CACHE_FOREVER = ("Cache-Control", "public, max-age=31536000, immutable")
# Read by the host, never served; the build's marker is written after this file, and served.
NOT_SERVED = {FILE, "_redirects"}
WRITTEN_LATER = (".specdec-site.json",)
HEADER = """\
# HTTP headers for Cloudflare Pages and Netlify, which read this file (GitHub Pages does not).
# Written by build.py from the built site: one rule per top-level file or folder. No two rules
# match the same path, because both hosts send the headers of every matching rule and join a
# header set twice with a comma (two Content-Security-Policy values: both policies enforced).
# The embeds (/{embed}/) may be framed by any site; everything else only by this site.
# Files under /{immutable}/ never change under their names: browsers keep them without asking.
"""


def csp_meta() -> str:
    """The policy as a <meta> tag can carry it (frame-ancestors only works as a header)."""
    return CSP_COMMON


def csp(embed: bool) -> str:
    return f"{CSP_COMMON}; frame-ancestors {FRAME_ANCESTORS[embed]}"


def headers_for(embed: bool, immutable: bool = False) -> list[tuple[str, str]]:
    headers = [("Content-Security-Policy", csp(embed)), ("X-Content-Type-Options", "nosniff")]
    if embed:
        headers.append(("X-Robots-Tag", "noindex"))  # as the embeds' <meta name="robots"> says
    if immutable:
        headers.append(CACHE_FOREVER)
    return headers


def embed_folders(routes) -> set[str]:
    """The top-level folders holding the embed routes (pages.ROUTES); a folder may not mix
    embeds and full pages."""
    folders: dict[str, set[bool]] = {}
    for route in routes:
        if route.path:
            folders.setdefault(route.path.split("/")[0], set()).add(route.embed)
    mixed = [name for name, kinds in folders.items() if len(kinds) > 1]
    if mixed:
        raise ValueError(f"/{mixed[0]}/ holds both embeds and full pages: their frame-ancestors differ")
    return {name for name, kinds in folders.items() if kinds == {True}}


def _folder_patterns(site: Path, name: str, names: list[str]) -> list[str]:
    if not any(other != name and other.startswith(name) for other in names):
        return [f"/{name}/*"]
    # Netlify reads /py/* as "/py, then anything", which takes in /pyodide/ too: name each depth
    # with placeholders, which match one segment under both readings.
    depths = sorted({len(p.relative_to(site / name).parts) for p in (site / name).rglob("*") if p.is_file()})
    return [f"/{name}/" + "/".join(f":p{i}" for i in range(1, depth + 1)) for depth in depths]


def _file_patterns(name: str) -> list[str]:
    if name == "index.html":
        return ["/", "/index.html"]
    if name.endswith(".html"):  # Cloudflare Pages also serves x.html at /x
        return [f"/{name}", f"/{name[:-len('.html')]}"]
    return [f"/{name}"]


def site_rules(site: Path, routes) -> list[tuple[str, list[tuple[str, str]]]]:
    """(pattern, headers) for every top-level entry of the built site."""
    names = sorted({p.name for p in site.iterdir()} - NOT_SERVED | set(WRITTEN_LATER))
    embeds = embed_folders(routes)
    rules = []
    for name in names:
        folder = (site / name).is_dir()
        patterns = _folder_patterns(site, name, names) if folder else _file_patterns(name)
        sent = headers_for(name in embeds, folder and name in IMMUTABLE_FOLDERS)
        rules += [(pattern, sent) for pattern in patterns]
    return rules


def headers_text(site: Path, routes) -> str:
    blocks = [HEADER.format(embed="/, /".join(sorted(embed_folders(routes))),
                            immutable="/, /".join(IMMUTABLE_FOLDERS))]
    for pattern, sent in site_rules(site, routes):
        blocks.append("\n".join([pattern] + [f"  {name}: {value}" for name, value in sent]) + "\n")
    return "\n".join(blocks)


def write(site: Path, routes) -> None:
    """Write _headers for the site as it stands: call it after every other file is written."""
    (site / FILE).write_text(headers_text(site, routes), encoding="utf-8")
