"""``ohhell play``: a match against bots in the terminal, full screen or in lines.

The full-screen app needs the ``tui`` extra (Textual); without it, or when the
output is not a terminal, or with ``--plain``, the line mode plays instead.
The match is saved after every action; ``--resume`` continues it, and starting
``ohhell play`` while an unfinished match is saved asks whether to resume it
(``--new`` starts a new one without asking). ``--forced-cards yes|no``
(remembered in ``settings``) has a card you have no choice about played for you.
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from .. import CHANGE_GRACE, OPTION_NAMES, Rules
from ..bots import opponent_levels
from ..describe import rules_title
from ..terminal.saves import KEEP_PREVIOUS, SaveHeldError, SaveLock, free_save, keep_previous
from ..terminal.session import DEFAULT_LEVEL, Session, SessionError, default_save_path, seat_kinds
from ..terminal.settings import forced_cards_remembered, remember_forced_cards, settings_path
from ..terminal.you_words import standings_for_you

DEFAULT_TRICK_PAUSE = 3.0
"""Seconds a finished trick stays on the full screen unless a key is pressed."""


def add_parser(sub: Any) -> None:
    """Add the ``play`` subcommand to the ``ohhell`` parser's subparsers."""
    from .common import add_rule_options, command_parser, examples

    play = command_parser(
        sub,
        "play",
        help="play a match against bots in the terminal",
        description=(
            "Play Oh Hell against bots: 4 players, Pagat's rules (--preset pagat) and intermediate bots "
            "unless told otherwise. The match is saved after every move; --resume continues it, and when an "
            "unfinished match is saved, ohhell play asks whether to resume it. Seats are counted "
            "clockwise from 1."
        ),
        epilog=examples(
            "ohhell play                                  # you and three intermediate bots",
            "ohhell play --resume                         # go on with the match you left",
            "ohhell play --level expert --think 0.5       # three experts",
            "ohhell play --preset okenuff                 # the highest bidder names trump",
            "ohhell play --players 5 --bots beginner,intermediate,expert,random --seat 3",
            "ohhell play --hand-sizes 3,2,1 --seed 7      # a short match, the same cards every time",
            "ohhell play --plain < answers.txt            # line mode: screen readers, scripts",
            "ohhell play --bid-change-wait 10             # 10 s to change your bid before the next bid",
            "ohhell play --forced-cards yes               # your only card is played for you (remembered)",
        ),
    )
    add_rule_options(play)
    levels = ", ".join(opponent_levels())
    play.add_argument(
        "--bots",
        metavar="LEVELS",
        help=f"each opponent's level in seat order, comma-separated ({levels}); one level serves all",
    )
    play.add_argument(
        "--level", metavar="LEVEL", help=f"every opponent's level: {levels} (default {DEFAULT_LEVEL})"
    )
    play.add_argument("--seed", type=int, help="the seed of the shuffles and the bots (default: a new one)")
    play.add_argument("--name", default="You", help="your name (default You)")
    play.add_argument(
        "--seat",
        default="1",
        metavar="N",
        help="your seat, counted clockwise from 1 (1 to the number of players; default 1)",
    )
    play.add_argument("--plain", action="store_true", help="line mode: text prompts, one answer a line")
    saving = play.add_mutually_exclusive_group()
    saving.add_argument(
        "--resume",
        nargs="?",
        const="",
        metavar="FILE",
        help="continue a saved match (default: the last one)",
    )
    saving.add_argument(
        "--new",
        action="store_true",
        help="start a new match without asking, even if an unfinished one is saved (it is kept)",
    )
    play.add_argument("--save", metavar="FILE", help=f"save the match here (default {default_save_path()})")
    play.add_argument(
        "--think",
        type=_think,
        default=None,
        metavar="SECONDS",
        help="the expert bot's seconds per decision (default 1)",
    )
    play.add_argument(
        "--pause",
        type=_wait_seconds,
        default=0.6,
        metavar="SECONDS",
        help="full screen: seconds between bots' moves (default 0.6; 0 for none)",
    )
    play.add_argument(
        "--trick-pause",
        type=_trick_pause,
        default=DEFAULT_TRICK_PAUSE,
        metavar="SECONDS|key",
        help=(
            f"full screen: how long a finished trick stays on the table; Enter goes on sooner "
            f"(default {DEFAULT_TRICK_PAUSE:g}; key: until you press Enter)"
        ),
    )
    play.add_argument(
        "--bid-change-wait",
        type=_wait_seconds,
        default=CHANGE_GRACE,
        metavar="SECONDS",
        help=(
            f"after your bid, while the rules let you change it, how long the next bidder waits before "
            f"bidding (default {CHANGE_GRACE:g}; 0: the next bidder goes on at once). Take longer if you "
            "need more time to read, say with a screen reader"
        ),
    )
    play.add_argument(
        "--forced-cards",
        type=_yes_no,
        default=None,
        metavar="yes|no",
        help=(
            "play for you a card you have no choice about (the only one that follows suit, or the last "
            f"of the hand); the choice is remembered in {settings_path()} (default: the remembered "
            "choice, at first no). In the full screen the o key turns it on and off"
        ),
    )
    play.set_defaults(func=cmd_play)


def _yes_no(text: str) -> bool:
    answer = text.strip().lower()
    if answer in ("yes", "y", "on", "true", "1"):
        return True
    if answer in ("no", "n", "off", "false", "0"):
        return False
    raise argparse.ArgumentTypeError(f"{text!r}: answer yes or no")


def _wait_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give seconds, e.g. 3 or 10") from None
    if not 0 <= value <= 3600:  # NaN too
        raise argparse.ArgumentTypeError(f"{text!r}: give seconds from 0 to 3600")
    return value


def _think(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give seconds, e.g. 0.5 or 2") from None
    if not 0 < value <= 600:  # NaN too
        raise argparse.ArgumentTypeError(
            f"{text!r}: the expert needs some time to think: give seconds above 0, at most 600"
        )
    return value


def _trick_pause(text: str) -> float:
    if text.strip().lower() in ("key", "enter", "wait"):
        return math.inf
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give seconds (e.g. 3) or key") from None
    if not value >= 0:  # NaN too
        raise argparse.ArgumentTypeError(f"{text!r}: the seconds cannot be negative")
    return value


def _saved_match(path: Path, think: float | None, grace: float) -> Session | None:
    """The unfinished match saved at ``path``, or None (none, finished or unreadable)."""
    if not path.exists():
        return None
    try:
        saved = Session.resume(path, think=think, change_grace=grace)
    except (SessionError, OSError):
        return None
    return None if saved.is_over else saved


def _ask_resume(saved: Session, inp: TextIO, out: TextIO, *, options_given: bool) -> bool | None:
    """Ask whether to resume ``saved``: True, False, or None when the input ended."""
    obs = saved.observation()
    others = ", ".join(saved.names[s] for s in range(saved.rules.players) if s != saved.human)
    total = len(saved.rules.schedule)
    where = f"hand {obs.hand_number + 1} of {total}" if saved.moves else "not started"
    title = rules_title(saved.rules, saved.names, saved.human)
    print(
        f"An unfinished match is saved in {saved.save_path}: {title}, against {others}, {where}.",
        file=out,
    )
    if options_given:
        print("Resuming keeps its own rules and players; the options you gave are for a new match.", file=out)
    for _ in range(3):
        out.write("Resume it? [Y/n] (n starts a new match and keeps the saved one aside) ")
        out.flush()
        line = inp.readline()
        if not line:
            out.write("\n")
            return None
        answer = line.strip().lower()
        if not inp.isatty():  # a piped answer: shown, as the line mode shows its answers
            out.write(answer + "\n")
        if answer in ("", "y", "yes", "r", "resume"):
            return True
        if answer in ("n", "no", "new"):
            return False
        print("Please answer y (resume) or n (a new match).", file=out)
    return None


MAX_NAME = 24
"""The longest name a player may take, as at a web table."""


@dataclass(frozen=True)
class _Options:
    """``ohhell play``'s options, checked before anything is read or moved."""

    rules: Rules
    seat: int  # from 0
    levels: list[str]
    name: str
    think: float | None


def _checked_options(args: argparse.Namespace) -> _Options:
    """Every option checked, before the saved match is touched: an option
    error is said at once and leaves the save as it was."""
    from .common import rules_from_args

    rules = rules_from_args(args)  # RulesError: said by the command
    if args.bots and args.level:
        raise SessionError("give --bots or --level, not both")
    levels = (args.bots or args.level or DEFAULT_LEVEL).split(",")
    seat = int(args.seat) if args.seat.strip().isdigit() else 0
    if not 1 <= seat <= rules.players:
        raise SessionError(
            f"--seat takes a number from 1 to {rules.players}, not {args.seat!r} "
            "(seats are counted clockwise from 1)"
        )
    name = " ".join(args.name.split()) or "You"
    if len(name) > MAX_NAME or not name.isprintable():
        raise SessionError(f"--name takes a name of at most {MAX_NAME} letters, digits or signs on one line")
    try:
        seat_kinds(rules.players, seat - 1, name, levels)
    except SessionError as err:
        raise SessionError(f"--{'bots' if args.bots else 'level'}: {err}") from None
    return _Options(rules, seat - 1, levels, name, args.think)


def _held_words(err: SaveHeldError) -> str:
    words = str(err)
    return f"{words[0].upper()}{words[1:]}, and stays as it is there."


def _session(args: argparse.Namespace) -> tuple[Session, SaveLock, str | None] | None:
    """The match to play, its save locked for this process, and a note to
    show first; None when the person declined a match in another file."""
    options = _checked_options(args)
    if args.resume is not None:
        path = Path(args.resume) if args.resume else Path(args.save) if args.save else default_save_path()
        if not path.exists():
            raise SessionError(f"there is no saved match at {path}; start one with: ohhell play")
        try:
            lock = SaveLock.take(path)
        except SaveHeldError as err:
            raise SessionError(
                f"{err}: go on with it in that window, or start another match with: ohhell play --new"
            ) from None
        try:
            return Session.resume(path, think=args.think, change_grace=args.bid_change_wait), lock, None
        except BaseException:
            lock.release()
            raise
    path = Path(args.save) if args.save else default_save_path()
    try:
        lock = SaveLock.take(path)
    except SaveHeldError as err:
        # Another window plays the match saved here: a new match in a file of its own.
        path, lock = free_save(path)
        print(_held_words(err), file=sys.stdout)
        if not args.new and not _ask_new(path, sys.stdin, sys.stdout):
            lock.release()
            return None
    try:
        return _start(args, options, path, lock)
    except BaseException:
        lock.release()
        raise


def _ask_new(path: Path, inp: TextIO, out: TextIO) -> bool:
    """Offer a new match saved in ``path``; True when accepted."""
    for _ in range(3):
        out.write(f"Start a new match, saved in {path}? [Y/n] ")
        out.flush()
        line = inp.readline()
        if not line:
            out.write("\n")
            return False
        answer = line.strip().lower()
        if not inp.isatty():
            out.write(answer + "\n")
        if answer in ("", "y", "yes"):
            return True
        if answer in ("n", "no", "q", "quit"):
            return False
        print("Please answer y (a new match) or n (nothing is started).", file=out)
    return False


def _start(
    args: argparse.Namespace, options: _Options, path: Path, lock: SaveLock
) -> tuple[Session, SaveLock, str | None]:
    """The saved match at ``path`` if the person resumes it, else a new one
    (the saved one set aside); ``path`` is locked by this process."""
    if not args.new:
        saved = _saved_match(path, args.think, args.bid_change_wait)
        if saved is not None:
            given = any(getattr(args, f"rule_{n}") is not None for n in OPTION_NAMES) or any(
                (
                    args.preset,
                    args.bots,
                    args.level,
                    args.seed is not None,
                    args.name != "You",
                    args.seat.strip() != "1",
                )
            )
            answer = _ask_resume(saved, sys.stdin, sys.stdout, options_given=given)
            if answer:
                return saved, lock, None
            if answer is None:
                print("No answer: a new match starts.", file=sys.stdout)
    path.parent.mkdir(parents=True, exist_ok=True)
    kept = keep_previous(path)
    note = None
    if kept is not None:
        note = (
            f"The previous match at {path} is kept as {kept} (the {KEEP_PREVIOUS} newest matches set "
            "aside are kept, and every unfinished one; older finished ones are deleted)."
        )
    session = Session.new(
        options.rules,
        seat=options.seat,
        name=options.name,
        levels=options.levels,
        seed=args.seed,
        save_path=path,
        think=1.0 if options.think is None else options.think,
        change_grace=args.bid_change_wait,
    )
    return session, lock, note


def final_words(session: Session) -> str:
    """What stays in the terminal when the full screen closes on a finished
    match: the places, points and winner, then where the record is."""
    lines = ["The match is over. Final standings:"]
    lines += standings_for_you(session.rules, session.observation(), session.names, session.human)
    if session.save_path is not None:
        lines.append(
            f"The game record is in {session.save_path}: ohhell replay {session.save_path} shows every hand."
        )
    return "\n".join(lines)


def cmd_play(args: argparse.Namespace) -> int:
    try:
        started = _session(args)
    except (SessionError, OSError) as err:
        print(f"ohhell play: {_error_words(err)}", file=sys.stderr)
        return 2
    if started is None:
        print("Nothing was started.", file=sys.stdout)
        return 1
    session, lock, note = started
    try:
        return _play(args, session, note)
    finally:
        lock.release()


def _error_words(err: Exception) -> str:
    """One line: a SessionError says what and why; an OSError here comes from
    writing the save or its lock (a saved match that cannot be read is a
    SessionError)."""
    if isinstance(err, OSError):
        where = f" {err.filename}" if err.filename else ""
        return f"cannot write{where}: {err.strerror or err}"
    return str(err)


def _play(args: argparse.Namespace, session: Session, note: str | None) -> int:
    if note:
        print(note, file=sys.stderr)
    if args.forced_cards is not None:  # said once, remembered for the matches after
        remember_forced_cards(args.forced_cards)
        session.forced_cards = args.forced_cards
    else:
        session.forced_cards = forced_cards_remembered()
    plain = args.plain or not (sys.stdout.isatty() and sys.stdin.isatty())
    if not plain:
        try:
            import textual  # noqa: F401
        except ImportError:
            print(
                "ohhell play: the full-screen game needs Textual (python3 -m pip install -e '.[tui]'); "
                "playing in line mode.",
                file=sys.stderr,
            )
            plain = True
    if plain:
        from ..terminal.plain import PlainUI

        return PlainUI(session).run()
    from ..terminal.fullscreen.app import OhHellApp
    from ..terminal.plain import resume_command

    app = OhHellApp(session, pause=max(0.0, args.pause), trick_pause=args.trick_pause)
    try:
        result = app.run()
    except KeyboardInterrupt:  # pragma: no cover - the app takes Ctrl-C as a key
        result = None
    session.save()
    if session.is_over:
        print(final_words(session))
        return 0
    print(f"The match is saved in {session.save_path}. To continue it: {resume_command(session.save_path)}")
    return 0 if result != "interrupted" else 130
