"""The line mode of ``ohhell play``: text prompts and one answer per line.

For screen readers and scripts: every card is written in words ("ace of
spades", hands as "spades A 10 4; hearts K 7"), there are no colour codes
unless the output is a terminal, and a whole match can be played by piping
answers in. A bad answer is re-asked with the reason. At any prompt ``h``
asks for the expert's hint, ``?`` shows the rules, ``s`` the score sheet and
``q`` saves and quits; the end of the input saves and quits too, saying so
on stderr (stdout keeps the game alone). The match is saved after every
action anyway (see ``session``). At the card prompt ``claim all``, ``claim
none`` or ``claim 2`` claims tricks (``Session.claim`` decides). With the
session's ``forced_cards`` on, a card you have no choice about is played
for you, with a line that says so, and nothing is asked.

It shows only ``session.observation()`` and the session's events: what the
human may know.

R-BID-CHANGE: after your bid, at a terminal, the line mode says how long the
next bidder waits and reads a new bid for that long (``Waiter``); nothing
typed, the game goes on. Input that is not a terminal is never waited for:
a script answers one question a line, so its bid stands at once.
"""

from __future__ import annotations

import contextlib
import math
import os
import select
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from .. import (
    Action,
    Bid,
    Bidding,
    Card,
    CardError,
    ChangeBid,
    Event,
    IllegalActionError,
    NameTrump,
    Observation,
    Phase,
    Play,
    Suit,
)
from ..describe import (
    balance_words,
    card_from_words,
    card_words,
    describe_rules,
    event_words,
    hand_words,
    hook_words,
    refusal_words,
    rules_title,
    seat_number,
    sort_hand,
    suit_word,
    trump_words,
)
from ..score_words import result_lines, running_totals, score_sheet_lines
from .claim_words import ONE_A_HAND, claim_answer, claim_words, tricks_left_words
from .session import HUMAN, Next, Session, default_save_path
from .you_words import forced_words, standings_for_you

COMMANDS = (
    "At any prompt: h for a hint, ? for the rules, s for the score sheet, q to save and quit. "
    "At your card: claim all, claim none or claim a number of the tricks left (one claim a hand)."
)
_TRUMP_CHOICES: tuple[Suit | None, ...] = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES, None)


class _Stop(Exception):
    """The player quit, or the input ended."""


def resume_command(path: Path | None) -> str:
    """The command that continues the match saved at ``path``."""
    if path is None:
        return "ohhell play --resume"
    if path.resolve() == default_save_path().resolve():
        return "ohhell play --resume"
    return f"ohhell play --resume {path}"


Waiter = Callable[[float], str | None]
"""Reads one line typed within the seconds given; None when none came."""


def tty_waiter(stream: TextIO) -> Waiter | None:
    """A ``Waiter`` on a terminal's input (None off a terminal, or where the
    platform cannot wait on it): it waits on the file descriptor, and when the
    time is up throws away whatever was half typed, so that it does not run into
    the next answer."""
    try:
        import termios
    except ImportError:  # pragma: no cover - not a Unix
        return None
    if not _isatty(stream):
        return None
    try:
        fd = stream.fileno()
    except (OSError, ValueError):  # a stand-in for a terminal, with no descriptor
        return None

    def wait(seconds: float) -> str | None:
        ready, _, _ = select.select([fd], [], [], max(0.0, seconds))
        if not ready:
            with contextlib.suppress(OSError, termios.error):
                termios.tcflush(fd, termios.TCIFLUSH)
            return None
        line = stream.readline()
        if not line:
            raise _Stop("eof")
        return line

    return wait


MAX_ANSWERS = 20
"""Answers in a row that make no choice before input that is not a terminal
is given up on (a person at a terminal may take as many as they like)."""


class PlainUI:
    """Plays a session on text streams. ``run()`` returns the exit status."""

    def __init__(
        self,
        session: Session,
        infile: TextIO | None = None,
        outfile: TextIO | None = None,
        errfile: TextIO | None = None,
        *,
        color: bool | None = None,
        echo: bool | None = None,
        waiter: Waiter | None = None,
    ) -> None:
        self.session = session
        self.infile = infile if infile is not None else sys.stdin
        self.out = outfile if outfile is not None else sys.stdout
        self.err = errfile if errfile is not None else sys.stderr  # why the match stopped
        tty = _isatty(self.out)
        self.color = (tty and "NO_COLOR" not in os.environ) if color is None else color
        # Answers read from a pipe are not echoed by a terminal: write them after
        # the prompt, so that a transcript reads like a conversation.
        self.echo = (not _isatty(self.infile)) if echo is None else echo
        # R-BID-CHANGE: how to wait for a new bid while the next bidder waits;
        # None (input that is not a terminal): the bid stands at once.
        self.waiter = waiter if waiter is not None else tty_waiter(self.infile)
        self.names = session.names
        self.you = session.human
        self.asked = 0  # answers read for the decision at hand
        self._claim_said: int | None = None  # the hand whose claim was last offered

    # --- output ---

    def say(self, *lines: str) -> None:
        for line in lines:
            self.out.write(line + "\n")
        self.out.flush()

    def ask(self, prompt: str) -> str:
        """One answer line; raises _Stop at the end of the input, or when
        input that is not a terminal keeps answering without a choice being
        made (a script repeating a refused answer would otherwise loop for ever)."""
        self.asked += 1
        if self.asked > MAX_ANSWERS and not _isatty(self.infile):
            raise _Stop("refused")
        self.out.write(prompt + " ")
        self.out.flush()
        line = self.infile.readline()
        if not line:
            self.out.write("\n")
            raise _Stop("eof")
        answer = line.strip()
        if self.echo:
            self.out.write(answer + "\n")
            self.out.flush()
        return answer

    def hand_text(self, cards: Sequence[Card]) -> str:
        text = hand_words(cards)
        if not self.color:
            return text
        for suit in (Suit.HEARTS, Suit.DIAMONDS):
            name = suit_word(suit)
            parts = text.split("; ")
            text = "; ".join(f"\033[31m{p}\033[0m" if p.startswith(name) else p for p in parts)
        return text

    # --- the match ---

    def run(self) -> int:
        s = self.session
        try:
            self.intro()
            while True:
                what = s.next()
                if what is Next.OVER:
                    self.final()
                    return 0
                forced = s.forced_play() if s.forced_cards and what is Next.HUMAN else None
                if forced is not None:  # no choice to make: the card is played for you
                    self.say(forced_words(forced))
                    self.show_event(s.act(forced))
                elif what is Next.HUMAN:
                    self.human_turn()
                else:
                    self.show_event(s.step())
        except _Stop as stop:
            s.save()
            if str(stop) == "refused":  # said on stderr, as the end of the input is
                self.err.write(
                    f"Stopped: {MAX_ANSWERS} answers in a row made no choice, and the input is not "
                    f"a terminal. The match is saved in {s.save_path}.\nTo continue it: {self._resume()}\n"
                )
                self.err.flush()
                return 1
            lines = (f"the match is saved in {s.save_path}.", f"To continue it: {self._resume()}")
            if str(stop) == "eof":  # stdout keeps the game alone: the stop is said on stderr
                self.err.write(f"The input ended: {lines[0]}\n{lines[1]}\n")
                self.err.flush()
            else:
                self.say(f"You quit: {lines[0]}", lines[1])
            return 0
        except KeyboardInterrupt:
            s.save()
            self.say(
                "", f"Interrupted: the match is saved in {s.save_path}.", f"To continue it: {self._resume()}"
            )
            return 130

    def _resume(self) -> str:
        return resume_command(self.session.save_path)

    def intro(self) -> None:
        s = self.session
        rules = s.rules
        obs = s.observation()

        def seat(i: int) -> str:
            if s.kinds[i] != HUMAN:
                return f"{seat_number(i)} {self.names[i]} ({s.kinds[i]})"
            return f"{seat_number(i)} {self.names[i]}" + ("" if self.names[i] == "You" else " (you)")

        seats = [seat(i) for i in range(rules.players)]
        lines = [
            f"Oh Hell: {rules_title(rules, self.names, self.you)}.",
            f"{self.you_are()} Seats, clockwise: " + ", ".join(seats) + ".",
        ]
        lines.extend(describe_rules(rules, self.names, self.you)[1:3])  # teams, hand sequence
        lines.append(COMMANDS)
        if s.save_path is not None:
            lines.append(f"The match is saved after every move in {s.save_path}.")
        self.say(*lines)
        if s.moves and not s.is_over:
            self.say(f"Resuming the match at hand {obs.hand_number + 1}.")
            if obs.phase in (Phase.BID, Phase.TRUMP, Phase.PLAY):
                self.say(self.hand_header(obs))

    def you_are(self) -> str:
        name, seat = self.names[self.you], seat_number(self.you)
        return f"You sit in seat {seat}." if name == "You" else f"You are {name}, in seat {seat}."

    def hand_header(self, obs: Observation) -> str:
        total = len(obs.rules.schedule)
        number = (
            f"Hand {obs.hand_number + 1} of {total}"
            if not obs.extra_hand
            else f"Tie-break hand {obs.hand_number + 1}"
        )
        cards = f"{obs.hand_size} card{'s' if obs.hand_size != 1 else ''}"
        dealer = "you deal" if obs.dealer == self.you else f"{self.names[obs.dealer]} deals"
        text = f"{number}: {dealer} {cards} each. Trump: {trump_words(obs)}."
        if obs.devils_bridge:
            text += " Devil's Bridge: you see everyone's card but your own."
        return text

    def show_event(self, event: Event) -> None:
        s = self.session
        obs = s.observation()
        if event.kind == "deal":
            self.say("", self.hand_header(obs))
            return
        self.say(*event_words(event, self.names, self.you))
        bidding_over = obs.balance is not None and obs.phase is not Phase.BID
        if event.kind == "bid" and bidding_over and event.hand_number == obs.hand_number:
            self.say(f"All bids are in: {self.bids_text(obs)}; {balance_words(obs)}.")
        if event.result is not None:
            r = event.result
            self.say(f"Hand {r.number} is over.")
            self.say(*result_lines(r, running_totals(obs.results, r.number), self.names))

    def bids_text(self, obs: Observation) -> str:
        parts = []
        for seat in self.bid_order(obs):
            if obs.bids[seat] is not None:
                parts.append(f"{self.who(seat)} {obs.bids[seat]}")
            elif obs.has_bid[seat]:
                parts.append(f"{self.who(seat)} sealed")
        return ", ".join(parts)

    def bid_order(self, obs: Observation) -> list[int]:
        n = obs.players
        return [(obs.dealer + 1 + i) % n for i in range(n)]

    def who(self, seat: int) -> str:
        return "you" if seat == self.you else self.names[seat]

    # --- the human's turn ---

    def human_turn(self) -> None:
        s = self.session
        self.asked = 0
        obs = s.observation()
        if s.in_change_window:
            self.change_turn(obs)
        elif obs.phase is Phase.BID:
            self.bid_turn(obs)
        elif obs.phase is Phase.TRUMP:
            self.trump_turn(obs)
        else:
            self.play_turn(obs)

    def show_cards(self, obs: Observation) -> None:
        if obs.devils_bridge:
            held = [
                f"{self.names[seat]} {card_words(h[0])}"
                for seat, h in enumerate(obs.hands)
                if h is not None and seat != self.you and h
            ]
            self.say("You cannot see your own card. The others hold: " + (", ".join(held) or "nothing") + ".")
        else:
            self.say(f"Your hand: {self.hand_text(obs.hand)}")

    def bid_turn(self, obs: Observation) -> None:
        self.show_cards(obs)
        if obs.rules.bidding is Bidding.SIMULTANEOUS:
            self.say("Everyone bids at once; the bids stay sealed until all are in.")
        elif any(obs.has_bid):
            self.say(f"Bids so far: {self.bids_text(obs)}.")
        else:
            self.say("You bid first.")
        while True:
            answer = _without_verb(self.ask(f"Your bid ({hook_words(obs)}):"), "bid")
            if self.command(answer):
                continue
            if not answer:
                self.say(f"Please answer with a number of tricks from 0 to {obs.hand_size}.")
                continue
            bid = _number(answer)
            if bid is None:
                self.say(
                    f"{answer!r} is not a bid: answer with a number of tricks from 0 to {obs.hand_size}."
                )
                continue
            if not 0 <= bid <= obs.hand_size:
                self.say(f"You cannot bid {bid}: a bid is from 0 to {obs.hand_size}, the cards in your hand.")
                continue
            if bid == obs.forbidden_bid:
                self.say(
                    f"You may not bid {bid}: the hook forbids the last bidder to make the bids add up "
                    f"to the {_tricks(obs.hand_size)}. Choose another bid."
                )
                continue
            if self.try_act(Bid(self.you, bid)):
                return

    def change_turn(self, obs: Observation) -> None:
        """R-BID-CHANGE: the next bidder waits the grace; a new bid typed in
        that time changes yours. Nothing is asked off a terminal."""
        s = self.session
        if self.waiter is None:
            s.keep_bid()  # a script answers one question a line: its bid stands
            return
        current = obs.bids[self.you]
        nxt = self.names[(self.you + 1) % obs.players]  # the next bidder
        left = s.change_left() or 0.0
        self.say(f"{nxt} bids in {math.ceil(left)} s; type a new bid and Enter to change yours.")
        while left > 0:
            line = self.waiter(left)
            if line is None:
                break
            answer = line.strip()
            if answer.lower() in ("", "k", "keep", "n", "no", str(current)):
                break
            if not self.command(answer):
                bid = _number(answer)
                if bid is None or not 0 <= bid <= obs.hand_size:
                    self.say(f"{answer!r} is not a bid from 0 to {obs.hand_size}: type a new bid, or Enter.")
                elif self.try_act(ChangeBid(self.you, bid)):
                    return
            left = s.change_left() or 0.0
        if s.in_change_window:
            s.keep_bid()

    def trump_turn(self, obs: Observation) -> None:
        self.show_cards(obs)
        self.say("You are the highest bidder, so you name trump (or no trump).")
        choices = ", ".join(f"{i} {suit_word(t)}" for i, t in enumerate(_TRUMP_CHOICES, start=1))
        while True:
            answer = _without_verb(self.ask(f"Name trump ({choices}):"), "name")
            if answer.lower() == "h":
                self.say("'h' could mean hearts or a hint: answer hearts (or 3) for hearts, hint for a hint.")
                continue
            if self.command(answer):
                continue
            known, suit = _trump_answer(answer)
            if not known:
                self.say(
                    f"{answer!r} is not a choice: answer 1 to 5, a suit (clubs, C, ...) or NT for no trump."
                )
                continue
            if self.try_act(NameTrump(self.you, suit)):
                return

    def play_turn(self, obs: Observation) -> None:
        legal = [a for a in obs.legal_actions if isinstance(a, Play)]
        if obs.trick:
            table = "; ".join(
                f"{self.who(seat)} {'led ' if i == 0 else ''}{card_words(c)}"
                for i, (seat, c) in enumerate(obs.trick)
            )
            self.say(f"Trick {len(obs.tricks) + 1} of {obs.hand_size}. On the table: {table}.")
        else:
            self.say(f"Trick {len(obs.tricks) + 1} of {obs.hand_size}: you lead.")
        self.say("Tricks so far: " + self.taken_text(obs) + ".")
        self.show_cards(obs)
        if obs.devils_bridge:
            prompt = "Your card (Enter or 1 plays the card you cannot see):"
        else:
            cards = [a.card for a in legal if a.card is not None]
            order = sort_hand(cards)
            legal = [Play(self.you, c) for c in order]
            self.say(
                "You may play: " + "; ".join(f"{i}: {card_words(c)}" for i, c in enumerate(order, start=1))
            )
            if self.session.tricks_left() > 1 and self._may_claim():
                # Said once a hand, where the claim is offered: before it is made, not after.
                self.say(f"Or claim tricks: claim all, claim none or claim a number. {ONE_A_HAND}")
            prompt = "Your card:"
        while True:
            answer = _without_verb(self.ask(prompt), "play")
            if obs.devils_bridge and answer.lower() in ("", "1", "play", "?card"):
                if self.try_act(legal[0]):
                    return
                continue
            claimed = self.try_claim(answer)
            if claimed is not None:
                if claimed:
                    return  # the hand is played out, or your cards are played for you
                continue
            if self.command(answer):
                continue
            action = self.parse_card(answer, obs, legal)
            if action is not None and self.try_act(action):
                return

    def taken_text(self, obs: Observation) -> str:
        parts = []
        for seat in self.bid_order(obs):
            parts.append(f"{self.who(seat)} {obs.taken[seat]} (bid {obs.bids[seat]})")
        return ", ".join(parts)

    def parse_card(self, answer: str, obs: Observation, legal: list[Play]) -> Play | None:
        if not answer:
            self.say("Please answer with a card like 10H or AS, or its number in the list.")
            return None
        if obs.devils_bridge:
            self.say("You cannot see your card, so you cannot name it: press Enter to play it.")
            return None
        index = _number(answer)
        if index is not None:
            if 1 <= index <= len(legal):
                return legal[index - 1]
            self.say(f"There is no card {index}: answer 1 to {len(legal)}, or a card like 10H.")
            return None
        card = card_from_words(answer)  # "queen of spades", as the hint and the list word it
        if card is None:
            try:
                card = Card.parse(answer)
            except CardError:
                self.say(
                    f"{answer!r} is not a card I can read. Answer its number in the list (1 to "
                    f"{len(legal)}), or the card: 10H, TH or AS, or in words, like queen of spades."
                )
                return None
        if card not in obs.hand:
            self.say(f"You do not hold the {card_words(card)}.")
            return None
        if all(a.card != card for a in legal):
            led = obs.trick[0][1].suit
            self.say(f"You cannot play the {card_words(card)}: you must follow {suit_word(led)}.")
            return None
        return Play(self.you, card)

    def try_act(self, action: Action) -> bool:
        try:
            event = self.session.act(action)
        except IllegalActionError as err:
            self.say(f"Not allowed: {refusal_words(err, self.session.names, self.you)}")
            return False
        self.show_event(event)
        return True

    def _may_claim(self) -> bool:
        """May you claim now, and is it the first time this hand it is said?"""
        s = self.session
        hand = s.state.hand_number
        if self._claim_said == hand:
            return False
        try:
            s.check_claim()
        except IllegalActionError:
            return False
        self._claim_said = hand
        return True

    def try_claim(self, answer: str) -> bool | None:
        """``claim all``, ``claim none``, ``claim 2``: None if the answer is
        no claim; True if the claim was accepted, False if not."""
        words = answer.split(maxsplit=1)
        if not words or words[0].lower() != "claim":
            return None
        s = self.session
        left = s.tricks_left()
        tricks = claim_answer(words[1] if len(words) > 1 else "", left)
        if tricks is None:
            self.say(
                f"Claim how many of {tricks_left_words(left)}? Answer claim all, claim none, "
                f"or claim and a number from 0 to {left}."
            )
            return False
        try:
            result = s.claim(tricks)
        except IllegalActionError as err:
            self.say(f"Not allowed: {refusal_words(err, s.names, self.you)}")
            return False
        self.say(claim_words(result, s.names))
        for event in result.events:
            self.show_event(event)
        return result.accepted

    # --- commands ---

    def command(self, answer: str) -> bool:
        """Handle h, ?, s, q and help; True if the answer was one."""
        word = answer.strip().lower()
        if word in ("q", "quit", "exit"):
            raise _Stop("quit")
        if word in ("?", "rules"):
            self.say(
                f"Rules: {rules_title(self.session.rules)}.",
                *describe_rules(self.session.rules, self.names, self.you),
            )
            return True
        if word in ("s", "score", "scores", "score sheet"):
            obs = self.session.observation()
            self.say("Score sheet:", *score_sheet_lines(obs.results, self.names))
            self.say("Totals: " + ", ".join(f"{self.names[s]} {t}" for s, t in enumerate(obs.totals)) + ".")
            return True
        if word in ("h", "hint"):
            self.show_hint()
            return True
        if word.split()[:1] == ["claim"]:
            self.say("You may claim tricks while the cards are played, when you are asked for your card.")
            return True
        if word == "help":
            self.say(
                COMMANDS,
                "Bid with a number; play a card by its number in the list or as 10H, TH, AS. "
                "A claim is certain when your cards make it sure; otherwise the others are asked.",
            )
            return True
        return False

    def show_hint(self) -> None:
        found = self.session.hint()
        if found is None:
            self.say("There is nothing for the expert to suggest now.")
            return
        action = found.action
        if isinstance(action, Bid):
            what = f"bid {action.bid}"
        elif isinstance(action, NameTrump):
            what = f"name {suit_word(action.suit)}"
        elif isinstance(action, Play) and action.card is not None:
            # In the words the prompt takes: the card, its short form, its number in the list.
            obs = self.session.observation()
            order = sort_hand(
                [a.card for a in obs.legal_actions if isinstance(a, Play) and a.card is not None]
            )
            number = f", number {order.index(action.card) + 1}" if action.card in order else ""
            what = f"play the {card_words(action.card)} (answer {action.card}{number})"
        else:
            what = "play the card you cannot see (answer 1)"
        self.say(f"Hint: the expert would {what}; expected score {found.expected:.1f}.")

    def final(self) -> None:
        s = self.session
        obs = s.observation()
        standings = standings_for_you(s.rules, obs, self.names, self.you)
        self.say("", "The match is over. Final standings:", *standings)
        if s.save_path is not None:
            self.say(f"The game record is in {s.save_path}: ohhell replay {s.save_path} shows every hand.")


def _isatty(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if callable(isatty) else False
    except (OSError, ValueError):
        return False


def _tricks(count: int) -> str:
    return f"{count} trick{'s' if count != 1 else ''}"


def _number(text: str) -> int | None:
    text = text.strip()
    return int(text) if text.isdigit() else None


def _without_verb(answer: str, verb: str) -> str:
    """``play AS`` and ``bid 2`` as the hint words them: the answer without its verb."""
    words = answer.split(maxsplit=1)
    if len(words) == 2 and words[0].lower() == verb:
        return words[1]
    return answer


def _trump_answer(text: str) -> tuple[bool, Suit | None]:
    """(True, a suit or None for no trump), or (False, None) if the answer names neither."""
    key = text.strip().lower()
    number = _number(key)
    if number is not None:
        if 1 <= number <= len(_TRUMP_CHOICES):
            return True, _TRUMP_CHOICES[number - 1]
        return False, None
    if key in ("nt", "no trump", "notrump", "no-trump", "none", "n"):
        return True, None
    try:
        return True, Suit.parse(key)
    except CardError:
        return False, None
