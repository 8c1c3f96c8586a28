"""Decision quality on held-out data, on cases whose answer is known by construction.

The full comparison (bank data, rpart, repeated splits) is in
``benchmarks/bench_decision_quality.py``; these tests keep the main claim honest on a
small synthetic problem where a cost-aware leaf decision must beat a plain
scikit-learn tree whose leaf posteriors are turned into minimum-risk decisions.

Construction (``_region_data``): two regions of equal size. Region A responds with
probability 0.55 and costs about 4.5 to serve; region B responds with probability 0.2
and costs about 0.5. A response is worth 10. Serving therefore earns
``0.55 * 10 - 4.5 = 1.0`` per case in A and ``0.2 * 10 - 0.5 = 1.5`` in B: the best
policy serves everyone and earns about 1.25 per case. The cost is only known after the
decision, so a model that decides case by case can only use the training mean cost,
about 2.5, and then ``0.2 * 10 - 2.5 = -0.5 < 0`` makes it skip region B (about 0.5
per case). A profit tree decides each leaf with the average cost of its own training
cases and serves B.
"""


import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeClassifier

from dtdecide import DecisionMatrix, ProfitTreeClassifier, PruningStudy, decide
from dtdecide.decision import encode_target

P_RESPONSE = {"A": 0.55, "B": 0.2}
MEAN_COST = {"A": 4.5, "B": 0.5}
MIN_SAMPLES_LEAF = 100  # the same for both trees: keeps leaf posteriors steady
REVENUE = 10.0


def _matrix():
    return DecisionMatrix([[0.0, 0.0], [REVENUE, 0.0]], levels=["no", "yes"],
                          decisions=["serve", "skip"], kind="revenue",
                          costs={"serve": "serve_cost"})


def _region_data(n, seed):
    rng = np.random.default_rng(seed)
    region = rng.choice(np.array(["A", "B"]), size=n)
    X = pd.DataFrame({
        "region": pd.Categorical(region, categories=["A", "B"]),
        "noise": rng.normal(size=n),
    })
    p = np.where(region == "A", P_RESPONSE["A"], P_RESPONSE["B"])
    y = np.where(rng.random(n) < p, "yes", "no")
    mean_cost = np.where(region == "A", MEAN_COST["A"], MEAN_COST["B"])
    costs = pd.DataFrame({"serve_cost": mean_cost + rng.uniform(-0.5, 0.5, size=n)})
    return X, y, costs


def _realised_profit(d_idx, y, costs):
    """Average of Q(i, T(i), D(i)) with the actual costs, written out by hand."""
    is_yes = np.asarray(y) == "yes"
    serve = np.asarray(d_idx) == 0
    profit = np.where(serve, REVENUE * is_yes - costs["serve_cost"].to_numpy(), 0.0)
    return float(profit.mean())


def _codes(labels):
    return np.array([{"serve": 0, "skip": 1}[d] for d in labels])


@pytest.fixture(scope="module")
def parts():
    return {"train": _region_data(4000, 1), "valid": _region_data(2000, 2),
            "test": _region_data(4000, 3)}


@pytest.fixture(scope="module")
def full_tree(parts):
    X, y, costs = parts["train"]
    tree = ProfitTreeClassifier(decision_matrix=_matrix(), max_depth=None,
                                min_samples_leaf=MIN_SAMPLES_LEAF, random_state=0)
    return tree.fit(X, y, costs=costs)


@pytest.fixture(scope="module")
def profit_tree(parts, full_tree):
    """The full tree pruned by validation average profit."""
    Xv, yv, cv = parts["valid"]
    return PruningStudy(full_tree).fit(Xv, yv, costs_valid=cv).best_estimator_


def _baseline_decisions(model, X, mean_cost):
    """scikit-learn leaf posteriors -> minimum-risk decisions via dtdecide.decide."""
    post = pd.DataFrame(model.predict_proba(X), columns=model.classes_)[["no", "yes"]]
    expected = pd.DataFrame({"serve_cost": np.full(len(X), mean_cost)})
    return _codes(decide(post, _matrix(), costs=expected).cases["D_target"])


@pytest.fixture(scope="module")
def baseline(parts):
    """A scikit-learn tree tuned fairly: depth chosen by validation profit."""
    X, y, costs = parts["train"]
    Xv, yv, cv = parts["valid"]
    mean_cost = float(costs["serve_cost"].mean())
    best = None
    for depth in (1, 2, 3, 4, 6, 8, None):
        model = DecisionTreeClassifier(max_depth=depth, min_samples_leaf=MIN_SAMPLES_LEAF,
                                       random_state=0)
        model.fit(pd.get_dummies(X, dtype=float), y)
        score = _realised_profit(
            _baseline_decisions(model, pd.get_dummies(Xv, dtype=float), mean_cost), yv, cv)
        if best is None or score > best[0]:
            best = (score, model)
    return best[1], mean_cost


def test_construction_makes_the_mean_cost_decision_wrong(parts):
    # the premise of the comparison, from the data rather than from the constants
    X, y, costs = parts["train"]
    mean_cost = costs["serve_cost"].mean()
    in_b = (X["region"] == "B").to_numpy()
    p_b = np.mean(y[in_b] == "yes")
    assert p_b * REVENUE - mean_cost < 0  # with the overall mean cost, B is skipped
    assert p_b * REVENUE - costs["serve_cost"][in_b].mean() > 0  # with its own, served


def test_profit_tree_beats_sklearn_tree_with_min_risk_decisions(parts, profit_tree, baseline):
    Xt, yt, ct = parts["test"]
    ours = _realised_profit(_codes(profit_tree.predict_decision(Xt)), yt, ct)
    model, mean_cost = baseline
    theirs = _realised_profit(
        _baseline_decisions(model, pd.get_dummies(Xt, dtype=float), mean_cost), yt, ct)
    assert ours >= theirs
    # By construction the best policy earns about 1.25 per case and the mean-cost policy
    # (serve A, skip B) about 0.5. A deeper baseline tree serves a little of B through
    # noisy leaves, never most of it.
    assert ours - theirs > 0.4


def test_profit_tree_takes_the_best_decision_in_both_regions(parts, profit_tree):
    # the policy known to be best (serve everyone) is what the pruned tree does
    Xt = parts["test"][0]
    decisions = profit_tree.predict_decision(Xt)
    assert np.mean(decisions == "serve") >= 0.95
    # and its summary agrees with the profit written out by hand
    _, yt, ct = parts["test"]
    res = profit_tree.decide(Xt, yt, costs=ct)
    assert res.summary["average_profit"] == pytest.approx(
        _realised_profit(_codes(decisions), yt, ct), rel=1e-12)


@pytest.mark.parametrize("which", ["full", "pruned"])
def test_leaf_decisions_match_a_slow_reference(parts, full_tree, profit_tree, which):
    # reference: every leaf's decision from its training cases, by groupby
    tree = full_tree if which == "full" else profit_tree
    X, y, costs = parts["train"]
    leaf = tree.apply(X)
    frame = pd.DataFrame({"leaf": leaf, "yes": (np.asarray(y) == "yes").astype(float),
                          "cost": costs["serve_cost"].to_numpy()})
    per_leaf = frame.groupby("leaf").mean()
    serve_value = per_leaf["yes"] * REVENUE - per_leaf["cost"]
    expected = np.where(serve_value.to_numpy() >= 0, "serve", "skip")  # ties: first
    got = tree.predict_decision(X)
    got_per_leaf = pd.Series(got).groupby(leaf).first().reindex(per_leaf.index)
    np.testing.assert_array_equal(got_per_leaf.to_numpy(), expected)
    if which == "full":
        # a non-trivial check: many leaves, and in some of them the leaf's own average
        # cost gives another decision than the overall mean cost would
        with_mean_cost = per_leaf["yes"] * REVENUE - costs["serve_cost"].mean()
        assert per_leaf.shape[0] > 10
        assert np.any((with_mean_cost.to_numpy() >= 0) != (expected == "serve"))


@settings(max_examples=15, deadline=None)
@given(
    gain=st.floats(1.0, 30.0),
    waste=st.floats(0.1, 10.0),
    miss=st.floats(0.0, 5.0),
    seed=st.integers(0, 2**16),
)
def test_constant_matrix_profit_tree_decides_like_min_risk_on_its_posteriors(
        gain, waste, miss, seed):
    # With constant consequences the leaf decision is exactly the minimum-risk decision
    # of the leaf posteriors: any gain of the profit tree over sklearn+decide then comes
    # from the tree's shape and pruning, never from a different decision rule.
    rng = np.random.default_rng(seed)
    n = 600
    X = pd.DataFrame({"x": rng.normal(size=n), "z": rng.normal(size=n)})
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-2 * X["x"])), "yes", "no")
    matrix = DecisionMatrix([[-waste, 0.0], [gain, -miss]], levels=["no", "yes"],
                            decisions=["act", "wait"], kind="profit")
    tree = ProfitTreeClassifier(decision_matrix=matrix, max_depth=3,
                                min_samples_leaf=10, random_state=0).fit(X, y)
    post = pd.DataFrame(tree.predict_proba(X), columns=tree.classes_)
    engine = decide(post, matrix).cases["D_target"].to_numpy()
    np.testing.assert_array_equal(tree.predict_decision(X), engine)
    # and the realised profit agrees with the matrix written out by hand
    t = encode_target(y, matrix.levels)
    d = _codes_generic(engine, matrix.decisions)
    hand = matrix.profit_values[t, d].mean()
    assert tree.decide(X, y).summary["average_profit"] == pytest.approx(hand, rel=1e-12)


def _codes_generic(labels, decisions):
    index = {name: k for k, name in enumerate(decisions)}
    return np.array([index[label] for label in labels])


# ----------------------------------------------------------- split_weights="loss"
def _rare_value_data(n, seed):
    """Three classes where plain Gini splits on the wrong input for the decision.

    ``x1`` separates the common classes "low" and "mid" (90 % pure halves), which no
    decision cares about: both lose 1 when treated. ``x2 > 0.8`` holds half of the rare
    class "high", worth 25 when treated. Treating everyone earns about
    ``0.116 * 25 - 0.884 = 2.0`` per case; one split on ``x2`` that treats only its top
    fifth earns ``0.2 * (0.5 * 25 - 0.5) = 2.4``. Gini gains far more from ``x1``.
    """
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"x1": rng.random(n), "x2": rng.random(n)})
    high = rng.random(n) < np.where(X["x2"] > 0.8, 0.5, 0.02)
    common = np.where((X["x1"] < 0.5) == (rng.random(n) < 0.9), "low", "mid")
    y = np.where(high, "high", common)
    return X, y


def test_loss_split_weights_steer_the_split_to_the_valuable_class():
    matrix = DecisionMatrix({"treat": [-1.0, -1.0, 25.0], "skip": [0.0, 0.0, 0.0]},
                            levels=["low", "mid", "high"])
    X, y = _rare_value_data(4000, seed=0)
    X_test, y_test = _rare_value_data(4000, seed=1)
    kwargs = dict(decision_matrix=matrix, max_depth=1, min_samples_leaf=50)
    plain = ProfitTreeClassifier(**kwargs).fit(X, y)
    loss = ProfitTreeClassifier(split_weights="loss", **kwargs).fit(X, y)
    # regret row sums 1, 1, 25
    assert loss.split_class_weight_[2] / loss.split_class_weight_[0] == pytest.approx(25.0)
    assert plain.tree_.feature[0] == 0 and loss.tree_.feature[0] == 1
    got_plain = plain.decide(X_test, y_test).summary["average_profit"]
    got_loss = loss.decide(X_test, y_test).summary["average_profit"]
    assert got_plain == pytest.approx(2.0, abs=0.25)
    assert got_loss == pytest.approx(2.4, abs=0.25)
    assert got_loss > got_plain + 0.2
