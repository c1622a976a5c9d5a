"""Friends in the browser, two people in two browsers: the bell in the header, a request sent and
accepted, the friend seen online and at his table, an invitation to sit as the partner that
arrives (the bell's count, the page's title, the toast) and opens the table, where the friend
sits; privacy set in the dialog. Screens shot phone and desktop, Spanish and English; axe
finds nothing serious on the dialog."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from screens import axe
from test_browser import new_page

pytestmark = pytest.mark.slow  # two browsers

PASSWORD = "la-caja-de-muerto-9"
SHOTS = Path(os.environ.get("TRANQUE_FRIENDS_SHOTS", "/work/shots/friends"))
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 900}


def _account(base: str, name: str) -> dict[str, Any]:
    g = httpx.post(f"{base}/api/guests", json={"nickname": name}).json()
    r = httpx.post(
        f"{base}/api/accounts",
        json={"name": name, "password": PASSWORD},
        headers={"authorization": f"Bearer {g['token']}"},
    )
    assert r.status_code == 200, r.text
    return {**r.json(), "named": True}


def _signed_in(browser: Any, base: str, who: dict[str, Any], viewport: dict[str, int],
               locale: str) -> Any:  # fmt: skip
    page = new_page(browser, viewport, locale)
    page.goto(base + "/")
    page.evaluate(f"() => localStorage.setItem('tranque.guest', {json.dumps(json.dumps(who))})")
    page.reload()
    page.wait_for_selector("#bell")
    return page


def _serious(page: Any) -> list[dict[str, Any]]:
    return [v for v in axe(page) if v["impact"] in ("serious", "critical")]


def _shoot(page: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_a_friend_asked_accepted_invited_and_seated(browser: Any, server: Any) -> None:
    base = server.base
    amparo, berto = _account(base, "Amparo"), _account(base, "Berto")
    a = _signed_in(browser, base, amparo, PHONE, "es-ES")
    b = _signed_in(browser, base, berto, DESKTOP, "en-US")
    # Amparo asks for Berto by his name.
    a.click("#bell")
    a.wait_for_selector("#friends-dialog #fr-name")
    _shoot(a, "empty-es-phone")
    a.fill("#fr-name", "berto")
    a.click("#friends-dialog button[type=submit]")
    a.wait_for_selector("#toast:has-text('Solicitud enviada a berto')")
    # Berto's bell counts it, his title says it; he accepts in the dialog.
    b.wait_for_selector("#bell .count:has-text('1')")
    assert b.title().startswith("(1) ")
    b.click("#bell")
    b.wait_for_selector("#friends-dialog li:has-text('Amparo wants to be your friend')")
    _shoot(b, "request-en-desktop")
    assert not _serious(b), _serious(b)
    b.click("#friends-dialog button:has-text('Accept')")
    b.wait_for_selector("#fr-list li:has-text('Amparo')")
    # Amparo's list shows Berto online, pushed.
    a.wait_for_selector("#fr-list li:has-text('Berto') .where:has-text('En línea')")
    # The quick match with him as partner, no link to pass: she waits with a party, his bell
    # has it.
    a.click("#fr-list button:has-text('Jugar juntos')")
    a.wait_for_selector("#party-box")
    b.wait_for_selector("#toast:has-text('Amparo invites you to play now as partners')")
    b.wait_for_selector("#fr-list li:has-text('Amparo') .where:has-text('Looking for a table')")
    # Amparo makes a table for people and sits; Berto's list shows her playing, pushed.
    table = httpx.post(
        f"{base}/api/tables",
        json={"rules": "havana", "practice": False, "seat": 0},
        headers={"authorization": f"Bearer {amparo['token']}"},
    ).json()["table"]
    a.goto(f"{base}/t/{table}")
    a.wait_for_selector("#bell")
    b.wait_for_selector("#fr-list li:has-text('Amparo') .where:has-text('Playing')")
    _shoot(b, "friends-en-desktop")
    b.click("#fr-close")
    # From her table, she invites him as her partner.
    a.click("#bell")
    a.wait_for_selector("#fr-list li:has-text('Berto')")
    _shoot(a, "friends-es-phone")
    assert not _serious(a), _serious(a)
    a.click("#fr-list button:has-text('Invitar de compañero')")
    a.wait_for_selector("#toast:has-text('Invitación enviada a Berto')")
    b.wait_for_selector("#toast:has-text('Amparo invites you to sit as their partner')")
    b.wait_for_selector("#bell .count:has-text('3')")  # the request, the party: unread
    assert b.title().startswith("(3) ")
    b.click("#bell")
    _shoot(b, "invite-en-desktop")
    _shoot(b, "invites-en-desktop")
    # One tap: the table opens and he sits in the seat she offered, across from her.
    b.click("#fr-notices button:has-text('Sit as partner')")
    b.wait_for_url(f"**/t/{table}")
    b.wait_for_function(
        "() => [...document.querySelectorAll('.seat')].some(s => s.textContent.includes('Berto'))"
    )
    seats = httpx.get(f"{base}/api/tables/{table}").json()["seats"]
    assert [s and s.get("nickname") for s in seats][:3:2] == ["Amparo", "Berto"], seats
    _shoot(b, "seated-en-desktop")
    # Privacy, in the dialog: nobody may invite him.
    b.click("#bell")
    b.wait_for_selector("#fr-invites")
    b.select_option("#fr-invites", "nobody")
    b.wait_for_function("() => document.querySelector('#fr-invites').value === 'nobody'")
    r = httpx.get(f"{base}/api/privacy", headers={"authorization": f"Bearer {berto['token']}"})
    assert r.json() == {"invites": "nobody", "show_online": True}
    a.click("#fr-list button:has-text('Invitar a mi mesa')")
    a.wait_for_selector("#toast:has-text('no invitations')")
    assert not a.errors and not b.errors, (a.errors, b.errors)


def test_the_dialog_in_both_languages_and_sizes(browser: Any, server: Any) -> None:
    base = server.base
    amparo, berto = _account(base, "Amparo"), _account(base, "Berto")
    for who, other in ((amparo, "Berto"), (berto, "Amparo")):
        r = httpx.post(
            f"{base}/api/friends",
            json={"name": other},
            headers={"authorization": f"Bearer {who['token']}"},
        )
        assert r.status_code == 200, r.text
    for locale, lang in (("es-ES", "es"), ("en-US", "en")):
        for viewport, size in ((PHONE, "phone"), (DESKTOP, "desktop")):
            page = _signed_in(browser, base, amparo, viewport, locale)
            page.wait_for_selector("#bell .count")  # Berto's acceptance, unread
            page.screenshot(path=str(SHOTS / f"header-{lang}-{size}.png"))
            page.click("#bell")
            page.wait_for_selector("#fr-list li")
            page.wait_for_selector("#fr-invites")
            _shoot(page, f"dialog-{lang}-{size}")
            assert not _serious(page), _serious(page)
            page.context.close()


def test_the_open_bell_shows_the_notices_that_come_after_it(browser: Any, server: Any) -> None:
    """The bell opened before the club socket said what is unread: when the list comes, the
    open dialog shows it (a request was once counted in the bell and missing from its list)."""
    base = server.base
    amparo, berto = _account(base, "Amparo"), _account(base, "Berto")
    r = httpx.post(f"{base}/api/friends", json={"name": "Amparo"},
                   headers={"authorization": f"Bearer {berto['token']}"})  # fmt: skip
    assert r.status_code == 200, r.text
    held: list[Any] = []  # the club socket's `notices` frame, kept back until the bell is open

    def route(ws: Any) -> None:
        server_side = ws.connect_to_server()

        def down(message: Any) -> None:
            if isinstance(message, str) and json.loads(message).get("type") == "notices":
                held.append(lambda: ws.send(message))
            else:
                ws.send(message)

        server_side.on_message(down)

    page = new_page(browser, PHONE, "es-ES")
    page.route_web_socket("**/ws", route)
    page.goto(base + "/")
    page.evaluate(f"() => localStorage.setItem('tranque.guest', {json.dumps(json.dumps(amparo))})")
    page.reload()
    page.wait_for_selector("#bell")
    page.click("#bell")
    page.wait_for_selector("#friends-dialog .empty")  # nothing known yet: "no notices"
    deadline = time.monotonic() + 15
    while not held and time.monotonic() < deadline:
        page.wait_for_timeout(50)  # lets the socket's frames reach the route
    assert held, "the club socket's list never came"
    for release in held:
        release()
    page.wait_for_selector("#fr-notices li:has-text('Berto')")
    page.wait_for_selector("#bell .count")
    page.context.close()


HIDDEN_TAB = """
Object.defineProperty(Document.prototype, "hidden", { get: () => true });
Object.defineProperty(Document.prototype, "visibilityState", { get: () => "hidden" });
window.__shown = [];
const Real = window.Notification;
window.Notification = class extends Real {
  constructor(title, options) {
    super(title, options);
    window.__shown.push({ title, body: options.body, tag: options.tag });
  }
};
"""


def test_a_notice_to_a_tab_in_the_background_is_a_browser_notification(
    browser: Any, server: Any
) -> None:
    """A tab in the background (the page says it is hidden) where notifications are allowed
    shows a notice as the browser's own notification, and its title counts it. The browser's
    Notification is the real one; the page's script only notes each one made."""
    base = server.base
    amparo, berto = _account(base, "Amparo"), _account(base, "Berto")
    page = new_page(browser, PHONE, "es-ES")
    page.context.grant_permissions(["notifications"], origin=base)
    page.add_init_script(HIDDEN_TAB)
    listed: list[bool] = []  # the club socket's list came: a notice from now on is pushed

    def route(ws: Any) -> None:
        server_side = ws.connect_to_server()

        def down(message: Any) -> None:
            if isinstance(message, str) and json.loads(message).get("type") == "notices":
                listed.append(True)
            ws.send(message)

        server_side.on_message(down)

    page.route_web_socket("**/ws", route)
    page.goto(base + "/")
    page.evaluate(f"() => localStorage.setItem('tranque.guest', {json.dumps(json.dumps(amparo))})")
    page.reload()
    page.wait_for_selector("#bell")
    deadline = time.monotonic() + 15
    while not listed and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    assert listed, "the club socket's list never came"
    r = httpx.post(f"{base}/api/friends", json={"name": "Amparo"},
                   headers={"authorization": f"Bearer {berto['token']}"})  # fmt: skip
    assert r.status_code == 200, r.text
    page.wait_for_function("() => window.__shown.length > 0")
    (shown,) = page.evaluate("() => window.__shown")
    assert shown["title"] == "tranque" and "Berto" in shown["body"], shown
    assert shown["tag"].startswith("tranque-notice-"), shown
    assert page.title().startswith("(1) "), page.title()
    assert page.errors == [], page.errors
    page.context.close()
