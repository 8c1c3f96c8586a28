"""The package's one progress facility: tqdm bars, switched by ``verbose`` and the config.

Long work (the folds of a cross-validation, the subtrees of a validation study, the
resamples of a bootstrap, the levels of a large or Dask fit, the chunks of a scoring
file) shows its progress with :func:`progress_bar` or :func:`progress`, never with its
own prints. A bar is drawn when

- the resolved ``verbose`` (the argument, or the package default of
  :func:`dtdecide.get_config` when it is None) reaches the bar's ``level`` (1 for the
  outer steps, 2 for the inner ones), and
- the config's ``progress`` allows it: ``"auto"`` (the default) only when standard error
  is a terminal or the code runs in a Jupyter notebook, ``True`` always, ``False`` never.

Otherwise a do-nothing bar with the same methods comes back, so callers never branch.
Bars are tqdm's ``tqdm.auto`` (a widget in a notebook where ipywidgets is installed, text
elsewhere), on standard error, updated once per step of work (never per row), so that
they cost nothing measurable.

:class:`StatusLog` is the command line's stream of timed messages: it writes through
tqdm so that a message does not break a bar being drawn.
"""

import sys
import time
import warnings

from ._config import _check_verbose, get_config

__all__ = ["NO_BAR", "StatusLog", "bars_allowed", "progress", "progress_bar",
           "resolve_verbose"]


def resolve_verbose(verbose, name="verbose"):
    """``verbose``, or the package default when it is None, checked (an int >= 0)."""
    if verbose is None:
        return get_config()["verbose"]
    try:
        return _check_verbose(verbose)
    except ValueError:
        raise ValueError(f"{name} must be an integer >= 0 or None, got {verbose!r}") from None


def _in_notebook():
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    try:
        shell = ipython.get_ipython()
        return shell is not None and "IPKernelApp" in shell.config
    except Exception:  # an unusual IPython: no notebook detection, no bar
        return False


def _is_terminal(stream):
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def bars_allowed(file=None):
    """Whether the config's ``progress`` lets a bar be drawn on ``file`` (stderr)."""
    setting = get_config()["progress"]
    stream = sys.stderr if file is None else file
    if setting is False or stream is None or not hasattr(stream, "write"):
        return False  # no stream to draw on (sys.stderr is None under pythonw)
    if setting is True:
        return True
    return _is_terminal(stream) or _in_notebook()


class _NoBar:
    """The bar of silent work: every tqdm method used by the package, doing nothing."""

    n = 0
    total = None
    disable = True

    def update(self, n=1):
        return None

    def reset(self, total=None):
        return None

    def set_postfix_str(self, s="", refresh=True):
        return None

    def set_description_str(self, desc=None, refresh=True):
        return None

    def refresh(self):
        return None

    def close(self):
        return None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


#: the do-nothing bar (stateless, shared): a default for code that may get a real one
NO_BAR = _NoBar()


def _tqdm_class():
    # tqdm.auto picks the notebook widget inside Jupyter and warns once at import when
    # ipywidgets is missing there (it then falls back to the text bar, which notebooks
    # draw well); the warning tells the user nothing they asked about
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from tqdm.auto import tqdm
    return tqdm


def progress_bar(*, total=None, desc=None, unit="it", verbose=None, level=1,
                 unit_scale=False, leave=True, file=None):
    """A tqdm bar when ``verbose`` and the config ask for one, else a do-nothing bar.

    Use as a context manager (``with progress_bar(...) as bar: bar.update(n)``) or close
    it. ``total`` is the number of steps (None when unknown: the bar then shows the
    count and the rate); ``unit`` names a step (``"fold"``, ``"rows"``); ``unit_scale``
    writes large counts as 1.2M; ``level`` is the least ``verbose`` that shows the bar.
    """
    verbose = resolve_verbose(verbose)
    file = sys.stderr if file is None else file
    if verbose < level or not bars_allowed(file):
        return NO_BAR
    tqdm = _tqdm_class()
    return tqdm(total=total, desc=desc, unit=unit, unit_scale=unit_scale, leave=leave,
                file=file, dynamic_ncols=True, mininterval=0.2)


def progress(iterable, *, total=None, desc=None, unit="it", verbose=None, level=1):
    """Iterate over ``iterable``, advancing a bar (see :func:`progress_bar`) per item."""
    if total is None:
        try:
            total = len(iterable)
        except TypeError:
            total = None
    with progress_bar(total=total, desc=desc, unit=unit, verbose=verbose,
                      level=level) as bar:
        for item in iterable:
            yield item
            bar.update(1)


class StatusLog:
    """Timed status messages on standard error (``[  1.2s] message``), silent if quiet.

    Messages go through ``tqdm.write`` so that they do not break a bar being drawn.
    :meth:`bar` gives a bar for a step of the work: drawn when the log is not quiet and
    the config's ``progress`` allows (on a terminal by default).
    """

    def __init__(self, quiet=False, file=None):
        self.quiet = bool(quiet)
        self.file = file
        self.start = time.perf_counter()

    def _stream(self):
        return sys.stderr if self.file is None else self.file

    def __call__(self, message):
        stream = self._stream()
        if self.quiet or stream is None:  # no standard error (pythonw): nowhere to write
            return
        elapsed = time.perf_counter() - self.start
        _tqdm_class().write(f"[{elapsed:6.1f}s] {message}", file=stream)
        stream.flush()

    def bar(self, *, total=None, desc=None, unit="it", unit_scale=False):
        """A bar (see :func:`progress_bar`) shown unless quiet."""
        return progress_bar(total=total, desc=desc, unit=unit, unit_scale=unit_scale,
                            verbose=0 if self.quiet else 1, file=self._stream())
