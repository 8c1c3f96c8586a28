"""Turn raw inputs (numpy arrays or pandas DataFrames) into the float64 code matrix.

Layer 2 (structure) of :mod:`dtdecide.tree` (``_structure``); see the architecture page.

The tree kernels only ever see one float64 matrix (the contract of
``docs/dev/contracts.md`` section 2): numeric columns hold their raw values,
categorical columns hold integer codes into ``categories[j]``, and NaN marks a
missing value *or* a category that was not seen in training (both follow the
node's ``missing_left`` direction).

Which columns are categorical
-----------------------------
* pandas ``category`` columns (categories kept in the dtype's order, including
  categories that do not occur in the data),
* pandas ``bool``/``boolean`` columns (categories ``[False, True]``),
* pandas ``object``/``string`` columns that do not hold numbers (categories are
  the distinct non-missing values, sorted when they can be compared, else in order
  of first appearance),
* columns of a numpy ``object``/``str`` array that cannot be read as numbers.

Everything else is numeric. Datetime and other non-numeric dtypes raise a
``TypeError`` naming the column.

Speed at scoring time
---------------------
:func:`encode` runs on every ``predict``/``decide`` call, so it does no per-value
Python work: each column is written once, contiguously, into a column-major result
(numeric columns cast straight in; categorical columns reduced to pandas' own small
integer codes and mapped to training codes through a lookup table of the column's
distinct labels with one ``np.take``). A float64 numpy array is not copied at all.
:func:`fit_encode` hands the grower a C-ordered matrix, as it always did.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_array

from ..._config import config_context
from ..._dtypes import X_DTYPE
from ..._jit import table_rows, use_compiled

__all__ = [
    "FeatureEncoding",
    "FrameColumns",
    "UnseenCategoryWarning",
    "IdentifierColumnWarning",
    "fit_encode",
    "infinity_error",
    "warn_identifier_columns",
    "encode",
    "encode_apply",
    "n_samples_of",
    "pandas_frame_of",
]


class UnseenCategoryWarning(UserWarning):
    """Scoring data hold category labels that the tree never saw in training.

    Such cases follow each split's missing-value direction, as a missing value would.
    When the labels are the training labels in another spelling or type (upper case,
    a bool column read as the strings ``"True"``/``"False"``, text stored as integer
    codes), the decisions are silently wrong: the message names the columns, shows
    some of the labels and says when a case-insensitive or text match exists. Pass
    ``handle_unknown="error"`` to the tree to refuse such data instead.

    Examples
    --------
    >>> import warnings
    >>> from dtdecide import UnseenCategoryWarning
    >>> issubclass(UnseenCategoryWarning, UserWarning)
    True
    """




# Rows encoded per block when scoring: a multiple of the tree's apply block, small
# enough for the block (rows x features x 8 bytes) to stay in cache, large enough for
# the per-column Python overhead not to matter.
SCORE_BLOCK_ROWS = 1 << 15

_NUMERIC_INFERRED = {"integer", "floating", "mixed-integer-float", "decimal"}
# object columns of dates, times, durations, periods or intervals only (pandas'
# infer_dtype): refused as the datetime64 and timedelta64 columns are, not taken as
# category labels (each date its own category)
_TIME_INFERRED = {"datetime64", "datetime", "date", "timedelta64", "timedelta", "time",
                  "period", "interval"}


@dataclass(frozen=True)
class FeatureEncoding:
    """What :func:`encode` needs to turn new raw inputs into codes.

    Attributes
    ----------
    feature_names : ndarray of object
        Input column names (``x0, x1, ...`` for arrays without names).
    is_categorical : ndarray of bool
        Whether each input is categorical.
    categories : list
        ``None`` for a numeric input, else an ndarray of the category labels
        (code ``k`` means ``categories[j][k]``).
    has_names : bool
        Whether the training input carried column names (a DataFrame with
        string column names).
    """

    feature_names: np.ndarray
    is_categorical: np.ndarray
    categories: list
    has_names: bool


class IdentifierColumnWarning(UserWarning):
    """A training input looks like a row identifier (a client number, a key).

    A tree may split on it, learning the order or the batches of the rows rather than
    anything that holds for new cases. Drop the column from ``X`` (on the command line,
    ``dtdecide fit --exclude COLUMN``).

    Examples
    --------
    >>> from dtdecide import IdentifierColumnWarning
    >>> issubclass(IdentifierColumnWarning, UserWarning)
    True
    """


# fewest rows for a column of distinct values to look like an identifier rather than
# a coincidence of a small sample
ID_MIN_ROWS = 20
_ID_NAME = re.compile(r"(^|[^a-z0-9])(id|ids|key|uuid|guid|nr|no|num|number|index|code)$|"
                      r"[a-z0-9](id|key|nr|number)$")


def identifier_columns(X):
    """Names of the columns of DataFrame ``X`` that look like row identifiers.

    A column looks like an identifier when it has at least ``ID_MIN_ROWS`` rows, no
    missing value and a distinct value in every row, and it holds either text (a
    category with one row per label helps no split), or whole numbers that are named
    like an identifier (``id``, ``client_id``, ``customerID``, ``key``, ``nr``, ...)
    or are as dense as a row counter (their range is below twice the number of rows).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from dtdecide.tree._structure._encode import identifier_columns
    >>> X = pd.DataFrame({"client": np.arange(100, 130), "age": np.arange(30) % 7,
    ...                   "ref": [f"r{i}" for i in range(30)]})
    >>> identifier_columns(X)
    ['client', 'ref']
    """
    if not isinstance(X, pd.DataFrame) or X.shape[0] < ID_MIN_ROWS:
        return []
    n = X.shape[0]
    out = []
    # the dtypes first: a column is taken out of the frame only when it may be one
    # (a Series per column of a wide float frame costs milliseconds)
    for j, dtype in enumerate(X.dtypes):
        if isinstance(dtype, pd.CategoricalDtype) or pd.api.types.is_bool_dtype(dtype):
            continue
        is_int = pd.api.types.is_integer_dtype(dtype)
        is_text = (pd.api.types.is_string_dtype(dtype) or pd.api.types.is_object_dtype(dtype))
        if not (is_int or is_text):
            continue
        col = X.iloc[:, j]
        name = str(X.columns[j])
        if col.isna().any():
            continue
        try:
            if col.nunique(dropna=False) != n:
                continue
        except TypeError:  # unhashable values: not an identifier
            continue
        if is_text:
            inferred = pd.api.types.infer_dtype(col, skipna=True)
            if inferred in ("string", "bytes", "mixed"):
                out.append(name)
            elif inferred == "integer" and _ID_NAME.search(name.lower()):
                out.append(name)
            continue
        values = col.to_numpy(dtype=np.float64)
        dense = float(values.max() - values.min()) < 2 * n
        if dense or _ID_NAME.search(name.lower()):
            out.append(name)
    return out


def warn_identifier_columns(X, *, stacklevel=3):
    """Issue an :class:`IdentifierColumnWarning` naming the columns of
    :func:`identifier_columns` (nothing when there are none)."""
    names = identifier_columns(X)
    if names:
        shown = ", ".join(repr(c) for c in names)
        warnings.warn(
            f"X column(s) {shown} look like row identifiers (a distinct value in each of the "
            f"{X.shape[0]} rows); a tree may split on them and learn the order of the rows "
            "instead of anything that holds for new cases. Drop them from X (command line: "
            f"--exclude {','.join(names)}).",
            IdentifierColumnWarning,
            stacklevel=stacklevel,
        )
    return names


def n_samples_of(X):
    """Number of rows of a raw input, without converting it."""
    if hasattr(X, "shape") and len(X.shape) >= 1:
        return int(X.shape[0])
    return len(X)


def _is_sparse(X):
    if isinstance(X, pd.DataFrame):
        # a DataFrame is no scipy matrix (it has no ``todense``); asking it for other
        # attributes builds the hash table of its column names, or pandas' sparse
        # accessor, a cost on every scoring call
        return False
    return hasattr(X, "tocsr") or hasattr(X, "sparse") and hasattr(X, "todense")


def _check_shape(n_samples, n_features, shape):
    if n_samples < 1:
        raise ValueError(
            f"Found array with {n_samples} sample(s) (shape={shape}) while a minimum of 1 "
            "is required."
        )
    if n_features < 1:
        raise ValueError(
            f"Found array with {n_features} feature(s) (shape={shape}) while a minimum of "
            "1 is required."
        )


def _as_frame_or_array(X, finite="allow-nan", dtype=X_DTYPE, names=None):
    """Return ``(frame, None)`` for DataFrames and ``(None, float array)`` or a frame
    built from a non-numeric numpy array (``finite``: ``check_array``'s
    ``ensure_all_finite``; ``dtype``: its ``dtype``; ``names``: the fitted input names,
    for the message of an infinite value)."""
    try:
        return _frame_or_array(X, finite, dtype)
    except ValueError as exc:
        if finite is not True and "infinity" in str(exc):
            # check_array's message names no column: the first one with an infinity
            try:
                inf = np.isinf(np.asarray(X, dtype=float))
            except (TypeError, ValueError):
                raise exc from None
            if inf.ndim == 2 and inf.any():
                j = int(np.flatnonzero(inf.any(axis=0))[0])
                name = names[j] if names is not None and j < len(names) else f"x{j}"
                raise infinity_error(name) from None
        raise


def pandas_frame_of(X):
    """A table of another library (a pyarrow Table, a polars DataFrame: anything with the
    dataframe interchange protocol) as a pandas DataFrame, so that its column names are
    kept at fit and checked at scoring as a pandas frame's are (as an array its columns
    were paired by position); anything else as it is."""
    if isinstance(X, (pd.DataFrame, np.ndarray, FrameColumns)) or not hasattr(
            X, "__dataframe__"):
        return X
    to_pandas = getattr(X, "to_pandas", None)
    if callable(to_pandas):
        return to_pandas()
    return pd.api.interchange.from_dataframe(X)


def _frame_or_array(X, finite, dtype):
    sparse = _is_sparse(X)  # first: scipy's dok_matrix is a dict
    records = isinstance(X, (list, tuple)) and len(X) > 0 and isinstance(X[0], dict)
    if not sparse and (X is None or isinstance(X, dict) or records):
        got = "a list of dicts" if records else type(X).__name__
        raise TypeError(
            f"X must be an array or a DataFrame of shape (n_samples, n_features); got {got}"
            + (" (pd.DataFrame(X) makes a frame of it)" if X is not None else "")
        )
    if sparse:
        raise TypeError(
            "Sparse input is not supported by the profit trees; pass a dense array or a "
            "DataFrame (sparse matrices would lose the native missing-value handling)."
        )
    if isinstance(X, pd.DataFrame):
        return X, None
    if isinstance(X, pd.Series):
        raise ValueError(
            "Expected 2D array, got a pandas Series instead; pass a DataFrame "
            "(X.to_frame()) for a single input column."
        )
    arr = np.asarray(X)
    if arr.dtype.names is not None:
        raise TypeError(
            f"X is a numpy structured array (fields {list(arr.dtype.names)!r}); pass a "
            "DataFrame (pd.DataFrame(X)) to use its fields as named input columns."
        )
    if arr.dtype.kind in "OUS" and arr.ndim == 2:
        try:
            return None, check_array(arr, dtype=dtype, ensure_all_finite=finite)
        except ValueError as exc:
            if "could not convert" not in str(exc):
                raise
        # strings in an array: treat non-numeric columns as categorical
        frame = pd.DataFrame(arr, columns=[f"x{j}" for j in range(arr.shape[1])])
        return frame, None
    return None, check_array(arr, dtype=dtype, ensure_all_finite=finite)


def _column_kind(col, name):
    """'numeric' or 'categorical' for one pandas column."""
    dtype = col.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "fiu":  # numbers numpy holds
        return "numeric"
    if isinstance(dtype, pd.CategoricalDtype):
        return "categorical"
    if pd.api.types.is_bool_dtype(dtype):
        return "categorical"
    if pd.api.types.is_string_dtype(dtype) or pd.api.types.is_object_dtype(dtype):
        inferred = pd.api.types.infer_dtype(col, skipna=True)
        if inferred in _NUMERIC_INFERRED:
            return "numeric"
        if inferred in _TIME_INFERRED:  # dates held as objects: as a datetime64 column
            raise _not_numeric_nor_categorical(name, f"{dtype} holding {inferred} values")
        return "categorical"
    if pd.api.types.is_complex_dtype(dtype):
        raise ValueError(f"Complex data not supported; X column {name!r} is complex.")
    if pd.api.types.is_numeric_dtype(dtype):
        return "numeric"
    raise _not_numeric_nor_categorical(name, dtype)


def _not_numeric_nor_categorical(name, dtype):
    return TypeError(
        f"X column {name!r} has dtype {dtype}, which is neither numeric nor categorical; "
        "convert it to numbers (e.g. days since a date) or to a 'category' column."
    )


def distinct_labels(col, name):
    """The distinct non-missing values of a categorical column (first appearance order);
    a ``TypeError`` naming the column when they cannot be labels (lists, dicts)."""
    try:
        return pd.unique(col.dropna().to_numpy(dtype=object))
    except TypeError as exc:  # unhashable values cannot be category labels
        raise TypeError(
            f"X column {name!r} is categorical but holds values that cannot be "
            f"category labels: {exc}; expected numbers, text, booleans or a 'category' "
            "column"
        ) from None


def _fit_categories(col, name):
    if isinstance(col.dtype, pd.CategoricalDtype):
        return np.asarray(col.cat.categories)
    if pd.api.types.is_bool_dtype(col.dtype):
        return np.array([False, True], dtype=object)
    values = distinct_labels(col, name)
    try:
        values = np.array(sorted(values), dtype=object)
    except TypeError:  # labels of mixed types: keep order of first appearance
        values = np.asarray(values, dtype=object)
    return values


def infinity_error(name):
    """The error for an infinite value in input column ``name`` (fit and scoring)."""
    return ValueError(
        f"Input X contains infinity in column {name!r}; only NaN is allowed as a "
        "missing value."
    )


def _numeric_values(col, name, check_finite=True):
    """A validated 1-D numeric array of one column (no copy when numpy holds numbers).

    Columns that numpy already holds as numbers (float, int, bool) are returned as they
    are, to be cast while being written; nullable and object columns go through
    ``to_numpy`` with NaN for missing values. ``check_finite=False`` leaves the search
    for infinite values to the caller.
    """
    dtype = col.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "fiub":
        values = np.asarray(col)  # a Series or the frame's own column array
    else:
        try:
            values = col.to_numpy(dtype=X_DTYPE, na_value=np.nan)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"X column {name!r} could not be read as numbers: {exc}") from exc
    if check_finite:
        _refuse_infinite_column(values, name)
    return values


def _refuse_infinite_column(values, name):
    """Raise :func:`infinity_error` when the numeric column ``values`` holds one."""
    if values.dtype.kind == "f" and np.isinf(values).any():
        raise infinity_error(name)


# Per training category array: a dict from string label to position (None when a label
# is not a str). Scoring a few rows then matches their labels without building a pandas
# Index per column and call. Keyed by id; the entry holds the array, so the id stays
# its own while the entry lives.
_STR_LOOKUPS = {}
_STR_LOOKUPS_MAX = 512
# Per (categorical dtype's labels, training categories): the code table of
# :func:`_code_table` (both are immutable; the entry holds them so the ids stay theirs).
_CODE_TABLES = {}


def _str_lookup(categories):
    hit = _STR_LOOKUPS.get(id(categories))
    if hit is not None and hit[0] is categories:
        return hit[1]
    lookup = None
    if all(type(c) is str for c in categories):
        lookup = {c: k for k, c in enumerate(categories)}
    if len(_STR_LOOKUPS) >= _STR_LOOKUPS_MAX:
        _STR_LOOKUPS.clear()
    _STR_LOOKUPS[id(categories)] = (categories, lookup)
    return lookup


def _indexer(categories, labels):
    """Position of every label in ``categories``, -1 where it is absent (or missing)."""
    if len(labels) <= 64 and all(type(v) is str for v in labels):
        lookup = _str_lookup(categories)
        if lookup is not None:  # strings only: dict and pandas matching agree
            return np.array([lookup.get(v, -1) for v in labels], dtype=np.intp)
    try:
        return np.asarray(pd.Index(categories).get_indexer(labels), dtype=np.intp)
    except (TypeError, ValueError):
        # e.g. categories with mixed label types: fall back to a dictionary lookup
        lookup = {c: k for k, c in enumerate(categories)}
        return np.array([lookup.get(v, -1) for v in labels], dtype=np.intp)


def _code_table(labels, categories):
    """Float lookup table from positions in ``labels`` to codes into ``categories``.

    ``table[k]`` is the training code of ``labels[k]`` (NaN when training never saw
    it) and the extra last entry is NaN, so that the missing-value code ``-1`` of
    pandas reads NaN through ``np.take(table, codes, mode="wrap")``.
    """
    cacheable = isinstance(labels, pd.Index)  # immutable: a categorical dtype's labels
    if cacheable:
        hit = _CODE_TABLES.get((id(labels), id(categories)))
        if hit is not None and hit[0] is labels and hit[1] is categories:
            return hit[2]
    # labels as Python objects, as the values of an object column would be: matching
    # then follows Python equality whatever dtype pandas inferred for the labels
    idx = _indexer(categories, np.asarray(labels, dtype=object))
    table = np.full(len(idx) + 1, np.nan, dtype=X_DTYPE)
    found = idx >= 0
    table[:-1][found] = idx[found]
    if cacheable:
        if len(_CODE_TABLES) >= _STR_LOOKUPS_MAX:
            _CODE_TABLES.clear()
        table.setflags(write=False)
        _CODE_TABLES[(id(labels), id(categories))] = (labels, categories, table)
    return table


def _category_source(col, categories, name):
    """``(codes, table)`` of one categorical column: ``table.take(codes, mode="wrap")``
    gives its codes into ``categories`` (NaN for missing and unseen values).

    Every column is reduced to small integer codes into a short list of its own labels
    (the dtype's categories, ``[False, True]``, or the distinct values found by
    ``pd.factorize``, missing values coded -1); only those labels are matched against
    the training categories, and writing the codes is then one ``np.take`` through the
    lookup table.
    """
    dtype = col.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        cat = col if isinstance(col, pd.Categorical) else col.array
        codes = np.asarray(cat.codes)  # the Categorical's own codes: no Series
        labels = dtype.categories
    elif isinstance(dtype, np.dtype) and dtype.kind == "b":
        codes = np.asarray(col).view(np.uint8)
        labels = np.array([False, True], dtype=object)
    else:
        try:
            codes, labels = pd.factorize(col, use_na_sentinel=True)
        except TypeError as exc:  # unhashable values (lists, dicts) cannot be labels
            raise TypeError(
                f"X column {name!r} is categorical but holds values that cannot be "
                f"category labels: {exc}"
            ) from exc
    return codes, _code_table(labels, categories), labels


class _Columns:
    """Validated raw columns whose codes are written a block of rows at a time.

    Holds, per input, either its numeric values (views of the caller's data where
    possible) or its categorical ``(codes, table)``; every check has run when it
    exists, so writing cannot fail. :meth:`fill` writes rows ``start:stop`` of the code
    matrix into a float64 block (column-major blocks get contiguous writes).
    """

    def __init__(self, sources, n_samples, labels=None, names=None):
        self.sources = sources
        self.n_samples = n_samples
        self.n_features = len(sources)
        # per input: the column's own distinct labels (categorical) or None (numeric)
        self.labels = [None] * len(sources) if labels is None else labels
        self.names = names

    def label_counts(self):
        """Unseen and missing labels of every categorical input.

        Returns a dict ``{name: (n_unseen, n_missing, unseen)}`` where ``unseen`` lists
        the distinct unseen labels, most frequent first.
        """
        out = {}
        for j, (values, table) in enumerate(self.sources):
            if table is None:
                continue
            labels = self.labels[j]
            if self.n_samples <= _FEW_ROWS:
                out[self.names[j]] = _few_label_counts(values, table, labels)
                continue
            # pandas codes are -1 for a missing value: shift by one to count them too
            counts = np.bincount(np.asarray(values, dtype=np.intp) + 1,
                                 minlength=len(table))
            n_missing = int(counts[0])
            per_label = counts[1:len(table)]
            unseen_pos = np.flatnonzero(np.isnan(table[:-1]) & (per_label > 0))
            order = unseen_pos[np.argsort(-per_label[unseen_pos], kind="stable")]
            unseen = [_python_label(labels[k]) for k in order]
            out[self.names[j]] = (int(per_label[unseen_pos].sum()), n_missing, unseen)
        return out

    @property
    def shape(self):
        """``(n_samples, n_features)`` of the code matrix."""
        return (self.n_samples, self.n_features)

    def column(self, j):
        """Input ``j``'s codes as a 1-D array: a numeric input's values as the column
        holds them (float, int or bool: the reader casts them), a categorical input's
        codes into the training categories (float64, NaN for missing or unseen)."""
        values, table = self.sources[j]
        return values if table is None else np.take(table, values, mode="wrap")

    def fill(self, start, stop, out):
        for j, (values, table) in enumerate(self.sources):
            if table is None:
                np.copyto(out[:, j], values[start:stop], casting="unsafe")
            else:
                np.take(table, values[start:stop], out=out[:, j], mode="wrap")
        return out

    def to_array(self, order="F"):
        """The whole code matrix; ``order="C"`` goes through a column-major block buffer
        (contiguous writes, then one in-cache transposing copy per block)."""
        shape = (self.n_samples, self.n_features)
        if order == "F":
            return self.fill(0, self.n_samples, np.empty(shape, dtype=X_DTYPE, order="F"))
        out = np.empty(shape, dtype=X_DTYPE)
        buffer = np.empty((min(SCORE_BLOCK_ROWS, self.n_samples), self.n_features),
                          dtype=X_DTYPE, order="F")
        for start in range(0, self.n_samples, SCORE_BLOCK_ROWS):
            stop = min(start + SCORE_BLOCK_ROWS, self.n_samples)
            out[start:stop] = self.fill(start, stop, buffer[: stop - start])
        return out


# Up to this many rows, label counts and routing walk the rows in Python: cheaper than
# the vectorised passes' fixed cost when scoring a few cases at a time (online scoring).
_FEW_ROWS = 16


def _few_label_counts(values, table, labels):
    """:meth:`_Columns.label_counts` of one column of a few rows, row by row: the same
    ``(n_unseen, n_missing, unseen)``, unseen labels most frequent first, ties in the
    order of ``labels``."""
    unseen_at = np.isnan(table[:-1]).tolist()
    n_missing = 0
    found = {}
    for k in np.asarray(values, dtype=np.intp).tolist():
        if k < 0:
            n_missing += 1
        elif unseen_at[k]:
            found[k] = found.get(k, 0) + 1
    order = sorted(found, key=lambda k: (-found[k], k))
    return sum(found.values()), n_missing, [_python_label(labels[k]) for k in order]


def _python_label(label):
    return label.item() if isinstance(label, np.generic) else label


class FrameColumns:
    """Some columns of a DataFrame, by position, without building a new frame.

    Scoring takes the cost columns out of ``X`` this way (a new frame costs more than
    scoring one case); :func:`encode` and :func:`encode_apply` accept it wherever they
    accept a DataFrame, with the same checks and errors.

    Parameters
    ----------
    frame : DataFrame
    positions : list of int
        The columns, in their order.
    """

    def __init__(self, frame, positions):
        self.frame = frame
        self.positions = [int(j) for j in positions]
        names = frame.columns.tolist()
        self.columns = [names[j] for j in self.positions]
        self.shape = (frame.shape[0], len(self.positions))
        self.index = frame.index

    def to_frame(self):
        """The columns as a DataFrame of their own."""
        return self.frame.take(self.positions, axis=1)


def _column_getter(frame):
    """A function of ``j`` giving column ``j`` of ``frame``: the frame's own array when
    it is a numpy number/bool array or a ``Categorical`` (no Series built: scoring one
    row pays per column), else the column as a Series."""
    if isinstance(frame, FrameColumns):
        inner, positions = _column_getter(frame.frame), frame.positions
        return lambda j: inner(positions[j])
    get_array = getattr(frame, "_get_column_array", None)  # pandas >= 1.3 (private)

    def column(j):
        if get_array is not None:
            try:
                values = get_array(j)
            except (AttributeError, IndexError, TypeError):
                values = None
            if (isinstance(values, np.ndarray) and values.ndim == 1
                    and values.dtype.kind in "fiub") or isinstance(values, pd.Categorical):
                return values
        return frame.iloc[:, j]

    return column


def _frame_columns(frame, encoding, *, fitting=False, check_finite=True):
    """Validate every column of ``frame`` against ``encoding`` and return ``_Columns``
    (``check_finite=False``: infinite numbers are the caller's to find)."""
    sources = []
    labels = [None] * frame.shape[1]
    column = _column_getter(frame)
    for j in range(frame.shape[1]):
        col = column(j)
        name = encoding.feature_names[j]
        if encoding.is_categorical[j]:
            codes, table, labels[j] = _category_source(col, encoding.categories[j], name)
            sources.append((codes, table))
            continue
        if not fitting and _column_kind(col, name) == "categorical" and not (
            pd.api.types.is_bool_dtype(col.dtype) or _all_missing(col)
        ):
            raise TypeError(
                f"X column {name!r} was numeric at fit time but now holds "
                f"non-numeric values (dtype {col.dtype})."
            )
        sources.append((_numeric_values(col, name, check_finite), None))
    return _Columns(sources, frame.shape[0], labels, list(encoding.feature_names))


def _all_missing(col):
    """Whether an object/string column holds only missing values (a numeric input of a
    case read from JSON, ``pd.DataFrame([{"age": None}])``, is such a column: its values
    are missing, not text)."""
    return pd.api.types.infer_dtype(col, skipna=True) == "empty"


def _frame_names(frame):
    cols = list(frame.columns)
    has_names = all(isinstance(c, str) for c in cols)
    return np.array([str(c) for c in cols], dtype=object), has_names


def training_frame_names(frame):
    """``(names, has_names)`` of a training DataFrame, its column names as text.

    The names are the tree's ``feature_names_in_`` (rules, SQL and leaf tables name the
    inputs by them), so they must be distinct as text too: columns ``0`` and ``"0"``
    would be two inputs of one name. A ``ValueError`` lists the repeated names.
    """
    names, has_names = _frame_names(frame)
    if len(set(names)) != len(names):
        seen, repeated = set(), []
        for name in names:
            if name in seen and name not in repeated:
                repeated.append(name)
            seen.add(name)
        as_text = "" if has_names else f" (as text; the columns are {list(frame.columns)!r})"
        raise ValueError(
            f"X has duplicated column names {repeated!r}{as_text}; column names must be "
            "unique."
        )
    return names, has_names


def _default_names(n_features):
    return [f"x{j}" for j in range(n_features)]


def fitted_on_frame(encoding):
    """Whether ``encoding`` was learnt from a DataFrame (named columns of any type), not
    from an array (names ``x0, x1, ...``)."""
    names = encoding.feature_names
    return bool(encoding.has_names) or list(names) != _default_names(len(names))


def fit_encode(X, *, check_finite=True, as_columns=False):
    """Learn the encoding of ``X`` and return ``(X_codes, encoding)``.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_samples, n_features)
        Raw training inputs.
    check_finite : bool, default=True
        Refuse infinite values (:func:`infinity_error`). False leaves that to the
        caller: the estimators find them while binning, which reads every value
        anyway, and raise the same error (one pass over the data fewer).
    as_columns : bool, default=False
        Return no code matrix that would be a copy of ``X``: a float32 array as it is,
        and a DataFrame other than one float64 block as a column source (``shape``,
        ``column(j)``, ``to_array()``) that the binner reads column by column. The
        codes are the same numbers.

    Returns
    -------
    X_codes : ndarray of float64, shape (n_samples, n_features)
    encoding : FeatureEncoding

    Examples
    --------
    >>> import pandas as pd
    >>> from dtdecide.tree._structure._encode import fit_encode
    >>> X = pd.DataFrame({"age": [30, 41, None], "job": ["b", "a", "b"]})
    >>> codes, enc = fit_encode(X)
    >>> codes.tolist()
    [[30.0, 1.0], [41.0, 0.0], [nan, 1.0]]
    >>> enc.categories[1].tolist()
    ['a', 'b']
    """
    X = pandas_frame_of(X)
    frame, arr = _as_frame_or_array(X, "allow-nan" if check_finite else False,
                                    [X_DTYPE, np.float32] if as_columns else X_DTYPE)
    if arr is not None:
        if arr.ndim != 2:
            raise ValueError(f"X must be 2-dimensional; got an array of shape {arr.shape}.")
        _check_shape(arr.shape[0], arr.shape[1], arr.shape)
        n_features = arr.shape[1]
        encoding = FeatureEncoding(
            feature_names=np.array([f"x{j}" for j in range(n_features)], dtype=object),
            is_categorical=np.zeros(n_features, dtype=bool),
            categories=[None] * n_features,
            has_names=False,
        )
        # no copy of a float64 array in either memory order: every reader of the codes
        # (binning, apply) takes both
        if not (as_columns and arr.dtype == np.float32):
            arr = np.asarray(arr, dtype=X_DTYPE)
        if not (arr.flags.c_contiguous or arr.flags.f_contiguous):
            arr = np.ascontiguousarray(arr)
        return arr, encoding

    _check_shape(frame.shape[0], frame.shape[1], frame.shape)
    names, has_names = training_frame_names(frame)
    has_names = has_names and isinstance(X, pd.DataFrame)  # not the x0.. of an array
    is_cat = np.zeros(len(names), dtype=bool)
    categories = []
    dtypes = frame.dtypes
    for j in range(frame.shape[1]):
        dtype = dtypes.iloc[j]
        if isinstance(dtype, np.dtype) and dtype.kind in "fiu":
            categories.append(None)  # numbers numpy holds (_column_kind): no Series built
            continue
        col = frame.iloc[:, j]
        if _column_kind(col, names[j]) == "categorical":
            is_cat[j] = True
            categories.append(_fit_categories(col, names[j]))
        else:
            categories.append(None)
    encoding = FeatureEncoding(
        feature_names=names, is_categorical=is_cat, categories=categories, has_names=has_names
    )
    columns = _frame_columns(frame, encoding, fitting=True, check_finite=check_finite)
    if not is_cat.any() and all(v.dtype == X_DTYPE for v, _ in columns.sources):
        # one float64 block: the frame's own memory (column-major), no copy
        view = frame.to_numpy(dtype=X_DTYPE, copy=False)
        if view.flags.f_contiguous and any(np.shares_memory(view, v)
                                           for v, _ in columns.sources[:1]):
            return view, encoding
    if as_columns:
        return columns, encoding
    # column-major: each column written contiguously, no block buffer
    return columns.to_array(order="F"), encoding


def _check_names(frame, encoding, estimator_name):
    names, has_names = _frame_names(frame)
    if not encoding.has_names and fitted_on_frame(encoding):
        # a frame after a fit on a frame whose column names are not all text (0, 1, ...
        # or mixed): the names still say which column is which, so they must match
        # (as text), never be paired by position (the callers pass the user's frames
        # only: an array is matched by position, as at fit)
        fitted = encoding.feature_names
        if len(fitted) == len(names) and np.all(fitted == names):
            return
        _raise_name_mismatch(names, fitted)
    if not has_names:
        names = None
    if names is None and not encoding.has_names:
        return
    if names is not None and not encoding.has_names:
        warnings.warn(
            f"X has feature names, but {estimator_name} was fitted without feature names",
            UserWarning,
            stacklevel=4,
        )
        return
    if names is None and encoding.has_names:
        warnings.warn(
            f"X does not have valid feature names, but {estimator_name} was fitted with "
            "feature names",
            UserWarning,
            stacklevel=4,
        )
        return
    fitted = encoding.feature_names
    if len(fitted) == len(names) and np.all(fitted == names):
        return
    _raise_name_mismatch(names, fitted)


def _raise_name_mismatch(names, fitted):
    """scikit-learn's error for input names that differ from the fitted ones."""
    message = "The feature names should match those that were passed during fit.\n"
    unexpected = sorted(set(names) - set(fitted))
    missing = sorted(set(fitted) - set(names))

    def listing(values):
        lines = [f"- {v}\n" for v in values[:5]]
        if len(values) > 5:
            lines.append("- ...\n")
        return "".join(lines)

    if unexpected:
        message += "Feature names unseen at fit time:\n" + listing(unexpected)
    if missing:
        message += "Feature names seen at fit time, yet now missing:\n" + listing(missing)
    if not unexpected and not missing:
        message += "Feature names must be in the same order as they were in fit.\n"
    raise ValueError(message)


def _prepare(X, encoding, estimator_name, in_place=False):
    """Check ``X`` against ``encoding``: a float64 ndarray (all-numeric array input,
    returned as it is) or validated :class:`_Columns`; ``in_place`` also returns a frame
    of one float64 block as a view of its memory (read-only use: scoring)."""
    n_expected = len(encoding.feature_names)
    X = pandas_frame_of(X)
    frame, arr = (X, None) if isinstance(X, FrameColumns) else _as_frame_or_array(
        X, names=encoding.feature_names)
    if arr is not None:
        if arr.ndim != 2:
            raise ValueError(
                f"Expected 2D array, got an array of shape {arr.shape} instead; reshape "
                "your data with X.reshape(-1, 1) for a single feature or X.reshape(1, -1) "
                "for a single sample."
            )
        if arr.shape[1] != n_expected:
            raise ValueError(
                f"X has {arr.shape[1]} features, but {estimator_name} is expecting "
                f"{n_expected} features as input."
            )
        if encoding.has_names:
            _check_names(pd.DataFrame(arr[:0]), encoding, estimator_name)
        if not encoding.is_categorical.any():  # check_array has rejected infinity
            return arr  # float64 already, in the caller's memory layout (no copy)
        frame = pd.DataFrame(arr)
    else:
        if isinstance(X, (pd.DataFrame, FrameColumns)):
            _check_names(frame, encoding, estimator_name)
        elif encoding.has_names:
            _check_names(pd.DataFrame(np.empty((0, frame.shape[1]))), encoding, estimator_name)
        if frame.shape[1] != n_expected:
            raise ValueError(
                f"X has {frame.shape[1]} features, but {estimator_name} is expecting "
                f"{n_expected} features as input."
            )
    if frame.shape[0] == 0:
        return np.empty((0, n_expected), dtype=X_DTYPE)
    one_block = (in_place and isinstance(frame, pd.DataFrame)
                 and not encoding.is_categorical.any())
    columns = _frame_columns(frame, encoding, check_finite=not one_block)
    if one_block:
        whole = _one_float_block(frame, columns)
        if whole is not None:
            return whole.view(_Unchecked)  # infinity: looked for by the scoring threads
        for (values, _), name in zip(columns.sources, columns.names):
            _refuse_infinite_column(values, name)
    return columns


class _Unchecked(np.ndarray):
    """A float64 code matrix (a view of the caller's frame) whose infinite values are
    still to be looked for: :func:`encode_apply` does it block by block on its threads
    (:func:`_refuse_infinity`) instead of column by column before them."""


def _refuse_infinity(block, whole, names):
    """Raise :func:`infinity_error` when ``block`` holds an infinite value, naming the
    first such column of ``whole`` (the same column whichever block or thread saw it)."""
    if np.isinf(block).any():
        with np.errstate(invalid="ignore"):
            first = int(np.flatnonzero(np.isinf(whole).any(axis=0))[0])
        raise infinity_error(names[first])


def _one_float_block(frame, columns):
    """The validated numeric ``columns`` as one 2-D view of ``frame``'s memory, or None.

    A frame of float64 columns held in one block (the frame of a 2-D float64 array) is
    already the code matrix of an all-numeric encoding, column-major: scoring then reads
    it in place instead of copying it block by block. Only when every column is a view
    of one array, in the encoding's order; anything else keeps the per-column path.
    """
    values = [v for v, _ in columns.sources]
    base = values[0].base
    if base is None or any(
            v.dtype != X_DTYPE or v.ndim != 1 or v.base is not base for v in values):
        return None
    whole = frame.to_numpy(dtype=X_DTYPE, copy=False)
    if whole.shape != (columns.n_samples, columns.n_features) or any(
            whole[:, j].ctypes.data != v.ctypes.data for j, v in enumerate(values)):
        return None  # copied, or another column order
    return whole


HANDLE_UNKNOWN = ("warn", "error")


def _norm_text(label):
    return str(label).strip().casefold()


def _unseen_hint(unseen, categories):
    """Why labels unseen in training may be training labels in disguise ('' if no idea)."""
    cats = list(categories)
    as_text = {str(c) for c in cats}
    folded = {_norm_text(c) for c in cats}
    hints = []
    # an unseen label equal to a training category's text is that category in another
    # type (True vs "True", 1 vs "1")
    text_match = [u for u in unseen if str(u) in as_text]
    if text_match:
        hints.append(
            f"{text_match[:3]!r} equal training categories once written as text: the "
            "column's type changed (e.g. a bool column read as the strings 'True'/'False', "
            "or numbers read as text)"
        )
    cased = [u for u in unseen if str(u) not in as_text and _norm_text(u) in folded]
    if cased:
        hints.append(
            f"{cased[:3]!r} match training categories when upper/lower case and surrounding "
            "spaces are ignored: the spelling changed"
        )
    if cats and all(isinstance(c, str) for c in cats):
        ints = [u for u in unseen if isinstance(u, (int, float, np.integer, np.floating))
                and not isinstance(u, bool) and float(u).is_integer()]
        if ints and len(ints) == len(unseen) and all(0 <= float(u) < len(cats) for u in ints):
            hints.append(
                "the labels are whole numbers while training saw text: they may be integer "
                "codes of the categories (map them back to the labels)"
            )
    return "; ".join(hints)


def check_labels(prepared, encoding, handle_unknown, estimator_name, label_counts=None):
    """Count unseen/missing labels of ``prepared`` columns; warn or raise on unseen ones.

    ``handle_unknown`` is None (count only), ``"warn"`` (an
    :class:`UnseenCategoryWarning`) or ``"error"`` (a ``ValueError``). ``label_counts``,
    when a dict, receives ``{column: (n_unseen, n_missing)}`` for every categorical input.
    """
    if handle_unknown is not None and handle_unknown not in HANDLE_UNKNOWN:
        raise ValueError(
            f"handle_unknown must be one of {HANDLE_UNKNOWN!r}; got {handle_unknown!r}"
        )
    if isinstance(prepared, np.ndarray):  # all-numeric input or no rows: no labels
        if label_counts is not None:
            for j in np.flatnonzero(encoding.is_categorical):
                label_counts[encoding.feature_names[j]] = (0, 0)
        return
    counts = prepared.label_counts()
    if label_counts is not None:
        label_counts.update({k: (v[0], v[1]) for k, v in counts.items()})
    bad = {k: v for k, v in counts.items() if v[0] > 0}
    if not bad or handle_unknown is None:
        return
    n = prepared.n_samples
    parts = []
    categories = dict(zip(encoding.feature_names, encoding.categories))
    for name, (n_unseen, _, unseen) in bad.items():
        shown = ", ".join(repr(u) for u in unseen[:5]) + (", ..." if len(unseen) > 5 else "")
        known = list(categories[name])
        known_txt = ", ".join(repr(_python_label(c)) for c in known[:5])
        known_txt += ", ..." if len(known) > 5 else ""
        part = (f"column {name!r}: {n_unseen} of {n} rows hold labels unseen in training "
                f"({shown}; training categories: {known_txt})")
        hint = _unseen_hint(unseen, known)
        if hint:
            part += f"; hint: {hint}"
        parts.append(part)
    message = (
        f"{estimator_name}: " + "; ".join(parts) + ". Unseen labels are routed as missing "
        "values, which changes their decisions"
    )
    if handle_unknown == "error":
        raise ValueError(message + " (handle_unknown='error').")
    warnings.warn(
        message + "; pass handle_unknown='error' to refuse such data.",
        UnseenCategoryWarning,
        stacklevel=4,
    )


def encode(X, encoding, *, estimator_name="estimator", handle_unknown=None,
           label_counts=None):
    """Encode new raw inputs with a fitted :class:`FeatureEncoding`.

    Categories unseen in training and missing values become NaN.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_samples, n_features)
    encoding : FeatureEncoding
    estimator_name : str
        Used in error messages.
    handle_unknown : {None, "warn", "error"}, default=None
        What labels unseen in training do: nothing (None), an
        :class:`UnseenCategoryWarning` or a ``ValueError``.
    label_counts : dict, default=None
        When given, receives ``{column: (n_unseen, n_missing)}`` for every categorical
        input.

    Returns
    -------
    ndarray of float64, shape (n_samples, n_features)
        Column-major (Fortran order) for DataFrames and object arrays; a float64 numpy
        input of an all-numeric encoding is returned as it is (no copy), else converted
        by ``check_array``.

    Examples
    --------
    >>> import pandas as pd
    >>> from dtdecide.tree._structure._encode import fit_encode, encode
    >>> _, enc = fit_encode(pd.DataFrame({"job": ["a", "b"]}))
    >>> encode(pd.DataFrame({"job": ["b", "zzz", None]}), enc).ravel().tolist()
    [1.0, nan, nan]
    """
    prepared = _prepare(X, encoding, estimator_name)
    check_labels(prepared, encoding, handle_unknown, estimator_name, label_counts)
    return prepared if isinstance(prepared, np.ndarray) else prepared.to_array()


def encode_apply(X, encoding, apply, *, estimator_name="estimator", block_rows=None,
                 handle_unknown=None, label_counts=None, n_jobs=None, out_dtypes=None):
    """``apply(encode(X, encoding))`` without building the whole code matrix.

    All of ``X`` is checked first (same errors as :func:`encode`); then its codes are
    written one block of ``block_rows`` rows at a time into one reused column-major
    buffer that is passed to ``apply``. Memory stays bounded and no large matrix is
    allocated per call, which at a million rows costs as much as the encoding itself.

    Parameters
    ----------
    X : array-like or DataFrame of shape (n_samples, n_features)
    encoding : FeatureEncoding
    apply : callable
        Maps a float64 code block of shape (m, n_features) to an array of length m
        (e.g. ``TreeStructure.apply``); it must not keep the block.
    estimator_name : str
        Used in error messages.
    block_rows : int, default=None
        Rows per block; None means ``SCORE_BLOCK_ROWS`` (32768).
    handle_unknown, label_counts
        As in :func:`encode`.
    n_jobs : int, default=None
        Threads (scikit-learn's convention; None is one) for a table of more than one
        block: each thread encodes and routes its own contiguous range of rows, block
        by block, in its own buffer (``apply`` must be safe to call from several
        threads). The kernels are chosen once, for the whole table, in the calling
        thread; the outputs do not depend on ``n_jobs``.
    out_dtypes : tuple of dtype, default=None
        ``apply`` returns a tuple of that many arrays per block instead of one; each
        is written, by the thread that computed it, into a new array of
        ``n_samples`` values of its dtype at the block's rows (no concatenation on the
        calling thread).

    Returns
    -------
    ndarray of shape (n_samples,), or a tuple of them (``out_dtypes``)
        The outputs of ``apply``, in row order.

    Examples
    --------
    >>> import pandas as pd
    >>> from dtdecide.tree._structure._encode import fit_encode, encode_apply
    >>> X = pd.DataFrame({"job": ["a", "b", "a"], "age": [30.0, 41.0, None]})
    >>> _, enc = fit_encode(X)
    >>> encode_apply(X, enc, lambda block: block[:, 0] + 10, block_rows=2).tolist()
    [10.0, 11.0, 10.0]
    """
    if block_rows is None:
        block_rows = SCORE_BLOCK_ROWS
    if not isinstance(block_rows, (int, np.integer)) or block_rows < 1:
        raise ValueError(f"block_rows must be a positive integer; got {block_rows!r}")
    prepared = _prepare(X, encoding, estimator_name, in_place=True)
    check_labels(prepared, encoding, handle_unknown, estimator_name, label_counts)
    check = None
    if isinstance(prepared, _Unchecked):
        prepared = prepared.view(np.ndarray)
        check = _infinity_check(prepared, list(encoding.feature_names))
    is_array = isinstance(prepared, np.ndarray)
    n = prepared.shape[0] if is_array else prepared.n_samples
    out = None if out_dtypes is None else tuple(np.empty(n, dtype=d) for d in out_dtypes)
    if n > block_rows and n_jobs not in (None, 1):
        from ..._parallel import check_n_jobs

        n_threads = min(check_n_jobs(n_jobs), -(-n // block_rows))
        if n_threads > 1:
            return _encode_apply_threads(prepared, apply, block_rows, n_threads, out, check)
    if n <= block_rows or (is_array and check is None):
        if check is not None:
            check(prepared)
        found = apply(prepared if is_array else prepared.to_array())
        return found if out is None else _write_rows(out, found, 0, n)
    buffer = None if is_array else np.empty((block_rows, prepared.n_features),
                                            dtype=X_DTYPE, order="F")
    parts = []
    with table_rows(n):  # the kernels are chosen for the table, not for one block
        for start in range(0, n, block_rows):
            stop = min(start + block_rows, n)
            block = _block(prepared, start, stop, buffer, check)
            if out is not None:
                _write_rows(out, apply(block), start, stop)
            else:
                parts.append(np.asarray(apply(block)).copy())  # never a view of the buffer
    return out if out is not None else np.concatenate(parts)


def _write_rows(out, found, lo, hi):
    """Write each array of ``found`` into its array of ``out`` at rows ``lo:hi``."""
    for target, values in zip(out, found, strict=True):
        target[lo:hi] = values
    return out


def _infinity_check(whole, names):
    """The look for infinite values in a block of rows of ``whole`` (an in-place code
    matrix), made just before the block is routed, while it is in cache: looking at a
    thread's whole range first read the matrix from memory twice."""

    def check(block):
        _refuse_infinity(block, whole, names)

    return check


def _block(prepared, start, stop, buffer, check):
    """Rows ``start:stop`` of the codes: a view of an in-place matrix (looked at for
    infinite values by ``check``, when given), else filled into ``buffer``."""
    if buffer is None:
        block = prepared[start:stop]
        if check is not None:
            check(block)
        return block
    return prepared.fill(start, stop, buffer[: stop - start])


def _encode_apply_threads(prepared, apply, block_rows, n_threads, out=None, check=None):
    """:func:`encode_apply` on ``n_threads`` threads, one contiguous range of rows each
    (with ``out``, each thread writes its rows' outputs there).

    Settings are per thread: the kernels chosen here, for the whole table, are imposed
    on the workers (so ``config_context(kernels=...)`` of the caller holds there too).
    """
    from ..._parallel import thread_pool

    is_array = isinstance(prepared, np.ndarray)
    n = prepared.shape[0] if is_array else prepared.n_samples
    mode = "compiled" if use_compiled(n) else "numpy"
    # range bounds on block boundaries: every block but the last is a full one
    n_blocks = -(-n // block_rows)
    cuts = np.linspace(0, n_blocks, n_threads + 1).astype(np.intp) * block_rows
    cuts[-1] = n
    ranges = [(int(a), int(b)) for a, b in zip(cuts[:-1], cuts[1:]) if b > a]

    def run(bounds):
        lo, hi = bounds
        with config_context(kernels=mode), table_rows(n):
            if is_array and check is None:  # routed in place, the whole range at once
                found = apply(prepared[lo:hi])
                return np.asarray(found) if out is None else _write_rows(out, found, lo, hi)
            buffer = None if is_array else np.empty(
                (min(block_rows, hi - lo), prepared.n_features), dtype=X_DTYPE, order="F")
            parts = []
            for start in range(lo, hi, block_rows):
                stop = min(start + block_rows, hi)
                block = _block(prepared, start, stop, buffer, check)
                if out is not None:
                    _write_rows(out, apply(block), start, stop)
                else:  # never a view of the buffer
                    parts.append(np.asarray(apply(block)).copy())
            return out if out is not None else np.concatenate(parts)

    with thread_pool(len(ranges)) as pool:
        parts = [run(r) for r in ranges] if pool is None else pool.map_groups(run, ranges)
    return out if out is not None else np.concatenate(parts)
