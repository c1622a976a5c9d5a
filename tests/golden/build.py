"""Build the golden hand records for the rule book's worked examples (docs/rules.md, section 10).

The rule book gives each example's end position (what each player still holds, the open ends, who
went out) but not the hand that led there. This script finds a complete, legal Havana hand that ends
exactly in that position, by a randomised depth-first search over the turns: a tile is given to a
seat only when the seat plays it, and a pass records "this seat held nothing for these ends", which
every tile given to that seat later must respect. The records it writes are checked in; the golden
tests replay them through the checked engine and compare with the rule book's numbers.

Run: ``python tests/golden/build.py`` (deterministic: fixed seeds).
"""

from __future__ import annotations

import json
import random
import sys
from dataclasses import dataclass
from pathlib import Path

from tranque.rules.hand import Action, Deal, HandState
from tranque.rules.record import hand_record
from tranque.rules.tiles import DOUBLE_NINE, Tile, parse_tiles
from tranque.rules.variants import HAVANA

HERE = Path(__file__).parent


@dataclass
class Target:
    name: str
    leader: int
    keep: list[str]  # what each seat still holds at the end, seats 0..3
    kind: str  # "pegarse", "tranque" or "position"
    seat: int = -1  # pegarse: who goes out; position: whose turn it is
    ends: tuple[int, int] | None = None  # tranque/position: the final open ends


def fits(tile: Tile, ends: tuple[int, int]) -> bool:
    return tile.has(ends[0]) or tile.has(ends[1])


def search(target: Target, rng: random.Random, budget: int = 20_000) -> list[str] | None:
    keep = [parse_tiles(k) for k in target.keep]
    need = [HAVANA.tiles_each - len(k) for k in keep]
    if target.kind == "pegarse":
        assert not keep[target.seat]
    pool = [t for t in DOUBLE_NINE.tiles if not any(t in k for k in keep)]
    given: list[list[Tile]] = [[], [], [], []]
    passes: list[list[tuple[int, int]]] = [[], [], [], []]
    moves: list[str] = []
    nodes = 0

    def allowed(seat: int, tile: Tile) -> bool:
        return not any(fits(tile, e) for e in passes[seat])

    def done(ends: tuple[int, int], turn: int) -> bool:
        if target.kind == "position":
            return (
                turn == target.seat
                and sorted(ends) == sorted(target.ends or ())
                and need[turn] == 0
            )
        return False

    def dfs(turn: int, ends: tuple[int, int] | None, idle: int) -> bool:
        nonlocal nodes
        nodes += 1
        if nodes > budget:
            return False
        if ends is not None and done(ends, turn):
            return fill_position(ends)
        if ends is None:
            options = [t for t in pool]
            rng.shuffle(options)
            for t in options[:12]:
                if not play(turn, t, None, (t.high, t.low), idle):
                    continue
                return True
            return False
        seat_keep_fits = any(fits(t, ends) for t in keep[turn])
        if need[turn]:
            options = [t for t in pool if fits(t, ends) and allowed(turn, t)]
            rng.shuffle(options)
            for t in options[:6]:
                for end in {e for e in ends if t.has(e)}:
                    other = t.other(end)
                    new_ends = (other, ends[1]) if end == ends[0] else (ends[0], other)
                    if play(turn, t, end, new_ends, idle):
                        return True
        if not seat_keep_fits and idle < 3 and (target.kind == "position" or moves):
            passes[turn].append(ends)
            moves.append("pass")
            if dfs((turn + 1) & 3, ends, idle + 1):
                return True
            moves.pop()
            passes[turn].pop()
        return False

    def play(seat: int, tile: Tile, end: int | None, new_ends: tuple[int, int], idle: int) -> bool:
        pool.remove(tile)
        given[seat].append(tile)
        need[seat] -= 1
        moves.append(str(tile) if end is None else f"{tile}@{end}")
        if finishes(seat, new_ends) or (
            not finished_early(seat, new_ends) and dfs((seat + 1) & 3, new_ends, 0)
        ):
            return True
        moves.pop()
        need[seat] += 1
        given[seat].pop()
        pool.append(tile)
        return False

    def finished_early(seat: int, ends: tuple[int, int]) -> bool:
        # The hand would end here (someone out, or nothing left to play) without being the target.
        if need[seat] == 0 and not keep[seat]:
            return True
        return target.kind != "position" and sum(need) == 0

    def finishes(seat: int, ends: tuple[int, int]) -> bool:
        if sum(need) != 0:
            return False
        if target.kind == "pegarse":
            return seat == target.seat
        if target.kind == "tranque":
            blocked = not any(fits(t, ends) for k in keep for t in k)
            return blocked and sorted(ends) == sorted(target.ends or ())
        return False

    def fill_position(ends: tuple[int, int]) -> bool:
        # Other seats still hold tiles they have not played: pick them from the pool.
        for seat in range(4):
            while need[seat]:
                options = [t for t in pool if allowed(seat, t)]
                if not options:
                    return False
                t = rng.choice(options)
                pool.remove(t)
                keep[seat].append(t)
                need[seat] -= 1
        return True

    if not dfs(target.leader, None, 0):
        return None
    return moves_and_deal(keep, given, moves)


def moves_and_deal(keep: list[list[Tile]], given: list[list[Tile]], moves: list[str]) -> list[str]:
    hands = [keep[s] + given[s] for s in range(4)]
    return [" ".join(str(t) for t in sorted(h, reverse=True)) for h in hands] + moves


def build(target: Target) -> dict[str, object]:
    for seed in range(2000):
        found = search(target, random.Random(seed))
        if found is None:
            continue
        hands, moves = found[:4], found[4:]
        deal = Deal.from_text(hands, rules=HAVANA)
        state = HandState.start(HAVANA, deal, target.leader)
        for m in moves:
            state = state.apply(Action.parse(m))
        record = hand_record(state)
        record["example"] = target.name
        return record
    raise SystemExit(f"no hand found for {target.name}")


TARGETS = [
    # Ejemplo 1: the fourth player goes out; rivals hold 98 52 00 and 76 41, partner 99 33.
    Target(
        "ejemplo-1-pegarse",
        leader=0,
        keep=["98 52 00", "99 33", "76 41", ""],
        kind="pegarse",
        seat=3,
    ),
    # Ejemplo 2: ends 4 and 7, totals 14, 17, 17, 17; the first player's pair wins 34.
    Target(
        "ejemplo-2-tranque",
        leader=0,
        keep=["95", "98", "96 20", "85 31"],
        kind="tranque",
        ends=(4, 7),
    ),
    # Ejemplo 3: ends 4 and 7; pair A holds 8 and 8, pair B 9 and 13: A wins 22.
    Target(
        "ejemplo-3-companeros", leader=0, keep=["53", "90", "62", "85"], kind="tranque", ends=(4, 7)
    ),
    # Ejemplo 4: pair B led; totals 8, 8, 18, 14: tied, nobody scores, pair A leads next.
    Target(
        "ejemplo-4-empate", leader=1, keep=["62", "80", "99", "86"], kind="tranque", ends=(4, 7)
    ),
    # Ejemplo 5: pair A goes out; rivals hold 99 98 88 97 87 and 77 96: 111, a viajera.
    Target(
        "ejemplo-5-viajera",
        leader=0,
        keep=["", "99 98 88 97 87", "10", "77 96"],
        kind="pegarse",
        seat=0,
    ),
    # Ejemplo 6: pair A wins a hand of 15 (at 92 to 0: 107, pollona).
    Target("ejemplo-6-pollona", leader=0, keep=["30", "93", "", "21 00"], kind="pegarse", seat=2),
    # Ejemplo 7: ends 4 and 9; you hold 49 99 44 26 14: five plays, no pass.
    Target(
        "ejemplo-7-jugadas",
        leader=0,
        keep=["94 99 44 62 41", "", "", ""],
        kind="position",
        seat=0,
        ends=(4, 9),
    ),
]


def main() -> None:
    sys.setrecursionlimit(10_000)
    wanted = set(sys.argv[1:])
    for target in TARGETS:
        if wanted and target.name not in wanted:
            continue
        record = build(target)
        path = HERE / f"{target.name}.json"
        path.write_text(json.dumps(record, indent=1) + "\n")
        print(path.name, len(record["moves"]), "moves")  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
