"""The browser client when a table has left the server: a finished game reloaded after it left
memory shows its end; a table that never started says it has expired."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from test_browser import create_table, new_page, play_until, shot


def live_tables(page: Any) -> int:
    stats = json.loads(page.evaluate("fetch('/api/stats').then(r => r.text())"))
    return int(stats["live"]["total"])


def wait_live(page: Any, count: int, seconds: float = 30) -> None:
    end = time.monotonic() + seconds
    while live_tables(page) != count:
        if time.monotonic() > end:
            raise AssertionError(f"the server still holds {live_tables(page)} table(s)")
        time.sleep(0.1)


@pytest.mark.slow
def test_a_finished_game_reloaded_after_it_left_memory_shows_its_end(
    browser: Any, server_factory: Any, shots: Path
) -> None:
    sp = server_factory("--finished-linger", "0")
    page = new_page(browser)
    table = create_table(page, sp.base, target=10)
    play_until([page], lambda: page.locator("#game-over").count() > 0, 240)
    winner = page.locator("#game-over .winner").inner_text()
    page.goto(sp.base + "/")  # the socket closes: nobody has the table open
    wait_live(page, 0)
    page.goto(f"{sp.base}/t/{table}")
    page.wait_for_selector("#game-over")
    assert page.locator("#game-over .winner").inner_text() == winner
    assert page.locator(".table-error").count() == 0
    shot(page, shots, "reloaded-after-the-end-es-390x844")
    assert page.errors == []
    page.context.close()


@pytest.mark.slow
def test_a_table_that_never_started_says_it_expired(browser: Any, server_factory: Any) -> None:
    sp = server_factory("--table-expiry", "1")
    page = new_page(browser)
    create_table(page, sp.base, target=10, mode="people")
    # Waiting at the table, the host is told when it expires; a reload says the same.
    page.wait_for_selector(".table-error", timeout=30_000)
    assert "caducó" in page.locator(".table-error").inner_text()
    page.reload()
    page.wait_for_selector(".table-error")
    assert "caducó" in page.locator(".table-error").inner_text()
    assert page.errors == []
    page.context.close()
