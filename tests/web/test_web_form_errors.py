"""The new-table request names the field a refusal is about (``"field"``), so
the form can say it next to that field (docs/web.md, "HTTP")."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("sqlalchemy")

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from starlette.testclient import TestClient
from web_support import make_app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(make_app(str(tmp_path / "t.db"))) as c:
        yield c


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"options": {"hand-sizes": "30"}}, "hand-sizes"),
        ({"options": {"hook": "perhaps"}}, "hook"),
        ({"options": {"first-dealer": "5"}, "players": 4}, "first-dealer"),
        ({"preset": "nonsense"}, "preset"),
        ({"clock": 5000}, "clock"),
        ({"clock": "soon"}, "clock"),
        ({"name": "x" * 40}, "name"),
        ({"seats": "all bots"}, "seats"),
        # Each alone is fine; together they cannot be played: no one field to blame.
        ({"options": {"hand-sizes": "3,2", "devils-bridge": "yes"}}, None),
    ],
)
def test_a_refusal_names_its_field(client: TestClient, body: dict[str, Any], field: str | None) -> None:
    r = client.post("/api/tables", json={"name": "Ann", **body})
    assert r.status_code == 400, r.text
    assert r.json()["error"]
    assert r.json().get("field") == field


def _played(rules: Any) -> list[tuple[Any, ...]]:
    """A whole match with a seeded deal and the first legal action each time:
    every hand's size, trump and scores."""
    import random

    from ohhell import Phase, apply, legal_actions, new_game
    from ohhell.chance import advance_chance

    state, rng = new_game(rules), random.Random(7)
    while state.phase is not Phase.OVER:
        if advance_chance(state, rng):
            continue
        seat = next(s for s in range(rules.players) if legal_actions(state, s))
        apply(state, legal_actions(state, seat)[0])
    return [(r.size, r.trump, r.scores) for r in state.results]


@pytest.mark.parametrize(
    ("base", "option", "other"),
    [
        ({"trump": "turn"}, "trump-rotation", "H,NT"),  # R-TRUMP-ROTATE only when trump rotates
        ({"trump": "turn"}, "trump-suit", "H"),  # R-TRUMP-FIXED only when trump is fixed
        ({"trump": "rotate"}, "trump-suit", "H"),
        ({"hand-sizes": "3,1,2"}, "sequence", "up"),  # a list of sizes replaces the run
        ({"hand-sizes": "3,1,2"}, "start-cards", "5"),
        ({"sequence": "down-up"}, "fixed-hands", "3"),  # only a fixed sequence counts its hands
        ({"trump": "fixed"}, "no-trump-doubles", "yes"),  # a fixed trump: no hand is without one
    ],
)
def test_an_option_the_form_hides_changes_nothing(base: dict[str, str], option: str, other: str) -> None:
    """The form hides an option where its ``shown_when`` says it does not
    apply: the core plays the same match whatever its value then."""
    from ohhell import make_rules
    from ohhell.web.tables.lobby import SHOWN_WHEN

    when = SHOWN_WHEN[option.replace("-", "_")]
    assert any(base.get(name, "none") not in values for name, values in when.items())
    small = {"start-cards": "3", **base} if "hand-sizes" not in base else base
    rules = make_rules("pagat", {**small, "players": "3", "bid-changes": "no"})
    assert _played(rules) == _played(
        rules.replace(
            **{
                option.replace("-", "_"): make_rules("pagat", {option: other}).__getattribute__(
                    option.replace("-", "_")
                )
            }
        )
    )


def test_an_option_the_form_shows_can_change_the_match() -> None:
    """The check above is not empty: where the form shows them, these options change the match."""
    from ohhell import make_rules

    small = {"start-cards": "3", "players": "3", "bid-changes": "no"}
    rotating = make_rules("pagat", {**small, "trump": "rotate"})
    assert _played(rotating) != _played(rotating.replace(trump_rotation=("H", None)))
    fixed = make_rules("pagat", {**small, "sequence": "fixed"})
    assert _played(fixed) != _played(fixed.replace(fixed_hands=3))


@pytest.mark.parametrize(
    ("options", "field", "words"),
    [
        (
            {"hand-sizes": "3;2;1"},
            "hand-sizes",
            "Hand sizes: write whole numbers separated by commas, like 3,2,1",
        ),
        (
            {"teams": "0+1+2+3+4"},  # the form sends seats from 0; the words count them from 1
            "teams",
            "Teams must put each of the seats 1 to 4 in exactly one team; seat 5 does not exist",
        ),
        (
            {"first-dealer": "4"},
            "first-dealer",
            "First dealer: choose one of the seats 1 to 4; seat 5 does not",
        ),
    ],
)
def test_a_refusal_names_its_field_in_words(
    client: TestClient, options: dict[str, str], field: str, words: str
) -> None:
    r = client.post("/api/tables", json={"name": "Ann", "options": options})
    assert r.status_code == 400 and r.json()["field"] == field  # the page highlights the field
    error = r.json()["error"]
    assert error.startswith(words), error
    assert "option" not in error and "(" not in error and field not in error
