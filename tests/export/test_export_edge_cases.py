"""Edge cases: single-leaf trees, integer and boolean labels, case-specific matrices,
regression trees without a matrix, and random trees scored in SQL (property test)."""

import matplotlib
import numpy as np
import pandas as pd
import pytest
from export_helpers import RandomTreeClassifier, RandomTreeRegressor, class_target, make_inputs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_export_sql import compare, db_frame, run_sqlite

from dtdecide import DecisionMatrix, ProfitTreeClassifier
from dtdecide.export import (
    export_graphviz,
    export_rules,
    leaf_table,
    plot_tree,
    to_sql,
    variable_importance,
)

matplotlib.use("Agg")


def test_single_leaf_tree_everywhere():
    X = pd.DataFrame({"x": [1.0, 2.0, 3.0, np.nan]})
    y = pd.Series(["a", "b", "a", "a"], name="y")
    m = DecisionMatrix([[2.0, 0.0], [-1.0, 0.0]], levels=["a", "b"], decisions=["go", "stay"])
    est = ProfitTreeClassifier(decision_matrix=m).fit(X, y)  # too few rows to split
    assert est.tree_.n_leaves == 1
    t = leaf_table(est)
    assert t["rule"].tolist() == ["all cases"] and t["EP"].tolist() == [1.25]
    assert "IF    (all cases)" in export_rules(est)
    got = run_sqlite(to_sql(est, target="y", dialect="sqlite"), db_frame(X, y))
    assert compare(est, got, X, y) == 4
    assert export_graphviz(est).count(" -> ") == 0
    assert len(plot_tree(est).texts) == 1
    imp = variable_importance(est)
    assert imp["n_splits"].tolist() == [0] and imp["profit_share"].tolist() == [0.0]
    matplotlib.pyplot.close("all")


def test_integer_levels_and_boolean_input():
    rng = np.random.default_rng(51)
    n = 3000
    X = pd.DataFrame({"flag": rng.random(n) < 0.4, "v": rng.normal(size=n)})
    y = pd.Series(np.where(X["flag"] & (rng.random(n) < 0.7), 1, 0), name="churn")
    m = DecisionMatrix([[0.0, -1.0], [0.0, 6.0]], levels=[0, 1], decisions=["keep", "offer"])
    est = ProfitTreeClassifier(decision_matrix=m, max_depth=2).fit(X, y)
    assert est.is_categorical_[0]
    sql = to_sql(est, target="churn", dialect="sqlite")
    assert "WHEN 1 THEN" in sql and '"P_churn_1"' in sql
    got = run_sqlite(sql, db_frame(X, y))
    assert compare(est, got, X, y) == 4


def test_case_specific_matrix_scores_leaf_decisions_in_sql():
    rng = np.random.default_rng(52)
    X = make_inputs(1500, rng, missing=0.05)
    y = pd.Series(np.where(rng.random(len(X)) < 0.3, 1, 0), name="fraud")
    cost_mat = np.column_stack(
        [np.full(len(X), 5.0), rng.uniform(10, 200, len(X)), np.full(len(X), 5.0), np.zeros(len(X))]
    )
    m = DecisionMatrix.from_cost_matrix(cost_mat, levels=(0, 1))
    est = RandomTreeClassifier(decision_matrix=m, max_depth=4, random_state=3).fit(X, y)
    got = run_sqlite(to_sql(est, dialect="sqlite"), db_frame(X))
    assert compare(est, got, X) == 2  # D, EL
    # with the target, the computed and best loss read the table's cost rows
    rows = pd.DataFrame(cost_mat, columns=["C_FP", "C_FN", "C_TP", "C_TN"])
    got = run_sqlite(to_sql(est, target="fraud", dialect="sqlite"),
                     pd.concat([db_frame(X, y), rows], axis=1))
    assert compare(est, got, X, y, costs=rows) == 4  # D, EL, CL, BL
    t = leaf_table(est)
    assert {"decision", "EL", "total_loss"} <= set(t.columns)
    assert t["total_loss"].sum() == pytest.approx(est.decide(X, y).summary["total_loss"])


def test_regression_tree_without_matrix():
    rng = np.random.default_rng(53)
    X = make_inputs(1000, rng)
    y = pd.Series(rng.normal(50, 5, len(X)), name="amount")
    est = RandomTreeRegressor(max_depth=3, random_state=4).fit(X, y)
    got = run_sqlite(to_sql(est), db_frame(X))
    compare(est, got, X)
    assert list(got.columns)[-2:] == ["_LEAF_", "P_amount"]
    t = leaf_table(est, X, y)
    np.testing.assert_allclose(t["valid_mean"], t["mean"], rtol=1e-12)
    ax = plot_tree(est)
    assert any("mean" in txt.get_text() for txt in ax.texts)
    assert ax.get_legend() is None
    imp = variable_importance(est)
    assert "profit_gain" not in imp.columns and imp["impurity_decrease"].iloc[0] > 0
    assert "sd " in export_graphviz(est)
    matplotlib.pyplot.close("all")


def test_export_functions_are_deterministic(revenue_tree, train_data):
    X, y = train_data
    assert to_sql(revenue_tree, target="y") == to_sql(revenue_tree, target="y")
    assert export_rules(revenue_tree) == export_rules(revenue_tree)
    assert leaf_table(revenue_tree, X=X, y=y).equals(leaf_table(revenue_tree, X, y))


def test_deep_tree_stays_within_sqlite_parser_limits():
    rng = np.random.default_rng(54)
    X = make_inputs(3000, rng, missing=0.0)
    y = class_target(X, rng)
    m = DecisionMatrix([[3.0, 0.0], [1.0, 0.0], [-1.0, 0.0]], levels=["yes", "maybe", "no"],
                       decisions=["a", "b"])
    est = ProfitTreeClassifier(decision_matrix=m, max_depth=None, min_samples_leaf=1)
    est = est.fit(X, y)
    assert est.tree_.max_depth >= 20  # deeper than SQLite accepts as nested CASE
    Xs = make_inputs(1000, rng, unseen=True, missing=0.2)
    ys = class_target(Xs, rng)
    for nesting in (12, 0):
        sql = to_sql(est, target="y", dialect="sqlite", max_nesting=nesting)
        got = run_sqlite(sql, db_frame(Xs, ys))
        assert compare(est, got, Xs, ys) == 4
    with pytest.raises(ValueError, match="max_nesting"):
        to_sql(est, max_nesting=-1)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    depth=st.integers(1, 7),
    missing=st.sampled_from([0.0, 0.3]),
    nesting=st.sampled_from([0, 1, 3, 12]),
)
def test_property_random_trees_score_identically_in_sql(seed, depth, missing, nesting):
    rng = np.random.default_rng(seed)
    X = make_inputs(600, rng, missing=missing)
    y = class_target(X, rng)
    m = DecisionMatrix(
        rng.normal(size=(3, 3)).round(3), levels=["yes", "maybe", "no"], decisions=["a", "b", "c"]
    )
    est = RandomTreeClassifier(decision_matrix=m, max_depth=depth, random_state=seed).fit(X, y)
    Xs = make_inputs(1500, rng, unseen=True, missing=0.2)
    ys = class_target(Xs, rng)
    sql = to_sql(est, target="y", dialect="sqlite", max_nesting=nesting)
    got = run_sqlite(sql, db_frame(Xs, ys))
    assert compare(est, got, Xs, ys) == 4
