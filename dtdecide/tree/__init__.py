"""dtdecide.tree: profit trees with one business decision per leaf.

:class:`ProfitTreeClassifier` (binary, nominal and ordinal targets) and
:class:`ProfitTreeRegressor` (interval targets) grow fast histogram trees on numeric,
categorical and missing inputs; with a :class:`~dtdecide.DecisionMatrix` every leaf
carries the decision that maximises its expected profit. :class:`PruningStudy`
chooses a subtree of the profit-driven weakest-link sequence.
"""

from ._classes import ProfitTreeClassifier, ProfitTreeRegressor
from ._encode import IdentifierColumnWarning, UnseenCategoryWarning
from ._pruning_display import PruningStudyDisplay
from ._study import PruningStudy, best_subtree_of_size, best_subtrees_by_size, select_subtree

__all__ = [
    "IdentifierColumnWarning",
    "ProfitTreeClassifier",
    "ProfitTreeRegressor",
    "PruningStudy",
    "PruningStudyDisplay",
    "best_subtree_of_size",
    "best_subtrees_by_size",
    "UnseenCategoryWarning",
    "select_subtree",
]
