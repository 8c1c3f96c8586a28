"""TreeStructure: routing against a per-row twin, subtree, pickling, validation."""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dtdecide.tree._structure._tree import TreeStructure


def random_tree(rng, n_features=3, n_cat=4, max_nodes=15, categorical=True):
    """A random valid tree with numeric and categorical splits (built breadth-first)."""
    left, right, feature, threshold = [-1], [-1], [-1], [np.nan]
    is_cat, missing_left, cat_rows = [False], [False], [np.zeros(n_cat, bool)]
    queue = [0]
    while queue and len(left) + 2 <= max_nodes:
        node = queue.pop(0)
        if rng.random() < 0.25 and node != 0:
            continue
        a, b = len(left), len(left) + 1
        left[node], right[node] = a, b
        f = int(rng.integers(n_features))
        feature[node] = f
        if categorical and f == n_features - 1:  # last column is categorical
            is_cat[node] = True
            cat_rows[node] = rng.random(n_cat) < 0.5
        else:
            threshold[node] = float(rng.normal())
        missing_left[node] = bool(rng.random() < 0.5)
        for _ in range(2):
            left.append(-1)
            right.append(-1)
            feature.append(-1)
            threshold.append(np.nan)
            is_cat.append(False)
            missing_left.append(False)
            cat_rows.append(np.zeros(n_cat, bool))
        queue += [a, b]
    n = len(left)
    return TreeStructure.from_arrays(
        children_left=left, children_right=right, feature=feature, threshold=threshold,
        is_categorical=is_cat, cat_left=np.array(cat_rows), missing_left=missing_left,
        n_node_samples=np.arange(n) + 1, value=rng.random((n, 2)), impurity=rng.random(n),
    )


def random_X(rng, n=60, n_features=3, n_cat=4):
    X = rng.normal(size=(n, n_features))
    X[:, -1] = rng.integers(0, n_cat + 2, size=n)  # codes n_cat, n_cat+1 never seen
    X[rng.random(X.shape) < 0.15] = np.nan
    X[rng.random(n) < 0.05, -1] = 1.5  # not an integer code
    return X


def slow_apply_row(tree, x):
    """Follow the routing rules for one row, written out plainly."""
    node = 0
    while tree.children_left[node] != -1:
        v = x[tree.feature[node]]
        if tree.is_categorical[node]:
            # an infinite or fractional code is not a category seen in training
            known = np.isfinite(v) and 0 <= v < tree.cat_left.shape[1] and v == int(v)
            go_left = tree.cat_left[node, int(v)] if known else tree.missing_left[node]
        elif np.isnan(v):
            go_left = tree.missing_left[node]
        else:
            go_left = v <= tree.threshold[node]
        node = tree.children_left[node] if go_left else tree.children_right[node]
    return node


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31), st.booleans())
def test_apply_matches_slow_twin(seed, categorical):
    """Both routing paths: general (categorical splits) and fixed-step numeric."""
    rng = np.random.default_rng(seed)
    tree = random_tree(rng, categorical=categorical, max_nodes=int(rng.integers(1, 30)))
    X = random_X(rng)
    leaves = tree.apply(X)
    assert leaves.tolist() == [slow_apply_row(tree, x) for x in X]
    assert np.all(tree.children_left[leaves] == -1)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31))
def test_decision_path_is_the_chain_of_ancestors(seed):
    rng = np.random.default_rng(seed)
    tree = random_tree(rng)
    X = random_X(rng, n=20)
    path = tree.decision_path(X).toarray()
    for i, leaf in enumerate(tree.apply(X)):
        chain, node = set(), leaf
        while node != -1:
            chain.add(node)
            node = tree.parent[node]
        assert set(np.flatnonzero(path[i])) == chain


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31))
def test_subtree_routes_to_the_collapsed_ancestor(seed):
    rng = np.random.default_rng(seed)
    tree = random_tree(rng)
    X = random_X(rng)
    mask = rng.random(tree.n_nodes) < 0.3
    sub = tree.subtree(mask)
    old = tree.apply(X)
    # the leaf in the pruned tree is the highest ancestor-or-self of the old leaf in mask
    expected = []
    for leaf in old:
        chain, node = [], leaf
        while node != -1:
            chain.append(node)
            node = tree.parent[node]
        cut = [v for v in chain if mask[v] and tree.children_left[v] != -1]
        expected.append(cut[-1] if cut else leaf)
    new = sub.apply(X)
    assert sub.kept_node_ids[new].tolist() == expected
    # statistics are carried over
    np.testing.assert_array_equal(sub.value, tree.value[sub.kept_node_ids])
    assert sub.n_leaves == int(np.sum(sub.children_left == -1))


def test_hand_built_routing_and_properties():
    tree = TreeStructure.from_arrays(
        children_left=[1, -1, 3, -1, -1], children_right=[2, -1, 4, -1, -1],
        feature=[0, -1, 1, -1, -1], threshold=[2.5, np.nan, np.nan, np.nan, np.nan],
        is_categorical=[False, False, True, False, False],
        cat_left=[[0, 0, 0], [0, 0, 0], [1, 0, 1], [0, 0, 0], [0, 0, 0]],
        missing_left=[True, False, False, False, False],
        n_node_samples=[10, 4, 6, 3, 3], value=np.ones((5, 2)), impurity=np.zeros(5),
    )
    X = np.array([[1.0, 0.0], [3.0, 0.0], [3.0, 1.0], [3.0, 2.0], [np.nan, 1.0],
                  [3.0, np.nan], [3.0, 7.0]])
    assert tree.apply(X).tolist() == [1, 3, 4, 3, 1, 4, 4]
    assert tree.n_leaves == 3 and tree.max_depth == 2 and tree.n_nodes == 5
    assert tree.node_ids_at_depth(2).tolist() == [3, 4]
    assert tree.descendants_mask(2).tolist() == [False, False, False, True, True]
    assert tree.is_leaf.tolist() == [False, True, False, True, True]
    assert not tree.has_decision_stats
    assert "n_leaves=3" in repr(tree)


def test_single_leaf_tree():
    tree = TreeStructure.from_arrays(children_left=[-1], children_right=[-1], feature=[-1],
                                     threshold=[np.nan], n_node_samples=[3],
                                     value=[[1.0, 2.0]], impurity=[0.4])
    assert tree.apply(np.ones((4, 2))).tolist() == [0, 0, 0, 0]
    assert tree.decision_path(np.ones((2, 1))).toarray().tolist() == [[1], [1]]


def test_arrays_are_frozen_with_canonical_dtypes():
    tree = random_tree(np.random.default_rng(0))
    assert tree.children_left.dtype == np.intp and tree.threshold.dtype == np.float64
    assert tree.n_node_samples.dtype == np.int64 and tree.cat_left.dtype == bool
    with pytest.raises(ValueError):
        tree.value[0, 0] = 5.0


def test_pickle_round_trip_and_replace():
    tree = random_tree(np.random.default_rng(1))
    D = 2
    tree = tree.replace(
        node_decision=np.zeros(tree.n_nodes, dtype=int),
        node_expected=np.zeros((tree.n_nodes, D)),
        cost_sum=np.zeros((tree.n_nodes, D)),
        profit_sum=np.zeros((tree.n_nodes, 2, D)),
    )
    back = pickle.loads(pickle.dumps(tree))
    assert back == tree and back.has_decision_stats
    with pytest.raises(TypeError, match="unknown"):
        tree.replace(colour=1)


def _corrupt(tree, **changes):
    state = tree.__getstate__()
    state.update(changes)
    obj = TreeStructure.__new__(TreeStructure)
    obj.__setstate__(state)


def test_corrupted_pickles_are_rejected():
    tree = random_tree(np.random.default_rng(2), max_nodes=9)
    assert tree.n_nodes >= 3
    bad_child = tree.children_left.copy()
    bad_child[0] = tree.n_nodes + 4
    with pytest.raises(ValueError, match="corrupted"):
        _corrupt(tree, children_left=bad_child)
    with pytest.raises(ValueError, match="dtype"):
        _corrupt(tree, threshold=tree.threshold.astype(np.float32))
    with pytest.raises(ValueError, match="length"):
        _corrupt(tree, impurity=tree.impurity[:-1])
    bad_parent = tree.parent.copy()
    bad_parent[1] = 2
    with pytest.raises(ValueError, match="parent"):
        _corrupt(tree, parent=bad_parent)
    with pytest.raises(ValueError, match="version"):
        _corrupt(tree, _version=99)
    with pytest.raises(ValueError, match="not a dict"):
        TreeStructure.__new__(TreeStructure).__setstate__([1, 2])


def test_constructor_validation():
    good = dict(children_left=[1, -1, -1], children_right=[2, -1, -1], feature=[0, -1, -1],
                threshold=[0.0, np.nan, np.nan], n_node_samples=[2, 1, 1],
                value=[[1, 1], [1, 0], [0, 1]], impurity=[0.5, 0, 0])
    TreeStructure.from_arrays(**good)
    with pytest.raises(ValueError, match="larger id"):
        TreeStructure.from_arrays(**{**good, "children_left": [0, -1, -1]})
    with pytest.raises(ValueError, match="feature"):
        TreeStructure.from_arrays(**{**good, "feature": [0, 1, -1]})
    with pytest.raises(ValueError, match="0 or 2 children"):
        TreeStructure.from_arrays(**{**good, "children_right": [-1, -1, -1]})
    with pytest.raises(ValueError, match="together"):
        TreeStructure.from_arrays(**good, node_decision=[0, 0, 0])
    tree = TreeStructure.from_arrays(**good)
    with pytest.raises(ValueError, match="2-D"):
        tree.apply(np.ones(3))
    with pytest.raises(ValueError, match="columns"):
        tree.apply(np.ones((2, 0)))
    with pytest.raises(ValueError, match="keep_as_leaf_mask"):
        tree.subtree([True])
    with pytest.raises(ValueError, match="node"):
        tree.descendants_mask(7)


# --- fixed-step routing with categorical splits ---------------------------------------


def random_X_wide(rng, n, n_features, n_cat):
    """Codes in and beyond the table, negative, non-integer, infinite and NaN."""
    X = rng.normal(size=(n, n_features))
    X[:, -1] = rng.integers(-2, n_cat + 3, size=n)
    odd = rng.random(n)
    X[odd < 0.05, -1] = 0.5
    X[(odd >= 0.05) & (odd < 0.08), -1] = np.inf
    X[(odd >= 0.08) & (odd < 0.1), -1] = -np.inf
    X[rng.random(X.shape) < 0.1] = np.nan
    return X


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 40), st.integers(1, 4))
def test_fixed_step_categorical_routing_matches_both_twins(seed, n_cat, n_features):
    """apply (fixed steps, per-node lookup) == level-by-level routing == per-row rules."""
    rng = np.random.default_rng(seed)
    tree = random_tree(rng, n_features=n_features, n_cat=n_cat,
                       max_nodes=int(rng.integers(1, 60)))
    X = random_X_wide(rng, 300, n_features, n_cat)
    leaves = tree.apply(X)
    assert leaves.tolist() == tree._route_block(X).tolist()
    assert leaves.tolist() == [slow_apply_row(tree, x) for x in X]


def test_fixed_step_routing_over_many_blocks():
    """More rows than one apply block: every block routes like the level-by-level twin."""
    from dtdecide.tree._structure._tree import _APPLY_BLOCK

    rng = np.random.default_rng(11)
    tree = random_tree(rng, n_features=3, n_cat=30, max_nodes=60)
    assert tree.is_categorical.any()
    X = random_X_wide(rng, 2 * _APPLY_BLOCK + 17, 3, 30)
    np.testing.assert_array_equal(tree.apply(X), tree._route_block(X))


def test_column_split_both_ways_routes_level_by_level():
    """A hand-built tree using one column as numeric and as categorical still routes by
    the rules (the fixed-step lookup needs one kind per column, so it is not used)."""
    tree = TreeStructure.from_arrays(
        children_left=[1, 3, -1, -1, -1], children_right=[2, 4, -1, -1, -1],
        feature=[0, 0, -1, -1, -1], threshold=[2.5, np.nan, np.nan, np.nan, np.nan],
        is_categorical=[False, True, False, False, False],
        cat_left=[[False] * 3, [True, False, True], [False] * 3, [False] * 3, [False] * 3],
        missing_left=[True, False, False, False, False],
        n_node_samples=[5, 3, 2, 2, 1], value=np.ones((5, 2)), impurity=np.zeros(5),
    )
    assert tree._route_mixed
    X = np.array([[0.0], [1.0], [2.0], [3.0], [np.nan], [1.5]])
    assert tree.apply(X).tolist() == [slow_apply_row(tree, x) for x in X] == [3, 4, 3, 2, 4, 4]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31), st.integers(1, 12), st.integers(1, 4), st.integers(1, 16))
def test_few_row_walk_matches_both_twins(seed, n_cat, n_features, n_rows):
    """A few rows (online scoring) are walked one at a time in Python: the same leaves
    as the level-by-level routing and the per-row rules, odd codes included."""
    from dtdecide.tree._structure._tree import _FEW_ROWS

    assert n_rows <= _FEW_ROWS
    rng = np.random.default_rng(seed)
    tree = random_tree(rng, n_features=n_features, n_cat=n_cat,
                       max_nodes=int(rng.integers(1, 40)), categorical=bool(seed % 3))
    X = random_X_wide(rng, n_rows, n_features, n_cat)
    if seed % 2:
        X = np.asfortranarray(X)
    leaves = tree.apply(X)
    assert leaves.dtype == tree.apply(np.vstack([X] * 20))[:n_rows].dtype
    assert leaves.tolist() == tree._route_block(X).tolist()
    assert leaves.tolist() == [slow_apply_row(tree, x) for x in X]


def test_few_row_walk_of_a_tree_splitting_a_column_both_ways():
    tree = TreeStructure.from_arrays(
        children_left=[1, 3, -1, -1, -1], children_right=[2, 4, -1, -1, -1],
        feature=[0, 0, -1, -1, -1], threshold=[2.5, np.nan, np.nan, np.nan, np.nan],
        is_categorical=[False, True, False, False, False],
        cat_left=[[False] * 3, [True, False, True], [False] * 3, [False] * 3, [False] * 3],
        missing_left=[True, False, False, False, False],
        n_node_samples=[5, 3, 2, 2, 1], value=np.ones((5, 2)), impurity=np.zeros(5),
    )
    for x, leaf in zip([0.0, 1.0, 2.0, 3.0, np.nan, 1.5, -np.inf, np.inf],
                       [3, 4, 3, 2, 4, 4, 4, 2]):
        assert tree.apply(np.array([[x]])).tolist() == [leaf]


def test_replacing_decision_fields_equals_building_anew():
    """replace() of decision statistics alone (the fast path that keeps the split
    arrays and the router) gives the tree the constructor gives, frozen, routing the
    same, and refuses what the constructor refuses."""
    from dtdecide.tree._structure._tree import _OPTIONAL, _REQUIRED

    rng = np.random.default_rng(3)
    tree = random_tree(rng)
    n, D = tree.n_nodes, 3
    stats = dict(node_decision=rng.integers(0, D, n), node_expected=rng.random((n, D)),
                 cost_sum=rng.random((n, D)), profit_sum=rng.random((n, 2, D)))
    for fields in (stats, {"cost_sum": stats["cost_sum"]},
                   {k: stats[k] for k in ("node_decision", "node_expected")}):
        got = tree.replace(**fields)
        state = {name: getattr(tree, name) for name in (*_REQUIRED, *_OPTIONAL)}
        want = TreeStructure(**{**state, **fields})
        assert got == want
        for name in (*_REQUIRED, *_OPTIONAL):
            a = getattr(got, name)
            assert a is None or (a.dtype == getattr(want, name).dtype
                                 and not a.flags.writeable), name
        X = random_X(rng)
        assert np.array_equal(got.apply(X), want.apply(X))
        assert got.max_depth == want.max_depth and got.n_leaves == want.n_leaves
        assert isinstance(got, TreeStructure) and not hasattr(got, "kept_node_ids")
    with_stats = tree.replace(**stats)
    assert with_stats.replace(cost_sum=None).cost_sum is None
    with pytest.raises(ValueError, match="length"):
        tree.replace(cost_sum=np.zeros((n + 1, D)))
    with pytest.raises(ValueError, match="ndim"):
        tree.replace(node_expected=np.zeros(n))
    with pytest.raises(ValueError, match="together"):
        tree.replace(node_decision=np.zeros(n, dtype=int))
    with pytest.raises(ValueError, match="together"):
        with_stats.replace(node_expected=None)
    with pytest.raises(TypeError, match="convertible"):
        tree.replace(cost_sum=[["a"] * D] * n)
