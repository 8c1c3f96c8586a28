"""dtdecide.decision: decision matrices, consequences and the decision engine.

Turns any model's posteriors (or predicted values) into decisions and profit figures
from a decision matrix of profit, loss or revenue, optional case-level costs and
priors; under a capacity or a budget (``decide(..., capacity=..., budget=...)``,
:func:`allocate`) the limited decisions go where they gain most. This subpackage imports
nothing else from dtdecide.
"""

from ._capacity import allocate
from ._consequences import Consequences
from ._crossval import cross_validate_decisions
from ._engine import decide, mean_costs
from ._estimator import DecisionEstimator, model_posteriors
from ._kernels import (
    adjust_posteriors,
    decide_arrays,
    encode_target,
    interpolate_knots,
    prior_adjustment_weights,
    roi,
)
from ._matrix import DecisionMatrix
from ._result import DecisionResult
from ._scorer import make_profit_scorer

__all__ = [
    "Consequences",
    "DecisionEstimator",
    "DecisionMatrix",
    "DecisionResult",
    "adjust_posteriors",
    "allocate",
    "cross_validate_decisions",
    "decide",
    "decide_arrays",
    "encode_target",
    "interpolate_knots",
    "make_profit_scorer",
    "mean_costs",
    "model_posteriors",
    "prior_adjustment_weights",
    "roi",
]
