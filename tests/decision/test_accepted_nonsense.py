"""Inputs that used to be accepted and silently misread are refused (issue 13 §2)."""

import warnings

import numpy as np
import pandas as pd
import pytest

from dtdecide import DecisionMatrix, ProfitTreeClassifier, adjust_posteriors, decide
from dtdecide.models import CostSensitiveNaiveBayes
from dtdecide.models._benefit import check_priors


@pytest.fixture(scope="module")
def data():
    X = pd.DataFrame({"x": np.arange(40) % 7})
    y = np.array(["yes" if i % 3 == 0 else "no" for i in range(40)])
    return X, y


PROFIT = DecisionMatrix({"call": [10, -1], "skip": [0, 0]}, levels=["yes", "no"])


@pytest.mark.parametrize("kind", ["profit", "loss"])
def test_fit_refuses_costs_for_a_matrix_without_cost_variables(data, kind):
    X, y = data
    m = PROFIT.replace(kind=kind)
    with pytest.raises(ValueError, match=f"costs must be None for a {kind} matrix"):
        ProfitTreeClassifier(decision_matrix=m).fit(X, y, costs={"c": np.ones(40)})
    with pytest.raises(ValueError, match="costs must be None"):
        ProfitTreeClassifier(decision_matrix=m).fit(X, y, costs=pd.DataFrame({"c": np.ones(40)}))


def test_negative_subtree_index_is_refused(data):
    X, y = data
    tree = ProfitTreeClassifier(decision_matrix=PROFIT, max_depth=3, min_samples_leaf=2).fit(X, y)
    for k in (-1, -2):
        with pytest.raises(ValueError, match="subtree_index must be in"):
            tree.prune(subtree_index=k)


def test_pruning_display_refuses_a_negative_selected_index():
    from dtdecide import PruningStudyDisplay

    with pytest.raises(ValueError, match="selected_index"):
        PruningStudyDisplay(n_leaves=np.array([3, 1]), train=np.array([1.0, 0.0]),
                            selected_index=-1)


@pytest.mark.parametrize("build", [
    lambda: DecisionMatrix({"a": [1, 2]}, levels="ab"),
    lambda: DecisionMatrix.case_specific(levels="ab", decisions=["x", "y"]),
    lambda: DecisionMatrix.from_cost_matrix([[1.0, 2.0, 3.0, 4.0]], levels="01"),
    lambda: DecisionMatrix([[1, 0], [0, 1]], levels=["a", "b"]).replace(levels="ba"),
])
def test_a_string_is_not_a_list_of_levels(build):
    with pytest.raises(TypeError, match="levels must be a list-like"):
        build()


def test_naive_bayes_categorical_features_string_and_negative_index():
    X = pd.DataFrame({"a": ["u", "v"] * 10, "b": np.arange(20.0)})
    y = [0, 1] * 10
    with pytest.raises(TypeError, match="categorical_features"):
        CostSensitiveNaiveBayes(categorical_features="a").fit(X, y)
    with pytest.raises(ValueError, match="categorical_features"):
        CostSensitiveNaiveBayes(categorical_features=[-2]).fit(X, y)


@pytest.mark.parametrize("priors, expected", [
    ([1e308, 1e308], [0.5, 0.5]),
    ([1e308, 3e307], [1 / 1.3, 0.3 / 1.3]),
    ([5e-324, 5e-324], [0.5, 0.5]),
    ([1, 3], [0.25, 0.75]),
])
def test_extreme_priors_normalise_without_overflow(priors, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        m = DecisionMatrix([[1, 0], [0, 1]], levels=["a", "b"], priors=priors)
        adj = adjust_posteriors([[0.5, 0.5]], priors=priors, train_priors=[0.5, 0.5])
        model_priors = check_priors(priors, 2)
    np.testing.assert_allclose(m.priors, expected, rtol=1e-12)
    np.testing.assert_allclose(adj[0], expected, rtol=1e-12)
    np.testing.assert_allclose(model_priors, expected, rtol=1e-12)
    assert np.isclose(m.priors.sum(), 1.0)


def test_frequencies_whose_total_overflows_are_refused(data):
    X, y = data
    F = np.full(40, 1e307)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="sample_weight must have a finite total"):
            ProfitTreeClassifier(decision_matrix=PROFIT).fit(X, y, sample_weight=F)
        with pytest.raises(ValueError, match="sample_weight must have a finite total"):
            decide(np.full((40, 2), 0.5), PROFIT, sample_weight=F)
