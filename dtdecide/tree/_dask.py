"""The profit trees on Dask collections (the optional ``dtdecide[dask]`` extra).

``fit`` accepts a ``dask.dataframe.DataFrame`` ``X`` with ``y``, ``sample_weight`` and
``costs`` as Dask collections of the same partitions. What travels between the workers
and the client is small and never a row:

1. **Summaries** (one pass): per partition the column kinds, the category labels present,
   missing-value flags, the target's labels and weighted counts, and per numeric column
   its distinct values with their weighted counts -- compressed to a quantile summary of
   at most ``_SUMMARY_POINTS`` points when a partition or a merge holds more (exact below
   that, so a feature with at most ``max_bins`` distinct values gets the exact bins of
   the in-memory fit). Summaries are merged pairwise in a tree.
2. **Binned partitions** are built on the workers and persisted there (binned inputs,
   class codes or regression channels, frequencies, resolved consequences), in the
   workers' memory or, for bounded memory, written once to the workers' disks and mapped
   back for each pass (:mod:`~dtdecide.tree._dask_storage`, Dask configuration
   ``dtdecide.binned-storage``).
3. **Growth**, level by level: the client sends the splits chosen so far (a few small
   node arrays); every partition routes its rows through them, builds the histograms of
   the children to be histogrammed with the in-memory kernel
   (:func:`~dtdecide.tree._histogram.build_histograms`), the histograms are summed
   pairwise in a tree and come back; the client picks the splits with the in-memory
   splitter. The grower is the in-memory one (:func:`~dtdecide.tree._grower.grow_from_source`),
   only the place where the histogram sums happen differs.
4. **Decision statistics** (class counts, cost and consequence sums of every node) are
   per-partition :func:`~dtdecide.tree._leaf.compute_decision_stats` arrays, summed.

The options follow the in-memory fit through the same kernels:

* ``criterion="profit"`` (leaf rule): every partition turns its rows' realised
  consequences into the money channels of :class:`~dtdecide.tree._profit.ProfitCriterion`
  (prior class weights folded in), histogrammed and summed like class counts; the node
  ``value`` (class frequencies, regression sums) is summed per partition after growth.
* ``decision_rule="case"``: growth on Gini (variance) with the ``posterior_smoothing``
  resolved from the merged class frequencies; the case-rule node profits that pruning
  needs (:func:`~dtdecide.tree._caserule.case_node_sums`, each case's own best decision
  at every node of its path) are summed per partition.
* case-specific cost rows (``DecisionMatrix.from_cost_matrix()`` with ``costs=`` a Dask
  DataFrame of the columns ``C_FP, C_FN, C_TP, C_TN``) are resolved per partition;
  consequences bound to the matrix at construction are taken by each partition from its
  first row's position on (one pass counts the partitions' rows).
* ordinal targets (``ordinal=True`` or an ordered Categorical ``y``) and
  ``split_weights="loss"``: the target is prepared by the in-memory code on the merged
  distinct labels and their weights; the training loss matrix they read comes from the
  partitions' frequency-weighted consequence sums
  (:class:`~dtdecide.tree._criteria.ConsequenceSums`).

Not on Dask yet (each raises ``NotImplementedError`` naming it): ``search="exact"``, and
``edits`` that split or regrow nodes (``set_decision`` and ``prune_node`` records are
replayed).

The fitted estimator is an ordinary in-memory tree. On data that fit both ways with the
same bins it is the in-memory tree: the same splits and counts, and the same sums up to
the order of floating-point additions (exactly the same when those sums are exact, e.g.
integer weights and costs).

Scoring (``predict``, ``predict_proba``, ``apply``, ``predict_decision``, ``decide`` with
its options) on a Dask DataFrame runs per partition and keeps the index; ``decide`` returns the case table as a Dask DataFrame
and the exact summary from per-partition sums (with priors, each level's frequency and
total too: the prior adjustment weights depend on the levels' total frequencies).

A pruning study (:class:`~dtdecide.PruningStudy`, :func:`~dtdecide.select_subtree`) on a Dask
validation set scores every subtree from per-partition node sums of the validation rows
(two passes: first the sums the row statistics depend on -- the levels' frequencies of the
prior adjustment, a regression target's mean --, then the node sums), summed pairwise.
Its cross-validation on Dask training data fits every fold's tree on Dask and scores the
held-out rows the same way; only the target column comes to the client (fold assignment).

Dask is imported only when a Dask collection is passed.
"""

from collections.abc import Mapping

import numpy as np
import pandas as pd

from .._dtypes import FLOAT_DTYPE as _FLOAT
from . import _dask_storage as _storage
from ._dask_storage import DiskPart
from ._histogram import HistogramTarget, build_histograms
from ._profit import growth_consequences

__all__ = ["is_dask_collection", "fit_dask", "score_dask", "decide_dask",
           "predict_decision_dask"]

# largest number of (value, weight) points a numeric column's summary keeps
_SUMMARY_POINTS = 1 << 14
_FLOAT32_EXACT_LIMIT = 1 << 24


def is_dask_collection(obj):
    """Whether ``obj`` is a Dask DataFrame/Series/Array (without importing Dask).

    Examples
    --------
    >>> import pandas as pd
    >>> from dtdecide.tree._dask import is_dask_collection
    >>> is_dask_collection(pd.DataFrame({"a": [1]}))
    False
    """
    return hasattr(obj, "__dask_graph__") and hasattr(obj, "npartitions")


def _import_dask():
    try:
        import dask
        import dask.dataframe  # noqa: F401
    except ImportError as exc:  # pragma: no cover - the extra is installed in CI
        raise ImportError(
            "fitting or scoring on Dask collections needs Dask; install the extra: "
            "pip install 'dtdecide[dask]'"
        ) from exc
    return dask


# ------------------------------------------------------------------ partitions
_Y, _W, _C = "__dtdecide_y__", "__dtdecide_weight__", "__dtdecide_cost__:"


def _check_collection(name, obj, X, suffix=""):
    x = "X" + suffix
    if not is_dask_collection(obj) or not hasattr(obj, "to_delayed"):
        raise TypeError(
            f"{name} must be a Dask DataFrame/Series with the partitions of {x} when {x} "
            f"is a Dask DataFrame; got {type(obj).__name__}"
        )
    if obj.npartitions != X.npartitions:
        raise ValueError(
            f"{name} has {obj.npartitions} partitions and {x} has {X.npartitions}; give "
            "them the same partitions (e.g. take them as columns of one Dask DataFrame)"
        )
    if X.known_divisions and obj.known_divisions and tuple(X.divisions) != tuple(
        obj.divisions
    ):
        raise ValueError(
            f"{name} and {x} have different partition divisions; give them the same "
            "partitions (e.g. take them as columns of one Dask DataFrame)"
        )


def _pack(Xp, *others, names=(), suffix="", partition_info=None):
    """One partition of X with y, weights and costs as extra columns (checked aligned)."""
    k = "?" if partition_info is None else partition_info.get("number", "?")
    frames = [Xp]
    for name, part in zip(names, others):
        if len(part) != len(Xp):
            raise ValueError(
                f"{name}{suffix} partition {k} has {len(part)} rows and X{suffix}'s has "
                f"{len(Xp)}; the collections must have the same partitions"
            )
        if not part.index.equals(Xp.index):
            raise ValueError(
                f"{name}{suffix} partition {k} has another index than X{suffix}'s; the "
                "collections must have the same partitions and index"
            )
        if name == "costs":
            part = part.add_prefix(_C)
        else:
            column = _Y if name == "y" else _W
            if isinstance(part, pd.DataFrame):
                if part.shape[1] != 1:
                    raise ValueError(f"{name} must be one column; got {part.shape[1]}")
                part = part.iloc[:, 0]
            part = part.rename(column).to_frame()
        frames.append(part)
    return pd.concat(frames, axis=1) if len(frames) > 1 else Xp


def _packed_parts(X, y=None, sample_weight=None, costs=None, suffix="", frame=False):
    """Delayed partitions of X with the per-case collections packed in as columns.

    One graph for all of them, so that every collection keeps X's partitions (Dask may
    otherwise read a column projection of the same Parquet files in other partitions).
    Returns the partitions and the spec :func:`_unpack` needs. ``suffix`` ends the
    parameter names in messages (``"_valid"``: ``y_valid``, ...); ``frame=True`` returns
    the packed Dask DataFrame itself instead of its partitions.
    """
    import dask.dataframe as dd

    given = [(n, o) for n, o in (("y", y), ("sample_weight", sample_weight),
                                 ("costs", costs)) if o is not None]
    for name, obj in given:
        _check_collection(name + suffix, obj, X, suffix)
    spec = {"X": list(X.columns), "y": y is not None, "w": sample_weight is not None,
            "costs": None if costs is None else list(costs.columns)}
    if not given:
        return (X if frame else X.to_delayed()), spec
    names = tuple(n for n, _ in given)
    meta = _pack(X._meta, *[o._meta for _, o in given], names=names, suffix=suffix)
    packed = dd.map_partitions(_pack, X, *[o for _, o in given], names=names, suffix=suffix,
                               meta=meta, align_dataframes=False)
    return (packed if frame else packed.to_delayed()), spec


def _unpack(part, spec):
    """``(X, y, sample_weight, costs)`` of one packed partition (None where not given)."""
    Xp = part[spec["X"]]
    yp = part[_Y] if spec["y"] else None
    wp = part[_W] if spec["w"] else None
    cp = None
    if spec["costs"] is not None:
        cp = part[[_C + c for c in spec["costs"]]].set_axis(spec["costs"], axis=1)
    return Xp, yp, wp, cp


def _tree_reduce(dask, items, combine):
    """Pairwise (tree) reduction of delayed ``items`` with ``combine``."""
    delayed = dask.delayed(combine, pure=True)
    while len(items) > 1:
        items = [
            delayed(items[i], items[i + 1]) if i + 1 < len(items) else items[i]
            for i in range(0, len(items), 2)
        ]
    return items[0]


# ------------------------------------------------------------------ summaries
def _compress(values, weights):
    """At most ``_SUMMARY_POINTS`` (value, weight) points with the same total weight.

    ``values`` sorted and distinct. Each kept point is the value at a regular weighted
    quantile; every dropped value's weight goes to the next kept point at or above it
    (the largest value is always kept).
    """
    if values.size <= _SUMMARY_POINTS:
        return values, weights
    cum = np.cumsum(weights)
    targets = (np.arange(1, _SUMMARY_POINTS) / _SUMMARY_POINTS) * cum[-1]
    keep = np.unique(np.append(np.searchsorted(cum, targets, side="left"), values.size - 1))
    # kept point k collects the contiguous values keep[k-1]+1 .. keep[k]
    starts = np.concatenate([[0], keep[:-1] + 1])
    return values[keep], np.add.reduceat(weights, starts)


def _weighted_distinct(values, weights):
    """Sorted distinct ``values`` and their summed ``weights`` (None: counts)."""
    if weights is None:
        v = np.sort(values)
        if not v.size:
            return v, np.zeros(0)
        first = np.flatnonzero(np.concatenate([[True], v[1:] != v[:-1]]))
        counts = np.diff(np.append(first, v.size)).astype(np.float64)
        return v[first], counts
    order = np.argsort(values, kind="stable")
    v, w = values[order], weights[order]
    if not v.size:
        return v, w
    first = np.flatnonzero(np.concatenate([[True], v[1:] != v[:-1]]))
    return v[first], np.add.reduceat(w, first)


def _merge_points(a, b):
    return _compress(*_weighted_distinct(np.concatenate([a[0], b[0]]),
                                         np.concatenate([a[1], b[1]])))


def _summarize(part, spec, *, est, matrix, is_classifier):
    """What the client needs from one partition (never its rows)."""
    from ..decision._validation import check_sample_weight
    from ._encode import _column_kind, _numeric_values

    Xp, yp, wp, cp = _unpack(part, spec)
    X_in, _, _, _ = est._split_costs(Xp, cp, matrix)
    n = len(X_in)
    if n == 0:  # an empty partition contributes nothing (merged away)
        return {"n": 0, "columns": list(X_in.columns)}
    F = check_sample_weight(None if wp is None else wp.to_numpy(), n, name="sample_weight")
    F = np.ones(n, dtype=_FLOAT) if F is None else np.asarray(F, dtype=_FLOAT)
    out = {"n": n, "columns": list(X_in.columns), "kinds": [], "present": [],
           "points": [], "has_nan": [], "weight": float(F.sum()),
           "unit": bool(np.all(F == 1.0))}
    for j, name in enumerate(X_in.columns):
        col = X_in.iloc[:, j]
        kind = _column_kind(col, name) if n else None
        out["kinds"].append(kind)
        out["has_nan"].append(bool(col.isna().any()))
        if kind == "categorical":
            out["present"].append(pd.unique(col.dropna().to_numpy(dtype=object)))
            out["points"].append(None)
        elif kind == "numeric":
            v = np.asarray(_numeric_values(col, name), dtype=_FLOAT)
            keep = ~np.isnan(v) & (F > 0)
            points = _weighted_distinct(v[keep], None if out["unit"] else F[keep])
            out["present"].append(None)
            out["points"].append(_compress(*points))
        else:
            out["present"].append(None)
            out["points"].append(None)
    y = np.asarray(yp.to_numpy() if hasattr(yp, "to_numpy") else yp)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y[:, 0]
    if y.ndim != 1:
        raise ValueError(f"y must be one column; got a partition of shape {y.shape}")
    if is_classifier:
        if pd.isna(pd.Series(y, dtype=object)).any():
            raise ValueError("y contains missing values (NaN/None); drop those cases first")
        labels, inverse = np.unique(y, return_inverse=True) if n else (y[:0], y[:0])
        out["labels"] = (labels, np.bincount(inverse, weights=F, minlength=labels.size))
    else:
        t = np.asarray(y, dtype=_FLOAT)
        if not np.all(np.isfinite(t)):
            raise ValueError("y contains NaN or infinity; the target must be finite")
        out["wy"] = float(F @ t)
    return out


def _merge_summaries(a, b):
    if a["n"] == 0:
        a, b = b, a
    if b["n"] == 0:
        if a["columns"] != b["columns"]:
            raise ValueError(
                f"X partitions have different columns: {a['columns']!r} and {b['columns']!r}"
            )
        return a
    if a["columns"] != b["columns"]:
        raise ValueError(
            f"X partitions have different columns: {a['columns']!r} and {b['columns']!r}"
        )
    out = {"n": a["n"] + b["n"], "columns": a["columns"], "weight": a["weight"] + b["weight"],
           "unit": a["unit"] and b["unit"], "kinds": [], "present": [], "points": [],
           "has_nan": [x or y for x, y in zip(a["has_nan"], b["has_nan"])]}
    for j, name in enumerate(a["columns"]):
        ka, kb = a["kinds"][j], b["kinds"][j]
        if ka is not None and kb is not None and ka != kb:
            raise ValueError(
                f"X column {name!r} is {ka} in one partition and {kb} in another; give it "
                "one type (e.g. astype('category') or astype(float))"
            )
        kind = ka or kb
        out["kinds"].append(kind)
        pa, pb = a["present"][j], b["present"][j]
        out["present"].append(
            None if kind != "categorical" else pd.unique(np.concatenate([pa, pb]))
        )
        qa, qb = a["points"][j], b["points"][j]
        out["points"].append(None if kind != "numeric" else _merge_points(qa, qb))
    if "labels" in a:
        labels = np.concatenate([a["labels"][0], b["labels"][0]])
        weights = np.concatenate([a["labels"][1], b["labels"][1]])
        distinct, inverse = np.unique(labels, return_inverse=True)
        out["labels"] = (distinct, np.bincount(inverse, weights=weights,
                                               minlength=distinct.size))
    else:
        out["wy"] = a["wy"] + b["wy"]
    return out


def _encoding_from(summary, meta):
    """The :class:`FeatureEncoding` of the whole collection (categories: sorted union)."""
    from ._encode import FeatureEncoding, _frame_names

    names, has_names = _frame_names(meta)
    is_cat = np.array([k == "categorical" for k in summary["kinds"]], dtype=bool)
    categories = []
    for j in range(len(names)):
        if not is_cat[j]:
            categories.append(None)
            continue
        dtype = meta.dtypes.iloc[j]
        if isinstance(dtype, pd.CategoricalDtype) and dtype.categories is not None and (
            len(dtype.categories) or not len(summary["present"][j])
        ) and not _unknown_categories(dtype):
            categories.append(np.asarray(dtype.categories))
        elif pd.api.types.is_bool_dtype(dtype):
            categories.append(np.array([False, True], dtype=object))
        else:
            values = summary["present"][j]
            try:
                values = np.array(sorted(values), dtype=object)
            except TypeError:  # labels of mixed types: order of first appearance
                values = np.asarray(values, dtype=object)
            categories.append(values)
    return FeatureEncoding(
        feature_names=names, is_categorical=is_cat, categories=categories,
        has_names=has_names,
    )


def _unknown_categories(dtype):
    # dask marks categories it has not computed with this placeholder
    return list(dtype.categories) == ["__UNKNOWN_CATEGORIES__"]


def _binner_from(summary, encoding, max_bins):
    from ._binning import Binner, edges_from_counts

    thresholds = []
    for j, cat in enumerate(encoding.categories):
        if cat is not None:
            present = summary["present"][j]
            codes = pd.Index(cat).get_indexer(present) if len(present) else np.array([-1])
            thresholds.append(np.arange(int(codes.max()) + 1 if len(present) else 1,
                                        dtype=np.float64))
        else:
            points = summary["points"][j]
            values, weights = (np.empty(0), np.empty(0)) if points is None else points
            thresholds.append(edges_from_counts(values, weights, max_bins))
    binner = Binner(max_bins=max_bins)
    binner._validate_params()
    return binner._set_bins(thresholds, encoding.is_categorical)


# ------------------------------------------------------------------ binned partitions
class _Part:
    """One partition as the workers keep it: binned inputs and per-row target data."""

    def __init__(self, **kw):
        self.__dict__.update(kw)


def _prepare(k, part, spec, *, est, matrix, encoding, binner, classes, unit, shift,
             hist_dtype, profit=None, class_weight=None, store=None, offset=None):
    Xp, yp, wp, cp = _unpack(part, spec)
    from ..decision._kernels import encode_target
    from ._encode import encode

    X_in, resolve_costs, cost_columns, _ = est._split_costs(Xp, cp, matrix)
    n = len(X_in)
    if n == 0:
        return _Part(n=0)
    if offset is not None:  # consequences bound to the matrix: this partition's rows
        resolve_costs = matrix.case_values[offset : offset + n]
    X_codes = encode(X_in, encoding, estimator_name=type(est).__name__)
    Xb = binner.transform(X_codes)
    F = np.ones(n, dtype=_FLOAT) if wp is None else np.asarray(wp.to_numpy(), dtype=_FLOAT)
    y = np.asarray(yp.to_numpy())
    if y.ndim == 2:
        y = y[:, 0]
    if classes is not None:
        t = encode_target(y, classes).astype(np.intp) if n else np.zeros(0, np.intp)
        target = HistogramTarget(codes=t, n_classes=len(classes),
                                 weights=None if unit else F)
    else:
        t = np.asarray(y, dtype=_FLOAT)
        yc = t - shift
        channels = np.column_stack([F, F * yc, F * yc * yc])
        target = HistogramTarget(channels=channels)
    cons = None
    if matrix is not None:
        cons = matrix.resolve(resolve_costs, n_samples=n)
        if cons.has_missing.any():
            raise ValueError(
                f"costs: {int(np.count_nonzero(cons.has_missing))} training case(s) in "
                f"partition {k} have a missing cost; the leaf averages of the costs need "
                "every training case's costs (impute or drop them)"
            )
    if profit is not None:
        # criterion="profit": the money channels of every row, as grow_tree builds them
        weight = F if class_weight is None else F * class_weight[t]
        codes, weights = profit.row_channels(growth_consequences(cons, t, profit.method),
                                             weight)
        target = HistogramTarget(codes=codes, n_classes=profit.n_decisions, weights=weights)
    part = _Part(Xb=Xb, target=target, F=F, t=t, cons=cons, cost_columns=cost_columns,
                 hist_dtype=hist_dtype, n=n)
    if store is None:
        return part
    # bounded memory: the binned arrays go to this worker's disk, only a handle stays
    return DiskPart.write(part, *store, k)


def _with_part(func, part, *args):
    """``func(part, *args)`` with the partition mapped back first if it is on disk."""
    return func(part.load() if isinstance(part, DiskPart) else part, *args)


def _per_part(dask, func, parts, places, *args):
    """``func(part, *args)`` of every partition, delayed, each on its ``places`` worker."""
    delayed = dask.delayed(_with_part, pure=True)
    items = []
    for k, part in enumerate(parts):
        with _storage.on_worker(dask, None if places is None else places[k]):
            items.append(delayed(func, part, *args))
    return items


def _part_hist(part, tree, slot_of_node, n_slots, layout, with_counts):
    """Histograms of one partition's rows in the nodes that have a slot."""
    if part.n == 0:
        return None
    if tree is None:
        slots = np.zeros(part.n, dtype=np.int32)
        rows = None
    else:
        node = _route(part, tree)
        slot = slot_of_node.take(node)
        rows = np.flatnonzero(slot >= 0)
        slots = slot.take(rows)
    hist, counts = build_histograms(part.Xb, rows, slots, n_slots, layout, part.target,
                                    with_counts=with_counts)
    return hist.astype(part.hist_dtype, copy=False), counts


def _route(part, tree):
    """Node of every row of ``part`` through ``tree`` (left, right, feature, tables).

    The tree only grows (splits are added to leaves, node ids never change), so the rows
    are routed on from the nodes they reached last time (kept on the partition object
    where it lives, a worker, or in a file beside a partition on disk). Any earlier assignment is a valid start -- each row's
    node is an ancestor of its leaf -- so a stale or missing cache (a copy of the
    partition moved to another worker) only costs time.
    """
    from ._grower import route_binned

    start = getattr(part, "node", None)
    node = route_binned(part.Xb, *tree, start=start)
    part.node = node
    save = getattr(part, "save_node", None)  # a partition kept on disk
    if save is not None:
        save(node)
    return node


def _add_pair(a, b):
    if a is None or b is None:
        return b if a is None else a
    return tuple(None if x is None else x + y for x, y in zip(a, b))


class DaskRows:
    """The grower's row source over persisted Dask partitions (see the module notes)."""

    def __init__(self, dask, parts, layout, with_counts, n_classes=None, places=None):
        self.dask = dask
        self.parts = parts
        self.layout = layout
        self.with_counts = with_counts
        self.n_classes = n_classes
        self.places = places  # the worker of each partition kept on disk (or None)

    def _sum(self, func, *args, add=None):
        items = _per_part(self.dask, func, self.parts, self.places, *args)
        (total,) = self.dask.compute(_tree_reduce(self.dask, items, add or _add_arrays))
        return total

    def _histograms(self, tree, slot_of_node, n_slots):
        return self._sum(_part_hist, tree, slot_of_node, n_slots, self.layout,
                         self.with_counts, add=_add_pair)

    def root(self, ctx):
        hist, counts = self._histograms(None, None, 1)
        return hist, counts, None, None

    @property
    def routing(self):
        """``(left, right, feature, tables)`` of the grown tree (after growing)."""
        return self.ctx.nodes.routing_arrays(self.layout.max_width)

    def children(self, ctx, level, child_ids, slot_of_child, n_built, n_small_cont, out,
                 **split):
        tree = ctx.nodes.routing_arrays(ctx.layout.max_width)
        slot_of_node = np.full(ctx.nodes.n_nodes, -1, dtype=np.intp)
        built = np.flatnonzero((slot_of_child >= 0) & (slot_of_child < n_built))
        slot_of_node[child_ids[built]] = slot_of_child[built]
        hist, counts = self._histograms(tree, slot_of_node, n_built)
        out[0][...] = hist.reshape(out[0].shape)
        if out[1] is not None:
            out[1][...] = counts.reshape(out[1].shape)
        return None, None

    def profit_node_values(self, ctx, n_nodes, parent, depth, left, right, feature):
        """Node ``value`` of a tree grown on money channels, summed over partitions."""
        from ._leaf import propagate_up

        tree = ctx.nodes.routing_arrays(ctx.layout.max_width)
        value = self._sum(_part_node_values, tree, n_nodes, self.n_classes)
        value = propagate_up(value, parent, depth)
        weighted_n = value.sum(axis=1) if self.n_classes is not None else value[:, 0].copy()
        return value, weighted_n


def _part_node_values(part, tree, n_nodes, n_classes):
    """Per-leaf class frequencies (regression: ``[w, w*y, w*y**2]``) of one partition."""
    from ._leaf import leaf_sums

    if part.n == 0:
        return None
    node = _route(part, tree)
    F = part.F
    if n_classes is None:
        y = np.asarray(part.t, dtype=_FLOAT)
        return leaf_sums(node, np.column_stack([F, F * y, F * y * y]), n_nodes)
    value = np.zeros((n_nodes, n_classes))
    for c in range(n_classes):
        value[:, c] = np.bincount(node, weights=F * (part.t == c), minlength=n_nodes)
    return value


def _part_cons_sums(part):
    """The frequency-weighted consequence sums of one partition (split search inputs)."""
    from ._criteria import ConsequenceSums

    return None if part.n == 0 else ConsequenceSums.of(part.cons, part.F)


def _add_arrays(a, b):
    if a is None or b is None:
        return b if a is None else a
    return a + b


def _part_case_sums(part, tree, parent, node_in, n_groups):
    """Case-rule profit of every node from one partition's rows (see ``_caserule``)."""
    from ._caserule import case_node_sums

    if part.n == 0:
        return None
    node = _route(part, tree)
    q = part.cons.q_actual(part.t)
    if n_groups is None:
        return case_node_sums(parent, node, node_in, part.cons, q, part.F)
    return case_node_sums(parent, node, node_in, part.cons, q, part.F,
                          group=np.asarray(part.t, dtype=np.intp), n_groups=n_groups)


def _part_stats(part, tree, parent, depth, matrix):
    from . import _leaf

    if part.n == 0:
        return None
    node = _route(part, tree)
    return _leaf.compute_decision_stats(
        node, parent, depth, cons=part.cons, sample_weight=part.F,
        t_idx=None if matrix.is_interval else part.t,
        y=part.t if matrix.is_interval else None,
        rows=matrix.rows, decisions=matrix.decisions, cost_columns=part.cost_columns,
    )


def _add_stats(a, b):
    if a is None or b is None:
        return b if a is None else a
    out = type(a).__new__(type(a))
    for key, value in vars(a).items():
        other = getattr(b, key)
        # every float array is a sum over rows, except the matrix rows (knots)
        setattr(out, key, value + other if key != "rows" and isinstance(value, np.ndarray)
                and value.dtype.kind == "f" else value)
    return out


# ------------------------------------------------------------------ fit
def _bound_offsets(dask, packed, matrix, costs):
    """First row of every partition when the consequences are bound to the matrix.

    A case-specific matrix built with its cases' values (and no ``costs=``) holds them in
    the order of all rows; partition ``k`` takes its rows from ``offsets[k]`` on. None
    when the consequences come otherwise.
    """
    if matrix is None or not matrix.is_case_specific or matrix.case_values is None or (
            costs is not None):
        return None
    lengths = dask.compute(*[dask.delayed(len, pure=True)(p) for p in packed])
    n, bound = int(sum(lengths)), matrix.case_values.shape[0]
    if n != bound:
        raise ValueError(
            f"costs: the decision_matrix holds consequences for {bound} cases and X has {n} "
            "rows; pass the cases' consequences with costs="
        )
    return np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.intp).tolist()


def _refuse(est):
    """The options the Dask fit does not support yet, each named."""
    checks = [
        (est.search != "greedy", f"search={est.search!r}"),
    ]
    for bad, what in checks:
        if bad:
            raise NotImplementedError(
                f"{what} is not supported on Dask collections yet; fit on a pandas "
                "DataFrame (e.g. X.compute()) or use the default options"
            )


def fit_dask(est, X, y, sample_weight=None, costs=None, edits=None):
    """Fit ``est`` (a profit tree) on Dask collections; see the module notes."""
    from ._grower import grow_from_source
    from ._histogram import BinLayout

    dask = _import_dask()
    est._validate_params()
    if edits and not isinstance(edits, (str, bytes)) and hasattr(edits, "__iter__"):
        from ._edit import _NEEDS_ROWS

        ops = sorted({e["op"] for e in edits if isinstance(e, dict) and e.get("op")
                      in _NEEDS_ROWS})
        if ops:
            raise NotImplementedError(
                f"edits with {' and '.join(repr(o) for o in ops)} records (they regrow "
                "nodes from the training rows) are not supported on Dask collections yet; "
                "fit on a pandas DataFrame, or replay only set_decision / prune_node edits"
            )
    if not hasattr(X, "to_delayed") or not hasattr(X, "columns"):
        raise TypeError(
            f"X must be a Dask DataFrame to fit on Dask; got {type(X).__name__}"
        )
    if y is None:
        raise ValueError("requires y to be passed, but the target y is None")
    if isinstance(costs, Mapping):
        raise TypeError("costs must be a Dask DataFrame when X is a Dask DataFrame; got a dict")
    matrix = est._check_matrix()
    est._check_fit_options(matrix)
    _refuse(est)
    if matrix is None and costs is not None:
        raise ValueError("costs needs a decision_matrix; got decision_matrix=None")
    is_classifier = est._is_classifier

    if not is_dask_collection(y):
        raise TypeError(
            "y must be a Dask Series with the partitions of X when X is a Dask DataFrame; "
            f"got {type(y).__name__}"
        )
    packed, spec = _packed_parts(X, y, sample_weight, costs)
    kw = dict(est=est, matrix=matrix, is_classifier=is_classifier)
    summarize = dask.delayed(_summarize, pure=True)
    items = [summarize(p, spec, **kw) for p in packed]
    (summary,) = dask.compute(_tree_reduce(dask, items, _merge_summaries))
    n = summary["n"]
    if n == 0:
        raise ValueError("X must have at least one row; every partition is empty")
    if not summary["weight"] > 0:
        raise ValueError("sample_weight must have a positive sum")

    meta_in, _, _, cost_features = est._split_costs(X._meta, None if costs is None
                                                    else costs._meta, matrix)
    encoding = _encoding_from(summary, meta_in)
    est.decision_overrides_ = {}
    est.edits_ = []
    est.feature_names_in_ = encoding.feature_names
    est.n_features_in_ = len(encoding.feature_names)
    est.is_categorical_ = encoding.is_categorical
    est.categories_ = encoding.categories
    est.has_missing_in_fit_ = np.array(summary["has_nan"], dtype=bool)
    est._encoding = encoding
    est.cost_features_ = cost_features
    est.decision_matrix_ = matrix
    est.decisions_ = None if matrix is None else tuple(matrix.decisions)
    name = getattr(y, "name", None)
    est.target_name_ = str(name) if name is not None else "target"

    classes, shift, freq, t_lab, label_weight = None, 0.0, None, None, None
    if is_classifier:
        labels, label_weight = summary["labels"]
        dtype = getattr(y, "dtype", None)
        if isinstance(dtype, pd.CategoricalDtype) and _unknown_categories(dtype):
            raise ValueError(
                "y is a Categorical whose categories Dask does not know; make them known "
                "(y.cat.as_known() or y.cat.set_categories(...))"
            )
        # the in-memory target preparation on the distinct labels with their weights:
        # classes, ordinal flag and every check of the in-memory fit
        t_lab = est._prepare_target(y._meta, labels, matrix, label_weight)
        classes = est.classes_
        freq = np.bincount(t_lab, weights=label_weight, minlength=len(classes))
    else:
        shift = summary["wy"] / summary["weight"]
    # the split search's loss matrix and class weights read the training consequences
    # (their frequency-weighted sums) only for split_weights and an ordinal matrix; those
    # options never grow on money, whose channels need the class weights while binning
    needs_sums = matrix is not None and not matrix.is_interval and (
        getattr(est, "split_weights", None) is not None or getattr(est, "is_ordinal_", False)
    )
    if not needs_sums:
        loss_matrix = est._split_search(matrix, None, t_lab, label_weight)
    binner = _binner_from(summary, encoding, est.max_bins)
    unit = summary["unit"]
    small = np.dtype(np.float32 if is_classifier and unit and n < _FLOAT32_EXACT_LIMIT
                     else np.float64)
    storage, directory = _storage.storage_options(dask)
    n_row_floats = (0 if unit else 1) if is_classifier else 6
    if matrix is not None:
        n_row_floats += 2 * matrix.n_decisions
    storage = _storage.choose_storage(dask, storage, _storage.binned_nbytes(
        n, len(encoding.feature_names), binner.binned_dtype_.itemsize, n_row_floats))
    store = None if storage == "memory" else (_storage.new_folder_name(), directory)
    prepare = dask.delayed(_prepare, pure=True)
    offsets = _bound_offsets(dask, packed, matrix, costs)

    def prepare_parts(profit, class_weight, hist_dtype):
        parts = [prepare(k, p, spec, est=est, matrix=matrix, encoding=encoding,
                         binner=binner, classes=classes, unit=unit, shift=shift,
                         hist_dtype=hist_dtype, profit=profit, class_weight=class_weight,
                         store=store, offset=None if offsets is None else offsets[k])
                 for k, p in enumerate(packed)]
        parts = list(dask.persist(*parts))
        # a partition on disk is read on the worker that wrote it
        return parts, None if store is None else _storage.writers(dask, parts)

    parts = source = None
    try:
        if needs_sums:
            hist_dtype = small
            parts, places = prepare_parts(None, None, hist_dtype)
            items = _per_part(dask, _part_cons_sums, parts, places)
            (sums,) = dask.compute(_tree_reduce(dask, items, _add_arrays))
            loss_matrix = est._split_search(matrix, sums, t_lab, label_weight)
        est.split_criterion_ = est._split_criterion(loss_matrix)
        # "auto" smoothing reads the classes' training frequencies: ``freq`` as (codes,
        # weights)
        est.posterior_smoothing_ = est._resolve_posterior_smoothing(
            matrix, None if freq is None else np.arange(len(freq)), freq)
        profit = None
        if est.split_criterion_ == "profit":
            from ._profit import DEFAULT_PROFIT_METHOD, ProfitCriterion

            profit = ProfitCriterion(matrix.n_decisions,
                                     getattr(est, "_profit_method", DEFAULT_PROFIT_METHOD))
        if not needs_sums:
            hist_dtype = small if profit is None else np.dtype(np.float64)
            parts, places = prepare_parts(profit, est.split_class_weight_, hist_dtype)
        layout = BinLayout.from_binner(binner)
        n_classes = len(classes) if is_classifier else None
        # money channels never give row counts: counted separately, as in memory
        source = DaskRows(dask, parts, layout, with_counts=not unit or profit is not None,
                          n_classes=n_classes, places=places)
        tree = grow_from_source(
            source, binner, n_samples=n, n_classes=n_classes,
            criterion=est._growing_criterion(loss_matrix),
            class_weight=est.split_class_weight_, loss_matrix=loss_matrix,
            unit_weights=unit, hist_dtype=hist_dtype, shift=shift, max_depth=est.max_depth,
            min_samples_leaf=est.min_samples_leaf, min_samples_split=est.min_samples_split,
            min_impurity_decrease=est.min_impurity_decrease,
            max_leaf_nodes=est.max_leaf_nodes, profit=profit,
        )
        routing = source.routing
        est._full_tree_ = tree
        est._decision_stats_ = None
        if matrix is not None:
            est._decision_stats_ = source._sum(_part_stats, routing, tree.parent, tree.depth,
                                               matrix, add=_add_stats)
            tree = est._redecide(tree)
            est._full_tree_ = tree
        est._case_stats_ = None
        if matrix is not None and est._case_rule():
            # the case rule's node profits (pruning risk): each case's own best decision at
            # every node of its path, summed per partition as the in-memory fit sums them
            node_in = est._case_node_inputs(tree)
            n_groups = len(classes) if is_classifier else None
            S = source._sum(_part_case_sums, routing, tree.parent, node_in, n_groups)
            est._case_stats_ = {"profit": S if is_classifier else S[:, 0], "matrix": matrix}
    finally:
        parts = source = None  # release the persisted partitions (or their handles)
        if store is not None:  # every pass over the rows is done: remove their files
            _storage.cleanup(dask, *store)
    est.tree_ = tree
    if est.ccp_alpha > 0:
        from . import _pruning

        est.tree_ = _pruning.apply_ccp_alpha(est, est.ccp_alpha)
    if edits:
        from ._edit import replay_edits

        # set_decision and prune_node work on the node statistics alone
        replay_edits(est, edits)
    return est


# ------------------------------------------------------------------ scoring
def score_dask(est, method, X):
    """``est.<method>(X)`` per partition of a Dask DataFrame, lazily, keeping the index."""
    _import_dask()
    if not hasattr(X, "map_partitions") or not hasattr(X, "columns"):
        raise TypeError(f"X must be a Dask DataFrame; got {type(X).__name__}")

    if method == "predict_proba":
        names = [str(c) for c in est.classes_]
        meta = pd.DataFrame({c: pd.Series(dtype=_FLOAT) for c in names})

        def run(part):
            if not len(part):
                return meta.set_axis(part.index[:0])
            return pd.DataFrame(est.predict_proba(part), index=part.index, columns=names)

    else:
        if method == "apply":
            dtype = np.dtype(np.intp)
        elif method == "predict" and est._is_classifier:
            dtype = np.asarray(est.classes_).dtype
        else:
            dtype = np.dtype(_FLOAT)
        meta = pd.Series(np.empty(0, dtype=dtype), name=method)

        def run(part):
            if not len(part):
                return meta.set_axis(part.index[:0])
            return pd.Series(getattr(est, method)(part), index=part.index, name=method)

    return X.map_partitions(run, meta=meta)


def predict_decision_dask(est, X, costs=None):
    """``est.predict_decision(X, costs)`` per partition, lazily, keeping the index."""
    dask = _import_dask()
    import dask.dataframe as dd

    if not hasattr(X, "map_partitions") or not hasattr(X, "columns"):
        raise TypeError(f"X must be a Dask DataFrame; got {type(X).__name__}")
    packed, spec = _packed_parts(X, None, None, costs)
    offsets = None
    if est._case_rule():  # each case decides with its own (possibly bound) consequences
        offsets = _bound_offsets(dask, packed, est.decision_matrix_, costs)
    meta = pd.Series(np.empty(0, dtype=object), name="predict_decision")

    def run(part, offset):
        Xp, _, _, cp = _unpack(part, spec)
        if not len(Xp):
            return meta.set_axis(Xp.index[:0])
        cp = _bound_costs(est, cp, offset, len(Xp))
        return pd.Series(est._predict_decision(Xp, cp), index=Xp.index, dtype=object,
                         name="predict_decision")

    return dd.from_delayed(
        [dask.delayed(run, pure=True)(p, None if offsets is None else offsets[k])
         for k, p in enumerate(packed)],
        meta=meta, divisions=X.divisions if X.known_divisions else None,
    )


class DaskDecisionResult:
    """``decide`` on Dask collections: a lazy case table and the exact summary.

    Attributes
    ----------
    cases : dask.dataframe.DataFrame
        The per-case table of :func:`dtdecide.decide`, partition by partition (lazy).
    summary : pandas.Series
        The summary over every case, from per-partition sums.
    """

    def __init__(self, cases, summary):
        self.cases = cases
        self.summary = summary

    def __repr__(self):
        return f"DaskDecisionResult(cases={self.cases!r}, summary=\n{self.summary!r})"


_ADDITIVE = ("n_cases", "n_missing", "frequency", "do_nothing_frequency")


def _part_decide(Xp, yp, cp, wp, est, options=None):
    # the confidence of every leaf is drawn at once (whatever leaves the partition holds)
    return est.decide(Xp, y=yp, costs=cp, sample_weight=wp, **(options or {}))


def _bound_costs(est, cp, offset, n):
    """``cp``, or the partition's rows of consequences bound to the matrix."""
    if offset is None:
        return cp
    return est.decision_matrix_.case_values[offset : offset + n]


def _part_summary(part, spec, est, offset=None, options=None):
    Xp, yp, wp, cp = _unpack(part, spec)
    if not len(Xp):
        return None
    cp = _bound_costs(est, cp, offset, len(Xp))
    res = _part_decide(Xp, yp, cp, wp, est, options)
    s = res.summary.copy()
    s.attrs["meta"] = res.cases.iloc[:0]
    F = np.ones(len(Xp)) if wp is None else np.asarray(wp.to_numpy(), dtype=_FLOAT)
    if "misclassification_rate" in s.index:
        wt = float(F.sum())
        s["misclassification_rate"] = (
            s["misclassification_rate"] * wt if wt > 0 else 0.0
        )
        s["_weight_all"] = wt
    m = est.decision_matrix_
    if yp is not None and m is not None and not m.is_interval and m.priors is not None:
        # the priors' adjustment weights depend on every partition's level frequencies:
        # keep the frequency and the total of every level (cases without a missing cost)
        from ..decision._kernels import encode_target

        t = encode_target(yp.to_numpy(), m.levels)
        by = res.summary_by(pd.Categorical.from_codes(t, categories=np.arange(m.n_levels)))
        word = "loss" if m.sign < 0 else "profit"
        s.attrs["by_level"] = (by["frequency"].to_numpy(dtype=_FLOAT),
                               by[f"total_{word}"].to_numpy(dtype=_FLOAT))
    return s


def _add_summaries(a, b):
    if a is None or b is None:
        return b if a is None else a
    out = a.copy()
    out.attrs["meta"] = a.attrs["meta"]
    if "by_level" in a.attrs:
        out.attrs["by_level"] = tuple(x + y for x, y in zip(a.attrs["by_level"],
                                                             b.attrs["by_level"]))
    for key in a.index:
        if key in _ADDITIVE or key.startswith("total_") or key in (
            "misclassification_rate", "_weight_all"
        ) or key.startswith(("n_unseen_", "n_missing_")):
            out[key] = a[key] + b[key]
    return out


def _adjusted(matrix, level_freq, level_total):
    """The prior-adjusted total and average from every level's frequency and total.

    The adjustment weight of a case is its level's ``Paw(t)`` (of the levels' total
    frequencies), so the weighted sums over the cases are sums over the levels.
    """
    from ..decision._kernels import prior_adjustment_weights

    L = matrix.n_levels
    paw = prior_adjustment_weights(np.arange(L), level_freq, matrix.priors, L)
    if paw is None:  # a level with a positive prior has no case
        return np.nan, np.nan
    adj_total = float(paw @ level_total) + 0.0
    den = float(paw @ level_freq)
    return adj_total, adj_total / den if den > 0 else np.nan


def decide_dask(est, X, y=None, costs=None, sample_weight=None, **options):
    """:meth:`decide` on Dask collections; see :class:`DaskDecisionResult`.

    ``options``: the keyword options of ``decide`` (``confidence``, ...), passed to every
    partition's ``decide``.
    """
    from ..decision._kernels import roi

    dask = _import_dask()
    if not hasattr(X, "map_partitions") or not hasattr(X, "columns"):
        raise TypeError(f"X must be a Dask DataFrame; got {type(X).__name__}")
    m = est.decision_matrix_
    packed, spec = _packed_parts(X, y, sample_weight, costs)
    summ = dask.delayed(_part_summary, pure=True)
    offsets = _bound_offsets(dask, packed, m, costs)
    items = [summ(p, spec, est, None if offsets is None else offsets[k], options)
             for k, p in enumerate(packed)]
    (total,) = dask.compute(_tree_reduce(dask, items, _add_summaries))
    if total is None:
        raise ValueError("X has no rows; every partition is empty")
    cases_meta = total.attrs.pop("meta")
    word = "loss" if m is not None and m.sign < 0 else "profit"
    freq = total["frequency"]
    for key in list(total.index):
        if key.startswith("average_"):
            base = "total_" + key[len("average_"):]
            total[key] = total[base] / freq if freq > 0 else np.nan
    if "roi" in total.index:
        total["roi"] = float(roi(total[f"total_{word}"], total["total_investment"]))
    if "misclassification_rate" in total.index:
        wt = total.pop("_weight_all")
        total["misclassification_rate"] = (
            total["misclassification_rate"] / wt if wt > 0 else np.nan
        )
    for key in ("n_cases", "n_missing"):
        if key in total.index:
            total[key] = int(total[key])
    by_level = total.attrs.pop("by_level", None)
    if by_level is not None:
        total[f"adjusted_total_{word}"], total[f"adjusted_average_{word}"] = (
            _adjusted(m, *by_level))

    import dask.dataframe as dd

    def cases_of(part, offset):
        Xp, yp, wp, cp = _unpack(part, spec)
        if not len(Xp):
            return cases_meta.set_axis(Xp.index[:0])
        cp = _bound_costs(est, cp, offset, len(Xp))
        return _part_decide(Xp, yp, cp, wp, est, options).cases

    cases = dd.from_delayed(
        [dask.delayed(cases_of, pure=True)(p, None if offsets is None else offsets[k])
         for k, p in enumerate(packed)],
        meta=cases_meta, divisions=X.divisions if X.known_divisions else None,
    )
    return DaskDecisionResult(cases, total)


# ------------------------------------------------------------------ pruning studies
def _part_scorer(part, spec, est, kind, pos_label, name, totals):
    from ._study import _Scorer

    Xp, yp, wp, cp = _unpack(part, spec)
    if not len(Xp):
        return None
    return _Scorer(est, kind, Xp, yp, costs=cp, sample_weight=wp, pos_label=pos_label,
                   name=name, totals=totals)


def _part_totals(part, spec, est, kind, pos_label, name):
    scorer = _part_scorer(part, spec, est, kind, pos_label, name, None)
    return None if scorer is None else scorer.totals


def _add_totals(a, b):
    if a is None or b is None:
        return b if a is None else a
    return {key: a[key] + b[key] for key in a}


def _part_node_sums(part, spec, est, kind, pos_label, name, totals, fitted=None):
    """``(node sums, the scorer without its rows)`` of one validation partition (node
    sums under ``fitted``, default ``est``)."""
    scorer = _part_scorer(part, spec, est, kind, pos_label, name, totals)
    if scorer is None:
        return None
    Xp = _unpack(part, spec)[0]
    sums = scorer.node_sums(est if fitted is None else fitted, Xp)
    # the rows stay on the worker (an empty ``case`` still marks the case rule)
    scorer.columns = None
    if scorer.case is not None:
        scorer.case = ()
    return sums, scorer


def _add_node_sums(a, b):
    if a is None or b is None:
        return b if a is None else a
    return a[0] + b[0], a[1]


def _check_study_data(X, y, costs, name):
    if not hasattr(X, "to_delayed") or not hasattr(X, "columns"):
        raise TypeError(f"X{name} must be a Dask DataFrame; got {type(X).__name__}")
    if isinstance(costs, Mapping):
        raise TypeError(
            f"costs{name} must be a Dask DataFrame when X{name} is a Dask DataFrame; got a "
            "dict"
        )
    if not is_dask_collection(y):
        raise TypeError(
            f"y{name} must be a Dask Series with the partitions of X{name} when X{name} is "
            f"a Dask DataFrame; got {type(y).__name__}"
        )


def _study_totals(dask, parts, spec, est, kind, pos_label, name):
    step = dask.delayed(_part_totals, pure=True)
    items = [step(p, spec, est, kind, pos_label, name) for p in parts]
    (totals,) = dask.compute(_tree_reduce(dask, items, _add_totals))
    if totals is None:
        raise ValueError(f"X{name} has no rows; every partition is empty")
    return totals


def _study_sums(dask, parts, spec, est, kind, pos_label, name, totals, fitted=None):
    step = dask.delayed(_part_node_sums, pure=True)
    items = [step(p, spec, est, kind, pos_label, name, totals, fitted) for p in parts]
    (total,) = dask.compute(_tree_reduce(dask, items, _add_node_sums))
    sums, scorer = total
    return scorer, sums


def _part_target(part, spec):
    return np.asarray(_unpack(part, spec)[1].to_numpy())


def _part_rows(part, keep):
    return part[keep]


def study_cv_sums(est, kind, X, y, *, costs, sample_weight, pos_label, splitter, measures,
                  n_subtrees, verbose=0):
    """Cross-validation of a pruning study on Dask training data.

    The target column comes to the client for the fold assignment (``splitter(y)``, as
    the in-memory study draws it); every fold's tree is fitted on Dask from the other
    folds' rows, and its held-out rows are scored per partition with the row statistics
    of the whole training set (:func:`study_node_sums`). ``measures(fold, scorer, sums)``
    gives the fold's per-subtree sums. Returns their total and the scorer (no rows).
    """
    import sys
    import time

    from sklearn.base import clone

    dask = _import_dask()
    import dask.dataframe as dd

    name = "_train"
    _check_study_data(X, y, costs, name)
    frame, spec = _packed_parts(X, y, sample_weight, costs, suffix=name, frame=True)
    packed = frame.to_delayed()
    targets = dask.compute(*[dask.delayed(_part_target, pure=True)(p, spec)
                             for p in packed])
    bounds = np.concatenate([[0], np.cumsum([t.shape[0] for t in targets])])
    y_arr = np.concatenate(targets)
    splits = list(splitter(y_arr).split(np.zeros((y_arr.shape[0], 1)), y_arr))
    totals = _study_totals(dask, packed, spec, est, kind, pos_label, name)
    rows = dask.delayed(_part_rows, pure=True)

    def subset(idx):
        keep = np.zeros(y_arr.shape[0], dtype=bool)
        keep[idx] = True
        return [rows(p, keep[bounds[k]:bounds[k + 1]]) for k, p in enumerate(packed)]

    total, scorer = np.zeros((n_subtrees, 4)), None
    started = time.perf_counter()
    for i, (train, test) in enumerate(splits, start=1):
        sub = dd.from_delayed(subset(train), meta=frame._meta)
        kw = {}
        if spec["w"]:
            kw["sample_weight"] = sub[_W]
        if spec["costs"] is not None:
            kw["costs"] = sub[[_C + c for c in spec["costs"]]].rename(
                columns={_C + c: c for c in spec["costs"]})
        fold = clone(est)
        if "ccp_alpha" in fold.get_params():
            fold.set_params(ccp_alpha=0.0)
        fold.fit(sub[spec["X"]], sub[_Y].rename(getattr(y, "name", None)), **kw)
        scorer, sums = _study_sums(dask, subset(test), spec, est, kind, pos_label, name,
                                   totals, fitted=fold)
        total += measures(fold, scorer, sums)
        if verbose:
            print(
                f"[PruningStudy] fold {i}/{len(splits)}: {int(fold.tree_.n_leaves)} leaves "
                f"(Dask; elapsed {time.perf_counter() - started:.1f}s)",
                file=sys.stdout, flush=True,
            )
    return total, scorer


def study_node_sums(est, kind, X, y, *, costs, sample_weight, pos_label, name):
    """The pruning study's scorer and validation node sums over Dask partitions.

    Two passes over the partitions: the sums the row statistics depend on (levels'
    frequencies for the prior adjustment, the weighted mean of a regression target),
    then every partition's node sums (:meth:`~dtdecide.tree._study._Scorer.node_sums`)
    with those totals, summed pairwise. Returns the scorer (without rows) that turns the
    sums into per-subtree measures, and the sums.
    """
    dask = _import_dask()
    _check_study_data(X, y, costs, name)
    packed, spec = _packed_parts(X, y, sample_weight, costs, suffix=name)
    totals = _study_totals(dask, packed, spec, est, kind, pos_label, name)
    return _study_sums(dask, packed, spec, est, kind, pos_label, name, totals)
