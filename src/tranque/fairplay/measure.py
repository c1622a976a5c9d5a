"""``tranque bench fairplay``: calibrate the screen on bot self-play and measure its recall.

Games are played and screened (all four seats) in worker processes: honest games of each level
(``facil``, ``heuristic``, ``strong`` in every seat, and ``mixed``: facil and strong partners
against heuristic), and games where a colluding pair (``colluders``) sits against honest pairs of
each of those kinds. From the honest pair-games come the calibration (``stats.Calibration``);
then, for 20, 50 and 100 games, ``samples`` sets of that many games are drawn with replacement
from each configuration's pool and screened as one partnership: the share flagged is the recall
(colluders) or the false-flag rate (honest pairs). Drawing from a pool of played games stands in
for playing that many more; the pool sizes are printed with the table.
"""

from __future__ import annotations

import multiprocessing
import os
import random
import statistics
import time
from collections.abc import Callable, Mapping
from typing import Any

from tranque.fairplay import stats
from tranque.fairplay.selfplay import COLLUDE, play_record

OPPONENTS: dict[str, tuple[str, str]] = {
    "facil": ("facil", "facil"),
    "heuristic": ("heuristic", "heuristic"),
    "strong": ("strong", "strong"),
    "mixed": ("facil", "strong"),
}
# The pair under test at seats 0 and 2, by kind.
PAIRS: dict[str, tuple[str, str]] = {
    "facil": ("facil", "facil"),
    "heuristic": ("heuristic", "heuristic"),
    "strong": ("strong", "strong"),
    "mixed": ("facil", "strong"),
    "partner-peekers": (COLLUDE + "partner", COLLUDE + "partner"),
    "all-seers": (COLLUDE + "all", COLLUDE + "all"),
}
HONEST = ("facil", "heuristic", "strong", "mixed")
COLLUDING = ("partner-peekers", "all-seers")
GAMES = (20, 50, 100)


def _one(job: tuple[str, str, int]) -> dict[str, Any]:
    """Play one game (pair kind at 0 and 2 against the opponents' kind) and screen it."""
    from tranque.fairplay.screen import screen_record

    pair, opponents, seed = job
    a, b = PAIRS[pair]
    c, d = OPPONENTS[opponents] if pair in COLLUDING else PAIRS[opponents]
    seats = [a, c, b, d]
    start = time.process_time()
    record = play_record(seats, ["p0", "p1", "p2", "p3"], seed)
    played = time.process_time() - start
    screened = screen_record(record, all_seats=True)
    return {
        "pair": pair,
        "opponents": opponents,
        "seats": seats,
        "sums": screened["seats"],
        "screen_cpu": screened["cpu_seconds"],
        "play_cpu": played,
        "hands": len(record["hands"]),  # type: ignore[arg-type]
    }


def _warm() -> None:
    from tranque.fairplay.screen import screen_record

    screen_record(play_record(["heuristic"] * 4, [None] * 4, 0), all_seats=True)


def jobs(honest: int, colluding: int, seed: int) -> list[tuple[str, str, int]]:
    """The games to play: ``honest`` per honest kind (its own kind opposite, mixed against
    heuristic), ``colluding`` per colluding kind and opponents' kind."""
    out: list[tuple[str, str, int]] = []
    for pair in HONEST:
        against = "heuristic" if pair == "mixed" else pair
        out += [(pair, against, seed * 1_000_000 + len(out) + i) for i in range(honest)]
    for pair in COLLUDING:
        for opp in OPPONENTS:
            out += [(pair, opp, seed * 1_000_000 + len(out) + i) for i in range(colluding)]
    return out


def play_all(
    todo: list[tuple[str, str, int]], workers: int, progress: Callable[[int], None] | None = None
) -> list[dict[str, Any]]:
    _warm()
    out: list[dict[str, Any]] = []
    if workers <= 1:
        for job in todo:
            out.append(_one(job))
            if progress:
                progress(len(out))
        return out
    ctx = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    with ctx.Pool(workers) as pool:
        for r in pool.imap(_one, todo, chunksize=1):
            out.append(r)
            if progress:
                progress(len(out))
        return out


def pair_sums(game: Mapping[str, Any], pair: int) -> dict[str, float]:
    seats = game["sums"]
    return stats.merge(seats[pair], seats[pair + 2])


def between_kinds(
    groups: list[tuple[float, float, float]],
) -> tuple[float, float, tuple[float, float, float]]:
    """``(alpha, beta)`` of the line through the groups' mean gains ``(x, y, weight)``, weighted
    by their decisions. Each group is one kind of honest pair (two facils, two strongs, a facil
    and a strong...): its mean fair gain is known to a few hundredths, where one decision's is
    off by its sampling noise, which would flatten a line fitted decision by decision (regression
    dilution) and make strong honest pairs look like they gain too much."""
    w = sum(g[2] for g in groups)
    mx = sum(g[0] * g[2] for g in groups) / w
    my = sum(g[1] * g[2] for g in groups) / w
    sxx = sum(g[2] * (g[0] - mx) ** 2 for g in groups)
    sxy = sum(g[2] * (g[0] - mx) * (g[1] - my) for g in groups)
    beta = sxy / sxx if sxx > 0 else 1.0
    return my - beta * mx, beta, (w, mx, sxx)


def honest_pairs(games: list[dict[str, Any]]) -> dict[tuple[str, str], list[dict[str, float]]]:
    """Every honest pair-game's sums, grouped by the pair's two bots (sorted)."""
    out: dict[tuple[str, str], list[dict[str, float]]] = {}
    for g in games:
        if g["pair"] not in HONEST:
            continue
        for p in (0, 1):
            a, b = sorted((g["seats"][p], g["seats"][p + 2]))
            out.setdefault((a, b), []).append(pair_sums(g, p))
    return out


def calibrate(games: list[dict[str, Any]]) -> stats.Calibration:
    """Honest play's figures from the honest games (both pairs of each)."""
    groups = honest_pairs(games)
    samples = [s for rows in groups.values() for s in rows]
    edge = []
    partner = []
    for rows in groups.values():
        m = sum(s["edge_decisions"] for s in rows)
        n = sum(s["decisions"] for s in rows)
        edge.append((sum(s["gain"] for s in rows) / m, sum(s["hind"] for s in rows) / m, m))
        partner.append((sum(s["fgain"] for s in rows) / n, sum(s["pgain"] for s in rows) / n, n))
    alpha, beta, e_fit = between_kinds(edge)
    p_alpha, p_beta, p_fit = between_kinds(partner)
    fit = stats.Calibration(
        alpha, beta, 1.0, 0.0, e_fit, p_alpha, p_beta, 1.0, 0.0, p_fit, 0.0, 0.0
    )
    m_all = sum(s["edge_decisions"] for s in samples)
    n_all = sum(s["decisions"] for s in samples)
    phi = (
        sum(stats.residual(s["hind"], s["gain"], int(s["edge_decisions"]), fit) ** 2
            for s in samples) / m_all
    )  # fmt: skip
    p_phi = (
        sum(stats.partner_residual(s["pgain"], s["fgain"], int(s["decisions"]), fit) ** 2
            for s in samples) / n_all
    )  # fmt: skip
    # How far the kinds sit from the line beyond their own sampling noise (two parameters were
    # fitted through them: the sum of squares is divided by kinds - 2).
    k = len(groups)
    tau = p_tau = 0.0
    if k > 2:
        over = sum(
            (sum(stats.residual(s["hind"], s["gain"], int(s["edge_decisions"]), fit) for s in rows)
             / (m := sum(s["edge_decisions"] for s in rows))) ** 2 - phi / m
            for rows in groups.values()
        ) / (k - 2)  # fmt: skip
        p_over = sum(
            (sum(stats.partner_residual(s["pgain"], s["fgain"], int(s["decisions"]), fit)
                 for s in rows) / (n := sum(s["decisions"] for s in rows))) ** 2 - p_phi / n
            for rows in groups.values()
        ) / (k - 2)  # fmt: skip
        tau, p_tau = max(0.0, over) ** 0.5, max(0.0, p_over) ** 0.5
    honest = [g for g in games if g["pair"] in HONEST]
    strong = [g["sums"][s] for g in games if g["pair"] == "strong" for s in range(4)]
    loss_strong = sum(x["loss"] for x in strong) / sum(x["decisions"] for x in strong)
    # The loss's spread about each bot's own mean, pooled over the honest seats.
    by_bot: dict[str, list[Mapping[str, float]]] = {}
    for g in honest:
        for s in range(4):
            by_bot.setdefault(g["seats"][s], []).append(g["sums"][s])
    num = den = 0.0
    for seats in by_bot.values():
        mu = sum(r["loss"] for r in seats) / max(1, sum(r["decisions"] for r in seats))
        num += sum((r["loss"] - mu * r["decisions"]) ** 2 for r in seats)
        den += sum(r["decisions"] for r in seats)
    return stats.Calibration(
        alpha, beta, phi, tau, e_fit, p_alpha, p_beta, p_phi, p_tau, p_fit, loss_strong, num / den
    )


def flagged(
    draws: list[tuple[dict[str, float], dict[str, float], dict[str, float]]],
    cal: stats.Calibration,
) -> tuple[bool, bool, bool]:
    """(partnership flagged for its hindsight edge, for its partner edge, a partner flagged for
    strength) of a set of games."""
    pair = {"edge_decisions": 0, "hind": 0.0, "gain": 0.0, "decisions": 0, "pgain": 0.0,
            "fgain": 0.0}  # fmt: skip
    people = [{"decisions": 0, "loss": 0.0}, {"decisions": 0, "loss": 0.0}]
    for both, one, two in draws:
        pair["edge_decisions"] += both["edge_decisions"]
        pair["hind"] += both["hind"]
        pair["gain"] += both["gain"]
        pair["decisions"] += both["decisions"]
        pair["pgain"] += both["pgain"]
        pair["fgain"] += both["fgain"]
        for p, seat in zip(people, (one, two), strict=True):
            p["decisions"] += seat["decisions"]
            p["loss"] += seat["loss"]
    m = int(pair["edge_decisions"])
    n = int(pair["decisions"])
    t = stats.Tally(decisions=n, edge_decisions=m, hind=pair["hind"], gain=pair["gain"],
                    pgain=pair["pgain"], fgain=pair["fgain"])  # fmt: skip
    edge = m >= stats.MIN_EDGE_DECISIONS and t.z_edge(cal) >= stats.Z_FLAG
    partner = n >= stats.MIN_PARTNER_DECISIONS and t.z_partner(cal) >= stats.Z_FLAG
    strength = False
    for p in people:
        n = int(p["decisions"])
        if n >= stats.MIN_DECISIONS:
            z = (cal.loss_strong * n - p["loss"]) / (cal.loss_phi * n) ** 0.5
            strength = strength or z >= stats.Z_FLAG
    return edge, partner, strength


def table(
    games: list[dict[str, Any]], cal: stats.Calibration, samples: int, seed: int
) -> list[dict[str, Any]]:
    """Per configuration: its pool, mean figures, and the share flagged after 20/50/100 games."""
    rng = random.Random(seed)
    rows = []
    configs: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for g in games:
        configs.setdefault((g["pair"], g["opponents"]), []).append(g)
    for (pair, opp), pool in configs.items():
        units = [(pair_sums(g, 0), g["sums"][0], g["sums"][2]) for g in pool]
        if pair in HONEST:  # both pairs of an honest game are honest pairs of their kind
            units += [(pair_sums(g, 1), g["sums"][1], g["sums"][3]) for g in pool]
        m = sum(u[0]["edge_decisions"] for u in units)
        n = sum(u[0]["decisions"] for u in units)
        residuals = sum(
            stats.residual(u[0]["hind"], u[0]["gain"], int(u[0]["edge_decisions"]), cal)
            for u in units
        )
        p_residuals = sum(
            stats.partner_residual(u[0]["pgain"], u[0]["fgain"], int(u[0]["decisions"]), cal)
            for u in units
        )
        row: dict[str, Any] = {
            "pair": pair,
            "opponents": opp,
            "pool": len(units),
            "edge_per_decision": round(residuals / max(1, m), 2),
            "raw_edge_per_decision": round(sum(u[0]["edge"] for u in units) / max(1, m), 2),
            # The whole pool as one partnership: how far its kind sits from the calibration.
            "pool_z_edge": round(stats.z_of(residuals, int(m), 0.0, cal.edge_phi), 2),
            "partner_edge_per_decision": round(p_residuals / max(1, n), 2),
            "pool_z_partner": round(stats.z_of(p_residuals, int(n), 0.0, cal.partner_phi), 2),
            "loss_per_decision": round(sum(u[0]["loss"] for u in units) / max(1, n), 2),
            "top_choice_rate": round(sum(u[0]["top"] for u in units) / max(1, n), 3),
        }
        for k in GAMES:
            hits = [flagged(rng.choices(units, k=k), cal) for _ in range(samples)]
            row[f"flag_{k}"] = round(sum(any(h) for h in hits) / samples, 3)
            row[f"edge_flag_{k}"] = round(sum(h[0] for h in hits) / samples, 3)
            row[f"partner_flag_{k}"] = round(sum(h[1] for h in hits) / samples, 3)
        rows.append(row)
    return rows


def measure(
    honest: int,
    colluding: int,
    seed: int,
    workers: int,
    samples: int,
    progress: Callable[[int], None] | None = None,
    *,
    constants: bool = False,
) -> dict[str, Any]:
    """Play, screen, calibrate, and draw the table; ``games`` holds every game's sums. With
    ``constants``, flags are judged by ``stats.BOTS`` (the calibration the screen uses), not by
    this run's own: on a fresh seed, an out-of-sample check."""
    todo = jobs(honest, colluding, seed)
    start = time.perf_counter()
    games = play_all(todo, workers, progress)
    wall = time.perf_counter() - start
    return summarise(games, honest, colluding, seed, samples, wall, constants=constants)


def summarise(
    games: list[dict[str, Any]],
    honest: int,
    colluding: int,
    seed: int,
    samples: int,
    wall: float = 0.0,
    *,
    constants: bool = False,
    judge: stats.Calibration | None = None,
) -> dict[str, Any]:
    """The figures of played games (see ``measure``); flags judged by ``judge`` if given."""
    cal = calibrate(games)
    judged_by = "another run's calibration" if judge is not None else None
    if judge is None:
        judge = stats.BOTS if constants else cal
    screen = [g["screen_cpu"] for g in games]
    return {
        "games_played": len(games),
        "honest_games_per_kind": honest,
        "colluding_games_per_config": colluding,
        "samples_per_cell": samples,
        "seed": seed,
        "wall_seconds": round(wall, 1),
        "calibration": {
            "edge_alpha": round(cal.edge_alpha, 3),
            "edge_beta": round(cal.edge_beta, 3),
            "partner_alpha": round(cal.partner_alpha, 3),
            "partner_beta": round(cal.partner_beta, 3),
            "partner_phi": round(cal.partner_phi, 2),
            "partner_tau": round(cal.partner_tau, 3),
            "edge_tau": round(cal.edge_tau, 3),
            "edge_fit": [round(v, 3) for v in cal.edge_fit],
            "partner_fit": [round(v, 3) for v in cal.partner_fit],
            "edge_phi": round(cal.edge_phi, 1),
            "loss_strong": round(cal.loss_strong, 3),
            "loss_phi": round(cal.loss_phi, 2),
        },
        "screen_cpu_per_game": {
            "mean": round(statistics.fmean(screen), 3),
            "median": round(statistics.median(screen), 3),
            "max": round(max(screen), 3),
            "hands_per_game": round(statistics.fmean(g["hands"] for g in games), 2),
        },
        "judged_by": judged_by
        or ("the screen's constants (stats.BOTS)" if constants else "this run's calibration"),
        "draws_seed": seed,
        "rows": table(games, judge, samples, seed),
        "games": games,
    }


def lines(result: Mapping[str, Any]) -> list[str]:
    """The table as text."""
    out = [
        f"games played: {result['games_played']} ({result['honest_games_per_kind']} per honest "
        f"kind, {result['colluding_games_per_config']} per colluding configuration), "
        f"seed {result['seed']}, {result['wall_seconds']} s",
        f"calibration of this run: {result['calibration']}",
        f"flags judged by {result['judged_by']}",
        f"screen CPU per game (four seats): {result['screen_cpu_per_game']}",
        f"flagged after N games ({result['samples_per_cell']} draws of N games with "
        "replacement from each pool; hindsight edge, partner edge or strength)",
        f"{'pair':16} {'opponents':10} {'pool':>5} {'edge/dec':>8} {'pool z':>7} "
        f"{'partner':>8} {'pool z':>7} {'loss/dec':>8} {'top':>6} "
        f"{'N=20':>6} {'N=50':>6} {'N=100':>6}",
    ]
    for r in result["rows"]:
        out.append(
            f"{r['pair']:16} {r['opponents']:10} {r['pool']:5d} {r['edge_per_decision']:8.2f} "
            f"{r['pool_z_edge']:7.2f} {r['partner_edge_per_decision']:8.2f} "
            f"{r['pool_z_partner']:7.2f} {r['loss_per_decision']:8.2f} {r['top_choice_rate']:6.3f} "
            f"{r['flag_20']:6.3f} {r['flag_50']:6.3f} {r['flag_100']:6.3f}"
        )
    return out
