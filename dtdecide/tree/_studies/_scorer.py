"""Row statistics of a pruning study's measures and their node sums (layer 6, studies).

:class:`_Scorer` turns validation rows into per-row columns of one measure (decision
profit, misclassification, squared error, lift), summed per node of any tree fitted on
the same problem; the in-memory study (:mod:`._study`) and its Dask sums (:mod:`._dask`)
share it.
"""

import copy

import numpy as np
import pandas as pd

from ...decision._validation import (
    check_1d,
    check_interval_target,
    check_same_index,
    check_sample_weight,
    reference_index,
)
from .._estimator._pruning import _case_rule, _decision_matrix, _is_classifier
from .._structure._leaf import propagate_up


# ------------------------------------------------------------------------ helpers
def _n_rows(X):
    if hasattr(X, "shape"):
        return int(X.shape[0])
    return len(X)


def _take(obj, idx):
    """Rows ``idx`` of X / y / costs / sample_weight (None stays None)."""
    if obj is None:
        return None
    if isinstance(obj, (pd.DataFrame, pd.Series)):
        return obj.iloc[idx]
    if isinstance(obj, dict):
        return {k: np.asarray(v)[idx] for k, v in obj.items()}
    return np.asarray(obj)[idx]


def _class_codes(classes, y, name):
    codes = pd.Index(list(np.asarray(classes).tolist())).get_indexer(pd.Index(list(y)))
    if np.any(codes < 0):
        unknown = pd.unique(pd.Series(np.asarray(y, dtype=object)[codes < 0]))[:5]
        raise ValueError(
            f"{name} holds values the tree never saw as classes: "
            f"{', '.join(repr(u) for u in unknown)}; expected one of {list(classes)!r}"
        )
    return codes.astype(np.intp)


def _resolve_costs(estimator, X, costs):
    """Costs for ``matrix.resolve``: given, or the cost columns kept in ``X``."""
    features = tuple(getattr(estimator, "cost_features_", ()) or ())
    if costs is None and features and isinstance(X, pd.DataFrame):
        present = [c for c in features if c in X.columns]
        if present:
            return X[present]
    return costs


def _node_sums(tree, leaf, columns):
    n_nodes = tree.n_nodes
    out = np.empty((n_nodes, columns.shape[1]))
    for j in range(columns.shape[1]):
        out[:, j] = np.bincount(leaf, weights=columns[:, j], minlength=n_nodes)
    return propagate_up(out, tree.parent, tree.depth)


def _pos_index(estimator, pos_label):
    classes = getattr(estimator, "classes_", None)
    if classes is None:
        raise ValueError("measure='lift' needs a classifier")
    classes = list(np.asarray(classes).tolist())
    if pos_label is None:
        return len(classes) - 1
    key = pos_label.item() if isinstance(pos_label, np.generic) else pos_label
    if key not in classes:
        raise ValueError(f"pos_label must be one of the classes {classes!r}; got {pos_label!r}")
    return classes.index(key)


# -------------------------------------------------------------- row statistics
class _Scorer:
    """Row statistics of one measure and their conversion into node contributions.

    ``columns`` (n_rows, m) are summed per node of any tree fitted on the same problem;
    :meth:`node_values` turns the node sums of a given tree into per-node
    ``(s1, s2, weight, count)``: the sum of the rows' measure when the node is their leaf,
    the sum of its squares, the rows' (prior-adjusted) weight and their frequency.

    Two row statistics depend on every row: the prior adjustment weights (the levels'
    total frequencies) and the centre of a regressor's squared errors (the weighted mean
    target). ``totals`` holds the sums they come from (``class_freq``; ``w`` and ``wy``),
    as :attr:`totals` gives them for these rows; given the totals of a larger set of rows
    whose part these rows are (the partitions of a Dask collection), the columns are those
    of the larger set's rows, so that node sums of the parts add up to the whole's.
    """

    def __init__(self, estimator, kind, X, y, *, costs, sample_weight, pos_label, name,
                 totals=None):
        n = _n_rows(X)
        index = reference_index(X)
        y = check_1d(y, f"y{name}", index=index, reference=f"X{name}")
        if y.shape[0] != n:
            raise ValueError(
                f"X{name} and y{name} have inconsistent numbers of samples: {n} and "
                f"{y.shape[0]}"
            )
        F = check_sample_weight(sample_weight, n, name=f"sample_weight{name}", index=index,
                                reference=f"X{name}")
        if F is None:
            F = np.ones(n)
        check_same_index(costs, index, f"costs{name}", reference=f"X{name}")
        self.kind = kind
        self.n_samples = n
        self.nan_summary = False
        self.nan_reason = None  # why every measure is missing, when one is known
        self.totals = {}
        if kind in ("profit", "loss"):
            matrix = _decision_matrix(estimator)
            cons = matrix.resolve(_resolve_costs(estimator, X, costs), n_samples=n)
            if matrix.is_interval:
                t = check_interval_target(y, f"y{name}", estimator=type(estimator).__name__)
                paw = np.ones(n)
            else:
                from ...decision._kernels import encode_target, prior_adjustment_weights

                t = encode_target(y, matrix.levels)
                paw = np.zeros(n)
                ok = ~cons.has_missing
                L = len(matrix.levels)
                self.totals["class_freq"] = np.bincount(t[ok], weights=F[ok], minlength=L)
                if totals is None:
                    adj = prior_adjustment_weights(t[ok], F[ok], matrix.priors, L)
                else:  # the weights of the levels' total frequencies (one "case" a level)
                    level_paw = prior_adjustment_weights(np.arange(L), totals["class_freq"],
                                                         matrix.priors, L)
                    adj = None if level_paw is None else level_paw[t[ok]]
                if adj is None:
                    self.nan_summary = True
                    freq = self.totals["class_freq"] if totals is None else totals[
                        "class_freq"]
                    pri = np.asarray(matrix.priors, dtype=np.float64)
                    absent = [matrix.levels[k] for k in range(L)
                              if pri[k] > 0 and freq[k] <= 0]
                    among = (" among the cases whose costs are all present"
                             if cons.has_missing.any() else "")
                    self.nan_reason = (
                        f"y{name} has no case of the level(s) {absent!r}{among}, whose "
                        f"prior is positive (the decision matrix's priors "
                        f"{[round(float(v), 6) for v in pri]}): the prior-adjusted "
                        "measure weighs every level by its prior and needs a case of "
                        "each; give data holding every level, or a matrix without priors"
                    )
                    adj = np.ones(int(ok.sum()))
                paw[ok] = adj
            q = cons.q_actual(t)
            valid = ~cons.has_missing
            if n and not valid.any():
                costs_of = list(matrix.cost_variables) or "the case-specific consequences"
                self.nan_reason = (
                    f"costs{name}: every one of the {n} cases has a missing (NaN) cost "
                    f"({costs_of}), so no case can be assessed; give the cases' actual "
                    "costs"
                )
            q = np.where(valid[:, None], q, 0.0)
            w = np.where(valid, F * paw, 0.0)
            count = np.where(valid, F, 0.0)
            self.n_decisions = q.shape[1]
            if _case_rule(estimator):
                # each case under its own best decision from its node's posteriors:
                # the per-node sums depend on the node (see node_sums)
                self.case = (cons, q, w)
                self.columns = np.column_stack([w, count])
            else:
                self.columns = np.column_stack([w[:, None] * q, w[:, None] * q**2, w, count])
        elif kind == "misclassification" or (kind in ("ase", "lift") and _is_classifier(estimator)):
            classes = estimator.classes_
            codes = _class_codes(classes, y, f"y{name}")
            onehot = np.zeros((n, len(classes)))
            onehot[np.arange(n), codes] = F
            self.classes = classes
            self.columns = np.column_stack([onehot, F])
        else:  # ase of a regressor: centred power sums up to the 4th
            yv = check_interval_target(y, f"y{name}", estimator=type(estimator).__name__)
            self.totals["w"], self.totals["wy"] = float(F.sum()), float((F * yv).sum())
            src = self.totals if totals is None else totals
            total, wy = src["w"], src["wy"]
            self.center = float(wy / total) if total > 0 else 0.0
            yc = yv - self.center
            self.columns = np.column_stack([F * yc**p for p in range(5)])
        if kind == "lift":
            self.pos_index = _pos_index(estimator, pos_label)

    case = None  # (cons, q, w) of the rows under the case rule

    def subset(self, rows):
        """The same scorer restricted to some rows (a cross-validation fold)."""
        out = copy.copy(self)
        out.columns = self.columns[rows]
        if self.case is not None:
            cons, q, w = self.case
            out.case = (cons.take(rows), q[rows], w[rows])
        return out

    def node_sums(self, fitted, X):
        leaf = np.asarray(fitted.apply(X), dtype=np.intp)
        sums = _node_sums(fitted.tree_, leaf, self.columns)
        if self.case is None:
            return sums
        from .._structure._caserule import case_node_sums

        cons, q, w = self.case
        tree = fitted.tree_
        s1, s2 = case_node_sums(tree.parent, leaf, fitted._case_node_inputs(tree), cons, q,
                                w, squares=True)
        return np.column_stack([s1[:, 0], s2[:, 0], sums])

    def row_values(self, fitted, nodes):
        """Per row ``(value, weight, count)`` of a decision measure when ``nodes`` (one
        node of ``fitted``'s tree per row of this scorer) are the rows' leaves: ``value``
        is the row's weighted profit (its weighted loss for ``kind="loss"``) under the
        node's decision, or under the case's own best decision from the node's inputs
        with the case rule. Summed over the rows they are :meth:`node_values`' ``s1,
        weight, count`` of the subtree whose leaves the nodes are."""
        if self.kind not in ("profit", "loss"):
            raise ValueError(f"row values need a decision measure; got {self.kind!r}")
        nodes = np.asarray(nodes, dtype=np.intp)
        rows = np.arange(nodes.shape[0])
        if self.case is not None:
            from .._structure._caserule import case_decisions

            cons, q, w = self.case
            d = case_decisions(fitted._case_node_inputs(fitted.tree_), nodes, cons)
            value = np.where(d >= 0, w * q[rows, np.maximum(d, 0)], 0.0)
            weight, count = self.columns[:, 0], self.columns[:, 1]
        else:
            D = self.n_decisions
            dec = np.asarray(fitted.tree_.node_decision, dtype=np.intp)[nodes]
            value = self.columns[rows, dec]
            weight, count = self.columns[:, 2 * D], self.columns[:, 2 * D + 1]
        if self.kind == "loss":
            value = -value
        return value, weight, count

    def class_counts(self, fitted, tree):
        """Training class weights of ``tree`` in the order of this scorer's classes."""
        if np.array_equal(np.asarray(fitted.classes_), np.asarray(self.classes)):
            return np.asarray(tree.value, dtype=np.float64)
        return _map_classes(fitted, tree, self.classes)

    def node_values(self, fitted, tree, sums):
        """(n_nodes, 4) array of s1, s2, weight, count (user orientation for loss)."""
        nodes = np.arange(tree.n_nodes)
        if self.kind in ("profit", "loss") and self.case is not None:
            s1 = -sums[:, 0] if self.kind == "loss" else sums[:, 0]
            return np.column_stack([s1, sums[:, 1], sums[:, 2], sums[:, 3]])
        if self.kind in ("profit", "loss"):
            D = self.n_decisions
            dec = np.asarray(tree.node_decision, dtype=np.intp)
            s1 = sums[nodes, dec]
            s2 = sums[nodes, D + dec]
            if self.kind == "loss":
                s1 = -s1
            return np.column_stack([s1, s2, sums[:, 2 * D], sums[:, 2 * D + 1]])
        if self.kind == "misclassification":
            counts = self.class_counts(fitted, tree)
            pred = counts.argmax(axis=1)
            W = sums[:, -1]
            wrong = W - sums[nodes, pred]
            return np.column_stack([wrong, wrong, W, W])
        if self.kind == "ase" and hasattr(self, "classes"):
            counts = self.class_counts(fitted, tree)
            tot = counts.sum(axis=1, keepdims=True)
            p = np.divide(counts, tot, out=np.zeros_like(counts), where=tot > 0)
            C = p.shape[1]
            err = (1.0 - 2.0 * p + (p**2).sum(axis=1, keepdims=True)) / C  # per true class
            E = sums[:, :-1]
            W = sums[:, -1]
            return np.column_stack([(E * err).sum(1), (E * err**2).sum(1), W, W])
        if self.kind == "ase":
            value = tree.value
            m = np.divide(value[:, 1], value[:, 0], out=np.zeros(tree.n_nodes),
                          where=value[:, 0] > 0) - self.center
            S0, S1, S2, S3, S4 = (sums[:, j] for j in range(5))
            sse = S2 - 2 * m * S1 + m**2 * S0
            s4 = S4 - 4 * m * S3 + 6 * m**2 * S2 - 4 * m**3 * S1 + m**4 * S0
            return np.column_stack([np.maximum(sse, 0), np.maximum(s4, 0), S0, S0])
        raise AssertionError(self.kind)  # lift is not additive: see _lift_per_subtree


def _map_classes(fitted, tree, classes):
    out = np.zeros((tree.n_nodes, len(classes)))
    fitted_classes = list(np.asarray(fitted.classes_).tolist())
    for j, c in enumerate(np.asarray(classes).tolist()):
        if c in fitted_classes:
            out[:, j] = tree.value[:, fitted_classes.index(c)]
    return out


def _lift_per_subtree(score, events, weight, start, stop, n_subtrees, depth_fraction):
    """Lift in the top ``depth_fraction`` of the weight, leaves ranked by ``score``.

    A leaf that straddles the cut-off counts in proportion; leaves with equal scores are
    merged first (their order is arbitrary).
    """
    out = np.full(n_subtrees, np.nan)
    for k in range(n_subtrees):
        leaves = np.flatnonzero((start <= k) & (k < stop) & (weight > 0))
        if leaves.size == 0:
            continue
        W_all = weight[leaves].sum()
        E_all = events[leaves].sum()
        if W_all <= 0 or E_all <= 0:
            continue
        s, inverse = np.unique(-score[leaves], return_inverse=True)
        w = np.bincount(inverse, weights=weight[leaves], minlength=s.size)
        e = np.bincount(inverse, weights=events[leaves], minlength=s.size)
        cut = depth_fraction * W_all
        cw = np.cumsum(w)
        before = np.concatenate([[0.0], cw[:-1]])
        take = np.clip(cut - before, 0.0, w)
        top_e = (e * np.divide(take, w, out=np.zeros_like(w), where=w > 0)).sum()
        out[k] = (top_e / cut) / (E_all / W_all)
    return out


