"""The Dask fit with its binned partitions on disk: the same tree, no files left."""

import os

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")

import dtdecide.tree._backends._dask_storage as _dask_storage  # noqa: E402
from dtdecide import DecisionMatrix  # noqa: E402
from dtdecide.tree import ProfitTreeClassifier, ProfitTreeRegressor  # noqa: E402

FIELDS = (
    "children_left", "children_right", "feature", "threshold", "is_categorical",
    "cat_left", "missing_left", "n_node_samples", "weighted_n_node_samples", "value",
    "impurity", "cost_sum", "profit_sum", "node_decision", "node_expected",
)
MATRIX = DecisionMatrix({"accept": [20.0, -10.0], "reject": [0.0, 0.0]},
                        levels=["good", "bad"], kind="revenue", costs={"accept": "offer"})
COLS = ["a", "b", "c"]


def assert_identical(a, b, exact=True):
    for name in FIELDS:
        x, y = getattr(a, name), getattr(b, name)
        if x is None or y is None:
            assert x is None and y is None, name
        elif exact or x.dtype.kind != "f" or name == "threshold":
            assert np.array_equal(x, y, equal_nan=True), name
        else:  # sums of non-integer amounts: equal up to the order of additions
            assert np.allclose(x, y, rtol=1e-9, atol=1e-9, equal_nan=True), name


def table(seed=0, n=1500):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "a": rng.integers(0, 50, n).astype(float),
        "b": rng.normal(size=n).round(2),
        "c": pd.Categorical(rng.choice(list("pqr"), n)),
        "w": rng.integers(1, 4, n).astype(float),
        "offer": rng.integers(1, 6, n).astype(float),
    })
    frame.loc[rng.random(n) < 0.1, "a"] = np.nan
    score = frame["a"].fillna(25) + 10 * (frame["c"] == "q") + 8 * frame["b"]
    frame["y"] = np.where(score + rng.normal(0, 8, n) > 30, "good", "bad")
    frame = frame.drop(index=range(500, 700))  # an empty partition below
    ddf = dd.from_pandas(frame, npartitions=1).repartition(divisions=[0, 400, 500, 700,
                                                                     1100, n - 1])
    assert 0 in [len(p) for p in ddf.partitions]
    return frame, ddf


def files_under(folder):
    return [os.path.join(d, f) for d, _, fs in os.walk(folder) for f in fs]


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def test_disk_storage_gives_the_in_memory_tree_and_leaves_no_file(tmp_path):
    frame, ddf = table()
    kw = dict(decision_matrix=MATRIX, max_depth=5, min_samples_leaf=5)
    fit_kw = dict(sample_weight="w", costs=["offer"])
    mem = ProfitTreeClassifier(**kw).fit(frame[COLS], frame["y"], sample_weight=frame["w"],
                                         costs=frame[["offer"]])
    trees = {}
    for storage in ("memory", "disk"):
        with dask.config.set({"dtdecide.binned-storage": storage,
                              "dtdecide.binned-directory": str(tmp_path)}):
            trees[storage] = ProfitTreeClassifier(**kw).fit(
                ddf[COLS], ddf["y"], sample_weight=ddf[fit_kw["sample_weight"]],
                costs=ddf[fit_kw["costs"]])
    assert mem.tree_.children_left.size > 9
    assert_identical(mem.tree_, trees["disk"].tree_)
    assert_identical(trees["memory"].tree_, trees["disk"].tree_)
    assert files_under(tmp_path) == []


def test_disk_storage_regressor_matches_memory_storage(tmp_path):
    frame, ddf = table(1)
    target, dtarget = frame["b"] * 4 + frame["a"].fillna(3), ddf["b"] * 4 + ddf["a"].fillna(3)
    trees = []
    for storage in ("memory", "disk"):
        with dask.config.set({"dtdecide.binned-storage": storage,
                              "dtdecide.binned-directory": str(tmp_path)}):
            trees.append(ProfitTreeRegressor(max_depth=4).fit(ddf[COLS], dtarget).tree_)
    assert_identical(*trees)
    mem = ProfitTreeRegressor(max_depth=4).fit(frame[COLS], target).tree_
    assert np.array_equal(mem.feature, trees[1].feature)
    assert np.allclose(mem.value, trees[1].value, rtol=1e-9, atol=1e-9)
    assert files_under(tmp_path) == []


def test_disk_files_removed_when_the_fit_fails(tmp_path, monkeypatch):
    from dtdecide.tree._backends import _dask

    frame, ddf = table(2)
    seen = []

    def failing(part, *args):
        seen.extend(files_under(tmp_path))
        raise RuntimeError("worker lost")

    monkeypatch.setattr(_dask, "_part_hist", failing)
    with dask.config.set({"dtdecide.binned-storage": "disk",
                          "dtdecide.binned-directory": str(tmp_path)}), \
            pytest.raises(RuntimeError, match="worker lost"):
        ProfitTreeClassifier(max_depth=3).fit(ddf[COLS], ddf["y"])
    assert any(f.endswith("binned.bin") for f in seen)  # written, then removed
    assert files_under(tmp_path) == []


def test_disk_part_maps_arrays_back_and_keeps_node_ids(tmp_path):
    from dtdecide.tree._backends._dask import _Part

    Xb = np.asfortranarray(np.arange(24, dtype=np.uint8).reshape(8, 3))
    part = _Part(Xb=Xb, F=np.linspace(0, 1, 8), t=np.arange(8) % 2, empty=np.zeros(0),
                 n=8)
    handle = _dask_storage.DiskPart.write(part, "fit", str(tmp_path), 3)
    back = handle.load()
    assert isinstance(back.Xb, np.ndarray) and back.Xb.flags.f_contiguous
    assert not back.Xb.flags.writeable  # mapped read-only from the file
    for name in ("Xb", "F", "t", "empty"):
        assert np.array_equal(getattr(back, name), getattr(part, name))
        assert getattr(back, name).dtype == getattr(part, name).dtype
    assert not hasattr(back, "node")
    back.save_node(np.array([0, 1, 2, 2, 1, 0, 5, 6]))
    assert handle.load().node.tolist() == [0, 1, 2, 2, 1, 0, 5, 6]
    _dask_storage.remove_folders("fit", str(tmp_path))
    assert files_under(tmp_path) == []
    with pytest.raises(FileNotFoundError, match="binned-directory"):
        handle.load()


def test_storage_configuration_checked_and_auto_choice():
    frame, ddf = table(3)
    with dask.config.set({"dtdecide.binned-storage": "ssd"}), \
            pytest.raises(ValueError, match="dtdecide.binned-storage"):
        ProfitTreeClassifier(max_depth=2).fit(ddf[COLS], ddf["y"])
    assert _dask_storage.choose_storage(dask, "auto", 1e3) == "memory"
    assert _dask_storage.choose_storage(dask, "auto", 1e18) == "disk"
    assert _dask_storage.choose_storage(dask, "memory", 1e18) == "memory"
    assert _dask_storage.binned_nbytes(10, 3, 1, 1) == 10 * (3 + 24)


def test_disk_storage_on_a_local_cluster(tmp_path):
    distributed = pytest.importorskip("distributed")
    frame, ddf = table(4, n=1200)
    kw = dict(decision_matrix=MATRIX, max_depth=4)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client, dask.config.set(
                {"scheduler": "distributed", "dtdecide.binned-storage": "disk"}):
        dsk = ProfitTreeClassifier(**kw).fit(ddf[COLS], ddf["y"], costs=ddf[["offer"]])
        local = client.run(lambda dask_worker: dask_worker.local_directory)
        left = [f for d in local.values() for f in files_under(d) if "dtdecide-binned" in f]
    assert len(local) == 2
    mem = ProfitTreeClassifier(**kw).fit(frame[COLS], frame["y"], costs=frame[["offer"]])
    assert_identical(mem.tree_, dsk.tree_)
    assert left == []


@pytest.mark.parametrize("kw", [{"criterion": "profit"}, {"decision_rule": "case"}])
def test_disk_storage_profit_criterion_and_case_rule(tmp_path, kw):
    frame, ddf = table(5)
    est = dict(decision_matrix=MATRIX, max_depth=4, **kw)
    fits = []
    for storage in ("memory", "disk"):
        with dask.config.set({"dtdecide.binned-storage": storage,
                              "dtdecide.binned-directory": str(tmp_path)}):
            fits.append(ProfitTreeClassifier(**est).fit(
                ddf[COLS], ddf["y"], sample_weight=ddf["w"], costs=ddf[["offer"]]))
    mem = ProfitTreeClassifier(**est).fit(frame[COLS], frame["y"], sample_weight=frame["w"],
                                          costs=frame[["offer"]])
    assert fits[1].tree_.children_left.size > 5
    assert_identical(fits[0].tree_, fits[1].tree_)
    # criterion="profit" grows on amounts per unit of each case's stake (not integers):
    # the in-memory sums are added in another order than the partitions'
    assert_identical(mem.tree_, fits[1].tree_, exact="criterion" not in kw)
    a, b = fits[0]._case_stats_, fits[1]._case_stats_
    assert (a is None) == (b is None) == ("decision_rule" not in kw)
    if a is not None:
        assert np.array_equal(a["profit"], b["profit"])
    assert files_under(tmp_path) == []
