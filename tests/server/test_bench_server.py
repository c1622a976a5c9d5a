"""``tranque bench server`` measures only once the server's bot workers are warm."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tranque.commands import CommandError
from tranque.server.bench import wait_for_workers


class _Health(BaseHTTPRequestHandler):
    """``/health`` of a server whose two workers become ready at the third and fifth look."""

    looks = 0

    def do_GET(self) -> None:
        type(self).looks += 1
        ready = 0 if self.looks < 3 else 1 if self.looks < 5 else 2
        body = {"ok": True, "workers": {"workers": 2, "ready": ready}}
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def health() -> Iterator[tuple[str, type[_Health]]]:
    handler = type("Health", (_Health,), {"looks": 0})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", handler
    httpd.shutdown()
    httpd.server_close()


def test_the_bench_waits_until_every_worker_is_ready(health: tuple[str, type[_Health]]) -> None:
    base, handler = health
    wait_for_workers(base)
    assert handler.looks == 5  # it asked until both were ready, and no more


def test_workers_that_never_warm_up_are_an_error(health: tuple[str, type[_Health]]) -> None:
    base, handler = health
    with pytest.raises(CommandError, match="not warm after"):
        wait_for_workers(base, timeout=0.1)
    assert handler.looks < 5
