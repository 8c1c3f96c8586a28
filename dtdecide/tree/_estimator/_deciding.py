"""The decisions of a fitted profit tree (a mixin of the estimators).

Layer 5 (estimator) of :mod:`dtdecide.tree` (``_estimator``); see the architecture page.

Leaf decisions from the stored node statistics (the leaf rule) or each case's own
decision from its leaf's posteriors (prediction) and costs (the case rule, through
:func:`dtdecide.decide`); re-deciding with another matrix or priors without refitting;
``decide`` with its case table and summary, on pandas or Dask.
"""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from ..._dtypes import FLOAT_DTYPE as _FLOAT
from ..._dtypes import NODE_DTYPE, code_dtype
from ..._jit import use_compiled
from ...decision import DecisionMatrix
from ...decision._kernels import encode_target
from ...decision._result import (
    build_decision_result,
    insert_confidence_columns,
    realised_profits,
)
from ...decision._validation import (
    check_1d,
    check_interval_target,
    check_same_index,
    check_sample_weight,
    check_seed,
    reference_index,
)
from .._algorithms._edit import apply_overrides
from .._backends._dask import is_dask_collection
from .._structure import _leaf
from .._structure._tree import match_subtree_nodes
from ._dask import _valid_n_resamples, decide_dask, predict_decision_dask

__all__ = ["_DecidingMixin"]


def _valid_posteriors(node_in):
    """Whether every row of ``node_in`` passes :func:`dtdecide.decide`'s posterior
    checks (finite, non-negative, summing to one): then no case's can fail them."""
    from ...decision._engine import _SUM_TOL

    if node_in.ndim != 2 or node_in.shape[0] == 0:
        return False
    s = node_in.sum(axis=1)
    with np.errstate(invalid="ignore"):
        return bool(np.all(np.abs(s - 1.0) <= _SUM_TOL) and np.all(node_in >= 0))


def _label_count_summary(label_counts):
    """``n_unseen_<column>`` and ``n_missing_<column>`` of every categorical input, for
    the summary of a tree's decision result (rows, not frequencies)."""
    extra = {}
    for name, (n_unseen, n_missing) in label_counts.items():
        extra[f"n_unseen_{name}"] = float(n_unseen)
        extra[f"n_missing_{name}"] = float(n_missing)
    return extra


class _DecidingMixin:
    """Decisions of a fitted profit tree: leaf and case rule, re-deciding, decide."""

    def __getstate__(self):
        # the case rule's cached node inputs are derived: not saved, rebuilt when needed
        state = dict(super().__getstate__())
        state.pop("_node_inputs_cache", None)
        return state

    def _case_rule(self):
        """Whether cases decide for themselves (``decision_rule="case"``)."""
        return getattr(self, "decision_rule", "leaf") == "case"

    def _case_node_inputs(self, structure=None):
        """Per node of ``structure``: what a case decides from under the case rule.

        Posteriors (prior-adjusted with the matrix priors) for a classifier, the
        prediction for a regressor; nodes without training weight take their parent's.
        """
        from .._structure._caserule import node_inputs

        if structure is not None:
            return node_inputs(self._node_values(structure), structure.parent,
                               structure.depth)
        # the fitted tree's: computed once per tree, matrix and smoothing (every decide
        # call needs them; for one case they were a third of the call). What they
        # depend on is compared by identity (the tree and matrix are immutable; edits,
        # pruning and redecide make new ones) or by value.
        key = (self.tree_, self.decision_matrix_,
               float(getattr(self, "posterior_smoothing_", 0.0)),
               getattr(self, "honest_rows_", None) is None)
        hit = getattr(self, "_node_inputs_cache", None)
        if hit is not None and hit[0][0] is key[0] and hit[0][1] is key[1] and (
                hit[0][2:] == key[2:]):
            return hit[1]
        t = self.tree_
        out = node_inputs(self._node_values(t), t.parent, t.depth)
        out.setflags(write=False)
        self._node_inputs_cache = (key, out)
        return out

    def _case_rule_stats(self, tree, node_of_row, cons, target, F):
        """Training profit of every node of the full tree under the case rule.

        Returns a dict with ``profit`` (n_nodes, n_groups): per node (and, for a
        classifier, per level of the training cases) the sum of ``F(j) Q(j, T(j),
        d_j)``, ``d_j`` the case's own best decision from the node's posteriors; and
        the ``matrix`` it was computed with (pruning refuses other matrices).
        """
        from ..._parallel import check_n_jobs
        from .._structure._caserule import case_node_sums

        node_in = self._case_node_inputs(tree)
        n_jobs = check_n_jobs(getattr(self, "n_jobs", None))
        # q=None: the cases' consequences cons.q_actual(target), computed chunk by chunk
        if self._is_classifier:
            n_groups = len(self.classes_)
            S = case_node_sums(tree.parent, node_of_row, node_in, cons, None, F,
                               group=target, n_groups=n_groups, n_jobs=n_jobs,
                               target=target)
        else:
            S = case_node_sums(tree.parent, node_of_row, node_in, cons, None, F,
                               n_jobs=n_jobs, target=target)[:, 0]
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
        node_in = self._case_node_inputs()
        n = leaves.shape[0]
        if (use_compiled(n) and not matrix.is_interval and not matrix.is_case_specific
                and _valid_posteriors(node_in)):
            return self._decide_case_rule_compiled(leaves, node_in, y=y, costs=costs, F=F,
                                                   index=index)
        # the NumPy twin: dtdecide.decide on the gathered posteriors
        res = engine_decide(node_in[leaves], matrix, y=y, costs=costs, sample_weight=F,
                            target_name=self.target_name_)
        res.cases.index = index
        return res

    def _decide_case_rule_compiled(self, leaves, node_in, *, y, costs, F, index):
        """:meth:`_decide_case_rule` with the compiled per-case step on the threads
        (:func:`~dtdecide.tree._structure._caserule.decide_cases`), for a categorical
        matrix with additive costs: the inputs checked as :func:`dtdecide.decide`
        checks them, in its order, and the same result."""
        from ..._parallel import check_n_jobs
        from ...decision._engine import (
            _CHUNK_ROWS,
            _one_blas_thread,
            additive_plan,
            target_encoder,
        )
        from .._structure._caserule import decide_cases

        matrix = self.decision_matrix_
        n = leaves.shape[0]
        t_enc = None
        if y is not None:
            t_enc = target_encoder(y, matrix.levels, n)
        F = check_sample_weight(F, n)
        matrix._check_costs_allowed(costs)
        rows = pd.RangeIndex(n)  # the engine's index for its posteriors (an array)
        # the kernel tests every case's costs for NaN itself: no scans of the columns here
        plan = additive_plan(matrix, costs, n, rows, scan=False)
        target = None if t_enc is None else t_enc.codes()
        out = decide_cases(leaves, node_in, plan, revenue=matrix.kind == "revenue",
                           target=target, weight=F,
                           keep_target=matrix.priors is not None, chunk=_CHUNK_ROWS,
                           n_jobs=check_n_jobs(getattr(self, "n_jobs", None)))
        with _one_blas_thread(n > _CHUNK_ROWS):  # the summary's products, as the engine
            return build_decision_result(
                matrix, out["decision"], out["expected"], computed=out["computed"],
                best=out["best"], investment=out["investment"], roi_values=out["roi"],
                missing=out["missing"], sample_weight=F, target_codes=out["target"],
                misclassified=out["misclassified"], index=index,
                target_name=self.target_name_,
            )

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
        leaf_smoothing = float(getattr(self, "posterior_smoothing_", 0.0))
        if leaf_smoothing > 0 and not self._case_rule():
            # the leaf rule on smoothed leaf estimates: smoothed over the full tree (a
            # node depends only on its ancestors), then the subtree's nodes taken
            full = self._full_tree_
            fields = _leaf.smoothed_node_decisions(stats, matrix, priors=priors,
                                                   parent=full.parent, depth=full.depth,
                                                   m=leaf_smoothing)
            fields = {k: v[nodes] for k, v in fields.items()}
        else:
            fields = _leaf.node_decisions(stats.take(nodes), matrix, priors=priors)
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

    def _node_decisions(self):
        """Each node's decision and its expected profit (profit orientation)."""
        t = self.tree_
        if t.node_decision is None:
            raise ValueError(
                "decide needs a tree fitted with a decision_matrix; got decision_matrix=None"
            )
        per_node = t.node_decision
        return per_node, t.node_expected[np.arange(per_node.shape[0]), per_node]

    def _leaf_decisions(self, leaves):
        """(D_idx, E) of the cases from their leaves (profit orientation)."""
        # each node's figure first (a few hundred), then one gather per case
        per_node, e_node = self._node_decisions()
        return np.take(per_node, leaves), np.take(e_node, leaves)

    def _apply_with_decisions(self, X_in, label_counts, keep_leaves=True):
        """Leaves, D_idx and E of raw inputs under the leaf rule: the two gathers run
        block by block on the threads that route the rows, writing in place. Without
        ``keep_leaves`` the leaves are not kept (None): one case-sized output less."""
        per_node, e_node = self._node_decisions()
        # the result's decision codes (int8 for fewer than 127 decisions) from the start:
        # no case-sized cast on the calling thread afterwards
        per_node = per_node.astype(code_dtype(len(self.decision_matrix_.decisions)))
        apply = self.tree_.apply

        if not keep_leaves:
            def route(block):
                leaves = apply(block)
                return np.take(per_node, leaves), np.take(e_node, leaves)

            return (None, *self._encode_apply(X_in, route, label_counts,
                                              out_dtypes=(per_node.dtype, e_node.dtype)))

        def route(block):
            leaves = apply(block)
            return leaves, np.take(per_node, leaves), np.take(e_node, leaves)

        return self._encode_apply(X_in, route, label_counts,
                                  out_dtypes=(NODE_DTYPE, per_node.dtype, e_node.dtype))

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
        >>> from dtdecide import DecisionMatrix, ProfitTreeClassifier
        >>> offer = DecisionMatrix({"offer": [8, -2], "none": [0, 0]}, levels=[1, 0])
        >>> tree = ProfitTreeClassifier(decision_matrix=offer, max_depth=1,
        ...                             min_samples_leaf=1, min_samples_split=2)
        >>> tree.fit([[0], [1], [2], [3]], [0, 0, 1, 1]).predict_decision([[0.5], [2.5]])
        array(['none', 'offer'], dtype=object)
        """
        if is_dask_collection(X):
            return predict_decision_dask(self, X, costs)
        return self._predict_decision(X, costs)

    def _predict_decision(self, X, costs):
        """:meth:`predict_decision` of ``X`` in memory (also each Dask partition's)."""
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
        return self._decide(X, y, costs, sample_weight, confidence=confidence,
                            n_resamples=n_resamples, random_state=random_state)

    def _decide(self, X, y=None, costs=None, sample_weight=None, *, confidence=False,
                n_resamples=200, random_state=0, node_confidence=None):
        """:meth:`decide` of ``X`` in memory; ``node_confidence``: the ``(margin,
        confidence)`` per node of :meth:`_node_confidence`, drawn once by a caller that
        decides many chunks (``score_file``), gathered by the leaves of the one walk."""
        check_is_fitted(self, "tree_")
        matrix = self.decision_matrix_
        if matrix is None:
            raise ValueError(
                "decide needs a tree fitted with a decision_matrix; got decision_matrix=None"
            )
        X_in, cost_frame = self._drop_cost_features(X)
        label_counts = {}
        if self._case_rule():
            # written block by block into one array on the threads (no concatenation)
            apply = self.tree_.apply
            (leaves,) = self._encode_apply(X_in, lambda block: (apply(block),), label_counts,
                                           out_dtypes=(NODE_DTYPE,))
        else:
            # the leaves serve the misclassification (y) and the confidence columns only
            keep = y is not None or (isinstance(confidence, (bool, np.bool_)) and confidence)
            leaves, d_idx, E = self._apply_with_decisions(X_in, label_counts, keep)
        n = E.shape[0] if leaves is None else leaves.shape[0]
        given_index = reference_index(X)
        index = pd.RangeIndex(n) if given_index is None else given_index

        check_same_index(costs, given_index, "costs")
        check_same_index(y, given_index, "y")
        F = check_sample_weight(sample_weight, n, index=given_index)
        if costs is None and cost_frame is not None:
            costs = cost_frame
        if not isinstance(confidence, (bool, np.bool_)):
            raise TypeError(f"confidence must be True or False; got {confidence!r}")
        if confidence and not _valid_n_resamples(n_resamples):
            raise ValueError(f"n_resamples must be a positive int; got {n_resamples!r}")
        if confidence:
            check_seed(random_state)
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
        cons = None
        needs_costs = matrix.is_case_specific or bool(matrix.cost_variables)
        if not needs_costs or costs is not None or y is not None:
            if y is not None and needs_costs and costs is None and not (
                matrix.is_case_specific and matrix.case_values is not None
            ):
                where = (
                    f"pass costs= or X columns {list(matrix.cost_variables)!r}"
                    if matrix.cost_variables else "pass costs= (the case-specific "
                    "consequences, an array of shape (n_samples, n_levels, n_decisions))"
                )
                raise ValueError(
                    "costs: computed profits (CP_, BP_, ROI_) need the cases' actual costs; "
                    + where
                )
            cons = matrix.resolve(costs, n_samples=n, index=index)

        t = None
        pred_class = None
        if y is not None:
            y_arr = check_1d(y, "y", n_samples=n)
            if matrix.is_interval:
                t = check_interval_target(y_arr, "y", estimator=type(self).__name__)
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
            extra_summary=_label_count_summary(label_counts),
        )
        if confidence:
            self._confidence_columns(result.cases, leaves, n_resamples, random_state,
                                     node_confidence)
        return result

    def _node_confidence(self, n_resamples=200, random_state=0):
        """``(margin, confidence)`` of every node of ``tree_``, NaN off the leaves.

        The leaf table's ``margin`` and ``confidence`` (every leaf drawn at once, as it
        draws them), laid out by node id so that a case's figures are one gather by its
        leaf; :func:`dtdecide.export.score_file` draws them once for all its chunks.
        """
        from .._structure._confidence import leaf_margin

        tree = self.tree_
        all_leaves = np.flatnonzero(tree.children_left < 0)
        margin = np.full(tree.n_nodes, np.nan)
        margin[all_leaves] = leaf_margin(tree.node_expected[all_leaves],
                                         tree.node_decision[all_leaves])
        conf = np.full(tree.n_nodes, np.nan)
        if len(self.decisions_) >= 2:
            conf[all_leaves] = self._leaf_confidence(
                all_leaves, n_resamples=n_resamples, random_state=random_state)
        return margin, conf

    def _confidence_columns(self, cases, leaves, n_resamples, random_state,
                            node_confidence=None):
        """``MARGIN_``/``CONF_`` of each case's leaf, inserted after ``EP_``/``EL_``;
        ``node_confidence``: the figures of :meth:`_node_confidence` already drawn."""
        if node_confidence is None:
            node_confidence = self._node_confidence(n_resamples, random_state)
        margin, conf = node_confidence
        insert_confidence_columns(cases, self.decision_matrix_, self.target_name_,
                                  margin[leaves], conf[leaves])
