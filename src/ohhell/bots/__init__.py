"""Bots: clients that play a seat from its observation alone.

Every bot has a ``name`` and ``choose(obs, rng) -> action``; ``get_bot`` makes
one by its registered name (``BOT_NAMES``) and ``play_match`` plays a match
with one bot per seat. One module per bot family: ``random_bot`` (uniform over
the legal actions) and ``rulebased`` (the beginner and intermediate bots).
``ppo`` (a trained policy network; it needs NumPy, the ``research`` extra) is
registered here for ``get_bot`` and tournaments, not offered as company in
play and serve, which do not install NumPy.
"""

import importlib.util

from .base import (
    BOT_NAMES,
    ENTRY_POINT_GROUP,
    OPPONENT_LEVELS,
    Bot,
    IllegalBotActionError,
    UnknownBotError,
    bot_names,
    get_bot,
    level_fits,
    level_refusal,
    opponent_levels,
    play_match,
    play_out,
    register_bot,
)

register_bot("ppo", "ohhell.bots.ppo:PpoBot", opponent=False)
# The learned bot needs NumPy too; where it is installed (the web server's
# extra brings it) the bot is offered as company, at the one table it was
# trained and measured at (4 players of Pagat's rules: docs/training.md; at
# other tables it measured 0.6 to 1.6 points a deal below intermediate).
register_bot(
    "learned",
    "ohhell.bots.learned:LearnedBot",
    opponent=importlib.util.find_spec("numpy") is not None,
    trained_for=("pagat", 4),
)

__all__ = [
    "BOT_NAMES",
    "ENTRY_POINT_GROUP",
    "OPPONENT_LEVELS",
    "Bot",
    "IllegalBotActionError",
    "UnknownBotError",
    "bot_names",
    "get_bot",
    "level_fits",
    "level_refusal",
    "opponent_levels",
    "play_match",
    "play_out",
    "register_bot",
]
