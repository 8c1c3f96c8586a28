"""Raw inputs -> the float64 code matrix of the tree contract."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dtdecide.tree._encode import encode, fit_encode


def frame():
    return pd.DataFrame({
        "num": [1.5, np.nan, 3.0, 4.0],
        "cat": pd.Categorical(["u", "v", None, "u"], categories=["v", "u", "w"]),
        "flag": [True, False, True, True],
        "nflag": pd.array([True, None, False, True], dtype="boolean"),
        "text": pd.Series(["b", "a", None, "b"], dtype="string"),
        "obj": ["x", "y", "x", None],
        "int": pd.array([1, 2, None, 4], dtype="Int64"),
        "numobj": pd.Series([1, 2.5, None, 4], dtype=object),
    })


def test_kinds_and_categories():
    codes, enc = fit_encode(frame())
    assert enc.feature_names.tolist() == list(frame().columns)
    assert enc.feature_names.dtype == object
    assert enc.is_categorical.tolist() == [False, True, True, True, True, True, False, False]
    assert enc.categories[1].tolist() == ["v", "u", "w"]  # dtype order, unused kept
    assert enc.categories[2].tolist() == [False, True]
    assert enc.categories[4].tolist() == ["a", "b"]  # sorted
    assert enc.categories[0] is None
    assert codes.dtype == np.float64
    np.testing.assert_array_equal(codes[:, 0], [1.5, np.nan, 3.0, 4.0])
    np.testing.assert_array_equal(codes[:, 1], [1, 0, np.nan, 1])
    np.testing.assert_array_equal(codes[:, 2], [1, 0, 1, 1])
    np.testing.assert_array_equal(codes[:, 3], [1, np.nan, 0, 1])
    np.testing.assert_array_equal(codes[:, 4], [1, 0, np.nan, 1])
    np.testing.assert_array_equal(codes[:, 5], [0, 1, 0, np.nan])
    np.testing.assert_array_equal(codes[:, 6], [1, 2, np.nan, 4])
    np.testing.assert_array_equal(codes[:, 7], [1, 2.5, np.nan, 4])


def test_unseen_categories_become_nan_and_order_is_by_label():
    _, enc = fit_encode(frame())
    new = frame().iloc[[3, 2, 1, 0]].reset_index(drop=True)
    new["obj"] = ["zzz", "y", None, "x"]
    new["cat"] = pd.Categorical(["w", "u", "v", "v"])  # other categories, same labels
    codes = encode(new, enc)
    np.testing.assert_array_equal(codes[:, 5], [np.nan, 1, np.nan, 0])
    np.testing.assert_array_equal(codes[:, 1], [2, 1, 0, 0])


def test_numpy_arrays_are_numeric_and_named_x():
    X = np.array([[1, 2], [3, 4]])
    codes, enc = fit_encode(X)
    assert enc.feature_names.tolist() == ["x0", "x1"]
    assert not enc.has_names
    np.testing.assert_array_equal(codes, X.astype(float))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(encode(X, enc), codes)


def test_numpy_object_array_with_strings_is_categorical():
    X = np.array([["a", 1.0], ["b", 2.0], ["a", np.nan]], dtype=object)
    codes, enc = fit_encode(X)
    assert enc.is_categorical.tolist() == [True, False]
    np.testing.assert_array_equal(codes, [[0, 1], [1, 2], [0, np.nan]])


def test_object_array_with_a_dict_raises_type_error():
    X = np.ones((3, 2), dtype=object)
    X[0, 0] = {"foo": "bar"}
    with pytest.raises(TypeError, match="argument must be"):
        fit_encode(X)


def test_column_count_and_name_errors():
    _, enc = fit_encode(frame())
    with pytest.raises(ValueError, match="X has 7 features, but E is expecting 8"):
        encode(np.zeros((2, 7)), enc, estimator_name="E")
    bad = frame().rename(columns={"num": "other"})
    with pytest.raises(ValueError, match="unseen at fit time:\n- other"):
        encode(bad, enc)
    with pytest.raises(ValueError, match="same order"):
        encode(frame()[frame().columns[::-1]], enc)
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        encode(frame().to_numpy(), enc)


def test_numeric_fit_then_text_at_predict_raises():
    _, enc = fit_encode(pd.DataFrame({"a": [1.0, 2.0]}))
    with pytest.raises(TypeError, match="'a' was numeric at fit"):
        encode(pd.DataFrame({"a": ["x", "y"]}), enc)


@pytest.mark.parametrize(
    "X, match",
    [
        (np.zeros((0, 3)), "0 sample"),
        (np.zeros((3, 0)), r"0 feature\(s\)"),
        (np.array([[1.0, np.inf]]), "infinity"),
        (np.array([[1 + 2j]]), "Complex data not supported"),
        (np.zeros(3), "2D"),
        (pd.DataFrame({"d": pd.to_datetime(["2020-01-01"])}), "datetime"),
    ],
)
def test_bad_inputs(X, match):
    with pytest.raises((ValueError, TypeError), match=match):
        fit_encode(X)


def test_sparse_input_raises():
    from scipy import sparse

    with pytest.raises(TypeError, match="[Ss]parse"):
        fit_encode(sparse.csr_matrix(np.eye(3)))


@settings(max_examples=40, deadline=None)
@given(
    labels=st.lists(st.sampled_from(["a", "b", "c", None]), min_size=1, max_size=30),
    new=st.lists(st.sampled_from(["a", "b", "c", "d", None]), min_size=1, max_size=30),
)
def test_codes_decode_back_to_labels(labels, new):
    _, enc = fit_encode(pd.DataFrame({"s": pd.Series(labels, dtype=object)}))
    cats = enc.categories[0]
    codes = encode(pd.DataFrame({"s": pd.Series(new, dtype=object)}), enc)[:, 0]
    for value, code in zip(new, codes):
        if value is None or value not in set(labels):
            assert np.isnan(code)
        else:
            assert cats[int(code)] == value
