"""The assess guide page and the docstring examples of dtdecide.assess are executed."""

import doctest
import importlib
from pathlib import Path

import pytest

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide" / "assess.rst"
MODULES = ["_compare", "_display", "_profit_curve", "_rare", "_scoring", "_threshold",
           "_whatif"]


@pytest.fixture(autouse=True)
def agg_backend():
    mpl = pytest.importorskip("matplotlib")
    mpl.use("Agg")
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.mark.skipif(not GUIDE.exists(), reason="documentation sources not available")
def test_assess_guide_examples_run():
    result = doctest.testfile(str(GUIDE), module_relative=False,
                              optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 40
    assert result.failed == 0


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name):
    module = importlib.import_module(f"dtdecide.assess.{name}")
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
