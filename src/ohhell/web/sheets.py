"""A score sheet's pure parts: the sheet as the page reads it
(``sheet_json``), a new game from the setup form (``new_game``) and one
command of the entry API (``apply_entry``), with ``ScoreRow``, a stored
sheet.

The server's routes (``serving/scores.py``, which keeps sheets in the
database) and the offline site's worker (``web/local``, which keeps them in
the browser) both answer with these, so the score page reads the same JSON
from either; this module needs only the standard library and our core.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any, Final

from .. import MAX_PLAYERS, MIN_PLAYERS, Scoring, make_rules
from ..describe import describe_rules
from ..scorekeeper import KEEP, HandView, ScoreGame, parse_trump
from ..scorekeeper.model import VERSION
from ..scorekeeper.words import sheet_title
from .errors import TableError
from .fields import int_field
from .protocol import DEFAULT_PRESET, ProtocolError, clean_name

Json = dict[str, Any]

MAX_TOKEN: Final = 200  # the longest edit token read
MAX_UNDO: Final = 400  # commands that can be taken back, newest first


@dataclass(frozen=True, slots=True)
class ScoreRow:
    id: str
    created: float
    updated: float
    edit_token_hash: str
    revision: int
    data: Json
    undo: list[Json]


def _suit(view: HandView) -> str | None:
    if not view.trump_known:
        return None
    return "NT" if view.trump is None else view.trump.letter


def _hand_json(view: HandView) -> Json:
    return {
        "hand": view.number,
        "extra": view.extra,
        "cards": view.size,
        "dealer": view.dealer,
        "first_bidder": view.first_bidder,
        "first_leader": view.first_leader,
        "bidding_order": list(view.bidding_order),
        "bids": list(view.bids),
        "next_bidder": view.next_bidder,
        "forbidden": view.forbidden,
        "balance": view.balance,
        "bidding_done": view.bidding_done,
        "trump_namer": view.trump_namer,
        "needs_trump": view.needs_trump,
        "trump_known": view.trump_known,
        "trump": _suit(view),
        "trump_rule": view.trump_rule,
        "tricks": list(view.tricks) if view.tricks is not None else None,
        "revokes": list(view.revokes),
        "scores": list(view.scores) if view.scores is not None else None,
        "totals": list(view.totals),
        "missed": list(view.missed),
        "complete": view.is_complete,
    }


def sheet_json(game: ScoreGame, row: ScoreRow | None = None, revision: int | None = None) -> Json:
    """Everything the sheet page shows, recomputed from the entries."""
    rules = game.rules
    current = game.current
    teams = [list(t) for t in rules.teams] if rules.teams is not None else None
    out: Json = {
        "format": "ohhell-scoresheet-view",
        "players": list(game.players),
        "first_dealer": game.first_dealer,
        "date": game.date,
        # The page's view counts seats from 0 throughout (indices into "players");
        # the export, for people and files, counts them from 1.
        "rules": rules.options(),
        "title": sheet_title(rules, game.players),
        "description": describe_rules(rules, game.players),
        "scoring": rules.scoring.value,
        "bidding": rules.bidding.value,
        "trump_mode": rules.trump.value,
        "hook": rules.hook,
        "hands_scheduled": len(rules.schedule),
        "teams": teams,
        "finished": current is None,
        "current": _hand_json(current) if current is not None else None,
        "hands": [_hand_json(v) for v in game.hands],
        "totals": list(game.totals),
        "side_totals": list(game.side_totals()),
        "exact": list(game.exact_counts),
        "exact_rates": [round(r, 4) for r in game.exact_rates],
        "hands_played": len(game.completed),
        "running": [list(t) for t in game.running_totals()],
        "standings": [
            {"place": s.place, "seats": list(s.seats), "total": s.total, "exact": s.exact}
            for s in game.standings()
        ],
        "settlement": None,
        "settlement_net": None,
    }
    if rules.scoring is Scoring.OKENUFF:  # R-SETTLE
        out["settlement"] = game.settlement()
        out["settlement_net"] = game.settlement_net()
    if row is not None:
        out["id"] = row.id
        out["created"] = row.created
        out["updated"] = row.updated
        out["revision"] = row.revision if revision is None else revision
        out["can_undo"] = bool(row.undo) or bool(game.entries)
    return out


# --- Requests ---


def _int_list(data: Json, key: str, *, nulls: bool = False) -> list[Any]:
    value = data.get(key)
    ok = isinstance(value, list) and all(type(v) is int or (nulls and v is None) for v in value)
    if not ok:
        what = "whole numbers (or null)" if nulls else "whole numbers"
        raise TableError(f'"{key}" must be a list of {what} by seat, not {value!r}')
    assert isinstance(value, list)
    return value


def _trump(data: Json) -> Any:
    value = data.get("suit", data.get("trump"))
    if not isinstance(value, str):
        raise TableError(f'the trump must be "C", "D", "H", "S" or "NT", not {value!r}')
    return parse_trump(value)


def new_game(data: Json) -> ScoreGame:
    """A ``ScoreGame`` from the setup form's body: players, first dealer, preset, options."""
    players = data.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise TableError('"players" must list the players\' names in seat order')
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise TableError(f"a game has {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(players)}")
    try:
        names = [clean_name(p) for p in players]
    except ProtocolError as err:
        raise TableError(f"a player's name: {err}") from None
    preset = data.get("preset", DEFAULT_PRESET)
    if not isinstance(preset, str):
        raise TableError(f'"preset" must be a preset\'s name, not {preset!r}')
    options = data.get("options", {})
    if not isinstance(options, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in options.items()
    ):
        raise TableError('"options" must map option names to text, e.g. {"hook": "no"}')
    options = dict(options)
    options.setdefault("players", str(len(names)))
    rules = make_rules(preset, options)
    dealer = data.get("first_dealer")
    if dealer is not None and type(dealer) is not int:
        raise TableError(f'"first_dealer" must be a seat number, not {dealer!r}')
    # The game's rules name the dealer chosen (the model sees to it), so the
    # sheet, its rules in words and its export say who deals first, not "draw".
    return ScoreGame(rules, names, dealer, date=datetime.date.today().isoformat())


def apply_entry(game: ScoreGame, data: Json, undo: list[Json]) -> tuple[ScoreGame, list[Json], str]:
    """Apply one command of the entry API; returns the game, the undo history and what was done.

    Raises ``ScoreError`` (the model refused) or ``TableError`` (a malformed command).
    """
    op = data.get("op")
    before = game.hands_data()
    undo = list(undo)
    if op == "bid":
        seat = int_field(data, "seat")
        game.bid(seat, int_field(data, "bid"))
        what = f"{game.players[seat]}'s bid"
    elif op == "trump":
        game.name_trump(_trump(data))
        what = "the trump"
    elif op == "tricks":
        view = game.current
        game.tricks(_int_list(data, "tricks"))
        what = f"the tricks of hand {view.number if view else '?'}"
    elif op == "revoke":
        seat = int_field(data, "seat")
        hand = data.get("hand")
        if hand is not None and type(hand) is not int:
            raise TableError(f'"hand" must be a hand number, not {hand!r}')
        game.revoke(seat, hand)
        what = f"{game.players[seat]}'s revoke"
    elif op == "edit":
        hand = int_field(data, "hand")
        bids = _int_list(data, "bids", nulls=True) if data.get("bids") is not None else None
        tricks = _int_list(data, "tricks") if data.get("tricks") is not None else None
        trump = _trump(data) if data.get("trump") is not None else KEEP
        revokes = _int_list(data, "revokes") if data.get("revokes") is not None else None
        if bids is None and tricks is None and trump is KEEP and revokes is None:
            raise TableError("an edit names at least one of bids, tricks, trump, revokes")
        game.edit(hand, bids=bids, tricks=tricks, trump=trump, revokes=revokes)
        what = f"the edit of hand {hand}"
    elif op == "undo":
        if undo:
            last = undo.pop()
            # An entry without a version was stored by version 1 (revokes from seat 0).
            return game.with_hands(last["hands"], last.get("version", 1)), undo, f"undone: {last['what']}"
        return game, undo, f"undone: {game.undo()}"
    else:
        raise TableError(f"unknown op {op!r}: bid, trump, tricks, revoke, edit or undo")
    undo.append({"what": what, "hands": before, "version": VERSION})
    return game, undo, what


__all__ = ["MAX_TOKEN", "MAX_UNDO", "ScoreRow", "apply_entry", "new_game", "sheet_json"]
