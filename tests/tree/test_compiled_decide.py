"""The compiled per-case decision step (``dtdecide.decision._compiled.decide_rows``)
against its NumPy twin, the chunk kernel of :func:`dtdecide.decide`.

Under ``decision_rule="case"`` a tree's ``decide`` runs, with the compiled kernels, the
per-case step of :func:`dtdecide.decide` in
:func:`dtdecide.tree._structure._caserule.decide_cases` (a Numba loop over row ranges on
the estimator's threads); with the NumPy twins it calls :func:`dtdecide.decide` on the
gathered leaf posteriors. Both must give the same table and summary: the same
decisions and missing cases, float columns and summary equal to a relative 1e-12 (the
per-node products are the engine's NumPy products and the per-case arithmetic is the
engine's, so they are in fact equal bit for bit), for every ``n_jobs``.

``dtdecide.decide(..., n_jobs=...)`` itself runs the same kernel on each case's own
posteriors (``kernels="compiled"``) or the chunk kernel, on threads: every column and the
summary must be the same bit for bit (NaN where NaN, signed zeros included), for any
``n_jobs`` and chunk size, with priors, decision costs, missing costs, an implicit
do-nothing decision, weights and ties.
"""


import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_compiled_scan import both

from dtdecide import DecisionMatrix, config_context, decide
from dtdecide.tree import ProfitTreeClassifier

pytest.importorskip("numba")

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

MATRICES = {
    # two levels, a cost column on one decision and a constant on another
    "revenue_cost_column": lambda: DecisionMatrix(
        {"call": [30.0, 0.0], "mail": [12.0, 0.0], "skip": [0.0, 0.0]},
        levels=["yes", "no"], kind="revenue", costs={"call": "c1", "mail": 1.5}),
    # two levels, a cost column on one decision (the bank data's shape)
    "revenue_one_cost": lambda: DecisionMatrix(
        {"call": [12.0, 0.0], "skip": [0.0, 0.0]}, levels=[1, 0], kind="revenue",
        costs={"call": "cost"}),
    # three levels, four decisions: two cost columns, a constant cost and none
    "revenue_mixed": lambda: DecisionMatrix(
        {"a": [9.0, 1.0, -3.0], "b": [0.0, 2.0, 0.5], "c": [4.0, 4.0, 4.0],
         "d": [0.0, 0.0, 0.0]},
        levels=["x", "y", "z"], kind="revenue",
        costs={"a": "c1", "b": "c2", "c": 1.5}),
    # every decision with a cost column (no constant best)
    "revenue_all_columns": lambda: DecisionMatrix(
        {"a": [5.0, 1.0, 0.0], "b": [1.0, 3.0, 2.0]}, levels=["x", "y", "z"],
        kind="revenue", costs={"a": "c1", "b": "c2"}),
    # a loss matrix without costs, with priors (the adjusted summary)
    "loss_priors": lambda: DecisionMatrix(
        {"p0": [0.0, 4.0, 1.0], "p1": [2.0, 0.0, 1.0], "p2": [3.0, 1.0, 0.0]},
        levels=["x", "y", "z"], kind="loss", priors=[0.2, 0.5, 0.3]),
    # a profit matrix with ties: equal columns decide for the first
    "profit_ties": lambda: DecisionMatrix(
        {"a": [1.0, 0.0], "b": [1.0, 0.0], "c": [0.0, 1.0]}, levels=[1, 0]),
}


def _cost_frame(matrix, rng, n, missing):
    cols = sorted({c for c in (matrix.costs or {}).values() if isinstance(c, str)})
    if not cols:
        return None
    frame = pd.DataFrame({c: rng.uniform(-0.5, 4.0, size=n) for c in cols})
    if missing:
        for c in cols:
            frame.loc[rng.random(n) < 0.1, c] = np.nan
    return frame


def _data(matrix, rng, n):
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.integers(0, 4, size=n).astype(float),
                      "c": rng.normal(size=n)})
    levels = list(matrix.levels)
    y = np.asarray(levels, dtype=object)[rng.integers(0, len(levels), size=n)]
    if isinstance(levels[0], (int, np.integer)):
        y = y.astype(np.int64)
    return X, y


def assert_same_result(a, b):
    """Same columns, dtypes, index, decisions and missing values; floats to 1e-12."""
    pd.testing.assert_frame_equal(a.cases, b.cases, check_exact=False, rtol=1e-12,
                                  atol=0.0)
    for col in a.cases.columns:
        if col.startswith("D_"):
            assert np.array_equal(a.cases[col].cat.codes, b.cases[col].cat.codes)
        else:
            assert np.array_equal(a.cases[col].isna(), b.cases[col].isna())
    pd.testing.assert_series_equal(a.summary, b.summary, check_exact=False, rtol=1e-12,
                                   atol=0.0)
    pd.testing.assert_series_equal(a.decision_counts(), b.decision_counts())


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(5, 400),
       name=st.sampled_from(sorted(MATRICES)), with_y=st.booleans(),
       weighted=st.booleans(), missing=st.booleans(), n_jobs=st.sampled_from([1, 2, 3]))
def test_case_rule_decide_equals_numpy_twin(seed, n, name, with_y, weighted, missing,
                                            n_jobs):
    rng = np.random.default_rng(seed)
    matrix = MATRICES[name]()
    X, y = _data(matrix, rng, n)
    costs = _cost_frame(matrix, rng, n, missing)
    fit_costs = None if costs is None else costs.fillna(1.0)
    tree = ProfitTreeClassifier(decision_matrix=matrix, decision_rule="case", max_depth=3,
                                min_samples_leaf=2, random_state=0, n_jobs=n_jobs)
    tree.fit(X, y, costs=fit_costs)
    w = rng.uniform(0, 3, size=n) if weighted else None
    a, b = both(lambda: tree.decide(X, y if with_y else None, costs=costs,
                                     sample_weight=w))
    assert_same_result(a, b)
    # the compiled result is the engine's on the tree's posteriors
    post = tree.predict_proba(X)
    c = decide(pd.DataFrame(post, columns=tree.classes_), matrix, y=y if with_y else None,
               costs=costs, sample_weight=w)
    assert np.array_equal(b.cases.iloc[:, 0].cat.codes, c.cases.iloc[:, 0].cat.codes)


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 300),
       chunk=st.sampled_from([1, 7, 64, 1 << 15]), weighted=st.booleans(),
       with_y=st.booleans(), missing=st.booleans())
def test_decide_cases_equals_engine_chunks_for_any_n_jobs(seed, n, chunk, weighted, with_y,
                                                           missing):
    """The kernel on leaves of a random "tree" (posteriors per node) against
    dtdecide.decide on the gathered posteriors, chunk sums included."""
    from dtdecide.decision._engine import _AdditivePlan
    from dtdecide.decision._kernels import encode_target
    from dtdecide.tree._structure._caserule import decide_cases

    rng = np.random.default_rng(seed)
    matrix = MATRICES["revenue_mixed"]()
    n_nodes = 9
    node_in = rng.dirichlet(np.ones(3), size=n_nodes)
    node_in[0] = [0.5, 0.25, 0.25]  # exact ties in the most probable level
    leaf = rng.integers(0, n_nodes, size=n)
    costs = _cost_frame(matrix, rng, n, missing)
    y = np.asarray(["x", "y", "z"], dtype=object)[rng.integers(0, 3, size=n)]
    w = rng.uniform(0, 2, size=n) if weighted else None
    ref = decide(node_in[leaf], matrix, y=y if with_y else None, costs=costs,
                 sample_weight=w, chunk_size=chunk)
    plan = _AdditivePlan(matrix, matrix._cost_columns(costs, n, pd.RangeIndex(n)))
    target = encode_target(y, matrix.levels) if with_y else None
    outs = [decide_cases(leaf, node_in, plan, revenue=True, target=target, weight=w,
                         chunk=chunk, n_jobs=k) for k in (1, 2, 3)]
    for out in outs[1:]:  # the same for every number of threads, bit for bit
        for key, value in out.items():
            if isinstance(value, np.ndarray):
                assert np.array_equal(value, outs[0][key], equal_nan=True), key
            else:
                assert value == outs[0][key], key
    out = outs[0]
    letters = {"EP_target": "expected", "IC_target": "investment"}
    if with_y:
        letters.update({"CP_target": "computed", "BP_target": "best", "ROI_target": "roi"})
    assert np.array_equal(ref.cases["D_target"].cat.codes, out["decision"])
    for col, key in letters.items():
        np.testing.assert_allclose(out[key], ref.cases[col].to_numpy(), rtol=1e-12, atol=0)
        assert np.array_equal(np.isnan(out[key]), ref.cases[col].isna())
    assert np.array_equal(out["missing"], ref.cases["EP_target"].isna())
    if with_y:
        wrong = ref.summary["misclassification_rate"] * (n if w is None else w.sum())
        assert out["misclassified"] == pytest.approx(wrong, rel=1e-12, abs=1e-12)
    else:
        assert out["misclassified"] is None


def test_compiled_case_rule_runs_on_large_tables_and_refuses_bad_costs(monkeypatch):
    """Under "auto" the compiled step takes tables of AUTO_MIN_ROWS rows and more; the
    engine's errors for bad inputs are raised by it too."""
    from dtdecide._jit import AUTO_MIN_ROWS

    rng = np.random.default_rng(0)
    matrix = MATRICES["revenue_one_cost"]()
    n = 600
    X, y = _data(matrix, rng, n)
    costs = pd.DataFrame({"cost": rng.uniform(0.5, 3, size=n)})
    tree = ProfitTreeClassifier(decision_matrix=matrix, decision_rule="case", max_depth=2,
                                random_state=0).fit(X, y, costs=costs)
    for mode in ("numpy", "compiled"):
        with config_context(kernels=mode):
            with pytest.raises(ValueError, match="levels of the decision matrix"):
                tree.decide(X, np.full(n, 7), costs=costs)
            with pytest.raises(ValueError, match="y must have one value per case"):
                tree._decide_case_rule(tree.apply(X), y=y[:-1], costs=costs, F=None,
                                       index=X.index)
            bad = costs.assign(cost=costs["cost"].astype(object).where(
                np.arange(n) != 3, "x"))
            with pytest.raises((TypeError, ValueError), match="cost"):
                tree.decide(X, y, costs=bad)
    big = pd.concat([X] * (AUTO_MIN_ROWS // n + 1), ignore_index=True)
    big_costs = pd.concat([costs] * (AUTO_MIN_ROWS // n + 1), ignore_index=True)
    import dtdecide.tree._structure._caserule as caserule

    calls = []
    original = caserule.decide_cases

    def spy(*args, **kw):
        calls.append(len(args[0]))
        return original(*args, **kw)

    monkeypatch.setattr(caserule, "decide_cases", spy)
    monkeypatch.setenv("DTDECIDE_KERNELS", "auto")
    with config_context(kernels="auto"):
        res = tree.decide(big, costs=big_costs)
        small = tree.decide(X, costs=costs)
    assert calls == [len(big)]
    pd.testing.assert_frame_equal(res.cases.iloc[:n], small.cases)


# ---------------------------------------------------- dtdecide.decide(n_jobs=...)
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


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
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

    def spy(**kwargs):
        calls.append(kwargs["hi"] - kwargs["lo"])
        return kernel(**kwargs)

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


@pytest.mark.parametrize("mode", ["numpy", "compiled"])
def test_decide_runs_on_the_package_pool(monkeypatch, mode):
    """``decide(n_jobs=3)`` hands its chunk ranges to the package's pool
    (:class:`dtdecide._parallel.ThreadPool`, one ``map_groups`` of one range per
    thread, the same table as one thread); inside an open ``thread_pool`` of the same
    size it takes that pool's threads and starts none of its own."""
    from dtdecide import _parallel

    opened, batches = [], []
    real_enter, real_map = _parallel.ThreadPool.__enter__, _parallel.ThreadPool.map_groups

    def counting_enter(self):
        opened.append(self.n_threads)
        return real_enter(self)

    def counting_map(self, fn, groups):
        batches.append((self, len(groups)))
        return real_map(self, fn, groups)

    monkeypatch.setattr(_parallel.ThreadPool, "__enter__", counting_enter)
    monkeypatch.setattr(_parallel.ThreadPool, "map_groups", counting_map)
    matrix = MATRICES["revenue_cost_column"]()
    post, costs, y = _inputs(matrix, np.random.default_rng(3), 1000, True, False)
    with config_context(kernels=mode):
        one = decide(post, matrix, y=y, costs=costs, chunk_size=64)
        assert opened == [] and batches == []
        three = decide(post, matrix, y=y, costs=costs, chunk_size=64, n_jobs=3)
        assert opened == [3] and [b[1] for b in batches] == [3]
        assert_identical(three, one)
        opened.clear()
        batches.clear()
        with _parallel.thread_pool(3) as pool:
            inner = decide(post, matrix, y=y, costs=costs, chunk_size=64, n_jobs=3)
        assert opened == [3]  # the outer pool only
        assert [b[0] for b in batches] == [pool]
    assert_identical(inner, one)
