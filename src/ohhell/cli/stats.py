"""``ohhell stats``: how you do against the bots, from the matches ``ohhell
play`` saved (``$OHHELL_HOME``, else ``~/.local/share/ohhell``: the current
match and the ones kept beside it) and any records named.

For each bot level you played against: matches, wins, your average place
and points; over every hand, how often your bid was exact and your points a
hand; from reviews made with ``ohhell review`` (kept beside each record),
your average loss a decision; and a rating against the bots' fixed
landmarks, as the server rates its accounts (needs the ``web`` extra's
``openskill``; without it the rest is shown).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import RecordError, load


def add_parser(sub: Any) -> None:
    """Add the ``stats`` subcommand to the ``ohhell`` parser's subparsers."""
    from .common import command_parser, examples

    stats = command_parser(
        sub,
        "stats",
        help="how you do against the bots, from the matches ohhell play saved",
        description=(
            "Your results against each bot level, exact bids, points a hand, the average loss a "
            "decision from reviews, and a rating against the bots, from your saved matches."
        ),
        epilog=examples(
            "ohhell stats                       # the matches ohhell play kept",
            "ohhell stats old/*.ohr             # those records too",
        ),
    )
    stats.add_argument("files", nargs="*", help="more game records to count (.ohr)")
    stats.set_defaults(func=cmd_stats)


@dataclass
class Tally:
    """What the person did in the matches against one level."""

    matches: int = 0
    wins: int = 0
    places: list[int] = field(default_factory=list)
    points: list[int] = field(default_factory=list)


def _saved() -> list[Path]:
    from ..terminal.session import default_save_path

    current = default_save_path()
    if not current.parent.is_dir():
        return []
    return sorted(p for p in current.parent.glob(f"{current.stem}*{current.suffix}") if p.is_file())


def _average_loss(path: Path, record: Any, seat: int) -> float | None:
    """The person's average loss a decision, from a review kept beside the record."""
    try:
        from ..analysis import Review, cache_path, record_digest
    except ImportError:  # pragma: no cover - the analysis is part of the package
        return None
    try:
        with open(cache_path(path), encoding="utf-8") as f:
            review = Review.from_json(json.load(f))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if review.record != record_digest(record):
        return None
    summary = review.summary_of(seat)
    return summary.average_loss if summary is not None else None


def cmd_stats(args: argparse.Namespace) -> int:
    named = [Path(f) for f in args.files]
    paths = _saved() + named
    by_level: dict[str, Tally] = defaultdict(Tally)
    exact = hands = 0
    hand_points: list[int] = []
    losses: list[float] = []
    standings: list[tuple[list[str], list[int], int]] = []  # (each seat's level or "you", totals, your seat)
    skipped = 0
    for path in paths:
        try:
            record = load(path)
            state = record.replay()
        except (OSError, RecordError) as err:
            if path in named:
                print(f"ohhell stats: {path}: {err}", file=sys.stderr)
                return 2
            skipped += 1
            continue
        tags = dict(record.tags)
        kinds = tags.get("kinds", "").split(",")
        if not state.is_over or kinds.count("human") != 1 or len(kinds) != state.players:
            skipped += 1  # unfinished, or not one person against bots
            continue
        seat = kinds.index("human")
        levels = sorted({k for k in kinds if k != "human"})
        level = levels[0] if len(levels) == 1 else "mixed"
        totals = list(state.totals)
        place = 1 + sum(1 for t in totals if t > totals[seat])
        tally = by_level[level]
        tally.matches += 1
        tally.wins += place == 1
        tally.places.append(place)
        tally.points.append(totals[seat])
        for result in state.results:
            hands += 1
            exact += result.bids[seat] == result.tricks[seat]
            hand_points.append(result.scores[seat])
        loss = _average_loss(path, record, seat)
        if loss is not None:
            losses.append(loss)
        standings.append(([k if k != "human" else "you" for k in kinds], totals, seat))
    if not standings:
        print("No finished match against bots yet: play one with ohhell play.")
        return 0
    print(
        f"{len(standings)} finished matches against bots"
        + (f" ({skipped} other records left out)" if skipped else "")
    )
    print()
    print(f"{'against':14} {'matches':>7} {'won':>5} {'place':>6} {'points':>7}")
    for level, tally in sorted(by_level.items()):
        print(
            f"{level:14} {tally.matches:7d} {tally.wins:5d} {statistics.mean(tally.places):6.2f} "
            f"{statistics.mean(tally.points):7.1f}"
        )
    print()
    share = 100 * exact / hands
    per_hand = statistics.mean(hand_points)
    print(f"Exact bids: {exact} of {hands} hands ({share:.0f}%); {per_hand:.1f} points a hand.")
    if losses:
        mean = statistics.mean(losses)
        print(f"Average loss a decision: {mean:.2f} points, over {len(losses)} reviewed matches.")
    else:
        print("Average loss a decision: no reviewed match yet (ohhell review FILE reviews one).")
    print(_rating_line(standings))
    return 0


def _rating_line(standings: list[tuple[list[str], list[int], int]]) -> str:
    try:
        from ..skill import Entrant, Rating, landmarks, model, new_ratings, places, standing_words
    except ImportError:
        return "Rating: install the web extra (it brings openskill) to see one."
    marks = landmarks()
    mine = (model().mu, model().sigma)
    rated = 0
    for seats, totals, seat in standings:
        if any(level not in marks for level in seats if level != "you"):
            continue  # a bot with no measured landmark
        before = [mine if s == seat else marks[level] for s, level in enumerate(seats)]
        ranks = places([Entrant(s, score) for s, score in enumerate(totals)])
        mine = new_ratings(before, ranks)[seat]
        rated += 1
    if not rated:
        return "Rating: none yet (no match against bots of a measured level)."
    return f"Rating against the bots: {standing_words(Rating(mine[0], mine[1], rated))} ({rated} matches)."
