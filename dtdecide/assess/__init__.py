"""dtdecide.assess: profit charts, thresholds, model comparison and what-if analysis.

Works for dtdecide trees, any scikit-learn model wrapped with a decision matrix
(:class:`~dtdecide.DecisionEstimator`), plain fitted scikit-learn models given a
matrix, and pre-scored posteriors. Also Qini and uplift charts of a score or a policy
tree on logged treated and control cases (:func:`uplift_curve`,
:class:`UpliftCurveDisplay`).
"""

from ._compare import ImplicitDoNothingWarning, compare_models
from ._display import ProfitCurveDisplay, plot_profit_curves, profit_curves
from ._profit_curve import best_depth, best_threshold, profit_curve
from ._rare import balanced_sample, misclassification_rates
from ._scoring import redecide
from ._threshold import binary_threshold, diagonal_form, equivalent_priors
from ._uplift import UpliftCurveDisplay, uplift_curve
from ._whatif import what_if, what_if_curves

__all__ = [
    "ImplicitDoNothingWarning",
    "ProfitCurveDisplay",
    "UpliftCurveDisplay",
    "balanced_sample",
    "best_depth",
    "best_threshold",
    "binary_threshold",
    "compare_models",
    "diagonal_form",
    "equivalent_priors",
    "misclassification_rates",
    "plot_profit_curves",
    "profit_curve",
    "profit_curves",
    "redecide",
    "uplift_curve",
    "what_if",
    "what_if_curves",
]
