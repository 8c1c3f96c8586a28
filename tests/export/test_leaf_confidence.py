"""Leaf table: margin, bootstrap confidence and validation margin of leaf decisions."""

import numpy as np
import pandas as pd
import pytest

from dtdecide import DecisionMatrix, ProfitTreeClassifier, ProfitTreeRegressor
from dtdecide.export import leaf_table
from dtdecide.tree._structure import _leaf
from dtdecide.tree._structure._confidence import leaf_margin

M = DecisionMatrix({"call": [10.0, -2.0], "skip": [0.0, 0.0]}, levels=["yes", "no"])


def _fit(seed=0, n=400, matrix=M, **kw):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"x": rng.uniform(0, 10, n), "z": rng.integers(0, 3, n)})
    p = np.clip(0.05 + 0.03 * X["x"], 0, 1)
    y = np.where(rng.random(n) < p, "yes", "no")
    tree = ProfitTreeClassifier(decision_matrix=matrix, max_depth=3, min_samples_leaf=15,
                                **kw).fit(X, y)
    return tree, X, y


def test_margin_hand_computed():
    X = pd.DataFrame({"x": [1.0, 2, 3, 4, 5, 6, 7, 8]})
    y = ["no", "no", "no", "yes", "yes", "yes", "no", "yes"]
    tree = ProfitTreeClassifier(decision_matrix=M, max_depth=1, min_samples_leaf=1,
                                min_samples_split=2).fit(X, y)
    table = leaf_table(tree)
    # leaf x <= 3.5: 3 "no" -> call earns -2, skip 0: margin 2; leaf x > 3.5: 4 yes 1 no
    # -> call earns (40 - 2) / 5 = 7.6, skip 0: margin 7.6
    assert table["margin"].tolist() == pytest.approx([2.0, 7.6])
    assert table["confidence"].tolist() == [1.0, 1.0]  # one class alone never flips
    assert leaf_margin(np.array([[1.0]]), np.array([0])).tolist() != [0.0]  # NaN: 1 decision


def _twin_confidence(tree, X, y, n_resamples, seed):
    """Resample each leaf's training rows with replacement and re-decide (slow)."""
    rng = np.random.default_rng(seed)
    leaves = np.flatnonzero(tree.tree_.children_left < 0)
    leaf_of = tree.apply(X)
    t_idx = np.array([list(M.levels).index(v) for v in y])
    out = []
    cons = M.resolve(None, n_samples=len(y))
    for leaf in leaves:
        rows = np.flatnonzero(leaf_of == leaf)
        keep = 0
        for _ in range(n_resamples):
            pick = rng.choice(rows, size=rows.size, replace=True)
            F = np.bincount(pick, minlength=len(y)).astype(float)
            node = np.where(F > 0, 1, 0)
            stats = _leaf.compute_decision_stats(
                node, np.array([-1, 0]), np.array([0, 1]), cons=cons,
                sample_weight=np.ones(len(y)) * (F > 0) * F + (F == 0) * 0.0,
                t_idx=t_idx, rows=M.rows, decisions=M.decisions)
            d = _leaf.node_decisions(stats.take(np.array([1])), M)["node_decision"][0]
            keep += d == tree.tree_.node_decision[leaf]
        out.append(keep / n_resamples)
    return np.array(out)


def test_confidence_agrees_with_row_bootstrap():
    tree, X, y = _fit(3)
    ours = leaf_table(tree, n_resamples=2000, random_state=1)["confidence"].to_numpy()
    twin = _twin_confidence(tree, X, y, 300, seed=2)
    assert np.all((ours >= 0) & (ours <= 1))
    assert np.abs(ours - twin).max() < 0.1
    assert ours.min() < 0.99  # the data make at least one leaf less than sure


def test_confidence_is_seeded_and_vectorised():
    tree, X, y = _fit(4)
    a = leaf_table(tree, random_state=7)["confidence"]
    b = leaf_table(tree, random_state=7)["confidence"]
    pd.testing.assert_series_equal(a, b)
    assert "confidence" not in leaf_table(tree, n_resamples=0).columns


@pytest.mark.parametrize("kind", ["priors", "costvar", "case_q"])
def test_confidence_other_matrix_forms(kind):
    rng = np.random.default_rng(5)
    n = 300
    X = pd.DataFrame({"x": rng.uniform(0, 10, n)})
    y = np.where(rng.random(n) < 0.05 + 0.03 * X["x"], "yes", "no")
    fit_kw = {}
    if kind == "priors":
        m = M.replace(priors=[0.3, 0.7])
    elif kind == "costvar":
        m = DecisionMatrix({"call": [12.0, 0.0], "skip": [0.0, 0.0]}, levels=["yes", "no"],
                           kind="revenue", costs={"call": "c"})
        fit_kw["costs"] = {"c": rng.uniform(1, 3, n)}
    else:
        m = DecisionMatrix.case_specific(levels=["yes", "no"], decisions=["call", "skip"])
        Q = np.zeros((n, 2, 2))
        Q[:, 0, 0] = rng.uniform(5, 15, n)
        Q[:, 1, 0] = -rng.uniform(1, 3, n)
        fit_kw["costs"] = Q
    tree = ProfitTreeClassifier(decision_matrix=m, max_depth=2, min_samples_leaf=20).fit(
        X, y, **fit_kw)
    table = leaf_table(tree)
    assert table["confidence"].between(0, 1).all()
    assert (table["margin"] >= 0).all()


def test_regressor_confidence_and_margin():
    rng = np.random.default_rng(6)
    X = rng.uniform(0, 10, size=(300, 1))
    y = np.where(X[:, 0] < 5, 5.1, 9.0) + rng.normal(scale=3, size=300)
    m = DecisionMatrix({"invest": [-10.0, 10.0], "wait": [0.0, 0.0]}, knots=[0.0, 10.0])
    reg = ProfitTreeRegressor(decision_matrix=m, max_depth=2, min_samples_leaf=20).fit(X, y)
    table = leaf_table(reg, X, y)
    assert table["confidence"].between(0, 1).all()
    # the leaf whose mean sits nearest the break-even 5 is the least sure
    assert table["confidence"].idxmin() == (table["mean"] - 5).abs().idxmin()
    assert table["confidence"].min() < 0.97
    assert "valid_margin" in table


def test_valid_margin_hand_computed():
    tree, X, y = _fit(8)
    rng = np.random.default_rng(9)
    Xv = X.sample(150, random_state=1)
    yv = np.where(rng.random(150) < 0.3, "yes", "no")
    table = leaf_table(tree, Xv, yv)
    leaf_of = tree.apply(Xv)
    q = np.where(yv == "yes", 10.0, -2.0)  # call; skip earns 0
    for _, r in table.iterrows():
        sel = leaf_of == r["leaf"]
        call = q[sel].mean()
        expected = call if r["decision"] == "call" else -call
        assert r["valid_margin"] == pytest.approx(expected)


def test_plot_tree_marks_fragile_leaves():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from dtdecide.export import plot_tree

    tree, X, y = _fit(3)
    conf = leaf_table(tree)["confidence"].to_numpy()
    cut = float(np.sort(conf)[len(conf) // 2]) + 1e-9
    ax = plot_tree(tree, confidence_below=cut)
    texts = [t.get_text() for t in ax.texts if t.get_text().startswith("leaf")]
    marked = [t for t in texts if "confidence" in t]
    assert len(marked) == int((conf < cut).sum()) > 0
    plt.close(ax.figure)
    ax = plot_tree(tree)
    assert not any("confidence" in t.get_text() for t in ax.texts)
    plt.close(ax.figure)
    with pytest.raises(ValueError, match="confidence_below"):
        plot_tree(tree, confidence_below=1.5)


@pytest.mark.parametrize("matrix", [M, DecisionMatrix({"call": [0.0, 3.0], "skip": [8.0, 0.0]},
                                                      levels=["yes", "no"], kind="loss")],
                         ids=["profit", "loss"])
def test_decide_confidence_columns_are_the_leaf_tables(matrix):
    tree, X, y = _fit(10, matrix=matrix)
    table = leaf_table(tree, random_state=3).set_index("leaf")
    assert (table["margin"] >= 0).all()  # profit orientation, also for a loss matrix
    ep = "EL_target" if matrix.kind == "loss" else "EP_target"
    # the margin: how much better the leaf's decision does than the runner-up
    other = [c for c in table.columns if c.startswith(ep[:3]) and c != ep[:2]]
    sign = -1 if matrix.kind == "loss" else 1
    values = table[other].to_numpy() * sign
    best = np.sort(values, axis=1)
    np.testing.assert_allclose(table["margin"], best[:, -1] - best[:, -2])
    cases = tree.decide(X, y, confidence=True, random_state=3).cases
    cols = list(cases.columns)
    assert cols[cols.index(ep) + 1: cols.index(ep) + 3] == ["MARGIN_target", "CONF_target"]
    leaf_of = tree.apply(X)
    np.testing.assert_allclose(cases["MARGIN_target"], table.loc[leaf_of, "margin"])
    np.testing.assert_allclose(cases["CONF_target"], table.loc[leaf_of, "confidence"])
    assert "MARGIN_target" not in tree.decide(X).cases
    with pytest.raises(ValueError, match="n_resamples must be a positive int"):
        tree.decide(X, confidence=True, n_resamples=0)
    with pytest.raises(TypeError, match="confidence must be True or False"):
        tree.decide(X, confidence="yes")


def test_decide_confidence_regressor_and_case_rule():
    rng = np.random.default_rng(12)
    X = rng.uniform(0, 10, size=(200, 1))
    y = np.where(X[:, 0] < 5, 4.0, 9.0) + rng.normal(scale=2, size=200)
    m = DecisionMatrix({"invest": [-10.0, 10.0], "wait": [0.0, 0.0]}, knots=[0.0, 10.0])
    reg = ProfitTreeRegressor(decision_matrix=m, max_depth=2, min_samples_leaf=20).fit(X, y)
    cases = reg.decide(X, confidence=True).cases
    table = leaf_table(reg).set_index("leaf")
    np.testing.assert_allclose(cases["CONF_target"], table.loc[reg.apply(X), "confidence"])
    costs = {"c": rng.uniform(1, 3, 200)}
    mc = DecisionMatrix({"call": [12.0, 0.0], "skip": [0.0, 0.0]}, levels=["yes", "no"],
                        kind="revenue", costs={"call": "c"})
    yc = np.where(y > 6, "yes", "no")
    case = ProfitTreeClassifier(decision_matrix=mc, decision_rule="case", max_depth=2).fit(
        X, yc, costs=costs)
    with pytest.raises(ValueError, match='confidence=True.*decision_rule="case"'):
        case.decide(X, costs=costs, confidence=True)
