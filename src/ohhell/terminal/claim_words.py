"""Claims said to the player, the same way in the line mode and the full screen.

The session decides what came of a claim (``session.ClaimResult``, from
``ohhell.claim`` and the bots' ``accepts_claim``); this module only words it,
and reads a typed claim ("all", "none", "2") as a number of tricks.
"""

from __future__ import annotations

from collections.abc import Sequence

from .session import ClaimResult


def claim_answer(text: str, left: int) -> int | None:
    """The tricks a typed claim names: ``all`` (or ``a``), ``none``, or a
    number; None if it names none of these."""
    word = text.strip().lower()
    if word in ("all", "a"):
        return left
    if word in ("none", "no", "nothing"):
        return 0
    return int(word) if word.isdigit() else None


def tricks_left_words(left: int) -> str:
    """``the 3 tricks left`` / ``the trick left``."""
    return "the trick left" if left == 1 else f"the {left} tricks left"


ONE_A_HAND = "One claim a hand: if it is refused, you play the hand on."
"""Said wherever a claim is offered, before the player claims."""


def claim_question(left: int) -> str:
    """What the full screen asks when the claim key is pressed."""
    if left == 1:
        return f"Claim the trick left? (1 or a for it, 0 for none) {ONE_A_HAND}"
    return f"Claim how many of the {left} tricks left? (digits, a for all, 0 for none) {ONE_A_HAND}"


def claimed_words(tricks: int, left: int) -> str:
    """``You claim none of the 4 tricks left`` and the like."""
    if tricks == left:
        return f"You claim {tricks_left_words(left)}"
    if tricks == 0:
        return f"You claim none of {tricks_left_words(left)}"
    return f"You claim {tricks} of {tricks_left_words(left)}"


def claim_words(result: ClaimResult, names: Sequence[str]) -> str:
    """What came of the claim, in one or two sentences."""
    said = claimed_words(result.tricks, result.left)
    if result.certain and result.settled:
        return f"{said}: certain from the cards, the hand is played out."
    if result.certain:
        return f"{said}: certain; your cards are played for you."
    if result.agreed:
        return f"{said}. Everyone accepts your claim: the hand is played out."
    if result.impossible:
        return f"{said}. Everyone accepts, but no play of the cards left can end that way; play on."
    # Which bot refused is not said: each answers from its own cards, so
    # naming it would tell the claimer something of them.
    return f"{said}. The others' cards do not make it sure: your claim is refused; play on."
