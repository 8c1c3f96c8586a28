"""English rules, tree plots, DOT export and variable importance."""

import re

import matplotlib
import numpy as np
import pytest
from export_helpers import RandomTreeClassifier, RandomTreeRegressor, class_target, make_inputs
from test_export_leaf_table import hand_tree

from dtdecide import DecisionMatrix
from dtdecide.export import (
    export_graphviz,
    export_rules,
    leaf_table,
    plot_tree,
    plot_variable_importance,
    variable_importance,
)
from dtdecide.export._common import tree_view
from dtdecide.export._plot import _PALETTE

matplotlib.use("Agg")


# ------------------------------------------------------------------------------ rules
def test_hand_tree_rules():
    est, _, _ = hand_tree()
    text = export_rules(est)
    assert text == (
        "Leaf 1\n"
        "  IF    age <= 20\n"
        "  THEN  decision skip (expected profit 0)\n"
        "  coverage: 2 rows, weight 2 (33.33% of training weight)\n"
        "  posterior: yes 0, no 1\n"
        "\n"
        "Leaf 3\n"
        "  IF    (age > 20 or age is missing)\n"
        "  AND   (job in {'c'} or job is missing or unseen)\n"
        "  THEN  decision call (expected profit 6)\n"
        "  coverage: 3 rows, weight 3 (50% of training weight)\n"
        "  posterior: yes 1, no 0\n"
        "\n"
        "Leaf 4\n"
        "  IF    (age > 20 or age is missing)\n"
        "  AND   job in {'a', 'b'}\n"
        "  THEN  decision skip (expected profit 0)\n"
        "  coverage: 1 rows, weight 1 (16.67% of training weight)\n"
        "  posterior: yes 0, no 1"
    )
    order = re.findall(r"Leaf (\d+)", export_rules(est, order="profit"))
    assert order[0] == "3"
    order = re.findall(r"Leaf (\d+)", export_rules(est, order="coverage"))
    assert order == ["3", "1", "4"]


def test_rules_agree_with_the_leaf_table_and_thresholds_are_exact():
    rng = np.random.default_rng(31)
    X = make_inputs(1500, rng)
    y = class_target(X, rng)
    m = DecisionMatrix([[0.0, 4.0], [1.0, 2.0], [3.0, 0.0]], levels=["yes", "maybe", "no"],
                       decisions=["act", "wait"], kind="loss")
    est = RandomTreeClassifier(decision_matrix=m, max_depth=5, random_state=4).fit(X, y)
    text = export_rules(est)
    table = leaf_table(est)
    blocks = text.split("\n\n")
    assert len(blocks) == len(table)
    for block, row in zip(blocks, table.itertuples()):
        assert block.startswith(f"Leaf {row.leaf}\n")
        assert f"decision {row.decision} (expected loss" in block
        # the table's rule is the block's conditions joined by "and"
        conds = [ln[8:] for ln in block.splitlines() if ln.startswith(("  IF", "  AND"))]
        assert " and ".join(conds) == row.rule
    # every threshold printed reads back as a split threshold of the tree
    thresholds = set(est.tree_.threshold[~np.isnan(est.tree_.threshold)].tolist())
    for num in re.findall(r"(?:<=|>|<) (-?[0-9.e+-]+)", text):
        assert float(num) in thresholds
    short = export_rules(est, precision=3)
    numbers = re.findall(r"(?:<=|>|<) (-?[0-9.e+-]+)", short)
    assert numbers
    for n in numbers:  # at most 3 significant digits
        assert len(re.sub(r"[^0-9]", "", n.split("e")[0]).lstrip("0")) <= 3


def test_rules_of_a_regression_tree_and_bad_arguments():
    rng = np.random.default_rng(32)
    X = make_inputs(600, rng)
    y = rng.normal(100, 10, len(X))
    est = RandomTreeRegressor(max_depth=2, random_state=3).fit(X, y)
    text = export_rules(est)
    assert "THEN  predict" in text and "target: mean" in text
    with pytest.raises(ValueError, match="order"):
        export_rules(est, order="size")
    with pytest.raises(ValueError, match="precision"):
        export_rules(est, precision=0)
    with pytest.raises(ValueError, match="digits"):
        export_rules(est, digits=0)


# ------------------------------------------------------------------------------ plots
def test_plot_tree_boxes_colours_and_labels():
    est, _, _ = hand_tree()
    ax = plot_tree(est)
    view = tree_view(est)
    tree = est.tree_
    n_edges = 2 * int((tree.children_left >= 0).sum())
    assert len(ax.texts) == tree.n_nodes + n_edges
    boxes = ax.texts[n_edges:]
    for node, box in enumerate(boxes):
        assert box.get_text().splitlines()[0] in (f"node {node}", f"leaf {node}")
        if tree.children_left[node] < 0:
            colour = matplotlib.colors.to_hex(box.get_bbox_patch().get_facecolor())
            assert colour.lower() == _PALETTE[view.node_decision[node]].lower()
    labels = [t.get_text() for t in ax.texts[:n_edges]]
    # root sends missing right, node 2 sends missing/unseen left
    assert labels == ["yes", "no +NA", "yes +NA", "no"]
    assert "call: EP 6" in boxes[3].get_text()
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["call", "skip"]
    matplotlib.pyplot.close("all")


def test_plot_tree_readable_with_30_leaves():
    rng = np.random.default_rng(33)
    X = make_inputs(3000, rng)
    y = class_target(X, rng)
    m = DecisionMatrix([[5.0, 0.0], [1.0, 0.0], [-1.0, 0.0]], levels=["yes", "maybe", "no"],
                       decisions=["act", "wait"])
    est = RandomTreeClassifier(decision_matrix=m, max_depth=6, random_state=12).fit(X, y)
    assert 20 <= est.tree_.n_leaves <= 45
    ax = plot_tree(est)
    fig = ax.figure
    fig.canvas.draw()
    # readable: the figure grows with the tree instead of the font shrinking below 6 pt
    leaves = [t for t in ax.texts if t.get_text().startswith("leaf")]
    assert min(t.get_fontsize() for t in leaves) >= 6.0
    assert fig.get_size_inches()[0] >= 0.5 * est.tree_.n_leaves
    # boxes of neighbouring leaves do not overlap horizontally (all pairs of boxes:
    # tests/export/test_plot_layout.py)
    boxes = sorted((t.get_bbox_patch().get_window_extent() for t in leaves), key=lambda b: b.x0)
    for a, b in zip(boxes, boxes[1:]):
        if abs(a.y0 - b.y0) < 1:
            assert a.x1 <= b.x0 + 1
    matplotlib.pyplot.close("all")


def test_export_graphviz():
    est, _, _ = hand_tree()
    dot = export_graphviz(est)
    assert dot.startswith("digraph Tree {") and dot.rstrip().endswith("}")
    assert dot.count(" -> ") == 4
    assert '0 -> 2 [label="no +NA"]' in dot and '2 -> 3 [label="yes +NA"]' in dot
    assert '3 [label="leaf 3' in dot and f'fillcolor="{_PALETTE[0]}"' in dot
    assert "job in {'c'}" in dot
    with pytest.raises(ValueError, match="rankdir"):
        export_graphviz(est, rankdir="XY")


# ----------------------------------------------------------------- variable importance
def test_variable_importance_hand_computed():
    est, _, _ = hand_tree()
    imp = variable_importance(est)
    t = est.tree_
    # impurities are zero in the hand-built tree: check the profit side by hand.
    # root (6 rows: 3 yes, costs 1..6, mean 3.5): EP(call) = 10/2 - 3.5 = 1.5 -> call,
    # training profit 30 - 21 = 9; children: leaf 1 skip 0, node 2 (yes 3 of 4, costs
    # 3+4+5+6=18): call 30 - 18 = 12 -> gain on age 0 + 12 - 9 = 3; node 2's children:
    # leaf 3 call 18, leaf 4 skip 0 -> gain on job 18 - 12 = 6.
    assert imp.loc["age", "profit_gain"] == 3.0
    assert imp.loc["job", "profit_gain"] == 6.0
    assert "c" not in imp.index  # a cost variable, not an input
    assert imp.index.tolist()[:2] == ["job", "age"]
    assert imp["profit_share"].sum() == pytest.approx(1.0)
    assert (imp["impurity_decrease"] == 0).all() and t.impurity.max() == 0


def test_variable_importance_matches_a_node_loop():
    rng = np.random.default_rng(34)
    X = make_inputs(2000, rng)
    y = class_target(X, rng)
    m = DecisionMatrix([[5.0, 0.0], [1.0, 0.0], [-1.0, 0.0]], levels=["yes", "maybe", "no"],
                       decisions=["act", "wait"], kind="revenue", costs={"act": 0.5})
    est = RandomTreeClassifier(decision_matrix=m, max_depth=5, random_state=13).fit(X, y)
    t = est.tree_
    names = list(est.feature_names_in_)
    imp_ref = dict.fromkeys(names, 0.0)
    gain_ref = dict.fromkeys(names, 0.0)

    def profit(node):
        d = t.node_decision[node]
        return t.profit_sum[node, :, d].sum()

    for node in range(t.n_nodes):
        lft, rgt = t.children_left[node], t.children_right[node]
        if lft < 0:
            continue
        w = t.weighted_n_node_samples
        name = names[t.feature[node]]
        imp_ref[name] += w[node] * t.impurity[node] - w[lft] * t.impurity[lft] - w[rgt] * t.impurity[rgt]
        gain_ref[name] += profit(lft) + profit(rgt) - profit(node)
    imp = variable_importance(est)
    for name in names:
        assert imp.loc[name, "impurity_decrease"] == pytest.approx(imp_ref[name], abs=1e-9)
        assert imp.loc[name, "profit_gain"] == pytest.approx(gain_ref[name], abs=1e-9)
    # impurity shares agree with the estimator's own feature_importances_ ordering
    ax = plot_variable_importance(est, top=3)
    assert len(ax.patches) == 3
    ax = plot_variable_importance(imp, column="impurity_decrease")
    assert ax.get_xlabel() == "impurity decrease"
    with pytest.raises(ValueError, match="column"):
        plot_variable_importance(imp, column="nope")
    matplotlib.pyplot.close("all")
