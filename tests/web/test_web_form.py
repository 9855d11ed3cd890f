"""Browser test of the new-table form (Playwright, Debian's chromium).

The server, the browser and the skip rule are those of tests/web/test_web_browser.py
(its fixtures are reused). The presets come first, each with a line saying
what it plays; the rule options are folded under "More rules", each with a
name in plain words and a help line; seats are numbered from 1 in the form
as on the table; a refusal is shown next to the field it is about (or
beside the button when no one field is wrong), never over the button.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import test_web_browser as tb

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

base = tb.base
browser = tb.browser
context = tb.context
no_page_errors = tb.no_page_errors


def open_form(page: Page, base: str) -> None:
    page.goto(f"{base}/")
    page.locator("#nt-seat-list select").first.wait_for()
    page.fill("#nt-name", "Ann")


def test_presets_first_and_the_rules_folded(base: str, context: BrowserContext) -> None:
    page = context.new_page()
    open_form(page, base)
    order = page.evaluate(
        """() => [...document.querySelectorAll('#new-table-form > *')].map((e) => e.id || e.className)"""
    )
    assert order.index("nt-presets") < order.index("nt-options-box"), order
    presets = page.locator("#nt-preset-list .preset-choice")
    assert presets.count() >= 5
    for i in range(presets.count()):
        line = presets.nth(i).locator(".preset-line").inner_text()
        assert len(line) > 20 and "\n" not in line, line
    assert "19 hands" in page.locator(".preset-choice", has_text="Pagat's rules").first.inner_text()
    # "More rules" is folded, and every option in it has a plain name and help.
    assert page.get_attribute("#nt-options-box", "open") is None
    assert not page.locator("#opt-hook").is_visible()
    page.click("#nt-options-box summary")
    rows = page.locator("#nt-options .option")
    assert rows.count() == 18  # every rule option but the number of players, chosen above
    for i in range(rows.count()):
        row = rows.nth(i)
        label = row.locator("label").inner_text()
        assert label[0].isupper() and "-" not in label, label  # "Bids may be changed", not "bid-changes"
        assert len(row.locator("small.muted").inner_text()) > 10
    # Choosing a preset fills the options from it.
    page.check("#nt-preset-common")
    assert page.input_value("#opt-scoring") == "tricks-bonus"
    assert "1 a trick" in page.locator("#opt-scoring option[value='tricks-bonus']").inner_text()


def test_seats_are_numbered_from_one(base: str, context: BrowserContext) -> None:
    page = context.new_page()
    open_form(page, base)
    page.click("#nt-options-box summary")
    dealers = page.locator("#opt-first-dealer option:not([hidden])").all_inner_texts()
    assert dealers[0].startswith("draw") and dealers[1:] == ["Seat 1", "Seat 2", "Seat 3", "Seat 4"]
    page.select_option("#nt-players", "3")
    assert page.locator("#opt-first-dealer option:not([hidden])").count() == 4  # draw and 3 seats
    page.select_option("#nt-players", "4")
    page.select_option("#opt-first-dealer", label="Seat 2")
    page.fill("#opt-teams", "1+3,2+4")
    page.click("#new-table-button")
    page.wait_for_url(re.compile(r"/t/[^/]+$"))
    rules = page.request.get(f"{base}/api/tables/{tb.table_id(page)}").json()["rules"]
    assert rules["first-dealer"] == "1" and rules["teams"] == "0+2,1+3"


def test_errors_are_shown_next_to_their_field(base: str, context: BrowserContext) -> None:
    page = context.new_page()
    open_form(page, base)
    page.fill("#nt-clock", "30")
    page.click("#nt-options-box summary")
    page.fill("#opt-hand-sizes", "30")  # more cards than the pack holds for four
    page.click("#nt-options-box summary")  # folded again: the error opens it
    page.click("#new-table-button")
    error = page.locator("#opt-hand-sizes-error")
    error.wait_for()
    assert error.inner_text() and page.get_attribute("#opt-hand-sizes", "aria-invalid") == "true"
    assert page.get_attribute("#nt-options-box", "open") is not None
    assert page.evaluate("() => document.activeElement.id") == "opt-hand-sizes"
    assert page.locator("#error").is_hidden() and page.locator("#nt-form-error").is_hidden()
    assert page.url == f"{base}/"
    # Typing again clears it; a rule that only a combination breaks is said beside the button.
    page.fill("#opt-hand-sizes", "3,2")
    assert page.locator("#opt-hand-sizes-error").is_hidden()
    page.select_option("#opt-devils-bridge", "yes")  # needs a hand of 1 card, which 3,2 lacks
    page.click("#new-table-button")
    beside = page.locator("#nt-form-error")
    beside.wait_for()
    assert beside.inner_text() and page.locator("#error").is_hidden()
    assert page.locator("#new-table-form .field-error:not([hidden])").count() == 1
