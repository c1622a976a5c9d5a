"""What one seat may know (``SeatView``) and what a spectator may know (``PublicView``).

These are the only way state leaves the core: the server sends them, bots decide from them. Before a
hand ends a view holds the seat's own tiles and nothing else hidden: no other hand, no sleeper, no
seed. Once the hand is over, every hand and the sleepers are shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tranque.rules.game import GameState, LeadChoice, Phase, ScoreLine
from tranque.rules.hand import Action, HandState, Outcome
from tranque.rules.tiles import Tile, format_tiles, tiles_of
from tranque.rules.variants import Rules


@dataclass(frozen=True, slots=True)
class PlacedTile:
    """A tile on the table: who played it, on which side of the chain, and the end it opened."""

    tile: Tile
    seat: int
    move: int  # index in the hand's moves
    side: str  # "lead", "left" or "right"
    opened: int  # the number this tile left showing (for the lead: its low half is on the right)


@dataclass(frozen=True, slots=True)
class PublicView:
    """What anybody at or around the table may know."""

    rules: Rules
    phase: Phase
    hand_number: int
    scores: tuple[int, int]
    sheet: tuple[ScoreLine, ...]
    leader: int | None
    leading_pair: int | None
    choices: tuple[LeadChoice | None, LeadChoice | None] | None
    redeals_asked_by: tuple[int, ...]
    turn: int | None
    ends: tuple[int, int] | None
    moves: tuple[tuple[int, Action], ...]  # (seat, action), passes included
    chain: tuple[PlacedTile, ...]  # left to right
    tile_counts: tuple[int, int, int, int]
    outcome: Outcome | None
    # Shown only once the hand is over:
    final_hands: tuple[tuple[Tile, ...], ...] | None
    dealt_hands: tuple[tuple[Tile, ...], ...] | None
    sleepers: tuple[Tile, ...] | None
    game_winner: int | None
    pollona: bool

    @property
    def passes(self) -> tuple[tuple[int, int], ...]:
        """(move index, seat) of every pass."""
        return tuple((k, s) for k, (s, a) in enumerate(self.moves) if a.is_pass)

    def to_json(self) -> dict[str, Any]:
        def tiles(ts: tuple[Tile, ...] | None) -> str | None:
            return None if ts is None else format_tiles(ts)

        return {
            "rules": self.rules.to_json(),
            "phase": self.phase.value,
            "hand_number": self.hand_number,
            "scores": list(self.scores),
            "sheet": [
                {
                    "hand": ln.hand_number,
                    "pair": ln.pair,
                    "points": ln.points,
                    "kind": ln.kind,
                    "totals": list(ln.totals),
                }
                for ln in self.sheet
            ],
            "leader": self.leader,
            "leading_pair": self.leading_pair,
            "choices": None
            if self.choices is None
            else [None if c is None else c.value for c in self.choices],
            "redeals_asked_by": list(self.redeals_asked_by),
            "turn": self.turn,
            "ends": None if self.ends is None else list(self.ends),
            "moves": [[seat, str(action)] for seat, action in self.moves],
            "chain": [
                {"tile": str(p.tile), "seat": p.seat, "side": p.side, "opened": p.opened}
                for p in self.chain
            ],
            "tile_counts": list(self.tile_counts),
            "outcome": None if self.outcome is None else outcome_json(self.outcome),
            "final_hands": None
            if self.final_hands is None
            else [tiles(h) for h in self.final_hands],
            "dealt_hands": None
            if self.dealt_hands is None
            else [tiles(h) for h in self.dealt_hands],
            "sleepers": tiles(self.sleepers),
            "game_winner": self.game_winner,
            "pollona": self.pollona,
        }


@dataclass(frozen=True, slots=True)
class SeatView:
    """What one seat may know: the public view, its own tiles, and its legal actions."""

    seat: int
    public: PublicView
    tiles: tuple[Tile, ...]
    legal: tuple[Action, ...]  # empty unless it is this seat's turn to play
    redeal_eligible: bool  # this seat may ask for a redeal now
    choosing: bool  # this seat chooses Salgo / Sal tú now

    def to_json(self) -> dict[str, Any]:
        out = self.public.to_json()
        out.update(
            seat=self.seat,
            tiles=format_tiles(self.tiles),
            legal=[str(a) for a in self.legal],
            redeal_eligible=self.redeal_eligible,
            choosing=self.choosing,
        )
        return out


def chain_of(hand: HandState) -> tuple[PlacedTile, ...]:
    """The tiles on the table, left to right, with the side each went on."""
    left: list[PlacedTile] = []
    right: list[PlacedTile] = []
    lead: PlacedTile | None = None
    lo = hi = -1
    for k, action in enumerate(hand.moves):
        tile = action.tile
        if tile is None:
            continue
        seat = hand.seat_of_move(k)
        if lead is None:
            lead = PlacedTile(tile, seat, k, "lead", tile.low)
            lo, hi = tile.high, tile.low
        elif action.end == lo:
            lo = tile.other(lo)
            left.append(PlacedTile(tile, seat, k, "left", lo))
        else:
            hi = tile.other(hi)
            right.append(PlacedTile(tile, seat, k, "right", hi))
    if lead is None:
        return ()
    return (*reversed(left), lead, *right)


def outcome_json(outcome: Outcome) -> dict[str, Any]:
    return {
        "kind": outcome.kind.value,
        "winner": outcome.winner,
        "winning_pair": outcome.winning_pair,
        "points": outcome.points,
        "pips": list(outcome.pips),
        "closer": outcome.closer,
        "capicua": outcome.capicua,
        "viajera": outcome.viajera,
    }


def public_view(game: GameState) -> PublicView:
    """The spectator's view of a game."""
    hand = game.hand
    setup = game.setup
    # Face up once the hand is over, or the game (a bonus can end it in the middle of a hand).
    shown = hand is not None and (hand.is_over or game.is_over)
    if hand is None:
        moves: tuple[tuple[int, Action], ...] = ()
        counts = (0, 0, 0, 0) if game.pending_deal is None else (game.rules.tiles_each,) * 4
        ends = None
        turn = None
        chain: tuple[PlacedTile, ...] = ()
    else:
        moves = tuple((hand.seat_of_move(k), a) for k, a in enumerate(hand.moves))
        c = hand.hands
        counts = (c[0].bit_count(), c[1].bit_count(), c[2].bit_count(), c[3].bit_count())
        ends = hand.ends
        turn = None if hand.is_over or game.phase is not Phase.PLAY else hand.turn
        chain = chain_of(hand)
    final = dealt = sleepers = None
    if shown:
        assert hand is not None
        final = tuple(tuple(tiles_of(m)) for m in hand.hands)
        dealt = tuple(tuple(tiles_of(m)) for m in hand.deal.hands)
        sleepers = tuple(tiles_of(hand.sleepers))
    return PublicView(
        rules=game.rules,
        phase=game.phase,
        hand_number=game.played[-1].setup.number if shown and game.played else game.hand_number,
        scores=game.scores,
        sheet=game.sheet,
        leader=None if hand is None else hand.leader,
        leading_pair=setup.leading_pair,
        choices=setup.choices,
        redeals_asked_by=tuple(r.asked_by for r in setup.redeals),
        turn=turn,
        ends=ends,
        moves=moves,
        chain=chain,
        tile_counts=counts,
        outcome=None if hand is None else hand.outcome,
        final_hands=final,
        dealt_hands=dealt,
        sleepers=sleepers,
        game_winner=game.winner,
        pollona=game.pollona,
    )


def seat_view(game: GameState, seat: int) -> SeatView:
    """What ``seat`` may know of ``game``."""
    public = public_view(game)
    if game.hand is not None:
        mine = game.hand.hands[seat]
    elif game.pending_deal is not None:
        mine = game.pending_deal.hands[seat]
    else:
        mine = 0
    legal: tuple[Action, ...] = ()
    if game.phase is Phase.PLAY and game.hand is not None and game.hand.turn == seat:
        legal = tuple(game.hand.legal_actions())
    choosing = game.choosing_seats()
    return SeatView(
        seat=seat,
        public=public,
        tiles=tuple(tiles_of(mine)),
        legal=legal,
        redeal_eligible=seat in game.redeal_eligible(),
        choosing=choosing is not None and seat in choosing,
    )
