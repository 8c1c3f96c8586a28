"""decide(): hand-computed cases from the design formulas, a slow twin, bad input."""

import math

import numpy as np
import pandas as pd
import pytest

from dtdecide.decision import DecisionMatrix, DecisionResult, decide


def slow_decide(post, matrix, y, costs=None, weights=None):
    """Case by case, straight from the formulas (categorical, additive costs)."""
    n = len(post)
    R = matrix.profit_values
    T, D = R.shape
    out = []
    for i in range(n):
        cost = [0.0] * D
        for j, d in enumerate(matrix.decisions):
            c = matrix.costs.get(d, 0.0)
            cost[j] = costs[c][i] if isinstance(c, str) else c
        Q = [[R[t][d] - cost[d] for d in range(D)] for t in range(T)]
        A = [sum(Q[t][d] * post[i][t] for t in range(T)) for d in range(D)]
        best = 0
        for d in range(1, D):
            if A[d] > A[best]:
                best = d
        t = list(matrix.levels).index(y[i])
        out.append((best, A[best], Q[t][best], max(Q[t]), cost[best]))
    return out


def random_case(seed, n=300, T=3, D=4):
    rng = np.random.default_rng(seed)
    levels = [f"l{t}" for t in range(T)]
    R = rng.integers(-5, 20, size=(T, D)).astype(float)
    costs = {f"d{d + 1}": ("c1" if d % 2 else float(rng.integers(0, 4))) for d in range(D - 1)}
    m = DecisionMatrix(R, levels=levels, kind="revenue", costs=costs)
    post = rng.dirichlet(np.ones(T), size=n)
    y = rng.choice(levels, size=n)
    c = {"c1": rng.integers(0, 6, size=n).astype(float)}
    return m, post, y, c


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_matches_slow_twin_with_small_chunks(seed):
    m, post, y, c = random_case(seed)
    res = decide(post, m, y=y, costs=c, chunk_size=37)
    ref = slow_decide(post, m, y, c)
    cases = res.cases
    np.testing.assert_array_equal(cases["D_target"].cat.codes, [r[0] for r in ref])
    np.testing.assert_allclose(cases["EP_target"], [r[1] for r in ref], atol=1e-9)
    np.testing.assert_allclose(cases["CP_target"], [r[2] for r in ref])
    np.testing.assert_allclose(cases["BP_target"], [r[3] for r in ref])
    np.testing.assert_allclose(cases["IC_target"], [r[4] for r in ref])
    assert res.summary["total_profit"] == pytest.approx(sum(r[2] for r in ref))
    # chunking does not change anything
    res2 = decide(post, m, y=y, costs=c)
    pd.testing.assert_frame_equal(res.cases, res2.cases)


def test_identity_profit_is_accuracy():
    rng = np.random.default_rng(5)
    post = rng.dirichlet([1, 1, 1], size=400)
    y = rng.integers(0, 3, size=400)
    m = DecisionMatrix(np.eye(3), levels=[0, 1, 2])
    res = decide(post, m, y=y)
    accuracy = np.mean(np.argmax(post, axis=1) == y)
    assert res.summary["average_profit"] == pytest.approx(accuracy)
    assert res.summary["misclassification_rate"] == pytest.approx(1 - accuracy)
    assert res.summary["average_best_profit"] == 1.0


def test_zero_one_loss_is_misclassification():
    rng = np.random.default_rng(6)
    post = rng.dirichlet([1, 1, 1], size=400)
    y = rng.integers(0, 3, size=400)
    w = rng.integers(1, 4, size=400).astype(float)
    m = DecisionMatrix(1 - np.eye(3), levels=[0, 1, 2], kind="loss")
    res = decide(post, m, y=y, sample_weight=w)
    wrong = np.argmax(post, axis=1) != y
    assert res.summary["average_loss"] == pytest.approx(np.sum(w * wrong) / w.sum())
    assert res.summary["misclassification_rate"] == pytest.approx(res.summary["average_loss"])
    assert "EL_target" in res.cases and "CL_target" in res.cases and "BL_target" in res.cases
    assert res.summary["average_best_loss"] == 0.0


def test_rare_class_diagonal_profit_three_classes():
    # 20 for the rare class, 1 for the others: decide "rare" as soon as 20 p_r >= max p
    m = DecisionMatrix(np.diag([20.0, 1.0, 1.0]), levels=["rare", "b", "c"],
                       decisions=["rare", "b", "c"])
    post = np.array([
        [0.05, 0.90, 0.05],   # 20*.05 = 1.0 vs 0.9 -> rare
        [0.04, 0.90, 0.06],   # 0.8 < 0.9 -> b
        [0.03125, 0.34375, 0.625],  # 0.625 vs 0.625 -> tie -> rare (first)
        [0.02, 0.30, 0.68],   # 0.4 < 0.68 -> c
    ])
    y = ["b", "b", "c", "rare"]
    res = decide(post, m, y=y)
    assert res.cases["D_target"].tolist() == ["rare", "b", "rare", "c"]
    np.testing.assert_allclose(res.cases["EP_target"], [1.0, 0.9, 0.625, 0.68])
    np.testing.assert_allclose(res.cases["CP_target"], [0.0, 1.0, 0.0, 0.0])
    np.testing.assert_allclose(res.cases["BP_target"], [1.0, 1.0, 1.0, 20.0])
    assert res.summary["total_profit"] == 1.0
    assert res.summary["average_profit"] == 0.25
    assert res.summary["total_best_profit"] == 23.0


def test_priors_diagonal_equivalence():
    # diagonal profit with posteriors p gives the same decisions as the identity with
    # posteriors proportional to p(t) * Profit(t, t)
    rng = np.random.default_rng(7)
    post = rng.dirichlet([1, 1, 1], size=500)
    diag = np.array([5.0, 1.0, 2.5])
    m_diag = DecisionMatrix(np.diag(diag), levels=[0, 1, 2])
    m_id = DecisionMatrix(np.eye(3), levels=[0, 1, 2], priors=diag / 3)
    a = decide(post, m_diag).cases["D_target"]
    b = decide(post, m_id, train_priors=[1, 1, 1]).cases["D_target"]
    assert (a == b).all()


def test_two_by_two_reduces_to_threshold():
    a, b, c, d = 4.0, -1.0, -2.0, 3.0
    m = DecisionMatrix([[a, b], [c, d]], levels=[1, 0])
    p1 = np.linspace(0, 1, 101)
    post = np.column_stack([p1, 1 - p1])
    chosen = decide(post, m).cases["D_target"].cat.codes.to_numpy()
    expected = np.where(p1 * (a - b) >= (1 - p1) * (d - c), 0, 1)
    np.testing.assert_array_equal(chosen, expected)


def test_row_shift_keeps_decisions():
    rng = np.random.default_rng(8)
    post = rng.dirichlet([1, 1, 1], size=300)
    R = rng.normal(size=(3, 4))
    shifted = R + np.array([[10.0], [-3.0], [0.5]])
    a = decide(post, DecisionMatrix(R, levels=[0, 1, 2])).cases["D_target"]
    b = decide(post, DecisionMatrix(shifted, levels=[0, 1, 2])).cases["D_target"]
    assert (a == b).all()


def test_roi_four_cases_through_decide():
    m = DecisionMatrix({"buy": [10, 0], "free": [3, -1], "none": [0, 0]}, levels=["y", "n"],
                       kind="revenue", costs={"buy": "c", "free": "c"})
    post = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0], [0.0, 1.0], [0.0, 1.0]])
    costs = {"c": np.array([4.0, -5.0, 0.0, 0.0, 0.0])}
    # case 0: buy 6, free -1, none 0 -> buy, C=6, IC=4 -> 1.5
    # case 1: cost -5: buy 15, free 8 -> buy, C=15, IC=-5 -> +inf
    # case 2: n, cost 0: buy 0, free -1, none 0 -> buy (tie, first), C=0, IC=0 -> NaN
    # case 3: same as case 2 but target y -> C=10, IC=0 -> +inf
    # case 4: force C<0 with IC<=0 via the free decision: see separate matrix below
    res = decide(post, m, y=["y", "y", "n", "y", "n"], costs=costs)
    roi = res.cases["ROI_target"].to_numpy()
    assert res.cases["D_target"].tolist()[:3] == ["buy", "buy", "buy"]
    assert roi[0] == 1.5
    assert roi[1] == math.inf
    assert math.isnan(roi[2])
    assert roi[3] == math.inf
    m2 = DecisionMatrix({"free": [5, -2]}, levels=["y", "n"], kind="revenue", costs={"free": 0})
    res2 = decide([[0.9, 0.1]], m2, y=["n"])
    assert res2.cases["CP_target"].iloc[0] == -2.0
    assert res2.cases["ROI_target"].iloc[0] == -math.inf
    assert res2.summary["total_investment"] == 0.0
    assert res2.summary["roi"] == -math.inf


def test_interval_target():
    m = DecisionMatrix({"small": [0, 10], "big": [-50, 50]}, knots=[0.0, 100.0])
    pred = np.array([50.0, 200.0, -100.0, 125.0])
    y = np.array([100.0, 0.0, 150.0, -100.0])
    res = decide(pred, m, y=y)
    # small: 0.1 x; big: -50 + x.   at 50: 5 vs 0 -> small; at 200: 20 vs 150 -> big
    # at -100 (extrapolated): -10 vs -150 -> small; at 125: 12.5 vs 75 -> big
    assert res.cases["D_target"].tolist() == ["small", "big", "small", "big"]
    np.testing.assert_allclose(res.cases["EP_target"], [5.0, 150.0, -10.0, 75.0])
    np.testing.assert_allclose(res.cases["CP_target"], [10.0, -50.0, 15.0, -150.0])
    np.testing.assert_allclose(res.cases["BP_target"], [50.0, 0.0, 100.0, -10.0])
    assert "misclassification_rate" not in res.summary


def test_paw_adjusted_summary_and_missing_class():
    m = DecisionMatrix(np.eye(2), levels=["a", "b"], decisions=["A", "B"], priors=[0.5, 0.5])
    post = np.array([[0.9, 0.1], [0.8, 0.2], [0.6, 0.4], [0.7, 0.3]])
    y = ["a", "a", "a", "b"]
    res = decide(post, m, y=y)
    # all decide A: C = 1, 1, 1, 0; Paw(a) = 0.5/3*4 = 2/3, Paw(b) = 0.5/1*4 = 2
    assert res.summary["total_profit"] == 3.0
    assert res.summary["adjusted_total_profit"] == pytest.approx(2.0)
    assert res.summary["adjusted_average_profit"] == pytest.approx(0.5)
    # misclassification is never prior-adjusted
    assert res.summary["misclassification_rate"] == 0.25
    res = decide(post[:3], m, y=y[:3])
    assert math.isnan(res.summary["adjusted_total_profit"])
    assert math.isnan(res.summary["adjusted_average_profit"])
    assert res.summary["total_profit"] == 3.0
    no_priors = decide(post, m.replace(priors=None), y=y).summary
    assert "adjusted_total_profit" not in no_priors


def test_ties_go_to_first_decision_in_user_order():
    post = [[0.5, 0.5]]
    m1 = DecisionMatrix([[1, 0], [0, 1]], levels=[0, 1], decisions=["x", "y"])
    m2 = DecisionMatrix([[0, 1], [1, 0]], levels=[0, 1], decisions=["y", "x"])
    assert decide(post, m1).cases["D_target"].iloc[0] == "x"
    assert decide(post, m2).cases["D_target"].iloc[0] == "y"


def test_missing_cost_gives_missing_results_and_is_left_out():
    m = DecisionMatrix({"call": [10, 0], "none": [0, 0]}, levels=[1, 0], kind="revenue",
                       costs={"call": "c"})
    post = np.array([[0.5, 0.5], [0.5, 0.5], [0.1, 0.9]])
    res = decide(post, m, y=[1, 1, 0], costs={"c": np.array([1.0, np.nan, 2.0])},
                 sample_weight=[1.0, 5.0, 3.0])
    row = res.cases.iloc[1]
    assert pd.isna(row["D_target"])
    for col in ["EP_target", "CP_target", "BP_target", "IC_target", "ROI_target"]:
        assert math.isnan(row[col]), col
    assert res.summary["n_missing"] == 1
    assert res.summary["frequency"] == 4.0
    # case 0: call 4 vs 0 -> call, C = 9; case 2: call -1 vs 0 -> none, C = 0
    assert res.summary["total_profit"] == 9.0
    assert res.summary["average_profit"] == 9.0 / 4.0


def test_threshold_adds_do_nothing():
    m = DecisionMatrix({"call": [10, -2], "mail": [3, -0.5]}, levels=[1, 0], kind="profit")
    post = np.array([[0.5, 0.5], [0.1, 0.9], [0.05, 0.95]])
    # E: call 4 / mail 1.25 -> call 4; call -0.8 / mail -0.15 -> mail -0.15;
    # call -1.4 / mail -0.325 -> mail -0.325
    res = decide(post, m, y=[1, 0, 1], threshold=-0.2, do_nothing="skip")
    assert res.decisions == ("call", "mail", "skip")
    assert res.cases["D_target"].tolist() == ["call", "mail", "skip"]
    np.testing.assert_allclose(res.cases["EP_target"], [4.0, -0.15, 0.0])
    np.testing.assert_allclose(res.cases["CP_target"], [10.0, -0.5, 0.0])
    # BP includes doing nothing: max(10, 3, 0), max(-2, -0.5, 0), max(10, 3, 0)
    np.testing.assert_allclose(res.cases["BP_target"], [10.0, 0.0, 10.0])
    assert res.summary["do_nothing_frequency"] == 1.0
    assert res.decision_counts().to_dict() == {"call": 1, "mail": 1, "skip": 1}
    with pytest.raises(ValueError, match="do_nothing must be a str that is not a matrix"):
        decide(post, m, threshold=0.0, do_nothing="call")
    with pytest.raises(ValueError, match="threshold must be a finite number"):
        decide(post, m, threshold=np.nan)


def test_threshold_loss_matrix_and_revenue():
    m = DecisionMatrix([[1, 2], [3, 4]], levels=[0, 1], kind="loss")
    # expected losses: row 0: 2 / 3 -> d1 2; row 1: 1.2 / 2.2 -> d1 1.2
    res = decide([[0.5, 0.5], [0.9, 0.1]], m, threshold=1.5)
    assert res.cases["D_target"].tolist() == ["do nothing", "d1"]
    np.testing.assert_allclose(res.cases["EL_target"], [0.0, 1.2])
    r = DecisionMatrix({"a": [10, 0]}, levels=[1, 0], kind="revenue", costs={"a": 2})
    res = decide([[0.1, 0.9]], r, y=[1], threshold=0.0)
    assert res.cases["IC_target"].iloc[0] == 0.0
    assert math.isnan(res.cases["ROI_target"].iloc[0])


def test_dataframe_posteriors_index_and_names():
    m = DecisionMatrix(np.eye(3), levels=["a", "b", "c"])
    post = pd.DataFrame({"c": [0.1, 0.7], "a": [0.8, 0.2], "b": [0.1, 0.1]}, index=[10, 20])
    res = decide(post, m, y=pd.Series(["a", "c"], index=[10, 20]), target_name="resp")
    assert isinstance(res, DecisionResult)
    assert res.cases.index.tolist() == [10, 20]
    assert res.cases["D_resp"].tolist() == ["d1", "d3"]
    assert list(res.cases.columns) == ["D_resp", "EP_resp", "CP_resp", "BP_resp"]
    assert res.summary.name == "resp"
    # columns naming the levels as strings of numeric labels
    m2 = DecisionMatrix(np.eye(2), levels=[0, 1])
    res2 = decide(pd.DataFrame({"1": [0.3], "0": [0.7]}), m2)
    assert res2.cases["D_target"].iloc[0] == "d1"


def test_train_priors_adjusts_posteriors():
    m = DecisionMatrix(np.eye(2), levels=[0, 1], priors=[0.9, 0.1])
    post = np.array([[0.4, 0.6]])
    # adjusted: 0.4*1.8=0.72, 0.6*0.2=0.12 -> level 0
    assert decide(post, m).cases["D_target"].iloc[0] == "d2"
    res = decide(post, m, train_priors=[0.5, 0.5])
    assert res.cases["D_target"].iloc[0] == "d1"
    assert res.cases["EP_target"].iloc[0] == pytest.approx(0.72 / 0.84)


def test_case_specific_through_decide():
    cm = np.array([[1.0, 10.0, 0.0, 0.0], [5.0, 1.0, 0.0, 0.0]])  # FP, FN, TP, TN
    m = DecisionMatrix.from_cost_matrix(cm)
    post = np.array([[0.8, 0.2], [0.8, 0.2]])  # P(0), P(1)
    res = decide(post, m, y=[1, 0])
    # case 0: predict1 loss 0.8*1 = 0.8, predict0 loss 0.2*10 = 2 -> predict 1
    # case 1: predict1 loss 0.8*5 = 4, predict0 loss 0.2*1 = 0.2 -> predict 0
    assert res.cases["D_target"].tolist() == ["predict 1", "predict 0"]
    np.testing.assert_allclose(res.cases["EL_target"], [0.8, 0.2])
    np.testing.assert_allclose(res.cases["CL_target"], [0.0, 0.0])
    unbound = DecisionMatrix.case_specific(levels=[0, 1], decisions=["predict 1", "predict 0"],
                                           kind="loss")
    res2 = decide(post, unbound, y=[1, 0], costs=cm)
    pd.testing.assert_frame_equal(res.cases, res2.cases)


# ------------------------------------------------------------------ bad input
M3 = DecisionMatrix(np.eye(3), levels=["a", "b", "c"])
P3 = np.array([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])


@pytest.mark.parametrize("post, kwargs, exc, msg", [
    (P3[:, :2], {}, ValueError, r"posteriors_or_predictions must have shape \(n_samples, n_levels=3\)"),
    (pd.DataFrame(P3, columns=["a", "b", "x"]), {}, ValueError,
     "posteriors_or_predictions has no column for level 'c'"),
    (pd.DataFrame(np.column_stack([P3, [0, 0]]), columns=["a", "b", "c", "z"]), {}, ValueError,
     r"posteriors_or_predictions has columns that are not levels.*'z'"),
    (np.array([[0.2, 0.3, 0.6], [0.1, 0.1, 0.8]]), {}, ValueError,
     "posteriors_or_predictions rows must sum to 1.*row 0"),
    (np.array([[0.2, 0.3, 0.5], [-0.1, 0.3, 0.8]]), {}, ValueError,
     "posteriors_or_predictions must be non-negative; row 1"),
    (np.array([[0.2, 0.3, 0.5], [np.nan, 0.2, 0.8]]), {}, ValueError,
     "posteriors_or_predictions must not contain NaN; first at row 1"),
    (P3, {"y": ["a", "q"]}, ValueError, "^y contains values .*'q'"),
    (P3, {"y": ["a"]}, ValueError, "^y must have one value per case"),
    (P3, {"sample_weight": [1.0, -1.0]}, ValueError, "^sample_weight must be non-negative"),
    (P3, {"sample_weight": [1.0]}, ValueError, "^sample_weight must have one value per case"),
    (P3, {"sample_weight": [1.0, np.nan]}, ValueError, "^sample_weight must be finite"),
    (P3, {"train_priors": [0.5, 0.5]}, ValueError, "^train_priors must have one value per level"),
    (P3, {"train_priors": [1, 1, 1]}, ValueError, "^train_priors needs priors"),
    (P3, {"train_priors": [1, -1, 1]}, ValueError, "^train_priors must be non-negative"),
    (P3, {"chunk_size": 0}, ValueError, "^chunk_size must be a positive integer"),
    (P3, {"target_name": 3}, TypeError, "^target_name must be a str"),
])
def test_bad_input(post, kwargs, exc, msg):
    with pytest.raises(exc, match=msg):
        decide(post, M3, **kwargs)


def test_bad_input_more():
    with pytest.raises(TypeError, match="^matrix must be a DecisionMatrix"):
        decide(P3, np.eye(3))
    rev = DecisionMatrix({"a": [1, 0]}, levels=[1, 0], kind="revenue", costs={"a": "c"})
    with pytest.raises(ValueError, match="^costs is missing the cost column 'c'"):
        decide([[0.5, 0.5]], rev, costs=pd.DataFrame({"d": [1.0]}))
    with pytest.raises(ValueError, match="^costs is missing the cost column 'c'"):
        decide([[0.5, 0.5]], rev)
    mp = M3.replace(priors=[1, 1, 1])
    with pytest.raises(ValueError, match="^train_priors must be positive for every level"):
        decide(P3, mp, train_priors=[1, 0, 1])
    with pytest.raises(ValueError, match="^y has an index that differs"):
        decide(pd.DataFrame(P3, columns=["a", "b", "c"]), M3, y=pd.Series(["a", "b"], index=[5, 6]))
    interval = DecisionMatrix([[0, 1], [1, 0]], knots=[0, 1])
    with pytest.raises(ValueError, match="^posteriors_or_predictions must be 1-D predictions"):
        decide(P3, interval)
    with pytest.raises(ValueError, match="^posteriors_or_predictions must be finite"):
        decide([0.5, np.nan], interval)
    with pytest.raises(ValueError, match="^y must be finite"):
        decide([0.5, 0.2], interval, y=[1.0, np.nan])
    with pytest.raises(ValueError, match="^train_priors only applies to a categorical"):
        decide([0.5, 0.2], interval, train_priors=[1, 1])
