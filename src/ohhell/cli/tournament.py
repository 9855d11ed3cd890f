"""``ohhell tournament``: bots against each other on duplicate deals."""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from .. import RulesError
from ..bots import UnknownBotError, bot_names
from ..bots.tournament import TournamentError, format_result, plot_result, require_matplotlib, run_tournament


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``ohhell tournament`` on the command's subparsers."""
    from .common import add_rule_options, command_parser, examples  # here: cli.py imports this module

    parser = command_parser(
        subparsers,
        "tournament",
        help="play bots against each other on duplicate deals and compare them",
        description="Duplicate tournament: every deal is replayed with the bots rotated through the seats.",
        epilog=examples(
            "ohhell tournament --bots intermediate,beginner,random --deals 200",
            "ohhell tournament --bots expert,intermediate --deals 50 --think 0.2 --jobs 2",
            "ohhell tournament --bots intermediate,beginner,random --deals 5000 --jobs auto",
            "ohhell tournament --bots intermediate,beginner,random --deals 100000 --ray auto",
            "ohhell tournament --matches --deals 20 --plot results/chart.png",
        ),
    )
    parser.add_argument(
        "--bots",
        default="intermediate,beginner,random",
        help=(
            f"comma-separated bots: names from {', '.join(bot_names())}, or module:attribute "
            "paths to bot factories (default intermediate,beginner,random)"
        ),
    )
    add_rule_options(parser)
    parser.add_argument(
        "--deals", type=int, default=100, help="deals (or matches with --matches) to play (default 100)"
    )
    parser.add_argument("--seed", type=int, default=1, help="the seed of the deals (default 1)")
    parser.add_argument(
        "--jobs",
        type=jobs_count,
        metavar="N",
        help=(
            "how many chunks of deals play at once: worker processes on this machine, or Ray tasks with "
            "--ray; 0 or auto: every core (with --ray, every CPU of the cluster); any number gives the "
            "same result (default 1, this process alone; with --ray, every CPU of the cluster)"
        ),
    )
    parser.add_argument(
        "--ray",
        metavar="ADDRESS",
        help=(
            "play the deals as tasks on a Ray cluster: auto (the cluster this machine has joined), "
            "HOST:PORT, ray://HOST:10001, or local to start Ray on this machine for the run; the same "
            "seed gives the same result as without it (needs the ray extra: pip install -e '.[ray]')"
        ),
    )
    parser.add_argument("--matches", action="store_true", help="play whole matches instead of single hands")
    parser.add_argument(
        "--think", type=float, metavar="SECONDS", help="time per decision for search bots (expert: 1.0)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON for machines")
    parser.add_argument(
        "--plot",
        metavar="FILE.png",
        help="also save a chart there, in a folder that exists (needs matplotlib)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar and no notes on stderr")
    parser.set_defaults(func=cmd_tournament)
    return parser


def cmd_tournament(args: argparse.Namespace) -> int:
    """Run ``ohhell tournament``; errors in the bot list or rules exit with 2."""
    from .common import rules_from_args

    try:
        rules = rules_from_args(args)
        if args.plot:
            # Fail before the tournament, not after it: a long run must not
            # end in an error about the chart's file.
            require_matplotlib()
            check_plot_path(args.plot)
        bots = [b for b in args.bots.split(",") if b.strip()]
        if not args.quiet and any(b.strip().lower() == "expert" for b in bots):
            think = 1.0 if args.think is None else args.think
            print(
                f"The expert thinks about {think:g} s a decision (--think sets it); the time left is "
                "estimated as the deals go.",
                file=sys.stderr,
            )
        result = run_tournament(
            bots,
            rules,
            args.deals,
            args.seed,
            jobs=args.jobs,
            progress=not args.quiet,
            matches=args.matches,
            think=args.think,
            ray=args.ray,
        )
    except (UnknownBotError, RulesError, TournamentError) as err:
        print(f"ohhell tournament: {err}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result.as_dict(), indent=2))
    else:
        print(format_result(result))
    if args.plot:
        try:
            plot_result(result, args.plot)
        except (OSError, ValueError) as err:  # the folder went away meanwhile, say
            print(f"ohhell tournament: cannot save the chart to {args.plot}: {err}", file=sys.stderr)
            return 1
        if not args.json:
            print(f"chart saved to {args.plot}")
    return 0


def jobs_count(text: str) -> int:
    """``--jobs``: a whole number from 0, or ``auto`` (0: every core)."""
    if text.strip().lower() == "auto":
        return 0
    try:
        count = int(text)
    except ValueError:
        count = -1
    if count < 0:
        raise argparse.ArgumentTypeError(f"give a number of jobs, or 0 or auto for every core, not {text!r}")
    return count


def check_plot_path(plot: str) -> None:
    """Refuse a chart file that cannot be written, with the reason."""
    path = Path(plot)
    folder = path.parent
    if path.is_dir():
        raise TournamentError(
            f"--plot {plot}: that is a folder; give a file name such as {path / 'chart.png'}"
        )
    if not folder.is_dir():
        raise TournamentError(f"--plot {plot}: the folder {folder} does not exist; create it first")
    if not os.access(folder, os.W_OK):
        raise TournamentError(f"--plot {plot}: the folder {folder} cannot be written to")
    # matplotlib is optional (the plot extra): imported by name so the type check needs no stubs.
    backend_bases = importlib.import_module("matplotlib.backend_bases")
    kinds: dict[str, str] = backend_bases.FigureCanvasBase.get_supported_filetypes()
    if path.suffix and path.suffix[1:].lower() not in kinds:
        raise TournamentError(
            f"--plot {plot}: a chart is saved as {', '.join(sorted(kinds))}; end the name with one, e.g. .png"
        )
