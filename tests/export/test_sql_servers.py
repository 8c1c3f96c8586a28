"""SQL score code in real database servers: PostgreSQL and Spark SQL.

The same checks as ``test_export_sql.py`` (every output column equals ``decide``, row for
row), run in a PostgreSQL server and in Spark SQL (pyspark, local mode). ``.ci/run``
installs and starts both; where a server is not reachable the tests skip with the reason.

PostgreSQL is reached through ``DTDECIDE_PG_DSN`` (a libpq connection string; default
``host=127.0.0.1 port=5432 user=postgres password=postgres dbname=postgres``).
"""

import os

import numpy as np
import pandas as pd
import pytest
from export_helpers import (
    class_target,
    interval_case,
    loss_case,
    make_inputs,
)
from test_export_sql import as_float, compare, db_frame

from dtdecide import DecisionMatrix
from dtdecide.export import to_sql

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::DeprecationWarning",
                                        "ignore:The copy keyword:Warning")

PG_DSN = os.environ.get(
    "DTDECIDE_PG_DSN",
    "host=127.0.0.1 port=5432 user=postgres password=postgres dbname=postgres",
)


# ----------------------------------------------------------------------------- servers
@pytest.fixture(scope="module")
def pg():
    psycopg = pytest.importorskip("psycopg", reason="psycopg is not installed")
    try:
        con = psycopg.connect(PG_DSN, connect_timeout=3, autocommit=True)
    except psycopg.OperationalError as exc:
        pytest.skip(f"no PostgreSQL server reachable at {PG_DSN!r}: {exc}".splitlines()[0])
    yield con
    con.close()


def _pg_type(col):
    if pd.api.types.is_bool_dtype(col.dtype):
        return "BOOLEAN"
    if pd.api.types.is_integer_dtype(col.dtype):
        return "BIGINT"
    if pd.api.types.is_float_dtype(col.dtype):
        return "DOUBLE PRECISION"
    return "TEXT"


def run_postgres(con, sql, frame):
    """Load ``frame`` into a temporary table ``data`` and return the scored rows."""
    con.execute("DROP TABLE IF EXISTS data")
    quoted = ['"' + str(c).replace('"', '""') + '"' for c in frame.columns]
    cols = ", ".join(f"{q} {_pg_type(frame[c])}" for q, c in zip(quoted, frame.columns))
    con.execute(f"CREATE TEMPORARY TABLE data ({cols})")
    names = ", ".join(quoted)
    rows = frame.astype(object).where(frame.notna(), None).itertuples(index=False, name=None)
    with con.cursor() as cur, cur.copy(f"COPY data ({names}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)
    with con.cursor() as cur:
        cur.execute(f"SELECT * FROM ({sql}) AS q ORDER BY row_id")
        got = pd.DataFrame(cur.fetchall(), columns=[d.name for d in cur.description])
    return got


@pytest.fixture(scope="module")
def spark():
    pyspark = pytest.importorskip("pyspark", reason="pyspark is not installed")
    from pyspark.sql import SparkSession

    try:
        session = (
            SparkSession.builder.master("local[1]")
            .appName("dtdecide-tests")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "1")
            .config("spark.driver.memory", "1g")
            .config("spark.sql.session.timeZone", "UTC")
            .getOrCreate()
        )
    except Exception as exc:  # no Java, or the JVM would not start
        pytest.skip(f"Spark (pyspark {pyspark.__version__}) did not start: {exc}"[:300])
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def run_spark(session, sql, frame):
    session.createDataFrame(frame.astype(object).where(frame.notna(), None)).createOrReplaceTempView(
        "data"
    )
    return session.sql(f"SELECT * FROM ({sql}) AS q ORDER BY row_id").toPandas()


# ------------------------------------------------------------------------------- cases
@pytest.fixture(scope="module")
def revenue_case(revenue_tree):
    rng = np.random.default_rng(21)
    from export_helpers import add_costs

    X = add_costs(make_inputs(5000, rng, unseen=True), rng, missing=0.03)
    y = class_target(X, rng)
    return revenue_tree, X, y


def _check_revenue(est, got, X, y):
    assert len(got) == len(X)
    assert compare(est, got, X, y) == 6  # D, EP, CP, BP, IC, ROI
    no_cost = X["cost_call"].isna().to_numpy()
    s = est.decide(X, y).summary
    for col, key in (("EP_y", "total_expected_profit"), ("CP_y", "total_profit"),
                     ("IC_y", "total_investment")):
        assert as_float(got[col])[~no_cost].sum() == pytest.approx(s[key], rel=1e-9), col


def _loss_case():
    return loss_case(4000, 2000)


def _interval_case():
    return interval_case(4000, 2000)


# ----------------------------------------------------------------------------- PostgreSQL
def test_postgres_revenue_tree_matches_decide(pg, revenue_case):
    est, X, y = revenue_case
    got = run_postgres(pg, to_sql(est, target="y", dialect="postgresql"), db_frame(X, y))
    _check_revenue(est, got, X, y)


@pytest.mark.parametrize("make", [_loss_case, _interval_case], ids=["loss", "interval"])
def test_postgres_loss_and_interval_trees(pg, make):
    est, X, y = make()
    got = run_postgres(pg, to_sql(est, target=y.name, dialect="postgresql"), db_frame(X, y))
    assert compare(est, got, X, y) == 4  # D, EP/EL, CP/CL, BP/BL


# ----------------------------------------------------------------------------- Spark SQL
def test_spark_revenue_tree_matches_decide(spark, revenue_case):
    est, X, y = revenue_case
    got = run_spark(spark, to_sql(est, target="y", dialect="spark"), db_frame(X, y))
    _check_revenue(est, got, X, y)


@pytest.mark.parametrize("make", [_loss_case, _interval_case], ids=["loss", "interval"])
def test_spark_loss_and_interval_trees(spark, make):
    est, X, y = make()
    got = run_spark(spark, to_sql(est, target=y.name, dialect="spark"), db_frame(X, y))
    assert compare(est, got, X, y) == 4


# ------------------------------------------------------------- quoting of awkward names
def _awkward_case():
    """Labels and column names with quotes, backslashes and backticks."""
    rng = np.random.default_rng(3)
    labels = np.array(["o'neil", "c:\\temp\\", "tick`s", 'say "hi"', "plain"])
    n = 3000
    job = labels[rng.integers(0, labels.size, n)]
    score = rng.normal(size=n)
    p = 1 / (1 + np.exp(-(2 * score + np.isin(job, labels[:2]) * 2 - 1)))
    X = pd.DataFrame({'odd "name`': pd.Categorical(job), "score": score})
    y = pd.Series(np.where(rng.random(n) < p, "yes", "no"), name="y")
    m = DecisionMatrix([[10.0, 0.0], [-2.0, 0.0]], levels=["yes", "no"],
                       decisions=["call", "skip"])
    from dtdecide import ProfitTreeClassifier

    est = ProfitTreeClassifier(decision_matrix=m, max_depth=3, random_state=0).fit(X, y)
    assert est.tree_.is_categorical.any()  # the awkward labels are written into the SQL
    frame = pd.DataFrame({"row_id": np.arange(n), 'odd "name`': job, "score": score, "y": y})
    return est, X, y, frame


def test_postgres_awkward_names(pg):
    est, X, y, frame = _awkward_case()
    got = run_postgres(pg, to_sql(est, target="y", dialect="postgresql"), frame)
    assert compare(est, got, X, y) == 4


def test_spark_awkward_names(spark):
    est, X, y, frame = _awkward_case()
    got = run_spark(spark, to_sql(est, target="y", dialect="spark"), frame)
    assert compare(est, got, X, y) == 4


def test_spark_dialect_text(revenue_tree):
    """Spark SQL text without a Spark: backtick identifiers, DOUBLE infinities."""
    ansi = to_sql(revenue_tree, target="y")
    spark_sql = to_sql(revenue_tree, target="y", dialect="spark")
    for name in ["_LEAF_", "D_y", "EP_y", "ROI_y", "data", *revenue_tree.feature_names_in_]:
        assert f'"{name}"' in ansi and f"`{name}`" in spark_sql and f'"{name}"' not in spark_sql
    assert "AS DOUBLE)" in spark_sql and "DOUBLE PRECISION" not in spark_sql
    assert "'o\\'neil'" in spark_sql and "'o''neil'" in ansi  # label quoting


# ------------------------------------------------------------ case rule (LATERAL stages)
def _case_rule_case():
    from test_export_case_rule import THREE, _data, _tree

    X, y = _data(1500, 1, missing=0.05)
    return _tree(THREE), X, y


def _check_case_rule(est, got, X, y):
    from test_export_case_rule import _compare

    assert len(got) == len(X)
    _compare(est, got, X, y)
    assert got["D_y"].isna().sum() == X["cost_call"].isna().sum() > 0


def test_postgres_case_rule_tree_matches_decide(pg):
    est, X, y = _case_rule_case()
    _check_case_rule(est, run_postgres(pg, to_sql(est, target="y", dialect="postgresql"),
                                       db_frame(X, y)), X, y)


def test_spark_case_rule_tree_matches_decide(spark):
    est, X, y = _case_rule_case()
    _check_case_rule(est, run_spark(spark, to_sql(est, target="y", dialect="spark"),
                                    db_frame(X, y)), X, y)
