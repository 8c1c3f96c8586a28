"""The user-guide page on exports is executed: its examples must keep working."""

import doctest
from pathlib import Path

import pytest

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide" / "export.rst"


@pytest.mark.skipif(not GUIDE.exists(), reason="documentation sources not available")
def test_export_guide_examples_run():
    result = doctest.testfile(
        str(GUIDE), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE
    )
    assert result.attempted > 30
    assert result.failed == 0
