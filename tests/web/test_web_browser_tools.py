"""Browser tests of the table's tools: forced cards played for you, leaving
the table and the host ending it (Playwright, Debian's chromium).

The server, the browser and the skip rule are those of
tests/web/test_web_browser.py (its fixtures are reused).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import test_web_browser as tb
from test_web_browser_newcomer import server as live_server

from ohhell import claim_holds

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page

base = tb.base
browser = tb.browser
context = tb.context
no_page_errors = tb.no_page_errors
__all__ = ["base", "browser", "context", "live_server", "no_page_errors"]  # fixtures, shared


@contextlib.contextmanager
def friends_at_a_table(
    browser: Browser, base: str, host_name: str, friend_name: str
) -> Iterator[tuple[Page, Page, str]]:
    """A started table of four: the host, a friend who joined by the link
    (seat 2) and two random bots; the host's page, the friend's and the table."""
    host_context, friend_context = tb.new_context(browser), tb.new_context(browser)
    try:
        host = host_context.new_page()
        table = tb.create_table(host, base, host_name, ["human", "random", "random"])
        friend = friend_context.new_page()
        friend.goto(f"{base}/t/{table}")
        friend.locator("#join-form").wait_for()
        friend.fill("#join-name", friend_name)
        friend.click("#join-button")
        host.locator("#lobby-seats li[data-seat='1']", has_text=friend_name).wait_for()
        tb.start(host)
        for page in (host, friend):
            page.locator("#hand button.card").first.wait_for()
        yield host, friend, table
    finally:
        host_context.close()
        friend_context.close()


def bid_when_asked(page: Page) -> None:
    page.locator('#bids[data-mode="bid"] button[data-bid]:enabled').first.click()


def test_forced_cards_are_played_for_you_when_you_ask(base: str, context: BrowserContext) -> None:
    # Hands of one card: every card is forced (the only one, and the last trick).
    page = context.new_page()
    tb.create_table(page, base, "Fay", ["random", "random", "random"], hand_sizes="1,1")
    tb.start(page)
    page.locator("#hand button.card").first.wait_for()
    assert not page.is_checked("#auto-play")  # off unless asked for
    bid_when_asked(page)
    card = page.locator("#hand button.card.legal")
    card.wait_for()
    page.wait_for_timeout(1500)  # off: the card waits for its player
    assert page.locator("#hand button.card.legal").count() == 1
    page.check("#auto-play")
    card.wait_for(state="detached")  # played without a click
    bid_when_asked(page)  # the second hand: a bid is still yours to make
    page.locator("#standings").wait_for()  # and its card went by itself too
    page.reload()
    page.locator("#standings").wait_for()
    assert page.is_checked("#auto-play")  # remembered


def test_a_friend_leaves_and_a_bot_takes_the_seat(base: str, browser: Browser) -> None:
    with friends_at_a_table(browser, base, "Gus", "Hal") as (host, friend, _):
        assert host.locator("#leave-button").is_hidden()  # the host ends the table instead
        friend.on("dialog", lambda dialog: dialog.accept())
        friend.click("#leave-button")
        host.locator("#chat-log li", has_text="Hal left the table").wait_for()
        host.locator("#players .seat[data-seat='1'] .name", has_text=re.compile(r"^(?!Hal$)")).wait_for()
        assert "bot" in host.inner_text("#players .seat[data-seat='1']")
        friend.locator("#leave-button").wait_for(state="hidden")  # a watcher now
        assert friend.locator("#hand button.card").count() == 0


def test_the_host_ends_the_table(base: str, browser: Browser) -> None:
    with friends_at_a_table(browser, base, "Ivy", "Jo") as (host, friend, _):
        assert friend.locator("#end-button").is_hidden()
        host.on("dialog", lambda dialog: dialog.accept())
        host.click("#end-button")
        host.locator("#status", has_text="You ended this table").wait_for()
        friend.locator("#status", has_text="The host ended this table").wait_for()
        for page in (host, friend):
            # An ended table offers no play: no hand, no bids, no hint, no claim.
            assert page.locator("#bids button:enabled").count() == 0
            page.locator("#hand-box").wait_for(state="hidden")
            assert page.locator("#hint-button").is_hidden()
            assert page.locator("#claim-button").is_hidden()
        friend.locator("#chat-log li", has_text="The host ended the table").wait_for()
        link = friend.locator("#status a", has_text="Download the record so far")
        # The page sends the seat's token (a private table's record is its players').
        assert friend.request.get(f"{base}{link.get_attribute('href')}").status == 403
        with friend.expect_download() as download:
            link.click()
        assert "Ivy" in Path(download.value.path()).read_text(encoding="utf-8")


def test_a_claim_from_the_page(live_server: Any, browser: Browser) -> None:
    # Hands of one card: claiming the one trick, or none of it, is certain
    # one way or the other (the server's own state says which); the other
    # claim goes to the bots, who refuse it; one claim a hand.
    page = tb.new_context(browser).new_page()
    table = tb.create_table(
        page, live_server["base"], "Kim", ["random", "random", "random"], hand_sizes="1,1"
    )
    server = live_server["app"].state.server.hub.tables[table]
    tb.start(page)
    outcomes = []
    for hand in (0, 1):
        bid_when_asked(page)
        page.locator("#hand button.card.legal").wait_for()
        assert server.state.hand_number == hand
        certain = 1 if claim_holds(server.state, 0, 1) else 0
        page.click("#claim-button")
        choices = page.locator("#claim button[data-tricks]")
        assert choices.evaluate_all("(bs) => bs.map((b) => b.textContent)") == ["None", "All 1"]
        tricks = certain if hand == 0 else 1 - certain  # the certain claim, then the other one
        page.click(f'#claim button[data-tricks="{tricks}"]')
        words = (
            "You claim all 1 trick left; certain"
            if tricks == 1
            else "You claim none of the 1 trick left; certain"
        )
        if hand == 1:
            words = "is refused"
        page.locator("#log li", has_text=words).wait_for(state="attached")
        outcomes.append((tricks, certain))
        if hand == 1:
            page.locator("#claim-button").wait_for(state="hidden")  # one claim a hand
            page.locator("#hand button.card.legal").click()
    page.locator("#standings").wait_for()
    href = page.locator("#download-record").get_attribute("href") or ""
    # A private table's record is its players': the page's seat token opens it.
    token = page.evaluate("() => localStorage.getItem(`ohhell-token-${location.pathname.split('/').pop()}`)")
    url = href if href.startswith("http") else f"{live_server['base']}{href}"
    record = page.request.get(url, headers={"Authorization": f"Bearer {token}"}).text()
    assert re.findall(r"^claim 0 ([01])$", record, re.MULTILINE) == [str(outcomes[0][0])], record
    # The replay shows the claim where it was made.
    page.click("#replay-link")
    page.locator("#viewer").wait_for()
    said = []
    for i in range(int(page.get_attribute("#slider", "max") or 0) + 1):
        page.locator("#slider").evaluate("(s, i) => { s.value = i; s.dispatchEvent(new Event('input')); }", i)
        said.append(page.inner_text("#frame-label"))
    claimed = [t for t in said if "claim" in t]
    tricks = "all 1 trick left" if outcomes[0][0] == 1 else "none of the 1 trick left"
    assert len(claimed) == 1 and f"You claim {tricks}" in claimed[0], said
    page.context.close()


def test_leave_and_end_in_the_lobby(base: str, browser: Browser) -> None:
    # Before the start a seated friend may leave (the seat is open again) and
    # the host may end a table that will never start.
    host_context, friend_context = tb.new_context(browser), tb.new_context(browser)
    try:
        host = host_context.new_page()
        table = tb.create_table(host, base, "Lou", ["human", "random", "random"])
        friend = friend_context.new_page()
        friend.goto(f"{base}/t/{table}")
        friend.fill("#join-name", "Max")
        friend.click("#join-button")
        host.locator("#lobby-seats li[data-seat='1']", has_text="Max").wait_for()
        assert friend.locator("#lobby-end-button").is_hidden()
        assert host.locator("#lobby-leave-button").is_hidden()
        friend.on("dialog", lambda dialog: dialog.accept())
        friend.click("#lobby-leave-button")
        host.locator("#lobby-seats li[data-seat='1']", has_text="open seat").wait_for()
        friend.locator("#lobby-leave-button").wait_for(state="hidden")  # a watcher now
        host.on("dialog", lambda dialog: dialog.accept())
        host.click("#lobby-end-button")
        host.locator("#status", has_text="You ended this table").wait_for()
        friend.locator("#status", has_text="The host ended this table").wait_for()
    finally:
        host_context.close()
        friend_context.close()
