"""``ohhell score``: keep score of a game played with real cards, line by line.

The table plays with a real pack; this command is the scorekeeper's sheet. It
says who deals, how many cards, who bids first and, where the rules fix it,
what is trump; it takes the bids in bidding order (refusing the hook's bid),
the trump named, the tricks taken and revokes, and shows scores, blobs and
running totals. Any line may instead be a command (``help`` lists them): undo,
edit a past hand, the sheet, a chart, standings, export, save. With ``--file``
the sheet is saved (atomically) after every entry and resumed when the file
exists; without it the keeper says the sheet is not saved, ``save FILE``
starts saving, and quitting offers a save (the end of the input saves to a
file in the data folder rather than lose the sheet). ``--export csv|json``
prints a saved sheet and exits. Players are typed by name or by seat number,
counted from 1. The model is ``ohhell.scorekeeper.model``; this module only
reads lines and prints.
"""

from __future__ import annotations

import os
import shlex
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from .. import Scoring, TrumpMode, read_text
from ..describe import parse_seat, plural, rule_options_for_people
from .hands import HandView, ScoreError, parse_trump
from .model import ScoreGame

HELP = """\
Enter what the prompt asks for, or one of these commands:
  undo                       take back the last entry or edit
  edit H bids B1 B2 ...      change hand H's bids (in seat order)
  edit H tricks T1 T2 ...    change hand H's tricks taken (in seat order)
  edit H trump S|H|D|C|NT    change the trump named in hand H
  edit H revokes NAME ...    set hand H's revokes (NAME once per revoke; "none" for none)
  revoke NAME [H]            NAME revoked (a revoke costs 20) in this hand, or in hand H
  trump SUIT                 note the suit of the turned card (turned-trump rules only)
  NAME N                     NAME bids N (simultaneous bidding: any order)
  sheet                      every hand so far, with scores and running totals
  chart                      a chart of the totals by hand
  standings                  places, exact bids, settlement
  rules                      the rule options of this game
  export csv|json [FILE]     print the sheet as CSV or JSON, or write it to FILE
  save [FILE]                save the sheet to FILE, then after every entry
  help                       this list
  quit                       stop (a sheet not saved yet is offered a save)
A player (NAME) is a name, the start of one, or a seat number counted from 1."""


def data_folder() -> Path:
    """``$OHHELL_HOME``, else ``~/.local/share/ohhell``: where sheets are kept
    when no file was named."""
    home = os.environ.get("OHHELL_HOME")
    return Path(home).expanduser() if home else Path.home() / ".local" / "share" / "ohhell"


def suggested_sheet_path() -> Path:
    """A new file for a sheet that has none: ``<data folder>/sheets/sheet-YYYYmmdd-HHMMSS.json``."""
    folder = data_folder() / "sheets"
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for k in range(1, 1000):
        path = folder / f"sheet-{stamp}{'' if k == 1 else f'-{k}'}.json"
        if not path.exists():
            return path
    raise ScoreError(f"cannot find a free file name in {folder}")  # pragma: no cover


def resume_command(path: Path) -> str:
    """The command that continues the sheet saved at ``path``."""
    return f"ohhell score --file {shlex.quote(str(path))}"


def save_sheet(game: ScoreGame, path: Path) -> None:
    """Write the sheet to ``path`` atomically: a temporary file, then a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(game.to_json())
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_sheet(path: Path) -> ScoreGame:
    try:
        text = read_text(path, "a score sheet")
    except OSError as err:
        raise ScoreError(f"cannot read {path}: {err.strerror}") from None
    try:
        return ScoreGame.from_json(text)
    except ScoreError as err:
        raise ScoreError(f"{path}: {err}") from None


def ask(inp: TextIO, out: TextIO, prompt: str) -> str | None:
    out.write(prompt)
    out.flush()
    line = inp.readline()
    if not line:
        out.write("\n")
        return None
    return line.strip()


def _hand_header(game: ScoreGame, view: HandView) -> str:
    p = game.players
    count = f" of {len(game.rules.schedule)}" if not view.extra else " (extra hand to break the tie)"
    if view.trump_rule == "turned":
        trump = "turn up the next card after the deal"
    elif game.rules.trump is TrumpMode.BIDDER:
        trump = "named after the bidding by the highest bidder"
    else:
        trump = view.trump_rule
    cards = "1 card" if view.size == 1 else f"{view.size} cards"
    lead = "the dealer leads" if view.first_leader == view.dealer else f"{p[view.first_leader]} leads"
    return (
        f"\nHand {view.number}{count}: {cards} each. {p[view.dealer]} deals; "
        f"{p[view.first_bidder]} bids first; {lead}.\n  Trump: {trump}."
    )


def sheet_text(game: ScoreGame) -> str:
    """Every hand: bid/took, the score, a blob mark apart from it, and running totals.

    A cell reads ``2/4   +0 *``: bid 2, took 4, scored 0, and ``*`` (a blob)
    set off by a space so that it never reads as part of the score. The key
    under the sheet explains only the marks that appear in it.
    """
    p, n = game.players, game.rules.players
    width = max(12, *(len(x) + 1 for x in p))
    lines = ["hand cards dealer  trump " + "".join(f"{x:>{width - 2}}  " for x in p).rstrip()]
    for v in game.hands:
        trump = ("NT" if v.trump is None else v.trump.letter) if v.trump_known else "?"
        cells = []
        for s in range(n):
            bid = "-" if v.bids[s] is None else str(v.bids[s])
            if v.tricks is None or v.scores is None:
                cells.append(f"{bid}/?" + " " * 7)
            else:
                blob = " *" if s in v.missed else "  "
                cells.append(f"{bid}/{v.tricks[s]} {v.scores[s]:>+4d}{blob}")
        extra = "+" if v.extra else " "
        row = f"{v.number:>3}{extra} {v.size:>5} {p[v.dealer][:7]:<7} {trump:>5} "
        lines.append((row + "".join(f"{c:>{width}}" for c in cells)).rstrip())
        if v.scores is not None:
            lines.append((" " * 25 + "".join(f"{t:>{width - 2}}  " for t in v.totals)).rstrip())
    key = ["bid/took, then the hand's score"]
    if any(v.missed for v in game.hands):
        key.append("* a missed bid (a blob)")
    if any(v.bids[s] is None for v in game.hands for s in range(n)):
        key.append("- not bid yet")
    if any(v.tricks is None for v in game.hands):
        key.append("? not played yet")
    if any(not v.trump_known for v in game.hands):
        key.append("trump ? not noted")
    if any(v.extra for v in game.hands):
        key.append("+ after the hand number: an extra hand to break a tie")
    if game.completed:
        key.append("the running totals under each hand")
    lines.append(f"({'; '.join(key)})")
    return "\n".join(lines)


def chart_text(game: ScoreGame, height: int = 10) -> str:
    """The running totals by hand as a text chart, one letter per player."""
    rows = game.running_totals()
    if not rows:
        return "No hand is finished yet."
    marks = [name[0].upper() for name in game.players]
    if len(set(marks)) != len(marks):
        marks = [str(s + 1) for s in range(len(marks))]
    low, high = min(0, *(min(r) for r in rows)), max(0, *(max(r) for r in rows))
    span = max(1, high - low)
    grid = [[" "] * (3 * len(rows)) for _ in range(height + 1)]
    shared: dict[tuple[int, int], list[int]] = {}  # (hand, row) -> the seats drawn there
    for h, totals in enumerate(rows):
        for s, total in enumerate(totals):
            y = round((total - low) * height / span)
            cell = grid[height - y]
            cell[3 * h + 1] = marks[s] if cell[3 * h + 1] == " " else "*"
            shared.setdefault((h, y), []).append(s)
    lines = []
    for i, row in enumerate(grid):
        value = high - (span * i) / height
        lines.append(f"{value:>7.0f} |" + "".join(row))
    lines.append(" " * 8 + "+" + "-" * (3 * len(rows)))
    lines.append(" " * 9 + "".join(f"{h + 1:>2} " for h in range(len(rows))))
    legend = ", ".join(f"{m} {name}" for m, name in zip(marks, game.players, strict=True))
    lines.append(f"hands across, totals up; {legend}; * several players, named below")
    # A * hides whose totals met: say it, with the totals themselves.
    for (h, _y), seats in sorted(shared.items()):
        if len(seats) > 1:
            who = ", ".join(f"{game.players[s]} {rows[h][s]}" for s in seats)
            lines.append(f"  * at hand {h + 1}: {who}")
    last = rows[-1]
    order = sorted(range(len(last)), key=lambda s: -last[s])
    lines.append(
        f"Totals after hand {len(rows)}: " + ", ".join(f"{game.players[s]} {last[s]}" for s in order)
    )
    return "\n".join(lines)


def standings_text(game: ScoreGame) -> str:
    lines = []
    rates = game.exact_rates
    for row in game.standings():
        points, exact = plural(row.total, "point"), plural(row.exact, "exact bid")
        lines.append(f"{row.place}. {game.side_name(row.seats)}: {points}, {exact}")
    lines.append("Exact bids: " + ", ".join(f"{p} {r:.0%}" for p, r in zip(game.players, rates, strict=True)))
    if game.rules.scoring is Scoring.OKENUFF:  # R-SETTLE
        nets = game.settlement_net()
        lines.append(
            "Settlement: " + ", ".join(f"{p} {v:+d}" for p, v in zip(game.players, nets, strict=True))
        )
    if not game.is_over:
        lines.append("(the game is not over yet)")
    return "\n".join(lines)


class Keeper:
    """The line-by-line loop: prompts for the next entry, takes commands.

    ``path`` is the file the sheet is saved to after every entry, or None: the
    sheet is then in memory only, which the keeper says at once, and
    quitting offers a save (``suggest`` gives the file it offers). When the
    input ends (piped answers run out) the stop message, where the sheet is
    and how to go on, goes to ``err`` (standard error), as the other
    commands' notes about themselves do, so that it never mixes with what
    the answers produced."""

    def __init__(
        self,
        game: ScoreGame,
        inp: TextIO,
        out: TextIO,
        path: Path | None,
        *,
        suggest: Callable[[], Path] = suggested_sheet_path,
        err: TextIO | None = None,
    ) -> None:
        self.game = game
        self.inp = inp
        self.out = out
        self.err = err or sys.stderr
        self.path = path
        self.suggest = suggest
        self.announced: tuple[int, int] | None = None
        self.finished_shown = False

    def say(self, text: str) -> None:
        print(text, file=self.out)

    def run(self) -> int:
        if self.path is None:
            self.say(
                "Note: this sheet is not saved to a file. Type save FILE to keep it (it is then saved "
                "after every entry), or start with --file FILE next time."
            )
        else:
            self.say(f"The sheet is saved in {self.path} after every entry.")
        while True:
            view = self.game.current
            prompt = self._prompt(view)
            line = ask(self.inp, self.out, prompt)
            if line is None or line.lower() in ("quit", "exit", "q"):
                return self._leave(ended=line is None)
            if not line:
                continue
            try:
                self._handle(line, view)
            except ScoreError as err:
                self.say(f"  Refused: {err}")

    def _leave(self, *, ended: bool) -> int:
        """Quit: say where the sheet is and how to go on; a sheet with entries
        and no file is offered a save, and saved anyway when the input ended
        (then the words go to ``err``)."""

        def tell(text: str) -> None:
            print(text, file=self.err if ended else self.out)

        said_ended = False
        if self.path is None and self.game.entries:
            if ended:
                said_ended = True
                target = self.suggest()
                try:
                    self._save_to(target)
                except ScoreError as err:
                    tell(f"The input ended, and the sheet could not be saved: {err}.")
                    return 1
                tell(f"The input ended; the sheet was not saved yet, so it is saved in {target}.")
            elif self._offer_save() is None:
                tell("The sheet was not saved.")
                return 0
        if self.path is not None:
            why = "The input ended. " if ended and not said_ended else ""
            tell(f"{why}The sheet is saved in {self.path}. To continue it: {resume_command(self.path)}")
        return 0

    def _offer_save(self) -> Path | None:
        """Ask for a file until the sheet is saved or the keeper says no."""
        while True:
            default = self.suggest()
            answer = ask(
                self.inp,
                self.out,
                f"The sheet is not saved. Save it? Type a file name, Enter for {default}, or no: ",
            )
            if answer is not None and answer.lower() in ("no", "n"):
                return None
            target = Path(answer) if answer else default
            try:
                self._save_to(target, new=answer is not None)
            except ScoreError as err:
                self.say(f"  {err}")
                if answer is None:
                    return None
                continue
            return target

    def _save_to(self, target: Path, *, new: bool = True) -> None:
        """Save the sheet to ``target`` and keep saving there after every entry.
        ``new``: refuse a file that exists and holds something else."""
        if new and target.exists() and target != self.path:
            raise ScoreError(f"{target} exists already: choose another name (the file is left as it is)")
        if target.is_dir():
            raise ScoreError(f"{target} is a folder: give a file name such as {target / 'sheet.json'}")
        try:
            save_sheet(self.game, target)
        except OSError as err:
            raise ScoreError(f"cannot write {target}: {err.strerror or err}") from None
        self.path = target

    def _prompt(self, view: HandView | None) -> str:
        g = self.game
        if view is None:
            if not self.finished_shown:
                self.say("\nThe game is over.\n" + standings_text(g))
                self.finished_shown = True
            return "> "
        self.finished_shown = False
        key = (view.number, view.dealer)
        if self.announced != key:
            self.say(_hand_header(g, view))
            self.announced = key
        if not view.bidding_done:
            seat = self._bidder(view)
            hook = f", not {view.forbidden} (the hook)" if view.forbidden is not None else ""
            return f"Bid for {g.players[seat]} (0-{view.size}{hook}): "
        if view.needs_trump:
            assert view.trump_namer is not None
            return f"{g.players[view.trump_namer]} bid highest: trump? (C, D, H, S or NT): "
        return f"Tricks taken by {' '.join(g.players)} (in that order): "

    def _bidder(self, view: HandView) -> int:
        if view.next_bidder is not None:
            return view.next_bidder
        return next(s for s in view.bidding_order if view.bids[s] is None)

    def _handle(self, line: str, view: HandView | None) -> None:
        words = line.split()
        command = words[0].lower()
        commands: dict[str, Callable[[list[str]], None]] = {
            "help": lambda _: self.say(HELP),
            "?": lambda _: self.say(HELP),
            "undo": self._undo,
            "edit": self._edit,
            "revoke": self._revoke,
            "trump": self._trump,
            "sheet": lambda _: self.say(sheet_text(self.game)),
            "chart": lambda _: self.say(chart_text(self.game)),
            "standings": lambda _: self.say(standings_text(self.game)),
            "totals": lambda _: self.say(standings_text(self.game)),
            "rules": lambda _: self.say(
                "\n".join(
                    f"  {k}: {v}"
                    for k, v in rule_options_for_people(self.game.rules, self.game.players).items()
                )
            ),
            "export": self._export,
            "save": self._save,
        }
        if command in commands:
            commands[command](words[1:])
            return
        if view is None:
            raise ScoreError(f"{line!r}: the game is over; type help for the commands")
        if not view.bidding_done:
            self._enter_bid(words, view)
        elif view.needs_trump:
            self.game.name_trump(parse_trump(line))
            self._saved()
            self.say(f"  Trump: {_trump_name(self.game.hands[-1])}.")
        else:
            self.game.tricks(_numbers(words, "tricks taken"))
            self._saved()
            self._show_result(self.game.hands[view.number - 1])

    def _enter_bid(self, words: list[str], view: HandView) -> None:
        g = self.game
        if len(words) == 2:  # NAME N
            seat, number = _seat(g, words[0]), _number(words[1], "a bid")
        elif len(words) == 1:
            seat, number = self._bidder(view), _number(words[0], "a bid")
        else:
            raise ScoreError(f"{' '.join(words)!r} is not a bid: type a number (or help)")
        g.bid(seat, number)
        self._saved()
        now = g.hands[-1]
        if now.bidding_done:
            bids = ", ".join(f"{g.players[s]} {now.bids[s]}" for s in now.bidding_order)
            total = sum(b for b in now.bids if b is not None)
            self.say(f"  Bids: {bids}. {total} bid for {view.size}: {now.balance}.")

    def _show_result(self, v: HandView) -> None:
        g = self.game
        assert v.tricks is not None and v.scores is not None
        for s, name in enumerate(g.players):
            blob = "  missed (blob)" if s in v.missed else ""
            revokes = v.revokes.count(s)
            rev = f"  revoke x{revokes}" if revokes else ""
            self.say(
                f"  {name:<12} bid {v.bids[s]:>2} took {v.tricks[s]:>2}  score {v.scores[s]:>+4}  "
                f"total {v.totals[s]:>5}{blob}{rev}"
            )
        if v.no_trump and g.rules.no_trump_doubles:
            self.say("  (no trump: every score of this hand is doubled)")

    def _undo(self, _: list[str]) -> None:
        what = self.game.undo()
        self._saved()
        self.announced = None
        self.say(f"  Undone: {what}.")

    def _edit(self, words: list[str]) -> None:
        if len(words) < 3:
            raise ScoreError("edit needs a hand number, a field and values, e.g. edit 3 tricks 2 1 0 5")
        hand = _number(words[0], "a hand number")
        field, values = words[1].lower(), words[2:]
        g = self.game
        if field in ("bids", "bid"):
            g.edit(hand, bids=_numbers(values, "bids"))
        elif field in ("tricks", "took"):
            g.edit(hand, tricks=_numbers(values, "tricks taken"))
        elif field == "trump":
            g.edit(hand, trump=parse_trump(" ".join(values)))
        elif field in ("revokes", "revoke"):
            seats = [] if [v.lower() for v in values] == ["none"] else [_seat(g, v) for v in values]
            g.edit(hand, revokes=seats)
        else:
            raise ScoreError(f"{field!r}: edit bids, tricks, trump or revokes")
        self._saved()
        self.announced = None
        self.say(f"  Hand {hand} changed; totals now: " + _totals_line(g))

    def _revoke(self, words: list[str]) -> None:
        if not words:
            raise ScoreError("revoke needs the name of the player who revoked")
        g = self.game
        seat = _seat(g, words[0])
        hand = _number(words[1], "a hand number") if len(words) > 1 else None
        g.revoke(seat, hand)
        self._saved()
        self.say(f"  Revoke by {g.players[seat]}: -20. The offender may not profit from it.")

    def _trump(self, words: list[str]) -> None:
        self.game.name_trump(parse_trump(" ".join(words)))
        self._saved()
        self.say(f"  Trump: {_trump_name(self.game.hands[-1])}.")

    def _export(self, words: list[str]) -> None:
        if not words or words[0].lower() not in ("csv", "json"):
            raise ScoreError("export csv or export json, and a file name if you want one")
        text = self.game.to_csv() if words[0].lower() == "csv" else self.game.to_json() + "\n"
        if len(words) > 1:
            target = Path(" ".join(words[1:]))
            try:
                target.write_text(text, encoding="utf-8")
            except OSError as err:
                raise ScoreError(f"cannot write {target}: {err.strerror}") from None
            self.say(f"  Written to {target}.")
        else:
            self.out.write(text)

    def _save(self, words: list[str]) -> None:
        if not words and self.path is not None:
            self.say(f"  The sheet is saved in {self.path} after every entry already.")
            return
        target = Path(" ".join(words)) if words else self.suggest()
        self._save_to(target)
        self.say(f"  Saved in {target}, and from now on after every entry.")
        self.say(f"  To continue it later: {resume_command(target)}")

    def _saved(self) -> None:
        if self.path is not None:
            try:
                save_sheet(self.game, self.path)
            except OSError as err:  # the entry stands; say the file is behind
                self.say(f"  Could not save to {self.path}: {err.strerror or err}. Try save FILE.")


def _trump_name(view: HandView) -> str:
    if not view.trump_known:
        return "not known"
    return "no trump" if view.trump is None else view.trump.name.lower()


def _seat(game: ScoreGame, word: str) -> int:
    """A player typed by name, the start of a name, or seat number from 1."""
    try:
        return parse_seat(word, game.players)
    except ValueError as err:
        raise ScoreError(str(err)) from None


def _totals_line(game: ScoreGame) -> str:
    return ", ".join(f"{p} {t}" for p, t in zip(game.players, game.totals, strict=True))


def _number(word: str, what: str) -> int:
    try:
        return int(word)
    except ValueError:
        raise ScoreError(f"{word!r} is not {what}: type a whole number (or help)") from None


def _numbers(words: list[str], what: str) -> list[int]:
    values = [w for word in words for w in word.split(",") if w]
    try:
        return [int(v) for v in values]
    except ValueError:
        raise ScoreError(f"{' '.join(words)!r} is not {what}: type whole numbers (or help)") from None
