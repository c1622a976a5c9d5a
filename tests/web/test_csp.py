"""The page under its own Content-Security-Policy: it runs, and the browser reports no violation."""

from __future__ import annotations

from typing import Any

import pytest

# A browser: Chromium starts for it (make test-fast runs without one).
pytestmark = pytest.mark.slow


def test_the_page_plays_under_its_content_security_policy(browser: Any, server: Any) -> None:
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, locale="es-ES")
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.on(
        "console",
        lambda m: (
            problems.append(m.text)
            if m.type == "error" or "Content Security Policy" in m.text
            else None
        ),
    )
    response = page.goto(server.base + "/")
    assert response is not None
    assert "script-src 'self'" in response.headers["content-security-policy"]
    page.fill("#nickname", "Ana")
    page.click("#play-now")
    # A practice table: the socket connected and the hand was dealt, all under the policy.
    page.wait_for_selector(".hand .tile")
    assert page.evaluate("document.querySelector('script[type=module]').src").startswith(
        server.base + "/assets/"
    )
    # The saved token was used and renewed: a reload keeps the same guest.
    guest = page.evaluate("JSON.parse(localStorage.getItem('tranque.guest')).guest")
    page.reload()
    page.wait_for_selector("#app *")
    page.wait_for_load_state("networkidle")
    assert page.evaluate("JSON.parse(localStorage.getItem('tranque.guest')).guest") == guest
    assert problems == [], problems
    ctx.close()
