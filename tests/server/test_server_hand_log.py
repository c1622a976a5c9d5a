"""The sync's ``log``: the public events of the hand on the table, so that a page reloaded in
the middle of a hand writes its log again (issue 29, bug 5); never another hand's, never a tile
the reader may not see (the frame scanner reads it with the rest of the sync)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from frame_scanner import scan, scan_all
from test_server_e2e import seat_four

from tranque.client import TableClient, create_table, get_json, new_guest, random_legal

RULES = {"preset": "havana", "target": 60}


def _check_log(sync: dict[str, Any]) -> list[dict[str, Any]]:
    """The log is this hand's, from its commitment on, in order, and its plays are the view's."""
    log = sync["log"]
    hand = sync["state"]["hand"]
    assert log and log[0]["type"] == "hand_commit" and log[0]["hand"] == hand, log[:2]
    seqs = [e["seq"] for e in log]
    assert seqs == sorted(seqs) and seqs[-1] <= sync["seq"]
    assert not any(e["type"] == "hand_commit" for e in log[1:])
    played = [[e["seat"], e["move"]] for e in log if e["type"] == "played"]
    assert played == sync["view"]["moves"]
    assert all(e.get("hand", hand) == hand for e in log), log
    assert not any("hand_end" in e for e in log)  # the view says how a hand ended
    return log


@pytest.mark.slow  # a whole game of four clients
def test_a_sync_in_the_middle_of_a_hand_carries_that_hands_public_events(server: Any) -> None:
    async def go() -> None:
        tid, clients = await seat_four(server.base, RULES)
        reader = clients[1]
        # The others hold still while seat 1 reloads: he is away for that moment and a bot plays
        # for him at once, so with them playing on the hand could end before his sync.
        hold = asyncio.Event()

        def others_play() -> list[asyncio.Task[None]]:
            return [
                asyncio.create_task(
                    c.play_game(
                        random_legal, seed=20 + i, timeout=300, stop=lambda _: hold.is_set()
                    )
                )
                for i, c in enumerate(clients)
                if c is not reader
            ]

        others = others_play()
        # Seat 1 plays until the second hand has a few tiles down, then opens the table anew
        # (a reload: a hello with no last_seq, so the sync is all it gets).
        await reader.play_game(
            random_legal,
            seed=21,
            stop=lambda c: (
                c.state.get("hand") == 2
                and c.state.get("phase") == "play"
                and sum(c.state.get("counts") or [0]) < 34
            ),
        )
        hold.set()
        await asyncio.gather(*others)
        await reader.drop()
        await reader.connect()
        sync = reader.last_sync
        assert sync is not None and sync["missed"] is None
        assert sync["view"]["phase"] == "play" and sync["view"]["outcome"] is None
        mid = next(f for f in reversed(reader.frames) if '"type":"sync"' in f)
        log = _check_log(sync)
        assert sum(e["type"] == "played" for e in log) >= 6
        # A spectator who comes now reads the same hand.
        eva = await new_guest(server.base, "eva")
        watcher = TableClient(server.base, eva["token"], tid, role="spectator")
        await watcher.connect()
        assert watcher.last_sync is not None
        seen = _check_log(watcher.last_sync)
        assert [e["seq"] for e in seen][: len(log)] == [e["seq"] for e in log]
        hold.clear()
        await asyncio.gather(reader.play_game(random_legal, seed=21, timeout=300), *others_play())
        record = await get_json(server.base, f"/api/tables/{tid}/record")
        # Every frame each seat got (the mid-hand sync's log with them) shows only what the
        # seat may see.
        scan_all(clients, record, at_least=10)
        assert scan([mid], 1, record).guarded == 1  # its log's tiles were checked
        # ... and the scanner would see a tile of another seat put into the log.
        # (One seat 3 still held then: a tile he had played is public, and rightly passes.)
        doctored = json.loads(mid)
        shown = {e["move"].split("@")[0] for e in doctored["log"] if e["type"] == "played"}
        other_tile = next(t for t in record["hands"][1]["hands"][3].split() if t not in shown)
        doctored["log"].append({"type": "played", "seat": 3, "move": other_tile, "seq": 0})
        with pytest.raises(AssertionError, match="saw"):
            scan([json.dumps(doctored)], 1, record)
        await watcher.close()
        for c in clients:
            await c.close()

    asyncio.run(go())


def test_before_the_first_hand_the_log_is_empty(server: Any) -> None:
    async def go() -> None:
        ana = await new_guest(server.base, "ana")
        made = await create_table(server.base, ana["token"], rules="havana", practice=False)
        c = TableClient(server.base, ana["token"], made["table"])
        await c.connect()
        assert c.last_sync is not None and c.last_sync["log"] == []
        await c.close()

    asyncio.run(go())
