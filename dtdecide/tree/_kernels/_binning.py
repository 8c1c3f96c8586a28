"""Binning of encoded inputs into small integers (:class:`Binner`).

Layer 1 (kernels) of :mod:`dtdecide.tree` (``_kernels``); see the architecture page.

Numeric features are cut into at most ``max_bins`` bins; categorical features get one bin
per category code. Every feature has one dedicated *missing* bin, the same index for all
features: ``missing_bin_idx_ == max(n_bins_)``. The binned matrix is ``uint8`` when
``missing_bin_idx_ <= 255`` and ``uint16`` otherwise (up to 65,535 non-missing bins, i.e.
categorical features with at most 65,535 categories; more raise a clear error).

Numeric bin edges (``bin_thresholds_[j]``, increasing, the last one ``+inf``): a value ``v``
goes in the first bin whose edge is ``>= v``, so that ``v <= bin_thresholds_[j][b]`` holds
exactly when ``bin(v) <= b``. A tree split "bins ``<= b`` go left" therefore becomes the raw
rule ``x <= bin_thresholds_[j][b]`` with no loss. Edges are always midpoints between two
consecutive distinct observed values:

* fewer distinct values than ``max_bins``: every midpoint, one bin per distinct value (the
  thresholds a split search on sorted raw values would consider);
* otherwise: the midpoints that follow the weighted quantiles ``k / max_bins``,
  ``k = 1 .. max_bins - 1``, of the (sub-sampled) values, duplicates removed.

Categorical features: bin ``b`` is category code ``b``; codes that are negative,
non-integer, NaN or beyond the largest code seen in :meth:`Binner.fit` go to the missing
bin, exactly as :meth:`TreeStructure.apply <dtdecide.tree._structure._tree.TreeStructure.apply>`
sends them to the ``missing_left`` side. Memory note: the grower's histograms give each
feature its own ``n_bins_[j] + 1`` cells (:class:`~dtdecide.tree._kernels._histogram.BinLayout`),
so a node histogram has ``sum(n_bins_ + 1) * n_classes`` cells (4 or 8 bytes each): a
categorical feature with ``k`` categories costs ``k + 1`` cells, not ``k + 1`` per feature.
The shared missing code of the binned matrix is remapped while histogramming.
"""

import numbers
import threading

import numpy as np

from ..._dtypes import X_BINNED_DTYPE_LARGE, X_BINNED_DTYPE_SMALL
from ..._jit import use_compiled
from ...decision._validation import check_sample_weight
from ._parallel import MAX_ROW_CHUNKS, MIN_CHUNK_ROWS, feature_groups, feature_row_plan

# a wide frame on many threads: columns' rows shared out in at most MAX_ROW_CHUNKS ranges
# of at least MIN_CHUNK_ROWS rows (binning's cells are written once each: any split
# gives the same bins)

__all__ = ["Binner", "EarlyDraw", "InfiniteValuesError", "check_float_matrix",
           "seeded_subsample_rows", "subsample_rows"]

_MAX_BINS_LARGE = np.iinfo(X_BINNED_DTYPE_LARGE).max  # 65535 (the missing bin fits too)


# Rows binned per block in transform: each vectorised step then runs in cache.
_BLOCK = 1 << 13
# Cells of the lookup grid that accelerates numeric binning (see _make_grid).
_GRID_CELLS = 1 << 14
# Bytes of a row-major matrix binned per block of rows by the compiled kernel.
_C_BLOCK_BYTES = 1 << 18


def _make_grid(edges):
    """Lookup grid for fast binning of one numeric feature, or None.

    The range between the second and the second-to-last finite edge is cut into
    ``_GRID_CELLS`` equal cells; ``table[c + 1]`` is the bin of the left boundary of cell
    ``c``. A value's bin is read from its cell, then checked against the two edges around
    it; the few values where the check fails (an edge inside the cell, the tails, float
    rounding) are binned by binary search. The result is always identical to
    ``np.searchsorted(edges, v, side="left")``.
    """
    e = edges[:-1]
    if e.size < 8:
        return None
    lo, hi = e[1], e[-2]
    if not hi > lo:
        return None
    with np.errstate(over="ignore"):  # edges near the float limits: no grid
        scale = _GRID_CELLS / (hi - lo)
    if not np.isfinite(scale):
        return None
    table = np.empty(_GRID_CELLS + 2, dtype=np.intp)
    table[0] = 0
    table[1:] = np.searchsorted(e, lo + np.arange(_GRID_CELLS + 1) / scale, side="left")
    padded = np.concatenate([[-np.inf], e, [np.inf]])  # padded[b] = e[b - 1]
    return lo, scale, table, padded


def _bin_numeric(v, edges, grid):
    """``searchsorted(edges, v, side="left")`` of a block of values (NaN -> 0), or None.

    Returns None when the grid misses too often for this block (more than a quarter of
    the values); the caller then switches the feature to plain binary search.
    """
    lo, scale, table, padded = grid
    with np.errstate(over="ignore", invalid="ignore"):
        # values near the float limits overflow to +-inf: clamped below, and binned by
        # the binary search when the check misses
        c = v - lo
        c *= scale
    c += 1.0  # table[0] is "below the grid"
    np.fmax(c, 0.0, out=c)  # fmax/fmin map NaN to the bound
    np.fmin(c, _GRID_CELLS + 1, out=c)
    b = table.take(c.astype(np.intp))
    bad = padded[1:].take(b) < v  # the edge of bin b is below v: bin too small
    bad |= padded[:-1].take(b) >= v  # the edge of bin b - 1 is not below v: too large
    idx = np.flatnonzero(bad)
    if idx.size > v.shape[0] // 4 + 8:
        return None
    if idx.size:
        b[idx] = np.searchsorted(edges, v[idx], side="left")
    return b


def _column(X, j):
    """Column ``j`` of a matrix or a column source, as float64 or float32 (1-D)."""
    col = X[:, j] if isinstance(X, np.ndarray) else np.asarray(X.column(j))
    if col.dtype != np.float64 and col.dtype != np.float32:
        col = col.astype(np.float64)
    return col


def _column_matrix(X, j):
    """A read-only view of the shape of ``X`` whose every column is column ``j`` (no
    copy: the columns' stride is 0), for the matrix code to read one column of a
    column source."""
    return np.broadcast_to(_column(X, j)[:, None], X.shape)


def _infinite_columns(X):
    """Columns holding +-inf, checked row block by row block (cache friendly)."""
    if not isinstance(X, np.ndarray):
        return np.array([bool(np.isinf(_column(X, j)).any()) for j in range(X.shape[1])],
                        dtype=bool)
    found = np.zeros(X.shape[1], dtype=bool)
    for start in range(0, X.shape[0], _BLOCK):
        found |= np.isinf(X[start : start + _BLOCK]).any(axis=0)
    return found


class InfiniteValuesError(ValueError):
    """A numeric column of the matrix being binned holds +-inf (``column``: its index).

    A ``ValueError``; the estimators re-raise it naming the input column.

    Examples
    --------
    >>> from dtdecide.tree._kernels._binning import InfiniteValuesError
    >>> InfiniteValuesError(2).column
    2
    """

    def __init__(self, column):
        self.column = int(column)
        super().__init__(
            f"X_encoded column {self.column} contains infinite values; use NaN for missing")


class TooManyCategoriesError(ValueError):
    """A categorical column of the matrix being binned has more category codes than
    the binned dtype holds (``column``: its index; ``n_categories``: how many).

    A ``ValueError``; the estimators re-raise it naming the input column.

    Examples
    --------
    >>> from dtdecide.tree._kernels._binning import TooManyCategoriesError
    >>> TooManyCategoriesError(1, 70000).n_categories
    70000
    """

    def __init__(self, column, n_categories):
        self.column = int(column)
        self.n_categories = int(n_categories)
        super().__init__(
            f"X_encoded column {self.column} has {self.n_categories} category codes; at "
            f"most {_MAX_BINS_LARGE} categories are supported"
        )


def too_many_categories(name, n_categories):
    """The error for input column ``name`` with more categories than a tree splits on
    (in memory and on Dask)."""
    return ValueError(
        f"X column {name!r} has {n_categories} categories; a tree splits on at most "
        f"{_MAX_BINS_LARGE}: group the rare ones (or drop an identifier column)"
    )


def _first_infinite_column(X, numeric):
    """The first numeric column holding +-inf in the first block of rows that has one."""
    if not isinstance(X, np.ndarray):
        first = []
        for j in np.flatnonzero(numeric):
            rows = np.flatnonzero(np.isinf(_column(X, j)))
            if rows.size:
                first.append((int(rows[0]) // _BLOCK, int(j)))
        return min(first)[1] if first else None
    for start in range(0, X.shape[0], _BLOCK):
        hit = np.isinf(X[start : start + _BLOCK]).any(axis=0) & numeric
        if hit.any():
            return int(np.argmax(hit))
    return None


def _midpoints(lo, hi):
    """Midpoints strictly below ``hi`` (falls back to ``lo`` on float rounding)."""
    mid = lo + (hi - lo) / 2.0
    return np.where(mid < hi, mid, lo)


def numeric_bin_edges(values, weights, max_bins):
    """Bin edges of one numeric feature (see the module docstring).

    Parameters
    ----------
    values : ndarray of float64
        Non-missing, finite values.
    weights : ndarray of float64 or None
        Case weights of ``values``.
    max_bins : int
        Largest number of bins.

    Returns
    -------
    ndarray of float64
        Increasing edges, the last one ``+inf``.

    Examples
    --------
    >>> import numpy as np
    >>> from dtdecide.tree._kernels._binning import numeric_bin_edges
    >>> numeric_bin_edges(np.array([3.0, 1.0, 2.0, 2.0]), None, 255).tolist()
    [1.5, 2.5, inf]
    """
    if values.size == 0:
        return np.array([np.inf])
    if weights is None:
        distinct, counts = np.unique(values, return_counts=True)
        counts = counts.astype(np.float64)
    else:
        distinct, inverse = np.unique(values, return_inverse=True)
        counts = np.bincount(inverse, weights=weights, minlength=distinct.size)
    return edges_from_counts(distinct, counts, max_bins)


def edges_from_counts(distinct, counts, max_bins):
    """Bin edges from sorted distinct values and their (weighted) counts.

    The step of :func:`numeric_bin_edges` after counting, so that a summary merged from
    several data partitions (exact distinct values, or a compressed quantile summary)
    gives edges by the same rule.

    Examples
    --------
    >>> import numpy as np
    >>> from dtdecide.tree._kernels._binning import edges_from_counts
    >>> edges_from_counts(np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 1.0]), 255).tolist()
    [1.5, 2.5, inf]
    """
    if distinct.size == 0:
        return np.array([np.inf])
    cum = None
    if distinct.size > max_bins:
        cum = np.cumsum(counts)
        cum /= cum[-1]
    return _edges(distinct, cum, max_bins)


def _edges(distinct, cum, max_bins):
    """Edges from sorted distinct values and, when there are more than ``max_bins``, their
    normalised cumulative (weighted) counts ``cum`` (the last one 1)."""
    if distinct.size <= max_bins:
        edges = _midpoints(distinct[:-1], distinct[1:])
    else:
        quantiles = np.arange(1, max_bins) / max_bins
        idx = np.searchsorted(cum, quantiles, side="left")
        idx = np.unique(np.clip(idx, 0, distinct.size - 2))
        edges = _midpoints(distinct[idx], distinct[idx + 1])
    return np.concatenate([np.unique(edges), [np.inf]])


def sorted_bin_edges(ordered, max_bins, buffers=None):
    """Bin edges of one numeric feature from its sorted values, every case weight 1.

    The same edges as ``numeric_bin_edges(ordered, None, max_bins)`` (the reference):
    the counts of the distinct values are whole numbers, read from the positions where
    the sorted values change, so their cumulative sums are exact; no second sort (as
    ``np.unique`` does) and no weighted count.

    Parameters
    ----------
    ordered : ndarray of float64
        Non-missing, finite values in increasing order.
    max_bins : int
    buffers : _EdgeBuffers or None
        Work arrays of at least ``ordered.size`` values (``ordered`` may be a view of
        ``buffers.values``, which is then written over): the distinct values and their
        cumulative counts go there instead of new arrays; values that are all distinct
        (a continuous feature) need no new array of their size at all. The same edges.

    Returns
    -------
    ndarray of float64

    Examples
    --------
    >>> import numpy as np
    >>> from dtdecide.tree._kernels._binning import sorted_bin_edges
    >>> sorted_bin_edges(np.array([1.0, 2.0, 2.0, 3.0]), 255).tolist()
    [1.5, 2.5, inf]
    """
    if ordered.size == 0:
        return np.array([np.inf])
    m = ordered.size
    if buffers is None:  # work arrays of this call alone
        buffers = _EdgeBuffers(m, np.arange(1, m + 1, dtype=np.intp))
    change = np.not_equal(ordered[1:], ordered[:-1], out=buffers.change[: m - 1])
    k = int(np.count_nonzero(change))  # distinct values: k + 1
    if k == m - 1:  # every value distinct: they are their own runs, each of count 1
        distinct = ordered
        ends = buffers.positions[:m]  # 1, 2, ..., m
        cum_out = buffers.distinct
    else:
        index = buffers.index
        index[0] = 0
        index[1 : k + 1] = np.flatnonzero(change)
        index[1 : k + 1] += 1
        index[k + 1] = m
        distinct = np.take(ordered, index[: k + 1], out=buffers.distinct[: k + 1],
                           mode="clip")
        ends = index[1 : k + 2]
        cum_out = buffers.values  # ``ordered`` is read no more
    cum = None
    if distinct.size > max_bins:
        # the reference's ends.astype(float64) / m, into the buffer
        cum = np.divide(ends, np.float64(m), out=cum_out[: distinct.size],
                        dtype=np.float64)
    return _edges(distinct, cum, max_bins)


# (n, size) of the self-check of the compiled sub-sample: NumPy's tail-shuffle regime
_DRAW_CHECK = (20_011, 1_500)
_draw_matches = None


def _tail_shuffle(n, size):
    """Whether ``Generator.choice(n, size, replace=False, shuffle=False)`` draws by a
    partial shuffle of ``arange(n)`` (NumPy's rule; Floyd's algorithm otherwise)."""
    return n > 10_000 and size > n // 20


def _compiled_tail(rng, n, size):
    """The unsorted rows of :func:`subsample_rows`' ``choice`` from the same draws.

    The tail shuffle draws, for ``i = n - 1`` down to ``n - size``, an index in
    ``[0, i]`` with ``random_bounded_uint64`` (Lemire's method), which is what
    ``Generator.integers(0, i, endpoint=True)`` draws for each entry of an array bound;
    the compiled ``shuffle_tail`` then replays the swaps on the ``size`` entries that are
    kept (and a hash table of the entries below them that moved) instead of an
    ``n``-sized index array.
    """
    from . import _compiled_sums

    draws = rng.integers(0, np.arange(n - 1, n - size - 1, -1), endpoint=True)
    rows = np.empty(size, dtype=np.int64)
    _compiled_sums.shuffle_tail(n, draws, *_moved_table(n, size), rows)
    return rows


def _moved_table(n, size):
    """The hash table (keys set to -1, values) of the tail shuffle's moved entries:
    a power of two at least ``2 * size`` slots, int32 where ``n`` fits."""
    cap = 1
    while cap < 2 * size:
        cap *= 2
    key_dtype = np.int32 if n <= np.iinfo(np.int32).max else np.int64
    return np.full(cap, -1, dtype=key_dtype), np.empty(cap, dtype=key_dtype)


def _compiled_draw_ok():
    """Whether :func:`_compiled_tail` gives ``choice``'s rows with this NumPy (checked
    once per process on a small case: a NumPy that drew differently keeps ``choice``)."""
    global _draw_matches
    if _draw_matches is None:
        n, size = _DRAW_CHECK
        want = np.random.default_rng(12345).choice(n, size=size, replace=False, shuffle=False)
        got = _compiled_tail(np.random.default_rng(12345), n, size)
        _draw_matches = bool(np.array_equal(want, got))
    return _draw_matches


def subsample_rows(rng, n_samples, size, compiled=False):
    """Sorted rows of ``rng.choice(n_samples, size, replace=False, shuffle=False)``.

    Parameters
    ----------
    rng : numpy.random.Generator
        Advanced as ``choice`` advances it.
    n_samples : int
    size : int
        ``0 < size < n_samples``.
    compiled : bool, default=False
        Compute ``choice``'s rows with a compiled kernel where NumPy draws them by a
        partial shuffle of ``arange(n_samples)`` (``n_samples > 10,000`` and
        ``size > n_samples // 20``, e.g. 200,000 of 201,000 - 4,000,000 rows): the same
        draws and the same rows, without the ``n_samples``-sized index array (at 2,000,000
        rows about 4 ms instead of 6-7 ms in a fit). ``choice`` itself is the twin.

    Returns
    -------
    ndarray of int64 (size,)
        Increasing row indices.

    Examples
    --------
    >>> import numpy as np
    >>> rows = subsample_rows(np.random.default_rng(0), 50_000, 5_000)
    >>> rows.size, bool(np.all(np.diff(rows) > 0))
    (5000, True)
    """
    if compiled and _tail_shuffle(n_samples, size) and _compiled_draw_ok():
        rows = _compiled_tail(rng, n_samples, size)
    else:
        rows = rng.choice(n_samples, size=size, replace=False, shuffle=False)
    rows.sort()
    return rows


def _seed_tail(seed, n, size):
    """The sorted rows of ``default_rng(seed).choice(n, size, replace=False,
    shuffle=False)`` in the tail-shuffle regime, computed without calling back into
    Python (:func:`~dtdecide.tree._kernels._compiled_sums.sorted_tail_rows` from the
    generator's raw outputs), or None when the raw outputs drawn were too few."""
    return _seed_tail_kernel(seed, n, size)()


def _seed_tail_kernel(seed, n, size):
    """:func:`_seed_tail` in two steps: this call draws the raw outputs and makes the
    work arrays (holding the interpreter's lock); the function it returns runs the
    compiled kernel (without it) and returns the rows or None."""
    from . import _compiled_sums

    # a draw takes one 32-bit word (half a raw output) but for the rare rejections
    raw = np.random.default_rng(seed).bit_generator.random_raw(size // 2 + size // 256 + 64)
    rows = np.empty(size, dtype=np.int64)
    args = (raw, n, np.empty(size, dtype=np.int64), *_moved_table(n, size),
            np.empty(size, dtype=np.int64), np.zeros((n + 63) // 64, dtype=np.uint64), rows)

    def run():
        nonlocal args
        ok = _compiled_sums.sorted_tail_rows(*args)
        args = None  # the work arrays go at once (the rows are kept until taken)
        return rows if ok else None

    return run


def _seed_floyd(seed, n, size):
    """The sorted rows of ``default_rng(seed).choice(n, size, replace=False,
    shuffle=False)`` in Floyd's regime (not :func:`_tail_shuffle`), computed without
    calling back into Python
    (:func:`~dtdecide.tree._kernels._compiled_sums.sorted_floyd_rows` from the
    generator's raw outputs), or None when the raw outputs drawn were too few."""
    return _seed_floyd_kernel(seed, n, size)()


def _seed_floyd_kernel(seed, n, size):
    """:func:`_seed_floyd` in two steps, as :func:`_seed_tail_kernel`."""
    from . import _compiled_sums

    raw = np.random.default_rng(seed).bit_generator.random_raw(size // 2 + size // 256 + 64)
    rows = np.empty(size, dtype=np.int64)
    args = (raw, n, np.zeros((n + 63) // 64, dtype=np.uint64), rows)

    def run():
        nonlocal args
        ok = _compiled_sums.sorted_floyd_rows(*args)
        args = None
        return rows if ok else None

    return run


def _seed_rows(seed, n, size):
    """The compiled sorted rows of either regime (:func:`_seed_tail`,
    :func:`_seed_floyd`), or None."""
    return (_seed_tail if _tail_shuffle(n, size) else _seed_floyd)(seed, n, size)


def _seed_kernel(seed, n, size):
    """The two steps (:func:`_seed_tail_kernel`) of either regime."""
    return (_seed_tail_kernel if _tail_shuffle(n, size) else _seed_floyd_kernel)(
        seed, n, size)


def _seed_kernel_applies(seed, n_samples, size, compiled):
    """Whether :func:`seeded_subsample_rows` may use :func:`_seed_rows`: NumPy's tail
    shuffle, or its Floyd's algorithm on more than 10,000 rows (a sub-sample of at most
    a twentieth: 200,000 of 4,000,000 rows or more), each once checked."""
    if not (compiled and isinstance(seed, numbers.Integral) and not isinstance(seed, bool)
            and 0 < size < n_samples and n_samples - 1 < 0xFFFFFFFF):
        return False
    if _tail_shuffle(n_samples, size):
        return _seed_draw_ok()
    return n_samples > 10_000 and _floyd_draw_ok()


# (n, size) of the self-check of the compiled sub-sample in Floyd's regime
_FLOYD_CHECK = (100_003, 2_000)
_draw_checks = {}  # the self-checks' answers, once per process: {regime: bool}


def _draws_match(regime, kernel, n, size):
    """Whether ``kernel(seed, n, size)`` gives the sorted rows of ``choice`` with this
    NumPy, for two seeds (checked once per process for each ``regime``, as
    :func:`_compiled_draw_ok`: a NumPy that draws otherwise keeps ``choice``)."""
    key = regime
    if key not in _draw_checks:
        _draw_checks[key] = all(
            np.array_equal(kernel(seed, n, size),
                           np.sort(np.random.default_rng(seed).choice(
                               n, size=size, replace=False, shuffle=False)))
            for seed in (12345, 7))
    return _draw_checks[key]


def _floyd_draw_ok():
    """Whether :func:`_seed_floyd` gives ``choice``'s rows with this NumPy."""
    return _draws_match("floyd", _seed_floyd, *_FLOYD_CHECK)


def _seed_draw_ok():
    """Whether :func:`_seed_tail` gives ``choice``'s rows with this NumPy."""
    return _draws_match("tail", _seed_tail, *_DRAW_CHECK)


def seeded_subsample_rows(seed, n_samples, size, compiled=False):
    """:func:`subsample_rows` of a new generator ``np.random.default_rng(seed)``.

    The generator is not handed back, so its state after the draw does not matter:
    with ``compiled``, in the tail-shuffle regime, for an integer ``seed`` (PCG64) and
    fewer than ``2**32 - 1`` rows, the rows come from one compiled call on the
    generator's raw outputs (:func:`~dtdecide.tree._kernels._compiled_sums.sorted_tail_rows`:
    NumPy's bounded draws, the tail shuffle's swaps and a bitmap in place of the sort),
    which holds the interpreter's lock only to draw the raw outputs. At 2,000,000 rows
    about 2 ms instead of 3.3 ms. In Floyd's regime (more than 10,000 rows, a
    sub-sample of at most a twentieth of them: the default 200,000 of 4,000,000 rows or
    more) likewise (:func:`~dtdecide.tree._kernels._compiled_sums.sorted_floyd_rows`:
    the same bounded draws, the kept rows in a bitmap instead of NumPy's hash set), so
    that a fit can draw them on a worker thread (:class:`EarlyDraw`). The same rows as
    :func:`subsample_rows` (its twin), checked once per process before each kernel is
    trusted.

    Examples
    --------
    >>> import numpy as np
    >>> rows = seeded_subsample_rows(3, 50_000, 5_000)
    >>> bool(np.array_equal(rows, subsample_rows(np.random.default_rng(3), 50_000, 5_000)))
    True
    """
    if _seed_kernel_applies(seed, n_samples, size, compiled):
        rows = _seed_rows(seed, n_samples, size)
        if rows is not None:
            return rows
    return subsample_rows(np.random.default_rng(seed), n_samples, size, compiled=compiled)


class EarlyDraw:
    """The rows of :func:`subsample_rows` for a :class:`Binner` fit, drawn ahead of it on
    a worker thread of ``pool`` (:meth:`~dtdecide._parallel.ThreadPool.submit`).

    The draw does not depend on the data, only on the seed and the number of rows, so
    an estimator can start it while it still checks its inputs on the calling thread;
    a :class:`Binner` given one (its ``_early_draw``) takes its rows when its own
    ``random_state``, rows, ``subsample`` and kernels are those of the draw, and draws
    them itself otherwise. The same rows either way.
    """

    @classmethod
    def start(cls, pool, random_state, n_samples, size, compiled):
        """The draw started on ``pool``, or None where the compiled draw of
        :func:`seeded_subsample_rows` does not apply (the binner then draws itself: a
        worker thread would keep what NumPy's ``choice`` allocates in its own malloc
        arena, as the bin edges' buffers once did)."""
        if not _seed_kernel_applies(random_state, n_samples, size, compiled):
            return None
        return cls(pool, random_state, n_samples, size, compiled)

    def __init__(self, pool, random_state, n_samples, size, compiled):
        self.key = (random_state, n_samples, size, compiled)
        # the raw outputs and work arrays here (the interpreter's lock either way); the
        # worker then takes the lock only to enter the kernel: this thread waits until
        # it has, or the worker could wait for the lock while this thread runs Python
        run = _seed_kernel(random_state, n_samples, size)
        started = threading.Event()

        def draw():
            started.set()
            return run()

        self._pending = pool.submit(draw)
        started.wait()

    def rows_for(self, random_state, n_samples, size, compiled):
        """The drawn rows if they are the ones asked for, else None."""
        if not isinstance(random_state, numbers.Integral) or (
                (random_state, n_samples, size, compiled) != self.key):
            return None
        if self._pending is None:  # taken already
            return None
        rows = self._pending.result()
        self._pending = None
        if rows is None:  # too few raw outputs (rare): drawn here, by the same rules
            rows = seeded_subsample_rows(random_state, n_samples, size, compiled=compiled)
        return rows


class _EdgeBuffers:
    """Work arrays of one thread's bin edges from sorted float64 values.

    Made on the calling thread and handed to the thread that uses them, so that the
    worker threads allocate no sub-sample-sized temporaries: what a worker thread frees
    stays in its own malloc arena, resident, until the process ends (about 21 MiB more
    peak memory in a two-thread fit of 2M rows x 20 features).
    """

    def __init__(self, n, positions):
        self.values = np.empty(n)  # the gathered sub-sample, sorted in place
        self.distinct = np.empty(n)
        self.index = np.empty(n + 1, dtype=np.intp)
        self.change = np.empty(max(n - 1, 0), dtype=bool)
        self.positions = positions  # 1, 2, ..., n (read only, shared)

    @classmethod
    def for_threads(cls, n, n_threads):
        positions = np.arange(1, n + 1, dtype=np.intp)
        return [cls(n, positions) for _ in range(n_threads)]

    def sorted_values(self, col, rows):
        """The non-missing values of ``col`` (at ``rows``; None: every row), sorted,
        as a view of :attr:`values`."""
        n = self.values.shape[0]
        v = self.values
        if rows is None:
            np.copyto(v, col)
        else:
            np.take(col, rows, out=v, mode="clip")  # "raise" would buffer a copy
        v.sort()  # in place; NaN sort last
        m = int(np.searchsorted(v, np.nan)) if np.isnan(v[n - 1]) else n
        return v[:m]


def check_float_matrix(X, name="X_encoded"):
    """``X`` as a 2-D float64 array (converted when it is another numeric dtype); the one
    check of the encoded matrices the binner and the tree's apply read."""
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array; got shape {X.shape}")
    if X.dtype != np.float64:
        try:
            X = X.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"{name} must be a numeric (float64) matrix; got dtype {X.dtype}"
            ) from exc
    return X


class Binner:
    """Map encoded inputs to bin indices for the histogram grower.

    Parameters
    ----------
    max_bins : int, default=255
        Largest number of non-missing bins of a numeric feature, in ``[2, 65535]``.
        Categorical features always get one bin per category code.
    subsample : int or None, default=200_000
        Number of rows (drawn without replacement) used to compute numeric bin edges;
        ``None`` uses every row. Categorical features always use every row. The rows are
        those of ``Generator.choice(n_samples, subsample, replace=False)`` (see
        :func:`subsample_rows`).
    random_state : int, numpy.random.Generator or None, default=None
        Seed for the row sub-sample.

    Attributes
    ----------
    n_features_in_ : int
        Number of columns seen in :meth:`fit`.
    is_categorical_ : ndarray of bool
        Categorical columns.
    bin_thresholds_ : list of ndarray
        Numeric columns: increasing raw upper edges (last ``+inf``). Categorical columns:
        the integer codes ``0 .. n_bins_[j] - 1`` as float64 (bin ``b`` is code ``b``).
    n_bins_ : ndarray of int
        Non-missing bins per feature.
    missing_bin_idx_ : int
        Bin of missing values, ``max(n_bins_)``, identical for every feature.
    n_bins_total_ : int
        ``missing_bin_idx_ + 1``: the number of distinct binned values (the widest
        feature's histogram width).
    binned_dtype_ : numpy dtype
        ``uint8`` or ``uint16``.

    Examples
    --------
    >>> import numpy as np
    >>> from dtdecide.tree._kernels._binning import Binner
    >>> X = np.array([[1.0, 0.0], [2.0, 1.0], [np.nan, 2.0], [3.0, np.nan]])
    >>> b = Binner().fit(X, is_categorical=[False, True])
    >>> b.bin_thresholds_[0].tolist(), b.n_bins_.tolist(), b.missing_bin_idx_
    ([1.5, 2.5, inf], [3, 3], 3)
    >>> b.transform(X).tolist()
    [[0, 0], [1, 1], [3, 2], [2, 3]]
    """

    def __init__(self, max_bins=255, *, subsample=200_000, random_state=None):
        self.max_bins = max_bins
        self.subsample = subsample
        self.random_state = random_state

    def _validate_params(self):
        if (
            not isinstance(self.max_bins, numbers.Integral)
            or isinstance(self.max_bins, bool)
            or not 2 <= self.max_bins <= _MAX_BINS_LARGE
        ):
            raise ValueError(
                f"max_bins must be an integer in [2, {_MAX_BINS_LARGE}]; got {self.max_bins!r}"
            )
        if self.subsample is not None and (
            not isinstance(self.subsample, numbers.Integral)
            or isinstance(self.subsample, bool)
            or self.subsample < 2
        ):
            raise ValueError(
                f"subsample must be None or an integer >= 2; got {self.subsample!r}"
            )

    @staticmethod
    def _check_X(X, name="X_encoded"):
        if not isinstance(X, np.ndarray) and hasattr(X, "column") and len(X.shape) == 2:
            return X  # a column source: read column by column
        X = np.asarray(X)
        if X.ndim == 2 and X.dtype == np.float32:
            return X  # read as it is: float64 of a float32 is exact
        return check_float_matrix(X, name)

    def fit(self, X_encoded, is_categorical=None, sample_weight=None, check_input=True,
            pool=None):
        """Compute the bins of every feature.

        Numeric edges come from the rows of a sub-sample: sorted once (NumPy's sort,
        which releases the GIL) with every case weight 1 (the estimators' default), or
        through ``np.unique`` and weighted counts otherwise (:func:`numeric_bin_edges`,
        the reference); both give the same edges for the same values.

        Parameters
        ----------
        X_encoded : ndarray of shape (n_samples, n_features)
            float64: raw values for numeric columns, integer codes (``0, 1, ...``) for
            categorical columns, NaN for missing values. Infinite values are rejected.
        is_categorical : array-like of bool of shape (n_features,) or None
            Categorical columns; None means all numeric.
        sample_weight : array-like of shape (n_samples,) or None
            Case weights, used for the numeric quantiles.
        check_input : bool, default=True
            Validate ``sample_weight``; the estimators validate it once and pass False.
        pool : ThreadPool or None
            Threads that share the columns (:mod:`dtdecide.tree._kernels._parallel`); the bins do
            not depend on it.

        Returns
        -------
        self : Binner
        """
        return self._fit(X_encoded, is_categorical, sample_weight, check_input, pool,
                         check_inf=True)

    def _fit(self, X_encoded, is_categorical, sample_weight, check_input, pool, check_inf):
        """:meth:`fit`; ``check_inf=False`` leaves the pass that looks for infinite values
        over every row to :meth:`transform`, which reads every row anyway (fit_transform).
        """
        self._validate_params()
        X = self._check_X(X_encoded)
        n_samples, n_features = X.shape
        if n_samples == 0:
            raise ValueError("X_encoded must have at least one row")
        if is_categorical is None:
            is_categorical = np.zeros(n_features, dtype=bool)
        is_categorical = np.asarray(is_categorical)
        if is_categorical.dtype != bool or is_categorical.shape != (n_features,):
            raise ValueError(
                f"is_categorical must be a boolean array of shape ({n_features},); got "
                f"dtype {is_categorical.dtype} and shape {is_categorical.shape}"
            )
        if check_input:
            sample_weight = check_sample_weight(sample_weight, n_samples)
        rows = None
        early = self.__dict__.pop("_early_draw", None)  # an EarlyDraw, used once
        if self.subsample is not None and n_samples > self.subsample:
            compiled = use_compiled(n_samples)
            if early is not None:
                rows = early.rows_for(self.random_state, n_samples, self.subsample, compiled)
            if rows is None:
                # shuffle=False: the same set of rows (only their order differs), sorted;
                # an integer seed's generator is this draw's alone
                rows = (seeded_subsample_rows(self.random_state, n_samples, self.subsample,
                                              compiled=compiled)
                        if isinstance(self.random_state, numbers.Integral)
                        else subsample_rows(np.random.default_rng(self.random_state),
                                            n_samples, self.subsample, compiled=compiled))

        has_inf = _infinite_columns(X) if check_inf else None
        if rows is None:
            w_sub = sample_weight
        else:
            w_sub = None if sample_weight is None else sample_weight[rows]
        unit = w_sub is None or bool(np.all(w_sub == 1.0))

        def feature_bins(j, buffers=None):
            col = _column(X, j)
            if is_categorical[j]:
                present = col[~np.isnan(col)]
                if np.isinf(present).any() or np.any(present < 0) or np.any(
                    present != np.floor(present)
                ):
                    raise ValueError(
                        f"X_encoded column {j} is categorical and must hold non-negative "
                        "integer codes or NaN"
                    )
                n_cat = int(present.max()) + 1 if present.size else 1
                if n_cat > _MAX_BINS_LARGE:
                    raise TooManyCategoriesError(j, n_cat)
                return np.arange(n_cat, dtype=np.float64)
            if has_inf is not None and has_inf[j]:
                raise InfiniteValuesError(j)
            if unit and buffers is not None and col.dtype == np.float64:
                ordered = buffers.sorted_values(col, rows)
                if ordered.size and np.isinf(ordered[[0, -1]]).any():
                    raise InfiniteValuesError(j)
                return sorted_bin_edges(ordered, self.max_bins, buffers)
            sub = col if rows is None else col[rows]
            if sub.dtype != np.float64:
                sub = sub.astype(np.float64)
            if unit:  # counts are integers: the sorted values give them
                nan = np.isnan(sub)
                ordered = np.sort(sub[~nan] if nan.any() else sub)
                if ordered.size and np.isinf(ordered[[0, -1]]).any():
                    raise InfiniteValuesError(j)
                return sorted_bin_edges(ordered, self.max_bins)
            keep = ~np.isnan(sub)
            keep &= w_sub > 0
            if np.isinf(sub[keep]).any():
                raise InfiniteValuesError(j)
            return numeric_bin_edges(sub[keep], w_sub[keep], self.max_bins)

        def group_bins(features, buffers=None):
            found = []
            for j in features:
                try:
                    found.append((j, feature_bins(j, buffers), None))
                except ValueError as exc:  # raised below in column order
                    found.append((j, None, exc))
            return found

        n_sub = n_samples if rows is None else rows.size
        # one set of work arrays per thread, made here (see _EdgeBuffers)
        n_buffers = 0 if not unit or is_categorical.all() else (
            1 if pool is None or n_features < 2 else pool.n_threads)
        buffers = _EdgeBuffers.for_threads(n_sub, n_buffers)
        if pool is None or n_features < 2:
            found = group_bins(range(n_features), buffers[0] if buffers else None)
        else:
            # categorical columns cost a pass over every row; numeric ones a sort of the
            # sub-sample
            cost = np.where(is_categorical, n_samples, n_sub * np.log2(max(n_sub, 2)))
            groups = feature_groups(cost, pool.n_threads)
            tasks = [(g, buffers[i] if buffers else None) for i, g in enumerate(groups)]
            found = [item for group in pool.map_groups(lambda task: group_bins(*task), tasks)
                     for item in group]
            del tasks
        del buffers
        found.sort(key=lambda item: item[0])
        if has_inf is None and any(exc is not None for _, _, exc in found):
            # the first error in column order, infinite values outside the sub-sample
            # included, as with check_inf
            has_inf = _infinite_columns(X) & ~is_categorical
            found = [(j, e, InfiniteValuesError(j) if has_inf[j] else exc) for j, e, exc in found]
        for _, _, exc in found:
            if exc is not None:
                raise exc
        thresholds = [edges for _, edges, _ in found]
        return self._set_bins(thresholds, is_categorical)

    def _set_bins(self, thresholds, is_categorical):
        """Fitted state from every feature's edges (numeric) or ``arange(n_categories)``."""
        n_features = len(thresholds)
        n_bins = [edges.size for edges in thresholds]
        self.n_features_in_ = n_features
        self.is_categorical_ = np.asarray(is_categorical, dtype=bool).copy()
        self.bin_thresholds_ = thresholds
        self.n_bins_ = np.asarray(n_bins, dtype=np.intp)
        self.missing_bin_idx_ = int(self.n_bins_.max())
        self.n_bins_total_ = self.missing_bin_idx_ + 1
        self.binned_dtype_ = np.dtype(
            X_BINNED_DTYPE_SMALL
            if self.missing_bin_idx_ <= np.iinfo(X_BINNED_DTYPE_SMALL).max
            else X_BINNED_DTYPE_LARGE
        )
        return self

    def transform(self, X_encoded, pool=None, nan_counts=None):
        """Bin indices of every cell.

        Parameters
        ----------
        X_encoded : ndarray of shape (n_samples, n_features)
            Same encoding as in :meth:`fit` (float64 or float32 are read as they are, in
            either memory order).
        pool : ThreadPool or None
            Threads that share the columns (:mod:`dtdecide.tree._kernels._parallel`); the result
            does not depend on it.
        nan_counts : ndarray of int64 of shape (n_features,) or None
            When given, receives the number of NaN values of every column (counted while
            binning: no extra pass over the data).

        Returns
        -------
        X_binned : ndarray of uint8 or uint16, shape (n_samples, n_features)
            Fortran (column-major) order, as the grower reads it column by column.
            Missing values, and category codes outside ``[0, n_bins_[j])`` or not integer,
            get ``missing_bin_idx_``.
        """
        if not hasattr(self, "n_bins_"):
            raise ValueError("this Binner is not fitted yet; call fit first")
        X = self._check_X(X_encoded)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X_encoded has {X.shape[1]} columns; the Binner was fitted with "
                f"{self.n_features_in_}"
            )
        out = np.empty(X.shape, dtype=self.binned_dtype_, order="F")
        missing = self.missing_bin_idx_
        numeric = ~self.is_categorical_
        if nan_counts is not None:
            nan_counts[:] = 0

        compiled = use_compiled(X.shape[0])
        grids = None if compiled else self._numpy_grids()

        def bin_matrix(M, features):
            """Bin the columns ``features`` of ``M``; the first (row, column) holding an
            inf."""
            use_grid = {j: grids[j] is not None for j in features}
            cols = slice(None) if len(features) == M.shape[1] else features
            for start in range(0, M.shape[0], _BLOCK):
                block = M[start : start + _BLOCK, cols]  # rows stay in cache
                columns = block.T.copy()  # one contiguous row per feature
                has_inf = np.isinf(block).any(axis=0) & numeric[cols]
                if has_inf.any():
                    return start, int(features[int(np.argmax(has_inf))])
                for k, j in enumerate(features):
                    v = columns[k]
                    nan = np.isnan(v)
                    if nan_counts is not None:
                        nan_counts[j] += np.count_nonzero(nan)
                    if self.is_categorical_[j]:
                        ok = (v >= 0) & (v < self.n_bins_[j]) & (v == np.floor(v))
                        b = np.where(ok, v, missing)
                    else:
                        edges = self.bin_thresholds_[j]
                        b = _bin_numeric(v, edges, grids[j]) if use_grid[j] else None
                        if b is None:
                            use_grid[j] = False
                            b = np.searchsorted(edges, v, side="left")
                        b[nan] = missing
                    out[start : start + _BLOCK, j] = b
            return None

        if compiled:
            bin_matrix = self._compiled_binner(out, nan_counts)

        def bin_features(features):
            if isinstance(X, np.ndarray):
                return bin_matrix(X, features)
            for j in features:  # a column source: one column at a time
                found = bin_matrix(_column_matrix(X, j), np.array([j]))
                if found is not None:
                    return found
            return None

        n_features = self.n_features_in_
        grid = None
        if compiled and pool is not None and isinstance(X, np.ndarray) and n_features > 1:
            grid = _transform_plan(X, pool.n_threads)
        if pool is None or n_features < 2:
            groups = [np.arange(n_features)]
            found = [bin_features(groups[0])]
        elif grid is None:
            groups = feature_groups(np.ones(n_features), pool.n_threads)
            found = pool.map_groups(bin_features, groups)
        else:
            # more threads than whole columns share out evenly: runs of columns x
            # ranges of rows, each task with its own inf flags and NaN counts
            found = _bin_grid(bin_matrix, X, grid, nan_counts, pool)
        if any(f is not None for f in found):
            # the first block with an inf, its first such column (whatever the threads)
            raise InfiniteValuesError(_first_infinite_column(X, numeric))
        return out

    def _compiled_binner(self, out, nan_counts):
        """``bin_matrix(X, features)`` with the compiled kernel (the same result).

        Each column is read straight from ``X`` (float64 or float32, either memory
        order) and written to its column of ``out``; a row-major ``X`` is read a block
        of rows at a time so that each cache line is read once. Returns, like the NumPy
        version, None or ``(0, j)`` for a column holding an infinite value (the caller
        then names the first one, as the NumPy version does).
        """
        from . import _compiled_binning as cb

        is_cat = np.ascontiguousarray(self.is_categorical_, dtype=np.bool_)
        numeric = [np.asarray(e, dtype=np.float64) for e, c in
                   zip(self.bin_thresholds_, is_cat) if not c]
        sizes = [0 if c else e.size for e, c in zip(self.bin_thresholds_, is_cat)]
        edges = np.concatenate(numeric) if numeric else np.zeros(1)
        edge_offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)
        n_bins = np.asarray(self.n_bins_, dtype=np.intp)
        grid_lo, scale, cells, offsets, tables = self._cell_tables(cb)
        has_inf = np.zeros(out.shape[1], dtype=np.bool_)
        counts = np.zeros(out.shape[1], dtype=np.int64) if nan_counts is None else nan_counts

        # Numba compiles a version of the kernel per combination of argument types, and
        # an array's type holds its memory order and whether it is writeable: ``X`` is
        # always passed read-only, and ``out`` (column-major) as its flat cells, whose
        # type does not depend on the shape (an ``out`` of one row or one column is
        # C-ordered too). So the versions are X's dtype x X's memory order (C, Fortran,
        # other) x the bins' dtype: 12 at most, against 24.
        out_cells = out.reshape(-1, order="F")  # a view: out is Fortran-ordered

        def bin_matrix(X, features, lo=0, hi=None, flags=None):
            """``flags``: this call's own ``(has_inf, nan counts)`` (threads sharing a
            column's rows), added to the shared counts by the caller."""
            if X.flags.f_contiguous or X.shape[1] == 1 or X.strides[1] == 0:
                block = max(X.shape[0], 1)  # column by column
            else:  # rows of the block stay in cache while each column is read
                block = max(256, _C_BLOCK_BYTES // (X.shape[1] * X.itemsize))
            features = np.asarray(features, dtype=np.intp)
            if X.flags.writeable:
                X = X.view()
                X.flags.writeable = False
            inf, nan = (has_inf, counts) if flags is None else flags
            cb.bin_columns(X, features, is_cat, edges, edge_offsets, n_bins,
                           self.missing_bin_idx_, grid_lo, scale, cells, offsets, tables,
                           block, out_cells, inf, nan, lo, X.shape[0] if hi is None else hi)
            hit = np.flatnonzero(inf[features])
            return (0, int(features[hit[0]])) if hit.size else None

        return bin_matrix

    def _numpy_grids(self):
        """The NumPy twin's lookup grids (computed once per fitted Binner)."""
        cached = getattr(self, "_grids", None)
        if cached is None or cached[0] is not self.bin_thresholds_:
            cached = (self.bin_thresholds_, [
                None if c else _make_grid(e)
                for e, c in zip(self.bin_thresholds_, self.is_categorical_)])
            self._grids = cached
        return cached[1]

    def _cell_tables(self, cb):
        """The compiled kernel's cell tables (computed once per fitted Binner)."""
        cached = getattr(self, "_cells", None)
        if cached is None or cached[0] is not self.bin_thresholds_:
            cached = (self.bin_thresholds_,
                      cb.cell_tables(self.bin_thresholds_, self.is_categorical_))
            self._cells = cached
        return cached[1]

    def fit_transform(self, X_encoded, is_categorical=None, sample_weight=None,
                      check_input=True, pool=None, nan_counts=None):
        """Fit, then transform the same matrix (the same errors and results as the two
        calls, with one pass over every row fewer: infinite values are looked for while
        binning).

        Returns
        -------
        X_binned : ndarray of uint8 or uint16, shape (n_samples, n_features)
        """
        X = self._check_X(X_encoded)
        self._fit(X, is_categorical, sample_weight, check_input, pool, check_inf=False)
        try:
            return self.transform(X, pool=pool, nan_counts=nan_counts)
        except ValueError as exc:
            has_inf = _infinite_columns(X) & ~self.is_categorical_
            if not has_inf.any():
                raise
            # the error fit would have raised: the first such column
            raise InfiniteValuesError(int(np.argmax(has_inf))) from exc


def _row_major(X):
    """Whether the compiled binning reads ``X`` a block of rows at a time (every column
    of a row is near its others: a row-major matrix), not column by column."""
    return not (X.flags.f_contiguous or X.shape[1] == 1 or X.strides[1] == 0)


def _transform_plan(X, n_threads):
    """The tasks of a threaded compiled binning of the matrix ``X`` (``(groups,
    bounds)`` of :func:`_bin_grid`), or None to share out whole columns.

    A row-major ``X`` is shared out by ranges of rows alone, every column in each
    (one per thread, each of at least ``MIN_CHUNK_ROWS`` rows; at least two ranges):
    a row's columns share its cache lines, so a task that bins some columns of a
    range of rows reads the lines of the others too. Runs of columns x ranges of rows
    (20 columns on 16 threads: 4 runs x 4 ranges) read each line about twice as often:
    2,000,000 x 20 float64, 16 threads on the 2-core machine, 217-254 ms of CPU
    against 168-169 ms (one thread 164-172 ms); 2 threads by columns 186-191 ms
    against 167-174 ms by rows. A column-major ``X`` is read column by column: runs
    of columns (x ranges of rows where whole columns leave threads idle,
    :func:`~dtdecide.tree._kernels._parallel.feature_row_plan`).

    On more than two threads the tasks are smaller than one round of the plan
    (``_TASKS_PER_THREAD`` ranges of rows a thread for a row-major ``X``; single
    columns x the plan's ranges for a column-major one), so that threads that run
    faster than others take more of them."""
    n_rows, n_features = X.shape
    n_threads = int(n_threads)
    if _row_major(X):
        per = _TASKS_PER_THREAD if n_threads > 2 else 1
        n_ranges = min(n_threads * per, n_rows // MIN_CHUNK_ROWS)
        if n_ranges < 2:
            return None
        return [np.arange(n_features)], np.linspace(0, n_rows, n_ranges + 1).astype(np.int64)
    plan = feature_row_plan(np.ones(n_features), n_rows, n_threads,
                            min(MAX_ROW_CHUNKS, n_rows // MIN_CHUNK_ROWS))
    if plan is None or n_threads <= 2 or _TASKS_PER_THREAD <= 1:
        return plan
    groups, bounds = plan
    return [np.array([j]) for g in groups for j in g], bounds


#: on more than two threads, a threaded binning's tasks: about this many a thread
#: (:func:`_transform_plan`)
_TASKS_PER_THREAD = 4


def _bin_grid(bin_matrix, X, grid, nan_counts, pool):
    """Bin ``X`` as the tasks ``grid = (groups, bounds)`` (runs of columns and ranges of
    rows, :func:`~dtdecide.tree._kernels._parallel.feature_row_split`): every run of
    columns over every range of rows, on the pool of ``bin_matrix``'s caller; the tasks'
    NaN counts are added to ``nan_counts``. Returns each run's first infinite value
    found, as ``bin_matrix`` does."""
    groups, bounds = grid
    n_features = X.shape[1]
    tasks = [(g, int(a), int(b)) for g in range(len(groups))
             for a, b in zip(bounds[:-1], bounds[1:])]
    flags = [(np.zeros(n_features, dtype=np.bool_), np.zeros(n_features, dtype=np.int64))
             for _ in tasks]

    def run(t):
        g, a, b = tasks[t]
        return bin_matrix(X, groups[g], a, b, flags[t])

    found = pool.map_groups(run, list(range(len(tasks))))
    if nan_counts is not None:
        for _, nan in flags:
            nan_counts += nan
    return found
