"""The club in the browser (issue 12, items 2, 3, 4, 7, 8), with several browser contexts against
a real server: "Jugar ahora · Con personas" (the queue, its waiting screen, leaving it in one tap,
a party link that seats two friends as partners), the lobby of public tables live over the
socket, phrases (hidden and refused while a hand is on), who watches, and "Revancha" with four
people keeping their seats. Each new screen is checked by axe-core and shot at 360, 390 and
1366 px into ``tests/web/artifacts/`` (``screens.py``).
"""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest
from screens import Screens
from test_browser import (
    DESKTOP,
    PHONE,
    add_two_bots,
    click_until_answered,
    join_by_link,
    new_page,
    play_until,
)

pytestmark = pytest.mark.slow


def queue(page: Any, base: str, nick: str, path: str = "/") -> None:
    """Open the landing (or a party link), give a nickname and tap Con personas."""
    page.goto(base + path)
    page.fill("#nickname", nick)
    page.click("#play-people")
    page.wait_for_selector("#queue-waited")


def seated_at(page: Any) -> str:
    page.wait_for_url("**/t/**", timeout=30_000)
    page.wait_for_selector(".seat .name")
    return str(page.url.rsplit("/t/", 1)[1])


def seats(base: str, table: str) -> list[dict[str, Any]]:
    got: list[dict[str, Any]] = httpx.get(f"{base}/api/tables/{table}").json()["seats"]
    return got


def wait_until(what: Any, seconds: float = 30, page: Any = None) -> None:
    end = time.monotonic() + seconds
    while not what():
        assert time.monotonic() < end, f"not so after {seconds} s"
        if page is not None:
            page.wait_for_timeout(100)
        else:
            time.sleep(0.1)


def test_three_people_in_the_queue_are_seated_together_and_a_bot_takes_the_fourth(
    browser: Any, server_factory: Any
) -> None:
    server = server_factory("--fill-time", "5")
    base = server.base
    # Leaving is one tap: back on the landing, out of the queue (the others wait alone).
    quitter = new_page(browser, PHONE)
    queue(quitter, base, "Pepe")
    quitter.click("#queue-leave")
    quitter.wait_for_selector("#play-people")
    pages = [new_page(browser, PHONE if i else DESKTOP) for i in range(3)]
    queue(pages[0], base, "Ana")
    # The waiting state counts the time waited, on its own.
    first = pages[0].locator("#queue-waited").inner_text()
    pages[0].wait_for_function(
        "(t) => document.querySelector('#queue-waited').textContent !== t", arg=first
    )
    assert "esperando" in pages[0].locator("#queue-waited").inner_text()
    assert "solo tú" in pages[0].locator("#queue-count").inner_text()  # Pepe left
    queue(pages[1], base, "Bea")
    queue(pages[2], base, "Cai")
    tables = {seated_at(p) for p in pages}
    assert len(tables) == 1, tables
    table = tables.pop()
    got = seats(base, table)
    assert sorted(s["nickname"] for s in got if s["kind"] == "person") == ["Ana", "Bea", "Cai"]
    assert [s["kind"] for s in got].count("bot") == 1, got
    assert "Pepe" not in str(got)
    for p in pages:
        p.wait_for_selector(".seat .bot-mark")
        names = p.locator(".seat .name").all_inner_texts()
        assert {"Ana", "Bea", "Cai"} <= set(names), names  # names on the seats
    for p in [quitter, *pages]:
        assert p.errors == [], p.errors
        p.context.close()


def test_two_friends_by_a_party_link_end_up_partners(browser: Any, server_factory: Any) -> None:
    server = server_factory("--fill-time", "10")
    base = server.base
    cai, ana, bea = (new_page(browser, PHONE) for _ in range(3))
    queue(cai, base, "Cai")  # a stranger waits first
    queue(ana, base, "Ana")
    ana.click("#party-make")
    link = ana.locator("#party-link").input_value()
    assert "?party=" in link, link
    bea.goto(link)
    bea.wait_for_selector("#party-invite")
    bea.fill("#nickname", "Bea")
    bea.click("#play-people")
    bea.wait_for_selector("#party-with")  # the friend is told who asked him
    tables = {seated_at(p) for p in (ana, bea, cai)}
    assert len(tables) == 1, tables
    got = seats(base, tables.pop())
    at = {s["nickname"]: i for i, s in enumerate(got) if s["kind"] == "person"}
    assert set(at) == {"Ana", "Bea", "Cai"}, got
    assert at["Ana"] % 2 == at["Bea"] % 2, at  # partners: seats 0 and 2, or 1 and 3
    assert at["Cai"] % 2 != at["Ana"] % 2, at
    bea.wait_for_selector(".seat.partner .name")
    assert "Ana" in bea.locator(".seat.partner .name").all_inner_texts()
    for p in (ana, bea, cai):
        assert p.errors == [], p.errors
        p.context.close()


def test_the_lobby_updates_live_when_a_public_table_fills(
    browser: Any, server_factory: Any
) -> None:
    server = server_factory()
    base, screens = server.base, Screens()
    # The queue's screen (the fill time is long here), with a party link; then out in one tap.
    waiter = new_page(browser, PHONE)
    queue(waiter, base, "Pepe")
    waiter.click("#party-make")
    waiter.wait_for_selector("#party-link")
    screens.capture(waiter, "queue")
    waiter.click("#queue-leave")
    waiter.wait_for_selector("#play-people")
    screens.capture(waiter, "landing-club")
    lobby = new_page(browser, PHONE)
    lobby.goto(base + "/lobby")
    lobby.wait_for_selector("#lobby-empty")
    host = new_page(browser, DESKTOP)
    host.goto(base + "/")
    host.fill("#nickname", "Ana")
    host.check("input[name=mode][value=people]")
    host.check("#public")
    host.click("#create")
    host.wait_for_url("**/t/**")
    table = host.url.rsplit("/t/", 1)[1]
    row = f'.lobby-table[data-table="{table}"]'
    lobby.wait_for_selector(f'{row}[data-free="3"]')  # live: no reload
    assert "3 libres" in lobby.locator(row).inner_text()
    assert "Ana" in lobby.locator(row).inner_text()
    screens.capture(lobby, "lobby")
    # A private table is never listed.
    other = new_page(browser, PHONE)
    other.goto(base + "/")
    other.fill("#nickname", "Zoe")
    other.check("input[name=mode][value=people]")
    other.click("#create")
    other.wait_for_url("**/t/**")
    private = other.url.rsplit("/t/", 1)[1]
    # Sit from the lobby: its link opens the table, where the seat is taken.
    guest = new_page(browser, PHONE)
    guest.goto(base + "/lobby")
    guest.click(f"{row} .sit-link")
    guest.wait_for_url(f"**/t/{table}")
    guest.wait_for_selector('.sit[data-seat="2"]')
    click_until_answered(guest, '.sit[data-seat="2"]')
    # A guest who never chose a name is asked for one as he sits (issue 29, bug 2).
    guest.fill("#name-input", "Luz")
    guest.click("#name-ok")
    lobby.wait_for_selector(f'{row}[data-free="2"]')
    add_two_bots(host)
    lobby.wait_for_selector(f"{row}.playing")
    assert "Jugando" in lobby.locator(row).inner_text()
    assert lobby.locator(f"{row} .sit-link").count() == 0
    assert lobby.locator(f'.lobby-table[data-table="{private}"]').count() == 0
    # Watch from the lobby: the table as a spectator, who is counted at the table.
    lobby.click(f"{row} .watch-link")
    lobby.wait_for_selector("#watching")
    host.wait_for_selector("#spectators")
    wait_until(lambda: "1 espectador" in host.locator("#spectators").inner_text(), 15, host)
    for p in (waiter, lobby, host, guest, other):
        assert p.errors == [], p.errors
        p.context.close()
    assert not screens.blocking(), screens.blocking()


def all_over(pages: list[Any]) -> bool:
    return all(p.locator("#rematch").count() for p in pages)


def test_phrases_never_in_a_hand_and_a_rematch_of_four_keeps_the_seats_or_swaps_them(
    browser: Any, server_factory: Any
) -> None:
    server = server_factory()
    base, screens = server.base, Screens()
    host = new_page(browser, DESKTOP)
    host.goto(base + "/")
    host.fill("#nickname", "Ana")
    host.fill("#target", "10")
    host.check("input[name=mode][value=people]")
    host.click("#create")
    host.wait_for_url("**/t/**")
    table = host.url.rsplit("/t/", 1)[1]
    watch = host.locator("#watch-link").input_value()
    assert watch.endswith(f"/t/{table}?watch=1"), watch
    # Before the first hand: the seated host may say a phrase; the others see it.
    host.wait_for_selector("#phrases")
    spec = new_page(browser, PHONE)
    spec.goto(watch)
    spec.wait_for_selector("#watching")
    assert spec.locator("#phrases").count() == 0  # a spectator says nothing
    wait_until(lambda: "1 espectador" in host.locator("#spectators").inner_text(), 15, host)
    host.click("#spectators summary")
    host.locator("#spectators li").first.wait_for()
    screens.capture(host, "table-before-first-hand")
    host.click('.phrase[data-phrase="suerte"]')
    spec.wait_for_selector('.said-bubble:has-text("Suerte")')
    others = []
    for nick, seat in (("Bea", 1), ("Cai", 2), ("Dani", 3)):
        p = new_page(browser, PHONE)
        join_by_link(p, base, f"{base}/t/{table}", nick, seat)
        others.append(p)
    players = [host, *others]
    before = [s["nickname"] for s in seats(base, table)]
    # During the hand: no phrase buttons, and a phrase sent anyway is refused by the server.
    for p in players:
        p.wait_for_selector(".hand .tile")
    host.wait_for_function(
        "['choose', 'play', 'redeal'].includes(window.tranque.model.state.phase)"
    )
    assert host.locator("#phrases").count() == 0
    host.evaluate("window.tranque.sock.command({ type: 'say', phrase: 'buena' })")
    host.wait_for_selector('#toast:has-text("Durante la data no se habla")')
    assert spec.locator('.said-bubble:has-text("¡Buena!")').count() == 0
    play_until(players, lambda: all_over(players), 300)
    screens.capture(host, "game-over-rematch")
    # After the game: phrases again.
    others[0].click('.phrase[data-phrase="bien_jugado"]')
    host.wait_for_selector('.said-bubble:has-text("Bien jugado")')
    # Bea (seat 1) and Dani (seat 3) ask to swap; Ana and Cai keep theirs.
    for p in (others[0], others[2]):
        p.check("#rematch-swap")
    for p in players:
        p.click("#rematch-yes")
    spec.wait_for_selector("#rematch-go")
    new = {seated_at(p) for p in players}
    assert len(new) == 1 and table not in new, new
    fresh = new.pop()
    swapped = [before[0], before[3], before[2], before[1]]
    assert [s["nickname"] for s in seats(base, fresh)] == swapped  # the same seats, but the swap
    for p in players:
        p.wait_for_selector(".hand .tile", timeout=30_000)
    for p in [*players, spec]:
        assert p.errors == [], p.errors
        p.context.close()
    assert not screens.blocking(), screens.blocking()
