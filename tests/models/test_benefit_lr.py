"""Benefit-weighted logistic regression."""

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression

from dtdecide.models import BenefitWeightedLogisticRegression, benefit_score


def _binary_data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] - 0.5 * X[:, 1] + rng.normal(size=n) > 1.0).astype(int)
    return X, y


def _three_class_data(n=450, seed=0):
    rng = np.random.default_rng(seed)
    centers = np.array([[0, 0], [2, 0], [0, 2]])
    y = rng.choice(3, size=n, p=[0.6, 0.25, 0.15])
    X = centers[y] + rng.normal(size=(n, 2))
    return X, y


def test_binary_equals_weighted_sklearn_model():
    X, y = _binary_data()
    b = [[1, -1], [-2, 3]]  # eta = (1 + 1) / (3 + 2) = 0.4
    model = BenefitWeightedLogisticRegression(b, tol=1e-10, max_iter=1000).fit(X, y)
    assert model.eta_ == pytest.approx([0.4])
    ref = LogisticRegression(tol=1e-10, max_iter=1000).fit(
        X, y, sample_weight=np.where(y == 0, 0.4, 1.0)
    )
    np.testing.assert_allclose(model.coef_, ref.coef_, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(model.intercept_, ref.intercept_, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(model.predict_proba(X), ref.predict_proba(X), atol=1e-8)
    np.testing.assert_allclose(model.decision_function(X), ref.decision_function(X), atol=1e-7)
    np.testing.assert_array_equal(model.predict(X), ref.predict(X))


def test_default_is_plain_logistic_regression_and_weights_multiply():
    X, y = _binary_data(seed=1)
    w = np.random.default_rng(2).uniform(0.5, 2.0, size=y.size)
    model = BenefitWeightedLogisticRegression(tol=1e-10).fit(X, y, sample_weight=w)
    assert model.eta_ == pytest.approx([1.0])
    ref = LogisticRegression(tol=1e-10).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(model.coef_, ref.coef_, rtol=1e-6)


def test_costly_misses_raise_the_benefit():
    X, y = _binary_data(n=3000, seed=3)
    Xt, yt = _binary_data(n=3000, seed=4)
    b = [[1, -1], [-20, 5]]  # missing class 1 is expensive: eta = 2 / 25
    plain = BenefitWeightedLogisticRegression().fit(X, y)
    weighted = BenefitWeightedLogisticRegression(b).fit(X, y)
    assert weighted.predict(Xt).sum() > plain.predict(Xt).sum()
    assert benefit_score(yt, weighted.predict(Xt), b) > benefit_score(yt, plain.predict(Xt), b)


def test_multiclass_one_vs_rest_by_hand():
    X, y = _three_class_data()
    b = np.array([[4, -1, -2], [-3, 2, -1], [-2, -4, 6]])
    pi = [0.5, 0.25, 0.25]
    model = BenefitWeightedLogisticRegression(b, priors=pi, tol=1e-10, max_iter=1000).fit(X, y)
    # class 0: b00 = .25*2 + .25*6 = 2, b01 = .25*(-3) + .25*(-2) = -1.25,
    #          b10 = .25*(-1) + .25*(-2) = -.75, b11 = 4 -> eta = 3.25 / 4.75
    # class 1: b00 = 3.5, b01 = -1.5, b10 = -1.75, b11 = 2 -> eta = 5 / 3.75
    # class 2: b00 = 2.5, b01 = -1.25, b10 = -2, b11 = 6 -> eta = 3.75 / 8
    np.testing.assert_allclose(model.eta_, [3.25 / 4.75, 5 / 3.75, 3.75 / 8])
    np.testing.assert_allclose(model.binary_benefits_[0], [[2, -1.25], [-0.75, 4]])
    for k in range(3):
        yk = (y == k).astype(int)
        ref = LogisticRegression(tol=1e-10, max_iter=1000).fit(
            X, yk, sample_weight=np.where(yk == 0, model.eta_[k], 1.0)
        )
        np.testing.assert_allclose(model.coef_[k], ref.coef_[0], rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(
            model.decision_function(X)[:, k], ref.decision_function(X), atol=1e-6
        )
    proba = model.predict_proba(X)
    scores = np.column_stack(
        [1 / (1 + np.exp(-model.decision_function(X)[:, k])) for k in range(3)]
    )
    np.testing.assert_allclose(proba, scores / scores.sum(1, keepdims=True), atol=1e-10)
    np.testing.assert_array_equal(model.predict(X), np.argmax(scores, axis=1))


def test_priors_estimated_from_weighted_training_data():
    X, y = _three_class_data(seed=5)
    w = np.where(y == 2, 3.0, 1.0)
    model = BenefitWeightedLogisticRegression().fit(X, y, sample_weight=w)
    counts = np.bincount(y, weights=w)
    np.testing.assert_allclose(model.priors_, counts / counts.sum())
    # default matrix: b_ii = 1, b_ij = -1 -> b00 = 1 - pi_k, b01 = b10 = -(1 - pi_k), b11 = 1
    rest = 1 - model.priors_
    np.testing.assert_allclose(model.eta_, 2 * rest / (1 + rest))


def test_labels_dataframe_matrix_and_solver_options():
    X, y = _binary_data(seed=6)
    labels = np.where(y == 1, "buy", "skip")
    # as a DataFrame labelled by class: sorted order is (buy, skip)
    frame = pd.DataFrame([[5, -9], [-1, 1]], index=["buy", "skip"], columns=["buy", "skip"])
    model = BenefitWeightedLogisticRegression(frame.loc[["skip", "buy"], ["skip", "buy"]])
    model.fit(X, labels)
    assert list(model.classes_) == ["buy", "skip"]
    # class 0 = buy: eta = (5 + 9) / (1 + 1)
    assert model.eta_ == pytest.approx([7.0])
    assert set(model.predict(X)) <= {"buy", "skip"}
    l1 = BenefitWeightedLogisticRegression(
        solver="liblinear", l1_ratio=1.0, C=0.05, random_state=0
    ).fit(X, y)
    assert np.any(l1.coef_ == 0)
    free = BenefitWeightedLogisticRegression(C=np.inf, max_iter=500).fit(X, y)
    ridge = BenefitWeightedLogisticRegression(C=0.01).fit(X, y)
    assert np.abs(free.coef_).sum() > np.abs(ridge.coef_).sum()


def test_validation_errors():
    X, y = _binary_data(n=50)
    with pytest.raises(ValueError, match="benefit_matrix"):
        BenefitWeightedLogisticRegression([[1, -1, -1], [-1, 1, -1], [-1, -1, 1]]).fit(X, y)
    with pytest.raises(ValueError, match="benefit_matrix.*off-diagonal"):
        BenefitWeightedLogisticRegression([[1, 0], [-1, 1]]).fit(X, y)
    with pytest.raises(ValueError, match="2 classes"):
        BenefitWeightedLogisticRegression().fit(X, np.zeros(50))
    Xm, ym = _three_class_data(n=60)
    with pytest.raises(ValueError, match="priors"):
        BenefitWeightedLogisticRegression(priors=[1, 0, 0]).fit(Xm, ym)
    with pytest.raises(ValueError, match="priors"):
        BenefitWeightedLogisticRegression(priors=[1, 1]).fit(Xm, ym)
    with pytest.raises(ValueError, match="solver"):
        BenefitWeightedLogisticRegression(solver="magic").fit(X, y)
