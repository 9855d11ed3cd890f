"""Browser tests of the keyboard and screen readers at the table (Playwright, Debian's chromium).

The server, the browser and the skip rule are those of tests/web/test_web_browser.py
(its fixtures are reused). A whole hand is played with the keyboard alone
(digits to bid, k to keep a bid, arrows and Enter to play); the polite live
region (#announce) is recorded all along and must have said whose turn it
was, who won the tricks and how the hand went; trump cards are labelled as
trump; the hand can be browsed with Tab when it is not your turn; the page
lists its keys.
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Any

import test_web_browser as tb

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

base = tb.base
browser = tb.browser
context = tb.context
no_page_errors = tb.no_page_errors

HEARD = """() => {
  window.heard = [];
  const box = document.querySelector('#announce');
  new MutationObserver(() => window.heard.push(box.textContent.replace(/\\u200b/g, '')))
    .observe(box, { childList: true, characterData: true, subtree: true });
}"""

LABELS = """() => {
  const pairs = (sel) => [...document.querySelectorAll(sel)]
    .map((c) => [c.dataset.card, c.getAttribute('aria-label')]);
  return {
    trump: (document.querySelector('#trump-card .card') || { dataset: {} }).dataset.card || null,
    hand: pairs('#hand button.card'),
    table: pairs('#trick .card'),
  };
}"""


def check_trump_labels(page: Page) -> int:
    """Every card shown is labelled ", trump" exactly when it is of the turned
    card's suit (R-TRUMP-TURN); returns how many trump cards were seen."""
    shown = page.evaluate(LABELS)
    if not shown["trump"]:
        return 0
    suit = shown["trump"][-1]
    seen = 0
    for card, label in shown["hand"] + shown["table"]:
        if card == "hidden":
            continue
        assert label.endswith(", trump") == (card[-1] == suit), (card, label, suit)
        seen += card[-1] == suit
    return seen


def test_a_whole_hand_by_keyboard_with_announcements(base: str, context: BrowserContext) -> None:
    page = context.new_page()
    tb.create_table(page, base, "Kay", ["random", "random", "random"], hand_sizes="4")
    page.evaluate(HEARD)
    page.locator("#start-button:enabled").focus()
    page.keyboard.press("Enter")
    page.locator("#game").wait_for()
    plays = bids = 0
    deadline = time.monotonic() + 45
    while True:
        assert time.monotonic() < deadline, tb.snapshot(page)
        snap = tb.snapshot(page)
        if snap["over"]:
            break
        check_trump_labels(page)
        if snap["keep"]:
            page.keyboard.press("k")
            tb.wait_for(page, lambda s: not s["keep"], "the bid kept")
        elif snap["bids"]:
            page.keyboard.press(snap["bids"][0])  # hand of 4: one digit
            bids += 1
            tb.wait_for(page, lambda s: not s["bids"] or s["keep"], "the bid taken")
        elif snap["cards"]:
            page.keyboard.press("ArrowRight")
            focused = page.evaluate("() => document.activeElement.dataset.card")
            assert focused in snap["cards"], (focused, snap)
            page.keyboard.press("Enter")
            tb.wait_for(page, lambda s, f=focused: f not in s["hand"], f"{focused} played by Enter")
            plays += 1
        else:
            page.wait_for_timeout(30)
    assert bids == 1 and plays == 4
    heard: list[str] = page.evaluate("() => window.heard")
    text = " | ".join(heard)
    assert "Your turn to bid." in text and "Your turn to play." in text, text
    assert "the trick with the" in text, text  # "Bruno wins the trick with the queen of spades."
    assert "Hand 1 over." in text, text
    # The hand's start is told once: "Hand 1 of 1: 4 cards, Bruno deals, trump clubs."
    openings = [
        m.group(0)
        for h in heard
        for m in re.finditer(r"Hand 1 of 1: 4 cards, (\w+ deals|you deal), [^.|]+\.", h)
    ]
    assert len(openings) == 1, heard
    # The others' turns are told too ("Ada to play.").
    assert any(re.search(r"(^|\. )(?!Your turn)[A-Z][a-z]+ to (bid|play)\.", h) for h in heard), heard
    # Every bid and every card of the hand is read out, with who made it:
    # "Bruno bids 2.", "You bid 1.", "Chloe plays the queen of hearts."
    bid_words = [m.group(1) for h in heard for m in re.finditer(r"(\w+) bids? \d+\.", h)]
    assert sorted(bid_words) == sorted(["You", *tb_names(page)]), heard
    played = [m.group(0) for h in heard for m in re.finditer(r"\w+ plays? the [\w ]+ of \w+\.", h)]
    assert len(played) == 4 * 4, heard  # 4 tricks of 4 cards


def tb_names(page: Page) -> list[str]:
    """The other players' names, as the seat regions give them."""
    labels = page.locator("#players .seat[role=region]").evaluate_all(
        "(seats) => seats.map((s) => s.getAttribute('aria-label'))"
    )
    return [label.split(":")[0].removesuffix(", bot") for label in labels if "(you)" not in label]


def test_each_seat_is_a_labelled_region(base: str, context: BrowserContext) -> None:
    page = context.new_page()
    tb.create_table(page, base, "Lee", ["random", "random", "random"], hand_sizes="4")
    tb.start(page)
    page.locator("#hand button.card").first.wait_for()
    labels = page.locator("#players .seat").evaluate_all(
        "(seats) => seats.map((s) => [s.getAttribute('role'), s.getAttribute('aria-label')])"
    )
    assert len(labels) == 4 and all(role == "region" for role, _ in labels), labels
    mine = [label for _, label in labels if label.startswith("Lee (you):")]
    assert len(mine) == 1, labels
    for _, label in labels:
        # name, then what the panel shows: bid, tricks taken, points, and the dealer
        assert re.search(r": (bid \d+|no bid yet|bid placed, sealed), took \d+, -?\d+ points?", label), label
    assert sum("deals" in label for _, label in labels) == 1, labels
    assert sum(", bot:" in label for _, label in labels) == 3, labels
    assert page.locator("#players .dealer-chip").inner_text() == "dealer"  # a word, not a bare letter


def test_the_hand_is_browsable_with_tab_when_it_is_not_your_turn(base: str, context: BrowserContext) -> None:
    page = context.new_page()
    tb.create_table(page, base, "Lu", ["random", "random", "random"], hand_sizes="5")
    tb.start(page)
    snap = tb.wait_for(page, lambda s: bool(s["bids"]) and not s["keep"], "my turn to bid")
    assert snap["cards"] == []  # bidding: no card can be played...
    last_bid = page.locator("#bids button[data-bid]").last
    last_bid.focus()
    page.keyboard.press("Tab")  # ...but Tab reaches the hand
    first: dict[str, Any] = page.evaluate(
        """() => {
          const e = document.activeElement;
          const label = e.getAttribute('aria-label');
          return { card: e.dataset.card, off: e.getAttribute('aria-disabled'), label };
        }"""
    )
    assert first["card"] in snap["hand"] and first["off"] == "true", first
    page.keyboard.press("Tab")
    second = page.evaluate("() => document.activeElement.dataset.card")
    assert second in snap["hand"] and second != first["card"]
    page.keyboard.press("Enter")  # not playable now: the page says so, nothing is sent
    page.locator("#error", has_text="cannot play a card now").wait_for()
    assert sorted(tb.snapshot(page)["hand"]) == sorted(snap["hand"])
    check_trump_labels(page)


def test_the_page_lists_its_keys(base: str, context: BrowserContext) -> None:
    page = context.new_page()
    page.goto(f"{base}/")
    page.click("#play-now-button")
    page.locator("#hand button.card").first.wait_for()
    keys = page.locator("#keys")
    assert keys.locator("summary").is_visible()
    assert keys.get_attribute("open") is None
    page.keyboard.press("?")
    page.locator("#keys[open]").wait_for()
    listed = keys.inner_text()
    for key in ("0–9", "Enter", "Tab", "h", "l", "s", "c", "m", "k"):
        assert f"\n{key}" in "\n" + listed or key in listed, key
    for button, key in (
        ("#hint-button", "h"),
        ("#last-button", "l"),
        ("#scores-button", "s"),
        ("#sound-button", "m"),
    ):
        assert page.get_attribute(button, "aria-keyshortcuts") == key
    assert page.get_attribute("#announce", "aria-live") == "polite"
