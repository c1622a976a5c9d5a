"""The game page speaks the table's words (issue 29, bug 9): no engine notation ("87@7"), a hand
is a "data" as at the table, every tile named in a sentence drawn small beside its words, the
points in each language's format, and on a phone the table of points lost per decision fits (its
total in sight). Shot on a phone and a desktop, in Spanish and English
(``tests/web/artifacts/game-words-*``)."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from screens import ARTIFACTS, BLOCKING, axe
from test_browser import DESKTOP, PHONE, new_page
from test_game_page import analysed, finished_game, said

pytestmark = pytest.mark.slow

ENGINE = re.compile(r"\b\d\d@\d\b")  # a move as the engine writes it


def test_the_game_page_speaks_the_tables_words(browser: Any, server: Any) -> None:
    base = server.base
    _, tid = finished_game(base)
    record = httpx.get(f"{base}/api/tables/{tid}/record", timeout=30).json()
    body = analysed(base, tid)
    fair = {h["number"]: h["plays"] for h in body["fair"]["analysis"]["hands"]}
    number = next((n for n, ps in fair.items() if any(p["best"] != p["played"] for p in ps)), 1)
    hand = next(h for h in record["hands"] if h["number"] == number)
    worse = next((p for p in fair[number] if p["best"] != p["played"]), fair[number][0])
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for lang, word in (("es", "Data"), ("en", "Hand")):
        for view, size in (("phone", PHONE), ("desktop", DESKTOP)):
            page = new_page(browser, size, "es-ES" if lang == "es" else "en-GB")
            page.add_init_script(f"localStorage.setItem('tranque.lang', '{lang}')")
            page.goto(f"{base}/g/{tid}?hand={number}")
            page.wait_for_selector("#value-chart", timeout=60_000)
            page.click(f"#moves button[data-index='{worse['index']}']")
            page.wait_for_selector("#play-verdict")
            page.screenshot(path=str(ARTIFACTS / f"game-words-{lang}-{view}.png"), full_page=True)
            text = page.inner_text("main")
            assert not ENGINE.search(text), ENGINE.findall(text)[:5]
            # One word for a hand, the table's.
            assert page.inner_text("#viewer h2") == f"{word} {number}"
            assert page.locator(f".hand-tab[data-hand='{number}']").inner_text().startswith(word)
            if lang == "es":
                assert not re.search(r"\b[Mm]anos?\b", text), text
            # The moves in words, each tile played drawn small beside them.
            first = next(i for i, m in enumerate(hand["moves"]) if m != "pass")
            move = page.locator(f"#moves button[data-index='{first}']")
            assert said(hand["moves"][first], lang) in move.inner_text(), move.inner_text()
            assert move.locator(".gt.mini svg").count() == 1
            verdict = page.locator("#play-verdict")
            assert said(worse["played"], lang) in verdict.inner_text(), verdict.inner_text()
            if worse["best"] != worse["played"]:
                assert said(worse["best"], lang) in verdict.inner_text(), verdict.inner_text()
                assert verdict.locator(".gt.mini svg").count() == 2
            # The points in the language's format: a decimal comma in Spanish.
            total = page.inner_text("#losses tfoot td.total")
            assert re.fullmatch(r"\d+[,.]\d \(\d+\)", total), total
            assert ("," in total) == (lang == "es"), total
            # The losses table fits: no hidden column, its total inside the screen.
            wrap = page.locator(".losses-wrap")
            widths = wrap.evaluate("e => [e.scrollWidth, e.clientWidth]")
            assert widths[0] <= widths[1], widths
            cell = page.locator("#losses tfoot td.total").bounding_box()
            assert cell is not None and cell["x"] + cell["width"] <= size["width"], cell
            bad = [
                (v["id"], v["nodes"]) for v in axe(page) if v["impact"] in BLOCKING and not v["aaa"]
            ]
            assert bad == [], bad
            assert not page.errors, page.errors
            page.context.close()
