"""The fit-time checks of a profit tree: the decision matrix, the cost variables and
the option combinations (a mixin of the estimators).

Layer 5 (estimator) of :mod:`dtdecide.tree` (``_estimator``); see the architecture page.

``fit`` validates once, here; the layers below trust their callers.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from ..._dtypes import FLOAT_DTYPE as _FLOAT
from ...decision._matrix import check_matrix_or_none
from ...decision._validation import (
    check_same_index,
    reference_index,
)
from .._structure._encode import (
    FrameColumns,
    n_samples_of,
    pandas_frame_of,
)

__all__ = ["_FitChecksMixin"]


def _positions(frame_or_none, names):
    return [c for c in names if frame_or_none is not None and c in frame_or_none.columns]


class _FitChecksMixin:
    """Checks of the training data and options, done once at fit."""

    def _check_matrix(self):
        matrix = check_matrix_or_none(self.decision_matrix)
        if matrix is None:
            return None
        if self._is_classifier and matrix.is_interval:
            raise ValueError(
                "decision_matrix has knots (an interval target); ProfitTreeClassifier needs "
                "a matrix with levels. Use ProfitTreeRegressor for interval targets."
            )
        if not self._is_classifier and not matrix.is_interval:
            raise ValueError(
                "decision_matrix has levels (a categorical target); ProfitTreeRegressor "
                "needs a matrix with knots. Use ProfitTreeClassifier for categorical targets."
            )
        return matrix

    def _split_costs(self, X, costs, matrix):
        """Separate cost-variable columns of ``X`` from the inputs.

        Returns ``(X_inputs, costs_for_resolve, cost_columns, cost_features)``.
        """
        check_same_index(costs, reference_index(X), "costs")  # a dict's Series too
        if matrix is None:
            if costs is not None:
                raise ValueError("costs needs a decision_matrix; got decision_matrix=None")
            return X, None, {}, ()
        if matrix.is_case_specific:
            return X, costs, {}, ()
        names = matrix.cost_variables
        if not names:
            # costs given to a matrix that has no use for them: refused as decide refuses
            # them, never silently dropped
            matrix._check_costs_allowed(costs)
            if costs is not None and not isinstance(costs, (pd.DataFrame, Mapping)):
                raise TypeError(
                    "costs must be a DataFrame or dict of cost columns; got "
                    f"{type(costs).__name__}"
                )
            return X, None, {}, ()
        if costs is not None and not isinstance(costs, (pd.DataFrame, Mapping)):
            raise TypeError(
                "costs must be a DataFrame or a dict of arrays keyed by cost-variable name "
                f"({list(names)!r}); got {type(costs).__name__}"
            )
        provided = {} if costs is None else {v: costs[v] for v in names if v in costs}
        frame = X if isinstance(X, pd.DataFrame) else None
        from_x = [v for v in _positions(frame, names) if v not in provided]
        columns = dict(provided)
        for v in from_x:
            columns[v] = frame[v]
        missing = [v for v in names if v not in columns]
        if missing:
            raise ValueError(
                f"costs: the decision matrix uses the cost variables {list(names)!r}, but no "
                f"values were given for {missing!r}; pass them with costs= (a DataFrame or "
                "dict of arrays) or as columns of X"
            )
        n = n_samples_of(X)
        arrays = {}
        for v in names:
            col = columns[v]
            if isinstance(col, pd.Series) and col.dtype.kind not in "fiub":
                col = col.to_numpy(dtype=object, na_value=np.nan)  # nullable / object
            col = np.asarray(col)
            if col.ndim != 1 and not (col.ndim == 2 and col.shape[1] == 1):
                raise ValueError(
                    f"costs column {v!r} must have one value per case ({n}); got shape "
                    f"{col.shape}"
                )
            col = col.reshape(-1)
            try:
                if col.dtype.kind in "fiub":  # already numbers: no pandas round trip
                    # a float64 column as it is (no copy of the user's costs), read-only
                    arr = col.astype(_FLOAT, copy=False).view()
                    arr.flags.writeable = False
                else:
                    arr = pd.to_numeric(pd.Series(col), errors="raise").to_numpy(
                        dtype=_FLOAT, na_value=np.nan
                    )
            except (TypeError, ValueError):
                raise TypeError(f"costs column {v!r} must be numeric") from None
            if arr.shape[0] != n:
                raise ValueError(
                    f"costs column {v!r} must have one value per case ({n}); got {arr.shape[0]}"
                )
            arrays[v] = arr
        if from_x:
            X = X.drop(columns=from_x)
        return X, arrays, arrays, tuple(from_x)

    def _drop_cost_features(self, X):
        X = pandas_frame_of(X)  # a pyarrow or polars table: its cost columns by name too
        if self.cost_features_ and isinstance(X, pd.DataFrame):
            columns = X.columns
            present = [c for c in self.cost_features_ if c in columns]
            if not present:
                return X, None
            if not columns.is_unique:
                return X.drop(columns=present), X[present]
            # by position, without new frames (scoring one case pays for each): the
            # inputs as FrameColumns, the costs as a dict of the columns unless a
            # case-specific matrix reads them from a frame by name
            cost_at = [columns.get_loc(c) for c in present]
            skip = set(cost_at)
            keep = [j for j in range(len(columns)) if j not in skip]
            matrix = getattr(self, "decision_matrix_", None)
            if matrix is None or matrix.is_case_specific:
                costs = X.take(cost_at, axis=1)
            else:
                costs = {c: X.iloc[:, j] for c, j in zip(present, cost_at)}
            return FrameColumns(X, keep), costs
        return X, None

    def _check_fit_options(self, matrix):
        """Refuse the option combinations fit cannot honour (in memory and on Dask)."""
        if self.criterion == "profit":
            if matrix is None:
                raise ValueError(
                    'criterion="profit" grows on the money of the decisions and needs a '
                    "decision_matrix; got decision_matrix=None (use the default criterion "
                    "for a plain tree)"
                )
            if matrix.n_decisions < 2:
                raise ValueError(
                    'criterion="profit" needs a decision_matrix with at least 2 decisions; '
                    f"got {matrix.n_decisions}"
                )
            if getattr(self, "split_weights", None) is not None:
                raise ValueError(
                    f'split_weights={self.split_weights!r} does not combine with '
                    'criterion="profit", which already weights every case by its own '
                    "money; leave split_weights=None"
                )
        smoothing = getattr(self, "posterior_smoothing", None)
        if smoothing is not None and (smoothing == "auto" or smoothing > 0) and (
                self.decision_rule != "case" and matrix is None):
            raise ValueError(
                f"posterior_smoothing={self.posterior_smoothing!r} under the leaf rule "
                "smooths the leaf estimates its decisions come from and needs a "
                "decision_matrix; got decision_matrix=None"
            )
        if getattr(self, "honest_fraction", None) is not None:
            if matrix is None:
                raise ValueError(
                    f"honest_fraction={self.honest_fraction!r} estimates the leaves' "
                    "decision statistics on held-out rows and needs a decision_matrix; got "
                    "decision_matrix=None"
                )
            if self.search == "exact":
                raise ValueError(
                    f'honest_fraction={self.honest_fraction!r} does not combine with '
                    'search="exact" (the exact search scores its trees on every training '
                    "row); use the greedy search or honest_fraction=None"
                )
        if self.decision_rule == "case" and self.search == "exact":
            raise ValueError(
                'search="exact" maximises the training profit of one decision per leaf '
                '(decision_rule="leaf"); it cannot search under decision_rule="case", where '
                "every case decides with its own costs. Use search=\"greedy\" with the case "
                "rule, or the leaf rule with the exact search"
            )
        if self.decision_rule == "case" and matrix is None:
            raise ValueError(
                'decision_rule="case" needs a decision_matrix (each case decides from its '
                "leaf's posteriors and its own costs); got decision_matrix=None"
            )
