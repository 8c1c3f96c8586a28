"""tree.regrow: the subtree below a node grown again with other settings.

Regrowing the root is refitting; regrowing with the tree's own settings changes nothing;
after a regrow the SQL score code agrees with decide in SQLite, the leaf table adds up to
decide's summary, and replaying edits_ on a refit gives the same tree.
"""

import json
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from test_export_tree_edits import _check_consistent, _same_tree

from dtdecide import DecisionMatrix, ProfitTreeClassifier, ProfitTreeRegressor
from dtdecide.datasets import load_bank_marketing


@pytest.fixture(scope="module")
def bank():
    full = load_bank_marketing(split="train")
    rows = slice(None, None, 4)
    train = SimpleNamespace(X=full.data.iloc[rows], y=full.target.iloc[rows],
                            costs=full.costs.iloc[rows], m=full.decision_matrix)
    valid = load_bank_marketing(split="validation")
    return train, valid


def _data(train):
    return dict(X=train.X, y=train.y, costs=train.costs)


def _same_structure(a, b):
    ta, tb = a.tree_, b.tree_
    for name in ("children_left", "children_right", "parent", "depth", "feature",
                 "missing_left", "n_node_samples", "node_decision"):
        np.testing.assert_array_equal(getattr(ta, name), getattr(tb, name), err_msg=name)
    np.testing.assert_array_equal(ta.threshold, tb.threshold)
    for name in ("value", "impurity", "weighted_n_node_samples", "node_expected"):
        np.testing.assert_allclose(getattr(ta, name), getattr(tb, name), rtol=1e-9,
                                   atol=1e-9, err_msg=name)


@pytest.mark.parametrize("params", [
    dict(max_depth=3, min_samples_leaf=30),
    dict(criterion="profit", max_depth=2, min_samples_leaf=60),
    dict(criterion="entropy", max_depth=6, max_leaf_nodes=5, min_samples_leaf=40, max_bins=32),
])
def test_regrowing_the_root_is_refitting(bank, params):
    train, _ = bank
    small = ProfitTreeClassifier(decision_matrix=train.m, max_depth=1,
                                 min_samples_leaf=100).fit(train.X, train.y, costs=train.costs)
    regrown = small.regrow(0, **_data(train), **params)
    refit = ProfitTreeClassifier(decision_matrix=train.m, **params).fit(
        train.X, train.y, costs=train.costs)
    _same_structure(regrown, refit)
    assert small.get_n_leaves() == 2  # the original is unchanged
    assert regrown.edits_ == [{"op": "regrow", "node": 0, "params": params,
                               "fingerprint": {"path": [], "n": len(train.y)}}]


def test_regrow_with_own_settings_changes_nothing(bank):
    train, valid = bank
    tree = ProfitTreeClassifier(decision_matrix=train.m, max_depth=3,
                                min_samples_leaf=40).fit(train.X, train.y, costs=train.costs)
    t = tree.tree_
    node = int(t.children_right[0])
    assert t.children_left[node] >= 0
    same = tree.regrow(node, **_data(train))
    # the same partition of the cases and the same decisions (node ids renumbered)
    a, b = tree.apply(valid.data), same.apply(valid.data)
    pairs = set(zip(a.tolist(), b.tolist()))
    assert len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))
    assert same.get_n_leaves() == tree.get_n_leaves()
    np.testing.assert_array_equal(tree.decide(valid.data).cases["D_y"],
                                  same.decide(valid.data).cases["D_y"])
    assert same.tree_.n_node_samples[node] == t.n_node_samples[node]


def test_min_impurity_decrease_is_relative_to_the_whole_sample(bank):
    train, valid = bank
    kw = dict(decision_matrix=train.m, max_depth=4, min_samples_leaf=30)
    coarse = ProfitTreeClassifier(min_impurity_decrease=2e-3, **kw).fit(
        train.X, train.y, costs=train.costs)
    fine = ProfitTreeClassifier(**kw).fit(train.X, train.y, costs=train.costs)
    node = int(fine.tree_.children_left[0])
    # the node exists in both trees with the same rows
    assert coarse.tree_.n_node_samples[node] == fine.tree_.n_node_samples[node]
    regrown = fine.regrow(node, **_data(train), min_impurity_decrease=2e-3)
    reach = fine.decision_path(valid.data)[:, node].toarray().ravel() > 0
    a = coarse.apply(valid.data)[reach]
    b = regrown.apply(valid.data)[reach]
    assert len(set(zip(a.tolist(), b.tolist()))) == len(set(a.tolist())) == len(set(b.tolist()))
    assert regrown.get_n_leaves() < fine.get_n_leaves()


def test_edits_with_regrow_stay_consistent_and_replay(bank):
    train, valid = bank
    params = dict(decision_matrix=train.m, max_depth=2, min_samples_leaf=60)
    tree = ProfitTreeClassifier(**params).fit(train.X, train.y, costs=train.costs)
    leaves = np.flatnonzero(tree.tree_.children_left < 0)
    leaf = int(leaves[np.argmax(tree.tree_.n_node_samples[leaves])])
    # a leaf too small for the new settings stays a leaf, its override kept
    small = int(leaves[np.argmin(tree.tree_.n_node_samples[leaves])])
    kept = tree.set_decision(small, "contact").set_decision(small, "do nothing").regrow(
        small, **_data(train), max_depth=4, min_samples_leaf=tree.tree_.n_node_samples[small])
    assert kept.tree_.n_nodes == tree.tree_.n_nodes
    assert json.loads(json.dumps(kept.edits_))[-1]["params"]["min_samples_leaf"] == (
        tree.tree_.n_node_samples[small])
    assert kept.decision_overrides_ == ({} if tree.decisions_[tree.tree_.node_decision[small]]
                                        == "do nothing" else {small: 1})
    other = next(d for d in tree.decisions_ if d != tree.decisions_[
        tree.tree_.node_decision[leaf]])
    edited = tree.set_decision(leaf, other)
    assert edited.decision_overrides_
    # regrowing below the overridden leaf drops the override (the leaf splits)
    edited = edited.regrow(leaf, **_data(train), max_depth=4, min_samples_leaf=50)
    assert leaf not in edited.decision_overrides_
    assert edited.tree_.children_left[leaf] >= 0
    assert (edited.tree_.depth <= 4).all() and edited.tree_.depth.max() == 4
    costs = valid.costs.copy()
    _check_consistent(edited, valid, costs)
    edited = edited.regrow(2, **_data(train), criterion="profit", max_depth=3)
    edited = edited.set_decision(int(np.flatnonzero(edited.tree_.children_left < 0)[-1]),
                                 "contact")
    _check_consistent(edited, valid, costs)
    record = json.loads(json.dumps(edited.edits_))
    assert [e["op"] for e in record] == ["set_decision", "regrow", "regrow", "set_decision"]
    again = ProfitTreeClassifier(**params).fit(train.X, train.y, costs=train.costs,
                                               edits=record)
    _same_tree(edited, again)
    np.testing.assert_allclose(again.tree_.impurity, edited.tree_.impurity)


def test_regrow_regressor_and_case_rule():
    rng = np.random.default_rng(11)
    X = pd.DataFrame({"x": rng.uniform(0, 10, 500), "z": rng.choice(["a", "b", "c"], 500)})
    y = X["x"].to_numpy() * 3 + (X["z"] == "b") * 6 + rng.normal(0, 2, 500)
    m = DecisionMatrix({"buy": [-20.0, 40.0], "wait": [0.0, 0.0]}, knots=[0.0, 40.0])
    reg = ProfitTreeRegressor(decision_matrix=m, max_depth=1, min_samples_leaf=20).fit(X, y)
    deep = reg.regrow(0, X, y, max_depth=3)
    _same_structure(deep, ProfitTreeRegressor(decision_matrix=m, max_depth=3,
                                              min_samples_leaf=20).fit(X, y))
    again = ProfitTreeRegressor(decision_matrix=m, max_depth=1, min_samples_leaf=20).fit(
        X, y, edits=reg.regrow(1, X, y, max_depth=4).edits_)
    _same_tree(reg.regrow(1, X, y, max_depth=4), again)
    # under decision_rule="case" the case-rule statistics follow the regrown nodes
    yc = np.where(y > 15, "yes", "no")
    cost = pd.DataFrame({"c": rng.uniform(0.5, 6.0, 500)})
    mc = DecisionMatrix({"call": [10, 0], "skip": [0, 0]}, levels=["yes", "no"],
                        kind="revenue", costs={"call": "c"})
    clf = ProfitTreeClassifier(decision_matrix=mc, decision_rule="case", max_depth=1,
                               min_samples_leaf=20).fit(X, yc, costs=cost)
    regrown = clf.regrow(1, X, yc, costs=cost, max_depth=3)
    refit = ProfitTreeClassifier(decision_matrix=mc, decision_rule="case", max_depth=3,
                                 min_samples_leaf=20).fit(X, yc, costs=cost)
    node_rows = clf.decision_path(X)[:, 1].toarray().ravel() > 0
    got = regrown.decide(X, yc, costs=cost).cases
    # every case decides from its own leaf: the regrown left branch is the refit's
    same = refit.decide(X, yc, costs=cost).cases
    np.testing.assert_array_equal(got["D_target"][node_rows], same["D_target"][node_rows])
    from dtdecide.export import leaf_table

    table = leaf_table(regrown)
    total = regrown.decide(X, yc, costs=cost).summary["total_profit"]
    assert table["total_profit"].sum() == pytest.approx(total)


def test_regrow_bad_input(bank):
    train, _ = bank
    tree = ProfitTreeClassifier(decision_matrix=train.m, max_depth=2,
                                min_samples_leaf=60).fit(train.X, train.y, costs=train.costs)
    data = _data(train)
    with pytest.raises(ValueError, match=r"regrow cannot change \['ccp_alpha'\]"):
        tree.regrow(1, **data, ccp_alpha=0.1)
    with pytest.raises(ValueError, match="max_depth"):
        tree.regrow(1, **data, max_depth=0)
    with pytest.raises(ValueError, match="criterion"):
        tree.regrow(1, **data, criterion="variance")
    with pytest.raises(ValueError, match="max_depth=1 leaves no level below node 1.*depth 1"):
        tree.regrow(1, **data, max_depth=1)
    with pytest.raises(ValueError, match="node=40 is not a node of this tree"):
        tree.regrow(40, **data)
    with pytest.raises(ValueError, match="regrow needs the training rows"):
        tree.regrow(1, max_depth=3)
    with pytest.raises(ValueError, match="not the rows this tree was fitted on"):
        tree.regrow(1, train.X.iloc[1:], train.y.iloc[1:], costs=train.costs.iloc[1:])
    with pytest.raises(ValueError, match=r"edits\[0\] \(regrow\) cannot be replayed.*leaves no"):
        ProfitTreeClassifier(decision_matrix=train.m, max_depth=2).fit(
            train.X, train.y, costs=train.costs,
            edits=[{"op": "regrow", "node": 1, "params": {"max_depth": 1}}])
    with pytest.raises(ValueError, match=r"edits\[0\] \(regrow\) must have the keys"):
        ProfitTreeClassifier(decision_matrix=train.m, max_depth=2).fit(
            train.X, train.y, costs=train.costs, edits=[{"op": "regrow", "node": 1}])
    plain = ProfitTreeClassifier(max_depth=1).fit(train.X, train.y)
    with pytest.raises(ValueError, match='criterion="profit".*decision_matrix'):
        plain.regrow(0, train.X, train.y, criterion="profit")
