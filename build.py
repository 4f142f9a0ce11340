#!/usr/bin/env python3
"""Build the specdec site (and optionally serve it): the project's one entry point.

    python build.py                 build into _site/
    python build.py serve           build, then serve at http://127.0.0.1:8000/
    python build.py --help          all options
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from corpus.sources import CORPUS_ENV, corpus_dir
from sitebuild.errors import BuildError
from sitebuild.pipeline import Options, build

DEFAULT_OUT = Path(__file__).resolve().parent / "_site"


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", nargs="?", choices=["build", "serve"], default="build")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (default: _site)")
    parser.add_argument(
        "--corpus", help=f"folder holding en/ and zh/ books (default: ${CORPUS_ENV}, else ../shared/corpus)"
    )
    parser.add_argument("--download", action="store_true", help="fetch the books into .cache/ and verify them")
    parser.add_argument("--force", action="store_true", help="rebuild even if no input changed")
    parser.add_argument("--base-url", help="published address, for canonical links (default: site/meta.toml)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    opts = Options(
        out=args.out, corpus=corpus_dir(args.corpus), download=args.download,
        force=args.force, base_url=args.base_url,
    )
    try:
        result = build(opts)
    except BuildError as err:
        print(f"build failed: {err}", file=sys.stderr)
        print(f"(the previous site in {opts.out} was left as it was)", file=sys.stderr)
        return 1
    for line in result.reports:
        print(line)
    state = "up to date" if result.skipped else "built"
    print(f"{state}: {result.out} in {result.seconds:.2f} s")
    if args.command == "serve":
        from sitebuild.serve import make_server

        server = make_server(result.out, args.host, args.port)
        print(f"serving http://{args.host}:{args.port}/en/specdec/ and /zh/specdec/ (Ctrl+C stops)")
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
