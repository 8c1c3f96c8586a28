"""Impurity criteria, vectorised over any number of candidate nodes and splits.

Layer 1 (kernels) of :mod:`dtdecide.tree` (``_kernels``); see the architecture page.

Every criterion works on *sums* along the last axis, never on rows:

* classification (``gini``, ``entropy``, ``generalized_gini``): weighted class counts
  ``n[..., t]``, with ``N = sum_t n_t`` and proportions ``p_t = n_t / N``;
* regression (``variance``): the three channels ``[W, S1, S2] = [sum w, sum w*y,
  sum w*y**2]``.

:func:`weighted_impurity` returns ``N * I(p)`` (the node's impurity times its weight).
The gain of a split is ``W(parent) - W(left) - W(right)``; dividing it by the total
weight of the training sample gives scikit-learn's "weighted impurity decrease".

Impurities ``I(p)``:

* Gini ``1 - sum_t p_t**2``;
* entropy ``-sum_t p_t log2 p_t``;
* generalized Gini ``sum_t sum_d L(t, d) p_t p_d`` for a loss matrix ``L`` (Gini is the
  special case ``L = 1 - identity``); for ordinal targets with ``L(t, d) = |t - d|`` it
  equals ``2 sum_k F_k (1 - F_k)`` over cumulative proportions ``F_k`` (rpartScore);
* variance ``S2/W - (S1/W)**2``.
"""

import numpy as np

__all__ = [
    "CRITERIA",
    "CLASSIFICATION_CRITERIA",
    "weighted_impurity",
    "channel_sum",
    "split_gain",
    "impurity",
    "regret_matrix",
    "ordinal_loss_matrix",
    "check_loss_matrix",
    "training_loss_matrix",
    "split_loss_weights",
    "ConsequenceSums",
]

CLASSIFICATION_CRITERIA = ("gini", "entropy", "generalized_gini")
CRITERIA = (*CLASSIFICATION_CRITERIA, "variance")


def check_loss_matrix(loss_matrix, n_classes):
    """Validate a (T, T) loss matrix for the generalized Gini.

    Parameters
    ----------
    loss_matrix : array-like of shape (n_classes, n_classes)
        Non-negative, finite losses ``L(t, d)``.
    n_classes : int
        Number of target levels.

    Returns
    -------
    ndarray of float64
        The symmetric part ``(L + L.T) / 2``, which gives the same impurity.

    Examples
    --------
    >>> from dtdecide.tree._kernels._criteria import check_loss_matrix
    >>> check_loss_matrix([[0, 1], [3, 0]], 2).tolist()
    [[0.0, 2.0], [2.0, 0.0]]
    """
    try:
        L = np.asarray(loss_matrix, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError("loss_matrix must be a numeric (T, T) array") from exc
    if L.shape != (n_classes, n_classes):
        raise ValueError(
            f"loss_matrix must have shape ({n_classes}, {n_classes}); got {L.shape}"
        )
    if not np.all(np.isfinite(L)) or np.any(L < 0):
        raise ValueError("loss_matrix must hold finite, non-negative values")
    return (L + L.T) / 2.0


def regret_matrix(profit):
    """Loss (regret) matrix ``L(t, d) = max_d' Q(t, d') - Q(t, d)`` of a profit matrix.

    Examples
    --------
    >>> from dtdecide.tree._kernels._criteria import regret_matrix
    >>> regret_matrix([[5, 1], [0, 2]]).tolist()
    [[0.0, 4.0], [2.0, 0.0]]
    """
    Q = np.asarray(profit, dtype=np.float64)
    if Q.ndim != 2:
        raise ValueError(f"profit must be a 2-D matrix; got shape {Q.shape}")
    return Q.max(axis=1, keepdims=True) - Q


def ordinal_loss_matrix(n_classes):
    """The ordinal loss ``|t - d|`` between level ranks.

    Examples
    --------
    >>> from dtdecide.tree._kernels._criteria import ordinal_loss_matrix
    >>> ordinal_loss_matrix(3).tolist()
    [[0.0, 1.0, 2.0], [1.0, 0.0, 1.0], [2.0, 1.0, 0.0]]
    """
    r = np.arange(n_classes, dtype=np.float64)
    return np.abs(r[:, None] - r[None, :])


def _xlog2x(a):
    out = np.zeros_like(a)
    pos = a > 0
    np.multiply(a, np.log2(a, where=pos, out=np.ones_like(a)), out=out, where=pos)
    return out


def channel_sum(sums):
    """Sum over the last (short) axis, as explicit adds (much faster than ``sum(-1)``).

    Examples
    --------
    >>> import numpy as np
    >>> from dtdecide.tree._kernels._criteria import channel_sum
    >>> channel_sum(np.array([[1.0, 2.0], [3.0, 4.0]])).tolist()
    [3.0, 7.0]
    """
    n = sums.shape[-1]
    if n > 16:
        return sums.sum(axis=-1)
    out = sums[..., 0].copy()
    for c in range(1, n):
        out += sums[..., c]
    return out


def weighted_impurity(sums, criterion, loss_matrix=None):
    """``N * I(p)`` for sums along the last axis.

    Parameters
    ----------
    sums : ndarray of shape (..., n_channels)
        Class sums (classification) or ``[W, S1, S2]`` (variance).
    criterion : {"gini", "entropy", "generalized_gini", "variance"} or ProfitCriterion
        A :class:`~dtdecide.tree._kernels._profit.ProfitCriterion` computes its own ``W``.
    loss_matrix : ndarray of shape (T, T) or None
        Symmetric loss matrix, required for ``generalized_gini``.

    Returns
    -------
    ndarray of shape sums.shape[:-1]
        Zero where the weight ``N`` is zero.

    Examples
    --------
    >>> import numpy as np
    >>> from dtdecide.tree._kernels._criteria import weighted_impurity
    >>> float(weighted_impurity(np.array([3.0, 1.0]), "gini"))  # 4 * (1 - 10/16)
    1.5
    >>> float(weighted_impurity(np.array([4.0, 6.0, 20.0]), "variance"))  # 20 - 36/4
    11.0
    """
    if not isinstance(criterion, str):  # a ProfitCriterion (criterion="profit")
        return criterion.weighted_impurity(sums)
    sums = np.asarray(sums, dtype=np.float64)
    if sums.ndim == 1:
        return weighted_impurity(sums[None, :], criterion, loss_matrix)[0]
    if criterion == "variance":
        W = sums[..., 0]
        sq = sums[..., 1] * sums[..., 1]
        np.divide(sq, W, out=sq, where=W > 0)
        sq[~(W > 0)] = 0.0
        out = sums[..., 2] - sq
        return np.maximum(out, 0.0, out=out)
    n_channels = sums.shape[-1]
    N = channel_sum(sums)
    positive = N > 0
    if criterion == "gini":
        sq = sums[..., 0] * sums[..., 0]
        for c in range(1, n_channels):
            sq += sums[..., c] * sums[..., c]
        np.divide(sq, N, out=sq, where=positive)
        out = N - sq
    elif criterion == "entropy":
        out = _xlog2x(N)
        for c in range(n_channels):
            out -= _xlog2x(sums[..., c])
    elif criterion == "generalized_gini":
        if loss_matrix is None:
            raise ValueError("loss_matrix is required for criterion='generalized_gini'")
        if n_channels <= 6:  # explicit terms beat einsum on short class axes
            quad = np.zeros(sums.shape[:-1])
            for t in range(n_channels):
                for d in range(n_channels):
                    if loss_matrix[t, d] != 0:
                        quad += loss_matrix[t, d] * (sums[..., t] * sums[..., d])
        else:
            quad = np.einsum("...t,td,...d->...", sums, loss_matrix, sums)
        np.divide(quad, N, out=quad, where=positive)
        out = quad
    else:
        raise ValueError(f"criterion must be one of {CRITERIA}; got {criterion!r}")
    np.maximum(out, 0.0, out=out)
    out[~positive] = 0.0
    return out


def split_gain(left, parent, criterion, loss_matrix=None):
    """``W(parent) - W(left) - W(parent - left)`` for many candidate splits.

    Parameters
    ----------
    left : ndarray of shape (m, n_candidates, n_channels)
        Sums of the left child of each candidate.
    parent : ndarray of shape (m, n_channels)
        Sums of each node.
    criterion : str
    loss_matrix : ndarray or None

    Returns
    -------
    ndarray of shape (m, n_candidates)
        Gains; undefined (may be NaN or inf) where a child has zero weight, which the
        caller masks.

    Examples
    --------
    >>> import numpy as np
    >>> from dtdecide.tree._kernels._criteria import split_gain
    >>> float(split_gain(np.array([[[2.0, 0.0]]]), np.array([[2.0, 2.0]]), "gini")[0, 0])
    2.0
    """
    if not isinstance(criterion, str):  # a ProfitCriterion (criterion="profit")
        return criterion.split_gain(left, parent)
    left = np.asarray(left, dtype=np.float64)
    parent = np.asarray(parent, dtype=np.float64)
    P = parent[:, None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        if criterion == "gini":
            # W = N - sum_c n_c**2 / N; the parent's N cancels against N_left + N_right
            n_channels = left.shape[-1]
            NL = channel_sum(left)
            NP = channel_sum(parent)
            QL = left[..., 0] * left[..., 0]
            r = P[..., 0] - left[..., 0]
            QR = r * r
            for c in range(1, n_channels):
                QL += left[..., c] * left[..., c]
                r = P[..., c] - left[..., c]
                QR += r * r
            QL /= NL
            QR /= NP[:, None] - NL
            QL += QR
            QL += (weighted_impurity(parent, criterion) - NP)[:, None]
            return QL
        if criterion == "variance":
            # W = S2 - S1**2 / W; the S2 terms cancel
            WL, SL = left[..., 0], left[..., 1]
            WR, SR = P[..., 0] - WL, P[..., 1] - SL
            WP, SP = parent[:, 0], parent[:, 1]
            g = SL * SL / WL + SR * SR / WR
            g -= np.where(WP > 0, SP * SP / np.where(WP > 0, WP, 1.0), 0.0)[:, None]
            return g
        right = P - left
        Wp = weighted_impurity(parent, criterion, loss_matrix)
        return Wp[:, None] - weighted_impurity(left, criterion, loss_matrix) - (
            weighted_impurity(right, criterion, loss_matrix)
        )


def impurity(sums, criterion, loss_matrix=None):
    """Impurity ``I(p)`` of nodes given their sums (0 for an empty node).

    Examples
    --------
    >>> import numpy as np
    >>> from dtdecide.tree._kernels._criteria import impurity
    >>> float(impurity(np.array([1.0, 1.0]), "entropy"))
    1.0
    """
    if not isinstance(criterion, str):  # a ProfitCriterion (criterion="profit")
        return criterion.impurity(sums)
    sums = np.asarray(sums, dtype=np.float64)
    N = sums[..., 0] if criterion == "variance" else channel_sum(sums)
    W = weighted_impurity(sums, criterion, loss_matrix)
    return np.where(N > 0, W / np.where(N > 0, N, 1.0), 0.0)


# ------------------------------------------------------- decision-matrix split losses
class ConsequenceSums:
    """The frequency-weighted sums of the training consequences that
    :func:`training_loss_matrix` reads: additive over rows, so the sums of the parts of a
    data set (Dask partitions) add up to the whole's.

    Attributes
    ----------
    base : ndarray of shape (n_levels, n_decisions)
        The matrix's own consequences (profit orientation).
    total : float
        ``sum F``.
    q_sum : ndarray of shape (n_levels, n_decisions) or None
        ``sum_i F(i) Q(i, t, d)`` of case-specific consequences.
    cost_sum : ndarray of shape (n_decisions,) or None
        ``sum_i F(i) Cost(i, d)`` of additive case costs.

    Examples
    --------
    >>> import numpy as np
    >>> from dtdecide import DecisionMatrix
    >>> from dtdecide.tree._kernels._criteria import ConsequenceSums
    >>> m = DecisionMatrix({"call": [9.0, 0.0], "skip": [0.0, 0.0]}, levels=["yes", "no"],
    ...                    kind="revenue", costs={"call": "c"})
    >>> cons = m.resolve({"c": np.array([1.0, 3.0])}, n_samples=2)
    >>> F = np.array([1.0, 1.0])
    >>> both = ConsequenceSums.of(cons.take([0]), F[:1]) + ConsequenceSums.of(cons.take([1]), F[1:])
    >>> float(both.total), both.cost_sum.tolist()
    (2.0, [4.0, 0.0])
    """

    def __init__(self, base, total, q_sum=None, cost_sum=None):
        self.base = base
        self.total = total
        self.q_sum = q_sum
        self.cost_sum = cost_sum

    @classmethod
    def of(cls, cons, F):
        """The sums of the cases of ``cons`` with frequencies ``F``."""
        F = np.asarray(F, dtype=np.float64)
        return cls(
            np.asarray(cons.base, dtype=np.float64), F.sum(),
            None if cons.case_q is None else np.tensordot(F, cons.case_q, axes=1),
            None if cons.case_costs is None else F @ np.asarray(cons.case_costs),
        )

    def __add__(self, other):
        def add(a, b):
            return None if a is None else a + b

        return ConsequenceSums(self.base, self.total + other.total,
                               add(self.q_sum, other.q_sum), add(self.cost_sum, other.cost_sum))


def training_loss_matrix(matrix, cons, F):
    """Loss matrix ``L(t, d)`` of a decision matrix at its training averages.

    A plain loss matrix (no case costs) is used as given. Otherwise ``L`` is the regret
    ``max_d' Qbar(t, d') - Qbar(t, d)`` of ``Qbar``, the profit-oriented consequences
    with case costs at their frequency-weighted training mean (or, for case-specific
    consequences, ``Q(i, t, d)`` averaged over the training cases).

    Parameters
    ----------
    matrix : DecisionMatrix
        A categorical decision matrix.
    cons : Consequences or ConsequenceSums
        ``matrix.resolve(...)`` of the training cases, or their sums (then ``F`` is
        not read).
    F : ndarray of shape (n_samples,)
        Training case frequencies.

    Returns
    -------
    ndarray of shape (n_levels, n_decisions)
    """
    sums = cons if isinstance(cons, ConsequenceSums) else None
    if sums is None:
        per_case = cons.case_costs is not None or cons.case_q is not None
    else:
        per_case = sums.cost_sum is not None or sums.q_sum is not None
    if matrix.kind == "loss" and not per_case:
        return np.asarray(matrix.values, dtype=np.float64)
    if sums is None:
        sums = ConsequenceSums.of(cons, F)
    # average consequences over the training cases (costs included)
    if sums.q_sum is not None:
        q = sums.q_sum / sums.total
    else:
        q = sums.base
        if sums.cost_sum is not None:
            q = q - sums.cost_sum / sums.total
    return regret_matrix(q)


def split_loss_weights(matrix, cons, F):
    """Breiman's altered priors: the row sums ``sum_d L(t, d)`` of the training loss.

    ``L`` is :func:`training_loss_matrix`. Level ``t`` then counts in the split search
    in proportion to how much a wrong decision for it costs on average over the
    decisions, so splits are steered toward the levels where decisions matter.

    Returns
    -------
    ndarray of shape (n_levels,)
        Non-negative, unnormalised weights.
    """
    weight = training_loss_matrix(matrix, cons, F).sum(axis=1)
    if not np.all(np.isfinite(weight)) or np.any(weight < 0):
        raise ValueError(
            'split_weights="loss" needs non-negative loss row sums; the decision_matrix '
            f"gives {weight.tolist()!r} (a loss matrix is used as given: shift its rows so "
            "that their entries are non-negative)"
        )
    return weight
