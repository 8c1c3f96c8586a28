"""The Examples sections of dtdecide.export's docstrings run and give what they show."""

import doctest
import importlib

import matplotlib
import pytest

matplotlib.use("Agg")

MODULES = [
    "dtdecide.export._io",
    "dtdecide.export._leaf_table",
    "dtdecide.export._persist",
    "dtdecide.export._plot",
    "dtdecide.export._rules",
    "dtdecide.export._sql",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0
    import matplotlib.pyplot as plt

    plt.close("all")
