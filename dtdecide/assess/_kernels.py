"""Array kernels of the profit chart (no pandas, no decision matrices).

Cases are ranked by a score (the expected profit of their best decision), highest
first. At depth ``q`` the top ``q`` share of the total frequency takes its decisions
and the rest takes the implicit do-nothing decision, whose consequence is 0.

Ties in the score are **split proportionally**: the cases sharing one score form a
block, and a depth that cuts through a block takes the same share of each of the
block's sums (frequency, profit, cost, response). The chart is therefore a
piecewise-linear function of the depth between block ends and does not depend on the
order of the rows. ``_slow_cumulative`` is the obvious twin that tests compare with.
"""

import numpy as np

from .._dtypes import FLOAT_DTYPE as _FLOAT


def _blocks(score, weight, columns):
    """Sort by score (descending) and sum ``columns`` within blocks of tied scores.

    Returns the sort order, the block starts (in sorted order), the block scores, the
    block weights and the frequency-weighted block sums of each column.
    """
    order = np.argsort(-score, kind="stable")
    s = score[order]
    starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    block_score = s[starts]
    w_sorted = weight[order]
    block_weight = np.add.reduceat(w_sorted, starts)
    block_sums = [np.add.reduceat(col[order] * w_sorted, starts) for col in columns]
    return order, starts, block_score, block_weight, block_sums


def cumulative_at_depths(score, weight, columns, depths, *, extra_min=None):
    """Cumulative frequency-weighted sums of ``columns`` at each depth.

    Parameters
    ----------
    score : ndarray (n,)
        Ranking score; higher is taken first. Must be finite.
    weight : ndarray (n,)
        Positive frequencies.
    columns : list of ndarray (n,)
        Per-case values; the result holds ``sum F(i) value(i)`` over the top part.
    depths : ndarray (k,)
        Increasing fractions in ``(0, 1]``.
    extra_min : ndarray (n,) or None
        When given, also return the minimum of this array over every case that is (at
        least partly) taken at each depth.

    Returns
    -------
    cum_weight : ndarray (k,)
    cum_columns : list of ndarray (k,)
    cut_score : ndarray (k,)
        The score of the block the depth falls in (the last block taken, fully or in
        part): taking every case whose score is ``>=`` this value reproduces the depth
        up to the split block.
    cut_min : ndarray (k,) or None
    """
    order, starts, block_score, block_weight, block_sums = _blocks(score, weight, columns)
    total = block_weight.sum()
    cum_w = np.r_[0.0, np.cumsum(block_weight)]
    targets = np.asarray(depths, dtype=_FLOAT) * total
    # exact at depth 1 despite rounding in cumsum
    targets = np.minimum(targets, cum_w[-1])
    cum_cols = [np.interp(targets, cum_w, np.r_[0.0, np.cumsum(b)]) for b in block_sums]
    # block holding the target: first block whose end reaches it
    idx = np.searchsorted(cum_w[1:], targets, side="left")
    idx = np.minimum(idx, len(block_score) - 1)
    cut_score = block_score[idx]
    cut_min = None
    if extra_min is not None:
        block_min = np.minimum.reduceat(extra_min[order], starts)
        cut_min = np.minimum.accumulate(block_min)[idx]
    return targets, cum_cols, cut_score, cut_min


def best_cut(score, weight, profit):
    """Best place to stop taking decisions, over the ends of tied-score blocks.

    Returns ``(n_blocks_taken, cum_weight, cum_profit, cut_score)``; taking nothing
    (0 blocks, profit 0, score ``inf``) is a candidate too. Ties in cumulative profit go
    to the smaller depth.
    """
    _, _, block_score, block_weight, (block_profit,) = _blocks(score, weight, [profit])
    cum_p = np.r_[0.0, np.cumsum(block_profit)]
    cum_w = np.r_[0.0, np.cumsum(block_weight)]
    k = int(np.argmax(cum_p))
    cut = np.inf if k == 0 else float(block_score[k - 1])
    return k, float(cum_w[k]), float(cum_p[k]), cut


def _slow_cumulative(score, weight, value, depth):
    """Obvious twin of :func:`cumulative_at_depths` for one column and one depth."""
    total = sum(weight)
    target = depth * total
    taken = 0.0
    acc = 0.0
    for s in sorted(set(score.tolist()), reverse=True):
        members = [i for i in range(len(score)) if score[i] == s]
        w = sum(weight[i] for i in members)
        v = sum(weight[i] * value[i] for i in members)
        if taken + w <= target:
            taken += w
            acc += v
        else:
            share = (target - taken) / w
            acc += share * v
            break
    return acc
