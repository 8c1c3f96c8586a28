"""Vectorised split search against brute-force twins."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dtdecide.tree._kernels._criteria import ordinal_loss_matrix
from dtdecide.tree._kernels._splitter import find_best_splits


def node_w(sums, criterion, L=None):
    """N * I(p) written out for one node (the obvious formulas)."""
    sums = [float(s) for s in sums]
    if criterion == "variance":
        W, S1, S2 = sums
        return S2 - S1 * S1 / W if W > 0 else 0.0
    N = sum(sums)
    if N <= 0:
        return 0.0
    p = [s / N for s in sums]
    if criterion == "gini":
        return N * (1 - sum(q * q for q in p))
    if criterion == "entropy":
        return -N * sum(q * np.log2(q) for q in p if q > 0)
    return N * sum(L[t][d] * p[t] * p[d] for t in range(len(p)) for d in range(len(p)))


def gain_of_table(hist, counts, go_left, criterion, L=None, msl=1, is_clf=True):
    """Gain of one explicit bin -> side assignment; None when not valid."""
    left = np.zeros(hist.shape[-1])
    right = np.zeros(hist.shape[-1])
    n_left = n_right = 0
    for b in range(hist.shape[0]):
        if go_left[b]:
            left += hist[b]
            n_left += counts[b]
        else:
            right += hist[b]
            n_right += counts[b]
    w_left = left.sum() if is_clf else left[0]
    w_right = right.sum() if is_clf else right[0]
    if n_left < msl or n_right < msl or w_left <= 0 or w_right <= 0:
        return None
    return node_w(left + right, criterion, L) - node_w(left, criterion, L) - node_w(right, criterion, L)


def brute_best_numeric(hist, counts, criterion, L=None, msl=1, is_clf=True):
    B = hist.shape[0]
    best = -np.inf
    for t in range(B - 1):
        for missing_left in (False, True):
            table = [b <= t for b in range(B - 1)] + [missing_left]
            g = gain_of_table(hist, counts, table, criterion, L, msl, is_clf)
            if g is not None and g > best:
                best = g
    return best


def brute_best_categorical(hist, counts, criterion, L=None, msl=1, is_clf=True):
    """Every subset of the categories, missing on either side."""
    B = hist.shape[0]
    best = -np.inf
    for mask in itertools.product([False, True], repeat=B):
        g = gain_of_table(hist, counts, list(mask), criterion, L, msl, is_clf)
        if g is not None and g > best:
            best = g
    return best


def random_hist(rng, m, F, B, C, is_clf=True, missing=True):
    counts = rng.integers(0, 6, size=(m, F, B)).astype(float)
    if not missing:
        counts[:, :, -1] = 0
    if is_clf:
        share = rng.dirichlet(np.ones(C) * 0.7, size=(m, F, B))
        hist = np.round(share * counts[..., None] * 2) / 2  # weights in halves
        hist[counts == 0] = 0
        # one consistent node total across features is not needed by the kernel
    else:
        y = rng.normal(size=(m, F, B))
        hist = np.stack([counts, counts * y, counts * (y * y + 0.5)], axis=-1)
    return hist, counts


@pytest.mark.parametrize("criterion", ["gini", "entropy", "generalized_gini", "variance"])
@pytest.mark.parametrize("msl", [1, 3])
def test_numeric_split_gain_is_the_brute_force_optimum(criterion, msl):
    rng = np.random.default_rng(hash((criterion, msl)) % 2**32)
    is_clf = criterion != "variance"
    C = 3 if is_clf else 3
    L = ordinal_loss_matrix(C) if criterion == "generalized_gini" else None
    hist, counts = random_hist(rng, m=6, F=3, B=7, C=C, is_clf=is_clf)
    res = find_best_splits(
        hist, counts, is_classification=is_clf, criterion=criterion, loss_matrix=L,
        is_categorical=np.zeros(3, dtype=bool), min_samples_leaf=msl,
    )
    for i in range(6):
        brute = max(brute_best_numeric(hist[i, j], counts[i, j], criterion, L, msl, is_clf)
                    for j in range(3))
        if not np.isfinite(brute):
            assert res.feature[i] == -1 and res.gain[i] == -np.inf
            continue
        assert res.gain[i] == pytest.approx(brute, rel=1e-9, abs=1e-9)
        f = res.feature[i]
        # the returned table really achieves that gain
        g = gain_of_table(hist[i, f], counts[i, f], res.go_left[i], criterion, L, msl, is_clf)
        assert g == pytest.approx(brute, rel=1e-9, abs=1e-9)
        t = res.bin_threshold[i]
        assert res.go_left[i, :-1].tolist() == [b <= t for b in range(6)]


@pytest.mark.parametrize("criterion", ["gini", "entropy", "variance"])
def test_categorical_binary_and_regression_are_optimal(criterion):
    """Ordering categories by rate / mean finds the best of all 2**k partitions."""
    rng = np.random.default_rng(7)
    is_clf = criterion != "variance"
    hist, counts = random_hist(rng, m=8, F=1, B=7, C=2 if is_clf else 3, is_clf=is_clf)
    res = find_best_splits(
        hist, counts, is_classification=is_clf, criterion=criterion,
        is_categorical=np.array([True]), min_samples_leaf=1,
    )
    for i in range(8):
        brute = brute_best_categorical(hist[i, 0], counts[i, 0], criterion, None, 1, is_clf)
        assert res.gain[i] == pytest.approx(brute, rel=1e-9, abs=1e-9)
        g = gain_of_table(hist[i, 0], counts[i, 0], res.go_left[i], criterion, None, 1, is_clf)
        assert g == pytest.approx(brute, rel=1e-9, abs=1e-9)


def test_categorical_multiclass_heuristic_bounds():
    rng = np.random.default_rng(11)
    hist, counts = random_hist(rng, m=8, F=1, B=6, C=3)
    res = find_best_splits(
        hist, counts, is_classification=True, criterion="gini",
        is_categorical=np.array([True]),
    )
    for i in range(8):
        brute = brute_best_categorical(hist[i, 0], counts[i, 0], "gini")
        g = gain_of_table(hist[i, 0], counts[i, 0], res.go_left[i], "gini")
        assert g == pytest.approx(res.gain[i], abs=1e-9)
        assert res.gain[i] <= brute + 1e-9
        # at least as good as the best prefix of any single class's rate order
        H, c = hist[i, 0, :-1], counts[i, 0, :-1]
        tot = np.where(H.sum(-1) > 0, H.sum(-1), 1.0)
        best_single = -np.inf
        for t in range(3):
            key = np.where(c > 0, H[:, t] / tot, np.inf)
            order = np.argsort(key, kind="stable")
            for s_ in range(len(order)):
                for missing_left in (False, True):
                    table = np.zeros(6, dtype=bool)
                    table[order[: s_ + 1]] = True
                    table[-1] = missing_left
                    g_ = gain_of_table(hist[i, 0], counts[i, 0], table, "gini")
                    if g_ is not None:
                        best_single = max(best_single, g_)
        assert res.gain[i] >= best_single - 1e-9


def test_absent_categories_follow_missing_side():
    hist = np.zeros((1, 1, 5, 2))
    hist[0, 0, 0] = [4, 0]
    hist[0, 0, 2] = [0, 4]
    hist[0, 0, 4] = [1, 0]  # missing values, class 0 -> they belong with category 0
    counts = hist.sum(-1)
    res = find_best_splits(hist, counts, is_classification=True, criterion="gini",
                           is_categorical=np.array([True]))
    assert res.is_categorical[0]
    left = res.go_left[0]
    assert left[0] == left[4] and left[2] != left[0]
    # categories 1 and 3 have no rows: they go where missing values go
    assert left[1] == left[4] and left[3] == left[4]


def test_no_missing_goes_to_heavier_child():
    hist = np.zeros((1, 1, 4, 2))
    hist[0, 0, :3] = [[1, 0], [0, 5], [0, 4]]
    counts = hist.sum(-1)
    res = find_best_splits(hist, counts, is_classification=True, criterion="gini",
                           is_categorical=np.array([False]))
    assert res.bin_threshold[0] == 0 and not res.missing_left[0]
    hist[0, 0, :3] = [[5, 0], [4, 0], [0, 1]]
    res = find_best_splits(hist, hist.sum(-1), is_classification=True, criterion="gini",
                           is_categorical=np.array([False]))
    assert res.bin_threshold[0] == 1 and res.missing_left[0]


def test_missing_side_is_learned():
    hist = np.zeros((1, 1, 4, 2))
    hist[0, 0, :3] = [[5, 0], [0, 5], [0, 5]]
    hist[0, 0, 3] = [3, 0]  # missing rows look like bin 0
    res = find_best_splits(hist, hist.sum(-1), is_classification=True, criterion="gini",
                           is_categorical=np.array([False]))
    assert res.bin_threshold[0] == 0 and res.missing_left[0]
    assert res.gain[0] == pytest.approx(18 * (1 - (64 + 100) / 324))


def test_class_weight_scales_classes():
    hist = np.zeros((1, 1, 3, 2))
    hist[0, 0, :2] = [[2, 1], [1, 2]]
    cw = np.array([3.0, 1.0])
    res = find_best_splits(hist, hist.sum(-1), is_classification=True, criterion="gini",
                           class_weight=cw, is_categorical=np.array([False]))
    weighted = hist[0, 0] * cw
    expected = gain_of_table(weighted, hist[0, 0].sum(-1), [True, False, False], "gini")
    assert res.gain[0] == pytest.approx(expected)


def test_min_samples_leaf_can_forbid_every_split():
    hist = np.zeros((1, 1, 3, 2))
    hist[0, 0, :2] = [[2, 0], [0, 2]]
    res = find_best_splits(hist, hist.sum(-1), is_classification=True, criterion="gini",
                           is_categorical=np.array([False]), min_samples_leaf=3)
    assert res.feature[0] == -1 and not res.go_left.any()


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31), st.integers(2, 4))
def test_property_gain_matches_brute_force(seed, n_classes):
    rng = np.random.default_rng(seed)
    hist, counts = random_hist(rng, m=2, F=2, B=5, C=n_classes)
    res = find_best_splits(hist, counts, is_classification=True, criterion="gini",
                           is_categorical=np.array([False, False]))
    for i in range(2):
        brute = max(brute_best_numeric(hist[i, j], counts[i, j], "gini") for j in range(2))
        if np.isfinite(brute):
            assert res.gain[i] == pytest.approx(brute, rel=1e-9, abs=1e-9)
        else:
            assert res.feature[i] == -1


# --- per-feature widths (flat BinLayout) ----------------------------------------------


def _flat_and_padded(rng, m, widths, C, is_clf):
    """A flat histogram over per-feature widths and its zero-padded uniform 4-D twin."""
    from dtdecide.tree._kernels._histogram import BinLayout

    layout = BinLayout(widths)
    B = layout.max_width
    flat_parts, flat_counts = [], []
    padded = np.zeros((m, len(widths), B, C))
    padded_c = np.zeros((m, len(widths), B))
    for j, w in enumerate(widths):
        h, c = random_hist(rng, m, 1, w, C, is_clf=is_clf)
        flat_parts.append(h[:, 0])
        flat_counts.append(c[:, 0])
        padded[:, j, : w - 1], padded[:, j, B - 1] = h[:, 0, : w - 1], h[:, 0, w - 1]
        padded_c[:, j, : w - 1], padded_c[:, j, B - 1] = c[:, 0, : w - 1], c[:, 0, w - 1]
    return (np.concatenate(flat_parts, axis=1), np.concatenate(flat_counts, axis=1),
            padded, padded_c, layout)


@settings(max_examples=30, deadline=None)
@given(
    st.integers(0, 2**31),
    st.lists(st.integers(2, 8), min_size=1, max_size=4),
    st.sampled_from(["gini", "entropy", "variance"]),
    st.sampled_from([2, 3]),
)
def test_flat_layout_equals_padded_uniform_search(seed, widths, criterion, n_classes):
    """Scanning each feature over its own bins finds what the padded scan finds."""
    rng = np.random.default_rng(seed)
    is_clf = criterion != "variance"
    C = n_classes if is_clf else 3
    flat, flat_c, padded, padded_c, layout = _flat_and_padded(rng, 6, widths, C, is_clf)
    is_cat = rng.random(len(widths)) < 0.5
    kw = dict(is_classification=is_clf, criterion=criterion, is_categorical=is_cat,
              min_samples_leaf=int(rng.integers(1, 3)))
    got = find_best_splits(flat, flat_c, layout=layout, **kw)
    ref = find_best_splits(padded, padded_c, **kw)
    np.testing.assert_array_equal(got.feature, ref.feature)
    np.testing.assert_allclose(got.gain, ref.gain, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(got.bin_threshold, ref.bin_threshold)
    np.testing.assert_array_equal(got.missing_left, ref.missing_left)
    np.testing.assert_array_equal(got.is_categorical, ref.is_categorical)
    # the go-left tables agree on every binned value the chosen feature can take
    for i in np.flatnonzero(got.feature >= 0):
        w = widths[got.feature[i]]
        B = layout.max_width
        np.testing.assert_array_equal(got.go_left[i, : w - 1], ref.go_left[i, : w - 1])
        assert got.go_left[i, B - 1] == ref.go_left[i, B - 1]


@settings(max_examples=30, deadline=None)
@given(
    st.integers(0, 2**31),
    st.lists(st.integers(2, 8), min_size=1, max_size=4),
    st.sampled_from(["gini", "entropy", "variance"]),
)
def test_per_feature_splits_contain_the_best_split(seed, widths, criterion):
    """per_feature=True lists every feature's best split; the best of them is the split
    of the default search, entry for entry."""
    rng = np.random.default_rng(seed)
    is_clf = criterion != "variance"
    C = 2 if is_clf else 3
    m, F = 5, len(widths)
    flat, flat_c, _, _, layout = _flat_and_padded(rng, m, widths, C, is_clf)
    is_cat = rng.random(F) < 0.5
    kw = dict(is_classification=is_clf, criterion=criterion, is_categorical=is_cat,
              min_samples_leaf=int(rng.integers(1, 3)), layout=layout)
    best = find_best_splits(flat, flat_c, **kw)
    each = find_best_splits(flat, flat_c, per_feature=True, **kw)
    assert each.feature.shape == (m * F,)
    for i in range(m):
        block = slice(i * F, (i + 1) * F)
        feats = each.feature[block]
        assert set(feats[feats >= 0]) <= set(range(F))
        assert np.all((feats == -1) | (feats == np.arange(F)))
        if best.feature[i] < 0:
            assert (feats == -1).all()
            continue
        k = i * F + int(best.feature[i])
        assert each.gain[k] == best.gain[i] == each.gain[block].max()
        assert each.bin_threshold[k] == best.bin_threshold[i]
        assert each.missing_left[k] == best.missing_left[i]
        np.testing.assert_array_equal(each.go_left[k], best.go_left[i])


def test_flat_layout_shape_errors():
    from dtdecide.tree._kernels._histogram import BinLayout

    hist = np.zeros((1, 5, 2))
    kw = dict(is_classification=True, criterion="gini", is_categorical=np.array([False]))
    with pytest.raises(ValueError, match="4-D"):
        find_best_splits(hist, None, **kw)
    with pytest.raises(ValueError, match="layout has 4"):
        find_best_splits(hist, None, layout=BinLayout([4]), **kw)
