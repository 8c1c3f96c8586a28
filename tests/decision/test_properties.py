"""Invariances of decide() checked with hypothesis.

Posteriors are dyadic fractions and matrices small integers, so every sum in the
engine is exact and ties stay ties after a shift.
"""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from dtdecide.decision import DecisionMatrix, decide

SETTINGS = settings(max_examples=40, deadline=None)


@st.composite
def problem(draw, max_levels=4, max_decisions=4, max_cases=12):
    T = draw(st.integers(2, max_levels))
    D = draw(st.integers(1, max_decisions))
    n = draw(st.integers(1, max_cases))
    R = np.array(draw(st.lists(st.lists(st.integers(-8, 8), min_size=D, max_size=D),
                               min_size=T, max_size=T)), dtype=float)
    # dyadic posteriors: integer counts over a power of two
    rows = []
    for _ in range(n):
        cuts = sorted(draw(st.lists(st.integers(0, 16), min_size=T - 1, max_size=T - 1)))
        counts = np.diff([0, *cuts, 16])
        rows.append(counts / 16.0)
    post = np.array(rows)
    y = np.array(draw(st.lists(st.integers(0, T - 1), min_size=n, max_size=n)))
    return R, post, y


def codes(res):
    return res.cases["D_target"].cat.codes.to_numpy()


@SETTINGS
@given(problem(), st.data())
def test_row_shift_never_changes_decisions(p, data):
    R, post, y = p
    T = R.shape[0]
    shift = np.array(data.draw(st.lists(st.integers(-20, 20), min_size=T, max_size=T)), float)
    levels = list(range(T))
    a = decide(post, DecisionMatrix(R, levels=levels), y=y)
    b = decide(post, DecisionMatrix(R + shift[:, None], levels=levels), y=y)
    np.testing.assert_array_equal(codes(a), codes(b))
    # expected profit moves by sum_t Post(t) shift(t)
    np.testing.assert_allclose(b.cases["EP_target"] - a.cases["EP_target"], post @ shift)


@SETTINGS
@given(problem(), st.data())
def test_per_case_constant_cost_shift_never_changes_decisions(p, data):
    R, post, y = p
    T, D = R.shape
    n = len(post)
    base = np.array(data.draw(st.lists(st.lists(st.integers(0, 5), min_size=D, max_size=D),
                                       min_size=n, max_size=n)), float)
    k = np.array(data.draw(st.lists(st.integers(-10, 10), min_size=n, max_size=n)), float)
    cols = {f"c{j}": base[:, j] for j in range(D)}
    shifted = {f"c{j}": base[:, j] + k for j in range(D)}
    m = DecisionMatrix(R, levels=list(range(T)), kind="revenue",
                       costs={f"d{j + 1}": f"c{j}" for j in range(D)})
    a = decide(post, m, y=y, costs=cols)
    b = decide(post, m, y=y, costs=shifted)
    np.testing.assert_array_equal(codes(a), codes(b))
    np.testing.assert_allclose(a.cases["EP_target"] - b.cases["EP_target"], k)


@SETTINGS
@given(problem(), st.data())
def test_diagonal_matrix_equals_identity_with_priors(p, data):
    _, post, y = p
    T = post.shape[1]
    diag = np.array(data.draw(st.lists(st.integers(1, 9), min_size=T, max_size=T)), float)
    score = post * diag
    top = np.sort(score, axis=1)
    assume(np.all(top[:, -1] - top[:, -2] > 1e-6))  # exact ties may round either way
    levels = list(range(T))
    a = decide(post, DecisionMatrix(np.diag(diag), levels=levels))
    b = decide(post, DecisionMatrix(np.eye(T), levels=levels, priors=diag),
               train_priors=np.ones(T))
    np.testing.assert_array_equal(codes(a), codes(b))


@SETTINGS
@given(problem())
def test_loss_is_negated_profit(p):
    R, post, y = p
    levels = list(range(R.shape[0]))
    prof = decide(post, DecisionMatrix(-R, levels=levels, kind="profit"), y=y)
    loss = decide(post, DecisionMatrix(R, levels=levels, kind="loss"), y=y)
    np.testing.assert_array_equal(codes(prof), codes(loss))
    np.testing.assert_allclose(loss.cases["EL_target"], -prof.cases["EP_target"])
    np.testing.assert_allclose(loss.cases["CL_target"], -prof.cases["CP_target"])
    np.testing.assert_allclose(loss.cases["BL_target"], -prof.cases["BP_target"])
    assert loss.summary["total_loss"] == pytest.approx(-prof.summary["total_profit"])


@SETTINGS
@given(problem(max_decisions=3), st.data())
def test_ties_go_to_first_decision(p, data):
    R, post, y = p
    T, D = R.shape
    j = data.draw(st.integers(0, D - 1))
    # duplicate column j at the front and at the back: the front copy always wins ties
    R2 = np.column_stack([R[:, j], R, R[:, j]])
    res = decide(post, DecisionMatrix(R2, levels=list(range(T))))
    c = codes(res)
    assert not np.any(c == D + 1)
    assert not np.any(c == j + 1)
    # first-max rule, checked directly
    A = post @ R2
    np.testing.assert_array_equal(c, [int(np.flatnonzero(row == row.max())[0]) for row in A])


@SETTINGS
@given(problem())
def test_computed_never_beats_best_and_expected_is_max(p):
    R, post, y = p
    res = decide(post, DecisionMatrix(R, levels=list(range(R.shape[0]))), y=y)
    assert np.all(res.cases["CP_target"] <= res.cases["BP_target"])
    np.testing.assert_allclose(res.cases["EP_target"], (post @ R).max(axis=1))


@SETTINGS
@given(problem(max_decisions=1), st.integers(1, 50))
def test_chunking_is_invisible(p, chunk):
    R, post, y = p
    T = R.shape[0]
    m = DecisionMatrix(np.eye(T), levels=list(range(T)), priors=np.arange(1, T + 1))
    a = decide(post, m, y=y, chunk_size=chunk)
    b = decide(post, m, y=y)
    assert a.cases.equals(b.cases)
    assert a.summary.equals(b.summary)
    assert a.summary["average_profit"] == pytest.approx(1 - a.summary["misclassification_rate"])
