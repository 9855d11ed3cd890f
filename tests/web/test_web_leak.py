"""The leak test of ``ohhell serve``: no message tells a seat a card it may not see.

Whole matches of every preset and of the variants that change what is hidden
are played through the real application (in-process, Starlette's
``TestClient``): every seat is a person on its own WebSocket that plays random
legal actions (bids, bid changes and keeps, trump names, cards, the odd hint
and the odd refused action), and one spectator watches. Every text message
each connection receives is recorded in order.

After the match the table's record (``GET /api/tables/{id}/record``) is
replayed move by move, so the true state is known at every version. Each
message is then checked against what its receiver may know at the version it
was sent (a state or hint names its version; any other message was sent at the
version of the last state that connection received before it):

- every card token anywhere in the message (a JSON string that is a card, or a
  card written inside free text such as an error) must be one the receiver may
  know: the cards of the hands it can see, every card played so far in the
  match, the turned cards and the cards drawn for dealer (a spectator: only
  the last three). Which hands a seat can see is worked out here from the
  rules, independently of ``ohhell.view`` (its own hand; under Devil's Bridge
  every hand but its own, R-DEVILS-BRIDGE) and compared with
  ``view.can_see_hand``;
- the ``hands`` of an observation are exactly the hands the receiver may see
  (this also holds with the duplicated cards of Australian packs, R-DECK-AU,
  where a card token alone cannot say whose copy it is);
- sealed bids (R-BID-SIMULTANEOUS): while bids are still going in, no state
  carries another seat's bid, in ``bids`` or in ``last``;
- a hint names only actions that are legal for that seat at its version, and
  every state's ``legal`` is exactly the seat's legal actions;
- the table's secret seed never appears in any message;
- mid-match, the public table (``GET /api/tables/{id}``) names only public
  cards and the record is refused (409);
- the refusals provoked on purpose (a card that does not follow, a bid out of
  range, a play out of turn, a named card on a Devil's Bridge hand) are
  refused, and on a Devil's Bridge hand naming any card gets the same answer,
  so it cannot tell a seat whether it named its own unseen card.

``test_checker_catches_leaks`` feeds the checker fabricated leaks so this test
cannot pass vacuously; every match also asserts that it reached the end with
many state messages to every connection.
"""

from __future__ import annotations

import contextlib
import json
import queue
import random
import re
import threading
import time
from collections import Counter, deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("sqlalchemy")
pytest.importorskip("httpx")

from starlette.testclient import TestClient

from ohhell import (
    Deal,
    DrawForDealer,
    GameState,
    Phase,
    Play,
    actors,
    apply,
    chance_action,
    legal_actions,
    new_game,
)
from ohhell.cards import Card
from ohhell.record import loads
from ohhell.rules import PRESETS, Bidding, Rules, make_rules
from ohhell.view import can_see_hand, observe
from ohhell.web.app import Limits, create_app
from ohhell.web.protocol import action_json, dumps, observation_json

Json = dict[str, Any]

CARD_IN_TEXT = re.compile(r"(?<![0-9A-Za-z])(10|[2-9TJQKA])[CDHScdhs♣♦♥♠](?![0-9A-Za-z])")
"""A card anywhere in a string: a whole string such as ``"QS"`` or ``"10H"``
(docs/web.md) or one inside free text such as an error message (also ``TH``,
lower case and suit symbols)."""

SUIT_LETTER = {"♣": "C", "♦": "D", "♥": "H", "♠": "S"}
NO_KEEP = "there is no bid of yours that could still be changed"  # a keep that came too late
CHAT_LINES = ("good luck", "well played", "that was close", "my turn?")  # said at random, no card in them
IN_HAND = (Phase.BID, Phase.TRUMP, Phase.PLAY)
MESSAGE_TIMEOUT = 0.5  # seconds without any message before the players look again
MATCH_TIMEOUT = 60.0  # seconds one match may take before the test fails


# --- Ground truth: the record replayed, and what each viewer may know ---


def may_see(state: GameState, viewer: int | None, owner: int) -> bool:
    """May ``viewer`` (None: a spectator) see ``owner``'s hand? Written from the
    rules, not from ``ohhell.view``: one's own hand, except on a Devil's Bridge
    hand (R-DEVILS-BRIDGE) where it is every hand but one's own."""
    if viewer is None or state.phase not in IN_HAND:
        return False
    if state.rules.devils_bridge and state.hand_size == 1:
        return viewer != owner
    return viewer == owner


def _cards_in_string(text: str) -> list[str]:
    found = []
    for m in CARD_IN_TEXT.finditer(text):
        word = m.group(0)
        if word not in _CANONICAL:
            _CANONICAL[word] = str(Card.parse(word[:-1] + SUIT_LETTER.get(word[-1], word[-1])))
        found.append(_CANONICAL[word])
    return found


_CANONICAL: dict[str, str] = {}


def cards_in(value: Any) -> list[str]:
    """Every card token in a parsed JSON value: strings that are cards, and
    cards written inside longer text (object keys included)."""
    texts: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            texts.append(item)
        elif isinstance(item, dict):
            texts.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return _cards_in_string("\x00".join(texts))  # NUL: never part of a card


OPAQUE = re.compile(r'"(?:table|token|edit_token|id)"\s*:\s*"[A-Za-z0-9_-]*"')
"""Identifiers the server makes up at random (url-safe base64): a table's id,
a seat's token. They hold no game text, but one may happen to read like a
card (``"Td_zU_W_pHZB"`` starts with the ten of diamonds), so they are not
scanned."""


def cards_in_message(text: str) -> list[str]:
    """``cards_in`` of a JSON message, read from its text. Outside strings JSON
    has only punctuation, numbers and true/false/null, none of which looks
    like a card; an escape sequence (``\\n5H``) could hide one, so a message
    with a backslash is parsed and walked instead. Random identifiers
    (``OPAQUE``) are left out."""
    text = OPAQUE.sub('"":""', text)
    if "\\" in text:
        return cards_in(json.loads(text))
    return _cards_in_string(text)


class Truth:
    """The record replayed: the true state and the public cards at every version
    (version ``v`` is the state after the first ``v`` actions)."""

    def __init__(self, rules: Rules, actions: tuple[Any, ...] | list[Any], names: list[str] | None = None):
        self.rules = rules
        self.names = names or [f"Seat {s + 1}" for s in range(rules.players)]
        state = new_game(rules)
        public: set[str] = set()
        self.states: list[GameState] = [state.clone()]
        self.public: list[frozenset[str]] = [frozenset()]
        for action in actions:
            apply(state, action)
            done = state.log[-1]  # a blind play is logged with its real card
            if isinstance(done, Play) and done.card is not None:
                public.add(str(done.card))  # R-TRICK: played cards are face up
            elif isinstance(done, Deal) and done.turned is not None:
                public.add(str(done.turned))  # R-TRUMP-TURN: the turned card is face up
            elif isinstance(done, DrawForDealer):
                public.update(str(c) for c in done.cards if c is not None)  # R-DEALER-DRAW
            self.states.append(state.clone())
            self.public.append(frozenset(public))
        self._allowed: dict[tuple[int, int | None], frozenset[str]] = {}
        self.counts: Counter[str] = Counter()  # what the checks looked at, to show they ran

    @property
    def final(self) -> GameState:
        return self.states[-1]

    def allowed(self, version: int, viewer: int | None) -> frozenset[str]:
        """Every card ``viewer`` may know at ``version``."""
        key = (version, viewer)
        if key not in self._allowed:
            state = self.states[version]
            seen = set(self.public[version])
            for owner in range(self.rules.players):
                if may_see(state, viewer, owner):
                    seen.update(str(c) for c in state.hands[owner])
            self._allowed[key] = frozenset(seen)
        return self._allowed[key]

    def whose(self, version: int, card: str) -> str:
        """Where a leaked card really is, for the failure message."""
        state = self.states[version]
        owners = [s for s in range(self.rules.players) if card in {str(c) for c in state.hands[s]}]
        if owners:
            return f"in the hand of seat {', '.join(map(str, owners))}"
        return "not dealt or still in the stock"

    def check(self, viewer: int | None, messages: list[str], seed: int | None = None) -> list[str]:
        """Every problem in the messages one connection of ``viewer`` received, in order."""
        problems: list[str] = []
        version = 0
        last_state = -1
        who = "the spectator" if viewer is None else f"seat {viewer}"
        for i, text in enumerate(messages):
            where = f"{who}, message {i}"
            if seed is not None and str(seed) in text:
                problems.append(f"{where}: holds the table's secret seed: {text[:300]}")
            try:
                message = json.loads(text)
            except ValueError:
                problems.append(f"{where}: not JSON: {text[:300]}")
                continue
            kind = message.get("type")
            self.counts[f"{kind} messages"] += 1
            if kind == "state":
                version = message["version"]
                if version < last_state:
                    problems.append(f"{where}: version {version} after version {last_state}")
                last_state = version
                at = version
            elif kind == "hint":
                at = message["version"]
            else:
                at = version  # sent while the table stood at the last state this connection was sent
            if not 0 <= at < len(self.states):
                problems.append(f"{where}: version {at} is not in the record")
                continue
            allowed = self.allowed(at, viewer)
            cards = set(cards_in_message(text))
            self.counts["card tokens"] += len(cards)
            for card in sorted(cards):
                if card not in allowed:
                    problems.append(
                        f"{where} ({kind} at version {at}): names {card}, which {who} may not see "
                        f"({self.whose(at, card)}): {text[:300]}"
                    )
            if kind == "state":
                problems.extend(f"{where}: {p}" for p in self._check_state(viewer, message))
            elif kind == "hint":
                problems.extend(f"{where}: {p}" for p in self._check_hint(viewer, message))
        return problems

    def _check_state(self, viewer: int | None, message: Json) -> list[str]:
        problems: list[str] = []
        version = message["version"]
        state = self.states[version]
        obs = message["obs"]
        n = self.rules.players
        if obs["seat"] != viewer:
            problems.append(f"the observation is for seat {obs['seat']}, sent to {viewer}")
        for owner in range(n):
            if state.phase in IN_HAND and viewer is not None:
                assert can_see_hand(state, viewer, owner) == may_see(state, viewer, owner), (
                    f"view.can_see_hand disagrees with the rules at version {version}"
                )
            expected = [str(c) for c in state.hands[owner]] if may_see(state, viewer, owner) else None
            if obs["hands"][owner] != expected:
                problems.append(
                    f"state {version}: hands[{owner}] is {obs['hands'][owner]}, expected {expected} "
                    "(R-DEVILS-BRIDGE)"
                )
        if (
            state.phase in IN_HAND
            and self.rules.is_devils_bridge_hand(state.hand_size)
            and viewer is not None
        ):
            self.counts["blind states"] += 1
        sealed = self.rules.bidding is Bidding.SIMULTANEOUS and state.phase is Phase.BID
        if sealed and any(b is not None for s, b in enumerate(state.bids) if s != viewer):
            self.counts["sealed states"] += 1
        if sealed:  # R-BID-SIMULTANEOUS: the others' bids stay sealed until all are in
            for seat, bid in enumerate(obs["bids"]):
                if seat != viewer and bid is not None:
                    problems.append(
                        f"state {version}: seat {seat}'s sealed bid {bid} shown (R-BID-SIMULTANEOUS)"
                    )
            last = message.get("last")
            if last and last.get("kind") == "bid" and last.get("seat") != viewer and "bid" in last:
                problems.append(
                    f"state {version}: last shows seat {last['seat']}'s sealed bid (R-BID-SIMULTANEOUS)"
                )
        who = actors(state)
        legal = (
            [action_json(a) for a in legal_actions(state, viewer)]
            if viewer is not None and viewer in who
            else []
        )
        if obs["legal"] != legal:
            problems.append(f"state {version}: legal is {obs['legal']}, expected {legal}")
        if obs["phase"] != state.phase.value:
            problems.append(f"state {version}: phase {obs['phase']}, the record says {state.phase.value}")
        return problems

    def _check_hint(self, viewer: int | None, message: Json) -> list[str]:
        version = message["version"]
        state = self.states[version]
        if viewer is None:
            return [f"a hint was sent to the spectator: {message}"]
        legal = [action_json(a) for a in legal_actions(state, viewer)]
        named = [message["action"]] + [r["action"] for r in message["ranked"]]
        return [
            f"hint at version {version} names {a}, not legal for seat {viewer}"
            for a in named
            if a not in legal
        ]


# --- Players: one WebSocket per seat, playing random legal actions ---


class Conn:
    """One WebSocket: a thread reads every text message into the shared queue."""

    def __init__(
        self, client: TestClient, table: str, seat: int | None, token: str | None, events: queue.Queue
    ):
        self.seat = seat
        self.messages: list[str] = []
        self.latest: Json | None = None  # the latest state message
        self.acted_on: Json | None = None  # the state message this seat last acted on
        self.waiting = False  # an action was sent and has neither been applied nor refused
        self.expected: deque[str] = deque()  # refusals provoked on purpose, still to come
        self.hints = 0  # hint requests not answered yet
        self.over = False
        self.late = False  # connected mid-match
        self.closed = False
        self._cm = client.websocket_connect(f"/ws/{table}")
        self.ws = self._cm.__enter__()
        self.ws.send_json({"type": "hello", "token": token} if token else {"type": "hello"})
        self._events = events
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while True:
            try:
                text = self.ws.receive_text()
            except BaseException:  # closed: the test ends the connection
                self._events.put((self, None))
                return
            self._events.put((self, text))

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self._cm.__exit__(None, None, None)
            self._thread.join(timeout=5)

    def send(self, message: Json) -> None:
        self.ws.send_json(message)


@dataclass
class Match:
    """What one match left behind."""

    table: str
    seed: int
    rules: Rules
    record: str
    conns: list[Conn]
    seconds: float
    refused: int = 0
    hints: int = 0
    changes: int = 0
    keeps: int = 0
    stalls: int = 0
    http: tuple[tuple[int, str], ...] = ()  # (version, body) of public answers fetched mid-match
    refusals: tuple[tuple[str, str, str], ...] = ()  # (what was provoked, code, error)
    chat: int = 0  # chat lines and reactions the seats said


class Policy:
    """Random legal play with bid changes, keeps, hints and refused actions."""

    def __init__(
        self, rng: random.Random, *, hints: int = 6, mistakes: int = 12, low_bids: bool = False
    ) -> None:
        self.rng = rng
        self.low_bids = low_bids
        self.hints_left = hints
        self.mistakes_left = mistakes
        self.changed: set[tuple[int, int]] = set()  # (seat, hand) where a bid was changed
        self.stats = {"refused": 0, "hints": 0, "changes": 0, "keeps": 0, "chat": 0}
        self.refusals: list[tuple[str, str, str]] = []  # (what was provoked, code, error)
        self.chat_left: dict[int, int] = {}  # lines each seat may still say (under the chat's budget)

    def act(self, conn: Conn) -> None:
        """Act on ``conn``'s latest state if the seat has something to do."""
        message = conn.latest
        if message is None or message is conn.acted_on or conn.waiting or conn.over:
            return
        conn.acted_on = message
        obs, version = message["obs"], message["version"]
        seat = conn.seat
        legal = obs["legal"]
        if seat not in obs["actors"] or not legal:
            if obs["phase"] == "play" and not obs["devils_bridge"] and self._mistake(0.02):
                # Out of turn: refused ("turn"). No card is named, so that this is
                # refused even if our turn has come meanwhile ("illegal").
                self._send(conn, {"kind": "play", "card": None}, version, refused="turn")
            return
        kinds = {a["kind"] for a in legal}
        if kinds == {"change"}:  # R-BID-CHANGE: our bid may still be changed
            if not message["obs"]["can_change"]:
                return
            key = (seat, obs["hand_number"])
            if key not in self.changed and self.rng.random() < 0.3:
                self.changed.add(key)
                self.stats["changes"] += 1
                self._send(conn, self.rng.choice(legal), version)
            else:
                self.stats["keeps"] += 1
                conn.send({"type": "keep"})
            return
        if self.chat_left.setdefault(seat, 2) and self.rng.random() < 0.05:
            # Talk at the table: chat takes the path of every message, and
            # the checker reads what it brings like anything else.
            self.chat_left[seat] -= 1
            self.stats["chat"] += 1
            if self.rng.random() < 0.5:
                conn.send({"type": "chat", "text": self.rng.choice(CHAT_LINES)})
            else:
                conn.send({"type": "react", "reaction": self.rng.choice(["nice", "oops", "gg"])})
        if self.hints_left and not conn.hints and self.rng.random() < 0.04:  # one at a time
            self.hints_left -= 1
            self.stats["hints"] += 1
            conn.hints += 1
            conn.send({"type": "hint"})
        if "play" in kinds:
            self._play_mistake(conn, obs, legal, version)
        elif "bid" in kinds and self._mistake(0.03):
            self._send(conn, {"kind": "bid", "bid": obs["hand_size"] + 1}, version, refused="range")
        choices = [a for a in legal if a["kind"] != "change"]
        if self.low_bids and "bid" in kinds:
            choices = [min(choices, key=lambda a: a["bid"])]
        self._send(conn, self.rng.choice(choices), version)

    def _play_mistake(self, conn: Conn, obs: Json, legal: list[Json], version: int) -> None:
        seat = conn.seat
        if legal == [{"seat": seat, "kind": "play", "card": None}]:
            # R-DEVILS-BRIDGE: name a card we can see (another seat's); the refusal
            # must not tell whether our own unseen card is that card.
            seen = [c for h in obs["hands"] if h for c in h]
            if seen and self._mistake(0.5):
                self._send(conn, {"kind": "play", "card": self.rng.choice(seen)}, version, refused="blind")
            return
        hand = obs["hands"][seat] or []
        playable = {a["card"] for a in legal}
        wrong = [c for c in hand if c not in playable]
        if wrong and self._mistake(0.1):  # R-FOLLOW: refused as illegal
            self._send(conn, {"kind": "play", "card": self.rng.choice(wrong)}, version, refused="follow")

    def _mistake(self, p: float) -> bool:
        if self.mistakes_left and self.rng.random() < p:
            self.mistakes_left -= 1
            return True
        return False

    def _send(self, conn: Conn, action: Json, version: int, refused: str | None = None) -> None:
        body = {k: v for k, v in action.items() if k != "seat"}
        conn.send({"type": "act", "version": version, "action": body})
        if refused:
            self.stats["refused"] += 1
            conn.expected.append(refused)
        else:
            conn.waiting = True

    def received(self, conn: Conn, message: Json) -> None:
        kind = message["type"]
        if kind == "state":
            conn.latest = message
            last = message.get("last")
            if (
                last
                and last.get("seat") == conn.seat
                and last.get("kind") in ("bid", "change", "trump", "play")
            ):
                conn.waiting = False
            if message["obs"]["phase"] == "over":
                conn.over = True
        elif kind == "hint":
            conn.hints -= 1
        elif kind == "error":
            assert message["code"] != "chat", f"a chat line was refused: {message}"
            if message["error"] == "you have nothing to choose now":
                conn.hints -= 1  # a hint asked for too late
            elif conn.expected and message["error"] != NO_KEEP:
                self.refusals.append((conn.expected.popleft(), message["code"], message["error"]))
            else:
                conn.waiting = False  # refused (stale, or no longer our turn): act on the next state


def play_match(
    client: TestClient,
    preset: str,
    options: dict[str, str],
    seats: list[str] | None = None,
    *,
    seed: int = 0,
    late: bool = False,
    low_bids: bool = False,
) -> Match:
    """Create a table, seat a person on every human seat and a spectator, play
    the match to its end and return everything each connection received.
    With ``late`` a second tab for seat 0 and a second spectator connect mid-match."""
    began = time.monotonic()
    rules = make_rules(preset, options)
    kinds = seats or ["human"] * rules.players
    r = client.post(
        "/api/tables",
        json={"preset": preset, "options": options, "seats": kinds, "name": "Host", "seat": 0},
    )
    assert r.status_code == 200, r.text
    table, tokens = r.json()["table"], {0: r.json()["token"]}
    for s, kind in enumerate(kinds):
        if s and kind == "human":
            r = client.post(f"/api/tables/{table}/join", json={"seat": s, "name": f"Player {s + 1}"})
            assert r.status_code == 200, r.text
            tokens[s] = r.json()["token"]
    events: queue.Queue[tuple[Conn, str | None]] = queue.Queue()
    everyone: list[Conn] = []  # closed whatever happens, or the TestClient would never stop
    try:
        conns = [Conn(client, table, s, tokens[s], events) for s in sorted(tokens)]
        conns.append(Conn(client, table, None, None, events))
        everyone.extend(conns)
        policy = Policy(random.Random(f"{preset}:{sorted(options.items())}:{seed}"), low_bids=low_bids)
        welcomed: set[int] = set()

        def take(conn: Conn, text: str | None) -> None:
            assert text is not None, f"seat {conn.seat}'s connection closed during the match"
            conn.messages.append(text)
            message = json.loads(text)
            if message["type"] == "welcome":
                welcomed.add(id(conn))
            if conn.seat is not None:
                policy.received(conn, message)
            elif message["type"] == "state" and message["obs"]["phase"] == "over":
                conn.over = True

        while len(welcomed) < len(conns):
            take(*events.get(timeout=10))
        r = client.post(f"/api/tables/{table}/start", json={"token": tokens[0]})
        assert r.status_code == 200, r.text
        live = client.app.state.server.hub.tables[table]  # type: ignore[attr-defined]
        deadline = time.monotonic() + MATCH_TIMEOUT
        stalls = quiet_spells = 0
        late_conns: list[Conn] = []
        http: list[tuple[int, str]] = []
        while not all(c.over for c in conns + late_conns):
            assert time.monotonic() < deadline, f"the match did not end in {MATCH_TIMEOUT} s"
            try:
                batch = [events.get(timeout=MESSAGE_TIMEOUT)]
                quiet_spells = 0
            except queue.Empty:
                stalls += 1  # nothing came: every seat looks at its latest state again
                quiet_spells += 1
                assert quiet_spells < 20, "the table stopped: " + json.dumps(
                    [c.latest["obs"]["actors"] if c.latest else None for c in conns]
                )
                for c in conns:
                    c.acted_on, c.waiting = None, False
                batch = []
            while True:
                try:
                    batch.append(events.get_nowait())
                except queue.Empty:
                    break
            for conn, text in batch:
                take(conn, text)
            for c in conns:
                if c.seat is not None:
                    policy.act(c)
            if not http and live.version > 20 and live.state.phase is Phase.PLAY:
                # Mid-match, over HTTP: the public table, and the record (refused until the end).
                shown = client.get(f"/api/tables/{table}")
                assert shown.status_code == 200, shown.text
                http = [(shown.json()["version"], shown.text)]
                record = client.get(
                    f"/api/tables/{table}/record", headers={"Authorization": f"Bearer {tokens[0]}"}
                )
                if record.status_code != 200 or live.status != "over":  # unless it ended meanwhile
                    assert record.status_code == 409, record.text
                    http.append((live.version, record.text))
            if late and not late_conns and live.version > 40:
                late_conns = [
                    Conn(client, table, 0, tokens[0], events),
                    Conn(client, table, None, None, events),
                ]
                everyone.extend(late_conns)
                for c in late_conns:
                    c.late = True
        # Let the last answers (hints, refusals) arrive, then close.
        quiet = time.monotonic() + 5
        while any(c.hints > 0 or c.expected for c in conns) and time.monotonic() < quiet:
            with contextlib.suppress(queue.Empty):
                take(*events.get(timeout=0.2))
    finally:
        for c in everyone:
            c.close()
    while True:  # messages that were already on their way
        try:
            conn, text = events.get_nowait()
        except queue.Empty:
            break
        if text is not None:
            conn.messages.append(text)
    r = client.get(f"/api/tables/{table}/record", headers={"Authorization": f"Bearer {tokens[0]}"})
    assert r.status_code == 200, r.text
    stats = policy.stats
    return Match(
        table,
        live.seed,
        rules,
        r.text,
        everyone,
        time.monotonic() - began,
        stats["refused"],
        stats["hints"],
        stats["changes"],
        stats["keeps"],
        stalls,
        tuple(http),
        tuple(policy.refusals),
        stats["chat"],
    )


# --- The configurations: every preset, and every variant that hides or shows something ---


@dataclass(frozen=True)
class Config:
    id: str
    preset: str
    options: dict[str, str]
    seats: list[str] | None = None  # None: every seat a person
    rules: str = ""  # the R- IDs this match covers
    late: bool = False  # a second tab and a second spectator connect mid-match
    low_bids: bool = False  # everyone bids as low as allowed (to force a tie, R-TIE-EXTRA)


SHORT = {"hand-sizes": "3,1,2"}

CONFIGS = [
    # Every preset, a whole match as the preset plays it.
    Config(
        "pagat", "pagat", {}, rules="R-DEALER-DRAW R-TRUMP-TURN R-HOOK R-BID-CHANGE R-SEQ-DOWNUP", late=True
    ),
    Config("classic-tens", "classic-tens", {}, rules="R-LEAD-DEALER R-SC-TENS R-TIE-EXTRA"),
    Config(
        "okenuff", "okenuff", {}, rules="R-SEQ-OKENUFF R-TRUMP-BIDDER R-BID-CHANGE R-DECK-2 R-BID-ANNOUNCE"
    ),
    Config("river", "river", {}, rules="R-SC-RIVER R-BID-CHANGE"),
    Config("common", "common", {}, rules="R-SC-TRICKS-BONUS R-TIE-EXACT (first dealer chosen)"),
    # Variants.
    Config(
        "simultaneous-5p",
        "pagat",
        {
            "bidding": "simultaneous",
            "hook": "no",
            "bid-changes": "no",
            "players": "5",
            "hand-sizes": "3,2,1,2",
        },
        rules="R-BID-SIMULTANEOUS",
    ),
    Config(
        "simultaneous-okenuff",
        "okenuff",
        {"bidding": "simultaneous", "hook": "no", "bid-changes": "no", "hand-sizes": "4,5"},
        rules="R-BID-SIMULTANEOUS R-TRUMP-BIDDER",
    ),
    Config(
        "devils-bridge-3p",
        "classic-tens",
        {"devils-bridge": "yes", "players": "3", "hand-sizes": "2,1,1,2,1"},
        rules="R-DEVILS-BRIDGE R-LEAD-DEALER",
    ),
    Config(
        "devils-bridge-simultaneous-7p",
        "pagat",
        {
            "devils-bridge": "yes",
            "players": "7",
            "bidding": "simultaneous",
            "hook": "no",
            "bid-changes": "no",
            "hand-sizes": "1,2,1",
        },
        rules="R-DEVILS-BRIDGE R-BID-SIMULTANEOUS R-PLAYERS",
    ),
    Config(
        "devils-bridge-bid-changes",
        "pagat",
        {"devils-bridge": "yes", "sequence": "down", "start-cards": "3"},
        rules="R-DEVILS-BRIDGE R-BID-CHANGE R-SEQ-DOWN",
    ),
    Config(
        "trump-bidder",
        "okenuff",
        {"hand-sizes": "4,6,8"},
        rules="R-TRUMP-BIDDER R-BID-CHANGE R-SC-OKENUFF",
    ),
    Config(
        "bid-changes-common",
        "common",
        {"bid-changes": "yes", "hand-sizes": "5,4,3"},
        rules="R-BID-CHANGE R-HOOK",
    ),
    Config("teams-4p", "river", {"teams": "0+2,1+3", "hand-sizes": "4,3,2,1"}, rules="R-TEAMS"),
    Config(
        "teams-6p",
        "pagat",
        {"teams": "0+3,1+4,2+5", "players": "6", "hand-sizes": "3,2"},
        rules="R-TEAMS R-START",
    ),
    Config(
        "australian-5p",
        "classic-tens",
        {"deck": "australian", "players": "5", "hand-sizes": "13,2,1"},
        rules="R-DECK-AU R-TRUMP-NONE-ALL-DEALT",
    ),
    Config(
        "australian-6p-devils-bridge",
        "pagat",
        {"deck": "australian", "players": "6", "hand-sizes": "12,1", "devils-bridge": "yes"},
        rules="R-DECK-AU R-DEVILS-BRIDGE",
    ),
    Config(
        "first-lead-dealer",
        "pagat",
        {"first-lead": "dealer", "hand-sizes": "4,3"},
        rules="R-LEAD-DEALER",
    ),
    Config(
        # All bid 0 on one 1-card hand: the two who lose the trick tie, so extra hands follow.
        "tie-extra-hands",
        "classic-tens",
        {"hand-sizes": "1", "players": "3"},
        rules="R-TIE-EXTRA",
        low_bids=True,
    ),
    Config(
        "trump-rotate-fixed-3p",
        "river",
        {
            "trump": "rotate",
            "trump-rotation": "S,NT",
            "players": "3",
            "sequence": "fixed",
            "fixed-hands": "3",
            "start-cards": "2",
        },
        rules="R-TRUMP-ROTATE R-SEQ-FIXED",
    ),
    Config(
        "trump-fixed",
        "common",
        {"trump": "fixed", "trump-suit": "S", "hand-sizes": "2,3"},
        rules="R-TRUMP-FIXED",
    ),
    # Bots at the table, so bot turns (and a person's kept bid before a bot) happen.
    Config(
        "bots-pagat",
        "pagat",
        {"hand-sizes": "5,4,3,2,1"},
        seats=["human", "intermediate", "human", "random"],
        rules="R-BID-CHANGE (keep before a bot) R-HOOK",
    ),
    Config(
        "bots-simultaneous-devils-bridge",
        "classic-tens",
        {
            "bidding": "simultaneous",
            "hook": "no",
            "devils-bridge": "yes",
            "hand-sizes": "2,1,3,1",
            "players": "5",
        },
        seats=["human", "beginner", "human", "random", "intermediate"],
        rules="R-BID-SIMULTANEOUS R-DEVILS-BRIDGE",
    ),
    Config(
        "bots-okenuff",
        "okenuff",
        {"hand-sizes": "4,5,6"},
        seats=["human", "beginner", "intermediate", "human"],
        rules="R-TRUMP-BIDDER R-BID-CHANGE",
    ),
]


def test_configs_cover_every_preset_and_are_valid() -> None:
    """Every preset is played whole (R-PLAYERS and every rule set's own checks)."""
    whole = {c.preset for c in CONFIGS if not c.options}
    assert whole == set(PRESETS)
    for c in CONFIGS:
        make_rules(c.preset, c.options)  # a refused combination would fail here, not in a match
        assert c.rules.startswith("R-")


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db = tmp_path_factory.mktemp("leak") / "t.db"
    app = create_app(
        f"sqlite:///{db}", bot_delay=0, think=0.05, rate=1e6, limits=Limits(create=None, connects=None)
    )
    with TestClient(app) as c:
        yield c


@pytest.mark.parametrize("config", CONFIGS, ids=[c.id for c in CONFIGS])
def test_no_message_leaks_a_card(client: TestClient, config: Config) -> None:
    """A whole match: no message to a seat or a spectator names a card that
    receiver may not see, seals are kept and hints are legal. The R- IDs each
    match covers are in its ``Config.rules``; all of them: R-DEVILS-BRIDGE,
    R-BID-SIMULTANEOUS, R-TRUMP-TURN, R-DEALER-DRAW, R-TRUMP-BIDDER,
    R-BID-CHANGE, R-TEAMS, R-DECK-AU."""
    match = play_match(
        client, config.preset, config.options, config.seats, late=config.late, low_bids=config.low_bids
    )
    record = loads(match.record)
    truth = Truth(record.rules, record.actions, list(record.seats))
    assert truth.final.phase is Phase.OVER
    assert record.rules == match.rules
    problems: list[str] = []
    checking = time.monotonic()
    for conn in match.conns:
        problems.extend(truth.check(conn.seat, conn.messages, match.seed))
    for version, body in match.http:  # answers anyone may fetch: only public cards
        assert set(cards_in_message(body)) <= truth.allowed(version, None), body
    assert not problems, f"{len(problems)} problems; the first ones:\n" + "\n".join(problems[:10])
    # The refusals provoked on purpose were refused, and a blind play naming a
    # card gets one answer whatever the card (R-DEVILS-BRIDGE): which card was
    # named must not tell whether it is the unseen one.
    # "stale" is a right answer to any of them when another seat moved the
    # table on between the probe's state and its arrival (checked first).
    codes = {
        "turn": {"turn", "stale", "illegal"},
        "range": {"illegal", "stale"},
        "follow": {"illegal", "stale"},
        "blind": {"illegal", "stale"},
    }
    for what, code, error in match.refusals:
        assert code in codes[what], (what, code, error)
    blind = {error for what, code, error in match.refusals if what == "blind" and code == "illegal"}
    assert len(blind) <= 1, match.refusals
    if "R-DEVILS-BRIDGE" in config.rules:
        assert truth.counts["blind states"] > 0
    if "R-BID-SIMULTANEOUS" in config.rules:
        assert truth.counts["sealed states"] > 0
    assert truth.counts["card tokens"] > 100
    if match.chat:  # every line said reached the connections, and was checked like the rest
        assert truth.counts["chat messages"] >= match.chat
    # The checks ran on whole matches, not on nothing.
    actions = len(record.actions)
    for conn in match.conns:
        states = [json.loads(t) for t in conn.messages if t.startswith('{"type":"state"')]
        assert states[-1]["obs"]["phase"] == "over"
        assert states[-1]["version"] == actions
        # One state per action to a connection that was there from the start.
        assert len(states) >= (1 if conn.late else actions + 1)
    if "R-BID-CHANGE" in config.rules and config.seats is None:
        assert match.keeps + match.changes > 0
    if config.low_bids:
        assert any(r.extra for r in truth.final.results), "no extra hand was played (R-TIE-EXTRA)"
    total = sum(len(c.messages) for c in match.conns)
    provoked = dict(Counter(what for what, _, _ in match.refusals))
    print(  # shown with pytest -s: what the match exercised
        f"{config.id}: {actions} actions, {total} messages to {len(match.conns)} connections, "
        f"refused on purpose {provoked}, {match.hints} hints, {match.changes} bid changes, "
        f"{match.keeps} keeps, {match.stalls} stalls, {match.seconds:.1f} s to play, "
        f"{time.monotonic() - checking:.1f} s to check; checked {dict(truth.counts)}"
    )


# --- The checker catches what it should ---


def _random_match(rules: Rules, seed: int) -> list[Any]:
    rng = random.Random(seed)
    state = new_game(rules)
    while state.phase is not Phase.OVER:
        if state.is_chance:
            apply(state, chance_action(state, rng))
        else:
            seat = actors(state)[0]
            apply(state, rng.choice(legal_actions(state, seat)))
    return list(state.log)


def _state_message(
    truth: Truth, version: int, seat: int | None, obs_of: int | None = None, **over: Any
) -> str:
    state = truth.states[version]
    obs = observe(state, seat if obs_of is None else obs_of)
    data = observation_json(obs, truth.names)
    data.update(over)
    if obs_of is not None:
        data["seat"] = seat
        data["legal"] = [
            action_json(a) for a in legal_actions(state, seat) if seat is not None and seat in actors(state)
        ]
    return dumps({"type": "state", "version": version, "obs": data, "last": None})


def _version_where(truth: Truth, test: Any) -> int:
    return next(v for v, s in enumerate(truth.states) if test(s))


def test_checker_catches_leaks() -> None:
    """Fabricated leaks are flagged; honest messages are not (R-DEVILS-BRIDGE,
    R-BID-SIMULTANEOUS, R-TRUMP-TURN)."""
    rules = make_rules("pagat", {"hand-sizes": "3,1"})
    truth = Truth(rules, _random_match(rules, 1))
    v = _version_where(truth, lambda s: s.phase is Phase.PLAY and not s.trick and s.hand_size == 3)
    state = truth.states[v]
    other = str(state.hands[1][0])
    honest = [_state_message(truth, v, s) for s in range(4)] + [_state_message(truth, v, None)]
    for s, text in enumerate(honest):
        assert truth.check(s if s < 4 else None, [text]) == []
    # Another seat's hand in an observation, to a seat and to a spectator.
    assert truth.check(0, [_state_message(truth, v, 0, obs_of=1)])
    assert truth.check(None, [_state_message(truth, v, None, obs_of=1)])
    # A card in a free-text error, in a hint, in "last", and the seed.
    error = dumps({"type": "error", "error": f"seat 1 does not hold 2C but holds {other}", "code": "illegal"})
    assert any(other in p for p in truth.check(0, [honest[0], error]))
    hint = {"type": "hint", "version": v, "action": {"seat": 0, "kind": "play", "card": other}, "ranked": []}
    found = truth.check(0, [honest[0], dumps(hint)])
    assert any("not legal" in p for p in found) and any("may not see" in p for p in found)
    assert truth.check(0, [honest[0]], seed=123) == []
    assert truth.check(0, [honest[0], dumps({"type": "table", "x": "seed 123"})], seed=123)
    # The turned card is public; a card in the stock is not.
    if state.turned is not None:
        turned = dumps({"type": "error", "error": f"turned {state.turned}"})
        assert truth.check(None, [honest[4], turned]) == []
    dealt = {str(c) for h in state.hands for c in h} | {str(state.turned)}
    stock = next(str(c) for c in rules.pack() if str(c) not in dealt)
    assert truth.check(2, [honest[2], dumps({"type": "error", "error": f"{stock} is in the stock"})])

    # R-DEVILS-BRIDGE: one's own card on a 1-card hand is the one card not shown.
    rules = make_rules("pagat", {"hand-sizes": "1", "devils-bridge": "yes"})
    truth = Truth(rules, _random_match(rules, 2))
    v = _version_where(truth, lambda s: s.phase is Phase.BID)
    own = truth.states[v].hands[0][0]
    assert truth.check(0, [_state_message(truth, v, 0)]) == []
    assert truth.check(0, [_state_message(truth, v, 0, obs_of=3)])  # shows seat 0's card, hides seat 3's
    own_error = dumps({"type": "error", "error": f"seat 0 does not hold {own}"})
    assert truth.check(0, [_state_message(truth, v, 0), own_error])

    # R-BID-SIMULTANEOUS: a sealed bid in "bids" or in "last".
    rules = make_rules(
        "pagat", {"hand-sizes": "2,1", "bidding": "simultaneous", "hook": "no", "bid-changes": "no"}
    )
    truth = Truth(rules, _random_match(rules, 3))
    v = _version_where(truth, lambda s: s.phase is Phase.BID and sum(b is not None for b in s.bids) == 2)
    state = truth.states[v]
    bidder = next(s for s, b in enumerate(state.bids) if b is not None and s != 3)
    assert truth.check(3, [_state_message(truth, v, 3)]) == []
    leaked = json.loads(_state_message(truth, v, 3))
    leaked["obs"]["bids"][bidder] = state.bids[bidder]
    assert any("R-BID-SIMULTANEOUS" in p for p in truth.check(3, [dumps(leaked)]))
    leaked = json.loads(_state_message(truth, v, 3))
    leaked["last"] = {"seat": bidder, "kind": "bid", "bid": state.bids[bidder]}
    assert any("R-BID-SIMULTANEOUS" in p for p in truth.check(3, [dumps(leaked)]))


def test_cards_in_finds_every_card_token() -> None:
    """Card tokens as the protocol and free text write them (R-DECK)."""
    message = {"a": ["QS", {"10H": "x"}], "e": "you hold 9c and K♠, not 10 or Ace", "n": 5, "x": "\n2D"}
    assert set(cards_in(message)) == {"QS", "10H", "9C", "KS", "2D"}
    assert set(cards_in_message(json.dumps(message))) == {"QS", "10H", "9C", "KS", "2D"}
    assert set(cards_in_message(dumps(message))) == {"QS", "10H", "9C", "KS", "2D"}
    assert cards_in_message(dumps({"version": 10, "bids": [2, 3], "s": "AS10H"})) == []
    # A random table id that happens to start like a card is not a card; the
    # same text anywhere else is.
    assert cards_in_message(dumps({"table": "Td_zU_W_pHZB", "rematch": {"table": "x-9S"}})) == []
    assert cards_in_message(dumps({"say": "Td_zU"})) == ["10D"]
    assert cards_in_message(json.dumps({"table": "Td_zU", "token": "9S-x"})) == []
