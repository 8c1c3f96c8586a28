"""Qini and cumulative uplift (gain) curves of a score on logged treated/control cases.

Cases are taken by decreasing score (tied scores together). After the top ``k`` cases,
with ``N_t``, ``N_c`` the (weighted) numbers of treated and control cases among them
and ``Y_t``, ``Y_c`` the sums of their outcomes:

* cumulative uplift (gain): ``(Y_t / N_t - Y_c / N_c) (N_t + N_c)``, the extra outcome
  of treating the top ``k`` instead of none (0 until both groups have a case);
* Qini: ``Y_t - Y_c N_t / N_c`` (``Y_t`` while there is no control case).

With ``propensity`` (probability of treatment of each case, from a non-randomised
campaign) every treated case weighs ``1 / p`` and every control case ``1 / (1 - p)``.
The *area* of a curve is the trapezoid area under it over the fraction of cases taken
(0 to 1); ``area_over_random`` subtracts the area under the straight line from 0 to the
curve's end point (a random ordering).
"""

import numpy as np
import pandas as pd

from ..decision._validation import (
    check_1d,
    check_same_index,
    float_array,
    has_missing_labels,
    reference_index,
)

__all__ = ["UpliftCurveDisplay", "uplift_curve"]


def _check_treatment(treatment, n, index):
    t = np.asarray(check_1d(treatment, "treatment", n_samples=n, index=index,
                            reference="score"))
    if t.dtype == bool:
        return t
    if has_missing_labels(t):
        raise ValueError("treatment must not contain missing values (treated or control)")
    try:
        tf = t.astype(float)
    except (TypeError, ValueError):
        tf = None
    if tf is None or not np.isin(tf, (0.0, 1.0)).all():
        raise ValueError(
            "treatment must be boolean or 0/1 (treated or control); for logged decisions "
            "pass for instance action == 'mail' on the cases that got 'mail' or the control"
        )
    return tf == 1.0


def uplift_curve(score, treatment, outcome, *, propensity=None):
    """Qini and cumulative uplift curves of a score, with their areas.

    The curves and areas are defined in the Notes below.

    Parameters
    ----------
    score : array-like of shape (n_samples,)
        Higher first: the estimated gain of treating each case (for instance a policy
        tree's leaf gain, or ``1`` for the cases a policy treats and ``0`` otherwise).
    treatment : array-like of shape (n_samples,)
        Whether each case was treated (boolean or 0/1).
    outcome : array-like of shape (n_samples,)
        Observed outcome (money or 0/1 response).
    propensity : array-like of shape (n_samples,), default=None
        Probability of treatment of each case (inverse-propensity weights); None for a
        randomised campaign (unit weights).

    Returns
    -------
    DataFrame
        One row per distinct score (best first) after a starting row of zeros:
        ``fraction`` (share of cases taken), ``n_cases``, ``n_treated``, ``n_control``
        (weighted), ``uplift`` (cumulative uplift), ``qini``. ``attrs`` holds
        ``uplift_area``, ``qini_area``, ``uplift_area_over_random`` and
        ``qini_area_over_random``.

    Notes
    -----
    Cases are taken by decreasing score (tied scores together). After the top ``k``
    cases, with ``N_t``, ``N_c`` the (weighted) numbers of treated and control cases
    among them and ``Y_t``, ``Y_c`` the sums of their outcomes:

    - cumulative uplift (gain): ``(Y_t / N_t - Y_c / N_c) (N_t + N_c)``, the extra
      outcome of treating the top ``k`` instead of none (0 until both groups have a
      case);
    - Qini: ``Y_t - Y_c N_t / N_c`` (``Y_t`` while there is no control case).

    With ``propensity`` every treated case weighs ``1 / p`` and every control case
    ``1 / (1 - p)``. The *area* of a curve is the trapezoid area under it over the
    fraction of cases taken (0 to 1); ``area_over_random`` subtracts the area under the
    straight line from 0 to the curve's end point (a random ordering).

    Examples
    --------
    >>> from dtdecide.assess import uplift_curve
    >>> score = [0.9, 0.8, 0.7, 0.2, 0.1, 0.0]
    >>> treated = [1, 0, 1, 0, 1, 0]
    >>> outcome = [1, 0, 1, 0, 0, 1]
    >>> curve = uplift_curve(score, treated, outcome)
    >>> curve[["fraction", "uplift", "qini"]].round(3)
       fraction  uplift  qini
    0     0.000   0.000   0.0
    1     0.167   0.000   1.0
    2     0.333   2.000   1.0
    3     0.500   3.000   2.0
    4     0.667   4.000   2.0
    5     0.833   3.333   2.0
    6     1.000   2.000   1.0
    >>> round(curve.attrs["qini_area"], 3), round(curve.attrs["qini_area_over_random"], 3)
    (1.417, 0.917)
    """
    index = reference_index(score)  # the other inputs are paired with score by position
    s = float_array(check_1d(score, "score"), "score")
    n = s.shape[0]
    if n == 0:
        raise ValueError("score, treatment and outcome have no cases (0 rows)")
    if not np.isfinite(s).all():
        raise ValueError("score must be finite")
    t = _check_treatment(treatment, n, index)
    y = float_array(check_1d(outcome, "outcome", n_samples=n, index=index,
                             reference="score"), "outcome")
    if not np.isfinite(y).all():
        raise ValueError("outcome must be finite")
    if propensity is None:
        w = np.ones(n)
    else:
        p = float_array(check_1d(propensity, "propensity", n_samples=n, index=index,
                                 reference="score"), "propensity")
        if not ((p > 0) & (p < 1)).all():
            raise ValueError("propensity must be in (0, 1) for every case")
        with np.errstate(divide="ignore", over="ignore"):
            w = np.where(t, 1 / p, 1 / (1 - p))
        if not np.isfinite(w).all():
            i = int(np.argmax(~np.isfinite(w)))
            raise ValueError(f"propensity of row {i} ({float(p[i])!r}) is too close to 0 or 1: its "
                             "inverse-propensity weight overflows")
    if not t.any() or t.all():
        raise ValueError("treatment: the curves need treated and control cases")
    order = np.argsort(-s, kind="stable")
    s, t, y, w = s[order], t[order], y[order], w[order]
    last = np.r_[s[1:] != s[:-1], True]  # the end of each group of tied scores
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # checked below
        Nt = np.cumsum(w * t)[last]
        Nc = np.cumsum(w * ~t)[last]
        Yt = np.cumsum(w * t * y)[last]
        Yc = np.cumsum(w * ~t * y)[last]
        both = (Nt > 0) & (Nc > 0)
        uplift = np.where(both, (Yt / Nt - Yc / Nc) * (Nt + Nc), 0.0)
        qini = np.where(Nc > 0, Yt - Yc * Nt / Nc, Yt)
    if not (np.isfinite(uplift).all() and np.isfinite(qini).all()):
        raise ValueError(
            "outcome: the sums of the outcomes overflow (largest magnitude "
            f"{float(np.abs(y).max()):.3g}"
            + ("" if propensity is None else f", largest weight {float(w.max()):.3g}")
            + "); rescale them, e.g. to thousands")
    k = np.flatnonzero(last) + 1
    curve = pd.DataFrame({
        "fraction": np.r_[0.0, k / n], "n_cases": np.r_[0, k],
        "n_treated": np.r_[0.0, Nt], "n_control": np.r_[0.0, Nc],
        "uplift": np.r_[0.0, uplift], "qini": np.r_[0.0, qini],
    })
    x = curve["fraction"].to_numpy()
    for name in ("uplift", "qini"):
        yv = curve[name].to_numpy()
        area = float(np.sum((yv[1:] + yv[:-1]) * np.diff(x)) / 2)
        curve.attrs[f"{name}_area"] = area
        curve.attrs[f"{name}_area_over_random"] = area - float(yv[-1]) / 2
    return curve


class UpliftCurveDisplay:
    """Qini or cumulative uplift chart of a score, with the random ordering's line.

    Build it with :meth:`from_predictions` (a score) or :meth:`from_estimator` (a
    fitted :class:`~dtdecide.policy.PolicyTree`: the gain of one decision over another
    in each case's leaf); call :meth:`plot` with the same ``ax`` to overlay scores.

    Parameters
    ----------
    curve : DataFrame
        A table from :func:`uplift_curve`.
    name : str, default=None
        Legend label.

    Attributes
    ----------
    curve : DataFrame
    line_ : matplotlib Line2D
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from dtdecide.assess import UpliftCurveDisplay
    >>> disp = UpliftCurveDisplay.from_predictions(
    ...     [0.9, 0.8, 0.7, 0.2], [1, 0, 1, 0], [1, 0, 1, 1], name="score")
    >>> disp.line_.get_ydata().tolist(), disp.ax_.get_ylabel()
    ([0.0, 1.0, 1.0, 2.0, 1.0], 'Qini (extra outcome of the treated)')
    """

    _LABELS = {"qini": "Qini (extra outcome of the treated)",
               "uplift": "Cumulative uplift (extra outcome)"}

    def __init__(self, curve, *, name=None):
        needed = ["fraction", "uplift", "qini"]
        if not isinstance(curve, pd.DataFrame) or any(c not in curve.columns for c in needed):
            raise TypeError(f"curve must be a DataFrame from uplift_curve (columns {needed}); "
                            f"got {type(curve).__name__}" + (
                                f" with columns {list(curve.columns)}"
                                if isinstance(curve, pd.DataFrame) else ""))
        self.curve = curve
        self.name = name

    @classmethod
    def from_predictions(cls, score, treatment, outcome, *, propensity=None, kind="qini",
                         name=None, ax=None):
        """Compute the curve of a score and draw it.

        Parameters
        ----------
        score : array-like of shape (n_samples,)
            Higher first.
        treatment : array-like of shape (n_samples,)
            Whether each case was treated.
        outcome : array-like of shape (n_samples,)
            Observed outcome.
        propensity : array-like of shape (n_samples,), default=None
            Probability of treatment (inverse-propensity weights).
        kind : {"qini", "uplift"}, default="qini"
            The curve drawn.
        name : str, default=None
            Legend label.
        ax : matplotlib Axes, default=None
            Axes to draw on.

        Returns
        -------
        UpliftCurveDisplay
        """
        curve = uplift_curve(score, treatment, outcome, propensity=propensity)
        return cls(curve, name=name).plot(ax, kind=kind)

    @classmethod
    def from_estimator(cls, estimator, X, treatment, outcome, *, treated, control,
                       propensity=None, kind="qini", name=None, ax=None):
        """The curve of a policy tree's leaf gain of ``treated`` over ``control``.

        Parameters
        ----------
        estimator : PolicyTree
            A fitted policy tree (its ``leaf_values_`` give the gains).
        X : DataFrame or array-like of shape (n_samples, n_features)
            Inputs of the held-out cases.
        treatment : array-like of shape (n_samples,)
            Whether each case was treated (got ``treated`` rather than ``control``).
        outcome : array-like of shape (n_samples,)
            Observed outcome.
        treated, control : str
            The two decisions compared.
        propensity : array-like of shape (n_samples,), default=None
            Probability of treatment.
        kind : {"qini", "uplift"}, default="qini"
            The curve drawn.
        name : str, default=None
            Legend label (default: the estimator's class name).
        ax : matplotlib Axes, default=None
            Axes to draw on.

        Returns
        -------
        UpliftCurveDisplay
        """
        decisions = list(getattr(estimator, "decisions_", ()))
        if not hasattr(estimator, "leaf_values_"):
            raise TypeError("estimator must be a fitted PolicyTree (with leaf_values_)")
        for label, d in (("treated", treated), ("control", control)):
            if str(d) not in decisions:  # matched as text, as every decision label
                raise ValueError(f"{label}={d!r} is not a decision of the estimator: "
                                 f"{decisions!r}")
        treated, control = str(treated), str(control)
        if treated == control:
            raise ValueError(f"treated and control are the same decision {treated!r}; the "
                             "curve compares two decisions")
        V = estimator.leaf_values_[estimator.apply(X)]
        score = V[:, decisions.index(treated)] - V[:, decisions.index(control)]
        if isinstance(X, pd.DataFrame):  # treatment, outcome and propensity align to X
            for label, values in (("treatment", treatment), ("outcome", outcome),
                                  ("propensity", propensity)):
                check_same_index(values, X.index, label)
            score = pd.Series(score, index=X.index)
        name = type(estimator).__name__ if name is None else name
        return cls.from_predictions(score, treatment, outcome, propensity=propensity,
                                    kind=kind, name=name, ax=ax)

    def plot(self, ax=None, *, kind="qini", name=None, **kwargs):
        """Draw the curve and the random ordering's line.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on (a new figure when None).
        kind : {"qini", "uplift"}, default="qini"
            The curve drawn.
        name : str, default=None
            Legend label (default: the display's name).
        **kwargs : dict
            Passed to ``ax.plot``.

        Returns
        -------
        self
            This display, with ``line_``, ``ax_`` and ``figure_`` set.
        """
        from ._display import _import_pyplot

        if kind not in self._LABELS:
            raise ValueError(f"kind must be 'qini' or 'uplift'; got {kind!r}")
        plt = _import_pyplot()
        if ax is None:
            _, ax = plt.subplots()
        elif not (hasattr(ax, "plot") and hasattr(ax, "figure")):
            raise TypeError(f"ax must be a matplotlib Axes or None; got {type(ax).__name__}")
        x = 100 * self.curve["fraction"].to_numpy()
        y = self.curve[kind].to_numpy()
        label = name if name is not None else self.name
        (self.line_,) = ax.plot(x, y, label=label, **kwargs)
        ax.plot([0, 100], [0, y[-1]], color="grey", linestyle="--", linewidth=0.8)
        ax.set_xlabel("Cases taken, best score first (%)")
        ax.set_ylabel(self._LABELS[kind])
        if label is not None:
            ax.legend()
        self.ax_ = ax
        self.figure_ = ax.figure
        return self
