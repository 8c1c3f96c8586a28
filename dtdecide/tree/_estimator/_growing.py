"""Growing a profit tree: the estimator's choice of criterion and search, handed to the
algorithms (a mixin of the estimators).

Layer 5 (estimator) of :mod:`dtdecide.tree` (``_estimator``); see the architecture page.

The greedy grower (:func:`~dtdecide.tree._algorithms._grower.grow_tree`) on binned inputs,
or the exact search (:mod:`dtdecide.tree._algorithms._exact`); ``_grow`` is the hook the
test trees of the export tests override.
"""

from __future__ import annotations

import functools
import numbers

import numpy as np
from sklearn.utils.validation import check_random_state

from ..._jit import use_compiled
from ..._parallel import check_n_jobs, thread_pool
from .._algorithms._grower import grow_tree
from .._kernels._binning import Binner, EarlyDraw
from .._kernels._profit import DEFAULT_PROFIT_METHOD
from .._structure import _leaf

__all__ = ["_GrowingMixin", "on_fit_threads"]


def on_fit_threads(fit):
    """``fit`` run with the estimator's ``n_jobs`` threads open around it.

    The steps of the fit that use threads -- binning and growing, the node and
    decision statistics, the case rule's sums -- ask for ``n_jobs`` threads each; inside
    this pool :func:`~dtdecide._parallel.thread_pool` hands them the one
    already open, so a fit starts its threads (and sets the BLAS and OpenMP limits) once.
    An invalid ``n_jobs`` opens no pool here: ``fit``'s own parameter check reports it.
    """

    @functools.wraps(fit)
    def fit_on_threads(self, *args, **kwargs):
        try:
            n_threads = check_n_jobs(getattr(self, "n_jobs", None))
        except (TypeError, ValueError):
            n_threads = 1
        with thread_pool(n_threads) as pool:
            X = args[0] if args else kwargs.get("X")
            self._early_draw = _early_draw(self, pool, X)
            try:
                return fit(self, *args, **kwargs)
            finally:
                self.__dict__.pop("_early_draw", None)
                self.__dict__.pop("_early_seed", None)

    return fit_on_threads


def _early_draw(est, pool, X):
    """The bin edges' sub-sample of ``est``'s fit on ``X``, started on a worker thread of
    ``pool`` (an :class:`~dtdecide.tree._kernels._binning.EarlyDraw`), or None.

    Only where the draw is known before the inputs are checked: an integer
    ``random_state`` (its seed is then the one :meth:`_GrowingMixin._grow` draws), the
    greedy search on every training row, more rows than the sub-sample. The worker
    draws while the calling thread checks the inputs and encodes the target.
    """
    random_state = getattr(est, "random_state", None)
    if (pool is None or not isinstance(random_state, numbers.Integral)
            or isinstance(random_state, bool)
            or getattr(est, "honest_fraction", None) is not None
            or getattr(est, "search", "greedy") != "greedy"):
        return None
    shape = getattr(X, "shape", None)
    if shape is None or len(shape) != 2 or not isinstance(shape[0], numbers.Integral):
        return None
    n_samples = int(shape[0])
    size = Binner().subsample
    if n_samples <= size:
        return None
    seed = _binner_seed(est)
    est._early_seed = (random_state, seed)  # an integer's seed: the same every time
    return EarlyDraw.start(pool, seed, n_samples, size, use_compiled(n_samples))


def _binner_seed(est):
    """The seed of the fit's :class:`Binner` (drawn from ``random_state``; for an integer
    ``random_state`` the one :func:`_early_draw` drew, kept for the fit)."""
    kept = est.__dict__.get("_early_seed")
    if kept is not None and kept[0] is est.random_state:
        return kept[1]
    return check_random_state(est.random_state).randint(np.iinfo(np.int32).max)


class _GrowingMixin:
    """How a profit tree grows: the split criterion and search."""

    def _honest_rows(self, target, F):
        """(growing rows, estimation rows) under ``honest_fraction``, or None.

        A ``honest_fraction`` share of the training rows (stratified by class for a
        classifier when every class has two rows) is held out of growing; sets
        ``honest_rows_`` (the estimation rows' positions, or None).
        """
        fraction = getattr(self, "honest_fraction", None)
        self.honest_rows_ = None
        if fraction is None:
            return None
        from sklearn.model_selection import train_test_split

        n = target.shape[0]
        stratify = None
        if self._is_classifier:
            counts = np.bincount(np.asarray(target, dtype=np.intp))
            stratify = target if counts[counts > 0].min() >= 2 else None
        seed = check_random_state(self.random_state).randint(np.iinfo(np.int32).max)
        try:
            grow, est = train_test_split(np.arange(n), test_size=fraction, stratify=stratify,
                                         random_state=seed)
        except ValueError as exc:
            raise ValueError(
                f"honest_fraction={fraction!r}: cannot hold out that share of {n} training "
                f"rows ({exc})"
            ) from None
        grow, est = np.sort(grow), np.sort(est)
        if not F[grow].sum() > 0 or not F[est].sum() > 0:
            raise ValueError(
                f"honest_fraction={fraction!r}: the growing or the estimation rows have no "
                "positive sample_weight"
            )
        self.honest_rows_ = est
        return grow, est

    def _with_estimation_values(self, tree, node_of_row, target, F):
        """``tree`` with ``value``, ``n_node_samples`` and ``weighted_n_node_samples``
        summed from other rows (honest estimation); the splits and the growing
        impurities stay."""
        n_nodes = tree.n_nodes
        if self._is_classifier:
            rows = np.zeros((F.shape[0], len(self.classes_)))
            rows[np.arange(F.shape[0]), np.asarray(target, dtype=np.intp)] = F
        else:
            y = np.asarray(target, dtype=np.float64)
            rows = np.column_stack([F, F * y, F * y * y])
        value = _leaf.propagate_up(_leaf.leaf_sums(node_of_row, rows, n_nodes), tree.parent,
                                   tree.depth)
        counts = _leaf.propagate_up(
            np.bincount(node_of_row, minlength=n_nodes).astype(np.float64), tree.parent,
            tree.depth)
        weighted = value.sum(axis=1) if self._is_classifier else value[:, 0].copy()
        return tree.replace(value=value, n_node_samples=counts.astype(np.intp),
                            weighted_n_node_samples=weighted)

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
        binner = Binner(max_bins=self.max_bins, random_state=_binner_seed(self))
        early = self.__dict__.pop("_early_draw", None)
        if early is not None:  # its rows, when they are this binner's (EarlyDraw)
            binner._early_draw = early
        # NaN per column, counted while binning (the fit's has_missing_in_fit_)
        self._binned_nan = np.zeros(X_codes.shape[1], dtype=np.int64)
        with thread_pool(check_n_jobs(getattr(self, "n_jobs", None))) as pool:
            X_binned = binner.fit_transform(X_codes, self.is_categorical_, F,
                                            check_input=False, pool=pool,
                                            nan_counts=self._binned_nan)
            return self._grow_binned(X_binned, binner, target, F, class_weight=class_weight,
                                     loss_matrix=loss_matrix, case_profit=case_profit,
                                     pool=pool)

    def _grow_binned(self, X_binned, binner, target, F, *, class_weight, loss_matrix,
                     case_profit, pool):
        tree, leaves = grow_tree(
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
            return_leaves=True,
        )
        # every training row's leaf, for the fit's node statistics (see ``_grown_leaves``)
        self._grown = (tree, leaves)
        return tree

    def _grown_leaves(self, tree):
        """The leaf of every row the tree ``tree`` was grown on, as the grower left
        them (``tree.apply`` of those rows, without routing them again), or None when
        ``tree`` did not come from :meth:`_grow_binned` (another search, an override).
        Forgets them."""
        grown = self.__dict__.pop("_grown", None)
        if grown is None or grown[0] is not tree:
            return None
        return grown[1]

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

    def _costs_after_growing(self, matrix):
        """Whether the fit needs the cases' consequences only after growing, and they hold
        a cost array per case: its costs are then checked before growing
        (:meth:`~dtdecide.DecisionMatrix.missing_cost_cases`) and resolved once, after
        it, instead of resolved twice (a (cases x decisions) float64 array each time).
        Not for the exact search, a split search on the cases' money, an ordinal
        target's loss matrix or split weights from the matrix's regret, which read the
        consequences while growing."""
        return (not matrix.is_case_specific and bool(matrix.cost_variables)
                and self.search != "exact" and not self._grows_on_money(None)
                and not getattr(self, "is_ordinal_", False)
                and getattr(self, "split_weights", None) is None)

    def _growing_criterion(self, loss_matrix):
        if loss_matrix is not None:
            return "generalized_gini"
        if self.criterion == "profit":  # the case rule, or the matrix-free fallback
            return "variance" if not self._is_classifier else "gini"
        return self.criterion

    def _resolve_posterior_smoothing(self, matrix, target, F):
        """The m of the posterior smoothing (classifiers only; 0 = none)."""
        return 0.0
