"""A capped game's clock at the table (a tournament's Swiss with a time cap): the time left over
the table, counted down, then "time is up" with what it means; seen by each of the four people,
on a phone and a desktop, in Spanish and English, with no serious accessibility finding and
nothing wider than the screen. A table with no cap has no such line. Screenshots under
/work/shots/timecap/ (or ``TRANQUE_TIMECAP_SHOTS``)."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_browser import create_table, new_page
from test_friends_browser import DESKTOP, PHONE, _account, _serious, _signed_in
from test_tournaments_browser import _call

from conftest import FAST

pytestmark = pytest.mark.slow  # four browsers at one table, past its time
SHOTS = Path(os.environ.get("TRANQUE_TIMECAP_SHOTS", "/work/shots/timecap"))
MINUTE = 1.5  # seconds per minute of a time cap: the 20-minute cap lasts 30 s here
LEFT = {
    "es": re.compile(r"quedan (\d+):(\d\d)$"),
    "en": re.compile(r"^Game time: (\d+):(\d\d) left$"),
}
UP = {"es": "Se acabó el tiempo: esta data es la última", "en": "Time is up: this hand is the last"}


@pytest.fixture
def server_fast_args() -> list[str]:
    return [*FAST, "--tournament-minute", str(MINUTE)]


def _table_of(base: str, tid: str) -> str:
    end = time.monotonic() + 30
    while time.monotonic() < end:
        rnd = httpx.get(f"{base}/api/tournaments/{tid}", timeout=10).json()["round"]
        if rnd and rnd["tables"] and rnd["tables"][0]["table"]:
            return str(rnd["tables"][0]["table"])
        time.sleep(0.2)
    raise AssertionError("the round's table never opened")


def _shoot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_each_person_at_a_capped_table_sees_the_time_left_then_that_it_is_up(
    browser: Any, server: Any
) -> None:
    base = server.base
    amparo, berto, cuca, dalia = (_account(base, n) for n in ("Amparo", "Berto", "Cuca", "Dalia"))
    _call(base, "POST", "/api/pairs", amparo, {"name": "Las-Primas", "partner": "Cuca"})
    _call(base, "POST", "/api/pairs/Las-Primas/accept", cuca)
    _call(base, "POST", "/api/pairs", berto, {"name": "Dos-Gatos", "partner": "Dalia"})
    _call(base, "POST", "/api/pairs/Dos-Gatos/accept", dalia)
    body = {"name": "Relámpago", "rounds": 1, "no_show": 600, "minutes": 20}
    tid = _call(base, "POST", "/api/tournaments", amparo, body)["id"]
    for who, pair in ((amparo, "Las-Primas"), (berto, "Dos-Gatos")):
        _call(base, "POST", f"/api/tournaments/{tid}/register", who, {"pair": pair})
    _call(base, "POST", f"/api/tournaments/{tid}/start", amparo)
    table = _table_of(base, tid)
    looks = [
        (amparo, DESKTOP, "es-ES", "es", "desktop"),
        (cuca, PHONE, "es-ES", "es", "phone"),
        (berto, DESKTOP, "en-GB", "en", "desktop"),
        (dalia, PHONE, "en-GB", "en", "phone"),
    ]
    pages = []
    for who, viewport, locale, lang, size in looks:
        p = _signed_in(browser, base, who, viewport, locale)
        p.goto(f"{base}/t/{table}")
        pages.append((p, lang, size, viewport))
    for p, lang, size, viewport in pages:
        p.wait_for_selector("#time-cap")
        text = p.locator("#time-cap").inner_text()
        found = LEFT[lang].search(text)
        assert found, text
        assert 0 < int(found[1]) * 60 + int(found[2]) <= 20 * MINUTE, text
        assert p.evaluate("() => document.documentElement.scrollWidth") <= viewport["width"]
        assert _serious(p) == [], [(v["id"], v["nodes"]) for v in _serious(p)]
        _shoot(p, f"time-left-{lang}-{size}")
    # It counts down, from the server's clock.
    first, _, _, _ = pages[0]
    was = int(first.locator("#time-cap").get_attribute("data-left") or 0)
    first.wait_for_function(
        f"() => Number(document.getElementById('time-cap').dataset.left) < {was}", timeout=5_000
    )
    # Then the time is up: the hand in play is the last (nobody plays here, so it goes on).
    for p, lang, size, viewport in pages:
        p.wait_for_function(
            "(w) => (document.getElementById('time-cap') || {}).textContent?.startsWith(w)",
            arg=UP[lang],
            timeout=int(20 * MINUTE * 1000) + 15_000,
        )
        assert p.locator("#time-cap").get_attribute("data-left") == "0"
        assert p.evaluate("() => document.documentElement.scrollWidth") <= viewport["width"]
        assert _serious(p) == [], [(v["id"], v["nodes"]) for v in _serious(p)]
        _shoot(p, f"time-up-{lang}-{size}")
    for p, *_ in pages:
        assert p.errors == [], p.errors
        p.context.close()
    # A table with no cap has no such line.
    plain = new_page(browser, DESKTOP, "es-ES")
    create_table(plain, base, target=100)
    plain.wait_for_selector(".hand .tile")
    assert plain.locator("#time-cap").count() == 0
    assert plain.errors == [], plain.errors
    plain.context.close()
