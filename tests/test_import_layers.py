"""The import layers of pyproject.toml's [tool.importlinter] contract are kept.

``.ci/run`` runs ``lint-imports`` too; this test makes the README's test command check
the contract as well (when import-linter, from the test extra, is installed).
"""

import os
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import dtdecide

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"

pytest.importorskip("importlinter")
pytestmark = pytest.mark.skipif(not PYPROJECT.exists(), reason="needs the source tree")


def _contract():
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    config = tomllib.loads(PYPROJECT.read_text())["tool"]["importlinter"]
    (contract,) = config["contracts"]
    return contract


def test_every_subpackage_has_a_layer():
    # a new subpackage outside every layer would escape the contract unnoticed
    placed = {name.strip() for layer in _contract()["layers"]
              for name in layer.replace(":", "|").split("|")}
    top_level = {info.name for info in pkgutil.iter_modules(dtdecide.__path__)}
    assert top_level <= placed, sorted(top_level - placed)


def test_import_layers_are_kept():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get(
        "PYTHONPATH", "")])}
    code = ("import sys; from importlinter.cli import lint_imports; "
            f"sys.exit(lint_imports(config_filename={str(PYPROJECT)!r}, no_cache=True))")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
