"""Binding a decision matrix to cases: the consequences of every decision for every
case, with its costs (a mixin of :class:`~dtdecide.DecisionMatrix`).

``resolve`` turns constants, cost variables and case-specific arrays into one
:class:`~dtdecide.decision._consequences.Consequences`, the only form the kernels read.
"""

import numbers
from collections.abc import Mapping

import numpy as np
import pandas as pd

from ._consequences import Consequences
from ._kernels import _FLOAT
from ._validation import numeric_cost_column

#: Fewest values per task of :func:`all_finite` on a fit's threads.
FINITE_TASK_MIN = 1 << 18


def all_finite(values):
    """Whether every value of the float array ``values`` is finite, from sums: a NaN
    or an infinite value makes every sum that holds it NaN or infinite, so finite sums
    mean finite values, whatever their order (a sum that overflows only sends the
    caller to its exact per-value test). One pass, in contiguous ranges on the threads
    of the pool the calling thread has open (:func:`dtdecide._parallel.open_pool`: a
    fit's threads), instead of ``np.isinf(values).any()``'s pass and boolean array.

    Examples
    --------
    >>> import numpy as np
    >>> all_finite(np.array([1.0, 2.0])), all_finite(np.array([1.0, np.nan]))
    (True, False)
    """
    from .._parallel import open_pool

    values = np.asarray(values).reshape(-1)
    pool = open_pool()
    n = values.shape[0]

    def finite_sum(a, b):
        with np.errstate(over="ignore", invalid="ignore"):  # no warning of its own
            return bool(np.isfinite(values[a:b].sum()))

    if pool is None or n < 2 * FINITE_TASK_MIN:
        return finite_sum(0, n)
    step = max(FINITE_TASK_MIN, -(-n // (2 * pool.n_threads)))
    return all(pool.map_groups(lambda a: finite_sum(a, a + step), list(range(0, n, step))))

__all__ = ["_MatrixCasesMixin"]


def _as_float_array(values, name):
    try:
        if isinstance(values, (pd.DataFrame, pd.Series, pd.Index,
                               pd.api.extensions.ExtensionArray)):  # pd.NA: NaN
            return values.to_numpy(dtype=_FLOAT, na_value=np.nan)
        arr = np.asarray(values, dtype=_FLOAT)
    except (TypeError, ValueError):
        shown = repr(values)
        if isinstance(values, np.ndarray):  # the dtype, not a screenful of cells
            shown = f"an array of dtype {values.dtype}"
        elif len(shown) > 200:
            shown = shown[:200] + " ..."
        raise TypeError(f"{name} must contain only numbers; got {shown}") from None
    return arr


def _is_empty_costs(costs):
    """Whether ``costs`` holds no cost data at all (None, or no columns)."""
    if costs is None:
        return True
    if isinstance(costs, pd.DataFrame):
        return costs.shape[1] == 0
    if isinstance(costs, Mapping):
        return len(costs) == 0
    return False


class _MatrixCasesMixin:
    """The consequences of a decision matrix for given cases and their costs."""

    def resolve(self, costs=None, *, n_samples, index=None):
        """Turn the matrix plus case data into profit-oriented consequences.

        Parameters
        ----------
        costs : DataFrame, dict of arrays, ndarray or None
            Holds the cost-variable columns (taken positionally, one value per case).
            For a case-specific matrix: an array (n_samples, n_levels, n_decisions) in
            the user's sign, or for a 2x2 matrix an (n_samples, 4) cost matrix
            ``[C_FP, C_FN, C_TP, C_TN]`` (a DataFrame is read by those column names;
            decisions read as "predict levels[1]",
            "predict levels[0]").
        n_samples : int
            Number of cases.
        index : pandas Index, default=None
            Index of the cases (used only in error messages about lengths).

        Returns
        -------
        Consequences
            The consequences of every decision for these cases, in profit orientation.

        Examples
        --------
        >>> import pandas as pd
        >>> from dtdecide import DecisionMatrix
        >>> m = DecisionMatrix([[10, 0], [0, 0]], levels=[1, 0], decisions=["mail", "skip"],
        ...                    kind="revenue", costs={"mail": "c"})
        >>> cons = m.resolve(pd.DataFrame({"c": [1.0, 2.0]}), n_samples=2)
        >>> cons.q_actual([0, 1]).tolist()
        [[9.0, 0.0], [-2.0, 0.0]]
        """
        n = int(n_samples)
        if n < 0:
            raise ValueError(f"n_samples must be non-negative; got {n_samples}")
        T, D = self.values.shape
        if self.is_case_specific:
            if costs is None:
                if self.case_values is None:
                    raise ValueError(
                        "costs must hold the case-specific consequences (an array of shape "
                        f"(n_samples, {T}, {D})) for this case-specific matrix; got None"
                    )
                q = self.case_values
            else:
                # the cases' own consequences; they replace bound values (the training
                # cases') for other cases
                if isinstance(costs, (Mapping,)) or (
                    isinstance(costs, pd.DataFrame) and not (T == 2 and D == 2)
                ):
                    raise TypeError(
                        "costs must be an array of shape (n_samples, n_levels, n_decisions) "
                        "for a case-specific matrix (or, with 2 levels and 2 decisions, cost "
                        "rows C_FP, C_FN, C_TP, C_TN)"
                    )
                q = np.asarray(costs) if not isinstance(costs, pd.DataFrame) else costs
                if isinstance(q, pd.DataFrame) or (np.ndim(q) == 2 and T == 2 and D == 2):
                    q = self._cost_matrix_to_q(q, "costs")
                    # a cost matrix holds costs: profit orientation is their negative
                    q = q if self.kind == "loss" else -q
                else:
                    q = _as_float_array(q, "costs")
            if q.ndim != 3 or q.shape[1:] != (T, D):
                raise ValueError(
                    f"costs must have shape (n_samples, {T}, {D}) for this case-specific "
                    f"matrix; got {q.shape}"
                )
            if q.shape[0] != n:
                raise ValueError(
                    f"costs must have one entry per case ({n}); got {q.shape[0]}"
                )
            q = np.asarray(q, dtype=_FLOAT)
            if np.isinf(q).any():
                raise ValueError("costs must not contain infinite consequences")
            case_q = -q if self.kind == "loss" else q
            return Consequences(np.zeros((T, D)), None, case_q, self.sign, self.knots, n)

        self._check_cost_table(costs)
        if not self.costs:
            return Consequences(self.profit_values, None, None, self.sign, self.knots, n)

        columns = self._cost_columns(costs, n, index)

        if not columns:  # constants only: a broadcast view, no memory per case
            row = np.array([self.costs.get(d, 0.0) for d in self.decisions], dtype=_FLOAT)
            case_costs = np.broadcast_to(row, (n, D))
        else:
            # each decision's cost column or constant: the (cases x decisions) array is
            # made only where it is read (Consequences.case_costs), not by the kernels
            # that read the columns
            names = list(columns)
            const = np.zeros(D, dtype=_FLOAT)
            col_of = np.full(D, -1, dtype=np.intp)
            for j, d in enumerate(self.decisions):
                c = self.costs.get(d)
                if isinstance(c, str):
                    col_of[j] = names.index(c)
                elif c is not None:
                    const[j] = c
            return Consequences(self.profit_values, None, None, self.sign, self.knots, n,
                                cost_columns=(const, col_of, [columns[k] for k in names]))
        return Consequences(self.profit_values, case_costs, None, self.sign, self.knots, n)

    def missing_cost_cases(self, costs=None, *, n_samples, index=None):
        """The cases that :meth:`resolve` would give a missing cost, checked as it checks
        them (the same errors), without making its (cases x decisions) cost array.

        For a matrix with cost variables that is not case-specific: a fit that needs
        the consequences only after growing checks its costs with this first.

        Parameters
        ----------
        costs : DataFrame, dict of arrays or None
            Holds the cost-variable columns, as for :meth:`resolve`.
        n_samples : int
            Number of cases.
        index : pandas Index, default=None
            Index of the cases (used only in error messages about lengths).

        Returns
        -------
        ndarray of bool (n_samples,)
            Where a cost variable of some decision is missing (NaN).

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> from dtdecide import DecisionMatrix
        >>> m = DecisionMatrix([[10, 0], [0, 0]], levels=[1, 0], decisions=["mail", "skip"],
        ...                    kind="revenue", costs={"mail": "c"})
        >>> m.missing_cost_cases(pd.DataFrame({"c": [1.0, np.nan]}), n_samples=2).tolist()
        [False, True]
        """
        if self.is_case_specific or not self.cost_variables:
            raise ValueError("missing_cost_cases needs a matrix with cost variables that is "
                             "not case-specific (use resolve)")
        n = int(n_samples)
        if n < 0:
            raise ValueError(f"n_samples must be non-negative; got {n_samples}")
        self._check_cost_table(costs)
        finite = {}
        columns = self._cost_columns(costs, n, index, finite=finite)
        missing = np.zeros(n, dtype=bool)
        for d in self.decisions:
            c = self.costs.get(d)
            if isinstance(c, str):
                col = columns[c]
                if not finite[c]:  # per case only where the column's sums found a NaN
                    missing |= np.isnan(col)
            elif c is not None and np.isnan(c):
                missing[:] = True
        return missing

    def _check_cost_table(self, costs):
        """Refuse a cost array given to a matrix that is not case-specific, then as
        :meth:`_check_costs_allowed`."""
        if isinstance(costs, np.ndarray) and costs.ndim >= 2 and costs.dtype != object:
            raise TypeError(
                "costs must be a DataFrame or dict of cost columns for a matrix that is not "
                "case-specific; got an array (use DecisionMatrix.case_specific for "
                "per-case consequence arrays)"
            )
        self._check_costs_allowed(costs)

    def _check_costs_allowed(self, costs):
        """Refuse case costs given to a profit or loss matrix (never silently dropped)."""
        if self.kind != "revenue" and not self.is_case_specific and not _is_empty_costs(costs):
            raise ValueError(
                f"costs must be None for a {self.kind} matrix: case costs are only "
                "allowed with kind='revenue' (build the matrix with kind='revenue' and "
                f"costs={{decision: column}}); got {type(costs).__name__}"
            )

    def _cost_columns(self, costs, n, index=None, finite=None):
        """Validated cost-variable columns as float arrays of length ``n``; ``finite``
        (a dict), when given, receives per column whether every value is finite (no
        NaN)."""
        columns = {}
        for var in self.cost_variables:
            if costs is None:
                raise ValueError(
                    f"costs is missing the cost column {var!r} used by the decision matrix "
                    f"(cost variables: {list(self.cost_variables)!r}); got costs=None"
                )
            # a Series, array or list has no named columns: `var in costs` would test
            # its index or its values
            not_table = isinstance(costs, (pd.Series, np.ndarray, list, tuple))
            try:
                has = not not_table and var in costs
            except TypeError:
                not_table = True
            if not_table:
                raise TypeError(
                    f"costs must be a DataFrame or a dict of arrays with the cost column(s) "
                    f"{list(self.cost_variables)!r}; got {type(costs).__name__}"
                )
            if not has:
                raise ValueError(
                    f"costs is missing the cost column {var!r} used by the decision matrix"
                )
            col = costs[var]
            if isinstance(col, pd.DataFrame):
                raise ValueError(
                    f"costs has {col.shape[1]} columns named {var!r}; a cost column must be "
                    "named once"
                )
            if isinstance(col, numbers.Number) and n != 1:
                raise ValueError(
                    f"costs column {var!r} must have one value per case ({n}); got the "
                    f"single number {col!r} (a cost that is the same for every case "
                    "belongs in the matrix: costs={decision: number})"
                )
            if isinstance(col, (pd.Series, pd.Index)):
                col = col.to_numpy()
            col = numeric_cost_column(np.asarray(col).reshape(-1), var)
            if col.size != n:
                where = "" if index is None else " (cases indexed by the posteriors)"
                raise ValueError(
                    f"costs column {var!r} must have one value per case ({n}){where}; "
                    f"got {col.size}"
                )
            ok = all_finite(col)
            if not ok and np.isinf(col).any():
                raise ValueError(f"costs column {var!r} must not contain infinite values")
            if finite is not None:
                finite[var] = ok
            columns[var] = col
        return columns
