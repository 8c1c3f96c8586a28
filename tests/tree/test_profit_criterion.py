"""criterion="profit": split gains against a slow per-node reference on raw rows."""

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dtdecide import DecisionMatrix, ProfitTreeClassifier, ProfitTreeRegressor
from dtdecide.tree._kernels._binning import Binner
from dtdecide.tree._kernels._histogram import BinLayout, build_histograms
from dtdecide.tree._kernels._profit import (
    PROFIT_METHODS,
    TIE_BREAK,
    ProfitCriterion,
    growth_consequences,
    level_consequences,
)
from dtdecide.tree._kernels._splitter import find_best_splits


# ------------------------------------------------------------------ slow reference
def ref_w(q, w, method):
    """The method's node impurity ``W`` written out from the rows' own consequences."""
    if q.shape[0] == 0:
        return 0.0
    best = q.max(axis=1)
    b = q.argmax(axis=1)
    D = q.shape[1]
    regret = best[:, None] - q  # r(i, d)

    def cost_gini():
        A = np.array([np.sum((w * (best - q.min(axis=1)))[b == d]) for d in range(D)])
        tot = A.sum()
        return 0.0 if tot <= 0 else tot * (1.0 - np.sum((A / tot) ** 2))

    def profit():  # profit of perfect per-case decisions minus the node's best decision
        return float(np.sum(w * best) - max(np.sum(w * q[:, d]) for d in range(D)))

    if method in ("cost_gini", "cost_gini_money"):  # the same W; they differ in q
        return cost_gini()
    if method == "profit":
        return profit()
    if method == "profit_gini":
        return profit() + TIE_BREAK * cost_gini()
    # regret_gini: expected regret of a decision drawn from the node's best decisions
    M = np.array([np.sum(w[b == d]) for d in range(D)])
    R = np.array([np.sum(w * regret[:, d]) for d in range(D)])
    return float(R @ M / M.sum()) if M.sum() > 0 else 0.0


def ref_gain(q, w, left, method):
    return ref_w(q, w, method) - ref_w(q[left], w[left], method) - ref_w(
        q[~left], w[~left], method
    )


def ref_best_numeric(x, q, w, method, msl):
    """Best gain over every threshold on the raw values, missing values left or right."""
    miss = np.isnan(x)
    best = -np.inf
    for v in np.unique(x[~miss]):
        for missing_left in (False, True):
            left = np.where(miss, missing_left, x <= v)
            if left.sum() < msl or (~left).sum() < msl:
                continue
            best = max(best, ref_gain(q, w, left, method))
    return best


def ref_best_categorical(x, q, w, method, msl):
    """Best gain over every subset of the present categories, missing left or right."""
    miss = np.isnan(x)
    cats = np.unique(x[~miss])
    best = -np.inf
    for k in range(1, len(cats) + 1):
        for subset in itertools.combinations(cats, k):
            for missing_left in (False, True):
                left = np.where(miss, missing_left, np.isin(x, subset))
                if left.sum() < msl or (~left).sum() < msl:
                    continue
                best = max(best, ref_gain(q, w, left, method))
    return best


def vectorised_best(x, q, w, method, is_cat, msl):
    X = x[:, None]
    binner = Binner(max_bins=255).fit(X, np.array([is_cat]))
    Xb = binner.transform(X)
    crit = ProfitCriterion(q.shape[1], method)
    codes, weights = crit.row_channels(q, w)
    from dtdecide.tree._kernels._histogram import HistogramTarget

    target = HistogramTarget(codes=codes, n_classes=q.shape[1], weights=weights)
    layout = BinLayout.from_binner(binner)
    hist, counts = build_histograms(
        Xb, None, np.zeros(len(x), dtype=np.intp), 1, layout, target, with_counts=True
    )
    split = find_best_splits(
        hist, counts, is_classification=True, criterion=crit,
        is_categorical=np.array([is_cat]), min_samples_leaf=msl, layout=layout,
    )
    left = split.go_left[0][Xb[:, 0]]
    return float(split.gain[0]), left


def _data(seed, n, D, n_cats=None, heavy=False):
    rng = np.random.default_rng(seed)
    if n_cats is None:
        x = np.round(rng.normal(size=n), 1)
    else:
        x = rng.integers(0, n_cats, size=n).astype(float)
    x[rng.random(n) < 0.15] = np.nan
    signal = np.nan_to_num(x, nan=0.5)
    q = rng.normal(size=(n, D)) + np.outer(signal, np.arange(D)) * 0.7
    if heavy:
        q *= rng.lognormal(sigma=1.5, size=(n, 1))
    w = rng.uniform(0.5, 2.0, size=n)
    return x, q, w


@pytest.mark.parametrize("method", PROFIT_METHODS)
@pytest.mark.parametrize("D", [2, 3])
@pytest.mark.parametrize("seed", [0, 1])
def test_numeric_gain_matches_raw_row_reference(method, D, seed):
    x, q, w = _data(seed, 60, D, heavy=seed == 1)
    msl = 3
    gain, left = vectorised_best(x, q, w, method, False, msl)
    expected = ref_best_numeric(x, q, w, method, msl)
    assert gain == pytest.approx(expected, rel=1e-9, abs=1e-9)
    # the returned routing realises that gain on the raw rows
    assert ref_gain(q, w, left, method) == pytest.approx(expected, rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("method", ["cost_gini", "profit", "profit_gini"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_categorical_two_decisions_is_exact(method, seed):
    # ordering categories by the share of money preferring decision 2 is exact for
    # criteria concave in the two money channels
    x, q, w = _data(seed, 80, 2, n_cats=5, heavy=seed == 2)
    gain, left = vectorised_best(x, q, w, method, True, 2)
    expected = ref_best_categorical(x, q, w, method, 2)
    assert gain == pytest.approx(expected, rel=1e-9, abs=1e-9)
    assert ref_gain(q, w, left, method) == pytest.approx(gain, rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("method", ["regret_gini"])
def test_categorical_heuristic_methods_realise_their_gain(method):
    x, q, w = _data(3, 80, 3, n_cats=5)
    gain, left = vectorised_best(x, q, w, method, True, 2)
    assert gain <= ref_best_categorical(x, q, w, method, 2) + 1e-9
    assert ref_gain(q, w, left, method) == pytest.approx(gain, rel=1e-9, abs=1e-9)


def test_hand_computed_profit_gain():
    # 2 responders worth 9 net, 4 non-responders costing 1 each; contact everyone (+14)
    # or split them apart (+18): the profit gain is 4
    q = np.array([[9.0, 0], [9, 0], [-1, 0], [-1, 0], [-1, 0], [-1, 0]])
    w = np.ones(6)
    crit = ProfitCriterion(2, "profit")
    codes, weights = crit.row_channels(q, w)
    parent = np.array([[18.0, 4.0]])
    left = np.array([[[18.0, 0.0]]])
    assert codes.tolist() == [0, 0, 1, 1, 1, 1]
    assert float(crit.split_gain(left, parent)[0, 0]) == 4.0
    assert ref_gain(q, w, np.arange(6) < 2, "profit") == 4.0


def test_regret_gini_is_generalized_gini_without_case_costs():
    # square matrix, each level's best decision on the diagonal: the node's regret
    # Gini equals N * sum_t sum_d L(t, d) p_t p_d with L the regret matrix
    Q = np.array([[5.0, 1.0, 0.0], [0.0, 4.0, 1.0], [-1.0, 0.0, 3.0]])
    L = Q.max(axis=1, keepdims=True) - Q
    t = np.array([0, 0, 1, 2, 2, 2, 1])
    w = np.ones(t.size)
    n = np.bincount(t, minlength=3).astype(float)
    expected = float(n @ L @ n / n.sum())
    assert ref_w(Q[t], w, "regret_gini") == pytest.approx(expected)
    crit = ProfitCriterion(3, "regret_gini")
    codes, weights = crit.row_channels(Q[t], w)
    sums = np.zeros(crit.n_channels)
    for k in range(crit.n_groups):
        np.add.at(sums, k * 3 + codes, weights[k])
    assert float(crit.weighted_impurity(sums)) == pytest.approx(expected)


# ------------------------------------------------------------------ estimators
def _bank_like(n=600, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "age": rng.integers(20, 70, n).astype(float),
        "balance": np.round(rng.lognormal(6, 1.2, n)),
        "job": pd.Categorical(rng.choice(["a", "b", "c", "d"], n)),
    })
    X.loc[rng.random(n) < 0.1, "age"] = np.nan
    p = 0.05 + 0.3 * (X["job"].isin(["a", "c"])) + 0.2 * (X["age"].fillna(40) > 50)
    y = np.where(rng.random(n) < p, "yes", "no")
    fn = 0.1 * np.maximum(X["balance"].to_numpy(), 50.0)
    costs = pd.DataFrame({"C_FP": 4.0, "C_FN": fn, "C_TP": 4.0, "C_TN": 0.0})
    return X, y, costs


def _unbound():
    return DecisionMatrix.case_specific(levels=["no", "yes"],
                                        decisions=("predict 1", "predict 0"), kind="loss")


def _splits(tree):
    t = tree.tree_
    return t.feature.tolist(), np.nan_to_num(t.threshold, nan=-1).tolist(), t.cat_left.tolist()


def test_profit_without_matrix_names_criterion():
    X, y, _ = _bank_like(50)
    with pytest.raises(ValueError, match="criterion"):
        ProfitTreeClassifier(criterion="profit").fit(X, y)
    with pytest.raises(ValueError, match="criterion"):
        ProfitTreeRegressor(criterion="profit").fit(X, np.arange(50.0))


def test_profit_tree_values_are_class_counts_and_decides():
    X, y, costs = _bank_like()
    tree = ProfitTreeClassifier(decision_matrix=_unbound(), criterion="profit",
                                max_depth=4).fit(X, y, costs=costs.to_numpy())
    leaves = tree.apply(X)
    t = tree.tree_
    for leaf in np.unique(leaves):
        counts = [np.sum((leaves == leaf) & (y == c)) for c in tree.classes_]
        assert t.value[leaf].tolist() == counts
    assert t.value[0].sum() == len(y)
    # impurity is the impurity W per unit of frequency, of the consequences per unit of
    # each case's stake (C_FP - C_TN) + (C_FN - C_TP)
    q = -DecisionMatrix.from_cost_matrix(costs.to_numpy()).case_values[
        np.arange(len(y)), (y == "yes").astype(int)]
    c = costs.to_numpy()
    q = q / ((c[:, 0] - c[:, 3]) + (c[:, 1] - c[:, 2]))[:, None]
    assert t.weighted_n_node_samples[0] * t.impurity[0] == pytest.approx(
        ref_w(q, np.ones(len(y)), "cost_gini"))
    res = tree.decide(X, y, costs=costs.to_numpy())
    assert res.cases.shape[0] == len(y)


def test_profit_grows_more_training_profit_than_gini_at_equal_size():
    X, y, costs = _bank_like(1500, seed=3)
    c = costs.to_numpy()
    out = {}
    for crit in ("gini", "profit"):
        tree = ProfitTreeClassifier(decision_matrix=_unbound(), criterion=crit,
                                    max_leaf_nodes=6, min_samples_leaf=20).fit(X, y, costs=c)
        out[crit] = tree.decide(X, y, costs=c).summary["total_loss"]
    assert out["profit"] <= out["gini"]


def _candidate_gains(x, q, w, method):
    """Gain of every threshold of a numeric input (missing right), from prefix sums."""
    crit = ProfitCriterion(q.shape[1], method)
    codes, weights = crit.row_channels(q, w)
    order = np.argsort(x, kind="stable")
    cells = np.zeros((x.size, crit.n_channels))
    for k in range(crit.n_groups):
        cells[np.arange(x.size), k * q.shape[1] + codes] = weights[k]
    prefix = np.cumsum(cells[order], axis=0)[:-1]
    return crit.split_gain(prefix[None], prefix[-1:] + cells[order][-1:])[0]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), shift_scale=st.floats(0.1, 1000.0),
       scale=st.floats(0.01, 100.0), method=st.sampled_from(PROFIT_METHODS),
       D=st.integers(2, 4))
def test_adding_a_constant_per_case_leaves_gains_unchanged(seed, shift_scale, scale,
                                                            method, D):
    rng = np.random.default_rng(seed)
    n = 40
    x = rng.normal(size=n)
    q = rng.normal(size=(n, D)) * rng.lognormal(size=(n, 1)) + np.outer(x, np.arange(D))
    w = rng.uniform(0.2, 3.0, size=n)
    base = _candidate_gains(x, q, w, method)
    shifted = _candidate_gains(x, q + rng.normal(scale=shift_scale, size=(n, 1)), w, method)
    scaled = _candidate_gains(x, q * scale, w, method)
    tol = 1e-9 * np.abs(q).sum() * w.max()
    np.testing.assert_allclose(shifted, base, atol=tol * (1 + shift_scale))
    np.testing.assert_allclose(scaled, scale * base, atol=tol * scale)


@pytest.mark.parametrize("method", PROFIT_METHODS)
def test_shifted_or_rescaled_consequences_grow_the_same_tree(method):
    # adding a power of two per case and scaling by one are exact in floating point
    X, y, costs = _bank_like(300, seed=1)
    q = DecisionMatrix.from_cost_matrix(costs.to_numpy(), levels=("no", "yes")).case_values
    shift = np.where(np.arange(len(y)) % 3 == 0, 1024.0, -64.0)[:, None, None]
    m = DecisionMatrix.case_specific(levels=["no", "yes"], decisions=("a", "b"), kind="loss")
    trees = []
    for qq in (q, q + shift, q * 0.25):
        est = ProfitTreeClassifier(decision_matrix=m, criterion="profit", max_depth=3,
                                   min_samples_leaf=10)
        est._profit_method = method
        trees.append(_splits(est.fit(X, y, costs=qq)))
    assert trees[0] == trees[2]
    assert trees[0][0][:3] == trees[1][0][:3]  # the top splits (no near-ties there)


def test_additive_matrix_with_cost_variables_equals_case_specific_form():
    X, y, costs = _bank_like(500, seed=1)
    rng = np.random.default_rng(1)
    call = rng.uniform(1, 8, size=len(y))
    additive = DecisionMatrix([[0.0, 0.0], [30.0, 0.0]], levels=["no", "yes"],
                              decisions=["call", "skip"], kind="revenue",
                              costs={"call": "call_cost"})
    q = np.zeros((len(y), 2, 2))
    q[:, 0, 0] = -call
    q[:, 1, 0] = 30.0 - call
    specific = DecisionMatrix.case_specific(levels=["no", "yes"], decisions=["call", "skip"])
    a = ProfitTreeClassifier(decision_matrix=additive, criterion="profit", max_depth=4).fit(
        X, y, costs=pd.DataFrame({"call_cost": call}))
    b = ProfitTreeClassifier(decision_matrix=specific, criterion="profit", max_depth=4).fit(
        X, y, costs=q)
    assert _splits(a) == _splits(b)


def test_priors_act_as_class_weights_in_split_search():
    X, y, costs = _bank_like(600, seed=2)
    X["balance"] = np.round(np.log(X["balance"]), 1)  # < 255 values: same bins either way
    c = costs.to_numpy()
    priors = np.array([0.6, 0.4])
    m = DecisionMatrix.case_specific(levels=["no", "yes"], decisions=("p1", "p0"),
                                     kind="loss", priors=priors)
    with_priors = ProfitTreeClassifier(decision_matrix=m, criterion="profit",
                                       max_depth=3).fit(X, y, costs=c)
    rho = np.array([np.mean(y == "no"), np.mean(y == "yes")])
    ratio = (priors / rho)[(y == "yes").astype(int)]
    weighted = ProfitTreeClassifier(decision_matrix=m, criterion="profit", max_depth=3,
                                    use_priors=False).fit(X, y, costs=c, sample_weight=ratio)
    assert _splits(with_priors) == _splits(weighted)


def test_more_levels_and_decisions_and_ordinal():
    rng = np.random.default_rng(4)
    n = 400
    X = pd.DataFrame({"x": rng.normal(size=n), "z": rng.normal(size=n)})
    y = np.digitize(X["x"] + rng.normal(scale=0.5, size=n), [-0.5, 0.5])
    Q = [[4.0, 1.0, -2.0, 0.0], [0.0, 3.0, 1.0, 0.0], [-3.0, 0.0, 5.0, 0.0]]
    m = DecisionMatrix(Q, levels=[0, 1, 2], decisions=["a", "b", "c", "none"])
    tree = ProfitTreeClassifier(decision_matrix=m, criterion="profit", max_depth=3).fit(X, y)
    assert tree.tree_.feature[0] == 0
    square = DecisionMatrix([[3.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 3.0]],
                            levels=[0, 1, 2])
    ordinal = [ProfitTreeClassifier(decision_matrix=square, criterion=crit, ordinal=True,
                                    max_depth=3).fit(X, y) for crit in ("gini", "profit")]
    assert _splits(ordinal[0]) == _splits(ordinal[1])  # ordinal keeps the matrix impurity


def test_regressor_profit_criterion():
    rng = np.random.default_rng(5)
    X = rng.uniform(0, 10, size=(400, 2))
    y = 3 * X[:, 0] + rng.normal(size=400)
    m = DecisionMatrix({"invest": [-20, 40], "wait": [0, 0]}, knots=[0, 30])
    reg = ProfitTreeRegressor(decision_matrix=m, criterion="profit", max_depth=3).fit(X, y)
    t = reg.tree_
    leaves = reg.apply(X)
    for leaf in np.unique(leaves):
        assert t.value[leaf, 0] == np.sum(leaves == leaf)
        assert t.value[leaf, 1] == pytest.approx(y[leaves == leaf].sum())
    assert t.feature[0] == 0
    # the root threshold sits where investing turns profitable (y about 10, x about 3.3)
    assert 2.0 < t.threshold[0] < 4.5


def test_split_weights_do_not_combine_with_profit():
    X, y, costs = _bank_like(100)
    with pytest.raises(ValueError, match="split_weights"):
        ProfitTreeClassifier(decision_matrix=_unbound(), criterion="profit",
                             split_weights="loss").fit(X, y, costs=costs.to_numpy())


def test_unbound_cost_matrix_whole_path_reads_frames_by_name():
    from dtdecide import select_subtree

    X, y, costs = _bank_like(900, seed=6)
    m = DecisionMatrix.from_cost_matrix(levels=("no", "yes"))
    shuffled = costs[["C_TN", "C_FN", "C_FP", "C_TP"]]  # by name, not by position
    train, valid, new = np.arange(0, 500), np.arange(500, 700), np.arange(700, 900)
    tree = ProfitTreeClassifier(decision_matrix=m, criterion="profit", max_depth=4).fit(
        X.iloc[train], y[train], costs=shuffled.iloc[train])
    same = ProfitTreeClassifier(decision_matrix=m, criterion="profit", max_depth=4).fit(
        X.iloc[train], y[train], costs=costs.to_numpy()[train])
    assert _splits(tree) == _splits(same)
    pruned = select_subtree(tree, X.iloc[valid], y[valid], costs_valid=shuffled.iloc[valid])
    res = pruned.decide(X.iloc[new], y[new], costs=shuffled.iloc[new])
    ref = pruned.decide(X.iloc[new], y[new], costs=costs.to_numpy()[new])
    pd.testing.assert_frame_equal(res.cases, ref.cases, check_index_type=False)
    with pytest.raises(ValueError, match="C_FN"):
        pruned.decide(X.iloc[new], y[new],
                      costs=shuffled.iloc[new].rename(columns={"C_FN": "C_FM"}))


# ---------------------------------------------------------------- per unit of stake
def _slow_stake(Q):
    """sum over levels of (max - min over decisions), case by case."""
    return np.array([sum(max(row) - min(row) for row in case) for case in Q])


def test_stake_matches_slow_reference_for_every_matrix_form():
    rng = np.random.default_rng(7)
    n = 40
    # additive: a revenue matrix with a cost variable per decision, three levels
    m = DecisionMatrix({"a": [3.0, 1.0, -2.0], "b": [0.0, 2.0, 1.0], "c": [1.0, 1.0, 1.0]},
                       levels=["x", "y", "z"], kind="revenue",
                       costs={"a": "ca", "b": "cb", "c": 0.5})
    frame = pd.DataFrame({"ca": rng.uniform(0, 3, n), "cb": rng.uniform(0, 3, n)})
    cons = m.resolve(frame, n_samples=n)
    Q = np.stack([cons.q_actual(np.full(n, t)) for t in range(3)], axis=1)
    assert np.allclose(cons.stake(), _slow_stake(Q))
    # case-specific arrays and cost rows
    rows = rng.uniform(0, 10, size=(n, 4))
    cons = DecisionMatrix.from_cost_matrix().resolve(rows, n_samples=n)
    Q = np.stack([cons.q_actual(np.full(n, t)) for t in range(2)], axis=1)
    assert np.allclose(cons.stake(), _slow_stake(Q))
    assert np.allclose(cons.stake(), np.abs(rows[:, 0] - rows[:, 3])
                       + np.abs(rows[:, 1] - rows[:, 2]))
    # no case costs: every case has the matrix's stake
    plain = DecisionMatrix({"a": [3.0, -1.0], "b": [0.0, 0.0]}, levels=["x", "y"])
    assert plain.resolve(None, n_samples=3).stake().tolist() == [4.0, 4.0, 4.0]


def test_growth_consequences_rescale_only_per_stake_methods_with_case_costs():
    rng = np.random.default_rng(3)
    rows = rng.uniform(1, 10, size=(30, 4))
    rows[0] = 2.0  # no stake: every consequence equal
    cons = DecisionMatrix.from_cost_matrix().resolve(rows, n_samples=30)
    t = rng.integers(0, 2, 30)
    q = cons.q_actual(t)
    stake = cons.stake()
    got = growth_consequences(cons, t, "cost_gini")
    assert np.allclose(got[1:], q[1:] / stake[1:, None])
    assert np.all(got[0] == 0.0)
    for method in ("cost_gini_money", "profit", "profit_gini", "regret_gini"):
        assert np.array_equal(growth_consequences(cons, t, method), q)
    plain = DecisionMatrix({"a": [3.0, -1.0], "b": [0.0, 0.0]}, levels=["x", "y"])
    cons = plain.resolve(None, n_samples=30)
    assert np.array_equal(growth_consequences(cons, t, "cost_gini"), cons.q_actual(t))


def test_cost_gini_tree_ignores_the_size_of_each_case():
    # scaling every cost of a case by its own factor changes nothing the default method
    # grows on; the money-weighted variant does see it
    X, y, costs = _bank_like(800, seed=2)
    factor = np.random.default_rng(5).lognormal(0.0, 1.5, len(y))
    scaled = costs.mul(factor, axis=0)
    shapes = {}
    for method in ("cost_gini", "cost_gini_money"):
        for name, c in (("raw", costs), ("scaled", scaled)):
            tree = ProfitTreeClassifier(decision_matrix=_unbound(), criterion="profit",
                                        max_depth=4, min_samples_leaf=10)
            tree._profit_method = method
            tree.fit(X, y, costs=c.to_numpy())
            shapes[method, name] = _splits(tree)
    assert shapes["cost_gini", "raw"] == shapes["cost_gini", "scaled"]
    assert shapes["cost_gini_money", "raw"] != shapes["cost_gini_money", "scaled"]


def test_growth_consequences_refuse_a_stake_that_overflows():
    rows = np.array([[1e308, 1e308, 0.0, 0.0], [1.0, 2.0, 0.0, 0.0]])
    cons = DecisionMatrix.from_cost_matrix().resolve(rows, n_samples=2)
    with pytest.raises(ValueError, match="costs: the consequences of training case 0"):
        growth_consequences(cons, np.array([0, 1]), "cost_gini")


def _level_path_spy(monkeypatch):
    """A list that records, fit by fit, whether ``_profit_target`` chose the level
    counts (its level map) over the per-case money."""
    from dtdecide.tree._algorithms import _grower

    seen = []
    target = _grower._profit_target

    def spy(*a, **k):
        out = target(*a, **k)
        seen.append(out[3] is not None)
        return out

    monkeypatch.setattr(_grower, "_profit_target", spy)
    return seen


@pytest.mark.parametrize("kernels", ["numpy", "compiled"])
@pytest.mark.parametrize("n_jobs", [1, 2])
@pytest.mark.parametrize("priors", [None, [0.3, 0.7]])
@pytest.mark.parametrize("weighted", [False, True])
def test_level_consequences_grow_the_per_case_tree(monkeypatch, kernels, n_jobs, priors,
                                                   weighted):
    """A matrix without case costs: the grower histograms the class counts (sample-
    weighted or not) and derives the money channels from them and the level table
    (``level_map``), and grows the tree of the per-case consequences -- the same
    splits, row counts and values; the impurities (money from counts times amounts
    instead of added case by case) agree to 1e-12."""
    from dtdecide import config_context
    from dtdecide.tree._estimator import _classes

    rng = np.random.default_rng(11)
    n = 3000
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.uniform(size=n),
                      "c": rng.integers(0, 5, size=n).astype(float)})
    p = 1 / (1 + np.exp(-(X["a"] - 0.5 + X["b"] * X["c"] / 3)))
    y = (rng.random(n) < p).astype(int)
    w = rng.integers(1, 4, size=n).astype(float) if weighted else None
    m = DecisionMatrix({"call": [10.3, -1.1], "skip": [0.0, 0.0]}, levels=[1, 0],
                       priors=priors)
    kw = dict(decision_matrix=m, criterion="profit", max_depth=6, n_jobs=n_jobs,
              random_state=0)
    assert level_consequences(m.resolve(None, n_samples=2)) is not None
    seen = _level_path_spy(monkeypatch)
    with config_context(kernels=kernels):
        fast = ProfitTreeClassifier(**kw).fit(X, y, sample_weight=w)
        monkeypatch.setattr(_classes, "level_consequences", lambda cons: None)
        ref = ProfitTreeClassifier(**kw).fit(X, y, sample_weight=w)
    assert seen == [True, False]
    assert fast.split_criterion_ == "profit" and fast.tree_.n_leaves > 8
    for name in ("feature", "threshold", "n_node_samples", "weighted_n_node_samples",
                 "value"):
        a, b = getattr(fast.tree_, name), getattr(ref.tree_, name)
        assert np.asarray(a).tobytes() == np.asarray(b).tobytes(), name
    np.testing.assert_allclose(fast.tree_.impurity, ref.tree_.impurity, rtol=1e-12,
                               atol=1e-12 * float(np.max(ref.tree_.impurity)))


@pytest.mark.parametrize("method", ["cost_gini", "regret_gini", "profit_gini"])
def test_level_map_tree_same_for_kernels_and_threads(method):
    """Three levels, three decisions (one level's best decision shared), categorical and
    missing inputs, sample weights: the level-count grower gives the same tree, bit for
    bit, with the compiled kernels and the NumPy twins, and for n_jobs 1, 2 and 3."""
    from test_n_jobs import assert_same_tree

    from dtdecide import config_context

    rng = np.random.default_rng(5)
    n = 2500
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.exponential(size=n),
                      "c": pd.Categorical(rng.choice(list("pqrstu"), size=n)),
                      "d": rng.integers(0, 4, size=n).astype(float)})
    X.loc[rng.random(n) < 0.1, "a"] = np.nan
    X.loc[rng.random(n) < 0.05, "c"] = np.nan
    signal = X["a"].fillna(0) - X["b"] + (X["c"].cat.codes % 2) + rng.normal(size=n) * 0.5
    y = np.digitize(signal, [-1.0, 0.3])
    m = DecisionMatrix([[5.3, 0.0, -1.2], [2.1, 3.7, 0.0], [-4.4, 0.0, 6.1]],
                       levels=[0, 1, 2], decisions=["x", "y", "z"])
    w = rng.integers(1, 4, size=n).astype(float)
    trees = []
    for kernels in ("numpy", "compiled"):
        for n_jobs in (1, 2, 3):
            for sw in (None, w):
                est = ProfitTreeClassifier(decision_matrix=m, criterion="profit",
                                           max_depth=5, min_samples_leaf=3, n_jobs=n_jobs,
                                           random_state=0)
                est._profit_method = method
                with config_context(kernels=kernels):
                    trees.append((sw is None, est.fit(X, y, sample_weight=sw).tree_))
    assert trees[0][1].n_leaves > 10
    for unit, tree in trees[2:]:
        assert_same_tree(trees[0 if unit else 1][1], tree)


@pytest.mark.parametrize("n_levels, weighted, on_levels",
                         [(8, False, True), (9, False, False), (2, True, True),
                          (3, True, False)])
def test_many_levels_grow_on_per_case_money(monkeypatch, n_levels, weighted, on_levels):
    """Two decisions (two money channels under ``cost_gini``): the level counts are
    histogrammed up to ``LEVELS_PER_CHANNEL`` levels a channel (unit weights) or
    ``WEIGHTED_LEVELS_PER_CHANNEL`` (sample weights), the per-case money beyond; both
    paths grow the same tree (a whole-number matrix and weights: the sums are exact, so
    bit for bit)."""
    from dtdecide.tree._algorithms import _grower

    rng = np.random.default_rng(n_levels)
    n = 3000
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.uniform(size=n),
                      "c": rng.integers(0, 5, size=n).astype(float)})
    signal = X["a"] + X["b"] * X["c"] / 2 + rng.normal(size=n) * 0.5
    y = np.digitize(signal, np.quantile(signal, np.linspace(0, 1, n_levels + 1)[1:-1]))
    w = rng.integers(1, 4, size=n).astype(float) if weighted else None
    m = DecisionMatrix({"act": list(np.arange(n_levels) * 3.0 - 1.5 * (n_levels - 1)),
                        "skip": [0.0] * n_levels}, levels=list(range(n_levels)))
    seen = _level_path_spy(monkeypatch)
    kw = dict(decision_matrix=m, criterion="profit", max_depth=5, random_state=0)
    tree = ProfitTreeClassifier(**kw).fit(X, y, sample_weight=w).tree_
    monkeypatch.setattr(_grower, "LEVELS_PER_CHANNEL", 10 ** 6)
    monkeypatch.setattr(_grower, "WEIGHTED_LEVELS_PER_CHANNEL", 10 ** 6)
    levels = ProfitTreeClassifier(**kw).fit(X, y, sample_weight=w).tree_
    assert seen == [on_levels, True]
    assert tree.n_leaves > 8
    for name in ("feature", "threshold", "missing_left", "n_node_samples",
                 "weighted_n_node_samples", "value"):
        a, b = getattr(tree, name), getattr(levels, name)
        assert np.asarray(a).tobytes() == np.asarray(b).tobytes(), name
    np.testing.assert_allclose(tree.impurity, levels.impurity, rtol=1e-12,
                               atol=1e-12 * float(np.max(levels.impurity)))
