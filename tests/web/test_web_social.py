"""Browser tests of playing with people (Playwright, Debian's chromium): play
again, chat and reactions, the host removing a player, notices.

The server, the browser and the skip rule are those of tests/web/test_web_browser.py
(its fixtures are reused). Each person is a browser context of their own;
seats are made through the API and their tokens put in the pages' storage,
as the home page's forms would.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import test_web_browser as tb

if TYPE_CHECKING:
    from playwright.sync_api import Browser, BrowserContext, Page

base = tb.base
browser = tb.browser
no_page_errors = tb.no_page_errors


def seated(context: BrowserContext, base: str, table: str, token: str | None) -> Page:
    """A page at `table` holding the seat of `token` (a watcher without one)."""
    page = context.new_page()
    page.goto(f"{base}/t/{table}")
    if token is not None:
        page.evaluate("([t, tok]) => localStorage.setItem(`ohhell-token-${t}`, tok)", [table, token])
        page.reload()
    page.locator('#conn[data-state="open"]').wait_for()
    return page


def three_people(page: Page, base: str, options: dict[str, str]) -> dict[str, Any]:
    """Ann (host, seat 0), Bob and Cy (seats 1 and 2) and a bot, made through the API."""
    body = {"name": "Ann", "options": options, "seats": ["human", "human", "human", "random"]}
    made = page.request.post(f"{base}/api/tables", data=body).json()
    table = made["table"]
    tokens = [made["token"]]
    for seat, name in ((1, "Bob"), (2, "Cy")):
        tokens.append(
            page.request.post(f"{base}/api/tables/{table}/join", data={"seat": seat, "name": name}).json()[
                "token"
            ]
        )
    return {"table": table, "tokens": tokens}


def test_play_again_with_the_same_seats(base: str, browser: Browser) -> None:
    contexts = [tb.new_context(browser) for _ in range(3)]
    try:
        first = contexts[0].new_page()
        made = three_people(first, base, {"hand-sizes": "1"})
        table, tokens = made["table"], made["tokens"]
        first.close()
        a, b, c = (seated(ctx, base, table, tok) for ctx, tok in zip(contexts, tokens, strict=True))
        a.locator("#start-button:enabled").click()
        tb.play_until_over([a, b, c])

        a.click("#rematch-button")
        a.wait_for_url(lambda url: re.search(r"/t/[^/]+$", url) is not None and table not in url)
        again = tb.table_id(a)
        a.locator("#host-controls").wait_for()
        # Bob is offered to play again, and keeps his seat.
        b.locator("#rematch .rematch-offer", has_text="Ann wants to play again").wait_for()
        b.click("#rematch-button")
        b.wait_for_url(re.compile(rf"/t/{re.escape(again)}$"))
        b.locator("#lobby-seats li[data-seat='1'] .badge.you").wait_for()
        # Cy is offered too but does not answer: the host starts, a bot takes his seat.
        c.locator("#rematch .rematch-offer").wait_for()
        a.locator("#lobby-seats li[data-seat='2'] .badge.invited").wait_for()
        a.locator("#lobby-seats li[data-seat='1']", has_text="Bob").wait_for()
        a.locator("#start-button:enabled").click()
        a.locator("#game").wait_for()
        b.locator("#game").wait_for()
        seats = a.request.get(f"{base}/api/tables/{again}").json()["seats"]
        assert [s["kind"] for s in seats] == ["human", "human", "bot", "bot"]
        assert [s["name"] for s in seats[:2]] == ["Ann", "Bob"]
    finally:
        for ctx in contexts:
            ctx.close()


def chat_lines(page: Page) -> list[str]:
    return page.locator("#chat-log li").all_inner_texts()


def say(page: Page, text: str) -> None:
    page.fill("#chat-input", text)
    page.press("#chat-input", "Enter")


def test_chat_reactions_and_mutes(base: str, browser: Browser) -> None:
    contexts = [tb.new_context(browser) for _ in range(3)]
    try:
        first = contexts[0].new_page()
        made = three_people(first, base, {"hand-sizes": "2,1"})
        table, tokens = made["table"], made["tokens"]
        first.close()
        ann = seated(contexts[0], base, table, tokens[0])
        bob = seated(contexts[1], base, table, tokens[1])
        zed = seated(contexts[2], base, table, None)  # a watcher
        # A watcher is asked for a name to chat under; a seated player is not. The
        # box appears once the watcher's view has arrived, so wait for it.
        zed.locator("#chat-name").wait_for(state="visible")
        bob.locator("#chat-name").wait_for(state="hidden")
        # Nothing is cut at the limit: a counter says it (tests/web/test_web_browser_home.py).
        assert bob.get_attribute("#chat-input", "maxlength") is None

        say(bob, "hello all")
        for page in (ann, bob, zed):
            page.locator("#chat-log li", has_text="hello all").wait_for()
        assert "You: hello all" in chat_lines(bob)
        assert "Bob: hello all" in chat_lines(ann)
        zed.fill("#chat-name", "Zed")
        say(zed, "go Ann")
        ann.locator("#chat-log li.watcher", has_text="Zed (watching): go Ann").wait_for()
        bob.click("#reactions button[data-reaction='gg']")
        ann.locator("#chat-log li.reaction", has_text="Bob: Good game!").wait_for()

        # Ann hides the watchers' lines and mutes Bob: for her alone.
        ann.uncheck("#chat-watchers")
        ann.click("#people summary")
        ann.click("#people-list li[data-seat='1'] .mute-button")
        assert ann.get_attribute("#people-list li[data-seat='1'] .mute-button", "aria-pressed") == "true"
        say(zed, "second line")
        say(bob, "can Ann hear me")
        zed.locator("#chat-log li", has_text="can Ann hear me").wait_for()
        bob.locator("#chat-log li", has_text="second line").wait_for()
        say(ann, "from Ann")  # lines come in order: once Ann's own is back, the others came before it
        ann.locator("#chat-log li", has_text="from Ann").wait_for()
        assert not any("second line" in line or "can Ann hear me" in line for line in chat_lines(ann))
        ann.reload()  # the mutes are remembered, and the history leaves out the muted lines
        ann.locator('#conn[data-state="open"]').wait_for()
        ann.locator("#chat-log li", has_text="from Ann").wait_for()
        lines = chat_lines(ann)
        assert not any(
            muted in line for line in lines for muted in ("second line", "can Ann hear me", "go Ann")
        )
        assert not ann.is_checked("#chat-watchers")

        # Too many lines at once: the page shows the server's refusal.
        bob.evaluate(
            """() => { for (let i = 0; i < 8; i++) {
              document.querySelector('#chat-input').value = `quick ${i}`;
              document.querySelector('#chat-form').requestSubmit(); } }"""
        )
        bob.locator("#error", has_text="too fast").wait_for()
    finally:
        for ctx in contexts:
            ctx.close()


def test_a_watcher_is_muted_by_name(base: str, browser: Browser) -> None:
    contexts = [tb.new_context(browser) for _ in range(3)]
    try:
        first = contexts[0].new_page()
        made = three_people(first, base, {"hand-sizes": "2,1"})
        table, tokens = made["table"], made["tokens"]
        first.close()
        ann = seated(contexts[0], base, table, tokens[0])
        zed, amy = (seated(ctx, base, table, None) for ctx in contexts[1:])
        for page, name in ((zed, "Zed"), (amy, "Amy")):
            page.locator("#chat-name").wait_for(state="visible")
            page.fill("#chat-name", name)
            say(page, f"I am {name}")
            ann.locator("#chat-log li.watcher", has_text=f"I am {name}").wait_for()
        # Ann mutes Zed alone, for herself: Amy is still heard.
        ann.click("#people summary")
        ann.click("#people-list li[data-watcher='Zed'] .mute-button")
        assert ann.get_attribute("#people-list li[data-watcher='Zed'] .mute-button", "aria-pressed") == "true"
        assert ann.locator("#chat-log li", has_text="I am Zed").count() == 0
        say(zed, "Zed again")
        say(amy, "Amy again")
        ann.locator("#chat-log li", has_text="Amy again").wait_for()
        amy.locator("#chat-log li", has_text="Zed again").wait_for()  # muted for Ann only
        assert ann.locator("#chat-log li", has_text="Zed again").count() == 0
        # The host mutes Amy for everyone: her lines are refused, and the box keeps them.
        ann.click("#people-list li[data-watcher='Amy'] .silence-button")
        ann.locator("#people-list li[data-watcher='Amy']", has_text="muted by the host").wait_for()
        say(amy, "let me speak")
        amy.locator("#error", has_text="muted you").wait_for()
        assert amy.input_value("#chat-input") == "let me speak"
    finally:
        for ctx in contexts:
            ctx.close()


def test_the_host_mutes_and_removes_a_player(base: str, browser: Browser) -> None:
    contexts = [tb.new_context(browser) for _ in range(2)]
    try:
        first = contexts[0].new_page()
        made = three_people(first, base, {"hand-sizes": "3,2,1"})
        table, tokens = made["table"], made["tokens"]
        first.request.post(f"{base}/api/tables/{table}/start", data={"token": tokens[0]})
        first.close()
        ann = seated(contexts[0], base, table, tokens[0])
        bob = seated(contexts[1], base, table, tokens[1])
        ann.locator("#game").wait_for()
        ann.click("#people summary")
        ann.click("#people-list li[data-seat='1'] .silence-button")
        ann.locator("#people-list li[data-seat='1']", has_text="muted by the host").wait_for()
        say(bob, "let me speak")
        bob.locator("#error", has_text="muted you").wait_for()
        assert ann.locator("#chat-log li", has_text="let me speak").count() == 0
        # Remove asks twice; then a bot plays Bob's seat, and Bob watches.
        ann.click("#people-list li[data-seat='1'] .remove-button")
        ann.locator("#people-list li[data-seat='1'] .remove-button", has_text="Click again").click()
        bob.locator("#error", has_text="removed you").wait_for()
        ann.locator("#players .seat[data-seat='1'] .kind", has_text="bot").wait_for()
        seat = ann.request.get(f"{base}/api/tables/{table}").json()["seats"][1]
        assert seat["kind"] == "bot" and seat["name"] != "Bob"
        bob.locator("#hand-box").wait_for(state="hidden")
        bob.locator("#chat-name").wait_for(state="visible")  # a watcher now
        say(bob, "still here")
        bob.locator("#error", has_text="removed you").wait_for()
    finally:
        for ctx in contexts:
            ctx.close()


HEARD = """() => {
  window.heard = [];
  const box = document.querySelector('#announce');
  new MutationObserver(() => window.heard.push(box.textContent))
    .observe(box, { childList: true, characterData: true, subtree: true });
}"""


def test_a_friend_joining_is_told_and_the_clock_counts_down_for_all(base: str, browser: Browser) -> None:
    contexts = [tb.new_context(browser) for _ in range(3)]
    try:
        host = contexts[0].new_page()
        body = {
            "name": "Ann",
            "options": {"first-dealer": "0", "hand-sizes": "3,2"},
            "seats": ["human", "human", "random", "random"],
            "clock": 120,
        }
        made = host.request.post(f"{base}/api/tables", data=body).json()
        host.close()
        ann = seated(contexts[0], base, made["table"], made["token"])
        ann.locator("#host-controls").wait_for()
        ann.evaluate(HEARD)
        bob = contexts[1].new_page()
        bob.goto(f"{base}/t/{made['table']}")
        bob.locator("#join-form").wait_for()
        bob.fill("#join-name", "Bob")
        bob.click("#join-button")
        ann.locator("#error", has_text="Bob joined the table.").wait_for()
        ann.wait_for_function("() => window.heard.some((t) => t.includes('Bob joined the table.'))")
        ann.locator("#start-button:enabled").click()
        # Bob (left of the dealer, seat 0) bids first: his clock counts down on every page, a watcher's too.
        zed = seated(contexts[2], base, made["table"], None)
        # (Bob's own clock is the bar under his prompt instead.)
        seat_clock = "#players .seat[data-seat='1'] .clock"
        for page, where in ((ann, seat_clock), (zed, seat_clock), (bob, "#my-clock")):
            clock = page.locator(where)
            clock.wait_for()
            assert clock.get_attribute("role") == "timer"
            # The label says the seconds whatever the shown form ("1:58 left", "45 s left").
            label = clock.get_attribute("aria-label") or ""
            seconds = re.search(r"(\d+) seconds left", label)
            assert seconds and 100 < int(seconds.group(1)) <= 120, label
    finally:
        for ctx in contexts:
            ctx.close()
