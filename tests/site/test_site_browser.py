"""The offline site in Chromium, served by a plain static file server, as a
newcomer uses it on a phone: load it once, cut the network, and play Play
now to the final standings pressing only bids and cards; close the tab in
the middle of a match and find it again; keep the score of three hands of a
real table and save the record, which ``ohhell score`` reads.

Needs the Pyodide runtime (``npm ci``), playwright and /usr/bin/chromium;
skips saying which is missing unless OHHELL_TEST_SITE=1 (CI) or
OHHELL_TEST_BROWSER=1 make that a failure.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import test_web_browser as tb  # the browser and the skip rule
import test_web_browser_newcomer as nc  # what a newcomer presses

from ohhell.web.local.site import SiteError, SiteFiles, build, pyodide_folder

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page

PAUSE = 0.02  # seconds a bot waits before its move here (0.6 on the site by default)
MATCH_LIMIT = 420  # seconds for a whole default match (19 hands) under Pyodide
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if tb.MISSING:
        pytest.fail(f"OHHELL_TEST_BROWSER=1 but {tb.MISSING}", pytrace=False)
    try:
        runtime = pyodide_folder()
    except SiteError as err:
        if os.environ.get("OHHELL_TEST_SITE") == "1":
            pytest.fail(f"OHHELL_TEST_SITE=1 but {err}", pytrace=False)
        pytest.skip(f"no Pyodide runtime to build the site with ({err})")
    folder = tmp_path_factory.mktemp("site")
    build(folder, runtime)
    files = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(SiteFiles, directory=str(folder))
    )
    threading.Thread(target=files.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{files.server_address[1]}/"
    finally:
        files.shutdown()
        files.server_close()


@pytest.fixture(scope="module")
def browser(site: str) -> Iterator[Browser]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=tb.CHROMIUM, args=tb.CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


ERRORS: list[str] = []

# Every message the page sends to its table, kept in the page (nc.sent reads
# it): on the site they go to the worker, not on a WebSocket.
RECORD_SENT = """(() => {
  const post = Worker.prototype.postMessage;
  window.sent = [];
  Worker.prototype.postMessage = function (message, ...rest) {
    if (message && message.kind === "send") {
      try { window.sent.push(JSON.parse(message.data)); } catch (e) { /* not JSON */ }
    }
    return post.call(this, message, ...rest);
  };
})();"""


def phone(browser: Browser) -> BrowserContext:
    """A phone-sized browser whose bots wait only ``PAUSE`` before moving."""
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True, accept_downloads=True)
    context.set_default_timeout(60_000)  # the first start of Pyodide on a loaded machine
    context.on("weberror", lambda error: ERRORS.append(str(error.error)))
    # (try: a document without storage, such as a download's, runs it too)
    context.add_init_script(f"try {{ localStorage.setItem('ohhell-bot-pause', '{PAUSE}'); }} catch {{}}")
    context.add_init_script(RECORD_SENT)
    return context


def cached(page: Page, base: str) -> None:
    """Open the site once and wait until its service worker holds every file."""
    page.goto(base)
    page.wait_for_function(
        "() => navigator.serviceWorker.controller !== null || navigator.serviceWorker.ready"
    )
    page.evaluate("async () => { await navigator.serviceWorker.ready; }")
    # The worker's install fills the cache before it is ready; check it is all there.
    listed = page.evaluate(
        """async () => {
      const keys = await caches.keys();
      const cache = await caches.open(keys.find((k) => k.startsWith("ohhell-site-")));
      return (await cache.keys()).length;
    }"""
    )
    assert listed > 30, listed


PROGRESS = """() => [document.querySelector("#log li:last-child")?.textContent,
  document.querySelector("#info").textContent, document.querySelector("#status").textContent]"""


def play_page_to_the_end(page: Page, limit: float = MATCH_LIMIT) -> None:
    """Answer what the page requires (a bid, trump, a card) until it shows the
    final standings; fails if the page shows no new move for 60 s."""
    start = last = time.monotonic()
    seen = None
    while True:
        # The log keeps its last 300 lines: its last line, with the hand and
        # the prompt, says whether the table moved.
        moves = page.evaluate(PROGRESS)
        now = time.monotonic()
        if moves != seen:
            seen, last = moves, now
        assert now - last < 60, f"no move for 60 s: {page.evaluate(nc.ASKED)}"
        assert now - start < limit, f"the match did not end in {limit} s"
        what = nc.answer(page)
        if what == "over":
            return
        if what is None:
            page.wait_for_timeout(30)


def test_play_now_offline_on_a_phone_to_the_final_standings(
    site: str, browser: Browser, tmp_path: Path
) -> None:
    ERRORS.clear()
    context = phone(browser)
    page = context.new_page()
    cached(page, site)
    context.set_offline(True)  # from here on, nothing comes from the network
    page.reload()
    page.click("#play-now-button")  # no name typed, no option changed
    page.wait_for_url(re.compile(r"table\.html\?t=[\w-]+$"))
    page.locator("#hand button.card").first.wait_for()
    play_page_to_the_end(page)
    done = nc.sent(page)
    assert done.get("bid") == 19 and done.get("play") == sum(range(1, 11)) * 2 - 1, done
    assert not {"keep", "change", "hint"} & done.keys(), done
    assert page.locator("#standings-table tbody tr").count() == 4
    # No horizontal scroll on the phone, and the review (the server's) is not offered.
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    assert page.locator("#review-link").is_hidden()
    # The record downloads and the command-line replay reads it.
    with page.expect_download() as download:
        page.click("#download-record")
    record = tmp_path / "match.ohr"
    download.value.save_as(record)
    shown = subprocess.run(
        [sys.executable, "-m", "ohhell", "replay", "--json", str(record)], capture_output=True, text=True
    )
    assert shown.returncode == 0, shown.stderr
    assert len(json.loads(shown.stdout)["hands"]) == 19
    # The site's replay page shows it too, offline.
    page.goto(page.url.replace("table.html?t=", "replay.html?table="))
    page.locator("#viewer").wait_for()
    assert "19 hands scored" in page.inner_text("#load-status")
    assert not ERRORS, ERRORS
    context.close()


def test_a_match_left_in_the_middle_is_there_when_the_tab_opens_again(site: str, browser: Browser) -> None:
    ERRORS.clear()
    context = phone(browser)
    page = context.new_page()
    cached(page, site)
    context.set_offline(True)
    page.reload()
    page.click("#play-now-button")
    page.wait_for_url(re.compile(r"table\.html\?t=[\w-]+$"))
    address = page.url
    for _ in range(12):  # a few bids and cards
        while nc.answer(page) is None:
            page.wait_for_timeout(30)
    before = nc.sent(page)
    info = page.inner_text("#info")
    hand = [b.get_attribute("data-card") for b in page.locator("#hand button.card").all()]
    page.close()  # the tab is closed; the worker with it
    again = context.new_page()
    again.goto(address)
    again.locator("#hand button.card").first.wait_for()
    again.wait_for_function(f"() => document.querySelector('#info').textContent === {json.dumps(info)}")
    assert [b.get_attribute("data-card") for b in again.locator("#hand button.card").all()] == hand
    assert sum(before.get(k, 0) for k in ("bid", "play")) == 12
    assert not ERRORS, ERRORS
    context.close()


def test_keep_the_score_of_three_hands_offline_and_save_the_record(
    site: str, browser: Browser, tmp_path: Path
) -> None:
    ERRORS.clear()
    context = phone(browser)
    page = context.new_page()
    cached(page, site)
    context.set_offline(True)
    page.goto(site + "score.html")
    page.locator('#sc-players input[data-seat="3"]').wait_for()  # drawn once the options are in
    for seat, name in enumerate(["Ann", "Ben", "Cy", "Di"]):
        page.fill(f'#sc-players input[data-seat="{seat}"]', name)
    page.select_option("#sc-dealer", "0")
    page.click("#sc-create")
    page.wait_for_url(re.compile(r"score\.html\?s=[\w-]+$"))
    for hand in (1, 2, 3):  # 10, 9 and 8 cards: each bids the first bid offered, one player takes all
        page.locator(f'#banner[data-hand="{hand}"]').wait_for()
        for _ in range(4):
            page.locator('#entry[data-phase="bid"] #bid-buttons button[data-bid]:enabled').first.click()
        page.locator('#entry[data-phase="tricks"]').wait_for()
        size = 11 - hand
        for seat in range(4):
            page.fill(f'#tricks input[data-seat="{seat}"]', str(size if seat == 1 else 0))
        page.click("#tricks-save:enabled")
    page.locator('#banner[data-hand="4"]').wait_for()
    assert page.locator("#sheet tr[data-hand]").count() == 3
    with page.expect_download() as download:
        page.click("#export-json")
    saved = tmp_path / "sheet.json"
    download.value.save_as(saved)
    shown = subprocess.run(
        [sys.executable, "-m", "ohhell", "score", "--file", str(saved), "--export", "json"],
        capture_output=True,
        text=True,
    )
    assert shown.returncode == 0, shown.stderr
    assert len(json.loads(shown.stdout)["hands"]) == 3
    assert not ERRORS, ERRORS
    context.close()
