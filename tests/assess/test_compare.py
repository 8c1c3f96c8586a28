"""compare_models against direct computation."""

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.metrics import brier_score_loss, mean_squared_error, roc_auc_score
from sklearn.tree import DecisionTreeClassifier

from dtdecide import DecisionEstimator, ProfitTreeClassifier
from dtdecide.assess import ImplicitDoNothingWarning, best_threshold, compare_models
from dtdecide.decision import DecisionMatrix, decide


@pytest.fixture(scope="module")
def split():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(500, 3))
    y = (X[:, 0] - 0.5 * X[:, 1] + rng.normal(size=500) > 0.8).astype(int)
    w = rng.integers(1, 4, size=500).astype(float)
    return X[:300], y[:300], w[:300], X[300:], y[300:], w[300:]


def mail_matrix(**kw):
    return DecisionMatrix({"mail": [10.0, -1.0], "skip": [0.0, 0.0]}, levels=[1, 0], **kw)


def slow_ks(y, p, w):
    """max over thresholds of (share of events above) - (share of non-events above)."""
    best = 0.0
    for t in np.unique(p):
        tpr = w[(y == 1) & (p >= t)].sum() / w[y == 1].sum()
        fpr = w[(y == 0) & (p >= t)].sum() / w[y == 0].sum()
        best = max(best, tpr - fpr)
    return best


def test_rows_match_direct_computation(split):
    Xtr, ytr, wtr, Xva, yva, wva = split
    lr = LogisticRegression().fit(Xtr, ytr)
    m = mail_matrix()
    table = compare_models({"lr": lr}, {"train": (Xtr, ytr), "validation": (Xva, yva, wva)},
                           m, depth=0.2)
    row = table.set_index("role").loc["validation"]
    p = lr.predict_proba(Xva)[:, 1]
    post = np.column_stack([p, 1 - p])
    res = decide(post, m, y=yva, sample_weight=wva)
    assert row["average_profit"] == pytest.approx(res.summary["average_profit"])
    assert row["total_profit"] == pytest.approx(res.summary["total_profit"])
    assert row["frequency"] == pytest.approx(wva.sum())
    assert row["roc_auc"] == pytest.approx(roc_auc_score(yva, p, sample_weight=wva))
    assert row["ase"] == pytest.approx(brier_score_loss(yva, p, sample_weight=wva))
    assert row["ks"] == pytest.approx(slow_ks(yva, p, wva))
    wrong = (p >= 0.5).astype(int) != yva
    ties = p == 0.5
    assert not ties.any()
    assert row["misclassification_rate"] == pytest.approx(np.dot(wva, wrong) / wva.sum())
    # lift at 20%: cases ranked by EP = 11 p - 1, i.e. by p; 20% of the frequency
    order = np.argsort(-p, kind="stable")
    cw = np.cumsum(wva[order])
    target = 0.2 * wva.sum()
    k = np.searchsorted(cw, target)  # case that holds the cut
    ev = np.cumsum((wva * yva)[order])
    prev_w = cw[k - 1] if k else 0.0
    prev_e = ev[k - 1] if k else 0.0
    events = prev_e + (target - prev_w) * yva[order][k]
    overall = np.dot(wva, yva) / wva.sum()
    assert row["lift"] == pytest.approx(events / target / overall)
    # the training row is unweighted
    tr = table.set_index("role").loc["train"]
    assert tr["frequency"] == 300


def test_estimator_wrapper_prescored_agree(split):
    Xtr, ytr, _, Xva, yva, _ = split
    m = mail_matrix()
    lr = LogisticRegression().fit(Xtr, ytr)
    wrapped = DecisionEstimator(LogisticRegression(), m).fit(Xtr, ytr)
    frame = pd.DataFrame(lr.predict_proba(Xva), columns=lr.classes_)
    table = compare_models(
        {"plain": lr, "wrapped": wrapped, "scored": {"validation": frame},
         "event": {"validation": lr.predict_proba(Xva)[:, 1]}},
        {"validation": (Xva, yva)}, m)
    stats = table.drop(columns=["model", "role", "selected"])
    for k in range(1, 4):
        pd.testing.assert_series_equal(stats.iloc[0], stats.iloc[k], check_names=False)


def test_selection_rules(split):
    Xtr, ytr, _, Xva, yva, _ = split
    m = mail_matrix()
    models = {"lr": LogisticRegression().fit(Xtr, ytr),
              "stump": DecisionTreeClassifier(max_depth=1).fit(Xtr, ytr)}
    data = {"train": (Xtr, ytr), "validation": (Xva, yva)}
    table = compare_models(models, data, m)
    val = table[table["role"] == "validation"].set_index("model")
    assert table.attrs["best_model"] == val["average_profit"].idxmax()
    assert table.loc[table["selected"], "model"].unique().tolist() == [val["average_profit"].idxmax()]
    by_ase = compare_models(models, data, m, select_by="ase")
    assert by_ase.attrs["best_model"] == val["ase"].idxmin()
    by_train = compare_models(models, {"train": (Xtr, ytr)}, m, select_by="roc_auc")
    assert by_train.attrs["select_role"] == "train"
    with pytest.raises(ValueError, match="select_by"):
        compare_models(models, data, m, select_by="nope")


def test_loss_matrix_minimised(split):
    Xtr, ytr, _, Xva, yva, _ = split
    loss = DecisionMatrix([[0.0, 1.0], [1.0, 0.0]], levels=[1, 0], decisions=["one", "zero"],
                          kind="loss")
    models = {"lr": LogisticRegression().fit(Xtr, ytr),
              "stump": DecisionTreeClassifier(max_depth=1).fit(Xtr, ytr)}
    table = compare_models(models, {"validation": (Xva, yva)}, loss)
    assert "average_loss" in table.columns and "average_profit" not in table.columns
    # 0/1 loss: average loss = misclassification rate
    np.testing.assert_allclose(table["average_loss"], table["misclassification_rate"])
    assert table.attrs["best_model"] == table.set_index("model")["average_loss"].idxmin()


def test_priors_give_adjusted_figures(split):
    Xtr, ytr, _, Xva, yva, _ = split
    m = mail_matrix(priors=[0.1, 0.9])
    lr = LogisticRegression().fit(Xtr, ytr)
    table = compare_models({"lr": lr}, {"validation": (Xva, yva)}, m,
                           train_priors=[ytr.mean(), 1 - ytr.mean()])
    assert table.attrs["select_by"] == "adjusted_average_profit"
    # fit statistics are not prior-adjusted
    p = lr.predict_proba(Xva)[:, 1]
    assert table["ase"].iloc[0] == pytest.approx(brier_score_loss(yva, p))


def test_interval_target():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 2))
    y = 5 + 3 * X[:, 0] + rng.normal(size=200)
    m = DecisionMatrix({"invest": [-5.0, 5.0], "hold": [0.0, 0.0]}, knots=[0.0, 10.0])
    reg = LinearRegression().fit(X, y)
    table = compare_models({"ols": reg}, {"test": (X, y)}, m)
    assert table["ase"].iloc[0] == pytest.approx(mean_squared_error(y, reg.predict(X)))
    res = decide(reg.predict(X), m, y=y)
    assert table["average_profit"].iloc[0] == pytest.approx(res.summary["average_profit"])
    assert "roc_auc" not in table.columns


def test_implicit_do_nothing_warns_and_uses_best_cum_profit(split):
    Xtr, ytr, _, Xva, yva, _ = split
    single = DecisionMatrix({"mail": [10.0, -1.0]}, levels=[1, 0])
    lr = LogisticRegression().fit(Xtr, ytr)
    with pytest.warns(ImplicitDoNothingWarning):
        table = compare_models({"lr": lr}, {"validation": (Xva, yva)}, single)
    assert table.attrs["select_by"] == "best_cum_profit"
    exact = best_threshold(yva, lr.predict_proba(Xva)[:, 1], single)
    assert table["best_cum_profit"].iloc[0] == pytest.approx(exact.total_profit)


def test_profit_tree_is_accepted(split):
    Xtr, ytr, _, Xva, yva, _ = split
    m = mail_matrix()
    tree = ProfitTreeClassifier(decision_matrix=m, max_depth=3).fit(Xtr, ytr)
    table = compare_models({"tree": tree}, {"validation": (Xva, yva)})
    res = tree.decide(Xva, yva)
    assert table["average_profit"].iloc[0] == pytest.approx(res.summary["average_profit"])
    p = tree.predict_proba(Xva)[:, list(tree.classes_).index(1)]
    assert table["roc_auc"].iloc[0] == pytest.approx(roc_auc_score(yva, p))


def test_input_errors(split):
    Xtr, ytr, _, Xva, yva, _ = split
    m = mail_matrix()
    lr = LogisticRegression().fit(Xtr, ytr)
    with pytest.raises(ValueError, match="data"):
        compare_models({"lr": lr}, {}, m)
    with pytest.raises(ValueError, match=r"data\['v'\]"):
        compare_models({"lr": lr}, {"v": Xva}, m)
    with pytest.raises(ValueError, match="depth"):
        compare_models({"lr": lr}, {"v": (Xva, yva)}, m, depth=0)
    with pytest.raises(ValueError, match="role 'v'"):
        compare_models({"s": {"w": np.full(len(yva), 0.5)}}, {"v": (None, yva)}, m)
    with pytest.raises(ValueError, match="matrix"):
        compare_models({"lr": lr}, {"v": (Xva, yva)})
    with pytest.raises(TypeError, match="models"):
        compare_models(lr, {"v": (Xva, yva)}, m)


def test_models_fitted_without_matrix_use_their_posteriors(split):
    Xtr, ytr, _, Xva, yva, _ = split
    m = mail_matrix()
    plain_tree = ProfitTreeClassifier(max_depth=3, random_state=0).fit(Xtr, ytr)
    plain_wrap = DecisionEstimator(LogisticRegression()).fit(Xtr, ytr)
    table = compare_models({"tree": plain_tree, "wrap": plain_wrap},
                           {"validation": (Xva, yva)}, m).set_index("model")
    cls = list(plain_tree.classes_)
    post = plain_tree.predict_proba(Xva)[:, [cls.index(1), cls.index(0)]]
    res = decide(post, m, y=yva)
    assert table.loc["tree", "average_profit"] == pytest.approx(res.summary["average_profit"])
    lr = LogisticRegression().fit(Xtr, ytr)
    res = decide(lr.predict_proba(Xva)[:, [1, 0]], m, y=yva)
    assert table.loc["wrap", "average_profit"] == pytest.approx(res.summary["average_profit"])
