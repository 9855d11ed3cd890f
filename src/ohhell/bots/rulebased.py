"""Rule-based bots: ``beginner`` and ``intermediate``, fast and deterministic.

Both bid from an estimate of the tricks their hand will take and then play to
make the bid exactly: take tricks cheaply while short, duck with the highest
losing card once the bid is made. They play every rule set: turned, rotating,
fixed, named or no trump, sequential or simultaneous bidding, the hook or
none, Devil's Bridge (bid from the cards one can see, play the unseen card)
and Australian packs (identical cards, the later one winning).

The two differ in what they keep track of. The beginner adds up crude card
values, counts aces and kings as the winners, forgets the cards already played
and pays no attention to the other players. The intermediate player estimates
each card's chance of a trick from the cards it cannot see (a logistic model
fitted to self-play, see ``_WEIGHTS``), bids the best expected score under the
rules' scoring with the hook's gap filled by the next best bid, remembers
every card played and every void shown, weighs each card it may play by the
expected score of the whole hand, and between cards about as good takes tricks
from opponents who need them and leaves tricks to those who have made their
bids.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Sequence
from functools import cache

from .. import (
    Action,
    Bid,
    Card,
    ChangeBid,
    Deck,
    FirstLead,
    NameTrump,
    Observation,
    Play,
    Rank,
    Rules,
    Suit,
    australian_deck,
    beats,
    hand_score,
    standard_deck,
    trick_winner,
)

Trick = tuple[tuple[int, Card], ...]


# --- Small card facts shared by both bots. ---


@cache
def _pack(deck: Deck, players: int) -> tuple[Card, ...]:
    return tuple(australian_deck(players) if deck is Deck.AUSTRALIAN else standard_deck())


def winning_play(trick: Trick, trump: Suit | None) -> tuple[int, Card]:
    """The seat and card winning a (possibly unfinished) trick (``ohhell.trick_winner``)."""
    return trick[trick_winner([card for _, card in trick], trump)]


def _binomial(count: int, p: float) -> list[float]:
    dist = [1.0]
    for _ in range(count):
        dist = _add_chance(dist, p)
    return dist


def _add_chance(dist: list[float], p: float) -> list[float]:
    # One more independent event of chance p: the Poisson-binomial recurrence.
    out = [0.0] * (len(dist) + 1)
    for j, x in enumerate(dist):
        out[j] += x * (1 - p)
        out[j + 1] += x * p
    return out


def trick_distribution(chances: Sequence[float]) -> list[float]:
    """P(tricks = t) for t = 0..len(chances), the cards taken independently."""
    dist = [1.0]
    for p in chances:
        dist = _add_chance(dist, p)
    return dist


def _first_leader(obs: Observation) -> int:
    if obs.rules.first_lead is FirstLead.DEALER:  # R-LEAD-DEALER
        return obs.dealer
    return (obs.dealer + 1) % obs.players  # R-LEAD-LEFT


# --- The intermediate bot's estimate of each card's chance of a trick. ---

_GUARD = 0.45  # a guarded card survives each higher card outstanding about this often

# Logistic weights of card_features, one row per kind of card. Fitted offline
# (Newton's method on ~200,000 cards of ~12,000 single hands of intermediate
# self-play: 3-7 players, 1-13 cards, 12% without trump, some Australian packs)
# to which cards took a trick, then refitted after each change of play until
# stable. Every feature is one the bot can see.
_WEIGHTS: dict[str, tuple[float, ...]] = {
    "side": (-2.958, 4.848, 4.573, -2.324, -0.408, 0.085, 0.327, 3.385, -0.064, -0.178, -2.280),
    "trump": (-3.095, 6.075, 3.350, -0.043, 0.500, 0.095, 0.448, 0.404, 3.003, -2.271, -0.025, -0.454),
    "plain": (-2.836, 4.355, 5.111, 0.007, -0.128, -0.097, 3.658, -0.246, -0.285, -2.000),
}


def card_features(
    hand: Sequence[Card], trump: Suit | None, players: int, unseen: Counter[Card], position: float = 0.5
) -> list[tuple[str, list[float]]]:
    """For each card, its kind ("trump", "side" or "plain" without trump) and
    the features its chance of a trick is estimated from.

    The other hands are a random share of the unseen cards, so the fewer cards
    in play (short hands, many players) the more often a king has no ace above
    it: ``alone`` is the chance that no higher card is in an opponent's hand,
    ``guarded`` the chance of surviving some with lower cards of the suit to
    spare. Side-suit cards also carry the chance that an opponent is short
    enough to ruff them; trumps their rank among one's trumps, one's trump
    length against an opponent's expected length, and one's short side suits;
    without trump a long suit's low cards can be established. ``position`` is
    0 for the first to lead and 1 for the last to play (0.5 when unknown).
    """
    k = len(hand)
    total = sum(unseen.values())
    f = min(1.0, k / total) if total else 0.0  # chance that an unseen card is in a given opponent's hand
    q = min(1.0, (players - 1) * f)  # ... in any opponent's hand
    by_suit: dict[Suit, list[int]] = {s: [] for s in Suit}  # positions, so R-DECK-AU twins stay apart
    for i, c in enumerate(hand):
        by_suit[c.suit].append(i)
    ranks_out: dict[Suit, list[int]] = {s: [] for s in Suit}
    for c, m in unseen.items():
        ranks_out[c.suit].extend([c.rank] * m)
    trumps = len(by_suit[trump]) if trump is not None else 0
    trumps_out = len(ranks_out[trump]) if trump is not None else 0
    has_trump = 1 - (1 - f) ** trumps_out
    opp_trumps = trumps_out * f
    short = sum((1.0, 0.5)[len(v)] for s, v in by_suit.items() if s is not trump and len(v) < 2)
    out: list[tuple[str, list[float]]] = [("plain", [])] * k
    scale = (f, 1 / max(1, k), position)  # how many cards are in play, and where this seat sits
    for suit, places in by_suit.items():
        places.sort(key=lambda i: -hand[i].rank)
        length = len(places)
        ranks = ranks_out[suit]
        for order, i in enumerate(places):
            higher = sum(1 for r in ranks if r >= hand[i].rank)
            dist = _binomial(higher, q)
            alone = dist[0]
            guarded = sum(dist[j] * _GUARD**j for j in range(1, min(higher, length - 1 - order) + 1))
            if trump is None:
                longer = length - len(ranks) * f  # one's length beyond an opponent's expected length
                out[i] = ("plain", [1.0, alone, guarded, length, order, longer, *scale, alone / k])
            elif suit is trump:
                excess = trumps - order - opp_trumps
                out[i] = (
                    "trump",
                    [1.0, alone, guarded, order, trumps, opp_trumps, excess, short, *scale, alone / k],
                )
            else:
                # An opponent holding fewer cards of the suit than this card's round can ruff it.
                void = sum(_binomial(len(ranks), f)[: order + 1]) * has_trump
                ruff = 1 - (1 - void) ** (players - 1)
                out[i] = (
                    "side",
                    [1.0, alone, guarded, alone * ruff, length, order, trumps, *scale, alone / k],
                )
    return out


def card_chances(
    hand: Sequence[Card], trump: Suit | None, players: int, unseen: Counter[Card], position: float = 0.5
) -> list[float]:
    """Each card's chance of taking a trick, from the cards this seat cannot see."""
    chances = []
    for kind, x in card_features(hand, trump, players, unseen, position):
        z = sum(w * v for w, v in zip(_WEIGHTS[kind], x, strict=True))
        chances.append(1 / (1 + math.exp(-max(-30.0, min(30.0, z)))))
    return chances


# --- What a seat can work out at a decision. ---


class _Table:
    """One decision's working view: hands, unseen cards, voids and needs."""

    def __init__(self, obs: Observation, memory: bool) -> None:
        self.obs = obs
        self.rules: Rules = obs.rules
        self.n = obs.players
        self.me = obs.seat if obs.seat is not None else 0
        self.trump = obs.trump
        self.hand = list(obs.hand)
        unseen = Counter(_pack(obs.rules.deck, self.n))
        for h in obs.hands:
            if h is not None:
                unseen.subtract(h)
        if obs.turned is not None:
            unseen[obs.turned] -= 1
        # Without memory only the cards on the table now are known to be gone.
        unseen.subtract(obs.played_cards() if memory else [c for _, c in obs.trick])
        self.unseen = +unseen
        self.voids = obs.voids if memory else tuple(frozenset[Suit]() for _ in range(self.n))
        self.out_ranks: dict[Suit, list[int]] = {s: [] for s in Suit}
        for c, m in self.unseen.items():
            self.out_ranks[c.suit].extend([c.rank] * m)
        self.total_out = sum(self.unseen.values())
        self.teammates: frozenset[int] = frozenset()
        if obs.rules.teams is not None:
            for team in obs.rules.teams:
                if self.me in team:
                    self.teammates = frozenset(team) - {self.me}

    def need(self, seat: int) -> int | None:
        bid = self.obs.bids[seat]
        return None if bid is None else bid - self.obs.taken[seat]

    def later_seats(self) -> list[int]:
        played = len(self.obs.trick)
        return [(self.me + i) % self.n for i in range(1, self.n - played)]

    def higher_out(self, card: Card) -> int:
        return sum(1 for r in self.out_ranks[card.suit] if r >= card.rank)

    def beat_chance(self, seat: int, card: Card, led: Suit, wants: float) -> float:
        """Chance that ``seat``, still to play, beats ``card`` when it is winning."""
        void = self.voids[seat]
        room = self.total_out - sum(len(self.out_ranks[s]) for s in void)
        if room <= 0:
            return 0.0
        f = min(1.0, self.obs.hand_counts[seat] / room)
        trump = self.trump
        if card.suit is led:
            high = 0.0 if led in void else 1 - (1 - f) ** self.higher_out(card)
            ruff = 0.0
            if trump is not None and led is not trump and trump not in void:
                short = 1.0 if led in void else (1 - f) ** len(self.out_ranks[led])
                ruff = short * (1 - (1 - f) ** len(self.out_ranks[trump])) * wants
            return high * (wants if wants > 0.5 else 0.3) + (1 - high) * ruff
        if trump is None or trump in void:
            return 0.0  # a discard cannot win; only a higher trump beats a ruff
        short = 1.0 if led in void else (1 - f) ** len(self.out_ranks[led])
        return short * (1 - (1 - f) ** self.higher_out(card)) * wants

    def hold_chance(self, card: Card) -> float:
        """Chance that ``card`` wins the current trick (it is led if the trick is empty)."""
        trick = self.obs.trick
        if trick:
            _, best = winning_play(trick, self.trump)
            if not beats(card, best, self.trump):
                return 0.0
            led = trick[0][1].suit
        else:
            led = card.suit
        p = 1.0
        for s in self.later_seats():
            # How keen the seat is to win: one still short of its bid surely, one
            # that has made it only when forced, one that has lost it half-heartedly.
            need = self.need(s)
            wants = (
                1.0
                if need is not None and 0 < need <= self.obs.hand_counts[s]
                else 0.15
                if need == 0
                else 0.6
            )
            p *= 1 - self.beat_chance(s, card, led, wants)
        return p


# --- The bots. ---


class _RuleBot:
    """What both rule-based bots share: dispatch, Devil's Bridge, the trump ace."""

    name: str
    memory = False  # remembers the cards played and the voids shown this hand

    def choose(self, obs: Observation, rng: random.Random) -> Action:
        legal = obs.legal_actions
        if len(legal) == 1:
            return legal[0]  # also every Devil's Bridge play: Play(seat, None)
        first = legal[0]
        if isinstance(first, Bid):
            return self._bid(obs, [a.bid for a in legal if isinstance(a, Bid)])
        if isinstance(first, Play):
            table = _Table(obs, self.memory)
            cards = [a.card for a in legal if isinstance(a, Play) and a.card is not None]
            return Play(table.me, self._play(table, cards))
        if isinstance(first, NameTrump):
            return NameTrump(
                first.seat, self._name_trump(obs, [a.suit for a in legal if isinstance(a, NameTrump)])
            )
        if isinstance(first, ChangeBid):
            # Only a driver that asks the seat that may change its bid gets here
            # (play_match never does): move the bid as little as possible.
            current = obs.bids[first.seat] or 0
            changes = [a for a in legal if isinstance(a, ChangeBid)]
            return min(changes, key=lambda a: (abs(a.bid - current), a.bid))
        return rng.choice(legal)  # pragma: no cover - no other action is a player's

    def _bid(self, obs: Observation, bids: list[int]) -> Bid:
        seat = obs.seat or 0
        if obs.devils_bridge:
            chance = _blind_win_chance(obs)
            scores = {b: chance * _score(obs, b, 1) + (1 - chance) * _score(obs, b, 0) for b in bids}
            return Bid(seat, max(bids, key=lambda b: (scores[b], -abs(b - chance))))
        hand = obs.hand
        if len(hand) == 1 and obs.trump is not None and hand[0] == Card(Rank.ACE, obs.trump) and 1 in bids:
            return Bid(seat, 1)  # the ace of trump always takes a one-card hand; only the hook says 0
        return Bid(seat, self._bid_from_hand(obs, _Table(obs, self.memory), bids))

    def _bid_from_hand(self, obs: Observation, table: _Table, bids: list[int]) -> int:
        raise NotImplementedError

    def _name_trump(self, obs: Observation, options: list[Suit | None]) -> Suit | None:
        raise NotImplementedError

    def _play(self, table: _Table, cards: list[Card]) -> Card:
        raise NotImplementedError


class BeginnerBot(_RuleBot):
    """Crude counts for the bid; plays by simple rules with aces as the winners.

    No memory of the cards played (only the current trick and the turned card
    are known), and no attention to what the other players still need.
    """

    def __init__(self, name: str = "beginner") -> None:
        self.name = name

    def _bid_from_hand(self, obs: Observation, table: _Table, bids: list[int]) -> int:
        return _crude_bid(obs, table, bids)

    def _name_trump(self, obs: Observation, options: list[Suit | None]) -> Suit | None:
        # The longest suit (high cards break ties), or no trump when the hand is
        # balanced and full of aces and kings.
        hand = obs.hand
        length = Counter(c.suit for c in hand)
        points = Counter[Suit]()
        for c in hand:
            points[c.suit] += max(0, c.rank - 10)
        balanced = max(length.values(), default=0) - min(length[s] for s in Suit) <= 1
        if balanced and sum(points.values()) >= 2 * len(hand) and None in options:
            return None
        return max(Suit, key=lambda s: (length[s], points[s]))

    def _play(self, table: _Table, cards: list[Card]) -> Card:
        need = table.need(table.me)
        goal = _goal(table.obs, need, len(table.hand), needs_known=False)
        if table.obs.trick:
            return self._follow(table, cards, goal, need or 0, len(table.hand))
        return self._lead(table, cards, goal, need or 0, len(table.hand))

    def _lead(self, table: _Table, cards: list[Card], goal: str, need: int, left: int) -> Card:
        trump = table.trump
        trumps = [c for c in cards if c.suit is trump]
        hold = {c: _crude_hold(table, c) for c in cards}
        if goal == "take":
            if need >= left and trumps:
                return max(trumps, key=lambda c: c.rank)  # every trick is needed: draw trumps
            sure = [c for c in cards if hold[c] >= 0.75]
            if sure:
                # Lead strong cards, side suits first: the top trump is kept for later.
                return max(sure, key=lambda c: (c.suit is not trump, hold[c], -c.rank))
            # No sure winner: give the lead away cheaply, from a short suit when
            # a void could later be ruffed.
            short = Counter(c.suit for c in table.hand)
            ruffing = bool(trumps) and len(trumps) < len(cards)
            side = [c for c in cards if c.suit is not trump] or cards
            return min(side, key=lambda c: (hold[c], short[c.suit] if ruffing else -short[c.suit], c.rank))
        # Duck: the card least likely to win; among equals the higher one (it is
        # the more dangerous to keep), from a short suit to make a void.
        short = Counter(c.suit for c in table.hand)
        return min(cards, key=lambda c: (hold[c], c.suit is trump, short[c.suit], -c.rank))

    def _follow(self, table: _Table, cards: list[Card], goal: str, need: int, left: int) -> Card:
        trump = table.trump
        _, best = winning_play(table.obs.trick, trump)
        winners = [c for c in cards if beats(c, best, trump)]
        losers = [c for c in cards if c not in winners]
        last = len(table.obs.trick) == table.n - 1
        if goal == "take":
            if winners:
                # Win cheaply: the lowest card that wins (a follow before a ruff).
                cheap = sorted(winners, key=lambda c: (c.suit is trump and best.suit is not trump, c.rank))
                if last:
                    return cheap[0]
                for c in cheap:
                    if _crude_hold(table, c) >= 0.6:
                        return c
                strongest = max(cheap, key=lambda c: _crude_hold(table, c))
                if _crude_hold(table, strongest) >= 0.3 or need >= left:
                    return strongest
            # Cannot win: keep the winners, throw the least useful card.
            return min(losers or cards, key=lambda c: (c.suit is trump, _crude_value(table, c), c.rank))
        if losers:
            # Duck with the most dangerous card that still loses: a trump under a
            # higher trump, else the highest card (when void, a likely future winner).
            return max(losers, key=lambda c: (c.suit is trump, _crude_value(table, c), c.rank))
        # Every card wins: win with the most dangerous one.
        return max(winners, key=lambda c: (c.suit is trump, c.rank))


class IntermediateBot(_RuleBot):
    """Bids the best expected score from card chances; remembers the cards,
    voids and needs; weighs each card by the expected score of the hand."""

    memory = True

    def __init__(self, name: str = "intermediate") -> None:
        self.name = name

    def _bid_from_hand(self, obs: Observation, table: _Table, bids: list[int]) -> int:
        """The bid with the best expected score under the rules' scoring.

        The bids already made are not used to shift the estimate: measured,
        every such shift (for all bidders or the dealer alone) lost points,
        because the card chances are fitted to play in which the others bid too.
        The dealer meets the total already bid through the hook, which removes
        one bid; the next best is then the nearest on the side the hand favours.
        """
        k = len(table.hand)
        dists: dict[int, tuple[list[float], bool]]
        if obs.trump_decided:
            dist = self._distribution(table, obs.trump)
            dists = {b: (dist, obs.trump is None) for b in bids}
        else:
            # R-TRUMP-BIDDER: the highest bid names trump (the first of equal bids),
            # so a bid above all earlier ones gets the trump best for it.
            options: list[Suit | None] = [*Suit, None]
            per = {t: self._distribution(table, t) for t in options}
            top = max((b for s, b in enumerate(obs.bids) if s != table.me and b is not None), default=-1)
            average = [sum(per[t][j] for t in Suit) / 4 for j in range(k + 1)]
            dists = {}
            for b in bids:
                if b > top:
                    best = max(options, key=lambda t: _steered(per[t], b, t is None)[b])
                    dists[b] = (per[best], best is None)
                else:
                    dists[b] = (average, False)
        mean = sum(j * x for j, x in enumerate(dists[bids[0]][0]))

        def value(b: int) -> tuple[float, float]:
            dist = _steered(dists[b][0], b, dists[b][1])
            return sum(x * _score(obs, b, t) for t, x in enumerate(dist)), -abs(b - mean)

        return max(bids, key=value)

    def trick_estimate(self, obs: Observation) -> list[float]:
        """The chances of taking 0, 1, ... tricks with this hand, as the bot
        sees them at a bid (before the steering it adds per bid)."""
        return self._distribution(_Table(obs, self.memory), obs.trump)

    def _distribution(self, table: _Table, trump: Suit | None) -> list[float]:
        if len(table.hand) == 1:
            return trick_distribution([_single_card_chance(table, table.hand[0], trump)])
        return trick_distribution(card_chances(table.hand, trump, table.n, table.unseen, _position(table)))

    def _name_trump(self, obs: Observation, options: list[Suit | None]) -> Suit | None:
        # R-TRUMP-BIDDER: the suit (or no trump) with the best expected score for
        # the bid made, doubled without trump where the rules double (R-SC-OKENUFF).
        seat = obs.seat or 0
        bid = obs.bids[seat] or 0
        if obs.devils_bridge:
            chance = {t: _blind_win_chance(obs, t) for t in options}
            return max(options, key=lambda t: chance[t] if bid else 1 - chance[t])
        table = _Table(obs, self.memory)
        length = Counter(c.suit for c in table.hand)
        scores = [_score(obs, bid, t) for t in range(len(table.hand) + 1)]
        expected = {}
        for t in options:
            dist = _steered(self._distribution(table, t), bid, t is None)
            double = 2 if t is None and obs.rules.no_trump_doubles else 1
            expected[t] = double * sum(x * v for x, v in zip(dist, scores, strict=True))
        return max(options, key=lambda t: (round(expected[t], 3), length[t] if t is not None else 0))

    def _play(self, table: _Table, cards: list[Card]) -> Card:
        """The card with the best expected score for this hand: its chance of
        taking this trick, and the chances of the cards kept taking later ones.
        Between cards about as good, the one that hurts an opponent."""
        obs, trump, seat = table.obs, table.trump, table.me
        need, left = table.need(seat), len(table.hand)
        goal = _goal(obs, need, left, needs_known=True)
        if not obs.trick and goal == "take" and (need or 0) >= left > 1:
            trumps = [c for c in cards if c.suit is trump]
            if trumps:  # every trick is needed: draw the opponents' trumps
                return max(trumps, key=lambda c: c.rank)
        bid, taken = obs.bids[seat] or 0, obs.taken[seat]
        scores = [_score(obs, bid, taken + t) for t in range(left + 1)]
        rated: list[tuple[float, Card, float]] = []  # (expected score, card, chance of this trick)
        for card in dict.fromkeys(cards):  # R-DECK-AU: identical cards are one choice
            rest = list(table.hand)
            rest.remove(card)
            now = table.hold_chance(card)
            dist = trick_distribution([now, *card_chances(rest, trump, table.n, table.unseen)])
            rated.append((sum(x * v for x, v in zip(dist, scores, strict=True)), card, now))
        top = max(r[0] for r in rated)
        close = [r for r in rated if r[0] >= top - 0.03 * (max(scores) - min(scores))]
        if obs.trick:
            # Hurt the opponents where it is cheap: take the trick from one who
            # needs it, leave it to one who has made his bid.
            win_seat, _ = winning_play(obs.trick, trump)
            win_need = table.need(win_seat)
            alive = win_need is not None and 0 <= win_need <= len(table.hand)  # its bid can still be made
            if win_seat not in table.teammates and alive:
                pick = max if win_need else min
                aim = pick(r[2] for r in close)
                close = [r for r in close if abs(r[2] - aim) < 0.05]
        elif goal == "set":
            # The bid is lost: lead to win while an opponent still needs tricks.
            hungry = any(0 < (table.need(s) or 0) <= left for s in range(table.n) if s not in table.teammates)
            return (max if hungry else min)(close, key=lambda r: (r[2], r[1].rank))[1]
        top = max(r[0] for r in close)
        best = [r for r in close if r[0] >= top - 1e-9]
        # Between equals: keep high cards while tricks are still wanted, shed them otherwise.
        if goal == "take":
            return min(best, key=lambda r: (r[1].suit is trump, r[1].rank))[1]
        return max(best, key=lambda r: (r[1].suit is trump, r[1].rank))[1]


def _goal(obs: Observation, need: int | None, left: int, needs_known: bool) -> str:
    """What to play for: "take", "duck", or "set" when the bid is lost whatever
    happens and the others can still be hurt."""
    if need is None:
        return "take"
    if 0 < need <= left:
        return "take"
    if need == 0:
        return "duck"
    bid = obs.bids[obs.seat or 0] or 0
    taken = obs.taken[obs.seat or 0]
    more, now = hand_score(obs.rules.scoring, bid, taken + left), hand_score(obs.rules.scoring, bid, taken)
    if more > now:
        return "take"
    if more < now:
        return "duck"
    if needs_known:
        return "set"
    return "take" if need > 0 else "duck"


def _score(obs: Observation, bid: int, tricks: int) -> float:
    return float(hand_score(obs.rules.scoring, bid, tricks))


# How far a player who bid b turns b - 1 or b + 1 tricks into b by his play,
# measured in intermediate self-play: a zero is easy to steer to, and more so in
# long hands; other bids less, and short hands without trump not at all (there a
# negative value says the estimate was too hopeful about the bid chosen).
_STEER: dict[tuple[bool, bool], tuple[float, float, float]] = {
    # (bid is zero, no trump): hand of 2-3, 4-6, 7+ cards
    (True, False): (0.2, 0.4, 0.65),
    (True, True): (0.45, 0.55, 0.7),
    (False, False): (-0.25, 0.2, 0.3),
    (False, True): (-0.4, 0.0, 0.15),
}


def _steered(dist: list[float], bid: int, no_trump: bool) -> list[float]:
    """The trick distribution once play steers towards the bid (see _STEER)."""
    out = list(dist)
    k = len(out) - 1
    if k <= 1 or bid > k:
        return out  # a one-card hand plays itself
    steer = _STEER[bid == 0, no_trump][0 if k <= 3 else 1 if k <= 6 else 2]
    for t in (bid - 1, bid + 1):
        if 0 <= t <= k:
            moved = out[t] * steer if steer >= 0 else out[bid] * steer / 2
            moved = max(moved, -out[bid] / 2)
            out[t] -= moved
            out[bid] += moved
    return out


def _position(table: _Table) -> float:
    """Where this seat plays to the first trick: 0 leads, 1 plays last."""
    return ((table.me - _first_leader(table.obs)) % table.n) / (table.n - 1)


def _single_card_chance(table: _Table, card: Card, trump: Suit | None) -> float:
    """A one-card hand's chance of its trick: play is forced, so only the deal counts.

    A card ``y`` of another seat beats ``card`` when it is of the same suit and
    higher (an identical card, R-DECK-AU, half the time) or a trump over a
    non-trump; unless this seat leads, ``card`` must also beat the card led.
    """
    obs = table.obs
    pool = table.unseen
    total = sum(pool.values())
    beating = 0.0
    beaten = 0  # cards that ``card`` beats when they are led
    for y, m in pool.items():
        if y.suit is card.suit:
            beating += m if y.rank > card.rank else m / 2 if y.rank == card.rank else 0
            beaten += m if y.rank < card.rank else 0
        elif y.suit is trump:
            beating += m
        elif card.suit is trump:
            beaten += m
    leads = _first_leader(obs) == table.me
    others = table.n - 1 if leads else table.n - 2
    chance = 1.0 if leads else beaten / total
    rest = total if leads else total - 1
    for i in range(others):
        chance *= max(0.0, rest - beating - i) / max(1, rest - i)
    return chance


def _blind_win_chance(obs: Observation, trump: Suit | bool | None = False) -> float:
    """R-DEVILS-BRIDGE: the chance that one's unseen card wins the one trick,
    over every card it could be, given the others' cards in sight."""
    n, me = obs.players, obs.seat or 0
    pool = Counter(_pack(obs.rules.deck, n))
    for h in obs.hands:
        if h is not None:
            pool.subtract(h)
    if obs.turned is not None:
        pool[obs.turned] -= 1
    pool = +pool
    if trump is False:
        trumps: list[Suit | None] = [obs.trump] if obs.trump_decided else [*Suit, None]
    else:
        trumps = [trump] if trump is None or isinstance(trump, Suit) else [None]
    lead = _first_leader(obs)
    order = [(lead + i) % n for i in range(n)]
    wins = total = 0.0
    for t in trumps:
        for card, m in pool.items():
            trick = tuple((s, card if s == me else (obs.hands[s] or (card,))[0]) for s in order)
            total += m
            if winning_play(trick, t)[0] == me:
                wins += m
    return wins / total if total else 0.0


# --- The beginner's crude estimates. ---


def _crude_bid(obs: Observation, table: _Table, bids: list[int]) -> int:
    hand = table.hand
    trump = obs.trump
    if not obs.trump_decided:  # R-TRUMP-BIDDER: count the longest suit as trump
        trump = max(Suit, key=lambda s: sum(1 for c in hand if c.suit is s))
    length = Counter(c.suit for c in hand)
    estimate = 0.0
    for c in hand:
        if c.suit is trump:
            estimate += {14: 1.0, 13: 0.8, 12: 0.5}.get(c.rank, 0.3 if length[trump] >= 3 else 0.1)
        elif c.rank == Rank.ACE:
            estimate += 0.8
        elif c.rank == Rank.KING and length[c.suit] >= 2:
            estimate += 0.4
    preferred = round(estimate)
    # R-HOOK: the nearest legal bid, towards the side the estimate leans to.
    up = estimate >= preferred
    return min(bids, key=lambda b: (abs(b - preferred), (b < preferred) if up else (b > preferred)))


def _crude_hold(table: _Table, card: Card) -> float:
    trick = table.obs.trick
    if trick:
        _, best = winning_play(trick, table.trump)
        if not beats(card, best, table.trump):
            return 0.0
        if len(trick) == table.n - 1:
            return 1.0
        led = trick[0][1].suit
        if card.suit is table.trump and led is not table.trump:
            return 0.75
    return _crude_value(table, card)


def _crude_value(table: _Table, card: Card) -> float:
    if card.rank == Rank.ACE:
        return 0.9 if card.suit is table.trump else 0.75
    if card.rank == Rank.KING:
        return 0.5
    return 0.4 if card.suit is table.trump else 0.1
