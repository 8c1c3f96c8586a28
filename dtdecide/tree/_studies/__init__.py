"""Layer 6 of :mod:`dtdecide.tree`, studies and displays: on top of the estimators.

:class:`~dtdecide.PruningStudy` and the subtree selectors, their Dask sums, and
:class:`~dtdecide.PruningStudyDisplay`.
"""
