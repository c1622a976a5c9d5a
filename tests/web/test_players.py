"""What two new players hit (issue 29), each checked in Chromium against a real server, on a phone
and a desktop, in Spanish and English. Each screen is checked by axe-core (``screens.py``).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from screens import BLOCKING, axe
from test_browser import (
    DESKTOP,
    PHONE,
    add_two_bots,
    create_table,
    join_by_link,
    new_page,
    step,
)

pytestmark = pytest.mark.slow

LANGS = {"es": "es-ES", "en": "en-US"}
VIEWS = {"phone": PHONE, "desktop": DESKTOP}
# Where players' screenshots go (outside the repository when set, else the tests' artifacts).
SHOTS = Path(
    os.environ.get("TRANQUE_SHOTS") or Path(__file__).resolve().parent / "artifacts" / "players"
)

# The contrast (WCAG 2) of an element's text over what is under it: its ancestors' backgrounds
# blended from the page's felt up (the body's gradient taken at its lighter and darker colour,
# the worse of the two counts).
CONTRAST = """(sel) => {
  const el = document.querySelector(sel);
  const rgba = (s) => {
    const m = s.match(/[\\d.]+/g).map(Number);
    return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1];
  };
  const over = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3]));
  const lum = (c) => {
    const f = c.map((v) => (v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * f[0] + 0.7152 * f[1] + 0.0722 * f[2];
  };
  const chain = [];
  for (let e = el; e && e !== document.body; e = e.parentElement) {
    chain.unshift(getComputedStyle(e).backgroundColor);
  }
  const fg = rgba(getComputedStyle(el).color);
  let worst = 99;
  for (const felt of [[20, 92, 64], [10, 53, 36]]) {
    let bg = felt;
    for (const c of chain) bg = over(rgba(c), bg);
    const text = over(fg, bg);
    const [a, b] = [lum(text), lum(bg)].sort((x, y) => y - x);
    worst = Math.min(worst, (a + 0.05) / (b + 0.05));
  }
  return worst;
}"""


# The highest target a table takes: no hand ends its game, so every hand's end offers "Seguir"
# and a next deal (at 100 a first hand's tranque sometimes ended the game, and the test waited
# for a hand's result that the game's result had taken the place of).
NO_END = 1000


def look(page: Any, name: str) -> None:
    """A full-page screenshot for a person to look at."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def no_blocking(page: Any) -> list[str]:
    return [f"{v['id']}: {v['nodes']}" for v in axe(page) if v["impact"] in BLOCKING]


def contrast(page: Any, sel: str) -> float:
    got: float = page.evaluate(CONTRAST, sel)
    return got


def public_table(browser: Any, base: str) -> Any:
    host = new_page(browser, DESKTOP)
    host.goto(base + "/")
    host.fill("#nickname", "Ana")
    host.check("input[name=mode][value=people]")
    host.check("#public")
    host.click("#create")
    host.wait_for_url("**/t/**")
    return host


def test_links_and_the_lobbys_sit_button_can_be_read(browser: Any, server: Any) -> None:
    """Bugs 1 and 4: "Sentarme" gold on gold; the landing's, /chips' and the lobby's links the
    browser's default blue on dark green."""
    host = public_table(browser, server.base)
    bad: list[str] = []
    for lang, locale in LANGS.items():
        for view, size in VIEWS.items():
            p = new_page(browser, size, locale)
            p.goto(server.base + "/")
            p.wait_for_selector("#lobby-link")
            for sel in ("#lobby-link", "#chips-link"):
                if (c := contrast(p, sel)) < 4.5:
                    bad.append(f"{lang} {view} landing {sel}: {c:.2f}")
            look(p, f"landing-{view}-{lang}")
            bad += [f"{lang} {view} landing axe {v}" for v in no_blocking(p)]
            p.goto(server.base + "/lobby")
            p.wait_for_selector(".sit-link")
            for sel in (".sit-link", "#finished-games"):
                if (c := contrast(p, sel)) < 4.5:
                    bad.append(f"{lang} {view} lobby {sel}: {c:.2f}")
            look(p, f"lobby-{view}-{lang}")
            bad += [f"{lang} {view} lobby axe {v}" for v in no_blocking(p)]
            p.goto(server.base + "/chips")
            p.wait_for_selector("main a[href='/']")
            if (c := contrast(p, "main a[href='/']")) < 4.5:
                bad.append(f"{lang} {view} chips back home: {c:.2f}")
            p.context.close()
    host.context.close()
    assert bad == [], bad


def test_chips_load_for_a_brand_new_visitor(browser: Any, server: Any) -> None:
    """Bug 13: /chips opened first, with no guest yet, said "Loading…" for ever beside a toast."""
    bad: list[str] = []
    for lang, locale in LANGS.items():
        for view, size in VIEWS.items():
            p = new_page(browser, size, locale)
            p.goto(server.base + "/chips")
            try:
                p.wait_for_selector("#chips-now", timeout=10_000)
                p.wait_for_selector("#chip-moves .chip-move.grant", timeout=5_000)
            except Exception:
                bad.append(f"{lang} {view}: no balance or no grant on /chips")
            if p.locator("#toast:not([hidden])").count():
                bad.append(f"{lang} {view}: toast {p.locator('#toast').inner_text()}")
            look(p, f"chips-{view}-{lang}")
            bad += [f"{lang} {view} chips axe {v}" for v in no_blocking(p)]
            if p.errors:
                bad.append(f"{lang} {view}: {p.errors}")
            p.context.close()
    assert bad == [], bad


BOTS = ["Rosa", "Pancho", "Chela", "Tito"]


def test_finished_games_name_the_winning_pair_by_its_players(browser: Any, server: Any) -> None:
    """Bug 14: /games told an outsider "ganan Nosotros", the four names in seat order."""
    from test_game_page import finished_game

    _, tid = finished_game(server.base)
    game = next(g for g in httpx.get(f"{server.base}/api/games").json()["games"])
    assert game["table"] == tid
    names = [s["nickname"] if s["kind"] != "bot" else BOTS[i] for i, s in enumerate(game["seats"])]
    won = "AB".index(game["winner"])
    pairs = [(names[0], names[2]), (names[1], names[3])]
    want = {
        "es": (f"ganan {pairs[won][0]} y {pairs[won][1]}", "contra"),
        "en": (f"{pairs[won][0]} and {pairs[won][1]} won", "against"),
    }
    bad: list[str] = []
    for lang, locale in LANGS.items():
        for view, size in VIEWS.items():
            p = new_page(browser, size, locale)
            p.goto(server.base + "/games")
            p.wait_for_selector("#recent-games .game-item")
            text = p.locator("#recent-games .game-item").first.inner_text()
            winner, versus = want[lang]
            if winner not in text or versus not in text:
                bad.append(f"{lang} {view}: {text!r}")
            if any(w in text for w in ("Nosotros", "Ellos", "Us", "Them")):
                bad.append(f"{lang} {view}: a pair by its column: {text!r}")
            look(p, f"games-{view}-{lang}")
            bad += [f"{lang} {view} games axe {v}" for v in no_blocking(p)]
            p.context.close()
    assert bad == [], bad


# Every redraw noted: the ends shown over a chain with no tile (the last hand's, at the next deal).
STALE_ENDS = """
window.__stale = [];
new MutationObserver(() => {
  const line = document.querySelector('.ends-line');
  if (!line || document.querySelectorAll('.chain .chain-tile').length) return;
  if (line.querySelector('.end')) window.__stale.push(line.innerText);
}).observe(document, { childList: true, subtree: true });
"""


def until_next_hand(page: Any, name: str = "", seconds: float = 120) -> None:
    """Play by clicks through a hand's end to the next hand's first tile on the table; shot
    as ``name`` when seen between the two (the new deal, its chain still empty)."""
    end = time.monotonic() + seconds
    seen_end = False
    while time.monotonic() < end:
        if page.locator("#result").count():
            seen_end = True
        elif seen_end and page.locator(".chain .chain-tile").count():
            return
        elif seen_end and name:
            look(page, name)
            name = ""
        if not step(page):
            page.wait_for_timeout(100)
    raise AssertionError("no second hand")


@pytest.mark.parametrize(("view", "lang"), [("phone", "es"), ("desktop", "en")])
def test_the_last_hands_ends_go_with_its_chain(
    browser: Any, server: Any, view: str, lang: str
) -> None:
    """Bug 6: "EXTREMOS 6 · 5" over an empty chain at the next deal (Salgo, a redeal)."""
    page = new_page(browser, VIEWS[view], LANGS[lang])
    page.add_init_script(STALE_ENDS)
    create_table(page, server.base, target=NO_END)
    # Twice: a bot may lead the next hand a moment after the deal (the window is short).
    until_next_hand(page, f"next-deal-{view}-{lang}")
    until_next_hand(page, f"next-deal-2-{view}-{lang}")
    stale = page.evaluate("window.__stale")
    assert page.errors == []
    page.context.close()
    assert stale == [], stale


def until_hand_over(pages: list[Any], seconds: float = 180) -> None:
    """Play by clicks until every page shows its first hand's end (left open)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        waiting = [p for p in pages if not p.locator("#result").count()]
        if not waiting:
            return
        if not any([step(p, carry_on=False) for p in waiting]):
            waiting[0].wait_for_timeout(100)
    # What each page still waiting shows, so a failure says where the hand stopped.
    left = [p for p in pages if not p.locator("#result").count()]
    seen = [
        (p.url, p.locator("#open-result").count(), p.locator("#app").inner_text()[-600:])
        for p in left
    ]
    raise AssertionError(f"no hand's end: {seen}")


# Where the end of a hand's parts are: Seguir's box, and the order of countdown, Seguir, phrases.
RESULT_LAYOUT = """() => {
  const at = (sel) => document.querySelector('#result ' + sel);
  const before = (a, b) => Boolean(a && b && (a.compareDocumentPosition(b) & 4));
  const go = at('#continue');
  const box = go ? go.getBoundingClientRect() : null;
  return { bottom: box ? box.bottom : null, height: window.innerHeight,
           phrases: Boolean(at('#phrases')),
           countdownFirst: before(at('#next-hand'), go),
           phrasesAfter: !at('#phrases') || before(go, at('#phrases')) };
}"""


def result_layout_faults(page: Any, who: str, phrases: bool) -> list[str]:
    got = page.evaluate(RESULT_LAYOUT)
    bad = []
    if got["bottom"] is None or got["bottom"] > got["height"]:
        bad.append(f"{who}: Seguir below the fold ({got['bottom']} in {got['height']})")
    if not got["countdownFirst"]:
        bad.append(f"{who}: the countdown is not above Seguir")
    if got["phrases"] != phrases:
        bad.append(f"{who}: phrases {'missing' if phrases else 'shown'}")
    if not got["phrasesAfter"]:
        bad.append(f"{who}: phrases above Seguir")
    return bad + [f"{who} axe {v}" for v in no_blocking(page)]


def test_seguir_comes_first_at_a_hands_end_on_a_phone(browser: Any, server_factory: Any) -> None:
    """Bug 7: "Seguir" at y=862 in 844, under six phrase buttons, every hand; phrases at a
    table without other people. Two people and two bots: result, countdown, Seguir, then the
    phrases."""
    server = server_factory("--between-hands", "60")
    host = new_page(browser, PHONE, "es-ES")
    create_table(host, server.base, target=NO_END, mode="people", nick="Ana")
    invite = host.locator("#invite-link").input_value()
    guest = new_page(browser, PHONE, "en-US")
    join_by_link(guest, server.base, invite)
    add_two_bots(host)
    until_hand_over([host, guest])
    bad = []
    for p, who in ((host, "phone-es"), (guest, "phone-en")):
        look(p, f"hand-over-people-{who}")
        bad += result_layout_faults(p, who, phrases=True)
        assert p.errors == []
        p.context.close()
    assert bad == [], bad


@pytest.mark.parametrize(("view", "lang"), [(v, x) for v in VIEWS for x in LANGS])
def test_no_phrases_at_a_table_of_bots(browser: Any, server: Any, view: str, lang: str) -> None:
    """Bug 7: at a practice table nobody reads a phrase; Seguir in view on a phone."""
    page = new_page(browser, VIEWS[view], LANGS[lang])
    create_table(page, server.base, target=NO_END)
    until_hand_over([page])
    look(page, f"hand-over-bots-{view}-{lang}")
    bad = result_layout_faults(page, f"{view}-{lang}", phrases=False)
    assert page.errors == []
    page.context.close()
    assert bad == [], bad


def test_a_game_that_does_not_exist_says_so_with_a_way_home(browser: Any, server: Any) -> None:
    """Bug 16: ``/g/doesNotExist`` printed "null" and no way home."""
    want = {"es": "No hay ninguna partida", "en": "There is no game"}
    bad: list[str] = []
    for lang, locale in LANGS.items():
        for view, size in VIEWS.items():
            p = new_page(browser, size, locale)
            p.goto(server.base + "/g/doesNotExist")
            p.wait_for_selector("main:not(:has-text('…'))")
            text = p.locator("main").inner_text()
            if want[lang] not in text or "null" in text:
                bad.append(f"{lang} {view}: {text!r}")
            if not p.locator("main a[href='/']").count():
                bad.append(f"{lang} {view}: no way home")
            look(p, f"no-game-{view}-{lang}")
            bad += [f"{lang} {view} axe {v}" for v in no_blocking(p)]
            p.context.close()
    assert bad == [], bad


def test_one_number_format_per_language(browser: Any, server: Any) -> None:
    """Bug 16: "10000" beside "10.000" (Spanish groups four digits only when told to)."""
    want = {"es": ("2.000", "20.000"), "en": ("2,000", "20,000")}
    bad: list[str] = []
    for lang, locale in LANGS.items():
        p = new_page(browser, PHONE, locale)
        p.goto(server.base + "/chips")
        p.wait_for_selector("#chips-now")
        text = p.locator("main").inner_text()
        if any(n not in text for n in want[lang]) or " 2000" in text:
            bad.append(f"{lang}: {text!r}")
        p.context.close()
    assert bad == [], bad


def test_a_profile_counts_one_in_the_singular(browser: Any, server: Any) -> None:
    """Bug 16: "1 games played" / "1 partidas jugadas" (plurals in both languages)."""
    from test_game_page import finished_game

    guest, _ = finished_game(server.base)
    want = {"es": "1 partida jugada", "en": "1 game played"}
    bad: list[str] = []
    for lang, locale in LANGS.items():
        for view, size in VIEWS.items():
            p = new_page(browser, size, locale)
            p.goto(f"{server.base}/u/~{guest['guest']}")
            p.wait_for_selector("#profile-stats")
            text = p.locator("#profile-stats").inner_text()
            if want[lang] not in text or "1 games" in text or "1 partidas" in text:
                bad.append(f"{lang} {view}: {text!r}")
            look(p, f"profile-{view}-{lang}")
            bad += [f"{lang} {view} axe {v}" for v in no_blocking(p)]
            p.context.close()
    assert bad == [], bad
