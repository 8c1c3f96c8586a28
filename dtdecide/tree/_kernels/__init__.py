"""Layer 1 of :mod:`dtdecide.tree`, the kernels: functions on NumPy arrays only.

Binning, histograms, the split criteria and the split scan, the profit (money) channels,
the row partition and the thread-pool helper. Arrays in, arrays out: no pandas, no
estimator, no :class:`~dtdecide.DecisionMatrix` (consequences and costs arrive as plain
arrays). Imports nothing from the layers above (see ``docs/guide/architecture.rst``).

Compiled (Numba) versions live in :mod:`dtdecide.tree._kernels._compiled`; their NumPy
twins, the reference, stay beside the code that calls them. :mod:`dtdecide._jit` chooses
which run.
"""
