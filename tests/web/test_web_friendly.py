"""Browser tests of the words the pages show a newcomer (Playwright, Debian's chromium).

The server, the browser and the skip rule are those of tests/web/test_web_browser.py
(its fixtures are reused). Covered: a person who types no name is not
"You you"; bot names are shown whole; the header, the window title and the
home page's "Your tables" name a table for people, never by its id; the
replay of your own match says "You play"; the score sheets' headers show
long names whole; the scorekeeper ranks nobody before a hand is scored, says
how ties break only when there is one, and says what "?" for a trump means.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import test_web_browser as tb

if TYPE_CHECKING:
    from playwright.sync_api import BrowserContext, Page

base = tb.base
browser = tb.browser
context = tb.context
no_page_errors = tb.no_page_errors

CUT = """(sel) => [...document.querySelectorAll(sel)]
  .filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.textContent)"""


def cut(page: Page, selector: str) -> list[str]:
    """The texts of the elements matching `selector` that do not fit their box."""
    return page.evaluate(CUT, selector)  # type: ignore[no-any-return]


def test_play_now_without_a_name(base: str, context: BrowserContext) -> None:
    page = context.new_page()
    page.goto(f"{base}/")
    page.click("#play-now-button")
    page.wait_for_url(re.compile(r"/t/[^/]+$"))
    table = tb.table_id(page)
    page.locator("#hand button.card").first.wait_for()
    me = page.locator("#players .seat.me .who").inner_text()
    assert "You" not in me and me.startswith("Player 1"), me
    names = page.locator("#players .seat .name").all_inner_texts()
    assert len(names) == 4 and not any("(" in n or "…" in n for n in names), names
    assert cut(page, "#players .seat .name") == []
    assert table not in page.inner_text("header") and table not in page.title()
    assert "Player 1's table" in page.title()
    page.goto(f"{base}/")
    entry = page.locator("#my-table-list li a", has_text="Player 1's table")
    entry.wait_for()
    assert table not in entry.inner_text()


def test_the_replay_of_your_match_says_you(base: str, context: BrowserContext) -> None:
    page = context.new_page()
    tb.create_table(page, base, "Bartholomew Fitzgerald", ["random", "random", "random"], hand_sizes="2")
    tb.start(page)
    tb.play_until_over([page])
    # The sheet's header shows the long name whole.
    page.locator("#scores table.sheet").wait_for()
    assert cut(page, "#scores table.sheet thead th") == []
    assert "Bartholomew Fitzgerald" in page.locator("#scores table.sheet thead").inner_text()
    page.click("#replay-link")
    page.locator("#viewer").wait_for()
    page.keyboard.press("Home")
    labels = []
    total = int(page.inner_text("#frame-label").split(" / ")[1].split()[0])
    for _ in range(total):
        labels.append(page.inner_text("#frame-label"))
        page.keyboard.press("ArrowRight")
    text = "\n".join(labels)
    assert "You play " in text and "You bid " in text, text
    assert not re.search(r"\bYou (plays|bids|wins|deals)\b", text), text
    assert "Bartholomew Fitzgerald plays" not in text


def api_sheet(page: Page, base: str, names: list[str]) -> dict[str, Any]:
    made = page.request.post(
        f"{base}/api/scores", data={"players": names, "first_dealer": 0, "preset": "pagat"}
    )
    assert made.ok, made.text()
    return made.json()  # type: ignore[no-any-return]


def enter(page: Page, base: str, sheet: dict[str, Any], bids: list[int], tricks: list[int]) -> dict[str, Any]:
    """One hand through the API: the bids in the order the sheet asks, then the tricks."""
    url = f"{base}/api/scores/{sheet['id']}"
    current = page.request.get(url).json()["current"]
    for seat in current["bidding_order"]:
        done = page.request.post(
            f"{url}/entry",
            data={"edit_token": sheet["edit_token"], "op": "bid", "seat": seat, "bid": bids[seat]},
        )
        assert done.ok, done.text()
    done = page.request.post(
        f"{url}/entry", data={"edit_token": sheet["edit_token"], "op": "tricks", "tricks": tricks}
    )
    assert done.ok, done.text()
    return done.json()  # type: ignore[no-any-return]


def test_the_score_sheet_words(base: str, context: BrowserContext) -> None:
    page = context.new_page()
    names = ["Maximiliana Wolfenstein", "Bartholomew Fitzgerald", "Cid", "Dee"]
    sheet = api_sheet(page, base, names)
    page.goto(f"{base}/score/{sheet['id']}")
    page.locator("#standings").wait_for()
    # No places before a hand is scored.
    assert "No hand has been scored yet" in page.inner_text("#standings")
    assert page.locator("#standings table").count() == 0
    # Seats 0 and 1 bid and take the same: a tie, and the note says how it breaks.
    answer = enter(page, base, sheet, [3, 3, 2, 1], [3, 3, 2, 2])
    assert answer["totals"][0] == answer["totals"][1]
    page.reload()
    page.locator("#standings table").wait_for()
    assert page.locator("#standings .tie-note").count() == 1
    # The headers show the long names whole.
    assert cut(page, "#sheet table.sheet thead th") == []
    assert "Maximiliana Wolfenstein" in page.locator("#sheet thead").inner_text()
    # The turned card was not noted: "?" says what it means.
    unnoted = page.locator("#sheet .unnoted").first
    assert unnoted.inner_text() == "?" and unnoted.get_attribute("title") == "trump not noted"
    assert "? in the hand column: trump not noted" in page.inner_text("#sheet caption")

    other = api_sheet(page, base, ["Ann", "Bob", "Cid", "Dee"])
    answer = enter(page, base, other, [3, 2, 1, 0], [3, 2, 1, 4])
    assert len(set(answer["totals"])) == 4
    page.goto(f"{base}/score/{other['id']}")
    page.locator("#standings table").wait_for()
    assert page.locator("#standings .tie-note").count() == 0  # no tie, no note


def test_the_pages_start_from_the_same_rules(base: str, context: BrowserContext) -> None:
    """ "Play now", the new-table form and the scorekeeper's setup name the same default rules."""
    page = context.new_page()
    default = page.request.get(f"{base}/api/options").json()["default_preset"]
    page.goto(f"{base}/")
    page.locator("#nt-seat-list select").first.wait_for()
    titles = page.request.get(f"{base}/api/options").json()["preset_titles"]
    assert page.inner_text("#pn-rules") == titles[default]  # the rule set's name for people
    assert page.locator("#nt-preset-list input:checked").get_attribute("value") == default
    page.goto(f"{base}/score")
    page.locator('#sc-players input[data-seat="3"]').wait_for()
    assert page.input_value("#sc-preset") == default
