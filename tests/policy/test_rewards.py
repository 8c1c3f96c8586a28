"""Rewards from logged decisions: formulas, cross-fitting, clipping, bad input."""

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LinearRegression, LogisticRegression

from dtdecide.policy import make_logged_campaign, policy_rewards


def _data(n=300, seed=0):
    return make_logged_campaign(n, effect="linear", confounding=1.0, random_state=seed)


def test_dr_ipw_dm_formulas_from_the_nuisances():
    d = _data()
    r = policy_rewards(d.X, d.action, d.outcome, decisions=d.decisions, cv=3,
                       outcome_model=LinearRegression(), propensity_model=LogisticRegression(),
                       random_state=0)
    n = len(d.outcome)
    mu, e, a, y = r.outcome_pred, r.propensity, r.action, r.outcome
    hit = np.zeros((n, 3))
    hit[np.arange(n), a] = 1
    expected_dr = mu + hit * (y - mu[np.arange(n), a])[:, None] / e[:, None]
    np.testing.assert_allclose(r.rewards.to_numpy(), expected_dr)
    np.testing.assert_allclose(r.gamma("ipw"), hit * (y / e)[:, None])
    np.testing.assert_allclose(r.gamma("dm"), mu)
    # logged decision's DR reward = its outcome when the propensity is 1 (no correction)
    assert list(r.rewards.columns) == list(d.decisions)


def test_cross_fitting_never_uses_a_cases_own_fold():
    # the outcome model of fold k is fitted without fold k: an outlier in fold 0 moves
    # the predictions of the other folds only
    d = _data(200)
    y = d.outcome.copy()
    base = policy_rewards(d.X, d.action, y, decisions=d.decisions, cv=2, propensity=np.ones(200) / 3,
                          outcome_model=LinearRegression(), random_state=1)
    k0 = np.flatnonzero(base.fold == 0)
    y2 = y.copy()
    y2[k0[0]] += 1e4
    moved = policy_rewards(d.X, d.action, y2, decisions=d.decisions, cv=2,
                           propensity=np.ones(200) / 3, outcome_model=LinearRegression(),
                           random_state=1)
    same = base.fold == 0
    np.testing.assert_allclose(moved.outcome_pred[same], base.outcome_pred[same])
    assert not np.allclose(moved.outcome_pred[~same], base.outcome_pred[~same])


def test_known_propensity_and_clipping_count():
    d = _data(120)
    p = np.full(120, 0.5)
    p[:7] = 0.001
    r = policy_rewards(d.X, d.action, d.outcome, decisions=d.decisions, method="ipw",
                       propensity=p, clip=0.01, cv=2)
    assert r.n_clipped == 7
    assert r.outcome_pred is None
    np.testing.assert_allclose(r.propensity[:7], 0.01)
    # the (n, D) form of the propensities reads the logged decision's column
    full = d.propensity
    r2 = policy_rewards(d.X, d.action, d.outcome, decisions=d.decisions, method="ipw",
                        propensity=full, clip=0.0, cv=2)
    logged = full.to_numpy()[np.arange(120), r2.action]
    np.testing.assert_allclose(r2.propensity, logged)


def test_binary_response_with_value_per_case():
    rng = np.random.default_rng(0)
    n = 400
    X = rng.normal(size=(n, 2))
    a = np.where(rng.random(n) < 0.5, "offer", "none")
    p = 0.2 + 0.4 * (a == "offer") * (X[:, 0] > 0)
    y = rng.random(n) < p
    value = np.full(n, 50.0)
    r = policy_rewards(X, a, y, outcome_value=value, propensity=np.full(n, 0.5),
                       outcome_model=LogisticRegression(), cv=2, random_state=0)
    assert np.all((r.outcome_pred >= 0) & (r.outcome_pred <= 50))
    gain = (r.rewards["offer"] - r.rewards["none"]).to_numpy()
    assert gain[X[:, 0] > 0].mean() > gain[X[:, 0] <= 0].mean() + 5


def test_bad_input_is_named():
    d = _data(60)
    with pytest.raises(ValueError, match="method"):
        policy_rewards(d.X, d.action, d.outcome, method="x")
    with pytest.raises(ValueError, match="never logged"):
        policy_rewards(d.X, d.action, d.outcome, decisions=[*d.decisions, "sms"])
    with pytest.raises(ValueError, match="action contains"):
        policy_rewards(d.X, d.action, d.outcome, decisions=["none", "mail"])
    with pytest.raises(ValueError, match="propensity"):
        policy_rewards(d.X, d.action, d.outcome, propensity=np.zeros(60))
    with pytest.raises(ValueError, match="binary"):
        policy_rewards(d.X, d.action, d.outcome, outcome_value=3.0)
    with pytest.raises(ValueError, match="cv"):
        policy_rewards(d.X, d.action, d.outcome, cv=1)
    with pytest.raises(ValueError, match="index"):
        policy_rewards(d.X, pd.Series(d.action, index=np.arange(60) + 5), d.outcome)


def test_overlap_table_shows_decisions_rarely_taken():
    # strong confounding: some cases almost never get "call"
    d = make_logged_campaign(1500, confounding=4.0, random_state=0)
    r = policy_rewards(d.X, d.action, d.outcome, decisions=d.decisions,
                       propensity=d.propensity, outcome_model=LinearRegression(), cv=2,
                       clip=0.05)
    ov = r.overlap
    assert list(ov.index) == list(d.decisions)
    assert ov["n_logged"].sum() == 1500
    assert ov["n_clipped"].sum() == r.n_clipped > 0
    logged = d.propensity.to_numpy()[np.arange(1500), r.action]
    for k, name in enumerate(d.decisions):
        assert ov.loc[name, "min"] == pytest.approx(logged[r.action == k].min())
