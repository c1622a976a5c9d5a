"""The end of a game of four people at a chip table, in four browsers (issue 29, bugs 8 and 11):
the game's result is the first screen (winner, final score, each rating change, the chips, the
rematch), the last hand's detail one click away; then a rematch one of them declines: he is not
offered the way to it, the three others read who declined, and fill his seat from the
quick-match queue, where a fifth person waits. Desktop 1366x900 and phone, Spanish and English."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest
from screens import Screens
from test_browser import join_by_link, new_page, step

pytestmark = pytest.mark.slow  # five browsers and a whole game

DESKTOP = {"width": 1366, "height": 900}
PHONE = {"width": 390, "height": 844}


def in_first_screen(page: Any, selector: str) -> bool:
    """The element is on the screen without scrolling (the dialog opens at its top)."""
    box = page.locator(selector).first.bounding_box()
    return (
        box is not None
        and box["y"] >= 0
        and box["y"] + box["height"] <= page.viewport_size["height"]
    )


def test_the_game_result_first_then_a_declined_rematch_filled_from_the_queue(
    browser: Any, server_factory: Any
) -> None:
    server = server_factory("--fill-time", "60")
    base, screens = server.base, Screens()
    ana = new_page(browser, DESKTOP, locale="es-ES")
    ana.goto(base + "/")
    ana.wait_for_selector("#create")
    me = ana.evaluate(
        "async () => { const r = await fetch('/api/guests', {method: 'POST', headers: "
        "{'content-type': 'application/json'}, body: JSON.stringify({nickname: 'Ana'})});"
        " const g = await r.json(); localStorage.setItem('tranque.guest', JSON.stringify(g));"
        " return g; }"
    )
    made = httpx.post(
        base + "/api/tables",
        json={"rules": "oriente", "practice": False, "seat": 0, "stake": 100},
        headers={"Authorization": f"Bearer {me['token']}"},
        timeout=30,
    ).json()
    table = made["table"]
    ana.goto(f"{base}/t/{table}")
    ana.wait_for_selector(".seat")
    people = [ana]
    for nick, seat, viewport, locale in (
        ("Bea", 1, PHONE, "es-ES"),
        ("Cai", 2, PHONE, "en-US"),
        ("Dani", 3, DESKTOP, "en-US"),
    ):
        p = new_page(browser, viewport, locale=locale)
        join_by_link(p, base, f"{base}/t/{table}", nick, seat)
        people.append(p)
    _, bea, cai, dani = people
    end = time.monotonic() + 300
    while not all(p.locator("#game-result").count() for p in people):
        assert time.monotonic() < end, "the game never ended on every page"
        if not any(step(p) for p in people if not p.locator("#game-result").count()):
            time.sleep(0.1)
    # The game's result first: winner, score, the four changes, the chips and the rematch, all
    # in the first screen of a desktop; no hand of the last deal in it.
    for p, lang in ((ana, "es"), (dani, "en")):
        p.wait_for_selector("#rating-changes .change-row >> nth=3")
        p.wait_for_selector("#chip-payout")
        title = p.locator("#game-result-title").inner_text()
        assert title.startswith("Se acabó la partida" if lang == "es" else "Game over"), title
        for sel in ("#game-result-title", "#final-score", "#rating-changes", "#chip-payout",
                    "#rematch-yes", "#rematch-no"):  # fmt: skip
            assert in_first_screen(p, sel), (lang, sel)
        assert p.locator("#game-result .final-hand").count() == 0
        screens.capture(p, f"game-result-{lang}", widths=(390, 1366))
    # The last hand, one click away, and back.
    ana.click("#see-last-hand")
    ana.wait_for_selector("#result .final-hand >> nth=3")
    ana.click("#back-to-result")
    ana.wait_for_selector("#game-result")
    # On a phone too the result comes first, the rematch within reach.
    for p in (bea, cai):
        assert p.locator("#game-result #rematch-yes").count() == 1
    # Cai declines; the three others accept, and go to the new table.
    cai.click("#rematch-no")
    for p in (ana, bea, dani):
        p.click("#rematch-yes")
    for p in (ana, bea, dani):
        p.wait_for_url(lambda url: table not in url and "/t/" in url, timeout=20_000)
    new = ana.url.rsplit("/t/", 1)[1]
    cai.wait_for_selector("#rematch-without-me")
    assert cai.locator("#rematch-go").count() == 0  # the one who said no is not sent there
    for p, words in ((ana, "Cai no quiso la revancha."), (dani, "Cai declined the rematch.")):
        assert p.wait_for_selector("#rematch-declined").inner_text() == words
    screens.capture(ana, "rematch-declined-es", widths=(390, 1366))
    # Eva waits for an Oriente table of people at 100 chips; Dani offers the free seat to the queue.
    eva = new_page(browser, PHONE, locale="es-ES")
    eva.goto(base + "/")
    eva.fill("#nickname", "Eva")
    eva.click("#play-people")
    eva.wait_for_selector("#queue-waited")
    eva.select_option("#queue-variant", "oriente")
    eva.select_option("#queue-stake", "100")  # the rematch's table is a chip table's
    dani.click("#fill-seat")
    # Everyone reads that Dani looks for someone (the countdown may be gone at once: Eva waits).
    ana.wait_for_function(
        "() => window.tranque.model.log.some((x) => x.text.startsWith('Dani busca a alguien'))"
    )
    eva.wait_for_url(f"**/t/{new}", timeout=20_000)
    eva.wait_for_selector(".hand .tile", timeout=30_000)
    info = httpx.get(f"{base}/api/tables/{new}", timeout=30).json()
    assert [s["nickname"] for s in info["seats"]] == ["Ana", "Bea", "Eva", "Dani"]
    assert info["started"] is True
    for p in (*people, eva):
        assert p.errors == [], p.errors
        p.context.close()
    assert not screens.blocking(), screens.blocking()
