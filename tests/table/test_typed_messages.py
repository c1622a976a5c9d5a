"""Commands, log entries and events as typed Structs: the socket's frame is the table's command
object, an entry is read as the Struct of its type (and refused whole when it cannot be), and
each event encodes to exactly the bytes the table has always sent and kept."""

from __future__ import annotations

import hashlib
from dataclasses import replace

import msgspec
import pytest

from tranque.rules.variants import PRESETS
from tranque.server import protocol
from tranque.table import entries, events
from tranque.table.messages import COMMANDS, Play, Sit, as_command
from tranque.table.owner_frames import frame
from tranque.table.service import Entry, TableError, TableService, TableSettings, fixed_seeds
from tranque.table.thinking import due_here

SEEDS = fixed_seeds(b"typed")
FAST = TableSettings(pass_delay=0, bot_delay=0, between_hands=0, fair_window=0, bot="random")


def test_the_socket_decodes_a_table_command_into_the_tables_own_struct() -> None:
    msg = protocol.parse(b'{"type": "play", "id": "c1", "seq": 7, "move": "66@L"}')
    assert isinstance(msg, Play) and (msg.id, msg.seq, msg.move) == ("c1", 7, "66@L")
    # Every command the socket knows is one the table answers, and no other.
    assert {c.__struct_config__.tag for c in COMMANDS} == set(protocol.TABLE_COMMANDS)


def test_a_mapping_becomes_a_command_or_a_clear_refusal() -> None:
    sit = as_command({"type": "sit", "id": "a", "seat": 2})
    assert sit == Sit(id="a", seat=2)
    assert as_command(sit) is sit  # a typed command passes as it is
    with pytest.raises(TableError) as unknown:
        as_command({"type": "shuffle", "id": "a"})
    assert unknown.value.code == "unknown_type"
    for bad in (
        {"type": "sit", "id": "a", "seat": "2"},  # no coercion
        {"type": "sit", "id": "a", "seat": 2, "guest": "someone"},  # nobody names a guest
        {"type": "play", "id": "a", "seq": 1},  # no move
    ):
        with pytest.raises(TableError) as malformed:
            as_command(bad)
        assert malformed.value.code == "malformed", bad


def _table() -> TableService:
    svc = TableService("t", SEEDS)
    svc.apply(Entry(1, "created", {"settings": FAST.to_json(), "host": "h"}, 0.0))
    return svc


def test_an_entry_missing_what_it_needs_is_refused_and_changes_nothing() -> None:
    svc = _table()
    before = (svc.seq, [s.kind for s in svc.seats])
    for bad in (
        Entry(2, "sat", {"guest": "ana"}, 0.0),  # which seat?
        Entry(2, "bot_sat", {"seat": 1, "bot": 7}, 0.0),
        Entry(2, "shuffled", {}, 0.0),
    ):
        with pytest.raises(ValueError):
            svc.apply(bad)
        assert (svc.seq, [s.kind for s in svc.seats]) == before


# The public frames of one seeded game of each preset, as the table sent them before events were
# typed (their count and SHA-256), and the first deal's: typing them changed no byte.
GOLDEN_FRAMES = (489, "8eab422a3f0898421d58469dbc430e2d15c00b4e3e12badfc612cae6126f5e61")
GOLDEN_DEALT = (
    b'{"type":"dealt","hand":1,"attempt":0,"draw":null,"coin":null,"leading_pair":null,'
    b'"leader":null,"redeal_window":true,"deadline":0.0}'
)


def test_every_entry_is_read_by_its_struct_and_every_event_keeps_its_bytes() -> None:
    """A whole game of bots of each preset: every entry is read by the Struct of its type,
    every event's bytes are those of its plain object (``project``), and all of them are
    the bytes the table sent before (``GOLDEN_FRAMES``)."""
    seen: dict[str, bytes] = {}
    digest = hashlib.sha256()
    count = 0
    for preset in sorted(PRESETS):
        settings = replace(FAST, rules=PRESETS[preset])
        svc = TableService(f"t-{preset}", SEEDS)
        log = [Entry(1, "created", {"settings": settings.to_json(), "host": "h"}, 0.0)]
        log += [Entry(s + 2, "bot_sat", {"seat": s, "bot": "random"}, 0.0) for s in range(4)]
        now = 0.0
        while True:
            for e in log:
                svc.apply(e)
                assert entries.body_of(e).__struct_config__.tag == e.type
                data = frame(svc.event(e))
                assert data == msgspec.json.encode(svc.project(e)), e
                seen.setdefault(e.type, data)
                digest.update(data)
                count += 1
            if svc.over:
                break
            made = due_here(svc, now)
            if made is None:
                wake = svc.next_wake()
                assert wake is not None
                now = max(now, wake)
                log = []
            else:
                log = [made]
    assert set(seen) <= set(entries.BODIES)
    assert {"created", "bot_sat", "started", "hand_seed", "dealt", "played"} <= set(seen)
    assert seen["dealt"] == GOLDEN_DEALT
    assert (count, digest.hexdigest()) == GOLDEN_FRAMES


def test_an_events_optional_parts_are_there_only_when_they_say_something() -> None:
    """The frames a client reads, pinned: ``renamed`` only for a new name, ``hand_end`` only
    for the play that ended its hand; a null is sent as null, never left out."""
    assert frame(events.Sat(1, None, "person")) == (
        b'{"type":"sat","seat":1,"nickname":null,"kind":"person"}'
    )
    assert frame(events.Sat(1, "Ana", "person", True)) == (
        b'{"type":"sat","seat":1,"nickname":"Ana","kind":"person","renamed":true}'
    )
    play = events.Played(seat=2, move="65@R", by="person", n=None, hand=3)
    assert frame(play) == (
        b'{"type":"played","seat":2,"move":"65@R","by":"person","n":null,"hand":3}'
    )
    ended = msgspec.structs.replace(play, hand_end={"game_over": False}, n=40)
    assert frame(ended) == (
        b'{"type":"played","seat":2,"move":"65@R","by":"person",'
        b'"hand_end":{"game_over":false},"n":40,"hand":3}'
    )
    assert events.as_dict(ended) == msgspec.json.decode(frame(ended))
    renamed = events.Sat(1, "Ana", "person", True)
    assert events.as_dict(renamed) == msgspec.json.decode(frame(renamed))
    assert "renamed" not in events.as_dict(events.Sat(1, "Ana", "person"))


def test_the_entries_the_table_writes_by_itself_keep_the_bytes_of_the_logs() -> None:
    """What the table logs on its own (a clock that ran out on a choice, a person seated by
    the queue or at the table's making) is written as every log has it: an explicit null for
    no choice, the seated person's guest before his name; a command's entry after it."""
    raw = msgspec.json.encode
    clock = entries.logged(9, entries.Chose(seat=1, choice=None, by="clock"), 2.0)
    assert (clock.type, raw(clock.data)) == ("chose", b'{"seat":1,"choice":null,"by":"clock"}')
    seated = entries.placed(3, 2, "g7", "Ana", 1.0)
    assert (seated.seq, seated.type, seated.ts) == (3, "sat", 1.0)
    assert raw(seated.data) == b'{"seat":2,"guest":"g7","nickname":"Ana"}'
    sit = entries.logged(4, entries.Sat(seat=2, nickname="Ana", guest="g7", cmd="c1"), 1.0)
    assert raw(sit.data) == b'{"seat":2,"nickname":"Ana","guest":"g7","cmd":"c1"}'
    # Both are read back as the same body.
    assert entries.body_of(seated) == entries.Sat(seat=2, nickname="Ana", guest="g7")
    assert entries.body_of(clock) == entries.Chose(seat=1, choice=None, by="clock")
