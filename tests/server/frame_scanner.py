"""The frame scanner: every tile in every frame a client received must be one it may see.

A tile another seat holds (or a sleeper) may appear in a seat's frames only once it has been
played, or once its hand is over. The true deals come from the finished game record; the scanner
follows each client's own frames to know which deal and which moment each frame belongs to.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

TILE = re.compile(r"^\d\d$")


def _norm(tok: str) -> str:
    return tok if tok[0] >= tok[1] else tok[1] + tok[0]


def tiles_in(obj: Any, out: set[str]) -> set[str]:
    if isinstance(obj, str):
        for tok in re.split(r"[\s@/,]+", obj):
            if TILE.match(tok):
                out.add(_norm(tok))
    elif isinstance(obj, dict):
        for k, v in obj.items():
            if k != "draw":  # the first-hand draw is shown to all, and says nothing of hands
                tiles_in(v, out)
    elif isinstance(obj, list):
        for v in obj:
            tiles_in(v, out)
    return out


def record_hands(record: dict[str, Any]) -> list[dict[str, Any]]:
    """Every hand of a game record, or of every game of a match record, in order."""
    if record.get("format") == "tranque-match/1":
        return [h for g in record["games"] for h in g["hands"]]
    return list(record["hands"])


def deals_of(record: dict[str, Any]) -> dict[tuple[int, int], tuple[list[set[str]], set[str]]]:
    """The deals by (table hand number, attempt): events number hands per table, not per game."""
    out = {}
    for h in record_hands(record):
        number = h["fairness"]["hand_number"] if h.get("fairness") else h["number"]
        deals = [*h["setup"]["redeals"], h]
        for attempt, d in enumerate(deals):
            hands = [set(x.split()) for x in d["hands"]]
            out[(number, attempt)] = (hands, set(d["sleepers"].split()))
    return out


@dataclass(frozen=True)
class Scanned:
    """What a scan looked at: a scan that saw nothing proves nothing, so tests assert on this."""

    frames: int  # frames checked
    with_tiles: int  # ... that carried at least one tile
    guarded: int  # ... that carried tiles while some tile was forbidden (a leak was possible)

    def at_least(self, n: int) -> Scanned:
        """Fail unless ``n`` frames or more with tiles were checked against a known deal."""
        assert self.guarded >= n, f"the scan proves too little: {self}"
        return self


def scan(frames: list[str], seat: int | None, record: dict[str, Any]) -> Scanned:
    """Check every frame; say how many were checked. Raises AssertionError on a leak."""
    deals = deals_of(record)
    forbidden: set[str] = set()
    checked = with_tiles = guarded = 0

    def enter(hand: int, attempt: int) -> None:
        nonlocal forbidden
        hands, sleepers = deals[(hand, attempt)]
        forbidden = set(sleepers)
        for s in range(4):
            if s != seat:
                forbidden |= hands[s]

    def follow(event: dict[str, Any]) -> None:
        nonlocal forbidden
        t = event.get("type")
        if t == "dealt":
            enter(event["hand"], event["attempt"])
        elif t == "played":
            move = event["move"]
            if move != "pass":
                forbidden.discard(_norm(move.split("@")[0]))
            if "hand_end" in event:
                forbidden = set()

    for text in frames:
        msg = json.loads(text)
        if msg.get("type") == "event":
            follow(msg["event"])
        elif msg.get("type") == "sync":
            for e in msg.get("missed") or []:
                follow(e)
            if msg.get("missed") is None:
                # A full resync: place ourselves from the view itself.
                view = msg["view"]
                if view["outcome"] is None and view["phase"] in ("redeal", "choose", "play"):
                    base = (msg.get("state") or {}).get("match", {}).get("hand_base", 0)
                    enter(base + view["hand_number"], len(view["redeals_asked_by"]))
                    for _, mv in view["moves"]:
                        if mv != "pass":
                            forbidden.discard(_norm(mv.split("@")[0]))
                else:
                    forbidden = set()
        if msg.get("type") == "error":
            # An error's sentence speaks of event numbers ("based on event 29"), not of tiles;
            # the rest of the frame is scanned.
            msg = {k: v for k, v in msg.items() if k != "message"}
        tiles = tiles_in(msg, set())
        leaked = tiles & forbidden
        assert not leaked, f"seat {seat} saw {sorted(leaked)} in {text[:300]}"
        checked += 1
        with_tiles += bool(tiles)
        guarded += bool(tiles and forbidden)
    return Scanned(checked, with_tiles, guarded)


def scan_all(clients: list[Any], record: dict[str, Any], at_least: int) -> list[Scanned]:
    """Scan each seat's client (seat = its index) and ask each scan to have proved something."""
    return [scan(c.frames, s, record).at_least(at_least) for s, c in enumerate(clients)]


# What only moderators may read: the screen's figures and flags, reports and who sent them.
MODERATION_WORDS = (
    "report", "flag", "reasons", "z_edge", "z_partner", "z_strength", "hindsight_edge",
    "partner_edge", "stronger_than_the_strong_bot", "moderation", "warnings",
)  # fmt: skip


def assert_no_moderation(texts: list[str], secrets: list[str]) -> int:
    """No frame or page a non-moderator got names a flag, a report, its reason or its sender
    (``secrets``: the reporters' handles, the reasons given...). How many texts were looked at:
    a scan of nothing proves nothing."""
    for text in texts:
        low = text.lower()
        for word in (*MODERATION_WORDS, *secrets):
            assert word.lower() not in low, f"{word!r} left the server in {text[:300]}"
    return len(texts)


def private_leaks(frames: list[str], secrets: list[str]) -> list[str]:
    """The frames that carry any of these words (another person's friends, his privacy's
    fields): none may reach whoever they are not about. Returns the frames that leaked."""
    return [f for f in frames if any(s.casefold() in f.casefold() for s in secrets)]
