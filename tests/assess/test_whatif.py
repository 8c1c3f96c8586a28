"""What-if analysis: re-deciding without refitting."""

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression

from dtdecide import DecisionEstimator, ProfitTreeClassifier
from dtdecide.assess import redecide, what_if, what_if_curves
from dtdecide.decision import DecisionMatrix, decide


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(11)
    X = pd.DataFrame({"a": rng.normal(size=400), "b": rng.normal(size=400)})
    y = np.where(X["a"] + rng.normal(size=400) > 0.7, "yes", "no")
    return X, y


def matrix(cost, **kw):
    return DecisionMatrix({"call": [20.0 - cost, -cost], "skip": [0.0, 0.0]},
                          levels=["yes", "no"], **kw)


def test_redecided_tree_equals_tree_fitted_with_new_matrix(data):
    # a nominal tree's growth does not depend on the matrix: refitting with the new
    # matrix gives the same splits, so its leaf decisions are the reference
    X, y = data
    old = ProfitTreeClassifier(decision_matrix=matrix(2.0), max_depth=3, random_state=0)
    old.fit(X, y)
    revenue = DecisionMatrix({"call": [20.0, 0.0], "skip": [0.0, 0.0]},
                             levels=["yes", "no"], kind="revenue", costs={"call": 4.0})
    for new_m in (matrix(1.0), matrix(5.0), matrix(9.0), revenue):
        ref = ProfitTreeClassifier(decision_matrix=new_m, max_depth=3, random_state=0)
        ref.fit(X, y)
        got = redecide(old, new_m).decide(X, y)
        want = ref.decide(X, y)
        pd.testing.assert_frame_equal(got.cases, want.cases)
    # the original is untouched
    assert old.decision_matrix_ == matrix(2.0)


def test_redecide_tree_with_priors(data):
    X, y = data
    base = ProfitTreeClassifier(decision_matrix=matrix(2.0), max_depth=3, random_state=0)
    base.fit(X, y)
    # use_priors=False: the reference must grow the same splits as ``base``
    ref = ProfitTreeClassifier(decision_matrix=matrix(2.0, priors=[0.05, 0.95]),
                               use_priors=False, max_depth=3, random_state=0).fit(X, y)
    got = redecide(base, priors=[0.05, 0.95]).decide(X, y)
    pd.testing.assert_frame_equal(got.cases, ref.decide(X, y).cases)


def test_ordinal_tree_warns():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    y = np.digitize(X[:, 0] + rng.normal(size=200), [-0.5, 0.5])
    m = DecisionMatrix(-np.abs(np.subtract.outer(np.arange(3), np.arange(3))).astype(float),
                       levels=[0, 1, 2], decisions=["low", "mid", "high"])
    tree = ProfitTreeClassifier(decision_matrix=m, ordinal=True, max_depth=2).fit(X, y)
    m2 = m.replace(values=2 * m.values)
    with pytest.warns(UserWarning, match="ordinal"):
        redecide(tree, m2)


def test_redecide_estimator_and_priors(data):
    X, y = data
    est = DecisionEstimator(LogisticRegression(), matrix(2.0)).fit(X, y)
    with pytest.raises(ValueError, match="train_priors"):
        redecide(est, priors=[0.1, 0.9])
    rho = [np.mean(y == "yes"), np.mean(y == "no")]
    alt = redecide(est, priors=[0.1, 0.9], train_priors=rho)
    post = est.predict_proba(X)[:, [list(est.classes_).index("yes"),
                                    list(est.classes_).index("no")]]
    want = decide(post, matrix(2.0, priors=[0.1, 0.9]), y=y, train_priors=rho)
    got = alt.decide(X, y)
    pd.testing.assert_frame_equal(got.cases, want.cases)
    assert est.decision_matrix_.priors is None


def test_redecide_errors(data):
    X, y = data
    lr = LogisticRegression().fit(X, y)
    with pytest.raises(TypeError, match="DecisionEstimator"):
        redecide(lr, matrix(1.0))
    est = DecisionEstimator(LogisticRegression(), matrix(2.0)).fit(X, y)
    other = DecisionMatrix({"call": [1.0, 0.0]}, levels=["no", "yes"])
    with pytest.raises(ValueError, match="levels"):
        redecide(est, other)
    with pytest.raises(TypeError, match="DecisionMatrix"):
        redecide(est, [[1, 0], [0, 1]])


def test_what_if_table_matches_direct_decisions(data):
    X, y = data
    lr = LogisticRegression().fit(X, y)
    tree = ProfitTreeClassifier(decision_matrix=matrix(2.0), max_depth=3, random_state=0)
    tree.fit(X, y)
    variants = {"c2": matrix(2.0), "c6": matrix(6.0), "c12": matrix(12.0)}
    w = np.random.default_rng(0).integers(1, 3, size=len(y)).astype(float)
    table = what_if({"lr": lr, "tree": tree}, X, y, variants, sample_weight=w)
    assert len(table) == 6 and table.attrs["baseline"] == "c2"
    cls = list(lr.classes_)
    post = lr.predict_proba(X)[:, [cls.index("yes"), cls.index("no")]]
    base = decide(post, variants["c2"], y=y, sample_weight=w).cases["D_target"]
    for name, m in variants.items():
        res = decide(post, m, y=y, sample_weight=w)
        row = table[(table["variant"] == name) & (table["model"] == "lr")].iloc[0]
        assert row["average_profit"] == pytest.approx(res.summary["average_profit"])
        changed = np.dot(w, (res.cases["D_target"] != base).to_numpy()) / w.sum()
        assert row["decisions_changed"] == pytest.approx(changed)
        tree_res = redecide(tree, m).decide(X, y, sample_weight=w)
        trow = table[(table["variant"] == name) & (table["model"] == "tree")].iloc[0]
        assert trow["average_profit"] == pytest.approx(tree_res.summary["average_profit"])
    # dearer calls: fewer calls, so decisions change more and more
    lr_rows = table[table["model"] == "lr"]["decisions_changed"].to_numpy()
    assert lr_rows[0] == 0 and np.all(np.diff(lr_rows) >= 0)


def test_what_if_baseline_and_errors(data):
    X, y = data
    lr = LogisticRegression().fit(X, y)
    variants = {"a": matrix(1.0), "b": matrix(9.0)}
    t = what_if({"lr": lr}, X, y, variants, baseline="b")
    assert t.set_index("variant").loc["b", "decisions_changed"] == 0
    with pytest.raises(ValueError, match="baseline"):
        what_if({"lr": lr}, X, y, variants, baseline="z")
    with pytest.raises(TypeError, match="variants"):
        what_if({"lr": lr}, X, y, {"a": [[1, 0]]})
    with pytest.raises(ValueError, match="variants"):
        what_if({"lr": lr}, X, y, {})


def test_what_if_curves_stack_per_variant(data):
    X, y = data
    lr = LogisticRegression().fit(X, y)
    # do-nothing left out of the matrices, as profit charts want it
    variants = {c: DecisionMatrix({"call": [20.0 - c, -c]}, levels=["yes", "no"])
                for c in (1.0, 9.0)}
    variants = {"a": variants[1.0], "b": variants[9.0]}
    curves = what_if_curves({"lr": lr}, X, y, variants, event="yes", n_bins=10)
    assert curves.shape[0] == 20
    assert list(curves.columns[:2]) == ["variant", "model"]
    # EP = 20 p - c ranks by posterior whatever the cost: the gains are the same
    a = curves[curves["variant"] == "a"]["gain"].to_numpy()
    b = curves[curves["variant"] == "b"]["gain"].to_numpy()
    np.testing.assert_allclose(a, b)


def test_explicit_do_nothing_ties_at_zero(data):
    # with "skip" inside the matrix, every case whose best decision is skip has EP 0:
    # they form one tied block at the bottom of the chart, whose profit is 0
    X, y = data
    lr = LogisticRegression().fit(X, y)
    curves = what_if_curves({"lr": lr}, X, y, {"b": matrix(9.0)}, event="yes", n_bins=10)
    res = what_if({"lr": lr}, X, y, {"b": matrix(9.0)})
    est = DecisionEstimator(LogisticRegression(), matrix(9.0)).fit(X, y)
    share_call = np.mean(est.decide(X).cases["D_target"] == "call")
    deep = curves[curves["depth"] > share_call + 0.1]
    np.testing.assert_allclose(deep["profit"], 0.0, atol=1e-9)
    assert curves["cum_profit"].iloc[-1] == pytest.approx(res["total_profit"].iloc[0])


def test_what_if_warns_for_single_decision_variants(data):
    from dtdecide.assess import ImplicitDoNothingWarning

    X, y = data
    lr = LogisticRegression().fit(X, y)
    single = DecisionMatrix({"call": [18.0, -2.0]}, levels=["yes", "no"])
    with pytest.warns(ImplicitDoNothingWarning, match="single decision"):
        what_if({"lr": lr}, X, y, {"a": matrix(2.0), "b": single})
