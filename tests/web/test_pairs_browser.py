"""Pairs in the browser: a pair's page (its partners linking to their profiles, its record, its
rating and its game linking to /g/...), the pairs' leaderboard, a proposal answered from the
pairs' page, and a profile listing the person's pairs; in Spanish and English, on a phone and a
desktop, with no serious accessibility finding. Screenshots under /work/shots/pairs/ (or
``TRANQUE_PAIRS_SHOTS``).

One pair plays a real game; a second pair's settled rating (ten games and more) is written into
the server's database directly, so that the leaderboard has rows to show without ten games."""

from __future__ import annotations

import asyncio
import os
import sqlite3
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_browser import new_page
from test_browser_accounts import _off_the_page
from test_friends_browser import DESKTOP, PHONE, _account, _serious, _signed_in

from tranque.client import TableClient, create_table, random_legal

pytestmark = pytest.mark.slow
SHOTS = Path(os.environ.get("TRANQUE_PAIRS_SHOTS", "/work/shots/pairs"))


def _call(base: str, method: str, path: str, who: dict[str, Any], body: Any = None) -> Any:
    r = httpx.request(method, base + path, json=body,
                      headers={"authorization": f"Bearer {who['token']}"}, timeout=30)  # fmt: skip
    assert r.status_code == 200, r.text
    return r.json()


async def _game(base: str, people: list[dict[str, Any]]) -> str:
    table = await create_table(base, people[0]["token"], rules="havana", practice=False)
    tid = table["table"]
    clients = []
    for s, who in enumerate(people):
        c = TableClient(base, who["token"], tid)
        await c.connect()
        if s:
            assert (await c.do({"type": "sit", "seat": s}))["type"] == "ack"
        clients.append(c)
    await asyncio.gather(*(c.play_game(random_legal, seed=s, timeout=600)
                           for s, c in enumerate(clients)))  # fmt: skip
    for c in clients:
        await c.close()
    return str(tid)


def _shoot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_a_pairs_page_and_the_pairs_leaderboard(browser: Any, server: Any) -> None:
    base = server.base
    amparo, berto, cuca, dalia = (_account(base, n) for n in ("Amparo", "Berto", "Cuca", "Dalia"))
    _call(base, "POST", "/api/pairs", amparo, {"name": "Las-Primas", "partner": "Cuca"})
    _call(base, "POST", "/api/pairs/Las-Primas/accept", cuca)
    _call(base, "POST", "/api/pairs", berto, {"name": "Dos-Gatos", "partner": "Dalia"})
    _call(base, "POST", "/api/pairs/Dos-Gatos/accept", dalia)
    tid = _off_the_page(lambda: _game(base, [amparo, berto, cuca, dalia]))
    with sqlite3.connect(server.db) as db:  # Dos-Gatos: a settled rating, for the board's rows
        db.execute("UPDATE pair_ratings SET games = 14, sigma = 120 WHERE pair_id = "
                   "(SELECT id FROM pairs WHERE name = 'Dos-Gatos')")  # fmt: skip
    # A proposal waiting for Berto, answered on the pairs' page.
    _call(base, "POST", "/api/pairs", cuca, {"name": "Cuca-y-Berto", "partner": "Berto"})
    for locale, lang in (("es-ES", "es"), ("en-GB", "en")):
        for size, viewport in (("phone", PHONE), ("desktop", DESKTOP)):
            p = new_page(browser, viewport, locale)
            p.goto(f"{base}/pair/Las-Primas")
            p.wait_for_selector("#pair-record")
            assert p.locator("#pair-name").inner_text() == "Las-Primas"
            hrefs = p.eval_on_selector_all(
                "#pair-partners a", "els => els.map(e => e.getAttribute('href'))"
            )
            assert sorted(hrefs) == ["/u/Amparo", "/u/Cuca"]
            assert p.eval_on_selector_all(
                "#pair-recent a", "els => els.map(e => e.getAttribute('href'))"
            ) == [f"/g/{tid}"]
            assert p.locator("#pair-rating-havana .value").inner_text().rstrip("?").isdigit()
            words = "1 partida" if lang == "es" else "1 game"
            assert words in p.locator("#pair-record").inner_text()
            assert _serious(p) == [], [(v["id"], v["nodes"]) for v in _serious(p)]
            assert "null" not in p.locator("#pair").inner_text()
            _shoot(p, f"pair-{lang}-{size}")
            p.click("a[href='/pairs']")
            p.wait_for_selector("#pairs-table")
            rows = p.locator("#pairs-table tbody tr")
            assert rows.count() == 1 and "Dos-Gatos" in rows.first.inner_text()
            wide = p.evaluate("() => document.documentElement.scrollWidth")
            assert wide <= viewport["width"], wide  # nothing wider than the screen
            assert p.locator("#pairs-account").count() == 1  # a visitor: forming needs an account
            assert _serious(p) == [], [(v["id"], v["nodes"]) for v in _serious(p)]
            _shoot(p, f"pairs-{lang}-{size}")
            assert p.errors == [], p.errors
            p.context.close()
    # The people's leaderboards lead to the pairs' one, for the same variant.
    p = new_page(browser, PHONE, "en-GB")
    p.goto(f"{base}/leaderboards/miami")
    p.click("#pairs-link")
    p.wait_for_selector("#pairs[data-preset='miami'] #pairs-empty")
    p.context.close()
    # Berto, signed in: his pairs and the proposal to answer; accepted, it is his pair.
    for locale, lang, viewport, size in (
        ("es-ES", "es", PHONE, "phone"),
        ("en-GB", "en", DESKTOP, "desktop"),
    ):
        b = _signed_in(browser, base, berto, viewport, locale)
        b.goto(f"{base}/pairs")
        b.wait_for_selector("#pairs-mine")
        assert "Dos-Gatos" in b.locator("#pairs-mine").inner_text()
        assert b.evaluate("() => document.documentElement.scrollWidth") <= viewport["width"]
        if lang == "es":
            b.wait_for_selector("#pairs-incoming button.primary")
            _shoot(b, f"pairs-mine-{lang}-{size}")
            b.click("#pairs-incoming button.primary")
            b.wait_for_function("() => document.querySelectorAll('#pairs-mine li').length === 2")
        else:
            _shoot(b, f"pairs-mine-{lang}-{size}")
        assert b.locator("#pair-form").count() == 1
        b.goto(f"{base}/u/Berto")
        b.wait_for_selector("#profile-pairs")
        links = b.eval_on_selector_all(
            "#profile-pairs a", "els => els.map(e => e.getAttribute('href'))"
        )
        assert sorted(links) == ["/pair/Cuca-y-Berto", "/pair/Dos-Gatos"]
        _shoot(b, f"profile-pairs-{lang}-{size}")
        assert b.errors == [], b.errors
        b.context.close()
