"""Words at the table that said the wrong thing (issue 29, item 16): a spectator read "The other
pair is choosing who leads" (he has no other pair: he reads the pair's names), and a newcomer read
"1500?" beside his name while his profile says he has no rating yet (no number until there is
one). Two contexts: the player and a spectator; Spanish and English."""

from __future__ import annotations

import time
from typing import Any

import pytest
from test_browser import PHONE, create_table, new_page, step, try_click

pytestmark = pytest.mark.slow  # a browser and a game

DESKTOP = {"width": 1366, "height": 900}


def test_a_spectator_reads_who_chooses_by_name_and_a_newcomer_shows_no_rating(
    browser: Any, server: Any
) -> None:
    ana = new_page(browser, DESKTOP, locale="es-ES")
    # The first hand's draw decides which pair chooses who leads: a new table until it is Ana's
    # (seats 0 and 2; one in two tables).
    for _ in range(12):
        table = create_table(ana, server.base, target=100)
        ana.wait_for_function(
            "() => window.tranque && window.tranque.model.leadingPair !== undefined"
            " && window.tranque.model.leadingPair !== null"
        )
        if ana.evaluate("window.tranque.model.leadingPair") == 0:
            break
    watchers = {}
    for locale in ("en-US", "es-ES"):
        w = new_page(browser, PHONE, locale=locale)
        w.goto(f"{server.base}/t/{table}?watch=1")
        w.wait_for_selector("#watching")
        watchers[locale] = w
    # Ana has never played a rated game: the ratings frame came, and no number is beside her.
    ana.wait_for_function(
        "() => window.tranque.model.ratings && window.tranque.model.ratings.seats"
    )
    assert ana.evaluate("window.tranque.model.ratings.seats[0].games") == 0
    assert ana.locator(".seat .seat-rating").count() == 0
    assert watchers["en-US"].locator(".seat .seat-rating").count() == 0
    # Hands go on until Ana's pair (seats 0 and 2) is the one choosing: she waits, and the
    # spectators read who is choosing.
    end = time.monotonic() + 150
    seen: dict[str, str] = {}
    while not seen:
        assert time.monotonic() < end, "Ana's pair never chose who leads"
        if ana.locator("#salgo").count():
            for locale, w in watchers.items():
                w.wait_for_function(
                    "() => window.tranque.model.state.phase === 'choose' && "
                    "window.tranque.model.leadingPair === 0"
                )
                seen[locale] = w.locator("#status-line").inner_text()
            mine = ana.locator("#status-line").inner_text()
            try_click(ana, "#salgo")
            break
        if not step(ana):
            ana.wait_for_timeout(50)
    assert seen["en-US"] == "Ana and Chela are choosing who leads…", seen
    assert seen["es-ES"] == "Ana y Chela deciden quién sale…", seen
    assert mine.startswith("Tu pareja tiene la salida"), mine
    for p in (ana, *watchers.values()):
        assert p.errors == [], p.errors
        p.context.close()


@pytest.mark.parametrize(
    ("viewport", "locale", "words"),
    [(DESKTOP, "es-ES", "Volver a tu mesa"), (PHONE, "en-US", "Back to your table")],
)
def test_every_page_offers_the_way_back_to_a_game_under_way(
    browser: Any, server: Any, viewport: dict[str, int], locale: str, words: str
) -> None:
    page = new_page(browser, viewport, locale=locale)
    table = create_table(page, server.base, target=100)
    page.wait_for_selector(".hand .tile")  # the game is under way, Ana is seated
    for path, ready in (
        ("/", "#create"),
        ("/lobby", "main"),
        ("/games", "main"),
        ("/chips", "main"),
    ):
        page.goto(server.base + path)
        page.wait_for_selector(ready)
        # A locator, not a handle: a screen drawn again (the lobby's news) replaces the link.
        link = page.locator("#back-to-table")
        link.wait_for(state="visible")
        assert link.inner_text() == words, (path, link.inner_text())
        assert link.get_attribute("href") == f"/t/{table}"
    page.click("#back-to-table")
    page.wait_for_url(f"**/t/{table}")
    page.wait_for_selector(".hand .tile")
    assert page.errors == [], page.errors
    page.context.close()
