"""policy_value: per-case terms, paired differences, policy kinds, coverage."""

import numpy as np
import pytest
from sklearn.linear_model import LinearRegression, LogisticRegression

from dtdecide.policy import PolicyTree, make_logged_campaign, policy_rewards, policy_value


def _rewards(d, seed=0):
    return policy_rewards(d.X, d.action, d.outcome, decisions=d.decisions,
                          propensity=d.propensity, outcome_model=LinearRegression(), cv=2,
                          random_state=seed)


def test_value_is_the_mean_of_the_chosen_rewards_and_the_difference_is_paired():
    d = make_logged_campaign(300, random_state=0)
    r = _rewards(d)
    pol = np.where(d.X["x0"] > 0, "mail", "none")
    t = policy_value(pol, d.X, d.action, None, baseline="none", rewards=r, methods=("dr",))
    G = r.rewards.to_numpy()
    s = G[np.arange(300), np.where(pol == "mail", 1, 0)]
    assert t.loc["dr", "value"] == pytest.approx(s.mean())
    assert t.loc["dr", "std_error"] == pytest.approx(s.std(ddof=1) / np.sqrt(300))
    diff = s - G[:, 0]
    assert t.loc["dr", "difference"] == pytest.approx(diff.mean())
    assert t.loc["dr", "difference_std_error"] == pytest.approx(diff.std(ddof=1) / np.sqrt(300))


def test_policy_kinds_and_costs():
    d = make_logged_campaign(400, random_state=1)
    r = _rewards(d)
    tree = PolicyTree(decisions=d.decisions, max_depth=1).fit(
        d.X, d.action, None, rewards=r.rewards)
    by_model = policy_value(tree, d.X, d.action, None, rewards=r)
    by_labels = policy_value(tree.predict(d.X), d.X, d.action, None, rewards=r)
    np.testing.assert_allclose(by_model["value"], by_labels["value"])
    logged = policy_value("logged", d.X, d.action, None, rewards=r, methods=("ipw",))
    # the logged policy's IPW value: the mean of outcome / propensity of the logged case
    assert logged.loc["ipw", "value"] == pytest.approx(np.mean(r.outcome / r.propensity))
    costly = policy_value("mail", d.X, d.action, None, rewards=r, costs={"mail": 0.5})
    plain = policy_value("mail", d.X, d.action, None, rewards=r)
    np.testing.assert_allclose(costly["value"], plain["value"] - 0.5)
    boot = policy_value("mail", d.X, d.action, None, rewards=r, n_bootstrap=200,
                        random_state=0)
    assert boot.loc["dr", "std_error"] == pytest.approx(plain.loc["dr", "std_error"], rel=0.25)
    with pytest.raises(ValueError, match="policy"):
        policy_value("sms", d.X, d.action, None, rewards=r)
    with pytest.raises(ValueError, match="n_bootstrap"):
        policy_value("mail", d.X, d.action, None, rewards=r, n_bootstrap=1)


def test_interval_coverage_is_near_nominal():
    # randomised logging with known propensities; the true value of "mail for all" on
    # the step design is E[1 + x0 + 0.5 x2 + (x0 > 0) - 0.4] = 1.1 exactly
    true_value = 1.1
    covered = {"dr": 0, "ipw": 0}
    reps = 150
    for seed in range(reps):
        d = make_logged_campaign(300, effect="step", confounding=0.0, random_state=seed)
        t = policy_value("mail", d.X, d.action, d.outcome, propensity=d.propensity,
                         outcome_model=LinearRegression(), cv=2, random_state=seed)
        for m in covered:
            covered[m] += t.loc[m, "ci_low"] <= true_value <= t.loc[m, "ci_high"]
    for m, k in covered.items():
        assert 0.89 <= k / reps <= 0.99, (m, k / reps)


def test_estimated_propensities_on_confounded_logs():
    d = make_logged_campaign(600, confounding=1.0, random_state=3)
    t = policy_value("call", d.X, d.action, d.outcome, decisions=d.decisions,
                     outcome_model=LinearRegression(), propensity_model=LogisticRegression(),
                     cv=2, random_state=0)
    truth = d.expected["call"].mean()
    assert abs(t.loc["dr", "value"] - truth) < 4 * t.loc["dr", "std_error"]
