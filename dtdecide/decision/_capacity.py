"""Decisions under a capacity or a budget (design notes, section 8).

Maximise ``sum_i sum_d z_id v_id`` subject to ``sum_d z_id = 1`` for every case,
``sum_i z_id <= N_d`` for a decision with a capacity (at most ``N_d`` cases) and
``sum_i c_id z_id <= B_d`` for a decision with a budget (its spend ``c_id`` per case
at most ``B_d``), ``z_id`` in {0, 1}. Decisions without a limit are *unlimited*; at least
one is needed so that every case can be given a decision.

Methods
-------
* One limited decision with a capacity: rank the cases by their gain over their best
  unlimited alternative, ``g_i = v_i,lim - max_{d unlimited} v_id``, and give the limited
  decision to the top ``N`` cases with a positive gain (ties: the earlier case first).
  This is exact. When the values are constant within groups of cases (the leaves of a
  tree deciding one decision per leaf), it takes whole groups by gain per case and fills
  the boundary group in the order of its cases.
* Several decisions with capacities: the linear program above (HiGHS, through
  :func:`scipy.optimize.linprog`). Its constraint matrix is that of a transportation
  problem (totally unimodular), so a vertex optimum is integral and exact.
* Any budget: greedy by gain per unit of spend is *not* exact (a knapsack), so the
  problem is solved as a mixed-integer program (:func:`scipy.optimize.milp`) over the
  pairs (case, limited decision) whose value beats the case's best unlimited decision
  (the others never pay); exact up to the solver's tolerance, and slow for very many
  cases (one budget over 20,000 cases: about 40 s, the shadow price included; see
  ``time_limit``).

The *shadow price* of a limit is the profit of one more unit of it: the optimum with
``N_d + 1`` (``B_d + 1``) minus the optimum with ``N_d`` (``B_d``), obtained by solving
again (for one capacity: the gain of the next case in the ranking, or 0).
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd
from sklearn.utils import Bunch

__all__ = ["allocate", "brute_force_allocation"]


def _as_float(v):
    """A real number as a float; infinity for an int too large for one."""
    try:
        return float(v)
    except OverflowError:
        return np.inf


def _check_limits(limits, decisions, name):
    if limits is None:
        return {}
    if not isinstance(limits, dict):
        raise TypeError(
            f"{name} must be a dict {{decision: limit}} (for instance {{'call': 2000}}); got "
            f"{type(limits).__name__}"
        )
    out = {}
    for d, v in limits.items():
        if str(d) not in decisions:
            raise ValueError(f"{name}: {d!r} is not a decision; expected one of "
                             f"{list(decisions)!r}")
        if isinstance(v, bool) or not isinstance(v, numbers.Real) or v < 0 or \
                not np.isfinite(_as_float(v)):
            raise ValueError(f"{name}[{d!r}] must be a non-negative number; got {v!r}")
        if name == "capacity" and float(v) != int(v):
            raise ValueError(f"capacity[{d!r}] counts cases: give an integer; got {v!r}")
        out[decisions.index(str(d))] = float(v)
    return out


def allocate(values, capacity=None, *, budget=None, spend=None, decisions=None,
             time_limit=None):
    """The best decision of every case when some decisions are limited.

    See the module notes (:mod:`dtdecide.decision._capacity`) for the problem, the
    methods and the shadow price.

    Parameters
    ----------
    values : array-like of shape (n_samples, n_decisions)
        Expected profit of every decision for every case (higher is better).
    capacity : dict, default=None
        ``{decision: N}``: at most ``N`` cases may get that decision.
    budget : dict, default=None
        ``{decision: B}``: the spend of the cases given that decision is at most ``B``.
    spend : array-like of shape (n_samples, n_decisions), default=None
        Spend of every decision for every case (needed with ``budget``).
    decisions : sequence of str, default=None
        Names of the columns of ``values``; default ``"0", "1", ...``.
    time_limit : float, default=None
        Seconds the mixed-integer solver may take (budgets only).

    Returns
    -------
    Bunch
        ``decision`` (ndarray of int: the decision index of every case), ``total`` (the
        total expected profit), ``unlimited_total`` (the total without limits),
        ``used`` (dict: cases or spend per limited decision), ``shadow_price`` (dict:
        the profit of one more unit of each limit), ``method`` (str).

    Examples
    --------
    >>> from dtdecide.decision import allocate
    >>> values = [[0, 5], [0, 3], [0, 4], [0, -1]]
    >>> a = allocate(values, {"call": 2}, decisions=["skip", "call"])
    >>> a.decision.tolist(), a.total, a.shadow_price, a.method
    ([1, 0, 1, 0], 9.0, {'call': 3.0}, 'ranking by gain')
    """
    V = np.asarray(values, dtype=float)
    if V.ndim != 2 or V.shape[1] < 2:
        raise ValueError(f"values must have shape (n_samples, n_decisions >= 2); got {V.shape}")
    if not np.isfinite(V).all():
        raise ValueError("values must be finite (a case with a missing cost has no value)")
    n, D = V.shape
    decisions = tuple(str(d) for d in range(D)) if decisions is None else \
        tuple(str(d) for d in decisions)
    if len(decisions) != D:
        raise ValueError(f"decisions must name the {D} columns of values; got {len(decisions)}")
    cap = _check_limits(capacity, decisions, "capacity")
    bud = _check_limits(budget, decisions, "budget")
    both = sorted(set(cap) & set(bud))
    if both:
        raise ValueError(f"decision {decisions[both[0]]!r} has both a capacity and a budget; "
                         "give one limit per decision")
    S = None
    if bud:
        if spend is None:
            raise ValueError("budget needs spend= (the spend of every decision per case)")
        S = np.asarray(spend, dtype=float)
        if S.shape != V.shape or not np.isfinite(S).all():
            raise ValueError(f"spend must be a finite array of shape {V.shape}; got "
                             f"{S.shape}")
        if (S < 0).any():
            raise ValueError("spend must be non-negative")
    elif spend is not None:
        raise ValueError("spend is only used with budget=")
    limited = set(cap) | set(bud)
    unlimited = [d for d in range(D) if d not in limited]
    if not unlimited:
        raise ValueError(
            "every decision is limited: at least one decision must be unlimited so that "
            "every case gets one (add a 'do nothing' decision of value 0)"
        )
    best_free = V[:, unlimited].max(axis=1)
    free_arg = np.asarray(unlimited)[np.argmax(V[:, unlimited], axis=1)]
    unlimited_total = float(V.max(axis=1).sum())

    def solve(cap, bud):
        if not bud and len(cap) == 1:
            return _rank(V, cap, best_free, free_arg) + ("ranking by gain",)
        if not bud:
            return _lp(V, cap) + ("linear program (integral)",)
        return _milp(V, cap, bud, S, time_limit, best_free, free_arg) + (
            "mixed-integer program",)

    if not limited:
        dec = np.argmax(V, axis=1)
        return Bunch(decision=dec, total=unlimited_total, unlimited_total=unlimited_total,
                     used={}, shadow_price={}, method="unlimited")
    dec, total, method = solve(cap, bud)
    shadow = {}
    for d in sorted(limited):
        if d in cap:
            more = dict(cap)
            more[d] = cap[d] + 1
            _, t2, _ = solve(more, bud)
        else:
            more = dict(bud)
            more[d] = bud[d] + 1
            _, t2, _ = solve(cap, more)
        shadow[decisions[d]] = float(max(t2 - total, 0.0))
    used = {}
    for d in sorted(limited):
        used[decisions[d]] = float(S[dec == d, d].sum()) if d in bud else int((dec == d).sum())
    return Bunch(decision=dec, total=float(total), unlimited_total=unlimited_total,
                 used=used, shadow_price=shadow, method=method)


def _rank(V, cap, best_free, free_arg):
    ((d, N),) = cap.items()
    gain = V[:, d] - best_free
    order = np.argsort(-gain, kind="stable")  # ties: the earlier case first
    take = order[: int(N)]
    take = take[gain[take] > 0]
    dec = free_arg.copy()
    dec[take] = d
    return dec, float(V[np.arange(V.shape[0]), dec].sum())


def _lp(V, cap):
    from scipy.optimize import linprog
    from scipy.sparse import csr_matrix

    n, D = V.shape
    rows = np.repeat(np.arange(n), D)
    A_eq = csr_matrix((np.ones(n * D), (rows, np.arange(n * D))), shape=(n, n * D))
    lim = sorted(cap)
    cols = np.concatenate([np.arange(n) * D + d for d in lim])
    r = np.repeat(np.arange(len(lim)), n)
    A_ub = csr_matrix((np.ones(cols.shape[0]), (r, cols)), shape=(len(lim), n * D))
    res = linprog(-V.reshape(-1), A_ub=A_ub, b_ub=[cap[d] for d in lim], A_eq=A_eq,
                  b_eq=np.ones(n), bounds=(0, 1), method="highs-ds")
    if res.status != 0:
        raise RuntimeError(f"the capacity linear program failed: {res.message}")
    z = res.x.reshape(n, D)
    dec = np.argmax(z, axis=1)
    if not np.allclose(z.max(axis=1), 1.0, atol=1e-6):
        raise RuntimeError("the capacity linear program gave a fractional assignment")
    return dec, float(V[np.arange(n), dec].sum())


def _milp(V, cap, bud, S, time_limit, best_free, free_arg):
    """The budget problem as a mixed-integer program over the choices that can pay.

    A case not given a limited decision takes its best unlimited one, so only the pairs
    (case, limited decision) whose value beats that are variables, each worth its gain
    over it; a case takes at most one of them. The same optimum as the program over
    every (case, decision) pair, far smaller: with one budgeted decision it is the
    knapsack of the cases that gain by it.
    """
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import csr_matrix

    limited = np.asarray(sorted(set(cap) | set(bud)), dtype=np.intp)
    gain = V[:, limited] - best_free[:, None]
    case, which = np.nonzero(gain > 0)
    dec = free_arg.copy()
    if case.size == 0:
        return dec, float(best_free.sum())
    m = case.size
    var = np.arange(m)
    cons = []
    several = np.flatnonzero(np.bincount(case) > 1)  # cases with two candidate decisions
    if several.size:
        keep = np.isin(case, several)
        row_of = np.full(V.shape[0], -1, dtype=np.intp)
        row_of[several] = np.arange(several.size)
        cons.append(LinearConstraint(csr_matrix(
            (np.ones(int(keep.sum())), (row_of[case[keep]], var[keep])),
            shape=(several.size, m)), -np.inf, 1))
    for k, d in enumerate(limited):
        sel = var[which == k]
        if d in cap:
            coef, bound = np.ones(sel.size), cap[d]
        else:
            coef, bound = S[case[sel], d], bud[d]
        cons.append(LinearConstraint(csr_matrix(
            (coef, (np.zeros(sel.size, dtype=np.intp), sel)), shape=(1, m)), -np.inf, bound))
    options = {} if time_limit is None else {"time_limit": float(time_limit)}
    res = milp(-gain[case, which], constraints=cons, integrality=np.ones(m),
               bounds=Bounds(0, 1), options=options)
    if res.x is None:
        raise RuntimeError(f"the budget mixed-integer program failed: {res.message}")
    take = res.x > 0.5
    dec[case[take]] = limited[which[take]]
    return dec, float(V[np.arange(V.shape[0]), dec].sum())


def brute_force_allocation(values, capacity=None, *, budget=None, spend=None):
    """The slow twin of :func:`allocate` (tests): best total over every assignment.

    ``capacity`` / ``budget`` are keyed by column index.
    """
    import itertools

    V = np.asarray(values, dtype=float)
    n, D = V.shape
    capacity = capacity or {}
    budget = budget or {}
    best = -np.inf
    for dec in itertools.product(range(D), repeat=n):
        dec = np.asarray(dec)
        if any((dec == d).sum() > N for d, N in capacity.items()):
            continue
        if any(np.asarray(spend)[dec == d, d].sum() > B + 1e-9 for d, B in budget.items()):
            continue
        best = max(best, float(V[np.arange(n), dec].sum()))
    return best


def decide_limited(P, matrix, *, rho, target, costs, sample_weight, capacity, budget, index,
                   target_name, time_limit=None):
    """:func:`dtdecide.decide` under ``capacity`` / ``budget`` (the engine calls it).

    ``P``: validated posteriors (predictions); ``target``: level codes or values or None.
    The spend of a budget is each decision's investment cost (revenue matrices).
    """
    from ._kernels import _adjust_posteriors
    from ._result import build_decision_result, realised_profits

    n = P.shape[0]
    post = P
    if rho is not None:
        post = _adjust_posteriors(P, matrix.priors, rho)
    cons = matrix.resolve(costs, n_samples=n, index=index)
    if cons.has_missing.any():
        k = int(np.count_nonzero(cons.has_missing))
        raise ValueError(
            f"costs: {k} case(s) have a missing cost; a capacity or budget shares its "
            "units among every case, which needs every case's costs (impute or drop them)"
        )
    A = cons.expected(post)
    spend = None
    if budget is not None:
        if matrix.kind != "revenue":
            raise ValueError(
                "budget is spent in cost units: it needs a revenue matrix with costs (the "
                f"spend of each decision); got a {matrix.kind} matrix"
            )
        spend = np.column_stack([
            realised_profits(matrix, np.full(n, d, dtype=np.intp), cons, None)[0]
            for d in range(matrix.n_decisions)
        ])
    alloc = allocate(A, capacity, budget=budget, spend=spend, decisions=matrix.decisions,
                     time_limit=time_limit)
    dec = np.asarray(alloc.decision, dtype=np.intp)
    E = A[np.arange(n), dec]
    IC, C, B = realised_profits(matrix, dec, cons, target)
    wrong = None
    if target is not None and not matrix.is_interval:
        F = np.ones(n) if sample_weight is None else sample_weight
        wrong = float(F[np.argmax(post, axis=1) != target].sum())
    res = build_decision_result(
        matrix, dec, E, computed=C, best=B, investment=IC, missing=cons.has_missing,
        sample_weight=sample_weight, target_codes=None if matrix.is_interval else target,
        misclassified=wrong, index=index, target_name=target_name,
    )
    return with_allocation(res, alloc, matrix.sign)


def with_allocation(res, alloc, sign=1):
    """``res`` (a DecisionResult) with the allocation's figures in its summary."""
    word = "loss" if sign < 0 else "profit"
    extra = {f"unlimited_total_expected_{word}": sign * alloc.unlimited_total}
    for d, v in alloc.used.items():
        extra[f"used[{d}]"] = v
    for d, v in alloc.shadow_price.items():
        extra[f"shadow_price[{d}]"] = v
    name = res.summary.name
    res.summary = pd.concat([res.summary, pd.Series(extra, dtype=float)])
    res.summary.name = name
    res.allocation = alloc
    return res
