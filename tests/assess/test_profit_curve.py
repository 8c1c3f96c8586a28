"""Profit charts: hand-computed tables, ties, weights, kernels vs slow twins."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dtdecide.assess import best_depth, best_threshold, profit_curve
from dtdecide.assess._kernels import _slow_cumulative, best_cut, cumulative_at_depths
from dtdecide.decision import DecisionMatrix, decide

# a dozen cases, with tied posteriors (0.8 twice, 0.5 three times, 0.1 twice)
P12 = np.array([0.9, 0.8, 0.8, 0.6, 0.5, 0.5, 0.5, 0.4, 0.3, 0.2, 0.1, 0.1])
Y12 = np.array([1, 1, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0])


def mail_matrix():
    # revenue 11 from a responder, cost 1 per mail: profit 10 / -1, EP = 11 p - 1
    return DecisionMatrix({"mail": [11.0, 0.0]}, levels=[1, 0], kind="revenue",
                          costs={"mail": 1.0})


def test_hand_computed_dozen_cases():
    curve = profit_curve(Y12, P12, mail_matrix(), n_bins=4)
    # by hand: profits in rank order 10 | 10 -1 | 10 | (10 -1 -1) | -1 | 10 | -1 | -1 -1
    # depth 0.25 = 3 cases: 10 + 10 - 1 = 19
    # depth 0.50 = 6 cases: 19 + 10 + 2/3 of the tied block (sum 8) = 29 + 16/3
    # depth 0.75 = 9 cases: 37 - 1 + 10 = 46;   depth 1: 46 - 3 = 43
    expected_cum = [19.0, 29.0 + 16.0 / 3.0, 46.0, 43.0]
    np.testing.assert_allclose(curve["cum_profit"], expected_cum)
    np.testing.assert_allclose(curve["profit"], np.diff(np.r_[0.0, expected_cum]))
    np.testing.assert_allclose(curve["frequency"], [3, 3, 3, 3])
    np.testing.assert_allclose(curve["cum_average_profit"], np.array(expected_cum) / [3, 6, 9, 12])
    np.testing.assert_allclose(curve["population_average_profit"], np.array(expected_cum) / 12)
    # investment: 1 per case taken
    np.testing.assert_allclose(curve["cum_investment"], [3, 6, 9, 12])
    np.testing.assert_allclose(curve["cum_roi"], np.array(expected_cum) / [3, 6, 9, 12])
    # responses: 5 in all; cumulative 2, 3 + 2/3, 5, 5
    cum_events = np.array([2.0, 3.0 + 2.0 / 3.0, 5.0, 5.0])
    np.testing.assert_allclose(curve["gain"], cum_events / 5)
    np.testing.assert_allclose(curve["cum_response_rate"], cum_events / [3, 6, 9, 12])
    np.testing.assert_allclose(curve["cum_lift"], cum_events / [3, 6, 9, 12] / (5 / 12))
    np.testing.assert_allclose(curve["response_rate"], np.diff(np.r_[0, cum_events]) / 3)
    np.testing.assert_allclose(curve["lift"], np.diff(np.r_[0, cum_events]) / 3 / (5 / 12))
    np.testing.assert_allclose(curve["ep_threshold"], [11 * 0.8 - 1, 11 * 0.5 - 1,
                                                       11 * 0.3 - 1, 11 * 0.1 - 1])
    np.testing.assert_allclose(curve["posterior_threshold"], [0.8, 0.5, 0.3, 0.1])


def test_best_depth_and_threshold_on_dozen_cases():
    m = mail_matrix()
    curve = profit_curve(Y12, P12, m, n_bins=4)
    b = best_depth(curve)
    assert b.depth == 0.75 and b.value == pytest.approx(46.0)
    exact = best_threshold(Y12, P12, m)
    # best stop: after the 0.3 case (9 cases, profit 46)
    assert exact.total_profit == pytest.approx(46.0)
    assert exact.depth == pytest.approx(0.75)
    assert exact.threshold == pytest.approx(11 * 0.3 - 1)
    assert exact.posterior_threshold == pytest.approx(0.3)
    res = decide(np.column_stack([P12, 1 - P12]), m, y=Y12, threshold=exact.threshold)
    assert res.summary["total_profit"] == pytest.approx(exact.total_profit)


def test_ties_do_not_depend_on_row_order():
    m = mail_matrix()
    rng = np.random.default_rng(3)
    base = profit_curve(Y12, P12, m, n_bins=12)
    for _ in range(5):
        perm = rng.permutation(12)
        other = profit_curve(Y12[perm], P12[perm], m, n_bins=12)
        pd.testing.assert_frame_equal(base, other)


def test_weights_are_frequencies():
    m = mail_matrix()
    w = np.array([1, 2, 1, 3, 1, 1, 2, 1, 1, 2, 1, 1], dtype=float)
    rep = np.repeat(np.arange(12), w.astype(int))
    a = profit_curve(Y12, P12, m, sample_weight=w, n_bins=6)
    b = profit_curve(Y12[rep], P12[rep], m, n_bins=6)
    pd.testing.assert_frame_equal(a, b)


def test_frame_posteriors_and_loss_matrix_orientation():
    post = pd.DataFrame({0: 1 - P12, 1: P12})
    prof = DecisionMatrix({"mail": [10.0, -1.0]}, levels=[1, 0])
    loss = DecisionMatrix({"mail": [-10.0, 1.0]}, levels=[1, 0], kind="loss")
    a = profit_curve(Y12, post, prof, n_bins=4)
    b = profit_curve(Y12, post, loss, n_bins=4)
    pd.testing.assert_frame_equal(a, b)
    assert "cum_roi" not in a.columns  # no costs without a revenue matrix


def test_string_levels_need_event_for_lift():
    y = np.where(Y12 == 1, "yes", "no")
    m = DecisionMatrix({"mail": [10.0, -1.0]}, levels=["yes", "no"])
    post = pd.DataFrame({"yes": P12, "no": 1 - P12})
    curve = profit_curve(y, post, m, n_bins=4)
    assert "cum_lift" not in curve.columns
    with_event = profit_curve(y, post, m, event="yes", n_bins=4)
    np.testing.assert_allclose(with_event["gain"].iloc[-1], 1.0)
    with pytest.raises(ValueError, match="event"):
        profit_curve(y, P12, m)  # a 1-D score needs to know whose posterior it is
    with pytest.raises(ValueError, match="event must be a level"):
        profit_curve(y, post, m, event="maybe")


def test_interval_target_uses_actual_values_for_lift():
    m = DecisionMatrix({"invest": [-10.0, 10.0]}, knots=[0.0, 20.0])  # profit = y - 10
    pred = np.array([18.0, 15.0, 12.0, 5.0])
    y = np.array([20.0, 8.0, 14.0, 2.0])
    curve = profit_curve(y, pred, m, n_bins=4)
    np.testing.assert_allclose(curve["cum_profit"], [10.0, 8.0, 12.0, 4.0])
    np.testing.assert_allclose(curve["cum_lift"], np.array([20, 14, 14, 11]) / 11)


def test_prior_adjusted_chart_weights():
    # balanced validation sample, operational priors 0.2 / 0.8: Paw = 0.4 (event), 1.6
    m = DecisionMatrix({"mail": [10.0, -1.0]}, levels=[1, 0], priors=[0.2, 0.8])
    y = np.array([1, 0, 1, 0])
    p = np.array([0.9, 0.7, 0.4, 0.2])
    curve = profit_curve(y, p, m, n_bins=2)
    # ranks: 10*0.4=4, -1*1.6, then 4, -1.6
    np.testing.assert_allclose(curve["cum_profit"], [4 - 1.6, 8 - 3.2])
    np.testing.assert_allclose(curve["cum_frequency"], [2.0, 4.0])


def test_missing_costs_warn_and_are_left_out():
    m = DecisionMatrix({"mail": [11.0, 0.0]}, levels=[1, 0], kind="revenue",
                       costs={"mail": "c"})
    c = pd.DataFrame({"c": [1.0, np.nan, 1.0, 1.0]})
    with pytest.warns(UserWarning, match="1 case"):
        curve = profit_curve([1, 0, 0, 1], [0.9, 0.8, 0.5, 0.4], m, costs=c, n_bins=3)
    np.testing.assert_allclose(curve["cum_profit"], [10.0, 9.0, 19.0])


@pytest.mark.parametrize("bad", [0, -1, 2.5, True])
def test_n_bins_validated(bad):
    with pytest.raises(ValueError, match="n_bins"):
        profit_curve(Y12, P12, mail_matrix(), n_bins=bad)


def test_best_depth_bad_statistic():
    curve = profit_curve(Y12, P12, mail_matrix(), n_bins=4)
    with pytest.raises(ValueError, match="statistic"):
        best_depth(curve, "nope")


scores = st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.5]), min_size=1, max_size=25)


@settings(max_examples=60, deadline=None)
@given(scores, st.data())
def test_kernel_matches_slow_twin(score, data):
    n = len(score)
    score = np.array(score)
    weight = np.array(data.draw(st.lists(st.integers(1, 4), min_size=n, max_size=n)), float)
    value = np.array(data.draw(st.lists(st.integers(-5, 5), min_size=n, max_size=n)), float)
    depths = np.array([0.1, 0.37, 0.5, 0.9, 1.0])
    cum_w, (cum_v,), _, _ = cumulative_at_depths(score, weight, [value], depths)
    slow = [_slow_cumulative(score, weight, value, q) for q in depths]
    np.testing.assert_allclose(cum_v, slow, atol=1e-9)
    np.testing.assert_allclose(cum_w, depths * weight.sum())


@settings(max_examples=60, deadline=None)
@given(scores, st.data())
def test_best_cut_is_best_over_thresholds(score, data):
    n = len(score)
    score = np.array(score)
    weight = np.array(data.draw(st.lists(st.integers(1, 4), min_size=n, max_size=n)), float)
    profit = np.array(data.draw(st.lists(st.integers(-5, 5), min_size=n, max_size=n)), float)
    _, _, best, cut = best_cut(score, weight, profit)
    brute = max([0.0] + [float(np.dot(weight, profit * (score >= t))) for t in set(score)])
    assert best == pytest.approx(brute)
    assert float(np.dot(weight, profit * (score >= cut))) == pytest.approx(best)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.1, 0.3, 0.5, 0.7, 0.9]), st.booleans()),
                min_size=2, max_size=20))
def test_curve_end_is_total_profit_of_all_decisions(rows):
    p = np.array([r[0] for r in rows])
    y = np.array([int(r[1]) for r in rows])
    m = DecisionMatrix({"mail": [11.0, 0.0]}, levels=[1, 0], kind="revenue",
                       costs={"mail": 1.0})
    curve = profit_curve(y, p, m, n_bins=7)
    res = decide(np.column_stack([p, 1 - p]), m, y=y)
    assert curve["cum_profit"].iloc[-1] == pytest.approx(res.summary["total_profit"])
    # gains never decrease with depth
    assert np.all(np.diff(curve["gain"].fillna(0)) >= -1e-12)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([0.1, 0.3, 0.5, 0.7, 0.9]), st.booleans(),
                          st.integers(1, 3)), min_size=2, max_size=20),
       st.sampled_from([0.5, 2.0, 3.0]), st.randoms(use_true_random=False))
def test_curve_invariants(rows, scale, rnd):
    p = np.array([r[0] for r in rows])
    y = np.array([int(r[1]) for r in rows])
    w = np.array([float(r[2]) for r in rows])
    m = mail_matrix()
    base = profit_curve(y, p, m, sample_weight=w, n_bins=5)
    # row order does not matter (ties are split proportionally)
    perm = np.array(rnd.sample(range(len(rows)), len(rows)))
    shuffled = profit_curve(y[perm], p[perm], m, sample_weight=w[perm], n_bins=5)
    pd.testing.assert_frame_equal(base, shuffled, check_exact=False, rtol=1e-9, atol=1e-9)
    # scaling every frequency scales totals and leaves averages and ratios alone
    scaled = profit_curve(y, p, m, sample_weight=scale * w, n_bins=5)
    for col in ("frequency", "cum_profit", "cum_investment", "profit"):
        np.testing.assert_allclose(scaled[col], scale * base[col], atol=1e-9)
    for col in ("cum_average_profit", "cum_roi", "gain", "ep_threshold"):
        np.testing.assert_allclose(scaled[col], base[col], atol=1e-9)
    # bins add up to the cumulative figures
    np.testing.assert_allclose(base["profit"].cumsum(), base["cum_profit"], atol=1e-9)


def test_tree_cases_with_any_missing_cost_left_out_like_decide():
    # two cost variables: a tree's decision never needs the case's cost, so a case whose
    # *other* decision's cost is missing keeps a known computed profit; the decide()
    # summary leaves it out all the same, and so must the chart
    from dtdecide import ProfitTreeClassifier
    from dtdecide.assess import profit_curves

    rng = np.random.default_rng(3)
    n = 400
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n)})
    y = np.where(X["a"] + rng.normal(size=n) > 0.5, "yes", "no")
    costs = pd.DataFrame({"c_mail": rng.uniform(0.5, 2.0, n), "c_call": rng.uniform(2.0, 6.0, n)})
    m = DecisionMatrix({"mail": [12.0, 0.0], "call": [25.0, 0.0]}, levels=["yes", "no"],
                       kind="revenue", costs={"mail": "c_mail", "call": "c_call"})
    tree = ProfitTreeClassifier(decision_matrix=m, max_depth=3, random_state=0)
    tree.fit(X, y, costs=costs)
    test_costs = costs.copy()
    test_costs.loc[::7, "c_call"] = np.nan
    res = tree.decide(X, y, costs=test_costs)
    with pytest.warns(UserWarning, match="58 case"):
        curves = profit_curves({"tree": tree}, {"test": {"X": X, "y": y, "costs": test_costs}},
                               m, n_bins=4)
    assert np.isclose(curves["cum_profit"].iloc[-1], res.summary["total_profit"])
