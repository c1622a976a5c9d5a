"""The nginx example (``deploy/nginx/tranque.conf``), run by a real nginx in front of two nodes.

The site file is used as it is shipped, with only what names this machine put in: the two
nodes in its upstream, loopback ports for its two servers, and a certificate made for the test.
A table of four people plays a game through it over TLS, its sockets spread over both nodes.
Under ``CI`` a missing nginx, PostgreSQL or Redis fails the test; elsewhere it is skipped.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from frame_scanner import scan_all
from test_server_e2e import GUARDED, assert_verifies, play_all, seat_four

from tranque.client import get_json

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
    servers = "".join(f"    server {n} max_fails=1 fail_timeout=5s;\n" for n in nodes)
    text = _sub(r"^    server 10\.0\.0\.\d+:8000 .*;\n", "", text, 2)
    text = _sub(r"^(    least_conn;\n)", r"\g<1>" + servers, text, 1)
    text = _sub(r"^    listen \[::\]:\d+.*\n", "", text, 2)
    text = _sub(r"^    listen 80;", f"    listen 127.0.0.1:{http};", text, 1)
    text = _sub(r"^    listen 443 ssl;", f"    listen 127.0.0.1:{https} ssl;", text, 1)
    text = _sub(r"^(    ssl_certificate) +\S+;", rf"\g<1> {cert};", text, 1)
    return _sub(r"^(    ssl_certificate_key) \S+;", rf"\g<1> {key};", text, 1)


def main_conf(tmp: Path) -> str:
    """What Debian's /etc/nginx/nginx.conf gives the site, with every path in ``tmp``."""
    user = "user root;\n" if os.geteuid() == 0 else ""  # else its workers could not use tmp
    temps = "".join(
        f"    {kind}_temp_path {tmp / kind};\n"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    return (
        f"{user}error_log {tmp / 'error.log'} warn;\npid {tmp / 'nginx.pid'};\n"
        "events { worker_connections 256; }\n"
        "http {\n"
        "    log_format upstreams '$request_uri $status $upstream_addr';\n"
        f"    access_log {tmp / 'access.log'} upstreams;\n"
        f"{temps}"
        f"    include {tmp / 'tranque.conf'};\n"
        "}\n"
    )


@contextlib.contextmanager
def nginx(tmp: Path, nodes: list[str]) -> Iterator[tuple[int, int, Path]]:
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
    (tmp / "nginx.conf").write_text(main_conf(tmp))
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
def two_nodes(cluster_factory: Any) -> list[str]:
    """Two nodes of one cluster on a fresh database and the local Redis: their addresses."""
    _need_nginx()  # before the nodes are started for nothing
    return [base.removeprefix("http://") for base in cluster_factory(2).bases]


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
        sockets = [line.split()[-1] for line in log if line.startswith("/ws 101 ")]
        assert len(sockets) == 5, log
        assert set(sockets[1:]) == set(two_nodes), sockets
