"""Deciding with one set of costs and evaluating with another (``decision_costs=``).

``A(i,d)``, ``D_`` and ``EP_`` use the decision costs; ``IC_``, ``CP_``, ``BP_``,
``ROI_`` and the realised summaries use the actual ``costs``. Checked by hand, against
a slow per-case reference, between the fast additive kernel and the general path, and
for bit-identity with the old behaviour when the decision costs are the actual ones.
"""

import numpy as np
import pandas as pd
import pytest
import sklearn
from decision_helpers import general_decide
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold, cross_validate

from dtdecide import (
    DecisionEstimator,
    DecisionMatrix,
    ProfitTreeClassifier,
    decide,
    make_profit_scorer,
    mean_costs,
)
from dtdecide.decision._estimator import model_posteriors

SETTINGS = settings(max_examples=40, deadline=None)

CALL = DecisionMatrix({"call": [30.0, 0.0], "skip": [0.0, 0.0]}, levels=["yes", "no"],
                      kind="revenue", costs={"call": "c"})


def assert_identical(a, b):
    """Bit-identical cases and summaries."""
    pd.testing.assert_frame_equal(a.cases, b.cases, check_exact=True)
    pd.testing.assert_series_equal(a.summary, b.summary, check_exact=True)


def assert_close(a, b):
    assert list(a.cases.columns) == list(b.cases.columns)
    for col in a.cases.columns:
        x, y = a.cases[col], b.cases[col]
        if isinstance(x.dtype, pd.CategoricalDtype):
            assert x.tolist() == y.tolist() or (
                x.isna().equals(y.isna()) and x.dropna().tolist() == y.dropna().tolist())
        else:
            np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-12, equal_nan=True,
                                       err_msg=col)
    assert list(a.summary.index) == list(b.summary.index)
    np.testing.assert_allclose(a.summary, b.summary, rtol=1e-12, atol=1e-12, equal_nan=True)


# ---------------------------------------------------------------- hand-computed
@pytest.mark.parametrize("kernel", [decide, general_decide])
def test_hand_computed_decision_under_decision_costs(kernel):
    # A(call) = 30 * 0.2 - c = 6 - c, A(skip) = 0
    post = [[0.2, 0.8], [0.2, 0.8]]
    y = ["yes", "no"]
    actual = {"c": [10.0, 1.0]}
    # deciding with the actual costs: 6 - 10 < 0 skips, 6 - 1 = 5 calls
    own = kernel(post, CALL, y=y, costs=actual)
    assert own.cases["D_target"].tolist() == ["skip", "call"]
    assert own.cases["EP_target"].tolist() == [0.0, 5.0]
    # deciding with a planned cost of 4: both are called (EP 2), realised with 10 and 1
    res = kernel(post, CALL, y=y, costs=actual, decision_costs={"c": 4.0})
    cases = res.cases
    assert cases["D_target"].tolist() == ["call", "call"]
    assert cases["EP_target"].tolist() == [2.0, 2.0]
    assert cases["CP_target"].tolist() == [20.0, -1.0]  # 30 - 10, 0 - 1
    assert cases["BP_target"].tolist() == [20.0, 0.0]  # max(30 - 10, 0), max(-1, 0)
    assert cases["IC_target"].tolist() == [10.0, 1.0]
    assert cases["ROI_target"].tolist() == [2.0, -1.0]
    s = res.summary
    assert s["total_expected_profit"] == 4.0
    assert s["total_profit"] == 19.0
    assert s["average_profit"] == 9.5
    assert s["total_best_profit"] == 20.0
    assert s["total_investment"] == 11.0
    assert s["roi"] == 19.0 / 11.0


@pytest.mark.parametrize("kernel", [decide, general_decide])
def test_hand_computed_per_case_decision_costs_and_constant_costs(kernel):
    # "letter" has a constant cost 2 that decision_costs leaves alone
    m = DecisionMatrix({"call": [40.0, 0.0], "letter": [10.0, 0.0], "skip": [0.0, 0.0]},
                       levels=["yes", "no"], kind="revenue",
                       costs={"call": "c", "letter": 2.0})
    post = [[0.5, 0.5], [0.5, 0.5], [0.1, 0.9]]
    # A(call) = 20 - dc, A(letter) = 5 - 2 = 3, A(skip) = 0
    res = kernel(post, m, y=["no", "yes", "yes"], costs={"c": [1.0, 1.0, 1.0]},
                 decision_costs=pd.DataFrame({"c": [18.0, 10.0, 5.0]}))
    # case 0: call 2 < letter 3; case 1: call 10; case 2: call -1, letter -1, skip 0
    assert res.cases["D_target"].tolist() == ["letter", "call", "skip"]
    assert res.cases["EP_target"].tolist() == [3.0, 10.0, 0.0]
    assert res.cases["CP_target"].tolist() == [-2.0, 39.0, 0.0]
    assert res.cases["IC_target"].tolist() == [2.0, 1.0, 0.0]
    assert res.cases["BP_target"].tolist() == [0.0, 39.0, 39.0]


def test_threshold_compares_the_expected_profit_under_decision_costs():
    post = [[0.2, 0.8], [0.5, 0.5]]
    res = decide(post, CALL, y=["yes", "yes"], costs={"c": [0.0, 0.0]},
                 decision_costs={"c": 4.0}, threshold=3.0)
    # EP under decision costs: 2 (below 3: do nothing) and 11; realised with cost 0
    assert res.cases["D_target"].tolist() == ["do nothing", "call"]
    assert res.cases["CP_target"].tolist() == [0.0, 30.0]
    assert res.cases["IC_target"].tolist() == [0.0, 0.0]


def test_loss_orientation_is_untouched_by_decision_costs_of_revenue_only():
    loss = DecisionMatrix([[0, 1], [1, 0]], levels=["a", "b"], decisions=["A", "B"],
                          kind="loss")
    with pytest.raises(ValueError, match="decision_costs must be None for a loss matrix"):
        decide([[0.5, 0.5]], loss, decision_costs={"c": 1.0})


# ---------------------------------------------------------------- slow reference
def reference(post, matrix, y, actual, decision):
    """Per-case loops straight from the formulas (no threshold, no weights)."""
    levels = list(matrix.levels)
    base = matrix.profit_values
    D = matrix.n_decisions

    def cost(cols, i, d):
        c = matrix.costs.get(matrix.decisions[d])
        if c is None:
            return 0.0
        return float(c) if not isinstance(c, str) else float(cols[c][i])

    rows = []
    for i in range(len(post)):
        dec = [sum(base[t, d] * post[i][t] for t in range(len(levels))) - cost(decision, i, d)
               for d in range(D)]
        act_missing = any(np.isnan(cost(actual, i, d)) for d in range(D))
        if any(np.isnan(a) for a in dec) or act_missing:
            rows.append((None, np.nan, np.nan, np.nan, np.nan))
            continue
        best = max(range(D), key=lambda d: (dec[d], -d))
        t = levels.index(y[i])
        q = [base[t, d] - cost(actual, i, d) for d in range(D)]
        rows.append((matrix.decisions[best], dec[best], q[best], max(q), cost(actual, i, best)))
    return rows


@SETTINGS
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(1, 60), T=st.integers(2, 4),
       D=st.integers(1, 4), nan_rate=st.sampled_from([0.0, 0.2]),
       constant=st.booleans(), chunk=st.integers(1, 25))
def test_fast_and_general_paths_equal_the_slow_reference(seed, n, T, D, nan_rate,
                                                         constant, chunk):
    rng = np.random.default_rng(seed)
    levels = [f"l{t}" for t in range(T)]
    decisions = [f"d{d}" for d in range(D)]
    costs = {decisions[0]: "c0"}
    if D > 1:
        costs[decisions[1]] = float(rng.uniform(0, 2))
    if D > 2:
        costs[decisions[2]] = "c1"
    m = DecisionMatrix(rng.normal(scale=5, size=(T, D)), levels=levels, decisions=decisions,
                       kind="revenue", costs=costs)
    post = rng.dirichlet(np.ones(T), size=n)
    y = list(np.asarray(levels, dtype=object)[rng.integers(0, T, size=n)])
    actual = {v: rng.uniform(0, 4, size=n) for v in m.cost_variables}
    for col in actual.values():
        col[rng.random(n) < nan_rate] = np.nan
    if constant:
        decision = {v: float(rng.uniform(0, 4)) for v in m.cost_variables}
        decision_cols = {v: np.full(n, c) for v, c in decision.items()}
    else:
        decision = {v: rng.uniform(0, 4, size=n) for v in m.cost_variables}
        for col in decision.values():
            col[rng.random(n) < nan_rate] = np.nan
        decision_cols = decision
    ref = reference(post, m, y, actual, decision_cols)
    fast = decide(post, m, y=y, costs=actual, decision_costs=decision, chunk_size=chunk)
    slow = general_decide(post, m, y=y, costs=actual, decision_costs=decision,
                          chunk_size=chunk)
    assert_close(fast, slow)
    c = fast.cases
    got_d = [None if pd.isna(v) else v for v in c["D_target"]]
    assert got_d == [r[0] for r in ref]
    for k, col in enumerate(["EP_target", "CP_target", "BP_target", "IC_target"], start=1):
        np.testing.assert_allclose(c[col], [r[k] for r in ref], rtol=1e-9, atol=1e-9,
                                   equal_nan=True, err_msg=col)
    assert fast.summary["n_missing"] == sum(r[0] is None for r in ref)


# ---------------------------------------------------------------- old behaviour
@SETTINGS
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(1, 80), chunk=st.integers(1, 30),
       threshold=st.sampled_from([None, 0.5]), weighted=st.booleans(),
       with_y=st.booleans(), priors=st.booleans())
def test_decision_costs_equal_to_costs_is_bit_identical(seed, n, chunk, threshold, weighted,
                                                        with_y, priors):
    rng = np.random.default_rng(seed)
    m = DecisionMatrix({"a": [5.0, -1.0, 2.0], "b": [1.0, 3.0, 0.0], "c": [0.0, 0.0, 0.0]},
                       levels=["x", "y", "z"], kind="revenue",
                       costs={"a": "ca", "b": "cb", "c": 0.5},
                       priors=[0.2, 0.3, 0.5] if priors else None)
    post = rng.dirichlet(np.ones(3), size=n)
    y = rng.choice(["x", "y", "z"], size=n) if with_y else None
    costs = pd.DataFrame({"ca": rng.uniform(0, 3, size=n), "cb": rng.uniform(0, 3, size=n)})
    costs.loc[rng.random(n) < 0.1, "ca"] = np.nan
    w = rng.integers(0, 3, size=n) if weighted else None
    kw = dict(y=y, costs=costs, sample_weight=w, threshold=threshold, chunk_size=chunk)
    for kernel in (decide, general_decide):
        old = kernel(post, m, **kw)
        assert_identical(kernel(post, m, decision_costs=None, **kw), old)
        assert_identical(kernel(post, m, decision_costs=costs.copy(), **kw), old)
        assert_identical(kernel(post, m, decision_costs={k: costs[k].to_numpy()
                                                         for k in costs}, **kw), old)


@pytest.mark.parametrize("kernel", [decide, general_decide])
def test_constant_forms_are_identical(kernel):
    rng = np.random.default_rng(3)
    n = 50
    post = rng.dirichlet(np.ones(2), size=n)
    y = rng.choice(["yes", "no"], size=n)
    actual = {"c": rng.uniform(0, 10, size=n)}
    full = kernel(post, CALL, y=y, costs=actual, decision_costs={"c": np.full(n, 2.5)},
                  chunk_size=7)
    for form in ({"c": 2.5}, {"c": np.float64(2.5)}, {"c": np.array(2.5)}, {"c": 2},
                 pd.Series({"c": 2.5})):
        if form.get("c") == 2:
            expected = kernel(post, CALL, y=y, costs=actual,
                              decision_costs={"c": np.full(n, 2.0)}, chunk_size=7)
        else:
            expected = full
        assert_identical(kernel(post, CALL, y=y, costs=actual, decision_costs=form,
                                chunk_size=7), expected)


def test_decision_costs_change_nothing_but_decisions_and_expected_profit():
    rng = np.random.default_rng(5)
    n = 200
    post = rng.dirichlet(np.ones(2), size=n)
    y = rng.choice(["yes", "no"], size=n)
    actual = {"c": rng.uniform(0, 20, size=n)}
    res = decide(post, CALL, y=y, costs=actual, decision_costs={"c": 5.0})
    own = decide(post, CALL, y=y, costs=actual)
    assert not res.cases["D_target"].equals(own.cases["D_target"])
    # BP does not depend on any decision
    np.testing.assert_array_equal(res.cases["BP_target"], own.cases["BP_target"])
    # the decision with the actual costs is the best realisable in expectation
    assert own.summary["total_expected_profit"] != res.summary["total_expected_profit"]
    # CP and IC are the actual consequences of the decisions taken
    called = (res.cases["D_target"] == "call").to_numpy()
    q_call = np.where(y == "yes", 30.0, 0.0) - actual["c"]
    np.testing.assert_array_equal(res.cases["CP_target"], np.where(called, q_call, 0.0))
    np.testing.assert_array_equal(res.cases["IC_target"], np.where(called, actual["c"], 0.0))
    # EP is the expected profit under the decision cost
    ep_call = 30.0 * post[:, 0] - 5.0
    np.testing.assert_allclose(res.cases["EP_target"], np.maximum(ep_call, 0.0), rtol=1e-12)


def test_missing_decision_cost_makes_the_case_missing():
    post = [[0.5, 0.5]] * 3
    for kernel in (decide, general_decide):
        res = kernel(post, CALL, y=["yes", "no", "yes"], costs={"c": [1.0, 1.0, np.nan]},
                     decision_costs={"c": [np.nan, 2.0, 2.0]})
        assert res.cases["D_target"].isna().tolist() == [True, False, True]
        assert res.cases["CP_target"].isna().tolist() == [True, False, True]
        assert res.summary["n_missing"] == 2
        assert res.summary["total_profit"] == -1.0


# ---------------------------------------------------------------- other matrices
def test_case_specific_matrix_decides_with_the_decision_array():
    m = DecisionMatrix.case_specific(levels=[0, 1], decisions=["act", "wait"], kind="profit")
    post = np.array([[0.5, 0.5], [0.5, 0.5]])
    actual = np.zeros((2, 2, 2))
    actual[:, 1, 0] = [8.0, 8.0]  # acting on a 1 earns 8 ...
    actual[:, 0, 0] = [-2.0, -2.0]  # ... on a 0 loses 2
    planned = actual.copy()
    planned[1, 0, 0] = -20.0  # the plan fears a large loss for case 1
    res = decide(post, m, y=[1, 0], costs=actual, decision_costs=planned)
    assert res.cases["D_target"].tolist() == ["act", "wait"]
    assert res.cases["EP_target"].tolist() == [3.0, 0.0]
    assert res.cases["CP_target"].tolist() == [8.0, 0.0]
    assert res.cases["BP_target"].tolist() == [8.0, 0.0]
    same = decide(post, m, y=[1, 0], costs=actual)
    assert_identical(decide(post, m, y=[1, 0], costs=actual, decision_costs=actual), same)
    with pytest.raises(ValueError, match="decision_costs"):
        decide(post, m, y=[1, 0], costs=actual, decision_costs=planned[:1])
    bound = DecisionMatrix.case_specific(levels=[0, 1], decisions=["act", "wait"],
                                         values=actual)
    with pytest.raises(ValueError, match="decision_costs must be None"):
        decide(post, bound, decision_costs=planned)


def test_interval_revenue_matrix_with_decision_costs():
    m = DecisionMatrix({"build": [0.0, 100.0], "skip": [0.0, 0.0]}, knots=[0.0, 10.0],
                       kind="revenue", costs={"build": "c"})
    # prediction 5 -> revenue 50; planned cost 60 skips, actual 40 would have built
    res = decide([5.0, 8.0], m, y=[6.0, 8.0], costs={"c": [40.0, 40.0]},
                 decision_costs={"c": 60.0})
    assert res.cases["D_target"].tolist() == ["skip", "build"]
    assert res.cases["EP_target"].tolist() == [0.0, 20.0]
    assert res.cases["CP_target"].tolist() == [0.0, 40.0]
    assert res.cases["BP_target"].tolist() == [20.0, 40.0]


# ---------------------------------------------------------------- bad input
def test_bad_decision_costs():
    post = [[0.5, 0.5], [0.2, 0.8]]
    costs = {"c": [1.0, 2.0]}
    profit = DecisionMatrix([[1, 0], [0, 1]], levels=["yes", "no"], decisions=["A", "B"])
    with pytest.raises(ValueError, match="decision_costs must be None for a profit matrix"):
        decide(post, profit, decision_costs={"c": 1.0})
    constant = DecisionMatrix({"call": [3.0, 0.0]}, levels=["yes", "no"], kind="revenue",
                              costs={"call": 1.0})
    with pytest.raises(ValueError, match="decision_costs replaces the cost-variable"):
        decide(post, constant, decision_costs={"c": 1.0})
    with pytest.raises(ValueError, match=r"decision_costs is missing the cost column\(s\) \['c'\]"):
        decide(post, CALL, costs=costs, decision_costs={"d": 1.0})
    with pytest.raises(TypeError, match="decision_costs must be a DataFrame"):
        decide(post, CALL, costs=costs, decision_costs=[1.0, 2.0])
    with pytest.raises(ValueError, match=r"decision_costs\['c'\] must be a finite number"):
        decide(post, CALL, costs=costs, decision_costs={"c": np.nan})
    with pytest.raises(TypeError, match=r"decision_costs\['c'\] must be a real number"):
        decide(post, CALL, costs=costs, decision_costs={"c": True})
    with pytest.raises(TypeError, match=r"decision_costs\['c'\] must be a real number"):
        decide(post, CALL, costs=costs, decision_costs={"c": 1j})
    with pytest.raises(ValueError, match="decision_costs .*one value per case"):
        decide(post, CALL, costs=costs, decision_costs={"c": [1.0, 2.0, 3.0]})
    with pytest.raises(ValueError, match="decision_costs .*infinite"):
        decide(post, CALL, costs=costs, decision_costs={"c": [1.0, np.inf]})
    with pytest.raises(TypeError, match="decision_costs .*numeric"):
        decide(post, CALL, costs=costs, decision_costs={"c": ["a", "b"]})
    framed = pd.DataFrame(post, index=[10, 11], columns=["yes", "no"])
    with pytest.raises(ValueError, match="decision_costs has an index that differs"):
        decide(framed, CALL, costs=costs, decision_costs=pd.DataFrame({"c": [1.0, 2.0]}))
    # the actual costs are still required
    with pytest.raises(ValueError, match="costs is missing the cost column 'c'"):
        decide(post, CALL, y=["yes", "no"], decision_costs={"c": 1.0})


# ---------------------------------------------------------------- mean_costs
def test_mean_costs_hand_computed():
    frame = pd.DataFrame({"a": [1.0, 2.0, np.nan, 5.0], "b": [0, 0, 4, 4]})
    assert mean_costs(frame) == {"a": 8.0 / 3.0, "b": 2.0}
    # a: (1 * 1 + 5 * 2) / (1 + 2), NaN left out; b: (4 * 3 + 4 * 2) / 6
    assert mean_costs(frame, sample_weight=[1, 0, 3, 2]) == {"a": 11.0 / 3.0, "b": 20.0 / 6.0}
    assert list(mean_costs({"z": [1], "y": [3]})) == ["z", "y"]
    assert mean_costs({"a": pd.array([1, None, 3], dtype="Int64")}) == {"a": 2.0}


def test_mean_costs_equals_deciding_with_the_mean_column():
    rng = np.random.default_rng(11)
    n = 120
    train = pd.DataFrame({"c": rng.exponential(3.0, size=n)})
    w = rng.integers(1, 4, size=n)
    post = rng.dirichlet(np.ones(2), size=n)
    y = rng.choice(["yes", "no"], size=n)
    actual = {"c": rng.exponential(3.0, size=n)}
    mc = mean_costs(train, sample_weight=w)
    assert mc["c"] == pytest.approx(np.average(train["c"], weights=w), rel=1e-12)
    res = decide(post, CALL, y=y, costs=actual, decision_costs=mc)
    planned = decide(post, CALL, costs={"c": np.full(n, mc["c"])})
    assert res.cases["D_target"].equals(planned.cases["D_target"])
    np.testing.assert_array_equal(res.cases["EP_target"], planned.cases["EP_target"])


def test_mean_costs_bad_input():
    with pytest.raises(TypeError, match="costs must be a DataFrame or a dict"):
        mean_costs([1.0, 2.0])
    with pytest.raises(ValueError, match="at least one cost column"):
        mean_costs({})
    with pytest.raises(TypeError, match="costs column 'a' must be numeric"):
        mean_costs({"a": ["x", "y"]})
    with pytest.raises(TypeError, match="costs column 'a' must be numeric"):
        mean_costs({"a": [True, False]})
    with pytest.raises(ValueError, match="same length"):
        mean_costs({"a": [1.0, 2.0], "b": [1.0]})
    with pytest.raises(ValueError, match="1-D"):
        mean_costs({"a": [[1.0, 2.0]]})
    with pytest.raises(ValueError, match="infinite"):
        mean_costs({"a": [1.0, np.inf]})
    with pytest.raises(ValueError, match="no known value with a positive frequency"):
        mean_costs({"a": [np.nan, 1.0]}, sample_weight=[1.0, 0.0])
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        mean_costs({"a": [1.0, 1.0]}, sample_weight=[1.0, -1.0])
    with pytest.raises(ValueError, match="sample_weight must have one value per case"):
        mean_costs({"a": [1.0, 1.0]}, sample_weight=[1.0])
    dup = pd.DataFrame([[1.0, 2.0]], columns=["a", "a"])
    with pytest.raises(ValueError, match="repeat a column"):
        mean_costs(dup)


# ---------------------------------------------------------------- estimator and scorer
def bank_like(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] + rng.normal(size=n) > 0.8, "yes", "no")
    cost = rng.exponential(4.0, size=n)
    return X, y, cost


def test_decision_estimator_passes_decision_costs():
    X, y, cost = bank_like()
    est = DecisionEstimator(LogisticRegression(), CALL).fit(X, y)
    post = model_posteriors(est.estimator_, X, CALL)
    plan = {"c": 4.0}
    got = est.decide(X, y, {"c": cost}, decision_costs=plan)
    assert_identical(got, decide(post, CALL, y=y, costs={"c": cost}, decision_costs=plan))
    assert not got.cases["D_target"].equals(est.decide(X, y, {"c": cost}).cases["D_target"])


def test_scorer_decides_with_decision_costs_and_scores_actual_costs():
    X, y, cost = bank_like()
    lr = LogisticRegression().fit(X, y)
    scorer = make_profit_scorer(CALL)
    plan = mean_costs({"c": cost})
    post = model_posteriors(lr, X, CALL)
    expected = decide(post, CALL, y=y, costs={"c": cost}, decision_costs=plan)
    got = scorer(lr, X, y, costs={"c": cost}, decision_costs=plan)
    assert got == expected.summary["average_profit"]
    assert got != scorer(lr, X, y, costs={"c": cost})
    # a wrapped model deciding by itself gets the decision costs too
    est = DecisionEstimator(LogisticRegression(), CALL).fit(X, y)
    assert scorer(est, X, y, costs={"c": cost}, decision_costs=plan) == got
    # a profit tree keeps its leaf decisions
    tree = ProfitTreeClassifier(decision_matrix=CALL, max_depth=2, min_samples_leaf=20)
    tree.fit(X, y, costs={"c": cost})
    assert scorer(tree, X, y, costs={"c": cost}, decision_costs=plan) == \
        scorer(tree, X, y, costs={"c": cost})


def test_decision_costs_through_metadata_routing():
    X, y, cost = bank_like(n=240, seed=2)
    costs = pd.DataFrame({"c": cost})
    plan = {"c": 4.0}  # a dict of constants reaches every fold as is
    with sklearn.config_context(enable_metadata_routing=True):
        scorer = make_profit_scorer(CALL).set_score_request(costs=True, decision_costs=True)
        cv = KFold(3)
        out = cross_validate(LogisticRegression(), X, y, cv=cv, scoring=scorer,
                             params={"costs": costs, "decision_costs": plan})
        per_case = cross_validate(LogisticRegression(), X, y, cv=cv, scoring=scorer,
                                  params={"costs": costs,
                                          "decision_costs": costs.assign(c=4.0)})
        ref = []
        for train, test in cv.split(X):
            lr = LogisticRegression().fit(X[train], y[train])
            post = model_posteriors(lr, X[test], CALL)
            res = decide(post, CALL, y=y[test], costs={"c": cost[test]},
                         decision_costs=plan)
            ref.append(res.summary["average_profit"])
        np.testing.assert_array_equal(out["test_score"], ref)
        np.testing.assert_array_equal(per_case["test_score"], ref)
        # decision_costs not requested: an error, as for any routed metadata
        with pytest.raises((TypeError, ValueError)):
            cross_validate(LogisticRegression(), X, y, cv=cv,
                           scoring=make_profit_scorer(CALL).set_score_request(costs=True),
                           params={"costs": costs, "decision_costs": plan})


def _missing_check_matrix():
    return DecisionMatrix({"mail": [10.0, 0.0], "call": [20.0, 0.0], "skip": [0.0, 0.0]},
                          levels=[1, 0], kind="revenue",
                          costs={"mail": "c_mail", "call": "c_call", "skip": 0.5})


def test_missing_cost_cases_are_resolves_missing_cases():
    """The check before growing marks exactly the cases that resolve leaves missing."""
    m = _missing_check_matrix()
    rng = np.random.default_rng(4)
    c_mail = rng.uniform(0, 3, 40)
    c_call = rng.uniform(0, 3, 40)
    c_mail[[3, 17]] = np.nan
    c_call[[17, 30]] = np.nan
    for costs in ({"c_mail": c_mail, "c_call": c_call},
                  pd.DataFrame({"c_call": c_call, "c_mail": c_mail}),
                  {"c_mail": np.nan_to_num(c_mail), "c_call": np.nan_to_num(c_call)}):
        missing = m.missing_cost_cases(costs, n_samples=40)
        np.testing.assert_array_equal(missing, m.resolve(costs, n_samples=40).has_missing)
    assert m.missing_cost_cases({"c_mail": c_mail, "c_call": c_call},
                                n_samples=40).nonzero()[0].tolist() == [3, 17, 30]


@pytest.mark.parametrize("costs, error, match", [
    (None, ValueError, "missing the cost column 'c_mail'"),
    ({"c_mail": np.ones(5)}, ValueError, "missing the cost column 'c_call'"),
    ({"c_mail": np.ones(5), "c_call": np.ones(4)}, ValueError, "one value per case"),
    ({"c_mail": np.ones(5), "c_call": np.r_[1.0, np.inf, 1, 1, 1]}, ValueError,
     "must not contain infinite"),
    ({"c_mail": np.ones(5), "c_call": np.array(list("abcde"), dtype=object)}, TypeError,
     "must be numeric"),
    (np.ones((5, 2)), TypeError, "got an array"),
])
def test_missing_cost_cases_refuses_what_resolve_refuses(costs, error, match):
    m = _missing_check_matrix()
    with pytest.raises(error, match=match):
        m.resolve(costs, n_samples=5)
    with pytest.raises(error, match=match):
        m.missing_cost_cases(costs, n_samples=5)


def test_missing_cost_cases_needs_cost_variables():
    plain = DecisionMatrix({"mail": [10.0, -1.0], "skip": [0.0, 0.0]}, levels=[1, 0])
    with pytest.raises(ValueError, match="use resolve"):
        plain.missing_cost_cases(None, n_samples=3)


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 60),
       forms=st.lists(st.sampled_from(["c_mail", "c_call", "const", "none"]), min_size=3,
                      max_size=3),
       nan_rate=st.sampled_from([0.0, 0.2]))
def test_resolved_cost_columns_are_the_cost_array(seed, n, forms, nan_rate):
    """``resolve`` keeps a matrix's cost columns as they are (``cost_columns``); the
    (cases x decisions) ``case_costs`` made from them when read, the missing cases, the
    rows taken and the consequences are those of each decision's column or constant,
    read before or after the array is made."""
    if not any(f.startswith("c_") for f in forms):
        forms = ["c_call"] + forms[1:]
    rng = np.random.default_rng(seed)
    cols = {k: rng.uniform(0, 3, n) for k in ("c_mail", "c_call")}
    for c in cols.values():
        c[rng.random(n) < nan_rate] = np.nan
    decisions = ["mail", "call", "skip"]
    spec = {d: (f if f.startswith("c_") else 0.75 * (j + 1))
            for j, (d, f) in enumerate(zip(decisions, forms)) if f != "none"}
    m = DecisionMatrix({"mail": [10.0, 0.0], "call": [20.0, -1.0], "skip": [0.0, 0.0]},
                       levels=[1, 0], kind="revenue", costs=spec)
    want = np.zeros((n, 3))
    for j, d in enumerate(decisions):
        c = spec.get(d)
        if c is not None:
            want[:, j] = cols[c] if isinstance(c, str) else c
    want_missing = np.isnan(want).any(axis=1)
    t = rng.integers(0, 2, n)
    rows = [slice(1, None, 2), rng.integers(0, n, size=n), rng.random(n) < 0.5]
    for read_array_first in (False, True):
        cons = m.resolve(pd.DataFrame(cols), n_samples=n)
        assert cons.cost_columns is not None
        if read_array_first:
            assert np.array_equal(cons.case_costs, want, equal_nan=True)
        np.testing.assert_array_equal(cons.has_missing, want_missing)
        for r in rows:
            part = cons.take(r)
            assert np.array_equal(part.case_costs, want[r], equal_nan=True)
            np.testing.assert_array_equal(part.has_missing, want_missing[r])
        assert np.array_equal(cons.q_actual(t), m.profit_values[t] - want, equal_nan=True)
        assert np.array_equal(cons.case_costs, want, equal_nan=True)


def test_cost_checks_by_sums_on_a_fits_threads(monkeypatch):
    """The cost columns' checks for infinite and missing values read sums (in ranges on
    an open pool's threads, small ranges here): an infinite value in any range is
    refused, NaN in any range marks exactly those cases, and finite values whose sum
    overflows are neither."""
    from dtdecide._parallel import thread_pool
    from dtdecide.decision import _matrix_cases

    monkeypatch.setattr(_matrix_cases, "FINITE_TASK_MIN", 5)
    m = _missing_check_matrix()
    n = 60
    rng = np.random.default_rng(9)
    for n_jobs in (1, 2, 3):
        with thread_pool(n_jobs):
            for at in (0, 31, 59):
                mail, call = rng.uniform(0, 3, n), rng.uniform(0, 3, n)
                assert _matrix_cases.all_finite(mail)
                call[at] = np.inf
                assert not _matrix_cases.all_finite(call)
                with pytest.raises(ValueError, match="must not contain infinite"):
                    m.missing_cost_cases({"c_mail": mail, "c_call": call}, n_samples=n)
                call[at] = np.nan
                mail[[at, (at + 7) % n]] = np.nan
                missing = m.missing_cost_cases({"c_mail": mail, "c_call": call}, n_samples=n)
                assert missing.nonzero()[0].tolist() == sorted({at, (at + 7) % n})
            huge = np.full(n, 1e308)  # the sums overflow; every value is finite
            assert not _matrix_cases.all_finite(huge)
            assert not m.missing_cost_cases({"c_mail": huge, "c_call": -huge},
                                            n_samples=n).any()
