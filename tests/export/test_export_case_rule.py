"""Exports under decision_rule="case": leaf table, rules and SQL show per-case decisions."""

import numpy as np
import pandas as pd
import pytest
from export_helpers import add_costs, class_target, make_inputs
from test_export_sql import assert_same, assert_same_labels, db_frame, run_duckdb, run_sqlite

from dtdecide import DecisionMatrix, ProfitTreeClassifier, ProfitTreeRegressor, decide
from dtdecide.export import export_rules, leaf_table, to_sql

THREE = DecisionMatrix(
    [[30.0, 12.0, 0.0], [8.0, 5.0, 0.0], [0.0, 0.0, 0.0]],
    levels=["yes", "maybe", "no"], decisions=["call", "mail", "skip"], kind="revenue",
    costs={"call": "cost_call", "mail": 0.7},
)
TWO = DecisionMatrix(
    [[30.0, 0.0], [8.0, 0.0], [0.0, 0.0]], levels=["yes", "maybe", "no"],
    decisions=["call", "skip"], kind="revenue", costs={"call": "cost_call"},
)


def _data(n, seed, missing=0.0):
    rng = np.random.default_rng(seed)
    X = add_costs(make_inputs(n, rng, unseen=seed > 0), rng, missing=missing)
    X["cost_call"] = X["cost_call"] * rng.lognormal(0, 0.8, n)  # wider spread
    if missing:
        X.loc[rng.random(n) < missing, "cost_call"] = np.nan
    return X, class_target(X, rng)


_TREES = {}


def _tree(matrix, priors=None, depth=4, smoothing=0.0):
    key = (id(matrix), None if priors is None else tuple(priors), depth, smoothing)
    if key not in _TREES:
        m = matrix.replace(priors=priors) if priors is not None else matrix
        X, y = _data(2000, 0)
        _TREES[key] = ProfitTreeClassifier(decision_matrix=m, decision_rule="case",
                                           max_depth=depth, min_samples_leaf=20,
                                           posterior_smoothing=smoothing,
                                           random_state=0).fit(X, y)
    return _TREES[key]


def _compare(est, got, X, y):
    cases = est.decide(X, y).cases
    ref = decide(est.predict_proba(X), est.decision_matrix_, y=y, costs=X[["cost_call"]],
                 target_name="y")
    pd.testing.assert_frame_equal(cases, ref.cases)
    t = est.target_name_
    assert_same_labels(got[f"D_{t}"], cases[f"D_{t}"], "D")
    for col in cases.columns:
        if not col.startswith("D_"):
            assert_same(got[col], cases[col], col)


@pytest.mark.parametrize("matrix, priors, smoothing", [
    (TWO, None, 0.0), (THREE, None, 0.0), (THREE, [0.2, 0.3, 0.5], 0.0), (TWO, None, 30.0),
    (THREE, [0.2, 0.3, 0.5], 30.0)])
@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_case_rule_sql_equals_decide(engine, matrix, priors, smoothing):
    est = _tree(matrix, priors, smoothing=smoothing)
    X, y = _data(2500, 1, missing=0.05)
    run = run_sqlite if engine == "sqlite" else run_duckdb
    got = run(to_sql(est, target="y", dialect=engine), db_frame(X, y))
    _compare(est, got, X, y)
    D = got["D_y"]
    assert D.isna().sum() == X["cost_call"].isna().sum() > 0  # a NULL cost cannot decide
    # some leaf splits its cases between decisions: decided case by case
    per_leaf = pd.crosstab(got["_LEAF_"], D.fillna("none"))
    assert ((per_leaf.drop(columns="none", errors="ignore") > 0).sum(axis=1) >= 2).any()


def test_case_rule_sql_computes_the_leaf_and_the_decision_once():
    """DuckDB, PostgreSQL and Spark SQL: the leaf CASE, each decision's expected profit
    and the decision are written once (LATERAL subqueries); SQLite writes them per use."""
    est = _tree(THREE)
    one_select = to_sql(est, target="y", dialect="sqlite")
    staged = to_sql(est, target="y", dialect="duckdb")
    leaf_case = one_select.split("\n", 1)[1].split(' AS "_LEAF_"')[0].split("t.*,\n  ", 1)[1]
    assert leaf_case.startswith("(CASE") and one_select.count(leaf_case) > 10
    assert staged.count(leaf_case) == 1
    assert staged.count('t_leaf."leaf"') == 1 + len(est.classes_) + 3  # _LEAF_, P_, ep0..2
    # the decision (the first maximum of the expected profits) is written once
    assert staged.count("THEN 'call'") == 1 < one_select.count("THEN 'call'")
    assert len(staged) < len(one_select) / 5


def test_case_rule_sql_breaks_ties_on_the_first_decision():
    est = _tree(TWO, depth=2)
    X, y = _data(300, 2)
    # costs exactly at each leaf's threshold: A(call) == A(skip) in Python
    from dtdecide.export._caserule import case_form
    from dtdecide.export._common import tree_view

    view = tree_view(est)
    form = case_form(view)
    leaves = est.apply(X)
    X["cost_call"] = form.const[leaves, 0] - form.const[leaves, 1]
    got = run_sqlite(to_sql(est, keep_columns=["row_id"]), db_frame(X, y))
    ref = est.decide(X).cases["D_y"]
    assert (ref == "call").all()
    assert_same_labels(got["D_y"], ref, "D")


def test_case_rule_regressor_sql_equals_decide():
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"x0": rng.uniform(0, 10, 800), "x1": rng.uniform(0, 10, 800)})
    y = pd.Series(3 * X["x0"] + rng.normal(size=800), name="y")
    X["c"] = rng.lognormal(2, 1, 800)
    m = DecisionMatrix({"invest": [0, 40], "hold": [0, 10], "wait": [0, 0]},
                       knots=[0, 30], kind="revenue", costs={"invest": "c"})
    est = ProfitTreeRegressor(decision_matrix=m, decision_rule="case", max_depth=3).fit(X, y)
    for engine, run in (("sqlite", run_sqlite), ("duckdb", run_duckdb)):
        got = run(to_sql(est, target="y", dialect=engine), db_frame(X, y))
        cases = est.decide(X, y).cases
        assert_same_labels(got["D_y"], cases["D_y"], "D")
        for col in ("EP_y", "CP_y", "BP_y", "IC_y", "ROI_y"):
            assert_same(got[col], cases[col], col)


def test_case_rule_leaf_table_shows_cost_thresholds():
    est = _tree(TWO, depth=3)
    X, y = _data(2000, 4)
    table = leaf_table(est, X, y)
    post = est.node_posteriors_
    for _, row in table.iterrows():
        k = 30.0 * post[row["leaf"], 0] + 8.0 * post[row["leaf"], 1]
        assert row["decision"] == f"call when cost_call <= {k:.4g}, else skip"
    assert "EP" not in table.columns and "ROI" not in table.columns
    # training and validation profit are those of every case under its own decision
    Xt, yt = _data(2000, 0)
    assert table["total_profit"].sum() == pytest.approx(est.decide(Xt, yt).summary["total_profit"])
    assert table["valid_total_profit"].sum() == pytest.approx(
        est.decide(X, y).summary["total_profit"])
    # more decisions: the expressions of the costs
    text = leaf_table(_tree(THREE, depth=2))["decision"].iloc[0]
    assert text.startswith("the largest expected profit of call: ") and "- cost_call" in text
    assert "mail: " in text and "skip: 0" in text


def test_case_rule_rules_text():
    est = _tree(TWO, depth=2)
    text = export_rules(est, digits=3)
    assert "THEN  call when cost_call <= " in text and ", else skip" in text
    assert "each case decides with its own costs" in text
    assert text.count("Leaf ") == est.get_n_leaves()


def test_case_rule_sql_needs_costs():
    est = _tree(TWO, depth=2)
    with pytest.raises(ValueError, match="include_costs"):
        to_sql(est, include_costs=False)


def _cost_rows(X, rng, missing=0.0):
    n = len(X)
    rows = pd.DataFrame({
        "C_FP": np.round(rng.uniform(1, 3, n), 2),
        "C_FN": np.round(rng.lognormal(2, 1, n), 2),
        "C_TP": np.round(rng.uniform(1, 3, n), 2),
        "C_TN": np.zeros(n),
    })
    if missing:
        rows.loc[rng.random(n) < missing, "C_FN"] = np.nan
    return rows


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_case_rule_cost_rows_sql_text_and_decide(engine):
    rng = np.random.default_rng(7)
    m = DecisionMatrix.case_specific(levels=["no", "yes"], decisions=["call", "skip"],
                                     kind="loss")
    X = make_inputs(1500, rng, missing=0.05)
    y = pd.Series(np.where(class_target(X, rng) == "no", "no", "yes"), name="y")
    rows = _cost_rows(X, rng)
    est = ProfitTreeClassifier(decision_matrix=m, decision_rule="case", max_depth=3,
                               min_samples_leaf=30, random_state=0).fit(X, y, costs=rows)
    Xn = make_inputs(1200, rng, missing=0.05)
    yn = pd.Series(np.where(class_target(Xn, rng) == "no", "no", "yes"), name="y")
    rn = _cost_rows(Xn, rng, missing=0.03)
    cases = est.decide(Xn, yn, costs=rn).cases
    ref = decide(est.predict_proba(Xn), m, y=yn, costs=rn, target_name="y")
    pd.testing.assert_frame_equal(cases, ref.cases)
    frame = pd.concat([db_frame(Xn, yn), rn], axis=1)
    run = run_sqlite if engine == "sqlite" else run_duckdb
    got = run(to_sql(est, target="y", dialect=engine), frame)
    assert_same_labels(got["D_y"], cases["D_y"], "D")
    for col in ("EL_y", "CL_y", "BL_y"):
        assert_same(got[col], cases[col], col)
    assert got["D_y"].isna().sum() == rn["C_FN"].isna().sum() > 0
    # the leaf table writes the comparison of the two expected losses
    post = est.node_posteriors_
    table = leaf_table(est)
    n = int(table["leaf"].iloc[0])
    p0, p1 = post[n]
    assert table["decision"].iloc[0] == (
        f"call when {p0:.4g} x C_FP + {p1:.4g} x C_TP <= {p0:.4g} x C_TN + {p1:.4g} x C_FN, "
        "else skip")


def test_case_rule_html_and_plot_say_the_decision_is_per_case():
    """The HTML view and the tree plot do not show a case-rule tree's leaf decision as the
    decision of its cases: they say it is the one at the cases' average training costs."""
    from dtdecide.export import plot_tree
    from dtdecide.tree._estimator._html import tree_html

    est = _tree(TWO, depth=2)
    page = tree_html(est)
    n_nodes = est.tree_.n_nodes
    assert page.count("per case; at mean costs ") == n_nodes
    assert 'decision_rule="case"' in page
    leaf_rule = ProfitTreeClassifier(decision_matrix=TWO, max_depth=2, min_samples_leaf=20,
                                     random_state=0).fit(*_data(2000, 0))
    assert "per case; at mean costs" not in tree_html(leaf_rule)
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    ax = plot_tree(est)
    texts = [t.get_text() for t in ax.texts]
    assert sum("per case; at mean costs" in t for t in texts) == n_nodes
    matplotlib.pyplot.close("all")
