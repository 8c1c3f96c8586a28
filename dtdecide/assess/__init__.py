"""dtdecide.assess: profit charts, thresholds, model comparison and what-if analysis.

Works for dtdecide trees, any scikit-learn model wrapped with a decision matrix
(:class:`~dtdecide.DecisionEstimator`) and pre-scored posteriors.
"""

from ._profit_curve import best_depth, best_threshold, profit_curve
from ._scoring import redecide
from ._threshold import binary_threshold, diagonal_form, equivalent_priors

__all__ = [
    "best_depth",
    "best_threshold",
    "binary_threshold",
    "diagonal_form",
    "equivalent_priors",
    "profit_curve",
    "redecide",
]
