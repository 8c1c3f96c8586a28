"""DecisionMatrix: construction, validation, resolve and round trips."""

import io

import numpy as np
import pandas as pd
import pytest

from dtdecide.decision import Consequences, DecisionMatrix

LEVELS = ["yes", "no"]


def revenue_matrix(priors=None):
    return DecisionMatrix(
        {"call": [30, 0], "mail": [12, 0], "none": [0, 0]}, levels=LEVELS,
        kind="revenue", costs={"call": "call_cost", "mail": 1.5}, priors=priors,
    )


# ------------------------------------------------------------------ construction
def test_forms_agree():
    a = DecisionMatrix([[1, 2], [3, 4]], levels=["x", "y"], decisions=["p", "q"])
    b = DecisionMatrix({"p": [1, 3], "q": [2, 4]}, levels=["x", "y"])
    c = DecisionMatrix(pd.DataFrame({"p": [1, 3], "q": [2, 4]}, index=["x", "y"]))
    d = DecisionMatrix(np.array([[1, 2], [3, 4]]), levels=np.array(["x", "y"]),
                       decisions=("p", "q"))
    assert a == b == c == d
    assert a.decisions == ("p", "q")
    assert a.values.dtype == np.float64
    assert a.n_levels == 2 and a.n_decisions == 2
    assert a.levels.tolist() == ["x", "y"]
    assert not a.is_interval and not a.is_case_specific


def test_default_decision_names_and_orientation():
    m = DecisionMatrix([[1, 0], [0, 1]], levels=[0, 1], kind="loss")
    assert m.decisions == ("d1", "d2")
    np.testing.assert_array_equal(m.profit_values, -m.values)
    assert m.sign == -1
    assert m.levels.dtype.kind == "i"


def test_read_only():
    m = DecisionMatrix([[1, 0], [0, 1]], levels=[0, 1])
    with pytest.raises(AttributeError, match="read-only"):
        m.kind = "loss"
    with pytest.raises(ValueError):
        m.values[0, 0] = 5.0


def test_costs_and_cost_variables():
    m = revenue_matrix()
    assert m.costs == {"call": "call_cost", "mail": 1.5}
    assert m.cost_variables == ("call_cost",)
    # sequence form aligned with decisions, None for no cost
    m2 = DecisionMatrix({"call": [30, 0], "mail": [12, 0], "none": [0, 0]}, levels=LEVELS,
                        kind="revenue", costs=["call_cost", 1.5, None])
    assert m == m2


def test_priors_rescaled_and_dict_form():
    m = DecisionMatrix([[1, 0], [0, 1]], levels=["a", "b"], priors=[1, 3])
    np.testing.assert_allclose(m.priors, [0.25, 0.75])
    m2 = DecisionMatrix([[1, 0], [0, 1]], levels=["a", "b"], priors={"b": 3, "a": 1})
    assert m == m2


def test_interval_matrix():
    m = DecisionMatrix([[0, 1], [10, 2], [20, 3]], knots=[0, 5, 10.0])
    assert m.is_interval and m.levels is None
    assert m.knots.tolist() == [0.0, 5.0, 10.0]


@pytest.mark.parametrize("kwargs, exc, msg", [
    (dict(values=[["a", 1], [0, 1]], levels=[0, 1]), TypeError, "values must contain only numbers"),
    (dict(values=[[np.nan, 1], [0, 1]], levels=[0, 1]), ValueError, "values must be finite"),
    (dict(values=[[1, 0], [0, 1]]), ValueError, "exactly one of levels and knots"),
    (dict(values=[[1, 0], [0, 1]], levels=[0, 1], knots=[0, 1]), ValueError,
     "exactly one of levels and knots"),
    (dict(values=[[1, 0], [0, 1]], knots=[1, 0]), ValueError, "knots must be sorted"),
    (dict(values=[[1, 0], [0, 1]], knots=[1, 1]), ValueError, "knots must be sorted"),
    (dict(values=[[1, 0]], knots=[1]), ValueError, "knots must be 1-D with at least two"),
    (dict(values=[[1, 0], [0, 1]], levels=["a", "a"]), ValueError, "levels must be unique"),
    (dict(values=[[1, 0], [0, 1]], levels=["a", None]), ValueError, "levels must not contain"),
    (dict(values=[[1, 0], [0, 1]], levels=[0, 1], decisions=["x", "x"]), ValueError,
     "decisions must be unique"),
    (dict(values=[[1, 0], [0, 1]], levels=[0, 1, 2]), ValueError, "values must have shape"),
    (dict(values=[[1, 0], [0, 1]], levels=[0, 1], decisions=["x"]), ValueError,
     "values must have shape"),
    (dict(values=[1, 0], levels=[0, 1]), ValueError, "values must be 2-D"),
    (dict(values=[[1, 0], [0, 1]], levels=[0, 1], kind="gain"), ValueError, "kind must be one of"),
    (dict(values=[[1, 0], [0, 1]], levels=[0, 1], costs={"d1": 1}), ValueError,
     "costs are only allowed with kind='revenue'"),
    (dict(values=[[1, 0], [0, 1]], levels=[0, 1], kind="loss", costs={"d1": 1}), ValueError,
     "costs are only allowed with kind='revenue'"),
    (dict(values=[[1, 0], [0, 1]], levels=[0, 1], kind="revenue", costs={"zz": 1}), ValueError,
     "costs names a decision"),
    (dict(values=[[1, 0], [0, 1]], levels=[0, 1], kind="revenue", costs={"d1": [1]}), TypeError,
     r"costs\['d1'\] must be a number"),
    (dict(values=[[1, 0], [0, 1]], levels=[0, 1], kind="revenue", costs=[1]), ValueError,
     "costs given as a sequence"),
    (dict(values=[[1, 0], [0, 1]], levels=[0, 1], priors=[-1, 2]), ValueError,
     "priors must be non-negative"),
    (dict(values=[[1, 0], [0, 1]], levels=[0, 1], priors=[0, 0]), ValueError,
     "priors must have at least one positive"),
    (dict(values=[[1, 0], [0, 1]], levels=[0, 1], priors=[1, 1, 1]), ValueError,
     "priors must have one value per level"),
    (dict(values=[[1, 0], [0, 1]], levels=[0, 1], priors={0: 1}), ValueError,
     "priors has no value for levels"),
    (dict(values=[[1, 0], [0, 1]], knots=[0, 1], priors=[1, 1]), ValueError,
     "priors are only allowed with levels"),
    (dict(values={"a": [1, 2], "b": [1]}, levels=[0, 1]), ValueError,
     "values must give the same number"),
])
def test_bad_input(kwargs, exc, msg):
    values = kwargs.pop("values")
    with pytest.raises(exc, match=msg):
        DecisionMatrix(values, **kwargs)


# ------------------------------------------------------------------- resolve
def test_resolve_without_costs():
    m = DecisionMatrix([[1, -2], [0, 3]], levels=[0, 1], kind="loss")
    cons = m.resolve(n_samples=3)
    assert isinstance(cons, Consequences)
    np.testing.assert_array_equal(cons.base, [[-1, 2], [0, -3]])
    assert cons.case_costs is None and cons.case_q is None
    assert cons.sign == -1
    assert not cons.has_missing.any() and cons.has_missing.shape == (3,)
    np.testing.assert_array_equal(cons.q_actual(np.array([1, 0, 1])),
                                  [[0, -3], [-1, 2], [0, -3]])
    post = np.array([[0.5, 0.5], [1.0, 0.0], [0.25, 0.75]])
    np.testing.assert_allclose(cons.expected(post), post @ cons.base)


def test_resolve_with_costs_and_missing():
    m = revenue_matrix()
    costs = pd.DataFrame({"call_cost": [5.0, np.nan, 2.0], "other": ["x", "y", "z"]})
    cons = m.resolve(costs, n_samples=3)
    np.testing.assert_array_equal(cons.case_costs[0], [5.0, 1.5, 0.0])
    assert cons.has_missing.tolist() == [False, True, False]
    # Q(i, t, d) = Revenue(t, d) - Cost(i, d)
    np.testing.assert_allclose(cons.q_actual(np.array([0, 0, 1]))[[0, 2]],
                               [[25.0, 10.5, 0.0], [-2.0, -1.5, 0.0]])
    post = np.array([[0.1, 0.9], [0.5, 0.5], [0.2, 0.8]])
    A = cons.expected(post)
    np.testing.assert_allclose(A[0], [0.1 * 30 - 5, 0.1 * 12 - 1.5, 0.0])
    sub = cons.take([0, 2])
    assert sub.n_samples == 2
    np.testing.assert_allclose(sub.expected(post[[0, 2]]), A[[0, 2]])
    np.testing.assert_array_equal(cons.costs(np.array([0, 1, -1])), [5.0, 1.5, np.nan])
    # dict of arrays works too
    cons2 = m.resolve({"call_cost": np.array([5.0, np.nan, 2.0])}, n_samples=3)
    np.testing.assert_array_equal(cons2.case_costs, cons.case_costs)


def test_resolve_constant_costs_only():
    m = DecisionMatrix([[5, 0], [0, 0]], levels=[1, 0], kind="revenue", costs={"d1": 2})
    cons = m.resolve(None, n_samples=4)
    assert cons.case_costs.shape == (4, 2)
    np.testing.assert_array_equal(cons.q_actual(np.array([0, 1, 0, 1])),
                                  [[3, 0], [-2, 0], [3, 0], [-2, 0]])


def test_resolve_errors():
    m = revenue_matrix()
    with pytest.raises(ValueError, match="costs is missing the cost column 'call_cost'"):
        m.resolve(pd.DataFrame({"x": [1.0]}), n_samples=1)
    with pytest.raises(ValueError, match="costs is missing the cost column 'call_cost'"):
        m.resolve(None, n_samples=1)
    with pytest.raises(ValueError, match="costs column 'call_cost' must have one value per case"):
        m.resolve({"call_cost": [1.0, 2.0]}, n_samples=3)
    with pytest.raises(TypeError, match="costs column 'call_cost' must be numeric"):
        m.resolve({"call_cost": ["a", "b"]}, n_samples=2)
    with pytest.raises(TypeError, match="costs must be a DataFrame"):
        DecisionMatrix([[1, 0], [0, 1]], levels=[0, 1]).resolve(np.zeros((2, 2, 2)), n_samples=2)


def test_interval_resolve_interpolates_and_subtracts_costs():
    m = DecisionMatrix({"a": [0, 100], "b": [10, 50]}, knots=[0, 100], kind="revenue",
                       costs={"a": "c"})
    cons = m.resolve({"c": np.array([1.0, 2.0])}, n_samples=2)
    np.testing.assert_allclose(cons.q_actual(np.array([50.0, 150.0])),
                               [[49.0, 30.0], [148.0, 70.0]])
    np.testing.assert_allclose(cons.expected(np.array([50.0, 150.0])),
                               cons.q_actual(np.array([50.0, 150.0])))


# ------------------------------------------------------------- case specific
def test_case_specific_unbound_and_bound():
    m = DecisionMatrix.case_specific(levels=[0, 1], decisions=["a", "b"], kind="loss")
    Q = np.arange(12, dtype=float).reshape(3, 2, 2)
    cons = m.resolve(Q, n_samples=3)
    np.testing.assert_array_equal(cons.case_q, -Q)
    assert cons.base.shape == (2, 2) and not cons.base.any()
    np.testing.assert_array_equal(cons.q_actual(np.array([1, 0, 1])),
                                  -Q[[0, 1, 2], [1, 0, 1]])
    post = np.array([[0.5, 0.5], [0.2, 0.8], [1.0, 0.0]])
    np.testing.assert_allclose(cons.expected(post), np.einsum("itd,it->id", -Q, post))
    with pytest.raises(ValueError, match="costs must hold the case-specific consequences"):
        m.resolve(None, n_samples=3)
    with pytest.raises(ValueError, match="costs must have shape"):
        m.resolve(np.zeros((3, 3, 2)), n_samples=3)
    with pytest.raises(ValueError, match="costs must have one entry per case"):
        m.resolve(Q, n_samples=4)
    bound = DecisionMatrix.case_specific(levels=[0, 1], decisions=["a", "b"], kind="loss",
                                         values=Q)
    np.testing.assert_array_equal(bound.resolve(n_samples=3).case_q, -Q)
    # other cases' own consequences replace the bound ones (the training cases')
    other = Q[:2] + 1.0
    np.testing.assert_array_equal(bound.resolve(other, n_samples=2).case_q, -other)


def test_from_cost_matrix_layout_and_costs_form():
    cm = np.array([[1.0, 10.0, 2.0, 0.5], [3.0, 4.0, 0.0, 0.0]])  # FP, FN, TP, TN
    m = DecisionMatrix.from_cost_matrix(cm)
    assert m.kind == "loss" and m.decisions == ("predict 1", "predict 0")
    assert m.levels.tolist() == [0, 1]
    # actual 0: predict 1 -> FP, predict 0 -> TN; actual 1: predict 1 -> TP, predict 0 -> FN
    np.testing.assert_array_equal(m.case_values[0], [[1.0, 0.5], [2.0, 10.0]])
    unbound = DecisionMatrix.case_specific(levels=[0, 1], decisions=("predict 1", "predict 0"),
                                           kind="loss")
    np.testing.assert_array_equal(unbound.resolve(cm, n_samples=2).case_q,
                                  m.resolve(n_samples=2).case_q)
    frame = pd.DataFrame(cm, columns=["C_FP", "C_FN", "C_TP", "C_TN"])
    np.testing.assert_array_equal(unbound.resolve(frame, n_samples=2).case_q,
                                  m.resolve(n_samples=2).case_q)
    with pytest.raises(ValueError, match="cost_mat must have shape"):
        DecisionMatrix.from_cost_matrix(np.zeros((2, 3)))


def test_from_cost_matrix_unbound_reads_frames_by_column_name():
    cm = np.array([[1.0, 10.0, 2.0, 0.5], [3.0, 4.0, 0.0, 0.0]])  # FP, FN, TP, TN
    m = DecisionMatrix.from_cost_matrix(levels=("good", "bad"), priors=[0.9, 0.1])
    assert m.is_case_specific and m.case_values is None
    assert m.levels.tolist() == ["good", "bad"] and m.priors.tolist() == [0.9, 0.1]
    expected = DecisionMatrix.from_cost_matrix(cm).resolve(n_samples=2).case_q
    np.testing.assert_array_equal(m.resolve(cm, n_samples=2).case_q, expected)
    # column order does not matter, extra columns are ignored
    frame = pd.DataFrame({"id": [7, 8], "C_TN": cm[:, 3], "C_TP": cm[:, 2],
                          "C_FN": cm[:, 1], "C_FP": cm[:, 0]})
    np.testing.assert_array_equal(m.resolve(frame, n_samples=2).case_q, expected)
    with pytest.raises(ValueError, match=r"missing \['C_FN'\]"):
        m.resolve(frame.rename(columns={"C_FN": "C_FM"}), n_samples=2)
    with pytest.raises(ValueError, match=r"cost_mat.*missing \['C_TN'\]"):
        DecisionMatrix.from_cost_matrix(frame.drop(columns="C_TN"))
    # bound to training rows, still decides other cases with their own rows
    bound = DecisionMatrix.from_cost_matrix(frame, levels=(0, 1))
    np.testing.assert_array_equal(bound.resolve(n_samples=2).case_q, expected)
    np.testing.assert_array_equal(bound.resolve(cm[:1], n_samples=1).case_q, expected[:1])


def test_case_specific_rejects_revenue():
    with pytest.raises(ValueError, match="kind must be 'profit' or 'loss'"):
        DecisionMatrix.case_specific(levels=[0, 1], decisions=["a"], kind="revenue")


# -------------------------------------------------------------- round trips
MATRICES = [
    DecisionMatrix([[1, 0], [0, 1]], levels=["a", "b"], decisions=["x", "y"]),
    DecisionMatrix([[1, 0.5], [0, 1]], levels=[0, 1], kind="loss", priors=[0.3, 0.7]),
    DecisionMatrix({"call": [30, 0], "mail": [12, 0], "none": [0, 0]}, levels=["yes", "no"],
                   kind="revenue", costs={"call": "call_cost", "mail": 1.5}, priors=[1, 9]),
    DecisionMatrix([[0, 1], [10, 2], [20, 3]], knots=[-1.5, 5, 10], decisions=["lo", "hi"]),
    DecisionMatrix([[5, 0], [-1, 0]], levels=[True, False], decisions=["call", "skip"]),
]


@pytest.mark.parametrize("m", MATRICES, ids=range(len(MATRICES)))
def test_round_trip_json(m, tmp_path):
    assert DecisionMatrix.from_json(m.to_json()) == m
    path = tmp_path / "m.json"
    m.to_json(path)
    assert DecisionMatrix.from_json(path) == m


@pytest.mark.parametrize("m", MATRICES, ids=range(len(MATRICES)))
def test_round_trip_csv(m, tmp_path):
    path = tmp_path / "m.csv"
    m.to_csv(path)
    assert DecisionMatrix.read_csv(path, kind=m.kind) == m
    assert DecisionMatrix.read_csv(io.StringIO(m.to_csv()), kind=m.kind) == m


@pytest.mark.parametrize("m", MATRICES, ids=range(len(MATRICES)))
def test_round_trip_frame(m):
    df = m.to_frame()
    back = DecisionMatrix.from_frame(
        df, kind=m.kind, prior_column="prior" if m.priors is not None else None,
        cost_row="cost" if m.costs else None, interval=m.is_interval)
    assert back == m


def test_round_trip_case_specific_json():
    m = DecisionMatrix.from_cost_matrix(np.array([[1.0, 10.0, 2.0, 0.5]]), levels=["n", "p"])
    assert DecisionMatrix.from_json(m.to_json()) == m
    with pytest.raises(ValueError, match="case-specific matrix has no single table"):
        m.to_frame()


def test_from_frame_errors():
    df = pd.DataFrame({"x": [1, 0], "prior": [1, 1]}, index=["a", "b"])
    with pytest.raises(ValueError, match="prior_column 'p' is not a column"):
        DecisionMatrix.from_frame(df, prior_column="p")
    with pytest.raises(ValueError, match="cost_row 'cost' is not an index label"):
        DecisionMatrix.from_frame(df, cost_row="cost")
    with pytest.raises(TypeError, match="df must be a pandas DataFrame"):
        DecisionMatrix.from_frame([[1, 0]])
    with pytest.raises(ValueError, match="source has unknown keys"):
        DecisionMatrix.from_json('{"kind": "profit", "levels": [0], "values": [[1]], "x": 1}')


def test_equality_and_repr():
    a = MATRICES[2]
    assert a != MATRICES[0]
    assert a != a.replace(priors=[1, 1])
    assert a == a.replace()
    r = repr(a)
    assert "revenue" in r and "call_cost" in r
    assert (a == "x") is False


@pytest.mark.parametrize("m", MATRICES, ids=range(len(MATRICES)))
def test_pickle_and_deepcopy(m):
    import copy
    import pickle

    back = pickle.loads(pickle.dumps(m))
    assert back == m and copy.deepcopy(m) == m
    with pytest.raises(AttributeError, match="read-only"):
        back.kind = "loss"


def test_read_csv_errors_name_the_file(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("level,call,none\nyes,30,0\nyes,1,0\n")
    with pytest.raises(ValueError, match=r"bad\.csv: levels must be unique"):
        DecisionMatrix.read_csv(path)
    path.write_text("level,call,none\nyes,30,x\nno,1,0\n")
    with pytest.raises(ValueError, match=r"bad\.csv: "):
        DecisionMatrix.read_csv(path)
    path.write_text("level,call,none\nyes,30,0\nno,0,0\ncost,c,\n")
    with pytest.raises(ValueError, match=r"bad\.csv: costs are only allowed with kind='revenue'"):
        DecisionMatrix.read_csv(path, kind="loss")
    assert DecisionMatrix.read_csv(path).costs == {"call": "c"}


def test_case_specific_interval_interpolates_per_case():
    m = DecisionMatrix.case_specific(knots=[0.0, 10.0], decisions=["a", "b"])
    Q = np.array([[[0.0, 5.0], [10.0, 5.0]],      # case 0: a goes 0 -> 10, b flat 5
                  [[0.0, 0.0], [-10.0, 20.0]]])   # case 1: a goes 0 -> -10, b 0 -> 20
    cons = m.resolve(Q, n_samples=2)
    np.testing.assert_allclose(cons.q_actual(np.array([5.0, 20.0])), [[5.0, 5.0], [-20.0, 40.0]])
    sub = cons.take(np.array([False, True]))
    assert sub.n_samples == 1
    np.testing.assert_allclose(sub.expected(np.array([-10.0])), [[10.0, -20.0]])
