"""The user-guide page on benefit- and cost-based classifiers is executed."""

import doctest
from pathlib import Path

import pytest

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide" / "models.rst"


@pytest.mark.skipif(not GUIDE.exists(), reason="documentation sources not available")
def test_models_guide_examples_run():
    result = doctest.testfile(
        str(GUIDE), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE
    )
    assert result.attempted > 30
    assert result.failed == 0
