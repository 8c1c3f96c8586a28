"""fit_recommended: candidates, the cross-validated choice and its one-standard-error
rule, the choice on validation data, the hold-out path, errors."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import StratifiedKFold

from dtdecide import (
    DecisionMatrix,
    ProfitTreeClassifier,
    ProfitTreeRegressor,
    PruningStudy,
    fit_recommended,
    recommended_candidates,
)


def _credit_like(n, seed):
    """Binary data with a heavy-tailed cost row per case."""
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n),
                      "c": pd.Categorical(rng.choice(["u", "v", "w"], n))})
    p = 1 / (1 + np.exp(-(-1.2 + 1.3 * X["a"] - 0.8 * (X["c"] == "w"))))
    y = np.where(rng.random(n) < p, "bad", "good")
    amount = rng.lognormal(3.0, 1.0, n)
    costs = pd.DataFrame({"C_FP": 0.2 * amount, "C_FN": 0.6 * amount, "C_TP": 0.0,
                          "C_TN": 0.0})
    return X, pd.Series(y, name="y"), costs


@pytest.fixture(scope="module")
def data():
    train = _credit_like(1200, 0)
    valid = _credit_like(600, 1)
    return train, valid


@pytest.fixture(scope="module")
def tree():
    matrix = DecisionMatrix.from_cost_matrix(levels=("good", "bad"))
    return ProfitTreeClassifier(decision_matrix=matrix, max_depth=5, min_samples_leaf=10,
                                random_state=0)


def test_candidates_follow_the_rule():
    leaf = recommended_candidates(ProfitTreeClassifier())
    assert leaf == [{"decision_rule": "leaf", "criterion": "gini", "posterior_smoothing": 0.0},
                    {"decision_rule": "leaf", "criterion": "profit",
                     "posterior_smoothing": 0.0}]
    case = recommended_candidates(ProfitTreeClassifier(decision_rule="case"))
    assert case == [{"decision_rule": "case", "criterion": "gini", "posterior_smoothing": 0.0},
                    {"decision_rule": "case", "criterion": "gini",
                     "posterior_smoothing": ("auto", 1.0)},
                    {"decision_rule": "case", "criterion": "gini",
                     "posterior_smoothing": ("auto", 4.0)}]
    both = recommended_candidates(ProfitTreeClassifier(), ("leaf", "case"))
    assert both == leaf + case
    reg = recommended_candidates(ProfitTreeRegressor())
    assert [c["criterion"] for c in reg] == ["variance", "profit"]


@pytest.mark.parametrize("rules", [(), ("leaf", "tree")])
def test_candidates_refuse_unknown_rules(rules):
    with pytest.raises(ValueError, match="decision_rules"):
        recommended_candidates(ProfitTreeClassifier(), rules)


def with_leaf_sequences(tree):
    """The recommended candidates of both rules, and the case rule's three pruned along
    their leaf decisions (``pruning_sequence="leaf"``: offered, not by default)."""
    both = recommended_candidates(tree, ("leaf", "case"))
    return both + [{**c, "pruning_sequence": "leaf"} for c in both
                   if c["decision_rule"] == "case"]


def _params(row):
    """A results row's estimator parameters and its pruning sequence."""
    return ({"decision_rule": row["decision_rule"], "criterion": row["criterion"],
             "posterior_smoothing": row["posterior_smoothing"]},
            row.get("pruning_sequence", "rule"))


def _by_hand(tree, params, train, valid, sequence="rule"):
    """The pruned tree and validation measure of one candidate, written out."""
    (X, y, c), (Xv, yv, cv) = train, valid
    fitted = clone(tree).set_params(**params).fit(X, y, costs=c)
    study = PruningStudy(fitted, pruning_sequence=sequence).fit(Xv, yv, costs_valid=cv)
    return study.best_estimator_, float(study.results_["valid_measure"].iloc[
        study.selected_index_])


def test_chooses_the_best_validation_measure(data, tree):
    train, valid = data
    (X, y, c), (Xv, yv, cv) = train, valid
    best, results = fit_recommended(tree, X, y, costs=c, X_valid=Xv, y_valid=yv,
                                    costs_valid=cv, candidates=with_leaf_sequences(tree),
                                    cv=None, return_results=True)
    assert len(results) == 8 and results["chosen"].sum() == 1
    assert results["pruning_sequence"].tolist() == ["rule"] * 5 + ["leaf"] * 3
    # every row is what fitting and pruning that candidate by hand gives
    for _, row in results.iterrows():
        params, sequence = _params(row)
        pruned, measure = _by_hand(tree, params, train, valid, sequence)
        assert measure == pytest.approx(row["valid_measure"], rel=1e-12)
        assert pruned.get_n_leaves() == row["n_leaves"]
    k = int(np.flatnonzero(results["chosen"])[0])
    assert (results["measure"] == "loss").all()  # a cost matrix: average cost, lower wins
    assert results["valid_measure"].iloc[k] == results["valid_measure"].min()
    assert best.decision_rule == results["decision_rule"].iloc[k]
    assert best.get_n_leaves() == results["n_leaves"].iloc[k]
    # ("auto", k) is k times the strength "auto" resolves to
    auto = clone(tree).set_params(decision_rule="case", posterior_smoothing="auto").fit(
        X, y, costs=c).posterior_smoothing_
    np.testing.assert_allclose(results["posterior_smoothing"],
                               [0.0, 0.0, 0.0, auto, 4 * auto, 0.0, auto, 4 * auto])
    _, quarter = fit_recommended(tree, X, y, costs=c, X_valid=Xv, y_valid=yv,
                                 costs_valid=cv, cv=None, return_results=True, candidates=[
                                     {"posterior_smoothing": ("auto", 0.25)}])
    np.testing.assert_allclose(quarter["posterior_smoothing"], [0.25 * auto])


def test_without_validation_data_holds_out_and_refits(data, tree):
    (X, y, c), _ = data
    best, results = fit_recommended(tree, X, y, costs=c, random_state=3, cv=None,
                                    return_results=True)
    again = fit_recommended(tree, X, y, costs=c, random_state=3, cv=None)
    chosen = results[results["chosen"]].iloc[0]
    assert best.criterion == chosen["criterion"] == again.criterion
    # refitted on every training row, pruned to the chosen size
    assert best.tree_.weighted_n_node_samples[0] == len(y)
    assert best.get_n_leaves() <= chosen["n_leaves"]
    assert best.get_n_leaves() == again.get_n_leaves()


def test_custom_candidates_and_errors(data, tree):
    train, valid = data
    (X, y, c), (Xv, yv, cv) = train, valid
    best = fit_recommended(tree, X, y, costs=c, X_valid=Xv, y_valid=yv, costs_valid=cv,
                           candidates=[{"criterion": "profit", "max_depth": 2}])
    assert best.criterion == "profit" and best.get_depth() <= 2
    with pytest.raises(ValueError, match="validation_fraction"):
        fit_recommended(tree, X, y, costs=c, validation_fraction=1.0)
    with pytest.raises(ValueError, match="X_valid and y_valid"):
        fit_recommended(tree, X, y, costs=c, X_valid=Xv)
    with pytest.raises(ValueError, match="at least one"):
        fit_recommended(tree, X, y, costs=c, candidates=[])
    with pytest.raises(ValueError, match="se_rule"):
        fit_recommended(tree, X, y, costs=c, se_rule=-1.0)
    for bad in ("case", None):
        with pytest.raises(ValueError, match="pruning_sequence must be one of"):
            fit_recommended(tree, X, y, costs=c, candidates=[
                {"criterion": "gini"}, {"criterion": "gini", "pruning_sequence": bad}])
    with pytest.raises(ValueError, match="costs"):
        fit_recommended(tree, X, y, costs=c, X_valid=Xv, y_valid=yv)


def _cv_by_hand(tree, params, X, y, c, folds, sequence="rule"):
    """One candidate's cross-validated measure and standard error at its best subtree,
    written out with PruningStudy."""
    fitted = clone(tree).set_params(**params).fit(X, y, costs=c)
    study = PruningStudy(fitted, cv=folds, se_rule=0.0, pruning_sequence=sequence).fit(
        X_train=X, y_train=y, costs_train=c)
    k = study.selected_index_
    return (float(study.results_["cv_mean"].iloc[k]), float(study.results_["cv_se"].iloc[k]),
            study)


def test_cross_validation_on_training_and_validation_rows(data, tree):
    train, valid = data
    (X, y, c), (Xv, yv, cv) = train, valid
    folds = StratifiedKFold(4, shuffle=True, random_state=0)
    best, results = fit_recommended(tree, X, y, costs=c, X_valid=Xv, y_valid=yv,
                                    costs_valid=cv, candidates=with_leaf_sequences(tree),
                                    cv=folds, se_rule=0.0, return_results=True)
    assert len(results) == 8 and results["chosen"].sum() == 1
    # the folds run over the training and the validation rows together
    Xa = pd.concat([X, Xv], ignore_index=True)
    ya = pd.concat([y, yv], ignore_index=True)
    ca = pd.concat([c, cv], ignore_index=True)
    for _, row in results.iterrows():
        params, sequence = _params(row)
        mean, se, _ = _cv_by_hand(tree, params, Xa, ya, ca, folds, sequence)
        assert mean == pytest.approx(row["cv_measure"], rel=1e-12)
        assert se == pytest.approx(row["cv_se"], rel=1e-12)
    # se_rule=0: the least cross-validated average cost wins (the earlier candidate on a
    # tie to the last bits: here candidates 6 and 7 differ by one ulp)
    k = int(np.flatnonzero(results["chosen"])[0])
    assert results["cv_measure"].iloc[k] == pytest.approx(results["cv_measure"].min(),
                                                          rel=1e-12)
    # the chosen setting grown on the training rows, pruned on the validation rows
    chosen = results.iloc[k]
    params, sequence = _params(chosen)
    pruned, measure = _by_hand(tree, params, train, valid, sequence)
    assert best.tree_.weighted_n_node_samples[0] == len(y)
    assert best.get_n_leaves() == pruned.get_n_leaves() == chosen["n_leaves"]
    assert measure == pytest.approx(chosen["valid_measure"], rel=1e-12)
    assert results["valid_measure"].drop(index=k).isna().all()


def test_cross_validation_without_validation_rows(data, tree):
    (X, y, c), _ = data
    folds = StratifiedKFold(4, shuffle=True, random_state=1)
    best, results = fit_recommended(tree, X, y, costs=c, cv=folds, return_results=True)
    assert "valid_measure" not in results
    chosen = results[results["chosen"]].iloc[0]
    params = {"decision_rule": "leaf", "criterion": chosen["criterion"],
              "posterior_smoothing": 0.0}
    _, _, study = _cv_by_hand(tree, params, X, y, c, folds)
    # grown on every training row, pruned to the subtree the cross-validation chose
    assert best.tree_.weighted_n_node_samples[0] == len(y)
    assert best.get_n_leaves() == study.selected_n_leaves_ == chosen["n_leaves"]
    # an integer cv with a random_state gives the same folds every time
    a = fit_recommended(tree, X, y, costs=c, cv=3, random_state=5, return_results=True)[1]
    b = fit_recommended(tree, X, y, costs=c, cv=3, random_state=5, return_results=True)[1]
    pd.testing.assert_frame_equal(a, b)


def _oof_losses_by_hand(tree, params, X, y, c, folds, alpha):
    """Each case's realised cost under the tree of the fold that held it out, grown with
    ``params`` on the other folds and pruned at ``alpha`` (fitted with ``ccp_alpha``)."""
    out = np.full(len(y), np.nan)
    for train_idx, test_idx in folds.split(X, y):
        fold = clone(tree).set_params(**params, ccp_alpha=float(alpha)).fit(
            X.iloc[train_idx], y.iloc[train_idx], costs=c.iloc[train_idx])
        result = fold.decide(X.iloc[test_idx], y.iloc[test_idx], costs=c.iloc[test_idx])
        out[test_idx] = result.cases["CL_y"].to_numpy()
    return out


@pytest.mark.parametrize("rule", ["leaf", "case"])
def test_paired_comparison_by_hand(data, tree, rule):
    (X, y, c), _ = data
    folds = StratifiedKFold(4, shuffle=True, random_state=4)
    cands = [{"decision_rule": rule, "criterion": "gini", "posterior_smoothing": 0.0},
             {"decision_rule": rule, "criterion": "profit", "posterior_smoothing": 0.0},
             {"decision_rule": rule, "criterion": "gini", "posterior_smoothing": 0.0,
              "min_samples_leaf": 60}]
    _, results = fit_recommended(tree, X, y, costs=c, cv=folds, candidates=cands,
                                 se_rule=0.0, return_results=True)
    losses = []
    for params, (_, row) in zip(cands, results.iterrows()):
        mean, _, study = _cv_by_hand(tree, params, X, y, c, folds)
        alpha = study.results_["cv_alpha"].iloc[study.selected_index_]
        losses.append(_oof_losses_by_hand(tree, params, X, y, c, folds, alpha))
        # the held-out cases' costs average to the cross-validated measure
        assert losses[-1].mean() == pytest.approx(row["cv_measure"], rel=1e-9)
    diff = [loss - losses[0] for loss in losses]
    np.testing.assert_allclose(results["paired_diff"], [d.mean() for d in diff],
                               rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(results["paired_se"],
                               [d.std() / np.sqrt(len(d)) for d in diff], rtol=1e-9,
                               atol=1e-12)
    mean = results["cv_measure"].to_numpy()
    se = results["paired_se"].to_numpy()
    for k in (0.0, 1.0, 1e6):
        _, again = fit_recommended(tree, X, y, costs=c, cv=folds, candidates=cands,
                                   se_rule=k, return_results=True)
        # the first candidate, unless another beats it by more than k paired standard
        # errors: then the best of those (costs: lower is better)
        ahead = [j for j in range(3) if j == 0 or mean[j] < mean[0] - k * se[j] - 1e-12]
        expected = min(ahead, key=lambda j: (round(mean[j], 12), j))
        assert int(np.flatnonzero(again["chosen"])[0]) == expected


def test_one_standard_error_rule(data, tree):
    (X, y, c), _ = data
    folds = StratifiedKFold(4, shuffle=True, random_state=2)
    # the Gini tree with a large, then with a small leaf minimum
    cands = [{"criterion": "gini", "min_samples_leaf": 200},
             {"criterion": "gini", "min_samples_leaf": 10}]
    _, results = fit_recommended(tree, X, y, costs=c, cv=folds, candidates=cands,
                                 se_rule=0.0, return_results=True)
    mean, se = results["cv_measure"].to_numpy(), results["paired_se"].to_numpy()
    assert results["chosen"].iloc[int(np.argmin(mean))]
    for rule in (None, 1.0, 1e6):
        _, again = fit_recommended(tree, X, y, costs=c, cv=folds, candidates=cands,
                                   se_rule=rule, return_results=True)
        # the second one only if it beats the first by more than one (here: 1 or 1e6)
        # standard error of their paired difference
        margin = (1.0 if rule is None else rule) * se[1]
        assert again["chosen"].iloc[1] == bool(mean[1] < mean[0] - margin)
    # a million standard errors keep the first candidate whatever the measures
    assert fit_recommended(tree, X, y, costs=c, cv=folds, candidates=cands,
                           se_rule=1e6).min_samples_leaf == 200


def test_choice_within_and_between_rules():
    from dtdecide.tree._studies._recommend import _choose

    # losses (lower is better); leaf candidates 0-1, case candidates 2-4
    scores = np.array([1.00, 0.95, 0.97, 0.90, 0.93])
    se = np.array([0.10, 0.10, 0.01, 0.01, 0.01])
    rules = ["leaf", "leaf", "case", "case", "case"]
    # no rule: the least loss
    assert _choose(scores, se, False, 0.0, rules) == 3
    # leaf: 1.00 is within one se (0.10) of 0.95, so the first leaf candidate is chosen;
    # case: 0.90 is best and 0.93 is 3 se away; between the rules 0.90 beats 1.00
    assert _choose(scores, se, False, {"leaf": 1.0, "case": 0.0}, rules) == 3
    # leaf candidates only: the first one
    assert _choose(scores[:2], se[:2], False, {"leaf": 1.0}, rules[:2]) == 0
    # profit (higher is better) with ties: the earlier candidate
    assert _choose(np.array([2.0, 3.0, 3.0]), None, True, 0.0) == 1
    # paired: se is each candidate's standard error of its difference to the first of
    # its rule; the leaf rule's 0.95 beats 1.00 by 0.05 > 0.04 (one paired se), the
    # case rule's 0.90 beats 0.97 by 0.07 < 0.08 (one se) and 0.93 by 0.04 > 0.03
    paired_se = np.array([0.0, 0.04, 0.0, 0.08, 0.03])
    # between the rules: 0.93 (case) beats 0.95 (leaf)
    assert _choose(scores, paired_se, False, {"leaf": 1.0, "case": 1.0}, rules,
                   paired=True) == 4
    assert _choose(scores[:2], paired_se[:2], False, 1.0, rules[:2], paired=True) == 1
    assert _choose(scores[:2], paired_se[:2], False, 2.0, rules[:2], paired=True) == 0
    assert _choose(scores[2:], paired_se[2:], False, 1.0, rules[2:], paired=True) == 2


def test_repeated_cross_validation(data, tree):
    (X, y, c), _ = data
    cands = [{"criterion": "gini", "posterior_smoothing": 0.0},
             {"criterion": "profit", "posterior_smoothing": 0.0}]
    from dtdecide.tree._studies._recommend import _oof_se

    # one pass of folds: the held-out cases' standard error is the study's
    fitted = clone(tree).set_params(**cands[1]).fit(X, y, costs=c)
    study = PruningStudy(fitted, cv=StratifiedKFold(3, shuffle=True, random_state=0),
                         se_rule=0.0)
    study._keep_oof = True
    study.fit(X_train=X, y_train=y, costs_train=c)
    assert _oof_se(study.oof_values_) == pytest.approx(
        study.results_["cv_se"].iloc[study.selected_index_], rel=1e-9)
    # two repeats are the same as a splitter of both repeats' folds, each case's
    # measure averaged over its two held-out folds
    seed = int(np.random.RandomState(7).randint(np.iinfo(np.int32).max))
    from sklearn.model_selection import RepeatedStratifiedKFold

    splitter = RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=seed)
    _, twice = fit_recommended(tree, X, y, costs=c, cv=3, cv_repeats=2, random_state=7,
                               candidates=cands, se_rule=0.0, return_results=True)
    losses = []
    for params, (_, row) in zip(cands, twice.iterrows()):
        fitted = clone(tree).set_params(**params).fit(X, y, costs=c)
        study = PruningStudy(fitted, cv=splitter, se_rule=0.0).fit(X_train=X, y_train=y,
                                                                   costs_train=c)
        k = study.selected_index_
        assert row["cv_measure"] == pytest.approx(study.results_["cv_mean"].iloc[k],
                                                  rel=1e-12)
        alpha = study.results_["cv_alpha"].iloc[k]
        per_repeat = []
        for r in range(2):
            folds = list(splitter.split(X, y))[3 * r:3 * r + 3]
            per_repeat.append(_oof_losses_by_hand(tree, params, X, y, c, _Fixed(folds),
                                                  alpha))
        loss = (per_repeat[0] + per_repeat[1]) / 2
        losses.append(loss)
        # unit weights: the average over the repeats is the cross-validated measure
        assert loss.mean() == pytest.approx(row["cv_measure"], rel=1e-9)
        # a case counts once in the standard error
        assert row["cv_se"] == pytest.approx(loss.std() / np.sqrt(len(loss)), rel=1e-9)
    diff = losses[1] - losses[0]
    assert twice["paired_diff"].iloc[1] == pytest.approx(diff.mean(), rel=1e-9, abs=1e-12)
    assert twice["paired_se"].iloc[1] == pytest.approx(diff.std() / np.sqrt(len(diff)),
                                                       rel=1e-9)
    with pytest.raises(ValueError, match="cv_repeats"):
        fit_recommended(tree, X, y, costs=c, cv=3, cv_repeats=0)
    with pytest.raises(ValueError, match="cv_repeats=2 needs an integer cv"):
        fit_recommended(tree, X, y, costs=c, cv=splitter, cv_repeats=2)
    with pytest.raises(ValueError, match="cv_repeats=2 needs an integer cv"):
        fit_recommended(tree, X, y, costs=c, cv=None, cv_repeats=2)


class _Fixed:
    """A splitter that yields given folds."""

    def __init__(self, folds):
        self.folds = folds

    def split(self, X, y=None):
        yield from self.folds
