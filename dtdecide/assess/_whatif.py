"""What-if analysis: the same fitted models under other matrices, costs or priors."""

import warnings

import numpy as np
import pandas as pd

from dtdecide.decision import DecisionMatrix

from ._compare import ImplicitDoNothingWarning, _models_dict
from ._profit_curve import _check_n_bins, curve_from_scored
from ._scoring import event_code, score_cases

__all__ = ["what_if", "what_if_curves"]


def _variants_dict(variants):
    if not isinstance(variants, dict) or not variants:
        raise ValueError("variants must be a non-empty dict {name: DecisionMatrix}")
    for key, m in variants.items():
        if not isinstance(m, DecisionMatrix):
            raise TypeError(
                f"variants[{key!r}] must be a DecisionMatrix (use matrix.replace(priors=...) "
                f"for other priors); got {type(m).__name__}"
            )
    return {str(k): v for k, v in variants.items()}


def _scored_variants(models, X, y, variants, *, costs, sample_weight, train_priors, event):
    for name, model in _models_dict(models).items():
        for vname, m in variants.items():
            idx = event_code(m, event)
            scored = score_cases(model, X, y, m, costs=costs, sample_weight=sample_weight,
                                 train_priors=train_priors, event_idx=idx,
                                 name=f"models[{name!r}]")
            yield name, vname, idx, scored


def what_if(models, X, y, variants, *, costs=None, sample_weight=None, baseline=None,
            train_priors=None):
    """Average profit and changed decisions of fitted models under matrix variants.

    Nothing is refitted: a dtdecide tree re-decides its leaves from the statistics it
    stored at fit (see :func:`redecide`; ordinal trees warn that their splits used the
    original matrix), a DecisionEstimator or scikit-learn model decides from the same
    posteriors with the other matrix.

    Parameters
    ----------
    models : dict or list
        ``{name: model}``: fitted trees, DecisionEstimators, scikit-learn models, or
        pre-scored posteriors for ``X`` (then ``X`` may be None).
    X : array-like or DataFrame
        Inputs.
    y : array-like
        Actual target.
    variants : dict
        ``{name: DecisionMatrix}``: other consequences, constant costs (in the matrix)
        or priors (``matrix.replace(priors=...)``), all with the same levels.
    costs : DataFrame or dict of arrays, default=None
        Cost-variable columns used by the variants.
    sample_weight : array-like, default=None
        Frequencies.
    baseline : str, default=None
        Variant whose decisions the others are compared with (default: the first).
    train_priors : array-like, default=None
        Training class proportions, needed for variants with priors when a model was
        fitted without them.

    Returns
    -------
    DataFrame
        One row per (variant, model): ``frequency``, ``total_profit`` and
        ``average_profit`` (or ``_loss``), ``average_expected_profit`` (or loss),
        the ``adjusted_`` figures with priors, ``roi`` with a revenue matrix and
        ``decisions_changed``: the frequency share of cases whose decision differs
        from the model's decision under ``baseline``.

    Warns
    -----
    ImplicitDoNothingWarning
        When a variant has a single decision: its summaries leave out doing nothing.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from dtdecide import DecisionMatrix
    >>> from dtdecide.assess import what_if
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 2))
    >>> y = (X[:, 0] + rng.normal(size=400) > 1).astype(int)
    >>> lr = LogisticRegression().fit(X, y)
    >>> variants = {
    ...     "cost 1": DecisionMatrix({"mail": [10, -1], "skip": [0, 0]}, levels=[1, 0]),
    ...     "cost 3": DecisionMatrix({"mail": [8, -3], "skip": [0, 0]}, levels=[1, 0]),
    ... }
    >>> table = what_if({"logit": lr}, X, y, variants)
    >>> table[["variant", "model"]].values.tolist()
    [['cost 1', 'logit'], ['cost 3', 'logit']]
    >>> float(table["decisions_changed"].iloc[0])
    0.0
    """
    variants = _variants_dict(variants)
    single = [k for k, m in variants.items() if m.n_decisions == 1]
    if single:
        warnings.warn(
            f"variants {single} have a single decision (an implicit do-nothing): their "
            "average profit counts every case as taking it; compare them on "
            "what_if_curves (best cumulative profit) instead",
            ImplicitDoNothingWarning,
            stacklevel=2,
        )
    if baseline is None:
        baseline = next(iter(variants))
    elif baseline not in variants:
        raise ValueError(f"baseline must name a variant {list(variants)}; got {baseline!r}")
    w = None if sample_weight is None else np.asarray(sample_weight, dtype=float)
    rows = []
    decisions = {}
    for name, vname, _, scored in _scored_variants(
            models, X, y, variants, costs=costs, sample_weight=sample_weight,
            train_priors=train_priors, event=None):
        s = scored.summary
        row = {"variant": vname, "model": name, "frequency": float(s["frequency"])}
        word = "loss" if scored.matrix.sign < 0 else "profit"
        for key in (f"total_{word}", f"average_{word}", f"average_expected_{word}",
                    f"adjusted_total_{word}", f"adjusted_average_{word}", "roi"):
            if key in s.index:
                row[key] = float(s[key])
        decisions[(vname, name)] = scored.decision
        rows.append(row)
    table = pd.DataFrame(rows)
    changed = []
    for row in rows:
        base = decisions[(baseline, row["model"])]
        this = decisions[(row["variant"], row["model"])]
        # a case without a decision (missing cost) under both variants has not changed
        both_missing = pd.isna(base) & pd.isna(this)
        diff = ((base != this) & ~both_missing).astype(float)
        weight = np.ones(diff.size) if w is None else w
        changed.append(float(np.dot(weight, diff) / weight.sum()))
    table["decisions_changed"] = changed
    table.attrs["baseline"] = baseline
    return table


def what_if_curves(models, X, y, variants, *, costs=None, sample_weight=None,
                   train_priors=None, event=None, n_bins=20):
    """Profit chart tables of fitted models under each matrix variant, stacked.

    Parameters
    ----------
    models : dict or list
        As in :func:`what_if`.
    X : array-like or DataFrame
        As in :func:`what_if`.
    y : array-like
        As in :func:`what_if`.
    variants : dict
        As in :func:`what_if`.
    costs : DataFrame or dict of arrays, default=None
        As in :func:`what_if`.
    sample_weight : array-like, default=None
        As in :func:`what_if`.
    train_priors : array-like, default=None
        As in :func:`what_if`.
    event : level, default=None
        Event level for lift and gains (see :func:`profit_curve`).
    n_bins : int, default=20
        Depths of each chart.

    Returns
    -------
    DataFrame
        The columns of :func:`profit_curve` with ``variant`` and ``model`` in front.
        Overlay the variants with
        ``plot_profit_curves(curves, overlay="variant", panel="model")``.

    Examples
    --------
    >>> import numpy as np
    >>> from dtdecide import DecisionMatrix
    >>> from dtdecide.assess import what_if_curves
    >>> y = np.array([1, 0, 1, 0, 0])
    >>> p = np.array([0.9, 0.8, 0.3, 0.2, 0.1])
    >>> variants = {"cheap": DecisionMatrix({"mail": [9, -1]}, levels=[1, 0]),
    ...             "dear": DecisionMatrix({"mail": [7, -3]}, levels=[1, 0])}
    >>> curves = what_if_curves({"A": p}, None, y, variants, n_bins=5)
    >>> curves.groupby("variant")["cum_profit"].max().to_dict()
    {'cheap': 17.0, 'dear': 11.0}
    """
    variants = _variants_dict(variants)
    n_bins = _check_n_bins(n_bins)
    parts = []
    for name, vname, idx, scored in _scored_variants(
            models, X, y, variants, costs=costs, sample_weight=sample_weight,
            train_priors=train_priors, event=event):
        curve = curve_from_scored(scored, sample_weight=sample_weight, event_idx=idx,
                                  n_bins=n_bins)
        curve.insert(0, "model", name)
        curve.insert(0, "variant", vname)
        parts.append(curve)
    return pd.concat(parts, ignore_index=True)
