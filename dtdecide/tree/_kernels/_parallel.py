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
import itertools
import queue
import threading

import numpy as np

from ..._jit import _controller, check_n_jobs, native_threads_per_worker, one_blas_thread

__all__ = ["ThreadPool", "check_n_jobs", "feature_groups", "feature_row_split",
           "thread_pool"]


class ThreadPool:
    """``n_threads`` threads: the calling thread and ``n_threads - 1`` workers.

    :meth:`map_groups` hands a batch of groups to the workers and works on it itself:
    each thread takes the next group not yet taken, so a thread that finishes early
    takes the others' remaining groups, and the calling thread never sleeps while work
    is left. A hand-off is one queue put per worker (``queue.SimpleQueue``) and one
    lock to wait on, about a tenth of the CPU of ``concurrent.futures`` (a future, a
    condition and an executor queue per group). While the pool is open BLAS runs on one
    thread (:func:`dtdecide._jit.one_blas_thread`) and OpenMP on one thread in every
    thread of the pool (:func:`dtdecide._jit.native_threads_per_worker` in the workers,
    a limit restored on exit in the calling thread).

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
        self._openmp = contextlib.ExitStack()
        self._workers = []

    def __enter__(self):
        self._blas.__enter__()
        try:
            if self.n_threads > 1:
                self._openmp.enter_context(_one_openmp_thread())
            for i in range(self.n_threads - 1):
                self._workers.append(_Worker(f"dtdecide-{i}"))
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc):
        try:
            for worker in self._workers:
                worker.queue.put(None)
            for worker in self._workers:
                worker.thread.join()
            self._workers = []
        finally:
            try:
                self._openmp.close()
            finally:
                self._blas.__exit__(None, None, None)

    def map_groups(self, fn, groups):
        """``[fn(g) for g in groups]`` on the threads, results in group order.

        Every group finishes before the first exception (in group order) is raised.
        """
        if len(groups) <= 1 or not self._workers:
            return [fn(g) for g in groups]
        batch = _Batch(fn, groups)
        for worker in self._workers[: len(groups) - 1]:
            worker.queue.put(batch)
        batch.work()
        batch.done.acquire()  # the last group's thread releases it
        for error in batch.errors:
            if error is not None:
                raise error
        return batch.results


    def submit(self, fn):
        """Start ``fn()`` on a worker thread now; the returned handle's ``result()``
        waits for it (or runs it on the calling thread if no worker has taken it yet),
        re-raising its exception. Without workers ``fn`` runs at once.

        The calling thread goes on with its own work meanwhile: a fit draws the bin
        edges' sub-sample this way while it checks its inputs.
        """
        batch = _Batch(lambda _: fn(), [None])
        if self._workers:
            self._workers[0].queue.put(batch)
        else:
            batch.work()
        return _Pending(batch)


class _Pending:
    """The result of :meth:`ThreadPool.submit`."""

    def __init__(self, batch):
        self._batch = batch

    def result(self):
        batch = self._batch
        batch.work()  # nothing left to do once a worker has taken it
        batch.done.acquire()
        batch.done.release()  # result() may be asked again
        if batch.errors[0] is not None:
            raise batch.errors[0]
        return batch.results[0]


class _Batch:
    """The groups of one :meth:`ThreadPool.map_groups`, taken by the threads in turn."""

    def __init__(self, fn, groups):
        self.fn = fn
        self.groups = groups
        self.n = len(groups)
        self.results = [None] * self.n
        self.errors = [None] * self.n
        self._next = itertools.count()  # next() is atomic under the interpreter's lock
        self._finished = itertools.count(1)
        self.done = threading.Lock()
        self.done.acquire()

    def work(self):
        """Run groups not yet taken until none is left."""
        while True:
            i = next(self._next)
            if i >= self.n:
                return
            try:
                self.results[i] = self.fn(self.groups[i])
            except BaseException as exc:  # raised by map_groups, in group order
                self.errors[i] = exc
            if next(self._finished) == self.n:
                self.done.release()


class _Worker:
    """A thread that runs the batches put on its queue (None: stop)."""

    def __init__(self, name):
        self.queue = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._run, name=name, daemon=True)
        self.thread.start()

    def _run(self):
        native_threads_per_worker()
        while True:
            batch = self.queue.get()
            if batch is None:
                return
            batch.work()


def _one_openmp_thread():
    """OpenMP on one thread in the calling thread (a per-thread setting), restored on
    exit; nothing where no OpenMP library is loaded."""
    openmp = _controller().select(user_api="openmp")
    if not openmp.lib_controllers:
        return contextlib.nullcontext()
    return openmp.limit(limits=1)


@contextlib.contextmanager
def thread_pool(n_threads):
    """A :class:`ThreadPool` of ``n_threads`` threads, or None when one is asked for.

    Inside another ``thread_pool`` of the same size opened by the same thread, that
    pool itself: the steps of one fit (binning and growing, the node statistics, the
    case rule's sums) share the fit's threads instead of starting and stopping
    threads (and BLAS and OpenMP limits) of their own, each a few hundred
    microseconds of the calling thread alone. The groups a caller hands over do not
    depend on which pool runs them, so neither do the results.

    Examples
    --------
    >>> from dtdecide.tree._kernels._parallel import thread_pool
    >>> with thread_pool(2) as outer, thread_pool(2) as inner:
    ...     print(inner is outer)
    True
    """
    if n_threads <= 1:
        yield None
        return
    shared = getattr(_open_pool, "pool", None)
    if shared is not None and shared.n_threads == n_threads:
        yield shared
        return
    with ThreadPool(n_threads) as pool:
        _open_pool.pool = pool
        try:
            yield pool
        finally:
            _open_pool.pool = shared


_open_pool = threading.local()  # the innermost thread_pool the thread has open


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


def feature_row_split(n_features, n_threads, max_chunks, gain=0.9):
    """``(n_groups, n_chunks)``: share a pass over ``n_features`` features of about
    equal cost among ``n_threads`` threads as ``n_groups`` runs of features times
    ``n_chunks`` ranges of rows (``n_chunks`` 1: by features alone).

    Whole features leave threads idle when they are not a multiple of the threads: 20
    features on 16 threads take two rounds, 1.6x the ideal time, and on 8 threads
    three, 1.2x. With ``G`` runs and ``r`` chunks the longest thread takes
    ``ceil(G r / T)`` tasks of ``ceil(F / G) / r`` features' work; the shortest such
    time over ``r <= max_chunks`` is chosen, fewest chunks and then fewest runs on
    ties (20 features on 16 threads: 4 runs of 5 features x 4 chunks, one round of
    1.25, the ideal), unless it is not below ``gain`` times the time by features
    alone. Never more than one chunk on one or two threads.

    Examples
    --------
    >>> from dtdecide.tree._kernels._parallel import feature_row_split
    >>> feature_row_split(20, 16, 4), feature_row_split(20, 8, 4), feature_row_split(20, 2, 4)
    ((4, 4), (4, 2), (2, 1))
    """
    F, T = int(n_features), int(n_threads)

    def span(r, g):
        return -(-g * r // T) * -(-F // g) / r

    alone = min((span(1, g), g) for g in range(1, max(F, 1) + 1))
    if T <= 2 or F < 2:
        return min(F, T) if F else 1, 1
    best = (alone[0], 1, alone[1])
    for r in range(2, int(max_chunks) + 1):
        for g in range(1, F + 1):
            t = span(r, g)
            if t < best[0] - 1e-12:
                best = (t, r, g)
    t, r, g = best
    if r == 1 or t > gain * alone[0]:
        return min(F, T), 1
    return g, r
