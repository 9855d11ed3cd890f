"""The match: the game state, legal actions and applying them.

The state is mutable for speed, but ``apply`` checks an action completely
before it changes anything, so an illegal action leaves the state as it was.
Chance is data: ``DrawForDealer`` and ``Deal`` actions are built from an
injected ``random.Random`` by ``chance.chance_action`` outside ``apply``, so replaying
the log needs no randomness. Scores and trick winners are never stored in the
log; they are recomputed as the actions are applied.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from . import hand as plan
from .actions import CHANCE, Action, Bid, ChangeBid, Deal, DrawForDealer, NameTrump, Play
from .cards import ALL_CARDS, Card, Suit
from .hand import MAX_EXTRA_HANDS, left_of, trick_winner
from .rules import Bidding, Deck, Rules, TieBreak, TrumpMode
from .scoring import score_hand

MAX_BID_CHANGES: Final = 2
"""R-BID-CHANGE: how often a player may change a bid before the next player
bids (enough to correct a slip and to take the correction back)."""
_DRAW_ROUNDS: Final = 64  # R-DEALER-DRAW: rounds of redraws a bound allows for


def most_actions(rules: Rules) -> int:
    """The most actions a match under ``rules`` can have (redraws for dealer
    allowed for generously): a record longer than this was not played."""
    n = rules.players
    hands = len(rules.schedule) + (MAX_EXTRA_HANDS if rules.tie_break is TieBreak.EXTRA_HANDS else 0)
    per_hand = 1 + n * (1 + MAX_BID_CHANGES) + 1 + n * max(rules.schedule)  # deal, bids, trump, plays
    return _DRAW_ROUNDS + hands * per_hand


class IllegalActionError(ValueError):
    """An action the rules do not allow now; nothing was changed.

    ``str(err)`` is a plain sentence; the fields let each front end word it
    for its reader: ``seat`` and ``action`` (when known), ``rule`` (the rule
    point's id in RULES.md, for docs and tests, never shown to a player) and
    ``reason``, a short code ("turn": not this seat's turn; "illegal": the
    rules forbid it; "blind", "no-change", "player", "form": see match.py).
    """

    def __init__(
        self,
        message: str,
        *,
        seat: int | None = None,
        action: object = None,
        rule: str | None = None,
        reason: str = "illegal",
    ) -> None:
        super().__init__(message)
        self.seat = seat
        self.action = action
        self.rule = rule
        self.reason = reason

    def about(self, action: object) -> IllegalActionError:
        """Fill in the action and its seat if the check that raised did not."""
        if self.action is None:
            self.action = action
        if self.seat is None:
            seat = getattr(action, "seat", None)
            self.seat = seat if type(seat) is int else None
        return self


class Phase(StrEnum):
    DRAW = "draw"  # R-DEALER-DRAW: drawing cards for the first dealer
    DEAL = "deal"  # waiting for the shuffle and deal
    BID = "bid"
    TRUMP = "trump"  # R-TRUMP-BIDDER: the highest bidder names trump
    PLAY = "play"
    OVER = "over"  # the match has ended


# The members the hot paths compare against, as module globals: reading a
# member off an Enum class goes through the Enum metaclass's attribute hook
# and costs several times a global read, and these comparisons run a few
# times for every action.
_DRAW: Final = Phase.DRAW
_DEAL: Final = Phase.DEAL
_BID: Final = Phase.BID
_TRUMP: Final = Phase.TRUMP
_PLAY: Final = Phase.PLAY
_OVER: Final = Phase.OVER
_SEQUENTIAL: Final = Bidding.SEQUENTIAL
_SIMULTANEOUS: Final = Bidding.SIMULTANEOUS
_AUSTRALIAN: Final = Deck.AUSTRALIAN
_STANDARD: Final = Deck.STANDARD
_TURN: Final = TrumpMode.TURN
_SEQUENCES: Final = (tuple, list)

# Interned player actions, so legal_actions builds no objects in the hot path.
_PLAYS: Final = tuple(tuple(Play(s, c) for c in ALL_CARDS) for s in range(7))
_BLIND_PLAYS: Final = tuple(Play(s, None) for s in range(7))
_BIDS: Final = tuple(tuple(Bid(s, b) for b in range(27)) for s in range(7))
_CHANGES: Final = tuple(tuple(ChangeBid(s, b) for b in range(27)) for s in range(7))
_NAMES: Final = tuple(tuple(NameTrump(s, t) for t in (*Suit, None)) for s in range(7))


@dataclass(frozen=True, slots=True)
class Trick:
    """A finished trick: who led, the cards in playing order, who won."""

    leader: int
    cards: tuple[Card, ...]
    winner: int

    def seat_of(self, i: int, players: int) -> int:
        return (self.leader + i) % players


@dataclass(frozen=True, slots=True)
class HandResult:
    """One finished hand, recomputed from the actions."""

    number: int  # 1-based
    dealer: int
    size: int
    trump: Suit | None
    turned: Card | None
    bids: tuple[int, ...]
    tricks: tuple[int, ...]
    scores: tuple[int, ...]
    trump_namer: int | None
    extra: bool  # R-TIE-EXTRA: played to break a tie

    @property
    def exact(self) -> tuple[bool, ...]:
        return tuple(b == t for b, t in zip(self.bids, self.tricks, strict=True))


class GameState:
    """Everything about a match in progress. Read it; change it only with ``apply``."""

    __slots__ = (
        "bid_count",
        "bids",
        "change_seat",
        "changes_made",
        "contenders",
        "dealer",
        "draws",
        "exact",
        "hand_log_start",
        "hand_number",
        "hand_size",
        "hands",
        "leader",
        "log",
        "phase",
        "players",
        "results",
        "rules",
        "taken",
        "to_act",
        "totals",
        "trick",
        "tricks",
        "trump",
        "trump_namer",
        "turned",
    )

    rules: Rules
    players: int
    phase: Phase
    hand_number: int  # 0-based index of the current hand
    hand_size: int
    dealer: int
    contenders: tuple[int, ...]  # R-DEALER-DRAW: seats still drawing
    draws: list[DrawForDealer]
    hands: list[list[Card]]
    turned: Card | None
    trump: Suit | None
    bids: list[int | None]
    bid_count: int
    to_act: int  # the seat to bid, name trump or play; CHANCE otherwise
    change_seat: int | None  # R-BID-CHANGE: the seat that may still change its bid
    changes_made: int  # R-BID-CHANGE: how often change_seat has changed its bid
    trump_namer: int | None
    leader: int  # the seat that led the current trick
    trick: list[Card]  # the current trick, in playing order from the leader
    tricks: list[Trick]  # finished tricks of this hand
    taken: list[int]  # tricks taken this hand
    results: list[HandResult]
    totals: list[int]
    exact: list[int]  # exact bids so far (R-TIE-EXACT)
    log: list[Action]
    hand_log_start: int  # index in log of this hand's Deal

    def __init__(self, rules: Rules) -> None:
        n = rules.players
        self.rules = rules
        self.players = n
        self.hand_number = 0
        self.hand_size = rules.schedule[0]
        self.contenders = tuple(range(n))
        self.draws = []
        self.hands = [[] for _ in range(n)]
        self.turned = None
        self.trump = None
        self.bids = [None] * n
        self.bid_count = 0
        self.to_act = CHANCE
        self.change_seat = None
        self.changes_made = 0
        self.trump_namer = None
        self.leader = 0
        self.trick = []
        self.tricks = []
        self.taken = [0] * n
        self.results = []
        self.totals = [0] * n
        self.exact = [0] * n
        self.log = []
        self.hand_log_start = 0
        if rules.first_dealer is None:
            self.phase = _DRAW
            self.dealer = 0
        else:
            self.phase = _DEAL
            self.dealer = rules.first_dealer

    def clone(self) -> GameState:
        """An independent copy (for search and what-if play)."""
        other = GameState.__new__(GameState)
        for name in GameState.__slots__:
            setattr(other, name, getattr(self, name))
        other.draws = list(self.draws)
        other.hands = [list(h) for h in self.hands]
        other.bids = list(self.bids)
        other.trick = list(self.trick)
        other.tricks = list(self.tricks)
        other.taken = list(self.taken)
        other.results = list(self.results)
        other.totals = list(self.totals)
        other.exact = list(self.exact)
        other.log = list(self.log)
        return other

    @property
    def is_over(self) -> bool:
        return self.phase is _OVER

    @property
    def is_chance(self) -> bool:
        """Is the next action chance's (a draw or a deal)?"""
        phase = self.phase
        return phase is _DRAW or phase is _DEAL

    @property
    def is_devils_bridge(self) -> bool:
        """R-DEVILS-BRIDGE: is the current hand played with cards on foreheads?"""
        return self.rules.is_devils_bridge_hand(self.hand_size)

    @property
    def first_bidder(self) -> int:
        return plan.first_bidder(self.dealer, self.players)

    @property
    def is_extra_hand(self) -> bool:
        return plan.is_extra_hand(self.rules, self.hand_number)

    @property
    def bidding_done(self) -> bool:
        return self.bid_count == self.players

    def __repr__(self) -> str:
        return (
            f"<GameState hand {self.hand_number + 1} ({self.hand_size} cards) phase={self.phase} "
            f"dealer={self.dealer} to_act={self.to_act} totals={self.totals}>"
        )


def new_game(rules: Rules) -> GameState:
    """A match at its start: the draw for dealer, or the first deal."""
    return GameState(rules)


# --- Who may act, and what they may do. ---


def actors(state: GameState) -> tuple[int, ...]:
    """The seats that may act now. Several under simultaneous bidding or while
    a bid may still be changed; none while chance acts or after the end."""
    phase = state.phase
    if phase is _PLAY or phase is _TRUMP:
        return (state.to_act,)
    if phase is _BID:
        if state.rules.bidding is _SIMULTANEOUS:
            return tuple(s for s, b in enumerate(state.bids) if b is None)
        if state.change_seat is not None:
            return (state.to_act, state.change_seat)
        return (state.to_act,)
    return ()


def seats_to_ask(state: GameState) -> tuple[int, ...]:
    """Whose turn it is: the seats asked for an action now, in seat order.

    This is the one place that decides it, for every front end, bot driver and
    page. It is ``actors`` without the seat that could still change its bid
    (R-BID-CHANGE is a right, not a turn: nobody waits to be asked about it).
    Under simultaneous bidding every seat that has not bid is asked.
    """
    phase = state.phase
    if phase is _PLAY or phase is _TRUMP or (phase is _BID and state.rules.bidding is _SEQUENTIAL):
        return (state.to_act,)
    return tuple(sorted(actors(state)))


def forbidden_bid(state: GameState, seat: int) -> int | None:
    """R-HOOK: the bid the hook forbids ``seat`` now, if any."""
    if state.bids[seat] is not None:
        return None
    return plan.hook(state.rules, state.hand_size, state.bids)


def legal_actions(state: GameState, seat: int) -> list[Action]:
    """Every action ``seat`` may take now (empty if it may not act)."""
    phase = state.phase
    if phase is _PLAY:
        # The seat to play is always a seat at the table, so comparing with it
        # is the range check too.
        if type(seat) is not int or seat != state.to_act:
            return []
        rules = state.rules
        if rules.devils_bridge and state.hand_size == 1:
            return [_BLIND_PLAYS[seat]]  # R-DEVILS-BRIDGE: the card is played unseen
        hand = state.hands[seat]
        plays = _PLAYS[seat]
        trick = state.trick
        result: list[Action]
        if trick:
            led = trick[0].suit
            result = [plays[c.index] for c in hand if c.suit is led]
            if not result:  # R-FOLLOW: void in the suit led, so any card
                result = [plays[c.index] for c in hand]
        else:
            result = [plays[c.index] for c in hand]
        return _unique(result) if rules.deck is _AUSTRALIAN else result
    if type(seat) is not int or not 0 <= seat < state.players:
        return []
    if phase is _BID:
        size = state.hand_size
        if state.rules.bidding is _SIMULTANEOUS:
            if state.bids[seat] is not None:
                return []
            return list(_BIDS[seat][: size + 1])
        if seat == state.to_act:
            hook = forbidden_bid(state, seat)
            if hook is None:
                return list(_BIDS[seat][: size + 1])
            return [b for b in _BIDS[seat][: size + 1] if b.bid != hook]
        if seat == state.change_seat:
            current = state.bids[seat]
            return [c for c in _CHANGES[seat][: size + 1] if c.bid != current]
        return []
    if phase is _TRUMP:
        return list(_NAMES[seat]) if seat == state.to_act else []
    return []


def _unique(actions: list[Action]) -> list[Action]:
    # R-DECK-AU: two identical cards in a hand are one choice.
    return list(dict.fromkeys(actions))


def check(state: GameState, action: Action) -> None:
    """Raise ``IllegalActionError`` naming the rule if ``action`` is not legal now."""
    checker = _CHECKS.get(type(action))
    if checker is None:
        raise IllegalActionError(f"{action!r} is not an Oh Hell action", reason="form")
    try:
        checker(state, action)
    except IllegalActionError as err:
        raise err.about(action) from None


def is_legal(state: GameState, action: Action) -> bool:
    try:
        check(state, action)
    except IllegalActionError:
        return False
    return True


def apply(state: GameState, action: Action) -> None:
    """Check ``action`` and, if legal, play it; otherwise raise and change nothing."""
    kind = type(action)
    if kind is Play:  # most actions are plays: no table lookups for them
        try:
            at = _check_play(state, action)  # type: ignore[arg-type]
        except IllegalActionError as err:
            raise err.about(action) from None
        _do_play(state, action, at)  # type: ignore[arg-type]
        return
    checker = _CHECKS.get(kind)
    if checker is None:
        raise IllegalActionError(f"{action!r} is not an Oh Hell action", reason="form")
    try:
        checker(state, action)
    except IllegalActionError as err:
        raise err.about(action) from None
    _DOS[kind](state, action)


# --- Checks: raise before anything changes. ---


def _check_seat(state: GameState, seat: object) -> None:
    if type(seat) is not int or not 0 <= seat < state.players:
        raise IllegalActionError(
            f"there is no seat {seat!r} at a {state.players}-player table", reason="form"
        )


def _check_draw(state: GameState, action: DrawForDealer) -> None:
    if state.phase is not _DRAW:
        raise IllegalActionError(f"no draw for dealer now: the phase is {state.phase}")
    cards = action.cards
    if not isinstance(cards, _SEQUENCES) or len(cards) != state.players:
        raise IllegalActionError(f"a draw names one card or none for each of {state.players} seats")
    drawn = [c for c in cards if c is not None]
    for seat, card in enumerate(cards):
        if (card is not None) != (seat in state.contenders):
            who = "draws" if seat in state.contenders else "is not drawing"
            raise IllegalActionError(f"seat {seat} {who} in this round", rule="R-DEALER-DRAW")
        if card is not None and not isinstance(card, Card):
            raise IllegalActionError(f"seat {seat} drew {card!r}, which is not a card")
    if len(set(drawn)) != len(drawn):
        raise IllegalActionError("the same card was drawn twice from one pack", rule="R-DEALER-DRAW")


def _check_deal(state: GameState, action: Deal) -> None:
    if state.phase is not _DEAL:
        raise IllegalActionError(f"no deal now: the phase is {state.phase}")
    n, size = state.players, state.hand_size
    hands = action.hands
    if not isinstance(hands, _SEQUENCES):
        raise IllegalActionError("a deal gives each seat a sequence of cards")
    for hand in hands:
        if not isinstance(hand, _SEQUENCES):
            raise IllegalActionError("a deal gives each seat a sequence of cards")
    if len(hands) != n:
        raise IllegalActionError(f"a deal gives {n} hands, not {len(hands)}")
    used: list[Card] = []
    for seat, hand in enumerate(hands):
        if len(hand) != size:
            raise IllegalActionError(
                f"hand {state.hand_number + 1} is {size} cards each, but seat {seat} got {len(hand)}"
            )
        for card in hand:
            if not isinstance(card, Card):
                raise IllegalActionError(f"seat {seat} was dealt {card!r}, which is not a card")
        used.extend(hand)
    turned = action.turned
    every_card = plan.all_dealt(state.rules, size)
    if state.rules.trump is _TURN and not every_card:
        if not isinstance(turned, Card):
            raise IllegalActionError("after the deal the next card is turned for trump", rule="R-TRUMP-TURN")
        used.append(turned)
    elif turned is not None:
        why = "every card is dealt" if every_card else "trump is not turned"
        rule = "R-TRUMP-NONE-ALL-DEALT" if every_card else None
        raise IllegalActionError(f"no card is turned: {why}", rule=rule)
    if state.rules.deck is _STANDARD:
        if len(set(used)) == len(used):  # 52 distinct values: no card twice is enough
            return
        pack = Counter(ALL_CARDS)
    else:
        pack = Counter(state.rules.pack())
    for card, count in Counter(used).items():
        if count > pack[card]:
            raise IllegalActionError(f"{card} is dealt {count} times but the pack has {pack[card]}")


def _check_bid(state: GameState, action: Bid) -> None:
    if state.phase is not _BID:
        raise IllegalActionError(f"no bidding now: the phase is {state.phase}")
    seat, bid = action.seat, action.bid
    _check_seat(state, seat)
    if state.rules.bidding is _SIMULTANEOUS:
        if state.bids[seat] is not None:
            raise IllegalActionError(f"seat {seat} has already bid", rule="R-BID-SIMULTANEOUS")
    elif seat != state.to_act:
        raise IllegalActionError(
            f"it is seat {state.to_act}'s turn to bid, not seat {seat}'s", rule="R-BID-ORDER", reason="turn"
        )
    _check_bid_range(state, seat, bid)
    hook = forbidden_bid(state, seat)
    if bid == hook:
        raise IllegalActionError(
            f"the hook forbids seat {seat} to bid {bid}: the bids would total the {_tricks(state.hand_size)}",
            rule="R-HOOK",
        )


def _tricks(count: int) -> str:
    return "1 trick" if count == 1 else f"{count} tricks"


def _check_bid_range(state: GameState, seat: int, bid: object) -> None:
    if type(bid) is not int or not 0 <= bid <= state.hand_size:
        raise IllegalActionError(
            f"seat {seat} bid {bid!r}, but a bid is a number of tricks from 0 to {state.hand_size}",
            rule="R-BID-RANGE",
        )


def _check_change(state: GameState, action: ChangeBid) -> None:
    if state.phase is not _BID:
        raise IllegalActionError(f"no bidding now: the phase is {state.phase}")
    seat = action.seat
    _check_seat(state, seat)
    if not state.rules.bid_changes:
        raise IllegalActionError("these rules do not allow a bid to be changed", rule="R-BID-CHANGE")
    if seat != state.change_seat:
        raise IllegalActionError(
            f"seat {seat} may not change its bid: a bid may be changed only until "
            f"the next player has bid, and at most {MAX_BID_CHANGES} times",
            rule="R-BID-CHANGE",
        )
    _check_bid_range(state, seat, action.bid)
    if action.bid == state.bids[seat]:
        raise IllegalActionError(
            f"seat {seat} has bid {action.bid} already: a change needs a new bid", rule="R-BID-CHANGE"
        )


def _check_name(state: GameState, action: NameTrump) -> None:
    if state.phase is not _TRUMP:
        raise IllegalActionError(f"no trump to name now: the phase is {state.phase}")
    _check_seat(state, action.seat)
    if action.seat != state.to_act:
        raise IllegalActionError(
            f"seat {state.to_act}, the highest bidder, names trump, not seat {action.seat}",
            rule="R-TRUMP-BIDDER",
            reason="turn",
        )
    if action.suit is not None and not isinstance(action.suit, Suit):
        raise IllegalActionError(f"{action.suit!r} is not a suit or no trump", reason="form")


def _check_play(state: GameState, action: Play) -> int:
    """Check a play; return where its card is in the seat's hand (for ``_do_play``)."""
    if state.phase is not _PLAY:
        raise IllegalActionError(f"no card may be played now: the phase is {state.phase}")
    seat = action.seat
    if type(seat) is not int or seat != state.to_act:
        _check_seat(state, seat)
        raise IllegalActionError(
            f"it is seat {state.to_act}'s turn to play, not seat {seat}'s", reason="turn"
        )
    hand = state.hands[seat]
    card = action.card
    if card is None:
        if not state.is_devils_bridge:
            raise IllegalActionError("a card must be named, except on a Devil's Bridge hand")
        return 0  # R-DEVILS-BRIDGE: the seat's one card, unseen
    # Every card value is one object, so a held card is that very object. The
    # search is by identity: ``card in hand`` would compare with ``==``, which
    # goes through Card's Python-level comparisons for every other card and
    # costs several times as much.
    at = 0
    for held in hand:
        if held is card:
            break
        at += 1
    else:
        raise IllegalActionError(f"seat {seat} does not hold {card}")
    trick = state.trick
    if trick:
        led = trick[0].suit
        if card.suit is not led:
            for held in hand:
                if held.suit is led:
                    raise IllegalActionError(f"seat {seat} must follow {led.name.lower()}", rule="R-FOLLOW")
    return at


# --- Doing: only after the check has passed. ---


def _do_draw(state: GameState, action: DrawForDealer) -> None:
    state.log.append(action)
    state.draws.append(action)
    top = max(c.rank for c in action.cards if c is not None)
    best = tuple(s for s, c in enumerate(action.cards) if c is not None and c.rank == top)
    if len(best) == 1:  # R-DEALER-DRAW: highest card deals
        state.dealer = best[0]
        state.phase = _DEAL
    state.contenders = best  # ties redraw


def _do_deal(state: GameState, action: Deal) -> None:
    rules = state.rules
    state.hand_log_start = len(state.log)
    state.log.append(action)
    state.hands = [list(h) for h in action.hands]
    state.turned = action.turned
    if rules.trump is _TURN and action.turned is not None:
        state.trump = action.turned.suit  # R-TRUMP-TURN
    else:
        # Fixed by the rules, none (R-TRUMP-NONE-ALL-DEALT), or named later (R-TRUMP-BIDDER).
        state.trump = plan.set_trump(rules, state.hand_number, state.hand_size)[1]
    n = state.players
    state.bids = [None] * n
    state.bid_count = 0
    state.change_seat = None
    state.trump_namer = None
    state.taken = [0] * n
    state.trick = []
    state.tricks = []
    state.phase = _BID
    state.to_act = state.first_bidder
    state.leader = _first_leader(state)  # known from the deal on, so observations show it


def _first_leader(state: GameState) -> int:
    return plan.first_leader(state.rules, state.dealer)


def _do_bid(state: GameState, action: Bid) -> None:
    state.log.append(action)
    seat = action.seat
    state.bids[seat] = action.bid
    state.bid_count += 1
    if state.rules.bidding is _SIMULTANEOUS:
        if state.bid_count == state.players:
            _end_bidding(state)  # R-BID-SIMULTANEOUS: all revealed together
        return
    if state.bid_count == state.players:
        state.change_seat = None  # the dealer's left has bid already: no change
        _end_bidding(state)
        return
    state.change_seat = seat if state.rules.bid_changes else None  # R-BID-CHANGE
    state.changes_made = 0
    state.to_act = plan.left_of(seat, state.players)


def _do_change(state: GameState, action: ChangeBid) -> None:
    state.log.append(action)
    state.bids[action.seat] = action.bid
    state.changes_made += 1
    if state.changes_made >= MAX_BID_CHANGES:
        # R-BID-CHANGE allows correcting a bid, not an endless back and forth
        # that holds up the next bidder (and grows the record without end).
        state.change_seat = None


def _end_bidding(state: GameState) -> None:
    namer = plan.trump_namer(state.rules, state.dealer, state.bids)
    if namer is not None:
        state.trump_namer = namer
        state.phase = _TRUMP
        state.to_act = namer
    else:
        _start_play(state)


def _start_play(state: GameState) -> None:
    state.phase = _PLAY
    state.leader = state.to_act = _first_leader(state)


def _do_name(state: GameState, action: NameTrump) -> None:
    state.log.append(action)
    state.trump = action.suit
    _start_play(state)


def _do_play(state: GameState, action: Play, at: int) -> None:
    """Play the card at place ``at`` of the seat's hand (found by the check)."""
    seat = action.seat
    card = state.hands[seat].pop(at)
    if action.card is None:  # R-DEVILS-BRIDGE: the unseen card; the log keeps the real one
        action = _PLAYS[seat][card.index]
    state.log.append(action)
    trick = state.trick
    trick.append(card)
    n = state.players
    if len(trick) < n:
        state.to_act = left_of(seat, n)
        return
    leader = state.leader
    winner = (leader + trick_winner(trick, state.trump)) % n
    tricks = state.tricks
    tricks.append(Trick(leader, tuple(trick), winner))
    state.taken[winner] += 1
    state.trick = []
    state.leader = winner
    state.to_act = winner
    if len(tricks) == state.hand_size:
        _end_hand(state)


def _end_hand(state: GameState) -> None:
    rules = state.rules
    bids = tuple(b for b in state.bids if b is not None)
    scores = score_hand(
        rules,
        bids,
        state.taken,
        first_bidder=state.first_bidder,
        trump_namer=state.trump_namer,
        no_trump=state.trump is None,
    )
    result = HandResult(
        number=state.hand_number + 1,
        dealer=state.dealer,
        size=state.hand_size,
        trump=state.trump,
        turned=state.turned,
        bids=bids,
        tricks=tuple(state.taken),
        scores=scores,
        trump_namer=state.trump_namer,
        extra=state.is_extra_hand,
    )
    state.results.append(result)
    for s in range(state.players):
        state.totals[s] += scores[s]
        if bids[s] == state.taken[s]:
            state.exact[s] += 1
    state.hand_number += 1
    state.to_act = CHANCE
    state.dealer = plan.left_of(state.dealer, state.players)  # R-DEALER-ROTATE
    if plan.hand_follows(rules, state.hand_number, state.totals):
        state.hand_size = plan.hand_size(rules, state.hand_number)
        state.phase = _DEAL
    else:
        state.phase = _OVER


_CHECKS: Final[dict[type, Callable[[GameState, object], object]]] = {
    Play: _check_play,  # type: ignore[dict-item]
    Bid: _check_bid,  # type: ignore[dict-item]
    ChangeBid: _check_change,  # type: ignore[dict-item]
    NameTrump: _check_name,  # type: ignore[dict-item]
    Deal: _check_deal,  # type: ignore[dict-item]
    DrawForDealer: _check_draw,  # type: ignore[dict-item]
}
# Plays are not here: ``apply`` hands ``_do_play`` the place its check found.
_DOS: Final[dict[type, Callable[[GameState, object], None]]] = {
    Bid: _do_bid,  # type: ignore[dict-item]
    ChangeBid: _do_change,  # type: ignore[dict-item]
    NameTrump: _do_name,  # type: ignore[dict-item]
    Deal: _do_deal,  # type: ignore[dict-item]
    DrawForDealer: _do_draw,  # type: ignore[dict-item]
}
