"""Benefit-weighted logistic regression (binary and one-vs-rest multiclass)."""

import inspect
from numbers import Integral, Real

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LogisticRegression
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from ..decision import DecisionMatrix
from ._benefit import (
    check_benefit_matrix,
    check_priors,
    choose_priors,
    class_matrix,
    one_vs_rest_benefits,
)
from ._targets import check_fit_inputs, class_codes

__all__ = ["BenefitWeightedLogisticRegression"]

# scikit-learn 1.8 deprecated ``penalty`` in favour of ``l1_ratio`` and ``C=inf``.
_HAS_PENALTY_DEPRECATED = (
    inspect.signature(LogisticRegression).parameters["penalty"].default == "deprecated"
)


def default_benefit_matrix(n_classes):
    """Benefit 1 for every correct classification, -1 for every error."""
    return 2.0 * np.eye(n_classes) - 1.0


def _logistic_kwargs(est):
    kwargs = dict(
        C=est.C,
        dual=est.dual,
        tol=est.tol,
        fit_intercept=est.fit_intercept,
        intercept_scaling=est.intercept_scaling,
        random_state=est.random_state,
        solver=est.solver,
        max_iter=est.max_iter,
    )
    if _HAS_PENALTY_DEPRECATED:
        kwargs["l1_ratio"] = est.l1_ratio
    else:  # older scikit-learn: spell the penalty out
        if est.C == np.inf:
            kwargs.update(penalty=None, C=1.0)
        elif est.l1_ratio == 0:
            kwargs["penalty"] = "l2"
        elif est.l1_ratio == 1:
            kwargs["penalty"] = "l1"
        else:
            kwargs.update(penalty="elasticnet", l1_ratio=est.l1_ratio)
    return kwargs


def _fit_binary(kwargs, X, y01, weight):
    model = LogisticRegression(**kwargs)
    model.fit(X, y01, sample_weight=weight)
    return model


class BenefitWeightedLogisticRegression(ClassifierMixin, BaseEstimator):
    """Logistic regression whose log loss is weighted by a benefit matrix.

    Binary case (class 0 = ``classes_[0]``, class 1 = ``classes_[1]``): the log loss of
    every class-0 case is multiplied by

    ``eta = (b_00 - b_01) / (b_11 - b_10)``,

    so that training trades the two kinds of error as the benefit matrix says. This is
    done with case weights on scikit-learn's :class:`~sklearn.linear_model.LogisticRegression`.

    Multiclass case: one benefit-weighted binary model per class (one-vs-rest). The
    binary benefit matrix of the model for class ``k`` combines the other classes with
    their priors (see :func:`one_vs_rest_benefits`); priors are estimated from the
    training data unless given. A case goes to the class whose model scores highest.

    Parameters
    ----------
    benefit_matrix : array-like of shape (n_classes, n_classes) or DecisionMatrix, \
default=None
        ``b[i, j]``: benefit of classifying a class ``i`` case as class ``j``; rows and
        columns in the order of ``classes_`` (or a DataFrame labelled by the classes).
        Requires ``b[i, i] >= 0 > b[i, j]``. None means 1 for every correct
        classification and -1 for every error (``eta = 1``: plain logistic regression in
        the binary case). A class-level :class:`~dtdecide.DecisionMatrix` (profit, or
        loss taken negated; levels the classes, decisions named by the class labels)
        is read by label, and its priors, if any, are the priors.
    priors : array-like of shape (n_classes,), default=None
        Class priors for the one-vs-rest combination (multiclass only; the binary
        ``eta`` does not involve priors). None: the priors of a ``DecisionMatrix``
        ``benefit_matrix``, else the weighted class proportions of the training data.
    C : float, default=1.0
        Inverse regularisation strength; ``np.inf`` for no penalty.
    l1_ratio : float in [0, 1], default=0.0
        Elastic-net mixing: 0 is an L2 penalty, 1 an L1 penalty (choose a solver that
        supports it, e.g. ``"saga"`` or ``"liblinear"``).
    dual : bool, default=False
        Dual formulation (liblinear with an L2 penalty only).
    tol : float, default=1e-4
        Stopping tolerance.
    fit_intercept : bool, default=True
        Fit an intercept.
    intercept_scaling : float, default=1.0
        Intercept scaling for the liblinear solver.
    solver : {"lbfgs", "liblinear", "newton-cg", "newton-cholesky", "sag", "saga"}, \
default="lbfgs"
        Optimiser of each binary logistic regression.
    max_iter : int, default=100
        Maximum number of solver iterations.
    random_state : int, RandomState instance or None, default=None
        Used by the ``"sag"``, ``"saga"`` and ``"liblinear"`` solvers.
    n_jobs : int, default=None
        Number of binary models fitted in parallel (multiclass only; joblib semantics).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    benefit_matrix_ : ndarray of shape (n_classes, n_classes)
        The validated benefit matrix (in the order of ``classes_``).
    decision_matrix_ : DecisionMatrix or None
        ``benefit_matrix`` when it is a DecisionMatrix: pass it to
        :func:`dtdecide.decide` with ``predict_proba`` (or wrap the model in
        :class:`~dtdecide.DecisionEstimator`) for decisions, case tables and summaries.
    priors_ : ndarray of shape (n_classes,)
        Priors used for the one-vs-rest combination.
    binary_benefits_ : ndarray of shape (n_models, 2, 2)
        Benefit matrix of each binary model (``n_models`` is 1 for a binary problem).
    eta_ : ndarray of shape (n_models,)
        Weight of the class-0 terms of each binary model.
    estimators_ : list of LogisticRegression
        The fitted binary models; for a multiclass problem model ``k`` separates
        ``classes_[k]`` (its class 1) from the rest.
    coef_ : ndarray of shape (n_models, n_features)
    intercept_ : ndarray of shape (n_models,)
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` has string column names.

    Notes
    -----
    There is no ``class_weight`` parameter: the relative weight of the classes is what
    the benefit matrix determines. Further case weights go to ``fit(sample_weight=...)``
    and multiply the benefit weights. The penalty is expressed with ``C`` and
    ``l1_ratio`` (scikit-learn >= 1.8 style).

    Weighting the loss already shifts the fitted probabilities towards the decision the
    benefits favour, so :meth:`predict` uses the highest score (0.5 in the binary case)
    and does not apply the benefit threshold ``eta / (1 + eta)`` a second time.

    Examples
    --------
    >>> import numpy as np
    >>> from dtdecide.models import BenefitWeightedLogisticRegression
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 2))
    >>> y = (X[:, 0] + rng.normal(size=200) > 1).astype(int)
    >>> # missing a class 1 case costs 10, a false alarm costs 1
    >>> model = BenefitWeightedLogisticRegression(benefit_matrix=[[0, -1], [-10, 0]])
    >>> model = model.fit(X, y)
    >>> model.eta_
    array([0.1])
    >>> plain = BenefitWeightedLogisticRegression().fit(X, y)
    >>> bool(model.predict(X).sum() > plain.predict(X).sum())
    True

    The methods on a small problem (a class-0 case weighs ``eta = 1/4``):

    >>> small = BenefitWeightedLogisticRegression(benefit_matrix=[[0, -1], [-4, 0]])
    >>> small = small.fit([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]], [0, 0, 1, 0, 1, 1])
    >>> new = [[0.0], [2.0], [5.0]]
    >>> small.decision_function(new).round(2)
    array([-0.24,  0.92,  2.66])
    >>> small.predict_proba(new).round(2)
    array([[0.56, 0.44],
           [0.28, 0.72],
           [0.07, 0.93]])
    >>> small.predict(new)
    array([0, 1, 1])
    """

    _parameter_constraints = {
        "benefit_matrix": ["array-like", DecisionMatrix, None],
        "priors": ["array-like", None],
        "C": [Interval(Real, 0, None, closed="right")],
        "l1_ratio": [Interval(Real, 0, 1, closed="both")],
        "dual": ["boolean"],
        "tol": [Interval(Real, 0, None, closed="left")],
        "fit_intercept": ["boolean"],
        "intercept_scaling": [Interval(Real, 0, None, closed="neither")],
        "solver": [
            StrOptions({"lbfgs", "liblinear", "newton-cg", "newton-cholesky", "sag", "saga"})
        ],
        "max_iter": [Interval(Integral, 0, None, closed="left")],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
    }

    def __init__(
        self,
        benefit_matrix=None,
        *,
        priors=None,
        C=1.0,
        l1_ratio=0.0,
        dual=False,
        tol=1e-4,
        fit_intercept=True,
        intercept_scaling=1.0,
        solver="lbfgs",
        max_iter=100,
        random_state=None,
        n_jobs=None,
    ):
        self.benefit_matrix = benefit_matrix
        self.priors = priors
        self.C = C
        self.l1_ratio = l1_ratio
        self.dual = dual
        self.tol = tol
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.solver = solver
        self.max_iter = max_iter
        self.random_state = random_state
        self.n_jobs = n_jobs

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def fit(self, X, y, sample_weight=None):
        """Fit the benefit-weighted binary model(s).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Target labels (two or more classes).
            At most 1,000 classes, and more than 100 only with two cases a class or
            more (ValueError otherwise: a numeric target given as labels).
        sample_weight : array-like of shape (n_samples,), optional
            Case weights, multiplied by the benefit weights.

        Returns
        -------
        self : BenefitWeightedLogisticRegression
            The fitted estimator.
        """
        self._validate_params()
        check_fit_inputs(X, y, sample_weight)
        X, y = validate_data(
            self, X, y, accept_sparse="csr", dtype=[np.float64, np.float32], order="C"
        )
        self.classes_, y_idx = class_codes(y)
        n_classes = self.classes_.shape[0]
        weight = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
        self.decision_matrix_ = None
        given_priors = self.priors
        if self.benefit_matrix is None:
            b = default_benefit_matrix(n_classes)
        elif isinstance(self.benefit_matrix, DecisionMatrix):
            self.decision_matrix_ = self.benefit_matrix
            b, m_priors = class_matrix(self.benefit_matrix, self.classes_,
                                       name="benefit_matrix")
            b = check_benefit_matrix(b, classes=self.classes_)
            given_priors = choose_priors(self.priors, m_priors, name="benefit_matrix")
        else:
            b = check_benefit_matrix(self.benefit_matrix, classes=self.classes_)
        self.benefit_matrix_ = b
        if given_priors is None:
            counts = np.bincount(y_idx, weights=weight, minlength=n_classes)
            if counts.sum() <= 0:
                raise ValueError("sample_weight must not be all zero")
            self.priors_ = counts / counts.sum()
        else:
            self.priors_ = check_priors(given_priors, n_classes, classes=self.classes_)

        if n_classes == 2:
            self.binary_benefits_ = b[None, :, :].copy()
            targets = [y_idx]
        else:
            self.binary_benefits_ = one_vs_rest_benefits(b, self.priors_)
            targets = [(y_idx == k).astype(np.intp) for k in range(n_classes)]
        bb = self.binary_benefits_
        self.eta_ = (bb[:, 0, 0] - bb[:, 0, 1]) / (bb[:, 1, 1] - bb[:, 1, 0])
        if np.any(self.eta_ <= 0):
            bad = self.classes_[self.eta_ <= 0].tolist()
            raise ValueError(
                f"priors give no weight to the classes other than {bad}, so their "
                "one-vs-rest model has nothing to learn; give every class a positive prior"
            )
        kwargs = _logistic_kwargs(self)
        weights = [weight * np.where(t == 0, eta, 1.0) for t, eta in zip(targets, self.eta_)]
        if len(targets) == 1:
            self.estimators_ = [_fit_binary(kwargs, X, targets[0], weights[0])]
        else:
            self.estimators_ = Parallel(n_jobs=self.n_jobs)(
                delayed(_fit_binary)(kwargs, X, t, w) for t, w in zip(targets, weights)
            )
        self.coef_ = np.vstack([m.coef_ for m in self.estimators_])
        self.intercept_ = np.concatenate([np.ravel(m.intercept_) for m in self.estimators_])
        self.n_iter_ = np.array([np.max(m.n_iter_) for m in self.estimators_])
        return self

    def _check_X(self, X):
        check_is_fitted(self)
        return validate_data(
            self, X, accept_sparse="csr", dtype=[np.float64, np.float32], reset=False
        )

    def decision_function(self, X):
        """Log-odds of the binary model(s).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            Log-odds: one value per case for a binary problem (positive means
            ``classes_[1]``), otherwise one column per one-vs-rest model.
        """
        X = self._check_X(X)
        if len(self.estimators_) == 1:
            return self.estimators_[0].decision_function(X)
        return np.column_stack([m.decision_function(X) for m in self.estimators_])

    def predict_proba(self, X):
        """Class probabilities, columns in the order of ``classes_``.

        Multiclass: the one-vs-rest scores ``P_k(class k | x)`` normalised to sum to 1.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Class probabilities, columns in the order of ``classes_``.
        """
        X = self._check_X(X)
        if len(self.estimators_) == 1:
            return self.estimators_[0].predict_proba(X)
        scores = np.column_stack([m.predict_proba(X)[:, 1] for m in self.estimators_])
        total = scores.sum(axis=1, keepdims=True)
        return scores / np.where(total > 0, total, 1.0)

    def predict_log_proba(self, X):
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Natural logarithm of the class probabilities (``-inf`` where a probability
            is exactly 0).
        """
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))

    def predict(self, X):
        """Class with the highest score.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
            Predicted class of every case.
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return self.classes_[(scores > 0).astype(np.intp)]
        return self.classes_[np.argmax(scores, axis=1)]
