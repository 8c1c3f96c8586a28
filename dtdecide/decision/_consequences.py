"""Consequences: a decision matrix resolved against the data of some cases.

Every module turns a matrix plus case data into numbers through
``DecisionMatrix.resolve``, which returns the small object defined here. All arrays are
in profit orientation; ``sign`` converts back to the user's orientation (loss).
"""

import numpy as np

from ._kernels import _FLOAT, _interpolate_cases, _segments
from ._validation import refuse_overflowing_sums

__all__ = ["Consequences"]


class Consequences:
    """Profit-oriented consequences of every decision for a set of cases.

    Built by :meth:`DecisionMatrix.resolve`; not meant to be constructed by users.

    Parameters
    ----------
    base : ndarray of shape (n_levels, n_decisions)
        Matrix part in profit orientation (zeros for case-specific matrices).
    case_costs : ndarray of shape (n_samples, n_decisions) or None
        Additive cost per case and decision (``Q = base - case_costs``); NaN where missing.
    case_q : ndarray of shape (n_samples, n_levels, n_decisions) or None
        Case-specific consequences in profit orientation.
    sign : {1, -1}
        +1 for profit/revenue matrices, -1 for loss matrices.
    knots : ndarray or None
        Knots of an interval matrix.
    n_samples : int
        Number of cases.
    cost_columns : tuple (const, col_of, columns), optional
        The additive costs as columns instead of ``case_costs``: decision ``d`` costs
        ``columns[col_of[d]]`` per case, or the constant ``const[d]`` where ``col_of[d]``
        is negative. ``case_costs`` is then made from them when first read; kernels that
        read the columns (the case rule's node sums) never make it.

    Attributes
    ----------
    has_missing : ndarray of shape (n_samples,), dtype bool
        Cases with a missing cost or consequence: their results are NaN and they are
        left out of summaries.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from dtdecide.decision import DecisionMatrix
    >>> m = DecisionMatrix({"call": [20, -2], "skip": [0, 0]}, levels=["yes", "no"],
    ...                    kind="revenue", costs={"call": "cost"})
    >>> c = m.resolve(pd.DataFrame({"cost": [3.0, 1.0]}), n_samples=2)
    >>> c
    Consequences(n_samples=2, categorical, with costs, sign=1)
    >>> c.expected(np.array([[0.5, 0.5], [0.05, 0.95]])).round(2).tolist()
    [[6.0, 0.0], [-1.9, 0.0]]
    >>> c.costs([0, 1]).tolist()
    [3.0, 0.0]
    """

    def __init__(self, base, case_costs, case_q, sign, knots, n_samples, *,
                 cost_columns=None):
        self.base = base
        self.case_q = case_q
        self.sign = sign
        self.knots = knots
        self.n_samples = int(n_samples)
        self._case_costs = case_costs
        self._has_missing = None
        # (const, col_of, columns): the case costs as the matrix's cost columns, the
        # (cases x decisions) array made only when it is read
        self.cost_columns = cost_columns
        if cost_columns is not None:
            if case_costs is not None:
                raise ValueError("give case_costs or cost_columns, not both")
            const, col_of, columns = cost_columns
            if len(const) != len(col_of) or any(np.shape(c) != (self.n_samples,)
                                                for c in columns):
                raise ValueError("cost_columns: one constant and column index per "
                                 "decision, and one value per case in each column")

    @property
    def case_costs(self):
        """Additive cost per case and decision (``Q = base - case_costs``), or None.

        From cost columns (:meth:`DecisionMatrix.resolve <dtdecide.DecisionMatrix.resolve>`
        of a matrix with cost variables) it is made on the first read: ``(n_samples,
        n_decisions)`` float64 with each decision's column or constant.
        """
        if self._case_costs is None and self.cost_columns is not None:
            const, col_of, columns = self.cost_columns
            out = np.zeros((self.n_samples, len(const)), dtype=_FLOAT)
            for j, k in enumerate(col_of):
                out[:, j] = columns[k] if k >= 0 else const[j]
            self._case_costs = out
        return self._case_costs

    @property
    def has_missing(self):
        """ndarray of bool (n_samples,): cases with a missing cost or consequence."""
        if self._has_missing is None:
            with np.errstate(over="ignore", invalid="ignore"):  # refuse_overflow's to name
                self._has_missing = self._missing()
        return self._has_missing

    def _missing(self):
        # the per-case test only runs when a cheap global test finds a NaN
        case_q = self.case_q
        if case_q is not None and np.isnan(case_q.sum()):
            return np.isnan(case_q).any(axis=(1, 2))
        if self.cost_columns is not None and self._case_costs is None:
            const, col_of, columns = self.cost_columns
            out = np.zeros(self.n_samples, dtype=bool)
            for k in sorted({int(k) for k in col_of if k >= 0}):
                if np.isnan(columns[k].sum()):
                    out |= np.isnan(columns[k])
            if any(k < 0 and np.isnan(c) for c, k in zip(const, col_of)):
                out[:] = True
            return out
        case_costs = self._case_costs
        if case_costs is not None and np.isnan(case_costs.sum()):
            return np.isnan(case_costs).any(axis=1)
        return np.zeros(self.n_samples, dtype=bool)

    def refuse_overflow(self, name="costs"):
        """Refuse per-case consequences or cost columns whose magnitudes, summed over
        the cases, overflow a float (a leaf's totals would be inf or NaN): one sum per
        column. For a fit, once, after its missing costs are refused; constant costs are
        the matrix's and not checked here.

        Parameters
        ----------
        name : str, default="costs"
            The parameter the error names.

        Raises
        ------
        ValueError
            When a column's sum of magnitudes is not finite.
        """
        if self.case_q is not None:
            refuse_overflowing_sums(self.case_q.reshape(self.n_samples, -1), name)
        elif self.cost_columns is not None:
            const, col_of, columns = self.cost_columns
            for k in sorted({int(k) for k in col_of if k >= 0}):
                refuse_overflowing_sums(columns[k], name)
        elif self._case_costs is not None and self._case_costs.strides[0] != 0:
            refuse_overflowing_sums(self._case_costs, name)

    @property
    def is_interval(self):
        """True for an interval (knots) matrix."""
        return self.knots is not None

    @property
    def n_decisions(self):
        """Number of decisions."""
        return self.base.shape[1]

    def take(self, rows):
        """Consequences of a subset of cases.

        Parameters
        ----------
        rows : slice, array-like of int or array-like of bool
            The cases kept: a slice, their indices or a mask of ``n_samples`` values.

        Returns
        -------
        Consequences
            The same matrix resolved for the kept cases only (costs and case-specific
            consequences taken row by row).
        """
        if isinstance(rows, slice):
            n = len(range(*rows.indices(self.n_samples)))
        else:
            rows = np.asarray(rows)
            n = int(rows.sum()) if rows.dtype == bool else rows.size
        if self.cost_columns is not None and self._case_costs is None:
            const, col_of, columns = self.cost_columns
            return Consequences(self.base, None,
                                None if self.case_q is None else self.case_q[rows],
                                self.sign, self.knots, n,
                                cost_columns=(const, col_of, [c[rows] for c in columns]))
        return Consequences(
            self.base,
            None if self.case_costs is None else self.case_costs[rows],
            None if self.case_q is None else self.case_q[rows],
            self.sign,
            self.knots,
            n,
        )

    def costs(self, d_idx):
        """Investment cost ``Cost(i, d_idx[i])`` per case (0 without costs).

        Parameters
        ----------
        d_idx : array-like of int of shape (n_samples,)
            Index of each case's decision; -1 for a case without a decision.

        Returns
        -------
        ndarray of shape (n_samples,)
            The investment cost of each case's decision (0 when the matrix has no
            costs, NaN where ``d_idx`` is -1).
        """
        d_idx = np.asarray(d_idx, dtype=np.intp)
        if self.case_costs is None:
            out = np.zeros(d_idx.shape, dtype=_FLOAT)
        else:
            safe = np.where(d_idx < 0, 0, d_idx)
            out = np.take_along_axis(self.case_costs, safe[:, None], axis=1)[:, 0].copy()
        out[d_idx < 0] = np.nan
        return out

    def q_actual(self, t):
        """Consequence of every decision at each case's actual target.

        Parameters
        ----------
        t : ndarray of shape (n_samples,)
            Integer level codes (categorical) or actual values ``Y(i)`` (interval).

        Returns
        -------
        ndarray of shape (n_samples, n_decisions)
            ``Q(i, t_i, d)`` in profit orientation, the case costs subtracted.
        """
        if self.is_interval:
            y = np.asarray(t, dtype=_FLOAT)
            if self.case_q is not None:
                return _interpolate_cases(self.knots, self.case_q, y)
            seg, w = _segments(self.knots, y)
            w = w[:, None]
            # np.take of the matrix's rows: the same numbers as base[seg], several times
            # faster on many cases
            out = (np.take(self.base, seg, axis=0) * (1.0 - w)
                   + np.take(self.base, seg + 1, axis=0) * w)
        else:
            t = np.asarray(t, dtype=np.intp)
            if self.case_q is not None:
                return self.case_q[np.arange(t.size), t]
            out = np.take(self.base, t, axis=0)
        if self.case_costs is not None:
            if out.dtype == np.result_type(out, self.case_costs):
                np.subtract(out, self.case_costs, out=out)  # out is a new array
            else:
                out = out - self.case_costs
        return out

    def stake(self):
        """What the choice of decision can be worth to each case, over every target level.

        ``stake(i) = sum_t (max_d Q(i, t, d) - min_d Q(i, t, d))``: the spread of the
        case's consequences over the decisions, summed over the target levels. A
        ``[C_FP, C_FN, C_TP, C_TN]`` cost row has the stake ``(C_FP - C_TN) + (C_FN -
        C_TP)`` (for the usual signs). Categorical matrices only.

        Returns
        -------
        ndarray of shape (n_samples,)
            The stake of each case (0 where every decision has the same consequences).

        Examples
        --------
        >>> import numpy as np
        >>> from dtdecide.decision import DecisionMatrix
        >>> m = DecisionMatrix.from_cost_matrix(levels=("good", "bad"))
        >>> rows = np.array([[10.0, 50.0, 0.0, 0.0], [1.0, 3.0, 0.0, 0.0]])
        >>> m.resolve(rows, n_samples=2).stake().tolist()
        [60.0, 4.0]
        """
        if self.is_interval:
            raise ValueError("stake is defined for categorical (level) matrices only")
        if self.case_q is not None:
            spread = self.case_q.max(axis=2) - self.case_q.min(axis=2)
            return spread.sum(axis=1)
        out = np.zeros(self.n_samples, dtype=_FLOAT)
        for row in self.base:  # one target level at a time: (n, D) at most in memory
            q = row[None, :] if self.case_costs is None else row[None, :] - self.case_costs
            out += q.max(axis=1) - q.min(axis=1)
        return out

    def expected(self, post):
        """Expected consequence ``A(i, d)`` of every decision.

        Parameters
        ----------
        post : ndarray of shape (n_samples, n_levels) or (n_samples,)
            Posteriors (categorical) or predictions ``P(i)`` (interval).

        Returns
        -------
        ndarray of shape (n_samples, n_decisions)
            ``A(i, d) = sum_t post(i, t) Q(i, t, d)`` in profit orientation (an interval
            matrix: the consequences interpolated at the prediction).
        """
        if self.is_interval:
            return self.q_actual(np.asarray(post, dtype=_FLOAT).reshape(-1))
        post = np.asarray(post, dtype=_FLOAT)
        if self.case_q is not None:
            return np.einsum("itd,it->id", self.case_q, post)
        # np.dot is much faster than the @ operator for these skinny shapes
        out = np.dot(post, self.base)
        if self.case_costs is not None:
            row_sums = np.dot(post, np.ones(post.shape[1]))
            out -= self.case_costs * row_sums[:, None]
        return out

    def __repr__(self):
        kind = "interval" if self.is_interval else "categorical"
        extra = (
            "case-specific" if self.case_q is not None
            else "with costs" if self.case_costs is not None
            else "no costs"
        )
        return f"Consequences(n_samples={self.n_samples}, {kind}, {extra}, sign={self.sign})"
