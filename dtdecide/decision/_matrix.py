"""The decision specification: a decision matrix with its costs and priors."""

import csv
import io
import json
import numbers
import os
import re
from collections.abc import Mapping

import numpy as np
import pandas as pd

from ._consequences import Consequences
from ._kernels import _FLOAT, _check_knots, _check_priors

__all__ = ["DecisionMatrix"]

_KINDS = ("profit", "loss", "revenue")
# a binary example-dependent cost matrix has these columns, in this order
_COST_MATRIX_COLUMNS = ("C_FP", "C_FN", "C_TP", "C_TN")


def _as_float_array(values, name):
    try:
        arr = np.asarray(values, dtype=_FLOAT)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must contain only numbers; got {values!r}") from None
    return arr


def _check_labels(labels, name):
    if isinstance(labels, (str, bytes)) or not np.iterable(labels):
        # a string is a sequence of characters: "ab" must not become two levels
        raise TypeError(
            f"{name} must be a list-like of labels; got {type(labels).__name__} {labels!r}"
            + (" (wrap a single label in a list)" if isinstance(labels, (str, bytes)) else "")
        )
    index = pd.Index(list(labels))
    if len(index) == 0:
        raise ValueError(f"{name} must not be empty")
    if index.hasnans:
        raise ValueError(f"{name} must not contain missing values; got {list(index)!r}")
    if index.has_duplicates:
        dup = list(index[index.duplicated()].unique())
        raise ValueError(f"{name} must be unique; duplicated: {dup!r}")
    arr = index.to_numpy()
    if arr.dtype.kind in "US":
        arr = arr.astype(object)
    return arr


def _python_scalar(x):
    return x.item() if isinstance(x, np.generic) else x


class DecisionMatrix:
    """A decision matrix: consequences of each decision for each target level.

    Rows are target levels (categorical target) or knots (interval target), columns
    are decisions. The matrix is a value object: it is validated on construction and
    its attributes are read-only afterwards.

    Parameters
    ----------
    values : array-like of shape (n_levels, n_decisions), DataFrame or dict
        The matrix, in the user's orientation (profit, loss or revenue). A dict maps
        each decision to its per-level values. A DataFrame supplies the decisions from
        its columns and, when neither ``levels`` nor ``knots`` is given, the levels
        from its index.
    levels : array-like of shape (n_levels,), default=None
        Labels of the target levels (categorical target). Levels may be absent from
        the data.
    knots : array-like of shape (n_levels,), default=None
        Knots of an interval target: sorted ascending, distinct, at least two.
        Exactly one of ``levels`` and ``knots`` must be given (or taken from a
        DataFrame index).
    decisions : sequence of str, default=None
        Decision names in the user's order (this order breaks ties). Defaults to the
        dict keys, the DataFrame columns, or ``"d1", "d2", ...``.
    kind : {"profit", "loss", "revenue"}, default="profit"
        How to read the values. Loss values are negated internally.
    costs : dict or sequence, default=None
        Per decision, a constant cost or the name of a case-level cost variable (a
        column of the data given at scoring). A sequence is aligned with the
        decisions (None for no cost). Only allowed with ``kind="revenue"``; decisions
        without a cost cost 0.
    priors : array-like of shape (n_levels,) or dict, default=None
        Operational prior probabilities of the levels; non-negative, at least one
        positive, rescaled to sum to one. Categorical targets only.

    Attributes
    ----------
    kind : str
    levels : ndarray or None
    knots : ndarray or None
    is_interval : bool
    decisions : tuple of str
    n_levels, n_decisions : int
    values : ndarray of shape (n_levels, n_decisions)
        As given (user's sign).
    profit_values : ndarray of shape (n_levels, n_decisions)
        Profit orientation (loss negated).
    costs : dict
        Decision -> float constant or str cost-variable name; decisions without a
        cost are absent.
    cost_variables : tuple of str
    priors : ndarray of shape (n_levels,) or None
    is_case_specific : bool
    case_values : ndarray of shape (n_samples, n_levels, n_decisions) or None
        Bound case-specific consequences (user's sign), see :meth:`case_specific`.

    See Also
    --------
    decide : Decide for every case given posteriors and a matrix.

    Examples
    --------
    >>> from dtdecide import DecisionMatrix
    >>> m = DecisionMatrix([[10, -1], [0, 0]], levels=["buyer", "other"],
    ...                    decisions=["mail", "skip"], kind="profit")
    >>> m.n_levels, m.n_decisions, m.decisions
    (2, 2, ('mail', 'skip'))
    >>> r = DecisionMatrix({"mail": [12, 0], "skip": [0, 0]}, levels=["buyer", "other"],
    ...                    kind="revenue", costs={"mail": "mail_cost"})
    >>> r.cost_variables
    ('mail_cost',)
    """

    def __init__(self, values, *, levels=None, knots=None, decisions=None,
                 kind="profit", costs=None, priors=None):
        self._setup(values, levels=levels, knots=knots, decisions=decisions, kind=kind,
                    costs=costs, priors=priors, case_specific=False, case_values=None)

    # ------------------------------------------------------------------ building
    def _setup(self, values, *, levels, knots, decisions, kind, costs, priors,
               case_specific, case_values):
        object.__setattr__(self, "_frozen", False)
        if not isinstance(kind, str) or kind not in _KINDS:
            raise ValueError(f"kind must be one of {_KINDS}; got {kind!r}")
        if case_specific and kind == "revenue":
            raise ValueError("kind must be 'profit' or 'loss' for case-specific matrices; "
                             "got 'revenue'")

        # --- values from dict / DataFrame / array
        if isinstance(values, Mapping):
            keys = list(values)
            if decisions is None:
                decisions = keys
            elif set(map(str, decisions)) != set(map(str, keys)) or len(decisions) != len(keys):
                raise ValueError(
                    f"decisions must name the keys of values; got decisions={list(decisions)!r} "
                    f"and keys {keys!r}"
                )
            by_name = {str(k): v for k, v in values.items()}
            cols = []
            for d in decisions:
                col = _as_float_array(by_name[str(d)], "values")
                if col.ndim != 1:
                    raise ValueError(
                        f"values[{d!r}] must be 1-D (one value per level); got shape {col.shape}"
                    )
                cols.append(col)
            if len({c.size for c in cols}) > 1:
                raise ValueError(
                    f"values must give the same number of levels for every decision; got "
                    f"{[c.size for c in cols]}"
                )
            arr = np.column_stack(cols) if cols else np.empty((0, 0))
        elif isinstance(values, pd.DataFrame):
            if decisions is None:
                decisions = [str(c) for c in values.columns]
            if levels is None and knots is None:
                levels = list(values.index)
            arr = _as_float_array(values.to_numpy(), "values")
        elif case_specific:
            arr = np.zeros((0, 0))
        else:
            arr = _as_float_array(values, "values")

        if arr.ndim != 2:
            raise ValueError(
                f"values must be 2-D (n_levels, n_decisions); got shape {arr.shape}"
            )
        if not np.all(np.isfinite(arr)):
            raise ValueError("values must be finite numbers (no NaN or infinity)")

        # --- rows
        if (levels is None) == (knots is None):
            raise ValueError("exactly one of levels and knots must be given")
        if knots is not None:
            knots = _check_knots(knots)
            n_levels = knots.size
            levels_arr = None
        else:
            levels_arr = _check_labels(levels, "levels")
            n_levels = levels_arr.size

        # --- decisions
        if decisions is None:
            decisions = [f"d{j + 1}" for j in range(arr.shape[1])]
        if isinstance(decisions, str):
            raise TypeError(f"decisions must be a sequence of names; got the string {decisions!r}")
        decisions = tuple(str(d) for d in decisions)
        if len(decisions) == 0:
            raise ValueError("decisions must not be empty")
        if len(set(decisions)) != len(decisions):
            dup = sorted({d for d in decisions if decisions.count(d) > 1})
            raise ValueError(f"decisions must be unique; duplicated: {dup!r}")

        if case_specific:
            arr = np.zeros((n_levels, len(decisions)))
        if arr.shape != (n_levels, len(decisions)):
            raise ValueError(
                f"values must have shape (n_levels, n_decisions) = ({n_levels}, "
                f"{len(decisions)}); got {arr.shape}"
            )

        # --- costs
        cost_map = {}
        if costs is not None:
            if kind != "revenue":
                raise ValueError(
                    f"costs are only allowed with kind='revenue'; got kind={kind!r} "
                    "(fold constant costs into a profit matrix instead)"
                )
            if isinstance(costs, Mapping):
                items = list(costs.items())
            elif isinstance(costs, (str, bytes)) or not hasattr(costs, "__len__"):
                raise TypeError(
                    f"costs must be a dict {{decision: cost}} or a sequence aligned with "
                    f"decisions; got {costs!r}"
                )
            else:
                if len(costs) != len(decisions):
                    raise ValueError(
                        f"costs given as a sequence must have one entry per decision "
                        f"({len(decisions)}); got {len(costs)}"
                    )
                items = list(zip(decisions, costs))
            for d, c in items:
                if str(d) not in decisions:
                    raise ValueError(
                        f"costs names a decision that is not in decisions: {d!r}; "
                        f"expected one of {list(decisions)!r}"
                    )
                if c is None:
                    continue
                if isinstance(c, str):
                    if not c:
                        raise ValueError(f"costs[{d!r}] must be a non-empty column name")
                    cost_map[str(d)] = c
                elif isinstance(c, numbers.Real) and not isinstance(c, bool):
                    if not np.isfinite(c):
                        raise ValueError(f"costs[{d!r}] must be finite; got {c!r}")
                    cost_map[str(d)] = float(c)
                else:
                    raise TypeError(
                        f"costs[{d!r}] must be a number or the name of a cost column; got {c!r}"
                    )
            # keep the user's decision order
            cost_map = {d: cost_map[d] for d in decisions if d in cost_map}

        # --- priors
        if priors is not None:
            if knots is not None:
                raise ValueError("priors are only allowed with levels (categorical target)")
            if isinstance(priors, (Mapping, pd.Series)):
                pmap = dict(priors.items())
                unknown = [k for k in pmap if k not in set(levels_arr.tolist())]
                if unknown:
                    raise ValueError(f"priors names unknown levels: {unknown!r}")
                missing = [lv for lv in levels_arr.tolist() if lv not in pmap]
                if missing:
                    raise ValueError(f"priors has no value for levels {missing!r}")
                priors = [pmap[lv] for lv in levels_arr.tolist()]
            priors = _check_priors(priors, n_levels, "priors")

        # --- bound case-specific values
        if case_values is not None:
            cv = _as_float_array(case_values, "values")
            if cv.ndim != 3 or cv.shape[1:] != (n_levels, len(decisions)):
                raise ValueError(
                    f"values must have shape (n_samples, {n_levels}, {len(decisions)}); "
                    f"got {cv.shape}"
                )
            case_values = cv
            case_values.setflags(write=False)

        arr = arr.copy()
        arr.setflags(write=False)
        profit = -arr if kind == "loss" else arr.copy()
        profit.setflags(write=False)
        for a in (levels_arr, knots, priors):
            if a is not None:
                a.setflags(write=False)

        self.kind = kind
        self.levels = levels_arr
        self.knots = knots
        self.decisions = decisions
        self.values = arr
        self.profit_values = profit
        self.costs = cost_map
        self.priors = priors
        self.is_case_specific = bool(case_specific)
        self.case_values = case_values
        object.__setattr__(self, "_frozen", True)

    def __setattr__(self, name, value):
        if getattr(self, "_frozen", False):
            raise AttributeError(
                f"DecisionMatrix is read-only; build a new one (see replace) instead of "
                f"setting {name!r}"
            )
        object.__setattr__(self, name, value)

    @classmethod
    def case_specific(cls, *, levels=None, knots=None, decisions, kind="profit",
                      values=None, priors=None):
        """Declare case-specific (non-additive) consequences ``Q[i, t, d]``.

        The consequences come per case as an array of shape
        (n_samples, n_levels, n_decisions) in the user's sign, passed where costs are
        passed (``costs=`` of :func:`decide`), or bound here with ``values=``.

        Parameters
        ----------
        levels, knots : array-like
            Exactly one: target levels or interval knots.
        decisions : sequence of str
            Decision names (tie-break order).
        kind : {"profit", "loss"}, default="profit"
        values : array-like of shape (n_samples, n_levels, n_decisions), default=None
            Consequences bound to the matrix (for instance the training cases).
        priors : array-like, default=None
            Optional priors (categorical).

        Returns
        -------
        DecisionMatrix

        Examples
        --------
        >>> import numpy as np
        >>> from dtdecide import DecisionMatrix
        >>> m = DecisionMatrix.case_specific(levels=[0, 1], decisions=["act", "wait"])
        >>> m.is_case_specific, m.n_decisions
        (True, 2)
        """
        self = cls.__new__(cls)
        self._setup(None, levels=levels, knots=knots, decisions=decisions, kind=kind,
                    costs=None, priors=priors, case_specific=True, case_values=values)
        return self

    @staticmethod
    def _cost_matrix_to_q(cost_mat, name="cost_mat"):
        """(n, 4) ``[C_FP, C_FN, C_TP, C_TN]`` -> loss array (n, 2, 2).

        Rows: levels (negative, positive); columns: ("predict 1", "predict 0").
        """
        if isinstance(cost_mat, pd.DataFrame):
            # read by name, never by position: a reordered frame must not swap costs
            missing = [c for c in _COST_MATRIX_COLUMNS if c not in cost_mat.columns]
            if missing:
                raise ValueError(
                    f"{name}: a DataFrame of costs is read by its column names "
                    f"{list(_COST_MATRIX_COLUMNS)}; missing {missing} (columns given: "
                    f"{[str(c) for c in cost_mat.columns]})"
                )
            cost_mat = cost_mat[list(_COST_MATRIX_COLUMNS)]
        cm = _as_float_array(cost_mat, name)
        if cm.ndim != 2 or cm.shape[1] != 4:
            raise ValueError(
                f"{name} must have shape (n_samples, 4) with columns {_COST_MATRIX_COLUMNS}; "
                f"got {cm.shape}"
            )
        fp, fn, tp, tn = cm.T
        q = np.empty((cm.shape[0], 2, 2))
        q[:, 0, 0] = fp  # actual negative, predict 1
        q[:, 0, 1] = tn  # actual negative, predict 0
        q[:, 1, 0] = tp  # actual positive, predict 1
        q[:, 1, 1] = fn  # actual positive, predict 0
        return q

    @classmethod
    def from_cost_matrix(cls, cost_mat=None, levels=(0, 1), *, priors=None):
        """A case-specific loss matrix for binary example-dependent cost rows.

        Every case has its own costs ``[C_FP, C_FN, C_TP, C_TN]`` (false positive,
        false negative, true positive, true negative); the decisions are
        ``("predict 1", "predict 0")``, where 1 is the positive level ``levels[1]``.

        Without ``cost_mat`` the matrix is *unbound*: every call that needs consequences
        takes the cases' own cost rows through ``costs=`` -- fit with the training rows,
        prune with the validation rows, decide with the new cases' rows::

            m = DecisionMatrix.from_cost_matrix(levels=("no", "yes"))
            tree = ProfitTreeClassifier(decision_matrix=m).fit(X, y, costs=cost_train)
            tree.decide(X_new, costs=cost_new)

        Cost rows are an (n, 4) array in the order above, or a DataFrame read by its
        column names ``C_FP, C_FN, C_TP, C_TN`` (other columns are ignored; a missing
        name is an error naming it; the column order does not matter).

        Parameters
        ----------
        cost_mat : array-like of shape (n_samples, 4) or DataFrame, default=None
            Cost rows to bind to the matrix (used when no ``costs=`` is passed). A bound
            matrix still accepts other cases' rows through ``costs=``.
        levels : pair, default=(0, 1)
            The negative and the positive level, in that order.
        priors : array-like of shape (2,), default=None
            Optional priors of the two levels.

        Returns
        -------
        DecisionMatrix
            Loss kind, decisions ``("predict 1", "predict 0")``.

        Examples
        --------
        >>> import pandas as pd
        >>> from dtdecide import DecisionMatrix, decide
        >>> m = DecisionMatrix.from_cost_matrix(levels=("good", "bad"))
        >>> m.decisions, m.is_case_specific
        (('predict 1', 'predict 0'), True)
        >>> rows = pd.DataFrame({"C_FN": [10.0, 2.0], "C_FP": [1.0, 1.0],
        ...                      "C_TP": [1.0, 1.0], "C_TN": [0.0, 0.0]})
        >>> res = decide([[0.8, 0.2], [0.8, 0.2]], m, costs=rows)
        >>> res.cases["D_target"].tolist()   # 0.2 * 10 > 1, but 0.2 * 2 < 1
        ['predict 1', 'predict 0']
        >>> bound = DecisionMatrix.from_cost_matrix([[1.0, 10.0, 1.0, 0.0]])
        >>> bound.case_values[0].tolist()
        [[1.0, 0.0], [1.0, 10.0]]
        """
        levels = _check_labels(levels, "levels")
        if len(levels) != 2:
            raise ValueError(f"levels must hold two levels (negative, positive); got {levels!r}")
        q = None if cost_mat is None else cls._cost_matrix_to_q(cost_mat)
        return cls.case_specific(levels=levels, decisions=("predict 1", "predict 0"),
                                 kind="loss", values=q, priors=priors)

    def replace(self, **changes):
        """A copy with some constructor arguments changed (e.g. ``priors=``).

        Parameters
        ----------
        **changes
            Constructor arguments to change (``levels``, ``knots``, ``decisions``, ``kind``,
            ``priors``, ``values`` and, for additive matrices, ``costs``); the others are
            taken from this matrix.

        Returns
        -------
        DecisionMatrix
            A new, validated matrix; this one is unchanged.

        Examples
        --------
        >>> from dtdecide import DecisionMatrix
        >>> m = DecisionMatrix([[1, 0], [0, 1]], levels=["a", "b"])
        >>> m.replace(priors=[1, 3]).priors.tolist()
        [0.25, 0.75]
        """
        args = {
            "levels": self.levels, "knots": self.knots, "decisions": self.decisions,
            "kind": self.kind, "priors": self.priors,
        }
        if self.is_case_specific:
            args["values"] = self.case_values
            args.update(changes)
            return type(self).case_specific(**args)
        args["values"] = self.values
        args["costs"] = dict(self.costs) or None
        args.update(changes)
        if args.get("levels") is not None and args.get("knots") is not None:
            if "knots" in changes:
                args["levels"] = None
            else:
                args["knots"] = None
        return type(self)(args.pop("values"), **args)

    # ---------------------------------------------------------------- properties
    @property
    def is_interval(self):
        """True when the rows are knots of an interval target."""
        return self.knots is not None

    @property
    def n_levels(self):
        """Number of rows (levels or knots)."""
        return self.values.shape[0]

    @property
    def n_decisions(self):
        """Number of decisions."""
        return len(self.decisions)

    @property
    def cost_variables(self):
        """Names of the case-level cost columns, in decision order, without repeats."""
        out = []
        for c in self.costs.values():
            if isinstance(c, str) and c not in out:
                out.append(c)
        return tuple(out)

    @property
    def sign(self):
        """+1 for profit and revenue, -1 for loss (user sign = sign * profit)."""
        return -1 if self.kind == "loss" else 1

    @property
    def rows(self):
        """Levels or knots, whichever describes the rows."""
        return self.knots if self.is_interval else self.levels

    # ------------------------------------------------------------------ resolve
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

        if isinstance(costs, np.ndarray) and costs.ndim >= 2 and costs.dtype != object:
            raise TypeError(
                "costs must be a DataFrame or dict of cost columns for a matrix that is not "
                "case-specific; got an array (use DecisionMatrix.case_specific for "
                "per-case consequence arrays)"
            )
        self._check_costs_allowed(costs)
        if not self.costs:
            return Consequences(self.profit_values, None, None, self.sign, self.knots, n)

        columns = self._cost_columns(costs, n, index)

        if not columns:  # constants only: a broadcast view, no memory per case
            row = np.array([self.costs.get(d, 0.0) for d in self.decisions], dtype=_FLOAT)
            case_costs = np.broadcast_to(row, (n, D))
        else:
            case_costs = np.zeros((n, D), dtype=_FLOAT)
            for j, d in enumerate(self.decisions):
                c = self.costs.get(d)
                if c is None:
                    continue
                case_costs[:, j] = columns[c] if isinstance(c, str) else c
        return Consequences(self.profit_values, case_costs, None, self.sign, self.knots, n)

    def _check_costs_allowed(self, costs):
        """Refuse case costs given to a profit or loss matrix (never silently dropped)."""
        if self.kind != "revenue" and not self.is_case_specific and not _is_empty_costs(costs):
            raise ValueError(
                f"costs must be None for a {self.kind} matrix: case costs are only "
                "allowed with kind='revenue' (build the matrix with kind='revenue' and "
                f"costs={{decision: column}}); got {type(costs).__name__}"
            )

    def _cost_columns(self, costs, n, index=None):
        """Validated cost-variable columns as float arrays of length ``n``."""
        columns = {}
        for var in self.cost_variables:
            if costs is None:
                raise ValueError(
                    f"costs is missing the cost column {var!r} used by the decision matrix "
                    f"(cost variables: {list(self.cost_variables)!r}); got costs=None"
                )
            try:
                has = var in costs
            except TypeError:
                raise TypeError(
                    f"costs must be a DataFrame or a dict of arrays; got {type(costs).__name__}"
                ) from None
            if not has:
                raise ValueError(
                    f"costs is missing the cost column {var!r} used by the decision matrix"
                )
            col = costs[var]
            if isinstance(col, (pd.Series, pd.Index)):
                col = col.to_numpy()
            col = np.asarray(col).reshape(-1)
            if col.dtype.kind in "fiub":
                col = col.astype(_FLOAT, copy=False)
            else:
                try:
                    col = pd.to_numeric(pd.Series(col), errors="raise")
                except (TypeError, ValueError):
                    raise TypeError(f"costs column {var!r} must be numeric") from None
                col = col.to_numpy(dtype=_FLOAT, na_value=np.nan)
            if col.size != n:
                where = "" if index is None else " (cases indexed by the posteriors)"
                raise ValueError(
                    f"costs column {var!r} must have one value per case ({n}){where}; "
                    f"got {col.size}"
                )
            if np.isinf(col).any():
                raise ValueError(f"costs column {var!r} must not contain infinite values")
            columns[var] = col
        return columns

    # ----------------------------------------------------------- frames and files
    def to_frame(self, *, prior_column="prior", cost_row="cost"):
        """The matrix as a DataFrame (a "decision data set").

        Index: levels (named ``"level"``) or knots (named ``"knot"``); columns: the
        decisions, plus ``prior_column`` when priors are set and a row ``cost_row``
        holding each decision's cost when costs are set.

        Parameters
        ----------
        prior_column : str, default="prior"
            Name of the column holding the priors (only written when priors are set).
        cost_row : str, default="cost"
            Label of the extra row holding the costs (only written when costs are set).

        Returns
        -------
        pandas.DataFrame
            The values in the user's sign, one row per level or knot.

        Examples
        --------
        >>> from dtdecide import DecisionMatrix
        >>> df = DecisionMatrix([[1, 0], [0, 1]], levels=["a", "b"],
        ...                     decisions=["x", "y"]).to_frame()
        >>> df.index.name, df.columns.tolist(), df.loc["a"].tolist()
        ('level', ['x', 'y'], [1.0, 0.0])
        """
        if self.is_case_specific:
            raise ValueError("a case-specific matrix has no single table; use to_json")
        if prior_column in self.decisions and self.priors is not None:
            raise ValueError(f"prior_column {prior_column!r} collides with a decision name")
        rows = self.knots if self.is_interval else self.levels
        df = pd.DataFrame(np.array(self.values), index=pd.Index(rows, name="knot" if
                          self.is_interval else "level"), columns=list(self.decisions))
        if self.priors is not None:
            df[prior_column] = self.priors
        if self.costs:
            if cost_row in set(pd.Index(rows).astype(str)):
                raise ValueError(f"cost_row {cost_row!r} collides with a level name")
            df = df.astype(object)
            cost = pd.DataFrame([[self.costs.get(d) for d in self.decisions]
                                 + ([None] if self.priors is not None else [])],
                                index=[cost_row], columns=df.columns, dtype=object)
            df = pd.concat([df, cost])
            df.index.name = "knot" if self.is_interval else "level"
        return df

    @classmethod
    def from_frame(cls, df, *, kind="profit", prior_column=None, cost_row=None,
                   interval=False):
        """Build a matrix from a decision data set.

        Parameters
        ----------
        df : DataFrame
            Index: target levels (or knots with ``interval=True``); columns: decisions.
        kind : {"profit", "loss", "revenue"}, default="profit"
        prior_column : str, default=None
            A column of ``df`` holding the priors (not a decision).
        cost_row : str, default=None
            An index label of ``df`` whose row holds each decision's cost (a number or
            a cost-column name; empty for no cost). Needs ``kind="revenue"``.
        interval : bool, default=False
            Read the index as knots of an interval target.

        Returns
        -------
        DecisionMatrix

        Examples
        --------
        >>> import pandas as pd
        >>> from dtdecide import DecisionMatrix
        >>> df = pd.DataFrame({"mail": [10, 0], "skip": [0, 0], "prior": [0.1, 0.9]},
        ...                   index=["buyer", "other"])
        >>> m = DecisionMatrix.from_frame(df, prior_column="prior")
        >>> m.decisions, m.priors.round(6).tolist()
        (('mail', 'skip'), [0.1, 0.9])
        """
        if not isinstance(df, pd.DataFrame):
            raise TypeError(f"df must be a pandas DataFrame; got {type(df).__name__}")
        names = [str(c) for c in df.columns]
        dup = sorted({c for c in names if names.count(c) > 1})
        if dup:
            raise ValueError(f"df names the decision column(s) {dup!r} more than once")
        priors = None
        costs = None
        if cost_row is not None:
            if cost_row not in df.index:
                raise ValueError(f"cost_row {cost_row!r} is not an index label of df")
            cost_values = df.loc[cost_row]
            df = df.drop(index=cost_row)
            costs = {}
            for d, c in cost_values.items():
                if d == prior_column or c is None or (isinstance(c, float) and np.isnan(c)):
                    continue
                if isinstance(c, str):
                    try:
                        c = float(c)
                    except ValueError:
                        pass
                costs[str(d)] = c
        if prior_column is not None:
            if prior_column not in df.columns:
                raise ValueError(f"prior_column {prior_column!r} is not a column of df")
            priors = _numeric_frame(df[[prior_column]]).iloc[:, 0].to_numpy()
            df = df.drop(columns=prior_column)
        values = _numeric_frame(df)
        rows = _infer_index(df.index)
        if interval:
            return cls(values.to_numpy(), knots=rows, decisions=[str(c) for c in df.columns],
                       kind=kind, costs=costs or None, priors=priors)
        return cls(values.to_numpy(), levels=rows, decisions=[str(c) for c in df.columns],
                   kind=kind, costs=costs or None, priors=priors)

    def to_csv(self, path_or_buf=None, **kwargs):
        """Write :meth:`to_frame` as CSV (``kind`` is not stored; give it to read_csv).

        Parameters
        ----------
        path_or_buf : str, path or file-like, default=None
            Where to write; None returns the CSV text.
        **kwargs
            Passed to :meth:`pandas.DataFrame.to_csv`.

        Returns
        -------
        str or None
            The CSV text when ``path_or_buf`` is None, otherwise None.

        Examples
        --------
        >>> from dtdecide import DecisionMatrix
        >>> print(DecisionMatrix([[1, 0], [0, 1]], levels=["a", "b"]).to_csv(), end="")
        level,d1,d2
        a,1.0,0.0
        b,0.0,1.0
        """
        return self.to_frame().to_csv(path_or_buf, **kwargs)

    @classmethod
    def read_csv(cls, path_or_buf, *, kind=None, prior_column=None, cost_row=None,
                 interval=None):
        """Read a matrix written by :meth:`to_csv` (or any decision data set in CSV).

        The first column is the index (levels or knots); a first-column header of
        ``"knot"`` means an interval target unless ``interval`` says otherwise.
        Numeric-looking level labels are read as numbers. With the defaults written by
        :meth:`to_csv`, a ``"prior"`` column and a ``"cost"`` row are recognised.

        The file is read strictly: every row must have as many fields as the header,
        decision names must be unique, and every value must be a number; errors name
        the line, the row and the column. The separator is a comma, or a semicolon
        (then decimals may be written with a comma, ``12,5``) or a tab when the header
        holds no comma.

        Parameters
        ----------
        path_or_buf : str, path or file-like
            The CSV source.
        kind : {"profit", "loss", "revenue"}, default=None
            Kind of the values (CSV files do not store it). None reads a file with a
            cost row as revenue and any other file as profit; a cost row with
            ``kind="profit"`` or ``"loss"`` is an error (costs need revenue).
        prior_column : str, default=None
            Column holding the priors; None recognises a column named ``"prior"``.
        cost_row : str, default=None
            Row holding the costs; None recognises a row labelled ``"cost"``.
        interval : bool, default=None
            Whether the rows are knots of an interval target; None decides from the first
            column's header (``"knot"``).

        Returns
        -------
        DecisionMatrix
            The validated matrix.

        Examples
        --------
        >>> import io
        >>> from dtdecide import DecisionMatrix
        >>> m = DecisionMatrix([[1, 0], [0, 1]], levels=[0, 1], priors=[0.2, 0.8])
        >>> DecisionMatrix.read_csv(io.StringIO(m.to_csv())) == m
        True
        """
        where = path_or_buf if isinstance(path_or_buf, (str, os.PathLike)) else None
        try:
            return cls._read_csv(path_or_buf, kind=kind, prior_column=prior_column,
                                 cost_row=cost_row, interval=interval)
        except (TypeError, ValueError) as exc:
            if where is None:
                raise
            raise type(exc)(f"{os.fspath(where)}: {exc}") from exc

    @classmethod
    def _read_csv(cls, path_or_buf, *, kind, prior_column, cost_row, interval):
        header, rows, lines, decimal_comma = _read_csv_rows(path_or_buf)
        index_name = header[0].strip()
        columns = [h.strip() for h in header[1:]]
        labels = [r[0].strip() for r in rows]
        if interval is None:
            interval = index_name == "knot"
        if prior_column is None and "prior" in columns:
            prior_column = "prior"
        if cost_row is None and "cost" in labels:
            cost_row = "cost"
        if prior_column is not None and prior_column not in columns:
            raise ValueError(f"prior_column {prior_column!r} is not a column of the file")
        if cost_row is not None and cost_row not in labels:
            raise ValueError(f"cost_row {cost_row!r} is not a row label of the file")
        if cost_row is not None:
            if kind is None:
                kind = "revenue"
            elif kind != "revenue":
                raise ValueError(
                    f"costs are only allowed with kind='revenue': the file has a cost row "
                    f"{cost_row!r}, but kind={kind!r}; pass kind='revenue' (the values are "
                    "then revenues) or remove the cost row"
                )
        elif kind is None:
            kind = "profit"
        cells = []
        for label, row, line in zip(labels, rows, lines):
            where = f"row {label!r} (line {line})"
            out = []
            for col, cell in zip(columns, row[1:]):
                cell = cell.strip()
                if label == cost_row and col != prior_column:
                    out.append(_cost_cell(cell, decimal_comma))
                elif label == cost_row and cell == "":
                    out.append(np.nan)
                else:
                    out.append(_number_cell(cell, f"{where}, column {col!r}", decimal_comma,
                                            allow_empty=col == prior_column))
            cells.append(out)
        df = pd.DataFrame(cells, index=pd.Index(labels, name=index_name), columns=columns,
                          dtype=object)
        if cost_row is None:
            df = df.astype(np.float64)
        return cls.from_frame(df, kind=kind, prior_column=prior_column, cost_row=cost_row,
                              interval=interval)

    def _to_dict(self):
        return {
            "kind": self.kind,
            "levels": None if self.levels is None else [_python_scalar(v) for v in self.levels],
            "knots": None if self.knots is None else self.knots.tolist(),
            "decisions": list(self.decisions),
            "values": None if self.is_case_specific else self.values.tolist(),
            "costs": dict(self.costs) or None,
            "priors": None if self.priors is None else self.priors.tolist(),
            "case_specific": self.is_case_specific,
            "case_values": None if self.case_values is None else self.case_values.tolist(),
        }

    def to_json(self, path=None):
        """Serialise to JSON (everything, including ``kind`` and bound values).

        Returns the JSON text when ``path`` is None, otherwise writes it to ``path``.

        Parameters
        ----------
        path : str or path, default=None
            File to write; None returns the text.

        Returns
        -------
        str or None
            The JSON text when ``path`` is None, otherwise None.

        Examples
        --------
        >>> from dtdecide import DecisionMatrix
        >>> m = DecisionMatrix([[1, 0], [0, 1]], levels=[0, 1], kind="loss")
        >>> DecisionMatrix.from_json(m.to_json()) == m
        True
        """
        text = json.dumps(self._to_dict())
        if path is None:
            return text
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        return None

    @classmethod
    def from_json(cls, source):
        """Read a matrix from JSON text or a file path written by :meth:`to_json`.

        Parameters
        ----------
        source : str or path
            JSON text (starting with ``{``) or the path of a file holding it.

        Returns
        -------
        DecisionMatrix
            The validated matrix.

        Examples
        --------
        >>> from dtdecide import DecisionMatrix
        >>> DecisionMatrix.from_json('{"kind": "profit", "levels": ["a", "b"], '
        ...                          '"values": [[1, 0], [0, 1]]}').decisions
        ('d1', 'd2')
        """
        if isinstance(source, (str, os.PathLike)) and not str(source).lstrip().startswith("{"):
            with open(source, encoding="utf-8") as fh:
                source = fh.read()
        try:
            data = json.loads(source)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"source must be JSON text or a path to a JSON file: {exc}") from None
        if not isinstance(data, dict):
            raise ValueError("source must hold a JSON object")
        known = {"kind", "levels", "knots", "decisions", "values", "costs", "priors",
                 "case_specific", "case_values"}
        unknown = set(data) - known
        if unknown:
            raise ValueError(f"source has unknown keys: {sorted(unknown)!r}")
        if data.get("case_specific"):
            return cls.case_specific(levels=data.get("levels"), knots=data.get("knots"),
                                     decisions=data["decisions"], kind=data.get("kind", "profit"),
                                     values=data.get("case_values"), priors=data.get("priors"))
        return cls(data.get("values"), levels=data.get("levels"), knots=data.get("knots"),
                   decisions=data.get("decisions"), kind=data.get("kind", "profit"),
                   costs=data.get("costs"), priors=data.get("priors"))

    # -------------------------------------------------------------------- dunder
    def __eq__(self, other):
        if not isinstance(other, DecisionMatrix):
            return NotImplemented

        def same(a, b):
            if a is None or b is None:
                return a is None and b is None
            return np.shape(a) == np.shape(b) and bool(np.all(np.asarray(a) == np.asarray(b)))

        return (
            self.kind == other.kind
            and self.decisions == other.decisions
            and self.is_case_specific == other.is_case_specific
            and same(self.levels, other.levels)
            and same(self.knots, other.knots)
            and same(self.values, other.values)
            and self.costs == other.costs
            and (same(self.priors, other.priors) if self.priors is None or other.priors is None
                 else np.allclose(self.priors, other.priors, rtol=1e-12, atol=0))
            and same(self.case_values, other.case_values)
        )

    __hash__ = None

    def __repr__(self):
        rows = ("knots=" + repr(self.knots.tolist())) if self.is_interval else (
            "levels=" + repr(self.levels.tolist()))
        parts = [rows, f"decisions={self.decisions!r}", f"kind={self.kind!r}"]
        if self.is_case_specific:
            bound = "unbound" if self.case_values is None else f"{self.case_values.shape[0]} cases"
            return "DecisionMatrix.case_specific(" + ", ".join(parts) + f", {bound})"
        parts.insert(0, f"values={self.values.tolist()!r}")
        if self.costs:
            parts.append(f"costs={self.costs!r}")
        if self.priors is not None:
            parts.append(f"priors={self.priors.tolist()!r}")
        return "DecisionMatrix(" + ", ".join(parts) + ")"


def _numeric_frame(df):
    """``df`` as floats; a cell that is not a number is named by its row and column."""
    try:
        return df.apply(pd.to_numeric, errors="raise")
    except (TypeError, ValueError):
        pass
    for col in df.columns:
        for label, cell in df[col].items():
            try:
                pd.to_numeric(pd.Series([cell]), errors="raise")
            except (TypeError, ValueError):
                raise TypeError(
                    f"df must contain only numbers outside cost_row: row {label!r}, column "
                    f"{col!r} holds {cell!r}"
                ) from None
    raise TypeError("df must contain only numbers outside cost_row")  # pragma: no cover


_DECIMAL_COMMA = re.compile(r"^[+-]?\d*,\d+(?:[eE][+-]?\d+)?$")


def _read_csv_rows(path_or_buf):
    """Header, data rows and their line numbers of a decision data set, read strictly.

    The separator is a comma, or a semicolon or tab when the header holds no comma (a
    semicolon file may write decimals with a comma). Every row must have as many fields
    as the header; blank lines are skipped.
    """
    if isinstance(path_or_buf, (str, os.PathLike)):
        with open(path_or_buf, encoding="utf-8-sig", newline="") as fh:
            text = fh.read()
    else:
        text = path_or_buf.read()
        if isinstance(text, bytes):
            text = text.decode("utf-8-sig")
        text = text.lstrip("\ufeff")
    first = next((ln for ln in text.splitlines() if ln.strip()), None)
    if first is None:
        raise ValueError("the file is empty; expected a header 'level,<decision>,...' "
                         "and one row per target level")
    sep = ","
    if "," not in first:
        sep = ";" if ";" in first else ("\t" if "\t" in first else ",")
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep)
    header, rows, lines = None, [], []
    for row in reader:
        if not any(cell.strip() for cell in row):
            continue
        if header is None:
            header = row
            if len(header) < 2:
                raise ValueError(
                    f"the header {first.strip()!r} has no decision column; expected the "
                    "first column of target levels (or knots) and one column per decision, "
                    "separated by commas (or semicolons)"
                )
            names = [h.strip() for h in header[1:]]
            empty = [k + 2 for k, h in enumerate(names) if not h]
            if empty:
                raise ValueError(
                    f"column {empty[0]} of the header has no name (a trailing separator?); "
                    f"header: {first.strip()!r}"
                )
            dup = sorted({h for h in names if names.count(h) > 1})
            if dup:
                raise ValueError(
                    f"the header names the decision column(s) {dup!r} more than once; "
                    "decision names must be unique"
                )
            continue
        if len(row) != len(header):
            raise ValueError(
                f"line {reader.line_num} has {len(row)} fields, but the header has "
                f"{len(header)} ({sep.join(h.strip() for h in header)!r}): "
                f"{sep.join(row)!r}"
            )
        rows.append(row)
        lines.append(reader.line_num)
    if not rows:
        raise ValueError("the file has a header but no rows; expected one row per level")
    return header, rows, lines, sep != ","


def _number_cell(cell, where, decimal_comma, allow_empty=False):
    if cell == "":
        if allow_empty:
            return np.nan
        raise ValueError(f"{where} is empty; every level needs a number for every decision")
    text = cell.replace(",", ".") if decimal_comma and _DECIMAL_COMMA.match(cell) else cell
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{where}: {cell!r} is not a number") from None
    if not np.isfinite(value):
        raise ValueError(f"{where}: {cell!r} is not a finite number")
    return value


def _cost_cell(cell, decimal_comma):
    """A cost-row cell: NaN (no cost), a number, or a cost-column name."""
    if cell == "":
        return np.nan
    text = cell.replace(",", ".") if decimal_comma and _DECIMAL_COMMA.match(cell) else cell
    try:
        return float(text)
    except ValueError:
        return cell


def _infer_index(index):
    """Labels from a frame index; numeric-looking strings become numbers."""
    labels = list(index)
    if labels and all(isinstance(v, str) for v in labels):
        num = pd.to_numeric(pd.Series(labels), errors="coerce")
        if not num.isna().any():
            if np.all(num == np.round(num)) and all("." not in v and "e" not in v.lower()
                                                      for v in labels):
                return num.astype(np.int64).tolist()
            return num.tolist()
    return labels


def _is_empty_costs(costs):
    """Whether ``costs`` holds no cost data at all (None, or no columns)."""
    if costs is None:
        return True
    if isinstance(costs, pd.DataFrame):
        return costs.shape[1] == 0
    if isinstance(costs, Mapping):
        return len(costs) == 0
    return False
