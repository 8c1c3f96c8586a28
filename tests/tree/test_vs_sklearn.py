"""Same splits as scikit-learn's exact trees when every distinct value has its own bin.

Both trees are walked in parallel. At each node the training rows must be the same; when
both split, the two splits must send the same rows left — or be an exact tie (equal
impurity decrease), after which that subtree is not compared further. Features are
continuous (no repeated values) and float32-representable, since scikit-learn works in
float32, so ties are rare; the tests also check that almost every node was compared.
"""

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from dtdecide.tree._algorithms._grower import grow_tree
from dtdecide.tree._kernels._binning import Binner


def weighted_impurity(y, w, criterion, n_classes):
    if w.sum() <= 0:
        return 0.0
    if criterion == "squared_error":
        mean = np.average(y, weights=w)
        return float(np.sum(w * (y - mean) ** 2))
    n = np.bincount(y, weights=w, minlength=n_classes)
    N = n.sum()
    p = n[n > 0] / N
    if criterion == "gini":
        return float(N * (1 - np.sum(p * p)))
    return float(-N * np.sum(p * np.log2(p)))


def compare(ours, sk, X, y, w, criterion, n_classes):
    """Walk both trees; return (n compared nodes, n exact ties)."""
    ours_path = ours.decision_path(X).toarray().astype(bool)
    sk_path = sk.decision_path(X.astype(np.float32)).toarray().astype(bool)
    st = sk.tree_
    compared = ties = 0
    stack = [(0, 0)]
    while stack:
        a, b = stack.pop()
        rows = ours_path[:, a]
        np.testing.assert_array_equal(rows, sk_path[:, b], err_msg=f"rows differ at {a}/{b}")
        compared += 1
        ours_leaf = ours.children_left[a] == -1
        sk_leaf = st.children_left[b] == -1
        if ours_leaf and not sk_leaf:
            # scikit-learn's running sums can leave a pure node with an impurity of a few
            # ulps above its epsilon and split it with zero gain; ours computes 0 exactly
            assert weighted_impurity(y[rows], w[rows], criterion, n_classes) <= 1e-9
            continue
        assert ours_leaf == sk_leaf, f"node {a}: leaf {ours_leaf} vs scikit-learn {sk_leaf}"
        if ours_leaf:
            continue
        ours_left = ours_path[:, ours.children_left[a]]
        sk_left = sk_path[:, st.children_left[b]]
        if np.array_equal(ours_left, sk_left):
            assert ours.feature[a] == st.feature[b]
            stack.append((ours.children_left[a], st.children_left[b]))
            stack.append((ours.children_right[a], st.children_right[b]))
            continue
        # different partitions must be an exact tie of the impurity decrease
        def gain(left, rows=rows):
            parent = weighted_impurity(y[rows], w[rows], criterion, n_classes)
            lm, rm = rows & left, rows & ~left
            return parent - weighted_impurity(y[lm], w[lm], criterion, n_classes) - (
                weighted_impurity(y[rm], w[rm], criterion, n_classes)
            )

        assert gain(ours_left) == pytest.approx(gain(sk_left), rel=1e-9, abs=1e-9)
        ties += 1
    return compared, ties


def continuous_data(seed, n, n_features=6):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, n_features)).astype(np.float32).astype(np.float64)
    return X, rng


def grow(X, y, **kw):
    binner = Binner(max_bins=min(65535, X.shape[0]), subsample=None).fit(X)
    return grow_tree(binner.transform(X), binner, y=y, **kw)


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
def test_classifier_splits_equal_scikit_learn(criterion):
    X, rng = continuous_data(0, 3000)
    score = X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(size=3000) * 0.7
    y = np.digitize(score, [-0.5, 0.7])
    kw = dict(max_depth=7, min_samples_leaf=5, min_samples_split=12)
    ours = grow(X, y, criterion=criterion, n_classes=3, **kw)
    sk = DecisionTreeClassifier(criterion=criterion, random_state=0, **kw).fit(X, y)
    compared, ties = compare(ours, sk, X, y, np.ones(y.size), criterion, 3)
    assert compared >= 0.9 * sk.tree_.node_count and ties <= 3
    assert compared > 60


def test_weighted_classifier_splits_equal_scikit_learn():
    X, rng = continuous_data(1, 2000)
    y = (X[:, 0] - X[:, 3] ** 2 + rng.normal(size=2000) > -0.5).astype(int)
    w = rng.random(2000) * 3 + 0.1
    kw = dict(max_depth=6, min_samples_leaf=1, min_samples_split=2)
    ours = grow(X, y, sample_weight=w, n_classes=2, **kw)
    sk = DecisionTreeClassifier(random_state=0, **kw).fit(X, y, sample_weight=w)
    compared, ties = compare(ours, sk, X, y, w, "gini", 2)
    assert compared >= 0.9 * sk.tree_.node_count and compared > 40


def test_class_weight_splits_equal_scikit_learn():
    X, rng = continuous_data(2, 2000)
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1] + rng.normal(size=2000), [0.8, 2.0])
    cw = np.array([1.0, 2.0, 6.0])
    kw = dict(max_depth=5, min_samples_leaf=3, min_samples_split=6)
    ours = grow(X, y, class_weight=cw, n_classes=3, **kw)
    sk = DecisionTreeClassifier(random_state=0, class_weight=dict(enumerate(cw)), **kw)
    sk.fit(X, y)
    compared, ties = compare(ours, sk, X, y, cw[y], "gini", 3)
    assert compared >= 0.9 * sk.tree_.node_count and compared > 20


def test_regressor_splits_equal_scikit_learn():
    X, rng = continuous_data(3, 3000)
    y = 2 * X[:, 0] + np.sin(3 * X[:, 1]) + rng.normal(size=3000) * 0.3
    w = rng.random(3000) + 0.5
    kw = dict(max_depth=7, min_samples_leaf=5, min_samples_split=10)
    ours = grow(X, y, criterion="variance", sample_weight=w, **kw)
    sk = DecisionTreeRegressor(random_state=0, **kw).fit(X, y, sample_weight=w)
    compared, ties = compare(ours, sk, X, y, w, "squared_error", None)
    assert compared >= 0.9 * sk.tree_.node_count and compared > 100


def test_best_first_splits_equal_scikit_learn():
    X, rng = continuous_data(4, 3000)
    y = np.digitize(X[:, 0] * X[:, 1] + X[:, 2] + rng.normal(size=3000) * 0.5, [-0.5, 0.5])
    kw = dict(max_depth=9, min_samples_leaf=4, min_samples_split=8, max_leaf_nodes=25)
    ours = grow(X, y, n_classes=3, **kw)
    sk = DecisionTreeClassifier(random_state=0, **kw).fit(X, y)
    assert ours.n_leaves == sk.get_n_leaves() == 25
    compared, ties = compare(ours, sk, X, y, np.ones(y.size), "gini", 3)
    assert compared == sk.tree_.node_count and ties == 0
