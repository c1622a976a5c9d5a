"""Verify a finished hand or game record: recompute every deal from the revealed seeds.

Works on plain JSON (``json.load``), so that it checks what was published rather than what a
parser made of it. Each check is named and says what it found; a record passes only when every
check matches. The moves themselves are replay's business, not this module's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

from tranque.fair.recipe import (
    SEED_BYTES,
    client_commit,
    coin,
    coin_word,
    deal_for,
    draw_winner,
    first_hand_draw,
    server_commit,
)
from tranque.fair.seeds import HandFairness, SeatStatus
from tranque.rules.errors import InvalidRecordError, RulesError
from tranque.rules.hand import Deal
from tranque.rules.record import replay_match
from tranque.rules.tiles import Tile, format_tiles, mask_of, parse_tiles, tiles_of
from tranque.rules.variants import FirstLeader, Rules

HAND_FORMAT = "tranque-hand/1"
GAME_FORMAT = "tranque-game/1"
MATCH_FORMAT = "tranque-match/1"
MAX_ATTEMPT = (1 << 32) - 1


@dataclass(frozen=True, slots=True)
class Check:
    """One named comparison and what it found."""

    name: str
    ok: bool
    detail: str = ""


def verify_record(data: object) -> list[Check]:
    """Every check for a hand or a game record; raises InvalidRecordError if it is neither."""
    if not isinstance(data, Mapping):
        raise InvalidRecordError("a record is a JSON object")
    fmt = data.get("format")
    if fmt == HAND_FORMAT:
        return verify_hand(data)
    if fmt == GAME_FORMAT:
        return verify_game(data)
    if fmt == MATCH_FORMAT:
        return verify_match(data)
    raise InvalidRecordError(
        f"unknown record format {fmt!r}; expected {HAND_FORMAT}, {GAME_FORMAT} or {MATCH_FORMAT}"
    )


def verify_match(match: Mapping[str, object]) -> list[Check]:
    """Check every game of a match, its table hand numbers across games, and the tally.

    Each game's first hand has its own draw or coin. The tally is recounted by replaying every
    game through the rules (a pollona counts as two wins).
    """
    games = match.get("games")
    if not isinstance(games, list):
        raise InvalidRecordError("a match record's 'games' must be a list of game records")
    checks: list[Check] = []
    numbers: list[tuple[str, int]] = []
    for i, game in enumerate(games):
        if not isinstance(game, Mapping):
            raise InvalidRecordError(f"game {i + 1} of the match is not an object")
        for c in verify_game(game):
            if c.name != "table hand numbers increase, never reused":
                checks.append(Check(f"game {i + 1}, {c.name}", c.ok, c.detail))
        for hand in game.get("hands") or []:
            try:
                f = HandFairness.from_json(
                    hand.get("fairness") if isinstance(hand, Mapping) else None
                )
            except RulesError:
                continue
            numbers.append((f.table_id, f.hand_number))
    checks.append(_numbers_check(numbers))
    checks.append(_tally_check(match))
    return checks


def _tally_check(match: Mapping[str, object]) -> Check:
    name = "the games won add up to the recorded tally and winner"
    try:
        played, _current = replay_match(match)
    except RulesError as exc:
        return Check(name, False, str(exc))
    a, b = played.wins
    winner = played.winner
    return Check(
        name,
        True,
        f"games A {a}, B {b}; "
        + ("undecided" if winner is None else f"pair {'AB'[winner]} wins the match"),
    )


def verify_game(game: Mapping[str, object]) -> list[Check]:
    """Check every hand of a game, then that no (table, hand number) is used twice."""
    rules = _rules(game.get("rules"))
    hands = game.get("hands")
    if not isinstance(hands, list):
        raise InvalidRecordError("a game record's 'hands' must be a list of hand records")
    checks: list[Check] = []
    numbers: list[tuple[str, int]] = []
    for i, hand in enumerate(hands):
        if not isinstance(hand, Mapping):
            raise InvalidRecordError(f"hand {i + 1} of the game is not an object")
        label = hand.get("number", i + 1)
        hand_checks = verify_hand(hand, rules, first_of_game=i == 0)
        checks += [Check(f"hand {label}: {c.name}", c.ok, c.detail) for c in hand_checks]
        try:
            f = HandFairness.from_json(hand.get("fairness"))
        except RulesError:
            continue
        numbers.append((f.table_id, f.hand_number))
    checks.append(_numbers_check(numbers))
    return checks


def _numbers_check(numbers: list[tuple[str, int]]) -> Check:
    # Table hand numbers (not the game's own count) must never repeat: a repeated number would
    # repeat the key, and with it the deal.
    tables = sorted({t for t, _ in numbers})
    increasing = all(a[1] < b[1] for a, b in pairwise(numbers))
    return Check(
        "table hand numbers increase, never reused",
        len(tables) <= 1 and increasing,
        f"table {', '.join(repr(t) for t in tables) or 'none'}; "
        f"hands {', '.join(str(n) for _, n in numbers) or 'none'}",
    )


def verify_hand(
    hand: Mapping[str, object], rules: Rules | None = None, *, first_of_game: bool = False
) -> list[Check]:
    """The checks for one hand: seeds against commitments, redeals, the deal, the first-hand draw.

    ``rules`` is the game's when the hand has none of its own. ``first_of_game`` makes a missing
    draw or coin a failure where the rules call for one.
    """
    if "rules" in hand or rules is None:
        rules = _rules(hand.get("rules"))
    if "fairness" not in hand:
        return [Check("fairness section present", False, "the record has no 'fairness' section")]
    try:
        fair = HandFairness.from_json(hand["fairness"])
    except RulesError as exc:
        return [Check("fairness section well formed", False, str(exc))]

    checks = [_check_server(fair)]
    checks += [_check_seat(fair, s) for s in range(4)]
    key = fair.key
    setup = hand.get("setup")
    if setup is not None and not isinstance(setup, Mapping):
        raise InvalidRecordError("'setup' must be an object")
    checks += _check_redeals(fair, key, rules, setup)
    attempt = fair.attempts - 1
    name = f"deal (attempt {attempt}) matches the hands in the record"
    if attempt > MAX_ATTEMPT:
        checks.append(Check(name, False, f"attempt {attempt} does not fit the recipe's u32"))
    else:
        final = deal_for(key, rules, attempt)
        checks.append(_compare_deal(name, final, hand.get("hands"), hand.get("sleepers")))
    if setup is not None:
        checks += _check_first_hand(key, rules, setup, first_of_game)
    return checks


# --------------------------------------------------------------------------------------------
# The checks


def _check_server(fair: HandFairness) -> Check:
    name = "server seed matches its commitment"
    if len(fair.server_seed) != SEED_BYTES:
        return Check(
            name, False, f"the server seed is {len(fair.server_seed)} bytes, not {SEED_BYTES}"
        )
    got = server_commit(fair.server_seed)
    if got != fair.server_commit.lower():
        return Check(
            name,
            False,
            f'SHA-256("tranque-server|" || seed) is {got}, the commitment {fair.server_commit}',
        )
    return Check(name, True, got)


def _check_seat(fair: HandFairness, seat: int) -> Check:
    status = fair.seat_status[seat]
    commit = fair.client_commits[seat]
    seed = fair.client_seeds[seat]
    if status is SeatStatus.REVEALED:
        name = f"seat {seat} client seed matches its commitment"
        if commit is None:
            return Check(name, False, "a revealed seed with no commitment")
        if len(seed) != SEED_BYTES:
            return Check(name, False, f"the seed is {len(seed)} bytes, not {SEED_BYTES}")
        got = client_commit(seed)
        if got != commit.lower():
            return Check(
                name, False, f'SHA-256("tranque-client|" || seed) is {got}, the commitment {commit}'
            )
        return Check(name, True)
    name = f"seat {seat} contributes the empty seed ({status.value})"
    if seed:
        return Check(name, False, f"the record has seed {seed.hex()} for a {status.value} seat")
    if status in (SeatStatus.BOT, SeatStatus.EMPTY):
        if commit is not None:
            return Check(
                name, False, f"a {status.value} seat makes no commitment, yet one is recorded"
            )
        return Check(name, True)
    if status is SeatStatus.MISMATCH:
        if commit is None:
            return Check(name, False, "a mismatch needs a commitment to mismatch")
        rejected = fair.rejected_seeds[seat]
        if rejected is not None and client_commit(rejected) == commit.lower():
            return Check(
                name, False, "the rejected seed does match its commitment: it should count"
            )
        detail = "no rejected seed recorded" if rejected is None else "the rejected seed mismatches"
        return Check(name, True, detail)
    return Check(name, True, "no seed in time")  # timeout


def _check_redeals(
    fair: HandFairness, key: bytes, rules: Rules, setup: Mapping[str, object] | None
) -> list[Check]:
    """Each thrown-in deal is the recipe's and left someone (the asker, if named) 5+ doubles."""
    threshold = rules.redeal_doubles
    redeals = None if setup is None else setup.get("redeals")
    checks: list[Check] = []
    if redeals is None:
        # A lone hand record lists no thrown-in deals: recompute them and check that each gave
        # some seat the right to ask.
        # Stops at the first refusal: a forged attempts count cannot make this loop long, since
        # each allowed redeal has a chance of about 1 in 12.
        for i in range(fair.attempts - 1):
            deal = deal_for(key, rules, i)
            best = max(range(4), key=deal.doubles)
            held = deal.doubles(best)
            ok = threshold > 0 and held >= threshold
            needs = f"{threshold}" if threshold else "a rule that allows it (off here)"
            checks.append(
                Check(
                    f"redeal after attempt {i} was allowed",
                    ok,
                    f"seat {best} held {held} doubles ({_doubles_text(deal, best)}); "
                    f"a redeal needs {needs}",
                )
            )
            if not ok:
                break
        return checks
    if not isinstance(redeals, list):
        raise InvalidRecordError("setup.redeals must be a list")
    checks.append(
        Check(
            "attempts count the deals",
            fair.attempts == len(redeals) + 1,
            f"fairness says {fair.attempts}, the record shows {len(redeals)} redeal(s)",
        )
    )
    for i, redeal in enumerate(redeals):
        if not isinstance(redeal, Mapping):
            raise InvalidRecordError(f"setup.redeals[{i}] must be an object")
        deal = deal_for(key, rules, i)
        checks.append(
            _compare_deal(
                f"redeal {i + 1}: the deal thrown in is attempt {i}",
                deal,
                redeal.get("hands"),
                redeal.get("sleepers"),
            )
        )
        asker = redeal.get("asked_by")
        name = f"redeal {i + 1}: the asking seat held {threshold}+ doubles"
        if not isinstance(asker, int) or isinstance(asker, bool) or not 0 <= asker <= 3:
            checks.append(Check(name, False, f"asked_by must be a seat 0-3, not {asker!r}"))
            continue
        held = deal.doubles(asker)
        ok = threshold > 0 and held >= threshold
        detail = f"seat {asker} held {held} doubles ({_doubles_text(deal, asker)})"
        if threshold == 0:
            detail += "; these rules allow no redeal"
        checks.append(Check(name, ok, detail))
    return checks


def _check_first_hand(
    key: bytes, rules: Rules, setup: Mapping[str, object], first_of_game: bool
) -> list[Check]:
    checks: list[Check] = []
    draw = setup.get("draw")
    leading = setup.get("leading_pair")
    wants_draw = first_of_game and rules.first_leader is FirstLeader.DRAW
    if draw is None and wants_draw:
        checks.append(
            Check("first-hand draw", False, "these rules draw for the lead; none recorded")
        )
    if draw is not None:
        expected = first_hand_draw(key, rules)
        text = " ".join(f"{a}/{b}" for a, b in expected)
        got = _parse_draw(draw)
        checks.append(
            Check(
                f"first-hand draw ({len(expected)} attempt(s))",
                got == expected,
                f"the recipe draws {text}"
                + ("" if got == expected else f"; the record has {_draw_text(draw)}"),
            )
        )
        winner = draw_winner(expected[-1])
        checks.append(
            Check(
                "the draw gives the lead to the recorded pair",
                leading == winner,
                f"pair {'AB'[winner or 0]} drew higher; the record says leading_pair={leading!r}",
            )
        )
    wants_coin = first_of_game and rules.first_leader is FirstLeader.COIN
    flip = setup.get("coin")
    if flip is None and wants_coin:
        checks.append(Check("coin", False, "these rules toss a coin for the lead; none recorded"))
    if flip is not None:
        pair = coin(key)
        checks.append(
            Check(
                "coin",
                flip == pair and leading == pair,
                f"word {coin_word(key):#010x} gives pair {'AB'[pair]}; the record says "
                f"coin={flip!r}, leading_pair={leading!r}",
            )
        )
    return checks


# --------------------------------------------------------------------------------------------
# Helpers


def _rules(data: object) -> Rules:
    if data is None:
        raise InvalidRecordError("the record names no rules")
    return Rules.from_json(data)


def _doubles_text(deal: Deal, seat: int) -> str:
    return format_tiles(t for t in tiles_of(deal.hands[seat]) if t.is_double) or "none"


def _compare_deal(name: str, expected: Deal, hands: object, sleepers: object) -> Check:
    """Compare a recorded deal with the recipe's, naming every tile out of place."""
    if not isinstance(hands, list) or len(hands) != 4 or not all(isinstance(h, str) for h in hands):
        return Check(name, False, f"the record's hands must be 4 strings of tiles, not {hands!r}")
    places: list[tuple[str, int, str]] = [
        (f"seat {s}", expected.hands[s], text) for s, text in enumerate(hands)
    ]
    if sleepers is not None:
        if not isinstance(sleepers, str):
            return Check(name, False, f"the record's sleepers must be a string, not {sleepers!r}")
        places.append(("sleepers", expected.sleepers, sleepers))
    problems: list[str] = []
    for where, want, text in places:
        try:
            tiles = parse_tiles(text)
        except RulesError as exc:
            problems.append(f"{where}: {exc}")
            continue
        got = mask_of(tiles)
        if got.bit_count() != len(tiles):
            problems.append(f"{where}: a tile is written twice in {text!r}")
        extra, missing = got & ~want, want & ~got
        if extra or missing:
            problems.append(
                f"{where}: the record has {format_tiles(extra) or 'nothing'} "
                f"where the recipe deals {format_tiles(missing) or 'nothing'}"
            )
    if problems:
        return Check(name, False, "; ".join(problems))
    sleeper_note = "" if sleepers is None else " and the sleepers"
    return Check(name, True, f"all four hands{sleeper_note} match")


def _parse_draw(draw: object) -> list[tuple[Tile, Tile]] | None:
    if not isinstance(draw, list):
        return None
    out: list[tuple[Tile, Tile]] = []
    for item in draw:
        if not isinstance(item, Sequence) or isinstance(item, str) or len(item) != 2:
            return None
        a, b = item
        if not isinstance(a, str) or not isinstance(b, str):
            return None
        try:
            out.append((Tile.parse(a), Tile.parse(b)))
        except RulesError:
            return None
    return out


def _draw_text(draw: object) -> str:
    parsed = _parse_draw(draw)
    if parsed is None:
        return f"something malformed: {draw!r}"
    return " ".join(f"{a}/{b}" for a, b in parsed) or "no draws"
