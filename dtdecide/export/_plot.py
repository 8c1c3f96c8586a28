"""Pictures of a fitted tree: matplotlib plot, Graphviz DOT, variable importance.

matplotlib is imported inside the plotting functions only.
"""

import warnings

import numpy as np
import pandas as pd

from ..tree import DECISION_PALETTE
from ._caserule import is_case_rule
from ._common import format_number, tree_view

__all__ = ["export_graphviz", "plot_tree", "plot_variable_importance", "variable_importance"]

# One colour per decision, shared with the HTML view (Okabe-Ito, colour-blind friendly).
_PALETTE = DECISION_PALETTE


def _fragile_leaves(view, threshold):
    """{leaf: confidence} of the leaves whose bootstrap confidence is below threshold."""
    if threshold is None:
        return {}
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float, np.number)) or not (
        0.0 < float(threshold) <= 1.0
    ):
        raise ValueError(f"confidence_below must be a share in (0, 1] or None; got {threshold!r}")
    boot = getattr(view.estimator, "_leaf_confidence", None)
    if not view.has_decisions or boot is None or len(view.decisions) < 2:
        return {}
    conf = boot(view.leaves)
    return {int(leaf): float(c) for leaf, c in zip(view.leaves, conf) if c < threshold}


def _decision_colour(view, node):
    if not view.has_decisions:
        return None
    return _PALETTE[int(view.node_decision[node]) % len(_PALETTE)]


def _node_lines(view, node, digits, max_classes=4, wrap=24):
    """Short text lines of a node box: id, counts, posteriors or mean, decision, split."""
    tree = view.tree
    is_leaf = tree.children_left[node] < 0
    lines = [f"{'leaf' if is_leaf else 'node'} {int(node)}"]
    lines.append(
        f"n={int(tree.n_node_samples[node])} "
        f"w={format_number(tree.weighted_n_node_samples[node], max(digits, 6))}"
    )
    if view.is_classifier:
        post = view.posteriors[node]
        order = list(range(len(view.classes)))
        if len(order) > max_classes:
            order = sorted(order, key=lambda k: -np.nan_to_num(post[k]))[:max_classes]
        pairs = [f"{view.classes[k]} {format_number(post[k], digits)}" for k in order]
        # two posteriors per line keeps boxes narrow
        lines.extend("  ".join(pairs[i : i + 2]) for i in range(0, len(pairs), 2))
    else:
        lines.append(f"mean {format_number(view.mean[node], digits)}")
        lines.append(f"sd {format_number(view.sd[node], digits)}")
    if view.has_decisions:
        d = int(view.node_decision[node])
        if is_case_rule(view):
            # each case decides with its own costs; shown: the decision at mean costs
            lines.append("per case; at mean costs:")
        lines.append(
            f"{view.decisions[d]}{'*' if int(node) in view.overrides else ''}: "
            f"{view.ep_name} {format_number(view.node_expected[node, d], digits)}"
        )
        if int(node) in view.overrides:
            lines.append(
                f"*override, {'adds' if view.sign < 0 else 'gives up'} "
                f"{format_number(view.given_up(node), digits)}"
            )
    if not is_leaf:
        lines.extend(_wrap_split(view.split_text(node, digits), wrap))
    return lines


def _wrap_split(text, width):
    """Lines of a split's text, broken only after the commas between category labels:
    never inside a label ("blue-collar", "self employed") or a number."""
    if " in {" not in text:
        return [text]
    head, labels = text.split(" in {", 1)
    tokens = [head + " in {" + labels.split(", ")[0]] + [
        t for t in labels.split(", ")[1:]
    ]
    tokens = [t + "," for t in tokens[:-1]] + tokens[-1:]
    lines = []
    for token in tokens:
        if lines and len(lines[-1]) + 1 + len(token) <= width:
            lines[-1] += " " + token
        else:
            lines.append(token)
    return lines or [""]


# Spacing of plot_tree, in multiples of the box font size (points).
_BOX_STYLE = "round,pad=0.35"
_LABEL_STYLE = "round,pad=0.15"
_LABEL_SCALE = 0.85  # edge labels use this fraction of the box font size
_H_GAP = 1.0  # least horizontal space between two boxes of a row
_V_GAP = 2.4  # height of the band between two rows, where the edge labels sit
_LABEL_GAP = 0.5  # least horizontal space between two edge labels
_MARGIN = 0.5  # free border around the drawing
_TITLE_ROOM = 0.45  # inches above the axes of a new figure, kept for a title
_SMALL_FONT = 4.0  # below this (points) the boxes are hard to read: warn
_MIN_FONT = 2.0  # the automatic font size stops here (text stops shrinking evenly)


def _preorder(children_left, children_right):
    """Node ids, every parent before its children (left subtree before right)."""
    order, stack = [], [0]
    while stack:
        node = stack.pop()
        order.append(node)
        if children_left[node] >= 0:
            stack.append(int(children_right[node]))
            stack.append(int(children_left[node]))
    return order


def _edge_labels(tree):
    """``(node, child, label)`` of every edge: "yes" to the left child (the split's
    condition holds), "no" to the right one, " +NA" on the side missing values take."""
    for node in range(tree.n_nodes):
        left = int(tree.children_left[node])
        if left < 0:
            continue
        right = int(tree.children_right[node])
        miss_left = bool(tree.missing_left[node])
        yield node, left, "yes +NA" if miss_left else "yes"
        yield node, right, "no" if miss_left else "no +NA"


def _tidy_x(children_left, children_right, lo, hi, *, gap, label_lo=None, label_hi=None, label_gap=0.0):
    """Horizontal position of every node: leaves in order, parents centred over their children.

    ``lo[i] <= 0 <= hi[i]`` are the left and right edges of box ``i`` relative to its
    position. Bottom-up, the two subtrees of a node are put as close as they can be while,
    on every depth both reach, the right edge of the left subtree stays ``gap`` left of
    the left edge of the right subtree (boxes of one depth share a row, so other depths
    never meet). When ``label_lo``/``label_hi`` are given (extents of the label on the
    edge into each node, drawn halfway between parent and child, that is at the parent's
    position -/+ a quarter of the children's separation), the two children's labels
    stay ``label_gap`` apart too. Returns the positions, leftmost box edge at 0.
    """
    order = _preorder(children_left, children_right)
    n = len(children_left)
    offset = np.zeros(n)  # position relative to the parent
    left_c = [None] * n  # per depth below the node: leftmost box edge, relative to the node
    right_c = [None] * n
    for node in reversed(order):
        lft = int(children_left[node])
        if lft < 0:
            left_c[node], right_c[node] = [float(lo[node])], [float(hi[node])]
            continue
        rgt = int(children_right[node])
        sep = 0.0
        if label_lo is not None:
            sep = 2.0 * (label_hi[lft] - label_lo[rgt] + label_gap)
        for a, b in zip(right_c[lft], left_c[rgt]):
            sep = max(sep, a - b + gap)
        half = sep / 2.0
        offset[lft], offset[rgt] = -half, half
        ll, lr, rl, rr = left_c[lft], right_c[lft], left_c[rgt], right_c[rgt]
        deeper = max(len(ll), len(rl))
        left_c[node] = [float(lo[node])] + [
            min(ll[i] - half if i < len(ll) else np.inf, rl[i] + half if i < len(rl) else np.inf)
            for i in range(deeper)
        ]
        right_c[node] = [float(hi[node])] + [
            max(lr[i] - half if i < len(lr) else -np.inf, rr[i] + half if i < len(rr) else -np.inf)
            for i in range(deeper)
        ]
        left_c[lft] = right_c[lft] = left_c[rgt] = right_c[rgt] = None
    x = np.zeros(n)
    for node in order:
        lft = int(children_left[node])
        if lft >= 0:
            rgt = int(children_right[node])
            x[lft] = x[node] + offset[lft]
            x[rgt] = x[node] + offset[rgt]
    return x - min(left_c[0])


def _segment_meets(p, q, rect):
    """Whether the segment p-q meets the rectangle (x0, y0, x1, y1) (Liang-Barsky clip)."""
    x0, y0, x1, y1 = rect
    t0, t1 = 0.0, 1.0
    dx, dy = q[0] - p[0], q[1] - p[1]
    for num, den in ((p[0] - x0, -dx), (x1 - p[0], dx), (p[1] - y0, -dy), (y1 - p[1], dy)):
        if den == 0:
            if num < 0:
                return False
            continue
        t = num / den  # den * t <= num
        if den < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return False
    return True


def _free_corner(size, width, height, rects, segments, gap):
    """Lower-left corner of a ``size`` box in a corner of [0, width] x [-height, 0].

    Tries the upper right, upper left, lower right and lower left corners and returns
    the first where the box, grown by ``gap``, meets none of ``rects`` (x0, y0, x1, y1)
    and none of the polylines ``segments``; None when no corner is free.
    """
    w, h = size
    if w > width or h > height:
        return None
    for x0, y0 in ((width - w, -h), (0.0, -h), (width - w, -height), (0.0, -height)):
        box = (x0 - gap, y0 - gap, x0 + w + gap, y0 + h + gap)
        if any(r[0] < box[2] and box[0] < r[2] and r[1] < box[3] and box[1] < r[3] for r in rects):
            continue
        if any(_segment_meets(p, q, box) for line in segments for p, q in zip(line, line[1:])):
            continue
        return x0, y0
    return None


def _patch_extents(fig, ax, texts):
    """(left, right, bottom, top) of each text's box, in points from its anchor."""
    fig.draw_without_rendering()
    k = 72.0 / fig.dpi
    out = np.zeros((len(texts), 4))
    for i, t in enumerate(texts):
        ax_x, ax_y = ax.transData.transform(t.get_position())
        b = t.get_bbox_patch().get_window_extent()
        out[i] = ((b.x0 - ax_x) * k, (b.x1 - ax_x) * k, (b.y0 - ax_y) * k, (b.y1 - ax_y) * k)
    return out


def _measure(fig, ax, boxes, edges, legend):
    """Box extents (nodes then edge labels) and the legend's size, in points."""
    ext = _patch_extents(fig, ax, boxes + [t for _, _, t in edges])
    legend_size = None
    if legend is not None:
        b = legend.get_window_extent()  # laid out by the draw in _patch_extents
        legend_size = (b.width * 72.0 / fig.dpi, b.height * 72.0 / fig.dpi)
    return ext, legend_size


def _geometry(tree, depth, edges, ext, legend_size, fontsize, sx=1.0, sy=1.0):
    """Positions, in points (root row top at 0, y up), of everything plot_tree draws.

    ``ext`` holds the measured boxes (nodes, then edge labels). ``sx``/``sy`` below 1
    squeeze the distances between boxes (not the boxes), for an axes too small.
    """
    n = tree.n_nodes
    left = np.asarray(tree.children_left)
    right = np.asarray(tree.children_right)
    box, lab = ext[:n], ext[n:]
    label_lo = np.zeros(n)
    label_hi = np.zeros(n)
    for (_, child, _), e in zip(edges, lab):
        label_lo[child], label_hi[child] = e[0], e[1]
    label_gap = _LABEL_GAP * fontsize
    # labels of edges into neighbouring parents' children stay apart when boxes are at
    # least as wide as labels; otherwise widen the gap by the difference
    half_box = float(np.min(np.minimum(-box[:, 0], box[:, 1])))
    half_label = float(np.max(np.maximum(-lab[:, 0], lab[:, 1]))) if len(lab) else 0.0
    gap = max(_H_GAP * fontsize, 2.0 * (half_label - half_box) + label_gap)
    x = sx * _tidy_x(left, right, box[:, 0], box[:, 1], gap=gap, label_lo=label_lo,
                     label_hi=label_hi, label_gap=label_gap)
    x -= np.min(x + box[:, 0])
    n_rows = int(depth.max()) + 1
    row_height = np.zeros(n_rows)
    np.maximum.at(row_height, depth, box[:, 3] - box[:, 2])
    label_height = float((lab[:, 3] - lab[:, 2]).max()) if len(lab) else 0.0
    v_gap = max(_V_GAP * fontsize, label_height + fontsize)
    row_top = -np.concatenate([[0.0], np.cumsum(row_height + v_gap)[:-1]])
    row_top = sy * row_top
    row_bottom = row_top - row_height
    y = row_top[depth] - box[:, 3]  # boxes of a row share their top edge
    rects = np.column_stack([x + box[:, 0], y + box[:, 2], x + box[:, 1], y + box[:, 3]])
    lines, label_xy, label_rects = [], [], []
    for (parent, child, _), e in zip(edges, lab):
        d = depth[parent]
        stem = (x[parent], y[parent] + box[parent, 2])
        fork = (x[parent], row_bottom[d])
        end = (x[child], row_top[d + 1])
        lines.append([stem, fork, end])
        cx, cy = (fork[0] + end[0]) / 2.0, (fork[1] + end[1]) / 2.0
        ax_x, ax_y = cx - (e[0] + e[1]) / 2.0, cy - (e[2] + e[3]) / 2.0  # centred on the edge
        label_xy.append((ax_x, ax_y))
        label_rects.append((ax_x + e[0], ax_y + e[2], ax_x + e[1], ax_y + e[3]))
    all_rects = np.vstack([rects, np.reshape(label_rects, (-1, 4))])
    width = float(all_rects[:, 2].max())
    height = float(-all_rects[:, 1].min())
    legend_corner = None
    if legend_size is not None:
        lw, lh = legend_size
        legend_corner = _free_corner(legend_size, width, height, list(all_rects), lines,
                                     gap=_H_GAP * fontsize)
        if legend_corner is None:  # a band below the tree
            legend_corner = (0.0, -height - _H_GAP * fontsize - lh)
            width = max(width, lw)
            height += _H_GAP * fontsize + lh
        legend_corner = (legend_corner[0], legend_corner[1] + lh)  # upper left
    return dict(x=x, y=y, label_xy=label_xy, lines=lines, legend=legend_corner,
                width=width, height=height, margin=_MARGIN * fontsize)


def _squeeze(fits, lo=0.0):
    """Largest factor in [lo, 1] for which ``fits`` holds (bisection), ``lo`` if none."""
    if fits(1.0):
        return 1.0
    hi = 1.0
    for _ in range(30):
        mid = (lo + hi) / 2.0
        if fits(mid):
            lo = mid
        else:
            hi = mid
    return lo


def plot_tree(estimator, *, ax=None, digits=3, fontsize=None, max_classes=4,
              confidence_below=None):
    """Draw a fitted tree with matplotlib.

    Every box shows the node id, its training rows and weight, the posteriors (at most
    ``max_classes``, the largest ones) or the mean and standard deviation, and the
    decision with its expected profit; split nodes add their condition, whose branch
    is labelled ``yes``/``no`` and ``+NA`` on the side that receives missing values (and
    categories unseen in training). Leaves are filled with the colour of their decision.

    The boxes are measured once drawn, and placed so that none overlap: each depth is
    a row, leaves keep their left-to-right order, every parent is centred over its two
    children, and two neighbouring subtrees are pushed apart just enough for their boxes
    (and edge labels) to stay clear of each other on every row. The legend goes into a
    free corner, or below the tree when no corner is free. With ``ax=None`` the figure
    is sized for the tree at ``fontsize``; with a given ``ax`` and ``fontsize=None`` the
    font shrinks until the tree fits the axes. Readable for trees of up to about 30
    leaves; larger trees make wide figures.

    Parameters
    ----------
    estimator : ProfitTreeClassifier or ProfitTreeRegressor
        A fitted tree.
    ax : matplotlib Axes, default=None
        Where to draw; None creates a figure sized for the tree. The layout is made
        for the size ``ax`` has when ``plot_tree`` is called.
    digits : int, default=3
        Significant digits of the numbers shown.
    fontsize : float or None, default=None
        Text size in points; None takes ``11 - 0.12 * n_leaves`` within [6, 9], made
        smaller when needed to fit a given ``ax`` (down to 2 points, with a
        ``UserWarning`` below 4). An explicit size is kept. If the tree does not fit
        the given ``ax`` at the size used, a ``UserWarning`` says so and the boxes are
        squeezed together.
    max_classes : int, default=4
        Largest number of posteriors shown per box.
    confidence_below : float or None, default=None
        Mark fragile leaves: a leaf whose bootstrap ``confidence`` (see
        :func:`~dtdecide.export.leaf_table`, 200 resamples, seed 0) is below this share
        is drawn in a pale version of its decision's colour with a dashed border and its
        confidence as a last line. None marks nothing.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on. Its texts are the edge labels (two per split node, left
        child first, in node order) followed by one box per node, in node order.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pandas as pd
    >>> from dtdecide import DecisionMatrix, ProfitTreeClassifier
    >>> from dtdecide.export import plot_tree
    >>> X = pd.DataFrame({"age": [20.0, 30.0, 40.0, 50.0]})
    >>> m = DecisionMatrix({"ignore": [0, 0], "mail": [-1, 9]}, levels=["no", "yes"])
    >>> tree = ProfitTreeClassifier(decision_matrix=m, min_samples_leaf=1, min_samples_split=2)
    >>> tree = tree.fit(X, ["no", "no", "yes", "yes"])
    >>> ax = plot_tree(tree)
    >>> len(ax.texts) >= tree.tree_.n_nodes
    True
    >>> [t.get_text().splitlines()[0] for t in ax.texts[2:]]
    ['node 0', 'leaf 1', 'leaf 2']
    """
    view = tree_view(estimator)
    _check_plot_options(digits, max_classes, fontsize)
    tree = view.tree
    depth = np.asarray(tree.depth, dtype=np.intp)
    n_leaves = int(view.is_leaf.sum())
    auto_font = fontsize is None
    size = float(np.clip(11.0 - 0.12 * n_leaves, 6.0, 9.0)) if auto_font else float(fontsize)
    new_figure = ax is None
    ax = _blank_axes(ax)
    fig = ax.figure
    edges = _draw_edge_labels(ax, tree)
    boxes = _draw_boxes(ax, view, digits, max_classes, confidence_below)
    handles = _legend_handles(view)
    size, legend, ext, legend_size, geo = _fit_font(
        fig, ax, tree, depth, boxes, edges, handles, size, new_figure, auto_font)
    m = geo["margin"]
    need_w, need_h = geo["width"] + 2 * m, geo["height"] + 2 * m
    if auto_font and size < _SMALL_FONT:
        warnings.warn(
            f"plot_tree: {n_leaves} leaves fit this axes only at fontsize {size:.2g}; "
            "pass a larger ax, or ax=None for a figure sized for the tree",
            UserWarning, stacklevel=2,
        )

    k = 72.0 / fig.dpi
    bbox = ax.get_window_extent()
    avail_w, avail_h = bbox.width * k, bbox.height * k
    if need_w > avail_w + 1e-6 or need_h > avail_h + 1e-6:
        # too small at this font size: squeeze the distances between boxes until it fits
        geo = _squeezed_geometry(tree, depth, edges, ext, legend_size, size, m, avail_w,
                                 avail_h)
        warnings.warn(
            f"plot_tree: at fontsize {size:g} the tree needs {need_w / 72:.1f} x "
            f"{need_h / 72:.1f} inches but ax is {avail_w / 72:.1f} x {avail_h / 72:.1f}; "
            "boxes are squeezed and overlap. Pass fontsize=None, a larger ax, or ax=None",
            UserWarning, stacklevel=2,
        )
    _place(ax, boxes, edges, legend, geo, m, avail_w, avail_h)
    return ax


def _check_plot_options(digits, max_classes, fontsize):
    """Check the display options of :func:`plot_tree`: ``digits`` and ``max_classes``
    positive ints, ``fontsize`` None or a positive finite number of points (a bool is
    refused)."""
    if not isinstance(digits, (int, np.integer)) or digits < 1:
        raise ValueError(f"digits must be a positive int; got {digits!r}")
    if not isinstance(max_classes, (int, np.integer)) or max_classes < 1:
        raise ValueError(f"max_classes must be a positive int; got {max_classes!r}")
    if fontsize is not None:
        if isinstance(fontsize, bool) or not isinstance(fontsize, (int, float, np.integer, np.floating)):
            raise TypeError(f"fontsize must be a number of points or None; got {fontsize!r}")
        if not (np.isfinite(fontsize) and fontsize > 0):
            raise ValueError(f"fontsize must be a positive finite number of points; got {fontsize!r}")


def _blank_axes(ax):
    """The axes to draw on, cleared of its frame: a new 6 x 4 inch figure filled by one
    axes when ``ax`` is None. The limits are set to the unit square, where the boxes
    are measured; they are placed at the end."""
    import matplotlib.pyplot as plt

    if ax is None:
        fig = plt.figure(figsize=(6.0, 4.0))
        ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.set_axis_off()
    ax.set_aspect("auto")
    ax.set_xlim(0.0, 1.0)  # where the boxes are measured; placed at the end
    ax.set_ylim(0.0, 1.0)
    return ax


def _draw_edge_labels(ax, tree):
    """Draw the label of every edge (``yes``/``no``, ``+NA``), not yet placed. Returns
    ``[(parent, child, text)]``, two per split node, left child first, in node order; the
    texts are left out of the layout engines."""
    edges = []
    for node, child, label in _edge_labels(tree):
        text = ax.text(0.5, 0.5, label, ha="center", va="center", color="0.3", zorder=2,
                       bbox=dict(boxstyle=_LABEL_STYLE, fc="white", ec="none"))
        text.set_in_layout(False)  # placed inside ax below: layout engines ignore it
        edges.append((node, child, text))
    return edges


def _draw_boxes(ax, view, digits, max_classes, confidence_below):
    """Draw one box per node, in node order, not yet placed: its lines of text, a leaf
    filled with its decision's colour, and a fragile leaf (bootstrap confidence below
    ``confidence_below``) pale, dashed and with its confidence as a last line. Returns
    the texts, left out of the layout engines."""
    tree = view.tree
    fragile = _fragile_leaves(view, confidence_below)
    boxes = []
    for node in range(tree.n_nodes):
        colour = _decision_colour(view, node) if tree.children_left[node] < 0 else None
        lines = _node_lines(view, node, digits, max_classes)
        style = {}
        if node in fragile:
            from matplotlib.colors import to_rgb

            colour = tuple(0.35 * c + 0.65 for c in to_rgb(colour)) if colour else None
            lines = [*lines, f"confidence {fragile[node]:.2f}"]
            style = dict(linestyle="--")
        boxes.append(ax.text(
            0.5, 0.5, "\n".join(lines),
            ha="center", va="center", zorder=3,
            bbox=dict(boxstyle=_BOX_STYLE, fc=colour if colour is not None else "white",
                      ec="0.3", alpha=0.9, **style),
        ))
    for t in boxes:
        t.set_in_layout(False)
    return boxes


def _legend_handles(view):
    """The legend's patches, one per decision in its palette colour; None for a tree
    without decisions."""
    from matplotlib.patches import Patch

    if not view.has_decisions:
        return None
    return [
        Patch(facecolor=_PALETTE[k % len(_PALETTE)], edgecolor="0.3", label=d)
        for k, d in enumerate(view.decisions)
    ]


def _fit_font(fig, ax, tree, depth, boxes, edges, handles, size, new_figure, auto_font):
    """Set the font size, measure the boxes and lay the tree out; size a new figure.

    Up to 8 rounds: the texts and the legend are set at ``size``, measured and laid out
    (:func:`_geometry`). A new figure is sized for the layout at once. On a given axes,
    an automatic font shrinks (down to ``_MIN_FONT``) until the layout fits. Returns
    ``(size, legend, ext, legend_size, geo)``: the size used, the legend (None without
    handles), the measured extents, the legend's size and the layout.
    """
    k = 72.0 / fig.dpi
    legend = None
    for attempt in range(8):
        for t in boxes:
            t.set_fontsize(size)
        for _, _, t in edges:
            t.set_fontsize(size * _LABEL_SCALE)
        if handles is not None:
            if legend is not None:
                legend.remove()
            legend = ax.legend(handles=handles, title="decision", loc="upper left",
                               bbox_to_anchor=(0.0, 1.0), borderaxespad=0.0,
                               fontsize=size, title_fontsize=size)
            legend.set_in_layout(False)
        ext, legend_size = _measure(fig, ax, boxes, edges, legend)
        geo = _geometry(tree, depth, edges, ext, legend_size, size)
        m = geo["margin"]
        need_w, need_h = geo["width"] + 2 * m, geo["height"] + 2 * m
        if new_figure:
            fig_h = need_h / 72.0 + _TITLE_ROOM
            fig.set_size_inches(max(need_w / 72.0, 3.0), fig_h)
            ax.set_position((0.0, 0.0, 1.0, need_h / 72.0 / fig_h))
            break
        bbox = ax.get_window_extent()
        avail_w, avail_h = bbox.width * k, bbox.height * k
        # 1e-6 pt of slack for the rounding of figure sizes
        fits = need_w <= avail_w + 1e-6 and need_h <= avail_h + 1e-6
        if fits or not auto_font or attempt == 7 or size <= _MIN_FONT:
            break
        size = max(size * min(avail_w / need_w, avail_h / need_h) * 0.98, _MIN_FONT)
    return size, legend, ext, legend_size, geo


def _squeezed_geometry(tree, depth, edges, ext, legend_size, size, m, avail_w, avail_h):
    """The layout with the distances between boxes squeezed to fit ``avail_w`` x
    ``avail_h`` points: first the largest horizontal factor that fits, then, with it,
    the largest vertical one (:func:`_squeeze`); the boxes keep their size."""
    def fits_x(s):
        return _geometry(tree, depth, edges, ext, legend_size, size, s, 1.0)["width"] + 2 * m <= avail_w

    sx = _squeeze(fits_x)

    def fits_y(s):
        return _geometry(tree, depth, edges, ext, legend_size, size, sx, s)["height"] + 2 * m <= avail_h

    sy = _squeeze(fits_y)
    return _geometry(tree, depth, edges, ext, legend_size, size, sx, sy)


def _place(ax, boxes, edges, legend, geo, m, avail_w, avail_h):
    """Put the boxes, edge labels, edges and legend where the layout says, and set the
    limits so that the tree is centred and its top row at the top of the axes."""
    for t, xy in zip(boxes, zip(geo["x"], geo["y"])):
        t.set_position(xy)
    for (_, _, t), xy in zip(edges, geo["label_xy"]):
        t.set_position(xy)
    for line in geo["lines"]:
        xs, ys = zip(*line)
        ax.plot(xs, ys, color="0.55", lw=1, zorder=1)
    if legend is not None:
        legend.set_bbox_to_anchor(geo["legend"], transform=ax.transData)
    x_left = (geo["width"] - avail_w) / 2.0  # centred; the top row at the top
    ax.set_xlim(x_left, x_left + avail_w)
    ax.set_ylim(m - avail_h, m)


def _dot_escape(text):
    r"""``text`` inside a DOT quoted string: backslashes and quotes escaped, and a line
    break in a name (``\r\n``, ``\r`` or ``\n``) written as DOT's ``\n`` escape (a raw
    one split the node's statement over lines of the file).

    >>> print(_dot_escape('say "hi"\\\nnow'))
    say \"hi\"\\\nnow
    """
    text = text.replace("\\", "\\\\").replace('"', '\\"')
    return text.replace("\r\n", "\\n").replace("\r", "\\n").replace("\n", "\\n")


def export_graphviz(estimator, *, digits=3, max_classes=4, rankdir="TB"):
    """Graphviz DOT text of a fitted tree.

    Node labels carry the same lines as :func:`plot_tree`; leaves are filled with the
    colour of their decision; edges are labelled ``yes``/``no`` with ``+NA`` on the side
    that receives missing values and unseen categories. Render it with
    ``dot -Tpng tree.dot -o tree.png`` or the ``graphviz`` Python package.

    Parameters
    ----------
    estimator : ProfitTreeClassifier or ProfitTreeRegressor
        A fitted tree.
    digits : int, default=3
        Significant digits of the numbers shown.
    max_classes : int, default=4
        Largest number of posteriors shown per node.
    rankdir : {"TB", "LR"}, default="TB"
        Top-to-bottom or left-to-right layout.

    Returns
    -------
    str
        The tree in the Graphviz DOT language.

    Examples
    --------
    >>> import pandas as pd
    >>> from dtdecide import DecisionMatrix, ProfitTreeClassifier
    >>> from dtdecide.export import export_graphviz
    >>> X = pd.DataFrame({"age": [20.0, 30.0, 40.0, 50.0]})
    >>> m = DecisionMatrix({"ignore": [0, 0], "mail": [-1, 9]}, levels=["no", "yes"])
    >>> tree = ProfitTreeClassifier(decision_matrix=m, min_samples_leaf=1, min_samples_split=2)
    >>> tree = tree.fit(X, ["no", "no", "yes", "yes"])
    >>> print(export_graphviz(tree).splitlines()[0])
    digraph Tree {
    """
    view = tree_view(estimator)
    if rankdir not in ("TB", "LR"):
        raise ValueError(f"rankdir must be 'TB' or 'LR'; got {rankdir!r}")
    if not isinstance(digits, (int, np.integer)) or digits < 1:
        raise ValueError(f"digits must be a positive int; got {digits!r}")
    tree = view.tree
    out = [
        "digraph Tree {",
        f"  rankdir={rankdir};",
        '  node [shape=box, style="rounded,filled", fillcolor="white", fontname="helvetica"];',
        '  edge [fontname="helvetica"];',
    ]
    for node in range(tree.n_nodes):
        label = "\\n".join(_dot_escape(s) for s in _node_lines(view, node, digits, max_classes))
        colour = _decision_colour(view, node) if tree.children_left[node] < 0 else None
        fill = f', fillcolor="{colour}"' if colour else ""
        out.append(f'  {node} [label="{label}"{fill}];')
    for node, child, label in _edge_labels(tree):
        out.append(f'  {node} -> {child} [label="{label}"];')
    out.append("}")
    return "\n".join(out) + "\n"


def _node_profit(view):
    """Training profit (profit orientation) of every node under its own decision."""
    tree = view.tree
    d = view.node_decision
    nodes = np.arange(tree.n_nodes)
    profit_sum = getattr(tree, "profit_sum", None)
    if profit_sum is not None:
        ps = np.asarray(profit_sum, dtype=np.float64)
        if ps.ndim == 3:
            return ps[nodes, :, d].sum(axis=1)
        return ps[nodes, d]
    w = np.asarray(tree.weighted_n_node_samples, dtype=np.float64)
    return view.node_expected[nodes, d] * view.sign * w


def variable_importance(estimator):
    """Total impurity decrease and total profit gain of the splits on each input.

    For every split node with weight ``w``, impurity ``i`` and children ``l``, ``r``:
    the impurity decrease is ``w i - w_l i_l - w_r i_r`` (frequency-weighted, under the
    growing criterion) and the profit gain is the training profit of the two children,
    each under its own decision, minus that of the node under its decision (profit
    orientation: for a loss matrix it is the decrease in total loss). Both are summed
    per input.

    Parameters
    ----------
    estimator : ProfitTreeClassifier or ProfitTreeRegressor
        A fitted tree.

    Returns
    -------
    DataFrame
        Indexed by input name (every input, unused ones with zeros), columns
        ``n_splits``, ``impurity_decrease``, ``impurity_share`` (fraction of the total),
        and with a decision matrix ``profit_gain`` and ``profit_share``. Sorted by profit
        gain (impurity decrease without a matrix), largest first.

    Examples
    --------
    >>> import pandas as pd
    >>> from dtdecide import DecisionMatrix, ProfitTreeClassifier
    >>> from dtdecide.export import variable_importance
    >>> X = pd.DataFrame({"age": [20.0, 30.0, 40.0, 50.0], "noise": [1.0, 2.0, 1.0, 2.0]})
    >>> m = DecisionMatrix({"ignore": [0, 0], "mail": [-1, 9]}, levels=["no", "yes"])
    >>> tree = ProfitTreeClassifier(decision_matrix=m, min_samples_leaf=1, min_samples_split=2)
    >>> tree = tree.fit(X, ["no", "no", "yes", "yes"])
    >>> imp = variable_importance(tree)
    >>> imp["n_splits"].to_dict(), imp["profit_gain"].to_dict()
    ({'age': 1, 'noise': 0}, {'age': 2.0, 'noise': 0.0})
    """
    view = tree_view(estimator)
    tree = view.tree
    n_features = len(view.feature_names)
    w = np.asarray(tree.weighted_n_node_samples, dtype=np.float64)
    imp = np.asarray(tree.impurity, dtype=np.float64)
    left = np.asarray(tree.children_left)
    right = np.asarray(tree.children_right)
    feat = np.asarray(tree.feature)
    split = np.flatnonzero(left >= 0)
    dec = w[split] * imp[split] - w[left[split]] * imp[left[split]] - w[right[split]] * imp[right[split]]
    out = pd.DataFrame(index=pd.Index(view.feature_names, name="feature"))
    out["n_splits"] = np.bincount(feat[split], minlength=n_features).astype(np.int64)
    out["impurity_decrease"] = np.bincount(feat[split], weights=dec, minlength=n_features)
    total = out["impurity_decrease"].sum()
    out["impurity_share"] = out["impurity_decrease"] / total if total > 0 else 0.0
    sort_by = "impurity_decrease"
    if view.has_decisions:
        p = _node_profit(view)
        gain = p[left[split]] + p[right[split]] - p[split]
        out["profit_gain"] = np.bincount(feat[split], weights=gain, minlength=n_features)
        total = out["profit_gain"].clip(lower=0).sum()
        out["profit_share"] = out["profit_gain"] / total if total > 0 else 0.0
        sort_by = "profit_gain"
    return out.sort_values(sort_by, ascending=False, kind="stable")


def plot_variable_importance(estimator, *, column=None, ax=None, top=20):
    """Horizontal bar chart of :func:`variable_importance`.

    Parameters
    ----------
    estimator : fitted tree or DataFrame
        A fitted tree, or a table returned by :func:`variable_importance`.
    column : str or None, default=None
        Column to plot; None takes ``"profit_gain"`` when present, else
        ``"impurity_decrease"``.
    ax : matplotlib Axes, default=None
        Where to draw; None creates a figure.
    top : int, default=20
        Largest number of inputs shown (the most important ones).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pandas as pd
    >>> from dtdecide import DecisionMatrix, ProfitTreeClassifier
    >>> from dtdecide.export import plot_variable_importance
    >>> X = pd.DataFrame({"age": [20.0, 30.0, 40.0, 50.0], "noise": [1.0, 2.0, 1.0, 2.0]})
    >>> m = DecisionMatrix({"ignore": [0, 0], "mail": [-1, 9]}, levels=["no", "yes"])
    >>> tree = ProfitTreeClassifier(decision_matrix=m, min_samples_leaf=1, min_samples_split=2)
    >>> tree = tree.fit(X, ["no", "no", "yes", "yes"])
    >>> ax = plot_variable_importance(tree)
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['noise', 'age']
    """
    table = estimator if isinstance(estimator, pd.DataFrame) else variable_importance(estimator)
    if column is None:
        column = "profit_gain" if "profit_gain" in table.columns else "impurity_decrease"
    if column not in table.columns:
        raise ValueError(f"column must be one of {list(table.columns)}; got {column!r}")
    if not isinstance(top, (int, np.integer)) or top < 1:
        raise ValueError(f"top must be a positive int; got {top!r}")
    import matplotlib.pyplot as plt

    data = table[column].sort_values(ascending=False, kind="stable").head(top)[::-1]
    if ax is None:
        _, ax = plt.subplots(figsize=(6, max(2.0, 0.35 * len(data) + 1)))
    ax.barh([str(i) for i in data.index], data.to_numpy(), color=_PALETTE[4])
    ax.set_xlabel(column.replace("_", " "))
    ax.set_title("Variable importance")
    return ax
