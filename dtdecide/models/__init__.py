"""Benefit-based and cost-based classifiers (second source document).

- the benefit metric for scorers and hard predictions: :func:`benefit_curve`,
  :func:`benefit_metric`, :func:`best_benefit_threshold`, :func:`benefit_from_confusion`,
  :func:`benefit_score`, with helpers :func:`benefit_eta` and :func:`one_vs_rest_benefits`;
- :class:`BenefitWeightedLogisticRegression` (binary and one-vs-rest multiclass);
- :class:`CostSensitiveNaiveBayes` (categorical naive Bayes with a cost matrix);
- :class:`FlatCostSensitiveClassifier` and :class:`HierarchicalCostSensitiveClassifier`
  (minority groups versus one majority group), with the default base model
  :func:`make_kernel_logistic_regression` and the parameters
  :func:`hierarchical_cost_parameters`.

Every estimator's ``predict_proba`` columns follow ``classes_``, so its posteriors can be
fed to the decision engine (``dtdecide.decide``).
"""

from ._benefit import (
    benefit_curve,
    benefit_eta,
    benefit_from_confusion,
    benefit_metric,
    benefit_score,
    best_benefit_threshold,
    one_vs_rest_benefits,
)
from ._benefit_lr import BenefitWeightedLogisticRegression
from ._hierarchical import (
    FlatCostSensitiveClassifier,
    HierarchicalCostSensitiveClassifier,
    hierarchical_cost_parameters,
    make_kernel_logistic_regression,
)
from ._naive_bayes import CostSensitiveNaiveBayes

__all__ = [
    "BenefitWeightedLogisticRegression",
    "CostSensitiveNaiveBayes",
    "FlatCostSensitiveClassifier",
    "HierarchicalCostSensitiveClassifier",
    "hierarchical_cost_parameters",
    "make_kernel_logistic_regression",
    "benefit_curve",
    "benefit_eta",
    "benefit_from_confusion",
    "benefit_metric",
    "benefit_score",
    "best_benefit_threshold",
    "one_vs_rest_benefits",
]
