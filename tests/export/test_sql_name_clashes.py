"""SQL score code never reads a column of the table by accident (issue 13 §2)."""

import sqlite3

import numpy as np
import pandas as pd
import pytest

from dtdecide import DecisionMatrix, ProfitTreeClassifier
from dtdecide.export import to_sql


@pytest.fixture(scope="module")
def scored():
    rng = np.random.default_rng(11)
    n = 600
    # inputs named like the aliases older score code used (t, s, m)
    X = pd.DataFrame({
        "t": rng.normal(size=n),
        "s": rng.choice(["a", "b", "c"], n),
        "m": rng.uniform(0, 10, n),
    })
    y = pd.Series(np.where(X["t"] + (X["s"] == "b") + rng.normal(size=n) > 0.5, "yes", "no"),
                  name="target")
    cost = rng.uniform(0.5, 8.0, n)
    m = DecisionMatrix({"call": [20.0, 0.0], "skip": [0.0, 0.0]}, levels=["yes", "no"],
                       kind="revenue", costs={"call": "cost"})
    tree = ProfitTreeClassifier(decision_matrix=m, max_depth=3, min_samples_leaf=20)
    tree.fit(X, y, costs={"cost": cost})
    return tree, X, y, cost


def table_scored_before(tree, X, y, cost):
    """The table as it is after an earlier scoring: inputs, target, cost and outputs
    (with wrong values, so that reading them by accident shows)."""
    frame = X.copy()
    frame.insert(0, "row_id", np.arange(len(X)))
    frame["target"] = y.to_numpy()
    frame["cost"] = cost
    frame["_LEAF_"] = 999
    for cls in tree.classes_:
        frame[f"P_target_{cls}"] = -1.0
    frame["D_target"] = "nonsense"
    for name in ("EP_target", "IC_target", "CP_target", "BP_target", "ROI_target"):
        frame[name] = -123.0
    return frame


def run(sql, frame):
    con = sqlite3.connect(":memory:")
    frame.to_sql("data", con, index=False)
    got = pd.read_sql_query(f"SELECT * FROM ({sql}) AS q ORDER BY row_id", con)
    con.close()
    return got


def test_a_table_scored_before_scores_as_decide(scored):
    tree, X, y, cost = scored
    frame = table_scored_before(tree, X, y, cost)
    sql = to_sql(tree, keep_columns=["row_id"], target="target", dialect="sqlite")
    got = run(sql, frame)
    res = tree.decide(X, y, costs={"cost": cost}).cases
    np.testing.assert_array_equal(got["_LEAF_"].to_numpy(), tree.apply(X))
    assert got["D_target"].tolist() == res["D_target"].tolist()
    for col in ("EP_target", "IC_target", "CP_target", "BP_target", "ROI_target"):
        np.testing.assert_allclose(got[col].to_numpy(float), res[col].to_numpy(float),
                                   rtol=0, atol=0, err_msg=col)
    proba = tree.predict_proba(X)
    for k, cls in enumerate(tree.classes_):
        np.testing.assert_array_equal(got[f"P_target_{cls}"].to_numpy(), proba[:, k])


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_keeping_every_column_adds_fresh_outputs_after_the_old_ones(scored, engine):
    # duckdb: the leaf id is computed once in a LATERAL subquery, read by its alias
    tree, X, y, cost = scored
    frame = table_scored_before(tree, X, y, cost)
    sql = to_sql(tree, keep_columns="*", target="target", dialect=engine)
    if engine == "sqlite":
        con = sqlite3.connect(":memory:")
        frame.to_sql("data", con, index=False)
    else:
        con = pytest.importorskip("duckdb").connect()
        con.register("data_view", frame)
        con.execute("CREATE TABLE data AS SELECT * FROM data_view")
    cur = con.execute(f"{sql}")
    names = [d[0] for d in cur.description]
    rows = cur.fetchall()
    con.close()
    assert names[:frame.shape[1]] == list(frame.columns)  # the table's columns, untouched
    # the new outputs come after the table's columns: the last D_target is ours
    d_new = max(i for i, c in enumerate(names) if c == "D_target")
    leaf_new = max(i for i, c in enumerate(names) if c == "_LEAF_")
    assert d_new >= frame.shape[1] and leaf_new >= frame.shape[1]
    res = tree.decide(X, y, costs={"cost": cost}).cases
    assert [r[d_new] for r in rows] == res["D_target"].tolist()
    assert [r[leaf_new] for r in rows] == tree.apply(X).tolist()


def test_known_clashes_are_refused(scored):
    tree = scored[0]
    with pytest.raises(ValueError, match="keep_columns"):
        to_sql(tree, keep_columns=["row_id", "_LEAF_"])
    with pytest.raises(ValueError, match="leaf_column"):
        to_sql(tree, leaf_column="D_target")
