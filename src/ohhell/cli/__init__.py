"""The ``ohhell`` command: one module per subcommand.

``simulate``, ``replay`` and ``review`` (records), ``tournament`` (bots on duplicate deals),
``play`` (the terminal), ``serve`` (the web server), ``site`` (the offline site), ``admin`` (orders to
running servers), ``score`` and
``scoresheet`` (the scorekeeper). ``common`` holds the rule options they share
and the examples block every command's help ends with.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .. import RulesError, __version__
from . import (
    accounts,
    admin,
    db,
    play,
    replay,
    review,
    score,
    scoresheet,
    serve,
    simulate,
    site,
    stats,
    tournament,
)
from .common import CommandParser, HelpFormatter, examples


def build_parser() -> argparse.ArgumentParser:
    parser = CommandParser(
        prog="ohhell",
        description="Oh Hell: the card game, its rules engine and its tools.",
        formatter_class=HelpFormatter,
        epilog=examples(
            "ohhell play                          # a match against three bots in the terminal",
            "ohhell serve                         # play in the browser: http://127.0.0.1:8000",
            "ohhell score --names Ann,Bob,Cid,Dee --file tuesday.json   # keep score of a real game",
            "ohhell review game.ohr               # what each decision of a match cost",
            "ohhell play --help                   # every command has its own help",
        ),
    )
    parser.add_argument("--version", action="version", version=f"ohhell {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=CommandParser)
    # One module per command, each adding its own parser; a command's
    # libraries (the web server, the PDF writer) load only when it runs.
    for command in (
        play,
        serve,
        site,
        admin,
        accounts,
        db,
        score,
        scoresheet,
        simulate,
        replay,
        review,
        stats,
        tournament,
    ):
        command.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if args.command is None:
        if unknown:
            parser.error(f"unrecognized arguments: {' '.join(unknown)}")
        parser.print_help()
        return 0
    if unknown:  # said by the command's own parser, with its own usage
        commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        commands.choices[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")
    try:
        return int(args.func(args))
    except RulesError as err:
        print(f"ohhell {args.command}: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader (say `| head`) stopped early: not an error of ours.
        sys.stderr.close()
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
