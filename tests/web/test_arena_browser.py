"""An arena's page in the browser: the creator makes it from the list's form (kind arena, its
minutes), joins from the page and starts it; with four people in, a table opens at once and
each of them sees "your table is ready" with his seat's link, the tab's title and the clock;
the tables in play link to their games and the standings list everyone. In Spanish and
English, on a phone and a desktop, with no serious accessibility finding. Screenshots under
/work/shots/arena/ (or ``TRANQUE_ARENA_SHOTS``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from test_browser import new_page
from test_friends_browser import DESKTOP, PHONE, _account, _serious, _signed_in
from test_tournaments_browser import _call

pytestmark = pytest.mark.slow
SHOTS = Path(os.environ.get("TRANQUE_ARENA_SHOTS", "/work/shots/arena"))


def _shoot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_an_arena_page_joins_starts_and_shows_the_table_ready(browser: Any, server: Any) -> None:
    base = server.base
    names = ("Amparo", "Berto", "Cuca", "Dalia")
    amparo, berto, cuca, dalia = (_account(base, n) for n in names)
    a = _signed_in(browser, base, amparo, DESKTOP, "es-ES")
    a.goto(f"{base}/tournaments")
    a.wait_for_selector("#tn-form")
    a.fill("#tn-name", "Arena del Malecón")
    a.select_option("#tn-kind", "arena")
    assert a.locator("#tn-minutes").is_visible() and not a.locator("#tn-rounds").is_visible()
    a.fill("#tn-minutes", "45")
    a.fill("#tn-no-show", "600")  # nobody is ruled absent while the screenshots are taken
    a.click("#tn-make")
    a.wait_for_selector("#ar-join")
    tid = a.evaluate("() => location.pathname").rsplit("/", 1)[1]
    assert a.locator("#tn-state").inner_text() == "Arena · Inscripción abierta"
    assert "45 minutos" in a.locator(".tn-facts").inner_text()
    a.click("#ar-join")
    a.wait_for_selector("#ar-leave")
    for who in (berto, cuca, dalia):
        _call(base, "POST", f"/api/tournaments/{tid}/register", who)
    a.wait_for_selector("#tn-entrants li[data-id='p4']")
    assert _serious(a) == [], [(v["id"], v["nodes"]) for v in _serious(a)]
    _shoot(a, "arena-registering-es-desktop")
    a.click("#tn-start")
    # Four free people: their table opens at once, and her page says so.
    a.wait_for_selector("#tn-ready #tn-go")
    link = a.locator("#tn-go").get_attribute("href")
    assert link is not None and link.startswith("/t/")
    assert a.title().startswith("¡Tu mesa!")
    assert a.locator(f"#ar-tables a[href='{link}']").count() == 1
    assert a.locator("#ar-clock").inner_text().startswith("Quedan 4")  # 45 minutes, counting
    assert a.locator("#tn-standings tbody tr").count() == 4
    assert _serious(a) == [], [(v["id"], v["nodes"]) for v in _serious(a)]
    _shoot(a, "arena-ready-es-desktop")
    a.click("#bell")
    a.wait_for_selector("text=Tu mesa en la arena Arena del Malecón está lista.")
    assert a.errors == [], a.errors
    a.context.close()
    for locale, lang in (("es-ES", "es"), ("en-GB", "en")):
        for size, viewport in (("phone", PHONE), ("desktop", DESKTOP)):
            who = cuca if size == "phone" else berto
            p = _signed_in(browser, base, who, viewport, locale)
            p.goto(f"{base}/tournament/{tid}")
            p.wait_for_selector("#tn-ready #tn-go")
            words = "Your table is ready!" if lang == "en" else "¡Tu mesa está lista!"
            assert words in p.locator("#tn-ready").inner_text()
            leave = "Leave the arena" if lang == "en" else "Salir de la arena"
            assert p.locator("#ar-leave").inner_text() == leave
            _shoot(p, f"arena-ready-{lang}-{size}")
            wide = p.evaluate("""() => [...document.querySelectorAll('#tournament *')]
                .filter((e) => e.getBoundingClientRect().right > window.innerWidth)
                .map((e) => e.tagName + '.' + e.className + ':' + e.textContent.slice(0, 30))""")
            assert wide == [], wide
            assert p.evaluate("() => document.documentElement.scrollWidth") <= viewport["width"]
            assert "null" not in p.locator("#tournament").inner_text()
            assert "undefined" not in p.locator("#tournament").inner_text()
            assert _serious(p) == [], [(v["id"], v["nodes"]) for v in _serious(p)]
            _shoot(p, f"arena-ready-{lang}-{size}")
            assert p.errors == [], p.errors
            p.context.close()
            # A visitor: the list, and the page to watch, with nothing to join without an account.
            v = new_page(browser, viewport, locale)
            v.goto(f"{base}/tournaments")
            v.wait_for_selector(f"#tn-running li[data-id='{tid}']")
            assert "Arena" in v.locator(f"#tn-running li[data-id='{tid}']").inner_text()
            _shoot(v, f"arena-list-{lang}-{size}")
            v.click(f"#tn-running li[data-id='{tid}'] a")
            v.wait_for_selector("#ar-tables li a")
            assert v.locator("#tn-ready").count() == 0 and v.locator("#ar-join").count() == 0
            assert v.evaluate("() => document.documentElement.scrollWidth") <= viewport["width"]
            assert _serious(v) == [], [(x["id"], x["nodes"]) for x in _serious(v)]
            _shoot(v, f"arena-visitor-{lang}-{size}")
            assert v.errors == [], v.errors
            v.context.close()
