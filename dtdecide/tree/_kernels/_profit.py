"""The cost-aware growing criterion (``criterion="profit"``), on histogram channels.

Layer 1 (kernels) of :mod:`dtdecide.tree` (``_kernels``); see the architecture page.

Every training case ``i`` has its own realised consequences ``q(i, d) = Q(i, T(i), d)``
for each decision ``d`` (profit orientation: costs included, case-specific arrays and
``[C_FP, C_FN, C_TP, C_TN]`` cost rows as resolved by the decision matrix; interval
targets: ``L(i, Y(i), d)``) and a weight ``w(i) = F(i) * c(T(i))`` (frequency times the
prior ratio ``pi / rho`` of its class, when the split search uses priors). From these:

* ``b(i) = argmax_d q(i, d)``, the case's own best decision (first on ties);
* ``r(i, d) = q(i, b(i)) - q(i, d)``, the regret of decision ``d`` for the case;
* ``s(i) = max_d q(i, d) - min_d q(i, d)``, what the worst wrong decision costs it.

Histogram channels are sums of per-case amounts grouped by ``b(i)`` (a
:class:`~dtdecide.tree._kernels._histogram.HistogramTarget` with weight groups; each group is
``D`` channels wide), so they are additive over rows like the class counts of Gini:

* group ``A``: ``A(d) = sum_{b(i) = d} w(i) s(i)``, always present;
* group ``M``: ``M(d) = sum_{b(i) = d} w(i)`` (``regret_gini`` only);
* groups ``R_0 .. R_{D-1}``: ``R(d) = sum_i w(i) r(i, d)`` (summed over the group's
  cells), needed by ``profit``, ``profit_gini`` and ``regret_gini`` with more than two
  decisions. With two decisions ``R(0) = A(1)`` and ``R(1) = A(0)``, so no extra group.

The node "impurities" ``W`` (in money, like ``N * I(p)`` of :mod:`._criteria`) of the
methods; the gain of a split is ``W(parent) - W(left) - W(right)``:

``cost_gini`` (the default)
    Gini of the cost-weighted best-decision labels: ``sum_d A(d) - sum_d A(d)**2 /
    sum_d A(d)`` -- the classic reduction of example-dependent costs to weighted
    classification (each case weighted by what a wrong decision costs it, labelled by
    its best decision), on consequences **per unit of stake** (see
    :func:`growth_consequences`): each case's consequences are divided by its stake
    ``sum_t (max_d Q(i,t,d) - min_d Q(i,t,d))``, so a case weighs by how its own costs
    tip it toward one decision, not by its size. With two decisions and a cost row the weight of a case is then its own
    threshold share: a good client weighs ``C_FP / (C_FP + C_FN)``, a defaulter
    ``C_FN / (C_FP + C_FN)``. Without case costs every case has the same stake and this
    is the cost-weighted Gini of the money itself.
``cost_gini_money``
    ``cost_gini`` on the consequences in money (each case weighted by its own stake):
    a few cases with huge costs steer the splits. Measured against ``cost_gini`` in the
    decision-quality benchmark.
``regret_gini``
    Generalized Gini of the node's case-summed regret: ``sum_d R(d) M(d) / sum_d M(d)``,
    the expected regret of a decision drawn at random from the node's best-decision
    distribution. Without case costs, for a square matrix whose diagonal holds each
    level's best decision, it is the generalized Gini ``N sum_t sum_d L(t,d) p_t p_d``.
``profit``
    The node's regret under its single best decision, ``min_d R(d)`` =
    ``sum_i w(i) max_d q(i, d) - max_d sum_i w(i) q(i, d)``: the gain of a split is
    exactly the training profit it adds when each child takes its best decision. Myopic:
    a split whose children keep the parent's decision gains nothing.
``profit_gini``
    ``profit`` plus ``TIE_BREAK`` times ``cost_gini``: the profit gain decides, and the
    cost-weighted Gini breaks its ties (in particular when no child changes decision).

Categorical inputs are scanned in the order of ``A(1) / (A(0) + A(1))`` for two
decisions (the share of the money at stake that prefers the second decision; exact for
``cost_gini``, ``profit`` and ``profit_gini``, which are concave in the two channels),
and of each decision's share for more.
"""

import numpy as np

from ..._jit import use_compiled
from ._criteria import channel_sum

__all__ = ["PROFIT_METHODS", "DEFAULT_PROFIT_METHOD", "ProfitCriterion", "growth_consequences",
           "level_consequences"]

PROFIT_METHODS = ("cost_gini", "cost_gini_money", "regret_gini", "profit", "profit_gini")
# methods that grow on consequences per unit of each case's stake
PER_STAKE_METHODS = ("cost_gini",)
DEFAULT_PROFIT_METHOD = "cost_gini"
_NOT_FINITE = "the training consequences must be finite for criterion='profit'"
# weight of the cost-weighted Gini in ``profit_gini``: small, so the profit gain leads
TIE_BREAK = 0.1


def growth_consequences(cons, target, method=DEFAULT_PROFIT_METHOD, posteriors=None):
    """The training consequences ``q(i, d)`` that ``criterion="profit"`` grows on.

    ``cons.q_actual(target)`` (the realised profit of every decision for every case),
    or with ``posteriors`` the expected profit under them, ``cons.expected(posteriors)``
    (a guide model's cross-fitted posteriors: ``guide_model`` of the classifier);
    for the methods of :data:`PER_STAKE_METHODS` and case costs, per unit of the case's
    stake: ``q(i, d) / stake(i)``
    (:meth:`~dtdecide.decision._consequences.Consequences.stake`; a case with no stake
    gets ``q = 0``). Interval targets and matrices without case costs are not rescaled
    (every case has the same stake, and the split gains only matter relative to each
    other). A row's result depends on that row alone, so the Dask fit computes it per
    partition. One function for every place that grows (the in-memory fit, the Dask
    fit, ``split_candidates`` and ``regrow``).

    Parameters
    ----------
    cons : Consequences
        The training cases' resolved consequences.
    target : ndarray of shape (n_samples,)
        Level codes (classification) or values (interval).
    method : str, default=DEFAULT_PROFIT_METHOD
        The profit method.
    posteriors : ndarray of shape (n_samples, n_levels) or None, default=None
        Posteriors of every case's level (in the matrix's level order); None: the
        realised levels ``target``.

    Returns
    -------
    ndarray of shape (n_samples, n_decisions)

    Examples
    --------
    >>> import numpy as np
    >>> from dtdecide.decision import DecisionMatrix
    >>> from dtdecide.tree._kernels._profit import growth_consequences
    >>> m = DecisionMatrix.from_cost_matrix(levels=("good", "bad"))
    >>> cons = m.resolve(np.array([[10.0, 50.0, 0, 0], [1.0, 3.0, 0, 0]]), n_samples=2)
    >>> q = growth_consequences(cons, np.array([1, 0]))  # stakes 60 and 4
    >>> (q.round(3) + 0.0).tolist()
    [[0.0, -0.833], [-0.25, 0.0]]
    >>> q = growth_consequences(cons, None, posteriors=np.array([[0.5, 0.5], [1.0, 0.0]]))
    >>> (q.round(3) + 0.0).tolist()  # half a chance of each level; a sure "good"
    [[-0.083, -0.417], [-0.25, 0.0]]
    """
    if posteriors is None:
        q = np.asarray(cons.q_actual(target), dtype=np.float64)
    else:
        q = np.asarray(cons.expected(posteriors), dtype=np.float64)
    if (method not in PER_STAKE_METHODS or cons.is_interval
            or (cons.case_costs is None and cons.case_q is None)):
        return q
    stake = cons.stake()
    if not np.all(np.isfinite(stake)):
        k = int(np.argmin(np.isfinite(stake)))
        raise ValueError(
            f"costs: the consequences of training case {k} span more than float64 can "
            "hold (their spread overflows); rescale the costs (e.g. to thousands)"
        )
    has = stake > 0
    factor = np.zeros_like(stake)
    factor[has] = 1.0 / stake[has]
    return q * factor[:, None]


def level_consequences(cons):
    """The table ``q[t, d]`` when every case's growth consequences are those of its level.

    A categorical matrix without case costs or case-specific consequences gives every
    case of level ``t`` the row ``q(i, d) = base[t, d]`` (for every profit method: such
    cases all have the same stake, so :func:`growth_consequences` does not rescale them).
    The grower then takes each case's best decision and weights from the table and the
    case's level instead of an ``(n_samples, n_decisions)`` array and per-case weights:
    the same numbers, computed once per level.

    Returns
    -------
    ndarray of shape (n_levels, n_decisions) or None
        None where the consequences differ between cases of a level.

    Examples
    --------
    >>> import numpy as np
    >>> from dtdecide.decision import DecisionMatrix
    >>> from dtdecide.tree._kernels._profit import growth_consequences, level_consequences
    >>> m = DecisionMatrix({"call": [10.0, -1.0], "skip": [0.0, 0.0]}, levels=[1, 0])
    >>> cons = m.resolve(None, n_samples=3)
    >>> level_consequences(cons).tolist()
    [[10.0, 0.0], [-1.0, 0.0]]
    >>> np.array_equal(growth_consequences(cons, np.array([1, 0, 0])),
    ...                level_consequences(cons)[[1, 0, 0]])
    True
    """
    if cons.is_interval or cons.case_costs is not None or cons.case_q is not None:
        return None
    return np.array(cons.base, dtype=np.float64)


class ProfitCriterion:
    """Channel layout and split gains of ``criterion="profit"`` for one method.

    Parameters
    ----------
    n_decisions : int
        Number of decisions ``D`` (at least 2).
    method : str, default=DEFAULT_PROFIT_METHOD
        One of :data:`PROFIT_METHODS`.

    Examples
    --------
    >>> import numpy as np
    >>> from dtdecide.tree._kernels._profit import ProfitCriterion
    >>> crit = ProfitCriterion(2, "profit")
    >>> q = np.array([[5.0, 0.0], [-1.0, 0.0], [-1.0, 0.0]])  # 1 responder, 2 not
    >>> codes, weights = crit.row_channels(q, np.ones(3))
    >>> codes.tolist(), weights.tolist()
    ([0, 1, 1], [[5.0, 1.0, 1.0]])
    >>> sums = np.array([5.0, 2.0])            # A(0), A(1) of the node
    >>> float(crit.weighted_impurity(sums))    # regret of "call everyone": 2
    2.0
    """

    def __init__(self, n_decisions, method=DEFAULT_PROFIT_METHOD):
        if method not in PROFIT_METHODS:
            raise ValueError(f"profit method must be one of {PROFIT_METHODS}; got {method!r}")
        if n_decisions < 2:
            raise ValueError(f"criterion='profit' needs at least 2 decisions; got {n_decisions}")
        self.n_decisions = int(n_decisions)
        self.method = method
        D = self.n_decisions
        self.has_m = method == "regret_gini"
        self.has_r = D > 2 and method in ("regret_gini", "profit", "profit_gini")
        self.n_groups = 1 + int(self.has_m) + (D if self.has_r else 0)
        self.n_channels = self.n_groups * D

    def __repr__(self):
        return f"ProfitCriterion(n_decisions={self.n_decisions}, method={self.method!r})"

    # ----------------------------------------------------------------- rows
    def row_channels(self, q, weight):
        """Per-case histogram contributions.

        Parameters
        ----------
        q : ndarray of shape (n_samples, n_decisions)
            Realised profit of every decision for every case.
        weight : ndarray of shape (n_samples,)
            Non-negative case weights ``w(i)``.

        With :func:`dtdecide._jit.use_compiled`, one compiled pass over the cases
        (:func:`~dtdecide.tree._kernels._compiled_scan.profit_row_channels`), the same
        numbers.

        Returns
        -------
        codes : ndarray of intp, shape (n_samples,)
            Best decision of each case (the cell within each group).
        weights : ndarray of float64, shape (n_groups, n_samples)
            Amount each case adds to its cell of every group.
        """
        q = np.asarray(q, dtype=np.float64)
        weight = np.asarray(weight, dtype=np.float64)
        n, D = q.shape
        if D != self.n_decisions:
            raise ValueError(f"q must have {self.n_decisions} columns; got {D}")
        if use_compiled(n):
            from . import _compiled_scan

            codes = np.empty(n, dtype=np.intp)
            out = np.empty((self.n_groups, n), dtype=np.float64)
            if not _compiled_scan.profit_row_channels(np.ascontiguousarray(q), weight,
                                                      self.has_m, self.has_r, codes, out):
                raise ValueError(_NOT_FINITE)
            return codes, out
        if not np.all(np.isfinite(q)):
            raise ValueError(_NOT_FINITE)
        codes = np.argmax(q, axis=1)
        best = q[np.arange(n), codes]
        out = np.empty((self.n_groups, n), dtype=np.float64)
        np.multiply(weight, best - q.min(axis=1), out=out[0])
        g = 1
        if self.has_m:
            out[g] = weight
            g += 1
        if self.has_r:
            out[g : g + D] = (weight[:, None] * (best[:, None] - q)).T
        return codes.astype(np.intp), out

    # ----------------------------------------------------------------- sums
    def _parts(self, sums):
        D = self.n_decisions
        A = sums[..., :D]
        g = 1
        M = None
        if self.has_m:
            M = sums[..., D : 2 * D]
            g = 2
        if self.has_r:
            R = np.stack(
                [channel_sum(sums[..., (g + d) * D : (g + d + 1) * D]) for d in range(D)],
                axis=-1,
            )
        elif D == 2:
            R = A[..., ::-1]
        else:
            R = None
        return A, M, R

    def weight(self, sums):
        """Money at stake in a node: ``sum_d A(d)``."""
        return channel_sum(np.asarray(sums, dtype=np.float64)[..., : self.n_decisions])

    def weighted_impurity(self, sums):
        """``W`` of the method for sums along the last axis (0 for an empty node)."""
        sums = np.asarray(sums, dtype=np.float64)
        A, M, R = self._parts(sums)
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.method in ("cost_gini", "cost_gini_money"):
                out = _gini(A)
            elif self.method == "regret_gini":
                NM = channel_sum(M)
                quad = channel_sum(R * M)
                out = np.where(NM > 0, quad / np.where(NM > 0, NM, 1.0), 0.0)
            elif self.method == "profit":
                out = R.min(axis=-1)
            else:  # profit_gini
                out = R.min(axis=-1) + TIE_BREAK * _gini(A)
        return np.maximum(out, 0.0)

    def split_gain(self, left, parent):
        """``W(parent) - W(left) - W(parent - left)``, shapes as in ``_criteria.split_gain``."""
        left = np.asarray(left, dtype=np.float64)
        parent = np.asarray(parent, dtype=np.float64)
        right = parent[:, None, :] - left
        wp = self.weighted_impurity(parent)
        return wp[:, None] - self.weighted_impurity(left) - self.weighted_impurity(right)

    def impurity(self, sums):
        """``W`` per unit of money at stake (0 where nothing is at stake)."""
        W = self.weighted_impurity(sums)
        N = self.weight(sums)
        return np.where(N > 0, W / np.where(N > 0, N, 1.0), 0.0)

    def category_keys(self, Hn):
        """Orderings of the categories of a node from their summed channels."""
        A = Hn[..., : self.n_decisions]
        tot = channel_sum(A)
        safe = np.where(tot > 0, tot, 1.0)
        if self.n_decisions == 2:
            return [A[..., 1] / safe]
        return [A[..., d] / safe for d in range(self.n_decisions)]


def _gini(A):
    N = channel_sum(A)
    sq = A[..., 0] * A[..., 0]
    for d in range(1, A.shape[-1]):
        sq += A[..., d] * A[..., d]
    return np.where(N > 0, N - sq / np.where(N > 0, N, 1.0), 0.0)
