"""Layer 4 of :mod:`dtdecide.tree`, backends: where the rows live while a tree grows.

Dask collections (partition summaries, binned partitions on the workers, histogram and
node sums reduced in a tree) and their on-disk storage. A backend serves histograms and
node sums to the grower through the small source protocol of
:func:`~dtdecide.tree._algorithms._grower.grow_from_source`; it does not import the
estimators or the studies. The in-memory source is the grower's own default.
"""
