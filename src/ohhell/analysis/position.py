"""Positions and choices: an observation written out, and choices as text.

A reviewed decision keeps the deciding seat's observation as a ``Position``
(its own facts, nothing more), so the position can be shown again and played
as a puzzle without the record. Choices are written as the game record
writes them (``"2"``, ``"H"``, ``"NT"``, ``"QH"``).

Two cards of one suit in a hand are the same play when every card of that
suit ranked between them is in the same hand or already out of the hand's
play (in a finished trick, or the turned card): whichever is played, the
same cards beat it and the same cards it beats. ``same_plays`` groups them,
so a review never calls the 6 a mistake where the expert chose the 5.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from .. import Action, Bid, Card, CardError, ChangeBid, NameTrump, Observation, Play, Rank, Suit
from .model import PastTrick, Position


def choice_text(action: Action) -> str:
    """A bid, trump choice or card as the review writes it.

    >>> choice_text(Bid(0, 2)), choice_text(NameTrump(1, None)), choice_text(Play(2, Card.parse("10H")))
    ('2', 'NT', '10H')
    """
    if isinstance(action, (Bid, ChangeBid)):
        return str(action.bid)
    if isinstance(action, NameTrump):
        return action.suit.letter if action.suit is not None else "NT"
    if isinstance(action, Play):
        return str(action.card) if action.card is not None else "?"
    raise TypeError(f"not a decision: {action!r}")


def kind_of(action: Action) -> str:
    """``bid``, ``trump`` or ``play``."""
    if isinstance(action, (Bid, ChangeBid)):
        return "bid"
    if isinstance(action, NameTrump):
        return "trump"
    if isinstance(action, Play):
        return "play"
    raise TypeError(f"not a decision: {action!r}")


def parse_choice(text: str, legal: Sequence[str], kind: str) -> str | None:
    """What a person typed, read as one of ``legal`` (the choices of a
    position of ``kind``); None if it is none of them. Cards may be typed as
    the record writes them or as ``Card.parse`` reads them (``th``, ``10♥``);
    trump as a letter, symbol, name or ``nt``.

    >>> parse_choice(" qh ", ["QH", "5C"], "play"), parse_choice("no trump", ["H", "NT"], "trump")
    ('QH', 'NT')
    """
    word = text.strip()
    if not word:
        return None
    if kind == "bid":
        if not word.isdigit():
            return None
        bid = str(int(word))  # "02" is 2
        return bid if bid in legal else None
    if kind == "trump":
        key = word.upper().replace(" ", "")
        if key in ("NT", "NOTRUMP", "NOTRUMPS"):
            return "NT" if "NT" in legal else None
        try:
            letter = Suit.parse(word).letter
        except CardError:
            return None
        return letter if letter in legal else None
    try:
        card = str(Card.parse(word))
    except CardError:
        return None
    return card if card in legal else None


def position_of(obs: Observation) -> Position:
    """The deciding seat's observation written out (``obs.seat`` must be a seat)."""
    if obs.seat is None:
        raise ValueError("a position is a seat's: a spectator decides nothing")
    return Position(
        seat=obs.seat,
        hand=obs.hand_number + 1,
        phase=str(obs.phase),
        hand_size=obs.hand_size,
        dealer=obs.dealer,
        trump=obs.trump.letter if obs.trump is not None else None,
        trump_decided=obs.trump_decided,
        turned=str(obs.turned) if obs.turned is not None else None,
        trump_namer=obs.trump_namer,
        hands=tuple(tuple(str(c) for c in h) if h is not None else None for h in obs.hands),
        bids=obs.bids,
        forbidden_bid=obs.forbidden_bid,
        leader=obs.leader,
        trick=tuple((s, str(c)) for s, c in obs.trick),
        tricks=tuple(PastTrick(t.leader, tuple(str(c) for c in t.cards), t.winner) for t in obs.tricks),
        taken=obs.taken,
        totals=obs.totals,
        legal=tuple(dict.fromkeys(choice_text(a) for a in obs.legal_actions if not isinstance(a, ChangeBid))),
    )


def same_plays(obs: Observation, cards: Sequence[Card]) -> list[list[Card]]:
    """``cards`` (legal plays of ``obs.seat``) grouped into the same plays,
    each group in the order given, the groups in the order of their first card.

    Two cards of one suit are the same play when every card of the suit
    between them is in the seat's hand or out of the hand's play. Only the
    cards out of the hand's play count as gaps filled: a card in the trick
    under way still separates two cards (one may beat it, the other not).
    With an Australian pack a card equal in rank to one of the two, still
    out, also separates them (the later of two equal cards wins).

    Two cards of equal rank in two suits are the same play when the seat's
    view is the same with the two suits swapped (``_mirrored``): neither
    suit is trump, no card of either has been played or turned, and every
    hand the seat sees holds the same ranks in both. Then whatever follows
    the one card follows the other with the suits' names swapped, so their
    worth is the same. Cards of two suits are otherwise never grouped: a
    void shown, a card played or a longer holding tells the suits apart.
    """
    out_of_play: Counter[Card] = Counter(c for t in obs.tricks for c in t.cards)
    if obs.turned is not None:
        out_of_play[obs.turned] += 1
    held: Counter[Card] = Counter(obs.hand)
    left = Counter(obs.rules.pack())
    left.subtract(out_of_play)
    left.subtract(held)
    outside = {c for c, k in left.items() if k > 0}  # cards someone else may still play
    mirrored: dict[frozenset[Suit], bool] = {}

    def same(a: Card, b: Card) -> bool:
        if a.suit is b.suit:
            return _same(a, b, outside)
        if a.rank != b.rank:
            return False
        pair = frozenset((a.suit, b.suit))
        if pair not in mirrored:
            mirrored[pair] = _mirrored(obs, a.suit, b.suit)
        return mirrored[pair]

    # Each card joins the group of the first card it is the same play as,
    # directly or through another (the 3C and the 3D by the swap, the 3D
    # and the 4D within diamonds): groups that a card links are merged.
    groups: list[list[Card]] = []
    for card in cards:
        linked = [g for g in groups if any(same(member, card) for member in g)]
        if not linked:
            groups.append([card])
            continue
        first = linked[0]
        for other in linked[1:]:
            first.extend(other)
            groups.remove(other)
        first.append(card)
    order = {card: i for i, card in enumerate(cards)}
    for group in groups:
        group.sort(key=order.__getitem__)
    groups.sort(key=lambda g: order[g[0]])
    return groups


def _same(a: Card, b: Card, outside: set[Card]) -> bool:
    if a.suit is not b.suit:
        return False
    low, high = sorted((a.rank, b.rank))
    return not any(c.suit is a.suit and low <= c.rank <= high for c in outside)


def _mirrored(obs: Observation, one: Suit, other: Suit) -> bool:
    """Is the seat's view the same with suits ``one`` and ``other`` swapped?
    Neither is trump; no card of either is in a finished trick, the trick
    under way or the turned card (each card played is a fact about its own
    suit: who showed a void, who holds what); and every hand in sight (the
    seat's own, and the others' under Devil's Bridge) holds the same ranks
    in the two suits. The pack holds the same ranks in every suit, so the
    cards unseen are then the same in both too."""
    if obs.trump in (one, other):
        return False
    played = [c for t in obs.tricks for c in t.cards] + [c for _, c in obs.trick]
    if obs.turned is not None:
        played.append(obs.turned)
    if any(c.suit in (one, other) for c in played):
        return False
    for hand in obs.hands:
        if hand is None:
            continue
        ranks: dict[Suit, Counter[Rank]] = {one: Counter(), other: Counter()}
        for c in hand:
            if c.suit in ranks:
                ranks[c.suit][c.rank] += 1
        if ranks[one] != ranks[other]:
            return False
    pack: dict[Suit, Counter[Rank]] = {one: Counter(), other: Counter()}
    for c in obs.rules.pack():
        if c.suit in pack:
            pack[c.suit][c.rank] += 1
    return pack[one] == pack[other]


__all__ = ["choice_text", "kind_of", "parse_choice", "position_of", "same_plays"]
