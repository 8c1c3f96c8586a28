"""Benefit metric: hand-computed values, a slow reference, properties and validation."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import confusion_matrix

from dtdecide.models import (
    benefit_curve,
    benefit_eta,
    benefit_from_confusion,
    benefit_metric,
    benefit_score,
    best_benefit_threshold,
    one_vs_rest_benefits,
)

B = np.array([[1.0, -1.0], [-2.0, 3.0]])


def reference_curve(y, s, b, priors=None, w=None):
    """Slow, obvious B(t): loop over thresholds and count."""
    y, s = np.asarray(y), np.asarray(s, float)
    w = np.ones(len(y)) if w is None else np.asarray(w, float)
    n0, n1 = w[y == 0].sum(), w[y == 1].sum()
    pi = np.array([n0, n1]) / (n0 + n1) if priors is None else np.asarray(priors, float)
    rows = []
    for t in [-np.inf, *sorted(set(s.tolist()))]:
        F0 = sum(wi for yi, si, wi in zip(y, s, w) if yi == 0 and si <= t) / n0
        F1 = sum(wi for yi, si, wi in zip(y, s, w) if yi == 1 and si <= t) / n1
        benefit = (
            pi[0] * F0 * b[0][0]
            + pi[0] * (1 - F0) * b[0][1]
            + pi[1] * F1 * b[1][0]
            + pi[1] * (1 - F1) * b[1][1]
        )
        rows.append((t, F0, F1, benefit))
    return np.array(rows)


def test_curve_by_hand():
    # y = [0, 0, 1, 1], priors (0.5, 0.5)
    # t=-inf: all class 1 -> 0.5*(-1) + 0.5*3 = 1.0
    # t=0.10: F0=.5 -> .5*.5*1 + .5*.5*(-1) + .5*3 = 1.5
    # t=0.35: F0=.5, F1=.5 -> 0 + .5*.5*(-2) + .5*.5*3 = 0.25
    # t=0.40: F0=1, F1=.5 -> .5 + .25 = 0.75
    # t=0.80: F0=F1=1 -> .5 - 1 = -0.5
    curve = benefit_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], B)
    assert list(curve.columns) == ["threshold", "F0", "F1", "benefit", "mu"]
    np.testing.assert_allclose(curve["threshold"], [-np.inf, 0.1, 0.35, 0.4, 0.8])
    np.testing.assert_allclose(curve["benefit"], [1.0, 1.5, 0.25, 0.75, -0.5])
    # bound = .5*1 + .5*3 = 2
    np.testing.assert_allclose(curve["mu"], np.array([1.0, 1.5, 0.25, 0.75, -0.5]) / 2)


def test_curve_with_priors_and_ties_by_hand():
    # scores tie at 0.5 across classes: both move together
    y = [0, 1, 0, 1]
    s = [0.5, 0.5, 0.2, 0.9]
    curve = benefit_curve(y, s, B, priors=[0.8, 0.2])
    # thresholds -inf, .2, .5, .9
    np.testing.assert_allclose(curve["F0"], [0, 0.5, 1, 1])
    np.testing.assert_allclose(curve["F1"], [0, 0, 0.5, 1])
    # t=.2: .8*.5*1 + .8*.5*(-1) + .2*3 = 0.6
    # t=.5: .8*1 + .2*.5*(-2) + .2*.5*3 = 0.9
    np.testing.assert_allclose(curve["benefit"], [-0.8 + 0.6, 0.6, 0.9, 0.8 - 0.4])
    assert best_benefit_threshold(y, s, B, priors=[0.8, 0.2]) == 0.5
    assert benefit_metric(y, s, B, priors=[8, 2]) == pytest.approx(0.9 / (0.8 + 0.6))


def test_metric_at_threshold_and_best():
    y, s = [0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]
    assert benefit_metric(y, s, B) == pytest.approx(1.5 / 2)
    assert benefit_metric(y, s, B, threshold=0.5) == pytest.approx(0.75 / 2)
    assert best_benefit_threshold(y, s, B) == 0.1
    # scores all equal -> only "all class 1" and "all class 0" exist
    assert best_benefit_threshold([0, 1, 1], [0.3, 0.3, 0.3], B) == -np.inf


def test_pos_label_and_string_labels():
    y = np.array(["no", "no", "yes", "yes"])
    s = [0.1, 0.4, 0.35, 0.8]
    a = benefit_curve(y, s, B)
    b = benefit_curve([0, 0, 1, 1], s, B)
    pd.testing.assert_frame_equal(a, b)
    # "no" as positive: reverse the scores' meaning
    c = benefit_curve(y, s, B, pos_label="no")
    assert c["F1"].iloc[1] == 0.5  # the "no" case with score .1 is <= .1


def test_sample_weight_equals_repetition():
    y, s, w = [0, 1, 0, 1, 1], [0.2, 0.3, 0.6, 0.9, 0.1], [2, 1, 3, 1, 2]
    rep = np.repeat(np.arange(5), w)
    a = benefit_curve(y, s, B, sample_weight=w)
    b = benefit_curve(np.asarray(y)[rep], np.asarray(s)[rep], B)
    pd.testing.assert_frame_equal(a, b)


def test_bayes_threshold_on_calibrated_scores():
    # calibrated posteriors: the best threshold is near eta / (1 + eta)
    rng = np.random.default_rng(0)
    p = rng.uniform(size=20000)
    y = (rng.uniform(size=p.size) < p).astype(int)
    b = [[1.0, -4.0], [-1.0, 2.0]]
    eta = benefit_eta(b)
    assert eta == pytest.approx(5 / 3)
    assert best_benefit_threshold(y, p, b) == pytest.approx(eta / (1 + eta), abs=0.03)


def test_eta_by_hand():
    assert benefit_eta([[1, -1], [-2, 3]]) == pytest.approx(2 / 5)
    assert benefit_eta([[0, -1], [-10, 0]]) == pytest.approx(0.1)


def test_one_vs_rest_by_hand():
    b = [[4, -1, -2], [-3, 2, -1], [-2, -4, 6]]
    pi = [0.5, 0.25, 0.25]
    out = one_vs_rest_benefits(b, pi)
    # class 1: rest {0, 2}
    # b00 = .5*b[0,0] + .25*b[2,2] = 2 + 1.5 = 3.5
    # b01 = .5*b[0,1] + .25*b[2,1] = -.5 - 1 = -1.5
    # b10 = .5*b[1,0] + .25*b[1,2] = -1.5 - .25 = -1.75; b11 = b[1,1] = 2
    np.testing.assert_allclose(out[1], [[3.5, -1.5], [-1.75, 2.0]])
    # class 2: rest {0, 1}: b00 = 2 + .5 = 2.5; b01 = .5*(-2) + .25*(-1) = -1.25
    # b10 = .5*(-2) + .25*(-4) = -2; b11 = 6
    np.testing.assert_allclose(out[2], [[2.5, -1.25], [-2.0, 6.0]])


def test_confusion_by_hand_and_multiclass():
    conf = [[8, 2], [1, 9]]
    assert benefit_from_confusion(conf, B, [0.5, 0.5]) == pytest.approx(1.55)
    # priors from the rows: (.5, .5) as well
    assert benefit_from_confusion(conf, B) == pytest.approx(1.55)
    b3 = [[4, -1, -2], [-3, 2, -1], [-2, -4, 6]]
    conf3 = [[5, 5, 0], [0, 4, 0], [1, 0, 1]]
    # F = [[.5,.5,0],[0,1,0],[.5,0,.5]], pi = (10, 4, 2)/16
    # row sums of F*b: 1.5, 2, 2  -> (15 + 8 + 4)/16
    assert benefit_from_confusion(conf3, b3) == pytest.approx(27 / 16)
    # a class with a positive prior and no case: undefined
    assert np.isnan(benefit_from_confusion([[3, 1], [0, 0]], B, [0.5, 0.5]))


def test_benefit_score_matches_confusion():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, 200)
    pred = rng.integers(0, 3, 200)
    w = rng.uniform(0.5, 2, 200)
    b3 = np.array([[4, -1, -2], [-3, 2, -1], [-2, -4, 6]])
    conf = confusion_matrix(y, pred, sample_weight=w)
    pi = conf.sum(1) / conf.sum()
    expected = benefit_from_confusion(conf, b3) / (pi @ np.diag(b3))
    assert benefit_score(y, pred, b3, sample_weight=w) == pytest.approx(expected)
    assert benefit_score(y, y, b3) == pytest.approx(1.0)


@settings(max_examples=60, deadline=None)
@given(
    data=st.lists(
        st.tuples(st.integers(0, 1), st.integers(0, 6), st.integers(1, 3)),
        min_size=2,
        max_size=30,
    ).filter(lambda r: {t[0] for t in r} == {0, 1}),
    b=st.tuples(st.integers(0, 5), st.integers(-5, -1), st.integers(-5, -1), st.integers(0, 5)),
)
def test_curve_matches_reference_and_confusion(data, b):
    y = np.array([d[0] for d in data])
    s = np.array([d[1] for d in data]) / 6.0
    w = np.array([d[2] for d in data], float)
    bm = [[b[0], b[1]], [b[2], b[3]]]
    curve = benefit_curve(y, s, bm, sample_weight=w)
    ref = reference_curve(y, s, bm, w=w)
    np.testing.assert_allclose(curve[["threshold", "F0", "F1", "benefit"]].to_numpy(), ref)
    # every B(t) equals the multiclass form on the thresholded predictions
    for t, benefit in zip(curve["threshold"], curve["benefit"]):
        conf = confusion_matrix(y, (s > t).astype(int), labels=[0, 1], sample_weight=w)
        assert benefit_from_confusion(conf, bm) == pytest.approx(benefit)
    # the best threshold attains the maximum; mu is invariant under monotone rescaling
    best = best_benefit_threshold(y, s, bm, sample_weight=w)
    assert curve.loc[curve["threshold"] == best, "benefit"].iloc[0] == curve["benefit"].max()
    if b[0] + b[3] > 0:
        assert benefit_metric(y, s, bm, sample_weight=w) == pytest.approx(
            benefit_metric(y, np.exp(3 * s) - 7, bm, sample_weight=w)
        )
        assert benefit_metric(y, s, bm, sample_weight=w) <= 1 + 1e-12


@pytest.mark.parametrize(
    "bad, match",
    [
        ([[1, 1], [-1, 1]], "off-diagonal < 0"),
        ([[-1, -1], [-1, 1]], "diagonal >= 0"),
        ([[1, -1, -1], [-1, 1, -1]], "square"),
        ([[1, -1], [-1, np.nan]], "finite"),
        ([[1, -1, -1], [-1, 1, -1], [-1, -1, 1]], "one row and one column per class"),
    ],
)
def test_benefit_matrix_validation(bad, match):
    with pytest.raises(ValueError, match=match) as info:
        benefit_curve([0, 1], [0.2, 0.8], bad)
    assert "benefit_matrix" in str(info.value)


def test_other_validation():
    with pytest.raises(ValueError, match="priors"):
        benefit_curve([0, 1], [0.2, 0.8], B, priors=[-1, 2])
    with pytest.raises(ValueError, match="exactly two classes"):
        benefit_curve([0, 1, 2], [0.2, 0.8, 0.5], B)
    with pytest.raises(ValueError, match="y_score"):
        benefit_curve([0, 1], [0.2, np.nan], B)
    with pytest.raises(ValueError, match="same length"):
        benefit_curve([0, 1], [0.2], B)
    with pytest.raises(ValueError, match="mu is undefined"):
        benefit_metric([0, 1], [0.2, 0.8], [[0, -1], [-1, 0]])
    with pytest.raises(TypeError, match="threshold"):
        benefit_metric([0, 1], [0.2, 0.8], B, threshold="high")
    with pytest.raises(ValueError, match="no case"):
        benefit_curve([0, 0], [0.2, 0.8], B, pos_label=1, priors=[0.5, 0.5])
    with pytest.raises(ValueError, match="labels"):
        benefit_score([0, 1], [0, 2], B, labels=[0, 1])


def test_dataframe_matrix_is_reordered_by_labels():
    frame = pd.DataFrame([[3, -2], [-1, 1]], index=["yes", "no"], columns=["yes", "no"])
    y = ["no", "yes", "yes", "no"]
    pred = ["no", "yes", "no", "no"]
    a = benefit_score(y, pred, frame)
    b = benefit_score(y, pred, [[1, -1], [-2, 3]])  # sorted order: no, yes
    assert a == pytest.approx(b)
    with pytest.raises(ValueError, match="labelled by the classes"):
        benefit_score(y, pred, frame.rename(index={"yes": "si"}))


@settings(max_examples=50, deadline=None)
@given(
    b=st.tuples(st.floats(0, 10), st.floats(-10, -0.1), st.floats(-10, -0.1), st.floats(0, 10)),
    shift=st.tuples(st.floats(-0.05, 0.05), st.floats(-0.05, 0.05)),
    scale=st.floats(0.1, 10),
)
def test_eta_ignores_row_shifts_and_scale(b, shift, scale):
    bm = np.array([[b[0], b[1]], [b[2], b[3]]])
    moved = scale * bm + np.array(shift)[:, None]
    # keep the sign convention after the shift
    if np.all(np.diag(moved) >= 0) and moved[0, 1] < 0 and moved[1, 0] < 0:
        assert benefit_eta(moved) == pytest.approx(benefit_eta(bm), rel=1e-9)
    # eta / (1 + eta) is the Bayes threshold: a calibrated p at it is indifferent
    eta = benefit_eta(bm)
    p = eta / (1 + eta)
    gain_1 = p * bm[1, 1] + (1 - p) * bm[0, 1]
    gain_0 = p * bm[1, 0] + (1 - p) * bm[0, 0]
    assert gain_1 == pytest.approx(gain_0, abs=1e-9)
