"""``tranque bench cluster``: N nodes on PostgreSQL and Redis, and tables spread over them.

Each run makes its own PostgreSQL database on the server ``--db`` names and drops it at the end;
with more than one node it also claims an empty Redis database (one with no key, marked with a
key of its own at once, so two benches never share one) and flushes it at the end: nothing of
anyone else's is ever touched. The nodes are ``tranque serve --db ... --redis ... --port P --node
nodeI`` processes (one node runs without ``--redis``, as a single server does); the tables of four
people are the load process's (``bench.cluster_load``), spread so that every table has
recipients on several nodes.

Without ``--kill-every`` the same load is first run on one node, then on N, in the same
invocation: the CPU per move with recipients across nodes is compared with one node's on the
same machine at the same moment, the only comparison a shared machine allows. With
``--kill-every S`` a random node is killed (SIGKILL, its bot workers with it) every S seconds
and started again on its port; the load process is told which tables it owned, and reports how
long each took to move again.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tranque.bench.nodes import (
    Killer,
    Node,
    claimed_redis,
    fresh_database,
    own_cpu,
    pg,
    ping_redis,
    planned_kills,
)
from tranque.commandline import BUS_LINGER_MS, CommandError

CPU_PER_MOVE_BAR = 1.25  # the cluster's CPU per move over one node's, at most (issue 11)


def register(bench: Any) -> None:
    """``bench cluster`` under the ``bench`` command's subparsers."""
    sc = bench.add_parser(
        "cluster",
        help="N nodes on PostgreSQL and Redis, T tables of four spread over them",
        description="Start N nodes on a fresh PostgreSQL database (and a Redis one) and T tables "
        "of 4 clients whose seats are on different nodes; then the same on one node, to compare. "
        "With --kill-every, kill a random node every S seconds and start it again.",
    )
    sc.add_argument("--nodes", type=int, required=True, metavar="N")
    sc.add_argument("--tables", type=int, required=True, metavar="T")
    sc.add_argument(
        "--rate", type=float, default=1.0, metavar="R", help="moves/s per table (1; 0: flat out)"
    )
    sc.add_argument(
        "--kill-every",
        type=float,
        default=None,
        metavar="S",
        help="SIGKILL a random node every S seconds short of --seconds and restart it (the "
        "measure lasts until the last one is back); reports takeovers, games finished and "
        "events lost (no one-node run then)",
    )
    sc.add_argument("--seconds", type=float, default=20.0, help="measuring time (20)")
    sc.add_argument("--warmup", type=float, default=3.0, help="seconds before measuring (3)")
    sc.add_argument("--workers", type=int, default=1, help="bot workers per node (1)")
    sc.add_argument(
        "--rounds",
        type=int,
        default=1,
        metavar="K",
        help="the one-node run and the N-node run K times, in turn; the ratio is the median of "
        "the K rounds' (1). On a shared machine one pair of runs can be a fifth apart by noise",
    )
    sc.add_argument(
        "--bus-linger",
        type=float,
        default=None,
        metavar="MS",
        help="the nodes' --bus-linger (default: theirs, 5 ms)",
    )
    sc.add_argument(
        "--db",
        default="postgresql://postgres@127.0.0.1:5432/postgres",
        help="a PostgreSQL database to connect to; each run makes its own database beside it and "
        "drops it (postgresql://postgres@127.0.0.1:5432/postgres)",
    )
    sc.add_argument(
        "--redis",
        default="redis://127.0.0.1:6379",
        help="the Redis server; with a /K path, database K (it must be empty), else the first "
        "empty one from 15 down (redis://127.0.0.1:6379)",
    )
    sc.add_argument("--json", action="store_true", help="print the figures as JSON")
    sc.set_defaults(func=run_cluster)


def _check(args: argparse.Namespace) -> None:
    if not 1 <= args.nodes <= 16:
        raise CommandError(f"--nodes must be 1 to 16, not {args.nodes}")
    if args.tables < 1:
        raise CommandError(f"--tables must be at least 1, not {args.tables}")
    if args.rate < 0:
        raise CommandError(f"--rate must be 0 (flat out) or more, not {args.rate:g}")
    if not 0 < args.seconds <= 3600 or not 0 <= args.warmup <= 600:
        raise CommandError("--seconds must be more than 0 (at most 3600), --warmup 0 to 600")
    if args.kill_every is not None and not 0 < args.kill_every < args.seconds:
        raise CommandError(
            f"--kill-every must be more than 0 and less than --seconds ({args.seconds:g}), "
            f"or no node is ever killed; not {args.kill_every:g}"
        )
    if not 1 <= args.rounds <= 20:
        raise CommandError(f"--rounds must be 1 to 20, not {args.rounds}")
    if args.rounds > 1 and (args.nodes == 1 or args.kill_every is not None):
        raise CommandError("--rounds compares one node with --nodes N > 1, without --kill-every")
    if args.workers < 1:
        raise CommandError(f"--workers must be at least 1, not {args.workers}")
    if args.bus_linger is not None and not 0 <= args.bus_linger <= 50:
        raise CommandError(f"--bus-linger must be 0 to 50 (ms), not {args.bus_linger:g}")
    if urlsplit(args.db).scheme not in ("postgresql", "postgres"):
        raise CommandError(f"--db is a postgresql:// URL, not {args.db!r}")
    redis = urlsplit(args.redis)
    if redis.scheme != "redis" or not (redis.path.strip("/") or "0").isdigit():
        raise CommandError(f"--redis is redis://HOST:PORT[/K], not {args.redis!r}")


# -- one run ----------------------------------------------------------------------------------


def _run(n: int, args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    """The load on ``n`` nodes, on a database of its own: its figures."""
    import psutil

    from tranque.bench.server import stop_process

    kill = args.kill_every is not None
    pass_delay = 0.0 if args.rate <= 0 else round(1.0 / args.rate, 3)
    common = ["--pass-delay", str(pass_delay), "--bot-delay", "0", "--between-hands", "0"]
    common += ["--grace", "600", "--workers", str(args.workers)]
    result: dict[str, Any] = {"nodes": n}
    with contextlib.ExitStack() as stack:
        db, name = stack.enter_context(fresh_database(args.db))
        if n > 1:
            result["redis"] = stack.enter_context(claimed_redis(args.redis))
            common += ["--redis", result["redis"]]
            if args.bus_linger is not None:
                common += ["--bus-linger", f"{args.bus_linger:g}"]
        nodes = []
        for i in range(n):
            extra = [*common, "--node", f"node{i + 1}"] if n > 1 else common
            nodes.append(Node(f"node{i + 1}", db, extra, tmp / f"n{n}-node{i + 1}.log"))
        load: subprocess.Popen[str] | None = None
        killer: Killer | None = None
        try:
            for node in nodes:
                node.start()
            from tranque.bench.server import wait_for_workers

            for node in nodes:  # before any measure (a restarted node's warm-up is part of it)
                wait_for_workers(node.base)
            plan = {
                "bases": [node.base for node in nodes],
                "tables": args.tables,
                "rate": args.rate,
                "seconds": args.seconds,
                "warmup": args.warmup,
                "kill": kill,
            }
            code = "from tranque.bench.cluster_load import main; main()"
            load = subprocess.Popen(
                [sys.executable, "-c", code, json.dumps(plan)],
                stdin=subprocess.PIPE if kill else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                text=True,
            )
            assert load.stdout is not None
            lproc = psutil.Process(load.pid)
            lcpu0 = t0 = 0.0
            for line in load.stdout:
                msg = json.loads(line)
                if msg.get("phase") == "measuring":
                    for node in nodes:
                        node.measure_from_now()
                    lcpu0, t0 = own_cpu(lproc), time.perf_counter()
                    if kill:
                        kills = planned_kills(args.seconds, args.kill_every)
                        killer = Killer(nodes, args.kill_every, kills, db, load)
                        killer.start()
                elif msg.get("phase") == "done" and t0:
                    wall = time.perf_counter() - t0
                    if killer is not None:
                        killer.finish()
                    result["node_cpu_seconds"] = {node.name: node.cpu() for node in nodes}
                    result["clients_cpu_seconds"] = own_cpu(lproc) - lcpu0
                    result["wall"] = wall
                elif "result" in msg:
                    result.update(msg["result"])
            if load.wait(timeout=60) != 0 or "moves_per_second" not in result:
                raise CommandError(f"the load process failed on {n} node(s): see its errors above")
        finally:
            if killer is not None and killer.is_alive():
                killer.halt.set()
                killer.join()
            stop_process(load)
            for node in nodes:
                node.stop()
    if killer is not None:
        result["kills"] = len(killer.owned)
        result["tables_owned_by_the_killed"] = killer.owned
        result["node_restart_s_max"] = round(max(killer.restarts, default=0.0), 2)
    result["database"] = name
    return _per_move(result)


def _per_move(result: dict[str, Any]) -> dict[str, Any]:
    """CPU as percent of a core and as milliseconds per move, for each node and the load."""
    wall = result.pop("wall")
    nodes: dict[str, float] = result.pop("node_cpu_seconds")
    clients = result.pop("clients_cpu_seconds")
    moves = result["moves_per_second"] * wall
    per_move = 1000 / moves if moves else 0.0
    result["node_cpu_percent"] = {k: round(100 * v / wall, 1) for k, v in nodes.items()}
    result["node_cpu_ms_per_move"] = {k: round(v * per_move, 3) for k, v in nodes.items()}
    result["nodes_cpu_ms_per_move"] = round(sum(nodes.values()) * per_move, 3)
    result["clients_cpu_percent"] = round(100 * clients / wall, 1)
    result["clients_cpu_ms_per_move"] = round(clients * per_move, 3)
    return result


def _terminated(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)


def run_cluster(args: argparse.Namespace) -> int:
    from tranque.commandline import print_figures

    _check(args)
    for module, extra in (("psutil", "dev"), ("asyncpg", "cluster"), ("redis", "cluster")):
        try:
            __import__(module)
        except ModuleNotFoundError:
            raise CommandError(f"bench cluster needs {module}: install the {extra} extra") from None
    # A SIGTERM unwinds like Ctrl-C: the nodes are stopped and the databases dropped on the way.
    signal.signal(signal.SIGTERM, _terminated)
    # Both there before anything starts, rather than after the first run.
    pg(args.db, "SELECT 1")
    if args.nodes > 1:
        ping_redis(args.redis)
    # One node first, to compare with (not with --kill-every: that run is about takeovers);
    # with rounds, one node and N nodes in turn, so that a slow spell of the machine falls on
    # both sides of some ratio rather than on one side of the only one.
    alone = args.nodes == 1 or args.kill_every is not None
    counts = [args.nodes] if alone else [1, args.nodes] * args.rounds
    with tempfile.TemporaryDirectory(prefix="tranque-bench-cluster-") as tmp:
        runs = [_run(n, args, Path(tmp)) for n in counts]
    result: dict[str, Any] = {
        "tables": args.tables,
        "rate_per_table": args.rate or "flat out",
        "seconds": args.seconds,
        "kill_every": args.kill_every,
        "bus_linger_ms": BUS_LINGER_MS if args.bus_linger is None else args.bus_linger,
        "cores": os.cpu_count(),
        "runs": runs,
    }
    if not alone:
        ratios = [
            round(two["nodes_cpu_ms_per_move"] / one["nodes_cpu_ms_per_move"], 3)
            for one, two in zip(runs[::2], runs[1::2], strict=True)
            if one["nodes_cpu_ms_per_move"]
        ]
        if ratios:
            result["cpu_per_move_ratio"] = statistics.median(ratios)
            result["cpu_per_move_bar"] = CPU_PER_MOVE_BAR
            if args.rounds > 1:
                result["cpu_per_move_ratios"] = ratios
    if args.json:
        print_figures(result, True)
        return 0
    # One ``name value`` line each: every run's figures under its prefix (n1_, n2_, ...).
    flat = {
        f"n{run['nodes']}_{k}{_round(i, args.rounds)}": v
        for i, run in enumerate(runs)
        for k, v in run.items()
        if k != "nodes"
    }
    flat.update((k, v) for k, v in result.items() if k != "runs")
    print_figures(flat, False)
    return 0


def _round(i: int, rounds: int) -> str:
    """The suffix of the ``i``-th run's lines when there are several rounds (``_r2``: the
    second round's); none with one round, as before."""
    return f"_r{i // 2 + 1}" if rounds > 1 else ""
