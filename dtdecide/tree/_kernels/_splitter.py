"""Best split of many nodes at once, from their histograms.

Layer 1 (kernels) of :mod:`dtdecide.tree` (``_kernels``); see the architecture page.

:func:`find_best_splits` scans every feature of every node (vectorised over nodes and bins;
the only Python loop is over features) and returns, per node, the split with the largest
gain ``W(parent) - W(left) - W(right)`` (:mod:`dtdecide.tree._kernels._criteria`).

Candidate splits of a feature, over its non-missing bins taken in some *order*:
"the first ``s + 1`` bins of the order go left", for every ``s``. Missing values (the
missing bin) are tried on the left and on the right; the better side is learned per split.
When the node has no missing value for that feature, ``missing_left`` is set to the child
with the larger training weight (ties: left).

* Numeric features: bins in their natural order, so ``s`` is the last bin going left and
  the raw threshold is the upper edge of bin ``s``.
* Categorical features, binary target or regression: categories ordered by event rate
  (proportion of class 1) or by mean; scanning prefixes of that order finds the optimal
  binary partition for Gini, entropy and variance (Breiman et al. 1984, Thm 4.5 and 9.6).
* Categorical features, three or more classes: a heuristic. Orders by the proportion of
  each class and by the mean class index (the natural order for ordinal targets) are all
  tried and the best prefix among them is taken; this is exact whenever the best split
  separates one class's "high" categories, and never worse than any one-class order.
* Every category present in the node takes part, however rare (its rate is used as is:
  the optimum above is exact on training data; use ``min_samples_leaf`` to keep rare
  categories from forming leaves of their own). Categories absent from the node — and
  categories never seen in training — follow the missing direction.

A candidate is valid when each child has at least ``min_samples_leaf`` rows and positive
weight.
"""

from dataclasses import dataclass

import numpy as np

from ..._jit import use_compiled
from ._criteria import channel_sum, split_gain
from ._histogram import BinLayout, map_channels
from ._parallel import feature_groups, feature_row_split
from ._profit import TIE_BREAK

__all__ = ["SplitResult", "find_best_splits", "find_level_splits"]


@dataclass(eq=False)
class SplitResult:
    """Best split of each node (arrays of length ``n_nodes`` unless noted).

    Attributes
    ----------
    gain : ndarray of float64
        ``W(parent) - W(left) - W(right)`` under the criterion's (class-weighted) sums;
        ``-inf`` where no valid split exists.
    feature : ndarray of intp
        Split feature, ``-1`` where no valid split exists.
    bin_threshold : ndarray of intp
        Numeric splits: last bin going left; ``-1`` otherwise.
    is_categorical : ndarray of bool
    missing_left : ndarray of bool
    go_left : ndarray of bool, shape (n_nodes, max_width)
        For every binned value of the chosen feature (the shared missing code
        ``max_width - 1`` last), whether it goes left.
    """

    gain: np.ndarray
    feature: np.ndarray
    bin_threshold: np.ndarray
    is_categorical: np.ndarray
    missing_left: np.ndarray
    go_left: np.ndarray

    @property
    def is_valid(self):
        """Nodes with a valid split."""
        return self.feature >= 0


def _channel_weight(sums, is_classification):
    return channel_sum(sums) if is_classification else sums[..., 0]


def _scan(Hs, cs, Hm, cm, ctx):
    """Best prefix of an ordered bin sequence, missing left or right.

    Hs (m, b, C) / cs (m, b): ordered non-missing bins; Hm (m, C) / cm (m,): missing bin.
    Returns gain, pos, missing_left.
    """
    crit, loss, msl, is_clf, counts_are_weights = ctx
    cumH = np.cumsum(Hs, axis=1, dtype=np.float64)
    cumc = _channel_weight(cumH, is_clf) if counts_are_weights else np.cumsum(cs, axis=1)
    P = cumH[:, -1] + Hm  # node totals (this feature's own sums: no rounding mismatch)
    Pc = cumc[:, -1] + cm

    def gains(LH, Lc, P, Pc):
        Rc = Pc[:, None] - Lc
        valid = (Lc >= msl) & (Rc >= msl)
        if not counts_are_weights:  # otherwise row counts >= 1 imply positive weight
            wl = _channel_weight(LH, is_clf)
            valid &= wl > 0
            valid &= (_channel_weight(P, is_clf)[:, None] - wl) > 0
        g = split_gain(LH, P, crit, loss)
        return np.where(valid, g, -np.inf)

    rows = np.arange(Hs.shape[0])
    g_right = gains(cumH, cumc, P, Pc)
    pos = np.argmax(g_right, axis=1)
    best = g_right[rows, pos]
    missing_left = np.zeros(Hs.shape[0], dtype=bool)
    has_missing = cm > 0
    if has_missing.any():
        sub = np.flatnonzero(has_missing)
        g_left = gains(cumH[sub] + Hm[sub, None, :], cumc[sub] + cm[sub, None], P[sub], Pc[sub])
        pos_l = np.argmax(g_left, axis=1)
        best_l = g_left[np.arange(sub.size), pos_l]
        better = best_l > best[sub]
        take = sub[better]
        pos[take] = pos_l[better]
        best[take] = best_l[better]
        missing_left[take] = True
    return best, pos, missing_left


def _category_keys(Hn, cn, is_clf, criterion=None):
    """Orderings of the categories (keys, one per heuristic), absent ones last."""
    absent = cn <= 0
    if criterion is not None and not isinstance(criterion, str):  # ProfitCriterion
        keys = criterion.category_keys(Hn)
    elif is_clf:
        tot = Hn.sum(axis=-1)
        safe = np.where(tot > 0, tot, 1.0)
        n_classes = Hn.shape[-1]
        if n_classes == 2:
            keys = [Hn[..., 1] / safe]
        else:
            keys = [Hn[..., t] / safe for t in range(n_classes)]
            keys.append(Hn @ np.arange(n_classes, dtype=np.float64) / safe)
    else:
        W = Hn[..., 0]
        keys = [Hn[..., 1] / np.where(W > 0, W, 1.0)]
    return [np.where(absent, np.inf, k) for k in keys]


def _category_orders(Hn, cn, is_clf, criterion):
    """The orders in which a categorical feature's bins are scanned, one per key:
    ``(m, n_scan)`` positions among the non-missing bins.

    Absent categories sort last and add nothing to the prefix sums: prefixes beyond the
    most categories any node has repeat an earlier gain, which argmax (first maximum)
    never picks, so the scan stops there (exact).
    """
    n_scan = max(int((cn > 0).sum(axis=1).max()), 1)
    return [np.argsort(key, axis=1, kind="stable")[:, :n_scan]
            for key in _category_keys(Hn, cn, is_clf, criterion)]


def find_best_splits(
    hist,
    counts,
    *,
    is_classification,
    criterion,
    loss_matrix=None,
    class_weight=None,
    is_categorical,
    min_samples_leaf=1,
    layout=None,
    per_feature=False,
    pool=None,
    n_rows=None,
    channel_map=None,
):
    """Best split of every node from its histogram.

    Parameters
    ----------
    hist : ndarray
        Raw sums, see :mod:`dtdecide.tree._kernels._histogram`: shape (n_nodes, n_features,
        n_bins_total, n_channels) (uniform widths, missing bin last) when ``layout`` is
        None, else the flat (n_nodes, layout.n_cells, n_channels).
    counts : ndarray or None
        Row counts per bin, shaped as ``hist`` without the channel axis; None when they
        equal the weights (all case weights 1).
    is_classification : bool
    criterion : str
        See :mod:`dtdecide.tree._kernels._criteria`.
    loss_matrix : ndarray or None
        Symmetric loss matrix for ``generalized_gini``.
    class_weight : ndarray of shape (n_classes,) or None
        Multiplier of each class's sums in the split search.
    is_categorical : ndarray of bool, shape (n_features,)
    min_samples_leaf : int
        Least number of rows in each child.
    layout : BinLayout or None
        Per-feature widths of a flat ``hist``. Each feature is scanned over its own bins
        only, so the work scales with the sum of the widths.
    per_feature : bool, default=False
        Return the best split of *every feature* of every node instead of the best
        feature's: the arrays of the result then have ``n_nodes * n_features`` entries,
        node-major (entry ``i * n_features + j`` is feature ``j`` of node ``i``; feature
        ``-1`` where that feature has no valid split). The scan is the same, so entry
        ``(i, j)`` of the feature the grower picks is the grower's split. Used to list a
        node's candidate splits.
    pool : ThreadPool or None
        Threads that scan groups of features (:mod:`dtdecide.tree._kernels._parallel`);
        the best split is then chosen in feature order, so the result does not depend
        on it.
    n_rows : int or None
        Rows of the table being fitted, for :func:`dtdecide._jit.use_compiled` (the
        grower passes it so that one fit makes one choice); None counts the rows of
        this histogram. The compiled scan (:mod:`._compiled_scan`) and this NumPy scan
        give the same splits.
    channel_map : ndarray of shape (n_channels, n_sums) or None
        ``hist`` holds per-level counts (weighted or not) and the criterion's sums of a
        cell are :func:`~dtdecide.tree._kernels._histogram.map_channels` of its
        channels (``criterion="profit"`` on its money per level); ``class_weight`` is
        then None. Row counts (``counts`` None: the channels' sum) and the validity
        tests read the counts; the gains, the categorical orders and the heavier child
        (missing side) the mapped sums.

    Returns
    -------
    SplitResult
        ``go_left`` has ``max_width`` columns indexed by binned value (the shared missing
        code last); values a feature never takes are False (numeric) or follow the
        missing side (categorical).

    Examples
    --------
    >>> import numpy as np
    >>> from dtdecide.tree._kernels._splitter import find_best_splits
    >>> hist = np.zeros((1, 1, 4, 2))  # one node, one feature, 3 bins + missing
    >>> hist[0, 0, :3] = [[2, 0], [1, 1], [0, 2]]
    >>> counts = hist.sum(-1)
    >>> s = find_best_splits(hist, counts, is_classification=True, criterion="gini",
    ...                      is_categorical=np.array([False]))
    >>> int(s.feature[0]), int(s.bin_threshold[0]), s.go_left[0].tolist()
    (0, 0, [True, False, False, False])
    """
    if layout is None:
        if hist.ndim != 4:
            raise ValueError(
                f"hist must be 4-D (n_nodes, n_features, n_bins, n_channels) without a "
                f"layout; got shape {hist.shape}"
            )
        m, n_features, B, C = hist.shape
        layout = BinLayout.uniform(n_features, B)
        hist = hist.reshape(m, n_features * B, C)
        if counts is not None:
            counts = counts.reshape(m, n_features * B)
    m, n_features = hist.shape[0], layout.widths.shape[0]
    _check_cells(hist, layout)
    B = layout.max_width
    rows = np.arange(m)
    # without explicit counts, class weights or a map, the criterion sums are the row
    # counts
    counts_are_weights = counts is None and class_weight is None and channel_map is None
    ctx = (criterion, loss_matrix, min_samples_leaf, is_classification, counts_are_weights)
    # per_feature: one "slot" per (node, feature), node-major; otherwise one per node
    k = n_features if per_feature else 1
    best_gain = np.full(m * k, -np.inf)
    best_feature = np.full(m * k, -1, dtype=np.intp)
    best_pos = np.zeros(m * k, dtype=np.intp)
    best_ml = np.zeros(m * k, dtype=bool)
    best_order = None  # (m * k, B - 1) order of the winning categorical scan (padded)
    if n_rows is None:
        w0 = int(layout.widths[0])
        first = counts[:, :w0] if counts is not None else hist[:, :w0]
        n_rows = int(first.sum()) if counts is not None else int(
            _channel_weight(first.sum(axis=(0, 1)), is_classification))
    n_sums = None if channel_map is None else channel_map.shape[1]
    if _compiled_supports(hist, criterion, n_sums) and use_compiled(n_rows):
        return _find_compiled(hist, counts, layout, is_classification, criterion,
                              loss_matrix, class_weight, is_categorical, min_samples_leaf,
                              per_feature, pool, channel_map, np.repeat(rows, k))

    def scan_feature(j):
        """``(gain, pos, missing_left, order)`` of feature ``j``'s best split per node."""
        w, lo = int(layout.widths[j]), int(layout.offsets[j])
        H = hist[:, lo : lo + w]
        if class_weight is not None:
            H = H * class_weight
        if channel_map is not None:
            H = map_channels(H, channel_map)
        cnt = (
            counts[:, lo : lo + w]
            if counts is not None
            else _channel_weight(hist[:, lo : lo + w], is_classification)
        )
        Hn, Hm = H[:, : w - 1], H[:, w - 1]
        cn, cm = cnt[:, : w - 1], cnt[:, w - 1]
        if not is_categorical[j]:
            g, pos, ml = _scan(Hn, cn, Hm, cm, ctx)
            return g, pos, ml, None
        g = np.full(m, -np.inf)
        pos = np.zeros(m, dtype=np.intp)
        ml = np.zeros(m, dtype=bool)
        orders = _category_orders(Hn, cn, is_classification, criterion)
        order = np.zeros((m, orders[0].shape[1]), dtype=np.intp)
        for o in orders:
            Hs = np.take_along_axis(Hn, o[:, :, None], axis=1)
            cs = np.take_along_axis(cn, o, axis=1)
            g_k, pos_k, ml_k = _scan(Hs, cs, Hm, cm, ctx)
            better = g_k > g
            g[better], pos[better], ml[better] = g_k[better], pos_k[better], ml_k[better]
            order[better] = o[better]
        return g, pos, ml, order

    if pool is None or n_features < 2:
        scans = (scan_feature(j) for j in range(n_features))  # one at a time
    else:
        # threads scan their own features (NumPy releases the GIL in the large array
        # operations); the results are then taken in feature order, as without threads
        done = {}
        for group in pool.map_groups(
            lambda features: [(j, scan_feature(j)) for j in features],
            feature_groups(layout.widths, pool.n_threads),
        ):
            done.update(group)
        scans = (done[j] for j in range(n_features))
    for j, (g, pos, ml, order) in enumerate(scans):
        if per_feature:  # this feature's slots take its best split (when valid)
            slot = rows * k + j
            better = np.zeros(m * k, dtype=bool)
            better[slot] = g > -np.inf
            src = np.flatnonzero(g > -np.inf)
        else:
            better = g > best_gain
            src = np.flatnonzero(better)
        if not better.any():
            continue
        best_gain[better] = g[src]
        best_feature[better] = j
        best_pos[better] = pos[src]
        best_ml[better] = ml[src]
        if order is not None:
            if best_order is None:
                best_order = np.zeros((m * k, B - 1), dtype=np.intp)
            best_order[better, : order.shape[1]] = order[src]

    return _split_result(hist, counts, layout, np.repeat(rows, k), best_gain, best_feature,
                         best_pos, best_ml, best_order, is_categorical, is_classification,
                         channel_map=channel_map)


def find_level_splits(hists, counts, *, is_classification, criterion, loss_matrix=None,
                      class_weight=None, is_categorical, min_samples_leaf=1, layout,
                      pool=None, n_rows=None, channel_map=None):
    """:func:`find_best_splits` of every part of a level (``hists[p]``, ``counts[p]``
    with a flat ``layout``), in part order.

    Where the compiled scan runs, every part's features are scanned in one hand-off to
    ``pool`` (each thread scanning its group of features in every part) instead of one
    hand-off per part; the splits are those of :func:`find_best_splits` on each part.

    Returns
    -------
    list of SplitResult
        One per part.
    """
    kw = dict(is_classification=is_classification, criterion=criterion,
              loss_matrix=loss_matrix, class_weight=class_weight,
              is_categorical=is_categorical, min_samples_leaf=min_samples_leaf,
              layout=layout, n_rows=n_rows, channel_map=channel_map)
    n_sums = None if channel_map is None else channel_map.shape[1]
    if (len(hists) == 1 or n_rows is None or not use_compiled(n_rows)
            or not all(_compiled_supports(h, criterion, n_sums) for h in hists)):
        return [find_best_splits(h, c, pool=pool, **kw) for h, c in zip(hists, counts)]
    for h in hists:
        _check_cells(h, layout)
    scans = [_compiled_scan_of(h, c, layout, is_classification, criterion, loss_matrix,
                               class_weight, is_categorical, min_samples_leaf, False,
                               channel_map)
             for h, c in zip(hists, counts)]
    _run_scans([scan for scan, _ in scans], sum(h.shape[0] for h in hists), layout, pool)
    return [_scanned_splits(h, c, layout, finish, is_categorical, is_classification,
                            channel_map)
            for h, c, (_, finish) in zip(hists, counts, scans)]


def _check_cells(hist, layout):
    """A ``ValueError`` unless ``hist`` has the layout's cells per node."""
    if hist.shape[1] != layout.n_cells:
        raise ValueError(
            f"hist has {hist.shape[1]} cells per node; the layout has {layout.n_cells}"
        )


#: most channels the compiled scan takes (``channel_sum`` adds them one by one up to 16)
_COMPILED_MAX_CHANNELS = 16


def _compiled_supports(hist, criterion, n_sums=None):
    """Whether the compiled scan repeats this NumPy scan's arithmetic for ``criterion``
    (on ``n_sums`` sums per cell: default ``hist``'s channels)."""
    C = hist.shape[-1] if n_sums is None else n_sums
    if C > _COMPILED_MAX_CHANNELS:
        return False
    if not isinstance(criterion, str):  # a ProfitCriterion
        return True
    # the generalized Gini of more than 6 classes is an einsum (another order of sums)
    return criterion in ("gini", "entropy", "variance") or (
        criterion == "generalized_gini" and C <= 6)


#: the largest table of NumPy's log2 of the integers the compiled entropy scan reads
#: (16 MiB): beyond it, the C library's log2, which may differ in the last bit
_LOG2_TABLE_MAX = 1 << 21
_log2_cache = [np.zeros(1)]


def _log2_table(n):
    """``np.log2(k)`` for ``k < n`` (at least), kept for the next call.

    The compiled entropy scan reads it for integer sums (unit weights), so that its
    gains are NumPy's bit for bit: NumPy's vectorised ``log2`` and the C library's
    differ in the last bit for a few arguments.
    """
    table = _log2_cache[0]
    if table.shape[0] < n:
        size = max(n, min(2 * table.shape[0], _LOG2_TABLE_MAX))
        table = np.zeros(size)
        np.log2(np.arange(1, size, dtype=np.float64), out=table[1:])
        _log2_cache[0] = table
    return table


# Below this many (node, cell) pairs the compiled scan runs on the calling thread: it
# takes tens of microseconds, less than handing it to the threads and back.
_SCAN_INLINE_CELLS = 1 << 16
# a threaded scan by blocks of nodes (_run_scans): at most this many blocks, each of at
# least this many nodes. One (features alone) by default: on the lent 16-core machine
# (28 November, 02:26 UTC, 10M rows, Gini at 16 threads, two alternated rounds) the
# scans took 0.042 / 0.042 s by blocks of nodes against 0.032 / 0.035 s by features
# alone, with the same CPU time on the 2-core machine
_SCAN_MAX_BLOCKS = 1
_SCAN_BLOCK_NODES = 16


def _compiled_scan():
    """:mod:`._compiled_scan` (imports Numba: only when a compiled scan runs), looked
    up once."""
    if not _CS:
        from . import _compiled_scan

        _CS.append(_compiled_scan)
    return _CS[0]


_CS = []


def _find_compiled(hist, counts, layout, is_classification, criterion, loss_matrix,
                   class_weight, is_categorical, min_samples_leaf, per_feature, pool,
                   channel_map, node):
    """The NumPy scan's :class:`SplitResult`, scanned by
    :func:`._compiled_scan.scan_features` (``node``: the histogram slot of each
    result)."""
    scan, finish = _compiled_scan_of(hist, counts, layout, is_classification, criterion,
                                     loss_matrix, class_weight, is_categorical,
                                     min_samples_leaf, per_feature, channel_map)
    _run_scans([scan], hist.shape[0], layout, pool)
    return _scanned_splits(hist, counts, layout, finish, is_categorical, is_classification,
                           channel_map, node)


def _run_scans(scans, n_nodes, layout, pool):
    """Every feature of every ``scan`` (of :func:`_compiled_scan_of`) over ``n_nodes``
    nodes in all: on the calling thread when the scan is small (less than handing it to
    threads), else in one hand-off to ``pool``, each thread scanning its group of
    features in every scan (each writes its own features' rows: the same result).

    With ``_SCAN_MAX_BLOCKS`` above one (it is one by default: see its note), where
    whole features leave threads idle (20 features on 16 threads: two rounds) and every
    scan takes ranges of nodes (numeric features), the tasks are runs of features x
    blocks of nodes instead
    (:func:`~dtdecide.tree._kernels._parallel.feature_row_split`: 4 runs x 4 blocks
    on 16 threads, one round), at least ``_SCAN_BLOCK_NODES`` nodes a block; a node's
    scan of a feature is the same whichever task runs it."""
    n_features = layout.widths.shape[0]
    if pool is None or n_features < 2 or n_nodes * int(layout.n_cells) < _SCAN_INLINE_CELLS:
        for scan in scans:
            scan(np.arange(n_features))
        return
    n_blocks = 1
    if all(getattr(scan, "by_nodes", False) for scan in scans):
        n_groups, n_blocks = feature_row_split(
            n_features, pool.n_threads, min(_SCAN_MAX_BLOCKS, n_nodes // _SCAN_BLOCK_NODES))
    if n_blocks == 1:
        def scan_all(features):
            for scan in scans:
                scan(features)

        pool.map_groups(scan_all, feature_groups(layout.widths, pool.n_threads))
        return
    groups = feature_groups(layout.widths, n_groups)

    def scan_block(task):
        features, q = task
        for scan in scans:
            m = scan.n_nodes
            scan(features, m * q // n_blocks, m * (q + 1) // n_blocks)

    pool.map_groups(scan_block, [(g, q) for q in range(n_blocks) for g in groups])


def _compiled_scan_of(hist, counts, layout, is_classification, criterion, loss_matrix,
                      class_weight, is_categorical, min_samples_leaf, per_feature,
                      channel_map=None):
    """``(scan, finish)`` of :func:`_find_compiled`: ``scan(features)`` scans those
    features of every node of ``hist`` (threads may scan disjoint features at once);
    ``finish()``, once every feature is scanned, takes each node's winner."""
    cs = _compiled_scan()
    m, C = hist.shape[0], hist.shape[-1]
    n_features = layout.widths.shape[0]
    B = layout.max_width
    is_categorical = np.asarray(is_categorical, dtype=bool)
    if counts is None and class_weight is None and channel_map is None:
        mode = cs.COUNTS_ARE_WEIGHTS
    elif counts is not None:
        mode = cs.ROW_COUNTS
    else:
        mode = cs.RAW_WEIGHTS
    if counts is None:
        counts = np.zeros((1, 1), dtype=np.int32)
    use_cw = class_weight is not None
    cw = (np.broadcast_to(np.asarray(class_weight, dtype=np.float64), (C,)).copy()
          if use_cw else np.ones(1))
    D, has_m, has_r = 0, False, False
    if isinstance(criterion, str):
        crit = cs.CRITERION_CODES[criterion]
    else:
        crit = cs.PROFIT_CODES[criterion.method]
        D, has_m, has_r = criterion.n_decisions, criterion.has_m, criterion.has_r
    loss = (np.ascontiguousarray(loss_matrix, dtype=np.float64)
            if loss_matrix is not None else np.zeros((1, 1)))
    cmap = (None if channel_map is None
            else np.ascontiguousarray(channel_map, dtype=np.float64))
    # categorical features: their scan orders, computed by the NumPy scan's own code
    key_lo = np.zeros(n_features, dtype=np.intp)
    n_keys = np.zeros(n_features, dtype=np.intp)
    n_scan = np.zeros(n_features, dtype=np.intp)
    cat_orders = []
    for j in np.flatnonzero(is_categorical):
        w, lo = int(layout.widths[j]), int(layout.offsets[j])
        H = hist[:, lo : lo + w - 1]
        if use_cw:
            H = H * class_weight
        if channel_map is not None:
            H = map_channels(H, channel_map)
        cn = (counts[:, lo : lo + w - 1] if mode == cs.ROW_COUNTS
              else _channel_weight(hist[:, lo : lo + w - 1], is_classification))
        orders = _category_orders(H, cn, is_classification, criterion)
        key_lo[j], n_keys[j], n_scan[j] = len(cat_orders), len(orders), orders[0].shape[1]
        cat_orders.extend(orders)
    if cat_orders:
        orders = np.zeros((len(cat_orders), m, int(n_scan.max())), dtype=np.intp)
        for q, o in enumerate(cat_orders):
            orders[q, :, : o.shape[1]] = o
    else:
        orders = np.zeros((1, 1, 1), dtype=np.intp)
    log2_table = np.zeros(1)
    if crit == cs.ENTROPY:
        w0 = int(layout.widths[0])
        top = float(np.max(_channel_weight(hist[:, :w0].sum(axis=1, dtype=np.float64),
                                           is_classification), initial=0.0))
        if use_cw:
            top *= float(np.max(class_weight))
        log2_table = _log2_table(int(min(top, _LOG2_TABLE_MAX)) + 1)
    gain = np.empty((n_features, m))
    pos = np.empty((n_features, m), dtype=np.intp)
    ml = np.empty((n_features, m), dtype=np.bool_)
    key = np.empty((n_features, m), dtype=np.intp)

    def scan(features, lo=0, hi=m):
        features = np.asarray(features, dtype=np.intp)
        if lo == 0 and hi == m:
            cs.scan_features(hist, counts, mode, cw, use_cw, bool(is_classification), crit,
                             loss, D, has_m, has_r, TIE_BREAK, int(min_samples_leaf),
                             features, layout.offsets, layout.widths, orders, key_lo,
                             n_keys, n_scan, log2_table, gain, pos, ml, key, cmap)
            return
        # the nodes lo:hi alone (numeric features: no orders to cut), into outputs of
        # their own, copied into theirs
        part = [np.empty((n_features, hi - lo), dtype=a.dtype) for a in (gain, pos, ml, key)]
        cs.scan_features(hist[lo:hi], counts[lo:hi] if mode == cs.ROW_COUNTS else counts,
                         mode, cw, use_cw, bool(is_classification), crit, loss, D, has_m,
                         has_r, TIE_BREAK, int(min_samples_leaf), features, layout.offsets,
                         layout.widths, orders, key_lo, n_keys, n_scan, log2_table, *part,
                         cmap)
        for a, b in zip((gain, pos, ml, key), part):
            a[features, lo:hi] = b[features]

    scan.n_nodes = m
    scan.by_nodes = not cat_orders  # a categorical feature's orders are per node

    def finish():
        return _best_of_scans(gain, pos, ml, key, orders, key_lo, n_scan, is_categorical,
                              per_feature, B)

    # numeric features only, one split per node: _scanned_splits may take the winners
    # and their tables from these in one compiled pass
    finish.numeric = None if per_feature or cat_orders else (gain, pos, ml)
    return scan, finish


#: Most criterion sums of a ``channel_map`` for which :func:`_scanned_splits` takes the
#: winners and tables in one compiled pass (:func:`_criteria.channel_sum` adds them
#: one by one up to 16)
_FUSED_MAX_SUMS = 16


def _scanned_splits(hist, counts, layout, finish, is_categorical, is_classification,
                    channel_map, node=None):
    """The :class:`SplitResult` of the compiled scans of ``finish``
    (:func:`_compiled_scan_of`) over ``hist``; ``node``: the histogram slot of each
    result (default: one per node, in order).

    Numeric features alone on whole-number float32 counts (unit weights, a class
    criterion, no ``channel_map``: the grower's common case): each node's winner, its
    go-left table and missing side in one compiled pass,
    :func:`~dtdecide.tree._kernels._compiled_level.best_numeric_splits`, instead of
    :func:`_best_of_scans` and :func:`_split_result`, its twin (the same splits). With a
    ``channel_map`` of at most ``_FUSED_MAX_SUMS`` sums (``criterion="profit"`` on class
    counts), :func:`~dtdecide.tree._kernels._compiled_level.best_mapped_splits`.
    """
    numeric = getattr(finish, "numeric", None)
    mapped = channel_map is not None and (
        0 < channel_map.shape[1] <= _FUSED_MAX_SUMS and channel_map.shape[0] == hist.shape[-1])
    if (numeric is not None and counts is None and is_classification
            and (channel_map is None or mapped)
            and hist.dtype == np.float32 and hist.flags.c_contiguous):
        from . import _compiled_level

        m = hist.shape[0]
        out = SplitResult(gain=np.empty(m), feature=np.empty(m, dtype=np.intp),
                          bin_threshold=np.empty(m, dtype=np.intp),
                          is_categorical=np.zeros(m, dtype=bool),
                          missing_left=np.empty(m, dtype=bool),
                          go_left=np.empty((m, layout.max_width), dtype=bool))
        tail = (out.gain, out.feature, out.bin_threshold, out.go_left, out.missing_left)
        if channel_map is None:
            _compiled_level.best_numeric_splits(*numeric, hist, layout.cell_index, *tail)
        else:
            _compiled_level.best_mapped_splits(
                *numeric, hist, layout.cell_index,
                np.ascontiguousarray(channel_map, dtype=np.float64), *tail)
        return out
    if node is None:
        node = np.arange(hist.shape[0])
    return _split_result(hist, counts, layout, node, *finish(), is_categorical,
                         is_classification, compiled=True, channel_map=channel_map)


def _best_of_scans(gain, pos, ml, key, orders, key_lo, n_scan, is_categorical, per_feature,
                   B):
    """The winners of :func:`_compiled_scan_of`'s scans, as the NumPy scan leaves them
    for :func:`_split_result`: ``(best_gain, best_feature, best_pos, best_ml,
    best_order)``."""
    n_features, m = gain.shape
    # the best feature of each node, taken in feature order as the NumPy scan does:
    # the first strictly best gain (a NaN never wins)
    gain[np.isnan(gain)] = -np.inf
    valid = gain > -np.inf
    if per_feature:  # slot i * n_features + j: feature j of node i
        f = np.tile(np.arange(n_features), m)
        g, v = gain.T.ravel(), valid.T.ravel()
        p, q, kk = pos.T.ravel(), ml.T.ravel(), key.T.ravel()
    else:
        f = np.argmax(gain, axis=0)
        take = (f, np.arange(m))
        g, v = gain[take], valid[take]
        p, q, kk = pos[take], ml[take], key[take]
    best_gain = np.where(v, g, -np.inf)
    best_feature = np.where(v, f, -1).astype(np.intp)
    best_pos = np.where(v, p, 0).astype(np.intp)
    best_ml = v & q
    best_order = None
    win_cat = v & is_categorical[np.where(v, f, 0)]
    if win_cat.any():
        best_order = np.zeros((best_gain.shape[0], B - 1), dtype=np.intp)
        node = np.flatnonzero(win_cat) // n_features if per_feature else np.flatnonzero(win_cat)
        for slot, i in zip(np.flatnonzero(win_cat), node):
            j = f[slot]
            best_order[slot, : n_scan[j]] = orders[key_lo[j] + kk[slot], i, : n_scan[j]]
    return best_gain, best_feature, best_pos, best_ml, best_order


def _split_result(hist, counts, layout, node, best_gain, best_feature, best_pos, best_ml,
                  best_order, is_categorical, is_classification, compiled=False,
                  channel_map=None):
    """The :class:`SplitResult` of the winning scans (``node``: histogram slot of each);
    ``compiled``: numeric splits of float32 counts by
    :func:`~dtdecide.tree._kernels._compiled_level.numeric_split_tables` (without a
    ``channel_map``: the heavier child is then weighed in the mapped sums)."""
    B = layout.max_width
    m = node.shape[0]
    valid = best_feature >= 0
    feat = np.where(valid, best_feature, 0)
    is_cat = valid & np.asarray(is_categorical)[feat]
    if (compiled and counts is None and is_classification and hist.dtype == np.float32
            and channel_map is None and hist.flags.c_contiguous and not is_cat.any()):
        # numeric splits on whole-number counts: the tables in one compiled pass
        from . import _compiled_level

        go_left = np.empty((m, B), dtype=bool)
        missing_left = np.empty(m, dtype=bool)
        _compiled_level.numeric_split_tables(
            hist, np.asarray(node, dtype=np.intp), feat, np.asarray(best_pos, dtype=np.intp),
            best_ml, valid, layout.cell_index, go_left, missing_left)
        return SplitResult(gain=best_gain, feature=best_feature,
                           bin_threshold=np.where(valid, best_pos, -1),
                           is_categorical=is_cat, missing_left=missing_left,
                           go_left=go_left)
    # go-left table over the binned values of the chosen feature
    go_left = np.zeros((m, B), dtype=bool)
    go_left[:, : B - 1] = np.arange(B - 1)[None, :] <= best_pos[:, None]
    if is_cat.any():
        # the categories at the first best_pos + 1 places of the winning order go left
        # (best_pos is below the scanned width, so padding columns are never read)
        cat_nodes = np.flatnonzero(is_cat)
        r, c = np.nonzero(np.arange(B - 1)[None, :] <= best_pos[cat_nodes, None])
        block = np.zeros((cat_nodes.size, B), dtype=bool)
        block[r, best_order[cat_nodes[r], c]] = True
        go_left[cat_nodes] = block
    # learned missing side; no missing value at the node -> the heavier child
    chosen_hist = layout.gather(hist, node, feat)  # (m, B, C) raw sums
    chosen_cnt = (
        layout.gather(counts, node, feat)
        if counts is not None
        else _channel_weight(chosen_hist, is_classification)
    )
    # numeric values beyond a feature's bins never occur: keep them off the left side
    go_left[:, : B - 1] &= layout.cell_index[feat, : B - 1] >= 0
    no_missing = chosen_cnt[:, B - 1] <= 0
    if channel_map is not None:  # weighed in the criterion's sums
        w_bins = _channel_weight(map_channels(chosen_hist, channel_map), is_classification)
    else:
        w_bins = (chosen_cnt if counts is None  # the same array
                  else _channel_weight(chosen_hist, is_classification))
    w_left = np.where(go_left[:, : B - 1], w_bins[:, : B - 1], 0.0).sum(axis=1)
    w_right = w_bins[:, : B - 1].sum(axis=1) - w_left
    missing_left = np.where(no_missing, w_left >= w_right, best_ml) & valid
    go_left[:, B - 1] = missing_left
    if is_cat.any():
        # categories absent from the node (and codes beyond the feature's) follow the
        # missing side
        absent = chosen_cnt[cat_nodes, : B - 1] <= 0
        block = go_left[cat_nodes, : B - 1]
        block[absent] = np.repeat(missing_left[cat_nodes], absent.sum(axis=1))
        go_left[cat_nodes, : B - 1] = block
    go_left[~valid] = False
    return SplitResult(
        gain=best_gain,
        feature=best_feature,
        bin_threshold=np.where(valid & ~is_cat, best_pos, -1),
        is_categorical=is_cat,
        missing_left=missing_left,
        go_left=go_left,
    )
