"""Raw inputs -> the float64 code matrix of the tree contract."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dtdecide.tree._structure._encode import encode, fit_encode


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


# --------------------------------------------------------------------------------------
# The column-at-a-time encoder against a slow, obvious per-value twin


def _is_missing(v):
    return v is None or v is pd.NA or (isinstance(v, float) and np.isnan(v))


def slow_encode(frame, enc):
    """Per value: NaN when missing, the float for numeric inputs, else the position of
    the first training category equal to the value (NaN when there is none)."""
    n, p = frame.shape
    out = np.full((n, p), np.nan)
    for j in range(p):
        cats = enc.categories[j]
        for i, v in enumerate(frame.iloc[:, j].tolist()):
            if _is_missing(v):
                continue
            if cats is None:
                out[i, j] = float(v)
                continue
            for k, c in enumerate(cats):
                if c == v:
                    out[i, j] = k
                    break
    return out


LABELS = ["a", "b", "c", "d", "e"]
INT_LABELS = [3, 10, 7, 1]


def _categorical_column(draw, pool, n, how):
    """``n`` values from ``pool`` (plus None) held as ``how`` says."""
    values = draw(st.lists(st.sampled_from([*pool, None]), min_size=n, max_size=n))
    if how == "object":
        return pd.Series(values, dtype=object)
    if how == "str":
        return pd.Series(values, dtype="str")
    if how == "string":
        return pd.Series(values, dtype="string")
    # category dtype: categories in a drawn order, possibly with extra unused ones
    extra = draw(st.lists(st.sampled_from(["zz", "yy"] if isinstance(pool[0], str) else [99, 98]),
                          unique=True, max_size=2))
    order = draw(st.permutations([*pool, *extra]))
    return pd.Series(pd.Categorical(values, categories=order))


def _bool_column(draw, n, nullable):
    if nullable:
        values = draw(st.lists(st.sampled_from([True, False, None]), min_size=n, max_size=n))
        return pd.Series(pd.array(values, dtype="boolean"))
    return pd.Series(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=bool)


@st.composite
def frame_pairs(draw):
    """A training frame and a scoring frame with the same columns: the scoring frame may
    hold unseen labels and represent each categorical column differently."""
    n_fit = draw(st.integers(1, 25))
    n_new = draw(st.integers(1, 25))
    how = st.sampled_from(["object", "str", "string", "category"])
    floats = st.one_of(st.none(), st.floats(-1e6, 1e6, allow_nan=False))
    fit, new = {}, {}
    # categorical text labels; scoring sees the whole pool (unseen labels included)
    fit["text"] = _categorical_column(draw, LABELS[:3], n_fit, draw(how))
    new["text"] = _categorical_column(draw, LABELS, n_new, draw(how))
    # categorical integer labels (a category dtype at fit), numbers or objects later
    fit["icat"] = _categorical_column(draw, INT_LABELS[:3], n_fit, "category")
    new_icat = draw(st.lists(st.sampled_from(INT_LABELS), min_size=n_new, max_size=n_new))
    new["icat"] = (
        pd.Series(new_icat, dtype=np.int64) if draw(st.booleans())
        else _categorical_column(draw, INT_LABELS, n_new, draw(st.sampled_from(["object", "category"])))
    )
    fit["flag"] = _bool_column(draw, n_fit, draw(st.booleans()))
    new["flag"] = _bool_column(draw, n_new, draw(st.booleans()))
    # numeric inputs: float with NaN, numpy integers, nullable integers
    for data, n in ((fit, n_fit), (new, n_new)):
        data["num"] = pd.Series(
            draw(st.lists(floats, min_size=n, max_size=n)), dtype=float
        )
        data["int"] = pd.Series(draw(st.lists(st.integers(-5, 5), min_size=n, max_size=n)))
        data["nint"] = pd.Series(
            pd.array(draw(st.lists(st.one_of(st.none(), st.integers(-3, 3)), min_size=n,
                                   max_size=n)), dtype="Int64")
        )
    return pd.DataFrame(fit), pd.DataFrame(new)


@settings(max_examples=60, deadline=None)
@given(pair=frame_pairs())
def test_encode_equals_per_value_reference(pair):
    fit_frame, new_frame = pair
    codes_fit, enc = fit_encode(fit_frame)
    assert enc.is_categorical.tolist() == [True, True, True, False, False, False]
    np.testing.assert_array_equal(codes_fit, slow_encode(fit_frame, enc))
    # column-major: every column written contiguously, as the binner reads it
    assert codes_fit.flags.f_contiguous
    codes = encode(new_frame, enc)
    assert codes.dtype == np.float64 and codes.shape == new_frame.shape
    np.testing.assert_array_equal(codes, slow_encode(new_frame, enc))


@settings(max_examples=40, deadline=None)
@given(
    fit_labels=st.lists(st.sampled_from(["p", "q", "r", "s"]), min_size=1, max_size=20),
    new_labels=st.lists(st.sampled_from(["p", "q", "r", "s", "t", None]), min_size=1,
                        max_size=20),
    numbers=st.lists(st.one_of(st.none(), st.integers(-9, 9)), min_size=20, max_size=20),
)
def test_numpy_object_arrays_equal_per_value_reference(fit_labels, new_labels, numbers):
    def as_array(labels):
        X = np.empty((len(labels), 2), dtype=object)
        X[:, 0] = labels
        X[:, 1] = [np.nan if v is None else v for v in numbers[: len(labels)]]
        X[0, 1] = 0.5  # at least one number: an all-missing object column is categorical
        return X

    _, enc = fit_encode(as_array(fit_labels))
    assert enc.is_categorical.tolist() == [True, False]
    assert not enc.has_names  # x0, x1 are made-up names: no feature-name warnings
    X_new = as_array(new_labels)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        codes = encode(X_new, enc)
    np.testing.assert_array_equal(codes, slow_encode(pd.DataFrame(X_new), enc))


def test_category_dtype_with_other_order_and_extra_categories():
    _, enc = fit_encode(pd.DataFrame({"c": pd.Categorical(["x", "y"], categories=["y", "x"])}))
    new = pd.Categorical(["x", "w", None, "y", "v"], categories=["v", "w", "x", "y"])
    codes = encode(pd.DataFrame({"c": new}), enc)[:, 0]
    np.testing.assert_array_equal(codes, [1, np.nan, np.nan, 0, np.nan])
    # same categories in the same order: the codes pass straight through
    same = pd.Categorical(["x", None, "y"], categories=["y", "x"])
    np.testing.assert_array_equal(encode(pd.DataFrame({"c": same}), enc)[:, 0], [1, np.nan, 0])


def test_labels_match_by_python_equality_whatever_the_dtype():
    # a bool input scored with 0/1 integers, int categories scored with floats
    _, enc = fit_encode(pd.DataFrame({"b": [True, False],
                                      "k": pd.Categorical([1, 2], categories=[2, 1, 3])}))
    new = pd.DataFrame({"b": [1, 0, 2], "k": [1.0, 3.0, np.nan]})
    np.testing.assert_array_equal(encode(new, enc), [[1, 1], [0, 2], [np.nan, np.nan]])


def test_encode_copies_frames_and_keeps_float_arrays():
    frame = pd.DataFrame({"a": [1.0, 2.0], "b": [3, 4]})
    _, enc = fit_encode(frame)
    codes = encode(frame, enc)
    codes[:] = -1.0
    assert frame["a"].tolist() == [1.0, 2.0]  # the result never aliases the frame
    one_block = pd.DataFrame(np.array([[1.0, 2.0], [3.0, 4.0]]), columns=["a", "b"])
    _, enc = fit_encode(one_block)
    encode(one_block, enc)[:] = -1.0
    assert one_block["a"].tolist() == [1.0, 3.0]  # not even a frame of one float block
    X = np.asfortranarray([[1.0, 2.0], [3.0, np.nan]])
    _, enc = fit_encode(X)
    out = encode(X, enc)
    np.testing.assert_array_equal(out, X)
    assert out.dtype == np.float64


@pytest.mark.parametrize(
    "column, error, match",
    [
        (pd.Series([1.0, np.inf]), ValueError, "infinity in column 'f'"),
        (pd.array([1.0, -np.inf], dtype="Float64"), ValueError, "infinity in column 'f'"),
        (pd.Series([1.0, "x"], dtype=object), TypeError, "'f' was numeric at fit"),
        (pd.Series(["1", "2"], dtype="str"), TypeError, "'f' was numeric at fit"),
    ],
)
def test_bad_numeric_columns_at_scoring(column, error, match):
    _, enc = fit_encode(pd.DataFrame({"s": ["a", "b"], "f": [1.0, 2.0]}))
    with pytest.raises(error, match=match):
        encode(pd.DataFrame({"s": ["a", "b"], "f": column}), enc)


def test_unhashable_values_in_a_categorical_column_raise_type_error():
    _, enc = fit_encode(pd.DataFrame({"s": ["a", "b"]}))
    with pytest.raises(TypeError, match="X column 's' is categorical.*unhashable"):
        encode(pd.DataFrame({"s": pd.Series([{"a": 1}, "a"], dtype=object)}), enc)


def test_no_categories_at_all_encode_as_missing():
    # an all-missing text column has no categories: every value is unseen
    _, enc = fit_encode(pd.DataFrame({"s": pd.Series([None, None], dtype=object), "f": [1, 2]}))
    assert enc.categories[0].size == 0
    codes = encode(pd.DataFrame({"s": pd.Series(["a", None], dtype=object), "f": [1, 2]}), enc)
    np.testing.assert_array_equal(codes, [[np.nan, 1], [np.nan, 2]])


@settings(max_examples=15, deadline=None)
@given(pair=frame_pairs(), seed=st.integers(0, 2**16))
def test_tree_scoring_equals_apply_on_reference_codes(pair, seed):
    from dtdecide import ProfitTreeClassifier

    fit_frame, new_frame = pair
    rng = np.random.default_rng(seed)
    y = rng.choice(["u", "v", "w"], size=len(fit_frame))
    tree = ProfitTreeClassifier(max_depth=4, min_samples_leaf=1, min_samples_split=2)
    tree.fit(fit_frame, y)
    reference = slow_encode(new_frame, tree._encoding)
    leaves = tree.tree_.apply(np.ascontiguousarray(reference))
    np.testing.assert_array_equal(tree.apply(new_frame), leaves)
    proba = tree.predict_proba(new_frame)
    np.testing.assert_array_equal(proba, tree.node_posteriors_[leaves])
    np.testing.assert_array_equal(tree.predict(new_frame),
                                  tree.classes_[np.argmax(proba, axis=1)])


@settings(max_examples=30, deadline=None)
@given(pair=frame_pairs(), block_rows=st.integers(1, 7))
def test_block_scoring_equals_apply_on_the_whole_matrix(pair, block_rows):
    from dtdecide.tree._structure._encode import encode_apply

    fit_frame, new_frame = pair
    _, enc = fit_encode(fit_frame)
    blocks = []

    def row_sums(block):  # any row-wise function; records the blocks it was given
        blocks.append(block.shape[0])
        return np.nansum(block * np.arange(1, block.shape[1] + 1), axis=1)

    out = encode_apply(new_frame, enc, row_sums, block_rows=block_rows)
    np.testing.assert_array_equal(out, row_sums(slow_encode(new_frame, enc)))
    n = len(new_frame)
    expected = [n] if n <= block_rows else [block_rows] * (n // block_rows) + (
        [n % block_rows] if n % block_rows else [])
    assert blocks[:-1] == expected


def test_block_scoring_checks_every_column_before_scoring():
    from dtdecide.tree._structure._encode import encode_apply

    _, enc = fit_encode(pd.DataFrame({"s": ["a", "b"], "f": [1.0, 2.0]}))
    calls = []
    bad = pd.DataFrame({"s": ["a"] * 10, "f": [1.0] * 9 + [np.inf]})
    with pytest.raises(ValueError, match="infinity in column 'f'"):
        encode_apply(bad, enc, calls.append, block_rows=2)
    assert calls == []  # nothing was scored before the error


def test_block_rows_must_be_positive():
    from dtdecide.tree._structure._encode import encode_apply

    _, enc = fit_encode(pd.DataFrame({"s": ["a", "b"]}))
    with pytest.raises(ValueError, match="block_rows must be a positive integer; got 0"):
        encode_apply(pd.DataFrame({"s": ["a"]}), enc, len, block_rows=0)


def test_estimator_scores_in_blocks_like_one_matrix(monkeypatch):
    from dtdecide import DecisionMatrix, ProfitTreeClassifier
    from dtdecide.tree._structure import _encode

    rng = np.random.default_rng(3)
    n = 300
    X = pd.DataFrame({
        "num": np.where(rng.random(n) < 0.1, np.nan, rng.normal(size=n)),
        "cat": pd.Categorical(rng.choice(["a", "b", "c", None], n)),
        "txt": pd.Series(rng.choice(["u", "v", "w"], n), dtype="str"),
    })
    y = np.where((X["num"].fillna(0) > 0) ^ (X["cat"] == "a"), "yes", "no")
    m = DecisionMatrix({"call": [10.0, -1.0], "skip": [0.0, 0.0]}, levels=["yes", "no"])
    tree = ProfitTreeClassifier(decision_matrix=m, max_depth=4, min_samples_leaf=2).fit(X, y)
    X_new = X.assign(txt=pd.Series(rng.choice(["u", "v", "zz"], n), dtype="str"))
    whole = tree.tree_.apply(slow_encode(X_new, tree._encoding))
    monkeypatch.setattr(_encode, "SCORE_BLOCK_ROWS", 7)  # 43 blocks, the last one short
    np.testing.assert_array_equal(tree.apply(X_new), whole)
    res = tree.decide(X_new, y)
    assert res.cases["D_target"].tolist() == [tree.decisions_[d] for d in
                                              tree.tree_.node_decision[whole]]
    np.testing.assert_array_equal(tree.predict_decision(X_new), res.cases["D_target"])


def test_fit_encode_is_column_major_and_exact(monkeypatch):
    from dtdecide.tree._structure import _encode

    rng = np.random.default_rng(5)
    n = 50
    X = pd.DataFrame({
        "f32": rng.normal(size=n).astype(np.float32),
        "u8": rng.integers(0, 255, n).astype(np.uint8),
        "cat": pd.Categorical(rng.choice(["p", "q", None], n)),
        "obj": pd.Series(rng.choice(["k", "l", "m"], n), dtype=object),
    })
    monkeypatch.setattr(_encode, "SCORE_BLOCK_ROWS", 8)
    codes, enc = fit_encode(X)
    assert codes.flags.f_contiguous
    np.testing.assert_array_equal(codes, slow_encode(X, enc))
    np.testing.assert_array_equal(codes[:, 0], X["f32"].to_numpy().astype(np.float64))
    np.testing.assert_array_equal(encode(X, enc), codes)


def test_fit_encode_copies_no_float64_input():
    """A float64 array in either order, or a frame of one float64 block, is used in
    place: fitting needs no second copy of the input."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    X[3, 1] = np.nan
    for arr in (X, np.asfortranarray(X)):
        codes, _ = fit_encode(arr)
        assert np.shares_memory(codes, arr)
    frame = pd.DataFrame(np.asfortranarray(X), columns=["a", "b", "c"])
    codes, enc = fit_encode(frame)
    assert np.shares_memory(codes, frame["a"].to_numpy())
    np.testing.assert_array_equal(codes, slow_encode(frame, enc))
    mixed = frame.assign(d=np.arange(40))  # two blocks: written once, column-major
    codes, enc = fit_encode(mixed)
    assert codes.flags.f_contiguous and not np.shares_memory(codes, X)
    np.testing.assert_array_equal(codes, slow_encode(mixed, enc))
    with pytest.raises(ValueError, match="infinity"):
        fit_encode(frame.assign(a=np.where(np.arange(40) == 5, np.inf, X[:, 0])))


@settings(max_examples=20, deadline=None)
@given(pair=frame_pairs(), block_rows=st.integers(1, 5), n_jobs=st.sampled_from([2, 3, -1]))
def test_threaded_block_scoring_equals_one_thread(pair, block_rows, n_jobs):
    # each thread encodes and routes its own rows; the outputs are in row order
    from dtdecide.tree._structure._encode import encode_apply

    fit_frame, new_frame = pair
    _, enc = fit_encode(fit_frame)

    def row_sums(block):
        return np.nansum(block * np.arange(1, block.shape[1] + 1), axis=1)

    out = encode_apply(new_frame, enc, row_sums, block_rows=block_rows, n_jobs=n_jobs)
    np.testing.assert_array_equal(out, row_sums(slow_encode(new_frame, enc)))


@pytest.mark.parametrize("kernels", ["numpy", "compiled"])
@pytest.mark.parametrize("as_array", [False, True])
def test_estimator_scores_on_threads_like_one_thread(monkeypatch, kernels, as_array):
    # n_jobs=2 splits the rows of predict/decide between threads: the same leaves and the
    # same decisions, with the caller's kernel setting in force on the workers
    from dtdecide import DecisionMatrix, ProfitTreeClassifier, config_context
    from dtdecide.tree._structure import _encode

    rng = np.random.default_rng(5)
    n = 400
    X = pd.DataFrame({
        "num": np.where(rng.random(n) < 0.1, np.nan, rng.normal(size=n)),
        "num2": rng.normal(size=n),
    })
    if not as_array:
        X["cat"] = pd.Categorical(rng.choice(["a", "b", "c", None], n))
    y = np.where((X["num"].fillna(0) > 0) ^ (X["num2"] > 0.3), "yes", "no")
    m = DecisionMatrix({"call": [10.0, -1.0], "skip": [0.0, 0.0]}, levels=["yes", "no"])
    X_new = X.to_numpy() if as_array else X
    tree = ProfitTreeClassifier(decision_matrix=m, max_depth=4, min_samples_leaf=2).fit(
        X_new, y)
    one = tree.decide(X_new).cases
    leaves = tree.apply(X_new)
    monkeypatch.setattr(_encode, "SCORE_BLOCK_ROWS", 16)  # 25 blocks over two threads
    seen = []
    apply = tree.tree_.apply

    def spy(block, *args, **kwargs):
        from dtdecide._jit import kernels_mode

        seen.append(kernels_mode())
        return apply(block, *args, **kwargs)

    monkeypatch.setattr(tree.tree_, "apply", spy, raising=False)
    with config_context(kernels=kernels):
        threaded = tree.set_params(n_jobs=2)
        np.testing.assert_array_equal(threaded.apply(X_new), leaves)
        pd.testing.assert_frame_equal(threaded.decide(X_new).cases, one)
    assert seen and set(seen) == {kernels}


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_one_float_block_is_routed_in_place_like_its_columns(n_jobs):
    # a frame of one float64 block is scored from its own memory; the same numbers in
    # other layouts (several blocks, another column order, float32) take the per-column
    # fill and must give the same outputs
    from dtdecide.tree._structure._encode import _prepare, encode_apply

    rng = np.random.default_rng(0)
    values = rng.normal(size=(5_000, 3))
    values[rng.random(values.shape) < 0.05] = np.nan
    one = pd.DataFrame(values, columns=["a", "b", "c"])
    _, enc = fit_encode(one)
    whole = _prepare(one, enc, "e", in_place=True)
    assert isinstance(whole, np.ndarray) and np.shares_memory(whole, one["a"].to_numpy())
    split = one.copy()
    split["b"] = split["b"].astype(np.float32).astype(np.float64)  # its own block
    split.loc[:, "b"] = one["b"]
    assert not isinstance(_prepare(split, enc, "e", in_place=True), np.ndarray)

    def route(block):
        b = np.nan_to_num(block, nan=7.0)  # elementwise: the same bits in any layout
        return b[:, 0] + 10.0 * b[:, 1] + 100.0 * b[:, 2]

    expected = route(values.copy())
    for frame in (one, split):
        got = encode_apply(frame, enc, route, block_rows=1_000, n_jobs=n_jobs)
        np.testing.assert_array_equal(got, expected)
    with pytest.raises(ValueError, match="infinity in column 'c'"):
        bad = one.copy()
        bad.iloc[3, 2] = np.inf
        encode_apply(bad, enc, route, n_jobs=n_jobs)
    # the threads look for infinity block by block; the error names the first column
    # holding one, as the column-by-column check does, whichever block saw it first
    bad.iloc[4_500, 0] = -np.inf
    for frame in (bad, bad.assign(b=bad["b"].astype(np.float32))):
        with pytest.raises(ValueError, match="infinity in column 'a'"):
            encode_apply(frame, enc, route, block_rows=1_000, n_jobs=n_jobs)


@pytest.mark.parametrize("n_jobs", [None, 2])
@pytest.mark.parametrize("block_rows", [3, 1000])
@pytest.mark.parametrize("kind", ["frame", "mixed", "array"])
def test_encode_apply_out_dtypes_writes_each_output_in_row_order(kind, block_rows, n_jobs):
    """With ``out_dtypes`` the tuple of outputs of every block lands at the block's rows:
    the same arrays as ``apply`` on the whole code matrix, whatever the blocks and
    threads."""
    from dtdecide.tree._structure._encode import encode_apply

    rng = np.random.default_rng(3)
    X = pd.DataFrame({"a": rng.normal(size=20), "b": rng.normal(size=20)})
    if kind == "mixed":
        X["job"] = rng.choice(["x", "y"], size=20)
    _, enc = fit_encode(X)
    data = X.to_numpy() if kind == "array" else X

    def two(block):
        return block[:, 0] * 2.0, (block[:, 1] > 0).astype(np.int8)

    whole = encode(data, enc)
    got = encode_apply(data, enc, two, block_rows=block_rows, n_jobs=n_jobs,
                       out_dtypes=(np.float64, np.int8))
    assert got[0].dtype == np.float64 and got[1].dtype == np.int8
    np.testing.assert_array_equal(got[0], whole[:, 0] * 2.0)
    np.testing.assert_array_equal(got[1], (whole[:, 1] > 0).astype(np.int8))
