"""What a search bot adds to the greedy policy it is built on.

The search bots finish simulated hands with the greedy policy of
``fastdeal.choose_card`` and model the other seats by it. This bench puts
one search bot at a table of three greedy players (4 players, the common
preset's first hand: 10 cards, a turned trump), so the search's model of
the others is right except for their hidden cards. Each deal is played
once with four greedy players (the baseline) and once per seat with the
bot in that seat; the gain is its score minus the greedy player's in that
seat, averaged over the seats (paired: the cards' luck cancels).

- ``--bids greedy`` (default): every seat bids the hand's quick estimate, so
  only the card play differs; ``--bids own``: the bot also makes its bids.

    python bench/experiments/search_gain.py --bot expert:simulations=320 --deals 150
    python bench/experiments/search_gain.py --bot expert:worlds=80,simulations=320 --bids own --deals 150

If a search does not gain here, where its model is nearly exact, it will
not gain against stronger players either; if it gains here and not there,
the model of the other players is what to improve. Deterministic from
``--seed`` with fixed budgets (worlds or simulations, not seconds).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
from typing import Any

from ohhell import (
    PRESETS,
    Action,
    Bid,
    Observation,
    Phase,
    apply,
    chance_action,
    new_game,
    observe,
    seats_to_ask,
)
from ohhell.bots import get_bot
from ohhell.bots.expert import estimate_tricks
from ohhell.bots.fastdeal import choose_card, layout, seen_slots, suit_index

RULES = PRESETS["common"]
LAY = layout(RULES)


class Greedy:
    """The greedy policy as a seat: bids the quick estimate, plays ``choose_card``."""

    name = "greedy"

    def choose(self, obs: Observation, rng: random.Random) -> Action:
        assert obs.seat is not None
        hand = LAY.masks([obs.hands[obs.seat] or ()])[0]
        if obs.phase is Phase.BID:
            guess = round(estimate_tricks(LAY, hand, suit_index(obs.trump), obs.players))
            legal = [a.bid for a in obs.legal_actions if isinstance(a, Bid)]
            return Bid(obs.seat, min(legal, key=lambda b: (abs(b - guess), -b)))
        trick, gone = seen_slots(LAY, obs, hand)
        unseen = ((1 << LAY.size) - 1) & ~gone
        voids = [sum(1 << int(s) for s in v) for v in obs.voids]
        need = (obs.bids[obs.seat] or 0) - obs.taken[obs.seat]
        slot = choose_card(
            LAY, hand, trick, suit_index(obs.trump), need, hand.bit_count(), unseen, voids, obs.seat,
            len(trick) == obs.players - 1,
        )  # fmt: skip
        card = LAY.cards[slot]
        return next(a for a in obs.legal_actions if getattr(a, "card", None) == card)


class GreedyBids:
    """``bot``'s card play with the greedy bids."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.greedy = Greedy()
        self.name = bot.name

    def choose(self, obs: Observation, rng: random.Random) -> Action:
        if obs.phase is Phase.BID:
            return self.greedy.choose(obs, rng)
        chosen: Action = self.bot.choose(obs, rng)
        return chosen


def play_hand(
    bots: list[Any], deal: int, seed: int
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """One hand (the first of a match); its bids, tricks and scores."""
    state = new_game(RULES)
    cards = random.Random(f"search-gain:{seed}:{deal}")
    rngs = [random.Random(f"search-gain:{seed}:{deal}:{s}") for s in range(RULES.players)]
    while not state.results:
        if state.is_chance:
            apply(state, chance_action(state, cards))
            continue
        seat = seats_to_ask(state)[0]
        apply(state, bots[seat].choose(observe(state, seat), rngs[seat]))
    result = state.results[0]
    return result.bids, result.tricks, result.scores


def make_bot(spec: str) -> Any:
    level, _, options = spec.partition(":")
    kwargs: dict[str, Any] = {}
    for item in filter(None, options.split(",")):
        key, _, value = item.partition("=")
        kwargs[key] = float(value) if "." in value else int(value)
    return get_bot(level, **kwargs)


def run(spec: str, deals: int, seed: int, own_bids: bool) -> dict[str, Any]:
    greedy = Greedy()
    bot = make_bot(spec)
    ours = bot if own_bids else GreedyBids(bot)
    gains: list[float] = []
    exact_ours = exact_greedy = seats = 0
    for deal in range(deals):
        bids0, tricks0, scores0 = play_hand([greedy] * RULES.players, deal, seed)
        gain = 0.0
        for seat in range(RULES.players):
            bots: list[Any] = [greedy] * RULES.players
            bots[seat] = ours
            bids, tricks, scores = play_hand(bots, deal, seed)
            gain += scores[seat] - scores0[seat]
            exact_ours += tricks[seat] == bids[seat]
            exact_greedy += tricks0[seat] == bids0[seat]
            seats += 1
        gains.append(gain / RULES.players)
    return {
        "bot": spec,
        "bids": "own" if own_bids else "greedy",
        "deals": deals,
        "seed": seed,
        "gain_a_deal": statistics.mean(gains),
        "ci95": 1.96 * statistics.stdev(gains) / len(gains) ** 0.5 if len(gains) > 1 else float("nan"),
        "exact_bot": exact_ours / seats,
        "exact_greedy": exact_greedy / seats,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bot", default="expert:simulations=320")
    parser.add_argument("--bids", choices=("greedy", "own"), default="greedy")
    parser.add_argument("--deals", type=int, default=150)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    out = run(args.bot, args.deals, args.seed, args.bids == "own")
    print(json.dumps(out, indent=2))
    print(f"\n{out['bot']} (bids: {out['bids']}) at a table of greedy players, {out['deals']} deals")
    print(f"gain over the greedy player in its seat: {out['gain_a_deal']:+.2f} ± {out['ci95']:.2f} a deal")
    print(f"exact bids: {out['exact_bot']:.1%} (greedy player in the same seats: {out['exact_greedy']:.1%})")


if __name__ == "__main__":
    main()
