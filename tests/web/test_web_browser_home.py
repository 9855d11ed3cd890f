"""Browser tests of the home page and the chat box as a newcomer meets them
(Playwright, Debian's chromium): presets by their names, "More rules" in
plain sentences with only the options that apply, Join asking for a name, a
blank name refused, any whole number of seconds on the clock, and a chat
line that is never lost (too fast, too long).

The server, the browser and the skip rule are those of tests/web/test_web_browser.py
(its fixtures are reused).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import test_web_browser as tb

from ohhell import PRESET_TITLES

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

base = tb.base
browser = tb.browser
context = tb.context
no_page_errors = tb.no_page_errors


def open_home(page: Page, base: str) -> None:
    page.goto(f"{base}/")
    page.locator("#nt-seat-list select").first.wait_for()


def test_presets_are_shown_by_their_names(base: str, context: BrowserContext) -> None:
    page = context.new_page()
    open_home(page, base)
    names = page.locator("#nt-preset-list .preset-name").all_inner_texts()
    assert names == list(PRESET_TITLES.values())
    assert "Pagat's rules" in page.inner_text("#pn-rules")
    # The ids stay the radios' values: what the form sends.
    assert page.get_attribute("#nt-preset-list input:checked", "value") in PRESET_TITLES


def test_more_rules_shows_only_what_applies_in_plain_words(base: str, context: BrowserContext) -> None:
    page = context.new_page()
    open_home(page, base)
    page.click("#nt-options-box summary")
    rotation = page.locator('#nt-options .option[data-option="trump-rotation"]')
    suit = page.locator('#nt-options .option[data-option="trump-suit"]')
    fixed_hands = page.locator('#nt-options .option[data-option="fixed-hands"]')
    assert rotation.is_hidden() and suit.is_hidden() and fixed_hands.is_hidden()
    page.select_option("#opt-trump", "rotate")
    assert rotation.is_visible() and suit.is_hidden()
    page.select_option("#opt-trump", "fixed")
    assert suit.is_visible() and rotation.is_hidden()
    page.select_option("#opt-sequence", "fixed")
    assert fixed_hands.is_visible()
    # A list of hand sizes replaces the run of sizes: its options go.
    page.fill("#opt-hand-sizes", "3,2,1")
    for name in ("sequence", "start-cards", "fixed-hands"):
        assert page.locator(f'#nt-options .option[data-option="{name}"]').is_hidden(), name
    page.fill("#opt-hand-sizes", "")
    assert page.locator('#nt-options .option[data-option="sequence"]').is_visible()
    # Help lines: one sentence each, no option ids, no list of the choices.
    ids = page.evaluate(
        "() => [...document.querySelectorAll('#nt-options .option')].map((o) => o.dataset.option)"
    )
    for text in page.locator("#nt-options .option small.muted").all_inner_texts():
        assert text.endswith(".") and text.count(". ") == 0, text
        assert not [i for i in ids if "-" in i and i in text], text
        assert "one of" not in text, text
    # Every list is as wide as its longest choice's words.
    cut = page.evaluate(
        """() => {
          const ctx = document.createElement('canvas').getContext('2d');
          const out = [];
          for (const select of document.querySelectorAll('#nt-options select')) {
            if (!select.offsetParent) continue;
            ctx.font = getComputedStyle(select).font;
            const widest = Math.max(...[...select.options].filter((o) => !o.hidden)
              .map((o) => ctx.measureText(o.text).width));
            if (widest + 24 > select.clientWidth) out.push([select.id, widest, select.clientWidth]);
          }
          return out;
        }"""
    )
    assert not cut, cut


def test_join_asks_for_a_name(base: str, context: BrowserContext) -> None:
    page = context.new_page()
    made = page.request.post(
        f"{base}/api/tables", data={"name": "Ann", "seats": ["human"] * 4, "public": True}
    ).json()
    open_home(page, base)
    page.evaluate("() => localStorage.setItem('ohhell-name', 'Zoe')")
    page.reload()
    page.fill("#pn-name", "")
    entry = page.locator(f'#open-table-list li[data-table="{made["table"]}"]')
    entry.get_by_role("button", name="Join Ann's table").click()
    name = entry.locator("input.join-name")
    assert name.input_value() == "Zoe"  # the name used last
    page.wait_for_timeout(5500)  # the list is read again meanwhile: the prompt stays
    assert name.is_visible()
    name.fill("  ")
    entry.locator(".join-sit").click()
    assert "name" in entry.locator(".field-error").inner_text()
    assert page.url == f"{base}/"
    name.fill("Bob")
    entry.locator(".join-sit").click()
    page.wait_for_url(re.compile(rf"/t/{re.escape(made['table'])}$"))
    seats = page.request.get(f"{base}/api/tables/{made['table']}").json()["seats"]
    assert [s["name"] for s in seats if s["kind"] == "human"] == ["Ann", "Bob"]


def test_a_blank_name_is_refused_and_the_clock_takes_any_second(base: str, context: BrowserContext) -> None:
    page = context.new_page()
    open_home(page, base)
    page.fill("#nt-clock", "12")
    assert page.evaluate("() => document.querySelector('#nt-clock').checkValidity()")
    page.fill("#nt-name", "   ")
    page.click("#new-table-button")
    error = page.locator("#nt-name-error")
    error.wait_for()
    assert "name" in error.inner_text().lower()
    assert page.url == f"{base}/"
    page.fill("#nt-name", "Ann")
    page.click("#new-table-button")
    page.wait_for_url(re.compile(r"/t/[^/]+$"))
    public = page.request.get(f"{base}/api/tables/{tb.table_id(page)}").json()
    assert public["clock"] == 12 and public["title"] == "Ann's table"


def test_a_chat_line_is_never_lost(base: str, context: BrowserContext) -> None:
    page = context.new_page()
    page.goto(f"{base}/")
    page.click("#play-now-button")
    page.wait_for_url(re.compile(r"/t/[^/]+$"))
    page.locator('#conn[data-state="open"]').wait_for()
    box = page.locator("#chat-input")
    # Too long: nothing is cut; the counter says by how much, and Send waits.
    box.fill("x" * 210)
    assert len(box.input_value()) == 210
    assert "10 too many" in page.inner_text("#chat-count")
    assert page.locator("#chat-send").is_disabled()
    # Too fast: the refused line stays in the box, and the page says when it can go.
    for i in range(5):
        box.fill(f"line {i}")
        page.click("#chat-send")
        page.locator("#chat-log li .text", has_text=f"line {i}").wait_for()
        page.wait_for_function("() => document.querySelector('#chat-input').value === ''")
    box.fill("one more")
    page.click("#chat-send")
    page.locator("#error", has_text="kept").wait_for()
    assert "second" in page.inner_text("#error")
    assert box.input_value() == "one more"


def test_the_learned_level_is_offered_only_for_the_rules_it_was_trained_for(
    base: str, context: BrowserContext
) -> None:
    page = context.new_page()
    open_home(page, base)
    page.locator("#nt-seat-list select").first.wait_for()
    offered = "(s) => [...s.options].filter((o) => !o.disabled).map((o) => o.value)"
    assert "learned" in page.locator("#seat-kind-1").evaluate(offered)  # Pagat's rules, 4 players
    page.select_option("#seat-kind-1", "learned")
    page.check("#nt-preset-classic-tens")
    assert "learned" not in page.locator("#seat-kind-1").evaluate(offered)
    assert page.input_value("#seat-kind-1") == "intermediate"  # moved off the level no longer offered
    page.check("#nt-preset-pagat")
    page.select_option("#nt-players", "3")
    assert "learned" not in page.locator("#seat-kind-1").evaluate(offered)
    page.select_option("#nt-players", "4")
    assert "learned" in page.locator("#seat-kind-1").evaluate(offered)
