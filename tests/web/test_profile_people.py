"""Names are links, and a profile says who you played with (issue 29): four people play a game,
two of them claim accounts. Every list of names (the game page, /games, the profile) links an
account's name to its profile and leaves guests' and bots' names plain; the profile lists each
game once, and its partners and opponents with the games played together. Shot on a phone and a
desktop, in Spanish and English (``tests/web/artifacts/profile-people-*``)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from screens import ARTIFACTS, BLOCKING, axe
from test_browser import DESKTOP, PHONE, new_page
from test_browser_accounts import PASSWORD, _off_the_page

from tranque.client import TableClient, create_table, new_guest, random_legal

pytestmark = pytest.mark.slow


async def _four_people(base: str) -> tuple[str, list[dict[str, Any]]]:
    """A game to 30 of four people (Ana, Beto, Cuca, Dani at seats 0-3), played to its end."""
    guests = [await new_guest(base, n) for n in ("Ana", "Beto", "Cuca", "Dani")]
    table = await create_table(
        base,
        guests[0]["token"],
        rules={"preset": "havana", "target": 30},
        practice=False,
        public=True,
    )
    tid = table["table"]
    clients = []
    for s, g in enumerate(guests):
        c = TableClient(base, g["token"], tid)
        await c.connect()
        if s:
            assert (await c.do({"type": "sit", "seat": s}))["type"] == "ack"
        clients.append(c)
    await asyncio.gather(*(c.play_game(random_legal, seed=s, timeout=600) for s, c in
                           enumerate(clients)))  # fmt: skip
    for c in clients:
        await c.close()
    return tid, guests


def test_names_link_to_profiles_and_a_profile_lists_its_people(browser: Any, server: Any) -> None:
    base = server.base
    tid, guests = _off_the_page(lambda: _four_people(base))
    # Ana (seat 0) and Cuca (seat 2, her partner) take accounts; Beto and Dani stay guests.
    for g, name in ((guests[0], "anita"), (guests[2], "cuquita")):
        claimed = httpx.post(
            f"{base}/api/accounts",
            json={"name": name, "password": PASSWORD},
            headers={"authorization": f"Bearer {g['token']}"},
            timeout=60,
        )
        assert claimed.status_code == 200, claimed.text

    profile = httpx.get(f"{base}/api/profiles/anita").json()
    assert profile["partners"] == [{"nickname": "cuquita", "games": 1, "profile": "cuquita"}]
    assert sorted(profile["opponents"], key=lambda x: x["nickname"]) == [
        {"nickname": "Beto", "games": 1, "profile": None},
        {"nickname": "Dani", "games": 1, "profile": None},
    ]

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for lang, together in (("es", "1 partida"), ("en", "1 game")):
        for view, size in (("phone", PHONE), ("desktop", DESKTOP)):
            page = new_page(browser, size, "es-ES" if lang == "es" else "en-GB")
            page.add_init_script(f"localStorage.setItem('tranque.lang', '{lang}')")
            # The profile: each game once, its people with their counts.
            page.goto(f"{base}/u/anita")
            page.wait_for_selector("#person-games .game-item")
            page.wait_for_selector("#partners li")
            page.screenshot(
                path=str(ARTIFACTS / f"profile-people-{lang}-{view}.png"), full_page=True
            )
            assert page.locator(f"#profile a[href='/g/{tid}']").count() == 1
            partners = page.locator("#partners li")
            assert partners.count() == 1 and together in partners.inner_text()
            assert partners.locator("a[href='/u/cuquita']").count() == 1
            opponents = page.locator("#opponents li")
            assert opponents.count() == 2
            assert opponents.locator("a").count() == 0  # guests: no links
            assert together in opponents.first.inner_text()
            item = page.locator("#person-games .game-item").first
            assert item.locator("a[href='/u/cuquita']").count() == 1
            assert item.locator("a[href='/u/anita']").count() == 1
            assert item.locator("a[href^='/u/~']").count() == 0
            bad = [
                (v["id"], v["nodes"]) for v in axe(page) if v["impact"] in BLOCKING and not v["aaa"]
            ]
            assert bad == [], bad
            # A name in a list opens that person's profile.
            item.locator("a[href='/u/cuquita']").click()
            page.wait_for_selector("#profile-name:has-text('cuquita')")
            page.wait_for_selector("#partners a[href='/u/anita']")
            # The public list of games and the game's page link the accounts' names alone.
            page.goto(f"{base}/games")
            line = page.locator("#recent-games .game-item").first
            line.wait_for()
            # The pairs, and the winners named again: the accounts' names only are links.
            hrefs = line.locator("a[href^='/u/']").evaluate_all(
                "els => els.map((e) => e.getAttribute('href'))"
            )
            assert {"/u/anita", "/u/cuquita"} == set(hrefs), hrefs
            page.goto(f"{base}/g/{tid}")
            page.wait_for_selector("#viewer")
            meta = page.locator(".game-meta")
            assert meta.locator("a[href^='/u/']").count() == 2
            assert meta.locator("a[href='/u/cuquita']").count() == 1
            assert page.locator(".g-who a[href='/u/anita']").count() == 1
            page.locator(".g-who a[href='/u/anita']").click()
            page.wait_for_selector("#profile-name:has-text('anita')")
            assert not page.errors, page.errors
            page.context.close()
