"""The compiled split scan (``_kernels/_compiled_scan``) against the NumPy scan.

:func:`find_best_splits` under ``kernels="compiled"`` and ``kernels="numpy"`` on random
histograms: the same chosen splits (feature, threshold, categorical left sets, missing
side), gains equal to a relative 1e-12 (bit for bit but for weighted entropy, whose
``log2`` is the C library's: there to 1e-12 of the node's weight), for
every criterion and profit method (on money sums, or on level counts mapped to money),
row counts or weights, class weights, categorical
features, missing values, ``per_feature`` and one or two threads; and the same trees,
node for node, for the fits that the other twin tests do not grow.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_n_jobs import assert_same_tree

from dtdecide import DecisionMatrix, ProfitTreeClassifier, ProfitTreeRegressor, config_context
from dtdecide._parallel import ThreadPool
from dtdecide.tree._kernels._histogram import BinLayout
from dtdecide.tree._kernels._profit import PROFIT_METHODS, ProfitCriterion
from dtdecide.tree._kernels._splitter import (
    _compiled_supports,
    find_best_splits,
    find_level_splits,
)

pytest.importorskip("numba")

CRITERIA = ("gini", "entropy", "generalized_gini", "variance", "profit")
# the criteria whose fits build float32 histograms (row counts of the classes, no weights)
FLOAT32_CRITERIA = ("gini", "entropy", "generalized_gini")


@st.composite
def scan_case(draw):
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    criterion = draw(st.sampled_from(CRITERIA))
    layout = BinLayout(np.array(draw(st.lists(st.integers(2, 10), min_size=1, max_size=4))))
    m = draw(st.integers(1, 4))
    shape = (m, layout.n_cells)
    present = rng.random(shape) < draw(st.sampled_from([0.5, 0.9, 1.0]))
    if not draw(st.booleans()):  # no missing value anywhere
        present[:, layout.offsets[1:] - 1] = False
    rows = np.where(present, rng.integers(1, 9, size=shape), 0)
    weighted = draw(st.booleans())
    weights = rows * rng.uniform(0.2, 3.0, size=shape) if weighted else rows.astype(float)
    class_weight = None
    channel_map = None
    if criterion == "variance":
        mean, var = rng.normal(size=shape), rng.uniform(0.0, 2.0, size=shape)
        hist = np.stack([weights, weights * mean, weights * (mean * mean + var)], axis=-1)
        is_clf, crit = False, criterion
    elif criterion == "profit" and draw(st.booleans()):
        # money per level (no case costs): the histogram holds the level counts and the
        # scan derives the money channels through the grower's level map
        crit = ProfitCriterion(draw(st.integers(2, 4)), draw(st.sampled_from(PROFIT_METHODS)))
        n_levels = draw(st.integers(2, 4))
        table = rng.normal(size=(n_levels, crit.n_decisions)).round(draw(st.sampled_from([0, 2])))
        codes, amounts = crit.row_channels(table, rng.uniform(0.5, 2.0, size=n_levels))
        channel_map = np.zeros((n_levels, crit.n_channels))
        for k in range(crit.n_groups):
            channel_map[np.arange(n_levels), k * crit.n_decisions + codes] = amounts[k]
        hist = np.stack([rng.multinomial(r, np.ones(n_levels) / n_levels)
                         for r in rows.ravel()]).reshape(*shape, n_levels).astype(float)
        if weighted:
            hist = hist * rng.uniform(0.2, 3.0, size=hist.shape)
        is_clf = True
    elif criterion == "profit":
        crit = ProfitCriterion(draw(st.integers(2, 4)), draw(st.sampled_from(PROFIT_METHODS)))
        share = rng.dirichlet(np.ones(crit.n_channels), size=shape)
        hist = weights[..., None] * share * rng.uniform(0.0, 5.0, size=(*shape, 1))
        is_clf = True
    else:
        n_classes = draw(st.integers(2, 8 if criterion == "generalized_gini" else 4))
        share = rng.multinomial(1, np.ones(n_classes) / n_classes, size=shape)
        share = share + rng.random((*shape, n_classes)) * weighted  # mixed classes
        hist = weights[..., None] * share / share.sum(axis=-1, keepdims=True)
        if not weighted:  # whole rows per class
            hist = np.stack([rng.multinomial(r, np.ones(n_classes) / n_classes)
                             for r in rows.ravel()]).reshape(*shape, n_classes)
        if draw(st.booleans()):
            class_weight = rng.uniform(0.5, 2.0, size=n_classes)
        is_clf, crit = True, criterion
    # float32 histograms only where a fit makes them: unweighted class counts
    # (HistogramTarget.hist_dtype); the variance and profit scans always get float64
    small = not weighted and (criterion in FLOAT32_CRITERIA or channel_map is not None)
    dtype = np.float32 if small and draw(st.booleans()) else np.float64
    hist = hist.astype(dtype)
    counts = rows.astype(np.int32) if (weighted or draw(st.booleans())) else None
    if counts is None and not weighted and criterion == "variance":
        hist[..., 0] = rows  # unit weights: W is the row count
    loss = None
    if criterion == "generalized_gini":
        loss = rng.uniform(0.0, 3.0, size=(n_classes, n_classes))
        loss = (loss + loss.T) / 2
        np.fill_diagonal(loss, 0.0)
    kw = dict(is_classification=is_clf, criterion=crit, loss_matrix=loss,
              class_weight=class_weight,
              is_categorical=rng.random(layout.widths.size) < 0.4,
              min_samples_leaf=draw(st.integers(1, 4)), layout=layout,
              per_feature=draw(st.booleans()), channel_map=channel_map)
    return hist, counts, kw, draw(st.sampled_from([1, 2]))


def scan(mode, hist, counts, kw, n_jobs):
    with config_context(kernels=mode):
        if n_jobs == 1:
            return find_best_splits(hist, counts, **kw)
        with ThreadPool(n_jobs) as pool:
            return find_best_splits(hist, counts, pool=pool, **kw)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scan_case())
def test_compiled_scan_equals_numpy_twin(case):
    hist, counts, kw, n_jobs = case
    a = scan("numpy", hist, counts, kw, 1)
    b = scan("compiled", hist, counts, kw, n_jobs)
    entropy = kw["criterion"] == "entropy"
    same = np.ones(a.feature.shape, dtype=bool)
    for name in ("feature", "bin_threshold", "is_categorical", "missing_left", "go_left"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and x.shape == y.shape, name
        equal = (x == y) if x.ndim == 1 else (x == y).all(axis=1)
        assert entropy or equal.all(), name
        same &= equal
    assert np.array_equal(np.isfinite(a.gain), np.isfinite(b.gain))
    assert np.array_equal(a.is_valid, b.is_valid)
    # entropy: NumPy's log2 and the C library's (Numba's) differ in the last bit, and a
    # gain is the difference of terms as large as the node's weight times log2 of it
    atol = 1e-12 * float(hist.sum()) if entropy else 0.0
    np.testing.assert_allclose(b.gain[a.is_valid], a.gain[a.is_valid], rtol=1e-12, atol=atol)
    # so two splits whose gains tie within that tolerance may be chosen either way: a
    # node where the twins chose differently is such a tie (its two gains, each the
    # other twin's best, agree to the tolerance, checked just above)
    assert np.all(a.is_valid[~same])


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scan_case(), st.data())
def test_level_splits_equal_each_part_scanned_alone(case, data):
    """A level's parts scanned in one hand-off (``find_level_splits``, each thread
    scanning its features of every part) give each part's ``find_best_splits``."""
    import dtdecide.tree._kernels._splitter as splitter_module

    hist, counts, kw, n_jobs = case
    kw = {**kw, "per_feature": False}
    m = hist.shape[0]
    cuts = sorted(data.draw(st.sets(st.integers(1, max(m - 1, 1)), max_size=m - 1)))
    bounds = [0, *cuts, m]
    hists = [hist[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
    parts_counts = [None if counts is None else counts[a:b]
                    for a, b in zip(bounds[:-1], bounds[1:])]
    inline = splitter_module._SCAN_INLINE_CELLS
    for mode in ("numpy", "compiled"):
        with config_context(kernels=mode):
            alone = [find_best_splits(h, c, **kw) for h, c in zip(hists, parts_counts)]
            splitter_module._SCAN_INLINE_CELLS = 0  # every scan to the threads
            try:
                with ThreadPool(n_jobs) as pool:
                    level = find_level_splits(hists, parts_counts, pool=pool, n_rows=10**6,
                                              **{k: v for k, v in kw.items()
                                                 if k != "per_feature"})
            finally:
                splitter_module._SCAN_INLINE_CELLS = inline
        assert len(level) == len(alone)
        for a, b in zip(alone, level):
            for name in ("gain", "feature", "bin_threshold", "is_categorical",
                         "missing_left", "go_left"):
                x, y = getattr(a, name), getattr(b, name)
                assert x.dtype == y.dtype and np.array_equal(x, y), (mode, name)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 300), D=st.integers(2, 4),
       method=st.sampled_from(PROFIT_METHODS), ties=st.booleans())
def test_profit_row_channels_equal_numpy_twin(seed, n, D, method, ties):
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n, D))
    if ties:  # equal best decisions: the first wins in both
        q = q.round(0)
    weight = rng.uniform(0.0, 3.0, size=n)
    crit = ProfitCriterion(D, method)
    with config_context(kernels="numpy"):
        codes_a, out_a = crit.row_channels(q, weight)
    with config_context(kernels="compiled"):
        codes_b, out_b = crit.row_channels(q, weight)
    assert codes_a.dtype == codes_b.dtype and np.array_equal(codes_a, codes_b)
    assert np.array_equal(out_a, out_b)
    q[n // 2, D - 1] = np.nan
    for mode in ("numpy", "compiled"):
        with config_context(kernels=mode), pytest.raises(ValueError, match="must be finite"):
            crit.row_channels(q, weight)


def test_compiled_scan_takes_every_criterion_it_can_repeat():
    """The twin runs where the compiled scan would sum in another order."""
    hist2, hist7 = np.zeros((1, 4, 2)), np.zeros((1, 4, 7))
    for criterion in ("gini", "entropy", "variance", "generalized_gini"):
        assert _compiled_supports(hist2, criterion)
    assert _compiled_supports(hist2, ProfitCriterion(2, "profit"))
    assert not _compiled_supports(hist7, "generalized_gini")  # an einsum in the twin
    assert not _compiled_supports(np.zeros((1, 4, 17)), "gini")  # a pairwise sum
    assert not _compiled_supports(np.zeros((1, 4, 20)), ProfitCriterion(4, "profit"))


def test_hand_computed_split_both_kernels():
    """One node, one numeric feature: bins (class counts) [2, 0], [1, 1], [0, 2] and a
    missing bin [0, 1]. Parent (3, 4): W = 7 - 25/7. Best: bins 0-1 left (3, 1),
    W = 4 - 10/4, the rest and the missing row right (0, 3), W = 0."""
    for mode in ("numpy", "compiled"):
        hist = np.zeros((1, 1, 4, 2))
        hist[0, 0] = [[2, 0], [1, 1], [0, 2], [0, 1]]
        with config_context(kernels=mode):
            s = find_best_splits(hist, None, is_classification=True, criterion="gini",
                                 is_categorical=np.array([False]))
        assert s.gain[0] == pytest.approx((7 - 25 / 7) - (4 - 10 / 4), rel=1e-15)
        assert int(s.bin_threshold[0]) == 1 and not s.missing_left[0]
        assert s.go_left[0].tolist() == [True, True, False, False]
        # a tie between the missing values' two sides: right, the first tried
        hist[0, 0] = [[1, 0], [0, 1], [0, 0], [1, 1]]
        with config_context(kernels=mode):
            s = find_best_splits(hist, None, is_classification=True, criterion="gini",
                                 is_categorical=np.array([False]))
        assert int(s.bin_threshold[0]) == 0 and not s.missing_left[0]


def data(seed, n):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "a": rng.normal(size=n),
        "b": rng.exponential(size=n).round(1),
        "c": pd.Categorical(rng.choice(list("pqrstuv"), size=n)),
    })
    X.loc[rng.random(n) < 0.1, "a"] = np.nan
    X.loc[rng.random(n) < 0.1, "c"] = np.nan
    signal = X["a"].fillna(0.3) - X["b"] + (X["c"].cat.codes % 3 == 1) + rng.normal(size=n)
    return X, signal.to_numpy(), rng


THREE = DecisionMatrix([[6.0, 0.0, -2.0], [-1.0, 2.0, 0.0], [-3.0, 0.0, 4.0]],
                       levels=["lo", "mid", "hi"], decisions=["x", "y", "z"])
PRIORS = DecisionMatrix([[6.0, 0.0, -2.0], [-1.0, 2.0, 0.0], [-3.0, 0.0, 4.0]],
                        levels=["lo", "mid", "hi"], decisions=["x", "y", "z"],
                        priors=[0.5, 0.3, 0.2])


def both(fit):
    with config_context(kernels="numpy"):
        a = fit()
    with config_context(kernels="compiled"):
        b = fit()
    return a, b


@pytest.mark.parametrize("method", PROFIT_METHODS)
@settings(max_examples=2, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n_jobs=st.sampled_from([1, 2]))
def test_same_tree_every_profit_method_three_decisions(method, seed, n_jobs):
    X, signal, _ = data(seed, 500)
    y = np.digitize(signal, [-1.0, 0.3]).choose(["lo", "mid", "hi"])

    def fit():
        est = ProfitTreeClassifier(criterion="profit", decision_matrix=THREE, max_depth=4,
                                   min_samples_leaf=3, random_state=0, n_jobs=n_jobs)
        est._profit_method = method
        return est.fit(X, y)

    a, b = both(fit)
    assert_same_tree(a.tree_, b.tree_)


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_same_tree_priors_and_interval_profit(seed):
    X, signal, rng = data(seed, 500)
    y = np.digitize(signal, [-1.0, 0.3]).choose(["lo", "mid", "hi"])
    a, b = both(lambda: ProfitTreeClassifier(decision_matrix=PRIORS, criterion="entropy",
                                             max_depth=4, random_state=0).fit(X, y))
    assert_same_tree(a.tree_, b.tree_)
    interval = DecisionMatrix({"invest": [-20.0, 40.0], "wait": [0.0, 0.0]}, knots=[-2, 2])
    w = rng.uniform(0.5, 2.0, size=signal.size)
    a, b = both(lambda: ProfitTreeRegressor(decision_matrix=interval, criterion="profit",
                                            max_depth=4, random_state=0, n_jobs=2).fit(
        X, signal, sample_weight=w))
    assert_same_tree(a.tree_, b.tree_)
