"""Taps made while the table's connection is down, in Chromium against a real server: when the
page is back it sends one message per decision, once, not one per tap, so a player who kept
tapping through an outage is not refused (``rate_limited``) and cut off again by the server's
per-connection rate limit, and his play is applied once."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest
from test_browser import PHONE, create_table, new_page, step, wait_for

pytestmark = pytest.mark.slow

# A tighter rate than the default (20 a second, bursts of 60), so that forty taps are a flood:
# bursts of 15, and the socket is closed after 20 more messages refused.
RATE = "5"
TAPS = 40  # one every 0.1 s: four seconds of tapping while the server is down


class Sockets:
    """Every WebSocket the page opens, in order: what it sent and received, and if it closed."""

    def __init__(self, page: Any) -> None:
        self.all: list[dict[str, Any]] = []
        page.on("websocket", self._opened)

    def _opened(self, ws: Any) -> None:
        rec: dict[str, Any] = {"ws": ws, "out": [], "in": []}
        ws.on("framesent", lambda p: rec["out"].append(json.loads(p)))
        ws.on("framereceived", lambda p: rec["in"].append(json.loads(p)))
        self.all.append(rec)

    def last(self) -> dict[str, Any]:
        return self.all[-1]


SINGLE_MOVE_TILE = """() => {
  const st = window.tranque.model.state;
  const by = {};
  for (const mv of st.legal || []) { const t = mv.split("@")[0]; by[t] = (by[t] || 0) + 1; }
  return Object.keys(by).find((t) => by[t] === 1) || null;
}"""

MY_TURN_SETTLED = """() => {
  if (!window.tranque) return false;
  const s = window.tranque.sock;
  return s.pending.size === 0 && (window.tranque.model.state.legal || []).length > 0;
}"""


def test_taps_made_offline_go_out_once_and_the_new_socket_stays(
    browser: Any, server_factory: Any
) -> None:
    server = server_factory("--rate", RATE)
    page = new_page(browser, PHONE)
    sockets = Sockets(page)
    create_table(page, server.base, target=30)
    # Up to a turn of mine with a tile a tap plays (it fits one end only), nothing on its way.
    tile = None
    for _ in range(200):
        wait_for(page, lambda: page.evaluate(MY_TURN_SETTLED) or step(page), 60, "a turn of mine")
        if page.evaluate(MY_TURN_SETTLED):
            tile = page.evaluate(SINGLE_MOVE_TILE)
            if tile is not None:
                break
            step(page)  # a tile that fits both ends: play it, and wait for the next turn
    assert tile is not None, "no turn with a tile for one end"
    hand = page.locator(".hand .tile").count()
    seq = page.evaluate("window.tranque.model.state.version")

    # The server dies; the player keeps tapping the tile while the page reconnects.
    port = server.port
    proc = server.proc
    assert proc is not None and proc.stdout is not None
    server.kill9()
    proc.stdout.close()  # its bot workers may hold the other end a while yet
    page.wait_for_selector("#conn:not([hidden])", timeout=10_000)
    for _ in range(TAPS):
        page.click(f'.hand .tile[data-tile="{tile}"]')
        page.wait_for_timeout(100)
    server.start(port=port)

    # Back: the play went out once on the new socket, was applied, and the socket stays open.
    page.wait_for_selector("#conn", state="hidden", timeout=30_000)
    back = sockets.last()
    wait_for(page, lambda: any(f.get("type") == "ack" for f in back["in"]), 15, "the ack")
    wait_for(page, lambda: page.locator(".hand .tile").count() == hand - 1, 15, "the play")
    sent = [f["type"] for f in back["out"]]
    refused = Counter(f["code"] for f in back["in"] if f.get("type") == "error")
    summary = {"sent": Counter(sent), "refused": refused, "closed": back["ws"].is_closed()}
    print(f"after {TAPS} taps offline, on the new socket: {summary}")
    assert summary == {"sent": {"hello": 1, "ping": 1, "play": 1}, "refused": {}, "closed": False}
    assert sent[:2] == ["hello", "ping"]
    assert next(f for f in back["out"] if f["type"] == "play")["seq"] == seq
    seat = page.evaluate("window.tranque.model.state.seat")
    mine = [
        e for e in (f["event"] for f in back["in"] if f.get("type") == "event")
        if e["type"] == "played" and e["seat"] == seat and e["move"].split("@")[0] == tile
    ]  # fmt: skip
    assert len(mine) == 1, mine
    assert page.errors == []
    page.context.close()
