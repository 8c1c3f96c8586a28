"""Array-in, array-out kernels of the tree (binning, histograms, partition, apply).

Compiled (Numba) versions live in :mod:`dtdecide.tree._kernels._compiled`; their NumPy
twins, the reference, stay beside the code that calls them. :mod:`dtdecide._jit` chooses
which run.
"""
