"""A peña's tables in the lobby of its members, in the browser: a member's lobby shows, above the
public tables, a section per peña he belongs to; a table the founder opens appears there and on
the peña's page while both are open (pushed, no reload), and the member sits from the lobby. A
non-member's lobby has no word of it. In Spanish and English, on a phone and a desktop, with no
serious accessibility finding. Screenshots under /work/shots/penas2/ (or
``TRANQUE_PENAS2_SHOTS``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_friends_browser import DESKTOP, PHONE, _account, _serious, _signed_in

pytestmark = pytest.mark.slow
SHOTS = Path(os.environ.get("TRANQUE_PENAS2_SHOTS", "/work/shots/penas2"))


def _call(base: str, path: str, who: dict[str, Any], body: Any = None) -> Any:
    r = httpx.post(base + path, json=body, headers={"authorization": f"Bearer {who['token']}"},
                   timeout=30)  # fmt: skip
    assert r.status_code == 200, r.text
    return r.json()


def _shoot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def _checked(page: Any, viewport: dict[str, int], name: str) -> None:
    assert _serious(page) == [], [(v["id"], v["nodes"]) for v in _serious(page)]
    wide = page.evaluate("() => document.documentElement.scrollWidth")
    assert wide <= viewport["width"], wide  # nothing wider than the screen
    _shoot(page, name)


def test_a_member_sees_his_penas_tables_in_the_lobby_and_sits(browser: Any, server: Any) -> None:
    base = server.base
    ana, beto, cary = (_account(base, n) for n in ("Ana", "Beto", "Cary"))
    _call(base, "/api/penas", ana, {"name": "La-Esquina", "open": False, "emblem": "gallo"})
    _call(base, "/api/penas", beto, {"name": "Los-Socios", "emblem": "sol"})
    _call(base, "/api/penas/La-Esquina/invite", ana, {"name": "Beto"})
    _call(base, "/api/penas/La-Esquina/join", beto)
    # Beto: his lobby (desktop, English) and the peña's page (phone, Spanish), open before
    # any table of the peña.
    lobby = _signed_in(browser, base, beto, DESKTOP, "en-GB")
    lobby.goto(f"{base}/lobby")
    lobby.wait_for_selector(".lobby-pena[data-pena='La-Esquina'] >> text=No table of the peña now.")
    lobby.wait_for_selector(".lobby-pena[data-pena='Los-Socios']")
    page = _signed_in(browser, base, beto, PHONE, "es-ES")
    page.goto(f"{base}/pena/La-Esquina")
    page.wait_for_selector("#pena-tables >> text=Ninguna mesa abierta ahora.")
    # Ana opens one of the peña's tables from its page.
    a = _signed_in(browser, base, ana, PHONE, "es-ES")
    a.goto(f"{base}/pena/La-Esquina")
    a.click("#pena-new-table")
    a.wait_for_url("**/t/*")
    table = a.url.rsplit("/t/", 1)[1]
    a.wait_for_selector("#bell")
    # It shows on Beto's two pages as they are: pushed, not reloaded.
    row = f".lobby-pena[data-pena='La-Esquina'] li[data-table='{table}']"
    lobby.wait_for_selector(row)
    page.wait_for_selector(f"#pena-tables li[data-table='{table}']")
    assert lobby.locator(f"#lobby-list li[data-table='{table}']").count() == 0  # not public
    _checked(page, PHONE, "pena-page-live-es-phone")
    # Cary, who does not belong: his lobby has no section and no word of the table.
    c = _signed_in(browser, base, cary, PHONE, "es-ES")
    c.goto(f"{base}/lobby")
    c.wait_for_selector("#lobby-empty")
    assert c.locator(".lobby-pena, #lobby-penas").count() == 0
    assert table not in c.content() and "La-Esquina" not in c.content()
    _checked(c, PHONE, "lobby-nonmember-es-phone")
    # Beto's lobby in both languages and sizes.
    for locale, lang in (("es-ES", "es"), ("en-GB", "en")):
        for size, viewport in (("phone", PHONE), ("desktop", DESKTOP)):
            p = _signed_in(browser, base, beto, viewport, locale)
            p.goto(f"{base}/lobby")
            p.wait_for_selector(row)
            assert "undefined" not in p.locator("#lobby").inner_text()
            _checked(p, viewport, f"lobby-member-{lang}-{size}")
            assert p.errors == [], p.errors
            p.context.close()
    # He sits from the lobby's section.
    lobby.click(f"{row} a.sit-link")
    lobby.wait_for_url(f"**/t/{table}")
    lobby.click("button.sit[data-seat='2']")
    lobby.wait_for_function("() => !document.querySelector(\"button.sit[data-seat='2']\")")
    info = httpx.get(f"{base}/api/tables/{table}").json()
    assert [s["nickname"] for s in info["seats"]][:3] == ["Ana", None, "Beto"]
    for p in (lobby, page, a, c):
        assert p.errors == [], p.errors
        p.context.close()


def test_the_founder_hands_over_and_the_new_one_dissolves(browser: Any, server: Any) -> None:
    """Each asks once more before doing it; the bells say so, in both languages."""
    base = server.base
    ana, beto, cary = (_account(base, n) for n in ("Ana", "Beto", "Cary"))
    _call(base, "/api/penas", ana, {"name": "La-Esquina", "emblem": "gallo"})
    for who in (beto, cary):
        _call(base, "/api/penas/La-Esquina/join", who)
    _call(base, "/api/penas/La-Esquina/promote/Beto", ana)
    # Ana (founder, phone, Spanish): the hand-over is offered on an admin's line alone.
    a = _signed_in(browser, base, ana, PHONE, "es-ES")
    a.goto(f"{base}/pena/La-Esquina")
    hand = "#pena-members li[data-member='Beto'] button.danger"
    a.wait_for_selector(hand)
    assert a.locator("#pena-members li[data-member='Cary'] button.danger").count() == 0
    a.wait_for_selector("#pena-dissolve")
    a.click(hand)
    a.wait_for_selector(f"{hand}:has-text('¿Seguro? Será el fundador')")
    _checked(a, PHONE, "pena-hand-over-es-phone")
    a.click(hand)
    a.wait_for_selector("#pena-members li[data-member='Beto'] .role-founder")
    assert a.locator("#pena-dissolve").count() == 0  # an admin now
    # Beto (founder now, desktop, English): his bell says so; he dissolves the peña.
    b = _signed_in(browser, base, beto, DESKTOP, "en-GB")
    b.click("#bell")
    b.wait_for_selector(
        "#fr-notices li:has-text('Ana handed the peña La-Esquina over to you: you are its"
        " founder now.')"
    )  # fmt: skip
    b.click("#fr-notices .see-pena")
    b.wait_for_selector("#pena-dissolve")
    b.click("#pena-dissolve")
    b.wait_for_selector("#pena-dissolve:has-text('Sure? The whole peña goes')")
    _checked(b, DESKTOP, "pena-dissolve-en-desktop")
    b.click("#pena-dissolve")
    b.wait_for_url("**/penas")
    assert httpx.get(f"{base}/api/penas/La-Esquina").status_code == 404
    # Cary's bell (phone, English): the notice, with no way to a page that is gone.
    c = _signed_in(browser, base, cary, PHONE, "en-GB")
    c.click("#bell")
    c.wait_for_selector("#fr-notices li:has-text('Beto dissolved the peña La-Esquina.')")
    assert c.locator("#fr-notices .see-pena").count() == 0
    _shoot(c, "bell-dissolved-en-phone")
    for p in (a, b, c):
        assert p.errors == [], p.errors
        p.context.close()
