"""Browser tests of the post-game review (Playwright, Debian's chromium).

A person plays a short match against random bots, follows the end-of-match
link "See what each decision cost" to the replay page, which asks for the
review at once, shows its progress and then the summary of every player
and the review of a decision beside the table; one puzzle is played. The
same record loaded from a file is reviewed from the store at once.

The browser and the skip rule are those of tests/web/test_web_browser.py
(its fixtures are reused); the server is this module's own, whose reviews
think with a tiny budget.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest
import test_web_browser as tb

from ohhell.analysis import Budget

if TYPE_CHECKING:
    from playwright.sync_api import Browser

base = tb.base
browser = tb.browser
no_page_errors = tb.no_page_errors
__all__ = ["base", "browser", "no_page_errors"]  # fixtures, shared

TINY = Budget(simulations=64, price_simulations=32, luck_playouts=2, luck_simulations=16)


@pytest.fixture(scope="module")
def review_base(tmp_path_factory: pytest.TempPathFactory, base: str) -> Iterator[str]:
    """A server of this module's own, with quick reviews."""
    db = tmp_path_factory.mktemp("review") / "r.db"
    app = tb.create_app(
        f"sqlite:///{db}",
        bot_delay=0.02,
        think=0.05,
        limits=tb.Limits(create=None, connects=None),
        review_budget=TINY,
    )
    with tb.serving(app) as address:
        yield address


def test_a_finished_match_is_reviewed_in_the_browser(review_base: str, browser: Browser) -> None:
    context = tb.new_context(browser)
    try:
        page = context.new_page()
        # Random bots bid at random in hands of four and three cards: their
        # costly bids make puzzles.
        tb.create_table(page, review_base, "Ann", ["random", "random", "random"], hand_sizes="4,3")
        tb.start(page)
        page.locator("#hand button.card").first.wait_for()
        tb.play_until_over([page])
        link = page.locator("#review-link")
        assert link.is_visible() and link.inner_text() == "See what each decision cost"
        with page.expect_download() as download:
            page.click("#download-record")
        record = download.value.path()
        link.click()

        # The replay page asks for the review at once and shows it when it is made.
        page.wait_for_url(re.compile(r"/replay\?table=.+&review=1$"))
        summary = page.locator("#review-summary")
        summary.wait_for()
        assert page.locator("#review-ask").is_hidden()
        seats = page.locator("#summary-seats .seat-review")
        assert seats.count() == 4
        mine = page.locator('#summary-seats .seat-review[data-seat="0"]')
        assert mine.locator(".badge.you").count() == 1
        sentence = mine.locator(".sentence").inner_text()
        said = r"You finished (level with|\d+ points? (above|below)) the table's average"
        assert re.match(said, sentence), sentence
        assert "points a decision (lower is better)" in mine.inner_text()
        assert "with the others playing as the expert would play for them" in summary.inner_text()
        assert not re.search(r"\bR-[A-Z]{2,}", summary.inner_text())

        # Beside the table: the decision at each step.
        assert page.locator("#decision").is_visible()
        page.keyboard.press("Home")
        for _ in range(60):
            if page.locator("#decision-verdict .mark").count():
                break
            page.keyboard.press("ArrowRight")
        verdict = page.locator("#decision-verdict").inner_text()
        assert re.search(r"(Good|Inaccuracy|Mistake|Blunder) Hand \d", verdict), verdict
        assert re.search(r"\b(bid|played|named)\b", verdict)
        assert page.locator("#decision-body table.choice-values tbody tr").count() >= 2
        assert "Give or take" in page.locator("#decision-body table.choice-values thead").inner_text()
        if page.locator("#next-marked").is_enabled():
            before = page.inner_text("#frame-label")
            page.keyboard.press("]")  # the next marked decision
            assert page.inner_text("#frame-label") != before
            assert page.locator("#decision-verdict .mark:not(.good)").count() == 1

        # A puzzle: a choice pressed, then said right or not, with the best one.
        puzzles = page.locator("#puzzles")
        assert puzzles.is_visible(), "no puzzle: the random bots made no costly mistake"
        assert page.inner_text("#puzzle-title").startswith("Puzzle 1 of ")
        page.locator("#puzzle-choices .puzzle-choice:enabled").first.click()
        said = page.locator("#puzzle-verdict").inner_text()
        assert re.match(r"(Right|Not the best): ", said), said
        assert "The best is" in said
        assert page.locator("#puzzle-choices .puzzle-choice:enabled").count() == 0
        page.click("#puzzle-show")
        assert page.locator("#decision-verdict .mark:not(.good)").count() == 1
        tb.no_horizontal_scroll(page)

        # The same record from a file: its review is served from the store at once.
        page.goto(f"{review_base}/replay")
        page.set_input_files("#record-file", record)
        page.locator("#review-button:enabled").click()
        page.locator("#review-summary").wait_for()
        assert page.locator("#summary-seats .seat-review .badge.you").count() == 0
        assert page.locator("#summary-seats .seat-review").count() == 4
    finally:
        context.close()


def test_a_watcher_of_a_private_table_is_told_the_review_is_for_its_players(
    review_base: str, browser: Browser
) -> None:
    host, watcher = tb.new_context(browser), tb.new_context(browser)
    try:
        page = host.new_page()
        table = tb.create_table(page, review_base, "Bea", ["random", "random", "random"], hand_sizes="1")
        tb.start(page)
        page.locator("#hand button.card").first.wait_for()
        tb.play_until_over([page])
        other = watcher.new_page()
        other.goto(f"{review_base}/t/{table}")
        other.locator("#standings").wait_for()
        assert other.locator("#review-link").is_hidden()
        # Its record, and so its replay, is its players' too.
        assert other.locator("#download-record").is_hidden() and other.locator("#replay-link").is_hidden()
        other.goto(f"{review_base}/replay?table={table}")
        other.get_by_text("Only the players of this table can download its record").wait_for()
        assert other.locator("#viewer").is_hidden() and other.locator("#review-button").is_hidden()
    finally:
        host.close()
        watcher.close()


@pytest.mark.skipif(
    os.environ.get("OHHELL_SCREENSHOTS") != "1", reason="OHHELL_SCREENSHOTS=1 remakes the PNGs"
)
def test_screenshot(review_base: str, browser: Browser) -> None:
    """docs/screenshots/web-review.png: a blunder beside the table, the summary below."""
    context = tb.new_context(browser)
    try:
        page = context.new_page()
        tb.create_table(page, review_base, "Ann", ["random", "random", "random"], hand_sizes="4,3")
        tb.start(page)
        page.locator("#hand button.card").first.wait_for()
        tb.play_until_over([page])
        page.click("#review-link")
        page.locator("#review-summary").wait_for()
        page.locator("button.jump").first.click()
        page.set_viewport_size({"width": 1280, "height": 1100})
        page.evaluate("window.scrollTo(0, 0)")  # the table and the decision, then the summary
        page.screenshot(path=str(tb.SCREENSHOTS / "web-review.png"))
    finally:
        context.close()
