"""Tests of the ``dtdecide`` command line, run in-process through ``main``."""

import io
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dtdecide.cli import COMMANDS, main, pruning_study, read_decisions
from dtdecide.decision import DecisionMatrix
from dtdecide.export import load

REVENUE = 12.0


def _cases(n, seed):
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 80, n)
    region = rng.choice(["north", "south", "east"], n)
    income = rng.gamma(2.0, 1.5, n)
    logit = -2.5 + 0.04 * (age - 40) + 0.5 * (region == "south") + 0.3 * income
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-logit)), "yes", "no")
    cost = 1.0 + rng.integers(0, 3, n)
    return pd.DataFrame(
        {"id": np.arange(n), "age": age, "region": region, "income": income, "cost": cost,
         "y": y}
    )


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli")
    train, valid = _cases(1200, 0), _cases(800, 1)
    paths = {
        "train": root / "train.csv",
        "valid": root / "valid.parquet",
        "decisions": root / "decisions.csv",
        "root": root,
    }
    train.to_csv(paths["train"], index=False)
    valid.to_parquet(paths["valid"], index=False)
    paths["decisions"].write_text(f"level,contact,ignore\nno,0,0\nyes,{REVENUE:g},0\ncost,cost,\n")
    paths["model"] = root / "model.dtdecide"
    code = main([
        "fit", str(paths["train"]), "--target", "y", "--decisions", str(paths["decisions"]),
        "--exclude", "id", "--max-depth", "4", "--min-samples-leaf", "20",
        "--output", str(paths["model"]), "--quiet",
    ])
    assert code == 0
    return paths


def _run(argv, capsys):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("command", [[], *[[c] for c in COMMANDS]])
def test_help_explains_every_option(command, capsys):
    import argparse

    from dtdecide.cli import build_parser

    code, out, _ = _run([*command, "--help"], capsys)
    assert code == 0
    assert out.startswith(f"usage: dtdecide{' ' if command else ''}{' '.join(command)}")
    parser = build_parser()
    if command:
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parser = sub.choices[command[0]]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            continue
        assert action.help and len(action.help) > 10, action.dest
        for option in action.option_strings:
            assert option in out, option


def test_no_command_is_an_error(capsys):
    code, out, _ = _run([], capsys)
    assert code == 2 and "COMMAND" in out


def test_fit_writes_a_model_using_costs_as_costs(files):
    model = load(files["model"])
    assert list(model.feature_names_in_) == ["age", "region", "income"]
    assert model.decisions_ == ("contact", "ignore")
    assert model.decision_matrix_.costs == {"contact": "cost"}
    assert model.get_depth() <= 4


def test_score_matches_decide(files, capsys):
    out_path = files["root"] / "scored.csv"
    code, out, _ = _run(["score", str(files["model"]), str(files["valid"]), "--keep", "id",
                         "--output", str(out_path), "--quiet"], capsys)
    assert code == 0
    assert "average_profit" in out  # the summary, since the data hold the target
    scored = pd.read_csv(out_path)
    valid = pd.read_parquet(files["valid"])
    model = load(files["model"])
    expected = model.decide(valid[["age", "region", "income"]], valid["y"],
                            costs=valid[["cost"]]).cases
    assert list(scored["id"]) == list(valid["id"])
    assert list(scored["D_y"]) == list(expected["D_y"])
    np.testing.assert_allclose(scored["CP_y"], expected["CP_y"])
    np.testing.assert_allclose(scored["EP_y"], expected["EP_y"])


def test_score_without_target_to_stdout(files, capsys):
    path = files["root"] / "new.csv"
    pd.read_parquet(files["valid"]).drop(columns=["y", "cost"]).head(5).to_csv(path, index=False)
    code, out, _ = _run(["score", str(files["model"]), str(path), "--quiet"], capsys)
    assert code == 0
    frame = pd.read_csv(io.StringIO(out))
    assert len(frame) == 5 and set(frame["D_y"]) <= {"contact", "ignore"}


def test_leaf_table_file(files, capsys):
    out_path = files["root"] / "leaves.csv"
    code, _, _ = _run(["leaf-table", str(files["model"]), "--data", str(files["valid"]),
                       "--output", str(out_path)], capsys)
    assert code == 0
    table = pd.read_csv(out_path)
    model = load(files["model"])
    assert len(table) == model.get_n_leaves()
    assert {"rule", "decision", "valid_n"} <= set(table.columns)
    assert table["valid_n"].sum() == 800


def _slow_valid_profit(tree, valid):
    """Average validation profit of a tree, by hand from its leaves' decisions."""
    X = valid[["age", "region", "income"]]
    leaves = tree.apply(X)
    decision = np.asarray(tree.decisions_)[tree.tree_.node_decision[leaves]]
    revenue = np.where(valid["y"].to_numpy() == "yes", REVENUE, 0.0)
    profit = np.where(decision == "contact", revenue - valid["cost"].to_numpy(), 0.0)
    return profit.mean()


def test_pruning_study_against_slow_reference(files):
    model = load(files["model"])
    valid = pd.read_parquet(files["valid"])
    study = pruning_study(model, valid[["age", "region", "income"]], valid["y"],
                          costs_valid=valid[["cost"]])
    path = model.cost_complexity_pruning_path()
    # rows are subtrees of the sequence; one with the figures of the next is left out
    assert set(study["subtree"]) <= set(range(path.n_subtrees))
    slow = [_slow_valid_profit(model.prune(subtree_index=k), valid)
            for k in range(path.n_subtrees)]
    np.testing.assert_allclose(study["valid_average"], [slow[k] for k in study["subtree"]])
    assert study["n_leaves"].is_monotonic_decreasing
    best = max(slow)
    smallest_best = max(k for k, v in enumerate(slow) if v >= best - 1e-12)
    assert study["chosen"].tolist() == [k == smallest_best for k in study["subtree"]]


def test_prune_study_command(files, capsys):
    root = files["root"]
    code, out, _ = _run(["prune-study", str(files["model"]), "--validation", str(files["valid"]),
                         "--output", str(root / "study.csv"), "--plot", str(root / "study.png"),
                         "--model-out", str(root / "pruned.dtdecide"), "--quiet"], capsys)
    assert code == 0
    assert "Pruning table" in out
    study = pd.read_csv(root / "study.csv")
    chosen = study.loc[study["chosen"]].iloc[0]
    assert load(root / "pruned.dtdecide").get_n_leaves() == chosen["n_leaves"]
    assert (root / "study.png").read_bytes()[:4] == b"\x89PNG"


def test_fit_with_validation_prunes(files, capsys):
    out_path = files["root"] / "pruned_fit.dtdecide"
    code, out, _ = _run([
        "fit", str(files["train"]), "--target", "y", "--decisions", str(files["decisions"]),
        "--inputs", "age,region,income", "--validation", str(files["valid"]),
        "--max-depth", "4", "--min-samples-leaf", "20", "-o", str(out_path), "--quiet",
    ], capsys)
    assert code == 0 and "Pruning table" in out
    assert load(out_path).get_n_leaves() <= load(files["model"]).get_n_leaves()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["fit", "{root}/nope.csv", "--target", "y"], "does not exist"),
        (["fit", "{root}/data.xml", "--target", "y"], "unknown file type"),
        (["fit", "{train}", "--target", "outcome"], "lacks the column(s) 'outcome'"),
        (["fit", "{train}", "--target", "y", "--decisions", "{root}/bad_dec.csv"], "malformed"),
        (["fit", "{train}", "--target", "y", "--decisions", "{root}/nocost_dec.csv"],
         "lacks the column(s) 'price'"),
        (["fit", "{train}", "--target", "y", "--decisions", "{root}/levels_dec.csv"],
         "not levels of the decision matrix: 'no'"),
        (["fit", "{train}", "--target", "y", "--max-depth", "x"], None),
        (["score", "{root}/junk.joblib", "{train}"], "holds text"),
        (["score", "{train}", "{train}"], "not a model file"),
        (["score", "{root}/binary.joblib", "{train}"], "--allow-pickle"),
        (["score", "{model}", "{root}/noage.csv"], "lacks the column(s) 'age'"),
        (["leaf-table", "{root}/nope.joblib"], "does not exist"),
        (["prune-study", "{model}", "--validation", "{root}/empty.csv"], "could not be read"),
    ],
)
def test_bad_input_exits_with_2_and_says_why(files, argv, message, capsys):
    root = files["root"]
    (root / "data.xml").write_text("<x/>")
    (root / "bad_dec.csv").write_text("level,contact,ignore\nno,0,zero\nyes,12,0\n")
    (root / "nocost_dec.csv").write_text("level,contact,ignore\nno,0,0\nyes,12,0\ncost,price,\n")
    (root / "levels_dec.csv").write_text("level,contact,ignore\nmaybe,0,0\nyes,12,0\n")
    (root / "junk.joblib").write_bytes(b"not a model")
    (root / "binary.joblib").write_bytes(bytes(range(256)))
    (root / "empty.csv").write_text("")
    pd.read_csv(files["train"]).drop(columns=["age"]).to_csv(root / "noage.csv", index=False)
    argv = [a.format(root=root, train=files["train"], model=files["model"]) for a in argv]
    code, _, err = _run([*argv, "--quiet"], capsys)
    assert code == 2
    if message is not None:
        assert message in err
        assert err.startswith(f"dtdecide {argv[0]}: error:")


@settings(max_examples=25, deadline=None)
@given(
    values=st.lists(st.lists(st.integers(-50, 50), min_size=3, max_size=3), min_size=2,
                    max_size=4),
    kind=st.sampled_from(["profit", "loss"]),
)
def test_decision_file_round_trip(values, kind, tmp_path_factory):
    levels = [f"level{i}" for i in range(len(values))]
    matrix = DecisionMatrix(np.array(values, float), levels=levels,
                            decisions=["a", "b", "c"], kind=kind)
    path = tmp_path_factory.mktemp("dec") / "m.csv"
    matrix.to_csv(path)
    assert read_decisions(path, kind=kind) == matrix


@pytest.mark.slow
def test_demo_writes_every_export(tmp_path, capsys):
    code, out, err = _run(["demo", "--output", str(tmp_path), "--max-depth", "4"], capsys)
    assert code == 0, err
    for title in ("Recommended setting", "Pruning table", "Leaf decision table",
                  "Test-set profit summary"):
        assert title in out
    for name in ("leaf_table.csv", "score.sql", "rules.txt", "pruning.png", "profit_chart.png",
                 "test_scored.csv", "model.dtdecide"):
        assert (tmp_path / name).stat().st_size > 0, name
    scored = pd.read_csv(tmp_path / "test_scored.csv")
    assert len(scored) == 11304
    assert "[" in err  # progress messages


def test_pickle_models_need_allow_pickle(files, capsys):
    """Pickles are written and read only with --allow-pickle (loading one runs code)."""
    root = files["root"]
    fit = ["fit", str(files["train"]), "--target", "y", "--decisions", str(files["decisions"]),
           "--exclude", "id", "--max-depth", "2", "--quiet", "-o", str(root / "p.joblib")]
    code, _, err = _run(fit, capsys)
    assert code == 2 and "--allow-pickle" in err and "p.dtdecide" in err
    assert not (root / "p.joblib").exists()
    code, _, err = _run([*fit, "--allow-pickle"], capsys)
    assert code == 0, err
    score = ["score", str(root / "p.joblib"), str(files["valid"]), "--quiet",
             "-o", str(root / "p_scored.csv")]
    code, _, err = _run(score, capsys)
    assert code == 2 and "p.joblib" in err and "runs whatever code" in err
    assert "--allow-pickle" in err and "allow_pickle=True" not in err
    code, _, err = _run([*score, "--allow-pickle"], capsys)
    assert code == 0, err
    code, _, err = _run(["leaf-table", str(root / "p.joblib"), "--quiet"], capsys)
    assert code == 2 and "--allow-pickle" in err
    code, _, err = _run(["leaf-table", str(root / "p.joblib"), "--allow-pickle", "--quiet"],
                        capsys)
    assert code == 0, err


def test_fit_with_cross_validation(files, capsys):
    out_path = files["root"] / "cv_fit.dtdecide"
    code, out, _ = _run([
        "fit", str(files["train"]), "--target", "y", "--decisions", str(files["decisions"]),
        "--exclude", "id", "--cv", "3", "--max-depth", "4", "--min-samples-leaf", "20",
        "-o", str(out_path), "--quiet",
    ], capsys)
    assert code == 0 and "1-SE rule" in out and "cv_se" in out
    assert load(out_path).get_n_leaves() <= load(files["model"]).get_n_leaves()


def test_fit_rejects_two_pruning_choices(files, capsys):
    code, _, err = _run([
        "fit", str(files["train"]), "--target", "y", "--decisions", str(files["decisions"]),
        "--cv", "3", "--n-leaves", "4", "--quiet",
    ], capsys)
    assert code == 2 and "at most one of" in err


def test_python_dash_m_entry_point_exit_status(tmp_path):
    ok = subprocess.run([sys.executable, "-m", "dtdecide", "score", "--help"],
                        capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0 and "--keep" in ok.stdout
    bad = subprocess.run([sys.executable, "-m", "dtdecide", "leaf-table",
                          str(tmp_path / "missing.dtdecide")],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "does not exist" in bad.stderr


def test_interval_target_with_knots(tmp_path, capsys):
    rng = np.random.default_rng(7)
    n = 600
    frame = pd.DataFrame({"x": rng.uniform(0, 10, n), "g": rng.choice(["a", "b"], n)})
    frame["spend"] = 30 * frame["x"] + 40 * (frame["g"] == "b") + rng.normal(0, 10, n)
    frame.to_csv(tmp_path / "spend.csv", index=False)
    (tmp_path / "knots.csv").write_text("knot,invest,wait\n0,-100,0\n300,200,0\n")
    code, out, err = _run(["fit", str(tmp_path / "spend.csv"), "--target", "spend",
                           "--decisions", str(tmp_path / "knots.csv"), "--max-depth", "3",
                           "--min-samples-leaf", "20", "-o", str(tmp_path / "reg.dtdecide"),
                           "--quiet"], capsys)
    assert code == 0, err
    model = load(tmp_path / "reg.dtdecide")
    assert type(model).__name__ == "ProfitTreeRegressor"
    code, out, _ = _run(["score", str(tmp_path / "reg.dtdecide"), str(tmp_path / "spend.csv"),
                         "-o", str(tmp_path / "scored.csv"), "--quiet"], capsys)
    assert code == 0
    scored = pd.read_csv(tmp_path / "scored.csv")
    # break-even of "invest" is where -100 + spend / 300 * 300 = 0, i.e. spend = 100
    leaf_mean = model.predict(frame[["x", "g"]])
    np.testing.assert_array_equal(scored["D_spend"] == "invest", leaf_mean > 100)

@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([-1.0, 0.5, 2.0, 3.0]), st.integers(-5, 30)),
                min_size=1, max_size=40))
def test_profit_chart_points_against_slow_reference(cases):
    from dtdecide.cli import _profit_chart_points

    ep = np.array([c[0] for c in cases])
    profit = np.array([c[1] for c in cases], dtype=float)
    depth, cum = _profit_chart_points(ep, profit)
    # slow: acting on every case whose expected profit is at least each distinct value
    thresholds = sorted(set(ep), reverse=True)
    slow_cum = [0.0] + [profit[ep >= t].sum() for t in thresholds]
    slow_depth = [0.0] + [100 * np.mean(ep >= t) for t in thresholds]
    np.testing.assert_allclose(cum, slow_cum)
    np.testing.assert_allclose(depth, slow_depth)
    assert depth[-1] == 100 and np.isclose(cum[-1], profit.sum())


def test_demo_without_matplotlib_skips_only_the_pictures(tmp_path, capsys, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError("No module named 'matplotlib'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    code, out, err = _run(["demo", "--output", str(tmp_path), "--max-depth", "3", "--quiet"],
                          capsys)
    assert code == 0, err
    assert "matplotlib is not installed" in out
    assert (tmp_path / "leaf_table.csv").exists() and (tmp_path / "score.sql").exists()
    assert not (tmp_path / "pruning.png").exists()


def test_handle_unknown_flag_and_id_warning(tmp_path, capsys):
    """Changed labels at scoring warn (or stop with --handle-unknown error); an id-like
    input warns at fit and names --exclude (issue 13 §2)."""
    import warnings

    rng = np.random.default_rng(3)
    n = 200
    frame = pd.DataFrame({
        "client_id": np.arange(5000, 5000 + n),
        "job": rng.choice(["admin", "student"], n),
        "y": rng.choice(["yes", "no"], n),
    })
    frame.loc[frame["job"] == "student", "y"] = "yes"
    data = tmp_path / "train.csv"
    frame.to_csv(data, index=False)
    dec = tmp_path / "decisions.csv"
    dec.write_text("level,call,skip\nyes,10,0\nno,-1,0\n")
    model = tmp_path / "m.dtdecide"
    with pytest.warns(UserWarning, match="client_id.*--exclude client_id"):
        assert main(["fit", str(data), "--target", "y", "--decisions", str(dec),
                     "--min-samples-leaf", "5", "-o", str(model), "--quiet"]) == 0
    new = frame.assign(job=frame["job"].str.upper())
    new_path = tmp_path / "new.csv"
    new.to_csv(new_path, index=False)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        assert main(["score", str(model), str(new_path), "--quiet"]) == 0
    assert any("upper/lower case" in str(w.message) for w in record)
    capsys.readouterr()
    code = main(["score", str(model), str(new_path), "--handle-unknown", "error", "--quiet"])
    assert code == 2
    assert "unseen in training" in capsys.readouterr().err


def test_pruning_table_has_no_two_identical_rows():
    """The grown tree and its alpha-0 subtree score alike: one row, not two (issue 13 §4)."""
    from dtdecide import ProfitTreeClassifier

    rng = np.random.default_rng(0)
    X = pd.DataFrame({"age": rng.integers(20, 70, 3000), "noise": rng.random(3000)})
    y = np.where((X["age"] > 50) & (rng.random(3000) < 0.6), "yes", "no")
    m = DecisionMatrix({"call": [20, -2], "skip": [0, 0]}, levels=["yes", "no"])
    tree = ProfitTreeClassifier(decision_matrix=m, max_depth=6, min_samples_leaf=20)
    tree.fit(X[:2000], y[:2000])
    path = tree.cost_complexity_pruning_path()
    assert path.ccp_alphas[1] == 0  # the sequence has an alpha-0 subtree of the grown tree
    table = pruning_study(tree, X[2000:], y[2000:])
    figures = table.drop(columns=["subtree", "n_leaves", "chosen"])
    assert not figures.duplicated().any()
    assert not table.drop(columns=["subtree"]).duplicated().any()
    assert int(table["chosen"].sum()) == 1 and len(table) < path.n_subtrees


def test_fit_decision_rule_case_and_score(files, capsys):
    out_path = files["root"] / "case.dtdecide"
    code, _, _ = _run([
        "fit", str(files["train"]), "--target", "y", "--decisions", str(files["decisions"]),
        "--exclude", "id", "--decision-rule", "case", "--validation", str(files["valid"]),
        "--max-depth", "4", "--min-samples-leaf", "20", "-o", str(out_path), "--quiet",
    ], capsys)
    assert code == 0
    model = load(out_path)
    assert model.decision_rule == "case"
    scored_path = files["root"] / "case_scored.csv"
    code, out, _ = _run(["score", str(out_path), str(files["valid"]), "--output",
                         str(scored_path), "--quiet"], capsys)
    assert code == 0
    valid = pd.read_parquet(files["valid"])
    expected = model.decide(valid[["age", "region", "income"]], valid["y"],
                            costs=valid[["cost"]]).cases
    assert list(pd.read_csv(scored_path)["D_y"]) == list(expected["D_y"])
    # without the cost column a case-rule model cannot decide
    path = files["root"] / "case_nocost.csv"
    valid.drop(columns=["y", "cost"]).head(5).to_csv(path, index=False)
    code, out, err = _run(["score", str(out_path), str(path), "--quiet"], capsys)
    assert code != 0 and "cost" in (out + err) and "case" in (out + err)


def test_fit_criterion_and_posterior_smoothing(files, capsys):
    base = ["fit", str(files["train"]), "--target", "y", "--decisions", str(files["decisions"]),
            "--exclude", "id", "--max-depth", "4", "--min-samples-leaf", "20", "--quiet"]
    out_path = files["root"] / "smooth.dtdecide"
    code, _, _ = _run(base + ["--decision-rule", "case", "--posterior-smoothing", "auto",
                              "-o", str(out_path)], capsys)
    assert code == 0
    model = load(out_path)
    assert model.posterior_smoothing == "auto" and model.posterior_smoothing_ > 0
    profit_path = files["root"] / "profit.dtdecide"
    code, _, _ = _run(base + ["--criterion", "profit", "-o", str(profit_path)], capsys)
    assert code == 0 and load(profit_path).criterion == "profit"
    # bad values are named
    code, out, err = _run(base + ["--posterior-smoothing", "-3"], capsys)
    assert code != 0 and "--posterior-smoothing" in err
    # under the leaf rule the smoothing pulls the leaf estimates toward their parents'
    leaf_path = files["root"] / "leaf_smooth.dtdecide"
    code, _, _ = _run(base + ["--posterior-smoothing", "5", "-o", str(leaf_path)], capsys)
    assert code == 0 and load(leaf_path).posterior_smoothing_ == 5.0
    honest_path = files["root"] / "honest.dtdecide"
    code, _, _ = _run(base + ["--honest-fraction", "0.5", "-o", str(honest_path)], capsys)
    assert code == 0 and load(honest_path).honest_rows_ is not None
    code, out, err = _run(base + ["--honest-fraction", "1.5"], capsys)
    assert code != 0 and "--honest-fraction" in err
    code, out, err = _run(base + ["--criterion", "variance"], capsys)
    assert code != 0 and "--criterion variance" in (out + err)
    # a boosting guide for the profit tree's splits; saved with the model's parameters
    guided_path = files["root"] / "guided.dtdecide"
    code, out, err = _run(base + ["--criterion", "profit", "--guide", "boosting", "-o",
                                  str(guided_path)], capsys)
    assert code == 0, err
    guided = load(guided_path)
    assert code == 0 and type(guided.guide_model).__name__ == "HistGradientBoostingClassifier"
    code, out, err = _run(base + ["--guide", "boosting"], capsys)  # the Gini tree
    assert code != 0 and "--guide" in err and "--criterion profit" in err


def test_fit_cross_validation_uses_the_weight_column(files, capsys, monkeypatch):
    from dtdecide import PruningStudy

    train = pd.read_csv(files["train"])
    train["w"] = 1 + (train["age"] > 50).astype(int) * 3
    path = files["root"] / "weighted.csv"
    train.to_csv(path, index=False)
    seen = {}
    fit = PruningStudy.fit

    def spy(self, *args, **kwargs):
        seen.update(kwargs)
        return fit(self, *args, **kwargs)

    monkeypatch.setattr(PruningStudy, "fit", spy)
    code, out, _ = _run([
        "fit", str(path), "--target", "y", "--decisions", str(files["decisions"]),
        "--exclude", "id", "--weight", "w", "--cv", "3", "--max-depth", "4",
        "--min-samples-leaf", "20", "-o", str(files["root"] / "w.dtdecide"), "--quiet",
    ], capsys)
    assert code == 0
    np.testing.assert_array_equal(np.asarray(seen["sample_weight_train"]), train["w"])


def test_fit_exact_search(files, capsys):
    out_path = files["root"] / "exact.dtdecide"
    base = ["fit", str(files["train"]), "--target", "y", "--decisions", str(files["decisions"]),
            "--exclude", "id", "--max-depth", "2", "--min-samples-leaf", "20", "--quiet"]
    code, out, _ = _run([*base, "--search", "exact", "-o", str(out_path)], capsys)
    assert code == 0
    model = load(out_path)
    assert model.search == "exact" and model.get_depth() <= 2
    assert model.search_gap_ == 0.0
    assert "exact search: training profit" in out and "proven optimal" in out
    # the same tree as the estimator's exact search; at least the greedy tree's profit
    train = pd.read_csv(files["train"])
    X, y, costs = train[["age", "region", "income"]], train["y"], train[["cost"]]
    greedy_path = files["root"] / "greedy.dtdecide"
    assert _run([*base, "-o", str(greedy_path)], capsys)[0] == 0
    greedy = load(greedy_path).decide(X, y, costs=costs).summary["total_profit"]
    exact = model.decide(X, y, costs=costs).summary["total_profit"]
    assert exact == pytest.approx(model.search_profit_) and exact >= greedy - 1e-9
    # a depth-3 search stopped by the time limit keeps its best tree and says so
    code, out, _ = _run([*base[:-5], "--max-depth", "3", "--min-samples-leaf", "20",
                         "--quiet", "--search", "exact", "--time-limit", "1e-9",
                         "-o", str(out_path)], capsys)
    assert code == 0 and "exact search" in out
    model = load(out_path)
    assert model.time_limit == 1e-9
    assert model.search_gap_ > 0  # stopped at once: the bound is not reached
    assert "best tree found within the time limit; gap" in out
    code, out, err = _run([*base, "--time-limit", "5"], capsys)
    assert code == 2 and "--time-limit applies to --search exact only" in err
    code, out, err = _run([*base, "--search", "exact", "--time-limit", "0"], capsys)
    assert code == 2 and "--time-limit must be a positive number" in err


def test_score_with_confidence(files, capsys):
    out_path = files["root"] / "scored_conf.csv"
    code, _, _ = _run(["score", str(files["model"]), str(files["valid"]), "--confidence",
                       "--output", str(out_path), "--quiet"], capsys)
    assert code == 0
    scored = pd.read_csv(out_path)
    model = load(files["model"])
    valid = pd.read_parquet(files["valid"])
    expected = model.decide(valid[["age", "region", "income"]], confidence=True).cases
    cols = list(scored.columns)
    assert cols[cols.index("EP_y") + 1: cols.index("EP_y") + 3] == ["MARGIN_y", "CONF_y"]
    np.testing.assert_allclose(scored["CONF_y"], expected["CONF_y"])
    np.testing.assert_allclose(scored["MARGIN_y"], expected["MARGIN_y"])


@pytest.mark.parametrize("rule", ["leaf", "case"])
def test_cost_row_model_reads_cost_rows_from_data(tmp_path, capsys, rule):
    # a model on cost rows (from_cost_matrix, saved from Python) has no cost variables:
    # leaf-table --data and prune-study --validation read its C_FP/C_FN/C_TP/C_TN
    # columns (both stopped with "costs ... got None" before)
    from dtdecide import ProfitTreeClassifier, select_subtree
    from dtdecide.export import leaf_table, save

    def with_rows(frame, seed):
        rng = np.random.default_rng(seed)
        n = len(frame)
        return frame.assign(C_FP=rng.uniform(0.5, 2, n), C_FN=rng.gamma(2.0, 3.0, n),
                            C_TP=rng.uniform(0.5, 2, n), C_TN=0.0)

    train, valid = with_rows(_cases(1200, 0), 2), with_rows(_cases(800, 1), 3)
    rows = ["C_FP", "C_FN", "C_TP", "C_TN"]
    inputs = ["age", "region", "income"]
    tree = ProfitTreeClassifier(decision_matrix=DecisionMatrix.from_cost_matrix(levels=("no", "yes")),
                                criterion="profit", decision_rule=rule, max_depth=5,
                                min_samples_leaf=20, random_state=0)
    tree.fit(train[inputs], train["y"], costs=train[rows])
    save(tree, tmp_path / "m.dtdecide")
    valid.to_csv(tmp_path / "valid.csv", index=False)
    code, _, _ = _run(["leaf-table", str(tmp_path / "m.dtdecide"), "--data",
                       str(tmp_path / "valid.csv"), "--precision", "15", "-o",
                       str(tmp_path / "leaves.csv"), "--quiet"], capsys)
    assert code == 0
    got = pd.read_csv(tmp_path / "leaves.csv")
    expected = leaf_table(tree, valid[inputs], valid["y"], costs=valid[rows])
    np.testing.assert_allclose(got["valid_total_loss"], expected["valid_total_loss"],
                               rtol=1e-12)
    code, _, _ = _run(["prune-study", str(tmp_path / "m.dtdecide"), "--validation",
                       str(tmp_path / "valid.csv"), "--model-out", str(tmp_path / "p.dtdecide"),
                       "--quiet"], capsys)
    assert code == 0
    chosen = select_subtree(tree, valid[inputs], valid["y"], costs_valid=valid[rows])
    assert load(tmp_path / "p.dtdecide").get_n_leaves() == chosen.get_n_leaves() < (
        tree.get_n_leaves())


def test_fit_a_true_false_target_with_a_true_false_decision_file(tmp_path, capsys):
    """A data file's True/False target and a decision data set whose levels are True and
    False are one set of levels: pandas reads the target's texts as booleans, and so
    does the decision file's reader (it read them as text, and fit refused every row as
    "not levels of the decision matrix", which no option could mend)."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=200)
    pd.DataFrame({"x": x, "bought": x + rng.normal(size=200) > 0}).to_csv(
        tmp_path / "d.csv", index=False)
    (tmp_path / "m.csv").write_text("level,call,skip\nTrue,10,0\nFalse,-1,0\n")
    code, _, err = _run(["fit", str(tmp_path / "d.csv"), "--target", "bought", "--decisions",
                         str(tmp_path / "m.csv"), "-o", str(tmp_path / "t.dtdecide"),
                         "--quiet"], capsys)
    assert code == 0, err
    assert load(tmp_path / "t.dtdecide").decision_matrix.levels.tolist() == [True, False]


@pytest.mark.parametrize("sep", ["", ";;", "\\t"])
def test_a_separator_of_other_than_one_character_is_refused_naming_sep(files, sep, capsys):
    """--sep is one character; "" or ";;" ended in numpy's "ord() expected a character"
    or "Py_UCS4" messages, which named no option (the literal backslash-t too)."""
    for argv in (["fit", files["train"], "--target", "y"],
                 ["score", files["model"], files["train"]]):
        code, _, err = _run([*map(str, argv), "--sep", sep, "--quiet"], capsys)
        assert code == 2
        assert "argument --sep: expected one character" in err
