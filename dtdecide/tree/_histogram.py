"""Histograms of node x feature x bin x channel, built with ``np.bincount``.

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
"""

import numpy as np

__all__ = ["HistogramTarget", "build_histograms", "HIST_DTYPE", "COUNT_DTYPE"]

# Sums of weights and of y: float64 keeps counts exact up to 2**53 and makes
# "parent - smaller child" exact for integer counts.
HIST_DTYPE = np.float64
# Unweighted class counts below 2**24 rows are exact in float32, which halves the memory
# and the memory traffic of the histograms (the split search computes in float64).
HIST_DTYPE_SMALL_COUNTS = np.float32
_FLOAT32_EXACT_LIMIT = 1 << 24
# Row counts per bin: int32 is exact below 2**31 rows (grow_tree's limit) at half the
# memory of int64.
COUNT_DTYPE = np.int32
# Rows handled per bincount call: bounds temporaries to a few arrays of this length.
DEFAULT_CHUNK_SIZE = 1 << 18


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
        Classification case weights (None: all 1, counts are then exact integers).

    Examples
    --------
    >>> import numpy as np
    >>> from dtdecide.tree._histogram import HistogramTarget
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
        self.weights = weights
        self.is_classification = codes is not None
        self.n_channels = n_classes if self.is_classification else channels.shape[1]
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

    def counts_of(self, hist):
        """Row counts derived from a histogram (only when ``counts_from_sums``)."""
        if self.is_classification:
            return hist.sum(axis=-1)
        return hist[..., 0]


def build_histograms(
    X_binned,
    rows,
    slots,
    n_slots,
    n_bins_total,
    target,
    *,
    with_counts=False,
    chunk_size=DEFAULT_CHUNK_SIZE,
    out=None,
):
    """Histograms of the rows ``rows``, grouped by ``slots``.

    Parameters
    ----------
    X_binned : ndarray of uint8/uint16, shape (n_samples, n_features)
        Binned inputs (Fortran order is fastest).
    rows : ndarray of intp or None
        Row indices to include (None: every row, in order).
    slots : ndarray of intp
        Slot (node position) of each included row, in ``[0, n_slots)``.
    n_slots : int
        Number of nodes.
    n_bins_total : int
        Bins per feature including the missing bin.
    target : HistogramTarget
        Per-row target contributions.
    with_counts : bool, default=False
        Also return plain row counts per (slot, feature, bin).
    chunk_size : int
        Rows per chunk; chunk histograms are summed.
    out : tuple (hist, counts) or None
        Preallocated outputs of the shapes below (``counts`` None unless
        ``with_counts``); they are overwritten.

    Returns
    -------
    hist : ndarray of float64, shape (n_slots, n_features, n_bins_total, n_channels)
    counts : ndarray of int32, shape (n_slots, n_features, n_bins_total), or None

    Examples
    --------
    >>> import numpy as np
    >>> from dtdecide.tree._histogram import HistogramTarget, build_histograms
    >>> Xb = np.array([[0], [1], [1], [0]], dtype=np.uint8)
    >>> t = HistogramTarget(codes=np.array([0, 1, 1, 1]), n_classes=2)
    >>> hist, _ = build_histograms(Xb, None, np.array([0, 0, 1, 1]), 2, 3, t)
    >>> hist[0, 0].tolist(), hist[1, 0].tolist()
    ([[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]], [[0.0, 1.0], [0.0, 1.0], [0.0, 0.0]])
    """
    n_features = X_binned.shape[1]
    B, C = n_bins_total, target.n_channels
    if out is None:
        hist = np.zeros((n_slots, n_features, B, C), dtype=target.hist_dtype)
        counts = (
            np.zeros((n_slots, n_features, B), dtype=COUNT_DTYPE) if with_counts else None
        )
    else:
        hist, counts = out
        hist[...] = 0
        if counts is not None:
            counts[...] = 0
    n_rows = X_binned.shape[0] if rows is None else rows.shape[0]
    for start in range(0, n_rows, chunk_size):
        stop = min(start + chunk_size, n_rows)
        sel = slice(start, stop) if rows is None else rows[start:stop]
        slot = slots[start:stop]
        _accumulate_chunk(X_binned, sel, slot, n_slots, B, target, hist, counts)
    return hist, counts


def _accumulate_chunk(X_binned, sel, slot, n_slots, B, target, hist, counts):
    """Add the histogram of one chunk of rows into ``hist`` (and ``counts``)."""
    n_features = X_binned.shape[1]
    C = target.n_channels
    slot_base = slot.astype(np.intp) * B  # index of (slot, bin 0) in a (slot, bin) grid
    if target.is_classification:
        codes = target.codes[sel]
        weights = None if target.weights is None else target.weights[sel]
        base = slot_base * C + codes  # index of (slot, bin 0, class)
        size = n_slots * B * C
        for j in range(n_features):
            idx = np.multiply(X_binned[sel, j], C, dtype=np.intp)
            idx += base
            h = np.bincount(idx, weights=weights, minlength=size)
            hist[:, j] += h.reshape(n_slots, B, C)
            if counts is not None:
                if weights is None:
                    counts[:, j] += h.reshape(n_slots, B, C).sum(axis=-1).astype(COUNT_DTYPE)
                else:
                    idx -= codes
                    idx //= C
                    counts[:, j] += np.bincount(idx, minlength=n_slots * B).reshape(
                        n_slots, B
                    )
    else:
        chan = target._channels_by_row
        size = n_slots * B
        for j in range(n_features):
            idx = X_binned[sel, j].astype(np.intp)
            idx += slot_base
            for c in range(C):
                hist[:, j, :, c] += np.bincount(idx, weights=chan[c][sel], minlength=size).reshape(
                    n_slots, B
                )
            if counts is not None:
                counts[:, j] += np.bincount(idx, minlength=size).reshape(n_slots, B)
