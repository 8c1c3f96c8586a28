"""cross_validate_decisions: the folds' decisions written out by hand, costs per case,
a model that takes costs in fit, frequencies, errors."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold, StratifiedKFold

from dtdecide import DecisionEstimator, DecisionMatrix, ProfitTreeClassifier
from dtdecide.decision import cross_validate_decisions


def _data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n)})
    y = np.where(X["a"] + rng.normal(size=n) > 0.8, "bad", "good")
    amount = rng.lognormal(2.0, 0.8, n)
    costs = pd.DataFrame({"C_FP": 0.1 * amount, "C_FN": 0.5 * amount, "C_TP": 0.0,
                          "C_TN": 0.0})
    return X, y, costs


def test_matches_the_folds_by_hand():
    X, y, costs = _data()
    matrix = DecisionMatrix.from_cost_matrix(levels=("good", "bad"))
    folds = StratifiedKFold(4, shuffle=True, random_state=0)
    out = cross_validate_decisions(LogisticRegression(), X, y, matrix, costs=costs, cv=folds)
    losses, per_fold = np.empty(len(y)), []
    for train, test in folds.split(X, y):
        model = DecisionEstimator(LogisticRegression(), matrix).fit(X.iloc[train], y[train])
        # each held-out case decided with its own cost row; its realised cost by hand
        p_bad = model.predict_proba(X.iloc[test])[:, list(model.classes_).index("bad")]
        c = costs.iloc[test]
        refuse = p_bad * c["C_FN"] + (1 - p_bad) * c["C_TN"] >= \
            p_bad * c["C_TP"] + (1 - p_bad) * c["C_FP"]
        bad = y[test] == "bad"
        loss = np.where(refuse, np.where(bad, c["C_TP"], c["C_FP"]),
                        np.where(bad, c["C_FN"], c["C_TN"]))
        losses[test] = loss
        per_fold.append(loss.mean())
    assert out["measure"] == "loss"
    assert out["average"] == pytest.approx(losses.mean(), rel=1e-12)
    np.testing.assert_allclose(out["fold_averages"], per_fold, rtol=1e-12)
    assert out["std_error"] == pytest.approx(losses.std(ddof=1) / np.sqrt(len(y)), rel=1e-9)


def test_profit_matrix_and_frequencies():
    X, y, _ = _data(seed=1)
    matrix = DecisionMatrix({"mail": [10, -1], "skip": [0, 0]}, levels=["bad", "good"])
    w = np.where(np.arange(len(y)) % 3 == 0, 2.0, 1.0)
    folds = KFold(3, shuffle=True, random_state=1)
    out = cross_validate_decisions(LogisticRegression(), X, y, matrix, cv=folds,
                                   sample_weight=w)
    total = weight = 0.0
    for train, test in folds.split(X):
        model = DecisionEstimator(LogisticRegression(), matrix).fit(
            X.iloc[train], y[train], sample_weight=w[train])
        res = model.decide(X.iloc[test], y[test], sample_weight=w[test])
        total += float(res.summary["total_profit"])
        weight += float(res.summary["frequency"])
    assert out["measure"] == "profit"
    assert out["average"] == pytest.approx(total / weight, rel=1e-12)


def test_a_profit_tree_gets_the_training_folds_costs():
    X, y, costs = _data(seed=2)
    matrix = DecisionMatrix.from_cost_matrix(levels=("good", "bad"))
    tree = ProfitTreeClassifier(decision_matrix=matrix, decision_rule="case", max_depth=3,
                                min_samples_leaf=20, random_state=0)
    folds = StratifiedKFold(3, shuffle=True, random_state=2)
    out = cross_validate_decisions(tree, X, y, costs=costs, cv=folds)
    total = 0.0
    for train, test in folds.split(X, y):
        fitted = clone(tree).fit(X.iloc[train], y[train], costs=costs.iloc[train])
        res = fitted.decide(X.iloc[test], y[test], costs=costs.iloc[test])
        total += float(res.summary["total_loss"])
    assert out["average"] == pytest.approx(total / len(y), rel=1e-12)
    # the same integer cv and random_state give the same folds
    a = cross_validate_decisions(tree, X, y, costs=costs, cv=3, random_state=4)
    b = cross_validate_decisions(tree, X, y, costs=costs, cv=3, random_state=4)
    np.testing.assert_array_equal(a["fold_averages"], b["fold_averages"])


def test_errors():
    X, y, costs = _data(n=60)
    with pytest.raises(ValueError, match="matrix"):
        cross_validate_decisions(LogisticRegression(), X, y)
    with pytest.raises(TypeError, match="DecisionMatrix"):
        cross_validate_decisions(LogisticRegression(), X, y, matrix=[[1, 0], [0, 1]])
    matrix = DecisionMatrix.from_cost_matrix(levels=("good", "bad"))
    with pytest.raises(ValueError, match="cv must be"):
        cross_validate_decisions(LogisticRegression(), X, y, matrix, costs=costs, cv=1)
    with pytest.raises(ValueError, match="same number of rows"):
        cross_validate_decisions(LogisticRegression(), X, y, matrix, costs=costs.iloc[:10])
