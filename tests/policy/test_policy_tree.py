"""PolicyTree: exact search against its brute-force twin, regret, DR against IPW/DM,
per-action support, honesty, costs, and the scikit-learn conventions."""

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.utils.estimator_checks import (
    check_estimator_cloneable,
    check_get_params_invariance,
    check_no_attributes_set_in_init,
    check_parameters_default_constructible,
    check_set_params,
)

from dtdecide import leaf_table, to_sql
from dtdecide.policy import PolicyTree, make_logged_campaign
from dtdecide.policy._search import bin_inputs, brute_force_policy_tree, exact_policy_tree


@pytest.mark.parametrize("seed", range(12))
def test_exact_search_equals_brute_force(seed):
    rng = np.random.default_rng(seed)
    n, F, D = int(rng.integers(8, 26)), int(rng.integers(1, 4)), int(rng.integers(2, 4))
    X = rng.integers(0, 6, size=(n, F)).astype(float)
    Q = rng.normal(size=(n, D))
    a = rng.integers(0, D, size=n)
    Xb, edges = bin_inputs(X)
    # (2, 30, 0): more cases a leaf than there are (the root is the one leaf); (1, 13, 0):
    # no split on the smaller draws
    for depth, msl, mas in [(1, 1, 0), (2, 1, 0), (2, 2, 0), (2, 1, 1), (2, 3, 1),
                            (2, 30, 0), (1, 13, 0), (2, 30, 1)]:
        want = brute_force_policy_tree(X, Q, a, n_actions=D, max_depth=depth,
                                       min_samples_leaf=msl, min_action_support=mas)
        if not np.isfinite(want):
            with pytest.raises(ValueError, match="constraints"):
                exact_policy_tree(Xb, edges, Q, a, n_actions=D, max_depth=depth,
                                  min_samples_leaf=msl, min_action_support=mas)
            continue
        got, _ = exact_policy_tree(Xb, edges, Q, a, n_actions=D, max_depth=depth,
                                   min_samples_leaf=msl, min_action_support=mas)
        assert got == pytest.approx(want, rel=1e-12, abs=1e-12)


def test_fitted_tree_earns_the_search_value_on_given_rewards():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 5, size=(40, 3)).astype(float)
    G = rng.normal(size=(40, 3))
    a = rng.integers(0, 3, size=40).astype(str)
    pt = PolicyTree(max_depth=2).fit(X, a, None, rewards=G)
    want = brute_force_policy_tree(X, G, max_depth=2)
    assert pt.search_profit_ == pytest.approx(want)
    d = pt.predict(X)
    idx = np.array([pt.decisions_.index(v) for v in d])
    assert G[np.arange(40), idx].sum() == pytest.approx(want)
    # the profit tree's own exact search agrees on the same net rewards
    tree = PolicyTree(max_depth=2, search="exact")
    mixed = pd.DataFrame(X, columns=["a", "b", "c"]).astype({"c": "category"})
    other = tree.fit(mixed, a, None, rewards=G)
    assert other.search_profit_ <= want + 1e-9


def _regret(policy, test):
    mu = test.expected.to_numpy()
    idx = np.array([test.decisions.index(v) for v in policy.predict(test.X)])
    return mu.max(axis=1).mean() - mu[np.arange(idx.shape[0]), idx].mean()


def _fit(data, method, seed, n):
    return PolicyTree(decisions=data.decisions, method=method, cv=3,
                      outcome_model=LinearRegression(), propensity_model=LogisticRegression(),
                      min_samples_leaf=max(5, n // 100), random_state=seed).fit(
        data.X, data.action, data.outcome)


@pytest.fixture(scope="module")
def interaction_test():
    return make_logged_campaign(10000, effect="interaction", random_state=999)


def test_regret_shrinks_with_more_rows():
    test = make_logged_campaign(10000, effect="step", random_state=999)
    small, large = [], []
    for seed in range(2):
        for n, out in ((400, small), (6000, large)):
            data = make_logged_campaign(n, effect="step", confounding=1.5, random_state=seed)
            out.append(_regret(_fit(data, "dr", seed, n), test))
    assert np.mean(large) < 0.5 * np.mean(small)
    assert np.mean(large) < 0.05


def test_dr_beats_ipw_and_dm_on_confounded_logs(interaction_test):
    # the linear outcome model is misspecified (interaction effects), the logistic
    # propensity model is right: DR corrects the direct method's bias and has less
    # variance than IPW
    regret = {m: [] for m in ("dr", "ipw", "dm")}
    for seed in range(2):
        data = make_logged_campaign(4000, effect="interaction", confounding=1.5,
                                    random_state=seed)
        for m in regret:
            regret[m].append(_regret(_fit(data, m, seed, 4000), interaction_test))
    dr, ipw, dm = (np.mean(regret[m]) for m in ("dr", "ipw", "dm"))
    assert dr < ipw and dr < dm, regret


def test_min_action_support_is_kept_in_every_leaf():
    data = make_logged_campaign(600, effect="step", confounding=2.0, random_state=4)
    for search, X in (("exact", data.X), ("greedy", data.X)):
        pt = PolicyTree(decisions=data.decisions, search=search, max_depth=2,
                        min_action_support=40, outcome_model=LinearRegression(),
                        propensity_model=LogisticRegression(), cv=2, random_state=0)
        pt.fit(X, data.action, data.outcome)
        leaves = pt.apply(X)
        for leaf in np.unique(leaves):
            counts = pd.Series(data.action[leaves == leaf]).value_counts()
            assert all(counts.get(d, 0) >= 40 for d in data.decisions)


def test_costs_are_subtracted_per_case():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    a = rng.choice(["a", "b"], size=200)
    G = np.column_stack([np.zeros(200), np.ones(200)])
    cost_b = np.where(X[:, 0] > 0, 3.0, 0.0)
    pt = PolicyTree(max_depth=1).fit(X, a, None, rewards=G, costs={"b": cost_b})
    np.testing.assert_allclose(pt.net_rewards_["b"], 1 - cost_b)
    assert set(pt.predict(X[X[:, 0] > 0.1])) == {"a"}
    assert set(pt.predict(X[X[:, 0] < -0.1])) == {"b"}
    with pytest.raises(ValueError, match="costs"):
        PolicyTree().fit(X, a, None, rewards=G, costs={"c": 1.0})


def test_honest_leaves_are_estimated_on_the_other_part():
    data = make_logged_campaign(1000, effect="step", random_state=2)
    pt = PolicyTree(decisions=data.decisions, honest=True, outcome_model=LinearRegression(),
                    propensity_model=LogisticRegression(), cv=2, random_state=0)
    pt.fit(data.X, data.action, data.outcome)
    table = leaf_table(pt.profit_tree_)
    assert table["n"].sum() == 500  # the estimation half
    assert "CASE" in to_sql(pt.profit_tree_).upper()


def test_sklearn_conventions():
    est = PolicyTree()
    name = type(est).__name__
    check_parameters_default_constructible(name, est)
    check_no_attributes_set_in_init(name, est)
    check_get_params_invariance(name, est)
    check_set_params(name, est)
    check_estimator_cloneable(name, est)


def test_bad_parameters_are_named():
    X = np.zeros((10, 1))
    with pytest.raises(ValueError, match="max_depth"):
        PolicyTree(max_depth=0).fit(X, ["a", "b"] * 5, np.zeros(10))
    with pytest.raises(ValueError, match="rewards"):
        PolicyTree().fit(X, ["a", "b"] * 5, None, rewards=np.zeros((10, 3)))


def test_pruning_study_scores_subtrees_by_held_out_policy_value():
    train = make_logged_campaign(1500, effect="interaction", random_state=0)
    held = make_logged_campaign(1500, effect="interaction", random_state=1)
    pt = PolicyTree(decisions=train.decisions, search="greedy", max_depth=4,
                    min_samples_leaf=20).fit(train.X, train.action, None,
                                             rewards=train.expected)
    study = pt.pruning_study(held.X, held.expected, costs={"call": 0.1})
    best = study.best_estimator_
    chosen = np.asarray(best.predict_decision(held.X), dtype=object)
    net = held.expected.to_numpy() - np.array([0, 0, 0.1])
    idx = np.array([train.decisions.index(v) for v in chosen])
    value = net[np.arange(idx.shape[0]), idx].mean()
    row = study.results_.loc[study.results_["selected"]].iloc[0]
    assert row["valid_measure"] == pytest.approx(value)
    assert row["valid_measure"] == pytest.approx(study.results_["valid_measure"].max())


def test_threads_find_the_same_tree():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(500, 4))
    G = rng.normal(size=(500, 3))
    G[:, 1] += X[:, 0] > 0.3
    a = rng.choice(["a", "b", "c"], 500)
    one = PolicyTree(max_depth=2).fit(X, a, None, rewards=G)
    two = PolicyTree(max_depth=2, n_jobs=2).fit(X, a, None, rewards=G)
    assert one.search_profit_ == two.search_profit_
    np.testing.assert_array_equal(one.apply(X), two.apply(X))


def test_hybrid_search_stacks_exact_depth_two_blocks():
    rng = np.random.default_rng(6)
    X = rng.integers(0, 8, size=(400, 3)).astype(float)
    G = rng.normal(size=(400, 3))
    G[:, 1] += 2 * ((X[:, 0] > 3) ^ (X[:, 1] > 4)) * (X[:, 2] > 2)
    a = rng.choice(["a", "b", "c"], 400)
    two = PolicyTree(max_depth=2).fit(X, a, None, rewards=G)
    same = PolicyTree(max_depth=2, search="hybrid").fit(X, a, None, rewards=G)
    assert same.search_profit_ == pytest.approx(two.search_profit_)
    deep = PolicyTree(max_depth=4, search="hybrid", min_action_support=5).fit(
        X, a, None, rewards=G)
    block = PolicyTree(max_depth=2, min_action_support=5).fit(X, a, None, rewards=G)
    assert deep.profit_tree_.get_depth() <= 4
    # the first block is the exact depth-2 tree; deeper blocks only add profit
    assert deep.search_profit_ >= block.search_profit_ - 1e-9
    leaves = deep.apply(X)
    for leaf in np.unique(leaves):
        counts = pd.Series(a[leaves == leaf]).value_counts()
        assert all(counts.get(d, 0) >= 5 for d in "abc")
    with pytest.raises(ValueError, match="hybrid"):
        PolicyTree(search="hybrid").fit(pd.DataFrame({"c": ["x", "y"] * 200}), a, None,
                                        rewards=G)


SEARCHES = ("exact", "greedy", "hybrid")
# 8 cases: calling pays -1, -1, 1, 1, 2, 2, 3, 3 (skipping 0)
X8 = np.arange(8.0).reshape(-1, 1)
G8 = np.column_stack([np.zeros(8), [-1.0, -1, 1, 1, 2, 2, 3, 3]])
A8 = ["skip", "call"] * 4


@pytest.mark.parametrize("what, X, a, G, params, decision, profit", [
    ("more cases a leaf than cases", X8, A8, G8, dict(min_samples_leaf=9), "call", 10.0),
    ("as many cases a leaf as cases, depth 3", X8, A8, G8,
     dict(min_samples_leaf=8, max_depth=3), "call", 10.0),
    ("one value of the input", np.zeros((8, 1)), A8, G8, {}, "call", 10.0),
    ("one case", X8[4:5], ["call"], G8[4:5], {}, "call", 2.0),
    ("every reward equal: the first decision", X8, A8, np.ones((8, 2)), {}, "skip", 8.0),
])
def test_every_search_gives_one_leaf_where_no_split_is_possible(what, X, a, G, params,
                                                                decision, profit):
    """Where no split is possible every search gives the one leaf of the best decision
    (the first on ties); the exact search refused min_samples_leaf above the cases
    ("no tree meets the constraints") while the greedy one grew the leaf."""
    for search in SEARCHES:
        pt = PolicyTree(decisions=["skip", "call"], search=search, **params).fit(
            X, a, None, rewards=G)
        assert pt.profit_tree_.get_n_leaves() == 1, search
        assert pt.predict(X).tolist() == [decision] * len(a), search
        assert pt.search_profit_ == pytest.approx(profit), search


@pytest.mark.parametrize("max_depth", [1, 2, 3])
def test_min_samples_leaf_is_the_only_size_limit_of_every_search(max_depth):
    """On 8 cases, taking the call where it pays (x >= 2) earns 12 instead of 10; the
    profit tree's default min_samples_split=10 stopped the greedy search (and the
    profit tree's exact search of depth 3) at the root, one leaf earning 10."""
    for search in SEARCHES:
        pt = PolicyTree(decisions=["skip", "call"], search=search, max_depth=max_depth).fit(
            X8, A8, None, rewards=G8)
        assert pt.search_profit_ == pytest.approx(12.0), search
        assert pt.predict(X8).tolist() == ["skip"] * 2 + ["call"] * 6, search
        assert pt.profit_tree_.get_params()["min_samples_split"] == 2


@pytest.mark.parametrize("honest", [False, True])
def test_a_min_action_support_no_leaf_can_meet_is_refused_alike(honest):
    """A logged decision with fewer cases than min_action_support (here 'skip': 4 of 8,
    or 2 of the 4 grown on) is refused by every search with one message naming it;
    the exact search said "no tree meets the constraints", the greedy one "some logged
    decision has fewer cases than that in all the data"."""
    X = np.arange(16.0).reshape(-1, 1) if honest else X8
    a = A8 * 2 if honest else A8
    G = np.vstack([G8, G8]) if honest else G8
    for search in SEARCHES:
        tree = PolicyTree(decisions=["skip", "call"], search=search, min_action_support=5,
                          honest=honest, random_state=0)
        with pytest.raises(ValueError) as info:
            tree.fit(X, a, None, rewards=G)
        message = str(info.value)
        assert message.startswith("min_action_support=5: the logged decision "), search
        assert "of the 8 cases" in message and "lower min_action_support" in message
        assert ("honest=True" in message) == honest


def test_a_bool_input_is_split_by_every_search_that_takes_it():
    """A bool column is categorical to the trees: the exact search of depth <= 2 took it
    as numeric and failed writing its threshold into the tree ("feature 'x' is
    categorical: give categories ..., not threshold", a message about no argument of
    fit). It now grows like greedy; hybrid, which needs numbers, says bool columns are
    categorical."""
    X = pd.DataFrame({"x": [True, False] * 5})
    G = np.column_stack([np.zeros(10), np.where(X["x"], -1.0, 1.0)])
    a = np.array(["A", "B"] * 5, dtype=object)
    for search in ("exact", "greedy"):
        pt = PolicyTree(max_depth=2, search=search).fit(X, a, None, rewards=G)
        assert pt.predict(X).tolist() == ["A", "B"] * 5, search
    with pytest.raises(ValueError, match="bool and category columns are categorical"):
        PolicyTree(max_depth=2, search="hybrid").fit(X, a, None, rewards=G)
