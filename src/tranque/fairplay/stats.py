"""From per-game sums to the screen: each person's strength, each partnership's hindsight edge,
their z-scores against honest play, and the flags (docs/fairplay.md).

Pure Python on plain data (``screen.screen_record``'s output), so it runs anywhere: the command,
a worker, a test. The constants below are measured on bot self-play (``tranque bench fairplay``)
and written here by hand with the run that gave them; docs/fairplay.md explains each.

The z-scores are ratio estimators: a game's decisions are correlated (one deal, one pair), so
the variance is not per decision but per game, scaled by its decisions: over honest pair-games
``phi = sum_g (X_g - mu * n_g)^2 / sum_g n_g``, where ``X_g`` is the game's sum and ``n_g`` its
decisions. For any set of honest games, ``(X - mu * n) / sqrt(phi * n)`` is then close to a
standard normal once there are a few games.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

FORMAT = "tranque-fairplay/1"


@dataclass(frozen=True, slots=True)
class Calibration:
    """Honest play's figures at the screen's budget (``screen.SCREEN``), from bot self-play."""

    edge_alpha: float  # honest play's hindsight gain y = alpha + beta * fair gain x, per
    edge_beta: float  # exact decision: the line through the kinds of honest pairs' means
    edge_phi: float  # the residual's variance per decision, within-game correlation included
    edge_tau: float  # the spread of honest kinds' own mean residuals about the line
    edge_fit: tuple[float, float, float]  # (decisions, mean x, sum of w (x - mean x)^2) of the fit
    partner_alpha: float  # honest play's partner-informed gain p = alpha + beta * x, per
    partner_beta: float  # decision (every real decision), through the kinds' means likewise
    partner_phi: float  # the residual's variance per decision, per game as above
    partner_tau: float  # the spread of honest kinds' own mean residuals about the line
    partner_fit: tuple[float, float, float]  # the same for the partner line
    loss_strong: float  # the strong bot's mean fair loss per decision
    loss_phi: float  # variance per decision of the loss sum of a seat's game, honest seats
    source: str = "bots"


# Measured by ``tranque bench fairplay --honest 16 --colluding 8`` with seeds 2 and 3, the two
# runs' games together (docs/fairplay.md has the runs and the table): 128 honest games, 256
# honest pair-games, at the screen's budget.
BOTS = Calibration(
    edge_alpha=1.451,
    edge_beta=0.659,
    edge_phi=481.1,
    edge_tau=0.0,
    edge_fit=(6719.0, 1.801, 4262.6),
    partner_alpha=0.602,
    partner_beta=0.426,
    partner_phi=15.4,
    partner_tau=0.0,
    partner_fit=(12914.0, 1.490, 2841.0),
    loss_strong=1.727,
    loss_phi=16.89,
)

Z_FLAG = 3.7  # one-sided; a standard normal passes it about 1.1 times in 10,000
MIN_EDGE_DECISIONS = 150  # a partnership's exact decisions before its edge may flag it
MIN_PARTNER_DECISIONS = 300  # a partnership's decisions before its partner edge may flag it
MIN_DECISIONS = 300  # a person's decisions before his strength may flag him
MIN_POPULATION = 20  # partnerships (or people) past the minimum to calibrate on the population


def named(who: object) -> bool:
    """A person's handle (a bot's seat is None)."""
    return isinstance(who, str)


@dataclass
class Tally:
    """Sums over games, each game kept as (n, x) for the variance and the halves."""

    games: int = 0
    decisions: int = 0
    loss: float = 0.0
    top: int = 0
    edge_decisions: int = 0
    edge: float = 0.0
    hind: float = 0.0
    gain: float = 0.0
    pgain: float = 0.0
    fgain: float = 0.0
    per_game_loss: list[tuple[int, float]] = field(default_factory=list)

    def add(self, sums: Mapping[str, Any]) -> None:
        self.decisions += int(sums["decisions"])
        self.loss += float(sums["loss"])
        self.top += int(sums["top"])
        self.edge_decisions += int(sums["edge_decisions"])
        self.edge += float(sums["edge"])
        self.hind += float(sums["hind"])
        self.gain += float(sums["gain"])
        self.pgain += float(sums["pgain"])
        self.fgain += float(sums["fgain"])

    def z_edge(self, cal: Calibration) -> float:
        m = self.edge_decisions
        x = self.gain / m if m else 0.0
        bias = line_var(cal.edge_phi, cal.edge_tau, cal.edge_fit, x)
        return z_of(self.residual(cal), m, 0.0, cal.edge_phi, bias)

    def z_partner(self, cal: Calibration) -> float:
        n = self.decisions
        x = self.fgain / n if n else 0.0
        bias = line_var(cal.partner_phi, cal.partner_tau, cal.partner_fit, x)
        return z_of(self.partner_residual(cal), n, 0.0, cal.partner_phi, bias)

    def residual(self, cal: Calibration) -> float:
        """The hindsight gain beyond what honest play of the same fair gain has."""
        return residual(self.hind, self.gain, self.edge_decisions, cal)

    def partner_residual(self, cal: Calibration) -> float:
        """The partner-informed gain beyond what honest play of the same fair gain has."""
        return partner_residual(self.pgain, self.fgain, self.decisions, cal)


def residual(hind: float, gain: float, m: int, cal: Calibration) -> float:
    """``sum(y) - alpha * m - beta * sum(x)`` over ``m`` exact decisions: 0 on average under
    honest play, whatever its strength."""
    return hind - cal.edge_alpha * m - cal.edge_beta * gain


def partner_residual(pgain: float, fgain: float, n: int, cal: Calibration) -> float:
    """``sum(p) - alpha * n - beta * sum(x)`` over ``n`` decisions: 0 on average under honest
    play."""
    return pgain - cal.partner_alpha * n - cal.partner_beta * fgain


def z_of(total: float, n: int, mean: float, phi: float, bias_var: float = 0.0) -> float:
    """``(total - mean * n) / sqrt(phi * n + bias_var * n ** 2)``; 0 with no decision.

    ``phi * n``: the sampling variance of an honest sum of ``n`` decisions. ``bias_var``: the
    variance, per decision, of where honest play of this strength really sits against the
    calibrated line (``line_var``): the line is measured on a few dozen games, so it is itself
    uncertain. Over a long history that bias grows as ``n`` where the noise grows as its square
    root; without it a long honest history would pass any threshold."""
    if n <= 0:
        return 0.0
    return (total - mean * n) / math.sqrt(phi * n + bias_var * n * n)


def line_var(phi: float, tau: float, fit: tuple[float, float, float], x: float) -> float:
    """The variance of the calibrated line at fair gain ``x`` per decision: the fit's own
    (``phi * (1/W + (x - mean)^2 / Sxx)``, least squares through the kinds) and the kinds'
    spread about it (``tau^2``)."""
    w, mx, sxx = fit
    if w <= 0 or sxx <= 0:
        return tau * tau
    return phi * (1 / w + (x - mx) ** 2 / sxx) + tau * tau


SUMS = (
    "decisions", "loss", "top", "edge_decisions", "edge", "hind", "gain", "gain2", "cross",
    "pgain", "fgain", "fgain2", "pcross",
)  # fmt: skip


def merge(a: Mapping[str, Any], b: Mapping[str, Any]) -> dict[str, float]:
    return {k: a[k] + b[k] for k in SUMS}


def tallies(
    games: Iterable[Mapping[str, Any]],
) -> tuple[dict[str, Tally], dict[tuple[str, str], Tally]]:
    """Per person and per partnership (ids sorted), games in the order given (oldest first)."""
    people: dict[str, Tally] = {}
    pairs: dict[tuple[str, str], Tally] = {}
    for game in games:
        players = game.get("players") or [None] * 4
        seats = game["seats"]
        for s in range(4):
            who = players[s]
            if not named(who) or not seats[s]["decisions"]:
                continue
            t = people.setdefault(who, Tally())
            t.games += 1
            t.add(seats[s])
            t.per_game_loss.append((int(seats[s]["decisions"]), float(seats[s]["loss"])))
        for s in (0, 1):
            a, b = players[s], players[s + 2]
            if not (named(a) and named(b)) or a == b:
                continue
            key = (min(a, b), max(a, b))
            t = pairs.setdefault(key, Tally())
            t.games += 1
            t.add(merge(seats[s], seats[s + 2]))
    return people, pairs


def sudden_z(per_game: Sequence[tuple[int, float]], cal: Calibration) -> float:
    """The later half of a person's games against the earlier: positive when he lost less per
    decision lately (``suddenly stronger``)."""
    half = len(per_game) // 2
    early, late = per_game[:half], per_game[half:]
    n1, n2 = sum(n for n, _ in early), sum(n for n, _ in late)
    if n1 == 0 or n2 == 0:
        return 0.0
    l1, l2 = sum(x for _, x in early) / n1, sum(x for _, x in late) / n2
    return (l1 - l2) / math.sqrt(cal.loss_phi * (1 / n1 + 1 / n2))


def _null(zs: list[float]) -> tuple[float, float, bool]:
    """The population's centre and spread of z (median, 1.4826 MAD) and whether there were
    enough to take them, only ever widening the bots' null: a population of honest people
    plays differently from bots, and a few cheats in it move a median little."""
    if len(zs) < MIN_POPULATION:
        return 0.0, 1.0, False
    med = statistics.median(zs)
    mad = statistics.median(abs(z - med) for z in zs) * 1.4826
    return max(0.0, med), max(1.0, mad), True


def report(games: Iterable[Mapping[str, Any]], cal: Calibration = BOTS) -> dict[str, Any]:
    """The ``tranque-fairplay/1`` object of a set of screened games (oldest first)."""
    games = list(games)
    people, pairs = tallies(games)
    # Positive when a person loses less per decision than the strong bot does.
    raw_strength: dict[str, float] = {}
    for who, t in people.items():
        raw_strength[who] = (
            (cal.loss_strong * t.decisions - t.loss) / math.sqrt(cal.loss_phi * t.decisions)
            if t.decisions
            else 0.0
        )
    raw_edge = {k: t.z_edge(cal) for k, t in pairs.items()}
    raw_partner = {k: t.z_partner(cal) for k, t in pairs.items()}
    s_mid, s_sd, s_pop = _null(
        [raw_strength[w] for w, t in people.items() if t.decisions >= MIN_DECISIONS]
    )
    e_mid, e_sd, e_pop = _null(
        [raw_edge[k] for k, t in pairs.items() if t.edge_decisions >= MIN_EDGE_DECISIONS]
    )
    p_mid, p_sd, p_pop = _null(
        [raw_partner[k] for k, t in pairs.items() if t.decisions >= MIN_PARTNER_DECISIONS]
    )
    out_people = []
    for who in sorted(people):
        t = people[who]
        z = (raw_strength[who] - s_mid) / s_sd
        zs = sudden_z(t.per_game_loss, cal)
        reasons = []
        if t.decisions >= MIN_DECISIONS and z >= Z_FLAG:
            reasons.append("stronger_than_the_strong_bot")
        if t.decisions >= MIN_DECISIONS and zs >= Z_FLAG:
            reasons.append("suddenly_stronger")
        out_people.append(
            {
                "id": who,
                "games": t.games,
                "decisions": t.decisions,
                "loss_per_decision": _r(t.loss / t.decisions if t.decisions else 0.0),
                "top_choice_rate": _r(t.top / t.decisions if t.decisions else 0.0),
                "z_strength": _r(z),
                "z_sudden": _r(zs),
                "flag": bool(reasons),
                "reasons": reasons,
            }
        )
    out_pairs = []
    for key in sorted(pairs):
        t = pairs[key]
        z = (raw_edge[key] - e_mid) / e_sd
        zp = (raw_partner[key] - p_mid) / p_sd
        reasons = []
        if t.edge_decisions >= MIN_EDGE_DECISIONS and z >= Z_FLAG:
            reasons.append("hindsight_edge")
        if t.decisions >= MIN_PARTNER_DECISIONS and zp >= Z_FLAG:
            reasons.append("partner_edge")
        out_pairs.append(
            {
                "ids": list(key),
                "games": t.games,
                "decisions": t.decisions,
                "edge_decisions": t.edge_decisions,
                "hindsight_edge": _r(
                    t.residual(cal) / t.edge_decisions if t.edge_decisions else 0.0
                ),
                "hindsight_minus_fair_gain": _r(
                    t.edge / t.edge_decisions if t.edge_decisions else 0.0
                ),
                "z_edge": _r(z),
                "partner_edge": _r(t.partner_residual(cal) / t.decisions if t.decisions else 0.0),
                "z_partner": _r(zp),
                "flag": bool(reasons),
                "reasons": reasons,
            }
        )
    population = s_pop or e_pop or p_pop
    return {
        "format": FORMAT,
        "people": out_people,
        "partnerships": out_pairs,
        "calibration": {
            "source": "bots+population" if population else cal.source,
            "edge_alpha": cal.edge_alpha,
            "edge_beta": cal.edge_beta,
            "edge_tau": cal.edge_tau,
            "edge_fit": list(cal.edge_fit),
            "edge_phi": cal.edge_phi,
            "partner_alpha": cal.partner_alpha,
            "partner_beta": cal.partner_beta,
            "partner_phi": cal.partner_phi,
            "partner_tau": cal.partner_tau,
            "partner_fit": list(cal.partner_fit),
            "loss_strong": cal.loss_strong,
            "loss_phi": cal.loss_phi,
            "population": {
                "strength": [_r(s_mid), _r(s_sd)],
                "edge": [_r(e_mid), _r(e_sd)],
                "partner": [_r(p_mid), _r(p_sd)],
            },
            "z_flag": Z_FLAG,
            "min_decisions": MIN_DECISIONS,
            "min_edge_decisions": MIN_EDGE_DECISIONS,
            "min_partner_decisions": MIN_PARTNER_DECISIONS,
        },
        "games": len(games),
    }


def _r(x: float) -> float:
    return round(x, 3)
