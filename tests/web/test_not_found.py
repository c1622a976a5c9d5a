"""A path nobody serves (issue 29): a page in the site's look and the visitor's language, with a
way home, and still status 404; a path under /api/ answers JSON like every other API refusal.
Shot on a phone and a desktop, in Spanish and English (``tests/web/artifacts/not-found-*``)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from screens import ARTIFACTS, BLOCKING, axe
from test_browser import DESKTOP, PHONE, new_page

pytestmark = pytest.mark.slow  # a browser


def test_an_unknown_path_is_a_404_page_with_a_way_home(browser: Any, server: Any) -> None:
    page_answer = httpx.get(f"{server.base}/no/such/page")
    assert page_answer.status_code == 404
    assert page_answer.headers["content-type"].startswith("text/html")
    assert "/assets/" in page_answer.text  # the page itself, its scripts under this release
    assert "content-security-policy" in page_answer.headers
    api_answer = httpx.get(f"{server.base}/api/no-such-thing")
    assert api_answer.status_code == 404
    assert api_answer.json()["code"] == "not_found"
    table = httpx.get(f"{server.base}/api/tables/nope")  # the API's own refusals are untouched
    assert (table.status_code, table.json()["code"]) == (404, "no_table")

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for lang, title in (("es", "Aquí no hay nada"), ("en", "Nothing here")):
        for view, size in (("phone", PHONE), ("desktop", DESKTOP)):
            page = new_page(browser, size, "es-ES" if lang == "es" else "en-GB")
            page.add_init_script(f"localStorage.setItem('tranque.lang', '{lang}')")
            response = page.goto(f"{server.base}/no/such/page")
            assert response is not None and response.status == 404
            page.wait_for_selector("#app *")
            page.wait_for_selector("#not-found h1", timeout=5_000)
            page.screenshot(path=str(ARTIFACTS / f"not-found-{lang}-{view}.png"), full_page=True)
            assert page.inner_text("#not-found h1") == title
            assert "/no/such/page" in page.inner_text("#not-found")
            bad = [
                (v["id"], v["nodes"]) for v in axe(page) if v["impact"] in BLOCKING and not v["aaa"]
            ]
            assert bad == [], bad
            home = page.locator("#go-home")
            box = home.bounding_box()
            assert box is not None and box["y"] + box["height"] <= size["height"]
            home.click()
            page.wait_for_selector("#play-now")
            assert page.url == f"{server.base}/"
            assert not page.errors, page.errors
            page.context.close()
