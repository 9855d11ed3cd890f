"""The ``ohhell`` command: simulate random matches, replay and check records."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from .game import GameState, HandResult
from .record import Record, RecordError, load
from .rules import OPTION_NAMES, PRESETS, Rules, RulesError, Scoring, make_rules
from .scoring import settlement_net, sides, standings


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


def _seat_name(names: Sequence[str], seat: int) -> str:
    return names[seat] if seat < len(names) else f"Seat {seat + 1}"


def _trump_text(result: HandResult) -> str:
    trump = result.trump.name.lower() if result.trump is not None else "no trump"
    if result.turned is not None:
        return f"{trump} (turned {result.turned})"
    if result.trump_namer is not None:
        return f"{trump} (named by seat {result.trump_namer})"
    return trump


def report(state: GameState, names: Sequence[str]) -> dict[str, object]:
    """A finished or partial match as plain data (for --json and the text table)."""
    rules = state.rules
    hands = []
    for r in state.results:
        hands.append(
            {
                "hand": r.number,
                "cards": r.size,
                "dealer": r.dealer,
                "trump": r.trump.letter if r.trump is not None else None,
                "turned": str(r.turned) if r.turned is not None else None,
                "trump_namer": r.trump_namer,
                "extra": r.extra,
                "bids": list(r.bids),
                "tricks": list(r.tricks),
                "scores": list(r.scores),
            }
        )
    table = standings(rules, state.totals, state.exact)
    out: dict[str, object] = {
        "seats": list(names),
        "rules": rules.options(),
        "finished": state.is_over,
        "hands": hands,
        "totals": list(state.totals),
        "exact": list(state.exact),
        "standings": [
            {"place": s.place, "seats": list(s.seats), "total": s.total, "exact": s.exact} for s in table
        ],
    }
    if rules.scoring is Scoring.OKENUFF:
        out["settlement"] = settlement_net(state.totals)  # R-SETTLE
    return out


def print_report(state: GameState, names: Sequence[str]) -> None:
    n = state.players
    width = max(6, *(len(x) for x in names))
    for r in state.results:
        extra = " (tie-break hand)" if r.extra else ""
        dealer = _seat_name(names, r.dealer)
        print(f"Hand {r.number}: {r.size} cards, dealer {dealer}, trump {_trump_text(r)}{extra}")
        running = [sum(h.scores[s] for h in state.results[: r.number]) for s in range(n)]
        for s in range(n):
            blob = "" if r.bids[s] == r.tricks[s] else "  (missed)"
            print(
                f"  {_seat_name(names, s):<{width}}  bid {r.bids[s]:>2}  took {r.tricks[s]:>2}  "
                f"score {r.scores[s]:>4}  total {running[s]:>5}{blob}"
            )
    print()
    for row in standings(state.rules, state.totals, state.exact):
        who = " + ".join(_seat_name(names, s) for s in row.seats)
        print(f"{row.place}. {who}: {row.total} points, {row.exact} exact bids")
    if state.rules.scoring is Scoring.OKENUFF:
        nets = settlement_net(state.totals)
        print("Settlement: " + ", ".join(f"{_seat_name(names, s)} {nets[s]:+d}" for s in range(n)))
    if len(sides(state.rules)) != n:
        print("(teams: " + ", ".join("+".join(str(s) for s in t) for t in sides(state.rules)) + ")")


def cmd_replay(args: argparse.Namespace) -> int:
    try:
        record: Record = load(args.file)
        state = record.replay(complete=not args.partial)
    except OSError as err:
        print(f"ohhell replay: cannot read {args.file}: {err.strerror}", file=sys.stderr)
        return 2
    except RecordError as err:
        print(f"ohhell replay: {args.file}: {err}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(report(state, record.seats), indent=2))
    else:
        print_report(state, record.seats)
        if not state.is_over:
            print("(the record stops before the match is over)")
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    from .simulate import simulate

    rules = rules_from_args(args)
    if args.games < 1:
        raise RulesError("--games must be at least 1")
    start = time.perf_counter()
    summary = simulate(rules, args.games, args.seed, Path(args.record_dir) if args.record_dir else None)
    elapsed = time.perf_counter() - start
    data = summary.as_dict() | {"seconds": round(elapsed, 3), "rules": rules.options()}
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    print(
        f"{summary.games} matches, {summary.hands} hands, {summary.tricks} tricks, "
        f"{summary.actions} actions in {elapsed:.2f} s"
    )
    if summary.extra_hands:
        print(f"{summary.extra_hands} tie-break hands")
    print(f"{'seat':>4}  {'mean score':>10}  {'exact bids':>10}  {'wins':>6}")
    for s, (mean, rate) in enumerate(zip(summary.mean_scores(), summary.exact_rates(), strict=True)):
        print(f"{s:>4}  {mean:>10.1f}  {rate:>10.1%}  {summary.wins[s]:>6.1f}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ohhell", description="Oh Hell: the rules engine and its tools.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    sim = sub.add_parser("simulate", help="play random legal matches and summarise them")
    add_rule_options(sim)
    sim.add_argument("--games", type=int, default=10)
    sim.add_argument("--seed", type=int, default=1)
    sim.add_argument("--record-dir", help="write each match's game record here")
    sim.add_argument("--json", action="store_true", help="print JSON for machines")
    sim.set_defaults(func=cmd_simulate)

    rep = sub.add_parser("replay", help="check a game record and print each hand and the totals")
    rep.add_argument("file")
    rep.add_argument("--json", action="store_true", help="print JSON for machines")
    rep.add_argument("--partial", action="store_true", help="accept a record of an unfinished match")
    rep.set_defaults(func=cmd_replay)

    from .tournament import add_tournament_parser

    add_tournament_parser(sub)

    from .play import add_play_parser

    add_play_parser(sub)

    from .serve import add_serve_parser

    add_serve_parser(sub)

    from .scorecli import add_score_parser

    add_score_parser(sub)

    from .scoresheet import add_scoresheet_parser

    add_scoresheet_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        return int(args.func(args))
    except RulesError as err:
        print(f"ohhell {args.command}: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader (say `| head`) stopped early: not an error of ours.
        sys.stderr.close()
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
