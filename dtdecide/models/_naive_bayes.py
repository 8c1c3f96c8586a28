"""Cost-sensitive naive Bayes over categorical (and discretised continuous) attributes."""

from numbers import Integral, Real

import numpy as np
import pandas as pd
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from ..decision import DecisionMatrix
from ..decision._kernels import decide_arrays
from ._benefit import check_priors, choose_priors, class_matrix, matrix_values
from ._targets import check_fit_inputs, class_codes

__all__ = ["CostSensitiveNaiveBayes"]


def check_cost_matrix(cost_matrix, classes, *, name="cost_matrix"):
    """Validate a cost matrix ``V[q, k]`` (actual ``q``, predicted ``k``) for ``classes``."""
    classes = np.asarray(classes)
    n = classes.shape[0]
    values = matrix_values(cost_matrix, classes, name)
    if values.shape != (n, n):
        raise ValueError(
            f"{name} must have one row (actual) and one column (predicted) per class "
            f"({n} classes: {classes.tolist()}); got shape {values.shape}"
        )
    if not np.all(np.isfinite(values)):
        raise ValueError(f"{name} must hold finite numbers; got {values.tolist()}")
    return values


def _min_expected_cost_class(log_post, cost):
    """Index of ``argmin_k sum_q V[q, k] p_q``, computed from log posteriors.

    Adding a constant to a row of ``V`` (one actual class) adds the same amount to the
    expected cost of every prediction, so each row is shifted to a minimum of 0; the
    shifted costs are non-negative and the expected costs are compared through
    ``log sum_q exp(log p_q + log V'[q, k])``: no posterior is ever exponentiated
    on its own, so long products of likelihoods cannot underflow the comparison. The
    decision engine's kernel (:func:`dtdecide.decision.decide_arrays`, first best on
    ties) picks the best of these monotone transforms of minus the expected cost.
    """
    shifted = cost - cost.min(axis=1, keepdims=True)
    with np.errstate(divide="ignore"):
        log_cost = np.log(shifted)  # (K_actual, K_pred), -inf where 0
    terms = log_post[:, :, None] + log_cost[None, :, :]  # (n, q, k)
    with np.errstate(divide="ignore"):  # rows that are all -inf give -inf
        log_expected = logsumexp(terms, axis=1)  # (n, k)
    return decide_arrays(-log_expected)[0]


class CostSensitiveNaiveBayes(ClassifierMixin, BaseEstimator):
    """Naive Bayes that predicts the class of least expected cost.

    Attributes are categorical; continuous attributes are first cut into ``n_bins``
    quantile bins learnt on the training data. Likelihoods are Laplace smoothed,

    ``p(x_j = v | C_q) = (n_{q,j,v} + alpha) / (n_q + alpha * n_categories_j)``,

    and the prediction is ``argmin_k sum_q V[q, k] p(C_q | x)`` with
    ``p(C_q | x) ∝ p(C_q) prod_j p(x_j | C_q)``. Everything is computed in log space
    (log-sum-exp), so hundreds of attributes do not underflow. With 0/1 costs the
    prediction is the most probable class: plain naive Bayes.

    Parameters
    ----------
    cost_matrix : array-like of shape (n_classes, n_classes) or DecisionMatrix, \
default=None
        ``V[q, k]``: cost of predicting class ``k`` for a case of class ``q``; rows and
        columns in the order of ``classes_`` (or a DataFrame labelled by the classes).
        Any finite numbers (a negative cost is a benefit). None: 0 on the diagonal,
        1 elsewhere. A class-level :class:`~dtdecide.DecisionMatrix` (loss, or profit
        taken negated; levels the classes, decisions named by the class labels) is read
        by label, and its priors, if any, are the priors.
    alpha : float, default=1.0
        Laplace (additive) smoothing; must be positive.
    n_bins : int, default=5
        Number of quantile bins for each continuous attribute (fewer when the attribute
        has fewer distinct values).
    categorical_features : "all", array-like of int, str or bool, default=None
        Which columns are categorical (used as they are). None: the columns of a
        DataFrame whose dtype is not numeric (object, string, category, bool); for an
        array, none. All other columns are treated as continuous and discretised.
    priors : array-like of shape (n_classes,), default=None
        Class priors ``p(C_q)``; None: the priors of a ``DecisionMatrix``
        ``cost_matrix``, else the weighted class proportions of the training data.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    cost_matrix_ : ndarray of shape (n_classes, n_classes)
        The validated cost matrix (in the order of ``classes_``).
    decision_matrix_ : DecisionMatrix or None
        ``cost_matrix`` when it is a DecisionMatrix: :func:`dtdecide.decide` on
        ``predict_proba`` with it decides as :meth:`predict` (decision labels instead
        of classes) and gives the case table and summary.
    class_count_ : ndarray of shape (n_classes,)
        Weighted number of training cases per class.
    class_log_prior_ : ndarray of shape (n_classes,)
    is_categorical_ : ndarray of bool, shape (n_features,)
    categories_ : list
        Per attribute: the category labels (categorical) or None (continuous).
    bin_edges_ : list
        Per attribute: the inner bin edges (continuous; ``x < edges[0]`` is bin 0,
        ``edges[b-1] <= x < edges[b]`` is bin ``b``) or None (categorical).
    n_categories_ : ndarray of int, shape (n_features,)
    category_count_ : list of ndarray of shape (n_classes, n_categories_j)
        Weighted counts ``n_{q,j,v}``.
    feature_log_prob_ : list of ndarray of shape (n_classes, n_categories_j)
        Smoothed ``log p(x_j = v | C_q)``.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` has string column names.

    Notes
    -----
    A category not seen in training (for that attribute) carries no information and is
    left out of the product for every class alike. Missing values (NaN, None) are
    rejected: encode them as a category of their own first if they mean something.
    ``predict_proba`` returns the cost-blind posteriors; :meth:`expected_cost` the
    expected cost of each prediction.

    Examples
    --------
    >>> import pandas as pd
    >>> from dtdecide.models import CostSensitiveNaiveBayes
    >>> X = pd.DataFrame({"colour": ["red", "red", "blue", "blue", "red", "blue"]})
    >>> y = ["no", "no", "no", "yes", "yes", "yes"]
    >>> plain = CostSensitiveNaiveBayes().fit(X, y)
    >>> plain.predict(pd.DataFrame({"colour": ["red", "blue"]}))
    array(['no', 'yes'], dtype='<U3')
    >>> # missing a "yes" costs 5, a false "yes" costs 1
    >>> costly = CostSensitiveNaiveBayes(cost_matrix=[[0, 1], [5, 0]]).fit(X, y)
    >>> costly.predict(pd.DataFrame({"colour": ["red", "blue"]}))
    array(['yes', 'yes'], dtype='<U3')

    The methods on new cases, one with a colour training never saw (code -1, no
    information: the priors alone):

    >>> new = pd.DataFrame({"colour": ["red", "blue", "green"]})
    >>> costly.transform_codes(new).ravel().tolist()
    [1, 0, -1]
    >>> costly.predict_joint_log_proba(new).round(3)
    array([[-1.204, -1.609],
           [-1.609, -1.204],
           [-0.693, -0.693]])
    >>> costly.predict_proba(new).round(3)
    array([[0.6, 0.4],
           [0.4, 0.6],
           [0.5, 0.5]])
    >>> costly.expected_cost(new).round(3)     # columns: predict "no", predict "yes"
    array([[2. , 0.6],
           [3. , 0.4],
           [2.5, 0.5]])
    """

    _parameter_constraints = {
        "cost_matrix": ["array-like", DecisionMatrix, None],
        "alpha": [Interval(Real, 0, None, closed="neither")],
        "n_bins": [Interval(Integral, 2, None, closed="left")],
        "categorical_features": [StrOptions({"all"}), "array-like", None],
        "priors": ["array-like", None],
    }

    def __init__(
        self, cost_matrix=None, *, alpha=1.0, n_bins=5, categorical_features=None, priors=None
    ):
        self.cost_matrix = cost_matrix
        self.alpha = alpha
        self.n_bins = n_bins
        self.categorical_features = categorical_features
        self.priors = priors

    # ------------------------------------------------------------------ encoding
    def _categorical_mask(self, X, n_features):
        spec = self.categorical_features
        names = list(X.columns) if isinstance(X, pd.DataFrame) else None
        if spec is None:
            if names is None:
                return np.zeros(n_features, dtype=bool)
            return np.array(
                [
                    pd.api.types.is_bool_dtype(dt) or not pd.api.types.is_numeric_dtype(dt)
                    for dt in X.dtypes
                ]
            )
        if isinstance(spec, str) and spec == "all":
            return np.ones(n_features, dtype=bool)
        if isinstance(spec, (str, bytes)):
            raise TypeError(
                "categorical_features must be 'all', a boolean mask or a list of column "
                f"names or indices; got the string {spec!r} (wrap a single name in a list)"
            )
        spec = np.asarray(spec)
        if spec.dtype == bool:
            if spec.shape != (n_features,):
                raise ValueError(
                    f"categorical_features as a boolean mask must have {n_features} entries; "
                    f"got {spec.shape[0]}"
                )
            return spec.copy()
        mask = np.zeros(n_features, dtype=bool)
        for item in spec.tolist():
            if isinstance(item, str):
                if names is None or item not in names:
                    raise ValueError(
                        f"categorical_features names column {item!r}, which X does not have"
                    )
                mask[names.index(item)] = True
            elif (isinstance(item, Integral) and not isinstance(item, bool)
                  and 0 <= item < n_features):
                mask[item] = True
            else:
                raise ValueError(
                    f"categorical_features must hold column indices in [0, {n_features}) "
                    f"or column names; got {item!r}"
                )
        return mask

    def _validate_X(self, X, reset, y="no_validation"):
        if reset:
            n_features = X.shape[1] if hasattr(X, "shape") and len(X.shape) == 2 else None
            if n_features is None:
                n_features = np.asarray(X, dtype=object).shape[-1]
            mask = self._categorical_mask(X, n_features)
        else:
            mask = self.is_categorical_
        has_y = not (isinstance(y, str) and y == "no_validation")
        kwargs = {"y": y} if has_y else {}
        if not mask.any():
            try:
                out = validate_data(self, X, reset=reset, dtype=np.float64, **kwargs)
            except ValueError as exc:
                if "could not convert" not in str(exc):
                    raise
                raise ValueError(
                    "X holds non-numeric values in columns treated as continuous; list "
                    f"them in categorical_features ({exc})"
                ) from exc
        else:
            out = validate_data(self, X, reset=reset, dtype=None, ensure_all_finite=False, **kwargs)
        Xv = out[0] if has_y else out
        if mask.shape[0] != Xv.shape[1]:
            raise ValueError(
                f"categorical_features describes {mask.shape[0]} columns but X has {Xv.shape[1]}"
            )
        columns = []
        for j in range(Xv.shape[1]):
            col = Xv[:, j]
            if mask[j]:
                if pd.isna(col).any():
                    raise ValueError(
                        f"X column {j} (categorical) contains missing values; encode them "
                        "as a category of their own"
                    )
                columns.append(col)
            else:
                try:
                    col = col.astype(np.float64)
                except (TypeError, ValueError) as exc:
                    raise ValueError(
                        f"X column {j} is treated as continuous but holds non-numeric values; "
                        "list it in categorical_features"
                    ) from exc
                if not np.all(np.isfinite(col)):
                    raise ValueError(f"Input X contains NaN or infinity in continuous column {j}")
                columns.append(col)
        return (columns, mask, out[1]) if has_y else columns

    def _encode(self, columns):
        """Integer codes (n_samples, n_features); -1 for a category unseen in training."""
        n = columns[0].shape[0] if columns else 0
        codes = np.empty((n, len(columns)), dtype=np.intp)
        for j, col in enumerate(columns):
            if self.is_categorical_[j]:
                codes[:, j] = pd.Index(self.categories_[j]).get_indexer(pd.Index(col))
            else:
                codes[:, j] = np.searchsorted(self.bin_edges_[j], col, side="right")
        return codes

    # ------------------------------------------------------------------ fit
    def fit(self, X, y, sample_weight=None):
        """Learn bins, categories and smoothed likelihoods.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Inputs: categorical columns as they are, numeric ones
            discretized into ``n_bins`` bins.
        y : array-like of shape (n_samples,)
            Target labels.
            At most 1,000 classes, and more than 100 only with two cases a class or
            more (ValueError otherwise: a numeric target given as labels).
        sample_weight : array-like of shape (n_samples,), optional
            Case weights (frequencies) used in every count.

        Returns
        -------
        self : CostSensitiveNaiveBayes
            The fitted estimator.
        """
        self._validate_params()
        check_fit_inputs(X, y, sample_weight)
        columns, mask, y = self._validate_X(X, reset=True, y=y)
        self.is_categorical_ = mask
        self.classes_, y_idx = class_codes(y)
        n_classes = self.classes_.shape[0]
        weight = _check_sample_weight(
            sample_weight, columns[0][:, None], dtype=np.float64, ensure_non_negative=True
        )
        self.decision_matrix_ = None
        given_priors = self.priors
        if self.cost_matrix is None:
            self.cost_matrix_ = 1.0 - np.eye(n_classes)
        elif isinstance(self.cost_matrix, DecisionMatrix):
            self.decision_matrix_ = self.cost_matrix
            profit, m_priors = class_matrix(self.cost_matrix, self.classes_,
                                            name="cost_matrix")
            self.cost_matrix_ = check_cost_matrix(-profit, self.classes_)
            given_priors = choose_priors(self.priors, m_priors, name="cost_matrix")
        else:
            self.cost_matrix_ = check_cost_matrix(self.cost_matrix, self.classes_)
        self.class_count_ = np.bincount(y_idx, weights=weight, minlength=n_classes)
        if self.class_count_.sum() <= 0:
            raise ValueError("sample_weight must not be all zero")
        if given_priors is None:
            prior = self.class_count_ / self.class_count_.sum()
        else:
            prior = check_priors(given_priors, n_classes, classes=self.classes_)
        with np.errstate(divide="ignore"):
            self.class_log_prior_ = np.log(prior)

        self.categories_, self.bin_edges_ = [], []
        present = weight > 0  # a zero-weight case must count as no case at all
        for j, col in enumerate(columns):
            if mask[j]:
                cats = pd.Index(pd.unique(col[present]))
                try:
                    cats = cats.sort_values()
                except TypeError:  # mixed types: keep order of appearance
                    pass
                self.categories_.append(cats.to_numpy())
                self.bin_edges_.append(None)
            else:
                self.categories_.append(None)
                self.bin_edges_.append(self._bin_edges(col[present], weight[present]))
        codes = self._encode(columns)
        self.n_categories_ = np.array(
            [
                len(c) if m else len(e) + 1
                for c, e, m in zip(self.categories_, self.bin_edges_, mask)
            ],
            dtype=np.intp,
        )
        self.category_count_, self.feature_log_prob_ = [], []
        for j in range(codes.shape[1]):
            m = self.n_categories_[j]
            count = np.bincount(
                y_idx * m + codes[:, j], weights=weight, minlength=n_classes * m
            ).reshape(n_classes, m)
            smoothed = count + self.alpha
            self.category_count_.append(count)
            self.feature_log_prob_.append(
                np.log(smoothed) - np.log(smoothed.sum(axis=1, keepdims=True))
            )
        return self

    def _bin_edges(self, col, weight):
        """Inner edges at the weighted quantiles (observed values, inverted CDF).

        A case of weight 2 counts exactly as two copies of it, so bins do not depend on
        whether frequencies are given as weights or as repeated rows.
        """
        quantiles = np.linspace(0.0, 1.0, self.n_bins + 1)[1:-1]
        order = np.argsort(col, kind="stable")
        values, cum = col[order], np.cumsum(weight[order])
        pos = np.searchsorted(cum, quantiles * cum[-1], side="left")
        edges = np.unique(values[np.minimum(pos, values.shape[0] - 1)])
        return edges[edges > values[0]]  # an edge at the minimum would leave bin 0 empty

    # ------------------------------------------------------------------ predict
    def transform_codes(self, X):
        """Category / bin code of every attribute, as used by the likelihoods.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Inputs, with the columns (names and types) seen in ``fit``.

        Returns
        -------
        ndarray of int, shape (n_samples, n_features)
            -1 marks a category unseen in training.
        """
        check_is_fitted(self)
        return self._encode(self._validate_X(X, reset=False))

    def predict_joint_log_proba(self, X):
        """``log p(C_q) + sum_j log p(x_j | C_q)`` for every class.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Inputs, with the columns (names and types) seen in ``fit``.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Unnormalised joint log-likelihood of every case and class.
        """
        codes = self.transform_codes(X)
        jll = np.tile(self.class_log_prior_, (codes.shape[0], 1))
        for j, flp in enumerate(self.feature_log_prob_):
            seen = codes[:, j] >= 0
            jll[seen] += flp[:, codes[seen, j]].T
        return jll

    def predict_log_proba(self, X):
        """Log posteriors ``log p(C_q | x)``, columns in the order of ``classes_``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Inputs, encoded as in training (unseen categories contribute nothing).

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Normalised log posteriors (each row's exponentials sum to 1).
        """
        jll = self.predict_joint_log_proba(X)
        with np.errstate(divide="ignore"):
            return jll - logsumexp(jll, axis=1)[:, None]

    def predict_proba(self, X):
        """Posteriors ``p(C_q | x)`` (cost-blind), columns in the order of ``classes_``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Inputs, with the columns (names and types) seen in ``fit``.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Posterior of every class (rows sum to 1).
        """
        return np.exp(self.predict_log_proba(X))

    def expected_cost(self, X):
        """Expected cost ``F(C_k) = sum_q V[q, k] p(C_q | x)`` of each prediction.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Inputs, with the columns (names and types) seen in ``fit``.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Expected cost of predicting each class, columns in the order of ``classes_``.
        """
        return self.predict_proba(X) @ self.cost_matrix_

    def predict(self, X):
        """Class of least expected cost (ties: the first in ``classes_``).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Inputs, with the columns (names and types) seen in ``fit``.

        Returns
        -------
        ndarray of shape (n_samples,)
            The class of least expected cost for every case.
        """
        idx = _min_expected_cost_class(self.predict_log_proba(X), self.cost_matrix_)
        return self.classes_[idx]
