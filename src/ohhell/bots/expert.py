"""The expert: Monte Carlo search over the cards it cannot see.

For each decision it deals many worlds consistent with its observation
(``sample_hands``: voids, the turned card and the cards played respected) and
plays each candidate action out in every world with the fast greedy playout of
``fastdeal``, every seat chasing its bid. The same worlds serve every
candidate, so differences between candidates are not noise between worlds.

- Bids: by default the tree search of ``treesearch`` with the bid at its
  root (``BidSearch``), so a bid is valued by how the search will play it.
  With ``bid_search=0`` (and always while trump is still to be named), the
  expected score of each legal bid under the actual scoring system, from
  the distribution of tricks one greedy playout per world takes when it
  plays for that bid. Either way later bidders' bids are estimated from
  their sampled hands (the last bidder's kept off the bid the hook forbids
  it). With ``calibrate=1`` the bids are flat and the share of worlds that
  made a bid is corrected to how often the expert makes such bids in its
  own games (``calibration``).
- Trump naming (R-TRUMP-BIDDER): each suit and no trump, doubling included.
- Cards: by default the tree search of ``treesearch``; with ``tree=0``
  the expected score of each legal card, one playout per world. With
  ``read_play=1`` the worlds are also weighed by how well they explain the
  cards the others have played (``playmodel``); off by default, as it
  measured no gain.

Under Okenuff scoring players settle on differences (R-SETTLE), so there the
expert maximises its score minus the others' mean, which makes setting a high
bidder pay exactly when the seed's table says it does (R-OKENUFF-TABLE).
The budget is time per decision (default 1 s) or a number of worlds.
"""

from __future__ import annotations

import dataclasses
import gc
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from .. import (
    Action,
    Bid,
    Bidding,
    Card,
    NameTrump,
    Observation,
    Phase,
    Play,
    Scoring,
    TrumpMode,
    bidding_order,
    hook,
    sample_hands,
    score_hand,
    trump_namer,
)
from .accel import compiled_playout
from .calibration import made_chance
from .fastdeal import Layout, layout, playout, seen_slots, suit_index
from .finish import made_chances
from .playmodel import play_likelihood
from .treesearch import BidSearch, CardSearch

_RANK_VALUE = {14: 0.85, 13: 0.55, 12: 0.3, 11: 0.15}


@dataclass(frozen=True, slots=True)
class Evaluation:
    """One candidate action and its estimated expected score."""

    action: Action
    expected: float
    worlds: int
    # For a bid: the share of worlds in which the playout took exactly that
    # many tricks (what ``calibrate`` corrects); None for other actions.
    made: float | None = None


def estimate_tricks(lay: Layout, hand: int, trump: int, players: int) -> float:
    """A quick estimate of the tricks a hand takes, for bids not yet made:
    what each suit held is worth (``_suit_value``) and 0.35 for each void a
    trump can ruff in."""
    return trick_estimator(lay, trump, players)(hand)


@lru_cache(maxsize=32)
def trick_estimator(lay: Layout, trump: int, players: int) -> Callable[[int], float]:
    """``estimate_tricks`` for one pack, trump and table size, keeping each
    suit holding's worth once worked out: the search weighs every world it
    deals by the bids, so the same holdings come back thousands of times a
    decision. (A holding's mask names its suit, so it is the whole key.)"""
    values: dict[int, float] = {}
    suit_masks = lay.suit_mask
    trump_mask = suit_masks[trump] if trump >= 0 else 0

    def estimate(hand: int) -> float:
        est = 0.0
        for s, suit_mask in enumerate(suit_masks):
            m = hand & suit_mask
            if not m:
                if s != trump and hand & trump_mask:
                    est += 0.35  # a void to ruff in
                continue
            value = values.get(m)
            if value is None:
                value = values[m] = _suit_value(lay, m, s == trump, players)
            est += value
        return est

    return estimate


def _suit_value(lay: Layout, m: int, trump: bool, players: int) -> float:
    """What the cards ``m`` of one suit (trump or not) are worth in tricks."""
    ranks = []
    while m:  # the suit's ranks, highest first (slots ascend by rank within a suit)
        top = m.bit_length() - 1
        ranks.append(lay.rank[top])
        m ^= 1 << top
    length = len(ranks)
    value = 0.0
    if trump:
        for k, r in enumerate(ranks):
            value += 1.0 if r >= 12 else 0.8 if r >= 10 else 0.5 if k >= 2 else 0.3
        return value
    crowd = 4 / players  # high cards are worth less at a crowded table
    for r in ranks[:3]:
        if r in _RANK_VALUE:
            value += _RANK_VALUE[r] * crowd * (0.7 if length >= 5 else 1.0)
    return value


class ExpertBot:
    """Search over sampled worlds. ``seconds`` or ``worlds`` bounds each decision."""

    def __init__(
        self,
        name: str = "expert",
        seconds: float = 1.0,
        worlds: int | None = None,
        min_worlds: int = 8,
        inference: bool = True,
        bid_spread: float = 1.0,
        bid_trust: float = 0.5,
        bid_scale: float = 1.0,
        bid_shift: float = 0.0,
        guess_scale: float = 1.1,
        guess_shift: float = -0.46,
        bid_normalize: bool = False,
        prune: bool = True,
        tree: bool = True,
        simulations: int | None = None,
        c: float = 0.6,
        others_greedy: bool = False,
        noise: float = 0.0,
        calibrate: bool = False,
        bid_search: bool = True,
        bid_simulations: int | None = None,
        per_world: int = 3,
        read_play: bool = False,
        play_trust: float = 0.75,
        steer: bool = False,
        overtricks: float = 0.5,
    ) -> None:
        self.name = name
        self.inference = inference  # weight worlds by how well they explain the bids
        self.prune = prune  # stop spending worlds on candidates clearly worse than the best
        self.bid_spread = bid_spread  # tricks: how far a bid may stray from the hand's estimate
        self.bid_trust = bid_trust  # 0..1: how far a bid is believed to reflect the hand
        # Reading the bids made: a hand is expected to bid bid_scale x its trick
        # estimate + bid_shift (the seats still to bid are guessed by guess_*).
        self.bid_scale = bid_scale
        self.bid_shift = bid_shift
        # The bid guessed for a seat still to bid: guess_scale x its hand's
        # trick estimate + guess_shift, rounded. Fitted to real bids (both
        # OpenSpiel's ISMCTS and the expert bid lower than the estimate on
        # the weak and middling hands that make most bids). Against
        # OpenSpiel's ISMCTS the fit scored +0.16 +- 0.17 a deal more than
        # the unfitted guess (1, 0) on 1,200 paired deals, a gain not quite
        # clear of zero, and was level against the intermediate bot
        # (docs/performance.md). The reading of the bids made keeps
        # bid_scale and bid_shift: fitted there too, it measured no better.
        self.guess_scale = guess_scale
        self.guess_shift = guess_shift
        # Weigh a world by the chance of each bid given the hand (the Gaussian
        # normalised over the legal bids 0..hand size), not by the Gaussian alone.
        self.bid_normalize = bool(bid_normalize)
        self.seconds = seconds
        self.worlds = worlds
        self.min_worlds = min_worlds
        # Card play by tree search (``treesearch``) rather than one flat playout
        # per candidate; ``simulations`` fixes its budget (else ``worlds`` x 4,
        # else the time), ``c`` is its exploration constant.
        self.tree = bool(tree)
        self.simulations = simulations
        self.c = c
        # In the tree the others' cards are searched too, each seat by UCT on its
        # own score (as ISMCTS does); ``others_greedy=1`` has them play the greedy
        # policy instead. Searched others won 0.23 +- 0.16 a deal over greedy ones
        # against OpenSpiel's ISMCTS, paired over five seeds (docs/performance.md).
        self.others_greedy = bool(others_greedy)
        self.noise = noise  # in the tree's playouts, the share of random cards
        # Correct each bid's chance of being made, as the greedy playouts see
        # it, to the chance measured in the expert's own games (``calibration``).
        # Off by default: it fits self-play but measured no gain against
        # OpenSpiel's ISMCTS (docs/performance.md).
        self.calibrate = bool(calibrate)
        # Bids by the card search with the bid at its root (``BidSearch``),
        # ``bid_simulations`` of them (else the card search's budget, else the
        # time), rather than by flat greedy playouts. Four and eight times the
        # card budget measured no better than the same budget (performance.md).
        self.bid_search = bool(bid_search)
        self.bid_simulations = bid_simulations
        # Simulations for each world the search deals (and weighs by the bids):
        # fewer worlds explore the hidden cards less, more cost time to deal.
        self.per_world = max(1, int(per_world))
        # Weigh the worlds also by how well they explain the cards the others
        # have played (``playmodel``), ``play_trust`` of each card's chance
        # from the model and the rest a uniform pick among its legal cards.
        # Off by default: the model names the card played half the time, moves
        # the worlds' weight towards the true hands by one or two hundredths of a
        # nat a card, and measured no gain (docs/performance.md).
        self.read_play = bool(read_play)
        self.play_trust = play_trust
        # Read a simulated hand's score as the expected score given the
        # tricks its greedy finish took (``finish``): real players make
        # their bids from near misses far more often than that policy does.
        # Off by default: it measured no gain (docs/performance.md).
        self.steer = made_chances() if steer else None
        # In this share of the search's simulations every other seat plays on
        # for one trick more than it bid (``treesearch.CardSearch``): players
        # take more tricks than they bid more often than the greedy finish
        # does, and a search that expects them to stop at their bids counts
        # on tricks they will not leave it (its last bidder overbid). Half
        # the simulations measured ahead of none against the intermediate
        # bot at 4 players and 10 cards, level or ahead within the noise
        # elsewhere, and level against OpenSpiel's ISMCTS (docs/performance.md).
        self.overtricks = float(overtricks)
        if not 0.0 <= self.overtricks <= 1.0:
            raise ValueError(f"overtricks is a share of the simulations, from 0 to 1, not {overtricks!r}")

    def choose(self, obs: Observation, rng: random.Random) -> Action:
        if len(obs.legal_actions) == 1:
            return obs.legal_actions[0]
        ranked = self.analyse(obs, rng)
        return ranked[0].action

    # --- the hint API: every candidate with its expected score ---

    def analyse(self, obs: Observation, rng: random.Random) -> list[Evaluation]:
        """Every legal action of ``obs`` with its expected score, best first.

        The cycle collector waits while the search thinks: a process that has
        loaded the compiled code holds some 100,000 objects, and a full
        collection triggered by the worlds a search deals would take tens of
        milliseconds out of a 30 ms think. The search's own garbage is freed
        as it goes (it makes no cycles); the collector runs after the decision.
        """
        collecting = gc.isenabled()
        gc.disable()
        try:
            return self._analyse(obs, rng)
        finally:
            if collecting:
                gc.enable()

    def value_of(self, obs: Observation, action: Action, rng: random.Random) -> Evaluation:
        """The expected score of ``action`` (one of ``obs.legal_actions``)
        alone, the whole budget spent on it: ``analyse`` shares its budget
        by promise, so a choice it finds poor early is tried a few times and
        its estimate is rough; a post-game review prices the choice a player
        made with this instead."""
        if action not in obs.legal_actions:
            raise ValueError(f"{action!r} is not one of the legal actions")
        collecting = gc.isenabled()
        gc.disable()
        try:
            if self.tree and obs.phase is Phase.PLAY and isinstance(action, Play) and action.card is not None:
                lay = layout(obs.rules)
                compiled_playout(lay)
                deadline = time.perf_counter() + self.seconds
                found = self._search_cards(obs, rng, lay, [action], deadline, only=action.card)
            else:
                found = self._analyse(dataclasses.replace(obs, legal_actions=(action,)), rng)
        finally:
            if collecting:
                gc.enable()
        return next(e for e in found if e.action == action)

    def _analyse(self, obs: Observation, rng: random.Random) -> list[Evaluation]:
        if obs.seat is None or not obs.legal_actions:
            return []
        candidates: list[Action] = [a for a in obs.legal_actions if isinstance(a, (Bid, NameTrump, Play))]
        if not candidates:  # pragma: no cover - every decision a bot is asked for is one of these
            return [Evaluation(a, 0.0, 0) for a in obs.legal_actions]
        if obs.phase is Phase.PLAY and isinstance(candidates[0], Play) and candidates[0].card is None:
            return [Evaluation(candidates[0], 0.0, 0)]  # R-DEVILS-BRIDGE: the one blind play
        lay = layout(obs.rules)
        compiled_playout(lay)  # a process's first search compiles it (``accel``) before its clock starts
        # The clock runs from here: dealing and weighing the worlds is part of the think.
        deadline = time.perf_counter() + self.seconds
        if self.tree and obs.phase is Phase.PLAY:
            return self._search_cards(obs, rng, lay, candidates, deadline)
        # The calibration corrects the flat playouts' share of made bids, so
        # with it the bids stay flat; so do bids made before trump is named.
        if self.bid_search and not self.calibrate and obs.phase is Phase.BID and obs.trump_decided:
            return self._search_bids(obs, rng, lay, candidates, deadline)
        k = len(candidates)
        values: list[list[float]] = [[] for _ in range(k)]  # per candidate, per world
        weights: list[float] = []
        active = list(range(k))
        count = 0
        hits: list[list[bool]] = [[] for _ in range(k)]  # per bid and world: was it made?
        evaluate = self._evaluator(obs, lay, candidates, hits)
        likelihood = self.world_likelihood(obs, lay)
        checkpoint = 16
        fixed = self._flat_worlds()
        while True:
            hands = sample_hands(obs, rng)
            weights.append(likelihood(lay.masks(hands)) if likelihood is not None else 1.0)
            for i, value in zip(active, evaluate(hands, active), strict=True):
                values[i].append(value)
            count += 1
            if fixed is not None:
                if count >= fixed:
                    break
            elif count >= self.min_worlds and time.perf_counter() >= deadline:
                break
            if self.prune and count == checkpoint and len(active) > 1:
                active = _survivors(values, weights, active)
                checkpoint *= 2
        ranked = []
        for i, action in enumerate(candidates):
            # A pruned candidate keeps the estimate it had when it was dropped.
            w = weights[: len(values[i])]
            expected = _weighted_mean(values[i], w)
            made = _weighted_mean([float(h) for h in hits[i]], w) if hits[i] else None
            if made is not None and self.calibrate and isinstance(action, Bid):
                chance = made_chance(made, action.bid, obs.hand_size, n=len(values[i]))
                expected = _recalibrated(values[i], hits[i], w, chance, expected)
            ranked.append(Evaluation(action, expected, len(values[i]), made))
        ranked.sort(key=lambda e: (-(e.worlds == count), -e.expected))
        return ranked

    def _search_cards(
        self,
        obs: Observation,
        rng: random.Random,
        lay: Layout,
        candidates: Sequence[Action],
        deadline: float,
        only: Card | None = None,
    ) -> list[Evaluation]:
        weigh = self.world_likelihood(obs, lay)
        budget, pool = self._budget()
        search = CardSearch(
            obs,
            rng,
            weigh,
            pool=pool,
            c=self.c,
            others_greedy=self.others_greedy,
            noise=self.noise,
            per_world=self.per_world,
            steer=self.steer,
            overtricks=self.overtricks,
            only=only,
        )
        if budget is not None:
            search.run(simulations=budget)
        else:
            search.run(deadline=deadline)
        by_card = {a.card: a for a in candidates if isinstance(a, Play)}
        return [Evaluation(by_card[v.card], v.mean, v.visits) for v in search.ranked() if v.card in by_card]

    def _search_bids(
        self, obs: Observation, rng: random.Random, lay: Layout, candidates: Sequence[Action], deadline: float
    ) -> list[Evaluation]:
        me = obs.seat
        assert me is not None
        trump = suit_index(obs.trump)

        last = bidding_order(obs.dealer, obs.players)[-1]

        def bids_in(masks: Sequence[int]) -> Callable[[int], list[int]]:
            # The others' guesses depend on the world only; our bid moves
            # just the last bidder's, through the hook.
            base, ests = guess_bids(obs, lay, masks, trump, self.guess_scale, self.guess_shift)

            def with_bid(bid: int) -> list[int]:
                bids = list(base)
                bids[me] = bid
                unhook(obs, bids, ests, last)
                return bids

            return with_bid

        budget, pool = self._budget()
        if self.bid_simulations is not None:
            budget = self.bid_simulations
            pool = max(16, budget // self.per_world)
        by_bid = {a.bid: a for a in candidates if isinstance(a, Bid)}
        # Not steered (``steer``): the chances are counted on the bids the
        # expert made, so they flatter a bid it would not make (its greedy
        # finish misses it by the hand, not by the policy); with them its bids rose.
        search = BidSearch(
            obs,
            rng,
            self.world_likelihood(obs, lay),
            pool=pool,
            candidates=sorted(by_bid),
            bids_in=bids_in,
            c=self.c,
            others_greedy=self.others_greedy,
            noise=self.noise,
            per_world=self.per_world,
            overtricks=self.overtricks,
        )
        # At least ``min_worlds`` simulations a bid before the clock is read,
        # and never fewer than one a bid (UCT tries each bid once before it
        # repeats one), so no bid is left unplayed for a hint to price.
        if budget is not None:
            search.run(simulations=max(budget, len(by_bid)))
        else:
            search.run(simulations=len(by_bid) * max(1, self.min_worlds))
            search.run(deadline=deadline)
        return [Evaluation(by_bid[b], mean, visits, made) for b, visits, mean, made in search.ranked_bids()]

    def _flat_worlds(self) -> int | None:
        """Worlds for one flat evaluation (None: until the time is up). A
        fixed ``simulations`` budget fixes it too (a world for every four, as
        ``worlds`` gives the search four simulations a world), so trump naming
        and the bids made before trump is named are as reproducible from the
        seed as the searched decisions, not timed."""
        if self.worlds is not None:
            return self.worlds
        if self.simulations is not None:
            return max(self.min_worlds, self.simulations // 4)
        return None

    def _budget(self) -> tuple[int | None, int]:
        """Simulations for one search (None: until the time is up) and the worlds in its pool."""
        budget = self.simulations
        if budget is None and self.worlds is not None:
            budget = 4 * self.worlds
        return budget, max(16, budget // self.per_world) if budget is not None else 64

    def world_likelihood(self, obs: Observation, lay: Layout) -> Callable[[Sequence[int]], float] | None:
        """What the search weighs each world it deals by (the hands as bit
        masks by seat): how well they fit the bids the others made (with
        ``inference``) and the cards they played (with ``read_play``). None:
        every world alike."""
        by_bids = self._bid_likelihood(obs, lay) if self.inference else None
        by_play = play_likelihood(obs, lay, self.play_trust) if self.read_play else None
        if by_play is None or by_bids is None:
            return by_bids or by_play

        def likelihood(masks: Sequence[int]) -> float:
            return by_bids(masks) * by_play(masks)

        return likelihood

    def _bid_likelihood(self, obs: Observation, lay: Layout) -> Callable[[Sequence[int]], float] | None:
        """How well a world's hands (bit masks by seat) fit the bids the other seats made.

        A seat that bid 4 more likely holds a strong hand than one that bid 0:
        each world is weighted by a Gaussian of the gap between each revealed
        bid and the tricks that seat's hand (as dealt: its cards now plus
        those it has played) is estimated to take.
        """
        me = obs.seat
        n = obs.players
        bidders = [s for s in range(n) if s != me and obs.bids[s] is not None and obs.hands[s] is None]
        if not bidders:
            return None
        played: list[list[Card]] = [[] for _ in range(n)]
        for t in obs.tricks:
            for i, card in enumerate(t.cards):
                played[(t.leader + i) % n].append(card)
        for seat, card in obs.trick:
            played[seat].append(card)
        trump = suit_index(obs.trump) if obs.trump_decided else -1
        spread = 2.0 * self.bid_spread**2
        trust = self.bid_trust
        # Each bidder's played cards as one mask; an identical card (R-DECK-AU)
        # may share a slot with one still in hand, which only blurs the estimate.
        played_masks = {s: sum(1 << lay.slots_of[c][0] for c in set(played[s])) for s in bidders}

        estimate = trick_estimator(lay, trump, n)
        # R-TRUMP-BIDDER: the bids were made before trump was named, each (as
        # ``guess_bids`` has it) for the suit the bidder would name itself.
        named_later = obs.rules.trump is TrumpMode.BIDDER
        scale, shift = self.bid_scale, self.bid_shift
        bids = range(obs.hand_size + 1)
        totals: dict[float, float] = {}

        def total(expected: float) -> float:
            """The Gaussian summed over every bid, for normalising it."""
            z = totals.get(expected)
            if z is None:
                z = totals[expected] = sum(math.exp(-((b - expected) ** 2) / spread) for b in bids)
            return z

        normalize = self.bid_normalize
        floor = (1.0 - trust) / len(bids) if normalize else 1.0 - trust

        def likelihood(masks: Sequence[int]) -> float:
            weight = 1.0
            for s in bidders:
                dealt = masks[s] | played_masks[s]
                tricks = _own_suit_estimate(lay, dealt, n) if named_later else estimate(dealt)
                expected = scale * tricks + shift
                fit = math.exp(-((obs.bids[s] - expected) ** 2) / spread)  # type: ignore[operator]
                if normalize:
                    fit /= total(expected)
                # A mixture: some bidders bid with little regard to their hand,
                # and no single bid should be able to rule a world out.
                weight *= floor + trust * fit
            return weight

        return likelihood

    def _evaluator(
        self, obs: Observation, lay: Layout, candidates: Sequence[Action], hits: list[list[bool]]
    ) -> Callable[[tuple[tuple[object, ...], ...], list[int]], list[float]]:
        me = obs.seat
        assert me is not None
        n = obs.players
        rules = obs.rules
        relative = rules.scoring is Scoring.OKENUFF  # R-SETTLE: differences are paid

        def utility(bids: Sequence[int], tricks: Sequence[int], namer: int | None, trump: int) -> float:
            scores = score_hand(
                rules,
                bids,
                tricks,
                first_bidder=(obs.dealer + 1) % n,
                trump_namer=namer,
                no_trump=trump < 0,
            )
            mine = scores[me]
            if relative:
                return mine - (sum(scores) - mine) / (n - 1)
            return float(mine)

        lead = obs.dealer if rules.first_lead.value == "dealer" else (obs.dealer + 1) % n

        full = (1 << lay.size) - 1
        shown_voids = [sum(1 << int(s) for s in v) for v in obs.voids]

        def world_masks(hands: tuple[tuple[object, ...], ...]) -> tuple[list[int], list[int], int]:
            masks = lay.masks(hands)  # type: ignore[arg-type]
            used = 0
            for m in masks:
                used |= m
            trick, gone = seen_slots(lay, obs, used)
            return masks, trick, full & ~gone

        def namer_and_trump(bids: Sequence[int], masks: list[int]) -> tuple[int | None, int]:
            if obs.trump_decided:
                return obs.trump_namer, suit_index(obs.trump)
            namer = trump_namer(rules, obs.dealer, bids)
            assert namer is not None  # every seat has a bid here
            return namer, _longest_suit(lay, masks[namer])

        if obs.phase is Phase.BID:

            def eval_bids(hands: tuple[tuple[object, ...], ...], active: list[int]) -> list[float]:
                masks, _, unseen = world_masks(hands)
                trump = suit_index(obs.trump) if obs.trump_decided else -1
                base, ests = guess_bids(
                    obs, lay, masks, trump if obs.trump_decided else None, self.guess_scale, self.guess_shift
                )
                out = []
                for i in active:
                    bids = list(base)
                    bids[me] = candidates[i].bid  # type: ignore[union-attr]
                    unhook(obs, bids, ests)
                    namer, t = namer_and_trump(bids, masks)
                    taken = playout(lay, list(masks), t, lead, [], [0] * n, bids, unseen, list(shown_voids))
                    hits[i].append(taken[me] == bids[me])
                    out.append(utility(bids, taken, namer, t))
                return out

            return eval_bids

        if obs.phase is Phase.TRUMP:

            def eval_trumps(hands: tuple[tuple[object, ...], ...], active: list[int]) -> list[float]:
                masks, _, unseen = world_masks(hands)
                bids = [b if b is not None else 0 for b in obs.bids]
                out = []
                for action in (candidates[i] for i in active):
                    t = suit_index(action.suit)  # type: ignore[union-attr]
                    taken = playout(lay, list(masks), t, lead, [], [0] * n, bids, unseen, list(shown_voids))
                    out.append(utility(bids, taken, me, t))
                return out

            return eval_trumps

        def eval_cards(hands: tuple[tuple[object, ...], ...], active: list[int]) -> list[float]:
            masks, trick, unseen = world_masks(hands)
            trump = suit_index(obs.trump)
            bids = [b if b is not None else 0 for b in obs.bids]
            out = []
            for action in (candidates[i] for i in active):
                assert isinstance(action, Play) and action.card is not None
                slot = lay.slot(action.card, ~masks[me])
                taken = playout(
                    lay,
                    list(masks),
                    trump,
                    obs.leader,
                    list(trick),
                    list(obs.taken),
                    bids,
                    unseen,
                    list(shown_voids),
                    first=slot,
                )
                out.append(utility(bids, taken, obs.trump_namer, trump))
            return out

        return eval_cards


def guess_bids(
    obs: Observation,
    lay: Layout,
    masks: Sequence[int],
    trump: int | None,
    scale: float = 1.0,
    shift: float = 0.0,
) -> tuple[list[int], list[float]]:
    """Every seat's bid in a sampled world: the bids made, and for the seats
    still to bid the bid expected of their hand (``scale`` x its trick
    estimate + ``shift``) rounded. The expectations come too (a made bid is
    its own). ``trump`` None: trump is named after the bids (R-TRUMP-BIDDER),
    so each seat is estimated as bidding with its own longest suit as trump,
    the suit it would name (not the suit the searching seat would)."""
    bids, ests = [], []
    players = obs.players
    estimate = trick_estimator(lay, trump, players) if trump is not None else None
    for s, known in enumerate(obs.bids):
        if known is None:
            hand = masks[s]
            est = scale * (estimate(hand) if estimate else _own_suit_estimate(lay, hand, players)) + shift
        else:
            est = float(known)
        bids.append(known if known is not None else max(0, min(obs.hand_size, round(est))))
        ests.append(est)
    return bids, ests


def unhook(obs: Observation, bids: list[int], ests: Sequence[float], last: int | None = None) -> None:
    """Move the last bidder's guessed bid off the one the hook forbids it
    (R-HOOK), to the side its hand's estimate leans; a bid it has made stays.
    ``last``: the last bidder, when the caller knows it already."""
    if last is None:
        last = bidding_order(obs.dealer, obs.players)[-1]
    if last == obs.seat or obs.bids[last] is not None:
        return
    forbidden = hook(obs.rules, obs.hand_size, [None if s == last else b for s, b in enumerate(bids)])
    if forbidden is None or bids[last] != forbidden:
        return
    down = forbidden == obs.hand_size or (forbidden > 0 and ests[last] <= forbidden)
    bids[last] = forbidden - 1 if down else forbidden + 1


def _weighted_mean(values: Sequence[float], weights: Sequence[float]) -> float:
    total = sum(weights)
    return sum(w * v for w, v in zip(weights, values, strict=True)) / total if total else 0.0


def _recalibrated(
    values: Sequence[float], hits: Sequence[bool], weights: Sequence[float], chance: float, expected: float
) -> float:
    """A bid's expected score with its chance of being made replaced by ``chance``.

    The score when the bid is made and when it is missed each keep their
    mean over the worlds; only how often each happens changes. Without a
    world of each kind there is nothing to reweigh, and ``expected`` stands.
    """
    hit_w = [w for w, h in zip(weights, hits, strict=True) if h]
    miss_w = [w for w, h in zip(weights, hits, strict=True) if not h]
    if not sum(hit_w) > 0 or not sum(miss_w) > 0:
        return expected
    hit = _weighted_mean([v for v, h in zip(values, hits, strict=True) if h], hit_w)
    miss = _weighted_mean([v for v, h in zip(values, hits, strict=True) if not h], miss_w)
    return chance * hit + (1.0 - chance) * miss


def _survivors(values: list[list[float]], weights: list[float], active: list[int]) -> list[int]:
    """The candidates not clearly worse than the best so far: a paired gap
    (same worlds) of more than three standard errors drops a candidate."""
    n = len(weights)
    best = max(active, key=lambda i: _weighted_mean(values[i][-n:], weights))
    keep = []
    total = sum(weights)
    if total <= 0:
        return active
    effective = total * total / sum(w * w for w in weights)
    for i in active:
        if i == best:
            keep.append(i)
            continue
        gaps = [b - v for b, v in zip(values[best][-n:], values[i][-n:], strict=True)]
        mean = sum(w * g for w, g in zip(weights, gaps, strict=True)) / total
        var = sum(w * (g - mean) ** 2 for w, g in zip(weights, gaps, strict=True)) / total
        if mean <= 3.0 * math.sqrt(var / effective) + 1e-9:
            keep.append(i)
    return keep


def _own_suit_estimate(lay: Layout, hand: int, players: int) -> float:
    """The tricks ``hand`` is estimated at with its own longest suit as trump:
    what a seat bids for when trump is named after the bids (R-TRUMP-BIDDER)
    and it would name that suit itself."""
    return trick_estimator(lay, _longest_suit(lay, hand), players)(hand)


def _longest_suit(lay: Layout, hand: int) -> int:
    """The suit a namer would choose: the longest, then the strongest."""
    best, key = 0, (-1, -1)
    for s in range(4):
        m = hand & lay.suit_mask[s]
        k = (bin(m).count("1"), m >> (13 * s) if lay.size == 52 else m)
        if k > key:
            best, key = s, k
    return best


__all__ = ["Bidding", "Evaluation", "ExpertBot", "estimate_tricks", "guess_bids", "trick_estimator", "unhook"]
