"""Threads for the tree's row- and feature-parallel kernels (``n_jobs``).

Layer 1 (kernels) of :mod:`dtdecide.tree` (``_kernels``); see the architecture page.

The kernels that dominate a fit on many rows release the GIL while they run:
``np.bincount`` (histograms), sorting (bin edges), ``np.searchsorted``/``take`` and
elementwise ufuncs (binning). Threads therefore use several cores without copying the
data to other processes. Work is always split by **feature**: every feature's numbers are
computed by exactly the same sequence of operations whatever the number of threads, so a
tree grown with ``n_jobs=2`` is bit for bit the tree grown with ``n_jobs=1``.

``n_jobs`` follows scikit-learn: None means 1 (unless a ``joblib.parallel_config``
context says otherwise), -1 every core, -2 all but one, and so on.

No native thread pool runs inside these threads: while a pool of two or more threads
is open, BLAS is held to one thread (:func:`dtdecide._jit.one_blas_thread`) and each
worker sets OpenMP to one thread (:func:`dtdecide._jit.native_threads_per_worker`);
the compiled kernels never use Numba's own pool.
"""

import contextlib
import numbers
from concurrent.futures import ThreadPoolExecutor, wait

import numpy as np

from ..._jit import native_threads_per_worker, one_blas_thread

__all__ = ["ThreadPool", "check_n_jobs", "feature_groups", "thread_pool"]


def check_n_jobs(n_jobs, name="n_jobs"):
    """The number of threads that ``n_jobs`` asks for (an int >= 1).

    Examples
    --------
    >>> from dtdecide.tree._kernels._parallel import check_n_jobs
    >>> check_n_jobs(None), check_n_jobs(3)
    (1, 3)
    """
    if n_jobs is not None and (
        isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0
    ):
        raise ValueError(
            f"{name} must be None or a non-zero integer (-1: every core); got {n_jobs!r}"
        )
    from joblib import effective_n_jobs

    return max(1, int(effective_n_jobs(n_jobs)))


class ThreadPool:
    """``n_threads`` worker threads (a thin wrapper of ``ThreadPoolExecutor``).

    Examples
    --------
    >>> from dtdecide.tree._kernels._parallel import ThreadPool
    >>> with ThreadPool(2) as pool:
    ...     pool.map_groups(sum, [[1, 2], [3]])
    [3, 3]
    """

    def __init__(self, n_threads):
        self.n_threads = int(n_threads)
        self._blas = one_blas_thread(self.n_threads > 1)
        self._executor = None

    def __enter__(self):
        self._blas.__enter__()
        try:
            self._executor = ThreadPoolExecutor(
                max_workers=self.n_threads, thread_name_prefix="dtdecide",
                initializer=native_threads_per_worker,
            )
        except BaseException:
            self._blas.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc):
        try:
            self._executor.shutdown(wait=True)
        finally:
            self._blas.__exit__(None, None, None)

    def map_groups(self, fn, groups):
        """``[fn(g) for g in groups]`` on the threads, results in group order.

        Every group finishes before the first exception (in group order) is raised.
        """
        if len(groups) <= 1:
            return [fn(g) for g in groups]
        futures = [self._executor.submit(fn, g) for g in groups]
        wait(futures)
        return [f.result() for f in futures]


@contextlib.contextmanager
def thread_pool(n_threads):
    """A :class:`ThreadPool` of ``n_threads`` threads, or None when one is asked for."""
    if n_threads <= 1:
        yield None
        return
    with ThreadPool(n_threads) as pool:
        yield pool


def feature_groups(costs, n_groups):
    """Split features into at most ``n_groups`` runs of consecutive features of balanced
    total cost.

    The runs are consecutive because threads that share out interleaved features run
    markedly slower (measured: 1.3x instead of 2x on two cores for the level
    histograms, whose cells are laid out feature after feature); within that
    constraint the largest group's cost is as small as it can be (a bisection on that
    cost, each candidate checked by filling groups left to right). Deterministic.

    Examples
    --------
    >>> from dtdecide.tree._kernels._parallel import feature_groups
    >>> [g.tolist() for g in feature_groups([5, 1, 1, 3], 2)]
    [[0], [1, 2, 3]]
    >>> [g.tolist() for g in feature_groups([1] * 6, 3)]
    [[0, 1], [2, 3], [4, 5]]
    """
    costs = np.asarray(costs, dtype=np.float64)
    n = costs.size
    n_groups = max(1, min(int(n_groups), n))
    if n_groups == 1:
        return [np.arange(n)] if n else []

    def cuts(cap):
        """Group starts when each group takes features while its cost stays <= cap."""
        starts, load = [0], 0.0
        for j, c in enumerate(costs):
            if load + c > cap and load > 0:
                starts.append(j)
                load = 0.0
            load += c
        return starts

    key = (costs.tobytes(), n_groups)
    starts = _GROUP_STARTS.get(key)
    if starts is None:
        lo, hi = float(costs.max()), float(costs.sum())
        for _ in range(60):  # bisection on the largest group's cost, to 0.1 %
            mid = 0.5 * (lo + hi)
            if len(cuts(mid)) <= n_groups:
                hi = mid
            else:
                lo = mid
            if hi - lo <= 1e-3 * max(hi, 1e-300):
                break
        starts = cuts(hi) + [n]
        if len(_GROUP_STARTS) >= 256:  # the callers' few cost vectors recur level after level
            _GROUP_STARTS.clear()
        _GROUP_STARTS[key] = starts
    return [np.arange(a, b) for a, b in zip(starts[:-1], starts[1:])]


_GROUP_STARTS = {}  # (costs' bytes, n_groups) -> group starts
