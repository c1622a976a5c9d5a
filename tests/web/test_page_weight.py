"""The page stays light: the first load on the wire (compressed bodies and headers, as Chromium
received them) is under 64 KiB, the installable app's files included, for the landing and for a
table's invite link. The figures are written to ``tests/web/artifacts/weight.txt``."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from screens import ARTIFACTS
from weight import BUDGET, app_files, first_load, report, total

pytestmark = pytest.mark.slow


def test_the_first_load_is_under_its_budget(browser: Any, server: Any) -> None:
    guest = httpx.post(f"{server.base}/api/guests", json={"nickname": "Ana"}).json()
    table = httpx.post(
        f"{server.base}/api/tables",
        json={"rules": "havana", "practice": False, "seat": 0},
        headers={"authorization": f"Bearer {guest['token']}"},
    ).json()["table"]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    out = []
    for name, path in (("landing", "/"), ("invite link", f"/t/{table}")):
        rows = [r for r in first_load(browser, server.base + path) if r["type"] != "fetch"]
        rows += app_files(server.base)  # the service worker and the manifest count too
        out.append(f"{name} ({path})\n{report(rows)}\n")
        paths = {r["path"].rsplit("/", 1)[-1] for r in rows}
        assert {"app.css", "app.js", "table.js", "i18n.js", "sw.js"} <= paths, paths  # measured
        assert all(r.get("status", 200) == 200 for r in rows), rows
        assert all(r["encoding"] == "gzip" for r in rows if r["unpacked"] > 1024), rows
        assert total(rows) <= BUDGET, report(rows)
    (ARTIFACTS / "weight.txt").write_text("\n".join(out))
