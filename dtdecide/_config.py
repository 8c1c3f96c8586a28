"""Package-wide settings: ``get_config``, ``set_config`` and ``config_context``.

The settings follow scikit-learn's pattern. :func:`set_config` changes the process-wide
defaults; :func:`config_context` overrides them for a ``with`` block in the current
thread only (threads started inside the block see the process-wide values). Every key
has a checker, so a bad value is refused where it is set, naming the key.

Keys
----
verbose : int, default 0
    The default of every ``verbose=None`` parameter of the package (estimators, studies,
    scoring functions): 0 is silent, 1 shows a progress bar per long step (folds of a
    cross-validation, levels of a large fit, chunks of a scoring file), 2 also shows
    the bars of inner steps.
progress : {"auto", True, False}, default "auto"
    Where the progress bars asked for by ``verbose`` are drawn: ``"auto"`` only when
    standard error is a terminal or the code runs in a Jupyter notebook (a script whose
    output goes to a file stays silent), ``True`` always (a log file then gets the bar's
    text lines), ``False`` never.
kernels : {"auto", "compiled", "numpy"}, default "auto"
    Which kernels bin, histogram and partition the rows: ``"compiled"`` the Numba
    kernels (they release the GIL; :mod:`dtdecide._jit`), ``"numpy"`` their NumPy twins
    (same results, no compilation), ``"auto"`` what the environment variable
    ``DTDECIDE_KERNELS`` says, and when it is unset the compiled kernels from 200,000
    rows on (below, loading them costs more than they save).

To add a key: a default in ``_DEFAULTS``, a checker in ``_CHECKS``, and a keyword of the
same name on :func:`set_config` and :func:`config_context` (documented there).
"""

import threading
from contextlib import contextmanager
from numbers import Integral

__all__ = ["config_context", "get_config", "set_config"]


def _check_verbose(value):
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 0:
        raise ValueError(f"verbose must be an integer >= 0, got {value!r}")
    return int(value)


def _check_progress(value):
    if value is True or value is False or (isinstance(value, str) and value == "auto"):
        return value
    raise ValueError(f"progress must be 'auto', True or False, got {value!r}")


def _check_kernels(value):
    if isinstance(value, str) and value in ("auto", "compiled", "numpy"):
        return value
    raise ValueError(f"kernels must be 'auto', 'compiled' or 'numpy', got {value!r}")


_DEFAULTS = {"verbose": 0, "progress": "auto", "kernels": "auto"}
_CHECKS = {"verbose": _check_verbose, "progress": _check_progress,
           "kernels": _check_kernels}

_global = dict(_DEFAULTS)
_lock = threading.Lock()
_local = threading.local()


def _overrides():
    stack = getattr(_local, "stack", None)
    if stack is None:
        stack = _local.stack = []
    return stack


def _checked(changes):
    return {key: _CHECKS[key](value) for key, value in changes.items() if value is not None}


def get_config():
    """The package settings in force in the current thread.

    Returns
    -------
    dict
        One entry per key: ``verbose`` (the default of every ``verbose=None``
        parameter: 0 silent, 1 progress bars for long steps, 2 also for inner steps),
        ``progress`` (``"auto"``: bars only on a terminal or in a notebook;
        ``True`` always; ``False`` never) and ``kernels`` (``"compiled"``,
        ``"numpy"`` or ``"auto"``: as ``DTDECIDE_KERNELS`` says, else compiled for
        large tables only). A copy: changing it changes nothing.

    See Also
    --------
    set_config : Change the process-wide defaults.
    config_context : Change the settings for a ``with`` block.

    Examples
    --------
    >>> from dtdecide import get_config
    >>> get_config()
    {'verbose': 0, 'progress': 'auto', 'kernels': 'auto'}
    """
    config = dict(_global)
    for layer in _overrides():
        config.update(layer)
    return config


def set_config(verbose=None, progress=None, kernels=None):
    """Change the package's process-wide default settings.

    A key left at None keeps its value. Inside a :func:`config_context` block the
    block's own values still win for the keys it sets.

    Parameters
    ----------
    verbose : int, default=None
        The default of every ``verbose=None`` parameter: 0 silent, 1 a progress bar per
        long step (folds, levels of a large fit, chunks of a scoring file), 2 also the
        inner steps.
    progress : {"auto", True, False}, default=None
        Where the bars asked for by ``verbose`` are drawn: ``"auto"`` only when
        standard error is a terminal or in a Jupyter notebook, ``True`` always (log
        files get the bars' text lines), ``False`` never.
    kernels : {"auto", "compiled", "numpy"}, default=None
        The kernels that bin, histogram and partition rows: the compiled (Numba) ones,
        their NumPy twins, or ``"auto"`` (the environment variable ``DTDECIDE_KERNELS``;
        when unset, compiled from 200,000 rows on).

    Returns
    -------
    None
        The process-wide defaults are changed in place.

    Raises
    ------
    ValueError
        When a value is not one the key accepts (the message names the key).

    See Also
    --------
    config_context : The same settings for a ``with`` block only.

    Examples
    --------
    >>> from dtdecide import get_config, set_config
    >>> set_config(verbose=1)
    >>> get_config()["verbose"]
    1
    >>> set_config(verbose=0)
    """
    changes = _checked({"verbose": verbose, "progress": progress, "kernels": kernels})
    with _lock:
        _global.update(changes)


@contextmanager
def config_context(*, verbose=None, progress=None, kernels=None):
    """Settings for the duration of a ``with`` block, in the current thread.

    The previous settings come back when the block ends, also on an exception. Blocks
    nest; a key left at None keeps the value in force.

    Parameters
    ----------
    verbose : int, default=None
        The default of every ``verbose=None`` parameter inside the block: 0 silent, 1 a
        progress bar per long step, 2 also the inner steps.
    progress : {"auto", True, False}, default=None
        Where progress bars are drawn inside the block: ``"auto"`` only on a terminal
        or in a notebook, ``True`` always, ``False`` never.
    kernels : {"auto", "compiled", "numpy"}, default=None
        The kernels inside the block (``"numpy"``: the NumPy twins of the compiled
        kernels; ``"auto"``: as ``DTDECIDE_KERNELS`` says). Worker threads that the
        package starts inside the block follow it (the choice is made in the calling
        thread).

    Yields
    ------
    None

    Raises
    ------
    ValueError
        When a value is not one the key accepts (the message names the key).

    See Also
    --------
    set_config : Change the process-wide defaults.
    get_config : The settings in force.

    Examples
    --------
    >>> from dtdecide import config_context, get_config
    >>> with config_context(verbose=1, progress=False):
    ...     print(get_config())
    {'verbose': 1, 'progress': False, 'kernels': 'auto'}
    >>> get_config()["verbose"]
    0
    """
    layer = _checked({"verbose": verbose, "progress": progress, "kernels": kernels})
    stack = _overrides()
    stack.append(layer)
    try:
        yield
    finally:
        # remove this block's own layer (not just the last one) so that a generator
        # closed out of order cannot drop a sibling's layer
        for k in range(len(stack) - 1, -1, -1):
            if stack[k] is layer:
                del stack[k]
                break
