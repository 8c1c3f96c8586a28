"""``dtdecide.decide(..., n_jobs=...)``: the per-case step of a categorical matrix with
additive costs on the compiled kernel (``dtdecide.decision._compiled.decide_rows``) and
on threads, against the NumPy chunk kernel on one thread (the twin). Every column and
the summary must be the same bit for bit (NaN where NaN, signed zeros included), for any
``n_jobs`` and chunk size, with priors, decision costs, missing costs, an implicit
do-nothing decision, weights and ties."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dtdecide import DecisionMatrix, config_context, decide

pytest.importorskip("numba")

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

MATRICES = {
    # two levels, a cost column on one decision, a constant on another
    "revenue_cost_column": lambda: DecisionMatrix(
        {"call": [30.0, 0.0], "mail": [12.0, 0.0], "skip": [0.0, 0.0]},
        levels=["yes", "no"], kind="revenue", costs={"call": "c1", "mail": 1.5}),
    # three levels, four decisions: two cost columns, a constant cost and none
    "revenue_mixed": lambda: DecisionMatrix(
        {"a": [9.0, 1.0, -3.0], "b": [0.0, 2.0, 0.5], "c": [4.0, 4.0, 4.0],
         "d": [0.0, 0.0, 0.0]}, levels=["x", "y", "z"], kind="revenue",
        costs={"a": "c1", "b": "c2", "c": 1.5}),
    # every decision with a cost column (no constant best); negative costs allowed
    "revenue_all_columns": lambda: DecisionMatrix(
        {"a": [5.0, 1.0, 0.0], "b": [1.0, 3.0, 2.0]}, levels=["x", "y", "z"],
        kind="revenue", costs={"a": "c1", "b": "c2"}),
    # a loss matrix without costs, with priors (adjusted posteriors and summary)
    "loss_priors": lambda: DecisionMatrix(
        {"p0": [0.0, 4.0, 1.0], "p1": [2.0, 0.0, 1.0], "p2": [3.0, 1.0, 0.0]},
        levels=["x", "y", "z"], kind="loss", priors=[0.2, 0.5, 0.3]),
    # a profit matrix with equal columns: ties go to the first decision
    "profit_ties": lambda: DecisionMatrix(
        {"a": [1.0, 0.0], "b": [1.0, 0.0], "c": [0.0, 1.0]}, levels=[1, 0]),
}


def _inputs(matrix, rng, n, missing, negative):
    T = matrix.n_levels
    post = rng.dirichlet(np.ones(T), size=n)
    post[rng.random(n) < 0.1] = np.full(T, 1.0 / T)  # ties in the most probable level
    post[rng.random(n) < 0.05] = np.eye(T)[0]
    cols = sorted({c for c in (matrix.costs or {}).values() if isinstance(c, str)})
    costs = None
    if cols:
        low = -1.0 if negative else 0.0
        costs = pd.DataFrame({c: rng.uniform(low, 6.0, size=n).round(1) for c in cols})
        costs.iloc[rng.random(n) < 0.1, 0] = 0.0  # investments of zero: ROI's edge cases
        if missing:
            for c in cols:
                costs.loc[rng.random(n) < 0.1, c] = np.nan
    levels = list(matrix.levels)
    y = np.asarray(levels, dtype=object)[rng.integers(0, T, size=n)]
    if isinstance(levels[0], (int, np.integer)):
        y = y.astype(np.int64)
    return post, costs, y


def assert_identical(a, b):
    """The same cases table and summary, every float bit for bit (NaN where NaN)."""
    assert list(a.cases.columns) == list(b.cases.columns)
    assert a.cases.index.equals(b.cases.index)
    for col in a.cases.columns:
        x, y = a.cases[col], b.cases[col]
        assert x.dtype == y.dtype, col
        if isinstance(x.dtype, pd.CategoricalDtype):
            assert np.array_equal(x.cat.codes, y.cat.codes), col
            continue
        x, y = x.to_numpy(), y.to_numpy()
        nan = np.isnan(x)
        assert np.array_equal(nan, np.isnan(y)), col
        assert np.array_equal(x[~nan].view(np.int64), y[~nan].view(np.int64)), col
    assert list(a.summary.index) == list(b.summary.index)
    x, y = a.summary.to_numpy(dtype=float), b.summary.to_numpy(dtype=float)
    nan = np.isnan(x)
    assert np.array_equal(nan, np.isnan(y))
    assert np.array_equal(x[~nan].view(np.int64), y[~nan].view(np.int64))


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 500),
       name=st.sampled_from(sorted(MATRICES)), with_y=st.booleans(),
       categorical_y=st.booleans(), weighted=st.booleans(), missing=st.booleans(),
       negative=st.booleans(), threshold=st.sampled_from([None, 0.5, -1.0]),
       decision_costs=st.booleans(), train_priors=st.booleans(),
       chunk=st.sampled_from([1, 7, 64, None]), n_jobs=st.sampled_from([1, 2, 3]))
def test_compiled_threaded_decide_equals_numpy_twin(seed, n, name, with_y, categorical_y,
                                                    weighted, missing, negative, threshold,
                                                    decision_costs, train_priors, chunk,
                                                    n_jobs):
    rng = np.random.default_rng(seed)
    matrix = MATRICES[name]()
    post, costs, y = _inputs(matrix, rng, n, missing, negative)
    if categorical_y:
        y = pd.Categorical(y, categories=list(matrix.levels)[::-1])
    kw = dict(y=y if with_y else None, costs=costs, chunk_size=chunk,
              sample_weight=rng.uniform(0, 3, size=n) if weighted else None,
              threshold=threshold)
    if decision_costs and costs is not None:
        kw["decision_costs"] = {c: float(rng.uniform(0, 4)) for c in costs.columns}
    if train_priors and matrix.priors is not None:
        kw["train_priors"] = [0.4, 0.4, 0.2]
    with config_context(kernels="numpy"):
        ref = decide(post, matrix, **kw)
    with config_context(kernels="numpy"):
        assert_identical(decide(post, matrix, n_jobs=n_jobs, **kw), ref)
    with config_context(kernels="compiled"):
        assert_identical(decide(post, matrix, n_jobs=n_jobs, **kw), ref)


def test_compiled_kernel_runs_only_when_asked_for(monkeypatch):
    """``kernels="compiled"`` runs the compiled loop over every chunk; ``"auto"`` keeps
    the NumPy chunk kernel (faster where measured) even for large tables on threads."""
    from dtdecide._jit import AUTO_MIN_ROWS
    from dtdecide.decision import _compiled

    calls = []
    kernel = _compiled.decide_rows

    def spy(*args):
        calls.append(args[-4] - args[-5])  # hi - lo
        return kernel(*args)

    monkeypatch.setattr(_compiled, "decide_rows", spy)
    matrix = MATRICES["revenue_cost_column"]()
    rng = np.random.default_rng(1)
    post, costs, y = _inputs(matrix, rng, AUTO_MIN_ROWS, False, False)
    with config_context(kernels="auto"):
        auto = decide(post, matrix, y=y, costs=costs, n_jobs=2)
    assert calls == []
    with config_context(kernels="compiled"):
        compiled = decide(post, matrix, y=y, costs=costs, n_jobs=2)
    assert sum(calls) == AUTO_MIN_ROWS and len(calls) == -(-AUTO_MIN_ROWS // (1 << 15))
    assert_identical(compiled, auto)


@pytest.mark.parametrize("mode", ["numpy", "compiled"])
def test_threads_raise_the_first_bad_chunks_error(mode):
    # rows 130 and 300 are bad; with 3 threads over chunks of 50 rows the chunk of row
    # 300 may fail first, but the error names row 130 as on one thread
    matrix = MATRICES["revenue_cost_column"]()
    rng = np.random.default_rng(2)
    post, costs, y = _inputs(matrix, rng, 400, False, False)
    post[130] = [0.7, 0.7]
    post[300] = [-0.5, 1.5]
    with config_context(kernels=mode):
        for n_jobs in (1, 3):
            with pytest.raises(ValueError, match="row 130 sums to"):
                decide(post, matrix, y=y, costs=costs, chunk_size=50, n_jobs=n_jobs)


@pytest.mark.parametrize("n_jobs", [0, 1.5, True, "2"])
def test_bad_n_jobs_is_named(n_jobs):
    matrix = MATRICES["profit_ties"]()
    with pytest.raises(ValueError, match="n_jobs"):
        decide(np.array([[0.5, 0.5]]), matrix, n_jobs=n_jobs)
