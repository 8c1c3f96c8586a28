"""Layer 2 of :mod:`dtdecide.tree`, the fitted tree: what a grown tree *is*.

The frozen node arrays (:class:`~dtdecide.tree._structure._tree.TreeStructure`), the
feature encoding, node and leaf decision statistics, case-rule node inputs, decision
margins, and the public read-only view of a fitted tree
(:class:`~dtdecide.tree.FittedTreeView`) that ``export``, ``assess`` and the command line
read. Builds on the kernels only.
"""
