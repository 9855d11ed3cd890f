"""Count files as an oracle for the rules, like python-chess's perft files.

``counts/hands_per_sequence.txt`` gives, per rule set and player count, the
number of hands and their sizes (R-START, R-SEQ-*, R-DECK-AU, R-PLAYERS).
``counts/legal_actions.txt`` gives fixed deals and actions in game-record
notation and the number of legal actions each named seat has then (R-BID-*,
R-HOOK, R-FOLLOW, R-TRICK, R-TRUMP-BIDDER, R-DECK-AU, R-DEVILS-BRIDGE, ...).
The expected numbers were worked out by hand from the rules; on a mismatch
the test prints the file line, expected and found, and the actions found.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from ohhell import (
    GameState,
    IllegalActionError,
    Rules,
    RulesError,
    actors,
    apply,
    chance_action,
    is_legal,
    legal_actions,
    make_rules,
    new_game,
)
from ohhell.game import Action
from ohhell.record import describe_next, format_action, parse_action

COUNTS = Path(__file__).parents[1] / "counts"


def rules_from(words: list[str], where: str) -> Rules:
    """A preset name, then option=value words, as ``make_rules`` reads them."""
    preset, *options = words
    pairs = {}
    for word in options:
        key, sep, value = word.partition("=")
        if not sep:
            raise ValueError(f"{where}: an option is written name=value, not {word!r}")
        pairs[key] = value
    return make_rules(preset, pairs)


# --- hands_per_sequence.txt ---


@dataclass(frozen=True)
class SequenceLine:
    line: int
    rules: list[str]
    players: int
    hands: int | None  # None: the rule set must be refused
    sizes: tuple[int, ...]

    @property
    def where(self) -> str:
        return f"hands_per_sequence.txt:{self.line}"


def parse_sequences(text: str) -> list[SequenceLine]:
    out = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        columns = [c.strip() for c in line.split("|")]
        where = f"hands_per_sequence.txt:{number}"
        if len(columns) == 3 and columns[2] == "refused":
            out.append(SequenceLine(number, columns[0].split(), int(columns[1]), None, ()))
            continue
        if len(columns) != 4:
            raise ValueError(f"{where}: expected 'rules | players | hands | sizes', got {line!r}")
        sizes = tuple(int(w) for w in columns[3].split())
        out.append(SequenceLine(number, columns[0].split(), int(columns[1]), int(columns[2]), sizes))
    return out


SEQUENCES = parse_sequences((COUNTS / "hands_per_sequence.txt").read_text(encoding="utf-8"))


def test_sequence_file_is_consistent() -> None:
    # R-SEQ-*: the file itself: each count matches its list of sizes.
    assert len(SEQUENCES) >= 25
    for case in SEQUENCES:
        if case.hands is not None:
            assert case.hands == len(case.sizes), (
                f"{case.where}: {case.hands} hands but {len(case.sizes)} sizes"
            )


def play_match(rules: Rules, seed: int) -> GameState:
    state = new_game(rules)
    rng = random.Random(seed)
    while not state.is_over:
        if state.is_chance:
            apply(state, chance_action(state, rng))
        else:
            apply(state, rng.choice(legal_actions(state, actors(state)[0])))
    return state


@pytest.mark.parametrize("case", SEQUENCES, ids=[f"line{c.line}" for c in SEQUENCES])
def test_hands_per_sequence(case: SequenceLine) -> None:
    # R-START, R-SEQ-DOWNUP, R-SEQ-UPDOWN, R-SEQ-DOWN, R-SEQ-UP, R-SEQ-FIXED,
    # R-SEQ-OKENUFF, R-DECK-AU, R-PLAYERS: the schedule, and the hands that a
    # whole match really deals, agree with the count file.
    words = [*case.rules, f"players={case.players}"]
    if case.hands is None:
        with pytest.raises(RulesError):
            rules_from(words, case.where)
        return
    rules = rules_from(words, case.where)
    assert rules.schedule == case.sizes, (
        f"{case.where}: {' '.join(case.rules)} with {case.players} players: expected {case.hands} hands "
        f"{list(case.sizes)}, the rules give {len(rules.schedule)} hands {list(rules.schedule)}"
    )
    state = play_match(rules, case.line)
    played = [r.size for r in state.results if not r.extra]
    assert played == list(case.sizes), f"{case.where}: a match dealt {played}, expected {list(case.sizes)}"
    assert all(r.extra for r in state.results[len(case.sizes) :])


# --- legal_actions.txt ---


@dataclass
class CountCase:
    name: str
    line: int
    rules: list[str] = field(default_factory=list)
    actions: list[tuple[int, Action]] = field(default_factory=list)
    actors: tuple[int, ...] | None = None
    expect: list[tuple[int, int, int]] = field(default_factory=list)  # (line, seat, count)


def parse_counts(text: str, name: str = "legal_actions.txt") -> list[CountCase]:
    """Read the count file; a malformed line raises ValueError naming it."""
    cases: list[CountCase] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        verb, _, rest = line.partition(" ")
        words = rest.split()
        where = f"{name}:{number}"
        if verb == "case":
            if len(words) != 1:
                raise ValueError(f"{where}: 'case' takes one name")
            cases.append(CountCase(words[0], number))
            continue
        if not cases:
            raise ValueError(f"{where}: {verb!r} before the first 'case'")
        case = cases[-1]
        try:
            if verb == "rules":
                case.rules = words
            elif verb == "actors":
                case.actors = () if words == ["-"] else tuple(int(w) for w in words)
            elif verb == "expect":
                seat, count = (int(w) for w in words)
                case.expect.append((number, seat, count))
            else:
                case.actions.append((number, parse_action(line)))
        except ValueError as err:
            raise ValueError(f"{where}: {err}") from None
    for case in cases:
        if not case.rules or not case.expect:
            raise ValueError(
                f"{name}:{case.line}: case {case.name} needs a 'rules' line and an 'expect' line"
            )
    return cases


CASES = parse_counts((COUNTS / "legal_actions.txt").read_text(encoding="utf-8"))


def test_count_file_is_well_formed() -> None:
    # The harness behind the R- counts: enough cases, each named once.
    assert len(CASES) >= 30
    assert len({c.name for c in CASES}) == len(CASES), "case names must be unique"


def test_count_parser_names_a_bad_line() -> None:
    # The harness behind the R- counts: a malformed file fails loudly, never silently.
    with pytest.raises(ValueError, match=r"x\.txt:3: 'bid' takes a seat and a number"):
        parse_counts("case a\nrules pagat\nbid 1\nexpect 0 0\n", "x.txt")
    with pytest.raises(ValueError, match=r"x\.txt:1: 'expect' before the first 'case'"):
        parse_counts("expect 0 0\n", "x.txt")
    with pytest.raises(ValueError, match="case b needs"):
        parse_counts("case b\nrules pagat\n", "x.txt")


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_legal_action_counts(case: CountCase) -> None:
    # R-BID-ORDER, R-BID-RANGE, R-HOOK, R-BID-CHANGE, R-BID-SIMULTANEOUS,
    # R-TRUMP-BIDDER, R-LEAD-LEFT, R-LEAD-DEALER, R-FOLLOW, R-TRICK, R-DECK-AU,
    # R-DEVILS-BRIDGE, R-DEALER-DRAW: counts at fixed deals (see the file).
    where = f"legal_actions.txt:{case.line} (case {case.name})"
    state = new_game(rules_from(case.rules, where))
    for number, action in case.actions:
        try:
            apply(state, action)
        except IllegalActionError as err:
            pytest.fail(
                f"legal_actions.txt:{number} (case {case.name}): {format_action(action)} refused: {err}"
            )
    problems = []
    if case.actors is not None and actors(state) != case.actors:
        problems.append(f"actors: expected {list(case.actors)}, got {list(actors(state))}")
    for number, seat, count in case.expect:
        found = legal_actions(state, seat)
        if len(found) != count:
            shown = ", ".join(format_action(a) for a in found) or "none"
            problems.append(
                f"line {number}: seat {seat}: expected {count} legal actions, got {len(found)}: {shown}"
            )
        refused = [format_action(a) for a in found if not is_legal(state, a)]
        if refused:
            problems.append(f"line {number}: seat {seat}: listed but refused by check: {', '.join(refused)}")
    assert not problems, f"{where}, waiting for {describe_next(state)}:\n  " + "\n  ".join(problems)


def test_a_wrong_count_prints_a_diagnosis() -> None:
    # R-BID-RANGE: the first bidder of a 3-card hand has 4 bids, not 5; the
    # failure names the line, both numbers and the actions found.
    (case,) = parse_counts(
        "case wrong\nrules common hand-sizes=3\n"
        "deal 0:AS,KS,QS 1:AH,KH,QH 2:AD,KD,QD 3:AC,KC,QC turn:2C\nactors 2\nexpect 1 5\n"
    )
    with pytest.raises(AssertionError) as info:
        test_legal_action_counts(case)
    message = str(info.value)
    assert "actors: expected [2], got [1]" in message
    assert "line 5: seat 1: expected 5 legal actions, got 4: bid 1 0, bid 1 1, bid 1 2, bid 1 3" in message
    assert "seat 1 to bid" in message
