"""Exports of trees grown by the real grower on the bundled bank data."""

import numpy as np
import pandas as pd
import pytest
from test_export_sql import compare, db_frame, run_duckdb, run_sqlite

from dtdecide import ProfitTreeClassifier
from dtdecide.datasets import load_bank_marketing
from dtdecide.export import export_rules, leaf_table, to_sql


@pytest.fixture(scope="module")
def bank():
    b = load_bank_marketing()
    train = b.split_labels == "train"
    est = ProfitTreeClassifier(
        decision_matrix=b.decision_matrix, max_depth=5, min_samples_leaf=50
    ).fit(b.data[train], b.target[train], costs=b.costs[train])
    return b, train, est


def scoring_frame(b, train, rng):
    """Rows not used in training, with holes and labels unseen in training."""
    X = b.data[~train].copy()
    for c in X.columns:
        if isinstance(X[c].dtype, pd.CategoricalDtype):
            X[c] = X[c].astype(object)
    n = len(X)
    for c in ("age", "balance", "job", "poutcome", "housing", "previous"):
        hole = rng.random(n) < 0.08
        X.loc[hole, c] = None if X[c].dtype == object else np.nan
    X.loc[rng.random(n) < 0.03, "job"] = "astronaut"
    X.loc[rng.random(n) < 0.03, "poutcome"] = "pending"
    costs = b.costs[~train].copy()
    costs.loc[rng.random(n) < 0.01, "contact_cost"] = np.nan
    X = X.join(costs)
    return X, b.target[~train].astype(object).rename("y")


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_sql_of_a_grown_tree_matches_decide(bank, engine):
    b, train, est = bank
    X, y = scoring_frame(b, train, np.random.default_rng(0))
    sql = to_sql(est, target="y", dialect=engine)
    got = (run_sqlite if engine == "sqlite" else run_duckdb)(sql, db_frame(X, y))
    X_in, costs = X.drop(columns="contact_cost"), X[["contact_cost"]]
    assert compare(est, got, X_in, y, costs=costs) == 6
    # a missing cost never blanks the leaf decision, only the cost-dependent outputs
    assert got["D_y"].notna().all() and got["IC_y"].isna().any()


def test_leaf_table_of_a_grown_tree_adds_up(bank):
    b, train, est = bank
    X, y, c = b.data[train], b.target[train], b.costs[train]
    table = leaf_table(est, X, y, costs=c)
    summary = est.decide(X, y, costs=c).summary
    assert table["n"].sum() == train.sum()
    assert table["total_profit"].sum() == pytest.approx(summary["total_profit"], rel=1e-12)
    assert table["valid_total_profit"].sum() == pytest.approx(summary["total_profit"], rel=1e-12)
    np.testing.assert_allclose(table["valid_total_profit"], table["total_profit"], rtol=1e-10)
    np.testing.assert_allclose(table["valid_cost_contact"], table["cost_contact"], rtol=1e-12)
    assert (table["valid_n"] == table["n"]).all()
    # one rule block per leaf, every leaf id mentioned once
    rules = export_rules(est)
    assert rules.count("Leaf ") == est.tree_.n_leaves == len(table)
