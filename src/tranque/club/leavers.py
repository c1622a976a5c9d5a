"""People who leave a rated game after its start: the one who left loses alone (docs/club.md).

A game of pairs rates the pair; a person who leaves and lets a bot play for him would share his
partner's result either way, and his partner would pay for his leave. So a person away (a bot
playing for him) for more than a quarter of his own decisions is a **leaver**, and:

- the leaver's rating takes a loss: the update OpenSkill gives his seat in a game his pair lost,
  at the real table (the same four ratings; doubled as a pollona only when his pair did lose
  by one) — whatever the board said, since the bot, not he, played it;
- his partner's rating does not move (nor his count of rated games): he played with a bot;
- everybody else moves as for the normal result (the update of the game as it ended);
- every person a leaver: the game is not rated at all.

A leave before the first hand ended never gets here: it aborts the game (``table.abort``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tranque.club.ratings import Skill, rate

SHARE = 0.25  # away for more than this share of his own decisions: a leaver


def leavers_of(info: Mapping[str, Any]) -> set[int]:
    """The seats whose person let a bot take more than ``SHARE`` of his decisions, from the
    table's final info (``decisions``: per seat, ``made`` and ``by_bot``)."""
    d = info.get("decisions")
    if not isinstance(d, Mapping):
        return set()
    made, by_bot = d.get("made"), d.get("by_bot")
    if not (isinstance(made, list) and isinstance(by_bot, list)):
        return set()
    if len(made) != 4 or len(by_bot) != 4:
        return set()
    return {s for s in range(4) if made[s] > 0 and by_bot[s] > SHARE * made[s]}


def rate_with_leavers(
    skills: Sequence[Skill], winner: int, pollona: bool, leavers: set[int]
) -> list[Skill | None]:
    """The four seats' ratings after the game (None: unchanged) under the leaver rule above;
    without leavers, exactly ``rate``. All four seats leavers: nothing changes."""
    if len(leavers) == 4:
        return [None] * 4
    normal = rate(skills, winner, pollona)
    if not leavers:
        return list(normal)
    out: list[Skill | None] = []
    for s in range(4):
        pair = s % 2
        if s in leavers:
            lost = normal if pair != winner else rate(skills, pair ^ 1, False)
            out.append(lost[s])
        elif (s + 2) % 4 in leavers:
            out.append(None)  # his partner left: he played with a bot, unrated
        else:
            out.append(normal[s])
    return out
