"""Ratings: OpenSkill's Plackett-Luce model, one update per finished match.

A match is rated when it ends (web/tables/table.py calls ``rate_table`` through
the hub), once: the table's row in ``ohhell_rated_tables`` is written in the
same transaction as the new ratings, so a second call (a restart, another
process) changes nothing.

What is rated, and how:

- Whole matches played to the end, on a preset's own options (the number of
  players aside). A match of other options, or one the host ended, is not.
- Each seat's place comes from the final scores, equal scores sharing a
  place (Plackett-Luce with ties). A person who left before the end is
  placed after everyone who stayed.
- Only accounts' ratings change. Bots are landmarks with fixed ratings
  (``landmarks.json``, measured by ``bench/landmarks.py`` from matches
  among the levels), so a person alone at a table of bots is rated against
  them. A guest counts as a newcomer whose rating is not kept.
- A person who asked for a hint in the match is not rated by it (their
  current rating takes part as it is, unchanged).

The arithmetic (the model, places, the landmarks, the shown scale) is
ohhell/skill.py's, shared with ``ohhell stats``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from sqlalchemy import Column, Float, ForeignKey, Index, Integer, String, Table, Text, insert, select, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.schema import PrimaryKeyConstraint

from ... import Rules
from ...skill import (
    SETTLED,
    Entrant,
    Rating,
    landmarks,
    model,
    new_ratings,
    places,
    provisional,
    rated_rules,
    shown,
    standing_words,
)
from ..storage.store import metadata

ratings_t = Table(
    "ohhell_ratings",
    metadata,
    Column("account_id", String(24), ForeignKey("ohhell_accounts.id"), primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("matches", Integer, nullable=False),
    Column("updated", Float, nullable=False),
)

rated_tables_t = Table(
    "ohhell_rated_tables",
    metadata,
    Column("table_id", String(32), ForeignKey("ohhell_tables.id"), primary_key=True),
    Column("at", Float, nullable=False),
    Column("outcome", Text, nullable=False),  # "rated", or why not, in words
)

rating_changes_t = Table(
    "ohhell_rating_changes",
    metadata,
    Column("table_id", String(32), ForeignKey("ohhell_tables.id"), nullable=False),
    Column("account_id", String(24), ForeignKey("ohhell_accounts.id"), nullable=False),
    Column("place", Integer, nullable=False),  # 1 = first; shared places share the number
    Column("players", Integer, nullable=False),
    Column("mu_before", Float, nullable=False),
    Column("sigma_before", Float, nullable=False),
    Column("mu_after", Float, nullable=False),
    Column("sigma_after", Float, nullable=False),
    Column("at", Float, nullable=False),
    PrimaryKeyConstraint("table_id", "account_id"),
    Index("ix_ohhell_rating_changes_account_id", "account_id"),
)


def _current(db: Connection, account: str) -> tuple[float, float, int]:
    row = db.execute(select(ratings_t).where(ratings_t.c.account_id == account)).first()
    if row is None:
        return model().mu, model().sigma, 0
    return row.mu, row.sigma, row.matches


def rate_table(engine: Engine, table_id: str, rules: Rules, entrants: Sequence[Entrant]) -> str:
    """Rate a finished match, once; returns what was done, in words
    ("rated", or why not). Safe to call again: the second call changes
    nothing and returns the first's outcome."""
    now = time.time()
    with engine.begin() as db:
        done = db.execute(
            select(rated_tables_t.c.outcome).where(rated_tables_t.c.table_id == table_id)
        ).scalar()
        if done is not None:
            return str(done)
        outcome = _outcome(rules, entrants)
        try:
            db.execute(insert(rated_tables_t).values(table_id=table_id, at=now, outcome=outcome))
        except IntegrityError:  # another process rated it meanwhile
            return "rated"
        if outcome == "rated":
            _update(db, table_id, entrants, now)
    return outcome


def _outcome(rules: Rules, entrants: Sequence[Entrant]) -> str:
    if not rated_rules(rules):
        return "not rated: the options are not a preset's own"
    if not any(e.account is not None and not e.unrated for e in entrants):
        return "not rated: no account played without hints, or from an address of its own"
    accounts = [e.account for e in entrants if e.account is not None]
    if len(set(accounts)) != len(accounts):
        return "not rated: one account held two seats"
    return "rated"


def _update(db: Connection, table_id: str, entrants: Sequence[Entrant], now: float) -> None:
    skill = model()
    marks = landmarks()
    before: list[tuple[float, float, int]] = []
    for e in entrants:
        if e.account is not None:
            before.append(_current(db, e.account))
        elif e.level is not None and e.level in marks:
            before.append((*marks[e.level], 0))
        else:  # a guest, or a bot of no measured level: a newcomer
            before.append((skill.mu, skill.sigma, 0))
    ranks = places(entrants)
    after = new_ratings([(mu, sigma) for mu, sigma, _ in before], ranks)
    for e, (mu, sigma, matches), (new_mu, new_sigma), place in zip(
        entrants, before, after, ranks, strict=True
    ):
        if e.account is None or e.unrated:
            continue
        values = {"mu": new_mu, "sigma": new_sigma, "matches": matches + 1, "updated": now}
        if (
            matches == 0
            and db.execute(select(ratings_t.c.account_id).where(ratings_t.c.account_id == e.account)).first()
            is None
        ):
            db.execute(insert(ratings_t).values(account_id=e.account, **values))
        else:
            db.execute(update(ratings_t).where(ratings_t.c.account_id == e.account).values(**values))
        db.execute(
            insert(rating_changes_t).values(
                table_id=table_id,
                account_id=e.account,
                place=place,
                players=len(entrants),
                mu_before=mu,
                sigma_before=sigma,
                mu_after=new_mu,
                sigma_after=new_sigma,
                at=now,
            )
        )


def rating_of(engine: Engine, account: str) -> Rating:
    with engine.connect() as db:
        return Rating(*_current(db, account))


def rate_finished(
    engine: Engine,
    table_id: str,
    rules: Rules,
    seats: Sequence[tuple[str, str | None]],
    totals: Sequence[int],
    owners: dict[int, str],
    *,
    unrated: set[int],
    played: set[int],
    cover: str,
) -> str:
    """Rate a table whose match is over: ``seats`` is each seat's kind and
    bot level as it ended ("human", "bot"...), ``totals`` the final scores,
    ``owners`` the accounts of the seats accounts played, ``unrated`` the
    seats whose person is not rated (a hint asked for, an address shared
    with another seat), ``played`` the seats whose person made at
    least half of their decisions. A seat an account held that a bot holds
    at the end was left by its person: placed last. A seat its person
    hardly played (a bot covered it) is rated as that bot, ``cover``, and
    its account not at all: nobody is rated for a match their account
    never played, so made-up seats rate nothing."""
    entrants = []
    for seat, (kind, level) in enumerate(seats):
        account = owners.get(seat)
        left = kind == "bot" and account is not None
        if account is not None and not left and seat not in played:
            account, level = None, cover
        entrants.append(
            Entrant(
                seat=seat,
                score=totals[seat],
                account=account,
                level=level if account is None else None,
                left=left,
                unrated=seat in unrated,
            )
        )
    return rate_table(engine, table_id, rules, entrants)


def history(engine: Engine, account: str) -> list[dict[str, object]]:
    """The account's rated matches, oldest first: table, when, place, and its
    rating before and after (shown)."""
    query = (
        select(rating_changes_t)
        .where(rating_changes_t.c.account_id == account)
        .order_by(rating_changes_t.c.at)
    )
    with engine.connect() as db:
        rows = db.execute(query).all()
    return [
        {
            "table": r.table_id,
            "at": r.at,
            "place": r.place,
            "players": r.players,
            "before": shown(r.mu_before),
            "after": shown(r.mu_after),
            "provisional": provisional(r.sigma_after),
        }
        for r in rows
    ]


def leaderboard(
    engine: Engine, names: dict[str, str], *, least: int = 5, since: float = 0.0, most: int = 100
) -> list[dict[str, object]]:
    """The best ratings among ``names`` (account -> name: the accounts that may
    be listed) with at least ``least`` rated matches, the last after
    ``since``; then the bots' landmarks among them, marked as bots."""
    query = (
        select(ratings_t)
        .where(ratings_t.c.matches >= least, ratings_t.c.updated >= since)
        .order_by(ratings_t.c.mu.desc())
    )
    with engine.connect() as db:
        rows = [r for r in db.execute(query).all() if r.account_id in names][:most]
    entries: list[dict[str, object]] = [
        {
            "name": names[r.account_id],
            "rating": shown(r.mu),
            "matches": r.matches,
            "provisional": provisional(r.sigma),
        }
        for r in rows
    ]
    entries += [{"bot": level, "rating": shown(mu)} for level, (mu, _) in landmarks().items()]
    return sorted(entries, key=lambda e: -int(str(e["rating"])))


__all__ = [
    "SETTLED",
    "Entrant",
    "Rating",
    "history",
    "landmarks",
    "leaderboard",
    "new_ratings",
    "places",
    "rate_finished",
    "rate_table",
    "rated_rules",
    "rating_of",
    "shown",
    "standing_words",
]
