"""What a person chose once and ``ohhell play`` remembers: a small JSON file
next to the default save file (``$OHHELL_HOME/settings.json``, else
``~/.local/share/ohhell/settings.json``).

Only ``forced_cards`` is kept for now: whether a card you have no choice
about (the only one that follows suit, or the last of the hand) is played
for you. A missing or unreadable file means the defaults; a setting is saved
by rewriting the file atomically, keeping the other keys it holds.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

from .session import default_save_path


def settings_path() -> Path:
    """``settings.json`` in the folder of the default save file."""
    return default_save_path().with_name("settings.json")


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def forced_cards_remembered(path: Path | None = None) -> bool:
    """The remembered choice: are forced cards played for you? (default no)"""
    return _read(path or settings_path()).get("forced_cards") is True


def remember_forced_cards(on: bool, path: Path | None = None) -> None:
    """Save the choice; a folder or file that cannot be written is passed over
    (the choice still holds for this match)."""
    path = path or settings_path()
    data = _read(path)
    data["forced_cards"] = bool(on)
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(path.name + ".tmp")
        partial.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        os.replace(partial, path)
