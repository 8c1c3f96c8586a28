"""Every public per-row entry point keeps its input's row count and index (issue 13)."""

import warnings

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from dtdecide import (
    DecisionEstimator,
    DecisionMatrix,
    ProfitTreeClassifier,
    ProfitTreeRegressor,
    decide,
)

MATRIX = DecisionMatrix({"call": [12.0, 0.0], "skip": [0.0, 0.0]}, levels=["yes", "no"],
                        kind="revenue", costs={"call": "c"})
KNOTS = DecisionMatrix({"go": [-5.0, 25.0], "wait": [0.0, 0.0]}, knots=[0.0, 10.0])

_rng = np.random.default_rng(0)
_N = 120
TRAIN = pd.DataFrame({
    "x": _rng.normal(size=_N),
    "job": _rng.choice(["a", "b", "c"], _N),
})
TRAIN.loc[::11, "x"] = np.nan
Y = np.where(TRAIN["x"].fillna(0) + (TRAIN["job"] == "b") > 0.3, "yes", "no")
C = _rng.uniform(0.5, 3.0, _N)
TREE = ProfitTreeClassifier(decision_matrix=MATRIX, max_depth=3, min_samples_leaf=5).fit(
    TRAIN, Y, costs={"c": C})
REG = ProfitTreeRegressor(decision_matrix=KNOTS, max_depth=3, min_samples_leaf=5).fit(
    TRAIN, np.where(Y == "yes", 8.0, 1.0) + TRAIN["x"].fillna(0))
WRAPPED = DecisionEstimator(ProfitTreeClassifier(max_depth=2), MATRIX).fit(TRAIN, Y)


@st.composite
def frames(draw):
    n = draw(st.integers(1, 15))
    kind = draw(st.sampled_from(["range", "shifted", "shuffled", "strings", "duplicated"]))
    if kind == "range":
        index = pd.RangeIndex(n)
    elif kind == "shifted":
        index = pd.RangeIndex(100, 100 + n)
    elif kind == "shuffled":
        index = pd.Index(draw(st.permutations(list(range(1000, 1000 + n)))))
    elif kind == "strings":
        index = pd.Index([f"client-{k}" for k in draw(st.permutations(list(range(n))))])
    else:
        index = pd.Index(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    x = draw(st.lists(st.one_of(st.none(), st.floats(-3, 3)), min_size=n, max_size=n))
    job = draw(st.lists(st.sampled_from(["a", "b", "c", None]), min_size=n, max_size=n))
    X = pd.DataFrame({"x": pd.array(x, dtype="Float64").astype(float), "job": job},
                     index=index)
    X["job"] = X["job"].astype(object)
    c = pd.Series(draw(st.lists(st.floats(0.01, 5), min_size=n, max_size=n)), index=index)
    y = pd.Series(draw(st.lists(st.sampled_from(["yes", "no"]), min_size=n, max_size=n)),
                  index=index)
    return X, y, c


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow],
          phases=[Phase.explicit, Phase.generate])
@given(frames())
def test_per_row_outputs_keep_rows_and_index(data):
    X, y, c = data
    n = len(X)
    costs = pd.DataFrame({"c": c})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # training labels only: nothing to warn about
        assert TREE.predict(X).shape == (n,)
        assert TREE.predict_proba(X).shape == (n, 2)
        assert TREE.apply(X).shape == (n,)
        assert TREE.decision_path(X).shape[0] == n
        assert TREE.predict_decision(X).shape[0] == n
        assert REG.predict(X).shape == (n,)
        for res in (TREE.decide(X), TREE.decide(X, y, costs=costs), REG.decide(X)):
            assert res.cases.index.equals(X.index)
        post = pd.DataFrame(TREE.predict_proba(X), index=X.index, columns=TREE.classes_)
        for res in (decide(post, MATRIX, costs=costs), decide(post, MATRIX, y=y, costs=costs)):
            assert res.cases.index.equals(X.index)
        res = decide(post.to_numpy(), MATRIX, costs={"c": c.to_numpy()})
        assert res.cases.index.equals(pd.RangeIndex(n))
        wrapped = WRAPPED.decide(X, y, costs=costs)
        assert wrapped.cases.index.equals(X.index)
        assert WRAPPED.predict_proba(X).shape == (n, 2)
