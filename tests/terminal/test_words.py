"""The words the terminal says about the human and the rules: the second
person for the human whatever their name, options said in words, lists said
as lists, and the score words that moved out of describe."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from ohhell import PRESETS, make_rules
from ohhell.describe import and_list, card_from_words, describe_rules, event_words, rules_title
from ohhell.score_words import standings_lines
from ohhell.terminal.session import Session

NAMES = ["Ann", "Ada", "Bruno", "Chloe"]


def test_the_first_dealer_is_said_in_words_and_the_human_in_the_second_person() -> None:
    rules = PRESETS["pagat"].replace(first_dealer=0, hook=False)
    assert rules_title(rules, NAMES, you=0) == "Pagat's rules, 4 players (hook: no); you deal first"
    assert rules_title(rules.replace(first_dealer=2), NAMES, you=0) == (
        "Pagat's rules, 4 players (hook: no); Bruno deals first"
    )
    assert "first-dealer" not in rules_title(rules, NAMES) and "Ann deals first" in rules_title(rules, NAMES)
    sentences = describe_rules(rules, NAMES, you=0)
    assert "You deal first; the deal passes to the left." in sentences
    assert not any("Ann" in s or "You deals" in s for s in sentences)
    teams = describe_rules(make_rules("classic-tens", {"teams": "0+2,1+3"}), NAMES, you=0)
    assert any(s.startswith("Teams: you and Bruno against Ada and Chloe.") for s in teams)


def test_a_shared_first_place_is_said_as_a_list() -> None:
    obs: Any = SimpleNamespace(totals=(20, 20, 20, 20), exact=(2, 2, 2, 2), results=())
    rules = PRESETS["pagat"]
    lines = standings_lines(rules, obs, ["You", *NAMES[1:]])
    assert "You, Ada, Bruno and Chloe share first place with 20 points." in lines
    assert and_list(["You"]) == "You" and and_list(["You", "Ada"]) == "You and Ada"


def test_the_draw_and_the_deal_say_you_whatever_your_name(tmp_path: Path) -> None:
    from ohhell.terminal.fullscreen.widgets import log_lines

    drawn = Session.new(
        make_rules("pagat", {"hand-sizes": "2,1"}), name="Ann", seed=1, save_path=tmp_path / "a"
    )
    event = drawn.step()  # the draw for dealer (R-DEALER-DRAW)
    assert event.kind == "draw"
    words = " ".join(event_words(event, drawn.names, drawn.human))
    assert words.startswith("Draw for dealer: you ") and "Ann" not in words
    logged = " ".join(line.plain for line in log_lines(event, drawn.observation(), drawn.names, 0))
    assert logged.startswith("Draw: you ") and "Ann" not in logged

    rules = make_rules("pagat", {"hand-sizes": "2,1", "first-dealer": "0"})
    dealing = Session.new(rules, name="Ann", seed=1, save_path=tmp_path / "b")
    event = dealing.step()
    assert event.kind == "deal" and dealing.observation().dealer == 0
    logged = " ".join(line.plain for line in log_lines(event, dealing.observation(), dealing.names, 0))
    assert "— Hand 1: You deal 2 cards —" in logged


def test_cards_in_words_read_back() -> None:
    assert str(card_from_words("six of heart")) == "6H"
    assert str(card_from_words("the Ten of Clubs")) == "10C"
    assert card_from_words("sixx of hearts") is None
