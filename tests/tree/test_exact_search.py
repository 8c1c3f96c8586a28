"""search="exact": against a brute-force twin, never below greedy, downstream readers."""

import numpy as np
import pandas as pd
import pytest
from _exact_twin import Twin

from dtdecide import DecisionMatrix, ProfitTreeClassifier, ProfitTreeRegressor
from dtdecide.decision._kernels import encode_target
from dtdecide.export import export_rules, leaf_table, to_sql
from dtdecide.tree._estimator import _pruning
from dtdecide.tree._kernels._binning import Binner


def _twin(est, X, y, *, F=None, costs=None, cost_columns=None, all_subsets=False):
    m = est.decision_matrix_
    X_codes = est._encode_X(X)
    n = X_codes.shape[0]
    F = np.ones(n) if F is None else np.asarray(F, dtype=float)
    binner = Binner(max_bins=est.max_bins)
    Xb = binner.fit_transform(X_codes, est.is_categorical_, F)
    clf = hasattr(est, "classes_")
    target = encode_target(np.asarray(y), est.classes_) if clf else np.asarray(y, float)
    cons = None if m is None else m.resolve(costs, n_samples=n)
    return Twin(Xb, binner, matrix=m, cons=cons, target=target, F=F,
                n_classes=len(est.classes_) if clf else None, cost_columns=cost_columns,
                msl=est.min_samples_leaf, mss=est.min_samples_split, is_classifier=clf,
                all_subsets=all_subsets)


def _tree_objective(est):
    """Training objective of the fitted tree's leaves, from its node statistics."""
    t = est.tree_
    leaves = t.children_left < 0
    m = est.decision_matrix_
    if m is not None and m.n_decisions >= 2:
        risk, _ = _pruning.node_risk(est, measure="decision")
        return -float(risk[leaves].sum())
    if hasattr(est, "classes_"):
        return float(t.value[leaves].max(axis=1).sum())
    v = t.value[leaves]
    return -float((v[:, 2] - v[:, 1] ** 2 / v[:, 0]).sum())


def _data(seed, n=60, missing=True, n_classes=2):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "a": rng.integers(0, 6, n).astype(float),
        "b": rng.integers(0, 5, n).astype(float),
        "c": rng.integers(0, 4, n).astype(float),
    })
    if missing:
        X.loc[rng.random(n) < 0.15, "b"] = np.nan
    logit = np.where((X["a"] > 2) ^ (X["b"].fillna(0) > 1), 1.0, -1.0)
    u = rng.random(n)
    if n_classes == 2:
        y = np.where(u < 1 / (1 + np.exp(-logit)), "yes", "no")
    else:
        y = np.array(["lo", "mid", "hi"])[np.minimum((u * 3).astype(int) + (logit > 0), 2)]
    return X, y, rng


def _check(est, X, y, depth, **tw):
    twin = _twin(est, X, y, **tw)
    rows = np.arange(X.shape[0])
    expected = twin.best(rows, depth)
    assert est.search_profit_ == pytest.approx(expected, rel=1e-9, abs=1e-9)
    assert _tree_objective(est) == pytest.approx(expected, rel=1e-9, abs=1e-9)
    assert est.search_gap_ == 0.0
    assert est.get_depth() <= depth


PROFIT = DecisionMatrix({"call": [10.0, -2.0], "skip": [0.0, 0.0]}, levels=["yes", "no"])


@pytest.mark.parametrize("depth", [1, 2])
@pytest.mark.parametrize("case", [
    "accuracy", "profit", "loss", "revenue_costvar", "case_q", "cost_matrix", "priors",
    "priors_costvar", "three", "weights",
])
def test_classifier_matches_brute_force(case, depth):
    X, y, rng = _data(hash(case) % 1000, n_classes=3 if case == "three" else 2)
    n = X.shape[0]
    kw, fit_kw, tw = {}, {}, {}
    m = PROFIT
    if case == "accuracy":
        m = None
    elif case == "loss":
        m = DecisionMatrix({"call": [0.0, 3.0], "skip": [7.0, 0.0]}, levels=["yes", "no"],
                           kind="loss")
    elif case in ("revenue_costvar", "priors_costvar"):
        m = DecisionMatrix({"mail": [25.0, 0.0], "skip": [0.0, 0.0]}, levels=["yes", "no"],
                           kind="revenue", costs={"mail": "c"},
                           priors=[0.3, 0.7] if case == "priors_costvar" else None)
        c = rng.uniform(1, 12, n)
        fit_kw["costs"] = {"c": c}
        tw = dict(costs={"c": c}, cost_columns={"c": c})
    elif case == "case_q":
        m = DecisionMatrix.case_specific(levels=["yes", "no"], decisions=["call", "skip"])
        Q = np.zeros((n, 2, 2))
        Q[:, 0, 0] = rng.uniform(0, 20, n)
        Q[:, 1, 0] = -rng.uniform(0, 5, n)
        fit_kw["costs"] = Q
        tw = dict(costs=Q)
    elif case == "cost_matrix":
        cm = np.column_stack([rng.uniform(1, 4, n), rng.uniform(5, 30, n), np.ones(n),
                              np.zeros(n)])
        m = DecisionMatrix.from_cost_matrix(cm, levels=("yes", "no"))
    elif case == "priors":
        m = DecisionMatrix({"call": [10.0, -2.0], "skip": [0.0, 0.0]},
                           levels=["yes", "no"], priors=[0.2, 0.8])
    elif case == "three":
        m = DecisionMatrix({"low": [5, 1, -2], "mid": [0, 4, 1], "high": [-3, 0, 6]},
                           levels=["lo", "mid", "hi"])
    elif case == "weights":
        F = rng.integers(0, 4, n).astype(float)
        F[0] = 1.0
        fit_kw["sample_weight"] = F
        tw = dict(F=F)
    est = ProfitTreeClassifier(decision_matrix=m, search="exact", max_depth=depth,
                               min_samples_leaf=3, min_samples_split=8, **kw)
    est.fit(X, y, **fit_kw)
    _check(est, X, y, depth, **tw)


@pytest.mark.parametrize("case", ["sse", "interval", "interval_costvar", "interval_q"])
def test_regressor_matches_brute_force(case):
    X, _, rng = _data(7)
    n = X.shape[0]
    y = 3 * (X["a"] > 2) * (X["c"] > 1) + rng.normal(size=n)
    fit_kw, tw = {}, {}
    m = None
    if case == "interval":
        m = DecisionMatrix({"invest": [-6.0, 2.0, 9.0], "wait": [0.0, 0.0, 0.0]},
                           knots=[-2.0, 1.0, 4.0])
    elif case == "interval_costvar":
        m = DecisionMatrix({"invest": [-6.0, 9.0], "wait": [0.0, 0.0]}, knots=[-2.0, 4.0],
                           kind="revenue", costs={"invest": "c"})
        c = rng.uniform(0, 3, n)
        fit_kw["costs"] = {"c": c}
        tw = dict(costs={"c": c}, cost_columns={"c": c})
    elif case == "interval_q":
        m = DecisionMatrix.case_specific(knots=[-2.0, 4.0], decisions=["invest", "wait"])
        Q = np.zeros((n, 2, 2))
        Q[:, 0, 0] = -rng.uniform(2, 8, n)
        Q[:, 1, 0] = rng.uniform(4, 12, n)
        fit_kw["costs"] = Q
        tw = dict(costs=Q)
    est = ProfitTreeRegressor(decision_matrix=m, search="exact", max_depth=2,
                              min_samples_leaf=4, min_samples_split=10)
    est.fit(X, y, **fit_kw)
    _check(est, X, y, 2, **tw)


def test_categorical_all_subsets():
    """Binary target, constant matrix: category prefixes in rate order are exact."""
    rng = np.random.default_rng(3)
    n = 80
    X = pd.DataFrame({
        "job": pd.Categorical(rng.choice(list("abcdef"), n)),
        "x": rng.integers(0, 4, n).astype(float),
    })
    X.loc[rng.random(n) < 0.1, "job"] = np.nan
    good = X["job"].isin(["a", "c", "f"]).to_numpy() ^ (X["x"].to_numpy() > 1)
    y = np.where(rng.random(n) < np.where(good, 0.7, 0.1), "yes", "no")
    est = ProfitTreeClassifier(decision_matrix=PROFIT, search="exact", max_depth=2,
                               min_samples_leaf=1, min_samples_split=2).fit(X, y)
    _check(est, X, y, 2, all_subsets=True)


@pytest.mark.parametrize("matrix", [None, PROFIT])
def test_depth3_proven_optimal_matches_brute_force(matrix):
    rng = np.random.default_rng(11)
    n = 40
    X = pd.DataFrame({"a": rng.integers(0, 4, n).astype(float),
                      "b": rng.integers(0, 3, n).astype(float)})
    X.loc[rng.random(n) < 0.1, "a"] = np.nan
    y = np.where(rng.random(n) < 0.4, "yes", "no")
    est = ProfitTreeClassifier(decision_matrix=matrix, search="exact", max_depth=3,
                               min_samples_leaf=2, min_samples_split=4).fit(X, y)
    _check(est, X, y, 3)
    assert est.search_bound_ == pytest.approx(est.search_profit_)


def test_depth3_time_limit_gives_valid_bound():
    X, y, _ = _data(5, n=300)
    est = ProfitTreeClassifier(decision_matrix=PROFIT, search="exact", max_depth=3,
                               min_samples_leaf=5, time_limit=1e-6).fit(X, y)
    # the best tree found is at least the exact depth-2 tree, the bound at least as
    # large as the profit, and the gap their difference
    d2 = ProfitTreeClassifier(decision_matrix=PROFIT, search="exact", max_depth=2,
                              min_samples_leaf=5).fit(X, y)
    assert est.search_profit_ >= d2.search_profit_ - 1e-9
    assert est.search_bound_ >= est.search_profit_
    assert est.search_gap_ == pytest.approx(est.search_bound_ - est.search_profit_)
    assert _tree_objective(est) == pytest.approx(est.search_profit_)
    # per-row best decisions bound every tree
    q = np.where(y == "yes", 10.0, 0.0)
    assert est.search_bound_ <= q.sum() + 1e-9


def _xor_campaign(seed, n):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"age": rng.uniform(18, 72, n), "loan": rng.integers(0, 2, n),
                      "income": rng.normal(50, 10, n), "tenure": rng.uniform(0, 20, n)})
    young = X["age"] < 45
    pays = (young & (X["loan"] == 1)) | (~young & (X["loan"] == 0))
    # a weak main effect in income lures the greedy root away from the interaction
    p = np.where(pays, 0.3, 0.02) + 0.05 * (X["income"] > 55)
    y = np.where(rng.random(n) < p, "yes", "no")
    return X, y


def test_planted_interaction_exact_beats_greedy_widely():
    X, y = _xor_campaign(0, 4000)
    m = DecisionMatrix({"call": [20.0, -4.0], "skip": [0.0, 0.0]}, levels=["yes", "no"])
    kw = dict(decision_matrix=m, max_depth=2, min_samples_leaf=20)
    greedy = ProfitTreeClassifier(**kw).fit(X, y)
    exact = ProfitTreeClassifier(search="exact", **kw).fit(X, y)
    pg = greedy.decide(X, y).summary["total_profit"]
    pe = exact.decide(X, y).summary["total_profit"]
    assert pe == pytest.approx(exact.search_profit_)
    assert pe > 2.0 * pg
    assert {exact.feature_names_in_[f] for f in exact.tree_.feature if f >= 0} == {
        "age", "loan"}


try:
    from hypothesis import given, settings
    from hypothesis import strategies as st
except ImportError:  # pragma: no cover
    given = None


if given is not None:
    @settings(max_examples=25, deadline=None)
    @given(seed=st.integers(0, 10_000), depth=st.integers(1, 2),
           msl=st.integers(1, 6), weighted=st.booleans(),
           priors=st.sampled_from([None, (0.5, 0.5), (0.1, 0.9)]))
    def test_exact_never_below_greedy(seed, depth, msl, weighted, priors):
        X, y, rng = _data(seed, n=70)
        F = rng.integers(1, 4, X.shape[0]).astype(float) if weighted else None
        m = DecisionMatrix({"call": [float(rng.integers(2, 30)), -2.0],
                            "skip": [0.0, 0.0]}, levels=["yes", "no"], priors=priors)
        if priors is not None and not set(y) >= {"yes", "no"}:
            return
        kw = dict(decision_matrix=m, max_depth=depth, min_samples_leaf=msl,
                  min_samples_split=2 * msl)
        greedy = ProfitTreeClassifier(**kw).fit(X, y, sample_weight=F)
        exact = ProfitTreeClassifier(search="exact", **kw).fit(X, y, sample_weight=F)
        assert _tree_objective(exact) >= _tree_objective(greedy) - 1e-9 * (
            1 + abs(_tree_objective(greedy)))
        assert exact.search_profit_ == pytest.approx(_tree_objective(exact))


def test_downstream_readers_work_on_exact_trees(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from dtdecide import export

    X, y = _xor_campaign(1, 600)
    X.loc[X.index[:20], "income"] = np.nan
    m = DecisionMatrix({"call": [20.0, -4.0], "skip": [0.0, 0.0]}, levels=["yes", "no"])
    est = ProfitTreeClassifier(decision_matrix=m, search="exact", max_depth=2,
                               min_samples_leaf=10).fit(X, y)
    path = est.cost_complexity_pruning_path()
    assert path.n_leaves[0] == est.get_n_leaves() and path.n_leaves[-1] == 1
    assert est.prune(n_leaves=1).get_n_leaves() == 1
    table = leaf_table(est, X, y)
    assert len(table) == est.get_n_leaves()
    assert table["decision"].isin(["call", "skip"]).all()
    rules = export_rules(est)
    assert rules.count("THEN") == est.get_n_leaves()
    sql = to_sql(est, table="t")
    assert '"D_target"' in sql
    ax = export.plot_tree(est)
    assert ax is not None
    res = est.decide(X, y)
    assert res.summary["total_profit"] == pytest.approx(est.search_profit_)
    np.testing.assert_array_equal(est.predict_decision(X), res.cases["D_target"].astype(str))
    # the decision path routes the training rows the way the search split them
    leaves = est.apply(X)
    assert np.bincount(leaves, minlength=est.tree_.n_nodes)[est.tree_.children_left < 0].tolist() \
        == est.tree_.n_node_samples[est.tree_.children_left < 0].tolist()


@pytest.mark.parametrize("kw, match", [
    (dict(max_depth=None), "max_depth"),
    (dict(max_leaf_nodes=4), "max_leaf_nodes"),
    (dict(min_impurity_decrease=0.1), "min_impurity_decrease"),
    (dict(search="optimal"), "search"),
    (dict(time_limit=0), "time_limit"),
])
def test_bad_parameters(kw, match):
    X, y, _ = _data(0, n=30)
    with pytest.raises(ValueError, match=match):
        ProfitTreeClassifier(decision_matrix=PROFIT, **{"search": "exact", **kw}).fit(X, y)


@pytest.mark.parametrize("case", ["pure", "one_decision", "tiny", "constant_x", "sse_d3"])
def test_edge_cases(case):
    rng = np.random.default_rng(12)
    n = 50
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.integers(0, 3, n).astype(float)})
    y = np.where(rng.random(n) < 0.4, "yes", "no")
    m, depth, est_cls = PROFIT, 2, ProfitTreeClassifier
    if case == "pure":
        y = np.full(n, "no")
    elif case == "one_decision":
        m = DecisionMatrix({"call": [10.0, -2.0]}, levels=["yes", "no"])
    elif case == "tiny":
        X, y = X.iloc[:3], y[:3]
    elif case == "constant_x":
        X = pd.DataFrame({"a": np.ones(n)})
    elif case == "sse_d3":
        m, depth, est_cls = None, 3, ProfitTreeRegressor
        y = X["a"].to_numpy() * (X["b"] > 0) + rng.normal(scale=0.1, size=n)
    est = est_cls(decision_matrix=m, search="exact", max_depth=depth, min_samples_leaf=3,
                  min_samples_split=6).fit(X, y)
    assert est.search_gap_ >= 0
    assert est.search_bound_ >= est.search_profit_
    assert _tree_objective(est) == pytest.approx(est.search_profit_, rel=1e-9, abs=1e-9)
    if case in ("pure", "tiny", "constant_x"):
        assert est.get_n_leaves() == 1


from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402


@parametrize_with_checks(
    [ProfitTreeClassifier(search="exact", max_depth=2),
     ProfitTreeRegressor(search="exact", max_depth=2)],
    expected_failed_checks=lambda est: {
        "check_sample_weight_equivalence_on_dense_data":
            "min_samples_leaf/min_samples_split count rows, not frequencies"},
)
def test_exact_is_sklearn_compatible(estimator, check):
    check(estimator)
