"""Duplicate tournaments between bots, and the ``ohhell tournament`` command.

Luck is the largest part of one hand of Oh Hell, so bots are compared on the
same cards: every deal is replayed with the bots rotated through every seat,
and a bot's result for a deal is its mean score per hand over all the seats it
held (under Okenuff's scoring, where players settle on the differences, its
mean net per hand after settling). Those per-deal means are the sample units of the mean and its 95%
confidence interval, and paired differences between bots come from the same
deals. A deal is one hand (a single-hand match whose size follows the rules'
schedule in turn, the dealer moving one seat per deal); with ``matches=True`` it
is a whole match, for the exact-bid rate over full matches.

Deals and bot randomness are drawn from seeds derived from the tournament seed
and the deal index, so the result does not depend on how the deals are split
over worker processes (``jobs``) or Ray tasks (``ray``, in ``cluster``), nor
on where they ran: chunks come back in any order and are read in deal order.
Only the decision times differ.
"""

from __future__ import annotations

import importlib
import math
import multiprocessing
import os
import random
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Any, TextIO

from .. import Rules, Scoring, TieBreak, TrumpMode, settlement_net
from ..describe import plural
from .base import Bot, UnknownBotError, bot_names, get_bot, play_match

_Z95 = 1.959964  # the normal quantile of a two-sided 95% interval


class TournamentError(ValueError):
    """A tournament that cannot be run as asked (deals, jobs, a missing extra)."""


@dataclass(frozen=True, slots=True)
class BotStats:
    """One bot's summary over the tournament."""

    name: str
    mean: float  # mean score per hand, over deals
    ci_low: float  # 95% confidence interval of the mean (nan with fewer than 2 deals)
    ci_high: float
    exact_rate: float  # share of its hands bid exactly
    hands: int  # seat-hands played
    decisions: int
    median_ms: float  # decision time
    p95_ms: float


@dataclass(frozen=True, slots=True)
class Difference:
    """The paired difference of two bots' mean scores per hand, ``a`` minus ``b``."""

    a: str
    b: str
    mean: float
    ci_low: float
    ci_high: float

    @property
    def significant(self) -> bool:
        """Does the 95% interval exclude zero?"""
        return self.ci_low > 0 or self.ci_high < 0


@dataclass(frozen=True)
class TournamentResult:
    """Everything a tournament measured; ``as_dict`` gives it as JSON-ready data."""

    bots: tuple[str, ...]  # labels, one per entry of the bot list
    rules: Rules
    deals: int
    seed: int
    matches: bool
    rotations: int
    stats: tuple[BotStats, ...]
    differences: tuple[Difference, ...]
    per_deal: tuple[tuple[float | None, ...], ...]  # deal -> bot -> mean score per hand
    seconds: float = field(compare=False)

    def as_dict(self, timing: bool = True) -> dict[str, Any]:
        """Plain data; ``timing=False`` leaves out what depends on the machine."""
        stats = []
        for s in self.stats:
            row: dict[str, Any] = {
                "bot": s.name,
                "mean_score_per_hand": _num(s.mean),
                "ci95": [_num(s.ci_low), _num(s.ci_high)],
                "exact_rate": _num(s.exact_rate),
                "hands": s.hands,
                "decisions": s.decisions,
            }
            if timing:
                row["median_decision_ms"] = _num(s.median_ms)
                row["p95_decision_ms"] = _num(s.p95_ms)
            stats.append(row)
        out: dict[str, Any] = {
            "bots": list(self.bots),
            "rules": self.rules.options(),
            "mode": "matches" if self.matches else "deals",
            "deals": self.deals,
            "seed": self.seed,
            "rotations": self.rotations,
            "stats": stats,
            "differences": [
                {
                    "a": d.a,
                    "b": d.b,
                    "mean": _num(d.mean),
                    "ci95": [_num(d.ci_low), _num(d.ci_high)],
                    "significant": d.significant,
                }
                for d in self.differences
            ],
        }
        if timing:
            out["seconds"] = round(self.seconds, 3)
        return out


def _num(x: float) -> float | None:
    return None if math.isnan(x) else round(x, 4)


# --- Playing the deals (in this process or in workers). ---


@dataclass(frozen=True, slots=True)
class _Job:
    bots: tuple[str, ...]
    rules: Rules
    seed: int
    matches: bool
    indices: tuple[int, ...]
    think: float | None = None  # seconds per decision for search bots


SEARCH_BOTS = frozenset({"expert"})
"""Bots whose strength depends on thinking time (``think``)."""


def make_bot(name: str, think: float | None) -> Bot:
    """A bot by name; search bots get ``think`` seconds per decision."""
    if think is not None and name in SEARCH_BOTS:
        return get_bot(name, seconds=think)
    return get_bot(name)


@dataclass(slots=True)
class _DealOutcome:
    """One deal over every rotation: sums by bot index."""

    index: int
    score: list[float]
    hands: list[int]
    exact: list[int]
    times: list[list[float]]


def seating(bots: int, players: int, rotation: int) -> list[int]:
    """The bot index in each seat for a rotation: seat s holds bot (s + r) mod m.

    Over ``bots`` rotations every bot sits in every seat once.

    >>> [seating(4, 4, r) for r in range(2)], seating(2, 4, 1)
    ([[0, 1, 2, 3], [1, 2, 3, 0]], [1, 0, 1, 0])
    """
    return [(s + rotation) % bots for s in range(players)]


def deal_rules(rules: Rules, index: int) -> Rules:
    """The single-hand rules of deal ``index``: the hand size and trump step of
    that place in the schedule (cycling), the dealer moving one seat per deal."""
    step = index % len(rules.schedule)
    size = rules.schedule[step]
    changes: dict[str, Any] = {
        "hand_sizes": (size,),
        "first_dealer": index % rules.players,
        "tie_break": TieBreak.NONE,  # R-TIE-EXTRA belongs to whole matches
        "devils_bridge": rules.devils_bridge and size == 1,
    }
    if rules.trump is TrumpMode.ROTATE:  # R-TRUMP-ROTATE: the step this hand would have had
        changes["trump_rotation"] = (rules.trump_rotation[step % len(rules.trump_rotation)],)
    return rules.replace(**changes)


def _play_deals(job: _Job) -> list[_DealOutcome]:
    m, n = len(job.bots), job.rules.players
    # Under Okenuff players settle on the differences (R-SETTLE): a bot's
    # result is what it nets from each hand, which a bot that sets another
    # at some cost to itself gains, not its own score. (``deal_rules``
    # never changes the scoring.)
    settle = job.rules.scoring is Scoring.OKENUFF
    out = []
    for index in job.indices:
        rules = job.rules if job.matches else deal_rules(job.rules, index)
        outcome = _DealOutcome(index, [0.0] * m, [0] * m, [0] * m, [[] for _ in range(m)])
        for rotation in range(m):
            seats = seating(m, n, rotation)
            bots = [make_bot(job.bots[b], job.think) for b in seats]
            timings: list[list[float]] = [[] for _ in range(n)]
            state = play_match(
                rules,
                bots,
                random.Random(f"ohhell-tournament/{job.seed}/{index}/{rotation}/bots"),
                chance_rng=random.Random(f"ohhell-tournament/{job.seed}/{index}/chance"),
                timings=timings,
            )
            hands = [settlement_net(r.scores) if settle else r.scores for r in state.results]
            for seat, b in enumerate(seats):
                outcome.score[b] += sum(hand[seat] for hand in hands)
                outcome.hands[b] += len(state.results)
                outcome.exact[b] += state.exact[seat]
                outcome.times[b].extend(timings[seat])
        out.append(outcome)
    return out


def duration_words(seconds: float) -> str:
    """A time as people read it: ``0.45 ms``, ``12 ms``, ``1.0 s``, ``42 s``, ``3 min 5 s``."""
    if seconds < 0.00001:
        return "under 0.01 ms"
    if seconds < 0.01:
        return f"{seconds * 1000:.2g} ms" if seconds < 0.001 else f"{seconds * 1000:.1f} ms"
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s" if minutes < 60 else f"{minutes // 60} h {minutes % 60} min"


class _Progress:
    """A plain-text progress bar on one line of stderr, redrawn at most ten
    times a second: deals done of the total, the time taken and an estimate of
    the time left."""

    def __init__(self, total: int, stream: TextIO | None, label: str) -> None:
        self.total, self.stream, self.label = total, stream, label
        self.done = 0
        self.start = self.drawn = time.perf_counter()

    def restart(self) -> None:
        """Count the time from now: the time left is estimated from the deals
        alone, not from starting or reaching a Ray cluster."""
        self.start = self.drawn = time.perf_counter()

    def advance(self, count: int) -> None:
        self.done += count
        now = time.perf_counter()
        finished = self.done >= self.total
        if self.stream is None or (now - self.drawn < 0.1 and not finished):
            return
        self.drawn = now
        width = 30
        filled = width * self.done // max(1, self.total)
        bar = "#" * filled + "." * (width - filled)
        elapsed = now - self.start
        left = ""
        if not finished and self.done:
            left = f", about {duration_words(elapsed * (self.total - self.done) / self.done)} left"
        text = f"{self.label} [{bar}] {self.done}/{self.total}, {duration_words(elapsed)}{left}"
        self.stream.write(f"\r{text:<78}")
        if finished:
            self.stream.write("\n")
        self.stream.flush()


def _chunks(indices: Sequence[int], size: int) -> Iterable[tuple[int, ...]]:
    for at in range(0, len(indices), size):
        yield tuple(indices[at : at + size])


def chunk_size(deals: int, workers: int) -> int:
    """Deals per chunk when ``workers`` play at once.

    Small chunks keep the workers evenly busy and the progress bar moving; a
    cap of 25 keeps a slow chunk from holding up the end of the run.

    >>> chunk_size(400, 2), chunk_size(10, 4), chunk_size(100_000, 64)
    (25, 1, 25)
    """
    return max(1, min(25, deals // (workers * 8)))


def local_cores() -> int:
    """The cores this process may run on (``--jobs 0`` or ``auto``)."""
    # The affinity mask, where the system has one, is what a container or
    # taskset allows; cpu_count() counts the whole machine.
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def _workers() -> multiprocessing.context.BaseContext | None:
    # Forked workers inherit the bots registered at run time (register_bot);
    # where there is no fork, the platform's default (they must then be
    # importable by path or entry point).
    if "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return None


def run_tournament(
    bots: list[str],
    rules: Rules,
    deals: int,
    seed: int,
    jobs: int | None = None,
    progress: bool = True,
    *,
    matches: bool = False,
    think: float | None = None,
    ray: str | None = None,
) -> TournamentResult:
    """Play ``deals`` duplicate deals (or whole matches) between ``bots`` by name.

    Every deal is played once per rotation of the bots through the seats (as
    many rotations as bots); with fewer bots than seats a bot holds several
    seats. ``jobs`` is how many chunks of deals play at once: worker
    processes here (None: 1, this process; 0: every core), or with ``ray``
    Ray tasks (None or 0: every CPU of the cluster). ``ray`` is an address as
    ``ray.init`` takes it, or ``local`` to start Ray on this machine (see
    ``ohhell.bots.cluster``). However the deals are played, the result is the
    same; only the decision times differ. ``progress`` draws a bar on stderr
    (without it, Ray's own notes are kept to errors). ``think`` is the time
    per decision of search bots (their default when None).
    """
    # A registered name, or a "package.module:attribute" path to a bot factory.
    names = [b.strip() if ":" in b else b.strip().lower() for b in bots]
    if not names:
        raise UnknownBotError(f"name at least one bot; bots are {', '.join(bot_names())}")
    for name in names:
        if name not in bot_names() and ":" not in name:
            raise UnknownBotError(f"unknown bot {name!r}; bots are {', '.join(bot_names())}")
    if deals < 1:
        raise TournamentError(f"a tournament needs at least 1 deal, not {deals}")
    if jobs is not None and jobs < 0:
        raise TournamentError(f"jobs must be 0 (every core) or more, not {jobs}")
    if think is not None and think <= 0:
        raise TournamentError(f"thinking time must be positive, not {think}")
    start = time.perf_counter()
    indices = list(range(deals))
    bar = _Progress(deals, sys.stderr if progress else None, "matches" if matches else "deals")

    def job(chunk: tuple[int, ...]) -> _Job:
        return _Job(tuple(names), rules, seed, matches, chunk, think)

    outcomes: dict[int, _DealOutcome] = {}
    for done in (
        _play_on_ray(ray, jobs, indices, job, quiet=not progress, ready=bar.restart)
        if ray is not None
        else _play_here(local_cores() if jobs == 0 else jobs or 1, indices, job)
    ):
        for o in done:
            outcomes[o.index] = o
        bar.advance(len(done))
    # Chunks finish in any order; the summary reads the deals in their own.
    ordered = [outcomes[i] for i in indices]
    return _summarise(names, rules, seed, matches, ordered, time.perf_counter() - start)


def _play_here(
    jobs: int, indices: Sequence[int], job: Callable[[tuple[int, ...]], _Job]
) -> Iterator[list[_DealOutcome]]:
    if jobs == 1:
        for chunk in _chunks(indices, 1):
            yield _play_deals(job(chunk))
        return
    chunks = list(_chunks(indices, chunk_size(len(indices), jobs)))
    # No more processes than chunks: --jobs auto on a big machine for a few deals.
    with ProcessPoolExecutor(max_workers=min(jobs, len(chunks)), mp_context=_workers()) as pool:
        futures = [pool.submit(_play_deals, job(chunk)) for chunk in chunks]
        for future in as_completed(futures):
            yield future.result()


def _play_on_ray(
    address: str,
    jobs: int | None,
    indices: Sequence[int],
    job: Callable[[tuple[int, ...]], _Job],
    *,
    quiet: bool,
    ready: Callable[[], None],
) -> Iterator[list[_DealOutcome]]:
    # Lazily: only a run on Ray needs the ray extra.
    from .cluster import ClusterError, connected, run_tasks

    try:
        with connected(address, jobs or None, quiet=quiet) as cpus:
            ready()
            workers = jobs or cpus
            chunks = _chunks(indices, chunk_size(len(indices), workers))
            yield from run_tasks(_play_deals, (job(chunk) for chunk in chunks), workers)
    except ClusterError as err:
        raise TournamentError(str(err)) from None


def _labels(names: Sequence[str]) -> tuple[str, ...]:
    # The same bot twice gets "random", "random#2": the entries are separate players.
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}#{seen[name]}")
    return tuple(out)


def mean_ci(sample: Sequence[float]) -> tuple[float, float, float]:
    """The mean and its normal 95% confidence interval (nan bounds below 2 values).

    >>> [round(x, 3) for x in mean_ci([1.0, 2.0, 3.0, 4.0])]
    [2.5, 1.235, 3.765]
    """
    count = len(sample)
    if count == 0:
        return math.nan, math.nan, math.nan
    mean = math.fsum(sample) / count
    if count < 2:
        return mean, math.nan, math.nan
    var = math.fsum((x - mean) ** 2 for x in sample) / (count - 1)
    half = _Z95 * math.sqrt(var / count)
    return mean, mean - half, mean + half


def _percentile(values: Sequence[float], q: float) -> float:
    if not values:
        return math.nan
    ordered = sorted(values)
    pos = q * (len(ordered) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def _summarise(
    names: list[str], rules: Rules, seed: int, matches: bool, outcomes: list[_DealOutcome], seconds: float
) -> TournamentResult:
    labels = _labels(names)
    m = len(names)
    per_deal: list[tuple[float | None, ...]] = []
    for o in outcomes:
        per_deal.append(tuple(o.score[b] / o.hands[b] if o.hands[b] else None for b in range(m)))
    stats = []
    for b in range(m):
        sample = [row[b] for row in per_deal if row[b] is not None]
        mean, low, high = mean_ci([x for x in sample if x is not None])
        hands = sum(o.hands[b] for o in outcomes)
        times = [t for o in outcomes for t in o.times[b]]
        stats.append(
            BotStats(
                name=labels[b],
                mean=mean,
                ci_low=low,
                ci_high=high,
                exact_rate=sum(o.exact[b] for o in outcomes) / hands if hands else math.nan,
                hands=hands,
                decisions=len(times),
                median_ms=_percentile(times, 0.5) * 1000,
                p95_ms=_percentile(times, 0.95) * 1000,
            )
        )
    differences = []
    for a in range(m):
        for b in range(a + 1, m):
            paired = [x - y for row in per_deal if (x := row[a]) is not None and (y := row[b]) is not None]
            mean, low, high = mean_ci(paired)
            differences.append(Difference(labels[a], labels[b], mean, low, high))
    return TournamentResult(
        bots=labels,
        rules=rules,
        deals=len(outcomes),
        seed=seed,
        matches=matches,
        rotations=m,
        stats=tuple(stats),
        differences=tuple(differences),
        per_deal=tuple(per_deal),
        seconds=seconds,
    )


# --- Text, plot and the command. ---


def format_result(result: TournamentResult) -> str:
    """The result as a table for people."""
    count = (
        plural(result.deals, "match", "matches")
        if result.matches
        else plural(result.deals, "deal") + " (single hands)"
    )
    lines = [
        f"Duplicate tournament: {count} x {plural(result.rotations, 'rotation')}, "
        f"{result.rules.players} players, seed {result.seed}, {duration_words(result.seconds)}",
        "",
        f"{'bot':<16}{'score/hand':>11}  {'95% CI':<17}{'exact':>7}  {'median decision':>16}"
        f"{'slowest 5%':>14}",
    ]
    for s in sorted(result.stats, key=lambda s: -s.mean if not math.isnan(s.mean) else math.inf):
        ci = f"[{s.ci_low:.2f}, {s.ci_high:.2f}]" if not math.isnan(s.ci_low) else "-"
        lines.append(
            f"{s.name:<16}{s.mean:>11.2f}  {ci:<17}{s.exact_rate:>7.1%}  "
            f"{duration_words(s.median_ms / 1000):>16}{duration_words(s.p95_ms / 1000):>14}"
        )
    if result.differences:
        lines += ["", "Paired differences in score per hand (95% CI; * excludes zero):"]
        for d in result.differences:
            ci = f"[{d.ci_low:+.2f}, {d.ci_high:+.2f}]" if not math.isnan(d.ci_low) else "-"
            star = " *" if d.significant else ""
            lines.append(f"  {d.a} - {d.b}: {d.mean:+.2f} {ci}{star}")
    return "\n".join(lines)


def require_matplotlib() -> Any:
    # matplotlib is an optional extra, imported only when a chart is asked for.
    try:
        matplotlib = importlib.import_module("matplotlib")
        matplotlib.use("Agg")  # draw to a file; no display needed
        return importlib.import_module("matplotlib.pyplot")
    except ImportError:
        raise TournamentError(
            "--plot needs matplotlib, which is not installed: python3 -m pip install -e '.[plot]'"
        ) from None


def plot_result(result: TournamentResult, path: str) -> None:
    """A chart saved to ``path``: mean score per hand with 95% intervals, the
    distribution of each bot's per-deal scores, and cumulative scores over
    the deals (how the lead built up)."""
    plt = require_matplotlib()
    names = [s.name for s in result.stats]
    m = len(names)
    samples = [[x for row in result.per_deal if (x := row[b]) is not None] for b in range(m)]
    fig, (bars, spread, race) = plt.subplots(1, 3, figsize=(15, 4.5))
    means = [s.mean for s in result.stats]
    errors = [[s.mean - s.ci_low for s in result.stats], [s.ci_high - s.mean for s in result.stats]]
    bars.bar(names, means, yerr=errors, capsize=6, color="#4c72b0")
    bars.set_xlabel("bot")
    bars.set_ylabel("mean score per hand (bars: 95% confidence interval)")
    bars.set_title("mean score per hand")
    spread.boxplot(samples, showmeans=True)
    spread.set_xticks(range(1, m + 1), names)
    spread.set_xlabel("bot (box: middle half of the deals; line: median; triangle: mean)")
    spread.set_ylabel("score per hand in one deal")
    spread.set_title("how the score varies from deal to deal")
    for b, name in enumerate(names):
        total, curve = 0.0, []
        for x in samples[b]:
            total += x
            curve.append(total)
        race.plot(range(1, len(curve) + 1), curve, label=name)
    from matplotlib.ticker import MaxNLocator

    race.xaxis.set_major_locator(MaxNLocator(integer=True))  # deals are counted whole: no tick at 1.5
    race.set_xlabel("deals played" if not result.matches else "matches played")
    race.set_ylabel("total of the scores per hand so far")
    race.set_title("how the lead built up")
    race.legend(title="bot")
    unit = plural(result.deals, "match", "matches") if result.matches else plural(result.deals, "deal")
    fig.suptitle(f"{unit} played duplicate, {result.rules.players} players, seed {result.seed}")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
