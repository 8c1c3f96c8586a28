"""Compiled (Numba) binning kernels: raw values to bin indices.

Layer 1 (kernels) of :mod:`dtdecide.tree` (``_kernels``); see the architecture page.

The twin of :meth:`Binner.transform <dtdecide.tree._kernels._binning.Binner.transform>`'s
block-wise NumPy code, which stays the reference. Compiled with ``nogil=True``: the
caller runs :func:`bin_columns` on the threads of
:mod:`dtdecide.tree._kernels._parallel`, each thread on its own group of features, and
every cell of the output is written by exactly one thread, so the result does not
depend on how the features are shared.

A numeric value ``v`` goes to ``searchsorted(edges, v, side="left")`` (the number of
edges below it). Instead of a binary search per value (an unpredictable branch per
step, about 40 ns), each numeric feature with at least two finite edges gets a *cell
table*: the range between its first and last finite edge is cut into ``n_cells`` equal
cells, the cell of a value is ``k = clip(floor((v - lo) * scale), 0, n_cells)``, and
``table[k]`` holds the number of edges whose own cell (by the same formula, computed by
the same compiled code) is below ``k``. The formula is non-decreasing in ``v`` (a
subtraction and a multiplication by a positive number, rounded, then clipped), so an
edge in a lower cell is below ``v`` and an edge in a higher cell is not: only the edges
of ``v``'s own cell, ``table[k]`` to ``table[k + 1] - 1`` (usually none or one), are
compared with ``v``. The result is ``searchsorted``'s exactly, for any rounding.

Importing this module imports Numba; callers import it only when
:func:`dtdecide._jit.use_compiled` says so.
"""

import numba
import numpy as np

__all__ = ["bin_columns", "cell_tables", "GRID_CELLS"]

_jit = numba.njit(nogil=True, cache=True)

#: Largest number of cells of a feature's table (``uint16`` entries: 32 KiB).
GRID_CELLS = 1 << 14
# Cells per finite edge (fewer edges, a smaller table).
_CELLS_PER_EDGE = 64
# More edges than this in one cell: a binary search among them instead of a scan.
_SCAN = 8


@numba.njit(nogil=True, cache=True, inline="always")
def _cell(v, lo, scale, n_cells):
    c = (v - lo) * scale
    if c < 0.0:
        c = 0.0
    if c > n_cells:
        c = np.float64(n_cells)
    return np.intp(c)


@_jit
def _fill_table(edges, lo, scale, n_cells, table):
    """``table[k]`` (k = 0 .. n_cells + 1): edges whose cell is below ``k``."""
    table[:] = 0
    for b in range(edges.shape[0]):
        table[_cell(edges[b], lo, scale, n_cells) + 1] += 1
    for k in range(1, n_cells + 2):
        table[k] += table[k - 1]


def cell_tables(thresholds, is_categorical):
    """The cell tables of every numeric feature (see the module docstring).

    Parameters
    ----------
    thresholds : list of ndarray of float64
        Each feature's edges (increasing, the last ``+inf``).
    is_categorical : ndarray of bool

    Returns
    -------
    lo, scale : ndarray of float64, shape (n_features,)
        ``scale == 0``: no table (categorical, fewer than two finite edges, or a range
        whose scale is not a finite positive number); the feature is binned by binary
        search.
    n_cells : ndarray of intp, shape (n_features,)
    offsets : ndarray of intp, shape (n_features + 1,)
        Feature ``j``'s table is ``tables[offsets[j]:offsets[j + 1]]`` (``n_cells[j] + 2``
        entries, none without a table).
    tables : ndarray of uint16
    """
    n_features = len(thresholds)
    lo = np.zeros(n_features)
    scale = np.zeros(n_features)
    n_cells = np.zeros(n_features, dtype=np.intp)
    offsets = np.zeros(n_features + 1, dtype=np.intp)
    for j, edges in enumerate(thresholds):
        finite = edges.size - 1  # the last edge is +inf
        if not is_categorical[j] and finite >= 2:
            a, b = float(edges[0]), float(edges[finite - 1])
            cells = min(GRID_CELLS, _CELLS_PER_EDGE * finite)
            with np.errstate(all="ignore"):
                s = cells / (b - a)
            if np.isfinite(a) and np.isfinite(b) and np.isfinite(s) and s > 0:
                lo[j], scale[j], n_cells[j] = a, s, cells
        offsets[j + 1] = offsets[j] + (n_cells[j] + 2 if scale[j] > 0 else 0)
    tables = np.zeros(max(int(offsets[-1]), 1), dtype=np.uint16)
    for j, edges in enumerate(thresholds):
        if scale[j] > 0:
            _fill_table(np.ascontiguousarray(edges, dtype=np.float64), lo[j], scale[j],
                        n_cells[j], tables[offsets[j]:offsets[j + 1]])
    return lo, scale, n_cells, offsets, tables


@_jit
def bin_columns(X, features, is_categorical, edges, edge_offsets, n_bins, missing,
                grid_lo, grid_scale, grid_cells, grid_offsets, grid_tables, block, out,
                has_inf, n_nan, lo_row, hi_row):
    """Bin the columns ``features`` of ``X`` into ``out`` (twin of ``Binner.transform``).

    ``X`` is float64 or float32, either memory order; ``out`` (uint8 or uint16), the
    cells of the binned matrix in column-major order (cell ``(i, j)`` at ``j * n + i``,
    ``n`` the rows of ``X``: the caller passes its Fortran-ordered matrix as a flat
    view), is written at the rows and columns binned. Rows are taken ``block`` at a time and,
    within a block, column by column (for a column-major ``X`` the caller passes one
    block of all rows; for a row-major one a block that stays in cache). Numeric column
    ``j`` (edges ``edges[edge_offsets[j]:edge_offsets[j + 1]]``, the last ``+inf``):
    ``searchsorted(edges_j, v, side="left")`` through its cell table
    (``grid_scale[j] > 0``, see the module docstring) or by binary search; NaN goes to
    ``missing``. Categorical column ``j``: code ``v`` when it is an integer in
    ``[0, n_bins[j])``, else ``missing``. ``has_inf[j]`` is set when a numeric column
    holds an infinite value (its cells are then left unspecified) and ``n_nan[j]``
    receives the number of NaN values of every column (added to). Only rows
    ``lo_row:hi_row`` are binned: threads may share a column's rows (each with its own
    ``has_inf`` and ``n_nan``), every cell being written by one of them.
    """
    n = X.shape[0]
    hi_ = min(max(hi_row, 0), n)
    for start in range(min(max(lo_row, 0), hi_), hi_, block):
        stop = min(start + block, hi_)
        for jj in range(features.shape[0]):
            j = features[jj]
            o = np.uintp(j * n)  # column j of out (unsigned: no negative-index wrap)
            nan = 0
            if is_categorical[j]:
                top = n_bins[j]
                for i in range(start, stop):
                    v = X[i, j]
                    if v >= 0 and v < top and v == np.floor(v):
                        out[o + np.uintp(i)] = np.intp(v)
                    else:
                        if v != v:
                            nan += 1
                        out[o + np.uintp(i)] = missing
                n_nan[j] += nan
                continue
            e0 = edge_offsets[j]
            n_edges = edge_offsets[j + 1] - e0
            scale = grid_scale[j]
            lo = grid_lo[j]
            cells = grid_cells[j]
            t0 = grid_offsets[j]
            inf = False
            for i in range(start, stop):
                v = np.float64(X[i, j])
                if v != v:
                    nan += 1
                    out[o + np.uintp(i)] = missing
                    continue
                if v == np.inf or v == -np.inf:
                    inf = True
                    out[o + np.uintp(i)] = missing
                    continue
                if scale > 0.0:
                    k = _cell(v, lo, scale, cells)
                    b = np.intp(grid_tables[t0 + k])
                    top = np.intp(grid_tables[t0 + k + 1])
                else:
                    b = 0
                    top = n_edges
                if top - b > _SCAN:  # first edge >= v in [b, top), else top
                    length = top - b
                    while length > 0:
                        half = length >> 1
                        if edges[e0 + b + half] < v:
                            b += half + 1
                            length -= half + 1
                        else:
                            length = half
                else:
                    while b < top and edges[e0 + b] < v:
                        b += 1
                out[o + np.uintp(i)] = b
            n_nan[j] += nan
            if inf:
                has_inf[j] = True
