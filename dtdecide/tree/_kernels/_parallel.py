"""The tree's scheduling of its row- and feature-parallel kernels on the package's threads.

Layer 1 (kernels) of :mod:`dtdecide.tree` (``_kernels``); see the architecture page.

The threads themselves, ``n_jobs`` and the native thread limits live at the bottom of the
package, in :mod:`dtdecide._parallel` (:class:`~dtdecide._parallel.ThreadPool`,
:func:`~dtdecide._parallel.thread_pool`, :func:`~dtdecide._parallel.check_n_jobs`),
shared with the decision engine. Here: how a pass over the binned data is cut for them.
Work is always split by **feature** (and, on many threads, by ranges of rows whose partial
sums are added in a fixed order): every feature's numbers are computed by exactly the same
sequence of operations whatever the number of threads, so a tree grown with ``n_jobs=2``
is bit for bit the tree grown with ``n_jobs=1``.
"""

import numpy as np

__all__ = ["MAX_ROW_CHUNKS", "MIN_CHUNK_ROWS", "feature_groups", "feature_row_plan",
           "feature_row_split"]

#: a pass shared out by rows as well as by features (:func:`feature_row_plan`): at most
#: this many ranges of rows, each of at least this many rows
MAX_ROW_CHUNKS = 4
MIN_CHUNK_ROWS = 1 << 15


def feature_groups(costs, n_groups):
    """Split features into at most ``n_groups`` runs of consecutive features of balanced
    total cost.

    The runs are consecutive because threads that share out interleaved features run
    markedly slower (measured: 1.3x instead of 2x on two cores for the level
    histograms, whose cells are laid out feature after feature); within that
    constraint the largest group's cost is as small as it can be (a bisection on that
    cost, each candidate checked by filling groups left to right). Deterministic.

    Examples
    --------
    >>> from dtdecide.tree._kernels._parallel import feature_groups
    >>> [g.tolist() for g in feature_groups([5, 1, 1, 3], 2)]
    [[0], [1, 2, 3]]
    >>> [g.tolist() for g in feature_groups([1] * 6, 3)]
    [[0, 1], [2, 3], [4, 5]]
    """
    costs = np.asarray(costs, dtype=np.float64)
    n = costs.size
    n_groups = max(1, min(int(n_groups), n))
    if n_groups == 1:
        return [np.arange(n)] if n else []

    def cuts(cap):
        """Group starts when each group takes features while its cost stays <= cap."""
        starts, load = [0], 0.0
        for j, c in enumerate(costs):
            if load + c > cap and load > 0:
                starts.append(j)
                load = 0.0
            load += c
        return starts

    key = (costs.tobytes(), n_groups)
    starts = _GROUP_STARTS.get(key)
    if starts is None:
        lo, hi = float(costs.max()), float(costs.sum())
        for _ in range(60):  # bisection on the largest group's cost, to 0.1 %
            mid = 0.5 * (lo + hi)
            if len(cuts(mid)) <= n_groups:
                hi = mid
            else:
                lo = mid
            if hi - lo <= 1e-3 * max(hi, 1e-300):
                break
        starts = cuts(hi) + [n]
        if len(_GROUP_STARTS) >= 256:  # the callers' few cost vectors recur level after level
            _GROUP_STARTS.clear()
        _GROUP_STARTS[key] = starts
    return [np.arange(a, b) for a, b in zip(starts[:-1], starts[1:])]


_GROUP_STARTS = {}  # (costs' bytes, n_groups) -> group starts


def feature_row_split(n_features, n_threads, max_chunks, gain=0.9):
    """``(n_groups, n_chunks)``: share a pass over ``n_features`` features of about
    equal cost among ``n_threads`` threads as ``n_groups`` runs of features times
    ``n_chunks`` ranges of rows (``n_chunks`` 1: by features alone).

    Whole features leave threads idle when they are not a multiple of the threads: 20
    features on 16 threads take two rounds, 1.6x the ideal time, and on 8 threads
    three, 1.2x. With ``G`` runs and ``r`` chunks the longest thread takes
    ``ceil(G r / T)`` tasks of ``ceil(F / G) / r`` features' work; the shortest such
    time over ``r <= max_chunks`` is chosen, fewest chunks and then fewest runs on
    ties (20 features on 16 threads: 4 runs of 5 features x 4 chunks, one round of
    1.25, the ideal), unless it is not below ``gain`` times the time by features
    alone. Never more than one chunk on one or two threads.

    Examples
    --------
    >>> from dtdecide.tree._kernels._parallel import feature_row_split
    >>> feature_row_split(20, 16, 4), feature_row_split(20, 8, 4), feature_row_split(20, 2, 4)
    ((4, 4), (4, 2), (2, 1))
    """
    F, T = int(n_features), int(n_threads)

    def span(r, g):
        return -(-g * r // T) * -(-F // g) / r

    if T <= 2 or F < 2:
        return min(F, T) if F else 1, 1
    alone = min((span(1, g), g) for g in range(1, F + 1))
    best = (alone[0], 1, alone[1])
    for r in range(2, int(max_chunks) + 1):
        for g in range(1, F + 1):
            t = span(r, g)
            if t < best[0] - 1e-12:
                best = (t, r, g)
    t, r, g = best
    if r == 1 or t > gain * alone[0]:
        return min(F, T), 1
    return g, r


def feature_row_plan(costs, n_rows, n_threads, max_chunks, gain=0.9):
    """``(groups, bounds)`` of a pass over ``n_rows`` rows and features of ``costs``
    shared out as :func:`feature_row_split` says: the runs of features
    (:func:`feature_groups`) and the ``n_chunks + 1`` bounds of the ranges of rows; None
    where the features alone are shared out (one range).

    Examples
    --------
    >>> from dtdecide.tree._kernels._parallel import feature_row_plan
    >>> groups, bounds = feature_row_plan([1.0] * 20, 1000, 16, 4)
    >>> len(groups), bounds.tolist()
    (4, [0, 250, 500, 750, 1000])
    >>> feature_row_plan([1.0] * 20, 1000, 2, 4) is None
    True
    """
    n_groups, n_chunks = feature_row_split(len(costs), n_threads, max_chunks, gain)
    if n_chunks == 1:
        return None
    return (feature_groups(costs, n_groups),
            np.linspace(0, n_rows, n_chunks + 1).astype(np.int64))
