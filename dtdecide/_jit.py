"""Which kernels run: the compiled (Numba) ones or their NumPy twins.

Every kernel that dominates a fit or a scoring pass exists twice: a NumPy version, the
reference, and a compiled version that releases the GIL for its whole loop (Numba,
``nogil=True``, cached on disk). The package setting ``kernels``
(:func:`~dtdecide.set_config`, :func:`~dtdecide.config_context`) chooses, and when it is
``"auto"`` (the default) the environment variable ``DTDECIDE_KERNELS``:

* ``compiled`` (the default): the Numba kernels;
* ``numpy``: the NumPy twins (no compilation; what the compiled kernels are tested
  against).

Both are read at every call (through :func:`kernels_mode`), so a test or a user may
switch inside one process. When Numba cannot be imported (a platform without a
Numba release), ``compiled`` quietly runs the NumPy twins: the results are the same.

Numba compiles a kernel the first time it is called with a given combination of input
types and caches the machine code on disk (``__pycache__`` beside the module, or, where
the package directory is read-only, Numba's per-user cache directory; ``NUMBA_CACHE_DIR``
overrides both). Numba is imported only when a compiled kernel is first needed.

This module sits at the bottom of the package (above :mod:`dtdecide._config` only), so
that the decision layer and the tree layer share one switch.
"""

import os

from ._config import get_config

__all__ = ["KERNEL_MODES", "kernels_mode", "use_compiled"]

KERNEL_MODES = ("compiled", "numpy")
_ENV = "DTDECIDE_KERNELS"
_numba_ok = None


def kernels_mode():
    """The kernels in force: ``"compiled"`` or ``"numpy"``.

    The setting ``kernels`` of :func:`~dtdecide.get_config`; when it is ``"auto"``, the
    environment variable ``DTDECIDE_KERNELS`` (``compiled`` when unset).

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
    >>> kernels_mode() in ("compiled", "numpy")
    True
    """
    setting = get_config()["kernels"]
    if setting != "auto":
        return setting
    value = os.environ.get(_ENV, "compiled").strip().lower() or "compiled"
    if value not in KERNEL_MODES:
        raise ValueError(
            f"the environment variable {_ENV} must be 'compiled' or 'numpy'; got {value!r}"
        )
    return value


def use_compiled():
    """Whether the compiled kernels run now (the mode is ``compiled`` and Numba imports).

    Examples
    --------
    >>> from dtdecide import config_context
    >>> from dtdecide._jit import use_compiled
    >>> with config_context(kernels="numpy"):
    ...     print(use_compiled())
    False
    """
    global _numba_ok
    if kernels_mode() != "compiled":
        return False
    if _numba_ok is None:
        try:
            import numba  # noqa: F401
        except ImportError:  # pragma: no cover - numba is a dependency
            _numba_ok = False
        else:
            _numba_ok = True
    return _numba_ok
