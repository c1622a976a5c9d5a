"""A socket of the club (the lobby, the queue) for the tests: it keeps every frame it got, and
waits for the one a test expects, never for a sleep. The lobby comes whole once and then as
changes (docs/protocol.md §5.1): the socket applies them, as the browser does, and keeps the
listing after each lobby frame (``listings``, ``wait_listing``)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from typing import Any

import websockets


class ClubSocket:
    opened: list[ClubSocket] = []  # noqa: RUF012 - every socket of a test, closed at its end

    def __init__(self, base: str) -> None:
        self.url = base.replace("http", "ws", 1) + "/ws"
        self.frames: list[str] = []
        self.messages: list[dict[str, Any]] = []
        self.lines: dict[str, dict[str, Any]] = {}  # the lobby as its frames left it
        self.listings: list[list[dict[str, Any]]] = []  # the lobby after each of its frames
        self._changed = asyncio.Event()
        self.ws: Any = None
        self._reader: asyncio.Task[None] | None = None

    async def open(self) -> ClubSocket:
        self.ws = await websockets.connect(self.url, open_timeout=30)
        ClubSocket.opened.append(self)
        self._reader = asyncio.create_task(self._read())
        return self

    async def _read(self) -> None:
        try:
            async for text in self.ws:
                self.frames.append(str(text))
                m = json.loads(text)
                self.messages.append(m)
                if apply_lobby(self.lines, m):
                    self.listings.append(ordered(self.lines))
                self._changed.set()
        except websockets.ConnectionClosed:
            pass

    async def send(self, msg: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(msg))

    async def wait(
        self, pred: Callable[[dict[str, Any]], bool], timeout: float = 30
    ) -> dict[str, Any]:
        """The first message (from the start) that satisfies ``pred``."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            for m in self.messages:
                if pred(m):
                    return m
            left = end - loop.time()
            if left <= 0:
                raise TimeoutError(f"no such message in {timeout}s: {self.messages[-5:]}")
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), min(left, 1.0))

    async def wait_listing(
        self, pred: Callable[[list[dict[str, Any]]], bool], timeout: float = 30
    ) -> list[dict[str, Any]]:
        """The first lobby listing (from the start) that satisfies ``pred``."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            for listing in self.listings:
                if pred(listing):
                    return listing
            left = end - loop.time()
            if left <= 0:
                last = self.listings[-1] if self.listings else None
                raise TimeoutError(f"no such listing in {timeout}s: the last {str(last)[:500]}")
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), min(left, 1.0))

    async def close(self) -> None:
        await self.ws.close()
        if self._reader is not None:
            await self._reader

    @classmethod
    async def close_all(cls) -> None:
        for s in cls.opened:
            await s.close()
        cls.opened.clear()


def apply_lobby(lines: dict[str, dict[str, Any]], m: dict[str, Any]) -> bool:
    """Apply a lobby frame to ``lines`` (table id -> line); False for any other frame."""
    if m.get("type") == "lobby":
        lines.clear()
        lines.update((t["table"], t) for t in m["tables"])
        return True
    if m.get("type") != "lobby_changes":
        return False
    lines.update((t["table"], t) for t in m["tables"])
    for table in m["gone"]:
        lines.pop(table, None)
    return True


def ordered(lines: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The server's order of the lobby: free seats first (fewest first), then playing; by id."""
    return sorted(lines.values(), key=lambda t: (t["status"] != "waiting", t["free"], t["table"]))


def of(kind: str, **fields: Any) -> Callable[[dict[str, Any]], bool]:
    return lambda m: m.get("type") == kind and all(m.get(k) == v for k, v in fields.items())


def assert_nothing_secret(frames: list[str], secrets: list[str]) -> int:
    """The club's frames carry no token, no other guest's id, no seed, no tile: return how
    many frames were looked at (a scan of nothing proves nothing)."""
    for text in frames:
        for s in secrets:
            assert s not in text, f"{s[:12]}... left the server in {text[:200]}"
        assert "seed" not in text and "tiles" not in text, text[:200]
    return len(frames)
