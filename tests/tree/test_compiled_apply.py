"""The compiled flat walk of trees with categorical splits (``apply_flat_cat``) against its
NumPy twins: ``Router.route_fixed`` (lookup tables), ``Router.route_levels`` (level by
level) and the compiled ``apply_fixed``, on random trees whose nodes send category
subsets and missing values either way, in every memory layout, over any row range."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_compiled_kernels import kernels, random_numeric_tree, walk_input

from dtdecide.tree import ProfitTreeClassifier

pytest.importorskip("numba")

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def random_tree(rng, n_features, max_depth, n_cat, cat_features):
    """A random tree (:func:`random_numeric_tree`) whose splits on a column of
    ``cat_features`` are categorical, a random subset of the ``n_cat`` codes going left;
    every node sends missing values left or right at random."""
    left, right, feature, threshold, missing_left, depth = random_numeric_tree(
        rng, n_features, max_depth)
    is_cat = (feature >= 0) & np.isin(feature, cat_features)
    threshold[is_cat] = np.nan
    cat_left = (rng.random((feature.shape[0], n_cat)) < 0.5) & is_cat[:, None]
    return left, right, feature, threshold, is_cat, cat_left, missing_left, depth


def with_codes(rng, X, cat_features, n_cat):
    """``X`` with category codes in ``cat_features``: valid codes, unseen, negative and
    fractional ones, NaN and infinities."""
    X = X.copy(order="K")
    n = X.shape[0]
    for f in cat_features:
        code = rng.integers(-2, n_cat + 3, size=n).astype(X.dtype)
        code[rng.random(n) < 0.05] += 0.5
        code[rng.random(n) < 0.1] = np.nan
        code[rng.random(n) < 0.02] = np.inf
        X[:, f] = code
    return X


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1),
       order=st.sampled_from(["C", "F", "F-block", "C-slice", "every-other"]),
       n=st.integers(1, 90), mixed=st.booleans(), float32=st.booleans())
def test_flat_walk_with_categories_equals_numpy_twin(seed, order, n, mixed, float32):
    from dtdecide.tree._kernels import _compiled, _compiled_apply
    from dtdecide.tree._kernels._apply import Router
    from dtdecide.tree._structure._tree import _flat_view

    rng = np.random.default_rng(seed)
    n_features = int(rng.integers(1, 6))
    n_cat = int(rng.integers(1, 9))
    cat_features = rng.choice(n_features, size=int(rng.integers(1, n_features + 1)),
                              replace=False)
    left, right, feature, threshold, is_cat, cat_left, missing_left, depth = random_tree(
        rng, n_features, int(rng.integers(0, 7)), n_cat, cat_features)
    if mixed:  # a hand-built tree may split one column both ways
        numeric = (feature >= 0) & (rng.random(feature.shape[0]) < 0.3)
        is_cat[numeric] = False
        threshold[numeric] = rng.normal(size=int(numeric.sum())).round(1)
        cat_left[numeric] = False
    router = Router(left, right, feature, threshold, is_cat, cat_left, missing_left, depth)
    X = with_codes(rng, walk_input(rng, n, n_features, order), cat_features, n_cat)
    if float32:
        X = X.astype(np.float32)
    twin = router.route_levels(X)
    if not router.mixed:
        assert np.array_equal(router.route_fixed(np.ascontiguousarray(X)), twin)
    fixed = np.empty(n, dtype=np.intp)
    _compiled.apply_fixed(X, 0, n, router.children, router.route_feature,
                          router.route_threshold, is_cat, cat_left, missing_left, depth, fixed)
    assert np.array_equal(fixed, twin)
    flat, rs, cs = _flat_view(X)
    lo, hi = sorted(int(a) for a in rng.integers(0, n + 1, size=2))
    for a, b in [(0, n), (lo, hi)]:
        out = np.full(n, -1, dtype=np.intp)
        _compiled_apply.apply_flat_cat(flat, rs, cs, a, b, *router.flat_records(), n_cat,
                                       depth, out)
        assert np.array_equal(out[a:b], twin[a:b])
        assert (out[:a] == -1).all() and (out[b:] == -1).all()


def test_flat_walk_sends_every_kind_of_code_its_way():
    # one categorical root: codes 0 and 2 left of {0, 1, 2}; anything else by missing_left
    from dtdecide.tree._kernels import _compiled_apply
    from dtdecide.tree._kernels._apply import Router

    values = np.array([0, 1, 2, 3, -1, 0.5, np.nan, np.inf, -np.inf, 2.0, 1e300, -0.0])
    for missing_left, other in [(True, 1), (False, 2)]:
        router = Router(np.array([1, -1, -1]), np.array([2, -1, -1]), np.array([0, -1, -1]),
                        np.array([np.nan, -2.0, -2.0]), np.array([True, False, False]),
                        np.array([[True, False, True]] + [[False] * 3] * 2),
                        np.array([missing_left, False, False]), 1)
        out = np.empty(values.size, dtype=np.intp)
        _compiled_apply.apply_flat_cat(values, 1, 1, 0, values.size, *router.flat_records(),
                                       3, 1, out)
        expected = [1, 2, 1] + [other] * 6 + [1, other, 1]
        assert out.tolist() == expected
        assert router.route_levels(values[:, None]).tolist() == expected


@pytest.mark.parametrize("order", ["C", "F", "F-block", "every-other"])
def test_categorical_tree_apply_walks_flat_for_any_threads(monkeypatch, order):
    """A fitted tree with categorical splits: compiled ``apply`` takes the flat walk on
    every layout and 1-3 threads and equals the NumPy twin; reversed rows (a negative
    stride) and few rows take ``apply_fixed``."""
    from dtdecide.tree._kernels import _compiled_apply

    rng = np.random.default_rng(3)
    n = 4000
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n),
                      "c": pd.Categorical(rng.choice(list("pqrstu"), n)),
                      "d": pd.Categorical(rng.choice(list("xyz"), n))})
    X.loc[rng.random(n) < 0.1, "a"] = np.nan
    X.loc[rng.random(n) < 0.1, "c"] = np.nan
    y = (X["c"].isin(["p", "r", "u"]) ^ (X["a"].fillna(1) > 0)) | (X["d"] == "y")
    est = ProfitTreeClassifier(max_depth=8, min_samples_leaf=5, random_state=0).fit(X, y)
    tree = est.tree_
    assert tree.is_categorical.any() and tree._router.has_cat
    cat_cols = np.flatnonzero(np.isin(np.arange(4), tree.feature[tree.is_categorical]))
    Xe = with_codes(rng, walk_input(rng, 3000, 4, order), cat_cols, tree.cat_left.shape[1])
    with kernels("numpy"):
        twin = tree.apply(Xe)
    calls = []
    walk = _compiled_apply.apply_flat_cat

    def spy(*args):
        calls.append(args[4] - args[3])
        return walk(*args)

    monkeypatch.setattr(_compiled_apply, "apply_flat_cat", spy)
    with kernels("compiled"):
        for threads in (1, 2, 3):
            assert np.array_equal(tree.apply(Xe, n_threads=threads), twin)
        assert sum(calls) == 3 * len(Xe)
        assert np.array_equal(tree.apply(Xe[::-1]), twin[::-1])
        assert np.array_equal(tree.apply(Xe[:20]), twin[:20])
    assert sum(calls) == 3 * len(Xe)  # neither took the flat walk
