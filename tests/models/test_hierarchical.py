"""Flat and hierarchical cost-sensitive classifiers."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.datasets import make_blobs
from sklearn.linear_model import LogisticRegression

from dtdecide.models import (
    BenefitWeightedLogisticRegression,
    FlatCostSensitiveClassifier,
    HierarchicalCostSensitiveClassifier,
    hierarchical_cost_parameters,
)


class ColumnPosteriors(ClassifierMixin, BaseEstimator):
    """Test double: the posterior of class ``k`` is the sum of the columns ``groups[k]``."""

    def __init__(self, groups=None):
        self.groups = groups

    def fit(self, X, y, sample_weight=None):
        self.classes_ = np.unique(y)
        return self

    def predict_proba(self, X):
        X = np.asarray(X, dtype=float)
        p = np.column_stack([X[:, g].sum(axis=1) for g in self.groups])
        return p / p.sum(axis=1, keepdims=True)

    def predict(self, X):
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]


def _pair(posteriors, costs):
    """Flat and hierarchical classifiers reading the same posteriors (H = class 0)."""
    n_classes = posteriors.shape[1]
    X_fit = np.full((n_classes, n_classes), 1.0 / n_classes)  # the doubles learn nothing
    y = np.arange(n_classes)
    minority = list(range(1, n_classes))
    flat = FlatCostSensitiveClassifier(
        ColumnPosteriors([[k] for k in range(n_classes)]), majority_class=0, **costs
    ).fit(X_fit, y)
    hier = HierarchicalCostSensitiveClassifier(
        ColumnPosteriors([[0], minority]),
        ColumnPosteriors([[k] for k in minority]),
        majority_class=0,
        **costs,
    ).fit(X_fit, y)
    return flat, hier


def _expected_costs(post, c_hd, c_dh, c_dd):
    """Expected cost of each decision, the obvious way (H = column 0)."""
    n_classes = post.shape[1]
    V = np.full((n_classes, n_classes), float(c_dd))
    V[0, :] = c_hd
    V[:, 0] = c_dh
    np.fill_diagonal(V, 0.0)
    return post @ V


def test_parameters_by_hand():
    p = hierarchical_cost_parameters(cost_hd=1, cost_dh=10, cost_dd=2)
    assert p.beta == pytest.approx((10 + 1 - 2) / 2)
    assert p.delta == pytest.approx((10 - 2) / 2)
    assert p.p_star == pytest.approx(1 / 11)
    equal = hierarchical_cost_parameters(3, 3, 3)
    assert (equal.beta, equal.delta, equal.p_star) == (1.0, 0.0, 0.5)


def test_rules_by_hand():
    post = np.array([[0.7, 0.2, 0.1], [0.5, 0.25, 0.25]])
    # case 0, C_HD=1, C_DH=10, C_DD=2: flat scores (4.5*.7 - 4, .2, .1) -> D1;
    # expected costs D1: 2*(.3-.2) + .7 = .9, D2: 1.1, H: 3; hierarchical: .3 >= 1/11 -> D1
    flat, hier = _pair(post[:1], dict(cost_hd=1, cost_dh=10, cost_dd=2))
    np.testing.assert_allclose(flat.cost_sensitive_scores(post[:1]), [[-0.85, 0.2, 0.1]])
    assert flat.predict(post[:1])[0] == 1 and hier.predict(post[:1])[0] == 1
    # case 1, C_HD=1, C_DH=1.5, C_DD=3: p* = .4 and P(D) = .5 -> hierarchical says D1;
    # flat: beta = -1/6, Delta = -1/2, H scores -1/12 + 1/2 = 5/12 > .25 -> H
    # (expected costs: D1 = 3*.25 + .5 = 1.25 > H = .75: the flat rule is right)
    flat, hier = _pair(post, dict(cost_hd=1, cost_dh=1.5, cost_dd=3))
    assert flat.beta_ == pytest.approx(-1 / 6) and flat.delta_ == pytest.approx(-0.5)
    assert hier.p_star_ == pytest.approx(0.4) and hier.threshold_ == pytest.approx(0.4)
    np.testing.assert_allclose(flat.cost_sensitive_scores(post)[1, 0], 5 / 12)
    assert flat.predict(post)[1] == 0 and hier.predict(post)[1] == 1


costs_strategy = st.tuples(st.floats(0.1, 20), st.floats(0.1, 20), st.floats(0.1, 20)).map(
    lambda c: dict(cost_hd=c[0], cost_dh=c[1], cost_dd=c[2])
)


@settings(max_examples=40, deadline=None)
@given(
    costs=costs_strategy,
    seed=st.integers(0, 10_000),
    n_minority=st.integers(1, 4),
    concentrated=st.booleans(),
)
def test_flat_versus_hierarchical(costs, seed, n_minority, concentrated):
    rng = np.random.default_rng(seed)
    post = rng.dirichlet(np.ones(n_minority + 1), size=40)
    if concentrated:  # each case's minority probability sits on one group
        keep = rng.integers(1, n_minority + 1, size=40)
        mass = post[:, 1:].sum(axis=1)
        post[:, 1:] = 0.0
        post[np.arange(40), keep] = mass
    flat, hier = _pair(post, costs)
    f, h = flat.predict(post), hier.predict(post)
    p = hierarchical_cost_parameters(**costs)
    p_d = post[:, 1:].sum(axis=1)
    clear = np.abs(p_d - p.p_star) > 1e-9
    # the flat rule minimises the expected cost
    L = _expected_costs(post, costs["cost_hd"], costs["cost_dh"], costs["cost_dd"])
    np.testing.assert_allclose(L[np.arange(40), f], L.min(axis=1), rtol=1e-9, atol=1e-12)
    # hierarchical stage 1 is the p* rule
    np.testing.assert_array_equal((h != 0)[clear], (p_d >= p.p_star)[clear])
    # flat's minority decisions are a subset of hierarchical's, with the same group
    assert not np.any((f != 0) & (h == 0) & clear)
    both = (f != 0) & (h != 0)
    np.testing.assert_array_equal(f[both], h[both])
    if n_minority == 1 or concentrated:  # then the two rules agree
        margin = np.abs(L[:, 0] - L[:, 1:].min(axis=1)) > 1e-9
        np.testing.assert_array_equal(f[clear & margin], h[clear & margin])


def test_real_models_and_monotone_in_costs():
    X, y = make_blobs([300, 40, 40], centers=[[0, 0], [2, 0], [0, 2]], random_state=0)
    for cls in (FlatCostSensitiveClassifier, HierarchicalCostSensitiveClassifier):
        low = cls(random_state=0).fit(X, y)
        high = cls(cost_dh=5, random_state=0).fit(X, y)
        assert low.majority_class_ == 0
        proba = low.predict_proba(X)
        assert proba.shape == (380, 3)
        np.testing.assert_allclose(proba.sum(axis=1), 1.0)
        assert np.mean(low.predict(X) == y) > 0.83
        # training is cost-blind, so a larger C_DH only moves cases to the minority
        lo, hi = low.predict(X), high.predict(X)
        assert np.all(hi[lo != 0] == lo[lo != 0])
        assert (hi != 0).sum() > (lo != 0).sum()


def test_hierarchical_proba_combines_stages():
    X, y = make_blobs([200, 50, 50], centers=[[0, 0], [3, 0], [0, 3]], random_state=1)
    model = HierarchicalCostSensitiveClassifier(
        LogisticRegression(), LogisticRegression(), cost_dh=3
    ).fit(X, y)
    p_d = model.binary_estimator_.predict_proba(X)[:, 1]
    within = model.minority_estimator_.predict_proba(X)
    expected = np.column_stack([1 - p_d, p_d[:, None] * within])
    np.testing.assert_allclose(model.predict_proba(X), expected)
    # stage 2 was trained on minority cases only
    np.testing.assert_array_equal(model.minority_estimator_.classes_, [1, 2])
    pred = model.predict(X)
    np.testing.assert_array_equal(pred == 0, p_d < 0.25)


def test_benefit_weighted_stage():
    X, y = make_blobs([200, 40, 40], centers=[[0, 0], [2, 0], [0, 2]], random_state=2)
    model = HierarchicalCostSensitiveClassifier(
        cost_hd=2, cost_dh=8, benefit_weighted=True, random_state=0
    ).fit(X, y)
    # benefit matrix [[0, -2], [-8, 0]]: eta = (0 + 2) / (0 + 8)
    assert model.binary_estimator_.eta_ == pytest.approx([0.25])
    assert model.threshold_ == 0.5
    assert isinstance(model.minority_estimator_, LogisticRegression)
    direct = BenefitWeightedLogisticRegression([[0, -2], [-8, 0]], max_iter=1000).fit(X, y != 0)
    np.testing.assert_allclose(model.binary_estimator_.coef_, direct.coef_)
    np.testing.assert_array_equal(model.predict(X) != 0, direct.predict(X))
    # user settings of the stage are kept, its benefit matrix is replaced
    tuned = HierarchicalCostSensitiveClassifier(
        BenefitWeightedLogisticRegression([[1, -1], [-1, 1]], C=0.1),
        cost_hd=2,
        cost_dh=8,
        benefit_weighted=True,
    ).fit(X, y)
    assert tuned.binary_estimator_.C == 0.1 and tuned.binary_estimator_.eta_[0] == 0.25
    with pytest.raises(TypeError, match="binary_estimator"):
        HierarchicalCostSensitiveClassifier(LogisticRegression(), benefit_weighted=True).fit(X, y)


def test_majority_class_strings_frames_and_weights():
    X, y = make_blobs([60, 30, 30], centers=[[0, 0], [2, 0], [0, 2]], random_state=3)
    labels = np.array(["none", "fraud", "error"])[y]
    frame = pd.DataFrame(X, columns=["a", "b"])
    w = np.where(y == 1, 5.0, 1.0)  # "fraud" becomes the weighted majority
    model = HierarchicalCostSensitiveClassifier(LogisticRegression(), LogisticRegression()).fit(
        frame, labels, sample_weight=w
    )
    assert model.majority_class_ == "fraud"
    np.testing.assert_array_equal(model.minority_classes_, ["error", "none"])
    np.testing.assert_array_equal(model.feature_names_in_, ["a", "b"])
    assert set(model.predict(frame)) <= set(labels)
    flat = FlatCostSensitiveClassifier(LogisticRegression(), majority_class="none").fit(
        frame, labels
    )
    assert flat.majority_class_ == "none"
    np.testing.assert_array_equal(flat.classes_, ["error", "fraud", "none"])


def test_validation_errors():
    X, y = make_blobs(30, centers=3, random_state=0)
    with pytest.raises(ValueError, match="majority_class"):
        FlatCostSensitiveClassifier(majority_class=7).fit(X, y)
    with pytest.raises(ValueError, match="cost_dd"):
        FlatCostSensitiveClassifier(cost_dd=0).fit(X, y)
    with pytest.raises(ValueError, match="cost_hd"):
        hierarchical_cost_parameters(0, 1, 1)
    with pytest.raises(TypeError, match="cost_dh"):
        hierarchical_cost_parameters(1, "a", 1)
    with pytest.raises(ValueError, match="2 classes"):
        HierarchicalCostSensitiveClassifier().fit(X, np.zeros(30))
    with pytest.raises(ValueError, match="Reshape"):
        HierarchicalCostSensitiveClassifier().fit(X[:, 0], y)
