"""Moderation in the browser (docs/fairplay.md, "Moderation"): a player reports and blocks a
person from his profile (and may report from a game's page); a moderator's page (/mod, loaded
only when opened) lists the screen's flags and the reports with their games and acts on them;
anyone else gets no more than "for moderators only". Shot on a phone (390x844) and a desktop
(1366x900) in Spanish and English, in /work/shots/mod/ when it exists (else the artifacts)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from screens import ARTIFACTS, BLOCKING, axe
from test_browser import new_page
from test_browser_accounts import PASSWORD, _off_the_page
from test_profile_people import _four_people

from tranque.store import open_store
from tranque.store.moderation import SqlModeration

pytestmark = pytest.mark.slow

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 900}
SHOTS = Path("/work/shots/mod") if Path("/work/shots").is_dir() else ARTIFACTS / "mod"


def _claim(base: str, guest: dict[str, Any], name: str) -> dict[str, Any]:
    r = httpx.post(
        f"{base}/api/accounts",
        json={"name": name, "password": PASSWORD},
        headers={"authorization": f"Bearer {guest['token']}"},
        timeout=60,
    )
    assert r.status_code == 200, r.text
    return dict(r.json())


def _as(browser: Any, size: dict[str, int], lang: str, who: dict[str, Any]) -> Any:
    page = new_page(browser, size, "es-ES" if lang == "es" else "en-GB")
    page.add_init_script(
        f"localStorage.setItem('tranque.lang', '{lang}');"
        f"localStorage.setItem('tranque.guest', {json.dumps(json.dumps(who))});"
    )
    return page


def _blocking(page: Any) -> list[Any]:
    return [(v["id"], v["nodes"]) for v in axe(page) if v["impact"] in BLOCKING and not v["aaa"]]


def test_report_block_and_the_moderators_page(browser: Any, server: Any) -> None:
    base = server.base
    tid, guests = _off_the_page(lambda: _four_people(base))
    moira, pablo, rita, tomas = (
        _claim(base, g, n) for g, n in zip(guests, ("Moira", "Pablo", "Rita", "Tomas"), strict=True)
    )
    granted = subprocess.run(
        [sys.executable, "-m", "tranque", "admin", "grant", "Moira", "moderator", "--db",
         server.url], capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert granted.returncode == 0, granted.stderr

    async def flag() -> None:
        store = await open_store(server.url, migrate=False)
        try:
            await SqlModeration(store).save_flags(
                [{"ids": ["Pablo", "Tomas"], "games": 14, "decisions": 640,
                  "reasons": ["hindsight_edge", "partner_edge"], "z_edge": 4.4, "z_partner": 3.9},
                 {"id": "Pablo", "games": 14, "decisions": 330,
                  "reasons": ["stronger_than_the_strong_bot"], "z_strength": 4.1}], time.time(),
            )  # fmt: skip
        finally:
            await store.close()

    _off_the_page(flag)
    SHOTS.mkdir(parents=True, exist_ok=True)

    # A player: the report's dialog on a profile and on a game's page; the block button.
    for lang in ("es", "en"):
        for view, size in (("phone", PHONE), ("desktop", DESKTOP)):
            page = _as(browser, size, lang, rita)
            page.goto(f"{base}/u/Pablo")
            page.wait_for_selector("#block:not([hidden])")
            page.screenshot(path=str(SHOTS / f"profile-actions-{lang}-{view}.png"))
            page.click("#report-open")
            page.wait_for_selector("#report-send")
            page.screenshot(path=str(SHOTS / f"report-{lang}-{view}.png"))
            assert page.locator("input[name=report-reason]").count() == 5
            assert _blocking(page) == []
            page.click("#report-cancel")
            page.goto(f"{base}/g/{tid}")
            page.wait_for_selector("#report-open")
            page.screenshot(path=str(SHOTS / f"game-report-{lang}-{view}.png"))
            page.click("#report-open")
            # Her game's people but herself: Moira, Pablo, Tomas.
            assert page.locator("#report-who option").count() == 3
            assert not page.errors, page.errors
            page.context.close()
    page = _as(browser, PHONE, "es", rita)
    page.goto(f"{base}/g/{tid}")
    page.click("#report-open")
    page.select_option("#report-who", "Pablo")
    page.check("input[value=partner_signals]")
    page.click("#report-send")
    page.wait_for_selector("text=un moderador mirará sus partidas")
    page.goto(f"{base}/u/Pablo")
    page.click("#block:not([hidden])")
    page.wait_for_selector("#block:has-text('Desbloquear')")
    page.context.close()
    blocked = httpx.get(f"{base}/api/blocks", headers={"authorization": f"Bearer {rita['token']}"})
    assert blocked.json()["blocked"] == [{"profile": "Pablo", "nickname": "Pablo"}]

    # Anyone but a moderator: "for moderators only", and nothing of the reports.
    page = _as(browser, PHONE, "es", tomas)
    page.goto(f"{base}/mod")
    page.wait_for_selector("#mod-error")
    text = page.locator("main").inner_text()
    assert "solo para moderadores" in text and "Rita" not in text and "Pablo" not in text
    page.context.close()

    # The moderator: flags, reports, games; shots; then a suspension through the page.
    for lang in ("es", "en"):
        for view, size in (("phone", PHONE), ("desktop", DESKTOP)):
            page = _as(browser, size, lang, moira)
            page.goto(f"{base}/u/Moira")
            page.click("#mod-link")
            page.wait_for_selector("#mod-flags .mod-card")
            assert page.locator("#mod-flags .mod-card").count() == 2
            [report] = page.locator("#mod-reports .mod-card").all()
            assert "Rita" in report.inner_text()
            page.locator("#flag-0 summary").click()
            assert page.locator(f"#flag-games-0 a[href='/g/{tid}']").count() == 1
            page.screenshot(path=str(SHOTS / f"mod-{lang}-{view}.png"), full_page=True)
            assert _blocking(page) == [], lang
            assert not page.errors, page.errors
            page.context.close()
    page = _as(browser, DESKTOP, "en", moira)
    page.goto(f"{base}/mod")
    page.wait_for_selector("#mod-reports .mod-card")
    page.click("#suspend-r0")  # no reason: refused, said under the buttons
    page.wait_for_selector("#report-0 .error:has-text('Say why')")
    page.fill("#reason-r0", "signals to his partner, 3 reports")
    page.select_option("#hours-r0", "168")
    page.click("#suspend-r0")
    page.wait_for_selector("#mod-standing li:has-text('Pablo')")
    page.wait_for_selector("#mod-log li:has-text('suspension')")
    page.fill("#reason-f0", "read the games: partners at home")
    page.click("#review-f0")
    page.wait_for_selector("#mod-flags .mod-card >> nth=0")
    page.wait_for_function("() => document.querySelectorAll('#mod-flags .mod-card').length === 1")
    page.screenshot(path=str(SHOTS / "mod-after-en-desktop.png"), full_page=True)
    assert not page.errors, page.errors
    page.context.close()
    queue = _off_the_page(lambda: _queue(base, pablo["token"]))
    assert queue["code"] == "suspended", queue
    assert "Traceback" not in server.stop()


async def _queue(base: str, token: str) -> dict[str, Any]:
    import websockets

    async with websockets.connect(base.replace("http", "ws", 1) + "/ws") as ws:
        await ws.send(json.dumps({"type": "queue", "token": token, "variant": "havana"}))
        while True:
            m = json.loads(await asyncio.wait_for(ws.recv(), 30))
            if m["type"] in ("queued", "error"):
                return dict(m)


def test_a_seat_shows_the_completion_rate_of_a_person_who_left_tables(
    browser: Any, server: Any
) -> None:
    import sqlite3

    base = server.base
    g = httpx.post(f"{base}/api/guests", json={"nickname": "Lola"}).json()
    table = httpx.post(
        f"{base}/api/tables",
        json={"rules": "havana", "practice": False, "seat": 0},
        headers={"authorization": f"Bearer {g['token']}"},
    ).json()["table"]
    con = sqlite3.connect(server.db)
    with con:  # two tables begun, one of them left to a bot: 1 of 2 finished
        for t in ("p1", "p2"):
            con.execute(
                "INSERT INTO plays (table_id, guest, seat, nickname, preset, won, rated,"
                " pollonas_given, pollonas_suffered, viajeras, finished)"
                " VALUES (?, ?, 0, 'Lola', 'havana', 0, 1, 0, 0, 0, 1.0)", (t, g["guest"]),
            )  # fmt: skip
        con.execute("INSERT INTO departures (table_id, guest, kind, ts) VALUES"
                    " ('p2', ?, 'leaver', 1.0)", (g["guest"],))  # fmt: skip
    con.close()
    for lang, title in (("es", "Termina el 50 %"), ("en", "Finishes 50 %")):
        for view, size in (("phone", PHONE), ("desktop", DESKTOP)):
            page = _as(browser, size, lang, {**g, "named": True})
            page.goto(f"{base}/t/{table}")
            shown = page.locator('.seat[data-seat="0"] .seat-completion')
            shown.wait_for()
            assert shown.inner_text() == "50 %"
            assert shown.get_attribute("title").startswith(title)
            page.screenshot(path=str(SHOTS / f"seat-completion-{lang}-{view}.png"))
            assert _blocking(page) == []
            assert not page.errors, page.errors
            page.context.close()
