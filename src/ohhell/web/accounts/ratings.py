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
- Each rated match moves two ratings of each person: the overall one, and
  the one of its preset (``ohhell_preset_ratings``), which the preset's
  own leaderboard lists; both start from a newcomer's.

The arithmetic (the model, places, the landmarks, the shown scale) is
ohhell/skill.py's, shared with ``ohhell stats``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from sqlalchemy import (
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
    insert,
    select,
    update,
)
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
    preset_of,
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

preset_ratings_t = Table(
    "ohhell_preset_ratings",
    metadata,
    Column("account_id", String(24), ForeignKey("ohhell_accounts.id"), nullable=False),
    Column("preset", String(32), nullable=False),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("matches", Integer, nullable=False),
    Column("updated", Float, nullable=False),
    PrimaryKeyConstraint("account_id", "preset"),
    Index("ix_ohhell_preset_ratings_preset", "preset"),
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


def _current(db: Connection, account: str, preset: str | None = None) -> tuple[float, float, int]:
    """The account's overall rating, or its rating in ``preset``'s matches;
    a newcomer's where it has none."""
    if preset is None:
        query = select(ratings_t).where(ratings_t.c.account_id == account)
    else:
        query = select(preset_ratings_t).where(
            preset_ratings_t.c.account_id == account, preset_ratings_t.c.preset == preset
        )
    row = db.execute(query).first()
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
            preset = preset_of(rules)
            assert preset is not None  # a rated match is a preset's
            _update_preset(db, preset, entrants, now)
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
    before = _before(db, entrants, None)
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


def _before(
    db: Connection, entrants: Sequence[Entrant], preset: str | None
) -> list[tuple[float, float, int]]:
    """Each seat's rating going in: an account's own (overall or in the
    preset), a bot's landmark, else a newcomer's (a guest, a bot of no
    measured level)."""
    skill = model()
    marks = landmarks()
    before: list[tuple[float, float, int]] = []
    for e in entrants:
        if e.account is not None:
            before.append(_current(db, e.account, preset))
        elif e.level is not None and e.level in marks:
            before.append((*marks[e.level], 0))
        else:
            before.append((skill.mu, skill.sigma, 0))
    return before


def _update_preset(db: Connection, preset: str, entrants: Sequence[Entrant], now: float) -> None:
    """The same match, moving each rated person's rating in ``preset``."""
    before = _before(db, entrants, preset)
    after = new_ratings([(mu, sigma) for mu, sigma, _ in before], places(entrants))
    for e, (_, _, matches), (mu, sigma) in zip(entrants, before, after, strict=True):
        if e.account is None or e.unrated:
            continue
        values = {"mu": mu, "sigma": sigma, "matches": matches + 1, "updated": now}
        mine = (preset_ratings_t.c.account_id == e.account) & (preset_ratings_t.c.preset == preset)
        if db.execute(select(preset_ratings_t.c.matches).where(mine)).first() is None:
            db.execute(insert(preset_ratings_t).values(account_id=e.account, preset=preset, **values))
        else:
            db.execute(update(preset_ratings_t).where(mine).values(**values))


def rating_of(engine: Engine, account: str, preset: str | None = None) -> Rating:
    """The account's overall rating, or its rating in ``preset``'s matches."""
    with engine.connect() as db:
        return Rating(*_current(db, account, preset))


def preset_ratings(engine: Engine, account: str) -> dict[str, Rating]:
    """The account's rating in each preset it has rated matches of."""
    query = select(preset_ratings_t).where(preset_ratings_t.c.account_id == account)
    with engine.connect() as db:
        return {r.preset: Rating(r.mu, r.sigma, r.matches) for r in db.execute(query).all()}


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
    acted: set[int] | None = None,
    removed: set[int] | None = None,
    ended_by: int | None = None,
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
    never played, so made-up seats rate nothing. But a person who played
    (``acted``: made a decision of their own) and then let a bot finish
    most of the match has left it: placed last, as closing the page while
    losing must cost what losing does. A seat the host ``removed`` was not
    left by its person: rated as the bot that took it, its person not at
    all. A match the host ended (``ended_by``, their seat) rates the host
    alone, placed last; the others' ratings stay as they were."""
    acted = played if acted is None else acted
    removed = removed or set()
    entrants = []
    for seat, (kind, level) in enumerate(seats):
        account = owners.get(seat)
        if seat in removed:
            entrants.append(Entrant(seat=seat, score=totals[seat], level=cover))
            continue
        left = account is not None and (
            kind == "bot" or seat == ended_by or (seat in acted and seat not in played)
        )
        if account is not None and not left and seat not in played:
            account, level = None, cover
        entrants.append(
            Entrant(
                seat=seat,
                score=totals[seat],
                account=account,
                level=level if account is None else None,
                left=left,
                unrated=seat in unrated or (ended_by is not None and seat != ended_by),
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
    engine: Engine,
    names: dict[str, str],
    *,
    least: int = 5,
    since: float = 0.0,
    most: int = 100,
    preset: str | None = None,
) -> list[dict[str, object]]:
    """The best ratings among ``names`` (account -> name: the accounts that may
    be listed) with at least ``least`` rated matches, the last after
    ``since``, overall or in ``preset``'s matches; then the bots' landmarks
    among them, marked as bots."""
    t = ratings_t if preset is None else preset_ratings_t
    query = select(t).where(t.c.matches >= least, t.c.updated >= since).order_by(t.c.mu.desc())
    if preset is not None:
        query = query.where(preset_ratings_t.c.preset == preset)
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


def presets_listed(
    engine: Engine, names: dict[str, str], *, least: int = 5, since: float = 0.0, enough: int = 3
) -> list[str]:
    """The presets whose own leaderboard would list at least ``enough``
    players (of ``names``, with ``least`` matches, active after ``since``):
    a board of one or two players says nothing."""
    query = (
        select(preset_ratings_t.c.preset, preset_ratings_t.c.account_id)
        .where(preset_ratings_t.c.matches >= least, preset_ratings_t.c.updated >= since)
        .order_by(preset_ratings_t.c.preset)
    )
    counts: dict[str, int] = {}
    with engine.connect() as db:
        for preset, account in db.execute(query).all():
            if account in names:
                counts[preset] = counts.get(preset, 0) + 1
    return [preset for preset, count in counts.items() if count >= enough]


__all__ = [
    "SETTLED",
    "Entrant",
    "Rating",
    "history",
    "landmarks",
    "leaderboard",
    "new_ratings",
    "places",
    "preset_of",
    "preset_ratings",
    "presets_listed",
    "rate_finished",
    "rate_table",
    "rated_rules",
    "rating_of",
    "shown",
    "standing_words",
]
