"""Observations and actions as JSON, and the checks on what a client sends.

Everything a connection receives about the game is built here from
``observe(state, seat)`` (or, for a seen action, ``visible_log``), never from
the state itself: redaction happens once, in ``ohhell.view``.
"""

from __future__ import annotations

import copy
import functools
import json
import math
import re
import threading
import types
import typing
from typing import Any, Final

from .. import (
    OPTION_NAMES,
    PRESETS,
    Action,
    Bid,
    Bidding,
    Card,
    CardError,
    ChangeBid,
    Deal,
    DrawForDealer,
    HandResult,
    NameTrump,
    Observation,
    Phase,
    Play,
    SealedBid,
    SeenAction,
    SeenDeal,
    Suit,
    Trick,
    standings,
)
from ..describe import VALUE_HELP, option_choices, option_help, preset_line

MAX_MESSAGE: Final = 4096
"""The largest client message (bytes) the server reads; a longer one is refused."""

MAX_NAME: Final = 24
"""The longest player name, in characters."""

DEFAULT_PRESET: Final = "pagat"
"""The rules of "Play now", of a new table and of a new score sheet unless
another preset is chosen: one default, so the same game scores the same
whether it was played here or kept on the scorekeeper's sheet."""

Json = dict[str, Any]


class ProtocolError(ValueError):
    """A client message that cannot be understood; the message says why."""


# --- Server to client ---


def card_text(card: Card | None) -> str | None:
    return None if card is None else str(card)


def action_json(action: Action) -> Json:
    """A seat's action as the client sends and sees it (deals and draws excluded)."""
    match action:
        case Bid(seat, bid):
            return {"seat": seat, "kind": "bid", "bid": bid}
        case ChangeBid(seat, bid):
            return {"seat": seat, "kind": "change", "bid": bid}
        case NameTrump(seat, suit):
            return {"seat": seat, "kind": "trump", "suit": suit.letter if suit is not None else "NT"}
        case Play(seat, card):
            return {"seat": seat, "kind": "play", "card": card_text(card)}
    raise TypeError(f"not a seat's action: {action!r}")


def seen_json(seen: SeenAction) -> Json:
    """One entry of ``visible_log``: what a seat saw happen."""
    if isinstance(seen, SealedBid):
        return {"seat": seen.seat, "kind": "bid"}  # R-BID-SIMULTANEOUS: the value stays sealed
    if isinstance(seen, SeenDeal):
        return {
            "seat": None,
            "kind": "deal",
            "hands": [None if h is None else [str(c) for c in h] for h in seen.hands],
            "turned": card_text(seen.turned),
        }
    if isinstance(seen, DrawForDealer):
        return {"seat": None, "kind": "draw", "cards": [card_text(c) for c in seen.cards]}
    if isinstance(seen, Deal):  # pragma: no cover - visible_log gives SeenDeal
        raise TypeError("a deal must go through visible_log")
    return action_json(seen)


def trick_json(trick: Trick, players: int) -> Json:
    plays = [[trick.seat_of(i, players), str(c)] for i, c in enumerate(trick.cards)]
    return {
        "leader": trick.leader,
        "cards": [str(c) for c in trick.cards],
        "plays": plays,
        "winner": trick.winner,
    }


def _suit(suit: Suit | None) -> str | None:
    return None if suit is None else suit.letter


def result_json(result: HandResult) -> Json:
    return {
        "number": result.number,
        "dealer": result.dealer,
        "size": result.size,
        "trump": _suit(result.trump),
        "turned": card_text(result.turned),
        "bids": list(result.bids),
        "tricks": list(result.tricks),
        "scores": list(result.scores),
        "trump_namer": result.trump_namer,
        "extra": result.extra,
    }


def observation_json(obs: Observation, names: typing.Sequence[str], *, can_change: bool = False) -> Json:
    """``obs`` as the JSON object of docs/web.md."""
    data: Json = {
        "seat": obs.seat,
        "players": obs.players,
        "names": list(names),
        "phase": obs.phase.value,
        "hand_number": obs.hand_number,
        "hands_total": len(obs.rules.schedule),
        "hand_size": obs.hand_size,
        "dealer": obs.dealer,
        "extra_hand": obs.extra_hand,
        "devils_bridge": obs.devils_bridge,
        "hands": [None if h is None else [str(c) for c in h] for h in obs.hands],
        "hand_counts": list(obs.hand_counts),
        "turned": card_text(obs.turned),
        "trump": _suit(obs.trump),
        "trump_decided": obs.trump_decided,
        "trump_namer": obs.trump_namer,
        "bids": list(obs.bids),
        "has_bid": list(obs.has_bid),
        "balance": obs.balance,
        "actors": list(obs.actors),
        # Whose turn it is, and (R-BID-CHANGE) whose bid ends a change window:
        # decided here by the core, so no page works out a turn for itself.
        "turn": list(obs.to_ask),
        "change_until": obs.to_ask[0] if can_change and obs.to_ask else None,
        "bids_sealed": obs.rules.bidding is Bidding.SIMULTANEOUS and obs.phase is Phase.BID,
        "forbidden_bid": obs.forbidden_bid,
        "leader": obs.leader,
        "trick": [[seat, str(card)] for seat, card in obs.trick],
        "tricks": [trick_json(t, obs.players) for t in obs.tricks],
        "taken": list(obs.taken),
        "voids": [sorted(s.letter for s in v) for v in obs.voids],
        "draws": [[card_text(c) for c in d.cards] for d in obs.draws],
        "results": [result_json(r) for r in obs.results],
        "totals": list(obs.totals),
        "exact": list(obs.exact),
        "legal": [action_json(a) for a in obs.legal_actions],
        "can_change": can_change,
    }
    if obs.phase is Phase.OVER:
        data["standings"] = [
            {"place": s.place, "seats": list(s.seats), "total": s.total, "exact": s.exact}
            for s in standings(obs.rules, obs.totals, obs.exact)
        ]
    return data


def dumps(message: Json) -> str:
    """Compact JSON for the wire (with orjson when installed: a third of the
    server's time per action went to encoding JSON; docs/performance.md)."""
    if _orjson is not None:
        return str(_orjson.dumps(message).decode())
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False)


_orjson: types.ModuleType | None
try:
    import orjson as _orjson
except ImportError:  # pragma: no cover - orjson is in the web extra
    _orjson = None


# --- Rule options for the new-table form ---


def _choices(name: str) -> list[str] | None:
    choices = option_choices(name)
    return list(choices) if choices is not None else None  # None: free text (numbers, lists, teams)


def _choice_words(name: str) -> dict[str, str]:
    """What the choices mean, for the form's lists: ``pagat: 10 + the bid when exact``."""
    return {value: f"{value}: {meaning}" for value, meaning in VALUE_HELP.get(name, {}).items()}


_LABELS: Final = {
    "players": "Players",
    "deck": "Pack of cards",
    "sequence": "How hand sizes run",
    "start_cards": "Largest hand",
    "fixed_hands": "Number of hands (same size each)",
    "hand_sizes": "Every hand's size, in order",
    "first_dealer": "First dealer",
    "trump": "Trump",
    "trump_rotation": "Trump suits in turn",
    "trump_suit": "Trump suit every hand",
    "bidding": "Bidding",
    "hook": "The hook",
    "bid_changes": "Bids may be changed",
    "first_lead": "First lead",
    "devils_bridge": "Devil's Bridge",
    "scoring": "Scoring",
    "no_trump_doubles": "No trump scores double",
    "tie_break": "A tie for first",
    "teams": "Teams",
}
"""Each rule option's name in plain words, for the forms (the option's own
name, "bid-changes", is what records and the command line use)."""


def options_json() -> Json:
    """Presets, every rule option with its choices, for the new-table form
    and the bot levels. The rule part is made once (it took 7 ms on the event
    loop each time); the levels are read each time, since bots can be
    registered while the program runs."""
    from ..bots import opponent_levels
    from ..bots.base import trained_for

    return {
        **copy.deepcopy(_options()),
        "levels": list(opponent_levels()),
        # A level made for one rule set alone: the form offers it only there.
        "level_rules": {k: {"preset": p, "players": n} for k, (p, n) in trained_for().items()},
        "default_preset": DEFAULT_PRESET,
    }


@functools.cache
def _options() -> Json:
    return {
        "presets": {name: rules.options() for name, rules in PRESETS.items()},
        "preset_lines": {name: preset_line(rules) for name, rules in PRESETS.items()},
        "options": [
            {
                "name": name.replace("_", "-"),
                "label": _LABELS.get(name, name.replace("_", " ").capitalize()),
                "choices": _choices(name),
                "choice_words": _choice_words(name),
                "help": option_help(name),  # the same words as the command line's --help
            }
            for name in OPTION_NAMES
        ],
    }


# --- Client to server ---


SAFE_INTEGER: Final = 2**53
"""Whole numbers a client sends are below this either way (JSON's safe
integers: a browser holds them exactly, and every process can pass them on)."""

MAX_DEPTH: Final = 32
"""How deeply a client's JSON may nest objects and lists (no message or body
the server reads goes past 4 levels)."""

_HALF_PAIR: Final = re.compile("[\ud800-\udfff]")


class UnsafeJson(ValueError):
    """JSON that Python reads but that could not be passed on to another
    server process, or to a browser, as it is; the message says what, and
    ``field`` names the top-level field it was in (None: not in one)."""

    def __init__(self, message: str, field: str | None = None) -> None:
        super().__init__(message)
        self.field = field


class _Refused:
    """Stands in, while reading, for a value that will be refused (what is
    wrong with it): the refusal then names the field it was in."""

    def __init__(self, fault: str) -> None:
        self.fault = fault
        _reading.refused = True  # the whole value is walked to find it


_reading: Final = threading.local()  # .refused: did this thread's reading make a stand-in?


def _whole_number(text: str) -> int | _Refused:
    # The digits' count first: no time goes into reading a huge number.
    if len(text.lstrip("-")) > len(str(SAFE_INTEGER)) or not -SAFE_INTEGER < int(text) < SAFE_INTEGER:
        return _Refused("is too large a whole number (at most 2^53 - 1 either way)")
    return int(text)


def _fraction(text: str) -> float | _Refused:
    number = float(text)
    return number if math.isfinite(number) else _Refused("is too large a number")


def _constant(name: str) -> _Refused:
    return _Refused(f"is {name}, which is not a number JSON allows")


_DECODER: Final = json.JSONDecoder(parse_int=_whole_number, parse_float=_fraction, parse_constant=_constant)


def _check(value: object, field: str | None, depth: int = 1) -> None:
    """Refuse a stand-in, nesting past MAX_DEPTH and text holding half of a
    UTF-16 pair (``"\\ud800"`` alone): none can be encoded again for the relay."""
    where = "the value " if field is None else f'"{field[:24]}" '
    if isinstance(value, _Refused):
        raise UnsafeJson(where + value.fault, field)
    if isinstance(value, str):
        if _HALF_PAIR.search(value):
            raise UnsafeJson(where + "holds half of a character pair (a lone \\ud800-\\udfff escape)", field)
        return
    if not isinstance(value, dict | list):
        return
    if depth > MAX_DEPTH:
        raise UnsafeJson(f"{where}nests objects or lists more than {MAX_DEPTH} levels deep", field)
    if isinstance(value, list):
        for item in value:
            _check(item, field, depth + 1)
        return
    for key, item in value.items():
        if _HALF_PAIR.search(key):
            raise UnsafeJson(
                "a field's name holds half of a character pair (a lone \\ud800-\\udfff escape)", field
            )
        _check(item, key if depth == 1 else field, depth + 1)


def loads_checked(text: str | bytes) -> Any:
    """JSON a client sent, read only if every value in it can travel on:
    whole numbers within JSON's safe range, finite numbers (no NaN or
    Infinity), no lone half of a character pair, at most MAX_DEPTH levels.
    ``UnsafeJson`` (a ValueError) names the first fault and its field;
    another ValueError, or a RecursionError (nesting past what Python
    reads), means it is not JSON at all.

    Such values are refused where client input is read, by every process,
    before they are relayed to the table's holder: one could not be encoded
    there, and would take other tables' messages down with it."""
    if isinstance(text, bytes):
        text = text.decode("utf-8")  # a UnicodeDecodeError is a ValueError
    _reading.refused = False
    data = _DECODER.decode(text)
    # Most messages hold nothing that could be refused, and are not walked:
    # only one where a stand-in was made, an escape was written (half a
    # pair comes only from one), more brackets than the depth allowed, or a
    # character beyond ASCII (a half pair given as text, not as JSON).
    if (
        _reading.refused
        or "\\u" in text
        or text.count("[") + text.count("{") > MAX_DEPTH
        or (not text.isascii() and _HALF_PAIR.search(text))
    ):
        _check(data, None)
    return data


def parse_message(text: str | bytes) -> Json:
    """A client message as a JSON object, or ProtocolError saying what is wrong."""
    if len(text) > MAX_MESSAGE:
        raise ProtocolError(f"message too long ({len(text)} bytes; at most {MAX_MESSAGE})")
    try:
        data = loads_checked(text)
    except UnsafeJson as err:
        raise ProtocolError(f"the message cannot be used: {err}") from None
    except RecursionError:
        raise ProtocolError(f"the message nests more than {MAX_DEPTH} levels deep") from None
    except (ValueError, UnicodeDecodeError) as err:
        raise ProtocolError(f"not JSON: {err}") from None
    if not isinstance(data, dict):
        raise ProtocolError("a message must be a JSON object")
    kind = data.get("type")
    if not isinstance(kind, str):
        raise ProtocolError('a message needs a "type"')
    return data


def _int_field(data: Json, key: str, what: str) -> int:
    value = data.get(key)
    if type(value) is not int:
        raise ProtocolError(f"{what} must be a whole number, not {value!r}")
    return value


def parse_action(data: object, seat: int) -> Action:
    """The action a client sends for its own ``seat`` (docs/web.md)."""
    if not isinstance(data, dict):
        raise ProtocolError('"action" must be an object such as {"kind": "bid", "bid": 2}')
    kind = data.get("kind")
    if kind in ("bid", "change"):
        bid = _int_field(data, "bid", "the bid")
        if not 0 <= bid <= 99:
            raise ProtocolError(f"a bid of {bid} is out of range")
        return Bid(seat, bid) if kind == "bid" else ChangeBid(seat, bid)
    if kind == "trump":
        suit = data.get("suit")
        if suit in ("NT", "nt"):
            return NameTrump(seat, None)
        if not isinstance(suit, str):
            raise ProtocolError('"suit" must be C, D, H, S or NT')
        try:
            return NameTrump(seat, Suit.parse(suit))
        except (CardError, ValueError):
            raise ProtocolError(f"{suit!r} is not a suit: C, D, H, S or NT") from None
    if kind == "play":
        card = data.get("card")
        if card is None:
            return Play(seat, None)
        if not isinstance(card, str) or len(card) > 8:
            raise ProtocolError('"card" must be a card such as "QS" or "10H", or null')
        try:
            return Play(seat, Card.parse(card))
        except (CardError, ValueError) as err:
            raise ProtocolError(f"{card!r} is not a card: {err}") from None
    raise ProtocolError(f"unknown action kind {kind!r}: bid, change, trump or play")


def clean_name(value: object) -> str:
    """A player's name: one line, trimmed, at most MAX_NAME characters."""
    if not isinstance(value, str):
        raise ProtocolError("the name must be text")
    name = " ".join(value.split())
    if not name:
        raise ProtocolError("the name is empty")
    if len(name) > MAX_NAME:
        raise ProtocolError(f"the name is longer than {MAX_NAME} characters")
    if not name.isprintable():
        raise ProtocolError("the name holds characters that cannot be printed")
    return name


__all__ = [
    "DEFAULT_PRESET",
    "MAX_DEPTH",
    "MAX_MESSAGE",
    "SAFE_INTEGER",
    "ProtocolError",
    "UnsafeJson",
    "action_json",
    "clean_name",
    "dumps",
    "loads_checked",
    "observation_json",
    "options_json",
    "parse_action",
    "parse_message",
    "result_json",
    "seen_json",
]
