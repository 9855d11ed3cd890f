"""``ohhell replay``: check a game record and print each hand and the totals."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from .. import (
    Deal,
    GameState,
    HandResult,
    Phase,
    Play,
    Record,
    RecordError,
    Scoring,
    legal_actions,
    load,
    settlement_net,
    sides,
    standings,
)
from ..describe import plural
from .common import command_parser, examples


def _seat_name(names: Sequence[str], seat: int) -> str:
    return names[seat] if seat < len(names) else f"Seat {seat + 1}"


def _trump_text(result: HandResult, names: Sequence[str]) -> str:
    trump = result.trump.name.lower() if result.trump is not None else "no trump"
    if result.turned is not None:
        return f"{trump} (turned {result.turned})"
    if result.trump_namer is not None:
        return f"{trump} (named by {_seat_name(names, result.trump_namer)})"
    return trump


def claims_by_hand(record: Record) -> dict[int, list[dict[str, int]]]:
    """Each claim of the record where it was made: by hand (from 1), the
    claimer's seat, the tricks claimed, the tricks left then and the trick
    (from 1) it came before. Counted from the record's actions (its deals and
    plays; the record was replayed, so they are legal): the later plays are the
    cards played out as claimed, and the claim itself is said only here."""
    players = record.rules.players
    out: dict[int, list[dict[str, int]]] = {}
    for claim in sorted(record.claims, key=lambda c: c.at):
        before = record.actions[: claim.at]
        deals = [(i, a) for i, a in enumerate(before) if isinstance(a, Deal)]
        if not deals:
            continue
        start, deal = deals[-1]
        played = sum(isinstance(a, Play) for a in before[start:]) // players
        left = len(deal.hands[0]) - played
        said = {"seat": claim.seat, "tricks": claim.tricks, "left": left, "trick": played + 1}
        out.setdefault(len(deals), []).append(said)
    return out


def claim_line(claim: dict[str, int], names: Sequence[str]) -> str:
    """``Cleo claims none of the 4 tricks left`` (at trick 7)."""
    who, tricks, left = _seat_name(names, claim["seat"]), claim["tricks"], claim["left"]
    if left == 1:
        what = "the last trick" if tricks else "none of the last trick"
    elif tricks == left:
        what = f"all {left} tricks left"
    elif tricks == 0:
        what = f"none of the {left} tricks left"
    else:
        what = f"{tricks} of the {left} tricks left"
    verb = "claim" if who == "You" else "claims"  # the person of ohhell play is named You
    return f"At trick {claim['trick']}, {who} {verb} {what}; the cards were played out as claimed."


def report(
    state: GameState, names: Sequence[str], claims: dict[int, list[dict[str, int]]] | None = None
) -> dict[str, object]:
    """A finished or partial match as plain data (for --json and the text
    table); ``claims``: ``claims_by_hand`` of its record."""
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
                "claims": (claims or {}).get(r.number, []),
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


def print_report(
    state: GameState, names: Sequence[str], claims: dict[int, list[dict[str, int]]] | None = None
) -> None:
    n = state.players
    width = max(6, *(len(x) for x in names))
    for r in state.results:
        extra = " (tie-break hand)" if r.extra else ""
        dealer = _seat_name(names, r.dealer)
        trump = _trump_text(r, names)
        print(f"Hand {r.number}: {plural(r.size, 'card')}, dealer {dealer}, trump {trump}{extra}")
        running = [sum(h.scores[s] for h in state.results[: r.number]) for s in range(n)]
        for s in range(n):
            blob = "" if r.bids[s] == r.tricks[s] else "  (missed)"
            print(
                f"  {_seat_name(names, s):<{width}}  bid {r.bids[s]:>2}  took {r.tricks[s]:>2}  "
                f"score {r.scores[s]:>4}  total {running[s]:>5}{blob}"
            )
        for claim in (claims or {}).get(r.number, []):
            print(f"  {claim_line(claim, names)}")
    print()
    for row in standings(state.rules, state.totals, state.exact):
        who = " + ".join(_seat_name(names, s) for s in row.seats)
        print(f"{row.place}. {who}: {plural(row.total, 'point')}, {plural(row.exact, 'exact bid')}")
    if state.rules.scoring is Scoring.OKENUFF:
        nets = settlement_net(state.totals)
        print("Settlement: " + ", ".join(f"{_seat_name(names, s)} {nets[s]:+d}" for s in range(n)))
    if len(sides(state.rules)) != n:
        teams = (" and ".join(_seat_name(names, s) for s in t) for t in sides(state.rules))
        print("Teams: " + "; ".join(teams) + ".")


def _waiting_words(state: GameState, names: Sequence[str]) -> str:
    """What an unfinished match waits for, naming players as people do (seats from 1)."""
    if state.phase is Phase.DRAW:
        return "the draw for dealer to come"
    if state.phase is Phase.DEAL:
        return "the deal to come"
    verb = {Phase.BID: "bid", Phase.TRUMP: "name trump", Phase.PLAY: "play"}[state.phase]
    who = [s for s in range(state.players) if legal_actions(state, s)] or [state.to_act]
    listed = [f"{_seat_name(names, s)} (seat {s + 1})" for s in who]
    return f"{', '.join(listed)} to {verb}"


def cmd_replay(args: argparse.Namespace) -> int:
    try:
        record: Record = load(args.file)
        state = record.replay()
    except OSError as err:
        print(f"ohhell replay: cannot read {args.file}: {err.strerror}", file=sys.stderr)
        return 2
    except RecordError as err:
        print(f"ohhell replay: {args.file}: {err}", file=sys.stderr)
        return 1
    if not state.is_over and not args.partial:
        print(
            f"ohhell replay: {args.file}: the record stops before the match is over, at hand "
            f"{state.hand_number + 1} with {_waiting_words(state, record.seats)}. To see it as far as it "
            f"goes: ohhell replay --partial {args.file}",
            file=sys.stderr,
        )
        return 1
    claims = claims_by_hand(record)
    if args.json:
        print(json.dumps(report(state, record.seats, claims), indent=2))
    else:
        print_report(state, record.seats, claims)
        if not state.is_over:
            print("(the record stops before the match is over)")
    return 0


def add_parser(sub: Any) -> None:
    parser = command_parser(
        sub,
        "replay",
        help="check a game record and print each hand and the totals",
        description="Check a game record (.ohr) against its rules and print each hand and the standings.",
        epilog=examples(
            "ohhell replay ~/.local/share/ohhell/current.ohr",
            "ohhell replay records/game-0001.ohr --json",
            "ohhell replay unfinished.ohr --partial",
        ),
    )
    parser.add_argument("file", help="the game record, as written by ohhell play, simulate or serve")
    parser.add_argument("--json", action="store_true", help="print JSON for machines")
    parser.add_argument("--partial", action="store_true", help="accept a record of an unfinished match")
    parser.set_defaults(func=cmd_replay)
