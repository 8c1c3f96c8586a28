"""The decision specification: a decision matrix with its costs and priors.

:class:`DecisionMatrix` is built and validated here (the constructors and ``replace``);
binding it to cases and their costs (``resolve``) is in :mod:`._matrix_cases`, and its
table and file forms (frames, CSV, JSON) in :mod:`._matrix_io`, both mixins of the class.
"""

import numbers
from collections.abc import Mapping

import numpy as np
import pandas as pd

from ._kernels import _check_knots, _check_priors
from ._matrix_cases import _as_float_array, _MatrixCasesMixin
from ._matrix_io import _MatrixFilesMixin
from ._validation import refuse_unicode_forms, shown_labels, text_keys, text_labels

__all__ = ["DecisionMatrix", "check_matrix_or_none"]

_KINDS = ("profit", "loss", "revenue")
# a binary example-dependent cost matrix has these columns, in this order
_COST_MATRIX_COLUMNS = ("C_FP", "C_FN", "C_TP", "C_TN")


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
        raise ValueError(f"{name} must be unique; duplicated: {shown_labels(dup)}")
    refuse_unicode_forms([v for v in index if isinstance(v, str)], name, name)
    arr = index.to_numpy()
    if arr.dtype.kind in "US":
        arr = arr.astype(object)
    return arr


def _by_label(frame, labels, axis, name, as_text=False):
    """``frame`` with its ``axis`` ("index" or "columns") in the order of ``labels``.

    Labels that name the axis's entries (compared as text for decision names, as values
    otherwise: the knot 10 is the row 10.0) reorder it; a default ``RangeIndex`` carries
    no labels and is taken in its order (by position); other labels are refused naming
    ``name``.
    """
    axis_labels = getattr(frame, axis)
    if isinstance(axis_labels, pd.RangeIndex):
        return frame
    have = pd.Index([str(v) for v in axis_labels]) if as_text else axis_labels
    if have.is_unique and len(have) == len(labels):
        try:
            order = have.get_indexer(labels)
        except (TypeError, ValueError):  # labels of types that do not compare
            order = np.array([-1])
        if (order >= 0).all():
            return frame.iloc[order] if axis == "index" else frame.iloc[:, order]
    raise ValueError(
        f"values is a DataFrame whose {axis} {list(axis_labels)!r} are not the {name} "
        f"{labels!r}; name them alike (they are matched by name), or give the values as an "
        "array"
    )


def _check_kind(kind, case_specific):
    """Check the matrix's ``kind``: one of ``_KINDS``, and not ``"revenue"`` for a
    case-specific matrix (whose consequences are profits or losses per case)."""
    if not isinstance(kind, str) or kind not in _KINDS:
        raise ValueError(f"kind must be one of {_KINDS}; got {kind!r}")
    if case_specific and kind == "revenue":
        raise ValueError("kind must be 'profit' or 'loss' for case-specific matrices; "
                         "got 'revenue'")


def _values_array(values, levels, knots, decisions, case_specific):
    """The matrix's values as a 2-D float array, from a dict, a DataFrame or an array.

    A dict's keys are the decisions (``decisions``, when given, must name the same keys)
    and its values the columns, one value per level. A DataFrame's rows and columns named
    like the given levels (or knots) and decisions are matched by name, never by
    position; its columns default the decisions and its index the levels. A
    case-specific matrix without values gets an empty array (filled with zeros once its
    shape is known). The array must be 2-D and finite. Returns ``(arr, levels, knots,
    decisions)`` with the defaults that the values supplied.
    """
    if isinstance(values, Mapping):
        arr, decisions = _values_from_dict(values, decisions)
    elif isinstance(values, pd.DataFrame):
        # rows and columns named like the given levels / decisions are matched by
        # name, never by position
        rows = levels if levels is not None else knots
        if rows is not None and np.iterable(rows) and not isinstance(rows, str):
            values = _by_label(values, list(rows), "index", "levels" if levels is
                               not None else "knots")
        if decisions is not None and not isinstance(decisions, str):
            values = _by_label(values, [str(d) for d in decisions], "columns",
                               "decisions", as_text=True)
        if decisions is None:
            decisions = text_labels(values.columns, "the columns of values").tolist()
        if levels is None and knots is None:
            levels = list(values.index)
        arr = _as_float_array(values, "values")  # pd.NA of nullable columns: NaN
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
    return arr, levels, knots, decisions


def _values_from_dict(values, decisions):
    """The columns of a dict of values ``{decision: one value per level}``, in the order
    of ``decisions`` (default: the keys), which must name the same keys (as text). Every
    column must be 1-D and of the same length. Returns ``(arr, decisions)``."""
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
    return (np.column_stack(cols) if cols else np.empty((0, 0))), decisions


def _rows(levels, knots):
    """The matrix's rows: exactly one of ``levels`` (the labels of a categorical target)
    and ``knots`` (the values of an interval target), checked. Returns ``(knots,
    levels_arr, n_levels)``; the one not given is None."""
    if (levels is None) == (knots is None):
        raise ValueError("exactly one of levels and knots must be given")
    if knots is not None:
        knots = _check_knots(knots)
        return knots, None, knots.size
    levels_arr = _check_labels(levels, "levels")
    return None, levels_arr, levels_arr.size


def _decision_names(decisions, n_columns):
    """The decisions' names as a tuple of distinct, non-empty str: given (not a string),
    or ``"d1", "d2", ...`` for the ``n_columns`` columns of the values."""
    if decisions is None:
        decisions = [f"d{j + 1}" for j in range(n_columns)]
    if isinstance(decisions, str):
        raise TypeError(f"decisions must be a sequence of names; got the string {decisions!r}")
    decisions = tuple(text_labels(decisions, "decisions"))
    if len(decisions) == 0:
        raise ValueError("decisions must not be empty")
    if len(set(decisions)) != len(decisions):
        dup = sorted({d for d in decisions if decisions.count(d) > 1})
        raise ValueError(f"decisions must be unique; duplicated: {shown_labels(dup)}")
    return decisions


def _cost_map(costs, kind, decisions):
    """The costs of a revenue matrix as ``{decision: float or cost column name}``.

    ``costs`` is None, a dict ``{decision: cost}`` or a sequence aligned with the
    decisions; a cost is a finite number, the non-empty name of a column of case costs,
    or None (no cost). Costs are refused for a kind other than ``"revenue"``. The map
    keeps the decisions' order and leaves out decisions without a cost.
    """
    cost_map = {}
    if costs is None:
        return cost_map
    if kind != "revenue":
        raise ValueError(
            f"costs are only allowed with kind='revenue'; got kind={kind!r} "
            "(fold constant costs into a profit matrix instead)"
        )
    if isinstance(costs, Mapping):
        items = list(zip(costs, text_keys(costs, "costs").values()))
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
    return {d: cost_map[d] for d in decisions if d in cost_map}


def _priors(priors, knots, levels_arr, n_levels):
    """The priors of the levels as checked probabilities, in the levels' order.

    Only a matrix of levels takes priors. A dict or Series is matched to the levels by
    label (every level once, no unknown label); a sequence is read in the levels' order.
    """
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
    return _check_priors(priors, n_levels, "priors")


def _bound_case_values(case_values, n_levels, n_decisions):
    """Bound case-specific values as a read-only float array of shape (n_samples,
    n_levels, n_decisions); another shape is refused."""
    cv = _as_float_array(case_values, "values")
    if cv.ndim != 3 or cv.shape[1:] != (n_levels, n_decisions):
        raise ValueError(
            f"values must have shape (n_samples, {n_levels}, {n_decisions}); "
            f"got {cv.shape}"
        )
    cv.setflags(write=False)
    return cv


class DecisionMatrix(_MatrixCasesMixin, _MatrixFilesMixin):
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
        """Check the arguments of the constructors and set the matrix's attributes.

        The stages run in this order: the kind, the values (dict, DataFrame or array),
        the rows (levels or knots), the decisions' names, the shape, the costs, the
        priors and bound case-specific values; then the arrays are made read-only and
        the matrix is frozen.
        """
        object.__setattr__(self, "_frozen", False)
        _check_kind(kind, case_specific)
        arr, levels, knots, decisions = _values_array(values, levels, knots, decisions,
                                                      case_specific)
        knots, levels_arr, n_levels = _rows(levels, knots)
        decisions = _decision_names(decisions, arr.shape[1])
        if case_specific:
            arr = np.zeros((n_levels, len(decisions)))
        if arr.shape != (n_levels, len(decisions)):
            raise ValueError(
                f"values must have shape (n_levels, n_decisions) = ({n_levels}, "
                f"{len(decisions)}); got {arr.shape}"
            )
        cost_map = _cost_map(costs, kind, decisions)
        if priors is not None:
            priors = _priors(priors, knots, levels_arr, n_levels)
        if case_values is not None:
            case_values = _bound_case_values(case_values, n_levels, len(decisions))

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


def check_matrix_or_none(matrix, name="decision_matrix"):
    """``matrix`` when it is a :class:`DecisionMatrix` or None; a TypeError naming ``name``
    otherwise (the one check of an estimator's ``decision_matrix`` parameter)."""
    if matrix is not None and not isinstance(matrix, DecisionMatrix):
        raise TypeError(
            f"{name} must be a DecisionMatrix or None; got {type(matrix).__name__}"
        )
    return matrix
