"""Words for people about scores: a finished hand, the score sheet, the
standings and how a tie for first was broken (the line mode prints them, the
full-screen app and ``ohhell play`` show them)."""

from __future__ import annotations

from collections.abc import Sequence

from . import HandResult, Observation, Rules, Scoring, Standing, TieBreak, sides, standings
from .describe import and_list, plural, suit_word


def result_lines(result: HandResult, totals: Sequence[int], names: Sequence[str]) -> list[str]:
    """One finished hand: bid, tricks, points and the running total of each seat;
    a missed bid is marked ``missed (blob)``."""
    width = max(len(x) for x in names)
    out = []
    for s, name in enumerate(names):
        bid, took, score = result.bids[s], result.tricks[s], result.scores[s]
        mark = "made" if bid == took else "missed (blob)"
        out.append(
            f"  {name:<{width}}  bid {bid}, took {took}, {mark}: {plural(score, 'point')}, total {totals[s]}"
        )
    return out


def running_totals(results: Sequence[HandResult], upto: int) -> list[int]:
    """Each seat's total after the first ``upto`` hands."""
    n = len(results[0].scores) if results else 0
    return [sum(r.scores[s] for r in results[:upto]) for s in range(n)]


def score_sheet_lines(results: Sequence[HandResult], names: Sequence[str]) -> list[str]:
    """The whole score sheet: one line per hand and seat (``bid/took score total``)."""
    if not results:
        return ["No hand has been finished yet."]
    out = []
    for r in results:
        extra = ", tie-break hand" if r.extra else ""
        trump = suit_word(r.trump)
        out.append(f"Hand {r.number} ({r.size} card{'s' if r.size != 1 else ''}, trump {trump}{extra}):")
        out.extend(result_lines(r, running_totals(results, r.number), names))
    return out


def side_name(seats: Sequence[int], names: Sequence[str]) -> str:
    """A player's name, or a team's names: ``Ann and Chloe``."""
    return and_list([names[s] for s in seats])


def standings_lines(rules: Rules, obs: Observation, names: Sequence[str]) -> list[str]:
    """Final (or current) places, points and exact bids, then how ties were broken."""
    table = standings(rules, obs.totals, obs.exact)
    out = []
    for row in table:
        exact = plural(row.exact, "exact bid")
        out.append(f"{row.place}. {side_name(row.seats, names)}: {plural(row.total, 'point')}, {exact}")
    out.extend(tie_break_lines(rules, obs, names, table))
    if rules.scoring is Scoring.OKENUFF:
        nets = [sum(t - u for u in obs.totals) for t in obs.totals]  # R-SETTLE
        out.append("Settlement: " + ", ".join(f"{names[s]} {nets[s]:+d}" for s in range(len(names))))
    return out


def tie_break_lines(rules: Rules, obs: Observation, names: Sequence[str], table: list[Standing]) -> list[str]:
    """How the winner was found when the leaders' totals were level."""
    out = []
    first = [row for row in table if row.place == 1]
    level = [row for row in table if row.total == table[0].total]
    extra = sum(1 for r in obs.results if r.extra)
    if extra:
        hands = plural(extra, "extra hand")
        out.append(f"The lead was tied after the last scheduled hand: {hands} broke the tie.")
    if len(first) > 1:
        if len(sides(rules)) == rules.players:  # "You, Ada and Bruno share first place"
            tied = and_list([side_name(row.seats, names) for row in first])
        else:  # teams: each named as one
            tied = and_list([f"the team of {side_name(row.seats, names)}" for row in first])
            tied = tied[:1].upper() + tied[1:]
        why = "and the same number of exact bids" if rules.tie_break is TieBreak.MOST_EXACT else ""
        out.append(f"{tied} share first place with {plural(first[0].total, 'point')} {why}".rstrip() + ".")
    elif len(level) > 1:
        winner = side_name(first[0].seats, names)
        out.append(
            f"{len(level)} sides have {plural(table[0].total, 'point')}; {winner} wins on exact bids "
            f"({first[0].exact} against {max(r.exact for r in level[1:])})."
        )
    if len(first) == 1:
        out.append(f"Winner: {side_name(first[0].seats, names)}.")
    if len(sides(rules)) != rules.players:
        out.append("(Team totals are the sums of the team members' scores.)")
    return out
