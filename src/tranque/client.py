"""``tranque.client``: a Python client of the table server, for tests, the benchmark and scripts.

>>> # async with httpx: guest = await new_guest(base, "ana"); t = await create_table(base, ...)
>>> # c = TableClient(base, guest["token"], t["table"]); await c.connect(); await c.play_game()

A ``TableClient`` keeps the last ``state`` the server sent it and the sequence number of the last
event, answers the fairness duties by itself (commit to a fresh client seed when a hand is being
dealt, reveal it when asked), resends unanswered commands after a reconnect with the same id (the
server answers a resend with the original answer), and records every frame it receives.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import json
import random
import secrets
import time
from collections.abc import Callable, Sequence
from typing import Any

import httpx
import msgspec
import websockets

from tranque.fair.recipe import client_commit

_decode = msgspec.json.Decoder().decode


async def new_guest(base: str, nickname: str | None = None) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        r = await http.post("/api/guests", json={"nickname": nickname})
        r.raise_for_status()
        return dict(r.json())


async def create_table(base: str, token: str, **options: Any) -> dict[str, Any]:
    """POST /api/tables: rules, move_clock, practice, seat."""
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        r = await http.post(
            "/api/tables", json=options, headers={"Authorization": f"Bearer {token}"}
        )
        r.raise_for_status()
        return dict(r.json())


async def get_json(base: str, path: str) -> Any:
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        r = await http.get(path)
        r.raise_for_status()
        return r.json()


async def get_history(base: str, table: str, *, after: int = 0) -> list[dict[str, Any]]:
    """Every public event of the table after ``after``, following the pages of ``/history``."""
    out: list[dict[str, Any]] = []
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        url: str | None = f"/api/tables/{table}/history?after={after}"
        while url is not None:
            r = await http.get(url)
            r.raise_for_status()
            out.extend(r.json())
            url = r.links.get("next", {}).get("url")
    return out


class CommandFailed(Exception):
    def __init__(self, reply: dict[str, Any]) -> None:
        super().__init__(f"{reply.get('code')}: {reply.get('message')}")
        self.reply = reply
        self.code = reply.get("code")


def first_legal(state: dict[str, Any], rng: random.Random) -> str:
    return str(state["legal"][0])


def random_legal(state: dict[str, Any], rng: random.Random) -> str:
    return str(rng.choice(state["legal"]))


class TableClient:
    """One seat's player (or a spectator) at one table over a real WebSocket."""

    def __init__(
        self,
        base: str,
        token: str,
        table: str,
        *,
        role: str = "player",
        seed_secret: bytes | None = None,
        keep_frames: bool = True,
        on_frame: Callable[[dict[str, Any], float], None] | None = None,
        failover: Sequence[str] = (),
    ) -> None:
        # The other nodes of a cluster: a socket closed with 1001 (going away: the table moved,
        # or its node stops) or refused reconnects to the next, with its last_seq.
        self.bases = [base.rstrip("/"), *(b.rstrip("/") for b in failover)]
        self.failovers = 0
        self.base = base.rstrip("/")
        self.ws_url = self.base.replace("http", "ws", 1) + "/ws"
        self.token = token
        self.table = table
        self.role = role
        self.seed_secret = seed_secret  # None: fresh random seeds; bytes: reproducible (tests)
        self.keep_frames = keep_frames
        self.on_frame = on_frame
        self.frames: list[str] = []
        self.seq = 0
        self.state: dict[str, Any] = {}
        self.table_info: dict[str, Any] = {}
        self.last_sync: dict[str, Any] | None = None
        self.events: list[dict[str, Any]] = []
        self.errors: list[dict[str, Any]] = []
        self.ws: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._ids = itertools.count(1)
        self._prefix = secrets.token_hex(3)
        self._pending: dict[str, tuple[dict[str, Any], asyncio.Future[dict[str, Any]]]] = {}
        self._changed = asyncio.Event()
        self._seeds: dict[int, bytes] = {}
        self._fair_sent: set[tuple[int, str]] = set()
        self.auto_fair = True
        self.closed_code: int | None = None
        self.synced = asyncio.Event()

    # -- connection -------------------------------------------------------------------------------

    async def connect(self, *, resume: bool = False) -> None:
        self.synced.clear()
        self.ws = await websockets.connect(self.ws_url, max_size=2**22, open_timeout=30)
        self.closed_code = None
        hello: dict[str, Any] = {
            "type": "hello",
            "token": self.token,
            "table": self.table,
            "role": self.role,
        }
        if resume:
            hello["last_seq"] = self.seq
        await self.ws.send(json.dumps(hello))
        self._reader = asyncio.create_task(self._read())
        # The sync, or the socket's end: a node may close it before (the table moved on the
        # way, say), and the caller tries again at once rather than after the whole wait.
        synced = asyncio.ensure_future(self.synced.wait())
        try:
            await asyncio.wait(
                {synced, self._reader}, timeout=30, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            synced.cancel()
        if not self.synced.is_set():
            if self._reader.done():
                raise ConnectionError(f"closed before the sync ({self.closed_code})")
            raise TimeoutError("no sync within 30 s")
        for msg, _ in list(self._pending.values()):
            await self.ws.send(json.dumps(msg))  # same id: applied at most once

    async def reconnect(self) -> None:
        await self.drop()
        await self.connect(resume=True)

    async def fail_over(self, timeout: float = 60) -> None:
        """Reconnect with ``last_seq`` to the next base that takes us (a cluster's nodes), until
        ``timeout``: what the client of a node that went away does."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        tries = 0
        while True:
            await self.drop()
            tries += 1
            self.base = self.bases[(self.bases.index(self.base) + 1) % len(self.bases)]
            self.ws_url = self.base.replace("http", "ws", 1) + "/ws"
            try:
                await self.connect(resume=True)
                self.failovers += 1
                return
            except (OSError, TimeoutError, websockets.WebSocketException):
                if loop.time() > end:
                    raise
                await asyncio.sleep(min(0.1 * tries, 1.0))

    @property
    def went_away(self) -> bool:
        """The socket closed in a way a cluster's client reconnects from."""
        return (
            len(self.bases) > 1
            and self._reader is not None
            and self._reader.done()
            and self.closed_code in (1001, 1006, 1011, 1012, None)
        )

    async def drop(self) -> None:
        """Close the socket (pending commands stay pending, to be resent)."""
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(BaseException):
                await self._reader
            self._reader = None

    async def close(self) -> None:
        await self.drop()
        for _, fut in self._pending.values():
            if not fut.done():
                fut.cancel()
        self._pending.clear()

    async def send_raw(self, text: str | bytes) -> None:
        await self.ws.send(text)

    # -- reading ----------------------------------------------------------------------------------

    async def _read(self) -> None:
        try:
            async for text in self.ws:
                now = time.perf_counter()
                if self.keep_frames:
                    self.frames.append(text if isinstance(text, str) else text.decode())
                msg = _decode(text)
                if self.on_frame is not None:
                    self.on_frame(msg, now)
                self._take(msg)
        except websockets.ConnectionClosed as exc:
            self.closed_code = exc.rcvd.code if exc.rcvd else None
        finally:
            if self.closed_code is None and self.ws is not None and self.ws.close_code:
                self.closed_code = self.ws.close_code
            self._changed.set()

    def _take(self, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        if kind == "event":
            self.seq = msg["seq"]
            self.state = msg["state"]
            self.events.append(msg["event"])
        elif kind == "sync":
            self.seq = msg["seq"]
            self.state = msg["state"]
            self.table_info = msg["table"]
            self.last_sync = msg
            for e in msg.get("missed") or []:
                self.events.append(e)
            self.synced.set()
        elif kind == "token":  # the server renewed our token: the next hello uses it
            self.token = msg["token"]
        elif kind in ("ack", "error", "pong"):
            if kind == "error":
                self.errors.append(msg)
            cid = msg.get("id")
            pending = self._pending.pop(cid, None) if cid else None
            if pending is not None and not pending[1].done():
                pending[1].set_result(msg)
        if self.auto_fair:
            self._fair_duty()
        self._changed.set()

    def _seed_for(self, hand: int) -> bytes:
        seed = self._seeds.get(hand)
        if seed is None:
            if self.seed_secret is None:
                seed = secrets.token_bytes(32)
            else:
                seed = hashlib.sha256(self.seed_secret + f"|{self.table}|{hand}".encode()).digest()
            self._seeds[hand] = seed
        return seed

    def _fair_duty(self) -> None:
        duty = self.state.get("fair")
        if not duty or self.ws is None:
            return
        hand, do = duty["hand"], duty["do"]
        if (hand, do) in self._fair_sent:
            return
        self._fair_sent.add((hand, do))
        seed = self._seed_for(hand)
        if do == "commit":
            msg = {"type": "ready", "hand": hand, "commit": client_commit(seed)}
        else:
            msg = {"type": "reveal", "hand": hand, "seed": seed.hex()}
        self._fire(msg)

    def _fire(self, msg: dict[str, Any]) -> None:
        msg.setdefault("id", self.next_id())
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[msg["id"]] = (msg, fut)
        task = asyncio.ensure_future(self.ws.send(json.dumps(msg)))
        task.add_done_callback(lambda t: t.exception())

    def next_id(self) -> str:
        return f"{self._prefix}-{next(self._ids)}"

    # -- commands ---------------------------------------------------------------------------------

    async def command(self, msg: dict[str, Any], *, timeout: float = 30) -> dict[str, Any]:
        """Send a command and wait for its answer (``ack`` or ``error``)."""
        msg = dict(msg)
        msg.setdefault("id", self.next_id())
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[msg["id"]] = (msg, fut)
        with contextlib.suppress(websockets.ConnectionClosed):
            await self.ws.send(json.dumps(msg))
        reader = self._reader
        if reader is None or len(self.bases) == 1:
            return await asyncio.wait_for(fut, timeout)
        # A cluster's client: a closed socket ends the wait (the command stays pending, to be
        # resent with its id once reconnected), so that it fails over at once.
        either: set[asyncio.Future[Any]] = {fut, reader}
        await asyncio.wait(either, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        if fut.done():
            return fut.result()
        if reader.done():
            raise ConnectionError(f"connection closed ({self.closed_code})")
        raise TimeoutError(f"no answer to {msg.get('type')} in {timeout}s")

    async def do(self, msg: dict[str, Any], **kw: Any) -> dict[str, Any]:
        reply = await self.command(msg, **kw)
        if reply["type"] == "error":
            raise CommandFailed(reply)
        return reply

    async def play(self, move: str) -> dict[str, Any]:
        return await self.command(
            {"type": "play", "seq": self.seq, "move": move}, timeout=self.answer_within
        )

    @property
    def answer_within(self) -> float:
        """Seconds to wait for a command's answer: a cluster's client gives a node that went
        silent (paused, cut off) less time before it tries another."""
        return 30.0 if len(self.bases) == 1 else 8.0

    async def wait_for(self, pred: Callable[[TableClient], bool], timeout: float = 30) -> None:
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not pred(self):
            self._changed.clear()
            left = end - loop.time()
            if left <= 0:
                raise TimeoutError(f"waited {timeout}s; state {self.state}")
            gone = self.closed_code is not None and self._reader is not None and self._reader.done()
            if gone and not self.went_away:  # a cluster's client is reconnected by its player
                raise ConnectionError(f"connection closed ({self.closed_code})")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), min(left, 1.0))

    @property
    def game_over(self) -> bool:
        """The table is done: its game is over and, under match rules, the match is decided."""
        if self.state.get("phase") != "over":
            return False
        match = self.state.get("match")
        return match is None or bool(match.get("over"))

    # -- playing ----------------------------------------------------------------------------------

    async def play_game(
        self,
        choose: Callable[[dict[str, Any], random.Random], str] = random_legal,
        *,
        seed: int | None = None,
        timeout: float = 600,
        stop: Callable[[TableClient], bool] | None = None,
    ) -> None:
        """Take every decision for this seat until the game is over (or ``stop`` says so).

        With ``seed`` given, each decision is drawn from the position (hand, tiles left), so two
        runs of the same game decide the same way.
        """
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        done_for: set[tuple[Any, ...]] = set()
        while not self.game_over and (stop is None or not stop(self)):
            st = self.state
            key = (st.get("version"), st.get("hand"), bool(st.get("legal")), st.get("choosing"))
            rng = random.Random(
                f"{seed}|{st.get('hand')}|{sum(st.get('counts') or [])}|{st.get('phase')}"
            )
            try:
                if st.get("legal") and key not in done_for:
                    done_for.add(key)
                    reply = await self.play(choose(st, rng))
                    if reply["type"] == "error" and reply["code"] != "stale":
                        raise CommandFailed(reply)
                    continue
                if st.get("choosing") and key not in done_for:
                    done_for.add(key)
                    choice = rng.choice(["salgo", "sal_tu"])
                    await self.command(
                        {"type": "choose", "seq": self.seq, "choice": choice},
                        timeout=self.answer_within,
                    )
                    continue
                if st.get("redeal") and key not in done_for:
                    done_for.add(key)
                    await self.command(
                        {"type": "redeal", "seq": self.seq, "ask": False},
                        timeout=self.answer_within,
                    )
                    continue
            except (websockets.ConnectionClosed, TimeoutError, ConnectionError) as exc:
                if stop is not None and stop(self):
                    return
                if self.went_away or (len(self.bases) > 1 and isinstance(exc, TimeoutError)):
                    await self.fail_over(max(1.0, end - loop.time()))
                    done_for.clear()
                    continue
                raise
            left = end - loop.time()
            if left <= 0:
                raise TimeoutError(f"the game did not end in {timeout}s; state {self.state}")
            self._changed.clear()
            if self.game_over or (stop is not None and stop(self)):
                return
            if self.went_away:
                await self.fail_over(max(1.0, left))
                done_for.clear()
                continue
            if self.closed_code is not None and self._reader is not None and self._reader.done():
                if stop is not None:
                    # The caller reconnects us; wait until it has.
                    await asyncio.sleep(0.05)
                    continue
                raise ConnectionError(f"connection closed ({self.closed_code})")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), min(left, 1.0))


async def _demo(base: str, rules: str) -> None:  # pragma: no cover - a manual smoke run
    guest = await new_guest(base, "demo")
    table = await create_table(base, guest["token"], rules=rules, practice=True)
    c = TableClient(base, guest["token"], table["table"])
    await c.connect()
    await c.play_game(first_legal)
    print(json.dumps(c.state))
    await c.close()


if __name__ == "__main__":  # pragma: no cover
    import sys

    asyncio.run(_demo(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000", "havana"))
