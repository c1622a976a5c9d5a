"""``Recent``: the public frames of a table's last events, for a client that reconnects.

A client that comes back with ``last_seq`` gets what it missed from here when it is recent
enough, else a full resync. Seqs and frames sit in two deques, not in one deque of
``(seq, frame)`` pairs: a pair is a container the cyclic collector tracks, one per event, living
for the next ``RECENT`` events; with 2,000 tables playing, those pairs were a share of what
made the collector's young collections come, each one a pause of every table (docs/server.md).
Ints and bytes are not tracked, and appending to a deque allocates nothing the collector sees.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator

RECENT = 512  # events kept in memory for a reconnecting client; older gaps get a full resync


class Recent:
    __slots__ = ("_frames", "_seqs")

    def __init__(self) -> None:
        self._seqs: deque[int] = deque(maxlen=RECENT)
        self._frames: deque[bytes] = deque(maxlen=RECENT)

    def add(self, seq: int, frame: bytes) -> None:
        self._seqs.append(seq)
        self._frames.append(frame)

    def extend(self, items: Iterable[tuple[int, bytes]]) -> None:
        for seq, frame in items:
            self.add(seq, frame)

    def __len__(self) -> int:
        return len(self._seqs)

    @property
    def first(self) -> int:
        """The oldest seq kept (the deque must not be empty)."""
        return self._seqs[0]

    def since_last(self, prefix: bytes) -> list[tuple[int, bytes]]:
        """``(seq, frame)`` of the newest frame that starts with ``prefix`` and of every one
        after it, in order; empty when no kept frame starts so."""
        out: list[tuple[int, bytes]] = []
        for seq, frame in zip(reversed(self._seqs), reversed(self._frames), strict=True):
            out.append((seq, frame))
            if frame.startswith(prefix):
                out.reverse()
                return out
        return []

    def after(self, last_seq: int) -> Iterator[tuple[int, bytes]]:
        """``(seq, frame)`` of every event kept after ``last_seq``, in order."""
        for seq, frame in zip(self._seqs, self._frames, strict=True):
            if seq > last_seq:
                yield seq, frame
