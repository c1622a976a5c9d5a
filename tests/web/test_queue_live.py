"""The queue and the lobby as people live them (issue 29, bugs 10, 12 and 15, and the lobby's
number format), several browser contexts against one real server, on a phone and a desktop, in
Spanish and English:

- the count of the queue is pushed: the first to come reads every newcomer without a reload;
- a stake the person cannot cover keeps him queued, as he was, with a message that says why,
  and the lobby marks the tables he cannot cover instead of offering a plain "Sit";
- a party is seated at the first friend's fill time, not the second's, and the friend's pages
  say who invited him.

Each changed screen is checked by axe-core (no serious or critical finding) and shot in both
languages at 390x844 and 1366x900 (``shoot``).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from screens import BLOCKING, SETTLED, axe
from test_browser import DESKTOP, PHONE, new_page
from test_club import wait_until

pytestmark = pytest.mark.slow

SHOTS = Path(os.environ.get("TRANQUE_SHOTS", Path(__file__).resolve().parent / "artifacts"))
SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1366, "height": 900}}


def shoot(page: Any, name: str) -> list[str]:
    """The page in Spanish and English, at a phone's and a desktop's size: a screenshot of
    each, and axe's serious or critical findings (an empty list when there are none)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    before = page.viewport_size
    lang = page.evaluate("document.documentElement.lang")
    # A table has no language box in its header: there, the page's own language (the test
    # shoots the same screen of a page in the other one as well).
    switch = page.locator("#lang").count() > 0 and not page.locator("#name-input").count()
    bad = []
    for code in ("es", "en") if switch else (lang,):
        if switch:
            page.select_option("#lang", code)
            page.wait_for_function(f"document.documentElement.lang === '{code}'")
        for size, box in SIZES.items():
            page.set_viewport_size(box)
            page.evaluate(SETTLED)
            page.screenshot(path=str(SHOTS / f"{name}-{code}-{size}.png"), full_page=True)
            bad += [
                f"{name}-{code}-{size}: {v['id']} {v['nodes']}"
                for v in axe(page)
                if v["impact"] in BLOCKING and not v["aaa"]
            ]
    if switch:
        page.select_option("#lang", lang)
        page.wait_for_function(f"document.documentElement.lang === '{lang}'")
    page.set_viewport_size(before)
    return bad


def queue(page: Any, base: str, nick: str | None, path: str = "/") -> None:
    page.goto(base + path)
    if nick is not None:
        page.fill("#nickname", nick)
    page.click("#play-people")
    page.wait_for_selector("#queue-count")


def count_is(page: Any, text: str) -> None:
    page.wait_for_function(
        "(t) => (document.querySelector('#queue-count') || {}).textContent === t", arg=text
    )


def tab(page: Any) -> Any:
    """Another tab of the page's browser (the same guest), watched for errors as ``new_page``'s."""
    other = page.context.new_page()
    other.set_default_timeout(15_000)
    errors: list[str] = []
    other.on("pageerror", lambda e: errors.append(str(e)))
    other.errors = errors
    return other


def seconds(page: Any) -> int:
    """The seconds the queue's page says one has waited ("Llevas 5 s esperando.")."""
    text = page.locator("#queue-waited").inner_text()
    return int("".join(c for c in text if c.isdigit()))


def test_everyone_queued_reads_the_count_as_it_changes_and_a_friend_knows_who_asked(
    browser: Any, server_factory: Any
) -> None:
    base = server_factory("--fill-time", "600").base
    ana = new_page(browser, PHONE)
    bea = new_page(browser, DESKTOP, "en-GB")
    cai = new_page(browser, PHONE, "en-GB")
    queue(ana, base, "Ana")
    count_is(ana, "En la cola: solo tú.")
    queue(bea, base, "Bea")
    count_is(ana, "En la cola: 2.")  # pushed: Ana did nothing
    # Ana makes a party: the link names her, and her clock goes on (she did not come again).
    ana.wait_for_function(
        "() => /[2-9] s/.test(document.querySelector('#queue-waited').textContent)"
    )
    ana.click("#party-make")
    link = ana.locator("#party-link").input_value()
    assert "by=Ana" in link, link
    ana.wait_for_timeout(300)
    assert seconds(ana) >= 2, ana.locator("#queue-waited").inner_text()
    cai.goto(link)
    invite = cai.wait_for_selector("#party-invite")
    assert invite.inner_text().startswith("Ana invites you to play as partners"), invite
    bad = shoot(cai, "party-invite")
    cai.fill("#nickname", "Cai")
    cai.click("#play-people")
    count_is(cai, "In the queue: 3.")
    assert cai.locator("#party-with").inner_text() == (
        "You play as partners with Ana: you are seated together."
    )
    count_is(ana, "En la cola: 3.")
    count_is(bea, "In the queue: 3.")
    bad += shoot(cai, "queue-party")
    bea.click("#queue-leave")
    count_is(ana, "En la cola: 2.")
    count_is(cai, "In the queue: 2.")
    assert bad == [], bad
    for p in (ana, bea, cai):
        assert p.errors == [], p.errors
        p.context.close()


def test_a_stake_out_of_reach_keeps_you_queued_and_the_lobby_marks_its_tables(
    browser: Any, server_factory: Any
) -> None:
    base = server_factory("--fill-time", "600").base
    ana = new_page(browser, PHONE)
    bea = new_page(browser, DESKTOP, "en-GB")
    # Bea stakes her whole grant at a public table of 10,000 (20,000 in escrow); Ana, 200 at
    # one of 100: 19,800 left, short of the 20,000 a stake of 10,000 needs.
    for page, stake, nick in ((bea, "10000", "Bea"), (ana, "100", "Ana")):
        page.goto(base + "/lobby")
        page.wait_for_selector("#chip-table-stake")
        page.select_option("#chip-table-stake", stake)
        page.click("#create-chip-table")
        page.fill("#name-input", nick)  # a first seat: asked for a name (bug 2)
        page.click("#name-ok")
        page.wait_for_url("**/t/**")
    # Each stays at her table (a table whose people have all gone is not listed) and goes on
    # in another tab of the same browser: the same guest.
    tables = [ana, bea]
    ana, bea = tab(ana), tab(bea)
    queue(ana, base, None)  # the name she gave, the same guest
    count_is(ana, "En la cola: solo tú.")
    # The stakes she cannot cover say so in the list, in the language's number format.
    ana.wait_for_function(
        "() => [...document.querySelectorAll('#queue-stake option')]"
        ".some((o) => /alcanza/.test(o.textContent))"
    )
    options = ana.locator("#queue-stake option").all_inner_texts()
    assert "1.000" in options and "10.000 (no te alcanza)" in options, options
    ana.select_option("#queue-stake", "10000")
    refusal = ana.wait_for_selector("#queue-refusal")
    assert refusal.inner_text() == (
        "Para apostar 10.000 hacen falta 20.000 monedas y tienes 19.800. "
        "Sigues en la cola, como estabas."
    )
    assert ana.locator("#queue").count() == 1  # not sent home
    assert ana.locator("#queue-stake").input_value() == ""  # the free queue, as before
    count_is(ana, "En la cola: solo tú.")
    bad = shoot(ana, "queue-refused")
    # Still in the queue: a newcomer is counted with her, and she is told.
    cai = new_page(browser, PHONE, "en-GB")
    queue(cai, base, "Cai")
    count_is(cai, "In the queue: 2.")
    count_is(ana, "En la cola: 2.")
    # The lobby: Bea's table of 10,000 is marked for Ana, with no "Sit"; hers of 100 is not.
    ana.click("#queue-leave")
    ana.wait_for_selector("#play-people")
    ana.goto(base + "/lobby")
    ana.wait_for_selector(".lobby-table.unaffordable")
    assert ana.locator(".lobby-table").count() == 2
    big = ana.locator(".lobby-table", has_text="10.000 monedas por persona")
    assert big.locator(".sit-link").count() == 0
    assert big.locator(".lobby-poor").inner_text() == (
        "Te faltan monedas: esta mesa pide 20.000 y tienes 19.800."
    )
    small = ana.locator(".lobby-table", has_text="100 monedas por persona")
    assert small.locator(".sit-link").count() == 1 and small.locator(".lobby-poor").count() == 0
    bad += shoot(ana, "lobby-unaffordable")
    # Bea has nothing left (0 of the 200 Ana's table needs): marked for her as well.
    bea.goto(base + "/lobby")
    bea.wait_for_selector(".lobby-table.unaffordable")
    small = bea.locator(".lobby-table", has_text="100 chips a person")
    assert small.locator(".sit-link").count() == 0
    assert "needs 200 and you have 0" in small.locator(".lobby-poor").inner_text()
    assert bad == [], bad
    for p in (ana, bea, cai):
        assert p.errors == [], p.errors
        p.context.close()
    for p in tables:
        assert p.errors == [], p.errors


def test_a_party_sits_at_the_first_friends_fill_time_not_the_seconds(
    browser: Any, server_factory: Any
) -> None:
    fill = 6.0
    base = server_factory("--fill-time", str(fill)).base
    ana = new_page(browser, DESKTOP)
    bea = new_page(browser, PHONE, "en-GB")
    queue(ana, base, "Ana")
    came = time.monotonic()
    ana.wait_for_timeout(1500)
    ana.click("#party-make")
    link = ana.locator("#party-link").input_value()
    ana.wait_for_timeout(1500)
    queue(bea, base, "Bea", link.split(base, 1)[1])
    # Seated at Ana's fill time, not ``fill`` seconds after the party was made or Bea came.
    bea.wait_for_url("**/t/**", timeout=30_000)
    waited = time.monotonic() - came
    assert waited < fill + 1.4, waited
    ana.wait_for_url("**/t/**", timeout=10_000)
    for p in (ana, bea):
        assert p.errors == [], p.errors
        p.context.close()


def seat_names(base: str, table: str) -> list[str | None]:
    return [s["nickname"] for s in httpx.get(f"{base}/api/tables/{table}").json()["seats"]]


def test_a_guest_is_asked_his_name_where_he_first_sits_and_the_lobby_marks_who_left(
    browser: Any, server_factory: Any
) -> None:
    """Bug 2: a name typed on the landing was lost through the lobby or an invite link; bug 3:
    the lobby listed a table its people had left as if they were there."""
    base = server_factory().base
    ana = new_page(browser, DESKTOP)
    ana.goto(base + "/")
    ana.fill("#nickname", "Ana")
    ana.check("input[name=mode][value=people]")
    ana.check("#public")
    ana.click("#create")
    ana.wait_for_url("**/t/**")
    table = ana.url.rsplit("/t/", 1)[1]
    # Bea types her name on the landing, then goes to the lobby and sits there.
    bea = new_page(browser, PHONE, "en-GB")
    bea.goto(base + "/")
    bea.fill("#nickname", "Bea")
    bea.click("#lobby-link")
    bea.click(".sit-link")
    bea.wait_for_url("**/t/**")
    bea.click('.sit[data-seat="1"]')
    field = bea.wait_for_selector("#name-input")
    assert field.input_value() == "Bea"  # what she typed, offered
    bad = shoot(bea, "name-asked")
    # Too long is said, never cut; a bot's name is refused under the field, which is marked.
    field.fill("B" * 25)
    assert bea.locator("#name-error").inner_text() == "At most 24 characters: you have 25."
    assert field.get_attribute("aria-invalid") == "true"
    bea.click("#name-ok")
    assert bea.locator("#name-input").count() == 1 and seat_names(base, table)[1] is None
    field.fill("Rosa")
    bea.click("#name-ok")
    bea.wait_for_function(
        "() => /bot|reserved/.test(document.querySelector('#name-error').textContent)"
    )
    bad += shoot(bea, "name-refused")
    field.fill("Bea")
    bea.click("#name-ok")
    bea.wait_for_selector("#name-input", state="detached")
    wait_until(lambda: seat_names(base, table)[1] == "Bea")
    # In her seat, before the first hand, she may change it: everyone sees the new one.
    bea.click(".change-name")
    field = bea.wait_for_selector("#name-input")
    assert field.input_value() == "Bea"
    field.fill("Beatriz")
    bea.click("#name-ok")
    wait_until(lambda: seat_names(base, table)[1] == "Beatriz")
    ana.wait_for_function(
        "() => [...document.querySelectorAll('.seat .name')]"
        ".some((n) => n.textContent === 'Beatriz')"
    )
    bad += shoot(bea, "table-renamed")
    bad += shoot(ana, "table-renamed")
    # Cai comes by the invite link alone (no landing): asked too, with nothing to offer.
    cai = new_page(browser, PHONE)
    cai.goto(f"{base}/t/{table}")
    cai.click('.sit[data-seat="2"]')
    field = cai.wait_for_selector("#name-input")
    assert field.input_value() == ""
    bad += shoot(cai, "name-asked")
    field.fill("Caimito del Prado y Ordoñez")
    assert cai.locator("#name-error").inner_text() == "Como mucho 24 caracteres: llevas 27."
    bad += shoot(cai, "name-refused")
    field.fill("Cai")
    cai.click("#name-ok")
    wait_until(lambda: seat_names(base, table)[2] == "Cai")
    # Kept: the landing says it, and the next seat asks nothing.
    cai.goto(base + "/")
    assert cai.locator("#nickname").input_value() == "Cai"
    # The lobby (Dan's) lists the three and marks whoever is not at the table: Cai, on the
    # landing now, until he is back; Beatriz once her page is closed. Once the three are gone,
    # the table is listed no more.
    dan = new_page(browser, DESKTOP, "en-GB")
    dan.goto(base + "/lobby")
    row = dan.locator(f'.lobby-table[data-table="{table}"]')
    row.wait_for()

    def away_are(*names: str) -> None:
        dan.wait_for_function(
            "([t, want]) => JSON.stringify([...document.querySelectorAll("
            "`[data-table='${t}'] li.away`)].map((li) => li.firstChild.textContent)) === want",
            arg=[table, json.dumps(list(names), separators=(",", ":"))],
        )

    away_are("Cai")
    cai.goto(f"{base}/t/{table}")
    cai.wait_for_selector(".seat .name")
    away_are()
    bea.context.close()
    away_are("Beatriz")
    assert row.locator(".sit-link").count() == 1  # the one empty seat, never hers
    bad += shoot(dan, "lobby-away")
    ana.context.close()
    away_are("Ana", "Beatriz")
    cai.context.close()
    dan.wait_for_selector("#lobby-empty")
    assert bad == [], bad
    assert dan.errors == [], dan.errors
    dan.context.close()
