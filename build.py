#!/usr/bin/env python3
"""Build the specdec site (and optionally serve it): the project's one entry point.

    python build.py                 build into _site/ (does nothing if no input changed)
    python build.py serve           build, serve at http://127.0.0.1:8000/, rebuild on every save
    python build.py --help          all options

Exit status: 0 built or up to date, 1 the build failed (the previous site is untouched),
2 the command line was refused (a bad option, or an --out folder the build may not replace).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from corpus.sources import CORPUS_ENV, corpus_dir
from sitebuild.base_url import argument as base_url_argument
from sitebuild.errors import BuildError
from sitebuild.output import DEFAULT_OUT
from sitebuild.pipeline import Options, build


def make_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", nargs="?", choices=["build", "serve"], default="build",
                        help="build once (default), or build, serve and rebuild on every change")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, metavar="DIR",
                        help="output folder (default: _site); it must be new, empty, or made by an earlier build")
    parser.add_argument(
        "--corpus", metavar="DIR", help=f"folder holding en/ and zh/ books (default: ${CORPUS_ENV}, else ../shared/corpus)"
    )
    parser.add_argument("--download", action="store_true",
                        help="fetch the English book into .cache/corpus/ and verify it (the Chinese books "
                             "have no public copy: they still come from --corpus)")
    parser.add_argument("--force", action="store_true", help="rebuild even if no input changed")
    parser.add_argument("--base-url", metavar="URL", type=base_url_argument,
                        help="the address the site is published at, e.g. https://example.org/courses/specdec/: "
                             "adds canonical, og:url and hreflang links and sitemap.xml, and roots 404.html's "
                             "links at its path (default: base_url in site/meta.toml, else none)")
    parser.add_argument("--start", choices=["snapshot", "wheel"], default="snapshot",
                        help="how the page's worker starts Python: snapshot (default: from a memory snapshot "
                             "made at build time, the sim wheel as its fallback), or wheel (no snapshots: the "
                             "worker starts Pyodide and installs the sim wheel; for a Pyodide whose snapshots "
                             "cannot be made, docs/upgrading-pyodide.md)")
    parser.add_argument("--unbundled", action="store_true",
                        help="publish the page's JavaScript modules as written, one file each and unminified "
                             "(for editing scripts with `serve`); by default esbuild bundles and minifies them, "
                             "as the site is deployed (sitebuild/bundles.py)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="serve: the address to listen on (default: 127.0.0.1, this machine only; "
                             "0.0.0.0 for every network interface)")
    parser.add_argument("--port", type=int, default=8000,
                        help="serve: the port to listen on (default: 8000; 0 picks a free one)")
    parser.add_argument("--quiet", action="store_true",
                        help="say nothing unless the build fails (for scripts); otherwise it says one line "
                             "per stage as it ends, with its time, and a summary")
    parser.add_argument("--traceback", action="store_true",
                        help="on a failed build, print the Python traceback too (for work on the build itself)")
    return parser


def parse_args(argv: list[str]) -> argparse.Namespace:
    return make_parser().parse_args(argv)


def report_failure(err: BuildError, opts: Options, show_traceback: bool) -> None:
    if show_traceback:
        import traceback

        traceback.print_exception(err)
    print(f"build failed: {err}", file=sys.stderr)
    if err.exit_code == 1 and opts.out.exists():
        print(f"(the previous site in {opts.out} was left as it was)", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    opts = Options(
        out=args.out, corpus=corpus_dir(args.corpus), download=args.download,
        force=args.force, base_url=args.base_url, start=args.start, bundled=not args.unbundled,
    )
    if args.command == "serve":
        from sitebuild.devserver import serve

        return serve(opts, args.host, args.port, args.traceback, args.quiet)
    say = None if args.quiet else (lambda line: print(line, flush=True))
    try:
        result = build(opts, say=say)
    except BuildError as err:
        report_failure(err, opts, args.traceback)
        return err.exit_code
    if say:
        for line in [*result.reports, result.summary]:
            say(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
