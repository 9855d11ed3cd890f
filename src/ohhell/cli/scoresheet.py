"""``ohhell scoresheet``: a printable PDF score sheet, blank or filled from a saved game."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from .. import OPTION_NAMES, RulesError
from ..describe import parse_seat, plural
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
from .common import HelpFormatter, add_rule_options, command_parser, examples, rules_from_args
from .score import take_first_dealer


def add_parser(sub: Any) -> None:
    """Add the ``scoresheet`` subcommand to the ``ohhell`` parser's subparsers."""
    parser = command_parser(
        sub,
        "scoresheet",
        help="print a PDF score sheet, blank or filled from a saved game",
        description=_DESCRIPTION,
        epilog=_EXAMPLES,
    )
    _add_arguments(parser)
    parser.set_defaults(func=cmd_scoresheet)


_DESCRIPTION: Final = (
    "Write a printable PDF score sheet: one row per hand with the cards and the dealer, a column "
    "group per player. --names gives the players in seat order, as for ohhell score (or --players N "
    "for a sheet headed Player 1, Player 2, ...). With --from, a game saved by ohhell score --file "
    "fills it in."
)
_EXAMPLES: Final = examples(
    "ohhell scoresheet --names Ann,Bob,Cid,Dee -o sheet.pdf             # the dealers left blank: draw",
    "ohhell scoresheet --names Ann,Bob,Cid,Dee --dealer Cid -o sheet.pdf",
    "ohhell scoresheet --players 5 --preset classic-tens --paper letter -o sheet.pdf",
    "ohhell scoresheet --from tuesday.json -o tuesday.pdf                # filled in",
)


def _add_arguments(parser: argparse.ArgumentParser) -> None:

    parser.add_argument("-o", "--output", required=True, metavar="FILE.pdf", help="the PDF to write")
    parser.add_argument(
        "--names", metavar="A,B,C", help="the players in seat order, clockwise, comma-separated"
    )
    parser.add_argument(
        "--dealer",
        metavar="NAME|SEAT",
        help=(
            "who deals first: a name or a seat number counted from 1; default: the rules' first "
            "dealer, else none (the table draws, and the dealers are written in by hand); "
            "--first-dealer is the same option"
        ),
    )
    parser.add_argument(
        "--from", dest="source", metavar="GAME.json", help="fill the sheet from a saved `ohhell score` game"
    )
    parser.add_argument("--paper", choices=tuple(PAPERS), default="a4", help="landscape paper (default a4)")
    parser.add_argument("--font-dir", metavar="DIR", help="look for DejaVu TTF fonts here only")
    add_rule_options(parser)


def build_parser() -> argparse.ArgumentParser:
    """A stand-alone parser (``python -m ohhell.cli.scoresheet``), the same as ``ohhell scoresheet``."""
    parser = argparse.ArgumentParser(
        prog="ohhell scoresheet", description=_DESCRIPTION, epilog=_EXAMPLES, formatter_class=HelpFormatter
    )
    _add_arguments(parser)
    parser.set_defaults(func=cmd_scoresheet)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return cmd_scoresheet(args)


def game_from_args(args: argparse.Namespace) -> tuple[ScoreGame, bool]:
    """The game of the sheet (loaded with --from, else blank from the players
    and rule options), and whether its first dealer is still to be drawn.

    The names are --names; --players takes them too, as it once did (a hidden
    alias: --players is the rule option, a number, everywhere else)."""
    take_first_dealer(args)  # --first-dealer is --dealer: a name or a seat from 1
    given = [n for n in OPTION_NAMES if getattr(args, f"rule_{n}", None) is not None]
    if args.source is not None:
        if given or args.preset is not None or args.names or args.dealer:
            raise SheetError(
                "--from fills the sheet from a saved game, which has its own rules and players: "
                "leave out --names, --dealer and the rule options"
            )

        return load_sheet(Path(args.source)), False

    players, names = args.rule_players, None
    if args.names:
        names = [n.strip() for n in args.names.split(",") if n.strip()]
    if players is not None and not players.strip().isdigit():
        if names is not None:
            raise SheetError("give the names once: --names Ann,Bob,Cid")
        names = [n.strip() for n in players.split(",") if n.strip()]
        players = None
    if names is None and players is None:
        raise SheetError("who plays? Give the names in seat order: --names Ann,Bob,Cid,Dee (or --players 4)")
    args.rule_players = players if players is not None else str(len(names or ()))
    rules = rules_from_args(args)
    if names is None:
        names = [f"Player {s + 1}" for s in range(rules.players)]
    dealer = None
    if args.dealer is not None:
        try:
            dealer = parse_seat(args.dealer, names)
        except ValueError as err:
            raise SheetError(str(err)) from None
    drawn = dealer is None and rules.first_dealer is None  # R-DEALER-DRAW
    return blank_game(rules, names, dealer), drawn


def cmd_scoresheet(args: argparse.Namespace) -> int:
    out = Path(args.output)
    try:
        game, drawn = game_from_args(args)
        if out.parent != Path() and not out.parent.is_dir():
            raise SheetError(f"cannot write {out}: the folder {out.parent} does not exist")
        if out.is_dir():
            raise SheetError(f"cannot write {out}: it is a folder; give a file name such as sheet.pdf")
        data = render(game, args.paper, Path(args.font_dir) if args.font_dir else None, dealer_drawn=drawn)
        out.write_bytes(data)
    except (SheetError, ScoreError, RulesError) as err:
        print(f"ohhell scoresheet: {err}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"ohhell scoresheet: cannot write {out}: {err.strerror}", file=sys.stderr)
        return 2
    kind = "filled" if game.hands else "blank"
    rows = plural(len(sheet_rows(game)), "row")
    print(f"Wrote {out}: a {kind} sheet of {rows} for {', '.join(game.players)}.")
    if drawn:
        print("The rules draw for the first dealer: the sheet leaves the dealers to be written in.")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
