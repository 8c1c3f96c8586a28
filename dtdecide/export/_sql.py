"""SQL score code: one ANSI SELECT with nested CASE expressions.

The generated query reads a table with the model's input columns (missing values as
NULL) and adds, per row, the leaf id, the posteriors or predicted value, the decision,
its expected profit and, when the matrix has costs or a target column is named, the
investment cost, computed and best profit and ROI.

Exactness. Numeric thresholds and every constant are written with 17 significant
digits in exponent form (``4.48855025360088260e+00``): that form is an *approximate
numeric literal* in ANSI SQL, so engines such as DuckDB read it as DOUBLE rather than
DECIMAL, and it parses to the same double in SQLite, whose reader does not always round
the shortest ``repr`` correctly. Categorical splits are ``IN`` lists of the training
labels of one side; everything else (NULL and labels unseen in training) falls to the
node's missing-value side, exactly as ``decide`` does in Python.
"""

import math
import numbers

import numpy as np

from ..decision._validation import repeated_names, shown_labels
from ._caserule import COST_ROW_COLUMNS, case_form, is_case_rule, is_cost_rows
from ._common import tree_view

__all__ = ["to_sql"]

_DIALECTS = ("ansi", "sqlite", "duckdb", "postgresql", "spark")


def _quote_ident(name, dialect):
    """A quoted identifier: ``"name"`` (ANSI), or ```name``` for Spark SQL."""
    q = "`" if dialect == "spark" else '"'
    return q + str(name).replace(q, q + q) + q


# The scored table's alias. Every column of the table is read through it (``t."age"``),
# and no output is ever read back by name: the code cannot mistake a column of the
# table (say a ``_LEAF_`` or ``D_<t>`` left by an earlier scoring) for one of its own.
_T = "t"


def _table_col(name, dialect):
    return f"{_T}.{_quote_ident(name, dialect)}"


# Dialects whose engines join LATERAL subqueries (DuckDB, PostgreSQL, Spark SQL). There
# the leaf id, and under the case rule each decision's expected profit and the decision,
# are computed once per row in ``LATERAL (SELECT ... AS leaf) AS t_leaf`` and the like,
# and every output reads them by that qualified internal name: an alias of the FROM
# clause and a column of a one-column subquery, which no column of the scored table can
# shadow, so the table's own columns still pass through ``t.*`` untouched. Without it
# the leaf CASE is written once per use (73 times for a 16-leaf, 3-decision case-rule
# tree: 180 KB of SQL that DuckDB took about 4 s of CPU to plan). SQLite has no LATERAL,
# and "ansi" must run in SQLite: those keep the single SELECT over the table alone.
_LATERAL_DIALECTS = ("duckdb", "postgresql", "spark")
_LEAF_ALIAS = "t_leaf"
_EP_ALIAS = "t_ep"
_DEC_ALIAS = "t_dec"


def _lateral(exprs, alias, dialect):
    """``LATERAL (SELECT e0 AS "name0", ...) AS alias`` and the qualified references."""
    items = ", ".join(f"{e} AS {_quote_ident(n, dialect)}" for n, e in exprs)
    refs = [f"{alias}.{_quote_ident(n, dialect)}" for n, _ in exprs]
    return f"LATERAL (SELECT {items}) AS {alias}", refs


def _float_literal(value, dialect):
    value = float(value)
    if math.isnan(value):
        return "NULL"
    if math.isinf(value):
        if dialect == "sqlite":
            return "9e999" if value > 0 else "-9e999"
        word = "Infinity" if value > 0 else "-Infinity"
        return f"CAST('{word}' AS {'DOUBLE' if dialect == 'spark' else 'DOUBLE PRECISION'})"
    return format(value, ".17e")


def _label_literal(label, dialect):
    if isinstance(label, (bool, np.bool_)):
        return "TRUE" if label else "FALSE"
    if isinstance(label, (numbers.Integral, np.integer)):
        return str(int(label))
    if isinstance(label, (numbers.Real, np.floating)):
        return _float_literal(label, dialect)
    if "\x00" in str(label):
        raise ValueError(f"the label {label!r} (a decision or a target level) holds a NUL "
                         "character, which SQL text cannot hold: rename it")
    if dialect == "spark":  # Spark reads backslash escapes inside string literals
        return "'" + str(label).replace("\\", "\\\\").replace("'", "\\'") + "'"
    return "'" + str(label).replace("'", "''") + "'"


def _case_by_leaf(leaf_col, items, else_sql="NULL"):
    """``CASE leaf WHEN id THEN expr ... END``.

    The simple CASE form evaluates ``leaf`` once per row even when an engine (SQLite)
    flattens the inner query and substitutes the whole nested leaf expression.
    """
    parts = [f"CASE {leaf_col}"]
    parts.extend(f"WHEN {int(leaf)} THEN {expr}" for leaf, expr in items)
    parts.append(f"ELSE {else_sql} END")
    return " ".join(parts)


def _condition_sql(cond, view, dialect):
    """Predicate of one merged path condition (TRUE exactly for the rows it admits)."""
    col = _table_col(cond.name, dialect)
    if cond.is_categorical:
        if cond.has_missing:
            # everything but the training labels sent elsewhere: NULL and unseen included
            out = [lab for lab in view.categories[cond.feature] if lab not in cond.categories]
            if not out:
                return "1 = 1"
            values = ", ".join(_label_literal(lab, dialect) for lab in out)
            return f"({col} IS NULL OR {col} NOT IN ({values}))"
        if not cond.categories:
            return "1 = 0"
        values = ", ".join(_label_literal(lab, dialect) for lab in cond.categories)
        return f"{col} IN ({values})"
    parts = []
    if cond.lo > -math.inf:
        parts.append(f"{col} > {_float_literal(cond.lo, dialect)}")
    if cond.hi < math.inf:
        parts.append(f"{col} <= {_float_literal(cond.hi, dialect)}")
    if not parts:
        return f"{col} IS NULL" if cond.has_missing else f"{col} IS NOT NULL"
    body = " AND ".join(parts)
    return f"({col} IS NULL OR {body})" if cond.has_missing else f"({body})"


def _flat_case(view, node, dialect, pad):
    """One CASE over the leaves below ``node``, each tested by its whole path predicate.

    Its nesting depth does not grow with the tree (SQLite's parser accepts only about 18
    nested CASE levels). The leaves partition the rows, so the last one is the ELSE.
    """
    tree = view.tree
    leaves, stack = [], [int(node)]
    while stack:  # the leaves below node, left to right
        n = stack.pop()
        if tree.children_left[n] < 0:
            leaves.append(n)
        else:
            stack.extend((int(tree.children_right[n]), int(tree.children_left[n])))
    parts = ["CASE"]
    for leaf in leaves[:-1]:
        conds = view.conditions(leaf, start=node)
        pred = " AND ".join(_condition_sql(conds[j], view, dialect) for j in sorted(conds))
        parts.append(f"{pad}  WHEN {pred} THEN {leaf}")
    parts.append(f"{pad}  ELSE {leaves[-1]}")
    parts.append(f"{pad}END")
    return "\n".join(parts)


def _leaf_case(view, node, dialect, pad, step, levels_left):
    """Nested CASE giving the leaf id reached from ``node``.

    After ``levels_left`` nested levels, the rest of the subtree is written flat
    (:func:`_flat_case`).
    """
    tree = view.tree
    left = int(tree.children_left[node])
    if left < 0:
        return str(int(node))
    if levels_left <= 0:
        return _flat_case(view, node, dialect, pad)
    right = int(tree.children_right[node])
    j = int(tree.feature[node])
    col = _table_col(view.feature_names[j], dialect)
    missing_left = bool(tree.missing_left[node])
    inner = pad + step
    left_sql = _leaf_case(view, left, dialect, inner, step, levels_left - 1)
    right_sql = _leaf_case(view, right, dialect, inner, step, levels_left - 1)
    if view.is_categorical[j]:
        cats = view.categories[j]
        row = np.asarray(tree.cat_left[node])
        # codes beyond the table's width were never seen going either way: missing side
        go_left = [bool(row[c]) if c < row.shape[0] else missing_left for c in range(len(cats))]
        # test membership of the side that does NOT receive missing/unseen values
        if missing_left:
            test = [lab for lab, gl in zip(cats, go_left) if not gl]
            then_sql, else_sql = right_sql, left_sql
        else:
            test = [lab for lab, gl in zip(cats, go_left) if gl]
            then_sql, else_sql = left_sql, right_sql
        if not test:  # degenerate split: every value goes to the missing side
            return else_sql
        values = ", ".join(_label_literal(lab, dialect) for lab in test)
        cond = f"{col} IN ({values})"
    else:
        thr = _float_literal(tree.threshold[node], dialect)
        cond = f"{col} <= {thr}"
        if missing_left:
            cond = f"{col} IS NULL OR {cond}"
        then_sql, else_sql = left_sql, right_sql
    return (
        f"CASE\n{inner}WHEN {cond}\n{inner}THEN {then_sql}\n"
        f"{inner}ELSE {else_sql}\n{pad}END"
    )


def _cost_sql(matrix, decision, cost_columns, dialect):
    """SQL of ``Cost(i, d)``: a column, a constant, or 0."""
    costs = getattr(matrix, "costs", None) or {}
    spec = costs.get(decision, None)
    if spec is None:
        return None
    if isinstance(spec, str):
        return _table_col(cost_columns.get(spec, spec), dialect)
    return _float_literal(spec, dialect)


def _interp_sql(knots, vals, y, dialect):
    """Piecewise-linear interpolation of ``vals`` over ``knots`` at ``y`` (same ops as Python)."""
    knots = np.asarray(knots, dtype=np.float64)
    vals = np.asarray(vals, dtype=np.float64)
    k = len(knots)
    pieces = []
    for s in range(k - 1):
        k0 = _float_literal(knots[s], dialect)
        width = _float_literal(knots[s + 1] - knots[s], dialect)
        w = f"(({y} - {k0}) / {width})"
        v0 = _float_literal(vals[s], dialect)
        v1 = _float_literal(vals[s + 1], dialect)
        pieces.append(f"{v0} * (1.0e0 - {w}) + {v1} * {w}")
    if k == 2:
        return f"CASE WHEN {y} IS NULL THEN NULL ELSE {pieces[0]} END"
    parts = [f"CASE WHEN {y} IS NULL THEN NULL"]
    for s in range(k - 2):
        parts.append(f"WHEN {y} < {_float_literal(knots[s + 1], dialect)} THEN {pieces[s]}")
    parts.append(f"ELSE {pieces[-1]} END")
    return " ".join(parts)


def _max_sql(exprs):
    """Greatest of SQL expressions, NULL if any is NULL (no GREATEST in ANSI SQL)."""
    if len(exprs) == 1:
        return exprs[0]
    null_test = " OR ".join(f"{e} IS NULL" for e in exprs)
    parts = [f"CASE WHEN {null_test} THEN NULL"]
    for a in range(len(exprs) - 1):
        conds = " AND ".join(f"{exprs[a]} >= {exprs[b]}" for b in range(a + 1, len(exprs)))
        parts.append(f"WHEN {conds} THEN {exprs[a]}")
    parts.append(f"ELSE {exprs[-1]} END")
    return " ".join(parts)


class _CaseRuleSQL:
    """SQL of the case rule: every row decides from its leaf and its own cost columns.

    ``A(i, d)`` is the linear form of :func:`._caserule.case_form`; the decision is the
    first maximum over the decisions, NULL when any cost column of the row is NULL
    (such a case cannot decide, as in ``decide``). Every expression reads the table's
    columns and the leaf expression directly (no output is read back by name); given
    ``laterals`` (a list, DuckDB/PostgreSQL/Spark), the expected profits and then the
    decision are appended there as LATERAL subqueries and read by their aliases.
    """

    def __init__(self, view, form, sleaf, cost_columns, dialect, laterals=None):
        self.view = view
        self.form = form
        self.sleaf = sleaf
        self.dialect = dialect
        self.columns = {v: _table_col(cost_columns.get(v, v), dialect) for v in form.columns}
        n_dec = len(view.decisions)
        self._expected = [self._expected_sql(k) for k in range(n_dec)]
        if laterals is not None:  # each A(i, d_k), then the decision, computed once per row
            sql, self._expected = _lateral(
                [(f"ep{k}", e) for k, e in enumerate(self._expected)], _EP_ALIAS, dialect)
            laterals.append(sql)
        self.decision = self._decision()
        if laterals is not None:
            sql, (self.decision,) = _lateral([("decision", self.decision)], _DEC_ALIAS, dialect)
            laterals.append(sql)

    def _terms(self, n, k):
        """(coefficient, column) pairs of decision ``k`` at leaf ``n``."""
        form = self.form
        if form.additive:
            return [(form.coef[n, k, j], c) for j, c in enumerate(form.columns)
                    if form.coef[n, k, j] != 0]
        # cost rows: the decision's two cells, by level (negative, positive)
        cells = (("C_FP", "C_TP"), ("C_TN", "C_FN"))[k]
        return [(form.coef[n, k, form.columns.index(c)], c) for c in cells]

    def expected(self, k):
        """SQL of ``A(i, d_k)`` (profit orientation) of the row."""
        return self._expected[k]

    def _expected_sql(self, k):
        form, dialect = self.form, self.dialect
        items = []
        for n in self.view.leaves:
            const = _float_literal(form.const[n, k], dialect)
            terms = self._terms(n, k)
            if form.additive:
                expr = const
                for c, name in terms:  # coefficient -S(leaf): subtract S * column
                    col = self.columns[name]
                    expr += f" - {col}" if c == -1.0 else \
                        f" - {_float_literal(-c, dialect)} * {col}"
            else:
                expr = " + ".join(f"{_float_literal(c, dialect)} * {self.columns[name]}"
                                  for c, name in terms)
            items.append((n, expr))
        return f"({_case_by_leaf(self.sleaf, items)})"

    def _decision(self):
        decisions = self.view.decisions
        A = self._expected
        parts = ["CASE"]
        if self.columns:
            parts.append(f"WHEN {self.any_null()} THEN NULL")
        for a in range(len(decisions) - 1):
            conds = " AND ".join(f"{A[a]} >= {A[b]}" for b in range(a + 1, len(decisions)))
            parts.append(f"WHEN {conds} THEN {_label_literal(decisions[a], self.dialect)}")
        parts.append(f"ELSE {_label_literal(decisions[-1], self.dialect)} END")
        return "(" + " ".join(parts) + ")"

    def any_null(self):
        """A predicate true when any cost column of the row is NULL."""
        return " OR ".join(f"{c} IS NULL" for c in self.columns.values())

    def by_decision(self, exprs):
        """``exprs[k]`` for the row's own decision ``k`` (NULL when it cannot decide)."""
        whens = " ".join(f"WHEN {_label_literal(d, self.dialect)} THEN {e}"
                         for d, e in zip(self.view.decisions, exprs))
        return f"CASE {self.decision} {whens} ELSE NULL END"


def _case_rule_sql(view, sleaf, cost_columns, include_costs, dialect, laterals):
    form = case_form(view)
    if form is None:
        raise ValueError(
            'decision_rule="case" with a case-specific decision matrix that is not 2 x 2: '
            "its consequences are per-case arrays, not table columns, so the SQL cannot "
            "decide from them (2 x 2 matrices read the cost rows C_FP, C_FN, C_TP, C_TN)"
        )
    if form.additive and form.columns and not include_costs:
        raise ValueError(
            'include_costs: under decision_rule="case" every row decides with its own '
            f"cost columns {list(form.columns)!r}, so include_costs must be True"
        )
    return _CaseRuleSQL(view, form, sleaf, cost_columns, dialect, laterals)


def _roi_sql(cp, ic, dialect):
    """ROI from the SQL of the computed profit and the investment (four cases)."""
    pinf = _float_literal(math.inf, dialect)
    ninf = _float_literal(-math.inf, dialect)
    return (
        f"CASE WHEN ({cp}) IS NULL OR ({ic}) IS NULL THEN NULL "
        f"WHEN ({ic}) > 0 THEN ({cp}) / ({ic}) "
        f"WHEN ({cp}) > 0 THEN {pinf} WHEN ({cp}) < 0 THEN {ninf} ELSE NULL END"
    )


def _table_sql(table, dialect):
    """The quoted name of the scored ``table``: a str, or a tuple (list) of str naming
    its parts (``schema.table``), each quoted as an identifier.

    An empty name (or name part) is a ``ValueError``; anything else but a str or a
    non-empty sequence of str a ``TypeError``.
    """
    if isinstance(table, str) and not table.strip():
        raise ValueError("table must be a non-empty table name; got an empty string")
    if isinstance(table, (tuple, list)) and any(isinstance(p, str) and not p.strip() for p in table):
        raise ValueError(f"table must not contain empty name parts; got {table!r}")
    if isinstance(table, str):
        return _quote_ident(table, dialect)
    if isinstance(table, (tuple, list)) and table and all(isinstance(p, str) for p in table):
        return ".".join(_quote_ident(p, dialect) for p in table)
    raise TypeError(f"table must be a str or a tuple of str; got {table!r}")


def _kept_columns(keep_columns, dialect):
    """``keep_columns`` checked, and the quoted names of the columns it keeps.

    Returns ``(keep_columns, keep_sql)``: None or ``"*"`` as given (``keep_sql`` then
    ``[]`` or ``["*"]``), any other iterable as a list of non-empty str that names no
    column twice (``keep_sql`` the quoted names).
    """
    if keep_columns is None:
        return None, []
    if isinstance(keep_columns, str):
        if keep_columns != "*":
            raise ValueError(f"keep_columns must be '*', a list of names or None; got {keep_columns!r}")
        return keep_columns, ["*"]
    try:
        keep_columns = list(keep_columns)
    except TypeError:
        raise TypeError(
            f"keep_columns must be '*', a list of names or None; got {keep_columns!r}"
        ) from None
    if not all(isinstance(c, str) and c for c in keep_columns):
        raise TypeError(f"keep_columns must hold str column names; got {keep_columns!r}")
    dup = repeated_names(keep_columns)
    if dup:
        raise ValueError(f"keep_columns names {shown_labels(dup)} more than once; the query would "
                         "return two columns of one name")
    return keep_columns, [_quote_ident(c, dialect) for c in keep_columns]


def _cost_column_names(cost_columns, view):
    """``cost_columns`` checked: a dict (None: ``{}``) renaming cost variables of the
    tree's matrix (or, for a 2 x 2 matrix of cost rows, ``C_FP``, ``C_FN``, ``C_TP``,
    ``C_TN``) to non-empty column names. Unknown variables are a ``ValueError``; a
    mapping that is no dict, or a name that is no non-empty str, a ``TypeError``.
    """
    if cost_columns is None:
        cost_columns = {}
    elif not isinstance(cost_columns, dict):
        raise TypeError(f"cost_columns must be a dict or None; got {type(cost_columns).__name__}")
    known = tuple(getattr(view.matrix, "cost_variables", ()) or ())
    if view.has_decisions and is_cost_rows(view.matrix):
        known = COST_ROW_COLUMNS
    unknown = [k for k in cost_columns if k not in known]
    if unknown:
        raise ValueError(
            f"cost_columns renames cost variables of the decision matrix {list(known)!r}; "
            f"got unknown names {unknown!r}"
        )
    unnamed = {k: v for k, v in cost_columns.items() if not isinstance(v, str) or not v}
    if unnamed:
        raise TypeError(f"cost_columns must map cost variables to column names (non-empty "
                        f"str); got {unnamed!r}")
    return cost_columns


def _check_names_and_nesting(leaf_column, max_nesting, target):
    """``leaf_column`` must be a non-empty str, ``max_nesting`` a non-negative int (not
    a bool) and ``target`` None or a non-empty str; checked in that order."""
    if not isinstance(leaf_column, str) or not leaf_column:
        raise TypeError(f"leaf_column must be a non-empty str; got {leaf_column!r}")
    if not isinstance(max_nesting, (int, np.integer)) or isinstance(max_nesting, bool) or max_nesting < 0:
        raise ValueError(f"max_nesting must be a non-negative int; got {max_nesting!r}")
    if target is not None and (not isinstance(target, str) or not target):
        raise TypeError(f"target must be a column name (non-empty str) or None; got {target!r}")


def _leaf_expression(view, dialect, max_nesting):
    """The SQL every output reads the row's leaf id from, and the LATERAL subqueries.

    Returns ``(sleaf, laterals)``. With LATERAL (:data:`_LATERAL_DIALECTS`) the leaf
    id is computed once in its own subquery, ``sleaf`` is its qualified name and
    ``laterals`` the list of subqueries (the case rule appends its own); otherwise
    ``sleaf`` is the parenthesised leaf CASE itself, written where it is used (SQLite
    substitutes a subquery's expression there anyway), and ``laterals`` None. No
    output is ever read back by a name that a column of the table could also have.
    """
    sleaf = "(" + _leaf_case(view, 0, dialect, "    ", "  ", max_nesting) + ")"
    if dialect not in _LATERAL_DIALECTS:
        return sleaf, None
    sql, (sleaf,) = _lateral([("leaf", sleaf)], _LEAF_ALIAS, dialect)
    return sleaf, [sql]


def _prediction_columns(view, sleaf, dialect):
    """The ``P_<t>_<class>`` posterior of each class (classifier) or the ``P_<t>``
    predicted mean (regressor), each a CASE over the leaf."""
    tname, leaves = view.target_name, view.leaves
    if not view.is_classifier:
        items = [(n, _float_literal(view.mean[n], dialect)) for n in leaves]
        return [f"{_case_by_leaf(sleaf, items)} AS {_quote_ident(f'P_{tname}', dialect)}"]
    cols = []
    for k, cls in enumerate(view.classes):
        items = [(n, _float_literal(view.posteriors[n, k], dialect)) for n in leaves]
        cols.append(f"{_case_by_leaf(sleaf, items)} AS {_quote_ident(f'P_{tname}_{cls}', dialect)}")
    return cols


def _decision_costs_sql(view, include_costs, target, cost_columns, dialect):
    """The SQL of ``Cost(i, d)`` per decision (a column, a constant, or None for a
    decision without cost), or None when the query leaves the costs unread.

    The costs are read for a revenue matrix when ``include_costs`` (which must be a
    bool) is True. A ``target`` of a matrix with cost variables needs them: computed
    profit is not written without the cases' actual costs.
    """
    if not isinstance(include_costs, (bool, np.bool_)):
        raise TypeError(f"include_costs must be a bool; got {include_costs!r}")
    matrix = view.matrix
    has_costs = (
        bool(include_costs) and view.has_decisions and getattr(matrix, "kind", None) == "revenue"
    )
    if (
        target is not None
        and not has_costs
        and view.has_decisions
        and getattr(matrix, "cost_variables", ())
    ):
        raise ValueError(
            "target: computed profit needs the cases' actual costs; the matrix uses the "
            f"cost variables {list(matrix.cost_variables)!r}, so include_costs must be True"
        )
    if not has_costs:
        return None
    return {d: _cost_sql(matrix, d, cost_columns, dialect) for d in view.decisions}


def _investment_sql(cost_sql, decision):
    """The investment ``Cost(i, d)`` of ``decision``: its cost's SQL, or 0."""
    expr = cost_sql[decision]
    return expr if expr is not None else "0.0e0"


def _decision_columns(view, sleaf, case, cost_sql, dialect):
    """``D_<t>``, ``EP_<t>`` (``EL_<t>``) and, when the costs are read, ``IC_<t>``.

    Under the case rule (``case``) they follow the row's own decision, made from its
    leaf and its own cost columns; under the leaf rule they are the leaf's (a CASE over
    the leaf). A NULL cost never reaches ``D_`` or ``EP_``; ``IC_`` is NULL exactly when
    the chosen decision's cost is.
    """
    tname, leaves = view.target_name, view.leaves
    ep_col = _quote_ident(f"{view.ep_name}_{tname}", dialect)
    ic_col = _quote_ident(f"IC_{tname}", dialect)
    cols = []
    if case is not None:
        cols.append(f"{case.decision} AS {_quote_ident(f'D_{tname}', dialect)}")
        ep = [case.expected(k) for k in range(len(view.decisions))]
        if view.sign < 0:
            ep = [f"-({e})" for e in ep]
        cols.append(f"{case.by_decision(ep)} AS {ep_col}")
        if cost_sql is not None:
            ic_case = [_investment_sql(cost_sql, d) for d in view.decisions]
            cols.append(f"{case.by_decision(ic_case)} AS {ic_col}")
        return cols
    if view.has_decisions:
        items = [(n, _label_literal(view.decision_label(n), dialect)) for n in leaves]
        cols.append(f"{_case_by_leaf(sleaf, items)} AS {_quote_ident(f'D_{tname}', dialect)}")
        ep = view.node_expected
        items = [(n, _float_literal(ep[n, view.node_decision[n]], dialect)) for n in leaves]
        cols.append(f"{_case_by_leaf(sleaf, items)} AS {ep_col}")
    if cost_sql is not None:
        items = [(n, _investment_sql(cost_sql, view.decision_label(n))) for n in leaves]
        cols.append(f"{_case_by_leaf(sleaf, items)} AS {ic_col}")
    return cols


def _check_target(view):
    """A ``target`` needs a tree fitted with a decision matrix whose consequences are
    table columns: a case-specific matrix other than the 2 x 2 one of cost rows is a
    ``ValueError``."""
    if not view.has_decisions:
        raise ValueError(
            "target is only used for computed profit and ROI, which need a tree "
            "fitted with a decision_matrix"
        )
    matrix = view.matrix
    if getattr(matrix, "is_case_specific", False) and not is_cost_rows(matrix):
        # a 2 x 2 matrix reads its cost rows C_FP/C_FN/C_TP/C_TN from the table
        # (under either rule); other case-specific arrays have no columns
        raise ValueError(
            "target cannot be scored in SQL with a case-specific decision matrix: its "
            "consequences are per-case arrays, not table columns; pass target=None"
        )


def _actual_consequences(view, y, cost_sql, cost_columns, dialect):
    """Per decision, the SQL of ``Q(i, T(i), d)`` in the user's sign, ``y`` the SQL of
    the row's actual target: the cost row of the actual level (2 x 2 case-specific
    matrix), or the matrix's value at it (interpolated over the knots for an interval
    target) less the decision's cost when the costs are read."""
    matrix = view.matrix
    values = np.asarray(matrix.values, dtype=np.float64)
    q = []
    rows_cells = (("C_FP", "C_TP"), ("C_TN", "C_FN"))  # by decision: (neg, pos)
    for k, d in enumerate(view.decisions):
        if getattr(matrix, "is_case_specific", False):  # cost row of the actual level
            cols_k = [_table_col(cost_columns.get(c, c), dialect) for c in rows_cells[k]]
            whens = " ".join(f"WHEN {_label_literal(lev, dialect)} THEN {col}"
                             for lev, col in zip(matrix.levels, cols_k))
            q.append(f"(CASE {y} {whens} ELSE NULL END)")
            continue
        if getattr(matrix, "is_interval", False):
            base = _interp_sql(matrix.knots, values[:, k], y, dialect)
        else:
            whens = " ".join(
                f"WHEN {_label_literal(lev, dialect)} "
                f"THEN {_float_literal(values[t, k], dialect)}"
                for t, lev in enumerate(matrix.levels)
            )
            base = f"CASE {y} {whens} ELSE NULL END"
        c = cost_sql.get(d) if cost_sql is not None else None
        q.append(f"({base}) - {c}" if c is not None else f"({base})")
    return q


def _target_columns(view, sleaf, case, cost_sql, target, cost_columns, dialect):
    """``CP_<t>`` (``CL_``), ``BP_<t>`` (``BL_``) and, when the costs are read,
    ``ROI_<t>``, from the ``target`` column (checked by :func:`_check_target`).

    The computed profit is the actual consequence of the row's decision (its own under
    the case rule, the leaf's otherwise); the best is the largest over the decisions
    (the smallest loss), NULL when any decision's cost is, and under the case rule
    NULL for a row with any missing cost. ROI writes CP and IC again rather than
    reading the output columns back by name.
    """
    _check_target(view)
    tname, leaves = view.target_name, view.leaves
    q = _actual_consequences(view, _table_col(target, dialect), cost_sql, cost_columns,
                             dialect)
    cp_name = "CL" if view.sign < 0 else "CP"
    bp_name = "BL" if view.sign < 0 else "BP"
    if case is not None:
        cp_sql = case.by_decision(q)
    else:
        items = [(n, q[int(view.node_decision[n])]) for n in leaves]
        cp_sql = _case_by_leaf(sleaf, items)
    cols = [f"{cp_sql} AS {_quote_ident(f'{cp_name}_{tname}', dialect)}"]
    if view.sign < 0:  # the best loss is the smallest one
        best = "-(" + _max_sql([f"(-{e})" for e in q]) + ")"
    else:
        best = _max_sql(q)
    if case is not None and case.columns:
        # a case with any missing cost cannot decide: every figure is missing
        best = f"CASE WHEN {case.any_null()} THEN NULL ELSE {best} END"
    cols.append(f"{best} AS {_quote_ident(f'{bp_name}_{tname}', dialect)}")
    if cost_sql is None:
        return cols
    roi_name = _quote_ident(f"ROI_{tname}", dialect)
    if case is not None:
        ic_case = [_investment_sql(cost_sql, d) for d in view.decisions]
        roi = _roi_sql(case.by_decision(q), case.by_decision(ic_case), dialect)
    else:
        items = []
        for n in leaves:
            ic = _investment_sql(cost_sql, view.decision_label(n))
            items.append((n, _roi_sql(q[int(view.node_decision[n])], ic, dialect)))
        roi = _case_by_leaf(sleaf, items)
    cols.append(f"{roi} AS {roi_name}")
    return cols


def _select(cols, table_sql, laterals):
    """The query: the output columns over the table aliased ``t``, joined with the
    LATERAL subqueries (if any)."""
    from_sql = f"{table_sql} AS {_T}"
    if laterals:
        from_sql += "".join(f",\n  {lat}" for lat in laterals)
    return "SELECT\n  " + ",\n  ".join(cols) + f"\nFROM {from_sql}"


def to_sql(
    estimator,
    *,
    table="data",
    keep_columns="*",
    target=None,
    cost_columns=None,
    include_costs=True,
    leaf_column="_LEAF_",
    dialect="ansi",
    max_nesting=12,
):
    """ANSI SQL score code of a fitted profit tree.

    The query is one ``SELECT`` over ``table`` (aliased ``t``) with nested ``CASE``
    expressions: the leaf expression finds the leaf of every row and each output is a
    ``CASE`` over that leaf. For DuckDB, PostgreSQL and Spark SQL the leaf id (and,
    under ``decision_rule="case"``, each decision's expected profit and the decision)
    is computed once per row in ``LATERAL`` subqueries that the outputs read by alias;
    the ANSI and SQLite query writes the leaf expression in every output instead. Columns of the table are always read qualified
    (``t."age"``) and no output is read back by name, so a table that already holds
    columns named like the outputs (a table scored before, with ``_LEAF_``, ``D_<t>``,
    ...) scores exactly as a fresh one (the ``LATERAL`` subqueries' columns are read
    through their own aliases, which no column of the table can shadow); with
    ``keep_columns="*"`` its old columns come first and the new outputs after them
    (same names), so prefer a list. It scores
    exactly as ``estimator.decide`` does: ``x <= threshold`` goes left, categorical
    splits test the training labels of one side, and NULL as well as labels unseen in
    training follow the node's missing-value side.

    Output columns (``<t>`` is the estimator's ``target_name_``):

    - ``_LEAF_``: the leaf node id (as ``estimator.apply``);
    - ``P_<t>_<class>`` per class (classifier), or ``P_<t>`` the predicted mean (regressor);
    - with a decision matrix: ``D_<t>`` (decision) and ``EP_<t>`` (``EL_<t>`` for a loss
      matrix), the leaf's expected profit;
    - with a revenue matrix: ``IC_<t>``, the investment cost ``Cost(i, D(i))`` of the row
      (a cost column or a constant; 0 for decisions without cost);
    - with ``target`` given: ``CP_<t>``/``CL_<t>`` (computed profit), ``BP_<t>``/``BL_<t>``
      (best possible profit) and, for a revenue matrix, ``ROI_<t>`` with the four cases
      of the design notes.

    A NULL cost never changes ``D_<t>`` or the expected profit (they are the leaf's, as
    in ``decide``). It makes NULL only what needs it: ``IC_<t>`` and ``CP_<t>`` when the
    cost of the row's chosen decision is NULL, ``BP_<t>`` when the cost of any decision
    is NULL, ``ROI_<t>`` when either of ``CP_<t>`` and ``IC_<t>`` is. Summing the
    output over rows with no NULL cost gives the totals of ``decide(...).summary``.

    Parameters
    ----------
    estimator : ProfitTreeClassifier or ProfitTreeRegressor
        A fitted tree.
    table : str or tuple of str, default="data"
        Table to read; a tuple gives a qualified name such as ``("schema", "table")``.
        Every part is quoted as an identifier.
    keep_columns : "*", list of str or None, default="*"
        Input columns to copy to the output: all of them, the listed ones, or none.
    target : str or None, default=None
        Name of the column holding the actual target; adds computed and best profit and
        ROI.
    cost_columns : dict or None, default=None
        Renames cost variables of the matrix to the table's column names
        (``{matrix_cost_variable: sql_column}``); by default the matrix's names are used.
    include_costs : bool, default=True
        For a revenue matrix, read the cost columns and add ``IC_<t>``. False leaves
        the cost columns unread (no ``IC_``, and no ``target`` when the matrix uses cost
        variables); decisions and expected profits do not need them.
    leaf_column : str, default="_LEAF_"
        Name of the leaf-id output column.
    dialect : {"ansi", "sqlite", "duckdb", "postgresql", "spark"}, default="ansi"
        The ANSI query runs as it is in SQLite, DuckDB and PostgreSQL. ``"sqlite"``
        writes infinite ROI values as ``9e999`` (``CAST('Infinity' AS DOUBLE
        PRECISION)`` otherwise); ``"duckdb"`` and ``"postgresql"`` compute the leaf id
        once per row in a ``LATERAL`` subquery (far less SQL to plan than the ANSI
        query, which repeats the leaf expression per output). ``"spark"`` writes Spark
        SQL: identifiers in backticks, string literals with backslash escapes,
        ``CAST('Infinity' AS DOUBLE)`` and the ``LATERAL`` subqueries.
    max_nesting : int, default=12
        Nested CASE levels before the deeper part of a subtree is written as one flat
        CASE with a WHEN per leaf (its whole path as the condition). Engines limit how
        deep expressions may nest (SQLite's parser fails beyond about 18 CASE levels);
        nesting is faster, the flat form has no limit. Both score identically.

    Returns
    -------
    str
        The query, without a trailing semicolon.

    Raises
    ------
    ValueError
        For an unknown ``dialect``, a ``target`` with a case-specific decision matrix
        other than the 2 x 2 one of cost rows ``C_FP, C_FN, C_TP, C_TN`` (its
        consequences are not columns), invalid column arguments, or a
        ``leaf_column`` or kept column named like another output.

    Notes
    -----
    Missing numeric values must be NULL in the table (not a floating-point NaN, which
    some engines order above every number). Constants are exact as long as the engine
    reads 17-digit decimal literals correctly; SQLite 3.40 does so for ordinary magnitudes
    but not always near the limits of the double range (about 1e-280 or 1e280).

    Examples
    --------
    >>> import sqlite3
    >>> import pandas as pd
    >>> from dtdecide import DecisionMatrix, ProfitTreeClassifier
    >>> from dtdecide.export import to_sql
    >>> X = pd.DataFrame({"age": [20.0, 25.0, 30.0, 35.0, 40.0, 45.0, 50.0, 55.0]})
    >>> m = DecisionMatrix({"ignore": [0, 0], "mail": [-1, 9]}, levels=["no", "yes"])
    >>> tree = ProfitTreeClassifier(decision_matrix=m, max_depth=1, min_samples_leaf=1,
    ...                             min_samples_split=2).fit(X, ["no"] * 4 + ["yes"] * 4)
    >>> con = sqlite3.connect(":memory:")
    >>> _ = X.to_sql("data", con, index=False)
    >>> sql = to_sql(tree, keep_columns=["age"], dialect="sqlite")
    >>> rows = con.execute(sql).fetchall()
    >>> [(age, decision) for age, _, _, _, decision, _ in rows[::3]]
    [(20.0, 'ignore'), (35.0, 'ignore'), (50.0, 'mail')]
    """
    view = tree_view(estimator)
    if dialect not in _DIALECTS:
        raise ValueError(f"dialect must be one of {_DIALECTS}; got {dialect!r}")
    table_sql = _table_sql(table, dialect)
    keep_columns, keep_sql = _kept_columns(keep_columns, dialect)
    cost_columns = _cost_column_names(cost_columns, view)
    _check_names_and_nesting(leaf_column, max_nesting, target)

    sleaf, laterals = _leaf_expression(view, dialect, max_nesting)
    _check_output_names(view, leaf_column, keep_columns, target)
    cols = [f"{_T}.*"] if keep_sql == ["*"] else [f"{_T}.{c}" for c in keep_sql]
    cols.append(f"{sleaf} AS {_quote_ident(leaf_column, dialect)}")
    case = _case_rule_sql(view, sleaf, cost_columns, include_costs, dialect, laterals) \
        if is_case_rule(view) else None
    cols += _prediction_columns(view, sleaf, dialect)
    # A NULL cost never reaches D_ or EP_ (the leaf's). SQL arithmetic on NULL gives
    # NULL, so IC_ and CP_ are NULL exactly when the chosen decision's cost is, BP_
    # (_max_sql) when any decision's cost is, and ROI_ when CP_ or IC_ is.
    cost_sql = _decision_costs_sql(view, include_costs, target, cost_columns, dialect)
    cols += _decision_columns(view, sleaf, case, cost_sql, dialect)
    if target is not None:
        cols += _target_columns(view, sleaf, case, cost_sql, target, cost_columns, dialect)
    return _select(cols, table_sql, laterals)


def _output_names(view, leaf_column):
    tname = view.target_name
    names = [leaf_column]
    if view.is_classifier:
        names += [f"P_{tname}_{cls}" for cls in view.classes]
    else:
        names.append(f"P_{tname}")
    if view.has_decisions:
        names += [f"D_{tname}", f"{view.ep_name}_{tname}", f"IC_{tname}", f"CP_{tname}",
                  f"CL_{tname}", f"BP_{tname}", f"BL_{tname}", f"ROI_{tname}"]
    return names


def _check_output_names(view, leaf_column, keep_columns, target):
    """Refuse a leaf column or kept columns named like another output (known clashes)."""
    outputs = _output_names(view, leaf_column)
    if leaf_column in outputs[1:]:
        raise ValueError(
            f"leaf_column {leaf_column!r} is the name of another output column; choose "
            "another name"
        )
    if keep_columns == "*":  # the table's columns: at least the inputs and the target
        read = {*map(str, view.feature_names), *([] if target is None else [target])}
        clash = [c for c in outputs if c in read]
        if clash:
            raise ValueError(
                f"{'leaf_column' if clash[0] == leaf_column else 'the output column'} "
                f"{clash[0]!r} is also a column of the table that keep_columns='*' keeps "
                "(an input of the tree or the target): the query would return two columns "
                "of that name; pass another leaf_column, or list keep_columns")
    elif keep_columns is not None:
        clash = [c for c in keep_columns if c in outputs]
        if clash:
            raise ValueError(
                f"keep_columns {clash!r} are named like output columns of the score code "
                f"({outputs[0]!r}, P_, D_, ...); leave them out (a table scored before) "
                "or pass another leaf_column"
            )
