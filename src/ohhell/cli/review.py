"""``ohhell review``: what each decision of a recorded match cost, and what the cards were worth.

Reads a game record, reviews it with the expert (``ohhell.analysis``),
keeps the review beside the record (``NAME.ohr.review.json``) so the same
match is analysed once, and prints, in plain words, what each player lost
to decisions and to the cards and the decisions marked as inaccuracies,
mistakes or blunders. ``--json`` prints the review for tools;
``--puzzles`` plays each player's costliest mistakes as puzzles at the
prompt, reading the answers from standard input.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

from .. import RecordError, load
from ..describe import parse_seat
from .common import command_parser, examples

if TYPE_CHECKING:
    from ..analysis import Review


def cmd_review(args: argparse.Namespace) -> int:
    # The analysis (and the bots under it) load only when the command runs.
    from ..analysis import Budget, Progress, Thresholds, cache_path, load_cached, review_file

    # The options first: a mistyped one is said before the record is read.
    if not 0 < args.budget <= 16:
        print("ohhell review: --budget is a share of the default, above 0 and at most 16", file=sys.stderr)
        return 2
    budget = Budget() if args.budget == 1.0 else Budget.scaled(args.budget)
    if args.jobs < 1:
        print("ohhell review: --jobs takes 1 or more worker processes", file=sys.stderr)
        return 2
    try:
        record = load(args.file)
        record.replay()
    except OSError as err:
        print(f"ohhell review: cannot read {args.file}: {err.strerror}", file=sys.stderr)
        return 2
    except RecordError as err:
        print(f"ohhell review: {args.file}: {err}", file=sys.stderr)
        return 2
    seat: int | None = None
    if args.seat is not None:
        try:
            seat = parse_seat(args.seat, record.seats)
        except ValueError as err:
            print(f"ohhell review: --seat: {err}", file=sys.stderr)
            return 2
    thresholds = Thresholds()
    review: Review | None = None
    if seat is not None and not args.no_cache:
        # A review of every seat, made before, serves one seat too.
        review = load_cached(
            cache_path(args.file), record, seed=args.seed, budget=budget, thresholds=thresholds
        )
    if review is None and not args.no_cache:
        # Made before with the same settings: read, not made again (and no word of minutes).
        mine = None if seat is None else [seat]
        review = load_cached(
            cache_path(args.file), record, seed=args.seed, budget=budget, thresholds=thresholds, seats=mine
        )
    started = time.monotonic()
    if review is None:
        from ..bots.accel import available

        if not available() and not args.quiet:
            print(
                "The compiled search is not installed: this review may take several minutes. "
                "python3 -m pip install -e '.[fast]' makes it about seven times faster (the same numbers).",
                file=sys.stderr,
            )
        shown: list[int] = []

        def progress(p: Progress) -> None:
            if args.quiet or p.hands_done in shown or p.hands_done == 0:
                return
            shown.append(p.hands_done)
            left = (time.monotonic() - started) / p.done * (p.total - p.done) if p.done else 0.0
            more = f", about {left:.0f} s left" if p.done < p.total else ""
            print(f"reviewed hand {p.hands_done} of {p.hands}{more}", file=sys.stderr, flush=True)

        review = review_file(
            args.file,
            seed=args.seed,
            budget=budget,
            thresholds=thresholds,
            seats=None if seat is None else [seat],
            jobs=args.jobs,
            progress=progress,
            cache=not args.no_cache,
        )
    if args.json:
        print(json.dumps(review.to_json(), indent=1))
        return 0
    seats = [seat] if seat is not None else list(review.reviewed)
    print_review(review, seats, every=args.all, puzzles_next=args.puzzles)
    if args.puzzles:
        play_puzzles(review, seats, sys.stdin, sys.stdout)
    return 0


def print_review(
    review: Review, seats: Sequence[int], *, every: bool = False, puzzles_next: bool = False
) -> None:
    """The summary, then each shown seat's marked decisions (or all of them);
    ``puzzles_next``: the puzzles follow (so the line offering them is left out)."""
    from ..analysis.words import advice_lines, decision_line, summary_lines, whose

    names = review.seats
    hands = len(review.hands)
    if review.finished:
        print(f"Review of {hands} hand{'s' if hands != 1 else ''}; seed {review.seed}.")
    else:
        print(
            f"Review of {hands} finished hand{'s' if hands != 1 else ''} and the decisions made since "
            f"(the record stops before the match is over); seed {review.seed}."
        )
    print()
    for line in summary_lines(review, seats):
        print(line)
    if len(review.reviewed) < len(names):
        print("(Review every player, without --seat, to compare them with each other.)")
    for s in seats:
        listed = review.decisions_of(s) if every else review.marked(s)
        print()
        if not listed:
            print(f"{names[s]}: no marked decision.")
            continue
        print(f"{whose(names[s], start=True)} {'decisions' if every else 'marked decisions'}:")
        for d in listed:
            print(f"  {decision_line(d, names)}")
    for advice in review.pending:
        if advice.seat in seats:
            print()
            for line in advice_lines(advice, names):
                print(line)
    mine = [p for p in review.puzzles if p.decision.seat in seats]
    if mine and not puzzles_next:
        print()
        count = f"{len(mine)} puzzle{'s' if len(mine) != 1 else ''}"
        print(f"{count} from the costliest mistakes: add --puzzles to play them.")


LEAVE_WORDS = ("q", "quit")
"""Typed at a puzzle, leave the puzzles (two empty lines in a row do too)."""


def play_puzzles(review: Review, seats: Sequence[int], source: TextIO, out: TextIO) -> int:
    """Each puzzle of ``seats`` at the prompt: the position, a question, the
    verdict. Returns how many were answered right. An empty line skips a
    puzzle; q, a second empty line in a row, or the end of the input leaves."""
    from ..analysis.words import position_lines, question, verdict_lines, whose

    puzzles = [p for p in review.puzzles if p.decision.seat in seats]
    if not puzzles:
        print("\nNo puzzles: no mistake or blunder to learn from.", file=out)
        return 0
    print(
        "\nAnswer each puzzle with a bid, a suit or a card (QH, or queen of hearts). "
        "An empty line skips a puzzle; q, or two empty lines in a row, leaves the puzzles.",
        file=out,
    )
    right = answered = 0
    empty = False  # was the last line empty?
    for i, puzzle in enumerate(puzzles, start=1):
        d = puzzle.decision
        print(f"\nPuzzle {i} of {len(puzzles)} ({whose(review.seats[d.seat])} position):", file=out)
        for line in position_lines(d.position, review.seats):
            print(f"  {line}", file=out)
        while True:
            out.write(question(d.position))
            out.flush()
            typed = source.readline()
            if typed and not source.isatty():
                out.write(typed if typed.endswith("\n") else typed + "\n")  # a piped answer, shown as typed
            word = typed.strip()
            leave = not typed or word.lower() in LEAVE_WORDS or (empty and not word)
            if leave:
                print(f"\nYou left the puzzles: {right} of {answered} right.", file=out)
                return right
            if not word:
                empty = True
                print("Skipped (an empty line again leaves the puzzles).", file=out)
                break
            empty = False
            answer = _puzzle_answer(word, d.position.legal, d.kind)
            if answer is None:
                print(f"That is not one of the choices: {' '.join(d.position.legal)}.", file=out)
                continue
            answered += 1
            right += puzzle.is_right(answer)
            for line in verdict_lines(d, answer, puzzle.answers, review.seats):
                print(f"  {line}", file=out)
            break
    print(f"\n{right} of {answered} right.", file=out)
    return right


def _puzzle_answer(word: str, legal: Sequence[str], kind: str) -> str | None:
    """One of ``legal`` as typed: a bid, a suit, a card as the record writes
    it in any case and spacing (``qh``, ``Q H``) or in words (``queen of hearts``)."""
    from ..analysis import parse_choice
    from ..describe import card_from_words

    answer = parse_choice(word, legal, kind)
    if answer is None and kind == "play":
        card = card_from_words(" ".join(word.split()))
        answer = str(card) if card is not None and str(card) in legal else None
    return answer


def add_parser(sub: Any) -> None:
    parser = command_parser(
        sub,
        "review",
        help="what each decision of a recorded match cost, and what the cards were worth",
        description=(
            "Review a game record (.ohr) with the expert: for every bid, trump choice and card, the "
            "expected score of each choice from what that player could see, the best, and the points "
            "the choice made gave away; each hand's cards priced by playing the deal out with the "
            "expert in every seat. Prints what each player lost to decisions and to the cards, and the "
            "decisions marked as inaccuracies (1 point or more), mistakes (2.5) and blunders (5). "
            "The review is kept beside the record, so the same match is analysed once."
        ),
        epilog=examples(
            "ohhell review ~/.local/share/ohhell/current.ohr",
            "ohhell review game.ohr --seat Ann --puzzles",
            "ohhell review game.ohr --json > review.json",
            "ohhell review game.ohr --budget 0.25        # a quick, rougher look",
        ),
    )
    parser.add_argument("file", help="the game record, as written by ohhell play, simulate or serve")
    parser.add_argument("--seat", metavar="NAME|N", help="review this player only (a name, or a seat from 1)")
    parser.add_argument("--json", action="store_true", help="print the review as JSON for tools")
    parser.add_argument(
        "--budget",
        type=float,
        default=1.0,
        metavar="SHARE",
        help="how long the expert thinks, as a share of the default (default 1; 0.25 is four times faster)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=1,
        help="the seed of the expert's searches (default 1): same seed, same review",
    )
    parser.add_argument("--jobs", type=int, default=1, help="worker processes sharing the work (default 1)")
    parser.add_argument("--puzzles", action="store_true", help="then play the costliest mistakes as puzzles")
    parser.add_argument(
        "--all", action="store_true", help="list every decision reviewed, not only the marked ones"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress lines on standard error")
    parser.add_argument(
        "--no-cache", action="store_true", help="neither read nor write the review kept beside the record"
    )
    parser.set_defaults(func=cmd_review)
