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


def _contract(container="dtdecide"):
    """The ``layers`` contract whose container is ``container``."""
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    config = tomllib.loads(PYPROJECT.read_text())["tool"]["importlinter"]
    (contract,) = [c for c in config["contracts"]
                   if c["type"] == "layers" and c.get("containers") == [container]]
    return contract


def _placed(contract):
    return {name.strip() for layer in contract["layers"]
            for name in layer.replace(":", "|").split("|")}


def test_every_subpackage_has_a_layer():
    # a new subpackage outside every layer would escape the contract unnoticed
    top_level = {info.name for info in pkgutil.iter_modules(dtdecide.__path__)}
    placed = _placed(_contract())
    assert top_level <= placed, sorted(top_level - placed)


def test_every_tree_module_sits_in_a_tree_layer():
    # dtdecide.tree holds its public __init__, the six layer sub-packages and the aliases
    # of its old module paths (_moved, the top layer), nothing else: a module beside them
    # would escape the tree's layers contract
    import dtdecide.tree

    inside = {info.name for info in pkgutil.iter_modules(dtdecide.tree.__path__)}
    assert inside == _placed(_contract("dtdecide.tree")), sorted(inside)


def test_readers_cannot_import_private_tree_modules():
    # the forbidden contract covers every subpackage outside dtdecide.tree and every
    # private layer inside it
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads(PYPROJECT.read_text())["tool"]["importlinter"]
    (contract,) = [c for c in config["contracts"] if c["type"] == "forbidden"]
    top_level = {info.name for info in pkgutil.iter_modules(dtdecide.__path__)}
    assert {f"dtdecide.{name}" for name in top_level - {"tree"}} == set(
        contract["source_modules"])
    assert {f"dtdecide.tree.{name}" for name in _placed(_contract("dtdecide.tree"))} == set(
        contract["forbidden_modules"])


def test_no_import_cycle():
    # no module imports (directly or through others) a module that imports it back,
    # counting imports inside functions too
    grimp = pytest.importorskip("grimp")
    graph = grimp.build_graph("dtdecide", cache_dir=None)
    cycles = []
    for module in sorted(graph.modules):
        for imported in graph.find_modules_directly_imported_by(module):
            if imported.startswith(module + ".") or module.startswith(imported + "."):
                continue  # a package and its own modules
            if graph.chain_exists(imported=module, importer=imported):
                cycles.append((module, imported))
    assert not cycles, cycles[:10]


def test_import_layers_are_kept():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get(
        "PYTHONPATH", "")])}
    code = ("import sys; from importlinter.cli import lint_imports; "
            f"sys.exit(lint_imports(config_filename={str(PYPROJECT)!r}, no_cache=True))")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stdout + run.stderr
