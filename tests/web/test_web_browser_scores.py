"""Browser tests of the scorekeeper's pages (/score, /score/{id}): Playwright in Debian's chromium.

The server, the browser and the skip rule are those of tests/web/test_web_browser.py
(its fixtures are reused: uvicorn in a thread on a free loopback port, an
SQLite file in a temporary directory, /usr/bin/chromium with safe flags;
skipped without playwright or chromium unless OHHELL_TEST_BROWSER=1, which
makes that a failure). The pages are driven as a scorekeeper would: the setup
form, the bid buttons in the order the page announces, the tricks inputs, the
undo button, the edit form of a past hand, the share link.

Covered: a whole 4-player pagat game (19 hands, R-SEQ-DOWNUP) entered with
seeded random bids and tricks, its totals and standings checked against an
independent computation (``ScoreGame`` fed the same entries, and the pagat
score summed by hand); undo and editing a past hand; the read-only link; a
refused entry (the hook's bid, tricks that do not total the hand size).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest
import test_web_browser as tb

from ohhell.rules import Scoring, make_rules
from ohhell.scorekeeper import ScoreGame
from ohhell.scoring import hand_score

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page

# The fixtures of tests/web/test_web_browser.py: the server, the browser, no script errors.
base = tb.base
browser = tb.browser
context = tb.context
no_page_errors = tb.no_page_errors

NAMES = ["Ann", "Bob", "Cid", "Dee"]
PAGAT = make_rules("pagat", {"players": "4"})
SEED = 20240606

Entered = list[tuple[list[int], list[int]]]  # (bids, tricks) by seat, per hand


# ---------------------------------------------------------------- driving the pages


def new_sheet(page: Page, base: str, dealer: int, preset: str = "pagat") -> str:
    """Fill in /score's setup form (NAMES in seat order, the first dealer, the
    preset) and start the sheet; the page is then the sheet. Returns its id."""
    page.goto(f"{base}/score")
    page.locator('#sc-players input[data-seat="3"]').wait_for()  # drawn once the options are loaded
    page.select_option("#sc-preset", preset)
    for seat, name in enumerate(NAMES):
        page.fill(f'#sc-players input[data-seat="{seat}"]', name)
    page.select_option("#sc-dealer", str(dealer))
    page.click("#sc-create")
    page.wait_for_url(re.compile(r"/score/[^/#?]+$"))
    page.locator('#entry[data-phase="bid"]').wait_for()
    match = re.search(r"/score/([^/#?]+)$", page.url)
    assert match, page.url
    return match.group(1)


def api_sheet(page: Page, base: str, sheet: str) -> dict[str, Any]:
    response = page.request.get(f"{base}/api/scores/{sheet}")
    assert response.ok, response.text()
    return response.json()  # type: ignore[no-any-return]


BID_STATE = """() => ({
  phase: document.querySelector("#entry").dataset.phase,
  seat: Number(document.querySelector("#bidder").dataset.seat),
  banner: document.querySelector("#banner").textContent,
  buttons: [...document.querySelectorAll("#bid-buttons button[data-bid]")].map((b) =>
    ({ bid: Number(b.dataset.bid), disabled: b.disabled, hook: b.classList.contains("hook") })),
})"""


def cards(n: int) -> str:
    return "1 card" if n == 1 else f"{n} cards"


def enter_bids(
    page: Page, hand: int, dealer: int, choose: Callable[[int, list[int]], int]
) -> tuple[list[int], int | None]:
    """Bid hand `hand` (1-based) by clicking #bid-buttons for each player in the
    order the page announces (checked against R-BID-ORDER: clockwise from the
    dealer's left). `choose(seat, allowed)` picks the bid. Returns the bids by
    seat and the hook's forbidden bid when the page showed one (R-HOOK)."""
    size = PAGAT.schedule[hand - 1]
    order = [(dealer + 1 + i) % 4 for i in range(4)]
    bids: list[int | None] = [None] * 4
    hook: int | None = None
    for i, expected in enumerate(order):
        state = page.evaluate(BID_STATE)
        assert state["phase"] == "bid", state
        assert state["seat"] == expected, (hand, i, state)
        if i == 0:
            assert state["banner"].startswith(
                f"Hand {hand} of 19: {NAMES[dealer]} deals {cards(size)}; {NAMES[order[0]]} bids first"
            ), state["banner"]
        buttons = state["buttons"]
        assert [b["bid"] for b in buttons] == list(range(size + 1))
        disabled = [b["bid"] for b in buttons if b["disabled"]]
        assert disabled == [b["bid"] for b in buttons if b["hook"]]
        if i < 3:
            assert disabled == [], f"hand {hand}: only the last bidder is hooked: {state}"
        else:  # R-HOOK: the last bid may not make the bids total the hand size
            forbidden = size - sum(b for b in bids if b is not None)
            assert disabled == ([forbidden] if 0 <= forbidden <= size else []), (hand, bids, state)
            hook = disabled[0] if disabled else None
        allowed = [b["bid"] for b in buttons if not b["disabled"]]
        bid = choose(expected, allowed)
        assert bid in allowed
        bids[expected] = bid
        page.click(f'#bid-buttons button[data-bid="{bid}"]')
        if i < 3:
            page.locator(f'#entry[data-phase="bid"] #bidder[data-seat="{order[i + 1]}"]').wait_for()
        else:
            page.locator('#entry[data-phase="tricks"]').wait_for()
    return [b for b in bids if b is not None], hook


def fill_tricks(page: Page, tricks: list[int]) -> None:
    for seat, taken in enumerate(tricks):
        page.fill(f'#tricks input[data-seat="{seat}"]', str(taken))


def enter_tricks(page: Page, hand: int, tricks: list[int]) -> None:
    """Fill #tricks (by seat) and save; waits for the next hand (or the end)."""
    size = PAGAT.schedule[hand - 1]
    assert sum(tricks) == size
    fill_tricks(page, tricks)
    assert page.inner_text("#tricks-sum") == f"{size} of {size} ✓"
    page.click("#tricks-save:enabled")
    if hand < len(PAGAT.schedule):
        page.locator(f'#banner[data-hand="{hand + 1}"]').wait_for()
        page.locator('#entry[data-phase="bid"]').wait_for()
    else:
        page.locator('#entry[data-phase="over"]').wait_for()


def enter_hand(page: Page, hand: int, dealer: int, bids: list[int], tricks: list[int]) -> None:
    """A hand with bids and tricks chosen beforehand (by seat)."""
    entered, _ = enter_bids(page, hand, dealer, lambda seat, _allowed: bids[seat])
    assert entered == bids
    enter_tricks(page, hand, tricks)


def random_tricks(rng: random.Random, bids: list[int], size: int) -> list[int]:
    """A random split of `size` tricks: often near the bids (so that some bids
    are made), otherwise each trick to a random player."""
    if rng.random() < 0.5:
        tricks = list(bids)
        while sum(tricks) > size:
            seat = rng.choice([s for s in range(4) if tricks[s] > 0])
            tricks[seat] -= 1
        while sum(tricks) < size:
            tricks[rng.randrange(4)] += 1
        return tricks
    tricks = [0] * 4
    for _ in range(size):
        tricks[rng.randrange(4)] += 1
    return tricks


SHOWN = """() => ({
  totals: [...document.querySelectorAll("#totals tr[data-seat]")].map((r) =>
    [r.querySelector("th").textContent.trim(), Number(r.querySelector("td.total").textContent),
     r.querySelector("td.exact").textContent.trim()]),
  foot: [...document.querySelectorAll("#sheet tfoot td.total")].map((c) => Number(c.textContent)),
  standings: [...document.querySelectorAll("#standings table tbody tr")].map((r) =>
    [...r.cells].map((c) => c.textContent.trim())),
  rows: [...document.querySelectorAll("#sheet tbody tr[data-hand]")].map((r) => ({
    hand: Number(r.dataset.hand),
    cells: [...r.querySelectorAll("td[data-seat]")].map((c) => ({
      bt: c.querySelector(".bt").textContent,
      missed: c.classList.contains("missed"),
      blob: Boolean(c.querySelector(".blob")),
      total: c.querySelector(".total").textContent.trim(),
    })),
  })),
})"""


def shown(page: Page) -> dict[str, Any]:
    """The totals, the sheet's rows and the standings as the page shows them, read at once."""
    return page.evaluate(SHOWN)  # type: ignore[no-any-return]


def totals_shown(page: Page) -> dict[str, int]:
    return {name: total for name, total, _ in shown(page)["totals"]}


def replay(entered: Entered, dealer: int) -> ScoreGame:
    """The independent computation: a ScoreGame fed the same entries."""
    game = ScoreGame(PAGAT, NAMES, dealer)
    for hand, (bids, tricks) in enumerate(entered):
        first = (dealer + hand + 1) % 4
        for i in range(4):
            seat = (first + i) % 4
            game.bid(seat, bids[seat])
        game.tricks(tricks)
    return game


# ---------------------------------------------------------------- a whole pagat game, shared


@pytest.fixture(scope="module")
def pagat_game(base: str, browser: Browser) -> Iterator[dict[str, Any]]:
    """A scorekeeper enters a whole 4-player pagat game (19 hands) by clicks,
    bids and tricks from a seeded random.Random. Gives the sheet's id, the
    keeper's page, the entries, the hooks seen and what the page showed."""
    keeper = tb.new_context(browser)
    try:
        page = keeper.new_page()
        dealer = 2  # Cid deals first
        sheet = new_sheet(page, base, dealer)
        rng = random.Random(SEED)
        entered: Entered = []
        hooks = 0

        def choose(_seat: int, allowed: list[int]) -> int:
            small = [b for b in allowed if b <= len(allowed) // 4 + 1]
            return rng.choice(small or allowed)

        assert len(PAGAT.schedule) == 19
        for hand, size in enumerate(PAGAT.schedule, start=1):
            bids, hook = enter_bids(page, hand, (dealer + hand - 1) % 4, choose)
            hooks += hook is not None
            tricks = random_tricks(rng, bids, size)
            enter_tricks(page, hand, tricks)
            entered.append((bids, tricks))
        assert not tb.PAGE_ERRORS, f"script errors in the page: {tb.PAGE_ERRORS}"
        yield {
            "sheet": sheet,
            "page": page,
            "dealer": dealer,
            "entered": entered,
            "hooks": hooks,
            "shown": shown(page),
            "banner": page.inner_text("#banner"),
        }
    finally:
        keeper.close()


def test_whole_pagat_game(base: str, pagat_game: dict[str, Any]) -> None:
    entered: Entered = pagat_game["entered"]
    game = replay(entered, pagat_game["dealer"])
    assert game.is_over and len(game.completed) == 19
    # Sizes 10 down to 1 and back up to 10 (R-SEQ-DOWNUP).
    assert [sum(tricks) for _, tricks in entered] == [*range(10, 0, -1), *range(2, 11)]
    # Pagat by hand (R-SC-PAGAT: 10 + the bid when it is made exactly, else 0).
    by_hand = [sum(hand_score(Scoring.PAGAT, b[s], t[s]) for b, t in entered) for s in range(4)]
    assert list(game.totals) == by_hand
    assert pagat_game["hooks"] >= 1, "the hook's bid was never shown disabled"

    page_shown = pagat_game["shown"]
    assert [(name, total) for name, total, _ in page_shown["totals"]] == list(
        zip(NAMES, by_hand, strict=True)
    )
    assert page_shown["foot"] == by_hand
    exact = [sum(b[s] == t[s] for b, t in entered) for s in range(4)]
    assert [e for _, _, e in page_shown["totals"]] == [f"{n}/19 ({round(100 * n / 19)}%)" for n in exact]
    assert list(game.exact_counts) == exact

    # The sheet: one row per hand, bid/took per player, a blob exactly where a bid was missed.
    rows = page_shown["rows"]
    assert [r["hand"] for r in rows] == list(range(1, 20))
    blobs = 0
    for row, (bids, tricks), view in zip(rows, entered, game.hands, strict=True):
        for seat, cell in enumerate(row["cells"]):
            missed = bids[seat] != tricks[seat]
            assert cell["bt"] == f"{bids[seat]}/{tricks[seat]}", (row["hand"], seat, cell)
            assert cell["missed"] == cell["blob"] == missed, (row["hand"], seat, cell)
            assert cell["total"] == str(view.totals[seat])
            blobs += missed
    assert blobs >= 1, "no missed bid in the whole game: no blob to see"

    # The standings: places, names, points and exact bids as ScoreGame ranks them.
    expected = [
        [
            "1 ★" if s.place == 1 else str(s.place),
            " and ".join(NAMES[seat] for seat in s.seats),
            str(s.total),
            str(s.exact),
        ]
        for s in game.standings()
    ]
    assert page_shown["standings"] == expected
    winners = " and ".join(NAMES[seat] for s in game.standings() if s.place == 1 for seat in s.seats)
    assert pagat_game["banner"].startswith(f"The game is over: {winners}")

    # The server's sheet agrees with the page and the independent computation.
    api = api_sheet(pagat_game["page"], base, pagat_game["sheet"])
    assert api["finished"] and api["current"] is None
    assert api["players"] == NAMES and api["first_dealer"] == 2 and api["scoring"] == "pagat"
    assert api["totals"] == by_hand
    assert [(h["bids"], h["tricks"]) for h in api["hands"]] == [(b, t) for b, t in entered]


def test_undo_and_edit_in_page(base: str, context: BrowserContext) -> None:
    page = context.new_page()
    dealer = 0  # Ann deals first: Bob bids first
    sheet = new_sheet(page, base, dealer)
    hand1 = ([2, 3, 1, 2], [2, 3, 1, 4])  # 10 cards: Dee misses
    hand2 = ([1, 3, 2, 2], [1, 2, 2, 4])  # 9 cards: Bob and Dee miss
    enter_hand(page, 1, dealer, *hand1)
    enter_hand(page, 2, 1, *hand2)
    after_two = dict(zip(NAMES, replay([hand1, hand2], dealer).totals, strict=True))
    assert totals_shown(page) == after_two
    assert page.locator("#undo").is_enabled()

    # Hand 3: Dee bids first (Cid deals); undo takes that bid back.
    page.click('#bid-buttons button[data-bid="1"]')
    page.locator('#entry[data-phase="bid"] #bidder[data-seat="0"]').wait_for()
    page.click("#undo")
    page.locator('#entry[data-phase="bid"] #bidder[data-seat="3"]').wait_for()
    assert "Undone: Dee's bid" in page.inner_text("#error")
    api = api_sheet(page, base, sheet)
    assert api["current"]["hand"] == 3 and api["current"]["bids"] == [None] * 4
    assert len(api["hands"]) == 2

    # Undo again: hand 2's tricks are gone, its bids stay; the totals are those after hand 1.
    page.click("#undo")
    page.locator('#entry[data-phase="tricks"]').wait_for()
    assert page.get_attribute("#banner", "data-hand") == "2"
    api = api_sheet(page, base, sheet)
    assert api["current"]["hand"] == 2 and api["current"]["bids"] == hand2[0]
    assert api["current"]["tricks"] is None
    assert totals_shown(page) == dict(zip(NAMES, replay([hand1], dealer).totals, strict=True))
    assert totals_shown(page) == dict(zip(NAMES, api["totals"], strict=True))
    assert page.locator('#sheet tr[data-hand="2"] td.open').count() == 4
    enter_tricks(page, 2, hand2[1])
    assert totals_shown(page) == after_two

    # Edit hand 1's tricks from the sheet: every total is recomputed.
    page.click('#sheet tr[data-hand="1"] button.row-edit')
    page.locator("#edit-form #edit-save").wait_for()
    assert page.input_value('#edit-form input[data-field="bids"][data-seat="1"]') == "3"
    assert page.input_value('#edit-form input[data-field="tricks"][data-seat="3"]') == "4"
    edited = [2, 3, 3, 2]  # Cid now misses, Dee makes 2
    for seat, taken in enumerate(edited):
        page.fill(f'#edit-form input[data-field="tricks"][data-seat="{seat}"]', str(taken))
    page.click("#edit-save")
    page.locator("#edit").wait_for(state="hidden")
    page.locator('#sheet tr[data-hand="1"] td[data-seat="2"] .bt', has_text="1/3").wait_for()
    expected = replay([(hand1[0], edited), hand2], dealer).totals
    api = api_sheet(page, base, sheet)
    assert api["hands"][0]["tricks"] == edited
    assert api["totals"] == list(expected)
    assert totals_shown(page) == dict(zip(NAMES, expected, strict=True))
    assert totals_shown(page) != after_two
    assert shown(page)["foot"] == list(expected)
    assert page.locator('#entry[data-phase="bid"] #bidder[data-seat="3"]').count() == 1  # still hand 3

    # Undo takes the edit back.
    page.click("#undo")
    page.locator('#sheet tr[data-hand="1"] td[data-seat="2"] .bt', has_text="1/1").wait_for()
    assert totals_shown(page) == after_two
    assert api_sheet(page, base, sheet)["totals"] == list(after_two.values())


def test_read_only_link(base: str, browser: Browser, pagat_game: dict[str, Any]) -> None:
    keeper = pagat_game["page"]
    sheet = pagat_game["sheet"]
    keeper.click("#share-link")
    keeper.locator("#share-box").wait_for()
    link = keeper.input_value("#share-url")
    assert link == f"{base}/score/{sheet}"

    follower = tb.new_context(browser)  # a second device: no edit token in its storage
    try:
        page = follower.new_page()
        page.goto(link)
        page.locator("#totals tr[data-seat]").first.wait_for()
        assert page.locator("#readonly-note").is_visible()
        assert page.locator("#entry").is_hidden()
        for controls in (
            "#entry *",
            "#bid-buttons",
            "#trump-buttons",
            "#tricks",
            "#tricks-save",
            "#revoke-add",
            "#sheet button.row-edit",
            "#edit-form *",
        ):
            assert page.locator(controls).count() == 0, controls
        assert page.locator("#undo").is_hidden()
        assert page.locator("#share-edit-link").is_hidden()
        assert page.locator("#edit").is_hidden()
        assert page.evaluate("() => document.body.classList.contains('read-only')")
        seen = shown(page)
        mine = pagat_game["shown"]
        assert seen["totals"] == mine["totals"]
        assert seen["standings"] == mine["standings"]
        assert seen["rows"] == mine["rows"]
        assert page.get_attribute("#export-csv", "href") == f"/api/scores/{sheet}/export.csv"
        # Without the token the API refuses a change too.
        refused = page.request.post(f"{base}/api/scores/{sheet}/entry", data={"op": "undo"})
        assert refused.status == 403
        assert api_sheet(page, base, sheet)["totals"] == [t for _, t, _ in mine["totals"]]
    finally:
        follower.close()


def test_refused_entry_shows_the_reason_and_changes_nothing(base: str, context: BrowserContext) -> None:
    page = context.new_page()
    dealer = 3  # Dee deals: Ann bids first, Dee last
    sheet = new_sheet(page, base, dealer)
    for seat, bid in ((0, 1), (1, 2), (2, 3)):
        page.click(f'#bid-buttons button[data-bid="{bid}"]')
        page.locator(f'#entry[data-phase="bid"] #bidder[data-seat="{seat + 1}"]').wait_for()
    hook = page.locator('#bid-buttons button[data-bid="4"]')
    assert hook.is_disabled() and "hook" in (hook.get_attribute("class") or "")
    # R-HOOK: the disabled bid is explained in words beside the buttons.
    note = page.inner_text("#bid-note")
    assert note.startswith("Dee may not bid 4: the bids would add up to the 10 tricks")
    revision = api_sheet(page, base, sheet)["revision"]

    # The hook's bid, sent anyway (the button enabled behind the page's back): the server refuses.
    page.evaluate(
        "() => { const b = document.querySelector('#bid-buttons button[data-bid=\"4\"]');"
        " b.disabled = false; b.click(); }"
    )
    page.locator("#error", has_text="the hook forbids").wait_for()  # R-HOOK
    assert "the hook forbids Dee to bid 4" in page.inner_text("#error")
    api = api_sheet(page, base, sheet)
    assert api["revision"] == revision and api["current"]["bids"] == [1, 2, 3, None]
    assert page.get_attribute("#bidder", "data-seat") == "3"
    page.click('#bid-buttons button[data-bid="0"]')
    page.locator('#entry[data-phase="tricks"]').wait_for()
    revision = api_sheet(page, base, sheet)["revision"]

    # Nothing typed yet: the disabled button says why beside it.
    assert page.inner_text("#tricks-sum") == "Type the tricks each player took: they must add up to 10."
    assert page.locator("#tricks-save").is_disabled()
    # Tricks that do not total the 10 cards: the page says so and will not save them.
    fill_tricks(page, [1, 2, 3, 5])
    assert page.inner_text("#tricks-sum") == "The tricks add up to 11; this hand has 10: 1 too many."
    assert page.locator("#tricks-save").is_disabled()
    fill_tricks(page, [1, 2, 3, 3])
    assert page.inner_text("#tricks-sum") == "The tricks add up to 9; this hand has 10: 1 missing."
    assert page.locator("#tricks-save").is_disabled()

    # Saved anyway (the check bypassed): the server refuses with the reason; nothing changes.
    page.evaluate("() => { document.querySelector('#tricks-save').disabled = false; }")
    page.click("#tricks-save")
    page.locator("#error", has_text="add up to 9").wait_for()
    assert "the tricks taken add up to 9, but the hand has 10 tricks" in page.inner_text("#error")
    api = api_sheet(page, base, sheet)
    assert api["revision"] == revision
    assert api["current"]["hand"] == 1 and api["current"]["tricks"] is None
    assert api["hands_played"] == 0 and api["totals"] == [0, 0, 0, 0]
    assert page.get_attribute("#entry", "data-phase") == "tricks"
    assert page.locator('#sheet tr[data-hand="1"] td.open').count() == 4
    assert totals_shown(page) == dict.fromkeys(NAMES, 0)
    assert [page.input_value(f'#tricks input[data-seat="{s}"]') for s in range(4)] == ["1", "2", "3", "3"]

    # Corrected, it is scored: Ann, Bob and Cid made their bids, Dee did not.
    enter_tricks(page, 1, [1, 2, 3, 4])
    assert page.locator("#error").is_hidden()
    assert totals_shown(page) == {"Ann": 11, "Bob": 12, "Cid": 13, "Dee": 0}
    assert page.locator('#sheet tr[data-hand="1"] td[data-seat="3"] .blob').count() == 1

    # Hand 2 (9 cards): empty boxes count as 0 once the others add up to the hand.
    enter_bids(page, 2, 0, lambda seat, allowed: 0)
    page.fill('#tricks input[data-seat="1"]', "9")
    assert page.inner_text("#tricks-sum") == "9 of 9 ✓ (the empty boxes count as 0)"
    page.click("#tricks-save:enabled")
    page.locator('#banner[data-hand="3"]').wait_for()
    assert api_sheet(page, base, sheet)["hands"][1]["tricks"] == [0, 9, 0, 0]
