"""English rules: one block per leaf with coverage, posterior and decision."""

import numpy as np

from ._caserule import case_form, case_text, is_case_rule
from ._common import format_number, tree_view
from ._leaf_table import condition_text

__all__ = ["export_rules"]

_ORDERS = ("leaf", "profit", "coverage")


def _fmt(value, digits):
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "missing"
    return format_number(value, digits)


def export_rules(estimator, *, precision=None, digits=4, order="leaf"):
    """English IF/THEN rules of a fitted tree, one block per leaf.

    Each block lists the leaf's conditions (one per input, merged along the path: a
    numeric range or a set of training categories, and whether missing values - and
    unseen categories - go there), then its coverage (training rows, frequency weight
    and share of the training weight), the posteriors (or mean and standard deviation
    for an interval target) and, when the tree has a decision matrix, the decision with
    its expected profit (loss). Under ``decision_rule="case"`` the decision is a
    condition on the case's own costs: with two decisions a threshold on the cost
    (``"call when c <= 2.16, else skip"``), with more the decision with the largest of
    the decisions' expected profits written as expressions of the costs.

    Parameters
    ----------
    estimator : ProfitTreeClassifier or ProfitTreeRegressor
        A fitted tree.
    precision : int or None, default=None
        Significant digits of split thresholds; None writes them exactly (shortest text
        that reads back as the same float).
    digits : int, default=4
        Significant digits of the statistics (posteriors, profits, shares).
    order : {"leaf", "profit", "coverage"}, default="leaf"
        Order of the blocks: node id, expected profit (best first; smallest loss first for
        a loss matrix) or training weight (largest first).

    Returns
    -------
    str
        The rules, blocks separated by a blank line.

    Examples
    --------
    >>> import pandas as pd
    >>> from dtdecide import DecisionMatrix, ProfitTreeClassifier
    >>> from dtdecide.export import export_rules
    >>> X = pd.DataFrame({"age": [20.0, 25.0, 30.0, 35.0, 40.0, 45.0, 50.0, 55.0]})
    >>> m = DecisionMatrix({"ignore": [0, 0], "mail": [-1, 9]}, levels=["no", "yes"])
    >>> tree = ProfitTreeClassifier(decision_matrix=m, max_depth=1, min_samples_leaf=1,
    ...                             min_samples_split=2).fit(X, ["no"] * 4 + ["yes"] * 4)
    >>> print(export_rules(tree, order="profit"))
    Leaf 2
      IF    age > 37.5
      THEN  decision mail (expected profit 9)
      coverage: 4 rows, weight 4 (50% of training weight)
      posterior: no 0, yes 1
    <BLANKLINE>
    Leaf 1
      IF    age <= 37.5
      THEN  decision ignore (expected profit 0)
      coverage: 4 rows, weight 4 (50% of training weight)
      posterior: no 1, yes 0
    """
    view = tree_view(estimator)
    if order not in _ORDERS:
        raise ValueError(f"order must be one of {_ORDERS}; got {order!r}")
    if precision is not None and (not isinstance(precision, (int, np.integer)) or precision < 1):
        raise ValueError(f"precision must be a positive int or None; got {precision!r}")
    if not isinstance(digits, (int, np.integer)) or digits < 1:
        raise ValueError(f"digits must be a positive int; got {digits!r}")
    tree = view.tree
    leaves = list(view.leaves)
    weight = np.asarray(tree.weighted_n_node_samples, dtype=np.float64)
    root_w = weight[0]
    if order == "coverage":
        leaves.sort(key=lambda n: (-weight[n], n))
    elif order == "profit" and view.has_decisions:
        ep = view.node_expected
        sgn = -view.sign  # sort best first in the user's sign
        leaves.sort(key=lambda n: (sgn * ep[n, view.node_decision[n]], n))
    word = "expected loss" if view.sign < 0 else "expected profit"
    form = case_form(view) if is_case_rule(view) else None
    blocks = []
    for n in leaves:
        lines = [f"Leaf {int(n)}"]
        conds = view.conditions(n)
        if not conds:
            lines.append("  IF    (all cases)")
        else:
            for i, j in enumerate(sorted(conds)):
                head = "  IF    " if i == 0 else "  AND   "
                lines.append(head + condition_text(conds[j], precision))
        if form is not None:
            lines.append(f"  THEN  {case_text(view, form, n, digits)}")
            lines.append("        (each case decides with its own costs)")
        elif view.has_decisions:
            d = view.node_decision[n]
            lines.append(
                f"  THEN  decision {view.decisions[d]} "
                f"({word} {_fmt(view.node_expected[n, d], digits)})"
            )
            if int(n) in view.overrides:
                own = view.overrides[int(n)]
                lines.append(
                    f"        (override: the tree decides {view.decisions[own]}, "
                    f"{word} {_fmt(view.node_expected[n, own], digits)}; "
                    f"{'adds' if view.sign < 0 else 'gives up'} "
                    f"{_fmt(view.given_up(n), digits)} per case)"
                )
        elif view.is_classifier:
            k = int(np.nanargmax(view.posteriors[n])) if np.isfinite(view.posteriors[n]).any() else 0
            lines.append(f"  THEN  class {view.classes[k]}")
        else:
            lines.append(f"  THEN  predict {_fmt(view.mean[n], digits)}")
        share = weight[n] / root_w * 100 if root_w > 0 else np.nan
        lines.append(
            f"  coverage: {int(tree.n_node_samples[n])} rows, weight "
            f"{_fmt(weight[n], digits)} ({_fmt(share, digits)}% of training weight)"
        )
        if view.is_classifier:
            posts = ", ".join(
                f"{cls} {_fmt(view.posteriors[n, k], digits)}"
                for k, cls in enumerate(view.classes)
            )
            lines.append(f"  posterior: {posts}")
        else:
            lines.append(
                f"  target: mean {_fmt(view.mean[n], digits)}, sd {_fmt(view.sd[n], digits)}"
            )
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)
