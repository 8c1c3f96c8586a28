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
