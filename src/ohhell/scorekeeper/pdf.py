"""``ohhell scoresheet``: a printable PDF score sheet (issue 6), blank or filled.

A blank sheet is for a table without a device: one row per hand of the rules'
schedule (R-SEQ-*) with the hand number, the cards each, who deals
(R-DEALER-ROTATE) and the trump where the rules fix it, then a column group
per player (bid, tricks, score, total) to fill in by hand; a footer gives the
scoring rule in one line and the hook. A filled sheet comes from a
saved ``ohhell score`` game (``--from game.json``): the same rows with the
bids, tricks, scores, running totals, a blob for every missed bid and the
standings.

Every fact on the sheet comes from ``ohhell.scorekeeper.model.ScoreGame`` (itself
built on ``rules.py`` and ``scoring.py``): a blank sheet is a ``ScoreGame``
with no entries. The PDF is drawn with fpdf2, imported only when a sheet is
rendered (the optional extra ``ohhell[pdf]``). Suit symbols need a Unicode
font: DejaVu is embedded when it is installed (``fonts-dejavu-core``);
otherwise the sheet uses the PDF core font Helvetica with suit letters
(S, H, D, C) and plain Latin letters for names. Nothing is downloaded.

    ohhell scoresheet --names Ann,Bob,Cid,Dee --preset pagat -o sheet.pdf
    ohhell scoresheet --from tuesday.json -o tuesday.pdf
"""

from __future__ import annotations

import datetime
import math
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from .. import Bidding, Rules, Scoring, Suit, TieBreak, TrumpMode, sides
from .. import Sequence as HandSequence
from ..describe import plural
from .hands import HandEntry, HandView
from .model import ScoreGame
from .words import sheet_title

if TYPE_CHECKING:
    from fpdf import FPDF

PAPERS: Final[dict[str, tuple[float, float]]] = {"a4": (297.0, 210.0), "letter": (279.4, 215.9)}
"""Landscape page sizes in millimetres (width, height)."""

FONT_DIRS: Final[tuple[Path, ...]] = (
    Path("/usr/share/fonts/truetype/dejavu"),  # Debian, Ubuntu (fonts-dejavu-core)
    Path("/usr/share/fonts/dejavu"),  # Fedora
    Path("/usr/share/fonts/TTF"),  # Arch
    Path("/usr/local/share/fonts"),
)
"""Where a DejaVu TTF is looked for; the first folder holding one is used."""

SPARE_TIE_ROWS: Final = 2
"""Blank rows for tie-break hands (R-TIE-EXTRA) at the end of an unfinished sheet."""

SCORING_LINES: Final[dict[Scoring, str]] = {
    Scoring.PAGAT: "made exactly: 10 + the bid; missed: 0",
    Scoring.RIVER: "made exactly: 10 + the tricks; missed: 0",
    Scoring.TENS: "made exactly: 10 a trick bid (a bid of 0: 10); missed: -10 a trick off",
    Scoring.TRICKS_BONUS: "1 a trick taken, +10 for a bid made exactly",
    Scoring.FIVES: "made exactly: 5 + 10 a trick; missed: -5 and -5 a trick off",
    Scoring.SQUARES: "made exactly: 10 + the bid squared; missed: -(tricks off) squared",
    Scoring.PENALTY: "made exactly: 10 + the tricks; missed: -1 a trick off",
    Scoring.OKENUFF: (
        "made exactly: 0 scores 5, 1: 6, 2: 8, 3: 11, 4: 15, 5: 35, 6: 40, 7: 45 (+5 a trick more); "
        "missed: -5 a trick off; the overcalling trump namer -5 more a trick short after the first"
    ),
}
"""The scoring rule of each system in one line, for the footer (the long form is describe.py's)."""

TEAM_SHADES: Final[tuple[tuple[int, int, int], ...]] = (
    (221, 235, 247),
    (253, 229, 207),
    (222, 240, 216),
    (234, 224, 242),
    (250, 240, 200),
    (225, 238, 238),
    (240, 222, 222),
)
"""Light fills for the column groups of each team (R-TEAMS)."""

PLAIN_SHADES: Final[tuple[tuple[int, int, int], ...]] = ((255, 255, 255), (238, 238, 238))
"""Alternate fills for the column groups without teams."""

_MARGIN: Final = 10.0
_MIN_ROW: Final = 5.6  # mm: still room to write a number by hand
_MAX_ROW: Final = 9.0
_GROUP_HEAD: Final = 6.5
_SUB_HEAD: Final = 4.6
_SUBCOLUMNS: Final = (("Bid", 0.21), ("Took", 0.21), ("Score", 0.27), ("Total", 0.31))


class SheetError(ValueError):
    """A sheet that cannot be made (fpdf2 missing, bad options); the message says why."""


@dataclass(frozen=True, slots=True)
class SheetRow:
    """One line of the sheet: a hand entered, a hand ahead, or a spare tie-break line."""

    view: HandView
    spare: bool = False  # a tie-break hand that may not be played (R-TIE-EXTRA)


def sheet_rows(game: ScoreGame, spare_tie_rows: int = SPARE_TIE_ROWS) -> list[SheetRow]:
    """Every line of the sheet: the hands entered, then the hands still to come.

    The hands to come are computed by the scorekeeper itself (size, dealer,
    trump, as ``ScoreGame`` would show them once reached). Under R-TIE-EXTRA an
    unfinished sheet ends with spare lines for tie-break hands.

    >>> from ohhell.rules import PRESETS
    >>> rows = sheet_rows(ScoreGame(PRESETS["pagat"], ["Ann", "Bob", "Cid", "Dee"], 0))
    >>> [r.view.size for r in rows][:4], [r.view.dealer for r in rows][:5]
    ([10, 9, 8, 7], [0, 1, 2, 3, 0])
    """
    rows = [SheetRow(v) for v in game.hands]
    if game.is_over:
        return rows
    schedule = len(game.rules.schedule)
    k = len(rows)
    while k < schedule:
        rows.append(SheetRow(_planned(game, k)))
        k += 1
    current = game.current
    if current is not None and current.extra and current.number > len(game.hands):
        rows.append(SheetRow(current))  # a tie-break hand the sheet asks for now
        k += 1
    if game.rules.tie_break is TieBreak.EXTRA_HANDS:
        end = max(k, schedule + spare_tie_rows)
        rows.extend(SheetRow(_planned(game, j), spare=True) for j in range(k, end))
    return rows


def _planned(game: ScoreGame, k: int) -> HandView:
    # ScoreGame's own view of hand k (0-based) with nothing entered: the size
    # (R-SEQ-*, R-TIE-EXTRA), dealer (R-DEALER-ROTATE), bidding order and the
    # trump where the rules fix it. ScoreGame shows only the hands entered and
    # the current one, so the hands ahead come from its internal computation.
    blank = HandEntry(bids=(None,) * game.rules.players)
    return game._view(k, blank, game.totals)


# --- Text helpers ---


def _latin(text: str) -> str:
    """Text the PDF core fonts can show (latin-1): accents kept where latin-1 has
    them, else dropped (Ł -> L), other characters as ``?``."""
    try:
        text.encode("latin-1")
        return text
    except UnicodeEncodeError:
        pass
    out = []
    for ch in text:
        try:
            ch.encode("latin-1")
            out.append(ch)
        except UnicodeEncodeError:
            base = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
            out.append(base or {"Ł": "L", "ł": "l", "Ø": "O", "ø": "o", "Đ": "D", "đ": "d"}.get(ch, "?"))
    return "".join(out)


def _schedule_text(rules: Rules) -> str:
    sizes = rules.schedule
    count, top = plural(len(sizes), "hand"), max(sizes)
    if len(set(sizes)) == 1:
        return f"{count} of {plural(top, 'card')}"
    if rules.hand_sizes is None:
        match rules.sequence:
            case HandSequence.DOWN_UP:
                return f"{count}: {top} cards down to 1 and back up to {top}"
            case HandSequence.UP_DOWN:
                return f"{count}: 1 card up to {top} and back down to 1"
            case HandSequence.DOWN:
                return f"{count}: {top} cards down to 1"
            case HandSequence.UP:
                return f"{count}: 1 card up to {top}"
    return f"{count} of {', '.join(str(s) for s in sizes)} cards"


def _trump_text(rules: Rules) -> str:
    match rules.trump:
        case TrumpMode.TURN:
            return "turn up the card after the deal; none when every card is dealt"
        case TrumpMode.ROTATE:
            return "by rotation, as shown"
        case TrumpMode.FIXED:
            return f"always {rules.trump_suit.name.lower()}"
        case TrumpMode.BIDDER:
            return "named by the highest bidder after the bidding"
        case TrumpMode.NONE:
            return "none, every hand"
    return ""  # pragma: no cover


def _hook_text(rules: Rules) -> str:
    if rules.bidding is Bidding.SIMULTANEOUS:
        return "Bids are written down together and shown at once; no hook."
    if not rules.hook:
        return "The player left of the dealer bids first. No hook: any bid is allowed."
    return (
        "The player left of the dealer bids first. Hook: the dealer, bidding "
        "last, may not bid so that the bids add up to the cards in the hand."
    )


def standings_text(game: ScoreGame) -> str:
    """``Final standings: 1. Ann 63 (6 exact), 2. ...``, and the settlement under Okenuff."""
    done = len(game.completed)
    head = "Final standings" if game.is_over else f"Standings after hand {done}"
    places = ", ".join(
        f"{s.place}. {game.side_name(s.seats)} {s.total} ({s.exact} exact)" for s in game.standings()
    )
    text = f"{head}: {places}"
    if game.rules.scoring is Scoring.OKENUFF:
        nets = game.settlement_net()
        text += ". Settlement: " + ", ".join(
            f"{name} {net:+d}" for name, net in zip(game.players, nets, strict=True)
        )
    return text


# --- The PDF ---


def _find_fonts(font_dir: Path | None) -> tuple[Path, Path] | None:
    """(regular, bold) DejaVu TTFs, the condensed cut when present; None when absent."""
    dirs = (font_dir,) if font_dir is not None else FONT_DIRS
    for folder in dirs:
        for family in ("DejaVuSansCondensed", "DejaVuSans"):
            regular = folder / f"{family}.ttf"
            if regular.is_file():
                bold = folder / f"{family}-Bold.ttf"
                return regular, bold if bold.is_file() else regular
    return None


class _Sheet:
    """Lays out and draws the sheet of one game."""

    def __init__(
        self, game: ScoreGame, paper: str, font_dir: Path | None, dealer_drawn: bool = False
    ) -> None:
        try:
            from fpdf import FPDF
        except ImportError:
            raise SheetError(
                "the PDF score sheet needs fpdf2 (the extra ohhell[pdf]): python3 -m pip install -e '.[pdf]'"
            ) from None
        if paper not in PAPERS:
            raise SheetError(f"unknown paper {paper!r}; choose {' or '.join(PAPERS)}")
        self.game = game
        self.rules = game.rules
        self.n = game.rules.players
        self.rows = sheet_rows(game)
        self.filled = bool(game.hands)
        # R-DEALER-DRAW on a blank sheet: nobody knows who deals until the
        # table draws, so the sheet names no dealer and leaves the column blank.
        self.dealer_drawn = dealer_drawn and not self.filled
        self.page_w, self.page_h = PAPERS[paper]
        pdf = FPDF(orientation="L", unit="mm", format=(self.page_h, self.page_w))
        pdf.set_auto_page_break(False)
        pdf.set_margins(_MARGIN, _MARGIN)
        pdf.set_creator("ohhell scoresheet")
        fonts = _find_fonts(font_dir)
        if fonts is not None:
            pdf.add_font("Sheet", "", str(fonts[0]))
            pdf.add_font("Sheet", "B", str(fonts[1]))
            self.family, self.unicode = "Sheet", True
        else:
            self.family, self.unicode = "Helvetica", False
        self.pdf: FPDF = pdf
        self.title = f"Oh Hell score sheet: {sheet_title(game.rules, game.players)}"
        pdf.set_title(self.t(self.title))
        self._layout()

    # Text and fonts

    def t(self, text: str) -> str:
        return text if self.unicode else _latin(text)

    def font(self, size: float, bold: bool = False) -> None:
        self.pdf.set_font(self.family, "B" if bold else "", size)

    def fit(self, text: str, width: float, size: float, bold: bool = False, least: float = 5.0) -> str:
        """Set the largest font size up to ``size`` at which ``text`` fits ``width``; cut it if needed."""
        text = self.t(text)
        while True:
            self.font(size, bold)
            if self.pdf.get_string_width(text) <= width or size <= least:
                break
            size = max(least, size - 0.5)
        while len(text) > 1 and self.pdf.get_string_width(text) > width:
            text = text[:-1]
        return text

    def suit_text(self, suit: Suit | None) -> str:
        if suit is None:
            return "NT"
        return suit.symbol if self.unicode else suit.letter

    # Layout

    def _layout(self) -> None:
        names = self.game.players
        self.font(8)
        widest = max(self.pdf.get_string_width(self.t(p)) for p in names)
        self.w_hand, self.w_cards, self.w_trump = 9.0, 10.0, 11.0
        self.w_dealer = min(26.0, max(15.0, widest + 3.0))
        inner = self.page_w - 2 * _MARGIN
        fixed = self.w_hand + self.w_cards + self.w_dealer + self.w_trump
        self.w_group = (inner - fixed) / self.n
        self.table_x = _MARGIN
        self.title_h = 15.0
        self.footer_h = 10.5 + (5.0 if self.filled else 0.0) + (4.0 if self.rules.teams else 0.0)
        self.head_h = _GROUP_HEAD + _SUB_HEAD
        top = _MARGIN + self.title_h
        self.body_top = top + self.head_h
        room = self.page_h - _MARGIN - self.footer_h - self.body_top
        per_page = max(1, math.floor(room / _MIN_ROW))
        self.pages = max(1, math.ceil(len(self.rows) / per_page))
        self.per_page = math.ceil(len(self.rows) / self.pages)
        self.row_h = min(_MAX_ROW, room / self.per_page)
        self.body_size = max(6.5, min(11.0, self.row_h * 1.35, self.w_group * 0.32))

    def group_x(self, seat: int) -> float:
        return self.table_x + self.w_hand + self.w_cards + self.w_dealer + self.w_trump + seat * self.w_group

    def shade(self, seat: int) -> tuple[int, int, int]:
        teams = self.rules.teams
        if teams:
            team = next(i for i, t in enumerate(teams) if seat in t)
            return TEAM_SHADES[team % len(TEAM_SHADES)]
        return PLAIN_SHADES[seat % 2]

    # Drawing

    def render(self) -> bytes:
        for page in range(self.pages):
            rows = self.rows[page * self.per_page : (page + 1) * self.per_page]
            self.pdf.add_page()
            self._title(page)
            self._group_fills(len(rows))
            self._header()
            for i, row in enumerate(rows):
                self._row(self.body_top + i * self.row_h, row)
            self._grid(len(rows))
            self._footer()
        return bytes(self.pdf.output())

    def _title(self, page: int) -> None:
        pdf, game, rules = self.pdf, self.game, self.rules
        x, y = _MARGIN, _MARGIN
        width = self.page_w - 2 * _MARGIN
        pdf.set_text_color(0, 0, 0)
        pdf.set_xy(x, y)
        self.font(14, bold=True)
        pdf.cell(width * 0.7, 7, self.fit(self.title, width * 0.7 - 2, 14, bold=True))
        right = f"Page {page + 1} of {self.pages}" if self.pages > 1 else ""
        # A filled sheet gives the day the game was played (today's, for a file without one).
        day = (game.date or datetime.date.today().isoformat()) if self.filled else "____________"
        right = (right + "    " if right else "") + f"Date {day}"
        pdf.set_xy(x + width * 0.7, y)
        self.font(9)
        pdf.cell(width * 0.3, 7, self.t(right), align="R")
        if self.dealer_drawn:
            first = "The first dealer is drawn (the highest card deals); write the dealers in"
        else:
            first = f"{game.players[game.first_dealer]} deals first"
        line = f"{_schedule_text(rules)}. {first}; the deal passes to the left. Trump: {_trump_text(rules)}."
        if rules.devils_bridge:
            line += " 1-card hands are played blind."
        pdf.set_xy(x, y + 8)
        pdf.cell(width, 5, self.fit(line, width, 9))

    def _group_fills(self, count: int) -> None:
        pdf = self.pdf
        top = _MARGIN + self.title_h
        height = self.head_h + count * self.row_h
        for seat in range(self.n):
            pdf.set_fill_color(*self.shade(seat))
            pdf.rect(self.group_x(seat), top, self.w_group, height, style="F")
            # the Total column a little darker: the number to read across the table
            total_x = self.group_x(seat) + self.w_group * (1 - _SUBCOLUMNS[-1][1])
            r, g, b = self.shade(seat)
            pdf.set_fill_color(max(0, r - 14), max(0, g - 14), max(0, b - 14))
            pdf.rect(total_x, top + _GROUP_HEAD, self.w_group * _SUBCOLUMNS[-1][1], height - _GROUP_HEAD, "F")

    def _header(self) -> None:
        pdf = self.pdf
        top = _MARGIN + self.title_h
        pdf.set_text_color(0, 0, 0)
        fixed = (
            ("Hand", self.w_hand),
            ("Cards", self.w_cards),
            ("Dealer", self.w_dealer),
            ("Trump", self.w_trump),
        )
        x = self.table_x
        for label, width in fixed:
            pdf.set_xy(x, top)
            text = self.fit(label, width - 1, 8, bold=True)
            pdf.cell(width, self.head_h, text, align="C")
            x += width
        for seat, name in enumerate(self.game.players):
            gx = self.group_x(seat)
            pdf.set_xy(gx, top)
            text = self.fit(name, self.w_group - 2, 11, bold=True)
            pdf.cell(self.w_group, _GROUP_HEAD, text, align="C")
            for label, sx, width in self._subcolumns(seat):
                pdf.set_xy(sx, top + _GROUP_HEAD)
                text = self.fit(label, width - 0.6, 7.5)
                pdf.cell(width, _SUB_HEAD, text, align="C")

    def _subcolumns(self, seat: int) -> list[tuple[str, float, float]]:
        """(label, x, width) of the bid, took, score and total columns of a seat."""
        x = self.group_x(seat)
        out = []
        for label, share in _SUBCOLUMNS:
            width = self.w_group * share
            out.append((label, x, width))
            x += width
        return out

    def _row(self, y: float, row: SheetRow) -> None:
        pdf, game, v = self.pdf, self.game, row.view
        h, size = self.row_h, self.body_size
        pdf.set_text_color(0, 0, 0)
        x = self.table_x
        label = "tie" if v.extra else str(v.number)
        cells = ((label, self.w_hand), (str(v.size), self.w_cards))
        for text, width in cells:
            pdf.set_xy(x, y)
            pdf.cell(width, h, self.fit(text, width - 1, size, bold=True), align="C")
            x += width
        if not self.dealer_drawn:
            pdf.set_xy(x, y)
            pdf.cell(self.w_dealer, h, " " + self.fit(game.players[v.dealer], self.w_dealer - 2, size * 0.9))
        x += self.w_dealer
        if v.trump_known:
            text = self.suit_text(v.trump)
            if v.trump in (Suit.HEARTS, Suit.DIAMONDS):
                pdf.set_text_color(200, 0, 0)
            pdf.set_xy(x, y)
            pdf.cell(self.w_trump, h, self.fit(text, self.w_trump - 1, size * 1.1, bold=True), align="C")
            pdf.set_text_color(0, 0, 0)
        for seat in range(self.n):
            self._player_cells(y, v, seat)

    def _player_cells(self, y: float, v: HandView, seat: int) -> None:
        pdf, h = self.pdf, self.row_h
        bid_col, took_col, score_col, total_col = self._subcolumns(seat)
        bid = v.bids[seat]
        values: list[tuple[str, tuple[str, float, float], bool]] = []
        if bid is not None:
            values.append((str(bid), bid_col, False))
        if v.tricks is not None and v.scores is not None:
            values.append((str(v.tricks[seat]), took_col, False))
            revoked = v.revokes.count(seat)  # R-REVOKE, marked R once per revoke
            values.append((str(v.scores[seat]) + "R" * revoked, score_col, False))
            values.append((str(v.totals[seat]), total_col, True))
            if seat in v.missed:  # the blob: a dot by the score of a missed bid
                radius = min(h * 0.14, 1.1)
                pdf.set_fill_color(30, 30, 30)
                cx, cy = score_col[1] + radius + 0.5, y + h / 2
                pdf.ellipse(cx - radius, cy - radius, 2 * radius, 2 * radius, style="F")
        for text, (_label, x, width), bold in values:
            pdf.set_xy(x, y)
            pdf.cell(width, h, self.fit(text, width - 1, self.body_size, bold=bold), align="C")

    def _grid(self, count: int) -> None:
        pdf = self.pdf
        top = _MARGIN + self.title_h
        bottom = self.body_top + count * self.row_h
        right = self.group_x(self.n)
        pdf.set_draw_color(90, 90, 90)
        pdf.set_line_width(0.15)
        for i in range(count + 1):  # row lines
            y = self.body_top + i * self.row_h
            pdf.line(self.table_x, y, right, y)
        for seat in range(self.n):  # sub-column lines
            for _label, x, _width in self._subcolumns(seat)[1:]:
                pdf.line(x, top + _GROUP_HEAD, x, bottom)
        pdf.set_draw_color(0, 0, 0)
        pdf.set_line_width(0.5)
        pdf.rect(self.table_x, top, right - self.table_x, bottom - top)
        pdf.line(self.table_x, self.body_top, right, self.body_top)
        x = self.table_x
        for width in (self.w_hand, self.w_cards, self.w_dealer, self.w_trump):
            x += width
            pdf.set_line_width(0.5 if x >= self.group_x(0) - 0.01 else 0.25)
            pdf.line(x, top, x, bottom)
        pdf.set_line_width(0.5)
        for seat in range(1, self.n):
            pdf.line(self.group_x(seat), top, self.group_x(seat), bottom)
        pdf.set_line_width(0.25)
        for seat in range(self.n):
            pdf.line(self.group_x(seat), top + _GROUP_HEAD, self.group_x(seat + 1), top + _GROUP_HEAD)
        pdf.set_line_width(0.2)

    def _footer(self) -> None:
        pdf, rules, game = self.pdf, self.rules, self.game
        width = self.page_w - 2 * _MARGIN
        y = self.page_h - _MARGIN - self.footer_h + 1.5
        pdf.set_text_color(0, 0, 0)
        if self.filled:
            pdf.set_xy(_MARGIN, y)
            pdf.cell(width, 4.5, self.fit(standings_text(game), width, 10, bold=True))
            y += 5.0
        scoring = f"Scoring: {SCORING_LINES[rules.scoring]}"
        if rules.no_trump_doubles:
            scoring += "; a hand without trump scores double"
        scoring += ". A revoke costs 20."
        pdf.set_xy(_MARGIN, y)
        pdf.cell(width, 4, self.fit(scoring, width, 8.5))
        pdf.set_xy(_MARGIN, y + 4.2)
        legend = (
            " Blob (dot): a missed bid. R: a revoke." if self.filled else " Write the bid before the play."
        )
        pdf.cell(width, 4, self.fit(_hook_text(rules) + legend, width, 8.5))
        if rules.teams:
            teams = "; ".join(f"team {i + 1}: {game.side_name(team)}" for i, team in enumerate(sides(rules)))
            pdf.set_xy(_MARGIN, y + 8.4)
            text = f"Teams (shaded alike; scores combine): {teams}."
            pdf.cell(width, 4, self.fit(text, width, 8.5))


def render(
    game: ScoreGame, paper: str = "a4", font_dir: Path | None = None, *, dealer_drawn: bool = False
) -> bytes:
    """The PDF of ``game``'s sheet: blank rows for the hands not yet entered.

    ``font_dir`` is where to look for a DejaVu TTF (default: the usual system
    folders); a folder without one gives the core-font sheet with suit letters.
    ``dealer_drawn``: the table draws for the first dealer (R-DEALER-DRAW), so
    a blank sheet names no dealer (``game``'s first dealer only places the rows).
    """
    return _Sheet(game, paper, font_dir, dealer_drawn).render()


def blank_game(rules: Rules, players: Sequence[str], first_dealer: int | None = None) -> ScoreGame:
    """The game of a blank sheet. When the rules draw for the dealer and none
    is given, seat 0 stands in: render it with ``dealer_drawn=True``."""
    if first_dealer is None:
        first_dealer = rules.first_dealer if rules.first_dealer is not None else 0
    return ScoreGame(rules, players, first_dealer)
