"""make_profit_scorer: plain scoring, model selection, and costs via metadata routing."""

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn.feature_selection import SequentialFeatureSelector
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.model_selection import GridSearchCV, KFold, cross_validate
from sklearn.tree import DecisionTreeClassifier

from dtdecide.decision import DecisionEstimator, DecisionMatrix, decide, make_profit_scorer


def data(n=240, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = np.where(X[:, 0] + rng.normal(scale=0.7, size=n) > 0.8, "yes", "no")
    cost = rng.uniform(0.5, 3.0, size=n)
    return X, y, cost


PROFIT = DecisionMatrix({"mail": [10, -1], "skip": [0, 0]}, levels=["yes", "no"])
REVENUE = DecisionMatrix({"mail": [10, 0], "skip": [0, 0]}, levels=["yes", "no"],
                         kind="revenue", costs={"mail": "cost"})


def test_score_is_average_profit():
    X, y, cost = data()
    model = LogisticRegression().fit(X, y)
    scorer = make_profit_scorer(PROFIT)
    post = pd.DataFrame(model.predict_proba(X), columns=model.classes_)
    expected = decide(post, PROFIT, y=y).summary["average_profit"]
    assert scorer(model, X, y) == pytest.approx(expected)
    w = np.linspace(1, 2, len(y))
    expected_w = decide(post, PROFIT, y=y, sample_weight=w).summary["average_profit"]
    assert scorer(model, X, y, sample_weight=w) == pytest.approx(expected_w)


def test_loss_matrix_is_negated_and_higher_is_better():
    X, y, _ = data()
    model = LogisticRegression().fit(X, y)
    loss = DecisionMatrix({"mail": [-10, 1], "skip": [0, 0]}, levels=["yes", "no"], kind="loss")
    assert make_profit_scorer(loss)(model, X, y) == pytest.approx(
        make_profit_scorer(PROFIT)(model, X, y))


def test_costs_given_directly_or_through_X_columns():
    X, y, cost = data()
    model = LogisticRegression().fit(X, y)
    scorer = make_profit_scorer(REVENUE)
    direct = scorer(model, X, y, costs={"cost": cost})
    post = pd.DataFrame(model.predict_proba(X), columns=model.classes_)
    assert direct == pytest.approx(
        decide(post, REVENUE, y=y, costs={"cost": cost}).summary["average_profit"])
    # a DataFrame X holding the cost column
    Xdf = pd.DataFrame(X, columns=list("abcd")).assign(cost=cost)
    model_df = LogisticRegression().fit(Xdf[list("abcd")], y)

    class Pick:  # a model that only looks at its own columns
        classes_ = model_df.classes_

        def predict_proba(self, Z):
            return model_df.predict_proba(Z[list("abcd")])

    assert scorer(Pick(), Xdf, y) == pytest.approx(direct)
    with pytest.raises(ValueError, match="costs is missing the cost column 'cost'"):
        scorer(model, X, y)


def test_grid_search_and_feature_selection_without_costs():
    X, y, _ = data()
    grid = GridSearchCV(DecisionTreeClassifier(random_state=0), {"max_depth": [1, 3]},
                        scoring=make_profit_scorer(PROFIT), cv=3).fit(X, y)
    assert np.isfinite(grid.best_score_)
    sfs = SequentialFeatureSelector(LogisticRegression(), n_features_to_select=1,
                                    scoring=make_profit_scorer(PROFIT), cv=3).fit(X, y)
    # the informative feature is the first one
    assert sfs.get_support().tolist() == [True, False, False, False]


def test_costs_through_metadata_routing():
    X, y, cost = data()
    costs = pd.DataFrame({"cost": cost})
    with sklearn.config_context(enable_metadata_routing=True):
        scorer = make_profit_scorer(REVENUE).set_score_request(costs=True)
        cv = KFold(3)
        out = cross_validate(LogisticRegression(), X, y, cv=cv, scoring=scorer,
                             params={"costs": costs})
        # reference: score every fold by hand
        ref = []
        for train, test in cv.split(X):
            m = LogisticRegression().fit(X[train], y[train])
            ref.append(scorer(m, X[test], y[test], costs=costs.iloc[test]))
        np.testing.assert_allclose(out["test_score"], ref)
        grid = GridSearchCV(LogisticRegression(), {"C": [0.01, 1.0]}, scoring=scorer, cv=cv)
        grid.fit(X, y, costs=costs)
        assert np.isfinite(grid.best_score_)
        # unrequested costs are an error, as for any scikit-learn scorer
        with pytest.raises((TypeError, ValueError)):
            cross_validate(LogisticRegression(), X, y, cv=cv,
                           scoring=make_profit_scorer(REVENUE), params={"costs": costs})


def test_set_score_request_needs_routing():
    with pytest.raises(RuntimeError, match="metadata routing"):
        make_profit_scorer(PROFIT).set_score_request(costs=True)


def test_regressor_and_wrapped_models():
    rng = np.random.default_rng(2)
    X = rng.uniform(0, 10, size=(120, 1))
    yv = 10 * X[:, 0] + rng.normal(size=120)
    interval = DecisionMatrix({"small": [0, 10], "big": [-50, 50]}, knots=[0.0, 100.0])
    reg = LinearRegression().fit(X, yv)
    s = make_profit_scorer(interval)(reg, X, yv)
    assert s == pytest.approx(decide(reg.predict(X), interval, y=yv).summary["average_profit"])
    Xc, y, _ = data()
    est = DecisionEstimator(LogisticRegression(), PROFIT).fit(Xc, y)
    assert make_profit_scorer(PROFIT)(est, Xc, y) == pytest.approx(
        est.decide(Xc, y).summary["average_profit"])


def test_scorer_bad_input():
    with pytest.raises(TypeError, match="matrix must be a DecisionMatrix"):
        make_profit_scorer(np.eye(2))
