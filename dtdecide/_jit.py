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
:func:`dtdecide._parallel.one_blas_thread` holds BLAS to one thread and
:func:`dtdecide._parallel.native_threads_per_worker` holds OpenMP to one thread in each
worker, so that no native pool runs inside our threads
(``n_jobs`` threads, each with its own BLAS or OpenMP team, would oversubscribe the cores).

This module sits at the bottom of the package (above :mod:`dtdecide._config` only), so
that the decision layer and the tree layer share one switch.
"""

import os
import threading
from contextlib import contextmanager

from ._config import get_config

__all__ = ["AUTO_MIN_ROWS", "KERNEL_MODES", "kernels_mode", "table_rows", "use_compiled"]

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
