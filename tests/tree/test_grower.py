"""grow_tree: routing equals the training partition, statistics, stopping rules."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dtdecide.tree._algorithms._grower import grow_tree
from dtdecide.tree._kernels._binning import Binner
from dtdecide.tree._kernels._criteria import impurity


def make_data(seed, n=400, n_classes=3, nan_rate=0.1, n_cat=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    X[:, 3] = rng.integers(0, n_cat, size=n)  # categorical codes
    logits = X[:, 0] + (X[:, 3] % 2) * 1.5 - X[:, 1] ** 2
    y = np.digitize(logits + rng.normal(size=n) * 0.5, [-1.0, 0.5])[: n] % n_classes
    X[rng.random(X.shape) < nan_rate] = np.nan
    is_cat = np.array([False, False, False, True])
    return X, y, is_cat, rng


def fit(X, y, is_cat, max_bins=32, **kw):
    binner = Binner(max_bins=max_bins, random_state=0).fit(X, is_cat, kw.get("sample_weight"))
    return grow_tree(binner.transform(X), binner, y=y, **kw)


def node_rows(tree, X):
    """Boolean (n_samples, n_nodes): rows that pass through each node (via apply)."""
    return tree.decision_path(X).toarray().astype(bool)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**31), st.booleans(), st.sampled_from(["gini", "entropy"]))
def test_apply_reproduces_training_partition(seed, weighted, criterion):
    X, y, is_cat, rng = make_data(seed)
    w = rng.random(y.size) * 2 if weighted else None
    tree = fit(X, y, is_cat, sample_weight=w, criterion=criterion, n_classes=3,
               max_depth=5, min_samples_leaf=3, min_samples_split=6)
    inside = node_rows(tree, X)
    ww = np.ones(y.size) if w is None else w
    for node in range(tree.n_nodes):
        rows = inside[:, node]
        assert tree.n_node_samples[node] == rows.sum()
        expected = np.bincount(y[rows], weights=ww[rows], minlength=3)
        np.testing.assert_allclose(tree.value[node], expected, rtol=1e-10, atol=1e-9)
        # a class absent from the node weighs exactly nothing (no subtraction residue)
        assert np.array_equal(tree.value[node] > 0, expected > 0)
        assert tree.weighted_n_node_samples[node] == pytest.approx(ww[rows].sum())
        assert tree.impurity[node] == pytest.approx(
            float(impurity(expected, criterion)), abs=1e-9
        )
    leaf = tree.children_left == -1
    assert np.all(tree.n_node_samples[leaf] >= 3)
    internal = ~leaf
    assert np.all(tree.n_node_samples[internal] >= 6)
    # a pure node is a leaf
    assert np.all((tree.value[internal] > 0).sum(axis=1) >= 2)
    assert tree.max_depth <= 5
    # children add up to their parent
    lc, rc = tree.children_left[internal], tree.children_right[internal]
    np.testing.assert_allclose(tree.value[lc] + tree.value[rc], tree.value[internal], atol=1e-9)


def test_regression_values_are_raw_sums():
    X, _, is_cat, rng = make_data(5, nan_rate=0.05)
    y = 1000.0 + np.nan_to_num(X[:, 0]) * 3 + rng.normal(size=X.shape[0])
    w = rng.random(y.size) + 0.5
    tree = fit(X, y, is_cat, sample_weight=w, criterion="variance", max_depth=4)
    inside = node_rows(tree, X)
    for node in range(tree.n_nodes):
        r = inside[:, node]
        expected = [w[r].sum(), (w[r] * y[r]).sum(), (w[r] * y[r] ** 2).sum()]
        np.testing.assert_allclose(tree.value[node], expected, rtol=1e-9)
        var = np.average((y[r] - np.average(y[r], weights=w[r])) ** 2, weights=w[r])
        assert tree.impurity[node] == pytest.approx(var, rel=1e-6, abs=1e-9)
    assert tree.n_leaves > 4


def test_chunk_size_does_not_change_the_tree():
    X, y, is_cat, _ = make_data(1)
    a = fit(X, y, is_cat, n_classes=3, max_depth=6, min_samples_leaf=1, min_samples_split=2)
    b = fit(X, y, is_cat, n_classes=3, max_depth=6, min_samples_leaf=1, min_samples_split=2,
            chunk_size=37)
    assert a == b


def test_unit_weights_equal_no_weights_and_integer_weights_equal_duplication():
    X, y, is_cat, rng = make_data(2, nan_rate=0.0)
    kw = dict(n_classes=3, max_depth=4, min_samples_leaf=1, min_samples_split=2)
    assert fit(X, y, is_cat, **kw) == fit(X, y, is_cat, sample_weight=np.ones(y.size), **kw)
    w = rng.integers(1, 4, size=y.size)
    rep = np.repeat(np.arange(y.size), w)
    binner = Binner(max_bins=1000).fit(X, is_cat)
    tw = grow_tree(binner.transform(X), binner, y=y, sample_weight=w.astype(float), **kw)
    td = grow_tree(binner.transform(X[rep]), binner, y=y[rep], **kw)
    assert tw.n_nodes == td.n_nodes
    np.testing.assert_array_equal(tw.feature, td.feature)
    np.testing.assert_allclose(tw.value, td.value)
    np.testing.assert_array_equal(tw.apply(X), td.apply(X))


def test_best_first_respects_max_leaf_nodes():
    X, y, is_cat, _ = make_data(3, n=600)
    for k in (2, 5, 17):
        tree = fit(X, y, is_cat, n_classes=3, max_depth=8, min_samples_leaf=1,
                   min_samples_split=2, max_leaf_nodes=k)
        assert tree.n_leaves == k
    # with a huge budget best-first grows the same tree as level-wise
    lw = fit(X, y, is_cat, n_classes=3, max_depth=4, min_samples_leaf=2, min_samples_split=4)
    bf = fit(X, y, is_cat, n_classes=3, max_depth=4, min_samples_leaf=2, min_samples_split=4,
             max_leaf_nodes=10_000)
    assert lw.n_leaves == bf.n_leaves
    # same partition of the rows into leaves
    pairs = set(zip(lw.apply(X).tolist(), bf.apply(X).tolist()))
    assert len(pairs) == lw.n_leaves


def test_categorical_feature_found_with_perfect_partition():
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 6, size=300).astype(float)
    y = np.isin(codes, [1, 4, 5]).astype(int)
    X = np.column_stack([rng.normal(size=300), codes])
    tree = fit(X, y, np.array([False, True]), max_depth=1, min_samples_leaf=1)
    assert tree.feature[0] == 1 and tree.is_categorical[0]
    assert tree.cat_left[0, [1, 4, 5]].all() != tree.cat_left[0, [0, 2, 3]].any()
    assert tree.impurity[1] == 0 and tree.impurity[2] == 0
    # an unseen category code follows missing_left
    leaf = tree.apply(np.array([[0.0, 9.0], [0.0, np.nan]]))
    expected = 1 if tree.missing_left[0] else 2
    assert leaf.tolist() == [expected, expected]


def test_missing_values_learn_their_side():
    rng = np.random.default_rng(4)
    x = rng.normal(size=500)
    y = (x > 0).astype(int)
    x[y == 1] = np.where(rng.random((y == 1).sum()) < 0.3, np.nan, x[y == 1])
    tree = fit(x[:, None], y, np.array([False]), max_bins=1000, max_depth=1, min_samples_leaf=1)
    right_is_one = tree.value[2, 1] > tree.value[2, 0]
    assert tree.missing_left[0] == (not right_is_one)
    assert tree.impurity[1] == 0 and tree.impurity[2] == 0


def test_class_weight_uniform_scale_and_generalized_gini_zero_one():
    X, y, is_cat, _ = make_data(6)
    kw = dict(n_classes=3, max_depth=5, min_samples_leaf=2, min_samples_split=4)
    base = fit(X, y, is_cat, **kw)
    scaled = fit(X, y, is_cat, class_weight=np.full(3, 2.5), **kw)
    np.testing.assert_array_equal(base.feature, scaled.feature)
    np.testing.assert_array_equal(base.value, scaled.value)  # value stays raw
    gg = fit(X, y, is_cat, criterion="generalized_gini", loss_matrix=1 - np.eye(3), **kw)
    np.testing.assert_array_equal(base.feature, gg.feature)
    np.testing.assert_allclose(base.impurity, gg.impurity, atol=1e-12)
    skew = fit(X, y, is_cat, class_weight=np.array([1.0, 1.0, 20.0]), **kw)
    assert not (skew.n_nodes == base.n_nodes and np.array_equal(skew.feature, base.feature))


def test_stopping_rules():
    X, y, is_cat, _ = make_data(7)
    stump = fit(X, y, is_cat, n_classes=3, max_depth=1)
    assert stump.n_nodes == 3
    lone = fit(X, y, is_cat, n_classes=3, min_samples_split=10_000)
    assert lone.n_nodes == 1 and lone.n_leaves == 1
    big_leaf = fit(X, y, is_cat, n_classes=3, min_samples_leaf=150, max_depth=None)
    assert big_leaf.n_node_samples[big_leaf.children_left == -1].min() >= 150
    strict = fit(X, y, is_cat, n_classes=3, min_impurity_decrease=0.05, max_depth=None)
    loose = fit(X, y, is_cat, n_classes=3, max_depth=None)
    assert strict.n_nodes < loose.n_nodes
    pure = fit(X, np.zeros(y.size, dtype=int), is_cat)
    assert pure.n_nodes == 1
    const = fit(np.ones((50, 2)), np.arange(50) % 2, None, min_samples_leaf=1)
    assert const.n_nodes == 1


@pytest.mark.parametrize(
    "kwargs, err, match",
    [
        ({"criterion": "gain"}, ValueError, "criterion"),
        ({"max_depth": 0}, ValueError, "max_depth"),
        ({"min_samples_leaf": 0}, ValueError, "min_samples_leaf"),
        ({"min_samples_split": 1}, ValueError, "min_samples_split"),
        ({"max_leaf_nodes": 1}, ValueError, "max_leaf_nodes"),
        ({"min_impurity_decrease": -1.0}, ValueError, "min_impurity_decrease"),
        ({"sample_weight": -np.ones(40)}, ValueError, "sample_weight"),
        ({"sample_weight": np.ones(3)}, ValueError, "sample_weight"),
        ({"class_weight": np.ones(5)}, ValueError, "class_weight"),
        ({"criterion": "generalized_gini"}, ValueError, "loss_matrix"),
        ({"loss_matrix": np.ones((2, 2))}, ValueError, "loss_matrix"),
        ({"n_classes": 1}, ValueError, "n_classes"),
        ({"criterion": "variance", "class_weight": [1, 1]}, ValueError, "class_weight"),
    ],
)
def test_parameter_errors(kwargs, err, match):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = np.arange(40) % 2
    binner = Binner().fit(X)
    with pytest.raises(err, match=match):
        grow_tree(binner.transform(X), binner, y=y, **kwargs)


def test_input_errors():
    X = np.random.default_rng(0).normal(size=(10, 2))
    binner = Binner().fit(X)
    Xb = binner.transform(X)
    with pytest.raises(TypeError, match="X_binned"):
        grow_tree(X, binner, y=np.zeros(10, dtype=int))
    with pytest.raises(ValueError, match="columns"):
        grow_tree(Xb[:, :1], binner, y=np.zeros(10, dtype=int))
    with pytest.raises(ValueError, match="y must have shape"):
        grow_tree(Xb, binner, y=np.zeros(3, dtype=int))
    with pytest.raises(ValueError, match="integer class codes"):
        grow_tree(Xb, binner, y=np.full(10, 0.5))
    with pytest.raises(ValueError, match="finite"):
        grow_tree(Xb, binner, y=np.full(10, np.nan), criterion="variance")
    with pytest.raises(ValueError, match="fitted Binner"):
        grow_tree(Xb, Binner(), y=np.zeros(10, dtype=int))


def test_many_categories_uint16_and_regression_on_categories():
    rng = np.random.default_rng(8)
    codes = rng.integers(0, 300, size=3000).astype(float)
    y = (codes % 3 == 0).astype(int)
    X = np.column_stack([codes, rng.normal(size=3000)])
    binner = Binner().fit(X, np.array([True, False]))
    Xb = binner.transform(X)
    assert Xb.dtype == np.uint16
    tree = grow_tree(Xb, binner, y=y, max_depth=1, min_samples_leaf=1)
    assert tree.feature[0] == 0 and tree.cat_left.shape[1] == 300
    assert tree.impurity[1] == 0 and tree.impurity[2] == 0  # optimal partition found
    np.testing.assert_array_equal(tree.apply(X), np.where(y == 1, 1, 2) if tree.value[1, 1] > 0
                                  else np.where(y == 1, 2, 1))
    # regression: categories ordered by mean give the optimal binary partition too
    yr = np.where(codes % 3 == 0, 5.0, -1.0) + rng.normal(size=3000) * 0.01
    treg = grow_tree(Xb, binner, y=yr, criterion="variance", max_depth=1, min_samples_leaf=1)
    assert treg.feature[0] == 0
    left_rows = treg.apply(X) == 1
    assert len(set((codes[left_rows] % 3 == 0).tolist())) == 1


def test_weighted_best_first_with_categorical_and_missing():
    X, y, is_cat, rng = make_data(9, n=500)
    w = rng.random(y.size) + 0.2
    tree = fit(X, y, is_cat, sample_weight=w, n_classes=3, max_depth=6, min_samples_leaf=4,
               min_samples_split=8, max_leaf_nodes=12)
    assert tree.n_leaves == 12
    inside = node_rows(tree, X)
    for node in range(tree.n_nodes):
        rows = inside[:, node]
        assert tree.n_node_samples[node] == rows.sum()
        np.testing.assert_allclose(tree.value[node], np.bincount(y[rows], w[rows], 3), atol=1e-9)
    assert tree.n_node_samples[tree.children_left == -1].min() >= 4


def test_ordinal_generalized_gini_grows_and_routes():
    X, y, is_cat, _ = make_data(10, n=600)
    from dtdecide.tree._kernels._criteria import ordinal_loss_matrix

    tree = fit(X, y, is_cat, criterion="generalized_gini", loss_matrix=ordinal_loss_matrix(3),
               n_classes=3, max_depth=4)
    inside = node_rows(tree, X)
    for node in range(tree.n_nodes):
        counts = np.bincount(y[inside[:, node]], minlength=3)
        F = np.cumsum(counts / counts.sum())[:-1]
        assert tree.impurity[node] == pytest.approx(2 * np.sum(F * (1 - F)), abs=1e-12)
    assert tree.n_leaves > 3


# --- per-feature histogram widths -----------------------------------------------------


def _mixed_width_data(seed, n=600):
    """Numeric (many bins), a constant column, small and wide categorical inputs, NaN."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([
        rng.normal(size=n),
        np.ones(n),  # one bin: the narrowest width
        rng.integers(0, 3, size=n),
        rng.integers(0, 40, size=n),  # the widest feature: its width sets missing_bin_idx_
        rng.integers(0, 4, size=n) / 2.0,  # few distinct numeric values
    ])
    effect = rng.normal(size=40)
    score = X[:, 0] + effect[X[:, 3].astype(int)] + (X[:, 2] == 1) - X[:, 4]
    X[rng.random(X.shape) < 0.08] = np.nan
    is_cat = np.array([False, False, True, True, False])
    return X, score + rng.normal(size=n) * 0.3, is_cat, rng


@pytest.mark.parametrize("criterion", ["gini", "entropy", "variance"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("max_leaf_nodes", [None, 12])
def test_per_feature_widths_grow_the_padded_uniform_tree(monkeypatch, criterion, weighted,
                                                         max_leaf_nodes):
    """The flat per-feature layout grows exactly the tree of the old uniform layout (every
    feature as wide as the widest, the slow twin), and routes the training rows as split."""
    import dtdecide.tree._algorithms._grower as grower_module
    from dtdecide.tree._kernels._histogram import BinLayout

    X, score, is_cat, rng = _mixed_width_data(3)
    y = score if criterion == "variance" else np.digitize(score, np.quantile(score, [0.3, 0.7]))
    sw = rng.random(y.size) * 2 if weighted else None
    binner = Binner(max_bins=64, random_state=0).fit(X, is_cat, sw)
    Xb = binner.transform(X)
    assert len(set(BinLayout.from_binner(binner).widths.tolist())) >= 4
    kw = dict(y=y, sample_weight=sw, criterion=criterion, max_depth=6, min_samples_leaf=2,
              min_samples_split=4, max_leaf_nodes=max_leaf_nodes)
    flat_tree = grow_tree(Xb, binner, **kw)
    monkeypatch.setattr(
        grower_module.BinLayout, "from_binner",
        classmethod(lambda cls, b: cls.uniform(b.n_features_in_, b.n_bins_total_)),
    )
    uniform_tree = grow_tree(Xb, binner, **kw)
    assert flat_tree.n_nodes > 5 and flat_tree.is_categorical.any()
    assert flat_tree == uniform_tree
    # apply reproduces the training partition (n_node_samples at the leaves)
    leaves = flat_tree.apply(X)
    counts = np.bincount(leaves, minlength=flat_tree.n_nodes)
    is_leaf = flat_tree.children_left == -1
    np.testing.assert_array_equal(counts[is_leaf], flat_tree.n_node_samples[is_leaf])


def test_level_histograms_scale_with_the_sum_of_widths(monkeypatch):
    """Node histograms hold sum(n_bins_ + 1) cells, not n_features * max width."""
    import dtdecide.tree._algorithms._grower as grower_module

    X, score, is_cat, _ = _mixed_width_data(4)
    y = np.digitize(score, [0.0])
    binner = Binner(max_bins=16, random_state=0).fit(X, is_cat)
    seen = []
    real = grower_module.find_level_splits

    def spy(hists, counts, **kw):
        seen.extend(hist.shape for hist in hists)
        return real(hists, counts, **kw)

    monkeypatch.setattr(grower_module, "find_level_splits", spy)
    grow_tree(binner.transform(X), binner, y=y, max_depth=3)
    n_cells = int((binner.n_bins_ + 1).sum())
    assert n_cells < X.shape[1] * binner.n_bins_total_
    assert seen and all(shape[1:] == (n_cells, 2) for shape in seen)


@pytest.mark.parametrize("mode", ["gini", "weighted", "variance", "best-first", "profit"])
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_histogram_parts_grow_the_same_tree(monkeypatch, mode, n_jobs):
    """A level's histograms in several parts (each larger child written over its
    parent's, every part scanned on its own) grow the tree of one joined part, with the
    same leaves, on the NumPy twins and the compiled kernels."""
    import dtdecide.tree._algorithms._grower as grower_module
    from dtdecide import config_context
    from dtdecide._parallel import thread_pool

    X, y, is_cat, rng = make_data(11, n=700)
    kw = dict(max_depth=6, min_samples_leaf=2, min_samples_split=4)
    if mode == "gini":
        kw.update(n_classes=3)
    elif mode == "weighted":
        kw.update(n_classes=3, sample_weight=rng.uniform(0.5, 2.0, size=y.size))
    elif mode == "variance":
        kw.update(criterion="variance")
        y = y + rng.normal(size=y.size)
    elif mode == "best-first":
        kw.update(n_classes=3, max_depth=None, max_leaf_nodes=14)
    else:
        kw.update(criterion="profit", case_profit=rng.normal(size=(y.size, 2)), n_classes=3)
    binner = Binner(max_bins=32, random_state=0).fit(X, is_cat)
    Xb = binner.transform(X)
    parts = []
    real = grower_module.find_level_splits

    def spy(hists, counts, **k):
        parts.extend(hist.shape[0] for hist in hists)
        return real(hists, counts, **k)

    def grow():
        with thread_pool(n_jobs) as pool:
            return grow_tree(Xb, binner, y=y, pool=pool, return_leaves=True, **kw)

    monkeypatch.setattr(grower_module, "find_level_splits", spy)
    for kernels in ("numpy", "compiled"):
        with config_context(kernels=kernels):
            joined, joined_leaves = grow()
            n_joined = len(parts)
            monkeypatch.setattr(grower_module, "_SMALL_PART_BYTES", 0)  # never joined
            split, split_leaves = grow()
            monkeypatch.undo()
            monkeypatch.setattr(grower_module, "find_level_splits", spy)
        if mode != "best-first":
            assert len(parts) - n_joined > n_joined  # several parts per level
        parts.clear()
        for name in ("children_left", "children_right", "feature", "threshold",
                     "missing_left", "cat_left", "n_node_samples", "value", "impurity",
                     "weighted_n_node_samples"):
            np.testing.assert_array_equal(getattr(joined, name), getattr(split, name),
                                          err_msg=name)
        np.testing.assert_array_equal(joined_leaves, split_leaves)
        np.testing.assert_array_equal(split_leaves, split.apply(X))
