"""Layer 5 of :mod:`dtdecide.tree`, the estimators.

:class:`~dtdecide.ProfitTreeClassifier` and :class:`~dtdecide.ProfitTreeRegressor`:
parameters, validation once, choosing where the rows are (in memory or Dask), calling the
algorithms, deciding through :mod:`dtdecide.decision`; their notebook HTML view; the
estimator-level pruning and Dask entry points.
"""
