"""Rare classes: balanced samples, operational priors and misclassification rates."""

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression

from dtdecide import DecisionEstimator
from dtdecide.assess import balanced_sample, misclassification_rates
from dtdecide.decision import DecisionMatrix


def rare_data(n=1000, seed=0):
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.1, "rare", "common")
    X = pd.DataFrame({"x": rng.normal(size=n) + (y == "rare") * 1.5})
    return X, y


def test_balanced_sample_counts_and_priors():
    X, y = rare_data()
    s = balanced_sample(X, y, random_state=0)
    n_rare = int((y == "rare").sum())
    assert (s.y == "rare").sum() == n_rare and (s.y == "common").sum() == n_rare
    assert s.priors["rare"] == pytest.approx(n_rare / len(y))
    assert s.train_priors.to_dict() == {"common": 0.5, "rare": 0.5}
    # rows are the input rows, in order, without repeats
    assert np.all(np.diff(s.indices) > 0)
    pd.testing.assert_frame_equal(s.X, X.iloc[s.indices])
    np.testing.assert_array_equal(s.y, y[s.indices])
    again = balanced_sample(X, y, random_state=0)
    np.testing.assert_array_equal(s.indices, again.indices)


def test_balanced_sample_weights_and_replacement():
    X, y = rare_data(200)
    w = np.where(y == "rare", 2.0, 1.0)
    s = balanced_sample(X.to_numpy(), y, n_per_class=50, replace=True, sample_weight=w,
                        random_state=1)
    n_rare = (y == "rare").sum()
    assert s.priors["rare"] == pytest.approx(2 * n_rare / (2 * n_rare + (y != "rare").sum()))
    np.testing.assert_array_equal(s.sample_weight, w[s.indices])
    assert s.train_priors["rare"] == pytest.approx(100 / 150)
    assert isinstance(s.X, np.ndarray) and s.X.shape == (100, 1)


def test_balanced_sample_errors():
    X, y = rare_data(100)
    with pytest.raises(ValueError, match="replace=True"):
        balanced_sample(X, y, n_per_class=1000)
    with pytest.raises(ValueError, match="n_per_class"):
        balanced_sample(X, y, n_per_class=0)
    with pytest.raises(ValueError, match="inconsistent"):
        balanced_sample(X.iloc[:10], y)
    with pytest.raises(ValueError, match="sample_weight"):
        balanced_sample(X, y, sample_weight=np.ones(3))


def test_balanced_sample_priors_feed_the_decisions():
    X, y = rare_data(2000, seed=3)
    s = balanced_sample(X, y, random_state=0)
    m = DecisionMatrix({"rare": [1.0, 0.0], "common": [0.0, 1.0]}, levels=["rare", "common"],
                       priors=s.priors.reindex(["rare", "common"]).to_numpy())
    est = DecisionEstimator(LogisticRegression(), m).fit(s.X, s.y)
    np.testing.assert_allclose(est.train_priors_, [0.5, 0.5])
    # adjusted posteriors: the mean posterior of the rare class is near its 10% share
    res = est.decide(X, y)
    assert res.summary["misclassification_rate"] > 0  # computed on unadjusted posteriors
    share_rare = np.mean(res.cases["D_target"] == "rare")
    plain = np.mean(est.predict(X) == "rare")
    assert share_rare < plain  # the priors make the rare decision rarer


def test_source_example_unadjusted_vs_prior_adjusted():
    # balanced sample: 100 rare (80% missed), 100 common (20% missed)
    y = np.array(["rare"] * 100 + ["common"] * 100)
    pred = np.array(["common"] * 80 + ["rare"] * 20 + ["rare"] * 20 + ["common"] * 80)
    r = misclassification_rates(y, pred, priors={"rare": 0.1, "common": 0.9})
    assert r["conditional[rare]"] == pytest.approx(0.8)
    assert r["conditional[common]"] == pytest.approx(0.2)
    assert r["unadjusted"] == pytest.approx(0.5 * 0.8 + 0.5 * 0.2)
    assert r["prior_adjusted"] == pytest.approx(0.1 * 0.8 + 0.9 * 0.2)


def test_misclassification_rates_weights_and_errors():
    y = np.array([0, 0, 1, 1])
    pred = np.array([0, 1, 1, 1])
    w = np.array([3.0, 1.0, 1.0, 1.0])
    r = misclassification_rates(y, pred, sample_weight=w)
    assert r["conditional[0]"] == pytest.approx(0.25)
    assert r["unadjusted"] == pytest.approx(1 / 6)
    assert "prior_adjusted" not in r.index
    with pytest.raises(ValueError, match="absent"):
        misclassification_rates(y, pred, priors={2: 1.0})
    with pytest.raises(ValueError, match="same length"):
        misclassification_rates(y, pred[:3])
    with pytest.raises(ValueError, match="non-negative"):
        misclassification_rates(y, pred, priors={0: -1, 1: 2})
