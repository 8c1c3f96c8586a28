"""Decision data sets are read strictly (issue 13 §2): errors name the line, row, column."""

import io

import numpy as np
import pandas as pd
import pytest

from dtdecide import DecisionMatrix
from dtdecide.cli import main, read_data, read_decisions


def read(text, **kwargs):
    return DecisionMatrix.read_csv(io.StringIO(text), **kwargs)


@pytest.mark.parametrize("text, match", [
    ("level,contact,skip\nyes,20,0,5\nno,-1,0\n", "line 2 has 4 fields, but the header has 3"),
    ("level,contact,skip\nyes,20,0\nno,-1\n", "line 3 has 2 fields"),
    ("level,contact,contact\nyes,20,0\nno,-1,0\n", r"\['contact'\] more than once"),
    ("level,contact,skip,\nyes,20,0,\nno,-1,0,\n", "column 4 of the header has no name"),
    ("level,contact,skip\nyes,30€,0\nno,-1,0\n", r"row 'yes' \(line 2\), column 'contact': '30€'"),
    ("level,contact,skip\nyes,20,0\nno,,0\n", r"row 'no' \(line 3\), column 'contact' is empty"),
    ("level contact skip\nyes 20 0\n", "has no decision column"),
    ("", "empty"),
])
def test_malformed_files_are_refused_with_line_row_and_column(text, match):
    with pytest.raises(ValueError, match=match):
        read(text)


def test_semicolon_files_are_detected_with_decimal_commas():
    m = read("level;contact;skip;prior\nyes;20,5;0;0,25\nno;-1;0;0,75\n")
    assert m.decisions == ("contact", "skip")
    np.testing.assert_array_equal(m.values, [[20.5, 0.0], [-1.0, 0.0]])
    np.testing.assert_allclose(m.priors, [0.25, 0.75])
    tab = read("level\tcontact\tskip\nyes\t20\t0\nno\t-1\t0\n")
    assert tab.decisions == ("contact", "skip")


def test_a_cost_row_needs_revenue_unless_kind_is_left_to_the_file():
    text = "level,contact,skip\nyes,20,0\nno,0,0\ncost,c,\n"
    for kind in ("profit", "loss"):
        with pytest.raises(ValueError, match="costs are only allowed with kind='revenue'"):
            read(text, kind=kind)
    assert read(text).kind == "revenue" and read(text).costs == {"contact": "c"}
    assert read(text, kind="revenue").costs == {"contact": "c"}
    assert read("level,a,b\nyes,1,0\nno,0,1\n").kind == "profit"


def test_cli_kind_profit_with_a_cost_row_is_an_error(tmp_path, capsys):
    dec = tmp_path / "decisions.csv"
    dec.write_text("level,contact,skip\nyes,20,0\nno,0,0\ncost,c,\n")
    with pytest.raises(Exception, match="costs are only allowed"):
        read_decisions(dec, kind="profit")
    assert read_decisions(dec).kind == "revenue"
    data = tmp_path / "train.csv"
    rng = np.random.default_rng(0)
    pd.DataFrame({"x": rng.normal(size=60), "c": rng.uniform(1, 2, 60),
                  "y": rng.choice(["yes", "no"], 60)}).to_csv(data, index=False)
    code = main(["fit", str(data), "--target", "y", "--decisions", str(dec), "--kind",
                 "profit", "-o", str(tmp_path / "m.joblib"), "--quiet"])
    assert code == 2
    assert "costs are only allowed" in capsys.readouterr().err


def test_from_frame_names_the_bad_cell_and_refuses_duplicate_decisions():
    df = pd.DataFrame({"contact": ["20", "30€"], "skip": [0, 0]}, index=["yes", "no"])
    with pytest.raises(TypeError, match=r"row 'no', column 'contact' holds '30€'"):
        DecisionMatrix.from_frame(df)
    dup = pd.DataFrame([[1, 0], [0, 1]], index=["yes", "no"], columns=["a", "a"])
    with pytest.raises(ValueError, match="more than once"):
        DecisionMatrix.from_frame(dup)


def test_from_cost_matrix_reads_a_frame_by_column_name():
    by_name = pd.DataFrame({"C_FN": [10.0], "C_TN": [0.0], "C_FP": [1.0], "C_TP": [2.0]})
    m = DecisionMatrix.from_cost_matrix(by_name)
    ref = DecisionMatrix.from_cost_matrix([[1.0, 10.0, 2.0, 0.0]])
    np.testing.assert_array_equal(m.case_values, ref.case_values)
    with pytest.raises(ValueError, match=r"missing \['C_FP'\]"):
        DecisionMatrix.from_cost_matrix(by_name.rename(columns={"C_FP": "C_PF"}))


@pytest.mark.parametrize("text, match", [
    ("a,b,y\n1,2,yes,7\n3,4,no\n", "line 2 has 4 fields, but the header has 3"),
    ("a,a,y\n1,2,yes\n3,4,no\n", r"\['a'\] more than once"),
    ("a;b;y\n1;2;yes\n3;4;no\n", "pass --sep ';'"),
])
def test_cli_data_reader_is_strict(tmp_path, text, match):
    path = tmp_path / "data.csv"
    path.write_text(text)
    with pytest.raises(Exception, match=match):
        read_data(path)
