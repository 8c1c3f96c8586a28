"""Profit trees: :class:`ProfitTreeClassifier` and :class:`ProfitTreeRegressor`.

The estimators glue the stages together: raw inputs are encoded (:mod:`._encode`),
binned and grown into frozen node arrays (:mod:`._binning`, :mod:`._grower`,
:mod:`._tree`), and every node gets its decision statistics (:mod:`._leaf`) so that
each leaf carries one decision, chosen as section 3 of the design notes says.

Layer 5 (estimator) of :mod:`dtdecide.tree` (``_estimator``); see the architecture page.
"""

from __future__ import annotations

import copy
import numbers
import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, check_random_state

from ..._dtypes import FLOAT_DTYPE as _FLOAT
from ...decision import DecisionMatrix
from ...decision._kernels import encode_target
from ...decision._result import build_decision_result, realised_profits
from ...decision._validation import (
    check_1d,
    check_same_index,
    check_sample_weight,
    reference_index,
)
from .._algorithms._edit import EditMixin, apply_overrides, replay_edits
from .._algorithms._grower import grow_tree
from .._backends._dask import is_dask_collection
from .._kernels._binning import Binner
from .._kernels._criteria import ordinal_loss_matrix, split_loss_weights, training_loss_matrix
from .._kernels._parallel import check_n_jobs, thread_pool
from .._kernels._profit import DEFAULT_PROFIT_METHOD, growth_consequences
from .._structure import _leaf
from .._structure._encode import (
    encode,
    encode_apply,
    fit_encode,
    n_samples_of,
    warn_identifier_columns,
)
from .._structure._tree import match_subtree_nodes
from .._structure._view import tree_view_of
from ._dask import decide_dask, fit_dask, predict_decision_dask, score_dask
from ._html import HTMLReprMixin

__all__ = ["ProfitTreeClassifier", "ProfitTreeRegressor"]


# ============================================================================ helpers
def _check_fit_y(y):
    """The training target as a 1-d array (sklearn's message when it is None)."""
    if y is None:
        raise ValueError(
            "requires y to be passed, but the target y is None; pass the actual target "
            "values"
        )
    return check_1d(y, "y")


def _positions(frame_or_none, names):
    return [c for c in names if frame_or_none is not None and c in frame_or_none.columns]


# ============================================================================ base class
class _BaseProfitTree(EditMixin, HTMLReprMixin, BaseEstimator):
    """Shared fitting and scoring code of the two profit trees."""

    _parameter_constraints: dict = {
        "decision_matrix": [HasMethods(["resolve"]), None],
        "decision_rule": [StrOptions({"leaf", "case"})],
        "max_depth": [Interval(numbers.Integral, 1, None, closed="left"), None],
        "min_samples_leaf": [Interval(numbers.Integral, 1, None, closed="left")],
        "min_samples_split": [Interval(numbers.Integral, 2, None, closed="left")],
        "min_impurity_decrease": [Interval(numbers.Real, 0.0, None, closed="left")],
        "max_leaf_nodes": [Interval(numbers.Integral, 2, None, closed="left"), None],
        "max_bins": [Interval(numbers.Integral, 2, 65535, closed="both")],
        "ccp_alpha": [Interval(numbers.Real, 0.0, None, closed="left")],
        "search": [StrOptions({"greedy", "exact"})],
        "time_limit": [Interval(numbers.Real, 0.0, None, closed="neither"), None],
        "random_state": ["random_state"],
        "handle_unknown": [StrOptions({"warn", "error"})],
        "n_jobs": [numbers.Integral, None],
    }

    _is_classifier = False

    # ---------------------------------------------------------------- tags
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        return tags

    # ---------------------------------------------------------------- fit
    def _check_matrix(self):
        matrix = self.decision_matrix
        if matrix is None:
            return None
        if not isinstance(matrix, DecisionMatrix):
            raise TypeError(
                "decision_matrix must be a dtdecide.DecisionMatrix or None; got "
                f"{type(matrix).__name__}"
            )
        if self._is_classifier and matrix.is_interval:
            raise ValueError(
                "decision_matrix has knots (an interval target); ProfitTreeClassifier needs "
                "a matrix with levels. Use ProfitTreeRegressor for interval targets."
            )
        if not self._is_classifier and not matrix.is_interval:
            raise ValueError(
                "decision_matrix has levels (a categorical target); ProfitTreeRegressor "
                "needs a matrix with knots. Use ProfitTreeClassifier for categorical targets."
            )
        return matrix

    def _split_costs(self, X, costs, matrix):
        """Separate cost-variable columns of ``X`` from the inputs.

        Returns ``(X_inputs, costs_for_resolve, cost_columns, cost_features)``.
        """
        check_same_index(costs, reference_index(X), "costs")
        if matrix is None:
            if costs is not None:
                raise ValueError("costs needs a decision_matrix; got decision_matrix=None")
            return X, None, {}, ()
        if matrix.is_case_specific:
            return X, costs, {}, ()
        names = matrix.cost_variables
        if not names:
            # costs given to a matrix that has no use for them: refused as decide refuses
            # them, never silently dropped
            matrix._check_costs_allowed(costs)
            if costs is not None and not isinstance(costs, (pd.DataFrame, Mapping)):
                raise TypeError(
                    "costs must be a DataFrame or dict of cost columns; got "
                    f"{type(costs).__name__}"
                )
            return X, None, {}, ()
        if costs is not None and not isinstance(costs, (pd.DataFrame, Mapping)):
            raise TypeError(
                "costs must be a DataFrame or a dict of arrays keyed by cost-variable name "
                f"({list(names)!r}); got {type(costs).__name__}"
            )
        provided = {} if costs is None else {v: costs[v] for v in names if v in costs}
        frame = X if isinstance(X, pd.DataFrame) else None
        from_x = [v for v in _positions(frame, names) if v not in provided]
        columns = dict(provided)
        for v in from_x:
            columns[v] = frame[v]
        missing = [v for v in names if v not in columns]
        if missing:
            raise ValueError(
                f"costs: the decision matrix uses the cost variables {list(names)!r}, but no "
                f"values were given for {missing!r}; pass them with costs= (a DataFrame or "
                "dict of arrays) or as columns of X"
            )
        n = n_samples_of(X)
        arrays = {}
        for v in names:
            col = columns[v]
            if isinstance(col, pd.Series) and col.dtype.kind not in "fiub":
                col = col.to_numpy(dtype=object, na_value=np.nan)  # nullable / object
            col = np.asarray(col).reshape(-1)
            try:
                if col.dtype.kind in "fiub":  # already numbers: no pandas round trip
                    arr = col.astype(_FLOAT)
                else:
                    arr = pd.to_numeric(pd.Series(col), errors="raise").to_numpy(
                        dtype=_FLOAT, na_value=np.nan
                    )
            except (TypeError, ValueError):
                raise TypeError(f"costs column {v!r} must be numeric") from None
            if arr.shape[0] != n:
                raise ValueError(
                    f"costs column {v!r} must have one value per case ({n}); got {arr.shape[0]}"
                )
            arrays[v] = arr
        if from_x:
            X = X.drop(columns=from_x)
        return X, arrays, arrays, tuple(from_x)

    def _drop_cost_features(self, X):
        if self.cost_features_ and isinstance(X, pd.DataFrame):
            present = [c for c in self.cost_features_ if c in X.columns]
            return X.drop(columns=present), X[present] if present else None
        return X, None

    def _check_fit_options(self, matrix):
        """Refuse the option combinations fit cannot honour (in memory and on Dask)."""
        if self.criterion == "profit":
            if matrix is None:
                raise ValueError(
                    'criterion="profit" grows on the money of the decisions and needs a '
                    "decision_matrix; got decision_matrix=None (use the default criterion "
                    "for a plain tree)"
                )
            if matrix.n_decisions < 2:
                raise ValueError(
                    'criterion="profit" needs a decision_matrix with at least 2 decisions; '
                    f"got {matrix.n_decisions}"
                )
            if getattr(self, "split_weights", None) is not None:
                raise ValueError(
                    f'split_weights={self.split_weights!r} does not combine with '
                    'criterion="profit", which already weights every case by its own '
                    "money; leave split_weights=None"
                )
        smoothing = getattr(self, "posterior_smoothing", None)
        if smoothing is not None and (smoothing == "auto" or smoothing > 0) and (
                self.decision_rule != "case"):
            raise ValueError(
                f"posterior_smoothing={self.posterior_smoothing!r} smooths the posteriors "
                'cases decide from under decision_rule="case"; the leaf rule decides from '
                'the raw leaf shares. Use decision_rule="case" or posterior_smoothing=0'
            )
        if self.decision_rule == "case" and self.search == "exact":
            raise ValueError(
                'search="exact" maximises the training profit of one decision per leaf '
                '(decision_rule="leaf"); it cannot search under decision_rule="case", where '
                "every case decides with its own costs. Use search=\"greedy\" with the case "
                "rule, or the leaf rule with the exact search"
            )
        if self.decision_rule == "case" and matrix is None:
            raise ValueError(
                'decision_rule="case" needs a decision_matrix (each case decides from its '
                "leaf's posteriors and its own costs); got decision_matrix=None"
            )

    def _fit(self, X, y, sample_weight, costs, edits=None):
        self._validate_params()
        self.decision_overrides_ = {}
        self.edits_ = []
        matrix = self._check_matrix()
        self._check_fit_options(matrix)
        index = reference_index(X)
        check_same_index(y, index, "y")
        X_in, resolve_costs, cost_columns, cost_features = self._split_costs(X, costs, matrix)
        X_codes, encoding = fit_encode(X_in)
        warn_identifier_columns(X_in, stacklevel=4)
        n = X_codes.shape[0]
        y_arr = _check_fit_y(y)
        if y_arr.shape[0] != n:
            raise ValueError(
                f"X and y have inconsistent numbers of samples: {n} and {y_arr.shape[0]}"
            )
        F = check_sample_weight(sample_weight, n, index=index, positive_sum=True)
        if F is None:
            F = np.ones(n, dtype=_FLOAT)

        self.feature_names_in_ = encoding.feature_names
        self.n_features_in_ = len(encoding.feature_names)
        self.is_categorical_ = encoding.is_categorical
        self.categories_ = encoding.categories
        self.has_missing_in_fit_ = np.isnan(X_codes).any(axis=0)
        self._encoding = encoding
        self.cost_features_ = cost_features
        self.decision_matrix_ = matrix
        self.decisions_ = None if matrix is None else tuple(matrix.decisions)
        self.target_name_ = (
            str(y.name) if isinstance(y, pd.Series) and y.name is not None else "target"
        )

        target = self._prepare_target(y, y_arr, matrix, F)
        cons = None
        if matrix is not None:
            cons = matrix.resolve(resolve_costs, n_samples=n)
            if cons.has_missing.any():
                k = int(np.count_nonzero(cons.has_missing))
                raise ValueError(
                    f"costs: {k} training case(s) have a missing cost; the leaf averages of "
                    "the costs need every training case's costs (impute or drop them)"
                )
        loss_matrix = self._split_search(matrix, cons, target, F)
        self.posterior_smoothing_ = self._resolve_posterior_smoothing(matrix, target, F)
        priors = np.asarray(matrix.priors, dtype=_FLOAT) if self.use_priors_ else None

        self.split_criterion_ = self._split_criterion(loss_matrix)
        if self.search == "exact":
            tree = self._grow_exact(X_codes, target, F, loss_matrix=loss_matrix, cons=cons,
                                    cost_columns=cost_columns)
        else:
            case_profit = None
            if self.split_criterion_ == "profit":
                # the realised profit of every decision for every training case
                case_profit = growth_consequences(
                    cons, target, getattr(self, "_profit_method", DEFAULT_PROFIT_METHOD))
            extra = {} if case_profit is None else {"case_profit": case_profit}
            tree = self._grow(X_codes, target, F, loss_matrix=loss_matrix, priors=priors, **extra)

        self._full_tree_ = tree
        self._decision_stats_ = None
        if matrix is not None:
            node_of_row = tree.apply(X_codes)
            stats = _leaf.compute_decision_stats(
                node_of_row, tree.parent, tree.depth, cons=cons, sample_weight=F,
                t_idx=None if matrix.is_interval else target,
                y=target if matrix.is_interval else None,
                rows=matrix.rows, decisions=matrix.decisions, cost_columns=cost_columns,
            )
            self._decision_stats_ = stats
            tree = self._redecide(tree)
            self._full_tree_ = tree
        self._case_stats_ = None
        if matrix is not None and self.decision_rule == "case":
            self._case_stats_ = self._case_rule_stats(tree, node_of_row, cons, target, F)
        self.tree_ = tree
        if self.ccp_alpha > 0:
            from . import _pruning

            self.tree_ = _pruning.apply_ccp_alpha(self, self.ccp_alpha)
        if edits:
            from .._algorithms._edit import _training_arrays

            data = None
            if any(isinstance(e, dict) and e.get("op") in ("split", "regrow") for e in edits):
                data = _training_arrays(self, X, y, costs, sample_weight)
            replay_edits(self, edits, data)
        return self

    def _split_search(self, matrix, cons, target, F):
        """The loss matrix of the split search (or None); sets ``use_priors_`` and
        ``split_class_weight_``.

        An interval target has no classes to weight: plain variance, no class weights.
        """
        self.use_priors_ = False
        self.split_class_weight_ = None
        return self._loss_matrix(matrix, cons, F)

    def _loss_matrix(self, matrix, cons, F):
        """The loss matrix of the split search's generalized Gini, or None."""
        return None

    def _grow(self, X_codes, target, F, *, loss_matrix, priors, case_profit=None):
        # The split search's class weights are ``split_class_weight_`` (priors already
        # folded in); ``priors`` stays in the signature for subclasses overriding this.
        class_weight = self.split_class_weight_
        seed = check_random_state(self.random_state).randint(np.iinfo(np.int32).max)
        binner = Binner(max_bins=self.max_bins, random_state=seed)
        with thread_pool(check_n_jobs(getattr(self, "n_jobs", None))) as pool:
            X_binned = binner.fit_transform(X_codes, self.is_categorical_, F,
                                            check_input=False, pool=pool)
            return self._grow_binned(X_binned, binner, target, F, class_weight=class_weight,
                                     loss_matrix=loss_matrix, case_profit=case_profit,
                                     pool=pool)

    def _grow_binned(self, X_binned, binner, target, F, *, class_weight, loss_matrix,
                     case_profit, pool):
        return grow_tree(
            X_binned,
            binner,
            y=target,
            n_classes=getattr(self, "n_classes_", None),
            sample_weight=F,
            criterion="profit" if case_profit is not None
            else self._growing_criterion(loss_matrix),
            loss_matrix=loss_matrix,
            case_profit=case_profit,
            profit_method=getattr(self, "_profit_method", DEFAULT_PROFIT_METHOD),
            class_weight=class_weight,
            max_depth=self.max_depth,
            min_samples_leaf=self.min_samples_leaf,
            min_samples_split=self.min_samples_split,
            min_impurity_decrease=self.min_impurity_decrease,
            max_leaf_nodes=self.max_leaf_nodes,
            check_input=False,
            pool=pool,
        )

    def _grow_exact(self, X_codes, target, F, *, loss_matrix, cons, cost_columns):
        """The tree of depth <= max_depth with the largest training objective.

        Sets ``search_profit_``, ``search_bound_`` and ``search_gap_`` (see
        :mod:`dtdecide.tree._algorithms._exact`).
        """
        from .._algorithms import _exact

        if self.max_depth is None:
            raise ValueError(
                'search="exact" needs an integer max_depth (1, 2 or 3 are practical); '
                "got max_depth=None"
            )
        if self.max_leaf_nodes is not None:
            raise ValueError(
                'max_leaf_nodes applies to search="greedy" only; leave it None with '
                'search="exact" (max_depth bounds the leaves)'
            )
        if self.min_impurity_decrease > 0:
            raise ValueError(
                'min_impurity_decrease applies to search="greedy" only; leave it 0.0 with '
                'search="exact" (use ccp_alpha to trade leaves for training profit)'
            )
        seed = check_random_state(self.random_state).randint(np.iinfo(np.int32).max)
        binner = Binner(max_bins=self.max_bins, random_state=seed)
        X_binned = binner.fit_transform(X_codes, self.is_categorical_, F)
        n_classes = len(self.classes_) if self._is_classifier else None
        objective = _exact.make_objective(
            is_classifier=self._is_classifier, matrix=self.decision_matrix_, cons=cons,
            target=target, F=F, n_classes=n_classes, cost_columns=cost_columns,
        )
        search, nested, value, bound = _exact.exact_tree(
            X_binned, binner, objective, max_depth=self.max_depth,
            min_samples_leaf=self.min_samples_leaf,
            min_samples_split=self.min_samples_split, time_limit=self.time_limit,
        )
        gap = bound - value
        if gap <= _exact._REL_TOL * max(abs(value), abs(bound), 1.0):
            gap = 0.0
        self.search_profit_ = float(value)
        self.search_bound_ = float(max(bound, value))
        self.search_gap_ = float(gap)
        return _exact.build_structure(
            search, nested, binner, target=target, n_classes=n_classes, F=F,
            criterion=self._growing_criterion(loss_matrix), loss_matrix=loss_matrix,
            class_weight=self.split_class_weight_,
        )

    def _split_criterion(self, loss_matrix):
        """The impurity of the split search: ``criterion`` as the rule and target use it.

        ``"profit"`` grows on the cases' money (:mod:`._profit`) only under the leaf
        rule; under the case rule each case decides with its own costs from its
        leaf's posteriors (prediction), so the split search estimates those: Gini
        (variance). An ordinal target grows on the matrix's generalized Gini.
        """
        if self._grows_on_money(loss_matrix):
            return "profit"
        return self._growing_criterion(loss_matrix)

    def _grows_on_money(self, loss_matrix):
        """Whether the split search runs on the cases' money (``criterion="profit"``
        under the leaf rule, with a matrix and no ordinal loss matrix)."""
        # ``_case_rule_money_split``: a private switch for the decision-quality
        # benchmark, which measures money-weighted growth under the case rule too
        return (self.criterion == "profit" and loss_matrix is None
                and self.decision_matrix_ is not None
                and (getattr(self, "decision_rule", "leaf") == "leaf"
                     or getattr(self, "_case_rule_money_split", False)))

    def _growing_criterion(self, loss_matrix):
        if loss_matrix is not None:
            return "generalized_gini"
        if self.criterion == "profit":  # the case rule, or the matrix-free fallback
            return "variance" if not self._is_classifier else "gini"
        return self.criterion

    def _resolve_posterior_smoothing(self, matrix, target, F):
        """The m of the posterior smoothing (classifiers only; 0 = none)."""
        return 0.0

    # ---------------------------------------------------------------- the case rule
    def _case_rule(self):
        """Whether cases decide for themselves (``decision_rule="case"``)."""
        return getattr(self, "decision_rule", "leaf") == "case"

    def _case_node_inputs(self, structure=None):
        """Per node of ``structure``: what a case decides from under the case rule.

        Posteriors (prior-adjusted with the matrix priors) for a classifier, the
        prediction for a regressor; nodes without training weight take their parent's.
        """
        from .._structure._caserule import node_inputs

        t = self.tree_ if structure is None else structure
        return node_inputs(self._node_values(t), t.parent, t.depth)

    def _case_rule_stats(self, tree, node_of_row, cons, target, F):
        """Training profit of every node of the full tree under the case rule.

        Returns a dict with ``profit`` (n_nodes, n_groups): per node (and, for a
        classifier, per level of the training cases) the sum of ``F(j) Q(j, T(j),
        d_j)``, ``d_j`` the case's own best decision from the node's posteriors; and
        the ``matrix`` it was computed with (pruning refuses other matrices).
        """
        from .._structure._caserule import case_node_sums

        node_in = self._case_node_inputs(tree)
        q = cons.q_actual(target)
        if self._is_classifier:
            n_groups = len(self.classes_)
            S = case_node_sums(tree.parent, node_of_row, node_in, cons, q, F,
                               group=np.asarray(target, dtype=np.intp), n_groups=n_groups)
        else:
            S = case_node_sums(tree.parent, node_of_row, node_in, cons, q, F)[:, 0]
        return {"profit": S, "matrix": self.decision_matrix_}

    def _case_node_profit(self, structure):
        """Case-rule training profit of every node of ``structure`` (a subtree of the
        tree grown at fit), by level for a classifier; for pruning."""
        stats = getattr(self, "_case_stats_", None)
        if stats is None:
            raise ValueError(
                'decision_rule="case": this tree was fitted under the leaf rule, so it has no '
                "case-rule node statistics to prune with; refit it with "
                'decision_rule="case"'
            )
        if stats["matrix"] != self.decision_matrix_:
            raise ValueError(
                'decision_rule="case": the decision matrix (or its priors) changed since fit '
                "(redecide / what-if); pruning under the case rule needs every training "
                "case's own decision under the new matrix: refit the tree"
            )
        return stats["profit"][match_subtree_nodes(self._full_tree_, structure)]

    def _check_case_costs(self, matrix, costs, what="decide"):
        needs = matrix.is_case_specific or bool(matrix.cost_variables)
        bound = matrix.is_case_specific and matrix.case_values is not None
        if needs and costs is None and not bound:
            cols = list(matrix.cost_variables)
            raise ValueError(
                f'costs: under decision_rule="case" every case decides with its own costs, '
                f"so {what} needs them; pass costs= "
                + (f"(or X columns {cols!r})" if cols else
                   "(the case-specific consequence array)")
            )

    def _decide_case_rule(self, leaves, *, y, costs, F, index):
        """``dtdecide.decide`` on the cases' leaf posteriors (predictions) with their
        own costs: the case rule."""
        from ...decision import decide as engine_decide

        matrix = self.decision_matrix_
        self._check_case_costs(matrix, costs)
        P = self._case_node_inputs()[leaves]
        res = engine_decide(P, matrix, y=y, costs=costs, sample_weight=F,
                            target_name=self.target_name_)
        res.cases.index = index
        return res

    # ---------------------------------------------------------------- re-deciding
    def _redecide(self, structure=None, *, matrix=None, priors=None, overrides=True):
        """Recompute the decision fields of a tree from the stored node statistics.

        Parameters
        ----------
        structure : TreeStructure, optional
            The fitted tree (default ``tree_``) or a subtree of the full tree grown at
            fit (for instance a pruned one). Its nodes are matched to the full tree by
            their position.
        matrix : DecisionMatrix, optional
            Another matrix with the same levels (same knots for an interval target)
            whose costs are constants or cost variables seen at fit. Default: the
            fitted matrix.
        priors : array-like or None, optional
            Other priors for the posteriors (categorical); default: the matrix's own.
        overrides : bool, default=True
            Keep the decisions set by hand (``set_decision``) when re-deciding with the
            fitted matrix and priors.

        Returns
        -------
        TreeStructure
            A copy of ``structure`` with ``cost_sum``, ``profit_sum``,
            ``node_decision`` and ``node_expected`` recomputed (profit orientation).
        """
        check_is_fitted(self, "_full_tree_")
        if structure is None:
            structure = self.tree_
        stats = self._decision_stats_
        if stats is None:
            raise ValueError(
                "this tree was fitted without a decision_matrix: it has no decision "
                "statistics to re-decide from; refit it with a decision_matrix"
            )
        own = matrix is None and priors is None
        if matrix is None:
            matrix = self.decision_matrix_
        elif not isinstance(matrix, DecisionMatrix):
            raise TypeError(f"matrix must be a DecisionMatrix; got {type(matrix).__name__}")
        if priors is None:
            priors = matrix.priors
        else:
            if matrix.is_interval:
                raise ValueError("priors only apply to a categorical target")
            priors = np.asarray(matrix.replace(priors=priors).priors, dtype=_FLOAT)
        nodes = match_subtree_nodes(self._full_tree_, structure)
        sub = stats.take(nodes)
        fields = _leaf.node_decisions(sub, matrix, priors=priors)
        fields = _leaf.fill_empty_from_parent(
            fields, structure.parent, structure.depth, structure.weighted_n_node_samples
        )
        if own and overrides:
            fields = apply_overrides(fields, getattr(self, "decision_overrides_", None), nodes)
        return structure.replace(**fields)

    def _leaf_confidence(self, nodes, *, n_resamples=200, random_state=0):
        """Bootstrap confidence of the decisions of ``nodes`` of ``tree_``.

        See :mod:`dtdecide.tree._structure._confidence`; NaN without decision statistics.
        """
        from .._structure import _confidence

        check_is_fitted(self, "tree_")
        nodes = np.asarray(nodes, dtype=np.intp)
        stats = self._decision_stats_
        tree = self.tree_
        if stats is None or tree.node_decision is None:
            return np.full(nodes.shape[0], np.nan)
        matrix = self.decision_matrix_
        full = match_subtree_nodes(self._full_tree_, tree)[nodes]
        priors = None
        if not matrix.is_interval and matrix.priors is not None:
            priors = np.asarray(matrix.priors, dtype=_FLOAT)
        return _confidence.bootstrap_confidence(
            stats.take(full), stats.take(np.array([0])), matrix,
            n_rows=tree.n_node_samples[nodes], value=tree.value[nodes],
            decision=tree.node_decision[nodes], priors=priors, n_resamples=n_resamples,
            random_state=random_state,
        )

    def redecide(self, matrix=None, *, priors=None):
        """A copy deciding with another matrix or priors, without refitting.

        The leaves keep their training cases; each node's decision is recomputed from
        its stored statistics under the new consequences (and costs, which must be
        constants or cost variables seen at fit).

        Parameters
        ----------
        matrix : DecisionMatrix, default=None
            A matrix with the fitted levels (knots). None keeps the fitted matrix.
        priors : array-like of shape (n_levels,), default=None
            New priors (categorical target); replace the matrix's.

        Returns
        -------
        estimator
            A shallow copy with ``tree_``, ``decision_matrix``, ``decision_matrix_`` and
            ``decisions_`` for the new matrix; the original is unchanged.
        """
        check_is_fitted(self, "tree_")
        new = self.decision_matrix_ if matrix is None else matrix
        if priors is not None and new is not None:
            new = new.replace(priors=priors)
        if getattr(self, "is_ordinal_", False):
            warnings.warn(
                "this tree is ordinal: its splits were grown on the generalized Gini of the "
                "original matrix; re-deciding changes the leaf decisions, not the splits a "
                "new matrix would have grown (refit for that)",
                UserWarning,
                stacklevel=2,
            )
        out = copy.copy(self)
        out.tree_ = self._redecide(matrix=new)
        out.decision_matrix = new
        out.decision_matrix_ = new
        out.decisions_ = tuple(new.decisions)
        return out

    # ---------------------------------------------------------------- scoring helpers
    def _handle_unknown(self):
        # models pickled before the parameter existed warn, as new ones do by default
        value = getattr(self, "handle_unknown", "warn")
        if value not in ("warn", "error"):
            raise ValueError(f'handle_unknown must be "warn" or "error"; got {value!r}')
        return value

    def _encode_X(self, X):
        """Raw inputs -> the float64 code matrix of the fitted encoding."""
        check_is_fitted(self, "tree_")
        X, _ = self._drop_cost_features(X)
        return encode(X, self._encoding, estimator_name=type(self).__name__,
                      handle_unknown=self._handle_unknown())

    def _apply_raw(self, X, label_counts=None):
        """Leaf ids of raw inputs (cost columns dropped), encoded block by block."""
        check_is_fitted(self, "tree_")
        X, _ = self._drop_cost_features(X)
        return encode_apply(X, self._encoding, self.tree_.apply,
                            estimator_name=type(self).__name__,
                            handle_unknown=self._handle_unknown(), label_counts=label_counts)

    def apply(self, X):
        """Leaf id of every case.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Inputs, with the columns (names and types) seen in ``fit``.

        Returns
        -------
        ndarray of shape (n_samples,)
            Id of the leaf each case falls in (a node id of ``tree_``).
        """
        if is_dask_collection(X):
            return score_dask(self, "apply", X)
        return self._apply_raw(X)

    def decision_path(self, X):
        """Sparse indicator of the nodes each case passes through.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Inputs, with the columns (names and types) seen in ``fit``.

        Returns
        -------
        scipy.sparse.csr_matrix of shape (n_samples, n_nodes)
            Entry ``[i, j]`` is 1 when case ``i`` passes through node ``j``.
        """
        check_is_fitted(self, "tree_")
        if is_dask_collection(X):
            raise NotImplementedError(
                "decision_path on Dask collections is not supported (a sparse matrix of "
                "every row); use apply(X) for the leaf of every case, per partition"
            )
        X_codes = self._encode_X(X)
        return self.tree_.decision_path(X_codes)

    def get_depth(self):
        """Depth of the tree.

        Returns
        -------
        int
            Number of splits on the longest path from the root to a leaf (0 for a tree
            that is a single leaf).
        """
        check_is_fitted(self, "tree_")
        return self.tree_.max_depth

    def get_n_leaves(self):
        """Number of leaves of the tree.

        Returns
        -------
        int
            Count of nodes without children.
        """
        check_is_fitted(self, "tree_")
        return self.tree_.n_leaves

    def get_tree_view(self):
        """The read-only view of the fitted tree that readers (exports, charts) use.

        Returns
        -------
        FittedTreeView
            The node arrays, input names and categories, target levels, decision
            matrix, whether cases decide for themselves, and the per-node posteriors
            (or mean and standard deviation), decisions and expected profits in the
            user's sign (see :class:`dtdecide.tree.FittedTreeView`).
        """
        check_is_fitted(self, "tree_")
        return tree_view_of(self)

    @property
    def feature_importances_(self):
        """Normalised total weighted impurity decrease of each input."""
        check_is_fitted(self, "tree_")
        t = self.tree_
        internal = np.flatnonzero(t.children_left >= 0)
        out = np.zeros(self.n_features_in_, dtype=_FLOAT)
        if internal.size:
            wi = t.weighted_n_node_samples * t.impurity
            gain = wi[internal] - wi[t.children_left[internal]] - wi[t.children_right[internal]]
            np.add.at(out, t.feature[internal], np.maximum(gain, 0.0))
        total = out.sum()
        return out / total if total > 0 else out

    def _leaf_decisions(self, leaves):
        """(D_idx, E) of the cases from their leaves (profit orientation)."""
        t = self.tree_
        if t.node_decision is None:
            raise ValueError(
                "decide needs a tree fitted with a decision_matrix; got decision_matrix=None"
            )
        d = t.node_decision[leaves]
        e = t.node_expected[leaves, d]
        return d, e

    def _predict_decision(self, X, costs):
        if is_dask_collection(X):
            return predict_decision_dask(self, X, costs)
        check_is_fitted(self, "tree_")
        names = np.asarray(self.decisions_ if self.decisions_ is not None else (),
                           dtype=object)
        if not self._case_rule():
            d, _ = self._leaf_decisions(self.apply(X))
            return names[d]
        res = self.decide(X, costs=costs)
        codes = res.cases[f"D_{self.target_name_}"].cat.codes.to_numpy()
        out = names[np.maximum(codes, 0)]
        out[codes < 0] = None
        return out

    def decide(self, X, y=None, costs=None, sample_weight=None, *, confidence=False,
               n_resamples=200, random_state=0):
        """One decision per case, with profit figures.

        Under the leaf rule (``decision_rule="leaf"``, the default) the decision and the
        expected profit come from the case's leaf (chosen from the leaf's training
        cases); the case's own actual costs only enter ``IC_``, ``ROI_``, ``CP_`` and
        ``BP_``, never the decision. Under ``decision_rule="case"`` each case decides
        from its leaf's posteriors (prediction) and its own ``costs``: the result is
        exactly ``dtdecide.decide(tree.predict_proba(X), matrix, y=y, costs=costs)``
        (``tree.predict(X)`` for a regressor), costs are then required, and a case with
        a missing cost cannot decide: its ``D_`` and ``EP_`` are missing and it counts
        in ``n_missing``, as in :func:`dtdecide.decide`. What follows describes the
        leaf rule.

        A missing (NaN) cost never blanks ``D_`` or ``EP_``/``EL_``. It blanks only what
        needs it: ``IC_`` and ``CP_``/``CL_`` are missing when the cost of the case's
        *chosen* decision is missing, ``BP_``/``BL_`` when the cost of *any* decision
        is missing, and ``ROI_`` when ``CP_`` or ``IC_`` is. The ``summary`` covers the
        cases none of whose costs is missing (``n_missing`` counts the others, and
        ``frequency`` is the weight of those covered), so that expected, computed and
        best profit, investment and ROI all describe the same cases;
        ``misclassification_rate`` needs no cost and covers every case.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Inputs; may also hold the cost columns recorded in ``cost_features_``.
        y : array-like of shape (n_samples,), default=None
            Actual target, for ``CP_``/``BP_``/``ROI_`` and the realised summaries.
        costs : DataFrame, dict of arrays or ndarray, default=None
            The cases' actual costs (cost-variable columns), or the case-specific
            consequence array. Needed with ``y`` when the matrix uses case costs; when
            absent without ``y``, ``IC_`` is missing for the cases whose decision has a
            cost variable (and so is ``total_investment``).
        sample_weight : array-like of shape (n_samples,), default=None
            Frequencies used in the summary.
        confidence : bool, default=False
            Add how sure each case's leaf is of its decision, after ``EP_``/``EL_``:
            ``MARGIN_`` (the leaf's expected profit per case of its decision minus that
            of the runner-up decision, in profit orientation) and ``CONF_`` (the share
            of bootstrap resamples of the leaf's training cases in which the same
            decision stays best): the leaf table's ``margin`` and ``confidence``, case
            by case. Leaf rule only.
        n_resamples : int, default=200
            Bootstrap resamples per leaf for ``CONF_`` (as in the leaf table).
        random_state : int, numpy Generator or RandomState, or None, default=0
            Seeds the resamples (the default gives the leaf table's figures).

        Returns
        -------
        DecisionResult
            ``cases`` with the columns of :func:`dtdecide.decide` (``D_``, ``EP_``/
            ``EL_``, ``CP_``/``CL_``, ``BP_``/``BL_``, ``IC_``, ``ROI_``, suffixed with
            the target name; with ``confidence=True`` also ``MARGIN_`` and ``CONF_``)
            and ``summary`` with the same statistics.

        Examples
        --------
        >>> import pandas as pd
        >>> from dtdecide import DecisionMatrix, ProfitTreeClassifier
        >>> X = pd.DataFrame({"x": [0, 0, 0, 1, 1]})
        >>> y = ["yes", "no", "no", "yes", "yes"]
        >>> m = DecisionMatrix({"mail": [20.0, 0.0], "skip": [0.0, 0.0]},
        ...                    levels=["yes", "no"], kind="revenue", costs={"mail": "c"})
        >>> tree = ProfitTreeClassifier(decision_matrix=m, max_depth=1, min_samples_leaf=1,
        ...                             min_samples_split=2)
        >>> tree = tree.fit(X, y, costs={"c": [2.0, 4.0, 6.0, 1.0, 3.0]})
        >>> res = tree.decide(X, y, costs={"c": [10.0, 0.0, 1.0, 5.0, 30.0]})
        >>> res.cases[["D_target", "EP_target", "CP_target", "IC_target"]].round(2)
          D_target  EP_target  CP_target  IC_target
        0     mail       2.67       10.0       10.0
        1     mail       2.67        0.0        0.0
        2     mail       2.67       -1.0        1.0
        3     mail      18.00       15.0        5.0
        4     mail      18.00      -10.0       30.0

        A missing cost keeps the leaf's decision and expected profit; the figures that
        need the cost are missing and the case is left out of the summary:

        >>> res = tree.decide(X, y, costs={"c": [float("nan"), 0.0, 1.0, 5.0, 30.0]})
        >>> res.cases[["D_target", "EP_target", "CP_target", "IC_target"]].round(2).head(2)
          D_target  EP_target  CP_target  IC_target
        0     mail       2.67        NaN        NaN
        1     mail       2.67        0.0        0.0
        >>> res.summary[["n_missing", "frequency", "total_profit"]].tolist()
        [1.0, 4.0, 4.0]

        Under the case rule each case weighs its own cost against its leaf's posteriors
        (here the raw leaf shares, ``posterior_smoothing=0``: leaf 2 has posterior 1/3
        of "yes", so mailing pays below a cost of 20/3):

        >>> case = tree.set_params(decision_rule="case", posterior_smoothing=0).fit(
        ...     X, y, costs={"c": [2.0, 4.0, 6.0, 1.0, 3.0]})
        >>> res = case.decide(X, y, costs={"c": [10.0, 0.0, 1.0, 5.0, 30.0]})
        >>> res.cases[["D_target", "EP_target", "CP_target"]].round(2)
          D_target  EP_target  CP_target
        0     skip       0.00        0.0
        1     mail       6.67        0.0
        2     mail       5.67       -1.0
        3     mail      15.00       15.0
        4     skip       0.00        0.0
        """
        if is_dask_collection(X):
            return decide_dask(self, X, y=y, costs=costs, sample_weight=sample_weight,
                               confidence=confidence, n_resamples=n_resamples,
                               random_state=random_state)
        check_is_fitted(self, "tree_")
        matrix = self.decision_matrix_
        if matrix is None:
            raise ValueError(
                "decide needs a tree fitted with a decision_matrix; got decision_matrix=None"
            )
        X_in, cost_frame = self._drop_cost_features(X)
        label_counts = {}
        leaves = encode_apply(X_in, self._encoding, self.tree_.apply,
                              estimator_name=type(self).__name__,
                              handle_unknown=self._handle_unknown(), label_counts=label_counts)
        n = leaves.shape[0]
        given_index = reference_index(X)
        index = pd.RangeIndex(n) if given_index is None else given_index

        check_same_index(costs, given_index, "costs")
        check_same_index(y, given_index, "y")
        F = check_sample_weight(sample_weight, n, index=given_index)
        if costs is None and cost_frame is not None:
            costs = cost_frame
        if not isinstance(confidence, (bool, np.bool_)):
            raise TypeError(f"confidence must be True or False; got {confidence!r}")
        if confidence and (isinstance(n_resamples, bool) or not isinstance(
                n_resamples, numbers.Integral) or n_resamples < 1):
            raise ValueError(f"n_resamples must be a positive int; got {n_resamples!r}")
        if self._case_rule():
            if confidence:
                raise ValueError(
                    "confidence=True gives the margin and bootstrap confidence of a leaf's "
                    'one decision; under decision_rule="case" each case decides with its '
                    "own costs, so there is none: use confidence=False"
                )
            if y is not None:
                y = check_1d(y, "y", n_samples=n)
            return self._decide_case_rule(leaves, y=y, costs=costs, F=F, index=index)
        d_idx, E = self._leaf_decisions(leaves)
        cons = None
        needs_costs = matrix.is_case_specific or bool(matrix.cost_variables)
        if not needs_costs or costs is not None or y is not None:
            if y is not None and needs_costs and costs is None and not (
                matrix.is_case_specific and matrix.case_values is not None
            ):
                raise ValueError(
                    "costs: computed profits (CP_, BP_, ROI_) need the cases' actual costs; "
                    f"pass costs= or X columns {list(matrix.cost_variables)!r}"
                )
            cons = matrix.resolve(costs, n_samples=n, index=index)

        t = None
        pred_class = None
        if y is not None:
            y_arr = check_1d(y, "y", n_samples=n)
            if matrix.is_interval:
                t = np.asarray(y_arr, dtype=_FLOAT)
                if not np.all(np.isfinite(t)):
                    raise ValueError("y must be finite (no NaN or infinity)")
            else:
                t = encode_target(y_arr, matrix.levels)
                # class of largest posterior, per node then per case (misclassification)
                pred_class = np.argmax(self.node_posteriors_, axis=1)[leaves]
        IC, C, B = realised_profits(matrix, d_idx, cons, t)
        wrong = None
        if pred_class is not None:
            hit = pred_class != t
            wrong = np.count_nonzero(hit) if F is None else float(np.dot(F, hit))
        result = build_decision_result(
            matrix, d_idx, E, computed=C, best=B, investment=IC,
            missing=None if cons is None else cons.has_missing, sample_weight=F,
            target_codes=t, misclassified=wrong, index=index, target_name=self.target_name_,
        )
        if confidence:
            self._confidence_columns(result.cases, leaves, n_resamples, random_state)
        return _with_label_counts(result, label_counts)

    def _confidence_columns(self, cases, leaves, n_resamples, random_state):
        """``MARGIN_``/``CONF_`` of each case's leaf, inserted after ``EP_``/``EL_``."""
        from .._structure._confidence import leaf_margin

        tree = self.tree_
        all_leaves = np.flatnonzero(tree.children_left < 0)
        margin = np.full(tree.n_nodes, np.nan)
        margin[all_leaves] = leaf_margin(tree.node_expected[all_leaves],
                                         tree.node_decision[all_leaves])
        conf = np.full(tree.n_nodes, np.nan)
        if len(self.decisions_) >= 2:
            # every leaf at once, as the leaf table draws them: the same figures
            conf[all_leaves] = self._leaf_confidence(
                all_leaves, n_resamples=n_resamples, random_state=random_state)
        name = self.target_name_
        ep = f"EL_{name}" if self.decision_matrix_.kind == "loss" else f"EP_{name}"
        at = cases.columns.get_loc(ep) + 1
        cases.insert(at, f"MARGIN_{name}", margin[leaves])
        cases.insert(at + 1, f"CONF_{name}", conf[leaves])

    # ---------------------------------------------------------------- hooks
    def cost_complexity_pruning_path(self, **kwargs):
        """Weakest-link pruning path of the fitted tree, without refitting.

        Parameters
        ----------
        **kwargs
            Passed to :func:`dtdecide.tree._estimator._pruning.pruning_path`; its only option is
            ``measure`` (``None``, ``"decision"``, ``"misclassification"`` or ``"ase"``).

        Returns
        -------
        sklearn.utils.Bunch
            ``ccp_alphas``, ``n_leaves``, training totals and averages of every subtree of
            the nested sequence, from the full tree to the root alone.

        Examples
        --------
        >>> import pandas as pd
        >>> from dtdecide import DecisionMatrix, ProfitTreeClassifier
        >>> X = pd.DataFrame({"x": [1, 2, 3, 4, 5, 6, 7, 8]})
        >>> y = ["no", "no", "no", "no", "yes", "yes", "no", "yes"]
        >>> m = DecisionMatrix({"call": [10, -1], "skip": [0, 0]}, levels=["yes", "no"])
        >>> tree = ProfitTreeClassifier(decision_matrix=m, max_depth=2, min_samples_leaf=2,
        ...                             min_samples_split=4).fit(X, y)
        >>> path = tree.cost_complexity_pruning_path()
        >>> path.n_leaves.tolist(), path.ccp_alphas.tolist()
        ([3, 2, 1], [0.0, 0.0, 4.0])
        """
        from . import _pruning

        return _pruning.pruning_path(self, **kwargs)

    def prune(self, **kwargs):
        """A pruned copy of the fitted tree, without refitting.

        Parameters
        ----------
        **kwargs
            Passed to :func:`dtdecide.tree._estimator._pruning.prune_estimator`: exactly one of
            ``ccp_alpha``, ``n_leaves`` or ``subtree_index``, and optionally ``measure``.

        Returns
        -------
        estimator
            A deep copy whose ``tree_`` is the chosen subtree; the original is unchanged.

        Examples
        --------
        >>> import pandas as pd
        >>> from dtdecide import DecisionMatrix, ProfitTreeClassifier
        >>> X = pd.DataFrame({"x": [1, 2, 3, 4, 5, 6, 7, 8]})
        >>> y = ["no", "no", "no", "no", "yes", "yes", "no", "yes"]
        >>> m = DecisionMatrix({"call": [10, -1], "skip": [0, 0]}, levels=["yes", "no"])
        >>> tree = ProfitTreeClassifier(decision_matrix=m, max_depth=2, min_samples_leaf=2,
        ...                             min_samples_split=4).fit(X, y)
        >>> tree.prune(n_leaves=1).get_n_leaves(), tree.get_n_leaves()
        (1, 3)
        """
        from . import _pruning

        return _pruning.prune_estimator(self, **kwargs)


def _with_label_counts(result, label_counts):
    """Add ``n_unseen_<column>`` and ``n_missing_<column>`` of every categorical input
    to the summary of a tree's decision result (rows, not frequencies)."""
    if not label_counts:
        return result
    extra = {}
    for name, (n_unseen, n_missing) in label_counts.items():
        extra[f"n_unseen_{name}"] = float(n_unseen)
        extra[f"n_missing_{name}"] = float(n_missing)
    summary = result.summary
    result.summary = pd.Series(  # one Series, not a concat (scoring one row pays per call)
        np.concatenate([summary.to_numpy(), np.fromiter(extra.values(), dtype=summary.dtype,
                                                        count=len(extra))]),
        index=summary.index.append(pd.Index(list(extra), dtype=summary.index.dtype)),
        name=summary.name,
    )
    return result


def uses_case_rule(estimator):
    """Whether ``estimator`` is a profit tree whose cases decide for themselves
    (``decision_rule="case"``); False for any other object. The one test of the rule
    outside the estimators (pruning, exporters, command line)."""
    return isinstance(estimator, _BaseProfitTree) and estimator._case_rule()


# ============================================================================ classifier
class ProfitTreeClassifier(ClassifierMixin, _BaseProfitTree):
    """A fast classification tree with one business decision per leaf.

    Grows a tree level-wise on binned inputs (histograms, native categorical splits and
    missing values) for a binary, nominal or ordinal target. With a ``decision_matrix``
    every node also stores the expected profit of each decision and its best decision
    (design notes section 3): posteriors from the node's training cases
    (prior-adjusted when the matrix has priors), case costs averaged over the node's
    training cases, training profit for case-specific consequence arrays. By default
    decisions do not change how a nominal or binary tree grows (``split_weights="loss"``
    lets the matrix's regret weight the classes in split search); an ordinal tree grows
    on the generalized Gini of the matrix's regret.

    Parameters
    ----------
    decision_matrix : DecisionMatrix, default=None
        Categorical decision matrix (levels). None gives a plain classification tree.
    criterion : {"gini", "entropy", "profit"}, default="gini"
        Impurity for nominal and binary targets. ``"profit"`` grows on the money of the
        decisions (needs a ``decision_matrix``): each training case is weighted by what a
        wrong decision costs it, ``max_d q(i,d) - min_d q(i,d)`` with ``q(i,d) = Q(i,
        T(i), d)`` its own realised consequences (case costs, case-specific arrays and
        cost rows included; times ``prior / training proportion`` of its class when
        ``use_priors_``), labelled by its own best decision, and split on the Gini of
        those weighted labels (user guide: "Growing on the money"). With case costs the
        weights are per unit of each case's stake ``sum_t (max_d Q(i,t,d) - min_d
        Q(i,t,d))``, so a case weighs by how its costs tip it, not by its size (a few
        huge cases would steer every split). That is under the
        leaf rule; under ``decision_rule="case"`` every case decides with its own costs
        from its leaf's posteriors, so ``"profit"`` grows on the Gini of the classes,
        which estimates those posteriors: on held-out profit it beat every
        money-weighted split search there (user guide: "Which growing criterion for
        which rule"). ``split_criterion_`` says which impurity was used. Ordinal
        targets ignore the criterion: they use the generalized Gini of the matrix's regret
        ``max_d' Q(t,d') - Q(t,d)`` (a loss matrix is used as is), or of the rank
        distance ``|i - j|`` without a matrix.
    decision_rule : {"leaf", "case"}, default="leaf"
        How a case's decision is made. ``"leaf"`` (design notes section 3): one
        decision per leaf, from the leaf's training cases (their averaged costs); a
        case's own costs only enter the computed profit, investment and ROI. Right when
        costs become known only after deciding. ``"case"``: every case decides from its
        leaf's posteriors (prior-adjusted as the leaf rule does) and its *own*
        costs, by minimum expected loss, exactly as ``dtdecide.decide(leaf posteriors,
        matrix, costs=case costs)``; new cases then need their costs. Right when costs
        are known when deciding. Pruning (``ccp_alpha``, :meth:`prune`, the pruning
        path, :class:`PruningStudy`) assesses the same rule: under ``"case"`` a node's
        risk is minus its training cases' profit each under its own best decision.
    posterior_smoothing : float, "auto" or None, default=None
        m-estimate smoothing of the posteriors a case decides from under
        ``decision_rule="case"``: every node's posteriors are pulled toward its
        parent's (smoothed) posteriors with the weight of ``posterior_smoothing``
        training cases, ``s(v) = (n(v) p(v) + m s(parent)) / (n(v) + m)``, so that a
        small leaf's extreme shares (0 or 1 from a handful of cases) do not decide
        alone. ``predict_proba``, the case decisions, case-rule pruning, the leaf
        table, rules, plots and SQL all use the smoothed posteriors. 0 keeps the raw
        leaf shares. ``"auto"`` takes ``m = 10 / share of the rarer level`` (the
        matrix priors when it has them, else the training shares), as Zadrozny and
        Elkan suggest for calibrating tree posteriors (see the decision-quality
        guide). None (the default) is ``"auto"`` under ``decision_rule="case"`` and 0
        under the leaf rule. The value used is ``posterior_smoothing_``. Smoothing
        needs ``decision_rule="case"``: the leaf rule decides from the raw leaf shares,
        as the suite does.
    ordinal : bool, default=False
        Treat the target as ordinal. The level order comes from the matrix levels, or
        the sorted classes without a matrix. An ordered pandas Categorical target is
        ordinal whatever this says. With a matrix, it must be square (decision ``k``
        corresponds to level ``k``).
    use_priors : bool or "auto", default="auto"
        Reweight class proportions by ``prior / training proportion`` in split search.
        ``"auto"`` does so exactly when the matrix has priors; ``True`` needs matrix
        priors; ``False`` grows on the training proportions. Leaf posteriors, leaf
        decisions and pruning are prior-adjusted whenever the matrix has priors,
        whatever this says. The resolved value is ``use_priors_``.
    split_weights : {"loss"} or None, default=None
        Let the decision matrix shape the split search of a binary or nominal tree
        (Breiman et al.'s *altered priors*, as rpart does with a loss matrix). With
        ``"loss"`` class ``t`` is weighted by ``sum_d L(t, d)``, where ``L(t, d) =
        max_d' Qbar(t, d') - Qbar(t, d)`` is the regret of ``Qbar``, the
        profit-oriented matrix with case costs at their weighted training mean
        (case-specific consequences averaged over the training cases; a plain loss
        matrix is used as given). The weights are multiplied by ``prior / training
        proportion`` when ``use_priors_`` is True and rescaled to average 1 over the
        training cases. Only the split search changes: node counts, posteriors, leaf
        decisions and pruning do not. Not the default: it helped in the decision-quality
        benchmark but not uniformly. An ordinal target raises (it already grows on the
        regret), as does a tree without a decision matrix.
    max_depth : int or None, default=6
        Largest depth; None for no limit.
    min_samples_leaf : int, default=5
        Fewest training rows in a leaf.
    min_samples_split : int, default=10
        Fewest training rows in a node that may be split.
    min_impurity_decrease : float, default=0.0
        A split must decrease the weighted impurity by at least this (scikit-learn's
        definition, relative to the total training weight).
    max_leaf_nodes : int or None, default=None
        Grow best-first up to this many leaves.
    max_bins : int, default=255
        Largest number of bins of a numeric input.
    ccp_alpha : float, default=0.0
        Weakest-link pruning at the end of ``fit`` (risk = minus training profit under
        the node decisions, or misclassification without a matrix). As in
        scikit-learn, ``0.0`` keeps the grown tree untouched; ``prune(ccp_alpha=0)``
        on a fitted tree removes the splits that add no training profit.
    search : {"greedy", "exact"}, default="greedy"
        ``"greedy"`` grows split by split on the impurity ``criterion``. ``"exact"``
        searches every tree of depth at most ``max_depth`` over the splits the binning
        allows (numeric thresholds on the bin edges, the missing side, category
        orderings) for the one with the largest training objective: the training
        profit of the leaf decisions (prior-adjusted with matrix priors, as pruning
        measures it), or without a decision matrix the weighted number of correctly
        classified training cases. Depth 2 is exact in seconds on 100,000 rows;
        depth 3 is exact when the search finishes
        within ``time_limit``, otherwise the best tree found with a proven bound (see
        ``search_gap_``). Needs an integer ``max_depth`` and ignores ``criterion``
        (used only for the reported impurities); ``max_leaf_nodes`` and
        ``min_impurity_decrease`` do not apply. Only under ``decision_rule="leaf"``
        (the exact objective is the profit of one decision per leaf).
    time_limit : float or None, default=60.0
        Seconds the exact search of a depth-3 (or deeper) tree may take before it
        returns the best tree found; None for no limit. Depth 1 and 2 are always exact.
    random_state : int, RandomState instance or None, default=None
        Seeds the row sub-sample used to compute bin edges.
    handle_unknown : {"warn", "error"}, default="warn"
        What category labels unseen in training do when scoring (``predict``,
        ``decide``, ``apply``, ...). They always follow each split's missing-value
        direction; ``"warn"`` issues an :class:`~dtdecide.UnseenCategoryWarning` that
        names the columns and hints at a changed spelling or type, ``"error"`` raises a
        ``ValueError`` instead. ``decide`` also counts them in its summary
        (``n_unseen_<column>``, ``n_missing_<column>``).
    n_jobs : int or None, default=None
        Threads that bin the inputs and build the histograms of the greedy search, the
        features shared among them (scikit-learn's convention: None is 1 unless a
        ``joblib.parallel_config`` context says otherwise, -1 every core). The grown tree
        is identical for every ``n_jobs``.

    Attributes
    ----------
    classes_ : ndarray
        Class labels: the matrix levels when a matrix is given (in its order), else
        the sorted labels of ``y`` (the categories' order for an ordered Categorical).
    n_classes_ : int
    is_ordinal_ : bool
    use_priors_ : bool
        Whether split search reweighted the classes to the matrix priors.
    split_class_weight_ : ndarray of shape (n_classes,) or None
        The per-class multipliers the split search used (priors and ``split_weights``
        combined, averaging 1 over the training cases); None without reweighting.
    posterior_smoothing_ : float
        The m of ``posterior_smoothing`` used (``"auto"`` resolved; 0 = raw shares).
    split_criterion_ : str
        The impurity the split search used: ``"gini"``, ``"entropy"``, ``"profit"``
        (the cost-weighted Gini of the cases' best decisions, leaf rule only) or
        ``"generalized_gini"`` (ordinal targets).
    tree_ : TreeStructure
        The frozen node arrays, with decision statistics when a matrix is given.
    feature_names_in_ : ndarray of str
        Input names (``x0, x1, ...`` for arrays).
    n_features_in_ : int
    is_categorical_ : ndarray of bool
    categories_ : list
        Per input, None (numeric) or the array of category labels.
    has_missing_in_fit_ : ndarray of bool
        Per input, whether the training data had a missing value there (rules say
        "or ... is missing" only for those inputs).
    decision_matrix_ : DecisionMatrix or None
    decisions_ : tuple of str or None
    cost_features_ : tuple of str
        Cost-variable columns taken out of ``X`` (not used as inputs).
    target_name_ : str
        Name of ``y`` (a Series' name) or ``"target"``.
    search_profit_ : float
        ``search="exact"`` only: the training objective of the tree found (profit
        orientation: minus the training loss for a loss matrix; without a matrix the
        weighted number of correctly classified training cases).
    search_bound_ : float
        ``search="exact"`` only: a proven upper bound of the objective over every tree
        the search considers.
    search_gap_ : float
        ``search_bound_ - search_profit_``; ``0.0`` means the tree is proven optimal.
    edits_ : list of dict
        The hand edits made since ``fit`` (``set_decision``, ``prune_node``,
        ``split``), as
        JSON-serialisable records that ``fit(..., edits=edits_)`` replays.
    decision_overrides_ : dict
        Leaves whose decision was set by hand: node id -> decision index.
    feature_importances_ : ndarray of shape (n_features,)

    See Also
    --------
    ProfitTreeRegressor : The interval-target version.
    dtdecide.decide : The decision engine for any model's posteriors.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from dtdecide import DecisionMatrix, ProfitTreeClassifier
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame({"age": rng.integers(20, 70, 400),
    ...                   "job": rng.choice(["admin", "tech", "retired"], 400)})
    >>> y = np.where((X["age"] > 50) & (rng.random(400) < 0.6), "yes", "no")
    >>> m = DecisionMatrix({"call": [20, -2], "skip": [0, 0]}, levels=["yes", "no"])
    >>> tree = ProfitTreeClassifier(decision_matrix=m, max_depth=2).fit(X, y)
    >>> tree.classes_.tolist()
    ['yes', 'no']
    >>> res = tree.decide(X, y)
    >>> sorted(res.cases.columns)
    ['BP_target', 'CP_target', 'D_target', 'EP_target']
    >>> bool(res.summary["average_profit"] >= 0)
    True

    The methods on a small tree (node 0 splits at ``x <= 4.5``; leaves 1, 3 and 4):

    >>> X = pd.DataFrame({"x": [1, 2, 3, 4, 5, 6, 7, 8]})
    >>> y = ["no", "no", "no", "no", "yes", "yes", "no", "yes"]
    >>> m = DecisionMatrix({"call": [10, -1], "skip": [0, 0]}, levels=["yes", "no"])
    >>> tree = ProfitTreeClassifier(decision_matrix=m, max_depth=2, min_samples_leaf=2,
    ...                             min_samples_split=4).fit(X, y)
    >>> tree.get_depth(), tree.get_n_leaves(), tree.tree_.n_nodes
    (2, 3, 5)
    >>> tree.apply(X).tolist()
    [1, 1, 1, 1, 3, 3, 4, 4]
    >>> tree.decision_path(X[4:6]).toarray().tolist()
    [[1, 0, 1, 1, 0], [1, 0, 1, 1, 0]]
    >>> tree.predict_proba(X[5:7])
    array([[1. , 0. ],
           [0.5, 0.5]])
    >>> tree.predict(X).tolist()
    ['no', 'no', 'no', 'no', 'yes', 'yes', 'yes', 'yes']
    >>> tree.predict_decision(X).tolist()
    ['skip', 'skip', 'skip', 'skip', 'call', 'call', 'call', 'call']
    >>> dear = DecisionMatrix({"call": [10, -20], "skip": [0, 0]}, levels=["yes", "no"])
    >>> tree.redecide(dear).predict_decision(X).tolist()[4:]  # same leaves, new decisions
    ['call', 'call', 'skip', 'skip']
    """

    _is_classifier = True
    _parameter_constraints: dict = {
        **_BaseProfitTree._parameter_constraints,
        "criterion": [StrOptions({"gini", "entropy", "profit"})],
        "ordinal": ["boolean"],
        "use_priors": ["boolean", StrOptions({"auto"})],
        "split_weights": [StrOptions({"loss"}), None],
        "posterior_smoothing": [Interval(numbers.Real, 0.0, None, closed="left"),
                                StrOptions({"auto"}), None],
    }

    def __init__(
        self,
        *,
        decision_matrix=None,
        criterion="gini",
        decision_rule="leaf",
        posterior_smoothing=None,
        ordinal=False,
        use_priors="auto",
        split_weights=None,
        max_depth=6,
        min_samples_leaf=5,
        min_samples_split=10,
        min_impurity_decrease=0.0,
        max_leaf_nodes=None,
        max_bins=255,
        ccp_alpha=0.0,
        search="greedy",
        time_limit=60.0,
        random_state=None,
        handle_unknown="warn",
        n_jobs=None,
    ):
        self.decision_matrix = decision_matrix
        self.criterion = criterion
        self.decision_rule = decision_rule
        self.posterior_smoothing = posterior_smoothing
        self.ordinal = ordinal
        self.use_priors = use_priors
        self.split_weights = split_weights
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.min_samples_split = min_samples_split
        self.min_impurity_decrease = min_impurity_decrease
        self.max_leaf_nodes = max_leaf_nodes
        self.max_bins = max_bins
        self.ccp_alpha = ccp_alpha
        self.search = search
        self.time_limit = time_limit
        self.random_state = random_state
        self.handle_unknown = handle_unknown
        self.n_jobs = n_jobs

    def fit(self, X, y, sample_weight=None, costs=None, edits=None):
        """Grow the tree and give every node its decision.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Inputs. pandas category, string, object and bool columns are categorical;
            NaN marks a missing value. Columns named in the matrix's cost variables are
            taken as costs (not inputs) unless ``costs`` provides them.
            A Dask DataFrame fits on its partitions (``y``, ``sample_weight`` and
            ``costs`` then Dask collections with the same partitions); see the
            user guide page *When your data outgrow one machine*.
        y : array-like of shape (n_samples,)
            Target labels (levels of the matrix when one is given).
        sample_weight : array-like of shape (n_samples,), default=None
            Case frequencies.
        costs : DataFrame, dict of arrays or ndarray, default=None
            Training values of the cost variables, or the case-specific consequence
            array of shape (n_samples, n_levels, n_decisions).
        edits : list of dict, default=None
            Hand edits to replay after growing (and ``ccp_alpha`` pruning), as recorded
            in ``edits_`` by ``set_decision``, ``prune_node``, ``split`` and ``regrow``
            (a split or regrow needs ``X``, ``y`` and so on to be the rows it was made
            with).

        Returns
        -------
        self
            The fitted estimator.
        """
        if is_dask_collection(X):
            return fit_dask(self, X, y, sample_weight, costs, edits)
        return self._fit(X, y, sample_weight, costs, edits)

    def _prepare_target(self, y, y_arr, matrix, F):
        dtype = getattr(y, "dtype", None)
        is_ordered_cat = isinstance(dtype, pd.CategoricalDtype) and bool(dtype.ordered)
        ordinal = bool(self.ordinal) or is_ordered_cat
        if pd.isna(pd.Series(y_arr, dtype=object)).any():
            raise ValueError("y contains missing values (NaN/None); drop those cases first")
        if matrix is None:
            check_classification_targets(y_arr)
        if matrix is not None:
            if matrix.is_case_specific is False and matrix.levels is None:
                raise ValueError("decision_matrix must have levels for a classifier")
            levels = np.asarray(matrix.levels)
            if ordinal and matrix.n_levels != matrix.n_decisions:
                raise ValueError(
                    "decision_matrix must be square for an ordinal target (decision k "
                    f"corresponds to level k); got {matrix.n_levels} levels and "
                    f"{matrix.n_decisions} decisions"
                )
            if is_ordered_cat:
                cats = list(dtype.categories)
                if [c for c in cats if c in list(levels)] != [
                    lv for lv in levels.tolist() if lv in cats
                ]:
                    raise ValueError(
                        "y is an ordered Categorical whose category order "
                        f"{cats!r} disagrees with the decision_matrix levels "
                        f"{levels.tolist()!r}; reorder one of them"
                    )
            t_idx = encode_target(y_arr, levels)
            classes = levels
        elif is_ordered_cat:
            classes = np.asarray(dtype.categories)
            t_idx = encode_target(y_arr, classes)
        else:
            # unique without inverse (hash-based, no argsort of every row), then the
            # codes by binary search: the same classes_ and codes, several times faster
            classes = np.unique(y_arr)
            t_idx = np.searchsorted(classes, y_arr)
        if ordinal and self.split_weights is not None:
            raise ValueError(
                f"split_weights={self.split_weights!r} does not apply to an ordinal target: "
                "its split search already grows on the generalized Gini of the matrix's "
                "regret; leave split_weights=None"
            )
        self.classes_ = classes
        self.n_classes_ = len(classes)
        self.is_ordinal_ = ordinal
        t_idx = t_idx.astype(np.intp)
        if matrix is not None and matrix.priors is not None:
            seen = np.bincount(t_idx, weights=F, minlength=matrix.n_levels) > 0
            absent = [lv for lv, p, s in zip(matrix.levels.tolist(), matrix.priors, seen)
                      if p > 0 and not s]
            if absent:
                warnings.warn(
                    f"decision_matrix priors are positive for levels absent from the training "
                    f"data ({absent!r}); the tree cannot estimate them and gives them "
                    "posterior 0",
                    UserWarning,
                    stacklevel=4,
                )
        return t_idx

    def _resolve_posterior_smoothing(self, matrix, target, F):
        """``posterior_smoothing`` as a number (``"auto"``: 10 / share of the rarer level)."""
        value = self.posterior_smoothing
        if value is None:
            value = "auto" if self.decision_rule == "case" else 0.0
        if isinstance(value, str):  # "auto"
            if matrix is not None and matrix.priors is not None:
                share = np.asarray(matrix.priors, dtype=_FLOAT)
            else:
                share = np.bincount(target, weights=F, minlength=len(self.classes_))
                share = share / share.sum()
            share = share[share > 0]
            return float(10.0 / share.min()) if share.size > 1 else 0.0
        return float(value)

    def _split_search(self, matrix, cons, target, F):
        """The loss matrix of the split search (or None); sets ``use_priors_`` and
        ``split_class_weight_``.

        An ordinal target grows on the generalized Gini of a loss matrix (the
        matrix's training regret, or ``|i - j|`` without a matrix); the class weights
        are ``split_class_weight_``.
        """
        self.use_priors_ = self._resolve_use_priors(matrix)
        self.split_class_weight_ = self._split_class_weight(matrix, cons, target, F)
        return self._loss_matrix(matrix, cons, F)

    def _loss_matrix(self, matrix, cons, F):
        if not self.is_ordinal_:
            return None
        if matrix is None:
            return ordinal_loss_matrix(self.n_classes_)
        return training_loss_matrix(matrix, cons, F)

    def _resolve_use_priors(self, matrix):
        """``use_priors`` as a bool: "auto" is True exactly when the matrix has priors."""
        has_priors = matrix is not None and matrix.priors is not None
        if isinstance(self.use_priors, str):  # "auto" (the only string allowed)
            return has_priors
        if self.use_priors and not has_priors:
            raise ValueError(
                "use_priors=True needs a decision_matrix with priors (the split search "
                "reweights classes by prior / training proportion); got "
                + ("no decision_matrix" if matrix is None else "a matrix without priors")
                + '; use use_priors="auto" or False'
            )
        return bool(self.use_priors)

    def _split_class_weight(self, matrix, cons, target, F):
        """Per-class multipliers of the split search, or None (no reweighting).

        ``use_priors_`` contributes ``prior / training proportion``; ``split_weights="loss"``
        contributes Breiman's altered priors, the row sums of the regret matrix (see
        :func:`split_loss_weights`). Their product is rescaled so that the weights
        average 1 over the training cases (frequency-weighted).
        """
        if self.split_weights is not None and matrix is None:
            raise ValueError(
                'split_weights="loss" needs a decision_matrix (the weights are the row sums '
                "of its regret); got decision_matrix=None"
            )
        if not self.use_priors_ and self.split_weights is None:
            return None
        n_classes = len(self.classes_)
        freq = np.bincount(target, weights=F, minlength=n_classes)
        rho = freq / freq.sum()
        weight = np.ones(n_classes, dtype=_FLOAT)
        if self.use_priors_:
            priors = np.asarray(matrix.priors, dtype=_FLOAT)
            weight = np.divide(priors, rho, out=np.zeros_like(rho), where=rho > 0)
        if self.split_weights == "loss":
            weight = weight * split_loss_weights(matrix, cons, F)
        mean = float(weight @ rho)
        if not mean > 0:
            raise ValueError(
                "split_weights/use_priors: every training case would get weight 0 in the "
                "split search (the classes present in y have zero prior or zero regret "
                "in decision_matrix); use split_weights=None or other priors"
            )
        return weight / mean

    @property
    def node_posteriors_(self):
        """Posterior of every class at every node of ``tree_`` (the node statistics view).

        The frequency-weighted class proportions of each node's training cases,
        prior-adjusted when the decision matrix has priors, and smoothed toward the
        parent's with ``posterior_smoothing`` (what ``predict_proba`` gives the cases
        of a leaf). Exporters and charts read the nodes through this
        and the public ``tree_`` arrays.

        Returns
        -------
        ndarray of shape (n_nodes, n_classes)
            Columns in the order of ``classes_``; NaN for a node without weight.

        Examples
        --------
        >>> import pandas as pd
        >>> from dtdecide import ProfitTreeClassifier
        >>> X = pd.DataFrame({"x": [1, 2, 3, 4]})
        >>> tree = ProfitTreeClassifier(max_depth=1, min_samples_leaf=1,
        ...                             min_samples_split=2).fit(X, ["a", "a", "b", "b"])
        >>> tree.node_posteriors_.tolist()
        [[0.5, 0.5], [1.0, 0.0], [0.0, 1.0]]
        """
        check_is_fitted(self, "tree_")
        return self._node_values(self.tree_)

    def _node_values(self, structure):
        """Posteriors of every node of ``structure`` (prior-adjusted with matrix priors)."""
        priors = None
        m = self.decision_matrix_
        if m is not None and m.priors is not None:
            priors = np.asarray(m.priors, dtype=_FLOAT)
        post = _leaf.node_posteriors(structure.value, priors)
        smoothing = float(getattr(self, "posterior_smoothing_", 0.0))
        if smoothing > 0:
            post = _leaf.smooth_posteriors(post, np.asarray(structure.value).sum(axis=1),
                                           structure.parent, structure.depth, smoothing)
        return post

    def predict_proba(self, X):
        """Posterior of every class from the case's leaf.

        Prior-adjusted when the decision matrix has priors.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Inputs, with the columns (names and types) seen in ``fit``.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Leaf posterior of every class, columns in the order of ``classes_``.
        """
        if is_dask_collection(X):
            return score_dask(self, "predict_proba", X)
        leaves = self.apply(X)
        return self.node_posteriors_[leaves]

    def predict(self, X):
        """Most probable class of every case (first class on ties).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Inputs, with the columns (names and types) seen in ``fit``.

        Returns
        -------
        ndarray of shape (n_samples,)
            Most probable class of every case.
        """
        if is_dask_collection(X):
            return score_dask(self, "predict", X)
        leaves = self.apply(X)
        # the most probable class of each node, then one gather per case (the same as
        # argmax over predict_proba rows, without the (n_samples, n_classes) array)
        node_class = np.argmax(self.node_posteriors_, axis=1)
        return self.classes_.take(node_class.take(leaves))

    def predict_decision(self, X, costs=None):
        """Decision name of every case (its leaf's decision, or its own under the case rule).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Inputs, with the columns (names and types) seen in ``fit``; may also hold
            the cost columns recorded in ``cost_features_``.
        costs : DataFrame, dict of arrays or ndarray, default=None
            The cases' own costs. Needed under ``decision_rule="case"`` when the matrix
            has case costs (each case decides with them); ignored under the leaf rule.

        Returns
        -------
        ndarray of object, shape (n_samples,)
            Name of every case's decision; under the case rule None for a case with a
            missing cost (it cannot decide).
        """
        return self._predict_decision(X, costs)


# ============================================================================ regressor
class ProfitTreeRegressor(RegressorMixin, _BaseProfitTree):
    """A fast regression tree with one business decision per leaf.

    Grows on the variance of an interval target. With an interval ``decision_matrix``
    (knots) every leaf predicts its training mean ``P`` and takes the decision that
    maximises the leaf sum ``sum_j F(j) L(j, P, d) / sum_j F(j)``, where ``L``
    interpolates the consequences over the knots (linear extrapolation outside).

    Parameters
    ----------
    decision_matrix : DecisionMatrix, default=None
        Interval decision matrix (knots). None gives a plain regression tree.
    criterion : {"variance", "profit"}, default="variance"
        Impurity used to grow the tree: the weighted variance of the target, or
        ``"profit"`` (needs a ``decision_matrix``): the cost-weighted Gini of the cases'
        best decisions under their realised consequences ``L(i, Y(i), d)``, as for
        :class:`ProfitTreeClassifier`; under ``decision_rule="case"`` (each case
        decides from its leaf's prediction with its own costs) the variance, which
        estimates that prediction. ``split_criterion_`` says which was used.
    decision_rule : {"leaf", "case"}, default="leaf"
        How a case's decision is made. ``"leaf"`` (design notes section 3): one
        decision per leaf, from the leaf's training cases (their averaged costs); a
        case's own costs only enter the computed profit, investment and ROI. Right when
        costs become known only after deciding. ``"case"``: every case decides from its
        leaf's prediction and its *own*
        costs, by minimum expected loss, exactly as ``dtdecide.decide(leaf posteriors,
        matrix, costs=case costs)``; new cases then need their costs. Right when costs
        are known when deciding. Pruning (``ccp_alpha``, :meth:`prune`, the pruning
        path, :class:`PruningStudy`) assesses the same rule: under ``"case"`` a node's
        risk is minus its training cases' profit each under its own best decision.
    max_depth : int or None, default=6
        Largest depth; None for no limit.
    min_samples_leaf : int, default=5
        Fewest training rows a leaf may hold.
    min_samples_split : int, default=10
        Fewest training rows a node needs before it may be split.
    min_impurity_decrease : float, default=0.0
        A split must lower the weighted impurity by at least this much.
    max_leaf_nodes : int or None, default=None
        Largest number of leaves (best-first growth); None for no limit.
    max_bins : int, default=255
        Largest number of bins of a numeric input.
    ccp_alpha : float, default=0.0
        Weakest-link pruning at the end of ``fit`` (risk = minus training profit, or
        the sum of squared errors without a matrix); ``0.0`` keeps the grown tree.
    search : {"greedy", "exact"}, default="greedy"
        ``"greedy"`` grows split by split on the impurity ``criterion``. ``"exact"``
        searches every tree of depth at most ``max_depth`` over the splits the binning
        allows (numeric thresholds on the bin edges, the missing side, category
        orderings) for the one with the largest training objective: the training
        profit of the leaf decisions (prior-adjusted with matrix priors, as pruning
        measures it), or without a decision matrix minus the training sum of squared
        errors. Depth 2 is exact in seconds on 100,000 rows; depth 3 is exact when
        the search finishes
        within ``time_limit``, otherwise the best tree found with a proven bound (see
        ``search_gap_``). Needs an integer ``max_depth`` and ignores ``criterion``
        (used only for the reported impurities); ``max_leaf_nodes`` and
        ``min_impurity_decrease`` do not apply. Only under ``decision_rule="leaf"``
        (the exact objective is the profit of one decision per leaf).
    time_limit : float or None, default=60.0
        Seconds the exact search of a depth-3 (or deeper) tree may take before it
        returns the best tree found; None for no limit. Depth 1 and 2 are always exact.
    random_state : int, RandomState instance or None, default=None
        Seeds the row sub-sample used to compute bin edges.
    handle_unknown : {"warn", "error"}, default="warn"
        What category labels unseen in training do when scoring (``predict``,
        ``decide``, ``apply``, ...). They always follow each split's missing-value
        direction; ``"warn"`` issues an :class:`~dtdecide.UnseenCategoryWarning` that
        names the columns and hints at a changed spelling or type, ``"error"`` raises a
        ``ValueError`` instead. ``decide`` also counts them in its summary
        (``n_unseen_<column>``, ``n_missing_<column>``).
    n_jobs : int or None, default=None
        Threads that bin the inputs and build the histograms of the greedy search, the
        features shared among them (scikit-learn's convention: None is 1 unless a
        ``joblib.parallel_config`` context says otherwise, -1 every core). The grown tree
        is identical for every ``n_jobs``.

    Attributes
    ----------
    tree_ : TreeStructure
    feature_names_in_ : ndarray of str
    n_features_in_ : int
    is_categorical_ : ndarray of bool
    categories_ : list
    has_missing_in_fit_ : ndarray of bool
        Per input, whether the training data had a missing value there.
    decision_matrix_ : DecisionMatrix or None
    decisions_ : tuple of str or None
    cost_features_ : tuple of str
    target_name_ : str
    use_priors_ : bool
        Always False.
    split_class_weight_ : None
        Always None (no class weights for an interval target).
    split_criterion_ : str
        The impurity the split search used: ``"variance"`` or ``"profit"`` (the
        cost-weighted Gini of the cases' best decisions, leaf rule only).
    search_profit_ : float
        ``search="exact"`` only: the training objective of the tree found (profit
        orientation: minus the training loss for a loss matrix; without a matrix the
        minus the sum of squared errors).
    search_bound_ : float
        ``search="exact"`` only: a proven upper bound of the objective over every tree
        the search considers.
    search_gap_ : float
        ``search_bound_ - search_profit_``; ``0.0`` means the tree is proven optimal.
    edits_ : list of dict
        The hand edits made since ``fit`` (``set_decision``, ``prune_node``,
        ``split``), as
        JSON-serialisable records that ``fit(..., edits=edits_)`` replays.
    decision_overrides_ : dict
        Leaves whose decision was set by hand: node id -> decision index.
    feature_importances_ : ndarray of shape (n_features,)

    See Also
    --------
    ProfitTreeClassifier : The categorical-target version.

    Examples
    --------
    >>> import numpy as np
    >>> from dtdecide import DecisionMatrix, ProfitTreeRegressor
    >>> rng = np.random.default_rng(0)
    >>> X = rng.uniform(0, 10, size=(300, 2))
    >>> y = 3 * X[:, 0] + rng.normal(size=300)
    >>> m = DecisionMatrix({"invest": [-20, 40], "wait": [0, 0]}, knots=[0, 30])
    >>> reg = ProfitTreeRegressor(decision_matrix=m, max_depth=3).fit(X, y)
    >>> sorted(set(reg.decide(X).cases["D_target"]))
    ['invest', 'wait']
    """

    _parameter_constraints: dict = {
        **_BaseProfitTree._parameter_constraints,
        "criterion": [StrOptions({"variance", "profit"})],
    }

    def __init__(
        self,
        *,
        decision_matrix=None,
        criterion="variance",
        decision_rule="leaf",
        max_depth=6,
        min_samples_leaf=5,
        min_samples_split=10,
        min_impurity_decrease=0.0,
        max_leaf_nodes=None,
        max_bins=255,
        ccp_alpha=0.0,
        search="greedy",
        time_limit=60.0,
        random_state=None,
        handle_unknown="warn",
        n_jobs=None,
    ):
        self.decision_matrix = decision_matrix
        self.criterion = criterion
        self.decision_rule = decision_rule
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.min_samples_split = min_samples_split
        self.min_impurity_decrease = min_impurity_decrease
        self.max_leaf_nodes = max_leaf_nodes
        self.max_bins = max_bins
        self.ccp_alpha = ccp_alpha
        self.search = search
        self.time_limit = time_limit
        self.random_state = random_state
        self.handle_unknown = handle_unknown
        self.n_jobs = n_jobs

    def fit(self, X, y, sample_weight=None, costs=None, edits=None):
        """Grow the tree and give every node its decision.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Inputs. pandas category, string, object and bool columns are
            categorical; NaN marks a missing value.
            A Dask DataFrame fits on its partitions (``y``, ``sample_weight`` and
            ``costs`` then Dask collections with the same partitions); see the
            user guide page *When your data outgrow one machine*.
        y : array-like of shape (n_samples,)
            Numeric target.
        sample_weight : array-like of shape (n_samples,), default=None
            Case frequencies.
        costs : DataFrame, dict of arrays or ndarray, default=None
            Training values of the cost variables (or columns of ``X``), or the
            case-specific consequence array (n_samples, n_knots, n_decisions).
        edits : list of dict, default=None
            Hand edits to replay after growing (and ``ccp_alpha`` pruning), as recorded
            in ``edits_`` by ``set_decision``, ``prune_node``, ``split`` and ``regrow``
            (a split or regrow needs ``X``, ``y`` and so on to be the rows it was made
            with).

        Returns
        -------
        self
            The fitted estimator.

        Examples
        --------
        >>> from dtdecide import DecisionMatrix, ProfitTreeRegressor
        >>> X = [[1.0], [2.0], [3.0], [4.0], [5.0], [6.0]]
        >>> y = [1.0, 1.0, 2.0, 8.0, 9.0, 9.0]
        >>> m = DecisionMatrix({"invest": [-5, 5], "wait": [0, 0]}, knots=[0, 10])
        >>> reg = ProfitTreeRegressor(decision_matrix=m, max_depth=1, min_samples_leaf=1,
        ...                           min_samples_split=2).fit(X, y)
        >>> reg.get_n_leaves()
        2
        """
        if is_dask_collection(X):
            return fit_dask(self, X, y, sample_weight, costs, edits)
        return self._fit(X, y, sample_weight, costs, edits)

    def _prepare_target(self, y, y_arr, matrix, F):
        try:
            t = np.asarray(y_arr, dtype=_FLOAT)
        except (TypeError, ValueError):
            raise ValueError("y must be numeric for ProfitTreeRegressor") from None
        if not np.all(np.isfinite(t)):
            raise ValueError("y contains NaN or infinity; the target must be finite")
        return t

    def _node_values(self, structure):
        """Prediction (training mean) of every node of ``structure``."""
        v = structure.value
        with np.errstate(invalid="ignore", divide="ignore"):
            return v[:, 1] / v[:, 0]

    def predict(self, X):
        """Leaf mean of every case.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Inputs, with the columns (names and types) seen in ``fit``.

        Returns
        -------
        ndarray of shape (n_samples,)
            Training mean of the target in every case's leaf.

        Examples
        --------
        >>> from dtdecide import DecisionMatrix, ProfitTreeRegressor
        >>> X = [[1.0], [2.0], [3.0], [4.0], [5.0], [6.0]]
        >>> y = [1.0, 1.0, 2.0, 8.0, 9.0, 9.0]
        >>> m = DecisionMatrix({"invest": [-5, 5], "wait": [0, 0]}, knots=[0, 10])
        >>> reg = ProfitTreeRegressor(decision_matrix=m, max_depth=1, min_samples_leaf=1,
        ...                           min_samples_split=2).fit(X, y)
        >>> reg.predict([[1.5], [5.5]])
        array([1.33333333, 8.66666667])
        """
        if is_dask_collection(X):
            return score_dask(self, "predict", X)
        leaves = self.apply(X)
        v = self.tree_.value
        return (v[:, 1] / v[:, 0])[leaves]

    def predict_decision(self, X, costs=None):
        """Decision name of every case (its leaf's decision, or its own under the case rule).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Inputs, with the columns (names and types) seen in ``fit``; may also hold
            the cost columns recorded in ``cost_features_``.
        costs : DataFrame, dict of arrays or ndarray, default=None
            The cases' own costs. Needed under ``decision_rule="case"`` when the matrix
            has case costs (each case decides with them); ignored under the leaf rule.

        Returns
        -------
        ndarray of object, shape (n_samples,)
            Name of every case's decision; under the case rule None for a case with a
            missing cost (it cannot decide).

        Examples
        --------
        >>> from dtdecide import DecisionMatrix, ProfitTreeRegressor
        >>> X = [[1.0], [2.0], [3.0], [4.0], [5.0], [6.0]]
        >>> y = [1.0, 1.0, 2.0, 8.0, 9.0, 9.0]
        >>> m = DecisionMatrix({"invest": [-5, 5], "wait": [0, 0]}, knots=[0, 10])
        >>> reg = ProfitTreeRegressor(decision_matrix=m, max_depth=1, min_samples_leaf=1,
        ...                           min_samples_split=2).fit(X, y)
        >>> reg.predict_decision([[1.5], [5.5]]).tolist()
        ['wait', 'invest']
        """
        return self._predict_decision(X, costs)
