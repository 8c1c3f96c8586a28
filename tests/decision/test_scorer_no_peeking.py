"""The profit scorer decides as the model will when used (issue 13 §2: no peeking)."""

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer

from dtdecide import (
    DecisionEstimator,
    DecisionMatrix,
    ProfitTreeClassifier,
    decide,
    make_profit_scorer,
)

MATRIX = DecisionMatrix({"mail": [30.0, 0.0], "skip": [0.0, 0.0]}, levels=["yes", "no"],
                        kind="revenue", costs={"mail": "c"})


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(5)
    n = 400
    x = rng.normal(size=n)
    # realised costs vary a lot around the leaf averages: deciding with them peeks
    c = rng.exponential(6.0, n)
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-2 * x)), "yes", "no")
    X = pd.DataFrame({"x": x, "z": rng.normal(size=n), "c": c})
    return X, pd.Series(y, name="target")


def tree():
    return ProfitTreeClassifier(decision_matrix=MATRIX, max_depth=3, min_samples_leaf=20)


def by_hand(X, y, cv):
    """Average profit of tree.decide on every test fold, fitted on the other folds."""
    out = []
    for train, test in cv.split(X):
        t = tree().fit(X.iloc[train], y.iloc[train])
        res = t.decide(X.iloc[test], y.iloc[test])
        out.append(res.summary["average_profit"])
    return np.array(out)


def test_tree_alone_in_a_pipeline_and_in_a_search_score_as_decide(data):
    X, y = data
    cv = KFold(4, shuffle=True, random_state=0)
    scorer = make_profit_scorer(MATRIX)
    expected = by_hand(X, y, cv)
    alone = cross_val_score(tree(), X, y, cv=cv, scoring=scorer)
    pipe = Pipeline([("keep", FunctionTransformer(None)), ("tree", tree())])
    in_pipe = cross_val_score(pipe, X, y, cv=cv, scoring=scorer)
    search = GridSearchCV(pipe, {"tree__max_depth": [3]}, cv=cv, scoring=scorer).fit(X, y)
    in_search = [search.cv_results_[f"split{k}_test_score"][0] for k in range(4)]
    np.testing.assert_allclose(alone, expected, rtol=1e-12)
    np.testing.assert_allclose(in_pipe, expected, rtol=1e-12)
    np.testing.assert_allclose(in_search, expected, rtol=1e-12)
    # the peeking score (each case decided with its realised cost) is higher: the
    # equality above is not an accident of the data
    peek = []
    for train, test in cv.split(X):
        t = tree().fit(X.iloc[train], y.iloc[train])
        post = t.predict_proba(X.iloc[test])
        peek.append(decide(post, MATRIX, y=y.iloc[test].to_numpy(),
                           costs=X.iloc[test][["c"]]).summary["average_profit"])
    assert np.mean(peek) > np.mean(expected) + 0.1
    # a fitted search scores with its refitted pipeline's tree, as it decides
    best = search.best_estimator_
    assert scorer(search, X, y) == pytest.approx(
        best[-1].decide(X, y).summary["average_profit"], rel=1e-12)


def test_nested_pipeline_and_decision_estimator_decide_themselves(data):
    X, y = data
    inner = Pipeline([("keep", FunctionTransformer(None)), ("tree", tree())])
    outer = Pipeline([("keep0", FunctionTransformer(None)), ("inner", inner)]).fit(X, y)
    scorer = make_profit_scorer(MATRIX)
    assert scorer(outer, X, y) == pytest.approx(
        outer[-1][-1].decide(X, y).summary["average_profit"], rel=1e-12)
    # a wrapped probabilistic model that decides with decision costs routed to it
    Xm = X[["x", "z"]]
    de = Pipeline([("keep", FunctionTransformer(None)),
                   ("de", DecisionEstimator(LogisticRegression(), MATRIX))]).fit(Xm, y)
    dc = {"c": float(X["c"].mean())}
    got = scorer(de, Xm, y, costs=X[["c"]], decision_costs=dc)
    want = de[-1].decide(Xm, y, costs=X[["c"]], decision_costs=dc).summary["average_profit"]
    assert got == pytest.approx(want, rel=1e-12)


def test_plain_model_decides_with_decision_costs_when_given(data):
    X, y = data
    Xm = X[["x", "z"]]
    model = Pipeline([("keep", FunctionTransformer(None)), ("lr", LogisticRegression())])
    model.fit(Xm, y)
    scorer = make_profit_scorer(MATRIX)
    dc = {"c": float(X["c"].mean())}
    post = model.predict_proba(Xm)[:, [1, 0]]  # classes_ are ["no", "yes"]
    want = decide(post, MATRIX, y=y.to_numpy(), costs=X[["c"]], decision_costs=dc)
    assert scorer(model, Xm, y, costs=X[["c"]], decision_costs=dc) == pytest.approx(
        want.summary["average_profit"], rel=1e-12)
