"""``Recent`` keeps the last ``RECENT`` events' frames, in order, as a list of pairs would."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tranque.table.recent import RECENT, Recent


@given(
    st.integers(min_value=1, max_value=10_000),
    st.integers(min_value=0, max_value=3 * RECENT),
    st.integers(min_value=0, max_value=12_000),
)
def test_recent_keeps_the_last_events_and_hands_out_those_after_a_seq(
    start: int, count: int, last_seq: int
) -> None:
    recent = Recent()
    pairs = [(seq, b"frame %d" % seq) for seq in range(start, start + count)]
    recent.extend(pairs[: count // 2])
    for seq, frame in pairs[count // 2 :]:
        recent.add(seq, frame)
    kept = pairs[-RECENT:]
    assert len(recent) == len(kept)
    if kept:
        assert recent.first == kept[0][0]
    assert list(recent.after(last_seq)) == [(s, f) for s, f in kept if s > last_seq]
