"""Compiled (Numba) kernels of the histogram tree grower.

Each function here is the twin of a NumPy implementation that stays the reference (named
in its docstring); tests compare the two on random inputs. Every kernel is compiled with
``nogil=True``, so it releases the GIL for its whole loop: the callers run them on the
threads of :mod:`dtdecide.tree._kernels._parallel`, each thread on its own features (histograms) or its own contiguous range of rows (partition, apply). Within a kernel rows are
visited in increasing order and every float sum is accumulated in that order, so a result
does not depend on how the work is shared among threads. The one exception is exact:
on many threads, whole-number float32 class counts may also be built a chunk of rows
per thread (the callers pass views of the chunk's rows) and the chunks summed
(``_histogram._row_chunks``), which is the same integers in any order.

Importing this module imports Numba; callers import it only when
:func:`dtdecide._jit.use_compiled` says so. Kernels compile on their first call with a
given combination of argument types and are cached on disk (``cache=True``).
"""

import numba
import numpy as np

__all__ = [
    "slot_bases",
    "hist_classes",
    "clear_cells",
    "add_chunk_cells",
    "hist_classes_segments",
    "hist_channels",
    "hist_channels_segments",
    "partition_range",
    "collect_rows",
    "subtract_siblings",
]

_jit = numba.njit(nogil=True, cache=True)


@_jit
def slot_bases(rows, use_rows, slots, codes, use_codes, stride, base, start, stop):
    """``base[i] = slots[i] * stride (+ codes[rows[i]])`` for ``start <= i < stop``: the
    start of each included row's slot's cells (and class) in a flat histogram.

    Computed once per histogram pass, the rows split between the threads, and read by
    every feature's loop of :func:`hist_classes` / :func:`hist_channels` (each thread
    working them out for all the rows would repeat the pass once per thread)."""
    for i in range(start, stop):
        b = np.int64(slots[i]) * stride
        if use_codes:
            b += codes[rows[i] if use_rows else i]
        base[i] = b


@_jit
def hist_classes(X, rows, use_rows, slots, use_slots, base, codes, weights, n_classes,
                 features, offsets, widths, hist, counts, with_counts, clear_lo=0,
                 clear_hi=0):
    """Class histograms of the rows into ``hist`` (twin of ``_accumulate_chunk``).

    ``X`` (n_samples, n_features) binned, Fortran order; ``rows`` the included rows
    (ignored unless ``use_rows``: then row ``i`` is row ``i``); ``slots`` the slot of each
    included row (ignored unless ``use_slots``: then every row is in slot 0); ``codes``
    the class code and ``weights`` (n_groups, n_samples) the weights of *every* row, read
    where they are (the included rows ascend, so no copy of them is gathered; zero
    groups for unweighted counts); ``hist`` (n_slots, n_cells, n_channels) and
    ``counts`` (n_slots, n_cells), both C-contiguous, are added to, cells
    ``offsets[j] + b`` of ``features`` only. Binned values ``>= widths[j] - 1`` (the
    shared missing code) go to the feature's last cell.

    The arrays are addressed flat, and each row's slot and class offset
    (``slot * n_cells * n_channels + code``) is read from ``base`` (:func:`slot_bases`,
    worked out once per pass for all the threads; ignored unless ``use_slots``), not
    computed once per feature: a pass over a feature then reads the row, its
    binned value and that offset (about half the time of indexing the 3-D arrays with a
    slot and a class code gathered again for every feature). With one group of weights
    (``criterion="profit"`` with case costs) the included rows' weights are gathered
    once as well. Every cell still receives its rows in increasing order.

    Cells ``clear_lo:clear_hi`` of every slot (and of ``counts`` when ``with_counts``)
    are set to zero first: a row-chunked pass's task clears its chunk's cells in the
    same call (one release of the interpreter's lock a task instead of three).
    """
    clear_cells(hist, counts, with_counts, clear_lo, clear_hi)
    n = rows.shape[0] if use_rows else slots.shape[0] if use_slots else X.shape[0]
    n_groups = weights.shape[0]
    n_cells = hist.shape[1]
    C = hist.shape[2]
    flat = hist.reshape(hist.size)
    cflat = counts.reshape(counts.size)
    # one group of weights (criterion="profit" with case costs): each included row's
    # weight gathered once, read in order by every feature's pass (row ``i``'s at
    # ``w1[i]``)
    w1 = np.zeros(1)
    if n_groups == 1:
        if use_rows:
            w1 = np.empty(n)
            for i in range(n):
                w1[i] = weights[0, rows[i]]
        else:
            w1 = weights[0]
    for jj in range(features.shape[0]):
        j = features[jj]
        top = widths[j] - 1
        lo = offsets[j]
        col = X[:, j]
        # (the cell's offset as lo * C + b * C: measurably faster than (lo + b) * C)
        loc = lo * C
        if n_groups == 0 and not with_counts:  # unit weights: the common case
            if use_slots and use_rows:
                for i in range(n):
                    b = min(np.intp(col[rows[i]]), top)
                    flat[base[i] + loc + b * C] += 1.0
            elif use_slots:
                for i in range(n):
                    b = min(np.intp(col[i]), top)
                    flat[base[i] + loc + b * C] += 1.0
            elif use_rows:
                for i in range(n):
                    r = rows[i]
                    b = min(np.intp(col[r]), top)
                    flat[loc + b * C + codes[r]] += 1.0
            else:  # the root: every row
                for i in range(n):
                    b = min(np.intp(col[i]), top)
                    flat[loc + b * C + codes[i]] += 1.0
            continue
        if n_groups == 1 and use_slots and use_rows and with_counts:  # profit levels
            for i in range(n):
                b = min(np.intp(col[rows[i]]), top)
                flat[base[i] + loc + b * C] += w1[i]
                cflat[slots[i] * n_cells + lo + b] += 1
            continue
        if n_groups == 1 and not use_slots and not use_rows and with_counts:  # its root
            for i in range(n):
                b = min(np.intp(col[i]), top)
                flat[loc + b * C + codes[i]] += w1[i]
                cflat[lo + b] += 1
            continue
        for i in range(n):
            r = rows[i] if use_rows else i
            cell = lo + min(np.intp(col[r]), top)
            if use_slots:
                at = base[i] + cell * C
            else:
                at = cell * C + codes[r]
            if n_groups == 0:
                flat[at] += 1.0
            elif n_groups == 1:
                flat[at] += w1[i]
            else:
                for k in range(n_groups):
                    flat[at + k * n_classes] += weights[k, r]
            if with_counts:
                s = slots[i] if use_slots else 0
                cflat[s * n_cells + cell] += 1


@_jit
def hist_channels(X, rows, use_rows, slots, use_slots, base, channels, features, offsets,
                  widths, hist, counts, with_counts):
    """Regression histograms: ``hist[s, cell, c] += channels[c, r]`` (see hist_classes).

    ``channels`` is channel-major (n_channels, n_samples), every row's, read where they
    are.
    """
    n = rows.shape[0] if use_rows else slots.shape[0] if use_slots else X.shape[0]
    n_channels = channels.shape[0]
    n_cells = hist.shape[1]
    C = hist.shape[2]
    flat = hist.reshape(hist.size)
    cflat = counts.reshape(counts.size)
    for jj in range(features.shape[0]):
        j = features[jj]
        top = widths[j] - 1
        lo = offsets[j]
        col = X[:, j]
        for i in range(n):
            r = rows[i] if use_rows else i
            cell = lo + min(np.intp(col[r]), top)
            at = cell * C
            if use_slots:
                at += base[i]
            for c in range(n_channels):
                flat[at + c] += channels[c, r]
            if with_counts:
                s = slots[i] if use_slots else 0
                cflat[s * n_cells + cell] += 1


@_jit
def clear_cells(hist, counts, with_counts, lo, hi):
    """``hist[:, lo:hi] = 0`` (and ``counts[:, lo:hi] = 0`` when ``with_counts``)."""
    if hi <= lo:
        return
    for s in range(hist.shape[0]):
        for cell in range(lo, hi):
            for c in range(hist.shape[2]):
                hist[s, cell, c] = 0
            if with_counts:
                counts[s, cell] = 0


@_jit
def add_chunk_cells(hist, counts, with_counts, hist_parts, count_parts, lo, hi):
    """``hist[:, lo:hi] += hist_parts[i][:, lo:hi]`` for ``i = 0, 1, ...`` in turn (and
    ``counts`` from ``count_parts`` when ``with_counts``): a row-chunked pass's sums of
    its chunks (whole numbers, exact in any order), in one call."""
    for i in range(hist_parts.shape[0]):
        for s in range(hist.shape[0]):
            for cell in range(lo, hi):
                for c in range(hist.shape[2]):
                    hist[s, cell, c] += hist_parts[i, s, cell, c]
                if with_counts:
                    counts[s, cell] += count_parts[i, s, cell]


@_jit
def hist_classes_segments(X, rows, slots, base, codes, weights, n_classes, features,
                          offsets, widths, hist, counts, with_counts, segments, clear_lo=0,
                          clear_hi=0):
    """:func:`hist_classes` of included rows kept in stretches of longer arrays: the
    positions ``segments[s, 0]:segments[s, 1]`` of ``rows``, ``slots`` and ``base`` for
    ``s = 0, 1, ...`` in turn (ascending rows, each stretch handed on as views, so each
    cell still receives its rows in increasing order), feature by feature as over one
    stretch (segment by segment, each with every feature, cost 3-5 % more: 1,000,000
    rows in 16 stretches, 16 threads on the 2-core machine). The grower's partition on
    many threads leaves each thread's rows in its own stretch of one buffer, with gaps
    between them (no second pass to close them). Cells ``clear_lo:clear_hi`` are
    cleared first, as in :func:`hist_classes`."""
    clear_cells(hist, counts, with_counts, clear_lo, clear_hi)
    for jj in range(features.shape[0]):  # feature by feature, as in one stretch
        one = features[jj : jj + 1]
        for s in range(segments.shape[0]):
            a = segments[s, 0]
            b = segments[s, 1]
            if b > a:
                hist_classes(X, rows[a:b], True, slots[a:b], True, base[a:b], codes,
                             weights, n_classes, one, offsets, widths, hist, counts,
                             with_counts)


@_jit
def hist_channels_segments(X, rows, slots, base, channels, features, offsets, widths, hist,
                           counts, with_counts, segments):
    """:func:`hist_channels` of included rows kept in stretches of longer arrays (see
    :func:`hist_classes_segments`)."""
    for s in range(segments.shape[0]):
        a = segments[s, 0]
        b = segments[s, 1]
        if b > a:
            hist_channels(X, rows[a:b], True, slots[a:b], True, base[a:b], channels,
                          features, offsets, widths, hist, counts, with_counts)


@_jit
def partition_range(X, rows, use_rows, leaf_of_row, node_lo, k_of_node, feat, table,
                    slot_of_child, n_built, n_small_cont, child_node, lo, hi, built_rows,
                    built_slots, write_built, alive_rows, alive_slots, write_alive,
                    backward):
    """Send the rows at positions ``lo:hi`` of a level to the children of their node
    (twin of ``_Partition.__call__`` in ``_algorithms._rows``).

    Position ``p`` is row ``rows[p]`` (or row ``p`` unless ``use_rows``: the level's rows
    are then those of every row whose node is one of the level's). A row's node is
    ``leaf_of_row[row]``; it belongs to split pair ``k = k_of_node[node - node_lo]``
    (-1, or a node outside the table: not split here). It goes to child ``2 k`` when
    ``table[k, X[row, feat[k]]]`` (go left), else ``2 k + 1``: ``leaf_of_row[row]``
    becomes ``child_node[child]``, whose slot in the next level is
    ``slot_of_child[child]`` (-1: not kept). Rows of slots ``< n_built`` are counted and,
    with ``write_built``, written to ``built_*``; with ``write_alive``, rows of slots
    ``< n_small_cont`` or ``>= n_built`` are written to ``alive_*``; each in row order.
    With ``backward`` (and no alive rows) the positions are visited from ``hi - 1`` down
    and the built rows written from the end of ``built_*`` down, so they too end in row
    order: two threads fill one exact-size array from both ends.
    The alive rows may be written over the range's own rows (``alive_rows`` the view
    ``rows[lo:hi]``): the ``i``-th kept row is written at ``i``, after position
    ``lo + i`` has been read. Returns the numbers of built and alive rows ``(nb, na)``.
    Writes stop at the outputs' lengths (the counts go on), so a caller that sized them
    wrong sees it in the counts instead of a corrupted heap.

    Without alive rows the loop has no branch on the row's side or on whether its child
    is histogrammed (both are as unpredictable as the data): the child is ``2 k + 1``
    minus the table's 0/1, and every routed row is written to a small buffer whose
    position advances only for the rows of built children; full buffers are copied out.
    About half the time of branching on each.
    """
    if write_alive:
        return _partition_alive(X, rows, use_rows, leaf_of_row, node_lo, k_of_node, feat,
                                table, slot_of_child, n_built, n_small_cont, child_node, lo,
                                hi, built_rows, built_slots, write_built, alive_rows,
                                alive_slots)
    nb = 0
    n_k = np.uint64(k_of_node.shape[0])
    n_built_u = np.uint64(n_built)
    size = 512
    buf_r = np.empty(size + 1, dtype=built_rows.dtype)  # + 1: the last row's write
    buf_s = np.empty(size + 1, dtype=built_slots.dtype)
    j = 0
    for q in range(lo, hi):
        p = hi - 1 - (q - lo) if backward else q
        r = rows[p] if use_rows else p
        v = leaf_of_row[r] - node_lo
        if np.uint64(v) >= n_k:  # also v < 0
            continue
        k = k_of_node[v]
        if k < 0:
            continue
        child = 2 * k + 1 - np.intp(table[k, X[r, feat[k]]])
        leaf_of_row[r] = child_node[child]
        s = slot_of_child[child]
        buf_r[j] = r
        buf_s[j] = s
        j += np.intp(np.uint64(s) < n_built_u)  # 0 <= s < n_built
        if j == size:
            if write_built:
                _flush_built(buf_r, buf_s, size, nb, built_rows, built_slots, backward)
            nb += size
            j = 0
    if write_built:
        _flush_built(buf_r, buf_s, j, nb, built_rows, built_slots, backward)
    return nb + j, 0


@_jit
def _flush_built(buf_r, buf_s, m, nb, built_rows, built_slots, backward):
    """The first ``m`` buffered rows, the ``nb``-th built row onward, into ``built_*``
    (from the end down with ``backward``), stopping at their length."""
    cap = built_rows.shape[0]
    for t in range(min(m, cap - nb)):
        at = cap - 1 - (nb + t) if backward else nb + t
        built_rows[at] = buf_r[t]
        built_slots[at] = buf_s[t]


@_jit
def _partition_alive(X, rows, use_rows, leaf_of_row, node_lo, k_of_node, feat, table,
                     slot_of_child, n_built, n_small_cont, child_node, lo, hi, built_rows,
                     built_slots, write_built, alive_rows, alive_slots):
    """:func:`partition_range` with the alive rows written (growing best first)."""
    nb = 0
    na = 0
    cap_b = built_rows.shape[0]
    cap_a = alive_rows.shape[0]
    n_k = k_of_node.shape[0]
    for p in range(lo, hi):
        r = rows[p] if use_rows else p
        v = leaf_of_row[r] - node_lo
        if v < 0 or v >= n_k:
            continue
        k = k_of_node[v]
        if k < 0:
            continue
        child = 2 * k
        if not table[k, X[r, feat[k]]]:
            child += 1
        leaf_of_row[r] = child_node[child]
        s = slot_of_child[child]
        if s < 0:
            continue
        if s < n_built:
            if write_built and nb < cap_b:
                built_rows[nb] = r
                built_slots[nb] = s
            nb += 1
        if s < n_small_cont or s >= n_built:
            if na < cap_a:
                alive_rows[na] = r
                alive_slots[na] = s
            na += 1
    return nb, na


@_jit
def collect_rows(leaf_of_row, node_lo, slot_of_node, n_built, lo, hi, out_rows, out_slots):
    """Rows ``lo:hi`` whose node ``v`` has a slot ``slot_of_node[v - node_lo]`` below
    ``n_built``, in row order, into ``out_rows`` (and the slots into ``out_slots``);
    returns their number (writes stop at the outputs' length). After a partition on
    many threads in which a range found more such rows than its stretch of the buffer
    held (``_rows._Partition._stretches``), that range's rows are collected again
    into its own stretch of exact-size arrays.
    Twin: the rows of the histogrammed children in ``_rows._Partition.__call__``.

    Like :func:`partition_range`, the loop has no branch on the row: whether a row is
    kept (about half of them, at random) is added to the position in a small buffer
    that every row is written to, and full buffers are copied out. Branching on it
    made this pass, a read of 4 bytes a row, cost as much as the partition itself
    (a depth-10 fit on 2,000,000 rows, 16 threads on 2 cores: 84-92 ms of CPU
    against 89-93 ms for the partition; branch-free 51-53 ms; alone, 2,000,000 rows in
    11.2 ms before, 4.3 ms now).
    """
    if slot_of_node.shape[0] == 0:
        return 0
    nb = 0
    n_s = np.uint64(slot_of_node.shape[0])
    n_built_u = np.uint64(n_built)
    size = 512
    buf_r = np.empty(size + 1, dtype=out_rows.dtype)  # + 1: the last row's write
    buf_s = np.empty(size + 1, dtype=out_slots.dtype)
    j = 0
    for r in range(lo, hi):
        v = leaf_of_row[r] - node_lo
        inside = np.uint64(v) < n_s  # also v < 0
        s = slot_of_node[v if inside else 0]
        buf_r[j] = r
        buf_s[j] = s
        j += np.intp(inside & (np.uint64(s) < n_built_u))  # 0 <= s < n_built
        if j == size:
            _flush_built(buf_r, buf_s, size, nb, out_rows, out_slots, False)
            nb += size
            j = 0
    _flush_built(buf_r, buf_s, j, nb, out_rows, out_slots, False)
    return nb + j


@_jit
def case_node_sums(parent, leaf, node_in, base, costs, by_case, col_of, const, use_costs, q,
                   target, weight, group, n_groups, squares, bounds, c0, c1, parts, parts2):
    """Per node and chunk of cases, the weighted profit of the chunk's cases under their
    own best decisions (twin of :func:`dtdecide.tree._structure._caserule.case_node_sums`
    for a categorical matrix with optional per-case costs).

    Case ``i``'s cost of decision ``d`` is ``costs[col_of[d], i]`` (the matrix's cost
    columns, one a row), or ``costs[i, col_of[d]]`` with ``by_case`` (a (cases x
    decisions) cost array), or ``const[d]`` where ``col_of[d] < 0`` (no costs without
    ``use_costs``). At node ``v`` (every node on its path) the case takes the first
    decision of largest ``A(i, d) = sum_t node_in[v, t] base[t, d] - cost(i, d) sum_t
    node_in[v, t]`` (no decision when an ``A`` is NaN: it adds ``q[i, 0]``) and adds
    ``weight[i] q(i, d)`` (and its square times the weight) to the sums of ``(v,
    group[i])``. ``q(i, d)`` is ``q[i, d]``, or, where ``q`` has no rows, ``base[target[i],
    d] - cost(i, d)`` (``Consequences.q_actual``, the same operation). A case with a
    missing (NaN) cost (``Consequences.has_missing``) counts with weight 0 and profit 0,
    as in the twin. ``weight`` of one entry is that weight for every case; an empty
    ``group`` puts every case in group 0.

    Chunk ``c`` (``c0 <= c < c1``) holds cases ``bounds[c]:bounds[c + 1]``; its sums go
    to ``parts[c]`` (``parts2[c]`` with ``squares``). Within a chunk the sums are taken
    level by level up the paths (step ``k``: the node ``k`` levels above each case's
    leaf), each step's sums in case order and then added into the chunk's sums: the
    order of the NumPy twin's ``bincount`` steps. The chunk's costs and profits per case
    and decision are first gathered into small buffers (tight loops over the cases; the
    walk up the paths then reads them as the former kernel read its chunk's cost rows
    and ``q``: as fast on one thread), each case then walks up its own path once (one
    buffer of sums per step), and the parts of ``A`` that do not depend on the case are
    computed once per call. One call covers a thread's chunks, so that no chunk needs
    the interpreter: the chunks' sums are the same whichever thread takes them.
    """
    n_levels = base.shape[0]
    n_dec = base.shape[1]
    n_nodes = node_in.shape[0]
    size = parts.shape[1]
    has_q = q.shape[0] > 0
    per_case_group = group.shape[0] > 0
    unit = weight.shape[0] == 1
    # the parts of A(i, d) that do not depend on the case, once per node (the same
    # operations in the same order as per case, so the same numbers)
    rsum = np.empty(n_nodes)
    P = np.empty((n_nodes, n_dec))
    path = np.empty(n_nodes, dtype=np.intp)  # nodes from each node up to the root
    for v in range(n_nodes):
        rs = 0.0
        for t in range(n_levels):
            rs += node_in[v, t]
        rsum[v] = rs
        for d in range(n_dec):
            x = 0.0
            for t in range(n_levels):
                x += node_in[v, t] * base[t, d]
            P[v, d] = x
        k = 0
        u = v
        while u >= 0:
            k += 1
            u = parent[u]
        path[v] = k
    max_steps = 0
    for v in range(n_nodes):
        max_steps = max(max_steps, path[v])
    step = np.zeros((max_steps, size))
    step2 = np.zeros((max_steps if squares else 0, size))
    a = np.empty(n_dec)
    longest = 0
    for c in range(c0, c1):
        longest = max(longest, bounds[c + 1] - bounds[c])
    cc = np.empty((longest, n_dec))
    qq = np.empty((longest, n_dec))
    gone = np.empty(longest, dtype=np.bool_)
    for c in range(c0, c1):
        lo = bounds[c]
        hi = bounds[c + 1]
        n_steps = 0
        for i in range(lo, hi):
            if leaf[i] >= 0 and path[leaf[i]] > n_steps:
                n_steps = path[leaf[i]]
        for k in range(n_steps):
            for j in range(size):
                step[k, j] = 0.0
            if squares:
                for j in range(size):
                    step2[k, j] = 0.0
        # the chunk's costs and profits per case and decision first (each case's 0 for a
        # missing cost, with weight 0), in tight loops over the cases
        m = hi - lo
        for d in range(n_dec):
            j = col_of[d]
            for r in range(m):
                if not use_costs:
                    cc[r, d] = 0.0
                elif j < 0:
                    cc[r, d] = const[d]
                elif by_case:
                    cc[r, d] = costs[lo + r, j]
                else:
                    cc[r, d] = costs[j, lo + r]
        for r in range(m):
            i = lo + r
            gone[r] = False
            if use_costs:
                for d in range(n_dec):
                    if np.isnan(cc[r, d]):
                        gone[r] = True
            if gone[r]:
                for d in range(n_dec):
                    qq[r, d] = 0.0
            elif has_q:
                for d in range(n_dec):
                    qq[r, d] = q[i, d]
            else:
                ti = np.intp(target[i])
                for d in range(n_dec):
                    qq[r, d] = base[ti, d] - cc[r, d] if use_costs else base[ti, d]
        # each case walks up its path once; step k's sums (the node k levels above the
        # leaf) are kept apart, in case order, and added into the chunk's sums step by
        # step
        for r in range(m):
            i = lo + r
            v = np.intp(leaf[i])
            g = np.intp(group[i]) if per_case_group else 0
            wi = 0.0 if gone[r] else (weight[0] if unit else weight[i])
            k = 0
            while v >= 0:
                bad = False
                rs = rsum[v]
                for d in range(n_dec):
                    x = P[v, d]
                    if use_costs:
                        x -= cc[r, d] * rs
                    if np.isnan(x):
                        bad = True
                    a[d] = x
                best = 0
                if not bad:
                    for d in range(1, n_dec):
                        if a[d] > a[best]:
                            best = d
                val = qq[r, best]
                key = v * n_groups + g
                wv = wi * val
                step[k, key] += wv
                if squares:
                    step2[k, key] += wv * val
                v = parent[v]
                k += 1
        for k in range(n_steps):
            for j in range(size):
                parts[c, j] += step[k, j]
            if squares:
                for j in range(size):
                    parts2[c, j] += step2[k, j]


@_jit
def apply_fixed(X, lo, hi, children, feature, threshold, is_categorical, cat_left,
                missing_left, depth, out):
    """Leaf of rows ``lo:hi`` of ``X`` into ``out[lo:hi]`` (twin of ``Router.route_fixed``).

    ``children`` is the router's flat ``(left, right)`` table in which a leaf points to
    itself both ways, ``feature`` and ``threshold`` its routing columns (0 and ``+inf``
    at leaves), so every row takes exactly ``depth`` steps. The rows go down a block of
    ``256`` at a time, one level at a time: the block's walks are independent, so their
    loads overlap instead of waiting on each other, and the block's cells of ``X`` stay in
    cache in either memory order (no row-major copy). At a numeric node a row goes left
    when ``x <= threshold`` and by ``missing_left`` when ``x`` is NaN; at a categorical
    node by ``cat_left[node, x]`` when ``x`` is an integer code in ``[0, n_cat)``, else by
    ``missing_left``.
    """
    n_cat = cat_left.shape[1]
    has_cat = False
    for v in range(is_categorical.shape[0]):
        has_cat = has_cat or is_categorical[v]
    size = 256
    node = np.empty(size, dtype=np.intp)
    for a in range(lo, hi, size):
        m = min(size, hi - a)
        for i in range(m):
            node[i] = 0
        for _ in range(depth):
            if has_cat:
                for i in range(m):
                    v = node[i]
                    x = X[a + i, feature[v]]
                    if is_categorical[v]:
                        if x >= 0 and x < n_cat and x == np.floor(x):
                            go_left = cat_left[v, np.intp(x)]
                        else:
                            go_left = missing_left[v]
                    else:
                        go_left = (x <= threshold[v]) or (np.isnan(x) and missing_left[v])
                    node[i] = children[2 * v + (0 if go_left else 1)]
            else:
                for i in range(m):  # without branches: the comparisons as 0/1
                    v = node[i]
                    x = X[a + i, feature[v]]
                    go_left = (x <= threshold[v]) | ((x != x) & missing_left[v])
                    node[i] = children[2 * v + 1 - np.intp(go_left)]
        for i in range(m):
            out[a + i] = node[i]


@_jit
def apply_flat(F, row_stride, col_stride, lo, hi, children, feature, threshold, missing_left,
               depth, out):
    """Leaf of rows ``lo:hi`` into ``out[lo:hi]`` for a numeric tree, the matrix read as
    one flat array (twin of ``Router.route_fixed`` and of :func:`apply_fixed`).

    Cell ``(r, f)`` of the matrix is ``F[r * row_stride + f * col_stride]`` (strides in
    items), so a column-ordered block of a larger frame (one pandas block: columns
    ``n_rows`` apart) and a row-ordered matrix are both read in place with no 2-D
    stride arithmetic. ``children``, ``feature``, ``threshold`` and ``missing_left`` are
    as in :func:`apply_fixed` (a leaf points to itself, threshold ``+inf``), so every
    row takes ``depth`` steps; a row goes left when ``x <= threshold`` and by
    ``missing_left`` when ``x`` is NaN. Each node's column offset and children are first
    packed into one record (``rec[v] = (feature * col_stride, left, right,
    missing_left)``), and rows go down eight at a time in lock-step, each in its own
    register: the eight chains of dependent loads overlap.
    """
    n_nodes = feature.shape[0]
    rec = np.empty((n_nodes, 4), dtype=np.intp)
    for v in range(n_nodes):
        rec[v, 0] = feature[v] * col_stride
        rec[v, 1] = children[2 * v]
        rec[v, 2] = children[2 * v + 1]
        rec[v, 3] = 1 if missing_left[v] else 0
    thr = threshold
    i = lo
    while i + 8 <= hi:
        b = i * row_stride
        v0 = 0
        v1 = 0
        v2 = 0
        v3 = 0
        v4 = 0
        v5 = 0
        v6 = 0
        v7 = 0
        for _ in range(depth):
            x0 = F[rec[v0, 0] + b]
            x1 = F[rec[v1, 0] + b + row_stride]
            x2 = F[rec[v2, 0] + b + 2 * row_stride]
            x3 = F[rec[v3, 0] + b + 3 * row_stride]
            x4 = F[rec[v4, 0] + b + 4 * row_stride]
            x5 = F[rec[v5, 0] + b + 5 * row_stride]
            x6 = F[rec[v6, 0] + b + 6 * row_stride]
            x7 = F[rec[v7, 0] + b + 7 * row_stride]
            v0 = rec[v0, 2 - np.intp((x0 <= thr[v0]) | ((x0 != x0) & (rec[v0, 3] != 0)))]
            v1 = rec[v1, 2 - np.intp((x1 <= thr[v1]) | ((x1 != x1) & (rec[v1, 3] != 0)))]
            v2 = rec[v2, 2 - np.intp((x2 <= thr[v2]) | ((x2 != x2) & (rec[v2, 3] != 0)))]
            v3 = rec[v3, 2 - np.intp((x3 <= thr[v3]) | ((x3 != x3) & (rec[v3, 3] != 0)))]
            v4 = rec[v4, 2 - np.intp((x4 <= thr[v4]) | ((x4 != x4) & (rec[v4, 3] != 0)))]
            v5 = rec[v5, 2 - np.intp((x5 <= thr[v5]) | ((x5 != x5) & (rec[v5, 3] != 0)))]
            v6 = rec[v6, 2 - np.intp((x6 <= thr[v6]) | ((x6 != x6) & (rec[v6, 3] != 0)))]
            v7 = rec[v7, 2 - np.intp((x7 <= thr[v7]) | ((x7 != x7) & (rec[v7, 3] != 0)))]
        out[i + 0] = v0
        out[i + 1] = v1
        out[i + 2] = v2
        out[i + 3] = v3
        out[i + 4] = v4
        out[i + 5] = v5
        out[i + 6] = v6
        out[i + 7] = v7
        i += 8
    while i < hi:  # the last rows, one at a time
        b = i * row_stride
        v = 0
        for _ in range(depth):
            x = F[rec[v, 0] + b]
            v = rec[v, 2 - np.intp((x <= thr[v]) | ((x != x) & (rec[v, 3] != 0)))]
        out[i] = v
        i += 1


@_jit
def route_binned_rows(X, left, right, feature, tables, node):
    """Route every row of the binned ``X`` from ``node[i]`` down to its leaf, in place
    (twin of ``route_binned`` in the grower): at node ``v`` a row goes left when
    ``tables[v, X[i, feature[v]]]``."""
    for i in range(X.shape[0]):
        v = node[i]
        while left[v] >= 0:
            if tables[v, X[i, feature[v]]]:
                v = left[v]
            else:
                v = right[v]
        node[i] = v


@_jit
def subtract_siblings(parents, parent_idx, small, small_idx, lo, hi):
    """``parents[i, lo:hi] = parents[parent_idx[i], lo:hi] - small[small_idx[i], lo:hi]``
    for ``i = 0, 1, ...`` in turn (twin of the NumPy subtractions and moves of
    ``_subtract_over_parents`` in ``_algorithms._grower``).

    ``parents`` and ``small`` are 2-D, one row per slot (a slot's cells and channels
    flat); ``parent_idx`` ascends, so the row ``parent_idx[i] >= i`` read for slot ``i``
    has not been written yet: each larger child's histogram (parent minus smaller
    sibling) lands at the front of its parent's array in one pass, with no temporary.
    Threads take disjoint column ranges ``lo:hi``.
    """
    for i in range(parent_idx.shape[0]):
        p = parents[parent_idx[i]]
        s = small[small_idx[i]]
        o = parents[i]
        for c in range(lo, hi):
            o[c] = p[c] - s[c]


