"""Layer 3 of :mod:`dtdecide.tree`, algorithms on structures.

Growing (greedy, given a histogram source; exact search), cost-complexity pruning and its
path, and tree edits. They take and return node arrays and structures; the histogram
source (in memory or Dask) is handed to the grower by the layers above.
"""
