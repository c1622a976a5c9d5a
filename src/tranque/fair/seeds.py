"""Seeds: drawing them, settling what each seat contributes, and the record's ``fairness`` section.

The server draws its seed and commits to it before the hand; each person's client does the same.
``settle`` turns what actually arrived (commitments, revealed seeds, who is a bot or absent) into
the four contributed seeds, substituting the empty seed with a stated reason wherever a seat
contributes nothing, so that a late or lying client can delay nothing and bias nothing.

``HandFairness`` holds the server seed: it is published only after the hand ends. While the hand is
on, only ``public_commitments()`` may leave the server.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any

from tranque.fair.recipe import SEED_BYTES, client_commit, deal_key, server_commit
from tranque.rules.errors import InvalidRecordError

DEFAULT_REVEAL_TIMEOUT = 3.0
"""Seconds the server waits for every person's commitment (and then seed) before going on."""


def draw_seed() -> bytes:
    """A fresh 32-byte seed from the operating system's secure generator."""
    return secrets.token_bytes(SEED_BYTES)


class SeatKind(str, Enum):
    """Who sits in a seat when the hand is dealt."""

    PERSON = "person"
    BOT = "bot"
    EMPTY = "empty"


class SeatStatus(str, Enum):
    """What a seat contributed to the key, and why."""

    REVEALED = "revealed"  # a person whose seed matched the commitment: that seed is used
    BOT = "bot"  # bots contribute nothing: the server would be choosing their seed
    EMPTY = "empty"  # nobody sits there
    TIMEOUT = "timeout"  # a person who did not commit, or did not reveal, in time
    MISMATCH = "mismatch"  # a person whose revealed seed does not match the commitment


@dataclass(frozen=True, slots=True)
class HandFairness:
    """Everything needed to recompute a hand's deal: published when the hand ends, never before.

    ``client_seeds[s]`` is what seat s contributes to the key: ``b""`` unless its status is
    ``revealed``. ``rejected_seeds[s]`` keeps a seed that was sent but did not match its
    commitment, so that anyone can confirm the rejection was right. ``attempts`` counts the deals
    made for the hand: 1, plus one for each redeal.
    """

    table_id: str
    hand_number: int
    server_seed: bytes
    server_commit: str
    client_commits: tuple[str | None, str | None, str | None, str | None]
    client_seeds: tuple[bytes, bytes, bytes, bytes]
    seat_status: tuple[SeatStatus, SeatStatus, SeatStatus, SeatStatus]
    attempts: int = 1
    rejected_seeds: tuple[bytes | None, bytes | None, bytes | None, bytes | None] = (
        None,
        None,
        None,
        None,
    )

    @property
    def key(self) -> bytes:
        """The deal key of step 3 of the recipe."""
        return deal_key(self.server_seed, self.table_id, self.hand_number, self.client_seeds)

    def with_attempts(self, attempts: int) -> HandFairness:
        return replace(self, attempts=attempts)

    def public_commitments(self) -> dict[str, Any]:
        """What every seat may see while the hand is on: commitments, never a seed."""
        return {
            "table_id": self.table_id,
            "hand_number": self.hand_number,
            "server_commit": self.server_commit,
            "client_commits": list(self.client_commits),
        }

    def to_json(self) -> dict[str, Any]:
        """The record's ``fairness`` section (hex for bytes, ``""`` for the empty seed)."""
        out: dict[str, Any] = {
            "table_id": self.table_id,
            "hand_number": self.hand_number,
            "server_seed": self.server_seed.hex(),
            "server_commit": self.server_commit,
            "client_commits": list(self.client_commits),
            "client_seeds": [s.hex() for s in self.client_seeds],
            "seat_status": [s.value for s in self.seat_status],
            "attempts": self.attempts,
        }
        if any(r is not None for r in self.rejected_seeds):
            out["rejected_seeds"] = [None if r is None else r.hex() for r in self.rejected_seeds]
        return out

    @staticmethod
    def from_json(data: object) -> HandFairness:
        """Parse a ``fairness`` section. Checks its shape only: ``verify`` judges the content."""
        if not isinstance(data, Mapping):
            raise InvalidRecordError(f"fairness must be an object, not {data!r}")
        table_id = data.get("table_id")
        if not isinstance(table_id, str) or not _is_utf8(table_id):
            raise InvalidRecordError(f"fairness.table_id must be UTF-8 text, not {table_id!r}")
        hand_number = _int(data, "hand_number", minimum=1)
        if hand_number >= 1 << 32:
            raise InvalidRecordError(f"fairness.hand_number {hand_number} does not fit a u32")
        attempts = _int(data, "attempts", minimum=1)
        server_seed = parse_hex(data.get("server_seed"), "fairness.server_seed")
        commit = data.get("server_commit")
        if not isinstance(commit, str):
            raise InvalidRecordError(f"fairness.server_commit must be hex text, not {commit!r}")
        commits = _four(data, "client_commits")
        seeds = _four(data, "client_seeds")
        statuses = _four(data, "seat_status")
        rejected_raw = data.get("rejected_seeds", [None] * 4)
        if not isinstance(rejected_raw, list) or len(rejected_raw) != 4:
            raise InvalidRecordError("fairness.rejected_seeds must be a list of 4")
        client_commits: list[str | None] = []
        client_seeds: list[bytes] = []
        seat_status: list[SeatStatus] = []
        rejected: list[bytes | None] = []
        for s in range(4):
            c = commits[s]
            if c is not None and not isinstance(c, str):
                raise InvalidRecordError(f"fairness.client_commits[{s}] must be hex or null")
            client_commits.append(c)
            client_seeds.append(parse_hex(seeds[s], f"fairness.client_seeds[{s}]"))
            try:
                seat_status.append(SeatStatus(statuses[s]))
            except ValueError:
                known = ", ".join(x.value for x in SeatStatus)
                raise InvalidRecordError(
                    f"fairness.seat_status[{s}] = {statuses[s]!r} is not one of: {known}"
                ) from None
            r = rejected_raw[s]
            rejected.append(None if r is None else parse_hex(r, f"fairness.rejected_seeds[{s}]"))
        return HandFairness(
            table_id=table_id,
            hand_number=hand_number,
            server_seed=server_seed,
            server_commit=commit,
            client_commits=(
                client_commits[0],
                client_commits[1],
                client_commits[2],
                client_commits[3],
            ),
            client_seeds=(client_seeds[0], client_seeds[1], client_seeds[2], client_seeds[3]),
            seat_status=(seat_status[0], seat_status[1], seat_status[2], seat_status[3]),
            attempts=attempts,
            rejected_seeds=(rejected[0], rejected[1], rejected[2], rejected[3]),
        )


def parse_hex(value: object, what: str) -> bytes:
    """Bytes from hex text; the error names the field, so a bad record is easy to fix."""
    if not isinstance(value, str):
        raise InvalidRecordError(f"{what} must be hex text, not {value!r}")
    try:
        return bytes.fromhex(value)
    except ValueError:
        raise InvalidRecordError(f"{what} is not hex: {value!r}") from None


def _is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate, which JSON can spell as "\\ud800"
        return False
    return True


def _int(data: Mapping[str, object], name: str, *, minimum: int) -> int:
    value = data.get(name)
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise InvalidRecordError(f"fairness.{name} must be an integer >= {minimum}, not {value!r}")
    return value


def _four(data: Mapping[str, object], name: str) -> list[object]:
    value = data.get(name)
    if not isinstance(value, list) or len(value) != 4:
        raise InvalidRecordError(f"fairness.{name} must be a list of 4 (one per seat)")
    return list(value)


def settle(
    seat_kinds: Sequence[SeatKind],
    client_commits: Sequence[str | None],
    revealed: Sequence[bytes | None],
) -> tuple[
    tuple[bytes, bytes, bytes, bytes],
    tuple[SeatStatus, SeatStatus, SeatStatus, SeatStatus],
    tuple[bytes | None, bytes | None, bytes | None, bytes | None],
]:
    """Decide each seat's contribution: its seed only when a person's seed matches its commitment.

    ``client_commits[s]`` is None for a seat that did not commit before the timeout and
    ``revealed[s]`` None for one that did not reveal in time; bot and empty seats are looked at no
    further. Returns the four seeds, the four statuses, and the rejected (mismatching) seeds.
    """
    if not len(seat_kinds) == len(client_commits) == len(revealed) == 4:
        raise ValueError("settle needs one entry per seat (4) in each sequence")
    seeds: list[bytes] = []
    status: list[SeatStatus] = []
    rejected: list[bytes | None] = []
    for kind, commit, seed in zip(seat_kinds, client_commits, revealed, strict=True):
        reject: bytes | None = None
        if kind is SeatKind.BOT:
            st = SeatStatus.BOT
        elif kind is SeatKind.EMPTY:
            st = SeatStatus.EMPTY
        elif commit is None or seed is None:
            st = SeatStatus.TIMEOUT
        elif client_commit(seed) != commit.lower():
            st, reject = SeatStatus.MISMATCH, seed
        else:
            st = SeatStatus.REVEALED
        seeds.append(seed if st is SeatStatus.REVEALED and seed is not None else b"")
        status.append(st)
        rejected.append(reject)
    return (
        (seeds[0], seeds[1], seeds[2], seeds[3]),
        (status[0], status[1], status[2], status[3]),
        (rejected[0], rejected[1], rejected[2], rejected[3]),
    )


def hand_fairness(
    table_id: str,
    hand_number: int,
    server_seed: bytes,
    seat_kinds: Sequence[SeatKind],
    client_commits: Sequence[str | None],
    revealed: Sequence[bytes | None],
    *,
    attempts: int = 1,
) -> HandFairness:
    """Settle the seats and build the hand's fairness section (bots and empty seats: no commit)."""
    seeds, status, rejected = settle(seat_kinds, client_commits, revealed)
    commits = [
        None if kind is not SeatKind.PERSON else c
        for kind, c in zip(seat_kinds, client_commits, strict=True)
    ]
    return HandFairness(
        table_id=table_id,
        hand_number=hand_number,
        server_seed=server_seed,
        server_commit=server_commit(server_seed),
        client_commits=(commits[0], commits[1], commits[2], commits[3]),
        client_seeds=seeds,
        seat_status=status,
        attempts=attempts,
        rejected_seeds=rejected,
    )
