"""Fitting and scoring on Dask collections: the same tree as in memory."""

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")

from dtdecide import DecisionMatrix  # noqa: E402
from dtdecide.tree import ProfitTreeClassifier, ProfitTreeRegressor  # noqa: E402
from dtdecide.tree._backends._dask import _SUMMARY_POINTS, _compress, _merge_points  # noqa: E402
from dtdecide.tree._kernels._binning import Binner  # noqa: E402

FIELDS = (
    "children_left", "children_right", "parent", "depth", "feature", "threshold",
    "is_categorical", "cat_left", "missing_left", "n_node_samples",
    "weighted_n_node_samples", "value", "impurity", "cost_sum", "profit_sum",
    "node_decision", "node_expected",
)


def assert_same_tree(a, b, exact=True):
    for name in FIELDS:
        x, y = getattr(a, name), getattr(b, name)
        if x is None or y is None:
            assert x is None and y is None, name
            continue
        if exact or x.dtype.kind != "f" or name == "threshold":
            # integer weights and costs: every sum is exact, whatever the order of additions
            assert np.array_equal(x, y, equal_nan=True), name
        else:  # a centred regression target: sums differ by the order of additions
            assert np.allclose(x, y, rtol=1e-9, atol=1e-9, equal_nan=True), name


def table(seed=0, n=2400):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "a": rng.integers(0, 60, n).astype(float),
        "b": rng.integers(0, 9, n),
        "c": pd.Categorical(rng.choice(list("pqrs"), n)),
        "d": rng.choice(["u", "v", "w"], n).astype(object),
    })
    X.loc[rng.random(n) < 0.1, "a"] = np.nan
    X.loc[rng.random(n) < 0.05, "c"] = np.nan
    score = X["a"].fillna(30) + 12 * (X["c"] == "q") - 6 * (X["d"] == "w") + X["b"]
    y = pd.Series(np.where(score + rng.normal(0, 10, n) > 38, "good", "bad"), name="y")
    w = pd.Series(rng.integers(1, 4, n).astype(float), name="w")
    costs = pd.DataFrame({"offer": rng.integers(1, 8, n).astype(float)})
    frame = pd.concat([X, y, w, costs], axis=1)
    # a gap in the index gives the Dask frame an empty partition
    frame = frame.drop(index=range(1000, 1300))
    last = int(frame.index[-1])
    ddf = dd.from_pandas(frame, npartitions=1).repartition(
        divisions=[0, 600, 1000, 1250, (1300 + last) // 2, last]
    )
    assert 0 in [len(p) for p in ddf.partitions]
    return frame, ddf


MATRIX = DecisionMatrix({"accept": [20.0, -10.0], "reject": [0.0, 0.0]},
                        levels=["good", "bad"], kind="revenue", costs={"accept": "offer"})
COLS = ["a", "b", "c", "d"]


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


@pytest.mark.parametrize("kw", [
    {"max_depth": 5, "min_samples_leaf": 3},
    {"max_depth": None, "max_leaf_nodes": 9, "criterion": "entropy"},
    {"max_depth": 4, "ccp_alpha": 2.0},
])
def test_classifier_same_tree_as_in_memory(kw):
    frame, ddf = table()
    est = dict(decision_matrix=MATRIX, **kw)
    mem = ProfitTreeClassifier(**est).fit(frame[COLS], frame["y"], sample_weight=frame["w"],
                                          costs=frame[["offer"]])
    dsk = ProfitTreeClassifier(**est).fit(ddf[COLS], ddf["y"], sample_weight=ddf["w"],
                                          costs=ddf[["offer"]])
    assert_same_tree(mem.tree_, dsk.tree_)
    assert mem.tree_.children_left.size > 5
    for attr in ("feature_names_in_", "is_categorical_", "has_missing_in_fit_", "classes_",
                 "split_criterion_", "posterior_smoothing_"):
        assert np.array_equal(getattr(mem, attr), getattr(dsk, attr)), attr
    for a, b in zip(mem.categories_, dsk.categories_):
        assert (a is None and b is None) or list(a) == list(b)


def test_regressor_and_priors_same_tree():
    frame, ddf = table(1)
    target = frame["b"] * 3 + frame["a"].fillna(7)
    dtarget = ddf["b"] * 3 + ddf["a"].fillna(7)
    mem = ProfitTreeRegressor(max_depth=4).fit(frame[COLS], target, sample_weight=frame["w"])
    dsk = ProfitTreeRegressor(max_depth=4).fit(ddf[COLS], dtarget, sample_weight=ddf["w"])
    assert_same_tree(mem.tree_, dsk.tree_, exact=False)
    m = DecisionMatrix({"call": [5.0, -1.0], "skip": [0.0, 0.0]}, levels=["good", "bad"],
                       priors=[0.3, 0.7])
    mem = ProfitTreeClassifier(decision_matrix=m, max_depth=4).fit(frame[COLS], frame["y"])
    dsk = ProfitTreeClassifier(decision_matrix=m, max_depth=4).fit(ddf[COLS], ddf["y"])
    assert_same_tree(mem.tree_, dsk.tree_)
    assert np.allclose(mem.split_class_weight_, dsk.split_class_weight_)


def test_scoring_per_partition_keeps_index_and_summary():
    frame, ddf = table(2)
    est = ProfitTreeClassifier(decision_matrix=MATRIX, max_depth=4).fit(
        ddf[COLS], ddf["y"], sample_weight=ddf["w"], costs=ddf[["offer"]]
    )
    X = frame[COLS]
    pred = est.predict(ddf[COLS])
    assert isinstance(pred, dd.Series)
    got = pred.compute()
    assert got.index.equals(X.index)
    assert got.tolist() == est.predict(X).tolist()
    assert est.apply(ddf[COLS]).compute().tolist() == est.apply(X).tolist()
    proba = est.predict_proba(ddf[COLS]).compute()
    assert list(proba.columns) == ["good", "bad"]
    assert np.array_equal(proba.to_numpy(), est.predict_proba(X))
    res = est.decide(ddf[COLS], y=ddf["y"], costs=ddf[["offer"]], sample_weight=ddf["w"])
    ref = est.decide(X, y=frame["y"], costs=frame[["offer"]], sample_weight=frame["w"])
    assert isinstance(res.cases, dd.DataFrame)
    pd.testing.assert_frame_equal(res.cases.compute(), ref.cases)
    assert list(res.summary.index) == list(ref.summary.index)
    assert np.allclose(res.summary.to_numpy(dtype=float), ref.summary.to_numpy(dtype=float),
                       rtol=1e-12, equal_nan=True)


def test_misaligned_and_unsupported_inputs():
    frame, ddf = table(3)
    other = dd.from_pandas(frame, npartitions=2)
    with pytest.raises(ValueError, match="y has 2 partitions and X has 5"):
        ProfitTreeClassifier().fit(ddf[COLS], other["y"])
    shifted = dd.from_pandas(frame.reset_index(drop=True), npartitions=5)
    with pytest.raises(ValueError, match="divisions"):
        ProfitTreeClassifier().fit(ddf[COLS], shifted["y"])
    with pytest.raises(TypeError, match="costs must be a Dask DataFrame"):
        ProfitTreeClassifier(decision_matrix=MATRIX).fit(ddf[COLS], ddf["y"],
                                                         costs={"offer": frame["offer"]})
    with pytest.raises(TypeError, match="y must be a Dask"):
        ProfitTreeClassifier().fit(ddf[COLS], frame["y"])
    with pytest.raises(NotImplementedError, match="search='exact'"):
        ProfitTreeClassifier(decision_matrix=MATRIX, search="exact", max_depth=2).fit(
            ddf[COLS], ddf["y"], costs=ddf[["offer"]])


def test_partition_summaries_merge_exactly_then_compress():
    rng = np.random.default_rng(4)
    parts = [rng.integers(0, 100, 500).astype(float) for _ in range(3)]
    pts = [np.unique(p, return_counts=True) for p in parts]
    merged = _merge_points(_merge_points(pts[0], pts[1]), pts[2])
    values, counts = np.unique(np.concatenate(parts), return_counts=True)
    assert np.array_equal(merged[0], values) and np.array_equal(merged[1], counts)
    v = np.sort(rng.normal(size=5 * _SUMMARY_POINTS))
    w = rng.uniform(0.5, 2.0, v.size)
    cv, cw = _compress(v, w)
    assert cv.size <= _SUMMARY_POINTS and cv[-1] == v[-1]
    assert np.isclose(cw.sum(), w.sum())
    # the compressed summary's weighted quantiles stay within a few summary steps
    q = np.interp(0.37, np.cumsum(cw) / cw.sum(), cv)
    exact = np.interp(0.37, np.cumsum(w) / w.sum(), v)
    assert abs(np.mean(v <= q) - np.mean(v <= exact)) < 4 / _SUMMARY_POINTS
    binner = Binner(max_bins=16, subsample=None).fit(v[:, None])
    assert binner.n_bins_[0] == 16


def test_local_cluster_of_two_workers():
    distributed = pytest.importorskip("distributed")
    frame, ddf = table(5, n=1600)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster), dask.config.set(scheduler="distributed"):
        dsk = ProfitTreeClassifier(decision_matrix=MATRIX, max_depth=4).fit(
            ddf[COLS], ddf["y"], sample_weight=ddf["w"], costs=ddf[["offer"]])
        pred = dsk.predict(ddf[COLS]).compute()
    mem = ProfitTreeClassifier(decision_matrix=MATRIX, max_depth=4).fit(
        frame[COLS], frame["y"], sample_weight=frame["w"], costs=frame[["offer"]])
    assert_same_tree(mem.tree_, dsk.tree_)
    assert pred.tolist() == mem.predict(frame[COLS]).tolist()


def test_partitions_run_the_compiled_kernels(monkeypatch):
    """Under ``kernels="compiled"`` every partition's histograms come from the compiled
    kernel, and the tree is the in-memory fit's under the NumPy twins."""
    pytest.importorskip("numba")
    from dtdecide.tree._kernels import _compiled

    frame, ddf = table()
    est = dict(decision_matrix=MATRIX, max_depth=5, min_samples_leaf=3)
    monkeypatch.setenv("DTDECIDE_KERNELS", "numpy")
    mem = ProfitTreeClassifier(**est).fit(frame[COLS], frame["y"], sample_weight=frame["w"],
                                          costs=frame[["offer"]])
    calls = []
    kernel = _compiled.hist_classes

    def counted(*args):
        calls.append(args[0].shape[0])  # the rows of the partition
        return kernel(*args)

    monkeypatch.setattr(_compiled, "hist_classes", counted)
    monkeypatch.setenv("DTDECIDE_KERNELS", "compiled")
    dsk = ProfitTreeClassifier(**est).fit(ddf[COLS], ddf["y"], sample_weight=ddf["w"],
                                          costs=ddf[["offer"]])
    assert_same_tree(mem.tree_, dsk.tree_)
    assert calls and max(calls) < len(frame)  # per partition, never the whole table
