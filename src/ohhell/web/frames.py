"""A record as the replay page's frames (``POST /api/replay``), built from the
core alone, so the server (web/serving/replays.py, in a worker process) and
the offline site's worker (web/local/server.py) answer alike.
"""

from __future__ import annotations

import dataclasses
from typing import Final

from .. import (
    Phase,
    Record,
    RecordError,
    apply,
    format_action,
    loads,
    most_actions,
    new_game,
    observe,
    tricks_left,
)
from .protocol import Json, dumps, observation_json, result_json

MAX_RECORD: Final = 1024 * 1024  # the largest record to replay, in bytes

_MISSING = object()


def replay_frames(record: Record) -> Json:
    """A record as frames for the replay page, every hand face up (a record
    holds every deal, so nothing in it is hidden any more).

    Each hand's result is sent once, in ``results``; a frame names how many of
    them are scored by then and holds only the fields of the observation that
    changed since the frame before, so the answer grows in proportion to the
    record (every frame repeating the score sheet so far made it grow with its
    square).
    """
    record.replay()  # RecordError names the first action that is not legal
    state = new_game(record.rules)
    frames: list[Json] = []
    previous: Json = {}
    claims = {c.at: c for c in record.claims}
    for action in record.actions:
        claim = claims.get(len(state.log))
        if claim is not None and frames:
            # A claim is a step of its own where it was made ("claim 2 0 4":
            # Cleo claims none of the 4 tricks left); the table is as before.
            frames.append(
                {
                    "version": len(state.log),
                    "label": f"claim {claim.seat} {claim.tricks} {tricks_left(state)}",
                    "hand_number": state.hand_number,
                    "obs": {},
                }
            )
        apply(state, action)
        obs = observe(state, None)
        if state.phase in (Phase.BID, Phase.TRUMP, Phase.PLAY):
            obs = dataclasses.replace(obs, hands=tuple(tuple(h) for h in state.hands), bids=tuple(state.bids))
        data = observation_json(obs, ())
        del data["names"]
        data["results"] = len(obs.results)
        # Only what changed since the frame before (the page merges them).
        changed = {k: v for k, v in data.items() if previous.get(k, _MISSING) != v}
        previous = data
        frames.append(
            {
                "version": len(state.log),
                "label": format_action(state.log[-1]),
                "hand_number": state.hand_number,
                "obs": changed,
            }
        )
    return {"seats": list(record.seats), "results": [result_json(r) for r in state.results], "frames": frames}


def replay_answer(raw: bytes) -> tuple[bool, bytes]:
    """``POST /api/replay``'s work on a record's bytes: (True, the answer's
    JSON), or (False, why the record was refused, in words). Runs in a worker."""
    try:
        record = loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return False, b"the record is not UTF-8 text"
    except RecordError as err:
        return False, f"the record cannot be read: {err}".encode()
    limit = most_actions(record.rules)
    if len(record.actions) > limit:
        words = f"the record has {len(record.actions)} actions; a match under its rules has at most {limit}"
        return False, words.encode()
    try:
        frames = replay_frames(record)
    except RecordError as err:
        return False, f"the record cannot be replayed: {err}".encode()
    return True, dumps(frames).encode()


__all__ = ["MAX_RECORD", "replay_answer", "replay_frames"]
