"""The full-screen terminal front end of ``ohhell play`` (needs the ``tui`` extra: Textual).

``OhHellApp(session)`` plays a ``ohhell.terminal.session.Session``; ``screens`` holds the
score sheet, rules and final standings, ``widgets`` the cards and tables.
"""

from .app import OhHellApp

__all__ = ["OhHellApp"]
