"""Hand and game records (JSON): writing them, reading them, replaying them move by move.

The shapes are documented in ``docs/records.md``. A record round-trips exactly: ``to_json`` of a
replayed record gives back the same object. Replay re-applies every move through the checked path,
so an illegal step is reported with the hand, the move's number, the seat and the reason.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from tranque.rules.errors import InvalidRecordError, RulesError
from tranque.rules.game import GameState, LeadChoice, MatchState, Phase, Setup
from tranque.rules.hand import Action, Deal, HandState, Outcome
from tranque.rules.tiles import Tile, format_tiles
from tranque.rules.variants import Rules

HAND_FORMAT = "tranque-hand/1"
GAME_FORMAT = "tranque-game/1"
MATCH_FORMAT = "tranque-match/1"
FORMATS = (HAND_FORMAT, GAME_FORMAT, MATCH_FORMAT)


class ReplayError(RulesError):
    """A step of a record that the rules reject: where it is, who made it, and why."""

    code = "illegal_record_step"

    def __init__(
        self,
        reason: str,
        *,
        hand: int | None = None,
        move: int | None = None,
        seat: int | None = None,
    ) -> None:
        where = []
        if hand is not None:
            where.append(f"hand {hand}")
        if move is not None:
            where.append(f"move {move}")
        if seat is not None:
            where.append(f"seat {seat}")
        super().__init__(f"{', '.join(where)}: {reason}" if where else reason)
        self.hand = hand
        self.move = move
        self.seat = seat
        self.reason = reason


# --------------------------------------------------------------------------------------------
# Writing


def deal_json(deal: Deal) -> dict[str, Any]:
    return {
        "hands": [format_tiles(m) for m in deal.hands],
        "sleepers": format_tiles(deal.sleepers),
    }


def hand_record(hand: HandState, *, fairness: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The ``tranque-hand/1`` record of a hand (finished or not)."""
    out: dict[str, Any] = {"format": HAND_FORMAT, "rules": hand.rules.to_json()}
    out.update(deal_json(hand.deal))
    out["leader"] = hand.leader
    out["moves"] = [str(a) for a in hand.moves]
    if fairness is not None:
        out["fairness"] = dict(fairness)
    return out


def setup_json(setup: Setup) -> dict[str, Any]:
    return {
        "draw": None if setup.draw is None else [[str(a), str(b)] for a, b in setup.draw],
        "coin": setup.coin,
        "redeals": [dict(deal_json(r.deal), asked_by=r.asked_by) for r in setup.redeals],
        "leading_pair": setup.leading_pair,
        "priority": setup.priority,
        "choices": None
        if setup.choices is None
        else [None if c is None else c.value for c in setup.choices],
    }


def game_record(
    game: GameState, *, fairness: Mapping[int, Mapping[str, Any]] | None = None
) -> dict[str, Any]:
    """The ``tranque-game/1`` record: every played hand with its setup (and fairness by number)."""
    hands = []
    for played in game.played:
        number = played.setup.number
        rec = hand_record(played.hand, fairness=(fairness or {}).get(number))
        del rec["format"], rec["rules"]
        rec = {"number": number, "setup": setup_json(played.setup), **rec}
        hands.append(rec)
    return {"format": GAME_FORMAT, "rules": game.rules.to_json(), "hands": hands}


def match_record(
    match: MatchState,
    current: GameState | None = None,
    *,
    fairness: Mapping[int, Mapping[str, Any]] | None = None,
) -> dict[str, Any]:
    """The ``tranque-match/1`` record: every game of the match in order, and the tally.

    ``current`` is the game in progress (its finished hands), while the match is on.
    ``fairness`` is keyed by the *table's* hand number, which keeps counting from game to game:
    a game's hand ``n`` is table hand ``n`` plus every hand of the games before it.
    """
    fairness = fairness or {}
    games = []
    base = 0
    for game in (*match.games, *([] if current is None else [current])):
        sections = {
            n: fairness[base + n] for n in range(1, game.hand_number + 1) if base + n in fairness
        }
        games.append(game_record(game, fairness=sections))
        base += game.hand_number
    winner = match.winner
    return {
        "format": MATCH_FORMAT,
        "rules": match.rules.to_json(),
        "games": games,
        "wins": list(match.wins),
        "winner": None if winner is None else "AB"[winner],
    }


# Who sat where: ``"players"`` of a game or match record (docs/records.md): per seat, the
# person's handle (an account's name, or this prefix and the guest's id, as his profile's
# address has it; a name never has a '~'), or None for a bot.
GUEST_PREFIX = "~"


def players_of(data: Mapping[str, Any]) -> tuple[str | None, ...] | None:
    """The record's ``players`` (seats 0-3), or None when it has none: an optional key that the
    replay ignores, so a reader that does not know it reads the record all the same.

    >>> players_of({"players": ["ana", None, "~4f1c", "beto"]})
    ('ana', None, '~4f1c', 'beto')
    """
    raw = data.get("players")
    if raw is None:
        return None
    if not isinstance(raw, list) or len(raw) != 4:
        raise InvalidRecordError(f"'players' must be a list of 4, not {_short(raw)}")
    for s, who in enumerate(raw):
        if who is not None and (not isinstance(who, str) or not 1 <= len(who) <= 80):
            raise InvalidRecordError(
                f"'players' seat {s}: a name, '~' and a guest's id, or null, not {_short(who)}"
            )
    return tuple(raw)


# --------------------------------------------------------------------------------------------
# Reading


def _get(data: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in data:
        raise InvalidRecordError(f"{where}: missing {key!r}")
    value = data[key]
    # bool is a subclass of int in Python: ``true`` is never a seat, a number or a coin.
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        kinds = kind if isinstance(kind, tuple) else (kind,)
        what = " or ".join(_KIND_NAMES.get(k, k.__name__) for k in kinds)
        raise InvalidRecordError(f"{where}: {key!r} must be {what}, not {_short(value)}")
    return value


_KIND_NAMES = {int: "an integer", str: "a string", list: "a list", dict: "an object"}


def _short(value: object) -> str:
    """A value as JSON, cut to one short line for an error message."""
    try:
        text = json.dumps(value)
    except (ValueError, TypeError, RecursionError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _optional(data: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    """``data[key]`` checked like ``_get``, or None when it is missing or null."""
    if data.get(key) is None:
        return None
    return _get(data, key, kind, where)


def _deal_from(data: Mapping[str, Any], rules: Rules, where: str) -> Deal:
    hands = _get(data, "hands", list, where)
    if len(hands) != 4 or not all(isinstance(h, str) for h in hands):
        raise InvalidRecordError(f"{where}: 'hands' must be four strings of tiles")
    sleepers = data.get("sleepers")
    if sleepers is not None and not isinstance(sleepers, str):
        raise InvalidRecordError(f"{where}: 'sleepers' must be a string of tiles")
    try:
        return Deal.from_text(hands, sleepers, rules=rules)
    except RulesError as exc:
        raise InvalidRecordError(f"{where}: {exc}") from None


def _moves_from(data: Mapping[str, Any], where: str) -> list[Action]:
    moves = _get(data, "moves", list, where)
    out = []
    for k, text in enumerate(moves):
        try:
            out.append(Action.parse(text))
        except RulesError as exc:
            raise InvalidRecordError(f"{where}, move {k}: {exc}") from None
    return out


def load(text: str) -> dict[str, Any]:
    """Parse a record's JSON text (either format)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidRecordError(f"not JSON: {exc}") from None
    except RecursionError:
        raise InvalidRecordError("not a record: JSON nested too deeply") from None
    except ValueError as exc:  # an integer beyond Python's int-to-str limit (4,300 digits)
        raise InvalidRecordError(f"not usable JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("format") not in FORMATS:
        raise InvalidRecordError(
            f"not a tranque record: 'format' must be {HAND_FORMAT!r}, {GAME_FORMAT!r} "
            f"or {MATCH_FORMAT!r}"
        )
    return data


def _rules_from(data: Mapping[str, Any]) -> Rules:
    if "rules" not in data:
        return Rules()
    return Rules.from_json(data["rules"])


def replay_moves(hand: HandState, moves: list[Action], *, number: int | None = None) -> HandState:
    for k, action in enumerate(moves):
        seat = hand.seat_of_move(k)
        if hand.is_over:
            raise ReplayError(
                f"'{action}' comes after the hand ended", hand=number, move=k, seat=seat
            )
        try:
            hand = hand.apply(action)
        except RulesError as exc:
            raise ReplayError(f"'{action}': {exc}", hand=number, move=k, seat=seat) from None
    return hand


def replay_hand(data: Mapping[str, Any]) -> HandState:
    """Replay a ``tranque-hand/1`` record and return the final state."""
    if data.get("format") != HAND_FORMAT:
        raise InvalidRecordError(f"not a hand record: 'format' must be {HAND_FORMAT!r}")
    rules = _rules_from(data)
    deal = _deal_from(data, rules, "hand record")
    leader = _get(data, "leader", int, "hand record")
    if leader not in range(4):
        raise InvalidRecordError(f"hand record: leader must be a seat 0-3, not {leader}")
    hand = HandState.start(rules, deal, leader, first_pass_pending=False)
    return replay_moves(hand, _moves_from(data, "hand record"))


def _choice(value: object, where: str) -> LeadChoice | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidRecordError(
            f"{where}: a choice is 'salgo', 'sal_tu' or null, not {_short(value)}"
        )
    try:
        return LeadChoice(value)
    except ValueError:
        raise InvalidRecordError(f"{where}: a choice is 'salgo', 'sal_tu' or null") from None


def replay_game(data: Mapping[str, Any]) -> GameState:
    """Replay a ``tranque-game/1`` record through every decision and move; check who led."""
    if data.get("format") != GAME_FORMAT:
        raise InvalidRecordError(f"not a game record: 'format' must be {GAME_FORMAT!r}")
    rules = _rules_from(data)
    game = GameState.new(rules)
    hands = _get(data, "hands", list, "game record")
    for i, rec in enumerate(hands):
        where = f"hand {i + 1}"
        if not isinstance(rec, dict):
            raise InvalidRecordError(f"{where}: must be an object")
        number = _optional(rec, "number", int, where)
        if number is None:
            number = i + 1
        if number != game.hand_number:
            raise ReplayError(f"expected hand number {game.hand_number}, not {number}", hand=i + 1)
        if game.is_over:
            raise ReplayError("the game was already over", hand=number)
        setup = _optional(rec, "setup", dict, where) or {}
        draw = _draw_from(setup.get("draw"), where)
        coin = _optional(setup, "coin", int, f"{where}, setup")
        redeals = _optional(setup, "redeals", list, f"{where}, setup") or []
        raw_choices = _optional(setup, "choices", list, f"{where}, setup")
        try:
            for j, redeal in enumerate(redeals):
                if not isinstance(redeal, dict):
                    raise InvalidRecordError(f"{where}, redeal {j}: must be an object")
                deal = _deal_from(redeal, rules, f"{where}, redeal {j}")
                game = game.deal(deal, draw=draw, coin=coin)
                draw = coin = None
                asked_by = _get(redeal, "asked_by", int, f"{where}, redeal {j}")
                game = game.answer_redeal(asked_by, True)
            game = game.deal(_deal_from(rec, rules, where), draw=draw, coin=coin)
            while game.phase is Phase.REDEAL:
                game = game.answer_redeal(game.redeal_eligible()[0], False)
            if game.phase is Phase.CHOOSE:
                raw = [None, None] if raw_choices is None else raw_choices
                if len(raw) != 2:
                    raise InvalidRecordError(f"{where}: 'choices' must be two entries")
                game = game.choose_leader(_choice(raw[0], where), _choice(raw[1], where))
        except InvalidRecordError:
            raise
        except RulesError as exc:
            raise ReplayError(str(exc), hand=number) from None
        assert game.hand is not None
        leader = _get(rec, "leader", int, where)
        if leader != game.hand.leader:
            raise ReplayError(
                f"the record says seat {leader} led, but the rules give seat {game.hand.leader}",
                hand=number,
            )
        for k, action in enumerate(_moves_from(rec, where)):
            seat = (leader + k) & 3  # every turn is one move, passes included
            if game.phase is not Phase.PLAY or game.hand is None or game.hand.is_over:
                raise ReplayError(
                    f"'{action}' comes after the hand ended", hand=number, move=k, seat=seat
                )
            try:
                game = game.play(action)
            except RulesError as exc:
                raise ReplayError(f"'{action}': {exc}", hand=number, move=k, seat=seat) from None
    return game


def replay_match(data: Mapping[str, Any]) -> tuple[MatchState, GameState | None]:
    """Replay a ``tranque-match/1`` record game by game; check the recorded tally and winner.

    Returns the match (its finished games) and the game still in progress, if the record stops
    in the middle of one.
    """
    if data.get("format") != MATCH_FORMAT:
        raise InvalidRecordError(f"not a match record: 'format' must be {MATCH_FORMAT!r}")
    rules = _rules_from(data)
    games = _get(data, "games", list, "match record")
    match = MatchState(rules)
    current: GameState | None = None
    for i, rec in enumerate(games):
        where = f"game {i + 1}"
        if not isinstance(rec, dict):
            raise InvalidRecordError(f"{where}: must be an object")
        if current is not None:
            raise ReplayError(f"{where}: game {i} was not finished")
        if match.winner is not None:
            raise ReplayError(f"{where}: the match was already decided after game {i}")
        if _rules_from(rec) != rules:
            raise InvalidRecordError(f"{where}: its rules differ from the match's")
        try:
            game = replay_game(rec)
        except ReplayError as exc:
            raise ReplayError(f"{where}, {exc}") from None
        if game.is_over:
            match = match.add_game(game)
        else:
            current = game
    wins = data.get("wins")
    if wins is not None and wins != list(match.wins):
        raise ReplayError(
            f"the record says the games stand {wins}, the replay gives {list(match.wins)}"
        )
    if "winner" in data:
        got = None if match.winner is None else "AB"[match.winner]
        if data["winner"] != got:
            raise ReplayError(
                f"the record says the match winner is {data['winner']!r}, the replay gives {got!r}"
            )
    return match, current


def _draw_from(raw: object, where: str) -> list[tuple[Tile, Tile]] | None:
    if raw is None:
        return None
    if not isinstance(raw, list):
        raise InvalidRecordError(f"{where}: 'draw' must be a list of tile pairs")
    out = []
    for pair in raw:
        if not isinstance(pair, list) or len(pair) != 2:
            raise InvalidRecordError(f"{where}: each draw is two tiles, like ['95', '43']")
        try:
            out.append((Tile.parse(pair[0]), Tile.parse(pair[1])))
        except RulesError as exc:
            raise InvalidRecordError(f"{where}: {exc}") from None
    return out


# --------------------------------------------------------------------------------------------
# Summaries (what `tranque replay` prints)


def outcome_summary(outcome: Outcome | None, hand: HandState) -> dict[str, Any]:
    """A hand's result; keys documented in docs/records.md."""
    remaining = [format_tiles(m) for m in hand.hands]
    if outcome is None:
        return {"ended": None, "moves": len(hand.moves), "remaining": remaining}
    return {
        "ended": outcome.kind.value,
        "winner": outcome.winner,
        "winning_pair": None if outcome.winning_pair is None else "AB"[outcome.winning_pair],
        "points": outcome.points,
        "pips": list(outcome.pips),
        "remaining": remaining,
        "closer": outcome.closer,
        "capicua": outcome.capicua,
        "viajera": outcome.viajera,
        "moves": len(hand.moves),
    }


def game_summary(game: GameState) -> dict[str, Any]:
    return {
        "hands": [
            {
                "number": p.setup.number,
                "leader": p.hand.leader,
                **outcome_summary(p.hand.outcome, p.hand),
            }
            for p in game.played
        ],
        "sheet": [
            {
                "hand": ln.hand_number,
                "pair": None if ln.pair < 0 else "AB"[ln.pair],
                "kind": ln.kind,
                "points": ln.points,
                "nosotros": ln.totals[0],
                "ellos": ln.totals[1],
            }
            for ln in game.sheet
        ],
        "scores": list(game.scores),
        "over": game.is_over,
        "winner": None if game.winner is None else "AB"[game.winner],
        "pollona": game.pollona,
        "viajeras": [
            p.setup.number for p in game.played if p.hand.outcome and p.hand.outcome.viajera
        ],
    }


def match_summary(match: MatchState, current: GameState | None = None) -> dict[str, Any]:
    """What ``tranque replay`` prints for a match: each game's summary, the tally, the winner."""
    winner = match.winner
    return {
        "games": [game_summary(g) for g in (*match.games, *([] if current is None else [current]))],
        "wins": list(match.wins),
        "games_to_win": match.rules.games_to_win_match,
        "over": winner is not None,
        "winner": None if winner is None else "AB"[winner],
    }


__all__ = [
    "FORMATS",
    "GAME_FORMAT",
    "HAND_FORMAT",
    "MATCH_FORMAT",
    "ReplayError",
    "game_record",
    "game_summary",
    "hand_record",
    "load",
    "match_record",
    "match_summary",
    "outcome_summary",
    "replay_game",
    "replay_hand",
    "replay_match",
]
