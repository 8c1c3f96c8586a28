"""``split_weights="loss"`` (Breiman's altered priors) and ``use_priors="auto"``.

The class weights are checked against hand computations from the design formulas
(regret ``L(t, d) = max_d' Qbar(t, d') - Qbar(t, d)``, row sums, times ``pi / rho``,
rescaled to average 1 over the training cases); the grown trees are checked to change
only in their splits: node counts, posteriors and leaf decisions follow the training
rows of each node exactly as without the option.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.base import clone

from dtdecide import DecisionMatrix, ProfitTreeClassifier, ProfitTreeRegressor

Q3 = [[2.0, -1.0, -6.0], [-3.0, 4.0, 1.0], [-10.0, 6.0, 25.0]]
LEVELS3 = ["low", "mid", "high"]


def three_class(n=900, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n),
                      "c": rng.choice(["p", "q", "r", "s"], n)})
    score = X["a"] + 0.5 * X["b"] * (X["c"] == "q") + rng.normal(scale=0.8, size=n)
    y = np.array(LEVELS3, dtype=object)[np.searchsorted(np.quantile(score, [0.6, 0.9]),
                                                          score)]
    return X, y


def small_fit_data(counts, seed=0):
    """One numeric input; class ``k`` appears ``counts[k]`` times."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.array(LEVELS3[: len(counts)], dtype=object), counts)
    X = pd.DataFrame({"x": rng.normal(size=len(y))})
    return X, y


def _fit(matrix, X, y, **kwargs):
    params = dict(decision_matrix=matrix, max_depth=4, min_samples_leaf=5)
    params.update(kwargs)
    return ProfitTreeClassifier(**params).fit(X, y)


# --------------------------------------------------------------------- weights by hand
def test_loss_weights_of_a_profit_matrix_by_hand():
    X, y = small_fit_data([6, 3, 1])
    m = DecisionMatrix(Q3, levels=LEVELS3, decisions=["basic", "standard", "premium"])
    tree = _fit(m, X, y, split_weights="loss", max_depth=1)
    # regret rows: [0, 3, 8] -> 11, [7, 0, 3] -> 10, [35, 19, 0] -> 54
    # training mean of the weights: 0.6 * 11 + 0.3 * 10 + 0.1 * 54 = 15
    np.testing.assert_allclose(tree.split_class_weight_, [11 / 15, 10 / 15, 54 / 15])
    assert tree.use_priors_ is False


def test_loss_weights_use_costs_at_their_weighted_training_mean():
    # revenue 30 for a subscriber who is contacted; contact cost per case
    m = DecisionMatrix({"contact": [30.0, 0.0], "skip": [0.0, 0.0]}, levels=["yes", "no"],
                       kind="revenue", costs={"contact": "c"})
    X = pd.DataFrame({"x": np.arange(8.0)})
    y = np.array(["yes", "no", "no", "no", "yes", "no", "no", "no"], dtype=object)
    c = np.array([1.0, 1.0, 2.0, 2.0, 3.0, 4.0, 4.0, 4.0])
    F = np.array([1.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0])
    tree = ProfitTreeClassifier(decision_matrix=m, split_weights="loss", max_depth=1,
                                min_samples_leaf=1, min_samples_split=2)
    tree.fit(X, y, sample_weight=F, costs={"c": c})
    # weighted mean cost (1 + 1 + 2 + 2 + 2 * (3 + 4 + 4 + 4)) / 12 = 3
    # Qbar = [[30 - 3, 0], [-3, 0]]: regret yes [0, 27] -> 27, no [3, 0] -> 3
    raw = np.array([27.0, 3.0])
    rho = np.array([3.0, 9.0]) / 12.0  # frequencies of yes (F 1 + 2) and no
    np.testing.assert_allclose(tree.split_class_weight_, raw / (raw @ rho))
    # the unweighted mean cost (21 / 8) would give other weights
    unweighted = np.array([30.0 - 21 / 8, 21 / 8])
    assert not np.allclose(tree.split_class_weight_, unweighted / (unweighted @ rho))


def test_loss_weights_times_priors_over_training_proportions():
    X, y = small_fit_data([6, 3, 1])
    pri = np.array([0.2, 0.3, 0.5])
    m = DecisionMatrix(Q3, levels=LEVELS3, priors=pri)
    tree = _fit(m, X, y, split_weights="loss", max_depth=1)
    assert tree.use_priors_ is True
    rho = np.array([0.6, 0.3, 0.1])
    raw = np.array([11.0, 10.0, 54.0]) * pri / rho
    np.testing.assert_allclose(tree.split_class_weight_, raw / (raw @ rho))
    # without "loss", only the priors reweight
    only = _fit(m, X, y, max_depth=1)
    np.testing.assert_allclose(only.split_class_weight_, (pri / rho) / ((pri / rho) @ rho))
    # weights average 1 over the training cases
    codes = pd.Series(y).map({lv: k for k, lv in enumerate(LEVELS3)}).to_numpy()
    assert tree.split_class_weight_[codes].mean() == pytest.approx(1.0)


def test_loss_matrix_is_used_as_given():
    X, y = small_fit_data([5, 15])
    m = DecisionMatrix([[1.0, 2.0], [5.0, 0.0]], levels=LEVELS3[:2], kind="loss")
    tree = _fit(m, X, y, split_weights="loss", max_depth=1)
    raw = np.array([3.0, 5.0])  # row sums of the loss matrix itself
    rho = np.array([0.25, 0.75])
    np.testing.assert_allclose(tree.split_class_weight_, raw / (raw @ rho))


def test_case_specific_consequences_are_averaged_over_training_cases():
    rng = np.random.default_rng(3)
    X, y = small_fit_data([10, 10])
    n = len(y)
    q = rng.uniform(-5, 20, size=(n, 2, 2))
    F = rng.uniform(0.5, 2.0, size=n)
    m = DecisionMatrix.case_specific(levels=LEVELS3[:2], decisions=["a", "b"])
    tree = ProfitTreeClassifier(decision_matrix=m, split_weights="loss", max_depth=1)
    tree.fit(X, y, sample_weight=F, costs=q)
    qbar = sum(F[i] * q[i] for i in range(n)) / F.sum()  # slow, obvious
    raw = np.array([max(qbar[t]) * 2 - qbar[t].sum() for t in range(2)])
    rho = np.array([F[:10].sum(), F[10:].sum()]) / F.sum()
    np.testing.assert_allclose(tree.split_class_weight_, raw / (raw @ rho))


def test_no_reweighting_leaves_split_class_weight_none():
    X, y = small_fit_data([6, 3, 1])
    m = DecisionMatrix(Q3, levels=LEVELS3)
    assert _fit(m, X, y).split_class_weight_ is None
    assert ProfitTreeClassifier(max_depth=2).fit(X, y).split_class_weight_ is None


# --------------------------------------------------------------------- properties
profit_matrices = arrays(np.float64, (3, 3),
                         elements=st.floats(-50, 50, allow_nan=False).map(round))


@settings(max_examples=25, deadline=None)
@given(q=profit_matrices, shift=arrays(np.float64, 3, elements=st.integers(-20, 20)),
       scale=st.sampled_from([0.5, 2.0, 7.0]))
def test_weights_ignore_row_constants_and_positive_scale(q, shift, scale):
    X, y = small_fit_data([6, 3, 1])
    if not np.any(q.max(axis=1, keepdims=True) - q):
        return  # no decision matters: that case raises (tested below)
    base = _fit(DecisionMatrix(q, levels=LEVELS3), X, y, split_weights="loss", max_depth=1)
    moved = DecisionMatrix(scale * (q + shift[:, None]), levels=LEVELS3)
    other = _fit(moved, X, y, split_weights="loss", max_depth=1)
    np.testing.assert_allclose(other.split_class_weight_, base.split_class_weight_)
    regret = q.max(axis=1, keepdims=True) - q
    raw = regret.sum(axis=1)
    np.testing.assert_allclose(base.split_class_weight_,
                               raw / (raw @ np.array([0.6, 0.3, 0.1])))


# --------------------------------------------------------------------- trees
def _reference_leaf_fields(tree, X, y, matrix, F=None):
    """Raw class counts and decisions per node from the training rows (slow, obvious)."""
    F = np.ones(len(y)) if F is None else F
    path = tree.decision_path(X).toarray().astype(bool)
    codes = np.array([list(matrix.levels).index(v) for v in y])
    q = matrix.profit_values
    pri = None if matrix.priors is None else np.asarray(matrix.priors)
    values, decisions = [], []
    for node in range(tree.tree_.n_nodes):
        rows = path[:, node]
        counts = np.array([F[rows & (codes == k)].sum() for k in range(matrix.n_levels)])
        post = counts / counts.sum()
        if pri is not None:
            rho = np.array([F[codes == k].sum() for k in range(matrix.n_levels)]) / F.sum()
            post = post * pri / rho
            post = post / post.sum()
        values.append(counts)
        decisions.append(int(np.argmax(post @ q)))
    return np.array(values), np.array(decisions)


def test_split_search_changes_but_leaf_fields_follow_the_rows():
    X, y = three_class()
    m = DecisionMatrix(Q3, levels=LEVELS3, decisions=["basic", "standard", "premium"])
    plain = _fit(m, X, y, max_depth=3, min_samples_leaf=20)
    loss = _fit(m, X, y, split_weights="loss", max_depth=3, min_samples_leaf=20)
    t_plain, t_loss = plain.tree_, loss.tree_
    differs = (t_plain.n_nodes != t_loss.n_nodes
               or not np.array_equal(t_plain.threshold, t_loss.threshold, equal_nan=True))
    assert differs, "the altered priors should move at least one split here"
    for tree in (plain, loss):
        value, decision = _reference_leaf_fields(tree, X, y, m)
        np.testing.assert_allclose(tree.tree_.value, value)
        np.testing.assert_array_equal(tree.tree_.node_decision, decision)
    # the leaf statistics of the loss tree are those of a plain re-decision
    again = loss._redecide(loss.tree_, matrix=m)
    np.testing.assert_allclose(again.node_expected, t_loss.node_expected)


def test_loss_tree_equals_sample_weight_emulation():
    # Breiman's altered priors as H emulated them: case weights w(t) = L(t) / mean for
    # the split search. The row counts (min_samples_leaf) do not change, so the splits
    # must be the same; the loss tree's node counts stay unweighted.
    X, y = three_class(n=600, seed=4)
    # few distinct values (< max_bins): the bin edges cannot depend on the case weights
    X[["a", "b"]] = X[["a", "b"]].round(1)
    m = DecisionMatrix(Q3, levels=LEVELS3)
    loss = _fit(m, X, y, split_weights="loss", max_depth=3, min_samples_leaf=10)
    codes = np.array([LEVELS3.index(v) for v in y])
    w = loss.split_class_weight_[codes]
    emulated = ProfitTreeClassifier(decision_matrix=m, max_depth=3, min_samples_leaf=10)
    emulated.fit(X, y, sample_weight=w)
    a, b = loss.tree_, emulated.tree_
    np.testing.assert_array_equal(a.feature, b.feature)
    np.testing.assert_array_equal(a.n_node_samples, b.n_node_samples)
    np.testing.assert_allclose(a.impurity, b.impurity, atol=1e-12)
    np.testing.assert_allclose(a.value.sum(axis=1), a.n_node_samples)


def test_equal_row_sums_change_nothing():
    X, y = three_class()
    m = DecisionMatrix(np.eye(3), levels=LEVELS3)  # regret row sums all 2
    a = _fit(m, X, y, split_weights="loss", max_depth=3)
    b = _fit(m, X, y, max_depth=3)
    np.testing.assert_allclose(a.split_class_weight_, 1.0)
    np.testing.assert_array_equal(a.tree_.feature, b.tree_.feature)
    np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)


# --------------------------------------------------------------------- use_priors="auto"
def test_use_priors_auto_resolves_on_the_matrix():
    X, y = three_class()
    m = DecisionMatrix(Q3, levels=LEVELS3)
    with_priors = m.replace(priors=[0.2, 0.3, 0.5])
    auto = _fit(with_priors, X, y)
    on = _fit(with_priors, X, y, use_priors=True)
    off = _fit(with_priors, X, y, use_priors=False)
    assert ProfitTreeClassifier().use_priors == "auto"
    assert auto.use_priors_ is True and off.use_priors_ is False
    np.testing.assert_array_equal(auto.tree_.threshold, on.tree_.threshold)
    assert not np.array_equal(auto.tree_.threshold, off.tree_.threshold, equal_nan=True) \
        or auto.tree_.n_nodes != off.tree_.n_nodes
    plain_auto = _fit(m, X, y)
    plain_off = _fit(m, X, y, use_priors=False)
    assert plain_auto.use_priors_ is False
    np.testing.assert_array_equal(plain_auto.tree_.threshold, plain_off.tree_.threshold)
    assert ProfitTreeClassifier(max_depth=2).fit(X, y).use_priors_ is False


def test_use_priors_true_without_priors_still_raises():
    X, y = three_class(n=200)
    with pytest.raises(ValueError, match="use_priors=True needs a decision_matrix"):
        _fit(DecisionMatrix(Q3, levels=LEVELS3), X, y, use_priors=True)


def test_regressor_has_no_class_weighting_parameters():
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 10, size=(100, 1))
    y = X[:, 0] + rng.normal(size=100)
    m = DecisionMatrix({"go": [-5.0, 5.0], "stop": [0.0, 0.0]}, knots=[0.0, 10.0])
    reg = ProfitTreeRegressor(decision_matrix=m, max_depth=2).fit(X, y)
    assert reg.use_priors_ is False
    assert reg.split_class_weight_ is None
    # class weighting needs classes: the regressor does not offer these parameters
    for name in ("ordinal", "use_priors", "split_weights"):
        assert name not in reg.get_params()
        with pytest.raises(TypeError, match=name):
            ProfitTreeRegressor(**{name: True})


# --------------------------------------------------------------------- errors
def test_split_weights_errors_name_the_parameter():
    X, y = three_class(n=200)
    with pytest.raises(ValueError, match="split_weights"):
        ProfitTreeClassifier(split_weights="gini").fit(X, y)
    with pytest.raises(ValueError, match='split_weights="loss" needs a decision_matrix'):
        ProfitTreeClassifier(split_weights="loss").fit(X, y)
    with pytest.raises(ValueError, match="does not apply to an ordinal target"):
        _fit(DecisionMatrix(Q3, levels=LEVELS3), X, y, split_weights="loss", ordinal=True)
    negative = DecisionMatrix([[0.0, -4.0, 1.0], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0]],
                              levels=LEVELS3, kind="loss")
    with pytest.raises(ValueError, match="non-negative loss row sums"):
        _fit(negative, X, y, split_weights="loss")
    flat = DecisionMatrix([[1.0, 1.0], [2.0, 2.0], [0.0, 0.0]], levels=LEVELS3)
    with pytest.raises(ValueError, match="zero regret"):
        _fit(flat, X, y, split_weights="loss")


def test_split_weights_is_a_plain_parameter():
    est = ProfitTreeClassifier(split_weights="loss", use_priors=False)
    params = clone(est).get_params()
    assert params["split_weights"] == "loss" and params["use_priors"] is False
    assert "split_weights" not in ProfitTreeRegressor().get_params()
