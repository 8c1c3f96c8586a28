"""How sure is a leaf of its decision: margin and bootstrap confidence.

Layer 2 (structure) of :mod:`dtdecide.tree` (``_structure``); see the architecture page.

Both work from the per-node statistics a fitted tree stores (no training data needed):

* ``margin``: expected profit per case of the leaf's decision minus that of the best
  other decision (``node_expected``), never negative;
* ``confidence``: the share of bootstrap resamples of the leaf's training cases in which
  the same decision stays best. A resample of a leaf's ``n`` training rows has class
  counts ``n* ~ Multinomial(n, n_t / n)`` (categorical target); each class keeps its
  average weight, cost variables and case-specific consequences, so class ``t``'s sums
  are scaled by ``n*_t / n_t``, and the resample is re-decided by the tree's own leaf rule
  (:func:`dtdecide.tree._structure._leaf.node_decisions`, priors relative to the training root).
  With constant consequences and unit weights this is exactly the bootstrap of the leaf's
  cases; varying case costs within a class are held at their class average. Interval
  targets resample the leaf mean from its normal approximation
  ``N(mean, sd / sqrt(n))`` (costs at their leaf averages). Vectorised over leaves and
  resamples.
"""

import numpy as np

from ..._progress import progress_bar
from . import _leaf

__all__ = ["leaf_margin", "bootstrap_confidence"]


def leaf_margin(node_expected, node_decision):
    """Expected profit of each node's decision minus the best other decision's.

    Examples
    --------
    >>> import numpy as np
    >>> leaf_margin(np.array([[3.0, 1.0, 2.5], [0.0, 4.0, -1.0]]), np.array([0, 1])).tolist()
    [0.5, 4.0]
    """
    E = np.asarray(node_expected, dtype=np.float64)
    d = np.asarray(node_decision, dtype=np.intp)
    if E.shape[1] < 2:
        return np.full(E.shape[0], np.nan)
    rows = np.arange(E.shape[0])
    other = E.copy()
    other[rows, d] = -np.inf
    return E[rows, d] - other.max(axis=1)


def _generator(random_state):
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(np.iinfo(np.int32).max))
    return np.random.default_rng(random_state)


def bootstrap_confidence(stats, root, matrix, *, n_rows, value, decision, priors=None,
                         n_resamples=200, random_state=0, verbose=None):
    """Share of bootstrap resamples in which each node keeps ``decision``.

    Parameters
    ----------
    stats : DecisionStats
        Statistics of the ``L`` nodes (leaves) to judge.
    root : DecisionStats
        Statistics of the training root (one node): training proportions for priors.
    matrix : DecisionMatrix
        The matrix the nodes decide with.
    n_rows : ndarray of int, shape (L,)
        Training rows of each node.
    value : ndarray, shape (L, n_channels)
        ``TreeStructure.value`` of the nodes (regression: ``[W, S1, S2]``).
    decision : ndarray of int, shape (L,)
        The nodes' decisions.
    priors : ndarray or None
    n_resamples : int
    random_state : int, Generator, RandomState or None
    verbose : int or None
        With 1 (None: the package default), a progress bar over the blocks of leaves
        when there are several (a large tree); the figures do not depend on it.

    Returns
    -------
    ndarray of float, shape (L,)
        NaN for nodes without training weight.
    """
    rng = _generator(random_state)
    L, B = stats.n_nodes, int(n_resamples)
    n_rows = np.asarray(n_rows, dtype=np.int64)
    value = np.asarray(value)
    decision = np.asarray(decision)
    width = max(1, int(np.prod(np.shape(getattr(stats, "class_weight", None))[1:] or (1,))))
    block = max(1, _BLOCK_CELLS // max(B * width, 1))
    if L <= block:
        return _confidence_block(stats, root, matrix, n_rows, value, decision, priors, B, rng)
    # leaves in blocks (memory of one block's resamples); the draws come in the same order
    # as for all leaves at once (leaf by leaf), so the figures are the same
    out = np.empty(L)
    with progress_bar(total=L, desc="bootstrap confidence", unit="leaf",
                      verbose=verbose) as bar:
        for start in range(0, L, block):
            idx = np.arange(start, min(L, start + block))
            out[idx] = _confidence_block(stats.take(idx), root, matrix, n_rows[idx],
                                         value[idx], decision[idx], priors, B, rng)
            bar.update(idx.size)
    return out


#: resample cells (leaves x resamples x levels) decided at once
_BLOCK_CELLS = 4_000_000


def _confidence_block(stats, root, matrix, n_rows, value, decision, priors, B, rng):
    """:func:`bootstrap_confidence` of the nodes of ``stats``, drawing from ``rng``."""
    L = stats.n_nodes
    n_rows = np.asarray(n_rows, dtype=np.int64)
    W = np.asarray(stats.weight, dtype=np.float64)
    ok = (W > 0) & (n_rows > 0)
    fields = {}
    if stats.is_interval:
        value = np.asarray(value, dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = value[:, 1] / value[:, 0]
            sd = np.sqrt(np.maximum(value[:, 2] / value[:, 0] - mean**2, 0.0))
            se = sd / np.sqrt(np.maximum(n_rows, 1))
        draw = mean[:, None] + se[:, None] * rng.standard_normal((L, B))
        draw = np.where(ok[:, None], draw, 0.0)
        fields["y_sum"] = (W[:, None] * draw).reshape(-1)
        keep = {}
    else:
        cw = np.asarray(stats.class_weight, dtype=np.float64)
        p = np.where(ok[:, None], cw / np.where(W > 0, W, 1.0)[:, None], 0.0)
        p = np.clip(p, 0.0, None)
        p = np.where(ok[:, None], p / np.where(p.sum(1) > 0, p.sum(1), 1.0)[:, None], 0.0)
        p[~ok, 0] = 1.0
        counts = rng.multinomial(np.maximum(n_rows, 1)[:, None], p[:, None, :], size=(L, B))
        frac = counts / np.maximum(n_rows, 1)[:, None, None]
        cw_star = W[:, None, None] * frac  # (L, B, T)
        with np.errstate(invalid="ignore", divide="ignore"):
            ratio = np.where(cw[:, None, :] > 0, cw_star / cw[:, None, :], 0.0)
        fields["class_weight"] = cw_star.reshape(L * B, -1)
        fields["weight"] = cw_star.sum(axis=2).reshape(-1)
        keep = {}
        for name in ("cost_var_sums", "q_sums"):
            arr = getattr(stats, name)
            if arr is not None:
                scaled = arr[:, None] * ratio[..., None]  # (L, B, T, k)
                fields[name] = scaled.reshape(L * B, *arr.shape[1:])
    for name, val in stats.__dict__.items():
        if name in fields:
            continue
        if isinstance(val, np.ndarray) and name != "rows":
            keep[name] = np.repeat(val, B, axis=0)
        else:
            keep[name] = val
    keep.update(fields)
    boot = _leaf.DecisionStats(**keep)
    skip = 0
    if priors is not None and not stats.is_interval:
        # node_posteriors reads the training proportions from node 0
        glued = {}
        for name, val in boot.__dict__.items():
            if isinstance(val, np.ndarray) and name != "rows":
                glued[name] = np.concatenate([getattr(root, name), val])
            else:
                glued[name] = val
        boot = _leaf.DecisionStats(**glued)
        skip = 1
    with np.errstate(invalid="ignore", divide="ignore"):
        out = _leaf.node_decisions(boot, matrix, priors=priors)
    d = out["node_decision"][skip:].reshape(L, B)
    conf = (d == np.asarray(decision)[:, None]).mean(axis=1)
    return np.where(ok, conf, np.nan)
