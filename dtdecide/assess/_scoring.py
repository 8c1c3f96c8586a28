"""Turn a model (or pre-scored posteriors) and data into per-case profit arrays.

Every assessment (profit charts, model comparison, what-if) goes through
:func:`score_cases`, which accepts

* a dtdecide tree or a :class:`~dtdecide.DecisionEstimator` (anything with ``decide``
  and ``decision_matrix_``): its own ``decide`` is used, so a tree keeps its leaf
  decisions (leaf-averaged costs, whatever ``decision_costs`` says);
* any fitted scikit-learn classifier (``predict_proba``) or regressor (``predict``);
* pre-scored posteriors (DataFrame with one column per level, or an array in level
  order; a 1-D array for a binary matrix is the posterior of the *second* level, like
  ``predict_proba(X)[:, 1]``) or predictions for an interval matrix.

The result holds profit-oriented arrays (loss negated) and the decision labels.
"""

import copy
import inspect

import numpy as np
import pandas as pd

from dtdecide.decision import (
    DecisionMatrix,
    decide,
    encode_target,
    model_posteriors,
)
from dtdecide.decision._kernels import _check_priors
from dtdecide.decision._validation import check_same_index, float_array, reference_index

__all__ = ["event_code", "redecide", "score_cases"]


class ScoredCases:
    """Per-case arrays of one model on one data set (profit orientation)."""

    def __init__(self, *, matrix, result, post, y):
        self.matrix = matrix
        self.result = result
        cases = result.cases
        tn = result.target_name
        sign = matrix.sign
        letter = "L" if sign < 0 else "P"
        self.index = cases.index
        self.n = len(cases)
        self.score = sign * cases[f"E{letter}_{tn}"].to_numpy(dtype=float)
        cp = cases.get(f"C{letter}_{tn}")
        self.profit = None if cp is None else sign * cp.to_numpy(dtype=float)
        bp = cases.get(f"B{letter}_{tn}")
        # the best possible profit needs every decision's cost: NaN marks a case with
        # any missing cost, which the decide() summaries leave out
        self._best_missing = None if bp is None else np.isnan(bp.to_numpy(dtype=float))
        ic = cases.get(f"IC_{tn}")
        self.cost = None if ic is None else ic.to_numpy(dtype=float)
        d = cases.get(f"D_{tn}")
        self.decision = None if d is None else np.asarray(d.astype(object))
        self.post = post  # (n, T) posteriors, (n,) predictions or None
        self.y = y
        self.t_idx = None
        if y is not None and not matrix.is_interval:
            self.t_idx = encode_target(np.asarray(y, dtype=object).reshape(-1), matrix.levels)
        self.summary = result.summary
        self.weight = None  # frequencies, set by the caller that charts the cases

    @property
    def missing(self):
        """Cases with a missing cost: left out of charts as of the ``decide`` summaries."""
        bad = np.isnan(self.score)
        if self.profit is not None:
            bad |= np.isnan(self.profit)
        if self._best_missing is not None:
            bad |= self._best_missing
        return bad


def _is_deciding_model(model):
    return hasattr(model, "decide") and hasattr(model, "decision_matrix_")


def _is_prescored(model):
    return isinstance(model, (pd.DataFrame, pd.Series, np.ndarray, list, tuple,
                              pd.api.extensions.ExtensionArray))


def event_code(matrix, event):
    """Level code of the event (response) level, or None when it cannot be inferred.

    Given ``event`` must be a level. Without it, binary matrices whose levels are
    ``{0, 1}``, ``{False, True}`` or ``{-1, 1}`` use ``1``/``True``, as scikit-learn
    does; other level labels need ``event`` explicitly.
    """
    if matrix.is_interval:
        return None
    levels = list(matrix.levels)
    if event is not None:
        if pd.api.types.is_scalar(event) and pd.isna(event):
            raise ValueError(f"event must be a level of the matrix {levels!r}; got {event!r}")
        hits = [k for k, lv in enumerate(levels) if lv == event or str(lv) == str(event)]
        if not hits:
            raise ValueError(f"event must be a level of the matrix {levels!r}; got {event!r}")
        return hits[0]
    if len(levels) == 2:
        try:
            as_set = {lv.item() if hasattr(lv, "item") else lv for lv in levels}
        except TypeError:
            return None
        if as_set in ({0, 1}, {-1, 1}, {False, True}):
            return levels.index(1) if 1 in levels else levels.index(True)
    return None


def _prescored_posteriors(scores, matrix, name, event_idx=None):
    """Validate pre-scored posteriors / predictions, expanding a binary 1-D column."""
    if matrix.is_interval:
        return scores
    if isinstance(scores, pd.DataFrame):
        return scores
    arr = float_array(scores, name, "numeric posteriors")
    if arr.ndim == 1 or (arr.ndim == 2 and arr.shape[1] == 1):
        if matrix.n_levels != 2:
            raise ValueError(
                f"{name}: a single column of scores is only accepted for a binary matrix; "
                f"the matrix has {matrix.n_levels} levels"
            )
        if event_idx is None:
            raise ValueError(
                f"{name}: a single column of scores is the posterior of the event level; "
                f"give event= (one of {list(matrix.levels)!r})"
            )
        p = arr.reshape(-1)
        bad = (p < 0) | (p > 1)  # NaN: the engine names it
        if bad.any():
            k = int(np.argmax(bad))
            raise ValueError(
                f"{name}: a single column of scores is the posterior of the event level "
                f"{matrix.levels[event_idx]!r}, a probability in [0, 1]; row {k} holds "
                f"{float(p[k])!r}"
            )
        arr = np.empty((p.size, 2))
        arr[:, event_idx] = p
        arr[:, 1 - event_idx] = 1.0 - p
    if isinstance(scores, pd.Series):
        return pd.DataFrame(arr, index=scores.index, columns=list(matrix.levels))
    return arr


def redecide(model, matrix=None, *, priors=None, train_priors=None):
    """A copy of a fitted model that decides under another matrix, costs or priors.

    Nothing is refitted. A dtdecide tree re-decides every node from the statistics it
    stored at fit (the leaf decisions change, the splits do not); a
    :class:`~dtdecide.DecisionEstimator` keeps its fitted model and only swaps the
    matrix used by ``decide``.

    Parameters
    ----------
    model : ProfitTreeClassifier, ProfitTreeRegressor or DecisionEstimator
        A fitted model with a decision matrix.
    matrix : DecisionMatrix, default=None
        The new matrix (same levels, or same knots for an interval target). Constant
        costs can be changed in it; cost variables must be ones the tree saw at fit.
        None keeps the fitted matrix (to change only the priors).
    priors : array-like of shape (n_levels,), default=None
        New operational priors (categorical targets); replace the matrix's priors.
    train_priors : array-like of shape (n_levels,), default=None
        For a DecisionEstimator fitted without priors: the class proportions its model
        was trained on, needed to adjust posteriors to the new priors. By default the
        estimator's ``train_priors_``.

    Returns
    -------
    model
        A shallow copy with the new matrix; the original is unchanged.

    Warns
    -----
    UserWarning
        For an ordinal tree: its growth used the original matrix (generalized Gini of
        the regret), so the splits are not those the new matrix would have grown.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from dtdecide import DecisionEstimator, DecisionMatrix
    >>> from dtdecide.assess import redecide
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 2))
    >>> y = np.where(X[:, 0] + rng.normal(size=300) > 1, "buy", "no")
    >>> m = DecisionMatrix({"mail": [10, -1], "skip": [0, 0]}, levels=["buy", "no"])
    >>> est = DecisionEstimator(LogisticRegression(), m).fit(X, y)
    >>> dear = DecisionMatrix({"mail": [10, -5], "skip": [0, 0]}, levels=["buy", "no"])
    >>> n_cheap = (est.decide(X).cases["D_target"] == "mail").sum()
    >>> n_dear = (redecide(est, dear).decide(X).cases["D_target"] == "mail").sum()
    >>> bool(n_dear <= n_cheap)
    True
    """
    if not _is_deciding_model(model):
        raise TypeError(
            "model must be a fitted dtdecide tree or DecisionEstimator (with decide and "
            f"decision_matrix_); got {type(model).__name__}"
        )
    old = model.decision_matrix_
    if old is None:
        raise ValueError("model was fitted without a decision matrix; nothing to re-decide")
    new = old if matrix is None else matrix
    if not isinstance(new, DecisionMatrix):
        raise TypeError(f"matrix must be a DecisionMatrix or None; got {type(new).__name__}")
    if new.is_interval != old.is_interval:
        raise ValueError("matrix must describe the same kind of target (levels or knots) as the model's")
    if not new.is_interval and list(new.levels) != list(old.levels):
        raise ValueError(
            f"matrix must have the model's levels {list(old.levels)!r}; got {list(new.levels)!r}"
        )
    if priors is not None:
        new = new.replace(priors=priors)
    if hasattr(model, "tree_"):  # a profit tree re-decides from its node statistics
        return model.redecide(new)
    out = copy.copy(model)
    # DecisionEstimator
    out.decision_matrix = new
    out.decision_matrix_ = new
    if new.priors is not None and not new.is_interval:
        rho = train_priors if train_priors is not None else model.train_priors_
        if rho is None:
            raise ValueError(
                "train_priors is needed: the estimator was fitted without priors, so the "
                "class proportions of its training data are unknown"
            )
        # checked like decide's: a dict or Series is matched to the levels by label
        out.train_priors_ = _check_priors(rho, new.n_levels, "train_priors", new.levels)
    else:
        out.train_priors_ = None
    return out


def _takes_decision_costs(model):
    """Whether a deciding model decides case by case (its ``decide`` takes decision costs).

    A dtdecide tree does not: it decides per leaf from its training costs, which is
    what ``decision_costs`` imitates for the models that decide case by case.
    """
    try:
        return "decision_costs" in inspect.signature(model.decide).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
        return False


def score_cases(model, X, y, matrix=None, *, costs=None, sample_weight=None,
                train_priors=None, event_idx=None, name="model", decision_costs=None):
    """Decide with ``model`` on one data set and return a :class:`ScoredCases`.

    ``decision_costs`` (costs to decide with; ``costs`` are then the actual ones) is
    used by every model that decides case by case; a tree keeps its leaf decisions.
    """
    if _is_prescored(model):
        if matrix is None:
            raise ValueError(f"{name}: pre-scored posteriors need a decision matrix; got None")
        post = _prescored_posteriors(model, matrix, name, event_idx)
        res = decide(post, matrix, y=y, costs=costs, decision_costs=decision_costs,
                     sample_weight=sample_weight, train_priors=train_priors)
        if isinstance(post, pd.DataFrame) and not matrix.is_interval:
            # the engine matched the columns to levels; same order for fit statistics
            raw = _frame_in_level_order(post, matrix)
        else:
            raw = np.asarray(post, dtype=float)
            if matrix.is_interval:
                raw = raw.reshape(-1)
        return ScoredCases(matrix=matrix, result=res, post=np.asarray(raw, dtype=float), y=y)
    if _is_deciding_model(model) and not (matrix is not None
                                          and model.decision_matrix_ is None):
        if matrix is not None and matrix != model.decision_matrix_:
            model = redecide(model, matrix, train_priors=train_priors)
        m = model.decision_matrix_
        if m is None:
            raise ValueError(f"{name} was fitted without a decision matrix; pass matrix=")
        extra = {}
        if decision_costs is not None and _takes_decision_costs(model):
            extra["decision_costs"] = decision_costs
        res = model.decide(X, y, costs, sample_weight=sample_weight, **extra)
        post = _model_scores(model, X, m)
        return ScoredCases(matrix=m, result=res, post=post, y=y)
    if hasattr(model, "predict"):
        if matrix is None:
            raise ValueError(f"{name}: a scikit-learn model needs matrix=; got None")
        # the posteriors come back as an array: compare the indexes with X's here
        index = reference_index(X)
        for values, what in ((y, "y"), (costs, "costs"), (sample_weight, "sample_weight"),
                             (decision_costs, "decision_costs")):
            check_same_index(values, index, what)
        post = model_posteriors(model, X, matrix)
        res = decide(post, matrix, y=y, costs=costs, decision_costs=decision_costs,
                     sample_weight=sample_weight, train_priors=train_priors)
        return ScoredCases(matrix=matrix, result=res, post=post, y=y)
    raise TypeError(
        f"{name} must be a fitted estimator, a DecisionEstimator / dtdecide tree, or "
        f"pre-scored posteriors; got {type(model).__name__}"
    )


def _frame_in_level_order(frame, matrix):
    cols = list(frame.columns)
    order = []
    for lv in matrix.levels:
        if lv in cols:
            order.append(cols.index(lv))
        else:
            order.append([str(c) for c in cols].index(str(lv)))
    return frame.iloc[:, order].to_numpy(dtype=float)


def _model_scores(model, X, matrix):
    """Posteriors in level order (or predictions) of a deciding model, for fit statistics."""
    try:
        if matrix.is_interval:
            return np.asarray(model.predict(X), dtype=float).reshape(-1)
        if hasattr(model, "predict_proba"):
            return model_posteriors(model, X, matrix)
    except (AttributeError, TypeError, ValueError):
        return None
    return None
