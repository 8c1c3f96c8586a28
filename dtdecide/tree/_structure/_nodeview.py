"""The per-node figures that every view of a fitted tree shows (internal).

Layer 2 (structure) of :mod:`dtdecide.tree` (``_structure``); see the architecture page.

Read once from a fitted estimator's public attributes (``tree_``, ``node_posteriors_``,
``decision_matrix_``, ``decisions_``) and its hand-set decisions; shared by the HTML view
(:mod:`dtdecide.tree._estimator._html`) and the exporters (``dtdecide.export``), so that both show the same
numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["NodeStatistics", "natural_decisions", "node_statistics"]


@dataclass
class NodeStatistics:
    """Per-node figures of a fitted tree, in the user's sign (internal)."""

    posteriors: object = None  # (n_nodes, n_classes) classifier, else None
    mean: object = None  # (n_nodes,) interval target, else None
    sd: object = None
    decisions: object = None  # tuple of str, or None without decisions
    node_decision: object = None  # intp (n_nodes,) or None
    node_expected: object = None  # (n_nodes, D) user's sign, or None
    sign: float = 1.0  # -1.0 for a loss matrix
    # leaves whose decision was set by hand: node -> the tree's own decision index
    overrides: dict = field(default_factory=dict)


def node_mean_sd(value):
    """Weighted mean and standard deviation of every node from regressor ``value`` sums
    ``[sum w, sum w*y, sum w*y^2]`` (NaN for a node without weight)."""
    value = np.asarray(value, dtype=np.float64)
    w = value[:, 0]
    safe = np.where(w > 0, w, 1.0)
    mean = np.where(w > 0, value[:, 1] / safe, np.nan)
    var = np.where(w > 0, value[:, 2] / safe - mean**2, np.nan)
    return mean, np.sqrt(np.clip(var, 0.0, None))


def natural_decisions(est):
    """The decision of every node of ``tree_`` without the overrides (intp array)."""
    if not getattr(est, "decision_overrides_", None):
        return np.asarray(est.tree_.node_decision, dtype=np.intp)
    return np.asarray(est._redecide(est.tree_, overrides=False).node_decision, dtype=np.intp)


def node_statistics(est):
    """The :class:`NodeStatistics` of a fitted profit tree."""
    tree = est.tree_
    out = NodeStatistics()
    if getattr(est, "classes_", None) is not None:
        out.posteriors = np.asarray(est.node_posteriors_, dtype=np.float64)
    else:
        out.mean, out.sd = node_mean_sd(tree.value)
    matrix = getattr(est, "decision_matrix_", None)
    decisions = getattr(est, "decisions_", None)
    node_decision = getattr(tree, "node_decision", None)
    if matrix is not None and getattr(matrix, "kind", "profit") == "loss":
        out.sign = -1.0
    if matrix is not None and decisions is not None and node_decision is not None:
        out.decisions = tuple(str(d) for d in decisions)
        out.node_decision = np.asarray(node_decision, dtype=np.intp)
        out.node_expected = np.asarray(tree.node_expected, dtype=np.float64) * out.sign
        if getattr(est, "decision_overrides_", None):
            natural = natural_decisions(est)
            out.overrides = {
                int(n): int(natural[n]) for n in np.flatnonzero(natural != out.node_decision)
            }
    return out
