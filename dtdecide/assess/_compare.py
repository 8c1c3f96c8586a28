"""Model comparison: one row per model and data role."""

import numbers
import warnings

import numpy as np
import pandas as pd

from dtdecide.decision import DecisionMatrix

from ._kernels import cumulative_at_depths
from ._profit_curve import _chart_arrays
from ._scoring import event_code, score_cases

__all__ = ["ImplicitDoNothingWarning", "compare_models", "entry_decision_costs",
           "split_data"]

# statistics where smaller is better; everything else is maximised
_SMALLER_IS_BETTER = {
    "average_loss", "total_loss", "adjusted_average_loss", "adjusted_total_loss",
    "misclassification_rate", "ase",
}


class ImplicitDoNothingWarning(UserWarning):
    """Profit summaries of a matrix that leaves out an implicit do-nothing decision.

    With such a matrix every case takes one of the listed decisions; the summaries do
    not include doing nothing, so models should be compared on their profit charts
    (best cumulative profit) instead.

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from dtdecide import DecisionMatrix
    >>> from dtdecide.assess import ImplicitDoNothingWarning, compare_models
    >>> X = np.arange(8.0).reshape(-1, 1)
    >>> y = np.array([0, 0, 1, 0, 1, 1, 0, 1])
    >>> m = DecisionMatrix({"mail": [10, -1]}, levels=[1, 0])  # a single decision
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     table = compare_models({"logit": LogisticRegression().fit(X, y)},
    ...                            {"train": (X, y)}, m)
    >>> [w.category.__name__ for w in caught]
    ['ImplicitDoNothingWarning']
    """


def check_data(data, matrix):
    """The checks of ``data`` and ``matrix`` shared by ``compare_models`` and
    ``profit_curves``."""
    if not isinstance(data, dict) or not data:
        raise ValueError("data must be a non-empty dict {role: (X, y[, sample_weight])}")
    if matrix is not None and not isinstance(matrix, DecisionMatrix):
        raise TypeError(f"matrix must be a DecisionMatrix or None; got {type(matrix).__name__}")


def split_data(entry, role):
    """``(X, y, sample_weight, costs)`` from a data entry of ``compare_models``."""
    if isinstance(entry, dict):
        unknown = set(entry) - {"X", "y", "sample_weight", "costs", "decision_costs"}
        if unknown or "y" not in entry:
            raise ValueError(
                f"data[{role!r}] must be (X, y[, sample_weight]) or a dict with keys "
                f"'X', 'y' and optionally 'sample_weight', 'costs', 'decision_costs'; "
                f"got keys {sorted(entry)}"
            )
        return entry.get("X"), entry["y"], entry.get("sample_weight"), entry.get("costs")
    if isinstance(entry, (tuple, list)) and len(entry) in (2, 3):
        X, y, *rest = entry
        return X, y, (rest[0] if rest else None), None
    raise ValueError(
        f"data[{role!r}] must be (X, y), (X, y, sample_weight) or a dict; got "
        f"{type(entry).__name__}"
    )


def entry_decision_costs(entry, role, decision_costs):
    """Costs to decide with for one data role: the entry's own, else ``decision_costs``.

    Both at once is ambiguous and raises.
    """
    own = entry.get("decision_costs") if isinstance(entry, dict) else None
    if own is not None and decision_costs is not None:
        raise ValueError(
            f"decision_costs is given twice for data role {role!r}: as the keyword "
            f"decision_costs= and as data[{role!r}]['decision_costs']; give one"
        )
    return own if own is not None else decision_costs


def score_entry(name, model, role, entry, matrix, *, event, train_priors, decision_costs):
    """Score ``models[name]`` on ``data[role]`` of ``compare_models`` / ``profit_curves``.

    A dict model holds pre-scored posteriors per role. Returns ``(scored, event_idx,
    sample_weight)``.
    """
    X, y, w, costs = split_data(entry, role)
    if isinstance(model, dict):
        if role not in model:
            raise ValueError(
                f"models[{name!r}] holds pre-scored posteriors for roles "
                f"{sorted(model)}; data role {role!r} has none"
            )
        scores = model[role]
    else:
        scores = model
    m = matrix if matrix is not None else getattr(model, "decision_matrix_", None)
    idx = event_code(m, event) if m is not None else None
    scored = score_cases(scores, X, y, matrix, costs=costs, sample_weight=w,
                         train_priors=train_priors, event_idx=idx, name=f"models[{name!r}]",
                         decision_costs=entry_decision_costs(entry, role, decision_costs))
    return scored, idx, w


def _models_dict(models):
    if isinstance(models, dict):
        if not models:
            raise ValueError("models must not be empty")
        return {str(k): v for k, v in models.items()}
    if isinstance(models, (list, tuple)):
        if not models:
            raise ValueError("models must not be empty")
        out = {}
        for k, mdl in enumerate(models):
            name = type(mdl).__name__
            out[name if name not in out else f"{name}_{k}"] = mdl
        return out
    raise TypeError(
        "models must be a dict {name: model or {role: scores}} or a list of fitted models; "
        f"got {type(models).__name__}"
    )


def _fit_statistics(scored, weight, event_idx):
    """Misclassification, ASE, ROC AUC and KS (never prior-adjusted)."""
    from sklearn.metrics import roc_auc_score, roc_curve

    out = {}
    post = scored.post
    m = scored.matrix
    w = np.ones(scored.n) if weight is None else np.asarray(weight, dtype=float)
    if post is None:
        return out
    if m.is_interval:
        y = np.asarray(scored.y, dtype=float).reshape(-1)
        out["ase"] = float(np.dot(w, (y - post) ** 2) / w.sum())
        return out
    t = scored.t_idx
    T = m.n_levels
    onehot = np.zeros_like(post)
    onehot[np.arange(len(t)), t] = 1.0
    out["misclassification_rate"] = float(np.dot(w, np.argmax(post, axis=1) != t) / w.sum())
    out["ase"] = float(np.dot(w, ((onehot - post) ** 2).sum(axis=1)) / (T * w.sum()))
    if event_idx is not None and T == 2:
        is_event = t == event_idx
        pos = w > 0
        if is_event[pos].any() and (~is_event[pos]).any():
            out["roc_auc"] = float(roc_auc_score(is_event[pos], post[pos, event_idx],
                                                 sample_weight=w[pos]))
            fpr, tpr, _ = roc_curve(is_event[pos], post[pos, event_idx],
                                    sample_weight=w[pos])
            out["ks"] = float(np.max(tpr - fpr))
        else:
            out["roc_auc"] = out["ks"] = np.nan
    return out


def compare_models(models, data, matrix=None, *, depth=0.1, select_by=None,
                   select_role=None, train_priors=None, event=None,
                   decision_costs=None):
    """Compare models on several data sets: profit, fit statistics, lift and ROI.

    Parameters
    ----------
    models : dict or list
        ``{name: model}`` where a model is a fitted dtdecide tree, a fitted
        :class:`~dtdecide.DecisionEstimator`, any fitted scikit-learn classifier or
        regressor (used with ``matrix``), or pre-scored posteriors given per role as
        ``{role: DataFrame or array}`` (columns named by level; for an interval
        matrix, predictions). A list names the models by class.
    data : dict
        ``{role: (X, y)}``, ``{role: (X, y, sample_weight)}`` or ``{role: {"X": ...,
        "y": ..., "sample_weight": ..., "costs": ..., "decision_costs": ...}}``, e.g.
        roles ``"train"``, ``"validation"``, ``"test"``. ``X`` may be None for
        pre-scored models. ``costs`` are the actual costs; ``decision_costs`` those
        to decide with (see ``decision_costs`` below).
    matrix : DecisionMatrix, default=None
        Needed for scikit-learn models and pre-scored posteriors; a deciding model
        without it uses its own (with it, the model is re-decided under it).
    depth : float, default=0.1
        Depth (share of the ranked population) of the ``lift`` column.
    select_by : str, default=None
        Column that picks the best model on ``select_role``: by default
        ``average_profit`` (``average_loss`` for a loss matrix; the prior-adjusted
        version when the matrix has priors). Loss, misclassification and ASE are
        minimised, everything else maximised.
    select_role : str, default=None
        Role (a key of ``data``) whose rows choose the best model; None takes
        ``"validation"`` when ``data`` has it, else the last role in ``data``.
    train_priors : array-like, default=None
        Training proportions for scikit-learn models and pre-scored posteriors (to
        adjust their posteriors to the matrix priors).
    event : level, default=None
        Event level for ROC AUC, KS and lift (inferred for 0/1, -1/1, False/True).
    decision_costs : dict, Series or DataFrame, default=None
        Costs to decide with, for every role without its own ``"decision_costs"``
        (giving both for a role raises): typically
        :func:`~dtdecide.decision.mean_costs` of the training costs when the actual
        costs are known only after the action. Models that decide case by case
        (scikit-learn models, DecisionEstimator, pre-scored posteriors) then decide
        and rank with them, and every profit figure uses the actual ``costs``; a
        profit tree keeps its leaf decisions (taken from its training costs), so all
        models are judged on the same footing.

    Returns
    -------
    DataFrame
        One row per (model, role): ``frequency``; ``total_profit``,
        ``average_profit`` (or ``total_loss``/``average_loss``), ``adjusted_*`` when
        the matrix has priors; ``roi`` (revenue matrices); ``misclassification_rate``,
        ``ase`` (mean over cases and levels of the squared error; the Brier score for a
        binary target), ``roc_auc`` and ``ks`` (binary), ``lift`` (cumulative lift
        at ``depth``); ``best_cum_profit`` (the largest cumulative profit of the profit
        chart, with the implicit do-nothing) and ``selected`` (the chosen model's
        rows). ``attrs["best_model"]`` names the chosen model.

    Warns
    -----
    ImplicitDoNothingWarning
        When the matrix has a single decision: its summaries leave out the implicit
        do-nothing decision; compare with ``best_cum_profit`` (chosen by default then).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from dtdecide import DecisionMatrix
    >>> from dtdecide.assess import compare_models
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(600, 3))
    >>> y = (X[:, 0] + rng.normal(size=600) > 1).astype(int)
    >>> m = DecisionMatrix({"mail": [10, -1], "skip": [0, 0]}, levels=[1, 0])
    >>> data = {"train": (X[:400], y[:400]), "validation": (X[400:], y[400:])}
    >>> models = {"logit": LogisticRegression().fit(X[:400], y[:400]),
    ...           "tree": DecisionTreeClassifier(max_depth=2).fit(X[:400], y[:400])}
    >>> table = compare_models(models, data, m)
    >>> table[["model", "role", "average_profit", "roc_auc"]].shape
    (4, 4)
    >>> table.attrs["best_model"] in models
    True
    """
    models = _models_dict(models)
    check_data(data, matrix)
    if not isinstance(depth, numbers.Real) or not 0 < depth <= 1:
        raise ValueError(f"depth must be in (0, 1]; got {depth!r}")

    rows = []
    matrices = []
    for name, model in models.items():
        for role, entry in data.items():
            scored, idx, w = score_entry(name, model, role, entry, matrix, event=event,
                                         train_priors=train_priors,
                                         decision_costs=decision_costs)
            m = scored.matrix
            matrices.append(m)
            row = {"model": name, "role": role}
            s = scored.summary
            word = "loss" if m.sign < 0 else "profit"
            row["frequency"] = float(s["frequency"])
            for key in (f"total_{word}", f"average_{word}", f"adjusted_total_{word}",
                        f"adjusted_average_{word}", "roi"):
                if key in s.index:
                    row[key] = float(s[key])
            row.update(_fit_statistics(scored, w, idx))
            scored.weight = None if w is None else np.asarray(w, dtype=float)
            arr = _chart_arrays(scored, event_idx=idx)
            cols = [arr.profit] + ([arr.response] if arr.response is not None else [])
            if arr.response is not None:
                cum_w, cums, _, _ = cumulative_at_depths(
                    arr.score, arr.weight, cols, np.array([depth]))
                overall = float(np.dot(arr.weight, arr.response) / arr.weight.sum())
                row["lift"] = float(cums[1][0] / cum_w[0] / overall) if overall else np.nan
            order = np.argsort(-arr.score, kind="stable")
            ranked = np.cumsum((arr.weight * arr.profit)[order])
            # block ends only: tied scores are taken together
            s_sorted = arr.score[order]
            ends = np.r_[s_sorted[1:] != s_sorted[:-1], True]
            row["best_cum_profit"] = max(0.0, float(ranked[ends].max()))
            rows.append(row)

    table = pd.DataFrame(rows)
    m0 = matrices[0]
    word = "loss" if m0.sign < 0 else "profit"
    single = any(mm.n_decisions == 1 for mm in matrices)
    if select_by is None:
        if single:
            select_by = "best_cum_profit"
        elif f"adjusted_average_{word}" in table.columns:
            select_by = f"adjusted_average_{word}"
        else:
            select_by = f"average_{word}"
    if single:
        warnings.warn(
            "the decision matrix has a single decision, so the do-nothing decision is "
            "implicit: total/average profit and ROI count every case as taking that "
            "decision and must not be used to compare models; use best_cum_profit or "
            "the profit charts",
            ImplicitDoNothingWarning,
            stacklevel=2,
        )
    if select_by not in table.columns:
        raise ValueError(
            f"select_by must be a column of the comparison table {list(table.columns)}; "
            f"got {select_by!r}"
        )
    if select_role is None:
        role = "validation" if "validation" in data else list(data)[-1]
    elif select_role in data:
        role = select_role
    else:
        raise ValueError(
            f"select_role must be a role of data {list(data)!r} or None; got {select_role!r}"
        )
    part = table[table["role"] == role]
    vals = part[select_by].to_numpy(dtype=float)
    if np.all(np.isnan(vals)):
        best = None
    else:
        k = np.nanargmin(vals) if select_by in _SMALLER_IS_BETTER else np.nanargmax(vals)
        best = part["model"].iloc[int(k)]
    table["selected"] = table["model"] == best
    table.attrs["best_model"] = best
    table.attrs["select_by"] = select_by
    table.attrs["select_role"] = role
    return table
