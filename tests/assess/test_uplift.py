"""Qini and cumulative uplift curves: a slow twin, ties, weights, areas, the display."""

import numpy as np
import pytest

from dtdecide.assess import UpliftCurveDisplay, uplift_curve
from dtdecide.policy import PolicyTree, make_logged_campaign


def _twin(score, t, y, w):
    """Point by point over the distinct scores (slow and obvious)."""
    out = []
    for v in sorted(set(score), reverse=True):
        top = score >= v
        nt, nc = w[top & t].sum(), w[top & ~t].sum()
        yt, yc = (w * y)[top & t].sum(), (w * y)[top & ~t].sum()
        up = (yt / nt - yc / nc) * (nt + nc) if nt > 0 and nc > 0 else 0.0
        q = yt - yc * nt / nc if nc > 0 else yt
        out.append((top.mean(), up, q))
    return np.array(out)


@pytest.mark.parametrize("seed", range(6))
def test_curve_equals_its_twin(seed):
    rng = np.random.default_rng(seed)
    n = 40
    score = rng.integers(0, 8, size=n).astype(float)  # ties
    t = rng.random(n) < 0.5
    t[:2] = [True, False]
    y = rng.normal(size=n)
    p = rng.uniform(0.2, 0.8, size=n) if seed % 2 else None
    w = np.ones(n) if p is None else np.where(t, 1 / p, 1 / (1 - p))
    c = uplift_curve(score, t, y, propensity=p)
    want = _twin(score, t, y, w)
    np.testing.assert_allclose(c[["fraction", "uplift", "qini"]].to_numpy()[1:], want)
    x, q = c["fraction"].to_numpy(), c["qini"].to_numpy()
    assert c.attrs["qini_area"] == pytest.approx(np.trapezoid(q, x))
    assert c.attrs["qini_area_over_random"] == pytest.approx(np.trapezoid(q, x) - q[-1] / 2)


def test_a_good_score_beats_a_random_one_and_the_display_draws():
    import matplotlib

    matplotlib.use("Agg")
    d = make_logged_campaign(3000, effect="step", confounding=0.0, random_state=0)
    keep = np.isin(d.action, ["mail", "none"])
    t = d.action[keep] == "mail"
    y = d.outcome[keep]
    true_gain = (d.expected["mail"] - d.expected["none"]).to_numpy()[keep]
    good = uplift_curve(true_gain, t, y)
    noise = uplift_curve(np.random.default_rng(0).random(keep.sum()), t, y)
    assert good.attrs["qini_area_over_random"] > noise.attrs["qini_area_over_random"] + 20
    pt = PolicyTree(decisions=["none", "mail"], max_depth=1).fit(
        d.X[keep], d.action[keep], None, rewards=d.expected[keep])
    disp = UpliftCurveDisplay.from_estimator(pt, d.X[keep], t, y, treated="mail",
                                             control="none", kind="uplift")
    assert disp.ax_.get_ylabel().startswith("Cumulative uplift")
    assert disp.curve.attrs["uplift_area_over_random"] > 0
    with pytest.raises(ValueError, match="treatment"):
        uplift_curve([1, 2], [1, 1], [0, 1])
    with pytest.raises(ValueError, match="decision"):
        UpliftCurveDisplay.from_estimator(pt, d.X, t, y, treated="sms", control="none")
