"""Which kernels run: the compiled (Numba) ones or their NumPy twins.

Every kernel that dominates a fit or a scoring pass exists twice: a NumPy version, the
reference, and a compiled version that releases the GIL for its whole loop (Numba,
``nogil=True``, cached on disk). The package setting ``kernels``
(:func:`~dtdecide.set_config`, :func:`~dtdecide.config_context`) chooses; at its default
``"auto"`` the environment variable ``DTDECIDE_KERNELS`` does, and when that is unset
too, the size of the data:

* ``compiled``: the Numba kernels, whatever the size;
* ``numpy``: the NumPy twins (no compilation; what the compiled kernels are tested
  against);
* ``auto`` (the default): the compiled kernels from :data:`AUTO_MIN_ROWS` rows on, the
  NumPy twins below. Importing Numba and loading the cached kernels costs about half a
  second once per process, more than the compiled kernels save on small tables; on
  those the twins give the same results (bit for bit below ``2**18`` rows).

Both are read at every call (through :func:`kernels_mode`), so a test or a user may
switch inside one process. When Numba cannot be imported (a platform without a
Numba release), the NumPy twins run: the results are the same.

Numba compiles a kernel the first time it is called with a given combination of input
types and caches the machine code on disk (``__pycache__`` beside the module, or, where
the package directory is read-only, Numba's per-user cache directory; ``NUMBA_CACHE_DIR``
overrides both). Numba is imported only when a compiled kernel is first needed.

The package's own threads (``n_jobs``) are the only parallelism: the kernels never use
Numba's thread pool (no ``parallel=True``), and while several of our threads compute,
:func:`one_blas_thread` holds BLAS to one thread and :func:`native_threads_per_worker`
holds OpenMP to one thread in each worker, so that no native pool runs inside our threads
(``n_jobs`` threads, each with its own BLAS or OpenMP team, would oversubscribe the cores).

This module sits at the bottom of the package (above :mod:`dtdecide._config` only), so
that the decision layer and the tree layer share one switch.
"""

import numbers
import os
import threading
from contextlib import contextmanager

from ._config import get_config

__all__ = ["AUTO_MIN_ROWS", "KERNEL_MODES", "check_n_jobs", "kernels_mode",
           "native_threads_per_worker", "one_blas_thread", "table_rows", "use_compiled"]

KERNEL_MODES = ("auto", "compiled", "numpy")
#: Rows from which ``auto`` runs the compiled kernels (see the module docstring).
AUTO_MIN_ROWS = 200_000
_ENV = "DTDECIDE_KERNELS"
_numba_ok = None
_local = threading.local()


@contextmanager
def table_rows(n_rows):
    """Inside the block (this thread), :func:`use_compiled` counts at least ``n_rows``.

    For code that works through a large table a block of rows at a time (scoring): the
    choice of ``auto`` follows the table, not the block.

    Examples
    --------
    >>> from dtdecide import config_context
    >>> from dtdecide._jit import AUTO_MIN_ROWS, table_rows, use_compiled
    >>> with config_context(kernels="auto"), table_rows(AUTO_MIN_ROWS):
    ...     print(use_compiled(1000) == use_compiled(AUTO_MIN_ROWS))
    True
    """
    old = getattr(_local, "rows", 0)
    _local.rows = max(old, int(n_rows))
    try:
        yield
    finally:
        _local.rows = old


def check_n_jobs(n_jobs, name="n_jobs"):
    """The number of threads that ``n_jobs`` asks for (an int >= 1).

    scikit-learn's meaning: None is 1 (unless a ``joblib.parallel_config`` context says
    otherwise), -1 every core, -2 all but one; a ``ValueError`` names ``name`` otherwise.
    Here at the bottom of the package so that the decision engine and the tree read
    ``n_jobs`` alike.

    Examples
    --------
    >>> from dtdecide._jit import check_n_jobs
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


def kernels_mode():
    """The kernels in force: ``"auto"``, ``"compiled"`` or ``"numpy"``.

    The setting ``kernels`` of :func:`~dtdecide.get_config`; when it is ``"auto"``, the
    environment variable ``DTDECIDE_KERNELS`` (``"auto"`` when unset).

    Returns
    -------
    str

    Raises
    ------
    ValueError
        ``DTDECIDE_KERNELS`` holds something else.

    Examples
    --------
    >>> from dtdecide._jit import kernels_mode
    >>> kernels_mode() in ("auto", "compiled", "numpy")
    True
    """
    setting = get_config()["kernels"]
    if setting != "auto":
        return setting
    value = os.environ.get(_ENV, "auto").strip().lower() or "auto"
    if value not in KERNEL_MODES:
        raise ValueError(
            f"the environment variable {_ENV} must be 'auto', 'compiled' or 'numpy'; "
            f"got {value!r}"
        )
    return value


def use_compiled(n_rows):
    """Whether the compiled kernels run for data of ``n_rows`` rows.

    Parameters
    ----------
    n_rows : int
        Rows of the whole table being fitted or scored (not of one node or block), so
        that one fit makes one choice; inside :func:`table_rows` at least that many.

    Returns
    -------
    bool
        True when the mode is ``compiled``, or ``auto`` with at least
        :data:`AUTO_MIN_ROWS` rows, and Numba imports.

    Examples
    --------
    >>> from dtdecide import config_context
    >>> from dtdecide._jit import use_compiled
    >>> with config_context(kernels="numpy"):
    ...     print(use_compiled(10**7))
    False
    >>> with config_context(kernels="compiled"):
    ...     print(use_compiled(100))
    True
    """
    global _numba_ok
    mode = kernels_mode()
    n_rows = max(n_rows, getattr(_local, "rows", 0))
    if mode == "numpy" or (mode == "auto" and n_rows < AUTO_MIN_ROWS):
        return False
    if _numba_ok is None:
        try:
            import numba  # noqa: F401
        except ImportError:  # pragma: no cover - numba is a dependency
            _numba_ok = False
        else:
            _numba_ok = True
    return _numba_ok


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
    >>> from dtdecide._jit import one_blas_thread
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
    openmp = _controller().select(user_api="openmp")
    if openmp.lib_controllers:
        openmp.limit(limits=1)
