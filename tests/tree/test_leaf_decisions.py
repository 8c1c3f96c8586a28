"""Leaf decisions (design notes section 3) on hand-made trees.

Hand-computed cases for case costs, priors, interval knots and case-specific
consequences; the vectorised sums against slow per-row loops; re-deciding from stored
statistics against recomputing from the data.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dtdecide.decision import DecisionMatrix, interpolate_knots
from dtdecide.tree._structure import _leaf


# --------------------------------------------------------------------- helpers
def stump():
    """Root 0 with leaves 1 and 2."""
    return np.array([-1, 0, 0]), np.array([0, 1, 1])


def stats_for(matrix, node_of_row, parent, depth, *, F, t_idx=None, y=None, costs=None):
    cons = matrix.resolve(costs, n_samples=len(node_of_row))
    columns = {}
    if costs is not None and not matrix.is_case_specific:
        columns = {v: np.asarray(costs[v], dtype=float) for v in matrix.cost_variables}
    return _leaf.compute_decision_stats(
        np.asarray(node_of_row), parent, depth, cons=cons, sample_weight=np.asarray(F, float),
        t_idx=t_idx, y=y, rows=matrix.rows, decisions=matrix.decisions, cost_columns=columns,
    )


def random_tree(rng, n_splits):
    """parent/depth of a random binary tree (children after parents) and its leaves."""
    parent, depth, is_leaf = [-1], [0], [True]
    for _ in range(n_splits):
        leaves = [i for i, leaf in enumerate(is_leaf) if leaf]
        node = int(rng.choice(leaves))
        is_leaf[node] = False
        for _ in range(2):
            parent.append(node)
            depth.append(depth[node] + 1)
            is_leaf.append(True)
    return np.array(parent), np.array(depth), np.flatnonzero(is_leaf)


# --------------------------------------------------------------------- hand computations
REVENUE = DecisionMatrix(
    {"mail": [20.0, 0.0], "skip": [0.0, 0.0]}, levels=["yes", "no"], kind="revenue",
    costs={"mail": "c"},
)
# rows: leaf, level, cost, frequency
ROWS = np.array([
    [1, 0, 2.0, 1.0],
    [1, 1, 4.0, 1.0],
    [1, 1, 6.0, 2.0],
    [2, 0, 10.0, 1.0],
    [2, 1, 10.0, 3.0],
])


def revenue_stats(matrix=REVENUE):
    parent, depth = stump()
    return stats_for(
        matrix, ROWS[:, 0].astype(int), parent, depth, F=ROWS[:, 3],
        t_idx=ROWS[:, 1].astype(int), costs={"c": ROWS[:, 2]},
    )


def test_revenue_matrix_with_case_costs_by_hand():
    out = _leaf.node_decisions(revenue_stats(), REVENUE)
    # leaf 1: W=4, Post(yes)=1/4, average cost (2+4+12)/4 = 4.5 -> EP(mail) = 5 - 4.5
    # leaf 2: W=4, Post(yes)=1/4, average cost 10 -> EP(mail) = -5
    # root:   W=8, Post(yes)=2/8, average cost 58/8 = 7.25 -> EP(mail) = -2.25
    np.testing.assert_allclose(out["node_expected"], [[-2.25, 0], [0.5, 0], [-5.0, 0]])
    assert out["node_decision"].tolist() == [1, 0, 1]
    np.testing.assert_allclose(out["cost_sum"], [[58.0, 0], [18.0, 0], [40.0, 0]])
    # profit_sum[node, t, d] = sum over the node's cases of level t of F (Revenue - Cost)
    np.testing.assert_allclose(out["profit_sum"][1], [[18.0, 0], [-16.0, 0]])
    np.testing.assert_allclose(out["profit_sum"][2], [[10.0, 0], [-30.0, 0]])
    np.testing.assert_allclose(out["profit_sum"][0], out["profit_sum"][1] + out["profit_sum"][2])


def test_priors_adjust_the_posteriors_by_hand():
    m = REVENUE.replace(priors=[0.5, 0.5])
    out = _leaf.node_decisions(revenue_stats(m), m, priors=m.priors)
    # training proportions rho = (2/8, 6/8); leaf 1 counts (1, 3):
    # 1 * 0.5/0.25 = 2 and 3 * 0.5/0.75 = 2 -> Post = (0.5, 0.5): EP(mail) = 10 - 4.5
    np.testing.assert_allclose(out["node_expected"][1], [5.5, 0.0])
    # root: Post = priors = (0.5, 0.5): 10 - 7.25
    np.testing.assert_allclose(out["node_expected"][0], [2.75, 0.0])
    # leaf 2 has the same counts (1, 3): Post = (0.5, 0.5), 10 - 10 = 0, a tie -> "mail"
    np.testing.assert_allclose(out["node_expected"][2], [0.0, 0.0], atol=1e-12)
    assert out["node_decision"].tolist() == [0, 0, 0]


def test_node_posteriors_with_priors_match_formula():
    cw = np.array([[30.0, 10.0, 60.0], [10.0, 5.0, 5.0], [20.0, 5.0, 55.0]])
    pi = np.array([0.2, 0.3, 0.5])
    rho = cw[0] / cw[0].sum()
    p = cw / cw.sum(axis=1, keepdims=True)
    expected = p * pi / rho
    expected /= expected.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(_leaf.node_posteriors(cw, pi), expected)


def test_loss_matrix_decisions_by_hand():
    m = DecisionMatrix([[0.0, 5.0], [1.0, 0.0]], levels=[1, 0], decisions=["act", "wait"],
                       kind="loss")
    parent, depth = stump()
    # leaf 1: 1 positive, 3 negatives; leaf 2: 3 positives, 1 negative
    leaf = np.array([1, 1, 1, 1, 2, 2, 2, 2])
    t = np.array([0, 1, 1, 1, 0, 0, 0, 1])
    out = _leaf.node_decisions(stats_for(m, leaf, parent, depth, F=np.ones(8), t_idx=t), m)
    # leaf 1: expected loss act = 0.75, wait = 1.25 -> act (profit orientation negated)
    np.testing.assert_allclose(out["node_expected"][1], [-0.75, -1.25])
    np.testing.assert_allclose(out["node_expected"][2], [-0.25, -3.75])
    assert out["node_decision"].tolist() == [0, 0, 0]


def test_ties_go_to_the_first_decision():
    m = DecisionMatrix([[1.0, 1.0], [0.0, 0.0]], levels=["a", "b"], decisions=["x", "y"])
    parent, depth = stump()
    out = _leaf.node_decisions(
        stats_for(m, np.array([1, 2]), parent, depth, F=[1, 1], t_idx=np.array([0, 1])), m
    )
    assert out["node_decision"].tolist() == [0, 0, 0]


def test_interval_leaf_sum_by_hand():
    m = DecisionMatrix({"invest": [-10.0, 30.0], "wait": [0.0, 0.0]}, knots=[0.0, 10.0],
                       kind="revenue", costs={"invest": "c"})
    parent, depth = stump()
    leaf = np.array([1, 1, 1, 2])
    y = np.array([2.0, 6.0, 20.0, 1.0])
    F = np.array([1.0, 1.0, 2.0, 1.0])
    c = np.array([1.0, 3.0, 0.0, 0.5])
    out = _leaf.node_decisions(stats_for(m, leaf, parent, depth, F=F, y=y, costs={"c": c}), m)
    # leaf 1: P = (2 + 6 + 40)/4 = 12 -> L(12, invest) = -10 + 40*1.2 = 38 (extrapolated);
    # average cost (1 + 3)/4 = 1 -> EP = 37
    np.testing.assert_allclose(out["node_expected"][1], [37.0, 0.0])
    # training profit: L(2) = -2, L(6) = 14, L(20) = 70 -> -2 + 14 + 140 - 4 = 148
    np.testing.assert_allclose(out["profit_sum"][1], [148.0, 0.0])
    # leaf 2: P = 1 -> -6 - 0.5 -> wait
    np.testing.assert_allclose(out["node_expected"][2], [-6.5, 0.0])
    assert out["node_decision"].tolist()[1:] == [0, 1]


def test_case_specific_uses_training_profit():
    m = DecisionMatrix.case_specific(levels=[0, 1], decisions=["a", "b"])
    parent, depth = stump()
    leaf = np.array([1, 1, 2])
    t = np.array([0, 1, 1])
    q = np.array([
        [[5.0, 1.0], [0.0, 0.0]],   # case 0, level 0 is its own
        [[0.0, 0.0], [-9.0, 2.0]],  # case 1, level 1
        [[0.0, 0.0], [4.0, 3.0]],
    ])
    out = _leaf.node_decisions(
        stats_for(m, leaf, parent, depth, F=[1.0, 1.0, 2.0], t_idx=t, costs=q), m
    )
    # leaf 1 training profit: a = 5 - 9 = -4, b = 1 + 2 = 3 -> b; per unit weight / 2
    np.testing.assert_allclose(out["node_expected"][1], [-2.0, 1.5])
    np.testing.assert_allclose(out["node_expected"][2], [4.0, 3.0])
    np.testing.assert_allclose(out["node_expected"][0], [(-4 + 8) / 4, (3 + 6) / 4])
    assert out["node_decision"].tolist() == [1, 1, 0]


def test_case_specific_cannot_be_redecided_with_another_matrix():
    m = DecisionMatrix.case_specific(levels=[0, 1], decisions=["a", "b"])
    parent, depth = stump()
    q = np.zeros((2, 2, 2))
    stats = stats_for(m, np.array([1, 2]), parent, depth, F=[1, 1], t_idx=np.array([0, 1]),
                      costs=q)
    other = DecisionMatrix([[1, 0], [0, 1]], levels=[0, 1], decisions=["a", "b"])
    with pytest.raises(ValueError, match="case-specific"):
        _leaf.node_decisions(stats, other)


def test_other_levels_or_unknown_cost_variable_raise():
    stats = revenue_stats()
    other_levels = DecisionMatrix([[1, 0], [0, 1]], levels=["yes", "maybe"])
    with pytest.raises(ValueError, match="same levels"):
        _leaf.node_decisions(stats, other_levels)
    new_var = REVENUE.replace(costs={"mail": "other_cost"})
    with pytest.raises(ValueError, match="other_cost"):
        _leaf.node_decisions(stats, new_var)


def test_empty_leaf_inherits_parent_decision():
    m = DecisionMatrix([[3.0, 0.0], [-1.0, 0.0]], levels=[1, 0], decisions=["go", "stop"])
    parent, depth = stump()
    stats = stats_for(m, np.array([1, 1, 2]), parent, depth, F=[1.0, 1.0, 0.0],
                      t_idx=np.array([0, 1, 1]))
    out = _leaf.node_decisions(stats, m)
    out = _leaf.fill_empty_from_parent(out, parent, depth, stats.weight)
    assert out["node_decision"][2] == out["node_decision"][0]
    assert np.all(np.isfinite(out["node_expected"]))


# --------------------------------------------------------------------- slow references
def slow_categorical(parent, leaf_of_row, t, F, q):
    """Per node, loop over rows: class weights, profit sums by class, expected profit."""
    n_nodes = len(parent)
    T, D = q.shape[1:]
    cw = np.zeros((n_nodes, T))
    ps = np.zeros((n_nodes, T, D))
    for i in range(len(t)):
        node = leaf_of_row[i]
        while node >= 0:
            cw[node, t[i]] += F[i]
            ps[node, t[i]] += F[i] * q[i, t[i]]
            node = parent[node]
    return cw, ps


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n_splits=st.integers(0, 6), n=st.integers(1, 40))
def test_sums_match_slow_loop_and_redecide_matches_recompute(seed, n_splits, n):
    rng = np.random.default_rng(seed)
    parent, depth, leaves = random_tree(rng, n_splits)
    leaf_of_row = rng.choice(leaves, size=n)
    t = rng.integers(0, 3, size=n)
    F = rng.integers(1, 4, size=n).astype(float)
    costs = {"u": rng.uniform(0, 5, n), "v": rng.uniform(0, 5, n)}
    m1 = DecisionMatrix(rng.normal(size=(3, 3)), levels=["a", "b", "c"],
                        decisions=["d1", "d2", "d3"], kind="revenue",
                        costs={"d1": "u", "d2": "v"})
    stats = stats_for(m1, leaf_of_row, parent, depth, F=F, t_idx=t, costs=costs)
    out = _leaf.node_decisions(stats, m1)

    q = m1.resolve(costs, n_samples=n).q_actual  # Q(i, t, d) = base - cost
    q_all = np.stack([q(np.full(n, k)) for k in range(3)], axis=1)
    cw, ps = slow_categorical(parent, leaf_of_row, t, F, q_all)
    np.testing.assert_allclose(stats.class_weight, cw)
    np.testing.assert_allclose(out["profit_sum"], ps, atol=1e-9)
    with np.errstate(invalid="ignore", divide="ignore"):
        post = cw / cw.sum(axis=1, keepdims=True)
    W = cw.sum(axis=1)
    # average cost of every node's cases, then A = Post @ base - average cost
    cost_sum = out["cost_sum"]
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = post @ m1.profit_values - cost_sum / W[:, None]
    np.testing.assert_allclose(out["node_expected"], expected, atol=1e-9)

    # another matrix on the same levels, with its costs swapped and a constant:
    m2 = DecisionMatrix(rng.normal(size=(3, 2)), levels=["a", "b", "c"],
                        decisions=["e1", "e2"], kind="revenue", costs={"e1": "v", "e2": 0.5},
                        priors=[0.2, 0.3, 0.5])
    again = _leaf.node_decisions(stats, m2, priors=m2.priors)
    fresh = _leaf.node_decisions(
        stats_for(m2, leaf_of_row, parent, depth, F=F, t_idx=t, costs=costs), m2,
        priors=m2.priors,
    )
    for key in ("cost_sum", "profit_sum", "node_expected"):
        np.testing.assert_allclose(again[key], fresh[key], atol=1e-9)
    np.testing.assert_array_equal(again["node_decision"], fresh["node_decision"])


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n_splits=st.integers(0, 5), n=st.integers(1, 30))
def test_interval_sums_match_slow_loop_and_same_knots_redecide(seed, n_splits, n):
    rng = np.random.default_rng(seed)
    parent, depth, leaves = random_tree(rng, n_splits)
    leaf_of_row = rng.choice(leaves, size=n)
    y = rng.uniform(-5, 25, size=n)
    F = rng.integers(1, 4, size=n).astype(float)
    c = rng.uniform(0, 3, n)
    knots = [0.0, 5.0, 20.0]
    m1 = DecisionMatrix(rng.normal(size=(3, 2)), knots=knots, decisions=["p", "q"],
                        kind="revenue", costs={"p": "c"})
    stats = stats_for(m1, leaf_of_row, parent, depth, F=F, y=y, costs={"c": c})
    out = _leaf.node_decisions(stats, m1)
    n_nodes = len(parent)
    base = m1.profit_values
    for node in range(n_nodes):
        rows = []
        for i in range(n):
            k = leaf_of_row[i]
            while k >= 0 and k != node:
                k = parent[k]
            if k == node:
                rows.append(i)
        rows = np.array(rows, dtype=int)
        if rows.size == 0:
            continue
        W = F[rows].sum()
        P = (F[rows] * y[rows]).sum() / W
        # leaf sum of L(j, P, d) and training profit sum of L(j, Y(j), d)
        cost = np.zeros((rows.size, 2))
        cost[:, 0] = c[rows]
        L_pred = interpolate_knots(knots, base, np.full(rows.size, P)) - cost
        L_true = interpolate_knots(knots, base, y[rows]) - cost
        np.testing.assert_allclose(out["node_expected"][node], F[rows] @ L_pred / W, atol=1e-9)
        np.testing.assert_allclose(out["profit_sum"][node], F[rows] @ L_true, atol=1e-9)
    m2 = DecisionMatrix(rng.normal(size=(3, 3)), knots=knots, decisions=["r", "s", "t"],
                        kind="revenue", costs={"s": "c", "t": 1.5})
    again = _leaf.node_decisions(stats, m2)
    fresh = _leaf.node_decisions(
        stats_for(m2, leaf_of_row, parent, depth, F=F, y=y, costs={"c": c}), m2
    )
    for key in ("cost_sum", "profit_sum", "node_expected"):
        np.testing.assert_allclose(again[key], fresh[key], atol=1e-9)


def test_interval_other_knots_raise():
    m = DecisionMatrix([[0.0, 1.0], [1.0, 0.0]], knots=[0.0, 1.0])
    parent, depth = stump()
    stats = stats_for(m, np.array([1, 2]), parent, depth, F=[1, 1], y=np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match="same knots"):
        _leaf.node_decisions(stats, DecisionMatrix([[0.0, 1.0], [1.0, 0.0]], knots=[0.0, 2.0]))


def test_leaf_sums_and_propagation_against_loops():
    rng = np.random.default_rng(3)
    parent, depth, leaves = random_tree(rng, 7)
    node_of_row = rng.choice(leaves, size=50)
    values = rng.normal(size=(50, 2, 3))
    got = _leaf.propagate_up(_leaf.leaf_sums(node_of_row, values, len(parent)), parent, depth)
    want = np.zeros((len(parent), 2, 3))
    for i, leaf in enumerate(node_of_row):
        node = leaf
        while node >= 0:
            want[node] += values[i]
            node = parent[node]
    np.testing.assert_allclose(got, want)
