"""``ohhell scoresheet``: a printable PDF score sheet, blank or filled from a saved game."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from .. import OPTION_NAMES, RulesError
from ..scorekeeper import (
    PAPERS,
    ScoreError,
    ScoreGame,
    SheetError,
    blank_game,
    load_sheet,
    render,
    sheet_rows,
)
from .common import add_rule_options, rules_from_args


def add_parser(sub: Any) -> None:
    """Add the ``scoresheet`` subcommand to the ``ohhell`` parser's subparsers."""
    parser = sub.add_parser(
        "scoresheet",
        help="print a PDF score sheet, blank or filled from a saved game",
        description=_DESCRIPTION,
    )
    _add_arguments(parser)
    parser.set_defaults(func=cmd_scoresheet)


_DESCRIPTION: Final = (
    "Write a printable PDF score sheet: one row per hand with the cards and the dealer, a column "
    "group per player. --players takes the names in seat order (Ann,Bob,Cid,Dee) or a number. "
    "With --from, a game saved by `ohhell score --file` fills it in."
)


def _add_arguments(parser: argparse.ArgumentParser) -> None:

    parser.add_argument("-o", "--output", required=True, metavar="FILE.pdf", help="the PDF to write")
    parser.add_argument(
        "--names", metavar="A,B,C", help="the players in seat order (same as --players A,B,C)"
    )
    parser.add_argument(
        "--dealer",
        metavar="NAME",
        help=(
            "who deals first (a name or seat number); default: the rules' first dealer, "
            "else the first player named"
        ),
    )
    parser.add_argument(
        "--from", dest="source", metavar="GAME.json", help="fill the sheet from a saved `ohhell score` game"
    )
    parser.add_argument("--paper", choices=tuple(PAPERS), default="a4", help="landscape paper (default a4)")
    parser.add_argument("--font-dir", metavar="DIR", help="look for DejaVu TTF fonts here only")
    add_rule_options(parser)
    parser.set_defaults(preset=None)  # to tell a preset given from none (pagat)


def build_parser() -> argparse.ArgumentParser:
    """A stand-alone parser (``python -m ohhell.cli.scoresheet``), the same as ``ohhell scoresheet``."""
    parser = argparse.ArgumentParser(prog="ohhell scoresheet", description=_DESCRIPTION)
    _add_arguments(parser)
    parser.set_defaults(func=cmd_scoresheet)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return cmd_scoresheet(args)


def game_from_args(args: argparse.Namespace) -> ScoreGame:
    """The game of the sheet: loaded with --from, else blank from the players and rule options."""
    given = [n for n in OPTION_NAMES if getattr(args, f"rule_{n}", None) is not None]
    if args.source is not None:
        if given or args.preset is not None or args.names or args.dealer:
            raise SheetError(
                "--from fills the sheet from a saved game, which has its own rules and players: "
                "leave out --players, --names, --dealer and the rule options"
            )

        return load_sheet(Path(args.source))

    players, names = args.rule_players, None
    if args.names:
        names = [n.strip() for n in args.names.split(",") if n.strip()]
    if players is not None and not players.strip().isdigit():
        if names is not None:
            raise SheetError("give the names once: --players Ann,Bob,Cid or --names Ann,Bob,Cid")
        names = [n.strip() for n in players.split(",") if n.strip()]
        players = None
    if names is None and players is None:
        raise SheetError("who plays? Give the names in seat order: --players Ann,Bob,Cid,Dee")
    args.rule_players = players if players is not None else str(len(names or ()))
    args.preset = args.preset or "pagat"
    rules = rules_from_args(args)
    if names is None:
        names = [f"Player {s + 1}" for s in range(rules.players)]
    dealer = None
    if args.dealer is not None:
        dealer = ScoreGame(rules, names, 0).seat_of(args.dealer)
    return blank_game(rules, names, dealer)


def cmd_scoresheet(args: argparse.Namespace) -> int:
    out = Path(args.output)
    try:
        game = game_from_args(args)
        if out.parent != Path() and not out.parent.is_dir():
            raise SheetError(f"cannot write {out}: the folder {out.parent} does not exist")
        if out.is_dir():
            raise SheetError(f"cannot write {out}: it is a folder; give a file name such as sheet.pdf")
        data = render(game, args.paper, Path(args.font_dir) if args.font_dir else None)
        out.write_bytes(data)
    except (SheetError, ScoreError, RulesError) as err:
        print(f"ohhell scoresheet: {err}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"ohhell scoresheet: cannot write {out}: {err.strerror}", file=sys.stderr)
        return 2
    kind = "filled" if game.hands else "blank"
    print(f"Wrote {out}: a {kind} sheet of {len(sheet_rows(game))} rows for {', '.join(game.players)}.")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
