"""A name refused is said at its field (issue 29): the landing's nickname and the account card's
name are marked (aria-invalid, a message beside them that they name) when the server refuses
them, instead of a toast that passes; and a name over the limit is said to be so as it is typed,
never cut. On a phone and a desktop, in Spanish and English
(``tests/web/artifacts/name-field-*``)."""

from __future__ import annotations

from typing import Any

import pytest
from screens import ARTIFACTS, BLOCKING, axe
from test_browser import DESKTOP, PHONE, new_page

pytestmark = pytest.mark.slow  # a browser

WORDS = {
    "es": {"long": "1 a 24", "reserved": "reservado", "name_long": "3 a 20"},
    "en": {"long": "1 to 24", "reserved": "reserved", "name_long": "3 to 20"},
}


def _marked(page: Any, field: str) -> str:
    """The message a marked field names as its description (it must be visible)."""
    assert page.get_attribute(field, "aria-invalid") == "true"
    note = page.get_attribute(field, "aria-describedby")
    assert note, field
    assert page.locator(f"#{note}").is_visible()
    return str(page.inner_text(f"#{note}"))


def test_a_refused_name_is_marked_at_its_field_and_never_cut(browser: Any, server: Any) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for lang, words in WORDS.items():
        for view, size in (("phone", PHONE), ("desktop", DESKTOP)):
            page = new_page(browser, size, "es-ES" if lang == "es" else "en-GB")
            page.add_init_script(f"localStorage.setItem('tranque.lang', '{lang}')")
            page.goto(server.base + "/")
            page.wait_for_selector("#nickname")
            # Over 24 characters: said at once, and kept whole.
            long = "Margarita de la Caridad Fernández"
            page.fill("#nickname", long)
            assert page.input_value("#nickname") == long
            assert words["long"] in _marked(page, "#nickname")
            page.click("#play-now")
            assert page.url == server.base + "/" and page.is_hidden("#toast")
            # A name the server refuses (a bot's): marked with its reason, no toast.
            page.fill("#nickname", "Pancho")
            assert page.get_attribute("#nickname", "aria-invalid") is None
            page.click("#play-now")
            page.wait_for_selector("#nickname[aria-invalid='true']")
            assert words["reserved"] in _marked(page, "#nickname")
            assert page.is_hidden("#toast")
            page.locator("#nickname").scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS / f"name-field-{lang}-{view}.png"))
            bad = [(v["id"], v["nodes"]) for v in axe(page) if v["impact"] in BLOCKING]
            assert bad == [], bad
            page.fill("#nickname", "Ana")
            assert page.get_attribute("#nickname", "aria-invalid") is None
            # The account card's name: the same, its limit said, its refusal at the field.
            page.fill("#account-name", "a" * 21)
            assert page.input_value("#account-name") == "a" * 21
            assert words["name_long"] in _marked(page, "#account-name")
            page.fill("#account-name", "pancho")
            page.fill("#account-password", "mulata-de-seis")
            page.click("#claim")
            page.wait_for_selector("#account-name[aria-invalid='true']")
            assert words["reserved"] in _marked(page, "#account-name")
            page.locator("#account-name").scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS / f"name-field-account-{lang}-{view}.png"))
            bad = [(v["id"], v["nodes"]) for v in axe(page) if v["impact"] in BLOCKING]
            assert bad == [], bad
            assert not page.errors, page.errors
            page.context.close()
