"""Routing rows down a tree's node arrays: the NumPy apply kernels.

Layer 1 (kernels) of :mod:`dtdecide.tree` (``_kernels``); see the architecture page.

:class:`Router` holds the routing tables of one tree (built once from its node arrays:
leaves pointing to themselves, per-node lookup rows for categorical splits) and routes
blocks of encoded rows: :meth:`Router.route_fixed` in ``max_depth`` fixed steps (the fast
path) and :meth:`Router.route_levels` level by level (its slow twin, and the path that
records every node a row passes for ``decision_path``). Arrays in, arrays out;
:class:`~dtdecide.tree._structure._tree.TreeStructure` owns a router and calls it; the
compiled walks (:func:`~dtdecide.tree._kernels._compiled.apply_fixed`,
:func:`~dtdecide.tree._kernels._compiled.apply_flat` for numeric trees and
:func:`~dtdecide.tree._kernels._compiled_apply.apply_flat_cat` for trees with categorical
splits, from :meth:`Router.flat_records`) are the third twin.
"""

import numpy as np

from ..._dtypes import NODE_DTYPE

__all__ = ["Router"]


class Router:
    """Routing tables of one tree's node arrays (read-only; see the module docstring).

    Parameters
    ----------
    children_left, children_right, feature : ndarray of intp, shape (n_nodes,)
    threshold : ndarray of float64, shape (n_nodes,)
    is_categorical, missing_left : ndarray of bool, shape (n_nodes,)
    cat_left : ndarray of bool, shape (n_nodes, max_n_categories)
    max_depth : int
    """

    def __init__(self, children_left, children_right, feature, threshold, is_categorical,
                 cat_left, missing_left, max_depth):
        self.children_left, self.children_right = children_left, children_right
        self.feature, self.threshold = feature, threshold
        self.is_categorical, self.cat_left = is_categorical, cat_left
        self.missing_left, self.max_depth = missing_left, int(max_depth)
        n_nodes = children_left.shape[0]
        self.is_leaf = children_left < 0
        # routing tables where a leaf points to itself, so that every row can take the
        # same number of steps without compaction (see route_fixed)
        ids = np.arange(n_nodes, dtype=NODE_DTYPE)
        children = np.empty((n_nodes, 2), dtype=NODE_DTYPE)
        children[:, 0] = np.where(self.is_leaf, ids, children_left)
        children[:, 1] = np.where(self.is_leaf, ids, children_right)
        self.children = children.ravel()
        self.route_feature = np.where(self.is_leaf, 0, feature)
        self.route_threshold = np.where(self.is_leaf, np.inf, threshold)
        self.has_cat = bool(is_categorical.any())
        num_features = np.unique(feature[~self.is_leaf & ~is_categorical])
        cat_features = np.unique(feature[is_categorical])
        # a column split both ways (only in hand-built trees) has no single cell code:
        # such trees route level by level
        self.mixed = bool(np.intersect1d(num_features, cat_features).size)
        self.tables = None
        self.cat_features = cat_features
        self.num_features = num_features
        if self.has_cat and not self.mixed:
            self.tables = self.lookup_tables()

    def lookup_tables(self):
        """Tables of the fixed-step routing of trees with categorical splits.

        Every used column gets a small integer *cell* per row (:meth:`_lookup_cells`):
        at a numeric column 0, or 1 for NaN; at a categorical column the code when it is
        an integer in ``[0, n_cat)``, else ``n_cat`` (NaN, unseen, negative, infinite or
        non-integer codes). Node ``i`` owns the row ``lookup[base[i] : base[i] + cells]``
        saying whether each cell goes right *regardless* of the comparison ``x >
        threshold``: numeric nodes ``[False, not missing_left]``, categorical nodes
        ``not cat_left`` then ``not missing_left`` (their threshold is NaN, so the
        comparison is always False). Leaves share an all-False row (they route to
        themselves).

        Returns
        -------
        threshold : ndarray of float64
            Per node; NaN at categorical nodes, ``+inf`` at leaves.
        base : ndarray of intp
        lookup : ndarray of bool
        """
        n_cat = self.cat_left.shape[1]
        split = ~self.is_leaf
        cat = self.is_categorical
        width = np.where(cat, n_cat + 1, 2)
        width[self.is_leaf] = 0
        base = np.concatenate([[0], np.cumsum(width)[:-1]]).astype(NODE_DTYPE)
        leaf_base = int(width.sum())
        base[self.is_leaf] = leaf_base
        lookup = np.zeros(leaf_base + max(n_cat + 1, 2), dtype=bool)
        numeric = np.flatnonzero(split & ~cat)
        lookup[base[numeric] + 1] = ~self.missing_left[numeric]
        cat_nodes = np.flatnonzero(cat)
        cells = base[cat_nodes, None] + np.arange(n_cat + 1)
        lookup[cells[:, :n_cat]] = ~self.cat_left[cat_nodes]
        lookup[cells[:, n_cat]] = ~self.missing_left[cat_nodes]
        threshold = np.where(cat, np.nan, self.route_threshold)
        return threshold, base, lookup

    def flat_records(self):
        """Node records of the compiled flat walk of any tree (built on first use).

        The tables of :func:`~dtdecide.tree._kernels._compiled_apply.apply_flat_cat`,
        the compiled twin of :meth:`route_fixed` for trees with categorical splits.

        Returns
        -------
        rec : ndarray of intp, shape (n_nodes, 5)
            ``(feature, left, right, missing_left, n_cat_v)`` per node (a leaf points to
            itself): ``n_cat_v`` is ``n_cat`` at a categorical node and 0 elsewhere, so
            that no code is valid at a numeric node.
        threshold : ndarray of float64, shape (n_nodes,)
            The routing threshold: NaN at categorical nodes (no value compares
            ``<=``), ``+inf`` at leaves.
        goes_left : ndarray of uint8, shape (n_nodes * n_cat,)
            ``cat_left`` flattened: node ``v``'s codes start at ``v * n_cat``.

        Examples
        --------
        >>> import numpy as np
        >>> router = Router(np.array([1, -1, -1]), np.array([2, -1, -1]),
        ...                 np.array([0, -1, -1]), np.array([np.nan, -2.0, -2.0]),
        ...                 np.array([True, False, False]),
        ...                 np.array([[True, False], [False, False], [False, False]]),
        ...                 np.array([False, False, False]), 1)
        >>> rec, threshold, goes_left = router.flat_records()
        >>> rec.tolist(), threshold.tolist(), goes_left.tolist()
        ([[0, 1, 2, 0, 2], [0, 1, 1, 0, 0], [0, 2, 2, 0, 0]], [nan, inf, inf], [1, 0, 0, 0, 0, 0])
        """
        records = getattr(self, "_flat_records", None)
        if records is None:
            rec = np.empty((self.feature.shape[0], 5), dtype=np.intp)
            rec[:, 0] = self.route_feature
            rec[:, 1] = self.children[0::2]
            rec[:, 2] = self.children[1::2]
            rec[:, 3] = self.missing_left
            rec[:, 4] = np.where(self.is_categorical, self.cat_left.shape[1], 0)
            threshold = np.where(self.is_categorical, np.nan, self.route_threshold)
            goes_left = np.ascontiguousarray(self.cat_left, dtype=np.uint8).ravel()
            records = self._flat_records = rec, threshold, goes_left
        return records

    def lookup_cells(self, X_T):
        """Cells of every used column of a block given column-major, shape (F, n).

        See :meth:`lookup_tables`. Categorical codes are cast to integers once;
        anything the cast changes (NaN, infinities, fractions) and anything outside
        ``[0, n_cat)`` gets ``n_cat``.
        """
        n_cat = self.cat_left.shape[1]
        cells = np.zeros(X_T.shape, dtype=NODE_DTYPE)
        for f in self.num_features:
            cells[f] = np.isnan(X_T[f])
        for f in self.cat_features:
            code = X_T[f]
            out = cells[f]
            with np.errstate(invalid="ignore"):
                out[...] = code.astype(NODE_DTYPE)
            out[out != code] = n_cat
            # negative codes wrap to huge unsigned values: clip them with the large ones
            np.minimum(out.view(np.uintp), n_cat, out=out.view(np.uintp))
        return cells

    def _walk_lists(self):
        """The node arrays as Python lists, built on the first few-row call."""
        lists = getattr(self, "_lists", None)
        if lists is None:
            lists = self._lists = (
                self.children_left.tolist(), self.children_right.tolist(),
                self.feature.tolist(), self.threshold.tolist(),
                self.is_categorical.tolist(), self.missing_left.tolist(),
                self.cat_left.tolist(), int(self.cat_left.shape[1]),
            )
        return lists

    def route_rows(self, X):
        """Leaf ids of a few rows, walked one row at a time in Python.

        For online scoring (one or a few cases a call), where the vectorised passes'
        fixed cost is most of the time. The same rules as :meth:`route_levels`, its
        twin in the tests: a numeric node sends ``x <= threshold`` left and NaN to
        ``missing_left``; a categorical node looks an integer code in ``[0, n_cat)``
        up in ``cat_left`` and sends anything else (NaN, unseen, fractional, negative)
        to ``missing_left``.
        """
        left, right, feature, threshold, is_cat, missing_left, cat_left, n_cat = (
            self._walk_lists())
        out = np.empty(X.shape[0], dtype=NODE_DTYPE)
        for i, row in enumerate(np.asarray(X).tolist()):
            node = 0
            while left[node] >= 0:
                x = row[feature[node]]
                if is_cat[node]:
                    if x == x and 0 <= x < n_cat and x == int(x):
                        go_left = cat_left[node][int(x)]
                    else:
                        go_left = missing_left[node]
                elif x != x:  # NaN
                    go_left = missing_left[node]
                else:
                    go_left = x <= threshold[node]
                node = left[node] if go_left else right[node]
            out[i] = node
        return out

    def route_levels(self, X, record=None):
        """Leaf ids of the rows of ``X`` (one block), iterating over depth levels."""
        n = X.shape[0]
        node = np.zeros(n, dtype=NODE_DTYPE)
        if record is not None:
            record.append(node.copy())
        active = np.arange(n) if not self.is_leaf[0] else np.empty(0, dtype=np.intp)
        has_cat = bool(self.is_categorical.any())
        n_cat = self.cat_left.shape[1]
        while active.size:
            cur = node[active]
            feat = self.feature[cur]
            x = X[active, feat]
            is_nan = np.isnan(x)
            with np.errstate(invalid="ignore"):
                go_left = x <= self.threshold[cur]
            if has_cat:
                cat = self.is_categorical[cur]
                if cat.any():
                    pos = np.flatnonzero(cat)
                    code = x[pos]
                    ok = (code >= 0) & (code < n_cat) & (code == np.floor(code))
                    # NaN fails every comparison above, so `ok` is False for it.
                    code_int = np.where(ok, code, 0).astype(np.intp)
                    in_left = self.cat_left[cur[pos], code_int]
                    go_left[pos] = np.where(ok, in_left, self.missing_left[cur[pos]])
                    is_nan[pos] = False
            if is_nan.any():
                go_left = np.where(is_nan, self.missing_left[cur], go_left)
            nxt = np.where(go_left, self.children_left[cur], self.children_right[cur])
            node[active] = nxt
            if record is not None:
                step = np.full(n, -1, dtype=NODE_DTYPE)
                step[active] = nxt
                record.append(step)
            active = active[~self.is_leaf[nxt]]
        return node

    def route_fixed(self, X):
        """Leaf ids of the rows of a C-ordered block, in ``max_depth`` fixed steps.

        Every row takes one step per depth level (a leaf routes to itself), so no
        compaction of the active rows is needed. Numeric trees compare ``x > threshold``
        (NaN: ``missing_left``); trees with categorical splits turn every value into a
        small integer cell once per block and then only look up, per node, whether the
        cell goes right (:meth:`lookup_tables`). The level-by-level
        :meth:`route_levels` and the per-row rules in the tests are the slow twins it
        must agree with.
        """
        n, n_features = X.shape
        node = np.zeros(n, dtype=NODE_DTYPE)
        if self.is_leaf[0]:
            return node
        row_base = np.arange(n, dtype=NODE_DTYPE) * n_features
        flat_X = X.ravel()
        feature, threshold = self.route_feature, self.route_threshold
        children, missing_left = self.children, self.missing_left
        if self.tables is not None:
            threshold, base, lookup = self.tables
            X_T = np.ascontiguousarray(X.T)
            flat_X, flat_cells = X_T.ravel(), self.lookup_cells(X_T).ravel()
            column_start = feature * n  # cell (f, r) of the column-major block: f * n + r
            rows = np.arange(n, dtype=NODE_DTYPE)
            for _ in range(self.max_depth):
                at = column_start.take(node)
                at += rows
                go_right = flat_X.take(at) > threshold.take(node)
                cell = flat_cells.take(at)
                cell += base.take(node)
                go_right |= lookup.take(cell)
                node *= 2
                node += go_right
                node = children.take(node)
            return node
        used = np.unique(self.feature[~self.is_leaf])
        has_nan = bool(np.isnan(X[:, used]).any())
        for _ in range(self.max_depth):
            x = flat_X.take(row_base + feature.take(node))
            go_right = x > threshold.take(node)
            if has_nan:
                nan = np.isnan(x)
                go_right[nan] = ~missing_left.take(node[nan])
            node *= 2
            node += go_right
            node = children.take(node)
        return node
