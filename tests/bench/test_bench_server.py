"""``tranque bench server`` measures once the workers are warm, and its tables keep their pace."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tranque.bench.load import new_stats
from tranque.bench.player import TableRun
from tranque.bench.server import wait_for_workers
from tranque.commandline import CommandError


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


@pytest.mark.parametrize(
    ("at", "then"),
    [
        (100.0, 101.0),  # on time: the next tick
        (100.4, 101.0),  # a little late: still the next tick, not a second after the move
        (102.3, 103.0),  # after a pause of two ticks and more: the first tick after the move
        (103.0, 104.0),  # exactly on a later tick: the one after it
    ],
)
def test_a_table_keeps_its_own_tick_after_a_late_move(at: float, then: float) -> None:
    run = TableRun(1.0, new_stats())
    run.next_at = 100.0  # this move's tick
    assert run.tick_after(at) == pytest.approx(then)


def test_late_tables_do_not_fall_in_step() -> None:
    """Tables held up by the same slow stretch keep their own points of the second."""
    runs = [TableRun(2.0, new_stats()) for _ in range(4)]
    for i, run in enumerate(runs):
        run.next_at = 10.0 + i * 0.1  # ticks at .0, .1, .2, .3 of each half-second
    late = 11.25  # all four answered at once, after the server was busy for a while
    nexts = [run.tick_after(late) for run in runs]
    assert nexts == pytest.approx([11.5, 11.6, 11.7, 11.3])


@pytest.mark.parametrize(
    ("rate", "spread", "span"),
    [(1.0, 0.0, 1.0), (1.0, 40.0, 40.0), (4.0, 0.1, 0.25), (0.0, 10.0, 10.0)],
)
def test_first_moves_are_spread_over_the_start(rate: float, spread: float, span: float) -> None:
    """Each table's first move at its own moment of the span (the spread, or a tick at a rate):
    every tenth of the span gets some of 2,000 tables, none falls outside it."""
    runs = [TableRun(rate, new_stats()) for _ in range(2000)]
    firsts = [run.first_at(500.0, spread) for run in runs]
    assert all(500.0 <= t < 500.0 + span for t in firsts)
    tenths = {int((t - 500.0) / span * 10) for t in firsts}
    assert tenths == set(range(10))


def test_a_flat_out_table_without_spread_starts_at_once() -> None:
    assert TableRun(0.0, new_stats()).first_at(7.0, 0.0) == 7.0
