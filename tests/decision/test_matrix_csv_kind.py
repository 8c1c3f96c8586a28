"""A decision-matrix CSV carries its kind: a loss matrix read back is a loss matrix.

``to_csv`` names a kind that a reader could not infer (loss; revenue without a cost row)
in the first header cell, ``level (kind=loss)``; profit files and revenue files with a
cost row are written as before. ``read_csv`` restores the stored kind, refuses a
conflicting ``kind=`` argument, and reads files without the marker as before.
"""

import io

import numpy as np
import pytest

from dtdecide import DecisionMatrix


def _back(m, **kwargs):
    return DecisionMatrix.read_csv(io.StringIO(m.to_csv()), **kwargs)


@pytest.mark.parametrize("m", [
    DecisionMatrix([[1.0, 5.0], [4.0, 0.0]], levels=["a", "b"], decisions=["x", "y"],
                   kind="loss"),
    DecisionMatrix([[1.0, 5.0], [4.0, 0.0]], levels=[0, 1], kind="loss", priors=[0.3, 0.7]),
    DecisionMatrix([[30.0, 0.0], [0.0, 0.0]], levels=["yes", "no"], kind="revenue"),
    DecisionMatrix([[0.0, 2.0], [3.0, 0.0], [6.0, 1.0]], knots=[0.0, 10.0, 20.0],
                   kind="loss"),
    DecisionMatrix([[0.0, 2.0], [3.0, 0.0]], knots=[0.0, 10.0], kind="revenue"),
], ids=["loss", "loss-priors", "revenue", "loss-knots", "revenue-knots"])
def test_the_kind_survives_a_round_trip(m):
    back = _back(m)
    assert back.kind == m.kind
    assert back == m
    assert back.is_interval == m.is_interval
    # the same kind given again is no conflict
    assert _back(m, kind=m.kind) == m


def test_the_marker_is_in_the_first_header_cell():
    m = DecisionMatrix([[1.0, 5.0], [4.0, 0.0]], levels=["a", "b"], decisions=["x", "y"],
                       kind="loss")
    assert m.to_csv().splitlines() == ["level (kind=loss),x,y", "a,1.0,5.0", "b,4.0,0.0"]
    knots = DecisionMatrix([[0.0, 2.0], [3.0, 0.0]], knots=[0.0, 10.0], kind="revenue")
    assert knots.to_csv().splitlines()[0] == "knot (kind=revenue),d1,d2"


@pytest.mark.parametrize("m, header", [
    (DecisionMatrix([[1.0, 0.0], [0.0, 1.0]], levels=["a", "b"]), "level,d1,d2"),
    (DecisionMatrix([[30.0, 0.0], [0.0, 0.0]], levels=["yes", "no"], kind="revenue",
                    costs={"d1": 2.5}), "level,d1,d2"),
    (DecisionMatrix([[0.0, 2.0], [3.0, 0.0]], knots=[0.0, 10.0]), "knot,d1,d2"),
], ids=["profit", "revenue-with-costs", "profit-knots"])
def test_a_kind_readers_infer_is_written_as_before(m, header):
    # profit, and revenue with a cost row, need no marker: the file is as it always was
    assert m.to_csv().splitlines()[0] == header
    assert _back(m) == m


def test_files_without_the_marker_read_as_before():
    text = "level,x,y\na,1,5\nb,4,0\n"
    assert DecisionMatrix.read_csv(io.StringIO(text)).kind == "profit"
    assert DecisionMatrix.read_csv(io.StringIO(text), kind="loss").kind == "loss"
    with_costs = "level,x,y\na,1,5\nb,4,0\ncost,2,\n"
    assert DecisionMatrix.read_csv(io.StringIO(with_costs)).kind == "revenue"
    knots = DecisionMatrix.read_csv(io.StringIO("knot,x\n0,1\n10,2\n"), kind="loss")
    assert knots.is_interval and knots.kind == "loss"


@pytest.mark.parametrize("given", ["profit", "revenue"])
def test_a_conflicting_kind_is_refused(given):
    m = DecisionMatrix([[1.0, 5.0], [4.0, 0.0]], levels=["a", "b"], kind="loss")
    with pytest.raises(ValueError, match=rf"kind='{given}' conflicts with the file, whose "
                                         r"header 'level \(kind=loss\)' stores kind 'loss'"):
        _back(m, kind=given)


def test_a_conflict_in_a_file_names_the_file(tmp_path):
    path = tmp_path / "matrix.csv"
    DecisionMatrix([[1.0, 5.0], [4.0, 0.0]], levels=["a", "b"], kind="loss").to_csv(path)
    assert DecisionMatrix.read_csv(path).kind == "loss"
    with pytest.raises(ValueError, match=rf"^{tmp_path}/matrix.csv: kind='profit' conflicts"):
        DecisionMatrix.read_csv(path, kind="profit")


def test_hand_written_markers():
    # spaces, capitals, a semicolon file with decimal commas
    text = "level ( KIND = Loss );x;y\na;1,5;5\nb;4;0\n"
    m = DecisionMatrix.read_csv(io.StringIO(text))
    assert m.kind == "loss" and m.levels.tolist() == ["a", "b"]
    np.testing.assert_array_equal(m.values, [[1.5, 5.0], [4.0, 0.0]])
    knots = DecisionMatrix.read_csv(io.StringIO("knot (kind=profit),x\n0,1\n10,2\n"))
    assert knots.is_interval and knots.kind == "profit"


def test_bad_markers_are_refused():
    with pytest.raises(ValueError, match=r"header 'level \(kind=cost\)' names kind 'cost'; "
                                         r"expected one of \('profit', 'loss', 'revenue'\)"):
        DecisionMatrix.read_csv(io.StringIO("level (kind=cost),x\na,1\nb,0\n"))
    # a stored loss with a cost row: costs need revenue
    with pytest.raises(ValueError, match=r"costs are only allowed with kind='revenue'.*"
                                         r"kind='loss'"):
        DecisionMatrix.read_csv(io.StringIO("level (kind=loss),x\na,1\nb,0\ncost,2\n"))


def test_the_command_line_reads_the_stored_kind(tmp_path):
    from dtdecide.cli import CLIError, read_decisions

    path = tmp_path / "decisions.csv"
    DecisionMatrix([[1.0, 5.0], [4.0, 0.0]], levels=["a", "b"], kind="loss").to_csv(path)
    assert read_decisions(path).kind == "loss"
    with pytest.raises(CLIError, match=r"kind='revenue' conflicts with the file"):
        read_decisions(path, kind="revenue")


def test_the_stored_kinds_are_the_matrix_kinds():
    from dtdecide.decision._matrix import _KINDS
    from dtdecide.decision._matrix_io import _CSV_KINDS

    assert _CSV_KINDS == _KINDS
