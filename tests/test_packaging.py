"""The bare ``pip install tranque`` works: the core runs on the standard library alone.

A fresh venv per test run would be honest but slow (and needs the network); instead a subprocess
runs with ``-I -S`` (no site-packages, no user site, no PYTHONPATH) and ``src`` on its path, with
an import hook that refuses every package of an extra even if it were found some other way.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import tranque
from tests.fair.fair_games import play_fair_game
from tranque.commandline import EXTRA_OF
from tranque.rules.variants import HAVANA

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"

BLOCKER = """
import sys
sys.path.insert(0, {src!r})
BLOCKED = {blocked!r}

class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}} (blocked)", name=name)
        return None

sys.meta_path.insert(0, Blocker())
"""


def bare(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a Python with no third-party package at all."""
    prelude = BLOCKER.format(src=str(ROOT / "src"), blocked=sorted(EXTRA_OF))
    return subprocess.run(
        [sys.executable, "-I", "-S", "-c", prelude + code, *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )


CLI = "import sys\nfrom tranque.cli import main\nsys.exit(main(sys.argv[1:]))\n"


def test_the_core_imports_without_third_party_packages() -> None:
    result = bare(
        "import tranque, tranque.rules, tranque.rules.record, tranque.rules.dealing\n"
        "import tranque.fair.recipe, tranque.fair.verify, tranque.fair.seeds, tranque.fair.dealer\n"
        "import tranque.cli\n"
        "from tranque.bots import make_bot\n"
        "print(type(make_bot('random', 1)).__name__, tranque.__version__)\n"
        "import numpy\n"
    )
    assert "RandomBot" in result.stdout, result.stderr
    assert "No module named 'numpy' (blocked)" in result.stderr  # the hook does block


def test_help_version_replay_deal_verify_run_on_the_core(tmp_path: Path) -> None:
    assert bare(CLI, "--help").returncode == 0
    version = bare(CLI, "--version")
    assert version.returncode == 0 and version.stdout.startswith("tranque ")
    replay = bare(CLI, "replay", str(GOLDEN / "ejemplo-1-pegarse.json"))
    assert replay.returncode == 0, replay.stderr
    assert "pegarse: seat 3 wins for pair B, 42 points" in replay.stdout
    record, _, _ = play_fair_game(HAVANA, "pkg-1", 1, max_hands=2)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    game = bare(CLI, "replay", str(path))
    assert game.returncode == 0 and "Planilla" in game.stdout, game.stderr
    verify = bare(CLI, "verify", str(path))
    assert verify.returncode == 0 and "checks match" in verify.stdout, verify.stderr
    deal = bare(CLI, "deal", "--server-seed", "ab" * 32, "--table", "t", "--hand", "1", "--draw")
    assert deal.returncode == 0 and "sleepers" in deal.stdout, deal.stderr


def test_python_dash_m_tranque_and_the_version() -> None:
    env = {"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"}
    result = subprocess.run(
        [sys.executable, "-m", "tranque", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"tranque {tranque.__version__}"
    assert tranque.__version__ != "0+unknown"  # the shared venv has the package installed


@pytest.mark.parametrize(
    ("args", "extra"),
    [
        (["serve"], "server"),
        (["play"], "bots"),
        (["arena", "heuristic", "random", "--deals", "1"], "bots"),
        (["bench", "server", "--seconds", "1"], None),
        (["analyze", str(GOLDEN / "ejemplo-1-pegarse.json")], "bots"),
        (["analyze", str(GOLDEN / "ejemplo-1-pegarse.json"), "--hindsight", "--json"], "bots"),
        (["bench", "analysis", "--hands", "1"], "bots"),
        (["arena", "random", "random", "--deals", "1", "--plot", "never-written.png"], "plot"),
    ],
)
def test_a_command_without_its_extra_says_which_in_one_line(
    args: list[str], extra: str | None
) -> None:
    result = bare(CLI, *args)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "extra: pip install 'tranque[" in result.stderr
    if extra is not None:
        assert f"the {extra!r} extra" in result.stderr


def test_the_extras_are_declared_and_the_core_has_no_dependency() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["dependencies"] == []
    extras = project["optional-dependencies"]
    for extra in set(EXTRA_OF.values()):
        assert extra in extras, f"EXTRA_OF names {extra!r}, which pyproject does not declare"
    names = {
        dep.split("[")[0].split(">")[0].split("=")[0].strip()
        for deps in extras.values()
        for dep in deps
    }
    for module, extra in EXTRA_OF.items():
        if module != "llvmlite":  # numba's own dependency
            assert module in names, f"{module} ({extra}) is in no extra"


def test_nothing_in_the_repository_points_outside_it() -> None:
    """A clone has the rules (docs/rules.md): no file sends the reader to ``../shared/``."""
    offenders = []
    files = [ROOT / "README.md", ROOT / "Makefile", ROOT / "pyproject.toml"]
    for folder in ("src", "tests", "docs"):
        files += (ROOT / folder).rglob("*.*")
    for path in files:
        if path.suffix not in (".md", ".py", ".toml", ".js", ".html", "") or path == THIS:
            continue
        # Only our files: not a folder named like a file (``.bin``), nor the packages npm puts
        # under tests/web/lighthouse/node_modules (``make lighthouse``), which are not ours.
        if not path.is_file() or "node_modules" in path.relative_to(ROOT).parts:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if any(ref in text for ref in ("../shared", "RULES-NOTES", "ARCHITECTURE.md")):
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []
    assert "docs/rules.md" in (ROOT / "README.md").read_text()


THIS = Path(__file__).resolve()


@pytest.mark.skipif(shutil.which("make") is None, reason="no make on this machine")
def test_make_run_installs_the_server_extra_and_make_test_the_dev_one(tmp_path: Path) -> None:
    """Dry runs (``make -n``) in a copy: separate stamps, so `make test` after `make run` still
    installs the developer toolchain."""
    for name in ("Makefile", "pyproject.toml"):
        shutil.copy(ROOT / name, tmp_path / name)

    def dry(target: str) -> str:
        result = subprocess.run(
            ["make", "-n", target], cwd=tmp_path, capture_output=True, text=True, timeout=30
        )
        assert result.returncode == 0, result.stderr
        return result.stdout

    run = dry("run")
    assert "-e '.[server]'" in run and ".[dev]" not in run
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bin" / "python").touch()
    (tmp_path / ".venv" / ".installed-server").touch()
    assert "pip install" not in dry("run")
    assert "-e '.[dev]'" in dry("test-fast")
    (tmp_path / ".venv" / ".installed-dev").touch()
    assert "pip install" not in dry("test-fast") and "pip install" not in dry("run")
