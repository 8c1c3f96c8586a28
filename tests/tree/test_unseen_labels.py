"""Changed labels at scoring are counted, warned about or refused (issue 13 §2)."""

import warnings

import numpy as np
import pandas as pd
import pytest

from dtdecide import (
    DecisionMatrix,
    IdentifierColumnWarning,
    ProfitTreeClassifier,
    ProfitTreeRegressor,
    UnseenCategoryWarning,
)


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(0)
    n = 300
    X = pd.DataFrame({
        "job": rng.choice(["admin", "blue-collar", "student"], n),
        "flag": rng.random(n) < 0.5,
        "code": rng.choice(["a", "b"], n),
        "x": rng.random(n),
    })
    y = np.where((X["job"] == "student") | X["flag"], "yes", "no")
    m = DecisionMatrix({"call": [10, -1], "skip": [0, 0]}, levels=["yes", "no"])
    tree = ProfitTreeClassifier(decision_matrix=m, min_samples_leaf=5).fit(X, y)
    return tree, X, y


def changed(X, column):
    X2 = X.copy()
    if column == "job":
        X2["job"] = X2["job"].str.upper()
    elif column == "flag":
        X2["flag"] = X2["flag"].astype(str)  # a bool column read as "True"/"False"
    elif column == "code":
        X2["code"] = X2["code"].map({"a": 0, "b": 1})  # text stored as integer codes
    return X2


@pytest.mark.parametrize("column, hint", [
    ("job", "upper/lower case"),
    ("flag", "written as text"),
    ("code", "integer codes"),
])
def test_changed_labels_warn_with_a_hint_and_are_counted(fitted, column, hint):
    tree, X, y = fitted
    X2 = changed(X, column)
    with pytest.warns(UnseenCategoryWarning, match=hint) as record:
        res = tree.decide(X2, y)
    assert column in str(record[0].message)
    assert res.summary[f"n_unseen_{column}"] == len(X)
    others = [c for c in ("job", "flag", "code") if c != column]
    assert all(res.summary[f"n_unseen_{c}"] == 0 for c in others)
    # every public per-row entry point warns, not only decide
    for method in ("predict", "predict_proba", "apply", "decision_path", "predict_decision"):
        with pytest.warns(UnseenCategoryWarning):
            getattr(tree, method)(X2)


def test_training_labels_give_no_warning_and_zero_counts(fitted):
    tree, X, y = fitted
    X2 = X.copy()
    X2.loc[X2.index[:7], "job"] = None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = tree.decide(X2, y)
        tree.predict(X2)
    assert res.summary["n_unseen_job"] == 0 and res.summary["n_missing_job"] == 7
    assert res.summary["n_missing_flag"] == 0


def test_handle_unknown_error_refuses_changed_labels(fitted):
    tree, X, y = fitted
    strict = ProfitTreeClassifier(**{**tree.get_params(), "handle_unknown": "error"})
    strict.fit(X, y)
    for column in ("job", "flag", "code"):
        with pytest.raises(ValueError, match=f"column '{column}'.*unseen"):
            strict.decide(changed(X, column), y)
        with pytest.raises(ValueError, match="handle_unknown='error'"):
            strict.predict(changed(X, column))
    strict.predict(X)  # training labels pass


def test_handle_unknown_is_validated():
    X = pd.DataFrame({"c": list("ab") * 10})
    with pytest.raises(ValueError, match="handle_unknown"):
        ProfitTreeClassifier(handle_unknown="ignore-silently").fit(X, [0, 1] * 10)
    with pytest.raises(ValueError, match="handle_unknown"):
        ProfitTreeRegressor(handle_unknown=None).fit(X, np.arange(20.0))


def test_regressor_counts_unseen_labels():
    X = pd.DataFrame({"c": list("abcd") * 10})
    y = np.arange(40.0)
    m = DecisionMatrix({"go": [-5.0, 30.0], "wait": [0.0, 0.0]}, knots=[0.0, 40.0])
    reg = ProfitTreeRegressor(decision_matrix=m, min_samples_leaf=2).fit(X, y)
    with pytest.warns(UnseenCategoryWarning, match="upper/lower case"):
        res = reg.decide(pd.DataFrame({"c": list("ABcd") * 10}), y)
    assert res.summary["n_unseen_c"] == 20


def test_old_model_without_the_parameter_warns():
    X = pd.DataFrame({"c": list("ab") * 10})
    tree = ProfitTreeClassifier(max_depth=1, min_samples_leaf=1).fit(X, [0, 1] * 10)
    del tree.handle_unknown  # as unpickled from a release without it
    with pytest.warns(UnseenCategoryWarning):
        tree.predict(pd.DataFrame({"c": ["A"]}))


def test_id_like_columns_warn_at_fit():
    rng = np.random.default_rng(1)
    n = 60
    X = pd.DataFrame({
        "client_id": rng.permutation(10_000)[:n] + 1_000_000,  # named like an id
        "row": np.arange(n),  # dense like a row counter
        "ref": [f"R{i:04d}" for i in range(n)],  # text, distinct per row
        "age": rng.integers(18, 90, n),
        "income": rng.normal(size=n),  # distinct floats are inputs, not ids
    })
    y = rng.choice(["yes", "no"], n)
    with pytest.warns(IdentifierColumnWarning) as record:
        ProfitTreeClassifier(max_depth=2).fit(X, y)
    message = str(record[0].message)
    assert "'client_id', 'row', 'ref'" in message and "--exclude" in message
    assert "age" not in message and "income" not in message
    with warnings.catch_warnings():
        warnings.simplefilter("error", IdentifierColumnWarning)
        ProfitTreeClassifier(max_depth=2).fit(X[["age", "income"]], y)
        ProfitTreeClassifier(max_depth=2).fit(X.head(10), y[:10])  # too few rows to tell
