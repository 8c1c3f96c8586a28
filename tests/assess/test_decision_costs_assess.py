"""Charts and model comparison with ``decision_costs``: rank and decide by the expected
profit under the decision costs, realise every profit with the actual costs."""

import matplotlib
import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression

from dtdecide import (
    DecisionEstimator,
    DecisionMatrix,
    ProfitTreeClassifier,
    decide,
    mean_costs,
)
from dtdecide.assess import (
    ProfitCurveDisplay,
    best_threshold,
    compare_models,
    profit_curve,
    profit_curves,
)
from dtdecide.decision import model_posteriors

matplotlib.use("Agg")

CONTACT = DecisionMatrix({"contact": [0.0, 30.0]}, levels=["no", "yes"], kind="revenue",
                         costs={"contact": "c"})
FULL = DecisionMatrix({"contact": [0.0, 30.0], "skip": [0.0, 0.0]}, levels=["no", "yes"],
                      kind="revenue", costs={"contact": "c"})


def make_data(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 1.0, "yes", "no")
    # the actual cost grows with a feature no model can see before the call
    c = rng.exponential(2.0, size=n) + np.where(y == "yes", 2.0, 0.0)
    return X, y, pd.DataFrame({"c": c})


X_TRAIN, Y_TRAIN, C_TRAIN = make_data(400, 0)
X_VALID, Y_VALID, C_VALID = make_data(300, 1)
PLAN = mean_costs(C_TRAIN)
LOGIT = LogisticRegression().fit(X_TRAIN, Y_TRAIN)
TREE = ProfitTreeClassifier(decision_matrix=FULL, max_depth=3, min_samples_leaf=20,
                            random_state=0).fit(X_TRAIN, Y_TRAIN, costs=C_TRAIN)


def test_profit_curve_ranks_by_decision_costs_by_hand():
    # EP under decision cost 1: 0.9 * 10 - 1 = 8 and 0.5 * 10 - 1 = 4 -> case 0 first;
    # under the actual costs 8 and 0: 1 and 5 -> case 1 first
    m = DecisionMatrix({"mail": [10.0, 0.0]}, levels=["yes", "no"], kind="revenue",
                       costs={"mail": "c"})
    post = pd.DataFrame({"yes": [0.9, 0.5], "no": [0.1, 0.5]})
    actual = {"c": [8.0, 0.0]}
    y = ["no", "yes"]
    planned = profit_curve(y, post, m, costs=actual, decision_costs={"c": 1.0}, n_bins=2)
    assert planned["cum_profit"].tolist() == [-8.0, 2.0]  # 0 - 8, then + 10 - 0
    assert planned["ep_threshold"].tolist() == [8.0, 4.0]
    assert planned["cum_investment"].tolist() == [8.0, 8.0]  # the actual costs
    hindsight = profit_curve(y, post, m, costs=actual, n_bins=2)
    assert hindsight["cum_profit"].tolist() == [10.0, 2.0]
    assert hindsight["ep_threshold"].tolist() == [5.0, 1.0]


def test_profit_curve_equals_ranked_cumsum_reference():
    post = model_posteriors(LOGIT, X_VALID, CONTACT)
    n = len(post)
    curve = profit_curve(Y_VALID, post, CONTACT, costs=C_VALID, decision_costs=PLAN,
                         n_bins=n)
    # reference: EP = 30 P(yes) - planned cost; CP = 30 [yes] - actual cost
    ep = 30.0 * post[:, 1] - PLAN["c"]
    cp = np.where(Y_VALID == "yes", 30.0, 0.0) - C_VALID["c"].to_numpy()
    order = np.argsort(-ep, kind="stable")
    assert len(np.unique(ep)) == n  # no ties: one case per bin
    np.testing.assert_allclose(curve["cum_profit"], np.cumsum(cp[order]), rtol=1e-9)
    # (a depth k / n may cut a hair into the next case: its last case is then that one)
    assert set(curve["ep_threshold"]) <= set(ep)
    np.testing.assert_allclose(curve["cum_investment"],
                               np.cumsum(C_VALID["c"].to_numpy()[order]), rtol=1e-9)
    # without decision costs the ranking uses the actual costs: another path, same end
    hindsight = profit_curve(Y_VALID, post, CONTACT, costs=C_VALID, n_bins=n)
    assert not np.allclose(hindsight["cum_profit"], curve["cum_profit"])
    assert hindsight["cum_profit"].iloc[-1] == pytest.approx(curve["cum_profit"].iloc[-1])
    # decision costs equal to the actual ones: the old chart, exactly
    same = profit_curve(Y_VALID, post, CONTACT, costs=C_VALID, decision_costs=C_VALID,
                        n_bins=20)
    pd.testing.assert_frame_equal(
        same, profit_curve(Y_VALID, post, CONTACT, costs=C_VALID, n_bins=20),
        check_exact=True)


def test_best_threshold_with_decision_costs_reproduces_decide():
    post = model_posteriors(LOGIT, X_VALID, CONTACT)
    b = best_threshold(Y_VALID, post, CONTACT, costs=C_VALID, decision_costs=PLAN)
    res = decide(post, CONTACT, y=Y_VALID, costs=C_VALID, decision_costs=PLAN,
                 threshold=b.threshold)
    assert res.summary["total_profit"] == pytest.approx(b.total_profit, rel=1e-9)
    taken = (res.cases["D_target"] == "contact").mean()
    assert taken == pytest.approx(b.depth)


def test_compare_models_decision_costs_keyword_and_data_key():
    est = DecisionEstimator(LogisticRegression(), FULL).fit(X_TRAIN, Y_TRAIN)
    post = model_posteriors(LOGIT, X_VALID, FULL)
    models = {"logit": LOGIT, "wrapped": est, "tree": TREE,
              "scores": {"valid": pd.DataFrame(post, columns=["no", "yes"])}}
    plain = {"valid": {"X": X_VALID, "y": Y_VALID, "costs": C_VALID}}
    keyed = {"valid": {"X": X_VALID, "y": Y_VALID, "costs": C_VALID, "decision_costs": PLAN}}
    by_keyword = compare_models(models, plain, FULL, decision_costs=PLAN, event="yes")
    by_key = compare_models(models, keyed, FULL, event="yes")
    pd.testing.assert_frame_equal(by_keyword, by_key, check_exact=True)
    old = compare_models(models, plain, FULL, event="yes").set_index("model")
    new = by_keyword.set_index("model")
    # the case-by-case models decide with the planned cost, realised with the actual one
    ref = decide(post, FULL, y=Y_VALID, costs=C_VALID, decision_costs=PLAN).summary
    for name in ("logit", "wrapped", "scores"):
        assert new.loc[name, "average_profit"] == pytest.approx(ref["average_profit"],
                                                                rel=1e-12)
        assert new.loc[name, "roi"] == pytest.approx(ref["roi"], rel=1e-12)
        assert new.loc[name, "average_profit"] != old.loc[name, "average_profit"]
    # the tree keeps its leaf decisions: its row does not move
    pd.testing.assert_series_equal(new.loc["tree"].drop("selected"),
                                   old.loc["tree"].drop("selected"))
    # fit statistics do not depend on costs (the lift follows the ranking by EP, which does)
    for col in ("roc_auc", "ase", "misclassification_rate"):
        assert new.loc["logit", col] == old.loc["logit", col]
    with pytest.raises(ValueError, match="decision_costs is given twice for data role 'valid'"):
        compare_models(models, keyed, FULL, decision_costs=PLAN)


def test_compare_models_best_cum_profit_ranks_by_decision_costs():
    post = model_posteriors(LOGIT, X_VALID, CONTACT)
    data = {"valid": {"X": X_VALID, "y": Y_VALID, "costs": C_VALID}}
    with pytest.warns(UserWarning):
        table = compare_models({"logit": LOGIT}, data, CONTACT, decision_costs=PLAN)
    curve = profit_curve(Y_VALID, post, CONTACT, costs=C_VALID, decision_costs=PLAN,
                         n_bins=len(post))
    assert table["best_cum_profit"].iloc[0] == pytest.approx(
        max(0.0, curve["cum_profit"].max()), rel=1e-9)


def test_profit_curves_and_displays_pass_decision_costs():
    post = model_posteriors(LOGIT, X_VALID, CONTACT)
    ref = profit_curve(Y_VALID, post, CONTACT, costs=C_VALID, decision_costs=PLAN,
                       n_bins=10)
    data = {"valid": {"X": X_VALID, "y": Y_VALID, "costs": C_VALID}}
    curves = profit_curves({"logit": LOGIT, "tree": TREE}, data, CONTACT, n_bins=10,
                           decision_costs=PLAN)
    got = curves[curves["model"] == "logit"].drop(columns=["model", "role"])
    pd.testing.assert_frame_equal(got.reset_index(drop=True), ref, check_exact=True)
    tree_old = profit_curves({"tree": TREE}, data, CONTACT, n_bins=10)
    pd.testing.assert_frame_equal(
        curves[curves["model"] == "tree"].reset_index(drop=True), tree_old,
        check_exact=True)
    with pytest.raises(ValueError, match="given twice"):
        profit_curves({"logit": LOGIT}, {"valid": {**data["valid"], "decision_costs": PLAN}},
                      CONTACT, decision_costs=PLAN)

    expected_line = np.r_[0.0, ref["cum_profit"].to_numpy()]
    disp = ProfitCurveDisplay.from_predictions(Y_VALID, post, CONTACT, costs=C_VALID,
                                               decision_costs=PLAN, n_bins=10)
    np.testing.assert_array_equal(disp.line_.get_ydata(), expected_line)
    disp = ProfitCurveDisplay.from_estimator(LOGIT, X_VALID, Y_VALID, matrix=CONTACT,
                                             costs=C_VALID, decision_costs=PLAN, n_bins=10)
    np.testing.assert_array_equal(disp.line_.get_ydata(), expected_line)
    hindsight = ProfitCurveDisplay.from_estimator(LOGIT, X_VALID, Y_VALID, matrix=CONTACT,
                                                  costs=C_VALID, n_bins=10)
    assert not np.array_equal(hindsight.line_.get_ydata(), expected_line)
    matplotlib.pyplot.close("all")


def test_unknown_data_key_still_rejected():
    with pytest.raises(ValueError, match="'decision_costs'; got keys"):
        compare_models({"logit": LOGIT},
                       {"valid": {"X": X_VALID, "y": Y_VALID, "decision_cost": PLAN}}, FULL)
