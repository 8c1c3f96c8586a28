"""honest_fraction: grow on some training rows, estimate every node's figures on the rest."""

import numpy as np
import pandas as pd
import pytest

from dtdecide import DecisionMatrix, ProfitTreeClassifier, leaf_table


def _data(n=800, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.integers(0, 5, n).astype(float),
                      "c": pd.Categorical(rng.choice(["u", "v", "w"], n))})
    p = 1 / (1 + np.exp(-(-0.8 + 1.5 * X["a"] + 0.6 * (X["c"] == "w"))))
    y = pd.Series(np.where(rng.random(n) < p, "bad", "good"), name="y")
    amount = rng.lognormal(2.0, 0.8, n)
    costs = pd.DataFrame({"C_FP": 0.3 * amount, "C_FN": amount, "C_TP": 0.0, "C_TN": 0.0})
    return X, y, costs


MATRIX = DecisionMatrix.from_cost_matrix(levels=("good", "bad"))


def _tree(**params):
    base = dict(decision_matrix=MATRIX, max_depth=4, min_samples_leaf=10, random_state=0)
    return ProfitTreeClassifier(**(base | params))


SPLIT_FIELDS = ("children_left", "children_right", "feature", "threshold")


@pytest.mark.parametrize("rule", ["leaf", "case"])
def test_splits_from_the_growing_rows_figures_from_the_others(rule):
    X, y, costs = _data()
    extra = {"posterior_smoothing": 0} if rule == "case" else {}
    honest = _tree(honest_fraction=0.4, decision_rule=rule, **extra).fit(X, y, costs=costs)
    est = honest.honest_rows_
    assert est.size == round(0.4 * len(y))
    # stratified by class
    assert abs((y.iloc[est] == "bad").mean() - (y == "bad").mean()) < 0.01
    grow = np.setdiff1d(np.arange(len(y)), est)
    plain = _tree(decision_rule=rule, **extra).fit(X.iloc[grow], y.iloc[grow],
                                                    costs=costs.iloc[grow])
    for field in SPLIT_FIELDS:
        np.testing.assert_array_equal(getattr(honest.tree_, field),
                                      getattr(plain.tree_, field))
    # every node's class counts are the held-out rows', routed down the same splits
    node = honest.apply(X.iloc[est])
    tree = honest.tree_
    for v in range(tree.n_nodes):
        reach = np.asarray(honest.decision_path(X.iloc[est]).getcol(v).todense()).ravel() > 0
        counts = [np.sum(reach & (y.iloc[est].to_numpy() == c)) for c in honest.classes_]
        np.testing.assert_allclose(tree.value[v], counts)
        assert tree.n_node_samples[v] == reach.sum()
    assert set(np.unique(node)) <= set(np.flatnonzero(tree.children_left < 0))


def test_leaf_decisions_are_the_held_out_rows_best_decision():
    X, y, costs = _data(seed=1)
    tree = _tree(honest_fraction=0.5).fit(X, y, costs=costs)
    est = tree.honest_rows_
    leaves = tree.apply(X.iloc[est])
    bad = (y.iloc[est] == "bad").to_numpy()
    c = costs.iloc[est]
    # cost of "predict 1" (refuse) and of "predict 0" (grant) for every held-out case
    cost1 = np.where(bad, c["C_TP"], c["C_FP"])
    cost0 = np.where(bad, c["C_FN"], c["C_TN"])
    for leaf in np.unique(leaves):
        here = leaves == leaf
        want = "predict 1" if cost1[here].sum() < cost0[here].sum() else "predict 0"
        node_decision = tree.decisions_[tree.tree_.node_decision[leaf]]
        assert node_decision == want, leaf


def test_unreached_nodes_take_the_parents_posterior():
    X, y, costs = _data(n=300, seed=2)
    tree = _tree(honest_fraction=0.2, min_samples_leaf=2, min_samples_split=4,
                 max_depth=8, decision_rule="case", posterior_smoothing=0)
    tree.fit(X, y, costs=costs)
    empty = np.flatnonzero(tree.tree_.weighted_n_node_samples == 0)
    assert empty.size  # this small held-out part leaves some nodes unreached
    post = tree.node_posteriors_
    assert not np.isnan(post).any()
    for v in empty:
        np.testing.assert_allclose(post[v], post[tree.tree_.parent[v]])
    assert not np.isnan(tree.predict_proba(X)).any()


def test_leaf_table_shows_the_estimation_support():
    X, y, costs = _data(seed=3)
    tree = _tree(honest_fraction=0.3).fit(X, y, costs=costs)
    table = leaf_table(tree)
    assert table["n"].sum() == tree.honest_rows_.size


def test_none_keeps_every_row():
    X, y, costs = _data(seed=4)
    tree = _tree().fit(X, y, costs=costs)
    assert tree.honest_rows_ is None
    assert tree.tree_.weighted_n_node_samples[0] == len(y)


def test_refusals():
    X, y, costs = _data(n=200, seed=5)
    with pytest.raises(ValueError, match="honest_fraction.*decision_matrix"):
        ProfitTreeClassifier(honest_fraction=0.5).fit(X, y)
    with pytest.raises(ValueError, match='search="exact"'):
        _tree(honest_fraction=0.5, search="exact", max_depth=2).fit(X, y, costs=costs)
    with pytest.raises(ValueError, match="honest_fraction"):
        _tree(honest_fraction=1.0).fit(X, y, costs=costs)
    tree = _tree(honest_fraction=0.5).fit(X, y, costs=costs)
    with pytest.raises(ValueError, match="held out of growing"):
        tree.split(0, "a", 0.0, X=X, y=y, costs=costs)
