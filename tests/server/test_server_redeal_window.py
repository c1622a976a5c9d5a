"""The redeal window tells nobody who may ask, through a real server.

Every deal at a table with a person stays on show for the same window (``--redeal-window``),
whoever holds five doubles; only the seat that holds them is offered the redeal. A spectator and
a seat that may not ask get the same frames, keys, phases and timing, whether a seat may ask and
says no, or nobody may ask; asking is the one thing that ends the window early, and everybody is
told (a public outcome).

The deals are pinned: with ``--test-seed`` the server's seeds and the table ids (t1, t2, ...)
are known, and each person's client seed comes from its ``seed_secret``, so the test searches
the client seeds that deal what it needs with the published recipe (no backdoor in the product).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from typing import Any

from frame_scanner import tiles_in

from tranque.client import TableClient, create_table, new_guest
from tranque.fair.recipe import deal_for, deal_key
from tranque.rules.tiles import format_tiles
from tranque.rules.variants import PRESETS
from tranque.table.model import fixed_seeds

SEED_HEX = "7472616e7175652d7265646561"  # the server's --test-seed
WINDOW = 1.5  # seconds: long enough to measure, short enough for a test
HAVANA = PRESETS["havana"]
SECOND = b"second"  # the seat-2 person's seed secret, the same at every table


def client_seed(secret: bytes, table: str, hand: int = 1) -> bytes:
    """The seed ``TableClient(seed_secret=secret)`` commits to (see ``_seed_for``)."""
    return hashlib.sha256(secret + f"|{table}|{hand}".encode()).digest()


def host_secret(table: str, eligible: bool) -> tuple[bytes, Any]:
    """A seed secret for the host (seat 0) such that the table's first deal gives five doubles
    or more to seat 0 alone (``eligible``), or to nobody (bots, at 1 and 3, give no seed), and
    a redeal gives them to nobody: (secret, the first deal)."""
    server_seed = fixed_seeds(bytes.fromhex(SEED_HEX))(table, 1)
    for i in range(200_000):
        secret = b"host-%d" % i
        seeds = [client_seed(secret, table), b"", client_seed(SECOND, table), b""]
        key = deal_key(server_seed, table, 1, seeds)
        deal = deal_for(key, HAVANA, 0)
        if [deal.doubles(s) >= 5 for s in range(4)] != [eligible, False, False, False]:
            continue
        if all(deal_for(key, HAVANA, 1).doubles(s) < 5 for s in range(4)):
            return secret, deal
    raise AssertionError("no seed found")  # about 1 in 60 deals five doubles to seat 0


def hidden_from(deal: Any, seat: int | None) -> set[str]:
    """The tiles of the deal that ``seat`` (None: a spectator) may not see before a play."""
    out = set(format_tiles(deal.sleepers).split())
    for s in range(4):
        if s != seat:
            out |= set(format_tiles(deal.hands[s]).split())
    return out


class Watch:
    """A client's frames with the wall time each came (the server is on this machine: the same
    clock as the deadlines it sends)."""

    def __init__(self, client: TableClient) -> None:
        self.client = client
        self.got: list[tuple[float, dict[str, Any]]] = []
        client.on_frame = lambda msg, _: self.got.append((time.time(), msg))

    def first_hand(self) -> list[tuple[float, dict[str, Any]]]:
        """The events from the first ``dealt`` through the first that leaves the deal on show
        (the window closed, or a redeal asked)."""
        events = [(t, m) for t, m in self.got if m.get("type") == "event"]
        start = next(i for i, (_, m) in enumerate(events) if m["event"]["type"] == "dealt")
        out = []
        for t, m in events[start:]:
            out.append((t, m))
            if len(out) > 1 and m["state"]["phase"] != "redeal":
                break
        return out


def shape(frames: list[tuple[float, dict[str, Any]]]) -> list[Any]:
    """What an observer could compare between two hands: the events' types and keys, the
    states' keys and phases, and what they say that does not depend on the deal."""
    out = []
    for _, m in frames:
        e, st = m["event"], m["state"]
        same = {k: e[k] for k in ("type", "attempt", "redeal_window", "leader", "ask") if k in e}
        mine = {k: st[k] for k in ("phase", "turn", "redeal", "choosing", "legal") if k in st}
        out.append((sorted(e), sorted(st), same, mine, st.get("deadline") is not None))
    return out


async def table_of(base: str, table: str, secret: bytes) -> dict[str, Any]:
    """A table t<N> of two people (the host at 0, a second at 2), two bots, and a spectator;
    it starts when the bots sit."""
    host = await new_guest(base, "host")
    second = await new_guest(base, "second")
    watcher = await new_guest(base, "watcher")
    made = await create_table(base, host["token"], practice=False, seat=0)
    assert made["table"] == table
    c0 = TableClient(base, host["token"], table, seed_secret=secret)
    c2 = TableClient(base, second["token"], table, seed_secret=SECOND)
    spectator = TableClient(base, watcher["token"], table, role="spectator")
    watches = {"host": Watch(c0), "second": Watch(c2), "spectator": Watch(spectator)}
    for c in (c0, c2, spectator):
        await c.connect()
    await c2.do({"type": "sit", "seat": 2})
    for s in (1, 3):
        await c0.do({"type": "add_bot", "seat": s})
    return {"host": c0, "second": c2, "spectator": spectator, "watch": watches}


async def until_past_window(t: dict[str, Any]) -> None:
    """Until the spectator and the second person have seen the first deal leave the show."""

    def past(c: TableClient) -> bool:
        dealt = [i for i, e in enumerate(c.events) if e["type"] == "dealt"]
        return bool(dealt) and len(c.events) > dealt[0] + 1 and c.state["phase"] != "redeal"

    for who in ("spectator", "second"):
        await t[who].wait_for(past, 30)


def test_a_deal_looks_the_same_whether_or_not_a_seat_may_ask_for_a_redeal(
    server_factory: Any,
) -> None:
    server = server_factory("--test-seed", SEED_HEX, "--redeal-window", str(WINDOW))
    base = server.base
    pinned = {"t1": host_secret("t1", True), "t2": host_secret("t2", False)}
    pinned["t3"] = host_secret("t3", True)

    async def go() -> None:
        # t1: the host holds five doubles, and says no at once ("Jugar así").
        t1 = await table_of(base, "t1", pinned["t1"][0])
        host = t1["host"]
        await host.wait_for(lambda c: bool(c.state.get("redeal")), 30)
        assert host.state["phase"] == "redeal" and host.state["my_deadline"] is not None
        no = await host.command({"type": "redeal", "seq": host.seq, "ask": False})
        assert no["type"] == "ack", no
        again = await host.command({"type": "redeal", "seq": host.seq, "ask": True})
        assert again["type"] == "error" and again["code"] == "duplicate", again
        await until_past_window(t1)
        # t2: nobody may ask.
        t2 = await table_of(base, "t2", pinned["t2"][0])
        await until_past_window(t2)
        assert not any((m.get("state") or {}).get("redeal") for _, m in t2["watch"]["host"].got)

        for who in ("spectator", "second"):
            a, b = t1["watch"][who].first_hand(), t2["watch"][who].first_hand()
            assert shape(a) == shape(b), (who, shape(a), shape(b))
            assert [m["event"]["type"] for _, m in a] == ["dealt", "redeal_closed"], shape(a)
            assert a[0][1]["state"]["phase"] == "redeal" and a[-1][1]["state"]["phase"] != "redeal"
            # The same window, closed at its deadline (not when the holder said no).
            for frames in (a, b):
                (t_dealt, dealt), (t_closed, _) = frames[0], frames[-1]
                deadline = dealt["event"]["deadline"]
                assert deadline == dealt["state"]["deadline"]
                assert t_closed >= deadline - 0.02, (t_closed, deadline)
                assert WINDOW - 0.3 <= deadline - t_dealt <= WINDOW + 0.05, deadline - t_dealt
                assert WINDOW - 0.3 <= t_closed - t_dealt <= WINDOW + 1.0, t_closed - t_dealt
            if who == "second":
                for _, m in a + b:
                    assert m["state"]["redeal"] is False and m["state"]["my_deadline"] is None
        # The events of the window are the same to everybody (the public form), and the
        # second person's and the spectator's frames hide every tile they may not see.
        for tid, t in (("t1", t1), ("t2", t2)):
            window = {w: t["watch"][w].first_hand() for w in t["watch"]}
            evs = [[json.dumps(m["event"]) for _, m in frames] for frames in window.values()]
            assert evs[0] == evs[1] == evs[2]
            deal = pinned[tid][1]
            for who, seat in (("second", 2), ("spectator", None)):
                seen = tiles_in([m for _, m in window[who]], set())
                assert not seen & hidden_from(deal, seat), (who, seen)
                assert bool(seen) is (seat is not None)  # the person sees his own tiles

        # t3: the holder asks. That ends the window early, and everyone is told who asked.
        t3 = await table_of(base, "t3", pinned["t3"][0])
        host = t3["host"]
        await host.wait_for(lambda c: bool(c.state.get("redeal")), 30)
        asked_at = time.time()
        yes = await host.command({"type": "redeal", "seq": host.seq, "ask": True})
        assert yes["type"] == "ack", yes
        await until_past_window(t3)
        for who in ("spectator", "second"):
            frames = t3["watch"][who].first_hand()
            assert [m["event"]["type"] for _, m in frames] == ["dealt", "redeal"]
            assert (frames[-1][1]["event"]["ask"], frames[-1][1]["event"]["seat"]) == (True, 0)
            assert frames[-1][0] < frames[0][1]["event"]["deadline"]
        await t3["spectator"].wait_for(
            lambda c: sum(e["type"] == "dealt" for e in c.events) == 2, 30
        )
        dealt = [e for e in t3["spectator"].events if e["type"] == "dealt"]
        assert [d["attempt"] for d in dealt] == [0, 1] and dealt[1]["redeal_window"] is True
        assert asked_at < dealt[0]["deadline"]
        for t in (t1, t2, t3):
            for c in (t["host"], t["second"], t["spectator"]):
                await c.close()

    asyncio.run(go())
    assert "Traceback" not in server.errors()
