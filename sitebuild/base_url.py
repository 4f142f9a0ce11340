"""The address the site is published at, if anyone says: `--base-url`, else `base_url` in
site/meta.toml, else none.

The project has no official host, so by default there is none: the pages then carry no
absolute canonical, og:url or hreflang links and no sitemap is written (search engines need
absolute addresses for all of those, and a guessed host would send them somewhere wrong).
The base URL's path also tells the 404 page where the site sits on its host (see site_path).
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

from .errors import BuildError

EXAMPLE = "https://example.org/courses/specdec/"
FIX = f"give the address the site's root is published at, e.g. {EXAMPLE}"
# Characters that have no place in an address written into HTML and XML attributes.
UNSAFE = re.compile(r"[\s\"'<>\\^`{|}]")


def problem(text: str) -> str | None:
    """What is wrong with text as a base URL, or None if it is one."""
    if not text:
        return "is empty"
    found = UNSAFE.search(text)
    if found:
        return f"holds {found.group()!r}, which an address cannot"
    parts = urlsplit(text)
    if parts.scheme not in ("https", "http"):
        return "is not an http:// or https:// address"
    if not parts.hostname:
        return "names no host"
    if "@" in parts.netloc:
        return "holds a user name or password"
    try:
        parts.port
    except ValueError:
        return "has a port that is not a number"
    if parts.query or parts.fragment or text.endswith(("?", "#")):
        return "has a ?query or #fragment; the base URL is a folder"
    last = parts.path.rstrip("/").rsplit("/", 1)[-1]
    if "." in last and not parts.path.endswith("/"):
        return f"ends in a file name ({last}); the base URL is a folder, ending in /"
    return None


def normalised(text: str) -> str:
    """A valid base URL as the build uses it: always ending in '/'."""
    return text if text.endswith("/") else text + "/"


def from_option(text: str) -> str:
    """`--base-url`: the URL, or BuildError naming the option."""
    why = problem(text)
    if why:
        raise BuildError(f"--base-url {text!r} {why}", fix=FIX)
    return normalised(text)


def from_meta(value, meta_path: Path) -> str:
    """`base_url` in meta.toml: the URL, or BuildError at the file's line."""
    why = "is not a string" if not isinstance(value, str) else problem(value)
    if why:
        shown = value if isinstance(value, str) else repr(value)
        from .frontmatter import key_line  # here: build.py imports this module, and tomllib with frontmatter

        raise BuildError(f"base_url {shown!r} {why}", file=meta_path, line=key_line(meta_path, "base_url"),
                         fix=FIX + ", or remove the line to publish without one")
    return normalised(value)


def choose(option: str | None, meta: dict, meta_path: Path) -> str | None:
    """The base URL the build uses: the option over meta.toml; None when neither sets one."""
    if option is not None:
        return from_option(option)
    if "base_url" in meta:
        return from_meta(meta["base_url"], meta_path)
    return None


def site_path(base: str | None) -> str:
    """Where the site's root sits on its host: the base URL's path, else '/' (the host's root)."""
    return urlsplit(base).path if base else "/"


def report(base: str | None) -> str:
    """The one line the build prints about it."""
    if base:
        return f"base URL {base}: canonical, og:url and hreflang links, sitemap.xml"
    return ("no base URL: no canonical, og:url or hreflang links, no sitemap.xml, and 404.html links "
            "to the host's root (set --base-url or base_url in site/meta.toml)")


def argument(text: str) -> str:
    """argparse type for --base-url: refuse a bad address before any work (exit status 2)."""
    import argparse

    why = problem(text)
    if why:
        raise argparse.ArgumentTypeError(f"{text!r} {why}; {FIX}")
    return text
