"""Any scikit-learn model can decide: a meta-estimator around a classifier or regressor."""

import copy

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone, is_classifier
from sklearn.utils import get_tags
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from ._engine import decide
from ._kernels import _check_priors
from ._matrix import check_matrix_or_none
from ._validation import check_per_case, has_missing_labels

__all__ = ["DecisionEstimator"]


def _level_codes(classes, matrix, name="estimator"):
    """Column of each class in the matrix levels; error naming unknown classes."""
    codes = pd.Index(list(matrix.levels)).get_indexer(pd.Index(list(classes)))
    if np.any(codes < 0):
        unknown = np.asarray(list(classes), dtype=object)[codes < 0]
        unknown = [c.item() if isinstance(c, np.generic) else c for c in unknown]
        raise ValueError(
            f"{name} predicts classes that are not levels of the decision matrix: "
            f"{unknown!r}; expected levels {list(matrix.levels)!r}"
        )
    return codes


def model_posteriors(estimator, X, matrix):
    """Posteriors (n, n_levels) in matrix level order, or predictions (n,) for intervals.

    Classifier columns are matched to the matrix levels by label through
    ``estimator.classes_``; levels the model never predicts get posterior 0.

    Parameters
    ----------
    estimator : fitted estimator
        A classifier with ``predict_proba`` and ``classes_`` for a categorical matrix, a
        regressor with ``predict`` for an interval matrix.
    X : array-like of shape (n_samples, n_features)
        The inputs the estimator scores.
    matrix : DecisionMatrix
        The decision matrix whose levels order the columns.

    Returns
    -------
    ndarray of shape (n_samples, n_levels) or (n_samples,)
        The posteriors with one column per level of ``matrix`` (a categorical matrix),
        or the predictions (an interval matrix).

    Raises
    ------
    TypeError
        When a categorical matrix meets an estimator without ``predict_proba``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from dtdecide.decision import DecisionMatrix, model_posteriors
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> model = LogisticRegression().fit(X, ["no", "no", "yes", "yes"])
    >>> m = DecisionMatrix({"call": [20, -2, 5], "skip": [0, 0, 0]},
    ...                    levels=["yes", "no", "maybe"])
    >>> model_posteriors(model, X[:2], m).round(2).tolist()
    [[0.19, 0.81, 0.0], [0.38, 0.62, 0.0]]
    """
    if matrix.is_interval:
        return np.asarray(estimator.predict(X), dtype=np.float64).reshape(-1)
    if not hasattr(estimator, "predict_proba"):
        raise TypeError(
            f"estimator must have predict_proba for a categorical decision matrix; "
            f"{type(estimator).__name__} has not"
        )
    proba = np.asarray(estimator.predict_proba(X), dtype=np.float64)
    codes = _level_codes(estimator.classes_, matrix)
    post = np.zeros((proba.shape[0], matrix.n_levels))
    post[:, codes] = proba
    return post


def _estimator_has(attr):
    def check(self):
        if hasattr(self, "estimator_"):
            return hasattr(self.estimator_, attr)
        return hasattr(self.estimator, attr)

    return check



def _delegated(name, doc):
    """The method ``name(X)`` of the wrapped model, offered only when the model has it
    (one rule for ``predict``, ``predict_proba``, ``predict_log_proba`` and
    ``decision_function``)."""

    def method(self, X):
        check_is_fitted(self)
        return getattr(self.estimator_, name)(X)

    method.__name__ = name
    method.__qualname__ = f"DecisionEstimator.{name}"
    method.__doc__ = doc
    return available_if(_estimator_has(name))(method)

class DecisionEstimator(MetaEstimatorMixin, BaseEstimator):
    """Wrap any classifier or regressor so that it makes decisions.

    ``fit``, ``predict``, ``predict_proba`` and ``score`` behave as the wrapped model;
    :meth:`decide` turns its posteriors (classifier: ``predict_proba`` columns matched
    to the matrix levels by label) or predictions (regressor with an interval matrix)
    into decisions with :func:`decide`.

    Parameters
    ----------
    estimator : estimator object
        A scikit-learn classifier (with ``predict_proba``) or regressor. Cloned in fit.
    decision_matrix : DecisionMatrix, default=None
        Categorical matrix for a classifier, interval matrix for a regressor. Without
        one the wrapper only delegates and :meth:`decide` raises.
    train_priors : array-like of shape (n_levels,), default=None
        Class proportions the model was trained on, used with the matrix priors to
        adjust the posteriors. When None and the matrix has priors, the
        (weighted) class proportions seen by ``fit`` are used.

    Attributes
    ----------
    estimator_ : estimator object
        The fitted clone.
    classes_ : ndarray
        Classes of a wrapped classifier.
    decision_matrix_ : DecisionMatrix or None
        The validated matrix.
    train_priors_ : ndarray of shape (n_levels,) or None
        Training proportions used for the posterior adjustment (None without priors).
    n_features_in_ : int
    feature_names_in_ : ndarray
        Only when the wrapped model defines it.

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> from dtdecide import DecisionEstimator, DecisionMatrix
    >>> X = [[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]]
    >>> y = ["other", "other", "buyer", "other", "buyer", "buyer"]
    >>> m = DecisionMatrix({"mail": [9, -1], "skip": [0, 0]}, levels=["buyer", "other"])
    >>> est = DecisionEstimator(LogisticRegression(), m).fit(X, y)
    >>> est.classes_.tolist(), est.decision_matrix_.decisions
    (['buyer', 'other'], ('mail', 'skip'))
    >>> res = est.decide([[0.0], [5.0]], ["other", "buyer"])
    >>> res.cases.round(2)
      D_target  EP_target  CP_target  BP_target
    0     mail       0.28       -1.0        0.0
    1     mail       7.72        9.0        9.0
    >>> round(float(res.summary["average_profit"]), 6)
    4.0
    """

    def __init__(self, estimator, decision_matrix=None, *, train_priors=None):
        self.estimator = estimator
        self.decision_matrix = decision_matrix
        self.train_priors = train_priors

    def _check_matrix(self):
        return check_matrix_or_none(self.decision_matrix)

    def fit(self, X, y, sample_weight=None, **fit_params):
        """Fit the wrapped model and validate the decision matrix.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs of the wrapped model.
        y : array-like of shape (n_samples,)
            Target; its classes must be levels of the decision matrix.
        sample_weight : array-like of shape (n_samples,), default=None
            Passed to the model's fit when given.
        **fit_params : dict
            Other parameters for the model's fit.

        Returns
        -------
        self
            The fitted estimator.
        """
        matrix = self._check_matrix()
        if not hasattr(self.estimator, "fit"):
            raise TypeError(
                f"estimator must be a scikit-learn estimator with fit; got {self.estimator!r}"
            )
        check_per_case(X, y=y, sample_weight=sample_weight)
        if y is not None and has_missing_labels(np.asarray(y, dtype=object).reshape(-1)):
            raise ValueError("y contains missing values (NaN, None or pd.NA); drop those "
                             "cases first")
        est = clone(self.estimator)
        if sample_weight is not None:
            fit_params["sample_weight"] = sample_weight
        est.fit(X, y, **fit_params)
        self.estimator_ = est
        for attr in ("n_features_in_", "feature_names_in_"):
            if hasattr(est, attr):
                setattr(self, attr, getattr(est, attr))
        classifier = is_classifier(est)
        if classifier:
            self.classes_ = est.classes_
        self.decision_matrix_ = matrix
        self.train_priors_ = None
        if matrix is None:
            if self.train_priors is not None:
                raise ValueError("train_priors needs a decision_matrix with priors; got None")
            return self
        if classifier:
            if matrix.is_interval:
                raise ValueError(
                    "decision_matrix must have levels (not knots) for a classifier"
                )
            codes = _level_codes(self.classes_, matrix)
            if self.train_priors is not None:
                if matrix.priors is None:
                    raise ValueError(
                        "train_priors needs priors in the decision matrix; got a matrix "
                        "without priors"
                    )
                self.train_priors_ = _check_priors(self.train_priors, matrix.n_levels,
                                                   "train_priors", matrix.levels)
            elif matrix.priors is not None:
                y_codes = pd.Index(list(self.classes_)).get_indexer(
                    pd.Index(np.asarray(y).reshape(-1)))
                w = None if sample_weight is None else np.asarray(sample_weight, float)
                counts = np.bincount(y_codes, weights=w, minlength=len(self.classes_))
                rho = np.zeros(matrix.n_levels)
                rho[codes] = counts
                # a level never seen in training never gets posterior mass, so its
                # ratio does not matter; give it its prior to keep the ratio defined
                absent = rho <= 0
                rho[absent] = matrix.priors[absent] * counts.sum()
                self.train_priors_ = rho / rho.sum()
        else:
            if not matrix.is_interval:
                raise ValueError(
                    "decision_matrix must have knots (interval target) for a regressor"
                )
            if self.train_priors is not None:
                raise ValueError("train_priors only applies to classifiers")
        return self

    predict = _delegated("predict", "Predict with the wrapped model.")
    predict_proba = _delegated(
        "predict_proba", "Class probabilities of the wrapped model (columns follow ``classes_``).")
    predict_log_proba = _delegated("predict_log_proba",
                                   "Log class probabilities of the wrapped model.")
    decision_function = _delegated("decision_function", "Decision function of the wrapped model.")

    @available_if(_estimator_has("score"))
    def score(self, X, y, sample_weight=None):
        """Score of the wrapped model (accuracy or R^2, as the model defines it)."""
        check_is_fitted(self)
        if sample_weight is None:
            return self.estimator_.score(X, y)
        return self.estimator_.score(X, y, sample_weight=sample_weight)

    def decide(self, X, y=None, costs=None, *, decision_costs=None, sample_weight=None,
               target_name="target", threshold=None, do_nothing="do nothing"):
        """Decide for the cases in ``X`` with the wrapped model and the matrix.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs of the wrapped model.
        y : array-like of shape (n_samples,), default=None
            Actual target, for computed and best possible profit.
        costs : DataFrame, dict of arrays or ndarray, default=None
            Cost columns (or case-specific consequences), see :func:`decide`; the
            actual costs when ``decision_costs`` is given.
        decision_costs : DataFrame, dict, Series or ndarray, default=None
            Costs to decide with (e.g. :func:`mean_costs` of the training costs), see
            :func:`decide`.
        sample_weight : array-like of shape (n_samples,), default=None
            As in :func:`decide`.
        target_name : str, default="target"
            As in :func:`decide`.
        threshold : float, default=None
            As in :func:`decide`.
        do_nothing : str, default="do nothing"
            As in :func:`decide`.

        Returns
        -------
        DecisionResult
            Cases aligned with ``X``'s index when ``X`` is a DataFrame.
        """
        check_is_fitted(self)
        matrix = self.decision_matrix_
        if matrix is None:
            raise ValueError("decision_matrix is None: give a DecisionMatrix to decide")
        check_per_case(X, y=y, costs=costs, decision_costs=decision_costs,
                       sample_weight=sample_weight)
        post = model_posteriors(self.estimator_, X, matrix)
        if isinstance(X, pd.DataFrame):
            post = (pd.Series(post, index=X.index) if post.ndim == 1
                    else pd.DataFrame(post, index=X.index, columns=list(matrix.levels)))
        return decide(post, matrix, y=y, costs=costs, decision_costs=decision_costs,
                      sample_weight=sample_weight,
                      train_priors=self.train_priors_, target_name=target_name,
                      threshold=threshold, do_nothing=do_nothing)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        inner = get_tags(self.estimator)
        tags.estimator_type = inner.estimator_type
        tags.classifier_tags = copy.deepcopy(inner.classifier_tags)
        tags.regressor_tags = copy.deepcopy(inner.regressor_tags)
        tags.input_tags = copy.deepcopy(inner.input_tags)
        tags.target_tags = copy.deepcopy(inner.target_tags)
        return tags
