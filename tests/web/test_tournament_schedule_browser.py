"""Scheduled tournaments and the time cap in the browser: the list shows a schedule's next
tournament (not made yet) and the one the service made (marked scheduled, "created by tranque"),
and a capped tournament's page counts down the round's time; in Spanish and English, on a phone
and a desktop, with no serious accessibility finding. Screenshots under /work/shots/schedule/
(or ``TRANQUE_SCHEDULE_SHOTS``)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from test_browser import new_page
from test_friends_browser import DESKTOP, PHONE, _account, _serious
from test_tournaments_browser import _call

pytestmark = pytest.mark.slow
SHOTS = Path(os.environ.get("TRANQUE_SCHEDULE_SHOTS", "/work/shots/schedule"))
WORDS = {
    "es": ("Programados", "programado", "Creado por tranque", "de la ronda"),
    "en": ("Scheduled", "scheduled", "Created by tranque", "left in the round"),
}


def test_the_list_shows_scheduled_tournaments_and_a_page_the_rounds_time(
    browser: Any, server_factory: Any, tmp_path: Path
) -> None:
    db = tmp_path / "sched.db"
    # A weekly Swiss three days from now in Havana, registration open a whole week before: the
    # service makes this week's at its first look, and lists next week's as scheduled.
    day = (datetime.now(ZoneInfo("America/Havana")) + timedelta(days=3)).strftime("%a").lower()
    argv = ["tournament", "schedule", "add", "--name", "Suizo del sábado", "--days", day, "--at",
            "20:00", "--zone", "America/Havana", "--minutes", "30", "--opens", "168",
            "--db", f"sqlite:///{db}"]  # fmt: skip
    # The command line, as an operator runs it (its own process: the browser's loop runs here).
    subprocess.run([sys.executable, "-m", "tranque", *argv], check=True, capture_output=True)
    server = server_factory(db=db)
    base = server.base
    # A capped tournament, started: its round counts down 20 minutes.
    amparo, berto, cuca, dalia = (_account(base, n) for n in ("Amparo", "Berto", "Cuca", "Dalia"))
    _call(base, "POST", "/api/pairs", amparo, {"name": "Las-Primas", "partner": "Cuca"})
    _call(base, "POST", "/api/pairs/Las-Primas/accept", cuca)
    _call(base, "POST", "/api/pairs", berto, {"name": "Dos-Gatos", "partner": "Dalia"})
    _call(base, "POST", "/api/pairs/Dos-Gatos/accept", dalia)
    body = {"name": "Relámpago", "rounds": 1, "no_show": 600, "minutes": 20}
    tid = _call(base, "POST", "/api/tournaments", amparo, body)["id"]
    _call(base, "POST", f"/api/tournaments/{tid}/register", amparo, {"pair": "Las-Primas"})
    _call(base, "POST", f"/api/tournaments/{tid}/register", berto, {"pair": "Dos-Gatos"})
    _call(base, "POST", f"/api/tournaments/{tid}/start", amparo)
    end = time.monotonic() + 30
    while True:  # the service's first look made this week's occurrence
        listing = _call(base, "GET", "/api/tournaments", amparo)
        made = [x for x in listing["upcoming"] if x["scheduled"]]
        if made or time.monotonic() > end:
            break
        time.sleep(0.2)
    (occurrence,) = made
    (nxt,) = listing["scheduled"]
    assert nxt["starts"] - occurrence["starts"] == pytest.approx(7 * 86400, abs=3600)
    for lang, locale in (("es", "es-ES"), ("en", "en-GB")):
        scheduled, mark, by, left = WORDS[lang]
        for size, viewport in (("phone", PHONE), ("desktop", DESKTOP)):
            v = new_page(browser, viewport, locale)
            v.goto(f"{base}/tournaments")
            v.wait_for_selector("#tn-scheduled li.tn-scheduled")
            assert scheduled in v.locator("#tn-scheduled h2").inner_text()
            assert "Suizo del sábado" in v.locator("#tn-scheduled").inner_text()
            line = v.locator(f"#tn-upcoming li[data-id='{occurrence['id']}']")
            assert f"({mark})" in line.inner_text()
            assert v.evaluate("() => document.documentElement.scrollWidth") <= viewport["width"]
            assert _serious(v) == [], [(x["id"], x["nodes"]) for x in _serious(v)]
            v.screenshot(path=str(_shot(f"list-{lang}-{size}")), full_page=True)
            # The service's own tournament: made by tranque, 30 minutes a game.
            v.click(f"#tn-upcoming li[data-id='{occurrence['id']}'] a")
            v.wait_for_selector("#tn-by-tranque")
            assert by in v.locator("#tn-by-tranque").inner_text()
            assert "30 min" in v.locator(".tn-facts").inner_text()
            assert v.locator("#tn-starts").count() == 1
            v.screenshot(path=str(_shot(f"scheduled-{lang}-{size}")), full_page=True)
            # The capped tournament: the round's time left, counting down from 20 minutes.
            v.goto(f"{base}/tournament/{tid}")
            v.wait_for_selector("#tn-time")
            assert left in v.locator("#tn-time").inner_text()
            seconds = int(v.locator("#tn-time").get_attribute("data-left") or "0")
            assert 18 * 60 < seconds <= 20 * 60
            assert v.evaluate("() => document.documentElement.scrollWidth") <= viewport["width"]
            assert "null" not in v.locator("#tournament").inner_text()
            one_round = {"es": "· 1 ronda ·", "en": "· 1 round ·"}[lang]  # one, not "1 rondas"
            assert one_round in v.locator(".tn-facts").inner_text()
            assert _serious(v) == [], [(x["id"], x["nodes"]) for x in _serious(v)]
            v.screenshot(path=str(_shot(f"capped-{lang}-{size}")), full_page=True)
            assert v.errors == [], v.errors
            v.context.close()


def _shot(name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    return SHOTS / f"{name}.png"
