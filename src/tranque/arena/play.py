"""``tranque play``: you and three bots in the terminal; your partner (seat 2) is a bot.

The board and your hand are drawn in text and your legal moves are numbered. You sit at seat 0,
pair A (Nosotros). Deals are ordinary random deals from ``--seed``.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tranque.bots import make_bot
from tranque.commandline import CommandError
from tranque.rules.dealing import deal_next
from tranque.rules.errors import UnknownOptionError
from tranque.rules.game import GameState, LeadChoice, Phase
from tranque.rules.hand import Action
from tranque.rules.variants import PRESETS, Rules
from tranque.rules.views import PlacedTile, SeatView, seat_view

if TYPE_CHECKING:
    from rich.console import Console

YOU = 0
NAMES = ("You", "Right", "Partner", "Left")


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("play", help="play a game in the terminal against three bots")
    parser.add_argument(
        "--bots", default="heuristic", help="which bot fills the other seats (heuristic)"
    )
    parser.add_argument("--rules", default="havana", help=f"one of: {', '.join(PRESETS)}")
    parser.add_argument("--seed", type=int, default=None, help="seed for deals and bots")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console  # the 'bots' extra, like the bots it seats

    try:
        rules = Rules.from_json(args.rules)
    except UnknownOptionError as exc:
        raise CommandError(str(exc)) from None
    try:
        bots = {
            s: make_bot(args.bots, None if args.seed is None else args.seed + s) for s in (1, 2, 3)
        }
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    console = Console(highlight=False)
    for bot in bots.values():
        warm_up = getattr(bot, "warm_up", None)
        if warm_up is not None:
            warm_up()  # compile or load the search kernels before the first move
    try:
        play_game(rules, bots, random.Random(args.seed), console, console.input)
    except EOFError:
        console.print("\nbye")
    return 0


def play_game(
    rules: Rules,
    bots: dict[int, Any],
    rng: random.Random,
    console: Console,
    ask: Callable[[str], str],
) -> GameState:
    game = GameState.new(rules)
    shown_hand = 0
    while not game.is_over:
        if game.phase is Phase.DEAL:
            if game.hand is not None and game.hand.is_over:
                show_end(console, game)
            first = game.hand_number == 1 and not game.setup.redeals
            game = deal_next(game, rng)
            if first:
                show_first_lead(console, game)
        elif game.phase is Phase.REDEAL:
            seat = game.redeal_eligible()[0]
            if seat == YOU:
                draw_board(console, seat_view(game, YOU))
                yes = choose(ask, "You hold 5+ doubles. Ask for a redeal? (y/n) ", ("y", "n"))
                game = game.answer_redeal(YOU, yes == "y")
            else:
                asked = bots[seat].ask_redeal(seat_view(game, seat))
                if asked:
                    console.print(f"{NAMES[seat]} shows 5+ doubles and asks for a redeal.")
                game = game.answer_redeal(seat, asked)
        elif game.phase is Phase.CHOOSE:
            seats = game.choosing_seats()
            assert seats is not None
            show_choosing(console, game, seats)
            choices: list[LeadChoice | None] = []
            for seat in seats:
                if seat == YOU:
                    draw_board(console, seat_view(game, YOU))
                    c = choose(ask, "Your pair leads. Salgo (s) or sal tú (t)? ", ("s", "t"))
                    choices.append(LeadChoice.SALGO if c == "s" else LeadChoice.SAL_TU)
                else:
                    choices.append(bots[seat].choose_lead(seat_view(game, seat)))
            game = game.choose_leader(choices[0], choices[1])
            shown = ", ".join(
                f"{NAMES[s]}: {CHOICE_WORDS[c]}" for s, c in zip(seats, choices, strict=True)
            )
            console.print(f"Choices revealed: {shown}.")
        else:
            hand = game.hand
            assert hand is not None
            if game.hand_number != shown_hand:
                shown_hand = game.hand_number
                who = "you lead" if hand.leader == YOU else f"{NAMES[hand.leader]} leads"
                console.rule(f"Hand {shown_hand}: {who}")
            seat = hand.turn
            view = seat_view(game, seat)
            if seat == YOU and view.legal != (Action.parse("pass"),):
                draw_board(console, view)
                action = pick_move(console, ask, view)
            elif seat == YOU:
                action = view.legal[0]
            else:
                action = bots[seat].choose_action(view)
            game = game.play(action, seat)
            console.print(f"  {NAMES[seat]}: {'passes' if action.is_pass else action}")
    show_end(console, game)
    console.print(f"[bold]{final_line(game)}[/bold]")
    return game


def final_line(game: GameState) -> str:
    """``Ellos win 104 to 62``: the winners' score first."""
    assert game.winner is not None
    winner = "Nosotros (you)" if game.winner == 0 else "Ellos"
    tail = " — ¡pollona!" if game.pollona else ""
    won, lost = game.scores[game.winner], game.scores[game.winner ^ 1]
    return f"{winner} win {won} to {lost}{tail}"


PAIR_NAMES = ("Nosotros", "Ellos")
CHOICE_WORDS = {
    LeadChoice.SALGO: "Salgo (I lead)",
    LeadChoice.SAL_TU: "Sal tú (you lead)",
    None: "-",
}


def show_first_lead(console: Console, game: GameState) -> None:
    """How the first hand's lead was settled: the draw, the coin or the highest double."""
    setup = game.setup
    if setup.draw is not None:
        console.print("Draw for the first lead: each pair draws a tile, the higher sum leads.")
        for a, b in setup.draw:
            line = f"  Nosotros draw {a} ({a.pips}), Ellos draw {b} ({b.pips})"
            if a.pips == b.pips:
                line += ": equal, draw again"
            else:
                line += f": {PAIR_NAMES[0 if a.pips > b.pips else 1]} lead"
            console.print(line)
    elif setup.coin is not None:
        console.print(f"Pares o nones for the first lead: {PAIR_NAMES[setup.coin]} win it.")
    elif setup.leader is not None:
        who = "You hold" if setup.leader == YOU else f"{NAMES[setup.leader]} holds"
        console.print(
            f"{who} the highest double and lead{'' if setup.leader == YOU else 's'} the first hand."
        )


def show_choosing(console: Console, game: GameState, seats: tuple[int, int]) -> None:
    """Why this pair chooses, and what each answer does."""
    setup = game.setup
    pair = PAIR_NAMES[seats[0] & 1]
    if game.hand_number == 1:
        why = "won the draw" if setup.draw is not None else "won the coin"
    elif (
        game.played
        and game.played[-1].hand.outcome is not None
        and (game.played[-1].hand.outcome.winning_pair is None)
    ):
        why = "did not lead the tied hand"
    else:
        why = "won the last hand"
    priority = (
        "" if setup.priority is None else f"; if both say the same, {NAMES[setup.priority]} leads"
    )
    console.print(
        f"{pair} {why}: {NAMES[seats[0]]} and {NAMES[seats[1]]} each say Salgo (I lead) or "
        f"Sal tú (you lead), in secret{priority}."
    )


def choose(ask: Callable[[str], str], prompt: str, options: tuple[str, ...]) -> str:
    while True:
        answer = ask(prompt).strip().lower()[:1]
        if answer in options:
            return answer


def pick_move(console: Console, ask: Callable[[str], str], view: SeatView) -> Action:
    for i, action in enumerate(view.legal, start=1):
        console.print(f"  {i:2d}) {action}")
    while True:
        text = ask("Your move (number, or notation: 94@4, or 94 when only one end fits): ").strip()
        if text.isdigit() and 1 <= int(text) <= len(view.legal):
            return view.legal[int(text) - 1]
        try:
            action = Action.parse(text)
        except ValueError:
            pass
        else:
            if action in view.legal:
                return action
            # A bare tile where the lead is over: the end may be left out when only one fits.
            fits = [a for a in view.legal if action.end is None and a.tile == action.tile]
            if len(fits) == 1:
                return fits[0]
            if len(fits) > 1:
                console.print(f"  {action.tile} fits both ends: say {' or '.join(map(str, fits))}")
                continue
        console.print("  not a legal move here; pick a number from the list")


def draw_board(console: Console, view: SeatView) -> None:
    pub = view.public
    chain = " ".join(oriented(p) for p in pub.chain)
    ends = "—" if pub.ends is None else f"{pub.ends[0]} … {pub.ends[1]}"
    console.print(
        f"Nosotros {pub.scores[0]} · Ellos {pub.scores[1]}   (game to {pub.rules.target})"
    )
    console.print(f"Table: {chain or '(empty)'}")
    console.print(f"Open ends: [bold]{ends}[/bold]")
    counts = ", ".join(f"{NAMES[s]} {pub.tile_counts[s]}" for s in range(1, 4))
    console.print(f"Tiles left: {counts}")
    console.print("Your hand: " + " ".join(str(t) for t in view.tiles))


def oriented(placed: PlacedTile) -> str:
    """A tile as it lies in the chain: its left half touches the tile on its left."""
    tile = placed.tile
    if placed.side == "lead":
        return f"{tile.high}|{tile.low}"
    other = tile.other(placed.opened)
    if placed.side == "left":
        return f"{placed.opened}|{other}"
    return f"{other}|{placed.opened}"


def show_end(console: Console, game: GameState) -> None:
    hand = game.hand
    if hand is None or hand.outcome is None:
        return
    out = hand.outcome
    if out.winning_pair is None:
        what = "tied tranque: nobody scores"
    else:
        how = {
            "pegarse": "go out",
            "tranque": "win the tranque",
            "tied_tranque": "win the tied tranque",
        }[out.kind.value]
        winner = out.winner or 0
        who = "You" if winner == YOU else NAMES[winner]
        verb = how if winner == YOU else how.replace("go ", "goes ").replace("win ", "wins ")
        what = f"{who} {verb}: {out.points} points"
        if out.capicua:
            what += " (capicúa)"
    console.print(f"[bold]{what}[/bold]")
    from tranque.rules.tiles import format_tiles

    for seat in range(4):
        console.print(f"  {NAMES[seat]:8s} {out.pips[seat]:3d}  {format_tiles(hand.hands[seat])}")
    console.print(f"  Nosotros {game.scores[0]} · Ellos {game.scores[1]}")
