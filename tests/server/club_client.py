"""A socket of the club (the lobby, the queue) for the tests: it keeps every frame it got, and
waits for the one a test expects, never for a sleep."""

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
                self.messages.append(json.loads(text))
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

    async def close(self) -> None:
        await self.ws.close()
        if self._reader is not None:
            await self._reader

    @classmethod
    async def close_all(cls) -> None:
        for s in cls.opened:
            await s.close()
        cls.opened.clear()


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
