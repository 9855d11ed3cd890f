"""The line mode of `ohhell play`: whole matches by answers, in process and
through a pipe, bad answers re-asked with the reason, commands, quitting,
the end of the input, Ctrl-C, resume, and no hidden card in the text."""

from __future__ import annotations

import io
import itertools
import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import ClassVar

import pytest

from ohhell import Bid, Card, ChangeBid, Phase, Play, load, make_rules
from ohhell.describe import sort_hand
from ohhell.rules import Rules
from ohhell.terminal.plain import PlainUI, tty_waiter
from ohhell.terminal.session import Next, Session
from ohhell.view import can_see_hand

VARIANTS = {
    "pagat": ("pagat", {"hand-sizes": "3,2,1"}),
    "okenuff": ("okenuff", {"hand-sizes": "3,2"}),
    "simultaneous": (
        "pagat",
        {"bidding": "simultaneous", "hook": "no", "bid-changes": "no", "hand-sizes": "2,1"},
    ),
    "devils-bridge": ("pagat", {"devils-bridge": "yes", "hand-sizes": "2,1"}),
    "teams": ("classic-tens", {"teams": "0+2,1+3", "hand-sizes": "2,1"}),
    "six-australian": ("common", {"players": "6", "deck": "australian", "hand-sizes": "2,1"}),
}


def cli_args(variant: str) -> list[str]:
    preset, options = VARIANTS[variant]
    args = ["--preset", preset]
    for key, value in options.items():
        args += [f"--{key}", value]
    return args


def rules_of(variant: str) -> Rules:
    preset, options = VARIANTS[variant]
    return make_rules(preset, options)


# --- A scripted player that answers the prompts from what it is shown ---------------------------------


class Answers:
    """stdin for PlainUI: answers each prompt from the human's observation,
    after any scripted answers given for the first prompt of a kind."""

    def __init__(self, session: Session, first: dict[str, list[str]] | None = None) -> None:
        self.session = session
        self.first = {k: list(v) for k, v in (first or {}).items()}
        self.given: list[str] = []
        self.count = 0

    def isatty(self) -> bool:
        return False

    def readline(self) -> str:
        answer = self.answer()
        self.given.append(answer)
        return answer + "\n"

    def kind(self) -> str:
        s = self.session
        if s.in_change_window:
            return "change"
        return {Phase.BID: "bid", Phase.TRUMP: "trump", Phase.PLAY: "play"}[s.state.phase]

    def answer(self) -> str:
        s = self.session
        assert s.next() is Next.HUMAN
        obs = s.observation()
        kind = self.kind()
        script = self.first.get(kind)
        if script:
            return script.pop(0)
        if kind == "change":
            return ""
        self.count += 1
        if kind == "bid":
            legal = [a.bid for a in obs.legal_actions if isinstance(a, Bid)]
            if obs.rules.scoring.value == "okenuff":
                return str(max(legal))  # bid high, to name trump
            target = sum(1 for c in obs.hand if c.rank >= 13)
            return str(min(legal, key=lambda b: (abs(b - target), b)))
        if kind == "trump":
            return ["hearts", "NT", "3", "s", "♣"][self.count % 5]
        if obs.devils_bridge:
            return ""
        cards = sort_hand([a.card for a in obs.legal_actions if isinstance(a, Play) and a.card is not None])
        card = cards[-1]
        form = self.count % 3
        if form == 0:
            return str(cards.index(card) + 1)
        return str(card) if form == 1 else str(card).replace("10", "t").lower()


class Watched(io.StringIO):
    """stdout for PlainUI that fails a test when text names a card hidden from
    the human at the moment it is written."""

    CARD = re.compile(r"\b(ace|king|queen|jack|10|[2-9]) of (clubs|diamonds|hearts|spades)\b")
    GROUP = re.compile(r"\b(clubs|diamonds|hearts|spades)((?: (?:A|K|Q|J|10|[2-9]))+)\b")
    RANKS: ClassVar[dict[str, str]] = {"ace": "A", "king": "K", "queen": "Q", "jack": "J"}

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session

    def named(self, text: str) -> set[Card]:
        cards = set()
        for rank, suit in self.CARD.findall(text):
            cards.add(Card.parse(self.RANKS.get(rank, rank) + suit[0]))
        for suit, ranks in self.GROUP.findall(text):
            cards.update(Card.parse(r + suit[0]) for r in ranks.split())
        return cards

    def hidden(self) -> set[Card]:
        st = self.session.state
        if st.phase not in (Phase.BID, Phase.TRUMP, Phase.PLAY):
            return set()
        me = self.session.human
        return {c for s in range(st.players) if not can_see_hand(st, me, s) for c in st.hands[s]}

    def write(self, text: str) -> int:
        leaked = self.named(text) & self.hidden()
        assert not leaked, f"hidden cards {leaked} in {text!r}"
        return super().write(text)


def play(session: Session, first: dict[str, list[str]] | None = None) -> tuple[int, str, Answers]:
    answers = Answers(session, first)
    out = Watched(session)
    code = PlainUI(session, answers, out).run()  # type: ignore[arg-type]
    return code, out.getvalue(), answers


def final_lines(text: str) -> list[str]:
    """The standings and tie-break lines at the end (not where the record is)."""
    lines = text[text.index("Final standings:") :].splitlines()[1:]
    return [line for line in lines if not line.startswith("The game record is in")]


# --- In process --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_whole_match_in_line_mode(tmp_path: Path, variant: str) -> None:
    session = Session.new(rules_of(variant), seat=2, seed=7, save_path=tmp_path / "m.ohr")
    code, text, _ = play(session)
    assert code == 0 and session.is_over
    assert "The match is over. Final standings:" in text
    assert load(tmp_path / "m.ohr").replay(complete=True).totals == session.state.totals
    assert "Your bid (" in text and "\x1b[" not in text  # no colour codes off a terminal
    if variant == "okenuff":
        assert "Name trump (" in text and "You name" in text
    if variant == "devils-bridge":
        assert "You cannot see your own card. The others hold:" in text
    if variant == "simultaneous":
        assert "has bid (sealed until everyone has bid)" in text
    if variant == "teams":
        assert " and " in final_lines(text)[0]  # a team's names


class Typed:
    """A ``Waiter`` for PlainUI: the lines a person types while the next bidder
    waits (None: nothing typed in time), and the waits it was asked for."""

    def __init__(self, *lines: str | None) -> None:
        self.lines = list(lines)
        self.waits: list[float] = []

    def __call__(self, seconds: float) -> str | None:
        self.waits.append(seconds)
        line = self.lines.pop(0) if self.lines else None
        return None if line is None else line + "\n"


def test_a_bid_can_be_changed_while_the_next_bidder_waits(tmp_path: Path) -> None:
    # R-BID-CHANGE: at a terminal, a new bid typed within the grace changes yours.
    session = Session.new(make_rules("pagat", {"hand-sizes": "3,2,1"}), seed=3, save_path=tmp_path / "m.ohr")
    typed = Typed("x", "2", "", None)
    out = Watched(session)
    assert PlainUI(session, Answers(session), out, waiter=typed).run() == 0  # type: ignore[arg-type]
    text = out.getvalue()
    assert "Ada bids in 3 s; type a new bid and Enter to change yours." in text
    assert "'x' is not a bid from 0 to 3: type a new bid, or Enter." in text
    assert "You change the bid to 2." in text
    assert "Change your bid" not in text and "keep" not in text.lower()
    assert any(isinstance(a, ChangeBid) and a.bid == 2 for a in session.state.log)
    assert typed.waits and all(0 < w <= 3 for w in typed.waits)


def test_at_a_terminal_the_game_goes_on_when_nothing_is_typed(tmp_path: Path) -> None:
    # R-BID-CHANGE: the grace ends by itself; nobody has to press a key to keep a bid.
    session = Session.new(make_rules("pagat", {"hand-sizes": "3,2,1"}), seed=3, save_path=tmp_path / "m.ohr")
    typed = Typed()
    out = Watched(session)
    assert PlainUI(session, Answers(session), out, waiter=typed).run() == 0  # type: ignore[arg-type]
    pairs = itertools.pairwise(session.state.log)
    followed = sum(1 for a, b in pairs if isinstance(a, Bid) and a.seat == 0 and isinstance(b, Bid))
    assert session.is_over and followed and len(typed.waits) == followed  # one wait after each such bid
    assert not any(isinstance(a, ChangeBid) for a in session.state.log)


def test_a_script_is_never_waited_for_after_its_bid(tmp_path: Path) -> None:
    # R-BID-CHANGE: input that is not a terminal answers one question a line: the bid stands at once.
    session = Session.new(make_rules("pagat", {"hand-sizes": "3,2,1"}), seed=3, save_path=tmp_path / "m.ohr")
    start = time.monotonic()
    code, text, _ = play(session)
    assert code == 0 and session.is_over
    assert time.monotonic() - start < 2.5  # not one 3 s grace waited
    assert "bids in" not in text and "change" not in text.lower()


def test_the_terminal_waiter_times_out_and_drops_half_typed_input() -> None:
    primary, secondary = os.openpty()
    with open(secondary, closefd=True) as tty, open(primary, "wb", buffering=0, closefd=True) as keys:
        wait = tty_waiter(tty)
        assert wait is not None
        start = time.monotonic()
        assert wait(0.2) is None and time.monotonic() - start >= 0.2
        keys.write(b"3\n")
        assert wait(2) == "3\n"
        keys.write(b"2")  # typed, never sent with Enter: thrown away when the time is up
        time.sleep(0.05)
        assert wait(0.1) is None
        keys.write(b"1\n")
        assert wait(2) == "1\n"
    assert tty_waiter(io.StringIO("1\n")) is None  # not a terminal: never waited on


def test_bad_answers_are_reasked_with_the_reason(tmp_path: Path) -> None:
    rules = make_rules("pagat", {"hand-sizes": "4,3", "first-dealer": "0"})  # seat 0 bids last: the hook
    for seed in range(1, 20):
        session = Session.new(rules, seed=seed, save_path=tmp_path / "m.ohr")
        while session.next() is not Next.HUMAN:
            session.step()
        obs = session.observation()
        if obs.forbidden_bid is not None:
            break
    assert obs.forbidden_bid is not None
    held = set(obs.hand)
    absent = next(
        c for c in sort_hand(list(Card.parse(f"{r}{s}") for s in "SHCD" for r in "A23")) if c not in held
    )
    code, text, _ = play(
        session,
        {
            "bid": ["xyz", "99", "", str(obs.forbidden_bid)],
            "play": ["ZZ", "sixx of hearts", "17", str(absent)],
        },
    )
    assert code == 0
    for reason in (
        "'xyz' is not a bid: answer with a number of tricks from 0 to 4.",
        "You cannot bid 99: a bid is from 0 to 4",
        "Please answer with a number of tricks from 0 to 4.",
        f"You may not bid {obs.forbidden_bid}: the hook forbids the last bidder",
        "'ZZ' is not a card I can read. Answer its number in the list (1 to",
        "'sixx of hearts' is not a card I can read.",
        "or the card: 10H, TH or AS, or in words, like queen of spades.",
        "There is no card 17: answer 1 to",
        f"You do not hold the {absent.rank.symbol if absent.rank < 11 else ''}",
    ):
        assert reason in text, reason
    assert f"Your bid (0-4, not {obs.forbidden_bid} because of the hook):" in text
    assert "is not a rank" not in text  # the parser's own words never reach the player


def test_a_card_that_does_not_follow_suit_is_refused(tmp_path: Path) -> None:
    class Revoker(Answers):
        tried = False

        def answer(self) -> str:
            obs = self.session.observation()
            if self.kind() == "play" and obs.trick and not self.tried:
                led = obs.trick[0][1].suit
                other = [c for c in obs.hand if c.suit is not led]
                if other and any(c.suit is led for c in obs.hand):
                    self.tried = True
                    return str(other[0])
            return super().answer()

    for seed in range(1, 30):
        session = Session.new(make_rules("pagat", {"hand-sizes": "6,5"}), seed=seed)
        answers = Revoker(session)
        out = Watched(session)
        PlainUI(session, answers, out).run()  # type: ignore[arg-type]
        if answers.tried:
            assert "R-" not in out.getvalue() and "you must follow" in out.getvalue()
            return
    pytest.fail("no deal let the human try to revoke")


def test_commands_hint_rules_score_sheet_and_help(tmp_path: Path) -> None:
    class SheetInHandTwo(Answers):
        asked = False

        def answer(self) -> str:
            if self.session.state.hand_number == 1 and not self.asked:
                self.asked = True
                return "s"
            return super().answer()

    session = Session.new(make_rules("okenuff", {"hand-sizes": "3,2"}), seed=9, hint_seconds=0.02)
    first = {"bid": ["h", "?", "s", "help"], "play": ["hint"], "trump": ["h", "7", "hint"]}
    answers = SheetInHandTwo(session, first)
    out = Watched(session)
    code = PlainUI(session, answers, out).run()  # type: ignore[arg-type]
    text = out.getvalue()
    assert code == 0
    assert "Hint: the expert would bid" in text and "Hint: the expert would play the" in text
    assert "Hint: the expert would name" in text
    assert "Rules: Okenuff's rules, 4 players (hand sizes: 3,2)." in text
    assert "The highest bidder names a trump suit" in text or "names a trump suit or no trump" in text
    assert "Score sheet:\nNo hand has been finished yet." in text
    assert "Score sheet:\nHand 1 (3 cards" in text
    assert "'h' could mean hearts or a hint" in text and "'7' is not a choice" in text


def test_quit_and_end_of_input_save_and_resume(tmp_path: Path) -> None:
    path = tmp_path / "m.ohr"
    rules = make_rules("pagat", {"hand-sizes": "3,2"})
    whole = Session.new(rules, seed=12, save_path=tmp_path / "whole.ohr")
    _, whole_text, answers = play(whole)

    session = Session.new(rules, seed=12, save_path=path)
    out = io.StringIO()
    script = io.StringIO("\n".join([*answers.given[:3], "q", *answers.given[3:]]) + "\n")
    assert PlainUI(session, script, out).run() == 0
    assert "You quit: the match is saved in" in out.getvalue()
    assert f"To continue it: ohhell play --resume {path}" in out.getvalue()
    assert load(path).actions == tuple(session.state.log)

    resumed = Session.resume(path)
    out, err = io.StringIO(), io.StringIO()
    assert PlainUI(resumed, io.StringIO("\n".join(answers.given[3:5])), out, err).run() == 0
    assert "Resuming the match at hand" in out.getvalue()
    # The stop is said on stderr: stdout keeps the game alone.
    assert "The input ended: the match is saved in" in err.getvalue()
    assert "The input ended" not in out.getvalue()

    last = Session.resume(path)
    out = io.StringIO()
    assert PlainUI(last, io.StringIO("\n".join(answers.given[5:]) + "\n"), out).run() == 0
    assert final_lines(out.getvalue()) == final_lines(whole_text)
    assert last.state.log == whole.state.log


def test_a_finished_match_resumes_to_its_standings(tmp_path: Path) -> None:
    session = Session.new(make_rules("pagat", {"hand-sizes": "1"}), seed=1, save_path=tmp_path / "m.ohr")
    _, text, _ = play(session)
    out = io.StringIO()
    assert PlainUI(Session.resume(tmp_path / "m.ohr"), io.StringIO(""), out).run() == 0
    assert final_lines(out.getvalue()) == final_lines(text)


# --- Through a pipe ---------------------------------------------------------------------------------------


def ohhell(
    *args: str, stdin: str = "", env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ohhell.cli", "play", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )


BID_PROMPT = re.compile(r"Your bid \(0-(\d+)(?:, not (\d+) because of the hook)?\): $")


def test_a_newcomer_pipes_only_bids_and_cards_through_a_whole_default_match(tmp_path: Path) -> None:
    """``ohhell play`` with its defaults (4 players, pagat, intermediate bots),
    answered as a person reads it: a bid when asked for a bid, a card when
    asked for a card, nothing else. Any other question (a bid to keep, a key to
    press) stops the test: after a bid the game must go on by itself
    (R-BID-CHANGE: the next bidder waits only a bounded grace)."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ohhell.cli",
            "play",
            "--plain",
            "--seed",
            "12",
            "--save",
            str(tmp_path / "m.ohr"),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env={**os.environ, "OHHELL_HOME": str(tmp_path), "NO_COLOR": "1"},
    )
    assert proc.stdin is not None and proc.stdout is not None
    fd = proc.stdout.fileno()
    text, seen, answers = "", 0, 0
    deadline = time.monotonic() + 60
    try:
        while proc.poll() is None or select.select([fd], [], [], 0)[0]:
            assert time.monotonic() < deadline, text[-2000:]
            if not select.select([fd], [], [], 0.5)[0]:
                continue
            chunk = os.read(fd, 65536).decode()
            if not chunk:
                break
            text += chunk
            tail = text[seen:]
            if not tail.endswith(": "):
                continue  # not a question yet
            question = tail.splitlines()[-1]
            bid = BID_PROMPT.search(question)
            if bid is not None:
                answer = "1" if bid.group(2) != "1" else "0"
            elif question == "Your card: ":
                answer = "1"  # the first card of the list of playable cards above
            else:
                pytest.fail(f"a question that is neither a bid nor a card: {question!r}")
            proc.stdin.write(answer.encode() + b"\n")
            proc.stdin.flush()
            seen, answers = len(text), answers + 1
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    assert proc.returncode == 0, text[-2000:]
    assert "The match is over. Final standings:" in text
    state = load(tmp_path / "m.ohr").replay(complete=True)
    assert state.is_over and len(state.results) >= len(state.rules.schedule)  # every hand played
    assert answers == len(state.results) + sum(r.size for r in state.results)  # one bid a hand, then cards


@pytest.mark.parametrize("variant", ["pagat", "okenuff", "devils-bridge"])
def test_a_whole_match_piped_in_and_resumed(tmp_path: Path, variant: str) -> None:
    whole = Session.new(rules_of(variant), seed=31, save_path=tmp_path / "whole.ohr")
    _, text, answers = play(whole)
    path = tmp_path / "m.ohr"
    args = [*cli_args(variant), "--plain", "--seed", "31", "--save", str(path)]
    done = ohhell(*args, stdin="\n".join(answers.given) + "\n")
    assert done.returncode == 0, done.stderr
    assert final_lines(done.stdout) == final_lines(text)
    assert load(path).actions == tuple(whole.state.log)

    half = len(answers.given) // 2
    part = tmp_path / "part.ohr"
    first = ohhell(
        *cli_args(variant), "--seed", "31", "--save", str(part), stdin="\n".join(answers.given[:half])
    )
    assert first.returncode == 0 and "The input ended" in first.stderr  # not a terminal: line mode anyway
    assert f"ohhell play --resume {part}" in first.stderr and "The input ended" not in first.stdout
    rest = ohhell("--resume", str(part), stdin="\n".join(answers.given[half:]) + "\n")
    assert rest.returncode == 0, rest.stderr
    assert final_lines(rest.stdout) == final_lines(text)
    assert load(part).actions == tuple(whole.state.log)


def test_ctrl_c_saves_every_action(tmp_path: Path) -> None:
    path = tmp_path / "m.ohr"
    save = ["--save", str(path)]
    # A shell that runs the tests in the background starts them with Ctrl-C
    # ignored, and a Python started so keeps ignoring it: the player's
    # process is given the default action back, as a terminal would have it.
    proc = subprocess.Popen(
        [sys.executable, "-m", "ohhell.cli", "play", "--plain", "--hand-sizes", "4,3", "--seed", "3", *save],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert proc.stdin is not None and proc.stdout is not None
    seen = b""
    deadline = time.monotonic() + 30

    def more() -> bytes:
        # Wait for output no longer than the deadline: a read must not hang the suite.
        ready, _, _ = select.select([proc.stdout], [], [], max(0.0, deadline - time.monotonic()))
        assert ready, f"no output before the deadline; so far: {seen.decode()}"
        return proc.stdout.read1(4096)  # type: ignore[union-attr]

    plays_answered = 0
    while plays_answered < 3:
        chunk = more()
        assert chunk and time.monotonic() < deadline, seen.decode()
        seen += chunk
        tail = seen.rsplit(b"\n", 1)[-1]
        if tail.startswith((b"Your bid", b"Change your bid", b"Your card")) and tail.endswith(b": "):
            if tail.startswith(b"Your card"):
                plays_answered += 1
                if plays_answered == 3:
                    break
            answer = b"1\n" if not tail.startswith(b"Change") else b"\n"
            proc.stdin.write(answer)
            proc.stdin.flush()
            seen += b"\n"
    proc.send_signal(signal.SIGINT)
    # Keep the input open until the process has answered the interrupt: were
    # it closed first, a slow process could read the end of its input before
    # the signal arrives and stop as at the end of input (exit 0), by luck.
    while b"Interrupted" not in seen:
        chunk = more()
        assert chunk, seen.decode()
        seen += chunk
    out, err = proc.communicate(timeout=30)
    text = (seen + out).decode()
    assert proc.returncode == 130, err.decode()
    assert "Interrupted: the match is saved in" in text and "ohhell play --resume" in text
    record = load(path)
    state = record.replay()
    printed_plays = len(re.findall(r"^(?:You play|\w+ plays) ", text, flags=re.MULTILINE))
    assert printed_plays == sum(1 for a in record.actions if isinstance(a, Play))
    assert state.to_act == 0 and state.phase is Phase.PLAY  # waiting for the third card
    resumed = Session.resume(path)
    assert resumed.next() is Next.HUMAN


def test_command_line_errors_say_why(tmp_path: Path) -> None:
    save = str(tmp_path / "m.ohr")
    cases = [
        (["--seat", "7"], "ohhell play: --seat takes a number from 1 to 4, not '7'"),
        (["--seat", "0"], "--seat takes a number from 1 to 4, not '0' (seats are counted clockwise from 1)"),
        (["--seat", "Ada", "--players", "5"], "ohhell play: --seat takes a number from 1 to 5, not 'Ada'"),
        (["--first-dealer", "0"], "a seat number from 1 to 4"),
        (["--trick-pause", "-1"], "cannot be negative"),
        (["--bots", "random,random"], "one bot level, or one for each of the 3 opponents"),
        (["--level", "grandmaster"], "unknown bot level 'grandmaster'"),
        (["--bots", "random", "--level", "random"], "give --bots or --level, not both"),
        (["--players", "9"], "3 to 7 players"),
        (["--resume", str(tmp_path / "nothing.ohr")], "there is no saved match at"),
    ]
    for args, message in cases:
        done = ohhell("--plain", "--save", save, *args)
        assert done.returncode == 2 and message in done.stderr, (args, done.stderr)


def test_the_default_file_and_a_previous_match_kept(tmp_path: Path) -> None:
    env = {"OHHELL_HOME": str(tmp_path / "home")}
    first = ohhell("--hand-sizes", "1", "--seed", "1", "--level", "random", env=env, stdin="0\n")
    assert first.returncode == 0
    current = tmp_path / "home" / "current.ohr"
    assert current.exists() and "To continue it: ohhell play --resume\n" in first.stderr
    second = ohhell("--hand-sizes", "1", "--seed", "2", env=env, stdin="")
    assert "The previous match at" in second.stderr and "is kept as" in second.stderr
    kept = [p for p in current.parent.iterdir() if p.name.startswith("current-")]
    assert len(kept) == 1 and load(kept[0]).actions != load(current).actions


def test_without_textual_a_terminal_gets_the_line_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from ohhell.cli import main

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setitem(sys.modules, "textual", None)  # import textual raises ImportError
    monkeypatch.setattr(sys, "stdin", Terminal("0\n"))
    monkeypatch.setattr(sys, "stdout", Terminal())
    monkeypatch.setenv("NO_COLOR", "1")
    code = main(["play", "--hand-sizes", "1", "--seed", "4", "--save", str(tmp_path / "m.ohr")])
    out = sys.stdout.getvalue()  # type: ignore[attr-defined]
    err = capsys.readouterr().err
    assert code == 0
    assert "the full-screen game needs Textual" in err and "playing in line mode" in err
    assert "Your bid (0-1" in out and "\x1b[" not in out


def test_the_hidden_card_check_catches_a_leak() -> None:
    session = Session.new(make_rules("pagat", {"hand-sizes": "3"}), seed=2)
    while session.next() is not Next.HUMAN:
        session.step()
    out = Watched(session)
    other = session.state.hands[(session.human + 1) % 4]
    out.write(f"Your hand: {session.observation().hand[0]!s}")  # one's own cards are fine
    from ohhell.describe import card_words, hand_words

    with pytest.raises(AssertionError, match="hidden cards"):
        out.write(f"Ada plays {card_words(other[0])}.")
    with pytest.raises(AssertionError, match="hidden cards"):
        out.write(f"Ada holds {hand_words(other)}")


def test_a_script_repeating_a_refused_answer_is_stopped_and_saved(tmp_path: Path) -> None:
    # R-HOOK: the last bidder's "1" is refused again and again; input that is
    # not a terminal is given up on after MAX_ANSWERS answers, with the match saved.
    from ohhell.terminal.plain import MAX_ANSWERS

    path = tmp_path / "m.ohr"
    args = [sys.executable, "-m", "ohhell.cli", "play", "--plain", "--hand-sizes", "3,2,1", "--seed", "7"]
    done = subprocess.run(
        [*args, "--save", str(path)], input="1\n" * 10_000, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1, done.stderr
    # The stop is said on stderr: stdout keeps the game alone.
    assert f"Stopped: {MAX_ANSWERS} answers in a row made no choice" in done.stderr
    assert "ohhell play --resume" in done.stderr and "Stopped:" not in done.stdout
    assert done.stdout.count("You may not bid 1") <= MAX_ANSWERS  # bounded output, not a loop
    state = load(path).replay()
    assert state.phase is Phase.BID  # saved at the refused bid, every earlier action kept


# --- Seats from 1, the resume question, the hint's words ---------------------------------------------------


def test_seats_are_counted_from_1(tmp_path: Path) -> None:
    done = ohhell(
        "--plain",
        "--hand-sizes",
        "1",
        "--seed",
        "1",
        "--seat",
        "2",
        "--name",
        "Zoe",
        "--first-dealer",
        "2",
        "--new",
        "--save",
        str(tmp_path / "m.ohr"),
    )
    assert done.returncode == 0, done.stderr
    assert (
        "You are Zoe, in seat 2. Seats, clockwise: 1 Ada (intermediate), 2 Zoe (you), 3 Bruno" in done.stdout
    )
    assert "4 players (hand sizes: 1); you deal first." in done.stdout  # --first-dealer 2: Zoe, seat 2
    assert load(tmp_path / "m.ohr").rules.first_dealer == 1 and load(tmp_path / "m.ohr").seats[1] == "Zoe"


def test_a_saved_match_is_offered_for_resuming(tmp_path: Path) -> None:
    env = {"OHHELL_HOME": str(tmp_path / "home")}
    current = tmp_path / "home" / "current.ohr"
    start = ohhell("--hand-sizes", "2,1", "--seed", "5", "--level", "random", env=env, stdin="0\n")
    assert start.returncode == 0 and "The input ended" in start.stderr
    saved = load(current).actions

    # Enter (or y) resumes: the saved match goes on, nothing is kept aside.
    again = ohhell("--hand-sizes", "3", env=env, stdin="\n")
    assert "An unfinished match is saved in" in again.stdout and "hand 1 of 2" in again.stdout
    assert "Resume it? [Y/n]" in again.stdout and "Resuming the match at hand 1." in again.stdout
    assert load(current).actions[: len(saved)] == saved
    assert not [p for p in current.parent.iterdir() if p.name.startswith("current-")]

    # n starts a new match and keeps the saved one aside.
    new = ohhell("--hand-sizes", "1", "--seed", "2", env=env, stdin="x\nn\n")
    assert "Please answer y (resume) or n (a new match)." in new.stdout
    assert "The previous match at" in new.stderr and "is kept as" in new.stderr
    assert len([p for p in current.parent.iterdir() if p.name.startswith("current-")]) == 1
    assert load(current).rules.schedule == (1,)

    # --new does not ask; --resume neither.
    quiet = ohhell("--hand-sizes", "1", "--new", env=env, stdin="")
    assert "Resume it?" not in quiet.stdout and "is kept as" in quiet.stderr
    resumed = ohhell("--resume", env=env, stdin="")
    assert "Resume it?" not in resumed.stdout and "Resuming the match" in resumed.stdout


def test_the_hint_words_a_card_the_prompt_takes(tmp_path: Path) -> None:
    class FollowsTheHint(Answers):
        """Asks for a hint at every card, then answers in the hint's own words."""

        hints = 0

        def answer(self) -> str:
            if self.kind() != "play":
                return super().answer()
            text = self.out.getvalue()
            last = text.rsplit("You may play:", 1)[-1]  # this card's turn
            found = re.search(r"Hint: the expert would play the (.+?) \(answer (\S+), number (\d+)\)", last)
            if found is None:
                return "h"
            self.hints += 1
            words, short, number = found.groups()
            return [words, f"play {short}", number, f"the {words}"][self.hints % 4]

    session = Session.new(make_rules("pagat", {"hand-sizes": "4"}), seed=3, hint_seconds=0.02)
    answers = FollowsTheHint(session)
    out = Watched(session)
    answers.out = out  # type: ignore[attr-defined]
    assert PlainUI(session, answers, out).run() == 0  # type: ignore[arg-type]
    assert session.is_over and answers.hints == 4  # every card played as the hint said, in its words
    text = out.getvalue()
    assert "is not a card" not in text and "There is no card" not in text
