"""The fast paths of the decision engine against the general (slow) ones.

``decide`` sends categorical matrices with additive costs through
``_decide_chunks_additive``; every other matrix goes through ``_decide_chunks``, which
builds the full consequences per chunk. Switching ``_engine._FAST_KERNEL`` off runs
the general path on the same inputs: both must give the same cases and summaries.
The target encoders and the small kernels have slow, obvious twins here too.
"""

import numpy as np
import pandas as pd
import pytest
from decision_helpers import general_decide
from hypothesis import given, settings
from hypothesis import strategies as st

from dtdecide import config_context
from dtdecide.decision import DecisionMatrix, _engine, decide, encode_target, roi
from dtdecide.decision._kernels import _LevelLookup, _segments, _target_codes

SETTINGS = settings(max_examples=30, deadline=None)


def assert_same_result(fast, ref):
    assert list(fast.cases.columns) == list(ref.cases.columns)
    pd.testing.assert_index_equal(fast.cases.index, ref.cases.index)
    for col in fast.cases.columns:
        a, b = fast.cases[col], ref.cases[col]
        if isinstance(a.dtype, pd.CategoricalDtype):
            assert list(a.cat.categories) == list(b.cat.categories)
            np.testing.assert_array_equal(a.cat.codes, b.cat.codes, err_msg=col)
        else:
            # atol: a figure that cancels to about 1e-5 (e.g. EL = p * v1 - q * v2) may
            # differ in its last bits between the two summation orders
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, equal_nan=True,
                                       err_msg=col)
    assert list(fast.summary.index) == list(ref.summary.index)
    np.testing.assert_allclose(fast.summary, ref.summary, rtol=1e-12, atol=1e-12,
                               equal_nan=True)


def make_case(seed, *, n, T, D, kind, n_cost_cols, nan_rate, dyadic):
    """A random matrix with constant and column costs, posteriors, target and costs.

    ``dyadic`` draws small integers and posteriors in quarters, so that products are
    exact and ties between decisions are frequent.
    """
    rng = np.random.default_rng(seed)
    levels = [f"l{t}" for t in range(T)]
    decisions = [f"d{d}" for d in range(D)]
    if dyadic:
        R = rng.integers(-3, 4, size=(T, D)).astype(float)
        post = rng.multinomial(4, np.ones(T) / T, size=n) / 4.0
    else:
        R = rng.normal(scale=10.0, size=(T, D))
        post = rng.dirichlet(np.ones(T), size=n)
    costs, columns = None, {}
    if kind == "revenue":
        costs = {}
        for j, d in enumerate(decisions):
            r = rng.random()
            if j < n_cost_cols:
                name = f"c{j}"
                costs[d] = name
                col = (rng.integers(0, 4, size=n).astype(float) if dyadic
                       else rng.uniform(0.0, 5.0, size=n))
                col[rng.random(n) < nan_rate] = np.nan
                columns[name] = col
            elif r < 0.6:
                costs[d] = float(rng.integers(0, 3)) if dyadic else float(rng.uniform(0, 3))
        costs = costs or None
    m = DecisionMatrix(R, levels=levels, decisions=decisions, kind=kind, costs=costs)
    y = np.asarray(levels, dtype=object)[rng.integers(0, T, size=n)]
    return m, post, y, (columns or None)


case_params = st.fixed_dictionaries({
    "seed": st.integers(0, 2**31 - 1),
    "n": st.integers(1, 120),
    "T": st.integers(2, 5),
    "D": st.integers(1, 5),
    "kind": st.sampled_from(["profit", "loss", "revenue"]),
    "n_cost_cols": st.integers(0, 2),
    "nan_rate": st.sampled_from([0.0, 0.0, 0.2]),
    "dyadic": st.booleans(),
})


@SETTINGS
@given(params=case_params, chunk=st.integers(1, 50), with_y=st.booleans(),
       threshold=st.sampled_from([None, 0.0, 1.5]), weighted=st.booleans())
def test_fast_path_equals_general_path(params, chunk, with_y, threshold, weighted):
    m, post, y, costs = make_case(**params)
    rng = np.random.default_rng(params["seed"] + 1)
    kwargs = dict(y=y if with_y else None, costs=costs, chunk_size=chunk, threshold=threshold,
                  sample_weight=rng.integers(0, 3, size=len(post)) if weighted else None)
    assert_same_result(decide(post, m, **kwargs), general_decide(post, m, **kwargs))


@SETTINGS
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(1, 80), weighted=st.booleans())
def test_fast_path_with_priors_and_train_priors(seed, n, weighted):
    rng = np.random.default_rng(seed)
    T, D = 3, 3
    priors = rng.uniform(0.05, 1.0, size=T)
    m = DecisionMatrix(rng.normal(size=(T, D)), levels=["a", "b", "c"], priors=priors)
    post = rng.dirichlet(np.ones(T), size=n)
    y = rng.choice(["a", "b", "c"], size=n)
    w = rng.uniform(0, 2, size=n) if weighted else None
    for train in (None, rng.uniform(0.1, 1.0, size=T)):
        kwargs = dict(y=y, train_priors=train, sample_weight=w, chunk_size=7)
        assert_same_result(decide(post, m, **kwargs), general_decide(post, m, **kwargs))


def test_large_run_multiple_default_chunks_equal_general_path():
    # more rows than one default chunk: the single-BLAS-thread branch and chunk seams
    m, post, y, costs = make_case(3, n=(1 << 15) + 1234, T=3, D=4, kind="revenue",
                                  n_cost_cols=1, nan_rate=0.01, dyadic=False)
    res = decide(post, m, y=y, costs=costs, chunk_size=1 << 14)
    assert_same_result(res, general_decide(post, m, y=y, costs=costs, chunk_size=1 << 14))
    assert res.summary["n_missing"] > 0


def test_ties_go_to_first_decision_on_fast_path():
    m = DecisionMatrix([[1, 1, 0], [0, 0, 1]], levels=["a", "b"], decisions=["x", "y", "z"])
    res = decide([[0.5, 0.5], [1.0, 0.0], [0.0, 1.0]], m, chunk_size=2)
    assert res.cases["D_target"].tolist() == ["x", "x", "z"]


def test_fast_path_errors_match_general_path():
    m = DecisionMatrix([[1, 0], [0, 1]], levels=["a", "b"], decisions=["x", "y"])
    bad = {
        "NaN": [[0.5, 0.5], [np.nan, 1.0]],
        "negative": [[0.5, 0.5], [1.5, -0.5]],
        "sum": [[0.5, 0.5], [0.5, 0.6]],
    }
    for post in bad.values():
        with pytest.raises(ValueError) as fast:
            decide(post, m, chunk_size=1)
        with pytest.raises(ValueError) as ref:
            general_decide(post, m, chunk_size=1)
        assert str(fast.value) == str(ref.value)
        assert "row 1" in str(fast.value)


def test_sum_check_boundary_matches_the_detailed_check():
    # rows that sum to 1 +- (just within / just beyond) the tolerance
    m = DecisionMatrix([[1, 0], [0, 1]], levels=["a", "b"], decisions=["x", "y"])
    tol = _engine._SUM_TOL
    for delta in (tol, -tol, np.nextafter(tol, 1), -np.nextafter(tol, 1)):
        post = np.array([[0.5, 0.5], [0.5, 0.5 + delta]])
        try:
            general_decide(post, m)
            ref_ok = True
        except ValueError:
            ref_ok = False
        try:
            decide(post, m)
            fast_ok = True
        except ValueError:
            fast_ok = False
        assert fast_ok == ref_ok


# --------------------------------------------------------------- small kernels


@SETTINGS
@given(seed=st.integers(0, 2**31 - 1), k=st.integers(1, 6), m=st.integers(1, 50),
       small=st.booleans())
def test_first_max_equals_argmax(seed, k, m, small):
    rng = np.random.default_rng(seed)
    rows = rng.integers(-2, 3, size=(k, m)).astype(float) if small else rng.normal(size=(k, m))
    idx = np.empty(m, dtype=np.int8)
    val = np.empty(m)
    _engine._first_max(rows, idx, val, np.empty(m, dtype=bool), np.empty(m, dtype=np.int8))
    ref = np.argmax(rows, axis=0)  # first maximum
    np.testing.assert_array_equal(idx, ref)
    np.testing.assert_array_equal(val, rows[ref, np.arange(m)])


def test_roi_into_equals_roi_on_all_cases():
    C = np.array([10.0, 5.0, 0.0, -3.0, np.nan, 2.0, 0.0, -1.0, 4.0, np.nan, 1.0])
    IC = np.array([5.0, 0.0, 0.0, 0.0, 1.0, np.nan, 2.0, -2.0, -0.0, 0.0, 3.0])
    for c, ic in ((C, IC), (C[:4], IC[:4]), (C[-1:], IC[-1:])):
        out = np.empty(c.size)
        _engine._roi_into(c, ic, out)
        np.testing.assert_array_equal(out, roi(c, ic))


# --------------------------------------------------------------- target encoding


def slow_encode(y, levels):
    """Dictionary lookup, one value at a time."""
    pos = {lv: i for i, lv in enumerate(levels)}
    return np.array([pos[v] for v in y], dtype=np.intp)


@SETTINGS
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(0, 60),
       form=st.sampled_from(["object", "unicode", "list", "category", "category_series",
                             "ordered", "numpy_str"]))
def test_encode_target_fast_paths_equal_dictionary_lookup(seed, n, form):
    rng = np.random.default_rng(seed)
    levels = ["mid", "low", "high", "", "é"]  # unsorted, an empty and a non-ASCII level
    values = [levels[i] for i in rng.integers(0, len(levels), size=n)]
    if form == "object":
        y = np.asarray(values, dtype=object)
    elif form == "unicode":
        y = np.asarray(values, dtype=str)
    elif form == "list":
        y = values
    elif form == "numpy_str":
        y = np.array([np.str_(v) for v in values], dtype=object)
    else:
        # categories in another order, one unused and one unknown to the matrix
        cats = ["high", "zzz", "low", "mid", "", "é", "unused"]
        cat = pd.Categorical(values, categories=[c for c in cats if c != "zzz"] + ["zzz"],
                             ordered=form == "ordered")
        y = pd.Series(cat) if form == "category_series" else cat
    expected = slow_encode(values, levels)
    np.testing.assert_array_equal(encode_target(y, levels), expected)
    assert encode_target(y, levels).dtype == np.intp


@pytest.mark.parametrize("form", ["object", "unicode", "category"])
def test_encode_target_unknown_values_are_named(form):
    values = ["a", "b", "zz", "a"]
    y = {"object": np.asarray(values, dtype=object), "unicode": np.asarray(values),
         "category": pd.Categorical(values)}[form]
    with pytest.raises(ValueError, match=r"y contains values .*'zz'"):
        encode_target(y, ["a", "b"])


def test_encode_target_missing_category_is_unknown():
    y = pd.Categorical(["a", None, "b"])
    with pytest.raises(ValueError, match="y contains values"):
        _target_codes(y, ["a", "b"])


def test_encode_target_non_string_levels_keep_general_path():
    np.testing.assert_array_equal(encode_target(np.array([2, 0, 1, 2]), [0, 1, 2]),
                                  [2, 0, 1, 2])
    np.testing.assert_array_equal(encode_target([True, False], [False, True]), [1, 0])
    with pytest.raises(ValueError, match="y contains values"):
        encode_target(np.array(["1"], dtype=object), [0, 1])


@SETTINGS
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(0, 60),
       dtype=st.sampled_from(["int8", "int64", "uint8", "uint64"]),
       levels=st.lists(st.integers(-130, 300), min_size=1, max_size=10, unique=True))
def test_encode_target_few_integer_levels_equal_the_index_lookup(seed, n, dtype, levels):
    """Integer values among a few integer levels (one comparison per level, int8 codes)
    give pandas' codes, unknown values and values the levels' dtype cannot hold
    included; more levels, or levels the values' dtype cannot hold, take pandas' path."""
    rng = np.random.default_rng(seed)
    info = np.iinfo(dtype)
    pool = [v for v in levels + [0, 1, 255, -1, 7] if info.min <= v <= info.max]
    y = np.array([pool[i] for i in rng.integers(0, len(pool), size=n)], dtype=dtype)
    expected = pd.Index(levels).get_indexer(y)
    np.testing.assert_array_equal(_LevelLookup(levels, y.dtype)(y), expected)
    np.testing.assert_array_equal(
        _LevelLookup(np.asarray(levels), y.dtype)(y), expected)
    if (expected >= 0).all():
        np.testing.assert_array_equal(encode_target(y, levels), expected)
    else:
        with pytest.raises(ValueError, match="y contains values"):
            encode_target(y, levels)


@pytest.mark.parametrize("levels", [[0, 1], [1, 0], [3, 4, 5], [-2, -3, -4], [7], [126, 127]])
@pytest.mark.parametrize("dtype", ["int64", "uint8", "int8"])
def test_encode_target_consecutive_integer_levels(levels, dtype):
    """Consecutive integer levels in either order take their codes from the values
    (after a range check); values outside the levels fall back to the comparisons."""
    info = np.iinfo(dtype)
    if not (info.min <= min(levels) and max(levels) <= info.max):
        pytest.skip("levels outside the dtype")
    rng = np.random.default_rng(0)
    y = np.asarray(levels, dtype=dtype)[rng.integers(0, len(levels), size=50)]
    lookup = _LevelLookup(levels, y.dtype)
    np.testing.assert_array_equal(lookup(y), pd.Index(levels).get_indexer(y))
    assert lookup(y).dtype == np.int8
    outside = np.append(y, max(levels) - len(levels) if min(levels) > info.min
                        else max(levels) + 1).astype(dtype)
    np.testing.assert_array_equal(lookup(outside), pd.Index(levels).get_indexer(outside))
    assert lookup(outside)[-1] == -1


@pytest.mark.parametrize("levels", [[0, 1], [1, 0], [3, 4, 5], [-2, -3, -4], [7], [126, 127]])
@pytest.mark.parametrize("dtype", ["int64", "int32", "int8"])
def test_compiled_run_codes_equal_the_numpy_steps(levels, dtype):
    """The compiled pass of consecutive integer levels gives the NumPy steps' codes, and
    a value outside the levels (first, in the middle, last) sends both to the
    comparisons: the same codes and -1 there."""
    pytest.importorskip("numba")
    info = np.iinfo(dtype)
    if not (info.min <= min(levels) and max(levels) <= info.max):
        pytest.skip("levels outside the dtype")
    rng = np.random.default_rng(1)
    y = np.asarray(levels, dtype=dtype)[rng.integers(0, len(levels), size=300)]
    bad = max(levels) + 1 if max(levels) < info.max else min(levels) - 1
    cases = [y]
    for at in (0, 150, 299):
        z = y.copy()
        z[at] = bad
        cases.append(z)
    for values in cases:
        with config_context(kernels="numpy"):
            expected = _LevelLookup(levels, values.dtype)(values)
        with config_context(kernels="compiled"):
            got = _LevelLookup(levels, values.dtype)(values)
        assert got.dtype == expected.dtype == np.int8
        np.testing.assert_array_equal(got, expected)
        np.testing.assert_array_equal(expected, pd.Index(levels).get_indexer(values))


@pytest.mark.parametrize("levels", [[0, 1], [1, 0], [3, 4, 5]])
def test_run_codes_on_an_open_pool_equal_one_pass(monkeypatch, levels):
    """Inside a fit's pool the compiled codes are made in ranges on its threads (small
    ranges here): the codes of one pass, and a value outside the levels in any range
    (first, middle, last) sends them to the comparisons alike."""
    pytest.importorskip("numba")
    from dtdecide._parallel import open_pool, thread_pool
    from dtdecide.decision import _compiled

    monkeypatch.setattr(_compiled, "CODES_TASK_MIN", 7)
    rng = np.random.default_rng(2)
    y = np.asarray(levels, dtype=np.int64)[rng.integers(0, len(levels), size=100)]
    for at in (None, 0, 50, 99):
        values = y.copy()
        if at is not None:
            values[at] = max(levels) + 1
        one = np.empty(values.size, dtype=np.int8)
        ok = _compiled.run_codes(values, min(levels), max(levels), levels[0] < levels[-1], one)
        assert ok == (at is None)
        with config_context(kernels="numpy"):
            expected = _LevelLookup(levels, values.dtype)(values)
        for n_jobs in (2, 3):
            with thread_pool(n_jobs) as pool:
                assert open_pool() is pool
                out = np.empty(values.size, dtype=np.int8)
                assert _compiled.run_codes_on_threads(
                    values, min(levels), max(levels), levels[0] < levels[-1], out) == ok
                if ok:
                    np.testing.assert_array_equal(out, one)
                with config_context(kernels="compiled"):
                    np.testing.assert_array_equal(
                        _LevelLookup(levels, values.dtype)(values), expected)
        assert open_pool() is None


@pytest.mark.parametrize("kernels", ["numpy", "compiled"])
@pytest.mark.parametrize("levels", [[0, 1], [1, 0], ["a", "b"], [0.5, 1.5]])
def test_level_codes_say_when_every_value_is_a_level(kernels, levels):
    """_LevelLookup.checked: True only where its range check has seen every value be a
    level (so _target_codes skips its search for a -1); with a value outside the
    levels, False and -1 there, and encode_target names the value."""
    if kernels == "compiled":
        pytest.importorskip("numba")
    values = np.asarray(levels)[np.arange(1000) % 2]
    bad = values.copy()
    bad[500] = 7 if bad.dtype.kind in "iuf" else "z"
    with config_context(kernels=kernels):
        codes, all_levels = _LevelLookup(levels, values.dtype).checked(values)
        np.testing.assert_array_equal(codes, np.arange(1000) % 2)
        assert all_levels == (values.dtype.kind == "i")  # the consecutive-integer path
        codes, all_levels = _LevelLookup(levels, bad.dtype).checked(bad)
        assert not all_levels and codes[500] == -1 and (codes >= 0).sum() == 999
        with pytest.raises(ValueError, match="not levels of the decision matrix"):
            _target_codes(bad, np.asarray(levels))


def test_decide_accepts_categorical_target_series():
    m = DecisionMatrix([[1, 0], [0, 1]], levels=["a", "b"], decisions=["x", "y"])
    post = [[0.7, 0.3], [0.2, 0.8], [0.6, 0.4]]
    y = pd.Series(pd.Categorical(["b", "b", "a"], categories=["b", "a", "c"]))
    res = decide(post, m, y=y)
    ref = decide(post, m, y=["b", "b", "a"])
    pd.testing.assert_frame_equal(res.cases, ref.cases)
    assert res.summary["misclassification_rate"] == pytest.approx(1 / 3)


def test_fast_path_edge_shapes_equal_general_path():
    rng = np.random.default_rng(0)
    # no cases
    m = DecisionMatrix([[1, 0], [0, 1]], levels=["a", "b"], decisions=["x", "y"],
                       priors=[0.3, 0.7])
    for kwargs in ({}, {"y": []}):
        assert_same_result(decide(np.empty((0, 2)), m, **kwargs),
                           general_decide(np.empty((0, 2)), m, **kwargs))
    # more than 127 integer levels (wide codes), targets as array, list, category, float
    T = 130
    m = DecisionMatrix(rng.normal(size=(T, 3)), levels=list(range(T)))
    post = rng.dirichlet(np.ones(T), size=300)
    y = rng.integers(0, T, size=300)
    for target in (y, list(y), pd.Series(pd.Categorical(y)), y.astype(float)):
        assert_same_result(decide(post, m, y=target, chunk_size=64),
                           general_decide(post, m, y=target, chunk_size=64))
    # more than 127 decisions (wide decision codes) with a threshold
    m = DecisionMatrix(rng.normal(size=(3, 130)), levels=["a", "b", "c"])
    post = rng.dirichlet(np.ones(3), size=300)
    y = rng.choice(["a", "b", "c"], size=300)
    kwargs = dict(y=y, threshold=0.5, chunk_size=50)
    assert_same_result(decide(post, m, **kwargs), general_decide(post, m, **kwargs))


@SETTINGS
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(0, 50), with_costs=st.booleans(),
       interval=st.booleans())
def test_q_actual_takes_the_matrix_rows_it_indexes(seed, n, with_costs, interval):
    """``q_actual`` gathers the matrix's rows with ``np.take`` (fast on many cases): the
    numbers of the plain indexing ``base[t] - costs``, missing costs included."""
    rng = np.random.default_rng(seed)
    costs = {"a": "c"} if with_costs else None
    if interval:
        m = DecisionMatrix({"a": [0.0, 10.0, 30.0], "b": [5.0, 5.0, 5.0]},
                           knots=[0.0, 1.0, 3.0], kind="revenue", costs=costs)
        t = rng.uniform(-1.0, 4.0, size=n)
    else:
        m = DecisionMatrix({"a": [9.0, 1.0, -3.0], "b": [0.0, 2.0, 0.5]}, levels=[0, 1, 2],
                           kind="revenue", costs=costs)
        t = rng.integers(0, 3, size=n).astype(np.int8)
    c = rng.uniform(0, 4, size=n)
    c[rng.random(n) < 0.2] = np.nan
    cons = m.resolve(pd.DataFrame({"c": c}) if with_costs else None, n_samples=n)
    if interval:
        seg, w = _segments(cons.knots, t)
        expected = cons.base[seg] * (1.0 - w[:, None]) + cons.base[seg + 1] * w[:, None]
    else:
        expected = cons.base[t.astype(np.intp)]
    if with_costs:
        expected = expected - cons.case_costs
    got = cons.q_actual(t)
    assert got.shape == (n, 2) and got.dtype == np.float64
    np.testing.assert_array_equal(got, expected)
