"""``tranque deal`` (what the recipe deals for given seeds) and ``tranque verify FILE``.

Both exist so that a player can check a hand without trusting the server or this program's
record keeping: ``deal`` recomputes from seeds typed in by hand, ``verify`` from a published record.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from tranque.commandline import CommandError, parse_json, read_text
from tranque.fair.recipe import (
    SEED_BYTES,
    client_commit,
    coin_word,
    deal_key,
    deal_order,
    draw_winner,
    first_hand_draw,
    server_commit,
    split_order,
)
from tranque.fair.verify import Check, verify_record
from tranque.rules.errors import RulesError
from tranque.rules.hand import Deal
from tranque.rules.tiles import Tile, format_tiles
from tranque.rules.variants import Rules

PAIRS = "AB"


def register(subparsers: Any) -> None:
    """Add ``deal`` and ``verify`` to the ``tranque`` command."""
    deal = subparsers.add_parser(
        "deal",
        help="print the deal the fairness recipe gives for these seeds",
        description="Recompute a deal from its seeds, as docs/fairness.md describes.",
    )
    deal.add_argument("--server-seed", required=True, metavar="HEX", help="the 32-byte server seed")
    deal.add_argument("--table", required=True, metavar="ID", help="the table id")
    deal.add_argument("--hand", required=True, type=int, metavar="N", help="hand number (from 1)")
    for seat in range(4):
        deal.add_argument(
            f"--seed{seat}",
            default="",
            metavar="HEX",
            help=f"seat {seat}'s client seed (omit for the empty seed: bot, empty, timeout)",
        )
    deal.add_argument(
        "--rules",
        default="havana",
        help="a preset (havana, miami, oriente, barrio) or JSON options",
    )
    deal.add_argument(
        "--attempt", type=int, default=0, metavar="K", help="0 for the first deal, 1 after a redeal"
    )
    deal.add_argument("--draw", action="store_true", help="also show the first-hand draw")
    deal.add_argument("--coin", action="store_true", help="also show the coin (pares o nones)")
    deal.add_argument("--json", action="store_true", help="print JSON")
    deal.set_defaults(func=run_deal)

    verify = subparsers.add_parser(
        "verify",
        help="recompute every deal of a finished hand or game record",
        description="Check a hand or game record's seeds, commitments, deals, redeals and draw.",
    )
    verify.add_argument("file", metavar="FILE", help="a hand or game record (JSON); - for stdin")
    verify.add_argument("--json", action="store_true", help="print the checks as JSON")
    verify.set_defaults(func=run_verify)


# --------------------------------------------------------------------------------------------
# deal


def parse_seed(text: str, what: str, *, allow_empty: bool) -> bytes:
    """A seed from hex; exactly 32 bytes (or none, for a client that contributes nothing)."""
    clean = text.strip()
    if clean.lower().startswith("0x"):
        clean = clean[2:]
    try:
        seed = bytes.fromhex(clean)
    except ValueError:
        raise CommandError(f"{what} is not hex: {text!r}") from None
    if allow_empty and not seed:
        return seed
    if len(seed) != SEED_BYTES:
        raise CommandError(
            f"{what} is {len(seed)} bytes; seeds are {SEED_BYTES} bytes "
            f"({2 * SEED_BYTES} hex digits)"
        )
    return seed


def parse_rules(text: str) -> Rules:
    """A preset name, or a JSON object of options over Havana's."""
    data: object = text
    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CommandError(f"--rules is not valid JSON: {exc}") from None
    return Rules.from_json(data)


def deal_report(
    server_seed: bytes,
    table_id: str,
    hand_number: int,
    client_seeds: list[bytes],
    rules: Rules,
    attempt: int = 0,
    *,
    with_draw: bool = False,
    with_coin: bool = False,
) -> dict[str, Any]:
    """Everything ``tranque deal`` shows, as JSON-ready data (also what the test vectors list)."""
    key = deal_key(server_seed, table_id, hand_number, client_seeds)
    order = deal_order(key, rules, attempt)
    hands, sleepers = split_order(order, rules)
    deal = Deal.from_tiles(hands, sleepers, rules=rules)
    out: dict[str, Any] = {
        "rules": rules.to_json(),
        "table_id": table_id,
        "hand_number": hand_number,
        "server_commit": server_commit(server_seed),
        "client_commits": [client_commit(s) if s else None for s in client_seeds],
        "key": key.hex(),
        "attempt": attempt,
        "order": _text(order),
        "hands": [deal.hand_text(s) for s in range(4)],
        "sleepers": format_tiles(deal.sleepers),
        "doubles": [deal.doubles(s) for s in range(4)],
    }
    if with_draw:
        draws = first_hand_draw(key, rules)
        out["draw"] = [[str(a), str(b)] for a, b in draws]
        out["draw_leading_pair"] = draw_winner(draws[-1])
    if with_coin:
        word = coin_word(key)
        out["coin_word"] = word
        out["coin"] = word & 1
    return out


def run_deal(args: argparse.Namespace) -> int:
    server_seed = parse_seed(args.server_seed, "--server-seed", allow_empty=False)
    seeds = [
        parse_seed(getattr(args, f"seed{s}"), f"--seed{s}", allow_empty=True) for s in range(4)
    ]
    rules = parse_rules(args.rules)
    if not 1 <= args.hand < 1 << 32:
        raise CommandError(f"--hand must be from 1 to 2^32-1, not {args.hand}")
    if not 0 <= args.attempt < 1 << 32:
        raise CommandError(f"--attempt must be from 0 to 2^32-1, not {args.attempt}")
    try:
        args.table.encode("utf-8")
    except UnicodeEncodeError:
        raise CommandError("--table is not valid UTF-8 text") from None
    report = deal_report(
        server_seed,
        args.table,
        args.hand,
        seeds,
        rules,
        args.attempt,
        with_draw=args.draw,
        with_coin=args.coin,
    )
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    for line in format_deal_report(report, rules):
        print(line)
    return 0


def format_deal_report(report: dict[str, Any], rules: Rules) -> list[str]:
    """The text form of ``deal_report``: one line per fact, labels in a column."""
    lines = [
        f"server commit  {report['server_commit']}",
        f"key            {report['key']}",
        f"attempt        {report['attempt']} ({rules.name} rules)",
        f"order          {report['order']}",
    ]
    for s in range(4):
        n = report["doubles"][s]
        lines.append(f"seat {s}         {report['hands'][s]}   ({n} double{'' if n == 1 else 's'})")
    lines.append(f"sleepers       {report['sleepers'] or '(none)'}")
    if rules.redeal_doubles:
        for s in range(4):
            if report["doubles"][s] >= rules.redeal_doubles:
                lines.append(
                    f"               seat {s} may ask for a redeal "
                    f"(--attempt {report['attempt'] + 1} gives it)"
                )
    if "draw" in report:
        for i, (a, b) in enumerate(report["draw"]):
            ta, tb = Tile.parse(a), Tile.parse(b)
            winner = draw_winner((ta, tb))
            outcome = "equal, draw again" if winner is None else f"pair {PAIRS[winner]} leads"
            label = "draw" if i == 0 else ""
            lines.append(
                f"{label:<15}attempt {i}: A {ta} ({ta.pips}), B {tb} ({tb.pips}): {outcome}"
            )
    if "coin" in report:
        lines.append(
            f"coin           word {report['coin_word']:#010x}, lowest bit {report['coin']}: "
            f"pair {PAIRS[report['coin']]} leads"
        )
    return lines


def _text(tiles: list[Tile]) -> str:
    return format_tiles(tiles)


# --------------------------------------------------------------------------------------------
# verify


def load_record(path: str) -> object:
    """Read a JSON record from a file or stdin; a directory, bad text or bad JSON is one line."""
    return parse_json(read_text(path), path)


def run_verify(args: argparse.Namespace) -> int:
    data = load_record(args.file)
    try:
        checks = verify_record(data)
    except RulesError as exc:
        raise CommandError(f"{args.file}: {exc}") from None
    failed = [c for c in checks if not c.ok]
    if args.json:
        print(
            json.dumps(
                {"ok": not failed, "checks": [_check_json(c) for c in checks]},
                indent=2,
            )
        )
    else:
        for c in checks:
            print(f"{'ok  ' if c.ok else 'FAIL'}  {c.name}" + (f": {c.detail}" if c.detail else ""))
        if failed:
            print(
                f"{len(failed)} of {len(checks)} checks FAILED: {', '.join(c.name for c in failed)}"
            )
        else:
            print(f"all {len(checks)} checks match")
    return 1 if failed else 0


def _check_json(check: Check) -> dict[str, Any]:
    return {"name": check.name, "ok": check.ok, "detail": check.detail}
