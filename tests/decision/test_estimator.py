"""DecisionEstimator: scikit-learn conventions and deciding with any model."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone, is_classifier, is_regressor
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.svm import SVC
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from sklearn.utils.estimator_checks import parametrize_with_checks

from dtdecide.decision import DecisionEstimator, DecisionMatrix, decide


@parametrize_with_checks([
    DecisionEstimator(LogisticRegression()),
    DecisionEstimator(DecisionTreeRegressor(random_state=0)),
])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    score = X[:, 0] - 0.5 * X[:, 1] + rng.normal(scale=0.8, size=n)
    y = np.where(score > 1.0, "high", np.where(score > -0.5, "mid", "low"))
    return X, y


MATRIX = DecisionMatrix({"premium": [20, 2, -10], "basic": [5, 4, -1], "none": [0, 0, 0]},
                        levels=["high", "mid", "low"])


def test_type_follows_wrapped_model():
    assert is_classifier(DecisionEstimator(LogisticRegression()))
    assert is_regressor(DecisionEstimator(LinearRegression()))
    assert not hasattr(DecisionEstimator(LinearRegression()), "predict_proba")


def test_decide_matches_decide_on_posteriors():
    X, y = data()
    est = DecisionEstimator(LogisticRegression(), MATRIX).fit(X, y)
    inner = LogisticRegression().fit(X, y)
    np.testing.assert_allclose(est.predict_proba(X), inner.predict_proba(X))
    np.testing.assert_array_equal(est.predict(X), inner.predict(X))
    # classes_ are sorted alphabetically; the matrix levels are not: match by label
    post = pd.DataFrame(inner.predict_proba(X), columns=inner.classes_)
    ref = decide(post, MATRIX, y=y)
    res = est.decide(X, y)
    pd.testing.assert_frame_equal(res.cases, ref.cases)
    assert res.summary.equals(ref.summary)


def test_decide_keeps_dataframe_index_and_uses_costs():
    X, y = data()
    Xdf = pd.DataFrame(X, columns=["a", "b", "c"], index=np.arange(len(X)) * 10)
    m = DecisionMatrix({"premium": [20, 2, -10], "none": [0, 0, 0]},
                       levels=["high", "mid", "low"], kind="revenue",
                       costs={"premium": "cost"})
    costs = pd.DataFrame({"cost": np.linspace(0, 5, len(X))}, index=Xdf.index)
    est = DecisionEstimator(DecisionTreeClassifier(max_depth=3, random_state=0), m)
    res = est.fit(Xdf, y).decide(Xdf, pd.Series(y, index=Xdf.index), costs)
    assert res.cases.index.equals(Xdf.index)
    assert "IC_target" in res.cases and "ROI_target" in res.cases
    np.testing.assert_array_equal(est.feature_names_in_, ["a", "b", "c"])


def test_classes_absent_from_matrix_and_levels_absent_from_training():
    X, y = data()
    small = DecisionMatrix(np.eye(2), levels=["high", "mid"])
    with pytest.raises(ValueError, match=r"classes that are not levels.*'low'"):
        DecisionEstimator(LogisticRegression(), small).fit(X, y)
    # a level that never occurs in training gets posterior 0
    extra = DecisionMatrix(np.eye(4), levels=["high", "mid", "low", "never"],
                           priors=[1, 1, 1, 1])
    est = DecisionEstimator(LogisticRegression(), extra).fit(X, y)
    res = est.decide(X, y)
    assert (res.cases["D_target"] != "d4").all()
    assert np.isnan(res.summary["adjusted_average_profit"])  # prior on an absent class


def test_train_priors_default_to_training_proportions():
    X, y = data()
    m = MATRIX.replace(priors=[0.2, 0.3, 0.5])
    est = DecisionEstimator(LogisticRegression(), m).fit(X, y)
    props = pd.Series(y).value_counts(normalize=True).reindex(["high", "mid", "low"])
    np.testing.assert_allclose(est.train_priors_, props.to_numpy())
    explicit = DecisionEstimator(LogisticRegression(), m, train_priors=props.to_numpy())
    pd.testing.assert_frame_equal(explicit.fit(X, y).decide(X, y).cases,
                                  est.decide(X, y).cases)
    # weighted proportions
    w = np.where(y == "high", 3.0, 1.0)
    est_w = DecisionEstimator(LogisticRegression(), m).fit(X, y, sample_weight=w)
    counts = pd.Series(w).groupby(y).sum().reindex(["high", "mid", "low"])
    np.testing.assert_allclose(est_w.train_priors_, counts / counts.sum())


def test_regressor_with_interval_matrix():
    rng = np.random.default_rng(1)
    X = rng.uniform(0, 10, size=(200, 1))
    y = 10 * X[:, 0] + rng.normal(size=200)
    m = DecisionMatrix({"small": [0, 10], "big": [-50, 50]}, knots=[0.0, 100.0])
    est = DecisionEstimator(LinearRegression(), m).fit(X, y)
    res = est.decide(X, y)
    ref = decide(est.predict(X), m, y=y)
    pd.testing.assert_frame_equal(res.cases, ref.cases)


def test_errors():
    X, y = data()
    with pytest.raises(ValueError, match="decision_matrix is None"):
        DecisionEstimator(LogisticRegression()).fit(X, y).decide(X)
    with pytest.raises(TypeError, match="decision_matrix must be a DecisionMatrix"):
        DecisionEstimator(LogisticRegression(), np.eye(3)).fit(X, y)
    interval = DecisionMatrix([[0, 1], [1, 0]], knots=[0, 1])
    with pytest.raises(ValueError, match="decision_matrix must have levels"):
        DecisionEstimator(LogisticRegression(), interval).fit(X, y)
    with pytest.raises(ValueError, match="decision_matrix must have knots"):
        DecisionEstimator(LinearRegression(), MATRIX).fit(X, np.arange(len(X)))
    with pytest.raises(ValueError, match="train_priors needs priors"):
        DecisionEstimator(LogisticRegression(), MATRIX, train_priors=[1, 1, 1]).fit(X, y)
    with pytest.raises(TypeError, match="estimator must have predict_proba"):
        DecisionEstimator(SVC(), MATRIX).fit(X, y).decide(X)
    est = clone(DecisionEstimator(LogisticRegression(), MATRIX))
    assert est.decision_matrix is not MATRIX and est.decision_matrix == MATRIX
