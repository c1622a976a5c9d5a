"""The lobby page in the browser, live, now that the server sends the listing whole once and then
only its changes: a table that comes is added in its place, a line that changes is redrawn, the
order follows (free seats first, fewest free first, then the tables being played), and a table
that leaves the lobby (here: it expired, never started) is taken off."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from typing import Any

import httpx
import pytest
from test_browser import PHONE, new_page

from tranque.client import TableClient

pytestmark = pytest.mark.slow

EXPIRY = 12  # seconds a table that never starts stays (--table-expiry)


def _in_a_thread(work: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """Run async client code beside Playwright's loop (which holds this thread's)."""
    failed: list[BaseException] = []

    def run() -> None:
        try:
            asyncio.run(work())
        except BaseException as exc:
            failed.append(exc)

    t = threading.Thread(target=run)
    t.start()
    t.join(60)
    assert not t.is_alive() and not failed, failed


def _order(page: Any) -> list[str]:
    return list(page.eval_on_selector_all(".lobby-table", "els => els.map(e => e.dataset.table)"))


def test_the_lobby_page_adds_changes_reorders_and_removes_tables_live(
    browser: Any, server_factory: Any
) -> None:
    base = server_factory("--table-expiry", str(EXPIRY)).base
    http = httpx.Client(base_url=base, timeout=30)

    def guest(nick: str) -> str:
        return str(http.post("/api/guests", json={"nickname": nick}).json()["token"])

    def public_table(token: str) -> str:
        r = http.post(
            "/api/tables",
            json={"practice": False, "seat": 0, "public": True},
            headers={"authorization": f"Bearer {token}"},
        )
        return str(r.json()["table"])

    lobby = new_page(browser, PHONE)
    lobby.goto(base + "/lobby")
    lobby.wait_for_selector("#lobby-empty")
    # A table that starts at once (its host adds three bots): it never expires.
    ana = guest("Ana")
    playing = public_table(ana)

    # Ana stays at her table to the end: a table whose people have all gone is not listed.
    started, done, failed = threading.Event(), threading.Event(), []

    async def start() -> None:
        c = TableClient(base, ana, playing)
        await c.connect()
        for seat in (1, 2, 3):
            await c.do({"type": "add_bot", "seat": seat})
        await c.wait_for(lambda c: any(e.get("type") == "started" for e in c.events), 30)
        started.set()
        await asyncio.get_running_loop().run_in_executor(None, done.wait, 120)
        await c.close()

    def host() -> None:
        try:
            asyncio.run(start())
        except BaseException as exc:
            failed.append(exc)
            started.set()

    at_table = threading.Thread(target=host)
    at_table.start()
    assert started.wait(60) and not failed, failed
    lobby.wait_for_selector(f'.lobby-table.playing[data-table="{playing}"]')
    # Two waiting tables come: listed before the one being played.
    bea, cai = guest("Bea"), guest("Cai")
    first, second = public_table(bea), public_table(cai)
    for t in (first, second):
        lobby.wait_for_selector(f'.lobby-table[data-table="{t}"][data-free="3"]')
    assert _order(lobby) == [*sorted([first, second]), playing]
    # A person sits at the later one: fewest free seats first, so it comes first.
    dan = guest("Dan")

    async def sit() -> None:
        c = TableClient(base, dan, second)
        await c.connect()
        await c.do({"type": "sit", "seat": 2})
        await c.close()

    _in_a_thread(sit)
    lobby.wait_for_selector(f'.lobby-table[data-table="{second}"][data-free="2"]')
    assert _order(lobby) == [second, first, playing]
    assert "Dan" in lobby.locator(f'.lobby-table[data-table="{second}"]').inner_text()
    # The waiting tables never start: each leaves the lobby when it expires; the one being
    # played stays.
    lobby.wait_for_selector(f'.lobby-table[data-table="{first}"]', state="detached", timeout=60_000)
    lobby.wait_for_selector(
        f'.lobby-table[data-table="{second}"]', state="detached", timeout=60_000
    )
    assert _order(lobby) == [playing]
    done.set()
    at_table.join(30)
    assert not failed, failed
    assert lobby.errors == [], lobby.errors
    lobby.context.close()
    http.close()
