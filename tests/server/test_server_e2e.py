"""End to end: real server processes, real sockets, four clients per table."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from typing import Any

import httpx
import pytest
from frame_scanner import record_hands, scan, scan_all
from tests.conftest import Cluster

from tranque.client import TableClient, create_table, get_json, new_guest, random_legal
from tranque.rules.record import GUEST_PREFIX


def assert_verifies(record: dict[str, Any]) -> None:
    """`tranque verify` on the published record, as a stranger would run it: every check ok."""
    out = subprocess.run(
        [sys.executable, "-m", "tranque.cli", "verify", "-", "--json"],
        input=json.dumps(record),
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stdout + out.stderr


async def handles_of(base: str, clients: list[TableClient]) -> list[str]:
    """The stored record's ``players`` for a table of these guests, seat by seat: each one's
    profile handle (docs/records.md), read from the server by the guest's own token. Two runs
    of the same game seat different guests, so a record is compared with another without them,
    and its ``players`` with this."""
    handles = []
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        for c in clients:
            r = await http.post("/api/guests/renew", headers={"Authorization": f"Bearer {c.token}"})
            r.raise_for_status()
            handles.append(GUEST_PREFIX + r.json()["guest"])
    return handles


@pytest.fixture(params=["one node", "two nodes"])
def deployment(request: Any, server_factory: Any) -> Cluster:
    """The same games on one node (SQLite) and on two nodes (PostgreSQL + Redis), with each
    table's clients spread over both nodes (the table made through the first)."""
    if request.param == "one node":
        return Cluster([server_factory()])
    return request.getfixturevalue("cluster_factory")(2)  # type: ignore[no-any-return]


async def seat_four(
    base: str,
    rules: Any,
    *,
    seed_secret: bytes | None = None,
    names: str = "abcd",
    bases: list[str] | None = None,
    **opts: Any,
) -> tuple[str, list[TableClient]]:
    """A table of people: the host sits at 0, three more join by the link and sit; with
    ``bases`` (a cluster's nodes), seat ``s`` connects through ``bases[s % len(bases)]``."""
    spread = bases or [base]
    guests = [await new_guest(spread[s % len(spread)], f"p{n}") for s, n in enumerate(names)]
    table = await create_table(base, guests[0]["token"], rules=rules, practice=False, **opts)
    tid = table["table"]
    clients = []
    for s, g in enumerate(guests):
        c = TableClient(
            spread[s % len(spread)],
            g["token"],
            tid,
            seed_secret=None if seed_secret is None else seed_secret + bytes([s]),
        )
        await c.connect()
        if s:
            reply = await c.do({"type": "sit", "seat": s})
            assert reply["type"] == "ack"
        clients.append(c)
    return tid, clients


async def play_all(
    clients: list[TableClient], seed: int | None = None, timeout: float = 300
) -> None:
    await asyncio.gather(
        *(
            c.play_game(random_legal, seed=None if seed is None else seed + i, timeout=timeout)
            for i, c in enumerate(clients)
        )
    )


# Frames with tiles each scan must have checked against a known deal (while another hand was
# still hidden): every game is a hand or more, and the shortest hand, a double-six pegarse, is
# seven plays or more, each a frame to every seat and the spectators.
GUARDED = 7

VARIANTS = {
    "havana": {"preset": "havana", "target": 30},
    "miami": {"preset": "miami", "target": 30},
    "oriente": "oriente",
    "barrio": {"preset": "barrio", "target": 30},
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_four_people_play_every_variant_to_the_end(deployment: Cluster, variant: str) -> None:
    async def go() -> None:
        base = deployment.base
        tid, clients = await seat_four(base, VARIANTS[variant], bases=deployment.bases)
        # The spectator watches through the last node (on two nodes, not the table's).
        last = deployment.bases[-1]
        watcher_guest = await new_guest(last, "watcher")
        watcher = TableClient(last, watcher_guest["token"], tid, role="spectator")
        await watcher.connect()
        await play_all(clients)
        await watcher.wait_for(lambda c: c.game_over, 30)
        record = await get_json(base, f"/api/tables/{tid}/record")
        hands = record_hands(record)
        assert hands, record
        assert record["format"] == ("tranque-match/1" if variant == "miami" else "tranque-game/1")
        # The record verifies, and every person's seed went into every deal.
        assert_verifies(record)
        for h in hands:
            assert h["fairness"]["seat_status"] == ["revealed"] * 4
        # Nobody ever received a tile he may not see, spectators included.
        scan_all(clients, record, at_least=GUARDED)
        scan(watcher.frames, None, record).at_least(GUARDED)
        # The spectator's last view is the public view of the final position.
        assert "tiles" not in watcher.state
        history = await get_json(last, f"/api/tables/{tid}/history")
        assert history[-1]["seq"] == clients[0].seq
        # Every recipient got every event, in order, with the same numbers: one log, one view.
        for c in [*clients, watcher]:
            seqs = [json.loads(f)["seq"] for f in c.frames if f.startswith('{"type":"event"')]
            assert seqs == list(range(seqs[0], seqs[-1] + 1)) and seqs[-1] == history[-1]["seq"]
        for c in [*clients, watcher]:
            assert not [e for e in c.errors if e["code"] not in ("stale",)], c.errors
            await c.close()

    asyncio.run(go())


@pytest.mark.slow
def test_four_people_play_a_miami_match_across_games(server_factory: Any) -> None:
    """Best of three: the table starts game after game until a pair has two wins."""
    server = server_factory("--test-seed", "6d69616d69")

    async def go() -> None:
        base = server.base
        for attempt in range(8):
            rules = {"preset": "miami", "target": 40}
            tid, clients = await seat_four(base, rules, seed_secret=b"m%d" % attempt)
            await play_all(clients, seed=attempt)
            record = await get_json(base, f"/api/tables/{tid}/record")
            games = record["games"]
            if len(games) < 2:  # a first-game pollona decided the match at once: again
                for c in clients:
                    await c.close()
                continue
            wins = record["wins"]
            winner = record["winner"]
            assert record["format"] == "tranque-match/1" and max(wins) >= 2
            assert wins[0 if winner == "A" else 1] >= 2 and min(wins) < 2
            for c in clients:
                match = c.state["match"]
                assert c.state["phase"] == "over" and match["over"] and match["to_win"] == 2
                assert match["wins"] == wins and match["game"] == len(games)
                assert match["winner"] == "AB".index(winner)
            # Every player saw the break and the next game start, with the tally so far.
            starts = [
                json.loads(f)["event"]
                for f in clients[0].frames
                if '"next_game"' in f and json.loads(f).get("type") == "event"
            ]
            assert [e["game"] for e in starts] == list(range(2, len(games) + 1))
            # Table hand numbers go on counting from game to game.
            numbers = [h["fairness"]["hand_number"] for h in record_hands(record)]
            assert numbers == list(range(1, len(numbers) + 1))
            for g in games:
                assert g["hands"][0]["number"] == 1 and g["hands"][0]["setup"]["coin"] in (0, 1)
            assert_verifies(record)
            scan_all(clients, record, at_least=2 * GUARDED)
            for c in clients:
                assert not [e for e in c.errors if e["code"] not in ("stale",)], c.errors
                await c.close()
            return
        raise AssertionError("eight matches in a row ended on a first-game pollona")

    asyncio.run(go())


def test_a_full_havana_game_to_100(deployment: Cluster) -> None:
    async def go() -> None:
        tid, clients = await seat_four(deployment.base, "havana", bases=deployment.bases)
        try:
            await play_all(clients, timeout=900)
            record = await get_json(deployment.bases[-1], f"/api/tables/{tid}/record")
            scores = clients[0].state["scores"]
            assert max(scores) >= 100
            # A game to 100 can take as few as one or two hands: the floor is per hand played.
            scan_all(clients, record, at_least=GUARDED * len(record_hands(record)))
        finally:
            for c in clients:
                await c.close()

    asyncio.run(go())


def test_a_practice_table_with_three_bots(deployment: Cluster) -> None:
    async def go() -> None:
        base, last = deployment.base, deployment.bases[-1]
        g = await new_guest(base, "solo")
        t = await create_table(base, g["token"], rules="havana", practice=True, seat=2)
        c = TableClient(last, g["token"], t["table"])
        await c.connect()
        seats = c.table_info["seats"]
        assert [s["kind"] for s in seats] == ["bot", "bot", "person", "bot"]
        assert all(s["bot"] for i, s in enumerate(seats) if i != 2)
        await c.play_game(random_legal, timeout=300)
        record = await get_json(last, f"/api/tables/{t['table']}/record")
        assert record["hands"][0]["fairness"]["seat_status"] == ["bot", "bot", "revealed", "bot"]
        scan(c.frames, 2, record).at_least(GUARDED)
        await c.close()

    asyncio.run(go())
