"""Our bots in OpenSpiel's ``oh_hell``, beside OpenSpiel's own bots.

OpenSpiel (``pip install open-spiel``, the ``bench`` extra; benchmarks only)
has a one-hand Oh Hell: chance picks the dealer and deals, a card is turned
for trump, bidding starts left of the dealer, the dealer may not bid so
that the bids total the tricks (the hook), and a seat scores 1 a trick plus
10 for an exact bid. That is our ``common`` preset narrowed to one hand
(``rules`` below). With OpenSpiel's ``off_bid_penalty`` a missed bid
instead loses a point a trick off: our ``penalty`` scoring (``--penalty``).
Each deal is played in pyspiel; our engine follows it action by action,
and a seat of ours is asked with ``observe(engine, seat)`` only, never the
hidden state. The engine's scores are checked against pyspiel's returns
after every deal.

    from openspiel_bridge import OpenSpielISMCTS, Ours, play_deal
    result = play_deal(7, [Ours("expert:worlds=80"), *[OpenSpielISMCTS(1000)] * 3])
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

import pyspiel

from botspec import option_value
from ohhell import Bid, Card, Deal, Play, apply, new_game, observe
from ohhell.bots import get_bot
from ohhell.rules import PRESETS, Rules, Scoring
from ohhell.view import sample_hands

PLAYERS = 4  # the setting; OpenSpiel's game takes 3 to 7
SUITS = "CDSH"  # OpenSpiel's suit order: card id = rank index * 4 + suit index


def rules(size: int = 10, dealer: int = 0, players: int = PLAYERS, penalty: bool = False) -> Rules:
    """Our rules for OpenSpiel's game: ``common`` narrowed to one hand."""
    common = PRESETS["common"].replace(players=players, hand_sizes=(size,), first_dealer=dealer)
    return common.replace(scoring=Scoring.PENALTY) if penalty else common


def load_game(size: int = 10, players: int = PLAYERS, penalty: bool = False) -> Any:
    # One card is turned for trump, so the hands share 51 cards.
    if not 3 <= players <= 7 or not 1 <= size <= 51 // players:
        most = 51 // max(players, 1)
        raise ValueError(f"OpenSpiel's oh_hell has 3 to 7 players and, for {players}, 1 to {most} tricks")
    params = {"players": players, "num_suits": 4, "num_cards_per_suit": 13, "num_tricks_fixed": size}
    return pyspiel.load_game("oh_hell", {**params, "off_bid_penalty": penalty})


def card_of(action: int) -> Card:
    rank = action // 4 + 2
    text = {10: "T", 11: "J", 12: "Q", 13: "K", 14: "A"}.get(rank, str(rank))
    return Card.parse(text + SUITS[action % 4])


def action_of(card: Card) -> int:
    return (int(card.rank) - 2) * 4 + SUITS.index(str(card)[-1])


def hands_and_trump(state: Any, players: int = PLAYERS) -> tuple[list[list[Card]], Card]:
    """Every hand and the turned card, read from pyspiel's text of the state."""
    hands: dict[int, list[Card]] = {}
    current: int | None = None
    trump: Card | None = None
    for line in str(state).splitlines():
        text = line.strip()
        if line.startswith("Player"):
            current = int(line.split(":")[1])
            hands[current] = []
        elif current is not None and line.startswith("    ") and text[:2] in ("C:", "D:", "S:", "H:"):
            hands[current] += [Card.parse(rank + text[0]) for rank in text[2:].strip()]
        elif line.startswith("Trump:"):
            word = line.split()[1]
            trump = Card.parse(word[1:] + word[0])
            current = None
    assert trump is not None and len(hands) == players, str(state)
    return [hands[s] for s in range(players)], trump


def seed_of(*parts: int | str) -> int:
    """A seed for OpenSpiel's bots, the same in every process."""
    return random.Random(":".join(map(str, parts))).randrange(1 << 30)


def new_deal(chance: random.Random, size: int, players: int, penalty: bool = False) -> tuple[Any, Any]:
    """A deal of OpenSpiel's game drawn with ``chance``, and our engine's game
    with the same dealer, cards and turned card: the two then follow each
    other action by action (``follow``)."""
    spiel = load_game(size, players, penalty).new_initial_state()
    while spiel.is_chance_node():
        spiel.apply_action(chance.choice([a for a, _ in spiel.chance_outcomes()]))
    hands, turned = hands_and_trump(spiel, players)
    dealer = (spiel.current_player() - 1) % players
    engine = new_game(rules(size, dealer, players, penalty))
    apply(engine, Deal(tuple(tuple(h) for h in hands), turned))
    return spiel, engine


def follow(spiel: Any, engine: Any, code: int) -> None:
    """Apply OpenSpiel's action ``code`` (a card, or 52 + a bid) to both games."""
    seat = spiel.current_player()
    # pyspiel applies an illegal action without a word: check it here, so
    # the two games can never drift apart (as a hook-free engine once did).
    if code not in spiel.legal_actions():
        raise RuntimeError(f"seat {seat} chose {code}, which OpenSpiel's oh_hell does not allow here")
    spiel.apply_action(code)
    apply(engine, Bid(seat, code - 52) if code >= 52 else Play(seat, card_of(code)))


class OpenSpielISMCTS:
    """OpenSpiel's C++ information-set MCTS with random rollouts (UCT c = 2).

    Its worlds come from ``oh_hell``'s resampler, which deals the other
    hands only the cards they really hold: it knows which cards are undealt.
    With ``stocks`` K > 0 it is played fairly instead (``FairStock``)."""

    def __init__(self, simulations: int = 1000, stocks: int = 0) -> None:
        if stocks < 0 or stocks > simulations:
            raise ValueError(f"stocks must be 0 to the {simulations} simulations, not {stocks}")
        self.simulations = simulations
        self.stocks = stocks
        self.name = f"openspiel-ismcts:{simulations}" + (f",stocks={stocks}" if stocks else "")

    def bot(self, seed: int) -> Any:
        if self.stocks:
            return FairStock(self.simulations, self.stocks, seed)
        return _ismcts(seed, self.simulations, pyspiel.ISMCTSFinalPolicyType.MAX_VISIT_COUNT)


def _ismcts(seed: int, simulations: int, final: Any) -> Any:
    return pyspiel.ISMCTSBot(
        seed, pyspiel.RandomRolloutEvaluator(1, seed), 2.0, simulations, -1, final, False, False
    )


def search_policy(state: Any, seed: int, simulations: int = 1000) -> dict[int, float]:
    """The share of its visits OpenSpiel's ISMCTS (knowing the undealt cards,
    as ``OpenSpielISMCTS``) gives each legal action of ``state``."""
    bot = _ismcts(seed, simulations, pyspiel.ISMCTSFinalPolicyType.NORMALIZED_VISIT_COUNT)
    return dict(bot.get_policy(state))


def _chance_actions(players: int, size: int) -> int:
    # OpenSpiel's deal: the number of tricks, the dealer, the cards one by one, the turned card.
    return 2 + players * size + 1


def redeal(spiel: Any, hands: list[list[int]]) -> Any:
    """``spiel``'s game with each seat dealt ``hands`` (action codes: the
    cards it holds now and those it has played, in any order), then every
    action since the deal as in ``spiel``."""
    n = len(hands)
    size = len(hands[0])
    history = spiel.history()
    state = spiel.get_game().new_initial_state()
    state.apply_action(history[0])
    state.apply_action(history[1])
    for i in range(size):  # OpenSpiel deals one card a seat in turn, seat 0 first
        for hand in hands:
            state.apply_action(hand[i])
    for code in history[_chance_actions(n, size) - 1 :]:
        state.apply_action(code)
    return state


class FairStock:
    """OpenSpiel's ISMCTS without the knowledge of the undealt cards.

    At each decision it deals ``stocks`` worlds the seat cannot tell from
    the real one, the undealt stock mixed in (``ohhell.view.sample_hands``:
    uniform, the voids shown kept), rebuilds OpenSpiel's state in each and
    runs OpenSpiel's search there with an equal share of the simulations.
    Inside one search the resampler shuffles that world's other hands among
    them, so the stock stays that world's; summing the visit shares of the
    searches averages over the stocks. The most visited action overall is
    played (the lowest action on a tie). Its seat's observation is all it
    reads of the real deal.
    """

    def __init__(self, simulations: int, stocks: int, seed: int) -> None:
        share = simulations // stocks
        self.shares = [share + (1 if k < simulations - share * stocks else 0) for k in range(stocks)]
        self.rng = random.Random(seed)
        final = pyspiel.ISMCTSFinalPolicyType.NORMALIZED_VISIT_COUNT
        self.searches = [_ismcts(seed_of(seed, k), sims, final) for k, sims in enumerate(self.shares)]

    def worlds(self, spiel: Any, obs: Any) -> list[Any]:
        """One OpenSpiel state for each search: a deal drawn from ``obs``
        alone, then every action since the deal as in ``spiel``."""
        n = spiel.get_game().num_players()
        dealt = _chance_actions(n, obs.hand_size)
        played: list[list[Card]] = [[] for _ in range(n)]
        replay = spiel.get_game().new_initial_state()
        for k, code in enumerate(spiel.history()):
            if k >= dealt and code < 52:
                played[replay.current_player()].append(card_of(code))
            replay.apply_action(code)
        out = []
        for _ in self.searches:
            hands = sample_hands(obs, self.rng)
            world = redeal(spiel, [[action_of(c) for c in [*hands[s], *played[s]]] for s in range(n)])
            assert world.information_state_string() == spiel.information_state_string()
            out.append(world)
        return out

    def visits(self, spiel: Any, obs: Any) -> dict[int, float]:
        """Each legal action's visits, summed over the searches."""
        shares: dict[int, float] = {}
        for search, sims, world in zip(self.searches, self.shares, self.worlds(spiel, obs), strict=True):
            for code, share in search.get_policy(world):
                shares[code] = shares.get(code, 0.0) + share * sims
        return shares

    def policy(self, spiel: Any, obs: Any) -> dict[int, float]:
        """The share of all its searches' visits each legal action gets."""
        total = sum(self.shares)
        return {code: v / total for code, v in self.visits(spiel, obs).items()}

    def step(self, spiel: Any, obs: Any) -> int:
        shares = self.visits(spiel, obs)
        return min(shares, key=lambda code: (-shares[code], code))


class Ours:
    """One of our bot levels (``"expert:worlds=80"``) in a seat."""

    def __init__(self, spec: str) -> None:
        self.name = spec
        level, _, options = spec.partition(":")
        kwargs: dict[str, Any] = {}
        for item in filter(None, options.split(",")):
            key, _, value = item.partition("=")
            kwargs[key] = option_value(value)
        self.bot = get_bot(level, **kwargs)


@dataclass
class SeatResult:
    score: float
    bid: int
    tricks: int
    times: list[float] = field(default_factory=list)  # seconds per decision


@dataclass
class DealResult:
    dealer: int
    seats: list[SeatResult]


def play_deal(
    deal: int,
    players: list[Ours | OpenSpielISMCTS],
    *,
    size: int = 10,
    ours_decides: str = "all",
    seed: int = 0,
    penalty: bool = False,
) -> DealResult:
    """Play deal number ``deal`` (its cards fixed by ``seed`` and ``deal``) with
    ``players`` by seat. ``ours_decides`` is ``"all"``, ``"bid"`` or ``"play"``:
    in the last two an OpenSpiel ISMCTS(1000) makes our seats' other decisions.
    ``penalty`` plays OpenSpiel's ``off_bid_penalty`` scoring."""
    n = len(players)
    spiel, engine = new_deal(random.Random(f"openspiel-deal:{seed}:{deal}"), size, n, penalty)
    dealer = engine.dealer
    stand_in = OpenSpielISMCTS(1000)
    bots: list[Any] = []
    for s, p in enumerate(players):
        if isinstance(p, OpenSpielISMCTS):
            bots.append(p.bot(seed_of(seed, deal, s)))
        else:
            bots.append(p)
    # The stand-ins' seeds at 4 players are the ones every earlier run used.
    stand_ins = [stand_in.bot(seed_of(seed, deal, s + n)) for s in range(n)]
    rngs = [random.Random(f"ours:{seed}:{deal}:{s}") for s in range(n)]
    times: list[list[float]] = [[] for _ in range(n)]
    while not spiel.is_terminal():
        seat = spiel.current_player()
        bidding = engine.phase.value == "bid"
        bot = bots[seat]
        t0 = time.perf_counter()
        if isinstance(bot, Ours) and (
            ours_decides == "all" or ours_decides == ("bid" if bidding else "play")
        ):
            action = bot.bot.choose(observe(engine, seat), rngs[seat])
            code = 52 + action.bid if isinstance(action, Bid) else action_of(action.card)
        elif isinstance(bot, Ours):
            code = stand_ins[seat].step(spiel)
        elif isinstance(bot, FairStock):
            code = bot.step(spiel, observe(engine, seat))
        else:
            code = bot.step(spiel)
        times[seat].append(time.perf_counter() - t0)
        follow(spiel, engine, code)
    result = engine.results[-1]
    returns = spiel.returns()
    assert [float(x) for x in result.scores] == [float(x) for x in returns], (result.scores, returns)
    return DealResult(
        dealer,
        [SeatResult(returns[s], result.bids[s], result.tricks[s], times[s]) for s in range(n)],
    )


__all__ = [
    "FairStock",
    "OpenSpielISMCTS",
    "Ours",
    "action_of",
    "card_of",
    "follow",
    "hands_and_trump",
    "load_game",
    "new_deal",
    "play_deal",
    "redeal",
    "rules",
    "search_policy",
    "seed_of",
]
