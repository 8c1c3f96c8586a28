"""Pickles of fitted trees written before the tree package was split into layers.

``tests/data/pickles_v2`` holds joblib files written by the code of commit 86789e5 (flat
modules ``dtdecide.tree._classes``, ``_tree``, ``_encode``, ...) with their outputs on
fixed rows; they must load and answer identically.
"""

import importlib
import json
import warnings
from pathlib import Path

import joblib
import numpy as np
import pandas as pd
import pytest

from dtdecide.tree import _moved

DATA = Path(__file__).resolve().parents[1] / "data" / "pickles_v2"


def _load(name):
    with warnings.catch_warnings():
        # scikit-learn warns when a pickle was written by another of its versions
        warnings.simplefilter("ignore")
        return joblib.load(DATA / name)


@pytest.fixture(scope="module")
def expected():
    return json.loads((DATA / "expected.json").read_text())


@pytest.fixture(scope="module")
def rows():
    return pd.read_csv(DATA / "rows.csv")


def test_old_classifier_pickle_answers_identically(expected, rows):
    clf = _load("classifier.joblib")
    assert type(clf).__module__ == "dtdecide.tree._estimator._classes"
    assert clf.predict(rows).tolist() == expected["classifier_predict"]
    np.testing.assert_allclose(clf.predict_proba(rows), expected["classifier_proba"],
                               rtol=0, atol=1e-11)
    cases = clf.decide(rows).cases
    assert cases["D_target"].tolist() == expected["classifier_decision"]
    np.testing.assert_allclose(cases["EP_target"], expected["classifier_expected_profit"],
                               rtol=0, atol=1e-11)


def test_old_regressor_pickle_answers_identically(expected, rows):
    reg = _load("regressor.joblib")
    np.testing.assert_allclose(reg.predict(rows), expected["regressor_predict"],
                               rtol=0, atol=1e-11)


@pytest.mark.parametrize("old", sorted(_moved.MOVED))
def test_every_old_path_points_at_modules_that_exist(old):
    for new in _moved.MOVED[old]:
        importlib.import_module(f"dtdecide.tree.{new}")
    alias = importlib.import_module(f"dtdecide.tree.{old}")
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        getattr(alias, "no_such_name")  # noqa: B009


def test_new_pickles_name_the_new_paths(tmp_path, rows):
    clf = _load("classifier.joblib")
    joblib.dump(clf, tmp_path / "new.joblib")
    raw = (tmp_path / "new.joblib").read_bytes()
    assert b"dtdecide.tree._estimator._classes" in raw
    assert b"dtdecide.tree._classes" not in raw
    assert joblib.load(tmp_path / "new.joblib").predict(rows).tolist() == clf.predict(
        rows).tolist()
