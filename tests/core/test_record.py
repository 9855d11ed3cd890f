"""The game record: round trips, golden records replayed against hand-computed results, bad records."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from ohhell import (
    PRESETS,
    Card,
    Deal,
    Phase,
    Play,
    Record,
    RecordError,
    dump,
    dumps,
    load,
    loads,
    make_rules,
    winners,
)
from ohhell.bots.simulate import random_match
from ohhell.record import MAGIC
from ohhell.scoring import settlement_net

GOLDEN = Path(__file__).parents[1] / "golden"
GOLDEN_NAMES = ["pagat-2-1", "okenuff-3-2-6", "devils-bridge-tie"]


def golden_text(name: str) -> str:
    return (GOLDEN / f"{name}.ohr").read_text(encoding="utf-8")


def line_of(text: str, content: str) -> int:
    """The 1-based number of the only line equal to ``content``."""
    found = [i + 1 for i, line in enumerate(text.splitlines()) if line.strip() == content]
    assert len(found) == 1, f"{content!r} is on lines {found}"
    return found[0]


def replace_line(text: str, old: str, new: str) -> str:
    lines = text.splitlines()
    lines[line_of(text, old) - 1] = new
    return "\n".join(lines) + "\n"


# --- Round trips -----------------------------------------------------------------------------------------

MATCHES = [
    ("pagat", {"hand-sizes": "3,1"}),
    ("okenuff", {"hand-sizes": "4,2"}),
    ("classic-tens", {"players": "3", "hand-sizes": "2,1", "devils-bridge": "yes"}),
    ("river", {"players": "5", "deck": "australian", "hand-sizes": "2,13"}),
    ("common", {"players": "6", "bidding": "simultaneous", "hook": "no", "hand-sizes": "2"}),
    (
        "pagat",
        {"players": "4", "teams": "0+2,1+3", "trump": "rotate", "trump-rotation": "H,NT", "start-cards": "2"},
    ),
]


@pytest.mark.parametrize(("preset", "options"), MATCHES)
def test_dumps_then_loads_gives_the_same_record(preset: str, options: dict[str, str]) -> None:
    rules = make_rules(preset, options)
    state = random_match(rules, random.Random(len(options) + 17))
    names = [f"Player {s} de la Mesa" for s in range(rules.players)]  # names may hold spaces
    record = Record.from_state(state, names, [("event", "club night"), ("seed", "17"), ("event", "again")])
    text = dumps(record)
    assert text.startswith(MAGIC + "\n")
    again = loads(text)
    assert again == record
    assert again.tags == record.tags and again.seats == tuple(names)
    assert dumps(again) == text
    replayed = again.replay(complete=True)
    assert replayed.log == state.log and replayed.results == state.results


def test_a_record_with_no_actions_round_trips() -> None:
    record = Record(PRESETS["okenuff"], ("N", "", "S", "W"), ())
    again = loads(dumps(record))
    assert again == record and again.seats[1] == ""  # an empty name is allowed
    assert again.replay().phase is Phase.DRAW


@pytest.mark.parametrize(
    ("seats", "tags"),
    [
        (("Ann\nplay 0 AS", "Bob", "Cid", "Dee"), ()),  # a name that would smuggle in an action
        (("Ann", "Bob", "Cid", "Dee"), (("note", "first line\n# second line"),)),
    ],
    ids=["seat-name", "tag-value"],
)
def test_a_line_break_in_a_name_or_tag_cannot_change_the_record(
    seats: tuple[str, ...], tags: tuple[tuple[str, str], ...]
) -> None:
    # dumps promises loads(dumps(r)) == r: a line break must be refused (or kept), never read back as
    # another line of the record.
    try:
        record = Record(PRESETS["pagat"], seats, (), tags)
        text = dumps(record)
    except ValueError as err:
        assert "one line" in str(err)
        return  # refusing such a record keeps the promise
    assert loads(text) == record


def test_load_of_dump_is_equal_and_the_write_leaves_no_temporary_file(tmp_path: Path) -> None:
    state = random_match(make_rules("river", {"hand-sizes": "2,1"}), random.Random(4))
    record = Record.from_state(state, tags=[("seed", "4")])
    path = tmp_path / "match.ohr"
    dump(record, path)
    assert load(path) == record
    assert [p.name for p in tmp_path.iterdir()] == ["match.ohr"]
    dump(record, path)  # writing over an existing record is fine
    assert load(path) == record


# --- Golden records: hand-written matches, results computed by hand --------------------------------------


def expected(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((GOLDEN / f"{name}.expected.json").read_text(encoding="utf-8"))
    return data


@pytest.mark.parametrize("name", GOLDEN_NAMES)
def test_golden_record_replays_to_the_hand_computed_result(name: str) -> None:
    record = load(GOLDEN / f"{name}.ohr")
    want = expected(name)
    state = record.replay(complete=True)
    got = [
        {
            "hand": r.number,
            "cards": r.size,
            "dealer": r.dealer,
            "trump": r.trump.letter if r.trump is not None else None,
            "trump_namer": r.trump_namer,
            "extra": r.extra,
            "bids": list(r.bids),
            "tricks": list(r.tricks),
            "scores": list(r.scores),
        }
        for r in state.results
    ]
    assert got == want["hands"]
    assert state.totals == want["totals"]
    assert state.exact == want["exact"]
    assert [list(w) for w in winners(state.rules, state.totals, state.exact)] == want["winners"]
    if "settlement" in want:  # R-SETTLE
        assert settlement_net(state.totals) == want["settlement"]


@pytest.mark.parametrize("name", GOLDEN_NAMES)
def test_golden_record_round_trips_and_rewrites_with_real_cards(name: str) -> None:
    record = load(GOLDEN / f"{name}.ohr")
    assert loads(dumps(record)) == record
    state = record.replay(complete=True)
    rewritten = Record.from_state(state, record.seats, record.tags)
    assert all(a.card is not None for a in rewritten.actions if isinstance(a, Play))
    assert rewritten.replay(complete=True).results == state.results


def test_golden_devils_bridge_record_reads_the_unseen_card_as_question_mark() -> None:
    # R-DEVILS-BRIDGE: "play N ?" is the card on one's forehead; the replayed log holds the real card.
    record = load(GOLDEN / "devils-bridge-tie.ohr")
    assert record.actions[-3:] == (Play(2, None), Play(0, None), Play(1, None))
    state = record.replay(complete=True)
    assert state.log[-3:] == [
        Play(2, Card.parse("10C")),
        Play(0, Card.parse("3D")),
        Play(1, Card.parse("AC")),
    ]


def test_golden_records_are_the_rule_sets_they_claim() -> None:
    assert load(GOLDEN / "pagat-2-1.ohr").rules == make_rules(
        "pagat", {"hand-sizes": "2,1", "first-dealer": "1"}
    )
    assert load(GOLDEN / "okenuff-3-2-6.ohr").rules == make_rules("okenuff", {"hand-sizes": "3,2,6"})
    assert load(GOLDEN / "devils-bridge-tie.ohr").rules == make_rules(
        "classic-tens", {"players": "3", "hand-sizes": "2,1", "first-dealer": "0", "devils-bridge": "yes"}
    )


# --- Bad records ------------------------------------------------------------------------------------------


def refused(text: str) -> RecordError:
    with pytest.raises(RecordError) as info:
        loads(text)
    return info.value


def test_a_malformed_card_is_refused_with_its_line() -> None:
    text = golden_text("pagat-2-1")
    line = line_of(text, "deal 0:4C 1:9C 2:AD 3:7C turn:8C")
    err = refused(replace_line(text, "deal 0:4C 1:9C 2:AD 3:7C turn:8C", "deal 0:4C 1:9C 2:AX 3:7C turn:8C"))
    assert err.line == line
    assert str(err).startswith(f"line {line}: ") and "'AX' is not a card" in str(err)


def test_a_malformed_card_in_a_play_is_refused() -> None:
    text = golden_text("pagat-2-1")
    line = line_of(text, "play 1 3C")
    err = refused(replace_line(text, "play 1 3C", "play 1 11C"))
    assert err.line == line and "'11C' is not a card" in str(err)


def test_an_unknown_verb_is_refused() -> None:
    text = golden_text("pagat-2-1")
    line = line_of(text, "bid 0 1")
    err = refused(replace_line(text, "bid 0 1", "pass 0"))
    assert err.line == line and str(err).startswith(f"line {line}: unknown line 'pass'")


def test_a_record_without_the_magic_line_is_refused() -> None:
    text = golden_text("pagat-2-1")
    headless = text.replace(MAGIC + "\n", "", 1)
    err = refused(headless)
    assert err.line == line_of(headless, "rule players 4")  # the first line that is not a comment
    assert "not a game record" in str(err) and MAGIC in str(err)
    assert "not a game record" in str(refused(""))
    assert "not a game record" in str(refused("ohhell-record 2\n" + headless))


def test_a_missing_rule_is_refused_by_name() -> None:
    text = golden_text("pagat-2-1")
    err = refused(text.replace("rule hook yes\n", ""))
    assert "does not give the rule hook" in str(err)


def test_a_rule_given_twice_or_unreadable_is_refused() -> None:
    text = golden_text("pagat-2-1")
    twice = text.replace("rule hook yes\n", "rule hook yes\nrule hook no\n")
    err = refused(twice)
    assert err.line == line_of(twice, "rule hook no") and "twice" in str(err)
    bad = replace_line(text, "rule hook yes", "rule hook perhaps")
    err = refused(bad)
    assert err.line == line_of(bad, "rule hook perhaps") and "hook" in str(err) and "perhaps" in str(err)


def test_a_duplicate_seat_is_refused() -> None:
    text = golden_text("pagat-2-1")
    doubled = replace_line(text, "seat 2 Cid", "seat 1 Cid")
    err = refused(doubled)
    assert err.line == line_of(doubled, "seat 1 Cid") and "seat 1" in str(err)


def test_too_few_seats_are_refused() -> None:
    err = refused(golden_text("pagat-2-1").replace("seat 3 Dee\n", ""))
    assert "4 players" in str(err) and "3 seats" in str(err)


def test_a_truncated_line_is_refused() -> None:
    text = golden_text("pagat-2-1")
    line = line_of(text, "deal 0:AS,KH 1:QD,3C 2:10S,2H 3:JC,JD turn:5H")
    cut = replace_line(text, "deal 0:AS,KH 1:QD,3C 2:10S,2H 3:JC,JD turn:5H", "deal 0:AS,KS 1:")
    err = refused(cut)
    assert err.line == line and str(err).startswith(f"line {line}: 'deal'")
    for half in ("play 2", "bid 0", "change 2", "trump 1", "draw"):
        err = refused(replace_line(text, "bid 0 1", half))
        assert err.line == line_of(text, "bid 0 1")


def test_an_illegal_play_is_refused_on_replay_with_line_hand_action_and_rule() -> None:
    text = golden_text("pagat-2-1")
    line = line_of(text, "play 0 AS")
    bad = replace_line(text, "play 0 AS", "play 0 KH")  # seat 0 holds AS: it must follow spades
    record = loads(bad)  # the form is fine; the rules are checked on replay
    with pytest.raises(RecordError) as info:
        record.replay()
    err = info.value
    # Actions: deal, bid, change, bid, bid, bid, play, play, then this play: the 9th.
    assert (err.line, err.hand, err.action) == (line, 1, 9)
    assert str(err).startswith(f"line {line}, hand 1, action 9: ")
    # Said to a person: the player by name, seats counted from 1 (the record counts from 0).
    assert (
        "Ann (seat 1) must follow spades" in str(err) and "seat 0" not in str(err) and err.rule == "R-FOLLOW"
    )


def test_the_hook_is_enforced_on_replay() -> None:
    text = golden_text("pagat-2-1")
    bad = replace_line(text, "bid 1 0", "bid 1 1")  # the dealer would make the bids total 2 (R-HOOK)
    with pytest.raises(RecordError) as info:
        loads(bad).replay()
    assert (info.value.line, info.value.hand, info.value.action) == (line_of(text, "bid 1 0"), 1, 6)
    assert "the hook forbids Bob (seat 2) to bid 1" in str(info.value) and info.value.rule == "R-HOOK"


def test_an_illegal_action_in_a_later_hand_names_that_hand() -> None:
    text = golden_text("pagat-2-1")
    bad = replace_line(text, "play 1 9C", "play 1 9D")
    with pytest.raises(RecordError) as info:
        loads(bad).replay()
    # Hand 1 has 14 actions; hand 2's deal, 4 bids, 2 plays, then this one.
    assert (info.value.line, info.value.hand, info.value.action) == (line_of(text, "play 1 9C"), 2, 22)
    assert "does not hold 9D" in str(info.value)


def test_a_card_dealt_twice_is_refused_on_replay() -> None:
    text = golden_text("pagat-2-1")
    bad = replace_line(text, "deal 0:4C 1:9C 2:AD 3:7C turn:8C", "deal 0:4C 1:9C 2:4C 3:7C turn:8C")
    with pytest.raises(RecordError) as info:
        loads(bad).replay()
    assert info.value.hand == 2 and "4C" in str(info.value)


def test_a_record_that_stops_mid_match_is_refused_only_when_complete_is_asked() -> None:
    text = golden_text("pagat-2-1")
    lines = text.splitlines()
    stop = line_of(text, "play 0 AS")
    partial = loads("\n".join(lines[:stop]) + "\n")
    state = partial.replay()  # accepted without complete=True
    assert state.phase is Phase.PLAY and state.hand_number == 0 and state.to_act == 1
    assert state.trick == [Card.parse("10S"), Card.parse("JD"), Card.parse("AS")]
    with pytest.raises(RecordError) as info:
        partial.replay(complete=True)
    assert "stops before the match is over" in str(info.value) and "Bob (seat 2) to play" in str(info.value)
    assert info.value.hand == 1 and info.value.action == 9


def test_a_record_that_stops_between_hands_is_incomplete_too() -> None:
    record = load(GOLDEN / "pagat-2-1.ohr")
    first_hand = Record(record.rules, record.seats, record.actions[:14], record.tags)
    assert isinstance(record.actions[14], Deal)
    state = first_hand.replay()
    assert state.phase is Phase.DEAL and len(state.results) == 1
    with pytest.raises(RecordError, match="the deal of hand 2"):
        first_hand.replay(complete=True)


@pytest.mark.parametrize("name", ["Ann\u2028bid 0 1", "Ann\x1cplay 0 AS", " Ann", "Ann "])
def test_names_that_would_not_read_back_are_refused(name: str) -> None:
    # str.splitlines breaks on more than \n and \r; a name must stay one record line.
    with pytest.raises(RecordError, match="one line"):
        Record(PRESETS["pagat"], (name, "Bob", "Cid", "Dee"), ())
