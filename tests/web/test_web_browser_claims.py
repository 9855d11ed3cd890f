"""Browser tests of a claim put to people (R-CLAIM): the people asked see the
claimer's cards as cards, on a phone too, where the panel and its answers
are brought into view (Playwright, Debian's chromium).

The server, the browser and the skip rule are those of
tests/web/test_web_browser.py and test_web_browser_newcomer.py.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import test_web_browser as tb
from test_web_browser_newcomer import browser, server

from ohhell import claim_holds, claim_possible, tricks_left

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

no_page_errors = tb.no_page_errors
__all__ = ["browser", "no_page_errors", "server"]  # fixtures, shared

PHONE = {"width": 390, "height": 844}

IN_VIEW = """(e) => {
  const r = e.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && r.top >= 0 && r.left >= 0
    && r.bottom <= window.innerHeight && r.right <= window.innerWidth;
}"""


def _in_view(page: Page, selector: str) -> bool:
    return bool(page.locator(selector).first.evaluate(IN_VIEW))


def _act_when_asked(page: Page) -> bool:
    """Bid or play (the first choice) if this page is asked to; True if it acted."""
    bids = page.locator('#bids[data-mode="bid"] button[data-bid]:enabled')
    if bids.count():
        bids.first.click()
        return True
    cards = page.locator("#hand button.card.legal")
    if cards.count():
        cards.first.click()
        return True
    return False


def _uncertain_claim(table: Any, seat: int) -> int | None:
    """A number of tricks ``seat`` could claim now that its cards do not make
    certain but some play makes true (so people must answer it), or None."""
    state = table.state
    if state.phase.name.lower() != "play" or not state.hands[seat]:
        return None
    for tricks in range(tricks_left(state) + 1):
        if claim_holds(state, seat, tricks) is False and claim_possible(state, seat, tricks):
            return tricks
    return None


def test_a_claim_put_to_people_shows_the_claimers_cards_on_every_page(server: Any, browser: Browser) -> None:
    # Three people, no bot: a claim the cards do not make certain is put to
    # both others. The host and one friend are on phones (390x844), the other
    # friend on a desktop.
    base = server["base"]
    contexts = [tb.new_context(browser, PHONE), tb.new_context(browser, PHONE), tb.new_context(browser)]
    try:
        host, ann, bob = (c.new_page() for c in contexts)
        table = tb.create_table(host, base, "Cleo", ["human", "human"], hand_sizes="5")
        for page, name, seat in ((ann, "Ann", 1), (bob, "Bob", 2)):
            page.goto(f"{base}/t/{table}")
            page.locator("#join-form").wait_for()
            page.fill("#join-name", name)
            page.click("#join-button")
            host.locator(f"#lobby-seats li[data-seat='{seat}']", has_text=name).wait_for()
        tb.start(host)
        held = server["app"].state.server.hub.tables[table]
        pages = (host, ann, bob)
        claim = None
        deadline = time.monotonic() + 60
        while claim is None:
            assert time.monotonic() < deadline, "no claim people must answer came up"
            if host.locator("#hand button.card.legal").count():
                claim = _uncertain_claim(held, 0)
                if claim is not None:
                    break
            if not any(_act_when_asked(p) for p in pages):
                time.sleep(0.1)
        shown = [str(c) for c in held.state.hands[0]]

        # The claimer on a phone: the panel opens in view, its first choice in focus.
        host.press("body", "r")
        host.locator("#claim button[data-tricks]").first.wait_for()
        assert _in_view(host, "#claim button[data-tricks]")
        assert "bots" not in host.inner_text("#claim")  # only people here: they answer
        assert "once a hand" in host.inner_text("#claim")
        host.click(f'#claim button[data-tricks="{claim}"]')

        for page in pages:
            page.locator("#claim .shown .mini").first.wait_for()
            text = page.inner_text("#claim .shown")
            assert "object" not in text, text
            cards = page.locator("#claim .shown .mini").evaluate_all("(cs) => cs.map((c) => c.title)")
            assert len(cards) == len(shown), cards
        for page in (ann, bob):
            page.locator("#claim .accept").wait_for()
        # The asked player on a phone sees Accept, Refuse and the countdown without scrolling.
        for selector in ("#claim .accept", "#claim .refuse", "#claim-seconds"):
            assert _in_view(ann, selector), selector
        ann.click("#claim .refuse")
        for page in pages:
            page.locator("#log li", has_text="is refused").wait_for(state="attached")
    finally:
        for c in contexts:
            c.close()


def test_escape_closes_the_claim_panel(server: Any, browser: Browser) -> None:
    context = tb.new_context(browser)
    try:
        page = context.new_page()
        tb.create_table(page, server["base"], "Dee", ["random", "random", "random"], hand_sizes="3")
        tb.start(page)
        deadline = time.monotonic() + 30
        while not page.locator("#hand button.card.legal").count():
            assert time.monotonic() < deadline
            if not _act_when_asked(page):
                time.sleep(0.1)
        page.press("body", "r")
        page.locator("#claim button[data-tricks]").first.wait_for()
        # Bots answer a claim the cards do not make certain: the panel says so before.
        assert "bots check it against their own cards" in page.inner_text("#claim")
        page.keyboard.press("Escape")
        page.locator("#claim").wait_for(state="hidden")
        assert page.evaluate("document.activeElement && document.activeElement.id") == "claim-button"
    finally:
        context.close()
