"""The full-screen app's words that need no widget: the title line and the hint."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from ... import Bid, NameTrump, Observation, Phase, Play, Suit
from ...bots.hint import Hint
from ...describe import plural, rules_title, suit_word
from .widgets import card_text, suit_style, suit_text

TRUMPS: tuple[Suit | None, ...] = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES, None)
"""The trump choices in the order of their keys 1 to 5."""


def title_text(obs: Observation, names: Sequence[str], you: int, *, compact: bool) -> Text:
    """The title line: the hand, its cards, trump and the dealer (the rules before and after)."""
    text = Text.assemble(("Oh Hell", "bold"), "  ") if not compact else Text()
    if obs.phase not in (Phase.BID, Phase.TRUMP, Phase.PLAY):
        text.append(rules_title(obs.rules, names, you), style="dim")
        return text
    total = len(obs.rules.schedule)
    if obs.extra_hand:
        number = "Tie-break hand"
    else:
        number = (
            f"Hand {obs.hand_number + 1}/{total}" if compact else f"Hand {obs.hand_number + 1} of {total}"
        )
    text.append(f"{number} · {plural(obs.hand_size, 'card')} · Trump ")
    if obs.trump_decided and compact:
        trump = obs.trump  # an IntEnum: clubs is 0, so compare with None
        text.append_text(Text(trump.symbol, style=suit_style(trump)) if trump is not None else Text("none"))
        if obs.turned is not None:
            text.append(" (")
            text.append_text(card_text(obs.turned))
            text.append(")")
    elif obs.trump_decided:
        text.append_text(suit_text(obs.trump))
        if obs.turned is not None:
            text.append(" (turned ")
            text.append_text(card_text(obs.turned))
            text.append(")")
    else:
        text.append("named after bidding", style="italic")
    text.append(" · You deal" if obs.dealer == you else f" · {names[obs.dealer]} deals")
    if obs.devils_bridge:
        text.append(" · Devil's Bridge", style="bold magenta")
    return text


def hint_words(found: Hint, key: str | None) -> str:
    """The hint, with the key that takes it: ``play A♠ (key 3, or Enter)``."""
    action = found.action
    if isinstance(action, Bid):
        what = f"bid {action.bid} (Enter takes it)"
    elif isinstance(action, NameTrump):
        number = TRUMPS.index(action.suit) + 1
        what = f"name {suit_word(action.suit)} (key {number}, or Enter)"
    elif isinstance(action, Play) and action.card is not None:
        what = f"play {action.card.pretty}" + (f" (key {key}, or Enter)" if key is not None else "")
    else:
        what = "play your unseen card (key 1, or Enter)"
    return f"{what}; expected score {found.expected:.1f}"
