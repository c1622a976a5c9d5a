"""Moderation through a real server (docs/fairplay.md, "Moderation"): ``tranque admin grant``
makes a moderator; players report and block; the moderators' page lists flags and reports
with their games; review, warn, suspend (the rated queue refuses), close (no login, off the
leaderboards). Nothing of it reaches anyone but moderators (the frame scanner). Every wait is
for a frame, never a sleep."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from typing import Any

import httpx
import pytest
from club_client import ClubSocket
from frame_scanner import assert_no_moderation

from tranque.client import new_guest
from tranque.store import open_store
from tranque.store.moderation import SqlModeration

PASSWORD = "mulata-de-seis"


def _call(
    base: str, method: str, path: str, token: str | None = None, body: Any = None
) -> httpx.Response:
    headers = {"authorization": f"Bearer {token}"} if token else {}
    return httpx.request(method, base + path, json=body, headers=headers, timeout=30)


def _account(base: str, name: str) -> str:
    guest = asyncio.run(new_guest(base, name))
    r = _call(base, "POST", "/api/accounts", guest["token"], {"name": name, "password": PASSWORD})
    assert r.status_code == 200, r.text
    return str(r.json()["token"])


def admin(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tranque", "admin", *args],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


async def _queue(base: str, token: str) -> tuple[dict[str, Any], list[str]]:
    q = await ClubSocket(base).open()
    await q.send({"type": "queue", "token": token, "variant": "havana"})
    said = await q.wait(lambda m: m.get("type") in ("queued", "error"))
    if said["type"] == "queued":
        await q.send({"type": "unqueue"})
        await q.wait(lambda m: m.get("type") == "unqueued")
    await q.close()
    return said, q.frames


@pytest.mark.slow
def test_the_admin_command_grants_and_refuses_bad_input_in_one_line(server: Any) -> None:
    base, url = server.base, server.url
    _account(base, "Moira")
    ok = admin("grant", "moira", "moderator", "--db", url)
    assert ok.returncode == 0 and ok.stdout.strip() == "Moira is a moderator", ok
    again = admin("grant", "Moira", "moderator", "--db", url)
    assert again.returncode == 0 and "already" in again.stdout
    for bad, says in (
        (("grant", "Nadie", "moderator", "--db", url), "no account called 'Nadie'"),
        (("grant", "Moira", "judge", "--db", url), "roles are moderator"),
        (("grant", "Moira", "moderator", "--db", "sqlite:////nowhere/x.db"), "no database"),
    ):
        r = admin(*bad)
        assert r.returncode == 2 and r.stdout == "", r
        assert len(r.stderr.strip().splitlines()) == 1 and says in r.stderr, r.stderr
    gone = admin("revoke", "Moira", "moderator", "--db", url)
    assert gone.returncode == 0 and gone.stdout.strip() == "Moira is not a moderator"
    assert "(was not)" in admin("revoke", "Moira", "moderator", "--db", url).stdout


@pytest.mark.slow
def test_report_review_suspend_block_close_through_http_and_the_queue(server: Any) -> None:
    base, url = server.base, server.url
    moira, pablo, rita, tomas = (_account(base, n) for n in ("Moira", "Pablo", "Rita", "Tomas"))
    assert admin("grant", "Moira", "moderator", "--db", url).returncode == 0
    seen: list[str] = []  # every answer Pablo and Tomas got: no report, flag or reporter

    def as_player(method: str, path: str, token: str, body: Any = None) -> httpx.Response:
        r = _call(base, method, path, token, body)
        seen.append(r.text)
        return r

    # Only a moderator reads the page.
    assert _call(base, "GET", "/api/mod").status_code == 401
    r = as_player("GET", "/api/mod", tomas)
    assert (r.status_code, r.json()["code"]) == (403, "not_moderator")
    assert _call(base, "GET", "/api/me", moira).json()["moderator"] is True
    assert as_player("GET", "/api/me", tomas).json()["moderator"] is False

    # Rita reports Pablo, once a day, with a reason of the list.
    body = {"person": "Pablo", "reason": "partner_signals", "table": "t9"}
    assert _call(base, "POST", "/api/reports", rita, body).json() == {"reported": True}
    r = _call(base, "POST", "/api/reports", rita, body)
    assert (r.status_code, r.json()["code"]) == (409, "reported_already")
    for bad, status, code in (
        ({"person": "Pablo", "reason": "he is bad"}, 400, "bad_report_reason"),
        ({"person": "Pablo", "reason": 3}, 400, "bad_reason"),
        ({"person": "Nadie", "reason": "abuse"}, 404, "no_profile"),
        ({"person": "Rita", "reason": "abuse"}, 400, "own_report"),
        ({"person": "Pablo", "reason": "abuse", "extra": 1}, 400, "unknown_field"),
    ):
        r = _call(base, "POST", "/api/reports", rita, bad)
        assert (r.status_code, r.json()["code"]) == (status, code), r.text
    assert _call(base, "POST", "/api/reports", None, body).status_code == 401

    # A flag of the screen, kept in the database (as the screen keeps them).
    async def flag() -> None:
        store = await open_store(url, migrate=False)
        try:
            await SqlModeration(store).save_flags(
                [{"ids": ["Pablo", "Tomas"], "reasons": ["hindsight_edge"], "games": 8,
                  "z_edge": 4.2}], time.time(),
            )  # fmt: skip
        finally:
            await store.close()

    asyncio.run(flag())
    page = _call(base, "GET", "/api/mod", moira).json()
    [reported] = page["reports"]
    assert reported["person"] == {"profile": "Pablo", "nickname": "Pablo"}
    assert reported["reasons"] == {"partner_signals": 1} and reported["tables"] == ["t9"]
    assert [p["profile"] for p in reported["reporters"]] == ["Rita"]
    [flagged] = page["flags"]
    assert flagged["subject"] == "Pablo+Tomas" and flagged["reasons"] == ["hindsight_edge"]
    assert flagged["stats"]["z_edge"] == 4.2 and flagged["games"] == []

    # Actions: only a moderator, with a reason; each a line of the log.
    act = {"action": "suspend", "person": "Pablo", "reason": "signals to his partner", "hours": 2}
    r = as_player("POST", "/api/mod/actions", tomas, act)
    assert (r.status_code, r.json()["code"]) == (403, "not_moderator")
    for bad, code in (
        ({**act, "reason": "x"}, "bad_reason"),
        ({**act, "hours": 0}, "bad_hours"),
        ({**act, "hours": "2"}, "bad_hours"),
        ({**act, "action": "ban"}, "bad_action"),
        ({**act, "person": "Moira"}, "own_account"),
    ):
        r = _call(base, "POST", "/api/mod/actions", moira, bad)
        assert r.json()["code"] == code, r.text
    log = _call(base, "GET", "/api/mod", moira).json()["log"]
    assert [e["action"] for e in log] == ["grant:moderator"]  # nothing refused was written
    r = _call(base, "POST", "/api/mod/actions", moira, act)
    assert r.status_code == 200 and r.json()["until"] > time.time() + 7000, r.text

    # The suspended person's rated queue is refused; the others' is not.
    said, frames = asyncio.run(_queue(base, pablo))
    seen.extend(frames)
    assert said["code"] == "suspended" and said["until"] == r.json()["until"], said
    said, frames = asyncio.run(_queue(base, tomas))
    seen.extend(frames)
    assert said["type"] == "queued"

    # Review: the flag and the reports go off the page; the log keeps all.
    review = {"action": "review", "person": "Pablo", "reason": "games read, partner told",
              "subject": "Pablo+Tomas"}  # fmt: skip
    assert _call(base, "POST", "/api/mod/actions", moira, review).status_code == 200
    page = _call(base, "GET", "/api/mod", moira).json()
    assert page["flags"] == [] and page["reports"] == []
    assert [(e["action"], e["target"]["profile"]) for e in page["log"]] == [
        ("review", "Pablo"), ("suspend", "Pablo"), ("grant:moderator", "Moira"),
    ]  # fmt: skip
    assert [s["person"]["profile"] for s in page["standing"]] == ["Pablo"]

    # Blocks: one's own list, nobody else's.
    r = _call(base, "POST", "/api/blocks", rita, {"person": "Pablo"})
    assert r.json() == {"person": "Pablo", "blocked": True, "changed": True}
    assert _call(base, "GET", "/api/blocks", rita).json()["blocked"] == [
        {"profile": "Pablo", "nickname": "Pablo"}
    ]
    assert as_player("GET", "/api/blocks", pablo).json() == {"blocked": []}
    r = _call(base, "POST", "/api/blocks", rita, {"person": "Rita"})
    assert r.json()["code"] == "own_block"
    assert _call(base, "DELETE", "/api/blocks/Pablo", rita).json()["blocked"] is False
    assert _call(base, "GET", "/api/blocks", rita).json() == {"blocked": []}

    # What Pablo and Tomas read of themselves and each other shows none of it.
    for path in ("/api/profiles/Pablo", "/api/profiles/Tomas", "/api/me", "/api/lobby"):
        as_player("GET", path, pablo)
        as_player("GET", path, tomas)
    assert assert_no_moderation(seen, ["Rita", "partner_signals", "signals to his partner"]) >= 15

    # Close: his token ends, no login, the moderator's own account is never closed by another.
    close = {"action": "close", "person": "Pablo", "reason": "a second account of Tomas"}
    r = _call(base, "POST", "/api/mod/actions", moira, close)
    assert r.status_code == 200
    r = _call(base, "GET", "/api/me", pablo)
    assert (r.status_code, r.json()["code"]) == (401, "logged_out")
    r = _call(base, "POST", "/api/sessions", None, {"name": "Pablo", "password": PASSWORD})
    assert (r.status_code, r.json()["code"]) == (403, "account_closed")
    r = _call(base, "POST", "/api/sessions", None, {"name": "Pablo", "password": "wrong-one-1"})
    assert (r.status_code, r.json()["code"]) == (401, "bad_login")  # nothing told to a guesser
    r = _call(base, "POST", "/api/mod/actions", moira, {**act, "person": "Pablo"})
    assert (r.status_code, r.json()["code"]) == (409, "account_closed")
    assert admin("grant", "Rita", "moderator", "--db", url).returncode == 0
    r = _call(base, "POST", "/api/mod/actions", rita,
              {"action": "close", "person": "Moira", "reason": "taking over"})  # fmt: skip
    assert (r.status_code, r.json()["code"]) == (403, "target_is_moderator")
    assert "Traceback" not in server.stop()


@pytest.mark.slow
def test_two_people_of_whom_one_blocks_the_other_are_never_seated_together(
    server_factory: Any,
) -> None:
    from blocks_queue import never_seated_together

    server = server_factory("--fill-time", "3")
    asyncio.run(never_seated_together([server.base]))
    assert "Traceback" not in server.stop()


def test_the_phrases_of_a_blocked_person_are_hidden_from_who_blocks_him(server: Any) -> None:
    from blocks_queue import phrases_hidden

    asyncio.run(phrases_hidden([server.base]))
    assert "Traceback" not in server.stop()
