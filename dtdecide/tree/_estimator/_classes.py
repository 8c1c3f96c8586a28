"""Profit trees: :class:`ProfitTreeClassifier` and :class:`ProfitTreeRegressor`.

Layer 5 (estimator) of :mod:`dtdecide.tree` (``_estimator``); see the architecture page.

The estimators glue the stages together: raw inputs are encoded
(:mod:`dtdecide.tree._structure._encode`), binned and grown into frozen node arrays
(:mod:`dtdecide.tree._kernels._binning`, :mod:`dtdecide.tree._algorithms._grower`,
:mod:`dtdecide.tree._structure._tree`), and every node gets its decision statistics
(:mod:`dtdecide.tree._structure._leaf`) so that each leaf carries one decision, chosen as
section 3 of the design notes says.

The shared base class is assembled from mixins, one concern a module: the fit-time checks
(:mod:`._fit_checks`), growing (:mod:`._growing`), deciding (:mod:`._deciding`), hand edits
(:mod:`._editing`) and the notebook view (:mod:`._html`); ``_fit``,
scoring and pruning stay here.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils._param_validation import HasMethods, Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from ..._dtypes import FLOAT_DTYPE as _FLOAT
from ..._dtypes import code_dtype
from ..._parallel import check_n_jobs
from ...decision._kernels import _target_codes
from ...decision._validation import (
    check_1d,
    check_class_count,
    check_interval_target,
    check_same_index,
    check_sample_weight,
    has_missing_labels,
    reference_index,
    refuse_bool_numbers,
)
from .._algorithms._edit import replay_edits
from .._backends._dask import is_dask_collection
from .._kernels._binning import (
    InfiniteValuesError,
    TooManyCategoriesError,
    too_many_categories,
)
from .._kernels._criteria import ordinal_loss_matrix, split_loss_weights, training_loss_matrix
from .._kernels._profit import DEFAULT_PROFIT_METHOD, growth_consequences, level_consequences
from .._structure import _leaf
from .._structure._encode import (
    encode,
    encode_apply,
    fit_encode,
    infinity_error,
    pandas_frame_of,
    warn_identifier_columns,
)
from .._structure._view import tree_view_of
from ._dask import fit_dask, score_dask
from ._deciding import _DecidingMixin
from ._editing import EditMixin
from ._fit_checks import _FitChecksMixin
from ._growing import _GrowingMixin, on_fit_threads
from ._guide import check_guide, guide_posteriors, guided_leaf_consequences
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


# ============================================================================ base class
class _BaseProfitTree(_FitChecksMixin, _GrowingMixin, _DecidingMixin, EditMixin, HTMLReprMixin,
                      BaseEstimator):
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

    def _validate_params(self):
        """scikit-learn's checks of the constraints, and no bool for a number (the one
        check of the options, in memory, on Dask and in ``regrow``)."""
        super()._validate_params()
        refuse_bool_numbers(self)

    # ---------------------------------------------------------------- tags
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        return tags

    # ---------------------------------------------------------------- fit
    @on_fit_threads
    def _fit(self, X, y, sample_weight, costs, edits=None):
        self._validate_params()
        X = pandas_frame_of(X)  # a pyarrow or polars table: named columns, as pandas'
        self.decision_overrides_ = {}
        self.edits_ = []
        matrix = self._check_matrix()
        self._check_fit_options(matrix)
        index = reference_index(X)
        check_same_index(y, index, "y")
        X_in, resolve_costs, cost_columns, cost_features = self._split_costs(X, costs, matrix)
        # infinite values are found while binning (the pass over every value that binning
        # makes anyway), or below for the rows growing does not bin
        # and no copy of X: a float32 array or a frame of several blocks is binned column
        # by column (a code matrix is built only for the paths below that need one)
        X_codes, encoding = fit_encode(X_in, check_finite=False, as_columns=True)
        warn_identifier_columns(X_in, stacklevel=4)
        n = X_codes.shape[0]
        y_arr = _check_fit_y(y)
        if y_arr.shape[0] != n:
            raise ValueError(
                f"X and y have inconsistent numbers of samples: {n} and {y_arr.shape[0]}"
            )
        F = check_sample_weight(sample_weight, n, index=index, positive_sum=True)
        if F is None:
            # every case weight 1: a read-only view of one number, not n of them
            F = np.broadcast_to(_FLOAT(1.0), (n,))

        self.feature_names_in_ = encoding.feature_names
        self.n_features_in_ = len(encoding.feature_names)
        self.is_categorical_ = encoding.is_categorical
        self.categories_ = encoding.categories
        self._encoding = encoding
        self.cost_features_ = cost_features
        self.decision_matrix_ = matrix
        self.decisions_ = None if matrix is None else tuple(matrix.decisions)
        self.target_name_ = (
            str(y.name) if isinstance(y, pd.Series) and y.name is not None else "target"
        )

        target = self._prepare_target(y, y_arr, matrix, F)
        cons = None
        checked_only = matrix is not None and self._costs_after_growing(matrix)
        if matrix is not None:
            if checked_only:  # checked here, resolved after growing (re_resolve below)
                missing = matrix.missing_cost_cases(resolve_costs, n_samples=n)
            else:
                cons = matrix.resolve(resolve_costs, n_samples=n)
                missing = cons.has_missing
            if missing.any():
                k = int(np.count_nonzero(missing))
                raise ValueError(
                    f"costs: {k} training case(s) have a missing cost; the leaf averages of "
                    "the costs need every training case's costs (impute or drop them)"
                )
            if cons is not None:
                cons.refuse_overflow()
        loss_matrix = self._split_search(matrix, cons, target, F)
        self.posterior_smoothing_ = self._resolve_posterior_smoothing(matrix, target, F)
        priors = np.asarray(matrix.priors, dtype=_FLOAT) if self.use_priors_ else None

        self.split_criterion_ = self._split_criterion(loss_matrix)
        check_guide(self, self.split_criterion_)
        honest = self._honest_rows(target, F)
        grow = slice(None) if honest is None else honest[0]
        # a _grow or _grow_exact of a subclass gets the code matrix, as it always did
        growing = "_grow_exact" if self.search == "exact" else "_grow"
        if honest is not None or (getattr(type(self), growing)
                                  is not getattr(_GrowingMixin, growing)):
            X_codes = _code_matrix(X_codes)
        self.__dict__.pop("_grown", None)
        self.__dict__.pop("_binned_nan", None)
        # a grower that reads no consequences (not "profit", not the exact search) does not
        # keep the cases' cost rows, a (cases x decisions) float64 array, through growing:
        # they are resolved again from the same columns after it (a few ms at 2M cases)
        re_resolve = checked_only or (cons is not None and self.search != "exact"
                                      and self.split_criterion_ != "profit"
                                      and _per_case_array(cons.case_costs))
        if re_resolve:
            cons = None
        guided = None  # with a guide_model: (growing rows' consequences, posteriors)
        try:
            if self.search == "exact":
                tree = self._grow_exact(X_codes, target, F, loss_matrix=loss_matrix,
                                        cons=cons, cost_columns=cost_columns)
            else:
                extra = {}
                if self.split_criterion_ == "profit":
                    method = getattr(self, "_profit_method", DEFAULT_PROFIT_METHOD)
                    if getattr(self, "guide_model", None) is not None:
                        # the expected profit under a guide's cross-fitted posteriors
                        guided = (cons if honest is None else cons.take(grow),
                                  guide_posteriors(self, X_in, target, F, grow, priors))

                    def case_profit():
                        # the realised (or the guide's expected) profit of every decision
                        # for every training case, made when growing starts and not kept
                        # while the tree grows
                        if guided is not None:
                            return growth_consequences(guided[0], None, method, guided[1])
                        return growth_consequences(cons, target, method)[grow]

                    # consequences of the level alone: the grower needs no per-case array
                    case_profit.level_table = (level_consequences(cons) if guided is None
                                               else None)
                    extra = {"case_profit": case_profit}
                tree = self._grow(X_codes if honest is None else X_codes[grow],
                                  target[grow], F[grow], loss_matrix=loss_matrix,
                                  priors=priors, **extra)
        except InfiniteValuesError as exc:
            raise infinity_error(encoding.feature_names[exc.column]) from None
        except TooManyCategoriesError as exc:
            raise too_many_categories(encoding.feature_names[exc.column],
                                      exc.n_categories) from None
        # NaN per column, counted while binning every row (else looked for here, with
        # the infinite values of the rows growing did not bin)
        nan = self.__dict__.pop("_binned_nan", None)
        if nan is None or honest is not None:
            self.has_missing_in_fit_ = _check_codes(X_codes, encoding)
        else:
            self.has_missing_in_fit_ = nan > 0
        # every training row's leaf as growing left it (None: route the rows below)
        node_of_row = self._grown_leaves(tree) if honest is None else None
        self.__dict__.pop("_grown", None)
        if re_resolve:
            cons = matrix.resolve(resolve_costs, n_samples=n)
            if checked_only:  # its costs were checked only for missing values
                cons.refuse_overflow()

        if honest is not None:
            # honest leaves: every node's figures from the rows held out of growing
            est = honest[1]
            X_codes, target, F, cons = X_codes[est], target[est], F[est], cons.take(est)
            cost_columns = {k: np.asarray(v)[est] for k, v in (cost_columns or {}).items()}
            tree = self._with_estimation_values(tree, tree.apply(X_codes), target, F)
        self._full_tree_ = tree
        self._decision_stats_ = None
        if matrix is not None:
            if node_of_row is None:
                node_of_row = tree.apply(
                    _code_matrix(X_codes),
                    n_threads=check_n_jobs(getattr(self, "n_jobs", None)))
            # a guided tree's leaves decide on their cases' expected profit under the
            # guide (case-specific consequences, no priors, every row grown on)
            leaf_cons = (cons if guided is None or honest is not None
                         else guided_leaf_consequences(cons, guided[1], matrix))
            stats = _leaf.compute_decision_stats(
                node_of_row, tree.parent, tree.depth, cons=leaf_cons, sample_weight=F,
                t_idx=None if matrix.is_interval else target,
                y=target if matrix.is_interval else None,
                rows=matrix.rows, decisions=matrix.decisions, cost_columns=cost_columns,
                n_jobs=check_n_jobs(getattr(self, "n_jobs", None)),
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
        return self._encode_apply(X, self.tree_.apply, label_counts)

    def _encode_apply(self, X, apply, label_counts=None, out_dtypes=None):
        """``apply`` of the codes of ``X`` (cost columns already dropped), block by block
        on the estimator's threads (:func:`encode_apply` with the fitted encoding)."""
        return encode_apply(X, self._encoding, apply, estimator_name=type(self).__name__,
                            handle_unknown=self._handle_unknown(), label_counts=label_counts,
                            n_jobs=getattr(self, "n_jobs", None), out_dtypes=out_dtypes)

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

    # ---------------------------------------------------------------- hooks
    def cost_complexity_pruning_path(self, *args, measure=None, pruning_sequence="rule"):
        """Weakest-link pruning path of the fitted tree, without refitting.

        Parameters
        ----------
        *args
            None: the path comes from the fitted tree's training statistics, so
            scikit-learn's ``X, y`` are refused with a ``TypeError`` saying so.
        measure : {None, "decision", "misclassification", "ase"}, default=None
            Risk driving the path. None uses the decision matrix (average profit) when
            it has at least two decisions, otherwise misclassification (classifier) or
            average squared error (regressor).
        pruning_sequence : {"rule", "leaf"}, default="rule"
            The order of the path. ``"rule"`` follows the training measure of the
            tree's own decision rule; ``"leaf"`` (under ``decision_rule="case"``)
            follows the nodes' leaf decisions, each node's one best decision from its
            averaged costs, while the training totals stay the case rule's. The same
            sequence for a leaf-rule tree and for the misclassification and
            squared-error measures.

        Returns
        -------
        sklearn.utils.Bunch
            One entry per subtree of the nested sequence, from the full tree (index 0)
            to the root alone: ``ccp_alphas`` (non-decreasing), ``n_leaves``,
            ``train_total`` and ``train_average`` (in the user's orientation: a loss
            matrix gives losses); also ``measure``, ``higher_is_better`` and, per node,
            ``collapse_step`` (the first subtree in which the node is a leaf).

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
        if args:
            raise TypeError(
                "cost_complexity_pruning_path takes no data: the path comes from the "
                "fitted tree's training statistics (scikit-learn's X, y are not needed); "
                "pass measure= or pruning_sequence= only"
            )
        from . import _pruning

        return _pruning.pruning_path(self, measure=measure, pruning_sequence=pruning_sequence)

    def prune(self, *, ccp_alpha=None, n_leaves=None, subtree_index=None, measure=None,
              pruning_sequence="rule"):
        """A pruned copy of the fitted tree, without refitting.

        Exactly one of ``ccp_alpha``, ``n_leaves`` or ``subtree_index`` picks the
        subtree of the pruning sequence (:meth:`cost_complexity_pruning_path`).

        Parameters
        ----------
        ccp_alpha : float, optional
            Smallest subtree whose alpha is at most ``ccp_alpha``.
        n_leaves : int, optional
            Largest subtree with at most ``n_leaves`` leaves.
        subtree_index : int, optional
            Position in the pruning sequence (0 = the full tree).
        measure : {None, "decision", "misclassification", "ase"}, default=None
            Risk driving the sequence, as in :meth:`cost_complexity_pruning_path`.
        pruning_sequence : {"rule", "leaf"}, default="rule"
            The order of the sequence, as in :meth:`cost_complexity_pruning_path`.

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

        return _pruning.prune_estimator(
            self, ccp_alpha=ccp_alpha, n_leaves=n_leaves, subtree_index=subtree_index,
            measure=measure, pruning_sequence=pruning_sequence)


def _code_matrix(X_codes):
    """The code matrix of ``fit_encode(..., as_columns=True)``'s result (built from a
    column source)."""
    return X_codes if isinstance(X_codes, np.ndarray) else X_codes.to_array(order="F")


def _check_codes(X, encoding, block=1 << 15):
    """Columns of the codes ``X`` (a matrix or a column source) holding a NaN, found a
    block of rows (or a column) at a time, no mask of the whole matrix; an infinite
    value is an error naming its column."""
    found = np.zeros(X.shape[1], dtype=bool)
    inf = np.zeros(X.shape[1], dtype=bool)
    if not isinstance(X, np.ndarray):
        for j in range(X.shape[1]):
            col = np.asarray(X.column(j))
            if col.dtype.kind == "f":
                found[j], inf[j] = np.isnan(col).any(), np.isinf(col).any()
    for start in range(0, X.shape[0] if isinstance(X, np.ndarray) else 0, block):
        part = X[start : start + block]
        found |= np.isnan(part).any(axis=0)
        inf |= np.isinf(part).any(axis=0)
    if inf.any():
        raise infinity_error(encoding.feature_names[int(np.argmax(inf))])
    return found


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
        under the leaf rule. The value used is ``posterior_smoothing_``. Under the leaf
        rule a positive value smooths both things a leaf's one decision comes from:
        its posteriors and its cases' average consequences (each level's average
        profit of every decision with case-specific costs, each decision's average
        cost with cost variables) are pulled toward the parent's with the same weight,
        so that a small leaf holding a few large cases does not decide alone; the
        nodes' training sums (pruning risks, reported profits) stay their own. The
        decision-quality guide measures both rules with and without it;
        :func:`fit_recommended` chooses the strength on validation data.
    honest_fraction : float in (0, 1) or None, default=None
        Honest leaves: this share of the training rows (stratified by class, drawn with
        ``random_state``) is held out of growing, and every node's figures -- class
        counts, posteriors, leaf-averaged costs, decisions, the node risks that pruning
        uses and the leaf table's ``n`` -- are estimated on those held-out rows only,
        so that they are not biased toward the rows that chose the splits (as honest
        causal trees do). Under either decision rule. A node that none of the held-out
        rows reach takes its parent's posterior and decision. Costs fewer rows to grow
        on: compare with and without on validation data (:func:`fit_recommended` does).
        The held-out rows are ``honest_rows_``. None grows and estimates on every row.
    guide_model : classifier or None, default=None
        A scikit-learn classifier (``fit`` and ``predict_proba``, e.g.
        :class:`~sklearn.ensemble.HistGradientBoostingClassifier`) that guides the split
        search of ``criterion="profit"`` under the leaf rule. Each training case gets
        its posteriors from a copy of the guide fitted on the other ``guide_cv`` folds
        of the training rows (cross-fitted, stratified, drawn with ``random_state``;
        adjusted to the matrix priors when it has them), and the tree grows on the
        expected profit of every decision under them and the case's own costs,
        ``E(i, d) = sum_t p(i, t) Q(i, t, d)``, instead of the realised profit
        ``Q(i, T(i), d)`` of its one outcome: the splits then separate the cases by the
        decision that is best for them as the guide sees them, a smoother signal than
        their outcomes. With case-specific consequences (cost rows or a consequence
        array per case) and no matrix priors each leaf also decides, and each node's
        pruning risk sums, on its training cases' expected profit under the guide
        (estimates that do not hang on each case's one outcome); otherwise leaf
        decisions and risks come from the realised profit. The leaf posteriors are
        always the training cases' class shares, and the tree stays one decision per
        leaf, with its leaf table, rules and SQL; the guide is not kept.
        With ``honest_fraction`` the guide is cross-fitted on the growing rows only.
        Costs ``guide_cv`` fits of the guide; the guide must take ``sample_weight`` when
        the fit has case frequencies. :func:`fit_recommended` compares it with the
        unguided trees (``guide_model`` of :func:`recommended_candidates`); the
        decision-quality guide measures it. Not for the Dask backend; ``split``,
        ``regrow`` and ``split_candidates`` grow on the realised profit. None: grow on
        the realised profit.
    guide_cv : int, default=5
        Folds of the guide's cross-fitting (at least 2; each level needs at least as
        many growing cases).
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
        Threads that bin the inputs, build the histograms and scan the splits of the
        greedy search (the features shared among them), and route the rows when scoring
        (``predict``, ``apply``, ``decide``: ranges of rows); scikit-learn's convention:
        None is 1 unless a ``joblib.parallel_config`` context says otherwise, -1 every
        core. The grown tree and every score are identical for every ``n_jobs``.

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
    honest_rows_ : ndarray of int or None
        With ``honest_fraction``: positions (in the training rows) of the rows the
        node figures were estimated on; None otherwise.
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
        ``split``, ``regrow``), as JSON-serialisable records that
        ``fit(..., edits=edits_)`` replays; each carries the ``fingerprint`` of the node
        it edited, which the replay checks.
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
        "honest_fraction": [Interval(numbers.Real, 0.0, 1.0, closed="neither"), None],
        "guide_model": [HasMethods(["fit", "predict_proba"]), None],
        "guide_cv": [Interval(numbers.Integral, 2, None, closed="left")],
    }

    def __init__(
        self,
        *,
        decision_matrix=None,
        criterion="gini",
        decision_rule="leaf",
        posterior_smoothing=None,
        honest_fraction=None,
        guide_model=None,
        guide_cv=5,
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
        self.honest_fraction = honest_fraction
        self.guide_model = guide_model
        self.guide_cv = guide_cv
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
            Target labels (levels of the matrix when one is given). Without a matrix,
            every distinct value is a class; more than 1,000 classes, or more than 100
            and fewer than two cases a class, is refused (ValueError): that is a numeric
            target, such as an amount, for :class:`ProfitTreeRegressor`.
        sample_weight : array-like of shape (n_samples,), default=None
            Case frequencies.
        costs : DataFrame, dict of arrays or ndarray, default=None
            Training values of the cost variables, or the case-specific consequence
            array of shape (n_samples, n_levels, n_decisions).
        edits : list of dict, default=None
            Hand edits to replay after growing (and ``ccp_alpha`` pruning), as recorded
            in ``edits_`` by ``set_decision``, ``prune_node``, ``split`` and ``regrow``
            (a split or regrow needs ``X``, ``y`` and so on to be the rows it was made
            with). A record names its node by id and carries the node's
            ``fingerprint``: the splits on the path from the root (``feature``,
            ``threshold`` or ``categories``, ``missing``, and the ``side`` taken) and
            the node's training case count ``n``, as they were when the edit was made.
            A record whose fingerprint differs from that of the node of this tree with
            its id (a tree grown from other rows or with other settings) raises a
            ValueError naming the record, the node and what differs. Records without a
            fingerprint (made before records carried one) are replayed by node id
            alone, with a warning.

        Returns
        -------
        self
            The fitted estimator.
        """
        if is_dask_collection(X):
            return fit_dask(self, X, y, sample_weight, costs, edits)
        return self._fit(X, y, sample_weight, costs, edits)

    def _prepare_target(self, y, y_arr, matrix, F, n_cases=None):
        """Classes and the class code of every case; ``n_cases``: the number of cases
        when ``y_arr`` holds only their distinct labels (the Dask fit)."""
        dtype = getattr(y, "dtype", None)
        is_ordered_cat = isinstance(dtype, pd.CategoricalDtype) and bool(dtype.ordered)
        ordinal = bool(self.ordinal) or is_ordered_cat
        if has_missing_labels(y_arr):
            raise ValueError("y contains missing values (NaN/None); drop those cases first")
        if matrix is None:
            try:
                check_classification_targets(y_arr)
            except ValueError as exc:  # scikit-learn's words, naming y and the way out
                mixed = "unknown" in str(exc) and y_arr.dtype == object
                raise ValueError(
                    f"y: {exc}" + (" (y mixes labels of several types, such as numbers and "
                                   "text: give them one type)" if mixed else "")
                ) from None
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
            t_idx = _target_codes(y_arr, levels)
            classes = levels
        elif is_ordered_cat:
            classes = np.asarray(dtype.categories)
            check_class_count(len(classes), len(y_arr) if n_cases is None else n_cases)
            t_idx = _target_codes(y_arr, classes)
        else:
            # unique without inverse (hash-based, no argsort of every row), then the
            # codes by binary search: the same classes_ and codes, several times faster
            classes = np.unique(y_arr)
            # an amount given by mistake: refused before anything is sized by the classes
            check_class_count(len(classes), len(y_arr) if n_cases is None else n_cases)
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
        # the smallest integer dtype (int8 below 127 classes): one byte a case
        t_idx = t_idx.astype(code_dtype(len(classes)), copy=False)
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
        if getattr(self, "honest_rows_", None) is not None:
            # a node no held-out row reached has no posterior of its own: its parent's
            post = _leaf.fill_nan_from_parent(post, structure.parent, structure.depth)
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
        Threads that bin the inputs, build the histograms and scan the splits of the
        greedy search (the features shared among them), and route the rows when scoring
        (``predict``, ``apply``, ``decide``: ranges of rows); scikit-learn's convention:
        None is 1 unless a ``joblib.parallel_config`` context says otherwise, -1 every
        core. The grown tree and every score are identical for every ``n_jobs``.

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
    posterior_smoothing_ : float
        Always 0.0 (no posteriors to smooth for an interval target).
    honest_rows_ : None
        Always None (honest leaves are a classifier option).
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
        ``split``, ``regrow``), as JSON-serialisable records that
        ``fit(..., edits=edits_)`` replays; each carries the ``fingerprint`` of the node
        it edited, which the replay checks.
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
            with). A record names its node by id and carries the node's
            ``fingerprint``: the splits on the path from the root (``feature``,
            ``threshold`` or ``categories``, ``missing``, and the ``side`` taken) and
            the node's training case count ``n``, as they were when the edit was made.
            A record whose fingerprint differs from that of the node of this tree with
            its id (a tree grown from other rows or with other settings) raises a
            ValueError naming the record, the node and what differs. Records without a
            fingerprint (made before records carried one) are replayed by node id
            alone, with a warning.

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
        return check_interval_target(y_arr, "y", estimator=type(self).__name__)

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


def _per_case_array(a):
    """Whether ``a`` holds memory per case (not None, not a broadcast row)."""
    return a is not None and a.ndim >= 1 and a.shape[0] > 1 and a.strides[0] != 0
