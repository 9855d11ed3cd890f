"""A newcomer's whole match in the browser, pressing only what the page requires.

These tests play as a person who has never seen the page does: the default
options everywhere, a bid when the page asks for a bid, a card when it asks
for a card, a name where a form needs one, and nothing else. They never
press an optional button (keeping a bid, a hint, the last trick), so a
table that waits on one of those stalls here and the test fails.

Covered: Play now from the home page to the final standings; a table of two
people (the host and a friend who opens the invite link) with the default
move clock, bots in the other seats, to the end, with nobody's clock running
out. The server runs with its real bid-change wait shortened (R-BID-CHANGE:
the next bidder waits a short grace for a change), not switched off.

Needs playwright and /usr/bin/chromium, as tests/web/test_web_browser.py.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest
import test_web_browser as tb  # the browser, the skip rule and serving an app
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import sync_playwright

from ohhell.web.app import Limits, create_app

GRACE = 0.4  # seconds the next bot bidder waits for a bid change (3 by default; shorter here, not 0)
MATCH_LIMIT = 240  # seconds for a whole default match (19 hands); it takes about a minute

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """``ohhell serve``'s app with its defaults (the 60 s move clock, bots
    covering after 60 s away), bots quick to move so a match takes a minute."""
    if tb.MISSING:
        pytest.fail(f"OHHELL_TEST_BROWSER=1 but {tb.MISSING}", pytrace=False)
    db = tmp_path_factory.mktemp("newcomer") / "n.db"
    app = create_app(
        f"sqlite:///{db}",
        bot_delay=0.02,
        think=0.05,
        change_grace=GRACE,
        limits=Limits(create=None, connects=None),
    )
    with tb.serving(app) as base:
        yield {"base": base, "app": app}


@pytest.fixture(scope="module")
def browser(server: Any) -> Iterator[Browser]:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=tb.CHROMIUM, args=tb.CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


ERRORS: list[str] = []


# Every message the page sends on its WebSocket, kept in the page: what the
# player did, counted exactly (a click that races a re-render still counts
# once, and only if it reached the server).
RECORD_SENT = """(() => {
  const send = WebSocket.prototype.send;
  window.sent = [];
  WebSocket.prototype.send = function (data) {
    try { window.sent.push(JSON.parse(data)); } catch (e) { /* not JSON */ }
    return send.call(this, data);
  };
})();"""


def new_page(browser: Browser) -> Page:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(15_000)
    context.on("weberror", lambda error: ERRORS.append(str(error.error)))
    context.add_init_script(RECORD_SENT)
    return context.new_page()


def sent(page: Page) -> dict[str, int]:
    """What the page sent: actions by kind, and every other message by type."""
    counts: dict[str, int] = {}
    for message in page.evaluate("() => window.sent"):
        key = message["action"]["kind"] if message["type"] == "act" else message["type"]
        counts[key] = counts.get(key, 0) + 1
    return counts


# What the page asks of its player now: only the required kinds of choice.
ASKED = """() => {
  const box = document.querySelector("#bids");
  const shown = (e) => Boolean(e && !e.closest("[hidden]"));
  const standings = document.querySelector("#standings");
  return {
    over: shown(standings),
    mode: box ? box.dataset.mode : null,
    bids: [...document.querySelectorAll('#bids[data-mode="bid"] button[data-bid]:not(:disabled)')]
      .map((b) => b.dataset.bid),
    suits: [...document.querySelectorAll('#bids[data-mode="trump"] button[data-suit]:not(:disabled)')]
      .map((b) => b.dataset.suit),
    cards: [...document.querySelectorAll("#hand button.card.legal:not(:disabled)")]
      .map((b) => b.dataset.card),
    status: (document.querySelector("#status") || {}).textContent || "",
    info: (document.querySelector("#info") || {}).textContent || "",
  };
}"""


def answer(page: Page) -> str | None:
    """Do what the page requires now (a bid, trump, a card) and say which;
    None when it requires nothing of this player."""
    asked = page.evaluate(ASKED)
    if asked["over"]:
        return "over"
    if asked["cards"]:
        target = f'#hand button.card[data-card="{asked["cards"][0]}"]'
    elif asked["bids"]:
        # A newcomer's bid: the middle of what is offered, not always 0.
        target = f'#bids button[data-bid="{asked["bids"][len(asked["bids"]) // 2]}"]'
    elif asked["suits"]:
        target = f'#bids button[data-suit="{asked["suits"][0]}"]'
    else:
        return None
    try:
        page.locator(f"{target}:enabled").click(timeout=1000)
    except PlaywrightError:
        return None  # re-drawn under the click (a bot moved): look again
    return target


def play_to_the_end(pages: list[Page], table: Any, limit: float = MATCH_LIMIT) -> dict[str, int]:
    """Answer what each page requires until every page shows the final
    standings; fails if the table (the server's ``LiveTable``) takes no
    action for 20 s or the match takes longer than ``limit``. Returns how
    many bids and cards were pressed."""
    done = [False] * len(pages)
    pressed = {"bids": 0, "cards": 0, "trump": 0}
    start = last_move = time.monotonic()
    version = table.version
    while not all(done):
        now = time.monotonic()
        if table.version != version:
            version, last_move = table.version, now
        asked = pages[0].evaluate(ASKED)
        assert now - last_move < 20, f"no action for 20 s: the table stalls ({asked})"
        assert now - start < limit, f"the match did not end in {limit} s ({asked})"
        moved = False
        for i, page in enumerate(pages):
            if done[i]:
                continue
            what = answer(page)
            if what == "over":
                done[i] = True
            elif what is not None:
                moved = True
                key = "cards" if "card" in what else "bids" if "data-bid" in what else "trump"
                pressed[key] += 1
        if not moved:
            pages[0].wait_for_timeout(30)
    return pressed


def table_of(page: Page) -> str:
    found = re.search(r"/t/([^/?#]+)$", page.url)
    assert found, page.url
    return found.group(1)


def live_table(server: Any, table: str) -> Any:
    return server["app"].state.server.hub.tables[table]


def test_play_now_from_the_home_page_to_the_final_standings(server: Any, browser: Browser) -> None:
    # R-BID-CHANGE: the default rules let a bid be changed until the next
    # player bids; the bots bidding next wait only a short grace, so a
    # newcomer who bids once and never presses "Keep my bid" plays on.
    ERRORS.clear()
    page = new_page(browser)
    page.goto(f"{server['base']}/")
    page.click("#play-now-button")  # no name typed, no option changed
    page.wait_for_url(re.compile(r"/t/[^/]+$"))
    page.locator("#hand button.card").first.wait_for()
    table = live_table(server, table_of(page))
    play_to_the_end([page], table)
    assert table.rules.bid_changes and table.state.is_over
    assert len(table.state.results) == len(table.rules.schedule) == 19
    # Counted from what the page sent, not from the clicks seen to return:
    # a click can land and still time out under load as the hand re-draws.
    done = sent(page)  # every bid and card made by the person, nothing optional sent
    assert done.get("bid") == 19 and done.get("play") == sum(table.rules.schedule), done
    assert not {"keep", "change", "hint"} & done.keys(), done
    assert page.locator("#standings-table tbody tr").count() == 4
    assert not ERRORS, ERRORS
    page.context.close()


def test_two_friends_with_the_default_clock_play_to_the_end(server: Any, browser: Browser) -> None:
    # The host makes a table with the default rules and clock, sends the
    # link, the friend joins with a name, the host fills the other seats
    # with bots and starts. Nobody's clock runs out: a person who bid is
    # owed no move, so only the player to act is on the clock.
    ERRORS.clear()
    host = new_page(browser)
    host.goto(f"{server['base']}/")
    host.locator("#nt-seat-list select").first.wait_for()
    host.fill("#nt-name", "Ann")
    host.click("#new-table-button")
    host.wait_for_url(re.compile(r"/t/[^/]+$"))
    host.locator("#lobby").wait_for()
    link = host.input_value("#invite-link")
    friend = new_page(browser)
    friend.goto(link)
    friend.locator("#join-form").wait_for()
    if not friend.input_value("#join-name").strip():
        friend.fill("#join-name", "Ben")
    friend.click("#join-button")
    host.locator("#lobby-seats li.human").nth(1).wait_for()
    host.locator("#fill-button:enabled").click()
    host.locator("#start-button:enabled").click()
    host.locator("#hand button.card").first.wait_for()
    friend.locator("#hand button.card").first.wait_for()
    table = live_table(server, table_of(host))
    assert table.clock == 60 and table.rules.bid_changes
    play_to_the_end([host, friend], table)
    assert table.state.is_over and len(table.state.results) == 19
    for page in (host, friend):  # every bid and card made by its person, nothing optional sent
        done = sent(page)
        assert done.get("bid") == 19 and done.get("play") == sum(table.rules.schedule), done
        assert not {"keep", "change", "hint", "back"} & done.keys(), done
    people = [s for s in table.seats if s.kind == "human"]
    assert len(people) == 2 and not any(s.covered for s in people)  # no clock ran out
    assert not ERRORS, ERRORS
    host.context.close()
    friend.context.close()
