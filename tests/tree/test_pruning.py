"""Weakest-link profit pruning: hand-computed cases, a slow twin, properties."""

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dtdecide.tree._algorithms._pruning import (
    keep_as_leaf_mask,
    leaf_intervals,
    subtree_index_for_alpha,
    sum_over_subtrees,
    tree_pruning_path,
    weakest_link_sequence,
)
from dtdecide.tree._estimator._pruning import (
    apply_ccp_alpha,
    node_risk,
    prune_estimator,
    pruning_path,
)
from dtdecide.tree._structure._tree import TreeStructure

# ----------------------------------------------------------------------------- helpers
LEVELS = np.array(["no", "yes"], dtype=object)
# rows = levels (no, yes), columns = decisions (mail, skip)
PROFIT = np.array([[-2.0, 0.0], [10.0, 0.0]])


class StandIn:
    """Just the fitted attributes that pruning reads (contract section 2)."""

    def __init__(self, tree, *, matrix=None, classes=LEVELS, ccp_alpha=None):
        self.ccp_alpha = ccp_alpha
        self.tree_ = tree
        self.decision_matrix_ = matrix
        if classes is not None:
            self.classes_ = classes


def make_matrix(values=PROFIT, *, kind="profit", priors=None, levels=LEVELS):
    values = np.asarray(values, dtype=float)
    return SimpleNamespace(
        kind=kind,
        values=values,
        profit_values=-values if kind == "loss" else values,
        n_decisions=values.shape[1],
        levels=levels,
        priors=None if priors is None else np.asarray(priors, dtype=float),
    )


def build_tree(left, right, leaf_counts, profit=PROFIT, *, with_decisions=True):
    """A TreeStructure whose internal counts are sums of its leaves' counts.

    ``leaf_counts[v]`` (weighted class counts) is read for leaves only. Decision stats
    follow the contract: ``profit_sum[v, t, d] = count(v, t) * Q(t, d)`` and the node's
    decision maximises its training profit (first maximum).
    """
    left = np.asarray(left)
    right = np.asarray(right)
    n = left.size
    counts = np.zeros((n, len(leaf_counts[0]) if isinstance(leaf_counts, list) else
                       np.asarray(leaf_counts).shape[1]))
    leaf_counts = np.asarray(leaf_counts, dtype=float)
    for v in range(n - 1, -1, -1):
        counts[v] = leaf_counts[v] if left[v] < 0 else counts[left[v]] + counts[right[v]]
    stats = {}
    if with_decisions:
        profit = np.asarray(profit, dtype=float)
        profit_sum = counts[:, :, None] * profit[None, :, :]
        totals = profit_sum.sum(axis=1)
        stats = dict(
            profit_sum=profit_sum,
            cost_sum=np.zeros((n, profit.shape[1])),
            node_decision=totals.argmax(axis=1),
            node_expected=totals / np.maximum(counts.sum(axis=1), 1)[:, None],
        )
    return TreeStructure.from_arrays(
        children_left=left,
        children_right=right,
        feature=np.where(left >= 0, 0, -1),
        threshold=np.where(left >= 0, 0.5, np.nan),
        n_node_samples=counts.sum(axis=1).astype(np.int64),
        value=counts,
        impurity=np.zeros(n),
        **stats,
    )


# The hand-computed tree (design.md section 2 formulas; mail costs 2, a buyer brings 10):
#        0 (22 no, 6 yes)
#      /                  \
#   1 (14, 2)          2 (8, 4)
#   /      \           /      \
# 3 (10,0) 4 (4,2)   5 (6,1)  6 (2,3)
HAND_LEFT = [1, 3, 5, -1, -1, -1, -1]
HAND_RIGHT = [2, 4, 6, -1, -1, -1, -1]
HAND_COUNTS = [[0, 0], [0, 0], [0, 0], [10, 0], [4, 2], [6, 1], [2, 3]]


def hand_estimator(*, ccp_alpha=None, **kw):
    tree = build_tree(HAND_LEFT, HAND_RIGHT, HAND_COUNTS)
    return StandIn(tree, matrix=make_matrix(**kw), ccp_alpha=ccp_alpha)


# ------------------------------------------------------------------ hand computed
def test_hand_computed_sequence_alphas_and_profits():
    est = hand_estimator()
    # profit of mail = 10*yes - 2*no, skip = 0, each node takes its best decision:
    # node 0: 60-44=16 mail; 1: 20-28<0 skip 0; 2: 40-16=24 mail; 3: skip 0;
    # 4: 20-8=12 mail; 5: 10-12<0 skip 0; 6: 30-4=26 mail
    risk, measure = node_risk(est)
    assert measure == "profit"
    np.testing.assert_allclose(risk, [-16, 0, -24, 0, -12, 0, -26])
    path = pruning_path(est)
    # full tree: 0 + 12 + 0 + 26 = 38 with 4 leaves
    # g(1) = (0 - (-12)) / 1 = 12, g(2) = (-24 + 26) / 1 = 2, g(0) = (-16 + 38) / 3
    # step 1 collapses node 2 at alpha 2 -> profit 36, 3 leaves
    # then g(0) = (-16 + 36) / 2 = 10 < g(1) = 12: the root goes next, at alpha 10
    np.testing.assert_allclose(path.ccp_alphas, [0.0, 2.0, 10.0])
    assert path.n_leaves.tolist() == [4, 3, 1]
    np.testing.assert_allclose(path.train_total, [38.0, 36.0, 16.0])
    np.testing.assert_allclose(path.train_average, np.array([38.0, 36.0, 16.0]) / 28)
    assert path.collapse_step.tolist() == [2, 2, 1, 0, 0, 0, 0]
    assert path.higher_is_better


def test_hand_computed_loss_matrix_reports_losses():
    # the same consequences as a loss matrix: losses are the negated profits
    est = hand_estimator(values=-PROFIT, kind="loss")
    path = pruning_path(est)
    assert path.measure == "loss" and not path.higher_is_better
    np.testing.assert_allclose(path.ccp_alphas, [0.0, 2.0, 10.0])
    np.testing.assert_allclose(path.train_total, [-38.0, -36.0, -16.0])


def test_hand_computed_priors_reweight_classes():
    # priors 0.5/0.5 against training proportions 22/28 and 6/28:
    # Paw(no) = 0.5 * 28 / 22, Paw(yes) = 0.5 * 28 / 6
    est = hand_estimator(priors=[0.5, 0.5])
    paw = np.array([0.5 * 28 / 22, 0.5 * 28 / 6])
    risk, _ = node_risk(est)
    counts = est.tree_.value
    expected = -(counts * paw * PROFIT[:, 0]).sum(axis=1)  # mail column
    decision = est.tree_.node_decision
    expected = np.where(decision == 0, expected, 0.0)
    np.testing.assert_allclose(risk, expected)
    path = pruning_path(est)
    # the prior-adjusted frequencies still sum to 28
    np.testing.assert_allclose(path.train_average, path.train_total / 28)


def test_priors_with_a_missing_level_give_nan_summaries():
    tree = build_tree([1, -1, -1], [2, -1, -1], [[0, 0], [3, 0], [2, 0]])
    est = StandIn(tree, matrix=make_matrix(priors=[0.5, 0.5]))
    path = pruning_path(est)
    assert np.all(np.isnan(path.train_total))
    assert path.n_leaves.tolist()[-1] == 1


def test_misclassification_fallback_without_matrix():
    tree = build_tree(HAND_LEFT, HAND_RIGHT, HAND_COUNTS, with_decisions=False)
    est = StandIn(tree)
    risk, measure = node_risk(est)
    assert measure == "misclassification"
    # misclassified weight = node weight - majority count
    np.testing.assert_allclose(risk, [6, 2, 4, 0, 2, 1, 2])
    path = pruning_path(est)
    # leaves 0+2+1+2 = 5; g(1) = (2-2)/1 = 0, g(2) = (4-3)/1 = 1, g(0) = (6-5)/3
    # step 1 (alpha 0): node 1 -> 2+1+2 = 5 errors, 3 leaves; then g(0) = 1/2, g(2) = 1
    # step 2 (alpha 1/2): root
    np.testing.assert_allclose(path.ccp_alphas, [0.0, 0.0, 0.5])
    assert path.n_leaves.tolist() == [4, 3, 1]
    np.testing.assert_allclose(path.train_average, np.array([5, 5, 6]) / 28)


def test_one_decision_matrix_falls_back_to_misclassification():
    tree = build_tree(HAND_LEFT, HAND_RIGHT, HAND_COUNTS, profit=PROFIT[:, :1])
    est = StandIn(tree, matrix=make_matrix(PROFIT[:, :1]))
    assert pruning_path(est).measure == "misclassification"


def test_ase_fallback_for_a_regressor():
    # value = [sum w, sum w y, sum w y^2]; leaves y = {1, 3} and {10, 10, 13}
    leaves = {1: [1, 3], 2: [10, 10, 13]}
    value = np.zeros((3, 3))
    for v, ys in leaves.items():
        ys = np.asarray(ys, float)
        value[v] = [ys.size, ys.sum(), (ys**2).sum()]
    value[0] = value[1] + value[2]
    tree = TreeStructure.from_arrays(
        children_left=[1, -1, -1], children_right=[2, -1, -1], feature=[0, -1, -1],
        threshold=[0.5, np.nan, np.nan], n_node_samples=[5, 2, 3], value=value,
        impurity=np.zeros(3), weighted_n_node_samples=value[:, 0])
    est = StandIn(tree, classes=None)
    risk, measure = node_risk(est)
    assert measure == "ase"
    all_y = np.array([1, 3, 10, 10, 13.0])
    sse = [((all_y - all_y.mean()) ** 2).sum(), 2.0, 6.0]
    np.testing.assert_allclose(risk, sse)
    path = pruning_path(est)
    np.testing.assert_allclose(path.ccp_alphas, [0.0, sse[0] - 8.0])
    np.testing.assert_allclose(path.train_average, [8.0 / 5, sse[0] / 5])


def test_measure_argument_is_validated():
    est = hand_estimator()
    with pytest.raises(ValueError, match="measure"):
        pruning_path(est, measure="gini")
    assert pruning_path(est, measure="misclassification").measure == "misclassification"
    no_matrix = StandIn(build_tree(HAND_LEFT, HAND_RIGHT, HAND_COUNTS, with_decisions=False))
    with pytest.raises(ValueError, match="decision matrix"):
        pruning_path(no_matrix, measure="decision")
    with pytest.raises(ValueError, match="not fitted"):
        pruning_path(StandIn(None))


# ------------------------------------------------------------ pruned copies and alpha
def test_prune_estimator_selects_and_copies():
    est = hand_estimator(ccp_alpha=None)
    pruned = prune_estimator(est, ccp_alpha=5.0)
    assert pruned.tree_.n_leaves == 3 and est.tree_.n_leaves == 4
    assert pruned.ccp_alpha == 2.0 and pruned.pruning_subtree_index_ == 1
    # node 2 became a leaf that keeps its own stored decision (mail)
    kept = pruned.tree_.kept_node_ids.tolist()
    assert kept == [0, 1, 2, 3, 4]
    assert pruned.tree_.node_decision[2] == 0
    assert prune_estimator(est, n_leaves=3).tree_.n_leaves == 3
    assert prune_estimator(est, n_leaves=2).tree_.n_leaves == 1
    assert prune_estimator(est, subtree_index=2).tree_.n_leaves == 1
    # a negative position is refused, not read from the end (issue 13: -1 gave the root)
    with pytest.raises(ValueError, match="subtree_index must be in"):
        prune_estimator(est, subtree_index=-1)
    assert prune_estimator(est, subtree_index=0).tree_ == est.tree_


@pytest.mark.parametrize(
    "kw, error, match",
    [
        ({}, ValueError, "exactly one"),
        ({"ccp_alpha": 1.0, "n_leaves": 2}, ValueError, "exactly one"),
        ({"ccp_alpha": -1.0}, ValueError, "ccp_alpha"),
        ({"ccp_alpha": "big"}, TypeError, "ccp_alpha"),
        ({"n_leaves": 0}, ValueError, "n_leaves"),
        ({"n_leaves": 2.5}, TypeError, "n_leaves"),
        ({"subtree_index": 3}, ValueError, "subtree_index"),
    ],
)
def test_prune_estimator_rejects_bad_arguments(kw, error, match):
    with pytest.raises(error, match=match):
        prune_estimator(hand_estimator(), **kw)


def test_apply_ccp_alpha_none_keeps_tree_and_zero_removes_idle_splits():
    # node 1 splits (5,0) into (3,0) and (2,0): same decision (skip), same profit 0
    tree = build_tree([1, 3, -1, -1, -1], [2, 4, -1, -1, -1],
                      [[0, 0], [0, 0], [1, 4], [3, 0], [2, 0]])
    est = StandIn(tree, matrix=make_matrix())
    assert apply_ccp_alpha(est, None) is tree
    pruned = apply_ccp_alpha(est, 0.0)
    assert pruned.n_leaves == 2 and pruned.kept_node_ids.tolist() == [0, 1, 2]
    assert apply_ccp_alpha(est, 1e9).n_leaves == 1


def test_subtree_index_for_alpha_boundaries():
    alphas = [0.0, 0.0, 2.0, 10.0]
    assert subtree_index_for_alpha(alphas, 0.0) == 1
    assert subtree_index_for_alpha(alphas, 1.999) == 1
    assert subtree_index_for_alpha(alphas, 2.0) == 2
    assert subtree_index_for_alpha(alphas, 2.0 * (1 - 1e-12)) == 2  # rounding slack
    assert subtree_index_for_alpha(alphas, 1e12) == 3


# ------------------------------------------------------------------ slow twin
def slow_weakest_link(left, right, risk):
    """Recompute every g from scratch at every step (obviously correct, O(n^2))."""
    n = len(left)
    collapsed = [left[v] < 0 for v in range(n)]
    tol = 1e-9 * max(abs(r) for r in risk)

    def stats(v):
        if collapsed[v]:
            return risk[v], 1
        s1, l1 = stats(left[v])
        s2, l2 = stats(right[v])
        return s1 + s2, l1 + l2

    def internal_nodes(v):
        if collapsed[v]:
            return []
        return [v, *internal_nodes(left[v]), *internal_nodes(right[v])]

    s, n_leaf = stats(0)
    alphas, leaves, totals = [0.0], [n_leaf], [s]
    while not collapsed[0]:
        g = []
        for v in internal_nodes(0):
            s, n_leaf = stats(v)
            g.append((risk[v] - s) / (n_leaf - 1))
        alpha = max(min(g), alphas[-1])
        again = True
        while again:
            again = False
            for v in internal_nodes(0):
                s, n_leaf = stats(v)
                if risk[v] - s <= alpha * (n_leaf - 1) + tol:
                    collapsed[v] = True
                    again = True
                    break
        s, n_leaf = stats(0)
        alphas.append(alpha)
        leaves.append(n_leaf)
        totals.append(s)
    return np.array(alphas), np.array(leaves), np.array(totals)


def all_prunings(left, right, risk, v=0):
    """(total risk, n_leaves) of every pruned subtree rooted at v (brute force)."""
    out = {(risk[v], 1)}
    if left[v] >= 0:
        for a in all_prunings(left, right, risk, left[v]):
            for b in all_prunings(left, right, risk, right[v]):
                out.add((a[0] + b[0], a[1] + b[1]))
    return out


@st.composite
def random_trees(draw, max_leaves=12, n_classes=2, n_decisions=3):
    n_leaves = draw(st.integers(1, max_leaves))
    left, right = [-1], [-1]
    leaves = [0]
    for _ in range(n_leaves - 1):
        v = leaves.pop(draw(st.integers(0, len(leaves) - 1)))
        left[v], right[v] = len(left), len(left) + 1
        left += [-1, -1]
        right += [-1, -1]
        leaves += [left[v], right[v]]
    n = len(left)
    counts = [draw(st.lists(st.integers(0, 6), min_size=n_classes, max_size=n_classes))
              for _ in range(n)]
    for v in range(n):
        if left[v] < 0 and sum(counts[v]) == 0:
            counts[v][0] = 1
    profit = draw(st.lists(st.integers(-5, 5), min_size=n_classes * n_decisions,
                           max_size=n_classes * n_decisions))
    profit = np.array(profit, float).reshape(n_classes, n_decisions)
    return build_tree(left, right, counts, profit), profit


def random_estimator(tree, profit):
    levels = np.arange(profit.shape[0])
    return StandIn(tree, matrix=make_matrix(profit, levels=levels), classes=levels)


@settings(max_examples=60, deadline=None)
@given(random_trees())
def test_fast_sequence_matches_slow_twin(case):
    tree, profit = case
    risk, _ = node_risk(random_estimator(tree, profit))
    fast = weakest_link_sequence(tree.children_left, tree.children_right, risk)
    alphas, leaves, totals = slow_weakest_link(
        tree.children_left.tolist(), tree.children_right.tolist(), risk.tolist())
    np.testing.assert_allclose(fast.ccp_alphas, alphas, atol=1e-9)
    assert fast.n_leaves.tolist() == leaves.tolist()
    np.testing.assert_allclose(fast.total_risk, totals, atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(random_trees(max_leaves=9))
def test_each_subtree_is_the_smallest_optimal_one_for_its_alpha(case):
    tree, profit = case
    risk, _ = node_risk(random_estimator(tree, profit))
    seq = weakest_link_sequence(tree.children_left, tree.children_right, risk)
    options = all_prunings(tree.children_left.tolist(), tree.children_right.tolist(),
                           risk.tolist())
    for k in range(1, seq.ccp_alphas.size):
        alpha = seq.ccp_alphas[k]
        best = min(r + alpha * m for r, m in options)
        mine = seq.total_risk[k] + alpha * seq.n_leaves[k]
        assert mine == pytest.approx(best, abs=1e-9)
        smallest = min(m for r, m in options if r + alpha * m <= best + 1e-9)
        assert seq.n_leaves[k] == smallest


@settings(max_examples=60, deadline=None)
@given(random_trees())
def test_sequence_properties(case):
    tree, profit = case
    est = random_estimator(tree, profit)
    path = pruning_path(est)
    # alpha non-decreasing, leaves decreasing, training profit never increases
    assert np.all(np.diff(path.ccp_alphas) >= 0)
    assert np.all(np.diff(path.n_leaves) < 0)
    assert np.all(np.diff(path.train_total) <= 1e-9)
    assert path.n_leaves[-1] == 1 and path.n_leaves[0] == tree.n_leaves
    # nested: the internal nodes of subtree k+1 are internal nodes of subtree k
    internal = []
    for k in range(path.n_subtrees):
        pruned = prune_estimator(est, subtree_index=k).tree_
        ids = pruned.kept_node_ids[~pruned.is_leaf]
        internal.append(set(ids.tolist()))
        assert pruned.n_leaves == path.n_leaves[k]
        # the materialised subtree earns the path's profit under its stored decisions
        leaves = pruned.kept_node_ids[pruned.is_leaf]
        profit_sum = tree.profit_sum.sum(axis=1)
        earned = profit_sum[leaves, tree.node_decision[leaves]].sum()
        assert earned == pytest.approx(path.train_total[k])
    for k in range(path.n_subtrees - 1):
        assert internal[k + 1] <= internal[k]


@settings(max_examples=60, deadline=None)
@given(random_trees())
def test_alpha_zero_removes_exactly_the_idle_splits(case):
    tree, profit = case
    est = random_estimator(tree, profit)
    pruned = apply_ccp_alpha(est, 0.0)
    kept = set(pruned.kept_node_ids.tolist())
    kept_internal = set(pruned.kept_node_ids[~pruned.is_leaf].tolist())
    node_profit = tree.profit_sum.sum(axis=1)[np.arange(tree.n_nodes), tree.node_decision]
    below = node_profit.copy()  # profit of the full tree's leaves below each node
    same_decision = np.ones(tree.n_nodes, bool)  # all leaves below share the node's one
    for v in range(tree.n_nodes - 1, -1, -1):
        if tree.children_left[v] >= 0:
            a, b = tree.children_left[v], tree.children_right[v]
            below[v] = below[a] + below[b]
            same_decision[v] = all(
                same_decision[c] and tree.node_decision[c] == tree.node_decision[v]
                for c in (a, b))
    for v in range(tree.n_nodes):
        if tree.children_left[v] < 0 or v not in kept:
            continue
        idle = below[v] == node_profit[v]
        # a split survives alpha = 0 exactly when it adds training profit
        assert (v in kept_internal) == (not idle)
        if same_decision[v]:
            assert v not in kept_internal
    # and nothing that adds profit is lost: the training profit is unchanged
    leaves = pruned.kept_node_ids[pruned.is_leaf]
    assert node_profit[leaves].sum() == below[0]


@settings(max_examples=40, deadline=None)
@given(random_trees(), st.data())
def test_sum_over_subtrees_matches_a_loop(case, data):
    tree, profit = case
    path = pruning_path(random_estimator(tree, profit))
    values = np.array(data.draw(st.lists(st.integers(-9, 9), min_size=tree.n_nodes,
                                         max_size=tree.n_nodes)), float)
    start, stop = leaf_intervals(path.collapse_step, tree.parent, path.n_subtrees)
    fast = sum_over_subtrees(values, start, stop, path.n_subtrees)
    for k in range(path.n_subtrees):
        sub = tree.subtree(keep_as_leaf_mask(path.collapse_step, k))
        assert fast[k] == values[sub.kept_node_ids[sub.is_leaf]].sum()


# ------------------------------------------------------- leaf-decision sequence
# A case-rule tree with the shape of the hand tree: risks as a leaf (minus the training
# profit of the node's own decision) and under the case rule (minus the profit of the
# node's cases, each under its own best decision; never above the leaf risk)
LSEQ_LEAF_RISK = np.array([20.0, 8.0, 10.0, 3.0, 3.0, 2.0, 2.0])
LSEQ_CASE_RISK = np.array([20.0, 8.0, 5.0, 2.0, 2.0, 2.0, 2.0])


def leaf_sequence_tree():
    counts = np.array([[2, 2], [1, 1], [1, 1], [1, 0], [0, 1], [1, 0], [0, 1]], dtype=float)
    profit_sum = np.stack([-LSEQ_LEAF_RISK, -LSEQ_LEAF_RISK - 5.0], axis=1)
    return TreeStructure.from_arrays(
        children_left=HAND_LEFT, children_right=HAND_RIGHT,
        feature=np.where(np.asarray(HAND_LEFT) >= 0, 0, -1),
        threshold=np.where(np.asarray(HAND_LEFT) >= 0, 0.5, np.nan),
        n_node_samples=[4, 2, 2, 1, 1, 1, 1], value=counts,
        impurity=np.zeros(7), profit_sum=profit_sum, cost_sum=np.zeros((7, 2)),
        node_decision=np.zeros(7, dtype=int), node_expected=profit_sum / 4)


def test_hand_computed_leaf_decision_sequence_differs_from_the_case_rule():
    tree = leaf_sequence_tree()
    kw = dict(matrix=make_matrix(), classifier=True, case_profit=-LSEQ_CASE_RISK)
    rule = tree_pruning_path(tree, **kw)
    # case rule: g(1) = (8 - 4) / 1 = 4, g(2) = (5 - 4) / 1 = 1 -> node 2 first (alpha 1);
    # then g(0) = (20 - 9) / 2 = 5.5 > g(1) = 4 -> node 1 (alpha 4); then the root at
    # (20 - 13) / 1 = 7
    np.testing.assert_allclose(rule.ccp_alphas, [0.0, 1.0, 4.0, 7.0])
    assert rule.n_leaves.tolist() == [4, 3, 2, 1]
    assert rule.collapse_step.tolist() == [3, 2, 1, 0, 0, 0, 0]
    np.testing.assert_allclose(rule.train_total, [-8.0, -9.0, -13.0, -20.0])
    leaf = tree_pruning_path(tree, **kw, pruning_sequence="leaf")
    # leaf decisions: g(1) = (8 - 6) / 1 = 2, g(2) = (10 - 4) / 1 = 6 -> node 1 first
    # (alpha 2); then g(0) = (20 - 12) / 2 = 4 < 6 -> the root, node 2 with it (alpha 4)
    np.testing.assert_allclose(leaf.ccp_alphas, [0.0, 2.0, 4.0])
    assert leaf.n_leaves.tolist() == [4, 3, 1]
    assert leaf.collapse_step.tolist() == [2, 1, 2, 0, 0, 0, 0]
    # ... and every subtree is still measured under the case rule: leaves {3, 4, 5, 6},
    # {1, 5, 6} (8 + 2 + 2) and the root
    np.testing.assert_allclose(leaf.train_total, [-8.0, -12.0, -20.0])
    np.testing.assert_allclose(leaf.train_average, np.array([-8.0, -12.0, -20.0]) / 4)
    np.testing.assert_allclose(leaf.node_risk, LSEQ_LEAF_RISK)  # what ordered it
    # the leaf sequence is the one the same tree has without case-rule statistics
    plain = tree_pruning_path(tree, matrix=make_matrix(), classifier=True)
    np.testing.assert_array_equal(leaf.collapse_step, plain.collapse_step)
    np.testing.assert_allclose(leaf.ccp_alphas, plain.ccp_alphas)
    # without case_profit, and for another measure, "leaf" changes nothing
    again = tree_pruning_path(tree, matrix=make_matrix(), classifier=True,
                              pruning_sequence="leaf")
    np.testing.assert_allclose(again.train_total, plain.train_total)
    mis = tree_pruning_path(tree, **kw, measure="misclassification", pruning_sequence="leaf")
    mis_rule = tree_pruning_path(tree, **kw, measure="misclassification")
    np.testing.assert_array_equal(mis.collapse_step, mis_rule.collapse_step)


def test_leaf_decision_sequence_of_fitted_case_rule_trees():
    rng = np.random.default_rng(5)
    n = 600
    X = np.column_stack([rng.random(n), rng.random(n), rng.normal(size=n)])
    y = np.where(rng.random(n) < 0.2 + 0.5 * (X[:, 0] > 0.6), "yes", "no")
    amount = np.exp(rng.normal(size=n) * 1.5)
    from dtdecide import DecisionMatrix, ProfitTreeClassifier

    matrix = DecisionMatrix.from_cost_matrix(levels=("yes", "no"))
    costs = np.column_stack([amount, np.full(n, 1.0), np.zeros(n), np.zeros(n)])
    differ = 0
    for depth in (4, 6):
        est = ProfitTreeClassifier(decision_matrix=matrix, decision_rule="case",
                                   max_depth=depth, min_samples_leaf=5, random_state=0)
        est.fit(X, y, costs=costs)
        rule = pruning_path(est)
        leaf = pruning_path(est, pruning_sequence="leaf")
        # the order of the nodes' leaf decisions ...
        inputs = dict(matrix=est.decision_matrix_, classes=est.classes_, classifier=True)
        plain = tree_pruning_path(est.tree_, **inputs)
        np.testing.assert_array_equal(leaf.collapse_step, plain.collapse_step)
        # ... measured under the case rule: the sum of the case-rule node risks of the
        # subtree's leaves, as the rule's own path measures its subtrees
        start, stop = leaf_intervals(leaf.collapse_step, est.tree_.parent, leaf.n_subtrees)
        case_risk, _ = node_risk(est)
        np.testing.assert_allclose(
            leaf.train_total,
            -sum_over_subtrees(case_risk, start, stop, leaf.n_subtrees)
            if rule.measure == "profit" else
            sum_over_subtrees(case_risk, start, stop, leaf.n_subtrees), rtol=1e-12)
        np.testing.assert_allclose(leaf.train_total[[0, -1]], rule.train_total[[0, -1]])
        differ += leaf.collapse_step.tolist() != rule.collapse_step.tolist()
        # a pruned copy follows the leaf sequence and keeps its ccp_alpha
        k = leaf.n_subtrees // 2
        pruned = prune_estimator(est, subtree_index=k, pruning_sequence="leaf")
        assert pruned.get_n_leaves() == leaf.n_leaves[k]
        assert pruned.ccp_alpha == est.ccp_alpha
    assert differ  # the data make the two sequences differ somewhere
    # a leaf-rule tree: the two sequences are the same
    est = ProfitTreeClassifier(decision_matrix=matrix, max_depth=4, min_samples_leaf=5,
                               random_state=0).fit(X, y, costs=costs)
    a, b = pruning_path(est), pruning_path(est, pruning_sequence="leaf")
    np.testing.assert_array_equal(a.collapse_step, b.collapse_step)
    np.testing.assert_allclose(a.train_total, b.train_total)


@pytest.mark.parametrize("value", ["case", "Leaf", None, 1, ("leaf",)])
def test_pruning_sequence_is_validated(value):
    est = hand_estimator()
    for call in (lambda: pruning_path(est, pruning_sequence=value),
                 lambda: prune_estimator(est, n_leaves=2, pruning_sequence=value),
                 lambda: tree_pruning_path(est.tree_, pruning_sequence=value)):
        with pytest.raises(ValueError, match="pruning_sequence must be one of"):
            call()
