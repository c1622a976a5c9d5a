"""Accounts through a real server: a guest claims a name and keeps its games; log in, log out
here and everywhere, change the password; wrong passwords and the login limit (one limit for
every node of a cluster). No answer ever carries a password or its hash."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx
import pytest
from frame_scanner import scan
from tests.conftest import Cluster

from tranque.client import TableClient, create_table, get_json, new_guest, random_legal

PASSWORD = "mulata-de-seis"


def _call(
    base: str, method: str, path: str, token: str | None = None, body: Any = None
) -> httpx.Response:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    r = httpx.request(method, base + path, json=body, headers=headers, timeout=30)
    # Nothing secret ever comes back: no password, no argon2 hash.
    assert PASSWORD not in r.text and "$argon2" not in r.text, r.text
    return r


async def _hello(base: str, token: str, table: str) -> dict[str, Any]:
    import websockets

    async with websockets.connect(base.replace("http", "ws", 1) + "/ws") as ws:
        await ws.send(json.dumps({"type": "hello", "token": token, "table": table}))
        return dict(json.loads(await asyncio.wait_for(ws.recv(), 10)))


def test_a_claimed_account_keeps_the_guests_games_and_the_old_token_ends(server: Any) -> None:
    base = server.base

    async def play() -> tuple[dict[str, Any], str]:
        g = await new_guest(base, "anita")
        t = await create_table(
            base, g["token"], rules={"preset": "havana", "target": 30}, practice=True
        )
        c = TableClient(base, g["token"], t["table"])
        await c.connect()
        await c.play_game(random_legal, timeout=300)
        record = await get_json(base, f"/api/tables/{t['table']}/record")
        scan(c.frames, 0, record).at_least(1)
        await c.close()
        return g, t["table"]

    guest, tid = asyncio.run(play())
    as_guest = _call(base, "GET", f"/api/profiles/~{guest['guest']}").json()
    assert as_guest["account"] is False and as_guest["games"]["played"] == 1
    assert [r["table"] for r in as_guest["recent"]] == [tid]
    assert as_guest["recent"][0]["rated"] is False  # three bots: not rated
    assert as_guest["ratings"] == {}

    claim = _call(
        base, "POST", "/api/accounts", guest["token"], {"name": "Anita", "password": PASSWORD}
    )
    assert claim.status_code == 200, claim.text
    account = claim.json()
    assert account["guest"] == guest["guest"] and account["account"] == "Anita"
    # The games came along: the profile by name is the guest's, and its old handle too.
    profile = _call(base, "GET", "/api/profiles/anita").json()
    assert profile["handle"] == "Anita" and profile["account"] is True
    assert [r["table"] for r in profile["recent"]] == [tid]
    assert profile["recent"][0]["record"] == f"/api/tables/{tid}/record"
    assert _call(base, "GET", f"/api/profiles/~{guest['guest']}").json()["handle"] == "Anita"
    # The plain guest token no longer speaks for the account; the account's does.
    assert _call(base, "GET", "/api/me", guest["token"]).json()["code"] == "logged_out"
    assert asyncio.run(_hello(base, guest["token"], tid))["code"] == "logged_out"
    me = _call(base, "GET", "/api/me", account["token"]).json()
    assert me["account"] == "Anita" and me["profile"] == "Anita"
    assert asyncio.run(_hello(base, account["token"], tid))["type"] in ("token", "sync")
    # A name is one whatever its case; reserved words and weak passwords are refused.
    other = asyncio.run(new_guest(base, "otra"))["token"]
    for body, status, code in [
        ({"name": "ANITA", "password": PASSWORD}, 409, "name_taken"),
        ({"name": "bot-1", "password": PASSWORD}, 400, "reserved_name"),
        ({"name": "ana maria", "password": PASSWORD}, 400, "bad_name"),
        ({"name": "rosita", "password": "password1"}, 400, "weak_password"),
        ({"name": "rosita", "password": "corta"}, 400, "weak_password"),
        ({"name": "rosita", "password": 12345678}, 400, "bad_password"),
        ({"name": "rosita"}, 400, "malformed"),
        ({"name": "rosita", "password": PASSWORD, "admin": True}, 400, "unknown_field"),
    ]:
        r = _call(base, "POST", "/api/accounts", other, body)
        assert (r.status_code, r.json()["code"]) == (status, code), (body, r.text)
    r = _call(
        base, "POST", "/api/accounts", account["token"], {"name": "x-y-z", "password": PASSWORD}
    )
    assert (r.status_code, r.json()["code"]) == (409, "already_claimed")
    assert _call(base, "POST", "/api/accounts", None, {"name": "rosita"}).status_code == 401


def test_log_in_log_out_here_and_everywhere_and_change_the_password(server: Any) -> None:
    base = server.base
    guest = asyncio.run(new_guest(base, "pepe"))
    first = _call(
        base, "POST", "/api/accounts", guest["token"], {"name": "Pepe", "password": PASSWORD}
    ).json()
    tid = asyncio.run(create_table(base, first["token"], practice=False))["table"]
    # Two more devices.
    phone = _call(base, "POST", "/api/sessions", None, {"name": "PEPE", "password": PASSWORD})
    laptop = _call(base, "POST", "/api/sessions", None, {"name": "pepe", "password": PASSWORD})
    assert phone.status_code == laptop.status_code == 200
    phone_t, laptop_t = phone.json()["token"], laptop.json()["token"]
    assert phone.json()["guest"] == guest["guest"]  # the same person on every device
    # Out on the phone only.
    assert _call(base, "DELETE", "/api/sessions/current", phone_t).json() == {"ended": 1}
    assert _call(base, "GET", "/api/me", phone_t).json()["code"] == "logged_out"
    assert asyncio.run(_hello(base, phone_t, tid))["code"] == "logged_out"
    assert _call(base, "GET", "/api/me", laptop_t).status_code == 200
    # Renewing keeps the session: the fresh token ends with it.
    renewed = _call(base, "POST", "/api/guests/renew", laptop_t).json()["token"]
    # A new password: the other sessions end, this one goes on with a fresh token.
    r = _call(
        base,
        "POST",
        "/api/accounts/password",
        first["token"],
        {"old": "nope-nope-1", "new": "x" * 9 + "yz"},
    )
    assert (r.status_code, r.json()["code"]) == (403, "bad_password")
    r = _call(
        base,
        "POST",
        "/api/accounts/password",
        first["token"],
        {"old": PASSWORD, "new": "123456789"},
    )
    assert (r.status_code, r.json()["code"]) == (400, "weak_password")
    r = _call(
        base,
        "POST",
        "/api/accounts/password",
        first["token"],
        {"old": PASSWORD, "new": "el-doble-blanco"},
    )
    assert r.status_code == 200, r.text
    assert _call(base, "GET", "/api/me", renewed).json()["code"] == "logged_out"
    assert _call(base, "GET", "/api/me", first["token"]).status_code == 200
    bad = _call(base, "POST", "/api/sessions", None, {"name": "pepe", "password": PASSWORD})
    assert (bad.status_code, bad.json()["code"]) == (401, "bad_login")
    again = _call(
        base, "POST", "/api/sessions", None, {"name": "pepe", "password": "el-doble-blanco"}
    )
    assert again.status_code == 200
    # Out everywhere: every token of the account is refused at its next use.
    assert _call(base, "DELETE", "/api/sessions", again.json()["token"]).json() == {"ended": 2}
    for token in (first["token"], again.json()["token"]):
        assert _call(base, "GET", "/api/me", token).json()["code"] == "logged_out"
        assert _call(base, "POST", "/api/tables", token, {}).json()["code"] == "logged_out"
    # A guest has no session to end.
    plain = asyncio.run(new_guest(base, "juan"))["token"]
    assert _call(base, "DELETE", "/api/sessions", plain).json()["code"] == "not_logged_in"


def _limited(bases: list[str]) -> None:
    """Wrong passwords against one name from one client, spread over ``bases``: five are
    checked before any limit; after ten, even the right password from that client waits, with
    a Retry-After; another name from the same client is not held up (and another client is not
    either: test_server_account_abuse).

    Ten, not five: after five quick failures the pair's first tier lets one more through every
    second (club.accounts.LoginLimits), and on a loaded machine five argon2 checks take longer
    than that, so the right password could be let through by the first tier's refill. Ten spend
    the second tier too, which gives one back every 30 s: the limit holds however slow the
    checks are. A refusal on the way waits the Retry-After it names."""
    guest = asyncio.run(new_guest(bases[0], "lola"))
    made = _call(
        bases[0], "POST", "/api/accounts", guest["token"], {"name": "lola", "password": PASSWORD}
    )
    assert made.status_code == 200, made.text
    failures = 0
    for i in range(40):
        if failures == 10:
            break
        r = _call(
            bases[i % len(bases)],
            "POST",
            "/api/sessions",
            None,
            {"name": "Lola", "password": f"wrong-{i}-pass"},
        )
        if r.status_code == 429 and failures >= 5:
            assert r.json()["code"] == "login_limited", r.text
            time.sleep(int(r.headers["retry-after"]))  # the server's own figure for its refill
            continue
        assert (r.status_code, r.json()["code"]) == (401, "bad_login"), r.text
        failures += 1
    assert failures == 10
    for base in bases:
        r = _call(base, "POST", "/api/sessions", None, {"name": "lola", "password": PASSWORD})
        assert (r.status_code, r.json()["code"]) == (429, "login_limited"), r.text
        assert int(r.headers["retry-after"]) >= 1
    # A name nobody has gets the same answer as a wrong password (names are not revealed).
    r = _call(bases[-1], "POST", "/api/sessions", None, {"name": "nadie", "password": PASSWORD})
    assert (r.status_code, r.json()["code"]) == (401, "bad_login")


@pytest.mark.slow
def test_wrong_passwords_and_the_login_limit(server: Any) -> None:
    _limited([server.base])


@pytest.mark.slow
def test_the_login_limit_is_one_for_every_node(cluster_factory: Any) -> None:
    cluster: Cluster = cluster_factory(2)
    _limited(cluster.bases)
