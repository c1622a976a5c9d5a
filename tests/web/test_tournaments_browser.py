"""Tournaments in the browser: the list and its form, a tournament's page for a visitor and for
an entrant (registering his pair from the page, the creator starting it), and "your table is
ready" with the seat's link and the tab's title once his round's table is open; in Spanish and
English, on a phone and a desktop, with no serious accessibility finding. Screenshots under
/work/shots/tourney/ (or ``TRANQUE_TOURNEY_SHOTS``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_browser import new_page
from test_friends_browser import DESKTOP, PASSWORD, PHONE, _account, _serious, _signed_in

pytestmark = pytest.mark.slow
SHOTS = Path(os.environ.get("TRANQUE_TOURNEY_SHOTS", "/work/shots/tourney"))


def _call(base: str, method: str, path: str, who: dict[str, Any], body: Any = None) -> Any:
    r = httpx.request(method, base + path, json=body,
                      headers={"authorization": f"Bearer {who['token']}"}, timeout=30)  # fmt: skip
    assert r.status_code == 200, r.text
    return r.json()


def _shoot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_a_tournament_page_registers_a_pair_and_shows_the_table_ready(
    browser: Any, server: Any
) -> None:
    base = server.base
    amparo, berto, cuca, dalia = (_account(base, n) for n in ("Amparo", "Berto", "Cuca", "Dalia"))
    _call(base, "POST", "/api/pairs", amparo, {"name": "Las-Primas", "partner": "Cuca"})
    _call(base, "POST", "/api/pairs/Las-Primas/accept", cuca)
    _call(base, "POST", "/api/pairs", berto, {"name": "Dos-Gatos", "partner": "Dalia"})
    _call(base, "POST", "/api/pairs/Dos-Gatos/accept", dalia)
    # Amparo creates it from the form on the list.
    a = _signed_in(browser, base, amparo, DESKTOP, "es-ES")
    a.goto(f"{base}/tournaments")
    a.wait_for_selector("#tn-form")
    a.fill("#tn-name", "Copa del Barrio")
    a.fill("#tn-rounds", "2")
    a.fill("#tn-no-show", "600")  # nobody is ruled absent while the screenshots are taken
    a.click("#tn-make")
    a.wait_for_selector("#tn-register")
    tid = a.evaluate("() => location.pathname").rsplit("/", 1)[1]
    assert a.locator("#tn-state").inner_text().endswith("Inscripción abierta")
    # She enters her pair from the page; Berto's pair enters by the API.
    a.select_option("#tn-pair", "Las-Primas")
    a.click("#tn-register button[type=submit]")
    a.wait_for_selector("#tn-entered")
    _call(base, "POST", f"/api/tournaments/{tid}/register", berto, {"pair": "Dos-Gatos"})
    a.wait_for_selector("#tn-entrants li[data-id='p2']")
    assert _serious(a) == [], [(v["id"], v["nodes"]) for v in _serious(a)]
    _shoot(a, "tournament-registering-es-desktop")
    a.click("#tn-start")
    # Her table is ready: the seat's link, the title, the round's tables linking to the game.
    a.wait_for_selector("#tn-ready #tn-go")
    link = a.locator("#tn-go").get_attribute("href")
    assert link is not None and link.startswith("/t/")
    assert a.title().startswith("¡Tu mesa!")
    assert a.locator(f"#tn-round a[href='{link}']").count() == 1
    assert "Ronda 1 de 2" in a.locator("#tn-round h2").inner_text()
    assert a.locator("#tn-left").count() == 1
    assert _serious(a) == [], [(v["id"], v["nodes"]) for v in _serious(a)]
    _shoot(a, "tournament-ready-es-desktop")
    # The bell says so too.
    a.click("#bell")
    a.wait_for_selector("text=Tu mesa de la ronda 1 de Copa del Barrio está lista.")
    _shoot(a, "tournament-bell-es-desktop")
    assert a.errors == [], a.errors
    a.context.close()
    for locale, lang in (("es-ES", "es"), ("en-GB", "en")):
        for size, viewport in (("phone", PHONE), ("desktop", DESKTOP)):
            # An entrant, signed in: the table ready, in his language.
            who = cuca if size == "phone" else berto
            p = _signed_in(browser, base, who, viewport, locale)
            p.goto(f"{base}/tournament/{tid}")
            p.wait_for_selector("#tn-ready #tn-go")
            words = "Your table is ready!" if lang == "en" else "¡Tu mesa está lista!"
            assert words in p.locator("#tn-ready").inner_text()
            assert p.evaluate("() => document.documentElement.scrollWidth") <= viewport["width"]
            assert "null" not in p.locator("#tournament").inner_text()
            assert _serious(p) == [], [(v["id"], v["nodes"]) for v in _serious(p)]
            _shoot(p, f"tournament-ready-{lang}-{size}")
            assert p.errors == [], p.errors
            p.context.close()
            # A visitor: the list and the page, nothing to do but watch.
            v = new_page(browser, viewport, locale)
            v.goto(f"{base}/tournaments")
            v.wait_for_selector(f"#tn-running li[data-id='{tid}']")
            assert v.locator("#tn-account").count() == 1
            assert _serious(v) == [], [(x["id"], x["nodes"]) for x in _serious(v)]
            _shoot(v, f"tournaments-{lang}-{size}")
            v.click(f"#tn-running li[data-id='{tid}'] a")
            v.wait_for_selector("#tn-round")
            assert v.locator("#tn-ready").count() == 0
            assert v.evaluate("() => document.documentElement.scrollWidth") <= viewport["width"]
            page = v.content()  # nothing private of anybody in the page a visitor gets
            for secret in [PASSWORD, *(x[k] for x in (amparo, berto, cuca, dalia)
                                       for k in ("token", "guest"))]:  # fmt: skip
                assert secret not in page
            _shoot(v, f"tournament-visitor-{lang}-{size}")
            assert v.errors == [], v.errors
            v.context.close()
