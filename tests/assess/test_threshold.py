"""2x2 reduction, the posterior threshold and equivalent priors against brute force."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dtdecide.assess import binary_threshold, diagonal_form, equivalent_priors
from dtdecide.decision import DecisionMatrix, adjust_posteriors, decide_arrays

entries = st.integers(-10, 10).map(float)


def brute_first_decision(values, p):
    """Decision 0 taken at event posterior p (first level), by the engine kernel."""
    post = np.column_stack([p, 1 - p])
    d, _ = decide_arrays(post @ values)
    return d == 0


def test_hand_computed_threshold():
    # rows [a, b] = [10, 2], [c, d] = [-1, 0]: diag(8, 1), threshold 1 / 9
    m = DecisionMatrix([[10, 2], [-1, 0]], levels=["buy", "no"], decisions=["mail", "skip"])
    t = binary_threshold(m)
    assert t.threshold == pytest.approx(1 / 9)
    assert t.direction == ">=" and t.level == "buy" and t.other == "skip"
    assert t.diagonal == (8.0, 1.0)
    np.testing.assert_array_equal(diagonal_form(m).profit_values, [[8, 0], [0, 1]])


def test_loss_and_constant_costs_are_folded():
    loss = DecisionMatrix([[0, 5], [1, 0]], levels=[1, 0], decisions=["a", "b"], kind="loss")
    # profit [[0, -5], [-1, 0]] -> diag(5, 1), threshold 1/6
    assert binary_threshold(loss).threshold == pytest.approx(1 / 6)
    rev = DecisionMatrix([[12, 0], [0, 0]], levels=[1, 0], decisions=["a", "b"],
                         kind="revenue", costs={"a": 2.0})
    # profit [[10, 0], [-2, 0]] -> diag(10, 2), threshold 2/12
    assert binary_threshold(rev).threshold == pytest.approx(2 / 12)


def test_cost_variables_rejected():
    m = DecisionMatrix([[12, 0], [0, 0]], levels=[1, 0], decisions=["a", "b"],
                       kind="revenue", costs={"a": "cost"})
    with pytest.raises(ValueError, match="cost variable"):
        binary_threshold(m)


def test_shape_checked():
    m = DecisionMatrix([[1, 0, 0], [0, 1, 0]], levels=[1, 0], decisions=["a", "b", "c"])
    with pytest.raises(ValueError, match="2 levels and 2 decisions"):
        diagonal_form(m)
    with pytest.raises(TypeError, match="DecisionMatrix"):
        binary_threshold([[1, 0], [0, 1]])


@settings(max_examples=200, deadline=None)
@given(entries, entries, entries, entries)
def test_threshold_matches_brute_force(a, b, c, d):
    values = np.array([[a, b], [c, d]])
    m = DecisionMatrix(values, levels=[1, 0], decisions=["x", "y"])
    t = binary_threshold(m)
    p = np.linspace(0, 1, 201)
    p = p[np.abs(p - t.threshold) > 1e-9]  # exactly at the threshold both rules tie
    first = brute_first_decision(values, p)
    if t.direction == ">=":
        rule = p >= t.threshold
    elif t.direction == "<=":
        rule = p <= t.threshold
    elif t.direction == "always":
        rule = np.ones_like(p, dtype=bool)
    else:
        rule = np.zeros_like(p, dtype=bool)
    np.testing.assert_array_equal(first, rule)
    # the diagonal form decides the same
    diag = diagonal_form(m).profit_values
    np.testing.assert_array_equal(brute_first_decision(diag, p), first)


def test_equivalent_priors_hand_computed():
    m = DecisionMatrix(np.diag([20.0, 1.0, 1.0]), levels=["red", "blue", "green"],
                       decisions=["red", "blue", "green"])
    pri = equivalent_priors(m, [0.1, 0.45, 0.45])
    np.testing.assert_allclose(pri.to_numpy(), [2.0, 0.45, 0.45] / np.float64(2.9))
    assert list(pri.index) == ["red", "blue", "green"]


def test_equivalent_priors_errors():
    nondiag = DecisionMatrix([[3, 1, 0], [0, 2, 0], [0, 0, 1]], levels=[0, 1, 2],
                             decisions=["a", "b", "c"])
    with pytest.raises(ValueError, match="off-diagonal"):
        equivalent_priors(nondiag, [1, 1, 1])
    neg = DecisionMatrix([[0, 1], [0, 1]], levels=[0, 1], decisions=["a", "b"])
    with pytest.raises(ValueError, match="non-positive"):
        equivalent_priors(neg, [0.5, 0.5])
    ok = DecisionMatrix(np.eye(2), levels=[0, 1], decisions=["a", "b"])
    with pytest.raises(ValueError, match="priors must be given"):
        equivalent_priors(ok)
    with pytest.raises(ValueError, match="one value per level"):
        equivalent_priors(ok, [1, 1, 1])


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 4), st.data())
def test_equivalent_priors_match_brute_force(n_levels, data):
    # diagonal (after row constants) matrix with priors vs identity with equivalent priors
    diag = np.array(data.draw(st.lists(st.integers(1, 20), min_size=n_levels,
                                       max_size=n_levels)), float)
    shift = np.array(data.draw(st.lists(st.integers(-5, 5), min_size=n_levels,
                                        max_size=n_levels)), float)
    values = np.diag(diag) + shift[:, None]  # equal off-diagonals per row
    pi = np.array(data.draw(st.lists(st.integers(1, 9), min_size=n_levels,
                                     max_size=n_levels)), float)
    levels = list(range(n_levels))
    m = DecisionMatrix(values, levels=levels, decisions=[f"d{k}" for k in levels],
                       priors=pi)
    eq = equivalent_priors(m).to_numpy()
    rng = np.random.default_rng(n_levels)
    post = rng.dirichlet(np.ones(n_levels), size=300)
    rho = np.full(n_levels, 1 / n_levels)  # posteriors from a balanced sample
    d_matrix, _ = decide_arrays(adjust_posteriors(post, m.priors, rho) @ values)
    d_ident, _ = decide_arrays(adjust_posteriors(post, eq, rho) @ np.eye(n_levels))
    np.testing.assert_array_equal(d_matrix, d_ident)
