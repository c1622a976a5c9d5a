"""Chip tables through a real server: a game from the escrow to the payout, too few chips
refused with nothing moved, two sit-downs at once with chips for one (one node and two), and a
``kill -9`` at every point between the escrow and the settlement. The frames and the new
answers carry no hidden tile and nobody's token."""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
from typing import Any

import httpx
import pytest
from club_client import ClubSocket
from frame_scanner import scan

from tranque.client import TableClient, create_table, get_json, new_guest, random_legal
from tranque.ledger import stakes as chips
from tranque.table.chips import CRASH_POINTS

TOP = 10_000  # its escrow is a whole opening grant: chips for exactly one such seat


async def chips_of(base: str, token: str, path: str = "/api/chips") -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        r = await http.get(path, headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200, r.text
        return dict(r.json())


def ledger_check(url: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tranque.cli", "ledger", "check", "--db", url],
        capture_output=True,
        text=True,
        timeout=60,
    )


async def chip_table(base: str, stake: int, *, seat: int | None = None) -> tuple[str, str]:
    """A chip table whose host does not sit (nothing of his in escrow): (table, host token)."""
    host = await new_guest(base, "host")
    t = await create_table(base, host["token"], rules="oriente", practice=False, stake=stake,
                           seat=seat)  # fmt: skip
    return t["table"], host["token"]


async def bots_in(base: str, host_token: str, table: str, seats: list[int]) -> None:
    c = TableClient(base, host_token, table, role="player")
    await c.connect()
    for s in seats:
        await c.do({"type": "add_bot", "seat": s})
    await c.close()


def test_a_chip_game_from_the_escrow_to_the_payout(server: Any) -> None:
    base = server.base

    async def go() -> None:
        p = await new_guest(base, "pepe")
        before = await chips_of(base, p["token"])
        assert before["balance"] == chips.OPENING_GRANT and before["play_money"] is True
        tid, host = await chip_table(base, 100)
        c = TableClient(base, p["token"], tid)
        await c.connect()
        await c.do({"type": "sit", "seat": 0})
        during = await chips_of(base, p["token"])
        assert (during["balance"], during["in_escrow"]) == (chips.OPENING_GRANT - 200, 200)
        await bots_in(base, host, tid, [1, 2, 3])
        await c.play_game(random_legal, timeout=600)
        record = await get_json(base, f"/api/tables/{tid}/record")
        scan(c.frames, 0, record).at_least(1)
        info = await get_json(base, f"/api/tables/{tid}")
        result = info["result"]
        delta = chips.deltas(100, "AB".index(result["winner"]), result["pollona"])[0]
        assert info["chips"]["payout"][0] == delta
        after = await chips_of(base, p["token"])
        assert (after["balance"], after["in_escrow"]) == (chips.OPENING_GRANT + delta, 0)
        history = await chips_of(base, p["token"], "/api/chips/history?limit=5")
        assert [(m["kind"], m["amount"]) for m in history["movements"]] == [
            ("settle", 200 + delta), ("escrow", -200), ("grant", chips.OPENING_GRANT),
        ]  # fmt: skip
        assert history["movements"][0]["page"] == f"/t/{tid}"
        text = json.dumps([info, history, after])
        assert p["token"] not in text and host not in text and p["guest"] not in text
        await c.close()

    asyncio.run(go())
    check = ledger_check(server.url)
    assert check.returncode == 0, check.stdout
    assert "chip games settled: 1" in check.stdout


def test_too_few_chips_is_a_clear_error_and_nothing_moves(server: Any) -> None:
    base = server.base

    async def go() -> None:
        p = await new_guest(base, "pobre")
        t1 = await create_table(base, p["token"], practice=False, stake=TOP, seat=0)
        mine = await chips_of(base, p["token"])  # no top-up: his chips are in escrow
        assert (mine["balance"], mine["in_escrow"]) == (0, 2 * TOP)
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            r = await http.post(
                "/api/tables",
                json={"practice": False, "stake": TOP, "seat": 0},
                headers={"Authorization": f"Bearer {p['token']}"},
            )
            assert r.status_code == 409 and r.json()["code"] == "too_few_chips", r.text
            for body, code in (
                ({"practice": False, "stake": 5}, "bad_stake"),
                ({"practice": False, "stake": "100"}, "bad_stake"),
                ({"practice": True, "stake": 100}, "bad_stake"),
            ):
                r = await http.post(
                    "/api/tables", json=body, headers={"Authorization": f"Bearer {p['token']}"}
                )
                assert r.status_code == 400 and r.json()["code"] == code, (body, r.text)
            r = await http.get("/api/chips")
            assert r.status_code == 401 and r.json()["code"] == "unauthenticated"
            r = await http.get(
                "/api/chips/history?limit=0", headers={"Authorization": f"Bearer {p['token']}"}
            )
            assert r.status_code == 400 and r.json()["code"] == "bad_limit"
        tid, _ = await chip_table(base, TOP)
        c = TableClient(base, p["token"], tid)
        await c.connect()
        reply = await c.command({"type": "sit", "seat": 1})
        assert reply["type"] == "error" and reply["code"] == "too_few_chips", reply
        assert "20000" in reply["message"]
        assert await chips_of(base, p["token"]) == mine
        info = await get_json(base, f"/api/tables/{tid}")
        assert [s["kind"] for s in info["seats"]] == ["empty"] * 4
        await c.close()
        # The queue of a stake he cannot cover refuses him too; a stake that is none, also.
        q = await ClubSocket(base).open()
        await q.send({"type": "queue", "token": p["token"], "variant": "havana", "stake": TOP})
        refused = await q.wait(lambda m: m["type"] == "error")
        assert refused["code"] == "too_few_chips", refused
        await q.send({"type": "queue", "token": p["token"], "variant": "havana", "stake": 7})
        await q.wait(lambda m: m["type"] == "error" and m["code"] == "bad_stake")
        # All his chips are at stake (no top-up for him): not even the smallest stake is his.
        await q.send({"type": "queue", "token": p["token"], "variant": "havana", "stake": 100})
        small = await q.wait(lambda m: m["type"] == "error" and "needs 200 " in m["message"])
        assert small["code"] == "too_few_chips", small
        await q.send({"type": "queue", "token": p["token"], "variant": "havana"})
        queued = await q.wait(lambda m: m["type"] == "queued")
        assert (queued["variant"], queued["stake"]) == ("havana", None)
        await q.ws.close()
        assert p["token"] not in json.dumps(q.messages)
        assert t1["table"]

    asyncio.run(go())


def test_the_daily_top_up_counts_the_chips_in_escrow(server: Any) -> None:
    """A person whose chips are all at stake is not poor: looking at his balance then must not
    top it up, or standing up would leave him with the grant and the top-up both."""
    base = server.base

    async def go() -> None:
        p = await new_guest(base, "rico")
        assert (await chips_of(base, p["token"]))["balance"] == chips.OPENING_GRANT
        tid, _ = await chip_table(base, TOP)
        c = TableClient(base, p["token"], tid)
        await c.connect()
        await c.do({"type": "sit", "seat": 0})
        seated = await chips_of(base, p["token"])
        assert (seated["balance"], seated["in_escrow"]) == (0, chips.OPENING_GRANT), seated
        await c.do({"type": "leave"})
        after = await chips_of(base, p["token"])
        assert (after["balance"], after["in_escrow"]) == (chips.OPENING_GRANT, 0), after
        history = await chips_of(base, p["token"], "/api/chips/history?limit=10")
        assert [m["kind"] for m in history["movements"]] == ["release", "escrow", "grant"]
        await c.close()

    asyncio.run(go())
    assert ledger_check(server.url).returncode == 0


async def race(bases: list[str]) -> None:
    """Two tables (on ``bases[0]`` and ``bases[-1]``), one person with chips for one seat,
    two sit-downs sent at the same moment: exactly one is taken."""
    p = await new_guest(bases[0], "doble")
    t1, _ = await chip_table(bases[0], TOP)
    t2, _ = await chip_table(bases[-1], TOP)
    a, b = TableClient(bases[0], p["token"], t1), TableClient(bases[-1], p["token"], t2)
    await asyncio.gather(a.connect(), b.connect())
    replies = await asyncio.gather(
        a.command({"type": "sit", "seat": 0}), b.command({"type": "sit", "seat": 0})
    )
    kinds = sorted(r["type"] if r["type"] == "ack" else r["code"] for r in replies)
    assert kinds == ["ack", "too_few_chips"], replies
    mine = await chips_of(bases[0], p["token"])
    assert mine["in_escrow"] == 2 * TOP and mine["balance"] == 0
    infos = [await get_json(bases[0], f"/api/tables/{t}") for t in (t1, t2)]
    assert sorted(i["seats"][0]["kind"] for i in infos) == ["empty", "person"]
    await a.close()
    await b.close()


@pytest.mark.slow
def test_two_sit_downs_at_once_with_chips_for_one_on_one_node(server: Any) -> None:
    for _ in range(3):
        asyncio.run(race([server.base]))
    assert ledger_check(server.url).returncode == 0


@pytest.mark.slow
def test_two_sit_downs_at_once_with_chips_for_one_on_two_nodes(cluster_factory: Any) -> None:
    cluster = cluster_factory(2)
    for _ in range(3):
        asyncio.run(race(cluster.bases))
    check = ledger_check(cluster.nodes[0].url)
    assert check.returncode == 0, check.stdout


@pytest.mark.slow
@pytest.mark.parametrize("point", CRASH_POINTS)
def test_a_kill_at_each_step_settles_the_game_exactly_once(
    server_factory: Any, tmp_path: Any, point: str
) -> None:
    """``kill -9`` (the server kills itself at ``point``), a restart on the same database: the
    person's chips come back or the game goes on, and it settles once."""
    db = tmp_path / f"{point}.db"
    sp = server_factory(db=db, env={"TRANQUE_CRASH_AT": point})
    base = sp.base

    proc = sp.proc
    assert proc is not None

    async def until_killed() -> tuple[dict[str, Any], str, str]:
        p = await new_guest(base, "kill")
        tid, host = await chip_table(base, 100)
        c = TableClient(base, p["token"], tid)
        await c.connect()

        async def play() -> None:
            await c.do({"type": "sit", "seat": 0})
            await bots_in(base, host, tid, [1, 2, 3])
            await c.play_game(random_legal, timeout=600)

        game = asyncio.ensure_future(play())
        death = asyncio.ensure_future(asyncio.to_thread(proc.wait, 600))
        # The server dies at the point, during the game or right after its end.
        await asyncio.wait({game, death}, return_when=asyncio.FIRST_COMPLETED)
        await death
        game.cancel()
        with contextlib.suppress(BaseException):
            await game
        await c.drop()
        return p, tid, host

    p, tid, host = asyncio.run(until_killed())
    assert proc.returncode == -9, sp.errors()[-2000:]
    proc.communicate(timeout=10)
    sp.proc = None
    sp.env = {}
    base = sp.start()

    async def after_restart() -> dict[str, Any]:
        info = await get_json(base, f"/api/tables/{tid}")
        if not info["over"]:
            c = TableClient(base, p["token"], tid)
            await c.connect()
            if info["seats"][0]["kind"] == "empty":  # the sit-down never reached the log
                mine = await chips_of(base, p["token"])
                assert (mine["balance"], mine["in_escrow"]) == (chips.OPENING_GRANT, 0)
                await c.do({"type": "sit", "seat": 0})
            empty = [s for s in (1, 2, 3) if info["seats"][s]["kind"] == "empty"]
            await bots_in(base, host, tid, empty)
            await c.play_game(random_legal, timeout=600)
            await c.close()
        return dict(await get_json(base, f"/api/tables/{tid}"))

    info = asyncio.run(after_restart())
    result = info["result"]
    delta = chips.deltas(100, "AB".index(result["winner"]), result["pollona"])[0]
    mine = asyncio.run(chips_of(base, p["token"]))
    assert (mine["balance"], mine["in_escrow"]) == (chips.OPENING_GRANT + delta, 0)
    check = ledger_check(sp.url)
    assert check.returncode == 0, check.stdout
    assert "chip games settled: 1" in check.stdout and "open escrows: 0" in check.stdout


@pytest.mark.slow
def test_a_queued_person_whose_chips_ran_out_leaves_the_queue_and_the_other_waits_on(
    server_factory: Any,
) -> None:
    """Pepa queues for a 10,000 table, then spends her chips at another table before the queue
    seats her: the match cannot escrow her seat, so she is told, and Quique (who can pay) is
    put back in the queue and seated with bots."""
    server = server_factory("--fill-time", "3")
    base = server.base

    async def go() -> None:
        pepa, quique = await new_guest(base, "pepa"), await new_guest(base, "quique")
        sockets = []
        for g in (pepa, quique):
            s = await ClubSocket(base).open()
            await s.send({"type": "queue", "token": g["token"], "variant": "oriente", "stake": TOP})
            await s.wait(lambda m: m["type"] == "queued")
            sockets.append(s)
        elsewhere, _ = await chip_table(base, TOP)
        c = TableClient(base, pepa["token"], elsewhere)
        await c.connect()
        await c.do({"type": "sit", "seat": 0})  # her 20,000 go into that table's escrow
        out = await sockets[0].wait(lambda m: m["type"] in ("unqueued", "matched"))
        assert out == {"type": "unqueued", "reason": "too_few_chips"}, out
        matched = await sockets[1].wait(lambda m: m["type"] == "matched")
        info = await get_json(base, f"/api/tables/{matched['table']}")
        assert [s["kind"] for s in info["seats"]].count("bot") == 3, info["seats"]
        assert info["chips"]["stake"] == TOP
        mine = await chips_of(base, quique["token"])
        assert mine["in_escrow"] == 2 * TOP
        await c.close()
        for s in sockets:
            await s.ws.close()

    asyncio.run(go())
    assert ledger_check(server.url).returncode == 0
