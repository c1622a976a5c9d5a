"""What leaves a table: the public form of each entry, every recipient's state, a resync.

A mixin of ``TableService``: these read the table's state and never change it. ``project`` must
never show a seed before its hand ends, nor a tile its recipient may not see; ``state_for`` is
split in a part every recipient shares and each seat's own, so that an owner encodes the shared
part once per event (``TableOwner._render``).
"""

from __future__ import annotations

from typing import Any

from tranque.fair.recipe import server_commit
from tranque.fair.seeds import SeatKind
from tranque.rules.game import Phase
from tranque.rules.hand import PASS
from tranque.rules.tiles import format_tiles
from tranque.rules.views import public_view, seat_view
from tranque.table import stakes
from tranque.table.model import ACT, GRACE, REDEAL
from tranque.table.ports import Entry
from tranque.table.state import TableState


class TableViews(TableState):
    """The reading half of ``TableService`` (see ``TableState`` for the state it reads)."""

    def match_json(self) -> dict[str, Any]:
        """The match tally every state carries: game number, games won by pair A and B.

        ``hand_base``: hand ``n`` of the current game (its views and record) is table hand
        ``hand_base + n``, the number that events, fairness sections and commitments use.
        """
        winner = self.match.winner
        return {
            "game": self.game_number,
            "hand_base": self.hand_base,
            "wins": list(self.match.wins),
            "to_win": self.settings.rules.games_to_win_match,
            "over": winner is not None,
            "winner": winner,
        }

    def info(self) -> dict[str, Any]:
        s = self.settings.to_json()
        bot = s.pop("bot", None)
        result = self.result_json()
        return {
            "table": self.table_id,
            "settings": s,
            "bot": bot,  # the level (or bot) of the table's practice seats, takeovers and clocks
            "seats": [seat.to_json() for seat in self.seats],
            "started": self.started,
            "over": self.over,
            "host": self.host,
            "match": self.match_json(),
            "result": result,
            "chips": stakes.view(self.settings.stake, result),  # None for a free table
        }

    def result_json(self) -> dict[str, Any] | None:
        """Once the table is over, what the club rates and counts (None before): the winning
        pair, and by pair (A, B) the pollonas and viajeras won; ``pollona``: the deciding game
        was one (the rating update counts double, docs/club.md)."""
        match = self.match
        winner = match.winner
        if winner is None or not match.games:
            return None
        pollonas = [0, 0]
        viajeras = [0, 0]
        for game in match.games:
            if game.pollona and game.winner is not None:
                pollonas[game.winner] += 1
            for played in game.played:
                outcome = played.hand.outcome
                if outcome is not None and outcome.viajera and outcome.winning_pair is not None:
                    viajeras[outcome.winning_pair] += 1
        return {
            "winner": "AB"[winner],
            "pollona": match.games[-1].pollona,
            "pollonas": pollonas,
            "viajeras": viajeras,
        }

    def actor_deadline(self, seat: int) -> float | None:
        return self.timers.get(ACT[seat])

    def state_for(self, seat: int | None) -> dict[str, Any]:
        """The small state every event carries: the public position, and the seat's own part."""
        out = self.public_state()
        if seat is not None:
            out.update(self.seat_state(seat))
        return out

    def public_state(self) -> dict[str, Any]:
        """The part of every recipient's state that is the same for all of them."""
        game = self.game
        hand = game.hand
        phase = game.phase
        out: dict[str, Any] = {
            "phase": phase.value,
            "hand": self.table_hand,
            "version": self.version,
            "scores": list(game.scores),
            "match": self.match_json(),
        }
        if hand is not None:
            out["turn"] = hand.turn if phase is Phase.PLAY and not hand.is_over else None
            out["ends"] = list(hand.ends) if hand.ends is not None else None
            out["counts"] = [m.bit_count() for m in hand.hands]
        else:
            out["turn"] = None
            out["ends"] = None
            n = game.rules.tiles_each if game.pending_deal is not None else 0
            out["counts"] = [n] * 4
        if phase is Phase.PLAY and hand is not None and not hand.is_over:
            out["deadline"] = self.actor_deadline(hand.turn)
        elif phase is Phase.REDEAL and REDEAL in self.timers:
            out["deadline"] = self.timers[REDEAL]  # the deal on show: the same every hand
        # Between hands (or games): when the next one starts, and who it waits for.
        nxt = self.timers.get("hand")
        if nxt is None:
            nxt = self.timers.get("next_game")
        if nxt is not None:
            out["next_hand"] = nxt
            out["reading"] = sorted(self.reading)
        return out

    def seat_state(self, seat: int) -> dict[str, Any]:
        """The seat's own part of its state: its tiles and what it may decide now.

        Its keys never meet ``public_state``'s, so the two encode apart and join as one object.
        """
        game = self.game
        hand = game.hand
        phase = game.phase
        if hand is not None and phase is Phase.PLAY:
            mine = hand.hands[seat]
        elif game.pending_deal is not None:
            mine = game.pending_deal.hands[seat]
        elif hand is not None:
            mine = hand.hands[seat]
        else:
            mine = 0
        acting = not self.seats[seat].bot_plays
        legal: list[str] = []
        if acting and phase is Phase.PLAY and hand is not None and hand.turn == seat:
            actions = hand.legal_actions()
            if actions != [PASS]:  # passes are the server's to make
                legal = [a.text for a in actions]
        choosing = game.choosing_seats() if phase is Phase.CHOOSE else None
        fair_due = None
        fair = self.fair
        if fair is not None and fair.stage != "dealt" and fair.kinds[seat] is SeatKind.PERSON:
            if fair.stage == "commit" and fair.commits[seat] is None:
                fair_due = {"hand": fair.hand, "do": "commit"}
            elif fair.stage == "reveal" and fair.commits[seat] and fair.seeds[seat] is None:
                fair_due = {"hand": fair.hand, "do": "reveal"}
        if self._tile_masks[seat] != mine:
            self._tile_masks[seat] = mine
            self._tile_texts[seat] = format_tiles(mine)
        redeal = (
            acting
            and phase is Phase.REDEAL
            and seat not in self.redeal_silent
            and seat in game.redeal_eligible()
        )
        deadline = self.actor_deadline(seat)
        if redeal and game.redeal_held:
            deadline = self.timers.get(REDEAL)  # the window's end: the offer's own clock
        return {
            "seat": seat,
            "tiles": self._tile_texts[seat],
            "legal": legal,
            "redeal": redeal,
            "choosing": (
                acting and choosing is not None and seat in choosing and seat not in self.choices
            ),
            "fair": fair_due,
            "my_deadline": deadline,
        }

    def full_view(self, seat: int | None) -> dict[str, Any]:
        """Everything a recipient may know now (a resync)."""
        game = self.game
        view = public_view(game).to_json() if seat is None else seat_view(game, seat).to_json()
        fair = self.fair
        commitments = None
        if fair is not None and fair.hand not in self.published:
            commitments = {
                "hand": fair.hand,
                "server_commit": server_commit(fair.server_seed),
                "client_commits": list(fair.commits),
                "stage": fair.stage,
            }
        return {
            "table": self.info(),
            "seq": self.seq,
            "view": view,
            "state": self.state_for(seat),
            "commitments": commitments,
            "fairness": {str(k): v for k, v in self.published.items()},
        }

    def project(self, entry: Entry) -> dict[str, Any]:
        """The public form of an entry, right after it was applied: no secret, no hidden tile."""
        d = entry.data
        t = entry.type
        out: dict[str, Any] = {"type": t}
        if t == "created":
            out["table"] = self.info()
        elif t == "sat":
            out.update(seat=d["seat"], nickname=d.get("nickname"), kind="person")
        elif t == "bot_sat":
            out.update(seat=d["seat"], bot=d["bot"], kind="bot")
        elif t in ("stood", "back"):
            out["seat"] = d["seat"]
        elif t == "away":
            out.update(
                seat=d["seat"], left=bool(d.get("left")), grace=self.timers.get(GRACE[d["seat"]])
            )
        elif t == "takeover":
            out.update(seat=d["seat"], bot=d["bot"])
        elif t == "hand_seed":
            out = {
                "type": "hand_commit",
                "hand": d["hand"],
                "server_commit": server_commit(bytes.fromhex(d["server_seed"])),
                "seeds_from": [k.value for k in self.fair.kinds] if self.fair else None,
                "deadline": self.timers.get("fair"),
            }
        elif t == "committed":
            out.update(seat=d["seat"], hand=d["hand"], commit=d["commit"])
        elif t == "reveal_open":
            out.update(hand=d["hand"], deadline=self.timers.get("fair"))
        elif t == "revealed":
            out.update(seat=d["seat"], hand=d["hand"])  # the seed is published with the hand
        elif t == "dealt":
            setup = self.game.setup
            out.update(
                hand=d["hand"],
                attempt=d["attempt"],
                draw=None if setup.draw is None else [[str(a), str(b)] for a, b in setup.draw],
                coin=setup.coin,
                leading_pair=setup.leading_pair,
                leader=self.game.hand.leader
                if self.game.phase is Phase.PLAY and self.game.hand
                else None,
                # Every deal of a table is shown alike (``window`` in the entry): true, with
                # the same deadline's distance, whoever holds what. False only in old logs, for
                # a deal nobody could ask to throw in.
                redeal_window=self.game.phase is Phase.REDEAL,
                deadline=self.timers.get(REDEAL),
            )
        elif t == "redeal":
            # Only an ask is logged now; the declines of old logs name no seat.
            out.update(ask=d["ask"], seat=d["seat"] if d["ask"] else None)
        elif t == "redeal_closed":
            game = self.game
            out.update(
                hand=d["hand"],
                leader=game.hand.leader if game.phase is Phase.PLAY and game.hand else None,
            )
        elif t == "chose":
            out["seat"] = d["seat"]  # the choice itself is revealed with the partner's
        elif t == "choices":
            out.update(
                choices=d["choices"], leader=self.game.hand.leader if self.game.hand else None
            )
        elif t == "played":
            hand = self.game.hand
            out.update(seat=d["seat"], move=d["move"], by=d["by"])
            last = self.game.played[-1].hand if self.game.played else None
            if self.game.phase is not Phase.PLAY:
                out["hand_end"] = {
                    "view": public_view(self.game).to_json(),
                    "fairness": self.published.get(self.fair.hand) if self.fair else None,
                    "game_over": self.game.is_over,
                    "match_over": self.over,
                    "match": self.match_json(),
                }
                out["n"] = len(last.moves) - 1 if last is not None else None
            else:
                assert hand is not None
                out["n"] = len(hand.moves) - 1
            out["hand"] = self.fair.hand if self.fair else self.game.hand_number
        elif t == "reading":
            out.update(seat=d["seat"], hand=d["hand"], done=d["done"])
        elif t == "next_game":
            out.update(game=d["game"], hand=d["hand"], match=self.match_json())
        elif t == "resumed":
            out["shift"] = d["shift"]
        return out
