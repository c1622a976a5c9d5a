"""Guest tokens expire, are renewed while valid, and survive a rotation of the signing secret."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from itsdangerous import TimestampSigner, URLSafeTimedSerializer

DAY = 86400


def _token(secret: str, guest: str, nick: str, age: float) -> str:
    """A token as the server signs it, but signed ``age`` seconds ago."""

    class Then(TimestampSigner):
        def get_timestamp(self) -> int:
            return int(time.time() - age)

    signer = URLSafeTimedSerializer(secret, salt="tranque-guest", signer=Then)
    return signer.dumps({"g": guest, "n": nick})


def _renew(base: str, token: str) -> httpx.Response:
    return httpx.post(
        base + "/api/guests/renew", headers={"authorization": f"Bearer {token}"}, timeout=30
    )


def _table(base: str, token: str) -> httpx.Response:
    return httpx.post(
        base + "/api/tables",
        json={"practice": False},
        headers={"authorization": f"Bearer {token}"},
        timeout=30,
    )


async def _hello(base: str, token: str, table: str) -> dict[str, Any]:
    import websockets

    async with websockets.connect(base.replace("http", "ws", 1) + "/ws") as ws:
        await ws.send(json.dumps({"type": "hello", "token": token, "table": table}))
        return dict(json.loads(await asyncio.wait_for(ws.recv(), 10)))


def test_an_expired_token_is_refused_and_a_valid_one_renewed(server_factory: Any) -> None:
    server = server_factory("--token-days", "30", env={"TRANQUE_SECRET": "s3cret-one"})
    base = server.base
    fresh = httpx.post(base + "/api/guests", json={"nickname": "ana"}, timeout=30).json()
    table = _table(base, fresh["token"]).json()["table"]

    old = _token("s3cret-one", "g-old", "olga", 31 * DAY)
    r = _table(base, old)
    assert r.status_code == 401 and r.json()["code"] == "token_expired"
    r = _renew(base, old)
    assert r.status_code == 401 and r.json()["code"] == "token_expired"
    reply = asyncio.run(_hello(base, old, table))
    assert reply["type"] == "error" and reply["code"] == "token_expired", reply

    # 29 days old: still valid, and renewed into a token good for another 30 days.
    aging = _token("s3cret-one", "g-aging", "alma", 29 * DAY)
    assert _table(base, aging).status_code == 200
    r = _renew(base, aging)
    assert r.status_code == 200, r.text
    renewed = r.json()
    assert renewed["guest"] == "g-aging" and renewed["nickname"] == "alma"
    signer = URLSafeTimedSerializer("s3cret-one", salt="tranque-guest")
    _, signed_at = signer.loads(renewed["token"], return_timestamp=True)
    assert abs(signed_at.timestamp() - time.time()) < 60
    assert asyncio.run(_hello(base, renewed["token"], table))["type"] == "sync"
    # A forged token is not expired, it is bad.
    forged = _token("another-secret", "g-x", "x", 0)
    assert _renew(base, forged).json()["code"] == "bad_token"
    r = httpx.post(base + "/api/guests/renew", timeout=30)
    assert r.status_code == 401 and r.json()["code"] == "unauthenticated"


@pytest.mark.slow
def test_a_rotated_secret_still_accepts_tokens_of_the_old_one(
    server_factory: Any, tmp_path: Path
) -> None:
    db = tmp_path / "rot.db"
    first = server_factory(db=db, env={"TRANQUE_SECRET": "first-secret"})
    ana = httpx.post(first.base + "/api/guests", json={"nickname": "ana"}, timeout=30).json()
    first.stop()

    # Rotation: the new secret signs, the old one still verifies.
    second = server_factory(
        db=db, env={"TRANQUE_SECRET": "second-secret", "TRANQUE_OLD_SECRETS": "first-secret"}
    )
    assert _table(second.base, ana["token"]).status_code == 200
    bea = httpx.post(second.base + "/api/guests", json={"nickname": "bea"}, timeout=30).json()
    URLSafeTimedSerializer("second-secret", salt="tranque-guest").loads(bea["token"])
    second.stop()

    # From a file: first line signs, later lines are old secrets.
    secret_file = tmp_path / "secrets"
    secret_file.write_text("third-secret\nsecond-secret\n")
    third = server_factory("--secret-file", str(secret_file), db=db)
    assert _renew(third.base, bea["token"]).status_code == 200
    r = _renew(third.base, ana["token"])  # first-secret is no longer listed
    assert r.status_code == 401 and r.json()["code"] == "bad_token"
    third.stop()


@pytest.mark.slow
def test_without_a_secret_set_the_database_keeps_one(server_factory: Any, tmp_path: Path) -> None:
    db = tmp_path / "kept.db"
    first = server_factory(db=db)
    ana = httpx.post(first.base + "/api/guests", json={}, timeout=30).json()
    first.stop()
    again = server_factory(db=db)
    assert _renew(again.base, ana["token"]).status_code == 200
    again.stop()
    # Setting a secret later does not log out the guests of the database's secret.
    later = server_factory(db=db, env={"TRANQUE_SECRET": "now-a-real-one"})
    assert _renew(later.base, ana["token"]).status_code == 200


def test_hello_hands_a_fresh_token_for_one_past_half_its_life(server_factory: Any) -> None:
    import websockets

    server = server_factory("--token-days", "30", env={"TRANQUE_SECRET": "s3cret-two"})
    base = server.base
    host = httpx.post(base + "/api/guests", json={}, timeout=30).json()
    table = _table(base, host["token"]).json()["table"]

    async def first_frames(token: str) -> list[dict[str, Any]]:
        async with websockets.connect(base.replace("http", "ws", 1) + "/ws") as ws:
            await ws.send(json.dumps({"type": "hello", "token": token, "table": table}))
            frames = [json.loads(await asyncio.wait_for(ws.recv(), 10))]
            if frames[0]["type"] == "token":
                frames.append(json.loads(await asyncio.wait_for(ws.recv(), 10)))
            return frames

    young = _token("s3cret-two", "g-young", "yara", 14 * DAY)
    assert [f["type"] for f in asyncio.run(first_frames(young))] == ["sync"]
    old = _token("s3cret-two", "g-old", "olga", 16 * DAY)
    frames = asyncio.run(first_frames(old))
    assert [f["type"] for f in frames] == ["token", "sync"]
    signer = URLSafeTimedSerializer("s3cret-two", salt="tranque-guest")
    data, signed_at = signer.loads(frames[0]["token"], return_timestamp=True)
    assert data == {"g": "g-old", "n": "olga"} and abs(signed_at.timestamp() - time.time()) < 60
