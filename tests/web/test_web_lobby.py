"""Browser test of the open tables on the home page (Playwright, Debian's chromium).

The server, the browser and the skip rule are those of tests/web/test_web_browser.py
(its fixtures are reused). A host makes a public table with the home page's
form ("List it here"); a second person sees it on the home page with its
rules, its free seats and who sits there, and joins it with one click; a
private table made meanwhile is never shown; a full table leaves the list.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import test_web_browser as tb

if TYPE_CHECKING:
    from playwright.sync_api import Browser

base = tb.base
browser = tb.browser
no_page_errors = tb.no_page_errors


def test_a_public_table_is_joined_from_the_home_page(base: str, browser: Browser) -> None:
    host = tb.new_context(browser)
    guest = tb.new_context(browser)
    try:
        a = host.new_page()
        a.goto(f"{base}/")
        a.locator("#nt-seat-list select").first.wait_for()
        a.fill("#nt-name", "Ann")
        a.select_option("#seat-kind-1", "human")
        a.select_option("#seat-kind-2", "human")
        a.select_option("#seat-kind-3", "random")
        a.check("#nt-public")
        a.click("#new-table-button")
        a.wait_for_url(re.compile(r"/t/[^/]+$"))
        a.locator("#host-controls").wait_for()
        table = tb.table_id(a)
        note = a.inner_text("#lobby-note")
        assert "listed on the home page" in note and "Start is possible" in note, note
        private = a.request.post(f"{base}/api/tables", data={"name": "Pat", "seats": ["human"] * 4}).json()

        b = guest.new_page()
        b.goto(f"{base}/")
        entry = b.locator(f'#open-table-list li[data-table="{table}"]')
        entry.wait_for()
        text = entry.inner_text()
        assert "Ann's table" in text and "Pagat's rules" in text
        assert "2 of 4 seats free" in text and "Ann" in text and "(bot)" in text
        assert b.locator(f'#open-table-list li[data-table="{private["table"]}"]').count() == 0
        assert table not in text  # a name for people, not the id
        b.fill("#pn-name", "Bob")
        entry.get_by_role("button", name="Join Ann's table").click()
        entry.locator(".join-sit").click()  # the name asked for, filled in with the one typed
        b.wait_for_url(re.compile(rf"/t/{re.escape(table)}$"))
        b.locator("#lobby-seats li[data-seat='1'] .badge.you").wait_for()
        assert "Bob" in b.inner_text("#lobby-seats li[data-seat='1']")
        a.locator("#lobby-seats li[data-seat='1']", has_text="Bob").wait_for()

        # One seat left: still listed, with one free; then full and gone.
        b.goto(f"{base}/")
        b.locator(f'#open-table-list li[data-table="{table}"]', has_text="1 of 4 seats free").wait_for()
        a.click("#fill-button")
        b.reload()
        b.locator("#open-tables-title").wait_for()
        b.wait_for_function(
            '(t) => !document.querySelector(`#open-table-list li[data-table="${t}"]`)', arg=table
        )
    finally:
        host.close()
        guest.close()
