"""Compiled (Numba) kernels of the grower's bookkeeping between two levels.

Layer 1 (kernels) of :mod:`dtdecide.tree` (``_kernels``); see the architecture page.

Between the threaded passes of a level (histograms, split scans, partition) the
calling thread alone takes each node's best split and plans the next level: work on a
few hundred nodes that the NumPy steps do in a few dozen small calls each. Each kernel
here does one such step in one call, with the NumPy steps kept as its reference twin
(named in its docstring) and tested against it on random inputs. They run on the
calling thread (``nogil=True`` all the same).

The split tables of :func:`best_numeric_splits` and :func:`numeric_split_tables` come
from one helper, :func:`numeric_go_left` (:func:`mapped_go_left` for
:func:`best_mapped_splits`), kept in this module with them: Numba's
on-disk cache of a function is renewed when its own file changes, not when a compiled
function it calls from another module does.

Importing this module imports Numba; callers import it only when
:func:`dtdecide._jit.use_compiled` says so.
"""

import numba
import numpy as np

__all__ = ["best_mapped_splits", "best_numeric_splits", "gini_can_split",
           "numeric_split_tables", "plan_slots", "split_children_cells"]

_jit = numba.njit(nogil=True, cache=True)


@_jit
def best_numeric_splits(gain, pos, ml, hist, cell_index, best_gain, best_feature,
                        bin_threshold, go_left, missing_left):
    """Each node's best split from the compiled scan's per-feature winners, with its
    go-left table and missing side, when every feature is numeric and the histogram
    holds whole-number float32 counts (twin of ``_splitter._best_of_scans`` followed by
    ``_splitter._split_result``, whose compiled tables are :func:`numeric_split_tables`).

    ``gain``, ``pos``, ``ml`` (n_features, n_nodes): the best split of every feature of
    every node (``scan_features``' output). A node's feature is the first with the
    largest gain (a NaN or ``-inf`` gain never wins; none: no valid split, feature
    ``-1``, gain ``-inf``, threshold ``-1``, an all-False table). The node splits after
    binned value ``pos``: values up to it that the feature has (``cell_index[f, b] >= 0``)
    go left; without missing values at the node the missing side is the heavier child's
    (ties left), else ``ml``. The weights are whole numbers, so their sums are exact in
    any order.
    """
    B = go_left.shape[1]
    for i in range(gain.shape[1]):
        f = best_feature_of(gain, i, best_gain, best_feature, bin_threshold, pos)
        if f < 0:
            for b in range(B):
                go_left[i, b] = False
            missing_left[i] = False
            continue
        missing_left[i] = numeric_go_left(hist[i], cell_index[f], pos[f, i], ml[f, i],
                                          go_left[i])


@_jit
def best_mapped_splits(gain, pos, ml, hist, cell_index, channel_map, best_gain,
                       best_feature, bin_threshold, go_left, missing_left):
    """:func:`best_numeric_splits` when the histogram's float32 class counts stand for
    the criterion's sums through ``channel_map`` (``criterion="profit"`` on class
    counts; twin of ``_splitter._best_of_scans`` followed by ``_splitter._split_result``
    with a ``channel_map``, whose NumPy steps this follows number for number).

    The node's feature, threshold and table are :func:`best_numeric_splits`'; without
    missing values at the node (counted in the class counts) the missing side is the
    heavier child's in the mapped sums (ties left, :func:`mapped_go_left`), else ``ml``.
    ``channel_map`` (n_classes, n_sums) float64, at most 16 sums (the NumPy steps' sum
    over the sums is then a loop).
    """
    B = go_left.shape[1]
    w_bins = np.empty(B - 1)
    w_left = np.empty(B - 1)
    task, vals = sum_scratch()
    for i in range(gain.shape[1]):
        f = best_feature_of(gain, i, best_gain, best_feature, bin_threshold, pos)
        if f < 0:
            for b in range(B):
                go_left[i, b] = False
            missing_left[i] = False
            continue
        missing_left[i] = mapped_go_left(hist[i], cell_index[f], pos[f, i], ml[f, i],
                                         channel_map, go_left[i], w_bins, w_left, task,
                                         vals)


@_jit
def best_feature_of(gain, i, best_gain, best_feature, bin_threshold, pos):
    """Node ``i``'s feature: the first with the largest gain in ``gain[:, i]`` (a NaN or
    ``-inf`` gain never wins); writes its gain, feature and threshold (none: ``-inf``,
    ``-1``, ``-1``) and returns the feature."""
    f = -1
    g = -np.inf
    for j in range(gain.shape[0]):
        x = gain[j, i]
        if x > g:
            g = x
            f = j
    if f < 0:
        best_gain[i] = -np.inf
        best_feature[i] = -1
        bin_threshold[i] = -1
        return f
    best_gain[i] = g
    best_feature[i] = f
    bin_threshold[i] = pos[f, i]
    return f


@_jit
def plan_slots(cont, child_cnt, sel, needed, order, slot_of_child, big_parent, big_small):
    """The slots of a new level (twin of ``_grower._plan_slots``).

    Split node ``sel[i]`` has children ``2 i`` (left) and ``2 i + 1`` (right) with
    ``child_cnt`` rows; ``cont`` says which keep growing. A pair is *needed* when one
    of its children grows; its smaller child (the right one when it has fewer rows,
    else the left) is histogrammed from rows, its larger one derived from the parent.
    The new level's slots ``order`` are ``[small growing | small not growing | large
    growing]``, each in pair order; ``slot_of_child`` is every child's slot (-1: none);
    large growing child ``k`` is node ``big_parent[k]`` less slot ``big_small[k]``.
    ``needed`` (pair positions), ``order``, ``big_parent`` and ``big_small`` are filled
    at their start.

    Returns
    -------
    tuple of int
        ``(n_needed, n_small_growing, n_built, n_slots, n_built_rows)``: the lengths of
        the filled starts (``n_built`` smaller children, ``n_slots - n_built`` larger
        ones) and the rows of the smaller children.
    """
    ns = sel.shape[0]
    n_needed = 0
    n_small_growing = 0
    n_built_rows = 0
    for i in range(ns):
        left = 2 * i
        right = left + 1
        if cont[left] or cont[right]:
            needed[n_needed] = i
            n_needed += 1
            small = right if child_cnt[right] < child_cnt[left] else left
            n_built_rows += child_cnt[small]
            if cont[small]:
                n_small_growing += 1
    for c in range(2 * ns):
        slot_of_child[c] = -1
    a = 0  # next small growing slot
    b = n_small_growing  # next small slot built only to derive its sibling
    n_built = n_needed
    k = n_built  # next large growing slot
    for q in range(n_needed):
        i = needed[q]
        left = 2 * i
        right = left + 1
        small = right if child_cnt[right] < child_cnt[left] else left
        big = left + right - small
        if cont[small]:
            slot = a
            a += 1
        else:
            slot = b
            b += 1
        order[slot] = small
        slot_of_child[small] = slot
        if cont[big]:
            order[k] = big
            slot_of_child[big] = k
            big_parent[k - n_built] = sel[i]
            big_small[k - n_built] = slot
            k += 1
    return n_needed, n_small_growing, n_built, k, n_built_rows


@_jit
def split_children_cells(hist, slots, feat, cell_index, table, child_sums, child_cnt,
                         first):
    """The children's class counts and row counts of split nodes, read from their
    histogram part in place (twin of the grower's NumPy steps, ``_grower._child_sums``
    on ``_grower._gather``'s copy of the chosen feature's cells).

    Node ``i`` (slot ``slots[i]`` of ``hist``, float32 whole-number counts: unit weights)
    splits feature ``feat[i]``, binned value ``b`` going left where ``table[i, b]``
    (cells ``cell_index[feat[i], b]``; ``-1``: a value the feature does not take, no
    rows). Its children go to rows ``2 (first + i)`` (left) and ``2 (first + i) + 1`` of
    ``child_sums`` (their counts per class, clipped at 0) and ``child_cnt`` (their rows).
    Every partial sum is a whole number below ``2**24``, so exact in any order.
    """
    C = hist.shape[2]
    B = table.shape[1]
    for i in range(slots.shape[0]):
        s = slots[i]
        f = feat[i]
        lc = 0
        pc = 0
        out = 2 * (first + i)
        for k in range(C):
            # whole numbers, added as integers: the same sums as float ones, without a
            # float addition's latency on every cell
            lsum = 0
            psum = 0
            for b in range(B):
                c = cell_index[f, b]
                if c < 0:
                    continue
                v = np.int64(hist[s, c, k])
                psum += v
                if table[i, b]:
                    lsum += v
            lc += lsum
            pc += psum
            child_sums[out, k] = max(lsum, 0)
            child_sums[out + 1, k] = max(psum - lsum, 0)
        child_cnt[out] = lc
        child_cnt[out + 1] = pc - lc


@_jit
def gini_can_split(sums, counts, min_samples_split, min_samples_leaf, eps, out):
    """Which nodes may be split, under ``criterion="gini"`` without class weights
    (twin of ``_grower._Context.can_split`` below ``max_depth``): at least
    ``min_samples_split`` and ``2 * min_samples_leaf`` rows and a Gini impurity above
    ``eps``, computed in float64 by the NumPy steps' operations in their order
    (``_criteria.impurity``: ``N = sum_c s_c``, ``W = N - (sum_c s_c^2) / N``,
    ``W / N``; 0 for an empty node), so the same numbers."""
    C = sums.shape[1]
    for i in range(sums.shape[0]):
        n = counts[i]
        if n < min_samples_split or n < 2 * min_samples_leaf:
            out[i] = False
            continue
        N = np.float64(sums[i, 0])
        for k in range(1, C):
            N += np.float64(sums[i, k])
        imp = 0.0
        if N > 0:
            s0 = np.float64(sums[i, 0])
            sq = s0 * s0
            for k in range(1, C):
                s = np.float64(sums[i, k])
                sq += s * s
            imp = (N - sq / N) / N
        out[i] = imp > eps


@_jit
def numeric_go_left(h, cells, pos, ml, go_left):
    """Write a numeric split's go-left table ``go_left`` (B,) and return its missing
    side. ``h`` (n_cells, C) is the node's histogram, ``cells`` (B,) the feature's cell
    of each binned value (-1: a value it does not have; the last, missing); values up
    to ``pos`` that the feature has go left; without missing values at the node the
    missing side is the heavier child's (ties left), else ``ml``. For whole-number
    weights (their sums exact in any order)."""
    B = go_left.shape[0]
    C = h.shape[1]
    w_left = 0.0
    w_all = 0.0
    for b in range(B - 1):
        c = cells[b]
        left = c >= 0 and b <= pos
        go_left[b] = left
        if c >= 0:
            w = 0.0
            for k in range(C):
                w += h[c, k]
            w_all += w
            if left:
                w_left += w
    c = cells[B - 1]
    w_missing = 0.0
    for k in range(C):
        w_missing += h[c, k]
    side = (w_left >= w_all - w_left) if w_missing <= 0 else ml
    go_left[B - 1] = side
    return side


@_jit
def numeric_split_tables(hist, node, feat, best_pos, best_ml, valid, cell_index, go_left,
                         missing_left):
    """Go-left tables and missing sides of numeric splits (twin of ``_split_result`` in
    ``_kernels._splitter`` for whole-number counts: float32 histograms of unit weights,
    whose weight is the channels' sum).

    Slot ``node[i]`` splits feature ``feat[i]`` after its binned value ``best_pos[i]``:
    values up to it that the feature has (``cell_index[f, b] >= 0``) go left. Without
    missing values at the node the missing side is the heavier child's (ties left),
    else ``best_ml[i]``; an invalid slot's table is all False. The weights are whole
    numbers, so their sums are exact in any order.
    """
    B = go_left.shape[1]
    for i in range(node.shape[0]):
        if not valid[i]:
            for b in range(B):
                go_left[i, b] = False
            missing_left[i] = False
            continue
        missing_left[i] = numeric_go_left(hist[node[i]], cell_index[feat[i]], best_pos[i],
                                          best_ml[i], go_left[i])


@_jit
def mapped_go_left(h, cells, pos, ml, channel_map, go_left, w_bins, w_left, task, vals):
    """:func:`numeric_go_left` weighing the children in the mapped sums: a bin's weight
    is the sum over the criterion's sums ``s`` (in order) of ``sum_t h[c, t] *
    channel_map[t, s]`` (levels in order, the first product the start:
    ``_histogram.map_channels``; a value the feature does not have: zero counts), and
    the children's weights are NumPy's sums of the bins' weights (:func:`numpy_sum`:
    the same numbers as ``_splitter._split_result``'s ``sum(axis=1)``). ``w_bins``,
    ``w_left`` (B - 1,), ``task``, ``vals`` (:func:`sum_scratch`): scratch."""
    B = go_left.shape[0]
    T, S = channel_map.shape
    for b in range(B - 1):
        c = cells[b]
        left = c >= 0 and b <= pos
        go_left[b] = left
        w = 0.0
        for s in range(S):
            v = (np.float64(h[c, 0]) if c >= 0 else 0.0) * channel_map[0, s]
            for t in range(1, T):
                v += (np.float64(h[c, t]) if c >= 0 else 0.0) * channel_map[t, s]
            w = v if s == 0 else w + v
        w_bins[b] = w
        w_left[b] = w if left else 0.0
    c = cells[B - 1]
    n_missing = 0.0
    for t in range(T):
        n_missing += h[c, t]
    if n_missing > 0:
        side = ml
    else:
        wl = numpy_sum(w_left, 0, B - 1, task, vals)
        side = wl >= numpy_sum(w_bins, 0, B - 1, task, vals) - wl
    go_left[B - 1] = side
    return side


@_jit
def numpy_sum(a, lo, n, task, vals):
    """``a[lo:lo + n].sum()`` of float64 ``a`` added as NumPy adds a contiguous run
    (pairwise: a run of at most 128 by :func:`numpy_block_sum`, a longer one as the sum
    of its halves, split at a multiple of 8, the first half on the left), so the same
    number. The halving is walked with a stack, not by recursion: Numba's on-disk cache
    of a recursive function crashes the process that loads it. ``task`` (int64, (128,
    3)) and ``vals`` (float64, (128,)): scratch (:func:`sum_scratch`)."""
    if n <= 128:
        return numpy_block_sum(a, lo, n)
    # tasks: (start, length, 0) a run to sum; (0, 0, 1) add the last two sums
    nt = 1
    nv = 0
    task[0, 0], task[0, 1], task[0, 2] = lo, n, 0
    while nt > 0:
        nt -= 1
        start, length, kind = task[nt, 0], task[nt, 1], task[nt, 2]
        if kind == 1:
            nv -= 1
            vals[nv - 1] = vals[nv - 1] + vals[nv]
        elif length <= 128:
            vals[nv] = numpy_block_sum(a, start, length)
            nv += 1
        else:
            n2 = length // 2
            n2 -= n2 % 8
            task[nt, 0], task[nt, 1], task[nt, 2] = 0, 0, 1
            task[nt + 1, 0], task[nt + 1, 1], task[nt + 1, 2] = start + n2, length - n2, 0
            task[nt + 2, 0], task[nt + 2, 1], task[nt + 2, 2] = start, n2, 0
            nt += 3
    return vals[0]


@_jit
def sum_scratch():
    """Scratch of :func:`numpy_sum`: its stack of runs and of their sums (room for runs
    of any length)."""
    return np.empty((128, 3), dtype=np.int64), np.empty(128)


@_jit
def numpy_block_sum(a, lo, n):
    """NumPy's sum of a run of at most 128 float64 (:func:`numpy_sum`): under 8 in a
    loop from 0, else eight interleaved sums combined pairwise, the rest added after."""
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[lo + i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    i = 8
    stop = n - n % 8
    while i < stop:
        r0 += a[lo + i]
        r1 += a[lo + i + 1]
        r2 += a[lo + i + 2]
        r3 += a[lo + i + 3]
        r4 += a[lo + i + 4]
        r5 += a[lo + i + 5]
        r6 += a[lo + i + 6]
        r7 += a[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res
