"""The models' posteriors feed the decision engine (columns follow ``classes_``)."""

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import make_blobs
from sklearn.linear_model import LogisticRegression

from dtdecide import DecisionEstimator, DecisionMatrix, decide
from dtdecide.models import (
    BenefitWeightedLogisticRegression,
    CostSensitiveNaiveBayes,
    FlatCostSensitiveClassifier,
    HierarchicalCostSensitiveClassifier,
)

X, Y_INT = make_blobs([120, 50, 30], centers=[[0, 0], [2, 0], [0, 2]], random_state=0)
Y = np.array(["keep", "call", "visit"])[Y_INT]  # sorted classes: call, keep, visit
PROFIT = np.array(
    [[5.0, -1.0, -2.0], [-1.0, 1.0, -3.0], [-2.0, -2.0, 8.0]]
)  # rows: call, keep, visit


@pytest.mark.parametrize(
    "model",
    [
        BenefitWeightedLogisticRegression(),
        CostSensitiveNaiveBayes(),
        FlatCostSensitiveClassifier(random_state=0),
        HierarchicalCostSensitiveClassifier(LogisticRegression(), LogisticRegression()),
    ],
    ids=lambda m: type(m).__name__,
)
def test_decide_on_predict_proba(model):
    model.fit(X, Y)
    np.testing.assert_array_equal(model.classes_, ["call", "keep", "visit"])
    # the matrix lists the levels in a different order than classes_
    order = [2, 0, 1]
    matrix = DecisionMatrix(
        PROFIT[order],
        levels=model.classes_[order],
        decisions=["do_call", "do_keep", "do_visit"],
    )
    post = pd.DataFrame(model.predict_proba(X), columns=model.classes_)
    result = decide(post, matrix, y=Y)
    expected = np.array(["do_call", "do_keep", "do_visit"])[np.argmax(post.to_numpy() @ PROFIT, 1)]
    np.testing.assert_array_equal(result.cases["D_target"], expected)
    wrapped = DecisionEstimator(model, matrix).fit(X, Y).decide(X, Y)
    np.testing.assert_array_equal(wrapped.cases["D_target"], expected)


def test_naive_bayes_cost_rule_equals_engine_with_negated_costs():
    V = np.array([[0.0, 1.0, 6.0], [2.0, 0.0, 1.0], [9.0, 4.0, 0.0]])
    nb = CostSensitiveNaiveBayes(cost_matrix=V).fit(X, Y)
    matrix = DecisionMatrix(V, levels=nb.classes_, decisions=list(nb.classes_), kind="loss")
    result = decide(nb.predict_proba(X), matrix)
    np.testing.assert_array_equal(result.cases["D_target"], nb.predict(X))


# ------------------------------------------------ class-level DecisionMatrix as parameter
LOSS = np.array([[0.0, 1.0, 6.0], [2.0, 0.0, 1.0], [9.0, 4.0, 0.0]])  # classes_ order
PRIORS = np.array([0.2, 0.5, 0.3])


def _class_matrix(values, kind, priors=None):
    """``values`` (rows/columns in classes_ order) as a DecisionMatrix listing the
    levels and the decisions in other orders than classes_."""
    classes = np.array(["call", "keep", "visit"])
    rows, cols = [2, 0, 1], [1, 2, 0]
    return DecisionMatrix(
        values[np.ix_(rows, cols)], levels=classes[rows], decisions=list(classes[cols]),
        kind=kind, priors=None if priors is None else priors[rows],
    )


@pytest.mark.parametrize("kind", ["loss", "profit"])
def test_naive_bayes_takes_a_decision_matrix(kind):
    values = LOSS if kind == "loss" else -LOSS
    matrix = _class_matrix(values, kind, PRIORS)
    nb = CostSensitiveNaiveBayes(cost_matrix=matrix).fit(X, Y)
    ref = CostSensitiveNaiveBayes(cost_matrix=LOSS, priors=PRIORS).fit(X, Y)
    np.testing.assert_allclose(nb.cost_matrix_, LOSS)
    np.testing.assert_allclose(np.exp(nb.class_log_prior_), PRIORS)
    assert nb.decision_matrix_ is matrix
    np.testing.assert_array_equal(nb.predict(X), ref.predict(X))
    # the engine, given the same matrix and the model's posteriors, decides the same
    result = decide(pd.DataFrame(nb.predict_proba(X), columns=nb.classes_), matrix, y=Y)
    np.testing.assert_array_equal(result.cases["D_target"], nb.predict(X))


@pytest.mark.parametrize("kind", ["profit", "loss"])
def test_benefit_regression_takes_a_decision_matrix(kind):
    values = PROFIT if kind == "profit" else -PROFIT
    matrix = _class_matrix(values, kind, PRIORS)
    model = BenefitWeightedLogisticRegression(benefit_matrix=matrix).fit(X, Y)
    ref = BenefitWeightedLogisticRegression(benefit_matrix=PROFIT, priors=PRIORS).fit(X, Y)
    np.testing.assert_allclose(model.benefit_matrix_, PROFIT)
    np.testing.assert_allclose(model.priors_, PRIORS)
    np.testing.assert_allclose(model.eta_, ref.eta_)
    np.testing.assert_allclose(model.predict_proba(X), ref.predict_proba(X))
    assert model.decision_matrix_ is matrix
    # without priors in the matrix, the training proportions are the priors
    plain = BenefitWeightedLogisticRegression(benefit_matrix=_class_matrix(values, kind))
    counts = np.unique(Y, return_counts=True)[1]
    np.testing.assert_allclose(plain.fit(X, Y).priors_, counts / counts.sum())


@pytest.mark.parametrize(
    "matrix, extra, message",
    [
        (DecisionMatrix(LOSS, levels=["call", "keep", "visit"], decisions=["a", "b", "c"],
                        kind="loss"), {}, "named by the class labels"),
        (DecisionMatrix(LOSS[:2, :], levels=["call", "keep"],
                        decisions=["call", "keep", "visit"], kind="loss"), {},
         "one level per class"),
        (_class_matrix(LOSS, "loss", PRIORS), {"priors": PRIORS}, "priors are given twice"),
        (DecisionMatrix({"call": [1, 0, 0], "keep": [0, 1, 0], "visit": [0, 0, 1]},
                        levels=["call", "keep", "visit"], kind="revenue",
                        costs={"call": "c"}), {}, "profit or loss"),
        (DecisionMatrix([[0, 1], [2, 3]], knots=[0, 1], kind="loss"), {}, "interval"),
    ],
    ids=["decision-names", "levels", "priors-twice", "revenue", "interval"],
)
def test_decision_matrix_parameter_errors(matrix, extra, message):
    with pytest.raises(ValueError, match=message):
        CostSensitiveNaiveBayes(cost_matrix=matrix, **extra).fit(X, Y)
    with pytest.raises(ValueError, match=message):
        BenefitWeightedLogisticRegression(benefit_matrix=matrix, **extra).fit(X, Y)
