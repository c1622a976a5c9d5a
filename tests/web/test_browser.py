"""The browser client in Debian's Chromium against a real server process, by clicks alone."""

from __future__ import annotations

import hashlib
import itertools
import json
import random
import re
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tranque.fair.recipe import deal_for, deal_key, draw_winner, first_hand_draw
from tranque.rules.tiles import format_tiles
from tranque.rules.variants import HAVANA, Rules
from tranque.table.service import fixed_seeds

# Every test here drives Chromium through pages and games: seconds to tens of seconds each.
pytestmark = pytest.mark.slow

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 768}
SPOKEN = re.compile(r"^(doble \w+|\w+-\w+)(, se puede jugar)?$")


def new_page(browser: Any, viewport: dict[str, int] = PHONE, locale: str = "es-ES") -> Any:
    # Playwright's wait_for_function evaluates its string with eval, which the page's CSP
    # forbids; test_csp.py loads the page with the policy enforced.
    # The service worker is test_app_install.py's: here it is blocked, since with it in control
    # one phone test's page once in a few never got a hand's end (not understood yet; noted in
    # docs/web.md).
    ctx = browser.new_context(
        viewport=viewport, locale=locale, bypass_csp=True, service_workers="block"
    )
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    return page


def try_click(page: Any, selector: str) -> bool:
    loc = page.locator(selector)
    try:
        if loc.count() and loc.first.is_visible():
            loc.first.click(timeout=1500)
            return True
    except Exception:  # the table re-rendered under the click: look again
        return False
    return False


def step(page: Any, choose_end: bool = True, carry_on: bool = True) -> bool:
    """Make whatever decision the page offers, by clicks; True if something was clicked.

    With ``choose_end`` False a tile that fits both ends is tapped but left with its two ends
    offered, for the caller to see. With ``carry_on`` False a hand's result is left open: a
    caller waiting for it must not close it with "Seguir" when it comes between its own look
    and this step's (then it waits for a result already gone).
    """
    for sel in ("#continue", "#salgo", "#redeal-no")[0 if carry_on else 1 :]:
        if try_click(page, sel):
            return True
    if try_click(page, ".hand .tile.playable"):
        if choose_end:
            try_click(page, ".end-btn")
        return True
    return False


def play_until(pages: list[Any], done: Any, seconds: float, carry_on: bool = True) -> None:
    """Step every page until ``done()``; with ``carry_on`` False a hand's result is left open
    (for a third page, say a spectator's, to read before the next deal)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if done():
            return
        moved = False
        for p in pages:
            moved = step(p, carry_on=carry_on) or moved
        if not moved:
            time.sleep(0.1)
    raise AssertionError(f"not done after {seconds} s")


def shot(page: Any, shots: Path, name: str) -> None:
    page.screenshot(path=str(shots / f"{name}.png"), full_page=True)


def create_table(
    page: Any,
    base: str,
    *,
    target: int,
    mode: str = "practice",
    nick: str = "Ana",
    variant: str = "havana",
) -> str:
    page.goto(base + "/")
    page.fill("#nickname", nick)
    page.select_option("#variant", variant)
    page.fill("#target", str(target))
    page.check(f"input[name=mode][value={mode}]")
    page.click("#create")
    page.wait_for_url(re.compile(r"/t/"))
    return page.url.rsplit("/t/", 1)[1]


def hand_over(page: Any) -> bool:
    """A hand's end is on the page: its result, or the game's end when that hand ended the game
    (at a low target the first hand often does; its result may be up for a moment only)."""
    return bool(
        page.evaluate(
            "() => Boolean(document.querySelector('#result')"
            " || (window.tranque && window.tranque.model.result))"
        )
    )


def verified(page: Any, hand: int) -> bool | None:
    """The verification panel's verdict on a hand: True ✓, False ✗, None not there yet."""
    loc = page.locator(f'.hand-checks[data-hand="{hand}"] .verdict')
    if not loc.count():
        return None
    return loc.first.get_attribute("data-ok") == "true"


def open_verify(page: Any) -> None:
    if not page.locator("#verificacion").count():
        page.keyboard.press("Escape")
        page.click("#open-verify")
    page.wait_for_selector("#verificacion")


def wait_verdict(page: Any, hand: int, seconds: float = 20) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        open_verify(page)
        v = verified(page, hand)
        if v is not None:
            return v
        time.sleep(0.2)
    raise AssertionError("no verdict")


def hand_tiles(page: Any) -> list[str]:
    return sorted(page.locator(".hand .tile").evaluate_all("els => els.map(e => e.dataset.tile)"))


# The chain on screen holds every tile the state says was played (40 dealt, the hands' counts
# left): a tile still sliding to its place (motion) is not yet in the count.
CHAIN_DRAWN = """() => {
  const st = (window.tranque && window.tranque.model.state) || {};
  const left = (st.counts || []).reduce((a, b) => a + b, 0);
  return st.counts && document.querySelectorAll('.chain-tile').length === 40 - left;
}"""


def drawn(page: Any) -> tuple[list[str], int]:
    """My hand and the chain's length, once the chain shows all that was played."""
    page.wait_for_function(CHAIN_DRAWN, timeout=30_000)
    return hand_tiles(page), page.locator(".chain-tile").count()


# -- tests -------------------------------------------------------------------------------------


def test_tiles_and_spoken_names(browser: Any, static_base: str) -> None:
    page = new_page(browser)
    page.goto(static_base + "/index.html")
    got = page.evaluate(
        """async () => {
          const T = await import('/js/tiles.js');
          const pips = [];
          for (let n = 0; n <= 9; n++) pips.push(T.tileSVG(n, n).querySelectorAll('.pip').length);
          return {
            pips,
            es: ['94', '49', '66', '00', '10'].map((x) => T.spokenName(x, 'es')),
            en: ['94', '66', '00'].map((x) => T.spokenName(x, 'en')),
          };
        }"""
    )
    assert got["pips"] == [0, 2, 4, 6, 8, 10, 12, 14, 16, 18]
    assert got["es"] == ["nueve-cuatro", "nueve-cuatro", "doble seis", "doble blanco", "uno-blanca"]
    assert got["en"] == ["nine-four", "double six", "double blank"]
    page.context.close()


def test_languages_spanish_by_default_english_complete(browser: Any, static_base: str) -> None:
    page = new_page(browser, locale="fr-FR")
    page.goto(static_base + "/index.html")
    assert page.locator("#play-title").inner_text() == "Jugar ahora"
    assert page.locator("html").get_attribute("lang") == "es"
    page.select_option("#lang", "en")
    # The English words are fetched when first chosen (i18n.js loads one language with the page).
    page.wait_for_function("document.documentElement.lang === 'en'")
    assert page.locator("#play-title").inner_text() == "Play now"
    page.reload()
    assert page.locator("#play-title").inner_text() == "Play now"  # the choice is kept
    page.context.close()
    en = new_page(browser, locale="en-US")
    en.goto(static_base + "/index.html")
    assert en.locator("#create").inner_text() == "Create table"
    # Every Spanish string has an English one and the other way round.
    keys = en.evaluate(
        """async () => {
          const I = await import('/js/i18n.js');
          await I.setLang('es');  // each dictionary is loaded when its language is first used
          await I.setLang('en');
          const es = Object.keys(I.STRINGS.es), en = Object.keys(I.STRINGS.en);
          return [es.filter((k) => !en.includes(k)), en.filter((k) => !es.includes(k))];
        }"""
    )
    assert keys == [[], []]
    en.context.close()


def test_short_game_english_desktop_keyboard_and_screens(
    browser: Any, server: Any, shots: Path
) -> None:
    page = new_page(browser, DESKTOP, locale="en-GB")
    page.goto(server.base + "/")
    shot(page, shots, "landing-en-1366x768")
    create_table(page, server.base, target=30, nick="Kim")
    page.wait_for_selector(".hand .tile")
    # Keyboard: tab to a tile and press Enter; tiles carry spoken names.
    end = time.monotonic() + 60
    played_by_key = False
    while time.monotonic() < end and not played_by_key:
        if try_click(page, "#salgo") or try_click(page, "#redeal-no"):
            continue
        playable = page.locator(".hand .tile.playable")
        if playable.count():
            label = playable.first.get_attribute("aria-label")
            assert label.endswith(", playable")
            before = page.locator(".hand .tile").count()
            playable.first.focus()
            page.keyboard.press("Enter")
            if page.locator(".end-btn").count():
                page.locator(".end-btn").first.focus()
                page.keyboard.press("Enter")
            page.wait_for_function(f"document.querySelectorAll('.hand .tile').length < {before}")
            played_by_key = True
        time.sleep(0.1)
    assert played_by_key
    shot(page, shots, "table-en-1366x768")
    play_until([page], lambda: page.locator("#game-over").count() > 0, 240)
    shot(page, shots, "game-over-en-1366x768")
    assert "win" in page.locator("#game-over .winner").inner_text()
    page.click("#see-sheet")
    sheet = page.locator("#planilla")
    assert sheet.locator("thead").inner_text().split() == ["Hand", "Us", "Them"]
    totals = [int(x) for x in sheet.locator("tfoot .sum").all_inner_texts()]
    assert max(totals) >= 30
    shot(page, shots, "planilla-en-1366x768")
    assert page.errors == []
    page.context.close()


def test_whole_havana_practice_game_by_clicks(browser: Any, server: Any, shots: Path) -> None:
    """Jugar ahora: three bots, Havana rules, to 100, on a phone; every hand verified ✓."""
    page = new_page(browser, PHONE)
    page.goto(server.base + "/")
    shot(page, shots, "landing-es-390x844")
    page.fill("#nickname", "Yoel")
    page.click("#play-now")
    page.wait_for_selector(".hand .tile")
    for label in page.locator(".hand .tile").evaluate_all(
        "els => els.map(e => e.getAttribute('aria-label'))"
    ):
        assert SPOKEN.match(label), label
    seen_result = False

    def done() -> bool:
        nonlocal seen_result
        if not seen_result and page.locator("#result").count():
            seen_result = True
            shot(page, shots, "hand-over-es-390x844")
        return page.locator("#game-over").count() > 0

    mid = False
    end = time.monotonic() + 480
    while not done():
        assert time.monotonic() < end, "the game did not end in time"
        if not mid and page.locator(".chain-tile").count() >= 8:
            shot(page, shots, "table-es-390x844")
            mid = True
        if not step(page):
            time.sleep(0.1)
    shot(page, shots, "game-over-es-390x844")
    winner = page.locator("#game-over .winner").inner_text()
    assert re.search(r"ganamos nosotros|ganan ellos", winner), winner
    page.click("#see-sheet")
    totals = [int(x) for x in page.locator("#planilla tfoot .sum").all_inner_texts()]
    assert max(totals) >= 100
    rows = page.locator("#planilla tbody tr").count()
    shot(page, shots, "planilla-es-390x844")
    hands = int(page.evaluate("window.tranque.model.handNumber"))
    assert rows >= 1 and hands >= 1
    for n in range(1, hands + 1):
        assert wait_verdict(page, n) is True, f"hand {n}"
    shot(page, shots, "verify-es-390x844")
    assert page.errors == []
    page.context.close()


# -- the chain as a bending line ----------------------------------------------------------------

# Three frames drawn: a new width is seen by the chain's ResizeObserver in one, laid out in the
# next (table.js layoutChain); a pause of so many milliseconds is not enough on a busy machine.
FRAMES = """() => new Promise((done) => {
  let n = 0;
  const frame = () => (++n >= 3 ? done(true) : requestAnimationFrame(frame));
  requestAnimationFrame(frame);
})"""

CHAIN_GEOMETRY = """() => {
  const chain = document.querySelector('.chain');
  const cr = chain.getBoundingClientRect();
  const tiles = [...chain.querySelectorAll('.chain-tile')].map((el) => {
    const r = el.getBoundingClientRect();
    const svg = el.querySelector('svg');
    const [, , vw, vh] = svg.getAttribute('viewBox').split(' ').map(Number);
    const upright = vh > vw;
    const halves = [0, 0]; // pips drawn on the left (top) half and the right (bottom) half
    for (const c of svg.querySelectorAll('.pip')) {
      const v = Number(c.getAttribute(upright ? 'cy' : 'cx'));
      halves[v < 100 ? 0 : 1] += 1;
    }
    return {
      tile: el.dataset.tile, row: Number(el.dataset.row), dir: Number(el.dataset.dir),
      role: el.getAttribute('role'),
      label: el.getAttribute('aria-label'), cls: el.className, upright, halves,
      x: r.left - cr.left, y: r.top - cr.top, w: r.width, h: r.height,
    };
  });
  return {
    width: cr.width, height: cr.height, tiles,
    chain: window.tranque.model.chain.map((p) => p.tile),
    unit: chain.querySelector('.chain-unit').getBoundingClientRect().width,
  };
}"""


def box_gap(a: dict[str, float], b: dict[str, float]) -> float:
    """How far apart two boxes are (0 when they touch or overlap)."""
    dx = max(0.0, a["x"] - (b["x"] + b["w"]), b["x"] - (a["x"] + a["w"]))
    dy = max(0.0, a["y"] - (b["y"] + b["h"]), b["y"] - (a["y"] + a["h"]))
    return max(dx, dy)


def overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    ox = min(a["x"] + a["w"], b["x"] + b["w"]) - max(a["x"], b["x"])
    oy = min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"])
    return ox > 0.5 and oy > 0.5


def half_centres(t: dict[str, Any]) -> list[tuple[float, float]]:
    if t["upright"]:
        cx = t["x"] + t["w"] / 2
        return [(cx, t["y"] + t["h"] / 4), (cx, t["y"] + 3 * t["h"] / 4)]
    cy = t["y"] + t["h"] / 2
    return [(t["x"] + t["w"] / 4, cy), (t["x"] + 3 * t["w"] / 4, cy)]


def facing(t: dict[str, Any], other: dict[str, Any]) -> int:
    """The number on the half of ``t`` nearer the centre of ``other``."""
    ox, oy = other["x"] + other["w"] / 2, other["y"] + other["h"] / 2
    d = [(x - ox) ** 2 + (y - oy) ** 2 for x, y in half_centres(t)]
    return t["halves"][0 if d[0] < d[1] else 1]


def check_line(g: dict[str, Any]) -> dict[int, list[dict[str, Any]]]:
    """The chain as drawn is one unbroken line inside its box, in chain order, each tile turned so
    that the halves that touch show the same number. Returns the tiles of each row."""
    tiles = g["tiles"]
    assert [t["tile"] for t in tiles] == g["chain"]
    assert tiles[0]["cls"].split().count("first") == 1
    assert "last" in tiles[-1]["cls"].split()
    for t in tiles:
        assert t["role"] == "listitem" and SPOKEN.match(t["label"].split(" (")[0]), t["label"]
        assert t["upright"] == (t["h"] > t["w"])  # the drawing faces the way its box does
        assert t["x"] >= -1 and t["x"] + t["w"] <= g["width"] + 1, t
        assert t["y"] >= -1 and t["y"] + t["h"] <= g["height"] + 1, t
        a, b = int(t["tile"][0]), int(t["tile"][1])
        assert sorted(t["halves"]) == sorted([a, b]), t  # pips per half: the tile's numbers
    for i, a in enumerate(tiles):
        for b in tiles[i + 1 :]:
            assert not overlap(a, b), (a, b)
    for p, q in itertools.pairwise(tiles):
        assert box_gap(p, q) <= 6, (p, q)
        # The halves that face each other carry the same number: of each tile, the half nearer
        # the other tile's centre.
        assert facing(p, q) == facing(q, p), (p, q)
    rows: dict[int, list[dict[str, Any]]] = {}
    for t in tiles:
        rows.setdefault(t["row"], []).append(t)
    return rows


def centre_x(t: dict[str, Any]) -> float:
    return t["x"] + t["w"] / 2


def test_snake_layout_fits_and_joins_at_every_width(browser: Any, static_base: str) -> None:
    """snake.js alone: chains of every length with doubles here and there, at widths from a 360 px
    phone's board to a desktop's, never overlap, stay inside, and each tile touches the next."""
    page = new_page(browser)
    page.goto(static_base + "/index.html")
    rng = random.Random(7)
    cases = []
    for n in (1, 2, 5, 9, 14, 20, 28, 40):
        for _ in range(6):
            doubles: list[bool] = []
            for i in range(n):
                doubles.append(i > 0 and not doubles[-1] and rng.random() < 0.3)
            cases.append(doubles)
    got = page.evaluate(
        """async (cases) => {
          const S = await import('/js/snake.js');
          const out = [];
          const sizes = [[300, 22], [346, 22], [420, 24], [560, 31], [690, 34], [1000, 34]];
          for (const [width, u] of sizes)
            for (const d of cases) out.push({ width, u, d, lay: S.snakeLayout(d, width, u) });
          return out;
        }""",
        cases,
    )
    for case in got:
        width, u, items = case["width"], case["u"], case["lay"]["items"]
        assert len(items) == len(case["d"])
        for i, (b, dbl) in enumerate(zip(items, case["d"], strict=True)):
            assert b["x"] >= 0 and b["x"] + b["w"] <= width + 0.1, case
            if dbl:
                assert (b["w"], b["h"]) == (u, 2 * u)  # a double lies across the line
            if b["dir"] == 0:
                assert b["h"] == 2 * u and b["w"] == u  # a bend's tile stands upright
            if i:
                assert box_gap(items[i - 1], b) <= 4, (case, i)
            for c in items[i + 1 :]:
                assert not overlap(b, c), (case, b, c)
        dirs = [b["dir"] for b in items if b["dir"] != 0]
        rows = sorted({b["row"] for b in items})
        for r in rows:  # the rows alternate: right, left, right…
            assert {b["dir"] for b in items if b["row"] == r} - {0} <= {1 if r % 2 == 0 else -1}
        assert dirs == [] or dirs[0] == 1
    page.context.close()


def test_chain_bends_like_a_snake_on_a_phone_and_a_desktop(
    browser: Any, server: Any, shots: Path
) -> None:
    """A practice game on a 390×844 phone, played by clicks until the chain needs two rows: the
    second row runs right to left and starts under the end of the first, the whole chain is one
    line whose touching halves match; then at 360 px and on a desktop the rows are laid out
    again for the new width."""
    page = new_page(browser, PHONE)
    page.emulate_media(reduced_motion="reduce")
    page.goto(server.base + "/")
    page.fill("#nickname", "Yoel")
    page.click("#play-now")
    page.wait_for_selector(".hand .tile")
    end = time.monotonic() + 240
    while True:
        assert time.monotonic() < end, "no chain of two rows in time"
        ready = page.evaluate(
            """() => document.querySelectorAll('.chain-tile[data-row="1"]').length >= 3
              && !document.querySelector('#result')
              && document.querySelectorAll('.hand .tile.playable').length > 0"""
        )
        if ready:
            break
        if not step(page):
            page.wait_for_timeout(50)
    g = page.evaluate(CHAIN_GEOMETRY)
    rows = check_line(g)
    assert len(rows) >= 2
    first_row, second_row = rows[0], rows[1]
    # Row 1 runs left to right (x grows along the chain) and ends in the tile that turns the
    # bend, upright at the right.
    xs = [centre_x(t) for t in first_row if t["dir"] != 0]
    assert xs == sorted(xs) and len(set(xs)) == len(xs), xs
    bend = first_row[-1]
    assert bend["dir"] == 0 and bend["upright"]
    assert centre_x(bend) > max(xs)
    # Row 2 runs right to left: x decreases along the chain.
    xs = [centre_x(t) for t in second_row if t["dir"] != 0]
    assert len(xs) >= 2 and xs == sorted(xs, reverse=True) and len(set(xs)) == len(xs), xs
    assert all(t["y"] > bend["y"] for t in second_row)
    # Its first tile sits at the same side, right under the bend.
    start = second_row[0]
    assert abs((start["x"] + start["w"]) - (bend["x"] + bend["w"])) <= g["unit"] + 4
    assert box_gap(start, bend) <= 6
    # The open ends are still there: the gold circles above, the glowing tiles at both ends.
    assert page.locator(".ends-line .end").count() == 2
    shot(page, shots, "snake-es-390x844")

    # The narrowest phone, then a desktop: the rows follow the width.
    page.set_viewport_size({"width": 360, "height": 780})
    page.wait_for_function("document.querySelector('.chain').clientWidth < 340")
    page.evaluate(FRAMES)
    narrow = page.evaluate(CHAIN_GEOMETRY)
    narrow_rows = check_line(narrow)
    page.set_viewport_size(DESKTOP)
    page.wait_for_function("document.querySelector('.chain').clientWidth > 500")
    page.evaluate(FRAMES)
    wide = page.evaluate(CHAIN_GEOMETRY)
    wide_rows = check_line(wide)  # one unbroken line inside the wider box, whatever the chain
    assert wide["width"] > g["width"]

    # The same tiles take no more rows in a box that holds more of them a row, and no fewer in
    # one that holds fewer. A row's room is counted in tiles' units, not pixels: a desktop draws
    # bigger tiles (22 px units on the phone, 49 on the desktop), so its wider box may hold fewer
    # (CI once drew 3 rows there for the phone's 2, and a pixel comparison failed).
    def room(geo: dict[str, Any]) -> float:
        return float(geo["width"]) / float(geo["unit"])

    for other, other_rows in ((narrow, narrow_rows), (wide, wide_rows)):
        if other["chain"] != g["chain"]:
            continue  # a play came meanwhile: another chain
        if room(other) >= room(g):
            assert len(other_rows) <= len(rows), (room(other), room(g))
        else:
            assert len(other_rows) >= len(rows), (room(other), room(g))
    shot(page, shots, "snake-es-1366x768")
    assert page.errors == []
    page.context.close()


NOTE_BREAKS = """
window.__breaks = [];
new MutationObserver(() => {
  const el = document.getElementById("next-game");
  const text = el && el.innerText;
  if (text && window.__breaks[window.__breaks.length - 1] !== text) window.__breaks.push(text);
}).observe(document, { subtree: true, childList: true, characterData: true });
"""


def test_miami_match_tally_next_game_and_match_winner(
    browser: Any, server: Any, shots: Path
) -> None:
    """Miami is best of three: the tally shows, a game's end says the next one comes, then the
    match's winner. A first-game pollona decides at once, so tables are tried until one goes on."""
    page = new_page(browser, PHONE)
    # The break between games shows for a moment only: the page itself notes each one as it
    # appears, so the test does not depend on looking at the right moment.
    page.add_init_script(NOTE_BREAKS)
    for _ in range(8):
        create_table(page, server.base, target=40, variant="miami", nick="Mia")
        page.wait_for_selector("#match-tally")
        assert page.locator("#match-tally").inner_text() == "Partida 1 · Nosotros 0 – Ellos 0"

        def done() -> bool:
            if page.locator("#next-game").count():
                shot(page, shots, "next-game-es-390x844")
            return page.locator("#game-over").count() > 0

        play_until([page], done, 300)
        breaks = page.evaluate("window.__breaks")
        saw_break = bool(breaks)
        if saw_break:
            assert re.search(r"La partida 1 es (nuestra|de ellos)", breaks[0]), breaks
            assert "La partida 2 empieza" in breaks[0]
        winner = page.locator("#game-over .winner").inner_text()
        assert re.search(r"Se acabó el encuentro: lo gan(amos|an ellos)", winner), winner
        match = page.evaluate("window.tranque.model.state.match")
        assert match["over"] and max(match["wins"]) >= 2
        if match["game"] == 1:
            continue  # a pollona in the first game: no break to see
        assert saw_break
        assert page.locator("#match-tally").inner_text().startswith(f"Partida {match['game']} ·")
        shot(page, shots, "match-over-es-390x844")
        hands = int(page.evaluate("window.tranque.model.handNumber"))
        assert hands >= match["game"]
        # Every table hand of every game verifies, numbered on across games.
        for n in range(1, hands + 1):
            assert wait_verdict(page, n) is True, f"hand {n}"
        assert page.errors == []
        page.context.close()
        return
    raise AssertionError("eight Miami matches in a row ended on a first-game pollona")


def join_by_link(guest: Any, base: str, invite: str, nick: str = "Luis", seat: int = 2) -> None:
    """A person comes from the landing with his nickname, opens the invite link and sits in
    ``seat`` (2 by default: across from the host, his partner)."""
    guest.goto(base + "/")
    guest.fill("#nickname", nick)
    guest.fill("#joinlink", invite)
    guest.click("#join")
    table = invite.rstrip("/").rsplit("/", 1)[1]
    button = f'.sit[data-seat="{seat}"]'
    deadline = time.monotonic() + 30
    # Sat when the server says so: a click can be lost while the page is still drawing the table
    # (seen under load), and then the button is clicked again.
    while httpx.get(f"{base}/api/tables/{table}").json()["seats"][seat]["nickname"] != nick:
        assert time.monotonic() < deadline, f"{nick} never got seat {seat}"
        try:
            guest.click(button, timeout=2_000)
            guest.wait_for_selector(button, state="detached", timeout=2_000)
        except PlaywrightTimeout:
            continue


def add_two_bots(host: Any) -> None:
    click_until_answered(host, '.add-bot[data-seat="1"]')
    click_until_answered(host, '.add-bot[data-seat="3"]')


def click_until_answered(page: Any, button: str, timeout: float = 30.0) -> None:
    """Click a seat's button until the server's answer takes it away.

    The seats are drawn again for every event of the table (another player sitting, a bot
    added): a click that lands as its button is replaced is lost, so it is made again while the
    button is still there.
    """
    deadline = time.monotonic() + timeout
    while page.locator(button).count():
        assert time.monotonic() < deadline, f"{button} is still there after {timeout:g} s"
        try:
            page.click(button, timeout=2_000)
            page.wait_for_selector(button, state="detached", timeout=3_000)
        except PlaywrightTimeout:
            continue


def has_result(page: Any) -> bool:
    """A hand's end has come to this page: its result is up, or kept behind the "last hand"
    button (the panel gives way to the next decision, or to a click on Continue)."""
    return page.locator("#result").count() > 0 or page.locator("#open-result").count() > 0


def final_hands(page: Any) -> dict[str, list[str]]:
    """The last hand's result, opened if need be: each seat's tiles, and the sleepers."""
    # A game's end shows its own result first, once ending.js has come (the hand's result may
    # be up for a moment before it): wait for its way to the hand, never race it.
    if page.evaluate("() => Boolean((window.tranque.model.result || {}).gameOver)"):
        page.click("#see-last-hand")
    elif not page.locator("#result").count():
        page.click("#open-result")
    page.wait_for_selector("#result")
    out = {"sleepers": sorted(page.locator("#result .sleepers .tile").evaluate_all(TILES))}
    for hand in page.locator("#result .final-hand").all():
        out[hand.get_attribute("data-seat")] = sorted(hand.locator(".tile").evaluate_all(TILES))
    return out


TILES = "els => els.map(e => e.dataset.tile)"


def test_two_people_and_two_bots_by_invite_link(
    browser: Any, server_factory: Any, shots: Path
) -> None:
    # The first hand's end stays the last thing that happened while both pages are read: the
    # next hand (whose first decision would take the result panel away) waits a minute.
    server = server_factory("--between-hands", "60")
    host = new_page(browser, DESKTOP)
    create_table(host, server.base, target=30, mode="people", nick="Ana")
    invite = host.locator("#invite-link").input_value()
    assert re.search(r"/t/[\w-]+$", invite)
    shot(host, shots, "invite-es-1366x768")
    guest = new_page(browser, PHONE)
    join_by_link(guest, server.base, invite)
    add_two_bots(host)
    for p in (host, guest):
        p.wait_for_selector(".hand .tile", timeout=20_000)
    # The partner sits across; bots are marked.
    assert "Luis" in host.locator(".seat.rel2 .name").inner_text()
    assert "Ana" in guest.locator(".seat.rel2 .name").inner_text()
    assert host.locator(".seat.rel1 .bot-mark").count() == 1
    assert guest.locator(".seat.rel3 .bot-mark").count() == 1
    play_until([host, guest], lambda: has_result(host) and has_result(guest), 180)
    # Both saw the same end of hand: the same four hands and sleepers face up.
    seen = [final_hands(p) for p in (host, guest)]
    shot(guest, shots, "hand-over-two-people-390x844")
    assert seen[0] == seen[1]
    assert set(seen[0]) == {"0", "1", "2", "3", "sleepers"} and len(seen[0]["sleepers"]) == 15
    assert wait_verdict(host, 1) is True
    assert wait_verdict(guest, 1) is True
    # Two people's seeds went into the deal: each check of a revealed seat passed.
    for p in (host, guest):
        mine = p.locator('.hand-checks[data-hand="1"] li[data-check="my_seed"]')
        assert mine.count() == 1 and "ok" in (mine.get_attribute("class") or "")
        assert p.locator('.hand-checks[data-hand="1"] li[data-check="seat_seed"]').count() == 2
    assert host.errors == [] and guest.errors == []
    host.context.close()
    guest.context.close()


def test_reconnect_mid_hand_resumes_where_it_was(
    browser: Any, server_factory: Any, shots: Path
) -> None:
    server = server_factory()
    page = new_page(browser, PHONE)
    create_table(page, server.base, target=30)
    # Play a few tiles of the first hand, up to a turn of mine: nothing moves until I play.
    end = time.monotonic() + 90
    while page.locator(".chain-tile").count() < 6:
        assert time.monotonic() < end
        if not step(page):
            time.sleep(0.1)
    page.wait_for_selector(".hand .tile.playable")
    before = drawn(page)
    # The server dies; the page says so and keeps trying.
    port = server.port
    server.kill9()
    page.wait_for_selector("#conn:not([hidden])", timeout=10_000)
    assert "reconectando" in page.locator("#conn").inner_text().lower()
    shot(page, shots, "reconnecting-es-390x844")
    server.start(port=port)
    page.wait_for_selector("#conn", state="hidden", timeout=30_000)
    # Back where it was: my turn, the same tiles, the same chain, neither more nor less.
    page.wait_for_selector(".hand .tile.playable")
    assert drawn(page) == before
    # A reload builds the table from a fresh sync of the restarted server: the same again.
    page.reload()
    page.wait_for_selector(".hand .tile.playable")
    assert drawn(page) == before
    # And the hand goes on to its end, with its deal verified.
    play_until([page], lambda: hand_over(page), 120)
    assert wait_verdict(page, 1) is True
    assert page.errors == []
    page.context.close()


def test_verification_all_checks_then_a_tampered_record(
    browser: Any, server: Any, shots: Path
) -> None:
    page = new_page(browser, DESKTOP)
    table = create_table(page, server.base, target=30)
    play_until([page], lambda: hand_over(page), 120)
    assert wait_verdict(page, 1) is True
    checks = page.locator('.hand-checks[data-hand="1"] li')
    ids = checks.evaluate_all("els => els.map(e => e.dataset.check)")
    for needed in ("server_commit", "server_commit_seen", "my_seed", "deal_seat", "sleepers",
                   "my_tiles", "draw"):  # fmt: skip
        assert needed in ids
    assert all("ok" in c for c in checks.evaluate_all("els => els.map(e => e.className)"))
    shot(page, shots, "verify-ok-1366x768")

    # The browser recomputes exactly what Python's recipe deals from the published record.
    record = json.loads(page.evaluate(f"fetch('/api/tables/{table}/record').then(r => r.text())"))
    hand = record["hands"][0]
    f = hand["fairness"]
    key = deal_key(
        bytes.fromhex(f["server_seed"]), f["table_id"], f["hand_number"],
        [bytes.fromhex(s) for s in f["client_seeds"]],
    )  # fmt: skip
    deal = deal_for(key, Rules.from_json(record["rules"]), f["attempts"] - 1)
    assert sorted(format_tiles(deal.hands[0]).split()) == sorted(hand["hands"][0].split())

    # Someone swaps a tile between seat 1 and the sleepers in the published record.
    def tamper(route: Any) -> None:
        body = json.loads(route.fetch().text())
        h1 = body["hands"][0]
        a = h1["hands"][1].split()
        s = h1["sleepers"].split()
        a[0], s[0] = s[0], a[0]
        h1["hands"][1] = " ".join(a)
        h1["sleepers"] = " ".join(s)
        route.fulfill(status=200, content_type="application/json", body=json.dumps(body))

    page.route("**/api/tables/*/record", tamper)
    page.reload()
    assert wait_verdict(page, 1) is False
    bad = page.locator('.hand-checks[data-hand="1"] li.bad')
    bad_ids = bad.evaluate_all("els => els.map(e => e.dataset.check)")
    assert "deal_seat" in bad_ids and "sleepers" in bad_ids
    assert page.locator("#verify-badge").inner_text() == "✗"
    shot(page, shots, "verify-tampered-1366x768")

    # A server seed that does not match its commitment fails too.
    def tamper_seed(route: Any) -> None:
        body = json.loads(route.fetch().text())
        fair = body["hands"][0]["fairness"]
        fair["server_seed"] = ("00" if fair["server_seed"][:2] != "00" else "11") + fair[
            "server_seed"
        ][2:]
        route.fulfill(status=200, content_type="application/json", body=json.dumps(body))

    page.unroute("**/api/tables/*/record")
    page.route("**/api/tables/*/record", tamper_seed)
    page.reload()
    assert wait_verdict(page, 1) is False
    bad_ids = page.locator('.hand-checks[data-hand="1"] li.bad').evaluate_all(
        "els => els.map(e => e.dataset.check)"
    )
    assert "server_commit" in bad_ids
    page.unroute("**/api/tables/*/record")
    page.reload()
    assert wait_verdict(page, 1) is True
    page.context.close()


# -- pinned deals: the redeal and the choice between ends --------------------------------------
#
# With ``--test-seed`` the server's seeds and the table ids are a known function of the seed
# (``fixed_seeds``; tables are t1, t2, … on a fresh database), and each browser's client seed is
# pinned by replacing ``crypto.getRandomValues`` before the page loads. The deal is then the
# published recipe of known inputs, so a client seed that deals what a test needs is searched for
# here with ``tranque.fair.recipe``: no dealing backdoor in the product.

TEST_SEED = "7472616e7175652d776562"
PIN_SEED = """
(() => {
  const seed = Uint8Array.from("%s".match(/../g).map((x) => parseInt(x, 16)));
  const real = crypto.getRandomValues.bind(crypto);
  crypto.getRandomValues = (a) => {
    if (a instanceof Uint8Array && a.length === seed.length) {
      a.set(seed);
      return a;
    }
    return real(a);
  };
})();
"""


def pin_seed(page: Any, seed: bytes) -> None:
    """Every 32-byte seed this page draws (its client seed for each hand) is ``seed``."""
    page.add_init_script(PIN_SEED % seed.hex())


def record_frames(page: Any) -> dict[str, list[dict[str, Any]]]:
    """The table's WebSocket frames as the page sends (``out``) and receives (``in``) them."""
    frames: dict[str, list[dict[str, Any]]] = {"in": [], "out": []}

    def on_socket(ws: Any) -> None:
        ws.on("framesent", lambda p: frames["out"].append(json.loads(p)))
        ws.on("framereceived", lambda p: frames["in"].append(json.loads(p)))

    page.on("websocket", on_socket)
    return frames


def events(frames: dict[str, list[dict[str, Any]]], kind: str) -> list[dict[str, Any]]:
    return [
        f["event"] for f in frames["in"] if f.get("type") == "event" and f["event"]["type"] == kind
    ]


def wait_for(
    page: Any, cond: Any, seconds: float = 15, what: str = "the condition", detail: Any = None
) -> Any:
    """Wait for ``cond()`` while Playwright runs: the sync API hands over a page's events
    (``record_frames``) only during its own calls, never during a ``time.sleep``."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        got = cond()
        if got:
            return got
        page.wait_for_timeout(50)
    raise AssertionError(f"no {what} after {seconds} s" + (f": {detail()}" if detail else ""))


def settled(page: Any, frames: dict[str, list[dict[str, Any]]]) -> bool:
    """Every play this page sent has come back as an event, and it is still my turn: nothing
    moves on the table until I play (a state read while a play was on its way is stale)."""
    sent = len([f for f in frames["out"] if f.get("type") == "play"])
    seat = page.evaluate("window.tranque.model.state.seat")
    back = [e for e in events(frames, "played") if e["seat"] == seat and e["by"] == "person"]
    mine = page.evaluate("(window.tranque.model.state.legal || []).length")
    return sent == len(back) and bool(mine)


def first_hand_key(table: str, seeds: list[bytes]) -> bytes:
    """The key of a table's first hand under ``--test-seed TEST_SEED``."""
    server_seed = fixed_seeds(bytes.fromhex(TEST_SEED))(table, 1)
    return deal_key(server_seed, table, 1, seeds)


def seed_for_redeal(table: str, seeds: list[bytes], seat: int = 0) -> tuple[bytes, bytes]:
    """A client seed for ``seat`` such that its first deal gives that seat (and only it) five
    doubles or more, and the deal after a redeal gives nobody five: (seed, key)."""
    for i in range(100_000):
        seed = hashlib.sha256(b"tranque-test|redeal|%d" % i).digest()
        trial = [seed if s == seat else x for s, x in enumerate(seeds)]
        key = first_hand_key(table, trial)
        first = deal_for(key, HAVANA, 0)
        if [first.doubles(s) >= 5 for s in range(4)] != [s == seat for s in range(4)]:
            continue
        again = deal_for(key, HAVANA, 1)
        if all(again.doubles(s) < 5 for s in range(4)):
            return seed, key
    raise AssertionError("no client seed deals five doubles")  # about 1 in 60 does


def tiles_of(deal: Any, seat: int) -> list[str]:
    return sorted(format_tiles(deal.hands[seat]).split())


def test_redeal_asked_for_by_clicks_only_that_player_is_offered_it(
    browser: Any, server_factory: Any, shots: Path
) -> None:
    """Two people and two bots; the host's first deal holds five doubles. Only the host is
    offered a redeal; asking deals attempt 1 from the same key, the pair with the right to lead
    stays, and after the hand both browsers check the thrown-in deal ✓."""
    server = server_factory("--test-seed", TEST_SEED, "--redeal-window", "10")
    guest_seed = hashlib.sha256(b"tranque-test|guest").digest()
    host_seed, key = seed_for_redeal("t1", [b"", b"", guest_seed, b""])
    first, again = deal_for(key, HAVANA, 0), deal_for(key, HAVANA, 1)
    draws = first_hand_draw(key, HAVANA)
    leading_pair = draw_winner(draws[-1])
    host, guest = new_page(browser, DESKTOP), new_page(browser, PHONE)
    pin_seed(host, host_seed)
    pin_seed(guest, guest_seed)
    host_frames, guest_frames = record_frames(host), record_frames(guest)
    assert create_table(host, server.base, target=30, mode="people", nick="Ana") == "t1"
    join_by_link(guest, server.base, host.locator("#invite-link").input_value())
    add_two_bots(host)

    # The offer: the host's page, with the deal the recipe gives for the pinned seeds.
    host.wait_for_selector("#redeal-yes", timeout=20_000)
    assert "cinco dobles" in host.locator(".redeal").inner_text()
    assert hand_tiles(host) == tiles_of(first, 0) and first.doubles(0) >= 5
    shot(host, shots, "redeal-offer-es-1366x768")
    # The partner is in the same redeal window and is not offered it.
    guest.wait_for_function("window.tranque.model.state.phase === 'redeal'")
    assert guest.evaluate("window.tranque.model.state.redeal") is False
    assert guest.locator("#redeal-yes, #redeal-no, .redeal").count() == 0
    guest.wait_for_selector("#deal-clock")  # the deal on show, as at every hand
    assert hand_tiles(guest) == tiles_of(first, 2)
    (dealt0,) = wait_for(host, lambda: events(host_frames, "dealt"), what="first deal")
    assert dealt0["attempt"] == 0 and dealt0["redeal_window"] is True
    assert dealt0["leading_pair"] == leading_pair

    host.click("#redeal-yes")
    wait_for(
        host,
        lambda: len(events(host_frames, "dealt")) == 2,
        what="second deal",
        detail=lambda: host_frames["out"][-3:] + host_frames["in"][-6:],
    )
    dealt1 = events(host_frames, "dealt")[1]
    assert dealt1["attempt"] == 1 and dealt1["redeal_window"] is True  # every deal is shown
    assert dealt1["leading_pair"] == leading_pair  # the right to lead does not change
    assert dealt1["draw"] == dealt0["draw"]
    sent = [f for f in host_frames["out"] if f.get("type") == "redeal"]
    assert [f["ask"] for f in sent] == [True]
    # The table is told who asked; both see the new deal.
    wait_for(
        guest, lambda: len(events(guest_frames, "dealt")) == 2, what="second deal at the guest"
    )
    assert [(e["ask"], e["seat"]) for e in events(guest_frames, "redeal")] == [(True, 0)]
    guest.wait_for_function(
        "document.querySelector('.log') && document.querySelector('.log').innerText"
        ".includes('Ana enseñó cinco dobles')"
    )
    host.wait_for_function(f"window.tranque.model.state.tiles === {json.dumps(again.hand_text(0))}")
    assert hand_tiles(host) == tiles_of(again, 0)
    guest.wait_for_function(
        f"window.tranque.model.state.tiles === {json.dumps(again.hand_text(2))}"
    )
    assert host.locator("#redeal-yes").count() == 0

    # The pair that had the right to lead leads.
    play_until([host, guest], lambda: has_result(host) and has_result(guest), 180)
    (choices,) = events(host_frames, "choices")
    assert choices["leader"] % 2 == leading_pair
    for p in (host, guest):
        assert wait_verdict(p, 1) is True
        redeal = p.locator('.hand-checks[data-hand="1"] li[data-check="redeal"]')
        assert redeal.count() == 1 and "ok" in (redeal.get_attribute("class") or "")
    shot(host, shots, "verify-redeal-1366x768")
    record = json.loads(host.evaluate("fetch('/api/tables/t1/record').then(r => r.text())"))
    hand = record["hands"][0]
    assert hand["fairness"]["attempts"] == 2
    assert [r["asked_by"] for r in hand["setup"]["redeals"]] == [0]
    assert host.errors == [] and guest.errors == []
    host.context.close()
    guest.context.close()


def test_redeal_declined_by_clicks_keeps_the_deal(
    browser: Any, server_factory: Any, shots: Path
) -> None:
    server = server_factory("--test-seed", TEST_SEED, "--redeal-window", "4")
    seed, key = seed_for_redeal("t1", [b"", b"", b"", b""])
    first = deal_for(key, HAVANA, 0)
    page = new_page(browser, PHONE)
    pin_seed(page, seed)
    frames = record_frames(page)
    assert create_table(page, server.base, target=30) == "t1"
    page.wait_for_selector("#redeal-no")
    assert hand_tiles(page) == tiles_of(first, 0)
    shot(page, shots, "redeal-offer-es-390x844")
    page.click("#redeal-no")
    # The offer is withdrawn at once; the deal stays on show, for everybody alike, to its end.
    page.wait_for_selector("#redeal-yes", state="detached")
    assert page.evaluate("window.tranque.model.state.phase") == "redeal"
    page.wait_for_selector("#deal-clock")
    page.wait_for_function("window.tranque.model.state.phase !== 'redeal'", timeout=20_000)
    # A "no" is logged nowhere and told to nobody: it would say who holds five doubles.
    (closed,) = wait_for(page, lambda: events(frames, "redeal_closed"), what="window's end")
    assert closed["hand"] == 1 and events(frames, "redeal") == []
    (dealt,) = [e for e in events(frames, "dealt") if e["hand"] == 1]
    assert dealt["redeal_window"] is True and dealt["deadline"] is not None
    play_until([page], lambda: hand_over(page), 120)
    # The first hand's deals (the next hand may be dealt already on a slow machine).
    assert [e["attempt"] for e in events(frames, "dealt") if e["hand"] == 1] == [0]
    assert wait_verdict(page, 1) is True
    assert page.locator('.hand-checks[data-hand="1"] li[data-check="redeal"]').count() == 0
    deal_seat = page.locator('.hand-checks[data-hand="1"] li[data-check="deal_seat"]')
    assert deal_seat.count() == 4
    record = json.loads(page.evaluate("fetch('/api/tables/t1/record').then(r => r.text())"))
    assert record["hands"][0]["fairness"]["attempts"] == 1
    assert record["hands"][0]["setup"].get("redeals", []) == []
    assert sorted(record["hands"][0]["hands"][0].split()) == tiles_of(first, 0)
    assert page.errors == []
    page.context.close()


def tile_for_both_ends(state: dict[str, Any]) -> str | None:
    """A tile of mine that fits both open ends (so they show different numbers), if any."""
    tiles = [mv.split("@")[0] for mv in state.get("legal") or []]
    return next((x for x in tiles if tiles.count(x) == 2), None)


def test_tile_that_fits_both_ends_is_tapped_then_the_end(
    browser: Any, server_factory: Any, shots: Path
) -> None:
    """Play by clicks (pinned seeds: the same game every run) until a tile fits both ends; tap it,
    the ends become buttons; Cancel, tap it again, tap the end that is not the first choice: the
    server gets, and plays, the move on that end."""
    server = server_factory("--test-seed", TEST_SEED)
    page = new_page(browser, PHONE)
    # The open ends pulse; with reduced motion they hold still, so a click finds them stable.
    page.emulate_media(reduced_motion="reduce")
    pin_seed(page, hashlib.sha256(b"tranque-test|ends").digest())
    frames = record_frames(page)
    assert create_table(page, server.base, target=100) == "t1"
    page.wait_for_selector(".hand .tile")
    # The pinned game reaches such a tile after a few dozen moves: a bound, not a pace (a busy
    # machine has taken more than 90 s to play them).
    end = time.monotonic() + 300
    while True:
        assert time.monotonic() < end, "no tile fitting both ends in 300 s"
        # The state read once nothing of mine is on its way: it holds until I play.
        state = page.evaluate("window.tranque.model.state") if settled(page, frames) else {}
        tile = tile_for_both_ends(state)
        if tile is not None and not page.locator("#result").is_visible():
            if page.locator(".end-choice").count():
                page.click(".end-choice .link")  # tapped by the step below: start from nothing
            break
        # Never choose an end here: a tile that came to fit both ends between the look at the
        # state and the tap must stay unplayed, or the game goes past it.
        if not step(page, choose_end=False):
            page.wait_for_timeout(50)
    left, right = state["ends"]
    assert left != right and sorted(tile) == sorted(f"{left}{right}")
    moves = [mv for mv in state["legal"] if mv.split("@")[0] == tile]
    assert sorted(moves) == sorted([f"{tile}@{left}", f"{tile}@{right}"])
    mine = page.locator(f'.hand .tile[data-tile="{tile}"]')

    # A tap selects the tile and offers both ends, without playing anything yet.
    mine.click()
    assert mine.get_attribute("aria-pressed") == "true"
    choice = page.locator(".end-choice .end-btn")
    assert sorted(choice.evaluate_all("els => els.map(e => e.dataset.move)")) == sorted(moves)
    assert page.locator(".end.target").count() == 2
    shot(page, shots, "choose-end-es-390x844")
    page.click(".end-choice .link")  # Cancel
    assert page.locator(".end-choice").count() == 0 and page.locator(".end.target").count() == 0
    assert not [f for f in frames["out"] if f.get("type") == "play" and f["move"] in moves]

    # Tap it again, then the end that is not the first offered: that is the move played.
    mine.click()
    want = moves[1]
    number = int(want.split("@")[1])
    side = "left" if number == left else "right"
    page.click(f'.end.target[data-end="{side}"]')
    sent = wait_for(
        page,
        lambda: [f for f in frames["out"] if f.get("type") == "play" and f["move"] in moves],
        what="play command",
    )
    assert [f["move"] for f in sent] == [want]
    seat = state["seat"]

    def played_here() -> list[dict[str, Any]]:
        return [
            f
            for f in frames["in"]
            if f.get("type") == "event"
            and f["event"]["type"] == "played"
            and f["event"]["seat"] == seat
            and f["event"]["move"] in moves
        ]

    (frame,) = wait_for(page, played_here, what="played event")
    assert frame["event"]["move"] == want and frame["event"]["by"] == "person"
    # Played on that end, the tile leaves its other number there: both ends now show it.
    other = right if side == "left" else left
    if frame["state"]["ends"] is not None:  # None when the tile ended the hand
        assert frame["state"]["ends"] == [other, other]
        edge = ".chain-tile.first" if side == "left" else ".chain-tile.last"
        page.wait_for_function(f"document.querySelector('{edge}')?.dataset.tile === '{tile}'")
    assert page.errors == []
    page.context.close()
