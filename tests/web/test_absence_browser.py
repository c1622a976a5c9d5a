"""What the browser shows of a person who never came to his table and of a table that ended with
nobody at it: a line in the log for each, the bot's mark on the seat, and a notice over the
table that the game ended with no result (unrated, the chips back)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

# A browser: Chromium starts for it (make test-fast runs without one).
pytestmark = pytest.mark.slow


def test_a_spectator_sees_one_who_never_came_get_a_bot_and_the_table_end_with_no_result(
    browser: Any, server_factory: Any
) -> None:
    server = server_factory("--arrival-window", "4", "--abandon-after", "1")
    base = server.base
    bea = httpx.post(base + "/api/guests", json={"nickname": "Bea"}, timeout=30).json()
    # Her practice table starts at once (three bots); she never opens it.
    made = httpx.post(
        base + "/api/tables",
        json={"practice": True, "seat": 0},
        headers={"Authorization": f"Bearer {bea['token']}"},
        timeout=30,
    )
    table = made.json()["table"]
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale="es-ES")
    page = ctx.new_page()
    page.set_default_timeout(20_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{base}/t/{table}?watch=1")
    page.wait_for_selector("#watching")  # on the table, before her arrival window ends
    notice = page.wait_for_selector("#abandoned")
    assert notice.inner_text().startswith("Esta partida terminó sin resultado")
    log = page.locator(".log ol").inner_text()
    assert "Bea no llegó a la mesa: un bot juega en su lugar." in log, log
    assert "Todas las personas se fueron: la partida terminó sin resultado." in log, log
    seat = page.locator('.seat[data-seat="0"]')
    assert seat.locator(".bot-mark").count() == 1 and seat.locator(".away-mark").count() == 1
    ctx.close()
    # A page opened afterwards says the same from the sync alone (in English here).
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, locale="en-US")
    page = ctx.new_page()
    page.set_default_timeout(20_000)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{base}/t/{table}?watch=1")
    late = page.wait_for_selector("#abandoned")
    assert late.inner_text().startswith("This game ended with no result"), late.inner_text()
    assert errors == []
    ctx.close()
