"""scikit-learn compatibility: the estimator checks, Pipeline, GridSearchCV, clone."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils.estimator_checks import parametrize_with_checks

from dtdecide import DecisionMatrix, ProfitTreeClassifier, ProfitTreeRegressor

# The stopping rules min_samples_leaf / min_samples_split count training *rows*, as
# rpart's minbucket/minsplit do, so a case with frequency 3 is not the same as three
# copies of it when a rule binds (the defaults 5 and 10 bind on the check's tiny data).
_ROWS_NOT_FREQUENCIES = (
    "min_samples_leaf/min_samples_split count rows, not frequencies"
)
EXPECTED_FAILED = {"check_sample_weight_equivalence_on_dense_data": _ROWS_NOT_FREQUENCIES}


@parametrize_with_checks(
    [ProfitTreeClassifier(), ProfitTreeRegressor()],
    expected_failed_checks=lambda est: EXPECTED_FAILED,
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


def test_weights_equal_repeats_when_stopping_rules_do_not_bind():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 3))
    y = (X[:, 0] + 0.3 * rng.normal(size=60) > 0).astype(int)
    w = rng.integers(1, 4, size=60)
    params = dict(min_samples_leaf=1, min_samples_split=2, max_depth=3, max_bins=255)
    a = ProfitTreeClassifier(**params).fit(X, y, sample_weight=w)
    b = ProfitTreeClassifier(**params).fit(np.repeat(X, w, axis=0), np.repeat(y, w))
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X))


def bank_like(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "age": rng.integers(20, 70, n).astype(float),
        "job": pd.Categorical(rng.choice(["admin", "tech", "retired"], n)),
        "housing": rng.random(n) < 0.5,
    })
    logit = 0.08 * (X["age"].fillna(40) - 45) + (X["job"] == "retired") * 1.0
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-logit)), "yes", "no")
    return X, y


MATRIX = DecisionMatrix({"call": [10.0, -1.0], "skip": [0.0, 0.0]}, levels=["yes", "no"])


def test_clone_keeps_parameters_and_drops_fit():
    tree = ProfitTreeClassifier(decision_matrix=MATRIX, max_depth=3)
    X, y = bank_like()
    tree.fit(X, y)
    twin = clone(tree)
    assert twin.get_params() == tree.get_params()
    assert not hasattr(twin, "tree_")


def test_pipeline_with_a_transformer():
    X, y = bank_like()
    pipe = make_pipeline(
        FunctionTransformer(lambda d: d.assign(age2=d["age"] ** 2)),
        ProfitTreeClassifier(decision_matrix=MATRIX, max_depth=3),
    )
    pipe.fit(X, y)
    assert pipe.predict(X).shape == (300,)
    assert pipe[-1].feature_names_in_.tolist() == ["age", "job", "housing", "age2"]


def test_grid_search_with_the_profit_scorer():
    from dtdecide import make_profit_scorer

    X, y = bank_like(400)
    search = GridSearchCV(
        ProfitTreeClassifier(decision_matrix=MATRIX),
        {"max_depth": [1, 3], "min_samples_leaf": [5, 20]},
        scoring=make_profit_scorer(MATRIX),
        cv=3,
    )
    search.fit(X, y)
    assert set(search.best_params_) == {"max_depth", "min_samples_leaf"}
    best = search.best_estimator_
    # without case costs, the scorer's decisions are the trees' leaf decisions
    assert best.decide(X, y).summary["average_profit"] == pytest.approx(
        make_profit_scorer(MATRIX)(best, X, y)
    )


def test_grid_search_regressor():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 3))
    y = X[:, 0] * 2 + rng.normal(size=200)
    search = GridSearchCV(ProfitTreeRegressor(), {"max_depth": [1, 4]}, cv=3).fit(X, y)
    assert search.best_params_ == {"max_depth": 4}


def test_grid_search_routes_case_costs_to_fit_and_scorer():
    import sklearn

    from dtdecide import make_profit_scorer

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=300)})
    y = np.where(X["a"] + rng.normal(size=300) > 0, "yes", "no")
    costs = pd.DataFrame({"c": rng.uniform(0, 3, 300)})
    m = DecisionMatrix({"call": [10.0, 0.0], "skip": [0.0, 0.0]}, levels=["yes", "no"],
                       kind="revenue", costs={"call": "c"})
    with sklearn.config_context(enable_metadata_routing=True):
        est = ProfitTreeClassifier(decision_matrix=m).set_fit_request(
            costs=True, sample_weight=False
        )
        scorer = make_profit_scorer(m).set_score_request(costs=True)
        search = GridSearchCV(est, {"max_depth": [1, 3]}, scoring=scorer, cv=3)
        search.fit(X, y, costs=costs)
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()
    # the refit saw every case's cost: same tree as a direct fit
    direct = ProfitTreeClassifier(decision_matrix=m, **search.best_params_).fit(
        X, y, costs=costs
    )
    assert direct.tree_ == search.best_estimator_.tree_
