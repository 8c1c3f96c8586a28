"""n_jobs: threads share the features; the tree is the same for every n_jobs."""

import numpy as np
import pandas as pd
import pytest

from dtdecide import DecisionMatrix
from dtdecide._parallel import ThreadPool, check_n_jobs, thread_pool
from dtdecide.tree import ProfitTreeClassifier, ProfitTreeRegressor
from dtdecide.tree._algorithms._grower import grow_tree
from dtdecide.tree._kernels._binning import Binner
from dtdecide.tree._kernels._histogram import BinLayout, HistogramTarget, build_histograms
from dtdecide.tree._kernels._parallel import feature_groups

NODE_FIELDS = (
    "children_left", "children_right", "parent", "depth", "feature", "threshold",
    "is_categorical", "cat_left", "missing_left", "n_node_samples",
    "weighted_n_node_samples", "value", "impurity",
)
DECISION_FIELDS = ("cost_sum", "profit_sum", "node_decision", "node_expected")


def assert_same_tree(a, b):
    for name in NODE_FIELDS + DECISION_FIELDS:
        x, y = getattr(a, name), getattr(b, name)
        if x is None or y is None:
            assert x is None and y is None, name
            continue
        # bit for bit: the same operations in the same order for every feature
        assert x.dtype == y.dtype and np.array_equal(x, y, equal_nan=True), name


def frame(seed, n=1500):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "a": rng.normal(size=n),
        "b": rng.exponential(size=n),
        "c": pd.Categorical(rng.choice(list("pqrstu"), size=n)),
        "d": rng.integers(0, 4, size=n).astype(float),
        "e": rng.normal(size=n).round(1),
    })
    X.loc[rng.random(n) < 0.1, "a"] = np.nan
    X.loc[rng.random(n) < 0.05, "c"] = np.nan
    signal = X["a"].fillna(0) - X["b"] + (X["c"].cat.codes % 2) + 0.3 * X["e"]
    return X, signal.to_numpy() + rng.normal(size=n) * 0.5, rng


@pytest.mark.parametrize("n_jobs", [2, -1, 3])
def test_classifier_same_tree_weights_and_case_costs(n_jobs):
    X, signal, rng = frame(0)
    y = np.where(signal > 0.2, "good", "bad")
    w = rng.uniform(0.5, 2.0, size=y.size)
    costs = pd.DataFrame({"offer": rng.uniform(1, 5, size=y.size)})
    m = DecisionMatrix({"accept": [20.0, -10.0], "reject": [0.0, 0.0]},
                       levels=["good", "bad"], kind="revenue", costs={"accept": "offer"})
    kw = dict(decision_matrix=m, max_depth=6, min_samples_leaf=3, random_state=0)
    one = ProfitTreeClassifier(**kw).fit(X, y, sample_weight=w, costs=costs)
    many = ProfitTreeClassifier(**kw, n_jobs=n_jobs).fit(X, y, sample_weight=w, costs=costs)
    assert_same_tree(one.tree_, many.tree_)
    assert one.tree_.children_left.size > 15


@pytest.mark.parametrize("criterion", ["gini", "entropy", "profit"])
def test_classifier_same_tree_criteria_best_first(criterion):
    X, signal, rng = frame(1)
    y = np.digitize(signal, [-1.0, 0.5])
    m = DecisionMatrix([[5.0, 0.0, -1.0], [0.0, 3.0, 0.0], [-4.0, 0.0, 6.0]],
                       levels=[0, 1, 2], decisions=["x", "y", "z"])
    for kw in ({"max_depth": 5}, {"max_depth": None, "max_leaf_nodes": 12}):
        est = dict(decision_matrix=m, criterion=criterion, min_samples_leaf=2, **kw)
        one = ProfitTreeClassifier(**est).fit(X, y)
        two = ProfitTreeClassifier(**est, n_jobs=2).fit(X, y)
        assert_same_tree(one.tree_, two.tree_)


def test_regressor_same_tree_with_weights():
    X, signal, rng = frame(2)
    w = rng.integers(1, 4, size=signal.size).astype(float)
    one = ProfitTreeRegressor(max_depth=6, min_samples_leaf=3).fit(X, signal, sample_weight=w)
    two = ProfitTreeRegressor(max_depth=6, min_samples_leaf=3, n_jobs=2).fit(
        X, signal, sample_weight=w
    )
    assert_same_tree(one.tree_, two.tree_)
    assert one.tree_.children_left.size > 15


def test_grow_tree_many_chunks_same_tree():
    """Several row chunks per feature group, uint16 bins and a wide categorical."""
    rng = np.random.default_rng(3)
    n = 2000
    X = np.column_stack([rng.normal(size=n), rng.integers(0, 300, size=n),
                         rng.normal(size=n), rng.integers(0, 3, size=n)]).astype(float)
    X[rng.random(X.shape) < 0.05] = np.nan
    y = (np.nan_to_num(X[:, 0]) + (np.nan_to_num(X[:, 1]) % 3 == 0) > 0.3).astype(int)
    is_cat = np.array([False, True, False, True])
    w = rng.uniform(0.1, 3.0, size=n)
    trees = []
    for n_threads in (1, 2, 4):
        binner = Binner(max_bins=64, random_state=0)
        if n_threads == 1:
            Xb = binner.fit_transform(X, is_cat, w)
            trees.append(grow_tree(Xb, binner, y=y, sample_weight=w, max_depth=6,
                                   min_samples_leaf=2, chunk_size=97))
            continue
        with ThreadPool(n_threads) as pool:
            Xb = binner.fit_transform(X, is_cat, w, pool=pool)
            trees.append(grow_tree(Xb, binner, y=y, sample_weight=w, max_depth=6,
                                   min_samples_leaf=2, chunk_size=97, pool=pool))
    assert Xb.dtype == np.uint16
    for tree in trees[1:]:
        assert_same_tree(trees[0], tree)


def test_histograms_with_pool_equal_sequential():
    rng = np.random.default_rng(4)
    Xb = np.asfortranarray(rng.integers(0, 6, size=(500, 5)).astype(np.uint8))
    layout = BinLayout([3, 6, 4, 6, 2])
    Xb = np.minimum(Xb, layout.widths - 2).astype(np.uint8)
    Xb[rng.random(Xb.shape) < 0.1] = layout.max_width - 1
    rows = np.sort(rng.choice(500, 300, replace=False))
    slots = rng.integers(0, 3, size=300)
    target = HistogramTarget(codes=rng.integers(0, 2, size=500), n_classes=2,
                             weights=rng.random(500))
    seq = build_histograms(Xb, rows, slots, 3, layout, target, with_counts=True,
                           chunk_size=64)
    with ThreadPool(3) as pool:
        par = build_histograms(Xb, rows, slots, 3, layout, target, with_counts=True,
                               chunk_size=64, pool=pool)
    for a, b in zip(seq, par):
        assert np.array_equal(a, b)
    # and a slow obvious twin of the counts
    for s in range(3):
        for j in range(5):
            r = rows[slots == s]
            b = np.minimum(Xb[r, j], layout.widths[j] - 1)
            expect = np.bincount(b, minlength=layout.widths[j])
            got = seq[1][s, layout.offsets[j] : layout.offsets[j + 1]]
            assert got.tolist() == expect.tolist()


def test_binner_errors_do_not_depend_on_threads():
    X = np.array([[1.0, 0.0, 2.0], [np.inf, 1.0, -np.inf], [3.0, 2.0, 1.0]] * 5)
    for pool_size in (1, 2, 3):
        binner = Binner().fit(X[[0, 2]], np.array([False, True, False]))
        if pool_size == 1:
            with pytest.raises(ValueError, match="column 0 contains infinite"):
                binner.transform(X)
            with pytest.raises(ValueError, match="column 0 contains infinite"):
                Binner().fit(X)
            continue
        with ThreadPool(pool_size) as pool:
            with pytest.raises(ValueError, match="column 0 contains infinite"):
                binner.transform(X, pool=pool)
            with pytest.raises(ValueError, match="column 0 contains infinite"):
                Binner().fit(X, pool=pool)
            Xc = X[[0, 2]].copy()
            Xc[0, 1] = -1.0  # a bad category code in column 1 and an inf in column 2
            Xc[1, 2] = np.inf
            with pytest.raises(ValueError, match="column 1 is categorical"):
                Binner().fit(Xc, np.array([False, True, False]), pool=pool)


def test_feature_groups_balance_and_cover():
    groups = feature_groups([4.0, 1.0, 3.0, 2.0, 2.0], 2)
    assert [g.tolist() for g in groups] == [[0, 1], [2, 3, 4]]  # runs: max load 7
    assert len(feature_groups([1.0, 1.0], 8)) == 2
    assert [g.tolist() for g in feature_groups(np.ones(20), 2)] == [
        list(range(10)), list(range(10, 20))
    ]


@pytest.mark.parametrize("seed", range(30))
def test_feature_groups_are_optimal_runs(seed):
    """Consecutive runs covering every feature once, whose largest load is the smallest
    any split into at most ``n_groups`` runs achieves (brute force over the cuts)."""
    import itertools

    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 9))
    n_groups = int(rng.integers(1, 5))
    costs = rng.choice([1.0, 2.0, 3.0, 7.5], size=n)
    groups = feature_groups(costs, n_groups)
    assert np.concatenate(groups).tolist() == list(range(n))
    assert all(np.all(np.diff(g) == 1) for g in groups)
    assert len(groups) <= n_groups
    best = min(
        max(costs[a:b].sum() for a, b in zip((0, *cut), (*cut, n)))
        for k in range(min(n_groups, n))
        for cut in itertools.combinations(range(1, n), k)
    )
    assert max(costs[g].sum() for g in groups) == pytest.approx(best)


@pytest.mark.parametrize("bad", [0, 1.5, "two", True])
def test_bad_n_jobs(bad):
    X, signal, _ = frame(5, n=100)
    with pytest.raises(ValueError, match="n_jobs"):
        ProfitTreeRegressor(n_jobs=bad).fit(X, signal)
    with pytest.raises(ValueError, match="n_jobs"):
        check_n_jobs(bad)


def test_check_n_jobs_follows_joblib():
    from joblib import cpu_count, parallel_config

    assert check_n_jobs(None) == 1
    assert check_n_jobs(-1) == cpu_count()
    with parallel_config(n_jobs=2):
        assert check_n_jobs(None) == 2


def test_one_pool_per_fit(monkeypatch):
    """A fit starts its threads once: binning and growing, the node statistics and the
    case rule's sums share the pool the fit opened (``thread_pool`` inside another of
    the same size hands out that one); the tree is the one of one thread."""
    import dtdecide._parallel as parallel_module
    from dtdecide import config_context

    opened = []
    real_enter = ThreadPool.__enter__

    def counting_enter(self):
        opened.append(self.n_threads)
        return real_enter(self)

    X, signal, rng = frame(3, n=4000)
    y = (signal > 0).astype(int)
    cost = pd.DataFrame({"cost": rng.uniform(0.5, 3.0, size=y.size)})
    matrix = DecisionMatrix({"call": [12.0, 0.0], "skip": [0.0, 0.0]}, levels=[1, 0],
                            kind="revenue", costs={"call": "cost"})
    kw = dict(max_depth=5, random_state=0, decision_matrix=matrix, decision_rule="case",
              posterior_smoothing=0)
    with config_context(kernels="compiled"):
        one = ProfitTreeClassifier(n_jobs=1, **kw).fit(X, y, costs=cost)
        monkeypatch.setattr(ThreadPool, "__enter__", counting_enter)
        two = ProfitTreeClassifier(n_jobs=2, **kw).fit(X, y, costs=cost)
    assert opened == [2]
    assert getattr(parallel_module._open_pool, "pool", None) is None  # closed again
    assert_same_tree(one.tree_, two.tree_)
    with thread_pool(2) as outer:
        with thread_pool(2) as inner, thread_pool(3) as other:
            assert inner is outer and other is not outer and other.n_threads == 3
        assert parallel_module._open_pool.pool is outer
    assert opened == [2, 2, 3]


def test_submit_runs_on_a_worker_or_the_calling_thread():
    import threading

    def who():
        return threading.current_thread().name

    with ThreadPool(2) as pool:
        started = threading.Event()

        def first():
            started.set()
            return who()

        pending = pool.submit(first)
        assert started.wait(10)  # a worker took it while this thread went on
        assert pending.result().startswith("dtdecide-") and pending.result() == "dtdecide-0"
        pending = pool.submit(lambda: 1 / 0)
        with pytest.raises(ZeroDivisionError):
            pending.result()
        assert pool.map_groups(lambda g: g * 2, [1, 2, 3]) == [2, 4, 6]  # still working
    with ThreadPool(1) as pool:  # no worker: at once, on the calling thread
        assert pool.submit(who).result() == threading.current_thread().name
