"""``ohhell play``: a match against bots in the terminal, full screen or in lines.

The full-screen app needs the ``tui`` extra (Textual); without it, or when the
output is not a terminal, or with ``--plain``, the line mode plays instead.
The match is saved after every action; ``--resume`` continues it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from ..bots import opponent_levels
from ..terminal.session import DEFAULT_LEVEL, Session, SessionError, default_save_path, keep_previous


def add_parser(sub: Any) -> None:
    """Add the ``play`` subcommand to the ``ohhell`` parser's subparsers."""
    from .common import add_rule_options

    play = sub.add_parser(
        "play",
        help="play a match against bots in the terminal",
        description=(
            "Play Oh Hell against bots: 4 players, pagat rules and intermediate bots unless told "
            "otherwise. The match is saved after every move; --resume continues it."
        ),
    )
    add_rule_options(play)
    levels = ", ".join(opponent_levels())
    play.add_argument(
        "--bots",
        metavar="LEVELS",
        help=f"each opponent's level in seat order, comma-separated ({levels}); one level serves all",
    )
    play.add_argument("--level", metavar="LEVEL", help=f"every opponent's level (default {DEFAULT_LEVEL})")
    play.add_argument("--seed", type=int, help="the seed of the shuffles and the bots (default: a new one)")
    play.add_argument("--name", default="You", help="your name (default You)")
    play.add_argument("--seat", type=int, default=0, help="your seat, 0 to players-1 (default 0)")
    play.add_argument("--plain", action="store_true", help="line mode: text prompts, one answer a line")
    play.add_argument(
        "--resume",
        nargs="?",
        const="",
        metavar="FILE",
        help="continue a saved match (default: the last one)",
    )
    play.add_argument("--save", metavar="FILE", help=f"save the match here (default {default_save_path()})")
    play.add_argument(
        "--think", type=float, default=None, help="the expert bot's seconds per decision (default 1)"
    )
    play.add_argument(
        "--pause",
        type=float,
        default=0.6,
        help="full screen: seconds between bots' moves; a finished trick stays 3 times as long (default 0.6)",
    )
    play.set_defaults(func=cmd_play)


def _session(args: argparse.Namespace) -> tuple[Session, str | None]:
    from .common import rules_from_args

    if args.resume is not None:
        path = Path(args.resume) if args.resume else Path(args.save) if args.save else default_save_path()
        if not path.exists():
            raise SessionError(f"there is no saved match at {path}; start one with: ohhell play")
        return Session.resume(path, think=args.think), None
    rules = rules_from_args(args)
    if args.bots and args.level:
        raise SessionError("give --bots or --level, not both")
    levels = (args.bots or args.level or DEFAULT_LEVEL).split(",")
    path = Path(args.save) if args.save else default_save_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    kept = keep_previous(path)
    note = f"The previous match at {path} is kept as {kept}." if kept is not None else None
    session = Session.new(
        rules,
        seat=args.seat,
        name=args.name,
        levels=levels,
        seed=args.seed,
        save_path=path,
        think=1.0 if args.think is None else args.think,
    )
    return session, note


def cmd_play(args: argparse.Namespace) -> int:
    try:
        session, note = _session(args)
    except SessionError as err:
        print(f"ohhell play: {err}", file=sys.stderr)
        return 2
    if note:
        print(note, file=sys.stderr)
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

    app = OhHellApp(session, pause=max(0.0, args.pause))
    try:
        result = app.run()
    except KeyboardInterrupt:  # pragma: no cover - the app takes Ctrl-C as a key
        result = None
    session.save()
    if session.is_over:
        print(f"The match is over. The game record is in {session.save_path}.")
        return 0
    print(f"The match is saved in {session.save_path}. To continue it: {resume_command(session.save_path)}")
    return 0 if result != "interrupted" else 130
