"""The in-memory options on Dask: criterion="profit", the case rule, cost-row matrices."""

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")

from test_dask_fit import COLS, MATRIX, assert_same_tree, table  # noqa: E402

from dtdecide import DecisionMatrix  # noqa: E402
from dtdecide.tree import ProfitTreeClassifier, ProfitTreeRegressor  # noqa: E402

COST_ROWS = ["C_FP", "C_FN", "C_TP", "C_TN"]


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def frames(seed):
    """The table of ``test_dask_fit`` (NaN, categoricals, weights, an empty partition)
    with a 0/1 target, integer cost rows and an interval target with a cost column."""
    frame, ddf = table(seed, n=1800)
    rng = np.random.default_rng(seed + 100)
    n = len(frame)
    frame = frame.assign(
        y01=(frame["y"] == "good").astype(int),
        C_FP=rng.integers(1, 5, n).astype(float), C_FN=rng.integers(2, 30, n).astype(float),
        C_TP=rng.integers(0, 2, n).astype(float), C_TN=0.0,
        amt=(frame["b"] * 3 + frame["a"].fillna(7)).astype(float),
        k=rng.integers(0, 3, n).astype(float),
    )
    return frame, dd.from_pandas(frame, npartitions=1).repartition(divisions=ddf.divisions)


def fit_both(cls, kw, frame, ddf, target, costs=None, weight="w"):
    def args(data):
        return dict(sample_weight=None if weight is None else data[weight],
                    costs=None if costs is None else data[costs])

    mem = cls(**kw).fit(frame[COLS], frame[target], **args(frame))
    dsk = cls(**kw).fit(ddf[COLS], ddf[target], **args(ddf))
    assert mem.split_criterion_ == dsk.split_criterion_
    for attr in ("posterior_smoothing_", "split_class_weight_"):
        a, b = getattr(mem, attr, None), getattr(dsk, attr, None)
        assert (a is None and b is None) or np.allclose(a, b, rtol=1e-12), attr
    return mem, dsk


def assert_same_case_stats(mem, dsk, exact=True):
    a, b = mem._case_stats_, dsk._case_stats_
    assert (a is None) == (b is None)
    if a is not None:
        assert a["matrix"] == b["matrix"]
        check = np.array_equal if exact else (lambda x, y: np.allclose(x, y, rtol=1e-9))
        assert check(a["profit"], b["profit"])


def assert_same_decisions(res, ref):
    """A Dask ``decide`` result equals the pandas one: case table and summary."""
    pd.testing.assert_frame_equal(res.cases.compute(), ref.cases)
    assert np.allclose(res.summary.to_numpy(dtype=float), ref.summary.to_numpy(dtype=float),
                       rtol=1e-12, equal_nan=True)


@pytest.mark.parametrize("kw", [
    {"criterion": "profit", "max_depth": 4},
    {"criterion": "profit", "max_depth": None, "max_leaf_nodes": 8, "ccp_alpha": 1.0},
])
def test_profit_criterion_same_tree(kw):
    frame, ddf = frames(0)
    mem, dsk = fit_both(ProfitTreeClassifier, dict(decision_matrix=MATRIX, **kw), frame, ddf,
                        "y", costs=["offer"])
    assert mem.split_criterion_ == "profit"
    assert mem.tree_.children_left.size > 5
    # the money channels are per unit of each case's stake (not integers): the same
    # splits, and sums that agree up to the order of additions
    assert_same_tree(mem.tree_, dsk.tree_, exact=False)


def test_profit_criterion_with_priors_folds_class_weights():
    frame, ddf = frames(1)
    m = DecisionMatrix({"call": [5.0, -1.0], "skip": [0.0, 0.0]}, levels=["good", "bad"],
                       priors=[0.3, 0.7])
    mem, dsk = fit_both(ProfitTreeClassifier, dict(decision_matrix=m, criterion="profit",
                                                   max_depth=4), frame, ddf, "y", weight=None)
    assert mem.split_class_weight_ is not None
    # unit rows: both fits histogram whole-number class counts and fold the prior
    # weights into the same level map, so every sum is the same, bit for bit
    assert_same_tree(mem.tree_, dsk.tree_)


@pytest.mark.parametrize("kw", [
    {"decision_rule": "case", "max_depth": 4, "ccp_alpha": 1.0},
    {"decision_rule": "case", "max_depth": 3, "posterior_smoothing": 3.0},
])
def test_case_rule_same_tree_node_profits_and_decide(kw):
    frame, ddf = frames(2)
    mem, dsk = fit_both(ProfitTreeClassifier, dict(decision_matrix=MATRIX, **kw), frame, ddf,
                        "y", costs=["offer"])
    assert mem._case_stats_ is not None
    assert_same_tree(mem.tree_, dsk.tree_)
    assert_same_case_stats(mem, dsk)
    res = dsk.decide(ddf[COLS], y=ddf["y"], costs=ddf[["offer"]], sample_weight=ddf["w"])
    ref = mem.decide(frame[COLS], y=frame["y"], costs=frame[["offer"]],
                     sample_weight=frame["w"])
    assert_same_decisions(res, ref)


@pytest.mark.parametrize("kw", [
    {"max_depth": 4},
    {"criterion": "profit", "max_depth": 4},
    {"decision_rule": "case", "max_depth": 4, "ccp_alpha": 0.5},
])
def test_cost_row_matrix_from_dask_costs(kw):
    frame, ddf = frames(3)
    est = dict(decision_matrix=DecisionMatrix.from_cost_matrix(), **kw)
    mem, dsk = fit_both(ProfitTreeClassifier, est, frame, ddf, "y01", costs=COST_ROWS)
    assert mem.tree_.children_left.size > 5
    # criterion="profit" grows on consequences per unit of each case's stake (not
    # integers): the same splits, sums equal up to the order of additions
    assert_same_tree(mem.tree_, dsk.tree_, exact=kw.get("criterion") != "profit")
    assert_same_case_stats(mem, dsk)
    res = dsk.decide(ddf[COLS], y=ddf["y01"], costs=ddf[COST_ROWS])
    ref = mem.decide(frame[COLS], y=frame["y01"], costs=frame[COST_ROWS])
    assert_same_decisions(res, ref)


@pytest.mark.parametrize("kw", [
    {"max_depth": 4},
    {"criterion": "profit", "max_depth": 4},
    {"decision_rule": "case", "max_depth": 3, "ccp_alpha": 0.1},
])
def test_regressor_with_matrix(kw):
    # the knots of the decision statistics are matrix rows, not sums over partitions
    frame, ddf = frames(4)
    m = DecisionMatrix({"lend": [-50.0, 100.0], "no": [0.0, 0.0]}, knots=[0.0, 100.0],
                       kind="revenue", costs={"lend": "k"})
    mem, dsk = fit_both(ProfitTreeRegressor, dict(decision_matrix=m, **kw), frame, ddf,
                        "amt", costs=["k"])
    assert mem.tree_.children_left.size > 5
    assert_same_tree(mem.tree_, dsk.tree_, exact=False)
    assert np.array_equal(mem.tree_.node_decision, dsk.tree_.node_decision)
    assert_same_case_stats(mem, dsk, exact=False)


def ordinal_frames(seed):
    frame, ddf = frames(seed)
    rng = np.random.default_rng(seed)
    score = frame["a"].fillna(30) + frame["b"] * 2 + rng.normal(0, 8, len(frame))
    level = pd.cut(score, [-np.inf, 25, 45, np.inf], labels=["low", "mid", "high"])
    frame = frame.assign(r=level.astype(str), ro=pd.Categorical(
        level.astype(str), categories=["low", "mid", "high"], ordered=True))
    return frame, dd.from_pandas(frame, npartitions=1).repartition(divisions=ddf.divisions)


SQUARE = DecisionMatrix(
    {"low": [0.0, -2.0, -6.0], "mid": [-1.0, 0.0, -2.0], "high": [-5.0, -1.0, 0.0]},
    levels=["low", "mid", "high"], kind="revenue", costs={"mid": "offer"})


@pytest.mark.parametrize("kw, target", [
    ({"ordinal": True}, "r"),
    ({}, "ro"),  # an ordered Categorical target is ordinal whatever ``ordinal`` says
    ({"ordinal": True, "decision_matrix": SQUARE}, "r"),  # the training regret as loss
    ({"decision_matrix": SQUARE, "split_weights": "loss"}, "r"),
], ids=["ordinal", "ordered_categorical", "ordinal_matrix", "split_weights"])
def test_ordinal_targets_and_split_weights(kw, target):
    frame, ddf = ordinal_frames(6)
    costs = ["offer"] if "decision_matrix" in kw else None
    mem, dsk = fit_both(ProfitTreeClassifier, dict(max_depth=4, **kw), frame, ddf, target,
                        costs=costs)
    assert dsk.is_ordinal_ == mem.is_ordinal_ == ("split_weights" not in kw)
    assert list(dsk.classes_) == list(mem.classes_)
    assert mem.tree_.children_left.size > 5
    # the class counts are integers; the loss matrix and class weights come from sums of
    # the costs of every partition (equal up to the order of additions)
    assert_same_tree(mem.tree_, dsk.tree_, exact=costs is None)
    assert np.array_equal(mem.tree_.feature, dsk.tree_.feature)


PRIORS = DecisionMatrix({"call": [5.0, -1.0], "skip": [0.0, 0.0]}, levels=["good", "bad"],
                        priors=[0.3, 0.7])
CLASS_WEIGHTS = {  # the split search's class weights: from priors, from the regret, both
    "priors": dict(decision_matrix=PRIORS),
    "priors-entropy": dict(decision_matrix=PRIORS, criterion="entropy"),
    "loss": dict(decision_matrix=MATRIX, split_weights="loss"),
    "priors-and-loss": dict(decision_matrix=PRIORS, split_weights="loss"),
}


@pytest.mark.parametrize("weight", [None, "w"])
@pytest.mark.parametrize("name", list(CLASS_WEIGHTS))
@pytest.mark.parametrize("seed", [0, 1])
def test_class_weights_same_tree_float32_and_float64_histograms(monkeypatch, name, weight,
                                                                 seed):
    """Class weights with unit rows (float32 count histograms, summed over partitions)
    and with integer sample weights (float64): the Dask tree is the in-memory tree,
    every field exactly."""
    from dtdecide.tree._backends import _dask as backend

    dtypes = []
    part_hist = backend._part_hist

    def spy(*args):
        out = part_hist(*args)
        if out is not None:
            dtypes.append(out[0].dtype)
        return out

    monkeypatch.setattr(backend, "_part_hist", spy)
    frame, ddf = frames(seed)
    kw = dict(max_depth=6, min_samples_leaf=3, **CLASS_WEIGHTS[name])
    costs = ["offer"] if kw["decision_matrix"] is MATRIX else None
    mem, dsk = fit_both(ProfitTreeClassifier, kw, frame, ddf, "y", costs=costs,
                        weight=weight)
    assert mem.split_class_weight_ is not None
    assert mem.tree_.n_nodes > 60
    assert set(dtypes) == {np.dtype(np.float32 if weight is None else np.float64)}
    assert_same_tree(mem.tree_, dsk.tree_)


LEVEL_MATRICES = {  # no case costs: every case's consequences are its level's
    "2-levels": (DecisionMatrix({"call": [5.0, -1.0], "skip": [0.0, 0.0]},
                                levels=["good", "bad"]), "y"),
    "2-levels-priors": (PRIORS, "y"),
    "3-levels": (DecisionMatrix(
        {"low": [0.0, -2.0, -6.0], "mid": [-1.0, 0.0, -2.0], "high": [-5.0, -1.0, 0.0]},
        levels=["low", "mid", "high"], kind="revenue"), "r"),
}


@pytest.mark.parametrize("weight", [None, "w"])
@pytest.mark.parametrize("name", list(LEVEL_MATRICES))
def test_profit_from_class_counts_same_tree(monkeypatch, name, weight):
    """``criterion="profit"`` without case costs: the partitions histogram the class
    counts (float32 for unit rows, float64 with sample weights; one column per class,
    not the money channels) and the money comes from the grower's own level map
    (``profit_level_map``, called once, on the client), as in memory: the Dask tree is
    the in-memory tree, every field exactly."""
    from dtdecide.tree._algorithms import _grower
    from dtdecide.tree._backends import _dask as backend

    seen, maps = [], []
    part_hist, level_map = backend._part_hist, _grower.profit_level_map

    def spy(*args):
        out = part_hist(*args)
        if out is not None:
            seen.append((out[0].dtype, out[0].shape[-1], out[1] is None))
        return out

    def map_spy(*args, **kwargs):
        out = level_map(*args, **kwargs)
        maps.append(out)
        return out

    def no_money(*args):
        raise AssertionError("a partition built per-case money channels")

    monkeypatch.setattr(backend, "_part_hist", spy)
    monkeypatch.setattr(_grower, "profit_level_map", map_spy)
    monkeypatch.setattr(backend, "growth_consequences", no_money)
    matrix, target = LEVEL_MATRICES[name]
    frame, ddf = ordinal_frames(3)
    kw = dict(decision_matrix=matrix, criterion="profit", max_depth=6, min_samples_leaf=3)
    mem, dsk = fit_both(ProfitTreeClassifier, kw, frame, ddf, target, weight=weight)
    assert mem.split_criterion_ == "profit"
    assert mem.tree_.n_nodes > 60
    assert len(maps) == 2 and all(m is not None for m in maps)  # in memory, on Dask
    n_classes = len(mem.classes_)
    hist_dtype = np.dtype(np.float32 if weight is None else np.float64)
    # class counts; row counts histogrammed beside weighted counts only
    assert set(seen) == {(hist_dtype, n_classes, weight is None)}
    assert_same_tree(mem.tree_, dsk.tree_)


@pytest.mark.parametrize("n_levels, weight, on_levels",
                         [(9, None, False), (3, "w", False), (2, "w", True)])
def test_profit_level_limit_is_the_same_rule_on_dask(monkeypatch, n_levels, weight,
                                                     on_levels):
    """The level limit of ``profit_level_map`` (more levels than 4 per money channel for
    unit rows, 1 per channel with sample weights: the per-case money) holds in both fits:
    both take the same path and grow the same tree."""
    from dtdecide.tree._algorithms import _grower

    maps = []
    level_map = _grower.profit_level_map

    def map_spy(*args, **kwargs):
        out = level_map(*args, **kwargs)
        maps.append(out is not None)
        return out

    monkeypatch.setattr(_grower, "profit_level_map", map_spy)
    frame, ddf = frames(4)
    rng = np.random.default_rng(n_levels)
    score = frame["a"].fillna(30) + frame["b"] * 2 + rng.normal(0, 8, len(frame))
    edges = np.quantile(score, np.linspace(0, 1, n_levels + 1)[1:-1])
    frame = frame.assign(t=np.digitize(score, edges))
    ddf = dd.from_pandas(frame, npartitions=1).repartition(divisions=ddf.divisions)
    matrix = DecisionMatrix({"act": list(np.arange(n_levels) * 3.0 - 1.5 * (n_levels - 1)),
                             "skip": [0.0] * n_levels}, levels=list(range(n_levels)))
    kw = dict(decision_matrix=matrix, criterion="profit", max_depth=5, min_samples_leaf=3)
    mem, dsk = fit_both(ProfitTreeClassifier, kw, frame, ddf, "t", weight=weight)
    assert maps == [on_levels, on_levels]  # in memory, on Dask
    assert mem.tree_.n_leaves > 8
    assert_same_tree(mem.tree_, dsk.tree_)


def test_profit_with_case_costs_keeps_money_histograms(monkeypatch):
    """With case costs the partitions still histogram every row's money channels
    (float64, the criterion's channels, row counts beside them)."""
    from dtdecide.tree._backends import _dask as backend

    seen, money = [], []
    part_hist, consequences = backend._part_hist, backend.growth_consequences

    def money_spy(*args):
        money.append(args[0].n_samples)
        return consequences(*args)

    monkeypatch.setattr(backend, "growth_consequences", money_spy)

    def spy(*args):
        out = part_hist(*args)
        if out is not None:
            seen.append((out[0].dtype, out[0].shape[-1], out[1] is None))
        return out

    monkeypatch.setattr(backend, "_part_hist", spy)
    frame, ddf = frames(0)
    mem, dsk = fit_both(ProfitTreeClassifier, dict(decision_matrix=MATRIX, criterion="profit",
                                                   max_depth=4), frame, ddf, "y",
                        costs=["offer"], weight=None)
    from dtdecide.tree._kernels._profit import DEFAULT_PROFIT_METHOD, ProfitCriterion

    n_channels = ProfitCriterion(MATRIX.n_decisions, DEFAULT_PROFIT_METHOD).n_channels
    assert set(seen) == {(np.dtype(np.float64), n_channels, False)}
    assert sum(money) == len(frame)  # every row's money, partition by partition
    assert_same_tree(mem.tree_, dsk.tree_, exact=False)


def test_fractional_weights_same_tree():
    frame, ddf = frames(0)
    frame = frame.assign(wf=frame["w"] * 0.37 + 0.01)
    ddf = ddf.assign(wf=ddf["w"] * 0.37 + 0.01)
    mem, dsk = fit_both(ProfitTreeClassifier, dict(max_depth=6, min_samples_leaf=3,
                                                   **CLASS_WEIGHTS["priors"]),
                        frame, ddf, "y", weight="wf")
    assert np.array_equal(mem.tree_.feature, dsk.tree_.feature)


def test_split_weights_with_cost_rows():
    frame, ddf = frames(7)
    est = dict(decision_matrix=DecisionMatrix.from_cost_matrix(), split_weights="loss",
               max_depth=4)
    mem, dsk = fit_both(ProfitTreeClassifier, est, frame, ddf, "y01", costs=COST_ROWS)
    assert mem.split_class_weight_ is not None
    assert_same_tree(mem.tree_, dsk.tree_, exact=False)
    assert np.array_equal(mem.tree_.feature, dsk.tree_.feature)


def assert_same_leaves(a, b, X):
    """The same partition of the rows into leaves (whatever the leaves' ids)."""
    pairs = pd.DataFrame({"a": a.apply(X), "b": b.apply(X)}).drop_duplicates()
    assert pairs["a"].is_unique and pairs["b"].is_unique
    assert a.get_n_leaves() == b.get_n_leaves()


def bound_matrices(frame):
    rng = np.random.default_rng(13)
    q = rng.integers(-20, 20, (len(frame), 2, 3)).astype(float)
    return [
        ("y01", DecisionMatrix.from_cost_matrix(frame[COST_ROWS].to_numpy())),
        ("y", DecisionMatrix.case_specific(levels=["good", "bad"],
                                           decisions=["a", "b", "c"], values=q)),
    ]


@pytest.mark.parametrize("kw", [
    {"max_depth": 4},
    {"criterion": "profit", "max_depth": 4},
    {"decision_rule": "case", "max_depth": 3, "ccp_alpha": 0.5},
])
def test_consequences_bound_to_the_matrix(kw):
    # every partition takes its own rows of the bound consequences
    frame, ddf = frames(13)
    for target, matrix in bound_matrices(frame):
        mem, dsk = fit_both(ProfitTreeClassifier, dict(decision_matrix=matrix, **kw), frame,
                            ddf, target)
        assert mem.tree_.children_left.size > 5
        ref = mem.decide(frame[COLS], y=frame[target], sample_weight=frame["w"])
        got = dsk.decide(ddf[COLS], y=ddf[target], sample_weight=ddf["w"])
        if kw.get("criterion") == "profit":
            # the channels are per unit of each case's stake (not integers): a split and
            # its mirror image (left and right swapped) tie in exact arithmetic and the
            # order of additions may pick either; the same leaves, decisions and figures
            assert_same_leaves(mem, dsk, frame[COLS])
            cases = got.cases.compute().drop(columns=["_LEAF_"], errors="ignore")
            pd.testing.assert_frame_equal(
                cases, ref.cases.drop(columns=["_LEAF_"], errors="ignore"))
        else:
            assert_same_tree(mem.tree_, dsk.tree_)
            assert_same_case_stats(mem, dsk)
            pd.testing.assert_frame_equal(got.cases.compute(), ref.cases)
        assert np.allclose(got.summary.to_numpy(dtype=float),
                           ref.summary.to_numpy(dtype=float), rtol=1e-12, equal_nan=True)
    short = dd.from_pandas(frame.iloc[:100], npartitions=2)
    with pytest.raises(ValueError, match="consequences for 1500 cases and X has 100 rows"):
        ProfitTreeClassifier(decision_matrix=matrix).fit(short[COLS], short[target])


def test_options_not_on_dask_yet_are_named():
    frame, ddf = frames(5)
    # the in-memory fit's own refusals come first, with its messages
    with pytest.raises(ValueError, match='decision_rule="case" needs a decision_matrix'):
        ProfitTreeClassifier(decision_rule="case").fit(ddf[COLS], ddf["y"])


def test_consequence_sums_pass_with_disk_storage(tmp_path):
    # split_weights reads the partitions' consequence sums before growing: also from disk
    frame, ddf = ordinal_frames(8)
    est = dict(decision_matrix=SQUARE, split_weights="loss", max_depth=4)
    fits = []
    for storage in ("memory", "disk"):
        with dask.config.set({"dtdecide.binned-storage": storage,
                              "dtdecide.binned-directory": str(tmp_path)}):
            fits.append(ProfitTreeClassifier(**est).fit(ddf[COLS], ddf["r"],
                                                        costs=ddf[["offer"]]))
    assert_same_tree(fits[0].tree_, fits[1].tree_)
    assert np.array_equal(fits[0].split_class_weight_, fits[1].split_class_weight_)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("rule", ["leaf", "case"])
def test_decide_prior_adjusted_summary(rule):
    frame, ddf = frames(11)
    m = DecisionMatrix({"accept": [20.0, -10.0], "reject": [0.0, 0.0]},
                       levels=["good", "bad"], kind="revenue", costs={"accept": "offer"},
                       priors=[0.2, 0.8])
    est = ProfitTreeClassifier(decision_matrix=m, max_depth=4, decision_rule=rule).fit(
        frame[COLS], frame["y"], sample_weight=frame["w"], costs=frame[["offer"]])
    costs = frame[["offer"]].copy()
    costs.iloc[::37] = np.nan  # cases with a missing cost are left out of the figures
    dcosts = dd.from_pandas(costs, npartitions=1).repartition(divisions=ddf.divisions)

    def decide(data, c, only_bad):
        if only_bad:  # a level with a positive prior absent: the adjusted figures are NaN
            rows = data["y"] == "bad"
            data, c = data[rows], c[rows]
        return est.decide(data[COLS], y=data["y"], costs=c, sample_weight=data["w"])

    for only_bad in (False, True):
        ref, got = decide(frame, costs, only_bad), decide(ddf, dcosts, only_bad)
        assert "adjusted_total_profit" in ref.summary.index
        assert list(got.summary.index) == list(ref.summary.index)
        assert np.allclose(got.summary.to_numpy(dtype=float),
                           ref.summary.to_numpy(dtype=float), rtol=1e-12, equal_nan=True)
        assert np.isnan(ref.summary["adjusted_total_profit"]) == only_bad


@pytest.mark.parametrize("rule", ["leaf", "case"])
def test_edits_without_rows_are_replayed(rule):
    frame, ddf = frames(12)
    est = dict(decision_matrix=MATRIX, max_depth=4, decision_rule=rule)
    base = ProfitTreeClassifier(**est).fit(frame[COLS], frame["y"], costs=frame[["offer"]])
    edited = base.prune_node(int(np.flatnonzero(base.tree_.children_left >= 0)[1]))
    if rule == "leaf":  # the case rule has no leaf decision to set
        leaf = int(np.flatnonzero(edited.tree_.children_left < 0)[0])
        other = 1 - int(edited.tree_.node_decision[leaf])
        edited = edited.set_decision(leaf, edited.decisions_[other])
    mem = ProfitTreeClassifier(**est).fit(frame[COLS], frame["y"], costs=frame[["offer"]],
                                          edits=edited.edits_)
    dsk = ProfitTreeClassifier(**est).fit(ddf[COLS], ddf["y"], costs=ddf[["offer"]],
                                          edits=edited.edits_)
    assert len(dsk.edits_) == (2 if rule == "leaf" else 1)
    assert dsk.edits_ == mem.edits_
    assert_same_tree(mem.tree_, dsk.tree_)
    assert_same_tree(edited.tree_, dsk.tree_)
    assert dsk.decision_overrides_ == mem.decision_overrides_
    assert_same_case_stats(mem, dsk)
    with pytest.raises(NotImplementedError, match="'split' records"):
        ProfitTreeClassifier(**est).fit(ddf[COLS], ddf["y"], costs=ddf[["offer"]], edits=[
            {"op": "split", "node": 0, "feature": "a", "threshold": 3.0}])


def test_decide_confidence_columns():
    frame, ddf = frames(14)
    est = ProfitTreeClassifier(decision_matrix=MATRIX, max_depth=4).fit(
        frame[COLS], frame["y"], sample_weight=frame["w"], costs=frame[["offer"]])
    kw = dict(confidence=True, n_resamples=50, random_state=3)
    ref = est.decide(frame[COLS], costs=frame[["offer"]], **kw)
    drawn = []
    draw = est._leaf_confidence

    def spy(*args, **kwargs):
        drawn.append(1)
        return draw(*args, **kwargs)

    est._leaf_confidence = spy
    got = est.decide(ddf[COLS], costs=ddf[["offer"]], **kw)
    assert "CONF_y" in ref.cases.columns
    pd.testing.assert_frame_equal(got.cases.compute(), ref.cases)
    assert len(drawn) == 1  # once for every partition and pass
    with pytest.raises(ValueError, match="n_resamples"):
        est.decide(ddf[COLS], costs=ddf[["offer"]], confidence=True, n_resamples=0)


@pytest.mark.parametrize("rule", ["leaf", "case"])
def test_predict_decision_per_partition(rule):
    frame, ddf = frames(15)
    est = ProfitTreeClassifier(decision_matrix=MATRIX, max_depth=4, decision_rule=rule).fit(
        frame[COLS], frame["y"], costs=frame[["offer"]])
    costs = frame[["offer"]].copy()
    costs.iloc[::41] = np.nan  # under the case rule such a case cannot decide: None
    dcosts = dd.from_pandas(costs, npartitions=1).repartition(divisions=ddf.divisions)
    got = est.predict_decision(ddf[COLS], costs=dcosts)
    assert isinstance(got, dd.Series)
    got = got.compute()
    assert got.index.equals(frame.index)
    ref = pd.Series(est.predict_decision(frame[COLS], costs=costs), index=frame.index)
    # Dask may store the names as strings, the missing decisions as <NA>
    assert got.isna().tolist() == ref.isna().tolist()
    assert ref.isna().any() == (rule == "case")
    assert got[got.notna()].tolist() == ref[ref.notna()].tolist()
    with pytest.raises(NotImplementedError, match="decision_path on Dask"):
        est.decision_path(ddf[COLS])
