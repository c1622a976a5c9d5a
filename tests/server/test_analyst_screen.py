"""The fair-play screen as the service goes (docs/fairplay.md, "Moderation"): once a game's
fair analysis is done, the analyst screens it in a worker, keeps its sums, and the flags of
every game kept so far go to the moderators' page; the figures are those the command gives from
the same database. The games are small (hands of four tiles), the screen real."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from test_analyst import Counting, a_game, finished, status, until

from tranque.cli import main
from tranque.fairplay import stats
from tranque.server.analyst import Analyst
from tranque.store import open_store
from tranque.store.games import SqlGames
from tranque.store.moderation import SqlModeration
from tranque.store.schema import accounts
from tranque.store.screening import SqlScreening

pytestmark = pytest.mark.slow


def test_each_game_is_screened_after_its_analysis_and_the_flags_follow(
    tmp_path: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"sqlite:///{tmp_path / 's.db'}"
    real = stats.report

    def flagging(games: Any) -> dict[str, Any]:
        # Three small games flag nobody: this report says Ana's partnership is flagged.
        out = real(games)
        for p in out["partnerships"]:
            if "Ana" in p["ids"]:
                p.update(flag=True, reasons=["hindsight_edge"])
        return out

    monkeypatch.setattr(stats, "report", flagging)

    async def go() -> list[dict[str, Any]]:
        store = await open_store(url)
        try:
            for i in range(3):
                record = a_game(10 + i)
                record["players"] = ["~g1", None, f"~g{2 + i}", None]
                await finished(store, f"t{i}", record, (0, 2), 1000.0 + i)
            async with store._begin() as conn:  # g1 claimed "Ana" after playing as a guest
                await conn.execute(accounts.insert().values(
                    guest="g1", name="Ana", name_key="ana", password_hash="x", created=2.0,
                    name_skeleton="ana"))  # fmt: skip
            node = Analyst(store, Counting(), "a", poll=0.05)
            node.start()
            rows = SqlGames(store)

            async def screened() -> bool:
                done = [await status(rows, f"t{i}") == "done" for i in range(3)]
                return all(done) and node.screened == 3

            await until(screened, 300)
            await node.close()
            flags = (await SqlModeration(store).page(0.0))["flags"]
            kept = await SqlScreening(store).screened()
        finally:
            await store.close()
        assert [k["players"] for k in kept] == [["Ana", None, f"~g{2 + i}", None] for i in range(3)]
        return list(flags)

    flags = asyncio.run(go())
    assert sorted(f["subject"] for f in flags) == ["Ana+~g2", "Ana+~g3", "Ana+~g4"]
    assert all(f["stats"]["reasons"] == ["hindsight_edge"] for f in flags)
    # The command, from the same database, gives the same figures (its report unpatched).
    monkeypatch.setattr(stats, "report", real)
    assert main(["fairplay", "screen", "--db", url, "--json"]) == 0
    command = json.loads(capsys.readouterr().out)
    by_pair = {"+".join(p["ids"]): p for p in command["partnerships"]}
    for f in flags:
        theirs = by_pair[f["subject"]]
        mine = {k: v for k, v in f["stats"].items() if k not in ("flag", "reasons")}
        assert mine == {k: v for k, v in theirs.items() if k not in ("flag", "reasons")}
