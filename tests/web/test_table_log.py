"""The table's log survives a reload and a way back to the page (issue 29, bug 5): the page
writes it again from the sync's ``log``; and it reads seat by seat too (who played what, who
passed on which numbers). Phone and desktop, Spanish and English, checked by axe."""

from __future__ import annotations

import time
from typing import Any

import pytest
from screens import Screens
from test_browser import create_table, new_page, step

pytestmark = pytest.mark.slow  # a browser and a game

DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}
PLAYS = "els => els.map(e => e.textContent).filter(x => / (jugó|played|pasó|passed)/.test(x))"


def play_some(page: Any, tiles: int) -> None:
    """Play until ``tiles`` are on the chain and it is this player's turn (the table waits)."""
    end = time.monotonic() + 90
    while page.locator(".chain-tile").count() < tiles or not page.locator(".tile.playable").count():
        assert time.monotonic() < end, "the hand never got that far"
        if not step(page):
            page.wait_for_timeout(100)


def log_plays(page: Any) -> list[str]:
    lines: list[str] = page.locator(".log ol li").evaluate_all(PLAYS)
    return lines


@pytest.mark.parametrize(
    ("viewport", "locale", "played", "passed"),
    [(PHONE, "es-ES", "jugó la", "pasó a"), (DESKTOP, "en-US", "played the", "passed on")],
)
def test_the_log_survives_a_reload_and_back_and_reads_by_seat(
    browser: Any, server: Any, viewport: dict[str, int], locale: str, played: str, passed: str
) -> None:
    page = new_page(browser, viewport, locale=locale)
    create_table(page, server.base, target=1000)  # no hand's end can end the game first
    play_some(page, 8)
    before = log_plays(page)
    assert len(before) >= 8 and all(played in x or "pas" in x for x in before), before
    page.reload()
    page.wait_for_selector(".tile.playable")
    assert log_plays(page) == before  # not "Ana volvió." alone
    page.goto(server.base + "/")
    page.wait_for_selector("#create")
    page.go_back()
    page.wait_for_selector(".tile.playable")
    assert log_plays(page) == before
    # Seat by seat: every tile on the chain is under the seat that played it.
    page.click("#log-seats")
    page.wait_for_selector("#log-by-seat li >> nth=3")  # its module comes when first asked for
    rows = page.locator("#log-by-seat li")
    assert rows.count() == 4
    moves = page.evaluate("window.tranque.model.moves")
    for seat in range(4):
        mine = sorted(mv.split("@")[0] for s, mv in moves if s == seat and mv != "pass")
        shown = page.locator(f'#log-by-seat li[data-seat="{seat}"] .tile').evaluate_all(
            "els => els.map(e => e.dataset.tile)"
        )
        assert sorted(shown) == mine, (seat, shown, mine)
        passes = [mv for s, mv in moves if s == seat and mv == "pass"]
        text = page.locator(f'#log-by-seat li[data-seat="{seat}"]').inner_text()
        assert (passed in text) == bool(passes), (seat, text)
    screens = Screens()
    screens.capture(page, f"table-log-by-seat-{locale[:2]}", widths=(390, 1366))
    # The choice is kept across a reload.
    page.reload()
    page.wait_for_selector("#log-by-seat li")
    page.click("#log-order")
    assert log_plays(page) == before
    assert page.errors == [], page.errors
    assert not screens.blocking(), screens.blocking()
    page.context.close()
