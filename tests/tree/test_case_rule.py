"""decision_rule="case": each case decides from its leaf's posteriors and its own costs."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from dtdecide import (
    DecisionMatrix,
    ProfitTreeClassifier,
    ProfitTreeRegressor,
    PruningStudy,
    decide,
    make_profit_scorer,
    select_subtree,
)


def _bank_like(n, seed):
    """Calls with a heavy-tailed per-client cost: the best decision differs by client."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.uniform(0, 1, n),
                      "job": rng.choice(["admin", "tech", "retired"], n)})
    p = 1 / (1 + np.exp(-(1.5 * X["a"] - 1 + (X["job"] == "retired"))))
    y = np.where(rng.random(n) < p, "yes", "no")
    costs = pd.DataFrame({"c": rng.lognormal(1.5, 1.0, n)})
    return X, y, costs


MATRIX = DecisionMatrix({"call": [30.0, 0.0], "skip": [0.0, 0.0]}, levels=["yes", "no"],
                        kind="revenue", costs={"call": "c"})


def _case_q(y_levels, n, seed):
    """Case-specific consequences: a subscriber is worth a share of a balance."""
    rng = np.random.default_rng(seed)
    balance = rng.lognormal(4, 1, n)
    call = 3.0 + rng.random(n)
    Q = np.zeros((n, 2, 3))
    Q[:, 0, 0] = 0.2 * balance - call  # call, yes
    Q[:, 1, 0] = -call  # call, no
    Q[:, 0, 1] = 0.1 * balance - 0.3 * call  # mail, yes
    Q[:, 1, 1] = -0.3 * call
    return Q


@pytest.mark.parametrize("priors", [None, [0.3, 0.7]])
def test_case_rule_is_decide_on_leaf_posteriors(priors):
    X, y, costs = _bank_like(500, 0)
    m = MATRIX.replace(priors=priors) if priors is not None else MATRIX
    tree = ProfitTreeClassifier(decision_matrix=m, decision_rule="case", max_depth=4,
                                random_state=0).fit(X, y, costs=costs)
    Xn, yn, cn = _bank_like(300, 1)
    res = tree.decide(Xn, yn, costs=cn)
    ref = decide(tree.predict_proba(Xn), m, y=yn, costs=cn)
    pd.testing.assert_frame_equal(res.cases, ref.cases)
    pd.testing.assert_series_equal(res.summary, ref.summary)
    # row by row: the argmax of the case's own expected profits
    post = tree.predict_proba(Xn)
    A = np.column_stack([post @ np.array([30.0, 0.0]) - cn["c"].to_numpy(),
                         np.zeros(len(Xn))])
    names = np.array(["call", "skip"], dtype=object)[np.argmax(A, axis=1)]
    assert tree.predict_decision(Xn, costs=cn).tolist() == names.tolist()
    # and it differs from the leaf rule (one decision per leaf) on such costs
    leaf = ProfitTreeClassifier(decision_matrix=m, max_depth=4, random_state=0).fit(
        X, y, costs=costs)
    assert not np.array_equal(leaf.predict_decision(Xn), names)
    assert res.summary["total_profit"] > leaf.decide(Xn, yn, costs=cn).summary["total_profit"]


def test_case_rule_case_specific_and_cost_columns_in_x():
    X, y, _ = _bank_like(400, 2)
    Q = _case_q(y, 400, 3)
    m = DecisionMatrix.case_specific(levels=["yes", "no"], decisions=["call", "mail", "skip"])
    tree = ProfitTreeClassifier(decision_matrix=m, decision_rule="case", max_depth=3).fit(
        X, y, costs=Q)
    res = tree.decide(X, y, costs=Q)
    ref = decide(tree.predict_proba(X), m, y=y, costs=Q)
    pd.testing.assert_frame_equal(res.cases, ref.cases)
    # cost columns kept in X are the case's own costs
    Xc, yc, cc = _bank_like(200, 4)
    tree2 = ProfitTreeClassifier(decision_matrix=MATRIX, decision_rule="case",
                                 max_depth=3).fit(Xc.assign(c=cc["c"]), yc)
    a = tree2.decide(Xc.assign(c=cc["c"]), yc).cases
    b = tree2.decide(Xc, yc, costs=cc).cases
    pd.testing.assert_frame_equal(a, b)


def test_case_rule_regressor_uses_the_leaf_prediction_and_own_costs():
    rng = np.random.default_rng(5)
    X = rng.uniform(0, 10, size=(300, 2))
    y = 3 * X[:, 0] + rng.normal(size=300)
    c = {"c": rng.lognormal(2, 1, 300)}
    m = DecisionMatrix({"invest": [0, 40], "wait": [0, 0]}, knots=[0, 30], kind="revenue",
                       costs={"invest": "c"})
    reg = ProfitTreeRegressor(decision_matrix=m, decision_rule="case", max_depth=3).fit(
        X, y, costs=c)
    res = reg.decide(X, y, costs=c)
    ref = decide(reg.predict(X), m, y=y, costs=c)
    pd.testing.assert_frame_equal(res.cases, ref.cases)


def test_case_rule_needs_costs_and_a_matrix():
    X, y, costs = _bank_like(200, 6)
    tree = ProfitTreeClassifier(decision_matrix=MATRIX, decision_rule="case",
                                max_depth=2).fit(X, y, costs=costs)
    with pytest.raises(ValueError, match="costs"):
        tree.decide(X)
    with pytest.raises(ValueError, match="costs"):
        tree.predict_decision(X)
    with pytest.raises(ValueError, match="decision_matrix"):
        ProfitTreeClassifier(decision_rule="case").fit(X[["a"]], y)
    with pytest.raises(ValueError, match="decision_rule"):
        ProfitTreeClassifier(decision_matrix=MATRIX, decision_rule="each").fit(
            X, y, costs=costs)


def test_case_rule_missing_cost_cannot_decide():
    X, y, costs = _bank_like(200, 7)
    tree = ProfitTreeClassifier(decision_matrix=MATRIX, decision_rule="case",
                                max_depth=2).fit(X, y, costs=costs)
    c = costs.copy()
    c.loc[[0, 3], "c"] = np.nan
    res = tree.decide(X, y, costs=c)
    D = res.cases["D_target"]
    assert D.isna().tolist()[:4] == [True, False, False, True]
    assert np.isnan(res.cases["EP_target"].iloc[0])
    assert res.summary["n_missing"] == 2
    ok = ~c["c"].isna().to_numpy()
    full = tree.decide(X[ok], y[ok], costs=c[ok])
    assert res.summary["total_profit"] == pytest.approx(full.summary["total_profit"])
    pred = tree.predict_decision(X, costs=c)
    assert pred[0] is None and pred[1] in ("call", "skip")


# ------------------------------------------------------------------- pruning
def _prunings(tree, v=0):
    """Every pruning of the subtree at ``v``: sets of nodes that become leaves."""
    if tree.children_left[v] < 0:
        return [frozenset([v])]
    out = [frozenset([v])]
    for a in _prunings(tree, tree.children_left[v]):
        for b in _prunings(tree, tree.children_right[v]):
            out.append(a | b)
    return out


def _leaf_in(tree, leaves_set, leaf_of_row):
    """The node of each row among ``leaves_set`` (the first on its path from the root)."""
    out = np.empty_like(leaf_of_row)
    for i, v in enumerate(leaf_of_row):
        path = [v]
        while tree.parent[path[-1]] >= 0:
            path.append(tree.parent[path[-1]])
        out[i] = next(u for u in reversed(path) if u in leaves_set)
    return out


@pytest.mark.parametrize("priors, smoothing", [(None, 0.0), ([0.4, 0.6], 0.0), (None, 15.0),
                                               ([0.4, 0.6], 15.0)])
def test_case_rule_pruning_matches_brute_force_enumeration(priors, smoothing):
    X, y, costs = _bank_like(240, 8)
    m = MATRIX.replace(priors=priors) if priors is not None else MATRIX
    tree = ProfitTreeClassifier(decision_matrix=m, decision_rule="case", max_leaf_nodes=6,
                                min_samples_leaf=8, posterior_smoothing=smoothing,
                                random_state=0).fit(X, y, costs=costs)
    t = tree.tree_
    assert 4 <= t.n_leaves <= 6
    post = tree.node_posteriors_
    leaf_of_row = tree.apply(X)
    key = "adjusted_total_profit" if priors is not None else "total_profit"
    if priors is not None:  # the adjusted total is a mean times the training weight
        def profit(P):
            return decide(P, m, y=y, costs=costs).summary["adjusted_average_profit"] * len(y)
    else:
        def profit(P):
            return decide(P, m, y=y, costs=costs).summary[key]
    risks = {}
    for leaves_set in _prunings(t):
        nodes = _leaf_in(t, leaves_set, leaf_of_row)
        risks[leaves_set] = (-profit(post[nodes]), len(leaves_set))
    path = tree.cost_complexity_pruning_path()
    scale = max(abs(r) for r, _ in risks.values())
    for k in range(path.n_subtrees):
        pruned = tree.prune(subtree_index=k)
        # the training profit of subtree k is the brute-force case-rule profit
        total = -profit(pruned.predict_proba(X))
        assert path.train_total[k] == pytest.approx(-total, rel=1e-9, abs=1e-9 * scale)
        # and it minimises R + alpha |leaves| over all prunings on its alpha range
        hi = path.ccp_alphas[k + 1] if k + 1 < path.n_subtrees else path.ccp_alphas[k] + 10
        for alpha in (path.ccp_alphas[k], 0.5 * (path.ccp_alphas[k] + hi)):
            best = min(r + alpha * n for r, n in risks.values())
            assert total + alpha * path.n_leaves[k] == pytest.approx(best, abs=1e-7 * scale)


def test_case_rule_prunes_differently_from_the_leaf_rule():
    X, y, costs = _bank_like(600, 9)
    kw = dict(decision_matrix=MATRIX, max_depth=5, random_state=0)
    leaf = ProfitTreeClassifier(**kw).fit(X, y, costs=costs)
    case = ProfitTreeClassifier(decision_rule="case", **kw).fit(X, y, costs=costs)
    # same grown tree, different risks: a split can add case-rule profit without
    # changing any leaf decision
    assert leaf.tree_.n_nodes == case.tree_.n_nodes
    p_leaf = leaf.cost_complexity_pruning_path()
    p_case = case.cost_complexity_pruning_path()
    assert p_case.train_total[0] > p_leaf.train_total[0]
    assert p_case.train_total[-1] >= p_leaf.train_total[-1]


def test_case_rule_study_matches_decide_on_each_subtree():
    X, y, costs = _bank_like(500, 10)
    Xv, yv, cv = _bank_like(300, 11)
    tree = ProfitTreeClassifier(decision_matrix=MATRIX, decision_rule="case", max_depth=4,
                                random_state=0).fit(X, y, costs=costs)
    study = PruningStudy(tree).fit(Xv, yv, costs_valid=cv)
    for k, row in study.results_.iterrows():
        res = tree.prune(subtree_index=k).decide(Xv, yv, costs=cv)
        assert row["valid_measure"] == pytest.approx(res.summary["average_profit"])
    best = select_subtree(tree, Xv, yv, costs_valid=cv)
    assert best.get_n_leaves() == study.selected_n_leaves_
    assert best.decision_rule == "case"


def test_case_rule_cross_validation_runs_under_the_rule():
    X, y, costs = _bank_like(400, 12)
    kw = dict(decision_matrix=MATRIX, max_depth=4, random_state=0)
    out = {}
    for rule in ("leaf", "case"):
        tree = ProfitTreeClassifier(decision_rule=rule, **kw).fit(X, y, costs=costs)
        study = PruningStudy(tree, cv=3, random_state=0).fit(
            X_train=X, y_train=y, costs_train=costs)
        out[rule] = study.results_["cv_mean"].to_numpy()
        assert np.isfinite(out[rule]).all()
    assert out["case"].max() > out["leaf"].max()


def test_case_rule_scorer_and_grid_search():
    import sklearn
    from sklearn.model_selection import GridSearchCV

    X, y, costs = _bank_like(400, 13)
    scorer = make_profit_scorer(MATRIX)
    tree = ProfitTreeClassifier(decision_matrix=MATRIX, decision_rule="case", max_depth=3,
                                random_state=0).fit(X, y, costs=costs)
    s = scorer(tree, X, y, costs=costs)
    assert s == pytest.approx(tree.decide(X, y, costs=costs).summary["average_profit"])
    with sklearn.config_context(enable_metadata_routing=True):
        sc = make_profit_scorer(MATRIX).set_score_request(costs=True)
        est = ProfitTreeClassifier(decision_matrix=MATRIX, max_depth=3, random_state=0)
        est.set_fit_request(costs=True)
        grid = GridSearchCV(est, {"decision_rule": ["leaf", "case"]}, scoring=sc, cv=3)
        grid.fit(X, y, costs=costs)
    scores = grid.cv_results_["mean_test_score"]
    assert grid.best_params_ == {"decision_rule": "case"}
    assert scores[1] > scores[0]


def test_case_rule_pruning_refuses_a_changed_matrix():
    from dtdecide.assess import redecide

    X, y, costs = _bank_like(200, 14)
    tree = ProfitTreeClassifier(decision_matrix=MATRIX, decision_rule="case",
                                max_depth=3).fit(X, y, costs=costs)
    dear = DecisionMatrix({"call": [20.0, 0.0], "skip": [0.0, 0.0]}, levels=["yes", "no"],
                          kind="revenue", costs={"call": "c"})
    other = redecide(tree, dear)
    res = other.decide(X, y, costs=costs)
    ref = decide(other.predict_proba(X), dear, y=y, costs=costs)
    pd.testing.assert_frame_equal(res.cases, ref.cases)
    with pytest.raises(ValueError, match="refit"):
        other.cost_complexity_pruning_path()


def test_case_rule_tree_round_trips_through_the_native_format(tmp_path):
    from dtdecide.export import load, save

    X, y, costs = _bank_like(200, 15)
    tree = ProfitTreeClassifier(decision_matrix=MATRIX, decision_rule="case",
                                max_depth=3).fit(X, y, costs=costs)
    save(tree, tmp_path / "t.dtdecide")
    back = load(tmp_path / "t.dtdecide")
    assert back.decision_rule == "case"
    pd.testing.assert_frame_equal(back.decide(X, y, costs=costs).cases,
                                  tree.decide(X, y, costs=costs).cases)
    np.testing.assert_array_equal(back.cost_complexity_pruning_path().train_total,
                                  tree.cost_complexity_pruning_path().train_total)


def test_case_rule_regressor_pruning_path_is_the_case_rule_training_profit():
    rng = np.random.default_rng(16)
    X = rng.uniform(0, 10, size=(400, 2))
    y = 3 * X[:, 0] + rng.normal(scale=3, size=400)
    c = {"c": rng.lognormal(2, 1, 400)}
    m = DecisionMatrix({"invest": [0, 40], "hold": [0, 10], "wait": [0, 0]}, knots=[0, 30],
                       kind="revenue", costs={"invest": "c"})
    reg = ProfitTreeRegressor(decision_matrix=m, decision_rule="case", max_depth=3,
                              min_samples_leaf=10).fit(X, y, costs=c)
    path = reg.cost_complexity_pruning_path()
    assert path.n_subtrees >= 3
    for k in range(path.n_subtrees):
        res = reg.prune(subtree_index=k).decide(X, y, costs=c)
        assert path.train_total[k] == pytest.approx(res.summary["total_profit"], rel=1e-9)


# ------------------------------------------------------------------ posterior smoothing
def _smooth_slow(tree, m):
    """Recursive m-estimate: the obvious twin of ``_leaf.smooth_posteriors``."""
    value = np.asarray(tree.value, dtype=float)
    out = {}

    def visit(v, up):
        n = value[v].sum()
        own = value[v] / n if n > 0 else up
        out[v] = own if up is None else (n * own + m * up) / (n + m)
        for c in (tree.children_left[v], tree.children_right[v]):
            if c >= 0:
                visit(c, out[v])

    visit(0, None)
    return np.array([out[v] for v in range(tree.n_nodes)])


def test_posterior_smoothing_is_the_recursive_m_estimate_and_survives_pruning():
    X, y, costs = _bank_like(800, 12)
    raw = ProfitTreeClassifier(decision_matrix=MATRIX, decision_rule="case", max_depth=5,
                               posterior_smoothing=0, random_state=0).fit(X, y, costs=costs)
    tree = clone(raw).set_params(posterior_smoothing=25.0).fit(X, y, costs=costs)
    assert raw.tree_.n_nodes == tree.tree_.n_nodes  # growing does not change
    np.testing.assert_allclose(tree.node_posteriors_, _smooth_slow(tree.tree_, 25.0),
                               rtol=1e-12)
    leaves = tree.apply(X)
    np.testing.assert_allclose(tree.predict_proba(X), _smooth_slow(tree.tree_, 25.0)[leaves])
    # a small leaf moves toward its parent more than the root's children do
    n = tree.tree_.value.sum(axis=1)
    shift = np.abs(tree.node_posteriors_ - raw.node_posteriors_)[:, 0]
    small = (tree.tree_.children_left < 0) & (n < 30)
    assert small.any() and shift[small].max() > 0.01
    assert shift[0] == 0.0
    # a node's smoothed posterior depends on its ancestors only: pruning keeps it
    sub = tree.prune(subtree_index=len(tree.cost_complexity_pruning_path().n_leaves) // 2)
    full_of_sub = tree.apply(X)
    ids = sub.apply(X)
    for leaf in np.unique(ids):
        rows = np.flatnonzero(ids == leaf)
        # the node of the full tree that became this leaf: the common ancestor of its rows
        paths = tree.decision_path(X.iloc[rows[:50]]).toarray().all(axis=0)
        node = np.flatnonzero(paths)[-1]
        np.testing.assert_allclose(sub.predict_proba(X.iloc[rows[:1]])[0],
                                   tree.node_posteriors_[node], rtol=1e-12)
    assert full_of_sub.shape == ids.shape
    # decisions are decide() on the smoothed posteriors
    Xn, yn, cn = _bank_like(300, 13)
    res = tree.decide(Xn, yn, costs=cn)
    ref = decide(tree.predict_proba(Xn), MATRIX, y=yn, costs=cn)
    pd.testing.assert_frame_equal(res.cases, ref.cases)


def test_posterior_smoothing_checks():
    X, y, costs = _bank_like(200, 14)
    with pytest.raises(ValueError, match="posterior_smoothing=5.*decision_matrix"):
        ProfitTreeClassifier(posterior_smoothing=5).fit(X, y)
    with pytest.raises(ValueError, match="posterior_smoothing"):
        ProfitTreeClassifier(decision_matrix=MATRIX, decision_rule="case",
                             posterior_smoothing=-1.0).fit(X, y, costs=costs)


def test_posterior_smoothing_auto_is_ten_over_the_rarer_share():
    X, y, costs = _bank_like(600, 15)
    tree = ProfitTreeClassifier(decision_matrix=MATRIX, decision_rule="case", max_depth=3,
                                posterior_smoothing="auto").fit(X, y, costs=costs)
    share = min(np.mean(y == "yes"), np.mean(y == "no"))
    assert tree.posterior_smoothing_ == pytest.approx(10.0 / share)
    np.testing.assert_allclose(tree.node_posteriors_,
                               _smooth_slow(tree.tree_, tree.posterior_smoothing_))
    with_priors = clone(tree).set_params(decision_matrix=MATRIX.replace(priors=[0.05, 0.95]))
    assert with_priors.fit(X, y, costs=costs).posterior_smoothing_ == pytest.approx(200.0)
    # the default (None) is "auto" under the case rule and no smoothing under the leaf rule
    default = ProfitTreeClassifier(decision_matrix=MATRIX, decision_rule="case",
                                   max_depth=3).fit(X, y, costs=costs)
    assert default.posterior_smoothing_ == tree.posterior_smoothing_
    np.testing.assert_array_equal(default.node_posteriors_, tree.node_posteriors_)
    leaf = ProfitTreeClassifier(decision_matrix=MATRIX, max_depth=3).fit(X, y, costs=costs)
    assert leaf.posterior_smoothing_ == 0.0


def test_exact_search_refuses_the_case_rule():
    X, y, costs = _bank_like(200, 16)
    with pytest.raises(ValueError, match='search="exact".*decision_rule="case"'):
        ProfitTreeClassifier(decision_matrix=MATRIX, decision_rule="case", search="exact",
                             max_depth=2).fit(X, y, costs=costs)


def test_case_rule_pruning_on_the_tree_structure_takes_the_case_profits():
    """The tree-level pruning functions give the estimator's case-rule path when handed
    the nodes' case-rule profits, and the leaf-rule path without them."""
    from dtdecide.tree._algorithms._pruning import prune_tree, tree_pruning_path

    X, y, costs = _bank_like(400, 3)
    kw = dict(decision_matrix=MATRIX, max_depth=4, random_state=0)
    case = ProfitTreeClassifier(decision_rule="case", **kw).fit(X, y, costs=costs)
    leaf = ProfitTreeClassifier(**kw).fit(X, y, costs=costs)
    inputs = dict(matrix=case.decision_matrix_, classes=case.classes_)
    profit = case._case_node_profit(case.tree_)
    on_tree = tree_pruning_path(case.tree_, case_profit=profit, **inputs)
    np.testing.assert_array_equal(on_tree.train_total,
                                  case.cost_complexity_pruning_path().train_total)
    np.testing.assert_array_equal(tree_pruning_path(case.tree_, **inputs).train_total,
                                  leaf.cost_complexity_pruning_path().train_total)
    alpha = float(on_tree.ccp_alphas[len(on_tree.ccp_alphas) // 2])
    assert (prune_tree(case.tree_, alpha, case_profit=profit, **inputs).n_leaves
            == case.prune(ccp_alpha=alpha).tree_.n_leaves)


@pytest.mark.parametrize("rule, expected", [("leaf", "profit"), ("case", "gini")])
def test_profit_criterion_grows_on_money_under_the_leaf_rule_only(rule, expected):
    """Under the case rule the split search estimates posteriors (the class Gini)."""
    X, y, costs = _bank_like(800, 17)
    kw = dict(decision_matrix=MATRIX, decision_rule=rule, max_depth=4, random_state=0)
    profit = ProfitTreeClassifier(criterion="profit", **kw).fit(X, y, costs=costs)
    assert profit.split_criterion_ == expected
    gini = ProfitTreeClassifier(criterion="gini", **kw).fit(X, y, costs=costs)
    assert gini.split_criterion_ == "gini"
    same = np.array_equal(profit.tree_.feature, gini.tree_.feature) and np.array_equal(
        profit.tree_.threshold, gini.tree_.threshold, equal_nan=True)
    assert same == (rule == "case")


@pytest.mark.parametrize("criterion", ["gini", "profit"])
@pytest.mark.parametrize("rule", ["case", "leaf"])
def test_cost_rows_are_not_held_through_growing_and_give_the_same_fit(monkeypatch, rule,
                                                                       criterion):
    """A grower that reads no consequences does not keep the cases' cost rows through
    growing: their costs are checked before it and resolved once, after it, with the
    same tree, statistics and decisions as a fit that resolves them first and keeps
    them; the cost column itself is read without a copy and never written."""
    from dtdecide.tree._estimator import _classes

    X, y, costs = _bank_like(1500, 23)
    col = costs["c"].to_numpy(copy=True)
    kw = dict(decision_matrix=MATRIX, decision_rule=rule, criterion=criterion,
              max_depth=5, random_state=0)
    calls = []
    resolve = DecisionMatrix.resolve

    def counted(self, *a, **k):
        calls.append(1)
        return resolve(self, *a, **k)

    checks = []
    check = DecisionMatrix.missing_cost_cases

    def counted_check(self, *a, **k):
        checks.append(1)
        return check(self, *a, **k)

    monkeypatch.setattr(DecisionMatrix, "resolve", counted)
    monkeypatch.setattr(DecisionMatrix, "missing_cost_cases", counted_check)
    fitted = ProfitTreeClassifier(**kw).fit(X, y, costs={"c": col})
    grows_on_money = fitted.split_criterion_ == "profit"
    assert len(calls) == 1  # before growing on the money, else after growing
    assert len(checks) == (0 if grows_on_money else 1)
    assert col.flags.writeable and np.array_equal(col, costs["c"].to_numpy())
    # resolved before growing and kept through it
    monkeypatch.setattr(ProfitTreeClassifier, "_costs_after_growing", lambda self, m: False)
    monkeypatch.setattr(_classes, "_per_case_array", lambda a: False)
    held = ProfitTreeClassifier(**kw).fit(X, y, costs={"c": col})
    assert len(calls) == 2 and len(checks) == (0 if grows_on_money else 1)
    for name in ("feature", "threshold", "value", "impurity"):
        np.testing.assert_array_equal(getattr(fitted.tree_, name), getattr(held.tree_, name))
    a, b = vars(fitted._decision_stats_), vars(held._decision_stats_)
    assert a.keys() == b.keys()
    for name in a:
        if isinstance(a[name], np.ndarray):
            np.testing.assert_array_equal(a[name], b[name])
        else:
            assert a[name] == b[name]
    pd.testing.assert_frame_equal(fitted.decide(X, costs=costs).cases,
                                  held.decide(X, costs=costs).cases)
    if rule == "case":
        a, b = fitted._case_stats_, held._case_stats_
        assert a.keys() == b.keys()
        for name in a:
            np.testing.assert_array_equal(a[name], b[name])
