"""PostgreSQL out of reach under a playing node (a TCP proxy the test cuts): the node says so in
/healthz, acknowledges no command it could not persist, and when the database is back the game
goes on from its log, each command applied once."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from frame_scanner import scan_all
from test_server_e2e import assert_verifies
from tests.conftest import ServerProcess

from tranque.client import TableClient, create_table, get_json, new_guest, random_legal


class Cuttable:
    """A TCP proxy to PostgreSQL on a port of its own, in a thread: ``cut()`` drops every
    connection and refuses new ones until ``restore()``."""

    def __init__(self, target_port: int = 5432) -> None:
        self.target = target_port
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = int(s.getsockname()[1])
        self.open = threading.Event()
        self.open.set()
        self.loop = asyncio.new_event_loop()
        self.writers: set[asyncio.StreamWriter] = set()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        self.ready.wait(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self._serve())

    async def _serve(self) -> None:
        server = await asyncio.start_server(self._client, "127.0.0.1", self.port)
        self.ready.set()
        async with server:
            await server.serve_forever()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if not self.open.is_set():
            writer.close()
            return
        try:
            up_r, up_w = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            writer.close()
            return
        self.writers.update((writer, up_w))

        async def pipe(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            with contextlib.suppress(Exception):
                while data := await r.read(65536):
                    w.write(data)
                    await w.drain()
            with contextlib.suppress(Exception):
                w.close()

        await asyncio.gather(pipe(reader, up_w), pipe(up_r, writer))

    def cut(self) -> None:
        self.open.clear()

        def close_all() -> None:
            for w in list(self.writers):
                with contextlib.suppress(Exception):
                    w.transport.abort()
            self.writers.clear()

        self.loop.call_soon_threadsafe(close_all)

    def restore(self) -> None:
        self.open.set()


@pytest.mark.slow
def test_postgresql_out_of_reach_then_back(
    tmp_path: Path, pg_url: str, server_fast_args: list[str]
) -> None:
    proxy = Cuttable()
    via = pg_url.replace("127.0.0.1:5432", f"127.0.0.1:{proxy.port}")
    node = ServerProcess(tmp_path / "pg.db", [*server_fast_args], url=via)
    base = node.start()
    try:

        async def go() -> None:
            guests = [await new_guest(base, f"p{s}") for s in range(4)]
            table = await create_table(base, guests[0]["token"], rules="havana", practice=False)
            tid = table["table"]
            clients = []
            for s, g in enumerate(guests):
                # ``failover`` to the same node: reconnect (with last_seq) when it drops us.
                c = TableClient(base, g["token"], tid, failover=[base])
                await c.connect()
                if s:
                    assert (await c.do({"type": "sit", "seat": s}))["type"] == "ack"
                clients.append(c)
            # Everybody waits for the first lead to be due, then the database goes away.
            await asyncio.gather(*(c.wait_for(lambda c: c.state.get("phase") == "play", 60)
                                   for c in clients))  # fmt: skip
            proxy.cut()
            async with httpx.AsyncClient(base_url=base, timeout=10) as http:
                r = await http.get("/healthz")
                assert r.status_code == 503 and "database unreachable" in r.json()["problems"]
            mover = next(c for c in clients if c.state.get("legal"))
            reply: Any = None
            with contextlib.suppress(ConnectionError, TimeoutError):
                reply = await mover.command(
                    {"type": "play", "seq": mover.seq, "move": mover.state["legal"][0]},
                    timeout=10,
                )
            # Not acknowledged: an error, or the socket closed before any answer.
            assert reply is None or reply["type"] == "error", reply
            proxy.restore()
            async with httpx.AsyncClient(base_url=base, timeout=10) as http:
                for _ in range(100):
                    if (await http.get("/healthz")).status_code == 200:
                        break
                    await asyncio.sleep(0.1)
            await asyncio.gather(
                *(c.play_game(random_legal, seed=i, timeout=240) for i, c in enumerate(clients))
            )
            record = await get_json(base, f"/api/tables/{tid}/record")
            assert_verifies(record)
            scan_all(clients, record, at_least=7)
            for c in clients:
                await c.close()

        asyncio.run(go())
    finally:
        node.stop()
        proxy.restore()
