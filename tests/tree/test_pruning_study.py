"""Subtree selection, cross-validation, studies and their plot.

The vectorised scoring of all subtrees is checked against the obvious route: prune the
tree, score it with the estimator's own ``decide`` / ``predict`` / ``predict_proba``.
"""

import matplotlib
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.model_selection import KFold, StratifiedKFold

from dtdecide import (
    DecisionMatrix,
    ProfitTreeClassifier,
    ProfitTreeRegressor,
    PruningStudy,
    PruningStudyDisplay,
    best_subtrees_by_size,
    config_context,
    select_subtree,
)
from dtdecide.tree._estimator._pruning import pruning_path
from dtdecide.tree._studies._study import (
    _geometric_midpoints,
    _lift_per_subtree,
    _min_plus,
    best_subtree_of_size,
)

matplotlib.use("Agg")


def make_data(n, seed):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "age": rng.integers(20, 70, n),
        "score": rng.normal(size=n),
        "job": pd.Categorical(rng.choice(["admin", "tech", "retired"], n)),
        "cost": np.round(rng.random(n) * 3, 2),
    })
    p = 0.1 + 0.5 * (X["age"] > 50) + 0.2 * (X["score"] > 0.5) * (X["job"] == "tech")
    y = np.where(rng.random(n) < p, "yes", "no")
    return X, y


REVENUE = DecisionMatrix({"call": [20, 0], "skip": [0, 0]}, levels=["yes", "no"],
                         kind="revenue", costs={"call": "cost"})
LOSS_PRIORS = DecisionMatrix({"call": [0, 2], "skip": [20, 0]}, levels=["yes", "no"],
                             kind="loss", priors=[0.3, 0.7])


@pytest.fixture(scope="module")
def data():
    X, y = make_data(1500, 0)
    return X[:1000], y[:1000], X[1000:], y[1000:]


@pytest.fixture(scope="module")
def revenue_tree(data):
    X, y, _, _ = data
    return ProfitTreeClassifier(decision_matrix=REVENUE, max_depth=6,
                                min_samples_leaf=5).fit(X, y)


def pruned_trees(est, path, ks):
    return {k: est.prune(subtree_index=k, measure=path.measure) for k in ks}


def some_subtrees(path):
    n = path.n_subtrees
    return sorted({0, 1, n // 3, n // 2, n - 2, n - 1} & set(range(n)))


# ------------------------------------------------ vectorised scoring vs slow route
def test_validation_profit_matches_decide_on_each_pruned_tree(data, revenue_tree):
    _, _, Xv, yv = data
    study = PruningStudy(revenue_tree).fit(Xv, yv)  # cost column kept in X
    assert study.measure_ == "profit" and study.method_ == "assessment"
    path = study.path_
    for k, pruned in pruned_trees(revenue_tree, path, some_subtrees(path)).items():
        summary = pruned.decide(Xv, yv).summary
        assert study.results_.loc[k, "valid_measure"] == pytest.approx(
            summary["average_profit"], rel=1e-12)
        assert study.results_.loc[k, "n_leaves"] == pruned.get_n_leaves()


def test_training_profit_matches_decide_on_training_data(data, revenue_tree):
    X, y, _, _ = data
    study = PruningStudy(revenue_tree).fit()
    for k, pruned in pruned_trees(revenue_tree, study.path_, some_subtrees(study.path_)).items():
        assert study.results_.loc[k, "train_measure"] == pytest.approx(
            pruned.decide(X, y).summary["average_profit"], rel=1e-12)


def test_prior_adjusted_loss_matches_decide(data):
    X, y, Xv, yv = data
    est = ProfitTreeClassifier(decision_matrix=LOSS_PRIORS, max_depth=5).fit(X, y)
    study = PruningStudy(est).fit(Xv, yv)
    assert study.measure_ == "loss" and not study.higher_is_better_
    for k, pruned in pruned_trees(est, study.path_, some_subtrees(study.path_)).items():
        summary = pruned.decide(Xv, yv).summary
        assert study.results_.loc[k, "valid_measure"] == pytest.approx(
            summary["adjusted_average_loss"], rel=1e-12)
        train = pruned.decide(X, y).summary["adjusted_average_loss"]
        assert study.results_.loc[k, "train_measure"] == pytest.approx(train, rel=1e-12)
    # the selected subtree has the smallest validation loss
    assert study.results_["valid_measure"].min() == pytest.approx(
        study.results_.loc[study.selected_index_, "valid_measure"])


def test_misclassification_ase_and_lift_match_predictions(data):
    X, y, Xv, yv = data
    est = ProfitTreeClassifier(max_depth=5).fit(X.drop(columns="cost"), y)
    Xv = Xv.drop(columns="cost")
    mis = PruningStudy(est).fit(Xv, yv)
    assert mis.measure_ == "misclassification"
    ase = PruningStudy(est, measure="ase").fit(Xv, yv)
    lift = PruningStudy(est, measure="lift", pos_label="yes", depth_fraction=0.2).fit(Xv, yv)
    for k, pruned in pruned_trees(est, mis.path_, some_subtrees(mis.path_)).items():
        assert mis.results_.loc[k, "valid_measure"] == pytest.approx(
            np.mean(pruned.predict(Xv) != yv), rel=1e-12)
        proba = pruned.predict_proba(Xv)
        expected_lift = slow_lift(proba[:, list(pruned.classes_).index("yes")], yv == "yes",
                                  0.2)
        assert lift.results_.loc[k, "valid_measure"] == pytest.approx(expected_lift)
    # "ase" prunes by squared error: its own sequence
    assert ase.path_.measure == "ase"
    for k, pruned in pruned_trees(est, ase.path_, some_subtrees(ase.path_)).items():
        proba = pruned.predict_proba(Xv)
        onehot = (yv[:, None] == pruned.classes_[None, :]).astype(float)
        brier = ((onehot - proba) ** 2).mean()
        assert ase.results_.loc[k, "valid_measure"] == pytest.approx(brier, rel=1e-10)


def slow_lift(score, event, fraction):
    """Rows sorted by score; a block of equal scores straddling the cut counts in part."""
    order = np.argsort(-score, kind="stable")
    score, event = score[order], event[order].astype(float)
    n_top = fraction * score.size
    taken_events, taken = 0.0, 0.0
    for s in np.unique(score)[::-1]:
        block = score == s
        size = block.sum()
        share = min(size, n_top - taken) / size
        if share <= 0:
            break
        taken_events += share * event[block].sum()
        taken += share * size
    return (taken_events / taken) / event.mean()


def test_regressor_profit_and_ase_match_predictions(data):
    X, _, Xv, _ = data
    rng = np.random.default_rng(3)
    y = X["age"].to_numpy() * 2 + rng.normal(size=len(X)) * 15
    yv = Xv["age"].to_numpy() * 2 + rng.normal(size=len(Xv)) * 15
    m = DecisionMatrix({"buy": [-50, 100], "skip": [0, 0]}, knots=[0, 200])
    est = ProfitTreeRegressor(decision_matrix=m, max_depth=5).fit(X, y)
    profit = PruningStudy(est).fit(Xv, yv)
    ase = PruningStudy(est, measure="ase").fit(Xv, yv)
    assert profit.measure_ == "profit" and ase.measure_ == "ase"
    for k, pruned in pruned_trees(est, profit.path_, some_subtrees(profit.path_)).items():
        assert profit.results_.loc[k, "valid_measure"] == pytest.approx(
            pruned.decide(Xv, yv).summary["average_profit"], rel=1e-12)
    for k, pruned in pruned_trees(est, ase.path_, some_subtrees(ase.path_)).items():
        assert ase.results_.loc[k, "valid_measure"] == pytest.approx(
            np.mean((pruned.predict(Xv) - yv) ** 2), rel=1e-9)


def test_sample_weight_and_missing_costs_in_validation(data, revenue_tree):
    _, _, Xv, yv = data
    w = np.random.default_rng(5).integers(0, 4, len(yv)).astype(float)
    Xm = Xv.copy()
    Xm.loc[Xm.index[:7], "cost"] = np.nan  # left out of the summaries
    study = PruningStudy(revenue_tree).fit(Xm, yv, sample_weight_valid=w)
    for k, pruned in pruned_trees(revenue_tree, study.path_, [0, 2]).items():
        res = pruned.decide(Xm, yv, sample_weight=w)
        summary = res.summary
        assert summary["n_missing"] == 7
        # the decision survives a missing cost; the case still stays out of the summary,
        # also when its decision (skip) needs no cost and its profit is known
        assert res.cases["D_target"].notna().all()
        skipped = (res.cases["D_target"][:7] == "skip").to_numpy()
        assert skipped.any() and res.cases["CP_target"][:7][skipped].notna().all()
        assert study.results_.loc[k, "valid_measure"] == pytest.approx(
            summary["average_profit"], rel=1e-12)


# --------------------------------------------------------------------- selection
def test_assessment_picks_best_validation_and_smallest_on_ties(data, revenue_tree):
    _, _, Xv, yv = data
    study = PruningStudy(revenue_tree).fit(Xv, yv)
    valid = study.results_["valid_measure"].to_numpy()
    best = valid.max()
    ties = np.flatnonzero(np.isclose(valid, best, rtol=1e-12, atol=0))
    assert study.selected_index_ == ties[-1]
    assert study.results_["selected"].sum() == 1
    assert study.best_estimator_.get_n_leaves() == study.selected_n_leaves_
    # the subtrees at alpha 0 (the full tree and the one without idle splits) tie
    if study.path_.ccp_alphas[1] == 0:
        assert valid[0] == pytest.approx(valid[1])
    # the input estimator is untouched
    assert revenue_tree.get_n_leaves() == study.path_.n_leaves[0]


def test_assessment_without_validation_uses_training(revenue_tree):
    study = PruningStudy(revenue_tree).fit()
    train = study.results_["train_measure"].to_numpy()
    assert "valid_measure" not in study.results_
    assert train[study.selected_index_] == pytest.approx(train.max())
    # training profit is non-increasing along the sequence: the smallest best one
    assert np.all(np.diff(train) <= 1e-12)


def test_n_leaves_and_largest_methods(revenue_tree):
    path = pruning_path(revenue_tree)
    for limit in (1, 2, 5, int(path.n_leaves[0])):
        pruned = select_subtree(revenue_tree, method="n_leaves", n_leaves=limit)
        expected = path.n_leaves[path.n_leaves <= limit].max()
        assert pruned.get_n_leaves() == expected
    largest = select_subtree(revenue_tree, method="largest")
    assert largest.get_n_leaves() == revenue_tree.get_n_leaves()


# --------------------------------------------------------------- cross-validation
def test_cross_validation_matches_refitting_by_hand(data, revenue_tree):
    X, y, _, _ = data
    splitter = StratifiedKFold(n_splits=3, shuffle=True, random_state=1)
    study = PruningStudy(revenue_tree, cv=splitter).fit(X_train=X, y_train=y)
    assert study.method_ == "cv"
    path = study.path_
    mid = _geometric_midpoints(path.ccp_alphas)
    profit = np.zeros(path.n_subtrees)
    for train, test in splitter.split(X, y):
        fold = clone(revenue_tree).fit(X.iloc[train], y[train])
        fold_path = fold.cost_complexity_pruning_path()
        for k in range(path.n_subtrees):
            if np.isfinite(mid[k]):
                pruned = fold.prune(ccp_alpha=float(mid[k]))
            else:
                pruned = fold.prune(subtree_index=fold_path.n_subtrees - 1)
            profit[k] += pruned.decide(X.iloc[test], y[test]).summary["total_profit"]
    np.testing.assert_allclose(study.results_["cv_mean"], profit / len(y), rtol=1e-10)
    # 1-SE rule: the smallest subtree within one SE of the best mean
    t = study.results_
    best = t["cv_mean"].idxmax()
    ok = t["cv_mean"] >= t.loc[best, "cv_mean"] - t.loc[best, "cv_se"] - 1e-12
    assert study.selected_index_ == ok[ok].index.max()
    zero_se = PruningStudy(revenue_tree, cv=splitter, se_rule=0).fit(X_train=X, y_train=y)
    assert zero_se.results_.loc[zero_se.selected_index_, "cv_mean"] == pytest.approx(
        t["cv_mean"].max())


def test_leaf_decision_sequence_of_a_case_rule_tree_by_hand(data):
    """pruning_sequence="leaf": the study's tree and its folds' trees pruned along their
    leaf decisions, every subtree scored under the case rule (as decide scores it)."""
    X, y, Xv, yv = data
    tree = ProfitTreeClassifier(decision_matrix=REVENUE, decision_rule="case", max_depth=6,
                                min_samples_leaf=5).fit(X, y)
    splitter = StratifiedKFold(n_splits=3, shuffle=True, random_state=1)
    study = PruningStudy(tree, cv=splitter, pruning_sequence="leaf").fit(
        Xv, yv, X_train=X, y_train=y)
    rule = PruningStudy(tree, cv=splitter).fit(Xv, yv, X_train=X, y_train=y)
    path = study.path_
    leaf_path = tree.cost_complexity_pruning_path(pruning_sequence="leaf")
    np.testing.assert_array_equal(path.collapse_step, leaf_path.collapse_step)
    assert path.collapse_step.tolist() != rule.path_.collapse_step.tolist()
    # training and validation measures of each subtree: decide on the pruned copy
    for k in range(path.n_subtrees):
        pruned = tree.prune(subtree_index=k, pruning_sequence="leaf")
        assert pruned.get_n_leaves() == study.results_["n_leaves"].iloc[k]
        for (Xs, ys), column in (((X, y), "train_measure"), ((Xv, yv), "valid_measure")):
            total = pruned.decide(Xs, ys).summary["total_profit"]
            assert study.results_[column].iloc[k] == pytest.approx(total / len(ys),
                                                                   rel=1e-10)
    # cross-validation: each fold's tree pruned along its own leaf sequence
    mid = _geometric_midpoints(path.ccp_alphas)
    profit = np.zeros(path.n_subtrees)
    for train, test in splitter.split(X, y):
        fold = clone(tree).fit(X.iloc[train], y[train])
        fold_path = fold.cost_complexity_pruning_path(pruning_sequence="leaf")
        for k in range(path.n_subtrees):
            if np.isfinite(mid[k]):
                pruned = fold.prune(ccp_alpha=float(mid[k]), pruning_sequence="leaf")
            else:
                pruned = fold.prune(subtree_index=fold_path.n_subtrees - 1,
                                    pruning_sequence="leaf")
            profit[k] += pruned.decide(X.iloc[test], y[test]).summary["total_profit"]
    np.testing.assert_allclose(study.results_["cv_mean"], profit / len(y), rtol=1e-10)
    k = study.selected_index_
    assert study.best_estimator_.get_n_leaves() == path.n_leaves[k]
    assert study.best_estimator_.ccp_alpha == tree.ccp_alpha  # not a leaf-sequence alpha


def test_cross_validation_standard_error_is_per_observation(data, revenue_tree):
    X, y, _, _ = data
    splitter = KFold(n_splits=2, shuffle=True, random_state=0)
    study = PruningStudy(revenue_tree, cv=splitter).fit(X_train=X, y_train=y)
    k = study.path_.n_subtrees - 1  # the root alone: every fold decides once per fold
    rows = []
    for train, test in splitter.split(X, y):
        fold = clone(revenue_tree).fit(X.iloc[train], y[train])
        root = fold.prune(n_leaves=1)
        rows.append(root.decide(X.iloc[test], y[test]).cases["CP_target"].to_numpy())
    profit = np.concatenate(rows)
    se = profit.std() / np.sqrt(profit.size)
    assert study.results_.loc[k, "cv_se"] == pytest.approx(se, rel=1e-9)


def test_cross_validation_random_state_and_verbose(data, revenue_tree, capsys):
    X, y, _, _ = data
    with config_context(progress=True):  # stderr is no terminal under pytest
        a = PruningStudy(revenue_tree, cv=3, random_state=7, verbose=1).fit(
            X_train=X, y_train=y)
    captured = capsys.readouterr()
    assert "PruningStudy: cross-validation" in captured.err and "3/3" in captured.err
    assert "fold/s" in captured.err and "leaves in" in captured.err
    assert captured.out == ""
    b = PruningStudy(revenue_tree, cv=3, random_state=7).fit(X_train=X, y_train=y)
    pd.testing.assert_frame_equal(a.results_, b.results_)
    assert capsys.readouterr().err == ""
    with config_context(verbose=1):  # the package default, but stderr is no terminal
        PruningStudy(revenue_tree, cv=3, random_state=7).fit(X_train=X, y_train=y)
    assert capsys.readouterr().err == ""
    table = a.cp_table()
    assert list(table.columns) == ["CP", "nsplit", "rel_error", "xerror", "xstd"]
    assert table["nsplit"].iloc[0] == 0


def test_cross_validation_with_validation_data_keeps_both(data, revenue_tree):
    X, y, Xv, yv = data
    study = PruningStudy(revenue_tree, cv=3, method="assessment", random_state=0).fit(
        Xv, yv, X_train=X, y_train=y)
    assert {"valid_measure", "cv_mean", "cv_se", "cv_alpha"} <= set(study.results_)
    assert study.method_ == "assessment"


# ------------------------------------------------------------------------ errors
@pytest.mark.parametrize(
    "params, fit_kw, match",
    [
        ({"method": "best"}, {}, "method"),
        ({"measure": "gini"}, {}, "measure"),
        ({"method": "cv"}, {}, "method='cv' needs cv"),
        ({"cv": 3}, {}, "cv needs the training data"),
        ({"method": "n_leaves"}, {}, "n_leaves"),
        ({"depth_fraction": 0}, {}, "depth_fraction"),
        ({"se_rule": -1}, {}, "se_rule"),
        ({"cv": 1}, {"train": True}, "cv must be"),
        ({"measure": "lift", "cv": 3}, {"train": True}, "lift"),
        ({"measure": "lift", "pos_label": "maybe"}, {}, "pos_label"),
        ({"pruning_sequence": "case"}, {}, "pruning_sequence"),
        ({"pruning_sequence": None}, {}, "pruning_sequence"),
    ],
)
def test_bad_parameters_raise(data, revenue_tree, params, fit_kw, match):
    X, y, _, _ = data
    kw = {"X_train": X, "y_train": y} if fit_kw.get("train") else {}
    with pytest.raises(ValueError, match=match):
        PruningStudy(revenue_tree, **params).fit(**kw)


def test_bad_data_raise(data, revenue_tree):
    _, _, Xv, yv = data
    with pytest.raises(ValueError, match="X_valid and y_valid"):
        PruningStudy(revenue_tree).fit(Xv)
    with pytest.raises(ValueError, match="inconsistent"):
        PruningStudy(revenue_tree).fit(Xv, yv[:-1])
    with pytest.raises(ValueError, match="y"):
        PruningStudy(revenue_tree).fit(Xv, np.where(yv == "yes", "maybe", yv))
    with pytest.raises(ValueError, match="fitted"):
        PruningStudy(ProfitTreeClassifier()).fit()
    with pytest.raises(ValueError, match="not fitted"):
        PruningStudy(revenue_tree).to_frame()


# ------------------------------------------------------------- best by size (DP)
def all_prunings(left, right, risk, v=0):
    out = {}
    options = [(risk[v], 1)]
    if left[v] >= 0:
        a = all_prunings(left, right, risk, left[v])
        b = all_prunings(left, right, risk, right[v])
        options += [(ra + rb, ma + mb) for ma, ra in a.items() for mb, rb in b.items()]
    for r, m in options:
        out[m] = min(out.get(m, np.inf), r)
    return out


def test_best_subtrees_by_size_matches_brute_force(data):
    X, y, _, _ = data
    est = ProfitTreeClassifier(decision_matrix=REVENUE, max_depth=3).fit(X, y)
    table = best_subtrees_by_size(est)
    from dtdecide.tree._estimator._pruning import node_risk

    risk, _ = node_risk(est)
    t = est.tree_
    brute = all_prunings(t.children_left, t.children_right, risk)
    expected = np.array([-brute[m] for m in table["n_leaves"]])
    np.testing.assert_allclose(table["best_total"], expected, rtol=1e-12)
    assert len(table) == t.n_leaves
    # the nested sequence is never better than the best subtree of its size
    seq = table.dropna(subset=["nested_total"])
    assert np.all(seq["best_total"] >= seq["nested_total"] - 1e-9)
    capped = best_subtrees_by_size(est, max_leaves=3)
    np.testing.assert_allclose(capped["best_total"], table["best_total"][:3])
    with pytest.raises(ValueError, match="max_leaves"):
        best_subtrees_by_size(est, max_leaves=0)


def test_best_subtree_of_size_reaches_the_brute_force_optimum(data):
    X, y, _, _ = data
    est = ProfitTreeClassifier(decision_matrix=REVENUE, max_depth=3).fit(X, y)
    from dtdecide.tree._estimator._pruning import node_risk

    risk, _ = node_risk(est)
    t = est.tree_
    brute = all_prunings(t.children_left, t.children_right, risk)
    for limit in range(1, t.n_leaves + 1):
        pruned = best_subtree_of_size(est, limit)
        sub = pruned.tree_
        assert sub.n_leaves <= limit
        earned = risk[sub.kept_node_ids[sub.is_leaf]].sum()
        assert earned == pytest.approx(min(r for m, r in brute.items() if m <= limit))
    with pytest.raises(TypeError, match="n_leaves"):
        best_subtree_of_size(est, 2.5)


def test_min_plus_matches_outer_sum():
    rng = np.random.default_rng(0)
    for a_size, b_size, cap in [(1, 1, 5), (3, 5, 20), (4, 2, 4), (6, 6, 7)]:
        a, b = rng.normal(size=a_size), rng.normal(size=b_size)
        out, n_left = _min_plus(a, b, cap)
        for idx in range(1, out.size):
            cand = [a[i] + b[idx - 1 - i] for i in range(a_size) if 0 <= idx - 1 - i < b_size]
            assert out[idx] == pytest.approx(min(cand))
            # the recorded split of the leaves achieves the optimum
            k = n_left[idx]
            assert 1 <= k <= a_size and 1 <= idx + 1 - k <= b_size
            assert a[k - 1] + b[idx - k] == pytest.approx(out[idx])


def test_geometric_midpoints_follow_rpart():
    np.testing.assert_array_equal(_geometric_midpoints([0.0, 0.0, 2.0, 8.0]),
                                  [0.0, 0.0, 4.0, np.inf])


def test_lift_kernel_hand_computed():
    # two leaves: scores 0.8 (weight 10, 6 events) and 0.2 (weight 30, 4 events)
    score = np.array([0.5, 0.8, 0.2])
    events = np.array([10.0, 6.0, 4.0])
    weight = np.array([40.0, 10.0, 30.0])
    start, stop = np.array([1, 0, 0]), np.array([2, 1, 1])
    lift = _lift_per_subtree(score, events, weight, start, stop, 2, depth_fraction=0.5)
    # top 20 of weight: leaf 1 (6 events in 10) + a third of leaf 2 (4/3 events)
    assert lift[0] == pytest.approx(((6 + 4 / 3) / 20) / (10 / 40))
    assert lift[1] == pytest.approx(1.0)


# ------------------------------------------------------------------------ display
def test_display_from_study_and_estimator(data, revenue_tree):
    import matplotlib.pyplot as plt

    X, y, Xv, yv = data
    study = PruningStudy(revenue_tree, cv=3, random_state=0, method="assessment").fit(
        Xv, yv, X_train=X, y_train=y)
    disp = PruningStudyDisplay.from_study(study)
    assert set(disp.lines_) == {"train", "valid", "cv", "band", "selected"}
    assert disp.ax_.get_xlabel() == "number of leaves"
    np.testing.assert_allclose(disp.lines_["valid"].get_ydata(),
                               study.results_["valid_measure"])
    assert disp.lines_["selected"].get_xdata()[0] == study.selected_n_leaves_
    fig, ax = plt.subplots()
    disp2 = PruningStudyDisplay.from_estimator(revenue_tree, Xv, yv, ax=ax, measure="lift")
    assert disp2.ax_ is ax and disp2.ax_.get_ylabel() == "lift at 10%"
    assert "valid" in disp2.lines_ and "cv" not in disp2.lines_
    plt.close("all")
    with pytest.raises(ValueError, match="one value per subtree"):
        PruningStudyDisplay([3, 1], [1.0, 2.0], valid=[1.0])
    with pytest.raises(TypeError, match="PruningStudy"):
        PruningStudyDisplay.from_study(object())


# ------------------------------------------------------- properties on real trees
@settings(max_examples=10, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    depth=st.integers(1, 5),
    gain=st.integers(1, 40),
    cost=st.integers(1, 10),
    kind=st.sampled_from(["profit", "loss"]),
)
def test_scoring_matches_decide_on_random_real_trees(seed, depth, gain, cost, kind):
    X, y = make_data(300, seed)
    X = X.drop(columns="cost")
    values = np.array([[gain - cost, 0.0], [-cost, 0.0]])
    if kind == "loss":
        values = -values
    matrix = DecisionMatrix(values, levels=["yes", "no"], decisions=["call", "skip"],
                            kind=kind)
    est = ProfitTreeClassifier(decision_matrix=matrix, max_depth=depth).fit(X[:200], y[:200])
    study = PruningStudy(est).fit(X[200:], y[200:])
    path = study.path_
    sign = 1.0 if kind == "profit" else -1.0
    assert np.all(np.diff(path.ccp_alphas) >= 0)
    assert np.all(np.diff(sign * path.train_total) <= 1e-9)
    key = f"average_{kind}"
    for k in range(path.n_subtrees):
        pruned = est.prune(subtree_index=k)
        assert study.results_.loc[k, "valid_measure"] == pytest.approx(
            pruned.decide(X[200:], y[200:]).summary[key], rel=1e-12, abs=1e-12)
    chosen = study.results_.loc[study.selected_index_, "valid_measure"]
    best = study.results_["valid_measure"].max() if kind == "profit" else (
        study.results_["valid_measure"].min())
    assert chosen == pytest.approx(best)
