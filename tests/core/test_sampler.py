"""The world sampler is uniform over the deals an observation allows.

``sample_hands`` deals the cards a seat cannot see. Every deal that agrees
with the observation (R-FOLLOW voids shown, the turned card R-TRUMP-TURN,
the cards played, the undealt stock) must be equally likely, or a bot that
searches sampled worlds reasons about the wrong ones. Small positions late in
a hand are enumerated exactly and compared with many samples by a
chi-square test, with fixed seeds (the test is deterministic).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from ohhell import sample_hands
from worlds import SAMPLES, chi_square_limit, consistent_deals, positions


@pytest.mark.parametrize("tries", [0, 3])
def test_every_consistent_deal_is_equally_likely(tries: int) -> None:
    # tries=0 forces the exact splitter; 3 is the default (rejection first).
    for number, obs in enumerate(positions()):
        allowed = consistent_deals(obs)
        assert 10 <= len(allowed) <= 1000
        hidden = [s for s in range(obs.players) if obs.hands[s] is None]
        rng = random.Random(f"sampler:{tries}:{number}")
        seen: Counter[tuple[tuple[str, ...], ...]] = Counter()
        for _ in range(SAMPLES):
            hands = sample_hands(obs, rng, rejection_tries=tries)
            assert hands[0] == obs.hands[0]  # the seat's own hand is kept
            seen[tuple(tuple(sorted(str(c) for c in hands[s])) for s in hidden)] += 1
        assert set(seen) <= set(allowed), "a sampled deal breaks a void or a count"
        expected = SAMPLES / len(allowed)
        chi2 = sum((seen[d] - expected) ** 2 / expected for d in allowed)
        assert chi2 < chi_square_limit(len(allowed) - 1), (number, len(allowed), chi2)


def test_a_skewed_sampler_would_be_caught() -> None:
    # The control: samples in which a tenth of the deals come half as often
    # as they should (milder than the 3.3x the old fallback showed) fail.
    obs = positions()[0]
    allowed = consistent_deals(obs)
    rng = random.Random(5)
    weights = [0.5 if i < len(allowed) // 10 else 1.0 for i in range(len(allowed))]
    seen = Counter(rng.choices(allowed, weights, k=SAMPLES))
    expected = SAMPLES / len(allowed)
    chi2 = sum((seen[d] - expected) ** 2 / expected for d in allowed)
    assert chi2 > chi_square_limit(len(allowed) - 1)


def test_an_impossible_observation_is_refused() -> None:
    obs = positions()[0]
    import dataclasses

    from ohhell.cards import Suit

    every_void = tuple(frozenset(Suit) if h is None else frozenset() for h in obs.hands)
    broken = dataclasses.replace(obs, voids=every_void)
    with pytest.raises(ValueError, match="no deal"):
        sample_hands(broken, random.Random(1), rejection_tries=0)
