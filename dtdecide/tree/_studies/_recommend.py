"""The recommended tree: growing criterion, smoothing and size chosen on held-out data.

:func:`fit_recommended` fits a few settings of one tree (the candidates) and keeps the
one whose pruned tree earns most on held-out rows: by default by 5-fold
cross-validation (every candidate scored on the same folds by
:class:`~dtdecide.tree.PruningStudy`, its best subtree's cross-validated measure), or on
one validation split (``cv=None``). The candidates and the choice follow what the
decision-quality benchmark measured over ten splits of four real data sets
(``docs/guide/quality.rst``):

* one decision per leaf (``decision_rule="leaf"``): the tree grown on the Gini of the
  classes and the tree grown on the money of the decisions (``criterion="profit"``),
  both with raw leaf figures; which one earns more depends on the data (on cost rows
  that vary a lot the profit tree, on others the Gini tree). The Gini tree, the first
  version's path, is kept unless the profit tree's cross-validated measure is better by
  more than one standard error of the difference, taken case by case over the same
  held-out cases (``se_rule``; a paired comparison);
* each case deciding from its leaf posterior and its own costs
  (``decision_rule="case"``): the tree grown on the Gini of the classes with no, the
  ``"auto"`` or four times the ``"auto"`` posterior smoothing, the best cross-validated
  one winning. The same trees pruned along their leaf decisions
  (``pruning_sequence="leaf"`` of :class:`~dtdecide.tree.PruningStudy`, as rpart
  prunes) can be added as candidates; over twenty splits they were level with these
  three, at twice the fold fits, so they are not among the defaults.

On one validation split (a few hundred cases of the rarer class on the smaller sets)
the choice among settings was noisy enough to lose to a fixed setting on some sets;
cross-validating over the training and validation rows together made it pay.

The candidates are compared on the same folds, so each held-out case has a measure
under every candidate (the tree of the fold that held it out, pruned where the
cross-validation chose). A candidate's margin over the first one is judged against the
standard error of their difference case by case, not against the spread of the cases'
measures: where two candidates decide most cases alike (the benchmark's bank and churn
data) that error is a half to a quarter of the cases' own; where they decide many
cases differently and the stakes are heavy-tailed it can be larger.
"""

import numbers

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.model_selection import RepeatedKFold, RepeatedStratifiedKFold, train_test_split
from sklearn.utils import check_random_state

from ...decision._validation import (
    check_1d,
    check_same_index,
    check_sample_weight,
    check_seed,
    reference_index,
)
from ...decision._validation import take_rows as _take
from .._algorithms._pruning import check_pruning_sequence
from .._backends._dask import is_dask_collection
from .._estimator._classes import ProfitTreeClassifier, ProfitTreeRegressor
from .._structure._encode import n_samples_of
from ._study import PruningStudy, is_splitter

__all__ = ["fit_recommended", "recommended_candidates"]

#: multiples of ``posterior_smoothing="auto"`` tried under the case rule
CASE_SMOOTHING = (0.0, 1.0, 4.0)

#: the standard errors of the cross-validated choice, per decision rule
#: (``se_rule=None``): under the leaf rule the Gini tree with raw leaf figures (the
#: first candidate) is kept unless another setting beats it by more than one standard
#: error of the paired difference; under the case rule the best cross-validated
#: smoothing strength wins
SE_RULE = {"leaf": 1.0, "case": 0.0}


def recommended_candidates(estimator, decision_rules=None, guide_model=None):
    """The parameter settings :func:`fit_recommended` compares for ``estimator``.

    Parameters
    ----------
    estimator : ProfitTreeClassifier or ProfitTreeRegressor
        The tree whose other parameters every candidate keeps.
    decision_rules : sequence of {"leaf", "case"}, default=None
        The decision rules to compare; None keeps the estimator's own rule.
    guide_model : classifier or None, default=None
        With a classifier: a third leaf-rule candidate, the tree grown on the money of
        the decisions as the guide's cross-fitted posteriors expect it
        (``criterion="profit"`` with this ``guide_model``; see
        :class:`~dtdecide.ProfitTreeClassifier`). None: the estimator's own
        ``guide_model``, if it has one (the other candidates then set
        ``guide_model=None``). Costs the guide's cross-fitting in every fold; the
        decision-quality guide measures it (``docs/guide/quality.rst``).

    Returns
    -------
    list of dict
        Parameters to set on a clone of ``estimator``, in the order they are tried
        (earlier ones win ties). A ``posterior_smoothing`` given as ``("auto", k)``
        means ``k`` times the strength that ``"auto"`` resolves to. The key
        ``pruning_sequence`` is not an estimator parameter: it is passed to
        :class:`~dtdecide.tree.PruningStudy` (``"leaf"``: the case-rule tree pruned
        along its leaf decisions); a candidate without it prunes along its rule.

    Examples
    --------
    >>> from dtdecide import ProfitTreeClassifier
    >>> from dtdecide.tree import recommended_candidates
    >>> for candidate in recommended_candidates(ProfitTreeClassifier()):
    ...     print(candidate)
    {'decision_rule': 'leaf', 'criterion': 'gini', 'posterior_smoothing': 0.0}
    {'decision_rule': 'leaf', 'criterion': 'profit', 'posterior_smoothing': 0.0}
    >>> from sklearn.ensemble import HistGradientBoostingClassifier
    >>> guided = recommended_candidates(ProfitTreeClassifier(),
    ...                                 guide_model=HistGradientBoostingClassifier())
    >>> print(guided[-1])
    {'decision_rule': 'leaf', 'criterion': 'profit', 'posterior_smoothing': 0.0, 'guide_model': HistGradientBoostingClassifier()}
    """
    if not isinstance(estimator, (ProfitTreeClassifier, ProfitTreeRegressor)):
        raise TypeError(
            "estimator must be a ProfitTreeClassifier or ProfitTreeRegressor instance; got "
            + (f"the class {estimator.__name__}" if isinstance(estimator, type)
               else type(estimator).__name__))
    params = estimator.get_params()
    own = params.get("decision_rule", "leaf")
    if decision_rules is not None and (
            isinstance(decision_rules, (str, bytes, set, frozenset, dict))
            or not np.iterable(decision_rules)):
        raise TypeError("decision_rules must be a list of 'leaf' and/or 'case' (in the "
                        f"order they are tried); got {decision_rules!r}"
                        + (f" (write [{decision_rules!r}])"
                           if decision_rules in ("leaf", "case") else ""))
    rules = (own,) if decision_rules is None else tuple(decision_rules)
    if not rules or any(r not in ("leaf", "case") for r in rules):
        raise ValueError(f"decision_rules must hold 'leaf' and/or 'case'; got {decision_rules!r}")
    if "decision_rule" not in params and rules != ("leaf",):
        raise ValueError(f"decision_rules: {type(estimator).__name__} decides per leaf only")
    classifier = "posterior_smoothing" in params
    own_guide = params.get("guide_model")  # a guided tree to tune: its guide
    if guide_model is None:
        guide_model = own_guide
    if guide_model is not None and (isinstance(guide_model, type) or not (
            hasattr(guide_model, "fit") and hasattr(guide_model, "predict_proba"))):
        raise TypeError(
            "guide_model must be a classifier instance with fit and predict_proba (e.g. "
            "HistGradientBoostingClassifier()); got "
            + (f"the class {guide_model.__name__}: instantiate it"
               if isinstance(guide_model, type) else repr(guide_model)))
    if guide_model is not None and not ("leaf" in rules and "guide_model" in params):
        raise ValueError(
            "guide_model adds a guided candidate under the leaf rule of a "
            f"ProfitTreeClassifier; got {type(estimator).__name__} with decision rules "
            f"{list(rules)!r}")
    out = []
    for rule in dict.fromkeys(rules):
        if not classifier:
            out += [{"decision_rule": rule, "criterion": c} for c in ("variance", "profit")]
        elif rule == "leaf":
            out += [{"decision_rule": rule, "criterion": c, "posterior_smoothing": 0.0}
                    for c in ("gini", "profit")]
            if guide_model is not None:
                out.append({"decision_rule": rule, "criterion": "profit",
                            "posterior_smoothing": 0.0, "guide_model": guide_model})
        else:
            out += [{"decision_rule": rule, "criterion": "gini",
                     "posterior_smoothing": ("auto", k) if k else 0.0}
                    for k in CASE_SMOOTHING]
    if own_guide is not None:  # the other candidates grow without it
        out = [{**c, "guide_model": c.get("guide_model")} for c in out]
    if "decision_rule" not in params:
        out = [{k: v for k, v in c.items() if k != "decision_rule"} for c in out]
    return out


def _check_estimator(estimator, candidates):
    """A profit tree (fitted or not); with the recommended candidates, a decision
    matrix (they compare the profit of the decisions)."""
    if not isinstance(estimator, (ProfitTreeClassifier, ProfitTreeRegressor)):
        raise TypeError(
            "estimator must be a ProfitTreeClassifier or ProfitTreeRegressor; got "
            f"{type(estimator).__name__}"
        )
    if candidates is None and estimator.get_params()["decision_matrix"] is None:
        raise ValueError(
            "estimator has decision_matrix=None: the recommended candidates compare the "
            "profit of the decisions (criterion='profit' among them) and need a "
            "decision_matrix; pass one, or your own candidates="
        )


def _check_candidates(estimator, candidates):
    """``candidates`` as a list of dicts of known parameters (or ``pruning_sequence``)."""
    if isinstance(candidates, (str, bytes, dict)) or not hasattr(candidates, "__iter__"):
        raise TypeError(
            "candidates must be a list of dicts of parameters; got "
            f"{type(candidates).__name__}"
        )
    known = set(estimator.get_params(deep=False)) | {"pruning_sequence"}
    out = []
    for k, c in enumerate(candidates):
        if not isinstance(c, dict):
            raise TypeError(
                f"candidates[{k}] must be a dict of parameters (e.g. {{'criterion': "
                f"'profit'}}); got {c!r}"
            )
        unknown = sorted(set(c) - known, key=str)
        if unknown:
            raise ValueError(
                f"candidates[{k}]: {unknown!r} are not parameters of "
                f"{type(estimator).__name__}; expected among {sorted(known)!r}"
            )
        smoothing = c.get("posterior_smoothing")
        if isinstance(smoothing, tuple) and not (
                len(smoothing) == 2 and smoothing[0] == "auto"
                and isinstance(smoothing[1], numbers.Real)
                and not isinstance(smoothing[1], bool)
                and np.isfinite(smoothing[1]) and smoothing[1] >= 0):
            raise ValueError(
                f"candidates[{k}]['posterior_smoothing']: a tuple must be ('auto', k), k "
                f"times the strength 'auto' resolves to (a number >= 0); got {smoothing!r}")
        out.append(dict(c))
    if not out:
        raise ValueError("candidates must hold at least one parameter setting")
    return out


def _check_rows(X, y, costs, sample_weight, suffix):
    """One set of rows (``suffix`` "" or "_valid"): ``y`` and ``sample_weight`` one value a
    row of ``X``, every pandas input indexed as ``X`` is."""
    n = n_samples_of(X)
    index = reference_index(X)
    check_1d(y, f"y{suffix}", n_samples=n, index=index, reference=f"X{suffix}")
    check_same_index(costs, index, f"costs{suffix}", reference=f"X{suffix}")
    columns = costs.items() if isinstance(costs, dict) else [(None, costs)]
    for key, values in columns:  # per-case costs: one entry a row (scalars aside)
        if values is None or np.ndim(values) == 0:
            continue
        if len(values) != n:
            name = f"costs{suffix}" + ("" if key is None else f"[{key!r}]")
            raise ValueError(f"{name} must have one entry per case ({n}); got {len(values)}")
    check_sample_weight(sample_weight, n, name=f"sample_weight{suffix}", index=index,
                        reference=f"X{suffix}")


def _holdout(X, y, costs, sample_weight, fraction, random_state, classifier):
    n = len(y)
    rows = np.arange(n)
    stratify = None
    if classifier:
        labels = np.asarray(y, dtype=object)
        _, counts = np.unique(labels.astype(str), return_counts=True)
        stratify = labels.astype(str) if counts.min() >= 2 else None
    try:
        fit_rows, valid_rows = train_test_split(rows, test_size=fraction, stratify=stratify,
                                                random_state=random_state)
    except ValueError as exc:
        raise ValueError(f"validation_fraction={fraction} cannot hold out a validation "
                         f"part of the {n} training rows: {exc}") from exc
    fit_rows, valid_rows = np.sort(fit_rows), np.sort(valid_rows)
    return ([_take(a, fit_rows) for a in (X, y, costs, sample_weight)],
            [_take(a, valid_rows) for a in (X, y, costs, sample_weight)])


def _sequence(params):
    """``params`` without ``pruning_sequence`` (a :class:`PruningStudy` setting, not an
    estimator parameter), and that sequence (``"rule"`` when not given)."""
    params = dict(params)
    return params, check_pruning_sequence(params.pop("pruning_sequence", "rule"))


def _sequence_column(results):
    """The results' ``pruning_sequence`` (when some candidate gives one) filled with
    ``"rule"`` for the candidates that prune along their decision rule."""
    if "pruning_sequence" in results:
        results["pruning_sequence"] = results["pruning_sequence"].fillna("rule")
    return results


def _grow(estimator, params, data):
    """A clone of ``estimator`` with ``params``, fitted on ``data`` (``(X, y, costs,
    sample_weight)``)."""
    X, y, costs, sample_weight = data
    return clone(estimator).set_params(**params).fit(X, y, sample_weight=sample_weight,
                                                      costs=costs)


class _Fits:
    """Trees fitted once per estimator setting: candidates that differ only in their
    ``pruning_sequence`` prune the same tree."""

    def __init__(self, estimator, data):
        self.estimator, self.data, self.trees = estimator, data, {}

    def __call__(self, params):
        key = repr(sorted(params.items()))
        if key not in self.trees:
            self.trees[key] = _grow(self.estimator, params, self.data)
        return self.trees[key]


def _resolve(candidate, auto):
    """``candidate`` with ``("auto", k)`` replaced by ``k`` times ``auto(candidate)``."""
    value = candidate.get("posterior_smoothing")
    if isinstance(value, tuple):
        return dict(candidate, posterior_smoothing=float(value[1]) * auto(candidate))
    return dict(candidate)


_VALIDATION_FRACTION = 0.25
"""fit_recommended's default share of held-out training rows."""


def _check_settings(estimator, candidates, random_state, return_results,
                    validation_fraction, X_valid, y_valid, cv, costs_valid=None,
                    sample_weight_valid=None):
    """The settings of :func:`fit_recommended` checked before any rows are read: the
    estimator (and its candidates), ``random_state``, ``return_results``,
    ``validation_fraction``, validation data given as a pair, and ``cv`` (None, an
    integer of at least 2 or a splitter); in that order. Then what would be ignored:
    validation costs or frequencies without ``X_valid``, and a ``validation_fraction``
    other than its default where no rows are held out (``cv`` or ``X_valid`` given)."""
    _check_estimator(estimator, candidates)
    check_seed(random_state)
    if not isinstance(return_results, (bool, np.bool_)):
        raise TypeError(f"return_results must be True or False; got {return_results!r}")
    if not isinstance(validation_fraction, numbers.Real) or not 0 < validation_fraction < 1:
        raise ValueError(f"validation_fraction must be in (0, 1); got {validation_fraction!r}")
    if (X_valid is None) != (y_valid is None):
        raise ValueError("X_valid and y_valid must be given together")
    if cv is not None and not is_splitter(cv) and (
            isinstance(cv, bool) or not isinstance(cv, numbers.Integral) or cv < 2):
        raise ValueError(
            f"cv must be None, an integer >= 2 or a splitter with split(); got {cv!r}")
    unused = [name for name, v in (("costs_valid", costs_valid),
                                   ("sample_weight_valid", sample_weight_valid))
              if v is not None and X_valid is None]
    if unused:
        raise ValueError(f"{unused[0]} is given without X_valid and y_valid: it describes "
                         "validation rows; give them too, or leave it out")
    if validation_fraction != _VALIDATION_FRACTION and (cv is not None or
                                                        X_valid is not None):
        raise ValueError(
            f"validation_fraction={validation_fraction!r} holds out training rows only with "
            f"cv=None and no X_valid; with {'X_valid' if X_valid is not None else f'cv={cv!r}'}"
            " it would be ignored: leave it out, or pass cv=None")


def _check_data(train, valid):
    """The training rows (``train``, ``(X, y, costs, sample_weight)``) and the
    validation rows (``valid``, or None), each set checked as one before the sets are
    split or joined (:func:`_check_rows`); the training set must have rows. Dask
    collections are checked where they are read."""
    X = train[0]
    if is_dask_collection(X):
        return
    if n_samples_of(X) == 0:
        raise ValueError("X has no rows: fit_recommended needs training cases")
    _check_rows(*train, "")
    if valid is not None:
        _check_rows(*valid, "_valid")


def _check_cv_options(se_rule, cv_repeats, cv):
    """``se_rule`` must be None or a non-negative number, ``cv_repeats`` a positive
    integer, and more than one repeat needs an integer ``cv`` (the number of folds)."""
    if se_rule is not None and (isinstance(se_rule, bool)
                                or not isinstance(se_rule, numbers.Real)
                                or not np.isfinite(se_rule) or se_rule < 0):
        raise ValueError(f"se_rule must be None or a non-negative number; got {se_rule!r}")
    if (isinstance(cv_repeats, bool) or not isinstance(cv_repeats, numbers.Integral)
            or cv_repeats < 1):
        raise ValueError(f"cv_repeats must be an integer >= 1; got {cv_repeats!r}")
    if cv_repeats > 1 and (cv is None or is_splitter(cv)):
        raise ValueError(f"cv_repeats={cv_repeats} needs an integer cv (the number of folds); "
                         f"got cv={cv!r}")


def _candidate_list(estimator, candidates, decision_rules, guide_model):
    """The candidate settings: the recommended ones (:func:`recommended_candidates`,
    ``guide_model`` adding one) or the checked ``candidates`` (then ``guide_model`` is
    refused: it belongs in one of them). Every candidate's pruning sequence is checked
    here, before any fit."""
    if candidates is None:
        candidates = recommended_candidates(estimator, decision_rules, guide_model)
    elif guide_model is not None:
        raise ValueError("guide_model adds a candidate to the recommended ones; with your "
                         "own candidates, give one of them the guide_model instead")
    else:
        candidates = _check_candidates(estimator, candidates)
    for c in candidates:
        _sequence(c)  # a bad pruning_sequence fails before any fit
    return candidates


def _fit_validated(estimator, candidates, train, valid, validation_fraction, random_state,
                   return_results):
    """fit_recommended with ``cv=None``: every candidate grown on the training rows and
    pruned to its best subtree on the validation rows, the best validation measure
    winning (the earlier candidate on ties). Without validation rows (``valid`` None) a
    ``validation_fraction`` of the training rows (stratified by class for a classifier)
    is held out to choose, and the chosen setting is refitted on all the training rows
    and pruned to the chosen number of leaves."""
    classifier = "posterior_smoothing" in estimator.get_params()
    held_out = valid is None
    fit_data = train
    if held_out:
        fit_data, valid = _holdout(*train, validation_fraction,
                                   check_random_state(random_state).randint(2**31 - 1),
                                   classifier)
    X_valid, y_valid, costs_valid, sample_weight_valid = valid
    auto = _AutoStrength(estimator, fit_data)
    fits = _Fits(estimator, fit_data)
    rows, fitted = [], []
    for candidate in candidates:
        params = _resolve(candidate, auto)
        tree_params, sequence = _sequence(params)
        study = PruningStudy(fits(tree_params), pruning_sequence=sequence).fit(
            X_valid, y_valid, costs_valid=costs_valid,
            sample_weight_valid=sample_weight_valid)
        score = float(study.results_["valid_measure"].iloc[study.selected_index_])
        fitted.append((study, params))
        rows.append({**params, "n_leaves": study.selected_n_leaves_, "measure": study.measure_,
                     "valid_measure": score, "_higher": study.higher_is_better_})
    results = _sequence_column(pd.DataFrame(rows))
    k = _choose(results["valid_measure"].to_numpy(), None, bool(results["_higher"].iloc[0]),
                0.0)
    results = results.drop(columns="_higher")
    results["chosen"] = np.arange(len(results)) == k
    study, params = fitted[k]
    best = study.best_estimator_
    if held_out:
        tree_params, sequence = _sequence(params)
        tree = _grow(estimator, tree_params, train)
        best = PruningStudy(tree, method="n_leaves", n_leaves=study.selected_n_leaves_,
                            pruning_sequence=sequence).fit().best_estimator_
    if return_results:
        return best, results
    return best


def fit_recommended(estimator, X, y, costs=None, *, X_valid=None, y_valid=None,
                    costs_valid=None, sample_weight=None, sample_weight_valid=None,
                    decision_rules=None, candidates=None,
                    validation_fraction=_VALIDATION_FRACTION,
                    cv=5, cv_repeats=1, se_rule=None, guide_model=None, random_state=None,
                    return_results=False):
    """Fit the recommended tree: criterion, smoothing and size chosen on held-out data.

    Every candidate setting (:func:`recommended_candidates`, or ``candidates``) is set
    on a clone of ``estimator`` and compared with the others on rows it was not grown
    on, by the measure of :class:`~dtdecide.tree.PruningStudy` (the average profit of
    the decisions for a tree with a decision matrix) at its best subtree.

    By default (``cv=5``) the comparison is a k-fold cross-validation over the
    training rows and the validation rows together, on the same folds for every
    candidate: each candidate is grown on those rows, and its pruning sequence is
    scored by the trees grown on the other folds
    (:class:`~dtdecide.tree.PruningStudy` with ``cv``). Within a decision rule, the
    first candidate of the rule is kept unless another one's cross-validated measure
    beats it by more than ``se_rule`` standard errors of their paired difference (each
    held-out case's measure under the one minus under the other, on the same folds;
    the best such candidate wins); between the rules, the better measure. With validation data the chosen
    setting is then grown on the training rows and pruned to its best validation
    subtree, as without ``cv``; without validation data the tree grown on all the
    training rows is pruned to the subtree the cross-validation chose.

    With ``cv=None`` each candidate is grown on the training rows and pruned to its
    best validation subtree, and the best validation measure wins (the earlier
    candidate on ties). Without validation data, a ``validation_fraction`` of the
    training rows (stratified by class for a classifier) is then held out to choose
    the setting and its number of leaves; the chosen setting is refitted on all
    training rows and pruned to that number of leaves.

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
        Parameter settings to compare instead of the recommended ones. A setting may
        hold ``pruning_sequence`` (``"rule"`` or ``"leaf"``), the order its tree is
        pruned in (:class:`~dtdecide.tree.PruningStudy`); it is not set on the
        estimator.
    validation_fraction : float, default=0.25
        Share of the training rows held out when no validation data is given and
        ``cv`` is None.
    cv : int, cross-validation splitter or None, default=5
        Folds of the cross-validated comparison (stratified by class for a
        classifier); None compares the candidates on one validation split.
    cv_repeats : int, default=1
        With an integer ``cv``: repeat the k-fold cross-validation this many times on
        new random folds (every candidate on the same ones) and compare the candidates
        by their measure over all the repeats, each held-out case's measure averaged
        over the repeats in its paired difference (a case counts once in the standard
        errors). Costs ``cv_repeats`` times the fold fits; a cross-validation splitter
        as ``cv`` already fixes its folds (leave 1). Three repeats did not choose
        better than one over twenty splits of the benchmark's real data sets
        (``docs/guide/quality.rst``).
    se_rule : float or None, default=None
        Standard errors of the paired difference by which a candidate must beat the
        first candidate of its decision rule (with ``cv``). None is 1 among the
        leaf-rule candidates (the first one, the tree grown on the Gini of the classes,
        is kept unless another one is better by more than a standard error) and 0 among
        the case-rule candidates (the best cross-validated measure wins).
    guide_model : classifier or None, default=None
        A scikit-learn classifier (e.g.
        :class:`~sklearn.ensemble.HistGradientBoostingClassifier`) whose cross-fitted
        posteriors guide a third leaf-rule candidate's split search
        (:func:`recommended_candidates`); compared with the other two like any
        candidate. Not with ``candidates`` (put the guide in a candidate instead).
    random_state : int, RandomState instance or None, default=None
        Seeds the folds or the hold-out split.
    return_results : bool, default=False
        Also return a DataFrame with one row per candidate: its parameters, the number
        of leaves of its pruned tree, the ``measure`` (``"profit"``: higher is better;
        ``"loss"`` for a loss or cost matrix: lower is better), its cross-validated
        value and standard error (``cv_measure``, ``cv_se``) and the paired difference
        of its held-out cases' measure to the first candidate of its decision rule with
        its standard error (``paired_diff``, ``paired_se``), or its value on the
        validation data (``valid_measure``; with ``cv`` and validation data, of the
        chosen candidate only), and ``chosen``.

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
    ...     y_valid=valid.target, costs_valid=valid.costs, return_results=True,
    ...     random_state=0)
    >>> columns = ["criterion", "n_leaves", "cv_measure", "cv_se", "paired_diff",
    ...            "paired_se", "chosen"]
    >>> results[columns].round(3)
      criterion  n_leaves  cv_measure  cv_se  paired_diff  paired_se  chosen
    0      gini        10       1.298  0.042        0.000       0.00    True
    1    profit        18       1.312  0.045        0.013       0.02   False
    >>> best.criterion, best.get_n_leaves()
    ('gini', 10)

    The profit tree's cross-validated average profit is higher by 0.013 per client, less
    than one standard error of the difference case by case (0.020, less than half the
    0.045 the clients' profits vary by), so the Gini tree is kept (``se_rule``); on one
    validation split (``cv=None``) the profit tree wins:

    >>> best = fit_recommended(tree, train.data, train.target, costs=train.costs,
    ...                        X_valid=valid.data, y_valid=valid.target,
    ...                        costs_valid=valid.costs, cv=None)
    >>> best.criterion, best.get_n_leaves()
    ('profit', 17)
    """
    _check_settings(estimator, candidates, random_state, return_results,
                    validation_fraction, X_valid, y_valid, cv, costs_valid,
                    sample_weight_valid)
    train = (X, y, costs, sample_weight)
    valid = None if X_valid is None else (X_valid, y_valid, costs_valid, sample_weight_valid)
    _check_data(train, valid)
    _check_cv_options(se_rule, cv_repeats, cv)
    candidates = _candidate_list(estimator, candidates, decision_rules, guide_model)
    if cv is not None:
        return _fit_cross_validated(estimator, candidates, train, valid, cv,
                                    SE_RULE if se_rule is None else float(se_rule),
                                    random_state, return_results, int(cv_repeats))
    return _fit_validated(estimator, candidates, train, valid, validation_fraction,
                          random_state, return_results)


class _AutoStrength:
    """The strength ``posterior_smoothing="auto"`` resolves to on some rows (fitted once,
    when a candidate first asks for it)."""

    def __init__(self, estimator, data):
        self.estimator, self.data, self.value = estimator, data, None

    def __call__(self, candidate):
        if self.value is None:
            params, _ = _sequence(candidate)
            probe = _grow(self.estimator, {k: ("auto" if isinstance(v, tuple) else v)
                                           for k, v in params.items()}, self.data)
            self.value = float(probe.posterior_smoothing_)
        return self.value


def _paired(oof, rules):
    """Per candidate: the mean and the standard error of its held-out cases' measure
    minus that of the first candidate of its decision rule, case by case on the same
    folds (the measure's own orientation: the difference of the ``cv_measure``); NaN
    where a candidate has no out-of-fold values."""
    n = len(oof)
    diff, se = np.full(n, np.nan), np.full(n, np.nan)
    rules = np.asarray(rules, dtype=object)
    for rule in dict.fromkeys(rules.tolist()):
        idx = np.flatnonzero(rules == rule)
        ref = oof[idx[0]]
        for j in idx:
            if oof[j] is None or ref is None:
                continue
            value, weight, count = oof[j]
            ok = weight > 0
            d = np.zeros_like(value)
            d[ok] = value[ok] / weight[ok] - ref[0][ok] / ref[1][ok]
            total = weight.sum()
            if total <= 0:
                continue
            mean = float((weight * d).sum() / total)
            var = max(float((weight * d**2).sum() / total) - mean**2, 0.0)
            diff[j], se[j] = mean, np.sqrt(var / count.sum())
    return diff, se


def _choose(scores, se, higher, se_rule, rules=None, paired=False):
    """Index of the chosen candidate. Within each decision rule (``rules``, one entry per
    candidate; None: one rule) the best score wins (the first on ties), or with a
    positive ``se_rule`` the first candidate of that rule whose score is within
    ``se_rule`` standard errors (``se``, of the best one's score) of the best;
    ``se_rule`` may map a rule to its own multiple. With ``paired``, ``se`` holds each
    candidate's paired standard error against the first candidate of its rule
    (:func:`_paired`), and another candidate is chosen only when its score beats the
    first one's by more than ``se_rule`` of them (the best such score wins). Between the
    rules, the better score of their chosen candidates (the earlier rule on ties)."""
    key = np.round(np.asarray(scores, dtype=float) * (1.0 if higher else -1.0), 12)
    rules = np.zeros(len(key), dtype=object) if rules is None else np.asarray(rules, object)
    picks = []
    for rule in dict.fromkeys(rules.tolist()):
        idx = np.flatnonzero(rules == rule)
        best = idx[int(np.flatnonzero(key[idx] == key[idx].max())[0])]
        mult = se_rule.get(rule, 0.0) if isinstance(se_rule, dict) else se_rule
        if paired:
            first = idx[0]
            margin = key[idx] - key[first] - mult * np.asarray(se, dtype=float)[idx]
            ahead = idx[(margin > 1e-12) | (idx == first)]
            best = ahead[int(np.flatnonzero(key[ahead] == key[ahead].max())[0])]
        elif mult > 0 and se is not None and np.isfinite(se[best]):
            best = idx[int(np.flatnonzero(key[idx] >= key[best] - mult * se[best] - 1e-12)[0])]
        picks.append(int(best))
    picks = np.asarray(picks)
    return int(picks[int(np.flatnonzero(key[picks] == key[picks].max())[0])])


def _concat(a, b):
    if a is None and b is None:
        return None
    if (a is None) != (b is None):
        raise ValueError("cv with validation data: give costs (or sample weights) for both "
                         "the training and the validation rows, or for neither")
    if isinstance(a, pd.DataFrame) and isinstance(b, pd.DataFrame):
        if list(a.columns) != list(b.columns):
            raise ValueError("cv with validation data: the validation columns must be the "
                             f"training columns; got {list(b.columns)} for {list(a.columns)}")
        return pd.concat([a, b], ignore_index=True)
    if isinstance(a, pd.Series) or isinstance(b, pd.Series):
        return pd.concat([pd.Series(np.asarray(a, dtype=object) if not isinstance(
            a, pd.Series) else a).reset_index(drop=True), pd.Series(
            np.asarray(b, dtype=object) if not isinstance(b, pd.Series) else b
        ).reset_index(drop=True)], ignore_index=True)
    if isinstance(a, pd.DataFrame) or isinstance(b, pd.DataFrame):
        raise ValueError("cv with validation data: give the training and the validation "
                         "inputs (and costs) as the same kind of table")
    return np.concatenate([np.asarray(a), np.asarray(b)])


def _repeated_folds(estimator, cv, repeats, seed):
    """``repeats`` times ``cv``-fold cross-validation on new random folds (stratified by
    class for a classifier)."""
    if "posterior_smoothing" in estimator.get_params():
        return RepeatedStratifiedKFold(n_splits=int(cv), n_repeats=repeats,
                                       random_state=seed)
    return RepeatedKFold(n_splits=int(cv), n_repeats=repeats, random_state=seed)


def _oof_se(oof):
    """Standard error of the cross-validated measure from the held-out cases' measures
    (each case once, averaged over the repeats that held it out)."""
    if oof is None:
        return np.nan
    value, weight, count = oof
    ok = weight > 0
    total = weight.sum()
    if total <= 0 or count.sum() <= 0:
        return np.nan
    m = np.zeros_like(value)
    m[ok] = value[ok] / weight[ok]
    mean = float((weight * m).sum() / total)
    var = max(float((weight * m**2).sum() / total) - mean**2, 0.0)
    return float(np.sqrt(var / count.sum()))


def _fit_cross_validated(estimator, candidates, train, valid, cv, se_rule, random_state,
                         return_results, repeats=1):
    """fit_recommended with ``cv``: the candidates compared by k-fold cross-validation on
    the training rows (and the validation rows, when given), the same folds for all."""
    seed = int(check_random_state(random_state).randint(np.iinfo(np.int32).max))
    if repeats > 1:
        cv = _repeated_folds(estimator, cv, repeats, seed)
    rows_cv = train if valid is None else tuple(_concat(a, b) for a, b in zip(train, valid))
    Xc, yc, cc, wc = rows_cv
    auto = _AutoStrength(estimator, rows_cv)
    fits = _Fits(estimator, rows_cv)
    rows, fitted, oof = [], [], []
    for candidate in candidates:
        params = _resolve(candidate, auto)
        tree_params, sequence = _sequence(params)
        # the same seed gives every candidate the same folds (a paired comparison)
        study = PruningStudy(fits(tree_params), cv=cv, se_rule=0.0, random_state=seed,
                             pruning_sequence=sequence)
        study._keep_oof = True  # each held-out case's measure, for the paired comparison
        study.fit(X_train=Xc, y_train=yc, costs_train=cc, sample_weight_train=wc)
        k = study.selected_index_
        fitted.append((study, candidate))
        oof.append(getattr(study, "oof_values_", None))
        # repeated folds: the study's error counts each case once per repeat, the
        # held-out cases' measures (not kept on Dask) once
        se = float(study.results_["cv_se"].iloc[k])
        if repeats > 1 and oof[-1] is not None:
            se = _oof_se(oof[-1])
        rows.append({**params, "n_leaves": study.selected_n_leaves_, "measure": study.measure_,
                     "cv_measure": float(study.results_["cv_mean"].iloc[k]),
                     "cv_se": se,
                     "_higher": study.higher_is_better_})
    results = _sequence_column(pd.DataFrame(rows))
    own = estimator.get_params().get("decision_rule", "leaf")
    rules = [c.get("decision_rule", own) for c in candidates]
    diff, diff_se = _paired(oof, rules)
    results["paired_diff"], results["paired_se"] = diff, diff_se
    paired = bool(np.all(np.isfinite(diff)))
    k = _choose(results["cv_measure"].to_numpy(),
                diff_se if paired else results["cv_se"].to_numpy(),
                bool(results["_higher"].iloc[0]), se_rule, rules, paired=paired)
    results = results.drop(columns="_higher")
    results["chosen"] = np.arange(len(results)) == k
    study, candidate = fitted[k]
    if valid is None:
        best = study.best_estimator_
    else:
        # the chosen setting grown on the training rows, pruned on the validation rows
        X_valid, y_valid, costs_valid, sample_weight_valid = valid
        params = _resolve(candidate, _AutoStrength(estimator, train))
        tree_params, sequence = _sequence(params)
        tree = _grow(estimator, tree_params, train)
        final = PruningStudy(tree, pruning_sequence=sequence).fit(
            X_valid, y_valid, costs_valid=costs_valid,
            sample_weight_valid=sample_weight_valid)
        best = final.best_estimator_
        results["valid_measure"] = np.where(
            results["chosen"], float(final.results_["valid_measure"].iloc[
                final.selected_index_]), np.nan)
        results.loc[k, "n_leaves"] = final.selected_n_leaves_
        if "posterior_smoothing" in params:
            results.loc[k, "posterior_smoothing"] = params["posterior_smoothing"]
    if return_results:
        return best, results
    return best
