"""The profit trees on Dask collections (the optional ``dtdecide[dask]`` extra).

Layer 4 (backends) of :mod:`dtdecide.tree` (``_backends``); see the architecture page.

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
   back for each pass (:mod:`~dtdecide.tree._backends._dask_storage`, Dask configuration
   ``dtdecide.binned-storage``).
3. **Growth**, level by level: the client sends the splits chosen so far (a few small
   node arrays); every partition routes its rows through them, builds the histograms of
   the children to be histogrammed with the in-memory kernel
   (:func:`~dtdecide.tree._kernels._histogram.build_histograms`), the histograms are summed
   pairwise in a tree and come back; the client picks the splits with the in-memory
   splitter. The grower is the in-memory one (:func:`~dtdecide.tree._algorithms._grower.grow_from_source`),
   only the place where the histogram sums happen differs.
4. **Decision statistics** (class counts, cost and consequence sums of every node) are
   per-partition :func:`~dtdecide.tree._structure._leaf.compute_decision_stats` arrays, summed.

The options follow the in-memory fit through the same kernels:

* ``criterion="profit"`` (leaf rule): as in memory, without case costs (every case's
  consequences its level's) the partitions histogram the class counts and the client
  derives the money channels of :class:`~dtdecide.tree._kernels._profit.ProfitCriterion`
  from their sums through the grower's level map
  (:func:`~dtdecide.tree._algorithms._grower.profit_level_map`, prior class weights
  folded in); with case costs every partition turns its rows' realised consequences
  into the money channels, histogrammed and summed like class counts. The node
  ``value`` (class frequencies, regression sums) is summed per partition after growth.
* ``decision_rule="case"``: growth on Gini (variance) with the ``posterior_smoothing``
  resolved from the merged class frequencies; the case-rule node profits that pruning
  needs (:func:`~dtdecide.tree._structure._caserule.case_node_sums`, each case's own best decision
  at every node of its path) are summed per partition.
* case-specific cost rows (``DecisionMatrix.from_cost_matrix()`` with ``costs=`` a Dask
  DataFrame of the columns ``C_FP, C_FN, C_TP, C_TN``) are resolved per partition;
  consequences bound to the matrix at construction are taken by each partition from its
  first row's position on (one pass counts the partitions' rows).
* ordinal targets (``ordinal=True`` or an ordered Categorical ``y``) and
  ``split_weights="loss"``: the target is prepared by the in-memory code on the merged
  distinct labels and their weights; the training loss matrix they read comes from the
  partitions' frequency-weighted consequence sums
  (:class:`~dtdecide.tree._kernels._criteria.ConsequenceSums`).

Not on Dask yet (each raises ``NotImplementedError`` naming it): ``search="exact"``, and
``edits`` that split or regrow nodes (``set_decision`` and ``prune_node`` records are
replayed).

The fitted estimator is an ordinary in-memory tree. On data that fit both ways with the
same bins it is the in-memory tree: the same splits and counts, and the same sums up to
the order of floating-point additions (exactly the same when those sums are exact, e.g.
integer weights and costs, and unit rows with class weights: their float32 count
histograms are exact in any order). With fractional sample weights the sums differ in the last
bits; a class absent from a node weighs exactly zero in both fits (the residue of the
sibling subtraction is dropped, see the scaling guide), so pure nodes are leaves in both.

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


import numpy as np
import pandas as pd

from ..._dtypes import FLOAT_DTYPE as _FLOAT
from .._kernels._histogram import HistogramTarget, build_histograms
from .._kernels._profit import growth_consequences
from . import _dask_storage as _storage
from ._dask_storage import DiskPart

__all__ = ["DaskRows", "is_dask_collection"]

# largest number of (value, weight) points a numeric column's summary keeps
_SUMMARY_POINTS = 1 << 14
_FLOAT32_EXACT_LIMIT = 1 << 24


def is_dask_collection(obj):
    """Whether ``obj`` is a Dask DataFrame/Series/Array (without importing Dask).

    Examples
    --------
    >>> import pandas as pd
    >>> from dtdecide.tree._backends._dask import is_dask_collection
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
    from ...decision._validation import (
        check_interval_target,
        check_sample_weight,
        has_missing_labels,
    )
    from .._structure._encode import _column_kind, _numeric_values, distinct_labels

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
            out["present"].append(distinct_labels(col, name))
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
        if has_missing_labels(y):
            raise ValueError("y contains missing values (NaN/None); drop those cases first")
        labels, inverse = np.unique(y, return_inverse=True) if n else (y[:0], y[:0])
        out["labels"] = (labels, np.bincount(inverse, weights=F, minlength=labels.size))
    else:
        t = check_interval_target(y, "y", estimator=type(est).__name__)
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
    from .._structure._encode import FeatureEncoding, training_frame_names

    names, has_names = training_frame_names(meta)
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
    from .._kernels._binning import (
        _MAX_BINS_LARGE,
        Binner,
        edges_from_counts,
        too_many_categories,
    )

    thresholds = []
    for j, cat in enumerate(encoding.categories):
        if cat is not None:
            present = summary["present"][j]
            codes = pd.Index(cat).get_indexer(present) if len(present) else np.array([-1])
            n_codes = int(codes.max()) + 1 if len(present) else 1
            if n_codes > _MAX_BINS_LARGE:  # as the in-memory binner refuses them
                raise too_many_categories(encoding.feature_names[j], n_codes)
            thresholds.append(np.arange(n_codes, dtype=np.float64))
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
    from ...decision._kernels import encode_target
    from .._structure._encode import encode

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
        # criterion="profit" with case costs: the money channels of every row, as
        # grow_tree builds them (without case costs the class counts, ``profit`` None)
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
    from .._algorithms._rows import route_binned

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
        from .._structure._leaf import propagate_up

        tree = ctx.nodes.routing_arrays(ctx.layout.max_width)
        value = self._sum(_part_node_values, tree, n_nodes, self.n_classes)
        value = propagate_up(value, parent, depth)
        weighted_n = value.sum(axis=1) if self.n_classes is not None else value[:, 0].copy()
        return value, weighted_n


def _part_node_values(part, tree, n_nodes, n_classes):
    """Per-leaf class frequencies (regression: ``[w, w*y, w*y**2]``) of one partition."""
    from .._structure._leaf import leaf_sums

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
    from .._kernels._criteria import ConsequenceSums

    return None if part.n == 0 else ConsequenceSums.of(part.cons, part.F)


def _add_arrays(a, b):
    if a is None or b is None:
        return b if a is None else a
    return a + b


def _part_case_sums(part, tree, parent, node_in, n_groups):
    """Case-rule profit of every node from one partition's rows (see ``_caserule``)."""
    from .._structure._caserule import case_node_sums

    if part.n == 0:
        return None
    node = _route(part, tree)
    q = part.cons.q_actual(part.t)
    if n_groups is None:
        return case_node_sums(parent, node, node_in, part.cons, q, part.F)
    return case_node_sums(parent, node, node_in, part.cons, q, part.F,
                          group=np.asarray(part.t, dtype=np.intp), n_groups=n_groups)


def _part_stats(part, tree, parent, depth, matrix):
    from .._structure import _leaf

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


