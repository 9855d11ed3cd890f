"""The local match behind `ohhell play`: bots asked one move at a time, the
human's actions checked, the record saved after every action, resume and
reproducible chance, and events that show only what the human may know."""

from __future__ import annotations

from pathlib import Path

import pytest

from ohhell import (
    Bid,
    ChangeBid,
    Deal,
    IllegalActionError,
    NameTrump,
    Observation,
    Phase,
    Play,
    Rules,
    load,
    make_rules,
)
from ohhell.game import Action
from ohhell.terminal.saves import keep_previous
from ohhell.terminal.session import HUMAN, Next, Session, SessionError, default_save_path
from support import refused_by

SHORT = {"hand-sizes": "3,2,1"}
VARIANTS = {
    "pagat": ("pagat", SHORT),
    "okenuff": ("okenuff", {"hand-sizes": "3,2"}),
    "simultaneous": (
        "pagat",
        {"bidding": "simultaneous", "hook": "no", "bid-changes": "no", "hand-sizes": "2,1"},
    ),
    "devils-bridge": ("pagat", {"devils-bridge": "yes", "hand-sizes": "2,1"}),
    "teams": ("classic-tens", {"teams": "0+2,1+3", "hand-sizes": "2,1"}),
    "five-players": ("river", {"players": "5", "hand-sizes": "2,1"}),
}


def rules_of(variant: str) -> Rules:
    preset, options = VARIANTS[variant]
    return make_rules(preset, options)


def human_choice(obs: Observation) -> Action:
    """A deterministic human: bids the high cards it holds, names its longest
    suit, plays its first legal card."""
    legal = obs.legal_actions
    first = legal[0]
    if isinstance(first, Bid):
        target = sum(1 for c in obs.hand if c.rank >= 13)
        return min(legal, key=lambda a: (abs(a.bid - target), a.bid) if isinstance(a, Bid) else (99, 0))
    if isinstance(first, NameTrump):
        return max(
            legal,
            key=lambda a: sum(1 for c in obs.hand if isinstance(a, NameTrump) and c.suit is a.suit),
        )
    return first


def play_to_end(session: Session, *, change_once: bool = False, stop_after: int | None = None) -> int:
    """Drive ``session`` with ``human_choice``; return the human's decisions."""
    decisions = 0
    changed = False
    while True:
        what = session.next()
        if what is Next.OVER:
            return decisions
        if what is Next.HUMAN:
            if stop_after is not None and decisions >= stop_after:
                return decisions
            decisions += 1
            obs = session.observation()
            if session.in_change_window:
                if change_once and not changed:
                    current = obs.bids[session.human]
                    assert current is not None
                    session.act(ChangeBid(session.human, 1 if current == 0 else 0))
                    changed = True
                else:
                    session.keep_bid()
                continue
            session.act(human_choice(obs))
        else:
            session.step()


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_whole_match_in_every_variant(tmp_path: Path, variant: str) -> None:
    path = tmp_path / "m.ohr"
    session = Session.new(rules_of(variant), seat=1, seed=11, save_path=path)
    assert play_to_end(session) > 0
    assert session.is_over
    record = load(path)
    assert record.actions == tuple(session.state.log)  # saved through the last action
    assert record.replay(complete=True).totals == session.state.totals
    tags = dict(record.tags)
    assert tags["kinds"].split(",") == list(session.kinds) and tags["seed"] == "11"
    assert session.kinds[1] == HUMAN and tags["human"] == "1"


def test_bid_change_is_offered_and_recorded(tmp_path: Path) -> None:
    session = Session.new(make_rules("pagat", SHORT), seat=0, seed=2, save_path=tmp_path / "m.ohr")
    play_to_end(session, change_once=True)
    changes = [a for a in session.state.log if isinstance(a, ChangeBid)]
    assert changes and all(a.seat == 0 for a in changes)


def test_the_session_waits_while_the_human_may_change_a_bid(tmp_path: Path) -> None:
    session = Session.new(make_rules("pagat", SHORT), seat=0, seed=2, save_path=tmp_path / "m.ohr")
    while not session.in_change_window:
        if session.next() is Next.HUMAN:
            session.act(human_choice(session.observation()))
        else:
            session.step()
    assert session.next() is Next.HUMAN  # the next bot does not bid yet (R-BID-CHANGE)
    with pytest.raises(SessionError):
        session.step()
    assert session.hint() is None  # the expert suggests bids, trump and cards only
    session.keep_bid()
    assert session.next() is Next.BOT
    event = session.step()
    assert event.kind == "bid" and not session.in_change_window


class FakeClock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def to_change_window(session: Session) -> None:
    while not session.in_change_window:
        if session.next() is Next.HUMAN:
            session.act(human_choice(session.observation()))
        else:
            session.step()


def test_the_next_bot_waits_only_the_grace_for_a_bid_change(tmp_path: Path) -> None:
    # R-BID-CHANGE: the next bidder gives the human change_grace seconds, then bids
    # without anyone keeping the bid; a change typed before the bot bids still counts.
    clock = FakeClock()
    session = Session.new(
        make_rules("pagat", SHORT), seat=0, seed=2, save_path=tmp_path / "m.ohr", change_grace=3, clock=clock
    )
    to_change_window(session)
    assert session.next() is Next.HUMAN and session.change_left() == 3
    clock.now += 2.5
    assert session.next() is Next.HUMAN and session.change_left() == pytest.approx(0.5)
    clock.now += 0.5
    assert session.next() is Next.BOT and session.change_left() == 0
    assert session.in_change_window  # still free to change until the bot bids
    current = session.observation().bids[0]
    assert current is not None
    session.act(ChangeBid(0, 1 if current == 0 else 0))
    assert session.next() is Next.BOT
    event = session.step()
    assert event.kind == "bid" and event.seat == 1 and not session.in_change_window


def test_no_grace_lets_the_next_bot_bid_at_once(tmp_path: Path) -> None:
    # R-BID-CHANGE with a zero wait: the bid may change only until the next bid, which comes at once.
    session = Session.new(
        make_rules("pagat", SHORT), seat=0, seed=2, save_path=tmp_path / "m.ohr", change_grace=0
    )
    to_change_window(session)
    assert session.next() is Next.BOT
    session.keep_bid()  # keeping a bid nobody waits for is harmless
    assert session.next() is Next.BOT


def test_an_illegal_human_action_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "m.ohr"
    session = Session.new(make_rules("pagat", SHORT), seat=0, seed=3, save_path=path)
    while session.next() is not Next.HUMAN:
        session.step()
    before = list(session.state.log)
    saved = path.read_text()
    with refused_by("R-BID-RANGE"):
        session.act(Bid(0, 9))
    with pytest.raises(IllegalActionError, match="seat 0"):
        session.act(Bid(1, 0))  # not the human's seat
    with pytest.raises(IllegalActionError):
        session.act(Play(0, session.observation().hand[0]))  # bidding, not playing
    assert session.state.log == before and path.read_text() == saved


def test_the_record_on_disk_has_every_action_after_each_step(tmp_path: Path) -> None:
    path = tmp_path / "m.ohr"
    session = Session.new(make_rules("pagat", {"hand-sizes": "2,1"}), seed=4, save_path=path)
    while not session.is_over:
        if session.next() is Next.HUMAN:
            if session.in_change_window:
                session.keep_bid()
                continue
            session.act(human_choice(session.observation()))
        else:
            session.step()
        assert load(path).actions == tuple(session.state.log)


@pytest.mark.parametrize("variant", ["pagat", "okenuff", "simultaneous", "devils-bridge"])
def test_resume_plays_on_exactly_as_an_uninterrupted_match(tmp_path: Path, variant: str) -> None:
    whole = Session.new(rules_of(variant), seed=21, save_path=tmp_path / "whole.ohr")
    play_to_end(whole)
    for stop in (1, 3, 6):
        path = tmp_path / f"part{stop}.ohr"
        part = Session.new(rules_of(variant), seed=21, save_path=path)
        play_to_end(part, stop_after=stop)
        resumed = Session.resume(path)
        assert resumed.state.log == part.state.log and resumed.kinds == part.kinds
        play_to_end(resumed)
        assert resumed.state.log == whole.state.log
        assert resumed.state.totals == whole.state.totals


def test_each_deal_depends_only_on_the_seed_and_the_hand(tmp_path: Path) -> None:
    rules = make_rules("pagat", {"hand-sizes": "3,3,3"})
    a = Session.new(rules, seed=8)
    b = Session.new(rules, seed=8, levels=("random",))
    play_to_end(a)
    play_to_end(b)
    deals_a = [x for x in a.state.log if isinstance(x, Deal)]
    deals_b = [x for x in b.state.log if isinstance(x, Deal)]
    assert deals_a == deals_b  # other bots, other play, the same cards
    c = Session.new(rules, seed=9)
    play_to_end(c)
    assert [x for x in c.state.log if isinstance(x, Deal)] != deals_a


def test_sealed_bids_stay_sealed_in_events(tmp_path: Path) -> None:
    session = Session.new(rules_of("simultaneous"), seed=5, save_path=tmp_path / "m.ohr")
    seen = []
    while session.state.hand_number == 0 and not session.is_over:
        if session.next() is Next.HUMAN:
            event = session.act(human_choice(session.observation()))
        else:
            event = session.step()
        seen.append(event)
    bids = [e for e in seen if e.kind == "bid"]
    assert len(bids) == 4
    others = [e for e in bids if e.seat != session.human]
    assert others[:-1] and all(e.action is None for e in others[:-1])  # sealed until the last
    assert bids[0].seat == session.human and bids[0].action is not None  # the human's own bid


def test_devils_bridge_hides_the_own_card_and_shows_it_once_played(tmp_path: Path) -> None:
    session = Session.new(make_rules("pagat", {"devils-bridge": "yes", "hand-sizes": "1"}), seed=6)
    while session.next() is not Next.HUMAN:
        session.step()
    obs = session.observation()
    assert obs.devils_bridge and obs.hand == ()
    assert all(obs.hands[s] for s in range(4) if s != session.human)
    while session.state.phase is not Phase.PLAY or session.next() is not Next.HUMAN:
        if session.next() is not Next.HUMAN:
            session.step()
        elif session.in_change_window:
            session.keep_bid()
        else:
            session.act(human_choice(session.observation()))
    real = session.state.hands[session.human][0]
    event = session.act(Play(session.human, None))
    assert event.action == Play(session.human, real)


def test_setup_errors_say_why(tmp_path: Path) -> None:
    rules = make_rules("pagat", SHORT)
    with pytest.raises(SessionError, match="seat"):
        Session.new(rules, seat=4)
    with pytest.raises(SessionError, match="one bot level, or one for each"):
        Session.new(rules, levels=("random", "beginner"))
    with pytest.raises(SessionError, match="unknown bot level"):
        Session.new(rules, levels=("grandmaster",))
    with pytest.raises(SessionError, match="cannot read"):
        Session.resume(tmp_path / "missing.ohr")
    bad = tmp_path / "bad.ohr"
    bad.write_text("not a record\n")
    with pytest.raises(SessionError, match="not a game record"):
        Session.resume(bad)


def test_a_record_without_play_tags_is_continued(tmp_path: Path) -> None:
    import random

    from ohhell.bots.simulate import random_match
    from ohhell.record import Record, dump

    state = random_match(make_rules("pagat", {"hand-sizes": "2,1"}), random.Random(1))
    path = tmp_path / "sim.ohr"
    dump(Record.from_state(state), path)
    session = Session.resume(path)
    assert session.is_over and session.kinds[0] == HUMAN


def test_save_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OHHELL_HOME", str(tmp_path / "home"))
    assert default_save_path() == tmp_path / "home" / "current.ohr"
    session = Session.new(make_rules("pagat", SHORT), save_path=default_save_path())
    assert default_save_path().exists()
    kept = keep_previous(default_save_path())
    assert kept is not None and kept.exists() and not default_save_path().exists()
    assert kept.name.startswith("current-") and kept.suffix == ".ohr"
    assert load(kept).actions == tuple(session.state.log)
    assert keep_previous(default_save_path()) is None
