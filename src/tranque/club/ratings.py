"""Ratings: OpenSkill (Weng–Lin, the Plackett–Luce model) per rules preset, for people only.

A table is one rated game when four people began it (every seat a person when the first hand
was dealt: a seat can only be taken before then) and its rules are exactly one of the presets.
Pair A (seats 0 and 2) and pair B (1 and 3) are the two teams; the winners rank first. A person
who left and let a bot finish keeps the seat, so he takes the pair's result like his partner.

A pollona is the larger win the rule book makes it (it counts as two games in a match): when
the deciding game is a pollona, the update is applied twice in a row — exactly what two wins
would give, so the winners gain more and the losers lose more, with the uncertainty shrinking
as for two games. A rating is shown as its ``mu`` rounded, on a 1500 scale (the package's
defaults times 60), and is provisional for the first ``PROVISIONAL_GAMES`` rated games.
Leaderboards rank settled ratings by ``mu - 3 sigma``, which a lucky run does not inflate.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from openskill.models import PlackettLuce

PRESETS = ("havana", "miami", "oriente", "barrio")
PROVISIONAL_GAMES = 10
MU, SIGMA = 1500.0, 500.0
MODEL = PlackettLuce(mu=MU, sigma=SIGMA, beta=SIGMA / 2, tau=MU / 300)


@dataclass(frozen=True, slots=True)
class Skill:
    """One person's rating under one preset."""

    mu: float = MU
    sigma: float = SIGMA
    games: int = 0  # rated games played

    @property
    def rating(self) -> int:
        return round(self.mu)

    @property
    def provisional(self) -> bool:
        return self.games < PROVISIONAL_GAMES

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    def to_json(self) -> dict[str, Any]:
        return {
            "rating": self.rating,
            "mu": round(self.mu, 3),
            "sigma": round(self.sigma, 3),
            "games": self.games,
            "provisional": self.provisional,
        }


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a finished table means for ratings: the preset (None: not rated), the winning pair
    (0 for A, 1 for B) and whether the deciding game was a pollona."""

    preset: str | None
    winner: int
    pollona: bool
    persons: bool  # every seat was a person's


def outcome_of(info: Mapping[str, Any]) -> Outcome | None:
    """The outcome of a finished table from its final info (``TableViews.info``); None when it
    has no result (it never finished)."""
    result = info.get("result")
    if not isinstance(result, Mapping) or result.get("winner") not in ("A", "B"):
        return None
    rules = info.get("settings", {}).get("rules")
    preset = rules if isinstance(rules, str) and rules in PRESETS else None
    seats = info.get("seats", [])
    persons = len(seats) == 4 and all(s.get("kind") == "person" for s in seats)
    return Outcome(preset, "AB".index(result["winner"]), bool(result.get("pollona")), persons)


def rate(skills: Sequence[Skill], winner: int, pollona: bool = False) -> list[Skill]:
    """The four seats' ratings after a game that pair ``winner`` won (seats 0, 2 are pair A)."""
    if len(skills) != 4 or winner not in (0, 1):
        raise ValueError("a rated game has four seats and a winning pair, 0 or 1")
    ratings = [MODEL.rating(mu=s.mu, sigma=s.sigma) for s in skills]
    teams = [[ratings[0], ratings[2]], [ratings[1], ratings[3]]]
    ranks: list[float] = [0.0, 1.0] if winner == 0 else [1.0, 0.0]
    for _ in range(2 if pollona else 1):
        teams = MODEL.rate(teams, ranks=ranks)
    after = [teams[0][0], teams[1][0], teams[0][1], teams[1][1]]
    return [
        Skill(float(r.mu), float(r.sigma), s.games + 1) for s, r in zip(skills, after, strict=True)
    ]
