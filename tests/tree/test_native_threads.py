"""No native thread pool inside the package's threads (issue 26: thread count follows
``n_jobs`` and threadpoolctl). Thread counts are observed, never timed."""

import pathlib
import re
import threading

import numpy as np
import pandas as pd
import pytest
from joblib import parallel_config

import dtdecide
from dtdecide import DecisionMatrix, ProfitTreeClassifier, _parallel
from dtdecide._parallel import ThreadPool, _controller, one_blas_thread


def blas_threads():
    return [lib.num_threads for lib in _controller().select(user_api="blas").lib_controllers]


def openmp_threads():
    return [lib.num_threads for lib in _controller().select(user_api="openmp").lib_controllers]


@pytest.fixture
def two_blas_threads():
    """BLAS with two threads to start from (the limit must show), restored after."""
    blas = _controller().select(user_api="blas")
    if not blas.lib_controllers:
        pytest.skip("no BLAS library found by threadpoolctl")
    with blas.limit(limits=2):
        if max(blas_threads()) < 2:
            pytest.skip("BLAS will not run two threads here")
        yield


def test_workers_run_blas_and_openmp_on_one_thread(two_blas_threads):
    before = blas_threads()
    with ThreadPool(2) as pool:
        seen = pool.map_groups(lambda _: (blas_threads(), openmp_threads()), [0, 1])
    for blas, openmp in seen:
        assert set(blas) == {1}
        assert set(openmp) <= {1}
    assert blas_threads() == before  # restored when the pool closes


def test_one_thread_pool_leaves_blas_alone(two_blas_threads):
    before = blas_threads()
    with ThreadPool(1) as pool:
        assert pool.map_groups(lambda _: blas_threads(), [0]) == [before]


@pytest.mark.parametrize("other_closes_first", [True, False])
def test_a_pool_on_another_user_thread_never_leaves_blas_limited(two_blas_threads,
                                                                 other_closes_first):
    """A fit on a second user thread while the main thread's pool is open: the main
    thread's workers keep one BLAS thread until their pool closes, and afterwards BLAS
    is back to what it was, whichever pool closed first."""
    before = blas_threads()
    other_open, may_close, other_closed = (threading.Event() for _ in range(3))

    def other():
        with ThreadPool(2) as pool:
            pool.map_groups(lambda _: blas_threads(), [0, 1])
            other_open.set()
            may_close.wait(10)
        other_closed.set()

    with ThreadPool(2) as pool:
        thread = threading.Thread(target=other)
        thread.start()
        other_open.wait(10)
        if other_closes_first:
            may_close.set()
            other_closed.wait(10)
        seen = pool.map_groups(lambda _: blas_threads(), [0, 1])
    may_close.set()
    thread.join(10)
    assert all(set(b) == {1} for b in seen), seen
    assert blas_threads() == before


def test_limit_is_released_when_the_work_fails(two_blas_threads):
    before = blas_threads()
    with pytest.raises(ZeroDivisionError), ThreadPool(2) as pool:
        pool.map_groups(lambda g: 1 / g, [1, 0])
    assert blas_threads() == before
    with pytest.raises(KeyError), one_blas_thread():
        raise KeyError("x")
    assert blas_threads() == before


def _data(n=3000, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, 4)), columns=list("abcd"))
    y = np.where(X["a"] + rng.normal(size=n) > 0, "yes", "no")
    costs = pd.DataFrame({"c": rng.uniform(0, 3, n)})
    m = DecisionMatrix({"act": [10.0, 0.0], "skip": [0.0, 0.0]}, levels=["yes", "no"],
                       kind="revenue", costs={"act": "c"})
    return X, y, costs, m


def test_fit_and_decide_threads_see_one_blas_thread(monkeypatch, two_blas_threads):
    """A case-rule fit and decide on two threads: every task of every pool sees BLAS on
    one thread (the case rule's node sums multiply matrices there)."""
    seen = []
    real = ThreadPool.map_groups

    def recording(self, fn, groups):
        def wrapped(g):
            seen.append((self.n_threads, tuple(blas_threads())))
            return fn(g)
        return real(self, wrapped, groups)

    monkeypatch.setattr(ThreadPool, "map_groups", recording)
    X, y, costs, m = _data()
    tree = ProfitTreeClassifier(decision_matrix=m, decision_rule="case", n_jobs=2,
                                max_depth=4).fit(X, y, costs=costs)
    tree.decide(pd.concat([X] * 12, ignore_index=True),
                costs=pd.concat([costs] * 12, ignore_index=True))
    assert seen and {n for n, _ in seen} == {2}
    assert all(set(b) == {1} for _, b in seen)


@pytest.mark.parametrize("n_jobs, context, expected", [
    (None, None, 1), (1, None, 1), (2, None, 2), (None, 2, 2), (1, 2, 1),
])
def test_thread_count_follows_n_jobs_and_joblib(monkeypatch, n_jobs, context, expected):
    """None means one thread unless a joblib ``parallel_config`` says otherwise (as in
    scikit-learn); an explicit n_jobs wins over the context."""
    opened = []
    real = _parallel.thread_pool.__wrapped__

    def counting(n_threads):
        opened.append(n_threads)
        return real(n_threads)

    monkeypatch.setattr(_parallel, "thread_pool", _parallel.contextlib.contextmanager(counting))
    import dtdecide.tree._estimator._growing as growing
    monkeypatch.setattr(growing, "thread_pool", _parallel.thread_pool)
    X, y, costs, m = _data(800)
    est = ProfitTreeClassifier(decision_matrix=m, n_jobs=n_jobs, max_depth=3)
    if context is None:
        est.fit(X, y, costs=costs)
    else:
        with parallel_config(n_jobs=context):
            est.fit(X, y, costs=costs)
    assert opened and max(opened) == expected


def test_numba_thread_pool_is_never_started():
    """The compiled kernels run on the package's threads only: Numba's own pool
    (``parallel=True``/``prange``) is neither used in the source nor started."""
    root = pathlib.Path(dtdecide.__file__).parent
    in_code = re.compile(r"(?<!`)\b(parallel\s*=\s*True|prange)\b(?!`)")
    for path in root.rglob("*.py"):
        assert not in_code.search(path.read_text()), path
    pytest.importorskip("numba")
    import numba.np.ufunc.parallel as numba_parallel

    X, y, costs, m = _data(2000)
    with dtdecide.config_context(kernels="compiled"):
        tree = ProfitTreeClassifier(decision_matrix=m, decision_rule="case", n_jobs=2,
                                    max_depth=3).fit(X, y, costs=costs)
        tree.decide(X, costs=costs)
    assert not numba_parallel._is_initialized
