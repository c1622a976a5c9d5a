"""Peñas in the browser, several people at once: the founder accepts a request on the peña's
page and opens one of its tables; a member finds it on the page and sits; a non-member reaching
the table by its link is refused in words (``not_a_member``); the board shows what is written as
text, never as markup. The list of peñas and a peña's page in Spanish and English, on a phone
and a desktop, with no serious accessibility finding. Screenshots under /work/shots/penas/ (or
``TRANQUE_PENAS_SHOTS``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_browser import new_page
from test_browser_accounts import _off_the_page
from test_friends_browser import DESKTOP, PHONE, _account, _serious, _signed_in
from test_pairs_browser import _game

pytestmark = pytest.mark.slow
SHOTS = Path(os.environ.get("TRANQUE_PENAS_SHOTS", "/work/shots/penas"))
MARKUP = "<b>viernes</b> a las 8 <img src=x onerror=alert(1)>"


def _call(base: str, method: str, path: str, who: dict[str, Any], body: Any = None) -> Any:
    r = httpx.request(method, base + path, json=body,
                      headers={"authorization": f"Bearer {who['token']}"}, timeout=30)  # fmt: skip
    assert r.status_code == 200, r.text
    return r.json()


def _shoot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def _fits(page: Any, viewport: dict[str, int]) -> None:
    wide = page.evaluate("() => document.documentElement.scrollWidth")
    assert wide <= viewport["width"], wide  # nothing wider than the screen


def test_a_pena_its_page_and_a_members_table(browser: Any, server: Any) -> None:
    base = server.base
    ana, beto, cary = (_account(base, n) for n in ("Ana", "Beto", "Cary"))
    new = {"name": "La-Esquina", "open": False, "emblem": "gallo",
           "description": "Los de la esquina de Obispo y Bernaza, desde 1998."}  # fmt: skip
    _call(base, "POST", "/api/penas", ana, new)
    _call(base, "POST", "/api/penas", beto, {"name": "Los-Socios", "emblem": "sol"})
    _call(base, "POST", "/api/penas/La-Esquina/board", ana, {"text": MARKUP})
    _call(base, "POST", "/api/penas/La-Esquina/join", beto)
    # Ana (founder, phone, Spanish): Beto's request on the page, accepted there.
    a = _signed_in(browser, base, ana, PHONE, "es-ES")
    a.click("#bell")  # the request is in her bell, with the way to the peña's page
    a.wait_for_selector("#fr-notices li:has-text('Beto pide entrar en la peña La-Esquina.')")
    _shoot(a, "bell-request-es-phone")
    a.click("#fr-notices .see-pena")
    a.wait_for_url("**/pena/La-Esquina")
    a.wait_for_selector("#pena-pending li:has-text('Beto')")
    # The board shows the post as text: no element came of it.
    assert a.locator("#pena-board .post").first.inner_text() == MARKUP
    assert a.locator("#pena-board b, #pena-board img").count() == 0
    assert _serious(a) == [], [(v["id"], v["nodes"]) for v in _serious(a)]
    _fits(a, PHONE)
    _shoot(a, "pena-admin-es-phone")
    a.click("#pena-pending button.primary")
    a.wait_for_selector("#pena-members li[data-member='Beto']")
    # She writes on the board, and opens one of the peña's tables: her table's page.
    a.fill("#pena-post-input", "Hoy se juega en la mesa del fondo.")
    a.click("#pena-post button[type=submit]")
    a.wait_for_selector("#pena-board li:has-text('mesa del fondo')")
    a.click("#pena-new-table")
    a.wait_for_url("**/t/*")
    table = a.url.rsplit("/t/", 1)[1]
    a.wait_for_selector("#bell")
    # Beto (member, desktop, English): the table on the peña's page; he sits there.
    b = _signed_in(browser, base, beto, DESKTOP, "en-GB")
    b.click("#bell")
    b.wait_for_selector("#fr-notices li:has-text('Ana accepted you in the peña La-Esquina.')")
    _shoot(b, "bell-accepted-en-desktop")
    b.click("#fr-close")
    b.goto(f"{base}/pena/La-Esquina")
    b.wait_for_selector(f"#pena-tables li[data-table='{table}']")
    assert b.locator("#pena-members li").count() == 2
    assert _serious(b) == [], [(v["id"], v["nodes"]) for v in _serious(b)]
    _shoot(b, "pena-member-en-desktop")
    b.click(f"#pena-tables li[data-table='{table}'] a")
    b.wait_for_url(f"**/t/{table}")
    b.click("button.sit[data-seat='2']")
    b.wait_for_function(
        "() => !document.querySelector(\"button.sit[data-seat='2']\")"
        " && !document.querySelector('button.sit')"
    )
    # Cary (not a member) by the table's link: refused, in words.
    c = _signed_in(browser, base, cary, PHONE, "es-ES")
    c.goto(f"{base}/t/{table}")
    c.click("button.sit[data-seat='1']")
    c.wait_for_selector("text=Solo los socios de la peña se sientan en esta mesa.")
    _shoot(c, "pena-table-refused-es-phone")
    info = httpx.get(f"{base}/api/tables/{table}").json()
    assert [s["nickname"] for s in info["seats"]][:3] == ["Ana", None, "Beto"]
    # Cary sees the page of a peña by invitation: he may ask to join; no tables, no requests.
    c.goto(f"{base}/pena/La-Esquina")
    c.wait_for_selector("#pena-join")
    assert c.locator("#pena-tables, #pena-pending, #pena-post").count() == 0
    _shoot(c, "pena-visitor-es-phone")
    c.click("#pena-join")
    c.wait_for_selector("#pena-leave")
    for p in (a, b, c):
        assert p.errors == [], p.errors
        p.context.close()


def test_the_penas_pages_in_both_languages_and_sizes(browser: Any, server: Any) -> None:
    """Four members play a rated game (Ana and Cary as their pair): the peña's page shows them
    on its leaderboard, their pair, and the game among its recent ones."""
    base = server.base
    ana, beto = _account(base, "Ana"), _account(base, "Beto")
    cary, dino = _account(base, "Cary"), _account(base, "Dino")
    esquina = {"name": "La-Esquina", "open": False, "emblem": "gallo",
               "description": "Obispo y Bernaza"}  # fmt: skip
    _call(base, "POST", "/api/penas", ana, esquina)
    _call(base, "POST", "/api/penas", beto, {"name": "Los-Socios", "emblem": "sol"})
    _call(base, "POST", "/api/penas/Los-Socios/join", ana)
    _call(base, "POST", "/api/penas/La-Esquina/board", ana, {"text": "Torneo el sábado."})
    for who in (cary, dino):
        _call(base, "POST", "/api/penas/Los-Socios/join", who)
    _call(base, "POST", "/api/pairs", ana, {"name": "Ana-y-Cary", "partner": "Cary"})
    _call(base, "POST", "/api/pairs/Ana-y-Cary/accept", cary)
    tid = _off_the_page(lambda: _game(base, [ana, beto, cary, dino]))
    page = _call(base, "GET", "/api/penas/Los-Socios", dino)
    assert sorted(r["name"] for r in page["leaderboards"]["havana"]) == [
        "Ana", "Beto", "Cary", "Dino"]  # fmt: skip
    assert [x["name"] for x in page["pairs"]] == ["Ana-y-Cary"]
    assert [g["table"] for g in page["recent"]] == [tid]
    for locale, lang in (("es-ES", "es"), ("en-GB", "en")):
        for size, viewport in (("phone", PHONE), ("desktop", DESKTOP)):
            p = _signed_in(browser, base, ana, viewport, locale)
            p.goto(f"{base}/penas")
            p.wait_for_selector("#penas-all li[data-pena='Los-Socios']")
            p.wait_for_selector("#penas-mine")
            assert p.locator("#pena-form").count() == 1
            assert _serious(p) == [], [(v["id"], v["nodes"]) for v in _serious(p)]
            _fits(p, viewport)
            _shoot(p, f"penas-{lang}-{size}")
            p.click("#penas-all a[href='/pena/La-Esquina']")
            p.wait_for_selector("#pena-board li")
            assert "null" not in p.locator("#pena").inner_text()
            assert _serious(p) == [], [(v["id"], v["nodes"]) for v in _serious(p)]
            _fits(p, viewport)
            _shoot(p, f"pena-{lang}-{size}")
            p.goto(f"{base}/pena/Los-Socios")
            p.wait_for_selector("#pena-recent a")
            assert p.eval_on_selector_all(
                "#pena-recent a", "els => els.map(e => e.getAttribute('href'))"
            ) == [f"/g/{tid}"]
            assert p.locator("#pena-lb li").count() == 4
            assert p.locator("#pena-pairs a[href='/pair/Ana-y-Cary']").count() == 1
            assert "null" not in p.locator("#pena").inner_text()
            assert "undefined" not in p.locator("#pena").inner_text()
            assert _serious(p) == [], [(v["id"], v["nodes"]) for v in _serious(p)]
            _fits(p, viewport)
            _shoot(p, f"pena-played-{lang}-{size}")
            assert p.errors == [], p.errors
            p.context.close()
    # A visitor: the list says an account is needed; the bell's dialog leads to the peñas.
    v = new_page(browser, PHONE, "en-GB")
    v.goto(f"{base}/penas")
    v.wait_for_selector("#penas-account")
    v.context.close()
    a = _signed_in(browser, base, ana, DESKTOP, "es-ES")
    a.click("#bell")
    a.click("#fr-penas")
    a.wait_for_selector("#penas-all")
    a.context.close()
