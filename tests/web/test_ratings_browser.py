"""Ratings in the browser, four people in four contexts against a real server: each seat shows
its person's rating (bots none) at the table and in the lobby, live; at the end of the rated
game each person's page shows its own change, pushed over the socket (no page asks for it), and
the seats show the new ratings; the leaderboards, Spanish and English, phone and desktop, reached
from the lobby. Each screen is checked by axe-core and shot into ``tests/web/artifacts/``."""

from __future__ import annotations

import json
import sqlite3
import time
from typing import Any

import httpx
import pytest
from screens import Screens
from test_browser import DESKTOP, PHONE, join_by_link, new_page, play_until

from tranque.club.skeleton import name_skeleton

pytestmark = pytest.mark.slow  # a browser


def seat_ratings(page: Any) -> list[str]:
    """The rating each seat shows, by seat number (the page draws them around the viewer)."""
    out = []
    for s in range(4):
        shown = page.locator(f'.seat[data-seat="{s}"] .seat-rating').all_inner_texts()
        out.extend(x.strip() for x in shown)
    return out


def wait_until(what: Any, page: Any, seconds: float = 30) -> None:
    end = time.monotonic() + seconds
    while not what():
        assert time.monotonic() < end, f"not so after {seconds} s: {seat_ratings(page)}"
        page.wait_for_timeout(100)


def test_four_people_see_the_seats_ratings_and_each_their_own_change(
    browser: Any, server_factory: Any
) -> None:
    server = server_factory()
    base, screens = server.base, Screens()
    lobby = new_page(browser, DESKTOP)
    lobby.goto(base + "/lobby")
    lobby.wait_for_selector("#lobby-empty")
    host = new_page(browser, DESKTOP)
    host.goto(base + "/")
    host.fill("#nickname", "Ana")
    host.select_option("#variant", "oriente")  # a preset to 20 points: a short rated game
    host.check("input[name=mode][value=people]")
    host.check("#public")
    host.click("#create")
    host.wait_for_url("**/t/**")
    table = host.url.rsplit("/t/", 1)[1]
    # The host's seat has its rating (1500, no game yet): no number until there is a rating,
    # as his profile says "No rating yet" (issue 29); the empty seats have none.
    host.wait_for_function("() => window.tranque && (window.tranque.model.ratings || {}).seats")
    assert host.evaluate("window.tranque.model.ratings.seats[0]")["rating"] == 1500
    assert seat_ratings(host) == []
    row = f'.lobby-table[data-table="{table}"]'
    lobby.wait_for_selector(row)
    others = []
    for nick, seat in (("Bea", 1), ("Cai", 2), ("Dani", 3)):
        p = new_page(browser, PHONE)
        join_by_link(p, base, f"{base}/t/{table}", nick, seat)
        others.append(p)
    players = [host, *others]
    ready = (
        "() => window.tranque && ((window.tranque.model.ratings || {}).seats || [null])"
        ".every((r) => r)"
    )
    for p in players:  # live: every page has the four ratings once the last one sat
        p.wait_for_function(ready)
        assert seat_ratings(p) == []  # nobody has a rating yet: no number shown

    # The lobby's line says the same: once its four ratings are known (1500, no game), a page
    # drawn from it shows four people and no number before a rated game.
    def listed() -> list[Any]:
        lines = httpx.get(f"{base}/api/lobby").json()["tables"]
        return next((x["seats"] for x in lines if x["table"] == table), [])

    wait_until(lambda: [(s["rating"] or {}).get("games") for s in listed()] == [0] * 4, lobby)
    lobby.reload()
    wait_until(lambda: lobby.locator(f"{row} .lobby-seats li:not(.free)").count() == 4, lobby)
    assert lobby.locator(f"{row} .seat-rating").count() == 0
    screens.capture(lobby, "lobby-ratings")
    screens.capture(host, "table-seat-ratings")
    play_until(players, lambda: all(p.locator("#rating-changes .change-row").count() == 4
                                    for p in players), 300)  # fmt: skip
    got = httpx.get(f"{base}/api/tables/{table}/players").json()
    after = {s["seat"]: s["change"]["after"] for s in got["seats"]}
    for p in players:
        rated = p.evaluate("window.tranque.model.rated")
        assert rated["rated"] and [x["after"] for x in rated["seats"]] == [
            after[s] for s in range(4)
        ]
        seat = p.evaluate("window.tranque.model.state.seat")
        mine = p.locator("#my-change").inner_text()
        assert str(after[seat]) in mine, (mine, after, seat)
        assert p.locator(f'#rating-changes .change-row.mine[data-seat="{seat}"]').count() == 1
        # The seats now show the ratings just won.
        wait_until(
            lambda p=p: seat_ratings(p) == [f"{after[s]}?" for s in range(4)],  # type: ignore[misc]
            p,
        )
    screens.capture(host, "game-end-rating-change")
    screens.capture(others[0], "game-end-rating-change-phone", widths=(360, 390))
    # Guests all: their names in the changes are no links (an account holder's is one,
    # tests/web/test_profile_people.py). The host's own profile has the game's point.
    assert host.locator("#rating-changes .change-row a").count() == 0
    guest = json.loads(host.evaluate("() => localStorage.getItem('tranque.guest')"))["guest"]
    host.goto(f"{base}/u/~{guest}")
    host.wait_for_selector("#rating-oriente .rating-chart polyline")
    screens.capture(host, "profile")
    # The leaderboards, from the lobby: nobody has ten rated games yet.
    lobby.goto(base + "/lobby")
    lobby.click("#leaderboards-link")
    lobby.wait_for_url("**/leaderboards/havana")
    lobby.wait_for_selector("#leaderboard-empty")
    lobby.click('.preset-tab[data-preset="oriente"]')
    lobby.wait_for_selector('#leaderboards[data-preset="oriente"] #leaderboard-empty')
    assert "10" in lobby.locator("#leaderboard-empty").inner_text()
    for p in [*players, lobby]:
        assert p.errors == [], p.errors
        p.context.close()
    assert not screens.blocking(), screens.blocking()


def _seed_board(db: str) -> list[str]:
    """Twelve people with settled Miami ratings (and one provisional), straight into the
    server's database, as many rated games would leave them; the names best first."""
    con = sqlite3.connect(db)
    now = time.time()
    names = []
    with con:
        for i in range(12):
            guest = f"seed{i:02d}"
            name = f"Jugador{i:02d}"
            mu, sigma = 1800 - 25 * i, 120 + 5 * i
            con.execute("INSERT INTO guests (id, nickname, created) VALUES (?, ?, ?)",
                        (guest, name, now))  # fmt: skip
            if i % 2 == 0:  # half of them accounts, the others guests
                con.execute(
                    "INSERT INTO accounts (guest, name, name_key, name_skeleton, password_hash,"
                    " created) VALUES (?, ?, ?, ?, ?, ?)",
                    (guest, name, name.lower(), name_skeleton(name), "x", now))  # fmt: skip
            con.execute(
                "INSERT INTO ratings (guest, preset, mu, sigma, games, updated) "
                "VALUES (?, 'miami', ?, ?, ?, ?)", (guest, mu, sigma, 10 + i, now))  # fmt: skip
            names.append(name)
        con.execute("INSERT INTO guests (id, nickname, created) VALUES ('seedp', 'Nueva', ?)",
                    (now,))  # fmt: skip
        con.execute("INSERT INTO ratings (guest, preset, mu, sigma, games, updated) "
                    "VALUES ('seedp', 'miami', 2400, 300, 3, ?)", (now,))  # fmt: skip
    con.close()
    return names


def test_the_leaderboard_in_both_languages_on_a_phone_and_a_desktop(
    browser: Any, server_factory: Any
) -> None:
    server = server_factory()
    base, screens = server.base, Screens()
    names = _seed_board(str(server.db))
    for viewport, locale, shot in ((PHONE, "es-ES", "leaderboard-es"),
                                   (DESKTOP, "en-US", "leaderboard-en")):  # fmt: skip
        page = new_page(browser, viewport, locale=locale)
        page.goto(base + "/leaderboards/miami")
        page.wait_for_selector("#leaderboard-table tbody tr")
        rows = page.locator("#leaderboard-table tbody tr .name").all_inner_texts()
        assert rows == names  # best first; the provisional newcomer is not listed
        title = page.locator("#leaderboards h1").inner_text()
        assert title == ("Clasificación: Miami" if locale == "es-ES" else "Leaderboard: Miami")
        assert page.locator('.preset-tab[aria-current="page"]').inner_text() == "Miami"
        first = page.locator("#leaderboard-table tbody tr").first.inner_text()
        assert "1800" in first and "?" not in first
        screens.capture(page, shot, widths=(390,) if viewport is PHONE else (1366,))
        # An account's name leads to its profile; a guest's is no link (half of them).
        assert page.locator("#leaderboard-table tbody tr .name a").count() == 6
        page.locator("#leaderboard-table tbody tr .name a").nth(1).click()
        page.wait_for_selector("#profile-name")
        assert page.locator("#profile-name").inner_text().startswith(names[2])
        page.go_back()
        page.wait_for_selector("#leaderboard-table")
        assert page.errors == [], page.errors
        page.context.close()
    assert not screens.blocking(), screens.blocking()


def test_wrong_passwords_then_the_login_limit_in_the_browser(browser: Any, server: Any) -> None:
    base = server.base
    g = httpx.post(f"{base}/api/guests", json={"nickname": "Rosalia"}).json()
    claimed = httpx.post(
        f"{base}/api/accounts",
        json={"name": "Rosalia", "password": "tranque-de-nueve"},
        headers={"authorization": f"Bearer {g['token']}"},
    )
    assert claimed.status_code == 200, claimed.text
    page = new_page(browser)
    page.goto(base + "/")
    page.fill("#account-name", "rosalia")
    page.fill("#account-password", "no-es-esta-clave")
    said = []
    wrong = "El nombre y la contraseña no coinciden."
    # Ten failures: five quick ones, then one a second (the first tier's refill) up to ten,
    # which spend the second tier (one back every 30 s), so the right password is held back
    # however slowly a loaded machine checks the wrong ones (club.accounts.LoginLimits).
    for _ in range(40):
        if said.count(wrong) == 10:
            break
        page.click("#login")
        page.wait_for_function("document.querySelector('#account-error').textContent !== ''")
        said.append(page.locator("#account-error").inner_text())
        page.evaluate("document.querySelector('#account-error').textContent = ''")
        if "Demasiados intentos" in said[-1]:
            assert said.count(wrong) >= 5, said  # five quick failures first
            page.wait_for_timeout(1_000)  # the limit's own clock: one more try a second
    assert said[0] == wrong and said.count(wrong) == 10, said
    # Limited, even the right password waits.
    page.fill("#account-password", "tranque-de-nueve")
    page.click("#login")
    page.wait_for_selector("#account-error:has-text('Demasiados intentos')")
    assert page.locator("#signed-in").count() == 0
    assert page.errors == [], page.errors
    page.context.close()
