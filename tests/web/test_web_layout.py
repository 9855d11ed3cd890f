"""Browser tests of the table page's layout: nothing moves under the pointer between hands.

The server, the browser and the skip rule are those of tests/web/test_web_browser.py
(its fixtures are reused). A person plays against bots, by clicks, through
the end of a short hand into the next, larger one, on a desktop and on a
phone-sized viewport; the position and size of the hand (``#hand``), the bid
area (``#bids``) and the tools under the hand are measured at every step,
relative to the document, so scrolling does not count as a move. Each must
keep one box from the first bid to the second hand's first card: the status
area has a fixed height, the header one line and the bid area keeps room for
the biggest hand's bids from the start.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import pytest
import test_web_browser as tb

if TYPE_CHECKING:
    from playwright.sync_api import Browser

base = tb.base
browser = tb.browser
no_page_errors = tb.no_page_errors

BOXES = """() => {
  const box = (sel) => {
    const e = document.querySelector(sel);
    if (!e || e.closest("[hidden]")) return null;
    const r = e.getBoundingClientRect();
    return [r.left + scrollX, r.top + scrollY, r.width, r.height].map((v) => Math.round(v));
  };
  return { hand: box("#hand"), bids: box("#bids"), tools: box("#game .toolbar"), felt: box("#felt") };
}"""


def boxes(page: Any) -> dict[str, list[int] | None]:
    return page.evaluate(BOXES)  # type: ignore[no-any-return]


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_the_hand_stays_put_when_a_hand_ends(base: str, browser: Browser, viewport: str) -> None:
    context = tb.new_context(browser, tb.DESKTOP if viewport == "desktop" else tb.PHONE)
    try:
        page = context.new_page()
        # A hand of 2 cards, then one of 8: the second asks for more bid
        # buttons than the first (two rows of them on a phone).
        tb.create_table(page, base, "Ann", ["intermediate", "intermediate", "intermediate"], hand_sizes="2,8")
        tb.start(page)
        page.locator("#hand button.card").first.wait_for()
        seen: dict[str, set[tuple[int, ...]]] = {"hand": set(), "bids": set(), "tools": set(), "felt": set()}
        hands: set[int | None] = set()
        deadline = time.monotonic() + 60
        while True:
            assert time.monotonic() < deadline, tb.snapshot(page)
            snap = tb.snapshot(page)
            assert not snap["over"], "the match ended before the second hand was played"
            number = tb.hand_number(snap)
            measured = boxes(page)
            for key, box in measured.items():
                if box is not None:
                    seen[key].add(tuple(box))
            hands.add(number)
            if number == 1 and snap["hand"] and len(snap["hand"]) < 8:
                break  # the second hand's first card is played
            if not tb.step(page, snap):
                page.wait_for_timeout(30)
        assert {0, 1} <= hands
        for key, found in seen.items():
            assert len(found) == 1, f"{viewport}: {key} moved: {sorted(found)}"
        if viewport == "phone":
            tb.no_horizontal_scroll(page)
    finally:
        context.close()


def test_the_bid_area_keeps_room_for_the_biggest_hand(base: str, browser: Browser) -> None:
    """The room is there from the first hand: on a phone, 9 bid buttons
    (0 to 8) take two rows, so the bid area of a 2-card hand is already as
    tall as two rows of buttons."""
    context = tb.new_context(browser, tb.PHONE)
    try:
        page = context.new_page()
        tb.create_table(page, base, "Bo", ["random", "random", "random"], hand_sizes="2,8")
        tb.start(page)
        page.locator("#bids button[data-bid]").first.wait_for()
        heights = page.evaluate(
            """() => ({
              area: document.querySelector('#bids').getBoundingClientRect().height,
              button: document.querySelector('#bids button[data-bid]').getBoundingClientRect().height,
            })"""
        )
        assert heights["area"] >= 2 * heights["button"]
    finally:
        context.close()


OVERLAPS = """() => {
  const box = (e) => e.getBoundingClientRect();
  const meets = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const trump = document.querySelector('#trump-card');
  if (!trump) return null;
  return [...document.querySelectorAll('#players .seat')]
    .filter((s) => meets(box(trump), box(s))).map((s) => s.dataset.seat);
}"""


@pytest.mark.parametrize("players", [3, 4, 5, 6, 7])
def test_the_turned_trump_is_never_under_a_seat_on_a_phone(base: str, browser: Browser, players: int) -> None:
    context = tb.new_context(browser, {"width": 390, "height": 844})
    try:
        page = context.new_page()
        tb.create_table(page, base, "Pia", ["random"] * (players - 1), hand_sizes="3")
        tb.start(page)
        page.locator("#trump-card").wait_for()
        assert page.evaluate(OVERLAPS) == [], players
    finally:
        context.close()
