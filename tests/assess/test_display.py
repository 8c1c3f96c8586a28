"""Profit chart displays (matplotlib, Agg backend)."""

import numpy as np
import pytest

from dtdecide.assess import ProfitCurveDisplay, plot_profit_curves, profit_curve, profit_curves
from dtdecide.decision import DecisionMatrix

mpl = pytest.importorskip("matplotlib")
mpl.use("Agg")
plt = pytest.importorskip("matplotlib.pyplot")

Y = np.array([1, 0, 1, 0, 0, 1, 0, 0])
P = np.array([0.9, 0.8, 0.7, 0.5, 0.4, 0.35, 0.2, 0.1])
M = DecisionMatrix({"mail": [11.0, 0.0]}, levels=[1, 0], kind="revenue", costs={"mail": 1.0})


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def test_from_predictions_draws_the_curve():
    disp = ProfitCurveDisplay.from_predictions(Y, P, M, n_bins=4, name="A", role="valid")
    curve = profit_curve(Y, P, M, n_bins=4)
    np.testing.assert_allclose(disp.line_.get_ydata(), np.r_[0.0, curve["cum_profit"]])
    np.testing.assert_allclose(disp.line_.get_xdata(), [0, 25, 50, 75, 100])
    assert disp.ax_.get_title() == "valid"
    assert disp.line_.get_label() == "A"


def test_overlay_on_same_axes_and_other_statistics():
    fig, ax = plt.subplots()
    ProfitCurveDisplay.from_predictions(Y, P, M, n_bins=4, name="good", ax=ax)
    d2 = ProfitCurveDisplay.from_predictions(Y, P[::-1], M, n_bins=4, name="bad", ax=ax,
                                             statistic="cum_roi")
    assert len(ax.get_lines()) == 3  # two curves and the zero line of the first
    assert d2.ax_ is ax and len(d2.line_.get_xdata()) == 4  # ROI does not start at 0
    with pytest.raises(ValueError, match="statistic"):
        d2.plot(statistic="nope")


def test_from_estimator_uses_model_and_matrix():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    y = (X[:, 0] + rng.normal(size=200) > 0.5).astype(int)
    lr = LogisticRegression().fit(X, y)
    disp = ProfitCurveDisplay.from_estimator(lr, X, y, matrix=M, statistic="cum_lift")
    curve = profit_curve(y, lr.predict_proba(X)[:, 1], M)
    np.testing.assert_allclose(disp.line_.get_ydata(), curve["cum_lift"])
    assert disp.line_.get_label() == "LogisticRegression"


def test_plot_profit_curves_panels_and_overlays():
    scores = {"A": {"train": P, "test": P}, "B": {"train": P[::-1], "test": P[::-1]}}
    data = {"train": (None, Y), "test": (None, Y)}
    curves = profit_curves(scores, data, M, n_bins=4)
    fig, axes = plot_profit_curves(curves, statistic="gain")
    assert [ax.get_title() for ax in axes] == ["train", "test"]
    assert [ln.get_label() for ln in axes[0].get_lines()] == ["A", "B"]
    _, one = plot_profit_curves(curves[curves["role"] == "test"], panel=None)
    assert len(one) == 1
    with pytest.raises(ValueError, match="axes must hold"):
        plot_profit_curves(curves, axes=[axes[0]])
    with pytest.raises(ValueError, match="no column"):
        plot_profit_curves(curves, overlay="variant")


def test_display_needs_a_curve():
    with pytest.raises(TypeError, match="curve"):
        ProfitCurveDisplay([1, 2, 3])
