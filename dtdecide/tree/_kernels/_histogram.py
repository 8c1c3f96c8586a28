"""Histograms of node x feature x bin x channel, built with ``np.bincount``.

Layer 1 (kernels) of :mod:`dtdecide.tree` (``_kernels``); see the architecture page.

A histogram holds, for each node being grown (a *slot*), each feature and each bin, the
sum of every target channel over the rows that fall there:

* classification: channel ``t`` is the weighted count of class ``t``;
* regression: channels ``[sum w, sum w*y, sum w*y**2]``.

Optionally a second array holds plain row counts per (slot, feature, bin) — needed for
``min_samples_leaf`` (a row count, as in scikit-learn) when case weights are not all 1.

Histograms are **additive over rows**: the histogram of a set of rows is the sum of the
histograms of any partition of it. :func:`build_histograms` uses this to work through row
chunks of bounded size, and the grower uses it to get the larger child of a split as
``parent - smaller child``. A distributed version only changes where the chunk sums
happen.

Layout. Feature ``j`` owns ``widths[j] = n_bins_[j] + 1`` consecutive cells (its bins,
then its own missing bin) of one flat bin axis of length ``sum(widths)``
(:class:`BinLayout`), so memory and time scale with the sum of the per-feature bin counts:
a categorical input with 500 categories no longer widens the histograms of the numeric
inputs, nor does a 255-bin numeric input widen those of binary flags. The binned matrix
keeps the Binner's shared missing code ``missing_bin_idx_ = max_width - 1``; it is mapped
to the feature's own last cell while histogramming. A uniform width (every feature
``n_bins_total`` cells) is the special case where the flat axis reshapes to
``(n_features, n_bins_total)``.
"""

import threading

import numpy as np

from ..._dtypes import BIN_COUNT_DTYPE, HIST_DTYPE, HIST_DTYPE_SMALL_COUNTS, code_dtype
from ..._jit import use_compiled
from ._parallel import MAX_ROW_CHUNKS as _MAX_ROW_CHUNKS
from ._parallel import MIN_CHUNK_ROWS as _MIN_CHUNK_ROWS
from ._parallel import feature_groups, feature_row_plan

__all__ = ["BinLayout", "HistogramTarget", "build_histograms", "map_channels",
           "slot_bases_of", "bases_dtype"]

_FLOAT32_EXACT_LIMIT = 1 << 24  # integers below it are exact in HIST_DTYPE_SMALL_COUNTS
# Rows handled per bincount call: bounds temporaries to a few arrays of this length.
DEFAULT_CHUNK_SIZE = 1 << 18


class BinLayout:
    """Per-feature widths and offsets of the flat bin axis of a histogram.

    Parameters
    ----------
    widths : array-like of int, shape (n_features,)
        Cells of each feature, including its missing cell (``n_bins_[j] + 1``); each >= 2.

    Attributes
    ----------
    widths : ndarray of intp
    offsets : ndarray of intp, shape (n_features + 1,)
        Feature ``j`` occupies cells ``offsets[j] : offsets[j + 1]``.
    n_cells : int
        ``sum(widths)``, the length of the flat bin axis.
    max_width : int
        Largest width; binned values lie in ``[0, max_width)`` and ``max_width - 1`` is
        the shared missing code of the binned matrix.
    is_uniform : bool
        All widths equal.

    Examples
    --------
    >>> from dtdecide.tree._kernels._histogram import BinLayout
    >>> layout = BinLayout([3, 5])
    >>> layout.offsets.tolist(), layout.n_cells, layout.max_width
    ([0, 3, 8], 8, 5)
    >>> layout.cell_index.tolist()  # flat cell of (feature, binned value); -1: never used
    [[0, 1, -1, -1, 2], [3, 4, 5, 6, 7]]
    """

    def __init__(self, widths):
        widths = np.asarray(widths)
        if widths.ndim != 1 or widths.size == 0 or widths.dtype.kind not in "iu":
            raise ValueError(
                f"widths must be a non-empty 1-D integer array; got {widths!r}"
            )
        if np.any(widths < 2):
            raise ValueError("widths must be >= 2 (at least one bin plus the missing bin)")
        self.widths = widths.astype(np.intp)
        self.offsets = np.concatenate([[0], np.cumsum(self.widths)]).astype(np.intp)
        self.n_cells = int(self.offsets[-1])
        self.max_width = int(self.widths.max())
        self.is_uniform = bool(np.all(self.widths == self.max_width))
        # cell_index[j, b]: flat cell of binned value b of feature j (-1: value unused)
        B = self.max_width
        local = np.arange(B)[None, :]
        idx = self.offsets[:-1, None] + local
        idx = np.where(local < self.widths[:, None] - 1, idx, -1)
        idx[:, B - 1] = self.offsets[1:] - 1  # the shared missing code -> own last cell
        self.cell_index = idx.astype(np.intp)

    @classmethod
    def uniform(cls, n_features, n_bins_total):
        """Every feature ``n_bins_total`` cells wide (the layout of a 4-D histogram)."""
        return cls(np.full(n_features, n_bins_total, dtype=np.intp))

    @classmethod
    def from_binner(cls, binner):
        """Layout of a fitted :class:`~dtdecide.tree._kernels._binning.Binner`."""
        return cls(np.asarray(binner.n_bins_, dtype=np.intp) + 1)

    def gather(self, flat, nodes, features):
        """Histogram of one feature per node, in binned-value coordinates.

        Parameters
        ----------
        flat : ndarray, shape (n_slots, n_cells, ...)
        nodes, features : ndarray of int, shape (k,)

        Returns
        -------
        ndarray, shape (k, max_width, ...)
            Cell ``b`` holds the sums of binned value ``b`` of ``features[i]`` in node
            ``nodes[i]`` (the missing cell last); unused values are 0.
        """
        nodes = np.asarray(nodes)
        if self.is_uniform:
            # every feature max_width cells wide, every binned value its own cell: one
            # block of cells per (node, feature), taken whole
            blocks = flat.reshape(flat.shape[0], -1, self.max_width, *flat.shape[2:])
            return blocks[nodes, np.asarray(features)]
        idx = self.cell_index[features]  # (k, max_width)
        out = flat[nodes[:, None], np.maximum(idx, 0)]  # a new array
        out[idx < 0] = 0
        return out


class HistogramTarget:
    """Per-row target contributions for the histograms.

    Parameters
    ----------
    codes : ndarray of intp or None
        Classification: class code of each row in ``[0, n_classes)``.
    n_classes : int or None
        Classification: number of classes.
    channels : ndarray of float64, shape (n_samples, 3) or None
        Regression: ``[w, w*y, w*y**2]`` of each row.
    weights : ndarray of float64 or None
        Classification case weights (None: all 1, counts are then exact integers), of
        shape (n_samples,), or (n_groups, n_samples) for several weight *groups*: row
        ``i`` then adds ``weights[k, i]`` to channel ``k * n_classes + codes[i]`` of
        every group ``k`` (``n_channels = n_groups * n_classes``; the profit criterion
        histograms several per-case money amounts by the case's best decision this way;
        where the amounts depend on a case's level alone it histograms the level counts
        instead and derives the money from them, :func:`map_channels`).

    Examples
    --------
    >>> import numpy as np
    >>> from dtdecide.tree._kernels._histogram import HistogramTarget
    >>> HistogramTarget(codes=np.array([0, 1]), n_classes=2).n_channels
    2
    """

    def __init__(self, *, codes=None, n_classes=None, channels=None, weights=None):
        if (codes is None) == (channels is None):
            raise ValueError("give exactly one of codes (classification) or channels")
        self.codes = codes
        self.n_classes = n_classes
        self.channels = channels
        # channel-major copy: each channel is read as one contiguous column
        self._channels_by_row = None if channels is None else np.ascontiguousarray(channels.T)
        if weights is not None and np.ndim(weights) == 1:
            weights = np.asarray(weights)[None, :]
        self.weights = weights  # None or (n_groups, n_samples)
        self.is_classification = codes is not None
        self.n_groups = 1 if weights is None else weights.shape[0]
        self.n_channels = (
            n_classes * self.n_groups if self.is_classification else channels.shape[1]
        )
        # row counts equal the channel sums (classification) or channel 0 (regression)
        # exactly when every weight is 1
        self.counts_from_sums = weights is None if self.is_classification else bool(
            np.all(channels[:, 0] == 1.0)
        )
        n_rows = codes.shape[0] if self.is_classification else channels.shape[0]
        self.hist_dtype = np.dtype(
            HIST_DTYPE_SMALL_COUNTS
            if self.is_classification and weights is None and n_rows < _FLOAT32_EXACT_LIMIT
            else HIST_DTYPE
        )

    def _compact_codes(self):
        """The class codes in the smallest integer dtype (int8 for fewer than 127
        classes), made once: the compiled histogram reads one per row at random."""
        codes = getattr(self, "_codes_compact", None)
        if codes is None:
            codes = self._codes_compact = np.ascontiguousarray(
                self.codes, dtype=code_dtype(self.n_classes))
        return codes

    def counts_of(self, hist):
        """Row counts derived from a histogram (only when ``counts_from_sums``)."""
        if self.is_classification:
            return hist.sum(axis=-1)
        return hist[..., 0]


def map_channels(sums, channel_map):
    """The sums ``sums @ channel_map`` over the last axis, in float64.

    A histogram of per-level counts stands for one of any amounts that depend on a row's
    level alone: with ``channel_map[t, c]`` what a row of level ``t`` adds to channel
    ``c``, the cell's channel ``c`` is ``sum_t count[t] * channel_map[t, c]`` (the money
    channels of ``criterion="profit"`` from the class counts). The products are added
    level by level in order (not a BLAS product, whose order may vary), the order of the
    compiled split scan's ``_compiled_scan._mapped``, so both give the same numbers.

    Parameters
    ----------
    sums : ndarray, shape (..., n_levels)
    channel_map : ndarray of float64, shape (n_levels, n_channels)

    Returns
    -------
    ndarray of float64, shape (..., n_channels)

    Examples
    --------
    >>> import numpy as np
    >>> from dtdecide.tree._kernels._histogram import map_channels
    >>> counts = np.array([[3.0, 1.0], [0.0, 2.0]], dtype=np.float32)
    >>> map_channels(counts, np.array([[0.0, 1.0], [10.0, 0.0]])).tolist()
    [[10.0, 3.0], [20.0, 0.0]]
    """
    sums = np.asarray(sums)
    out = sums[..., 0, None] * channel_map[0]
    if out.dtype != np.float64:
        out = out.astype(np.float64)
    for t in range(1, channel_map.shape[0]):
        out += sums[..., t, None] * channel_map[t]
    return out


def build_histograms(X_binned, rows, slots, n_slots, n_bins_total, target, *,
                     with_counts=False, chunk_size=DEFAULT_CHUNK_SIZE, out=None, pool=None,
                     bases=None, segments=None, after=None):
    """Histograms of the rows ``rows``, grouped by ``slots``.

    Parameters
    ----------
    X_binned : ndarray of uint8/uint16, shape (n_samples, n_features)
        Binned inputs (Fortran order is fastest).
    rows : ndarray of intp or None
        Row indices to include (None: every row, in order).
    slots : ndarray of intp or None
        Slot (node position) of each included row, in ``[0, n_slots)``; None: every
        row is in slot 0 (``n_slots`` 1).
    n_slots : int
        Number of nodes.
    n_bins_total : int or BinLayout
        An int: every feature has this many cells (bins including the missing bin) and
        the result is 4-D. A :class:`BinLayout`: per-feature widths, flat 3-D result.
    target : HistogramTarget
        Per-row target contributions.
    with_counts : bool, default=False
        Also return plain row counts per (slot, feature, bin).
    chunk_size : int
        Rows per chunk; chunk histograms are summed.
    out : tuple (hist, counts) or None
        Preallocated outputs of the shapes below (``counts`` None unless
        ``with_counts``); they are overwritten.
    pool : ThreadPool or None
        Threads to share the features among (see :mod:`dtdecide.tree._kernels._parallel`);
        each feature's cells are computed exactly as without threads, so the result is
        identical. With more threads than whole features share out evenly, compiled
        whole-number float32 counts are also shared out by rows (:func:`_row_chunks`):
        the same integers in any order, so again the same result.
    bases : ndarray of int32/int64 or None
        The compiled kernels' offset of every included row (``slots[i] * stride`` plus,
        under classification, its class code: :func:`slot_bases_of`; the dtype
        :func:`bases_dtype` gives), when the caller
        has worked them out already (the grower, on the partition's threads); None:
        worked out here.
    segments : ndarray of int64, shape (n_segments, 2), or None
        With ``rows``: the included rows are only those at the positions
        ``segments[s, 0]:segments[s, 1]`` of ``rows``, ``slots`` (and ``bases``), stretch
        after stretch (ascending, disjoint; the rows ascend through them); the positions
        between are not read. The grower's partition on many threads leaves each
        thread's rows in its own stretch of one buffer. None: every position.
    after : callable or None
        ``after(a, b)`` is called once for each stretch ``a:b`` of the flat cell axis as
        soon as the cells ``a:b`` of ``hist`` (and ``counts``) are final, on the thread
        that finished them; the stretches cover every cell once. The grower subtracts
        the smaller children's histograms from their parents' there, while the cells
        are in that thread's cache, with no hand-off of its own.

    Returns
    -------
    hist : ndarray of float32/float64
        Shape (n_slots, n_features, n_bins_total, n_channels) for an int
        ``n_bins_total``; (n_slots, layout.n_cells, n_channels) for a layout.
    counts : ndarray of int32 of the same shape without the channel axis, or None

    Examples
    --------
    >>> import numpy as np
    >>> from dtdecide.tree._kernels._histogram import BinLayout, HistogramTarget, build_histograms
    >>> Xb = np.array([[0], [1], [1], [0]], dtype=np.uint8)
    >>> t = HistogramTarget(codes=np.array([0, 1, 1, 1]), n_classes=2)
    >>> hist, _ = build_histograms(Xb, None, np.array([0, 0, 1, 1]), 2, 3, t)
    >>> hist[0, 0].tolist(), hist[1, 0].tolist()
    ([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]], [[0.0, 1.0], [0.0, 1.0], [0.0, 0.0]])
    >>> flat, _ = build_histograms(Xb, None, np.zeros(4, dtype=np.intp), 1,
    ...                            BinLayout([3]), t)
    >>> flat.shape
    (1, 3, 2)
    """
    n_features = X_binned.shape[1]
    is_layout = isinstance(n_bins_total, BinLayout)
    layout = n_bins_total if is_layout else BinLayout.uniform(n_features, n_bins_total)
    if layout.widths.shape[0] != n_features:
        raise ValueError(
            f"the bin layout has {layout.widths.shape[0]} features; X_binned has {n_features}"
        )
    C = target.n_channels
    flat_shape = (n_slots, layout.n_cells)
    if out is None:
        hist = np.zeros((*flat_shape, C), dtype=target.hist_dtype)
        counts = np.zeros(flat_shape, dtype=BIN_COUNT_DTYPE) if with_counts else None
    else:
        hist, counts = out
        if not hist.flags.c_contiguous or (counts is not None and not counts.flags.c_contiguous):
            raise ValueError("out arrays must be C-contiguous (they are filled through views)")
        hist = hist.reshape(*flat_shape, C)  # a view: out arrays are contiguous
        if counts is not None:
            counts = counts.reshape(flat_shape)
    compiled_ok = use_compiled(X_binned.shape[0])
    if segments is not None:
        if rows is None or slots is None:
            raise ValueError("segments need rows and slots (positions of a row list)")
        segments = np.ascontiguousarray(segments, dtype=np.int64).reshape(-1, 2)
        if not compiled_ok or bases is None:
            # the NumPy twin (and offsets not worked out yet) read the rows gathered
            rows, slots = (np.concatenate([a[lo:hi] for lo, hi in segments.tolist()]
                                          or [a[:0]]) for a in (rows, slots))
            segments = bases = None
    n_rows = (int((segments[:, 1] - segments[:, 0]).sum()) if segments is not None
              else X_binned.shape[0] if rows is None else rows.shape[0])
    threaded = pool is not None and n_features >= 2 and n_rows > 0
    if out is not None and not threaded:
        hist[...] = 0
        if counts is not None:
            counts[...] = 0
    compiled = _compiled_accumulator(X_binned, rows, slots, layout, target, hist, counts,
                                     pool if threaded else None, bases, segments) \
        if compiled_ok and n_rows else None

    def accumulate(features, then=None):
        if out is not None and threaded:
            # each thread clears the cells of its own features (a level's histograms
            # are tens of MB: not a serial fill on the calling thread)
            for j in features:
                lo, hi = layout.offsets[j], layout.offsets[j + 1]
                hist[:, lo:hi] = 0
                if counts is not None:
                    counts[:, lo:hi] = 0
        if compiled is not None:
            compiled(np.asarray(features, dtype=np.intp))
        else:
            for start in range(0, n_rows, chunk_size):
                stop = min(start + chunk_size, n_rows)
                sel = slice(start, stop) if rows is None else rows[start:stop]
                slot = (np.zeros(stop - start, dtype=np.intp) if slots is None
                        else slots[start:stop])
                _accumulate_chunk(X_binned, sel, slot, n_slots, layout, target, hist,
                                  counts, features)
        if then is not None:  # a run of consecutive features: their cells are final
            then(int(layout.offsets[features[0]]), int(layout.offsets[features[-1] + 1]))

    # a feature costs a pass over the rows plus its output cells
    cost = n_rows + n_slots * layout.widths * C
    plan = None
    if (threaded and compiled is not None and target.hist_dtype == HIST_DTYPE_SMALL_COUNTS
            and hist.dtype == HIST_DTYPE_SMALL_COUNTS):
        # whole-number float32 counts (and int32 row counts): exact in any order, so
        # the rows may be shared out as well as the features
        plan = _row_chunks(cost, n_rows, n_slots * layout.widths * C, pool.n_threads)
    if not threaded:
        accumulate(range(n_features))
        if after is not None:
            after(0, layout.n_cells)
    elif plan is None:
        pool.map_groups(lambda features: accumulate(features, after),
                        feature_groups(cost, pool.n_threads))
    else:
        _chunked_pass(compiled, plan, hist, counts, layout, out is None, pool, after)
    if out is not None:
        return out  # filled through the views above
    if not is_layout:
        hist = hist.reshape(n_slots, n_features, layout.max_width, C)
        if counts is not None:
            counts = counts.reshape(n_slots, n_features, layout.max_width)
    return hist, counts


# included rows from which a pass's slot offsets are worked out on the pool's threads
_THREADED_BASES_ROWS = 1 << 16


def _compiled_accumulator(X_binned, rows, slots, layout, target, hist, counts, pool=None,
                          bases=None, segments=None):
    """``accumulate(features)`` running the compiled twin of :func:`_accumulate_chunk`.

    The compiled kernel visits every row once per feature, in row order, and adds into
    ``hist``/``counts`` directly (no chunks, no index temporaries). Each included row's
    offset in the flat histogram (its slot, and under classification its class) is
    worked out here once for the whole pass, the rows split between ``pool``'s threads,
    and read by every thread's features.

    ``run(features, into=(hist, counts), lo, hi)`` (unit-weight classification only)
    adds the included rows at positions ``lo:hi`` into other arrays of the same shapes
    (a chunk of :func:`_chunked_pass`), by handing the kernel views of the chunk. (A
    row range inside the kernel, tried first, made the level passes 10 % slower for
    every thread count; a chunk of the root, a row slice of the Fortran-ordered binned
    matrix, is one more compiled version of the kernel.)

    With ``segments`` (rows, slots and ``bases`` given; see :func:`build_histograms`)
    the included rows are stretches of the arrays: the kernels' ``_segments`` versions
    take every stretch (or, for a chunk ``lo:hi`` of the included rows counted across
    the stretches, the parts of the stretches it covers) as views, one call a task.
    """
    from . import _compiled

    # one dtype per argument: each combination of types is one compilation
    use_rows = rows is not None
    rows_ = np.asarray(rows, dtype=np.int32) if use_rows else np.zeros(1, dtype=np.int32)
    use_slots = slots is not None
    slots = np.asarray(slots, dtype=np.int32) if use_slots else np.zeros(1, dtype=np.int32)
    X_binned = np.asfortranarray(X_binned)
    if counts is None:
        counts_ = np.zeros((1, 1), dtype=BIN_COUNT_DTYPE)
    else:
        counts_ = counts
    with_counts = counts is not None
    offsets, widths = layout.offsets, layout.widths
    n_all = rows_.shape[0] if use_rows else slots.shape[0] if use_slots else X_binned.shape[0]
    # the kernels read every row's target values where they are (no gathered copies)
    codes = target._compact_codes() if target.is_classification else rows_
    stride = hist.shape[1] * hist.shape[2]
    base = np.zeros(1, dtype=bases_dtype(hist.shape[0], stride))
    if use_slots and bases is not None:
        if bases.shape != slots.shape or bases.dtype != base.dtype:
            # a caller's bug, not a reason to work them out
            raise ValueError(f"bases must hold one {base.dtype} offset per row, shape "
                             f"{slots.shape}; got {bases.dtype} of shape {bases.shape}")
        base = bases  # worked out by the caller (slot_bases_of)
    elif use_slots:
        base = np.empty(slots.shape[0], dtype=base.dtype)
        _fill_bases(_compiled, rows_, use_rows, slots, codes, target.is_classification,
                    stride, base, pool)
    if segments is not None:
        # the included rows' count before each stretch: a chunk lo:hi of them maps to
        # the stretches it covers
        seg_start = np.concatenate([[0], np.cumsum(segments[:, 1] - segments[:, 0])])
        n_all = int(seg_start[-1])

        cut = {}  # (lo, hi) -> its stretches, worked out once per chunk

        def stretches(lo, hi):
            if lo == 0 and hi >= n_all:
                return segments
            if lo >= hi:
                return segments[:0]
            part = cut.get((lo, hi))
            if part is None:
                first = int(np.searchsorted(seg_start, lo, side="right")) - 1
                last = int(np.searchsorted(seg_start, hi, side="left"))
                part = segments[first:last].copy()
                part[0, 0] += lo - seg_start[first]
                part[-1, 1] -= seg_start[last] - hi
                cut[(lo, hi)] = part
            return part

    if target.is_classification:
        weights = target.weights
        weights = (np.zeros((0, 1), dtype=np.float64) if weights is None
                   else np.ascontiguousarray(weights, dtype=np.float64))

        def run(features, into=None, lo=0, hi=n_all, clear=(0, 0)):
            h, c = (hist, counts_) if into is None else into
            c = counts_ if c is None else c
            if segments is not None:
                _compiled.hist_classes_segments(
                    X_binned, rows_, slots, base, codes, weights, target.n_classes,
                    features, offsets, widths, h, c, with_counts, stretches(lo, hi),
                    *clear)
                return
            X_, r_, s_, b_, k_ = X_binned, rows_, slots, base, codes
            if lo or hi < n_all:
                # a chunk of the included rows (unit counts only: no weights to cut):
                # views of its positions and, without a row list, of its rows
                if use_slots:
                    s_, b_ = slots[lo:hi], base[lo:hi]
                if use_rows:
                    r_ = rows_[lo:hi]
                else:
                    X_, k_ = X_binned[lo:hi], codes[lo:hi]
            _compiled.hist_classes(X_, r_, use_rows, s_, use_slots, b_, k_, weights,
                                   target.n_classes, features, offsets, widths, h, c,
                                   with_counts, *clear)
    else:
        chan = target._channels_by_row

        def run(features):
            if segments is not None:
                _compiled.hist_channels_segments(X_binned, rows_, slots, base, chan,
                                                 features, offsets, widths, hist, counts_,
                                                 with_counts, segments)
                return
            _compiled.hist_channels(X_binned, rows_, use_rows, slots, use_slots, base, chan,
                                    features, offsets, widths, hist, counts_, with_counts)
    return run


# Row-chunked passes (threads many relative to features). A task is a run of
# consecutive features over one chunk of the included rows; chunk c > 0 adds into its own
# histograms, summed into chunk 0's afterwards (_MAX_ROW_CHUNKS, _MIN_CHUNK_ROWS: the
# package's, as binning's).
# a chunk's rows per feature against its cells (cleared, then summed into the result)
_ROWS_PER_CELL = 4
# share the rows only when it shortens the longest thread's work by this much
_CHUNK_GAIN = 0.9
# features in one task of a row-chunked pass (0: a whole run of the plan, one round of
# the ideal length for threads of equal speed). Tasks of one feature each (20 features
# x 4 chunks = 80 tasks on 16 threads) would let threads that run fast take more of
# them, but a task's chunk of rows and offsets is then read for one feature instead of
# a run's: 16 threads, 2M rows on the 2-core machine, 0.24-0.25 s of the passes' CPU
# against 0.16-0.17 s (28 November, 01:58 UTC)
_TASK_FEATURES = 0


def _row_chunks(cost, n_rows, cells, n_threads):
    """``(groups, bounds)``: runs of features and chunks of the included rows for a
    threaded pass (:func:`~dtdecide.tree._kernels._parallel.feature_row_split`), or None
    to share the features alone.

    At most ``_MAX_ROW_CHUNKS`` chunks of at least ``_MIN_CHUNK_ROWS`` rows, each
    chunk's rows at least ``_ROWS_PER_CELL`` times a feature's cells (the extra chunks'
    cells are cleared and then summed into the result: at the deepest levels of a small
    fit they outweigh the rows). Called for whole-number counts only, which are exact
    in any order: the plan depends on the threads, the result does not.
    """
    if n_threads <= 2:
        return None
    max_chunks = min(_MAX_ROW_CHUNKS, n_rows // _MIN_CHUNK_ROWS,
                     int(n_rows // max(_ROWS_PER_CELL * float(np.max(cells)), 1.0)))
    return feature_row_plan(cost, n_rows, n_threads, max_chunks, _CHUNK_GAIN)


def _chunked_pass(run, plan, hist, counts, layout, zeroed, pool, after=None):
    """Every (feature run, row chunk) task of ``plan`` on the pool, then the chunks'
    histograms summed into ``hist``/``counts`` (``zeroed``: ``hist`` and ``counts``
    start at zero; else each task clears its cells first), in stretches of each run's
    cells, as many stretches in all as threads (``after(a, b)`` of
    :func:`build_histograms` called on each, once summed): all in one hand-off, a
    run's sums starting as soon as its last task is done."""
    from . import _compiled

    groups, bounds = plan
    n_chunks = bounds.shape[0] - 1
    # the other chunks' histograms in one array each (summed in one call a stretch)
    hist_parts = np.empty((n_chunks - 1, *hist.shape), dtype=hist.dtype)
    count_parts = (np.zeros((0, 1, 1), dtype=np.int32) if counts is None
                   else np.empty((n_chunks - 1, *counts.shape), dtype=counts.dtype))
    no_counts = np.zeros((1, 1), dtype=np.int32)
    parts = [(hist, counts)] + [
        (hist_parts[i], None if counts is None else count_parts[i])
        for i in range(n_chunks - 1)]
    offsets = layout.offsets

    def cells(features):
        return int(offsets[features[0]]), int(offsets[features[-1] + 1])

    # each run's features in tasks of _TASK_FEATURES features (the run's chunk
    # buffers are shared by its tasks: disjoint cells)
    step = _TASK_FEATURES or max(len(g) for g in groups)
    pieces = [np.asarray(g[i : i + step], dtype=np.intp)
              for g in groups for i in range(0, len(g), step)]
    pieces = [(f, *cells(f)) for f in pieces]

    def task(pc):
        features, a, b = pieces[pc[0]]
        c = pc[1]
        # the kernel clears the task's cells itself (one call: the interpreter's lock
        # is taken back once a task, not after each of three calls)
        run(features, parts[c], int(bounds[c]), int(bounds[c + 1]),
            (a, b) if c or not zeroed else (0, 0))

    def reduce(a, b):
        # in chunk order (whole numbers: exact in any order), in one call
        _compiled.add_chunk_cells(hist, no_counts if counts is None else counts,
                                  counts is not None, hist_parts, count_parts, a, b)
        if after is not None:
            after(a, b)

    # one hand-off: the (piece, chunk) tasks, then the sums of each run's stretches,
    # each waiting for the last task of its run (taken by then: tasks are taken in
    # order, so every task it waits for is running or done)
    tasks = [(p, c) for c in range(n_chunks) for p in range(len(pieces))]
    run_of = [g for g, features in enumerate(groups)
              for _ in range(0, len(features), step)]
    left = [0] * len(groups)
    for p, _ in tasks:
        left[run_of[p]] += 1
    ready = [threading.Event() for _ in groups]
    lock = threading.Lock()
    per_run = -(-pool.n_threads // len(groups))
    sums = []
    for g, features in enumerate(groups):
        a, b = cells(features)
        cuts = np.linspace(a, b, min(per_run, b - a) + 1).astype(np.intp).tolist()
        sums += [(g, lo, hi) for lo, hi in zip(cuts[:-1], cuts[1:]) if hi > lo]

    def work(i):
        if i >= len(tasks):
            g, a, b = sums[i - len(tasks)]
            ready[g].wait()
            reduce(a, b)
            return
        p = tasks[i][0]
        try:
            task(tasks[i])
        finally:  # counted even when it raised (map_groups raises it afterwards)
            with lock:
                left[run_of[p]] -= 1
                last = not left[run_of[p]]
            if last:
                ready[run_of[p]].set()

    pool.map_groups(work, list(range(len(tasks) + len(sums))))


def bases_dtype(n_slots, stride):
    """The dtype of the compiled histograms' row offsets (``slot * stride`` plus a class
    code) for ``n_slots`` slots of ``stride`` cells: ``int32`` whenever every offset
    fits, else ``int64``.

    Every feature's pass reads each included row's offset once, beside its row number
    (``int32``) and binned value: with 4 bytes instead of 8 the passes move a third
    fewer bytes (one thread, 5,000,000 rows x 20 features in 256 slots: 0.176 -> 0.148
    s on the 2-core machine), and on many cores the histograms' passes share the
    memory's bandwidth.

    Examples
    --------
    >>> from dtdecide.tree._kernels._histogram import bases_dtype
    >>> bases_dtype(512, 20 * 256 * 2), bases_dtype(2 ** 16, 2 ** 16)
    (dtype('int32'), dtype('int64'))
    """
    top = (int(n_slots) + 1) * int(stride)
    return np.dtype(np.int32 if top < np.iinfo(np.int32).max else np.int64)


def slot_bases_of(layout, target, n_slots):
    """``fill(rows, slots, base, start, stop)``: the compiled histograms' offsets
    (``bases`` of :func:`build_histograms`) of the included rows ``start:stop`` under
    ``layout`` and ``target``, for a caller that works them out where it makes the rows
    (the grower's partition, each thread its own rows while they are in its cache), in
    slots below ``n_slots``; ``fill.dtype`` is the dtype ``base`` must have
    (:func:`bases_dtype`)."""
    from . import _compiled

    stride = layout.n_cells * target.n_channels
    use_codes = target.is_classification
    codes = target._compact_codes() if use_codes else None  # made here, once

    def fill(rows, slots, base, start, stop):
        _compiled.slot_bases(rows, True, slots, codes if use_codes else rows, use_codes,
                             stride, base, start, stop)

    fill.dtype = bases_dtype(n_slots, stride)
    return fill


def _fill_bases(_compiled, rows, use_rows, slots, codes, use_codes, stride, base, pool):
    """``base`` = every included row's slot offset (:func:`_compiled.slot_bases`), on
    ``pool``'s threads in contiguous ranges of rows when there are enough of them."""
    n = base.shape[0]
    if pool is None or pool.n_threads < 2 or n < _THREADED_BASES_ROWS:
        _compiled.slot_bases(rows, use_rows, slots, codes, use_codes, stride, base, 0, n)
        return
    bounds = np.linspace(0, n, pool.n_threads + 1).astype(np.int64)
    pool.map_groups(
        lambda k: _compiled.slot_bases(rows, use_rows, slots, codes, use_codes, stride, base,
                                       bounds[k], bounds[k + 1]),
        range(pool.n_threads))


def _local_bins(X_binned, sel, j, width, max_width):
    """Binned values of feature ``j`` with the shared missing code mapped to ``width - 1``."""
    b = X_binned[sel, j]
    if width < max_width:
        # non-missing values are < width - 1; only the missing code is larger
        b = np.minimum(b, width - 1)
    return b


def _accumulate_chunk(X_binned, sel, slot, n_slots, layout, target, hist, counts, features):
    """Add the histogram of one chunk of rows into the flat ``hist`` (and ``counts``).

    Only the cells of ``features`` are touched (threads share the features out).
    """
    C = target.n_channels
    slot_ = slot.astype(np.intp)
    bases = {}  # per width: index of (slot, bin 0[, class]) in a (slot, bin[, class]) grid
    if target.is_classification:
        codes = target.codes[sel]
        C = target.n_classes  # cells per weight group
        groups = [None] if target.weights is None else [w[sel] for w in target.weights]
        weights = groups[0]
        for j in features:
            W, lo = int(layout.widths[j]), int(layout.offsets[j])
            base = bases.get(W)
            if base is None:
                base = slot_ * (W * C)
                base += codes
                bases[W] = base
            idx = np.multiply(_local_bins(X_binned, sel, j, W, layout.max_width), C,
                              dtype=np.intp)
            idx += base
            for k, wk in enumerate(groups):
                h = np.bincount(idx, weights=wk, minlength=n_slots * W * C)
                h = h.reshape(n_slots, W, C)
                hist[:, lo : lo + W, k * C : (k + 1) * C] += h
            if counts is not None:
                if weights is None:
                    counts[:, lo : lo + W] += h.sum(axis=-1).astype(BIN_COUNT_DTYPE)
                else:
                    idx -= codes
                    idx //= C
                    counts[:, lo : lo + W] += np.bincount(
                        idx, minlength=n_slots * W
                    ).reshape(n_slots, W)
    else:
        chan = target._channels_by_row
        for j in features:
            W, lo = int(layout.widths[j]), int(layout.offsets[j])
            base = bases.get(W)
            if base is None:
                base = bases[W] = slot_ * W
            idx = _local_bins(X_binned, sel, j, W, layout.max_width).astype(np.intp)
            idx += base
            size = n_slots * W
            for c in range(C):
                hist[:, lo : lo + W, c] += np.bincount(
                    idx, weights=chan[c][sel], minlength=size
                ).reshape(n_slots, W)
            if counts is not None:
                counts[:, lo : lo + W] += np.bincount(idx, minlength=size).reshape(n_slots, W)
