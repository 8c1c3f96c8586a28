"""Histogram tree grower: binned inputs in, a frozen :class:`TreeStructure` out.

Layer 3 (algorithms) of :mod:`dtdecide.tree` (``_algorithms``); see the architecture page.

How the estimators call it (nothing else is needed)::

    from dtdecide.tree._kernels._binning import Binner
    from dtdecide.tree._algorithms._grower import grow_tree

    binner = Binner(max_bins=255, random_state=rs).fit(X_encoded, is_categorical,
                                                       sample_weight)
    X_binned = binner.transform(X_encoded)
    tree = grow_tree(X_binned, binner, y=y_codes, n_classes=n_classes,
                     sample_weight=sample_weight, criterion="gini", max_depth=6, ...)
    leaves = tree.apply(X_encoded)      # routes exactly as the training rows were split

``X_encoded`` is float64: raw values for numeric columns, integer codes for categorical
columns, NaN for missing. For classifiers ``y`` holds integer class codes in
``[0, n_classes)``; for ``criterion="variance"`` it holds the float target.

Growth is level-wise (all nodes of a depth at once) unless ``max_leaf_nodes`` is set, in
which case it is best-first (the node with the largest weighted impurity decrease is split
next, as in scikit-learn). Both modes run the same explicit per-level state
(:class:`Level`: the nodes being grown, their histograms, and the rows still in them with
their node slot) through the same three steps — split search on histograms, partition of
the rows, histograms of the children — so that a distributed version only changes where
the histogram sums happen. Only the smaller child of each split is histogrammed from rows;
its sibling is ``parent - smaller``. Rows of finished leaves are dropped.

Stopping rules (scikit-learn semantics): a node is split only when its depth is below
``max_depth``, it has at least ``min_samples_split`` and ``2 * min_samples_leaf`` *rows*,
its impurity is above machine epsilon, a split leaving at least ``min_samples_leaf`` rows
(and positive weight) in each child exists, and the weighted impurity decrease
``(W(parent) - W(left) - W(right)) / total weight`` is at least ``min_impurity_decrease``.
"""

import dataclasses
import heapq
import mmap
import numbers

import numpy as np

from ..._dtypes import COUNT_DTYPE, code_dtype
from ..._dtypes import ROW_INDEX_DTYPE as _ROW_INT
from ..._jit import use_compiled
from ..._progress import progress_bar
from ...decision._validation import check_sample_weight
from .._kernels._criteria import (
    CLASSIFICATION_CRITERIA,
    CRITERIA,
    channel_sum,
    check_loss_matrix,
    impurity,
    split_gain,
)
from .._kernels._histogram import (
    DEFAULT_CHUNK_SIZE,
    BinLayout,
    HistogramTarget,
    build_histograms,
    map_channels,
)
from .._kernels._profit import DEFAULT_PROFIT_METHOD, ProfitCriterion
from .._kernels._splitter import SplitResult, find_best_splits, find_level_splits
from .._structure._tree import TreeStructure
from ._rows import LocalRows

__all__ = [
    "grow_tree", "grow_from_source", "Level", "NodeSplits",
    "node_split_candidates", "profit_level_map",
]

_EPS = np.finfo(np.float64).eps
# a class whose weight in a node is at most this fraction of its weight in the whole
# sample is absent from the node: what is left is the rounding residue of histograms
# computed as parent minus sibling (about 1e-15 to 1e-14 of the sample's class weight)
_RESIDUE_RTOL = 1e-11
# criterion="profit": least gain of a split relative to the total money at stake (gains
# below it are rounding noise of "parent - child" sums)
_PROFIT_RTOL = 1e-11


class Level:
    """Explicit state of the nodes being grown.

    Attributes
    ----------
    node_ids : ndarray of intp, shape (m,)
        Tree ids of the nodes (slot ``i`` is node ``node_ids[i]``).
    depth : int
        Depth of these nodes (best-first: of the single node).
    hist : ndarray, shape (m, n_cells, n_channels)
        Their histograms, flat over the per-feature bins of a
        :class:`~dtdecide.tree._kernels._histogram.BinLayout` (``n_cells = sum(n_bins_ + 1)``).
    counts : ndarray, shape (m, n_cells) or None
        Their row counts per bin.
    rows : ndarray of int32 or None
        Training rows still in these nodes, in row order (best-first growth in memory).
        None: the rows whose node (``leaf_of_row`` of the in-memory source) is one of
        ``node_ids`` (growing level by level, and the root), or rows kept by another
        source (Dask partitions).
    slots : ndarray of int32 or None
        Slot of each of ``rows`` (None with ``rows`` None).
    active : ndarray of bool, shape (m,)
        Slots that may be split. Inactive slots hold the histogram of a finished smaller
        child, kept only to derive its sibling.
    """

    def __init__(self, node_ids, depth, hist, counts, rows, slots, active=None):
        self.node_ids = node_ids
        self.depth = depth
        self.hist = hist if isinstance(hist, list) else [hist]
        self.counts = counts if isinstance(counts, list) else [counts] * len(self.hist)
        self.offsets = np.cumsum([0] + [h.shape[0] for h in self.hist])
        self.rows = rows
        self.slots = slots
        self.active = np.ones(node_ids.shape[0], dtype=bool) if active is None else active

    @property
    def n_nodes(self):
        return self.node_ids.shape[0]

    def part_of(self, slots):
        """The part holding each of ``slots`` (ascending slots give ascending parts)."""
        return np.searchsorted(self.offsets, slots, side="right") - 1

    def take(self, i):
        """The state of slot ``i`` alone."""
        p = int(self.part_of(i))
        j = i - int(self.offsets[p])
        hist = self.hist[p][j : j + 1]
        counts = None if self.counts[p] is None else self.counts[p][j : j + 1]
        if self.slots is None:  # rows kept by another row source (e.g. Dask partitions)
            return Level(self.node_ids[i : i + 1], self.depth, hist, counts, None, None,
                         self.active[i : i + 1])
        mask = self.slots == i
        rows = np.flatnonzero(mask).astype(_ROW_INT) if self.rows is None else self.rows[mask]
        return Level(
            self.node_ids[i : i + 1],
            self.depth,
            hist,
            counts,
            rows,
            None,  # every row in slot 0
            self.active[i : i + 1],
        )


def _take_split(split, i):
    s = slice(i, i + 1)
    return SplitResult(
        split.gain[s],
        split.feature[s],
        split.bin_threshold[s],
        split.is_categorical[s],
        split.missing_left[s],
        split.go_left[s],
    )


class _NodeTable:
    """Append-only node records, frozen into a TreeStructure at the end."""

    def __init__(self):
        self.parent, self.depth, self.n_samples, self.sums = [], [], [], []
        self.splits = []
        self.tables = []  # go-left tables by binned value (kept to route training rows)
        self.n_nodes = 0

    def add(self, parent, depth, n_samples, sums):
        k = parent.shape[0]
        ids = np.arange(self.n_nodes, self.n_nodes + k, dtype=np.intp)
        self.parent.append(parent.astype(np.intp))
        self.depth.append(np.full(k, depth, dtype=np.intp))
        self.n_samples.append(np.asarray(n_samples, dtype=COUNT_DTYPE))
        self.sums.append(np.asarray(sums, dtype=np.float64))
        self.n_nodes += k
        return ids

    def set_split(self, ids, feature, threshold, is_cat, cat_rows, missing_left, left, right,
                  table):
        self.splits.append((ids, feature, threshold, is_cat, cat_rows, missing_left, left, right))
        self.tables.append(table)

    def routing_arrays(self, max_width):
        """``(left, right, feature, tables)`` of the nodes so far, for :func:`~dtdecide.tree._algorithms._rows.route_binned`."""
        n = self.n_nodes
        left = np.full(n, -1, dtype=np.intp)
        right = np.full(n, -1, dtype=np.intp)
        feature = np.full(n, -1, dtype=np.intp)
        tables = np.zeros((n, max_width), dtype=bool)
        for (ids, feat, _, _, _, _, lch, rch), table in zip(self.splits, self.tables):
            left[ids], right[ids], feature[ids], tables[ids] = lch, rch, feat, table
        return left, right, feature, tables


class _Context:
    """Everything constant during growth.

    ``level_map`` (``criterion="profit"`` without case costs): the histograms and node
    sums hold per-level counts, and ``crit_sums`` maps them to the money channels
    (:func:`~dtdecide.tree._kernels._histogram.map_channels`); None otherwise.
    """

    level_map = None

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def crit_sums(self, sums):
        if self.level_map is not None:
            return map_channels(sums, self.level_map)
        return sums * self.class_weight if self.class_weight is not None else sums

    def weight_of(self, sums):
        if self.profit is not None:
            return self.profit.weight(sums)
        return channel_sum(sums) if self.is_classification else sums[..., 0]

    def find(self, level):
        """The best split of every slot of ``level`` (its parts' scans in one hand-off)."""
        found = find_level_splits(
            level.hist,
            level.counts,
            is_classification=self.is_classification,
            criterion=self.criterion,
            loss_matrix=self.loss_matrix,
            class_weight=self.class_weight,
            is_categorical=self.is_categorical,
            min_samples_leaf=self.min_samples_leaf,
            layout=self.layout,
            pool=getattr(self, "pool", None),
            n_rows=getattr(self, "n_rows", None),
            channel_map=self.level_map,
        )
        if len(found) == 1:
            return found[0]
        return SplitResult(*(np.concatenate([getattr(f, field.name) for f in found])
                             for field in dataclasses.fields(SplitResult)))

    def accept(self, split, level):
        """Active nodes whose best split is valid and decreases impurity enough."""
        improvement = split.gain / self.total_weight
        ok = split.is_valid & (improvement + _EPS >= self.min_impurity_decrease)
        if self.profit is not None:
            # money gains: a split must gain something (beyond rounding) to be made
            ok &= improvement > _PROFIT_RTOL
        return ok & level.active

    def can_split(self, depth, n_samples, sums):
        ok = (n_samples >= self.min_samples_split) & (n_samples >= 2 * self.min_samples_leaf)
        if self.max_depth is not None and depth >= self.max_depth:
            return np.zeros_like(ok)
        imp = impurity(self.crit_sums(sums), self.criterion, self.loss_matrix)
        return ok & (imp > _EPS)


def _child_sums(ctx, level, sel, feat, table, chosen):
    """The children's sums ``(2 ns, C)`` (left of slot ``i`` at ``2 i``), counts
    ``(2 ns,)`` and the left and right counts of the split slots ``sel`` (the NumPy
    steps; twin of ``_compiled_level.split_children_cells`` for unit-weight counts)."""
    ns = sel.size
    if level.counts[0] is not None:
        cnt = _gather(ctx.layout, level, level.counts, sel, feat)  # (ns, B)
    elif ctx.level_map is not None:  # unit-weight level counts
        cnt = channel_sum(chosen)
    else:
        cnt = ctx.weight_of(chosen)
    left_sums = np.einsum("sbc,sb->sc", chosen, table)
    parent_sums = chosen.sum(axis=1)
    right_sums = parent_sums - left_sums
    left_cnt = np.where(table, cnt, 0).sum(axis=1).astype(np.int64)
    right_cnt = cnt.sum(axis=1).astype(np.int64) - left_cnt
    child_sums = np.stack([left_sums, right_sums], axis=1).reshape(2 * ns, -1)
    child_cnt = np.stack([left_cnt, right_cnt], axis=1).reshape(2 * ns)
    if ctx.is_classification:
        # parent-minus-sibling histograms leave a residue where a class is absent from a
        # child (fractional weights): zero, so that a pure child is a leaf whatever the
        # order of the additions (in memory and on Dask alike)
        child_sums[child_sums <= ctx.residue_tol] = 0.0
    return child_sums, child_cnt, left_cnt, right_cnt


def _expand(ctx, level, split, do):
    """Split the nodes ``do`` of ``level``; return the level of children still to grow."""
    nodes = ctx.nodes
    sel = np.flatnonzero(do)
    ns = sel.size
    feat = split.feature[sel]
    table = split.go_left[sel]
    first = level.hist[0]
    unit_counts = (first.dtype == np.float32 and ctx.is_classification
                   and (ctx.profit is None or ctx.level_map is not None)
                   and level.counts[0] is None and _compiled_fit(ctx))
    if unit_counts:
        # unit-weight class (or level) counts, a node's count their sum: the children in
        # one pass over each part's chosen cells, read in place
        child_sums, child_cnt = _split_children_compiled(ctx.layout, level, sel, feat,
                                                         table)
    else:
        chosen = _gather(ctx.layout, level, level.hist, sel, feat)  # (ns, B, C)
        child_sums, child_cnt, _, _ = _child_sums(ctx, level, sel, feat, table, chosen)
    child_depth = level.depth + 1
    parents = level.node_ids[sel]
    child_ids = nodes.add(np.repeat(parents, 2), child_depth, child_cnt, child_sums)
    is_cat = split.is_categorical[sel]
    bin_thr = split.bin_threshold[sel]
    threshold = np.where(is_cat, np.nan, ctx.thresholds[feat, np.maximum(bin_thr, 0)])
    nodes.set_split(
        parents,
        feat,
        threshold,
        is_cat,
        table[:, : ctx.cat_width] & is_cat[:, None],
        split.missing_left[sel],
        child_ids[0::2],
        child_ids[1::2],
        table,
    )

    # children that keep growing; rows of pairs where neither does are dropped unsplit
    if (unit_counts and ctx.criterion == "gini" and ctx.class_weight is None
            and ctx.level_map is None
            and (ctx.max_depth is None or child_depth < ctx.max_depth)):
        from .._kernels import _compiled_level

        cont = np.empty(2 * ns, dtype=bool)
        _compiled_level.gini_can_split(child_sums, child_cnt, ctx.min_samples_split,
                                       ctx.min_samples_leaf, _EPS, cont)
    else:
        cont = ctx.can_split(child_depth, child_cnt, child_sums)
    if not cont.any():
        finish = getattr(ctx.source, "finish", None)
        if finish is not None:  # the rows' leaves (rows kept in memory)
            finish(ctx, level, child_ids, sel=sel, feat=feat, table=table)
        return None
    # slots of the new level: [small growing | small dead | big growing]; only the
    # smaller child of each pair is histogrammed from rows
    plan = _plan_slots_compiled if _compiled_fit(ctx) else _plan_slots
    (needed, n_small_cont, n_built, order, slot_of_child, big_parent, big_small,
     n_built_rows) = plan(cont, child_cnt, sel)

    # the histograms of the new level: those of the smaller children in a new array; each
    # growing larger child's written over its parent's (the parent's part then holds its
    # larger children first), so a level and its parent need no more than the level's
    # slots and the smaller children's
    small_hist = _level_empty((n_built, *first.shape[1:]), first.dtype)
    small_counts = None
    if ctx.with_counts:
        small_counts = _level_empty((n_built, *level.counts[0].shape[1:]),
                                    level.counts[0].dtype)
    # siblings by subtraction: parent (big_parent, ascending) - smaller child
    # (compiled: by the histogram pass's threads, each on the cells it has just
    # finished; see _subtract_siblings)
    jobs = []
    if len(level.hist) == 1:  # one part (most levels): no split by part
        pieces = [(0, big_parent, big_small)] if big_parent.size else []
    else:
        part = level.part_of(big_parent)
        pieces = []
        for p in np.unique(part).tolist():
            idx = np.flatnonzero(part == p)
            pieces.append((p, big_parent[idx] - level.offsets[p], big_small[idx]))
    for p, local, small_idx in pieces:
        jobs.append((level.hist[p], local, small_hist, small_idx))
        if small_counts is not None:
            jobs.append((level.counts[p], local, small_counts, small_idx))
    after = _SiblingCells.of(jobs, _compiled_fit(ctx))
    alive_rows, alive_slots = ctx.source.children(
        ctx, level, child_ids, slot_of_child, n_built, n_small_cont,
        (small_hist, small_counts),
        sel=sel, needed=needed, feat=feat, table=table, n_built_rows=n_built_rows,
        after=after,
    )
    hists, counts = [small_hist], [small_counts]
    done = _subtract_siblings(jobs, getattr(ctx, "pool", None), _compiled_fit(ctx), after)
    step = 1 if small_counts is None else 2
    for q in range(0, len(done), step):
        hists.append(done[q])
        counts.append(None if small_counts is None else done[q + 1])
        if ctx.clip_subtraction:
            big = hists[-1]
            if ctx.is_classification:
                np.maximum(big, 0.0, out=big)
            else:
                np.maximum(big[..., 0], 0.0, out=big[..., 0])
                np.maximum(big[..., 2], 0.0, out=big[..., 2])
    hists, counts = _tidy_parts(hists, counts)
    active = np.ones(order.size, dtype=bool)
    active[n_small_cont:n_built] = False
    return Level(
        child_ids[order], child_depth, hists, counts, alive_rows, alive_slots,
        active=active,
    )


def _split_children_compiled(layout, level, sel, feat, table):
    """The children's sums ``(2 ns, C)`` (left of slot ``i`` at ``2 i``) and counts of
    the split slots ``sel`` (ascending) of a level of unit-weight float32 counts, by
    :func:`~dtdecide.tree._kernels._compiled_level.split_children_cells` on each part's
    own cells (no gathered copy): the numbers of :func:`_child_sums` on
    :func:`_gather`'s."""
    from .._kernels import _compiled_level

    ns = sel.size
    child_sums = np.empty((2 * ns, level.hist[0].shape[2]), dtype=level.hist[0].dtype)
    child_cnt = np.empty(2 * ns, dtype=np.int64)
    table = np.ascontiguousarray(table)
    bounds = np.searchsorted(sel, level.offsets).tolist()  # each part's split slots
    for p, hist in enumerate(level.hist):
        a, b = bounds[p], bounds[p + 1]
        if b > a:
            _compiled_level.split_children_cells(
                hist, sel[a:b] - level.offsets[p], feat[a:b], layout.cell_index,
                table[a:b], child_sums, child_cnt, a)
    return child_sums, child_cnt


def _plan_slots(cont, child_cnt, sel):
    """The slots of the level of the children of the split nodes ``sel`` (children
    ``2 i``, left, and ``2 i + 1`` of ``sel[i]``, with ``child_cnt`` rows; ``cont``:
    those that keep growing): ``[small growing | small dead | big growing]``, where a
    pair with a growing child has its smaller child (the right one when it has fewer
    rows) histogrammed from rows and its larger one, if growing, derived as parent less
    smaller.

    Returns ``(needed, n_small_cont, n_built, order, slot_of_child, big_parent,
    big_small, n_built_rows)``: the pairs with a growing child, the smaller children
    that grow, the smaller children (all built), the children in slot order, every
    child's slot (-1: none), each big growing child's parent (ascending) and its
    sibling's slot, and the rows of the built children. The NumPy steps; twin of
    :func:`~dtdecide.tree._kernels._compiled_level.plan_slots`.
    """
    ns = sel.size
    needed = np.flatnonzero(cont[0::2] | cont[1::2])  # pairs with a growing child
    small_child = 2 * np.arange(ns) + (child_cnt[1::2] < child_cnt[0::2])
    small_needed = small_child[needed]
    small_cont = small_needed[cont[small_needed]]
    small_dead = small_needed[~cont[small_needed]]  # built only to subtract
    big = cont.copy()
    big[small_needed] = False
    big_cont = np.flatnonzero(big)  # np.setdiff1d(flatnonzero(cont), small_needed)
    order = np.concatenate([small_cont, small_dead, big_cont])
    slot_of_child = np.full(2 * ns, -1, dtype=_ROW_INT)
    slot_of_child[order] = np.arange(order.size, dtype=_ROW_INT)
    big_parent = sel[big_cont // 2]
    big_small = slot_of_child[small_child[big_cont // 2]]
    return (needed, small_cont.size, small_needed.size, order, slot_of_child, big_parent,
            big_small, int(child_cnt[small_needed].sum()))


def _plan_slots_compiled(cont, child_cnt, sel):
    """:func:`_plan_slots` in one compiled pass
    (:func:`~dtdecide.tree._kernels._compiled_level.plan_slots`): the same arrays."""
    from .._kernels import _compiled_level

    ns = sel.size
    needed = np.empty(ns, dtype=np.intp)
    order = np.empty(2 * ns, dtype=np.intp)
    slot_of_child = np.empty(2 * ns, dtype=_ROW_INT)
    big_parent = np.empty(ns, dtype=sel.dtype)
    big_small = np.empty(ns, dtype=_ROW_INT)
    n_needed, n_small_cont, n_built, n_slots, n_built_rows = _compiled_level.plan_slots(
        np.ascontiguousarray(cont), np.ascontiguousarray(child_cnt, dtype=np.int64), sel,
        needed, order, slot_of_child, big_parent, big_small)
    n_big = n_slots - n_built
    return (needed[:n_needed], n_small_cont, n_built, order[:n_slots], slot_of_child,
            big_parent[:n_big], big_small[:n_big], int(n_built_rows))


def _compiled_fit(ctx):
    """Whether this fit runs the compiled kernels, asked once (per thread settings are
    read in the calling thread) for the whole table (``ctx.n_rows``)."""
    compiled = getattr(ctx, "compiled", None)
    if compiled is None:
        compiled = ctx.compiled = use_compiled(getattr(ctx, "n_rows", 0))
    return compiled


def _subtract_over_parents(parents, parent_idx, small, small_idx, pool=None):
    """``parents[i] = parents[parent_idx[i]] - small[small_idx[i]]`` for ascending
    ``parent_idx``: each larger child's histogram over its parent's, then moved to the
    front; returns the view ``parents[:len(parent_idx)]``. The subtractions are shared
    among the threads of ``pool`` (node by node, in place: no temporaries), the moves
    made after them, in order (a slot is moved down only after it was read)."""
    parent_idx = parent_idx.tolist()
    small_idx = small_idx.tolist()

    def run(nodes):
        for i in nodes:
            p = parents[parent_idx[i]]
            np.subtract(p, small[small_idx[i]], out=p)

    n = len(parent_idx)
    if pool is None or n < 2:
        run(range(n))
    else:
        bounds = np.linspace(0, n, min(pool.n_threads, n) + 1).astype(int)
        pool.map_groups(run, [range(a, b) for a, b in zip(bounds[:-1], bounds[1:])])
    for i, j in enumerate(parent_idx):
        if i != j:
            parents[i] = parents[j]
    return parents[:n]


#: fewest numbers a subtraction of siblings hands to the threads (below: the calling
#: thread; a few microseconds of work against a hand-off each way)
_SUBTRACT_INLINE = 1 << 16


class _SiblingCells:
    """``after(a, b)`` of :func:`~dtdecide.tree._kernels._histogram.build_histograms`:
    the compiled subtraction of siblings (:func:`_subtract_siblings`) of the flat cells
    ``a:b``, run by the thread that has just finished the smaller children's histograms
    of those cells (cache-warm, and no hand-off of its own); the cells done are
    counted (``covered``). Each cell's numbers are the same single float subtraction
    as in one pass.
    """

    def __init__(self, flat, n_cells):
        import threading

        self.flat = flat  # (parents 2-D, parent_idx, small 2-D, small_idx, numbers a cell)
        self.n_cells = n_cells
        self.covered = 0
        self._lock = threading.Lock()

    @classmethod
    def of(cls, jobs, compiled):
        """The hook for ``jobs`` (:func:`_subtract_siblings`), or None where it does not
        apply (NumPy kernels, a part that is not contiguous, nothing to subtract)."""
        if not compiled or not jobs:
            return None
        flat = []
        n_cells = jobs[0][2].shape[1]
        for parents, parent_idx, small, small_idx in jobs:
            if not (parents.flags.c_contiguous and small.flags.c_contiguous
                    and small.shape[1] == n_cells and small.shape[1:] == parents.shape[1:]):
                return None
            per_cell = int(np.prod(small.shape[2:], dtype=np.int64))
            flat.append((parents.reshape(parents.shape[0], -1),
                         np.asarray(parent_idx, dtype=np.intp),
                         small.reshape(small.shape[0], -1),
                         np.asarray(small_idx, dtype=np.intp), per_cell))
        return cls(flat, n_cells)

    def __call__(self, a, b):
        from .._kernels import _compiled

        for P, parent_idx, S, small_idx, per_cell in self.flat:
            _compiled.subtract_siblings(P, parent_idx, S, small_idx, a * per_cell,
                                        b * per_cell)
        with self._lock:
            self.covered += b - a


def _subtract_siblings(jobs, pool, compiled, after=None):
    """``[_subtract_over_parents(*job, pool) for job in jobs]``, each job a part of a
    level's histograms (or row counts) with its parents' and smaller siblings' slots.

    ``after`` (:class:`_SiblingCells`): where the histogram pass has already
    subtracted every cell through it, only the views are returned; where it subtracted
    none (a row source that does not take it), the subtraction runs here.

    ``compiled``: :func:`~dtdecide.tree._kernels._compiled.subtract_siblings` on every
    job in one hand-off, each thread taking its own range of every slot's numbers
    (cells and channels), so the subtractions and the moves to the front run on the
    threads without the interpreter's lock; the same numbers (one float subtraction
    each). A job whose arrays are not contiguous takes the NumPy way, in turn.
    """
    if after is not None and after.covered:
        if after.covered != after.n_cells:  # a cell subtracted twice or not at all
            raise RuntimeError(
                f"internal error: the histogram pass subtracted siblings in "
                f"{after.covered} cells of {after.n_cells}")
        return [job[0][: job[1].shape[0]] for job in jobs]
    if not compiled:
        return [_subtract_over_parents(*job, pool) for job in jobs]
    from .._kernels import _compiled

    flat, work = [], 0
    for parents, parent_idx, small, small_idx in jobs:
        if not (parents.flags.c_contiguous and small.flags.c_contiguous):
            flat.append(None)
            continue
        P = parents.reshape(parents.shape[0], -1)  # views: in place
        S = small.reshape(small.shape[0], -1)
        flat.append((P, np.asarray(parent_idx, dtype=np.intp),
                     S, np.asarray(small_idx, dtype=np.intp)))
        work += parent_idx.shape[0] * P.shape[1]
    n = 1 if pool is None or work < _SUBTRACT_INLINE else pool.n_threads

    def run(t):
        for f in flat:
            if f is not None:
                width = f[0].shape[1]
                _compiled.subtract_siblings(*f, width * t // n, width * (t + 1) // n)

    if n == 1:
        run(0)
    else:
        pool.map_groups(run, list(range(n)))
    return [_subtract_over_parents(*job, pool) if f is None
            else job[0][: job[1].shape[0]] for job, f in zip(jobs, flat)]


#: parts of a level's histograms smaller than this are copied together (fewer scans)
_SMALL_PART_BYTES = 1 << 21

#: a level's histogram arrays of at least this many bytes (NumPy's own least size for
#: huge pages) are mapped from the system each on its own, in whole 2 MiB huge pages
#: (see :func:`_level_empty`)
_OWN_MAPPING_BYTES = 1 << 22
_HUGE_PAGE = 1 << 21


def _level_empty(shape, dtype):
    """``np.empty(shape, dtype)`` for a level's histograms.

    A large one (at least :data:`_OWN_MAPPING_BYTES`) is a private anonymous mapping of
    its own in whole huge pages (``MADV_HUGEPAGE``, as NumPy asks for its own large
    arrays), not memory of the C heap: the heap's large blocks are partly small pages,
    each a page fault when first written and a page to give back when the heap shrinks,
    which made the last level's histograms cost about 2 ms of the calling thread to free
    at 2,000,000 rows (a hundredth of that in huge pages); the mapping is unmapped with
    the array. Where the platform has no such mapping, ``np.empty``.
    """
    dtype = np.dtype(dtype)
    count = 1
    for k in shape:
        count *= int(k)
    nbytes = count * dtype.itemsize
    if (nbytes < _OWN_MAPPING_BYTES or not hasattr(mmap, "MAP_PRIVATE")
            or not hasattr(mmap, "MADV_HUGEPAGE")):
        return np.empty(shape, dtype=dtype)
    mapping = mmap.mmap(-1, -(-nbytes // _HUGE_PAGE) * _HUGE_PAGE, flags=mmap.MAP_PRIVATE)
    try:
        mapping.madvise(mmap.MADV_HUGEPAGE)
    except OSError:  # no transparent huge pages: small pages, a mapping all the same
        pass
    return np.frombuffer(mapping, dtype=dtype, count=count).reshape(shape)


def _tidy_parts(hists, counts):
    """A level's histogram parts, with a part that fills less than half its array copied
    out of it (the array is then freed) and runs of adjacent small parts joined (one
    split scan each); slots keep their order."""
    for i, h in enumerate(hists):
        base = h if h.base is None else h.base
        if base.nbytes > _SMALL_PART_BYTES and base.nbytes >= 2 * h.nbytes:
            hists[i] = _level_copy(h)
            if counts[i] is not None:
                counts[i] = _level_copy(counts[i])
    out_h, out_c, run = [], [], []

    def flush():
        if len(run) == 1:
            out_h.append(run[0][0])
            out_c.append(run[0][1])
        elif run:
            out_h.append(_level_concatenate([h for h, _ in run]))
            out_c.append(None if run[0][1] is None
                         else _level_concatenate([c for _, c in run]))
        run.clear()

    for h, c in zip(hists, counts):
        if h.nbytes < _SMALL_PART_BYTES:
            run.append((h, c))
            continue
        flush()
        out_h.append(h)
        out_c.append(c)
    flush()
    return out_h, out_c


def _level_copy(a):
    """A copy of ``a`` in :func:`_level_empty`'s memory."""
    out = _level_empty(a.shape, a.dtype)
    np.copyto(out, a)
    return out


def _level_concatenate(arrays):
    """``np.concatenate(arrays)`` (along the first axis) in :func:`_level_empty`'s
    memory."""
    out = _level_empty((sum(a.shape[0] for a in arrays), *arrays[0].shape[1:]),
                       arrays[0].dtype)
    return np.concatenate(arrays, out=out)


def _gather(layout, level, parts, sel, feat):
    """``layout.gather`` of the slots ``sel`` (ascending) over a level's parts."""
    if len(parts) == 1:
        return layout.gather(parts[0], sel, feat)
    part = level.part_of(sel)
    pieces = []
    for p in np.unique(part).tolist():
        idx = np.flatnonzero(part == p)
        pieces.append(layout.gather(parts[p], sel[idx] - level.offsets[p], feat[idx]))
    return np.concatenate(pieces)


def _grow_level_wise(ctx, root, bar):
    level = root.pop()
    while level is not None and level.n_nodes:
        split = ctx.find(level)
        do = ctx.accept(split, level)
        if not do.any():
            break
        level = _expand(ctx, level, split, do)
        bar.update(1)
        bar.set_postfix_str(f"{int(do.sum())} split, "
                            f"{0 if level is None else level.n_nodes} to grow")


def _grow_best_first(ctx, root, max_leaf_nodes, bar):
    heap, counter = [], 0

    def push(level, split):
        nonlocal counter
        do = ctx.accept(split, level)
        for i in np.flatnonzero(do):
            single = level if level.n_nodes == 1 else level.take(i)
            item = (-float(split.gain[i]), counter, single, _take_split(split, i))
            heapq.heappush(heap, item)
            counter += 1

    root = root.pop()
    push(root, ctx.find(root))
    del root
    n_leaves = 1
    while heap and n_leaves < max_leaf_nodes:
        _, _, level, split = heapq.heappop(heap)
        children = _expand(ctx, level, split, np.ones(1, dtype=bool))
        n_leaves += 1
        bar.update(1)
        if children is not None:
            push(children, ctx.find(children))


def _check_int(name, value, low, allow_none=False):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        extra = " or None" if allow_none else ""
        raise ValueError(f"{name} must be an integer >= {low}{extra}; got {value!r}")
    return int(value)


def grow_tree(X_binned, binner, *, y, n_classes=None, sample_weight=None, criterion="gini",
              loss_matrix=None, class_weight=None, max_depth=6, min_samples_leaf=5,
              min_samples_split=10, min_impurity_decrease=0.0, max_leaf_nodes=None,
              chunk_size=DEFAULT_CHUNK_SIZE, case_profit=None,
              profit_method=DEFAULT_PROFIT_METHOD, check_input=True, pool=None,
              return_leaves=False):
    """Grow a tree on binned inputs.

    Parameters
    ----------
    X_binned : ndarray of uint8 or uint16, shape (n_samples, n_features)
        Output of ``binner.transform``.
    binner : Binner
        The fitted :class:`~dtdecide.tree._kernels._binning.Binner` (bin edges, categorical flags).
    y : array-like of shape (n_samples,)
        Class codes in ``[0, n_classes)`` (classification) or float targets (variance).
    n_classes : int or None
        Number of classes (default: ``max(y) + 1``); ignored for ``variance``.
    sample_weight : array-like of shape (n_samples,) or None
        Non-negative case weights (frequencies).
    criterion : {"gini", "entropy", "generalized_gini", "variance", "profit"}, default="gini"
        ``"profit"`` grows on the cases' own consequences ``case_profit`` (see
        :mod:`dtdecide.tree._kernels._profit`); ``y`` then only fills the node ``value``: class
        codes when ``n_classes`` is given, else float targets (regression ``value``).
    loss_matrix : array-like of shape (n_classes, n_classes) or None
        Loss ``L(t, d)`` of the generalized Gini ``sum_t sum_d L(t, d) p_t p_d``; required
        with (and only with) ``criterion="generalized_gini"``.
    class_weight : array-like of shape (n_classes,) or None
        Per-class multiplier used in the split search only (e.g. priors divided by training
        proportions). Node ``value`` keeps the raw weighted counts; ``impurity`` uses the
        multiplied counts.
    max_depth : int or None, default=6
        Largest depth (None: unlimited).
    min_samples_leaf : int, default=5
        Least number of training rows (not weight) in each child of a split.
    min_samples_split : int, default=10
        Least number of rows for a node to be split.
    min_impurity_decrease : float, default=0.0
        Least weighted impurity decrease of a split (scikit-learn's definition).
    max_leaf_nodes : int or None, default=None
        When set, grow best-first up to this many leaves.
    chunk_size : int
        Rows per histogram chunk.
    case_profit : array-like of shape (n_samples, n_decisions), callable or None
        ``criterion="profit"`` only: realised profit ``Q(i, T(i), d)`` of every decision
        for every case (profit orientation). ``class_weight`` (classification) multiplies
        each case's weight by its class's entry. A callable without arguments returning
        that array is called once, when growing starts: the grower keeps only each
        case's best decision and weights from it, so an array that nothing else holds
        is freed before the tree grows (the estimators pass one). A callable with a
        ``level_table`` attribute (an ``(n_classes, n_decisions)`` array; see
        :func:`~dtdecide.tree._kernels._profit.level_consequences`) says that every
        case's consequences are its class's row: the grower then histograms the
        (sample-weighted) class counts and derives the money from them and the table
        (no per-case array; the callable is not called).
    profit_method : str, default=DEFAULT_PROFIT_METHOD
        ``criterion="profit"`` only: one of :data:`dtdecide.tree._kernels._profit.PROFIT_METHODS`.
    check_input : bool, default=True
        Validate ``y`` and ``sample_weight``. The estimators validate their inputs once
        and pass False (as scikit-learn's trees do).
    pool : ThreadPool or None
        Threads that share the histograms' features (:mod:`dtdecide.tree._kernels._parallel`,
        the estimators' ``n_jobs``); the tree does not depend on it.
    return_leaves : bool, default=False
        Also return the leaf of every row of ``X_binned``, as the partitions of the
        growth left them: ``tree.apply`` of the raw rows gives the same ids, without a
        second pass over the rows.

    Returns
    -------
    TreeStructure
        Raw thresholds, categorical left sets, learned missing directions, node ``value``
        (weighted class counts; regression ``[sum w, sum w*y, sum w*y**2]``), impurity and
        counts. Decision statistics are left None.
    leaves : ndarray of int32, shape (n_samples,)
        Only with ``return_leaves``: the leaf (node id) of every row.

    Examples
    --------
    >>> import numpy as np
    >>> from dtdecide.tree._kernels._binning import Binner
    >>> from dtdecide.tree._algorithms._grower import grow_tree
    >>> X = np.array([[1.0], [2.0], [3.0], [4.0], [5.0], [6.0]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> binner = Binner().fit(X, np.array([False]))
    >>> tree = grow_tree(binner.transform(X), binner, y=y, min_samples_leaf=1,
    ...                  min_samples_split=2)
    >>> float(tree.threshold[0]), tree.value.tolist()
    (3.5, [[3.0, 3.0], [3.0, 0.0], [0.0, 3.0]])
    >>> tree.apply(X).tolist()
    [1, 1, 1, 2, 2, 2]
    """
    ctx, shift = _make_context(
        X_binned, binner, y=y, n_classes=n_classes, sample_weight=sample_weight,
        criterion=criterion, loss_matrix=loss_matrix, class_weight=class_weight,
        max_depth=max_depth, min_samples_leaf=min_samples_leaf,
        min_samples_split=min_samples_split, min_impurity_decrease=min_impurity_decrease,
        max_leaf_nodes=max_leaf_nodes, chunk_size=chunk_size, case_profit=case_profit,
        profit_method=profit_method, check_input=check_input,
    )
    ctx.pool = pool
    tree = _grow(ctx, ctx.X_binned.shape[0], ctx.max_leaf_nodes, shift)
    return (tree, ctx.leaf_of_row) if return_leaves else tree


def _stopping_rules(max_depth, min_samples_leaf, min_samples_split, min_impurity_decrease,
                    max_leaf_nodes):
    """The stopping rules of a grower's context, as both growers (rows in memory or
    elsewhere) pass them."""
    return dict(max_depth=max_depth, min_samples_leaf=min_samples_leaf,
                min_samples_split=min_samples_split,
                min_impurity_decrease=float(min_impurity_decrease),
                max_leaf_nodes=max_leaf_nodes)


def _make_context(X_binned, binner, *, y, n_classes, sample_weight, criterion, loss_matrix,
                  class_weight, max_depth, min_samples_leaf, min_samples_split,
                  min_impurity_decrease, max_leaf_nodes, chunk_size, case_profit,
                  profit_method, check_input):
    """Validate ``grow_tree``'s arguments and build its growing context (and the
    regression target's centring shift): the histogram target and the split criterion
    that growing and :func:`node_split_candidates` share."""
    if not hasattr(binner, "n_bins_"):
        raise ValueError("binner must be a fitted Binner")
    X_binned = np.asarray(X_binned)
    if X_binned.ndim != 2 or X_binned.dtype not in (np.uint8, np.uint16):
        raise TypeError(
            "X_binned must be a 2-D uint8/uint16 array from Binner.transform; got "
            f"dtype {X_binned.dtype} and shape {X_binned.shape}"
        )
    n_samples, n_features = X_binned.shape
    if n_features != binner.n_features_in_:
        raise ValueError(
            f"X_binned has {n_features} columns; the binner was fitted with "
            f"{binner.n_features_in_}"
        )
    if n_samples == 0:
        raise ValueError("X_binned must have at least one row")
    if n_samples >= np.iinfo(_ROW_INT).max:
        raise ValueError(f"grow_tree supports fewer than 2**31 rows; got {n_samples}")
    X_binned = np.asfortranarray(X_binned)
    if criterion not in (*CRITERIA, "profit"):
        raise ValueError(f"criterion must be one of {(*CRITERIA, 'profit')}; got {criterion!r}")
    if (criterion == "profit") != (case_profit is not None):
        raise ValueError("case_profit is required with (and only with) criterion='profit'")
    is_classification = criterion in CLASSIFICATION_CRITERIA
    max_depth = _check_int("max_depth", max_depth, 1, allow_none=True)
    min_samples_leaf = _check_int("min_samples_leaf", min_samples_leaf, 1)
    min_samples_split = _check_int("min_samples_split", min_samples_split, 2)
    max_leaf_nodes = _check_int("max_leaf_nodes", max_leaf_nodes, 2, allow_none=True)
    chunk_size = _check_int("chunk_size", chunk_size, 1)
    if (
        isinstance(min_impurity_decrease, bool)
        or not isinstance(min_impurity_decrease, numbers.Real)
        or not min_impurity_decrease >= 0
    ):
        raise ValueError(
            f"min_impurity_decrease must be a non-negative number; got {min_impurity_decrease!r}"
        )

    if check_input:
        sample_weight = check_sample_weight(sample_weight, n_samples, positive_sum=True)
    if sample_weight is not None:
        sw = np.asarray(sample_weight)
        if sw.ndim == 1 and sw.shape[0] and sw.strides[0] == 0:
            sw = sw[:1]  # a broadcast of one number (the estimators' unit weights)
        if np.all(sw == 1.0):
            sample_weight = None  # unit weights: exact integer counts, faster kernels

    y = np.asarray(y)
    if y.shape != (n_samples,):
        raise ValueError(f"y must have shape ({n_samples},); got {y.shape}")
    y_value = y
    if criterion == "profit":
        is_classification = n_classes is not None
    if is_classification:
        if check_input and y.dtype.kind not in "iub" and not (
            y.dtype.kind == "f" and np.all(np.isfinite(y)) and np.all(y == np.floor(y))
        ):
            raise ValueError("y must hold integer class codes for a classification criterion")
        # integer codes as given (the estimators pass the smallest dtype)
        codes = y if y.dtype.kind in "iu" else y.astype(np.intp)
        if check_input and codes.min() < 0:
            raise ValueError("y class codes must be non-negative")
        if n_classes is None:
            n_classes = int(codes.max()) + 1
        n_classes = _check_int("n_classes", n_classes, 1)
        if check_input and codes.max() >= n_classes:
            raise ValueError(f"y class codes must be < n_classes={n_classes}")
        target = HistogramTarget(codes=codes, n_classes=n_classes, weights=sample_weight)
        y_value = codes
        shift = 0.0
        if class_weight is not None:
            class_weight = np.asarray(class_weight, dtype=np.float64)
            if class_weight.shape != (n_classes,):
                raise ValueError(
                    f"class_weight must have shape ({n_classes},); got {class_weight.shape}"
                )
            if not np.all(np.isfinite(class_weight)) or np.any(class_weight < 0):
                raise ValueError("class_weight must be finite and non-negative")
        if criterion == "profit":
            pass  # class_weight folds into the case weights below
        elif criterion == "generalized_gini":
            if loss_matrix is None:
                raise ValueError("loss_matrix is required with criterion='generalized_gini'")
            loss_matrix = check_loss_matrix(loss_matrix, n_classes)
        elif loss_matrix is not None:
            raise ValueError("loss_matrix is only used with criterion='generalized_gini'")
    else:
        if class_weight is not None:
            raise ValueError("class_weight is only used with a classification criterion")
        if loss_matrix is not None:
            raise ValueError("loss_matrix is only used with criterion='generalized_gini'")
        try:
            yf = y.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"y must be numeric for criterion={criterion!r}") from exc
        if check_input and not np.all(np.isfinite(yf)):
            raise ValueError(f"y must be finite for criterion={criterion!r}")
        w = np.ones(n_samples) if sample_weight is None else sample_weight
        shift = float(np.average(yf, weights=w))  # centring keeps sum w*y**2 accurate
        yc = yf - shift
        channels = np.column_stack([w, w * yc, w * yc * yc])
        target = HistogramTarget(channels=channels)
        y_value = yf

    profit = None
    value_rows = None
    level_map = None
    if criterion == "profit":
        # the histograms hold the money channels; ``value`` is summed from the rows after
        profit, target, value_rows, level_map = _profit_target(
            case_profit, profit_method, y_value, n_classes, sample_weight, class_weight,
            n_samples, target if is_classification else None,
        )
        criterion, class_weight, loss_matrix, shift = profit, None, None, 0.0
        is_classification = True

    ctx = _layout_context(
        binner,
        source=LocalRows(),
        X_binned=X_binned,
        target=target,
        is_classification=is_classification,
        criterion=criterion,
        loss_matrix=loss_matrix,
        class_weight=class_weight,
        with_counts=not target.counts_from_sums,
        # float sums of non-integer weights can leave -1e-17 after "parent - small"
        clip_subtraction=not (is_classification and sample_weight is None),
        chunk_size=chunk_size,
        **_stopping_rules(max_depth, min_samples_leaf, min_samples_split,
                          min_impurity_decrease, max_leaf_nodes),
        profit=profit,
        value_rows=value_rows,
        level_map=level_map,
        pool=None,
    )
    return ctx, shift


class NodeSplits:
    """The splits of one node as the grower sees them (from :func:`node_split_candidates`).

    Attributes
    ----------
    best : SplitResult
        The best split of every input (``find_best_splits(per_feature=True)``): entry
        ``j`` is input ``j``'s, feature ``-1`` where the input has no valid split.
    thresholds : ndarray of shape (n_features, n_bins_total)
        Raw upper edge of every numeric bin (NaN elsewhere): a numeric split whose last
        left bin is ``b`` sends ``x <= thresholds[j, b]`` left.
    """

    def __init__(self, ctx, hist):
        self._ctx = ctx
        self._hist = hist
        self.thresholds = ctx.thresholds

    def gains(self, feature, go_left):
        """Criterion gain ``W(node) - W(left) - W(right)`` of arbitrary splits.

        Parameters
        ----------
        feature : ndarray of int, shape (k,)
        go_left : ndarray of bool, shape (k, max_width)
            Whether each binned value of the feature goes left (missing code last).

        Returns
        -------
        ndarray of shape (k,)
            In the criterion's (class-weighted) sums, as the grower compares splits.
        """
        ctx = self._ctx
        feature = np.asarray(feature, dtype=np.intp)
        chosen = ctx.layout.gather(self._hist, np.zeros(feature.shape[0], dtype=np.intp),
                                   feature)  # (k, B, C)
        chosen = ctx.crit_sums(chosen.astype(np.float64))
        left = np.einsum("kbc,kb->kc", chosen, np.asarray(go_left, dtype=np.float64))
        parent = chosen.sum(axis=1)
        return split_gain(left[:, None, :], parent, ctx.criterion, ctx.loss_matrix)[:, 0]


def node_split_candidates(X_binned, binner, rows, *, y, n_classes=None, sample_weight=None,
                          criterion="gini", loss_matrix=None, class_weight=None,
                          min_samples_leaf=5, case_profit=None,
                          profit_method=DEFAULT_PROFIT_METHOD, check_input=True):
    """The best split of every input at one node, by the grower's own histogram and scan.

    Takes the arguments of :func:`grow_tree` (those that matter to one split) and the
    training ``rows`` that reach the node; builds the node's histogram exactly as the
    grower does and scans it with :func:`~dtdecide.tree._kernels._splitter.find_best_splits`
    (``per_feature=True``), so the entry of the input the grower picked is the grower's
    split.

    Returns
    -------
    NodeSplits

    Examples
    --------
    >>> import numpy as np
    >>> from dtdecide.tree._kernels._binning import Binner
    >>> from dtdecide.tree._algorithms._grower import node_split_candidates
    >>> X = np.array([[1.0, 5.0], [2.0, 4.0], [3.0, 6.0], [4.0, 1.0]])
    >>> y = np.array([0, 0, 1, 1])
    >>> binner = Binner().fit(X, np.array([False, False]))
    >>> s = node_split_candidates(binner.transform(X), binner, np.arange(4), y=y,
    ...                           min_samples_leaf=1).best
    >>> s.gain.round(3).tolist(), s.bin_threshold.tolist()
    ([2.0, 0.667], [1, 0])
    """
    ctx, _ = _make_context(
        X_binned, binner, y=y, n_classes=n_classes, sample_weight=sample_weight,
        criterion=criterion, loss_matrix=loss_matrix, class_weight=class_weight,
        max_depth=None, min_samples_leaf=min_samples_leaf, min_samples_split=2,
        min_impurity_decrease=0.0, max_leaf_nodes=None, chunk_size=DEFAULT_CHUNK_SIZE,
        case_profit=case_profit, profit_method=profit_method, check_input=check_input,
    )
    rows = np.asarray(rows, dtype=_ROW_INT)
    hist, counts = build_histograms(
        ctx.X_binned, rows, np.zeros(rows.shape[0], dtype=_ROW_INT), 1, ctx.layout,
        ctx.target, with_counts=ctx.with_counts, chunk_size=ctx.chunk_size,
    )
    out = NodeSplits(ctx, hist)
    out.best = find_best_splits(
        hist, counts, is_classification=ctx.is_classification, criterion=ctx.criterion,
        loss_matrix=ctx.loss_matrix, class_weight=ctx.class_weight,
        is_categorical=ctx.is_categorical, min_samples_leaf=ctx.min_samples_leaf,
        layout=ctx.layout, per_feature=True, channel_map=ctx.level_map,
    )
    return out


#: a fit shows its levels (with ``verbose``) from this many rows; smaller fits take
#: well under a second. A Dask fit (a pass over the partitions per level) always does.
PROGRESS_MIN_ROWS = 100_000


def _grow(ctx, n_samples, max_leaf_nodes, shift, *, min_rows=None):
    """Grow from the root histogram of ``ctx.source``; the frozen tree.

    With the package's ``verbose`` (:func:`dtdecide.get_config`) and at least
    ``min_rows`` rows (default :data:`PROGRESS_MIN_ROWS`), a progress bar advances per
    level (per split when growing best first, ``max_leaf_nodes``).
    """
    min_rows = PROGRESS_MIN_ROWS if min_rows is None else min_rows
    ctx.n_rows = n_samples  # the split scan's choice of kernels: one for the whole fit
    root = Level(np.array([0], dtype=np.intp), 0, *ctx.source.root(ctx))
    root_sums = root.hist[0][0, : ctx.layout.widths[0]].sum(axis=0)
    ctx.total_weight = float(ctx.weight_of(ctx.crit_sums(root_sums)))
    ctx.residue_tol = _RESIDUE_RTOL * np.abs(root_sums)
    ctx.nodes.add(np.array([-1]), 0, [n_samples], root_sums[None, :])
    # the growers take the level out of a list: no frame keeps a finished level alive
    root = [root]
    if ctx.can_split(0, np.array([n_samples]), root_sums[None, :])[0] and ctx.total_weight > 0:
        level_wise = max_leaf_nodes is None
        total = (ctx.max_depth if level_wise else max_leaf_nodes - 1)
        with progress_bar(total=total, desc=f"growing ({n_samples:,} rows)",
                          unit="level" if level_wise else "split",
                          verbose=None if n_samples >= min_rows else 0) as bar:
            if level_wise:
                _grow_level_wise(ctx, root, bar)
            else:
                _grow_best_first(ctx, root, max_leaf_nodes, bar)
    return _freeze(ctx, shift)


def _layout_context(binner, **kw):
    """A :class:`_Context` with the bin layout, raw thresholds and categorical width."""
    n_features = binner.n_features_in_
    B = binner.n_bins_total_
    # per-feature histogram widths: memory and time scale with sum(n_bins_ + 1)
    layout = BinLayout.from_binner(binner)
    thresholds = np.full((n_features, B), np.nan)
    for j in range(n_features):
        if not binner.is_categorical_[j]:
            thresholds[j, : binner.n_bins_[j]] = binner.bin_thresholds_[j]
    cat_bins = binner.n_bins_[binner.is_categorical_]
    return _Context(
        is_categorical=binner.is_categorical_,
        layout=layout,
        thresholds=thresholds,
        cat_width=int(cat_bins.max()) if cat_bins.size else 0,
        nodes=_NodeTable(),
        **kw,
    )


def grow_from_source(source, binner, *, n_samples, n_classes, criterion, class_weight,
                     unit_weights, hist_dtype, shift, max_depth, min_samples_leaf,
                     min_samples_split, min_impurity_decrease, max_leaf_nodes,
                     loss_matrix=None, profit=None, level_map=None):
    """Grow a tree whose histograms come from ``source`` (rows kept elsewhere).

    ``source`` has ``root(ctx) -> (hist, counts, None, None)`` and ``children(ctx, level,
    child_ids, slot_of_child, n_built, n_small_cont, out, **split) -> (None, None)``
    filling ``out`` with the histograms of the new level's first ``n_built`` slots
    (node ``child_ids[j]`` has slot ``slot_of_child[j]``); it reads the splits so far from
    ``ctx.nodes.routing_arrays``. Everything else -- split search, stopping rules, the
    larger child as ``parent - smaller``, the frozen node arrays -- is :func:`grow_tree`'s.
    Inputs are trusted (the caller validated them); ``shift`` is the centring of a
    regression target. Used by the Dask fit (:mod:`dtdecide.tree._backends._dask`).

    ``profit`` (a :class:`~dtdecide.tree._kernels._profit.ProfitCriterion`) grows on money
    channels (``criterion="profit"``; ``criterion`` and ``class_weight`` are then ignored,
    the class weights being folded into the channels); ``source`` then also has
    ``profit_node_values(ctx, n_nodes, parent, depth, left, right, feature) -> (value,
    weighted_n)``, the node ``value`` summed from the rows, as
    :func:`~dtdecide.tree._algorithms._rows.profit_node_values` does for in-memory rows.
    With ``level_map`` (:func:`profit_level_map`) the source's histograms are class
    counts and the money is derived from them, as in memory; without it they are the
    money channels themselves.
    """
    is_classification = n_classes is not None or profit is not None
    if profit is not None:
        criterion, class_weight, loss_matrix = profit, None, None
    ctx = _layout_context(
        binner,
        source=source,
        is_classification=is_classification,
        criterion=criterion,
        loss_matrix=loss_matrix,
        class_weight=class_weight,
        # money channels are weighted sums: row counts never come from them (class
        # counts of unit rows do)
        with_counts=(profit is not None and level_map is None) or not unit_weights,
        hist_dtype=np.dtype(hist_dtype),
        clip_subtraction=not (is_classification and unit_weights),
        **_stopping_rules(max_depth, min_samples_leaf, min_samples_split,
                          min_impurity_decrease, max_leaf_nodes),
        profit=profit,
        value_rows=None,
        level_map=level_map,
        pool=None,
    )
    source.ctx = ctx
    return _grow(ctx, n_samples, max_leaf_nodes, shift, min_rows=0)


#: most target levels per money channel for which ``criterion="profit"`` histograms the
#: level counts (:func:`_profit_target`): unit weights (``float32`` counts), and sample
#: weights (``float64`` weighted counts plus ``int32`` row counts). Beyond them the level
#: histograms are so much wider than the money ones (``float64`` channels plus row
#: counts) that the per-case money path is faster. Measured 28 Nov 2026 00:02-00:06 UTC
#: (2-core AMD EPYC, chrt, load 3-7; 1M rows x 20 normal features, depth 10, levels the
#: quantiles of a noisy signal, 2 decisions (``cost_gini``: 2 money channels), best of 3,
#: the paths alternated; 1 / 2 threads, level counts against per-case money):
#: unit weights, 2 levels 0.37 / 0.21 s against 0.49 / 0.29 s; 7 levels 0.38 / 0.22
#: against 0.40 / 0.24; 8 levels 0.42 / 0.27 against 0.43 / 0.27 (even); 12 levels
#: 0.46 / 0.28 against 0.42 / 0.26; 20 levels 0.56 / 0.33 against 0.51 / 0.27. Sample
#: weights: 2 levels 0.55-0.60 / 0.32-0.33 against 0.54-0.55 / 0.31-0.32 (even); 3 levels
#: 0.60 / 0.30 against 0.50 / 0.28; 8 levels 0.67 / 0.38 against 0.48 / 0.27.
LEVELS_PER_CHANNEL = 4
WEIGHTED_LEVELS_PER_CHANNEL = 1


def _level_count_limit(weighted, n_channels):
    """Most target levels for which :func:`profit_level_map` lets the fit histogram the
    level counts (see :data:`LEVELS_PER_CHANNEL`): a multiple of the ``n_channels`` money
    channels, smaller where the counts are ``weighted`` (float64 sums and row counts)."""
    per = WEIGHTED_LEVELS_PER_CHANNEL if weighted else LEVELS_PER_CHANNEL
    return per * n_channels


def _profit_target(case_profit, method, y_value, n_classes, sample_weight, class_weight,
                   n_samples, class_target=None):
    """Criterion, histogram target, value inputs and level map of ``criterion="profit"``.

    Where every case's consequences are its level's row of ``case_profit.level_table``
    (and the target is classified: ``class_target``, the class counts of the rows,
    weighted by ``sample_weight`` if any), the money a case adds to each channel is its
    level's (times its sample weight): the histograms are then the class counts
    themselves and the money channels of a cell are derived from them, ``counts @
    level_map`` (:func:`~dtdecide.tree._kernels._histogram.map_channels`), where
    ``level_map[t, k * D + b(t)]`` is group ``k``'s amount of one case of level ``t``
    (``b(t)`` its best decision). Otherwise, and where the level counts would make the
    histograms much wider than the money (more levels than :func:`_level_count_limit`),
    the histograms sum every case's own amounts (``level_map`` None): the same tree up
    to the tie rule of ``docs/dev/kernels.rst`` ("Profit histograms from class counts").
    """
    # unit weights: a read-only broadcast of 1, not an array of ones
    F = np.broadcast_to(1.0, (n_samples,)) if sample_weight is None else sample_weight
    table = getattr(case_profit, "level_table", None)
    mapped = None
    if class_target is not None:
        mapped = profit_level_map(table, method, n_classes, class_weight,
                                  weighted=not class_target.counts_from_sums)
    if mapped is not None:
        profit, level_map = mapped
        return profit, class_target, (y_value, F, n_classes), level_map
    q = np.asarray(case_profit() if callable(case_profit) else case_profit,
                   dtype=np.float64)
    if q.ndim != 2 or q.shape[0] != n_samples:
        raise ValueError(
            f"case_profit must have shape ({n_samples}, n_decisions); got {q.shape}"
        )
    profit = ProfitCriterion(q.shape[1], method)
    weight = F if class_weight is None else F * class_weight[y_value]
    codes, weights = profit.row_channels(q, weight)
    del q, weight
    # each case's best decision in the smallest integer dtype (the kernels' codes)
    codes = codes.astype(code_dtype(profit.n_decisions), copy=False)
    target = HistogramTarget(codes=codes, n_classes=profit.n_decisions, weights=weights)
    return profit, target, (y_value, F, n_classes), None


def profit_level_map(table, method, n_classes, class_weight=None, *, weighted=False):
    """``(ProfitCriterion, level_map)`` of ``criterion="profit"`` grown on class counts,
    or None where the money cannot be derived from them.

    The rule of both fits (in memory, :func:`_profit_target`, and on Dask,
    :func:`dtdecide.tree._estimator._dask.fit_dask`): where every case's consequences are
    its level's row of ``table``
    (:func:`~dtdecide.tree._kernels._profit.level_consequences`) and the target is
    classified into ``n_classes == table.shape[0]`` levels, the histograms are the class
    counts (weighted by the sample weights if any) and the money channels of a cell are
    ``counts @ level_map``, where ``level_map[t, k * D + b(t)]`` is group ``k``'s amount
    of one case of level ``t`` (``b(t)`` its best decision; ``class_weight``, prior
    weights included, folded in). With many more levels than money channels (more than
    :func:`_level_count_limit`) the level counts would make the histograms wider than
    the money and the fit slower: None then too, and the fit sums each case's money.

    Parameters
    ----------
    table : ndarray of shape (n_levels, n_decisions) or None
        The consequences of one case of each level (None: they differ between cases).
    method : str
        The profit method (:data:`~dtdecide.tree._kernels._profit.PROFIT_METHODS`).
    n_classes : int or None
        Classes of the target (None: not a classification).
    class_weight : ndarray of shape (n_classes,), default=None
    weighted : bool, default=False
        Whether the counts are sums of sample weights (float64 with row counts, a lower
        limit on the levels) rather than whole-number counts.

    Returns
    -------
    tuple or None

    Examples
    --------
    >>> import numpy as np
    >>> from dtdecide.tree._algorithms._grower import profit_level_map
    >>> table = np.array([[10.0, 0.0], [-1.0, 0.0]])
    >>> profit, level_map = profit_level_map(table, "profit", 2)
    >>> level_map.shape == (2, profit.n_channels)
    True
    >>> profit_level_map(None, "profit", 2) is None
    True
    """
    if table is None or n_classes is None or table.shape[0] != n_classes:
        return None
    profit = ProfitCriterion(table.shape[1], method)
    if n_classes > _level_count_limit(weighted, profit.n_channels):
        return None  # many more levels than money channels: the per-case money path
    # one case of each level: its best decision and amounts (row_channels of the table,
    # class weights folded in), placed in its decision's channel of each group
    one = np.ones(n_classes)
    codes, weights = profit.row_channels(
        table, one if class_weight is None else one * class_weight)
    D = profit.n_decisions
    level_map = np.zeros((n_classes, profit.n_channels))
    for k in range(profit.n_groups):
        level_map[np.arange(n_classes), k * D + codes] = weights[k]
    return profit, level_map


def _freeze(ctx, shift):
    nodes = ctx.nodes
    n = nodes.n_nodes
    parent = np.concatenate(nodes.parent)
    depth = np.concatenate(nodes.depth)
    n_node_samples = np.concatenate(nodes.n_samples)
    sums = np.concatenate(nodes.sums, axis=0)
    left = np.full(n, -1, dtype=np.intp)
    right = np.full(n, -1, dtype=np.intp)
    feature = np.full(n, -1, dtype=np.intp)
    threshold = np.full(n, np.nan)
    is_cat = np.zeros(n, dtype=bool)
    cat_left = np.zeros((n, ctx.cat_width), dtype=bool)
    missing_left = np.zeros(n, dtype=bool)
    for ids, feat, thr, cat, cat_rows, ml, lch, rch in nodes.splits:
        feature[ids], threshold[ids], is_cat[ids] = feat, thr, cat
        cat_left[ids], missing_left[ids] = cat_rows, ml
        left[ids], right[ids] = lch, rch
    if ctx.profit is not None:
        value, weighted_n = ctx.source.profit_node_values(ctx, n, parent, depth, left, right,
                                                          feature)
        # money impurity per unit of training frequency: weighted_n * impurity is the
        # node's W, so impurity decreases (feature importances) are money gains
        W = ctx.profit.weighted_impurity(ctx.crit_sums(sums))
        imp = np.divide(W, weighted_n, out=np.zeros_like(W), where=weighted_n > 0)
    else:
        imp = impurity(ctx.crit_sums(sums), ctx.criterion, ctx.loss_matrix)
        weighted_n = ctx.weight_of(sums)
        if ctx.is_classification:
            value = sums
        else:
            W, S1c, S2c = sums[:, 0], sums[:, 1], sums[:, 2]
            value = np.column_stack(
                [W, S1c + W * shift, S2c + 2.0 * shift * S1c + W * shift * shift]
            )
    return TreeStructure.from_splits(
        (left, right, parent, depth, feature, threshold, is_cat, cat_left, missing_left),
        n_node_samples=n_node_samples,
        weighted_n_node_samples=weighted_n,
        value=value,
        impurity=imp,
    )
