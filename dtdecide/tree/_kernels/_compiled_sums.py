"""Compiled (Numba) kernel of the decision statistics' per-leaf sums.

Layer 1 (kernels) of :mod:`dtdecide.tree` (``_kernels``); see the architecture page.

The twin of the ``np.bincount`` sums of
:func:`~dtdecide.tree._structure._leaf.compute_decision_stats` (a categorical target),
which stay the reference. One pass over a range of rows gives every leaf's weight and,
per (leaf, level), the weight and the weighted sums of any number of per-row columns
(cost variables, or a case's own consequences). Compiled with ``nogil=True``: the caller
cuts the rows into fixed chunks, runs the chunks on the threads of
:mod:`dtdecide.tree._kernels._parallel` with a buffer of sums per chunk, and adds the
chunks' sums in chunk order, so the result does not depend on the number of threads.
Within a chunk the rows are added in increasing order, the order of ``np.bincount``: on
one chunk the two are equal bit for bit.

Importing this module imports Numba; callers import it only when
:func:`dtdecide._jit.use_compiled` says so.
"""

import numba

__all__ = ["node_level_sums"]


@numba.njit(nogil=True, cache=True)
def node_level_sums(node, level, weight, unit, columns, bounds, first, last, n_levels,
                    out_weight, out):
    """Per-chunk sums of the chunks ``first .. last - 1`` (twin of the bincounts).

    Parameters
    ----------
    node : int32 (n_samples,)
        Each row's leaf.
    level : int8 (n_samples,)
        Each row's level code in ``[0, n_levels)``.
    weight : float64 (n_samples,)
        Case weights; not read when ``unit`` (every weight 1: pass any float64 array).
    unit : bool
    columns : float64 (n_samples, k), C order
        Per-row values summed with weight ``weight[i] * columns[i, c]``.
    bounds : intp (n_chunks + 1,)
        Chunk ``c`` is rows ``bounds[c]:bounds[c + 1]``.
    out_weight : float64 (n_chunks, n_nodes)
        Receives each chunk's sum of weights per node (zeros on entry).
    out : float64 (n_chunks, n_nodes * n_levels, 1 + k)
        Receives each chunk's sums per (node, level): the weight, then each column
        (zeros on entry).
    """
    k = columns.shape[1]
    for c in range(first, last):
        ow = out_weight[c]
        o = out[c]
        for i in range(bounds[c], bounds[c + 1]):
            w = 1.0 if unit else weight[i]
            v = node[i]
            ow[v] += w
            r = v * n_levels + level[i]
            o[r, 0] += w
            for j in range(k):
                o[r, 1 + j] += w * columns[i, j]
