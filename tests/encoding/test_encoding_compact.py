"""The compact vector and its converter (ohhell.encoding.compact) against the full vector.

Through whole matches of every preset and of variants with Devil's Bridge,
teams and other table sizes, every seat's full vector and its compact form
convert both ways exactly, bit for bit; the layout is documented.
"""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from ohhell import PRESETS, Bidding, Match, Rules, make_rules  # noqa: E402
from ohhell.encoding import (  # noqa: E402
    COMPACT_ONLY,
    LAYOUT,
    OBSERVATION_SIZE,
    RULE_FIELDS,
    compact_bounds,
    compact_index,
    compact_layout,
    compact_size,
    encode,
    encode_compact,
    legal_ids,
    observation_bounds,
    rule_vector,
    seat_to_ask,
    take_id,
    to_compact,
    to_full,
)

DOCS = Path(__file__).resolve().parents[2] / "docs" / "env.md"

VARIANTS: dict[str, Rules] = {name: rules for name, rules in PRESETS.items()} | {
    # R-DEVILS-BRIDGE on 1-card hands, 5 players: visible_hands and the flag of the hand.
    "devils-bridge": make_rules("pagat").replace(players=5, devils_bridge=True, hand_sizes=(2, 1, 3, 1)),
    # R-TEAMS: the teammate field is the observer's.
    "teams": make_rules("pagat").replace(teams=((0, 2), (1, 3)), hand_sizes=(3, 2)),
    # R-BID-SIMULTANEOUS at 3 and R-PLAYERS 7.
    "simultaneous-3": make_rules("river").replace(
        players=3, bidding=Bidding.SIMULTANEOUS, hook=False, bid_changes=False, hand_sizes=(4, 2)
    ),
    "seven": make_rules("common").replace(players=7, hand_sizes=(7, 2)),
}


def _same_bits(a: Any, b: Any) -> bool:
    return bool(a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes())


def _play_match(rules: Rules, seed: int, each: Any) -> int:
    """A whole match of random legal ids, bid changes and keeps included, as the
    environments ask them (R-BID-CHANGE); ``each(match)`` at every decision."""
    rng = random.Random(seed)
    match = Match.new(rules, rng, track_turns=False)
    steps = 0
    while not match.is_over:
        if match.state.is_chance:
            match.deal()
            continue
        each(match)
        seat = seat_to_ask(match)
        assert seat is not None
        take_id(match, seat, rng.choice(legal_ids(match, seat)))
        steps += 1
    each(match)  # the finished match too: scores, schedule and phase stay set
    return steps


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_full_and_compact_convert_exactly_through_whole_matches(name: str) -> None:
    """to_full(encode_compact(obs)) == encode(obs) and to_compact(encode(obs)) ==
    encode_compact(obs), bit for bit, for every seat at every decision."""
    rules = VARIANTS[name]
    index = compact_index(rules)
    seen_change = []

    def check(match: Match) -> None:
        st = match.state
        seen_change.append(st.change_seat is not None)
        for seat in range(rules.players):
            obs = match.observe(seat)
            full = encode(obs)
            compact = encode_compact(obs)
            assert compact.shape == (compact_size(rules),)
            assert _same_bits(full[index], compact)
            assert _same_bits(to_compact(full, rules), compact)
            assert _same_bits(to_full(compact, rules), full), f"seat {seat}, phase {st.phase}"

    _play_match(rules, seed=7, each=check)
    if rules.bid_changes:
        assert any(seen_change), "no bid-change window was met"


def test_converters_take_batches_and_refuse_wrong_sizes() -> None:
    rules = PRESETS["okenuff"]
    match = Match.new(rules, random.Random(3), track_turns=False)
    match.deal()
    match.deal()
    full = np.stack([encode(match.observe(s)) for s in range(4)]).reshape(2, 2, OBSERVATION_SIZE)
    compact = to_compact(full, rules)
    assert compact.shape == (2, 2, compact_size(rules))
    assert _same_bits(to_full(compact, rules), full)
    with pytest.raises(ValueError, match="552"):
        to_full(np.zeros(551, np.float32), rules)
    with pytest.raises(ValueError, match=str(OBSERVATION_SIZE)):
        to_compact(np.zeros(552, np.float32), rules)


def test_the_compact_form_leaves_out_exactly_what_the_rules_fix() -> None:
    """Left out: the rule fields, visible_hands without R-DEVILS-BRIDGE, teammate
    without R-TEAMS; every left-out element is rule_vector's."""
    for name, rules in VARIANTS.items():
        layout = compact_layout(rules)
        assert not set(layout) & set(RULE_FIELDS)
        assert ("visible_hands" in layout) == ("devils_bridge_now" in layout) == rules.devils_bridge
        assert ("teammate" in layout) == (rules.teams is not None)
        assert set(layout) <= set(LAYOUT) | set(COMPACT_ONLY), name
        index = compact_index(rules)
        assert len(set(index.tolist())) == len(index) == compact_size(rules)
        left_out = np.setdiff1d(np.arange(OBSERVATION_SIZE), index)
        # The fields of one rule set: the same whatever the seat and the moment.
        full = encode(Match.new(rules, random.Random(1), track_turns=False).observe(1))
        assert (full[left_out] == rule_vector(rules)[left_out]).all()
        low, high = compact_bounds(rules)
        all_low, all_high = observation_bounds()
        assert (low == all_low[index]).all() and (high == all_high[index]).all()


def test_compact_sizes_are_the_documented_formula() -> None:
    for n in (3, 4, 5, 6, 7):
        rules = make_rules("pagat").replace(players=n)
        assert compact_size(rules) == 85 * n + 212
        assert compact_size(rules.replace(devils_bridge=True)) == 137 * n + 161
    assert compact_size(make_rules("pagat").replace(teams=((0, 2), (1, 3)))) == 85 * 4 + 212 + 4
    text = DOCS.read_text(encoding="utf-8")
    section = text[text.index("### The batch observation") :]
    rows = re.findall(r"^\| `(\w+)` \| (\d+)[–-](\d+) \| (\d+) \|", section, re.M)
    assert {name: (int(a), int(b) + 1) for name, a, b, _ in rows} == compact_layout(PRESETS["pagat"])
