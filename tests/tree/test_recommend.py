"""fit_recommended: candidates, choice on validation data, the hold-out path, errors."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from dtdecide import (
    DecisionMatrix,
    ProfitTreeClassifier,
    ProfitTreeRegressor,
    PruningStudy,
    fit_recommended,
    recommended_candidates,
)


def _credit_like(n, seed):
    """Binary data with a heavy-tailed cost row per case."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n),
                      "c": pd.Categorical(rng.choice(["u", "v", "w"], n))})
    p = 1 / (1 + np.exp(-(-1.2 + 1.3 * X["a"] - 0.8 * (X["c"] == "w"))))
    y = np.where(rng.random(n) < p, "bad", "good")
    amount = rng.lognormal(3.0, 1.0, n)
    costs = pd.DataFrame({"C_FP": 0.2 * amount, "C_FN": 0.6 * amount, "C_TP": 0.0,
                          "C_TN": 0.0})
    return X, pd.Series(y, name="y"), costs


@pytest.fixture(scope="module")
def data():
    train = _credit_like(1200, 0)
    valid = _credit_like(600, 1)
    return train, valid


@pytest.fixture(scope="module")
def tree():
    matrix = DecisionMatrix.from_cost_matrix(levels=("good", "bad"))
    return ProfitTreeClassifier(decision_matrix=matrix, max_depth=5, min_samples_leaf=10,
                                random_state=0)


def test_candidates_follow_the_rule():
    leaf = recommended_candidates(ProfitTreeClassifier())
    assert leaf == [{"decision_rule": "leaf", "criterion": "gini", "posterior_smoothing": 0.0},
                    {"decision_rule": "leaf", "criterion": "profit",
                     "posterior_smoothing": ("auto", 1.0)}]
    case = recommended_candidates(ProfitTreeClassifier(decision_rule="case"))
    assert case == [{"decision_rule": "case", "criterion": "gini",
                     "posterior_smoothing": ("auto", 1.0)}]
    both = recommended_candidates(ProfitTreeClassifier(), ("leaf", "case"))
    assert both == leaf + case
    reg = recommended_candidates(ProfitTreeRegressor())
    assert [c["criterion"] for c in reg] == ["variance", "profit"]


@pytest.mark.parametrize("rules", [(), ("leaf", "tree")])
def test_candidates_refuse_unknown_rules(rules):
    with pytest.raises(ValueError, match="decision_rules"):
        recommended_candidates(ProfitTreeClassifier(), rules)


def _by_hand(tree, params, train, valid):
    """The pruned tree and validation measure of one candidate, written out."""
    (X, y, c), (Xv, yv, cv) = train, valid
    fitted = clone(tree).set_params(**params).fit(X, y, costs=c)
    study = PruningStudy(fitted).fit(Xv, yv, costs_valid=cv)
    return study.best_estimator_, float(study.results_["valid_measure"].iloc[
        study.selected_index_])


def test_chooses_the_best_validation_measure(data, tree):
    train, valid = data
    (X, y, c), (Xv, yv, cv) = train, valid
    best, results = fit_recommended(tree, X, y, costs=c, X_valid=Xv, y_valid=yv,
                                    costs_valid=cv, decision_rules=("leaf", "case"),
                                    return_results=True)
    assert len(results) == 3 and results["chosen"].sum() == 1
    # every row is what fitting and pruning that candidate by hand gives
    for _, row in results.iterrows():
        params = {"decision_rule": row["decision_rule"], "criterion": row["criterion"],
                  "posterior_smoothing": row["posterior_smoothing"]}
        pruned, measure = _by_hand(tree, params, train, valid)
        assert measure == pytest.approx(row["valid_measure"], rel=1e-12)
        assert pruned.get_n_leaves() == row["n_leaves"]
    k = int(np.flatnonzero(results["chosen"])[0])
    assert (results["measure"] == "loss").all()  # a cost matrix: average cost, lower wins
    assert results["valid_measure"].iloc[k] == results["valid_measure"].min()
    assert best.decision_rule == results["decision_rule"].iloc[k]
    assert best.get_n_leaves() == results["n_leaves"].iloc[k]
    # ("auto", k) is k times the strength "auto" resolves to
    auto = clone(tree).set_params(decision_rule="case", posterior_smoothing="auto").fit(
        X, y, costs=c).posterior_smoothing_
    np.testing.assert_allclose(results["posterior_smoothing"], [0.0, auto, auto])
    _, quarter = fit_recommended(tree, X, y, costs=c, X_valid=Xv, y_valid=yv,
                                 costs_valid=cv, return_results=True, candidates=[
                                     {"posterior_smoothing": ("auto", 0.25)}])
    np.testing.assert_allclose(quarter["posterior_smoothing"], [0.25 * auto])


def test_without_validation_data_holds_out_and_refits(data, tree):
    (X, y, c), _ = data
    best, results = fit_recommended(tree, X, y, costs=c, random_state=3,
                                    return_results=True)
    again = fit_recommended(tree, X, y, costs=c, random_state=3)
    chosen = results[results["chosen"]].iloc[0]
    assert best.criterion == chosen["criterion"] == again.criterion
    # refitted on every training row, pruned to the chosen size
    assert best.tree_.weighted_n_node_samples[0] == len(y)
    assert best.get_n_leaves() <= chosen["n_leaves"]
    assert best.get_n_leaves() == again.get_n_leaves()


def test_custom_candidates_and_errors(data, tree):
    train, valid = data
    (X, y, c), (Xv, yv, cv) = train, valid
    best = fit_recommended(tree, X, y, costs=c, X_valid=Xv, y_valid=yv, costs_valid=cv,
                           candidates=[{"criterion": "profit", "max_depth": 2}])
    assert best.criterion == "profit" and best.get_depth() <= 2
    with pytest.raises(ValueError, match="validation_fraction"):
        fit_recommended(tree, X, y, costs=c, validation_fraction=1.0)
    with pytest.raises(ValueError, match="X_valid and y_valid"):
        fit_recommended(tree, X, y, costs=c, X_valid=Xv)
    with pytest.raises(ValueError, match="at least one"):
        fit_recommended(tree, X, y, costs=c, candidates=[])
