"""The words a player reads in the browser: plain, whole, and never a rule id.

No rule id (R-HOOK, R-BID-ANNOUNCE, ...) appears in anything the pages can
show: the static pages' text and script strings (comments may cite rule ids),
the rule options' help, the rules in words for every preset, the refusals.
Bots are named without their level (the page shows the level under the
name), a person who types no name is not called "You" (the page marks their
seat "you" already), and a table has a name for people, not only an id.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("sqlalchemy")

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from starlette.testclient import TestClient
from web_support import connect, make_app, new_table

from ohhell.rules import PRESETS

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

STATIC = Path(__file__).resolve().parents[2] / "src" / "ohhell" / "web" / "static"
RULE_ID = re.compile(r"\bR-[A-Z]{2,}")


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(make_app(str(tmp_path / "t.db"))) as c:
        yield c


def without_comments(source: str) -> str:
    """A script or stylesheet without its comments (strings kept whole)."""
    out: list[str] = []
    i, quote = 0, ""
    while i < len(source):
        c = source[i]
        if quote:
            out.append(c)
            if c == "\\":
                out.append(source[i + 1 : i + 2])
                i += 2
                continue
            if c == quote:
                quote = ""
        elif c in "\"'`":
            quote = c
            out.append(c)
        elif source.startswith("//", i) and (i == 0 or source[i - 1] != ":"):
            i = source.find("\n", i)
            if i < 0:
                break
            continue
        elif source.startswith("/*", i):
            i = source.find("*/", i) + 2
            continue
        else:
            out.append(c)
        i += 1
    return "".join(out)


def test_the_comment_stripper_keeps_strings_and_drops_comments() -> None:
    text = without_comments('a = "R-X // not a comment"; // R-HOOK here\nb = 1; /* R-TEAMS */ c = `R-Y`;')
    assert "R-X // not a comment" in text and "R-HOOK" not in text and "R-TEAMS" not in text
    assert "`R-Y`" in text


@pytest.mark.parametrize("path", sorted(STATIC.glob("*.*")), ids=lambda p: p.name)
def test_no_rule_id_in_what_the_pages_show(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S) if path.suffix == ".html" else without_comments(text)
    found = RULE_ID.findall(text)
    assert not found, f"{path.name} shows rule ids to players: {found}"


def test_no_rule_id_in_the_options_or_the_rules_in_words(client: TestClient) -> None:
    assert not RULE_ID.search(client.get("/api/options").text)
    for preset in PRESETS:
        made = new_table(client, preset=preset)
        # The table's random id is taken out: "R-IShH3..." is an id, not a rule's.
        public = client.get(f"/api/tables/{made['table']}").text.replace(made["table"], "")
        assert not RULE_ID.search(public), (preset, RULE_ID.findall(public))


def test_no_rule_id_in_refusals(client: TestClient) -> None:
    bad = client.post("/api/tables", json={"preset": "pagat", "options": {"hand-sizes": "30"}})
    assert bad.status_code == 400 and not RULE_ID.search(bad.json()["error"])
    sheet = client.post("/api/scores", json={"players": ["Ann", "Bob", "Cid"], "first_dealer": 0}).json()
    # R-BID-ORDER: Cid is not next to bid; the words say so without the rule's id.
    refused = client.post(
        f"/api/scores/{sheet['id']}/entry",
        json={"edit_token": sheet["edit_token"], "op": "bid", "seat": 0, "bid": 0},
    )
    assert refused.status_code == 400, refused.text
    assert refused.json()["rule"] and not RULE_ID.search(refused.json()["error"])


def test_bots_are_named_without_their_level(client: TestClient) -> None:
    made = client.post("/api/play-now", json={"level": "intermediate"}).json()
    seats = client.get(f"/api/tables/{made['table']}").json()["seats"]
    bots = [s for s in seats if s["kind"] == "bot"]
    assert len(bots) == 3 and len({b["name"] for b in bots}) == 3
    for bot in bots:
        assert bot["level"] == "intermediate"
        assert "(" not in bot["name"] and "intermediate" not in bot["name"]


def test_seven_seats_of_bots_have_seven_names(client: TestClient) -> None:
    made = new_table(client, options={"players": "7"}, seats=["human"] + ["random"] * 6)
    names = [s["name"] for s in client.get(f"/api/tables/{made['table']}").json()["seats"]]
    assert len(set(names)) == 7


def test_a_player_who_types_no_name_is_not_called_you(client: TestClient) -> None:
    made = client.post("/api/play-now", json={}).json()
    seats = client.get(f"/api/tables/{made['table']}").json()["seats"]
    assert seats[0]["name"] == "Player 1"


def test_a_table_has_a_name_for_people(client: TestClient) -> None:
    made = new_table(client, name="Ann")
    public = client.get(f"/api/tables/{made['table']}").json()
    assert public["title"] == "Ann's table"
    with connect(client, made["table"]) as watcher:
        assert watcher.table is not None and watcher.table["title"] == "Ann's table"


def test_the_table_says_how_many_cards_its_biggest_hand_has(client: TestClient) -> None:
    made = new_table(client, options={"hand-sizes": "2,5,3"})
    assert client.get(f"/api/tables/{made['table']}").json()["most_cards"] == 5


def test_serve_says_where_the_tables_are_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from ohhell.cli import main
    from ohhell.cli import serve as serve_cli

    monkeypatch.setattr(serve_cli, "run", lambda *args, **kwargs: None)  # start nothing
    monkeypatch.setenv("OHHELL_HOME", str(tmp_path))
    assert main(["serve", "--port", "8123"]) == 0
    out = capsys.readouterr().out
    assert f"Tables are stored in {(tmp_path / 'ohhell.db').resolve()}" in out
    assert serve_cli.database_words("postgresql+psycopg://ann:secret@db.example/ohhell") == (
        "Tables are stored in the database postgresql+psycopg://ann:***@db.example/ohhell"
    )


def test_presets_have_names_for_people(client: TestClient) -> None:
    from ohhell import PRESET_TITLES

    options = client.get("/api/options").json()
    assert options["preset_titles"] == PRESET_TITLES
    assert options["preset_titles"]["river"] == "Up and Down the River"
    assert set(options["presets"]) == set(PRESET_TITLES)  # the ids stay the keys


def test_the_forms_help_is_one_plain_sentence(client: TestClient) -> None:
    options = client.get("/api/options").json()["options"]
    ids = {o["name"] for o in options if "-" in o["name"]}
    for option in options:
        help_ = option["help"]
        assert help_[0].isupper() and help_.endswith(".") and help_.count(". ") == 0, help_
        assert not any(i in help_ for i in ids), help_  # no option's id: fixed-hands, start-cards...
        for choice in option["choices"] or []:
            if len(choice) > 3:  # the choices are in the list beside it, not repeated here
                assert f"{choice} (" not in help_ and f"{choice}," not in help_, (choice, help_)
        for words in option["choice_words"].values():
            assert not any(i in words for i in ids), words
            assert len(words) <= 40, words  # fits the list
    rotation = next(o for o in options if o["name"] == "trump-rotation")
    assert rotation["shown_when"] == {"trump": ["rotate"]}


def test_a_blank_name_is_refused_not_called_host(client: TestClient) -> None:
    r = client.post("/api/tables", json={"name": "   ", "seats": ["human"] * 4})
    assert r.status_code == 400 and r.json()["field"] == "name"
    assert "name" in r.json()["error"].lower()


def test_the_lobby_names_rules_for_people(client: TestClient) -> None:
    made = client.post(
        "/api/tables",
        json={"name": "Ann", "options": {"hook": "no"}, "seats": ["human"] * 4, "public": True},
    ).json()
    listed = client.get("/api/lobby").json()["tables"]
    line = next(t["rules"] for t in listed if t["table"] == made["table"])
    assert line == "Pagat's rules (the hook: no), 4 players"
