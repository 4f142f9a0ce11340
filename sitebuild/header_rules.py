"""Read a `_headers` file and find the headers a static host sends for a path, the way
Cloudflare Pages and Netlify match it.

Both hosts send the headers of *every* rule whose pattern matches the path; a header that two
matching rules set is sent once, with the values joined by a comma. They read patterns
differently, and both readings are kept here as their own code does them:

- Cloudflare Pages (docs: pages/configuration/headers; code: workers-sdk's generateRulesMatcher):
  the pattern is a regular expression of the whole path, case-sensitive; a splat `*` matches
  any characters, '/' included, or none; `:name` matches one segment (no '/').
- Netlify (docs: routing/headers; code: @netlify/headers-parser's getForRegExp): the pattern is
  split at '/'; a segment that is only `*` matches anything *and may be empty, slash and all*,
  so `/py/*` also matches `/py` and `/pyodide/v1/x.mjs`; a `*` inside a segment matches
  anything; `:name` matches one segment; a trailing '/' is optional; case is ignored.

The local server answers with the Cloudflare reading (sitebuild/serve.py); the tests check
the built file under both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

HOSTS = ("cloudflare", "netlify")


@dataclass
class Rule:
    pattern: str
    headers: list[tuple[str, str]] = field(default_factory=list)


def parse(text: str) -> list[Rule]:
    """Rules in file order: a line at the margin is a path pattern, indented lines below it are
    `Name: value` headers, `#` lines are comments. ValueError names the line of anything else."""
    rules: list[Rule] = []
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if not raw[0].isspace():
            rules.append(Rule(line))
            continue
        name, colon, value = line.partition(":")
        if not rules or not colon or not name.strip() or line.startswith("!"):
            raise ValueError(f"_headers:{number}: not a 'Name: value' header under a path: {line!r}")
        rules[-1].headers.append((name.strip(), value.strip()))
    return rules


def cloudflare_regex(pattern: str) -> re.Pattern:
    pieces = pattern.split("*")
    if len(pieces) > 2:
        raise ValueError(f"{pattern}: Cloudflare Pages allows one splat (*) in a pattern")
    body = ".*".join(re.escape(piece) for piece in pieces)
    body = re.sub(r":([A-Za-z]\w*)", "[^/]+", body)
    return re.compile(f"^{body}$")


def _netlify_segment(segment: str) -> str:
    if segment.startswith(":"):
        return "([^/]+)"
    if segment == "*":
        return "?(.*)"  # joined after a '/', which this makes optional
    if "*" in segment:
        return segment.replace("*", "(.*)")  # the rest is left unescaped, as Netlify's code does
    return re.escape(segment)


def netlify_regex(pattern: str) -> re.Pattern:
    segments = [s.rstrip() for s in pattern.split("/") if s.rstrip()]
    return re.compile("^/" + "/".join(_netlify_segment(s) for s in segments) + "/?$", re.IGNORECASE)


MATCHERS = {"cloudflare": cloudflare_regex, "netlify": netlify_regex}


def matching(rules: list[Rule], path: str, host: str) -> list[Rule]:
    """Every rule whose pattern the host matches to path."""
    compile_pattern = MATCHERS[host]
    return [rule for rule in rules if compile_pattern(rule.pattern).match(path)]


def resolve(rules: list[Rule], path: str, host: str) -> dict[str, list[str]]:
    """For each header (lower-case name) the host sends for path: the values of every matching
    rule, in file order. More than one value is one header whose values are comma-joined."""
    sent: dict[str, list[str]] = {}
    for rule in matching(rules, path, host):
        for name, value in rule.headers:
            sent.setdefault(name.lower(), []).append(value)
    return sent


def response_headers(rules: list[Rule], path: str, host: str = "cloudflare") -> list[tuple[str, str]]:
    """The header lines as the host would send them."""
    return [(name, ", ".join(values)) for name, values in resolve(rules, path, host).items()]
