"""Command-line helpers shared by the commands: the rule options."""

from __future__ import annotations

import argparse

from .. import OPTION_NAMES, PRESETS, Rules, make_rules


def add_rule_options(parser: argparse.ArgumentParser) -> None:
    """``--preset`` and one ``--<option> VALUE`` flag per rule field."""
    group = parser.add_argument_group("rules", "a preset, and any rule option on top of it")
    group.add_argument("--preset", default="pagat", help=f"one of {', '.join(PRESETS)} (default pagat)")
    for name in OPTION_NAMES:
        flag = "--" + name.replace("_", "-")
        group.add_argument(flag, dest=f"rule_{name}", metavar="VALUE", default=None)


def rules_from_args(args: argparse.Namespace) -> Rules:
    options = {
        name.replace("_", "-"): getattr(args, f"rule_{name}")
        for name in OPTION_NAMES
        if getattr(args, f"rule_{name}") is not None
    }
    return make_rules(args.preset, options)
