"""The full-screen game: one person against bots, keyboard and mouse.

The app drives a ``Session``: it draws ``session.observation()`` (what the
human may know) and the session's events, asks bots one move at a time (the
expert in a worker thread, so the screen stays alive), pauses between moves so
they can be followed, and waits for the human's card, bid or trump by key or
click. The session saves the match after every action, so ``q`` and Ctrl-C
only have to leave.

Keys: cards ``1``-``9``, ``0``, then ``a``-``g``: each card keeps the key it
was dealt with for the whole hand (the keys of cards played are not given to
others); or the arrows, which move a cursor over the playable cards only
(it starts on one, or on the hinted card), and Enter. Bids by digits (two
digits for bids over 9, or Enter after one); trump ``1``-``5``; Enter takes
the hint's bid, trump or card. ``h`` hint, ``k`` claim tricks (see
``claim``), ``o`` forced cards on or off (see ``forced``), ``?`` rules,
``s`` score sheet, ``q`` save and quit; Enter
continues after a trick. After your bid, while
the rules let you change it (R-BID-CHANGE), the next bidder waits a few
seconds, counted down on screen: a digit changes the bid, Enter lets the next
bidder go on at once, and when the time is up the game goes on by itself.
In a small window the layout is compact (``l`` shows the log), and in one too
small for that a notice asks for a larger window rather than cutting the
table short (see ``layout``).
"""

from __future__ import annotations

import asyncio
import math
from collections import Counter
from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.events import Resize
from textual.geometry import Size
from textual.timer import Timer
from textual.widgets import Footer, RichLog, Static

from ... import (
    Action,
    Bid,
    Card,
    ChangeBid,
    Event,
    HandResult,
    IllegalActionError,
    NameTrump,
    Observation,
    Phase,
    Play,
    Trick,
)
from ...describe import refusal_words, rules_title, sort_hand
from ..session import Next, Session
from .claim import CLAIM_KEY, start_claim
from .forced import FORCED_KEY, play_forced, toggle_forced
from .layout import COMPACT, FULL, fitting_layout, need, too_small_words
from .screens import FinalScreen, RulesScreen, ScoreScreen
from .status import status_text
from .style import CSS
from .widgets import (
    CARD_KEYS,
    CardWidget,
    Chip,
    hand_over_view,
    log_lines,
    players_table,
    suit_style,
    suit_text,
)
from .words import TRUMPS, hint_words, title_text

SHEET_PAUSE = 8.0
"""Seconds the score sheet after a hand stays, counted down on it, unless a key is pressed."""

BID_DIGIT_WAIT = 3.0
"""Seconds a first digit that may start a longer bid (1 of a hand of 10 or
more) waits for the second, counted down, before it is taken as the bid."""

MAX_CARDS = len(CARD_KEYS)  # 17: the largest hand (3 players, 52 cards)


class OhHellApp(App[str]):
    """Play ``session`` full screen. ``pause``: seconds between bots' moves;
    ``trick_pause``: how long a finished trick stays unless a key is pressed
    (``math.inf``: until a key; 0: not at all; by default three pauses). Tests
    set them to 0, or the trick pause to ``math.inf`` and press the key."""

    TITLE = "Oh Hell"
    ENABLE_COMMAND_PALETTE = False
    CSS = CSS
    BINDINGS: ClassVar[list[BindingType]] = [
        # The footer shows these in this order and cuts the last in a narrow
        # window: the way out first, the keys said elsewhere too (o) last.
        Binding("q", "save_quit", "Save & quit"),
        Binding("h", "hint", "Hint"),
        Binding(CLAIM_KEY, "claim", "Claim"),
        Binding("s", "scores", "Scores"),
        Binding("l", "log", "Log"),
        Binding("question_mark", "rules", "Rules", key_display="?"),
        Binding(FORCED_KEY, "forced", "Forced cards"),
        Binding("escape", "close_log", show=False),
        Binding("enter", "confirm", "OK"),
        Binding("space", "confirm", show=False),
        Binding("left", "move(-1)", show=False),
        Binding("right", "move(1)", show=False),
        Binding("ctrl+c", "interrupt", show=False, priority=True),
        *(Binding(k, f"key('{k}')", show=False) for k in CARD_KEYS),
    ]

    def __init__(
        self,
        session: Session,
        *,
        pause: float = 0.6,
        trick_pause: float | None = None,
        hint_seconds: float | None = None,
        sheet_pause: float | None = None,
    ) -> None:
        super().__init__()
        self.session = session
        self.pause = pause
        self.trick_pause = 3 * pause if trick_pause is None else trick_pause
        # A person who chose to press a key after each trick presses one after each sheet too.
        if sheet_pause is None:
            sheet_pause = math.inf if math.isinf(self.trick_pause) else SHEET_PAUSE
        self.sheet_pause = sheet_pause
        self.hint_seconds = session.hint_seconds if hint_seconds is None else hint_seconds
        self.busy = False  # bots or chance are moving, or a trick or score sheet is shown
        self.waiting_continue = False
        self.shown_trick: Trick | None = None
        self.finished: HandResult | None = None  # the hand just over, shown until its sheet is closed
        self.thinking: int | None = None
        self.error: str | None = None
        self.note: Text | None = None  # a hint, or a short message
        self.hinted: Action | None = None
        self.digits = ""
        self.cursor: int | None = None  # a slot of the hand, on a playable card
        # The hand as dealt: each card keeps its slot (and key) until the hand
        # ends; a card played leaves its slot empty (None).
        self.slots: list[Card | None] = []
        self.slots_hand: int | None = None
        self.layout: str | None = FULL
        self.window: Size | None = None  # the size the terminal last reported
        self._continue = asyncio.Event()
        self._grace_timer: Timer | None = None  # R-BID-CHANGE: the countdown's next tick
        self._digit_timer: Timer | None = None  # the wait for a bid's second digit
        self.digit_left = 0
        self._drawn: dict[str, object] = {}  # what each widget shows now (see _show)

    # --- layout ---

    def compose(self) -> ComposeResult:
        yield Static(id="title")
        with Horizontal(id="middle"):
            yield Static(id="players")
            yield RichLog(id="log", wrap=True, markup=False, min_width=20)
        yield Static(id="status")
        with Horizontal(id="choices"):
            yield Static("Bid", id="bid-label")
            for b in range(MAX_CARDS + 1):
                yield Chip(str(b), str(b), id=f"bid-{b}")
            for i, t in enumerate(TRUMPS):
                label = Text.assemble(f"{i + 1} ", suit_text(t))
                yield Chip(f"trump-{i}", label, id=f"trump-{i}")
            yield Chip("keep", "Go on ⏎", id="keep")
            yield Chip("continue", "Continue ⏎", id="continue")
        with Horizontal(id="hand"):
            for i in range(MAX_CARDS):
                yield CardWidget(i)
        yield Static(id="too-small")
        yield Footer()

    def on_mount(self) -> None:
        s = self.session
        log = self.query_one("#log", RichLog)
        log.write(Text(f"Oh Hell: {rules_title(s.rules)}.", style="bold"))
        opponents = ", ".join(f"{s.names[i]} ({s.kinds[i]})" for i in range(s.rules.players) if i != s.human)
        keys = (
            "Press ? for the rules, h for a hint, k to claim tricks while the cards are played, "
            f"{FORCED_KEY} to have a card you have no choice about played for you "
            f"(now {'on' if s.forced_cards else 'off'})."
        )
        log.write(Text(f"Against {opponents}. {keys}"))
        if s.moves and not s.is_over:
            log.write(Text(f"Resumed from {s.save_path}.", style="dim"))
            for event, obs in s.hand_events():  # this hand so far, as it was shown
                for line in log_lines(event, obs, s.names, s.human):
                    log.write(line)
        self.refresh_view()
        self.advance()

    # --- what the human is asked ---

    def mode(self) -> str:
        """``bid``, ``change``, ``trump``, ``play``, ``continue``, ``wait`` or ``over``."""
        if self.waiting_continue:
            return "continue"
        s = self.session
        if self.busy:
            return "wait"
        what = s.next()
        if what is Next.OVER:
            return "over"
        if what is not Next.HUMAN:
            return "wait"
        if s.in_change_window:
            return "change"
        return {Phase.BID: "bid", Phase.TRUMP: "trump"}.get(s.observation().phase, "play")

    @property
    def ready(self) -> bool:
        """Is the app waiting for the human (a choice, a key to go on, or the end)?"""
        if isinstance(self.screen, ScoreScreen | FinalScreen):
            return True
        return self.mode() in ("bid", "change", "trump", "play", "continue")

    # --- drawing ---

    def on_resize(self, event: Resize) -> None:
        self.window = event.size  # the app's own size follows a moment later
        if self.screen_stack:
            self.refresh_view()

    def fit_layout(self) -> bool:
        """Choose the layout the window holds (see ``layout``); False, with a
        notice in place of the table, when the window is too small for any."""
        s = self.session
        width, height = self.window or self.size
        layout = fitting_layout(s.rules, s.names, s.kinds, width, height)
        main = self.screen_stack[0]
        if layout != self.layout:
            self.layout = layout
            main.set_class(layout == COMPACT, "compact")
            main.set_class(layout is None, "too-small")
            self._drawn.clear()  # every widget is drawn again at its new width
            self.refresh_bindings()
        if layout is not None:
            return True
        self._show("#too-small", too_small_words(need(s.rules, s.names, s.kinds, COMPACT), width, height))
        return False

    def refresh_view(self) -> None:
        if not self.fit_layout():
            return
        s = self.session
        obs = s.observation()
        if self.finished is not None:  # the table still shows the hand just over, not the next dealer
            obs = hand_over_view(obs, self.finished)
        mode = self.mode()
        self._show("#title", self.title_text(obs))
        table_key = (
            obs.phase,
            obs.bids,
            obs.has_bid,
            obs.taken,
            obs.totals,
            obs.trick,
            obs.actors,
            obs.dealer,
            obs.hands if obs.devils_bridge else None,
            self.shown_trick,
            mode == "change",
        )
        if self._drawn.get("#players") != table_key:
            self._drawn["#players"] = table_key
            # R-BID-CHANGE: while you may change your bid, ▶ marks the next bidder, who waits.
            turn = {self.next_bidder()} if mode == "change" else None
            table = players_table(
                obs, s.names, s.kinds, self.shown_trick, turn=turn, levels=self.layout == FULL
            )
            self.query_one("#players", Static).update(table)
        self._show("#status", self.status_text(obs, mode))
        self.draw_choices(obs, mode)
        self.draw_hand(obs, mode)

    def _show(self, selector: str, text: Text) -> None:
        # Redraw a widget only when its text changed: each update costs a repaint.
        if self._drawn.get(selector) != text:
            self._drawn[selector] = text
            self.query_one(selector, Static).update(text, layout=False)

    def title_text(self, obs: Observation) -> Text:
        return title_text(obs, self.session.names, self.session.human, compact=self.layout == COMPACT)

    def status_text(self, obs: Observation, mode: str) -> Text:
        waiting = self.next_bidder() if mode == "change" else None
        digits = (self.digits, self.digit_left)
        return status_text(
            self.session, obs, mode, digits, waiting, self.shown_trick, self.thinking, self.error, self.note
        )

    def draw_choices(self, obs: Observation, mode: str) -> None:
        legal = set(obs.legal_actions)
        current = obs.bids[self.session.human] if mode == "change" else None
        key = (
            mode,
            obs.hand_size,
            obs.forbidden_bid,
            current,
            self.hinted,
            tuple(legal) if mode == "trump" else (),
        )
        if self._drawn.get("#choices") == key:
            return  # unchanged: no repaint
        self._drawn["#choices"] = key
        self.query_one("#bid-label", Static).display = mode in ("bid", "change")
        for b in range(MAX_CARDS + 1):
            chip = self.query_one(f"#bid-{b}", Chip)
            chip.display = mode in ("bid", "change") and b <= obs.hand_size
            if not chip.display:
                continue
            forbidden = mode == "bid" and b == obs.forbidden_bid
            chip.set_class(forbidden, "forbidden")
            chip.set_class(current == b, "current")
            chip.set_class(isinstance(self.hinted, Bid) and self.hinted.bid == b, "hinted")
            chip.update(Text(f"{b} hook", style="strike") if forbidden else str(b))
        for i, t in enumerate(TRUMPS):
            chip = self.query_one(f"#trump-{i}", Chip)
            chip.display = mode == "trump" and NameTrump(self.session.human, t) in legal
            chip.set_class(isinstance(self.hinted, NameTrump) and self.hinted.suit == t, "hinted")
            if self.layout == COMPACT:  # the symbol alone: five choices in a narrow window
                chip.update(
                    Text.assemble(f"{i + 1} ", Text(t.symbol, suit_style(t)) if t is not None else "NT")
                )
            else:
                chip.update(Text.assemble(f"{i + 1} ", suit_text(t)))
        self.query_one("#keep", Chip).display = mode == "change"
        self.query_one("#continue", Chip).display = mode == "continue"

    def update_slots(self, obs: Observation) -> None:
        """Keep each card in the slot it was dealt to: a new hand is laid out
        sorted, and a card played leaves its slot (and its key) empty. A hand
        first seen part played (on resume) is laid out as it was dealt, from
        the cards you still hold and those you played, so every key is the same."""
        if obs.phase not in (Phase.BID, Phase.TRUMP, Phase.PLAY):
            return
        left = Counter(obs.hand)  # Counter: an Australian pack holds equal cards
        kept: list[Card | None] = []
        for card in self.slots:
            if card is not None and left[card] > 0:
                kept.append(card)
                left[card] -= 1
            else:
                kept.append(None)
        if self.slots_hand != obs.hand_number or +left:
            me, n = self.session.human, obs.players
            played = [t.cards[(me - t.leader) % n] for t in obs.tricks]
            played += [card for seat, card in obs.trick if seat == me]
            gone = Counter(c for c in played if c is not None)
            self.slots = []
            for card in sort_hand([*obs.hand, *gone.elements()]):
                if gone[card] > 0:
                    gone[card] -= 1
                    self.slots.append(None)
                else:
                    self.slots.append(card)
            self.slots_hand = obs.hand_number
        else:
            self.slots = kept

    def playable_slots(self, obs: Observation, mode: str) -> list[int]:
        """The slots of the cards you may play now, left to right."""
        plays = [a for a in obs.legal_actions if isinstance(a, Play)]
        if mode != "play" or not plays:
            return []
        if obs.devils_bridge:
            return [0]  # the card you cannot see
        playable = {a.card for a in plays}
        return [i for i, card in enumerate(self.slots) if card is not None and card in playable]

    def hinted_slot(self) -> int | None:
        if isinstance(self.hinted, Play) and self.hinted.card in self.slots:
            return self.slots.index(self.hinted.card)
        return None

    def draw_hand(self, obs: Observation, mode: str) -> None:
        blind = obs.devils_bridge and obs.phase in (Phase.BID, Phase.TRUMP, Phase.PLAY)
        keyed = obs.phase is Phase.PLAY  # while bidding, digits are bids: no card shows a key
        self.update_slots(obs)
        playable = self.playable_slots(obs, mode)
        if not playable:
            self.cursor = None
        elif self.cursor not in playable:  # start on the hinted card, else the first playable one
            hinted = self.hinted_slot()
            self.cursor = hinted if hinted in playable else playable[0]
        hinted = self.hinted_slot()
        for i, widget in enumerate(self.query(CardWidget)):
            if blind:
                count = obs.hand_counts[self.session.human]
                widget.show(None, legal=mode == "play", neutral=mode != "play", blind=i < count, keyed=keyed)
                if i >= count:
                    widget.display = False
            else:
                card = self.slots[i] if i < len(self.slots) else None
                widget.show(card, legal=i in playable, neutral=mode != "play", keyed=keyed)
            widget.set_class(self.cursor == i, "cursor")
            widget.set_class(hinted == i, "hinted")

    def next_bidder(self) -> int:
        """R-BID-CHANGE: the seat that bids after you (it waits while you may change your bid)."""
        s = self.session
        return next((seat for seat in s.match.to_ask() if seat != s.human), (s.human + 1) % s.rules.players)

    def arm_grace(self) -> None:
        """R-BID-CHANGE: tick when the countdown's seconds change, and go on
        by itself when the next bidder has waited long enough."""
        if self._grace_timer is not None:
            self._grace_timer.stop()
            self._grace_timer = None
        left = self.session.change_left()
        if left is None:
            return
        delay = left - math.ceil(left) + 1 if left > 0 else 0  # until the seconds shown change
        self._grace_timer = self.set_timer(max(0.01, min(delay, left)), self.grace_tick)

    def grace_tick(self) -> None:
        self._grace_timer = None
        s = self.session
        if self.busy or not s.in_change_window:
            return
        if s.next() is Next.HUMAN:  # still within the grace: show the new count
            self.refresh_view()
            self.arm_grace()
            return
        self.digits = ""  # the grace is over: the next bidder bids
        self.busy = True
        self.advance()

    def log_event(self, event: Event) -> None:
        s = self.session
        log = self.query_one("#log", RichLog)
        for line in log_lines(event, s.observation(), s.names, s.human):
            log.write(line)

    # --- the match moving on ---

    @work(exclusive=True, group="game")
    async def advance(self, first: Event | None = None, settled: Sequence[Event] = ()) -> None:
        """Show the human's last event (or the plays that settled a claim), then
        play bots and chance until the human is to act or the match is over."""
        s = self.session
        self.busy = True
        try:
            for event in settled[:-1]:  # played out at once: logged, no pauses
                self.log_event(event)
            if settled:
                await self.after_event(settled[-1], by_bot=False)
            if first is not None:
                await self.after_event(first, by_bot=False)
            while True:
                what = s.next()
                if what is Next.OVER:
                    self.busy = False
                    self.refresh_view()
                    self.show_final()
                    return
                forced = s.forced_play() if s.forced_cards and what is Next.HUMAN else None
                if forced is not None:  # your only card: played for you, like a move
                    await self.after_event(play_forced(self, forced), by_bot=True)
                    continue
                if what is Next.HUMAN:
                    if s.in_change_window:
                        self.arm_grace()
                    return
                if what is Next.CHANCE:
                    event = s.step()
                else:
                    seat = s.bot_seat()
                    assert seat is not None
                    if s.level(seat) == "expert":  # slow: think in a thread and say so
                        self.thinking = seat
                        self.refresh_view()
                        action = await asyncio.to_thread(s.choose, seat)
                        self.thinking = None
                    elif seat == s.human:  # your claim: the referee plays your card (a search)
                        action = await asyncio.to_thread(s.choose, seat)
                    else:
                        action = s.choose(seat)
                    event = s.step(action)
                await self.after_event(event, by_bot=True)
        finally:
            self.busy = False
            self.thinking = None
            if self.is_running:
                self.refresh_view()

    async def after_event(self, event: Event, *, by_bot: bool) -> None:
        s = self.session
        self.finished = event.result
        if event.kind == "deal":
            self.note = None  # a note (a claim's outcome, say) was about the hand before
        self.log_event(event)
        self.refresh_view()
        if event.trick is not None and self.trick_pause > 0:
            self.shown_trick = event.trick
            await self.wait_continue(None if math.isinf(self.trick_pause) else self.trick_pause)
            self.shown_trick = None
        if event.result is not None:
            r = event.result
            heading = f"Hand {r.number} is over ({r.size} card{'s' if r.size != 1 else ''})."
            then = "The final standings" if self.session.is_over else "The next hand"
            sheet = ScoreScreen(s.observation().results, s.names, heading, wait=self.sheet_pause, then=then)
            await self.push_screen_wait(sheet)
            self.finished = None
        elif by_bot and event.kind not in ("deal", "draw") and self.pause > 0:
            await asyncio.sleep(self.pause)

    async def wait_continue(self, timeout: float | None) -> None:
        self._continue.clear()
        self.waiting_continue = True
        self.refresh_view()
        try:
            await asyncio.wait_for(self._continue.wait(), timeout)
        except TimeoutError:
            pass
        finally:
            self.waiting_continue = False

    def show_final(self) -> None:
        if isinstance(self.screen, FinalScreen):
            return
        s = self.session
        saved = ""
        if s.save_path is not None:
            saved = f"The game record is in {s.save_path}: ohhell replay {s.save_path} shows every hand."
        self.push_screen(FinalScreen(s.observation(), s.names, saved))

    # --- the human acting ---

    def human_act(self, action: Action) -> None:
        if self.busy or self.mode() in ("wait", "continue", "over"):
            return
        try:
            event = self.session.act(action)
        except IllegalActionError as err:
            self.error = refusal_words(err, self.session.names, self.session.human)
            self.digits = ""
            self.refresh_view()
            return
        self.error = None
        self.note = None
        self.hinted = None
        self.digits = ""
        self.cursor = None
        self.busy = True  # until the worker has shown this and moved the bots
        self.advance(event)

    def keep_bid(self) -> None:
        if self.mode() != "change":
            return
        self.session.keep_bid()
        self.error = None
        self.digits = ""
        self.busy = True
        self.advance()

    def play_index(self, index: int) -> None:
        """Play the card in slot ``index`` (its key is ``CARD_KEYS[index]``)."""
        obs = self.session.observation()
        if obs.devils_bridge:
            blind = [a for a in obs.legal_actions if isinstance(a, Play)]
            if index == 0 and blind:
                self.human_act(blind[0])
            return
        card = self.slots[index] if index < len(self.slots) else None
        if card is None:
            keys = " ".join(CARD_KEYS[i] for i, c in enumerate(self.slots) if c is not None)
            gone = "was played" if index < len(self.slots) else "is not in your hand"
            self.error = (
                f"Card {CARD_KEYS[index]} {gone}; your cards have the keys {keys} "
                "(each card keeps its key all hand)."
            )
            self.refresh_view()
            return
        self.human_act(Play(self.session.human, card))

    def bid_digit(self, digit: str, mode: str) -> None:
        obs = self.session.observation()
        self.digits += digit
        value = int(self.digits)
        if value == 0 or value * 10 > obs.hand_size or len(self.digits) >= 2:
            self.commit_bid(mode)
        else:  # "1" with a hand of 10 or more: wait a little for "0", counted down
            self.digit_left = math.ceil(BID_DIGIT_WAIT)
            self.refresh_view()
            self._arm_digit(self.digits)

    def _arm_digit(self, digits: str) -> None:
        if self._digit_timer is not None:
            self._digit_timer.stop()
        self._digit_timer = self.set_timer(
            BID_DIGIT_WAIT / math.ceil(BID_DIGIT_WAIT), lambda: self.digit_tick(digits)
        )

    def digit_tick(self, digits: str) -> None:
        """Count down the wait for a second digit; at 0 the first is the bid."""
        self._digit_timer = None
        mode = self.mode()
        if self.digits != digits or mode not in ("bid", "change"):
            return  # the bid was made another way meanwhile
        self.digit_left -= 1
        if self.digit_left <= 0:
            self.commit_bid(mode)
            return
        self.refresh_view()
        self._arm_digit(digits)

    def commit_bid(self, mode: str) -> None:
        if not self.digits:
            return
        value = int(self.digits)
        self.digits = ""
        me = self.session.human
        if mode == "change":
            if value == self.session.observation().bids[me]:
                self.keep_bid()
            else:
                self.human_act(ChangeBid(me, value))
        else:
            self.human_act(Bid(me, value))

    # --- input: keys and clicks ---

    def _main_screen(self) -> bool:
        return self.screen is self.screen_stack[0]

    def action_key(self, key: str) -> None:
        if not self._main_screen():
            return
        mode = self.mode()
        if mode == "play":
            self.play_index(CARD_KEYS.index(key))
        elif mode in ("bid", "change") and key.isdigit():
            self.bid_digit(key, mode)
        elif mode == "trump" and key in "12345":
            self.human_act(NameTrump(self.session.human, TRUMPS[int(key) - 1]))

    def action_confirm(self) -> None:
        if not self._main_screen():
            return
        mode = self.mode()
        if mode == "continue":
            self._continue.set()
        elif mode in ("bid", "change") and self.digits:
            self.commit_bid(mode)
        elif mode == "change":
            self.keep_bid()
        elif mode in ("bid", "trump") and isinstance(self.hinted, Bid | NameTrump):
            self.human_act(self.hinted)  # Enter takes the hint
        elif mode == "play" and self.cursor is not None:
            self.play_index(self.cursor)  # the cursor is on the hinted card once there is a hint
        elif mode in ("bid", "trump"):  # Enter before any choice: say what chooses
            top = self.session.observation().hand_size
            what = (
                f"To bid, press a digit from 0 to {top} (or click a bid)"
                if mode == "bid"
                else "To name trump, press 1 to 5 (or click one)"
            )
            self.note = Text(f"{what}; h asks the expert for a hint.", "yellow")
            self.refresh_view()

    def action_move(self, delta: int) -> None:
        """The cursor to the next (or previous) playable card, skipping the others."""
        if self.mode() != "play" or not self._main_screen():
            return
        playable = self.playable_slots(self.session.observation(), "play")
        if not playable:
            return
        at = playable.index(self.cursor) if self.cursor in playable else -1 if delta > 0 else 0
        self.cursor = playable[(at + delta) % len(playable)]
        self.refresh_view()

    def action_log(self) -> None:
        """In the compact layout, the log in place of the players' table (at its
        newest lines), and back."""
        if self.layout == COMPACT and self._main_screen():
            main = self.screen_stack[0]
            main.toggle_class("show-log")
            if main.has_class("show-log"):
                log = self.query_one("#log", RichLog)
                self.call_after_refresh(log.scroll_end, animate=False)

    def action_close_log(self) -> None:
        """Escape: the players' table again, where the log stood in its place."""
        if self._main_screen():
            self.screen_stack[0].remove_class("show-log")

    def on_card_widget_chosen(self, message: CardWidget.Chosen) -> None:
        mode = self.mode()
        if mode == "continue":
            self._continue.set()
        elif mode == "play":
            self.play_index(message.index)

    def on_chip_chosen(self, message: Chip.Chosen) -> None:
        mode = self.mode()
        value = message.value
        if value == "continue":
            self._continue.set()
        elif value == "keep":
            self.keep_bid()
        elif value.startswith("trump-") and mode == "trump":
            self.human_act(NameTrump(self.session.human, TRUMPS[int(value[6:])]))
        elif value.isdigit() and mode in ("bid", "change"):
            self.digits = value
            self.commit_bid(mode)

    def on_click(self) -> None:
        if self.waiting_continue:
            self._continue.set()

    # --- commands ---

    def action_hint(self) -> None:
        s = self.session
        if not self._main_screen():
            return
        if self.mode() not in ("bid", "trump", "play"):
            self.note = Text("No hint now: the expert suggests bids, trump and cards on your turn.", "yellow")
            self.refresh_view()
            return
        self.note = Text("The expert is thinking…", style="italic yellow")
        self.refresh_view()
        self.run_hint(s.observation(), s.moves)

    @work(exclusive=True, group="hint")
    async def run_hint(self, obs: Observation, at: int) -> None:
        s = self.session
        found = await asyncio.to_thread(s.hint, self.hint_seconds, obs)
        if found is None or s.moves != at:
            return
        self.hinted = found.action
        key = None
        if isinstance(found.action, Play):
            slot = self.hinted_slot()
            self.cursor = slot  # Enter plays the hinted card
            key = CARD_KEYS[slot] if slot is not None else None
        self.note = Text(f"Hint: the expert would {hint_words(found, key)}.", style="bold yellow")
        self.refresh_view()

    def action_claim(self) -> None:
        if self._main_screen():
            start_claim(self)

    def action_forced(self) -> None:
        if self._main_screen():
            toggle_forced(self)

    def action_rules(self) -> None:
        if isinstance(self.screen, RulesScreen):
            return
        self.push_screen(RulesScreen(self.session.rules, self.session.names, self.session.human))

    def action_scores(self) -> None:
        if not self._main_screen():
            return
        self.push_screen(ScoreScreen(self.session.observation().results, self.session.names, "Score sheet"))

    def action_save_quit(self) -> None:
        self.session.save()
        self.exit("quit")

    def action_interrupt(self) -> None:
        self.session.save()
        self.exit("interrupted")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Game keys belong to the table: hide them while another screen is up,
        # and while the window is too small to show the table.
        if action == "log":
            return self.layout == COMPACT and self._main_screen()
        if action in ("hint", "claim", "forced", "scores", "key", "confirm", "move"):
            return self._main_screen() and self.layout is not None
        return True
