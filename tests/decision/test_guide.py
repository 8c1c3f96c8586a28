"""The user-guide page on decisions is executed: its examples must keep working."""

import doctest
from pathlib import Path

import pytest

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide" / "decisions.rst"


@pytest.mark.skipif(not GUIDE.exists(), reason="documentation sources not available")
def test_decisions_guide_examples_run():
    result = doctest.testfile(str(GUIDE), module_relative=False,
                              optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 20
    assert result.failed == 0
