"""plot_tree layout: boxes, edge labels and legend never overlap and stay in the figure.

Two levels: the pure geometry (``_tidy_x``, ``_free_corner``, ``_segment_meets``) against
hand-computed positions, brute-force references and hypothesis properties; then rendered
trees (real grown trees, hand-made shapes, random structures) whose drawn extents are
measured with matplotlib's renderer.
"""

import warnings

import matplotlib
import numpy as np
import pandas as pd
import pytest
from export_helpers import (
    FixedTreeClassifier,
    RandomTreeClassifier,
    RandomTreeRegressor,
    class_target,
    fixed,
    make_inputs,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from dtdecide import DecisionMatrix, ProfitTreeClassifier
from dtdecide.datasets import load_bank_marketing
from dtdecide.export import plot_tree
from dtdecide.export._plot import _free_corner, _segment_meets, _tidy_x

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


# ------------------------------------------------------------------ geometry by hand
def test_tidy_x_two_leaves():
    # widths 10 and 20, gap 2: children 5 + 10 + 2 = 17 apart, leftmost edge at 0
    x = _tidy_x([1, -1, -1], [2, -1, -1], np.array([-2.0, -5, -10]), np.array([2.0, 5, 10]), gap=2.0)
    np.testing.assert_allclose(x, [13.5, 5.0, 22.0])


def test_tidy_x_edge_labels_push_children_apart():
    # labels 30 wide at x_parent -/+ sep/4 need sep/2 >= 15 + 15 + 1: sep = 62
    lo, hi = np.array([-2.0, -5, -5]), np.array([2.0, 5, 5])
    x = _tidy_x([1, -1, -1], [2, -1, -1], lo, hi, gap=2.0, label_lo=np.full(3, -15.0),
                label_hi=np.full(3, 15.0), label_gap=1.0)
    np.testing.assert_allclose(x, [36.0, 5.0, 67.0])


def test_tidy_x_deeper_rows_decide_the_separation():
    # all boxes 10 wide, gap 2: grandchildren 12 apart under each child; the children's
    # subtrees then need 6 + 5 + 2 + 5 + 6 = 24 between the children (not 5 + 2 + 5)
    left = [1, 3, 5, -1, -1, -1, -1]
    right = [2, 4, 6, -1, -1, -1, -1]
    x = _tidy_x(left, right, np.full(7, -5.0), np.full(7, 5.0), gap=2.0)
    np.testing.assert_allclose(x, [23.0, 11.0, 35.0, 5.0, 17.0, 29.0, 41.0])


def test_tidy_x_a_leaf_may_sit_above_a_wide_cousin():
    # leaf 1 (depth 1) only meets node 2 on its row: sep 5 + 2 + 5 = 12; node 2's leaves
    # (30 wide) are 32 apart and the left one reaches under leaf 1
    lo = np.array([-5.0, -5, -5, -15, -15])
    hi = -lo
    x = _tidy_x([1, -1, 3, -1, -1], [2, -1, 4, -1, -1], lo, hi, gap=2.0)
    np.testing.assert_allclose(x, [25.0, 19.0, 31.0, 15.0, 47.0])


def test_tidy_x_single_node():
    np.testing.assert_allclose(_tidy_x([-1], [-1], np.array([-3.0]), np.array([4.0]), gap=1.0), [3.0])


# ------------------------------------------------------------- geometry properties
@st.composite
def shapes(draw, max_splits=40):
    """Children arrays of a random binary tree (children ids above their parent's) with
    random asymmetric box extents and edge-label extents."""
    n_splits = draw(st.integers(0, max_splits))
    left, right, leaves = [-1], [-1], [0]
    for _ in range(n_splits):
        node = leaves.pop(draw(st.integers(0, len(leaves) - 1)))
        left[node], right[node] = len(left), len(left) + 1
        leaves += [len(left), len(left) + 1]
        left += [-1, -1]
        right += [-1, -1]
    n = len(left)
    ext = st.floats(0.5, 50.0)
    lo = -np.array(draw(st.lists(ext, min_size=n, max_size=n)))
    hi = np.array(draw(st.lists(ext, min_size=n, max_size=n)))
    lab = st.floats(0.0, 20.0)
    label_lo = -np.array(draw(st.lists(lab, min_size=n, max_size=n)))
    label_hi = np.array(draw(st.lists(lab, min_size=n, max_size=n)))
    return np.array(left), np.array(right), lo, hi, label_lo, label_hi


def depths_and_inorder(left, right):
    depth = np.zeros(len(left), dtype=int)
    order = []

    def walk(node, d):
        depth[node] = d
        if left[node] >= 0:
            walk(left[node], d + 1)
        order.append(node)
        if left[node] >= 0:
            walk(right[node], d + 1)

    walk(0, 0)
    return depth, order


def subtree(left, right, node):
    out, stack = [], [node]
    while stack:
        k = stack.pop()
        out.append(k)
        if left[k] >= 0:
            stack += [left[k], right[k]]
    return out


@settings(max_examples=150, deadline=None)
@given(shapes(), st.floats(0.0, 10.0), st.floats(0.0, 5.0))
def test_tidy_x_properties(shape, gap, label_gap):
    left, right, lo, hi, label_lo, label_hi = shape
    x = _tidy_x(left, right, lo, hi, gap=gap, label_lo=label_lo, label_hi=label_hi,
                label_gap=label_gap)
    depth, inorder = depths_and_inorder(left, right)
    tol = 1e-9 * (1.0 + np.abs(x).max())
    assert min(x + lo) == pytest.approx(0.0, abs=tol)
    for d in range(depth.max() + 1):
        row = [k for k in inorder if depth[k] == d]
        # a row keeps the in-order sequence and its boxes are at least `gap` apart
        for a, b in zip(row, row[1:]):
            assert x[b] + lo[b] - (x[a] + hi[a]) >= gap - tol
    for node in np.flatnonzero(left >= 0):
        lft, rgt = left[node], right[node]
        assert x[node] == pytest.approx((x[lft] + x[rgt]) / 2, abs=tol)
        sep = x[rgt] - x[lft]
        # the two edge labels, at x_node -/+ sep / 4, stay label_gap apart
        label_need = 2.0 * (label_hi[lft] - label_lo[rgt] + label_gap)
        assert sep >= label_need - tol
        # as close as possible: brute force over every pair of same-depth boxes
        ls, rs = subtree(left, right, lft), subtree(left, right, rgt)
        clearances = [x[b] + lo[b] - (x[a] + hi[a]) for a in ls for b in rs if depth[a] == depth[b]]
        assert min(clearances) == pytest.approx(gap, abs=tol) or sep == pytest.approx(label_need, abs=tol)


def _orient(a, b, c):
    return np.sign((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))


def _on_segment(a, b, c):
    return min(a[0], b[0]) <= c[0] <= max(a[0], b[0]) and min(a[1], b[1]) <= c[1] <= max(a[1], b[1])


def _segments_cross(p, q, r, s):
    o1, o2, o3, o4 = _orient(p, q, r), _orient(p, q, s), _orient(r, s, p), _orient(r, s, q)
    if o1 != o2 and o3 != o4:
        return True
    return any(o == 0 and _on_segment(a, b, c)
               for o, a, b, c in ((o1, p, q, r), (o2, p, q, s), (o3, r, s, p), (o4, r, s, q)))


def segment_meets_reference(p, q, rect):
    """Endpoint inside, or crossing one of the four sides (exact orientation tests)."""
    x0, y0, x1, y1 = rect
    if any(x0 <= pt[0] <= x1 and y0 <= pt[1] <= y1 for pt in (p, q)):
        return True
    corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
    return any(_segments_cross(p, q, corners[i], corners[(i + 1) % 4]) for i in range(4))


coord = st.integers(-20, 20)


@settings(max_examples=400, deadline=None)
@given(st.tuples(coord, coord), st.tuples(coord, coord), coord, coord, st.integers(0, 15), st.integers(0, 15))
def test_segment_meets_matches_the_orientation_reference(p, q, x0, y0, w, h):
    rect = (x0, y0, x0 + w, y0 + h)
    assert _segment_meets(p, q, rect) == segment_meets_reference(p, q, rect)


def test_free_corner_by_hand():
    # area 100 x 50 (y from -50 to 0), box 20 x 10, gap 1
    assert _free_corner((20, 10), 100, 50, [], [], gap=1.0) == (80, -10)
    blocker = (85.0, -5.0, 90.0, 0.0)  # upper right taken: upper left
    assert _free_corner((20, 10), 100, 50, [blocker], [], gap=1.0) == (0.0, -10)
    # a rectangle just outside the grown box does not count; one inside the gap does
    assert _free_corner((20, 10), 100, 50, [(70.0, -5, 78.9, 0)], [], gap=1.0) == (80, -10)
    assert _free_corner((20, 10), 100, 50, [(70.0, -5, 79.5, 0)], [], gap=1.0) == (0.0, -10)
    # an edge across both upper corners: lower right
    line = [(-5.0, -3.0), (105.0, -3.0)]
    assert _free_corner((20, 10), 100, 50, [], [line], gap=1.0) == (80, -50)
    everywhere = [(0.0, -50.0, 100.0, 0.0)]
    assert _free_corner((20, 10), 100, 50, everywhere, [], gap=1.0) is None
    assert _free_corner((120, 10), 100, 50, [], [], gap=1.0) is None


# ------------------------------------------------------------------ rendered trees
def shape_tree(shape, *, long_name=False, n_decisions=2):
    """A fitted classifier of a nested shape (None = leaf, (left, right) = split) on
    x = 0, 1, 2, ... with three rows per leaf."""
    left, right, thr = [], [], []

    def count(s):
        return 1 if s is None else count(s[0]) + count(s[1])

    def build(s, first):
        node = len(left)
        left.append(-1)
        right.append(-1)
        thr.append(np.nan)
        if s is not None:
            n_left = count(s[0])
            thr[node] = 3 * (first + n_left) - 0.5
            left[node] = build(s[0], first)
            right[node] = build(s[1], first + n_left)
        return node

    build(shape, 0)
    n_leaves = count(shape)
    n = len(left)
    name = "a_long_input_name_that_wraps_over_lines" if long_name else "x"
    X = pd.DataFrame({name: np.arange(3.0 * n_leaves)})
    y = pd.Series(np.where(np.arange(3 * n_leaves) % 7 < 3, "yes", "no"), name="y")
    decisions = [f"decision number {k} with a long name" for k in range(n_decisions)]
    values = [[10.0 - k for k in range(n_decisions)], [-4.0 + k for k in range(n_decisions)]]
    values[0][-1] = values[1][-1] = 0.0
    m = DecisionMatrix(values, levels=["yes", "no"], decisions=decisions)
    splits = dict(children_left=left, children_right=right,
                  feature=[0 if k >= 0 else -1 for k in left], threshold=thr,
                  missing_left=[False] * n, is_categorical=[False] * n)
    return fixed(FixedTreeClassifier, splits, decision_matrix=m).fit(X, y)


def balanced(depth):
    return None if depth == 0 else (balanced(depth - 1), balanced(depth - 1))


def chain(n_leaves, side="right"):
    s = None
    for _ in range(n_leaves - 1):
        s = (None, s) if side == "right" else (s, None)
    return s


def zigzag(n_leaves):
    s = None
    for k in range(n_leaves - 1):
        s = (None, s) if k % 2 else (s, None)
    return s


@pytest.fixture(scope="module")
def bank_trees():
    train = load_bank_marketing(split="train")
    out = {}
    for k in (4, 12, 30):
        est = ProfitTreeClassifier(decision_matrix=train.decision_matrix, max_leaf_nodes=k,
                                   max_depth=10, min_samples_leaf=20, random_state=0)
        out[k] = est.fit(train.data, train.target, costs=train.costs)
    return out


def random_tree(kind, max_depth, seed):
    rng = np.random.default_rng(seed)
    X = make_inputs(2000, rng)
    if kind == "regressor":
        y = pd.Series(rng.normal(100.0, 10.0, len(X)), name="amount")
        return RandomTreeRegressor(max_depth=max_depth, random_state=seed).fit(X, y)
    y = class_target(X, rng)
    m = DecisionMatrix([[5.0, 1.0, 0.0], [1.0, 0.5, 0.0], [-1.0, -0.2, 0.0]],
                       levels=["yes", "maybe", "no"], decisions=["act", "nudge", "wait"])
    return RandomTreeClassifier(decision_matrix=m, max_depth=max_depth, random_state=seed).fit(X, y)


def extents(ax, tree):
    """Node boxes, edge labels (display pixels), the legend frame (or None) and the lines."""
    ax.figure.canvas.draw()
    n_edges = 2 * int((tree.children_left >= 0).sum())
    labels = [t.get_bbox_patch().get_window_extent() for t in ax.texts[:n_edges]]
    boxes = [t.get_bbox_patch().get_window_extent() for t in ax.texts[n_edges:]]
    legend = ax.get_legend()
    frame = legend.get_frame().get_window_extent() if legend is not None else None
    lines = [ax.transData.transform(line.get_xydata()) for line in ax.lines]
    return boxes, labels, frame, lines


def overlap(a, b, tol=0.01):
    """Whether two display boxes share an area (touching within tol pixels does not count)."""
    return a.x0 < b.x1 - tol and b.x0 < a.x1 - tol and a.y0 < b.y1 - tol and b.y0 < a.y1 - tol


def inside(inner, outer, tol=0.01):
    return (inner.x0 >= outer.x0 - tol and inner.x1 <= outer.x1 + tol
            and inner.y0 >= outer.y0 - tol and inner.y1 <= outer.y1 + tol)


def assert_clean(ax, est):
    """No two boxes, labels or the legend overlap; edges cross no box; all inside."""
    tree = est.tree_
    boxes, labels, frame, lines = extents(ax, tree)
    assert len(boxes) == tree.n_nodes
    things = boxes + labels + ([frame] if frame is not None else [])
    for i, a in enumerate(things):
        assert inside(a, ax.figure.bbox), f"artist {i} leaves the figure"
        assert inside(a, ax.bbox), f"artist {i} leaves the axes"
        for j in range(i):
            assert not overlap(a, things[j]), f"artists {j} and {i} overlap"
    edges = [(p, c) for p in range(tree.n_nodes) if tree.children_left[p] >= 0
             for c in (tree.children_left[p], tree.children_right[p])]
    assert len(lines) == len(edges)
    for (parent, child), line in zip(edges, lines):
        for node, b in enumerate(boxes):
            if node in (parent, child):
                continue
            rect = (b.x0 + 0.01, b.y0 + 0.01, b.x1 - 0.01, b.y1 - 0.01)
            assert not any(_segment_meets(p, q, rect) for p, q in zip(line, line[1:])), (
                f"edge {parent}->{child} crosses box {node}")
        if frame is not None:
            rect = (frame.x0, frame.y0, frame.x1, frame.y1)
            assert not any(_segment_meets(p, q, rect) for p, q in zip(line, line[1:]))
    return boxes


@pytest.mark.parametrize("k", [4, 12, 30])
def test_grown_bank_trees(bank_trees, k):
    est = bank_trees[k]
    assert est.tree_.n_leaves == k
    ax = plot_tree(est)
    assert_clean(ax, est)
    assert min(t.get_fontsize() for t in ax.texts[2 * (k - 1):]) >= 6.0
    plt.close("all")


SHAPES = {
    "balanced_4": (balanced(2), {}),
    "chain_12_right": (chain(12), {}),
    "zigzag_12_long_names": (zigzag(12), dict(long_name=True)),
    "balanced_16_beside_a_chain_of_14": ((balanced(4), chain(14, "left")), {}),
    "balanced_32_many_decisions": (balanced(5), dict(n_decisions=8)),
    "single_split_big_legend": ((None, None), dict(n_decisions=8)),
}


@pytest.mark.parametrize("name", list(SHAPES))
def test_hand_made_shapes(name):
    shape, kw = SHAPES[name]
    est = shape_tree(shape, **kw)
    ax = plot_tree(est)
    boxes = assert_clean(ax, est)
    # parents are centred over their children
    tree = est.tree_
    for node in np.flatnonzero(tree.children_left >= 0):
        lft, rgt = tree.children_left[node], tree.children_right[node]
        centre = lambda b: (b.x0 + b.x1) / 2  # noqa: E731
        assert centre(boxes[node]) == pytest.approx((centre(boxes[lft]) + centre(boxes[rgt])) / 2, abs=0.5)
    # boxes of a row share their top edge
    for d in range(int(tree.depth.max()) + 1):
        tops = [boxes[k].y1 for k in np.flatnonzero(tree.depth == d)]
        assert max(tops) - min(tops) < 0.01
    plt.close("all")


@pytest.mark.parametrize("kind, max_depth, seed", [("classifier", 3, 1), ("classifier", 6, 2),
                                                    ("regressor", 5, 3)])
def test_random_structures(kind, max_depth, seed):
    est = random_tree(kind, max_depth, seed)
    ax = plot_tree(est)
    assert_clean(ax, est)
    assert (ax.get_legend() is None) == (kind == "regressor")
    plt.close("all")


def test_layout_holds_at_another_dpi(bank_trees):
    est = bank_trees[30]
    ax = plot_tree(est)
    ax.figure.set_dpi(150)
    assert_clean(ax, est)
    plt.close("all")


def test_given_axes_shrink_the_font_to_fit(bank_trees):
    est = bank_trees[12]
    fig, (ax, other) = plt.subplots(1, 2, figsize=(24, 8))
    other.plot([0, 1], [0, 1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # fits at a readable size: no warning
        plot_tree(est, ax=ax)
    assert_clean(ax, est)
    size = ax.texts[-1].get_fontsize()
    assert 4.0 <= size < float(np.clip(11.0 - 0.12 * 12, 6.0, 9.0))
    plt.close("all")


@pytest.mark.parametrize("layout", ["constrained", "tight"])
def test_layout_engines_leave_the_tree_alone(bank_trees, layout):
    est = bank_trees[4]
    fig, (ax, other) = plt.subplots(1, 2, figsize=(14, 6), layout=layout)
    other.plot([0, 1], [0, 1])
    other.set_title("a neighbour")
    plot_tree(est, ax=ax)
    ax.set_title("the tree")
    fig.canvas.draw()  # the engine lays the figure out again
    assert_clean(ax, est)
    plt.close("all")


def test_too_small_axes_warn(bank_trees):
    est = bank_trees[30]
    _, ax = plt.subplots(figsize=(8, 6))
    with pytest.warns(UserWarning, match="fit this axes only at fontsize") as record:
        plot_tree(est, ax=ax)
    assert len(record) == 1
    assert 2.0 <= ax.texts[-1].get_fontsize() < 4.0
    assert_clean(ax, est)  # tiny, but still apart
    # explicit sizes are kept, and so is the 2-point floor of automatic ones: squeezed
    for fontsize, figsize in ((9, (8, 6)), (None, (4, 3))):
        _, ax = plt.subplots(figsize=figsize)
        with pytest.warns(UserWarning, match="squeezed and overlap"):
            plot_tree(est, ax=ax, fontsize=fontsize)
        assert all(t.get_fontsize() == (fontsize or 2.0) for t in ax.texts[2 * 29:])
        boxes, _, frame, _ = extents(ax, est.tree_)
        assert all(inside(b, ax.bbox) for b in boxes + [frame])
    plt.close("all")


def test_explicit_fontsize_sizes_the_figure():
    est = shape_tree(balanced(3))
    small = plot_tree(est, fontsize=5).figure.get_size_inches()
    large = plot_tree(est, fontsize=10).figure.get_size_inches()
    assert large[0] > 1.6 * small[0] and large[1] > 1.6 * small[1]
    plt.close("all")


@pytest.mark.parametrize("bad, error", [(0, ValueError), (-3.0, ValueError), (np.nan, ValueError),
                                        ("large", TypeError), (True, TypeError)])
def test_bad_fontsize(bad, error):
    est = shape_tree((None, None))
    with pytest.raises(error, match="fontsize"):
        plot_tree(est, fontsize=bad)
