"""Compiled (Numba) flat walk of trees with categorical splits.

Layer 1 (kernels) of :mod:`dtdecide.tree`, beside :mod:`._compiled`, whose
:func:`~dtdecide.tree._kernels._compiled.apply_flat` walks numeric trees the same way.
The kernel is the twin of :meth:`~dtdecide.tree._kernels._apply.Router.route_fixed` (the
NumPy reference, with its lookup tables for categorical nodes) and of
:func:`~dtdecide.tree._kernels._compiled.apply_fixed`; tests compare them on random trees.
It is compiled with ``nogil=True`` and runs on the package's threads, each on its own
contiguous range of rows. Importing this module imports Numba; callers import it only
when :func:`dtdecide._jit.use_compiled` says so.
"""

import numba
import numpy as np

__all__ = ["apply_flat_cat"]

_jit = numba.njit(nogil=True, cache=True)


@numba.njit(nogil=True, cache=True, inline="always")
def _step(v, x, rec, thr, goes_left, n_cat):
    """The child of node ``v`` that value ``x`` goes to (one step of the walk).

    At a numeric node (``rec[v, 4] == 0``, threshold a number) ``x <= threshold`` goes
    left and NaN by ``missing_left``. At a categorical node (threshold NaN, so the
    comparison is False) an integer code in ``[0, n_cat)`` goes by its entry in
    ``goes_left`` and anything else (NaN, unseen, negative, fractional, infinite) by
    ``missing_left``. The node type selects values, it is not branched on.
    """
    valid = (x >= 0.0) & (x < rec[v, 4]) & (x == np.floor(x))
    code = np.intp(x) if valid else 0
    missing = (x != x) | ((rec[v, 4] != 0) & ~valid)
    go_left = ((x <= thr[v]) | (valid & (goes_left[v * n_cat + code] != 0))
               | (missing & (rec[v, 3] != 0)))
    return rec[v, 2 - np.intp(go_left)]


@_jit
def apply_flat_cat(F, row_stride, col_stride, lo, hi, rec, threshold, goes_left, n_cat,
                   depth, out):
    """Leaf of rows ``lo:hi`` into ``out[lo:hi]`` for any tree, categorical splits
    included, the matrix read as one flat array (twin of ``Router.route_fixed`` and of
    :func:`~dtdecide.tree._kernels._compiled.apply_fixed`).

    Cell ``(r, f)`` of the matrix is ``F[r * row_stride + f * col_stride]`` (strides in
    items), as in :func:`~dtdecide.tree._kernels._compiled.apply_flat`. ``rec``,
    ``threshold`` and ``goes_left`` are the router's
    :meth:`~dtdecide.tree._kernels._apply.Router.flat_records` (a leaf points to itself,
    threshold ``+inf``; NaN at categorical nodes), so every row takes ``depth`` steps. Rows go down eight
    at a time in lock-step, each in its own register: the eight chains of dependent
    loads overlap. Each step is :func:`_step`.

    The eight-row unroll is written out here as in ``apply_flat`` rather than shared
    with it through a step function passed as an argument: Numba cannot cache a kernel
    that takes another kernel as an argument on disk ("dynamic globals"), and every
    kernel of the package is cached (a shared version was as fast, 83 against 82 ms on
    2,000,000 rows, but compiled anew in every process).
    """
    n_nodes = rec.shape[0]
    col = np.empty(n_nodes, dtype=np.intp)
    for v in range(n_nodes):
        col[v] = rec[v, 0] * col_stride
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
            x0 = F[col[v0] + b]
            x1 = F[col[v1] + b + row_stride]
            x2 = F[col[v2] + b + 2 * row_stride]
            x3 = F[col[v3] + b + 3 * row_stride]
            x4 = F[col[v4] + b + 4 * row_stride]
            x5 = F[col[v5] + b + 5 * row_stride]
            x6 = F[col[v6] + b + 6 * row_stride]
            x7 = F[col[v7] + b + 7 * row_stride]
            v0 = _step(v0, x0, rec, thr, goes_left, n_cat)
            v1 = _step(v1, x1, rec, thr, goes_left, n_cat)
            v2 = _step(v2, x2, rec, thr, goes_left, n_cat)
            v3 = _step(v3, x3, rec, thr, goes_left, n_cat)
            v4 = _step(v4, x4, rec, thr, goes_left, n_cat)
            v5 = _step(v5, x5, rec, thr, goes_left, n_cat)
            v6 = _step(v6, x6, rec, thr, goes_left, n_cat)
            v7 = _step(v7, x7, rec, thr, goes_left, n_cat)
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
            v = _step(v, F[col[v] + b], rec, thr, goes_left, n_cat)
        out[i] = v
        i += 1
