"""Model files written before the tree package was split into layers still load and
answer exactly as they did (predictions, probabilities, leaves and decisions on fixed rows).

The files and their recorded outputs are in ``tests/data/models_v2/``; how they were made is
in ``saved_model_cases.py``. A failure here means a saved model file would change meaning.
"""

import json

import numpy as np
import pytest
from saved_model_cases import HERE, cases, outputs

from dtdecide.export import load

NAMES = sorted(path.stem for path in HERE.glob("*.dtdecide"))


def test_every_estimator_kind_has_a_file():
    assert NAMES == sorted(cases()), "write the missing files with saved_model_cases.py"


@pytest.fixture(scope="module")
def fitted():
    return cases()


@pytest.mark.parametrize("name", NAMES)
def test_old_file_answers_as_recorded(name, fitted):
    model = load(HERE / f"{name}.dtdecide")
    _, X, y, costs = fitted[name]
    assert type(model) is type(fitted[name][0])
    expected = json.loads((HERE / f"{name}.json").read_text())
    # exact equality (floats were stored with every digit; NaN equals NaN here)
    got = outputs(model, X, y, costs)
    assert got.keys() == expected.keys()
    for key in expected:
        np.testing.assert_equal(got[key], expected[key], err_msg=f"{name}: {key}")
