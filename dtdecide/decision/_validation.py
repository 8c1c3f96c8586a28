"""Validation and alignment of 1-d per-case inputs: ``y``, ``sample_weight``, costs.

One rule everywhere (estimators, ``decide``, studies, exports, assessment):

* **pandas alignment**: values are matched to the cases by position. A pandas Series or
  DataFrame whose index differs from the index of the reference input (``X``, or the
  posteriors of :func:`~dtdecide.decide`) is refused with a ``ValueError`` naming the
  parameter, never silently paired by position. When the reference input is not a
  pandas object there is no index to compare.
* **1-d values**: a Series, list, array or one-column DataFrame/column vector gives a
  1-d array (:func:`sklearn.utils.validation.column_or_1d` for arrays).
* **frequencies** (``sample_weight``): :func:`sklearn.utils.validation._check_sample_weight`
  (a scalar is broadcast; 1-d; finite), non-negative, with messages naming the parameter.

Public entry points validate once; the private kernels (binning, growing) trust their
callers, as scikit-learn's ``check_input=False``.
"""

import inspect
import numbers
from collections.abc import Mapping

import numpy as np
import pandas as pd
from sklearn.utils.validation import _check_sample_weight, _num_samples, column_or_1d

from ._kernels import _FLOAT, _check_weight_total

__all__ = ["check_1d", "check_interval_target", "check_per_case", "check_same_index",
           "check_sample_weight", "check_seed", "float_array", "has_missing_labels",
           "model_classes", "model_proba", "not_probability_rows",
           "reference_index", "refuse_bool_numbers", "refuse_unicode_forms",
           "repeated_names", "reworded", "short_text", "shown_labels", "text_keys",
           "text_labels"]

# scikit-learn >= 1.7 refuses all-zero weights unless told otherwise; our summaries
# accept them (frequency 0, averages NaN) and fit asks for a positive sum itself
_ALLOW_ZERO = (
    {"allow_all_zero_weights": True}
    if "allow_all_zero_weights" in inspect.signature(_check_sample_weight).parameters
    else {}
)


def reference_index(X):
    """The index other per-case inputs must share with ``X`` (None if ``X`` has none)."""
    return X.index if isinstance(X, (pd.DataFrame, pd.Series)) else None


def check_same_index(values, index, name, *, reference="X"):
    """Refuse a pandas ``values`` whose index differs from ``index``.

    Parameters
    ----------
    values : object
        The per-case input: a pandas Series or DataFrame, or a dict whose pandas values
        are checked one by one (named ``name[key]``); anything else is not checked.
    index : pandas.Index or None
        The index of the reference input; None checks nothing.
    name : str
        The parameter name used in the message.
    reference : str, default="X"
        The name of the reference input, for the message.

    Raises
    ------
    ValueError
        When both are indexed and the indexes differ.
    """
    if index is None:
        return
    if isinstance(values, Mapping):  # a dict of cost columns: each Series as a frame's
        for key, column in values.items():
            check_same_index(column, index, f"{name}[{key!r}]", reference=reference)
        return
    if not isinstance(values, (pd.Series, pd.DataFrame)):
        return
    if not values.index.equals(index):
        raise ValueError(
            f"{name} has an index that differs from the index of {reference}; values "
            f"are matched by position, so align them first (e.g. "
            f"{name}.reindex({reference}.index), or {name}.set_axis({reference}.index) "
            "if they already are in the same order)"
        )


def check_per_case(X, reference="X", **inputs):
    """:func:`check_same_index` of every per-case input (``y=``, ``costs=``, ...) against
    the index of ``X`` (nothing to compare when ``X`` is not a pandas object)."""
    index = reference_index(X)
    for name, values in inputs.items():
        check_same_index(values, index, name, reference=reference)


def reworded(exc, message):
    """An exception like ``exc`` with ``message`` (context added to its text): of its type
    when that takes a message alone, else a plain ``TypeError``/``ValueError`` (e.g. for a
    ``UnicodeDecodeError`` or ``JSONDecodeError``, whose constructors take more)."""
    try:
        return type(exc)(message)
    except TypeError:
        return (TypeError if isinstance(exc, TypeError) else ValueError)(message)


def check_seed(random_state, name="random_state"):
    """Refuse a seed that numpy cannot use (a ``TypeError`` naming ``name``): an int
    >= 0, a numpy ``Generator`` or ``RandomState``, or None."""
    ok = random_state is None or isinstance(
        random_state, (np.random.Generator, np.random.RandomState)) or (
        isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool)
        and random_state >= 0)
    if not ok:
        raise TypeError(f"{name} must be an int >= 0, a numpy Generator or RandomState, "
                        f"or None; got {random_state!r}")
    return random_state


def _is_dates(dtype):
    """Whether ``dtype`` holds dates or durations (numpy, pandas or Arrow)."""
    if isinstance(dtype, pd.CategoricalDtype):
        return dtype.categories is not None and _is_dates(dtype.categories.dtype)
    if dtype is None:
        return False
    kinds = {getattr(dtype, "kind", None),
             getattr(getattr(dtype, "numpy_dtype", None), "kind", None)}
    return bool(kinds & {"m", "M"})


def float_array(values, name, what="numeric"):
    """``values`` as a float64 array, pandas missing values (``pd.NA``) as NaN.

    The one conversion of numeric inputs that may come as pandas nullable columns
    (``Float64``, ``Int64``, ``boolean``) or object columns holding ``pd.NA``: numpy
    cannot convert ``pd.NA`` to a float, pandas can. Anything that is not numeric is a
    ``TypeError`` that names ``name`` (``"<name> must be <what>"``).

    >>> float_array(pd.Series([0.5, None], dtype="Float64"), "p").tolist()
    [0.5, nan]

    Dates and durations are refused (numpy would read them as nanoseconds).
    """
    dtypes = values.dtypes if isinstance(values, pd.DataFrame) else [
        getattr(values, "dtype", None)]
    dates = next((t for t in dtypes if _is_dates(t)), None)
    if dates is not None:
        raise TypeError(f"{name} must be {what}; got dates or durations (dtype {dates}): "
                        "convert them to numbers first")
    try:
        if isinstance(values, (pd.DataFrame, pd.Series, pd.Index,
                               pd.api.extensions.ExtensionArray)):
            return values.to_numpy(dtype=_FLOAT, na_value=np.nan)
        return np.asarray(values, dtype=_FLOAT)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be {what}") from None


def check_1d(values, name, *, n_samples=None, index=None, reference="X"):
    """A 1-d numpy array of per-case values (the natural dtype; no conversion).

    Parameters
    ----------
    values : array-like, Series or one-column DataFrame
        The input.
    name : str
        Parameter name for messages.
    n_samples : int, default=None
        Required length (``"<name> must have one value per case (n); got m"``).
    index : pandas.Index, default=None
        Index of the reference input (see :func:`check_same_index`).
    reference : str, default="X"
        Name of the reference input, for messages.

    Returns
    -------
    ndarray of shape (n_samples,)
    """
    check_same_index(values, index, name, reference=reference)
    if isinstance(values, pd.DataFrame):
        if values.shape[1] != 1:
            raise ValueError(
                f"{name} must be 1-D; got a DataFrame with {values.shape[1]} columns"
            )
        values = values.iloc[:, 0]
    if isinstance(values, (pd.Series, pd.Index)):
        arr = values.to_numpy()
    else:
        arr = np.asarray(values)
        if arr.ndim == 2 and arr.shape[1] == 1:
            arr = column_or_1d(arr, warn=True)
        elif arr.ndim != 1:
            raise ValueError(f"{name} must be 1-D; got shape {arr.shape}")
    if n_samples is not None and arr.shape[0] != n_samples:
        raise ValueError(
            f"{name} must have one value per case ({n_samples}); got {arr.shape[0]}"
        )
    return arr


def check_sample_weight(sample_weight, n_samples, *, name="sample_weight", index=None,
                        reference="X", positive_sum=False):
    """Validated case frequencies, or None when ``sample_weight`` is None.

    Parameters
    ----------
    sample_weight : array-like of shape (n_samples,), number or None
        The frequencies (a number stands for every case).
    n_samples : int
        Number of cases.
    name : str, default="sample_weight"
        Parameter name for messages.
    index : pandas.Index, default=None
        Index of the reference input (see :func:`check_same_index`).
    reference : str, default="X"
        Name of the reference input, for messages.
    positive_sum : bool, default=False
        Refuse frequencies that sum to zero (fitting needs at least one case).

    Returns
    -------
    ndarray of float64, shape (n_samples,), or None
    """
    if sample_weight is None:
        return None
    check_same_index(sample_weight, index, name, reference=reference)
    if isinstance(sample_weight, bool):
        raise TypeError(f"{name} must be numeric; got {sample_weight!r}")
    if not isinstance(sample_weight, numbers.Number):
        try:
            sample_weight = np.asarray(sample_weight, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must be numeric") from None
        if sample_weight.ndim == 1 and _num_samples(sample_weight) != n_samples:
            raise ValueError(
                f"{name} must have one value per case ({n_samples}); got shape "
                f"{sample_weight.shape}, expected ({n_samples},)"
            )
    try:
        w = _check_sample_weight(sample_weight, np.broadcast_to(0.0, (n_samples,)),
                                 dtype=np.float64, **_ALLOW_ZERO)
    except ValueError as exc:
        msg = str(exc)
        if "NaN" in msg or "infinity" in msg:
            msg = f"{name} must be finite (no NaN or infinity)"
        else:  # a 2-D array
            msg = f"{name} must have one value per case ({n_samples}); {msg}"
        raise ValueError(msg) from None
    if np.any(w < 0):
        raise ValueError(f"{name} must be non-negative (frequencies)")
    if positive_sum and not np.any(w > 0):
        raise ValueError(
            f"Sample weights must contain at least one non-zero number ({name} holds the "
            "case frequencies)"
        )
    _check_weight_total(w, name)
    return w


def has_missing_labels(values):
    """Whether a 1-D array of target labels holds a missing value (NaN, None, NaT, pd.NA).

    Integer and boolean arrays cannot hold one, so they are not scanned; a float array is
    scanned with ``np.isnan``; any other dtype (objects, strings, datetimes) through
    :func:`pandas.isna`, one label at a time. The answer is the same as
    ``pd.isna(pd.Series(values, dtype=object)).any()`` for every dtype, without boxing
    every number of a numeric array into a Python object.

    >>> has_missing_labels(np.array([1, 0, 1])), has_missing_labels(np.array([1.0, np.nan]))
    (False, True)
    >>> has_missing_labels(np.array(["a", None], dtype=object))
    True
    """
    values = np.asarray(values)
    kind = values.dtype.kind
    if kind in "iub":
        return False
    if kind == "f":
        return bool(np.isnan(values).any())
    return bool(pd.isna(pd.Series(values, dtype=object)).any())


def repeated_names(names):
    """The names that occur more than once in ``names``, sorted (a header's, a file's
    columns): one pass, for the "names ... more than once" errors.

    >>> repeated_names(["a", "b", "a", "c", "b"])
    ['a', 'b']
    """
    from collections import Counter

    return sorted(name for name, k in Counter(names).items() if k > 1)


def _missing_label(v):
    """Whether one label is missing (None, NaN, NaT, ``pd.NA``); never for a tuple or array."""
    return pd.api.types.is_scalar(v) and bool(pd.isna(v))


def text_labels(labels, name):
    """Decision labels (decision names, logged actions) as text, the way they are matched.

    Decisions are matched by their text, code point by code point, so ``1`` and ``"1"``
    name one decision. Refused with a ``ValueError`` naming ``name``:

    * a missing label (None, NaN, NaT, ``pd.NA``) or an empty one: a decision needs a
      name (it would become the decision ``"nan"`` or ``"None"``);
    * two labels equal as values but not as text (``1`` and ``1.0``, ``True`` and
      ``1``, ``0.0`` and ``-0.0``): they would silently be two decisions;
    * two texts that are one text in different Unicode forms (``"\u00e9"``, composed,
      and ``"e\u0301"``, decomposed): they print alike but would be two decisions.
      Labels are not normalised (a file, a database and SQL compare code points), so
      each must be written one way.

    Labels that cannot be hashed are only compared as text.

    >>> text_labels([1, "b", 1], "decisions").tolist()
    ['1', 'b', '1']
    >>> text_labels([1, 1.0], "action")
    Traceback (most recent call last):
    ...
    ValueError: action: the labels 1 and 1.0 are equal as values but not as text; ...
    >>> text_labels(["a", None], "decisions")
    Traceback (most recent call last):
    ...
    ValueError: decisions must be non-empty names; got None (label 2 of 2): ...

    Returns
    -------
    ndarray of object, shape (n,)
        ``str`` of every label.
    """
    if isinstance(labels, np.ndarray) and labels.dtype == object and labels.ndim == 1:
        values = labels
    else:
        labels = list(labels)
        values = np.empty(len(labels), dtype=object)
        values[:] = labels
    texts = np.array([str(v) for v in values], dtype=object)
    by_text, text_uniques = pd.factorize(texts)
    blank = [k for k in np.flatnonzero(pd.isna(values)) if _missing_label(values[k])]
    if "" in set(text_uniques):
        blank.append(int(np.argmax(texts == "")))
    if blank:
        k = min(blank)
        raise ValueError(
            f"{name} must be non-empty names; got {values[k]!r} (label {k + 1:,} of "
            f"{len(values):,}): a missing value (NaN, None, NaT or pd.NA) or empty text "
            "names no decision")
    refuse_unicode_forms(text_uniques, name)
    try:
        by_value, _ = pd.factorize(values)  # 1, 1.0, True and np.float64(1) alike
    except TypeError:
        return texts
    keep = by_value >= 0
    pairs = np.unique(by_value[keep].astype(np.int64) * len(text_uniques) + by_text[keep])
    groups = pairs // len(text_uniques) if len(text_uniques) else pairs
    if pairs.size == np.unique(groups).size:
        return texts
    first = groups[np.flatnonzero(groups[1:] == groups[:-1])[0]]
    spelled = [values[int(np.argmax(by_text == t))] for t in pairs[groups == first] %
               len(text_uniques)]
    shown = " and ".join(short_text(repr(v.item() if isinstance(v, np.generic) else v))
                         for v in spelled)
    raise ValueError(
        f"{name}: the labels {shown} are equal as values but not as text; labels are "
        f"matched as text, so these would name {len(spelled)} different decisions: write "
        "each label one way (for instance all as integers, or all as text)")


def refuse_overflowing_sums(values, name):
    """Refuse finite per-case values (one row per case) whose magnitudes, summed over the
    cases, overflow a float in some column: every sum over some of the cases (a leaf's
    total, a policy's value) is then finite. One sum per column; call it once, after
    the NaN values are refused (a NaN makes its column's sum NaN).

    >>> import numpy as np
    >>> refuse_overflowing_sums(np.array([[1.0, -1e308], [2.0, 1e308]]), "costs")
    Traceback (most recent call last):
    ...
    ValueError: costs are too large: their sum over the cases overflows a float (the largest magnitude is 1e+308); rescale them (for instance to thousands)
    """
    values = np.asarray(values)
    if values.size == 0:
        return
    # a bound first, from each column's least and largest values (two passes without a
    # temporary array: about a third of the time of summing magnitudes, which a fit's
    # calling thread would spend at every fit): n times the largest magnitude
    n = values.shape[0]
    with np.errstate(over="ignore", invalid="ignore"):
        bound = np.maximum(np.abs(values.min(axis=0)), np.abs(values.max(axis=0))) * n
    if np.isfinite(bound).all():
        return
    with np.errstate(over="ignore", invalid="ignore"):
        total = np.abs(values).sum(axis=0)
    if not np.isfinite(total).all():
        raise ValueError(
            f"{name} are too large: their sum over the cases overflows a float (the largest "
            f"magnitude is {float(np.abs(values).max()):.3g}); rescale them (for instance "
            "to thousands)")


def shown_labels(labels, most=80):
    """A list of labels as a message shows it, each label's ``repr`` cut to ``most``
    characters (:func:`short_text`).

    >>> print(shown_labels(["a", "x" * 100], 10))
    ['a', 'xxxxxx...]
    """
    return "[" + ", ".join(short_text(repr(v), most) for v in labels) + "]"


def short_text(text, most=80):
    """``text`` cut to ``most`` characters for a message (a label of a free-text column
    passed by mistake must not fill a screen).

    >>> short_text("x" * 100, 10)
    'xxxxxxx...'
    """
    return text if len(text) <= most else text[:most - 3] + "..."


def refuse_unicode_forms(texts, name, what="decisions"):
    """Refuse two of the distinct ``texts`` that are one text in two Unicode forms
    (equal once normalised to NFC): they would be two ``what`` that print alike. ASCII
    texts have one form and are skipped."""
    import unicodedata

    seen = {}
    for t in texts:
        if t.isascii():
            continue
        key = unicodedata.normalize("NFC", t)
        if key in seen and seen[key] != t:
            raise ValueError(
                f"{name}: the labels {short_text(ascii(seen[key]))} and {short_text(ascii(t))} "
                "are the same text in different Unicode forms (composed and decomposed "
                "characters); labels are matched code point by code point, so these would "
                f"name 2 different {what} that print alike: write each label one way "
                "(for instance unicodedata.normalize('NFC', label))")
        seen.setdefault(key, t)


def text_keys(mapping, name):
    """The ``{decision: value}`` dict ``mapping`` keyed by its keys' text (as decisions
    are matched), refusing keys that name one decision twice (``1`` and ``"1"``) and the
    keys :func:`text_labels` refuses; ``name`` is the parameter.

    >>> text_keys({1: 2.0, "b": 3.0}, "capacity")
    {'1': 2.0, 'b': 3.0}
    >>> text_keys({1: 2.0, "1": 3.0}, "capacity")
    Traceback (most recent call last):
    ...
    ValueError: capacity names the decision '1' twice (keys 1 and '1'); ...
    """
    keys = list(mapping)
    texts = text_labels(keys, f"the keys of {name}").tolist()
    dup = repeated_names(texts)
    if dup:
        same = [k for k, t in zip(keys, texts) if t == dup[0]]
        raise ValueError(
            f"{name} names the decision {short_text(repr(dup[0]))} twice (keys "
            f"{' and '.join(short_text(repr(k)) for k in same)}); decisions are matched as text: "
            "give each decision once")
    return dict(zip(texts, mapping.values()))


MAX_CLASSES = 1000
"""Most classes a classifier takes (beyond 100, at least two cases a class too)."""


def check_class_count(n_classes, n_samples, name="y"):
    """Refuse a classification target with more classes than a classifier can mean.

    More than :data:`MAX_CLASSES` classes, or more than 100 classes and more than half as
    many classes as cases, is what a numeric target (an amount, an identifier) given to a
    classifier by mistake looks like: every distinct value becomes a class, and the
    classifier's memory grows with the classes (4,325 classes of an integer amount took
    790 MB in a tree). Call it as soon as the classes are known, before any array sized
    by them is allocated.

    >>> check_class_count(3, 10)
    >>> check_class_count(1001, 10**6)
    Traceback (most recent call last):
    ...
    ValueError: y has 1,001 distinct values (classes) over 1,000,000 cases: ...
    """
    n_classes, n_samples = int(n_classes), int(n_samples)
    if n_classes > MAX_CLASSES or (n_classes > 100 and 2 * n_classes > n_samples):
        raise ValueError(
            f"{name} has {n_classes:,} distinct values (classes) over {n_samples:,} cases: "
            f"too many for a classifier (it takes at most {MAX_CLASSES:,} classes, and more "
            "than 100 only with at least two cases a class), whose memory grows with the "
            "classes. For a numeric target, such as an amount, use ProfitTreeRegressor "
            "(with a DecisionMatrix over intervals of it); for labels, group the rare ones "
            "into fewer classes"
        )


def numeric_cost_column(values, name, *, allow_bool=True):
    """One cost column as float64 (NaN where missing); the one rule for case costs.

    Numbers are kept as they are (booleans too unless ``allow_bool=False``); text and
    nullable or object columns go through :func:`pandas.to_numeric`. Anything else is a
    ``TypeError`` naming the column.
    """
    arr = np.asarray(values)
    if arr.dtype.kind in ("fiub" if allow_bool else "fiu"):
        return arr.astype(_FLOAT, copy=False)
    try:
        num = pd.to_numeric(pd.Series(arr), errors="raise")
    except (TypeError, ValueError):
        num = None
    if num is None or (not allow_bool and num.dtype == bool):
        raise TypeError(f"costs column {name!r} must be numeric; got dtype {arr.dtype}")
    return num.to_numpy(dtype=_FLOAT, na_value=np.nan)


def take_rows(data, rows):
    """Rows ``rows`` (positions) of a table, a Series or an array-like; None stays None.

    Examples
    --------
    >>> import pandas as pd
    >>> take_rows(pd.Series([5, 6, 7], index=[10, 11, 12]), [2, 0]).tolist()
    [7, 5]
    >>> take_rows([[1, 2], [3, 4]], [1]).tolist()
    [[3, 4]]
    """
    if data is None:
        return None
    if isinstance(data, (pd.DataFrame, pd.Series)):
        return data.iloc[rows]
    return np.asarray(data)[rows]


def refuse_bool_numbers(estimator):
    """Refuse ``True``/``False`` given for a hyper-parameter that takes numbers.

    scikit-learn's parameter constraints let a bool pass for an int (``bool`` is an
    ``Integral``), so ``max_depth=True`` would grow a tree of depth 1 and
    ``posterior_smoothing=True`` smooth with one case. A parameter whose constraints take
    a number but not ``"boolean"`` is refused with scikit-learn's own
    ``InvalidParameterError`` message; run it after ``_validate_params`` (in ``fit``).
    """
    from sklearn.utils._param_validation import (
        InvalidParameterError,
        make_constraint,
    )

    for name, constraints in estimator._parameter_constraints.items():
        value = getattr(estimator, name, None)
        if not isinstance(value, (bool, np.bool_)) or "boolean" in constraints:
            continue
        made = [make_constraint(c) for c in constraints]
        if not any(c.is_satisfied_by(1) for c in made):
            continue  # no number is accepted: the constraints have refused the bool
        shown = [str(c) for c in made if not getattr(c, "hidden", False)]
        expected = shown[0] if len(shown) == 1 else (
            f"{', '.join(shown[:-1])} or {shown[-1]}")
        raise InvalidParameterError(
            f"The {name!r} parameter of {type(estimator).__name__} must be {expected}. "
            f"Got {value!r} instead (a bool is not a number)."
        )


def check_interval_target(y, name="y", *, estimator="ProfitTreeRegressor"):
    """An interval target as finite float64 numbers (the regression trees' ``y``).

    Numbers, booleans and objects that are numbers are read as float64; dates,
    durations, text and complex numbers are refused naming ``name``, as are NaN and
    infinite values. A float64 array is returned as it is (no copy).
    """
    y = np.asarray(y)
    if y.dtype.kind in "mMc":
        raise ValueError(
            f"{name} must be numeric for {estimator} (an interval target); got dtype "
            f"{y.dtype}: convert it to numbers first"
        )
    try:
        t = np.asarray(y, dtype=_FLOAT)
    except (TypeError, ValueError):
        values = pd.Series(np.asarray(y, dtype=object).reshape(-1))
        bad = values[pd.to_numeric(values, errors="coerce").isna() & values.notna()]
        raise ValueError(
            f"{name} must be numeric for {estimator} (an interval target); got values "
            f"such as {bad.iloc[:1].tolist()}"
        ) from None
    if not np.all(np.isfinite(t)):
        raise ValueError(f"{name} contains NaN or infinity; the target must be finite")
    return t


def model_classes(model, fit_codes, name, what="level codes"):
    """The integer codes of a fitted classifier's ``predict_proba`` columns: its
    ``classes_``, which must be the codes ``fit_codes`` it was fitted on (a model that
    relabels them, or has no ``classes_``, is refused naming ``name``)."""
    classes = getattr(model, "classes_", None)
    if classes is None:
        raise TypeError(f"{name} has no classes_ after fit; it must be a scikit-learn "
                        "classifier (fit sets classes_, the labels of the predict_proba "
                        "columns)")
    classes = np.asarray(classes).reshape(-1)
    expected = np.unique(np.asarray(fit_codes))
    try:
        codes = classes.astype(np.float64)
    except (TypeError, ValueError):
        codes = None
    if codes is None or codes.shape != expected.shape or not np.array_equal(codes, expected):
        raise ValueError(f"{name}: classes_ is {classes.tolist()!r}; fitted on the {what} "
                         f"{expected.tolist()!r}, it must give them as its classes_ (the "
                         "labels of its predict_proba columns)")
    return expected.astype(np.intp)


def not_probability_rows(p):
    """Mask of the rows of ``p`` (cases x classes) that are not probabilities: a value
    outside [0, 1] (or not finite), or a sum other than 1 within 1e-4 (float32 models
    pass)."""
    bad = ~(np.isfinite(p) & (p >= 0) & (p <= 1)).all(axis=1)
    bad |= np.abs(np.where(np.isfinite(p), p, 0).sum(axis=1) - 1) > 1e-4
    return bad


def model_proba(proba, n_rows, n_classes, name):
    """A fitted classifier's ``predict_proba`` output for ``n_rows`` cases as floats,
    refused naming ``name`` unless it has one column per class and every row holds
    probabilities (in [0, 1], summing to 1 within 1e-4: float32 models pass)."""
    try:
        proba = np.asarray(proba, dtype=_FLOAT)
    except (TypeError, ValueError):
        raise TypeError(f"{name}.predict_proba must give numbers; got "
                        f"{type(proba).__name__}") from None
    if proba.shape != (n_rows, n_classes):
        raise ValueError(f"{name}.predict_proba gave shape {proba.shape} for {n_rows} cases; "
                         f"expected ({n_rows}, {n_classes}): one row per case, one column per "
                         "class of classes_")
    bad = not_probability_rows(proba)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"{name}.predict_proba must give probabilities (in [0, 1], summing "
                         f"to 1 in every row); a row holds {proba[i].tolist()}"
                         + (f" ({int(bad.sum())} such rows)" if bad.sum() > 1 else ""))
    return proba
