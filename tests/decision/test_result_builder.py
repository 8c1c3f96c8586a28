"""DecisionResult.summary_by: the summary's figures per group, by the summary's rule."""

import numpy as np
import pandas as pd
import pytest

from dtdecide import DecisionMatrix, decide


def _data(seed, n=60):
    rng = np.random.default_rng(seed)
    p = rng.uniform(size=n)
    post = np.column_stack([p, 1 - p])
    y = rng.choice(["yes", "no"], size=n)
    cost = rng.uniform(0, 3, size=n)
    cost[rng.uniform(size=n) < 0.2] = np.nan  # missing costs leave cases out
    w = rng.integers(0, 4, size=n).astype(float)
    groups = rng.choice(["g1", "g2", "g3"], size=n)
    return post, y, cost, w, groups


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("weighted", [False, True])
def test_group_figures_are_the_summary_of_each_group(seed, weighted):
    post, y, cost, w, groups = _data(seed)
    m = DecisionMatrix({"mail": [20.0, 0.0], "skip": [0.0, 0.0]}, levels=["yes", "no"],
                       kind="revenue", costs={"mail": "c"}, priors=[0.3, 0.7])
    sw = w if weighted else None
    res = decide(post, m, y=y, costs={"c": cost}, sample_weight=sw)
    table = res.summary_by(groups)
    assert list(table.index) == ["g1", "g2", "g3"]
    for col in ["n_cases", "n_missing", "frequency", "total_expected_profit",
                "total_profit", "total_best_profit", "total_investment",
                "adjusted_total_profit"]:
        assert table[col].sum() == pytest.approx(res.summary[col], rel=1e-12, abs=1e-9)
    # each group alone, by hand: the cases without a missing cost, weighted
    cases = res.cases
    ok = ~np.isnan(cost)
    wt = np.ones(len(y)) if sw is None else sw
    for g in ["g1", "g2", "g3"]:
        sel = (groups == g) & ok
        tot = float(np.dot(wt[sel], cases["CP_target"].to_numpy()[sel]))
        inv = float(np.dot(wt[sel], cases["IC_target"].to_numpy()[sel]))
        assert table.loc[g, "total_profit"] == pytest.approx(tot)
        assert table.loc[g, "frequency"] == pytest.approx(wt[sel].sum())
        assert table.loc[g, "roi"] == pytest.approx(tot / inv)
    assert "misclassification_rate" not in table.columns


def test_unused_categories_and_threshold_and_loss_sign():
    m = DecisionMatrix([[0.0, 5.0], [4.0, 0.0]], levels=["a", "b"], decisions=["A", "B"],
                       kind="loss")
    res = decide([[0.9, 0.1], [0.2, 0.8], [0.5, 0.5]], m, y=["a", "b", "a"], threshold=1.0)
    groups = pd.Categorical([1, 1, 2], categories=[0, 1, 2])
    table = res.summary_by(groups)
    assert table["n_cases"].tolist() == [0.0, 2.0, 1.0]
    assert table["total_loss"].tolist() == pytest.approx(
        [0.0, res.cases["CL_target"].iloc[:2].sum(), res.cases["CL_target"].iloc[2]])
    assert np.isnan(table.loc[0, "average_loss"])
    assert table["do_nothing_frequency"].sum() == res.summary["do_nothing_frequency"]


def test_groups_errors():
    m = DecisionMatrix([[1, 0], [0, 1]], levels=["a", "b"], decisions=["A", "B"])
    res = decide([[0.7, 0.3], [0.2, 0.8]], m)
    with pytest.raises(ValueError, match="groups must have one label per case"):
        res.summary_by(["x"])
    with pytest.raises(ValueError, match="groups must not contain missing"):
        res.summary_by(["x", None])
