"""Array kernels: hand-computed cases and slow, obvious twins."""

import math

import numpy as np
import pytest

from dtdecide.decision import (
    adjust_posteriors,
    decide_arrays,
    encode_target,
    interpolate_knots,
    prior_adjustment_weights,
    roi,
)


def slow_decide(A):
    D, E = [], []
    for row in A:
        best, best_j = None, -1
        for j, a in enumerate(row):
            if best is None or a > best:  # strictly greater: first maximum wins
                best, best_j = a, j
        D.append(best_j)
        E.append(best)
    return np.array(D), np.array(E)


def slow_interp(knots, vals, x):
    # segment for each x, extending the end segments
    m = len(knots)
    for k in range(m - 1):
        if x < knots[k + 1] or k == m - 2:
            if x >= knots[k] or k == 0:
                break
    x0, x1, v0, v1 = knots[k], knots[k + 1], vals[k], vals[k + 1]
    return v0 + (v1 - v0) * (x - x0) / (x1 - x0)


def test_decide_arrays_matches_slow_twin():
    rng = np.random.default_rng(1)
    A = rng.integers(-3, 4, size=(500, 5)).astype(float)  # many ties
    D, E = decide_arrays(A)
    D_ref, E_ref = slow_decide(A)
    np.testing.assert_array_equal(D, D_ref)
    np.testing.assert_array_equal(E, E_ref)


def test_decide_arrays_ties_go_to_first_and_nan_rows():
    D, E = decide_arrays([[2.0, 2.0, 1.0], [0.0, 5.0, 5.0], [np.nan, 1.0, 0.0]])
    assert D.tolist() == [0, 1, -1]
    assert E[:2].tolist() == [2.0, 5.0]
    assert np.isnan(E[2])


def test_decide_arrays_rejects_bad_shape():
    with pytest.raises(ValueError, match="A must be 2-D"):
        decide_arrays([1.0, 2.0])


def test_interpolate_inside_and_extrapolate_both_sides():
    knots = [0.0, 10.0, 30.0]
    vals = [0.0, 100.0, 140.0]
    x = [5.0, 10.0, 20.0, -5.0, 40.0]
    out = interpolate_knots(knots, vals, x)
    # inside: 50; at knot: 100; between 10 and 30 slope 2: 120
    # left: slope 10 extended -> -50; right: slope 2 extended -> 160
    np.testing.assert_allclose(out, [50.0, 100.0, 120.0, -50.0, 160.0])


def test_interpolate_matches_slow_twin_with_columns():
    rng = np.random.default_rng(2)
    knots = np.sort(rng.choice(np.arange(-50, 50), size=6, replace=False)).astype(float)
    vals = rng.normal(size=(6, 3))
    x = rng.uniform(-80, 80, size=200)
    out = interpolate_knots(knots, vals, x)
    for i, xi in enumerate(x):
        for d in range(3):
            assert out[i, d] == pytest.approx(slow_interp(knots, vals[:, d], xi), abs=1e-9)


@pytest.mark.parametrize("knots, msg", [
    ([1.0], "at least two"),
    ([0.0, 0.0, 1.0], "sorted ascending and distinct"),
    ([2.0, 1.0], "sorted ascending and distinct"),
    ([0.0, np.nan], "finite"),
])
def test_interpolate_bad_knots(knots, msg):
    with pytest.raises(ValueError, match=f"knots.*{msg}"):
        interpolate_knots(knots, np.zeros(len(knots)), [0.0])


def test_interpolate_values_shape_mismatch():
    with pytest.raises(ValueError, match="values must have shape"):
        interpolate_knots([0.0, 1.0], [1.0, 2.0, 3.0], [0.5])


def test_roi_four_cases():
    out = roi([10.0, 5.0, 0.0, -3.0, 7.0, 0.0], [4.0, 0.0, 0.0, 0.0, -1.0, 2.0])
    assert out[0] == 2.5  # IC > 0: C / IC
    assert out[1] == math.inf  # IC <= 0, C > 0
    assert math.isnan(out[2])  # IC <= 0, C = 0
    assert out[3] == -math.inf  # IC <= 0, C < 0
    assert out[4] == math.inf  # negative IC counts as IC <= 0
    assert out[5] == 0.0  # IC > 0, C = 0
    assert math.isnan(roi(np.nan, 1.0))


def test_adjust_posteriors_hand_computed():
    post = np.array([[0.5, 0.5], [0.2, 0.8]])
    out = adjust_posteriors(post, priors=[0.1, 0.9], train_priors=[0.5, 0.5])
    # row 2: 0.2*0.2 = 0.04, 0.8*1.8 = 1.44 -> 0.04/1.48
    np.testing.assert_allclose(out, [[0.1, 0.9], [0.04 / 1.48, 1.44 / 1.48]])
    np.testing.assert_allclose(out.sum(axis=1), 1.0)


def test_adjust_posteriors_identity_when_priors_equal_training():
    rng = np.random.default_rng(3)
    post = rng.dirichlet([1, 2, 3], size=50)
    np.testing.assert_allclose(adjust_posteriors(post, [2, 3, 5], [0.2, 0.3, 0.5]), post)


def test_adjust_posteriors_errors():
    with pytest.raises(ValueError, match="train_priors must be positive"):
        adjust_posteriors([[0.5, 0.5]], [0.5, 0.5], [1.0, 0.0])
    with pytest.raises(ValueError, match="priors must be non-negative"):
        adjust_posteriors([[0.5, 0.5]], [-0.5, 0.5], [0.5, 0.5])
    with pytest.raises(ValueError, match="train_priors must have one value per level"):
        adjust_posteriors([[0.5, 0.5]], [0.5, 0.5], [1.0])
    with pytest.raises(ValueError, match="zero probability"):
        adjust_posteriors([[1.0, 0.0]], [0.0, 1.0], [0.5, 0.5])


def test_prior_adjustment_weights_hand_computed():
    # 3 cases of class 0 with weights 1, 1, 2 and 1 case of class 1 with weight 4
    t = [0, 0, 0, 1]
    F = [1.0, 1.0, 2.0, 4.0]
    paw = prior_adjustment_weights(t, F, [0.5, 0.5], 2)
    # total 8; Paw(0) = 0.5/4*8 = 1, Paw(1) = 0.5/4*8 = 1
    np.testing.assert_allclose(paw, [1, 1, 1, 1])
    paw = prior_adjustment_weights(t, F, [0.75, 0.25], 2)
    np.testing.assert_allclose(paw, [1.5, 1.5, 1.5, 0.5])
    # weighted frequencies of the classes now follow the priors
    w = np.asarray(F) * paw
    assert w[:3].sum() / w.sum() == pytest.approx(0.75)


def test_prior_adjustment_weights_missing_class():
    assert prior_adjustment_weights([0, 0], None, [0.5, 0.5], 2) is None
    # zero prior on the absent class: still defined
    np.testing.assert_allclose(prior_adjustment_weights([0, 0], None, [1.0, 0.0], 2), [1, 1])
    # present but with zero frequency counts as absent
    assert prior_adjustment_weights([0, 1], [1.0, 0.0], [0.5, 0.5], 2) is None


def test_encode_target():
    assert encode_target(["b", "a", "c"], ["a", "b", "c"]).tolist() == [1, 0, 2]
    assert encode_target(np.array([3, 1]), [1, 3]).tolist() == [1, 0]
    with pytest.raises(ValueError, match=r"^y contains values .*'z'"):
        encode_target(["a", "z"], ["a", "b"])
    with pytest.raises(ValueError, match="^y contains values"):
        encode_target(["a", None], ["a", "b"])
