"""The cases table of a DecisionResult shares memory with the arrays behind its
summaries, without copying them, and edits of the table never reach those arrays.

``build_decision_result`` builds ``cases`` over the per-case arrays it keeps for
``summary_by``, ``decision_counts`` and ``SummaryTotals`` (no consolidating copy of the
float columns), and keeps pandas' Copy-on-Write references to the table's blocks, so
that an in-place edit of the table copies the block it writes into.
"""

import copy
import pickle

import numpy as np
import pandas as pd
import pytest

from dtdecide import DecisionMatrix, decide
from dtdecide.decision._result import SummaryTotals
from dtdecide.tree import ProfitTreeClassifier

EDITS = [
    lambda df, c: df.loc.__setitem__((df.index[0], c), 1e6),
    lambda df, c: df.iloc.__setitem__((1, df.columns.get_loc(c)), -1e6),
    lambda df, c: df.__setitem__(c, df[c] * 3),
    lambda df, c: df.loc.__setitem__((df[c] > 0, c), 0.0),
    lambda df, c: df.at.__setitem__((df.index[2], c), 7.0),
    lambda df, c: df.fillna({c: 5.0}, inplace=True),
    lambda df, c: df.replace({c: {df[c].iloc[3]: 1.5}}, inplace=True),
    lambda df, c: df.update(pd.DataFrame({c: [123.0]}, index=df.index[:1])),
]


def _results():
    rng = np.random.default_rng(3)
    n = 60
    m = DecisionMatrix({"mail": [20.0, 0.0], "call": [30.0, 1.0], "skip": [0.0, 0.0]},
                       levels=["yes", "no"], kind="revenue",
                       costs={"mail": "c", "call": 6.0}, priors=[0.3, 0.7])
    post = rng.dirichlet([1, 3], size=n)
    y = np.where(rng.random(n) < 0.3, "yes", "no")
    costs = pd.DataFrame({"c": rng.uniform(0, 5, size=n)})
    costs.loc[4, "c"] = np.nan
    out = {
        "engine": decide(post, m, y=y, costs=costs),
        "engine_threshold": decide(post, m, y=y, costs=costs, threshold=1.0),
        "engine_no_y": decide(post, m, costs=costs, sample_weight=rng.uniform(0, 2, n)),
    }
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n)})
    for rule in ("leaf", "case"):
        tree = ProfitTreeClassifier(decision_matrix=m, decision_rule=rule, max_depth=2,
                                    min_samples_leaf=5, random_state=0)
        tree.fit(X, y, costs=costs.fillna(1.0))
        out[f"tree_{rule}"] = tree.decide(X, y, costs=costs)
        out[f"tree_{rule}_no_y"] = tree.decide(X, costs=costs)
    return out


def _state(res):
    groups = np.arange(len(res.cases)) % 3
    return (res.summary.copy(), res.summary_by(groups), res.decision_counts(),
            SummaryTotals().add(res).summary())


@pytest.mark.parametrize("edit", range(len(EDITS)))
def test_editing_the_cases_table_changes_no_summary(edit):
    for name, res in _results().items():
        before = _state(res)
        floats = [c for c in res.cases.columns if res.cases[c].dtype == np.float64]
        for col in floats:
            EDITS[edit](res.cases, col)
        # the decision column too: a category set by hand, one removed
        dcol = [c for c in res.cases.columns if c.startswith("D_")][0]
        res.cases.loc[res.cases.index[0], dcol] = res.decisions[-1]
        res.cases.loc[res.cases.index[1], dcol] = np.nan
        after = _state(res)
        for a, b in zip(before, after, strict=True):
            if isinstance(a, pd.DataFrame):
                pd.testing.assert_frame_equal(a, b, check_exact=True, obj=name)
            else:
                pd.testing.assert_series_equal(a, b, check_exact=True, obj=name)


def test_edits_work_and_stay_in_the_table():
    res = _results()["engine"]
    res.cases.loc[0, "EP_target"] = 99.0
    res.cases["CP_target"] *= 2
    assert res.cases.loc[0, "EP_target"] == 99.0
    assert res._case_data["expected"][0] != 99.0
    np.testing.assert_array_equal(res.cases["CP_target"].to_numpy(),
                                  2 * res._case_data["computed"])


def test_cases_are_views_of_the_case_data_until_edited():
    """No copy of the float columns (the point of building the table this way), where
    pandas copies shared blocks before writing (always from pandas 3)."""
    from dtdecide.decision._result import _copy_on_write

    if not _copy_on_write():
        pytest.skip("pandas without Copy-on-Write: the table gets its own copy")
    for name, res in _results().items():
        data = res._case_data
        for col, key in (("EP_target", "expected"), ("CP_target", "computed"),
                         ("BP_target", "best"), ("IC_target", "investment")):
            if col in res.cases:
                assert np.shares_memory(res.cases[col].to_numpy(), data[key]), (name, col)


def test_copies_and_pickles_of_a_result_are_independent():
    res = _results()["tree_case"]
    before = _state(res)
    for other in (pickle.loads(pickle.dumps(res)), copy.deepcopy(res)):
        assert other._shared is None
        pd.testing.assert_frame_equal(other.cases, res.cases)
        other.cases.loc[0, "EP_target"] = -5.0
        other._case_data["expected"][:] = 0.0
        for a, b in zip(before, _state(res), strict=True):
            (pd.testing.assert_frame_equal if isinstance(a, pd.DataFrame)
             else pd.testing.assert_series_equal)(a, b)


def test_decision_counts_of_the_decisions_made():
    m = DecisionMatrix([[1, 0], [0, 1]], levels=["a", "b"], decisions=["A", "B"])
    res = decide([[0.7, 0.3], [0.6, 0.4], [0.1, 0.9]], m, threshold=0.65)
    expected = res.cases["D_target"].value_counts(sort=False).reindex(
        list(res.decisions), fill_value=0)
    pd.testing.assert_series_equal(res.decision_counts(), expected)
    assert res.decision_counts().to_dict() == {"A": 1, "B": 1, "do nothing": 1}
    res.cases.loc[0, "D_target"] = "B"
    assert res.decision_counts().to_dict() == {"A": 1, "B": 1, "do nothing": 1}
