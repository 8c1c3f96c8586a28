"""SQL score code agrees with the Python scoring, row for row, in SQLite and DuckDB."""

import math
import sqlite3

import numpy as np
import pandas as pd
import pytest
from export_helpers import (
    HAND_SPLITS,
    FixedTreeClassifier,
    RandomTreeClassifier,
    add_costs,
    class_target,
    fixed,
    interval_case,
    loss_case,
    make_inputs,
)

from dtdecide import DecisionMatrix, ProfitTreeClassifier
from dtdecide.export import to_sql
from dtdecide.export._sql import _float_literal


# ----------------------------------------------------------------------------- helpers
def db_frame(X, y=None):
    """Plain columns for a database: NaN -> NULL, categoricals as their labels."""
    out = pd.DataFrame({"row_id": np.arange(len(X))})
    for c in X.columns:
        col = X[c]
        if isinstance(col.dtype, pd.CategoricalDtype):
            out[c] = pd.array(
                col.astype(object).where(col.notna(), None).to_numpy(), dtype="Int64"
            )
        elif col.dtype == object or pd.api.types.is_string_dtype(col.dtype):
            out[c] = col.astype(object).where(col.notna(), None).to_numpy()
        else:
            out[c] = col.to_numpy(float)
    if y is not None:
        out[y.name] = y.to_numpy() if not pd.api.types.is_numeric_dtype(y) else y.to_numpy(float)
    return out


def run_sqlite(sql, frame):
    con = sqlite3.connect(":memory:")
    frame.to_sql("data", con, index=False)
    got = pd.read_sql_query(f"SELECT * FROM ({sql}) AS q ORDER BY row_id", con)
    con.close()
    return got


def run_duckdb(sql, frame):
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    con.register("data_view", frame)
    con.execute("CREATE TABLE data AS SELECT * FROM data_view")
    got = con.execute(f"SELECT * FROM ({sql}) AS q ORDER BY row_id").df()
    con.close()
    return got


def as_float(col):
    return pd.to_numeric(pd.Series(col), errors="raise").to_numpy(dtype=float, na_value=np.nan)


def assert_same(sql_col, py_col, name):
    a, b = as_float(sql_col), np.asarray(py_col, dtype=float)
    assert a.shape == b.shape, name
    bad = ~((a == b) | (np.isnan(a) & np.isnan(b)))
    assert not bad.any(), f"{name}: {bad.sum()} rows differ, e.g. {a[bad][:3]} vs {b[bad][:3]}"


def assert_same_labels(sql_col, py_col, name):
    a = pd.Series(sql_col).astype(object).where(pd.Series(sql_col).notna(), None).tolist()
    b = pd.Series(py_col).astype(object).where(pd.Series(py_col).notna(), None).tolist()
    assert a == b, name


def compare(est, got, X, y=None, *, costs=None):
    t = est.target_name_
    assert_same(got["_LEAF_"], est.apply(X), "_LEAF_")
    if hasattr(est, "predict_proba"):
        proba = est.predict_proba(X)
        for k, cls in enumerate(est.classes_):
            assert_same(got[f"P_{t}_{cls}"], proba[:, k], f"P_{cls}")
    else:
        assert_same(got[f"P_{t}"], est.predict(X), "P")
    if est.decision_matrix_ is None:
        return 0
    cases = est.decide(X, y=y, costs=costs).cases
    assert_same_labels(got[f"D_{t}"], cases[f"D_{t}"], "D")
    checked = 1
    for col in cases.columns:
        if col.startswith("D_"):
            continue
        assert_same(got[col], cases[col], col)
        checked += 1
    return checked


# ------------------------------------------------------------------- hand-computed tree
def hand_tree():
    X = pd.DataFrame(
        {
            "age": [10.0, 20.0, 30.0, np.nan, 40.0, 25.0],
            "job": ["a", "b", "c", None, "c", "a"],
        }
    )
    y = pd.Series(["no", "no", "yes", "yes", "yes", "no"], name="y")
    m = DecisionMatrix(
        [[10.0, 0.0], [-1.0, 0.0]], levels=["yes", "no"], decisions=["call", "skip"]
    )
    # root: age <= 20 left, missing right; node 2: job in {c} left, missing/unseen left
    est = fixed(FixedTreeClassifier, HAND_SPLITS, decision_matrix=m).fit(X, y)
    return est, X, y


def test_hand_tree_leaves_and_outputs():
    est, X, y = hand_tree()
    # categories are sorted: a, b, c -> codes 0, 1, 2
    assert est.categories_[1].tolist() == ["a", "b", "c"]
    new = pd.DataFrame(
        {
            "age": [20.0, 20.000000000000004, np.nan, 21.0, 21.0, 21.0],
            "job": ["c", "c", "a", None, "zzz", "a"],
        }
    )
    # by hand: <= 20 -> leaf 1; NaN age -> right -> job a -> right leaf 4;
    # job None / unseen 'zzz' -> missing side of node 2 = left -> leaf 3; job a -> leaf 4
    expected_leaf = [1, 3, 4, 3, 3, 4]
    got = run_sqlite(to_sql(est, dialect="sqlite"), db_frame(new))
    assert got["_LEAF_"].tolist() == expected_leaf
    assert est.apply(new).tolist() == expected_leaf
    # leaf 1 holds rows age 10, 20 (no, no); leaf 3: job c or missing (30 c yes, NaN None
    # yes, 40 c yes); leaf 4: job a (25 no)
    assert got["P_y_yes"].tolist() == [0.0, 1.0, 0.0, 1.0, 1.0, 0.0]
    # EP(call) = 10 p_yes - 1 p_no: leaf 1 -> -1 (skip wins with 0); leaf 3 -> 10
    assert got["D_y"].tolist() == ["skip", "call", "skip", "call", "call", "skip"]
    assert got["EP_y"].tolist() == [0.0, 10.0, 0.0, 10.0, 10.0, 0.0]


def test_hand_tree_sql_text():
    est, _, _ = hand_tree()
    sql = to_sql(est, keep_columns=["age"])
    assert '"age" <= 2.00000000000000000e+01' in sql
    # the side without missing values is the one tested; the rest falls to the ELSE
    assert "\"job\" IN ('a', 'b')" in sql
    assert "IS NULL OR" not in sql  # no numeric split sends missing values left


def test_quoting_of_labels_and_names():
    X = pd.DataFrame({'we"ird': [1.0, 2.0, 3.0, 4.0], "job": ["o'neil", "x", "o'neil", "x"]})
    y = pd.Series(["a", "b", "a", "b"], name="y")
    splits = dict(
        children_left=[1, -1, -1],
        children_right=[2, -1, -1],
        feature=[1, -1, -1],
        threshold=[np.nan] * 3,
        is_categorical=[True, False, False],
        cat_left=[[True, False], [False, False], [False, False]],
    )
    est = fixed(FixedTreeClassifier, splits).fit(X, y)
    sql = to_sql(est)
    assert "'o''neil'" in sql
    got = run_sqlite(sql, db_frame(X))
    assert got["_LEAF_"].tolist() == est.apply(X).tolist()
    assert '"we""ird"' in to_sql(est, keep_columns=['we"ird'])


def test_float_literals_round_trip_in_sqlite():
    rng = np.random.default_rng(0)
    values = np.concatenate(
        [rng.uniform(-1e6, 1e6, 3000), rng.normal(size=3000), (rng.integers(0, 10**6, 3000) + 0.5) / 7]
    )
    con = sqlite3.connect(":memory:")
    for chunk in np.array_split(values, 10):
        row = con.execute("SELECT " + ", ".join(_float_literal(v, "sqlite") for v in chunk)).fetchone()
        assert list(row) == chunk.tolist()
    assert _float_literal(float("nan"), "ansi") == "NULL"
    assert con.execute(f"SELECT {_float_literal(math.inf, 'sqlite')}").fetchone()[0] == math.inf


# ------------------------------------------------------- 100,000 rows, revenue + costs
@pytest.fixture(scope="module")
def scored_frame(score_data):
    X, y = score_data
    return db_frame(X, y)


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_revenue_tree_matches_decide_on_100k_rows(engine, revenue_tree, score_data, scored_frame):
    X, y = score_data
    assert len(X) >= 100_000
    assert X["age"].isna().any() and X["job"].isna().any() and X["cost_call"].isna().any()
    assert (X["job"] == "student").any()  # unseen in training
    sql = to_sql(revenue_tree, target="y", dialect=engine)
    got = (run_sqlite if engine == "sqlite" else run_duckdb)(sql, scored_frame)
    assert len(got) == len(X)
    n_checked = compare(revenue_tree, got, X, y)
    assert n_checked == 6  # EP, CP, BP, IC, ROI + D
    # a missing cost leaves the leaf's decision and expected profit in place
    assert got["D_y"].notna().all() and got["EP_y"].notna().all()
    no_cost = X["cost_call"].isna().to_numpy()
    assert np.isnan(as_float(got["BP_y"])[no_cost]).all()
    called = got["D_y"].to_numpy() == "call"
    assert np.isnan(as_float(got["IC_y"])[no_cost & called]).all()
    assert not np.isnan(as_float(got["IC_y"])[no_cost & ~called]).any()
    assert (no_cost & called).any() and (no_cost & ~called).any()
    # summed over the rows with every cost, the output gives decide's summary
    s = revenue_tree.decide(X, y).summary
    assert s["n_missing"] == no_cost.sum() and s["frequency"] == (~no_cost).sum()
    for col, key in (("EP_y", "total_expected_profit"), ("CP_y", "total_profit"),
                     ("BP_y", "total_best_profit"), ("IC_y", "total_investment")):
        assert as_float(got[col])[~no_cost].sum() == pytest.approx(s[key], rel=1e-9), col
    # the inputs pass through unchanged
    assert_same(got["balance"], X["balance"], "balance")


def test_roi_infinite_cases_in_sql():
    # a decision with cost 0 and positive / negative / zero profit: ROI +inf, -inf, NULL
    rng = np.random.default_rng(5)
    X = make_inputs(400, rng, missing=0.0)
    X["c"] = np.where(rng.random(400) < 0.5, 0.0, 2.0)
    y = class_target(X, rng)
    m = DecisionMatrix(
        [[5.0, 0.0], [-3.0, 0.0], [0.0, 0.0]],
        levels=["yes", "maybe", "no"],
        decisions=["act", "wait"],
        kind="revenue",
        costs={"act": "c"},
    )
    est = RandomTreeClassifier(decision_matrix=m, max_depth=3, random_state=1).fit(X, y)
    frame = db_frame(X, y)
    for engine, run in (("sqlite", run_sqlite), ("duckdb", run_duckdb)):
        got = run(to_sql(est, target="y", dialect=engine), frame)
        compare(est, got, X, y)
        roi = as_float(got["ROI_y"])
        assert np.isposinf(roi).any() and np.isneginf(roi).any() and np.isnan(roi).any()


def test_loss_matrix_duckdb():
    est, X, y = loss_case(20_000, 3000)
    got = run_duckdb(to_sql(est, target="y"), db_frame(X, y))
    assert {"EL_y", "CL_y", "BL_y"} <= set(got.columns)
    assert compare(est, got, X, y) == 4  # D, EL, CL, BL


def test_revenue_constant_costs_without_target_sqlite():
    rng = np.random.default_rng(7)
    X = make_inputs(20_000, rng)
    y = class_target(X, rng)
    m = DecisionMatrix(
        [[9.0, 0.0], [2.0, 0.0], [0.0, 0.0]],
        levels=["yes", "maybe", "no"],
        decisions=["act", "wait"],
        kind="revenue",
        costs={"act": 1.5},
    )
    est = RandomTreeClassifier(decision_matrix=m, max_depth=5, random_state=4).fit(X[:3000], y[:3000])
    got = run_sqlite(to_sql(est, dialect="sqlite"), db_frame(X))
    assert "CP_y" not in got.columns and "IC_y" in got.columns
    assert compare(est, got, X) == 3  # D, EP, IC


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_regression_tree_with_knots(engine):
    est, X, y = interval_case(20_000, 3000)
    run = run_sqlite if engine == "sqlite" else run_duckdb
    got = run(to_sql(est, target="spend", dialect=engine), db_frame(X, y))
    assert compare(est, got, X, y) == 4  # D, EP, CP, BP


def test_plain_tree_without_matrix():
    rng = np.random.default_rng(9)
    X = make_inputs(5000, rng)
    y = class_target(X, rng)
    est = RandomTreeClassifier(max_depth=4, random_state=6).fit(X, y)
    sql = to_sql(est, keep_columns=["row_id"])
    got = run_sqlite(sql, db_frame(X))
    compare(est, got, X)
    assert list(got.columns) == ["row_id", "_LEAF_", "P_y_maybe", "P_y_no", "P_y_yes"]
    with pytest.raises(ValueError, match="decision_matrix"):
        to_sql(est, target="y")


def test_missing_cost_nulls_only_what_needs_it():
    rng = np.random.default_rng(10)
    X = add_costs(make_inputs(2000, rng), rng)
    y = class_target(X, rng)
    m = DecisionMatrix(  # cheaper calls than revenue_matrix(): some leaves mail
        [[20.0, 6.0, 0.0], [4.0, 2.0, 0.0], [0.0, 0.0, 0.0]],
        levels=["yes", "maybe", "no"],
        decisions=["call", "mail", "skip"],
        kind="revenue",
        costs={"call": "cost_call", "mail": 0.75},
    )
    est = RandomTreeClassifier(decision_matrix=m, max_depth=3, random_state=7).fit(X, y)
    decided = est.decide(X, y).cases["D_y"].to_numpy()
    calls = np.flatnonzero(decided == "call")[:5]
    others = np.flatnonzero(decided != "call")[:5]
    assert len(calls) == 5 and len(others) == 5
    holes = np.concatenate([calls, others])
    X2 = X.copy()
    X2.loc[holes, "cost_call"] = np.nan  # 'call' has the cost column, 'mail' 0.75, 'skip' none
    got = run_sqlite(to_sql(est, target="y", dialect="sqlite"), db_frame(X2, y))
    # the decision and expected profit are the leaf's, whatever the cost
    assert got["D_y"].notna().all() and got["EP_y"].notna().all()
    assert got["D_y"].iloc[holes].tolist() == decided[holes].tolist()
    # chosen decision's cost missing (call): IC, CP, ROI NULL; its cost known: not NULL
    for col in ("IC_y", "CP_y", "ROI_y"):
        assert got[col].iloc[calls].isna().all(), col
    for col in ("IC_y", "CP_y"):
        assert got[col].iloc[others].notna().all(), col
    np.testing.assert_array_equal(
        as_float(got["IC_y"].iloc[others]),
        np.where(decided[others] == "mail", 0.75, 0.0),
    )
    # best profit needs every decision's cost
    assert got["BP_y"].iloc[holes].isna().all()
    assert got["BP_y"].drop(index=holes).notna().all()
    compare(est, got, X2, y)
    # the summary rule in SQL: sums over the rows without a NULL cost
    con = sqlite3.connect(":memory:")
    db_frame(X2, y).to_sql("data", con, index=False)
    sums = con.execute(
        f'SELECT COUNT(*), SUM("EP_y"), SUM("CP_y"), SUM("BP_y"), SUM("IC_y") '
        f'FROM ({to_sql(est, target="y", dialect="sqlite")}) AS q '
        f'WHERE "cost_call" IS NOT NULL'
    ).fetchone()
    con.close()
    s = est.decide(X2, y).summary
    assert s["n_missing"] == 10 and sums[0] == s["frequency"] == 1990
    for got_sum, key in zip(sums[1:], ("total_expected_profit", "total_profit",
                                       "total_best_profit", "total_investment")):
        assert got_sum == pytest.approx(s[key], rel=1e-12), key
    # without reading the cost columns there is no IC and no target
    assert "IC_y" not in to_sql(est, include_costs=False)
    with pytest.raises(ValueError, match="include_costs"):
        to_sql(est, include_costs=False, target="y")


def test_bad_arguments(revenue_tree):
    with pytest.raises(ValueError, match="dialect"):
        to_sql(revenue_tree, dialect="oracle")
    with pytest.raises(TypeError, match="table"):
        to_sql(revenue_tree, table=3)
    with pytest.raises(ValueError, match="keep_columns"):
        to_sql(revenue_tree, keep_columns="age")
    with pytest.raises(TypeError, match="cost_columns"):
        to_sql(revenue_tree, cost_columns=["a"])
    with pytest.raises(ValueError, match="unknown names"):
        to_sql(revenue_tree, cost_columns={"cost_mail": "c"})
    with pytest.raises(TypeError, match="estimator"):
        to_sql(object())
    with pytest.raises(ValueError, match="fitted"):
        to_sql(RandomTreeClassifier())


def test_qualified_table_and_renamed_cost_column(revenue_tree, train_data):
    X, y = train_data
    sql = to_sql(revenue_tree, table=("main", "data"), cost_columns={"cost_call": "cc"})
    assert '"main"."data"' in sql and 't."cc"' in sql
    frame = db_frame(X, y).rename(columns={"cost_call": "cc"})
    got = run_sqlite(sql, frame)
    compare(revenue_tree, got, X)


@pytest.mark.parametrize("criterion", ["gini", "profit"])
@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_leaf_rule_cost_rows_with_target(engine, criterion):
    # a leaf-rule tree on cost rows C_FP/C_FN/C_TP/C_TN (from_cost_matrix) scores its
    # computed and best loss in SQL from the table's cost rows, as the case rule does;
    # it was refused ("consequences are per-case arrays") though the columns are there
    rng = np.random.default_rng(17)
    m = DecisionMatrix.from_cost_matrix(levels=("no", "yes"))

    def cost_rows(n, missing=0.0):
        rows = pd.DataFrame({"C_FP": np.round(rng.uniform(1, 3, n), 2),
                             "C_FN": np.round(rng.lognormal(0.7, 1, n), 2),
                             "C_TP": np.round(rng.uniform(1, 3, n), 2),
                             "C_TN": np.round(rng.uniform(0, 0.5, n), 2)})
        for col in rows.columns:  # a missing cell makes only what reads it NULL
            rows.loc[rng.random(n) < missing, col] = np.nan
        return rows

    def target(X):
        return pd.Series(np.where(class_target(X, rng) == "no", "no", "yes"), name="y")

    X = make_inputs(1500, rng, missing=0.05)
    est = ProfitTreeClassifier(decision_matrix=m, criterion=criterion, max_depth=4,
                               min_samples_leaf=30, random_state=0)
    est.fit(X, target(X), costs=cost_rows(1500))
    Xn = make_inputs(1200, rng, missing=0.05, unseen=True)
    yn, rn = target(Xn), cost_rows(1200, missing=0.03)
    cases = est.decide(Xn, yn, costs=rn).cases
    assert set(cases["D_y"]) == {"predict 0", "predict 1"}
    assert cases["CL_y"].isna().any() and cases["CL_y"].notna().any()
    run = run_sqlite if engine == "sqlite" else run_duckdb
    got = run(to_sql(est, target="y", dialect=engine), pd.concat([db_frame(Xn, yn), rn], axis=1))
    assert compare(est, got, Xn, yn, costs=rn) == 4  # EL_, CL_, BL_ besides D_


def test_case_specific_array_target_is_refused():
    # consequences given as an (n, levels, decisions) array have no columns to read
    rng = np.random.default_rng(18)
    X = make_inputs(600, rng)
    y = class_target(X, rng)
    m = DecisionMatrix.case_specific(levels=sorted(set(y)), decisions=["call", "skip"])
    est = ProfitTreeClassifier(decision_matrix=m, max_depth=3, min_samples_leaf=30)
    est.fit(X, y, costs=rng.uniform(0, 10, (len(X), m.n_levels, 2)))
    with pytest.raises(ValueError, match="case-specific decision matrix other than|per-case arrays"):
        to_sql(est, target=y.name)
    got = run_sqlite(to_sql(est, dialect="sqlite"), db_frame(X))
    assert compare(est, got, X) == 2  # D, EP from the leaves
