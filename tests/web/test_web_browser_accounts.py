"""Accounts in the browser, pressing only what a person must: sign up, Play
now to the end, the rated match on the profile with its review, a second
match with a hint listed and not rated, the leaderboard, signing out and in
again.

Needs playwright and /usr/bin/chromium, as tests/web/test_web_browser.py.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest
import test_web_browser as tb
import test_web_browser_newcomer as nc

from ohhell.web.accounts.ratings import rating_of
from ohhell.web.app import Limits, create_app

if TYPE_CHECKING:
    from playwright.sync_api import Browser

PASSWORD = "a long enough passphrase"
browser = nc.browser  # the fixture: Chromium, for this module's server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    if tb.MISSING:
        pytest.fail(f"OHHELL_TEST_BROWSER=1 but {tb.MISSING}", pytrace=False)
    db = tmp_path_factory.mktemp("accounts") / "a.db"
    app = create_app(
        f"sqlite:///{db}",
        bot_delay=0.02,
        think=0.05,
        change_grace=nc.GRACE,
        limits=Limits(create=None, connects=None),
    )
    app.state.server.accounts.least = 1  # listed after one rated match, not five
    with tb.serving(app) as base:
        yield {"base": base, "app": app}


def test_sign_up_play_now_rated_then_profile_review_leaderboard_and_sign_in_again(
    server: Any, browser: Browser
) -> None:
    nc.ERRORS.clear()
    page = nc.new_page(browser)
    base = server["base"]
    page.goto(f"{base}/")
    page.locator("#account-link").click()  # "Sign in" in the header
    page.fill("#su-name", "Ann")
    page.fill("#su-password", PASSWORD)
    page.click("#sign-up-button")
    page.locator("#profile-name", has_text="Ann").wait_for()
    assert page.locator("#profile-none").is_visible()  # no rated match yet

    page.goto(f"{base}/")
    page.locator("#account-link", has_text="Ann").wait_for()
    page.click("#play-now-button")
    page.wait_for_url(re.compile(r"/t/[^/]+$"))
    page.locator("#hand button.card").first.wait_for()
    table_id = nc.table_of(page)
    nc.play_to_the_end([page], nc.live_table(server, table_id))
    assert not {"hint"} & nc.sent(page).keys()

    deadline = time.monotonic() + 20
    while True:  # rated in a thread as the match ends
        page.goto(f"{base}/account")
        page.locator("#profile-name").wait_for()
        if page.locator("#profile-matches tbody tr").count() == 1:
            break
        assert time.monotonic() < deadline, "the match never appeared on the profile"
        page.wait_for_timeout(300)
    assert re.search(r"Rating [\d,]+\?", page.inner_text("#profile-rating"))
    assert re.search(r"between|above|below", page.inner_text("#profile-standing"))

    # The review opens from the profile.
    page.locator("#profile-matches a", has_text="Review").click()
    page.wait_for_url(re.compile(r"/replay\?table=.*review=1"))
    page.locator("#review-ask").wait_for()  # the review: asked for, or offered

    # A second Play now in which Ann asks for one hint: played to the end,
    # listed on her profile, and not rated.
    page.goto(f"{base}/")
    page.click("#play-now-button")
    page.wait_for_url(re.compile(r"/t/[^/]+$"))
    page.locator("body.my-turn").wait_for(timeout=60_000)
    page.click("#hint-button")
    page.locator("#hint .suggest").wait_for(timeout=60_000)
    nc.play_to_the_end([page], nc.live_table(server, nc.table_of(page)))
    assert nc.sent(page).get("hint") == 1
    deadline = time.monotonic() + 20
    while True:
        page.goto(f"{base}/account")
        page.locator("#profile-name").wait_for()
        if page.locator("#profile-matches tbody tr").count() == 2:
            break
        assert time.monotonic() < deadline, "the hinted match never appeared on the profile"
        page.wait_for_timeout(300)
    newest, first = page.locator("#profile-matches tbody tr").all()
    assert "not rated" in newest.inner_text() and "→" in first.inner_text()
    assert "Pagat" in first.inner_text() and "Ann (you)" in first.inner_text()
    account = server["app"].state.server.accounts.accounts.by_name("Ann")
    assert rating_of(server["app"].state.server.store.engine, account.id).matches == 1

    # Shown to others: on the leaderboard, among the bots.
    page.goto(f"{base}/account")
    page.locator("#public").check()
    page.wait_for_timeout(300)
    page.goto(f"{base}/leaderboard")
    page.locator("#leaderboard-rows a", has_text="Ann").wait_for()
    assert page.locator("#leaderboard-rows tr.bot-row").count() >= 3

    # Out, and in again with the password.
    page.goto(f"{base}/account")
    page.click("#sign-out")
    page.locator("#sign-in-form").wait_for()
    page.fill("#si-name", "ann")
    page.fill("#si-password", PASSWORD)
    page.click("#sign-in-button")
    page.locator("#profile-matches tbody tr").first.wait_for()
    assert not nc.ERRORS, nc.ERRORS
    page.context.close()


def test_a_passkey_added_signs_in_without_name_or_password(server: Any, browser: Browser) -> None:
    # WebAuthn needs a host name (an address is no relying party): localhost.
    base = server["base"].replace("127.0.0.1", "localhost")
    nc.ERRORS.clear()
    page = nc.new_page(browser)
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    authenticator = cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
                "automaticPresenceSimulation": True,
            }
        },
    )["authenticatorId"]
    page.goto(f"{base}/account")
    page.fill("#su-name", "Key Holder")
    page.fill("#su-password", PASSWORD)
    page.click("#sign-up-button")
    page.locator("#add-passkey").click()
    page.locator("#passkeys-count", has_text="1 passkey").wait_for()
    page.click("#sign-out")
    page.locator("#passkey-sign-in").click()  # no name, no password
    page.locator("#profile-name", has_text="Key Holder").wait_for()
    held = cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})
    assert len(held["credentials"]) == 1 and held["credentials"][0]["isResidentCredential"]
    assert not nc.ERRORS, nc.ERRORS
    page.context.close()
