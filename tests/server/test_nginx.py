"""The nginx example (``deploy/nginx/tranque.conf``), run by a real nginx in front of two nodes.

The site file is used as it is shipped, with only what names this machine put in: the two
nodes in its upstream, loopback ports for its two servers, and a certificate made for the test.
A table of four people plays a game through it over TLS, its sockets spread over both nodes.
Under ``CI`` a missing nginx, PostgreSQL or Redis fails the test; elsewhere it is skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest
import websockets
from frame_scanner import scan_all
from test_server_e2e import GUARDED, assert_verifies, play_all, seat_four
from tests.conftest import Cluster, ServerProcess

from tranque.client import TableClient, create_table, get_json, new_guest

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "deploy" / "nginx" / "tranque.conf"
NGINX = os.environ.get("TRANQUE_NGINX", "/usr/sbin/nginx")


def _need_nginx() -> None:
    if Path(NGINX).exists():
        return
    message = f"nginx is not installed at {NGINX} (apt-get install nginx)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _sub(pattern: str, repl: str, text: str, count: int) -> str:
    """``re.sub`` that must replace exactly ``count`` times: a changed example fails here."""
    out, n = re.subn(pattern, repl, text, flags=re.MULTILINE)
    assert n == count, f"{pattern!r} matched {n} times in {SITE.name}, not {count}"
    return out


def local_site(nodes: list[str], http: int, https: int, cert: Path, key: Path) -> str:
    """The shipped site with this machine's nodes, ports and certificate, nothing else."""
    text = SITE.read_text()
    # Each node in place of one of the example's, with the parameters as shipped.
    example = r"^    server 10\.0\.0\.\d+:8000\b"
    assert len(re.findall(example, text, flags=re.MULTILINE)) == len(nodes), text
    for node in nodes:
        text = re.sub(example, f"    server {node}", text, count=1, flags=re.MULTILINE)
    text = _sub(r"^    listen \[::\]:\d+.*\n", "", text, 2)
    text = _sub(r"^    listen 80;", f"    listen 127.0.0.1:{http};", text, 1)
    text = _sub(r"^    listen 443 ssl;", f"    listen 127.0.0.1:{https} ssl;", text, 1)
    text = _sub(r"^(    ssl_certificate) +\S+;", rf"\g<1> {cert};", text, 1)
    return _sub(r"^(    ssl_certificate_key) \S+;", rf"\g<1> {key};", text, 1)


def main_conf(tmp: Path, workers: int | str = "auto") -> str:
    """What Debian's /etc/nginx/nginx.conf gives the site, with every path in ``tmp``: one worker
    process per core unless ``workers`` says how many."""
    user = "user root;\n" if os.geteuid() == 0 else ""  # else its workers could not use tmp
    temps = "".join(
        f"    {kind}_temp_path {tmp / kind};\n"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    return (
        f"{user}worker_processes {workers};\n"
        f"error_log {tmp / 'error.log'} warn;\npid {tmp / 'nginx.pid'};\n"
        "events { worker_connections 256; }\n"
        "http {\n"
        "    log_format upstreams '$msec $request_uri $status $upstream_addr';\n"
        f"    access_log {tmp / 'access.log'} upstreams;\n"
        f"{temps}"
        f"    include {tmp / 'tranque.conf'};\n"
        "}\n"
    )


@contextlib.contextmanager
def nginx(
    tmp: Path, nodes: list[str], workers: int | str = "auto"
) -> Iterator[tuple[int, int, Path]]:
    """nginx in the foreground on two free loopback ports: (http, https, its certificate)."""
    cert, key = tmp / "cert.pem", tmp / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-keyout", str(key), "-out", str(cert), "-days", "2", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, capture_output=True,
    )  # fmt: skip
    http, https = _free_port(), _free_port()
    (tmp / "tranque.conf").write_text(local_site(nodes, http, https, cert, key))
    (tmp / "nginx.conf").write_text(main_conf(tmp, workers))
    cmd = [NGINX, "-p", str(tmp), "-e", str(tmp / "error.log"), "-c", str(tmp / "nginx.conf")]
    proc = subprocess.Popen([*cmd, "-g", "daemon off;"], stderr=subprocess.PIPE, text=True)
    try:
        end = time.monotonic() + 20
        while True:  # listening once a connection is accepted
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", https), timeout=1).close()
                break
            if proc.poll() is not None or time.monotonic() > end:
                log = tmp / "error.log"
                raise AssertionError(
                    f"nginx did not start: {log.read_text() if log.exists() else ''}"
                )
            time.sleep(0.05)
        yield http, https, cert
    finally:
        proc.terminate()
        proc.communicate(timeout=15)


@pytest.fixture
def cluster(cluster_factory: Any) -> Cluster:
    """Two nodes of one cluster on a fresh database and the local Redis."""
    _need_nginx()  # before the nodes are started for nothing
    made: Cluster = cluster_factory(2, "--log-level", "info")
    return made


@pytest.fixture
def two_nodes(cluster: Cluster) -> list[str]:
    """The two nodes' addresses, as the upstream names them."""
    return [base.removeprefix("http://") for base in cluster.bases]


@pytest.mark.slow
def test_a_table_plays_through_nginx_over_two_nodes(
    tmp_path: Path, two_nodes: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "nginx"
    site.mkdir()
    with nginx(site, two_nodes) as (http, https, cert):
        # The clients (httpx, websockets) trust the test's certificate, and only through it.
        monkeypatch.setenv("SSL_CERT_FILE", str(cert))
        base = f"https://127.0.0.1:{https}"
        plain = httpx.get(f"http://127.0.0.1:{http}/api/stats", trust_env=False)
        assert plain.status_code == 301
        assert plain.headers["location"].startswith("https://127.0.0.1")
        assert httpx.get(f"{base}/healthz").status_code == 200

        async def go() -> dict[str, Any]:
            # A browser's socket from a page of this host: the node sees the host it came to.
            async with websockets.connect(f"wss://127.0.0.1:{https}/ws", origin=base) as ws:
                await ws.send('{"type": "ping", "id": "p"}')
                assert '"pong"' in await ws.recv()
            tid, clients = await seat_four(base, {"preset": "havana", "target": 30})
            await play_all(clients, timeout=240)
            record = await get_json(base, f"/api/tables/{tid}/record")
            scan_all(clients, record, at_least=GUARDED)
            for c in clients:
                assert not [e for e in c.errors if e["code"] != "stale"], c.errors
                await c.close()
            return dict(record)

        assert_verifies(asyncio.run(go()))
        # No stickiness: the four players' sockets (after the browser's) went to both nodes.
        log = (site / "access.log").read_text().splitlines()
        sockets = [line.split()[-1] for line in log if line.split()[1:3] == ["/ws", "101"]]
        assert len(sockets) == 5, log
        assert set(sockets[1:]) == set(two_nodes), sockets


# -- a node lost and a rolling restart, with four players on the two nodes ----------------------

LEASE_TTL = 5.0  # the nodes' --lease-ttl (the default): a killed owner's tables wait this long


class Player:
    """A person at the table through nginx, as the page does it: when the socket goes away it
    reconnects at once through nginx (with its ``last_seq``; its unanswered commands resent),
    and the moments it was back are kept."""

    def __init__(self, client: TableClient) -> None:
        self.c = client
        self.back: list[float] = []
        self.task = asyncio.create_task(self._stay())

    async def _stay(self) -> None:
        while True:
            await self.c.wait_for(lambda c: c.went_away, timeout=3600)
            await self.c.fail_over(90)
            self.back.append(time.monotonic())

    @property
    def online(self) -> bool:
        if self.task.done():
            self.task.result()  # a player who could not come back fails the test here
        reader = self.c._reader
        return reader is not None and not reader.done() and self.c.synced.is_set()

    def back_since(self, t: float) -> float | None:
        """Seconds from ``t`` to this player's first return after it, if it came back."""
        after = [b - t for b in self.back if b > t]
        return min(after) if after else None

    async def leave(self) -> None:
        await self.c.close()
        # Cancelled until it is: asyncio.wait_for (under the client's waits) may swallow a
        # cancellation that comes as its inner wait ends, and the task would wait on.
        while not self.task.done():
            self.task.cancel()
            await asyncio.wait({self.task}, timeout=0.1)


async def four_players(base: str) -> tuple[str, list[Player]]:
    """A table of four people, each seated through nginx (least_conn puts two on each node)."""
    guests = [await new_guest(base, f"p{s}") for s in range(4)]
    rules = {"preset": "havana", "target": 200}
    tid = (await create_table(base, guests[0]["token"], rules=rules, practice=False))["table"]
    players = []
    for s, g in enumerate(guests):
        # ``failover`` to nginx itself: a socket that goes away comes back through it.
        c = TableClient(base, g["token"], tid, failover=[base])
        await c.connect()
        if s:
            assert (await c.do({"type": "sit", "seat": s}))["type"] == "ack"
        players.append(Player(c))
    return tid, players


def decision(c: TableClient) -> dict[str, Any] | None:
    """What this seat owes the table now, if anything."""
    st = c.state
    if st.get("legal"):
        return {"type": "play", "seq": c.seq, "move": st["legal"][0]}
    if st.get("choosing"):
        return {"type": "choose", "seq": c.seq, "choice": "salgo"}
    if st.get("redeal"):
        return {"type": "redeal", "seq": c.seq, "ask": False}
    return None


async def table_plays(
    players: list[Player], timeout: float, since: float = 0.0, returned: int = 0
) -> float:
    """Once every player is online (and at least ``returned`` of them came back after
    ``since``), the one whose decision is due makes it: the moment all four have seen it
    (``time.monotonic()``)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        due = [(p, d) for p in players if p.online and (d := decision(p.c)) is not None]
        back = sum(p.back_since(since) is not None for p in players)
        if due and all(p.online for p in players) and back >= returned:
            p, d = due[0]
            with contextlib.suppress(ConnectionError, TimeoutError):
                reply = await p.c.command(d, timeout=1.0)
                if reply["type"] == "ack":
                    seq = reply["seq"]
                    left = max(0.1, end - time.monotonic())
                    await asyncio.gather(
                        *(q.c.wait_for(lambda c, s=seq: c.seq >= s, left) for q in players)
                    )
                    return time.monotonic()
            continue  # refused (the position moved on), or the socket went: look again
        await asyncio.sleep(0.05)
    seen = [
        {"online": p.online, "closed": p.c.closed_code, "back": p.back_since(since),
         "due": decision(p.c), "seq": p.c.seq, "errors": p.c.errors[-3:]}
        for p in players
    ]  # fmt: skip
    raise TimeoutError(f"the table did not play on within {timeout} s: {seen}")


def kill9(node: ServerProcess) -> None:
    """``kill -9`` of the node, and our end of its output closed: its bot workers, which hold
    the other end until they see their parent gone, may outlive ``kill9``'s wait for them."""
    proc = node.proc
    node.kill9()
    if proc is not None and proc.stdout is not None:
        proc.stdout.close()


async def ready(node: ServerProcess, timeout: float = 30) -> None:
    """Wait until the node's own ``/healthz`` says ready."""
    end = time.monotonic() + timeout
    async with httpx.AsyncClient(base_url=node.base, timeout=2, trust_env=False) as http:
        while True:
            with contextlib.suppress(httpx.HTTPError):
                if (await http.get("/healthz")).status_code == 200:
                    return
            assert time.monotonic() < end, f"{node.base} not ready within {timeout} s"
            await asyncio.sleep(0.1)


async def owner_of(pg_url: str, tid: str, cluster: Cluster) -> int:
    """The index in ``cluster.nodes`` of the node that holds the table's lease."""
    con = await asyncpg.connect(pg_url)
    try:
        node = await con.fetchval("SELECT node FROM leases WHERE table_id = $1", tid)
    finally:
        await con.close()
    names = [n.extra[n.extra.index("--node") + 1] for n in cluster.nodes]
    return names.index(node)


async def newcomers(base: str, n: int, stack: contextlib.AsyncExitStack) -> list[int]:
    """``n`` browsers opening a socket through nginx one after the other, kept open (they stay,
    as a lobby's would): the status of each upgrade (101, or what nginx answered)."""
    wss = base.replace("https", "wss", 1) + "/ws"
    statuses = []
    for _ in range(n):
        try:
            await stack.enter_async_context(websockets.connect(wss, origin=base))
            statuses.append(101)
        except websockets.InvalidStatus as exc:
            statuses.append(exc.response.status_code)
    return statuses


def upgrades(log: Path, since: float) -> dict[int, int]:
    """The statuses nginx gave upgrades to ``/ws`` that ended after ``since`` (a wall time)."""
    counts: dict[int, int] = {}
    for line in log.read_text().splitlines():
        at, uri, status = line.split()[:3]
        if uri == "/ws" and float(at) >= since:
            counts[int(status)] = counts.get(int(status), 0) + 1
    return counts


# One worker, or two: each worker keeps its own view of the nodes unless the upstream has a zone
# (one worker shows a lockout every time; with two it comes and goes with the worker that
# accepts each connection).
@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_a_rolling_restart_through_nginx_keeps_every_player(
    tmp_path: Path,
    cluster: Cluster,
    pg_url: str,
    monkeypatch: pytest.MonkeyPatch,
    workers: int,
) -> None:
    """The operator's rolling restart: the node that does not own the table is lost (kill -9)
    and started again; once it is ready the owner is stopped (SIGTERM). Every player is back,
    and the table plays on, within 3 s of the SIGTERM; no upgrade gets a 502 once both nodes
    are ready."""
    site = tmp_path / "nginx"
    site.mkdir()
    nodes = [base.removeprefix("http://") for base in cluster.bases]
    with nginx(site, nodes, workers) as (_, https, cert):
        monkeypatch.setenv("SSL_CERT_FILE", str(cert))
        base = f"https://127.0.0.1:{https}"
        figures: dict[str, Any] = {}

        async def go() -> float:
            tid, players = await four_players(base)
            await table_plays(players, 60)
            owner = cluster.nodes[await owner_of(pg_url, tid, cluster)]
            other = next(n for n in cluster.nodes if n is not owner)
            # 1. The other node is lost: its two players come back through nginx to the owner.
            port = other.port
            lost = time.monotonic()
            await asyncio.to_thread(kill9, other)
            played = await table_plays(players, 60, since=lost, returned=2)
            figures["kill_back_s"] = [p.back_since(lost) for p in players]
            figures["kill_plays_on_s"] = round(played - lost, 2)
            assert sorted(p.back_since(lost) is not None for p in players) == [0, 0, 1, 1]
            # 2. It starts again, on its port, and says it is ready.
            await asyncio.to_thread(other.start, port)
            await ready(other)
            both_ready = time.time()
            async with contextlib.AsyncExitStack() as stack:
                # 3. Newcomers open sockets that stay: each must get in.
                figures["newcomers"] = await newcomers(base, 4, stack)
                # 4. The owner is stopped: everyone reconnects, to the node that came back.
                assert owner.proc is not None
                owner.proc.terminate()
                stopped = time.monotonic()
                played = await table_plays(players, 45, since=stopped, returned=4)
                figures["sigterm_back_s"] = [p.back_since(stopped) for p in players]
                figures["sigterm_plays_on_s"] = round(played - stopped, 2)
                assert await asyncio.to_thread(owner.proc.wait, 30) in (0, -signal.SIGTERM)
                assert "Traceback" not in owner.errors()
            for p in players:
                await p.leave()
            return both_ready

        both_ready = asyncio.run(go())
        figures["upgrades_since_both_ready"] = upgrades(site / "access.log", both_ready)
        print(f"rolling restart through nginx: {figures}")
        assert figures["newcomers"] == [101] * 4, figures
        assert 502 not in figures["upgrades_since_both_ready"], figures
        assert all(b is not None and b <= 3.0 for b in figures["sigterm_back_s"]), figures
        assert figures["sigterm_plays_on_s"] <= 3.0, figures


@pytest.mark.slow
def test_kill_9_of_the_owner_through_nginx_every_player_back_within_the_lease(
    tmp_path: Path, cluster: Cluster, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table's owner dies: its lease runs out, the other node takes the table, and every
    player, through nginx, is back at a table that plays on within the lease time plus 2 s."""
    site = tmp_path / "nginx"
    site.mkdir()
    nodes = [base.removeprefix("http://") for base in cluster.bases]
    with nginx(site, nodes) as (_, https, cert):
        monkeypatch.setenv("SSL_CERT_FILE", str(cert))
        base = f"https://127.0.0.1:{https}"
        figures: dict[str, Any] = {}

        async def go() -> None:
            tid, players = await four_players(base)
            await table_plays(players, 60)
            owner = cluster.nodes[await owner_of(pg_url, tid, cluster)]
            killed = time.monotonic()
            await asyncio.to_thread(kill9, owner)
            played = await table_plays(players, 30, since=killed, returned=2)
            figures["back_s"] = [p.back_since(killed) for p in players]
            figures["plays_on_s"] = round(played - killed, 2)
            for p in players:
                await p.leave()

        asyncio.run(go())
        print(f"kill -9 of the owner through nginx: {figures}")
        assert all(b is not None for b in figures["back_s"]), figures
        assert figures["plays_on_s"] <= LEASE_TTL + 2, figures


# -- the node's side: a stopping node refuses new sockets before it hands its tables over ------


async def exchange(
    conn: tuple[asyncio.StreamReader, asyncio.StreamWriter], request: str
) -> tuple[int, bytes]:
    """One request on a connection kept open (as nginx keeps its own to each node): the
    status and the body."""
    reader, writer = conn
    writer.write(request.encode())
    await writer.drain()
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    length = re.search(rb"(?im)^content-length: *(\d+)", head)
    body = await reader.readexactly(int(length.group(1))) if length else b""
    return int(head.split()[1]), body


GET = "GET {} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
UPGRADE = (
    "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)


@pytest.mark.slow
def test_a_stopping_node_answers_503_to_upgrades_and_healthz_while_it_hands_over(
    cluster_factory: Any, pg_url: str
) -> None:
    """From the first moment of a SIGTERM, and all through the hand-over of its tables, a node
    answers ``/healthz`` 503 (``stopping``) and a socket's upgrade 503, on the connections a
    balancer already has open to it (its listening socket is closed): nginx asks the next node
    rather than sending a player to a table this node is giving away. The hand-over is held
    open here by a lock on the table's lease, which the node releases last."""
    node = cluster_factory(1).nodes[0]

    async def go() -> None:
        host = await new_guest(node.base, "host")
        tid = (await create_table(node.base, host["token"], practice=False))["table"]
        kept = [await asyncio.open_connection("127.0.0.1", node.port) for _ in range(2)]
        for conn in kept:
            assert (await exchange(conn, GET.format("/healthz")))[0] == 200
        locker = await asyncpg.connect(pg_url)
        hold = locker.transaction()
        await hold.start()
        await locker.execute("SELECT 1 FROM leases WHERE table_id = $1 FOR UPDATE", tid)
        assert node.proc is not None
        node.proc.terminate()
        try:
            end = time.monotonic() + 10
            while True:
                status, body = await exchange(kept[0], GET.format("/healthz"))
                if status == 503:
                    assert "stopping" in json.loads(body)["problems"], body
                    break
                assert time.monotonic() < end, "/healthz still said ready 10 s after SIGTERM"
                await asyncio.sleep(0.05)
            status, body = await exchange(kept[1], UPGRADE)
            assert status == 503, (status, body)
            assert json.loads(body)["code"] == "stopping"
            assert node.proc.poll() is None  # still handing over: the lease is held
        finally:
            await hold.rollback()
            await locker.close()
            for _, writer in kept:
                writer.close()
        assert await asyncio.to_thread(node.proc.wait, 30) in (0, -signal.SIGTERM)

    asyncio.run(go())
    assert "Traceback" not in node.errors()
