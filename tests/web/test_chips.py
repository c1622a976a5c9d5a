"""Play chips in the browser: the balance and its words on /chips, the queue of a stake, the
pot on the table, the payout in the result and the balance after it, from the history page."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from screens import Screens
from test_browser import PHONE, new_page, play_until

from tranque.ledger import stakes

pytestmark = pytest.mark.slow


def digits(text: str) -> int:
    return int(re.sub(r"\D", "", text))


def test_a_chip_game_from_the_queue_to_the_payout(browser: Any, server_factory: Any) -> None:
    server = server_factory("--fill-time", "1")
    base, screens = server.base, Screens()
    page = new_page(browser, PHONE)
    page.goto(base + "/")
    page.fill("#nickname", "Rita")
    page.click("#play-people")  # the guest exists now; leave the free queue for the chips page
    page.wait_for_selector("#queue-waited")
    page.click("#queue-leave")
    page.wait_for_selector("#chips-link")
    page.click("#chips-link")
    page.wait_for_selector("#chips-now")
    assert digits(page.locator("#chips-now").inner_text()) == stakes.OPENING_GRANT
    assert "no se compran" in page.locator("#play-money").inner_text()
    screens.capture(page, "chips-page")
    page.goto(base + "/")
    # The landing's header shows the balance too, a link to its page.
    page.wait_for_selector("header.top #chip-balance")
    assert digits(page.locator("header.top #chip-balance").inner_text()) == stakes.OPENING_GRANT
    page.click("#play-people")
    page.wait_for_selector("#queue-stake")
    page.select_option("#queue-variant", "oriente")
    page.select_option("#queue-stake", "100")
    page.wait_for_url("**/t/**", timeout=30_000)
    table = page.url.rsplit("/t/", 1)[1]
    page.wait_for_selector("#chip-pot")
    assert "100" in page.locator("#chip-pot").inner_text()
    page.wait_for_selector("#chip-pot #chip-balance")  # the balance, with the stake taken
    assert digits(page.locator("#chip-pot #chip-balance").inner_text()) == 19_800
    assert page.locator("#chip-pot").count() == 1
    screens.capture(page, "chips-table", widths=(390,))
    play_until([page], lambda: page.locator("#chip-payout").count() > 0, 600)
    info = httpx.get(f"{base}/api/tables/{table}").json()
    mine = [s for s, x in enumerate(info["seats"]) if x["kind"] == "person"]
    assert len(mine) == 1 and info["chips"]["stake"] == 100
    payout = info["chips"]["payout"][mine[0]]
    line = page.locator("#chip-payout").inner_text()
    assert ("Ganaste" if payout > 0 else "Perdiste") in line
    page.wait_for_function("document.querySelector('#chip-payout').textContent.includes('Ahora')")
    after = stakes.OPENING_GRANT + payout
    assert str(after) in re.sub(r"\D", "", page.locator("#chip-payout").inner_text())
    screens.capture(page, "chips-payout", widths=(390,))
    page.goto(base + "/")  # read again at the next screen: the header has the new balance
    page.wait_for_function(
        f"(document.querySelector('header.top #chip-balance') || {{}}).textContent"
        f"?.replace(/\\D/g, '') === '{after}'"
    )
    page.goto(base + "/chips")
    page.wait_for_selector("#chip-moves")
    assert digits(page.locator("#chips-now").inner_text()) == after
    moves = page.locator(".chip-move").all_inner_texts()
    assert len(moves) == 3 and table in moves[0], moves
    assert digits(page.locator("#chip-balance").inner_text()) == after  # in the header
    screens.capture(page, "chips-history")
    # The same page in English, with the same words about what chips are.
    page.select_option("#lang", "en")
    page.wait_for_function("document.querySelector('#play-money').textContent.includes('cashed')")
    assert "Settle" not in page.locator("#chip-moves").inner_text()
    assert "End of the game" in page.locator("#chip-moves").inner_text()
    # A chip table from the lobby: the creator sits, his escrow taken.
    page.goto(base + "/lobby")
    page.wait_for_selector("#create-chip-table")
    page.select_option("#chip-table-stake", "1000")
    screens.capture(page, "chips-lobby", widths=(390,))
    page.click("#create-chip-table")
    page.wait_for_selector("#chip-pot")
    mine = page.url.rsplit("/t/", 1)[1]
    info = httpx.get(f"{base}/api/tables/{mine}").json()
    assert info["chips"]["stake"] == 1000 and info["seats"][0]["kind"] == "person"
    assert info["settings"]["public"] is True
    assert not screens.blocking(), screens.blocking()
    assert page.errors == [], page.errors
    page.context.close()
