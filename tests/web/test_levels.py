"""Jugar ahora asks the bots' level (Fácil / Normal / Fuerte), remembers it, and the practice
table it creates has bots of that level."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

# A browser: Chromium starts for it (make test-fast runs without one).
pytestmark = pytest.mark.slow


def test_jugar_ahora_asks_the_level_remembers_it_and_the_bots_have_it(
    browser: Any, server: Any
) -> None:
    # bypass_csp: Playwright polls a string predicate with eval, which the page's CSP forbids
    # (test_csp.py loads the page with its policy enforced).
    ctx = browser.new_context(
        viewport={"width": 390, "height": 844}, locale="es-ES", bypass_csp=True
    )
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(server.base + "/")
    assert page.locator("#level legend").inner_text() == "Nivel de los bots"
    assert page.locator("#level label").all_inner_texts() == ["Fácil", "Normal", "Fuerte"]
    assert page.locator("input[name=level][value=normal]").is_checked()  # today's bots
    page.get_by_label("Fácil").check()
    page.reload()
    assert page.locator("input[name=level][value=facil]").is_checked()  # remembered
    page.select_option("#lang", "en")
    page.wait_for_function("document.documentElement.lang === 'en'")  # its words fetched first
    assert page.locator("#level legend").inner_text() == "Bots' level"
    assert page.locator("#level label").all_inner_texts() == ["Easy", "Normal", "Strong"]
    page.fill("#nickname", "Yoel")
    page.click("#play-now")
    page.wait_for_url(re.compile(r"/t/[^/?#]+$"))
    page.wait_for_selector(".hand .tile")
    table = page.url.rsplit("/", 1)[1]
    info = httpx.get(f"{server.base}/api/tables/{table}", timeout=30).json()
    assert info["bot"] == "facil"
    assert [s["bot"] for s in info["seats"]] == [None, "facil", "facil", "facil"]
    assert errors == []
    ctx.close()
