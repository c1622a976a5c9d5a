"""Every deal is on show for the same window, whoever may ask for a redeal (rules.md, 11).

Many hands of real tables (two people, two random bots that ask for a redeal half the time
they may): what a spectator and a person who may not ask are sent during a deal's window is
the same, in its keys, phases and timing, whether somebody may ask and says no (a person, or a
bot), or nobody may; a redeal asked is the one thing that closes it early, and it is public.
No "no" is ever logged; the log rebuilds the same table.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from test_table_service import FAST, SEEDS, Driver, _log_of, new_table

from tranque.rules.game import Phase
from tranque.table.ports import Entry
from tranque.table.service import TableService, rebuild

PERSONS = {0: "ana", 2: "luis"}
WINDOW = 2.0
SETTINGS = replace(FAST, redeal_window=WINDOW, choose_window=4, bot="random")


class Windows(Driver):
    """Records, for each deal, the entries of its window and what everybody was sent."""

    def __init__(self, svc: TableService) -> None:
        super().__init__(svc)
        self.deals: list[dict[str, Any]] = []
        self.open: dict[str, Any] | None = None

    def apply(self, e: Entry) -> None:
        super().apply(e)
        svc = self.svc
        if e.type == "dealt":
            game = svc.game
            assert game.pending_deal is not None
            # Who may ask, read from the deal itself (the table's state says the same).
            self.open = {
                "eligible": game.redeal_eligible(),
                "ts": e.ts,
                "sent": [],
                "entries": [],
            }
            self.deals.append(self.open)
        if self.open is None:
            return
        self.open["entries"].append(e)
        self.open["sent"].append(
            {
                "event": svc.project(e),
                "spectator": svc.state_for(None),
                "persons": {s: svc.state_for(s) for s in PERSONS},
                "ts": e.ts,
            }
        )
        if svc.game.phase is not Phase.REDEAL:
            self.open = None

    def person_duty(self, persons: dict[int, str], on_turn: Any) -> bool | str:
        """As ``Driver``'s, but a person offered a redeal asks for it every other deal."""
        for seat, guest in persons.items():
            st = self.svc.state_for(seat)
            if st["redeal"] and len(self.deals) % 2:
                self.cmd(guest, {"type": "redeal", "seq": self.svc.version, "ask": True})
                return True
        return super().person_duty(persons, on_turn)


def _shape(sent: dict[str, Any], seat: int | None) -> Any:
    """What one observer could compare between two deals: the event's type and keys and its
    values that do not come from the deal; the state's keys, phase, offer and clocks (as times
    after the event). Who leads next comes from the draw, not from the doubles: left out."""
    e = sent["event"]
    st = sent["spectator"] if seat is None else sent["persons"][seat]
    # (``attempt`` counts the public redeals before this deal: not compared either.)
    same = {k: e[k] for k in ("type", "redeal_window", "ask") if k in e}
    if e.get("deadline") is not None:
        same["after"] = e["deadline"] - sent["ts"]
    mine = {"phase": st["phase"], "redeal": st.get("redeal")}
    if st["phase"] == "redeal":
        for k in ("deadline", "my_deadline", "turn"):
            mine[k] = None if st.get(k) is None else st[k] - sent["ts"]
    return (sorted(e), sorted(st), same, mine)


def test_a_deals_window_looks_the_same_whoever_may_ask() -> None:
    kinds: dict[str, list[dict[str, Any]]] = {"none": [], "silent": [], "asked": []}
    logs = []
    for n in range(60):
        tid = f"w{n}"
        d = Windows(new_table(SETTINGS, PERSONS, tid))
        d.run_to_end(PERSONS)
        logs.append((tid, d))
        for deal in d.deals:
            types = [e.type for e in deal["entries"]]
            assert types[0] == "dealt" and types[-1] in ("redeal_closed", "redeal"), types
            assert all(t not in ("redeal", "redeal_closed") for t in types[1:-1]), types
            if types[-1] == "redeal":
                assert deal["entries"][-1].data["ask"] is True  # only an ask is ever logged
                kinds["asked"].append(deal)
            else:
                kinds["silent" if deal["eligible"] else "none"].append(deal)
        if all(len(v) >= 3 for v in kinds.values()):
            break
    assert all(len(v) >= 3 for v in kinds.values()), {k: len(v) for k, v in kinds.items()}
    assert not any(e.type == "redeal" and not e.data["ask"] for _, d in logs for e in d.log), (
        "a 'no' was logged"
    )
    # A seat may ask: a person or a bot, who said no (or nothing): nobody else can tell.
    assert any(p in deal["eligible"] for deal in kinds["silent"] for p in PERSONS)
    assert any(b in deal["eligible"] for deal in kinds["silent"] for b in (1, 3))
    reference = kinds["none"][0]
    for deal in [*kinds["none"], *kinds["silent"]]:
        # The window lasts its length, to the same instant after the deal, every hand.
        assert deal["entries"][-1].ts - deal["ts"] == WINDOW
        for seat in (None, *PERSONS):
            if seat is not None and seat in deal["eligible"]:
                continue  # the one who may ask is offered it: that is his to know
            got = [_shape(s, seat) for s in deal["sent"]]
            want = [_shape(s, seat) for s in reference["sent"]]
            assert got == want, (seat, deal["eligible"], got, want)
    for deal in kinds["asked"]:
        # The ask: earlier than the window's end, and everybody is told who asked.
        last = deal["sent"][-1]["event"]
        assert last["seat"] in deal["eligible"] and deal["entries"][-1].ts < deal["ts"] + WINDOW
    # The logs rebuild the same tables (a "no" leaves nothing behind to rebuild from).
    for tid, d in logs[:5]:
        rebuilt = rebuild(tid, [*_log_of(new_table(SETTINGS, PERSONS, tid)), *d.log], SEEDS)
        assert rebuilt.game == d.svc.game and rebuilt.table_record() == d.svc.table_record()


def test_a_table_of_bots_shows_every_deal_for_its_bots_pause() -> None:
    """With nobody at the table the window is the bots' pause (``bot_delay``), every hand."""
    settings = replace(SETTINGS, bot_delay=0.5)
    d = Windows(new_table(settings, {}, "bots"))
    d.run_to_end({})
    assert d.svc.over and d.deals
    for deal in d.deals:
        last = deal["entries"][-1]
        if last.type == "redeal_closed":
            assert last.ts - deal["ts"] == 0.5
        else:
            assert last.type == "redeal" and last.data["ask"] is True
