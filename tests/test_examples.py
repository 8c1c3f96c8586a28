"""Every example of the documentation runs, once, and prints what it shows.

The one runner for examples written as ``>>>`` sessions:

- the docstrings of every module under ``dtdecide/`` (classes, functions, methods);
- the pages of ``docs/`` that hold ``>>>`` sessions (the user guide).

No other test file runs these examples again. The README's example, the how-to pages'
code blocks and the notebooks are executed by ``tests/test_notebooks.py``. What every
public object's docstring must contain is checked by ``tests/test_public_api.py``.

Printed numbers are rounded in the examples (``round(x, 6)``, ``.round(3)``) and numpy
scalars are converted to Python ones, so an output never depends on the last ulp (BLAS
kernels with or without fused multiply-add) or on numpy's scalar repr.
"""

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import dtdecide

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[1]
OPTIONS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS

MODULES = sorted(
    info.name
    for info in pkgutil.walk_packages(dtdecide.__path__, "dtdecide.")
    if not info.name.endswith("__main__")
)
PAGES = sorted(
    path for path in (ROOT / "docs").rglob("*.rst") if ">>>" in path.read_text()
)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def _run(tests):
    runner = doctest.DocTestRunner(optionflags=OPTIONS, verbose=False)
    report = []
    for test in tests:
        runner.run(test, out=report.append)
    return runner.summarize(verbose=False), "".join(report)


@pytest.mark.parametrize("module_name", MODULES)
def test_docstring_examples(module_name):
    module = importlib.import_module(module_name)
    tests = doctest.DocTestFinder(exclude_empty=True).find(module, module_name)
    result, report = _run(tests)
    assert result.failed == 0, report


@pytest.mark.skipif(not (ROOT / "docs").is_dir(), reason="documentation sources not available")
@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_documentation_page_examples(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a page that writes a file writes it here
    text = page.read_text()
    test = doctest.DocTestParser().get_doctest(text, {"__name__": "__main__"}, page.name,
                                               str(page), 0)
    result, report = _run([test])
    assert result.attempted > 0
    assert result.failed == 0, report


def test_the_runner_finds_the_examples():
    # a walk that silently found nothing would pass every test above
    assert {"dtdecide.decision._engine", "dtdecide.tree._estimator._classes", "dtdecide.cli",
            "dtdecide.export._persist"} <= set(MODULES)
    if not (ROOT / "docs").is_dir():
        return  # an installed copy without the documentation sources
    names = {p.name for p in PAGES}
    assert {"decisions.rst", "trees.rst", "pruning.rst", "assess.rst", "export.rst",
            "models.rst", "quality.rst"} <= names
