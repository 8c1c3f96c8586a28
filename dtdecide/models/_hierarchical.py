"""Flat and hierarchical cost-sensitive classification of minority groups.

Classes are split into one majority group ``H`` and minority groups ``D_1 .. D_K``.
Correct decisions cost nothing; calling an ``H`` case a minority group costs ``C_HD``,
calling a minority case ``H`` costs ``C_DH``, and confusing two minority groups costs
``C_DD``. With ``P(D | x) = sum_k P(D_k | x)``:

- the expected cost of deciding ``D_v`` is ``C_DD (P(D|x) - P(D_v|x)) + C_HD P(H|x)``,
  and of deciding ``H`` it is ``C_DH P(D|x)``;
- the **flat** rule picks the largest of ``P(D_1|x) .. P(D_K|x)`` and
  ``beta P(H|x) - Delta`` with ``beta = (C_DH + C_HD - C_DD) / C_DD`` and
  ``Delta = (C_DH - C_DD) / C_DD``; it minimises the expected cost exactly;
- the **hierarchical** rule first decides minority versus majority
  (minority when ``P(D|x) >= p* = C_HD / (C_HD + C_DH)``) and then picks the most
  probable minority group with a cost-blind model.

When do they agree (with the same posteriors)?  Both choose the most probable minority
group once they have chosen the minority, so they differ only on minority versus
majority. Flat chooses a minority group exactly when
``C_DH P(D|x) >= C_HD P(H|x) + C_DD (P(D|x) - max_k P(D_k|x))`` and hierarchical when
``C_DH P(D|x) >= C_HD P(H|x)``. Hence

- with a single minority group (a binary problem) the rules are identical;
- a case whose minority probability sits on one group (``max_k P(D_k|x) = P(D|x)``)
  gets the same decision from both;
- otherwise the flat rule sends to ``H`` some cases that the hierarchical rule sends to a
  minority group (never the reverse): the hierarchical rule ignores the risk ``C_DD`` of
  picking the wrong minority group.
"""

from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.kernel_approximation import Nystroem, RBFSampler
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils import Bunch, _safe_indexing, get_tags
from sklearn.utils._param_validation import HasMethods, Interval
from sklearn.utils.validation import (
    _check_sample_weight,
    check_is_fitted,
    column_or_1d,
    has_fit_parameter,
    validate_data,
)

from ._benefit_lr import BenefitWeightedLogisticRegression
from ._targets import check_fit_inputs, class_codes

__all__ = [
    "FlatCostSensitiveClassifier",
    "HierarchicalCostSensitiveClassifier",
    "hierarchical_cost_parameters",
    "make_kernel_logistic_regression",
]


def hierarchical_cost_parameters(cost_hd, cost_dh, cost_dd):
    """The constants of the flat and hierarchical rules for given costs.

    Parameters
    ----------
    cost_hd : float
        ``C_HD`` > 0, cost of deciding a minority group for a majority case.
    cost_dh : float
        ``C_DH`` > 0, cost of deciding the majority group for a minority case.
    cost_dd : float
        ``C_DD`` > 0, cost of deciding the wrong minority group.

    Returns
    -------
    Bunch
        ``beta = (C_DH + C_HD - C_DD) / C_DD``, ``delta = (C_DH - C_DD) / C_DD`` and
        ``p_star = C_HD / (C_HD + C_DH)``.

    Examples
    --------
    >>> from dtdecide.models import hierarchical_cost_parameters
    >>> p = hierarchical_cost_parameters(cost_hd=1, cost_dh=10, cost_dd=2)
    >>> float(p.beta), float(p.delta), round(float(p.p_star), 4)
    (4.5, 4.0, 0.0909)
    """
    costs = {"cost_hd": cost_hd, "cost_dh": cost_dh, "cost_dd": cost_dd}
    for name, value in costs.items():
        if not isinstance(value, Real) or isinstance(value, bool) or not np.isfinite(value):
            raise TypeError(f"{name} must be a finite real number; got {value!r}")
        if value <= 0:
            raise ValueError(f"{name} must be positive; got {value!r}")
    return Bunch(
        beta=(cost_dh + cost_hd - cost_dd) / cost_dd,
        delta=(cost_dh - cost_dd) / cost_dd,
        p_star=cost_hd / (cost_hd + cost_dh),
    )


def make_kernel_logistic_regression(
    *,
    method="rbf_sampler",
    gamma="scale",
    n_components=100,
    C=1.0,
    max_iter=1000,
    random_state=None,
):
    """Kernel logistic regression: scaling, an RBF kernel approximation, logistic regression.

    Parameters
    ----------
    method : {"rbf_sampler", "nystroem"}, default="rbf_sampler"
        Random Fourier features (:class:`~sklearn.kernel_approximation.RBFSampler`; the
        feature map does not depend on the training rows, so case weights act exactly as
        repeated rows) or the Nystroem approximation (built from sampled training rows).
    gamma : float or "scale", default="scale"
        RBF kernel coefficient; "scale" is ``1 / n_features`` on the standardised inputs.
    n_components : int, default=100
        Dimension of the approximate feature space.
    C : float, default=1.0
        Inverse regularisation strength of the logistic regression.
    max_iter : int, default=1000
        Iterations of the logistic regression solver.
    random_state : int, RandomState instance or None, default=None
        Seed of the kernel approximation.

    Returns
    -------
    Pipeline
        Steps ``"scale"``, ``"kernel"`` and ``"logistic"``; ``fit`` accepts case weights
        through ``logistic__sample_weight`` (and ``scale__sample_weight``).

    Examples
    --------
    >>> from sklearn.datasets import make_moons
    >>> from sklearn.linear_model import LogisticRegression
    >>> from dtdecide.models import make_kernel_logistic_regression
    >>> X, y = make_moons(200, noise=0.1, random_state=0)
    >>> model = make_kernel_logistic_regression(random_state=0).fit(X, y)
    >>> linear = LogisticRegression().fit(X, y)
    >>> bool(model.score(X, y) > linear.score(X, y))       # curved boundary
    True
    """
    if method == "rbf_sampler":
        kernel = RBFSampler(gamma=gamma, n_components=n_components, random_state=random_state)
    elif method == "nystroem":
        kernel = Nystroem(
            kernel="rbf",
            gamma=None if gamma == "scale" else gamma,
            n_components=n_components,
            random_state=random_state,
        )
    else:
        raise ValueError(f"method must be 'rbf_sampler' or 'nystroem'; got {method!r}")
    return Pipeline(
        [
            ("scale", StandardScaler()),
            ("kernel", kernel),
            ("logistic", LogisticRegression(C=C, max_iter=max_iter)),
        ]
    )


def _fit_weighted(estimator, X, y, sample_weight):
    """Fit ``estimator`` passing case weights to every step that accepts them."""
    if sample_weight is None:
        return estimator.fit(X, y)
    if isinstance(estimator, Pipeline):
        params = {
            f"{name}__sample_weight": sample_weight
            for name, step in estimator.steps
            if step not in (None, "passthrough") and has_fit_parameter(step, "sample_weight")
        }
        return estimator.fit(X, y, **params)
    if not has_fit_parameter(estimator, "sample_weight"):
        raise TypeError(
            f"{type(estimator).__name__}.fit does not accept sample_weight; fit without "
            "sample_weight or choose an estimator that supports it"
        )
    return estimator.fit(X, y, sample_weight=sample_weight)


def _proba_columns(estimator, X, classes):
    """``estimator.predict_proba(X)`` re-ordered to ``classes`` (0 for absent classes)."""
    proba = estimator.predict_proba(X)
    out = np.zeros((proba.shape[0], len(classes)))
    pos = {c: i for i, c in enumerate(classes)}
    for j, c in enumerate(estimator.classes_):
        out[:, pos[c]] = proba[:, j]
    return out


def flat_decision_scores(proba, majority_idx, beta, delta):
    """Scores of the flat rule: ``P(D_k|x)`` and ``beta P(H|x) - Delta`` in the H column."""
    scores = np.array(proba, dtype=np.float64, copy=True)
    scores[:, majority_idx] = beta * proba[:, majority_idx] - delta
    return scores


def _rows(X, rows):
    """Rows of any X the stages accept (sparse formats without row indexing go via CSR)."""
    if sp.issparse(X) and X.format not in ("csr", "csc"):
        X = X.tocsr()
    return _safe_indexing(X, rows)


def _check_2d(X):
    shape = getattr(X, "shape", None)
    ndim = len(shape) if shape is not None else np.asarray(X).ndim
    if ndim != 2:
        raise ValueError(
            f"X must be 2-D (n_samples, n_features); got {ndim} dimension(s). Reshape "
            "your data with X.reshape(-1, 1) for a single feature or X.reshape(1, -1) for a "
            "single sample."
        )


def _default_kernel_model(random_state, n_features):
    # gamma fixed from the number of inputs (the inputs are standardised) rather than
    # "scale": the variance behind "scale" would ignore case weights
    return make_kernel_logistic_regression(
        gamma=1.0 / max(n_features, 1), random_state=random_state
    )


def _accepts_sparse(estimator):
    try:
        return bool(get_tags(estimator).input_tags.sparse)
    except (AttributeError, TypeError, ValueError):
        return False


class _MinorityGroupsMixin:
    """Shared checks: parameters, costs, ``y`` and weights at fit; ``X`` when scoring."""

    def _start_fit(self, X, y, sample_weight):
        """Check the parameters, the costs, ``X``, ``y`` and the weights, and set
        ``classes_`` and ``majority_class_``. Returns ``(params, y, majority_idx,
        sample_weight)``, ``params`` those of :func:`hierarchical_cost_parameters`."""
        self._validate_params()
        params = hierarchical_cost_parameters(self.cost_hd, self.cost_dh, self.cost_dd)
        y, classes, majority_idx, sample_weight = self._check_target(X, y, sample_weight)
        self.classes_ = classes
        self.majority_class_ = classes[majority_idx]
        return params, y, majority_idx, sample_weight

    def _check_scoring_X(self, X):
        """Check that the model is fitted and ``X`` has the features seen in ``fit``."""
        check_is_fitted(self)
        _check_2d(X)
        validate_data(self, X, reset=False, skip_check_array=True)

    def _majority_index(self):
        return int(np.flatnonzero(self.classes_ == self.majority_class_)[0])

    def _check_target(self, X, y, sample_weight):
        _check_2d(X)
        check_fit_inputs(X, y, sample_weight)
        validate_data(self, X, skip_check_array=True)
        if y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None"
            )
        y = column_or_1d(y, warn=True)
        classes, y_idx = class_codes(y)
        if sample_weight is not None:
            sample_weight = _check_sample_weight(
                sample_weight, np.empty((y.shape[0], 0)), ensure_non_negative=True
            )
        counts = np.bincount(y_idx, weights=sample_weight, minlength=classes.shape[0]).astype(
            np.float64
        )
        if self.majority_class is None:
            majority_idx = int(np.argmax(counts))
        else:
            hits = np.flatnonzero(classes == self.majority_class)
            if hits.size != 1:
                raise ValueError(
                    f"majority_class must be one of the classes {classes.tolist()}; "
                    f"got {self.majority_class!r}"
                )
            majority_idx = int(hits[0])
        return y, classes, majority_idx, sample_weight


class FlatCostSensitiveClassifier(_MinorityGroupsMixin, ClassifierMixin, BaseEstimator):
    """Cost-sensitive decisions between minority groups and one majority group (flat rule).

    A probabilistic classifier estimates ``P(D_1|x) .. P(D_K|x)`` and ``P(H|x)``; the
    decision is the largest of ``P(D_k|x)`` and ``beta P(H|x) - Delta`` (see
    :func:`hierarchical_cost_parameters`), which is the decision of least expected cost
    for the costs ``C_HD``, ``C_DH`` and ``C_DD``. Training is cost-blind.

    Parameters
    ----------
    estimator : classifier with predict_proba, default=None
        The probabilistic classifier (cloned). None: a kernel logistic regression,
        :func:`make_kernel_logistic_regression` with ``gamma = 1 / n_features`` (on the
        standardised inputs), seeded with ``random_state``.
    majority_class : label, default=None
        The majority group ``H``. None: the class with the largest (weighted) count in
        the training data (the first in sorted order on ties).
    cost_hd, cost_dh, cost_dd : float, default=1.0
        ``C_HD`` (majority decided as minority), ``C_DH`` (minority decided as majority)
        and ``C_DD`` (wrong minority group); all positive. With all three equal the rule
        is the most probable class.
    random_state : int, RandomState instance or None, default=None
        Seed of the default estimator (ignored when ``estimator`` is given).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    majority_class_ : label
    estimator_ : classifier
        The fitted probabilistic classifier.
    beta_, delta_ : float
        ``beta`` and ``Delta`` of the flat rule.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` has string column names.

    See Also
    --------
    HierarchicalCostSensitiveClassifier : the two-stage version; the module notes say
        when both decide alike.

    Examples
    --------
    >>> from sklearn.datasets import make_blobs
    >>> from dtdecide.models import FlatCostSensitiveClassifier
    >>> X, y = make_blobs([300, 40, 40], centers=[[0, 0], [2, 0], [0, 2]], random_state=0)
    >>> model = FlatCostSensitiveClassifier(cost_dh=10, random_state=0).fit(X, y)
    >>> int(model.majority_class_), model.beta_, model.delta_
    (0, 10.0, 9.0)
    >>> plain = FlatCostSensitiveClassifier(random_state=0).fit(X, y)
    >>> bool((model.predict(X) != 0).sum() > (plain.predict(X) != 0).sum())
    True
    >>> new = [[0, 0], [1.5, 0], [0, 3]]
    >>> model.predict_proba(new).round(2)
    array([[0.95, 0.03, 0.03],
           [0.65, 0.31, 0.04],
           [0.17, 0.04, 0.79]])
    >>> model.cost_sensitive_scores(new).round(2)   # the largest score wins
    array([[ 0.45,  0.03,  0.03],
           [-2.47,  0.31,  0.04],
           [-7.29,  0.04,  0.79]])
    >>> model.predict(new)
    array([0, 1, 2])
    """

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "predict_proba"]), None],
        "majority_class": "no_validation",
        "cost_hd": [Interval(Real, 0, None, closed="neither")],
        "cost_dh": [Interval(Real, 0, None, closed="neither")],
        "cost_dd": [Interval(Real, 0, None, closed="neither")],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        estimator=None,
        *,
        majority_class=None,
        cost_hd=1.0,
        cost_dh=1.0,
        cost_dd=1.0,
        random_state=None,
    ):
        self.estimator = estimator
        self.majority_class = majority_class
        self.cost_hd = cost_hd
        self.cost_dh = cost_dh
        self.cost_dd = cost_dd
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = self.estimator is not None and _accepts_sparse(self.estimator)
        return tags

    def fit(self, X, y, sample_weight=None):
        """Fit the probabilistic classifier.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Anything the estimator accepts.
        y : array-like of shape (n_samples,)
            Target labels: the majority class and the minority groups.
            At most 1,000 classes, and more than 100 only with two cases a class or
            more (ValueError otherwise: a numeric target given as labels).
        sample_weight : array-like of shape (n_samples,), optional
            Passed to the estimator (to every pipeline step that accepts it).

        Returns
        -------
        self : FlatCostSensitiveClassifier
            The fitted estimator.
        """
        params = self._start_fit(X, y, sample_weight)[0]
        self.beta_, self.delta_ = params.beta, params.delta
        base = (
            _default_kernel_model(self.random_state, self.n_features_in_)
            if self.estimator is None
            else clone(self.estimator)
        )
        self.estimator_ = _fit_weighted(base, X, y, sample_weight)
        return self

    def predict_proba(self, X):
        """Posteriors of the estimator, columns in the order of ``classes_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs, with the columns (names and types) seen in ``fit``.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Cost-blind posterior of every class, columns in the order of ``classes_``.
        """
        self._check_scoring_X(X)
        return _proba_columns(self.estimator_, X, self.classes_)

    def cost_sensitive_scores(self, X):
        """Scores of the flat rule, columns in the order of ``classes_``.

        ``P(D_k|x)`` in the minority columns and ``beta P(H|x) - Delta`` in the
        majority column; :meth:`predict` takes the largest.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs, with the columns (names and types) seen in ``fit``.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            The score compared across classes: ``P(D_k|x)`` for a minority
            class, ``beta P(H|x) - Delta`` for the majority class.
        """
        proba = self.predict_proba(X)
        return flat_decision_scores(proba, self._majority_index(), self.beta_, self.delta_)

    def predict(self, X):
        """Decision of least expected cost (ties: the first in ``classes_``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs, with the columns (names and types) seen in ``fit``.

        Returns
        -------
        ndarray of shape (n_samples,)
            The class with the highest cost-sensitive score.
        """
        scores = self.cost_sensitive_scores(X)
        return self.classes_[np.argmax(scores, axis=1)]


class HierarchicalCostSensitiveClassifier(_MinorityGroupsMixin, ClassifierMixin, BaseEstimator):
    """Two-stage cost-sensitive classifier: minority versus majority, then which minority.

    Stage 1 is a binary model of ``P(D|x)`` (any minority group versus the majority
    group ``H``); a case goes to the minority when ``P(D|x) >= p*`` with
    ``p* = C_HD / (C_HD + C_DH)``. Stage 2 is a cost-blind multiclass model trained on
    the minority cases only; it picks the most probable minority group.

    With ``benefit_weighted=True`` stage 1 is a
    :class:`BenefitWeightedLogisticRegression` whose benefit matrix is
    ``[[0, -C_HD], [-C_DH, 0]]`` (class 0 = ``H``, class 1 = minority), i.e. its loss
    weights majority cases by ``eta = C_HD / C_DH``; the costs are then already in the
    training and a case goes to the minority when the weighted model's ``P(D|x) >= 0.5``.

    Parameters
    ----------
    binary_estimator : classifier with predict_proba, default=None
        Stage 1 model (cloned), trained on ``y != majority_class``. None: a kernel
        logistic regression (:func:`make_kernel_logistic_regression` with
        ``gamma = 1 / n_features``, seeded with ``random_state``), or with
        ``benefit_weighted=True`` a default :class:`BenefitWeightedLogisticRegression`.
        With ``benefit_weighted=True`` only a ``BenefitWeightedLogisticRegression`` is
        accepted (its ``benefit_matrix`` is replaced by the one built from the costs).
    minority_estimator : classifier, default=None
        Stage 2 model (cloned), trained on the minority cases; needs ``predict`` and,
        for :meth:`predict_proba`, ``predict_proba``. None: a kernel logistic regression,
        or a plain :class:`~sklearn.linear_model.LogisticRegression` with
        ``benefit_weighted=True`` (as in the source document). Not fitted when there is a
        single minority group.
    majority_class : label, default=None
        The majority group ``H``; None: the most frequent (weighted) class.
    cost_hd, cost_dh, cost_dd : float, default=1.0
        Positive costs ``C_HD``, ``C_DH``, ``C_DD``. ``C_DD`` does not enter the
        hierarchical rule; it is kept to report ``beta_`` and ``delta_`` of the flat
        equivalent.
    benefit_weighted : bool, default=False
        Use the benefit-weighted logistic regression for stage 1.
    random_state : int, RandomState instance or None, default=None
        Seed of the default kernel models (ignored for estimators given explicitly).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    majority_class_ : label
    minority_classes_ : ndarray
        The minority groups, in the order of ``classes_``.
    binary_estimator_ : classifier
        Fitted stage 1 model (classes ``False``/``True`` = majority/minority).
    minority_estimator_ : classifier or None
        Fitted stage 2 model; None with a single minority group.
    threshold_ : float
        Stage 1 threshold on ``P(D|x)``: ``p*``, or 0.5 when ``benefit_weighted``.
    p_star_, beta_, delta_ : float
        ``p*`` and the flat rule's ``beta`` and ``Delta`` for these costs.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` has string column names.

    Notes
    -----
    :meth:`predict_proba` combines both stages, ``P(H|x) = 1 - P(D|x)`` and
    ``P(D_k|x) = P(D|x) P(D_k|x, D)``; :meth:`predict` is cost-sensitive and need not be
    its most probable class. With the same posteriors both rules choose the most
    probable minority group when they choose one; the user guide's section *Minority
    groups: flat and hierarchical rules* (``docs/guide/models.rst``) spells out when
    they agree on choosing one at all.

    Examples
    --------
    >>> from sklearn.datasets import make_blobs
    >>> from dtdecide.models import HierarchicalCostSensitiveClassifier
    >>> X, y = make_blobs([300, 40, 40], centers=[[0, 0], [2, 0], [0, 2]], random_state=0)
    >>> model = HierarchicalCostSensitiveClassifier(cost_dh=9, random_state=0).fit(X, y)
    >>> model.minority_classes_, round(float(model.threshold_), 6)
    (array([1, 2]), 0.1)
    >>> bw = HierarchicalCostSensitiveClassifier(cost_dh=9, benefit_weighted=True).fit(X, y)
    >>> bw.binary_estimator_.eta_
    array([0.11111111])
    >>> new = [[0, 0], [1.5, 0], [0, 3]]
    >>> model.predict_proba(new).round(2)
    array([[0.94, 0.03, 0.03],
           [0.65, 0.3 , 0.05],
           [0.22, 0.07, 0.71]])
    >>> model.predict(new)          # stage 1 sends a case to the minority at P(D|x) >= 0.1
    array([0, 1, 2])
    """

    _parameter_constraints = {
        "binary_estimator": [HasMethods(["fit", "predict_proba"]), None],
        "minority_estimator": [HasMethods(["fit", "predict"]), None],
        "majority_class": "no_validation",
        "cost_hd": [Interval(Real, 0, None, closed="neither")],
        "cost_dh": [Interval(Real, 0, None, closed="neither")],
        "cost_dd": [Interval(Real, 0, None, closed="neither")],
        "benefit_weighted": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        binary_estimator=None,
        minority_estimator=None,
        *,
        majority_class=None,
        cost_hd=1.0,
        cost_dh=1.0,
        cost_dd=1.0,
        benefit_weighted=False,
        random_state=None,
    ):
        self.binary_estimator = binary_estimator
        self.minority_estimator = minority_estimator
        self.majority_class = majority_class
        self.cost_hd = cost_hd
        self.cost_dh = cost_dh
        self.cost_dd = cost_dd
        self.benefit_weighted = benefit_weighted
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # the default kernel models standardise (centre) their inputs: dense only
        one = self.binary_estimator
        two = self.minority_estimator
        tags.input_tags.sparse = (
            (one is not None or self.benefit_weighted)
            and (two is not None or self.benefit_weighted)
            and (one is None or _accepts_sparse(one))
            and (two is None or _accepts_sparse(two))
        )
        return tags

    def _stage_one(self):
        if not self.benefit_weighted:
            if self.binary_estimator is None:
                return _default_kernel_model(self.random_state, self.n_features_in_)
            return clone(self.binary_estimator)
        if self.binary_estimator is None:
            base = BenefitWeightedLogisticRegression(max_iter=1000)
        elif isinstance(self.binary_estimator, BenefitWeightedLogisticRegression):
            base = clone(self.binary_estimator)
        else:
            raise TypeError(
                "binary_estimator must be None or a BenefitWeightedLogisticRegression when "
                f"benefit_weighted=True; got {type(self.binary_estimator).__name__}"
            )
        return base.set_params(benefit_matrix=[[0.0, -self.cost_hd], [-self.cost_dh, 0.0]])

    def _stage_two(self):
        if self.minority_estimator is not None:
            return clone(self.minority_estimator)
        if self.benefit_weighted:
            return LogisticRegression(max_iter=1000)
        return _default_kernel_model(self.random_state, self.n_features_in_)

    def fit(self, X, y, sample_weight=None):
        """Fit stage 1 on all cases and stage 2 on the minority cases.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Anything the estimators accept.
        y : array-like of shape (n_samples,)
            Target labels: the majority class and the minority groups.
            At most 1,000 classes, and more than 100 only with two cases a class or
            more (ValueError otherwise: a numeric target given as labels).
        sample_weight : array-like of shape (n_samples,), optional
            Passed to both stages (to every pipeline step that accepts it).

        Returns
        -------
        self : HierarchicalCostSensitiveClassifier
            The fitted estimator.
        """
        params, y, majority_idx, sample_weight = self._start_fit(X, y, sample_weight)
        self.minority_classes_ = np.delete(self.classes_, majority_idx)
        self.p_star_, self.beta_, self.delta_ = params.p_star, params.beta, params.delta
        self.threshold_ = 0.5 if self.benefit_weighted else params.p_star

        is_minority = y != self.majority_class_
        self.binary_estimator_ = _fit_weighted(self._stage_one(), X, is_minority, sample_weight)

        if self.minority_classes_.shape[0] == 1:
            self.minority_estimator_ = None
        else:
            rows = np.flatnonzero(is_minority)
            self.minority_estimator_ = _fit_weighted(
                self._stage_two(),
                _rows(X, rows),
                y[rows],
                None if sample_weight is None else sample_weight[rows],
            )
        return self

    def _minority_probability(self, X):
        self._check_scoring_X(X)
        return _proba_columns(self.binary_estimator_, X, np.array([False, True]))[:, 1]

    def predict_proba(self, X):
        """Posteriors combined from both stages, columns in the order of ``classes_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs, with the columns (names and types) seen in ``fit``.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Posterior of every class combined from the two stages, columns
            in the order of ``classes_``.
        """
        p_minority = self._minority_probability(X)
        out = np.zeros((p_minority.shape[0], self.classes_.shape[0]))
        out[:, self._majority_index()] = 1.0 - p_minority
        minority_pos = np.flatnonzero(self.classes_ != self.majority_class_)
        if self.minority_estimator_ is None:
            out[:, minority_pos[0]] = p_minority
        else:
            within = _proba_columns(self.minority_estimator_, X, self.minority_classes_)
            out[:, minority_pos] = p_minority[:, None] * within
        return out

    def predict(self, X):
        """Majority group unless ``P(D|x)`` reaches the threshold, then the stage 2 class.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Inputs, with the columns (names and types) seen in ``fit``.

        Returns
        -------
        ndarray of shape (n_samples,)
            The majority class, or the minority group chosen by the second stage.
        """
        p_minority = self._minority_probability(X)
        to_minority = p_minority >= self.threshold_
        pred = np.full(p_minority.shape[0], self.majority_class_, dtype=self.classes_.dtype)
        if self.minority_estimator_ is None:
            pred[to_minority] = self.minority_classes_[0]
        elif to_minority.any():
            rows = np.flatnonzero(to_minority)
            pred[rows] = self.minority_estimator_.predict(_rows(X, rows))
        return pred
