"""The server writes who sat where into a finished game's record (``players``), and the fair-play
screen reads a real server's database: a guest's games under his ``~id`` handle, and once he
has claimed an account, all of them under its name."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from frame_scanner import scan
from test_server_e2e import assert_verifies

from tranque.client import TableClient, create_table, get_json, new_guest, random_legal

PASSWORD = "mulata-de-seis"
RULES = {"preset": "havana", "target": 30}
SRC = Path(__file__).resolve().parents[2] / "src"


async def _play(base: str, token: str) -> tuple[str, dict[str, Any]]:
    t = await create_table(base, token, rules=RULES, practice=True)
    c = TableClient(base, token, t["table"])
    await c.connect()
    await c.play_game(random_legal, timeout=300)
    record = await get_json(base, f"/api/tables/{t['table']}/record")
    scan(c.frames, 0, record).at_least(1)  # nothing hidden reached the person meanwhile
    await c.close()
    return t["table"], record


def _screen(*argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    cmd = [sys.executable, "-m", "tranque", "fairplay", "screen", *argv]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)


@pytest.mark.slow
def test_records_carry_the_players_and_the_screen_reads_the_database(
    server_factory: Any, tmp_path: Path
) -> None:
    sp = server_factory("--analysis", "0")
    base = sp.base

    async def go() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        g = await new_guest(base, "anita")
        _, as_guest = await _play(base, g["token"])
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            r = await http.post(
                "/api/accounts",
                json={"name": "Anita", "password": PASSWORD},
                headers={"authorization": f"Bearer {g['token']}"},
            )
            assert r.status_code == 200, r.text
            account = r.json()
        _, as_account = await _play(base, account["token"])
        return g, as_guest, as_account

    guest, as_guest, as_account = asyncio.run(go())
    # Seat 0 is the person (a guest's profile handle, then his account's name), bots are null.
    assert as_guest["players"] == ["~" + guest["guest"], None, None, None]
    assert as_account["players"] == ["Anita", None, None, None]
    for record in (as_guest, as_account):
        assert_verifies(record)  # readers that do not know the key read the record as before

    done = _screen("--db", sp.url, "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["format"] == "tranque-fairplay/1" and result["games"] == 2
    # One person: the guest's first game counts under the name he claimed since.
    [anita] = result["people"]
    assert anita["id"] == "Anita" and anita["games"] == 2 and anita["decisions"] > 0
    assert 0 <= anita["top_choice_rate"] <= 1 and anita["flag"] is False
    assert result["partnerships"] == []  # his partner was a bot

    # The same games from files give the same figures (the guest's under his old handle).
    files = []
    for i, record in enumerate((as_guest, as_account)):
        path = tmp_path / f"g{i}.json"
        path.write_text(json.dumps(record), encoding="utf-8")
        files.append(str(path))
    from_files = json.loads(_screen(*files, "--json").stdout)
    by_id = {p["id"]: p for p in from_files["people"]}
    assert sorted(by_id) == sorted(["Anita", "~" + guest["guest"]])
    assert sum(p["decisions"] for p in by_id.values()) == anita["decisions"]
