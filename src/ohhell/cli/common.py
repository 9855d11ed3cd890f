"""Command-line helpers shared by the commands: the rule options, seats as
people count them, and the examples at the end of each command's help.

Every rule option's help (what it does, the values it takes) comes from
``describe.option_help``, which reads the values from the rules themselves,
so the help cannot drift from what the rules accept. Seats typed on the
command line are counted from 1 (``--first-dealer 1`` is the first player,
``--teams 1+3,2+4``); the rules and the game record count from 0, and the
conversion happens here, once.
"""

from __future__ import annotations

import argparse
import re
import textwrap
from collections.abc import Sequence
from typing import NoReturn

from .. import OPTION_NAMES, PRESETS, Rules, RulesError, make_rules
from ..describe import option_choices, option_help, preset_line

DEFAULT_PRESET = "pagat"

_SEAT_OPTIONS = ("first-dealer", "teams")
"""Rule options that name seats: typed from 1 here, stored from 0 in the rules."""

_METAVARS = {
    "players": "N",
    "start_cards": "N|auto",
    "fixed_hands": "N",
    "hand_sizes": "N,N,...",
    "first_dealer": "SEAT|draw",
    "trump_rotation": "SUITS",
    "teams": "SEATS",
}


def examples(*lines: str) -> str:
    """The help's closing block: ``Examples:`` and one command a line."""
    return "Examples:\n" + "\n".join(f"  {line}" for line in lines)


class HelpFormatter(argparse.HelpFormatter):
    """Wraps the description as usual, but keeps an ``Examples:`` block's
    lines, and never breaks a value such as ``down-up`` at its hyphen."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        blocks = []
        for block in text.split("\n\n"):
            if block.startswith("Examples:"):
                blocks.append("\n".join(indent + line for line in block.splitlines()))
            else:
                words = " ".join(block.split())
                blocks.append(
                    textwrap.fill(
                        words, width, initial_indent=indent, subsequent_indent=indent, break_on_hyphens=False
                    )
                )
        return "\n\n".join(blocks)

    def _split_lines(self, text: str, width: int) -> list[str]:
        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)


class CommandParser(argparse.ArgumentParser):
    """A parser whose errors are one clear line and the command's own one-line
    usage, not argparse's raw message after a usage of twenty lines."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {plain_error(message, self.prog)}\n{short_usage(self)}\n")


_INVALID = re.compile(r"argument (\S+?)(?:/\S+)?: invalid (int|float) value: (.*)")
_CHOICE = re.compile(r"argument (\S+?)(?:/\S+)?: invalid choice: (.*?) \(choose from (.*)\)")


def plain_error(message: str, prog: str = "ohhell") -> str:
    """argparse's message in plain words: ``--games takes a whole number, not 'ten'``."""
    found = _INVALID.fullmatch(message)
    if found:
        option, kind, value = found.groups()
        number = "a whole number" if kind == "int" else "a number"
        return f"{option} takes {number}, not {value}"
    found = _CHOICE.fullmatch(message)
    if found:
        option, value, choices = found.groups()
        return f"{option}: {value} is not one of {choices.replace(chr(39), '')}"
    if message.startswith("unrecognized arguments: "):
        words = message.removeprefix("unrecognized arguments: ")
        first = next((w for w in words.split() if w.startswith("-")), None)
        if first is None:
            return f"{prog} does not take {words!r}"
        return f"{first.split('=')[0]} is not an option of {prog}"
    return re.sub(r"^argument (\S+?)(?:/\S+)?: ", r"\1: ", message)


def short_usage(parser: argparse.ArgumentParser) -> str:
    """One line: how the command is called and where its options are listed."""
    subcommand = any(isinstance(a, argparse._SubParsersAction) for a in parser._actions)
    positionals = [
        (a.metavar if isinstance(a.metavar, str) else a.dest).upper()
        for a in parser._actions
        if not a.option_strings and not isinstance(a, argparse._SubParsersAction)
    ]
    call = " ".join([parser.prog, *(["COMMAND"] if subcommand else []), "[options]", *positionals])
    return f"usage: {call} ({parser.prog} --help lists every option)"


def command_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], name: str, **kwargs: object
) -> argparse.ArgumentParser:
    """A subcommand's parser whose help keeps the examples' line breaks."""
    parser: argparse.ArgumentParser = sub.add_parser(
        name,
        formatter_class=HelpFormatter,
        **kwargs,  # type: ignore[arg-type]
    )
    return parser


def add_rule_options(parser: argparse.ArgumentParser) -> None:
    """``--preset`` and one ``--<option> VALUE`` flag per rule field, each
    with its words and the values it takes."""
    group = parser.add_argument_group(
        "rules",
        "a preset, and any rule option on top of it (each option's default is the preset's)",
    )
    presets = " ".join(f"{name}: {preset_line(rules)}." for name, rules in PRESETS.items())
    group.add_argument(
        "--preset",
        default=None,
        metavar="{" + ",".join(PRESETS) + "}",
        help=f"the rule set to start from (default {DEFAULT_PRESET}). {presets}",
    )
    for name in OPTION_NAMES:
        flag = "--" + name.replace("_", "-")
        choices = option_choices(name)
        metavar = (
            "{" + ",".join(choices) + "}" if choices and name != "players" else _METAVARS.get(name, "VALUE")
        )
        group.add_argument(flag, dest=f"rule_{name}", metavar=metavar, default=None, help=option_help(name))


def rules_from_args(args: argparse.Namespace) -> Rules:
    """The rules of ``--preset`` and the rule options given; seats typed from 1."""
    options = {
        name.replace("_", "-"): getattr(args, f"rule_{name}")
        for name in OPTION_NAMES
        if getattr(args, f"rule_{name}") is not None
    }
    seats = {k: options.pop(k) for k in _SEAT_OPTIONS if k in options}
    rules = make_rules(args.preset or DEFAULT_PRESET, options)
    changes: dict[str, object] = {}
    if "first-dealer" in seats:
        changes["first_dealer"] = _first_dealer(seats["first-dealer"], rules.players)
    if "teams" in seats:
        changes["teams"] = _teams(seats["teams"], rules.players)
    return rules.replace(**changes) if changes else rules


def _first_dealer(text: str, players: int) -> int | None:
    key = text.strip().lower()
    if key == "draw":
        return None
    if key.isdigit() and 1 <= int(key) <= players:
        return int(key) - 1
    raise RulesError(
        f"option first-dealer: {text!r} is not a seat: give a seat number from 1 to {players} "
        "(seats are counted clockwise from 1), or draw",
        rule="R-DEALER-DRAW",
    )


def _teams(text: str, players: int) -> tuple[tuple[int, ...], ...] | None:
    key = text.replace(" ", "").lower()
    if key in ("", "none"):
        return None
    example = "1+3,2+4" if players == 4 else "1+2,3+4,5+6" if players == 6 else "1+3,2+4+5"
    try:
        teams = tuple(tuple(int(seat) for seat in team.split("+")) for team in key.split(","))
    except ValueError:
        raise RulesError(
            f"option teams: {text!r}: write each team's seat numbers joined by +, teams separated by "
            f"commas, e.g. {example}",
            rule="R-TEAMS",
        ) from None
    seats = sorted(s for team in teams for s in team)
    if seats != list(range(1, players + 1)) or len(teams) < 2:
        raise RulesError(
            f"option teams: {text!r}: put each seat 1 to {players} in exactly one of at least two teams, "
            f"e.g. {example}",
            rule="R-TEAMS",
        )
    return tuple(tuple(s - 1 for s in team) for team in teams)


def seat_choices(names: Sequence[str]) -> str:
    """``a name or a seat number from 1 to 4``, for prompts and errors."""
    return f"a name or a seat number from 1 to {len(names)}"
