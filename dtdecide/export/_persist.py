"""Saving and loading fitted models.

The default is dtdecide's native format (``_native``): a versioned zip of JSON and
``.npy`` arrays that runs no code when read. Pickles (joblib) are written and read only
on explicit request, and the skops format is read with an explicit allow-list of types.
"""


from ._files import atomic_path, check_path
from ._native import (
    ALLOWED_CLASSES,
    FORMAT_VERSION,
    ModelFileError,
    UnsupportedObjectError,
    _allowed_class,
    is_native_file,
    read_model,
    write_model,
)

__all__ = ["ModelFileError", "load", "save"]

_FORMATS = ("dtdecide", "joblib", "skops")
_PICKLE_SUFFIXES = (".joblib", ".pkl", ".pickle", ".jbl")
_PICKLE_TAG = "dtdecide-pickle"

#: the suffix the native format is saved under by the command line and the docs
NATIVE_SUFFIX = ".dtdecide"


def _version():
    from dtdecide import __version__

    return __version__


def _check_format(format):
    if format is not None and format not in _FORMATS:
        raise ValueError(f"format must be one of {_FORMATS} or None; got {format!r}")
    return format


def _import_skops():
    try:
        import skops.io as sio
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "the 'skops' format needs the optional package skops (pip install skops, or "
            "pip install 'dtdecide[io]'); the default dtdecide format needs nothing extra"
        ) from exc
    return sio


def save(model, path, *, format=None, compress=3):
    """Save a fitted model to a file; by default in dtdecide's safe native format.

    The native format (``format="dtdecide"``) is a zip of JSON and ``.npy`` arrays:
    parameters, decision matrix, levels, categories, feature names, node arrays and
    decision statistics, plus the dtdecide version and the format version. Reading it
    back runs no code from the file. It holds dtdecide's estimators (trees, the decision
    estimator, the models of :mod:`dtdecide.models`) and the scikit-learn estimators those
    contain (logistic regression, scaling, kernel approximations, pipelines of them); any
    other object is refused with an error naming where it sits in the model.

    Parameters
    ----------
    model : object
        A fitted (or unfitted) dtdecide estimator.
    path : str or path-like
        Destination file; ``.dtdecide`` is the customary suffix of the native format.
        Missing folders are created. The file is written beside it under a temporary
        name and renamed when complete, so an interrupted save leaves an earlier file
        of that name as it was.
    format : {"dtdecide", "joblib", "skops"} or None, default=None
        ``"dtdecide"``: the native format. ``"joblib"``: a pickle, which runs code when
        loaded (:func:`load` reads it only with ``allow_pickle=True``); it is never chosen
        by default, and a ``.joblib``/``.pkl`` suffix without ``format="joblib"`` is an
        error. ``"skops"``: the skops format (needs skops). None: ``"skops"`` for a
        ``.skops`` suffix, else ``"dtdecide"``.
    compress : int, default=3
        joblib compression level (0-9); ignored otherwise.

    Returns
    -------
    pathlib.Path
        The path written. Its folder is created when missing.

    Raises
    ------
    TypeError
        When the model holds an object the native format cannot hold (the message names
        the attribute, e.g. ``model.estimator_``).

    See Also
    --------
    load : read the file back.

    Examples
    --------
    >>> import tempfile, os
    >>> import pandas as pd
    >>> from dtdecide import DecisionMatrix, ProfitTreeClassifier
    >>> from dtdecide.export import load, save
    >>> X = pd.DataFrame({"age": [20.0, 30.0, 40.0, 50.0]})
    >>> m = DecisionMatrix({"ignore": [0, 0], "mail": [-1, 9]}, levels=["no", "yes"])
    >>> tree = ProfitTreeClassifier(decision_matrix=m, min_samples_leaf=1, min_samples_split=2)
    >>> tree = tree.fit(X, ["no", "no", "yes", "yes"])
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = save(tree, os.path.join(tmp, "tree.dtdecide"))
    ...     again = load(path)
    >>> again.decide(X).cases.equals(tree.decide(X).cases)
    True
    """
    path = check_path(path)
    fmt = _check_format(format)
    if fmt is None:
        suffix = path.suffix.lower()
        if suffix in _PICKLE_SUFFIXES:
            raise ValueError(
                f"path {str(path)!r} has the pickle suffix {suffix!r}, but pickles are written "
                "only on request because loading one runs the code it holds: pass "
                "format='joblib' to write a pickle anyway, or use the safe native format "
                f"(the default; customary suffix {NATIVE_SUFFIX!r})"
            )
        fmt = "skops" if suffix == ".skops" else "dtdecide"
    if fmt == "joblib" and (not isinstance(compress, int) or not 0 <= compress <= 9):
        raise ValueError(f"compress must be an int in [0, 9]; got {compress!r}")
    # written beside the destination and renamed when complete: an interrupted save
    # leaves the previous model file as it was
    with atomic_path(path, "path") as tmp:
        if fmt == "dtdecide":
            try:
                write_model(model, tmp, dtdecide_version=_version())
            except UnsupportedObjectError as exc:
                raise TypeError(str(exc)) from None
        elif fmt == "skops":
            _import_skops().dump(model, tmp)
        else:
            import joblib

            payload = {"format": _PICKLE_TAG, "format_version": FORMAT_VERSION,
                       "dtdecide_version": _version(), "model": model}
            joblib.dump(payload, tmp, compress=compress)
    return path


def _sniff(path):
    """``"zip"``, ``"text"``, ``"empty"`` or ``"binary"`` from the first bytes of a file."""
    with open(path, "rb") as fh:
        head = fh.read(4096)
    if not head:
        return "empty"
    if head.startswith(b"PK"):
        return "zip"
    if b"\x00" not in head:
        try:
            head.decode("utf-8")
        except UnicodeDecodeError:
            if not all(32 <= b < 127 or b in (9, 10, 13) for b in head[:512]):
                return "binary"
        return "text"
    return "binary"


def _skops_trusted_types():
    names = []
    for key in ALLOWED_CLASSES:
        cls = _allowed_class(key)
        names.append(f"{cls.__module__}.{cls.__qualname__}")
    return names


def load(path, *, format=None, allow_pickle=False, trusted=None):
    """Load a model written by :func:`save`; pickles only when explicitly allowed.

    The native format is read without running code from the file: its JSON names only
    classes of an allow-list of data-holding types and its arrays are read with
    ``allow_pickle=False``; tree arrays are validated again. A skops file is read with
    the same allow-list (plus the types skops trusts by default and those in
    ``trusted``). A pickle (joblib) file can run any code while it is read, so it is
    refused unless ``allow_pickle=True``.

    Models are tied to the dtdecide release that wrote them: a file written by another
    release (or a pickle without dtdecide's version record, as written by earlier
    releases) is refused with an error naming both versions, instead of failing later.

    Parameters
    ----------
    path : str or path-like
        File written by :func:`save`.
    format : {"dtdecide", "joblib", "skops"} or None, default=None
        None tells the format from the file's contents.
    allow_pickle : bool, default=False
        Read pickle (joblib) files. Only for files whose origin you trust.
    trusted : list of str or None, default=None
        Extra type names to trust when reading a skops file.

    Returns
    -------
    object
        The model.

    Raises
    ------
    FileNotFoundError
        When ``path`` does not exist.
    ModelFileError
        (a ``ValueError``) When the file is empty, truncated, of another format or
        version, not a model file, or a pickle while ``allow_pickle`` is False; the
        message names the file and says why.
    ValueError
        When a skops file holds types that are not allowed (their names are listed).

    Examples
    --------
    >>> import tempfile, os
    >>> import pandas as pd
    >>> from dtdecide import ProfitTreeClassifier
    >>> from dtdecide.export import load, save
    >>> X = pd.DataFrame({"age": [20.0, 30.0, 40.0, 50.0]})
    >>> tree = ProfitTreeClassifier(min_samples_leaf=1, min_samples_split=2).fit(X, [0, 0, 1, 1])
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = save(tree, os.path.join(tmp, "tree.joblib"), format="joblib")
    ...     try:
    ...         load(path)
    ...     except ValueError as exc:
    ...         print("refused:", "allow_pickle=True" in str(exc))
    ...     again = load(path, allow_pickle=True)
    refused: True
    >>> again.predict(X).tolist() == tree.predict(X).tolist()
    True
    """
    path = check_path(path)
    fmt = _check_format(format)
    if not isinstance(allow_pickle, bool):
        raise TypeError(f"allow_pickle must be True or False; got {allow_pickle!r}")
    if trusted is not None and (
        isinstance(trusted, str) or not all(isinstance(t, str) for t in trusted)
    ):
        raise TypeError(f"trusted must be a list of type names (str) or None; got {trusted!r}")
    if not path.exists():
        raise FileNotFoundError(f"path does not exist: {path}")
    if not path.is_file():
        raise ModelFileError(f"model file {path} is not a file")
    kind = _sniff(path)
    if kind == "empty":
        raise ModelFileError(f"model file {path} is empty (0 bytes): not a model file")
    if fmt is None:
        if kind == "zip":
            fmt = "dtdecide" if is_native_file(path) else "skops-or-zip"
        elif kind == "text":
            raise ModelFileError(
                f"model file {path} holds text (a CSV or other data file?), not a model "
                f"file; a model file is written by dtdecide.export.save or 'dtdecide fit -o "
                f"model{NATIVE_SUFFIX}'"
            )
        else:
            fmt = "joblib"
    elif fmt == "joblib" and kind == "zip":  # never unpickle what is no pickle
        what = "a dtdecide model file" if is_native_file(path) else "a zip archive"
        raise ModelFileError(f"model file {path} is {what}, not a pickle (format='joblib'); "
                             "leave format=None to read it as what it is")
    if fmt == "skops-or-zip":
        fmt = "skops" if _is_skops_zip(path) else "dtdecide"
    if fmt == "dtdecide":
        return read_model(path, dtdecide_version=_version())
    if fmt == "skops":
        return _load_skops(path, trusted)
    return _load_pickle(path, allow_pickle)


def _is_skops_zip(path):
    import zipfile

    try:
        with zipfile.ZipFile(path) as zf:
            return "schema.json" in zf.namelist()
    except (zipfile.BadZipFile, OSError, EOFError):
        return False


def _load_skops(path, trusted):
    sio = _import_skops()
    try:
        found = sio.get_untrusted_types(file=path)
    except Exception as exc:  # skops raises many kinds of errors on a damaged file
        raise ModelFileError(f"model file {path} is not a readable skops file: {exc}") from exc
    allowed = set(_skops_trusted_types()) | set(trusted or [])
    others = [t for t in found if t not in allowed]
    if others:
        raise ValueError(
            f"the skops file {path} holds types that are not trusted: {others}; only "
            "dtdecide's data-holding classes are trusted (never functions); pass them in "
            "trusted=[...] if you trust the file's origin"
        )
    return sio.load(path, trusted=[t for t in found if t in allowed])


def _load_pickle(path, allow_pickle):
    if not allow_pickle:
        raise ModelFileError(
            f"model file {path} is not a dtdecide model file: it looks like a pickle "
            "(joblib) file, and loading a pickle runs whatever code it holds. Pass "
            "allow_pickle=True (command line: --allow-pickle) only if you trust its origin; "
            "then save it again in the safe default format"
        )
    import joblib

    try:
        payload = joblib.load(path)
    except Exception as exc:  # unpickling raises many kinds of errors on a bad file
        raise ModelFileError(
            f"model file {path} could not be read as a pickle (joblib) file: "
            f"{type(exc).__name__}: {exc}"
        ) from exc
    version = _version()
    if not (isinstance(payload, dict) and payload.get("format") == _PICKLE_TAG):
        raise ModelFileError(
            f"model file {path} holds a pickled {type(payload).__name__} without dtdecide's "
            "version record (written by an earlier release, or by joblib.dump directly): "
            "its fitted state may lack attributes this release needs, which would fail "
            f"later (at decide); refit the model with dtdecide {version}, or load it with "
            "the release that wrote it"
        )
    written_by = payload.get("dtdecide_version")
    if written_by != version:
        raise ModelFileError(
            f"model file {path} was pickled by dtdecide {written_by}; this is dtdecide "
            f"{version}. A fitted model's state can differ between releases (a newer "
            "attribute it lacks would fail later, at decide), so it is refused: refit the "
            f"model with dtdecide {version}, or load it with dtdecide {written_by}"
        )
    return payload["model"]
