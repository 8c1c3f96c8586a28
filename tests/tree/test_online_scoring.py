"""Online scoring: one or a few rows at a time give the rows of the whole-table answer,
and every bad input the same error (issue 26, one row at a time)."""

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse
from hypothesis import given, settings
from hypothesis import strategies as st

from dtdecide import DecisionMatrix, ProfitTreeClassifier, ProfitTreeRegressor
from dtdecide.datasets import load_bank_marketing
from dtdecide.tree._structure import _encode


@pytest.fixture(scope="module")
def bank():
    data = load_bank_marketing(split="train")
    X, y, costs = data.data.iloc[:3000], data.target.iloc[:3000], data.costs.iloc[:3000]
    leaf = ProfitTreeClassifier(decision_matrix=data.decision_matrix, max_depth=6)
    case = ProfitTreeClassifier(decision_matrix=data.decision_matrix, max_depth=6,
                                decision_rule="case")
    return X, y, costs, leaf.fit(X, y, costs=costs), case.fit(X, y, costs=costs)


ROWS = [0, 7, 123, 2999]


def test_one_row_predict_and_decide_are_rows_of_the_table(bank):
    X, y, costs, leaf, case = bank
    proba, pred, res = leaf.predict_proba(X), leaf.predict(X), leaf.decide(X, y, costs=costs)
    case_res = case.decide(X, y, costs=costs)
    for i in ROWS:
        row = X.iloc[[i]]
        np.testing.assert_array_equal(leaf.predict_proba(row), proba[[i]])
        assert leaf.predict(row).tolist() == [pred[i]]
        one = leaf.decide(row, y.iloc[[i]], costs=costs.iloc[[i]])
        pd.testing.assert_frame_equal(one.cases, res.cases.iloc[[i]])
        assert one.summary.index.tolist() == res.summary.index.tolist()
        one = case.decide(row, y.iloc[[i]], costs=costs.iloc[[i]])
        pd.testing.assert_frame_equal(one.cases, case_res.cases.iloc[[i]])


def test_one_row_of_an_interval_tree():
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"x": rng.normal(size=400), "g": pd.Categorical(rng.choice(list("abc"), 400))})
    y = X["x"] * 3 + (X["g"] == "b") * 2 + rng.normal(size=400)
    m = DecisionMatrix({"buy": [-10.0, 10.0], "skip": [0.0, 0.0]}, knots=[-5.0, 5.0])
    tree = ProfitTreeRegressor(decision_matrix=m, max_depth=4).fit(X, y)
    pred, res = tree.predict(X), tree.decide(X, y)
    for i in (0, 5, 399):
        assert tree.predict(X.iloc[[i]]).tolist() == [pred[i]]
        pd.testing.assert_frame_equal(tree.decide(X.iloc[[i]], y.iloc[[i]]).cases,
                                      res.cases.iloc[[i]])


def test_summary_index_is_not_shared_between_results(bank):
    X, y, costs, leaf, _ = bank
    a = leaf.decide(X.iloc[[0]])
    a.summary.index.name = "renamed"
    b = leaf.decide(X.iloc[[0]])
    assert b.summary.index.name is None
    assert b.summary.dtype == np.float64 and b.summary.name == a.summary.name


def _error(call):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            call()
        except Exception as exc:  # the error itself is what is compared
            return type(exc), str(exc)
    return None


def _bad_frames(X):
    age_text = X.copy()
    age_text["age"] = age_text["age"].astype(str) + "y"
    inf = X.copy()
    inf["balance"] = inf["balance"].astype(float)
    inf.loc[inf.index[0], "balance"] = np.inf
    when = X.copy()
    when["age"] = pd.Timestamp("2020-01-01")
    return {
        "non-numeric values": age_text,
        "infinity": inf,
        "a date": when,
        "missing column": X.drop(columns="job"),
        "extra column": X.assign(extra=1.0),
        "reordered": X[X.columns[::-1]],
        "unseen label": X.assign(job=pd.Categorical(["astronaut"] * len(X))),
        "complex": X.assign(age=X["age"] + 1j),
    }


BAD = ["non-numeric values", "infinity", "a date", "missing column", "extra column",
       "reordered", "unseen label", "complex"]


@pytest.mark.parametrize("case", BAD)
def test_bad_input_gets_the_same_error_for_one_row_and_many(bank, case):
    X, y, costs, leaf, _ = bank
    bad = _bad_frames(X.iloc[:40])[case]
    strict = leaf.set_params(handle_unknown="error")
    try:
        for method in ("predict", "predict_proba", "decide"):
            call = getattr(strict, method)
            many = _error(lambda: call(bad))  # noqa: B023 (called at once)
            one = _error(lambda: call(bad.iloc[:1]))  # noqa: B023
            assert many is not None, (case, method)
            # the same error type and text; only the row counts of unseen labels differ
            assert one[0] is many[0]
            assert one[1].replace("1 of 1 rows", "40 of 40 rows") == many[1]
    finally:
        leaf.set_params(handle_unknown="warn")


def test_sparse_input_is_still_refused(bank):
    X, *_ , leaf, _ = bank
    codes = scipy.sparse.csr_matrix(np.ones((1, X.shape[1])))
    with pytest.raises(TypeError, match="Sparse input"):
        leaf.predict(codes)


LABELS = ["a", "b", "c", "d"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(LABELS + ["x", "y", None]), min_size=1, max_size=16),
       st.sampled_from(["object", "category", "str"]))
def test_few_row_label_counts_match_the_vectorised_count(values, kind):
    """Unseen and missing labels of a few rows, counted row by row, equal the bincount
    version: totals and unseen labels most frequent first, ties in label order."""
    _, enc = _encode.fit_encode(pd.DataFrame({"c": pd.Series(LABELS, dtype=object)}))
    col = pd.Series(values, dtype=object if kind == "object" else kind)
    columns = _encode._prepare(pd.DataFrame({"c": col}), enc, "T")
    few = columns.label_counts()
    saved = _encode._FEW_ROWS
    try:
        _encode._FEW_ROWS = 0
        assert columns.label_counts() == few
    finally:
        _encode._FEW_ROWS = saved
    n_unseen = sum(v in ("x", "y") for v in values)
    assert few["c"][:2] == (n_unseen, sum(v is None for v in values))


@pytest.mark.parametrize("dtype", ["Int64", "Float64", "object", "int32", "float32", "bool",
                                   "uint8"])
def test_one_row_of_every_column_kind_encodes_like_the_table(dtype):
    """The frame's own column arrays (numpy numbers, bool, Categorical) and the Series
    fallback (nullable, object) give the codes of the whole table, row by row."""
    values = {"Int64": [1, None, 3], "Float64": [1.5, None, -2.0], "object": [1, 2.5, None],
              "int32": [1, 2, 3], "float32": [1.5, np.nan, 3.0], "bool": [True, False, True],
              "uint8": [0, 200, 7]}[dtype]
    X = pd.DataFrame({"v": pd.Series(values, dtype=dtype),
                      "g": pd.Categorical(["p", None, "q"]), "t": ["u", "w", None]})
    _, enc = _encode.fit_encode(X)
    whole = _encode.encode(X, enc)
    for i in range(len(X)):
        np.testing.assert_array_equal(_encode.encode(X.iloc[[i]], enc), whole[[i]])


def test_a_case_read_from_json_with_a_missing_number(bank):
    """``pd.DataFrame([record])`` with None for a numeric input gives an object column
    of None: a missing value, scored as NaN, not refused as text."""
    X, y, costs, leaf, _ = bank
    record = X.iloc[0].to_dict()
    record["balance"] = None
    row = pd.DataFrame([record]).astype({c: X[c].dtype for c in X.columns
                                         if isinstance(X[c].dtype, pd.CategoricalDtype)})
    assert row["balance"].dtype == object
    expected = X.iloc[[0]].astype({"balance": float})
    expected.loc[expected.index[0], "balance"] = np.nan
    assert leaf.apply(row).tolist() == leaf.apply(expected).tolist()
    row["balance"] = "n/a"
    with pytest.raises(TypeError, match="'balance' was numeric at fit time"):
        leaf.predict(row)


def test_cost_columns_in_x_are_taken_out_by_name(bank):
    """Cost columns recorded at fit may sit anywhere in X: taken out by position, the
    same answers as X without them plus costs=, and the same as the frame's drop."""
    X, y, costs, leaf, case = bank
    fitted = ProfitTreeClassifier(decision_matrix=leaf.decision_matrix, max_depth=4,
                                  decision_rule="case").fit(X.join(costs), y)
    assert list(fitted.cost_features_) == ["contact_cost"]
    for frame in (X.join(costs), costs.join(X), X.iloc[:, :3].join(costs).join(X.iloc[:, 3:])):
        for rows in ([4], [1, 9, 30]):
            part = frame.iloc[rows]
            got = fitted.decide(part, y.iloc[rows])
            want = fitted.decide(part.drop(columns="contact_cost"), y.iloc[rows],
                                 costs=part[["contact_cost"]])
            pd.testing.assert_frame_equal(got.cases, want.cases)
            np.testing.assert_array_equal(fitted.apply(part), fitted.apply(X.iloc[rows]))
            assert (fitted.decision_path(part) != fitted.decision_path(X.iloc[rows])).nnz == 0
            assert fitted.predict_decision(part).tolist() == got.cases["D_y"].tolist()
    # the inputs are still checked by name: a renamed input is refused as before
    renamed = X.join(costs).rename(columns={"age": "AGE"}).iloc[[0]]
    with pytest.raises(ValueError, match="AGE"):
        fitted.predict(renamed)
    dup = X.iloc[:3].join(costs.iloc[:3])
    dup.columns = [*X.columns[:-1], "contact_cost", "contact_cost"]
    with pytest.raises(ValueError):
        fitted.decide(dup)


def test_cached_node_inputs_follow_the_tree_and_are_not_saved(bank, tmp_path):
    """The case rule's node inputs are cached per fitted tree: a refit, an edit of the
    matrix (redecide) or a pruned copy recompute them, and saved models leave them out."""
    import pickle

    from dtdecide.export import load, save

    X, y, costs, _, case = bank
    rows = X.iloc[:30]
    first = case.decide(rows, costs=costs.iloc[:30])
    assert case._node_inputs_cache[1] is case._case_node_inputs()  # cached
    for path in (save(case, tmp_path / "case.dtdecide"),):
        again = load(path)
        assert not hasattr(again, "_node_inputs_cache")
        pd.testing.assert_frame_equal(again.decide(rows, costs=costs.iloc[:30]).cases,
                                      first.cases)
    assert "_node_inputs_cache" not in pickle.loads(pickle.dumps(case)).__dict__
    other = case.decision_matrix_.replace(priors=[0.5, 0.5])
    moved = case.redecide(other)
    np.testing.assert_array_equal(moved._case_node_inputs(),
                                  moved._case_node_inputs(moved.tree_))
    refit = ProfitTreeClassifier(decision_matrix=case.decision_matrix, max_depth=2,
                                 decision_rule="case").fit(X, y, costs=costs)
    np.testing.assert_array_equal(refit._case_node_inputs(),
                                  refit._case_node_inputs(refit.tree_))


def test_cases_table_is_the_public_constructors_and_owns_its_column_index(bank):
    """The cases table built through the cached column Index equals the one pandas'
    public constructor builds from the same columns; renaming one result's columns
    leaves the next result alone."""
    X, y, costs, leaf, case = bank
    for res in (leaf.decide(X.iloc[:5], y.iloc[:5], costs=costs.iloc[:5]),
                case.decide(X.iloc[:1], costs=costs.iloc[:1])):
        cases = res.cases
        public = pd.DataFrame({c: cases[c].array for c in cases.columns}, index=cases.index)
        pd.testing.assert_frame_equal(cases, public, check_column_type=True)
        assert cases.columns.dtype == public.columns.dtype
    first = leaf.decide(X.iloc[:1])
    first.cases.columns.name = "renamed"
    first.cases.rename(columns={"D_y": "X"}, inplace=True)
    again = leaf.decide(X.iloc[:1])
    assert again.cases.columns.name is None and "D_y" in again.cases.columns
