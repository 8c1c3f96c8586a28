"""Hand edits of a fitted tree (set_decision, prune_node, split, edits_ and replay).

After every edit the SQL score code agrees with ``decide`` in SQLite, the leaf table
adds up to ``decide``'s summary, and replaying ``edits_`` on a refit gives the same tree.
"""

import copy
import json
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from test_export_sql import compare, db_frame, run_sqlite

from dtdecide import DecisionMatrix, ProfitTreeClassifier, ProfitTreeRegressor
from dtdecide.datasets import load_bank_marketing
from dtdecide.export import export_rules, leaf_table, to_sql
from dtdecide.tree._algorithms._edit import node_fingerprint
from dtdecide.tree._estimator._html import tree_html

PARAMS = dict(max_depth=3, min_samples_leaf=40)


@pytest.fixture(scope="module")
def bank():
    full = load_bank_marketing(split="train")
    rows = slice(None, None, 3)  # a third of the rows: quick to refit
    train = SimpleNamespace(data=full.data.iloc[rows], target=full.target.iloc[rows],
                            costs=full.costs.iloc[rows], decision_matrix=full.decision_matrix)
    valid = load_bank_marketing(split="validation")
    costs = valid.costs.copy()
    costs.iloc[::37, 0] = np.nan  # a few unknown validation costs
    return train, valid, costs


@pytest.fixture(scope="module")
def tree(bank):
    train, _, _ = bank
    est = ProfitTreeClassifier(decision_matrix=train.decision_matrix, **PARAMS)
    return est.fit(train.data, train.target, costs=train.costs)


def _leaves(est):
    return np.flatnonzero(est.tree_.children_left < 0).tolist()


def _check_consistent(est, valid, costs):
    """SQL == decide in SQLite; leaf table sums == decide summary."""
    X, y = valid.data, valid.target
    plain = X.copy()
    for c in plain.columns:
        if isinstance(plain[c].dtype, pd.CategoricalDtype):
            plain[c] = plain[c].astype(object)
    frame = db_frame(plain.join(costs), y.astype(object).rename("y"))
    got = run_sqlite(to_sql(est, target="y", dialect="sqlite"), frame)
    assert compare(est, got, X, y, costs=costs) == 6
    table = leaf_table(est, X, y, costs=costs)
    summary = est.decide(X, y, costs=costs).summary
    assert table["valid_total_profit"].sum() == pytest.approx(summary["total_profit"])
    assert table["valid_n"].sum() == len(X)
    cases = est.decide(X, y, costs=costs).cases
    leaf_of = est.apply(X)
    chosen = dict(zip(table["leaf"], table["decision"]))
    assert (cases[f"D_{est.target_name_}"].to_numpy() == [chosen[n] for n in leaf_of]).all()


def _same_tree(a, b):
    ta, tb = a.tree_, b.tree_
    for name in ("children_left", "children_right", "feature", "threshold", "missing_left",
                 "n_node_samples", "value", "node_decision", "node_expected", "profit_sum"):
        np.testing.assert_array_equal(getattr(ta, name), getattr(tb, name), err_msg=name)
    assert a.decision_overrides_ == b.decision_overrides_


def test_set_decision_overrides_one_leaf(tree, bank):
    _, valid, costs = bank
    t = tree.tree_
    leaf = next(n for n in _leaves(tree) if tree.decisions_[t.node_decision[n]] == "contact")
    before = tree.decide(valid.data).cases["D_y"].to_numpy()
    edited = tree.set_decision(leaf, "do nothing")
    # the original is unchanged
    assert tree.edits_ == [] and tree.decision_overrides_ == {}
    assert (tree.decide(valid.data).cases["D_y"].to_numpy() == before).all()
    after = edited.decide(valid.data).cases["D_y"].to_numpy()
    in_leaf = tree.apply(valid.data) == leaf
    assert (after[in_leaf] == "do nothing").all() and (after[~in_leaf] == before[~in_leaf]).all()
    assert edited.edits_ == [{"op": "set_decision", "node": leaf, "decision": "do nothing",
                              "fingerprint": node_fingerprint(tree, leaf)}]
    _check_consistent(edited, valid, costs)
    # marked in the leaf table with the expected profit given up (hand-computed)
    table = leaf_table(edited).set_index("leaf")
    row = table.loc[leaf]
    assert bool(row["override"]) and row["tree_decision"] == "contact"
    assert row["given_up"] == pytest.approx(row["EP_contact"] - row["EP_do nothing"])
    assert row["EP"] == pytest.approx(row["EP_do nothing"])
    assert not table.drop(index=leaf)["override"].any()
    assert (table.drop(index=leaf)["given_up"] == 0).all()
    # ... in the rules, the HTML view and the plot
    block = next(b for b in export_rules(edited).split("\n\n") if b.startswith(f"Leaf {leaf}\n"))
    assert "override: the tree decides contact" in block
    page = tree_html(edited)
    assert page.count('data-override="1"') == 1
    assert f'data-node="{leaf}" data-leaf="1"' in page
    # overrides survive re-deciding with the fitted matrix
    np.testing.assert_array_equal(edited._redecide().node_decision, edited.tree_.node_decision)
    # the tree's own decision removes the override
    back = edited.set_decision(leaf, "contact")
    assert back.decision_overrides_ == {} and "override" not in leaf_table(back)
    np.testing.assert_array_equal(back.tree_.node_decision, tree.tree_.node_decision)


def test_prune_node_makes_a_leaf(tree, bank):
    _, valid, costs = bank
    t = tree.tree_
    node = int(t.children_left[0])  # an internal node below the root
    assert t.children_left[node] >= 0
    pruned = tree.prune_node(node)
    below = tree.decision_path(valid.data)[:, node].toarray().ravel() > 0
    leaf_ids = pruned.apply(valid.data)
    assert len(set(leaf_ids[below])) == 1
    new = int(leaf_ids[below][0])
    assert pruned.tree_.children_left[new] < 0
    # the new leaf decides from the node's own statistics, as the node did
    assert pruned.tree_.node_decision[new] == t.node_decision[node]
    np.testing.assert_allclose(pruned.tree_.node_expected[new], t.node_expected[node])
    assert pruned.tree_.n_node_samples[new] == t.n_node_samples[node]
    n_below = int(np.sum(t.children_left[_descendants(t, node)] < 0))
    assert pruned.get_n_leaves() == tree.get_n_leaves() - n_below + 1
    # the other cases keep their leaves' decisions
    before = tree.decide(valid.data).cases["D_y"].to_numpy()
    after = pruned.decide(valid.data).cases["D_y"].to_numpy()
    assert (after[~below] == before[~below]).all()
    assert tree.get_n_leaves() == len(_leaves(tree))  # original unchanged
    _check_consistent(pruned, valid, costs)


def _descendants(t, node):
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        out.append(n)
        if t.children_left[n] >= 0:
            stack += [int(t.children_left[n]), int(t.children_right[n])]
    return np.array(out)


def test_edits_replay_on_refit(tree, bank):
    train, valid, costs = bank
    t = tree.tree_
    node = int(t.children_right[0])
    edited = tree.prune_node(node)
    leaves = _leaves(edited)
    flip = {"contact": "do nothing", "do nothing": "contact"}
    for leaf in leaves[:2]:
        d = edited.decisions_[edited.tree_.node_decision[leaf]]
        edited = edited.set_decision(leaf, flip[d])
    edited = edited.prune_node(0 if edited.tree_.n_nodes == 3 else int(
        edited.tree_.parent[leaves[-1]]))
    _check_consistent(edited, valid, costs)
    record = json.loads(json.dumps(edited.edits_))  # JSON round trip
    assert [e["op"] for e in record][:3] == ["prune_node", "set_decision", "set_decision"]
    again = ProfitTreeClassifier(decision_matrix=train.decision_matrix, **PARAMS).fit(
        train.data, train.target, costs=train.costs, edits=record)
    _same_tree(edited, again)
    assert again.edits_ == edited.edits_
    # a plain refit forgets the edits
    plain = again.fit(train.data, train.target, costs=train.costs)
    assert plain.edits_ == [] and plain.decision_overrides_ == {}
    _same_tree(plain, tree)


def test_replay_with_ccp_alpha_and_regressor():
    rng = np.random.default_rng(5)
    X = pd.DataFrame({"x": rng.uniform(0, 10, 400), "z": rng.choice(["a", "b", "c"], 400)})
    y = X["x"].to_numpy() * 3 + (X["z"] == "b") * 5 + rng.normal(0, 2, 400)
    m = DecisionMatrix({"buy": [-20.0, 40.0], "wait": [0.0, 0.0]}, knots=[0.0, 40.0])
    params = dict(decision_matrix=m, max_depth=4, min_samples_leaf=10, ccp_alpha=0.01)
    reg = ProfitTreeRegressor(**params).fit(X, y)
    assert reg.get_n_leaves() >= 3
    leaf = _leaves(reg)[0]
    other = [d for d in reg.decisions_ if d != reg.decisions_[reg.tree_.node_decision[leaf]]][0]
    internal = np.flatnonzero(reg.tree_.children_left >= 0)
    assert internal.size >= 2
    edited = reg.set_decision(leaf, other).prune_node(int(internal[-1]))
    target = max(_leaves(edited), key=lambda n: edited.tree_.n_node_samples[n])
    edited = edited.split(target, "z", categories=["b"], X=X, y=y)
    reaching = edited.decision_path(X)[:, target].toarray().ravel() > 0
    is_b = (X["z"] == "b").to_numpy()
    left = edited.tree_.children_left[target]
    assert edited.tree_.n_node_samples[left] == np.sum(reaching & is_b)
    assert edited.tree_.value[left, 1] == pytest.approx(y[reaching & is_b].sum())
    again = ProfitTreeRegressor(**params).fit(X, y, edits=edited.edits_)
    _same_tree(edited, again)
    res = edited.decide(X, y)
    table = leaf_table(edited, X, y)
    assert table["valid_total_profit"].sum() == pytest.approx(res.summary["total_profit"])
    got = run_sqlite(to_sql(edited, dialect="sqlite"), db_frame(X))
    assert compare(edited, got, X) > 1


def test_prune_without_decision_matrix():
    X = pd.DataFrame({"x": np.arange(60, dtype=float)})
    y = np.where(np.arange(60) % 4 == 0, "a", "b")
    y[30:] = "a"
    est = ProfitTreeClassifier(max_depth=3, min_samples_leaf=3).fit(X, y)
    node = int(est.tree_.children_left[0])
    pruned = est.prune_node(node)
    assert pruned.get_n_leaves() < est.get_n_leaves()
    np.testing.assert_allclose(pruned.predict_proba(X)[X["x"] < 1], est.tree_.value[node][None]
                               / est.tree_.value[node].sum())
    with pytest.raises(ValueError, match="decision_matrix"):
        est.set_decision(_leaves(est)[0], "a")


def test_bad_edits(tree, bank):
    train, _, _ = bank
    leaf = _leaves(tree)[0]
    n = tree.tree_.n_nodes
    with pytest.raises(ValueError, match=rf"node=99 is not a node of this tree.*0 to {n - 1}"):
        tree.prune_node(99)
    with pytest.raises(ValueError, match="leaf=-1 is not a node"):
        tree.set_decision(-1, "contact")
    with pytest.raises(TypeError, match="node must be an int"):
        tree.prune_node("3")
    with pytest.raises(ValueError, match="leaf=0 is not a leaf.*prune_node"):
        tree.set_decision(0, "contact")
    with pytest.raises(ValueError, match=r"decision='call' is not a decision.*'contact'"):
        tree.set_decision(leaf, "call")
    with pytest.raises(ValueError, match=f"node={leaf} is already a leaf"):
        tree.prune_node(leaf)
    with pytest.raises(ValueError, match="fit"):
        ProfitTreeClassifier().prune_node(0)
    refit = ProfitTreeClassifier(decision_matrix=train.decision_matrix, **PARAMS)
    args = (train.data, train.target)
    with pytest.raises(ValueError, match=r"edits\[0\]: unknown op 'split_all'"):
        refit.fit(*args, costs=train.costs, edits=[{"op": "split_all"}])
    with pytest.raises(ValueError, match=r"edits\[1\] \(prune_node\) must have the keys"):
        refit.fit(*args, costs=train.costs,
                  edits=[{"op": "prune_node", "node": 1}, {"op": "prune_node"}])
    with pytest.raises(ValueError, match=r"edits\[0\] \(set_decision\) cannot be replayed.*call"):
        refit.fit(*args, costs=train.costs,
                  edits=[{"op": "set_decision", "node": leaf, "decision": "call"}])
    with pytest.raises(TypeError, match="edits must be a list"):
        refit.fit(*args, costs=train.costs, edits="prune_node")


def test_overrides_follow_a_pruned_subtree(tree, bank):
    """A subtree of an edited tree (as pruning studies make) keeps its overrides."""
    _, valid, costs = bank
    t = tree.tree_
    leaf = int(_leaves(tree)[-1])
    other = next(d for d in tree.decisions_ if d != tree.decisions_[t.node_decision[leaf]])
    edited = tree.set_decision(leaf, other)
    ancestors = set()
    n = leaf
    while n > 0:
        n = int(t.parent[n])
        ancestors.add(n)
    cut = next(int(n) for n in np.flatnonzero(t.children_left >= 0) if n not in ancestors)
    mask = np.zeros(t.n_nodes, dtype=bool)
    mask[cut] = True
    sub = copy.deepcopy(edited)
    sub.tree_ = edited._redecide(edited.tree_.subtree(mask))  # ids renumbered
    new_leaf = int(sub.apply(valid.data)[edited.apply(valid.data) == leaf][0])
    assert new_leaf != leaf
    assert sub.decisions_[sub.tree_.node_decision[new_leaf]] == other
    table = leaf_table(sub).set_index("leaf")
    assert table["override"].tolist() == [n == new_leaf for n in table.index]
    # a further edit of the subtree keeps the override, under the leaf's new id
    first = next(n for n in _leaves(sub) if n != new_leaf)
    again = sub.set_decision(first, other if sub.tree_.node_decision[first]
                             != sub.decisions_.index(other) else tree.decisions_[0])
    assert again.decision_overrides_[new_leaf] == tree.decisions_.index(other)
    assert again.decisions_[again.tree_.node_decision[new_leaf]] == other
    _check_consistent(again, valid, costs)


def test_split_a_leaf_numeric_and_categorical(tree, bank):
    train, valid, costs = bank
    X, y, c = train.data, train.target, train.costs
    leaves = _leaves(tree)
    big = max(leaves, key=lambda n: tree.tree_.n_node_samples[n])
    ages = X["age"].to_numpy()[tree.apply(X) == big]
    thr = float(np.median(ages))
    edited = tree.split(big, "age", threshold=thr, X=X, y=y, costs=c)
    n = tree.tree_.n_nodes
    t = edited.tree_
    assert t.n_nodes == n + 2 and t.children_left[big] == n and t.children_right[big] == n + 1
    assert tree.tree_.n_nodes == n  # original unchanged
    # the new leaves hold exactly their training rows (hand-computed from the data)
    rows = tree.apply(X) == big
    go_left = rows & (X["age"].to_numpy() <= thr)
    assert t.n_node_samples[n] == go_left.sum() and t.n_node_samples[n + 1] == (rows & ~go_left).sum()
    yes = int(np.flatnonzero(tree.classes_ == "yes")[0])
    assert t.value[n, yes] == np.sum(y.to_numpy()[go_left] == "yes")
    # training statistics agree with the same figures recomputed on the training rows
    table = leaf_table(edited, X, y, costs=c)
    np.testing.assert_allclose(table["total_profit"], table["valid_total_profit"])
    np.testing.assert_array_equal(table["n"], table["valid_n"])
    # a categorical split of the other new leaf, and everything still agrees
    jobs = sorted(set(X["job"].astype(object)[tree.apply(X) == big].dropna()))[:3]
    before = edited
    edited = edited.split(n + 1, "job", categories=jobs, missing="left", X=X, y=y, costs=c)
    assert edited.edits_[-1] == {"op": "split", "node": n + 1, "feature": "job",
                                 "threshold": None, "categories": jobs, "missing": "left",
                                 "fingerprint": node_fingerprint(before, n + 1)}
    _check_consistent(edited, valid, costs)
    again = ProfitTreeClassifier(decision_matrix=train.decision_matrix, **PARAMS).fit(
        X, y, costs=c, edits=json.loads(json.dumps(edited.edits_)))
    _same_tree(edited, again)
    np.testing.assert_allclose(again.tree_.impurity, edited.tree_.impurity)


def test_split_bad_input(tree, bank):
    train, _, _ = bank
    X, y, c = train.data, train.target, train.costs
    leaf = max(_leaves(tree), key=lambda n: tree.tree_.n_node_samples[n])
    kw = dict(X=X, y=y, costs=c)
    with pytest.raises(ValueError, match="node=0 is not a leaf"):
        tree.split(0, "age", threshold=40, **kw)
    with pytest.raises(ValueError, match=r"node=999 is not a node"):
        tree.split(999, "age", threshold=40, **kw)
    with pytest.raises(ValueError, match=r"threshold=1000 is outside the range of 'age'"):
        tree.split(leaf, "age", threshold=1000, **kw)
    with pytest.raises(ValueError, match=r"categories \['astronaut'\] are not categories of 'job'"):
        tree.split(leaf, "job", categories=["astronaut"], **kw)
    with pytest.raises(ValueError, match="feature='salary' is not an input"):
        tree.split(leaf, "salary", threshold=1, **kw)
    with pytest.raises(ValueError, match="'job' is categorical: give categories"):
        tree.split(leaf, "job", threshold=1, **kw)
    with pytest.raises(ValueError, match="'age' is numeric: give threshold"):
        tree.split(leaf, "age", categories=["a"], **kw)
    with pytest.raises(ValueError, match="missing must be"):
        tree.split(leaf, "age", threshold=40, missing="up", **kw)
    with pytest.raises(ValueError, match="needs the training rows"):
        tree.split(leaf, "age", threshold=40)
    with pytest.raises(ValueError, match="not the rows this tree was fitted on"):
        tree.split(leaf, "age", threshold=40, X=X.iloc[1:], y=y.iloc[1:], costs=c.iloc[1:])


def test_set_decision_refused_under_the_case_rule(bank):
    """A case-rule tree decides per case: there is no leaf decision to override."""
    train, _, _ = bank
    est = ProfitTreeClassifier(decision_matrix=train.decision_matrix, decision_rule="case",
                               max_depth=2, min_samples_leaf=200, random_state=0)
    est.fit(train.data, train.target, costs=train.costs)
    leaf = int(_leaves(est)[0])
    with pytest.raises(ValueError, match='decision_rule="case"'):
        est.set_decision(leaf, est.decisions_[0])
    # pruning a branch by hand still works and keeps the case rule
    root_pruned = est.prune_node(0)
    assert root_pruned.get_n_leaves() == 1 and root_pruned.decision_rule == "case"
