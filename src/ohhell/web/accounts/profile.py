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

from ... import Record, make_rules, parse_action
from ...analysis import Review, ReviewError
from ..storage.store import Store, reviews_t, tables_t
from .model import account_seats_t

MOST: Final = 50  # matches read for the statistics, the newest
COSTLIEST: Final = 5


def statistics(store: Store, account_id: str) -> dict[str, Any]:
    """``{"matches", "hands", "exact", "points_per_hand", "losses": [{"table",
    "at", "average_loss"}], "costliest": [{"table", "hand", "kind", "chosen",
    "best", "loss"}]}`` over the account's finished matches."""
    with store.engine.connect() as db:
        seats = db.execute(
            select(account_seats_t.c.table_id, account_seats_t.c.seat, account_seats_t.c.at)
            .join(tables_t, tables_t.c.id == account_seats_t.c.table_id)
            .where(account_seats_t.c.account_id == account_id, tables_t.c.status == "over")
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
        for result in state.results:
            hands += 1
            exact += result.bids[seat] == result.tricks[seat]
            points += result.scores[seat]
        review = _review(reviewed.get(table_id))
        summary = review.summary_of(seat) if review is not None else None
        if review is None or summary is None:
            continue
        losses.append({"table": table_id, "at": at, "average_loss": round(summary.average_loss, 3)})
        for d in review.decisions_of(seat):
            if d.loss > 0:
                where = {"table": table_id, "hand": d.hand, "kind": d.kind}
                costly.append({**where, "chosen": d.chosen, "best": d.best, "loss": d.loss, "mark": d.mark})
    costly.sort(key=lambda d: -float(d["loss"]))
    return {
        "matches": matches,
        "hands": hands,
        "exact": exact,
        "points_per_hand": round(points / hands, 2) if hands else None,
        "losses": sorted(losses, key=lambda x: float(x["at"])),
        "costliest": [{**d, "loss": round(float(d["loss"]), 2)} for d in costly[:COSTLIEST]],
    }


def _review(text: str | None) -> Review | None:
    if not text:
        return None
    try:
        return Review.from_json(json.loads(text))
    except (ValueError, KeyError, TypeError, ReviewError):
        return None
