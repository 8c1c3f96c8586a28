"""Profit, ROI, lift and gains charts with an implicit do-nothing decision."""

import numbers
import warnings

import numpy as np
import pandas as pd
from sklearn.utils import Bunch

from dtdecide.decision import prior_adjustment_weights, roi

from ._kernels import best_cut, cumulative_at_depths
from ._scoring import event_code, score_cases

__all__ = ["best_depth", "best_threshold", "profit_curve"]


def _check_n_bins(n_bins):
    if not isinstance(n_bins, numbers.Integral) or isinstance(n_bins, bool) or n_bins < 1:
        raise ValueError(f"n_bins must be a positive integer; got {n_bins!r}")
    return int(n_bins)


def _score_y_score(y_true, y_score, matrix, costs, decision_costs, sample_weight,
                   train_priors, event):
    """``(scored cases, event index)`` of ``y_score`` against ``y_true``: how
    :func:`profit_curve` and :func:`best_threshold` read their arguments."""
    idx = event_code(matrix, event) if hasattr(matrix, "levels") else None
    scored = score_cases(y_score, None, y_true, matrix, costs=costs,
                         sample_weight=sample_weight, train_priors=train_priors,
                         event_idx=idx, name="y_score", decision_costs=decision_costs)
    return scored, idx


def _chart_arrays(scored, *, event_idx, name="y_score"):
    """Arrays the chart kernels need, over the cases that count.

    Cases with a missing cost are left out (with a warning saying how many), zero
    frequencies contribute nothing and are dropped; explicit matrix priors reweight
    every case by ``Paw(T(i))``.
    """
    if scored.profit is None:
        raise ValueError("y_true is needed to compute realised profit; got None")
    w = np.ones(scored.n) if scored.weight is None else scored.weight
    missing = scored.missing
    if missing.any():
        warnings.warn(
            f"{int(missing.sum())} case(s) with missing costs are left out of the chart "
            "(as they are left out of the summaries)",
            UserWarning,
            stacklevel=4,
        )
    keep = ~missing & (w > 0)
    m = scored.matrix
    w = w.astype(float)
    if keep.size == 0:
        raise ValueError("y_true and y_score hold no cases to chart (0 rows)")
    if m.priors is not None and not m.is_interval:
        paw = prior_adjustment_weights(scored.t_idx[keep], w[keep], m.priors, m.n_levels)
        if paw is None:
            raise ValueError(
                "the matrix priors give positive weight to a level with zero frequency in "
                "y_true; prior-adjusted charts are undefined"
            )
        w = w.copy()
        w[keep] *= paw
    if not keep.any():
        raise ValueError(
            "no case with a positive frequency and known costs to chart; check "
            "sample_weight (all zero?) and costs (all missing?)"
        )
    out = Bunch(
        score=scored.score[keep],
        profit=scored.profit[keep],
        weight=w[keep],
        cost=None if scored.cost is None else scored.cost[keep],
        response=None,
        post=None,
    )
    if m.is_interval:
        out.response = np.asarray(scored.y, dtype=float).reshape(-1)[keep]
    elif event_idx is not None:
        out.response = (scored.t_idx[keep] == event_idx).astype(float)
        if scored.post is not None and scored.post.ndim == 2:
            out.post = scored.post[keep, event_idx]
    return out


def _has_costs(matrix):
    return matrix.kind == "revenue"


def _curve_table(arr, depths, *, with_cost):
    """The chart DataFrame from the arrays of :func:`_chart_arrays`."""
    columns = [arr.profit]
    if with_cost:
        columns.append(arr.cost)
    if arr.response is not None:
        columns.append(arr.response)
    cum_w, cums, cut_score, cut_post = cumulative_at_depths(
        arr.score, arr.weight, columns, depths, extra_min=arr.post
    )
    total_w = float(arr.weight.sum())

    def per_bin(cum):
        return np.diff(np.r_[0.0, cum])

    with np.errstate(divide="ignore", invalid="ignore"):
        freq = per_bin(cum_w)
        cum_profit = cums[0]
        profit = per_bin(cum_profit)
        table = {
            "depth": depths,
            "frequency": freq,
            "cum_frequency": cum_w,
            "profit": profit,
            "average_profit": profit / freq,
            "cum_profit": cum_profit,
            "cum_average_profit": cum_profit / cum_w,
            "population_average_profit": cum_profit / total_w,
        }
        k = 1
        if with_cost:
            cum_cost = cums[k]
            k += 1
            cost = per_bin(cum_cost)
            table.update(
                investment=cost,
                cum_investment=cum_cost,
                roi=roi(profit, cost),
                cum_roi=roi(cum_profit, cum_cost),
            )
        if arr.response is not None:
            cum_resp = cums[k]
            resp = per_bin(cum_resp)
            overall = float(np.dot(arr.weight, arr.response)) / total_w
            rate = resp / freq
            cum_rate = cum_resp / cum_w
            table.update(
                response_rate=rate,
                cum_response_rate=cum_rate,
                lift=rate / overall,
                cum_lift=cum_rate / overall,
                gain=cum_resp / (overall * total_w),
            )
    table["ep_threshold"] = cut_score
    if cut_post is not None:
        table["posterior_threshold"] = cut_post
    return pd.DataFrame(table)


def profit_curve(y_true, y_score, matrix, *, costs=None, decision_costs=None,
                 sample_weight=None, train_priors=None, event=None, n_bins=20):
    """Profit chart numbers with an implicit do-nothing decision.

    Cases are ranked by the expected profit ``E(i)`` of their best decision (for a
    binary matrix with one decision, the same order as the event posterior; with
    ``decision_costs``, under those costs). At depth
    ``q`` the top ``q`` share of the (frequency-weighted) population takes its
    decisions and the rest does nothing, with consequence 0.

    **Ties.** Cases with the same expected profit form a block. A depth that cuts a
    block takes the same share of each of the block's sums: the chart does not depend
    on the row order, and within a block it is linear in the depth. (Deciding with
    ``threshold=ep_threshold`` takes the whole block.)

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        Actual target (levels of the matrix, or numbers for an interval matrix).
    y_score : DataFrame or array-like
        Posteriors (one column per level, DataFrame columns named by level or an array
        in level order), a 1-D event posterior for a binary matrix, or predictions for
        an interval matrix.
    matrix : DecisionMatrix
        Leave the do-nothing decision out of it: it is supplied implicitly. For a loss
        matrix, every "profit" below is minus the loss.
    costs : DataFrame or dict of arrays, default=None
        Cost-variable columns (see :func:`dtdecide.decide`): the actual costs, used
        for every realised figure (profit, investment, ROI).
    decision_costs : DataFrame, dict or Series, default=None
        Costs to decide with when the actual ones are known only afterwards (e.g.
        :func:`~dtdecide.decision.mean_costs` of the training costs): the cases are
        ranked by their expected profit under these, their realised profit uses
        ``costs``. See :func:`dtdecide.decide`.
    sample_weight : array-like of shape (n_samples,), default=None
        Frequencies: a case of weight 2 counts as two cases.
    train_priors : array-like, default=None
        Training class proportions, to adjust posteriors to the matrix priors. With
        explicit matrix priors, every case is also weighted by ``Paw(T(i))``.
    event : level, default=None
        The level counted as a response for the response rate, lift and gains
        (inferred for 0/1, -1/1 and False/True levels; otherwise those columns need it
        and are left out without it). Interval targets use the actual value.
    n_bins : int, default=20
        Depths ``1/n_bins, 2/n_bins, ..., 1`` (default every 5%).

    Returns
    -------
    DataFrame
        One row per depth: ``depth``; ``frequency`` (in the bin) and
        ``cum_frequency``; ``profit``, ``average_profit`` (per case in the bin),
        ``cum_profit`` (the whole population's profit at that depth),
        ``cum_average_profit`` (per targeted case), ``population_average_profit``
        (per case of the whole population); for a revenue matrix ``investment``,
        ``cum_investment``, ``roi``, ``cum_roi``; with an event (or interval target)
        ``response_rate``, ``cum_response_rate``, ``lift``, ``cum_lift``, ``gain``
        (share of all responses captured); ``ep_threshold`` (the expected profit of the
        last block taken) and, with an event posterior, ``posterior_threshold`` (the
        lowest event posterior taken, as given, before any prior adjustment).

    See Also
    --------
    best_depth : The best row of the table.
    best_threshold : The exact best expected-profit threshold.
    ProfitCurveDisplay : Plots of these numbers.

    Examples
    --------
    >>> from dtdecide import DecisionMatrix
    >>> from dtdecide.assess import profit_curve
    >>> m = DecisionMatrix({"mail": [9, -1]}, levels=[1, 0])
    >>> p = [0.9, 0.8, 0.3, 0.2, 0.1]
    >>> curve = profit_curve([1, 0, 1, 0, 0], p, m, n_bins=5)
    >>> curve["cum_profit"].tolist()
    [9.0, 8.0, 17.0, 16.0, 15.0]
    >>> curve["cum_lift"].round(3).tolist()
    [2.5, 1.25, 1.667, 1.25, 1.0]

    Ranked by a planned contact cost of 1, realised with the actual costs:

    >>> r = DecisionMatrix({"mail": [10, 0]}, levels=[1, 0], kind="revenue",
    ...                    costs={"mail": "cost"})
    >>> curve = profit_curve([1, 0, 1, 0, 0], p, r, costs={"cost": [3, 1, 1, 1, 1]},
    ...                      decision_costs={"cost": 1.0}, n_bins=5)
    >>> curve["cum_profit"].tolist()
    [7.0, 6.0, 15.0, 14.0, 13.0]
    """
    n_bins = _check_n_bins(n_bins)
    scored, idx = _score_y_score(y_true, y_score, matrix, costs, decision_costs,
                                 sample_weight, train_priors, event)
    return curve_from_scored(scored, sample_weight=sample_weight, event_idx=idx, n_bins=n_bins)


def curve_from_scored(scored, *, sample_weight, event_idx, n_bins=20):
    """Chart table of a :class:`~dtdecide.assess._scoring.ScoredCases`."""
    scored.weight = None if sample_weight is None else np.asarray(sample_weight, dtype=float)
    arr = _chart_arrays(scored, event_idx=event_idx)
    depths = np.arange(1, n_bins + 1) / n_bins
    return _curve_table(arr, depths, with_cost=_has_costs(scored.matrix))


def best_depth(curve, statistic="cum_profit"):
    """The row of a profit chart with the largest value of a statistic.

    Parameters
    ----------
    curve : DataFrame
        A table from :func:`profit_curve`.
    statistic : str, default="cum_profit"
        Column to maximise (``cum_profit`` is the population's total profit when the
        rest does nothing; ``cum_roi`` and ``cum_lift`` are other choices). Ties go to
        the smaller depth.

    Returns
    -------
    Bunch
        ``depth``, ``value``, ``ep_threshold`` (pass it as ``threshold=`` to
        :func:`dtdecide.decide`: cases below it do nothing) and ``posterior_threshold``
        (NaN when the table has none).

    Examples
    --------
    >>> from dtdecide import DecisionMatrix
    >>> from dtdecide.assess import best_depth, profit_curve
    >>> m = DecisionMatrix({"mail": [9, -1]}, levels=[1, 0])
    >>> curve = profit_curve([1, 0, 1, 0, 0], [0.9, 0.8, 0.3, 0.2, 0.1], m, n_bins=5)
    >>> b = best_depth(curve)
    >>> round(b.depth, 6), round(b.value, 6), round(b.posterior_threshold, 6)
    (0.6, 17.0, 0.3)
    """
    if not isinstance(curve, pd.DataFrame) or statistic not in curve.columns:
        columns = list(curve.columns) if isinstance(curve, pd.DataFrame) else None
        raise ValueError(
            "statistic must be a column of curve (a DataFrame from profit_curve); got "
            f"statistic={statistic!r} and "
            + (f"columns {columns}" if columns is not None else
               f"curve of type {type(curve).__name__}")
        )
    values = curve[statistic].to_numpy(dtype=float)
    if np.all(np.isnan(values)):
        raise ValueError(f"statistic {statistic!r} is missing at every depth")
    k = int(np.nanargmax(values))
    row = curve.iloc[k]
    return Bunch(
        depth=float(row["depth"]),
        value=float(values[k]),
        ep_threshold=float(row["ep_threshold"]),
        posterior_threshold=float(row.get("posterior_threshold", np.nan)),
    )


def best_threshold(y_true, y_score, matrix, *, costs=None, decision_costs=None,
                   sample_weight=None, train_priors=None, event=None):
    """The expected-profit threshold that maximises the realised total profit.

    The candidates are the ends of blocks of tied expected profit (and taking
    nobody). Deciding with ``dtdecide.decide(..., threshold=result.threshold)`` gives
    the do-nothing decision to every case whose expected profit is below it and
    reproduces ``total_profit`` (prior-adjusted when the matrix has priors).

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        As in :func:`profit_curve`.
    y_score : DataFrame or array-like
        As in :func:`profit_curve`.
    matrix : DecisionMatrix
        As in :func:`profit_curve`.
    costs : DataFrame or dict of arrays, default=None
        As in :func:`profit_curve`.
    decision_costs : DataFrame, dict or Series, default=None
        As in :func:`profit_curve`; the threshold is on the expected profit under
        these costs, so pass them to :func:`dtdecide.decide` with it.
    sample_weight : array-like of shape (n_samples,), default=None
        As in :func:`profit_curve`.
    train_priors : array-like, default=None
        As in :func:`profit_curve`.
    event : level, default=None
        As in :func:`profit_curve`.

    Returns
    -------
    Bunch
        ``threshold`` (expected profit; ``inf`` when taking nobody is best),
        ``depth`` (share of the frequency taken), ``total_profit``,
        ``average_profit`` (over the whole population) and ``posterior_threshold``
        (the lowest event posterior taken, NaN without an event posterior).

    Examples
    --------
    >>> from dtdecide import DecisionMatrix, decide
    >>> from dtdecide.assess import best_threshold
    >>> m = DecisionMatrix({"mail": [9, -1]}, levels=[1, 0])
    >>> y, p = [1, 0, 1, 0, 0], [0.9, 0.8, 0.3, 0.2, 0.1]
    >>> b = best_threshold(y, p, m)
    >>> round(b.threshold, 6), round(b.total_profit, 6), round(b.depth, 6)
    (2.0, 17.0, 0.6)
    >>> res = decide([[q, 1 - q] for q in p], m, y=y, threshold=b.threshold)
    >>> round(float(res.summary["total_profit"]), 6)
    17.0
    """
    scored, idx = _score_y_score(y_true, y_score, matrix, costs, decision_costs,
                                 sample_weight, train_priors, event)
    scored.weight = None if sample_weight is None else np.asarray(sample_weight, dtype=float)
    return _best_threshold_scored(scored, event_idx=idx)


def _best_threshold_scored(scored, *, event_idx):
    arr = _chart_arrays(scored, event_idx=event_idx)
    k, cum_w, cum_p, cut = best_cut(arr.score, arr.weight, arr.profit)
    total_w = float(arr.weight.sum())
    post_thr = np.nan
    if arr.post is not None and k > 0:
        post_thr = float(arr.post[arr.score >= cut].min())
    return Bunch(
        threshold=cut,
        depth=cum_w / total_w,
        total_profit=cum_p,
        average_profit=cum_p / total_w,
        posterior_threshold=post_thr,
    )
