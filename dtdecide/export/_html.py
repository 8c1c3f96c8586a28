"""A standalone HTML page of a fitted tree (the view notebooks show, as a file)."""

import numbers

from ._common import tree_view
from ._files import atomic_path, check_path

__all__ = ["export_html"]


def export_html(
    tree,
    path,
    X_valid=None,
    y_valid=None,
    costs_valid=None,
    *,
    sample_weight_valid=None,
    digits=3,
    open_depth=None,
    title=None,
):
    """Write a self-contained HTML page showing a fitted tree, coloured by decision.

    The page is what a notebook shows for a fitted tree: an indented tree whose branches
    collapse and expand (plain ``<details>`` elements; a small inline script adds
    "expand all", "collapse all" and "open to depth"), every node coloured by its
    decision (a legend names the colours) and showing its training cases, class shares
    (or mean and standard deviation), decision and expected profit per case, with the
    split condition on each branch. Styles and script are inline: the file opens
    offline, needs no network and can be mailed.

    Parameters
    ----------
    tree : ProfitTreeClassifier or ProfitTreeRegressor
        A fitted tree.
    path : str or path-like
        The file to write (UTF-8).
    X_valid : DataFrame or array-like, default=None
        Validation inputs: each node then also shows how many of them reach it.
    y_valid : array-like, default=None
        Their actual target: class shares (or mean) of the validation cases at each
        node and, with a decision matrix, the realised profit per case of the tree's
        decisions on the cases reaching the node (cases with a missing cost left out, as
        in ``decide``'s summary).
    costs_valid : DataFrame, dict of arrays or ndarray, default=None
        The validation cases' costs (as ``costs`` of ``tree.decide``).
    sample_weight_valid : array-like, default=None
        Frequencies of the validation cases.
    digits : int, default=3
        Significant digits of the printed numbers.
    open_depth : int, default=None
        Nodes above this depth start expanded; by default every node when the tree has
        at most 100 leaves, else the first four levels.
    title : str, default=None
        Heading of the page (by default the estimator and the target).

    Returns
    -------
    pathlib.Path
        The path written.

    See Also
    --------
    plot_tree : the same tree as a matplotlib picture.
    leaf_table : the leaves as a table, with validation columns.

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> from dtdecide import DecisionMatrix, ProfitTreeClassifier
    >>> from dtdecide.export import export_html
    >>> X = pd.DataFrame({"x": [1, 2, 3, 4, 5, 6, 7, 8]})
    >>> y = ["no", "no", "no", "no", "yes", "yes", "no", "yes"]
    >>> m = DecisionMatrix({"call": [10, -1], "skip": [0, 0]}, levels=["yes", "no"])
    >>> tree = ProfitTreeClassifier(decision_matrix=m, max_depth=2, min_samples_leaf=2,
    ...                             min_samples_split=4).fit(X, y)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = export_html(tree, os.path.join(tmp, "tree.html"))
    ...     page = path.read_text(encoding="utf-8")
    >>> page.startswith("<!DOCTYPE html>"), page.count('data-node="'), "http" in page
    (True, 5, False)
    """
    view = tree_view(tree)  # checks that ``tree`` is a fitted tree estimator
    path = check_path(path)
    if open_depth is not None and (not isinstance(open_depth, numbers.Integral) or
                                   isinstance(open_depth, bool) or open_depth < 0):
        raise ValueError(f"open_depth must be an int >= 0 or None; got {open_depth!r}")
    if title is not None and not isinstance(title, str):
        raise TypeError(f"title must be a str or None; got {title!r}")
    markup = view.estimator._tree_html(
        X_valid,
        y_valid,
        costs_valid,
        sample_weight_valid,
        digits=digits,
        open_depth=open_depth,
        full_page=True,
        title=title,
    )
    # written whole or not at all, the folder created; a folder as path is named
    with atomic_path(path, "path") as tmp:
        tmp.write_text(markup, encoding="utf-8")
    return path
