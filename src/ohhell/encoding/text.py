"""One seat's observation as plain text: what ``render`` shows of an agent's view."""

from __future__ import annotations

from .. import Observation, Phase
from .action_space import describe_action_id, legal_action_ids


def observation_text(obs: Observation) -> str:
    """One seat's observation as plain text (what ``render`` shows an agent's view as)."""
    from ..describe import hand_words, trump_words  # words are for text output only: load them late

    n = obs.players
    hands = len(obs.rules.schedule)
    who = "spectator" if obs.seat is None else f"seat {obs.seat}"
    lines = [
        f"Oh Hell, view of {who}: hand {obs.hand_number + 1} of {hands}"
        f"{' (extra)' if obs.extra_hand else ''}, {obs.hand_size} card{'s' if obs.hand_size != 1 else ''}, "
        f"dealer seat {obs.dealer}, phase {obs.phase}"
    ]
    if obs.phase in (Phase.BID, Phase.TRUMP, Phase.PLAY):
        lines.append(f"Trump: {trump_words(obs)}")
        for s in range(n):
            bid = obs.bids[s]
            said = "sealed" if bid is None and obs.has_bid[s] else ("-" if bid is None else str(bid))
            voids = "".join(x.letter for x in sorted(obs.voids[s]))
            held = obs.hands[s]
            cards = f": {hand_words(held)}" if held is not None else ""
            void = f", void {voids}" if voids else ""
            lines.append(
                f"  seat {s}{' (you)' if s == obs.seat else ''}: bid {said}, took {obs.taken[s]}, "
                f"{obs.hand_counts[s]} cards{cards}{void}, total {obs.totals[s]}"
            )
        if obs.devils_bridge:
            lines.append("Devil's Bridge: you see every hand but your own.")
        if obs.trick:
            lines.append("Trick: " + ", ".join(f"seat {s} {c}" for s, c in obs.trick))
    else:
        lines.append("Totals: " + ", ".join(f"seat {s} {t}" for s, t in enumerate(obs.totals)))
    ids = legal_action_ids(obs)
    if ids:
        lines.append("Legal: " + ", ".join(f"{i} {describe_action_id(i)}" for i in ids))
    return "\n".join(lines)
