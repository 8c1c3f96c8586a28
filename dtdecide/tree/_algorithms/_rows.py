"""The in-memory row source of the grower: a level's rows, their partition and routing.

Layer 3 (algorithms) of :mod:`dtdecide.tree` (``_algorithms``); see the architecture page.

The grower (:mod:`~dtdecide.tree._algorithms._grower`) asks a *row source* for the
histograms of the root and of the children of each level's splits; this module is the
source for a binned matrix in memory (the Dask backend has its own). It keeps every
training row's node (``leaf_of_row``), sends the rows of the split nodes to their
children (:class:`_Partition`, compiled as ``partition_range`` with a NumPy twin), and
histograms the smaller children from their rows. It also routes binned rows through the
grown splits (:func:`route_binned`) and sums the rows' values per node for trees grown
on money channels (:func:`profit_node_values`).
"""

import numpy as np

from ..._dtypes import ROW_INDEX_DTYPE as _ROW_INT
from ..._jit import use_compiled
from .._kernels._histogram import build_histograms, slot_bases_of

__all__ = ["LocalRows", "route_binned", "profit_node_values"]


class LocalRows:
    """The grower's row source for an in-memory binned matrix (``ctx.X_binned``).

    ``root`` histograms every row; ``children`` partitions the rows of the split nodes
    (in contiguous ranges, one per thread of ``ctx.pool``) and histograms the children
    that are built from rows, returning the rows (and slots) of the next level.

    A row's node is ``ctx.leaf_of_row``, kept up to date by every partition. Growing
    level by level, a level keeps no row list: its rows are those whose node is one of
    its nodes, found by reading ``leaf_of_row`` (4 bytes a row, in row order). Growing
    best first (``max_leaf_nodes``), each node keeps its own rows, so a split visits
    that node's rows only.
    """

    def root(self, ctx):
        # the node of every training row, kept up to date by each partition: at the end
        # every row's leaf (no routing of the rows after growing)
        ctx.leaf_of_row = np.zeros(ctx.X_binned.shape[0], dtype=_ROW_INT)
        hist, counts = build_histograms(
            ctx.X_binned, None, None, 1, ctx.layout, ctx.target,
            with_counts=ctx.with_counts, chunk_size=ctx.chunk_size, pool=ctx.pool,
        )
        return hist, counts, None, None  # every row, in slot 0

    def finish(self, ctx, level, child_ids, *, sel, feat, table, **_):
        """Record the child of every row of the split nodes ``sel`` when no child grows
        on (the partition without outputs)."""
        self._partition(ctx, level, child_ids, np.full(2 * sel.size, -1, dtype=_ROW_INT),
                        0, 0, sel, feat, table, 0)

    def _partition(self, ctx, level, child_ids, slot_of_child, n_built, n_small_cont, sel,
                   feat, table, n_built_rows):
        # the rows of every split node go to a child: its id is their node from now on;
        # the rows of the histogrammed children (``n_built_rows`` of them) are gathered
        # in row order, and growing best first the rows of every kept child too
        # (row-level arrays in int32: half the memory), in contiguous ranges of rows
        # (one per thread)
        node_ids = level.node_ids
        node_lo = int(node_ids.min())
        k_of_node = np.full(int(node_ids.max()) - node_lo + 1, -1, dtype=_ROW_INT)
        k_of_node[node_ids[sel] - node_lo] = np.arange(sel.size, dtype=_ROW_INT)
        part = _Partition(ctx.X_binned, level.rows, ctx.leaf_of_row, node_lo, k_of_node,
                          feat, table, slot_of_child, n_built, n_small_cont,
                          np.asarray(child_ids, dtype=_ROW_INT), ctx.max_leaf_nodes is not None)
        n_level_rows = ctx.X_binned.shape[0] if level.rows is None else level.rows.shape[0]
        n_ranges = 1 if ctx.pool is None else ctx.pool.n_threads
        if n_ranges > 2 and n_level_rows >= n_ranges * _RANGES_PER_THREAD * _MIN_RANGE_ROWS:
            # smaller than one round: threads that run faster take more ranges
            n_ranges *= _RANGES_PER_THREAD
        bounds = np.linspace(0, n_level_rows, n_ranges + 1).astype(np.intp)
        ranges = [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]
        if part.compiled:
            # the histograms' row offsets worked out by the partition's threads, each
            # for the rows it has just written (no pass and hand-off of their own)
            fill = (slot_bases_of(ctx.layout, ctx.target, n_built) if n_built_rows
                    else None)
            pieces = part.compiled_ranges(ranges, ctx.pool, n_built_rows, fill)
        elif len(ranges) == 1:
            pieces = [*part(ranges[0]), None, None]
        else:
            pieces = [None if arrays[0] is None else np.concatenate(arrays)
                      for arrays in zip(*ctx.pool.map_groups(part, ranges))] + [None, None]
        segments = pieces[5]
        _check_built(pieces[0].shape[0] if segments is None
                     else int((segments[:, 1] - segments[:, 0]).sum()), n_built_rows,
                     exact=True)
        return pieces

    def children(self, ctx, level, child_ids, slot_of_child, n_built, n_small_cont, out, *,
                 sel, needed, feat, table, n_built_rows, after=None):
        pieces = self._partition(ctx, level, child_ids, slot_of_child, n_built,
                                 n_small_cont, sel, feat, table, n_built_rows)
        built_rows, built_slots, alive_rows, alive_slots, bases, segments = pieces
        del pieces
        # histograms of the smaller children
        build_histograms(
            ctx.X_binned, built_rows, built_slots, n_built, ctx.layout, ctx.target,
            with_counts=ctx.with_counts, chunk_size=ctx.chunk_size, out=out, pool=ctx.pool,
            bases=bases, segments=segments, after=after,
        )
        return alive_rows, alive_slots

    def profit_node_values(self, ctx, n_nodes, parent, depth, left, right, feature):
        return profit_node_values(ctx, n_nodes, parent, depth, left, right, feature)


class _Partition:
    """Send one contiguous range of a level's rows to the children of their node.

    Called with ``(lo, hi)``, positions in the level's row list (``rows``; None: every
    row of the table, those of the level being the rows whose node ``leaf_of_row`` is
    one of the split nodes ``k_of_node[node - node_lo] >= 0``), it records each routed
    row's child in ``leaf_of_row`` and returns the rows (and new slots) of that range
    that go to a histogrammed child (slot ``< n_built``) and, with ``keep_alive``, those
    that stay in a growing child, each in row order (None without). Ranges are
    independent, so threads may take one each.
    """

    def __init__(self, X_binned, rows, leaf_of_row, node_lo, k_of_node, feat, table,
                 slot_of_child, n_built, n_small_cont, child_node, keep_alive):
        self.__dict__.update(locals())
        del self.__dict__["self"]
        # read here, in the calling thread (config_context), for the whole table
        self.compiled = use_compiled(X_binned.shape[0])

    def __call__(self, bounds):
        """The NumPy twin on the positions ``lo:hi``: ``(built_rows, built_slots,
        alive_rows, alive_slots)``."""
        lo, hi = bounds
        X_binned, table, feat = self.X_binned, self.table, self.feat
        rows = np.arange(lo, hi, dtype=_ROW_INT) if self.rows is None else self.rows[lo:hi]
        v = self.leaf_of_row.take(rows).astype(np.intp)
        v -= self.node_lo
        inside = np.flatnonzero((v >= 0) & (v < self.k_of_node.shape[0]))
        k = self.k_of_node.take(v.take(inside))
        del v
        keep = inside.take(np.flatnonzero(k >= 0))
        rows = rows.take(keep)
        k = k[k >= 0]
        del keep, inside
        n_total, B = X_binned.shape[0], table.shape[1]
        if feat.size == 1:
            child = (~table[0].take(X_binned[:, feat[0]].take(rows))).astype(_ROW_INT)
        else:
            # flat gathers: X_binned is Fortran-ordered, so cell (r, f) is at f * n + r
            flat = feat.take(k).astype(np.intp)
            flat *= n_total
            flat += rows
            b = X_binned.ravel(order="F").take(flat)
            flat = k.astype(np.intp)
            flat *= B
            flat += b
            del b
            child = (~table.ravel().take(flat)).astype(_ROW_INT)
            del flat
            child += 2 * k
        del k
        self.leaf_of_row[rows] = self.child_node.take(child)
        row_slot = self.slot_of_child.take(child)
        del child
        n_built = self.n_built
        built = np.flatnonzero((row_slot >= 0) & (row_slot < n_built))
        if not self.keep_alive:
            return rows.take(built), row_slot.take(built), None, None
        alive = np.flatnonzero(
            (row_slot >= 0) & ((row_slot < self.n_small_cont) | (row_slot >= n_built))
        )
        return rows.take(built), row_slot.take(built), rows.take(alive), row_slot.take(alive)

    def _compiled_args(self):
        use_rows = self.rows is not None
        dummy = np.zeros(1, dtype=_ROW_INT)
        return (
            np.asfortranarray(self.X_binned),
            np.asarray(self.rows, dtype=_ROW_INT) if use_rows else dummy, use_rows,
            self.leaf_of_row, self.node_lo, self.k_of_node,
            np.asarray(self.feat, dtype=np.intp), np.ascontiguousarray(self.table),
            np.asarray(self.slot_of_child, dtype=_ROW_INT),
            self.n_built, self.n_small_cont, self.child_node,
        )

    def compiled_ranges(self, ranges, pool, n_built_rows, fill_bases=None):
        """The compiled partition of ``ranges`` (on the threads of ``pool``):
        ``(built_rows, built_slots, alive_rows, alive_slots, bases, segments)``.

        With ``fill_bases`` (:func:`~dtdecide.tree._kernels._histogram.slot_bases_of`),
        growing level by level, each thread also works out the histograms' offsets of
        the built rows it wrote (``bases``; else None).

        The rows of the histogrammed children (``n_built_rows``, known from the
        histograms) go to new arrays of exactly that size: on one thread in the one
        pass; on two, in one pass too, the first thread filling the arrays from the
        start and the second from the end (visiting its rows backward); on more, each
        thread writes them into its own stretch of one buffer, sized as the range's
        share of them plus a margin, in the one pass too: the built arrays then have
        gaps, and
        ``segments`` (int64, one ``(start, stop)`` a range) says where the rows are
        (:func:`~dtdecide.tree._kernels._histogram.build_histograms` reads them
        there). Where a range has more of them than its stretch holds (rows ordered
        by their node, say), the stretches are moved into exact-size arrays and the
        ranges that overflowed collected again (``collect_rows``, a read of
        ``leaf_of_row``); ``segments`` is None whenever the arrays have no gaps.
        Growing best first, the rows that stay (alive) are also written, over the level's
        own rows and slots where it has them (the ``i``-th kept row of a range at the
        range's ``i``-th position, after it was read), the ranges' pieces then moved
        together; the rows of the histogrammed children then go, on several threads,
        into level-sized arrays, each range writing its own stretch.
        """
        from .._kernels import _compiled

        args = self._compiled_args()
        n_level = ranges[-1][1]
        keep = self.keep_alive
        if keep:  # in place where the level has its own rows (the root has none)
            alive_rows = args[1] if self.rows is not None else np.empty(n_level, _ROW_INT)
            alive_slots = np.empty(n_level, _ROW_INT)
        else:
            alive_rows = alive_slots = np.zeros(0, dtype=_ROW_INT)
        if len(ranges) == 1:
            lo, hi = ranges[0]
            built_rows = np.empty(n_built_rows, dtype=_ROW_INT)
            built_slots = np.empty(n_built_rows, dtype=_ROW_INT)
            nb, na = _compiled.partition_range(
                *args, lo, hi, built_rows, built_slots, True,
                alive_rows[lo:hi] if keep else alive_rows,
                alive_slots[lo:hi] if keep else alive_slots, keep, False)
            _check_built(nb, n_built_rows, exact=True)
            if not keep:
                bases = None
                if fill_bases is not None:
                    bases = np.empty(n_built_rows, dtype=fill_bases.dtype)
                    fill_bases(built_rows, built_slots, bases, 0, n_built_rows)
                return built_rows, built_slots, None, None, bases, None
            return built_rows, built_slots, alive_rows[:na], alive_slots[:na], None, None
        if not keep and len(ranges) > 2:
            return self._stretches(args, ranges, pool, n_built_rows, fill_bases)
        bases = (None if keep or fill_bases is None
                 else np.empty(n_built_rows, dtype=fill_bases.dtype))
        if not keep:
            # two threads fill the exact-size arrays from both ends in one pass: the
            # first range forward from the start, the second backward from the end
            built_rows = np.empty(n_built_rows, dtype=_ROW_INT)
            built_slots = np.empty(n_built_rows, dtype=_ROW_INT)

            def both_ends(i):
                lo, hi = ranges[i]
                n = _compiled.partition_range(*args, lo, hi, built_rows, built_slots,
                                              True, alive_rows, alive_slots, False,
                                              i == 1)[0]
                if bases is not None and n <= n_built_rows:  # its own stretch
                    a, b = (0, n) if i == 0 else (n_built_rows - n, n_built_rows)
                    fill_bases(built_rows, built_slots, bases, a, b)
                return n

            counts = pool.map_groups(both_ends, [0, 1])
            # nothing was written twice: the two counts fill the arrays exactly
            _check_built(sum(counts), n_built_rows, exact=True)
            return built_rows, built_slots, None, None, bases, None
        # growing best first on several threads: one pass, each range writing its
        # histogrammed rows into its own stretch of level-sized arrays, then every
        # range's pieces moved together
        built_rows = np.empty(n_level, dtype=_ROW_INT)
        built_slots = np.empty(n_level, dtype=_ROW_INT)

        def fill(i):
            lo, hi = ranges[i]
            return _compiled.partition_range(*args, lo, hi, built_rows[lo:hi],
                                             built_slots[lo:hi], True, alive_rows[lo:hi],
                                             alive_slots[lo:hi], True, False)

        written = pool.map_groups(fill, list(range(len(ranges))))
        nb = na = 0
        for (lo, hi), (n_b, n_a) in zip(ranges, written):
            _check_built(n_b, hi - lo)
            if lo != nb:  # move the range's rows down (never past unread ones)
                built_rows[nb : nb + n_b] = built_rows[lo : lo + n_b]
                built_slots[nb : nb + n_b] = built_slots[lo : lo + n_b]
            if lo != na:
                alive_rows[na : na + n_a] = alive_rows[lo : lo + n_a]
                alive_slots[na : na + n_a] = alive_slots[lo : lo + n_a]
            nb += n_b
            na += n_a
        return (built_rows[:nb], built_slots[:nb], alive_rows[:na], alive_slots[:na], None,
                None)

    def _stretches(self, args, ranges, pool, n_built_rows, fill_bases):
        """Level by level on more than two threads (see :meth:`compiled_ranges`): each
        range routes its rows and writes its built rows into its own stretch of one
        buffer in one pass; the ranges whose stretch was too short are collected again
        into exact-size arrays."""
        from .._kernels import _compiled

        n_level = ranges[-1][1]
        starts = [0]
        for lo, hi in ranges:
            share = n_built_rows * (hi - lo) // max(n_level, 1)
            starts.append(starts[-1] + min(hi - lo, share + (share >> _STRETCH_MARGIN_SHIFT)
                                           + _STRETCH_MARGIN_ROWS))
        buf_rows = np.empty(starts[-1], dtype=_ROW_INT)
        buf_slots = np.empty(starts[-1], dtype=_ROW_INT)
        bases = (None if fill_bases is None
                 else np.empty(starts[-1], dtype=fill_bases.dtype))

        def route(i):
            lo, hi = ranges[i]
            a, b = starts[i], starts[i + 1]
            n = _compiled.partition_range(*args, lo, hi, buf_rows[a:b], buf_slots[a:b], True,
                                          buf_rows, buf_slots, False, False)[0]
            if bases is not None and n <= b - a:
                fill_bases(buf_rows, buf_slots, bases, a, a + n)
            return n

        counts = pool.map_groups(route, list(range(len(ranges))))
        _check_built(sum(counts), n_built_rows, exact=True)
        if all(n <= starts[i + 1] - starts[i] for i, n in enumerate(counts)):
            segments = np.array([(starts[i], starts[i] + n) for i, n in enumerate(counts)],
                                dtype=np.int64).reshape(-1, 2)
            return buf_rows, buf_slots, None, None, bases, segments
        # a stretch overflowed: exact-size arrays, the stretches that held their rows
        # moved there, the others collected again from leaf_of_row
        at = np.concatenate([[0], np.cumsum(counts)]).astype(np.intp)
        built_rows = np.empty(n_built_rows, dtype=_ROW_INT)
        built_slots = np.empty(n_built_rows, dtype=_ROW_INT)
        exact_bases = None if bases is None else np.empty(n_built_rows, dtype=bases.dtype)
        node_lo = int(self.child_node[0]) if self.child_node.size else 0
        slot_of_node = args[8]  # children ids are node_lo, node_lo + 1, ...

        def gather(i):
            lo, hi = ranges[i]
            a, b = at[i], at[i + 1]
            s = starts[i]
            if b - a <= starts[i + 1] - s:
                built_rows[a:b] = buf_rows[s : s + b - a]
                built_slots[a:b] = buf_slots[s : s + b - a]
                if exact_bases is not None:
                    exact_bases[a:b] = bases[s : s + b - a]
                return b - a
            n = _compiled.collect_rows(self.leaf_of_row, node_lo, slot_of_node,
                                       self.n_built, lo, hi, built_rows[a:b], built_slots[a:b])
            if exact_bases is not None and n == b - a:
                fill_bases(built_rows, built_slots, exact_bases, a, b)
            return n

        got = pool.map_groups(gather, list(range(len(ranges))))
        for i, n in enumerate(got):
            _check_built(n, int(at[i + 1] - at[i]), exact=True)
        return built_rows, built_slots, None, None, exact_bases, None


#: on more than two threads, a level's rows are routed in this many ranges a thread
#: (each of at least _MIN_RANGE_ROWS rows)
_RANGES_PER_THREAD = 2
_MIN_RANGE_ROWS = 1 << 15

#: a range's stretch of the built rows on many threads (:meth:`_Partition._stretches`):
#: its share of them, plus 1/2**shift of it, plus this many rows
_STRETCH_MARGIN_SHIFT = 4
_STRETCH_MARGIN_ROWS = 1024


def _check_built(n_written, capacity, exact=False):
    if n_written > capacity or (exact and n_written != capacity):
        # the kernel stops writing at the capacity
        raise RuntimeError(
            f"internal error: the partition found {n_written} rows for the histogrammed "
            f"children; their histograms count {capacity}"
        )


def _route_binned(ctx, n_nodes, left, right, feature):
    """Node id of every training row, routed through the grown splits on binned values."""
    _, _, _, tables = ctx.nodes.routing_arrays(ctx.layout.max_width)
    return route_binned(ctx.X_binned, left, right, feature, tables)


def route_binned(X_binned, left, right, feature, tables, start=None):
    """Node id of every row of ``X_binned`` through splits given as go-left tables.

    ``tables[node, b]``: whether binned value ``b`` of the node's feature goes left.
    ``start``: each row's node to route on from (an ancestor of its leaf, e.g. where it
    was before the last splits were added); None starts every row at the root.
    """
    if use_compiled(X_binned.shape[0]):
        from .._kernels import _compiled

        node = (np.zeros(X_binned.shape[0], dtype=np.intp) if start is None
                else np.array(start, dtype=np.intp))
        _compiled.route_binned_rows(X_binned, np.asarray(left, dtype=np.intp),
                                    np.asarray(right, dtype=np.intp),
                                    np.asarray(feature, dtype=np.intp),
                                    np.ascontiguousarray(tables, dtype=np.bool_), node)
        return node
    if start is None:
        node = np.zeros(X_binned.shape[0], dtype=np.intp)
        rows = np.arange(X_binned.shape[0])
    else:
        node = np.array(start, dtype=np.intp)
        rows = np.flatnonzero(left.take(node) >= 0)
    is_split = left >= 0
    while rows.size:
        here = node[rows]
        inner = is_split[here]
        rows, here = rows[inner], here[inner]
        if not rows.size:
            break
        b = X_binned[rows, feature[here]]
        node[rows] = np.where(tables[here, b], left[here], right[here])
    return node


def profit_node_values(ctx, n_nodes, parent, depth, left, right, feature):
    """``value`` and frequency of every node of a tree grown on money channels."""
    from .._structure._leaf import leaf_sums, level_sums, propagate_up

    y_value, F, n_classes = ctx.value_rows
    node = getattr(ctx, "leaf_of_row", None)  # each row's leaf, left by the partitions
    if node is None:
        node = _route_binned(ctx, n_nodes, left, right, feature)
    if n_classes is not None:
        # per (leaf, class) weight sums: level_sums (compiled on the threads, or one
        # bincount per class)
        _, sums = level_sums(node, y_value, F, np.zeros((node.shape[0], 0)), n_nodes,
                             n_classes, pool=getattr(ctx, "pool", None))
        value = np.ascontiguousarray(sums[:, :, 0])
    else:
        y = np.asarray(y_value, dtype=np.float64)
        value = leaf_sums(node, np.column_stack([F, F * y, F * y * y]), n_nodes)
    value = propagate_up(value, parent, depth)
    weighted_n = value.sum(axis=1) if n_classes is not None else value[:, 0].copy()
    return value, weighted_n
