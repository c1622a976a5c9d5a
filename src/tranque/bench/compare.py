"""``tranque bench compare``: tranque's server CPU per move beside a bare relay's, in one sitting.

Why a ratio: the absolute CPU a move costs depends on the machine and on who else is using it,
so a figure measured on one day cannot be held against a figure measured on another. A bare
relay on the same stack (uvicorn, the same WebSocket implementation, uvloop, msgspec, SQLite in
WAL mode with group commit, rooms of four, a frame per recipient and an ack) is the floor under
what a durable move can cost; the ratio of tranque's CPU per move to the relay's, both measured
in the same sitting, alternating, moves with the code and hardly with the machine.

The relay is not part of the product and is never imported: it is an outside program (its
``bench.py relay`` prints one JSON object with the same figure names as ``tranque bench server
--json``), run as a subprocess from the folder ``--relay`` (or ``TRANQUE_RELAY``) names; it
lives outside this repository, so there is no default: without it, or without its ``bench.py``,
the command says so and stops.

Each round runs tranque, then the relay (or the relay first on odd rounds, so that neither
always follows the other); before each run it may wait until the machine's 1-minute load
average is under ``--max-load``. Printed: every run's figures, then per kind the medians, and
the ratio of the CPU per move (median of the per-round ratios, with their lowest and highest).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tranque.commandline import CommandError

# What one kind of run measures: flat out (60 tables, every player moves the moment his turn
# comes) or at a fixed rate (2,000 tables, one move a second each, their starts spread).
KINDS: dict[str, dict[str, float]] = {
    "flat": {"tables": 60, "rate": 0.0, "seconds": 15.0, "warmup": 3.0, "spread": 0.0},
    "slow": {"tables": 2000, "rate": 1.0, "seconds": 30.0, "warmup": 10.0, "spread": 40.0},
}
FIGURES = (
    "moves_per_second",
    "latency_ms_p50",
    "latency_ms_p99",
    "server_cpu_percent",
    "server_cpu_ms_per_move",
)


def relay_folder(given: str | None) -> Path:
    """The relay's folder: ``--relay``, else ``TRANQUE_RELAY``; a typed error without either,
    or when the folder has no ``bench.py``."""
    where = given or os.environ.get("TRANQUE_RELAY")
    if not where:
        raise CommandError(
            "the reference relay is an outside program: give its folder with --relay DIR "
            "(or TRANQUE_RELAY)"
        )
    relay = Path(where).resolve()
    if not (relay / "bench.py").is_file():
        raise CommandError(
            f"the reference relay is missing: no bench.py in {relay} "
            "(give its folder with --relay DIR)"
        )
    return relay


def register(bench: Any) -> None:
    cmp = bench.add_parser(
        "compare",
        help="tranque's server CPU per move beside a bare relay's, in one sitting",
        description="Run `tranque bench server` and the reference relay's benchmark alternately, "
        "N rounds, and print each one's server CPU per move, the ratio (median, lowest, highest) "
        "and the delivery latency. The relay runs as a subprocess from --relay.",
    )
    cmp.add_argument("--rounds", type=int, default=3, metavar="N", help="rounds per kind (3)")
    cmp.add_argument(
        "--kind",
        action="append",
        choices=sorted(KINDS),
        default=None,
        help="flat (60 tables flat out) and/or slow (2,000 tables at 1 move/s); repeatable "
        "(flat). --tables/--rate/... override the kind's figures",
    )
    cmp.add_argument("--tables", type=int, default=None, metavar="N")
    cmp.add_argument("--rate", type=float, default=None, metavar="R", help="moves/s per table")
    cmp.add_argument("--seconds", type=float, default=None, help="measuring time")
    cmp.add_argument("--warmup", type=float, default=None, help="seconds before measuring")
    cmp.add_argument("--spread", type=float, default=None, help="table starts within S seconds")
    cmp.add_argument(
        "--relay",
        default=None,
        metavar="DIR",
        help="the reference relay's folder, with its bench.py (else TRANQUE_RELAY)",
    )
    cmp.add_argument(
        "--max-load",
        type=float,
        default=1.5,
        metavar="L",
        help="before each run wait until the 1-minute load average is under L (1.5; 0: never)",
    )
    cmp.add_argument(
        "--max-wait",
        type=float,
        default=300.0,
        metavar="S",
        help="wait at most S seconds for that; a run that went ahead anyway is marked ! (300)",
    )
    cmp.add_argument("--out", default=None, metavar="FILE", help="append every run's JSON to FILE")
    cmp.add_argument("--json", action="store_true", help="print the summary as JSON")
    cmp.set_defaults(func=run_compare)


def _load1() -> float:
    try:
        return float(Path("/proc/loadavg").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0.0


def _wait_quiet(below: float, limit: float) -> tuple[float, bool]:
    """Wait (polling every 10 s) until the 1-minute load is under ``below``: its last value and
    whether it got there. The machine is shared: a run beside someone else's job measures both."""
    t0 = time.monotonic()
    while True:
        now = _load1()
        if below <= 0 or now < below:
            return now, True
        if time.monotonic() - t0 >= limit:
            return now, False
        print(f"  (load {now:.2f}: waiting)", file=sys.stderr, flush=True)
        time.sleep(10)


def _plan_args(plan: dict[str, float]) -> list[str]:
    argv = ["--tables", str(int(plan["tables"])), "--rate", f"{plan['rate']:g}"]
    argv += ["--seconds", f"{plan['seconds']:g}", "--warmup", f"{plan['warmup']:g}"]
    if plan["spread"]:
        argv += ["--spread", f"{plan['spread']:g}"]
    return argv


def _run_json(cmd: list[str], cwd: Path | None = None) -> dict[str, Any]:
    """Run one benchmark and read the JSON object it prints last; its error on failure."""
    res = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    out = res.stdout
    start = out.find("{")
    if res.returncode != 0 or start < 0:
        return {"failed": (res.stderr or out)[-1500:]}
    try:
        parsed: dict[str, Any] = json.loads(out[start:])
    except json.JSONDecodeError:
        # the relay prints one line; tranque an indented object: the last line that parses
        for line in reversed(out.splitlines()):
            try:
                parsed = json.loads(line)
                break
            except json.JSONDecodeError:
                continue
        else:
            return {"failed": out[-1500:]}
    return parsed


def _one(
    server: str, plan: dict[str, float], relay: Path, args: argparse.Namespace
) -> dict[str, Any]:
    load_before, quiet = _wait_quiet(args.max_load, args.max_wait)
    t0 = time.time()
    if server == "tranque":
        cmd = [sys.executable, "-m", "tranque.cli", "bench", "server", *_plan_args(plan), "--json"]
        row = _run_json(cmd)
    else:
        row = _run_json(
            [sys.executable, str(relay / "bench.py"), "relay", *_plan_args(plan)], relay
        )
    row.update(
        label=server,
        load_before=load_before,
        quiet=quiet,
        load_after=_load1(),
        started=time.strftime("%H:%M:%S", time.gmtime(t0)),
        wall_seconds=round(time.time() - t0, 1),
    )
    return row


def _median(rows: list[dict[str, Any]], key: str) -> float | None:
    vals = [r[key] for r in rows if isinstance(r.get(key), (int, float))]
    return round(statistics.median(vals), 3) if vals else None


def _line(kind: str, i: int, row: dict[str, Any]) -> str:
    if "failed" in row:
        return f"  {kind:5} round {i + 1} {row['label']:8} FAILED: {row['failed'][-300:]}"
    mark = "" if row["quiet"] else " !"
    figs = "  ".join(f"{k} {row.get(k)}" for k in FIGURES)
    return (
        f"  {kind:5} round {i + 1} {row['label']:8} {figs}  "
        f"load {row['load_before']:.2f}->{row['load_after']:.2f}{mark}"
    )


def summarise(kind: str, rounds: list[dict[str, dict[str, Any]]]) -> dict[str, Any]:
    """Medians of each server's figures and the ratio of the CPU per move: per round (tranque ÷
    the relay of the same round), then their median, lowest and highest."""
    out: dict[str, Any] = {"kind": kind, "rounds": len(rounds)}
    for server in ("tranque", "relay"):
        rows = [r[server] for r in rounds if server in r]
        out[server] = {k: _median(rows, k) for k in FIGURES}
    ratios = []
    for r in rounds:
        a = r.get("tranque", {}).get("server_cpu_ms_per_move")
        b = r.get("relay", {}).get("server_cpu_ms_per_move")
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) and b > 0:
            ratios.append(round(a / b, 2))
    out["ratio_per_round"] = ratios
    if ratios:
        out["ratio_median"] = round(statistics.median(ratios), 2)
        out["ratio_low"], out["ratio_high"] = min(ratios), max(ratios)
    return out


def run_compare(args: argparse.Namespace) -> int:
    relay = relay_folder(args.relay)
    if args.rounds < 1:
        raise CommandError(f"--rounds must be 1 or more, not {args.rounds}")
    kinds = args.kind or ["flat"]
    summaries = []
    for kind in kinds:
        plan = dict(KINDS[kind])
        for key in ("tables", "rate", "seconds", "warmup", "spread"):
            if getattr(args, key) is not None:
                plan[key] = float(getattr(args, key))
        if plan["tables"] < 1 or plan["rate"] < 0 or plan["seconds"] <= 0:
            raise CommandError("--tables must be 1 or more, --rate 0 or more, --seconds over 0")
        print(f"{kind}: {' '.join(_plan_args(plan))}", file=sys.stderr, flush=True)
        rounds: list[dict[str, dict[str, Any]]] = []
        for i in range(args.rounds):
            order = ("tranque", "relay") if i % 2 == 0 else ("relay", "tranque")
            this: dict[str, dict[str, Any]] = {}
            for server in order:
                row = _one(server, plan, relay, args)
                row.update(kind=kind, round=i + 1)
                this[server] = row
                print(_line(kind, i, row), file=sys.stderr, flush=True)
                if args.out:
                    with Path(args.out).open("a") as f:
                        f.write(json.dumps(row) + "\n")
            rounds.append(this)
        summaries.append(summarise(kind, rounds))
    if args.json:
        print(json.dumps(summaries, indent=2))
        return 0
    for s in summaries:
        print(f"{s['kind']} ({s['rounds']} rounds, medians)")
        for server in ("tranque", "relay"):
            figs = "  ".join(f"{k} {s[server][k]}" for k in FIGURES)
            print(f"  {server:8} {figs}")
        if "ratio_median" in s:
            print(
                f"  ratio of server CPU per move: {s['ratio_median']} "
                f"(rounds {s['ratio_per_round']}; lowest {s['ratio_low']}, "
                f"highest {s['ratio_high']})"
            )
    return 0
