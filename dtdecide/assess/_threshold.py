"""Decision thresholds: 2x2 reduction to a diagonal matrix, and equivalent priors.

Two facts about decision matrices are exposed here as helpers:

* adding a constant to a row of a decision matrix never changes a decision, so any
  2x2 matrix with rows ``[a, b]`` and ``[c, d]`` has the diagonal form
  ``diag(a - b, d - c)``, i.e. a single threshold on the posterior of the first
  level: choose the first decision when ``Post(t1) (a - b) >= Post(t2) (d - c)``;
* a diagonal profit matrix with priors ``pi`` makes the same decisions as the
  identity matrix with priors proportional to ``pi(t) * Profit(t, t)``.
"""

import numpy as np
from sklearn.utils import Bunch

from ..decision._kernels import normalise_sum

__all__ = ["binary_threshold", "diagonal_form", "equivalent_priors"]


def _check_matrix(matrix, name="matrix"):
    """Return the constant profit-oriented values of ``matrix`` (T, D).

    Constant costs of a revenue matrix are folded into the values; cost variables
    (per-case costs) and case-specific consequences cannot be reduced to a constant
    matrix and are rejected.
    """
    needed = ("profit_values", "decisions", "kind")
    if not all(hasattr(matrix, attr) for attr in needed):
        raise TypeError(f"{name} must be a dtdecide.DecisionMatrix; got {type(matrix).__name__}")
    if getattr(matrix, "is_interval", False):
        raise ValueError(f"{name} must describe a categorical target (levels), not knots")
    if getattr(matrix, "is_case_specific", False):
        raise ValueError(
            f"{name} has case-specific consequences; a single threshold exists only for a "
            "constant matrix"
        )
    values = np.array(matrix.profit_values, dtype=float)
    costs = getattr(matrix, "costs", None) or {}
    for j, decision in enumerate(matrix.decisions):
        cost = costs.get(decision)
        if cost is None:
            continue
        if isinstance(cost, str):
            raise ValueError(
                f"{name} uses the cost variable {cost!r} for decision {decision!r}; per-case "
                "costs make the threshold case-specific. Use a matrix with constant costs."
            )
        values[:, j] -= float(cost)
    return values


def _rebuild(matrix, values, priors=None):
    from dtdecide.decision import DecisionMatrix

    return DecisionMatrix(
        values,
        levels=matrix.levels,
        decisions=list(matrix.decisions),
        kind="profit",
        priors=priors,
    )


def diagonal_form(matrix):
    """Reduce a 2x2 decision matrix to its diagonal profit form.

    Subtracting the second entry of the first row from the first row and the first entry
    of the second row from the second row changes no decision. With rows ``[a, b]`` and
    ``[c, d]`` (profit orientation, constant costs already subtracted) the result is
    ``[[a - b, 0], [0, d - c]]``.

    Parameters
    ----------
    matrix : DecisionMatrix
        A categorical matrix with two levels and two decisions. Loss matrices are negated
        first, revenue matrices have their constant costs subtracted; cost variables are
        not allowed.

    Returns
    -------
    DecisionMatrix
        A profit matrix with the same levels, decisions and priors whose off-diagonal
        entries are zero.

    Examples
    --------
    >>> from dtdecide import DecisionMatrix
    >>> from dtdecide.assess import diagonal_form
    >>> m = DecisionMatrix([[10, 2], [-1, 0]], levels=["buy", "no"],
    ...                    decisions=["mail", "skip"])
    >>> diagonal_form(m).profit_values.tolist()
    [[8.0, 0.0], [0.0, 1.0]]
    """
    values = _check_matrix(matrix)
    if values.shape != (2, 2):
        raise ValueError(
            f"matrix must have 2 levels and 2 decisions for the 2x2 reduction; got shape "
            f"{values.shape}"
        )
    (a, b), (c, d) = values
    diag = np.array([[a - b, 0.0], [0.0, d - c]])
    return _rebuild(matrix, diag, priors=getattr(matrix, "priors", None))


def binary_threshold(matrix):
    """Single posterior threshold implied by a 2x2 decision matrix.

    With rows ``[a, b]`` (first level) and ``[c, d]`` (second level) in profit
    orientation, the first decision is at least as good as the second when
    ``p (a - b) >= (1 - p) (d - c)`` where ``p`` is the posterior of the first level,
    i.e. ``p (a - b + d - c) >= d - c``. With ``s = a - b + d - c > 0`` this means
    ``p >= (d - c) / s``.

    Ties go to the first decision, as in :func:`dtdecide.decide`.

    Parameters
    ----------
    matrix : DecisionMatrix
        A categorical matrix with two levels and two decisions (constant costs allowed).

    Returns
    -------
    Bunch
        ``threshold`` (float): the posterior of ``level`` at which the decision switches;
        ``direction``: ``">="`` (first decision when the posterior is at or above the
        threshold), ``"<="`` (at or below; only for unusual matrices where the first
        decision pays more for the second level) or ``"always"`` / ``"never"`` when one
        decision dominates for every posterior (then ``threshold`` is ``-inf`` or
        ``inf``);
        ``level``: the first level, whose posterior is thresholded;
        ``decision`` and ``other``: the first and second decision;
        ``diagonal``: ``(a - b, d - c)``, the diagonal of :func:`diagonal_form`.

    Notes
    -----
    A threshold outside ``[0, 1]`` is returned as computed: a value below 0 means the
    first decision is always taken, above 1 that it never is.

    Examples
    --------
    >>> from dtdecide import DecisionMatrix
    >>> from dtdecide.assess import binary_threshold
    >>> m = DecisionMatrix([[10, 0], [-1, 0]], levels=["buy", "no"],
    ...                    decisions=["mail", "skip"])
    >>> t = binary_threshold(m)
    >>> round(t.threshold, 6), t.direction, t.decision
    (0.090909, '>=', 'mail')
    """
    diag = diagonal_form(matrix).profit_values
    g1, g2 = float(diag[0, 0]), float(diag[1, 1])
    s = g1 + g2
    if s > 0:
        threshold, direction = g2 / s, ">="
    elif s < 0:
        threshold, direction = g2 / s, "<="
    elif g2 <= 0:
        # p * g1 >= (1 - p) * g2 with g1 = -g2 >= 0 reduces to 0 >= g2: always true
        threshold, direction = -np.inf, "always"
    else:
        threshold, direction = np.inf, "never"
    return Bunch(
        threshold=float(threshold),
        direction=direction,
        level=matrix.levels[0],
        decision=matrix.decisions[0],
        other=matrix.decisions[1],
        diagonal=(g1, g2),
    )


def equivalent_priors(matrix, priors=None):
    """Priors that make the identity matrix decide like a diagonal matrix with priors.

    A diagonal profit matrix ``diag(P(1), ..., P(T))`` with priors ``pi`` takes the same
    decisions as the identity matrix with priors proportional to ``pi(t) P(t, t)``
    (decision ``k`` is the decision of level ``k``). Any 2x2 matrix is first reduced
    with :func:`diagonal_form`; a larger square matrix is accepted when every row has
    equal off-diagonal entries (then subtracting them makes it diagonal).

    Parameters
    ----------
    matrix : DecisionMatrix
        Square categorical matrix (decision ``k`` matching level ``k``).
    priors : array-like of shape (n_levels,), default=None
        Operational priors. When None, ``matrix.priors`` is used. When the matrix has
        no priors either, pass the training proportions: decisions made from
        unadjusted posteriors use them implicitly.

    Returns
    -------
    pandas.Series
        The equivalent priors indexed by level, summing to 1.

    Raises
    ------
    ValueError
        If the matrix cannot be made diagonal by row constants, or if a diagonal entry
        of the reduced matrix is not positive (no priors can reproduce a decision that
        is never the best for its own level).

    Examples
    --------
    >>> from dtdecide import DecisionMatrix
    >>> from dtdecide.assess import equivalent_priors
    >>> m = DecisionMatrix([[20, 0, 0], [0, 1, 0], [0, 0, 1]],
    ...                    levels=["red", "blue", "green"],
    ...                    decisions=["red", "blue", "green"])
    >>> equivalent_priors(m, [0.1, 0.45, 0.45]).round(4).tolist()
    [0.6897, 0.1552, 0.1552]
    """
    import pandas as pd

    values = _check_matrix(matrix)
    n_levels, n_decisions = values.shape
    if n_levels != n_decisions:
        raise ValueError(
            f"matrix must be square (one decision per level); got {n_levels} levels and "
            f"{n_decisions} decisions"
        )
    if n_levels == 2:
        diag = np.diag(diagonal_form(matrix).profit_values).copy()
    else:
        diag = np.empty(n_levels)
        for t in range(n_levels):
            off = np.delete(values[t], t)
            if not np.allclose(off, off[0]):
                raise ValueError(
                    f"matrix row {matrix.levels[t]!r} has unequal off-diagonal entries "
                    f"{off.tolist()}; it cannot be made diagonal by adding a row constant"
                )
            diag[t] = values[t, t] - off[0]
    if np.any(diag <= 0):
        raise ValueError(
            "the diagonal form of matrix has non-positive entries "
            f"{diag.tolist()}; no priors reproduce its decisions with the identity matrix"
        )
    if priors is None:
        priors = getattr(matrix, "priors", None)
    if priors is None:
        raise ValueError("priors must be given when matrix has no priors")
    # the matrix's own check: a dict or Series is matched to the levels by name
    pi = matrix.replace(priors=priors).priors
    out = normalise_sum(pi) * diag
    return pd.Series(normalise_sum(out), index=pd.Index(matrix.levels, name="level"), name="prior")
