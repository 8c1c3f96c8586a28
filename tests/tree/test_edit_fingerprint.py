"""Hand-edit records carry a fingerprint of the node they edit, checked at replay.

A record names its node by id; the same id in a tree grown from other rows or with other
settings is another node. ``fit(..., edits=...)`` must refuse such a record (naming it,
the node and what differs) instead of editing whatever node now has the id, and still
replay records written before fingerprints existed, with a warning.
"""

import copy
import json
import warnings

import numpy as np
import pandas as pd
import pytest

from dtdecide import DecisionMatrix, ProfitTreeClassifier, ProfitTreeRegressor
from dtdecide.export import load, save
from dtdecide.tree._algorithms._edit import node_fingerprint

MATRIX = DecisionMatrix({"call": [10, -1], "skip": [0, 0]}, levels=["yes", "no"])


def _data(n=600, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"x": rng.uniform(0, 10, n), "z": rng.choice(["a", "b", "c"], n)})
    p = X["x"].to_numpy() / 10 * np.where(X["z"] == "a", 1.0, 0.4)
    y = np.where(rng.uniform(size=n) < p, "yes", "no")
    return X, y


PARAMS = dict(decision_matrix=MATRIX, max_depth=3, min_samples_leaf=20)


def _fit(X, y, edits=None, **params):
    return ProfitTreeClassifier(**{**PARAMS, **params}).fit(X, y, edits=edits)


def _internal(est):
    return np.flatnonzero(est.tree_.children_left >= 0).tolist()


def _leaves(est):
    return np.flatnonzero(est.tree_.children_left < 0).tolist()


def _split_at_median(est, X, y):
    """``est`` with its largest leaf split on ``x`` at the median of its rows."""
    big = max(_leaves(est), key=lambda v: est.tree_.n_node_samples[v])
    x = X["x"].to_numpy()[est.apply(X) == big]
    return est.split(big, "x", threshold=float(np.median(x)), X=X, y=y)


def _strip(edits):
    return [{k: v for k, v in r.items() if k != "fingerprint"} for r in edits]


def test_fingerprint_by_hand():
    X = pd.DataFrame({"x": np.arange(1.0, 9.0), "z": list("abababab")})
    y = ["no", "no", "no", "no", "yes", "yes", "no", "yes"]
    tree = ProfitTreeClassifier(decision_matrix=MATRIX, max_depth=1, min_samples_leaf=2,
                                min_samples_split=4).fit(X, y)
    assert node_fingerprint(tree, 0) == {"path": [], "n": 8}
    edited = tree.split(2, "z", categories=["b"], X=X, y=y)
    assert edited.edits_[0]["fingerprint"] == {
        "path": [{"feature": "x", "threshold": 4.5, "categories": None, "missing": "left",
                  "side": "right"}],
        "n": 4,
    }
    assert node_fingerprint(edited, 3) == {
        "path": [
            {"feature": "x", "threshold": 4.5, "categories": None, "missing": "left",
             "side": "right"},
            {"feature": "z", "threshold": None, "categories": ["b"], "missing": "left",
             "side": "left"},
        ],
        "n": 2,
    }


def test_every_edit_records_the_fingerprint_of_its_node_before_the_edit():
    X, y = _data()
    tree = _fit(X, y)
    node = _internal(tree)[1]
    before = node_fingerprint(tree, node)
    pruned = tree.prune_node(node)
    assert pruned.edits_[-1] == {"op": "prune_node", "node": node, "fingerprint": before}
    leaf = _leaves(pruned)[0]
    other = [d for d in pruned.decisions_
             if d != pruned.decisions_[pruned.tree_.node_decision[leaf]]][0]
    decided = pruned.set_decision(leaf, other)
    assert decided.edits_[-1]["fingerprint"] == node_fingerprint(pruned, leaf)
    big = max(_leaves(decided), key=lambda v: decided.tree_.n_node_samples[v])
    grown = decided.regrow(big, X, y, max_depth=5)
    assert grown.edits_[-1]["fingerprint"] == node_fingerprint(decided, big)
    json.dumps(grown.edits_)  # JSON-serialisable


def test_the_same_tree_replays_its_records_through_json():
    X, y = _data()
    tree = _fit(X, y)
    edited = _split_at_median(tree.prune_node(_internal(tree)[1]), X, y)
    edited = edited.regrow(_leaves(edited)[-1], X, y, max_depth=5, min_samples_leaf=10)
    record = json.loads(json.dumps(edited.edits_))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # checked records replay without a warning
        again = _fit(X, y, edits=record)
    assert again.edits_ == edited.edits_
    np.testing.assert_array_equal(again.apply(X), edited.apply(X))


def test_a_record_is_refused_on_a_tree_grown_from_other_rows():
    X, y = _data()
    tree = _fit(X, y)
    node = _internal(tree)[1]
    record = tree.prune_node(node).edits_
    other_X, other_y = _data(seed=1)
    other = _fit(other_X, other_y)
    assert other.tree_.children_left[node] >= 0  # the id exists and could be pruned
    with pytest.raises(ValueError, match=(
            rf"edits\[0\] \(prune_node\) was recorded on another tree: node {node} is not "
            r"the node it edited \(the split at depth 0 .* was z in \['a'\] \(left side; "
            r"missing right\) when the edit was made and is x <= [0-9.]+ \(left side; "
            r"missing right\) in this tree\)")):
        _fit(other_X, other_y, edits=record)


def test_a_record_is_refused_on_a_tree_grown_with_other_settings():
    X, y = _data()
    tree = _fit(X, y)
    node = 5
    assert tree.tree_.children_left[node] >= 0
    record = tree.prune_node(node).edits_
    other = _fit(X, y, min_samples_leaf=60)
    assert other.tree_.children_left[node] >= 0  # the id exists and could be pruned
    with pytest.raises(ValueError, match=rf"edits\[0\] \(prune_node\) was recorded on "
                                         rf"another tree: node {node} is not the node it "
                                         r"edited \(the split at depth 1 "):
        _fit(X, y, edits=record, min_samples_leaf=60)
    # a node that other settings leave alone is the same node: the record replays
    same = _fit(X, y)
    node = int(same.tree_.children_left[1])
    assert node_fingerprint(same, node) == node_fingerprint(_fit(X, y, max_depth=4), node)


def test_the_count_tells_apart_nodes_of_the_same_path():
    X = pd.DataFrame({"x": np.arange(1.0, 13.0)})
    y = ["no"] * 4 + ["yes"] * 8
    params = dict(decision_matrix=MATRIX, max_depth=1, min_samples_leaf=2, min_samples_split=4)
    tree = ProfitTreeClassifier(**params).fit(X.iloc[:10], y[:10])
    edited = tree.set_decision(2, "skip")
    more = ProfitTreeClassifier(**params).fit(X, y)
    assert more.tree_.threshold[0] == tree.tree_.threshold[0]  # the same split
    with pytest.raises(ValueError, match=r"edits\[0\] \(set_decision\) .* node 2 .*held 6 "
                                         r"training cases when the edit was made and holds 8"):
        ProfitTreeClassifier(**params).fit(X, y, edits=edited.edits_)


def test_a_categorical_path_that_differs_is_named():
    X, y = _data()
    tree = _fit(X, y, max_depth=1)
    assert tree.tree_.is_categorical[0]
    edited = _split_at_median(tree, X, y)
    record = json.loads(json.dumps(edited.set_decision(1, "call").edits_))
    assert record[1]["fingerprint"]["path"][0]["categories"] == ["a"]
    record[1]["fingerprint"]["path"][0]["categories"] = ["a", "b"]
    with pytest.raises(ValueError, match=r"edits\[1\] \(set_decision\) .*node 1 .*at depth 0 "
                                         r".*was z in \['a', 'b'\] .*is z in \['a'\]"):
        _fit(X, y, edits=record, max_depth=1)


def test_a_node_at_another_depth_is_named():
    X, y = _data()
    tree = _fit(X, y)
    node = _internal(tree)[1]
    record = copy.deepcopy(tree.prune_node(node).edits_)
    record[0]["fingerprint"]["path"].append(record[0]["fingerprint"]["path"][-1])
    with pytest.raises(ValueError, match=r"edits\[0\] \(prune_node\) .*it lay at depth 2 when "
                                         r"the edit was made and lies at depth 1"):
        _fit(X, y, edits=record)


@pytest.mark.parametrize("bad", [None, [], {"n": 3}, {"path": "x <= 3"}])
def test_a_malformed_fingerprint_is_refused(bad):
    X, y = _data()
    tree = _fit(X, y)
    record = tree.prune_node(_internal(tree)[1]).edits_
    record[0]["fingerprint"] = bad
    with pytest.raises(ValueError, match=r"edits\[0\] \(prune_node\) cannot be replayed: its "
                                         r"fingerprint must be a dict"):
        _fit(X, y, edits=record)


def test_records_without_a_fingerprint_replay_with_a_warning():
    X, y = _data()
    tree = _fit(X, y)
    edited = tree.prune_node(_internal(tree)[1])
    edited = edited.set_decision(_leaves(edited)[0], "call")
    old = _strip(edited.edits_)  # as written before records had fingerprints
    with pytest.warns(UserWarning, match=r"edits\[0\] \(prune_node\), edits\[1\] "
                                         r"\(set_decision\) carry no fingerprint") as got:
        again = _fit(X, y, edits=old)
    assert got[0].filename == __file__  # points at the caller's fit
    assert again.edits_ == edited.edits_  # the replayed records carry fingerprints
    # a mix: only the records without one are named
    mixed = [edited.edits_[0], old[1]]
    with pytest.warns(UserWarning, match=r"^edits\[1\] \(set_decision\) carry no"):
        _fit(X, y, edits=mixed)


def test_regressor_records_are_checked():
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"x": rng.uniform(0, 10, 300)})
    y = 3 * X["x"].to_numpy() + rng.normal(0, 2, 300)
    m = DecisionMatrix({"buy": [-20.0, 40.0], "wait": [0.0, 0.0]}, knots=[0.0, 40.0])
    reg = ProfitTreeRegressor(decision_matrix=m, max_depth=3, min_samples_leaf=10).fit(X, y)
    node = int(np.flatnonzero(reg.tree_.children_left >= 0)[1])
    record = reg.prune_node(node).edits_
    again = ProfitTreeRegressor(decision_matrix=m, max_depth=3, min_samples_leaf=10)
    assert again.fit(X, y, edits=record).edits_ == record
    with pytest.raises(ValueError, match=r"edits\[0\] \(prune_node\) was recorded on another"):
        again.fit(X.iloc[:200], y[:200], edits=record)


@pytest.mark.parametrize("fmt", ["dtdecide", "skops"])
def test_records_survive_the_safe_formats(tmp_path, fmt):
    if fmt == "skops":
        pytest.importorskip("skops")
    X, y = _data()
    tree = _fit(X, y)
    edited = tree.prune_node(_internal(tree)[1])
    path = tmp_path / f"tree.{fmt}"
    save(edited, path, format=fmt)
    back = load(path, format=fmt)
    assert back.edits_ == edited.edits_
    assert _fit(X, y, edits=back.edits_).edits_ == edited.edits_
