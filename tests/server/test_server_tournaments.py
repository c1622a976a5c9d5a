"""A Swiss of pairs run by a real server, with people who come to their tables over real
sockets (docs/tournaments.md, "The service"): registration and its refusals, a whole Swiss of
five pairs (a bye each round) to its standings, checked against ``tournament.swiss`` computed
here from the file; the file served is one ``tranque tournament standings`` reads; the games are
rated; nothing hidden leaves the server (the frame scanner on every table and bell)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from frame_scanner import private_leaks, scan_all
from friends_client import PASSWORD, call, ok, refused
from test_server_e2e import GUARDED
from tournament_people import LIMITS, Person, close_all, pairs_of, play_round, seated_at, wait_state

from tranque.client import get_json, new_guest
from tranque.tournament.model import Tournament, decode
from tranque.tournament.swiss import pair_round, standings

pytestmark = pytest.mark.slow


def people_of(page: dict[str, Any], pairs: dict[str, tuple[Person, Person]]) -> list[Person]:
    """The people seated in the page's round (the bye's pair sits out)."""
    names = {e["id"]: e["pair"] for e in page["entrants"]}
    seated = [names[x] for tb in page["round"]["tables"] for x in (tb["a"], tb["b"])]
    return [p for pair in seated for p in pairs[pair]]


def test_a_swiss_of_five_pairs_is_played_to_its_standings(
    server_factory: Any, tmp_path: Path
) -> None:
    server = server_factory(*LIMITS)
    base = server.base

    async def go() -> None:
        made = await pairs_of(base, 5)
        pairs = {name: (a, b) for name, a, b in made}
        everyone = [p for _, a, b in made for p in (a, b)]
        ana1 = pairs["Pareja-1"][0]
        try:
            # Typed refusals of a bad creation; a guest may not create.
            for body, code in (
                ({"name": "x", "rounds": 0}, "bad_request"),
                ({"name": "x", "rules": "nope"}, "unknown_rules"),
                ({"name": "x", "kind": "knockout"}, "bad_request"),
                ({"name": "x", "kind": "arena"}, "bad_minutes"),  # an arena needs its length
                ({"name": "x", "starts": 1.0}, "bad_start"),
                ({"name": "", "rounds": 2}, "bad_request"),
                ({"name": "x", "extra": 1}, "unknown_field"),
            ):
                refused(call(base, "POST", "/api/tournaments", ana1.token, body), 400, code)
            guest = (await new_guest(base, "Invitado"))["token"]
            refused(call(base, "POST", "/api/tournaments", guest, {"name": "x"}), 403,
                    "account_needed")  # fmt: skip
            bad = httpx.post(base + "/api/tournaments", content=b"{", timeout=30,
                             headers={"authorization": f"Bearer {ana1.token}"})  # fmt: skip
            refused(bad, 400, "malformed")
            made_t = ok(call(base, "POST", "/api/tournaments", ana1.token,
                             {"name": "Copa de Prueba", "rounds": 2, "no_show": 60}))  # fmt: skip
            tid = made_t["id"]
            assert made_t["page"] == f"/tournament/{tid}"
            listing = ok(call(base, "GET", "/api/tournaments"))
            assert [t["id"] for t in listing["upcoming"]] == [tid]
            refused(call(base, "GET", "/api/tournaments/nada"), 404, "no_tournament")
            # Registration: a pair of one's own, once.
            for name, a, _ in made:
                got = ok(call(base, "POST", f"/api/tournaments/{tid}/register", a.token,
                              {"pair": name}))  # fmt: skip
                assert got["pair"] == name
            b1 = pairs["Pareja-1"][1]
            refused(call(base, "POST", f"/api/tournaments/{tid}/register", b1.token,
                         {"pair": "Pareja-1"}), 409, "already_entered")  # fmt: skip
            refused(call(base, "POST", f"/api/tournaments/{tid}/register", b1.token,
                         {"pair": "Pareja-2"}), 404, "not_your_pair")  # fmt: skip
            refused(call(base, "POST", f"/api/tournaments/{tid}/register", b1.token,
                         {"pair": 5}), 400, "bad_request")  # fmt: skip
            # Only the creator starts it.
            refused(call(base, "POST", f"/api/tournaments/{tid}/start", b1.token), 403,
                    "not_creator")  # fmt: skip
            ok(call(base, "POST", f"/api/tournaments/{tid}/start", ana1.token))
            refused(call(base, "POST", f"/api/tournaments/{tid}/start", ana1.token), 409,
                    "not_registering")  # fmt: skip
            refused(call(base, "POST", f"/api/tournaments/{tid}/register", b1.token,
                         {"pair": "Pareja-1"}), 409, "not_registering")  # fmt: skip
            tables: list[str] = []
            for number in (1, 2):
                page = await wait_state(
                    base, tid,
                    lambda p, n=number: p["round"] is not None and p["round"]["number"] == n
                    and all(tb["table"] for tb in p["round"]["tables"]),
                )  # fmt: skip
                assert len(page["round"]["tables"]) == 2 and len(page["round"]["byes"]) == 1
                tables += [tb["table"] for tb in page["round"]["tables"]]
                seated = people_of(page, pairs)
                # Where each one sits, as the page tells him: pair A in seats 0 and 2.
                mine = ok(call(base, "GET", f"/api/tournaments/{tid}", seated[0].token))["you"]
                assert mine["table"]["seat"] in (0, 2)
                await play_round(base, seated, tid, number)
            final = await wait_state(base, tid, lambda p: p["state"] == "finished")
            assert final["played"] == 2 and final["round"] is None
            # The file: what was played, as the command line and the library read it.
            raw = call(base, "GET", f"/api/tournaments/{tid}/file").content
            file = decode(raw)
            check_swiss(file, final)
            for tb in (t for r in file.played for t in r.tables):
                assert tb.record in tables and not tb.forfeit
                info = await get_json(base, f"/api/tables/{tb.record}")
                assert list(tb.points) == info["result"]["points"]
                assert tb.winner == info["result"]["winner"].lower()
                assert info["settings"]["tournament"] == tid
            path = tmp_path / "copa.json"
            path.write_bytes(raw)
            out = subprocess.run(
                [sys.executable, "-m", "tranque.cli", "tournament", "standings", str(path),
                 "--json"],
                capture_output=True, text=True, check=True,
            )  # fmt: skip
            lines = json.loads(out.stdout)["standings"]
            assert lines == [
                {k: v for k, v in s.items() if k != "pair"} for s in final["standings"]
            ]
            # Rated as any game of four people: every pair's page counts its games.
            for name in pairs:
                games = sum(
                    1 for r in file.played for t in r.tables
                    for e in (t.a, t.b) if pairs[name][0].name in file.entrant(e).players
                )  # fmt: skip
                page = ok(call(base, "GET", f"/api/pairs/{name}"))
                assert page["record"]["games"] == games
            # Nothing hidden: every table's frames against its record; no token, no password,
            # no guest id in the tournament's pages or in anybody's bell.
            for tid_ in tables:
                record = await get_json(base, f"/api/tables/{tid_}/record")
                clients = seated_at(everyone, tid_)
                assert len(clients) == 4
                scan_all(clients, record, at_least=GUARDED)
            secrets = [PASSWORD, *(p.token for p in everyone)]
            secrets += [c.table_info.get("guest", "x" * 40) for p in everyone for c in p.clients]
            texts = [call(base, "GET", f"/api/tournaments/{tid}").text, raw.decode(),
                     call(base, "GET", "/api/tournaments").text]  # fmt: skip
            assert private_leaks(texts, secrets) == []
            for p in everyone:
                assert private_leaks(p.bell.frames, [PASSWORD, *(q.token for q in everyone)]) == []
        finally:
            await close_all(everyone)

    asyncio.run(go())


def check_swiss(file: Tournament, page: dict[str, Any]) -> None:
    """Each round is what ``tournament.swiss`` pairs from the rounds before it; the standings
    the page shows are the ones it computes; one bye a round, never twice the same pair."""
    for n, played in enumerate(file.played):
        before = Tournament(file.format, file.kind, file.rules, file.target, file.minutes,
                            file.rounds, file.entrants, file.played[:n])  # fmt: skip
        pairing = pair_round(before)
        assert pairing.round == played.round
        assert pairing.byes == played.byes
        assert pairing.tables == [(t.a, t.b) for t in played.tables]
    byes = [b for r in file.played for b in r.byes]
    assert len(byes) == len(set(byes)) == len(file.played)
    expected = [s.to_json() for s in standings(file)]
    assert [{k: v for k, v in s.items() if k != "pair"} for s in page["standings"]] == expected
    assert sum(s["wins"] for s in expected) == 2 * 3  # two tables and a bye, twice
