"""People with accounts and their sockets for the tests of friends and notices: a socket keeps
every frame it got and waits for the one a test expects (never a sleep)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from typing import Any

import httpx
import websockets

from tranque.client import new_guest

PASSWORD = "la-caja-de-muerto-9"


def call(
    base: str, method: str, path: str, token: str | None = None, body: Any = None
) -> httpx.Response:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    return httpx.request(method, base + path, json=body, headers=headers, timeout=30)


def ok(r: httpx.Response) -> Any:
    assert r.status_code == 200, r.text
    return r.json()


def refused(r: httpx.Response, status: int, code: str) -> None:
    assert (r.status_code, r.json().get("code")) == (status, code), r.text


async def account(base: str, name: str) -> str:
    """A new account's token (a guest that claimed the name)."""
    guest = await new_guest(base, name)
    body = {"name": name, "password": PASSWORD}
    return str(ok(call(base, "POST", "/api/accounts", guest["token"], body))["token"])


class Sock:
    """A socket: its frames as text and as JSON, and how it was closed."""

    def __init__(self, base: str) -> None:
        self.url = base.replace("http", "ws", 1) + "/ws"
        self.frames: list[str] = []
        self.messages: list[dict[str, Any]] = []
        self.ws: Any = None
        self.reader: asyncio.Task[None] | None = None
        self.got = asyncio.Event()

    async def open(self, first: dict[str, Any], answer: str) -> Sock:
        self.ws = await websockets.connect(self.url, open_timeout=30)
        self.reader = asyncio.create_task(self._read())
        await self.send(first)
        await self.wait(lambda m: m.get("type") in (answer, "error"))
        return self

    async def send(self, msg: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(msg))

    async def _read(self) -> None:
        with contextlib.suppress(websockets.ConnectionClosed):
            async for text in self.ws:
                self.frames.append(str(text))
                self.messages.append(json.loads(text))
                self.got.set()

    async def wait(
        self, pred: Callable[[dict[str, Any]], bool], timeout: float = 20
    ) -> dict[str, Any]:
        async def find() -> dict[str, Any]:
            while True:
                for m in self.messages:
                    if pred(m):
                        return m
                self.got.clear()
                await self.got.wait()

        try:
            return await asyncio.wait_for(find(), timeout)
        except TimeoutError:
            raise AssertionError(f"no such frame: {self.messages[-5:]}") from None

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close()


def kind(k: str, **fields: Any) -> Callable[[dict[str, Any]], bool]:
    """A predicate: a frame of type ``k`` with these fields (a notice's inside ``notice``)."""

    def pred(m: dict[str, Any]) -> bool:
        body = m.get("notice", m) if m.get("type") == "notice" else m
        return m.get("type") == k and all(body.get(f) == v for f, v in fields.items())

    return pred


async def listen(base: str, token: str) -> Sock:
    return await Sock(base).open({"type": "notices", "token": token}, "notices")
