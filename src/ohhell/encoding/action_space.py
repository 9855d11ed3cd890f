"""The one action space: 95 ids for every rule set, every environment and the OpenSpiel game.

* ``0..51``  play the card with that ``Card.index`` (clubs 2 first, spades ace
  last). In an Australian pack (R-DECK-AU) two identical cards are one id, as
  the engine treats them as one choice.
* ``52``     play blind: the card on one's forehead (R-DEVILS-BRIDGE).
* ``53..70`` bid 0..17 (``BID_BASE + bid``); 17 is the largest hand in any
  variant (52 cards among 3 players; an Australian pack gives 13).
* ``71..75`` name trump clubs, diamonds, hearts, spades, no trump (R-TRUMP-BIDDER).
* ``76..93`` change one's bid to 0..17 (``CHANGE_BASE + bid``, R-BID-CHANGE).
* ``94``     keep the bid one could still change (``KEEP``).

R-BID-CHANGE is a right the core never waits for (``ohhell.seats_to_ask``
leaves the seat out). An environment that wants it learnable asks, as the
OpenSpiel game does: right after a seat bids, that seat is asked first whether
it changes its bid or keeps it, before the next bidder bids, the last moment
the rule allows; after ``MAX_BID_CHANGES`` changes it is not asked again. The
referee keeps the "kept" answer (``Match.keep_bid``), so that sequencing is
read from a ``Match``: ``seat_to_ask``, ``legal_ids`` and ``take_id`` here.
An ``Observation`` alone cannot tell whether its seat has kept its bid, so
``action_mask(obs)`` shows the change window for as long as the core allows a
change.

>>> from ohhell.game import Bid, ChangeBid, Play
>>> from ohhell.cards import Card
>>> action_id(Play(2, Card.parse("AS"))), action_id(Bid(0, 3)), action_id(ChangeBid(1, 2))
(51, 56, 78)
>>> ACTION_SIZE, describe_action_id(KEEP)
(95, 'keep the bid')
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from .. import ALL_CARDS, Action, Bid, ChangeBid, Match, NameTrump, Observation, Play
from .vector import CARDS, MAX_HAND, TRUMP_CHOICES

PLAY_BLIND: Final = 52
BID_BASE: Final = 53
TRUMP_BASE: Final = BID_BASE + MAX_HAND + 1  # 71
CHANGE_BASE: Final = TRUMP_BASE + len(TRUMP_CHOICES)  # 76: change one's bid to 0..MAX_HAND
KEEP: Final = CHANGE_BASE + MAX_HAND + 1  # 94: keep the bid one could still change
ACTION_SIZE: Final = KEEP + 1  # 95
MASK_DTYPE: Final = np.int8
"""Every action mask of the package is int8, 1 for a legal id (PettingZoo's convention)."""

I8 = npt.NDArray[np.int8]


def action_id(action: Action) -> int:
    """The id of a seat's action (``ChangeBid`` included). Chance actions have none;
    keeping one's bid is ``KEEP``, which has no ``Action`` (``Match.keep_bid``)."""
    if isinstance(action, Play):
        return PLAY_BLIND if action.card is None else action.card.index
    if isinstance(action, Bid | ChangeBid):
        if not 0 <= action.bid <= MAX_HAND:
            raise ValueError(f"a bid of {action.bid} is outside the action space (0..{MAX_HAND})")
        return (BID_BASE if isinstance(action, Bid) else CHANGE_BASE) + action.bid
    if isinstance(action, NameTrump):
        return TRUMP_BASE + TRUMP_CHOICES.index(action.suit)
    raise ValueError(f"{action!r} is chance's action, not a seat's: it has no id")


def action_from_id(aid: int, seat: int, obs: Observation | None = None) -> Action:
    """The action of ``seat`` with id ``aid``. With ``obs`` (that seat's
    observation), raise ``ValueError`` saying why if the action is not legal.
    ``KEEP`` is no ``Action`` of the core: take it with ``take_id``."""
    aid = int(aid)
    action: Action
    if 0 <= aid < CARDS:
        action = Play(seat, ALL_CARDS[aid])
    elif aid == PLAY_BLIND:
        action = Play(seat, None)
    elif BID_BASE <= aid < TRUMP_BASE:
        action = Bid(seat, aid - BID_BASE)
    elif TRUMP_BASE <= aid < CHANGE_BASE:
        action = NameTrump(seat, TRUMP_CHOICES[aid - TRUMP_BASE])
    elif CHANGE_BASE <= aid < KEEP:
        action = ChangeBid(seat, aid - CHANGE_BASE)
    elif aid == KEEP:
        raise ValueError(f"action {KEEP} (keep the bid) is the referee's Match.keep_bid, not an Action")
    else:
        raise ValueError(f"action id {aid} is outside 0..{ACTION_SIZE - 1}")
    if obs is not None and action not in obs.legal_actions:
        raise ValueError(f"action {aid} ({describe_action_id(aid)}) is not legal: {_why_not(obs, seat)}")
    return action


def _why_not(obs: Observation, seat: int) -> str:
    if obs.seat != seat:
        return f"the observation is seat {obs.seat}'s, not seat {seat}'s"
    if not obs.legal_actions:
        return f"seat {seat} is not asked to act now (phase {obs.phase})"
    legal = ", ".join(describe_action_id(i) for i in legal_action_ids(obs))
    return f"in phase {obs.phase} seat {seat} may: {legal}"


def describe_action_id(aid: int) -> str:
    """``play AS``, ``play blind``, ``bid 3``, ``name trump hearts``,
    ``change the bid to 2``, ``keep the bid``."""
    if 0 <= aid < CARDS:
        return f"play {ALL_CARDS[aid]}"
    if aid == PLAY_BLIND:
        return "play blind"
    if BID_BASE <= aid < TRUMP_BASE:
        return f"bid {aid - BID_BASE}"
    if TRUMP_BASE <= aid < CHANGE_BASE:
        suit = TRUMP_CHOICES[aid - TRUMP_BASE]
        return "name no trump" if suit is None else f"name trump {suit.name.lower()}"
    if CHANGE_BASE <= aid < KEEP:
        return f"change the bid to {aid - CHANGE_BASE}"
    if aid == KEEP:
        return "keep the bid"
    return f"id {aid} (outside the action space)"


def _ids(actions: tuple[Action, ...] | list[Action]) -> list[int]:
    ids = {action_id(a) for a in actions}
    if any(isinstance(a, ChangeBid) for a in actions):
        ids.add(KEEP)  # R-BID-CHANGE: a seat that may change its bid may keep it
    return sorted(ids)


def legal_action_ids(obs: Observation) -> list[int]:
    """The ids of ``obs.legal_actions``, sorted; where they hold bid changes
    (R-BID-CHANGE), ``KEEP`` too."""
    return _ids(obs.legal_actions)


def action_mask(obs: Observation) -> I8:
    """1 for each id of ``legal_action_ids(obs)`` (``ACTION_SIZE`` int8)."""
    mask = np.zeros(ACTION_SIZE, MASK_DTYPE)
    mask[legal_action_ids(obs)] = 1
    return mask


# --- Asking seats in turn, as the OpenSpiel game does (read from the referee) ---


def changer(match: Match) -> int | None:
    """R-BID-CHANGE: the seat asked whether it changes or keeps its bid now
    (it may still change it and has not kept it), or None."""
    seat = match.state.change_seat
    return seat if seat is not None and match.can_change(seat) else None


def seat_to_ask(match: Match) -> int | None:
    """The one seat an environment asks now: the seat that may still change its
    bid (R-BID-CHANGE), else the first of ``match.to_ask()`` (the bidder, each
    seat yet to bid in seat order under R-BID-SIMULTANEOUS, the trump namer or
    the player); None while chance acts or after the match."""
    seat = changer(match)
    if seat is not None:
        return seat
    asked = match.to_ask()
    return asked[0] if asked else None


def legal_ids(match: Match, seat: int) -> list[int]:
    """The ids ``seat`` may take when asked: the changer's changes and ``KEEP``,
    else its legal actions but bid changes (they wait for its own turn)."""
    legal = match.legal(seat)
    if seat == changer(match):
        return _ids([a for a in legal if isinstance(a, ChangeBid)])
    return sorted({action_id(a) for a in legal if not isinstance(a, ChangeBid)})


def take_id(match: Match, seat: int, aid: int) -> None:
    """``seat`` takes action ``aid`` through the referee (``KEEP`` is
    ``Match.keep_bid``). Raises ``ValueError`` naming the legal ids, changing
    nothing, if ``aid`` is not among ``legal_ids(match, seat)``."""
    legal = legal_ids(match, seat)
    if int(aid) not in legal:
        words = ", ".join(f"{i} {describe_action_id(i)}" for i in legal) or "nothing now"
        raise ValueError(
            f"seat {seat} cannot take action {int(aid)} ({describe_action_id(int(aid))}); legal: {words}"
        )
    if aid == KEEP:
        match.keep_bid(seat)
    else:
        match.submit(action_from_id(aid, seat))
