"""Account names and passwords: what is refused, and the case-insensitive key."""

from __future__ import annotations

import pytest

from tranque.club.names import BadName, WeakPassword, check_name, check_password, name_key


@pytest.mark.parametrize("name", ["ana", "Ana_Maria", "josé.luis", "Ñico-99", "R2D2"])
def test_good_names_are_kept_as_typed(name: str) -> None:
    assert check_name(f"  {name} ") == name


@pytest.mark.parametrize(
    "name",
    ["ab", "a" * 21, "ana maria", "ana__maria", "_ana", "ana-", "an@", "dos\u200bcero", "a/b"],
)
def test_bad_names_are_refused(name: str) -> None:
    with pytest.raises(BadName) as err:
        check_name(name)
    assert err.value.code == "bad_name"


@pytest.mark.parametrize(
    "name", ["bot", "BOT", "bot-3", "Admin1", "guest-0042", "Tranque", "invitado"]
)
def test_reserved_names_are_refused(name: str) -> None:
    with pytest.raises(BadName) as err:
        check_name(name)
    assert err.value.code == "reserved_name"


def test_names_are_one_whatever_their_case_or_unicode_form() -> None:
    assert name_key("ANA") == name_key("ana")
    assert name_key("Jose\u0301") == name_key("JOSÉ")  # a combining accent is the same é
    assert name_key("ana") != name_key("ana1")
    assert check_name("botánico") == "botánico"  # a word starting with "bot" is not a bot


@pytest.mark.parametrize(
    "password",
    ["short", "1234567", "password", "PASSWORD1", "12345678", "aaaaaaaaaaaa", "abab" * 3],
)
def test_short_and_common_passwords_are_refused(password: str) -> None:
    with pytest.raises(WeakPassword):
        check_password(password)


def test_a_password_may_not_contain_the_name_and_a_good_one_passes() -> None:
    with pytest.raises(WeakPassword):
        check_password("xx-Ana-2024", "ana")
    check_password("mulata-de-seis", "ana")
    with pytest.raises(WeakPassword):
        check_password("x" * 257 + "yz")
