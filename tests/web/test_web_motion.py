"""Browser tests of sound and motion at the table (Playwright, Debian's chromium).

The server, the browser and the skip rule are those of tests/web/test_web_browser.py
(its fixtures are reused). Sounds are off until the player turns them on
(the button or the m key), and the choice is remembered; the page's tone
counter (the button's data-played and data-last) tells that a tone was
played for your turn and for a trick won, without a loudspeaker. A finished
trick's cards slide to the winner's seat (the CSS animation "collect"),
except under prefers-reduced-motion, where they stay where they are.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import test_web_browser as tb

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page

base = tb.base
browser = tb.browser
no_page_errors = tb.no_page_errors

FINISHED = """() => [...document.querySelectorAll('#trick[data-kind="finished"] .played')].map((p) => ({
  animation: getComputedStyle(p).animationName,
  opacity: getComputedStyle(p).opacity,
  collect: p.classList.contains('collect'),
  dx: p.style.getPropertyValue('--dx'),
}))"""


def context_with(browser: Browser, **options: Any) -> BrowserContext:
    context = browser.new_context(viewport=tb.DESKTOP, **options)  # type: ignore[arg-type]
    context.set_default_timeout(15_000)
    context.on("weberror", lambda error: tb.PAGE_ERRORS.append(str(error.error)))
    return context


def play_to_a_finished_trick(page: Page) -> list[dict[str, Any]]:
    """Play (by clicks) until the table shows a finished trick; its cards' styles."""
    deadline = time.monotonic() + 30
    while True:
        assert time.monotonic() < deadline, tb.snapshot(page)
        shown = page.evaluate(FINISHED)
        if shown:
            return shown  # type: ignore[no-any-return]
        snap = tb.snapshot(page)
        assert not snap["over"]
        if not tb.step(page, snap):
            page.wait_for_timeout(20)


def test_a_finished_trick_slides_to_its_winner(base: str, browser: Browser) -> None:
    context = context_with(browser)
    try:
        page = context.new_page()
        # One-card hands: every trick ends a hand, and stays on the table a moment.
        tb.create_table(page, base, "Ann", ["random", "random", "random"], hand_sizes="1,1,1")
        tb.start(page)
        cards = play_to_a_finished_trick(page)
        assert len(cards) == 4
        assert all(c["collect"] and c["animation"] == "collect" for c in cards), cards
        assert all(c["dx"].endswith("px") for c in cards), cards
    finally:
        context.close()


def test_reduced_motion_keeps_the_cards_still(base: str, browser: Browser) -> None:
    context = context_with(browser, reduced_motion="reduce")
    try:
        page = context.new_page()
        tb.create_table(page, base, "Ann", ["random", "random", "random"], hand_sizes="1,1,1")
        tb.start(page)
        cards = play_to_a_finished_trick(page)
        assert len(cards) == 4
        # No animation: the cards stay, the winner's in full, the others dimmed as before.
        assert all(c["animation"] == "none" and float(c["opacity"]) >= 0.5 for c in cards), cards
    finally:
        context.close()


def tones(page: Page) -> tuple[int, str | None]:
    button = page.locator("#sound-button")
    return int(button.get_attribute("data-played") or 0), button.get_attribute("data-last")


def test_sounds_are_off_until_turned_on_and_remembered(base: str, browser: Browser) -> None:
    context = context_with(browser)
    try:
        page = context.new_page()
        tb.create_table(page, base, "Ann", ["random", "random", "random"], hand_sizes="2,2,2")
        tb.start(page)
        button = page.locator("#sound-button")
        assert button.get_attribute("aria-pressed") == "false" and "off" in button.inner_text()
        # A whole hand without sound: my turns and the tricks play no tone.
        tb.wait_for(page, lambda s: bool(s["bids"]) or s["keep"], "my first bid")
        for _ in range(200):
            snap = tb.snapshot(page)
            if tb.hand_number(snap) == 1 or snap["over"]:
                break
            if not tb.step(page, snap):
                page.wait_for_timeout(30)
        assert tones(page) == (0, None)
        page.keyboard.press("m")  # on: it says so with a tone
        assert button.get_attribute("aria-pressed") == "true" and "on" in button.inner_text()
        assert tones(page)[0] >= 1
        # Play on: my turn and the tricks won now sound.
        heard: set[str] = set()
        deadline = time.monotonic() + 30
        while not {"turn", "trick"} <= heard and not ({"turn", "won"} <= heard):
            assert time.monotonic() < deadline, heard
            snap = tb.snapshot(page)
            count, last = tones(page)
            if count > 1 and last:
                heard.add(last)
            if snap["over"]:
                break
            if not tb.step(page, snap):
                page.wait_for_timeout(20)
        assert "turn" in heard and heard & {"trick", "won"}, heard
        page.reload()  # remembered
        page.locator("#sound-button[aria-pressed='true']").wait_for()
        assert page.evaluate("() => localStorage.getItem('ohhell-sound')") == "on"
        page.click("#sound-button")
        assert page.evaluate("() => localStorage.getItem('ohhell-sound')") == "off"
    finally:
        context.close()
