"""Leaf decision table: hand-computed figures, a slow reference, identities."""

import math

import numpy as np
import pandas as pd
import pytest
from export_helpers import (
    HAND_SPLITS,
    FixedTreeClassifier,
    RandomTreeClassifier,
    RandomTreeRegressor,
    add_costs,
    class_target,
    fixed,
    make_inputs,
    revenue_matrix,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dtdecide import DecisionMatrix
from dtdecide.export import leaf_table
from dtdecide.export._common import tree_view


def hand_tree():
    X = pd.DataFrame(
        {
            "age": [10.0, 20.0, 30.0, np.nan, 40.0, 25.0],
            "job": ["a", "b", "c", None, "c", "a"],
            "c": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        }
    )
    y = pd.Series(["no", "no", "yes", "yes", "yes", "no"], name="y")
    m = DecisionMatrix(
        [[10.0, 0.0], [0.0, 0.0]],
        levels=["yes", "no"],
        decisions=["call", "skip"],
        kind="revenue",
        costs={"call": "c"},
    )
    return fixed(FixedTreeClassifier, HAND_SPLITS, decision_matrix=m).fit(X, y), X, y


def test_hand_computed_training_figures():
    est, _, _ = hand_tree()
    t = leaf_table(est)
    assert t["leaf"].tolist() == [1, 3, 4]
    assert t["rule"].tolist() == [
        "age <= 20",
        "(age > 20 or age is missing) and (job in {'c'} or job is missing or unseen)",
        "(age > 20 or age is missing) and job in {'a', 'b'}",
    ]
    assert t["depth"].tolist() == [1, 2, 2]
    assert t["n"].tolist() == [2, 3, 1]
    assert t["count_yes"].tolist() == [0.0, 3.0, 0.0]
    assert t["post_no"].tolist() == [1.0, 0.0, 1.0]
    # average cost of 'call' over the leaf's training rows: (1+2)/2, (3+4+5)/3, 6
    assert t["cost_call"].tolist() == [1.5, 4.0, 6.0]
    assert t["cost_skip"].tolist() == [0.0, 0.0, 0.0]
    # EP(call) = 10 p_yes - average cost
    assert t["EP_call"].tolist() == [-1.5, 6.0, -6.0]
    assert t["decision"].tolist() == ["skip", "call", "skip"]
    assert t["EP"].tolist() == [0.0, 6.0, 0.0]
    # leaf 3 under 'call': 3 * 10 - (3 + 4 + 5) = 18; ROI 18 / 12
    assert t["total_profit"].tolist() == [0.0, 18.0, 0.0]
    assert t["average_profit"].tolist() == [0.0, 6.0, 0.0]
    roi = t["ROI"].tolist()
    assert math.isnan(roi[0]) and roi[1] == 1.5 and math.isnan(roi[2])


def test_hand_computed_validation_figures():
    est, _, _ = hand_tree()
    Xv = pd.DataFrame(
        {"age": [5.0, 50.0, 50.0], "job": ["a", "c", "zzz"], "c": [1.0, 2.0, 3.0]}
    )
    yv = pd.Series(["yes", "no", "yes"], name="y")
    t = leaf_table(est, Xv, yv, sample_weight=[1.0, 2.0, 1.0])
    assert t["valid_n"].tolist() == [1, 2, 0]
    assert t["valid_weight"].tolist() == [1.0, 3.0, 0.0]
    assert t["valid_count_yes"].tolist() == [1.0, 1.0, 0.0]
    assert t["valid_post_yes"][:2].tolist() == [1.0, 1 / 3] and math.isnan(t["valid_post_yes"][2])
    assert t["valid_cost_call"][:2].tolist() == [1.0, 7 / 3]
    # leaf 3 calls: a 'no' row of weight 2 and cost 2 (-2 each), a 'yes' of cost 3 (+7)
    assert t["valid_total_profit"].tolist() == [0.0, 3.0, 0.0]
    assert t["valid_average_profit"][:2].tolist() == [0.0, 1.0]
    assert math.isnan(t["valid_average_profit"][2])
    assert t["valid_ROI"][1] == 3 / 7
    # only X: counts and costs, no profit
    t2 = leaf_table(est, Xv)
    assert "valid_total_profit" not in t2.columns and t2["valid_n"].tolist() == [1, 2, 0]


def test_hand_computed_validation_figures_with_missing_costs():
    est, _, _ = hand_tree()  # leaves 1 and 4 skip (no cost), leaf 3 calls (cost c)
    Xv = pd.DataFrame(
        {
            "age": [5.0, 50.0, 50.0, 50.0, 10.0],
            "job": ["a", "c", "c", "c", "b"],
            "c": [np.nan, 2.0, np.nan, 3.0, 1.0],
        }
    )
    yv = pd.Series(["yes", "no", "yes", "yes", "no"], name="y")
    w = [1.0, 2.0, 1.0, 1.0, 1.0]
    t = leaf_table(est, Xv, yv, sample_weight=w)
    # every row counts in the counts and weights ...
    assert t["valid_n"].tolist() == [2, 3, 0]
    assert t["valid_weight"].tolist() == [2.0, 4.0, 0.0]
    assert t["valid_count_yes"].tolist() == [1.0, 2.0, 0.0]
    # ... rows 0 and 2 have a missing cost: out of the cost and profit figures, even
    # row 0 whose decision (skip) needs no cost (the rule of decide's summary)
    assert t["valid_n_missing"].tolist() == [1, 1, 0]
    assert t["valid_cost_call"][:2].tolist() == [1.0, 7 / 3]
    assert t["valid_total_profit"].tolist() == [0.0, 3.0, 0.0]  # leaf 3: 2 * -2 + 7
    assert t["valid_average_profit"][:2].tolist() == [0.0, 1.0]
    assert t["valid_ROI"][1] == 3 / 7
    res = est.decide(Xv.drop(columns="c"), yv, costs=Xv[["c"]], sample_weight=w)
    assert res.cases["CP_y"].notna().sum() == 4  # row 0 has a CP (skip needs no cost)
    s = res.summary
    assert s["n_missing"] == t["valid_n_missing"].sum() == 2
    assert s["total_profit"] == t["valid_total_profit"].sum()
    assert s["frequency"] == 4.0
    # without y there is no profit, but the missing costs are counted all the same
    t2 = leaf_table(est, Xv)
    assert t2["valid_n_missing"].tolist() == [1, 1, 0]
    assert "valid_total_profit" not in t2.columns


def reference_table(est, X, y, w):
    """Slow per-leaf loop straight from the design formulas."""
    m = est.decision_matrix_
    leaves = est.apply(X)
    costs = X["cost_call"].to_numpy()
    ok = ~np.isnan(costs)  # cases with every cost: the only ones in profit figures
    levels = list(m.levels)
    freq = {lev: w[ok & (y.to_numpy() == lev)].sum() for lev in levels}
    total_f = w[ok].sum()
    paw = {lev: m.priors[i] / freq[lev] * total_f for i, lev in enumerate(levels)}
    view = tree_view(est)
    rows = []
    for leaf in view.leaves:
        d = view.decisions[view.node_decision[leaf]]
        tot = adj = adj_w = wsum = wsum_ok = ic = 0.0
        n = n_missing = 0
        for i in range(len(X)):
            if leaves[i] != leaf:
                continue
            n += 1
            wsum += w[i]
            if not ok[i]:
                n_missing += 1
                continue
            wsum_ok += w[i]
            t = levels.index(y.iloc[i])
            cost = {"call": costs[i], "mail": 0.75, "skip": 0.0}[d]
            q = m.values[t, m.decisions.index(d)] - cost
            tot += w[i] * q
            ic += w[i] * cost
            adj += w[i] * paw[y.iloc[i]] * q
            adj_w += w[i] * paw[y.iloc[i]]
        rows.append((n, wsum, tot, tot / wsum_ok if wsum_ok else np.nan, adj, ic, n_missing))
    return rows


def test_validation_figures_match_a_slow_reference():
    rng = np.random.default_rng(21)
    m = revenue_matrix().replace(priors=[0.2, 0.3, 0.5])
    X = add_costs(make_inputs(1500, rng), rng)
    y = class_target(X, rng)
    est = RandomTreeClassifier(decision_matrix=m, max_depth=4, random_state=8).fit(X, y)
    Xv = add_costs(make_inputs(800, rng, unseen=True), rng, missing=0.05)
    assert Xv["cost_call"].isna().any()
    yv = class_target(Xv, rng)
    w = rng.integers(1, 4, len(Xv)).astype(float)
    t = leaf_table(est, Xv, yv, sample_weight=w)
    ref = reference_table(est, Xv, yv, w)
    assert t["valid_n"].tolist() == [r[0] for r in ref]
    assert t["valid_n_missing"].tolist() == [r[6] for r in ref]
    np.testing.assert_allclose(t["valid_weight"], [r[1] for r in ref], rtol=1e-12)
    np.testing.assert_allclose(t["valid_total_profit"], [r[2] for r in ref], rtol=1e-10, atol=1e-9)
    np.testing.assert_allclose(
        t["valid_average_profit"], [r[3] for r in ref], rtol=1e-10, atol=1e-9
    )
    np.testing.assert_allclose(
        t["valid_adjusted_total_profit"], [r[4] for r in ref], rtol=1e-10, atol=1e-9
    )
    roi = [r[2] / r[5] if r[5] > 0 else np.nan for r in ref]
    np.testing.assert_allclose(t["valid_ROI"], roi, rtol=1e-10)
    # the leaf sums add up to the engine's summary, adjusted or not
    s = est.decide(Xv, yv, sample_weight=w).summary
    assert t["valid_total_profit"].sum() == pytest.approx(s["total_profit"], rel=1e-10)
    assert t["valid_adjusted_total_profit"].sum() == pytest.approx(
        s["adjusted_total_profit"], rel=1e-10
    )
    # training figures, adjusted with the training class frequencies
    st_ = est.decide(X, y).summary
    assert t["adjusted_total_profit"].sum() == pytest.approx(
        st_["adjusted_total_profit"], rel=1e-10
    )
    # posteriors are the estimator's prior-adjusted ones
    leaves = est.apply(X)
    proba = est.predict_proba(X)
    for k, cls in enumerate(est.classes_):
        by_leaf = dict(zip(leaves, proba[:, k]))
        assert t[f"post_{cls}"].tolist() == [by_leaf[n] for n in t["leaf"]]


def test_regression_leaf_table_mean_sd_and_profit():
    rng = np.random.default_rng(22)
    X = make_inputs(2000, rng)
    y = pd.Series(rng.gamma(2.0, 150.0, len(X)), name="spend")
    w = rng.uniform(0.5, 2.0, len(X))
    m = DecisionMatrix(
        [[-50.0, 0.0], [100.0, 10.0], [900.0, 20.0]],
        knots=[0.0, 300.0, 800.0],
        decisions=["premium", "basic"],
        kind="loss",
    )
    est = RandomTreeRegressor(decision_matrix=m, max_depth=4, random_state=9).fit(X, y, sample_weight=w)
    t = leaf_table(est, X, y, sample_weight=w)
    leaves = est.apply(X)
    for row in t.itertuples():
        sel = leaves == row.leaf
        mean = np.average(y[sel], weights=w[sel])
        sd = math.sqrt(np.average((y[sel] - mean) ** 2, weights=w[sel]))
        assert row.mean == pytest.approx(mean, rel=1e-10)
        assert row.sd == pytest.approx(sd, rel=1e-7)
        assert row.valid_mean == pytest.approx(mean, rel=1e-10)
    assert {"EL", "EL_premium", "total_loss", "valid_total_loss"} <= set(t.columns)
    s = est.decide(X, y, sample_weight=w).summary
    assert t["total_loss"].sum() == pytest.approx(s["total_loss"], rel=1e-9)
    np.testing.assert_allclose(t["valid_total_loss"], t["total_loss"], rtol=1e-9)


def matches(cond, x, categories):
    """Slow evaluation of one merged condition on raw values."""
    out = []
    for v in x:
        missing = v is None or (isinstance(v, float) and math.isnan(v))
        if cond.is_categorical:
            known = not missing and v in list(categories)
            out.append(v in cond.categories if known else cond.has_missing)
        else:
            out.append(cond.has_missing if missing else cond.lo < v <= cond.hi)
    return np.array(out, dtype=bool)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), depth=st.integers(1, 6))
def test_merged_rule_conditions_select_exactly_the_leaf_rows(seed, depth):
    rng = np.random.default_rng(seed)
    X = make_inputs(400, rng, missing=0.15)
    y = class_target(X, rng)
    est = RandomTreeClassifier(max_depth=depth, random_state=seed).fit(X, y)
    Xs = make_inputs(300, rng, unseen=True, missing=0.15)
    leaves = est.apply(Xs)
    view = tree_view(est)
    for leaf in view.leaves:
        inside = np.ones(len(Xs), dtype=bool)
        for j, cond in view.conditions(leaf).items():
            col = Xs.iloc[:, j].astype(object).tolist()
            inside &= matches(cond, col, est.categories_[j] if est.is_categorical_[j] else ())
        assert np.array_equal(inside, leaves == leaf)


def test_without_matrix_and_errors():
    rng = np.random.default_rng(23)
    X = make_inputs(500, rng)
    y = class_target(X, rng)
    est = RandomTreeClassifier(max_depth=3, random_state=1).fit(X, y)
    t = leaf_table(est)
    assert "decision" not in t.columns
    assert t["n"].sum() == 500
    np.testing.assert_allclose(t[[f"post_{c}" for c in est.classes_]].sum(axis=1), 1.0)
    with pytest.raises(ValueError, match="y needs X"):
        leaf_table(est, y=y)
    with pytest.raises(ValueError, match="sample_weight"):
        leaf_table(est, X, y, sample_weight=np.ones(3))
    with pytest.raises(ValueError, match="pass X"):
        leaf_table(est, costs={"a": [1]})
    with pytest.raises(ValueError, match="decision matrix"):
        leaf_table(est, X, y, costs=X[["age"]])
    with pytest.raises(ValueError, match="not classes of the tree"):
        leaf_table(est, X, y.replace({"maybe": "perhaps"}))
    with pytest.raises(TypeError, match="estimator"):
        leaf_table("tree")
