"""Pure scoring: one hand by every system, totals, teams, tie breaks, settlement.

Nothing here knows about cards or turns; the game and the scorekeeper both
call these functions with bids and tricks, so a score has one definition.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Final

from .rules import Rules, Scoring, TieBreak

REVOKE_PENALTY: Final = 20
"""R-REVOKE: points a revoke costs the offender (002)."""

# The systems as globals: every seat of every hand (and the bots' estimates)
# is scored here, and reading a member off an Enum class runs Python code
# (the metaclass's attribute hook), several times a global read.
_PAGAT: Final = Scoring.PAGAT
_RIVER: Final = Scoring.RIVER
_TENS: Final = Scoring.TENS
_TRICKS_BONUS: Final = Scoring.TRICKS_BONUS
_FIVES: Final = Scoring.FIVES
_SQUARES: Final = Scoring.SQUARES
_PENALTY: Final = Scoring.PENALTY
_OKENUFF: Final = Scoring.OKENUFF


def okenuff_exact(bid: int) -> int:
    """R-SC-OKENUFF for a made bid: 5, plus 1 + 2 + ... with each step above 5
    counted as 5, plus 15 when the bid is 5 or more.

    >>> [okenuff_exact(b) for b in (0, 2, 4, 7)]
    [5, 8, 15, 45]
    """
    steps = sum(min(i, 5) for i in range(1, bid + 1))
    return 5 + steps + (15 if bid >= 5 else 0)


def hand_score(scoring: Scoring, bid: int, tricks: int) -> int:
    """One player's score for a hand under a scoring system (before doubling).

    >>> hand_score(Scoring.PAGAT, 2, 2), hand_score(Scoring.TENS, 0, 0), hand_score(Scoring.TENS, 3, 1)
    (12, 10, -20)
    """
    off = abs(bid - tricks)
    exact = off == 0
    if scoring == _PAGAT:  # R-SC-PAGAT
        return 10 + bid if exact else 0
    if scoring == _RIVER:  # R-SC-RIVER
        return 10 + tricks if exact else 0
    if scoring == _TENS:  # R-SC-TENS: a made zero is worth 10
        return (10 * bid if bid else 10) if exact else -10 * off
    if scoring == _TRICKS_BONUS:  # R-SC-TRICKS-BONUS
        return tricks + (10 if exact else 0)
    if scoring == _FIVES:  # R-SC-FIVES: reading "lose 5, plus 5 for each trick off"
        return 5 + 10 * tricks if exact else -5 - 5 * off
    if scoring == _SQUARES:  # R-SC-SQUARES
        return 10 + bid * bid if exact else -off * off
    if scoring == _PENALTY:  # R-SC-PENALTY
        return 10 + tricks if exact else -off
    if scoring == _OKENUFF:  # R-SC-OKENUFF
        return okenuff_exact(bid) if exact else -5 * off
    raise ValueError(f"unknown scoring system {scoring!r}")  # pragma: no cover


def okenuff_overcall(bids_in_order: Sequence[int], namer_position: int) -> bool:
    """R-SC-OKENUFF: is the trump-naming bid of 6+ one made after an earlier bid of 5+?

    ``bids_in_order`` are the bids in bidding order; ``namer_position`` indexes
    the trump-naming bid in it.

    >>> okenuff_overcall([2, 2, 5, 6], 3), okenuff_overcall([2, 6, 5, 1], 1)
    (True, False)
    """
    bid = bids_in_order[namer_position]
    return bid >= 6 and any(b >= 5 for b in bids_in_order[:namer_position])


def _overcall_penalty(bids: Sequence[int], tricks: int, first_bidder: int, trump_namer: int) -> int:
    """R-SC-OKENUFF: what the trump namer who overcalled loses beyond the usual
    for taking ``tricks``: 5 for every undertrick after the first (2,2,5,6
    taking 3: -25 in all)."""
    n = len(bids)
    order = [(first_bidder + i) % n for i in range(n)]
    under = bids[trump_namer] - tricks
    if under >= 2 and okenuff_overcall([bids[s] for s in order], order.index(trump_namer)):
        return 5 * (under - 1)
    return 0


def score_hand(
    rules: Rules,
    bids: Sequence[int],
    tricks: Sequence[int],
    *,
    first_bidder: int = 0,
    trump_namer: int | None = None,
    no_trump: bool = False,
    revokes: Sequence[int] = (),
) -> tuple[int, ...]:
    """Every seat's score for one hand.

    ``first_bidder`` is the seat that bid first (bids go clockwise from it);
    ``trump_namer`` the seat that named trump (R-TRUMP-BIDDER); ``no_trump``
    whether the hand was played without trump; ``revokes`` the seats that
    revoked, once per revoke (R-REVOKE, scorekeeper only).
    """
    scoring = rules.scoring
    scores = [hand_score(scoring, b, t) for b, t in zip(bids, tricks, strict=True)]
    if scoring is _OKENUFF and trump_namer is not None:
        scores[trump_namer] -= _overcall_penalty(bids, tricks[trump_namer], first_bidder, trump_namer)
    if no_trump and rules.no_trump_doubles:
        scores = [2 * s for s in scores]
    for seat in revokes:
        scores[seat] -= REVOKE_PENALTY
    return tuple(scores)


def seat_scores(
    rules: Rules,
    bids: Sequence[int],
    most: int,
    *,
    first_bidder: int = 0,
    trump_namer: int | None = None,
    no_trump: bool = False,
) -> tuple[tuple[int, ...], ...]:
    """Each seat's score for taking 0..``most`` tricks, the bids being ``bids``:
    ``seat_scores(...)[seat][tricks]``.

    Once the bids are known a seat's score depends on its own tricks only
    (the trump namer's overcall penalty reads its own tricks, doubling is
    the same for every seat), as in ``score_hand``. Searches that score
    thousands of simulated hands read this table instead of calling
    ``score_hand`` each time.
    """
    scoring = rules.scoring
    rows = [list(_scores_by_tricks(scoring, b, most)) for b in bids]
    if scoring is _OKENUFF and trump_namer is not None:
        row = rows[trump_namer]
        for t in range(most + 1):
            row[t] -= _overcall_penalty(bids, t, first_bidder, trump_namer)
    double = 2 if no_trump and rules.no_trump_doubles else 1
    return tuple(tuple(double * x for x in row) for row in rows)


@cache
def _scores_by_tricks(scoring: Scoring, bid: int, most: int) -> tuple[int, ...]:
    return tuple(hand_score(scoring, bid, t) for t in range(most + 1))


def bid_balance(bids: Sequence[int], hand_size: int) -> str:
    """R-BID-ANNOUNCE: "under", "over" or "even" (total bid against tricks)."""
    total = sum(bids)
    return "under" if total < hand_size else "over" if total > hand_size else "even"


def sides(rules: Rules) -> tuple[tuple[int, ...], ...]:
    """The scoring sides: the teams (R-TEAMS) or each seat alone."""
    return rules.teams if rules.teams is not None else tuple((s,) for s in range(rules.players))


def side_totals(rules: Rules, totals: Sequence[int]) -> tuple[int, ...]:
    """Each side's combined total (R-TEAMS)."""
    return tuple(sum(totals[s] for s in side) for side in sides(rules))


@dataclass(frozen=True, slots=True)
class Standing:
    """One side's place at the end: its seats, total and exact bids."""

    place: int  # 1 is first; sides that tie share a place
    seats: tuple[int, ...]
    total: int
    exact: int


def standings(rules: Rules, totals: Sequence[int], exact: Sequence[int]) -> list[Standing]:
    """Sides ranked by total (R-WIN), then by exact bids under R-TIE-EXACT.

    Ties that the rules do not break share a place. R-TIE-EXTRA is played out
    by the game itself (extra hands), so by the end there is a clear leader.
    """
    rows = []
    for side in sides(rules):
        total = sum(totals[s] for s in side)
        made = sum(exact[s] for s in side)
        rows.append((side, total, made))

    def key(row: tuple[tuple[int, ...], int, int]) -> tuple[int, int]:
        return (row[1], row[2] if rules.tie_break is TieBreak.MOST_EXACT else 0)

    rows.sort(key=key, reverse=True)
    result: list[Standing] = []
    for i, row in enumerate(rows):
        place = result[-1].place if result and key(rows[i - 1]) == key(row) else i + 1
        result.append(Standing(place, row[0], row[1], row[2]))
    return result


def winners(rules: Rules, totals: Sequence[int], exact: Sequence[int]) -> list[tuple[int, ...]]:
    """The side or sides in first place."""
    return [s.seats for s in standings(rules, totals, exact) if s.place == 1]


def leaders_tied(rules: Rules, totals: Sequence[int]) -> bool:
    """R-TIE-EXTRA: do two or more sides share the highest total?"""
    by_side = side_totals(rules, totals)
    return by_side.count(max(by_side)) > 1


def settlement(totals: Sequence[int]) -> list[list[int]]:
    """R-SETTLE: ``m[i][j]`` is what player j pays player i (the difference of
    their final scores; negative means i pays j).

    >>> settlement([30, 10, 0])
    [[0, 20, 30], [-20, 0, 10], [-30, -10, 0]]
    """
    return [[a - b for b in totals] for a in totals]


def settlement_net(totals: Sequence[int]) -> list[int]:
    """R-SETTLE: each player's net result after settling with every other."""
    return [sum(row) for row in settlement(totals)]


def set_oneself_cost(own_bid: int, players: int = 4) -> int:
    """R-OKENUFF-TABLE: what deliberately taking one trick too many or too few
    costs in settlement: the fall from making the bid to being set by one,
    paid to each of the other players."""
    return (players - 1) * (okenuff_exact(own_bid) - hand_score(Scoring.OKENUFF, own_bid, own_bid + 1))


def set_opponent_gain(opponent_bid: int) -> int:
    """R-OKENUFF-TABLE: what setting an opponent by one gains in settlement with him."""
    return okenuff_exact(opponent_bid) - hand_score(Scoring.OKENUFF, opponent_bid, opponent_bid - 1)


def okenuff_set_table(
    own_bids: Sequence[int] = (0, 1, 2, 3, 4),
    opponent_bids: Sequence[int] = (5, 6, 7, 8, 9),
    players: int = 4,
) -> dict[tuple[int, int], str]:
    """R-OKENUFF-TABLE: for each (own bid, opponent bid), "set" when setting
    oneself to set the opponent pays, "even" when it breaks even, "" otherwise."""
    table = {}
    for mine in own_bids:
        for theirs in opponent_bids:
            gain, cost = set_opponent_gain(theirs), set_oneself_cost(mine, players)
            table[mine, theirs] = "set" if gain > cost else "even" if gain == cost else ""
    return table
