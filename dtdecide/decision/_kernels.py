"""Array kernels of the decision engine.

Pure numpy functions with no pandas inside: the tree, the charts and the models call
them on their own arrays. Everything is in profit orientation (higher is better).
"""

import unicodedata

import numpy as np
import pandas as pd

try:  # one hash lookup per value; the public Index.get_indexer also infers the values
    from pandas._libs.hashtable import PyObjectHashTable as _PyObjectHashTable
except ImportError:  # pragma: no cover - a pandas without it takes the public path
    _PyObjectHashTable = None

from .._dtypes import FLOAT_DTYPE as _FLOAT
from .._dtypes import code_dtype
from .._jit import use_compiled

__all__ = [
    "adjust_posteriors",
    "check_posterior_rows",
    "decide_arrays",
    "encode_target",
    "interpolate_knots",
    "prior_adjustment_weights",
    "roi",
]


def decide_arrays(A):
    """Pick the best decision of every case from its expected profits.

    Parameters
    ----------
    A : array-like of shape (n_samples, n_decisions)
        Expected profit ``A(i, d)`` of each decision for each case (profit orientation).

    Returns
    -------
    D_idx : ndarray of shape (n_samples,), dtype intp
        Index of the chosen decision. Ties go to the first decision (lowest index).
        Rows that contain NaN get ``-1``.
    E : ndarray of shape (n_samples,)
        ``A(i, D(i))``, NaN for rows that contain NaN.

    Examples
    --------
    >>> from dtdecide.decision import decide_arrays
    >>> D_idx, E = decide_arrays([[1.0, 3.0, 3.0], [2.0, 0.0, 2.0]])
    >>> D_idx.tolist(), E.tolist()
    ([1, 0], [3.0, 2.0])
    """
    A = np.asarray(A, dtype=_FLOAT)
    if A.ndim != 2 or A.shape[1] == 0:
        raise ValueError(f"A must be 2-D with at least one column; got shape {A.shape}")
    # a cheap global test first: the per-row test is only needed when NaN occur
    bad = np.isnan(A).any(axis=1) if np.isnan(A.sum()) else None
    if bad is not None:
        A = np.where(bad[:, None], 0.0, A)
    D_idx = np.argmax(A, axis=1).astype(np.intp)  # argmax returns the first maximum
    E = np.take_along_axis(A, D_idx[:, None], axis=1)[:, 0]
    if bad is not None:
        D_idx[bad] = -1
        E[bad] = np.nan
    return D_idx, E


def _check_knots(knots, name="knots"):
    try:
        knots = np.asarray(knots, dtype=_FLOAT)
    except (TypeError, ValueError):
        shown = list(knots) if np.iterable(knots) and not isinstance(knots, str) else knots
        raise TypeError(f"{name} must be numbers (the target values of an interval matrix); "
                        f"got {shown!r}") from None
    if knots.ndim != 1 or knots.size < 2:
        raise ValueError(f"{name} must be 1-D with at least two values; got shape {knots.shape}")
    if not np.all(np.isfinite(knots)):
        raise ValueError(f"{name} must be finite; got {knots.tolist()}")
    if np.any(np.diff(knots) <= 0):
        raise ValueError(
            f"{name} must be sorted ascending and distinct; got {knots.tolist()}"
        )
    return knots


def _segments(knots, x):
    """Left knot index of the segment used for each x, and the position in it."""
    k = len(knots)
    seg = np.searchsorted(knots, x, side="right") - 1
    np.clip(seg, 0, k - 2, out=seg)
    left = knots[seg]
    w = (x - left) / (knots[seg + 1] - left)
    return seg, w


def interpolate_knots(knots, values, x):
    """Piecewise-linear interpolation over knots with linear extrapolation.

    Parameters
    ----------
    knots : array-like of shape (n_knots,)
        Sorted ascending, distinct, at least two.
    values : array-like of shape (n_knots,) or (n_knots, n_columns)
        Values at the knots (for instance one column per decision).
    x : array-like of shape (n_samples,)
        Where to evaluate. Outside ``[knots[0], knots[-1]]`` the line through the two
        end knots on that side is extended.

    Returns
    -------
    ndarray of shape (n_samples,) or (n_samples, n_columns)
        The interpolated values at ``x`` (one column per column of ``values``).

    Examples
    --------
    >>> from dtdecide.decision import interpolate_knots
    >>> interpolate_knots([0.0, 10.0, 20.0], [0.0, 100.0, 120.0], [5.0, -10.0, 30.0])
    array([  50., -100.,  140.])
    """
    knots = _check_knots(knots)
    values = np.asarray(values, dtype=_FLOAT)
    if values.shape[0] != knots.size or values.ndim not in (1, 2):
        raise ValueError(
            f"values must have shape (n_knots,) or (n_knots, n_columns) with "
            f"n_knots={knots.size}; got {values.shape}"
        )
    x = np.asarray(x, dtype=_FLOAT).reshape(-1)
    seg, w = _segments(knots, x)
    if values.ndim == 2:
        w = w[:, None]
    return values[seg] * (1.0 - w) + values[seg + 1] * w


def _interpolate_cases(knots, Q, x):
    """Per-case interpolation: ``Q`` has shape (n, n_knots, D), ``x`` shape (n,)."""
    seg, w = _segments(knots, x)
    rows = np.arange(len(x))
    w = w[:, None]
    return Q[rows, seg] * (1.0 - w) + Q[rows, seg + 1] * w


def roi(C, IC):
    """Return on investment with the four cases of the design notes.

    ``C / IC`` when ``IC > 0``; otherwise ``+inf`` if ``C > 0``, NaN if ``C == 0`` and
    ``-inf`` if ``C < 0``. NaN in ``C`` or ``IC`` gives NaN.

    Parameters
    ----------
    C : array-like
        Computed profit per case.
    IC : array-like
        Investment cost per case, broadcastable against ``C``.

    Returns
    -------
    ndarray of float
        ``C / IC`` per case (the broadcast shape of ``C`` and ``IC``), with the
        infinite and NaN cases above.

    Examples
    --------
    >>> from dtdecide.decision import roi
    >>> roi([10.0, 5.0, 0.0, -3.0], [5.0, 0.0, 0.0, 0.0]).tolist()
    [2.0, inf, nan, -inf]
    """
    C = np.asarray(C, dtype=_FLOAT)
    IC = np.asarray(IC, dtype=_FLOAT)
    C, IC = np.broadcast_arrays(C, IC)
    out = np.full(C.shape, np.nan)
    positive = IC > 0  # NaN compares False
    np.divide(C, IC, out=out, where=positive)  # NaN C stays NaN
    not_positive = IC <= 0
    out[not_positive & (C > 0)] = np.inf
    out[not_positive & (C < 0)] = -np.inf
    return out


def _check_priors(priors, n_levels, name="priors", levels=None):
    """Validate a prior vector and rescale it to sum to one.

    A dict or Series is matched to ``levels`` by label, never taken in its own order;
    without ``levels`` (where they are not known) it is refused.
    """
    if isinstance(priors, (dict, pd.Series)):
        if levels is None:
            raise TypeError(f"{name} must be an array in level order here (the labels of a "
                            f"{type(priors).__name__} cannot be matched); got {priors!r}")
        given = dict(priors.items())
        labels = [v.item() if isinstance(v, np.generic) else v for v in levels]
        if [k for k in given if k not in labels] or [v for v in labels if v not in given]:
            raise ValueError(f"{name} must give one value per level {labels!r}; got labels "
                             f"{list(given)!r}")
        priors = [given[v] for v in labels]
    try:
        p = np.asarray(priors, dtype=_FLOAT)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be numeric; got {priors!r}") from None
    if p.ndim != 1 or p.size != n_levels:
        raise ValueError(f"{name} must have one value per level ({n_levels}); got shape {p.shape}")
    if not np.all(np.isfinite(p)):
        raise ValueError(f"{name} must be finite; got {p.tolist()}")
    if np.any(p < 0):
        raise ValueError(f"{name} must be non-negative; got {p.tolist()}")
    if not np.any(p > 0):
        raise ValueError(f"{name} must have at least one positive value; got {p.tolist()}")
    return normalise_sum(p)


def _check_weight_total(w, name):
    """Refuse frequencies whose total overflows (every weighted total would be inf)."""
    with np.errstate(over="ignore"):
        total = np.sum(w)
    if not np.isfinite(total):
        raise ValueError(
            f"{name} must have a finite total; the frequencies sum past the largest float "
            f"(largest value {float(np.max(w))!r}): rescale them"
        )


def normalise_sum(p):
    """``p / p.sum()`` for a finite non-negative vector with a positive value, also when
    the sum overflows (values near the largest float) or underflows (subnormal values):
    the vector is then first scaled by its largest value."""
    p = np.asarray(p, dtype=_FLOAT)
    with np.errstate(over="ignore"):
        total = p.sum()
    if not np.isfinite(total) or total < np.finfo(_FLOAT).tiny:
        p = p / p.max()
        total = p.sum()
    return p / total


def adjust_posteriors(post, priors, train_priors):
    """Adjust posteriors from training class proportions to operational priors.

    ``Post'(i,t) = Post(i,t) pi(t)/rho(t) / sum_s Post(i,s) pi(s)/rho(s)`` where
    ``pi`` are the priors and ``rho`` the proportions the model was trained on.

    Parameters
    ----------
    post : array-like of shape (n_samples, n_levels)
        Posterior probabilities, columns in level order: non-negative, each row
        summing to one.
    priors : array-like of shape (n_levels,)
        Operational priors ``pi`` (non-negative, at least one positive; rescaled).
    train_priors : array-like of shape (n_levels,)
        Training proportions ``rho``; must be positive wherever ``priors`` is.

    Returns
    -------
    ndarray of shape (n_samples, n_levels)
        Adjusted posteriors; each row sums to one.

    Raises
    ------
    ValueError
        When ``post`` holds NaN, a negative value or a row that does not sum to one,
        or when a row gives zero probability to every level with a positive prior
        (the adjusted row would be undefined).

    Examples
    --------
    >>> from dtdecide.decision import adjust_posteriors
    >>> adjust_posteriors([[0.5, 0.5]], priors=[0.1, 0.9], train_priors=[0.5, 0.5])
    array([[0.1, 0.9]])
    """
    levels = list(post.columns) if isinstance(post, pd.DataFrame) else None
    try:
        if isinstance(post, (pd.DataFrame, pd.Series)):
            post = post.to_numpy(dtype=_FLOAT, na_value=np.nan)
        post = np.asarray(post, dtype=_FLOAT)
    except (TypeError, ValueError):
        raise TypeError("post must be numeric posteriors") from None
    if post.ndim != 2:
        raise ValueError(f"post must be 2-D (n_samples, n_levels); got shape {post.shape}")
    check_posterior_rows(post, name="post")
    n_levels = post.shape[1]  # priors by label: matched to the columns of a frame
    return _adjust_posteriors(post, _check_priors(priors, n_levels, "priors", levels),
                              _check_priors(train_priors, n_levels, "train_priors", levels))


def check_posterior_rows(post, offset=0, *, name, tol=1e-6):
    """Refuse posteriors (a 2-D float array) with NaN, negative values or rows that do
    not sum to one within ``tol``; the message names ``name`` and the first bad row
    (counted from ``offset``)."""
    if np.isnan(post).any():
        row = offset + int(np.flatnonzero(np.isnan(post).any(axis=1))[0])
        raise ValueError(f"{name} must not contain NaN; first at row {row}")
    if (post < 0).any():
        row = offset + int(np.flatnonzero((post < 0).any(axis=1))[0])
        raise ValueError(f"{name} must be non-negative; row {row} has a negative posterior")
    s = np.dot(post, np.ones(post.shape[1]))
    bad = np.abs(s - 1.0) > tol
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{name} rows must sum to 1 (tolerance {tol}); row {offset + row} sums to "
            f"{float(s[row])!r}"
        )


def _adjust_posteriors(post, priors, train_priors):
    """:func:`adjust_posteriors` of checked posteriors (a 2-D float array)."""
    n_levels = post.shape[1]
    pi = _check_priors(priors, n_levels, "priors")
    rho = _check_priors(train_priors, n_levels, "train_priors")
    if np.any((pi > 0) & (rho == 0)):
        raise ValueError(
            "train_priors must be positive for every level with a positive prior; "
            f"got train_priors={rho.tolist()} and priors={pi.tolist()}"
        )
    ratio = np.divide(pi, rho, out=np.zeros_like(pi), where=rho > 0)
    out = post * ratio
    total = out.sum(axis=1, keepdims=True)
    if np.any(total <= 0):
        n_bad = int(np.count_nonzero(total <= 0))
        raise ValueError(
            f"post gives zero probability to every level with a positive prior in {n_bad} "
            "row(s); the prior-adjusted posteriors are undefined"
        )
    return out / total


def prior_adjustment_weights(t_idx, sample_weight, priors, n_levels):
    """Per-case prior adjustment weights ``Paw(T(i))``.

    ``Paw(t) = Prior(t) / (sum_{i in class t} F(i)) * sum_i F(i)``.

    Parameters
    ----------
    t_idx : array-like of shape (n_samples,)
        Integer level code of each case's target.
    sample_weight : array-like of shape (n_samples,) or None
        Frequencies ``F(i)``; None means all ones.
    priors : array-like of shape (n_levels,) or None
        Explicit priors (rescaled to sum to one). None gives weights of one.
    n_levels : int
        Number of target levels.

    Returns
    -------
    ndarray of shape (n_samples,) or None
        ``Paw(T(i))`` for every case, or None when a level with a positive prior has
        zero total frequency (the adjusted summaries are then missing).

    Examples
    --------
    >>> from dtdecide.decision import prior_adjustment_weights
    >>> prior_adjustment_weights([0, 0, 0, 1], None, [0.5, 0.5], 2).round(4).tolist()
    [0.6667, 0.6667, 0.6667, 2.0]
    >>> prior_adjustment_weights([0, 0], None, [0.5, 0.5], 2) is None
    True
    """
    t_idx = np.asarray(t_idx, dtype=np.intp).reshape(-1)
    if t_idx.size and (t_idx.min() < 0 or t_idx.max() >= n_levels):
        raise ValueError(f"t_idx must hold codes in [0, {n_levels}); got values outside")
    F = np.ones(t_idx.size) if sample_weight is None else np.asarray(sample_weight, _FLOAT)
    if F.shape != t_idx.shape:
        raise ValueError(
            f"sample_weight must have shape {t_idx.shape}; got {np.shape(sample_weight)}"
        )
    if priors is None:
        return np.ones(t_idx.size)
    pi = _check_priors(priors, n_levels)
    class_freq = np.bincount(t_idx, weights=F, minlength=n_levels)
    if np.any((pi > 0) & (class_freq <= 0)):
        return None
    total = F.sum()
    paw = np.divide(pi * total, class_freq, out=np.zeros_like(pi), where=class_freq > 0)
    return paw[t_idx]


def encode_target(y, levels):
    """Integer codes of the target values in ``levels``.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        Target values.
    levels : array-like of shape (n_levels,)
        The target levels (rows of the decision matrix).

    Returns
    -------
    ndarray of shape (n_samples,), dtype intp
        The position of each value of ``y`` in ``levels``.

    Raises
    ------
    ValueError
        Naming ``y`` and the unknown values when some are not in ``levels``.

    Notes
    -----
    A pandas categorical ``y`` is encoded through its category codes (each category
    looked up once). With string levels, a numpy string array is encoded by binary
    search on the sorted levels and an object array by one hash lookup per value.

    Examples
    --------
    >>> from dtdecide.decision import encode_target
    >>> encode_target(["b", "a", "b"], ["a", "b", "c"]).tolist()
    [1, 0, 1]
    """
    return _target_codes(y, levels).astype(np.intp, copy=False)


#: Most levels looked up by one comparison each (integer targets: a binary target, a few
#: ordinal grades); more go through pandas' hash table.
_FEW_LEVELS = 8


def _few_integer_levels(level_list, dtype):
    """The levels as Python ints when integer values of ``dtype`` are looked up in a
    few distinct integer levels that the dtype can hold, else None."""
    if dtype.kind not in "iu" or not 0 < len(level_list) <= _FEW_LEVELS:
        return None
    info = np.iinfo(dtype)
    ints = []
    for level in level_list:
        if isinstance(level, (bool, np.bool_)) or not isinstance(level, (int, np.integer)):
            return None
        level = int(level)
        if not info.min <= level <= info.max:
            return None
        ints.append(level)
    return ints if len(set(ints)) == len(ints) else None


class _LevelLookup:
    """Position of values in ``levels`` (-1 where absent), prepared once per call.

    The common inputs take vectorised paths that give the same codes as the general
    one: integer values among a few integer levels by one comparison per level (int8
    codes), string levels looked up in a numpy unicode array by binary search on the
    sorted levels, and string levels looked up in an object array by one hash lookup
    per value (no inference over the values). Called on the whole array or on chunks.
    """

    def __init__(self, levels, dtype):
        level_list = list(levels)
        str_levels = (
            len(level_list) > 0
            and all(type(lv) is str and not lv.endswith("\x00") for lv in level_list)
            and len(set(level_list)) == len(level_list)
        )
        ints = _few_integer_levels(level_list, dtype)
        if ints is not None:
            self._ints = ints
            self._mode = "ints"
            # consecutive levels in increasing or decreasing order within int8 (0/1
            # targets): the codes from the values themselves, after a range check
            lo, hi = min(ints), max(ints)
            self._run = None
            if hi - lo + 1 == len(ints) and -128 <= lo and hi <= 127:
                if ints == list(range(lo, hi + 1)):
                    self._run = (lo, hi, 1)
                elif ints == list(range(hi, lo - 1, -1)):
                    self._run = (lo, hi, -1)
        elif str_levels and dtype.kind == "U":
            lv = np.asarray(level_list, dtype=str)
            self._order = np.argsort(lv, kind="stable")
            self._sorted = lv[self._order]
            self._mode = "sorted"
        elif str_levels and dtype.kind == "O" and _PyObjectHashTable is not None:
            self._table = _PyObjectHashTable(len(level_list))
            self._table.map_locations(np.asarray(level_list, dtype=object))
            self._mode = "hash"
        else:
            index = pd.Index(level_list)
            if not (index.dtype.kind in "iufb" and dtype.kind in "iufb"):
                # object comparison is much faster than pandas' inferred string dtype
                index = pd.Index(level_list, dtype=object)
            self._index = index
            self._mode = "index"

    def __call__(self, values):
        return self.checked(values)[0]

    def checked(self, values):
        """``(codes, all_levels)``: the codes of ``values`` (-1 where a value is no
        level) and whether every value is known to be a level already (the range
        check of consecutive integer levels), so that no pass looks for a -1."""
        if self._mode == "ints":
            if self._run is not None and values.size:
                lo, hi, step = self._run
                if (values.ndim == 1 and values.dtype.kind == "i"
                        and values.flags.c_contiguous and use_compiled(values.shape[0])):
                    # one compiled pass: the range check and the codes together (the
                    # NumPy steps below read the values three times)
                    from . import _compiled

                    codes = np.empty(values.shape, dtype=np.int8)
                    if _compiled.run_codes_on_threads(values, lo, hi, step == 1, codes):
                        return codes, True
                elif lo <= values.min() and values.max() <= hi:
                    codes = values.astype(np.int8)  # exact: every value in [lo, hi]
                    if step == 1:
                        if lo:
                            codes -= np.int8(lo)
                    else:
                        np.subtract(np.int8(hi), codes, out=codes)
                    return codes, True
            # one comparison per level, in the values' own dtype (levels are unique, so
            # at most one matches): int8 codes, -1 where none does
            codes = np.full(np.shape(values), -1, dtype=np.int8)
            for c, level in enumerate(self._ints):
                match = np.equal(values, values.dtype.type(level)).view(np.int8)
                codes += match if c == 0 else match * np.int8(c + 1)
            return codes, False
        if self._mode == "sorted":
            pos = np.searchsorted(self._sorted, values)
            np.minimum(pos, len(self._sorted) - 1, out=pos)
            return np.where(self._sorted[pos] == values, self._order[pos], -1), False
        if self._mode == "hash":
            return np.asarray(self._table.lookup(np.ascontiguousarray(values))), False
        if self._index.dtype.kind == "O":
            return self._index.get_indexer(pd.Index(values, dtype=object)), False
        return self._index.get_indexer(values), False


class _TargetEncoder:
    """Integer level codes of a categorical target, for all cases or a range of them.

    A pandas categorical target is encoded through its category codes (its categories
    are looked up once); other targets through :class:`_LevelLookup`. Values that are
    not levels raise the ``ValueError`` of :func:`encode_target`, naming all of them.
    """

    def __init__(self, y, levels):
        self.levels = levels
        if isinstance(getattr(y, "dtype", None), pd.CategoricalDtype) and np.ndim(y) == 1:
            cat = y.array if isinstance(y, (pd.Series, pd.Index)) else pd.Categorical(y)
            cat_map = _LevelLookup(levels, np.dtype(object))(
                np.asarray(cat.categories, dtype=object)
            )
            self._cat_map = np.append(cat_map, -1).astype(code_dtype(len(levels)))  # code -1 (missing) -> -1
            self._cat = cat
            self.values = None
            self.n_samples = len(cat)
            return
        values = y if isinstance(y, np.ndarray) else np.asarray(y, dtype=object)
        if values.ndim == 2 and values.shape[1] == 1:
            values = values[:, 0]
        if values.ndim != 1:
            raise ValueError(f"y must be 1-D; got shape {np.shape(y)}")
        self._cat = None
        self.values = values
        self.n_samples = values.shape[0]
        self._lookup = _LevelLookup(levels, values.dtype)

    def codes(self, start=0, stop=None):
        """Codes of cases ``start:stop``: int8 for a categorical target with fewer than
        127 levels, else intp."""
        all_levels = False
        if self._cat is not None:
            codes = np.take(self._cat_map, self._cat.codes[start:stop])
        else:
            codes, all_levels = self._lookup.checked(self.values[start:stop])
        if not all_levels and codes.size and codes.min() < 0:
            values = self.values if self._cat is None else np.asarray(self._cat, dtype=object)
            _raise_unknown(values, self.codes_unchecked(), self.levels)
        return codes

    def codes_unchecked(self):
        if self._cat is not None:
            return np.take(self._cat_map, self._cat.codes)
        return self._lookup(self.values)


def _target_codes(y, levels):
    """:func:`encode_target` without the final cast to intp."""
    return _TargetEncoder(y, levels).codes()


def _raise_unknown(values, codes, levels):
    def plain(v):  # 1, not np.int64(1)
        return v.item() if isinstance(v, np.generic) else v

    unknown = [plain(u) for u in pd.unique(pd.Series(values[codes < 0], dtype=object))]
    levels = [plain(lv) for lv in levels]
    shown = ", ".join(r if len(r) <= 80 else r[:77] + "..." for r in map(repr, unknown[:5]))
    more = "" if len(unknown) <= 5 else f" and {len(unknown) - 5} more"
    texts = {str(lv) for lv in levels}
    hint = ""
    if all(str(u) in texts for u in unknown):  # '1' for the level 1, True for 'True'
        hint = ("; they match levels as text but not in type: convert y to the type of "
                "the levels")
    elif any(isinstance(u, str) and not u.isascii() and unicodedata.normalize("NFC", u) in
             {unicodedata.normalize("NFC", t) for t in texts} for u in unknown):
        hint = ("; some are levels written in another Unicode form (composed and "
                "decomposed characters print alike): normalise y and the levels alike, "
                "for instance with unicodedata.normalize('NFC', ...)")
    raise ValueError(
        f"y contains values that are not levels of the decision matrix: {shown}{more}; "
        f"expected one of {levels!r}{hint}"
    )
