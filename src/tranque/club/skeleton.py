"""The confusable skeleton of a name: two names with one skeleton look alike, so they are one name.

Unicode's TR39 (section 4, "Confusable Detection") defines ``skeleton(X)``: decompose (NFD), put
each character's *prototype* in its place (Cyrillic ``а`` is Latin ``a``, ``0`` is ``O``, ``m``
is ``rn``), decompose again. Two strings are confusable when their skeletons are equal. The
mapping is Unicode's ``confusables.txt``, as the library confusable-homoglyphs ships it. That
library only answers "is this character confusable with that one" (it keeps every pair both
ways, without saying which side is the prototype), so the prototypes are recovered here from
its data: in ``confusables.txt`` every source is one code point, a prototype is never a source,
so each group of look-alikes is a star around its prototype. A character with several
neighbours is a prototype; one with a single neighbour maps to it, unless both have one
neighbour (a pair), where the smaller code point stands for both (which side is Unicode's
prototype does not matter for telling whether two names are equal).

Beyond TR39, for names: combining marks are dropped, so accents fold away (``Zoé`` is ``Zoe``;
``ł`` is ``l̵`` and so ``l``); case folds (the skeleton is taken, casefolded, and taken again,
since ``I`` looks like ``l`` but folds to ``i``); and the separators ``.``, ``-``, ``_`` (and,
in a guest's nickname, spaces and apostrophes) are one separator. A name's key for uniqueness
is ``name_skeleton``; the store keeps it unique (migration ``0006a``).
"""

from __future__ import annotations

import unicodedata
from functools import cache

_MARKS = frozenset({"Mn", "Me"})  # combining marks (accents): folded away
_BIDI = str.maketrans("", "", "\u200e\u200f")  # the library wraps right-to-left glyphs in these
SEPARATOR = "."
_SEPARATORS = str.maketrans({c: SEPARATOR for c in "._- '’"})


@cache
def prototypes() -> dict[str, str]:
    """Every confusable character's prototype (characters that are their own are left out)."""
    from confusable_homoglyphs.confusables import confusables_data

    near: dict[str, set[str]] = {}
    for key, entries in confusables_data.items():
        a = key.translate(_BIDI)
        for entry in entries:
            b = str(entry["c"]).translate(_BIDI)
            if a and b and a != b:
                near.setdefault(a, set()).add(b)
                near.setdefault(b, set()).add(a)
    out: dict[str, str] = {}
    for a, others in near.items():
        if len(a) != 1 or len(others) != 1:
            continue  # a prototype (the centre of its star), or a sequence
        (b,) = others
        if len(b) > 1 or len(near[b]) > 1 or b < a:
            out[a] = b
    return out


def _marks_off(text: str) -> str:
    return "".join(
        c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) not in _MARKS
    )


def skeleton(text: str) -> str:
    """TR39's skeleton with the accents folded away (case is kept: see ``name_skeleton``)."""
    table = prototypes()
    out = _marks_off(text)
    for _ in range(4):  # a pair's stand-in may sit inside a longer prototype: map to a fixed point
        mapped = _marks_off("".join(table.get(c, c) for c in out))
        if mapped == out:
            break
        out = mapped
    return out


def name_skeleton(name: str) -> str:
    """The key under which names are unique: the skeleton, casefolded, and skeleton again, with
    every separator one. ``Marta``, ``MАRTA`` (Cyrillic А) and ``marta`` share it; so do
    ``Zoé_Two``, ``zoe-two`` and ``Zoe.Tw0``."""
    once = skeleton(unicodedata.normalize("NFKC", name).translate(_SEPARATORS))
    return skeleton(once.casefold()).translate(_SEPARATORS)
