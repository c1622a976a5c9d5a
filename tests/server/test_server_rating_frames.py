"""The club's words at the table, pushed over the socket: each seat's rating (``ratings``, in
the sync and again whenever the seating changes, and on the seats of the lobby's line) and, once
the record is saved, each person's change (``rating``). Through a real server; the frames go
through the frame scanner and carry no token and no guest id."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from club_client import ClubSocket, assert_nothing_secret, of
from frame_scanner import scan, scan_all
from test_server_e2e import GUARDED, seat_four

from tranque.client import TableClient, create_table, get_json, new_guest, random_legal
from tranque.club.ratings import Skill, rate


def frames_of(c: Any, kind: str) -> list[dict[str, Any]]:
    return [m for m in (json.loads(f) for f in c.frames) if m.get("type") == kind]


def last_seat_ratings(c: Any) -> list[Any] | None:
    """The seats' ratings a client was last told: the latest ``ratings`` frame, else its sync's."""
    told = frames_of(c, "ratings")
    if told:
        return list(told[-1]["seats"])
    sync = c.last_sync or {}
    r = sync.get("ratings")
    return None if r is None else list(r["seats"])


# Before anyone has begun a table his completion rate is null (docs/club.md).
NEW = {"rating": 1500, "provisional": True, "games": 0, "completion": None}


def test_each_person_is_told_the_change_and_the_rematch_seats_show_the_new_ratings(
    server: Any,
) -> None:
    base = server.base

    async def go() -> None:
        tid, clients = await seat_four(base, "havana", names="klmn", public=True)
        tokens = [c.token for c in clients]
        for c in clients:  # every person's rating, on every seat, before the first hand
            await c.wait_for(lambda c: last_seat_ratings(c) == [NEW] * 4)
        watcher_guest = await new_guest(base, "mira")
        watcher = TableClient(base, watcher_guest["token"], tid, role="spectator")
        await watcher.connect()
        # Guests all: no seat's name links to a profile.
        assert watcher.last_sync["ratings"] == {
            "preset": "havana",
            "seats": [NEW] * 4,
            "profiles": [None] * 4,
        }
        await asyncio.gather(*(c.play_game(random_legal, timeout=900) for c in clients))
        for c in [*clients, watcher]:
            await c.wait_for(lambda c: bool(frames_of(c, "rating")), 30)
        told = frames_of(clients[0], "rating")
        assert len(told) == 1  # once, when the record was saved
        rated = told[0]
        assert all(frames_of(c, "rating") == told for c in [*clients, watcher])
        info = await get_json(base, f"/api/tables/{tid}")
        winner = "AB".index(info["result"]["winner"])
        expected = rate([Skill()] * 4, winner, info["result"]["pollona"])
        assert rated["preset"] == "havana" and rated["rated"] is True
        assert [s["seat"] for s in rated["seats"]] == [0, 1, 2, 3]
        players = await get_json(base, f"/api/tables/{tid}/players")
        for s, change in enumerate(rated["seats"]):
            assert change["before"] == 1500 and change["after"] == round(expected[s].mu)
            assert change["change"] == change["after"] - 1500
            assert (change["change"] > 0) == (s % 2 == winner)
            assert change["provisional"] and change["games"] == 1
            # The same change the players' route gives (what a late page asks for).
            assert players["seats"][s]["change"]["after"] == change["after"]
        # A socket that comes after the end gets it in its sync.
        late = TableClient(base, watcher_guest["token"], tid, role="spectator")
        await late.connect()
        assert {"type": "rating", **late.last_sync["rating"]} == rated
        await late.close()
        record = await get_json(base, f"/api/tables/{tid}/record")
        scan_all(clients, record, at_least=GUARDED)
        scan(watcher.frames, None, record).at_least(GUARDED)
        secrets = [*tokens, watcher_guest["token"], watcher_guest["guest"]]
        secrets += [p["profile"][1:] for p in players["seats"]]  # "~" and the guest's id
        club_frames = [f for c in [*clients, watcher] for f in c.frames if '"type":"rating' in f]
        assert len(club_frames) >= 8
        assert_nothing_secret(club_frames, secrets)
        # The rematch: the same four at a new table, whose seats show the ratings just won.
        for c in clients:
            await c.do({"type": "rematch", "accept": True})
        await clients[0].wait_for(
            lambda c: any(m.get("table") for m in frames_of(c, "rematch")), 30
        )
        new = next(m["table"] for m in frames_of(clients[0], "rematch") if m.get("table"))
        again = TableClient(base, tokens[0], new)
        await again.connect()
        want = [
            {"rating": s["after"], "provisional": True, "games": 1, "completion": 1.0}
            for s in rated["seats"]
        ]
        await again.wait_for(lambda c: last_seat_ratings(c) == want, 30)
        lobby = await get_json(base, "/api/lobby")
        line = next(t for t in lobby["tables"] if t["table"] == new)
        assert [s["rating"] for s in line["seats"]] == want
        await again.close()
        for c in [*clients, watcher]:
            await c.close()

    asyncio.run(go())


def test_a_table_with_bots_shows_no_bot_rating_and_is_told_it_was_not_rated(server: Any) -> None:
    base = server.base

    async def go() -> None:
        g = await new_guest(base, "sola")
        t = await create_table(base, g["token"], rules="oriente", practice=True)
        c = TableClient(base, g["token"], t["table"])
        await c.connect()
        await c.wait_for(lambda c: last_seat_ratings(c) == [NEW, None, None, None])
        await c.play_game(random_legal, timeout=300)
        await c.wait_for(lambda c: bool(frames_of(c, "rating")), 30)
        assert frames_of(c, "rating") == [
            {"type": "rating", "preset": "oriente", "rated": False, "seats": []}
        ]
        await c.close()

    asyncio.run(go())


def test_custom_rules_have_no_ratings(server: Any) -> None:
    base = server.base

    async def go() -> None:
        g = await new_guest(base, "otra")
        rules = {"preset": "havana", "target": 50}
        t = await create_table(base, g["token"], rules=rules, practice=False)
        c = TableClient(base, g["token"], t["table"])
        await c.connect()
        await c.wait_for(lambda c: last_seat_ratings(c) == [None] * 4)
        told = [*frames_of(c, "ratings"), c.last_sync.get("ratings") or {}]
        assert told[0] == {"preset": None, "seats": [None] * 4, "profiles": [None] * 4} | (
            {"type": "ratings"} if "type" in told[0] else {}
        )
        await c.close()

    asyncio.run(go())


def test_the_lobby_shows_each_persons_rating_as_the_seats_fill(server: Any) -> None:
    base = server.base

    async def go() -> None:
        try:
            lobby = await ClubSocket(base).open()
            await lobby.send({"type": "lobby"})
            host = await new_guest(base, "ana")
            t = await create_table(base, host["token"], practice=False, seat=0, public=True)
            tid = t["table"]

            def seats(tables: list[dict[str, Any]]) -> list[Any] | None:
                line = [x for x in tables if x["table"] == tid]
                return [s["rating"] for s in line[0]["seats"]] if line else None

            await lobby.wait_listing(lambda ts: seats(ts) == [NEW] + [None] * 3)
            bea = await new_guest(base, "bea")
            c = TableClient(base, bea["token"], tid)
            await c.connect()
            await c.do({"type": "sit", "seat": 2})
            await lobby.wait_listing(lambda ts: seats(ts) == [NEW, None, NEW, None])
            secrets = [host["token"], bea["token"], host["guest"], bea["guest"]]
            assert assert_nothing_secret(lobby.frames, secrets) >= 3
            assert of("lobby")(lobby.messages[0])
            await c.close()
        finally:
            await ClubSocket.close_all()

    asyncio.run(go())
