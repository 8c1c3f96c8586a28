"""HTML view of a fitted profit tree (notebook display and standalone pages).

Layer 5 (estimator) of :mod:`dtdecide.tree` (``_estimator``); see the architecture page.

One renderer serves both the estimators' ``_repr_html_`` (Jupyter shows a fitted tree
as its tree) and :func:`dtdecide.export.export_html` (a standalone file). It lives in
``tree`` so that the estimators never import ``export``.

The view is an indented tree of nested lists. Every internal node is a ``<details>``
element, so branches collapse and expand without any script; a small inline script only
adds "expand all", "collapse all" and "open to depth" buttons (hidden when scripts do not
run). Every node element carries ``data-node`` (its id in ``tree_``), ``data-leaf``,
``data-depth`` and ``data-decision``; every label is HTML-escaped. No network resource is
used: styles and script are inline.
"""

from __future__ import annotations

import html
import itertools
import math

import numpy as np

from .._structure._nodeview import node_statistics
from .._structure._view import DECISION_PALETTE

__all__ = ["HTMLReprMixin", "decision_colour", "tree_html"]

_NO_DECISION = "#BBBBBB"

# a page may hold several views (a notebook): their element ids must differ
_view_ids = itertools.count(1)


def decision_colour(index):
    """Colour of the decision with index ``index`` (cycling through the palette)."""
    return DECISION_PALETTE[int(index) % len(DECISION_PALETTE)]


def _rgb(colour):
    colour = colour.lstrip("#")
    return tuple(int(colour[i : i + 2], 16) for i in (0, 2, 4))


def _tint(colour, amount=0.82):
    """``colour`` mixed with white (``amount`` of white)."""
    r, g, b = (round(c + (255 - c) * amount) for c in _rgb(colour))
    return f"#{r:02X}{g:02X}{b:02X}"


def _text_on(colour):
    """Black or white, whichever reads better on ``colour`` (WCAG relative luminance)."""

    def lin(c):
        c = c / 255.0
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(c) for c in _rgb(colour))
    lum = 0.2126 * r + 0.7152 * g + 0.0722 * b
    return "#000000" if (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) else "#FFFFFF"


def _esc(value):
    return html.escape(str(value), quote=True)


def _num(value, digits):
    """Text of a number with ``digits`` significant digits (a dash when missing)."""
    value = float(value)
    if not math.isfinite(value):
        return "&ndash;" if math.isnan(value) else ("&infin;" if value > 0 else "&minus;&infin;")
    if value == round(value) and abs(value) < 10**digits:
        return str(int(round(value)))
    return format(value, f".{int(digits)}g")


def _label(value):
    """Display text of a category or class label (numbers without a trailing ``.0``)."""
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    return str(value)


# ------------------------------------------------------------------ node statistics
class _Stats:
    """What the view prints, read once from a fitted estimator (internal)."""

    def __init__(self, est):
        tree = est.tree_
        self.tree = tree
        self.kind = type(est).__name__
        self.names = [str(n) for n in est.feature_names_in_]
        n_features = len(self.names)
        self.is_cat = np.asarray(
            getattr(est, "is_categorical_", np.zeros(n_features, dtype=bool)), dtype=bool
        )
        self.categories = list(getattr(est, "categories_", None) or [None] * n_features)
        self.target = str(getattr(est, "target_name_", None) or "target")
        classes = getattr(est, "classes_", None)
        self.classes = None if classes is None else list(classes)
        nodes = node_statistics(est)
        self.post, self.mean, self.sd = nodes.posteriors, nodes.mean, nodes.sd
        self.decisions = None if nodes.decisions is None else list(nodes.decisions)
        self.node_decision = nodes.node_decision
        self.expected = nodes.node_expected
        self.overrides = nodes.overrides  # leaves whose decision was set by hand
        self.sign = nodes.sign if nodes.decisions is not None else 1.0
        # under decision_rule="case" every case decides with its own costs: a node's
        # decision shown here is the one at its cases' average training costs
        self.case_rule = est._case_rule()
        self.word = "loss" if self.sign < 0 else "profit"
        self.ep = "EL" if self.sign < 0 else "EP"
        self.left = np.asarray(tree.children_left, dtype=np.intp)
        self.right = np.asarray(tree.children_right, dtype=np.intp)
        self.depth = np.asarray(tree.depth, dtype=np.intp)
        self.n = np.asarray(tree.n_node_samples)
        self.w = np.asarray(tree.weighted_n_node_samples, dtype=np.float64)
        self.weighted = not np.allclose(self.n, self.w)
        self.valid = None

    @property
    def n_nodes(self):
        return len(self.left)

    def edge_text(self, parent, went_left):
        """Markup of the condition a case meets to go from ``parent`` into this branch."""
        tree = self.tree
        j = int(tree.feature[parent])
        name = _esc(self.names[j])
        missing_left = bool(tree.missing_left[parent])
        missing_here = missing_left == went_left
        if self.is_cat[j]:
            row = np.asarray(tree.cat_left[parent])
            labels = []
            for code, lab in enumerate(self.categories[j]):
                # codes beyond the table's width were never seen: they follow missing
                goes_left = bool(row[code]) if code < row.shape[0] else missing_left
                if goes_left == went_left:
                    labels.append(_esc(_label(lab)))
            text = f"{name} in {{{', '.join(labels)}}}"
            return text + (" or missing/unseen" if missing_here else "")
        thr = float(tree.threshold[parent])
        if math.isinf(thr) and thr > 0:  # every non-missing value goes left
            if went_left:
                return f"{name}: any value" if missing_here else f"{name} is not missing"
            return f"{name} is missing" if missing_here else f"{name}: no case"
        op = "&le;" if went_left else "&gt;"
        text = f"{name} {op} {_num(thr, 6)}"
        return (text + " or missing") if missing_here else text


def _validation(est, stats, X, y, costs, sample_weight):
    """Per-node figures of validation cases: counts, class shares or mean, profit."""
    from ...decision._validation import check_1d, check_sample_weight, reference_index

    ind = est.decision_path(X).tocsc()  # (n_samples, n_nodes)
    n_rows = ind.shape[0]
    # the package's one rule for per-case inputs (a pandas index other than X's is refused)
    index = reference_index(X)
    w = check_sample_weight(sample_weight, n_rows, name="sample_weight_valid", index=index,
                            reference="X_valid")
    w = np.ones(n_rows) if w is None else w
    out = {"n": np.asarray(ind.sum(axis=0)).ravel().astype(np.int64)}
    out["w"] = ind.T @ w
    if y is None:
        return out
    y = check_1d(y, "y_valid", n_samples=n_rows, index=index, reference="X_valid")
    if stats.classes is not None:
        shares = np.zeros((stats.n_nodes, len(stats.classes)))
        for k, cls in enumerate(stats.classes):
            shares[:, k] = ind.T @ (w * (y == cls))
        with np.errstate(invalid="ignore", divide="ignore"):
            out["shares"] = shares / out["w"][:, None]
    else:
        yv = y.astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            out["mean"] = (ind.T @ (w * yv)) / out["w"]
    if stats.decisions is not None:
        cases = est.decide(X, y, costs=costs, sample_weight=sample_weight).cases
        cp = next(c for c in cases.columns if c.startswith(("CP_", "CL_")))
        bp = next(c for c in cases.columns if c.startswith(("BP_", "BL_")))
        realised = cases[cp].to_numpy(dtype=np.float64)
        ok = np.isfinite(realised) & np.isfinite(cases[bp].to_numpy(dtype=np.float64))
        wk = np.where(ok, w, 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            out["profit"] = (ind.T @ (wk * np.where(ok, realised, 0.0))) / (ind.T @ wk)
    return out


# ------------------------------------------------------------------------ markup
_CSS = """
.dtd-tree{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;
 font-size:13px;line-height:1.35;color:#1a1a1a;background:#fff;border:1px solid #ddd;
 border-radius:6px;padding:8px 10px;box-sizing:border-box;max-width:100%}
.dtd-tree *{box-sizing:border-box}
.dtd-head{display:flex;flex-wrap:wrap;gap:6px 18px;align-items:center;margin-bottom:6px}
.dtd-title{font-weight:600}
.dtd-legend{display:flex;flex-wrap:wrap;gap:4px 12px;align-items:center}
.dtd-key{display:inline-flex;align-items:center;gap:4px;white-space:nowrap}
.dtd-sw{display:inline-block;width:12px;height:12px;border-radius:2px;border:1px solid #0003}
.dtd-tools{display:none;gap:6px;align-items:center}
.dtd-tree[data-dtd-ready] .dtd-tools{display:flex}
.dtd-tools button,.dtd-tools select{font:inherit;font-size:12px;padding:1px 6px}
.dtd-body{overflow:auto}
.dtd-scroll .dtd-body{max-height:640px}
.dtd-tree ul{list-style:none;margin:0;padding:0 0 0 22px;border-left:1px dotted #aaa}
.dtd-tree ul.dtd-top{padding-left:0;border-left:none}
.dtd-tree li{margin:2px 0;padding:0}
.dtd-tree details>summary{cursor:pointer;list-style-position:outside;margin-left:14px}
.dtd-tree details>summary::marker{color:#666}
.dtd-leaf{margin-left:14px}
.dtd-row{display:inline-flex;flex-wrap:wrap;align-items:baseline;gap:2px 10px;
 padding:2px 8px;border-radius:4px;border-left:5px solid;vertical-align:top}
.dtd-edge{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px;
 color:#333;font-weight:600}
.dtd-id{color:#555;font-size:11px}
.dtd-dec{display:inline-block;padding:0 6px;border-radius:8px;font-weight:600}
.dtd-ep{font-variant-numeric:tabular-nums}
.dtd-valid{color:#4a4a8a;font-size:12px}
.dtd-ovr{font-size:11px;font-weight:700;color:#a00;border:1px solid #a00;border-radius:3px;
 padding:0 3px}
.dtd-ovr-note{color:#a00;font-size:12px}
.dtd-note{color:#555;font-size:12px;margin-top:6px}
"""

# Buttons work on the view they sit in; every view is set up once.
_JS = """
(function(){
  var views = document.querySelectorAll('.dtd-tree:not([data-dtd-ready])');
  Array.prototype.forEach.call(views, function(view){
    var nodes = view.querySelectorAll('details.dtd-node');
    function openTo(depth){
      Array.prototype.forEach.call(nodes, function(d){
        d.open = parseInt(d.getAttribute('data-depth'), 10) < depth;
      });
    }
    view.addEventListener('click', function(ev){
      var act = ev.target.getAttribute && ev.target.getAttribute('data-dtd-action');
      if (act === 'expand') { openTo(Infinity); }
      else if (act === 'collapse') { openTo(1); }
    });
    var sel = view.querySelector('select.dtd-depth');
    if (sel) { sel.addEventListener('change', function(){ openTo(parseInt(sel.value, 10)); }); }
    view.setAttribute('data-dtd-ready', '1');
  });
})();
"""


def _node_row(stats, node, edge, digits):
    """Inner markup of one node: edge condition, id, counts, shares/mean, decision, EP."""
    parts = [f'<span class="dtd-edge">{edge}</span>']
    is_leaf = stats.left[node] < 0
    parts.append(f'<span class="dtd-id">{"leaf" if is_leaf else "node"} {node}</span>')
    count = f"n={int(stats.n[node])}"
    if stats.weighted:
        count += f" w={_num(stats.w[node], digits)}"
    parts.append(f"<span>{count}</span>")
    if stats.classes is not None:
        shares = " &middot; ".join(
            f"{_esc(_label(c))} {_num(stats.post[node, k], digits)}"
            for k, c in enumerate(stats.classes)
        )
        parts.append(f"<span>{shares}</span>")
    else:
        parts.append(
            f"<span>mean {_num(stats.mean[node], digits)} "
            f"sd {_num(stats.sd[node], digits)}</span>"
        )
    if stats.decisions is not None:
        d = int(stats.node_decision[node])
        colour = decision_colour(d)
        parts.append(
            f'<span class="dtd-dec" style="background:{colour};color:{_text_on(colour)}">'
            f"{'per case; at mean costs ' if stats.case_rule else ''}"
            f"{_esc(stats.decisions[d])}</span>"
        )
        parts.append(
            f'<span class="dtd-ep">{stats.ep} {_num(stats.expected[node, d], digits)}'
            "/case</span>"
        )
        if node in stats.overrides:
            own = stats.overrides[node]
            lost = stats.sign * (stats.expected[node, own] - stats.expected[node, d])
            verb = "adds" if stats.sign < 0 else "gives up"
            parts.append(
                f'<span class="dtd-ovr" title="set by hand; the tree decides '
                f'{_esc(stats.decisions[own])}">override</span>'
                f'<span class="dtd-ovr-note">tree: {_esc(stats.decisions[own])} '
                f"{stats.ep} {_num(stats.expected[node, own], digits)}; {verb} "
                f"{_num(lost, digits)}/case</span>"
            )
    if stats.valid is not None:
        v = stats.valid
        bits = [f"valid: n={int(v['n'][node])}"]
        if "shares" in v:
            bits.append(
                " &middot; ".join(
                    f"{_esc(_label(c))} {_num(v['shares'][node, k], digits)}"
                    for k, c in enumerate(stats.classes)
                )
            )
        if "mean" in v:
            bits.append(f"mean {_num(v['mean'][node], digits)}")
        if "profit" in v:
            bits.append(f"{stats.word} {_num(v['profit'][node], digits)}/case")
        parts.append(f'<span class="dtd-valid">{" &middot; ".join(bits)}</span>')
    return "".join(parts)


def _node_attrs(stats, node):
    is_leaf = stats.left[node] < 0
    if stats.decisions is not None:
        d = int(stats.node_decision[node])
        colour = decision_colour(d)
        decision = _esc(stats.decisions[d])
    else:
        colour, decision = _NO_DECISION, ""
    attrs = (
        f'data-node="{node}" data-leaf="{int(is_leaf)}" '
        f'data-depth="{int(stats.depth[node])}" data-decision="{decision}"'
    )
    if node in stats.overrides:
        attrs += ' data-override="1"'
    style = f'style="border-color:{colour};background:{_tint(colour)}"'
    return attrs, style


def _body(stats, digits, open_depth):
    """Nested-list markup of the whole tree (iterative: deep trees do not recurse)."""
    out = ['<ul class="dtd-top">']
    # stack of (node, edge text) or closing markers
    stack = [(0, "all cases")]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        node, edge = item
        attrs, style = _node_attrs(stats, node)
        row = f'<span class="dtd-row" {style}>{_node_row(stats, node, edge, digits)}</span>'
        if stats.left[node] < 0:
            out.append(f'<li><div class="dtd-node dtd-leaf" {attrs}>{row}</div></li>')
            continue
        is_open = " open" if stats.depth[node] < open_depth else ""
        out.append(
            f'<li><details class="dtd-node"{is_open} {attrs}><summary>{row}</summary><ul>'
        )
        stack.append("</ul></details></li>")
        stack.append((int(stats.right[node]), stats.edge_text(node, False)))
        stack.append((int(stats.left[node]), stats.edge_text(node, True)))
    out.append("</ul>")
    return "".join(out)


def _legend(stats):
    if stats.decisions is None:
        return '<div class="dtd-legend">no decision matrix: nodes are not coloured</div>'
    leaves = stats.left < 0
    counts = np.bincount(stats.node_decision[leaves], minlength=len(stats.decisions))
    keys = []
    for k, d in enumerate(stats.decisions):
        colour = decision_colour(k)
        keys.append(
            f'<span class="dtd-key" data-decision="{_esc(d)}">'
            f'<span class="dtd-sw" style="background:{colour}"></span>'
            f"{_esc(d)} ({int(counts[k])} leaves)</span>"
        )
    note = ""
    if stats.case_rule:
        note = (
            '<span class="dtd-key">decision_rule="case": each case decides with its own '
            "costs; colours show the decision at the cases' average training costs</span>"
        )
    return f'<div class="dtd-legend">{"".join(keys)}{note}</div>'


def tree_html(estimator, X_valid=None, y_valid=None, costs_valid=None,
              sample_weight_valid=None, *, digits=3, open_depth=None, full_page=False,
              title=None, scroll=False):
    """HTML markup of a fitted profit tree (the renderer of ``_repr_html_`` and ``export_html``).

    Parameters
    ----------
    estimator : ProfitTreeClassifier or ProfitTreeRegressor
        A fitted tree.
    X_valid, y_valid, costs_valid, sample_weight_valid : optional
        Validation cases; each node then also shows their count, class shares (or mean)
        and, with a decision matrix and ``y_valid``, the average realised profit of the
        tree's decisions on the cases reaching it (cases with a missing cost left out).
    digits : int, default=3
        Significant digits of the printed numbers.
    open_depth : int, default=None
        Nodes above this depth start expanded; by default all (up to 100 leaves) or the
        first four levels.
    full_page : bool, default=False
        A whole HTML document instead of a fragment.
    title : str, default=None
        Heading of the view.
    scroll : bool, default=False
        Limit the height of the view and scroll inside it (notebooks).

    Returns
    -------
    str
    """
    stats = _Stats(estimator)
    if X_valid is not None:
        stats.valid = _validation(
            estimator, stats, X_valid, y_valid, costs_valid, sample_weight_valid
        )
    elif y_valid is not None or costs_valid is not None or sample_weight_valid is not None:
        raise ValueError("y_valid, costs_valid and sample_weight_valid need X_valid too")
    n_leaves = int(np.sum(stats.left < 0))
    if open_depth is None:
        open_depth = 10**9 if n_leaves <= 100 else 4
    if title is None:
        title = f"{stats.kind} of {stats.target}"
    head = (
        f'<div class="dtd-title">{_esc(title)} &middot; {n_leaves} leaves &middot; '
        f"depth {int(stats.depth.max())}</div>"
    )
    max_depth = int(stats.depth.max())
    options = "".join(
        f'<option value="{k}"{" selected" if k == min(open_depth, max_depth) else ""}>{k}</option>'
        for k in range(1, max_depth + 1)
    )
    tools = (
        '<div class="dtd-tools">'
        '<button type="button" data-dtd-action="expand">expand all</button>'
        '<button type="button" data-dtd-action="collapse">collapse all</button>'
        f'<label>open to depth <select class="dtd-depth">{options}</select></label></div>'
        if max_depth > 0
        else ""
    )
    note = ""
    if stats.decisions is not None:
        note = f"{stats.ep}: expected {stats.word} per case of the node's decision"
        if stats.valid is not None:
            note += "; valid: the validation cases reaching the node"
            if "profit" in stats.valid:
                note += f", with the realised {stats.word} per case of the tree's decisions"
        note = f'<div class="dtd-note">{_esc(note)}.</div>'
    view_id = f"dtd-view-{next(_view_ids)}"
    classes = "dtd-tree dtd-scroll" if scroll else "dtd-tree"
    markup = (
        f'<div class="{classes}" id="{view_id}" data-n-nodes="{stats.n_nodes}" '
        f'data-n-leaves="{n_leaves}"><style>{_CSS}</style>'
        f'<div class="dtd-head">{head}{_legend(stats)}{tools}</div>'
        f'<div class="dtd-body">{_body(stats, digits, open_depth)}</div>{note}'
        f"<script>{_JS}</script></div>"
    )
    if not full_page:
        return markup
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_esc(title)}</title>"
        "<style>body{margin:12px;background:#fff}</style></head>"
        f"<body>{markup}</body></html>\n"
    )


class HTMLReprMixin:
    """Notebook display: a fitted tree shows its tree view, an unfitted one sklearn's."""

    def _is_fitted_tree(self):
        return getattr(self, "tree_", None) is not None

    def _tree_repr_html(self):
        from sklearn.utils import estimator_html_repr

        params = estimator_html_repr(self)
        return tree_html(self, scroll=True) + (
            '<details class="dtd-params"><summary style="cursor:pointer;font-size:12px">'
            "parameters</summary>" + params + "</details>"
        )

    def _tree_html(self, X_valid=None, y_valid=None, costs_valid=None,
                   sample_weight_valid=None, **options):
        """The HTML markup of this fitted tree (see :func:`tree_html`); what
        ``dtdecide.export.export_html`` writes to a file."""
        return tree_html(self, X_valid, y_valid, costs_valid, sample_weight_valid, **options)

    @property
    def _repr_html_(self):
        # sklearn's property raises AttributeError unless display="diagram": keep that
        inner = super()._repr_html_
        if not self._is_fitted_tree():
            return inner
        return self._tree_repr_html

    def _repr_mimebundle_(self, **kwargs):
        output = super()._repr_mimebundle_(**kwargs)
        if "text/html" in output and self._is_fitted_tree():
            output["text/html"] = self._tree_repr_html()
        return output
