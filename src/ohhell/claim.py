"""Claims: a player says how many of the remaining tricks they will take.

During the play a player may claim all, none, or a number of the tricks
still to be played in the hand (the trick under way counts as one of them).
Claiming none matters most in this game: a player who has made their bid and
can duck every card that is left need not play the rest out.

The referee, who sees every hand, decides whether a claim is **certain**: the
claimer has a way to play their cards that takes exactly that many tricks
whatever the others play (``claim_holds``, a search of every play to the end
of the hand). That way may depend on where the hidden cards lie, so a
referee that plays the claimer's cards where others watch (the web server)
uses a stricter test, ``line_holds``: the claimer's *line* (``claimer_play``)
takes exactly that many tricks whatever the others play. The line picks each
of the claimer's cards from what the claimer sees (their own hand, the trick
so far, trump, the tricks still needed), never from the others' hands, so
the card played for them tells nobody where the hidden cards lie. It takes
the tricks still needed first (the strongest card that wins the trick so
far, else the weakest), then ducks (the strongest card that does not win it,
else the weakest). A claim that is not certain may still be **agreed** by all the
others. Then:

- a certain claim of every remaining trick, or an agreed claim, settles the
  hand at once: the rest is played out by ``settling_play`` so that the
  claim comes true (for an agreed claim the others' cards are played that
  way too: agreeing gives them up);
- a certain claim of fewer tricks hands the claimer's cards to the referee,
  which plays them (``settling_play``, with ``line`` by the line) so the
  claim comes true whatever the others do; the others play on.

Either way every card is still a legal ``Play`` in the log, so a record with
claims replays like any other; the record keeps each claim as a line of its
own and checks on replay that it came true (``check_claims``).

Seat 0 holds the two top spades and leads: it takes both tricks, whatever
happens; seat 1, with the two lowest hearts, takes none.

>>> from ohhell import Bid, Card, Deal, apply, make_rules, new_game, parse_cards
>>> rules = make_rules("pagat", {"players": "3", "hand-sizes": "2", "first-dealer": "2", "hook": "no"})
>>> state = new_game(rules)
>>> hands = tuple(tuple(parse_cards(h)) for h in ("AS KS", "2H 3H", "4H 5H"))
>>> apply(state, Deal(hands, Card.parse("2C")))
>>> for seat, bid in ((0, 2), (1, 0), (2, 0)):
...     apply(state, Bid(seat, bid))
>>> claim_holds(state, 0, 2), claim_holds(state, 0, 1), claim_holds(state, 1, 0)
(True, False, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from .actions import Play
from .cards import Card, Suit
from .game import GameState, IllegalActionError, Phase
from .hand import playable, trick_winner
from .view import Observation, observe

SEARCH_BUDGET: Final = 40_000
"""Positions ``claim_holds`` looks at before it gives up (the claim is then
not known to be certain, and the others are asked): a hand with many cards
left can have more plays than a server should search while people wait."""


@dataclass(frozen=True, slots=True)
class Claim:
    """``seat`` claims exactly ``tricks`` of the tricks left in the hand, from
    the log's ``at``-th action on (``len(state.log)`` when it was made)."""

    seat: int
    tricks: int
    at: int


class _OutOfBudget(Exception):
    pass


def tricks_left(state: GameState) -> int:
    """Tricks still to be played in the hand, the one under way included."""
    return state.hand_size - len(state.tricks)


def check_claim(state: GameState, seat: int, tricks: int) -> None:
    """Raise ``IllegalActionError`` if ``seat`` may not claim ``tricks`` now."""
    if state.phase is not Phase.PLAY:
        raise IllegalActionError("a claim is made while the cards are played", seat=seat, reason="claim")
    if type(seat) is not int or not 0 <= seat < state.players:
        raise IllegalActionError(f"there is no seat {seat!r}", reason="claim")
    if state.is_devils_bridge:
        raise IllegalActionError(
            "a hand you cannot see cannot be claimed", seat=seat, rule="R-DEVILS-BRIDGE", reason="claim"
        )
    left = tricks_left(state)
    if type(tricks) is not int or not 0 <= tricks <= left:
        raise IllegalActionError(
            f"a claim is for 0 to {left} of the tricks left, not {tricks!r}", seat=seat, reason="claim"
        )


def claim_holds(state: GameState, seat: int, tricks: int, *, budget: int = SEARCH_BUDGET) -> bool | None:
    """Can ``seat`` take exactly ``tricks`` more tricks this hand whatever the
    others play? True or False; None when the search ran past ``budget``
    positions (not known: treat as not certain)."""
    check_claim(state, seat, tricks)
    search = _Search(state, seat, budget)
    try:
        return search.forced(_position(state), tricks)
    except _OutOfBudget:
        return None


def line_holds(state: GameState, seat: int, tricks: int, *, budget: int = SEARCH_BUDGET) -> bool | None:
    """Does ``seat``'s line (``claimer_play``) take exactly ``tricks`` more
    tricks this hand whatever the others play? (The referee's test of a
    certain claim; None when the search ran past ``budget`` positions.)"""
    check_claim(state, seat, tricks)
    search = _Search(state, seat, budget, line=True)
    try:
        return search.forced(_position(state), tricks)
    except _OutOfBudget:
        return None


def claim_possible(state: GameState, seat: int, tricks: int, *, budget: int = SEARCH_BUDGET) -> bool | None:
    """Can the hand end with ``seat`` taking exactly ``tricks`` more, every
    seat playing to that end? (An agreed claim must be; None: not known.)"""
    check_claim(state, seat, tricks)
    search = _Search(state, seat, budget)
    try:
        return search.possible(_position(state), tricks)
    except _OutOfBudget:
        return None


def claimer_play(obs: Observation, need: int) -> Play:
    """The claimer's card by their line (module docstring), from their own
    observation ``obs`` and the tricks ``need``-ed still: the server plays
    it for a standing claim, and the same view always gives the same card."""
    if obs.seat is None or obs.hands[obs.seat] is None:
        raise ValueError("the claimer's line is played from the claimer's own view")
    trick = tuple(card for _, card in obs.trick)
    return Play(obs.seat, _line(obs.hand, trick, obs.trump, need))


def _line(hand: Sequence[Card], trick: tuple[Card, ...], trump: Suit | None, need: int) -> Card:
    """The claimer's line: take the tricks still needed first, then duck."""
    cards = playable(hand, trick[0].suit if trick else None)

    def strength(card: Card) -> tuple[bool, int]:
        return card.suit is trump, card.rank

    def wins(card: Card) -> bool:  # beats the cards played to the trick so far
        return bool(trick) and trick_winner((*trick, card), trump) == len(trick)

    if need > 0:
        winning = [c for c in cards if wins(c)]
        if not trick:
            return max(cards, key=strength)  # lead the strongest card
        return max(winning, key=strength) if winning else min(cards, key=strength)
    losing = [c for c in cards if not wins(c)] if trick else []
    return max(losing, key=strength) if losing else min(cards, key=strength)


def settling_play(state: GameState, claim: Claim, *, agreed: bool = False, line: bool = False) -> Play:
    """The card the seat to play puts down so that ``claim`` comes true.

    The claimer plays a card that keeps the claim certain (``claim_holds``),
    or with ``line`` their line (``claimer_play``, from their own view only:
    for a claim ``line_holds`` made certain); with ``agreed`` (or if no card
    keeps it certain) every seat plays a card that keeps it possible, the
    first such card in hand order, so the same position always settles the
    same way."""
    seat = state.to_act
    need = claim.tricks - _taken_since(state, claim)
    if seat == claim.seat and not agreed and line:
        return claimer_play(observe(state, seat), need)
    search = _Search(state, claim.seat, SEARCH_BUDGET)
    pos = _position(state)
    cards = playable(state.hands[seat], state.trick[0].suit if state.trick else None)
    if seat == claim.seat and not agreed:
        for card in cards:
            try:
                if search.forced(*_after(pos, card, state, claim.seat, need)):
                    return Play(seat, card)
            except _OutOfBudget:
                break
    for card in cards:
        search.budget = SEARCH_BUDGET
        try:
            if search.possible(*_after(pos, card, state, claim.seat, need)):
                return Play(seat, card)
        except _OutOfBudget:
            break
    return Play(seat, cards[0])  # out of reach or past the budget: any legal card


def _taken_since(state: GameState, claim: Claim) -> int:
    """Tricks the claimer has taken since the claim (in this hand)."""
    start = claim.at
    log = state.log
    # Tricks end every n plays from the hand's first lead: count the tricks
    # finished after the claim by their number.
    plays_before = sum(1 for a in log[state.hand_log_start : start] if isinstance(a, Play))
    done_before = plays_before // state.players
    return sum(1 for t in state.tricks[done_before:] if t.winner == claim.seat)


# --- The search: the hand's cards as tuples, no game state copied. ---

# A position: each seat's hand (a tuple of cards), the cards of the trick
# under way, the seat that led it.
_Position = tuple[tuple[tuple[Card, ...], ...], tuple[Card, ...], int]


def _position(state: GameState) -> _Position:
    return tuple(tuple(h) for h in state.hands), tuple(state.trick), state.leader


def _after(pos: _Position, card: Card, state: GameState, claimer: int, need: int) -> tuple[_Position, int]:
    """The position after the seat to play puts down ``card``, and the tricks
    the claimer still needs then."""
    hands, trick, leader = pos
    n = len(hands)
    seat = (leader + len(trick)) % n
    held = list(hands[seat])
    held.remove(card)
    new_hands = (*hands[:seat], tuple(held), *hands[seat + 1 :])
    played = (*trick, card)
    if len(played) < n:
        return (new_hands, played, leader), need
    winner = (leader + trick_winner(played, state.trump)) % n
    return (new_hands, (), winner), need - (winner == claimer)


class _Search:
    """Exhaustive play to the end of the hand, memoised, within a budget."""

    def __init__(self, state: GameState, claimer: int, budget: int, *, line: bool = False) -> None:
        self.state = state
        self.claimer = claimer
        self.budget = budget
        self.line = line  # the claimer plays their line (one card), not any card
        self.memo: dict[tuple[str, _Position, int], bool] = {}

    def _moves(self, pos: _Position) -> tuple[int, list[Card]]:
        hands, trick, leader = pos
        seat = (leader + len(trick)) % len(hands)
        cards = playable(hands[seat], trick[0].suit if trick else None)
        return seat, list(dict.fromkeys(cards))  # R-DECK-AU: identical cards are one choice

    def _left(self, pos: _Position) -> int:
        hands, trick, leader = pos
        # The seat to play has not played to the trick under way: it holds
        # one card per trick left, that one included.
        return len(hands[(leader + len(trick)) % len(hands)])

    def forced(self, pos: _Position, need: int) -> bool:
        """Can the claimer make exactly ``need`` more, whatever the others play?"""
        return self._solve("forced", pos, need)

    def possible(self, pos: _Position, need: int) -> bool:
        """Can the play end with the claimer taking exactly ``need`` more?"""
        return self._solve("possible", pos, need)

    def _solve(self, kind: str, pos: _Position, need: int) -> bool:
        left = self._left(pos)
        if need < 0 or need > left:
            return False
        if left == 0:
            return need == 0
        key = (kind, pos, need)
        known = self.memo.get(key)
        if known is not None:
            return known
        self.budget -= 1
        if self.budget < 0:
            raise _OutOfBudget
        seat, cards = self._moves(pos)
        if self.line and seat == self.claimer:
            # The claimer plays their line: one card, chosen from their view.
            cards = [_line(pos[0][seat], pos[1], self.state.trump, need)]
        outcomes = (self._solve(kind, *_after(pos, c, self.state, self.claimer, need)) for c in cards)
        result = any(outcomes) if kind == "possible" or seat == self.claimer else all(outcomes)
        self.memo[key] = result
        return result


__all__ = [
    "SEARCH_BUDGET",
    "Claim",
    "check_claim",
    "claim_holds",
    "claim_possible",
    "claimer_play",
    "line_holds",
    "settling_play",
    "tricks_left",
]
