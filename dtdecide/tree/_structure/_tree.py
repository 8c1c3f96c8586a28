"""Frozen flat node arrays of a fitted tree (:class:`TreeStructure`).

Layer 2 (structure) of :mod:`dtdecide.tree` (``_structure``); see the architecture page.

The grower (:mod:`dtdecide.tree._algorithms._grower`) emits one :class:`TreeStructure`; every reader
(estimators, pruning, exports, plots, SQL) only reads it. Node ``0`` is the root and a
child always has a larger id than its parent, so a loop ``for node in range(n_nodes)``
visits parents before children.

Routing rules (used by :meth:`TreeStructure.apply` and, bin for bin, by the grower):

* numeric split: a row goes left when ``x <= threshold[node]``;
* categorical split: a row with integer code ``c`` goes left when ``cat_left[node, c]``;
* NaN, a non-integer or negative code, or a code ``>= cat_left.shape[1]`` (a category never
  seen in training) follows ``missing_left[node]``.

A numeric threshold can be ``+inf``: the split then separates the non-missing values
(left) from the missing ones (right, ``missing_left`` False). Thresholds are midpoints
between two training values (see :mod:`dtdecide.tree._kernels._binning`).

Leaves have ``feature == -1``, ``children_left == children_right == -1``, ``threshold ==
NaN``, ``is_categorical == False``, an all-False ``cat_left`` row and ``missing_left ==
False``.
"""

import numpy as np

from ..._dtypes import COUNT_DTYPE, FLAG_DTYPE, NODE_DTYPE, STAT_DTYPE, THRESHOLD_DTYPE
from ..._jit import use_compiled
from .._kernels._apply import Router
from .._kernels._binning import check_float_matrix

__all__ = ["TreeStructure"]

_NODE_FIELDS = (
    "children_left",
    "children_right",
    "parent",
    "depth",
    "feature",
)
_REQUIRED = (
    *_NODE_FIELDS,
    "threshold",
    "is_categorical",
    "cat_left",
    "missing_left",
    "n_node_samples",
    "weighted_n_node_samples",
    "value",
    "impurity",
)
_OPTIONAL = ("cost_sum", "profit_sum", "node_decision", "node_expected")
#: the arrays that say where every node splits and which nodes are its children, in the
#: order :meth:`TreeStructure.from_splits` takes them
SPLIT_FIELDS = _REQUIRED[:9]
_DTYPES = {
    "children_left": NODE_DTYPE,
    "children_right": NODE_DTYPE,
    "parent": NODE_DTYPE,
    "depth": NODE_DTYPE,
    "feature": NODE_DTYPE,
    "threshold": THRESHOLD_DTYPE,
    "is_categorical": FLAG_DTYPE,
    "cat_left": FLAG_DTYPE,
    "missing_left": FLAG_DTYPE,
    "n_node_samples": COUNT_DTYPE,
    "weighted_n_node_samples": STAT_DTYPE,
    "value": STAT_DTYPE,
    "impurity": STAT_DTYPE,
    "cost_sum": STAT_DTYPE,
    "profit_sum": STAT_DTYPE,
    "node_decision": NODE_DTYPE,
    "node_expected": STAT_DTYPE,
}
_NDIM = {
    "cat_left": (2,),
    "value": (2,),
    "cost_sum": (2,),
    "profit_sum": (2, 3),
    "node_expected": (2,),
}
_STATE_VERSION = 1
# Rows routed per block in apply(): keeps the working set of each vectorised step in
# cache and bounds temporary memory to a few arrays of this length.
_APPLY_BLOCK = 1 << 12
# Up to this many rows, apply walks each row in Python (Router.route_rows): one or a
# few cases at a time (online scoring) cost less than the vectorised passes' setup.
_FEW_ROWS = 16
_FLAT_MIN_ROWS = 64  # rows from which apply walks flat (apply_flat, apply_flat_cat)


def _flat_view(X):
    """``(F, row_stride, col_stride)``: the non-empty 2-D ``X`` as a read-only 1-D view
    ``F`` of the memory from its first to its last cell, with cell ``(r, f)`` at
    ``F[r * row_stride + f * col_stride]`` (strides in items); None when a stride is
    negative or not a whole number of items (then :func:`apply_fixed` reads it).

    A column-ordered block of a pandas frame (rows ``start:stop`` of one float64 block,
    columns ``n_rows`` items apart) is read in place; the view spans the other rows
    between its columns, which lie in the same buffer and are never read.
    """
    item = X.itemsize
    rs, cs = X.strides
    if X.shape[1] == 0 or rs < 0 or cs < 0 or rs % item or cs % item:
        return None
    rs, cs = rs // item, cs // item
    span = (X.shape[0] - 1) * rs + (X.shape[1] - 1) * cs + 1
    flat = np.lib.stride_tricks.as_strided(X, shape=(span,), strides=(item,),
                                           writeable=False)
    return flat, rs, cs


class TreeStructure:
    """Frozen flat node arrays of a fitted decision tree.

    Every field is a numpy array of length ``n_nodes`` along its first axis (see the
    developer contract, ``docs/dev/contracts.md`` section 2). Arrays are converted to
    their canonical dtype, checked for consistency and made read-only.

    Parameters
    ----------
    children_left, children_right : array-like of int, shape (n_nodes,)
        Child ids, ``-1`` for a leaf. Children have larger ids than their parent.
    parent : array-like of int, shape (n_nodes,)
        Parent id, ``-1`` for the root (node 0).
    depth : array-like of int, shape (n_nodes,)
        Depth of the node, ``0`` for the root.
    feature : array-like of int, shape (n_nodes,)
        Input column used by the split, ``-1`` for a leaf.
    threshold : array-like of float, shape (n_nodes,)
        Numeric split: ``x <= threshold`` goes left (a raw value). NaN for leaves and
        categorical splits.
    is_categorical : array-like of bool, shape (n_nodes,)
        Whether the node splits a categorical input.
    cat_left : array-like of bool, shape (n_nodes, max_n_categories)
        For categorical splits, whether category code ``c`` goes left.
    missing_left : array-like of bool, shape (n_nodes,)
        Where NaN and unseen categories go.
    n_node_samples : array-like of int, shape (n_nodes,)
        Training rows in the node.
    weighted_n_node_samples : array-like of float, shape (n_nodes,)
        Sum of training case weights in the node.
    value : array-like of float, shape (n_nodes, n_outputs)
        Classifier: weighted class counts. Regressor: ``[sum w, sum w*y, sum w*y**2]``.
    impurity : array-like of float, shape (n_nodes,)
        Node impurity under the growing criterion.
    cost_sum, profit_sum, node_decision, node_expected : array-like or None
        Optional decision statistics, see the contract; ``None`` without a decision matrix.

    Attributes
    ----------
    n_nodes : int
        Number of nodes.
    n_leaves : int
        Number of leaves.
    max_depth : int
        Largest node depth.

    Examples
    --------
    >>> import numpy as np
    >>> from dtdecide.tree._structure._tree import TreeStructure
    >>> tree = TreeStructure.from_arrays(
    ...     children_left=[1, -1, -1], children_right=[2, -1, -1],
    ...     feature=[0, -1, -1], threshold=[0.5, np.nan, np.nan],
    ...     missing_left=[True, False, False], n_node_samples=[4, 2, 2],
    ...     value=[[2.0, 2.0], [2.0, 0.0], [0.0, 2.0]], impurity=[0.5, 0.0, 0.0])
    >>> X = np.array([[0.0], [1.0], [np.nan]])
    >>> tree.apply(X).tolist()
    [1, 2, 1]
    >>> tree.decision_path(X).toarray().tolist()
    [[1, 1, 0], [1, 0, 1], [1, 1, 0]]
    >>> tree.n_leaves, tree.max_depth, tree.node_ids_at_depth(1).tolist()
    (2, 1, [1, 2])
    >>> tree.descendants_mask(0).tolist()
    [False, True, True]

    The subtree pruned to its root keeps the root's statistics, and ``replace``
    attaches decision statistics:

    >>> root = tree.subtree([True, False, False])
    >>> root.n_nodes, root.value.tolist(), root.kept_node_ids.tolist()
    (1, [[2.0, 2.0]], [0])
    >>> root.replace(node_decision=[1], node_expected=[[0.5, 2.0]]).node_decision.tolist()
    [1]
    """

    def __init__(
        self,
        *,
        children_left,
        children_right,
        parent,
        depth,
        feature,
        threshold,
        is_categorical,
        cat_left,
        missing_left,
        n_node_samples,
        weighted_n_node_samples,
        value,
        impurity,
        cost_sum=None,
        profit_sum=None,
        node_decision=None,
        node_expected=None,
    ):
        fields = dict(
            children_left=children_left,
            children_right=children_right,
            parent=parent,
            depth=depth,
            feature=feature,
            threshold=threshold,
            is_categorical=is_categorical,
            cat_left=cat_left,
            missing_left=missing_left,
            n_node_samples=n_node_samples,
            weighted_n_node_samples=weighted_n_node_samples,
            value=value,
            impurity=impurity,
            cost_sum=cost_sum,
            profit_sum=profit_sum,
            node_decision=node_decision,
            node_expected=node_expected,
        )
        self._set_fields(fields)

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_arrays(
        cls,
        *,
        children_left,
        children_right,
        feature,
        threshold,
        n_node_samples,
        value,
        impurity,
        missing_left=None,
        is_categorical=None,
        cat_left=None,
        weighted_n_node_samples=None,
        **decision_stats,
    ):
        """Build a tree from child arrays, deriving ``parent`` and ``depth``.

        Convenience constructor for tests and hand-built trees: ``missing_left`` defaults
        to all False, ``is_categorical`` to all False, ``cat_left`` to an empty
        ``(n_nodes, 0)`` table and ``weighted_n_node_samples`` to ``value.sum(axis=1)``.

        Returns
        -------
        TreeStructure

        Examples
        --------
        >>> from dtdecide.tree._structure._tree import TreeStructure
        >>> t = TreeStructure.from_arrays(children_left=[-1], children_right=[-1],
        ...     feature=[-1], threshold=[float("nan")], n_node_samples=[3],
        ...     value=[[1.0, 2.0]], impurity=[0.44])
        >>> t.n_nodes, t.parent.tolist(), t.depth.tolist()
        (1, [-1], [0])
        """
        left = np.asarray(children_left, dtype=NODE_DTYPE)
        right = np.asarray(children_right, dtype=NODE_DTYPE)
        n_nodes = left.shape[0]
        parent = np.full(n_nodes, -1, dtype=NODE_DTYPE)
        depth = np.zeros(n_nodes, dtype=NODE_DTYPE)
        for node in range(n_nodes):  # tiny hand-built trees only
            for child in (left[node], right[node]):
                if child >= 0:
                    if child <= node or child >= n_nodes:
                        raise ValueError(
                            f"children_left/children_right: child {child} of node {node} "
                            "must have a larger id than its parent and exist"
                        )
                    parent[child] = node
                    depth[child] = depth[node] + 1
        value = np.asarray(value, dtype=STAT_DTYPE)
        if missing_left is None:
            missing_left = np.zeros(n_nodes, dtype=FLAG_DTYPE)
        if is_categorical is None:
            is_categorical = np.zeros(n_nodes, dtype=FLAG_DTYPE)
        if cat_left is None:
            cat_left = np.zeros((n_nodes, 0), dtype=FLAG_DTYPE)
        if weighted_n_node_samples is None:
            weighted_n_node_samples = value.sum(axis=1) if value.ndim == 2 else value
        return cls.from_splits(
            (left, right, parent, depth, feature, threshold, is_categorical, cat_left,
             missing_left),
            n_node_samples=n_node_samples, weighted_n_node_samples=weighted_n_node_samples,
            value=value, impurity=impurity, **decision_stats,
        )

    @classmethod
    def from_splits(cls, splits, *, n_node_samples, weighted_n_node_samples, value, impurity,
                    **decision_stats):
        """Build a tree from its split arrays, given in :data:`SPLIT_FIELDS` order, and
        its node counts and sums (the one constructor of the growers).

        Returns
        -------
        TreeStructure
        """
        return cls(**dict(zip(SPLIT_FIELDS, splits, strict=True)),
                   n_node_samples=n_node_samples,
                   weighted_n_node_samples=weighted_n_node_samples, value=value,
                   impurity=impurity, **decision_stats)

    def replace(self, **fields):
        """Return a validated copy with some fields replaced.

        Typical use: attach or update decision statistics
        (``tree.replace(node_decision=..., node_expected=...)``).

        Returns
        -------
        TreeStructure
        """
        unknown = set(fields) - set(_REQUIRED) - set(_OPTIONAL)
        if unknown:
            raise TypeError(f"replace() got unknown TreeStructure fields {sorted(unknown)}")
        if fields and set(fields) <= set(_OPTIONAL):
            return self._with_decision_fields(fields)
        state = {name: getattr(self, name) for name in (*_REQUIRED, *_OPTIONAL)}
        state.update(fields)
        return type(self)(**state)

    def _with_decision_fields(self, fields):
        """:meth:`replace` of decision statistics alone (:data:`_OPTIONAL`): the new
        tree shares this one's validated, read-only split and node arrays and its
        router, and only the new fields are converted and checked (dtype, ndim, one row
        per node, ``node_decision`` with ``node_expected``), as the constructor would:
        the same tree, without validating and copying the unchanged arrays again (two
        such calls a fit)."""
        arrays = {name: getattr(self, name) for name in _OPTIONAL}
        for name, raw in fields.items():
            arrays[name] = None if raw is None else _field_array(name, raw)
        _check_lengths(arrays, self.n_nodes)
        _check_decision_pair(arrays)
        new = object.__new__(type(self))
        for name in _REQUIRED:
            setattr(new, name, getattr(self, name))
        for name, arr in arrays.items():
            if arr is not None and name in fields:
                arr.setflags(write=False)
            setattr(new, name, arr)
        for name in ("_router", "_is_leaf", "_route_mixed", "_n_columns_needed"):
            setattr(new, name, getattr(self, name))
        return new

    def _set_fields(self, fields):
        missing = [name for name in _REQUIRED if fields.get(name) is None]
        if missing:
            raise ValueError(f"TreeStructure is missing required fields {missing}")
        arrays = {}
        for name in (*_REQUIRED, *_OPTIONAL):
            raw = fields.get(name)
            arrays[name] = None if raw is None else _field_array(name, raw)
        _validate(arrays)
        for name, arr in arrays.items():
            if arr is not None:
                arr.setflags(write=False)
            setattr(self, name, arr)
        self._router = Router(self.children_left, self.children_right, self.feature,
                              self.threshold, self.is_categorical, self.cat_left,
                              self.missing_left, self.max_depth)
        self._is_leaf = self._router.is_leaf
        self._route_mixed = self._router.mixed
        self._n_columns_needed = int(self.feature.max()) + 1 if self.n_nodes else 0

    # ------------------------------------------------------------------ properties
    @property
    def n_nodes(self):
        """Number of nodes."""
        return int(self.children_left.shape[0])

    @property
    def n_leaves(self):
        """Number of leaves."""
        return int(np.count_nonzero(self._is_leaf))

    @property
    def max_depth(self):
        """Depth of the deepest node (0 for a single-leaf tree)."""
        return int(self.depth.max())

    @property
    def is_leaf(self):
        """Boolean mask of leaves, shape (n_nodes,)."""
        return self._is_leaf.copy()

    @property
    def has_decision_stats(self):
        """Whether decision statistics (``node_decision`` ...) are attached."""
        return self.node_decision is not None

    def node_ids_at_depth(self, depth):
        """Ids of the nodes at a given depth, ascending."""
        return np.flatnonzero(self.depth == depth)

    def descendants_mask(self, node):
        """Boolean mask of the strict descendants of ``node``."""
        node = int(node)
        if not 0 <= node < self.n_nodes:
            raise ValueError(f"node must be in [0, {self.n_nodes}); got {node}")
        inside = np.zeros(self.n_nodes, dtype=bool)
        inside[node] = True
        for child in range(node + 1, self.n_nodes):  # parents precede children
            inside[child] = inside[self.parent[child]]
        inside[node] = False
        return inside

    # ------------------------------------------------------------------ routing
    def _check_X(self, X):
        X = check_float_matrix(X, "X_encoded")
        n_needed = self._n_columns_needed
        if X.shape[1] < n_needed:
            raise ValueError(
                f"X_encoded has {X.shape[1]} columns; the tree splits on column "
                f"{n_needed - 1}"
            )
        return X

    def _route_block(self, X, record=None):
        """Leaf ids of the rows of ``X`` (one block), iterating over depth levels (the
        slow twin of the fixed-step routing; see :class:`~dtdecide.tree._kernels._apply.Router`)."""
        return self._router.route_levels(X, record)

    def apply(self, X_encoded, n_threads=1):
        """Leaf id of each row.

        Parameters
        ----------
        X_encoded : ndarray of shape (n_samples, n_features)
            float64 matrix: raw values for numeric columns, integer category codes for
            categorical columns, NaN for missing or unseen categories.
        n_threads : int, default=1
            Threads that share the rows (contiguous ranges) when the compiled kernels
            run; the result does not depend on it.

        Returns
        -------
        ndarray of intp, shape (n_samples,)
        """
        X = self._check_X(X_encoded)
        n = X.shape[0]
        compiled = use_compiled(n) and n
        if n <= _FEW_ROWS and not compiled:
            return self._router.route_rows(X)  # online scoring: a walk per row
        out = np.empty(n, dtype=NODE_DTYPE)
        if compiled:
            from ..._parallel import thread_pool
            from .._kernels import _compiled

            router = self._router
            # more than a few rows: the flat walk (not for one row, whose view would cost
            # more than its walk)
            flat = None if n < _FLAT_MIN_ROWS else _flat_view(X)
            records = None  # a tree with categorical splits: the flat walk's node records
            if flat is not None and router.has_cat:
                from .._kernels import _compiled_apply

                records = router.flat_records()

            def run(bounds):
                if records is not None:
                    _compiled_apply.apply_flat_cat(
                        flat[0], flat[1], flat[2], bounds[0], bounds[1], *records,
                        self.cat_left.shape[1], router.max_depth, out)
                    return
                if flat is not None:  # numeric tree: eight rows at a time, X read flat
                    _compiled.apply_flat(flat[0], flat[1], flat[2], bounds[0], bounds[1],
                                         router.children, router.route_feature,
                                         router.route_threshold, self.missing_left,
                                         router.max_depth, out)
                    return
                # rows walk down in blocks, level by level, read in place in either order
                _compiled.apply_fixed(X, bounds[0], bounds[1], router.children,
                                      router.route_feature, router.route_threshold,
                                      self.is_categorical, self.cat_left, self.missing_left,
                                      router.max_depth, out)

            n_threads = max(1, min(int(n_threads), n // _APPLY_BLOCK))
            bounds = np.linspace(0, n, n_threads + 1).astype(np.intp)
            ranges = [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]
            with thread_pool(n_threads) as pool:
                if pool is None:
                    run(ranges[0])
                else:
                    pool.map_groups(run, ranges)
            return out
        for start in range(0, n, _APPLY_BLOCK):
            stop = min(start + _APPLY_BLOCK, n)
            block = X[start:stop]
            if self._router.mixed:
                out[start:stop] = self._router.route_levels(block)
            else:
                out[start:stop] = self._router.route_fixed(np.ascontiguousarray(block))
        return out

    def decision_path(self, X_encoded):
        """Indicator of the nodes each row passes through.

        Parameters
        ----------
        X_encoded : ndarray of shape (n_samples, n_features)
            As for :meth:`apply`.

        Returns
        -------
        scipy.sparse.csr_matrix of shape (n_samples, n_nodes)
            ``[i, j]`` is 1 when row ``i`` passes through node ``j``.
        """
        from scipy import sparse

        X = self._check_X(X_encoded)
        n = X.shape[0]
        counts, indices = [], []
        for start in range(0, n, _APPLY_BLOCK):
            record = []
            self._router.route_levels(X[start : start + _APPLY_BLOCK], record=record)
            # (rows, n_levels + 1): the node at each depth, -1 once the leaf was reached
            steps = np.stack(record, axis=1)
            mask = steps >= 0
            counts.append(mask.sum(axis=1))
            indices.append(steps[mask])
        indptr = np.zeros(n + 1, dtype=np.intp)
        if n:
            np.cumsum(np.concatenate(counts), out=indptr[1:])
        indices = np.concatenate(indices) if indices else np.zeros(0, dtype=np.intp)
        data = np.ones(indices.shape[0], dtype=np.int8)
        return sparse.csr_matrix((data, indices, indptr), shape=(n, self.n_nodes))

    # ------------------------------------------------------------------ pruning
    def subtree(self, keep_as_leaf_mask):
        """A pruned, re-indexed copy.

        Nodes where ``keep_as_leaf_mask`` is True become leaves and everything below them
        is removed; all statistics of the remaining nodes are carried over. Node order is
        kept, so children still have larger ids than their parents.

        Parameters
        ----------
        keep_as_leaf_mask : array-like of bool, shape (n_nodes,)
            Nodes to turn into leaves (True on a leaf or on a removed node is ignored).

        Returns
        -------
        TreeStructure
            With an extra attribute ``kept_node_ids`` (old id of every new node).
        """
        mask = np.asarray(keep_as_leaf_mask)
        if mask.dtype != bool or mask.shape != (self.n_nodes,):
            raise ValueError(
                f"keep_as_leaf_mask must be a boolean array of shape ({self.n_nodes},); "
                f"got dtype {mask.dtype} and shape {mask.shape}"
            )
        cut = mask & ~self._is_leaf
        removed = np.zeros(self.n_nodes, dtype=bool)
        for d in range(1, self.max_depth + 1):  # one vectorised step per depth level
            ids = self.node_ids_at_depth(d)
            par = self.parent[ids]
            removed[ids] = removed[par] | cut[par]
        kept = np.flatnonzero(~removed)
        new_id = np.full(self.n_nodes, -1, dtype=NODE_DTYPE)
        new_id[kept] = np.arange(kept.size)

        def remap(ids):
            return np.where(ids >= 0, new_id[np.maximum(ids, 0)], -1)

        state = {}
        for name in (*_REQUIRED, *_OPTIONAL):
            arr = getattr(self, name)
            state[name] = None if arr is None else arr[kept]
        leaf_now = cut[kept]
        state["children_left"] = np.where(leaf_now, -1, remap(state["children_left"]))
        state["children_right"] = np.where(leaf_now, -1, remap(state["children_right"]))
        state["parent"] = remap(state["parent"])
        state["feature"] = np.where(leaf_now, -1, state["feature"])
        state["threshold"] = np.where(leaf_now, np.nan, state["threshold"])
        state["is_categorical"] = state["is_categorical"] & ~leaf_now
        state["missing_left"] = state["missing_left"] & ~leaf_now
        cat_left = state["cat_left"].copy()
        cat_left[leaf_now] = False
        state["cat_left"] = cat_left
        out = type(self)(**state)
        out.kept_node_ids = kept
        return out

    # ------------------------------------------------------------------ pickling
    def __getstate__(self):
        state = {name: getattr(self, name) for name in (*_REQUIRED, *_OPTIONAL)}
        state["_version"] = _STATE_VERSION
        if hasattr(self, "kept_node_ids"):
            state["kept_node_ids"] = self.kept_node_ids
        return state

    def __setstate__(self, state):
        if not isinstance(state, dict):
            raise ValueError("corrupted TreeStructure pickle: state is not a dict")
        version = state.get("_version")
        if version != _STATE_VERSION:
            raise ValueError(
                f"TreeStructure pickle has state version {version!r}; this dtdecide "
                f"reads version {_STATE_VERSION}"
            )
        fields = {k: v for k, v in state.items() if k in _REQUIRED or k in _OPTIONAL}
        for name, arr in fields.items():
            if arr is not None and np.asarray(arr).dtype != np.dtype(_DTYPES[name]):
                raise ValueError(
                    f"corrupted TreeStructure pickle: field {name!r} has dtype "
                    f"{np.asarray(arr).dtype}, expected {np.dtype(_DTYPES[name]).name}"
                )
        try:
            self._set_fields(fields)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"corrupted TreeStructure pickle: {exc}") from exc
        if "kept_node_ids" in state:
            self.kept_node_ids = state["kept_node_ids"]

    def __eq__(self, other):
        if not isinstance(other, TreeStructure):
            return NotImplemented
        for name in (*_REQUIRED, *_OPTIONAL):
            a, b = getattr(self, name), getattr(other, name)
            if (a is None) != (b is None):
                return False
            if a is not None and (
                a.shape != b.shape or not np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
            ):
                return False
        return True

    __hash__ = None

    def __repr__(self):
        return (
            f"TreeStructure(n_nodes={self.n_nodes}, n_leaves={self.n_leaves}, "
            f"max_depth={self.max_depth})"
        )


def match_subtree_nodes(full, sub):
    """Id in ``full`` of every node of ``sub``, a subtree sharing the same root.

    Nodes are matched by their path from the root (left/right at each split), one
    vectorised step per depth level; a split that differs from the full tree's raises.
    """
    if sub is full:
        return np.arange(full.n_nodes)
    out = np.full(sub.n_nodes, -1, dtype=np.intp)
    out[0] = 0
    for d in range(1, sub.max_depth + 1):
        ids = sub.node_ids_at_depth(d)
        par = sub.parent[ids]
        fpar = out[par]
        if np.any(full.children_left[fpar] < 0):
            raise ValueError("structure is not a subtree of the tree grown at fit")
        is_left = sub.children_left[par] == ids
        out[ids] = np.where(is_left, full.children_left[fpar], full.children_right[fpar])
    internal = np.flatnonzero(sub.children_left >= 0)
    f_int = out[internal]
    same = (sub.feature[internal] == full.feature[f_int]) & (
        (sub.threshold[internal] == full.threshold[f_int])
        | (np.isnan(sub.threshold[internal]) & np.isnan(full.threshold[f_int]))
    )
    if not np.all(same) or not np.all(
        sub.n_node_samples == full.n_node_samples[out]
    ):
        raise ValueError(
            "structure is not a subtree of the tree grown at fit (its splits or node "
            "counts differ); re-deciding it needs the training data"
        )
    return out


def _field_array(name, raw):
    """Field ``name`` of a tree as its own array of the field's dtype, its ndim checked."""
    try:
        arr = np.array(raw, dtype=_DTYPES[name], copy=True)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"TreeStructure field {name!r} must be convertible to "
            f"{np.dtype(_DTYPES[name]).name}; got {type(raw).__name__}"
        ) from exc
    ndims = _NDIM.get(name, (1,))
    if arr.ndim not in ndims:
        raise ValueError(
            f"TreeStructure field {name!r} must have ndim in {ndims}; got shape "
            f"{arr.shape}"
        )
    return arr


def _check_lengths(a, n):
    """Every field of ``a`` that is given has one row per node (``n``)."""
    for name, arr in a.items():
        if arr is not None and arr.shape[0] != n:
            raise ValueError(
                f"TreeStructure field {name!r} has length {arr.shape[0]}; expected "
                f"n_nodes={n}"
            )


def _check_decision_pair(a):
    """``node_decision`` and ``node_expected`` given together or not at all."""
    has_stats = [a[name] is not None for name in ("node_decision", "node_expected")]
    if any(has_stats) and not all(has_stats):
        raise ValueError("node_decision and node_expected must be given together")


def _validate(a):
    """Check shapes, child ids and parent consistency; raise ValueError."""
    n = a["children_left"].shape[0]
    if n < 1:
        raise ValueError("TreeStructure needs at least one node (the root)")
    _check_lengths(a, n)
    left, right, parent, depth = (
        a["children_left"],
        a["children_right"],
        a["parent"],
        a["depth"],
    )
    ids = np.arange(n)
    is_leaf = left < 0
    if np.any((left < 0) != (right < 0)) or np.any(left < -1) or np.any(right < -1):
        raise ValueError("children_left/children_right: a node must have 0 or 2 children")
    internal = ~is_leaf
    for name, child in (("children_left", left), ("children_right", right)):
        c = child[internal]
        if np.any(c >= n) or np.any(c <= ids[internal]):
            raise ValueError(
                f"{name}: child ids must lie in (node id, n_nodes); got an invalid child"
            )
        if np.any(parent[c] != ids[internal]):
            raise ValueError(f"parent is inconsistent with {name}")
        if np.any(depth[c] != depth[ids[internal]] + 1):
            raise ValueError(f"depth is inconsistent with {name}")
    if left[internal].size and np.any(left[internal] == right[internal]):
        raise ValueError("children_left and children_right must differ")
    if parent[0] != -1 or depth[0] != 0:
        raise ValueError("node 0 must be the root: parent -1 and depth 0")
    n_children = np.bincount(
        np.concatenate([left[internal], right[internal]]), minlength=n
    )
    if np.any(n_children[1:] != 1):
        raise ValueError("every non-root node must be the child of exactly one node")
    feature = a["feature"]
    if np.any(feature[is_leaf] != -1) or np.any(feature[internal] < 0):
        raise ValueError("feature must be -1 on leaves and >= 0 on split nodes")
    if np.any(a["is_categorical"] & is_leaf):
        raise ValueError("is_categorical must be False on leaves")
    value = a["value"]
    if value.ndim != 2:
        raise ValueError(f"value must be 2-D (n_nodes, n_outputs); got {value.shape}")
    if np.any(a["n_node_samples"] < 0):
        raise ValueError("n_node_samples must be non-negative")
    _check_decision_pair(a)
