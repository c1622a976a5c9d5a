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


def test_a_rated_game_left_at_its_start_says_it_was_aborted_and_whose_leave_it_was(
    browser: Any, server_factory: Any
) -> None:
    import asyncio
    import concurrent.futures
    import sys
    from pathlib import Path

    from screens import axe

    sys.path.insert(0, str(Path(__file__).parents[1] / "server"))
    from test_server_e2e import seat_four

    server = server_factory("--grace", "1")
    base = server.base

    async def sit() -> str:
        tid, clients = await seat_four(base, "havana", names="abcd")
        for c in clients:  # all four close the tab at once
            await c.close()
        return tid

    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # Playwright's loop runs here
        table = pool.submit(asyncio.run, sit()).result(60)
    shots = Path("/work/shots/abandon")
    shots.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    words = {"es-ES": "Partida anulada: pa se fue", "en-US": "Game aborted: pa left"}
    for locale, want in words.items():
        for w, h in ((390, 844), (1366, 900)):
            ctx = browser.new_context(
                viewport={"width": w, "height": h},
                locale=locale,
                bypass_csp=True,  # axe
            )
            page = ctx.new_page()
            page.set_default_timeout(20_000)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"{base}/t/{table}?watch=1")
            notice = page.wait_for_selector("#aborted")
            assert notice.inner_text().startswith(want), notice.inner_text()
            assert page.locator("#abandoned").count() == 0  # one notice, the precise one
            bad = [v for v in axe(page) if v["impact"] in ("serious", "critical")]
            assert bad == [], bad
            page.screenshot(path=str(shots / f"aborted-{locale[:2]}-{w}.png"), full_page=True)
            ctx.close()
    # Her profile shows the table she began and left: a completion rate of 0 %.
    players = httpx.get(f"{base}/api/tables/{table}/players", timeout=30).json()
    handle = players["seats"][0]["profile"]
    rates = {"es-ES": "Completadas: 0 % (0 de 1 mesas)", "en-US": "Completed: 0% (0 of 1 tables)"}
    for locale, want in rates.items():
        for w, h in ((390, 844), (1366, 900)):
            ctx = browser.new_context(
                viewport={"width": w, "height": h}, locale=locale, bypass_csp=True
            )
            page = ctx.new_page()
            page.set_default_timeout(20_000)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"{base}/u/{handle}")
            assert page.wait_for_selector("#completion").inner_text().startswith(want)
            bad = [v for v in axe(page) if v["impact"] in ("serious", "critical")]
            assert bad == [], bad
            page.screenshot(path=str(shots / f"profile-{locale[:2]}-{w}.png"), full_page=True)
            ctx.close()
    assert errors == []
