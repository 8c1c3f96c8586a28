"""Plots of profit charts. matplotlib is imported only when something is drawn."""

import numpy as np
import pandas as pd

from ._compare import _models_dict, check_data, score_entry
from ._profit_curve import _check_n_bins, curve_from_scored
from ._scoring import event_code, score_cases

__all__ = ["ProfitCurveDisplay", "plot_profit_curves", "profit_curves"]

# statistics that are 0 at depth 0 (the curve then starts at the origin)
_START_AT_ZERO = {"cum_profit", "cum_investment", "gain", "population_average_profit"}

_LABELS = {
    "cum_profit": "Cumulative total profit",
    "profit": "Total profit in bin",
    "average_profit": "Average profit in bin",
    "cum_average_profit": "Cumulative average profit (per case taken)",
    "population_average_profit": "Average profit over the population",
    "roi": "ROI in bin",
    "cum_roi": "Cumulative ROI",
    "lift": "Lift",
    "cum_lift": "Cumulative lift",
    "gain": "Gain (share of responses captured)",
    "response_rate": "Response rate in bin",
    "cum_response_rate": "Cumulative response rate",
}


def _import_pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "plotting needs matplotlib: pip install 'dtdecide[plot]'"
        ) from exc
    return plt


def _xy(curve, statistic):
    if statistic not in curve.columns:
        raise ValueError(
            f"statistic must be a column of the curve {list(curve.columns)}; got {statistic!r}"
        )
    x = 100.0 * curve["depth"].to_numpy(dtype=float)
    y = curve[statistic].to_numpy(dtype=float)
    if statistic in _START_AT_ZERO:
        x, y = np.r_[0.0, x], np.r_[0.0, y]
    return x, y


class ProfitCurveDisplay:
    """Profit (ROI, lift, gains) chart against depth, with an implicit do-nothing.

    Build it with :meth:`from_estimator` or :meth:`from_predictions`; call
    :meth:`plot` again with the same ``ax`` to overlay several models.

    Parameters
    ----------
    curve : DataFrame
        A table from :func:`~dtdecide.assess.profit_curve`.
    name : str, default=None
        Legend label.
    role : str, default=None
        Data role (``"train"``, ``"validation"``, ...), shown in the title.

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
    >>> from dtdecide import DecisionMatrix
    >>> from dtdecide.assess import ProfitCurveDisplay
    >>> m = DecisionMatrix({"mail": [9, -1]}, levels=[1, 0])
    >>> disp = ProfitCurveDisplay.from_predictions(
    ...     [1, 0, 1, 0, 0], [0.9, 0.8, 0.3, 0.2, 0.1], m, n_bins=5, role="validation")
    >>> disp.ax_.get_title(), disp.line_.get_ydata().tolist()
    ('validation', [0.0, 9.0, 8.0, 17.0, 16.0, 15.0])

    Another statistic of the same curve, on new axes:

    >>> disp = disp.plot(statistic="cum_lift", name="model A (lift)")
    >>> disp.line_.get_ydata().round(2).tolist(), disp.ax_.get_ylabel()
    ([2.5, 1.25, 1.67, 1.25, 1.0], 'Cumulative lift')
    """

    def __init__(self, curve, *, name=None, role=None):
        if not isinstance(curve, pd.DataFrame) or "depth" not in curve.columns:
            raise TypeError(
                "curve must be a DataFrame from profit_curve (with a depth column); got "
                + (f"columns {list(curve.columns)}" if isinstance(curve, pd.DataFrame)
                   else type(curve).__name__)
            )
        self.curve = curve
        self.name = name
        self.role = role

    def plot(self, ax=None, *, statistic="cum_profit", name=None, **kwargs):
        """Draw one statistic of the chart against the depth.

        Parameters
        ----------
        ax : matplotlib Axes, default=None
            Axes to draw on (a new figure when None). Reuse it to overlay models.
        statistic : str, default="cum_profit"
            A column of the curve: ``cum_profit``, ``average_profit``, ``cum_roi``,
            ``lift``, ``cum_lift``, ``gain``, ``response_rate``, ...
        name : str, default=None
            Legend label (default: the display's name).
        **kwargs : dict
            Passed to ``ax.plot``.

        Returns
        -------
        self
            This display, with ``line_``, ``ax_`` and ``figure_`` set.
        """
        plt = _import_pyplot()
        if ax is None:
            _, ax = plt.subplots()
        elif not (hasattr(ax, "plot") and hasattr(ax, "figure")):
            raise TypeError(f"ax must be a matplotlib Axes or None; got {type(ax).__name__}")
        x, y = _xy(self.curve, statistic)
        label = name if name is not None else self.name
        kwargs.setdefault("marker", "o")
        kwargs.setdefault("markersize", 3)
        (self.line_,) = ax.plot(x, y, label=label, **kwargs)
        ax.set_xlabel("Depth (% of cases taking their decision)")
        ax.set_ylabel(_LABELS.get(statistic, statistic))
        if statistic in ("cum_profit", "profit", "average_profit", "cum_average_profit",
                         "population_average_profit"):
            ax.axhline(0.0, color="grey", linewidth=0.5)
        if self.role is not None:
            ax.set_title(str(self.role))
        if label is not None:
            ax.legend(loc="best")
        self.ax_ = ax
        self.figure_ = ax.figure
        return self

    @classmethod
    def from_predictions(cls, y_true, y_score, matrix, *, costs=None, decision_costs=None,
                         sample_weight=None, train_priors=None, event=None, n_bins=20,
                         statistic="cum_profit", name=None, role=None, ax=None, **kwargs):
        """Chart from actual targets and posteriors (or predictions).

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            As in :func:`~dtdecide.assess.profit_curve`.
        y_score : DataFrame or array-like
            As in :func:`~dtdecide.assess.profit_curve`.
        matrix : DecisionMatrix
            As in :func:`~dtdecide.assess.profit_curve`.
        costs : DataFrame or dict of arrays, default=None
            As in :func:`~dtdecide.assess.profit_curve`.
        decision_costs : DataFrame, dict or Series, default=None
            As in :func:`~dtdecide.assess.profit_curve`. A dtdecide tree keeps its
            leaf decisions (taken from its training costs) and ignores it.
        sample_weight : array-like of shape (n_samples,), default=None
            As in :func:`~dtdecide.assess.profit_curve`.
        train_priors : array-like, default=None
            As in :func:`~dtdecide.assess.profit_curve`.
        event : level, default=None
            As in :func:`~dtdecide.assess.profit_curve`.
        n_bins : int, default=20
            As in :func:`~dtdecide.assess.profit_curve`.
        statistic : str, default="cum_profit"
            As in :meth:`plot`.
        name : str, default=None
            As in :meth:`plot`.
        role : str, default=None
            Data role shown in the title.
        ax : matplotlib Axes, default=None
            As in :meth:`plot`.
        **kwargs : dict
            As in :meth:`plot`.

        Returns
        -------
        ProfitCurveDisplay
            The display, already drawn.
        """
        from ._profit_curve import profit_curve

        curve = profit_curve(y_true, y_score, matrix, costs=costs,
                             decision_costs=decision_costs, sample_weight=sample_weight,
                             train_priors=train_priors, event=event, n_bins=n_bins)
        return cls(curve, name=name, role=role).plot(ax, statistic=statistic, **kwargs)

    @classmethod
    def from_estimator(cls, estimator, X, y, *, matrix=None, costs=None,
                       decision_costs=None, sample_weight=None, train_priors=None,
                       event=None, n_bins=20, statistic="cum_profit", name=None, role=None,
                       ax=None, **kwargs):
        """Chart of a fitted model on data ``X, y``.

        Parameters
        ----------
        estimator : estimator
            A fitted dtdecide tree or DecisionEstimator (its own decisions; ``matrix``
            re-decides it), or any fitted scikit-learn model together with ``matrix``.
        X, y : array-like
            Inputs and actual target.
        matrix : DecisionMatrix, default=None
            Decision matrix; required for a plain scikit-learn model,
            re-decides a dtdecide model when given.
        costs : DataFrame or dict of arrays, default=None
            As in :func:`~dtdecide.assess.profit_curve`.
        decision_costs : DataFrame, dict or Series, default=None
            As in :func:`~dtdecide.assess.profit_curve`. A dtdecide tree keeps its
            leaf decisions (taken from its training costs) and ignores it.
        sample_weight : array-like of shape (n_samples,), default=None
            As in :func:`~dtdecide.assess.profit_curve`.
        train_priors : array-like, default=None
            As in :func:`~dtdecide.assess.profit_curve`.
        event : level, default=None
            As in :func:`~dtdecide.assess.profit_curve`.
        n_bins : int, default=20
            As in :func:`~dtdecide.assess.profit_curve`.
        statistic : str, default="cum_profit"
            As in :meth:`plot`.
        name : str, default=None
            Legend label; by default the class name of the estimator.
        role : str, default=None
            Data role shown in the title.
        ax : matplotlib Axes, default=None
            As in :meth:`plot`.
        **kwargs : dict
            As in :meth:`plot`.

        Returns
        -------
        ProfitCurveDisplay

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import numpy as np
        >>> from sklearn.linear_model import LogisticRegression
        >>> from dtdecide import DecisionMatrix
        >>> from dtdecide.assess import ProfitCurveDisplay
        >>> rng = np.random.default_rng(0)
        >>> X = rng.normal(size=(300, 2))
        >>> y = (X[:, 0] + rng.normal(size=300) > 1).astype(int)
        >>> m = DecisionMatrix({"mail": [10, -1]}, levels=[1, 0])
        >>> lr = LogisticRegression().fit(X, y)
        >>> disp = ProfitCurveDisplay.from_estimator(lr, X, y, matrix=m)
        >>> disp.ax_.get_xlabel()
        'Depth (% of cases taking their decision)'
        """
        n_bins = _check_n_bins(n_bins)
        m = matrix if matrix is not None else getattr(estimator, "decision_matrix_", None)
        idx = event_code(m, event) if m is not None else None
        scored = score_cases(estimator, X, y, matrix, costs=costs, sample_weight=sample_weight,
                             train_priors=train_priors, event_idx=idx, name="estimator",
                             decision_costs=decision_costs)
        curve = curve_from_scored(scored, sample_weight=sample_weight, event_idx=idx,
                                  n_bins=n_bins)
        if name is None:
            name = type(estimator).__name__
        return cls(curve, name=name, role=role).plot(ax, statistic=statistic, **kwargs)


def profit_curves(models, data, matrix=None, *, train_priors=None, event=None, n_bins=20,
                  decision_costs=None):
    """Profit chart tables of several models on several data sets, stacked.

    Parameters
    ----------
    models : dict or list
        As in :func:`~dtdecide.assess.compare_models`.
    data : dict
        As in :func:`~dtdecide.assess.compare_models`.
    matrix : DecisionMatrix, default=None
        As in :func:`~dtdecide.assess.compare_models`.
    train_priors : array-like, default=None
        As in :func:`~dtdecide.assess.compare_models`.
    event : level, default=None
        As in :func:`~dtdecide.assess.compare_models`.
    n_bins : int, default=20
        Depths of each chart.
    decision_costs : dict, Series or DataFrame, default=None
        As in :func:`~dtdecide.assess.compare_models` (a data entry may also hold its
        own ``"decision_costs"``).

    Returns
    -------
    DataFrame
        The columns of :func:`~dtdecide.assess.profit_curve` with ``model`` and
        ``role`` in front; feed it to :func:`plot_profit_curves`.

    Examples
    --------
    >>> import numpy as np
    >>> from dtdecide import DecisionMatrix
    >>> from dtdecide.assess import profit_curves
    >>> m = DecisionMatrix({"mail": [9, -1]}, levels=[1, 0])
    >>> y = np.array([1, 0, 1, 0, 0])
    >>> scores = {"A": {"valid": np.array([0.9, 0.8, 0.3, 0.2, 0.1])},
    ...           "B": {"valid": np.array([0.1, 0.2, 0.3, 0.8, 0.9])}}
    >>> curves = profit_curves(scores, {"valid": (None, y)}, m, n_bins=5)
    >>> curves.groupby("model")["cum_profit"].max().to_dict()
    {'A': 17.0, 'B': 15.0}
    """
    n_bins = _check_n_bins(n_bins)
    models = _models_dict(models)
    check_data(data, matrix)
    parts = []
    for name, model in models.items():
        for role, entry in data.items():
            scored, idx, w = score_entry(name, model, role, entry, matrix, event=event,
                                         train_priors=train_priors,
                                         decision_costs=decision_costs)
            curve = curve_from_scored(scored, sample_weight=w, event_idx=idx, n_bins=n_bins)
            curve.insert(0, "role", role)
            curve.insert(0, "model", name)
            parts.append(curve)
    return pd.concat(parts, ignore_index=True)


def plot_profit_curves(curves, *, statistic="cum_profit", overlay="model", panel="role",
                       axes=None, **kwargs):
    """Overlay profit charts, one panel per data role (or per model, variant, ...).

    Parameters
    ----------
    curves : DataFrame
        Stacked chart tables, e.g. from :func:`profit_curves` or
        :func:`~dtdecide.assess.what_if_curves`.
    statistic : str, default="cum_profit"
        Column drawn against the depth.
    overlay : str, default="model"
        Column whose values are drawn as lines on the same axes.
    panel : str or None, default="role"
        Column whose values get their own axes, side by side (None: one axes).
    axes : array of matplotlib Axes, default=None
        One per panel value; created when None.
    **kwargs : dict
        Passed to ``ax.plot``.

    Returns
    -------
    figure : matplotlib Figure
        The figure holding the charts.
    axes : ndarray of matplotlib Axes
        One axes per panel value.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from dtdecide import DecisionMatrix
    >>> from dtdecide.assess import plot_profit_curves, profit_curves
    >>> m = DecisionMatrix({"mail": [9, -1]}, levels=[1, 0])
    >>> y = np.array([1, 0, 1, 0, 0])
    >>> p = np.array([0.9, 0.8, 0.3, 0.2, 0.1])
    >>> scores = {"A": {"train": p, "test": p[::-1]}}
    >>> data = {"train": (None, y), "test": (None, y[::-1])}
    >>> fig, axes = plot_profit_curves(profit_curves(scores, data, m, n_bins=5))
    >>> [ax.get_title() for ax in axes]
    ['train', 'test']
    """
    if not isinstance(curves, pd.DataFrame):
        raise TypeError(f"curves must be a DataFrame of stacked charts (from profit_curves "
                        f"or what_if_curves); got {type(curves).__name__}")
    plt = _import_pyplot()
    for col in (overlay, panel):
        if col is not None and col not in curves.columns:
            raise ValueError(f"curves has no column {col!r}; columns are {list(curves.columns)}")
    panels = [None] if panel is None else list(pd.unique(curves[panel]))
    if axes is None:
        fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4), squeeze=False)
        axes = axes[0]
    else:
        axes = np.atleast_1d(axes)
        if len(axes) != len(panels):
            raise ValueError(f"axes must hold {len(panels)} Axes (one per {panel}); got {len(axes)}")
        fig = axes[0].figure
    for ax, value in zip(axes, panels):
        part = curves if value is None else curves[curves[panel] == value]
        for label, sub in part.groupby(overlay, sort=False):
            ProfitCurveDisplay(sub, name=str(label), role=value).plot(
                ax, statistic=statistic, **kwargs)
    return fig, axes
