"""The game page in the browser (issue 14): a finished game with a person at /g/{table}: step
through a hand (buttons, keys, a move of the list, the slider), the four hands shrinking and the
chain growing, the hand's end; the analysis marks on the moves and the better move drawn on the
chain; the deal's checks recomputed in the page; the record downloaded from the page verifies;
the profile's paged games and the public list link to it. Shot on a phone and a desktop, in
Spanish and English, into ``tests/web/artifacts/game-*.png``."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from screens import ARTIFACTS, Checks
from test_browser import DESKTOP, PHONE, new_page

from tranque.client import TableClient, create_table, new_guest, random_legal

pytestmark = pytest.mark.slow


def finished_game(base: str, rules: Any = None) -> tuple[dict[str, Any], str]:
    """A public practice game to 30, a person at seat 0 playing random legal moves; played on
    a thread of its own (Playwright's sync API holds this thread's event loop)."""
    out: dict[str, Any] = {}
    rules = rules or {"preset": "havana", "target": 30}

    async def go() -> None:
        g = await new_guest(base, "Marta")
        t = await create_table(base, g["token"], rules=rules, practice=True, public=True)
        c = TableClient(base, g["token"], t["table"])
        await c.connect()
        await c.play_game(random_legal, seed=7, timeout=300)
        await c.close()
        out.update(guest=g, table=t["table"])

    thread = threading.Thread(target=lambda: asyncio.run(go()))
    thread.start()
    thread.join(600)
    return out["guest"], out["table"]


def analysed(base: str, tid: str, seconds: float = 300) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        body: dict[str, Any] = httpx.get(f"{base}/api/tables/{tid}/analysis", timeout=30).json()
        if body["fair"]["status"] == "done":
            return body
        time.sleep(0.25)
    raise AssertionError("the game was not analysed")


NUMBERS = {
    "es": ["blanca", "uno", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve"],
    "en": ["blank", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"],
}


def spoken(tile: str, lang: str) -> str:
    """A tile's name as the table says it (web/js/tiles.js): "ocho-siete", "double four"."""
    hi, lo = max(int(tile[0]), int(tile[1])), min(int(tile[0]), int(tile[1]))
    if hi == lo:
        if lang == "en":
            return f"double {NUMBERS['en'][hi]}"
        return "doble blanco" if hi == 0 else f"doble {NUMBERS['es'][hi]}"
    return f"{NUMBERS[lang][hi]}-{NUMBERS[lang][lo]}"


def said(move: str, lang: str) -> str:
    """A move ("87@7", "55") in the game page's words: "the eight-seven on the 7"."""
    tile, _, at = move.partition("@")
    if lang == "en":
        return f"the {spoken(tile, 'en')}" + (f" on the {at}" if at else "")
    return f"la {spoken(tile, 'es')}" + (f" en el {at}" if at else "")


def count(page: Any) -> str:
    return str(page.inner_text("#move-count"))


def test_the_game_page_replays_marks_verifies_and_downloads(
    browser: Any, server: Any, tmp_path: Path
) -> None:
    base = server.base
    guest, tid = finished_game(base)
    record = httpx.get(f"{base}/api/tables/{tid}/record", timeout=30).json()
    body = analysed(base, tid)
    hands = record["hands"]
    fair = {h["number"]: h["plays"] for h in body["fair"]["analysis"]["hands"]}
    # The hand shown: the first whose analysis has a play that was not the best.
    number = next((n for n, ps in fair.items() if any(p["best"] != p["played"] for p in ps)), 1)
    hi = [h["number"] for h in hands].index(number)
    hand = hands[hi]
    n = len(hand["moves"])
    checks = Checks()
    page = new_page(browser, DESKTOP, "en-GB")
    page.add_init_script("localStorage.setItem('tranque.lang', 'en')")
    page.goto(f"{base}/g/{tid}?hand={number}")
    page.wait_for_selector("#viewer")

    with checks.check("step through the hand"):
        assert count(page) == f"Move 0 of {n}"
        assert page.locator("#chain .gt").count() == 0
        dealt = [len(hand["hands"][s].split()) for s in range(4)]
        assert [page.locator(f".seat-hand[data-seat='{s}'] .gt").count() for s in range(4)] == dealt
        page.click("#step-forward")
        assert count(page) == f"Move 1 of {n}"
        assert page.locator("#chain .gt").count() == 1
        leader = hand["leader"]
        assert page.locator(f".seat-hand[data-seat='{leader}'] .gt").count() == dealt[leader] - 1
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        assert count(page) == f"Move 3 of {n}"
        page.keyboard.press("ArrowLeft")
        assert count(page) == f"Move 2 of {n}"
        played = sum(1 for m in hand["moves"][:2] if m != "pass")
        assert page.locator("#chain .gt:not(.ghost)").count() == played
        page.keyboard.press("End")
        assert count(page) == f"Move {n} of {n}"
        page.wait_for_selector("#hand-end")
        assert page.locator("#sleepers .gt").count() == len(hand["sleepers"].split())
        left = sum(len(x.split()) for x in hand["hands"]) - sum(
            1 for m in hand["moves"] if m != "pass"
        )
        assert page.locator(".seat-hand .gt").count() == left
        page.click(f"#moves button[data-index='{n - 3}']")
        assert count(page) == f"Move {n - 2} of {n}"
        page.fill("#jump", "0")
        page.dispatch_event("#jump", "input")
        assert count(page) == f"Move 0 of {n}"

    with checks.check("the analysis marks and the better move"):
        page.wait_for_selector("#value-chart")
        tagged = [p for p in fair[number] if p["tag"]]
        assert page.locator("#moves button.move[class*='tag-']").count() == len(tagged)
        dots = page.locator("#value-chart circle.dot").count()
        assert dots == len(fair[number]), (dots, fair[number])
        worse = next((p for p in fair[number] if p["best"] != p["played"]), None)
        if worse is not None:
            page.click(f"#moves button[data-index='{worse['index']}']")
            page.wait_for_selector("#better-move")
            verdict = page.inner_text("#play-verdict")
            assert said(worse["best"], "en") in verdict, verdict
            assert said(worse["played"], "en") in verdict, verdict
            assert page.locator("#chain .ghost").count() == 1
            page.click("#step-forward")
            assert page.locator("#better-move").count() == 0 or fair[number][0]["index"] == 0
        people = page.locator("#losses thead th")
        assert people.count() == len(body["seats"]) == 1
        assert page.locator("#losses tbody tr").count() == len(fair)
        total = page.inner_text("#losses tfoot td.total")
        plays = [p for ps in fair.values() for p in ps]
        mean = sum(p["loss"] for p in plays) / len(plays)
        assert total == f"{mean:.1f} ({len(plays)})", total

    with checks.check("the deal's checks are recomputed in the page"):
        last = hands[-1]["number"]
        page.wait_for_selector(f".hand-tab[data-hand='{last}'] .verdict", timeout=90_000)
        verdicts = page.locator(".hand-tab .verdict[data-ok='true']").count()
        assert verdicts == len(hands), verdicts
        page.click("#checks summary")
        assert page.locator("#checks li.ok").count() >= 6
        assert page.locator("#checks li.bad").count() == 0

    with checks.check("the downloaded record verifies"):
        with page.expect_download() as got:
            page.click("#download")
        path = tmp_path / "record.json"
        got.value.save_as(path)
        assert json.loads(path.read_text()) == record
        out = subprocess.run(
            [sys.executable, "-m", "tranque.cli", "verify", str(path), "--json"],
            capture_output=True,
            text=True,
            check=False,
        )
        assert out.returncode == 0, out.stdout + out.stderr

    with checks.check("hindsight on request"):
        page.click("#ask-hindsight")
        page.wait_for_selector("#hindsight-pending")
        deadline = time.monotonic() + 120
        while True:
            asked = httpx.get(f"{base}/api/tables/{tid}/analysis", timeout=30).json()
            if asked["hindsight"] and asked["hindsight"][0]["status"] == "done":
                break
            assert time.monotonic() < deadline, asked
            time.sleep(0.25)
        [hs] = asked["hindsight"]
        assert (hs["game"], hs["hand"]) == (1, number)
        rated = hs["analysis"]["hands"][0]["plays"][-1]
        page.wait_for_selector("#hindsight-pending", state="detached", timeout=30_000)
        page.click(f"#moves button[data-index='{rated['index']}']")
        text = page.inner_text("#hindsight-verdict")
        assert said(rated["best"], "en") in text, (text, rated)

    with checks.check("screenshots, desktop and phone, en and es"):
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.goto(f"{base}/g/{tid}?hand={number}")
        page.wait_for_selector("#value-chart")
        for _ in range(max(1, n // 2)):
            page.keyboard.press("ArrowRight")
        page.screenshot(path=str(ARTIFACTS / "game-en-desktop.png"), full_page=True)
        page.set_viewport_size(PHONE)
        page.screenshot(path=str(ARTIFACTS / "game-en-phone.png"), full_page=True)
        es = new_page(browser, PHONE)
        es.add_init_script("localStorage.setItem('tranque.lang', 'es')")
        es.goto(f"{base}/g/{tid}?hand={number}")
        es.wait_for_selector("#value-chart")
        assert es.inner_text("#move-count") == f"Jugada 0 de {n}"
        for _ in range(max(1, n // 2)):
            es.keyboard.press("ArrowRight")
        es.screenshot(path=str(ARTIFACTS / "game-es-phone.png"), full_page=True)
        es.set_viewport_size(DESKTOP)
        es.screenshot(path=str(ARTIFACTS / "game-es-desktop.png"), full_page=True)
        assert not es.errors, es.errors

    with checks.check("the game page runs under the page's content security policy"):
        ctx = browser.new_context(viewport=PHONE, locale="es-ES")
        strict = ctx.new_page()
        problems: list[str] = []
        strict.on("pageerror", lambda e: problems.append(str(e)))
        strict.on(
            "console",
            lambda m: (
                problems.append(m.text)
                if m.type == "error" or "Content Security Policy" in m.text
                else None
            ),
        )
        strict.goto(f"{base}/g/{tid}?hand={number}")
        strict.wait_for_selector("#value-chart", timeout=30_000)
        strict.keyboard.press("End")
        strict.wait_for_selector("#hand-end")
        assert (
            strict.evaluate("getComputedStyle(document.querySelector('.g-chain')).display")
            == "flex"
        )
        assert problems == [], problems
        ctx.close()

    with checks.check("the lists link to the game"):
        page.goto(f"{base}/u/~{guest['guest']}")
        page.wait_for_selector(f"#person-games a[href='/g/{tid}']")
        page.goto(f"{base}/games")
        page.click(f"#recent-games a[href='/g/{tid}']")
        page.wait_for_selector("#viewer")
        assert page.url.endswith(f"/g/{tid}")

    assert not page.errors, page.errors
    checks.verify(
        "step through the hand",
        "the analysis marks and the better move",
        "the deal's checks are recomputed in the page",
        "the downloaded record verifies",
        "hindsight on request",
        "screenshots, desktop and phone, en and es",
        "the lists link to the game",
        "the game page runs under the page's content security policy",
    )


def test_a_table_in_progress_has_no_game_page_yet(browser: Any, server: Any) -> None:
    guest = httpx.post(f"{server.base}/api/guests", json={"nickname": "Ana"}).json()
    table = httpx.post(
        f"{server.base}/api/tables",
        json={"rules": "havana", "practice": False, "seat": 0},
        headers={"authorization": f"Bearer {guest['token']}"},
    ).json()["table"]
    page = new_page(browser, PHONE)
    page.goto(f"{server.base}/g/{table}")
    page.wait_for_selector("#game-error")
    assert "jugando" in page.inner_text("#game-error")
    assert page.get_attribute("#to-table", "href") == f"/t/{table}"
    page.goto(f"{server.base}/g/no-such-table")
    page.wait_for_selector("#game-error")
    assert page.inner_text("#game-error") == "No hay ninguna partida con ese nombre."
    assert not page.errors, page.errors


def test_a_match_has_a_planilla_per_game_and_its_hands_replay(browser: Any, server: Any) -> None:
    for _ in range(6):  # a match of two games or more (a pollona alone wins one)
        _, tid = finished_game(server.base, {"preset": "miami", "target": 30})
        record = httpx.get(f"{server.base}/api/tables/{tid}/record", timeout=30).json()
        if len(record["games"]) >= 2:
            break
    assert record["format"] == "tranque-match/1" and len(record["games"]) >= 2
    body = analysed(server.base, tid)
    last = len(record["games"])
    hand = record["games"][-1]["hands"][0]
    page = new_page(browser, PHONE)
    page.goto(f"{server.base}/g/{tid}?game={last}&hand=1")
    page.wait_for_selector("#viewer")
    for g in range(1, last + 1):
        assert page.locator(f"#planilla-{g}").count() == 1
    # The hand open is the last game's first: its deal, its moves.
    dealt = [len(hand["hands"][s].split()) for s in range(4)]
    assert [page.locator(f".seat-hand[data-seat='{s}'] .gt").count() for s in range(4)] == dealt
    assert page.inner_text("#move-count") == f"Jugada 0 de {len(hand['moves'])}"
    page.keyboard.press("End")
    page.wait_for_selector("#hand-end")
    # Every hand of every game has its checks; the losses table has a row per hand.
    hands = sum(len(g["hands"]) for g in record["games"])
    page.wait_for_function(
        f"document.querySelectorAll('.hand-tab .verdict').length === {hands}", timeout=90_000
    )
    assert page.locator(".hand-tab .verdict[data-ok='true']").count() == hands
    page.wait_for_selector("#losses")
    assert page.locator("#losses tbody tr").count() == hands
    assert body["fair"]["analysis"]["games"][-1]["hands"][0]["number"] == 1
    assert not page.errors, page.errors
