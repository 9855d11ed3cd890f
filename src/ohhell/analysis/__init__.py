"""Post-game review: what each decision cost, and what the cards were worth.

``review_record(record)`` prices every bid, trump choice and card each seat
made in a game record, with the expert's search from that seat's own
observation (never the hidden cards): the expected score of every legal
choice, the best, and the expected points the choice made gave up, marked
as an inaccuracy, a mistake or a blunder past ``Thresholds``. Each hand's
real deal is also played out with the expert in every seat, to say what
each seat's cards and position were worth (its luck). A seat's score
against the table's mean is then its luck, less the points it lost to its
decisions (against the table's mean loss), plus a rest the estimates do not
explain, with its size.

The result is a ``Review`` of frozen dataclasses with ``to_json`` and
``from_json``; the same record, seed and budget give the same review.
``ReviewJob`` runs one in the background with progress; ``review_file``
caches it beside its record. docs/analysis.md explains the numbers.
"""

from .cache import cache_path, load_cached, review_file, save_cached
from .decisions import advise, derived_seed, review_decision
from .explain import Gap, explain
from .job import ReviewJob
from .model import (
    FORMAT,
    MARKS,
    Advice,
    Budget,
    ChoiceValue,
    Decision,
    HandLuck,
    PastTrick,
    Position,
    Puzzle,
    Review,
    ReviewError,
    SeatSummary,
    Thresholds,
)
from .position import choice_text, parse_choice, position_of, same_plays
from .review import PUZZLES_PER_SEAT, Progress, ReviewTimeout, record_digest, review_record

__all__ = [
    "FORMAT",
    "MARKS",
    "PUZZLES_PER_SEAT",
    "Advice",
    "Budget",
    "ChoiceValue",
    "Decision",
    "Gap",
    "HandLuck",
    "PastTrick",
    "Position",
    "Progress",
    "Puzzle",
    "Review",
    "ReviewError",
    "ReviewJob",
    "ReviewTimeout",
    "SeatSummary",
    "Thresholds",
    "advise",
    "cache_path",
    "choice_text",
    "derived_seed",
    "explain",
    "load_cached",
    "parse_choice",
    "position_of",
    "record_digest",
    "review_decision",
    "review_file",
    "review_record",
    "same_plays",
    "save_cached",
]
