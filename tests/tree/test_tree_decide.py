"""Scoring with ``decide``: leaf decisions, the cases' own costs, and the summaries."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dtdecide import DecisionMatrix, ProfitTreeClassifier, ProfitTreeRegressor, decide

STUMP = dict(max_depth=1, min_samples_leaf=1, min_samples_split=2)


def stump_data():
    """x splits the cases into two leaves; 'c' is the cost of mailing."""
    X = pd.DataFrame({"x": [0, 0, 0, 1, 1]})
    y = np.array(["yes", "no", "no", "yes", "yes"])
    c = np.array([2.0, 4.0, 6.0, 1.0, 3.0])
    return X, y, c


MAIL = DecisionMatrix(
    {"mail": [20.0, 0.0], "skip": [0.0, 0.0]}, levels=["yes", "no"], kind="revenue",
    costs={"mail": "c"},
)


def assert_same_as_engine(ours, engine):
    """The tree's decide and decide() on its posteriors/predictions give the same result."""
    pd.testing.assert_frame_equal(ours.cases, engine.cases, check_exact=False)
    pd.testing.assert_series_equal(engine_part(ours.summary), engine.summary, check_exact=False)


def test_decide_by_hand_with_case_costs():
    X, y, c = stump_data()
    tree = ProfitTreeClassifier(decision_matrix=MAIL, **STUMP).fit(X, y, costs={"c": c})
    assert tree.get_n_leaves() == 2
    # left leaf (x=0): Post(yes) = 1/3, average cost 4 -> EP(mail) = 20/3 - 4 = 8/3
    # right leaf (x=1): Post(yes) = 1, average cost 2 -> EP(mail) = 18
    new_c = np.array([10.0, 0.0, 1.0, 5.0, 30.0])  # the cases' actual costs at scoring
    res = tree.decide(X, y, costs={"c": new_c})
    cases = res.cases
    assert cases["D_target"].tolist() == ["mail"] * 5
    np.testing.assert_allclose(cases["EP_target"], [8 / 3] * 3 + [18.0] * 2)
    # computed profit, investment and ROI use the cases' own costs
    np.testing.assert_allclose(cases["CP_target"], [10.0, 0.0, -1.0, 15.0, -10.0])
    np.testing.assert_allclose(cases["IC_target"], new_c)
    np.testing.assert_allclose(cases["BP_target"], [10.0, 0.0, 0.0, 15.0, 0.0])
    np.testing.assert_allclose(cases["ROI_target"], [1.0, np.nan, -1.0, 3.0, -1 / 3])
    s = res.summary
    assert s["total_profit"] == pytest.approx(14.0)
    assert s["average_profit"] == pytest.approx(14.0 / 5)
    assert s["total_investment"] == pytest.approx(46.0)
    assert s["roi"] == pytest.approx(14.0 / 46.0)
    assert s["total_expected_profit"] == pytest.approx(8.0 + 36.0)


def test_cost_columns_of_X_are_costs_not_inputs():
    X, y, c = stump_data()
    Xc = X.assign(c=c)
    a = ProfitTreeClassifier(decision_matrix=MAIL, **STUMP).fit(Xc, y)
    b = ProfitTreeClassifier(decision_matrix=MAIL, **STUMP).fit(X, y, costs={"c": c})
    assert a.cost_features_ == ("c",)
    assert a.feature_names_in_.tolist() == ["x"]
    assert a.tree_ == b.tree_
    # at scoring the X column is the actual cost
    pd.testing.assert_frame_equal(a.decide(Xc, y).cases, b.decide(X, y, costs={"c": c}).cases)
    np.testing.assert_array_equal(a.predict_proba(Xc), b.predict_proba(X))


def test_missing_costs_raise_naming_costs():
    X, y, c = stump_data()
    tree = ProfitTreeClassifier(decision_matrix=MAIL, **STUMP)
    with pytest.raises(ValueError, match="costs"):
        tree.fit(X, y)
    with pytest.raises(ValueError, match="costs.*missing cost"):
        tree.fit(X, y, costs={"c": np.array([1.0, np.nan, 1, 1, 1])})
    tree.fit(X, y, costs={"c": c})
    with pytest.raises(ValueError, match="costs"):
        tree.decide(X, y)
    # without y, the decisions need no costs; the investment is unknown
    res = tree.decide(X)
    assert res.cases["IC_target"].isna().all()
    assert res.cases["D_target"].tolist() == ["mail"] * 5


def random_case(rng, n):
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.choice(["u", "v", "w"], n)})
    y = np.where(X["a"] + (X["b"] == "u") + rng.normal(size=n) > 0.5, "yes", "no")
    c = rng.uniform(0.5, 8.0, n)
    return X, y, c


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_a_case_own_cost_never_changes_its_decision(seed):
    rng = np.random.default_rng(seed)
    X, y, c = random_case(rng, 80)
    tree = ProfitTreeClassifier(decision_matrix=MAIL, max_depth=3).fit(X, y, costs={"c": c})
    other = rng.uniform(0, 100, 80)
    r1 = tree.decide(X, y, costs={"c": c}).cases
    r2 = tree.decide(X, y, costs={"c": other}).cases
    pd.testing.assert_series_equal(r1["D_target"], r2["D_target"])
    pd.testing.assert_series_equal(r1["EP_target"], r2["EP_target"])
    mailed = (r2["D_target"] == "mail").to_numpy()
    np.testing.assert_allclose(r2["IC_target"][mailed], other[mailed])
    # the leaf decision maximises the leaf's expected profit with leaf-averaged costs
    leaves = tree.apply(X)
    for leaf in np.unique(leaves):
        rows = leaves == leaf
        ep_mail = 20 * np.mean(y[rows] == "yes") - c[rows].mean()
        want = "mail" if ep_mail >= 0 else "skip"
        assert set(r1["D_target"][rows]) == {want}


def engine_part(summary):
    """The summary without the tree's label counts of its categorical inputs."""
    return summary.drop(summary.filter(regex="^n_(unseen|missing)_").index)


def test_without_case_costs_decide_equals_engine_on_posteriors():
    rng = np.random.default_rng(1)
    X, _, _ = random_case(rng, 200)
    y = rng.choice(["p", "q", "r"], 200)
    m = DecisionMatrix(rng.normal(size=(3, 3)), levels=["p", "q", "r"],
                       decisions=["A", "B", "C"], priors=[0.2, 0.3, 0.5])
    tree = ProfitTreeClassifier(decision_matrix=m, max_depth=3).fit(X, y)
    ours = tree.decide(X, y)
    engine = decide(tree.predict_proba(X), m, y=y)
    assert_same_as_engine(ours, engine)


def test_loss_matrix_outputs_loss_columns():
    rng = np.random.default_rng(2)
    X, y, _ = random_case(rng, 120)
    m = DecisionMatrix([[0.0, 5.0], [1.0, 0.0]], levels=["yes", "no"],
                       decisions=["act", "wait"], kind="loss")
    tree = ProfitTreeClassifier(decision_matrix=m, max_depth=2).fit(X, y)
    res = tree.decide(X, y)
    assert list(res.cases.columns) == ["D_target", "EL_target", "CL_target", "BL_target"]
    assert (res.cases["EL_target"] >= 0).all()
    engine = decide(tree.predict_proba(X), m, y=y)
    pd.testing.assert_series_equal(engine_part(res.summary), engine.summary,
                                   check_exact=False)


def interval_stump():
    """A revenue-interval stump on one feature, with a per-case cost of investing."""
    X = np.array([[0.0], [0.0], [1.0], [1.0]])
    y = np.array([2.0, 6.0, 20.0, 30.0])
    m = DecisionMatrix({"invest": [-10.0, 30.0], "wait": [0.0, 0.0]}, knots=[0.0, 10.0],
                       kind="revenue", costs={"invest": "c"})
    c = np.array([1.0, 3.0, 50.0, 60.0])
    reg = ProfitTreeRegressor(decision_matrix=m, **STUMP).fit(X, y, costs={"c": c})
    return X, y, c, reg


def test_interval_decide_by_hand():
    X, y, c, reg = interval_stump()
    np.testing.assert_allclose(reg.predict(X), [4.0, 4.0, 25.0, 25.0])
    res = reg.decide(X, y, costs={"c": c})
    # left: P=4 -> L = -10 + 16 = 6, average cost 2 -> EP 4 (invest)
    # right: P=25 -> L = 90, average cost 55 -> EP 35 (invest)
    np.testing.assert_allclose(res.cases["EP_target"], [4.0, 4.0, 35.0, 35.0])
    # CP = L(Y) - own cost: L(2) = -2, L(6) = 14, L(20) = 70, L(30) = 110
    np.testing.assert_allclose(res.cases["CP_target"], [-3.0, 11.0, 20.0, 50.0])
    assert res.summary["total_profit"] == pytest.approx(78.0)


def test_interval_without_costs_equals_engine():
    rng = np.random.default_rng(3)
    X = rng.uniform(0, 10, size=(150, 2))
    y = 3 * X[:, 0] + rng.normal(size=150)
    m = DecisionMatrix({"invest": [-20.0, 40.0], "wait": [0.0, 0.0], "half": [-5, 15]},
                       knots=[0.0, 30.0])
    reg = ProfitTreeRegressor(decision_matrix=m, max_depth=3).fit(X, y)
    ours = reg.decide(X, y)
    engine = decide(reg.predict(X), m, y=y)
    assert_same_as_engine(ours, engine)


def test_case_specific_consequences():
    X, y, _ = stump_data()
    yb = (y == "yes").astype(int)
    rng = np.random.default_rng(4)
    cost_mat = rng.uniform(0, 5, size=(5, 4))  # C_FP, C_FN, C_TP, C_TN
    m = DecisionMatrix.case_specific(levels=[0, 1], decisions=["predict 1", "predict 0"],
                                     kind="loss")
    tree = ProfitTreeClassifier(decision_matrix=m, **STUMP).fit(X, yb, costs=cost_mat)
    res = tree.decide(X, yb, costs=cost_mat)
    q = m.resolve(cost_mat, n_samples=5).case_q  # profit orientation
    leaves = tree.apply(X)
    for leaf in np.unique(leaves):
        rows = np.flatnonzero(leaves == leaf)
        train_profit = q[rows, yb[rows]].sum(axis=0)  # (D,)
        want = int(np.argmax(train_profit))
        assert set(res.cases["D_target"][rows]) == {m.decisions[want]}
        np.testing.assert_allclose(res.cases["EL_target"][rows], -train_profit[want] / len(rows))
    own = -q[np.arange(5), yb, [m.decisions.index(d) for d in res.cases["D_target"]]]
    np.testing.assert_allclose(res.cases["CL_target"], own)


def test_decide_needs_a_matrix():
    X, y, _ = stump_data()
    tree = ProfitTreeClassifier(**STUMP).fit(X, y)
    with pytest.raises(ValueError, match="decision_matrix"):
        tree.decide(X, y)
    with pytest.raises(ValueError, match="decision_matrix"):
        tree.predict_decision(X)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**31 - 1))
def test_a_per_case_constant_added_to_all_costs_never_changes_decisions(seed):
    rng = np.random.default_rng(seed)
    X, y, c = random_case(rng, 90)
    m = DecisionMatrix({"call": [25.0, 0.0], "mail": [8.0, 0.0], "skip": [0.0, 0.0]},
                       levels=["yes", "no"], kind="revenue",
                       costs={"call": "c1", "mail": "c2", "skip": "c3"})
    costs = {"c1": c, "c2": c / 4, "c3": np.zeros(90)}
    shift = rng.uniform(-5, 5, 90)
    shifted = {k: v + shift for k, v in costs.items()}
    a = ProfitTreeClassifier(decision_matrix=m, max_depth=3).fit(X, y, costs=costs)
    b = ProfitTreeClassifier(decision_matrix=m, max_depth=3).fit(X, y, costs=shifted)
    assert a.tree_.feature.tolist() == b.tree_.feature.tolist()  # growing ignores costs
    np.testing.assert_array_equal(a.tree_.node_decision, b.tree_.node_decision)


def test_frequencies_weight_the_summary_like_the_engine():
    rng = np.random.default_rng(7)
    X, y, _ = random_case(rng, 150)
    F = rng.integers(1, 5, 150).astype(float)
    m = DecisionMatrix([[4.0, 0.0], [-1.0, 0.0]], levels=["yes", "no"],
                       decisions=["act", "wait"])
    tree = ProfitTreeClassifier(decision_matrix=m, max_depth=3).fit(X, y, sample_weight=F)
    ours = tree.decide(X, y, sample_weight=F).summary
    engine = decide(tree.predict_proba(X), m, y=y, sample_weight=F).summary
    pd.testing.assert_series_equal(engine_part(ours), engine, check_exact=False)
    assert ours["frequency"] == F.sum()


def test_misaligned_pandas_inputs_raise():
    X, y, c = stump_data()
    costs = pd.DataFrame({"c": c}, index=X.index + 100)
    with pytest.raises(ValueError, match="costs has an index that differs"):
        ProfitTreeClassifier(decision_matrix=MAIL, **STUMP).fit(X, y, costs=costs)
    tree = ProfitTreeClassifier(decision_matrix=MAIL, **STUMP).fit(X, y, costs={"c": c})
    with pytest.raises(ValueError, match="y has an index that differs"):
        tree.decide(X, pd.Series(y, index=X.index[::-1]), costs={"c": c})


def test_identity_profit_is_accuracy_and_zero_one_loss_is_error_rate():
    rng = np.random.default_rng(8)
    X, _, _ = random_case(rng, 200)
    y = rng.choice(["p", "q", "r"], 200)
    levels = ["p", "q", "r"]
    ident = DecisionMatrix(np.eye(3), levels=levels, decisions=levels)
    tree = ProfitTreeClassifier(decision_matrix=ident, max_depth=3).fit(X, y)
    res = tree.decide(X, y)
    assert res.summary["average_profit"] == pytest.approx(tree.score(X, y))
    zero_one = DecisionMatrix(1 - np.eye(3), levels=levels, decisions=levels, kind="loss")
    tree = ProfitTreeClassifier(decision_matrix=zero_one, max_depth=3).fit(X, y)
    res = tree.decide(X, y)
    assert res.summary["average_loss"] == pytest.approx(1 - tree.score(X, y))
    assert res.summary["misclassification_rate"] == pytest.approx(1 - tree.score(X, y))


def test_interval_case_specific_leaf_sum():
    from dtdecide.decision import interpolate_knots

    rng = np.random.default_rng(9)
    n = 120
    X = rng.uniform(0, 10, (n, 1))
    y = 2 * X[:, 0] + rng.normal(size=n)
    knots = [0.0, 10.0, 20.0]
    m = DecisionMatrix.case_specific(knots=knots, decisions=["a", "b"])
    Q = rng.normal(size=(n, 3, 2))
    reg = ProfitTreeRegressor(decision_matrix=m, max_depth=2).fit(X, y, costs=Q)
    res = reg.decide(X, y, costs=Q)
    leaves = reg.apply(X)
    for leaf in np.unique(leaves):
        rows = np.flatnonzero(leaves == leaf)
        P = y[rows].mean()
        # leaf sum of L(j, P, d) over the leaf's training cases, per unit weight
        A = np.mean([interpolate_knots(knots, Q[j], [P])[0] for j in rows], axis=0)
        np.testing.assert_allclose(reg.tree_.node_expected[leaf], A)
        assert set(res.cases["D_target"][rows]) == {m.decisions[int(np.argmax(A))]}
    own = np.array([interpolate_knots(knots, Q[j], [y[j]])[0] for j in range(n)])
    d = np.array([m.decisions.index(v) for v in res.cases["D_target"]])
    np.testing.assert_allclose(res.cases["CP_target"], own[np.arange(n), d])


# ------------------------------------------------------------- missing case costs
THREE = DecisionMatrix(
    {"call": [30.0, 0.0], "mail": [10.0, 0.0], "skip": [0.0, 0.0]},
    levels=["yes", "no"], kind="revenue", costs={"call": "c1", "mail": "c2"},
)


def three_decision_stump():
    """Left leaf (x=0) mails, right leaf (x=1) calls (see the hand computation)."""
    X, y, _ = stump_data()
    train = {"c1": [9.0, 9.0, 9.0, 6.0, 6.0], "c2": [1.0] * 5}
    # left: Post(yes) = 1/3 -> call 10 - 9 = 1, mail 10/3 - 1 = 7/3, skip 0 -> mail
    # right: Post(yes) = 1 -> call 30 - 6 = 24, mail 10 - 1 = 9, skip 0 -> call
    return ProfitTreeClassifier(decision_matrix=THREE, **STUMP).fit(X, y, costs=train)


def test_missing_cost_of_chosen_or_other_decision_by_hand():
    X, y, _ = stump_data()
    tree = three_decision_stump()
    nan = np.nan
    costs = {
        "c1": [nan, 3.0, 3.0, 4.0, 10.0],
        "c2": [2.0, nan, 0.5, nan, 2.0],
    }
    res = tree.decide(X, y, costs=costs)
    c = res.cases
    # the decision and expected profit never depend on the case's costs
    assert c["D_target"].tolist() == ["mail", "mail", "mail", "call", "call"]
    np.testing.assert_allclose(c["EP_target"], [7 / 3] * 3 + [24.0] * 2)
    # row 0: mail, its cost 2 known, call's missing -> IC, CP, ROI known; BP missing
    # row 1: mail, its cost missing -> IC, CP, BP, ROI missing
    # row 2: every cost known: CP = -0.5, BP = max(-3, -0.5, 0) = 0, ROI = -1
    # row 3: call, its cost 4 known, mail's missing: CP = 26, BP missing, ROI = 6.5
    # row 4: every cost known: CP = 20, BP = max(20, 8, 0) = 20, ROI = 2
    np.testing.assert_allclose(c["IC_target"], [2.0, nan, 0.5, 4.0, 10.0])
    np.testing.assert_allclose(c["CP_target"], [8.0, nan, -0.5, 26.0, 20.0])
    np.testing.assert_allclose(c["BP_target"], [nan, nan, 0.0, nan, 20.0])
    np.testing.assert_allclose(c["ROI_target"], [4.0, nan, -1.0, 6.5, 2.0])
    # summary: only rows 2 and 4 have every cost
    s = res.summary
    assert s["n_cases"] == 5 and s["n_missing"] == 3
    assert s["frequency"] == 2
    assert s["total_expected_profit"] == pytest.approx(7 / 3 + 24.0)
    assert s["average_expected_profit"] == pytest.approx((7 / 3 + 24.0) / 2)
    assert s["total_profit"] == pytest.approx(19.5)
    assert s["average_profit"] == pytest.approx(9.75)
    assert s["total_best_profit"] == pytest.approx(20.0)
    assert s["total_investment"] == pytest.approx(10.5)
    assert s["roi"] == pytest.approx(19.5 / 10.5)
    # misclassification needs no cost: every case (row 0 is 'yes' in a 'no' leaf)
    assert s["misclassification_rate"] == pytest.approx(1 / 5)
    # frequencies weight the same cases
    F = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    sw = tree.decide(X, y, costs=costs, sample_weight=F).summary
    assert sw["frequency"] == 8.0
    assert sw["total_profit"] == pytest.approx(3 * -0.5 + 5 * 20.0)
    assert sw["total_expected_profit"] == pytest.approx(3 * 7 / 3 + 5 * 24.0)
    assert sw["total_investment"] == pytest.approx(3 * 0.5 + 5 * 10.0)
    assert sw["misclassification_rate"] == pytest.approx(1 / 15)


def test_missing_costs_without_target():
    X, y, _ = stump_data()
    tree = three_decision_stump()
    res = tree.decide(X, costs={"c1": [np.nan, 3.0, 3.0, np.nan, 1.0],
                                "c2": [2.0, 2.0, np.nan, 1.0, 1.0]})
    assert list(res.cases.columns) == ["D_target", "EP_target", "IC_target"]
    np.testing.assert_allclose(res.cases["IC_target"], [2.0, 2.0, np.nan, np.nan, 1.0])
    s = res.summary
    assert s["n_missing"] == 3 and s["frequency"] == 2
    assert s["total_expected_profit"] == pytest.approx(7 / 3 + 24.0)
    assert s["total_investment"] == pytest.approx(3.0)


def test_no_costs_given_investment_known_for_decisions_without_cost_variable():
    X, y, _ = stump_data()
    m = DecisionMatrix(
        {"call": [30.0, 0.0], "mail": [10.0, 0.0], "skip": [0.0, 0.0]},
        levels=["yes", "no"], kind="revenue", costs={"call": "c1", "mail": 1.0},
    )
    tree = ProfitTreeClassifier(decision_matrix=m, **STUMP).fit(
        X, y, costs={"c1": [9.0, 9.0, 9.0, 6.0, 6.0]}
    )
    res = tree.decide(X)  # no costs: mail's constant is known, call's variable is not
    assert res.cases["D_target"].tolist() == ["mail"] * 3 + ["call"] * 2
    np.testing.assert_allclose(res.cases["IC_target"], [1.0, 1.0, 1.0, np.nan, np.nan])
    assert res.summary["n_missing"] == 0  # nothing given, nothing missing
    assert np.isnan(res.summary["total_investment"])  # but not every investment is known
    only_left = tree.decide(X.iloc[:3])
    assert only_left.summary["total_investment"] == 3.0


def slow_missing_reference(matrix, d_names, y, costs):
    """Row by row: IC, CP, BP, ROI of fixed decisions with possibly missing costs."""
    values = {d: dict(zip(matrix.levels, matrix.values[:, j]))
              for j, d in enumerate(matrix.decisions)}

    def cost(i, d):
        spec = matrix.costs.get(d)
        if spec is None:
            return 0.0
        return float(spec) if not isinstance(spec, str) else float(costs[spec][i])

    ic, cp, bp, roi = [], [], [], []
    for i, d in enumerate(d_names):
        own = cost(i, d)
        profit = values[d][y[i]] - own
        every = [values[e][y[i]] - cost(i, e) for e in matrix.decisions]
        ic.append(own)
        cp.append(profit)
        bp.append(max(every) if not any(np.isnan(every)) else np.nan)
        if np.isnan(own) or np.isnan(profit):
            roi.append(np.nan)
        elif own > 0:
            roi.append(profit / own)
        else:
            roi.append(np.inf if profit > 0 else -np.inf if profit < 0 else np.nan)
    return [np.array(v, dtype=float) for v in (ic, cp, bp, roi)]


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), hole=st.sampled_from([0.0, 0.1, 0.5, 1.0]))
def test_missing_costs_blank_only_what_needs_them(seed, hole):
    rng = np.random.default_rng(seed)
    n = 90
    X, y, c = random_case(rng, n)
    m = DecisionMatrix(
        {"call": [25.0, 0.0], "mail": [8.0, 0.0], "sms": [3.0, 0.0], "skip": [0.0, 0.0]},
        levels=["yes", "no"], kind="revenue",
        costs={"call": "c1", "mail": "c2", "sms": 0.5},
    )
    train = {"c1": c, "c2": c / 4}
    tree = ProfitTreeClassifier(decision_matrix=m, max_depth=3).fit(X, y, costs=train)
    score = {"c1": rng.choice([0.0, 2.0, 6.0], n), "c2": rng.choice([0.0, 1.0, 3.0], n)}
    holed = {k: np.where(rng.random(n) < hole, np.nan, v) for k, v in score.items()}
    F = rng.integers(1, 4, n).astype(float)
    full = tree.decide(X, y, costs=score, sample_weight=F)
    res = tree.decide(X, y, costs=holed, sample_weight=F)
    cases = res.cases
    pd.testing.assert_series_equal(cases["D_target"], full.cases["D_target"])
    pd.testing.assert_series_equal(cases["EP_target"], full.cases["EP_target"])
    ic, cp, bp, r = slow_missing_reference(m, cases["D_target"].tolist(), y, holed)
    np.testing.assert_allclose(cases["IC_target"], ic)
    np.testing.assert_allclose(cases["CP_target"], cp)
    np.testing.assert_allclose(cases["BP_target"], bp)
    np.testing.assert_allclose(cases["ROI_target"], r)
    # the summary is that of the cases with every cost, plus the count of the others
    ok = ~(np.isnan(holed["c1"]) | np.isnan(holed["c2"]))
    s = res.summary
    assert s["n_cases"] == n and s["n_missing"] == n - ok.sum()
    assert s["misclassification_rate"] == full.summary["misclassification_rate"]
    if ok.any():
        sub = tree.decide(X[ok], y[ok], costs={k: v[ok] for k, v in holed.items()},
                          sample_weight=F[ok]).summary
        keys = [k for k in sub.index if k not in ("n_cases", "n_missing",
                                                  "misclassification_rate")]
        pd.testing.assert_series_equal(s[keys], sub[keys], check_exact=False)
    else:
        assert s["frequency"] == 0 and s["total_profit"] == 0
        assert np.isnan(s["average_profit"]) and np.isnan(s["average_expected_profit"])


def test_missing_case_specific_consequences():
    X, y, _ = stump_data()
    yb = (y == "yes").astype(int)  # [1, 0, 0, 1, 1]
    rng = np.random.default_rng(5)
    cost_mat = rng.uniform(0, 5, size=(5, 4))  # C_FP, C_FN, C_TP, C_TN
    m = DecisionMatrix.case_specific(levels=[0, 1], decisions=["predict 1", "predict 0"],
                                     kind="loss")
    tree = ProfitTreeClassifier(decision_matrix=m, **STUMP).fit(X, yb, costs=cost_mat)
    full = tree.decide(X, yb, costs=cost_mat)
    d = [m.decisions.index(v) for v in full.cases["D_target"]]
    holed = cost_mat.copy()
    holed[3, 0] = np.nan  # row 3 is a 1: C_FP is not its actual level's consequence
    holed[4, 1 if d[4] == 0 else 2] = np.nan  # row 4 (a 1): the decision it did NOT take
    res = tree.decide(X, yb, costs=holed)
    pd.testing.assert_series_equal(res.cases["D_target"], full.cases["D_target"])
    pd.testing.assert_series_equal(res.cases["EL_target"], full.cases["EL_target"])
    cl, bl = res.cases["CL_target"].to_numpy(), res.cases["BL_target"].to_numpy()
    np.testing.assert_allclose(cl, full.cases["CL_target"])  # chosen ones all known
    np.testing.assert_allclose(bl[:4], full.cases["BL_target"][:4])
    assert np.isnan(bl[4])  # a decision's consequence at the actual level is missing
    assert res.summary["n_missing"] == 2
    sub = tree.decide(X.iloc[:3], yb[:3], costs=cost_mat[:3]).summary
    assert res.summary["total_loss"] == pytest.approx(sub["total_loss"])
    assert res.summary["frequency"] == 3


def test_interval_missing_cost_keeps_decision():
    X, y, c, reg = interval_stump()
    res = reg.decide(X, y, costs={"c": [np.nan, 3.0, 50.0, np.nan]})
    # as in test_interval_decide_by_hand: both leaves invest, EP 4 and 35
    assert res.cases["D_target"].tolist() == ["invest"] * 4
    np.testing.assert_allclose(res.cases["EP_target"], [4.0, 4.0, 35.0, 35.0])
    np.testing.assert_allclose(res.cases["CP_target"], [np.nan, 11.0, 20.0, np.nan])
    np.testing.assert_allclose(res.cases["BP_target"], [np.nan, 11.0, 20.0, np.nan])
    assert res.summary["total_profit"] == pytest.approx(31.0)
    assert res.summary["total_expected_profit"] == pytest.approx(39.0)
