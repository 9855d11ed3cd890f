"""Many matches stepped at once as arrays: the batched simulator for learning and search.

>>> import numpy as np
>>> from ohhell.env.batch import BatchSimulator
>>> sim = BatchSimulator(256, preset="pagat", seed=1)
>>> mask = sim.action_mask()  # (256, 95) int8: the legal ids of each game's seat to act
>>> obs = sim.observe()  # (256, OBS) float32: that seat's view (batch_observe.BATCH_LAYOUT)
>>> actions = sim.random_actions()  # a random legal id per game
>>> sim.step(actions)  # every game takes its action; finished matches start anew
>>> sim.rewards.shape, sim.terminations.shape, mask.shape
((256, 4), (256,), (256, 95))

``B`` games of one rule set (any preset, or a preset with options, as
``oh_hell_v0.env`` takes them) live in NumPy arrays: hands are 52-bit masks
(``uint64``, bit ``Card.index``), everything else small integers per game or
per game and seat. A step is one action in every game, for the seat each game
asks (``agent_selection``), done as a few array operations over the whole
batch, whatever phase each game is in. An episode is the whole match (every
hand of the schedule, tie-break hands included); ``single_deal=True`` or an
integer hand size makes it one hand, as in ``oh_hell_v0``. Chance (the first
dealer, every shuffle) comes from ``seed``; a finished match is replaced by a
new one in the same step (``autoreset=False`` holds it over instead, until
``reset(games=...)``).

The rules are the core's: ``batch_tables`` fills every table (who bids, leads
and deals, the hook, trump, which card beats which, scores) by calling the
core's functions, and ``tests/env/test_batch.py`` replays the same actions
through ``GameState`` for every preset and compares masks, turns, trick
winners, observations and scores at every step. Actions and observations
are those of ``encoding`` (95 ids; the observation is its fields for this
table's seats, see ``batch_observe``). A pack with two of a card (option
``deck=australian``) is refused with ``RulesError``; every other option plays.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from .. import ALL_CARDS, MAX_BID_CHANGES, Card, Deal, Rules, hand_follows
from ..encoding import (
    ACTION_SIZE,
    BID_BASE,
    CHANGE_BASE,
    KEEP,
    MASK_DTYPE,
    PLAY_BLIND,
    TRUMP_BASE,
    describe_action_id,
)
from .batch_bits import card_bits, popcount, random_legal, select_bit
from .batch_observe import BATCH_PHASES, batch_layout, build_observation, observation_bounds
from .batch_tables import BIDS, CARDS, NO_TRUMP, RuleTables, rule_tables
from .oh_hell_v0 import REWARDS, build_rules

BID: Final = BATCH_PHASES["bid"]
TRUMP: Final = BATCH_PHASES["trump"]
PLAY: Final = BATCH_PHASES["play"]
OVER: Final = BATCH_PHASES["over"]

IP = npt.NDArray[np.intp]
U64 = npt.NDArray[np.uint64]
U32 = npt.NDArray[np.uint32]
F32 = npt.NDArray[np.float32]
B8 = npt.NDArray[np.bool_]
I8 = npt.NDArray[np.int8]

_ONE: Final = np.uint64(1)


class BatchSimulator:
    """``num_games`` matches of one rule set, stepped together (see the module).

    State arrays are public to read (``hands``, ``bids``, ``taken``,
    ``totals``, ...); change them only through ``reset`` and ``step``.
    After each ``step``: ``rewards`` ([B, players] float32, each seat's side's
    score for a hand that ended, or the match total with ``reward="final"``),
    ``terminations`` ([B] bool, the match ended), ``final_totals`` (the ended
    match's totals), ``trick_winner`` ([B], the seat that won a trick this
    step, else -1) and ``new_hand`` ([B] bool, a hand was dealt this step).
    """

    metadata: Final[dict[str, Any]] = {"name": "oh_hell_batch_v0"}

    def __init__(
        self,
        num_games: int,
        preset: str | Rules = "pagat",
        *,
        players: int | None = None,
        single_deal: bool | int = False,
        reward: str = "hand",
        autoreset: bool = True,
        seed: int | None = None,
        **options: Any,
    ) -> None:
        if num_games < 1:
            raise ValueError(f"a batch needs at least 1 game, not {num_games}")
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        self.rules = build_rules(preset, players, single_deal, **options)
        self.tables: RuleTables = rule_tables(self.rules)
        self.num_games = num_games
        self.players = n = self.rules.players
        self.reward_mode = reward
        self.autoreset = autoreset
        self.possible_agents = [f"player_{s}" for s in range(n)]
        self.layout = batch_layout(self.rules)
        self.observation_size = max(end for _, end in self.layout.values())
        self.action_size = ACTION_SIZE
        b = num_games
        self._all: IP = np.arange(b, dtype=np.intp)
        # Per game and seat, kept 2-D for reading; the steps index them flat
        # (game * players + seat), which is one gather instead of two.
        self.hands: U64 = np.zeros((b, n), np.uint64)
        self.dealt: U64 = np.zeros((b, n), np.uint64)  # each hand as dealt (for deal_action)
        self.trick: IP = np.full((b, n), -1, np.intp)  # card each seat played to the current trick
        self.bids: IP = np.full((b, n), -1, np.intp)  # -1: not yet bid
        self.taken: IP = np.zeros((b, n), np.intp)
        # Suits each seat has shown it lacks (R-FOLLOW): byte s of the
        # little-endian word is 1 for suit s, so the observation reads the
        # four flags of a seat as four bytes.
        self.voids: U32 = np.zeros((b, n), "<u4")
        self.totals: IP = np.zeros((b, n), np.intp)
        self.exact: IP = np.zeros((b, n), np.intp)  # exact bids (R-TIE-EXACT)
        # Per game.
        self.phase: IP = np.zeros(b, np.intp)  # BATCH_PHASES: bid, trump, play, over
        self.to_act: IP = np.zeros(b, np.intp)  # the seat asked; -1 when the match is over
        # R-BID-CHANGE: the seat asked whether it changes or keeps the bid it
        # has just made (then to_act is that seat), -1 if none; its changes so far.
        self.changer: IP = np.full(b, -1, np.intp)
        self.changes: IP = np.zeros(b, np.intp)
        self.number: IP = np.zeros(b, np.intp)  # hand number, 0-based
        self.size: IP = np.zeros(b, np.intp)  # hand size
        self.dealer: IP = np.zeros(b, np.intp)
        self.first_dealer: IP = np.zeros(b, np.intp)
        self.leader: IP = np.zeros(b, np.intp)  # leads the current trick (the first one while bidding)
        self.trump: IP = np.zeros(b, np.intp)  # 0..3 a suit, 4 no trump, -1 not named yet
        self.turned: IP = np.zeros(b, np.intp)  # the turned card's id, -1 if none
        self.bid_count: IP = np.zeros(b, np.intp)
        self.bid_sum: IP = np.zeros(b, np.intp)
        self.namer: IP = np.zeros(b, np.intp)  # R-TRUMP-BIDDER: who names trump, -1 if nobody
        self.namer_context: IP = np.zeros(b, np.intp)  # for R-SC-OKENUFF, see batch_tables._score_table
        self.played: U64 = np.zeros(b, np.uint64)  # cards played this hand
        self.trick_len: IP = np.zeros(b, np.intp)
        self.led: IP = np.zeros(b, np.intp)  # suit led to the current trick
        self.best_card: IP = np.zeros(b, np.intp)  # winning the current trick so far
        self.best_seat: IP = np.zeros(b, np.intp)
        self.tricks_done: IP = np.zeros(b, np.intp)
        # Step results.
        self.rewards: F32 = np.zeros((b, n), np.float32)
        self.terminations: B8 = np.zeros(b, np.bool_)
        self.truncations: B8 = np.zeros(b, np.bool_)  # never set: every match ends by the rules
        self.final_totals: IP = np.zeros((b, n), np.intp)
        self.trick_winner: IP = np.full(b, -1, np.intp)
        self.new_hand: B8 = np.zeros(b, np.bool_)
        self._cumulative: F32 = np.zeros((b, n), np.float32)
        # Flat views of the per-seat arrays, sharing their memory.
        self._hands_f = self.hands.reshape(-1)
        self._dealt_f = self.dealt.reshape(-1)
        self._trick_f = self.trick.reshape(-1)
        self._bids_f = self.bids.reshape(-1)
        self._taken_f = self.taken.reshape(-1)
        self._voids_f = self.voids.reshape(-1)
        t = self.tables
        self._beats_f = t.beats.reshape(-1)
        self._bid_mask_f = t.bid_mask.reshape(-1, t.bid_mask.shape[-1])
        # For random_actions: how many bids each row of the bid table allows,
        # and the k-th of them.
        self._bid_count_f: IP = self._bid_mask_f.sum(axis=1, dtype=np.intp)
        self._bid_pick_f: IP = np.zeros(self._bid_mask_f.shape, np.intp)
        for r, k in zip(*np.nonzero(self._bid_mask_f), strict=True):
            self._bid_pick_f[r, self._bid_mask_f[r, :k].sum()] = k
        self._scores_f = t.scores.reshape(-1)
        self._rng = np.random.default_rng(seed)
        self.reset(seed=seed)

    # --- Episodes ---

    def reset(self, seed: int | None = None, games: npt.ArrayLike | None = None) -> None:
        """New matches: in every game, or in ``games`` (indices or a [B] bool
        mask) only. ``seed`` restarts the stream of chance first; the same seed
        and the same actions give the same games."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        idx = self._all if games is None else self._indices(games)
        self._cumulative[idx] = 0
        self._new_match(idx)

    def _indices(self, games: npt.ArrayLike) -> IP:
        g = np.asarray(games)
        if g.dtype == np.bool_:
            if g.shape != (self.num_games,):
                raise ValueError(f"a mask of games has shape ({self.num_games},), not {g.shape}")
            return np.flatnonzero(g)
        out = g.astype(np.intp).reshape(-1)
        if out.size and (out.min() < 0 or out.max() >= self.num_games):
            raise ValueError(f"game indices must be 0..{self.num_games - 1}")
        return out

    def _new_match(self, g: IP) -> None:
        self.totals[g] = 0
        self.exact[g] = 0
        self.number[g] = 0
        first = self.rules.first_dealer
        if first is None:
            # R-DEALER-DRAW: the highest card of a draw deals, ties drawing
            # again, so every seat is equally likely to deal first.
            dealer = self._rng.integers(0, self.players, len(g))
        else:
            dealer = np.full(len(g), first, np.intp)
        self.first_dealer[g] = dealer
        self.dealer[g] = dealer
        self._deal(g)

    def _deal(self, g: IP) -> None:
        """Shuffle a fresh pack for each game of ``g`` and deal its hand."""
        t, n = self.tables, self.players
        count = len(g)
        number = self.number[g]
        size = t.size[number]
        # One independent shuffle per game: the cards in the order of random
        # keys (53-bit floats, so ties, which would favour the pack's order,
        # have a chance of about 1 in 10^13 a deal). Row k is the pack from the top.
        pack = self._rng.random((count, CARDS)).argsort(axis=1)
        # R-DEAL, as chance.deal_from: card k goes to the seat k places after
        # the dealer's left, while n * size cards are dealt: in rounds of n
        # cards, round j giving each seat its j-th card.
        rounds = -(-CARDS // n)
        bits = np.zeros((count, rounds * n), np.uint64)
        bits[:, :CARDS] = t.card_bits[pack]
        by_round = bits.reshape(count, rounds, n)
        hands = by_round[:, 0, :].copy()
        for j in range(1, int(size.max())):
            hands |= np.where((j < size)[:, None], by_round[:, j, :], np.uint64(0))
        dealer = self.dealer[g]
        flat = (g * n)[:, None] + (dealer[:, None] + 1 + np.arange(n)[None, :]) % n
        self._hands_f[flat] = hands
        self._dealt_f[flat] = hands
        turns = t.turns_card[number]
        turned = np.where(turns, pack[np.arange(count), np.minimum(n * size, CARDS - 1)], -1)
        self.turned[g] = turned
        # R-TRUMP-TURN: the turned card's suit; otherwise what the rules fix
        # before the deal, or -1 until the highest bidder names it.
        self.trump[g] = np.where(turns, t.suit_of[turned], t.trump_set[number])
        self.size[g] = size
        self.bids[g] = -1
        self.bid_count[g] = 0
        self.bid_sum[g] = 0
        self.namer[g] = -1
        self.namer_context[g] = 0
        self.taken[g] = 0
        self.tricks_done[g] = 0
        self.trick_len[g] = 0
        self.trick[g] = -1
        self.voids[g] = 0
        self.played[g] = 0
        self.phase[g] = BID
        self.to_act[g] = t.first_asked[dealer]
        self.changer[g] = -1
        self.changes[g] = 0
        self.leader[g] = t.lead[dealer]  # known from the deal on, as GameState shows it
        self.new_hand[g] = True

    # --- Whose turn, what is legal ---

    @property
    def agents(self) -> list[str]:
        """Every seat plays in every game (a finished match is replaced or held over)."""
        return list(self.possible_agents)

    def observation_space(self, agent: str | None = None) -> spaces.Box:
        """One game's observation space (the same for every agent), as in PettingZoo."""
        low, high = self.observation_bounds()
        return spaces.Box(low, high, (self.observation_size,), np.float32)

    def action_space(self, agent: str | None = None) -> spaces.Discrete:
        """One game's action space: ``encoding``'s 95 ids."""
        return spaces.Discrete(ACTION_SIZE)

    @property
    def agent_selection(self) -> IP:
        """The seat each game asks now (-1 where the match is over)."""
        return self.to_act.copy()

    def _seats(self, agent: int | str | npt.ArrayLike | None) -> IP:
        if agent is None:
            return np.maximum(self.to_act, 0)
        if isinstance(agent, str):
            agent = self.possible_agents.index(agent)
        if isinstance(agent, int | np.integer):
            if not 0 <= int(agent) < self.players:
                raise ValueError(f"there is no seat {agent} at a {self.players}-player table")
            return np.full(self.num_games, int(agent), np.intp)
        seats = np.asarray(agent, np.intp)
        if seats.shape != (self.num_games,) or seats.min() < 0 or seats.max() >= self.players:
            raise ValueError(f"seats must be ({self.num_games},) values in 0..{self.players - 1}")
        return seats

    def _legal_cards(self) -> U64:
        """Each game's legal cards for its seat to act, as bits (0 outside play)."""
        t, n = self.tables, self.players
        hand = self._hands_f[self._all * n + np.maximum(self.to_act, 0)]
        follow = hand & t.suit_bits[np.where(self.trick_len > 0, self.led, NO_TRUMP)]
        legal = np.where(follow != 0, follow, hand)  # R-FOLLOW: else any card
        return np.where(self.phase == PLAY, legal, np.uint64(0))

    def action_mask(self, agent: int | str | npt.ArrayLike | None = None, out: I8 | None = None) -> I8:
        """[B, 95] int8: 1 for each legal id of the seat to act (``agent=None``)
        or of the seat given (a seat, an agent name or [B] seats), which is zero
        in games where that seat is not asked. ``out`` receives it if given."""
        t, n, b = self.tables, self.players, self.num_games
        if out is None:
            mask = np.zeros((b, ACTION_SIZE), MASK_DTYPE)
        else:
            if out.shape != (b, ACTION_SIZE) or out.dtype != MASK_DTYPE:
                raise ValueError(f"out must be an int8 array of shape ({b}, {ACTION_SIZE})")
            mask = out
            mask.fill(0)
        legal = self._legal_cards()
        if t.devils_bridge:
            blind = t.blind_size[self.size] & (self.phase == PLAY)
            legal = np.where(blind, np.uint64(0), legal)  # R-DEVILS-BRIDGE: only the unseen card
            mask[:, PLAY_BLIND] = blind
        mask[:, :CARDS] = card_bits(legal)
        bidding = self.phase == BID
        if t.bid_changes:
            window = self.changer >= 0  # R-BID-CHANGE: changes to any other bid, or keep
            w = np.flatnonzero(window)
            if len(w):
                current = self._bids_f[w * n + self.changer[w]]
                mask[w, CHANGE_BASE:KEEP] = t.change_mask[self.size[w], current]
                mask[w, KEEP] = 1
            bidding &= ~window
        d = np.flatnonzero(bidding)
        if len(d):
            row = (self.size[d] * n + self.bid_count[d]) * t.bid_mask.shape[2] + self.bid_sum[d]
            mask[d, BID_BASE : BID_BASE + t.bid_mask.shape[-1]] = self._bid_mask_f[row]
        named = self.phase == TRUMP
        if named.any():
            mask[named, TRUMP_BASE:CHANGE_BASE] = 1
        if agent is not None:
            mask[self._seats(agent) != self.to_act] = 0
        return mask

    def observe(self, agent: int | str | npt.ArrayLike | None = None, out: F32 | None = None) -> F32:
        """[B, observation_size] float32: each game's view of its seat to act
        (``agent=None``; seat 0 where the match is over) or of the seat given;
        the fields are ``self.layout`` (``batch_observe``). ``out`` receives
        it if given (a learner's rollout buffer: no new array each step)."""
        return build_observation(self, self._seats(agent), out)

    def observation_bounds(self) -> tuple[F32, F32]:
        """Lower and upper bounds of each observation element (for a Box space)."""
        return observation_bounds(self.rules)

    def random_actions(self, rng: np.random.Generator | None = None) -> IP:
        """A uniformly random legal id for each game's seat to act (0 where the
        match is over), from the simulator's stream of chance or ``rng``.

        It reads the state, not a mask: the legal cards' bits, the legal bids
        of ``batch_tables`` and the five trump choices, so it costs a few
        operations on [B] arrays (``random_legal`` draws from any mask)."""
        t, n = self.tables, self.players
        rng = self._rng if rng is None else rng
        u = rng.random(self.num_games)
        phase = self.phase
        cards = self._legal_cards()
        count = np.where(phase == TRUMP, CHANGE_BASE - TRUMP_BASE, popcount(cards))
        row = (self.size * n + np.minimum(self.bid_count, n - 1)) * t.bid_mask.shape[2] + self.bid_sum
        bidding = phase == BID
        count = np.where(bidding, self._bid_count_f[row], count)
        pick = (u * count).astype(np.intp)  # the pick-th choice, from 0
        out = select_bit(cards, pick)
        out = np.where(bidding, BID_BASE + self._bid_pick_f[row, np.minimum(pick, BIDS - 1)], out)
        out = np.where(phase == TRUMP, TRUMP_BASE + pick, out)
        if t.bid_changes:
            # R-BID-CHANGE: size + 1 choices, every other bid 0..size and KEEP
            # last, so the pick-th skips the current bid. Only the games in
            # the window are computed: a few of the batch at a time.
            w = np.flatnonzero(self.changer >= 0)
            if len(w):
                size = self.size[w]
                pick = (u[w] * (size + 1)).astype(np.intp)
                current = self._bids_f[w * n + self.changer[w]]
                out[w] = np.where(pick == size, KEEP, CHANGE_BASE + pick + (pick >= current))
        if t.devils_bridge:
            out = np.where(t.blind_size[self.size] & (phase == PLAY), PLAY_BLIND, out)
        return np.where(phase == OVER, 0, out)

    # --- Steps ---

    def step(self, actions: npt.ArrayLike, games: npt.ArrayLike | None = None) -> None:
        """Each game's seat to act takes its action (an id of ``encoding``).

        ``games`` (indices or a [B] bool mask) steps only those games; the
        others keep their state and get no reward. Games whose match is over
        (``autoreset=False``) are left as they are until ``reset``. An illegal
        action raises ``ValueError`` naming the game, the action and the legal
        ids, before any game changes."""
        a = np.asarray(actions)
        if a.shape != (self.num_games,):
            raise ValueError(f"step takes one action per game: shape ({self.num_games},), not {a.shape}")
        a = a.astype(np.intp, copy=False)
        idx = self._all if games is None else self._indices(games)
        phase = self.phase[idx]
        if not self.autoreset:
            live = phase != OVER
            if not live.all():
                idx, phase = idx[live], phase[live]
        act = a[idx]
        self._check(idx, act, phase)
        self.rewards.fill(0)
        self.terminations.fill(False)
        self.trick_winner.fill(-1)
        self.new_hand.fill(False)
        # A seat's reward since its last action starts again when it acts (as in AEC).
        self._cumulative[idx, self.to_act[idx]] = 0
        plays = phase == PLAY
        if plays.all():
            self._play(idx, act)
        else:
            if plays.any():
                self._play(idx[plays], act[plays])
            bids = phase == BID
            window = bids & (self.changer[idx] >= 0)  # R-BID-CHANGE
            if window.any():
                bids &= ~window
                self._change(idx[window], act[window])
            if bids.any():
                self._bid(idx[bids], act[bids] - BID_BASE)
            names = phase == TRUMP
            if names.any():
                self._name(idx[names], act[names] - TRUMP_BASE)
        self._cumulative += self.rewards

    def _check(self, g: IP, act: IP, phase: IP) -> None:
        t, n = self.tables, self.players
        ok = np.zeros(len(g), np.bool_)
        cards = self._legal_cards()[g]
        is_card = (act >= 0) & (act < CARDS)
        shift = np.where(is_card, act, 0).astype(np.uint64)
        ok |= (phase == PLAY) & is_card & ((cards >> shift) & _ONE).astype(np.bool_)
        if t.devils_bridge:
            blind = t.blind_size[self.size[g]] & (phase == PLAY)
            ok = np.where(blind, act == PLAY_BLIND, ok)
        bid = act - BID_BASE
        bidding = phase == BID
        if t.bid_changes:
            window = bidding & (self.changer[g] >= 0)
            w = np.flatnonzero(window)
            if len(w):
                # R-BID-CHANGE: KEEP, or a change to another bid of 0..size.
                bidding &= ~window
                gw, aw = g[w], act[w]
                new = aw - CHANGE_BASE
                current = self._bids_f[gw * n + self.changer[gw]]
                ok[w] = (aw == KEEP) | ((new >= 0) & (new <= self.size[gw]) & (new != current))
        in_bids = bidding & (bid >= 0) & (bid < t.bid_mask.shape[-1])
        if in_bids.any():
            d = np.flatnonzero(in_bids)
            row = (self.size[g[d]] * n + self.bid_count[g[d]]) * t.bid_mask.shape[2] + self.bid_sum[g[d]]
            ok[d] = self._bid_mask_f[row, bid[d]] == 1
        ok |= (phase == TRUMP) & (act >= TRUMP_BASE) & (act < CHANGE_BASE)
        if not ok.all():
            bad = np.flatnonzero(~ok)
            game = int(g[bad[0]])
            aid = int(act[bad[0]])
            legal = np.flatnonzero(self.action_mask()[game]).tolist()
            raise ValueError(
                f"{len(bad)} illegal action(s); the first: game {game}, seat {int(self.to_act[game])}, "
                f"action {aid} ({describe_action_id(aid)}); legal ids there: {legal}"
            )

    def _play(self, p: IP, card: IP) -> None:
        t, n = self.tables, self.players
        seat = self.to_act[p]
        flat = p * n + seat
        if t.devils_bridge:
            # R-DEVILS-BRIDGE: the blind id plays the one card the seat holds.
            blind = card == PLAY_BLIND
            if blind.any():
                held = self._hands_f[flat[blind]]
                card = card.copy()
                card[blind] = np.log2(held.astype(np.float64)).astype(np.intp)
        bit = t.card_bits[card]
        self._hands_f[flat] ^= bit
        self.played[p] |= bit
        self._trick_f[flat] = card
        length = self.trick_len[p]
        first = length == 0
        suit = t.suit_of[card]
        led = np.where(first, suit, self.led[p])
        self.led[p] = led
        # R-TRICK: the table of ohhell.beats, by trump, the card winning so far
        # and the card played.
        wins = first | self._beats_f[(self.trump[p] * CARDS + self.best_card[p]) * CARDS + card]
        self.best_card[p] = np.where(wins, card, self.best_card[p])
        self.best_seat[p] = np.where(wins, seat, self.best_seat[p])
        off = suit != led  # R-FOLLOW: not following shows a void
        if off.any():
            self._voids_f[flat[off]] |= (1 << (8 * led[off])).astype(np.uint32)
        length = length + 1
        self.trick_len[p] = length
        self.to_act[p] = t.left[seat]
        full = length == n
        if full.any():
            q = p[full]
            winner = self.best_seat[q]
            self._taken_f[q * n + winner] += 1
            self.leader[q] = winner  # the winner leads next (R-TRICK)
            self.to_act[q] = winner
            self.trick_len[q] = 0
            self.trick[q] = -1
            self.trick_winner[q] = winner
            done = self.tricks_done[q] + 1
            self.tricks_done[q] = done
            over = done == self.size[q]
            if over.any():
                self._end_hand(q[over])

    def _bid(self, d: IP, bid: IP) -> None:
        t, n = self.tables, self.players
        seat = self.to_act[d]
        self._bids_f[d * n + seat] = bid
        count = self.bid_count[d] + 1
        self.bid_count[d] = count
        self.bid_sum[d] += bid
        done = count == n
        if t.bid_changes:
            # R-BID-CHANGE, as the OpenSpiel game asks: the seat that has just
            # bid is asked first whether it changes its bid or keeps it; the
            # last bid opens no window.
            self.changer[d] = np.where(done, -1, seat)
            self.changes[d] = 0
            self.to_act[d] = seat
        else:
            self.to_act[d] = t.next_asked[seat]
        if done.any():
            self._end_bidding(d[done])

    def _change(self, w: IP, act: IP) -> None:
        """R-BID-CHANGE: a change (at most ``MAX_BID_CHANGES``) or ``KEEP``; then
        the next bidder is asked."""
        n = self.players
        seat = self.changer[w]
        change = act != KEEP
        c = w[change]
        if len(c):
            flat = c * n + seat[change]
            new = act[change] - CHANGE_BASE
            self.bid_sum[c] += new - self._bids_f[flat]
            self._bids_f[flat] = new
            self.changes[c] += 1
        closed = ~change | (self.changes[w] >= MAX_BID_CHANGES)
        e = w[closed]
        self.changer[e] = -1
        self.to_act[e] = self.tables.next_asked[seat[closed]]

    def _end_bidding(self, e: IP) -> None:
        t, n = self.tables, self.players
        if not t.bidder_names_trump:
            self.phase[e] = PLAY
            self.to_act[e] = self.leader[e]
            return
        # R-TRUMP-BIDDER, as hand.trump_namer: the highest bid, the first of
        # them in bidding order (argmax takes the first of equal values).
        order = t.order[self.dealer[e]]
        in_order = self.bids[e[:, None], order]
        at = in_order.argmax(axis=1)
        namer = order[np.arange(len(e)), at]
        before = np.where(np.arange(n)[None, :] < at[:, None], in_order, 0).max(axis=1)
        self.namer[e] = namer
        self.namer_context[e] = 1 + before
        self.phase[e] = TRUMP
        self.to_act[e] = namer

    def _name(self, g: IP, choice: IP) -> None:
        self.trump[g] = choice  # encoding.TRUMP_CHOICES order: C D H S, no trump
        self.phase[g] = PLAY
        self.to_act[g] = self.leader[g]

    def _end_hand(self, h: IP) -> None:
        t = self.tables
        bids, taken = self.bids[h], self.taken[h]
        context = np.zeros_like(bids)
        if t.bidder_names_trump:
            context[np.arange(len(h)), self.namer[h]] = self.namer_context[h]
        no_trump = (self.trump[h] == NO_TRUMP).astype(np.intp)
        top = t.scores.shape[-1]
        at = ((no_trump[:, None] * t.scores.shape[1] + context) * top + bids) * top + taken
        scores = self._scores_f[at]  # R-SC-*: score_hand's table
        self.totals[h] += scores
        self.exact[h] += bids == taken
        if self.reward_mode == "hand":
            self.rewards[h] = self._by_side(scores)
        number = self.number[h] + 1
        self.number[h] = number
        self.dealer[h] = t.left[self.dealer[h]]  # R-DEALER-ROTATE
        follows = number < t.hands
        if t.extra_hands:
            # R-TIE-EXTRA: the core decides, for the few games past the schedule.
            for i in np.flatnonzero(~follows):
                follows[i] = hand_follows(self.rules, int(number[i]), self.totals[h[i]].tolist())
        if follows.all():
            self._deal(h)
            return
        if follows.any():
            self._deal(h[follows])
        ended = h[~follows]
        self.terminations[ended] = True
        self.final_totals[ended] = self.totals[ended]
        if self.reward_mode == "final":
            self.rewards[ended] = self._by_side(self.totals[ended])
        if self.autoreset:
            self._new_match(ended)
        else:
            self.phase[ended] = OVER
            self.to_act[ended] = -1

    def _by_side(self, scores: IP) -> IP:
        """Each seat's side's sum of ``scores`` (R-TEAMS), or the scores themselves."""
        if self.rules.teams is None:
            return scores
        summed: IP = (scores[:, None, :] * self.tables.side.astype(np.intp)[None]).sum(axis=2)
        return summed

    # --- PettingZoo-style reading ---

    def last(self) -> tuple[F32, F32, B8, B8, dict[str, Any]]:
        """(observation, reward, termination, truncation, info) of each game's
        seat to act, as PettingZoo's ``last()``: the reward is what that seat
        got since it last acted. ``info`` holds the action mask."""
        seats = self._seats(None)
        reward = self._cumulative[self._all, seats].copy()
        info = {"action_mask": self.action_mask()}
        return self.observe(), reward, self.terminations.copy(), self.truncations.copy(), info

    def deal_action(self, game: int) -> Deal:
        """The current hand of ``game`` as the core's ``Deal`` action (every
        hand as dealt and the turned card), to replay the game in ``GameState``."""
        hands = tuple(tuple(_cards(int(m))) for m in self.dealt[game])
        turned = int(self.turned[game])
        return Deal(hands, ALL_CARDS[turned] if turned >= 0 else None)


def _cards(mask: int) -> list[Card]:
    return [ALL_CARDS[i] for i in range(CARDS) if mask >> i & 1]


__all__ = ["BatchSimulator", "random_legal"]
