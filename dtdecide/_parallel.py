"""The package's threads (``n_jobs``): one pool for the tree and the decision engine.

At the bottom of the package (it imports nothing of dtdecide), so that
:func:`dtdecide.decide` and the tree's fits and scoring passes read ``n_jobs`` alike
(:func:`check_n_jobs`) and run on the same :class:`ThreadPool`; the tree's own
scheduling (features x row ranges) stays in :mod:`dtdecide.tree._kernels._parallel`.

The kernels that dominate the work release the GIL while they run (NumPy's
``bincount``, sorting, ``searchsorted``, ufuncs and matrix products; the compiled kernels,
``nogil=True``), so threads use several cores without copying the data to other
processes. The callers cut the work into groups whose numbers do not depend on the
thread that computes them, so results are the same bit for bit for every ``n_jobs``.

``n_jobs`` follows scikit-learn: None means 1 (unless a ``joblib.parallel_config``
context says otherwise), -1 every core, -2 all but one, and so on.

The package's own threads are the only parallelism: the compiled kernels never use
Numba's thread pool (no ``parallel=True``), and while a pool of two or more threads is
open, :func:`one_blas_thread` holds BLAS to one thread and
:func:`native_threads_per_worker` holds OpenMP to one thread in each worker, so that no
native pool runs inside our threads (``n_jobs`` threads, each with its own BLAS or
OpenMP team, would oversubscribe the cores).
"""

import contextlib
import itertools
import numbers
import queue
import threading
from contextlib import contextmanager

__all__ = ["ThreadPool", "check_n_jobs", "native_threads_per_worker", "one_blas_thread",
           "open_pool", "thread_pool"]


def check_n_jobs(n_jobs, name="n_jobs"):
    """The number of threads that ``n_jobs`` asks for (an int >= 1).

    scikit-learn's meaning: None is 1 (unless a ``joblib.parallel_config`` context says
    otherwise), -1 every core, -2 all but one; a ``ValueError`` names ``name`` otherwise.
    The decision engine and the tree read ``n_jobs`` alike through it.

    Examples
    --------
    >>> from dtdecide._parallel import check_n_jobs
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


# --------------------------------------------------------------- native thread pools
_CONTROLLER = []  # a threadpoolctl.ThreadpoolController, made once (finding libraries
# costs about 20 ms)


def _controller():
    if not _CONTROLLER:
        from threadpoolctl import ThreadpoolController

        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0]


@contextmanager
def one_blas_thread(active=True):
    """Inside the block, BLAS runs on one thread; nothing when not ``active``.

    BLAS (OpenBLAS with its own threads, MKL, BLIS) keeps one thread count for the
    whole process, which threadpoolctl lets one thread control at a time (the first
    that sets it, usually the main thread; the settings of other threads are ignored).
    The limit is therefore set and restored by the thread that opens the block, and
    it holds for the threads that thread starts inside it (our workers); a block
    opened on a thread that does not control BLAS changes nothing, and nothing is
    ever left limited.

    Examples
    --------
    >>> import numpy  # loads its BLAS
    >>> from threadpoolctl import threadpool_info
    >>> from dtdecide._parallel import one_blas_thread
    >>> with one_blas_thread():
    ...     blas = [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]
    >>> all(n == 1 for n in blas)
    True
    """
    if not active:
        yield
        return
    with _controller().limit(limits=1, user_api="blas"):
        yield


def native_threads_per_worker():
    """Run at the start of each of our worker threads: OpenMP on one thread there.

    OpenMP's thread count is a per-thread setting (a worker would otherwise start a
    team of every core's size for any OpenMP code it runs); the worker ends with its
    pool, so the limit is not restored.
    """
    _one_openmp_thread()  # a limit applies when it is made; never restored here


# --------------------------------------------------------------- the pool
class ThreadPool:
    """``n_threads`` threads: the calling thread and ``n_threads - 1`` workers.

    :meth:`map_groups` hands a batch of groups to the workers and works on it itself:
    each thread takes the next group not yet taken, so a thread that finishes early
    takes the others' remaining groups, and the calling thread never sleeps while work
    is left. A hand-off is one queue put per worker (``queue.SimpleQueue``) and one
    lock to wait on, about a tenth of the CPU of ``concurrent.futures`` (a future, a
    condition and an executor queue per group). While the pool is open BLAS runs on one
    thread (:func:`one_blas_thread`) and OpenMP on one thread in every
    thread of the pool (:func:`native_threads_per_worker` in the workers,
    a limit restored on exit in the calling thread).

    Examples
    --------
    >>> from dtdecide._parallel import ThreadPool
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
        except BaseException as exc:
            started = len(self._workers) + 1  # the calling thread works too
            self.__exit__(None, None, None)
            if isinstance(exc, RuntimeError) and started < self.n_threads:
                # threading's "can't start new thread": more threads than the system
                # allows (n_jobs=10**6)
                raise ValueError(
                    f"n_jobs asks for {self.n_threads} threads, but the system could not "
                    f"start more than {started} ({exc}); use n_jobs=-1 for every core"
                ) from None
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
    >>> from dtdecide._parallel import thread_pool
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


def open_pool():
    """The innermost :func:`thread_pool` of two or more threads that the calling
    thread has open, or None.

    For a step of a fit that cannot be told ``n_jobs`` (the target's codes, read by the
    decision layer) but splits work whose result does not depend on the split: it runs
    on the fit's threads, and alone outside a fit.

    Examples
    --------
    >>> from dtdecide._parallel import open_pool, thread_pool
    >>> with thread_pool(2) as pool:
    ...     print(open_pool() is pool)
    True
    >>> print(open_pool())
    None
    """
    return getattr(_open_pool, "pool", None)
