"""Helpers of the browser tests that look at whole screens: axe-core on the page, screenshots at
the three widths the client is made for, and checks that note a failure and go on.

Screenshots and axe's findings go to ``tests/web/artifacts/`` (git-ignored, kept after the run):
``<screen>-<width>.png`` and ``axe.json`` (every violation of every impact, per screen).
"""

from __future__ import annotations

import contextlib
import json
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import axe_playwright_python

ARTIFACTS = Path(__file__).resolve().parent / "artifacts"
AXE_JS = Path(axe_playwright_python.__file__).parent / "axe.min.js"
WIDTHS = {360: 780, 390: 844, 1366: 768}
BLOCKING = ("serious", "critical")

# Every rule axe has, the experimental ones too (label-content-name-mismatch is one of them) and
# the AAA ones, which are noted in axe.json but block nothing (the page aims at AA).
AXE_RUN = """async () => {
  const rules = {};
  for (const r of axe.getRules()) rules[r.ruleId] = { enabled: true };
  const res = await axe.run(document, { resultTypes: ["violations"], rules });
  return res.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help, aaa: v.tags.includes("wcag2aaa"),
    nodes: v.nodes.slice(0, 6).map((n) => n.target.join(" ")),
  }));
}"""

SETTLED = "() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))"


def axe(page: Any) -> list[dict[str, Any]]:
    """axe-core's violations on the page as it is now (all impacts)."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.add_script_tag(path=str(AXE_JS))
    found: list[dict[str, Any]] = page.evaluate(AXE_RUN)
    return found


class Screens:
    """The screens one test visits: each is shot at 360, 390 and 1366 px and checked by axe at
    each width; ``blocking()`` lists the serious and critical findings."""

    def __init__(self) -> None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.found: dict[str, list[dict[str, Any]]] = {}

    def capture(self, page: Any, name: str, *, widths: tuple[int, ...] = (360, 390, 1366)) -> None:
        before = page.viewport_size
        for w in widths:
            page.set_viewport_size({"width": w, "height": WIDTHS[w]})
            page.evaluate(SETTLED)
            page.screenshot(path=str(ARTIFACTS / f"{name}-{w}.png"), full_page=True)
            self.found[f"{name}-{w}"] = axe(page)
        page.set_viewport_size(before)
        page.evaluate(SETTLED)
        self.save()

    def save(self) -> None:
        path = ARTIFACTS / "axe.json"
        kept = json.loads(path.read_text()) if path.exists() else {}
        kept.update(self.found)
        path.write_text(json.dumps(kept, indent=1, sort_keys=True))

    def blocking(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for screen, found in self.found.items():
            bad = [
                f"{v['id']} ({v['impact']}): {v['nodes']}"
                for v in found
                if v["impact"] in BLOCKING and not v["aaa"]
            ]
            if bad:
                out[screen] = bad
        return out


class Checks:
    """Named checks that note a failure and let the test go on, so one run reports every
    broken behaviour of a page at once; ``verify()`` fails with all of them."""

    def __init__(self) -> None:
        self.failed: dict[str, str] = {}
        self.passed: set[str] = set()

    @contextlib.contextmanager
    def check(self, name: str) -> Iterator[None]:
        try:
            yield
        except Exception as exc:  # any failure of the check, an assertion or a missing element
            first = traceback.format_exception_only(type(exc), exc)[-1].strip()
            self.failed.setdefault(name, first[:400])
        else:
            self.passed.add(name)

    def verify(self, *required: str) -> None:
        missing = [n for n in required if n not in self.passed and n not in self.failed]
        assert not self.failed and not missing, {"failed": self.failed, "never checked": missing}
