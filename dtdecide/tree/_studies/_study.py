"""Choosing a subtree of the pruning sequence: assessment, cross-validation, studies.

Layer 6 (studies and displays) of :mod:`dtdecide.tree` (``_studies``); see the architecture page.

Every subtree of the nested weakest-link sequence (:func:`~dtdecide.tree._estimator._pruning.pruning_path`)
is scored on training data (from the stored node statistics), on validation data and,
optionally, by k-fold cross-validation; one subtree is then selected the way the source
suite does it (best assessment measure, smallest subtree on ties) or by the 1-SE rule.

Scoring all subtrees at once
----------------------------
Each validation row is routed once through the full tree to its leaf. Row statistics
(the row's consequence of every decision, its class, its squared error terms) are summed
per leaf and then added from children into parents, so every node holds the sums of the
rows passing through it. A node's contribution as a leaf (its rows' profit under the
node's own decision, its misclassified weight, ...) is therefore known for every node,
and the total over the leaves of subtree ``k`` is one difference array over the ranges
of subtrees in which each node is a leaf (:func:`~dtdecide.tree._algorithms._pruning.sum_over_subtrees`).
Nothing loops over subtrees or rows in Python, except the lift, which sorts the leaves of
each subtree.
"""

import copy
import numbers
import time

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.utils import check_random_state

from ..._config import config_context
from ..._parallel import check_n_jobs
from ..._progress import progress_bar, resolve_verbose
from ...decision._validation import check_1d, check_seed, reference_index
from .._algorithms._pruning import (
    _RISK_RTOL,
    _materialise,
    check_pruning_sequence,
    leaf_intervals,
    subtree_index_for_alpha,
    sum_over_subtrees,
)
from .._backends._dask import is_dask_collection
from .._estimator._classes import _BaseProfitTree
from .._estimator._pruning import (
    _is_classifier,
    _training_level_weights,
    node_risk,
    pruning_path,
)
from ._scorer import _lift_per_subtree, _pos_index, _resolve_costs, _Scorer, _take

__all__ = ["PruningStudy", "select_subtree", "best_subtrees_by_size", "best_subtree_of_size"]

_METHODS = ("assessment", "cv", "n_leaves", "largest")
_MEASURES = ("decision", "misclassification", "ase", "lift")
_LABELS = {
    "profit": "average profit",
    "loss": "average loss",
    "misclassification": "misclassification rate",
    "ase": "average squared error",
    "lift": "lift",
}


# ----------------------------------------------------------- per-subtree measures
def _finish_sums(kind, sums):
    """Average and per-observation standard error from per-subtree (s1, s2, w, n)."""
    s1, s2, w, n = sums.T
    with np.errstate(invalid="ignore", divide="ignore"):
        avg = s1 / w
        var = np.maximum(s2 / w - avg**2, 0.0)
        se = np.sqrt(var / n)
    if kind == "misclassification":
        se = np.sqrt(np.maximum(avg * (1 - avg), 0.0) / n)
    return avg, se


def _train_measure(estimator, path, kind, *, pos_label, depth_fraction):
    tree = estimator.tree_
    n = path.n_subtrees
    start, stop = leaf_intervals(path.collapse_step, tree.parent, n)
    if kind == "lift":
        pos = _pos_index(estimator, pos_label)
        w = tree.value.sum(axis=1)
        score = np.divide(tree.value[:, pos], w, out=np.zeros_like(w), where=w > 0)
        return _lift_per_subtree(score, tree.value[:, pos], w, start, stop, n, depth_fraction)
    measure = "decision" if kind in ("profit", "loss") else kind
    if kind == path.measure:
        return path.train_average.copy()
    risk, _ = node_risk(estimator, tree, measure=measure)
    total = sum_over_subtrees(risk, start, stop, n)
    if kind == "profit":
        total = -total
    weight = float(tree.weighted_n_node_samples[0])
    if kind in ("profit", "loss") and _training_level_weights(estimator, tree)[1]:
        return np.full(n, np.nan)
    return total / weight


def _score_path(estimator, path, scorer, sums, *, depth_fraction):
    """Per-subtree (average, se, sums) of ``scorer``'s rows under ``estimator``, from
    their node sums ``sums`` (:meth:`_Scorer.node_sums`)."""
    tree = estimator.tree_
    n = path.n_subtrees
    start, stop = leaf_intervals(path.collapse_step, tree.parent, n)
    if scorer.kind == "lift":
        counts = scorer.class_counts(estimator, tree)
        tot = counts.sum(axis=1)
        score = np.divide(counts[:, scorer.pos_index], tot, out=np.zeros_like(tot),
                          where=tot > 0)
        lift = _lift_per_subtree(score, sums[:, scorer.pos_index], sums[:, -1], start,
                                 stop, n, depth_fraction)
        return lift, np.full(n, np.nan), None
    per_subtree = sum_over_subtrees(scorer.node_values(estimator, tree, sums), start, stop, n)
    avg, se = _finish_sums(scorer.kind, per_subtree)
    if scorer.nan_summary:
        avg = np.full(n, np.nan)
    return avg, se, per_subtree


def _geometric_midpoints(alphas):
    """Where subtree k is evaluated in CV: sqrt(alpha_k alpha_k+1), +inf for the last."""
    alphas = np.asarray(alphas, dtype=np.float64)
    mid = np.empty_like(alphas)
    mid[:-1] = np.sqrt(alphas[:-1] * alphas[1:])
    mid[-1] = np.inf
    return mid


def is_splitter(cv):
    """Whether ``cv`` is a scikit-learn splitter (has ``split``; text is none)."""
    return hasattr(cv, "split") and not isinstance(cv, (str, bytes))


def _fitted_tree(estimator):
    """The ``tree_`` of a fitted profit tree; a ``TypeError`` for another estimator (an
    sklearn tree has a ``tree_`` of another kind), ``NotFittedError`` before ``fit``."""
    tree = getattr(estimator, "tree_", None)
    if tree is not None and not isinstance(estimator, _BaseProfitTree):
        raise TypeError(
            "estimator must be a fitted ProfitTreeClassifier or ProfitTreeRegressor; got "
            f"{type(estimator).__name__}"
        )
    if tree is None:
        raise NotFittedError(
            f"estimator must be a fitted tree; {type(estimator).__name__} has no tree_ "
            "(call fit first)"
        )
    return tree


def _check_cv(cv, estimator, y, random_state):
    if is_splitter(cv):
        return cv
    if isinstance(cv, bool) or not isinstance(cv, numbers.Integral) or cv < 2:
        raise ValueError(f"cv must be an integer >= 2 or a splitter with split(); got {cv!r}")
    rng = check_random_state(random_state)
    seed = int(rng.randint(np.iinfo(np.int32).max))
    if _is_classifier(estimator):
        return StratifiedKFold(n_splits=int(cv), shuffle=True, random_state=seed)
    return KFold(n_splits=int(cv), shuffle=True, random_state=seed)


def _fit_fold(estimator, X, y, costs, sample_weight, train_idx, test_idx, scorer,
              pruning_measure, eval_alphas, depth_fraction, keep=False,
              pruning_sequence="rule"):
    started = time.perf_counter()
    fold = clone(estimator)
    if "ccp_alpha" in fold.get_params():
        fold.set_params(ccp_alpha=0.0)
    kw = {}
    if sample_weight is not None:
        kw["sample_weight"] = _take(sample_weight, train_idx)
    if costs is not None:
        kw["costs"] = _take(costs, train_idx)
    fold.fit(_take(X, train_idx), _take(y, train_idx), **kw)
    sums = scorer.subset(test_idx).node_sums(fold, _take(X, test_idx))
    picked = _fold_measures(fold, pruning_measure, scorer, sums, eval_alphas,
                            pruning_sequence)
    kept = None
    if keep:  # what the out-of-fold values of any evaluation alpha need later
        fold_path = pruning_path(fold, measure=pruning_measure,
                                 pruning_sequence=pruning_sequence)
        kept = (fold, fold_path, np.asarray(fold.apply(_take(X, test_idx)), dtype=np.intp),
                test_idx)
    return picked, int(fold.tree_.n_leaves), time.perf_counter() - started, kept


def _subtree_nodes(tree, fold_path, leaf, index):
    """For rows whose leaf in the full ``tree`` is ``leaf``: their leaf in subtree
    ``index`` of ``fold_path`` (the one ancestor-or-self that is a leaf there)."""
    start, stop = leaf_intervals(fold_path.collapse_step, tree.parent, fold_path.n_subtrees)
    is_leaf = (start <= index) & (index < stop)
    nodes = np.array(leaf, dtype=np.intp)
    parent = np.asarray(tree.parent, dtype=np.intp)
    todo = ~is_leaf[nodes]
    while todo.any():
        nodes[todo] = parent[nodes[todo]]
        todo = ~is_leaf[nodes]
    return nodes


def _fold_measures(fold, pruning_measure, scorer, sums, eval_alphas, pruning_sequence="rule"):
    """Per-subtree (s1, s2, w, n) of a fold's tree at the evaluation alphas, from the
    node sums ``sums`` of its test rows (the fold's own sequence, in the same order as
    the study's tree: ``pruning_sequence``)."""
    fold_path = pruning_path(fold, measure=pruning_measure, pruning_sequence=pruning_sequence)
    tree = fold.tree_
    start, stop = leaf_intervals(fold_path.collapse_step, tree.parent, fold_path.n_subtrees)
    values = scorer.node_values(fold, tree, sums)
    per_subtree = sum_over_subtrees(values, start, stop, fold_path.n_subtrees)
    picks = np.array([
        fold_path.n_subtrees - 1 if not np.isfinite(a)
        else subtree_index_for_alpha(fold_path.ccp_alphas, a)
        for a in eval_alphas
    ])
    return per_subtree[picks]


# --------------------------------------------------------------------- selection
def _best_index(values, higher_is_better, why=None):
    """Best value, the largest index (smallest subtree) on ties; NaN ignored. ``why``
    says why every value is missing, when the scorer knows it."""
    values = np.asarray(values, dtype=np.float64)
    ok = np.isfinite(values)
    if not ok.any():
        raise ValueError(
            "no subtree has a finite assessment value to select from: "
            + (why or "check the validation data (X_valid, y_valid) and "
               "sample_weight_valid (all zero?)")
        )
    signed = np.where(ok, values if higher_is_better else -values, -np.inf)
    best = signed.max()
    tol = _RISK_RTOL * max(abs(best), 1e-300)
    return int(np.flatnonzero(signed >= best - tol)[-1])


class PruningStudy:
    """Score every subtree of the pruning sequence and select one, as the suite does.

    The fitted tree's nested weakest-link sequence (no refit) is scored on training data,
    on validation data when given, and by k-fold cross-validation when ``cv`` is set;
    one subtree is then selected.

    Parameters
    ----------
    estimator : fitted ProfitTreeClassifier or ProfitTreeRegressor
        The tree to prune. It is not modified.
    method : {"assessment", "cv", "n_leaves", "largest"}, default=None
        How to select: ``"assessment"`` picks the best assessment measure on the
        validation data (on the training data when none is given), the smallest subtree
        on ties; ``"cv"`` applies the ``se_rule`` to the cross-validated measure;
        ``"n_leaves"`` the largest subtree with at most ``n_leaves`` leaves;
        ``"largest"`` the full tree. None means ``"cv"`` when ``cv`` is given, else
        ``"assessment"``.
    measure : {"decision", "misclassification", "ase", "lift"}, default=None
        Assessment measure. ``"decision"`` (the default when the tree has a decision
        matrix with two or more decisions) is the average profit (average loss for a
        loss matrix), prior-adjusted when the matrix has priors; otherwise the default is
        ``"misclassification"`` (classifier) or ``"ase"`` (regressor). ``"ase"`` of a
        classifier is the squared error of the posteriors averaged over cases and
        classes. ``"lift"`` is the lift of ``pos_label`` in the top ``depth_fraction`` of
        the cases ranked by the leaf posterior. The sequence itself is pruned by profit,
        or by misclassification / squared error when that is the measure.
    pruning_sequence : {"rule", "leaf"}, default="rule"
        The order of the subtrees (of the study's tree and of its folds' trees).
        ``"rule"`` prunes along the training profit of the tree's own decision rule.
        ``"leaf"`` prunes a tree with ``decision_rule="case"`` along its nodes' leaf
        decisions (each node's one best decision from its averaged costs, as the leaf
        rule and rpart prune), and still scores every subtree with the case rule: the
        sequence holds other subtrees, often larger ones at the same number of splits
        removed. The same as ``"rule"`` for a leaf-rule tree and for the
        misclassification and squared-error measures. See
        :meth:`ProfitTreeClassifier.cost_complexity_pruning_path
        <dtdecide.tree.ProfitTreeClassifier.cost_complexity_pruning_path>`.
    n_leaves : int, default=None
        Required by ``method="n_leaves"``.
    depth_fraction : float, default=0.1
        Depth of the lift, in (0, 1].
    pos_label : class label, default=None
        Event class of the lift; None takes the last class.
    cv : int or cross-validation splitter, default=None
        Number of folds (stratified for classifiers, shuffled with ``random_state``) or
        a splitter. Needs the training data in :meth:`fit`.
    se_rule : float, default=1.0
        Select the smallest subtree whose CV measure is within ``se_rule`` standard
        errors of the best (0 selects the best).
    n_jobs : int, default=None
        Folds fitted in parallel with joblib.
    random_state : int, RandomState instance or None, default=None
        Seeds the fold assignment when ``cv`` is an integer.
    verbose : int, default=None
        1 shows a progress bar of the cross-validation folds (with the last fold's
        leaves and seconds), 2 also the bars of the folds' own fits; None takes the
        package default (:func:`dtdecide.get_config`, 0 unless set). Bars are drawn on
        a terminal or in a notebook (the package's ``progress`` setting).

    Attributes
    ----------
    path_ : Bunch
        The pruning path (see :meth:`ProfitTreeClassifier.cost_complexity_pruning_path
        <dtdecide.tree.ProfitTreeClassifier.cost_complexity_pruning_path>`).
    measure_ : str
        ``"profit"``, ``"loss"``, ``"misclassification"``, ``"ase"`` or ``"lift"``.
    higher_is_better_ : bool
    method_ : str
    results_ : DataFrame
        One row per subtree (index ``subtree``): ``alpha``, ``n_leaves``,
        ``train_measure``, ``valid_measure`` (with validation data), ``cv_alpha``,
        ``cv_mean``, ``cv_se`` (with ``cv``) and ``selected``.
    selected_index_ : int
    selected_alpha_ : float
    selected_n_leaves_ : int
    best_estimator_ : estimator
        Pruned copy of the estimator at the selected subtree.

    See Also
    --------
    select_subtree : The selected pruned estimator in one call.
    PruningStudyDisplay : Plot of a study.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from dtdecide import DecisionMatrix, ProfitTreeClassifier
    >>> from dtdecide import PruningStudy
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame({"age": rng.integers(20, 70, 600), "noise": rng.random(600)})
    >>> y = np.where((X["age"] > 50) & (rng.random(600) < 0.6), "yes", "no")
    >>> m = DecisionMatrix({"call": [20, -2], "skip": [0, 0]}, levels=["yes", "no"])
    >>> tree = ProfitTreeClassifier(decision_matrix=m, max_depth=4).fit(X[:400], y[:400])
    >>> study = PruningStudy(tree).fit(X[400:], y[400:])
    >>> study.measure_, study.method_
    ('profit', 'assessment')
    >>> table = study.results_
    >>> list(table.columns)
    ['alpha', 'n_leaves', 'train_measure', 'valid_measure', 'selected']
    >>> int(table["selected"].sum())
    1
    """

    def __init__(self, estimator, *, method=None, measure=None, pruning_sequence="rule",
                 n_leaves=None, depth_fraction=0.1, pos_label=None, cv=None, se_rule=1.0,
                 n_jobs=None, random_state=None, verbose=None):
        self.estimator = estimator
        self.method = method
        self.measure = measure
        self.pruning_sequence = pruning_sequence
        self.n_leaves = n_leaves
        self.depth_fraction = depth_fraction
        self.pos_label = pos_label
        self.cv = cv
        self.se_rule = se_rule
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    # ------------------------------------------------------------------ checks
    def _check_params(self, has_valid, has_train):
        est = self.estimator
        _fitted_tree(est)
        check_n_jobs(self.n_jobs)
        check_seed(self.random_state)
        resolve_verbose(self.verbose)  # checked whether or not a bar is drawn
        if self.measure is not None and self.measure not in _MEASURES:
            raise ValueError(f"measure must be None or one of {_MEASURES}; got {self.measure!r}")
        check_pruning_sequence(self.pruning_sequence)
        method = self.method
        if method is None:
            method = "cv" if self.cv is not None else "assessment"
        if method not in _METHODS:
            raise ValueError(f"method must be None or one of {_METHODS}; got {method!r}")
        if method == "cv" and self.cv is None:
            raise ValueError("method='cv' needs cv (a number of folds or a splitter)")
        if self.cv is not None and not has_train:
            raise ValueError(
                "cv needs the training data: pass X_train and y_train to fit (the fitted "
                "tree does not keep its training rows)"
            )
        if method == "n_leaves":
            n = self.n_leaves
            if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
                raise ValueError(
                    f"n_leaves must be a positive integer with method='n_leaves'; got {n!r}"
                )
        d = self.depth_fraction
        if isinstance(d, bool) or not isinstance(d, numbers.Real) or not 0 < d <= 1:
            raise ValueError(f"depth_fraction must be in (0, 1]; got {d!r}")
        s = self.se_rule
        if isinstance(s, bool) or not isinstance(s, numbers.Real) or not s >= 0:
            raise ValueError(f"se_rule must be a non-negative number; got {s!r}")
        if self.measure == "lift" and self.cv is not None:
            raise ValueError("measure='lift' is not additive over cases; use it without cv")
        return method

    def _resolve_kind(self):
        est = self.estimator
        measure = self.measure
        if measure == "lift":
            _pos_index(est, self.pos_label)
            return "lift", None
        pruning_measure = measure if measure in ("misclassification", "ase") else None
        path_kind = node_risk(est, measure=measure)[1]
        return path_kind, pruning_measure

    # ------------------------------------------------------------------ fit
    def fit(self, X_valid=None, y_valid=None, *, costs_valid=None, sample_weight_valid=None,
            X_train=None, y_train=None, costs_train=None, sample_weight_train=None):
        """Score every subtree and select one.

        Parameters
        ----------
        X_valid, y_valid : validation inputs and target, optional
            Validation data (both or neither). A Dask DataFrame ``X_valid`` takes
            ``y_valid``, ``costs_valid`` and ``sample_weight_valid`` as Dask collections
            with its partitions: each partition's node sums are computed where it lives
            and summed (the same measures and selection as on the same data in pandas).
        costs_valid : DataFrame, dict or ndarray, optional
            The validation cases' cost variables (or case-specific consequences); cost
            columns left in ``X_valid`` are used when this is None.
        sample_weight_valid : array-like, optional
            Validation frequencies.
        X_train, y_train, costs_train, sample_weight_train : optional
            The training data, needed by cross-validation only. As Dask collections
            with the partitions of ``X_train``, the folds' trees are fitted and scored on
            Dask (only the target column comes to the client, for the fold assignment).

        Returns
        -------
        self
            The fitted study.
        """
        if (X_valid is None) != (y_valid is None):
            raise ValueError("give both X_valid and y_valid, or neither")
        if (X_train is None) != (y_train is None):
            raise ValueError("give both X_train and y_train, or neither")
        method = self._check_params(X_valid is not None, X_train is not None)
        est = self.estimator
        why_valid = self._why_cv = None
        kind, pruning_measure = self._resolve_kind()
        path = pruning_path(est, measure=pruning_measure,
                            pruning_sequence=self.pruning_sequence)
        n = path.n_subtrees
        higher = kind in ("profit", "lift")
        table = pd.DataFrame(
            {"alpha": path.ccp_alphas, "n_leaves": path.n_leaves},
            index=pd.RangeIndex(n, name="subtree"),
        )
        table["train_measure"] = _train_measure(
            est, path, kind, pos_label=self.pos_label, depth_fraction=self.depth_fraction
        )
        if X_valid is not None:
            if is_dask_collection(X_valid):
                # per-partition node sums of the validation rows, summed (rows stay put)
                from ._dask import study_node_sums

                scorer, sums = study_node_sums(
                    est, kind, X_valid, y_valid, costs=costs_valid,
                    sample_weight=sample_weight_valid, pos_label=self.pos_label,
                    name="_valid")
            else:
                scorer = _Scorer(est, kind, X_valid, y_valid, costs=costs_valid,
                                 sample_weight=sample_weight_valid, pos_label=self.pos_label,
                                 name="_valid")
                sums = scorer.node_sums(est, X_valid)
            valid, _, _ = _score_path(est, path, scorer, sums,
                                      depth_fraction=self.depth_fraction)
            why_valid = getattr(scorer, "nan_reason", None)
            table["valid_measure"] = valid
        if self.cv is not None:
            mean, se, mid = self._cross_validate(
                path, kind, pruning_measure, X_train, y_train, costs_train,
                sample_weight_train)
            table["cv_alpha"] = mid
            table["cv_mean"] = mean
            table["cv_se"] = se

        if method == "largest":
            k = 0
        elif method == "n_leaves":
            k = int(np.flatnonzero(path.n_leaves <= self.n_leaves)[0])
        elif method == "assessment":
            column = "valid_measure" if X_valid is not None else "train_measure"
            k = _best_index(table[column].to_numpy(), higher,
                            why_valid if X_valid is not None else None)
        else:  # cv with the se rule
            mean = table["cv_mean"].to_numpy()
            se = table["cv_se"].to_numpy()
            best = _best_index(mean, higher, self._why_cv)
            slack = self.se_rule * (se[best] if np.isfinite(se[best]) else 0.0)
            limit = mean[best] - slack if higher else mean[best] + slack
            tol = _RISK_RTOL * max(abs(mean[best]), 1e-300)
            ok = (mean >= limit - tol) if higher else (mean <= limit + tol)
            k = int(np.flatnonzero(ok & np.isfinite(mean))[-1])
        table["selected"] = np.arange(n) == k
        if getattr(self, "_folds", None) is not None:
            # out-of-fold values of the selected subtree, then the folds' trees go
            mid = table["cv_alpha"].to_numpy()
            self.oof_values_ = self._oof_values(mid[k], len(y_train))
        self._folds = self._oof_scorer = None

        self.path_ = path
        self.measure_ = kind
        self.higher_is_better_ = higher
        self.method_ = method
        self.results_ = table
        self.selected_index_ = k
        self.selected_alpha_ = float(path.ccp_alphas[k])
        self.selected_n_leaves_ = int(path.n_leaves[k])
        best = copy.deepcopy(est)
        best.tree_ = _materialise(est.tree_, path, k)
        if "ccp_alpha" in getattr(best, "__dict__", {}) and self.pruning_sequence == "rule":
            # an alpha of the leaf sequence would prune a refit along the rule's sequence
            best.ccp_alpha = self.selected_alpha_
        best.pruning_subtree_index_ = k
        self.best_estimator_ = best
        return self

    def _cross_validate(self, path, kind, pruning_measure, X, y, costs, sample_weight):
        est = self.estimator
        if is_dask_collection(X):
            # the folds are fitted and scored on Dask (only the target column comes to
            # the client, for the fold assignment)
            from ._dask import study_cv_sums

            mid = _geometric_midpoints(path.ccp_alphas)
            sequence = self.pruning_sequence
            total, scorer = study_cv_sums(
                est, kind, X, y, costs=costs, sample_weight=sample_weight,
                pos_label=self.pos_label,
                splitter=lambda y_arr: _check_cv(self.cv, est, y_arr, self.random_state),
                measures=lambda fold, scorer, sums: _fold_measures(
                    fold, pruning_measure, scorer, sums, mid, sequence),
                n_subtrees=path.n_subtrees, verbose=resolve_verbose(self.verbose))
            mean, se = _finish_sums(kind, total)
            if scorer.nan_summary:
                mean = np.full_like(mean, np.nan)
            self._why_cv = getattr(scorer, "nan_reason", None)
            return mean, se, mid
        y_arr = check_1d(y, "y_train", index=reference_index(X), reference="X_train")
        splitter = _check_cv(self.cv, est, y_arr, self.random_state)
        scorer = _Scorer(est, kind, X, y_arr, costs=_resolve_costs(est, X, costs),
                         sample_weight=sample_weight, pos_label=self.pos_label,
                         name="_train")
        mid = _geometric_midpoints(path.ccp_alphas)
        try:
            splits = list(splitter.split(np.zeros((len(y_arr), 1)), y_arr))
        except ValueError as exc:  # more folds than cases (of each class)
            raise ValueError(
                f"cv={self.cv!r} cannot split the {len(y_arr)} training rows: "
                f"{str(exc).rstrip('.')}; use fewer folds or more rows"
            ) from None
        n_folds = len(splits)
        keep = bool(getattr(self, "_keep_oof", False)) and kind in ("profit", "loss")
        tasks = (
            delayed(_fit_fold)(est, X, y, costs, sample_weight, tr, te, scorer,
                               pruning_measure, mid, self.depth_fraction, keep,
                               self.pruning_sequence)
            for tr, te in splits
        )
        self._folds = [] if keep else None
        self._oof_scorer = scorer if keep else None
        total = np.zeros((path.n_subtrees, 4))
        verbose = resolve_verbose(self.verbose)
        parallel = Parallel(n_jobs=self.n_jobs, return_as="generator")
        with progress_bar(total=n_folds, desc="PruningStudy: cross-validation", unit="fold",
                          verbose=verbose) as bar, config_context(verbose=max(verbose - 1, 0)):
            for sums, n_leaves, seconds, kept in parallel(tasks):
                total += sums
                if keep:
                    self._folds.append(kept)
                bar.update(1)
                bar.set_postfix_str(f"last fold {n_leaves} leaves in {seconds:.1f}s")
        mean, se = _finish_sums(kind, total)
        if scorer.nan_summary:
            mean = np.full_like(mean, np.nan)
        self._why_cv = getattr(scorer, "nan_reason", None)
        return mean, se, mid

    def _oof_values(self, alpha, n_rows):
        """Per training row ``(value, weight, count)``: the row's decision measure under
        the tree of the fold that held it out, pruned at ``alpha`` (as the
        cross-validated measure of the subtree evaluated at ``alpha`` counts it). A
        splitter that holds a row out more than once (repeated k-fold) gives the
        average over those folds, so that every row counts once."""
        value, weight, count = np.zeros(n_rows), np.zeros(n_rows), np.zeros(n_rows)
        times = np.zeros(n_rows)
        for fold, fold_path, leaf, test_idx in self._folds:
            j = (fold_path.n_subtrees - 1 if not np.isfinite(alpha)
                 else subtree_index_for_alpha(fold_path.ccp_alphas, alpha))
            nodes = _subtree_nodes(fold.tree_, fold_path, leaf, j)
            v, w, c = self._oof_scorer.subset(test_idx).row_values(fold, nodes)
            np.add.at(value, test_idx, v)
            np.add.at(weight, test_idx, w)
            np.add.at(count, test_idx, c)
            np.add.at(times, test_idx, 1.0)
        held = times > 1
        for a in (value, weight, count):
            a[held] /= times[held]
        return value, weight, count

    # ------------------------------------------------------------------ reports
    def to_frame(self):
        """The per-subtree table (a copy of ``results_``).

        Returns
        -------
        pandas.DataFrame
            One row per subtree of the sequence (full tree first): ``alpha``, ``n_leaves``,
            the training and validation (or cross-validation) measures and ``selected``.
        """
        self._check_fitted()
        return self.results_.copy()

    def cp_table(self):
        """The study in the layout of R rpart's cp table.

        ``CP`` is alpha divided by the size of the root's total risk, ``nsplit`` the
        number of splits, ``rel_error`` the training risk relative to the size of the
        root's, and ``xerror`` / ``xstd`` the cross-validated risk and its standard error
        on the same scale (when ``cv`` was run). Risk is the loss, misclassified weight
        or squared error, and minus the profit for a profit matrix (then the relative
        errors are negative). Rows run from the root alone to the full tree, as rpart
        prints them.

        Returns
        -------
        DataFrame
            Columns ``CP``, ``nsplit``, ``rel_error`` and, with
            cross-validation, ``xerror`` and ``xstd``.

        Examples
        --------
        >>> import pandas as pd
        >>> from dtdecide import DecisionMatrix, ProfitTreeClassifier, PruningStudy
        >>> X = pd.DataFrame({"x": [1, 2, 3, 4, 5, 6, 7, 8]})
        >>> y = ["no", "no", "no", "no", "yes", "yes", "no", "yes"]
        >>> m = DecisionMatrix({"call": [10, -1], "skip": [0, 0]}, levels=["yes", "no"])
        >>> tree = ProfitTreeClassifier(decision_matrix=m, max_depth=2, min_samples_leaf=2,
        ...                             min_samples_split=4).fit(X, y)
        >>> study = PruningStudy(tree).fit(X, y)
        >>> study.cp_table().round(2)
             CP  nsplit  rel_error
        0  0.16       0      -1.00
        1  0.00       1      -1.16
        2  0.00       2      -1.16
        """
        self._check_fitted()
        if self.measure_ == "lift":
            raise ValueError("cp_table needs an additive measure; this study used lift")
        t = self.results_
        sign = -1.0 if self.measure_ == "profit" else 1.0
        weight = float(self.estimator.tree_.weighted_n_node_samples[0])
        root = abs(sign * t["train_measure"].iloc[-1])  # root risk per unit of weight
        scale = root if root > 0 else np.nan
        out = pd.DataFrame({
            "CP": t["alpha"] / (scale * weight),
            "nsplit": t["n_leaves"] - 1,
            "rel_error": sign * t["train_measure"] / scale,
        })
        if "cv_mean" in t:
            out["xerror"] = sign * t["cv_mean"] / scale
            out["xstd"] = t["cv_se"] / scale
        return out.iloc[::-1].reset_index(drop=True)

    def _check_fitted(self):
        if not hasattr(self, "results_"):
            raise ValueError("this PruningStudy is not fitted yet; call fit first")


def select_subtree(estimator, X_valid=None, y_valid=None, *, costs_valid=None,
                   sample_weight_valid=None, X_train=None, y_train=None, costs_train=None,
                   sample_weight_train=None, **params):
    """The pruned copy of a fitted tree selected as the suite does.

    A shortcut for ``PruningStudy(estimator, **params).fit(...).best_estimator_``.

    Parameters
    ----------
    estimator : fitted ProfitTreeClassifier or ProfitTreeRegressor
        The tree whose pruning sequence is used (it is not refitted).
    X_valid, y_valid, costs_valid, sample_weight_valid : optional
        Validation data, as in :meth:`PruningStudy.fit`.
    X_train, y_train, costs_train, sample_weight_train : optional
        Training data, for cross-validation.
    **params
        Parameters of :class:`PruningStudy` (``method``, ``measure``, ``n_leaves``,
        ``cv``, ...).

    Returns
    -------
    estimator
        A pruned deep copy; the input is not modified.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from dtdecide import DecisionMatrix, ProfitTreeClassifier
    >>> from dtdecide import select_subtree
    >>> rng = np.random.default_rng(1)
    >>> X = pd.DataFrame({"age": rng.integers(20, 70, 600), "noise": rng.random(600)})
    >>> y = np.where((X["age"] > 50) & (rng.random(600) < 0.6), "yes", "no")
    >>> m = DecisionMatrix({"call": [20, -2], "skip": [0, 0]}, levels=["yes", "no"])
    >>> tree = ProfitTreeClassifier(decision_matrix=m, max_depth=4).fit(X, y)
    >>> select_subtree(tree, method="n_leaves", n_leaves=3).get_n_leaves() <= 3
    True
    """
    study = PruningStudy(estimator, **params)
    study.fit(X_valid, y_valid, costs_valid=costs_valid,
              sample_weight_valid=sample_weight_valid, X_train=X_train, y_train=y_train,
              costs_train=costs_train, sample_weight_train=sample_weight_train)
    return study.best_estimator_


# ----------------------------------------------------------- best subtree by size
def _min_plus(a, b, cap):
    """Min-plus convolution of two children's best risks by number of leaves.

    ``a[i]`` (``b[j]``) is the best risk with ``i + 1`` leaves on the left (right).
    Returns ``out`` with ``out[m - 1]`` the best risk with ``m`` leaves in total (index 0,
    one leaf, is impossible: inf) for ``m <= cap``, and ``left`` the number of left leaves
    achieving it.
    """
    swapped = a.size > b.size
    if swapped:
        a, b = b, a
    size = min(a.size + b.size, cap)  # sizes 2 .. a.size + b.size leaves
    out = np.full(size, np.inf)
    arg = np.zeros(size, dtype=np.intp)
    for i in range(a.size):  # loop over the smaller side
        lo = i + 1  # i+1 leaves on side a, j+1 on side b -> index i + j + 1
        if lo >= size:
            break
        cand = a[i] + b[: size - lo]
        hi = lo + cand.size
        better = cand < out[lo:hi]
        out[lo:hi][better] = cand[better]
        arg[lo:hi][better] = i
    idx = np.arange(size)
    left = np.where(swapped, idx - arg, arg + 1)
    left[0] = 0
    return out, left


def _size_dp(tree, risk, cap, keep_choices=False):
    """Best risk for 1..cap leaves in the whole tree (and per-node choices)."""
    left, right = tree.children_left, tree.children_right
    best = [None] * tree.n_nodes
    choices = [None] * tree.n_nodes if keep_choices else None
    for v in range(tree.n_nodes - 1, -1, -1):
        if left[v] < 0:
            best[v] = np.array([risk[v]])
        else:
            combined, n_left = _min_plus(best[left[v]], best[right[v]], cap)
            best[v] = np.concatenate([[risk[v]], combined[1:]])
            best[left[v]] = best[right[v]] = None  # free memory as we go
            if keep_choices:
                choices[v] = n_left
    return best[0][:cap], choices


def _check_size(value, name, upper):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be a positive integer; got {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be at least 1; got {value}")
    return min(int(value), upper)


def best_subtree_of_size(estimator, n_leaves, *, measure=None):
    """Pruned copy of a fitted tree: the best subtree with at most ``n_leaves`` leaves.

    "Best" is the highest training profit (lowest training risk) over **all** subtrees
    of the fitted tree, found by the dynamic program of :func:`best_subtrees_by_size`;
    the result need not belong to the nested weakest-link sequence. Among sizes with the
    same best risk, the smallest subtree is returned.

    Parameters
    ----------
    estimator : fitted ProfitTreeClassifier or ProfitTreeRegressor
        The tree whose pruning sequence is used (it is not refitted).
    n_leaves : int
        Largest number of leaves.
    measure : {None, "decision", "misclassification", "ase"}, default=None
        As in :meth:`ProfitTreeClassifier.cost_complexity_pruning_path
        <dtdecide.tree.ProfitTreeClassifier.cost_complexity_pruning_path>`.

    Returns
    -------
    estimator
        A deep copy whose ``tree_`` is the chosen subtree (leaves keep their stored
        decisions).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from dtdecide import DecisionMatrix, ProfitTreeClassifier
    >>> from dtdecide import best_subtree_of_size
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame({"age": rng.integers(20, 70, 400), "x": rng.random(400)})
    >>> y = np.where((X["age"] > 50) & (rng.random(400) < 0.6), "yes", "no")
    >>> m = DecisionMatrix({"call": [20, -2], "skip": [0, 0]}, levels=["yes", "no"])
    >>> tree = ProfitTreeClassifier(decision_matrix=m, max_depth=4).fit(X, y)
    >>> best_subtree_of_size(tree, 3).get_n_leaves() <= 3
    True
    """
    tree = _fitted_tree(estimator)
    cap = _check_size(n_leaves, "n_leaves", tree.n_leaves)
    risk, _ = node_risk(estimator, tree, measure=measure)
    dp, choices = _size_dp(tree, risk, cap, keep_choices=True)
    tol = _RISK_RTOL * max(float(np.abs(dp).max()), 1e-300)
    m = int(np.flatnonzero(dp <= dp.min() + tol)[0]) + 1
    keep = np.zeros(tree.n_nodes, dtype=bool)
    stack = [(0, m)]
    while stack:
        v, k = stack.pop()
        if k == 1:
            keep[v] = True
            continue
        k_left = int(choices[v][k - 1])
        stack.append((int(tree.children_left[v]), k_left))
        stack.append((int(tree.children_right[v]), k - k_left))
    pruned = copy.deepcopy(estimator)
    pruned.tree_ = tree.subtree(keep)
    return pruned


def best_subtrees_by_size(estimator, *, max_leaves=None, measure=None):
    """Best training measure for every number of leaves (a tree dynamic program).

    Weakest-link pruning yields a nested sequence that skips some sizes, and for a size
    that it does contain it is optimal only among nested subtrees on the way: the best
    subtree with exactly ``m`` leaves need not be nested in the best one with ``m + 1``.
    This dynamic program finds, for every ``m``, the subtree of the fitted tree with
    ``m`` leaves and the smallest training risk (the highest training profit), and
    compares it with the nested sequence.

    Parameters
    ----------
    estimator : fitted ProfitTreeClassifier or ProfitTreeRegressor
        The tree whose pruning sequence is used (it is not refitted).
    max_leaves : int, default=None
        Largest size computed (None: every size up to the tree's leaves). The cost is
        about ``n_nodes * max_leaves`` operations.
    measure : {None, "decision", "misclassification", "ase"}, default=None
        As in :meth:`ProfitTreeClassifier.cost_complexity_pruning_path
        <dtdecide.tree.ProfitTreeClassifier.cost_complexity_pruning_path>`.

    Returns
    -------
    DataFrame
        One row per number of leaves ``n_leaves``: ``best_total`` (best training total
        with exactly that many leaves, user orientation), ``nested_total`` (total of the
        nested subtree of that size, NaN when the sequence skips it), ``in_sequence`` and
        ``differs`` (the best subtree of that size beats the nested one, or the sequence
        has no subtree of that size).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from dtdecide import DecisionMatrix, ProfitTreeClassifier
    >>> from dtdecide import best_subtrees_by_size
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame({"age": rng.integers(20, 70, 400)})
    >>> y = np.where((X["age"] > 50) & (rng.random(400) < 0.6), "yes", "no")
    >>> m = DecisionMatrix({"call": [20, -2], "skip": [0, 0]}, levels=["yes", "no"])
    >>> tree = ProfitTreeClassifier(decision_matrix=m, max_depth=3).fit(X, y)
    >>> table = best_subtrees_by_size(tree)
    >>> bool((table["best_total"] >= table["nested_total"].fillna(-np.inf)).all())
    True
    """
    tree = _fitted_tree(estimator)
    risk, kind = node_risk(estimator, tree, measure=measure)
    cap = tree.n_leaves if max_leaves is None else _check_size(
        max_leaves, "max_leaves", tree.n_leaves)
    dp, _ = _size_dp(tree, risk, cap)
    path = pruning_path(estimator, measure=measure)
    sign = -1.0 if kind == "profit" else 1.0
    sizes = np.arange(1, dp.size + 1)
    nested = np.full(dp.size, np.nan)
    for m, total in zip(path.n_leaves, path.train_total):
        if m <= dp.size:
            nested[m - 1] = total
    best_total = sign * dp
    in_seq = ~np.isnan(nested)
    tol = _RISK_RTOL * max(float(np.nanmax(np.abs(best_total))), 1e-300)
    if kind == "profit":
        beats = best_total > nested + tol
    else:
        beats = best_total < nested - tol
    return pd.DataFrame({
        "n_leaves": sizes,
        "best_total": best_total,
        "nested_total": nested,
        "in_sequence": in_seq,
        "differs": ~in_seq | beats,
    })
