"""Leaf decision table: one row per leaf with its rule, counts, decision and profit."""

import math

import numpy as np
import pandas as pd

from ..decision import encode_target, prior_adjustment_weights, roi
from ..decision._validation import check_1d, check_sample_weight, check_seed, reference_index
from ._caserule import case_form, case_text, is_case_rule
from ._common import format_label, format_number, tree_view

__all__ = ["condition_text", "leaf_rule", "leaf_table"]


def condition_text(cond, precision=None):
    """English text of one merged :class:`~dtdecide.export._common.Condition`."""
    name = cond.name
    if cond.is_categorical:
        base = None
        if cond.categories:
            labels = ", ".join(format_label(lab) for lab in cond.categories)
            base = f"{name} in {{{labels}}}"
        if cond.has_missing:
            # unseen labels always follow the missing side; missing values are only
            # mentioned when training had some
            miss = f"{name} is missing or unseen" if cond.missing_seen else f"{name} is unseen"
            return miss if base is None else f"({base} or {miss})"
        return base if base is not None else f"{name} in {{}}"
    lo, hi = cond.lo, cond.hi
    if lo > -math.inf and hi < math.inf:
        base = f"{format_number(lo, precision)} < {name} <= {format_number(hi, precision)}"
    elif hi < math.inf:
        base = f"{name} <= {format_number(hi, precision)}"
    elif lo > -math.inf:
        base = f"{name} > {format_number(lo, precision)}"
    else:
        base = None
    if cond.has_missing and (cond.missing_seen or base is None):
        miss = f"{name} is missing"
        return miss if base is None else f"({base} or {miss})"
    return base if base is not None else f"{name} is not missing"


def leaf_rule(view, node, precision=None, joiner=" and "):
    """The full rule of ``node`` as one string (``"all cases"`` for the root)."""
    conds = view.conditions(node)
    if not conds:
        return "all cases"
    return joiner.join(condition_text(conds[j], precision) for j in sorted(conds))


def _confidence_columns(view, out, ep, d_idx, n_resamples, random_state):
    """``margin`` and bootstrap ``confidence`` of every leaf's decision."""
    if len(view.decisions) < 2:
        return
    # ``ep`` is in the user's sign (expected losses for a loss matrix): the margin is in
    # profit orientation, so never negative for the leaf's own decision
    out["margin"] = view.fitted.leaf_margin(np.asarray(ep, dtype=np.float64) * view.sign, d_idx)
    boot = getattr(view.estimator, "_leaf_confidence", None)
    if boot is not None and n_resamples:
        out["confidence"] = boot(view.leaves, n_resamples=n_resamples,
                                 random_state=random_state)


def _training_columns(view, out, n_resamples=200, random_state=0, precision=None):
    tree = view.tree
    leaves = view.leaves
    weight = np.asarray(tree.weighted_n_node_samples, dtype=np.float64)[leaves]
    if view.is_classifier:
        value = np.asarray(tree.value, dtype=np.float64)[leaves]
        for k, cls in enumerate(view.classes):
            out[f"count_{cls}"] = value[:, k]
        for k, cls in enumerate(view.classes):
            out[f"post_{cls}"] = view.posteriors[leaves, k]
    else:
        out["mean"] = view.mean[leaves]
        out["sd"] = view.sd[leaves]
    if not view.has_decisions:
        return
    sign = view.sign
    word = "loss" if sign < 0 else "profit"
    decisions = view.decisions
    d_idx = view.node_decision[leaves]
    cost_sum = getattr(tree, "cost_sum", None)
    has_costs = cost_sum is not None and getattr(view.matrix, "kind", None) == "revenue"
    if has_costs:
        cost_sum = np.asarray(cost_sum, dtype=np.float64)[leaves]
        with np.errstate(invalid="ignore", divide="ignore"):
            avg_cost = cost_sum / weight[:, None]
        for k, d in enumerate(decisions):
            out[f"cost_{d}"] = avg_cost[:, k]
    ep = view.node_expected[leaves]
    for k, d in enumerate(decisions):
        out[f"{view.ep_name}_{d}"] = ep[:, k]
    case_rule = is_case_rule(view)
    if case_rule:
        # each case decides with its own costs: the decision is a condition on them,
        # and the training profit is that of every case under its own decision
        form = case_form(view)
        out["decision"] = [case_text(view, form, n, precision or 4) for n in leaves]
        per_level = np.asarray(view.estimator._case_node_profit(tree), dtype=np.float64)
        per_level = per_level[leaves]
        if per_level.ndim == 1:
            total = per_level
            per_level = None
        else:
            total = per_level.sum(axis=1)
    else:
        out["decision"] = [decisions[i] for i in d_idx]
        out[view.ep_name] = ep[np.arange(len(leaves)), d_idx]
        _confidence_columns(view, out, ep, d_idx, n_resamples, random_state)
        if view.overrides:  # decisions set by hand: the tree's own choice and what it costs
            out["override"] = np.array([int(n) in view.overrides for n in leaves])
            out["tree_decision"] = [
                decisions[view.overrides.get(int(n), int(d))] for n, d in zip(leaves, d_idx)
            ]
            out["given_up"] = np.array([view.given_up(n) for n in leaves], dtype=np.float64)
    profit_sum = getattr(tree, "profit_sum", None)
    if profit_sum is None and not case_rule:
        return
    rows = np.arange(len(leaves))
    if not case_rule:
        profit_sum = np.asarray(profit_sum, dtype=np.float64)[leaves]
        per_level = None
        if profit_sum.ndim == 3:  # categorical: (leaf, level, decision)
            per_level = profit_sum[rows, :, d_idx]  # (n_leaves, T)
            total = per_level.sum(axis=1)
        else:
            total = profit_sum[rows, d_idx]
    with np.errstate(invalid="ignore", divide="ignore"):
        out[f"total_{word}"] = sign * total
        out[f"average_{word}"] = sign * total / weight
    if has_costs and not case_rule:
        ic = cost_sum[rows, d_idx]
        out["ROI"] = roi(total, ic)
    priors = getattr(view.matrix, "priors", None)
    if priors is not None and per_level is not None and view.is_classifier:
        value = np.asarray(tree.value, dtype=np.float64)
        freq = value[0]
        level_w = np.zeros(len(freq))
        ok = True
        for t in range(len(freq)):
            if freq[t] > 0:
                level_w[t] = float(priors[t]) / freq[t] * freq.sum()
            elif priors[t] > 0:
                ok = False
        with np.errstate(invalid="ignore", divide="ignore"):
            adj = per_level @ level_w if ok else np.full(len(leaves), np.nan)
            out[f"adjusted_total_{word}"] = sign * adj
            out[f"adjusted_average_{word}"] = sign * adj / (value[leaves] @ level_w)


def _validation_columns(view, out, X, y, costs, sample_weight):
    est = view.estimator
    leaves = view.leaves
    pos = np.full(view.tree.n_nodes, -1, dtype=np.intp)
    pos[leaves] = np.arange(leaves.size)
    leaf_of = np.asarray(est.apply(X))
    n = leaf_of.shape[0]
    index = reference_index(X)
    w = check_sample_weight(sample_weight, n, index=index)
    w = np.ones(n) if w is None else w
    row = pos[leaf_of]  # position of each case's leaf in the table
    n_leaves = len(leaves)
    out["valid_n"] = np.bincount(row, minlength=n_leaves).astype(np.int64)
    vw = np.bincount(row, weights=w, minlength=n_leaves)
    out["valid_weight"] = vw
    if y is not None:
        y_arr = check_1d(y, "y", n_samples=n, index=index)
        if view.is_classifier:
            unknown = pd.unique(pd.Series(y_arr, dtype=object)[~pd.Series(y_arr).isin(view.classes)])
            if len(unknown):
                raise ValueError(
                    f"y holds values that are not classes of the tree "
                    f"({view.classes.tolist()!r}): {list(unknown)[:5]!r}"
                )
            counts = {}
            for cls in view.classes:
                hit = np.asarray(y_arr == cls, dtype=bool)
                counts[cls] = np.bincount(row, weights=w * hit, minlength=n_leaves)
                out[f"valid_count_{cls}"] = counts[cls]
            with np.errstate(invalid="ignore", divide="ignore"):
                for cls in view.classes:
                    out[f"valid_post_{cls}"] = counts[cls] / vw
        else:
            yv = y_arr.astype(np.float64)
            s1 = np.bincount(row, weights=w * yv, minlength=n_leaves)
            s2 = np.bincount(row, weights=w * yv * yv, minlength=n_leaves)
            with np.errstate(invalid="ignore", divide="ignore"):
                mean = s1 / vw
                out["valid_mean"] = mean
                out["valid_sd"] = np.sqrt(np.clip(s2 / vw - mean**2, 0.0, None))
    if not view.has_decisions:
        return
    matrix = view.matrix
    word = "loss" if view.sign < 0 else "profit"
    has_costs = getattr(matrix, "kind", None) == "revenue" and bool(getattr(matrix, "costs", None))
    is_case_specific = bool(getattr(matrix, "is_case_specific", False))
    if costs is None and has_costs and isinstance(X, pd.DataFrame):
        vars_ = [c for c in matrix.cost_variables if c in X.columns]
        if vars_:
            costs = X[vars_]
    # The rule of ``decide``'s summary: a case with a missing cost (any decision's) is
    # left out of every cost and profit figure; valid_n_missing counts those cases.
    cons = None
    if (has_costs and (costs is not None or not matrix.cost_variables)) or (
        is_case_specific and (costs is not None or (y is not None and matrix.case_values is not None))
    ):
        cons = matrix.resolve(costs, n_samples=n)
    complete = np.ones(n, dtype=bool) if cons is None else ~cons.has_missing
    if cons is not None and (is_case_specific or matrix.cost_variables):
        out["valid_n_missing"] = np.bincount(row[~complete], minlength=n_leaves).astype(np.int64)
    if has_costs and cons is not None:
        case_costs = np.asarray(cons.case_costs, dtype=np.float64)
        for k, d in enumerate(view.decisions):
            num = np.bincount(row[complete], weights=(w * case_costs[:, k])[complete],
                              minlength=n_leaves)
            den = np.bincount(row[complete], weights=w[complete], minlength=n_leaves)
            with np.errstate(invalid="ignore", divide="ignore"):
                out[f"valid_cost_{d}"] = num / den
    if y is None:
        return
    # the figures of decide's summary, leaf by leaf (the same rule and arithmetic)
    result = est.decide(X, y=y, costs=costs, sample_weight=sample_weight)
    per_leaf = result.summary_by(pd.Categorical(leaf_of, categories=leaves))
    out[f"valid_total_{word}"] = per_leaf[f"total_{word}"].to_numpy()
    out[f"valid_average_{word}"] = per_leaf[f"average_{word}"].to_numpy()
    _valid_margin(view, out, cons, matrix, y_arr, w, row, complete,
                  has_costs or is_case_specific)
    if has_costs:
        out["valid_ROI"] = per_leaf["roi"].to_numpy()
    if getattr(matrix, "priors", None) is not None and view.is_classifier:
        out[f"valid_adjusted_total_{word}"] = per_leaf[f"adjusted_total_{word}"].to_numpy()
        out[f"valid_adjusted_average_{word}"] = (
            per_leaf[f"adjusted_average_{word}"].to_numpy())


def _valid_margin(view, out, cons, matrix, y_arr, w, row, good, needs_costs):
    """Validation average profit of the leaf's decision minus the best other decision's
    (cases weighted by their frequency times, with priors, the prior adjustment weight)."""
    if len(view.decisions) < 2:
        return
    if cons is None:
        if needs_costs or bool(getattr(matrix, "cost_variables", ())):
            return
        cons = matrix.resolve(None, n_samples=y_arr.shape[0])
    if matrix.is_interval:
        t = np.asarray(y_arr, dtype=np.float64)
    else:
        t = encode_target(y_arr, matrix.levels)
        if matrix.priors is not None and view.is_classifier:
            paw = prior_adjustment_weights(t[good], w[good], matrix.priors, matrix.n_levels)
            if paw is not None:
                w = w.copy()
                w[good] = w[good] * paw
    q = np.asarray(cons.q_actual(t), dtype=np.float64)  # (n, D) profit orientation
    n_leaves = len(view.leaves)
    den = np.bincount(row[good], weights=w[good], minlength=n_leaves)
    A = np.empty((n_leaves, q.shape[1]))
    for k in range(q.shape[1]):
        A[:, k] = np.bincount(row[good], weights=(w * q[:, k])[good], minlength=n_leaves)
    with np.errstate(invalid="ignore", divide="ignore"):
        A /= den[:, None]
    d_idx = np.asarray(view.node_decision)[view.leaves]
    rows = np.arange(n_leaves)
    other = A.copy()
    other[rows, d_idx] = -np.inf
    out["valid_margin"] = A[rows, d_idx] - other.max(axis=1)


def leaf_table(estimator, X=None, y=None, costs=None, sample_weight=None, *, precision=None,
               n_resamples=200, random_state=0):
    """One row per leaf: rule, counts, posteriors, costs, decision and profit.

    Training figures come from the statistics stored in the fitted tree; given
    validation data ``X`` (and ``y``), the same figures computed on it are added beside
    them in columns prefixed ``valid_``.

    Columns (``<c>`` a class, ``<d>`` a decision; ``EP``/``profit`` read ``EL``/``loss``
    for a loss matrix):

    - ``leaf`` (node id, as ``apply``), ``rule`` (full condition, with where missing and
      unseen values go), ``depth``, ``n`` (training rows), ``weight`` (their frequency sum);
    - classifier: ``count_<c>`` (weighted class counts) and ``post_<c>`` (posteriors);
      regressor: ``mean`` and ``sd`` of the target;
    - with a decision matrix: ``cost_<d>`` (average training cost of each decision, when
      the matrix has costs), ``EP_<d>`` (expected profit of each decision), ``decision``,
      ``EP`` (that of the chosen decision), ``total_profit`` and ``average_profit`` (the
      training profit of the leaf under its decision), ``ROI`` (revenue matrices: total
      profit / total investment, with the four cases of ``roi``) and, when the matrix has
      explicit priors, ``adjusted_total_profit`` and ``adjusted_average_profit`` (each
      class weighted by ``Paw(t) = Prior(t) / n_t * n``);
    - with at least two decisions, how sure each leaf is of its decision: ``margin``
      (expected profit per case of the leaf's decision minus that of the runner-up
      decision, in profit orientation, so never negative: for a loss matrix, how much
      less the decision loses) and ``confidence`` (the share of ``n_resamples``
      bootstrap resamples of the leaf's training cases in which the same decision stays
      best, seeded by ``random_state``; computed from the class counts and sums the
      tree stores: exact for constant
      consequences and unit weights, case costs held at their class averages; interval
      targets resample the leaf mean). A leaf with a small margin and a confidence near
      0.5 decides by a hair;
    - under ``decision_rule="case"`` each case decides with its own costs, so
      ``decision`` is the leaf's decision written as a condition on the case's cost
      variables (two decisions: a threshold such as ``"call when c <= 2.16, else
      skip"``; more: the decision with the largest of the expressions of the costs),
      ``EP`` and ``ROI`` are left out, ``EP_<d>`` and ``cost_<d>`` are at the leaf's
      average training costs, and the training profit columns sum every training case's
      profit under its own decision;
    - when some leaf decision was set by hand (``tree.set_decision``): ``override``
      (True on those leaves), ``tree_decision`` (the decision the tree itself takes) and
      ``given_up`` (the expected profit per case the override gives up; for a loss
      matrix the expected loss it adds; 0 on other leaves), right after ``EP``;
    - with ``X``: ``valid_n``, ``valid_weight`` and, when the cases' costs are at hand
      (``costs`` or cost columns in ``X``; always for constant costs), ``valid_cost_<d>``;
      with ``y`` also ``valid_count_<c>``/``valid_post_<c>`` (or ``valid_mean``/
      ``valid_sd``), ``valid_total_profit``, ``valid_average_profit``, ``valid_ROI`` and,
      with priors, ``valid_adjusted_total_profit``/``valid_adjusted_average_profit``, and
      ``valid_margin``: the validation average profit of the leaf's decision minus that of
      the best other decision (prior-weighted with priors; negative when the validation
      cases would rather take another decision; needs the cases' costs when the matrix
      has cost variables).
      When the matrix has cost variables (or case-specific consequences) and the cases'
      costs are at hand, ``valid_n_missing`` counts the leaf's validation rows with a
      missing cost. As in the summary of ``decide``, those rows are left out of the
      cost and profit figures (the rows of every leaf still count in ``valid_n``,
      ``valid_weight`` and the class counts), so the ``valid_total_profit`` of the
      leaves adds up to ``decide(X, y, costs).summary["total_profit"]``.

    Parameters
    ----------
    estimator : ProfitTreeClassifier or ProfitTreeRegressor
        A fitted tree.
    X : DataFrame or array-like, default=None
        Validation inputs.
    y : array-like, default=None
        Validation target (needs ``X``).
    costs : DataFrame or dict, default=None
        Cost columns of the validation cases (by default taken from ``X`` when it holds
        the matrix's cost variables).
    sample_weight : array-like, default=None
        Frequencies of the validation cases.
    precision : int or None, default=None
        Significant digits of thresholds in ``rule``; None writes them exactly.
    n_resamples : int, default=200
        Bootstrap resamples per leaf for ``confidence``; 0 leaves the column out.
    random_state : int, numpy Generator or RandomState, or None, default=0
        Seeds the resamples (the default gives the same table every time).

    Returns
    -------
    DataFrame
        One row per leaf in node-id order, with a RangeIndex.

    Examples
    --------
    >>> import pandas as pd
    >>> from dtdecide import DecisionMatrix, ProfitTreeClassifier
    >>> from dtdecide.export import leaf_table
    >>> X = pd.DataFrame({"age": [20.0, 25.0, 30.0, 35.0, 40.0, 45.0, 50.0, 55.0]})
    >>> m = DecisionMatrix({"ignore": [0, 0], "mail": [-1, 9]}, levels=["no", "yes"])
    >>> tree = ProfitTreeClassifier(decision_matrix=m, max_depth=1, min_samples_leaf=1,
    ...                             min_samples_split=2).fit(X, ["no"] * 4 + ["yes"] * 4)
    >>> table = leaf_table(tree)
    >>> table[["rule", "n", "decision", "EP", "total_profit"]].values.tolist()
    [['age <= 37.5', 4, 'ignore', 0.0, 0.0], ['age > 37.5', 4, 'mail', 9.0, 36.0]]
    """
    view = tree_view(estimator)
    if precision is not None and (isinstance(precision, (bool, np.bool_)) or not isinstance(
            precision, (int, np.integer)) or precision < 1):
        raise ValueError(
            f"precision must be a positive int (significant digits of the rule thresholds) "
            f"or None; got {precision!r}"
        )
    if isinstance(n_resamples, (bool, np.bool_)) or not isinstance(
            n_resamples, (int, np.integer)) or n_resamples < 0:
        raise ValueError(
            f"n_resamples must be an int >= 0 (bootstrap resamples per leaf for "
            f"'confidence'; 0 leaves the column out); got {n_resamples!r}"
        )
    if y is not None and X is None:
        raise ValueError("y needs X: pass the validation inputs X together with y")
    if (costs is not None or sample_weight is not None) and X is None:
        raise ValueError("costs and sample_weight describe validation cases; pass X too")
    if costs is not None and not view.has_decisions:
        raise ValueError(
            "costs are only used with a decision matrix; this tree was fitted without one"
        )
    leaves = view.leaves
    tree = view.tree
    out = {
        "leaf": leaves.astype(np.int64),
        "rule": [leaf_rule(view, n, precision) for n in leaves],
        "depth": np.asarray(tree.depth)[leaves].astype(np.int64),
        "n": np.asarray(tree.n_node_samples)[leaves].astype(np.int64),
        "weight": np.asarray(tree.weighted_n_node_samples, dtype=np.float64)[leaves],
    }
    check_seed(random_state)
    _training_columns(view, out, n_resamples, random_state, precision)
    if X is not None:
        _validation_columns(view, out, X, y, costs, sample_weight)
    return pd.DataFrame(out)
