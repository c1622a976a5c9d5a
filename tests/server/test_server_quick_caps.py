"""The quick-match queue under the table limits, through a real server: the tables it opens count
against the people seated at them (``--max-open-tables``), entering it takes a token of the
address's table rate (``--tables-per-minute``), and a refusal is an error frame that says what to
do. Before, its tables were hosted by ``quick-match`` and neither limit ever applied: four guests
opened 250 public, playing tables in about a minute."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from club_client import ClubSocket, of

from tranque.client import get_json, new_guest


async def _queue_once(base: str, token: str, variant: str = "havana") -> dict[str, Any]:
    """Queue on a fresh socket: the ``matched`` frame, or the ``error`` or ``unqueued`` one."""
    sock = await ClubSocket(base).open()
    await sock.send({"type": "queue", "token": token, "variant": variant})
    answer = await sock.wait(lambda m: m["type"] in ("matched", "error", "unqueued"), 30)
    await sock.close()
    return answer


def _post_table(base: str, token: str) -> httpx.Response:
    return httpx.post(
        base + "/api/tables",
        json={"practice": False},
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    )


@pytest.mark.slow
def test_four_guests_get_no_more_than_their_cap_of_tables_through_the_queue(
    server_factory: Any,
) -> None:
    # Fill time 0: whoever queues is seated at once, with bots in the empty seats.
    server = server_factory("--fill-time", "0", "--max-open-tables", "2")
    base = server.base

    async def go() -> None:
        guests = [await new_guest(base, f"g{i}") for i in range(4)]
        tables: set[str] = set()
        for g in guests:
            for _ in range(2):
                answer = await _queue_once(base, g["token"])
                assert answer["type"] == "matched", answer
                tables.add(answer["table"])
            refused = await _queue_once(base, g["token"])
            assert refused["type"] == "error" and refused["code"] == "too_many_tables", refused
            assert "finish one" in refused["message"] and "2 unfinished" in refused["message"]
            # The tables the queue gave him count for a table he would create, too.
            r = _post_table(base, g["token"])
            assert r.status_code == 429 and r.json()["code"] == "too_many_tables", r.text
        assert len(tables) == 8
        live = (await get_json(base, "/api/stats"))["live"]
        assert live["total"] == 8 and live["playing"] == 8, live
        assert "Traceback" not in server.errors()

    asyncio.run(_closing(go()))


def test_entering_the_queue_takes_a_token_of_the_address_table_rate(server_factory: Any) -> None:
    server = server_factory(
        "--fill-time", "600", "--tables-per-minute", "1", "--table-burst", "2"
    )  # fmt: skip
    base = server.base

    async def go() -> None:
        ana = await new_guest(base, "ana")
        sock = await ClubSocket(base).open()
        for n in (1, 2):
            await sock.send({"type": "queue", "token": ana["token"], "variant": "havana"})
            await sock.wait(
                lambda m, n=n: len([x for x in sock.messages if x["type"] == "queued"]) == n
            )
        await sock.send({"type": "queue", "token": ana["token"], "variant": "havana"})
        refused = await sock.wait(of("error"))
        assert refused["code"] == "rate_limited" and "new tables" in refused["message"], refused
        # The same address's next table over HTTP waits for the same bucket.
        r = _post_table(base, ana["token"])
        assert r.status_code == 429 and r.json()["code"] == "rate_limited", r.text

    asyncio.run(_closing(go()))


@pytest.mark.slow
def test_one_who_reached_his_cap_while_he_waited_is_not_seated(server_factory: Any) -> None:
    """He queued with room for one more table, then made one himself: the queue's table is not
    opened for him (``unqueued``, ``too_many_tables``); the one waiting with him is seated."""
    server = server_factory("--fill-time", "2", "--max-open-tables", "1")
    base = server.base

    async def go() -> None:
        ana, bea = await new_guest(base, "ana"), await new_guest(base, "bea")
        socks = []
        for g in (ana, bea):
            sock = await ClubSocket(base).open()
            await sock.send({"type": "queue", "token": g["token"], "variant": "havana"})
            await sock.wait(of("queued"))
            socks.append(sock)
        assert _post_table(base, ana["token"]).status_code == 200  # within the fill time
        gone = await socks[0].wait(lambda m: m["type"] in ("unqueued", "matched"), 30)
        assert gone == {"type": "unqueued", "reason": "too_many_tables"}, gone
        seated = await socks[1].wait(of("matched"), 30)
        info = await get_json(base, f"/api/tables/{seated['table']}")
        people = [s["nickname"] for s in info["seats"] if s["kind"] == "person"]
        assert people == ["bea"], info["seats"]

    asyncio.run(_closing(go()))


async def _closing(test: Any) -> None:
    try:
        await test
    finally:
        await ClubSocket.close_all()
