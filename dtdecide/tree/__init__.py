"""dtdecide.tree: profit trees with one business decision per leaf.

:class:`ProfitTreeClassifier` (binary, nominal and ordinal targets) and
:class:`ProfitTreeRegressor` (interval targets) grow fast histogram trees on numeric,
categorical and missing inputs; with a :class:`~dtdecide.DecisionMatrix` every leaf
carries the decision that maximises its expected profit. :class:`PruningStudy`
chooses a subtree of the profit-driven weakest-link sequence. A fitted tree's
``get_tree_view()`` returns its read-only :class:`FittedTreeView`, all that readers of
the tree (exports, charts, the command line) use.

The package is built in layers, each a sub-package that imports only from those below it:
``_kernels`` (array functions), ``_structure`` (the fitted tree and its view),
``_algorithms`` (growing, pruning, exact search, edits), ``_backends`` (Dask),
``_estimator`` (the estimators) and ``_studies`` (pruning studies and displays); see the
architecture page of the user guide.
"""

from . import _moved
from ._estimator._classes import ProfitTreeClassifier, ProfitTreeRegressor
from ._structure._encode import FeatureEncoding, IdentifierColumnWarning, UnseenCategoryWarning
from ._structure._leaf import DecisionStats
from ._structure._tree import TreeStructure
from ._structure._view import DECISION_PALETTE, FittedTreeView
from ._studies._pruning_display import PruningStudyDisplay
from ._studies._recommend import fit_recommended, recommended_candidates
from ._studies._study import (
    PruningStudy,
    best_subtree_of_size,
    best_subtrees_by_size,
    select_subtree,
)

# The value types a fitted tree holds (``tree_``, its encoding and decision statistics) are
# importable from here for the model-file allow-list of ``dtdecide.export``; the public
# way to read a fitted tree is its ``get_tree_view()``.
_HELD_TYPES = (TreeStructure, FeatureEncoding, DecisionStats)

# pickles (joblib, skops) written before the layers name the old flat module paths
_moved.register(__name__)

__all__ = [
    "DECISION_PALETTE",
    "FittedTreeView",
    "IdentifierColumnWarning",
    "ProfitTreeClassifier",
    "ProfitTreeRegressor",
    "PruningStudy",
    "PruningStudyDisplay",
    "best_subtree_of_size",
    "best_subtrees_by_size",
    "fit_recommended",
    "recommended_candidates",
    "UnseenCategoryWarning",
    "select_subtree",
]
