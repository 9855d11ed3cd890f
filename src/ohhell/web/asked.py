"""What a client asks to make a table (``POST /api/play-now``, ``POST
/api/tables``), and at it (an action, a seat handed to a bot), read and
checked in one place from the core alone, so the server (web/app.py,
web/tables/messages.py) and the offline site's worker (web/local/server.py)
take and refuse the same requests with the same words.
"""

from __future__ import annotations

from typing import Any

from .. import MAX_PLAYERS, MIN_PLAYERS, PRESETS, Action, Rules, RulesError, make_rules
from .errors import TableError
from .fields import int_field, shown
from .protocol import DEFAULT_PRESET, ProtocolError, clean_name, parse_action
from .seats import HUMAN, check_level

Asked = dict[str, Any]


def text_field(data: Asked, key: str, default: str) -> str:
    value = data.get(key, default)
    if not isinstance(value, str):
        raise TableError(f'"{key}" must be text, not {shown(value)}')
    return value


def name_field(data: Asked, default: str) -> str:
    try:
        return clean_name(data.get("name") or default)
    except ProtocolError as err:
        raise TableError(str(err)) from None


def rule_field(preset: str, options: dict[str, str]) -> str | None:
    """The one rule option that is wrong on its own (with the preset and
    the number of players), or None: the preset itself ("preset"), or only a
    combination of options is wrong."""
    if preset not in PRESETS:
        return "preset"
    players = {"players": options["players"]} if "players" in options else {}
    for name, value in options.items():
        try:
            make_rules(preset, {**players, name: value})
        except RulesError:
            return name
    return None


def play_now_asked(data: Asked) -> tuple[Rules, list[str], str]:
    """Play now: a preset's rules (the default one), a person in seat 0 and
    bots of one level: ``(rules, each seat's kind, the person's name)``."""
    preset = text_field(data, "preset", DEFAULT_PRESET)
    level = text_field(data, "level", "intermediate")
    rules = make_rules(preset)
    check_level(level, rules)
    # Not "You": the page marks a person's own seat "you" already ("You you").
    name = name_field(data, "Player 1")
    return rules, [HUMAN] + [level] * (rules.players - 1), name


def new_table_asked(data: Asked) -> tuple[Rules, list[str], int, str]:
    """A new table's rules, its seats' kinds, the host's seat and name (the
    clock and the listing are the server's to read)."""
    preset = text_field(data, "preset", DEFAULT_PRESET)
    options = data.get("options", {})
    if not isinstance(options, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in options.items()
    ):
        raise TableError('"options" must map option names to text, e.g. {"hook": "no"}')
    options = dict(options)
    if "players" in data:
        options["players"] = str(int_field(data, "players"))
    try:
        rules = make_rules(preset, options)
    except RulesError as err:
        # Said next to the field it is about, when one field alone is wrong.
        raise TableError(str(err), field=rule_field(preset, options)) from None
    if not MIN_PLAYERS <= rules.players <= MAX_PLAYERS:  # pragma: no cover - make_rules checks
        raise TableError(f"a table has {MIN_PLAYERS} to {MAX_PLAYERS} seats")
    kinds = data.get("seats", [HUMAN] * rules.players)
    if not isinstance(kinds, list) or not all(isinstance(k, str) for k in kinds):
        raise TableError('"seats" must list each seat\'s kind: "human" or a bot level', field="seats")
    seat = int_field(data, "seat", 0)
    if isinstance(data.get("name"), str) and not data["name"].strip():
        # Typed but blank: asked for again, never quietly replaced by "Host".
        raise TableError("the name is empty: write the name the others will see", field="name")
    try:
        name = name_field(data, "Host")
    except TableError as err:
        raise TableError(str(err), field="name") from None
    return rules, list(kinds), seat, name


def action_asked(message: Asked, seat: int) -> tuple[Action, int]:
    """An ``act`` message from ``seat``: its action and the version of the
    state it was chosen on."""
    version = message.get("version")
    if type(version) is not int:
        raise ProtocolError('"version" must be the version of the state you acted on')
    return parse_action(message.get("action"), seat), version


def seat_to_cover(message: Asked, seat: int | None, host: bool, seats: int) -> int:
    """A ``replace`` message: the seat the host hands to a bot."""
    if not host:
        raise TableError("only the table's host may hand a seat to a bot", "seat")
    target = message.get("seat")
    if type(target) is not int or not 0 <= target < seats:
        raise ProtocolError(f'"seat" must be a seat from 0 to {seats - 1}')
    if target == seat:
        raise TableError("you cannot hand your own seat to a bot: just stop playing", "seat")
    return target


__all__ = [
    "action_asked",
    "name_field",
    "new_table_asked",
    "play_now_asked",
    "rule_field",
    "seat_to_cover",
    "text_field",
]
