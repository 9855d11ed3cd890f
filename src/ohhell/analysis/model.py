"""The review as data: frozen dataclasses with a JSON form for caching and tools.

Every number here is in points of the match's own scoring (under Okenuff's
scoring, where players settle on differences, a decision's values are the
seat's score less the others' mean, as the expert plays). Choices are written
as in the game record: a bid as its number (``"2"``), a trump choice as a
suit letter or ``"NT"``, a card as ``"QH"``.

``Review.to_json()`` gives plain JSON data (``json.dumps`` it);
``Review.from_json(data)`` reads it back equal. The shape is documented in
docs/analysis.md; ``FORMAT`` names its version.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

FORMAT: Final = "ohhell-review 2"
"""The version of the JSON shape; a cached review of another format is ignored."""

MARKS: Final = ("inaccuracy", "mistake", "blunder")
"""The marks a decision can get, mildest first."""

SURE: Final = 2.0
"""Standard errors a loss must clear a threshold by to be marked: a loss of
2.6 give or take 0.3 could well be under 2.5 with another seed (the chance
that the loss is under its mark's threshold stays about 2% or less)."""


class ReviewError(ValueError):
    """A review that cannot be made or read (a bad budget, a JSON of another shape)."""


@dataclass(frozen=True, slots=True)
class Budget:
    """How much the expert thinks: counts, never seconds, so a review is the
    same on every machine. ``simulations`` for the search over every choice
    of a decision; ``price_simulations`` for each of the two searches that
    price the best choice and the one made, where they differ;
    ``luck_playouts`` plays of each hand's real deal with the expert in
    every seat, each decision of those at ``luck_simulations``."""

    simulations: int = 9600
    price_simulations: int = 4800
    luck_playouts: int = 32
    luck_simulations: int = 100

    def __post_init__(self) -> None:
        if min(self.simulations, self.price_simulations, self.luck_simulations) < 16:
            raise ReviewError("the expert needs at least 16 simulations a decision")
        if self.luck_playouts < 2:
            raise ReviewError("a hand's value needs at least 2 playouts (their spread is its error)")

    def to_json(self) -> dict[str, int]:
        return {
            "simulations": self.simulations,
            "price_simulations": self.price_simulations,
            "luck_playouts": self.luck_playouts,
            "luck_simulations": self.luck_simulations,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Budget:
        return cls(
            int(data["simulations"]),
            int(data["price_simulations"]),
            int(data["luck_playouts"]),
            int(data["luck_simulations"]),
        )

    @classmethod
    def scaled(cls, factor: float) -> Budget:
        """The default budget times ``factor`` (``--budget 0.25`` for a quick look)."""
        base = cls()
        return cls(
            max(16, round(base.simulations * factor)),
            max(16, round(base.price_simulations * factor)),
            max(2, round(base.luck_playouts * factor)),
            base.luck_simulations,
        )


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Expected points lost from which a decision is marked. One missed bid
    costs 10 points and more under most scorings, so a blunder gives away
    about half a bid, a mistake about a quarter."""

    inaccuracy: float = 1.0
    mistake: float = 2.5
    blunder: float = 5.0

    def reach(self, loss: float) -> str | None:
        """The mark a loss of ``loss`` reaches, its error aside (None: fine)."""
        if loss >= self.blunder:
            return "blunder"
        if loss >= self.mistake:
            return "mistake"
        if loss >= self.inaccuracy:
            return "inaccuracy"
        return None

    def mark(self, loss: float, error: float = 0.0) -> str | None:
        """The mark of a decision that lost ``loss`` expected points, give or
        take ``error`` (one standard error): the highest threshold the loss
        passes by ``SURE`` errors or more, so that the error cannot undo it.
        None: fine, or too close to tell."""
        return self.reach(loss - SURE * error)

    def to_json(self) -> dict[str, float]:
        return {"inaccuracy": self.inaccuracy, "mistake": self.mistake, "blunder": self.blunder}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Thresholds:
        return cls(float(data["inaccuracy"]), float(data["mistake"]), float(data["blunder"]))


@dataclass(frozen=True, slots=True)
class PastTrick:
    """A finished trick as a position shows it."""

    leader: int
    cards: tuple[str, ...]  # in playing order from the leader
    winner: int


@dataclass(frozen=True, slots=True)
class Position:
    """What the deciding seat could see, enough to show the position again:
    the same facts as its observation, written out."""

    seat: int
    hand: int  # 1-based, as people count hands
    phase: str  # "bid", "trump" or "play"
    hand_size: int
    dealer: int
    trump: str | None  # a suit letter; None: no trump, or not named yet (see trump_decided)
    trump_decided: bool
    turned: str | None
    trump_namer: int | None
    hands: tuple[tuple[str, ...] | None, ...]  # by seat, None where unseen (Devil's Bridge shows the others)
    bids: tuple[int | None, ...]  # None: not bid yet, or sealed
    forbidden_bid: int | None  # the bid the hook forbids the seat now
    leader: int
    trick: tuple[tuple[int, str], ...]  # the trick under way: (seat, card)
    tricks: tuple[PastTrick, ...]
    taken: tuple[int, ...]
    totals: tuple[int, ...]  # scores before this hand
    legal: tuple[str, ...]

    @property
    def cards(self) -> tuple[str, ...]:
        """The deciding seat's own cards as it saw them (none on a blind hand)."""
        return self.hands[self.seat] or ()

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "hand": self.hand,
            "phase": self.phase,
            "hand_size": self.hand_size,
            "dealer": self.dealer,
            "trump": self.trump,
            "trump_decided": self.trump_decided,
            "turned": self.turned,
            "trump_namer": self.trump_namer,
            "hands": [list(h) if h is not None else None for h in self.hands],
            "bids": list(self.bids),
            "forbidden_bid": self.forbidden_bid,
            "leader": self.leader,
            "trick": [[s, c] for s, c in self.trick],
            "tricks": [{"leader": t.leader, "cards": list(t.cards), "winner": t.winner} for t in self.tricks],
            "taken": list(self.taken),
            "totals": list(self.totals),
            "legal": list(self.legal),
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Position:
        return cls(
            seat=d["seat"],
            hand=d["hand"],
            phase=d["phase"],
            hand_size=d["hand_size"],
            dealer=d["dealer"],
            trump=d["trump"],
            trump_decided=d["trump_decided"],
            turned=d["turned"],
            trump_namer=d["trump_namer"],
            hands=tuple(tuple(h) if h is not None else None for h in d["hands"]),
            bids=tuple(d["bids"]),
            forbidden_bid=d["forbidden_bid"],
            leader=d["leader"],
            trick=tuple((int(s), str(c)) for s, c in d["trick"]),
            tricks=tuple(PastTrick(t["leader"], tuple(t["cards"]), t["winner"]) for t in d["tricks"]),
            taken=tuple(d["taken"]),
            totals=tuple(d["totals"]),
            legal=tuple(d["legal"]),
        )


@dataclass(frozen=True, slots=True)
class ChoiceValue:
    """One legal choice and the expert's estimate of the seat's score for
    the hand if it is made. Cards that are the same play (no card left
    outside the seat's hand lies between them) share one estimate and list
    each other in ``same_as``."""

    choice: str
    expected: float | None  # None: the search never tried it
    visits: int  # simulations (or sampled deals) behind the estimate
    same_as: tuple[str, ...] = ()
    # The standard error of the best's estimate less this one, both priced on
    # the same deals; None where the choice was not priced against the best
    # (its estimate is the search's rough one), 0 for the best itself.
    error: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "choice": self.choice,
            "expected": self.expected,
            "visits": self.visits,
            "same_as": list(self.same_as),
            "error": self.error,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> ChoiceValue:
        return cls(d["choice"], d["expected"], d["visits"], tuple(d["same_as"]), d["error"])


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision a seat made, reviewed from its own observation."""

    version: int  # the action's index in the record's log (0-based), the table's version before it
    hand: int  # 1-based
    seat: int
    kind: str  # "bid", "trump" or "play"
    position: Position
    choices: tuple[ChoiceValue, ...]  # best first
    best: str
    chosen: str
    loss: float  # expected points given up against the best choice (0 when it is one)
    mark: str | None  # "inaccuracy", "mistake", "blunder" or None: only what the error cannot undo
    error: float = 0.0  # the loss's standard error (the choice and the best priced on the same deals)
    close: str | None = None  # the mark the loss reaches but its error could undo ("close to a mistake")

    def value_of(self, choice: str) -> float | None:
        """The estimate of ``choice`` (None if it was not legal or never tried)."""
        for c in self.choices:
            if c.choice == choice:
                return c.expected
        return None

    def error_of(self, choice: str) -> float | None:
        """The standard error of the best's estimate less ``choice``'s (None: not priced against it)."""
        return next((c.error for c in self.choices if c.choice == choice), None)

    def well_priced(self, thresholds: Thresholds) -> bool:
        """Is every choice priced against the best clearly a right answer
        (within an inaccuracy of the best, error and all) or clearly a wrong
        one (worse by an inaccuracy, past its error)? Only such decisions
        make puzzles: another seed must not turn a right answer wrong."""
        best = self.value_of(self.best)
        if best is None:
            return False
        line = thresholds.inaccuracy
        for c in self.choices:
            if c.error is None or c.expected is None:
                continue  # not priced against the best (the best itself has error 0)
            gap = best - c.expected
            if not (gap + SURE * c.error < line or gap - SURE * c.error >= line):
                return False
        return True

    def good_answers(self, thresholds: Thresholds) -> tuple[str, ...]:
        """The choices that lose less than an inaccuracy: a puzzle's right answers."""
        best = self.value_of(self.best)
        out = [self.best]
        if best is None:
            return tuple(out)
        for c in self.choices:
            if c.choice != self.best and c.expected is not None and best - c.expected < thresholds.inaccuracy:
                out.append(c.choice)
        return tuple(out)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "hand": self.hand,
            "seat": self.seat,
            "kind": self.kind,
            "position": self.position.to_json(),
            "choices": [c.to_json() for c in self.choices],
            "best": self.best,
            "chosen": self.chosen,
            "loss": self.loss,
            "error": self.error,
            "mark": self.mark,
            "close": self.close,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Decision:
        return cls(
            version=d["version"],
            hand=d["hand"],
            seat=d["seat"],
            kind=d["kind"],
            position=Position.from_json(d["position"]),
            choices=tuple(ChoiceValue.from_json(c) for c in d["choices"]),
            best=d["best"],
            chosen=d["chosen"],
            loss=d["loss"],
            mark=d["mark"],
            error=d["error"],
            close=d["close"],
        )


@dataclass(frozen=True, slots=True)
class Advice:
    """The expert's advice for a decision not made yet: where a record stops
    with a seat to bid, name trump or play, every choice priced as a review
    prices them, and the best."""

    version: int  # the record's length: the decision would be the next action
    hand: int
    seat: int
    kind: str
    position: Position
    choices: tuple[ChoiceValue, ...]  # best first
    best: str

    def value_of(self, choice: str) -> float | None:
        return next((c.expected for c in self.choices if c.choice == choice), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "hand": self.hand,
            "seat": self.seat,
            "kind": self.kind,
            "position": self.position.to_json(),
            "choices": [c.to_json() for c in self.choices],
            "best": self.best,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Advice:
        return cls(
            version=d["version"],
            hand=d["hand"],
            seat=d["seat"],
            kind=d["kind"],
            position=Position.from_json(d["position"]),
            choices=tuple(ChoiceValue.from_json(c) for c in d["choices"]),
            best=d["best"],
        )


@dataclass(frozen=True, slots=True)
class HandLuck:
    """One hand: what each seat's cards and position were worth, and what it scored.

    ``value[s]`` is the mean score of seat ``s`` over ``playouts`` (the real
    deal played from the first bid with the expert in every seat);
    ``luck[s]`` is that value less the mean of the values (what the cards
    gave the seat over an average seat at the table); ``loss[s]`` sums the
    seat's reviewed decisions of the hand."""

    hand: int  # 1-based
    size: int
    dealer: int
    value: tuple[float, ...]
    luck: tuple[float, ...]
    scores: tuple[int, ...]
    loss: tuple[float, ...]
    playouts: tuple[tuple[int, ...], ...]  # each playout's scores by seat

    def to_json(self) -> dict[str, Any]:
        return {
            "hand": self.hand,
            "size": self.size,
            "dealer": self.dealer,
            "value": list(self.value),
            "luck": list(self.luck),
            "scores": list(self.scores),
            "loss": list(self.loss),
            "playouts": [list(p) for p in self.playouts],
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> HandLuck:
        return cls(
            hand=d["hand"],
            size=d["size"],
            dealer=d["dealer"],
            value=tuple(d["value"]),
            luck=tuple(d["luck"]),
            scores=tuple(d["scores"]),
            loss=tuple(d["loss"]),
            playouts=tuple(tuple(p) for p in d["playouts"]),
        )


@dataclass(frozen=True, slots=True)
class SeatSummary:
    """A seat over the match. With every seat reviewed, its score against
    the table's mean splits as ``edge = luck - (loss - mean loss) + rest``:
    ``rest`` is what the estimates do not explain (how the play fell, the
    others' choices), about ``rest_error`` in size by the playouts' spread."""

    seat: int
    name: str
    score: int
    edge: float  # score less the table's mean score
    decisions: int  # decisions reviewed (those with more than one choice)
    loss: float  # expected points lost, summed
    average_loss: float  # mean loss per decision: lower is better
    luck: float
    rest: float | None  # None when not every seat was reviewed
    rest_error: float
    loss_error: float = 0.0  # the standard error of ``loss``
    marked_loss: float = 0.0  # the part of ``loss`` lost in marked decisions
    luck_error: float = 0.0  # the standard error of ``luck`` over the playouts
    table_loss: float = 0.0  # the mean over the seats of their losses in the finished hands
    marks: dict[str, int] = field(default_factory=dict)
    biggest: tuple[int, ...] = ()  # versions of its costliest marked decisions, costliest first

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "name": self.name,
            "score": self.score,
            "edge": self.edge,
            "decisions": self.decisions,
            "loss": self.loss,
            "loss_error": self.loss_error,
            "marked_loss": self.marked_loss,
            "average_loss": self.average_loss,
            "luck": self.luck,
            "luck_error": self.luck_error,
            "table_loss": self.table_loss,
            "rest": self.rest,
            "rest_error": self.rest_error,
            "marks": dict(self.marks),
            "biggest": list(self.biggest),
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> SeatSummary:
        return cls(
            seat=d["seat"],
            name=d["name"],
            score=d["score"],
            edge=d["edge"],
            decisions=d["decisions"],
            loss=d["loss"],
            average_loss=d["average_loss"],
            luck=d["luck"],
            rest=d["rest"],
            rest_error=d["rest_error"],
            loss_error=d["loss_error"],
            marked_loss=d["marked_loss"],
            luck_error=d["luck_error"],
            table_loss=d["table_loss"],
            marks=dict(d["marks"]),
            biggest=tuple(d["biggest"]),
        )


@dataclass(frozen=True, slots=True)
class Puzzle:
    """A costly decision as a problem to solve: its position, the choice the
    seat made, and the right answers (every choice within an inaccuracy of
    the best)."""

    decision: Decision
    answers: tuple[str, ...]

    def is_right(self, choice: str) -> bool:
        return choice in self.answers

    def to_json(self) -> dict[str, Any]:
        return {"answers": list(self.answers), "decision": self.decision.to_json()}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Puzzle:
        return cls(Decision.from_json(d["decision"]), tuple(d["answers"]))


@dataclass(frozen=True, slots=True)
class Review:
    """The review of one match record (see ``review_record``)."""

    record: str  # sha256 of the record's text, as ``ohhell.dumps`` writes it
    seed: int
    budget: Budget
    thresholds: Thresholds
    seats: tuple[str, ...]  # names, by seat
    reviewed: tuple[int, ...]  # the seats whose decisions were reviewed
    finished: bool  # the record holds the whole match
    decisions: tuple[Decision, ...]  # in log order
    hands: tuple[HandLuck, ...]
    summary: tuple[SeatSummary, ...]  # by seat, for the reviewed seats
    puzzles: tuple[Puzzle, ...]  # costliest first
    pending: tuple[Advice, ...] = ()  # where an unfinished record stops: the seats to act, advised
    format: str = FORMAT

    def decisions_of(self, seat: int) -> tuple[Decision, ...]:
        return tuple(d for d in self.decisions if d.seat == seat)

    def decision_at(self, version: int) -> Decision | None:
        return next((d for d in self.decisions if d.version == version), None)

    def marked(self, seat: int | None = None) -> tuple[Decision, ...]:
        """The decisions with a mark (of one seat, or all), in log order."""
        return tuple(d for d in self.decisions if d.mark is not None and (seat is None or d.seat == seat))

    def summary_of(self, seat: int) -> SeatSummary | None:
        return next((s for s in self.summary if s.seat == seat), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "record": self.record,
            "seed": self.seed,
            "budget": self.budget.to_json(),
            "thresholds": self.thresholds.to_json(),
            "seats": list(self.seats),
            "reviewed": list(self.reviewed),
            "finished": self.finished,
            "summary": [s.to_json() for s in self.summary],
            "hands": [h.to_json() for h in self.hands],
            "decisions": [d.to_json() for d in self.decisions],
            "puzzles": [p.to_json() for p in self.puzzles],
            "pending": [a.to_json() for a in self.pending],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Review:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ReviewError(f"not a review in the format {FORMAT!r}")
        try:
            return cls(
                record=data["record"],
                seed=data["seed"],
                budget=Budget.from_json(data["budget"]),
                thresholds=Thresholds.from_json(data["thresholds"]),
                seats=tuple(data["seats"]),
                reviewed=tuple(data["reviewed"]),
                finished=data["finished"],
                decisions=tuple(Decision.from_json(d) for d in data["decisions"]),
                hands=tuple(HandLuck.from_json(h) for h in data["hands"]),
                summary=tuple(SeatSummary.from_json(s) for s in data["summary"]),
                puzzles=tuple(Puzzle.from_json(p) for p in data["puzzles"]),
                pending=tuple(Advice.from_json(a) for a in data["pending"]),
            )
        except (KeyError, TypeError, ValueError) as err:
            raise ReviewError(f"the review's JSON is incomplete or malformed: {err}") from None


__all__ = [
    "FORMAT",
    "MARKS",
    "SURE",
    "Advice",
    "Budget",
    "ChoiceValue",
    "Decision",
    "HandLuck",
    "PastTrick",
    "Position",
    "Puzzle",
    "Review",
    "ReviewError",
    "SeatSummary",
    "Thresholds",
]
