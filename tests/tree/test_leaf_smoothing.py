"""posterior_smoothing under the leaf rule: smoothed posteriors and leaf-averaged
consequences, against a slow recursive twin; subtree invariance; the fitted estimator."""

import numpy as np
import pandas as pd
import pytest

from dtdecide import DecisionMatrix, ProfitTreeClassifier, select_subtree
from dtdecide.tree._structure import _leaf


def stats_for(matrix, node_of_row, parent, depth, *, F, t_idx, costs):
    cons = matrix.resolve(costs, n_samples=len(node_of_row))
    columns = {}
    if not matrix.is_case_specific:
        columns = {v: np.asarray(costs[v], dtype=float) for v in matrix.cost_variables}
    return _leaf.compute_decision_stats(
        np.asarray(node_of_row), parent, depth, cons=cons, sample_weight=np.asarray(F, float),
        t_idx=t_idx, rows=matrix.rows, decisions=matrix.decisions, cost_columns=columns)


def random_tree(rng, n_splits):
    """parent/depth of a random binary tree (children after parents) and its leaves."""
    parent, depth, is_leaf = [-1], [0], [True]
    for _ in range(n_splits):
        node = int(rng.choice([i for i, leaf in enumerate(is_leaf) if leaf]))
        is_leaf[node] = False
        for _ in range(2):
            parent.append(node)
            depth.append(depth[node] + 1)
            is_leaf.append(True)
    return np.array(parent), np.array(depth), np.flatnonzero(is_leaf)

REVENUE = DecisionMatrix(
    {"mail": [20.0, 0.0], "skip": [0.0, 0.0]}, levels=["yes", "no"], kind="revenue",
    costs={"mail": "c"},
)
COST_ROWS = DecisionMatrix.from_cost_matrix(levels=("good", "bad"))


def _slow_expected(parent, node_of_row, t_idx, F, q_own, m, n_levels):
    """Per node, recursively: s_post(v) = (n p + m s_post(u)) / (n + m) and, per level,
    s_q(v, t) = (n_t qbar_t + m s_q(u, t)) / (n_t + m); expected = sum_t s_post s_q."""
    n_nodes = len(parent)
    children = {v: [w for w in range(n_nodes) if parent[w] == v] for v in range(n_nodes)}

    def rows_of(v):
        out = set(np.flatnonzero(node_of_row == v))
        for w in children[v]:
            out |= rows_of(w)
        return out

    post = np.zeros((n_nodes, n_levels))
    qbar = np.zeros((n_nodes, n_levels, q_own.shape[1]))
    for v in range(n_nodes):  # parents come first
        rows = np.array(sorted(rows_of(v)), dtype=int)
        n = F[rows].sum()
        nt = np.array([F[rows][t_idx[rows] == t].sum() for t in range(n_levels)])
        own_p = nt / n if n > 0 else None
        own_q = np.array([(F[rows][t_idx[rows] == t, None] * q_own[rows][t_idx[rows] == t])
                          .sum(axis=0) / nt[t] if nt[t] > 0 else np.full(q_own.shape[1], np.nan)
                          for t in range(n_levels)])
        if parent[v] < 0:
            post[v] = own_p
            qbar[v] = np.nan_to_num(own_q)
            continue
        u = parent[v]
        post[v] = post[u] if own_p is None else (n * own_p + m * post[u]) / (n + m)
        for t in range(n_levels):
            qbar[v, t] = qbar[u, t] if np.isnan(own_q[t]).any() else (
                (nt[t] * own_q[t] + m * qbar[u, t]) / (nt[t] + m))
    return np.einsum("nt,ntd->nd", post, qbar)


@pytest.mark.parametrize("seed", range(4))
def test_case_specific_costs_match_a_slow_twin(seed):
    rng = np.random.default_rng(seed)
    parent, depth, leaves = random_tree(rng, 5)
    n = 40
    node_of_row = rng.choice(leaves, n)
    t_idx = rng.integers(0, 2, n)
    F = rng.choice([1.0, 2.0, 0.5], n)
    costs = np.column_stack([rng.lognormal(0, 1, n), rng.lognormal(1, 1, n),
                             np.zeros(n), np.zeros(n)])
    stats = stats_for(COST_ROWS, node_of_row, parent, depth, F=F, t_idx=t_idx, costs=costs)
    m = float(rng.choice([0.5, 3.0, 20.0]))
    got = _leaf.smoothed_node_decisions(stats, COST_ROWS, priors=None, parent=parent,
                                        depth=depth, m=m)
    cons = COST_ROWS.resolve(costs, n_samples=n)
    q_own = cons.q_actual(t_idx)  # Q(j, T(j), d), as the node sums hold it
    want = _slow_expected(parent, node_of_row, t_idx, F, q_own, m, 2)
    np.testing.assert_allclose(got["node_expected"], want, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(got["node_decision"], np.argmax(want, axis=1))
    # the raw sums stay the node's own
    raw = _leaf.node_decisions(stats, COST_ROWS)
    np.testing.assert_array_equal(got["profit_sum"], raw["profit_sum"])


def test_cost_variables_smooth_the_average_cost():
    parent, depth = np.array([-1, 0, 0]), np.array([0, 1, 1])
    # leaf 1: one responder with cost 2; leaf 2: three non-responders with cost 10
    node_of_row = np.array([1, 2, 2, 2])
    t_idx = np.array([0, 1, 1, 1])
    costs = pd.DataFrame({"c": [2.0, 10.0, 10.0, 10.0]})
    stats = stats_for(REVENUE, node_of_row, parent, depth, F=np.ones(4), t_idx=t_idx,
                      costs=costs)
    got = _leaf.smoothed_node_decisions(stats, REVENUE, priors=None, parent=parent,
                                        depth=depth, m=2.0)
    # root: p(yes) = 1/4, average cost 8: mail earns 20/4 - 8 = -3
    # leaf 1: p = (1 * 1 + 2 * 1/4) / 3 = 1/2, cost (2 + 2 * 8) / 3 = 6: mail 10 - 6 = 4
    np.testing.assert_allclose(got["node_expected"][:, 0], [-3.0, 4.0, (
        20 * (0 + 2 * 0.25) / 5) - (30 + 16) / 5])
    assert got["node_decision"].tolist() == [1, 0, 1]


def _data(n, seed):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n)})
    p = 1 / (1 + np.exp(-(-1.0 + 1.5 * X["a"])))
    y = pd.Series(np.where(rng.random(n) < p, "bad", "good"))
    amount = rng.lognormal(2.0, 1.2, n)
    costs = pd.DataFrame({"C_FP": 0.3 * amount, "C_FN": amount, "C_TP": 0.0, "C_TN": 0.0})
    return X, y, costs


def test_estimator_leaf_rule_smoothing():
    X, y, costs = _data(600, 0)
    kw = dict(decision_matrix=COST_ROWS, max_depth=6, min_samples_leaf=3,
              min_samples_split=6, random_state=0)
    raw = ProfitTreeClassifier(**kw).fit(X, y, costs=costs)
    same = ProfitTreeClassifier(posterior_smoothing=0, **kw).fit(X, y, costs=costs)
    np.testing.assert_array_equal(raw.tree_.node_decision, same.tree_.node_decision)
    smooth = ProfitTreeClassifier(posterior_smoothing=50.0, **kw).fit(X, y, costs=costs)
    assert smooth.posterior_smoothing_ == 50.0
    # the leaf rule grows the same tree; only the estimates and decisions change
    np.testing.assert_array_equal(raw.tree_.feature, smooth.tree_.feature)
    full = smooth._full_tree_
    want = _leaf.smoothed_node_decisions(smooth._decision_stats_, COST_ROWS, priors=None,
                                         parent=full.parent, depth=full.depth, m=50.0)
    np.testing.assert_array_equal(smooth.tree_.node_decision, want["node_decision"])
    assert not np.array_equal(raw.tree_.node_decision, smooth.tree_.node_decision)
    # a pruned subtree keeps the full tree's smoothed decisions at the same nodes
    sub = select_subtree(smooth, *_data(300, 1)[:2], costs_valid=_data(300, 1)[2])
    from dtdecide.tree._structure._tree import match_subtree_nodes

    ids = match_subtree_nodes(full, sub.tree_)
    np.testing.assert_array_equal(sub.tree_.node_decision, want["node_decision"][ids])
    # a very strong pull gives every leaf the root's decision
    flat = ProfitTreeClassifier(posterior_smoothing=1e9, **kw).fit(X, y, costs=costs)
    assert len(set(flat.predict_decision(X))) == 1
