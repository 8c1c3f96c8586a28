"""The native model format: every estimator round-trips exactly, nothing runs on load,
and every damaged, foreign or mismatched file gets an error naming it."""

import io
import json
import zipfile

import joblib
import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.tree import DecisionTreeClassifier

import dtdecide
from dtdecide import DecisionEstimator, DecisionMatrix, ProfitTreeClassifier, ProfitTreeRegressor
from dtdecide.export import ModelFileError, leaf_table, load, save
from dtdecide.export._native import ALLOWED_CLASSES, MANIFEST
from dtdecide.models import (
    BenefitWeightedLogisticRegression,
    CostSensitiveNaiveBayes,
    FlatCostSensitiveClassifier,
    HierarchicalCostSensitiveClassifier,
)

N = 400


def _data(seed=0, n=N):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(
        {
            "age": rng.normal(40, 10, n),
            "income": np.where(rng.random(n) < 0.1, np.nan, rng.gamma(2.0, 20.0, n)),
            "job": pd.Series(rng.choice(["admin", "tech", "o'neil", None], n), dtype=object),
            "region": rng.choice([1, 2, 3], n),  # integer-coded category? numeric here
        },
        index=pd.RangeIndex(100, 100 + n),
    )
    X["job"] = X["job"].astype("category")
    score = (X["age"] - 40) / 10 + (X["job"] == "tech") + rng.normal(0, 1, n)
    return X, score, rng


def _same_decisions(a, b, X, y=None, costs=None):
    pd.testing.assert_frame_equal(
        a.decide(X, y, costs=costs).cases, b.decide(X, y, costs=costs).cases, check_exact=True
    )


def _round_trip(model, tmp_path, name="m.dtdecide"):
    path = save(model, tmp_path / name)
    again = load(path)
    assert type(again) is type(model)
    return again


def _assert_tree_identical(a, b, X, y=None, costs=None):
    assert a.tree_ == b.tree_
    assert np.array_equal(a.apply(X), b.apply(X))
    np.testing.assert_array_equal(a.predict(X), b.predict(X))
    if hasattr(a, "predict_proba"):
        np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    if a.decision_matrix_ is not None:
        _same_decisions(a, b, X, y, costs)
        pd.testing.assert_frame_equal(
            leaf_table(a, X, y, costs=costs), leaf_table(b, X, y, costs=costs), check_exact=True
        )
    assert a.get_params(deep=False).keys() == b.get_params(deep=False).keys()


CLASSIFIER_CASES = ["binary", "nominal", "ordinal", "priors", "cost_variables",
                    "case_specific", "plain", "pruned", "ccp_alpha", "int_levels"]


def _classifier_case(case):
    X, score, rng = _data()
    y = pd.Series(np.where(score > 0.5, "yes", "no"), index=X.index, name="bought")
    costs = None
    params = dict(max_depth=4, min_samples_leaf=10, random_state=0)
    if case in ("binary", "pruned", "ccp_alpha"):
        m = DecisionMatrix([[0.0, -1.0], [0.0, 9.0]], levels=["no", "yes"],
                           decisions=["ignore", "mail"])
    elif case in ("nominal", "ordinal"):
        y = pd.Series(pd.cut(score, [-np.inf, -0.5, 0.8, np.inf], labels=["lo", "mid", "hi"])
                      .astype(str), index=X.index, name="band")
        m = DecisionMatrix([[3.0, 0.0, -2.0], [0.0, 3.0, 0.0], [-2.0, 0.0, 3.0]],
                           levels=["lo", "mid", "hi"], decisions=["a", "b", "c"])
        params["ordinal"] = case == "ordinal"
    elif case == "priors":
        m = DecisionMatrix([[0.0, -1.0], [0.0, 9.0]], levels=["no", "yes"],
                           decisions=["ignore", "mail"], priors=[0.8, 0.2])
    elif case == "cost_variables":
        m = DecisionMatrix({"mail": [0.0, 30.0], "ignore": [0.0, 0.0]}, levels=["no", "yes"],
                           kind="revenue", costs={"mail": "mail_cost"})
        costs = pd.DataFrame({"mail_cost": rng.uniform(0.5, 3.0, N)}, index=X.index)
    elif case == "case_specific":
        m = DecisionMatrix.case_specific(levels=[0, 1], decisions=["predict 1", "predict 0"],
                                         kind="loss")
        y = pd.Series((score > 0.5).astype(int), index=X.index, name="fraud")
        cm = np.column_stack([rng.uniform(1, 5, N), rng.uniform(5, 50, N),
                              np.ones(N), np.zeros(N)])
        costs = cm
    elif case == "int_levels":
        y = pd.Series((score > 0.5).astype(np.int64), index=X.index, name="y")
        m = DecisionMatrix([[0.0, -1.0], [0.0, 9.0]], levels=[0, 1], decisions=["no", "go"])
    else:  # plain: no decision matrix
        m = None
    est = ProfitTreeClassifier(decision_matrix=m, **params)
    if case == "ccp_alpha":
        est.set_params(ccp_alpha=0.01)
    est.fit(X, y, costs=costs)
    if case == "pruned":
        est = est.prune(n_leaves=3)
    return est, X, y, costs


@pytest.mark.parametrize("case", CLASSIFIER_CASES)
def test_classifier_round_trip(case, tmp_path):
    est, X, y, costs = _classifier_case(case)
    again = _round_trip(est, tmp_path)
    _assert_tree_identical(est, again, X, y, costs)
    # pruning still works from the stored statistics
    if est.decision_matrix_ is not None and est.get_n_leaves() > 2:
        assert again.prune(n_leaves=2).tree_ == est.prune(n_leaves=2).tree_
    # unseen data and categories decide the same
    X2 = X.iloc[:50].copy()
    X2["job"] = X2["job"].cat.add_categories(["new"])
    X2.iloc[:5, X2.columns.get_loc("job")] = "new"
    np.testing.assert_array_equal(est.apply(X2), again.apply(X2))


@pytest.mark.parametrize("with_matrix", [True, False])
def test_regressor_round_trip(with_matrix, tmp_path):
    X, score, _ = _data(1)
    y = pd.Series(200 + 80 * score, index=X.index, name="spend")
    m = (DecisionMatrix([[0.0, -5.0], [0.0, 20.0]], knots=[0.0, 500.0], decisions=["a", "b"])
         if with_matrix else None)
    est = ProfitTreeRegressor(decision_matrix=m, max_depth=3, min_samples_leaf=20).fit(X, y)
    again = _round_trip(est, tmp_path)
    _assert_tree_identical(est, again, X, y)


def test_label_types_are_kept(tmp_path):
    """Object labels of mixed types (str, int, float, bool, None, NaN, timestamps)."""
    rng = np.random.default_rng(3)
    labels = np.array(["a", 1, 2.5, True, pd.Timestamp("2024-05-01 12:00"),
                       pd.Timestamp("2024-05-01", tz="Europe/Paris"), np.int64(7), "7"],
                      dtype=object)
    X = pd.DataFrame({"c": pd.Series(rng.choice(labels, 300), dtype=object),
                      "x": rng.normal(size=300)})
    X.loc[::17, "c"] = None
    y = np.where(rng.random(300) < 0.5, "yes", "no")
    est = ProfitTreeClassifier(max_depth=3, min_samples_leaf=5).fit(X, y)
    again = _round_trip(est, tmp_path)
    for a, b in zip(est.categories_, again.categories_):
        if a is None:
            assert b is None
            continue
        assert [type(v) for v in a] == [type(v) for v in b]
        assert all((u is v) or u == v or (u != u and v != v) for u, v in zip(a, b))
    assert [getattr(v, "tz", None) for v in est.categories_[0]] == \
        [getattr(v, "tz", None) for v in again.categories_[0]]
    np.testing.assert_array_equal(est.apply(X), again.apply(X))


def test_generic_walk_keeps_new_attributes(tmp_path):
    """Attributes the format has never heard of round-trip with their types and identity."""
    est, X, y, _ = _classifier_case("binary")
    arr = np.arange(6, dtype=np.int32).reshape(2, 3)
    est.decision_rule_ = "case"
    est.exact_gap_ = float("nan")
    est.search_bounds_ = {"lower": -np.inf, "upper": 2.5, 3: (1, [2, None])}
    est._new_private = arr
    est.same_again_ = arr
    est.labels_ = np.array(["x", "yz"])
    est.flags_ = {frozenset({1, 2}), "s"}
    est.when_ = pd.Timestamp("2025-01-02 03:04:05.123456789")
    est.span_ = pd.Timedelta("1 days 02:00:00")
    est.missing_ = (pd.NaT, pd.NA, np.float32(0.1), np.datetime64("2024-01-01", "D"))
    est.blob_ = b"\x00\xff"
    est.rng_ = np.random.RandomState(5)
    again = _round_trip(est, tmp_path)
    assert again.decision_rule_ == "case"
    assert np.isnan(again.exact_gap_)
    assert again.search_bounds_ == {"lower": -np.inf, "upper": 2.5, 3: (1, [2, None])}
    assert again._new_private.dtype == np.int32
    np.testing.assert_array_equal(again._new_private, arr)
    assert again.same_again_ is again._new_private
    assert again.labels_.dtype == est.labels_.dtype
    assert again.flags_ == est.flags_
    assert again.when_ == est.when_ and again.when_.unit == est.when_.unit
    assert again.span_ == est.span_
    assert again.missing_[0] is pd.NaT and again.missing_[1] is pd.NA
    assert type(again.missing_[2]) is np.float32 and again.missing_[2] == np.float32(0.1)
    assert again.missing_[3] == est.missing_[3] and again.missing_[3].dtype == est.missing_[3].dtype
    assert again.blob_ == b"\x00\xff"
    assert again.rng_.randint(1000) == np.random.RandomState(5).randint(1000)
    _assert_tree_identical(est, again, X, y)


def test_what_cannot_be_held_is_named(tmp_path):
    est, *_ = _classifier_case("binary")
    est.callback_ = print
    with pytest.raises(TypeError, match=r"model\.callback_.*function or other callable"):
        save(est, tmp_path / "m.dtdecide")
    del est.callback_
    est.frame_ = pd.DataFrame({"a": [1]})
    with pytest.raises(TypeError, match=r"model\.frame_.*pandas.*DataFrame.*format='joblib'"):
        save(est, tmp_path / "m.dtdecide")


def test_decision_estimator(tmp_path):
    X, score, _ = _data(2)
    Xn = X[["age"]].assign(income=X["income"].fillna(0.0))
    y = np.where(score > 0.5, "buyer", "other")
    m = DecisionMatrix({"mail": [9, -1], "skip": [0, 0]}, levels=["buyer", "other"])
    est = DecisionEstimator(LogisticRegression(), m).fit(Xn, y)
    again = _round_trip(est, tmp_path)
    _same_decisions(est, again, Xn, y)
    inner_tree = DecisionEstimator(ProfitTreeClassifier(max_depth=3), m).fit(X, y)
    _same_decisions(inner_tree, _round_trip(inner_tree, tmp_path, "t.dtdecide"), X, y)
    unheld = DecisionEstimator(DecisionTreeClassifier(max_depth=2), m).fit(Xn, y)
    with pytest.raises(TypeError, match=r"model\.estimator.*DecisionTreeClassifier"):
        save(unheld, tmp_path / "u.dtdecide")
    # the opt-in pickle holds it
    path = save(unheld, tmp_path / "u.joblib", format="joblib")
    _same_decisions(unheld, load(path, allow_pickle=True), Xn, y)


def _blobs():
    from sklearn.datasets import make_blobs

    return make_blobs([150, 30, 30], centers=[[0, 0], [2, 0], [0, 2]], random_state=0)


@pytest.mark.parametrize("make", [
    lambda: BenefitWeightedLogisticRegression(benefit_matrix=[[1, -1], [-2, 4]]),
    lambda: FlatCostSensitiveClassifier(cost_dh=10, random_state=0),
    lambda: HierarchicalCostSensitiveClassifier(cost_dh=10, random_state=0),
    lambda: HierarchicalCostSensitiveClassifier(benefit_weighted=True, random_state=0),
    lambda: CostSensitiveNaiveBayes(cost_matrix=[[0, 1, 1], [5, 0, 1], [5, 1, 0]]),
], ids=["benefit_lr", "flat", "hierarchical", "hierarchical_benefit", "naive_bayes"])
def test_models_round_trip(make, tmp_path):
    X, y = _blobs()
    model = make()
    if isinstance(model, BenefitWeightedLogisticRegression):
        y = (y > 0).astype(int)
    model.fit(X, y)
    again = _round_trip(model, tmp_path)
    np.testing.assert_array_equal(model.predict(X), again.predict(X))
    np.testing.assert_array_equal(model.predict_proba(X), again.predict_proba(X))


# ----------------------------------------------------------------------------- safety
def _tree_file(tmp_path):
    est, X, y, _ = _classifier_case("binary")
    return est, X, save(est, tmp_path / "m.dtdecide")


def _rewrite(path, edit_manifest=None, edit_member=None):
    with zipfile.ZipFile(path) as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    manifest = json.loads(members[MANIFEST])
    if edit_manifest:
        edit_manifest(manifest)
    members[MANIFEST] = json.dumps(manifest).encode()
    if edit_member:
        edit_member(members)
    with zipfile.ZipFile(path, "w") as zf:
        for n, data in members.items():
            zf.writestr(n, data)


def test_file_naming_a_function_is_refused(tmp_path):
    _, _, path = _tree_file(tmp_path)

    def evil(manifest):
        manifest["model"]["state"]["criterion"] = {
            "t": "object", "class": "dtdecide.export.save", "id": 999, "state": {}}

    _rewrite(path, evil)
    with pytest.raises(ModelFileError, match=r"m\.dtdecide.*refusing to create "
                                             r"'dtdecide\.export\.save'"):
        load(path)
    assert "dtdecide.cli.main" not in ALLOWED_CLASSES


def test_object_array_member_is_refused(tmp_path):
    _, _, path = _tree_file(tmp_path)

    def evil(members):
        buf = io.BytesIO()
        np.save(buf, np.array([print], dtype=object), allow_pickle=True)
        members["arrays/0.npy"] = buf.getvalue()

    _rewrite(path, edit_member=evil)
    with pytest.raises(ModelFileError, match=r"m\.dtdecide.*arrays/0\.npy.*cannot be read"):
        load(path)


def test_tampered_tree_arrays_are_refused(tmp_path):
    est, _, path = _tree_file(tmp_path)
    with zipfile.ZipFile(path) as zf:
        manifest = json.loads(zf.read(MANIFEST))
    member = manifest["model"]["state"]["_full_tree_"]["state"]["children_left"]["file"]

    def corrupt(members):
        left = est.tree_.children_left.copy()
        left[0] = 0  # the root pointing at itself
        buf = io.BytesIO()
        np.save(buf, left)
        members[member] = buf.getvalue()

    _rewrite(path, edit_member=corrupt)
    with pytest.raises(ModelFileError, match="corrupted TreeStructure"):
        load(path)


@pytest.mark.parametrize("what", ["empty", "truncated", "csv", "zip", "garbage", "format",
                                  "version", "tag", "json", "deep"])
def test_bad_files_are_named(what, tmp_path):
    est, _, path = _tree_file(tmp_path)
    data = path.read_bytes()
    expected = {
        "empty": "is empty", "truncated": "not a readable dtdecide model file",
        "csv": "holds text", "zip": "without dtdecide-model.json",
        "garbage": "looks like a pickle", "format": "format version 99",
        "version": "was written by dtdecide 0.0.1", "tag": "unknown entry type 'lambda'",
        "json": "cannot be read", "deep": "cannot be read|nested too deeply",
    }[what]
    if what == "empty":
        path.write_bytes(b"")
    elif what == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif what == "csv":
        path.write_text("age,job\n30,admin\n")
    elif what == "zip":
        with zipfile.ZipFile(path, "w") as zf:
            zf.writestr("data.csv", "a,b\n")
    elif what == "garbage":
        path.write_bytes(bytes(range(256)) * 4)
    elif what == "format":
        _rewrite(path, lambda m: m.update(format_version=99))
    elif what == "version":
        _rewrite(path, lambda m: m.update(dtdecide_version="0.0.1"))
    elif what == "tag":
        _rewrite(path, lambda m: m["model"]["state"].update(max_depth={"t": "lambda"}))
    elif what == "json":
        _rewrite(path, edit_member=lambda members: members.update({MANIFEST: b"{not json"}))
    elif what == "deep":
        deep = b'{"format": "dtdecide-model", "format_version": 1, "dtdecide_version": "' + \
            dtdecide.__version__.encode() + b'", "model": ' + \
            b'{"t": "tuple", "items": [' * 100_000 + b"]}" * 100_000 + b"}"
        _rewrite(path, edit_member=lambda members: members.update({MANIFEST: deep}))
    with pytest.raises(ModelFileError, match=expected) as info:
        load(path)
    assert str(path) in str(info.value)
    assert isinstance(info.value, ValueError)


def test_pickles_need_the_opt_in(tmp_path):
    est, X, y, _ = _classifier_case("binary")
    with pytest.raises(ValueError, match="format='joblib'"):
        save(est, tmp_path / "m.joblib")
    path = save(est, tmp_path / "m.joblib", format="joblib")
    with pytest.raises(ModelFileError, match=r"m\.joblib.*runs whatever code.*allow_pickle"):
        load(path)
    with pytest.raises(ModelFileError, match="allow_pickle"):
        load(path, format="joblib")
    _assert_tree_identical(est, load(path, allow_pickle=True), X, y)
    with pytest.raises(TypeError, match="allow_pickle"):
        load(path, allow_pickle="yes")


def test_old_pickle_lacking_an_attribute_fails_on_load(tmp_path):
    """An earlier release wrote the bare estimator; a newer private attribute is missing."""
    est, X, *_ = _classifier_case("binary")
    del est._encoding
    path = tmp_path / "old.joblib"
    joblib.dump(est, path)
    with pytest.raises(ModelFileError, match=r"old\.joblib.*without dtdecide's version record"):
        load(path, allow_pickle=True)
    # a pickle from another release is named with both versions
    joblib.dump({"format": "dtdecide-pickle", "format_version": 1,
                 "dtdecide_version": "0.0.1", "model": est}, path)
    with pytest.raises(ModelFileError, match=rf"dtdecide 0\.0\.1.*{dtdecide.__version__}"):
        load(path, allow_pickle=True)


def test_save_creates_the_folder(tmp_path):
    est, *_ = _classifier_case("plain")
    path = save(est, tmp_path / "new" / "deeper" / "m.dtdecide")
    assert load(path).get_n_leaves() == est.get_n_leaves()


# ----------------------------------------------------------------------------- skops
def _json_node(value):
    return {"__class__": "str", "__module__": "builtins", "__loader__": "JsonNode",
            "content": json.dumps(value), "is_json": True, "__id__": id(value)}


def _crafted_skops(path, module, name, args):
    """A skops file whose loading calls ``module.name(*args)`` (a "constructor")."""
    items = [_json_node(a) if not isinstance(a, list) else
             {"__class__": "list", "__module__": "builtins", "__loader__": "ListNode",
              "content": [_json_node(v) for v in a], "__id__": id(a)} for a in args]
    schema = {
        "__class__": name, "__module__": module, "__loader__": "ConstructorFromReduceNode",
        "content": {"__class__": "tuple", "__module__": "builtins", "__loader__": "TupleNode",
                    "content": items, "__id__": 1},
        "__id__": 4, "protocol": 2, "_skops_version": "0.16.0",
    }
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("schema.json", json.dumps(schema))
    return path


def test_skops_file_calling_package_functions_is_refused(tmp_path):
    pytest.importorskip("skops")
    target = tmp_path / "written_by_the_file.txt"
    demo_dir = tmp_path / "demo_by_the_file"
    cases = [
        ("dtdecide.export._persist", "save", ["anything", str(target)]),
        ("dtdecide.export", "save", ["anything", str(target)]),
        ("dtdecide.cli", "main", [["demo", "--output", str(demo_dir), "--quiet"]]),
    ]
    for module, name, args in cases:
        path = _crafted_skops(tmp_path / f"{name}.skops", module, name, args)
        with pytest.raises(ValueError, match=rf"not trusted: \['{module}\.{name}'\]"):
            load(path)
    assert not target.exists() and not demo_dir.exists()


def test_skops_round_trip_trusts_only_data_classes(tmp_path):
    pytest.importorskip("skops")
    est, X, y, costs = _classifier_case("cost_variables")
    again = load(save(est, tmp_path / "m.skops"))
    _assert_tree_identical(est, again, X, y, costs)


# ----------------------------------------------------------------------------- property
def _same(a, b):
    """Equal with the same types all the way down (NaN equals NaN)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        if a.dtype != b.dtype or a.shape != b.shape:
            return False
        if a.dtype == object:
            return all(_same(u, v) for u, v in zip(a.ravel(), b.ravel()))
        return np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(u, v) for u, v in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (float, np.floating)) and a != a:
        return b != b
    return a == b


def _values():
    from hypothesis import strategies as st

    scalars = st.one_of(
        st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.text(max_size=5),
        st.floats(allow_nan=True, allow_infinity=True),
        st.integers(-100, 100).map(np.int64), st.floats(width=32).map(np.float32),
        st.booleans().map(np.bool_),
    )
    arrays = st.one_of(
        st.lists(st.floats(), max_size=6).map(lambda v: np.array(v, dtype=float)),
        st.lists(st.integers(-5, 5), max_size=6).map(lambda v: np.array(v, dtype=np.int16)),
        st.lists(st.text(max_size=3), max_size=4).map(lambda v: np.array(v, dtype=str)),
        st.lists(st.one_of(st.text(max_size=3), st.integers(-9, 9), st.none(),
                           st.floats(allow_nan=True)), max_size=5)
        .map(lambda v: np.array(v + [object()], dtype=object)[:-1]),
    )
    return st.recursive(
        st.one_of(scalars, arrays),
        lambda inner: st.one_of(
            st.lists(inner, max_size=3), st.lists(inner, max_size=3).map(tuple),
            st.dictionaries(st.one_of(st.text(max_size=3), st.integers(-3, 3)), inner,
                            max_size=3),
        ),
        max_leaves=8,
    )


def test_generic_walk_round_trips_any_plain_value(tmp_path_factory):
    from hypothesis import given, settings

    from dtdecide.export._native import read_model, write_model

    folder = tmp_path_factory.mktemp("walk")

    @settings(max_examples=60, deadline=None)
    @given(value=_values())
    def check(value):
        path = folder / "v.dtdecide"
        write_model(value, path, dtdecide_version="x")
        assert _same(value, read_model(path, dtdecide_version="x"))

    check()
