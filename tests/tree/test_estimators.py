"""ProfitTreeClassifier / ProfitTreeRegressor: inputs, targets, re-deciding, pickling."""

import pickle

import numpy as np
import pandas as pd
import pytest

from dtdecide import DecisionMatrix, ProfitTreeClassifier, ProfitTreeRegressor
from dtdecide.tree._kernels._criteria import ordinal_loss_matrix, regret_matrix


def mixed_frame(n=400, seed=0, nan=True):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "age": rng.integers(20, 70, n).astype(float),
        "job": pd.Categorical(rng.choice(["admin", "tech", "retired", "student"], n)),
        "city": pd.Series(rng.choice(["north", "south", "east"], n), dtype="string"),
        "owner": rng.random(n) < 0.4,
        "note": rng.choice(["a", "b"], n).astype(object),
    })
    if nan:
        X.loc[rng.random(n) < 0.15, "age"] = np.nan
        X.loc[rng.random(n) < 0.1, "city"] = None
    score = (
        0.06 * (X["age"].fillna(45) - 45)
        + 1.2 * (X["job"] == "retired")
        - 0.8 * (X["city"] == "east").fillna(False).astype(float)
        + 0.7 * X["owner"]
    )
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-score)), "yes", "no")
    return X, y


M2 = DecisionMatrix({"call": [10.0, -1.0], "skip": [0.0, 0.0]}, levels=["yes", "no"])


# --------------------------------------------------------------------- inputs
def test_categorical_string_bool_columns_without_nan():
    X, y = mixed_frame(nan=False)
    tree = ProfitTreeClassifier(decision_matrix=M2, max_depth=4).fit(X, y)
    assert tree.is_categorical_.tolist() == [False, True, True, True, True]
    assert tree.categories_[1].tolist() == ["admin", "retired", "student", "tech"]
    assert tree.categories_[3].tolist() == [False, True]
    assert tree.feature_names_in_.tolist() == list(X.columns)
    proba = tree.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert set(tree.predict(X)) <= {"yes", "no"}
    assert tree.feature_importances_.sum() == pytest.approx(1.0)
    # "job" carries signal and is split natively (no one-hot)
    assert tree.feature_importances_[1] > 0
    assert tree.tree_.is_categorical.any()


def test_missing_values_are_handled_natively():
    X, y = mixed_frame()
    tree = ProfitTreeClassifier(decision_matrix=M2, max_depth=4).fit(X, y)
    proba = tree.predict_proba(X)
    assert np.isfinite(proba).all()
    # a row with every input missing follows the missing directions to one leaf
    allnan = pd.DataFrame({
        "age": [np.nan],
        "job": pd.Categorical([None], categories=X["job"].cat.categories),
        "city": pd.Series([None], dtype="string"),
        "owner": pd.array([None], dtype="boolean"),
        "note": pd.Series([None], dtype=object),
    })
    leaf = tree.apply(allnan)[0]
    # it follows missing_left at every split on its way
    t = tree.tree_
    node = 0
    while t.children_left[node] >= 0:
        node = t.children_left[node] if t.missing_left[node] else t.children_right[node]
    assert leaf == node
    # missing values in training were routed by learned directions: same leaves as apply
    assert tree.tree_.n_node_samples[tree.apply(X)].sum() > 0
    np.testing.assert_array_equal(
        np.bincount(tree.apply(X), minlength=t.n_nodes)[t.is_leaf], t.n_node_samples[t.is_leaf]
    )


def test_unseen_categories_follow_the_missing_direction():
    X, y = mixed_frame(nan=False)
    tree = ProfitTreeClassifier(decision_matrix=M2, max_depth=4).fit(X, y)
    X_new = X.copy()
    X_new["job"] = pd.Categorical(["astronaut"] * len(X))
    X_nan = X.copy()
    X_nan["job"] = pd.Categorical([None] * len(X), categories=["admin"])
    np.testing.assert_array_equal(tree.apply(X_new), tree.apply(X_nan))


def test_numpy_input_and_column_errors():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 3))
    y = (X[:, 0] > 0).astype(int)
    tree = ProfitTreeClassifier().fit(X, y)
    assert tree.feature_names_in_.tolist() == ["x0", "x1", "x2"]
    with pytest.raises(ValueError, match="X has 2 features, but ProfitTreeClassifier is"):
        tree.predict(X[:, :2])
    Xf = pd.DataFrame(X, columns=["a", "b", "c"])
    named = ProfitTreeClassifier().fit(Xf, y)
    with pytest.raises(ValueError, match="seen at fit time, yet now missing:\n- c"):
        named.predict(Xf.rename(columns={"c": "d"}))


def test_bad_parameters_and_matrices():
    X, y = mixed_frame(nan=False)
    with pytest.raises(ValueError, match="max_depth"):
        ProfitTreeClassifier(max_depth=-1).fit(X, y)
    with pytest.raises(ValueError, match="criterion"):
        ProfitTreeClassifier(criterion="variance").fit(X, y)
    knots = DecisionMatrix([[0, 1], [1, 0]], knots=[0, 1])
    with pytest.raises(ValueError, match="knots"):
        ProfitTreeClassifier(decision_matrix=knots).fit(X, y)
    with pytest.raises(ValueError, match="levels"):
        ProfitTreeRegressor(decision_matrix=M2).fit(X, np.arange(len(X), dtype=float))
    other = DecisionMatrix([[1, 0], [0, 1]], levels=["yes", "maybe"])
    with pytest.raises(ValueError, match="y contains values that are not levels"):
        ProfitTreeClassifier(decision_matrix=other).fit(X, y)


def test_classes_follow_the_matrix_levels_even_when_absent():
    X, y = mixed_frame(nan=False)
    m = DecisionMatrix([[5.0, 0.0], [0.0, 1.0], [-1.0, 0.0]], levels=["no", "unsure", "yes"],
                       decisions=["a", "b"])
    tree = ProfitTreeClassifier(decision_matrix=m, max_depth=3).fit(X, y)
    assert tree.classes_.tolist() == ["no", "unsure", "yes"]
    assert np.all(tree.predict_proba(X)[:, 1] == 0)


# --------------------------------------------------------------------- ordinal targets
def ordinal_data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    z = X[:, 0] + 0.5 * rng.normal(size=n)
    y = np.select([z < -0.5, z < 0.5], ["low", "mid"], "high")
    return X, y


def generalized_gini(p, L):
    return float(np.einsum("t,td,d->", p, L, p))


def test_ordinal_without_matrix_uses_rank_distance():
    X, y = ordinal_data()
    order = ["low", "mid", "high"]
    yc = pd.Series(pd.Categorical(y, categories=order, ordered=True))
    tree = ProfitTreeClassifier(max_depth=2).fit(X, yc)
    assert tree.is_ordinal_
    assert tree.classes_.tolist() == order
    p = tree.tree_.value[0] / tree.tree_.value[0].sum()
    assert tree.tree_.impurity[0] == pytest.approx(generalized_gini(p, ordinal_loss_matrix(3)))
    # rpartScore form: 2 * sum_k F_k (1 - F_k) over cumulative proportions
    F = np.cumsum(p)[:-1]
    assert tree.tree_.impurity[0] == pytest.approx(2 * np.sum(F * (1 - F)))
    # ordinal=True on plain labels sorts them
    plain = ProfitTreeClassifier(max_depth=2, ordinal=True).fit(X, y)
    assert plain.classes_.tolist() == sorted(order)


def test_ordinal_with_matrix_uses_its_regret():
    X, y = ordinal_data()
    Q = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [-2.0, 0.0, 5.0]])
    m = DecisionMatrix(Q, levels=["low", "mid", "high"], decisions=["L", "M", "H"])
    tree = ProfitTreeClassifier(decision_matrix=m, ordinal=True, max_depth=2).fit(X, y)
    p = tree.tree_.value[0] / tree.tree_.value[0].sum()
    assert tree.tree_.impurity[0] == pytest.approx(generalized_gini(p, regret_matrix(Q)))
    assert tree.classes_.tolist() == ["low", "mid", "high"]


def test_ordinal_needs_a_square_matrix():
    X, y = ordinal_data()
    m = DecisionMatrix([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]], levels=["low", "mid", "high"])
    with pytest.raises(ValueError, match="square"):
        ProfitTreeClassifier(decision_matrix=m, ordinal=True).fit(X, y)
    yc = pd.Series(pd.Categorical(y, categories=["low", "mid", "high"], ordered=True))
    with pytest.raises(ValueError, match="square"):
        ProfitTreeClassifier(decision_matrix=m).fit(X, yc)


def test_ordered_categorical_disagreeing_with_matrix_raises():
    X, y = ordinal_data()
    m = DecisionMatrix(np.eye(3), levels=["high", "mid", "low"])
    yc = pd.Series(pd.Categorical(y, categories=["low", "mid", "high"], ordered=True))
    with pytest.raises(ValueError, match="disagrees"):
        ProfitTreeClassifier(decision_matrix=m).fit(X, yc)


# --------------------------------------------------------------------- priors
def test_use_priors_equal_to_training_proportions_changes_nothing():
    X, y = mixed_frame(nan=False)
    rho = [np.mean(y == "yes"), np.mean(y == "no")]
    m = M2.replace(priors=rho)
    a = ProfitTreeClassifier(decision_matrix=m, use_priors=True, max_depth=4).fit(X, y)
    b = ProfitTreeClassifier(decision_matrix=m, use_priors=False, max_depth=4).fit(X, y)
    np.testing.assert_array_equal(a.tree_.feature, b.tree_.feature)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X))


def test_priors_adjust_predict_proba():
    X, y = mixed_frame(nan=False)
    plain = ProfitTreeClassifier(decision_matrix=M2, max_depth=3).fit(X, y)
    # same splits (use_priors=False): only the leaf posteriors are prior-adjusted
    pri = ProfitTreeClassifier(decision_matrix=M2.replace(priors=[0.5, 0.5]),
                               use_priors=False, max_depth=3)
    pri.fit(X, y)
    rho = np.array([np.mean(y == "yes"), np.mean(y == "no")])
    p = plain.predict_proba(X)
    want = p * (0.5 / rho)
    want /= want.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(pri.predict_proba(X), want)


# --------------------------------------------------------------------- re-deciding
def costs_frame(n, seed=1):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"c1": rng.uniform(0, 4, n), "c2": rng.uniform(0, 2, n)})


def test_redecide_with_new_matrix_equals_refit():
    X, y = mixed_frame(nan=False)
    costs = costs_frame(len(X))
    m1 = DecisionMatrix({"call": [12.0, 0.0], "mail": [6.0, 0.0], "skip": [0.0, 0.0]},
                        levels=["yes", "no"], kind="revenue",
                        costs={"call": "c1", "mail": "c2"})
    m2 = DecisionMatrix({"mail": [9.0, 1.0], "skip": [0.0, 0.0]}, levels=["yes", "no"],
                        kind="revenue", costs={"mail": "c1", "skip": 0.25},
                        priors=[0.3, 0.7])
    a = ProfitTreeClassifier(decision_matrix=m1, max_depth=4).fit(X, y, costs=costs)
    # use_priors=False: the same splits as ``a``, so only the decisions differ
    b = ProfitTreeClassifier(decision_matrix=m2, use_priors=False, max_depth=4)
    b.fit(X, y, costs=costs)
    redone = a._redecide(matrix=m2)
    for key in ("cost_sum", "profit_sum", "node_expected"):
        np.testing.assert_allclose(getattr(redone, key), getattr(b.tree_, key), atol=1e-9)
    np.testing.assert_array_equal(redone.node_decision, b.tree_.node_decision)
    # the fitted tree itself is untouched
    assert a.tree_.node_expected.shape[1] == 3


def test_redecide_with_priors_only():
    X, y = mixed_frame(nan=False)
    a = ProfitTreeClassifier(decision_matrix=M2, max_depth=3).fit(X, y)
    b = ProfitTreeClassifier(decision_matrix=M2.replace(priors=[0.6, 0.4]), max_depth=3)
    b.fit(X, y)
    redone = a._redecide(priors=[0.6, 0.4])
    np.testing.assert_allclose(redone.node_expected, b.tree_.node_expected)


def test_redecide_a_pruned_subtree_matches_the_full_tree_nodes():
    X, y = mixed_frame(nan=False)
    tree = ProfitTreeClassifier(decision_matrix=M2, max_depth=4).fit(X, y)
    full = tree.tree_
    cut = np.zeros(full.n_nodes, dtype=bool)
    cut[full.children_left[0]] = True  # collapse the left child of the root
    sub = full.subtree(cut)
    m2 = M2.replace(values=[[3.0, 0.0], [-2.0, 0.5]])
    redone = tree._redecide(sub, matrix=m2)
    whole = tree._redecide(full, matrix=m2)
    kept = sub.kept_node_ids
    np.testing.assert_allclose(redone.node_expected, whole.node_expected[kept])
    np.testing.assert_array_equal(redone.node_decision, whole.node_decision[kept])


def test_redecide_errors():
    X, y = mixed_frame(nan=False)
    plain = ProfitTreeClassifier(max_depth=2).fit(X, y)
    with pytest.raises(ValueError, match="without a decision_matrix"):
        plain._redecide(matrix=M2)
    tree = ProfitTreeClassifier(decision_matrix=M2, max_depth=2).fit(X, y)
    with pytest.raises(ValueError, match="same levels"):
        tree._redecide(matrix=DecisionMatrix(np.eye(2), levels=["yes", "other"]))
    other = ProfitTreeClassifier(max_depth=3, min_samples_leaf=1).fit(X, y)
    with pytest.raises(ValueError, match="not a subtree"):
        tree._redecide(other.tree_)


def test_regressor_redecide_same_knots_equals_refit():
    rng = np.random.default_rng(5)
    X = rng.uniform(0, 10, size=(300, 2))
    y = 3 * X[:, 0] + rng.normal(size=300)
    c = {"c": rng.uniform(0, 5, 300)}
    m1 = DecisionMatrix({"invest": [-20.0, 10.0, 40.0], "wait": [0.0, 0.0, 0.0]},
                        knots=[0.0, 10.0, 30.0], kind="revenue", costs={"invest": "c"})
    m2 = DecisionMatrix({"a": [5.0, 0.0, -5.0], "b": [-10.0, 0.0, 30.0]},
                        knots=[0.0, 10.0, 30.0], kind="revenue", costs={"b": "c"})
    a = ProfitTreeRegressor(decision_matrix=m1, max_depth=3).fit(X, y, costs=c)
    b = ProfitTreeRegressor(decision_matrix=m2, max_depth=3).fit(X, y, costs=c)
    redone = a._redecide(matrix=m2)
    for key in ("cost_sum", "profit_sum", "node_expected"):
        np.testing.assert_allclose(getattr(redone, key), getattr(b.tree_, key), atol=1e-8)
    with pytest.raises(ValueError, match="same knots"):
        a._redecide(matrix=m2.replace(knots=[0.0, 5.0, 30.0]))


# --------------------------------------------------------------------- misc
def test_pruning_hook_and_ccp_alpha():
    X, y = mixed_frame(nan=False)
    full = ProfitTreeClassifier(decision_matrix=M2, max_depth=5).fit(X, y)
    path = full.cost_complexity_pruning_path()
    assert len(path.ccp_alphas) >= 1
    alpha = float(path.ccp_alphas[len(path.ccp_alphas) // 2])
    pruned = ProfitTreeClassifier(decision_matrix=M2, max_depth=5, ccp_alpha=alpha).fit(X, y)
    assert pruned.get_n_leaves() <= full.get_n_leaves()
    assert pruned.get_depth() <= full.get_depth()
    res = pruned.decide(X, y)
    assert res.summary["n_cases"] == len(X)


def test_apply_decision_path_depth_leaves():
    X, y = mixed_frame(nan=False)
    tree = ProfitTreeClassifier(max_depth=3).fit(X, y)
    leaves = tree.apply(X)
    path = tree.decision_path(X)
    assert path.shape == (len(X), tree.tree_.n_nodes)
    np.testing.assert_array_equal(path[np.arange(len(X)), leaves].A1, 1)
    assert tree.get_depth() == tree.tree_.max_depth <= 3
    assert tree.get_n_leaves() == len(np.unique(leaves)) or tree.get_n_leaves() >= 1


def test_regressor_predicts_leaf_means():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=200), "g": rng.choice(["x", "y"], 200)})
    y = X["a"] * 2 + (X["g"] == "x") * 3 + rng.normal(size=200)
    reg = ProfitTreeRegressor(max_depth=3).fit(X, y)
    pred = reg.predict(X)
    leaves = reg.apply(X)
    for leaf in np.unique(leaves):
        np.testing.assert_allclose(pred[leaves == leaf], y[leaves == leaf].mean())
    assert reg.score(X, y) > 0.5


def test_target_name_from_series():
    X, y = mixed_frame(nan=False)
    tree = ProfitTreeClassifier(decision_matrix=M2, max_depth=2).fit(X, pd.Series(y, name="buy"))
    assert tree.target_name_ == "buy"
    assert "D_buy" in tree.decide(X).cases.columns


def test_pickle_round_trip_scores_identically():
    X, y = mixed_frame(nan=False)
    costs = costs_frame(len(X))
    m = DecisionMatrix({"call": [12.0, 0.0], "skip": [0.0, 0.0]}, levels=["yes", "no"],
                       kind="revenue", costs={"call": "c1"})
    tree = ProfitTreeClassifier(decision_matrix=m, max_depth=4).fit(X.join(costs), y)
    back = pickle.loads(pickle.dumps(tree))
    a = tree.decide(X.join(costs), y)
    b = back.decide(X.join(costs), y)
    pd.testing.assert_frame_equal(a.cases, b.cases)
    pd.testing.assert_series_equal(a.summary, b.summary)
    assert back.tree_ == tree.tree_
    Xc = X.join(costs)
    np.testing.assert_array_equal(back.predict_decision(Xc), tree.predict_decision(Xc))


def test_missing_at_scoring_only_goes_to_the_larger_child():
    X, y = mixed_frame(nan=False)
    tree = ProfitTreeClassifier(max_depth=1, min_samples_leaf=1).fit(X[["age"]], y)
    t = tree.tree_
    bigger = 1 if t.weighted_n_node_samples[1] >= t.weighted_n_node_samples[2] else 2
    assert tree.apply(pd.DataFrame({"age": [np.nan]}))[0] == bigger


def test_prior_on_a_level_absent_from_training_warns():
    X, y = mixed_frame(nan=False)
    m = DecisionMatrix(np.eye(3), levels=["yes", "no", "maybe"], priors=[0.3, 0.5, 0.2])
    with pytest.warns(UserWarning, match="absent from the training data"):
        tree = ProfitTreeClassifier(decision_matrix=m, max_depth=2).fit(X, y)
    assert np.all(tree.predict_proba(X)[:, 2] == 0)


def test_costs_errors():
    X, y = mixed_frame(nan=False)
    with pytest.raises(ValueError, match="costs needs a decision_matrix"):
        ProfitTreeClassifier().fit(X, y, costs={"c": np.ones(len(X))})
    m = DecisionMatrix({"call": [12.0, 0.0], "skip": [0.0, 0.0]}, levels=["yes", "no"],
                       kind="revenue", costs={"call": "c"})
    with pytest.raises(TypeError, match="costs must be a DataFrame or a dict"):
        ProfitTreeClassifier(decision_matrix=m).fit(X, y, costs=np.ones((len(X), 2)))
    with pytest.raises(ValueError, match="costs column 'c' must have one value per case"):
        ProfitTreeClassifier(decision_matrix=m).fit(X, y, costs={"c": np.ones(3)})


def test_export_functions_and_prune():
    from dtdecide.export import export_rules, leaf_table, to_sql

    X, y = mixed_frame(nan=False)
    tree = ProfitTreeClassifier(decision_matrix=M2, max_depth=3).fit(X, y)
    table = leaf_table(tree)
    assert len(table) == tree.get_n_leaves()
    assert "IF" in export_rules(tree)
    assert "SELECT" in to_sql(tree)
    # the estimators leave exporting to dtdecide.export (no tree -> export dependency)
    assert not any(hasattr(tree, m) for m in ("leaf_table", "to_sql", "export_rules"))
    pruned = tree.prune(n_leaves=2)
    assert pruned.get_n_leaves() <= 2


def test_use_priors_needs_priors():
    X, y = mixed_frame(nan=False)
    with pytest.raises(ValueError, match="use_priors=True needs a decision_matrix with priors"):
        ProfitTreeClassifier(decision_matrix=M2, use_priors=True).fit(X, y)
    with pytest.raises(ValueError, match="use_priors=True needs"):
        ProfitTreeClassifier(use_priors=True).fit(X, y)


def test_use_priors_reweights_the_split_search():
    X, y = mixed_frame(nan=False, n=600)
    m = M2.replace(priors=[0.9, 0.1])
    a = ProfitTreeClassifier(decision_matrix=m, use_priors=True, max_depth=3).fit(X, y)
    # the root impurity is computed on prior-reweighted class proportions
    v = a.tree_.value[0]
    rho = v / v.sum()
    p = rho * (np.array([0.9, 0.1]) / rho)
    p /= p.sum()
    assert a.tree_.impurity[0] == pytest.approx(1 - np.sum(p**2))
