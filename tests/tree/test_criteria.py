"""Impurity criteria against hand computation and brute-force twins."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from dtdecide.tree._kernels._criteria import (
    channel_sum,
    check_loss_matrix,
    impurity,
    ordinal_loss_matrix,
    regret_matrix,
    split_gain,
    weighted_impurity,
)

counts_strategy = arrays(
    np.float64,
    st.integers(2, 6),
    # counts and weights: zero or of ordinary magnitude (no subnormal underflow)
    elements=st.one_of(st.just(0.0), st.floats(1e-3, 1000)),
)


def brute_generalized_gini(n, L):
    """sum_t sum_d L(t, d) p_t p_d with explicit loops."""
    N = sum(n)
    if N == 0:
        return 0.0
    total = 0.0
    for t in range(len(n)):
        for d in range(len(n)):
            total += L[t][d] * (n[t] / N) * (n[d] / N)
    return total


def test_hand_computed_values():
    # Gini of (3, 1): 1 - (9 + 1) / 16 = 0.375
    assert impurity(np.array([3.0, 1.0]), "gini") == pytest.approx(0.375)
    # entropy of (1, 1, 2): -(2 * 1/4 log2 1/4 + 1/2 log2 1/2) = 1.5
    assert impurity(np.array([1.0, 1.0, 2.0]), "entropy") == pytest.approx(1.5)
    # variance of y = (1, 3) with weights (1, 1): sums (2, 4, 10) -> 10/2 - 4 = 1
    assert impurity(np.array([2.0, 4.0, 10.0]), "variance") == pytest.approx(1.0)
    # weighted: N * I
    assert weighted_impurity(np.array([3.0, 1.0]), "gini") == pytest.approx(1.5)
    # empty nodes have impurity 0, never NaN
    assert impurity(np.zeros(3), "gini") == 0.0
    assert impurity(np.zeros(3), "entropy") == 0.0
    assert impurity(np.zeros(3), "variance") == 0.0


@settings(max_examples=60, deadline=None)
@given(counts_strategy)
def test_generalized_gini_matches_brute_force(n):
    rng = np.random.default_rng(int(n.sum()) % 1000)
    L = check_loss_matrix(rng.random((n.size, n.size)) * 5, n.size)
    expected = brute_generalized_gini(n, L)
    assert impurity(n, "generalized_gini", L) == pytest.approx(expected, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(counts_strategy)
def test_gini_is_generalized_gini_with_zero_one_loss(n):
    L = 1.0 - np.eye(n.size)
    assert impurity(n, "gini") == pytest.approx(
        impurity(n, "generalized_gini", L), abs=1e-12
    )


@settings(max_examples=60, deadline=None)
@given(counts_strategy)
def test_ordinal_loss_equals_twice_cumulative_form(n):
    """|i - j| loss: sum_t sum_d |t-d| p_t p_d = 2 sum_k F_k (1 - F_k) (rpartScore)."""
    if n.sum() == 0:
        return
    F = np.cumsum(n / n.sum())[:-1]
    cumulative = 2.0 * np.sum(F * (1.0 - F))
    got = impurity(n, "generalized_gini", ordinal_loss_matrix(n.size))
    assert got == pytest.approx(cumulative, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(counts_strategy)
def test_entropy_matches_definition(n):
    N = n.sum()
    p = n[n > 0] / N if N > 0 else np.array([])
    expected = float(-np.sum(p * np.log2(p))) if N > 0 else 0.0
    assert impurity(n, "entropy") == pytest.approx(expected, abs=1e-10)


def test_vectorised_over_leading_axes():
    rng = np.random.default_rng(0)
    sums = rng.random((4, 5, 3)) * 10
    for crit in ("gini", "entropy"):
        full = impurity(sums, crit)
        for i in range(4):
            for j in range(5):
                assert full[i, j] == pytest.approx(impurity(sums[i, j], crit))
    assert np.allclose(channel_sum(sums), sums.sum(-1))


def test_variance_is_shift_invariant_in_weighted_form():
    rng = np.random.default_rng(1)
    y, w = rng.normal(size=50), rng.random(50)
    for shift in (0.0, 1e3):
        ys = y + shift
        s = np.array([w.sum(), (w * ys).sum(), (w * ys * ys).sum()])
        expected = np.sum(w * (ys - np.average(ys, weights=w)) ** 2) / w.sum()
        assert impurity(s, "variance") == pytest.approx(expected, rel=1e-6)


def test_regret_and_loss_matrices():
    assert regret_matrix([[5, 1], [0, 2]]).tolist() == [[0.0, 4.0], [2.0, 0.0]]
    assert ordinal_loss_matrix(3)[0, 2] == 2.0
    assert check_loss_matrix([[0, 1], [3, 0]], 2).tolist() == [[0.0, 2.0], [2.0, 0.0]]


@pytest.mark.parametrize(
    "bad, match",
    [([[0, 1]], "shape"), ([[0, -1], [1, 0]], "non-negative"), ([[0, np.nan], [1, 0]], "finite")],
)
def test_check_loss_matrix_errors(bad, match):
    with pytest.raises(ValueError, match=match):
        check_loss_matrix(bad, 2)


def test_unknown_criterion():
    with pytest.raises(ValueError, match="criterion"):
        weighted_impurity(np.ones(2), "gain")
    with pytest.raises(ValueError, match="loss_matrix"):
        weighted_impurity(np.ones(2), "generalized_gini")


@pytest.mark.parametrize("criterion", ["gini", "entropy", "variance", "generalized_gini"])
def test_split_gain_matches_parent_minus_children(criterion):
    """The optimised gain (proxies for gini and variance) against W(P) - W(L) - W(R)."""
    rng = np.random.default_rng(3)
    if criterion == "variance":
        w = rng.random((4, 6)) * 5 + 0.1
        y = rng.normal(size=(4, 6)) * 3 + 10
        left = np.stack([w, w * y, w * y * y + w], axis=-1)
        parent = left.sum(axis=1) + np.array([2.0, 3.0, 9.0])
    else:
        left = rng.random((4, 6, 3)) * 10
        parent = left.sum(axis=1) + rng.random((4, 3)) * 5 + 0.1
    L = ordinal_loss_matrix(3) if criterion == "generalized_gini" else None
    got = split_gain(left, parent, criterion, L)
    for i in range(4):
        for j in range(6):
            expected = (
                weighted_impurity(parent[i], criterion, L)
                - weighted_impurity(left[i, j], criterion, L)
                - weighted_impurity(parent[i] - left[i, j], criterion, L)
            )
            assert got[i, j] == pytest.approx(expected, rel=1e-9, abs=1e-9)


def test_generalized_gini_many_classes_uses_same_formula():
    rng = np.random.default_rng(5)
    n = rng.random(9) * 10
    L = check_loss_matrix(rng.random((9, 9)), 9)
    assert impurity(n, "generalized_gini", L) == pytest.approx(brute_generalized_gini(n, L))
