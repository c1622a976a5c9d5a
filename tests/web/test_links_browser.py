"""Names are links where people sit too (issue 29): at a table and in the lobby, an account
holder's name opens his profile (at the table in a new tab, so the game stays); a guest's name
is plain text. Ana (an account) and Beto (a guest) sit at a public table over real sockets, held
open on a loop of their own while a visitor looks at the lobby and watches the table. Shot on a
phone and a desktop, in Spanish and English (``tests/web/artifacts/links-*``)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

import httpx
import pytest
from screens import ARTIFACTS, BLOCKING, axe
from test_browser import DESKTOP, PHONE, new_page
from test_browser_accounts import PASSWORD

from tranque.client import TableClient, create_table, new_guest

pytestmark = pytest.mark.slow
T = TypeVar("T")


class Sitters:
    """People at a table, their sockets open on a loop of their own thread (Playwright's
    synchronous API holds the test's) until ``leave``."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.clients: list[TableClient] = []

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(60)

    async def sit(self, base: str) -> str:
        ana, beto = await new_guest(base, "Ana"), await new_guest(base, "Beto")
        async with httpx.AsyncClient(base_url=base, timeout=60) as http:
            claimed = await http.post(
                "/api/accounts",
                json={"name": "anita", "password": PASSWORD},
                headers={"authorization": f"Bearer {ana['token']}"},
            )
            assert claimed.status_code == 200, claimed.text
            ana["token"] = claimed.json()["token"]  # the guest's own is refused from now on
        table = await create_table(
            base, ana["token"], rules={"preset": "havana", "target": 30},
            practice=False, public=True,
        )  # fmt: skip
        tid: str = table["table"]
        for seat, g in enumerate((ana, beto)):
            c = TableClient(base, g["token"], tid)
            await c.connect()
            if seat:
                assert (await c.do({"type": "sit", "seat": seat}))["type"] == "ack"
            self.clients.append(c)
        return tid

    def leave(self) -> None:
        async def close() -> None:
            for c in self.clients:
                await c.close()

        self.run(close())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()  # else its sockets and itself are left to a later test's collection


def _no_blocking(page: Any) -> None:
    bad = [(v["id"], v["nodes"]) for v in axe(page) if v["impact"] in BLOCKING and not v["aaa"]]
    assert bad == [], bad


def test_names_at_a_table_and_in_the_lobby_link_to_profiles(browser: Any, server: Any) -> None:
    base = server.base
    sitters = Sitters()
    try:
        tid = sitters.run(sitters.sit(base))
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        for lang in ("es", "en"):
            for view, size in (("phone", PHONE), ("desktop", DESKTOP)):
                page = new_page(browser, size, "es-ES" if lang == "es" else "en-GB")
                page.add_init_script(f"localStorage.setItem('tranque.lang', '{lang}')")
                # The lobby: Ana's name links to her profile, Beto's (a guest) is text.
                page.goto(f"{base}/lobby")
                line = page.locator(f'.lobby-table[data-table="{tid}"]')
                line.locator("a.seat-name[href='/u/anita']").wait_for()
                assert line.locator("a.seat-name").count() == 1
                assert "Beto" in line.inner_text()
                page.screenshot(path=str(ARTIFACTS / f"links-lobby-{lang}-{view}.png"))
                _no_blocking(page)
                # Watching the table: the same, and the profile opens in a new tab.
                page.goto(f"{base}/t/{tid}?watch=1")
                ana = page.locator(".seat a.name[href='/u/anita']")
                ana.wait_for()
                assert ana.get_attribute("target") == "_blank"
                assert page.locator(".seat a.name").count() == 1
                assert page.locator(".seat span.name", has_text="Beto").count() == 1
                page.screenshot(path=str(ARTIFACTS / f"links-table-{lang}-{view}.png"))
                _no_blocking(page)
                with page.context.expect_page() as opened:
                    ana.click()
                profile = opened.value
                profile.wait_for_selector("#profile-name:has-text('anita')")
                profile.close()
                # Back in the lobby, a click on the name opens the profile in the page.
                page.goto(f"{base}/lobby")
                page.locator(f'.lobby-table[data-table="{tid}"] a.seat-name').click()
                page.wait_for_selector("#profile-name:has-text('anita')")
                assert not page.errors, page.errors
                page.context.close()
    finally:
        sitters.leave()
