"""The recommended tree: growing criterion, smoothing and size chosen on validation data.

:func:`fit_recommended` fits a few settings of one tree (the candidates), prunes each to
its best subtree on validation data (:class:`~dtdecide.tree.PruningStudy`), and keeps
the one whose pruned tree earns most there. The candidates follow what the
decision-quality benchmark measured (``docs/guide/quality.rst``):

* one decision per leaf (``decision_rule="leaf"``): the tree grown on the Gini of the
  classes with raw leaf figures, and the tree grown on the money of the decisions
  (``criterion="profit"``) with its leaf estimates smoothed toward the parent's
  (``posterior_smoothing="auto"``): which one earns more depends on the data (on
  cost rows that vary a lot the profit tree, on others the Gini tree);
* each case deciding from its leaf posterior and its own costs
  (``decision_rule="case"``): the tree grown on the Gini of the classes with
  ``posterior_smoothing="auto"``; only its size is chosen (choosing the smoothing
  strength among several on validation data did not pay over the benchmark's splits).

The candidates were chosen on the benchmark's experiment splits (seeds 10-14), and
the guide reports them on other splits (seeds 0-4).
"""

import numbers

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.model_selection import train_test_split
from sklearn.utils import check_random_state

from ._study import PruningStudy

__all__ = ["fit_recommended", "recommended_candidates"]

#: multiples of ``posterior_smoothing="auto"`` tried under the case rule: choosing
#: among 0, 1/4, 1 and 4 on validation data did not beat "auto" itself over the
#: benchmark's experiment splits (selection noise), so only "auto" is tried
CASE_SMOOTHING = (1.0,)


def recommended_candidates(estimator, decision_rules=None):
    """The parameter settings :func:`fit_recommended` compares for ``estimator``.

    Parameters
    ----------
    estimator : ProfitTreeClassifier or ProfitTreeRegressor
        The tree whose other parameters every candidate keeps.
    decision_rules : sequence of {"leaf", "case"}, default=None
        The decision rules to compare; None keeps the estimator's own rule.

    Returns
    -------
    list of dict
        Parameters to set on a clone of ``estimator``, in the order they are tried
        (earlier ones win ties). A ``posterior_smoothing`` given as ``("auto", k)``
        means ``k`` times the strength that ``"auto"`` resolves to.

    Examples
    --------
    >>> from dtdecide import ProfitTreeClassifier
    >>> from dtdecide.tree import recommended_candidates
    >>> for candidate in recommended_candidates(ProfitTreeClassifier()):
    ...     print(candidate)
    {'decision_rule': 'leaf', 'criterion': 'gini', 'posterior_smoothing': 0.0}
    {'decision_rule': 'leaf', 'criterion': 'profit', 'posterior_smoothing': ('auto', 1.0)}
    """
    params = estimator.get_params()
    own = params.get("decision_rule", "leaf")
    rules = (own,) if decision_rules is None else tuple(decision_rules)
    if not rules or any(r not in ("leaf", "case") for r in rules):
        raise ValueError(f"decision_rules must hold 'leaf' and/or 'case'; got {decision_rules!r}")
    if "decision_rule" not in params and rules != ("leaf",):
        raise ValueError(f"decision_rules: {type(estimator).__name__} decides per leaf only")
    classifier = "posterior_smoothing" in params
    out = []
    for rule in dict.fromkeys(rules):
        if not classifier:
            out += [{"decision_rule": rule, "criterion": c} for c in ("variance", "profit")]
        elif rule == "leaf":
            out += [{"decision_rule": rule, "criterion": "gini", "posterior_smoothing": 0.0},
                    {"decision_rule": rule, "criterion": "profit",
                     "posterior_smoothing": ("auto", 1.0)}]
        else:
            out += [{"decision_rule": rule, "criterion": "gini",
                     "posterior_smoothing": ("auto", k)} for k in CASE_SMOOTHING]
    if "decision_rule" not in params:
        out = [{k: v for k, v in c.items() if k != "decision_rule"} for c in out]
    return out


def _take(data, rows):
    if data is None:
        return None
    if isinstance(data, (pd.DataFrame, pd.Series)):
        return data.iloc[rows]
    return np.asarray(data)[rows]


def _holdout(X, y, costs, sample_weight, fraction, random_state, classifier):
    n = len(y)
    rows = np.arange(n)
    stratify = None
    if classifier:
        labels = np.asarray(y, dtype=object)
        _, counts = np.unique(labels.astype(str), return_counts=True)
        stratify = labels.astype(str) if counts.min() >= 2 else None
    fit_rows, valid_rows = train_test_split(rows, test_size=fraction, stratify=stratify,
                                            random_state=random_state)
    fit_rows, valid_rows = np.sort(fit_rows), np.sort(valid_rows)
    return ([_take(a, fit_rows) for a in (X, y, costs, sample_weight)],
            [_take(a, valid_rows) for a in (X, y, costs, sample_weight)])


def _resolve(candidate, auto_strength):
    value = candidate.get("posterior_smoothing")
    if isinstance(value, tuple):
        return dict(candidate, posterior_smoothing=float(value[1]) * auto_strength)
    return dict(candidate)


def _label(params):
    return ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                     for k, v in params.items())


def fit_recommended(estimator, X, y, costs=None, *, X_valid=None, y_valid=None,
                    costs_valid=None, sample_weight=None, sample_weight_valid=None,
                    decision_rules=None, candidates=None, validation_fraction=0.25,
                    random_state=None, return_results=False):
    """Fit the recommended tree: criterion, smoothing and size chosen on validation data.

    Every candidate setting (:func:`recommended_candidates`, or ``candidates``) is set
    on a clone of ``estimator`` and fitted on the training data; each fitted tree is
    pruned to the subtree of its profit-driven pruning sequence with the best
    validation measure (:class:`~dtdecide.tree.PruningStudy`, the average profit of the
    decisions for a tree with a decision matrix), and the pruned tree with the best
    validation measure of all is returned (the earlier candidate on ties).

    Without validation data, a ``validation_fraction`` of the training rows (stratified
    by class for a classifier) is held out to choose the setting and its number of
    leaves; the chosen setting is then refitted on all training rows and pruned to that
    number of leaves.

    Parameters
    ----------
    estimator : ProfitTreeClassifier or ProfitTreeRegressor
        The tree to tune (not fitted, not modified); every candidate keeps its other
        parameters (decision matrix, ``max_depth``, ``min_samples_leaf``, ...).
    X : DataFrame or array-like of shape (n_samples, n_features)
        Training inputs, as in the estimator's ``fit``.
    y : array-like of shape (n_samples,)
        Training target.
    costs : DataFrame, array or None, default=None
        Training costs, as in the estimator's ``fit``.
    X_valid : DataFrame or array-like, default=None
        Validation inputs, as in :meth:`PruningStudy.fit`; None holds out a share of
        the training rows.
    y_valid : array-like, default=None
        Validation target (with ``X_valid``).
    costs_valid : DataFrame, array or None, default=None
        Validation costs.
    sample_weight : array-like of shape (n_samples,), default=None
        Training frequencies.
    sample_weight_valid : array-like, default=None
        Validation frequencies.
    decision_rules : sequence of {"leaf", "case"}, default=None
        The decision rules to compare (None: the estimator's own). Comparing both is
        for costs known when deciding: the case rule decides with each case's costs.
    candidates : list of dict, default=None
        Parameter settings to compare instead of the recommended ones.
    validation_fraction : float, default=0.25
        Share of the training rows held out when no validation data is given.
    random_state : int, RandomState instance or None, default=None
        Seeds the hold-out split.
    return_results : bool, default=False
        Also return a DataFrame with one row per candidate: its parameters, the number
        of leaves of its pruned tree, the ``measure`` (``"profit"``: higher is better;
        ``"loss"`` for a loss or cost matrix: lower is better) and its value on the
        validation data (``valid_measure``), and ``chosen``.

    Returns
    -------
    estimator
        The chosen pruned tree (fitted).
    results : DataFrame
        Only with ``return_results=True``.

    Examples
    --------
    >>> from dtdecide import ProfitTreeClassifier
    >>> from dtdecide.datasets import load_bank_marketing
    >>> from dtdecide.tree import fit_recommended
    >>> train = load_bank_marketing(split="train")
    >>> valid = load_bank_marketing(split="validation")
    >>> tree = ProfitTreeClassifier(decision_matrix=train.decision_matrix, max_depth=6,
    ...                             random_state=0)
    >>> best, results = fit_recommended(
    ...     tree, train.data, train.target, costs=train.costs, X_valid=valid.data,
    ...     y_valid=valid.target, costs_valid=valid.costs, return_results=True)
    >>> columns = ["criterion", "posterior_smoothing", "n_leaves", "valid_measure", "chosen"]
    >>> results[columns].round(2)
      criterion  posterior_smoothing  n_leaves  valid_measure  chosen
    0      gini                  0.0        10           1.32   False
    1    profit                 85.5        14           1.35    True
    >>> best.criterion, best.get_n_leaves()
    ('profit', 14)
    """
    if not isinstance(validation_fraction, numbers.Real) or not 0 < validation_fraction < 1:
        raise ValueError(f"validation_fraction must be in (0, 1); got {validation_fraction!r}")
    if (X_valid is None) != (y_valid is None):
        raise ValueError("X_valid and y_valid must be given together")
    if candidates is None:
        candidates = recommended_candidates(estimator, decision_rules)
    else:
        candidates = [dict(c) for c in candidates]
        if not candidates:
            raise ValueError("candidates must hold at least one parameter setting")
    classifier = "posterior_smoothing" in estimator.get_params()
    held_out = X_valid is None
    fit_data = (X, y, costs, sample_weight)
    if held_out:
        fit_data, valid_data = _holdout(X, y, costs, sample_weight, validation_fraction,
                                        check_random_state(random_state).randint(2**31 - 1),
                                        classifier)
        X_valid, y_valid, costs_valid, sample_weight_valid = valid_data
    Xf, yf, cf, wf = fit_data
    auto_strength = None
    rows, fitted = [], []
    for candidate in candidates:
        if any(isinstance(v, tuple) for v in candidate.values()) and auto_strength is None:
            probe = clone(estimator).set_params(
                **{k: ("auto" if isinstance(v, tuple) else v) for k, v in candidate.items()})
            probe.fit(Xf, yf, sample_weight=wf, costs=cf)
            auto_strength = float(probe.posterior_smoothing_)
        params = _resolve(candidate, auto_strength)
        tree = clone(estimator).set_params(**params).fit(Xf, yf, sample_weight=wf, costs=cf)
        study = PruningStudy(tree).fit(X_valid, y_valid, costs_valid=costs_valid,
                                       sample_weight_valid=sample_weight_valid)
        score = float(study.results_["valid_measure"].iloc[study.selected_index_])
        fitted.append((study, params))
        rows.append({**params, "n_leaves": study.selected_n_leaves_, "measure": study.measure_,
                     "valid_measure": score, "_higher": study.higher_is_better_})
    results = pd.DataFrame(rows)
    higher = bool(results["_higher"].iloc[0])
    scores = results["valid_measure"].to_numpy()
    key = np.round(scores if higher else -scores, 12)
    k = int(np.flatnonzero(key == key.max())[0])
    results = results.drop(columns="_higher")
    results["chosen"] = np.arange(len(results)) == k
    study, params = fitted[k]
    best = study.best_estimator_
    if held_out:
        tree = clone(estimator).set_params(**params).fit(X, y, sample_weight=sample_weight,
                                                         costs=costs)
        best = PruningStudy(tree, method="n_leaves",
                            n_leaves=study.selected_n_leaves_).fit().best_estimator_
    if return_results:
        return best, results
    return best
