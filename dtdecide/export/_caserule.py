"""Readable per-case rules: a leaf's decision as a condition on the case's costs.

Under ``decision_rule="case"`` a case decides from its leaf's posteriors (prediction)
and its own costs. Every decision's expected profit at a leaf is then linear in the
case's cost columns:

``A(i, d) = const(leaf, d) + sum_k coef(leaf, d, k) * column_k(i)``

(profit orientation), the formula of :func:`dtdecide.decide`:

- additive matrix (constant consequences and cost variables): ``const(leaf, d) =
  sum_t post(leaf, t) Q(t, d) - S(leaf) * constant cost(d)`` (the interpolated
  consequence at the leaf's prediction for an interval target) and ``coef = -S(leaf)``
  on the decision's cost variable, where ``S(leaf)`` is the sum of the leaf's
  posteriors (1 up to rounding; 1 for an interval target);
- case-specific 2 x 2 matrix read from cost rows ``C_FP, C_FN, C_TP, C_TN`` (as
  :meth:`DecisionMatrix.from_cost_matrix`): the first decision ("predict 1") has the
  consequences ``C_FP`` (negative level) and ``C_TP`` (positive level), the second
  ``C_TN`` and ``C_FN``, each weighted by the leaf's posterior of its level.

The exporters print it (a threshold on the cost, or a comparison of two cost
expressions, for two decisions) and the SQL evaluates it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..decision._kernels import interpolate_knots
from ._common import format_number

__all__ = ["COST_ROW_COLUMNS", "CaseForm", "case_form", "case_text", "cost_column_names",
           "is_case_rule"]

#: cost-row columns of a case-specific 2 x 2 matrix, in ``from_cost_matrix`` order
COST_ROW_COLUMNS = ("C_FP", "C_FN", "C_TP", "C_TN")


def is_case_rule(view):
    """Whether the viewed tree decides case by case."""
    return view.has_decisions and view.case_rule


def is_cost_rows(matrix):
    """A case-specific 2 x 2 matrix, whose consequences come as C_FP/C_FN/C_TP/C_TN rows."""
    return (bool(getattr(matrix, "is_case_specific", False))
            and not getattr(matrix, "is_interval", False)
            and matrix.n_levels == 2 and matrix.n_decisions == 2)


def cost_column_names(matrix):
    """The columns of a data table that carry a matrix's per-case costs.

    The cost variables of an additive matrix; ``C_FP, C_FN, C_TP, C_TN`` for a 2 x 2
    matrix of cost rows (:meth:`DecisionMatrix.from_cost_matrix`), which has no cost
    variables but reads those columns by name; none otherwise.
    """
    if matrix is None:
        return []
    if is_cost_rows(matrix):
        return list(COST_ROW_COLUMNS)
    return list(matrix.cost_variables)


@dataclass
class CaseForm:
    """``A(i, d) = const[node, d] + sum_k coef[node, d, k] * column_k(i)`` (profit)."""

    const: np.ndarray  # (n_nodes, D)
    coef: np.ndarray  # (n_nodes, D, K)
    columns: tuple  # K column names (cost variables, or the cost-row names)
    additive: bool


def case_form(view):
    """The linear form of every decision's expected profit at every node, or None.

    None for a case-specific matrix other than 2 x 2: its consequences are per-case
    arrays, not columns.
    """
    matrix = view.matrix
    # what a case decides from at every node (the public node view, empty nodes filled
    # from their parent), as the estimator's case rule does
    values = view.posteriors if view.is_classifier else view.mean
    node_in = np.asarray(view.fitted.node_inputs(values), dtype=np.float64)
    n_nodes = node_in.shape[0]
    D = matrix.n_decisions
    if getattr(matrix, "is_case_specific", False):
        if not is_cost_rows(matrix):
            return None
        sign = float(matrix.sign)
        coef = np.zeros((n_nodes, 2, 4))
        k = {c: j for j, c in enumerate(COST_ROW_COLUMNS)}
        neg, pos = node_in[:, 0], node_in[:, 1]
        coef[:, 0, k["C_FP"]] = sign * neg
        coef[:, 0, k["C_TP"]] = sign * pos
        coef[:, 1, k["C_TN"]] = sign * neg
        coef[:, 1, k["C_FN"]] = sign * pos
        return CaseForm(np.zeros((n_nodes, 2)), coef, COST_ROW_COLUMNS, additive=False)
    base = np.asarray(matrix.profit_values, dtype=np.float64)
    costs = matrix.costs or {}
    const_cost = np.zeros(D)
    columns = tuple(getattr(matrix, "cost_variables", ()) or ())
    var_of = {}
    for j, d in enumerate(matrix.decisions):
        c = costs.get(d)
        if isinstance(c, str):
            var_of[j] = columns.index(c)
        elif c is not None:
            const_cost[j] = float(c)
    if matrix.is_interval:
        scale = np.ones(n_nodes)
        const = interpolate_knots(np.asarray(matrix.knots, dtype=np.float64), base, node_in)
        const = const - const_cost[None, :]
    else:
        scale = node_in @ np.ones(node_in.shape[1])
        const = node_in @ base - const_cost[None, :] * scale[:, None]
    coef = np.zeros((n_nodes, D, len(columns)))
    for j, k in var_of.items():
        coef[:, j, k] = -scale
    return CaseForm(const, coef, columns, additive=True)


def _unit(c):
    """A coefficient of magnitude 1 up to rounding (a posterior sum of 1 - 1 ulp)."""
    return abs(abs(c) - 1.0) <= 1e-9


def _expr(form, node, d, digits, sign=1.0):
    """Text of ``sign * A(i, d)``: constant and weighted columns (zero terms left out)."""
    parts = []
    const = sign * form.const[node, d]
    order = range(len(form.columns))
    if not form.additive:  # cost rows: the decision's cells, negative level first
        cells = (("C_FP", "C_TP"), ("C_TN", "C_FN"))[d]
        order = [form.columns.index(c) for c in cells]
    for k in order:
        name = form.columns[k]
        c = sign * form.coef[node, d, k]
        if c == 0:
            continue
        if form.additive and _unit(c):
            parts.append(("-" if c < 0 else "+", name))
        else:
            parts.append(("-" if c < 0 else "+", f"{format_number(abs(c), digits)} x {name}"))
    if not parts:
        return format_number(const, digits)
    text = "" if const == 0 else format_number(const, digits)
    for s, term in parts:
        if not text:
            text = term if s == "+" else f"-{term}"
        else:
            text += f" {s} {term}"
    return text


def case_text(view, form, node, digits=4):
    """The leaf's decision as a condition on the case's costs (English).

    Two decisions: a threshold (``"call when c <= 2.16, else skip"``), or a comparison
    of the two cost expressions (``"predict 1 when 0.82 x C_FP + 0.18 x C_TP <= 0.18 x
    C_FN, else predict 0"``); more: the decision with the largest expression.
    """
    decisions = view.decisions
    if form is None:
        return ("each case: the decision of largest expected profit of its own "
                "consequences under the leaf posteriors")
    if len(decisions) == 1:
        return decisions[0]
    loss = view.sign < 0
    if len(decisions) == 2:
        a, b = decisions
        diff_coef = form.coef[node, 0] - form.coef[node, 1]
        k = form.const[node, 0] - form.const[node, 1]
        if not diff_coef.any():  # the costs cancel: one decision for every case
            return a if k >= 0 else b
        used = np.flatnonzero(diff_coef)
        if form.additive and used.size == 1 and _unit(diff_coef[used[0]]):
            name = form.columns[used[0]]
            # A0 >= A1  <=>  k + diff * x >= 0
            if diff_coef[used[0]] < 0:
                cond = f"{name} <= {format_number(k, digits)}"
            else:
                cond = f"{name} >= {format_number(-k, digits)}"
            return f"{a} when {cond}, else {b}"
        sign = -1.0 if loss else 1.0
        op = "<=" if loss else ">="
        return (f"{a} when {_expr(form, node, 0, digits, sign)} {op} "
                f"{_expr(form, node, 1, digits, sign)}, else {b}")
    sign = -1.0 if loss else 1.0
    terms = ", ".join(f"{d}: {_expr(form, node, j, digits, sign)}"
                      for j, d in enumerate(decisions))
    word = "smallest expected loss" if loss else "largest expected profit"
    return f"the {word} of {terms} (the first on ties)"
