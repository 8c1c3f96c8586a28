"""Exact policy trees of depth 1 and 2 on binned numeric inputs.

The objective is the one of the profit tree's exact search: the sum over leaves of the
largest column sum of the net rewards ``Q[i, d]`` of the leaf's cases (each leaf takes
its best decision). Two constraints: at least ``min_samples_leaf`` cases per leaf, and
at least ``min_action_support`` cases *of every logged decision* per leaf (the leaf's
reward of a decision then rests on cases that got it).

How: every input is cut into at most ``max_bins`` bins by quantiles (all distinct values
when there are fewer); a case goes left at a split ``x <= edge``. For every pair of inputs
``(f, g)`` one two-dimensional histogram of channel sums (rewards, cases, cases per
logged decision) over (bin of f, bin of g) gives, through prefix sums along both axes,
the channel sums of the four leaves of *every* tree "root on f, both children on g" at
once; the best tree keeps, for each root threshold on ``f``, the best child split of each
side over every ``g``. The histogram of ``(g, f)`` is the transpose of that of ``(f, g)``,
so one pass over the rows per unordered pair serves both (``F (F + 1) / 2`` passes) plus
``O(F^2 B^2 C)`` for the scans, independent of ``n``. Ties keep the first tree found
(roots by feature, then threshold).
"""

from __future__ import annotations

import numpy as np

__all__ = ["bin_inputs", "exact_policy_tree", "brute_force_policy_tree"]


def bin_inputs(X, max_bins=255, *, subsample=200_000, random_state=None):
    """Quantile bins of a numeric matrix: ``(X_binned uint8/uint16, edges list)``.

    ``edges[j]`` is sorted; a value ``x`` is in bin ``k`` when ``edges[j][k-1] < x <=
    edges[j][k]`` (the last bin holds values above the last edge). An input with at most
    ``max_bins`` distinct values gets one bin per value.
    """
    X = np.asarray(X, dtype=float)
    n, F = X.shape
    rng = np.random.default_rng(random_state)
    sample = X if n <= subsample else X[rng.choice(n, subsample, replace=False)]
    dtype = np.uint8 if max_bins <= 256 else np.uint16
    Xb = np.empty((n, F), dtype=dtype, order="F")
    edges = []
    for j in range(F):
        distinct = np.unique(sample[:, j])
        if distinct.shape[0] <= max_bins:
            if n > subsample:
                distinct = np.unique(X[:, j])
            if distinct.shape[0] <= max_bins:
                e = distinct[:-1]
            else:
                e = None
        else:
            e = None
        if e is None:
            qs = np.quantile(sample[:, j], np.arange(1, max_bins) / max_bins,
                             method="inverted_cdf")
            e = np.unique(qs)
            e = e[e < distinct[-1]]  # a split must leave cases on its right
        edges.append(np.asarray(e, dtype=float))
        Xb[:, j] = np.searchsorted(edges[j], X[:, j], side="left")
    return Xb, edges


def _leaf_value(S, D):
    # a chain of maximums over the few decisions: a reduction along a short last axis
    # of a strided view is several times slower
    v = S[..., 0].copy()
    for d in range(1, D):
        np.maximum(v, S[..., d], out=v)
    return v


def _valid(S, D, msl, mas, n_actions):
    ok = S[..., D] >= msl
    if mas > 0:
        for a in range(n_actions):
            ok &= S[..., D + 1 + a] >= mas
    return ok


def _hist2(bf, bg, Wf, Wg, chans, counts_idx, n_count):
    """(Wf, Wg, C) channel sums by (bin of f, bin of g)."""
    cell = bf.astype(np.intp) * Wg + bg
    size = Wf * Wg
    D = chans.shape[1]
    H = np.empty((size, D + n_count))
    for d in range(D):
        H[:, d] = np.bincount(cell, weights=chans[:, d], minlength=size)
    # counts: cases, then cases per logged action, from one unweighted bincount
    if n_count == 1:
        H[:, D] = np.bincount(cell, minlength=size)
    else:
        A = n_count - 1
        c = np.bincount(cell * A + counts_idx, minlength=size * A).reshape(size, A)
        H[:, D + 1:] = c
        H[:, D] = c.sum(axis=1)
    return H.reshape(Wf, Wg, D + n_count)


def exact_policy_tree(Xb, edges, Q, action=None, *, n_actions=0, max_depth=2, min_samples_leaf=1, min_action_support=0, n_threads=1):
    """Best tree of depth <= ``max_depth`` (1 or 2) on binned inputs.

    Parameters
    ----------
    Xb : ndarray of shape (n, F)
        Bins from :func:`bin_inputs`.
    edges : list of ndarray
        The bin edges of each input.
    Q : ndarray of shape (n, D)
        Net reward of every decision for every case.
    action : ndarray of int, shape (n,), optional
        Index of the logged decision of each case (needed when ``min_action_support``).
    n_actions : int
        Number of logged decisions counted per leaf.
    n_threads : int
        Threads over the pairs of inputs (NumPy releases the GIL in the scans); the
        results are merged in the serial order, so the tree does not depend on it.

    Returns
    -------
    value : float
        The objective of the best tree.
    tree : None or tuple
        None for a single leaf, else ``(f, k, left, right)``: cases with
        ``Xb[:, f] <= k`` go left; ``left``/``right`` are nested the same way. With
        fewer than ``2 * min_samples_leaf`` cases no split is possible and the root is
        the one leaf, even with fewer than ``min_samples_leaf`` cases (as the greedy
        grower leaves it).

    Raises
    ------
    ValueError
        When a logged decision has fewer than ``min_action_support`` cases in all: no
        leaf, not even the root, can meet the constraint.
    """
    Xb = np.asarray(Xb)
    n, F = Xb.shape
    Q = np.asarray(Q, dtype=float)
    D = Q.shape[1]
    msl, mas = int(min_samples_leaf), int(min_action_support)
    if mas > 0:
        if action is None:
            raise ValueError("min_action_support needs the logged action of each case")
        A = int(n_actions)
        counts_idx = np.asarray(action, dtype=np.intp)
    else:
        A = 0
        counts_idx = np.zeros(n, dtype=np.intp)
    n_count = 1 + A
    wQ = Q
    widths = [len(e) + 1 for e in edges]
    per_action = np.bincount(counts_idx, minlength=max(A, 1))[:A]
    total = np.concatenate([wQ.sum(axis=0), [n], per_action])
    short = np.flatnonzero(per_action < mas)
    if short.size:
        raise ValueError(
            f"min_action_support={mas}: the logged decision {int(short[0])} has "
            f"{int(per_action[short[0]])} cases in all, so no leaf (not even one holding "
            "every case) meets the constraints")
    root_leaf = float(_leaf_value(total, D))
    if n < 2 * msl:
        # no split leaves min_samples_leaf cases on both sides: the root is the one
        # leaf, with its best decision, even below min_samples_leaf (as the greedy grower)
        return root_leaf, None
    best = (root_leaf, None)
    neg = -np.inf

    def side_best(P):
        """Best depth<=1 value of each node whose sums along g's bins are prefix ``P``.

        ``P`` (..., Wg, C): prefix sums over g's bins (last entry = the node total).
        Returns (leaf-or-split value, best split position or -1).
        """
        tot = P[..., -1:, :]
        leaf_ok = _valid(tot[..., 0, :], D, msl, mas, A)
        leaf = np.where(leaf_ok, _leaf_value(tot[..., 0, :], D), neg)
        Lc, Rc = P[..., :-1, :], tot - P[..., :-1, :]
        ok = _valid(Lc, D, msl, mas, A) & _valid(Rc, D, msl, mas, A)
        v = np.where(ok, _leaf_value(Lc, D) + _leaf_value(Rc, D), neg)
        if v.shape[-1] == 0:
            return leaf, np.full(leaf.shape, -1)
        k = np.argmax(v, axis=-1)
        vk = np.take_along_axis(v, k[..., None], axis=-1)[..., 0]
        use = vk > leaf
        return np.where(use, vk, leaf), np.where(use, k, -1)

    if max_depth <= 1:
        for f in range(F):
            Wf = widths[f]
            H = _hist2(Xb[:, f], np.zeros(n, dtype=np.intp), Wf, 1, wQ, counts_idx, n_count)
            P = np.cumsum(H[:, 0, :], axis=0)
            v, k = side_best(P[None])
            if k[0] >= 0 and v[0] > best[0]:
                best = (float(v[0]), (f, int(k[0]), None, None))
        return best
    # depth 2: for each root feature f, per root threshold t, the best child of each side;
    # one histogram per unordered pair {f, g} serves "root f, children g" and (transposed)
    # "root g, children f"
    bestL = [np.full(max(w - 1, 0), neg) for w in widths]
    bestR = [np.full(max(w - 1, 0), neg) for w in widths]
    argL = [[None] * max(w - 1, 0) for w in widths]
    argR = [[None] * max(w - 1, 0) for w in widths]

    def scan(H):
        """Best children split on g of every root threshold on f, from H (Wf, Wg, C)."""
        P = np.cumsum(np.cumsum(H, axis=0), axis=1)  # 2-D prefix sums
        Lp = P[:-1]                      # left child of root threshold t: bins <= t
        Rp = P[-1][None] - P[:-1]        # right child
        return side_best(Lp), side_best(Rp)

    def pair(fg):
        f, g = fg
        H = _hist2(Xb[:, f], Xb[:, g], widths[f], widths[g], wQ, counts_idx, n_count)
        out = []
        if widths[f] >= 2:
            out.append((f, g, scan(H)))
        if g != f and widths[g] >= 2:
            out.append((g, f, scan(H.transpose(1, 0, 2))))
        return out

    def merge(f, g, result):
        (vl, kl), (vr, kr) = result
        for v, k, best_arr, arg in ((vl, kl, bestL[f], argL[f]), (vr, kr, bestR[f], argR[f])):
            upd = v > best_arr
            for t in np.flatnonzero(upd):
                arg[t] = (g, int(k[t]))
            best_arr[upd] = v[upd]

    pairs = [(f, g) for f in range(F) for g in range(f, F) if widths[f] >= 2 or widths[g] >= 2]
    if n_threads > 1 and len(pairs) > 1:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(n_threads) as pool:
            results = list(pool.map(pair, pairs))
    else:
        results = map(pair, pairs)
    # merged in the serial order whatever the threads: the same tree for any n_threads
    for out in results:
        for f, g, result in out:
            merge(f, g, result)
    for f in range(F):
        if widths[f] < 2:
            continue
        val = bestL[f] + bestR[f]
        if not np.isfinite(val).any():
            continue
        t = int(np.argmax(val))
        if val[t] > best[0]:
            def child(arg):
                g, k = arg
                return None if k < 0 else (g, k, None, None)
            best = (float(val[t]), (f, t, child(argL[f][t]), child(argR[f][t])))
    return best


def brute_force_policy_tree(X, Q, action=None, *, n_actions=0, max_depth=2,
                            min_samples_leaf=1, min_action_support=0):
    """The slow, obvious twin of :func:`exact_policy_tree` on raw values (tests).

    Enumerates every split ``x_f <= v`` over the distinct values ``v`` (but the largest)
    of every input, at the root and in each child; returns the best value.
    """
    X = np.asarray(X, dtype=float)
    Q = np.asarray(Q, dtype=float)

    def ok_support(rows):
        if min_action_support > 0:
            c = np.bincount(np.asarray(action)[rows], minlength=n_actions)
            return bool((c >= min_action_support).all())
        return True

    def ok(rows):
        return rows.sum() >= min_samples_leaf and ok_support(rows)

    def leaf(rows):
        return Q[rows].sum(axis=0).max() if ok(rows) else -np.inf

    def best(rows, depth, root=False):
        # the root is a leaf even below min_samples_leaf (nothing else can be)
        v = Q[rows].sum(axis=0).max() if root and ok_support(rows) else leaf(rows)
        if depth == 0:
            return v
        for f in range(X.shape[1]):
            for thr in np.unique(X[rows, f])[:-1]:
                go = rows & (X[:, f] <= thr)
                stay = rows & ~(X[:, f] <= thr)
                v = max(v, best(go, depth - 1) + best(stay, depth - 1))
        return v

    return float(best(np.ones(X.shape[0], dtype=bool), max_depth, root=True))
