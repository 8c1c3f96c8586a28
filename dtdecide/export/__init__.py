"""dtdecide.export: hand a fitted tree to people who never open Python.

- :func:`leaf_table`: one row per leaf (rule, counts, posteriors, costs, decision,
  profit), with validation figures beside the training ones; :func:`write_leaf_table`
  and :func:`read_leaf_table` move it through CSV, JSON, Markdown, Excel and Parquet.
- :func:`export_rules`: English IF/THEN rules, one block per leaf.
- :func:`to_sql`: ANSI SQL score code that agrees with ``decide`` row for row.
- :func:`plot_tree`, :func:`export_graphviz`, :func:`variable_importance`,
  :func:`plot_variable_importance`: pictures (matplotlib imported lazily).
- :func:`export_html`: a self-contained HTML page of the tree, coloured by decision
  (the view a notebook shows for a fitted tree).
- :func:`save` / :func:`load`: dtdecide's safe native model format (pickles only on
  explicit request).
- :func:`score_file`: score a CSV or Parquet file of any size chunk by chunk, writing the
  decisions as it goes (the engine of ``dtdecide score``).
"""

from ._html import export_html
from ._io import read_leaf_table, write_leaf_table
from ._leaf_table import leaf_table
from ._persist import ModelFileError, load, save
from ._plot import export_graphviz, plot_tree, plot_variable_importance, variable_importance
from ._rules import export_rules
from ._score import score_file
from ._sql import to_sql

__all__ = [
    "ModelFileError",
    "export_graphviz",
    "export_html",
    "export_rules",
    "leaf_table",
    "load",
    "plot_tree",
    "plot_variable_importance",
    "read_leaf_table",
    "save",
    "score_file",
    "to_sql",
    "variable_importance",
    "write_leaf_table",
]
