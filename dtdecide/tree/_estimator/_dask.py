"""Fitting and scoring a profit tree on Dask collections: the estimator's Dask entry
points (layer 5, estimator).

:func:`fit_dask` and the scoring functions (``score_dask``, ``predict_decision_dask``,
``decide_dask``) take the estimator, read its parameters and fitted attributes and drive
the Dask backend (:mod:`dtdecide.tree._backends._dask`: summaries, binned partitions, the
histogram source of the grower, per-partition sums); the backend itself knows nothing of
the estimator classes. The notes on what travels between workers and client are in the
backend's module docstring.
"""

import numbers
from collections.abc import Mapping

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from ..._dtypes import FLOAT_DTYPE as _FLOAT
from ...decision._validation import check_seed
from .._backends import _dask_storage as _storage
from .._backends._dask import (
    _FLOAT32_EXACT_LIMIT,
    DaskRows,
    _add_arrays,
    _add_stats,
    _binner_from,
    _bound_offsets,
    _encoding_from,
    _import_dask,
    _merge_summaries,
    _packed_parts,
    _part_case_sums,
    _part_cons_sums,
    _part_stats,
    _per_part,
    _prepare,
    _summarize,
    _tree_reduce,
    _unknown_categories,
    _unpack,
    is_dask_collection,
)

__all__ = ["decide_dask", "fit_dask", "predict_decision_dask", "score_dask"]



def _refuse(est):
    """The options the Dask fit does not support yet, each named."""
    checks = [
        (est.search != "greedy", f"search={est.search!r}"),
        (getattr(est, "honest_fraction", None) is not None,
         f"honest_fraction={getattr(est, 'honest_fraction', None)!r}"),
        (getattr(est, "guide_model", None) is not None,
         f"guide_model={getattr(est, 'guide_model', None)!r}"),
    ]
    for bad, what in checks:
        if bad:
            raise NotImplementedError(
                f"{what} is not supported on Dask collections yet; fit on a pandas "
                "DataFrame (e.g. X.compute()) or use the default options"
            )


def _level_table(matrix):
    """The consequences of one case of each level where every case of a level has
    them (:func:`~dtdecide.tree._kernels._profit.level_consequences`, as the in-memory
    fit reads them), else None; from the matrix alone: no case costs, no bound
    case-specific consequences."""
    from .._kernels._profit import level_consequences

    if matrix is None or matrix.is_case_specific or matrix.costs:
        return None
    return level_consequences(matrix.resolve(None, n_samples=0))


def fit_dask(est, X, y, sample_weight=None, costs=None, edits=None):
    """Fit ``est`` (a profit tree) on Dask collections; see the module notes."""
    from .._algorithms._grower import grow_from_source
    from .._kernels._histogram import BinLayout

    dask = _import_dask()
    matrix = _check_fit_arguments(est, X, y, costs, edits)
    is_classifier = est._is_classifier
    packed, spec, summary = _summaries(dask, est, X, y, sample_weight, costs, matrix)
    n = summary["n"]
    encoding = _set_input_attributes(est, X, y, costs, matrix, summary)
    classes, shift, freq, t_lab, label_weight = _target(est, y, matrix, summary)
    # the split search's loss matrix and class weights read the training consequences
    # (their frequency-weighted sums) only for split_weights and an ordinal matrix; those
    # options never grow on money, whose channels need the class weights while binning
    needs_sums = matrix is not None and not matrix.is_interval and (
        getattr(est, "split_weights", None) is not None or getattr(est, "is_ordinal_", False)
    )
    if not needs_sums:
        loss_matrix = est._split_search(matrix, None, t_lab, label_weight)
    binner = _binner_from(summary, encoding, est.max_bins)
    unit = summary["unit"]
    small = np.dtype(np.float32 if is_classifier and unit and n < _FLOAT32_EXACT_LIMIT
                     else np.float64)
    store = _row_store(dask, summary, encoding, binner, matrix, is_classifier)
    prepare_parts = _part_preparer(dask, est, packed, spec, matrix, costs, encoding, binner,
                                   classes, unit, shift, store)

    parts = source = None
    try:
        if needs_sums:
            hist_dtype = small
            parts, places = prepare_parts(None, None, hist_dtype)
            items = _per_part(dask, _part_cons_sums, parts, places)
            (sums,) = dask.compute(_tree_reduce(dask, items, _add_arrays))
            loss_matrix = est._split_search(matrix, sums, t_lab, label_weight)
        n_classes = len(classes) if is_classifier else None
        profit, level_map = _split_criterion(est, matrix, loss_matrix, freq, n_classes,
                                             sample_weight)
        money = profit is not None and level_map is None  # per-case money channels
        if not needs_sums:
            hist_dtype = np.dtype(np.float64) if money else small
            parts, places = prepare_parts(profit if money else None,
                                          est.split_class_weight_ if money else None,
                                          hist_dtype)
        layout = BinLayout.from_binner(binner)
        # money channels never give row counts: counted separately, as in memory
        source = DaskRows(dask, parts, layout, with_counts=not unit or money,
                          n_classes=n_classes, places=places)
        tree = grow_from_source(
            source, binner, n_samples=n, n_classes=n_classes,
            criterion=est._growing_criterion(loss_matrix),
            class_weight=est.split_class_weight_, loss_matrix=loss_matrix,
            unit_weights=unit, hist_dtype=hist_dtype, shift=shift, max_depth=est.max_depth,
            min_samples_leaf=est.min_samples_leaf, min_samples_split=est.min_samples_split,
            min_impurity_decrease=est.min_impurity_decrease,
            max_leaf_nodes=est.max_leaf_nodes, profit=profit, level_map=level_map,
        )
        tree = _node_statistics(est, source, tree, matrix, classes)
    finally:
        parts = source = None  # release the persisted partitions (or their handles)
        if store is not None:  # every pass over the rows is done: remove their files
            _storage.cleanup(dask, *store)
    est.tree_ = tree
    if est.ccp_alpha > 0:
        from . import _pruning

        est.tree_ = _pruning.apply_ccp_alpha(est, est.ccp_alpha)
    if edits:
        from .._algorithms._edit import replay_edits

        # set_decision and prune_node work on the node statistics alone
        replay_edits(est, edits)
    return est


def _check_fit_arguments(est, X, y, costs, edits):
    """Check what :func:`fit_dask` is given, before any pass over the rows.

    In this order: the estimator's parameters, edits that would regrow nodes from the
    rows (not supported on Dask), ``X`` (a Dask DataFrame), ``y`` (not None), ``costs``
    (not a dict), the decision matrix and the fit options, the options the Dask fit does
    not support, ``costs`` without a matrix, and ``y`` (a Dask collection). Returns the
    checked decision matrix (None without one).
    """
    est._validate_params()
    if edits and not isinstance(edits, (str, bytes)) and hasattr(edits, "__iter__"):
        from .._algorithms._edit import _NEEDS_ROWS

        ops = sorted({e["op"] for e in edits if isinstance(e, dict) and e.get("op")
                      in _NEEDS_ROWS})
        if ops:
            raise NotImplementedError(
                f"edits with {' and '.join(repr(o) for o in ops)} records (they regrow "
                "nodes from the training rows) are not supported on Dask collections yet; "
                "fit on a pandas DataFrame, or replay only set_decision / prune_node edits"
            )
    if not hasattr(X, "to_delayed") or not hasattr(X, "columns"):
        raise TypeError(
            f"X must be a Dask DataFrame to fit on Dask; got {type(X).__name__}"
        )
    if y is None:
        raise ValueError("requires y to be passed, but the target y is None")
    if isinstance(costs, Mapping):
        raise TypeError("costs must be a Dask DataFrame when X is a Dask DataFrame; got a dict")
    matrix = est._check_matrix()
    est._check_fit_options(matrix)
    _refuse(est)
    if matrix is None and costs is not None:
        raise ValueError("costs needs a decision_matrix; got decision_matrix=None")
    if not is_dask_collection(y):
        raise TypeError(
            "y must be a Dask Series with the partitions of X when X is a Dask DataFrame; "
            f"got {type(y).__name__}"
        )
    return matrix


def _summaries(dask, est, X, y, sample_weight, costs, matrix):
    """The first pass over the rows: one summary of all partitions.

    The partitions of the inputs, target, weights and costs are packed together, each
    is summarised on its worker and the summaries are merged in a tree reduction (row
    count, weight sum, labels, bin edges' material, missing values). There must be at
    least one row and a positive weight sum. Returns ``(packed, spec, summary)``.
    """
    packed, spec = _packed_parts(X, y, sample_weight, costs)
    kw = dict(est=est, matrix=matrix, is_classifier=est._is_classifier)
    summarize = dask.delayed(_summarize, pure=True)
    items = [summarize(p, spec, **kw) for p in packed]
    (summary,) = dask.compute(_tree_reduce(dask, items, _merge_summaries))
    if summary["n"] == 0:
        raise ValueError("X must have at least one row; every partition is empty")
    if not summary["weight"] > 0:
        raise ValueError("sample_weight must have a positive sum")
    return packed, spec, summary


def _set_input_attributes(est, X, y, costs, matrix, summary):
    """Set the fitted attributes that describe the inputs, from the summary.

    The inputs' encoding (feature names, categorical columns and their categories) is
    read from the summary and the metadata of ``X``; the cost features, the decision
    matrix, the decisions, the target's name and empty overrides and edits are set as
    the in-memory fit sets them. Returns the encoding.
    """
    meta_in, _, _, cost_features = est._split_costs(X._meta, None if costs is None
                                                    else costs._meta, matrix)
    encoding = _encoding_from(summary, meta_in)
    est.decision_overrides_ = {}
    est.edits_ = []
    est.feature_names_in_ = encoding.feature_names
    est.n_features_in_ = len(encoding.feature_names)
    est.is_categorical_ = encoding.is_categorical
    est.categories_ = encoding.categories
    est.has_missing_in_fit_ = np.array(summary["has_nan"], dtype=bool)
    est._encoding = encoding
    est.cost_features_ = cost_features
    est.decision_matrix_ = matrix
    est.decisions_ = None if matrix is None else tuple(matrix.decisions)
    name = getattr(y, "name", None)
    est.target_name_ = str(name) if name is not None else "target"
    return encoding


def _target(est, y, matrix, summary):
    """The target as the grower reads it, from the summary.

    A classifier: the in-memory target preparation runs on the distinct labels with
    their weights (classes, ordinal flag and every check of the in-memory fit; a
    Categorical target must have known categories). A regressor: the weighted mean of
    the target, which the grower subtracts. Returns ``(classes, shift, freq, t_lab,
    label_weight)``: the classes, the shift, the classes' weighted frequencies and the
    codes and weights of the distinct labels (None or 0.0 where they do not apply).
    """
    classes, shift, freq, t_lab, label_weight = None, 0.0, None, None, None
    if est._is_classifier:
        labels, label_weight = summary["labels"]
        dtype = getattr(y, "dtype", None)
        if isinstance(dtype, pd.CategoricalDtype) and _unknown_categories(dtype):
            raise ValueError(
                "y is a Categorical whose categories Dask does not know; make them known "
                "(y.cat.as_known() or y.cat.set_categories(...))"
            )
        # the in-memory target preparation on the distinct labels with their weights:
        # classes, ordinal flag and every check of the in-memory fit
        t_lab = est._prepare_target(y._meta, labels, matrix, label_weight,
                                    n_cases=summary["n"])
        classes = est.classes_
        freq = np.bincount(t_lab, weights=label_weight, minlength=len(classes))
    else:
        shift = summary["wy"] / summary["weight"]
    return classes, shift, freq, t_lab, label_weight


def _row_store(dask, summary, encoding, binner, matrix, is_classifier):
    """Where the binned partitions are kept: None (worker memory) or a folder on disk.

    The storage option of the Dask configuration is resolved against the size of the
    binned rows (the binned inputs and the per-row floats: weights, targets and two per
    decision with a matrix). Returns None for memory, else ``(folder name, directory)``.
    """
    unit = summary["unit"]
    storage, directory = _storage.storage_options(dask)
    n_row_floats = (0 if unit else 1) if is_classifier else 6
    if matrix is not None:
        n_row_floats += 2 * matrix.n_decisions
    storage = _storage.choose_storage(dask, storage, _storage.binned_nbytes(
        summary["n"], len(encoding.feature_names), binner.binned_dtype_.itemsize,
        n_row_floats))
    return None if storage == "memory" else (_storage.new_folder_name(), directory)


def _part_preparer(dask, est, packed, spec, matrix, costs, encoding, binner, classes, unit,
                   shift, store):
    """A function that bins and persists every partition for the grower.

    The offsets of case-specific consequences bound to the rows are computed now (a pass
    over the rows where they apply). The function returned, ``prepare_parts(profit,
    class_weight, hist_dtype)``, persists the prepared partitions and returns ``(parts,
    places)``: the persisted partitions and, when they are on disk, the worker that wrote
    each (None in memory).
    """
    prepare = dask.delayed(_prepare, pure=True)
    offsets = _bound_offsets(dask, packed, matrix, costs)

    def prepare_parts(profit, class_weight, hist_dtype):
        parts = [prepare(k, p, spec, est=est, matrix=matrix, encoding=encoding,
                         binner=binner, classes=classes, unit=unit, shift=shift,
                         hist_dtype=hist_dtype, profit=profit, class_weight=class_weight,
                         store=store, offset=None if offsets is None else offsets[k])
                 for k, p in enumerate(packed)]
        parts = list(dask.persist(*parts))
        # a partition on disk is read on the worker that wrote it
        return parts, None if store is None else _storage.writers(dask, parts)

    return prepare_parts


def _split_criterion(est, matrix, loss_matrix, freq, n_classes, sample_weight):
    """Set the split criterion and the posterior smoothing; the profit criterion's parts.

    ``split_criterion_`` follows from the loss matrix, and ``"auto"`` smoothing reads the
    classes' training frequencies. With the profit criterion, the in-memory rule
    applies: without case costs the partitions histogram the class counts and the money
    comes from them through the level map; otherwise the partitions carry per-case money
    channels. Returns ``(profit, level_map)``: both None for another criterion, and
    ``level_map`` None with money channels.
    """
    from .._algorithms._grower import profit_level_map

    est.split_criterion_ = est._split_criterion(loss_matrix)
    # "auto" smoothing reads the classes' training frequencies: ``freq`` as (codes,
    # weights)
    est.posterior_smoothing_ = est._resolve_posterior_smoothing(
        matrix, None if freq is None else np.arange(len(freq)), freq)
    profit = level_map = None
    if est.split_criterion_ == "profit":
        from .._kernels._profit import DEFAULT_PROFIT_METHOD, ProfitCriterion

        method = getattr(est, "_profit_method", DEFAULT_PROFIT_METHOD)
        # the in-memory rule: without case costs the partitions histogram the class
        # counts and the money comes from them through the level map
        mapped = profit_level_map(_level_table(matrix), method, n_classes,
                                  est.split_class_weight_,
                                  weighted=sample_weight is not None)
        if mapped is not None:
            profit, level_map = mapped
        else:
            profit = ProfitCriterion(matrix.n_decisions, method)
    return profit, level_map


def _node_statistics(est, source, tree, matrix, classes):
    """Set the grown tree and the node statistics that need a pass over the rows.

    With a matrix, the decision statistics of every node are summed over the partitions
    and the tree's decisions are set from them; with the case rule, each case's own best
    decision at every node of its path is summed too (the pruning risk), as the
    in-memory fit sums them. Sets ``_full_tree_``, ``_decision_stats_`` and
    ``_case_stats_``; returns the tree (redecided with a matrix).
    """
    routing = source.routing
    est._full_tree_ = tree
    est._decision_stats_ = None
    if matrix is not None:
        est._decision_stats_ = source._sum(_part_stats, routing, tree.parent, tree.depth,
                                           matrix, add=_add_stats)
        tree = est._redecide(tree)
        est._full_tree_ = tree
    est._case_stats_ = None
    if matrix is not None and est._case_rule():
        # the case rule's node profits (pruning risk): each case's own best decision at
        # every node of its path, summed per partition as the in-memory fit sums them
        node_in = est._case_node_inputs(tree)
        n_groups = len(classes) if est._is_classifier else None
        S = source._sum(_part_case_sums, routing, tree.parent, node_in, n_groups)
        est._case_stats_ = {"profit": S if est._is_classifier else S[:, 0],
                            "matrix": matrix}
    return tree


# ------------------------------------------------------------------ scoring
def score_dask(est, method, X):
    """``est.<method>(X)`` per partition of a Dask DataFrame, lazily, keeping the index."""
    check_is_fitted(est, "tree_")  # at once, not when the graph is computed
    _import_dask()
    if not hasattr(X, "map_partitions") or not hasattr(X, "columns"):
        raise TypeError(f"X must be a Dask DataFrame; got {type(X).__name__}")

    if method == "predict_proba":
        names = [str(c) for c in est.classes_]
        meta = pd.DataFrame({c: pd.Series(dtype=_FLOAT) for c in names})

        def run(part):
            if not len(part):
                return meta.set_axis(part.index[:0])
            return pd.DataFrame(est.predict_proba(part), index=part.index, columns=names)

    else:
        if method == "apply":
            dtype = np.dtype(np.intp)
        elif method == "predict" and est._is_classifier:
            dtype = np.asarray(est.classes_).dtype
        else:
            dtype = np.dtype(_FLOAT)
        meta = pd.Series(np.empty(0, dtype=dtype), name=method)

        def run(part):
            if not len(part):
                return meta.set_axis(part.index[:0])
            return pd.Series(getattr(est, method)(part), index=part.index, name=method)

    return X.map_partitions(run, meta=meta)


def predict_decision_dask(est, X, costs=None):
    """``est.predict_decision(X, costs)`` per partition, lazily, keeping the index."""
    check_is_fitted(est, "tree_")
    dask = _import_dask()
    import dask.dataframe as dd

    if not hasattr(X, "map_partitions") or not hasattr(X, "columns"):
        raise TypeError(f"X must be a Dask DataFrame; got {type(X).__name__}")
    packed, spec = _packed_parts(X, None, None, costs)
    offsets = None
    if est._case_rule():  # each case decides with its own (possibly bound) consequences
        offsets = _bound_offsets(dask, packed, est.decision_matrix_, costs)
    meta = pd.Series(np.empty(0, dtype=object), name="predict_decision")

    def run(part, offset):
        Xp, _, _, cp = _unpack(part, spec)
        if not len(Xp):
            return meta.set_axis(Xp.index[:0])
        cp = _bound_costs(est, cp, offset, len(Xp))
        return pd.Series(est._predict_decision(Xp, cp), index=Xp.index, dtype=object,
                         name="predict_decision")

    return dd.from_delayed(
        [dask.delayed(run, pure=True)(p, None if offsets is None else offsets[k])
         for k, p in enumerate(packed)],
        meta=meta, divisions=X.divisions if X.known_divisions else None,
    )


class DaskDecisionResult:
    """``decide`` on Dask collections: a lazy case table and the exact summary.

    Attributes
    ----------
    cases : dask.dataframe.DataFrame
        The per-case table of :func:`dtdecide.decide`, partition by partition (lazy).
    summary : pandas.Series
        The summary over every case, from per-partition sums.
    """

    def __init__(self, cases, summary):
        self.cases = cases
        self.summary = summary

    def __repr__(self):
        return f"DaskDecisionResult(cases={self.cases!r}, summary=\n{self.summary!r})"


def _part_decide(Xp, yp, cp, wp, est, options=None):
    # the confidence of every leaf is drawn once on the client (options' node_confidence)
    return est._decide(Xp, y=yp, costs=cp, sample_weight=wp, **(options or {}))


def _bound_costs(est, cp, offset, n):
    """``cp``, or the partition's rows of consequences bound to the matrix."""
    if offset is None:
        return cp
    return est.decision_matrix_.case_values[offset : offset + n]


def _part_summary(part, spec, est, offset=None, options=None):
    """The partition's summary sums (SummaryTotals) and its empty case table (the meta)."""
    from ...decision._result import SummaryTotals

    Xp, yp, wp, cp = _unpack(part, spec)
    if not len(Xp):
        return None
    cp = _bound_costs(est, cp, offset, len(Xp))
    res = _part_decide(Xp, yp, cp, wp, est, options)
    return SummaryTotals().add(res), res.cases.iloc[:0]


def _add_summaries(a, b):
    if a is None or b is None:
        return b if a is None else a
    return a[0].merge(b[0]), a[1]


def _valid_n_resamples(n_resamples):
    """Whether ``n_resamples`` is what ``decide(confidence=True)`` accepts: an int >= 1
    (not a bool); the rule of the in-memory ``decide`` (which imports it from here) and
    of :func:`decide_dask`."""
    return (isinstance(n_resamples, numbers.Integral) and not isinstance(n_resamples, bool)
            and n_resamples >= 1)


def decide_dask(est, X, y=None, costs=None, sample_weight=None, **options):
    """:meth:`decide` on Dask collections; see :class:`DaskDecisionResult`.

    ``options``: the keyword options of ``decide`` (``confidence``, ...), passed to every
    partition's ``decide``.
    """
    check_is_fitted(est, "tree_")
    dask = _import_dask()
    if not hasattr(X, "map_partitions") or not hasattr(X, "columns"):
        raise TypeError(f"X must be a Dask DataFrame; got {type(X).__name__}")
    m = est.decision_matrix_
    n_resamples = options.get("n_resamples", 200)
    if (options.get("confidence") is True and m is not None and not est._case_rule()
            and _valid_n_resamples(n_resamples)):
        # every leaf's margin and bootstrap confidence drawn once here, not by each
        # partition in each of its two passes (bad options: each partition's decide
        # raises its usual error)
        options = {**options, "node_confidence": est._node_confidence(
            n_resamples, check_seed(options.get("random_state", 0)))}
    packed, spec = _packed_parts(X, y, sample_weight, costs)
    summ = dask.delayed(_part_summary, pure=True)
    offsets = _bound_offsets(dask, packed, m, costs)
    items = [summ(p, spec, est, None if offsets is None else offsets[k], options)
             for k, p in enumerate(packed)]
    (reduced,) = dask.compute(_tree_reduce(dask, items, _add_summaries))
    if reduced is None:
        raise ValueError("X has no rows; every partition is empty")
    # the one rule that sums chunks' summaries (decision.SummaryTotals, as score_file)
    totals, cases_meta = reduced
    total = totals.summary()

    import dask.dataframe as dd

    def cases_of(part, offset):
        Xp, yp, wp, cp = _unpack(part, spec)
        if not len(Xp):
            return cases_meta.set_axis(Xp.index[:0])
        cp = _bound_costs(est, cp, offset, len(Xp))
        return _part_decide(Xp, yp, cp, wp, est, options).cases

    cases = dd.from_delayed(
        [dask.delayed(cases_of, pure=True)(p, None if offsets is None else offsets[k])
         for k, p in enumerate(packed)],
        meta=cases_meta, divisions=X.divisions if X.known_divisions else None,
    )
    return DaskDecisionResult(cases, total)


