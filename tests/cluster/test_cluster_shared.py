"""What every node must see alike: rate limits, the cap on a guest's tables, a table's info and
record while another node owns it; and the commands around a cluster (refusals, migrate)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx

from tranque.client import create_table, get_json, new_guest


def _post(base: str, path: str, token: str | None = None, body: Any = None) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.post(base + path, json=body or {}, headers=headers, timeout=10)


def test_a_rate_limit_counts_the_requests_to_every_node(cluster_factory: Any) -> None:
    cluster = cluster_factory(2, "--guests-per-minute", "6", "--guest-burst", "2")
    a, b = cluster.bases
    assert _post(a, "/api/guests").status_code == 200
    assert _post(b, "/api/guests").status_code == 200
    refused = _post(a, "/api/guests")  # the third of a burst of two, whichever node
    assert refused.status_code == 429, refused.text
    assert refused.json()["code"] == "rate_limited" and int(refused.headers["retry-after"]) >= 1
    assert _post(b, "/api/guests").status_code == 429


def test_the_cap_on_a_guests_tables_counts_every_node_and_any_node_answers_for_a_table(
    cluster_factory: Any,
) -> None:
    cluster = cluster_factory(2, "--max-open-tables", "1")
    a, b = cluster.bases

    async def go() -> None:
        g = await new_guest(a, "host")
        t = await create_table(a, g["token"], rules="havana", practice=True, seat=0)
        second = _post(b, "/api/tables", g["token"], {"rules": "havana", "practice": True})
        assert second.status_code == 429 and second.json()["code"] == "too_many_tables"
        # Node b does not own the table: it answers from the log.
        info_a = await get_json(a, f"/api/tables/{t['table']}")
        info_b = await get_json(b, f"/api/tables/{t['table']}")
        assert info_b["seats"] == info_a["seats"] and info_b["table"] == t["table"]
        record = await get_json(b, f"/api/tables/{t['table']}/record")
        assert record["format"] == "tranque-game/1"
        for base in (a, b):
            ready = httpx.get(base + "/healthz", timeout=10)
            assert ready.status_code == 200 and ready.json()["ready"] is True

    asyncio.run(go())


def _tranque(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tranque.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_sqlite_with_redis_is_refused_in_one_line(tmp_path: Path) -> None:
    out = _tranque("serve", "--db", f"sqlite:///{tmp_path / 'x.db'}", "--redis", "redis://x/0")
    assert out.returncode == 2
    assert out.stderr.strip().count("\n") == 0 and "PostgreSQL" in out.stderr, out.stderr
    bad = _tranque("serve", "--db", "postgresql://u@h/db", "--redis", "http://x")
    assert bad.returncode == 2 and "redis://" in bad.stderr


def test_migrate_by_hand_on_postgresql_and_sqlite(pg_url: str, tmp_path: Path) -> None:
    for url in (pg_url, f"sqlite:///{tmp_path / 'm.db'}"):
        first = _tranque("migrate", "--db", url)
        assert first.returncode == 0, first.stderr
        assert "revision 0013a" in first.stdout
        again = _tranque("migrate", "--db", url)  # nothing left to do
        assert again.returncode == 0 and "revision 0013a" in again.stdout
