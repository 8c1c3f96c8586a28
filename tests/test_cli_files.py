"""The command line on real files: folders, Parquet/Excel, empty targets, plain trees and
messages that name the file and the option (issue 13, section 3)."""

import builtins

import numpy as np
import pandas as pd
import pytest

import dtdecide
from dtdecide.cli import main
from dtdecide.export import load


def _cases(n, seed):
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 80, n)
    region = rng.choice(["north", "south"], n)
    logit = -1.0 + 0.05 * (age - 45) + 0.6 * (region == "south")
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-logit)), "yes", "no")
    return pd.DataFrame({"id": np.arange(n) + 1000 * (seed + 1), "age": age, "region": region,
                         "cost": 1.0 + rng.integers(0, 3, n), "y": y})


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli_files")
    train, valid = _cases(600, 0), _cases(300, 1)
    p = {"root": root, "train": root / "train.csv", "valid": root / "valid.parquet",
         "valid_csv": root / "valid.csv", "decisions": root / "decisions.csv"}
    train.to_csv(p["train"], index=False)
    valid.set_index("id").to_parquet(p["valid"])  # the index is the client id
    valid.to_csv(p["valid_csv"], index=False)
    p["decisions"].write_text("level,contact,ignore\nno,0,0\nyes,12,0\ncost,cost,\n")
    return p


def _run(argv, capsys):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _fit(files, capsys, out, *extra):
    code, stdout, err = _run(["fit", files["train"], "--target", "y", "--exclude", "id",
                              "--max-depth", "3", "--min-samples-leaf", "20", "-o", out,
                              "--quiet", *extra], capsys)
    assert code == 0, err
    return stdout


def test_output_folders_are_created(files, capsys):
    root = files["root"] / "new"
    model = root / "models" / "m.dtdecide"
    _fit(files, capsys, model, "--decisions", files["decisions"])
    assert load(model).get_n_leaves() >= 2
    code, _, err = _run(["leaf-table", model, "-o", root / "tables" / "leaves.md", "--quiet"],
                        capsys)
    assert code == 0, err and (root / "tables" / "leaves.md").exists()
    code, _, err = _run(["prune-study", model, "--validation", files["valid"],
                         "--plot", root / "plots" / "p.png", "-o", root / "study" / "t.csv",
                         "--model-out", root / "chosen" / "c.dtdecide", "--quiet"], capsys)
    assert code == 0, err
    for path in ("plots/p.png", "study/t.csv", "chosen/c.dtdecide"):
        assert (root / path).stat().st_size > 0, path


def test_excel_and_parquet_in_and_out(files, capsys):
    pytest.importorskip("openpyxl")
    pytest.importorskip("pyarrow")
    root = files["root"] / "xl"
    root.mkdir()
    pd.read_csv(files["train"]).to_excel(root / "train.xlsx", index=False)
    model = root / "m.dtdecide"
    code, _, err = _run(["fit", root / "train.xlsx", "--target", "y", "--exclude", "id",
                         "--decisions", files["decisions"], "--max-depth", "3",
                         "--min-samples-leaf", "20", "-o", model, "--quiet"], capsys)
    assert code == 0, err
    for out in ("s.xlsx", "s.parquet", "s.csv"):
        code, _, err = _run(["score", model, files["valid"], "-o", root / out, "--quiet"],
                            capsys)
        assert code == 0, err
    valid = pd.read_parquet(files["valid"])
    # the Parquet index (the client id) comes back with the scored rows, in every format
    assert pd.read_parquet(root / "s.parquet").index.tolist() == valid.index.tolist()
    assert pd.read_csv(root / "s.csv")["id"].tolist() == valid.index.tolist()
    assert pd.read_excel(root / "s.xlsx")["id"].tolist() == valid.index.tolist()
    expected = load(model).decide(valid[["age", "region"]], valid["y"],
                                  costs=valid[["cost"]]).cases
    got = pd.read_parquet(root / "s.parquet")
    assert got["D_y"].tolist() == expected["D_y"].tolist()
    code, _, err = _run(["leaf-table", model, "-o", root / "leaves.xlsx", "--quiet"], capsys)
    assert code == 0, err and (root / "leaves.xlsx").exists()


def test_missing_engine_names_the_extra(files, capsys, monkeypatch):
    model = files["root"] / "engine.dtdecide"
    _fit(files, capsys, model, "--decisions", files["decisions"])
    real_import = builtins.__import__

    blocked = {"pyarrow", "openpyxl"}

    def no_engines(name, *args, **kwargs):
        if name.split(".")[0] in blocked:
            raise ImportError(f"no {name}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_engines)
    code, _, err = _run(["fit", files["valid"], "--target", "y", "--quiet"], capsys)
    assert code == 2
    assert "valid.parquet" in err and "pip install 'dtdecide[io]'" in err
    blocked.discard("pyarrow")  # pandas' CSV reader looks for pyarrow too
    code, _, err = _run(["score", model, files["valid_csv"], "-o",
                         files["root"] / "x.xlsx", "--quiet"], capsys)
    assert code == 2 and "openpyxl" in err and "dtdecide[io]" in err


@pytest.mark.parametrize("target", ["absent", "empty", "blank"])
def test_score_without_target_gives_decisions_only(files, capsys, target):
    model = files["root"] / "dec.dtdecide"
    if not model.exists():
        _fit(files, capsys, model, "--decisions", files["decisions"])
    new = pd.read_csv(files["valid_csv"])
    if target == "absent":
        new = new.drop(columns=["y", "cost"])
    elif target == "empty":
        new["y"] = np.nan
    else:
        new["y"] = ""
    path = files["root"] / f"new_{target}.csv"
    new.to_csv(path, index=False)
    out = files["root"] / f"scored_{target}.csv"
    code, stdout, err = _run(["score", model, path, "-o", out, "--keep", "id", "--quiet"],
                             capsys)
    assert code == 0, err
    scored = pd.read_csv(out)
    assert list(scored.columns[:3]) == ["id", "D_y", "EP_y"]
    assert not {"CP_y", "BP_y", "ROI_y"} & set(scored.columns)
    assert "Profit summary" not in stdout
    expected = load(model).decide(new[["age", "region"]]).cases
    assert scored["D_y"].tolist() == expected["D_y"].tolist()


def test_score_with_some_targets_missing_names_the_file(files, capsys):
    model = files["root"] / "dec.dtdecide"
    if not model.exists():
        _fit(files, capsys, model, "--decisions", files["decisions"])
    new = pd.read_csv(files["valid_csv"])
    new.loc[:9, "y"] = np.nan
    path = files["root"] / "partly.csv"
    new.to_csv(path, index=False)
    code, _, err = _run(["score", model, path, "--quiet"], capsys)
    assert code == 2
    assert "data file" in err and "partly.csv" in err and "10 missing values" in err


def test_plain_tree_is_scored_and_pruned(files, capsys):
    model = files["root"] / "plain.dtdecide"
    stdout = _fit(files, capsys, model, "--validation", files["valid"])
    assert "misclassification" in stdout and "*" in stdout
    tree = load(model)
    assert tree.decision_matrix_ is None
    code, stdout, err = _run(["score", model, files["valid"], "--quiet"], capsys)
    assert code == 0, err
    scored = pd.read_csv(__import__("io").StringIO(stdout.split("\n== ")[0]), index_col="id")
    valid = pd.read_parquet(files["valid"])
    X = valid[list(tree.feature_names_in_)]
    assert scored["I_y"].tolist() == tree.predict(X).tolist()
    np.testing.assert_allclose(scored[["P_y_no", "P_y_yes"]].to_numpy(), tree.predict_proba(X))
    wrong = float(np.mean(tree.predict(X) != valid["y"].to_numpy()))
    assert "Assessment summary" in stdout and "misclassification_rate" in stdout
    assert f"{wrong:.3f}" in stdout
    code, stdout, err = _run(["prune-study", model, "--validation", files["valid"], "--quiet"],
                             capsys)
    assert code == 0, err
    assert "valid_misclassification" in stdout


def test_messages_name_the_file_and_the_option(files, capsys):
    root = files["root"]
    bad = pd.read_csv(files["train"]).assign(w=1.0)
    bad.loc[3, "w"] = -2.0
    bad.to_csv(root / "negw.csv", index=False)
    code, _, err = _run(["fit", root / "negw.csv", "--target", "y", "--weight", "w",
                         "--quiet"], capsys)
    assert code == 2
    assert "training data file" in err and "negw.csv" in err and "--weight" in err
    assert "sample_weight" not in err
    code, _, err = _run(["fit", files["train"], "--target", "y", "--exclude", "id",
                         "--decisions", files["decisions"], "--validation", root / "noy.csv",
                         "--quiet"], capsys)
    assert code == 2 and "does not exist" in err
    pd.read_csv(files["valid_csv"]).drop(columns=["y"]).to_csv(root / "noy.csv", index=False)
    code, _, err = _run(["fit", files["train"], "--target", "y", "--exclude", "id",
                         "--decisions", files["decisions"], "--validation", root / "noy.csv",
                         "--quiet"], capsys)
    assert code == 2
    assert "validation data file" in err and "noy.csv" in err and "--target" in err
    code, _, err = _run(["fit", files["train"], "--target", "outcome", "--quiet"], capsys)
    assert code == 2 and "training data file" in err and "'outcome'" in err
    # an estimator's own message speaks of the CLI option, not the Python keyword
    wsum = pd.read_csv(files["train"]).assign(w=0.0)
    wsum.to_csv(root / "zerow.csv", index=False)
    code, _, err = _run(["fit", root / "zerow.csv", "--target", "y", "--weight", "w",
                         "--quiet"], capsys)
    assert code == 2 and "--weight" in err and "sample_weight" not in err


def test_version(capsys):
    code, out, _ = _run(["--version"], capsys)
    assert code == 0 and out.strip() == f"dtdecide {dtdecide.__version__}"


def test_leaf_table_precision_rounds_every_number(files, capsys):
    model = files["root"] / "prec.dtdecide"
    _fit(files, capsys, model, "--decisions", files["decisions"])
    out = files["root"] / "prec.csv"
    code, _, err = _run(["leaf-table", model, "--data", files["valid"], "--precision", "2",
                         "-o", out, "--quiet"], capsys)
    assert code == 0, err
    table = pd.read_csv(out)
    floats = table.select_dtypes("float").to_numpy().ravel()
    floats = floats[np.isfinite(floats) & (floats != 0)]
    assert floats.size > 10
    decimals = np.maximum(1 - np.floor(np.log10(np.abs(floats))), 0).astype(int)
    assert all(v == round(v, int(k)) for v, k in zip(floats, decimals))
    # the same table printed
    code, stdout, _ = _run(["leaf-table", model, "--precision", "2", "--quiet"], capsys)
    assert code == 0 and "0.3048780" not in stdout


def test_prune_study_after_fit_validation_says_it_starts_from_the_pruned_tree(files, capsys):
    model = files["root"] / "pruned.dtdecide"
    _fit(files, capsys, model, "--decisions", files["decisions"], "--max-depth", "5",
         "--validation", files["valid"])
    grown = load(model)
    code, stdout, err = _run(["prune-study", model, "--validation", files["valid"], "--quiet"],
                             capsys)
    assert code == 0, err
    assert grown.tree_.n_nodes < grown._full_tree_.n_nodes  # validation pruned it
    assert "pruned tree" in stdout and "subtrees of the pruned tree" in stdout
    # a model that was not pruned gets no such note
    full = files["root"] / "full.dtdecide"
    _fit(files, capsys, full, "--decisions", files["decisions"])
    code, stdout, _ = _run(["prune-study", full, "--validation", files["valid"], "--quiet"],
                           capsys)
    assert code == 0 and "pruned tree" not in stdout


def test_readme_command_line_example_runs(tmp_path, capsys, monkeypatch):
    """Every ``dtdecide`` command of the README's command-line section works as written."""
    import re
    import shlex
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    section = readme.split("## The command line", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.S).group(1)
    commands = [shlex.split(line.split("#")[0]) for line in block.splitlines()
                if line.startswith("dtdecide ") and not line.startswith("dtdecide demo")]
    assert [c[1] for c in commands] == ["fit", "score", "leaf-table", "prune-study"]
    monkeypatch.chdir(tmp_path)
    frames = {name: _cases(n, seed).rename(columns={"cost": "contact_cost"})
              for name, n, seed in (("train", 600, 0), ("valid", 300, 1), ("new", 200, 2))}
    frames["train"].to_csv("train.csv", index=False)
    frames["valid"].to_csv("valid.csv", index=False)
    frames["new"].drop(columns=["y"]).to_parquet("new_clients.parquet", index=False)
    Path("decisions.csv").write_text("level,contact,do nothing\nno,0,0\nyes,30,0\n"
                                     "cost,contact_cost,\n")
    for argv in commands:
        code, _, err = _run([*argv[1:], "--quiet"], capsys)
        assert code == 0, (argv, err)
    assert Path("model.dtdecide").exists() and Path("scored.csv").exists()
    assert Path("leaves.md").exists() and Path("pruning.png").exists()


@pytest.mark.parametrize("command", ["fit", "score", "leaf-table", "prune-out", "prune-plot",
                                     "prune-model", "demo"])
def test_output_under_a_file_exits_2_naming_the_path(files, capsys, command):
    """An output path whose folder is a file: exit 2 with the option and the path named
    (was: exit 1, 'unexpected FileExistsError'), before any work is done."""
    model = files["root"] / "dec.dtdecide"
    if not model.exists():
        _fit(files, capsys, model, "--decisions", files["decisions"])
    blocker = files["root"] / "blocker.txt"
    blocker.write_text("a file, not a folder\n")
    bad = blocker / "sub" / "out.csv"
    argv = {
        "fit": ["fit", files["train"], "--target", "y", "-o", blocker / "m.dtdecide"],
        "score": ["score", model, files["valid"], "-o", bad],
        "leaf-table": ["leaf-table", model, "-o", bad],
        "prune-out": ["prune-study", model, "--validation", files["valid"], "-o", bad],
        "prune-plot": ["prune-study", model, "--validation", files["valid"], "--plot",
                       blocker / "p.png"],
        "prune-model": ["prune-study", model, "--validation", files["valid"], "--model-out",
                        blocker / "c.dtdecide"],
        "demo": ["demo", "--output", blocker],
    }[command]
    code, _, err = _run([*argv, "--quiet"], capsys)
    assert code == 2, err
    assert "blocker.txt" in err and "unexpected" not in err
    assert "is a file" in err
    # a folder given where a file is expected
    if command == "score":
        code, _, err = _run(["score", model, files["valid"], "-o", files["root"], "--quiet"],
                            capsys)
        assert code == 2 and "is a folder" in err


def test_unwritable_output_is_exit_2(files, capsys, monkeypatch):
    """An OSError naming a file (permission denied, a full disk) is a problem with the
    user's paths: exit 2 naming it, not an 'unexpected' crash."""
    model = files["root"] / "dec.dtdecide"
    if not model.exists():
        _fit(files, capsys, model, "--decisions", files["decisions"])

    def denied(*args, **kwargs):
        raise PermissionError(13, "Permission denied", str(files["root"] / "locked.md"))

    monkeypatch.setattr("dtdecide.export.write_leaf_table", denied)
    code, _, err = _run(["leaf-table", model, "-o", files["root"] / "locked.md", "--quiet"],
                        capsys)
    assert code == 2 and "Permission denied" in err and "locked.md" in err


def test_a_short_row_in_training_data_is_an_error(files, capsys):
    """A CSV row with fewer fields than the header is refused naming its line (pandas
    would read it with missing values in its last columns)."""
    lines = files["train"].read_text().splitlines()
    lines[41] = lines[41].rsplit(",", 1)[0]  # line 42 lacks its last field (the target)
    path = files["root"] / "short_train.csv"
    path.write_text("\n".join(lines) + "\n")
    code, _, err = _run(["fit", path, "--target", "y", "--exclude", "id", "--quiet"], capsys)
    assert code == 2
    assert "short_train.csv" in err and "line 42 has 4 fields, but the header has 5" in err
