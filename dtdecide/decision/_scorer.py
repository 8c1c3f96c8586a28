"""A scikit-learn scorer that measures the average profit of a model's decisions."""

import inspect

import numpy as np
import pandas as pd
from sklearn.utils.metadata_routing import (
    MetadataRequest,
    _MetadataRequester,
    _routing_enabled,
)

from ._engine import decide
from ._estimator import model_posteriors
from ._matrix import DecisionMatrix
from ._validation import check_per_case

__all__ = ["make_profit_scorer"]

_UNCHANGED = object()


class ProfitScorer(_MetadataRequester):
    """Scorer returning the average profit (or minus the average loss) of decisions.

    Made by :func:`make_profit_scorer`; call it as ``scorer(estimator, X, y)``.
    """

    def __init__(self, matrix, *, train_priors=None, threshold=None):
        self.matrix = matrix
        self.train_priors = train_priors
        self.threshold = threshold
        self._requests = {"costs": None, "sample_weight": None, "decision_costs": None}

    def set_score_request(self, *, costs=_UNCHANGED, sample_weight=_UNCHANGED,
                          decision_costs=_UNCHANGED):
        """Request metadata for scoring (needs metadata routing enabled).

        Parameters
        ----------
        costs : bool, str or None
            ``True`` to receive the case costs passed as ``costs`` (or an alias).
        sample_weight : bool, str or None
            ``True`` to weight cases by ``sample_weight``.
        decision_costs : bool, str or None
            ``True`` to receive the costs to decide with, passed as
            ``decision_costs`` (e.g. ``mean_costs(training costs)``).

        Returns
        -------
        self
        """
        if not _routing_enabled():
            raise RuntimeError(
                "set_score_request is only available when metadata routing is enabled: "
                "sklearn.set_config(enable_metadata_routing=True)"
            )
        if costs is not _UNCHANGED:
            self._requests["costs"] = costs
        if sample_weight is not _UNCHANGED:
            self._requests["sample_weight"] = sample_weight
        if decision_costs is not _UNCHANGED:
            self._requests["decision_costs"] = decision_costs
        return self

    def _get_metadata_request(self):
        request = MetadataRequest(owner=self)
        for param, alias in self._requests.items():
            request.score.add_request(param=param, alias=alias)
        return request

    def __call__(self, estimator, X, y_true, costs=None, sample_weight=None,
                 decision_costs=None):
        """Average profit of ``estimator``'s decisions on ``X`` (higher is better).

        Cost columns not passed through ``costs`` are looked up in ``X`` when it is a
        DataFrame. Cases with a missing cost are left out. ``decision_costs`` (the
        costs to decide with; ``costs`` are then the actual ones) is used by models
        deciding case by case; a profit tree decides from its leaves' training costs.
        """
        matrix = self.matrix
        # the indexes are dropped below (a fold of a search keeps its labels): first make
        # sure that they agree
        check_per_case(X, y_true=y_true, costs=costs, sample_weight=sample_weight,
                       decision_costs=decision_costs)
        if costs is None and matrix.cost_variables and isinstance(X, pd.DataFrame) and all(
            c in X.columns for c in matrix.cost_variables
        ):
            costs = X[list(matrix.cost_variables)]
        if isinstance(costs, (pd.DataFrame, pd.Series)):
            costs = costs.reset_index(drop=True)
        if isinstance(decision_costs, pd.DataFrame):
            decision_costs = decision_costs.reset_index(drop=True)
        y = y_true.to_numpy() if isinstance(y_true, (pd.Series, pd.DataFrame)) else y_true
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:
            y = y[:, 0]
        weights = None if sample_weight is None else np.asarray(sample_weight)
        transform, final = _deciding_step(estimator)
        if _decides_itself(final, matrix) and self.threshold is None:
            # A model that decides itself (a profit tree, a DecisionEstimator) is scored
            # with its own decisions by its own rule (a tree: per leaf from its training
            # costs, or per case under decision_rule="case"), also at the end of a
            # Pipeline or inside a search: scoring its posteriors case by case with each
            # case's realised costs would judge decisions the model never makes (and
            # peek at after-the-fact costs).
            if isinstance(X, pd.DataFrame):
                X = X.reset_index(drop=True)
            X = transform(X)
            extra = {}
            if decision_costs is not None and _takes_decision_costs(final):
                extra["decision_costs"] = decision_costs
            res = final.decide(X, y, costs=costs, sample_weight=weights, **extra)
        else:
            post = model_posteriors(estimator, X, matrix)
            res = decide(post, matrix, y=y, costs=costs, decision_costs=decision_costs,
                         sample_weight=weights, train_priors=self.train_priors,
                         threshold=self.threshold)
        word = "loss" if matrix.kind == "loss" else "profit"
        return float(matrix.sign * res.summary[f"average_{word}"])

    def __repr__(self):
        return f"make_profit_scorer({self.matrix!r})"


def _deciding_step(estimator):
    """``(transform, final)``: the model that makes the decisions and what feeds it.

    A fitted search (``best_estimator_``) is unwrapped to its refitted model, a
    ``Pipeline`` to its last step, with ``transform`` running the steps before it;
    anything else is its own final step.
    """
    from sklearn.pipeline import Pipeline

    transform = _identity
    seen = 0
    while seen < 32:  # nested wrappers, never a cycle
        seen += 1
        inner = getattr(estimator, "best_estimator_", None)
        if inner is not None and not callable(getattr(estimator, "decide", None)):
            estimator = inner
            continue
        if isinstance(estimator, Pipeline) and len(estimator.steps) > 0:
            last = estimator.steps[-1][1]
            if last is None or last == "passthrough":
                break
            head = estimator[:-1]
            transform = _chain(transform, head.transform) if len(head.steps) else transform
            estimator = last
            continue
        break
    return transform, estimator


def _identity(X):
    return X


def _chain(first, second):
    return lambda X: second(first(X))


def _decides_itself(estimator, matrix):
    """Whether ``estimator`` makes its own decisions under ``matrix`` (a profit tree)."""
    fitted = getattr(estimator, "decision_matrix_", None)
    return callable(getattr(estimator, "decide", None)) and fitted is not None and fitted == matrix


def _takes_decision_costs(estimator):
    """Whether a deciding model decides case by case (its ``decide`` takes decision costs).

    A profit tree does not: it decides per leaf from its training costs, the very
    thing ``decision_costs`` imitates for other models.
    """
    try:
        return "decision_costs" in inspect.signature(estimator.decide).parameters
    except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
        return False


def make_profit_scorer(matrix, *, train_priors=None, threshold=None):
    """Make a scorer: the average profit of a model's decisions, higher is better.

    The model's ``predict_proba`` columns are matched to the matrix levels through
    its ``classes_`` (a regressor's ``predict`` is used with an interval matrix),
    every case is decided with :func:`decide` and the frequency-weighted average
    computed profit is returned. For a loss matrix the negated average loss is
    returned, so higher is still better.

    Every case is decided as the model will decide it when used, never with costs
    known only afterwards:

    - a model that decides itself under ``matrix`` (a profit tree or a
      :class:`DecisionEstimator` fitted with this matrix) is scored with its own
      ``decide`` under its ``decision_rule``: per leaf from its training costs
      (``"leaf"``), or per case from the leaf posteriors and the case's own costs
      (``"case"``, so that a grid search over ``decision_rule`` compares the rules), whether it is scored alone, as the last step of a
      ``Pipeline`` (the steps before it transform ``X``) or inside ``GridSearchCV``
      and the like (a fitted search is scored with its ``best_estimator_``);
    - any other model's posteriors are decided with :func:`decide` as you would use
      it: with the routed ``decision_costs`` when given, otherwise with ``costs``,
      which must then be known before acting (e.g. a mailing cost per client). When
      the case costs are only known after the action, route ``decision_costs`` too.

    Case costs travel through scikit-learn metadata routing: enable it with
    ``sklearn.set_config(enable_metadata_routing=True)``, call
    ``scorer.set_score_request(costs=True)`` and pass ``costs`` (a DataFrame or dict
    of arrays with the cost columns) as a parameter of ``GridSearchCV.fit``,
    ``cross_validate(params=...)`` and so on. Without routing, cost columns are
    taken from ``X`` when it is a DataFrame that holds them.

    When costs are known only after the action, route the costs to decide with as
    ``decision_costs`` too (``scorer.set_score_request(costs=True,
    decision_costs=True)``; e.g. ``decision_costs=mean_costs(training costs)``, a dict
    of constants that is passed to every fold as is): models that decide case by case
    then decide with them and are scored on the actual ``costs``, as a profit tree
    is (a tree keeps its leaf decisions and ignores ``decision_costs``).

    Parameters
    ----------
    matrix : DecisionMatrix
        The decision matrix (categorical for classifiers, interval for regressors).
    train_priors : array-like of shape (n_levels,), default=None
        Training class proportions, to adjust posteriors to the matrix priors.
    threshold : float, default=None
        Implicit do-nothing threshold, see :func:`decide`.

    Returns
    -------
    scorer : callable
        ``scorer(estimator, X, y, costs=None, sample_weight=None,
        decision_costs=None) -> float``, with ``set_score_request``.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.model_selection import cross_val_score
    >>> from dtdecide import DecisionMatrix, make_profit_scorer
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(300, 2))
    >>> y = (X[:, 0] + rng.normal(size=300) > 1).astype(int)
    >>> m = DecisionMatrix({"mail": [-1, 9], "skip": [0, 0]}, levels=[0, 1])
    >>> scores = cross_val_score(LogisticRegression(), X, y, cv=3,
    ...                          scoring=make_profit_scorer(m))
    >>> scores.shape
    (3,)
    """
    if not isinstance(matrix, DecisionMatrix):
        raise TypeError(f"matrix must be a DecisionMatrix; got {type(matrix).__name__}")
    return ProfitScorer(matrix, train_priors=train_priors, threshold=threshold)
