"""The compiled kernels of the grower's bookkeeping between levels
(``dtdecide.tree._kernels._compiled_level``) against their NumPy twins."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dtdecide import config_context
from dtdecide.tree._kernels._histogram import BinLayout

pytest.importorskip("numba")

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def random_scans(rng, m, n_features, uniform):
    """Per-feature winners of a compiled scan (gain, pos, ml of shape (features, nodes))
    over a layout, with NaN and -inf gains, ties and nodes without a valid split."""
    widths = [6] * n_features if uniform else list(rng.integers(2, 9, size=n_features))
    layout = BinLayout(widths)
    gain = rng.integers(0, 4, size=(n_features, m)).astype(np.float64)  # many ties
    gain[rng.random((n_features, m)) < 0.3] = -np.inf
    gain[rng.random((n_features, m)) < 0.1] = np.nan
    gain[:, rng.random(m) < 0.2] = -np.inf  # no valid split at these nodes
    pos = np.stack([rng.integers(0, max(int(w) - 1, 1), size=m) for w in layout.widths])
    pos = pos.astype(np.intp)
    ml = rng.random((n_features, m)) < 0.5
    hist = rng.integers(0, 4, size=(m, layout.n_cells, 2)).astype(np.float32)
    # nodes without missing values (the heavier child's side) and with
    hist[rng.random(m) < 0.5, :, :] *= (rng.random(layout.n_cells) < 0.7)[:, None]
    return layout, gain, pos, ml, hist


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), m=st.integers(1, 30), n_features=st.integers(1, 5),
       uniform=st.booleans())
def test_best_numeric_splits_equal_the_numpy_steps(seed, m, n_features, uniform):
    """Each node's best numeric split, table and missing side in one compiled pass equal
    _best_of_scans followed by _split_result's NumPy steps (first best feature in
    feature order, NaN and -inf never winning, invalid nodes all False)."""
    from dtdecide.tree._kernels import _compiled_level
    from dtdecide.tree._kernels._splitter import _best_of_scans, _split_result

    rng = np.random.default_rng(seed)
    layout, gain, pos, ml, hist = random_scans(rng, m, n_features, uniform)
    is_cat = np.zeros(n_features, dtype=bool)
    none = np.zeros(n_features, dtype=np.intp)
    found = _best_of_scans(gain.copy(), pos, ml, np.zeros_like(pos), np.zeros((1, 1, 1)),
                           none, none, is_cat, False, layout.max_width)
    want = _split_result(hist, None, layout, np.arange(m), *found, is_cat, True)

    got = {name: np.empty_like(getattr(want, name))
           for name in ("gain", "feature", "bin_threshold", "missing_left", "go_left")}
    _compiled_level.best_numeric_splits(gain, pos, ml, hist, layout.cell_index, got["gain"],
                                        got["feature"], got["bin_threshold"],
                                        got["go_left"], got["missing_left"])
    for name, value in got.items():
        expect = getattr(want, name)
        assert value.dtype == expect.dtype, name
        assert np.array_equal(value, expect), name
    assert not want.is_categorical.any()


def random_channel_map(rng, n_classes, n_sums):
    """A profit level map: amounts of many magnitudes and signs, some whole (ties of
    the children's weights), some zero."""
    cmap = rng.standard_normal((n_classes, n_sums)) * 10.0 ** rng.integers(
        -3, 6, size=(n_classes, n_sums))
    if rng.random() < 0.5:
        cmap = cmap.round()
    cmap[rng.random((n_classes, n_sums)) < 0.2] = 0.0
    return cmap


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), m=st.integers(1, 30), n_features=st.integers(1, 4),
       n_classes=st.integers(1, 4), n_sums=st.integers(1, 16), wide=st.booleans())
def test_best_mapped_splits_equal_the_numpy_steps(seed, m, n_features, n_classes, n_sums,
                                                  wide):
    """With a channel map (criterion="profit" on class counts) each node's best numeric
    split, table and missing side (the heavier child in the mapped sums, NumPy's
    pairwise sums over up to 300 bins) in one compiled pass equal _best_of_scans
    followed by _split_result's NumPy steps, bit for bit."""
    from dtdecide.tree._kernels import _compiled_level
    from dtdecide.tree._kernels._splitter import _best_of_scans, _split_result

    rng = np.random.default_rng(seed)
    layout, gain, pos, ml, _ = random_scans(rng, m, n_features, False)
    if wide:  # the pairwise sums' blocks (8, 128) and halving
        layout = BinLayout(list(rng.integers(2, 302, size=n_features)))
        pos = np.stack([rng.integers(0, int(w) - 1, size=m) for w in layout.widths])
        pos = pos.astype(np.intp)
    hist = rng.integers(0, 50, size=(m, layout.n_cells, n_classes)).astype(np.float32)
    hist[rng.random(m) < 0.5, :, :] *= (rng.random(layout.n_cells) < 0.7)[:, None]
    # nodes without missing values: every feature's missing cell empty
    missing = layout.cell_index[:, -1]
    hist[np.ix_(rng.random(m) < 0.6, missing)] = 0.0
    cmap = random_channel_map(rng, n_classes, n_sums)
    is_cat = np.zeros(n_features, dtype=bool)
    none = np.zeros(n_features, dtype=np.intp)
    found = _best_of_scans(gain.copy(), pos, ml, np.zeros_like(pos), np.zeros((1, 1, 1)),
                           none, none, is_cat, False, layout.max_width)
    want = _split_result(hist, None, layout, np.arange(m), *found, is_cat, True,
                         channel_map=cmap)

    got = {name: np.empty_like(getattr(want, name))
           for name in ("gain", "feature", "bin_threshold", "missing_left", "go_left")}
    _compiled_level.best_mapped_splits(gain, pos, ml, hist, layout.cell_index, cmap,
                                       got["gain"], got["feature"], got["bin_threshold"],
                                       got["go_left"], got["missing_left"])
    for name, value in got.items():
        expect = getattr(want, name)
        assert value.dtype == expect.dtype, name
        assert np.array_equal(value, expect), name


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 5000))
def test_numpy_sum_adds_as_numpy(seed, n):
    """The compiled pairwise sum is NumPy's sum of a float64 run, bit for bit (values of
    many magnitudes and signs, so that another order of the adds rounds otherwise)."""
    from dtdecide.tree._kernels import _compiled_level

    rng = np.random.default_rng(seed)
    a = rng.standard_normal(n + 3) * 10.0 ** rng.integers(-8, 9, size=n + 3)
    scratch = _compiled_level.sum_scratch()
    got = _compiled_level.numpy_sum(a, 3, n, *scratch)
    want = a[3:].sum()
    assert got == want or (np.isnan(got) and np.isnan(want))
    rows = np.stack([a[3:], a[3:][::-1]])
    back = np.ascontiguousarray(rows[1])
    assert _compiled_level.numpy_sum(back, 0, n, *scratch) == rows.sum(1)[1]


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), m=st.integers(1, 30), n_features=st.integers(1, 5))
def test_compiled_scan_takes_the_fused_winners_where_they_apply(seed, m, n_features):
    """find_best_splits on whole-number float32 counts of numeric features takes each
    node's winner and table from best_numeric_splits; the result equals the one the
    separate steps give (the fused pass switched off)."""
    from dtdecide.tree._kernels import _compiled_level, _splitter

    rng = np.random.default_rng(seed)
    layout, _, _, _, hist = random_scans(rng, m, n_features, False)
    hist = np.ascontiguousarray(hist)
    kw = dict(is_classification=True, criterion="gini", is_categorical=np.zeros(
        n_features, dtype=bool), min_samples_leaf=1, layout=layout, n_rows=10**7)
    calls = []
    fused = _compiled_level.best_numeric_splits

    def spy(*args):
        calls.append(1)
        return fused(*args)

    scan_of = _splitter._compiled_scan_of

    def without_fused(*args, **kwargs):
        scan, finish = scan_of(*args, **kwargs)
        finish.numeric = None
        return scan, finish

    with config_context(kernels="compiled"), pytest.MonkeyPatch.context() as mp:
        mp.setattr(_compiled_level, "best_numeric_splits", spy)
        got = _splitter.find_best_splits(hist, None, **kw)
        assert calls
        mp.setattr(_splitter, "_compiled_scan_of", without_fused)
        want = _splitter.find_best_splits(hist, None, **kw)
    assert len(calls) == 1
    for name in ("gain", "feature", "bin_threshold", "is_categorical", "missing_left",
                 "go_left"):
        assert np.array_equal(getattr(got, name), getattr(want, name)), name


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), ns=st.integers(1, 40), p_cont=st.floats(0, 1))
def test_plan_slots_equal_the_numpy_steps(seed, ns, p_cont):
    """The new level's slots in one compiled pass equal _plan_slots' NumPy steps (ties
    of the children's rows, pairs with no, one or two growing children)."""
    from dtdecide.tree._algorithms._grower import _plan_slots, _plan_slots_compiled

    rng = np.random.default_rng(seed)
    cont = rng.random(2 * ns) < p_cont
    child_cnt = rng.integers(0, 4, size=2 * ns).astype(np.int64)  # many ties
    sel = np.sort(rng.choice(3 * ns, size=ns, replace=False)).astype(np.intp)
    want = _plan_slots(cont, child_cnt, sel)
    got = _plan_slots_compiled(cont, child_cnt, sel)
    assert len(got) == len(want) == 8
    for k, (a, b) in enumerate(zip(got, want)):
        if isinstance(b, np.ndarray):
            assert a.dtype == b.dtype and np.array_equal(a, b), k
        else:
            assert type(a) is type(b) and a == b, k


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), ns=st.integers(1, 30), n_parts=st.integers(1, 3),
       n_classes=st.integers(2, 4), uniform=st.booleans())
def test_split_children_of_the_parts_equal_the_numpy_steps(seed, ns, n_parts, n_classes,
                                                           uniform):
    """The children's counts read from a level's histogram parts in place equal the
    grower's NumPy steps on the gathered cells (_gather, then _child_sums): values a
    feature does not take, several parts, ties and empty children."""
    from types import SimpleNamespace

    from dtdecide.tree._algorithms._grower import (
        Level,
        _child_sums,
        _gather,
        _split_children_compiled,
    )
    from dtdecide.tree._kernels._criteria import channel_sum

    rng = np.random.default_rng(seed)
    n_features = 3
    widths = [7] * n_features if uniform else list(rng.integers(2, 9, size=n_features))
    layout = BinLayout(widths)
    sizes = rng.integers(1, 12, size=n_parts)
    high = (1 << 24) // (layout.n_cells * n_classes)
    parts = [rng.integers(0, min(high, 50), size=(int(k), layout.n_cells, n_classes))
             .astype(np.float32) for k in sizes]
    for h in parts:
        h[rng.random(h.shape[:2]) < 0.3] = 0.0
    level = Level(np.arange(int(sizes.sum())), 2, parts, None, None, None)
    n_slots = int(sizes.sum())
    sel = np.sort(rng.choice(n_slots, size=min(ns, n_slots), replace=False))
    feat = rng.integers(0, n_features, size=sel.size).astype(np.intp)
    table = rng.random((sel.size, layout.max_width)) < 0.5
    ctx = SimpleNamespace(is_classification=True, layout=layout, weight_of=channel_sum,
                          residue_tol=0.0, level_map=None)
    want_sums, want_cnt, _, _ = _child_sums(ctx, level, sel, feat, table,
                                            _gather(layout, level, level.hist, sel, feat))
    sums, cnt = _split_children_compiled(layout, level, sel, feat, table)
    assert sums.dtype == want_sums.dtype == np.float32 and cnt.dtype == want_cnt.dtype
    assert np.array_equal(sums, want_sums) and np.array_equal(cnt, want_cnt)


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 40), n_classes=st.integers(2, 4),
       min_samples_split=st.integers(2, 6), min_samples_leaf=st.integers(1, 3))
def test_gini_can_split_equals_the_context(seed, n, n_classes, min_samples_split,
                                           min_samples_leaf):
    """The compiled stopping rule of Gini on whole-number float32 counts says what
    _Context.can_split says (pure, empty and small nodes, large counts)."""
    from dtdecide.tree._algorithms._grower import _EPS, _Context
    from dtdecide.tree._kernels import _compiled_level

    rng = np.random.default_rng(seed)
    scale = int(rng.choice([3, 1000, 1 << 22]))
    sums = rng.integers(0, scale, size=(n, n_classes)).astype(np.float32)
    sums[rng.random((n, n_classes)) < 0.4] = 0.0  # pure and empty nodes
    counts = sums.sum(axis=1).astype(np.int64)
    ctx = _Context(min_samples_split=min_samples_split, min_samples_leaf=min_samples_leaf,
                   max_depth=None, criterion="gini", loss_matrix=None, class_weight=None)
    want = ctx.can_split(1, counts, sums)
    got = np.empty(n, dtype=bool)
    _compiled_level.gini_can_split(sums, counts, min_samples_split, min_samples_leaf, _EPS,
                                   got)
    assert np.array_equal(got, want)


@pytest.mark.parametrize("shape", [(3, 5, 2), (40, 9000, 2), (0, 70000, 2)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_level_arrays_are_ordinary_arrays(shape, dtype):
    """A level's histogram arrays (large ones mapped on their own in huge pages) are
    writable C-contiguous arrays of the asked shape and dtype; their copies and
    joins hold the same numbers as NumPy's; a view of one knows its array's size (what
    _tidy_parts reads)."""
    import mmap

    from dtdecide.tree._algorithms import _grower

    a = _grower._level_empty(shape, dtype)
    assert a.shape == shape and a.dtype == dtype
    assert a.flags.writeable and a.flags.c_contiguous
    big = a.nbytes >= _grower._OWN_MAPPING_BYTES
    if big and hasattr(mmap, "MAP_PRIVATE") and hasattr(mmap, "MADV_HUGEPAGE"):
        assert a.base is not None and not a.flags.owndata  # its own mapping
    rng = np.random.default_rng(0)
    a[...] = rng.integers(0, 100, size=shape)
    assert np.array_equal(_grower._level_copy(a), a)
    joined = _grower._level_concatenate([a, a[: shape[0] // 2]])
    assert np.array_equal(joined, np.concatenate([a, a[: shape[0] // 2]]))
    view = a[: shape[0] // 2]
    base = view if view.base is None else view.base
    assert base.nbytes == a.nbytes


@pytest.mark.parametrize("n_classes", [2, 3])
def test_profit_fit_with_the_mapped_pass_equals_the_numpy_steps(n_classes):
    """A criterion="profit" fit on class counts (numeric features with missing values)
    takes its splits from best_mapped_splits at every level, and grows the tree (every
    node field) that the separate NumPy steps grow, with 1 and 2 threads."""
    from dtdecide import DecisionMatrix, ProfitTreeClassifier
    from dtdecide.tree._kernels import _compiled_level, _splitter

    rng = np.random.default_rng(n_classes)
    n = 6000
    X = rng.normal(size=(n, 4))
    X[:, 3] = X[:, 3].round(1)
    X[rng.random((n, 4)) < 0.08] = np.nan
    signal = np.nan_to_num(X[:, 0]) - np.nan_to_num(X[:, 1]) ** 2 + rng.normal(size=n)
    y = np.digitize(signal, [-1.0, 0.3][: n_classes - 1])
    if n_classes == 2:
        m = DecisionMatrix([[7.5, -2.25], [-3.0, 1.0]], levels=[0, 1])
    else:
        m = DecisionMatrix([[5.0, 0.0, -1.5], [0.25, 3.0, 0.0], [-4.0, 0.0, 6.0]],
                           levels=[0, 1, 2])
    kw = dict(decision_matrix=m, criterion="profit", max_depth=7, random_state=0)
    calls = []
    fused = _compiled_level.best_mapped_splits

    def spy(*args):
        calls.append(1)
        return fused(*args)

    trees = []
    with config_context(kernels="compiled"), pytest.MonkeyPatch.context() as mp:
        mp.setattr(_compiled_level, "best_mapped_splits", spy)
        for n_jobs in (1, 2):
            trees.append(ProfitTreeClassifier(**kw, n_jobs=n_jobs).fit(X, y).tree_)
        assert len(calls) >= 2 * 7
        mp.setattr(_splitter, "_FUSED_MAX_SUMS", 0)  # the NumPy steps
        want = ProfitTreeClassifier(**kw).fit(X, y).tree_
    assert len(calls) < 4 * 7 + 1
    assert want.children_left.size > 40
    assert not want.missing_left[want.children_left >= 0].all()
    assert want.missing_left[want.children_left >= 0].any()
    for tree in trees:
        for name in ("children_left", "children_right", "feature", "threshold",
                     "missing_left", "n_node_samples", "value", "impurity"):
            a, b = getattr(tree, name), getattr(want, name)
            assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True), name
