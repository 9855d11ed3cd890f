"""``ohhell score``: keep the score of a game played with real cards."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, TextIO

from .. import OPTION_NAMES, RulesError
from ..scorekeeper import Keeper, ScoreError, ScoreGame, ask, load_sheet, save_sheet
from .common import add_rule_options, rules_from_args


def add_parser(sub: Any) -> None:
    """Add the ``score`` subcommand to the ``ohhell`` parser's subparsers."""

    parser = sub.add_parser(
        "score",
        help="keep score of a game played with real cards",
        description=(
            "Keep the score sheet of an Oh Hell game played with real cards: who deals, how many "
            "cards, the hook, scores, totals, standings. Save and resume with --file."
        ),
    )
    _add_arguments(parser)
    add_rule_options(parser)
    parser.set_defaults(func=cmd_score)


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--names", metavar="A,B,C", help="the players in seat order, clockwise, comma-separated"
    )
    parser.add_argument("--dealer", metavar="NAME", help="who deals first (a name or seat number)")
    parser.add_argument(
        "--file", metavar="FILE", help="save the sheet here after every entry; resume it if it exists"
    )
    parser.add_argument(
        "--export", choices=("csv", "json"), help="print the sheet in --file as CSV or JSON and exit"
    )


def build_parser() -> argparse.ArgumentParser:
    """A stand-alone parser (``python -m ohhell.cli.score``), the same as ``ohhell score``."""

    parser = argparse.ArgumentParser(
        prog="ohhell score", description="Keep score of a game played with real cards."
    )
    _add_arguments(parser)
    add_rule_options(parser)
    parser.set_defaults(func=cmd_score)
    return parser


def main(argv: list[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    args = build_parser().parse_args(argv)
    return cmd_score(args, stdin=stdin, stdout=stdout)


def cmd_score(args: argparse.Namespace, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    out = stdout or sys.stdout
    inp = stdin or sys.stdin
    path = Path(args.file) if args.file else None
    given = [n for n in OPTION_NAMES if getattr(args, f"rule_{n}", None) is not None]
    try:
        if path is not None and path.exists():
            if given or args.names or args.dealer:
                raise ScoreError(
                    f"{path} holds a game already, with its own rules and players: "
                    "leave out the rule options, --names and --dealer to resume it, or choose a new file"
                )
            game = load_sheet(path)
            if args.export is None:
                print(f"Resuming the game in {path}.", file=out)
        elif args.export is not None:
            raise ScoreError("--export prints a saved sheet: give its --file")
        else:
            made = new_game_from_answers(args, inp, out)
            if made is None:
                return 0
            game = made
            if path is not None:
                save_sheet(game, path)
    except (ScoreError, RulesError) as err:
        print(f"ohhell score: {err}", file=sys.stderr)
        return 2
    if args.export is not None:
        out.write(game.to_csv() if args.export == "csv" else game.to_json() + "\n")
        return 0
    return Keeper(game, inp, out, path).run()


def new_game_from_answers(args: argparse.Namespace, inp: TextIO, out: TextIO) -> ScoreGame | None:
    """Set up from the options, asking for the players and the first dealer when not given."""

    players_given = args.rule_players
    while True:
        names_text = args.names or ask(inp, out, "Players in seat order, clockwise, separated by commas: ")
        if names_text is None:
            return None
        names = [n.strip() for n in names_text.split(",") if n.strip()]
        args.rule_players = players_given if players_given is not None else str(len(names))
        try:
            rules = rules_from_args(args)
            if len(names) != rules.players:
                raise ScoreError(
                    f"the rules are for {rules.players} players, but {len(names)} names were given"
                )
        except (ScoreError, RulesError) as err:
            if args.names:
                raise
            print(f"  {err}", file=out)
            continue
        break
    while True:
        default = rules.first_dealer  # R-DEALER-DRAW, or the players' choice (004)
        if args.dealer is not None:
            text: str | None = args.dealer
        else:
            hint = "draw cards: the highest deals" if default is None else f"Enter: {names[default]}"
            text = ask(inp, out, f"Who deals first? ({hint}) ")
        if text is None:
            return None
        try:
            dealer = default if not text and default is not None else _seat(names, text)
            game = ScoreGame(rules, names, dealer)
        except ScoreError as err:
            if args.dealer is not None:
                raise
            print(f"  {err}", file=out)
            continue
        break
    print(f"{len(names)} players, {rules.scoring.value} scoring, {len(rules.schedule)} hands.", file=out)
    print("Type help for the commands (undo, edit, sheet, standings, export, ...).", file=out)
    return game


def _seat(names: list[str], text: str) -> int:
    key = text.strip()
    if key.isdigit() and int(key) < len(names):
        return int(key)
    for s, name in enumerate(names):
        if name.casefold() == key.casefold():
            return s
    raise ScoreError(f"{text!r} is not one of the players ({', '.join(names)})")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
