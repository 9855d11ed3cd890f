"""``ohhell score``: keep the score of a game played with real cards.

``--file`` saves the sheet after every entry; running the command again,
with the same options or with only ``--file``, continues it (options that
contradict the saved game are refused, naming the difference). Without
``--file`` the keeper warns that the sheet is in memory only and offers a
save (see ``scorekeeper.text.Keeper``). Players are given by name or by seat
number counted from 1.
"""

from __future__ import annotations

import argparse
import datetime
import sys
from pathlib import Path
from typing import Any, Final, Literal, TextIO

from .. import OPTION_NAMES, RulesError
from ..describe import parse_seat, rule_options_for_people
from ..scorekeeper import Keeper, ScoreError, ScoreGame, ask, check_players, load_sheet, save_sheet
from ..scorekeeper.text import resume_command
from .common import HelpFormatter, add_rule_options, command_parser, examples, rules_from_args

_DESCRIPTION = (
    "Keep the score sheet of an Oh Hell game played with real cards: who deals, how many "
    "cards, the hook, scores, totals, standings. With --file the sheet is saved after every "
    "entry, and the same command (or ohhell score --file FILE) continues it. Without --file "
    "the sheet is kept in memory: type save FILE at any prompt, and quitting offers a save."
)
_EXAMPLES = examples(
    "ohhell score --names Ann,Bob,Cid,Dee --file tuesday.json            # ask who deals, then go",
    "ohhell score --preset common --names Ann,Bob,Cid --dealer Bob --file tuesday.json",
    "ohhell score --file tuesday.json                                    # continue it",
    "ohhell score --file tuesday.json --export csv > tuesday.csv",
)


def add_parser(sub: Any) -> None:
    """Add the ``score`` subcommand to the ``ohhell`` parser's subparsers."""
    parser = command_parser(
        sub,
        "score",
        help="keep score of a game played with real cards",
        description=_DESCRIPTION,
        epilog=_EXAMPLES,
    )
    _add_arguments(parser)
    add_rule_options(parser)
    parser.set_defaults(func=cmd_score)


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--names",
        metavar="A,B,C",
        help="the players in seat order, clockwise, comma-separated (their number sets --players)",
    )
    # The scoresheet command once called the names --players; the same
    # spelling is not possible here (--players is the rule option, a number).
    parser.add_argument(
        "--dealer",
        metavar="NAME|SEAT",
        help=(
            "who deals first: a name or a seat number counted from 1 (asked for when left out); "
            "--first-dealer is the same option"
        ),
    )
    parser.add_argument(
        "--file",
        metavar="FILE",
        help="save the sheet here after every entry; continue it if it exists",
    )
    parser.add_argument(
        "--export", choices=("csv", "json"), help="print the sheet in --file as CSV or JSON and exit"
    )


def build_parser() -> argparse.ArgumentParser:
    """A stand-alone parser (``python -m ohhell.cli.score``), the same as ``ohhell score``."""

    parser = argparse.ArgumentParser(
        prog="ohhell score", description=_DESCRIPTION, epilog=_EXAMPLES, formatter_class=HelpFormatter
    )
    _add_arguments(parser)
    add_rule_options(parser)
    parser.set_defaults(func=cmd_score)
    return parser


def main(
    argv: list[str] | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    args = build_parser().parse_args(argv)
    return cmd_score(args, stdin=stdin, stdout=stdout, stderr=stderr)


def take_first_dealer(args: argparse.Namespace) -> None:
    """``--first-dealer`` (the rule option every command has) is another
    spelling of ``--dealer`` here: a name or a seat number counted from 1.
    ``draw`` keeps the rules' draw (the dealer is asked for, or left blank on
    a printed sheet). Giving both is refused rather than one silently winning."""
    given = getattr(args, "rule_first_dealer", None)
    if given is None:
        return
    if args.dealer is not None:
        raise ScoreError(
            "--dealer and --first-dealer both say who deals first: give only one "
            "(a name or a seat number counted from 1)"
        )
    if given.strip().lower() != "draw":
        args.dealer, args.rule_first_dealer = given, None


def cmd_score(
    args: argparse.Namespace,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    out = stdout or sys.stdout
    inp = stdin or sys.stdin
    err_out = stderr or sys.stderr
    path = Path(args.file) if args.file else None
    try:
        take_first_dealer(args)
        if path is not None and path.exists():
            game = load_sheet(path)
            differences = _differences(args, game)
            if differences:
                raise ScoreError(
                    f"{path} holds another game: {'; '.join(differences)}. To continue it: "
                    f"{resume_command(path)}; for a new game, choose another --file"
                )
            if args.export is None:
                print(f"Resuming the game in {path}.", file=out)
        elif args.export is not None:
            raise ScoreError("--export prints a saved sheet: give its --file")
        else:
            made = new_game_from_answers(args, inp, out)
            if made is None:
                print("The input ended before the game was set up: nothing was saved.", file=err_out)
                return 0
            if made == QUIT:
                print("You quit before the game was set up: nothing was saved.", file=out)
                return 0
            game = made
            if path is not None:
                try:
                    save_sheet(game, path)
                except OSError as err:
                    raise ScoreError(f"cannot write {path}: {err.strerror or err}") from None
    except (ScoreError, RulesError) as err:
        print(f"ohhell score: {err}", file=err_out)
        return 2
    if args.export is not None:
        out.write(game.to_csv() if args.export == "csv" else game.to_json() + "\n")
        return 0
    return Keeper(game, inp, out, path, err=err_out).run()


def _differences(args: argparse.Namespace, game: ScoreGame) -> list[str]:
    """What the options given say that the saved game does not: nothing when
    the command that started the game is run again."""
    out = []
    if args.names:
        names = [n.strip() for n in args.names.split(",") if n.strip()]
        if [n.casefold() for n in names] != [p.casefold() for p in game.players]:
            out.append(f"its players are {', '.join(game.players)}")
    given = [n.replace("_", "-") for n in OPTION_NAMES if getattr(args, f"rule_{n}", None) is not None]
    if given or args.preset is not None:
        if args.rule_players is None:
            args.rule_players = str(len(game.players))
        changed = game.rules.differences(rules_from_args(args))
        if args.preset is None:  # only the options typed: the rest was not asked for
            changed = {k: v for k, v in changed.items() if k in given}
        # The sheet's rules hold the dealer chosen at the start; --dealer is compared below.
        changed.pop("first-dealer", None)
        if changed:
            saved = rule_options_for_people(game.rules, game.players)
            out.append("its rules have " + ", ".join(f"{k} {saved[k]}" for k in changed))
    if args.dealer:
        try:
            dealer = parse_seat(args.dealer, game.players)
        except ValueError as err:
            raise ScoreError(str(err)) from None
        if dealer != game.first_dealer:
            out.append(f"{game.players[game.first_dealer]} deals first in it")
    return out


QUIT: Final = "quit"
"""What ``new_game_from_answers`` returns when the player quits at its question."""


def _is_quit(text: str, names: list[str]) -> bool:
    """``quit`` (``q``, ``exit``) typed at "Who deals first?", unless a player has that name."""
    word = text.strip().casefold()
    return word in ("quit", "q", "exit") and word not in (n.casefold() for n in names)


def new_game_from_answers(
    args: argparse.Namespace, inp: TextIO, out: TextIO
) -> ScoreGame | Literal["quit"] | None:
    """Set up from the options, asking for the players and the first dealer when
    not given; None when the input ends, ``QUIT`` when the player quits."""

    players_given = args.rule_players
    while True:
        names_text = args.names or ask(inp, out, "Players in seat order, clockwise, separated by commas: ")
        if names_text is None:
            return None
        names = [n.strip() for n in names_text.split(",") if n.strip()]
        args.rule_players = players_given if players_given is not None else str(len(names))
        try:
            rules = rules_from_args(args)
            check_players(names, rules.players)  # before the dealer is asked: names are asked again
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
            text = ask(inp, out, f"Who deals first? A name or a seat number 1 to {len(names)} ({hint}): ")
        if text is None:
            return None
        if args.dealer is None and _is_quit(text, names):
            return QUIT
        try:
            dealer = default if not text and default is not None else _seat(names, text)
            # The sheet's rules then say who deals first, so its export agrees with itself.
            game = ScoreGame(rules, names, dealer, date=datetime.date.today().isoformat())
        except ScoreError as err:
            if args.dealer is not None:
                raise
            print(f"  {err}", file=out)
            continue
        break
    print(f"{len(names)} players, {rules.scoring.value} scoring, {len(rules.schedule)} hands.", file=out)
    print("Type help for the commands (undo, edit, sheet, standings, export, save, ...).", file=out)
    return game


def _seat(names: list[str], text: str) -> int:
    if not text.strip():
        raise ScoreError(f"type who deals first: a name or a seat number 1 to {len(names)}")
    try:
        return parse_seat(text, names)
    except ValueError as err:
        raise ScoreError(str(err)) from None


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
