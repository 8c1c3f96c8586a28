"""Pictures of a fitted tree: matplotlib plot, Graphviz DOT, variable importance.

matplotlib is imported inside the plotting functions only.
"""

import textwrap

import numpy as np
import pandas as pd

from ._common import format_number, tree_view

__all__ = ["export_graphviz", "plot_tree", "plot_variable_importance", "variable_importance"]

# Colour-blind friendly qualitative palette (Okabe-Ito), one colour per decision.
_PALETTE = (
    "#E69F00",
    "#56B4E9",
    "#009E73",
    "#F0E442",
    "#0072B2",
    "#D55E00",
    "#CC79A7",
    "#999999",
)


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
        lines.append(
            f"{view.decisions[d]}: {view.ep_name} "
            f"{format_number(view.node_expected[node, d], digits)}"
        )
    if not is_leaf:
        lines.extend(textwrap.wrap(view.split_text(node, digits), wrap) or [""])
    return lines


def _layout(view):
    """x (leaf order, parents centred over children) and depth of every node."""
    tree = view.tree
    n = tree.n_nodes
    x = np.zeros(n)
    counter = [0]

    def walk(node):
        left = int(tree.children_left[node])
        if left < 0:
            x[node] = counter[0]
            counter[0] += 1
            return
        right = int(tree.children_right[node])
        walk(left)
        walk(right)
        x[node] = (x[left] + x[right]) / 2.0

    walk(0)
    return x, np.asarray(tree.depth, dtype=float)


def plot_tree(estimator, *, ax=None, digits=3, fontsize=None, max_classes=4):
    """Draw a fitted tree with matplotlib.

    Every box shows the node id, its training rows and weight, the posteriors (at most
    ``max_classes``, the largest ones) or the mean and standard deviation, and the
    decision with its expected profit; split nodes add their condition, whose branch
    is labelled ``yes``/``no`` and ``+NA`` on the side that receives missing values (and
    categories unseen in training). Leaves are filled with the colour of their decision.
    Readable for trees of up to about 30 leaves.

    Parameters
    ----------
    estimator : ProfitTreeClassifier or ProfitTreeRegressor
        A fitted tree.
    ax : matplotlib Axes, default=None
        Where to draw; None creates a figure sized for the tree.
    digits : int, default=3
        Significant digits of the numbers shown.
    fontsize : float or None, default=None
        Text size; None adapts it to the number of leaves.
    max_classes : int, default=4
        Largest number of posteriors shown per box.

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
    >>> from dtdecide.export import plot_tree
    >>> X = pd.DataFrame({"age": [20.0, 30.0, 40.0, 50.0]})
    >>> m = DecisionMatrix([[0.0, -1.0], [0.0, 9.0]], levels=["no", "yes"],
    ...                    decisions=["ignore", "mail"])
    >>> tree = ProfitTreeClassifier(decision_matrix=m, min_samples_leaf=1, min_samples_split=2)
    >>> tree = tree.fit(X, ["no", "no", "yes", "yes"])
    >>> ax = plot_tree(tree)
    >>> len(ax.texts) >= tree.tree_.n_nodes
    True
    """
    view = tree_view(estimator)
    if not isinstance(digits, (int, np.integer)) or digits < 1:
        raise ValueError(f"digits must be a positive int; got {digits!r}")
    if not isinstance(max_classes, (int, np.integer)) or max_classes < 1:
        raise ValueError(f"max_classes must be a positive int; got {max_classes!r}")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    tree = view.tree
    x, depth = _layout(view)
    n_leaves = int(view.is_leaf.sum())
    max_depth = int(depth.max())
    if fontsize is None:
        fontsize = float(np.clip(11.0 - 0.12 * n_leaves, 6.0, 9.0))
    texts = [_node_lines(view, node, digits, max_classes) for node in range(tree.n_nodes)]
    if ax is None:
        # a slot per leaf as wide as the longest leaf line (about 0.6 em per character)
        chars = max(len(line) for node in view.leaves for line in texts[node])
        slot = chars * fontsize * 0.62 / 72.0 + 0.35
        n_lines = max(len(t) for t in texts)
        level = n_lines * fontsize * 1.25 / 72.0 + 0.6
        _, ax = plt.subplots(
            figsize=(max(6.0, slot * n_leaves), max(3.0, level * (max_depth + 1)))
        )
    for node in range(tree.n_nodes):
        left = int(tree.children_left[node])
        if left < 0:
            continue
        right = int(tree.children_right[node])
        miss_left = bool(tree.missing_left[node])
        for child, label in ((left, "yes"), (right, "no")):
            if (child == left) == miss_left:
                label += " +NA"
            ax.plot([x[node], x[child]], [-depth[node], -depth[child]], color="0.55", lw=1, zorder=1)
            ax.text(
                (x[node] + x[child]) / 2,
                -(depth[node] + depth[child]) / 2,
                label,
                ha="center",
                va="center",
                fontsize=fontsize * 0.85,
                color="0.3",
                bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none"),
                zorder=2,
            )
    for node in range(tree.n_nodes):
        is_leaf = tree.children_left[node] < 0
        colour = _decision_colour(view, node) if is_leaf else None
        ax.text(
            x[node],
            -depth[node],
            "\n".join(texts[node]),
            ha="center",
            va="center",
            fontsize=fontsize,
            bbox=dict(
                boxstyle="round,pad=0.35",
                fc=colour if colour is not None else "white",
                ec="0.3",
                alpha=0.9,
            ),
            zorder=3,
        )
    ax.set_xlim(-0.7, max(n_leaves - 1, 0) + 0.7)
    ax.set_ylim(-max_depth - 0.6, 0.6)
    ax.set_axis_off()
    if view.has_decisions:
        handles = [
            Patch(facecolor=_PALETTE[k % len(_PALETTE)], edgecolor="0.3", label=d)
            for k, d in enumerate(view.decisions)
        ]
        ax.legend(handles=handles, title="decision", loc="upper right", fontsize=fontsize)
    return ax


def _dot_escape(text):
    return text.replace("\\", "\\\\").replace('"', '\\"')


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
    >>> m = DecisionMatrix([[0.0, -1.0], [0.0, 9.0]], levels=["no", "yes"],
    ...                    decisions=["ignore", "mail"])
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
    for node in range(tree.n_nodes):
        left = int(tree.children_left[node])
        if left < 0:
            continue
        right = int(tree.children_right[node])
        miss_left = bool(tree.missing_left[node])
        for child, label in ((left, "yes"), (right, "no")):
            if (child == left) == miss_left:
                label += " +NA"
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
    >>> m = DecisionMatrix([[0.0, -1.0], [0.0, 9.0]], levels=["no", "yes"],
    ...                    decisions=["ignore", "mail"])
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
    >>> m = DecisionMatrix([[0.0, -1.0], [0.0, 9.0]], levels=["no", "yes"],
    ...                    decisions=["ignore", "mail"])
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
