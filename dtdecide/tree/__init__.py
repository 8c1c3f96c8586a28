"""dtdecide.tree: profit trees with one business decision per leaf.

:class:`ProfitTreeClassifier` (binary, nominal and ordinal targets) and
:class:`ProfitTreeRegressor` (interval targets) grow fast histogram trees on numeric,
categorical and missing inputs; with a :class:`~dtdecide.DecisionMatrix` every leaf
carries the decision that maximises its expected profit.
"""

from ._classes import ProfitTreeClassifier, ProfitTreeRegressor

__all__ = ["ProfitTreeClassifier", "ProfitTreeRegressor"]
