"""The browser's deal recipe (web/js/fairness.js) against docs/fairness.md's vectors and Python."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from tranque.fair.recipe import (
    client_commit,
    coin_word,
    deal_for,
    deal_key,
    deal_order,
    first_hand_draw,
    server_commit,
)
from tranque.rules.tiles import format_tiles
from tranque.rules.variants import Rules

# Chromium must start for these (seconds), and `make test-fast` does not set a browser up.
pytestmark = pytest.mark.slow

SERVER = bytes(range(32))
SEEDS = [bytes(range(32, 64)), bytes(range(64, 96)), b"", bytes(range(96, 128))]

VECTORS = [
    {
        "table": "mesa-1",
        "hand": 15,
        "seeds": SEEDS,
        "rules": "havana",
        "key": "4b924a95e2425c9321f134e99d85c1fe32f51c70dfd179a75f80ce45a6a70757",
        "words": "f2ab18e0 ff5ca585 ed794b36 3f492b5c eb437726 2620b154 dac929be 8c42c974",
        "orders": {
            0: "95 41 98 54 99 65 90 75 92 44 80 61 93 82 51 84 85 96 50 52 21 94 74 76 22 42 "
            "77 33 11 88 62 97 86 63 87 72 53 81 55 20 70 31 83 30 43 71 64 40 10 60 00 32 91 "
            "66 73",
            1: "30 33 73 83 70 00 21 92 75 65 77 74 84 44 43 97 96 11 82 51 40 93 94 61 55 64 "
            "88 54 72 66 98 81 87 76 31 62 80 85 71 86 20 41 95 52 60 99 10 91 22 50 32 63 42 "
            "90 53",
        },
    },
    {
        "table": "mesa-6",
        "hand": 1,
        "seeds": SEEDS,
        "rules": "havana",
        "key": "21b989b32ea98360086ad5875113552f887d4c1743b9a0539ce0afc404e7b0b7",
        "words": "4d3cb17f c12725a1 fc770bc5 99bd9d6d 90561227 c29e3584 25008004 c886992f",
        "orders": {
            0: "54 22 52 20 92 82 86 11 50 80 70 88 62 72 64 31 55 84 81 41 40 63 53 10 30 21 "
            "93 85 32 94 90 99 76 60 95 73 98 87 00 65 71 44 96 33 51 97 91 61 77 75 83 66 43 "
            "74 42",
        },
        "draw": [["60", "33"], ["64", "42"]],
        "draw_pair": 0,
        "coin": 0x676C5540,
    },
    {
        "table": "oriente-ñ",
        "hand": 1,
        "seeds": [b"", b"", b"", b""],
        "rules": "oriente",
        "key": "9d3f57ab327bc03ba65f489ae3ce5b71b6c8bf3a87d6c4344f921849f969022b",
        "words": "e0631ab8 c303bd57 07982195 216cc37d a2791953 6a1d0b96 34af3489 a5360cda",
        "orders": {
            0: "30 54 42 10 33 53 22 66 52 44 63 61 40 65 21 20 31 11 41 00 32 50 62 43 51 55 60 64"
        },
    },
]

# Runs one vector in the page; ``engine`` picks WebCrypto or the pure-JS fallback.
RUN = """
async ([v, engine]) => {
  const F = await import('/js/fairness.js');
  F.useFallback(engine === 'js');
  const seeds = v.seeds.map((s) => F.unhex(s));
  const server = F.unhex(v.server);
  const key = await F.dealKey(server, v.table, v.hand, seeds);
  const st = await F.Stream.open(key, F.label('shuffle/', 0));
  const words = [];
  for (let i = 0; i < 8; i++) words.push((await st.word()).toString(16).padStart(8, '0'));
  const orders = {};
  for (const a of v.attempts) orders[a] = (await F.deal(key, v.rules, a)).order.join(' ');
  const out = {
    engine: F.hashEngine(),
    server_commit: await F.serverCommit(server),
    client_commits: await Promise.all(seeds.map((s) => F.clientCommit(s))),
    key: F.hex(key), words: words.join(' '), orders,
    hands: (await F.deal(key, v.rules, 0)).hands.map((h) => h.join(' ')),
  };
  const d = await F.firstHandDraw(key, v.rules);
  out.draw = d.draws; out.draw_pair = d.leadingPair;
  out.coin = (await F.coin(key)).word;
  F.useFallback(false);
  return out;
}
"""


@pytest.fixture(scope="module")
def page(browser: Any, static_base: str) -> Any:
    ctx = browser.new_context()
    pg = ctx.new_page()
    pg.goto(f"{static_base}/index.html")
    yield pg
    ctx.close()


def run(page: Any, table: str, hand: int, seeds: list[bytes], rules: str, attempts: list[int],
        engine: str) -> dict[str, Any]:  # fmt: skip
    v = {
        "server": SERVER.hex(),
        "table": table,
        "hand": hand,
        "seeds": [s.hex() for s in seeds],
        "rules": rules,
        "attempts": attempts,
    }
    return dict(page.evaluate(RUN, [v, engine]))


@pytest.mark.parametrize("engine", ["webcrypto", "js"])
@pytest.mark.parametrize("vector", VECTORS, ids=["redeal", "draw", "oriente"])
def test_vectors(page: Any, vector: dict[str, Any], engine: str) -> None:
    got = run(page, vector["table"], vector["hand"], vector["seeds"], vector["rules"],
              sorted(vector["orders"]), engine)  # fmt: skip
    assert got["engine"] == engine
    assert got["server_commit"] == (
        "e276eecbd6f79aafb7a4391e7a2b92ead2f34772caee75b8fe416141d23a9c82"
    )
    assert got["key"] == vector["key"]
    assert got["words"] == vector["words"]
    for attempt, order in vector["orders"].items():
        assert got["orders"][str(attempt)] == order
    if "draw" in vector:
        assert got["draw"] == vector["draw"]
        assert got["draw_pair"] == vector["draw_pair"]
        assert got["coin"] == vector["coin"]
    commits = got["client_commits"]
    if not vector["seeds"][0]:
        return
    assert commits[0] == "5db866d76876f1fd28894347b930c4b41f32a1440c60469ed15a4a0904319dcb"
    assert commits[1] == "ce5d92a61b07e00b3785bcee7d916e9a570ca4d9feb4cb14293d8bcadf9ea345"
    assert commits[3] == "9725d02d38a08ab663b80150a8ea1784f89751e20beddd2c7659134a53fb8f89"


def _sorted(text: str) -> list[str]:
    return sorted(text.split())


@pytest.mark.parametrize("engine", ["webcrypto", "js"])
def test_agrees_with_python_on_random_inputs(page: Any, engine: str) -> None:
    rng = random.Random(6)
    for i in range(6):
        seeds = [rng.randbytes(rng.choice([0, 1, 32, 64])) for _ in range(4)]
        table = rng.choice(["t1", "mesa-ñ-ü", "x" * 40, "Ñandú 🁡"])
        hand = rng.randint(1, 2**31)
        rules_name = rng.choice(["havana", "oriente", "miami"])
        rules = Rules.from_json(rules_name)
        got = run(page, table, hand, seeds, rules_name, [0, 3], engine)
        key = deal_key(SERVER, table, hand, seeds)
        assert got["key"] == key.hex(), (i, table)
        assert got["server_commit"] == server_commit(SERVER)
        assert got["client_commits"] == [client_commit(s) for s in seeds]
        for attempt in (0, 3):
            assert got["orders"][str(attempt)] == " ".join(
                str(t) for t in deal_order(key, rules, attempt)
            )
        want = [format_tiles(h) for h in deal_for(key, rules, 0).hands]
        assert [_sorted(h) for h in got["hands"]] == [_sorted(h) for h in want]
        draws = [[str(a), str(b)] for a, b in first_hand_draw(key, rules)]
        assert got["draw"] == draws
        assert got["coin"] == coin_word(key)
    assert json.dumps(got)  # plain JSON came back
