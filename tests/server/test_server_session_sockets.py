"""A socket does not outlive its session: when an account logs out (here or everywhere) or changes
its password, the sockets that spoke for the sessions that ended are closed at once, with 1008
and ``logged_out``, on every node; the others (the session that goes on, other people) stay.

A socket's token is checked at its ``hello`` (or ``queue``); before this, an open socket went on
sitting, playing and adding bots for a session that had ended.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from typing import Any

import httpx
import pytest
import websockets

from tranque.client import create_table, new_guest

PASSWORD = "jugada-de-capicua-77"
NEW_PASSWORD = "la-caja-de-muerto-9"


def _call(base: str, method: str, path: str, token: str | None = None, body: Any = None) -> Any:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    r = httpx.request(method, base + path, json=body, headers=headers, timeout=30)
    assert r.status_code == 200, r.text
    return r.json()


def _login(base: str, name: str, password: str = PASSWORD) -> str:
    return str(
        _call(base, "POST", "/api/sessions", None, {"name": name, "password": password})["token"]
    )


class Sock:
    """A socket at a table (``hello``) or in the queue, that notes how it was closed."""

    def __init__(self, base: str) -> None:
        self.url = base.replace("http", "ws", 1) + "/ws"
        self.messages: list[dict[str, Any]] = []
        self.closed: tuple[int, str] | None = None
        self.ws: Any = None
        self.reader: asyncio.Task[None] | None = None
        self.got = asyncio.Event()

    async def open(self, first: dict[str, Any], answer: str) -> Sock:
        self.ws = await websockets.connect(self.url, open_timeout=30)
        self.reader = asyncio.create_task(self._read())
        await self.ws.send(json.dumps(first))
        await self.wait(answer)
        return self

    async def _read(self) -> None:
        try:
            async for text in self.ws:
                self.messages.append(json.loads(text))
                self.got.set()
        except websockets.ConnectionClosed as exc:
            rcvd = exc.rcvd
            self.closed = (rcvd.code, rcvd.reason) if rcvd else (1006, "")
        else:  # a normal close (1000, 1001) ends the iteration
            self.closed = (self.ws.close_code or 1006, self.ws.close_reason or "")
        self.got.set()

    async def wait(self, kind: str, timeout: float = 30) -> dict[str, Any]:
        async def find() -> dict[str, Any]:
            while True:
                for m in self.messages:
                    if m.get("type") == kind:
                        return m
                assert self.closed is None, f"closed {self.closed} waiting for {kind}"
                self.got.clear()
                await self.got.wait()

        return await asyncio.wait_for(find(), timeout)

    async def ends(self, timeout: float = 10) -> tuple[int, str]:
        """How it was closed, waiting for it (a socket left open fails here)."""
        assert self.reader is not None
        try:
            await asyncio.wait_for(asyncio.shield(self.reader), timeout)
        except TimeoutError:
            raise AssertionError(f"the socket is still open {timeout} s later") from None
        assert self.closed is not None
        return self.closed

    async def alive(self) -> None:
        """Still open and answered: a ping gets its pong."""
        ping = secrets.token_hex(4)
        await self.ws.send(json.dumps({"type": "ping", "id": ping}))

        async def pong() -> None:
            while not any(m.get("type") == "pong" and m.get("id") == ping for m in self.messages):
                assert self.closed is None, f"closed {self.closed}"
                self.got.clear()
                await self.got.wait()

        await asyncio.wait_for(pong(), 10)

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close()


def _hello(token: str, table: str, role: str = "player") -> dict[str, Any]:
    return {"type": "hello", "token": token, "table": table, "role": role}


def _queue(token: str) -> dict[str, Any]:
    return {"type": "queue", "token": token, "variant": "havana"}


def _logged_out(closed: tuple[int, str]) -> bool:
    return closed[0] == 1008 and closed[1].startswith("logged_out")


@pytest.mark.slow
def test_the_sockets_of_an_ended_session_close_at_once(server_factory: Any) -> None:
    base = server_factory("--fill-time", "600").base  # a queue socket stays queued meanwhile

    async def go() -> None:
        guest = await new_guest(base, "tomeguin")
        first = _call(
            base,
            "POST",
            "/api/accounts",
            guest["token"],
            {"name": "Tomeguin", "password": PASSWORD},
        )["token"]
        phone, laptop = _login(base, "tomeguin"), _login(base, "TOMEGUIN")
        table = (await create_table(base, first, practice=False, seat=0))["table"]
        other = await new_guest(base, "otro")
        socks: list[Sock] = []

        async def sock(first_msg: dict[str, Any], answer: str = "sync") -> Sock:
            s = await Sock(base).open(first_msg, answer)
            socks.append(s)
            return s

        try:
            here = await sock(_hello(first, table))  # the host, seated
            on_phone = await sock(_hello(phone, table, "spectator"))
            queued = await sock(_queue(laptop), "queued")
            stranger = await sock(_hello(other["token"], table, "spectator"))
            # A new password on the first device: the phone's and the laptop's sessions end.
            fresh = _call(
                base,
                "POST",
                "/api/accounts/password",
                first,
                {"old": PASSWORD, "new": NEW_PASSWORD},
            )["token"]
            assert _logged_out(await on_phone.ends()), on_phone.closed
            assert _logged_out(await queued.ends()), queued.closed
            await here.alive()  # this session goes on
            await stranger.alive()
            # Out on this device only: its socket closes, the stranger's stays.
            _call(base, "DELETE", "/api/sessions/current", fresh)
            assert _logged_out(await here.ends()), here.closed
            await stranger.alive()
            # Out everywhere, from one of two devices: both devices' sockets close.
            one, two = (
                _login(base, "tomeguin", NEW_PASSWORD),
                _login(base, "tomeguin", NEW_PASSWORD),
            )
            a = await sock(_hello(one, table, "spectator"))
            b = await sock(_hello(two, table, "spectator"))
            assert _call(base, "DELETE", "/api/sessions", one) == {"ended": 2}
            assert _logged_out(await a.ends()), a.closed
            assert _logged_out(await b.ends()), b.closed
            await stranger.alive()
            # Coming back with an ended session's token is refused at the hello, as before.
            again = await Sock(base).open(_hello(two, table), "error")
            socks.append(again)
            assert again.messages[-1]["code"] == "logged_out"
        finally:
            for s in socks:
                await s.close()

    asyncio.run(go())


@pytest.mark.slow
def test_the_sockets_of_an_ended_session_close_on_every_node(cluster_factory: Any) -> None:
    a, b = cluster_factory(2, "--fill-time", "600").bases

    async def go() -> None:
        guest = await new_guest(a, "jutia")
        first = _call(
            a, "POST", "/api/accounts", guest["token"], {"name": "Jutia", "password": PASSWORD}
        )["token"]
        second = _login(b, "jutia")
        on_a = (await create_table(a, first, practice=False, seat=0))["table"]  # a owns it
        on_b = (await create_table(b, second, practice=False, seat=0))["table"]  # b owns it
        other = await new_guest(b, "otra")
        socks: list[Sock] = []

        async def sock(base: str, first_msg: dict[str, Any], answer: str = "sync") -> Sock:
            s = await Sock(base).open(first_msg, answer)
            socks.append(s)
            return s

        try:
            # The first session's sockets: on b at a's table (through the bus), on a at its own.
            first_via_b = await sock(b, _hello(first, on_a))
            first_on_a = await sock(a, _hello(first, on_a, "spectator"))
            # The second's: on b at its own table, on a at b's table, in the queue on a.
            second_on_b = await sock(b, _hello(second, on_b))
            second_via_a = await sock(a, _hello(second, on_b, "spectator"))
            second_queued = await sock(a, _queue(second), "queued")
            stranger = await sock(b, _hello(other["token"], on_a, "spectator"))
            # A new password through b with the second session: the first ends, on both nodes.
            fresh = _call(
                b, "POST", "/api/accounts/password", second, {"old": PASSWORD, "new": NEW_PASSWORD}
            )["token"]
            assert _logged_out(await first_via_b.ends()), first_via_b.closed
            assert _logged_out(await first_on_a.ends()), first_on_a.closed
            for s in (second_on_b, second_via_a, second_queued, stranger):
                await s.alive()
            # Out everywhere through a: the second session's sockets close on both nodes.
            _call(a, "DELETE", "/api/sessions", fresh)
            for s in (second_on_b, second_via_a, second_queued):
                assert _logged_out(await s.ends()), s.closed
            await stranger.alive()
        finally:
            for s in socks:
                await s.close()

    asyncio.run(go())
