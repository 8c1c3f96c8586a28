"""Rewards of every decision from a logged campaign (design notes, section 8).

Logged cases ``(x_i, a_i, y_i)``: the inputs, the decision that was taken and the
outcome that followed. For every decision ``d`` the reward ``Gamma[i, d]`` estimates what
case ``i`` would have brought under ``d``:

* ``"dr"`` (doubly robust): ``mu_d(x_i) + 1{a_i = d} (y_i - mu_d(x_i)) / e_d(x_i)``;
* ``"ipw"`` (inverse propensity weighting): ``1{a_i = d} y_i / e_d(x_i)``;
* ``"dm"`` (direct method): ``mu_d(x_i)``.

``mu_d`` is an outcome model fitted on the cases that got ``d``; ``e_d`` is the
probability of the logged decision (given, or a classifier of the action). Both are
*cross-fitted*: the rows are cut into ``cv`` folds and the models that score fold ``k``
are fitted on the other folds, so that no case's reward uses a model that saw it.
Propensities are clipped to ``[clip, 1 - clip]``; the number of clipped cases is kept.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
from sklearn.base import clone, is_classifier
from sklearn.model_selection import StratifiedKFold
from sklearn.utils import Bunch
from sklearn.utils.validation import check_random_state

from .._progress import progress_bar
from ..decision._validation import (
    check_1d,
    check_same_index,
    check_seed,
    float_array,
    has_missing_labels,
    model_classes,
    model_proba,
    not_probability_rows,
    reference_index,
    repeated_names,
    short_text,
    text_keys,
    text_labels,
)

__all__ = ["Rewards", "policy_rewards", "check_action", "check_costs", "check_decisions"]

METHODS = ("dr", "ipw", "dm")


# ------------------------------------------------------------------ input checks
def n_rows(X, name="X"):
    """Number of cases of ``X`` (DataFrame or array-like of shape (n_samples,
    n_features)); anything else is refused naming ``name``."""
    if X is None or isinstance(X, (str, bytes, dict, numbers.Number, pd.Series)) or not (
            hasattr(X, "shape") or hasattr(X, "__len__")):
        raise TypeError(f"{name} must be a DataFrame or a 2-D array of the inputs, one "
                        f"row per case; got {type(X).__name__}")
    shape = getattr(X, "shape", None)
    if shape is None:
        shape = np.shape(np.asarray(X, dtype=object))
    if len(shape) != 2:
        raise ValueError(f"{name} must be 2-D (one row per case, one column per input); "
                         f"got shape {tuple(shape)}")
    return int(shape[0])


def take_rows(X, rows):
    """Rows of ``X`` by position (DataFrame kept a DataFrame)."""
    if isinstance(X, pd.DataFrame):
        return X.iloc[rows]
    return np.asarray(X)[rows]


def check_action(action, n, index):
    """The logged decisions as a 1-d array of one value per case (pandas aligned)."""
    if action is None:
        raise TypeError("action is None: pass the decision that was taken for every "
                        "logged case")
    check_same_index(action, index, "action")
    return check_1d(action, "action", n_samples=n)


def check_decisions(action, decisions):
    """The decision labels (tuple of str) and each case's logged decision index.

    ``decisions`` None: the distinct logged actions, sorted. Every logged action must be
    one of ``decisions``.
    """
    a = np.asarray(action, dtype=object)
    if has_missing_labels(a.reshape(-1)):
        k = int(pd.isna(pd.Series(a.reshape(-1), dtype=object)).sum())
        raise ValueError(f"action has {k} missing value(s) (NaN, None or pd.NA); every "
                         "logged case needs the decision it got: drop those cases first")
    labels = text_labels(a.reshape(-1), "action")
    given = None if decisions is None else list(decisions)
    if decisions is None:
        decisions = tuple(sorted(set(labels.tolist())))
    else:
        if isinstance(decisions, (str, set, frozenset, dict)) or not hasattr(
                decisions, "__iter__"):
            raise TypeError("decisions must be a sequence of decision names in tie-break "
                            f"order (a list or tuple); got {decisions!r}")
        decisions = tuple(text_labels(decisions, "decisions"))
        if len(set(decisions)) != len(decisions):
            raise ValueError(f"decisions must be distinct; got {list(decisions)!r}")
    if len(decisions) < 2:
        raise ValueError(
            f"action: a policy chooses between at least 2 decisions; got {list(decisions)!r}"
        )
    pos = {d: k for k, d in enumerate(decisions)}
    unknown = sorted({v for v in labels.tolist() if v not in pos})
    if unknown:
        if given is not None:  # the action 1.0 of the decision 1: one label spelt two ways
            text_labels([*given, *(a[int(np.argmax(labels == u))] for u in unknown)],
                        "action and decisions")
        raise ValueError(
            "action contains values that are not decisions: "
            f"[{', '.join(short_text(repr(u)) for u in unknown[:5])}]; expected one "
            f"of {list(decisions)!r}"
        )
    a_idx = np.fromiter((pos[v] for v in labels), dtype=np.intp, count=labels.shape[0])
    return decisions, a_idx


def decision_column_labels(frame, name, what):
    """The column names of ``frame`` (one column of ``what`` per decision) as text; a
    ``ValueError`` naming ``name`` when two are the same."""
    labels = [str(c) for c in frame.columns]
    dup = repeated_names(labels)
    if dup:
        raise ValueError(f"{name} has {labels.count(dup[0])} columns named "
                         f"{short_text(repr(dup[0]))}; give each decision's {what} once")
    return labels


def check_costs(costs, decisions, n, index=None, name="costs"):
    """Per-case costs of every decision as an (n, D) float array (zeros for None).

    ``costs``: None; an (n, D) array in the order of ``decisions``; a DataFrame whose
    columns are decisions (decisions without a column cost nothing); or a dict
    ``{decision: scalar or (n,) array}``. Missing values are refused.
    """
    D = len(decisions)
    out = np.zeros((n, D))
    if costs is None:
        return out
    if isinstance(costs, pd.DataFrame):
        check_same_index(costs, index, name)
        decision_column_labels(costs, name, "costs")  # refuses a repeated column
        costs = {str(c): costs.iloc[:, j] for j, c in enumerate(costs.columns)}
    if isinstance(costs, dict):
        text_keys(costs, name)  # a decision named twice (1 and "1")
        unknown = [k for k in costs if str(k) not in decisions]
        if unknown:
            raise ValueError(
                f"{name}: {unknown!r} are not decisions; expected keys among {list(decisions)!r}"
            )
        for k, v in costs.items():
            d = decisions.index(str(k))
            if isinstance(v, (bool, np.bool_)) or isinstance(v, (str, bytes)):
                raise TypeError(f"{name}[{k!r}] must be a number or one number per case; "
                                f"got {v!r}")
            if isinstance(v, numbers.Real):
                out[:, d] = float(v)
                continue
            check_same_index(v, index, f"{name}[{k!r}]")
            arr = float_array(v, f"{name}[{k!r}]", "numbers").reshape(-1)
            if arr.shape[0] != n:
                raise ValueError(
                    f"{name}[{k!r}] must have one value per case ({n}); got {arr.shape[0]}"
                )
            out[:, d] = arr
    else:
        arr = float_array(costs, name, "numbers")
        if arr.shape != (n, D):
            raise ValueError(
                f"{name} must be a DataFrame or dict keyed by decision, or an array of shape "
                f"(n_samples, n_decisions) = ({n}, {D}); got shape {arr.shape}"
            )
        out[:] = arr
    if not np.isfinite(out).all():
        i, d = np.argwhere(~np.isfinite(out))[0]
        raise ValueError(f"{name}: every cost must be a finite number; the cost of "
                         f"{decisions[d]!r} in row {i} is {out[i, d]}")
    return out


def _check_propensity(propensity, a_idx, decisions, index):
    """Given propensities: (n,) probability of the logged decision, or (n, D) of all."""
    n, D = a_idx.shape[0], len(decisions)
    what = "probabilities (numbers in (0, 1])"
    check_same_index(propensity, index, "propensity")
    if isinstance(propensity, pd.DataFrame):
        labels = decision_column_labels(propensity, "propensity", "probability")
        missing = [d for d in decisions if d not in labels]
        if missing:
            raise ValueError(
                f"propensity: a DataFrame of propensities needs one column per decision; "
                f"missing {missing!r}"
            )
        propensity = propensity.set_axis(labels, axis=1)[list(decisions)]
    if isinstance(propensity, pd.DataFrame):
        dtypes = list(propensity.dtypes)
    else:
        dtypes = [propensity.dtype if hasattr(propensity, "dtype")
                  else np.asarray(propensity).dtype]
    if any(pd.api.types.is_bool_dtype(t) for t in dtypes):
        raise TypeError("propensity must be probabilities of the logged decisions; got "
                        "booleans (the treatment flags?)")
    propensity = float_array(propensity, "propensity", what)
    if propensity.ndim == 1:
        if propensity.shape[0] != n:
            raise ValueError(
                f"propensity must have one value per case ({n}); got {propensity.shape[0]}"
            )
        logged = propensity
        full = None
    elif propensity.shape == (n, D):
        full = propensity
        logged = propensity[np.arange(n), a_idx]
    else:
        raise ValueError(
            "propensity must be the probability of the logged decision (n_samples,) or of "
            f"every decision (n_samples, n_decisions) = ({n}, {D}); got {propensity.shape}"
        )
    bad = ~(np.isfinite(logged) & (logged > 0) & (logged <= 1))
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(
            "propensity: the probability of each case's logged decision must be in (0, 1]; "
            f"row {i} (logged {decisions[a_idx[i]]!r}) has {logged[i]}"
            + (f" ({int(bad.sum())} such rows)" if bad.sum() > 1 else "")
        )
    if full is not None:
        bad = not_probability_rows(full)
        if bad.any():
            i = int(np.argmax(bad))
            raise ValueError(
                "propensity: the probabilities of every decision must lie in [0, 1] and "
                f"sum to 1 in every row; row {i} holds {full[i].tolist()} (columns "
                f"{list(decisions)!r})"
                + (f" ({int(bad.sum())} such rows)" if bad.sum() > 1 else "")
            )
    return logged, full


def _outcome_arrays(outcome, outcome_value, n, index):
    """The outcome (float) and, for a binary response, the value of a response per case."""
    if outcome is None:
        raise ValueError(
            "outcome is None: pass the observed outcome of every logged case, or "
            "rewards= computed elsewhere (PolicyTree.fit)"
        )
    check_same_index(outcome, index, "outcome")
    y = check_1d(outcome, "outcome", n_samples=n)
    if outcome_value is None:
        y = float_array(y, "outcome", "numeric (or a binary response with outcome_value=)")
        bad = ~np.isfinite(y)
        if bad.any():
            raise ValueError("outcome: every logged case needs a finite outcome; row "
                             f"{int(np.argmax(bad))} has {y[np.argmax(bad)]}")
        return y, None
    yb = float_array(y, "outcome", "a 0/1 (or boolean) response with outcome_value=")
    if np.isnan(yb).any():
        raise ValueError(f"outcome has {int(np.isnan(yb).sum())} missing value(s) (first "
                         f"in row {int(np.argmax(np.isnan(yb)))}); every logged case "
                         "needs its response")
    if not np.isin(yb, (0.0, 1.0)).all():
        raise ValueError(
            "outcome with outcome_value= must be a binary response coded 0/1 (or False/True)"
        )
    if isinstance(outcome_value, (bool, np.bool_, str, bytes)):
        raise TypeError("outcome_value must be the value of a response: a number, or one "
                        f"number per case; got {outcome_value!r}")
    if isinstance(outcome_value, numbers.Real):
        value = np.full(n, float(outcome_value))
    else:
        check_same_index(outcome_value, index, "outcome_value")
        value = float_array(check_1d(outcome_value, "outcome_value", n_samples=n),
                            "outcome_value", "numbers (the value of a response per case)")
    if not np.isfinite(value).all():
        raise ValueError("outcome_value: the value of a response must be finite for every case")
    return yb, value


# ------------------------------------------------------------------ the result
class Rewards(Bunch):
    """Rewards of every decision for every logged case (what :func:`policy_rewards` gives).

    Keys (also attributes): ``rewards`` (DataFrame, one column per decision: the rewards
    of ``method``), ``method``, ``decisions``, ``action`` (index of the logged decision),
    ``outcome`` (the outcome in money: ``y`` or ``y * outcome_value``), ``outcome_pred``
    (n, D) the cross-fitted ``mu_d(x_i)`` in money (None for ``"ipw"``), ``propensity``
    (n,) the clipped probability of the logged decision (None for ``"dm"``),
    ``n_clipped`` (cases whose propensity was clipped), ``overlap`` (per decision, over the
    cases that got it: ``n_logged``, the ``min``, 1 % quantile ``q01`` and ``median`` of
    the propensity before clipping, and ``n_clipped``; None for ``"dm"``), ``fold`` (the
    cross-fitting fold of each case), ``clip`` (the clipping bound used).

    :meth:`gamma` gives the reward array of any method that the fitted nuisances allow.

    Parameters
    ----------
    **kwargs
        The keys above; :func:`policy_rewards` builds it, users do not.

    Examples
    --------
    >>> from sklearn.linear_model import LinearRegression
    >>> from dtdecide.policy import make_logged_campaign, policy_rewards
    >>> log = make_logged_campaign(500, random_state=0)
    >>> r = policy_rewards(log.X, log.action, log.outcome, decisions=log.decisions,
    ...                    outcome_model=LinearRegression(), propensity=log.propensity,
    ...                    random_state=0)
    >>> r.method, r.rewards.shape
    ('dr', (500, 3))
    >>> r.rewards.mean().round(2).to_dict()
    {'none': 0.99, 'mail': 1.1, 'call': 0.84}
    >>> r.gamma("ipw").mean(axis=0).round(2).tolist()
    [0.81, 1.41, 0.72]
    """

    def gamma(self, method=None):
        """Rewards by another method from the same nuisances.

        Parameters
        ----------
        method : {"dr", "ipw", "dm"} or None, default=None
            None: the method the rewards were computed with.

        Returns
        -------
        ndarray of shape (n_samples, n_decisions)
            The reward of every decision for every case by ``method`` (the outcome
            model's prediction, the inverse propensity term, or both: doubly robust).
        """
        method = self["method"] if method is None else method
        if method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}; got {method!r}")
        n, D = self["outcome"].shape[0], len(self["decisions"])
        hit = np.zeros((n, D))
        hit[np.arange(n), self["action"]] = 1.0
        mu, e, y = self["outcome_pred"], self["propensity"], self["outcome"]
        if method != "ipw" and mu is None:
            raise ValueError(f"method={method!r} needs the outcome models; these rewards "
                             "were computed without them (method='ipw')")
        if method != "dm" and e is None:
            raise ValueError(f"method={method!r} needs propensities; these rewards were "
                             "computed without them (method='dm')")
        if method == "dm":
            return mu.copy()
        if method == "ipw":
            return hit * (y / e)[:, None]
        return mu + hit * ((y[:, None] - mu) / e[:, None])


# ------------------------------------------------------------------ nuisance models
def _default_outcome_model(binary):
    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

    if binary:
        return HistGradientBoostingClassifier(max_iter=100, early_stopping=False)
    return HistGradientBoostingRegressor(max_iter=100, early_stopping=False)


def _default_propensity_model():
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier(max_iter=100, early_stopping=False)


def _seeded(model, seed):
    if "random_state" in model.get_params():
        model.set_params(random_state=seed)
    return model


def check_model(model, name, methods):
    """Refuse a nuisance model that is not an estimator instance with ``methods``."""
    if model is None:
        return
    if isinstance(model, type) or not all(hasattr(model, m) for m in methods) or not \
            hasattr(model, "get_params"):
        what = "a class" if isinstance(model, type) else type(model).__name__
        example = "LogisticRegression" if "predict_proba" in methods else "LinearRegression"
        raise TypeError(f"{name} must be a scikit-learn estimator instance with "
                        f"{' and '.join(methods)} (e.g. {name}={example}()); got "
                        f"{what}" + (f" {model.__name__}: instantiate it" if
                                     isinstance(model, type) else ""))


def _model_error(exc, model, name, step):
    return (TypeError if isinstance(exc, TypeError) else ValueError)(
        f"{name} {type(model).__name__} could not be {step}: {exc} (the nuisance models "
        "read X as given: encode text and date columns for them, e.g. as 'category' "
        "columns for the default models, or pass rewards= computed elsewhere)")


def _fitted(model, X, y, name, seed):
    """A seeded clone of the nuisance model ``name`` fitted on ``X, y``; an error of the
    model on the inputs (text or date columns it cannot read) names it."""
    try:
        return _seeded(clone(model), seed).fit(X, y)
    except (TypeError, ValueError) as exc:
        target = "the outcomes" if name == "outcome_model" else "the logged decisions"
        raise _model_error(exc, model, name, f"fitted on X and {target}") from exc


def _scored(fitted, X, name, method="predict"):
    """``fitted.<method>(X)``; an error of the model names it."""
    try:
        return getattr(fitted, method)(X)
    except (TypeError, ValueError) as exc:
        raise _model_error(exc, fitted, name, "applied to X") from exc


def _fit_outcome(model, X, y, binary, seed):
    """Fit the outcome model (a one-class binary response predicts its constant)."""
    if binary:
        classes = np.unique(y)
        if classes.shape[0] < 2:
            return ("constant", float(classes[0]))
        if not is_classifier(model):
            raise TypeError("outcome_model must be a classifier (predict_proba) for a binary "
                            f"response; got {type(model).__name__}")
    return _fitted(model, X, y, "outcome_model", seed)


def _predict_outcome(model, X, binary):
    n = n_rows(X)
    if isinstance(model, tuple):
        return np.full(n, model[1])
    label = f"outcome_model {type(model).__name__}"
    if binary:
        proba = _scored(model, X, "outcome_model", "predict_proba")
        classes = np.asarray(getattr(model, "classes_", []), dtype=object).reshape(-1)
        proba = model_proba(proba, n, classes.shape[0], label)
        ones = [j for j, c in enumerate(classes) if c == 1]
        return proba[:, ones[0]] if ones else np.zeros(n)
    pred = _scored(model, X, "outcome_model")
    try:
        pred = np.asarray(pred, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{label}.predict must give numbers; got "
                        f"{type(pred).__name__}") from None
    if pred.shape not in ((n,), (n, 1)):
        raise ValueError(f"{label}.predict gave shape {pred.shape} for {n} cases; expected "
                         f"({n},): one outcome per case")
    return pred.reshape(-1)


def policy_rewards(X, action, outcome, *, decisions=None, method="dr", propensity=None,
                   outcome_value=None, outcome_model=None, propensity_model=None, cv=5,
                   clip=0.01, random_state=None):
    """Doubly robust (or IPW, or direct-method) rewards of every decision.

    For each logged case and each decision ``d``, the estimated outcome (in money) had
    ``d`` been taken: the reward matrix ``Gamma`` of section 8 of the design notes. The
    outcome models (one per decision) and the propensity model are cross-fitted over
    ``cv`` folds.

    Parameters
    ----------
    X : DataFrame or array-like of shape (n_samples, n_features)
        Inputs the nuisance models use (as the given models accept them).
    action : array-like of shape (n_samples,)
        The decision that was taken for each case.
    outcome : array-like of shape (n_samples,)
        What followed: money (revenue, spend), or a 0/1 response with ``outcome_value``.
    decisions : sequence of str, default=None
        The decisions, in tie-break order; default: the distinct logged actions, sorted.
        Every decision must have been logged (its outcome model needs cases).
    method : {"dr", "ipw", "dm"}, default="dr"
        Doubly robust, inverse propensity weighting or direct method.
    propensity : array-like of shape (n_samples,) or (n_samples, n_decisions), default=None
        Known probability of the logged decision (randomised or logged-policy data), or a
        DataFrame (columns matched to the decisions by name) / array of the
        probabilities of every decision, each row summing to 1. None: estimated.
    outcome_value : float or array-like of shape (n_samples,), default=None
        Value of a response per case when ``outcome`` is a 0/1 response; the outcome
        models are then classifiers and ``mu_d = outcome_value * P(response | x, d)``.
    outcome_model : scikit-learn regressor (classifier for a binary response), default=None
        Cloned and fitted per decision and fold; default: a histogram gradient boosting
        model.
    propensity_model : scikit-learn classifier, default=None
        Classifier of the logged action (``predict_proba``); default: a histogram
        gradient boosting classifier.
    cv : int, default=5
        Number of cross-fitting folds (at least 2).
    clip : float, default=0.01
        Propensities are clipped to ``[clip, 1 - clip]``.
    random_state : int, RandomState instance or None, default=None
        Folds and the models' own seeds.

    Returns
    -------
    Rewards
        ``rewards`` (DataFrame of shape (n_samples, n_decisions) indexed as ``X``) and the
        nuisances (see :class:`Rewards`); ``n_clipped`` counts the clipped propensities
        and ``overlap`` summarises them per decision.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LinearRegression, LogisticRegression
    >>> from dtdecide.policy import policy_rewards
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 2))
    >>> action = np.where(rng.random(400) < 0.5, "mail", "none")
    >>> outcome = 1.0 + 2.0 * (action == "mail") * (X[:, 0] > 0) + rng.normal(size=400)
    >>> r = policy_rewards(X, action, outcome, propensity=np.full(400, 0.5),
    ...                    outcome_model=LinearRegression(), random_state=0)
    >>> list(r.rewards.columns), r.n_clipped
    (['mail', 'none'], 0)
    >>> gain = r.rewards["mail"] - r.rewards["none"]
    >>> [round(float(gain[X[:, 0] > 0].mean()), 1), round(abs(float(gain[X[:, 0] <= 0].mean())), 1)]
    [2.0, 0.0]
    """
    _check_settings(method, cv, clip, random_state, outcome_model, propensity_model)
    index, decisions, a_idx, y, value = _check_data(X, action, outcome, decisions,
                                                    outcome_value, cv)
    D = len(decisions)
    binary = value is not None
    money = y * value if binary else y
    fold, seed = _folds(a_idx, cv, random_state)
    # a bar over the nuisance models fitted (with the package's verbose, on a terminal)
    n_models = (cv if method != "dm" and propensity is None else 0) + (
        cv * D if method != "ipw" else 0)
    bar = progress_bar(total=n_models, desc="cross-fitting nuisance models", unit="model")

    e_logged = None
    if method != "dm":
        e_logged = _logged_propensity(X, a_idx, fold, cv, propensity, propensity_model,
                                      decisions, index, seed, bar)
        e_raw = e_logged.copy()
        clipped = (e_logged < clip) | (e_logged > 1 - clip)
        n_clipped = int(np.count_nonzero(clipped))
        e_logged = np.clip(e_logged, clip, 1 - clip) if clip > 0 else e_logged
    else:
        n_clipped = 0
        e_raw = None

    mu = None
    if method != "ipw":
        mu = _outcome_predictions(X, y, value, a_idx, fold, cv, outcome_model, decisions,
                                  seed, bar)
    bar.close()

    overlap = None if e_raw is None else _overlap(e_raw, a_idx, decisions, clip)
    out = Rewards(method=method, decisions=decisions, action=a_idx, outcome=money,
                  outcome_pred=mu, propensity=e_logged, n_clipped=n_clipped, fold=fold,
                  clip=float(clip), overlap=overlap)
    out["rewards"] = pd.DataFrame(out.gamma(), columns=list(decisions), index=index)
    return out


def _check_settings(method, cv, clip, random_state, outcome_model, propensity_model):
    """Check the settings of :func:`policy_rewards` that do not depend on the data.

    In this order: the method, the number of cross-fitting folds, the clipping bound, the
    seed, then the two nuisance models (estimator instances with the methods they need).
    Each failure names its parameter; nothing is returned.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}; got {method!r}")
    if isinstance(cv, bool) or not isinstance(cv, numbers.Integral) or cv < 2:
        raise ValueError(f"cv must be an integer >= 2 (cross-fitting folds); got {cv!r}")
    if not isinstance(clip, numbers.Real) or not 0 <= clip < 0.5:
        raise ValueError(f"clip must be a number in [0, 0.5); got {clip!r}")
    check_seed(random_state)
    check_model(outcome_model, "outcome_model", ("fit", "predict"))
    check_model(propensity_model, "propensity_model", ("fit", "predict_proba"))


def _check_data(X, action, outcome, decisions, outcome_value, cv):
    """Check the logged cases and code the actions of :func:`policy_rewards`.

    Reads the number of cases and the index of ``X``, the logged actions (coded as
    positions in ``decisions``, which defaults to the sorted distinct actions) and the
    outcomes (with the value of a response for a binary one). Every decision must have
    been logged at least ``cv`` times, so that each fold's outcome model has cases.
    Returns ``(index, decisions, a_idx, y, value)``; ``value`` is None unless the outcome
    is a binary response.
    """
    n = n_rows(X)
    if n == 0:
        raise ValueError("X has no cases (0 rows)")
    index = reference_index(X)
    a_raw = check_action(action, n, index)
    decisions, a_idx = check_decisions(a_raw, decisions)
    D = len(decisions)
    y, value = _outcome_arrays(outcome, outcome_value, n, index)
    counts = np.bincount(a_idx, minlength=D)
    never = [decisions[d] for d in range(D) if counts[d] == 0]
    if never:
        raise ValueError(
            f"action: the decisions {never!r} were never logged; their rewards cannot be "
            "estimated from these data (drop them from decisions)"
        )
    if counts.min() < cv:
        d = decisions[int(np.argmin(counts))]
        raise ValueError(
            f"action: decision {d!r} was logged {int(counts.min())} time(s); cross-fitting "
            f"over cv={cv} folds needs at least cv cases of every decision"
        )
    return index, decisions, a_idx, y, value


def _folds(a_idx, cv, random_state):
    """The cross-fitting fold of every case and the nuisance models' seed.

    The folds are stratified by the logged action, so that every fold holds cases of
    every decision. Two integers are drawn from ``random_state``, in this order: the
    seed of the folds' shuffle, then the seed given to every nuisance model that takes
    one. Returns ``(fold, seed)``: ``fold[i]`` is the fold (0 to ``cv - 1``) of case ``i``.
    """
    n = a_idx.shape[0]
    rng = check_random_state(random_state)
    splitter = StratifiedKFold(n_splits=cv, shuffle=True,
                               random_state=rng.randint(np.iinfo(np.int32).max))
    fold = np.empty(n, dtype=np.intp)
    for k, (_, test) in enumerate(splitter.split(np.zeros(n), a_idx)):
        fold[test] = k
    seed = rng.randint(np.iinfo(np.int32).max)
    return fold, seed


def _logged_propensity(X, a_idx, fold, cv, propensity, propensity_model, decisions,
                       index, seed, bar):
    """The probability of each case's logged decision, before clipping.

    Given ``propensity``: checked and read (the probability of the logged decision, or of
    every decision). Otherwise cross-fitted: for each fold, a clone of the propensity model
    (default: histogram gradient boosting) is fitted on the other folds' inputs and coded
    actions, and its ``predict_proba`` gives the fold's cases the probability of the
    decision they got. ``bar`` advances by one per model fitted. Returns an array of
    shape (n_samples,).
    """
    if propensity is not None:
        e_logged, _ = _check_propensity(propensity, a_idx, decisions, index)
        return e_logged
    model = _default_propensity_model() if propensity_model is None else propensity_model
    if not hasattr(model, "predict_proba"):
        raise TypeError("propensity_model must be a classifier with predict_proba; "
                        f"got {type(model).__name__}")
    e_logged = np.empty(a_idx.shape[0])
    for k in range(cv):
        train, test = fold != k, fold == k
        fitted = _fitted(model, take_rows(X, train), a_idx[train], "propensity_model", seed)
        bar.update(1)
        proba = _scored(fitted, take_rows(X, test), "propensity_model", "predict_proba")
        label = f"propensity_model {type(model).__name__}"
        codes = model_classes(fitted, a_idx[train], label,
                              "decision codes (positions in decisions)")
        proba = model_proba(proba, int(test.sum()), codes.shape[0], label)
        e = np.zeros(int(test.sum()))
        at = a_idx[test]
        for j, d in enumerate(codes):
            e[at == d] = proba[at == d, j]
        e_logged[test] = e
    return e_logged


def _outcome_predictions(X, y, value, a_idx, fold, cv, outcome_model, decisions, seed, bar):
    """The cross-fitted outcome of every case under every decision (``mu``).

    For each fold and each decision, a clone of the outcome model (default: histogram
    gradient boosting, a classifier for a binary response) is fitted on the other folds'
    cases that got that decision and predicts the fold's cases; a binary response's
    probability is then multiplied by the value of a response. ``bar`` advances by one per
    model fitted. Returns an array of shape (n_samples, n_decisions); a prediction that is
    not finite is refused, naming the decision and the row.
    """
    binary = value is not None
    n, D = a_idx.shape[0], len(decisions)
    model = _default_outcome_model(binary) if outcome_model is None else outcome_model
    mu = np.empty((n, D))
    for k in range(cv):
        test = fold == k
        X_test = take_rows(X, test)
        for d in range(D):
            train = (fold != k) & (a_idx == d)
            fitted = _fit_outcome(model, take_rows(X, train), y[train], binary, seed)
            bar.update(1)
            mu[test, d] = _predict_outcome(fitted, X_test, binary)
    if binary:
        mu = mu * value[:, None]
    bad = ~np.isfinite(mu)
    if bad.any():
        i, d = np.argwhere(bad)[0]
        raise ValueError(
            f"outcome_model predicted {mu[i, d]} for decision {decisions[d]!r} in row "
            f"{i}; the rewards need finite predictions (outcomes of a huge magnitude "
            "overflow: rescale them, e.g. to thousands)")
    return mu


def _overlap(e_raw, a_idx, decisions, clip):
    """The overlap table: the propensities of the logged decisions, per decision.

    One row per decision (index named ``decision``): how many cases got it, the smallest,
    1 % quantile and median of their propensities before clipping, and how many of them
    lie outside ``[clip, 1 - clip]``.
    """
    rows = {}
    for d in range(len(decisions)):
        e = e_raw[a_idx == d]
        rows[decisions[d]] = {
            "n_logged": int(e.shape[0]), "min": float(e.min()),
            "q01": float(np.quantile(e, 0.01)), "median": float(np.median(e)),
            "n_clipped": int(np.count_nonzero((e < clip) | (e > 1 - clip))),
        }
    overlap = pd.DataFrame.from_dict(rows, orient="index")
    overlap.index.name = "decision"
    return overlap
