"""``tranque serve``: bad values exit 2 with one line, the start line means "listening", and a
SIGTERM closes every socket with 1001 after the commits in flight."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import signal
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tranque.client import TableClient, create_table, new_guest

BAD = [
    (["serve", "--port", "99999"], "--port"),
    (["serve", "--port", "eighty"], "--port"),
    (["serve", "--move-clock", "-3"], "--move-clock"),
    (["serve", "--move-clock", "nan"], "--move-clock"),
    (["serve", "--grace", "-1"], "--grace"),
    (["serve", "--rate", "0"], "--rate"),
    (["serve", "--ws-ping", "0"], "--ws-ping must be 0.1 to 3600, not 0"),
    (["serve", "--db", "sqlite:////nonexistent/dir/x.db"], "/nonexistent/dir"),
    (["serve", "--db", "mysql://u@h/db"], "--db"),
    (["serve", "--db", "not a url"], "--db"),
    (["serve", "--bot", "deep-blue"], "--bot"),
    (["serve", "--max-spectators", "-1"], "--max-spectators"),
    (["serve", "--guests-per-minute", "lots"], "--guests-per-minute"),
    (["serve", "--api-gets-per-minute", "-1"], "--api-gets-per-minute"),
    (["serve", "--api-get-burst", "0"], "must be 1 or more, not 0"),
    (["serve", "--replays-kept", "0"], "--replays-kept must be 1 to 10000, not 0"),
    (["serve", "--replays-waiting", "many"], "--replays-waiting"),
    (["serve", "--allow-origin", "evil.example"], "--allow-origin"),
    (["serve", "--secret-file", "/nonexistent/secret"], "--secret-file"),
    (["serve", "--token-days", "0"], "--token-days"),
    (["serve", "--workers", "2", "--analysis", "3"], "--analysis must be 0 to 2"),
    (["serve", "--analysis", "-1"], "--analysis"),
    (["serve", "--bus-linger", "51"], "must be 0 to 50, not 51"),
    (["bench", "cluster", "--nodes", "2", "--tables", "1", "--bus-linger", "-1"], "--bus-linger"),
    (["bench", "engine", "--seconds", "0"], "--seconds"),
    (["bench", "server", "--seconds", "0"], "--seconds"),
    (["bench", "server", "--spread", "-5"], "--spread must be 0 to 600 seconds, not -5"),
]
if importlib.util.find_spec("asyncpg") is None:
    BAD.append((["serve", "--db", "postgresql://u@127.0.0.1/db"], "postgres extra"))


def _run(args: list[str], tmp_path: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tranque.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=tmp_path,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        check=False,
    )


@pytest.mark.slow
@pytest.mark.parametrize(("args", "says"), BAD, ids=[" ".join(a) for a, _ in BAD])
def test_a_bad_value_exits_2_with_one_line(args: list[str], says: str, tmp_path: Path) -> None:
    out = _run(args, tmp_path)
    assert out.returncode == 2, (out.returncode, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith("tranque ") and ": error: " in lines[0], lines
    assert says in lines[0], lines
    assert out.stdout == ""
    assert not list(tmp_path.iterdir())  # nothing was created (no database file)


def _start(db: Path, *extra: str) -> tuple[subprocess.Popen[str], str]:
    cmd = [
        sys.executable, "-m", "tranque.cli", "serve", "--port", "0",
        "--db", f"sqlite:///{db}", *extra,
    ]  # fmt: skip
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert "serving at" in line, (line, proc.stderr.read() if proc.poll() is not None else "")
    return proc, line.split()[3].rstrip("/")


@pytest.mark.slow
def test_the_start_line_comes_once_the_socket_accepts(tmp_path: Path) -> None:
    for n in range(3):
        proc, base = _start(tmp_path / f"s{n}.db")
        try:
            # Freeze the server the moment it has printed the line: the kernel still completes
            # a connection to a listening socket (its backlog), and refuses one that is not yet.
            os.kill(proc.pid, signal.SIGSTOP)
            host, port = base.removeprefix("http://").rsplit(":", 1)
            try:
                socket.create_connection((host, int(port)), timeout=5).close()
            finally:
                os.kill(proc.pid, signal.SIGCONT)
            assert httpx.get(base + "/health", timeout=10).json()["ok"] is True
        finally:
            proc.terminate()
            proc.communicate(timeout=20)
        # uvicorn stops cleanly, then lets the signal end the process (as a parent expects).
        assert proc.returncode in (0, -signal.SIGTERM)


def _events(db: Path, table: str) -> list[tuple[int, str]]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT seq, type FROM events WHERE table_id = ? ORDER BY seq", (table,)
        ).fetchall()
    return [(int(seq), str(kind)) for seq, kind in rows]


@pytest.mark.slow
def test_sigterm_closes_sockets_with_1001_after_the_commits(tmp_path: Path) -> None:
    db = tmp_path / "stop.db"
    quick = ["--bot-delay", "0", "--pass-delay", "0", "--between-hands", "0", "--fair-window", "1"]
    proc, base = _start(db, *quick, "--log-level", "info")

    async def go() -> tuple[str, int, int, list[int | None]]:
        ana = await new_guest(base, "ana")
        tid = (await create_table(base, ana["token"], practice=True, seat=0))["table"]
        player = TableClient(base, ana["token"], tid)
        await player.connect()
        watcher = TableClient(base, (await new_guest(base, "eve"))["token"], tid, role="spectator")
        await watcher.connect()
        await player.wait_for(lambda c: bool(c.state.get("legal")), 60)
        reply = await player.play(player.state["legal"][0])
        assert reply["type"] == "ack", reply
        acked = player.seq  # the ack comes after the move's event: it is in the log
        os.kill(proc.pid, signal.SIGTERM)
        codes = []
        for c in (player, watcher):
            assert c._reader is not None
            await asyncio.wait_for(c._reader, 20)
            codes.append(c.closed_code)
        return tid, acked, player.seq, codes

    try:
        tid, acked, seen, codes = asyncio.run(go())
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=10)
    assert codes == [1001, 1001], (codes, err)
    assert proc.returncode in (0, -signal.SIGTERM), err
    assert "Finished server process" in err and "Traceback" not in err, err
    seqs = [seq for seq, _ in _events(db, tid)]
    # The acked move and every event sent before the close are in the log, with no gap.
    assert acked in seqs and seen in seqs and seqs == list(range(1, len(seqs) + 1))
    # And the next server takes the table up from there.
    again, base = _start(db)
    try:
        info = httpx.get(f"{base}/api/tables/{tid}", timeout=10).json()
        assert info["started"] is True and info["seats"][0]["nickname"] == "ana", info
    finally:
        again.terminate()
        again.communicate(timeout=20)
