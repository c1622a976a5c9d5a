"""Finished games through a real server: the game's page data, the history lists and their
paging and privacy, the fair analysis made once at the end of a game with people, hindsight on
request; the answers of a game in progress carry nothing hidden (the frame scanner reads them
among the person's frames)."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx
import pytest
from frame_scanner import scan

from tranque.analysis import analyze_record
from tranque.client import TableClient, create_table, new_guest, random_legal

SHORT = {"preset": "havana", "target": 30}


def _get(base: str, path: str) -> httpx.Response:
    return httpx.get(base + path, timeout=30)


def wait_for_analysis(base: str, tid: str, key: str = "fair", seconds: float = 240) -> Any:
    """Poll until the analysis is there: the event is the row turning ``done``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        body = _get(base, f"/api/tables/{tid}/analysis").json()
        part = body[key] if key == "fair" else next(iter(body["hindsight"]), {"status": "none"})
        if part["status"] == "done":
            return body
        assert part["status"] in ("none", "pending"), body
        time.sleep(0.2)
    raise AssertionError(f"no analysis of {tid} in {seconds} s")


async def play_one(base: str, name: str, *, public: bool = False) -> tuple[dict[str, Any], str]:
    g = await new_guest(base, name)
    t = await create_table(base, g["token"], rules=SHORT, practice=True, public=public)
    c = TableClient(base, g["token"], t["table"])
    await c.connect()
    await c.play_game(random_legal, timeout=300)
    await c.close()
    return g, t["table"]


@pytest.mark.slow
def test_a_finished_game_has_its_page_its_history_and_one_fair_analysis(server: Any) -> None:
    base = server.base

    async def go() -> tuple[dict[str, Any], str, list[str]]:
        g = await new_guest(base, "lupe")
        t = await create_table(base, g["token"], rules=SHORT, practice=True, public=True)
        tid = t["table"]
        c = TableClient(base, g["token"], tid)
        await c.connect()
        # Mid-hand, every new answer about this table is fetched and read by the scanner as
        # though it were a frame: nothing in it may show a tile still hidden from seat 0.
        await c.wait_for(lambda c: c.state.get("phase") == "play" and bool(c.state.get("legal")))
        answers = []
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            for path in (f"/api/tables/{tid}/games", f"/api/tables/{tid}/analysis",
                         "/api/games", f"/api/profiles/~{g['guest']}/games"):  # fmt: skip
                r = await http.get(path)
                answers.append((r.status_code, r.json()))
            r = await http.post(f"/api/tables/{tid}/analysis/hindsight", json={"hand": 1})
            answers.append((r.status_code, r.json()))
        frames = [*c.frames, *(json.dumps({"type": "answer", "body": a}) for _, a in answers)]
        assert [s for s, _ in answers] == [409, 409, 200, 200, 409], answers
        assert answers[2][1]["games"] == [] and answers[3][1]["games"] == []
        await c.play_game(random_legal, timeout=300)
        await c.close()
        return g, tid, frames

    g, tid, frames = asyncio.run(go())
    record = _get(base, f"/api/tables/{tid}/record").json()
    assert scan(frames, 0, record).guarded >= 1

    page = _get(base, f"/api/tables/{tid}/games").json()
    assert page["format"] == "tranque-game/1" and page["public"] is True
    assert [s["kind"] for s in page["seats"]] == ["person", "bot", "bot", "bot"]
    assert page["seats"][0]["profile"] == f"~{g['guest']}" and page["seats"][1]["profile"] is None
    [game] = page["games"]
    assert game["over"] and len(game["hands"]) == len(record["hands"])
    assert game["sheet"][-1]["nosotros"] == game["scores"][0] >= 0

    body = wait_for_analysis(base, tid)
    assert body["seats"] == [0]
    fair = body["fair"]["analysis"]
    assert fair["format"] == "tranque-analysis/1" and fair["mode"] == "fair"
    assert [h["number"] for h in fair["hands"]] == [h["number"] for h in record["hands"]]
    rated = [p for h in fair["hands"] for p in h["plays"]]
    assert rated, "a whole game without a single real choice for seat 0"
    for hand, analysed in zip(record["hands"], fair["hands"], strict=True):
        for p in analysed["plays"]:
            assert p["seat"] == 0 and (hand["leader"] + p["index"]) % 4 == 0
            assert hand["moves"][p["index"]] == p["played"]
            assert p["loss"] >= 0 and len(p["options"]) >= 2
    # What `tranque analyze RECORD --seat 0 --json` says, made hand by hand in the pool.
    assert fair == analyze_record(record, seats=[0])
    # The pool analysed each hand once (one request per hand), and nothing more follows.
    health = _get(base, "/health").json()["workers"]
    assert health["analysed"] == len(record["hands"]), health

    # Hindsight on request: 202 while it is worked out, then kept (200 at once after).
    r = httpx.post(base + f"/api/tables/{tid}/analysis/hindsight", json={"hand": 1}, timeout=30)
    assert r.status_code in (200, 202), r.text
    body = wait_for_analysis(base, tid, key="hindsight")
    [hs] = body["hindsight"]
    assert (hs["game"], hs["hand"]) == (1, 1) and hs["analysis"]["mode"] == "hindsight"
    assert {p["seat"] for p in hs["analysis"]["hands"][0]["plays"]} <= {0, 1, 2, 3}
    assert hs["analysis"]["hands"] == analyze_record(record, mode="hindsight", hand=1)["hands"]
    again = httpx.post(base + f"/api/tables/{tid}/analysis/hindsight", json={"hand": 1}, timeout=30)
    assert again.status_code == 200 and again.json()["analysis"] == hs["analysis"]
    assert _get(base, "/health").json()["workers"]["analysed"] == len(record["hands"]) + 1

    # The lists: the profile's games and the public games name the table.
    mine = _get(base, f"/api/profiles/~{g['guest']}/games").json()
    assert [x["table"] for x in mine["games"]] == [tid] and mine["next"] is None
    assert mine["games"][0]["page"] == f"/g/{tid}"
    recent = _get(base, "/api/games").json()
    assert [x["table"] for x in recent["games"]] == [tid]
    # The game page is the client's page.
    assert '<div id="app">' in _get(base, f"/g/{tid}").text


@pytest.mark.slow
def test_history_pages_newest_first_and_keeps_private_tables_out_of_the_public_list(
    server: Any,
) -> None:
    base = server.base

    async def go() -> tuple[dict[str, Any], list[str], list[str]]:
        g = await new_guest(base, "pepe")
        public, private = [], []
        for i in range(3):
            t = await create_table(
                base, g["token"], rules={"preset": "havana", "target": 10}, practice=True,
                public=i != 1,
            )  # fmt: skip
            c = TableClient(base, g["token"], t["table"])
            await c.connect()
            await c.play_game(random_legal, timeout=300)
            await c.close()
            (public if i != 1 else private).append(t["table"])
        return g, public, private

    g, public, private = asyncio.run(go())
    handle = f"~{g['guest']}"
    everything = [*public[:1], *private, *public[1:]][::-1]  # newest first
    first = _get(base, f"/api/profiles/{handle}/games?limit=2").json()
    assert [x["table"] for x in first["games"]] == everything[:2]
    assert first["next"] is not None
    second = httpx.get(first["next"], timeout=30).json()
    assert [x["table"] for x in second["games"]] == everything[2:] and second["next"] is None
    # The private table is on its player's profile, never in the public list.
    recent = _get(base, "/api/games?limit=100").json()
    listed = [x["table"] for x in recent["games"]]
    assert listed == public[::-1] and not set(private) & set(listed)
    # Claiming an account keeps them: the guest's games are the account's, under its name.
    claimed = httpx.post(
        base + "/api/accounts",
        json={"name": "pepe", "password": "dominó-de-nueve"},
        headers={"authorization": f"Bearer {g['token']}"},
        timeout=30,
    )
    assert claimed.status_code == 200, claimed.text
    named = _get(base, "/api/profiles/pepe/games?limit=10").json()
    assert named["profile"] == "pepe" and [x["table"] for x in named["games"]] == everything
    paged = _get(base, "/api/games?limit=1").json()
    assert [x["table"] for x in paged["games"]] == public[-1:]
    assert [x["table"] for x in httpx.get(paged["next"], timeout=30).json()["games"]] == public[:1]


def test_bad_requests_get_a_typed_error(server: Any) -> None:
    base = server.base
    for path, status, code in [
        ("/api/games?limit=0", 400, "bad_page"),
        ("/api/games?limit=x", 400, "bad_page"),
        ("/api/games?limit=101", 400, "bad_page"),
        ("/api/games?before=nonsense", 400, "bad_page"),
        ("/api/games?before=nan_t1", 400, "bad_page"),
        ("/api/profiles/~nobody/games", 404, "no_profile"),
        ("/api/profiles/no%20such%20name/games", 404, "no_profile"),
        ("/api/tables/nope/games", 404, "no_table"),
        ("/api/tables/nope/analysis", 404, "no_table"),
    ]:
        r = _get(base, path)
        assert (r.status_code, r.json()["code"]) == (status, code), (path, r.text)
    # An unknown table is said first, whatever the body.
    for body in [b"", b"[", b'{"hand": "1"}', b'{"hand": 1, "x": 2}']:
        r = httpx.post(base + "/api/tables/nope/analysis/hindsight", content=body, timeout=30)
        assert (r.status_code, r.json()["code"]) == (404, "no_table"), r.text


@pytest.mark.slow
def test_a_hindsight_request_names_a_hand_that_is_there(server: Any) -> None:
    base = server.base
    _, tid = asyncio.run(play_one(base, "tita"))
    post = lambda body: httpx.post(  # noqa: E731
        base + f"/api/tables/{tid}/analysis/hindsight", content=body, timeout=30
    )
    for body, status, code in [
        (b"", 400, "malformed"),
        (b"{", 400, "malformed"),
        (b"[1]", 400, "bad_hand"),
        (b'{"hand": "1"}', 400, "bad_hand"),
        (b'{"hand": true}', 400, "bad_hand"),
        (b'{"hand": 1, "x": 2}', 400, "bad_hand"),
        (b'{"hand": 99}', 404, "no_hand"),
        (b'{"hand": 1, "game": 2}', 404, "no_hand"),
        (b'{"hand": 0}', 404, "no_hand"),
    ]:
        r = post(body)
        assert (r.status_code, r.json()["code"]) == (status, code), (body, r.text)
    assert _get(base, f"/api/tables/{tid}/analysis").json()["hindsight"] == []


@pytest.mark.slow
def test_hindsight_asked_past_the_analysis_queue_is_refused_busy(
    server_factory: Any, tmp_path: Any
) -> None:
    """A node holds at most ``--analysis-queue`` parts at once (analysing or waiting for a
    worker): one more asked is a 503 ``analysis_busy`` with a Retry-After, and nothing is
    claimed for it; once the queue has room it is taken like any other."""
    gate = tmp_path / "gate"
    gate.touch()  # open while the games are played and their fair analyses made
    server = server_factory("--test-think-gate", str(gate), "--analysis-queue", "2")
    base = server.base
    hands: list[tuple[str, int]] = []
    while len(hands) < 3:
        _, tid = asyncio.run(play_one(base, f"p{len(hands)}"))
        wait_for_analysis(base, tid)
        record = _get(base, f"/api/tables/{tid}/record").json()
        hands += [(tid, h["number"]) for h in record["hands"]]
    # A game's analysis is done before its fair-play screen is: the screen holds its place in
    # the queue until it ends, so the node is let go quiet before the gate closes on it.
    deadline = time.monotonic() + 120
    while (held := _get(base, "/health").json()["analysis"]["held"]) > 0:
        assert time.monotonic() < deadline, f"the node still holds {held} part(s)"
        time.sleep(0.1)
    gate.unlink()  # every analysis now waits with the workers
    ask = lambda tid, n: httpx.post(  # noqa: E731
        base + f"/api/tables/{tid}/analysis/hindsight", json={"hand": n}, timeout=30
    )
    first, second, third = hands[:3]
    assert ask(*first).status_code == 202
    assert ask(*second).status_code == 202
    again = ask(*first)  # the same part again is the one already held, not one more
    assert again.status_code == 202, again.text
    busy = ask(*third)
    assert busy.status_code == 503 and busy.json()["code"] == "analysis_busy", busy.text
    assert int(busy.headers["retry-after"]) >= 1 and busy.json()["message"]
    parts = _get(base, f"/api/tables/{third[0]}/analysis").json()["hindsight"]
    assert (1, third[1]) not in [(p["game"], p["hand"]) for p in parts]  # nothing claimed
    gate.touch()
    wait_for_analysis(base, first[0], key="hindsight")
    deadline = time.monotonic() + 120
    while (r := ask(*third)).status_code == 503:
        assert time.monotonic() < deadline, r.text
        time.sleep(0.2)
    assert r.status_code in (200, 202), r.text
    assert "Traceback" not in server.errors()
