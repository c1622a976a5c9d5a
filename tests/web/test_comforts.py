"""What players of other sites expect, in Chromium: sounds made by the page and a mute that is
remembered, the played tile sliding in (never under reduced motion), the tab's title and icon
when it is your turn in a background tab (and a notification if asked for), the settings (tile
size, confirm before playing, the beginner's aid), and the rules page linked from the table."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from screens import Screens
from test_browser import PHONE, new_page, record_frames, try_click

pytestmark = pytest.mark.slow

# A tab the test can send to the background: Chromium headless is never hidden by itself. And a
# Notification that only notes what it was asked to show.
BACKGROUND_TAB = """
window.__hidden = false;
Object.defineProperty(Document.prototype, "hidden",
  { get: () => window.__hidden, configurable: true });
Object.defineProperty(Document.prototype, "visibilityState",
  { get: () => (window.__hidden ? "hidden" : "visible"), configurable: true });
window.__notes = [];
window.Notification = class {
  constructor(title) { window.__notes.push(title); }
  close() {}
  static get permission() { return "granted"; }
  static requestPermission() { return Promise.resolve("granted"); }
};
"""


def hide(page: Any, hidden: bool) -> None:
    page.evaluate(
        "(h) => { window.__hidden = h; document.dispatchEvent(new Event('visibilitychange')); }",
        hidden,
    )


def state(page: Any) -> dict[str, Any]:
    got: dict[str, Any] = page.evaluate("window.tranque.model.state") or {}
    return got


def played(page: Any) -> list[str]:
    return list(page.evaluate("window.tranque.sound.played"))


def until_my_play(page: Any, seconds: float = 90) -> dict[str, Any]:
    """Answer whatever else is asked (Salgo, a redeal, the end of a hand) until a tile of mine
    may be played; the state then."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        st = state(page)
        if st.get("legal") and not page.locator("#result").count():
            return st
        for sel in ("#continue", "#salgo", "#redeal-no"):
            try_click(page, sel)
        page.wait_for_timeout(50)
    raise AssertionError(f"no play of mine in {seconds} s")


def tile_width(page: Any) -> float:
    # The table is drawn again at every frame: a tile found a moment ago may have been replaced
    # (no box) by the time it is measured, so it is looked up again.
    for _ in range(50):
        box = page.locator(".hand .tile svg").first.bounding_box()
        if box is not None:
            return float(box["width"])
        page.wait_for_timeout(20)
    raise AssertionError("no tile of the hand to measure")


def open_settings(page: Any) -> None:
    page.click("#open-settings")
    page.wait_for_selector("#settings")


def close_settings(page: Any) -> None:
    page.click("#close-settings")
    page.wait_for_selector("#settings", state="detached")


def chain_len(page: Any) -> int:
    return int(page.evaluate("window.tranque.model.chain.length"))


def test_sound_motion_turn_alert_settings_and_help(browser: Any, server: Any) -> None:
    screens = Screens()
    page = new_page(browser, PHONE)
    page.add_init_script(BACKGROUND_TAB)
    page.emulate_media(reduced_motion="no-preference")
    frames = record_frames(page)
    page.goto(server.base + "/")

    # The settings, from the landing: sound on, the rest off, medium tiles.
    open_settings(page)
    assert page.locator("#set-sound").is_checked()
    for off in ("#set-confirm", "#set-aid", "#set-notify"):
        assert not page.locator(off).is_checked(), off
    assert page.locator("#set-tiles input[value=m]").is_checked()
    screens.capture(page, "settings")
    page.check("#set-confirm")
    page.check("#set-notify")
    close_settings(page)
    page.fill("#nickname", "Ana")
    page.click("#play-now")
    page.wait_for_selector(".hand .tile")
    medium = tile_width(page)

    # Confirm before playing: a tap picks the tile, "Jugar" plays it.
    st = until_my_play(page)
    assert "turn" in played(page)  # my turn was announced
    moves = st["legal"]
    single = [mv for mv in moves if [m.split("@")[0] for m in moves].count(mv.split("@")[0]) == 1]
    tile = (single or moves)[0].split("@")[0]
    before = chain_len(page)
    page.click(f'.hand .tile[data-tile="{tile}"]')
    page.wait_for_timeout(300)
    assert not [f for f in frames["out"] if f.get("type") == "play"]
    if single:
        page.click("#confirm-play")
    else:
        page.locator(".end-btn").first.click()
    page.wait_for_function(f"window.tranque.model.chain.length > {before}")
    assert [f for f in frames["out"] if f.get("type") == "play"]
    assert "tile" in played(page)
    # The tiles played (mine and the bots') slid into place.
    page.wait_for_function(f"window.tranque.model.chain.length > {before + 1}", timeout=30_000)
    assert page.evaluate("window.tranque.motion.slides") >= 1

    # Large tiles, no confirmation, the aid: the counts of each number on the table.
    open_settings(page)
    page.uncheck("#set-confirm")
    page.check("#set-aid")
    page.check("#set-tiles input[value=l]")
    close_settings(page)
    assert tile_width(page) > medium
    page.wait_for_selector("#aid")
    counts = page.evaluate(
        """() => {
          const want = Array(10).fill(0);
          for (const p of window.tranque.model.chain) {
            const [a, b] = [Number(p.tile[0]), Number(p.tile[1])];
            want[a] += 1; if (b !== a) want[b] += 1;
          }
          const shown = [...document.querySelectorAll('#aid li')].map(
            (li) => Number(li.querySelector('span').textContent.split('/')[0]));
          return [want, shown];
        }"""
    )
    assert counts[0] == counts[1], counts

    # My turn while the tab is in the background: the title, the icon, a notification.
    st = state(page)
    if st.get("legal"):  # play this one first: the alert is for a turn that comes
        page.locator(".hand .tile.playable").first.click()
        try_click(page, ".end-btn")
        page.wait_for_function("!(window.tranque.model.state.legal || []).length")
    hide(page, True)
    until_my_play(page)
    assert page.title().startswith("● Te toca"), page.title()
    assert page.get_attribute("link[rel=icon]", "href") == "/favicon-turn.svg"
    assert page.evaluate("window.__notes") == ["Te toca"]
    hide(page, False)
    assert not page.title().startswith("●") and "tranque" in page.title()
    assert page.get_attribute("link[rel=icon]", "href") == "/favicon.svg"

    # Muted, reloaded: the settings are remembered and nothing sounds.
    open_settings(page)
    page.uncheck("#set-sound")
    close_settings(page)
    page.emulate_media(reduced_motion="reduce")
    page.reload()
    page.wait_for_selector(".hand .tile")
    assert page.evaluate("document.documentElement.dataset.tiles") == "l"
    page.wait_for_selector("#aid")
    before = chain_len(page)
    st = until_my_play(page)
    page.locator(".hand .tile.playable").first.click()
    try_click(page, ".end-btn")
    page.wait_for_function(f"window.tranque.model.chain.length > {before + 1}", timeout=30_000)
    assert played(page) == []
    # Reduced motion: nothing slid.
    assert page.evaluate("window.tranque.motion.slides") == 0
    open_settings(page)
    assert not page.locator("#set-sound").is_checked() and page.locator("#set-aid").is_checked()
    close_settings(page)

    # The rules, linked from the table, in both languages.
    link = page.locator("#help-link")
    assert link.get_attribute("href") == "/help.html"
    page.goto(server.base + "/help.html")
    assert page.locator("article[lang=es] h1").inner_text() == "Las reglas del dominó cubano"
    assert not page.locator("article[lang=en]").is_visible()
    for word in ("dormidas", "Salgo", "tranque", "capicúa", "viajera", "pollona"):
        assert word in page.locator("article[lang=es]").inner_text(), word
    screens.capture(page, "help")
    page.select_option("#help-lang", "en")
    page.wait_for_function("document.documentElement.lang === 'en'")  # its words fetched first
    assert page.locator("article[lang=en] h1").is_visible()
    assert not page.locator("article[lang=es]").is_visible()
    assert page.evaluate("document.documentElement.lang") == "en"
    assert re.search(r"sleepers", page.locator("article[lang=en]").inner_text())
    assert page.errors == [], page.errors
    page.context.close()
    assert not screens.blocking(), screens.blocking()
