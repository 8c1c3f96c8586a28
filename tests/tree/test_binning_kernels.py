"""The fast paths of binning against their references.

* :func:`sorted_bin_edges` (the edges from sorted values when every case weight is 1)
  against :func:`numeric_bin_edges` (``np.unique`` and weighted counts): the same edges,
  bit for bit, with and without the per-thread work arrays (``_EdgeBuffers``), which
  the calling thread makes for the threads;
* the compiled ``bin_columns`` (cell tables) against the NumPy twin of
  :meth:`Binner.transform` and against ``np.searchsorted``: float64 and float32, C and
  Fortran order, strided views, NaN, categorical codes, ``uint16`` bins, any number of
  threads; NaN counts equal to ``np.isnan``;
* ``fit_transform`` (which looks for infinite values while binning) raises what ``fit``
  then ``transform`` raise.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dtdecide import config_context
from dtdecide._parallel import ThreadPool
from dtdecide.tree._kernels import _binning
from dtdecide.tree._kernels._binning import Binner, numeric_bin_edges, sorted_bin_edges

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

finite = st.floats(allow_nan=False, allow_infinity=False)


def edge_values(draw_floats, rng, n):
    """Values with ties, clusters and outliers."""
    pool = np.asarray(draw_floats, dtype=np.float64)
    if pool.size == 0:
        pool = np.zeros(1)
    return rng.choice(pool, size=n) if n else np.zeros(0)


@SETTINGS
@given(values=st.lists(finite, min_size=0, max_size=400), seed=st.integers(0, 2**31),
       n=st.integers(0, 3000), max_bins=st.integers(2, 300))
def test_sorted_edges_equal_unique_edges(values, seed, n, max_bins):
    rng = np.random.default_rng(seed)
    v = edge_values(values, rng, n)
    expect = numeric_bin_edges(v, None, max_bins)
    got = sorted_bin_edges(np.sort(v), max_bins)
    assert got.tobytes() == expect.tobytes()
    # unit weights through the weighted reference: the same edges
    assert numeric_bin_edges(v, np.ones(v.size), max_bins).tobytes() == expect.tobytes()



@SETTINGS
@given(values=st.lists(finite, min_size=0, max_size=400), seed=st.integers(0, 2**31),
       n=st.integers(1, 3000), max_bins=st.integers(2, 300), nan=st.booleans(),
       spare=st.integers(0, 5))
def test_sorted_edges_with_work_arrays_equal_reference(values, seed, n, max_bins, nan, spare):
    """The sub-sample gathered, sorted and counted in the work arrays (NaN sorted last and
    left out; all-distinct values without a copy): the reference's edges, bit for bit."""
    rng = np.random.default_rng(seed)
    v = edge_values(values, rng, n)
    if nan:
        v[rng.random(n) < 0.3] = np.nan
    if rng.random() < 0.5:
        v = v + rng.normal(size=n) * 1e-3  # mostly distinct values
    col = np.concatenate([v, rng.normal(size=spare)])
    rows = np.sort(rng.choice(col.size, size=n, replace=False))
    (buffers,) = _binning._EdgeBuffers.for_threads(n, 1)
    ordered = buffers.sorted_values(col, rows)
    keep = col[rows]
    keep = keep[~np.isnan(keep)]
    assert ordered.tobytes() == np.sort(keep).tobytes()
    got = sorted_bin_edges(ordered, max_bins, buffers)
    assert got.tobytes() == numeric_bin_edges(keep, None, max_bins).tobytes()
    if spare == 0:  # every row: copied, not gathered
        assert buffers.sorted_values(v, None).tobytes() == np.sort(keep).tobytes()


@pytest.mark.parametrize("n_jobs", [1, 2, 3])
def test_fit_edges_on_threads_use_work_arrays_of_the_calling_thread(monkeypatch, n_jobs):
    """Worker threads sort into arrays the calling thread made (what a worker thread
    frees stays resident in its malloc arena): one set per thread, the same edges."""
    import threading

    made, used = [], []
    make, sort = _binning._EdgeBuffers.__init__, _binning._EdgeBuffers.sorted_values

    def init(self, *a):
        made.append(threading.get_ident())
        make(self, *a)

    def sorted_values(self, *a):
        used.append(id(self))
        return sort(self, *a)

    monkeypatch.setattr(_binning._EdgeBuffers, "__init__", init)
    monkeypatch.setattr(_binning._EdgeBuffers, "sorted_values", sorted_values)
    rng = np.random.default_rng(5)
    X = rng.normal(size=(3000, 6))
    X[:, 2] = np.round(X[:, 2])
    X[rng.random(X.shape) < 0.1] = np.nan
    with ThreadPool(n_jobs) as pool:
        binner = Binner(max_bins=40, subsample=1000, random_state=0).fit(X, pool=pool)
    assert made == [threading.get_ident()] * n_jobs
    assert len(used) == 6 and len(set(used)) == n_jobs
    rows = np.sort(np.random.default_rng(0).choice(3000, size=1000, replace=False))
    for j in range(6):
        col = X[rows, j]
        expect = numeric_bin_edges(col[~np.isnan(col)], None, 40)
        assert binner.bin_thresholds_[j].tobytes() == expect.tobytes()

@SETTINGS
@given(seed=st.integers(0, 2**31), n=st.integers(1, 2000), max_bins=st.integers(2, 300),
       subsample=st.sampled_from([None, 2, 500]), weights=st.sampled_from(["none", "ones"]))
def test_fit_edges_equal_reference(seed, n, max_bins, subsample, weights):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3)) * 10.0 ** rng.uniform(-5, 5)
    X[:, 1] = np.round(X[:, 1])
    X[rng.random(X.shape) < 0.2] = np.nan
    w = None if weights == "none" else np.ones(n)
    binner = Binner(max_bins=max_bins, subsample=subsample, random_state=seed).fit(
        X, sample_weight=w)
    rows = np.arange(n)
    if subsample is not None and n > subsample:
        rows = np.sort(np.random.default_rng(seed).choice(n, size=subsample, replace=False))
    for j in range(3):
        col = X[rows, j]
        expect = numeric_bin_edges(col[~np.isnan(col)], None, max_bins)
        assert binner.bin_thresholds_[j].tobytes() == expect.tobytes()


def test_weighted_fit_keeps_the_weighted_reference():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(4000, 1))
    w = rng.uniform(0, 2, size=4000)
    w[:100] = 0.0
    binner = Binner(max_bins=16, subsample=None).fit(X, sample_weight=w)
    keep = w > 0
    assert np.array_equal(binner.bin_thresholds_[0],
                          numeric_bin_edges(X[keep, 0], w[keep], 16))


def adversarial(rng, edges, n):
    """Values on, just beside and between the finite edges, and far outside them."""
    e = edges[np.isfinite(edges)]
    parts = [rng.normal(size=n)]
    if e.size:
        pick = rng.choice(e, size=n)
        parts += [pick, np.nextafter(pick, np.inf), np.nextafter(pick, -np.inf),
                  np.array([e.min() - 1e6, e.max() + 1e6, -1e308, 1e308])]
    return np.concatenate(parts)


@SETTINGS
@given(seed=st.integers(0, 2**31), n=st.integers(1, 3000), max_bins=st.integers(2, 600),
       scale=st.floats(-6, 6), shape=st.sampled_from(["normal", "cluster", "cauchy", "int"]))
def test_compiled_bins_equal_searchsorted(seed, n, max_bins, scale, shape):
    rng = np.random.default_rng(seed)
    if shape == "normal":
        x = rng.normal(size=n)
    elif shape == "cluster":  # most edges crammed into a few cells of a wide range
        x = np.where(rng.random(n) < 0.98, rng.normal(size=n) * 1e-9, rng.normal(size=n) * 1e9)
    elif shape == "cauchy":
        x = rng.standard_cauchy(size=n)
    else:
        x = rng.integers(-5, 5, size=n).astype(float)
    x = x * 10.0**scale
    binner = Binner(max_bins=max_bins, random_state=0).fit(x[:, None])
    edges = binner.bin_thresholds_[0]
    values = adversarial(rng, edges, n)
    values[rng.random(values.size) < 0.05] = np.nan
    with config_context(kernels="compiled"):
        got = binner.transform(values[:, None])[:, 0]
    expect = np.searchsorted(edges, values, side="left")
    expect[np.isnan(values)] = binner.missing_bin_idx_
    assert np.array_equal(got, expect)


def layouts(X):
    yield X
    yield np.asfortranarray(X)
    yield X.astype(np.float32)
    yield np.asfortranarray(X, dtype=np.float32)
    yield X[::2, ::-1][:, ::-1]  # strided
    yield np.asfortranarray(X)[1::3]


@SETTINGS
@given(seed=st.integers(0, 2**31), n=st.integers(1, 2500), max_bins=st.integers(2, 600),
       n_jobs=st.sampled_from([1, 2, 3]))
def test_compiled_transform_equals_numpy_twin(seed, n, max_bins, n_jobs):
    rng = np.random.default_rng(seed)
    X = np.column_stack([
        rng.normal(size=n) * 10.0 ** rng.uniform(-3, 3),
        np.round(rng.exponential(size=n) * 3),
        rng.integers(0, 300, size=n).astype(float),  # categorical codes (uint16 bins)
        rng.standard_cauchy(size=n),
        np.full(n, 2.5),  # one value: one edge
    ])
    X[rng.random(X.shape) < 0.1] = np.nan
    is_cat = np.array([False, False, True, False, False])
    binner = Binner(max_bins=max_bins, random_state=0).fit(X, is_cat)
    shifted = X * 1.3 - 0.7  # unseen values and codes (non-integer, out of range)
    for Xt in [*layouts(X), *layouts(shifted)]:
        counts = {}
        for mode in ("numpy", "compiled"):
            nan = np.full(X.shape[1], -1, dtype=np.int64)
            with config_context(kernels=mode), ThreadPool(n_jobs) as pool:
                counts[mode] = (binner.transform(Xt, pool=pool if n_jobs > 1 else None,
                                                 nan_counts=nan), nan)
        (a, na), (b, nb) = counts["numpy"], counts["compiled"]
        assert a.dtype == b.dtype == binner.binned_dtype_ and np.array_equal(a, b)
        assert b.flags.f_contiguous
        assert np.array_equal(na, nb) and np.array_equal(nb, np.isnan(Xt).sum(axis=0))


def test_float32_input_bins_as_its_float64():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(5000, 3)).astype(np.float32)
    X[::17, 1] = np.nan
    a = Binner(random_state=0).fit(X)
    b = Binner(random_state=0).fit(X.astype(np.float64))
    assert all(np.array_equal(p, q) for p, q in zip(a.bin_thresholds_, b.bin_thresholds_))
    for mode in ("numpy", "compiled"):
        with config_context(kernels=mode):
            assert np.array_equal(a.transform(X), b.transform(X.astype(np.float64)))


def fit_then_transform(X, is_cat, **kw):
    try:
        binner = Binner(**kw).fit(X, is_cat)
        return binner.transform(X)
    except ValueError as exc:
        return str(exc)


def fit_transform(X, is_cat, **kw):
    try:
        return Binner(**kw).fit_transform(X, is_cat)
    except ValueError as exc:
        return str(exc)


@pytest.mark.parametrize("mode", ["numpy", "compiled"])
@pytest.mark.parametrize("cells", [
    [(1500, 0, np.inf)],
    [(1500, 0, np.inf), (10, 2, -np.inf)],
    [(1500, 2, -np.inf), (3, 1, 0.5)],  # a bad code after an infinite value
    [(3, 1, 0.5), (1500, 2, np.inf)],  # an infinite value after a bad code
    [(1999, 0, -np.inf)],
])
def test_fit_transform_errors_as_fit_then_transform(mode, cells):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 3))
    X[:, 1] = rng.integers(0, 4, size=2000)
    is_cat = np.array([False, True, False])
    for i, j, v in cells:
        X[i, j] = v
    with config_context(kernels=mode):
        # a sub-sample that misses the infinite values: only the pass over every row
        # finds them
        a = fit_then_transform(X, is_cat, subsample=100, random_state=1)
        b = fit_transform(X, is_cat, subsample=100, random_state=1)
    assert isinstance(a, str) and a == b


def test_fit_transform_counts_nan_and_equals_fit_then_transform():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(3000, 4))
    X[rng.random(X.shape) < 0.15] = np.nan
    X[:, 3] = np.where(np.isnan(X[:, 3]), np.nan, rng.integers(0, 3, size=3000))
    is_cat = np.array([False, False, False, True])
    for mode in ("numpy", "compiled"):
        with config_context(kernels=mode):
            nan = np.zeros(4, dtype=np.int64)
            out = Binner(random_state=0).fit_transform(X, is_cat, nan_counts=nan)
            ref = Binner(random_state=0).fit(X, is_cat).transform(X)
        assert np.array_equal(out, ref)
        assert np.array_equal(nan, np.isnan(X).sum(axis=0))


# ---------------------------------------------------------------- the fit's checks
def fit_data(n=3000, seed=0):
    import pandas as pd

    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "a": rng.normal(size=n),
        "b": rng.integers(0, 9, size=n),  # integers: cast while binning
        "c": pd.Categorical(rng.choice(list("pqr"), size=n)),
        "d": rng.normal(size=n).astype(np.float32),
    })
    y = (X["a"] + rng.normal(size=n) > 0).astype(int).to_numpy()
    return X, y


FITS = {
    "greedy": {},
    "exact": {"search": "exact", "max_depth": 2},
    "honest": {"honest_fraction": 0.5},
}


@pytest.mark.parametrize("mode", ["numpy", "compiled"])
@pytest.mark.parametrize("fit", sorted(FITS))
@pytest.mark.parametrize("where", [0, 1234, 2999])
def test_fit_names_the_column_holding_infinity(mode, fit, where):
    from dtdecide import DecisionMatrix, ProfitTreeClassifier

    X, y = fit_data()
    X.loc[where, "d"] = -np.inf
    matrix = DecisionMatrix([[1.0, -1.0], [0.0, 0.0]], levels=[1, 0],
                            decisions=["call", "skip"])
    est = ProfitTreeClassifier(decision_matrix=matrix, random_state=0, **FITS[fit])
    with config_context(kernels=mode):
        with pytest.raises(ValueError, match="infinity in column 'd'; only NaN"):
            est.fit(X, y)
        with pytest.raises(ValueError, match="infinity in column 'x3'; only NaN"):
            est.fit(X.drop(columns="c").assign(c=0.0).to_numpy()[:, [0, 1, 3, 2]], y)


@pytest.mark.parametrize("mode", ["numpy", "compiled"])
@pytest.mark.parametrize("fit", sorted(FITS))
def test_fit_has_missing_equals_isnan(mode, fit):
    from dtdecide import DecisionMatrix, ProfitTreeClassifier

    X, y = fit_data()
    X.loc[[5, 2900], "a"] = np.nan
    X.loc[[77], "c"] = np.nan
    matrix = DecisionMatrix([[1.0, -1.0], [0.0, 0.0]], levels=[1, 0],
                            decisions=["call", "skip"])
    est = ProfitTreeClassifier(decision_matrix=matrix, random_state=0, **FITS[fit])
    with config_context(kernels=mode):
        est.fit(X, y)
    assert est.has_missing_in_fit_.tolist() == [True, False, True, False]
    assert not hasattr(est, "_binned_nan")


# ---------------------------------------------------------------- no copy of the input
def mixed_frame(seed, n=2500):
    import pandas as pd

    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "f64": rng.normal(size=n),
        "f32": rng.normal(size=n).astype(np.float32),
        "i64": rng.integers(-50, 50, size=n),
        "u8": rng.integers(0, 7, size=n).astype(np.uint8),
        "flag": rng.random(n) < 0.3,
        "cat": pd.Categorical(rng.choice(["p", "q", "r"], size=n)),
        "txt": rng.choice(["lo", "mid", "hi"], size=n).astype(object),
        "nullable": pd.array(rng.integers(0, 20, size=n), dtype="Int64"),
    })
    X.loc[rng.random(n) < 0.1, "f64"] = np.nan
    X.loc[rng.random(n) < 0.1, "f32"] = np.nan
    X.loc[rng.random(n) < 0.1, "nullable"] = pd.NA
    X.loc[rng.random(n) < 0.1, "cat"] = np.nan
    y = (X["f64"].fillna(0) + X["i64"] / 30 + rng.normal(size=n) > 0).astype(int).to_numpy()
    return X, y


@pytest.mark.parametrize("mode", ["numpy", "compiled"])
@pytest.mark.parametrize("seed", [0, 1])
def test_column_source_bins_as_the_code_matrix(mode, seed):
    from dtdecide.tree._structure._encode import fit_encode

    X, _ = mixed_frame(seed)
    codes, enc = fit_encode(X)
    source, enc2 = fit_encode(X, as_columns=True)
    assert not isinstance(source, np.ndarray) and source.shape == codes.shape
    assert np.array_equal(enc.is_categorical, enc2.is_categorical)
    w = np.random.default_rng(seed).uniform(0.5, 2, size=codes.shape[0])
    for weights in (None, w):
        with config_context(kernels=mode), ThreadPool(2) as pool:
            nan_a = np.zeros(codes.shape[1], dtype=np.int64)
            nan_b = nan_a.copy()
            a = Binner(max_bins=32, subsample=1000, random_state=seed)
            b = Binner(max_bins=32, subsample=1000, random_state=seed)
            bins_a = a.fit_transform(codes, enc.is_categorical, weights, nan_counts=nan_a)
            bins_b = b.fit_transform(source, enc.is_categorical, weights, pool=pool,
                                     nan_counts=nan_b)
        assert all(p.tobytes() == q.tobytes()
                   for p, q in zip(a.bin_thresholds_, b.bin_thresholds_))
        assert np.array_equal(bins_a, bins_b) and np.array_equal(nan_a, nan_b)


@pytest.mark.parametrize("mode", ["numpy", "compiled"])
def test_column_source_inf_error_as_the_code_matrix(mode):
    from dtdecide.tree._structure._encode import fit_encode

    X, _ = mixed_frame(2)
    X.loc[2000, "f32"] = np.inf
    X.loc[100, "f64"] = -np.inf
    codes, enc = fit_encode(X, check_finite=False)
    source, _ = fit_encode(X, check_finite=False, as_columns=True)
    messages = []
    for data in (codes, source):
        with config_context(kernels=mode), pytest.raises(ValueError) as info:
            Binner(subsample=100, random_state=0).fit_transform(data, enc.is_categorical)
        messages.append(str(info.value))
        with config_context(kernels=mode), pytest.raises(ValueError) as info:
            Binner(random_state=0).fit(data, enc.is_categorical)
        messages.append(str(info.value))
    assert messages[0] == messages[2] and messages[1] == messages[3]
    assert "column 0 contains infinite" in messages[0]


@pytest.mark.parametrize("mode", ["numpy", "compiled"])
def test_float32_and_mixed_inputs_grow_the_trees_of_their_float64_values(mode):
    import pandas as pd
    from test_n_jobs import assert_same_tree

    from dtdecide import DecisionMatrix, ProfitTreeClassifier

    X, y = mixed_frame(3)
    mixed = X[["f64", "f32", "i64", "u8"]]  # read column by column
    block = pd.DataFrame(mixed.to_numpy(dtype=np.float64), columns=mixed.columns)
    arr32 = mixed.to_numpy(dtype=np.float32)
    with config_context(kernels=mode):
        a = ProfitTreeClassifier(max_depth=4, random_state=0).fit(block, y)  # no copy
        b = ProfitTreeClassifier(max_depth=4, random_state=0).fit(mixed, y)
        c = ProfitTreeClassifier(max_depth=4, random_state=0).fit(arr32, y)
        d = ProfitTreeClassifier(max_depth=4, random_state=0).fit(arr32.astype(np.float64), y)
        matrix = DecisionMatrix([[1.0, -1.0], [0.0, 0.0]], levels=[1, 0],
                                decisions=["call", "skip"])
        e = ProfitTreeClassifier(max_depth=4, random_state=0, honest_fraction=0.5,
                                 decision_matrix=matrix)
        f = ProfitTreeClassifier(max_depth=4, random_state=0, honest_fraction=0.5,
                                 decision_matrix=matrix)
        e.fit(X, y)
        f.fit(X.astype({c: np.float64 for c in ["f32", "i64", "u8"]}), y)
    assert_same_tree(a.tree_, b.tree_)
    assert_same_tree(c.tree_, d.tree_)
    assert_same_tree(e.tree_, f.tree_)
    assert np.array_equal(a.has_missing_in_fit_, b.has_missing_in_fit_)
    assert np.array_equal(c.has_missing_in_fit_, d.has_missing_in_fit_)
    assert np.array_equal(e.has_missing_in_fit_, f.has_missing_in_fit_)


@pytest.mark.parametrize("n_jobs", [2, 3, 16])
def test_threaded_transform_by_rows_or_columns_equals_one_thread(monkeypatch, n_jobs):
    """A row-major matrix is binned by ranges of rows alone (every column in each: a
    row's columns share its cache lines), a column-major one by runs of columns (x
    ranges of rows): both give the one-thread bins, NaN counts and infinity errors."""
    rng = np.random.default_rng(n_jobs)
    n = 3001
    X = np.column_stack([rng.normal(size=n), np.round(rng.exponential(size=n) * 3),
                         rng.integers(0, 300, size=n).astype(float),
                         rng.standard_cauchy(size=n), np.full(n, 2.5)])
    X[rng.random(X.shape) < 0.1] = np.nan
    is_cat = np.array([False, False, True, False, False])
    binner = Binner(max_bins=50, random_state=0).fit(X, is_cat)
    monkeypatch.setattr(_binning, "MIN_CHUNK_ROWS", 100)
    plans = []
    original = _binning._bin_grid
    monkeypatch.setattr(_binning, "_bin_grid",
                        lambda bm, M, grid, *a: plans.append(grid) or original(bm, M, grid, *a))
    for Xt in layouts(X):
        nan = np.zeros(X.shape[1], dtype=np.int64)
        with config_context(kernels="compiled"):
            want = binner.transform(Xt)
            with ThreadPool(n_jobs) as pool:
                plans.clear()
                got = binner.transform(Xt, pool=pool, nan_counts=nan)
                bad = Xt.copy(order="K")
                bad[len(bad) * 2 // 3, 3] = -np.inf
                with pytest.raises(ValueError, match="column 3"):
                    binner.transform(bad, pool=pool)
        assert np.array_equal(got, want)
        assert np.array_equal(nan, np.isnan(Xt).sum(axis=0))
        per = 1 if n_jobs == 2 else _binning._TASKS_PER_THREAD
        if _binning._row_major(Xt):  # every column x ranges of rows (4 a thread on > 2)
            groups, bounds = plans[0]
            assert [g.tolist() for g in groups] == [list(range(5))]
            assert len(bounds) == min(n_jobs * per, len(Xt) // 100) + 1
        elif n_jobs == 2:  # two threads: columns alone
            assert not plans
        else:  # single columns x the plan's ranges of rows
            groups, bounds = plans[0]
            assert [g.tolist() for g in groups] == [[j] for j in range(5)]
