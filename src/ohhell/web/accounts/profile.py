"""A player's statistics, from the matches their account played: how often
their bid was exact, their points a hand, and from the reviews made of
those matches their average loss a decision, match by match (its trend),
and their costliest decisions, each with the match whose review shows it
as a puzzle.

Read from the stored action logs through the public record API (a
finished table replays as its record does), the newest ``MOST`` matches.
"""

from __future__ import annotations

import json
from typing import Any, Final

from sqlalchemy import select

from ... import GameState, Record, Rules, make_rules, parse_action, standings
from ...analysis import Review, ReviewError
from ...describe import rules_title
from ..storage.store import Store, reviews_t, settings_t, tables_t
from .model import account_seats_t
from .ratings import rated_tables_t, rating_changes_t, shown

MOST: Final = 50  # matches read for the statistics, the newest
COSTLIEST: Final = 5


def statistics(store: Store, account_id: str, *, own: bool = True) -> dict[str, Any]:
    """``{"matches", "hands", "exact", "points_per_hand", "losses": [{"table",
    "at", "average_loss"}], "costliest": [{"table", "hand", "kind", "chosen",
    "best", "loss"}], "played": [...]}`` over the account's finished matches;
    ``played`` is each match, newest first (``match_row``). Seen by others
    (``own`` false), a private table's other players stay unnamed."""
    with store.engine.connect() as db:
        seats = db.execute(
            select(account_seats_t.c.table_id, account_seats_t.c.seat, account_seats_t.c.at)
            .join(tables_t, tables_t.c.id == account_seats_t.c.table_id)
            .where(account_seats_t.c.account_id == account_id, tables_t.c.status.in_(("over", "ended")))
            .order_by(account_seats_t.c.at.desc())
            .limit(MOST)
        ).all()
        reviewed = {
            r.table_id: r.review
            for r in db.execute(
                select(reviews_t.c.table_id, reviews_t.c.review).where(
                    reviews_t.c.table_id.in_([s.table_id for s in seats]), reviews_t.c.state == "done"
                )
            ).all()
        }
        tables = [s.table_id for s in seats]
        outcomes = dict(
            db.execute(
                select(rated_tables_t.c.table_id, rated_tables_t.c.outcome).where(
                    rated_tables_t.c.table_id.in_(tables)
                )
            ).all()
        )
        changes = {
            r.table_id: r
            for r in db.execute(
                select(rating_changes_t).where(
                    rating_changes_t.c.account_id == account_id, rating_changes_t.c.table_id.in_(tables)
                )
            ).all()
        }
    played: list[dict[str, Any]] = []
    hands = exact = points = matches = 0
    losses: list[dict[str, Any]] = []
    costly: list[dict[str, Any]] = []
    for table_id, seat, at in seats:
        row = store.load(table_id)
        if row is None:
            continue
        rules = make_rules("pagat", row.options)
        names = tuple(s.name or f"Seat {s.seat + 1}" for s in row.seats)
        try:
            state = Record(rules, names, tuple(parse_action(line) for line in row.lines)).replay()
        except ValueError:
            continue  # a log this version cannot read: left out, not guessed at
        matches += 1
        change = changes.get(table_id)
        rated = (
            {"before": shown(change.mu_before), "after": shown(change.mu_after)}
            if change is not None
            else {"outcome": _unrated_words(outcomes.get(table_id), ended=row.status == "ended")}
        )
        shown_id = table_id if own or row.public else None  # a private table's id is its players' alone
        played.append(
            {
                **match_row(table_id, at, rules, names, state, seat, named=own or row.public),
                "table": shown_id,
                "ended": row.status == "ended",
                "rating": rated,
            }
        )
        for result in state.results:
            hands += 1
            exact += result.bids[seat] == result.tricks[seat]
            points += result.scores[seat]
        review = _review(reviewed.get(table_id))
        summary = review.summary_of(seat) if review is not None else None
        if review is None or summary is None:
            continue
        losses.append({"table": shown_id, "at": at, "average_loss": round(summary.average_loss, 3)})
        for d in review.decisions_of(seat):
            if d.loss > 0:
                where = {"table": shown_id, "hand": d.hand, "kind": d.kind}
                costly.append({**where, "chosen": d.chosen, "best": d.best, "loss": d.loss, "mark": d.mark})
    costly.sort(key=lambda d: -float(d["loss"]))
    return {
        "matches": matches,
        "hands": hands,
        "exact": exact,
        "points_per_hand": round(points / hands, 2) if hands else None,
        "losses": sorted(losses, key=lambda x: float(x["at"])),
        "costliest": [{**d, "loss": round(float(d["loss"]), 2)} for d in costly[:COSTLIEST]],
        "played": played,
    }


def match_row(
    table_id: str,
    at: float,
    rules: Rules,
    names: tuple[str, ...],
    state: GameState,
    seat: int,
    *,
    named: bool,
) -> dict[str, Any]:
    """One finished match as the profile lists it: when, the rules in words,
    the players (the others unnamed where ``named`` is false), the seat's
    place among the sides and its score."""
    totals = [sum(r.scores[s] for r in state.results) for s in range(rules.players)]
    exact = [sum(r.bids[s] == r.tricks[s] for r in state.results) for s in range(rules.players)]
    ranked = standings(rules, totals, exact)
    place = next(st.place for st in ranked if seat in st.seats)
    return {
        "table": table_id,
        "at": at,
        "rules": rules_title(rules),
        "players": [n if named or s == seat else None for s, n in enumerate(names)],
        "seat": seat,
        "place": place,
        "sides": len(ranked),
        "score": totals[seat],
    }


def public_tables(store: Store, table_ids: list[str]) -> set[str]:
    """Which of ``table_ids`` are public (listed for anyone to join)."""
    if not table_ids:
        return set()
    query = select(settings_t.c.table_id).where(
        settings_t.c.table_id.in_(table_ids), settings_t.c.name == "public", settings_t.c.value == "yes"
    )
    with store.engine.connect() as db:
        return {str(t) for t in db.execute(query).scalars()}


def _unrated_words(outcome: str | None, *, ended: bool = False) -> str:
    """Why a finished match did not move the rating, in words."""
    if ended:
        return "not rated: the host ended the match (it counts as a loss for the host alone)"
    if outcome is None:
        return "not rated"
    if outcome == "rated":  # rated, but not for this seat (a hint, a shared address, a bot's seat)
        return "not rated for you: a hint was asked for, or a bot played most of your seat"
    return outcome


def _review(text: str | None) -> Review | None:
    if not text:
        return None
    try:
        return Review.from_json(json.loads(text))
    except (ValueError, KeyError, TypeError, ReviewError):
        return None
