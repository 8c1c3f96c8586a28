"""Compiled (Numba) kernels of the decision statistics' per-leaf sums and of the bin
edges' row sub-sample.

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

``shuffle_tail`` gives the rows of NumPy's ``Generator.choice(n, size, replace=False,
shuffle=False)`` (its partial "tail" shuffle of ``arange(n)``) from the same random draws
without the ``n``-sized index array: see
:func:`~dtdecide.tree._kernels._binning.subsample_rows`, whose ``choice`` call is its twin.

Importing this module imports Numba; callers import it only when
:func:`dtdecide._jit.use_compiled` says so.
"""

import numba
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

__all__ = ["bounded_draw", "node_level_sums", "shuffle_tail", "sorted_floyd_rows",
           "sorted_tail_rows", "tail_draws"]


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


@numba.njit(nogil=True, cache=True)
def shuffle_tail(n, draws, keys, vals, tail):
    """The last ``draws.size`` entries of ``arange(n)`` after NumPy's tail shuffle.

    The shuffle walks ``i = n - 1, n - 2, ..., n - size`` and swaps entries ``i`` and
    ``draws[n - 1 - i]`` (a draw in ``[0, i]``). Entry ``i`` is final once swapped, so
    only the ``size`` tail entries are kept in full; an entry below the tail that a draw
    moved is kept in a hash table (open addressing, at most ``size`` keys), every other
    entry being its own index.

    Parameters
    ----------
    n : int
        Population size, ``n > draws.size``.
    draws : int64 (size,)
        ``draws[k]`` in ``[0, n - 1 - k]``, in the order the shuffle draws them.
    keys : int32 or int64 (cap,)
        The hash table's keys, every one -1 on entry; ``cap`` a power of two above
        ``size`` (``2 * size`` or more keeps the probes short); int32 only when ``n`` fits.
    vals : (cap,), the dtype of ``keys``
        The hash table's values (any content on entry).
    tail : int64 (size,)
        Receives entries ``n - size .. n - 1`` of the shuffled array, in that order.
    """
    size = draws.shape[0]
    first = n - size
    mask = keys.shape[0] - 1
    for k in range(size):
        tail[k] = first + k
    for k in range(size):
        i = n - 1 - k
        j = draws[k]
        vi = tail[i - first]
        if j >= first:
            vj = tail[j - first]
            tail[j - first] = vi
        else:
            h = (j * 0x9E3779B1) & mask
            while keys[h] != -1 and keys[h] != j:
                h = (h + 1) & mask
            if keys[h] == j:
                vj = vals[h]
            else:
                vj = j
                keys[h] = j
            vals[h] = vi
        tail[i - first] = vj


@numba.njit(nogil=True, cache=True)
def bounded_draw(raw, w, r):
    """NumPy's draw of an integer in ``[0, r]`` (``0 < r < 2**32 - 1``) from the 32-bit
    words of ``raw`` starting at word ``w``: Lemire's method
    (``buffered_bounded_lemire_uint32``) on a fresh PCG64 generator's words, each 64-bit
    output's low half first, rejected words skipped as NumPy skips them.

    Returns ``(draw, next word)``, or ``(-1, w)`` when ``raw`` ran out.
    """
    n_words = raw.shape[0] * 2
    low = np.uint64(0xFFFFFFFF)
    r = np.uint64(r)
    excl = r + np.uint64(1)
    # Lemire: accept a word whose low half of ``u * excl`` is at least the threshold,
    # worked out only when that low half falls below ``excl``
    threshold = np.uint64(0)
    while True:
        if w >= n_words:
            return -1, w
        u = (raw[w >> 1] >> np.uint64(32 * (w & 1))) & low
        w += 1
        m = u * excl
        left = m & low
        if left < excl and threshold == 0:
            threshold = (low - r) % excl
        if left >= threshold:
            return np.int64(m >> np.uint64(32)), w


@numba.njit(nogil=True, cache=True)
def tail_draws(raw, n, draws):
    """The draws of ``Generator.integers(0, [n - 1, n - 2, ...], endpoint=True)`` from
    a fresh PCG64 generator's raw 64-bit outputs ``raw`` (``bit_generator.random_raw``).

    NumPy draws an integer in ``[0, r]`` with ``r < 2**32 - 1`` by Lemire's method on
    32-bit words (``buffered_bounded_lemire_uint32``), and a fresh PCG64 generator gives
    each 64-bit output as two words, its low half first. Rejected words (rare: about
    ``n / 2**32`` a draw) are skipped as NumPy skips them (:func:`bounded_draw`).

    Returns the number of words used, or -1 when ``raw`` ran out (``draws`` then
    incomplete). Requires ``n - 1 < 2**32 - 1``.
    """
    w = 0
    for k in range(draws.shape[0]):
        x, w = bounded_draw(raw, w, n - 1 - k)
        if x < 0:
            return -1
        draws[k] = x
    return w


@numba.njit(nogil=True, cache=True)
def sorted_tail_rows(raw, n, draws, keys, vals, tail, bits, rows):
    """The rows of ``Generator.choice(n, size, replace=False, shuffle=False)`` of a fresh
    PCG64 generator, sorted, from its raw outputs alone: :func:`tail_draws`, then
    :func:`shuffle_tail`, then the kept entries (distinct, below ``n``) marked in the
    bitmap ``bits`` (``n`` bits, zero on entry) and read back in increasing order into
    ``rows`` -- with no call back into Python, so a worker thread draws without the
    interpreter's lock. ``draws``, ``tail`` and ``rows`` have the sub-sample's size;
    ``keys`` and ``vals`` are :func:`shuffle_tail`'s. False when ``raw`` ran out."""
    if tail_draws(raw, n, draws) < 0:
        return False
    shuffle_tail(n, draws, keys, vals, tail)
    for k in range(tail.shape[0]):
        v = tail[k]
        bits[v >> 6] |= np.uint64(1) << np.uint64(v & 63)
    _read_bits(bits, rows)
    return True


@numba.njit(nogil=True, cache=True)
def _read_bits(bits, rows):
    """The set bits of ``bits`` in increasing order into ``rows``."""
    j = 0
    for w in range(bits.shape[0]):
        word = bits[w]
        while word:
            rows[j] = w * 64 + np.int64(trailing_zeros(word))  # the lowest set bit
            j += 1
            word &= word - np.uint64(1)


@numba.njit(nogil=True, cache=True)
def sorted_floyd_rows(raw, n, bits, rows):
    """The rows of ``Generator.choice(n, size, replace=False, shuffle=False)`` of a fresh
    PCG64 generator where NumPy draws them by Floyd's algorithm (``size <= n // 20`` or
    ``n <= 10,000``), sorted, from its raw outputs alone.

    Floyd's algorithm takes, for ``j = n - size, ..., n - 1``, a draw ``x`` in ``[0, j]``
    (:func:`bounded_draw`, NumPy's ``random_bounded_uint64``) and keeps ``x``, or ``j``
    when ``x`` is kept already; NumPy keeps them in a hash set, this kernel in the bitmap
    ``bits`` (``n`` bits, zero on entry), read back in increasing order into ``rows``
    (the sub-sample's size). With no call back into Python, so a worker thread draws
    without the interpreter's lock. False when ``raw`` ran out. Requires
    ``n - 1 < 2**32 - 1`` and ``rows.size < n``.
    """
    size = rows.shape[0]
    w = 0
    one = np.uint64(1)
    for k in range(size):
        j = n - size + k
        x, w = bounded_draw(raw, w, j)
        if x < 0:
            return False
        if bits[x >> 6] & (one << np.uint64(x & 63)):
            x = j  # never kept before: every earlier value is below j
        bits[x >> 6] |= one << np.uint64(x & 63)
    _read_bits(bits, rows)
    return True
