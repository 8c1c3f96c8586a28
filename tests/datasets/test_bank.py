"""Tests of the bundled bank-marketing data set."""

import hashlib
from importlib import resources

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dtdecide.datasets import _bank, load_bank_marketing, split_labels

N_ROWS = 45211


@pytest.fixture(scope="module")
def bank():
    return load_bank_marketing()


def _splitmix64_reference(x):
    """Plain-Python splitmix64 finaliser, the obvious twin of the vectorised one."""
    mask = (1 << 64) - 1
    z = (x + 0x9E3779B97F4A7C15) & mask
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    return z ^ (z >> 31)


def test_shapes_and_names(bank):
    assert bank.frame.shape == (N_ROWS, 18)
    assert bank.data.shape == (N_ROWS, 11)
    assert list(bank.data.columns) == bank.feature_names
    assert bank.target.name == bank.target_name == "y"
    assert list(bank.costs.columns) == bank.cost_names == ["contact_cost"]
    assert bank.split is None
    assert len(bank.split_labels) == N_ROWS


def test_leaking_columns_are_not_inputs(bank):
    for column in ("duration", "campaign", "contact", "day", "month", "y", "contact_cost"):
        assert column not in bank.feature_names
        assert column in bank.frame.columns


def test_dtypes(bank):
    categorical = {"job", "marital", "education", "default", "housing", "loan", "poutcome"}
    for name in bank.feature_names:
        dtype = bank.data[name].dtype
        if name in categorical:
            assert isinstance(dtype, pd.CategoricalDtype), name
        else:
            assert dtype == np.int64, name
    assert list(bank.target.cat.categories) == ["no", "yes"]
    for name in ("default", "housing", "loan"):
        assert list(bank.data[name].cat.categories) == ["no", "yes"]
    # nothing was lost when turning labels into categories
    assert not bank.frame.drop(columns=["contact_cost"]).isna().any().any()


def test_values_match_the_raw_file(bank):
    raw = pd.read_csv(
        resources.files("dtdecide.datasets").joinpath("data", "bank-full.csv.gz"), sep=";"
    )
    for column in raw.columns:
        assert (bank.frame[column].astype(object).to_numpy() == raw[column].to_numpy()).all()
    assert int((raw["y"] == "yes").sum()) == int((bank.target == "yes").sum()) == 5289


def test_contact_cost_formula(bank):
    expected = _bank.COST_PER_CALL * bank.frame["campaign"].to_numpy(dtype=float)
    np.testing.assert_array_equal(bank.costs["contact_cost"].to_numpy(), expected)
    assert bank.costs["contact_cost"].min() >= 1.0


def test_split_is_stratified_disjoint_and_complete(bank):
    parts = {name: load_bank_marketing(split=name) for name in ("train", "validation", "test")}
    indexes = [set(p.frame.index) for p in parts.values()]
    assert sum(len(ix) for ix in indexes) == N_ROWS
    assert set().union(*indexes) == set(range(N_ROWS))
    for name, part in parts.items():
        assert (part.split_labels == name).all()
        for level, n_level in (("yes", 5289), ("no", N_ROWS - 5289)):
            share = _bank.SPLIT_SHARES[name]
            assert abs((part.target == level).sum() - share * n_level) <= 1
        # same rows, values and dtypes as the full frame (DataFrame.equals checks dtypes)
        assert part.frame.equals(bank.frame.loc[part.frame.index])


def test_split_is_reproducible_and_pinned(bank):
    again = load_bank_marketing(split="validation")
    assert again.frame.equals(load_bank_marketing(split="validation").frame)
    # The default split must never change between versions: its digest is pinned here.
    digest = hashlib.sha256("".join(x[0] for x in bank.split_labels).encode()).hexdigest()
    assert digest[:16] == "66e1e4d739bba165"


def test_other_random_state_gives_another_split(bank):
    other = load_bank_marketing(random_state=1)
    assert (other.split_labels != bank.split_labels).mean() > 0.3
    assert other.split_labels.value_counts().to_dict() == bank.split_labels.value_counts().to_dict()


def test_vectorised_hash_matches_reference():
    values = np.array([0, 1, 2, 12345, 2**63, 2**64 - 1], dtype=np.uint64)
    got = _bank._splitmix64(values)
    assert [int(v) for v in got] == [_splitmix64_reference(int(v)) for v in values]


def test_array_output(bank):
    X, y = load_bank_marketing(as_frame=False, return_X_y=True, split="test")
    part = load_bank_marketing(split="test")
    assert X.dtype == np.float64 and X.shape == part.data.shape
    assert set(y) == {"no", "yes"} and y.dtype == object
    job_col = part.feature_names.index("job")
    labels = part.categories["job"][X[:, job_col].astype(int)]
    assert (labels == part.data["job"].astype(object).to_numpy()).all()
    np.testing.assert_array_equal(X[:, 0], part.data["age"].to_numpy(dtype=float))


def test_descr_has_attribution_and_reasons(bank):
    for text in ("Moro", "CC BY 4.0", "duration", "campaign", "contact_cost", "50 %"):
        assert text in bank.DESCR
    readme = resources.files("dtdecide.datasets").joinpath("data", "README.md").read_text()
    assert "CC BY 4.0" in readme and "Moro" in readme


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"split": "valid"}, ValueError, "split must be"),
        ({"as_frame": "yes"}, TypeError, "as_frame must be a bool"),
        ({"return_X_y": 1}, TypeError, "return_X_y must be a bool"),
        ({"random_state": -1}, ValueError, "random_state must be a non-negative int"),
        ({"random_state": np.random.RandomState(0)}, TypeError, "random_state must be"),
        ({"random_state": True}, TypeError, "random_state must be"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    with pytest.raises(error, match=match):
        load_bank_marketing(**kwargs)


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.sampled_from("abc"), min_size=1, max_size=200),
    st.integers(min_value=0, max_value=2**40),
)
def test_split_labels_properties(y, seed):
    labels = split_labels(y, random_state=seed)
    assert labels.shape == (len(y),)
    assert set(labels) <= {"train", "validation", "test"}
    y = np.asarray(y)
    for level in set(y):
        n_level = int((y == level).sum())
        in_level = labels[y == level]
        assert (in_level == "train").sum() == int(round(0.5 * n_level))
        assert (in_level == "validation").sum() == int(round(0.25 * n_level))
    np.testing.assert_array_equal(labels, split_labels(list(y), random_state=seed))


def test_split_labels_rejects_missing():
    with pytest.raises(ValueError, match="y must not contain missing"):
        split_labels(["a", None])


def test_decision_matrix(bank):
    matrix = bank.decision_matrix
    assert matrix.kind == "revenue"
    assert matrix.decisions == ("contact", "do nothing")
    assert list(matrix.levels) == ["no", "yes"]
    assert matrix.costs == {"contact": "contact_cost"}
    np.testing.assert_array_equal(matrix.values, [[0.0, 0.0], [_bank.REVENUE_PER_SUBSCRIBER, 0.0]])


def test_consequences_by_hand(bank):
    from dtdecide.decision import decide

    # three clients: a subscriber called 3 times, a non-subscriber called twice, and a
    # client called 20 times or more; equal posteriors make the first two "contact".
    rows = [
        bank.frame.index[(bank.frame["campaign"] == 3) & (bank.target == "yes")][0],
        bank.frame.index[(bank.frame["campaign"] == 2) & (bank.target == "no")][0],
        bank.frame.index[(bank.frame["campaign"] >= 20)][0],
    ]
    post = pd.DataFrame({"no": [0.5, 0.5, 0.5], "yes": [0.5, 0.5, 0.5]})
    result = decide(
        post,
        bank.decision_matrix,
        y=bank.target.loc[rows].to_numpy(),
        costs=bank.costs.loc[rows].reset_index(drop=True),
        target_name="y",
    )
    cases = result.cases
    # expected profit of contact = 0.5 * 30 - cost; do nothing = 0
    assert list(cases["D_y"]) == ["contact", "contact", "do nothing"]
    np.testing.assert_allclose(cases["EP_y"], [15 - 3, 15 - 2, 0.0])
    np.testing.assert_allclose(cases["CP_y"], [30 - 3, -2, 0.0])
    np.testing.assert_allclose(cases["IC_y"], [3, 2, 0])
    np.testing.assert_allclose(cases["ROI_y"].iloc[:2], [27 / 3, -1.0])


def test_returned_data_are_copies():
    first = load_bank_marketing(split="test")
    first.frame.loc[first.frame.index[0], "age"] = -1
    first.data.loc[first.data.index[0], "balance"] = -10**6
    first.split_labels.iloc[0] = "changed"
    again = load_bank_marketing(split="test")
    assert again.frame["age"].min() >= 18 and again.data["balance"].min() > -10**6
    assert (again.split_labels == "test").all()
