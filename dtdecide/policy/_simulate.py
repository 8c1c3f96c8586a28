"""Simulated logged campaigns with a known best policy (tests, benchmarks, docs).

Design
------
``n_features`` independent standard normal inputs ``x0, x1, ...`` (at least 3). Three
decisions ``("none", "mail", "call")``. The expected outcome (money) of case ``i`` under
decision ``d`` is ``mu_d(x) = base(x) + tau_d(x)`` with ``base(x) = 1 + x0 + 0.5 x2``
and ``tau_none = 0``; the effects ``tau_mail``, ``tau_call`` follow ``effect``:

* ``"step"``: ``tau_mail = 1.0 * (x0 > 0) - 0.4``, ``tau_call = 1.5 * (x1 > 0.5) - 0.6``;
* ``"linear"``: ``tau_mail = 0.8 x0 - 0.2``, ``tau_call = 0.8 x1 - 0.4``;
* ``"interaction"``: ``tau_mail = 1.2 * (x0 > 0) * (x1 > 0) - 0.3``,
  ``tau_call = 1.2 * (x0 <= 0) * (x2 > 0) - 0.3``.

The observed outcome is ``mu_a(x) + noise_sd * N(0, 1)``. The logging policy is a
softmax of ``confounding * (x2, x0 + x2)`` against 0 for ``("none", "mail", "call")``:
with ``confounding > 0`` the decision taken depends on inputs that also move the
outcome (``x0``, ``x2``), so naive comparisons of the logged groups are biased. Costs are
zero (the effects already include them); the best policy is ``argmax_d mu_d(x)``.
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
from sklearn.utils import Bunch

from ..decision._validation import check_seed

__all__ = ["make_logged_campaign"]

DECISIONS = ("none", "mail", "call")
EFFECTS = ("step", "linear", "interaction")


def _effects(X, effect):
    x0, x1, x2 = X[:, 0], X[:, 1], X[:, 2]
    if effect == "step":
        return 1.0 * (x0 > 0) - 0.4, 1.5 * (x1 > 0.5) - 0.6
    if effect == "linear":
        return 0.8 * x0 - 0.2, 0.8 * x1 - 0.4
    return 1.2 * (x0 > 0) * (x1 > 0) - 0.3, 1.2 * (x0 <= 0) * (x2 > 0) - 0.3


def make_logged_campaign(n_samples=1000, *, n_features=5, effect="step", confounding=1.0,
                         noise_sd=1.0, random_state=None):
    """A simulated logged campaign whose best policy is known.

    See the module notes (``dtdecide.policy._simulate``) for the design.

    Parameters
    ----------
    n_samples : int, default=1000
        Number of logged cases.
    n_features : int, default=5
        Number of inputs (at least 3; those past ``x2`` are noise).
    effect : {"step", "linear", "interaction"}, default="step"
        Shape of the decisions' effects.
    confounding : float, default=1.0
        Strength of the dependence of the logged decision on ``x0`` and ``x2``
        (0: a randomised campaign with probabilities 1/3).
    noise_sd : float, default=1.0
        Standard deviation of the outcome noise.
    random_state : int or None, default=None
        Seed of the inputs, the logged decisions and the noise.

    Returns
    -------
    Bunch
        ``X`` (DataFrame), ``action`` (ndarray of str), ``outcome`` (ndarray),
        ``propensity`` (DataFrame, the true probabilities of every decision),
        ``expected`` (DataFrame: the true expected outcome of every decision),
        ``best`` (the best decision of every case), ``decisions``.

    Examples
    --------
    >>> from dtdecide.policy import make_logged_campaign
    >>> data = make_logged_campaign(500, random_state=0)
    >>> data.X.shape, data.decisions
    ((500, 5), ('none', 'mail', 'call'))
    >>> sorted(set(data.action))
    ['call', 'mail', 'none']
    """
    if effect not in EFFECTS:
        raise ValueError(f"effect must be one of {EFFECTS}; got {effect!r}")
    for name, value, low in (("n_samples", n_samples, 1), ("n_features", n_features, 3)):
        if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < low:
            raise ValueError(f"{name} must be an integer of at least {low}; got {value!r}")
    for name, value in (("confounding", confounding), ("noise_sd", noise_sd)):
        if not isinstance(value, numbers.Real) or isinstance(value, bool) or \
                not np.isfinite(value) or value < 0:
            raise ValueError(f"{name} must be a finite number >= 0; got {value!r}")
    rng = np.random.default_rng(check_seed(random_state))
    X = rng.normal(size=(n_samples, n_features))
    base = 1.0 + X[:, 0] + 0.5 * X[:, 2]
    t_mail, t_call = _effects(X, effect)
    mu = np.column_stack([base, base + t_mail, base + t_call])
    logits = confounding * np.column_stack([np.zeros(n_samples), X[:, 2], X[:, 0] + X[:, 2]])
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    p /= p.sum(axis=1, keepdims=True)
    u = rng.random(n_samples)
    a = (u[:, None] > np.cumsum(p, axis=1)).sum(axis=1)
    a = np.minimum(a, 2)
    with np.errstate(over="ignore", invalid="ignore"):
        y = mu[np.arange(n_samples), a] + noise_sd * rng.normal(size=n_samples)
    if not np.isfinite(y).all():
        raise ValueError(f"noise_sd={noise_sd!r} is too large: the outcomes overflow")
    cols = [f"x{j}" for j in range(n_features)]
    names = np.array(DECISIONS, dtype=object)
    return Bunch(
        X=pd.DataFrame(X, columns=cols),
        action=names[a],
        outcome=y,
        propensity=pd.DataFrame(p, columns=list(DECISIONS)),
        expected=pd.DataFrame(mu, columns=list(DECISIONS)),
        best=names[np.argmax(mu, axis=1)],
        decisions=DECISIONS,
    )
