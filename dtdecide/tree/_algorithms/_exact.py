"""Exact search for shallow trees on the binned histograms (``search="exact"``).

Layer 3 (algorithms) of :mod:`dtdecide.tree` (``_algorithms``); see the architecture page.

Objective
---------
The tree of depth at most ``max_depth`` whose leaves earn the largest *training
objective* over every split the binning allows:

* with a decision matrix of at least two decisions: the training profit of the leaf
  decisions (profit orientation, so minus the loss for a loss matrix), prior-adjusted when
  the matrix has priors -- exactly minus the risk that cost-complexity pruning uses
  (:func:`dtdecide.tree._estimator._pruning.node_risk`). Each leaf takes the decision the fitted tree
  gives it (:func:`dtdecide.tree._structure._leaf.node_decisions`, the leaf rule);
* without one: the weighted number of correctly classified training cases (classifier)
  or minus the sum of squared errors (regressor).

Candidate splits are those of the greedy splitter: numeric thresholds on the bin edges,
the missing bin on either side, and for categorical inputs every prefix of the categories
ordered by a key (class rates, mean target, and with a decision matrix the difference of
expected profit per case between every two decisions). Categories absent from a node,
and missing values where the node has none, are routed as the greedy splitter routes
them. A split is valid when each child has at least ``min_samples_leaf`` rows and
positive weight; a node is split only when it has at least ``min_samples_split`` rows.

How
---
Every statistic a leaf's objective needs is a sum over its rows of a few *channels*
(:class:`Objective`). Depth 1 scans prefix sums of one node's histogram. Depth 2 builds,
for each root feature ``f``, the two-dimensional histogram (bin of ``f``) x (feature,
bin); prefix sums over the bins of ``f`` give the histograms of both children of every
root candidate at once, and each child's best depth-1 subtree is then one vectorised scan
-- no loop over rows. Depth 3 is a branch and bound over the root candidates: children
are solved exactly at depth 2 in the order of an optimistic bound (ties by the depth-2
lookahead value); the search stops when no unsolved candidate's bound beats the best tree
found (proven optimal) or when ``time_limit`` runs out (the bound is then the largest
bound left). Bounds: a child's depth-2 value is at most the sum over its rows of the best
decision for each row; when the leaf decision maximises the leaf's own objective, a child
``S'`` whose neighbour ``S`` on the same root feature was solved also satisfies
``V(S') <= V(S) - lo(S \\ S') + hi(S' \\ S)`` (per-row worst and best contributions).
"""

from __future__ import annotations

import time

import numpy as np

from ..._dtypes import FLOAT_DTYPE as _FLOAT
from ..._progress import NO_BAR, progress_bar
from .._kernels._criteria import impurity as _impurity
from .._kernels._histogram import BinLayout
from .._structure import _leaf
from .._structure._tree import TreeStructure

__all__ = ["Objective", "ExactSearch", "exact_tree"]

_REL_TOL = 1e-9
_GENERIC_CHUNK = 1 << 15


# ============================================================================ objective
class Objective:
    """Per-row channels whose sums give a leaf's training objective.

    The last four channels are always ``weight``, ``count`` (rows), ``hi`` (the best
    contribution each row could make) and ``lo`` (its worst); the first ones depend on
    ``kind``:

    * ``"max"``: one channel per decision (or class) holding the row's contribution to
      the objective under that decision; the leaf value is the largest sum. ``keyscale``
      (one more channel) divides the key differences.
    * ``"sse"``: ``[w, w*y, w*y**2]`` (centred ``y``); value ``S1**2 / W - S2``.
    * ``"generic"``: the per-row :class:`~dtdecide.tree._structure._leaf.DecisionStats` fields, the
      value through :func:`~dtdecide.tree._structure._leaf.node_decisions`.
    """

    def __init__(self, channels, kind, *, n_main, argmax_rule, key_mode, generic=None):
        self.channels = np.ascontiguousarray(channels, dtype=_FLOAT)
        self.kind = kind
        self.n_main = n_main
        self.argmax_rule = argmax_rule  # leaf decision maximises the leaf objective
        self.key_mode = key_mode
        self.generic = generic
        K = self.channels.shape[1]
        self.K = K
        self.W, self.N, self.HI, self.LO = K - 4, K - 3, K - 2, K - 1

    # ------------------------------------------------------------------ values
    def value(self, S):
        """Objective of leaves with channel sums ``S`` (..., K)."""
        if self.kind == "max":
            return S[..., : self.n_main].max(axis=-1)
        if self.kind == "sse":
            W, S1, S2 = S[..., 0], S[..., 1], S[..., 2]
            with np.errstate(divide="ignore", invalid="ignore"):
                q = np.where(W > 0, S1 * S1 / np.where(W > 0, W, 1.0), 0.0)
            return q - S2
        return self._generic(S, want="value")

    def keys(self, Hn):
        """Orderings keys of categories with sums ``Hn`` (C, n_cat, K)."""
        if self.key_mode == "classes":
            tot = Hn[..., : self.n_main].sum(axis=-1)
            safe = np.where(tot > 0, tot, 1.0)
            T = self.n_main
            if T == 2:
                return [Hn[..., 1] / safe]
            keys = [Hn[..., t] / safe for t in range(T)]
            keys.append(Hn[..., :T] @ np.arange(T, dtype=_FLOAT) / safe)
            return keys
        if self.key_mode == "mean":
            W = Hn[..., 0]
            return [Hn[..., 1] / np.where(W > 0, W, 1.0)]
        if self.kind == "max":  # decisions: differences of expected profit per case
            scale = Hn[..., self.n_main]
            E = Hn[..., : self.n_main] / np.where(scale > 0, scale, 1.0)[..., None]
        else:
            E = self._generic(Hn, want="expected")
        D = E.shape[-1]
        keys = [E[..., b] - E[..., a] for a in range(D) for b in range(a + 1, D)]
        if self.generic is not None and self.generic["interval"]:
            W = Hn[..., self.generic["weight_slice"].start]
            keys.append(Hn[..., self.generic["y_slice"].start] / np.where(W > 0, W, 1.0))
        return keys

    def _generic(self, S, want):
        g = self.generic
        shape = S.shape[:-1]
        flat = S.reshape(-1, self.K)
        M = flat.shape[0]
        D = g["n_decisions"]
        out = np.empty(M) if want == "value" else np.empty((M, D))
        root = g["root"]
        for start in range(0, M, _GENERIC_CHUNK):
            block = flat[start : start + _GENERIC_CHUNK]
            if root is not None:  # node_posteriors reads the training proportions at row 0
                block = np.concatenate([root[None, :], block])
            stats = _leaf.DecisionStats(**g["fixed"], **{
                name: block[:, sl].reshape((block.shape[0], *shp))
                for name, (sl, shp) in g["fields"].items()
            })
            with np.errstate(all="ignore"):
                fields = _leaf.node_decisions(stats, g["matrix"], priors=g["priors"])
            skip = 0 if root is None else 1
            stop = start + block.shape[0] - skip
            if want == "expected":
                out[start:stop] = fields["node_expected"][skip:]
                continue
            ps = fields["profit_sum"][skip:]
            if ps.ndim == 3:
                ps = np.einsum("ntd,t->nd", ps, g["paw"])
            d = fields["node_decision"][skip:]
            out[start:stop] = ps[np.arange(ps.shape[0]), d]
        out = np.nan_to_num(out, nan=0.0, posinf=0.0, neginf=0.0)
        return out.reshape(shape) if want == "value" else out.reshape((*shape, D))


def _paw(priors, t_idx, F, n_levels):
    """Prior-adjustment weight of each level (as in pruning), or None without priors."""
    if priors is None:
        return None
    priors = np.asarray(priors, dtype=_FLOAT)
    priors = priors / priors.sum()
    freq = np.bincount(t_idx, weights=F, minlength=n_levels)
    return np.divide(priors * F.sum(), freq, out=np.zeros_like(priors), where=freq > 0)


def make_objective(*, is_classifier, matrix, cons, target, F, n_classes=None,
                   cost_columns=None):
    """The :class:`Objective` of a fit (see the module notes for what is maximised).

    Parameters
    ----------
    is_classifier : bool
    matrix : DecisionMatrix or None
    cons : Consequences or None
        ``matrix.resolve(...)`` of the training cases.
    target : ndarray
        Class codes (classifier) or float targets (regressor).
    F : ndarray of float
        Training frequencies.
    n_classes : int
    cost_columns : dict of str to ndarray, optional
        Training values of the cost variables (additive matrices).
    """
    F = np.asarray(F, dtype=_FLOAT)
    n = F.shape[0]
    ones = np.ones(n)
    if matrix is None or matrix.n_decisions < 2:
        if is_classifier:
            onehot = np.zeros((n, n_classes))
            onehot[np.arange(n), target] = F
            ch = np.column_stack([onehot, F, ones, F, np.zeros(n)])
            return Objective(ch, "max", n_main=n_classes, argmax_rule=True,
                             key_mode="classes")
        y = np.asarray(target, dtype=_FLOAT)
        yc = y - np.average(y, weights=F)
        span = float(np.max(np.abs(yc))) * 2.0 if n else 0.0
        ch = np.column_stack([F, F * yc, F * yc * yc, F, ones, np.zeros(n), -F * span**2])
        return Objective(ch, "sse", n_main=3, argmax_rule=True, key_mode="mean")

    priors = None if matrix.is_interval or matrix.priors is None else np.asarray(
        matrix.priors, dtype=_FLOAT
    )
    if not matrix.is_interval:
        t_idx = np.asarray(target, dtype=np.intp)
        paw = _paw(priors, t_idx, F, matrix.n_levels)
        q = cons.q_actual(t_idx)  # (n, D) profit-oriented Q(j, T(j), d)
        w_row = F if paw is None else F * paw[t_idx]
        contrib = w_row[:, None] * q
        linear = priors is None or (cons.case_costs is None)
        if linear:
            ch = np.column_stack([contrib, w_row, F, ones, contrib.max(axis=1),
                                  contrib.min(axis=1)])
            return Objective(ch, "max", n_main=matrix.n_decisions, argmax_rule=True,
                             key_mode="decisions")
        hi, lo = contrib.max(axis=1), contrib.min(axis=1)
    else:
        y = np.asarray(target, dtype=_FLOAT)
        q = cons.q_actual(y)
        contrib = F[:, None] * q
        hi, lo = contrib.max(axis=1), contrib.min(axis=1)
        t_idx, paw = None, None
    # generic: per-row decision statistics as channels
    rows_stats = _leaf.compute_decision_stats(
        np.arange(n), np.full(n, -1), np.zeros(n, dtype=np.intp), cons=cons,
        sample_weight=F, t_idx=t_idx, y=None if t_idx is not None else target,
        rows=matrix.rows, decisions=matrix.decisions, cost_columns=cost_columns,
    )
    fields, blocks, fixed = {}, [], {}
    pos = 0
    for name, val in rows_stats.__dict__.items():
        if isinstance(val, np.ndarray) and name != "rows":
            flat = val.reshape(n, -1)
            fields[name] = (slice(pos, pos + flat.shape[1]), val.shape[1:])
            blocks.append(flat)
            pos += flat.shape[1]
        else:
            fixed[name] = val
    main = np.column_stack(blocks)
    ch = np.column_stack([main, F, ones, hi, lo])
    root = None
    if priors is not None:
        root = ch.sum(axis=0)
    generic = dict(
        matrix=matrix, priors=priors, paw=paw, fields=fields, fixed=fixed, root=root,
        n_decisions=matrix.n_decisions, interval=bool(matrix.is_interval),
        weight_slice=fields["weight"][0],
        y_slice=fields["y_sum"][0] if "y_sum" in fields else None,
    )
    return Objective(ch, "generic", n_main=pos, argmax_rule=False, key_mode="decisions",
                     generic=generic)


# ============================================================================ search
class _Split:
    """One split: feature, go-left table over binned values, missing side."""

    def __init__(self, feature, go_left, missing_left, value):
        self.feature = feature
        self.go_left = go_left
        self.missing_left = missing_left
        self.value = value


class ExactSearch:
    """Exact search over the bins of one fit (see the module notes).

    Parameters
    ----------
    X_binned : ndarray of uint8/uint16, shape (n_samples, n_features)
    binner : fitted Binner
    objective : Objective
    min_samples_leaf, min_samples_split : int
    """

    _bar = NO_BAR  # the search's progress bar while exact_tree runs it

    def __init__(self, X_binned, binner, objective, *, min_samples_leaf=1,
                 min_samples_split=2):
        self.Xb = np.asarray(X_binned)
        self.binner = binner
        self.obj = objective
        self.layout = BinLayout.from_binner(binner)
        self.is_cat = np.asarray(binner.is_categorical_, dtype=bool)
        self.msl = int(min_samples_leaf)
        self.mss = int(min_samples_split)
        n, n_features = self.Xb.shape
        self.n_features = n_features
        # flat cell of every (row, feature)
        cell = np.empty((n, n_features), dtype=np.intp)
        for j in range(n_features):
            cell[:, j] = self.layout.cell_index[j, self.Xb[:, j]]
        self.cell = cell
        self._full = None
        self.types = self.type_of_row = None
        types, inv = np.unique(objective.channels, axis=0, return_inverse=True)
        if types.shape[0] <= objective.K:
            self.types, self.type_of_row = types, inv.reshape(-1).astype(np.intp)
        self.wtol = 1e-12 * max(float(np.abs(objective.channels[:, objective.W]).sum()), 1.0)

    # ------------------------------------------------------------------ histograms
    def _prep(self, rows):
        """What the histograms of ``rows`` need.

        When the rows carry few distinct channel vectors (unit weights and constant
        consequences: one per class), histograms count rows per (cell, row type) and
        multiply by the type table -- one unweighted ``bincount`` instead of one
        weighted ``bincount`` per channel.
        """
        if rows is None and self._full is not None:
            return self._full
        cell = self.cell if rows is None else self.cell[rows]
        if self.types is not None:
            U = self.types.shape[0]
            tr = self.type_of_row if rows is None else self.type_of_row[rows]
            out = (cell, None, cell * U + tr[:, None])  # (cell, row type) per entry
        else:
            ch = self.obj.channels if rows is None else self.obj.channels[rows]
            out = (cell, np.repeat(ch.T, self.n_features, axis=1), None)  # (K, n * F)
        if rows is None:
            self._full = out
        return out

    def _sum_cells(self, local, prep, size):
        """(size, K) channel sums by (``local`` value of the row) x (feature, bin).

        ``local`` is None (one histogram) or each row's bin of the root feature.
        """
        cell, rep, typed = prep
        if self.types is not None:
            U = self.types.shape[0]
            idx = typed if local is None else local[:, None] * (self.layout.n_cells * U) + typed
            counts = np.bincount(idx.ravel(), minlength=size * U).reshape(size, U)
            out = counts[:, 0, None] * self.types[0]
            for u in range(1, U):
                out += counts[:, u, None] * self.types[u]
            return out
        idx = cell if local is None else local[:, None] * self.layout.n_cells + cell
        idx = idx.ravel()
        out = np.empty((size, self.obj.K))
        for k in range(self.obj.K):
            out[:, k] = np.bincount(idx, weights=rep[k], minlength=size)
        return out

    def hist1(self, rows, prep=None):
        """(n_cells, K) channel sums of ``rows`` (None: every row)."""
        prep = self._prep(rows) if prep is None else prep
        return self._sum_cells(None, prep, self.layout.n_cells)

    def hist2(self, rows, f, prep=None):
        """(width_f, n_cells, K): sums by (bin of ``f``) x (feature, bin)."""
        prep = self._prep(rows) if prep is None else prep
        nc = self.layout.n_cells
        wf = int(self.layout.widths[f])
        local = prep[0][:, f] - self.layout.offsets[f]
        return self._sum_cells(local, prep, wf * nc).reshape(wf, nc, self.obj.K)

    # ------------------------------------------------------------------ scans
    def _orders(self, j, Hn):
        """Category orders (list of (C, n_scan) index arrays) or [None] (numeric)."""
        if not self.is_cat[j]:
            return [None]
        cnt = Hn[..., self.obj.N]
        n_scan = max(int((cnt > 0).sum(axis=1).max(initial=0)), 1)
        out = []
        with np.errstate(divide="ignore", invalid="ignore"):
            keys = self.obj.keys(Hn)
        for key in keys:
            key = np.where(cnt > 0, np.nan_to_num(key), np.inf)
            out.append(np.argsort(key, axis=1, kind="stable")[:, :n_scan])
        return out

    def _candidates(self, H, j):
        """Yield (order, ml, L, R) for the splits of feature ``j`` of nodes ``H``."""
        lo, w = int(self.layout.offsets[j]), int(self.layout.widths[j])
        Hn, Hm = H[:, lo : lo + w - 1], H[:, lo + w - 1]
        has_m = Hm[:, self.obj.N] > 0
        for order in self._orders(j, Hn):
            Hs = Hn if order is None else np.take_along_axis(Hn, order[:, :, None], axis=1)
            cum = np.cumsum(Hs, axis=1)
            tot = cum[:, -1] + Hm
            for ml in (False, True):
                if ml and not has_m.any():
                    break
                L = cum + Hm[:, None, :] if ml else cum
                R = tot[:, None, :] - L
                yield order, ml, L, R, has_m

    def _valid(self, L, R):
        o = self.obj
        return (
            (L[..., o.N] >= self.msl) & (R[..., o.N] >= self.msl)
            & (L[..., o.W] > self.wtol) & (R[..., o.W] > self.wtol)
        )

    def best_split(self, H, detail=False):
        """Best depth-1 split of each node ``H`` (C, n_cells, K).

        Returns the value of the best valid split (``-inf`` where none) and, with
        ``detail``, the list of :class:`_Split` (None where none).
        """
        C = H.shape[0]
        best = np.full(C, -np.inf)
        info = [None] * C if detail else None
        rows = np.arange(C)
        for j in range(self.n_features):
            for order, ml, L, R, has_m in self._candidates(H, j):
                g = self.obj.value(L) + self.obj.value(R)
                valid = self._valid(L, R)
                if ml:
                    valid &= has_m[:, None]
                g = np.where(valid, g, -np.inf)
                pos = np.argmax(g, axis=1)
                gv = g[rows, pos]
                better = gv > best
                if not better.any():
                    continue
                best[better] = gv[better]
                if detail:
                    for c in np.flatnonzero(better):
                        info[c] = (j, None if order is None else order[c], int(pos[c]), ml,
                                   float(gv[c]))
        if not detail:
            return best, None
        splits = [None if inf is None else self._make_split(H[c], *inf)
                  for c, inf in enumerate(info)]
        return best, splits

    def _make_split(self, h, j, order, pos, ml, value):
        """A :class:`_Split` with its go-left table over binned values (greedy's routing)."""
        B = self.layout.max_width
        lo, w = int(self.layout.offsets[j]), int(self.layout.widths[j])
        cnt = h[lo : lo + w, self.obj.N]
        wts = h[lo : lo + w, self.obj.W]
        go = np.zeros(B, dtype=bool)
        if order is None:
            go[: pos + 1] = True
            go[w - 1 :] = False
        else:
            go[np.asarray(order[: pos + 1])] = True
        if cnt[w - 1] <= 0:  # no missing value here: missing follows the heavier child
            wl = wts[: w - 1][go[: w - 1]].sum()
            ml = bool(wl >= wts[: w - 1].sum() - wl)
        go[B - 1] = ml
        if self.is_cat[j]:
            absent = np.zeros(B - 1, dtype=bool)
            absent[: w - 1] = cnt[: w - 1] <= 0
            absent[w - 1 :] = True
            go[: B - 1][absent] = ml
        return _Split(j, go, bool(ml), value)

    def node_value(self, H):
        """Best depth-<=1 value of nodes ``H``: the leaf, or its best split when allowed."""
        o = self.obj
        tot = H[:, : int(self.layout.widths[0])].sum(axis=1)
        leaf = o.value(tot)
        split, _ = self.best_split(H)
        can = tot[:, o.N] >= self.mss
        return np.where(can & (split > leaf), split, leaf)

    # ------------------------------------------------------------------ solvers
    def solve(self, rows, depth, *, deadline=None):
        """Best tree of depth <= ``depth`` on ``rows``: ``(value, tree, bound)``.

        ``tree`` is nested: None for a leaf, else ``(split, left, right)``.
        """
        H1 = self.hist1(rows)[None]
        o = self.obj
        tot = H1[0, : int(self.layout.widths[0])].sum(axis=0)
        leaf = float(o.value(tot))
        if depth <= 0 or tot[o.N] < self.mss:
            return leaf, None, leaf
        if depth == 1:
            v, splits = self.best_split(H1, detail=True)
            if splits[0] is not None and v[0] > leaf:
                return float(v[0]), (splits[0], None, None), float(v[0])
            return leaf, None, leaf
        if depth == 2:
            best, _ = self._depth2(rows, H1[0], want_candidates=False)
            return self._finish2(rows, H1[0], leaf, best)
        return self._depth3(rows, H1[0], leaf, depth, deadline)

    def _depth2(self, rows, H1, want_candidates=False):
        """Scan every root candidate with exact depth-1 children.

        Returns the best ``(value, j, order, pos, ml)`` and, when asked, the per-line
        candidate arrays ``(j, order, ml, values (b,), lhs (b, K))``.
        """
        o = self.obj
        best = (-np.inf, None)
        lines = []
        prep = self._prep(rows)
        bar = self._bar if rows is None else NO_BAR  # the root's scan shows progress
        bar.reset(total=self.n_features)
        bar.set_description_str("exact search: root splits, by input")
        for f in range(self.n_features):
            bar.update(1)
            H2 = self.hist2(rows, f, prep)  # (w_f, n_cells, K)
            wf = H2.shape[0]
            Hn, Hm = H2[: wf - 1], H2[wf - 1]
            root_f = H1[None, int(self.layout.offsets[f]) : int(self.layout.offsets[f + 1])]
            has_m = root_f[0, wf - 1, o.N] > 0
            orders = self._orders(f, root_f[:, : wf - 1])
            for order in orders:
                Hs = Hn if order is None else Hn[order[0]]
                cum = np.cumsum(Hs, axis=0)  # (b, n_cells, K)
                for ml in (False, True):
                    if ml and not has_m:
                        break
                    Lh = cum + Hm[None] if ml else cum
                    Rh = H1[None] - Lh
                    lf = Lh[:, int(self.layout.offsets[f]) : int(self.layout.offsets[f + 1])]
                    ltot = lf.sum(axis=1)
                    rtot = root_f[0].sum(axis=0)[None] - ltot
                    valid = self._valid(ltot, rtot)
                    vals = np.full(ltot.shape[0], -np.inf)
                    if valid.any():
                        idx = np.flatnonzero(valid)
                        vl = self.node_value(Lh[idx])
                        vr = self.node_value(Rh[idx])
                        vals[idx] = vl + vr
                    k = int(np.argmax(vals))
                    if vals[k] > best[0]:
                        best = (float(vals[k]), (f, None if order is None else order[0], k, ml))
                    if want_candidates:
                        lines.append((f, None if order is None else order[0], ml, vals, ltot,
                                      rtot))
        return best, lines

    def _children_rows(self, rows, split):
        rows = np.arange(self.Xb.shape[0]) if rows is None else rows
        go = split.go_left[self.Xb[rows, split.feature]]
        return rows[go], rows[~go]

    def _root_split(self, H1, f, order, pos, ml, value):
        return self._make_split(H1, f, order, pos, ml, value)

    def _finish2(self, rows, H1, leaf, best):
        value, arg = best
        if arg is None or not value > leaf:
            return leaf, None, leaf
        split = self._root_split(H1, *arg, value)
        trees = []
        for sub in self._children_rows(rows, split):
            v, t, _ = self.solve(sub, 1)
            trees.append(t)
        return value, (split, trees[0], trees[1]), value

    def _depth3(self, rows, H1, leaf, depth, deadline):
        o = self.obj
        best2, lines = self._depth2(rows, H1, want_candidates=True)
        inc_value, inc_tree, _ = self._finish2(rows, H1, leaf, best2)
        cand = [(li, int(k)) for li, line in enumerate(lines)
                for k in np.flatnonzero(np.isfinite(line[3]))]
        if not cand:
            return inc_value, inc_tree, inc_value
        li_arr = np.array([c[0] for c in cand])
        k_arr = np.array([c[1] for c in cand])
        la = np.array([lines[li][3][k] for li, k in cand])
        lt = np.array([lines[li][4][k] for li, k in cand])  # (m, K) left sums
        rt = np.array([lines[li][5][k] for li, k in cand])
        # optimistic bound of each child: the sum of its rows' best contributions; a
        # child too small to split is a leaf whose value is known
        ub_l = np.where(lt[:, o.N] < self.mss, o.value(lt), lt[:, o.HI])
        ub_r = np.where(rt[:, o.N] < self.mss, o.value(rt), rt[:, o.HI])
        # adding rows can only be bounded when sub-trees stay feasible on fewer rows
        grow_ok = o.argmax_rule and self.msl == 1 and self.mss <= 2
        solved = np.zeros(len(cand), dtype=bool)
        scale = max(abs(inc_value), float(np.abs(lt[:, o.HI] + rt[:, o.HI]).max()), 1.0)
        tol = _REL_TOL * scale
        bar = self._bar if rows is None else NO_BAR
        bar.reset(total=len(cand))
        bar.set_description_str(f"exact search: depth-{depth} subtrees of root splits")
        while True:
            ub = ub_l + ub_r
            open_ub = np.where(~solved, ub, -np.inf)
            top = open_ub.max()
            bar.set_postfix_str(f"best {inc_value:.6g}, bound {max(top, inc_value):.6g}",
                                refresh=False)
            if top <= inc_value + tol:
                return inc_value, inc_tree, float(max(inc_value, ub.max()))
            if deadline is not None and time.perf_counter() > deadline:
                return inc_value, inc_tree, float(max(inc_value, ub.max()))
            # most promising: highest bound, then highest lookahead value
            pick_from = np.flatnonzero(open_ub >= top - tol)
            i = int(pick_from[np.argmax(la[pick_from])])
            li, k = cand[i]
            f, order, ml = lines[li][0], lines[li][1], lines[li][2]
            split = self._root_split(H1, f, order, k, ml, 0.0)
            lrows, rrows = self._children_rows(rows, split)
            vl, tl, bl = self.solve(lrows, depth - 1, deadline=deadline)
            vr, tr, br = self.solve(rrows, depth - 1, deadline=deadline)
            solved[i] = True
            bar.update(1)
            ub_l[i], ub_r[i] = min(ub_l[i], bl), min(ub_r[i], br)
            if vl + vr > inc_value:
                split.value = vl + vr
                inc_value, inc_tree = vl + vr, (split, tl, tr)
            if not o.argmax_rule:
                continue
            same = np.flatnonzero((li_arr == li) & ~solved)
            if not same.size:
                continue
            # candidates of one line are prefixes of one sequence: for k' > k the left
            # child gains the block B between them and the right child loses it.
            # V(S minus B) <= V(S) - lo(B); V(S plus B) <= V(S) + hi(B)
            after = k_arr[same] > k
            shrink_l = ub_l[i] - (lt[i, o.LO] - lt[same, o.LO])
            shrink_r = ub_r[i] - (rt[i, o.LO] - rt[same, o.LO])
            grow_l = ub_l[i] + (lt[same, o.HI] - lt[i, o.HI])
            grow_r = ub_r[i] + (rt[same, o.HI] - rt[i, o.HI])
            new_l = np.where(after, grow_l if grow_ok else np.inf, shrink_l)
            new_r = np.where(after, shrink_r, grow_r if grow_ok else np.inf)
            ub_l[same] = np.minimum(ub_l[same], new_l)
            ub_r[same] = np.minimum(ub_r[same], new_r)


def exact_tree(X_binned, binner, objective, *, max_depth, min_samples_leaf,
               min_samples_split, time_limit=None):
    """Search the best tree; return ``(tree, value, bound)`` (``tree`` nested)."""
    search = ExactSearch(X_binned, binner, objective, min_samples_leaf=min_samples_leaf,
                         min_samples_split=min_samples_split)
    deadline = None if time_limit is None else time.perf_counter() + float(time_limit)
    # with the package's verbose (dtdecide.get_config), a bar of the root's scan and,
    # from depth 3, of the root splits whose subtrees are solved (best and bound shown)
    with progress_bar(desc="exact search", unit="step", verbose=None) as bar:
        search._bar = bar
        try:
            value, tree, bound = search.solve(None, max_depth, deadline=deadline)
        finally:
            search._bar = NO_BAR
    return search, tree, value, bound


def build_structure(search, nested, binner, *, target, n_classes, F, criterion,
                    loss_matrix=None, class_weight=None):
    """Turn a nested search result into a :class:`TreeStructure` (node sums from rows)."""
    Xb = search.Xb
    n = Xb.shape[0]
    # breadth-first ids: children always after their parents
    nodes = [(nested, -1, 0)]
    recs = []
    queue = 0
    while queue < len(nodes):
        t, par, dep = nodes[queue]
        recs.append([t, par, dep, -1, -1])
        if t is not None:
            me = queue
            recs[me][3] = len(nodes)
            nodes.append((t[1], me, dep + 1))
            recs[me][4] = len(nodes)
            nodes.append((t[2], me, dep + 1))
        queue += 1
    m = len(recs)
    cat_bins = binner.n_bins_[binner.is_categorical_]
    cat_width = int(cat_bins.max()) if cat_bins.size else 0
    left = np.array([r[3] for r in recs], dtype=np.intp)
    right = np.array([r[4] for r in recs], dtype=np.intp)
    parent = np.array([r[1] for r in recs], dtype=np.intp)
    depth = np.array([r[2] for r in recs], dtype=np.intp)
    feature = np.full(m, -1, dtype=np.intp)
    threshold = np.full(m, np.nan)
    is_cat = np.zeros(m, dtype=bool)
    cat_left = np.zeros((m, cat_width), dtype=bool)
    missing_left = np.zeros(m, dtype=bool)
    node_of_row = np.zeros(n, dtype=np.intp)
    for i, r in enumerate(recs):
        t = r[0]
        if t is None:
            continue
        s = t[0]
        j = s.feature
        feature[i] = j
        missing_left[i] = s.missing_left
        if binner.is_categorical_[j]:
            is_cat[i] = True
            cat_left[i] = s.go_left[:cat_width]
        else:
            nb = int(binner.n_bins_[j])
            last = int(np.flatnonzero(s.go_left[:nb]).max()) if s.go_left[:nb].any() else -1
            threshold[i] = binner.bin_thresholds_[j][last] if last >= 0 else -np.inf
        here = node_of_row == i
        go = s.go_left[Xb[:, j]]
        node_of_row[here & go] = left[i]
        node_of_row[here & ~go] = right[i]
    if n_classes is not None:
        onehot = np.zeros((n, n_classes))
        onehot[np.arange(n), target] = F
        sums = _leaf.leaf_sums(node_of_row, onehot, m)
    else:
        y = np.asarray(target, dtype=_FLOAT)
        sums = _leaf.leaf_sums(node_of_row, np.column_stack([F, F * y, F * y * y]), m)
    sums = _leaf.propagate_up(sums, parent, depth)
    counts = _leaf.propagate_up(
        np.bincount(node_of_row, minlength=m).astype(np.int64), parent, depth
    )
    crit = sums * class_weight if class_weight is not None else sums
    if n_classes is None:
        W, S1, S2 = sums[:, 0], sums[:, 1], sums[:, 2]
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = np.where(W > 0, S1 / np.where(W > 0, W, 1.0), 0.0)
        crit = np.column_stack([W, S1 - W * mean, np.maximum(S2 - S1 * mean, 0.0)])
    imp = _impurity(crit, criterion, loss_matrix)
    return TreeStructure.from_splits(
        (left, right, parent, depth, feature, threshold, is_cat, cat_left, missing_left),
        n_node_samples=counts,
        weighted_n_node_samples=sums.sum(axis=1) if n_classes is not None else sums[:, 0],
        value=sums,
        impurity=imp,
    )
