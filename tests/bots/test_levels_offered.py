"""Where each bot level is offered: everywhere, except a level made and
measured for one rule set alone (the learned bot: 4 players of Pagat's
rules, docs/training.md), which is offered and accepted only there."""

from __future__ import annotations

import json

import pytest

from ohhell import PRESETS, make_rules
from ohhell.bots import level_fits, level_refusal, opponent_levels
from ohhell.bots.base import trained_for

np = pytest.importorskip("numpy")


def test_the_learned_level_is_offered_only_where_it_was_trained() -> None:
    pagat4 = PRESETS["pagat"]
    assert "learned" in opponent_levels(pagat4)
    assert level_fits("learned", pagat4) and level_refusal("learned", pagat4) is None
    elsewhere = [
        make_rules("pagat", {"players": "3"}),
        make_rules("pagat", {"players": "5"}),
        make_rules("pagat", {"hook": "no"}),
        PRESETS["classic-tens"],
        PRESETS["river"],
    ]
    for rules in elsewhere:
        assert "learned" not in opponent_levels(rules)
        why = level_refusal("learned", rules)
        assert why is not None and "Pagat's rules with 4 players" in why
    # The built-in levels are offered at every table.
    for rules in [pagat4, *elsewhere]:
        assert {"random", "beginner", "intermediate", "expert"} <= set(opponent_levels(rules))


def test_where_it_is_offered_is_where_its_file_says_it_was_trained() -> None:
    from ohhell.bots.learned import policy_path

    with np.load(policy_path(), allow_pickle=False) as data:
        meta = json.loads(str(data["meta"]))
    assert trained_for()["learned"] == (meta["preset"], meta["players"])


def test_the_web_refuses_the_learned_bot_at_other_tables(tmp_path: object) -> None:
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from ohhell.web.app import Limits, create_app

    app = create_app(f"sqlite:///{tmp_path}/t.db", limits=Limits(create=None))
    with TestClient(app) as client:
        options = client.get("/api/options").json()
        assert options["level_rules"] == {"learned": {"preset": "pagat", "players": 4}}
        refused = client.post(
            "/api/tables", json={"preset": "classic-tens", "seats": ["human", "learned", "random", "random"]}
        )
        assert refused.status_code == 400 and refused.json()["field"] == "seats"
        assert "trained only for Pagat's rules" in refused.json()["error"]
        made = client.post(
            "/api/tables", json={"preset": "pagat", "seats": ["human", "learned", "random", "random"]}
        )
        assert made.status_code == 200
        three = client.post(
            "/api/tables", json={"preset": "pagat", "players": 3, "seats": ["human", "random", "random"]}
        )
        assert three.status_code == 200
        table = three.json()
        filled = client.post(
            f"/api/tables/{table['table']}/fill", json={"token": table["token"], "level": "learned"}
        )
        assert filled.status_code == 400 and "trained only for" in filled.json()["error"]


def test_the_terminal_refuses_the_learned_bot_at_other_tables() -> None:
    from ohhell.terminal.session import Session, SessionError

    with pytest.raises(SessionError, match="trained only for Pagat's rules"):
        Session.new(PRESETS["classic-tens"], levels=["learned"])
