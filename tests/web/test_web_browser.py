"""Browser tests of ``ohhell serve``: Playwright driving Debian's chromium.

The server runs in this process (uvicorn in a thread, on a free loopback
port, an SQLite file in a temporary directory); the pages are driven the way a
person would: clicks on the home page's forms, on bid buttons and on cards,
keys on the table page. Covered: one person plays a whole short match against
bots (and the standings shown agree with the downloaded record), two browser
contexts play at the same table, a page closed and reopened in the middle of a
hand, the keyboard, a phone-sized viewport, the replay page.

Needs playwright (the ``test`` extra) and /usr/bin/chromium (``apt-get install
chromium``); Playwright's own browser download is never used. Without them
the module is skipped, unless OHHELL_TEST_BROWSER=1 (set by .ci/run), which
turns a missing browser into a failure so CI never skips silently.

The screenshots under docs/screenshots/web-*.png are made by
``OHHELL_SCREENSHOTS=1 python3 -m pytest tests/web/test_web_browser.py -k screenshots``
(or ``python3 tests/web/test_web_browser.py``), not on every run.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

CHROMIUM = "/usr/bin/chromium"
REQUIRED = os.environ.get("OHHELL_TEST_BROWSER") == "1"
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SHORT = "3,2,1"  # hand sizes of a short match: 3 hands, 24 cards played by 4 players
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 375, "height": 740}

MISSING = ""
try:
    import uvicorn
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright

    from ohhell.game import Deal
    from ohhell.record import loads
    from ohhell.web.app import Limits, create_app
except ImportError as err:  # pragma: no cover - depends on the machine
    MISSING = f"the browser tests need {err.name} (python3 -m pip install -e '.[test]')"
if not MISSING and not os.access(CHROMIUM, os.X_OK):  # pragma: no cover - depends on the machine
    MISSING = f"the browser tests need Debian's chromium at {CHROMIUM} (apt-get install -y chromium)"
if MISSING and not REQUIRED:  # pragma: no cover - depends on the machine
    pytest.skip(f"{MISSING}; OHHELL_TEST_BROWSER=1 makes this a failure", allow_module_level=True)

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page


# ---------------------------------------------------------------- fixtures


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The server's address: uvicorn in a thread, for this module's tests."""
    if MISSING:
        pytest.fail(f"OHHELL_TEST_BROWSER=1 but {MISSING}", pytrace=False)
    db = tmp_path_factory.mktemp("browser") / "b.db"
    # No creation quota: the module makes many tables from one address.
    app = create_app(
        f"sqlite:///{db}", bot_delay=0.05, away_after=2, think=0.05, limits=Limits(create=None, connects=None)
    )
    with serving(app) as address:
        yield address


@contextlib.contextmanager
def serving(app: Any) -> Iterator[str]:
    """``app`` served by uvicorn in a thread on a free loopback port; its address."""
    port = _free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", ws_max_size=65536)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="ohhell-serve", daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            pytest.fail("the server did not start", pytrace=False)
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


@pytest.fixture(scope="module")
def browser(base: str) -> Iterator[Browser]:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    context = new_context(browser)
    try:
        yield context
    finally:
        context.close()


PAGE_ERRORS: list[str] = []  # uncaught exceptions in the pages' scripts


@pytest.fixture(autouse=True)
def no_page_errors() -> Iterator[None]:
    PAGE_ERRORS.clear()
    yield
    assert not PAGE_ERRORS, f"script errors in the pages: {PAGE_ERRORS}"


def new_context(browser: Browser, viewport: dict[str, int] = DESKTOP) -> BrowserContext:
    context = browser.new_context(viewport=viewport)  # type: ignore[arg-type]
    context.set_default_timeout(15_000)
    context.on("weberror", lambda error: PAGE_ERRORS.append(str(error.error)))
    return context


# ---------------------------------------------------------------- driving the pages


def table_id(page: Page) -> str:
    match = re.search(r"/t/([^/?#]+)$", page.url)
    assert match, page.url
    return match.group(1)


def create_table(page: Page, base: str, name: str, seats: list[str], hand_sizes: str = SHORT) -> str:
    """Fill in the home page's New table form (the host in seat 1, `seats` for
    the others: "human" or a bot level) and create the table; the page is then
    the table's lobby. Returns the table's id."""
    page.goto(f"{base}/")
    page.locator("#nt-seat-list select").first.wait_for()
    page.select_option("#nt-players", str(len(seats) + 1))
    page.fill("#nt-name", name)
    for seat, kind in enumerate(seats, start=1):
        page.select_option(f"#seat-kind-{seat}", kind)
    page.click("#nt-options-box summary")  # "More rules" is folded at first
    page.fill("#opt-hand-sizes", hand_sizes)
    page.click("#new-table-button")
    page.wait_for_url(re.compile(r"/t/[^/]+$"))
    page.locator("#lobby").wait_for()
    return table_id(page)


def start(page: Page) -> None:
    """The host starts a lobby whose seats are all taken."""
    page.locator("#start-button:enabled").click()
    page.locator("#game").wait_for()


SNAPSHOT = """() => {
  const visible = (sel) => {
    const e = document.querySelector(sel);
    return Boolean(e && !e.closest("[hidden]"));
  };
  const enabled = (sel, key) =>
    [...document.querySelectorAll(`${sel}:not(:disabled)`)].map((b) => b.dataset[key]);
  const cards = [...document.querySelectorAll("#hand button.card")];
  return {
    over: visible("#standings"),
    keep: Boolean(document.querySelector("#keep-button:not(:disabled)")),
    hand: cards.map((b) => b.dataset.card),
    cards: cards.filter((b) => b.classList.contains("legal")).map((b) => b.dataset.card),
    bids: enabled("#bids button[data-bid]", "bid"),
    suits: enabled("#bids button[data-suit]", "suit"),
    info: document.querySelector("#info").textContent,
    conn: document.querySelector("#conn").dataset.state,
  };
}"""


def snapshot(page: Page) -> dict[str, Any]:
    """What the page shows and offers now, read in one go (one render's worth)."""
    return page.evaluate(SNAPSHOT)  # type: ignore[no-any-return]


def hand_number(snap: dict[str, Any]) -> int | None:
    """The 0-based hand number in the header (absent between hands)."""
    match = re.match(r"Hand (\d+) of", snap["info"])
    return int(match.group(1)) - 1 if match else None


def step(page: Page, snap: dict[str, Any]) -> bool:
    """Take one action the page offers, by clicking: keep a bid that may be
    changed, else the first playable card, else the first bid, else trump.
    False when the page offers nothing (or it changed under the click)."""
    if snap["keep"]:
        target = "#keep-button"
    elif snap["cards"]:
        target = f'#hand button.card[data-card="{snap["cards"][0]}"]'
    elif snap["bids"]:
        target = f'#bids button[data-bid="{snap["bids"][0]}"]'
    elif snap["suits"]:
        target = f'#bids button[data-suit="{snap["suits"][0]}"]'
    else:
        return False
    try:
        page.locator(f"{target}:enabled").click(timeout=1500)
    except PlaywrightError:
        return False  # re-rendered (a bot acted, the state moved on): look again
    return True


def play_until_over(
    pages: list[Page],
    timeout: float = 45,
    watch: Callable[[int, dict[str, Any]], None] | None = None,
) -> None:
    """Click on each page whatever it offers until every page shows the final
    standings. `watch(i, snapshot)` sees every snapshot of page i."""
    done = [False] * len(pages)
    deadline = time.monotonic() + timeout
    while not all(done):
        assert time.monotonic() < deadline, f"the match did not end in {timeout} s: {snapshot(pages[0])}"
        acted = False
        for i, page in enumerate(pages):
            if done[i]:
                continue
            snap = snapshot(page)
            if watch:
                watch(i, snap)
            if snap["over"]:
                done[i] = True
            else:
                acted = step(page, snap) or acted
        if not acted:
            pages[0].wait_for_timeout(40)


def wait_for(
    page: Page, test: Callable[[dict[str, Any]], bool], what: str, timeout: float = 15
) -> dict[str, Any]:
    """Wait (without acting) until the page's snapshot passes `test`."""
    deadline = time.monotonic() + timeout
    while True:
        snap = snapshot(page)
        if test(snap):
            return snap
        assert time.monotonic() < deadline, f"waited {timeout} s for {what}: {snap}"
        page.wait_for_timeout(40)


def no_horizontal_scroll(page: Page) -> None:
    sizes = page.evaluate(
        "() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]"
    )
    assert sizes[0] <= sizes[1], f"{page.url} scrolls sideways: scrollWidth {sizes[0]} > {sizes[1]}"


def seconds_left(text: str) -> int:
    """A clock's words ("45 s left", "1:58 left, then ...") in seconds."""
    found = re.match(r"(?:(\d+):(\d\d)|(\d+) s) left", text)
    assert found, text
    if found.group(3):
        return int(found.group(3))
    return int(found.group(1)) * 60 + int(found.group(2))


def standings_shown(page: Page) -> dict[str, int]:
    """Player name -> points, as the final standings table shows them."""
    rows = page.locator("#standings-table tbody tr").evaluate_all(
        "(rows) => rows.map((r) => [...r.cells].map((c) => c.textContent.trim()))"
    )
    return {row[1]: int(row[2]) for row in rows}


# ---------------------------------------------------------------- a finished match, shared


@pytest.fixture(scope="module")
def finished(base: str, browser: Browser) -> Iterator[dict[str, Any]]:
    """One person plays a whole short match against three bots: the table is
    made with the home page's form, started from the lobby and played by
    clicks to the final standings. Gives the table, what the standings showed
    and the record downloaded with the page's link."""
    context = new_context(browser)
    page = context.new_page()
    try:
        table = create_table(page, base, "Ann", ["intermediate", "beginner", "random"])
        page.locator("#host-controls").wait_for()  # once the welcome says this page is the host
        start(page)
        page.locator("#hand button.card").first.wait_for()
        hands_seen: set[int] = set()

        def watch(_: int, snap: dict[str, Any]) -> None:
            number = hand_number(snap)
            if number is not None and snap["hand"]:
                hands_seen.add(number)
                assert len(snap["hand"]) <= [3, 2, 1][number]

        play_until_over([page], watch=watch)
        assert hands_seen == {0, 1, 2}
        shown = standings_shown(page)
        with page.expect_download() as download:
            page.click("#download-record")
        record = Path(download.value.path()).read_text(encoding="utf-8")
        yield {"table": table, "shown": shown, "record": record, "page": page}
    finally:
        context.close()


def test_play_now_deals_a_hand(base: str, context: BrowserContext) -> None:
    page = context.new_page()
    page.goto(f"{base}/")
    page.fill("#pn-name", "Zoe")
    page.click("#play-now-button")
    page.wait_for_url(re.compile(r"/t/[^/]+$"))
    table = table_id(page)
    cards = page.locator("#hand button.card")
    cards.first.wait_for()
    assert cards.count() >= 1
    assert re.fullmatch(r"(10|[2-9JQKA])[CDHS]", cards.first.get_attribute("data-card") or "")
    assert page.locator("#players .seat.me .name").inner_text() == "Zoe"
    assert page.locator("#players .seat").count() == 4
    assert page.evaluate(f"() => localStorage.getItem('ohhell-token-{table}')")
    page.locator('#conn[data-state="open"]').wait_for()
    assert page.request.get(f"{base}/api/tables/{table}").json()["status"] == "playing"


def test_one_person_plays_a_whole_match(base: str, finished: dict[str, Any]) -> None:
    record = loads(finished["record"])
    state = record.replay(complete=True)
    assert state.hand_number >= 2 and len(state.results) == 3
    totals = {record.seats[s]: state.totals[s] for s in range(len(record.seats))}
    assert finished["shown"] == totals
    page = finished["page"]
    table = finished["table"]
    # A private table's record is its players': the page's seat token opens it.
    token = page.evaluate(f"() => localStorage.getItem('ohhell-token-{table}')")
    assert page.request.get(f"{base}/api/tables/{table}/record").status == 403
    seat = {"Authorization": f"Bearer {token}"}
    assert page.request.get(f"{base}/api/tables/{table}/record", headers=seat).text() == finished["record"]
    public = page.request.get(f"{base}/api/tables/{table}").json()
    assert public["status"] == "over"
    assert [s["name"] for s in public["seats"]] == list(record.seats)
    assert page.locator("#replay-link").get_attribute("href") == f"/replay?table={table}"
    assert page.locator("#scores table.sheet").is_visible()


def test_two_people_at_one_table(base: str, browser: Browser) -> None:
    host = new_context(browser)
    guest = new_context(browser)
    try:
        a = host.new_page()
        table = create_table(a, base, "Ann", ["human", "intermediate", "intermediate"])
        invite = a.input_value("#invite-link")
        assert invite == f"{base}/t/{table}"
        assert a.locator("#start-button").is_disabled()  # a seat is open

        b = guest.new_page()
        b.goto(invite)
        b.locator("#join-form").wait_for()
        b.select_option("#join-seat", "1")
        b.fill("#join-name", "Bob")
        b.click("#join-button")
        b.locator("#lobby-seats li[data-seat='1'] .badge.you").wait_for()
        assert b.locator("#host-controls").is_hidden()
        a.locator("#lobby-seats li[data-seat='1']", has_text="Bob").wait_for()
        start(a)
        b.locator("#game").wait_for()

        seen: dict[int, list[tuple[int, frozenset[str]]]] = {0: [], 1: []}

        def watch(i: int, snap: dict[str, Any]) -> None:
            number = hand_number(snap)
            if number is not None and snap["hand"]:
                seen[i].append((number, frozenset(snap["hand"])))

        play_until_over([a, b], watch=watch)
        assert standings_shown(a) == standings_shown(b)
        assert set(standings_shown(b)) >= {"Ann", "Bob"}

        # Each page showed only its own seat's cards: a subset of that seat's deal.
        token = b.evaluate(f"() => localStorage.getItem('ohhell-token-{table}')")
        seat = {"Authorization": f"Bearer {token}"}
        record = loads(b.request.get(f"{base}/api/tables/{table}/record", headers=seat).text())
        deals = [action.hands for action in record.actions if isinstance(action, Deal)]
        assert len(deals) == 3
        for seat in (0, 1):
            assert {number for number, _ in seen[seat]} == {0, 1, 2}
            for number, cards in seen[seat]:
                own = {str(c) for c in deals[number][seat]}
                other = {str(c) for c in deals[number][1 - seat]}
                assert cards <= own, (seat, number, cards, own)
                assert not cards & other
    finally:
        host.close()
        guest.close()


def test_the_turn_clock_counts_down_and_the_host_can_let_a_bot_play(base: str, browser: Browser) -> None:
    host = new_context(browser)
    guest = new_context(browser)
    try:
        r = host.request.post(
            f"{base}/api/tables",
            data={
                "options": {"players": "3", "first-dealer": "0"},
                "seats": ["human", "human", "random"],
                "clock": 120,
            },
        )
        made = r.json()
        table = made["table"]
        b = guest.new_page()
        b.goto(f"{base}/t/{table}")
        b.locator("#join-form").wait_for()
        b.select_option("#join-seat", "1")
        b.fill("#join-name", "Bob")
        b.click("#join-button")
        b.locator("#lobby-seats li[data-seat='1'] .badge.you").wait_for()
        a = host.new_page()
        a.goto(f"{base}/t/{table}")
        a.evaluate("([t, tok]) => localStorage.setItem(`ohhell-token-${t}`, tok)", [table, made["token"]])
        a.reload()
        a.locator("#start-button").wait_for()
        start(a)
        # Seat 1 (Bob, left of the dealer) bids first: the host's page shows his
        # clock on his seat, his own page as a bar under the prompt.
        for clock in (a.locator("#players .seat[data-seat='1'] .clock"), b.locator("#my-clock .words")):
            clock.wait_for()
            first = seconds_left(clock.inner_text())
            assert 100 < first <= 120
        b.wait_for_function(
            "(s) => /^\\d+:\\d\\d left/.test(document.querySelector('#my-clock .words').textContent)"
            " && document.querySelector('#my-clock .words').textContent.startsWith(s)",
            arg=f"{(first - 2) // 60}:{(first - 2) % 60:02d}",
        )
        assert b.locator("#players .seat .clock").count() == 0  # no clock on his seat, none on the host's
        assert "then a bot chooses" in b.locator("#my-clock").inner_text()
        # The host's "Let a bot play" comes a few seconds into Bob's turn, not at once.
        a.locator("#players .seat[data-seat='1'] .replace-button").wait_for()
        # The host hands Bob's seat to a bot: it bids for him, and his page says so.
        a.click("#players .seat[data-seat='1'] .replace-button")
        b.locator("#back-button").wait_for()
        a.locator("#players .seat[data-seat='1'].away").wait_for()
        b.click("#back-button")
        b.locator("#back-button").wait_for(state="detached")
    finally:
        host.close()
        guest.close()


def test_reconnect_in_the_middle_of_a_hand(base: str, context: BrowserContext) -> None:
    page = context.new_page()
    table = create_table(page, base, "Cy", ["intermediate", "intermediate", "intermediate"])
    start(page)
    # Bid, then play one card of the first hand (3 cards), then wait for the next turn.
    deadline = time.monotonic() + 20
    while True:
        assert time.monotonic() < deadline, snapshot(page)
        snap = snapshot(page)
        if snap["cards"] and not snap["keep"]:
            played = snap["cards"][0]
            assert step(page, snap)
            break
        if not step(page, snap):
            page.wait_for_timeout(40)
    snap = wait_for(page, lambda s: bool(s["cards"]) or hand_number(s) != 0, "my second card to play")
    assert hand_number(snap) == 0 and len(snap["hand"]) == 2 and played not in snap["hand"]
    before = sorted(snap["hand"])

    page.close()  # the socket closes with the page
    closed = time.monotonic()
    page = context.new_page()
    page.goto(f"{base}/t/{table}")
    page.locator('#conn[data-state="open"]').wait_for()
    page.locator("#hand button.card").first.wait_for()
    snap = wait_for(page, lambda s: bool(s["hand"]), "the hand after reopening")
    assert hand_number(snap) == 0
    if time.monotonic() - closed < 1.5:  # back before the cover bot (away after 2 s) may play
        assert sorted(snap["hand"]) == before
        assert snap["cards"], "still my turn to play"
    else:  # a slow machine: the cover bot may have played one card for me
        assert set(snap["hand"]) <= set(before) and len(snap["hand"]) >= 1
    assert page.locator("#players .seat.me .name").inner_text() == "Cy"
    play_until_over([page])
    assert page.request.get(f"{base}/api/tables/{table}").json()["status"] == "over"


def test_keyboard(base: str, context: BrowserContext) -> None:
    page = context.new_page()
    create_table(page, base, "Di", ["random", "random", "random"])
    start(page)
    snap = wait_for(page, lambda s: bool(s["bids"]) and not s["keep"], "my turn to bid")
    bid = snap["bids"][-1]  # a digit key bids (hand size 3: one digit)
    page.keyboard.press(bid)
    page.locator("#players .seat.me .bid b", has_text=bid).wait_for()
    snap = snapshot(page)
    if snap["keep"]:  # the bid may still be changed: k keeps it
        page.keyboard.press("k")
        wait_for(page, lambda s: not s["keep"], "the bid kept")
    snap = wait_for(page, lambda s: bool(s["cards"]), "my turn to play")
    page.keyboard.press("ArrowRight")
    focused = page.evaluate("() => document.activeElement.dataset.card")
    assert focused in snap["cards"]
    if len(snap["cards"]) > 1:  # arrows move along the playable cards
        page.keyboard.press("ArrowRight")
        moved = page.evaluate("() => document.activeElement.dataset.card")
        assert moved in snap["cards"] and moved != focused
        focused = moved
    page.keyboard.press("Enter")
    wait_for(page, lambda s: focused not in s["hand"], f"{focused} played by Enter")
    # The card went to the table: the log says so (the trick itself may have
    # moved on already, the bots play fast here).
    page.locator("#log li", has_text="You play").first.wait_for(state="attached")


def test_phone_size_has_no_horizontal_scroll(base: str, browser: Browser) -> None:
    context = new_context(browser, PHONE)
    try:
        page = context.new_page()
        page.goto(f"{base}/")
        page.locator("#nt-seat-list select").first.wait_for()
        no_horizontal_scroll(page)
        page.click("#play-now-button")  # pagat: a hand of 10 cards to fit on the phone
        page.wait_for_url(re.compile(r"/t/[^/]+$"))
        page.locator("#hand button.card").nth(9).wait_for()
        no_horizontal_scroll(page)
        page.click("#scores-button")
        no_horizontal_scroll(page)
        lobby = context.new_page()
        create_table(lobby, base, "Ed", ["human", "random", "random"])
        no_horizontal_scroll(lobby)
    finally:
        context.close()


def test_replay_page(base: str, browser: Browser, finished: dict[str, Any]) -> None:
    # A private table's replay is its players': a stranger's browser is refused...
    stranger = new_context(browser)
    try:
        page = stranger.new_page()
        page.goto(f"{base}/replay?table={finished['table']}")
        page.get_by_text("Could not load the match's record").wait_for()
        assert page.locator("#viewer").is_hidden()
    finally:
        stranger.close()
    # ...and the player's, holding the seat's token, replays it.
    page = finished["page"].context.new_page()
    try:
        page.goto(f"{base}/replay?table={finished['table']}")
        page.locator("#viewer").wait_for()
        actions = len(loads(finished["record"]).actions)
        label = page.inner_text("#frame-label")
        assert label.startswith(f"1 / {actions}")
        assert page.locator("#prev-action").is_disabled()
        page.click("#next-action")
        page.wait_for_function("(l) => document.querySelector('#frame-label').textContent !== l", arg=label)
        assert page.inner_text("#frame-label").startswith(f"2 / {actions}")
        # "Hand" jumps from deal to deal: the first hand's deal (after the draw), then the second's.
        for _ in range(2):
            label = page.inner_text("#frame-label")
            page.click("#next-hand")
            assert page.inner_text("#frame-label") != label
            if "Hand 2 of 3" in page.inner_text("#info"):
                break
        assert "Hand 2 of 3" in page.inner_text("#info")
        assert page.inner_text("#frame-label").split(" / ")[0] != "2"
        assert page.locator("#hands .hand-row").count() == 4
        assert page.locator("#hands .card").count() == 8  # every hand face up: 4 x 2 cards
        page.keyboard.press("End")
        assert page.inner_text("#frame-label").startswith(f"{actions} / {actions}")
        assert "The match is over." in page.inner_text("#status")
        assert page.locator("#next-action").is_disabled()
        page.set_viewport_size(PHONE)
        page.keyboard.press("Home")
        page.click("#next-trick")
        no_horizontal_scroll(page)
    finally:
        page.close()


# ---------------------------------------------------------------- screenshots for docs/


@pytest.mark.skipif(
    os.environ.get("OHHELL_SCREENSHOTS") != "1", reason="OHHELL_SCREENSHOTS=1 remakes the PNGs"
)
def test_screenshots(base: str, browser: Browser) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    shot = lambda page, name: page.screenshot(path=str(SCREENSHOTS / f"web-{name}.png"))  # noqa: E731
    context = new_context(browser)
    phone = new_context(browser, PHONE)
    try:
        page = context.new_page()
        # An open table on the home page's list: Bea's, waiting for two players.
        page.request.post(
            f"{base}/api/tables",
            data={"name": "Bea", "public": True, "seats": ["human", "human", "human", "expert"]},
        )
        page.goto(f"{base}/")
        page.locator("#open-table-list li").first.wait_for()
        page.fill("#pn-name", "Ann")
        shot(page, "home")

        create_table(page, base, "Ann", ["human", "intermediate", "expert"])
        guest = new_context(browser)
        try:
            b = guest.new_page()
            b.goto(page.url)
            b.select_option("#join-seat", "1")
            b.fill("#join-name", "Bob")
            b.click("#join-button")
            page.locator("#lobby-seats li[data-seat='1']", has_text="Bob").wait_for()
        finally:
            guest.close()
        page.wait_for_timeout(300)
        shot(page, "lobby")

        # The table during play: Play now (pagat, 10 cards), bid, then wait for a
        # turn to play with cards on the table.
        for target, name in ((page, "table"), (phone.new_page(), "phone")):
            target.goto(f"{base}/")
            target.fill("#pn-name", "Ann")
            target.click("#play-now-button")
            target.wait_for_url(re.compile(r"/t/[^/]+$"))
            deadline = time.monotonic() + 30
            while True:  # play on until it is my turn with two or more cards on the table
                assert time.monotonic() < deadline, snapshot(target)
                snap = snapshot(target)
                on_table = target.locator('#trick[data-kind="current"] .played').count()
                if snap["cards"] and on_table >= 2:
                    break
                if not step(target, snap):
                    target.wait_for_timeout(40)
            if name == "table":  # a word in the chat, and a reaction on the seat
                target.fill("#chat-input", "Good luck, all!")
                target.press("#chat-input", "Enter")
                target.click("#reactions button[data-reaction='hello']")
            target.wait_for_timeout(500)  # the cards' slide-in is over
            shot(target, name)

        page = context.new_page()
        create_table(page, base, "Ann", ["intermediate", "expert", "beginner"])
        start(page)
        play_until_over([page])
        page.wait_for_timeout(500)
        page.screenshot(path=str(SCREENSHOTS / "web-standings.png"), full_page=True)
        table = table_id(page)

        page.goto(f"{base}/replay?table={table}")
        page.locator("#viewer").wait_for()
        for _ in range(4):
            page.click("#next-trick")
        page.click("#next-action")
        page.click("#next-action")
        page.wait_for_timeout(300)
        page.screenshot(path=str(SCREENSHOTS / "web-replay.png"), full_page=True)
    finally:
        context.close()
        phone.close()


if __name__ == "__main__":  # python3 tests/web/test_web_browser.py: remake the screenshots
    os.environ["OHHELL_SCREENSHOTS"] = "1"
    sys.exit(pytest.main([__file__, "-q", "-k", "screenshots"]))
