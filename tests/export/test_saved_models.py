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
# Models whose probabilities come out of a logistic regression's matrix product: the
# last bits of such a float depend on the BLAS kernel that the CPU selects (written on
# an Intel Xeon, the files' probabilities differ by one or two ulps on an AMD EPYC with
# AVX-512), so their floats are compared to a relative 1e-12. Everything else -- every
# output of every tree model, and every label, decision and integer of these -- exactly.
BLAS_FLOATS = {"decision_estimator_lr", "models_benefit_lr", "models_flat",
               "models_hierarchical"}


def _assert_same(got, expected, name, key, blas_floats):
    if isinstance(expected, dict):
        assert got.keys() == expected.keys(), f"{name}: {key}"
        for k in expected:
            _assert_same(got[k], expected[k], name, f"{key}.{k}", blas_floats)
        return
    values = np.asarray(expected)
    if blas_floats and values.dtype.kind == "f":
        np.testing.assert_allclose(np.asarray(got, dtype=float), values, rtol=1e-12, atol=0,
                                   err_msg=f"{name}: {key}")
    else:
        np.testing.assert_equal(got, expected, err_msg=f"{name}: {key}")


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
    # exact equality (floats were stored with every digit; NaN equals NaN here), but
    # for the floats of a logistic regression (BLAS_FLOATS)
    got = outputs(model, X, y, costs)
    assert got.keys() == expected.keys()
    for key in expected:
        _assert_same(got[key], expected[key], name, key, name in BLAS_FLOATS)
