"""Pruning studies on Dask collections (layer 6, studies).

A :class:`~dtdecide.PruningStudy` (and :func:`~dtdecide.select_subtree`) on a Dask
validation set scores every subtree from per-partition node sums of the validation rows,
summed pairwise; its cross-validation on Dask training data fits every fold's tree on Dask
and scores the held-out rows the same way (see :mod:`dtdecide.tree._backends._dask`).
"""

from collections.abc import Mapping

import numpy as np

from .._backends._dask import (
    _C,
    _W,
    _Y,
    _import_dask,
    _packed_parts,
    _tree_reduce,
    _unpack,
    is_dask_collection,
)
from ._scorer import _Scorer

__all__ = ["study_cv_sums", "study_node_sums"]



# ------------------------------------------------------------------ pruning studies
def _part_scorer(part, spec, est, kind, pos_label, name, totals):
    Xp, yp, wp, cp = _unpack(part, spec)
    if not len(Xp):
        return None
    return _Scorer(est, kind, Xp, yp, costs=cp, sample_weight=wp, pos_label=pos_label,
                   name=name, totals=totals)


def _part_totals(part, spec, est, kind, pos_label, name):
    scorer = _part_scorer(part, spec, est, kind, pos_label, name, None)
    return None if scorer is None else scorer.totals


def _add_totals(a, b):
    if a is None or b is None:
        return b if a is None else a
    return {key: a[key] + b[key] for key in a}


def _part_node_sums(part, spec, est, kind, pos_label, name, totals, fitted=None):
    """``(node sums, the scorer without its rows)`` of one validation partition (node
    sums under ``fitted``, default ``est``)."""
    scorer = _part_scorer(part, spec, est, kind, pos_label, name, totals)
    if scorer is None:
        return None
    Xp = _unpack(part, spec)[0]
    sums = scorer.node_sums(est if fitted is None else fitted, Xp)
    # the rows stay on the worker (an empty ``case`` still marks the case rule)
    scorer.columns = None
    if scorer.case is not None:
        scorer.case = ()
    return sums, scorer


def _add_node_sums(a, b):
    if a is None or b is None:
        return b if a is None else a
    return a[0] + b[0], a[1]


def _check_study_data(X, y, costs, name):
    if not hasattr(X, "to_delayed") or not hasattr(X, "columns"):
        raise TypeError(f"X{name} must be a Dask DataFrame; got {type(X).__name__}")
    if isinstance(costs, Mapping):
        raise TypeError(
            f"costs{name} must be a Dask DataFrame when X{name} is a Dask DataFrame; got a "
            "dict"
        )
    if not is_dask_collection(y):
        raise TypeError(
            f"y{name} must be a Dask Series with the partitions of X{name} when X{name} is "
            f"a Dask DataFrame; got {type(y).__name__}"
        )


def _study_totals(dask, parts, spec, est, kind, pos_label, name):
    step = dask.delayed(_part_totals, pure=True)
    items = [step(p, spec, est, kind, pos_label, name) for p in parts]
    (totals,) = dask.compute(_tree_reduce(dask, items, _add_totals))
    if totals is None:
        raise ValueError(f"X{name} has no rows; every partition is empty")
    return totals


def _study_sums(dask, parts, spec, est, kind, pos_label, name, totals, fitted=None):
    step = dask.delayed(_part_node_sums, pure=True)
    items = [step(p, spec, est, kind, pos_label, name, totals, fitted) for p in parts]
    (total,) = dask.compute(_tree_reduce(dask, items, _add_node_sums))
    sums, scorer = total
    return scorer, sums


def _part_target(part, spec):
    return np.asarray(_unpack(part, spec)[1].to_numpy())


def _part_rows(part, keep):
    return part[keep]


def study_cv_sums(est, kind, X, y, *, costs, sample_weight, pos_label, splitter, measures,
                  n_subtrees, verbose=0):
    """Cross-validation of a pruning study on Dask training data.

    The target column comes to the client for the fold assignment (``splitter(y)``, as
    the in-memory study draws it); every fold's tree is fitted on Dask from the other
    folds' rows, and its held-out rows are scored per partition with the row statistics
    of the whole training set (:func:`study_node_sums`). ``measures(fold, scorer, sums)``
    gives the fold's per-subtree sums. Returns their total and the scorer (no rows).
    """
    from sklearn.base import clone

    from ..._config import config_context
    from ..._progress import progress_bar

    dask = _import_dask()
    import dask.dataframe as dd

    name = "_train"
    _check_study_data(X, y, costs, name)
    frame, spec = _packed_parts(X, y, sample_weight, costs, suffix=name, frame=True)
    packed = frame.to_delayed()
    targets = dask.compute(*[dask.delayed(_part_target, pure=True)(p, spec)
                             for p in packed])
    bounds = np.concatenate([[0], np.cumsum([t.shape[0] for t in targets])])
    y_arr = np.concatenate(targets)
    splits = list(splitter(y_arr).split(np.zeros((y_arr.shape[0], 1)), y_arr))
    totals = _study_totals(dask, packed, spec, est, kind, pos_label, name)
    rows = dask.delayed(_part_rows, pure=True)

    def subset(idx):
        keep = np.zeros(y_arr.shape[0], dtype=bool)
        keep[idx] = True
        return [rows(p, keep[bounds[k]:bounds[k + 1]]) for k, p in enumerate(packed)]

    total, scorer = np.zeros((n_subtrees, 4)), None
    with progress_bar(total=len(splits), desc="PruningStudy: cross-validation (Dask)",
                      unit="fold", verbose=verbose) as bar, config_context(
                          verbose=max(verbose - 1, 0)):
        for train, test in splits:
            fold, scorer, sums = _dask_fold(dask, dd, est, kind, y, frame, spec, subset,
                                            train, test, pos_label, name, totals, clone)
            total += measures(fold, scorer, sums)
            bar.update(1)
            bar.set_postfix_str(f"last fold {int(fold.tree_.n_leaves)} leaves")
    return total, scorer


def _dask_fold(dask, dd, est, kind, y, frame, spec, subset, train, test, pos_label, name,
               totals, clone):
    """One fold of :func:`study_cv_sums`: the fold's tree fitted on Dask, its test sums."""
    sub = dd.from_delayed(subset(train), meta=frame._meta)
    kw = {}
    if spec["w"]:
        kw["sample_weight"] = sub[_W]
    if spec["costs"] is not None:
        kw["costs"] = sub[[_C + c for c in spec["costs"]]].rename(
            columns={_C + c: c for c in spec["costs"]})
    fold = clone(est)
    if "ccp_alpha" in fold.get_params():
        fold.set_params(ccp_alpha=0.0)
    fold.fit(sub[spec["X"]], sub[_Y].rename(getattr(y, "name", None)), **kw)
    scorer, sums = _study_sums(dask, subset(test), spec, est, kind, pos_label, name,
                               totals, fitted=fold)
    return fold, scorer, sums


def study_node_sums(est, kind, X, y, *, costs, sample_weight, pos_label, name):
    """The pruning study's scorer and validation node sums over Dask partitions.

    Two passes over the partitions: the sums the row statistics depend on (levels'
    frequencies for the prior adjustment, the weighted mean of a regression target),
    then every partition's node sums (:meth:`~dtdecide.tree._studies._study._Scorer.node_sums`)
    with those totals, summed pairwise. Returns the scorer (without rows) that turns the
    sums into per-subtree measures, and the sums.
    """
    dask = _import_dask()
    _check_study_data(X, y, costs, name)
    packed, spec = _packed_parts(X, y, sample_weight, costs, suffix=name)
    totals = _study_totals(dask, packed, spec, est, kind, pos_label, name)
    return _study_sums(dask, packed, spec, est, kind, pos_label, name, totals)
