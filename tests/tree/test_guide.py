"""guide_model: the split search of criterion="profit" on a guide's cross-fitted
expected profit (leaf figures, decisions and pruning from the cases' own outcomes)."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.utils._param_validation import InvalidParameterError

from dtdecide import DecisionMatrix, ProfitTreeClassifier
from dtdecide.tree import fit_recommended, recommended_candidates
from dtdecide.tree._estimator._guide import guide_posteriors

MATRIX = DecisionMatrix.from_cost_matrix(levels=("good", "bad"))
SPLIT_FIELDS = ("children_left", "children_right", "feature", "threshold")


def _data(n=900, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.integers(0, 5, n).astype(float),
                      "c": pd.Categorical(rng.choice(["u", "v", "w"], n)),
                      "id": np.arange(n, dtype=float)})
    p = 1 / (1 + np.exp(-(-0.8 + 1.5 * X["a"] + 0.6 * (X["c"] == "w"))))
    y = pd.Series(np.where(rng.random(n) < p, "bad", "good"), name="y")
    amount = rng.lognormal(2.0, 0.8, n)
    costs = pd.DataFrame({"C_FP": 0.3 * amount, "C_FN": amount, "C_TP": 0.0, "C_TN": 0.0})
    return X, y, costs


def _tree(**params):
    base = dict(decision_matrix=MATRIX, criterion="profit", max_depth=4, min_samples_leaf=10,
                random_state=0)
    return ProfitTreeClassifier(**(base | params))


class _Oracle(ClassifierMixin, BaseEstimator):
    """Posteriors one-hot on the label hidden in column ``leak``: the realised outcome."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict_proba(self, X):
        leak = np.asarray(X["leak"], dtype=int)
        return (leak[:, None] == self.classes_[None, :]).astype(float)


class _Recorder(ClassifierMixin, BaseEstimator):
    """Remembers the ids it was fitted on (class attribute ``fitted``); scores a case 1.0
    for "bad" if it saw that case, 0.5 otherwise."""

    fitted = []

    def fit(self, X, y, sample_weight=None):
        self.classes_ = np.unique(y)
        self.seen_ = set(np.asarray(X["id"]).tolist())
        _Recorder.fitted.append(self.seen_)
        return self

    def predict_proba(self, X):
        saw = np.array([i in self.seen_ for i in np.asarray(X["id"])])
        p = np.where(saw, 1.0, 0.5)
        return np.column_stack([1 - p, p])


class _Sure(ClassifierMixin, BaseEstimator):
    """Every case "bad" with probability 0.02, whatever the data say."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict_proba(self, X):
        return np.tile([0.98, 0.02], (len(X), 1))


class _Shares(ClassifierMixin, BaseEstimator):
    """The training shares of the levels, for every case."""

    def fit(self, X, y):
        self.classes_, counts = np.unique(y, return_counts=True)
        self.share_ = counts / counts.sum()
        return self

    def predict_proba(self, X):
        return np.tile(self.share_, (len(X), 1))


def test_an_oracle_guide_grows_the_unguided_tree():
    # posteriors one-hot on the realised level: the expected profit is the realised one
    X, y, costs = _data()
    X = X.assign(leak=(y == "bad").astype(float))
    plain = _tree().fit(X, y, costs=costs)
    guided = _tree(guide_model=_Oracle()).fit(X, y, costs=costs)
    for field in SPLIT_FIELDS:
        np.testing.assert_array_equal(getattr(guided.tree_, field), getattr(plain.tree_, field))
    np.testing.assert_array_equal(guided.predict_decision(X), plain.predict_decision(X))


def test_every_case_is_scored_by_a_guide_that_did_not_see_it():
    X, y, costs = _data(n=300)
    tree = _tree(guide_model=_Recorder(), guide_cv=4)
    tree.classes_ = np.array(["good", "bad"])
    target = (y == "bad").to_numpy().astype(np.int8)
    _Recorder.fitted = []
    post = guide_posteriors(tree, X, target, np.ones(len(y)), slice(None))
    assert len(_Recorder.fitted) == 4
    np.testing.assert_array_equal(post, 0.5)  # never a case the fold's copy saw
    # the folds cover every row once, stratified by level
    held = [set(range(300)) - seen for seen in _Recorder.fitted]
    assert sorted(i for h in held for i in h) == list(range(300))
    assert all(abs(np.mean(target[list(h)]) - target.mean()) < 0.02 for h in held)


def test_honest_growing_cross_fits_the_guide_on_the_growing_rows_only():
    X, y, costs = _data(n=400)
    _Recorder.fitted = []
    tree = _tree(guide_model=_Recorder(), honest_fraction=0.5).fit(X, y, costs=costs)
    estimating = set(tree.honest_rows_.tolist())
    assert _Recorder.fitted and all(not (seen & estimating) for seen in _Recorder.fitted)


def test_posteriors_are_adjusted_to_the_matrix_priors():
    X, y, costs = _data(n=500)
    matrix = DecisionMatrix.from_cost_matrix(levels=("good", "bad"), priors=[0.9, 0.1])
    tree = _tree(decision_matrix=matrix, guide_model=_Shares())
    tree.classes_ = np.array(["good", "bad"])
    target = (y == "bad").to_numpy().astype(np.int8)
    post = guide_posteriors(tree, X, target, np.ones(len(y)), slice(None), priors=[0.9, 0.1])
    # each fold's shares are within a case of the whole's; adjusted, the priors
    np.testing.assert_allclose(post, np.tile([0.9, 0.1], (len(y), 1)), atol=0.01)
    raw = guide_posteriors(tree, X, target, np.ones(len(y)), slice(None))
    np.testing.assert_allclose(raw.mean(axis=0), [1 - target.mean(), target.mean()],
                               atol=0.01)


def test_a_level_the_guide_never_saw_gets_posterior_zero():
    X, y, costs = _data(n=300)
    matrix = DecisionMatrix({"accept": [1.0, -5.0, 0.0], "refuse": [0.0, 0.0, 0.0]},
                            levels=["good", "bad", "fraud"])
    tree = _tree(decision_matrix=matrix, guide_model=_Shares())
    tree.classes_ = np.array(["good", "bad", "fraud"])
    target = (y == "bad").to_numpy().astype(np.int8)
    post = guide_posteriors(tree, X, target, np.ones(len(y)), slice(None))
    assert post.shape == (300, 3) and np.all(post[:, 2] == 0)
    fitted = _tree(decision_matrix=matrix, guide_model=_Shares()).fit(X, y)
    assert fitted.get_n_leaves() >= 1


def test_leaves_decide_on_the_expected_profit_of_their_cases():
    # cost rows (case-specific consequences), no priors: each leaf takes the decision
    # with the largest sum of its training cases' expected profit under the guide
    X, y, costs = _data()
    tree = _tree(guide_model=_Sure(), max_depth=3).fit(X, y, costs=costs)
    target = (y == "bad").to_numpy().astype(np.int8)
    post = guide_posteriors(tree, X, target, np.ones(len(y)), slice(None))
    cons = MATRIX.resolve(costs.to_numpy(), n_samples=len(y))
    expected = cons.expected(post)  # (cases, decisions), profit orientation
    leaves = tree.apply(X)
    decisions = tree.predict_decision(X)
    realised = cons.q_actual(target)
    differ = 0
    for leaf in np.unique(leaves):
        rows = leaves == leaf
        best = np.argmax(expected[rows].sum(axis=0))
        assert set(decisions[rows]) == {MATRIX.decisions[best]}
        differ += best != np.argmax(realised[rows].sum(axis=0))
    # a 2 % risk is worth accepting (0.02 C_FN < 0.98 C_FP with C_FP = 0.3 C_FN): every
    # leaf accepts, where the realised profit refuses the riskier ones
    assert set(decisions) == {"predict 0"} and differ > 0


def test_other_matrices_decide_on_the_realised_profit():
    from dtdecide.tree._estimator._guide import guided_leaf_consequences

    X, y, costs = _data(n=200)
    post = np.full((200, 2), 0.5)
    priced = DecisionMatrix.from_cost_matrix(levels=("good", "bad"), priors=[0.8, 0.2])
    cons = priced.resolve(costs.to_numpy(), n_samples=200)
    assert guided_leaf_consequences(cons, post, priced) is cons
    additive = DecisionMatrix({"call": [0.0, 10.0], "skip": [0.0, 0.0]},
                              levels=["good", "bad"], kind="revenue", costs={"call": "c"})
    cons = additive.resolve({"c": np.ones(200)}, n_samples=200)
    assert guided_leaf_consequences(cons, post, additive) is cons
    cons = MATRIX.resolve(costs.to_numpy(), n_samples=200)
    leaf = guided_leaf_consequences(cons, post, MATRIX)
    target = (y == "bad").to_numpy().astype(np.int8)
    np.testing.assert_allclose(leaf.q_actual(target), cons.expected(post))
    np.testing.assert_allclose(leaf.q_actual(1 - target), cons.expected(post))


def test_the_guided_tree_keeps_its_leaf_figures_from_the_outcomes():
    X, y, costs = _data()
    guided = _tree(guide_model=LogisticRegression(), max_depth=3).fit(X.drop(columns="c"), y,
                                                                       costs=costs)
    leaves = guided.apply(X.drop(columns="c"))
    bad = guided.predict_proba(X.drop(columns="c"))[:, list(guided.classes_).index("bad")]
    assert np.unique(leaves).size > 1
    for leaf in np.unique(leaves):
        share = (y[leaves == leaf] == "bad").mean()
        np.testing.assert_allclose(bad[leaves == leaf], share)


def test_the_same_tree_for_any_n_jobs():
    X, y, costs = _data()
    trees = [_tree(guide_model=HistGradientBoostingClassifier(max_iter=20, random_state=0),
                   n_jobs=k).fit(X, y, costs=costs) for k in (1, 2)]
    for field in SPLIT_FIELDS:
        np.testing.assert_array_equal(getattr(trees[0].tree_, field),
                                      getattr(trees[1].tree_, field))


@pytest.mark.parametrize("params, pattern", [
    ({"criterion": "gini"}, "criterion='gini'"),
    ({"decision_rule": "case"}, "decision_rule='case'"),
    ({"search": "exact"}, "search='exact'"),
    ({"ordinal": True, "decision_matrix": DecisionMatrix(
        {"low": [1.0, 0.0], "high": [0.0, 1.0]}, levels=["good", "bad"])}, "ordinal"),
])
def test_guide_model_outside_the_profit_search_is_refused(params, pattern):
    X, y, costs = _data(n=200)
    tree = _tree(guide_model=LogisticRegression(), **params)
    with pytest.raises(ValueError, match="guide_model") as info:
        tree.fit(X.drop(columns="c"), y, costs=costs if "decision_matrix" not in params
                 else None)
    assert pattern in str(info.value)


def test_bad_guide_parameters():
    X, y, costs = _data(n=200)
    with pytest.raises(InvalidParameterError, match="guide_model"):
        _tree(guide_model=object()).fit(X, y, costs=costs)
    with pytest.raises(InvalidParameterError, match="guide_cv"):
        _tree(guide_model=LogisticRegression(), guide_cv=1).fit(X, y, costs=costs)
    few = y.copy()
    few[:] = "good"
    few.iloc[:3] = "bad"
    with pytest.raises(ValueError, match="guide_cv=5: the rarest level has 3"):
        _tree(guide_model=LogisticRegression()).fit(X.drop(columns="c"), few, costs=costs)


def test_case_frequencies_need_a_guide_that_takes_them():
    X, y, costs = _data(n=200)
    w = np.full(len(y), 2.0)
    with pytest.raises(ValueError, match="_Oracle.fit takes no sample_weight"):
        _tree(guide_model=_Oracle()).fit(X.assign(leak=0.0), y, costs=costs,
                                         sample_weight=w)
    _Recorder.fitted = []
    _tree(guide_model=_Recorder()).fit(X, y, costs=costs, sample_weight=w)
    assert len(_Recorder.fitted) == 5


def test_fit_recommended_compares_a_guided_candidate():
    X, y, costs = _data(n=600)
    X = X.drop(columns=["c", "id"])
    guide = LogisticRegression()
    cands = recommended_candidates(_tree(), guide_model=guide)
    assert [c.get("guide_model") for c in cands] == [None, None, guide]
    best, results = fit_recommended(_tree(), X, y, costs=costs, guide_model=guide,
                                    random_state=0, return_results=True)
    assert len(results) == 3 and results["chosen"].sum() == 1
    assert results["guide_model"].iloc[2] is guide
    # a guided tree to tune: its guide is the third candidate's, the others grow without
    own = recommended_candidates(_tree(guide_model=guide))
    assert [c["guide_model"] for c in own] == [None, None, guide]
    best = fit_recommended(_tree(guide_model=guide), X, y, costs=costs, random_state=0)
    assert best.get_params()["guide_model"] is None or isinstance(
        best.get_params()["guide_model"], LogisticRegression)
    with pytest.raises(ValueError, match="guide_model adds a candidate"):
        fit_recommended(_tree(), X, y, costs=costs, guide_model=guide,
                        candidates=[{"criterion": "gini"}])
    with pytest.raises(ValueError, match="leaf rule"):
        recommended_candidates(_tree(decision_rule="case"), guide_model=guide)


def test_dask_fit_refuses_a_guide():
    dd = pytest.importorskip("dask.dataframe")
    X, y, costs = _data(n=200)
    X = X.drop(columns="c")
    tree = _tree(guide_model=LogisticRegression())
    with pytest.raises(NotImplementedError, match="guide_model"):
        tree.fit(dd.from_pandas(X, npartitions=2), dd.from_pandas(y, npartitions=2),
                 costs=dd.from_pandas(costs, npartitions=2))


def test_a_guided_tree_saves_in_the_safe_format(tmp_path):
    from dtdecide.export import load, save

    X, y, costs = _data(n=300)
    guide = HistGradientBoostingClassifier(max_iter=10, categorical_features="from_dtype",
                                           random_state=0)
    tree = _tree(guide_model=guide, max_depth=3).fit(X, y, costs=costs)
    save(tree, tmp_path / "guided.dtdecide")
    again = load(tmp_path / "guided.dtdecide")
    assert again.get_params()["guide_model"].get_params() == guide.get_params()
    np.testing.assert_array_equal(again.predict_decision(X), tree.predict_decision(X))
    # a guide fitted in place (never the tree's own doing) is refused by name
    fitted = HistGradientBoostingClassifier(max_iter=3).fit(X[["a", "b"]], y)
    tree.set_params(guide_model=fitted)
    with pytest.raises(TypeError, match="guide_model"):
        save(tree, tmp_path / "fitted_guide.dtdecide")


def test_the_guide_reads_text_columns_as_categories():
    X, y, costs = _data(n=300)
    X = X.assign(c=X["c"].astype(str), d=X["c"].astype("string"))
    seen = {}

    class _Dtypes(_Shares):
        def fit(self, X, y):
            seen.update({str(k): str(v) for k, v in X.dtypes.items()})
            return super().fit(X, y)

    _tree(guide_model=_Dtypes()).fit(X, y, costs=costs)
    assert seen["c"] == "category" and seen["d"] == "category" and seen["a"] == "float64"
    # a boosting guide on text columns (from_dtype: categories)
    hgb = HistGradientBoostingClassifier(max_iter=10, categorical_features="from_dtype")
    assert _tree(guide_model=hgb).fit(X, y, costs=costs).get_n_leaves() >= 1


def test_a_guide_pipeline_with_preprocessing_saves_in_the_safe_format(tmp_path):
    """A guide that encodes and imputes before its classifier (ColumnTransformer,
    OneHotEncoder with its NumPy dtype, SimpleImputer) saves with the tree: the same
    parameters and decisions after loading; a file naming a non-numeric type is refused."""
    import json
    import zipfile

    from sklearn.compose import ColumnTransformer
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder

    from dtdecide.export import ModelFileError, load, save

    X, y, costs = _data(n=300)
    X = X.assign(c=X["c"].astype(str))
    X.loc[X.index[::7], "a"] = np.nan
    guide = make_pipeline(
        ColumnTransformer([
            ("text", OneHotEncoder(handle_unknown="ignore", dtype=np.float32), ["c"]),
            ("order", OrdinalEncoder(dtype=np.dtype("float64")), ["c"]),
            ("numbers", SimpleImputer(strategy="median"), ["a", "b"]),
        ]),
        LogisticRegression(max_iter=500))
    tree = _tree(guide_model=guide, max_depth=3).fit(X, y, costs=costs)
    save(tree, tmp_path / "pipe.dtdecide")
    again = load(tmp_path / "pipe.dtdecide")
    loaded = again.get_params()["guide_model"]
    transformers = loaded.steps[0][1].transformers
    assert transformers[0][1].dtype is np.float32
    assert transformers[1][1].dtype == np.dtype("float64")
    assert repr(loaded) == repr(guide)
    np.testing.assert_array_equal(again.predict_decision(X), tree.predict_decision(X))
    # an altered file naming an object type for such a parameter is refused
    with zipfile.ZipFile(tmp_path / "pipe.dtdecide") as z:
        members = {n: z.read(n) for n in z.namelist()}
    text = members["dtdecide-model.json"].decode()
    assert '"t":"nptype","dtype":"<f4"' in text
    members["dtdecide-model.json"] = text.replace(
        '"t":"nptype","dtype":"<f4"', '"t":"nptype","dtype":"|O"').encode()
    with zipfile.ZipFile(tmp_path / "altered.dtdecide", "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    with pytest.raises(ModelFileError, match="unsupported numpy scalar type"):
        load(tmp_path / "altered.dtdecide")
    json.loads(text)  # the manifest stays plain JSON
