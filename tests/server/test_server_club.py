"""The club through a real server and real sockets: the quick-match queue, the lobby, phrases,
the spectators' list. Every club frame is scanned for secrets (tokens, other guests' ids, seeds,
tiles)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from club_client import ClubSocket, assert_nothing_secret, of
from frame_scanner import scan, scan_all

from tranque.client import TableClient, create_table, get_json, new_guest


async def _queue(
    base: str, nick: str, party: str | None = None
) -> tuple[dict[str, Any], ClubSocket]:
    g = await new_guest(base, nick)
    sock = await ClubSocket(base).open()
    await sock.send({"type": "queue", "token": g["token"], "variant": "havana", "party": party})
    await sock.wait(of("queued"))
    return g, sock


async def _seated(socks: list[ClubSocket]) -> list[dict[str, Any]]:
    return [await s.wait(of("matched"), timeout=30) for s in socks]


async def _closing(test: Any) -> None:
    try:
        await test
    finally:
        await ClubSocket.close_all()


def _secrets(guests: list[dict[str, Any]]) -> list[str]:
    return [g["token"] for g in guests] + [g["guest"] for g in guests]


def test_three_people_are_seated_together_within_the_fill_time_and_a_bot_takes_the_fourth(
    server_factory: Any,
) -> None:
    base = server_factory("--fill-time", "1").base

    async def go() -> None:
        queued = [await _queue(base, n) for n in ("ana", "bea", "cai")]
        guests, socks = [g for g, _ in queued], [s for _, s in queued]
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        matched = await _seated(socks)
        assert loop.time() - t0 < 10
        assert len({m["table"] for m in matched}) == 1
        assert sorted(m["seat"] for m in matched) == sorted({m["seat"] for m in matched})
        table = matched[0]["table"]
        # Each one says hello on the same socket, in the seat he was given.
        clients = []
        for g, m in zip(guests, matched, strict=True):
            c = TableClient(base, g["token"], table)
            await c.connect()
            assert c.state["seat"] == m["seat"]
            clients.append(c)
        seats = clients[0].table_info["seats"]
        bots = [s for s in seats if s["kind"] == "bot"]
        assert len(bots) == 1 and bots[0]["bot"] == "heuristic"  # level normal, marked
        assert sorted(s["nickname"] for s in seats if s["kind"] == "person") == [
            "ana",
            "bea",
            "cai",
        ]
        await clients[0].wait_for(lambda c: c.state.get("phase") in ("choose", "play", "redeal"))
        for s in socks:
            assert assert_nothing_secret(s.frames, _secrets(guests)) >= 2
        for c in clients:
            await c.close()

    asyncio.run(_closing(go()))


def test_two_friends_in_a_party_are_partners_and_four_people_start_at_once(
    server_factory: Any,
) -> None:
    base = server_factory("--fill-time", "600").base  # no bot would come: four people do

    async def go() -> None:
        host = await new_guest(base, "ana")
        party = httpx.post(
            base + "/api/parties", headers={"Authorization": f"Bearer {host['token']}"}
        ).json()
        # The link names who made it, for the friend's page (issue 29, bug 15).
        assert party["link"].endswith(f"?party={party['party']}&by=ana"), party
        assert party["by"] == "ana"
        ana = await _queue(base, "ana", party["party"])
        solo1 = await _queue(base, "dan")
        solo2 = await _queue(base, "eva")
        bea = await _queue(base, "bea", party["party"])
        # The friend is told, from the ticket waiting, who invited him; the first had nobody.
        queued = [m for m in bea[1].messages if m["type"] == "queued"]
        assert queued[-1]["partner"] == "ana", queued
        assert [m["partner"] for m in ana[1].messages if m["type"] == "queued"] == [None]
        matched = await _seated([ana[1], solo1[1], solo2[1], bea[1]])
        assert len({m["table"] for m in matched}) == 1
        a, d, e, b = (m["seat"] for m in matched)
        assert a % 2 == b % 2 and a != b  # partners: 0 and 2, or 1 and 3
        assert d % 2 == e % 2 and d != e
        # A third person with the party's link is refused while two wait with it.
        g = await new_guest(base, "x")
        one, two = (
            await _queue(base, "p1", "party-of-two-1"),
            await _queue(base, "p2", "party-of-two-1"),
        )
        s = await ClubSocket(base).open()
        await s.send({"type": "queue", "token": g["token"], "party": "party-of-two-1"})
        refused = await s.wait(of("error"))
        assert refused["code"] == "party_full"
        # Leaving is one tap.
        await one[1].send({"type": "unqueue"})
        assert (await one[1].wait(of("unqueued")))["reason"] == "left"
        await s.send({"type": "queue", "token": g["token"], "party": "party-of-two-1"})
        await s.wait(of("queued"))
        del two

    asyncio.run(_closing(go()))


def test_the_lobby_lists_a_public_table_and_updates_when_it_fills(server_factory: Any) -> None:
    base = server_factory().base

    async def go() -> None:
        watcher = await ClubSocket(base).open()
        await watcher.send({"type": "lobby"})
        await watcher.wait(of("lobby"))
        people = [await new_guest(base, n) for n in ("ana", "bea", "cai", "dan")]
        private = await create_table(base, people[0]["token"], practice=False, seat=0)
        public = await create_table(
            base, people[0]["token"], practice=False, seat=0, public=True, move_clock=20
        )
        tid = public["table"]

        def line(tables: list[dict[str, Any]], **want: Any) -> bool:
            rows = [t for t in tables if t["table"] == tid]
            return bool(rows) and all(rows[0][k] == v for k, v in want.items())

        first = await watcher.wait_listing(lambda ts: line(ts, free=3))
        row = next(t for t in first if t["table"] == tid)
        assert row["status"] == "waiting" and row["variant"] == "havana"
        assert row["move_clock"] == 20 and row["seats"][0]["nickname"] == "ana"
        assert all(t["table"] != private["table"] for t in first)
        clients = []
        for s, g in enumerate(people):
            c = TableClient(base, g["token"], tid)
            await c.connect()
            if s:
                await c.do({"type": "sit", "seat": s})
            clients.append(c)
        full = await watcher.wait_listing(lambda ts: line(ts, free=0, status="playing"))
        assert [s["nickname"] for s in next(t for t in full if t["table"] == tid)["seats"]] == [
            "ana",
            "bea",
            "cai",
            "dan",
        ]
        # Past the first listing, only changes come: the line that changed, never the whole.
        changes = [m for m in watcher.messages[1:] if m["type"].startswith("lobby")]
        assert changes and all(m["type"] == "lobby_changes" for m in changes)
        # A spectator shows in the lobby's count and in the table's list.
        spy_guest = await new_guest(base, "spy")
        spy = TableClient(base, spy_guest["token"], tid, role="spectator")
        await spy.connect()
        await watcher.wait_listing(lambda ts: line(ts, spectators=1))
        said = await clients[1].wait_for(
            lambda c: any('"spectators"' in f and "spy" in f for f in c.frames)
        )
        del said
        listing = httpx.get(base + "/api/lobby").json()
        assert [t["table"] for t in listing["tables"]] == [tid]
        assert assert_nothing_secret(watcher.frames, _secrets([*people, spy_guest])) >= 3
        for c in [*clients, spy]:
            await c.close()

    asyncio.run(_closing(go()))


def test_the_lobby_marks_who_has_gone_and_drops_a_table_they_all_left(
    server_factory: Any,
) -> None:
    """Issue 29, bug 3: a table everyone but one had left was listed "1 libre", and a newcomer
    who sat waited for the absent. The lobby marks each person gone (his pages closed before
    the start, or away in the game), never offers an away person's seat, and lists no table
    whose people have all gone."""
    base = server_factory().base

    async def go() -> None:
        watcher = await ClubSocket(base).open()
        await watcher.send({"type": "lobby"})
        await watcher.wait(of("lobby"))
        ana, bea, cai = [await new_guest(base, n) for n in ("ana", "bea", "cai")]
        waiting = await create_table(base, ana["token"], practice=False, seat=0, public=True)
        tid = waiting["table"]

        def row(tables: list[dict[str, Any]], table: str) -> dict[str, Any] | None:
            return next((t for t in tables if t["table"] == table), None)

        def away(tables: list[dict[str, Any]], table: str) -> list[bool] | None:
            r = row(tables, table)
            return None if r is None else [s["away"] for s in r["seats"]]

        a = TableClient(base, ana["token"], tid)
        await a.connect()
        b = TableClient(base, bea["token"], tid)
        await b.connect()
        await b.do({"type": "sit", "seat": 1})
        await watcher.wait_listing(lambda ts: away(ts, tid) == [False, False, False, False])
        await b.close()  # Bea closes her page: she is still seated, but gone
        got = await watcher.wait_listing(lambda ts: away(ts, tid) == [False, True, False, False])
        line = row(got, tid)
        assert line is not None and line["free"] == 2 and line["status"] == "waiting"
        b = TableClient(base, bea["token"], tid)
        await b.connect()  # back: marked here again
        await watcher.wait_listing(lambda ts: away(ts, tid) == [False, False, False, False])
        await b.close()
        await a.close()  # both gone: the table is not offered to anyone
        await watcher.wait_listing(lambda ts: row(ts, tid) is None)
        assert all(t["table"] != tid for t in httpx.get(base + "/api/lobby").json()["tables"])

        # A game under way: Cai goes away; his seat is marked, never free, and nobody is
        # offered it (a table being played offers no seat).
        playing = await create_table(base, ana["token"], practice=False, seat=0, public=True)
        pid = playing["table"]
        a = TableClient(base, ana["token"], pid)
        await a.connect()
        c = TableClient(base, cai["token"], pid)
        await c.connect()
        await c.do({"type": "sit", "seat": 2})
        for seat in (1, 3):
            await a.do({"type": "add_bot", "seat": seat})
        await watcher.wait_listing(lambda ts: (row(ts, pid) or {}).get("status") == "playing")
        await c.do({"type": "leave"})
        got = await watcher.wait_listing(lambda ts: away(ts, pid) == [False, False, True, False])
        line = row(got, pid)
        assert line is not None and line["free"] == 0 and line["status"] == "playing"
        await a.close()  # every person of it gone: out of the lobby
        await watcher.wait_listing(lambda ts: row(ts, pid) is None)
        await c.close()

    asyncio.run(_closing(go()))


def test_phrases_before_the_game_and_never_during_a_hand(server_factory: Any) -> None:
    base = server_factory("--fill-time", "0").base

    async def go() -> None:
        host = await new_guest(base, "ana")
        t = await create_table(base, host["token"], practice=False, seat=0)
        c = TableClient(base, host["token"], t["table"])
        await c.connect()
        ok = await c.command({"type": "say", "phrase": "suerte"})
        assert ok["type"] == "ack"
        said = [f for f in c.frames if '"said"' in f]
        assert said and '"phrase":"suerte"' in said[0] and '"seat":0' in said[0]
        again = await c.command({"type": "say", "phrase": "buena"})
        assert again["type"] == "error" and again["code"] == "rate_limited"
        bad = await c.command({"type": "say", "phrase": "hola, pareja: tengo el 99"})
        assert bad["type"] == "error" and bad["code"] == "malformed"  # no free text
        for s in (1, 2, 3):
            assert (await c.do({"type": "add_bot", "seat": s}))["type"] == "ack"
        await c.wait_for(lambda c: c.state.get("phase") in ("redeal", "choose", "play"))
        during = await c.command({"type": "say", "phrase": "gracias"})
        assert during["type"] == "error" and during["code"] == "phrase_during_hand"
        await c.close()

    asyncio.run(_closing(go()))


@pytest.mark.parametrize("variant", ["cuba", 3])
def test_a_bad_queue_request_gets_a_typed_error(server: Any, variant: Any) -> None:
    async def go() -> None:
        g = await new_guest(server.base, "ana")
        s = await ClubSocket(server.base).open()
        await s.send({"type": "queue", "token": g["token"], "variant": variant})
        assert (await s.wait(of("error")))["code"] == "malformed"
        await s.send({"type": "queue", "token": "nope", "variant": "havana"})
        assert (await s.wait(of("error", code="bad_token")))["code"] == "bad_token"
        await s.send({"type": "queue", "token": g["token"], "party": "x"})
        assert (await s.wait(of("error", code="bad_party")))["code"] == "bad_party"
        await s.close()

    asyncio.run(_closing(go()))


def test_the_queue_seats_by_each_persons_rating_under_its_variant(server: Any) -> None:
    """A rated guest queues at its rating (the one of the queue's variant), a new one at the
    neutral 1500."""
    import sqlite3
    import time

    async def go() -> None:
        rated, fresh = await new_guest(server.base, "ana"), await new_guest(server.base, "bea")
        con = sqlite3.connect(server.db)
        with con:
            con.executemany(
                "INSERT INTO ratings (guest, preset, mu, sigma, games, updated)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                [(rated["guest"], "havana", 1732.4, 180.0, 12, time.time()),
                 (rated["guest"], "miami", 1210.0, 200.0, 12, time.time())],
            )  # fmt: skip
        con.close()
        socks = [await ClubSocket(server.base).open() for _ in range(2)]
        for s, g in zip(socks, (rated, fresh), strict=True):
            await s.send({"type": "queue", "token": g["token"], "variant": "havana"})
        assert (await socks[0].wait(of("queued")))["rating"] == 1732
        assert (await socks[1].wait(of("queued")))["rating"] == 1500
        for s in socks:
            await s.close()

    asyncio.run(_closing(go()))


def test_a_rematch_of_four_people_keeps_the_seats_and_partners_may_swap(
    server_factory: Any,
) -> None:
    from test_server_e2e import seat_four

    base = server_factory().base

    async def go() -> None:
        tid, clients = await seat_four(base, {"preset": "oriente", "target": 1})
        early = await clients[0].command({"type": "rematch", "accept": True})
        assert early["type"] == "error" and early["code"] == "not_over"
        await asyncio.gather(*(c.play_game(seed=s) for s, c in enumerate(clients)))
        names = ["pa", "pb", "pc", "pd"]  # seat_four's, seats 0 to 3
        # After the game: a phrase, and a spectator in everyone's list.
        assert (await clients[0].command({"type": "say", "phrase": "bien_jugado"}))["type"] == "ack"
        spy = await new_guest(base, "spy")
        watcher = TableClient(base, spy["token"], tid, role="spectator")
        await watcher.connect()
        await clients[3].wait_for(lambda c: any('"names":["spy"]' in f for f in c.frames))
        # Seats 1 and 3 both ask to swap; everyone accepts, one after the other.
        for s, c in enumerate(clients):
            reply = await c.command({"type": "rematch", "accept": True, "swap": s in (1, 3)})
            assert reply["type"] == "ack", reply
        offers = [json.loads(f) for f in clients[2].frames if f.startswith('{"type":"rematch"')]
        assert [o["answers"] for o in offers][:2] == [
            ["yes", None, None, None],
            ["yes", "yes", None, None],
        ]
        new = offers[-1]["table"]
        assert new and new != tid and offers[-1]["answers"] == ["yes"] * 4
        again = []
        for c in clients:
            n = TableClient(base, c.token, new)
            await n.connect()
            again.append(n)
        seats = [s["nickname"] for s in again[0].table_info["seats"]]
        assert seats == [names[0], names[3], names[2], names[1]]  # 0 and 2 kept, 1 and 3 swapped
        assert [n.state["seat"] for n in again] == [0, 3, 2, 1]
        await again[0].wait_for(lambda c: c.state.get("phase") in ("redeal", "choose", "play"))
        assert again[0].state["scores"] == [0, 0] and again[0].state["match"]["game"] == 1
        # Every frame of the finished table, the club's included, against its true deals.
        record = await get_json(base, f"/api/tables/{tid}/record")
        scan_all(clients, record, at_least=1)
        assert scan(watcher.frames, None, record).frames >= 1
        for frames in (c.frames for c in clients):
            assert any('"type":"rematch"' in f for f in frames)
            assert any('"type":"said"' in f for f in frames)
            assert any('"type":"spectators"' in f for f in frames)
            assert not any(g in f for f in frames for g in (spy["token"], spy["guest"]))
        for c in [*clients, *again, watcher]:
            await c.close()

    asyncio.run(_closing(go()))


def test_a_decliner_frees_the_seat_at_the_rematch(server_factory: Any) -> None:
    from test_server_e2e import seat_four

    base = server_factory().base

    async def go() -> None:
        _, clients = await seat_four(base, {"preset": "oriente", "target": 1})
        await asyncio.gather(*(c.play_game(seed=s) for s, c in enumerate(clients)))
        for s, c in enumerate(clients):
            await c.do({"type": "rematch", "accept": s != 2})
        offer = json.loads([f for f in clients[0].frames if f.startswith('{"type":"rematch"')][-1])
        assert offer["answers"] == ["yes", "yes", "no", "yes"] and offer["table"]
        info = await get_json(base, f"/api/tables/{offer['table']}")
        assert [s["kind"] for s in info["seats"]] == ["person", "person", "empty", "person"]
        assert info["started"] is False
        for c in clients:
            await c.close()

    asyncio.run(_closing(go()))
