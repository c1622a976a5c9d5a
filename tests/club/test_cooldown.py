"""The quick-match cool-down's schedule (club.cooldown): one departure forgiven, then 1, 2, 4,
... minutes after the latest, at most an hour."""

from __future__ import annotations

from tranque.club.cooldown import LONGEST, cooldown_until


def test_it_grows_with_every_repeat_up_to_an_hour() -> None:
    assert cooldown_until([]) is None and cooldown_until([100.0]) is None
    assert cooldown_until([100.0, 50.0]) == 160.0  # a minute after the latest
    assert cooldown_until([10.0, 20.0, 30.0]) == 150.0
    assert cooldown_until([1.0] * 5) == 1.0 + 480.0
    assert cooldown_until([1.0] * 30) == 1.0 + LONGEST
