"""Cross-validated profit of a model's decisions, to compare models of any kind."""

import inspect
import numbers

import numpy as np
from sklearn.base import clone, is_classifier
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.utils import check_random_state

from ._estimator import DecisionEstimator
from ._matrix import DecisionMatrix
from ._validation import take_rows as _take

__all__ = ["cross_validate_decisions"]


def _splitter(cv, estimator, random_state):
    if hasattr(cv, "split"):
        return cv
    if isinstance(cv, bool) or not isinstance(cv, numbers.Integral) or cv < 2:
        raise ValueError(f"cv must be an integer >= 2 or a splitter with split(); got {cv!r}")
    seed = int(check_random_state(random_state).randint(np.iinfo(np.int32).max))
    if is_classifier(estimator):
        return StratifiedKFold(n_splits=int(cv), shuffle=True, random_state=seed)
    return KFold(n_splits=int(cv), shuffle=True, random_state=seed)


def _takes(method, name):
    try:
        return name in inspect.signature(method).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
        return False


def cross_validate_decisions(estimator, X, y, matrix=None, *, costs=None, cv=5,
                             sample_weight=None, random_state=None):
    """Average profit (or loss) of a model's decisions on k-fold held-out cases.

    For each fold, a clone of ``estimator`` is fitted on the other folds and decides
    for the fold's cases with :meth:`decide`, each with its own row of ``costs``; the
    realised profit of every held-out case is collected. A scikit-learn model without
    ``decide`` is wrapped in :class:`DecisionEstimator` with ``matrix`` (its posteriors
    decided per case by :func:`decide`). A model whose ``fit`` takes ``costs`` (a
    profit tree) gets the training folds' costs. Give several models the same ``cv``
    splitter (or the same integer ``cv`` and ``random_state``) to compare them on the
    same folds.

    Parameters
    ----------
    estimator : estimator object
        A model with ``decide`` (a profit tree, a :class:`DecisionEstimator`) or a
        scikit-learn classifier or regressor (then ``matrix`` is needed). Not modified.
    X : DataFrame or array-like of shape (n_samples, n_features)
        Inputs.
    y : array-like of shape (n_samples,)
        Target.
    matrix : DecisionMatrix, default=None
        The decision matrix for a model without ``decide``.
    costs : DataFrame, dict of arrays or ndarray, default=None
        The cases' cost variables or cost rows, as in :func:`decide`.
    cv : int or cross-validation splitter, default=5
        Number of folds (stratified by class for a classifier) or a splitter.
    sample_weight : array-like of shape (n_samples,), default=None
        Case frequencies, for fitting and for the averages.
    random_state : int, RandomState instance or None, default=None
        Seeds the fold assignment when ``cv`` is an integer.

    Returns
    -------
    dict
        ``measure`` (``"profit"``, higher is better, or ``"loss"`` for a loss or cost
        matrix, lower is better), ``average`` (over every held-out case, weighted by
        frequency), ``std_error`` (its standard error over the cases) and
        ``fold_averages`` (one per fold).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from dtdecide import DecisionMatrix
    >>> from dtdecide.decision import cross_validate_decisions
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 2))
    >>> y = np.where(X[:, 0] + rng.normal(size=400) > 1, "buyer", "other")
    >>> m = DecisionMatrix({"mail": [10, -1], "skip": [0, 0]}, levels=["buyer", "other"])
    >>> out = cross_validate_decisions(LogisticRegression(), X, y, m, random_state=0)
    >>> out["measure"], round(out["average"], 2), len(out["fold_averages"])
    ('profit', 1.74, 5)
    """
    if not callable(getattr(estimator, "decide", None)):
        if matrix is None:
            raise ValueError(
                "matrix: a model without decide needs a DecisionMatrix to decide with")
        if not isinstance(matrix, DecisionMatrix):
            raise TypeError(f"matrix must be a DecisionMatrix; got {type(matrix).__name__}")
        estimator = DecisionEstimator(estimator, matrix)
    n = len(y)
    if hasattr(X, "shape") and X.shape[0] != n or costs is not None and len(costs) != n:
        raise ValueError(f"X, y and costs must have the same number of rows; got y with {n}")
    splitter = _splitter(cv, estimator, random_state)
    y_arr = np.asarray(y, dtype=object)
    weights = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    values, freqs, folds = [], [], []
    measure = None
    for train, test in splitter.split(np.zeros((n, 1)), y_arr.astype(str)):
        model = clone(estimator)
        kw = {}
        if weights is not None:
            kw["sample_weight"] = weights[train]
        if costs is not None and _takes(model.fit, "costs"):
            kw["costs"] = _take(costs, train)
        model.fit(_take(X, train), _take(y, train), **kw)
        res = model.decide(_take(X, test), _take(y, test),
                           costs=_take(costs, test) if costs is not None else None,
                           sample_weight=None if weights is None else weights[test])
        word = "loss" if "average_loss" in res.summary.index else "profit"
        measure = measure or word
        column = [c for c in res.cases.columns if c.startswith("CL_" if word == "loss"
                                                               else "CP_")][0]
        v = res.cases[column].to_numpy(dtype=np.float64)
        w = np.ones(len(v)) if weights is None else weights[test]
        ok = np.isfinite(v)  # cases left undecided (a missing cost) count nowhere
        values.append(v[ok])
        freqs.append(w[ok])
        folds.append(float(np.sum(w[ok] * v[ok]) / np.sum(w[ok])))
    v, w = np.concatenate(values), np.concatenate(freqs)
    average = float(np.sum(w * v) / np.sum(w))
    var = float(np.sum(w * (v - average) ** 2) / np.sum(w))
    se = float(np.sqrt(var / max(np.sum(w) - 1.0, 1.0)))
    return {"measure": measure, "average": average, "std_error": se,
            "fold_averages": np.asarray(folds)}
