"""Cost-sensitive naive Bayes."""

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from sklearn.naive_bayes import CategoricalNB

from dtdecide.models import CostSensitiveNaiveBayes

X_HAND = pd.DataFrame(
    {
        "colour": ["red", "red", "blue", "blue", "red", "blue"],
        "size": ["S", "L", "S", "L", "L", "L"],
    }
)
Y_HAND = np.array(["no", "no", "no", "yes", "yes", "yes"])


def test_posteriors_by_hand():
    # alpha = 1, two categories per attribute:
    # P(red|no) = (2+1)/(3+2) = .6, P(S|no) = .6; P(red|yes) = .4, P(S|yes) = (0+1)/5 = .2
    model = CostSensitiveNaiveBayes().fit(X_HAND, Y_HAND)
    new = pd.DataFrame({"colour": ["red", "blue"], "size": ["S", "L"]})
    # (red, S): .5*.6*.6 = .18 vs .5*.4*.2 = .04 -> 9/11 ; (blue, L): .08 vs .24 -> 1/4
    np.testing.assert_allclose(model.predict_proba(new), [[9 / 11, 2 / 11], [0.25, 0.75]])
    np.testing.assert_allclose(np.exp(model.feature_log_prob_[1]), [[0.4, 0.6], [0.8, 0.2]])
    assert list(model.categories_[1]) == ["L", "S"]
    np.testing.assert_array_equal(model.predict(new), ["no", "yes"])
    # F(no) = V[yes,no] P(yes), F(yes) = V[no,yes] P(no) = 9/11 for (red, S)
    costly = CostSensitiveNaiveBayes(cost_matrix=[[0, 1], [5, 0]]).fit(X_HAND, Y_HAND)
    np.testing.assert_array_equal(costly.predict(new), ["yes", "yes"])  # 10/11 > 9/11
    np.testing.assert_allclose(costly.expected_cost(new)[0], [10 / 11, 9 / 11])
    milder = CostSensitiveNaiveBayes(cost_matrix=[[0, 1], [4, 0]]).fit(X_HAND, Y_HAND)
    np.testing.assert_array_equal(milder.predict(new), ["no", "yes"])  # 8/11 < 9/11


def test_matches_sklearn_categorical_nb_on_the_same_codes():
    rng = np.random.default_rng(0)
    n = 500
    X = pd.DataFrame(
        {
            "age": rng.normal(40, 10, n),
            "job": rng.choice(["a", "b", "c", "d"], n),
            "balance": rng.exponential(1000, n),
            "married": rng.choice([True, False], n),
        }
    )
    y = rng.choice(["x", "y", "z"], n, p=[0.5, 0.3, 0.2])
    w = rng.uniform(0.2, 3.0, n)
    model = CostSensitiveNaiveBayes(alpha=0.5, n_bins=6).fit(X, y, sample_weight=w)
    np.testing.assert_array_equal(model.is_categorical_, [False, True, False, True])
    codes = model.transform_codes(X)
    ref = CategoricalNB(alpha=0.5, min_categories=model.n_categories_).fit(
        codes, y, sample_weight=w
    )
    np.testing.assert_allclose(model.predict_proba(X), ref.predict_proba(codes), rtol=1e-10)
    np.testing.assert_array_equal(model.predict(X), ref.predict(codes))
    for mine, theirs in zip(model.feature_log_prob_, ref.feature_log_prob_):
        np.testing.assert_allclose(mine, theirs, rtol=1e-12)


def test_many_attributes_exact_reference():
    """800 attributes: the plain product underflows; log space still decides exactly."""
    rng = np.random.default_rng(1)
    n, m, n_cat = 90, 800, 4
    y = np.repeat([0, 1, 2], n // 3)
    # attributes weakly tied to the class so that posteriors are not all extreme
    X = (rng.integers(0, n_cat, (n, m)) + (rng.uniform(size=(n, m)) < 0.1) * y[:, None]) % n_cat
    V = np.array([[0, 3, 7], [2, 0, 1], [9, 4, 0]])
    model = CostSensitiveNaiveBayes(cost_matrix=V, categorical_features="all").fit(X, y)
    Xt = rng.integers(0, n_cat, (6, m))
    # exact rational arithmetic, the obvious way
    counts = np.zeros((3, m, n_cat), dtype=int)
    for c in range(3):
        for j in range(m):
            counts[c, j] = np.bincount(X[y == c, j], minlength=n_cat)
    n_c = np.bincount(y)
    for x in Xt:
        joint = []
        for c in range(3):
            p = Fraction(int(n_c[c]), n)
            for j in range(m):
                p *= Fraction(int(counts[c, j, x[j]]) + 1, int(n_c[c]) + n_cat)
            joint.append(p)
        assert float(joint[0]) == 0.0  # the naive float product would underflow
        total = sum(joint)
        exact_post = [float(p / total) for p in joint]
        expected = [sum(V[q, k] * joint[q] for q in range(3)) for k in range(3)]
        exact_pred = min(range(3), key=lambda k: expected[k])
        assert model.predict(x[None, :])[0] == exact_pred
        np.testing.assert_allclose(model.predict_proba(x[None, :])[0], exact_post, atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(
    cost=st.lists(st.integers(-5, 10), min_size=9, max_size=9),
    shift=st.lists(st.integers(-20, 20), min_size=3, max_size=3),
    scale=st.integers(1, 7),
    seed=st.integers(0, 1000),
)
@example(cost=[0, 0, 0, 7, 0, 6, -1, 6, 0], shift=[0, 0, 0], scale=3, seed=226)  # ties
def test_cost_matrix_invariances(cost, shift, scale, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(60, 3))
    y = rng.integers(0, 3, 60)
    if len(np.unique(y)) < 3:
        return
    V = np.array(cost, float).reshape(3, 3)
    base = CostSensitiveNaiveBayes(cost_matrix=V).fit(X, y)
    # a constant per actual class (row) or a positive factor never changes a decision
    moved = CostSensitiveNaiveBayes(cost_matrix=scale * V + np.array(shift)[:, None]).fit(X, y)
    F = base.expected_cost(X)
    # ... except between decisions whose expected costs tie (up to rounding): the
    # moved matrix may round a tie the other way, so there the moved decision must be
    # one of the tied ones (hypothesis found exact three-way ties: cost
    # [0,0,0,7,0,6,-1,6,0], scale 3, seed 226)
    tol = 1e-9 * np.maximum(np.abs(F).max(axis=1), 1.0)
    tied = F <= F.min(axis=1)[:, None] + tol[:, None]
    clear = tied.sum(axis=1) == 1
    np.testing.assert_array_equal(base.predict(X)[clear], moved.predict(X)[clear])
    moved_k = np.searchsorted(base.classes_, moved.predict(X))
    assert tied[np.arange(60), moved_k].all()
    # the decision minimises the expected cost computed the plain way
    chosen = F[np.arange(60), np.searchsorted(base.classes_, base.predict(X))]
    np.testing.assert_allclose(chosen, F.min(axis=1), rtol=1e-9, atol=1e-12)
    zero_one = CostSensitiveNaiveBayes().fit(X, y)
    np.testing.assert_array_equal(
        zero_one.predict(X), zero_one.classes_[np.argmax(zero_one.predict_proba(X), axis=1)]
    )


def test_quantile_bins_by_hand():
    x = np.arange(1, 9, dtype=float)[:, None]
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    model = CostSensitiveNaiveBayes(n_bins=4).fit(x, y)
    # weighted inverted-CDF quartiles of 1..8 are 2, 4, 6
    np.testing.assert_allclose(model.bin_edges_[0], [2, 4, 6])
    np.testing.assert_array_equal(model.transform_codes(x)[:, 0], [0, 1, 1, 2, 2, 3, 3, 3])
    np.testing.assert_array_equal(model.transform_codes([[-5.0], [100.0]])[:, 0], [0, 3])
    # a column with two values gets two bins whatever n_bins says
    binary = CostSensitiveNaiveBayes(n_bins=10).fit(np.array([[0.0], [1], [1], [0]]), [0, 1, 1, 0])
    assert binary.n_categories_[0] == 2


def test_unseen_category_carries_no_information():
    model = CostSensitiveNaiveBayes().fit(X_HAND, Y_HAND)
    jll = model.predict_joint_log_proba(pd.DataFrame({"colour": ["red"], "size": ["XL"]}))
    code = list(model.categories_[0]).index("red")
    np.testing.assert_allclose(jll[0], model.class_log_prior_ + model.feature_log_prob_[0][:, code])
    assert model.transform_codes(pd.DataFrame({"colour": ["green"], "size": ["S"]}))[0, 0] == -1


def test_categorical_features_options_and_priors():
    X = np.array([[0, 1.5], [1, 2.5], [2, 0.5], [1, 1.0], [0, 3.0], [2, 2.0]])
    y = [0, 0, 0, 1, 1, 1]
    by_index = CostSensitiveNaiveBayes(categorical_features=[0]).fit(X, y)
    by_mask = CostSensitiveNaiveBayes(categorical_features=[True, False]).fit(X, y)
    np.testing.assert_array_equal(by_index.is_categorical_, [True, False])
    np.testing.assert_allclose(by_index.predict_proba(X), by_mask.predict_proba(X))
    frame = pd.DataFrame(X, columns=["a", "b"])
    by_name = CostSensitiveNaiveBayes(categorical_features=["a"]).fit(frame, y)
    np.testing.assert_allclose(by_name.predict_proba(frame), by_index.predict_proba(X))
    tilted = CostSensitiveNaiveBayes(priors=[1, 3]).fit(X, y)
    np.testing.assert_allclose(np.exp(tilted.class_log_prior_), [0.25, 0.75])
    assert np.all(tilted.predict_proba(X)[:, 1] > by_index.predict_proba(X)[:, 1] - 1e-12)


def test_validation_errors():
    with pytest.raises(ValueError, match="cost_matrix"):
        CostSensitiveNaiveBayes(cost_matrix=[[0, 1], [1, 0]]).fit([[0], [1], [2]], [0, 1, 2])
    with pytest.raises(ValueError, match="cost_matrix"):
        CostSensitiveNaiveBayes(cost_matrix=[[0, np.inf], [1, 0]]).fit([[0], [1]], [0, 1])
    with pytest.raises(ValueError, match="NaN"):
        CostSensitiveNaiveBayes().fit([[0.0], [np.nan]], [0, 1])
    with pytest.raises(ValueError, match="missing"):
        CostSensitiveNaiveBayes().fit(pd.DataFrame({"c": ["a", None]}), [0, 1])
    with pytest.raises(ValueError, match="categorical_features"):
        CostSensitiveNaiveBayes(categorical_features=["nope"]).fit(
            pd.DataFrame({"c": [1, 2]}), [0, 1]
        )
    with pytest.raises(ValueError, match="categorical_features"):
        CostSensitiveNaiveBayes(categorical_features=[5]).fit([[1], [2]], [0, 1])
    with pytest.raises(ValueError, match="non-numeric"):
        CostSensitiveNaiveBayes(categorical_features=[False, False]).fit(
            pd.DataFrame({"c": ["a", "b"], "d": [1, 2]}), [0, 1]
        )
    with pytest.raises(ValueError, match="alpha"):
        CostSensitiveNaiveBayes(alpha=0).fit([[1], [2]], [0, 1])
