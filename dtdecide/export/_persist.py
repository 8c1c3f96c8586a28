"""Saving and loading fitted models: joblib (pickle) or the skops secure format."""

import os
from pathlib import Path

__all__ = ["load", "save"]

_FORMATS = ("joblib", "skops")


def _infer_format(path, format):
    if format is not None:
        if format not in _FORMATS:
            raise ValueError(f"format must be one of {_FORMATS} or None; got {format!r}")
        return format
    return "skops" if str(path).lower().endswith(".skops") else "joblib"


def _import_skops():
    try:
        import skops.io as sio
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "the secure 'skops' format needs the optional package skops "
            "(pip install skops, or pip install dtdecide[io]); use format='joblib' "
            "to save with joblib instead"
        ) from exc
    return sio


def save(model, path, *, format=None, compress=3):
    """Save a fitted model (any dtdecide object) to a file.

    Parameters
    ----------
    model : object
        Typically a fitted tree or decision estimator.
    path : str or path-like
        Destination file.
    format : {"joblib", "skops"} or None, default=None
        ``"skops"`` writes the skops secure format, which :func:`load` can read without
        executing arbitrary code; ``"joblib"`` pickles. None picks ``"skops"`` for a
        ``.skops`` suffix and ``"joblib"`` otherwise.
    compress : int, default=3
        joblib compression level (0-9); ignored for skops.

    Returns
    -------
    pathlib.Path
        The path written.

    Examples
    --------
    >>> import tempfile, os
    >>> import pandas as pd
    >>> from dtdecide import DecisionMatrix, ProfitTreeClassifier
    >>> from dtdecide.export import load, save
    >>> X = pd.DataFrame({"age": [20.0, 30.0, 40.0, 50.0]})
    >>> m = DecisionMatrix([[0.0, -1.0], [0.0, 9.0]], levels=["no", "yes"],
    ...                    decisions=["ignore", "mail"])
    >>> tree = ProfitTreeClassifier(decision_matrix=m, min_samples_leaf=1, min_samples_split=2)
    >>> tree = tree.fit(X, ["no", "no", "yes", "yes"])
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = save(tree, os.path.join(tmp, "tree.joblib"))
    ...     again = load(path)
    >>> bool((again.decide(X).cases == tree.decide(X).cases).all().all())
    True
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or path-like; got {type(path).__name__}")
    fmt = _infer_format(path, format)
    path = Path(path)
    if fmt == "skops":
        sio = _import_skops()
        sio.dump(model, path)
    else:
        import joblib

        if not isinstance(compress, int) or not 0 <= compress <= 9:
            raise ValueError(f"compress must be an int in [0, 9]; got {compress!r}")
        joblib.dump(model, path, compress=compress)
    return path


def load(path, *, format=None, trusted=None):
    """Load a model written by :func:`save`.

    joblib files are unpickled: only load files you trust. skops files are read
    securely: the types they contain are checked first, and only dtdecide's own types,
    the types skops trusts by default and those listed in ``trusted`` are allowed.
    Frozen tree arrays are validated again when loaded.

    Parameters
    ----------
    path : str or path-like
        File written by :func:`save`.
    format : {"joblib", "skops"} or None, default=None
        None picks ``"skops"`` for a ``.skops`` suffix and ``"joblib"`` otherwise.
    trusted : list of str or None, default=None
        Extra type names to trust when reading a skops file.

    Returns
    -------
    object
        The model.

    Raises
    ------
    ValueError
        When a skops file holds types that are not trusted (their names are listed).

    Examples
    --------
    >>> import tempfile, os
    >>> import pandas as pd
    >>> from dtdecide import DecisionMatrix, ProfitTreeClassifier
    >>> from dtdecide.export import load, save
    >>> X = pd.DataFrame({"age": [20.0, 30.0, 40.0, 50.0]})
    >>> m = DecisionMatrix([[0.0, -1.0], [0.0, 9.0]], levels=["no", "yes"],
    ...                    decisions=["ignore", "mail"])
    >>> tree = ProfitTreeClassifier(decision_matrix=m, min_samples_leaf=1, min_samples_split=2)
    >>> tree = tree.fit(X, ["no", "no", "yes", "yes"])
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = save(tree, os.path.join(tmp, "tree.skops"))
    ...     again = load(path)
    >>> again.predict(X).tolist() == tree.predict(X).tolist()
    True
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or path-like; got {type(path).__name__}")
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"path does not exist: {path}")
    fmt = _infer_format(path, format)
    if fmt == "joblib":
        import joblib

        return joblib.load(path)
    sio = _import_skops()
    if trusted is not None and (
        isinstance(trusted, str) or not all(isinstance(t, str) for t in trusted)
    ):
        raise TypeError(f"trusted must be a list of type names (str) or None; got {trusted!r}")
    found = sio.get_untrusted_types(file=path)
    own = [t for t in found if t.startswith("dtdecide.")]
    extra = list(trusted or [])
    others = [t for t in found if t not in own and t not in extra]
    if others:
        raise ValueError(
            f"the skops file {path} holds types that are not trusted: {others}; pass "
            "them in trusted=[...] if you trust the file's origin"
        )
    return sio.load(path, trusted=own + extra)
