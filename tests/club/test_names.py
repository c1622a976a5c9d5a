"""Account names and passwords: what is refused, the case-insensitive key, and the confusable
skeleton under which look-alike names are one."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tranque.club.names import (
    BOT_NAMES,
    BadName,
    WeakPassword,
    check_name,
    check_nickname,
    check_password,
    common_passwords,
    name_key,
    reserved,
)
from tranque.club.skeleton import name_skeleton


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


# -- look-alike names (issue 28, finding 11) --------------------------------------------------


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("Marta", "M\u0430rta"),  # a Cyrillic а
        ("Marta", "MARTA"),
        ("Zoé_Two", "Zoe_Two"),  # an accent
        ("Zoe_Two", "zoe-two"),  # another separator
        ("Zoe.Two", "Zoe.Tw0"),  # a zero
        ("Ilse", "llse"),  # a capital I and a small L
        ("Łukasz", "Lukasz"),
        ("paypal", "p\u0430yp\u0430l"),
    ],
)
def test_look_alike_names_share_a_skeleton(one: str, other: str) -> None:
    assert name_skeleton(one) == name_skeleton(other)


@pytest.mark.parametrize(("one", "other"), [("Ana", "Anna"), ("marta", "marta1"), ("Ñico", "Nica")])
def test_different_names_keep_different_skeletons(one: str, other: str) -> None:
    assert name_skeleton(one) != name_skeleton(other)


@pytest.mark.parametrize(
    "name",
    [
        *BOT_NAMES,
        "ROSA",
        "R0sa",
        "Pancho2",
        "tito-1",
        "house",
        "\u0397ouse",  # a Greek Eta
        "B0T",
        "b\u043et-3",  # a Cyrillic о
        "strong-slow",
        "greedy",
    ],
)
def test_the_bots_names_and_reserved_words_are_refused_in_any_guise(name: str) -> None:
    with pytest.raises(BadName) as err:
        check_name(name)
    assert err.value.code == "reserved_name"
    with pytest.raises(BadName):
        check_nickname(name)


def test_a_person_may_be_called_like_a_bot_with_more_to_the_name() -> None:
    for name in ("Rosa.Maria", "Tito_Perez", "Panchito", "Chelita"):
        assert check_name(name) == name
        check_nickname(name.replace("_", " ").replace(".", " "))


def test_every_bot_and_level_is_reserved_and_the_bots_names_are_the_clients() -> None:
    from tranque.bots.base import LEVELS, bot_names

    for word in (*LEVELS, *bot_names()):
        assert reserved(word), word
    model = (Path(__file__).parents[2] / "src/tranque/web/js/seats.js").read_text()
    listed = re.search(r"export const BOT_NAMES = \[([^\]]*)\]", model)
    assert listed is not None
    assert tuple(re.findall(r'"([^"]+)"', listed.group(1))) == BOT_NAMES


# -- the common passwords (issue 28, finding 12) ----------------------------------------------


def test_the_shipped_list_of_common_passwords_is_long_and_used() -> None:
    listed = common_passwords()
    assert len(listed) >= 10_000
    for password in ("liverpool1", "qazwsxedc", "Spiderman1", "contraseña1", "zaq12wsx"):
        with pytest.raises(WeakPassword):
            check_password(password)
    check_password("el-doble-blanco")
