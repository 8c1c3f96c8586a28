"""The value of a policy on held-out logged data, with confidence intervals."""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
from scipy.stats import norm
from sklearn.utils.validation import check_random_state

from ..decision._validation import (
    check_same_index,
    check_seed,
    reference_index,
    refuse_unicode_forms,
    short_text,
)
from ._rewards import (
    Rewards,
    check_action,
    check_costs,
    check_decisions,
    n_rows,
    policy_rewards,
)

__all__ = ["policy_value", "policy_decisions"]

#: indices of bootstrap resamples drawn at a time (32 MB of int64)
_BOOT_BLOCK = 1 << 22


def policy_decisions(policy, X, decisions, a_idx, name="policy"):
    """Index of the decision a policy takes for every case.

    Parameters
    ----------
    policy : str, fitted estimator or array-like of shape (n_samples,)
        A decision name (everyone gets it: "treat all", "treat none"), the string
        ``"logged"`` (the decisions that were taken, unless a decision is named
        "logged"), a fitted model whose ``predict`` gives decision labels, or one
        decision label per case.
    X : DataFrame, array-like of shape (n_samples, n_features) or None
        The inputs a model policy decides on; None when ``policy`` is not a model.
    decisions : list of str
        The decision names, in the order the indices refer to.
    a_idx : ndarray of shape (n_samples,)
        Index of each case's logged decision in ``decisions``.
    name : str, default="policy"
        The parameter's name in error messages.

    Returns
    -------
    ndarray of shape (n_samples,), dtype intp
        Index of each case's decision in ``decisions``.

    Raises
    ------
    TypeError
        When ``policy`` is none of the above.
    ValueError
        When it names an unknown decision, gives another number of cases, or is a model
        without ``X``.

    Examples
    --------
    >>> import numpy as np
    >>> from dtdecide.policy import policy_decisions
    >>> logged = np.array([0, 1, 1, 0])
    >>> policy_decisions("mail", None, ["none", "mail"], logged).tolist()
    [1, 1, 1, 1]
    >>> policy_decisions("logged", None, ["none", "mail"], logged).tolist()
    [0, 1, 1, 0]
    >>> policy_decisions(["mail", "none", "none", "mail"], None, ["none", "mail"],
    ...                  logged).tolist()
    [1, 0, 0, 1]
    """
    n = a_idx.shape[0]
    if policy is None or isinstance(policy, (numbers.Number, bytes, dict, set)):
        raise TypeError(f"{name} must be a decision name, 'logged', a fitted model with "
                        f"predict, or one decision per case; got {policy!r}")
    if isinstance(policy, str):
        if policy == "logged" and "logged" not in decisions:
            return a_idx.copy()
        if policy not in decisions:
            raise ValueError(
                f"{name}={policy!r} is neither a decision ({list(decisions)!r}) nor 'logged'")
        return np.full(n, decisions.index(policy), dtype=np.intp)
    if hasattr(policy, "predict") and not isinstance(policy, (np.ndarray, pd.Series)):
        if X is None:
            raise ValueError(f"{name} is a model: pass X to let it decide")
        try:
            labels = policy.predict(X)
        except (TypeError, ValueError) as exc:
            raise (TypeError if isinstance(exc, TypeError) else ValueError)(
                f"{name} {type(policy).__name__} could not decide on X: {exc}") from exc
    else:
        check_same_index(policy, reference_index(X) if X is not None else None, name)
        labels = policy
    labels = np.asarray(labels, dtype=object).reshape(-1)
    if labels.shape[0] != n:
        raise ValueError(f"{name} must give one decision per case ({n}); got {labels.shape[0]}")
    pos = {d: k for k, d in enumerate(decisions)}
    unknown = sorted({str(v) for v in labels if str(v) not in pos})
    if unknown:
        refuse_unicode_forms(sorted({*decisions, *unknown}), f"{name} and the decisions")
        shown = ", ".join(short_text(repr(u)) for u in unknown[:5])
        raise ValueError(f"{name} takes decisions [{shown}] that are not among "
                         f"{list(decisions)!r}")
    return np.fromiter((pos[str(v)] for v in labels), dtype=np.intp, count=n)


def _interval(scores, z, n_bootstrap, rng, level):
    """Mean, standard error and interval of ``scores``, computed on the scores divided by
    their largest magnitude (outcomes near 1e300 or 1e-300 neither overflow nor
    underflow in the squares of the standard deviation)."""
    n = scores.shape[0]
    if not np.isfinite(scores).all():
        raise ValueError(
            "the values of the cases overflow: the outcomes or costs are too large (near "
            "1e308) to take differences of; rescale them, e.g. to thousands")
    scale = float(np.max(np.abs(scores))) if n else 0.0
    scale = scale if scale > 0 else 1.0
    u = scores / scale
    value = float(u.mean()) * scale
    if n_bootstrap:
        # resamples drawn in blocks of about _BOOT_BLOCK indices: the same draws as one
        # (n_bootstrap, n) array, in bounded memory (1,000 resamples of 200,000 cases
        # held 3 GB)
        boot = np.empty(n_bootstrap)
        block = max(1, _BOOT_BLOCK // max(n, 1))
        for start in range(0, n_bootstrap, block):
            stop = min(start + block, n_bootstrap)
            boot[start:stop] = u[rng.integers(0, n, size=(stop - start, n))].mean(axis=1)
        se = float(boot.std(ddof=1)) * scale
        lo, hi = np.quantile(boot, [(1 - level) / 2, (1 + level) / 2]) * scale
        return value, se, float(lo), float(hi)
    se = float(u.std(ddof=1) / np.sqrt(n)) * scale if n > 1 else np.nan
    return value, se, value - z * se, value + z * se


def policy_value(policy, X, action, outcome, *, baseline=None, decisions=None, costs=None,
                 propensity=None, outcome_value=None, outcome_model=None,
                 propensity_model=None, cv=5, clip=0.01, rewards=None, methods=("dr", "ipw"),
                 confidence=0.95, n_bootstrap=0, random_state=None):
    """Estimated profit per case of a policy on logged data, with confidence intervals.

    The value of policy ``pi`` is ``V = mean_i (Gamma[i, pi_i] - c(i, pi_i))`` over the
    logged cases, ``Gamma`` the rewards by each method (see
    :func:`~dtdecide.policy.policy_rewards`); its standard error is the standard
    deviation of the per-case terms over ``sqrt(n)`` (analytic) or the standard
    deviation of ``n_bootstrap`` resampled means (the nuisance models are kept; the
    interval is then the bootstrap percentile interval). With ``baseline``, the
    difference ``V(policy) - V(baseline)`` is estimated from the paired per-case
    differences. Use cases the policy was *not* learnt from.

    Parameters
    ----------
    policy : str, fitted model or array-like of shape (n_samples,)
        A decision name (every case gets it: "treat all" / "treat none"), ``"logged"``
        (the logged decisions), a model whose ``predict(X)`` gives decision labels (a
        :class:`~dtdecide.policy.PolicyTree`, a profit tree's ``predict_decision`` is
        reached through the policy tree), or the decision of every case.
    X : DataFrame or array-like of shape (n_samples, n_features)
        Inputs of the held-out logged cases.
    action : array-like of shape (n_samples,)
        Their logged decisions.
    outcome : array-like of shape (n_samples,) or None
        Their outcomes (None when ``rewards`` is given).
    baseline : same types as ``policy``, default=None
        A second policy; adds its value and the paired difference.
    decisions : sequence of str, default=None
        The decisions; default: a policy tree's own, else the logged ones, sorted.
    costs : DataFrame, dict or ndarray, default=None
        Per-case costs of the decisions (as :class:`~dtdecide.policy.PolicyTree`).
    propensity : array-like of shape (n_samples,) or (n_samples, n_decisions), default=None
        Known probability of the logged decision (or of every decision); None: estimated.
    outcome_value : float or array-like of shape (n_samples,), default=None
        Value of a response when ``outcome`` is 0/1.
    outcome_model : scikit-learn regressor or classifier, default=None
        Outcome model per decision (cross-fitted on these cases).
    propensity_model : scikit-learn classifier, default=None
        Model of the logged decision (cross-fitted on these cases).
    cv : int, default=5
        Cross-fitting folds.
    clip : float, default=0.01
        Propensities are clipped to ``[clip, 1 - clip]``.
    rewards : Rewards, default=None
        Rewards of these cases computed once (by :func:`policy_rewards` with
        ``method="dr"``, which also gives the IPW and direct-method rewards).
    methods : sequence of {"dr", "ipw", "dm"}, default=("dr", "ipw")
        One row per method.
    confidence : float, default=0.95
        Level of the intervals.
    n_bootstrap : int, default=0
        0: analytic (normal) intervals; else that many bootstrap resamples of the cases.
    random_state : int, RandomState instance or None, default=None
        Cross-fitting folds, models and bootstrap resamples.

    Returns
    -------
    DataFrame
        Indexed by method: ``value``, ``std_error``, ``ci_low``, ``ci_high``,
        ``n_cases``, and with ``baseline`` also ``baseline_value``, ``difference``,
        ``difference_std_error``, ``difference_ci_low``, ``difference_ci_high``.

    Examples
    --------
    >>> from sklearn.linear_model import LinearRegression
    >>> from dtdecide.policy import make_logged_campaign, policy_value
    >>> data = make_logged_campaign(4000, confounding=0.0, random_state=1)
    >>> table = policy_value("mail", data.X, data.action, data.outcome,
    ...                      baseline="none", propensity=data.propensity,
    ...                      outcome_model=LinearRegression(), random_state=0)
    >>> table[["value", "ci_low", "ci_high", "difference"]].round(1)
            value  ci_low  ci_high  difference
    method
    dr        1.1     1.0      1.1         0.1
    ipw       1.1     1.0      1.2         0.2
    """
    if not isinstance(confidence, numbers.Real) or not 0 < confidence < 1:
        raise ValueError(f"confidence must be in (0, 1); got {confidence!r}")
    if isinstance(n_bootstrap, bool) or not isinstance(n_bootstrap, numbers.Integral) or \
            n_bootstrap < 0 or n_bootstrap == 1:
        raise ValueError(f"n_bootstrap must be 0 (analytic) or an integer >= 2; got "
                         f"{n_bootstrap!r}")
    if isinstance(methods, str):
        methods = (methods,)
    if methods is None or not np.iterable(methods):
        raise TypeError(f"methods must be a sequence of 'dr', 'ipw' and 'dm'; got {methods!r}")
    methods = tuple(dict.fromkeys(methods))
    if not methods:
        raise ValueError("methods must name at least one of 'dr', 'ipw' and 'dm'; got none")
    unknown = [m for m in methods if m not in ("dr", "ipw", "dm")]
    if unknown:
        raise ValueError(f"methods must be among ('dr', 'ipw', 'dm'); got {unknown[0]!r}")
    check_seed(random_state)
    if X is None and rewards is None:
        raise TypeError("X is None: pass the inputs of the logged cases (the nuisance "
                        "models are fitted on them), or rewards= computed for these cases")
    n = n_rows(X) if X is not None else len(check_action(action, None, None))
    index = reference_index(X) if X is not None else None
    if index is None and isinstance(rewards, Rewards):  # the rewards' cases: X's index
        index = rewards.rewards.index
    if decisions is None and isinstance(rewards, Rewards):
        decisions = rewards.decisions
    if decisions is None:
        decisions = getattr(policy, "decisions_", None) or getattr(
            baseline, "decisions_", None)
    decisions, a_idx = check_decisions(check_action(action, n, index), decisions)
    rng = check_random_state(random_state)
    if rewards is None:
        rewards = policy_rewards(
            X, action, outcome, decisions=decisions, method="dr", propensity=propensity,
            outcome_value=outcome_value, outcome_model=outcome_model,
            propensity_model=propensity_model, cv=cv, clip=clip,
            random_state=rng.randint(np.iinfo(np.int32).max))
    elif not isinstance(rewards, Rewards):
        raise TypeError("rewards must be what policy_rewards returns; got "
                        f"{type(rewards).__name__}")
    elif rewards.outcome.shape[0] != n:
        raise ValueError(f"rewards were computed for {rewards.outcome.shape[0]} cases; "
                         f"these are {n} (pass the rewards of these cases)")
    elif tuple(rewards.decisions) != tuple(decisions):
        raise ValueError(f"rewards were computed for the decisions "
                         f"{list(rewards.decisions)!r}; these are {list(decisions)!r} (in "
                         "this order)")
    else:
        check_same_index(rewards.rewards, index, "rewards.rewards")
        moved = np.flatnonzero(np.asarray(rewards.action) != a_idx)
        if moved.size:
            raise ValueError(
                f"rewards were computed with other logged decisions: row {moved[0]} got "
                f"{rewards.decisions[rewards.action[moved[0]]]!r} there and "
                f"{decisions[a_idx[moved[0]]]!r} in action ({moved.size} such rows)")
    C = check_costs(costs, decisions, n, index)
    pi = policy_decisions(policy, X, decisions, a_idx)
    base = None if baseline is None else policy_decisions(baseline, X, decisions, a_idx,
                                                          name="baseline")
    z = float(norm.ppf((1 + confidence) / 2))
    boot_rng = np.random.default_rng(rng.randint(np.iinfo(np.int32).max))
    rows = {}
    rows_i = np.arange(n)
    for m in methods:
        with np.errstate(over="ignore", invalid="ignore"):  # _interval names overflow
            Q = rewards.gamma(m) - C
        s = Q[rows_i, pi]
        v, se, lo, hi = _interval(s, z, n_bootstrap, boot_rng, confidence)
        row = {"value": v, "std_error": se, "ci_low": lo, "ci_high": hi, "n_cases": n}
        if base is not None:
            sb = Q[rows_i, base]
            with np.errstate(over="ignore", invalid="ignore"):
                gap = s - sb
            dv, dse, dlo, dhi = _interval(gap, z, n_bootstrap, boot_rng, confidence)
            row.update(baseline_value=_interval(sb, z, 0, None, confidence)[0], difference=dv,
                       difference_std_error=dse, difference_ci_low=dlo,
                       difference_ci_high=dhi)
        rows[m] = row
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "method"
    out.attrs["n_clipped"] = rewards.n_clipped
    return out
