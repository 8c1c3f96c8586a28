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
* Any budget (a knapsack: greedy by gain per unit of spend is *not* exact) is solved by
  ``method`` over the pairs (case, limited decision) whose value beats the case's best
  unlimited decision (the others never pay; a case takes at most one pair):

  - ``"relaxation"``: the linear relaxation, ``0 <= z <= 1``. With one limited
    decision it is the fractional knapsack, solved by sorting the pairs by gain per
    unit; with several, HiGHS' interior point method and crossover
    (:func:`scipy.optimize.linprog`) give a vertex. At a vertex at most as many cases
    are split as there are limits. The pairs taken whole are kept, each split case
    gets its best pair that still fits (else its unlimited decision), and the units
    left go greedily, by gain per unit, to the cases still unlimited. The relaxation's
    optimum is an upper bound of the best total, so the allocation is within
    ``gap = bound - total`` of the optimum, and ``gap`` is at most the gain of as
    many cases as there are limits. It is ``optimal`` when the relaxation's optimum is
    integral (then it is the allocation) or the gap is 0 up to 1e-9 relative.
  - ``"exact"``: the relaxation; if it is not proven optimal, the cases that any
    allocation better than the relaxation's must leave as the relaxation has them are
    fixed (reduced-cost fixing with the relaxation's dual values, see
    :func:`_fix_by_reduced_gain`), and the mixed-integer program
    (:func:`scipy.optimize.milp`, HiGHS with a relative gap of 1e-9 of the whole)
    solves the pairs left, the *core* (the cases near the margin): the optimum of the
    whole, proven. Stopped by ``time_limit`` before its proof, the better of its
    allocation (if any) and the relaxation's is returned with the tighter of the two
    bounds, and a warning. (The program over every pair, without the fixing, took
    4.6 s for one budget over 20,000 cases, and over 200,000 cases ran for 576 s
    past a ``time_limit`` of 25 s: HiGHS' first linear program on one dense row of
    100,000 columns does not look at the clock.)
  - ``"auto"`` (the default): the same, but the core is solved only when it has at
    most ``AUTO_EXACT_PAIRS`` pairs, and without a ``time_limit`` its program stops
    after ``AUTO_NODE_LIMIT`` nodes (a count, not a time, so that the answer does not
    depend on the machine); the better of its allocation and the relaxation's is
    kept. It warns when the allocation returned may be more than ``GAP_WARNING``
    (relative) below the optimum.

  Measured on the 2-core machine (28 Nov 2026, ``chrt -f 10``, load 9-14; about half of
  the cases gain by the limited decisions; ``benchmarks/bench_budget.py``), with the
  shadow prices (each one more program, where the first is proven) and relative gaps:

  ==================================  ================  ===============  ================
  problem                             relaxation        auto             exact (TL 25)
  ==================================  ================  ===============  ================
  one budget, 20,000 cases            0.003 s, 2.0e-5   1.5 s, optimal   1.5 s, optimal
  one budget, 200,000 cases           0.04 s, 1.5e-7    2.4 s, 9.5e-9    44 s, optimal
  budget and capacity, 20,000 cases   0.08 s, 5.2e-6    1.7 s, optimal   6.6 s, optimal
  budget and capacity, 200,000 cases  1.2 s, 2.4e-6     1.3 s, 2.4e-6    27 s, 2.0e-6
  ==================================  ================  ===============  ================

  ("TL 25": ``time_limit=25`` seconds per program; the last one stopped there, with a
  warning. Auto's core there has 10,614 pairs: too many, so the relaxation's
  allocation.) See ``docs/guide/capacity.rst``.

The *shadow price* of a limit is the profit of one more unit of it: the optimum with
``N_d + 1`` (``B_d + 1``) minus the optimum with ``N_d`` (``B_d``), obtained by solving
again (for one capacity: the gain of the next case in the ranking, or 0). It is given
only where both optima are proven. The relaxation's dual values (``lp_dual_price``) are
the marginal profit of one more unit *in the relaxation*: close to the shadow price
when many cases share the limit, not the same thing.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np
import pandas as pd
from sklearn.utils import Bunch

from ._validation import float_array, repeated_names, short_text, text_keys, text_labels

__all__ = ["allocate", "brute_force_allocation"]

METHODS = ("auto", "exact", "relaxation")
#: ``method="auto"`` runs the mixed-integer program when the relaxation is not proven
#: optimal and there are at most this many (case, limited decision) pairs that can pay
AUTO_EXACT_PAIRS = 3000
#: ``method="auto"`` warns when the allocation may be more than this (relative) below
#: the optimum
GAP_WARNING = 1e-3
#: without a ``time_limit``, ``method="auto"`` stops each mixed-integer program after this
#: many branch-and-bound nodes (about 2 s here; a count, not a time, so that the answer
#: does not depend on the machine) and keeps the better of its allocation and the
#: relaxation's
AUTO_NODE_LIMIT = 2000
_MIP_REL_GAP = 1e-9


def _as_float(v):
    """A real number as a float; infinity for an int too large for one."""
    try:
        return float(v)
    except OverflowError:
        return np.inf


def _named_columns(frame, decisions, name):
    """``(frame, decisions)`` with a DataFrame's columns matched to ``decisions`` by name.

    A DataFrame whose columns are not a default ``RangeIndex`` names its decisions:
    without ``decisions`` they are its columns, with them its columns are put in their
    order (matched as text), and columns that are not the decisions are refused
    naming ``name``, never paired by position. Anything else is returned as given.
    """
    if not isinstance(frame, pd.DataFrame) or isinstance(frame.columns, pd.RangeIndex):
        return frame, decisions
    have = text_labels(frame.columns, f"the columns of {name}").tolist()
    if decisions is None:
        return frame, have
    want = text_labels(decisions, "decisions").tolist()
    if sorted(have) != sorted(want) or len(set(have)) != len(have):
        raise ValueError(
            f"{name} is a DataFrame whose columns {have!r} are not the decisions {want!r}; "
            "name them alike (they are matched by name), or give an array")
    return frame.iloc[:, [have.index(d) for d in want]], decisions


def _check_limits(limits, decisions, name):
    if limits is None:
        return {}
    if not isinstance(limits, dict):
        raise TypeError(
            f"{name} must be a dict {{decision: limit}} (for instance {{'call': 2000}}); got "
            f"{type(limits).__name__}"
        )
    out = {}
    for (t, v), d in zip(text_keys(limits, name).items(), limits):
        if t not in decisions:
            text_labels([*decisions, t], f"{name} and the decisions")  # Unicode forms
            raise ValueError(f"{name}: {d!r} is not a decision; expected one of "
                             f"{list(decisions)!r}")
        if isinstance(v, bool) or not isinstance(v, numbers.Real) or v < 0 or \
                not np.isfinite(_as_float(v)):
            raise ValueError(f"{name}[{d!r}] must be a finite non-negative number (for no "
                             f"limit, leave {str(d)!r} out of {name}); got {v!r}")
        if name == "capacity" and not isinstance(v, numbers.Integral) and \
                float(v) != int(v):
            raise ValueError(f"capacity[{d!r}] counts cases: give an integer; got {v!r}")
        out[decisions.index(str(d))] = float(v)
    return out


def check_method(method, time_limit, *, limited=True):
    """``method`` and ``time_limit`` of :func:`allocate`, checked; the time as a float.

    ``limited=False`` (a ``decide`` without ``capacity`` or ``budget``): a ``method``
    other than the default or a ``time_limit`` would say how to solve nothing, and is
    refused rather than ignored.
    """
    if not isinstance(method, str) or method not in METHODS:
        raise ValueError(f"method must be one of {list(METHODS)!r}; got {method!r}")
    if not limited and (method != "auto" or time_limit is not None):
        raise ValueError(
            "method and time_limit say how a capacity or budget is solved; give "
            f"capacity= or budget= too (got method={method!r}, time_limit={time_limit!r})")
    if time_limit is None:
        return None
    if isinstance(time_limit, bool) or not isinstance(time_limit, numbers.Real) or \
            not _as_float(time_limit) > 0 or not np.isfinite(_as_float(time_limit)):
        raise ValueError(
            f"time_limit must be a positive number of seconds (or None); got {time_limit!r}")
    return float(time_limit)


def allocate(values, capacity=None, *, budget=None, spend=None, decisions=None,
             method="auto", time_limit=None):
    """The best decision of every case when some decisions are limited.

    Every case gets exactly one decision, the limited decisions obey their limits and
    the total of ``values`` is as large as possible; at least one decision must be
    unlimited. The user guide's page *Decisions under a capacity or a budget*
    (``docs/guide/capacity.rst``) describes the methods, their guarantees and
    measured times.

    Parameters
    ----------
    values : array-like or DataFrame of shape (n_samples, n_decisions)
        Expected profit of every decision for every case (higher is better). A
        DataFrame's column names are its decisions: matched to ``decisions`` by name
        (as text), never by position.
    capacity : dict, default=None
        ``{decision: N}``: at most ``N`` cases may get that decision.
    budget : dict, default=None
        ``{decision: B}``: the spend of the cases given that decision is at most ``B``.
    spend : array-like or DataFrame of shape (n_samples, n_decisions), default=None
        Spend of every decision for every case (needed with ``budget``); a DataFrame's
        columns are matched to the decisions by name.
    decisions : sequence of str, default=None
        Names of the columns of ``values``; default: a DataFrame's column names, else
        ``"0", "1", ...``.
    method : {"auto", "exact", "relaxation"}, default="auto"
        How a problem with a budget is solved (capacities alone are always solved
        exactly, by ranking or an integral linear program).

        - ``"relaxation"``: the linear relaxation (fast), rounded: its optimum is an
          upper bound of the best total, and the allocation is within the gain of
          as many cases as there are limits of it; ``gap`` says how far at most.
        - ``"exact"``: the relaxation; when it is not proven optimal, the cases it
          settles beyond doubt are fixed (reduced-cost fixing) and the mixed-integer
          program solves the (case, limited decision) pairs left: the optimum,
          proven. Stopped by ``time_limit`` before its proof, it returns the better
          of its allocation and the relaxation's, with the tighter bound, and warns.
        - ``"auto"``: the same when at most 3,000 pairs are left, and without a
          ``time_limit`` the program stops after 2,000 nodes (a count, not a time,
          so that the answer does not depend on the machine); else the
          relaxation's allocation. It warns when the allocation returned may be
          more than 0.1% (relative) below the optimum.
    time_limit : float, default=None
        Seconds each mixed-integer program may take (budgets only); None: no limit
        with ``"exact"``, 2,000 nodes with ``"auto"``.

    Returns
    -------
    Bunch
        ``decision`` (ndarray of int: the decision index of every case), ``total`` (the
        total expected profit), ``unlimited_total`` (the total without limits),
        ``used`` (dict: cases or spend per limited decision), ``method`` (str: how it
        was solved), ``bound`` (a proven upper bound of the best total: the total
        itself when ``optimal``), ``gap`` (``bound - total``, at least 0),
        ``relative_gap`` (``gap / |bound|``), ``optimal`` (bool: the allocation is
        proven best, up to the solvers' tolerances), ``shadow_price`` (dict: the
        profit of one more unit of each limit, the difference of two proven optima;
        empty when the allocation is not proven optimal) and ``lp_dual_price``
        (dict: with a budget, the linear relaxation's dual value of each limit, its
        marginal profit per unit *in the relaxation*; empty when the relaxation was
        not solved).

    Examples
    --------
    >>> from dtdecide.decision import allocate
    >>> values = [[0, 5], [0, 3], [0, 4], [0, -1]]
    >>> a = allocate(values, {"call": 2}, decisions=["skip", "call"])
    >>> a.decision.tolist(), a.total, a.shadow_price, a.method
    ([1, 0, 1, 0], 9.0, {'call': 3.0}, 'ranking by gain')

    A budget of 5 for letters costing 2, 3 and 4: by gain per unit of spend the
    relaxation takes the first letter and 3/4 of the third (bound 4 + 0.75 * 5);
    rounded, it sends the first and the second. That is the best total, but only the
    mixed-integer program proves it:

    >>> values = [[0, 4], [0, 3], [0, 5]]
    >>> spend = [[0, 2], [0, 3], [0, 4]]
    >>> r = allocate(values, budget={"mail": 5}, spend=spend, decisions=["skip", "mail"],
    ...              method="relaxation")
    >>> r.decision.tolist(), r.total, r.bound, r.optimal, r.lp_dual_price
    ([1, 1, 0], 7.0, 7.75, False, {'mail': 1.25})
    >>> e = allocate(values, budget={"mail": 5}, spend=spend, decisions=["skip", "mail"],
    ...              method="exact")
    >>> e.total, e.optimal, e.shadow_price
    (7.0, True, {'mail': 2.0})
    """
    time_limit = check_method(method, time_limit)
    V, decisions = _check_values(values, decisions)
    cap, bud = _check_limit_dicts(capacity, budget, decisions)
    S = _check_spend(spend, bud, V, decisions)
    limited = set(cap) | set(bud)
    best_free, free_arg, unlimited_total = _best_unlimited(V, limited)

    if not limited:
        dec = np.argmax(V, axis=1)
        return _result(dec, unlimited_total, unlimited_total, {}, {}, "unlimited")
    if not bud:
        return _capacities(V, cap, decisions, best_free, free_arg, unlimited_total)
    out, proven = _budgets(V, cap, bud, S, decisions, best_free, free_arg, unlimited_total,
                           method, time_limit)
    _warn_unproven(out, proven, method, time_limit)
    return out


def _check_values(values, decisions):
    """The values of :func:`allocate` as a finite float array, and the decisions' names.

    ``decisions`` may not be a string. A DataFrame's columns name its decisions and are
    matched to ``decisions`` by name (:func:`_named_columns`). ``values`` must be numbers,
    2-D with at least one column, and finite. ``decisions`` defaults to ``"0", "1", ...``;
    given, it must name every column once (matched as text). Returns ``(V, decisions)``:
    a float array of shape (n_samples, n_decisions) and a tuple of str.
    """
    if isinstance(decisions, str):
        raise TypeError(f"decisions must be a sequence of names; got the string {decisions!r}")
    values, decisions = _named_columns(values, decisions, "values")
    V = float_array(values, "values", "numbers (the value of every decision per case)")
    if V.ndim != 2 or V.shape[1] < 1:
        # one decision is a shape too: with a limit it is refused below as limited, as
        # decide refuses a capacity on a matrix of one decision
        raise ValueError(f"values must have shape (n_samples, n_decisions); got {V.shape}")
    if not np.isfinite(V).all():
        raise ValueError("values must be finite (a case with a missing cost has no value)")
    D = V.shape[1]
    decisions = tuple(str(d) for d in range(D)) if decisions is None else \
        tuple(text_labels(decisions, "decisions"))
    if len(decisions) != D:
        raise ValueError(f"decisions must name the {D} columns of values; got {len(decisions)}")
    dup = repeated_names(decisions)
    if dup:
        raise ValueError(f"decisions must be distinct (they are matched as text); "
                         f"{short_text(repr(dup[0]))} names {decisions.count(dup[0])} columns "
                         "of values")
    return V, decisions


def _check_limit_dicts(capacity, budget, decisions):
    """The capacities and budgets of :func:`allocate`, keyed by decision index.

    Each is checked by :func:`_check_limits` (a dict of known decisions and finite
    non-negative limits, whole numbers for capacities); a decision may not have both.
    Returns ``(cap, bud)``: dicts ``{decision index: limit as float}``, empty when not
    given.
    """
    cap = _check_limits(capacity, decisions, "capacity")
    bud = _check_limits(budget, decisions, "budget")
    both = sorted(set(cap) & set(bud))
    if both:
        raise ValueError(f"decision {decisions[both[0]]!r} has both a capacity and a budget; "
                         "give one limit per decision")
    return cap, bud


def _check_spend(spend, bud, V, decisions):
    """The spend of every decision per case, which a budget needs and only a budget uses.

    With budgets, ``spend`` must be given (a DataFrame's columns matched to the decisions
    by name), numbers of the shape of the values, finite and non-negative; a bad value is named by its decision and row. Without budgets it must
    be None. Returns the spend as a float array, or None without budgets.
    """
    if not bud:
        if spend is not None:
            raise ValueError("spend is only used with budget=")
        return None
    if spend is None:
        raise ValueError("budget needs spend= (the spend of every decision per case)")
    spend, _ = _named_columns(spend, decisions, "spend")
    S = float_array(spend, "spend", "numbers (the spend of every decision per case)")
    if S.shape != V.shape:
        raise ValueError(f"spend must be an array of shape {V.shape} (cases x "
                         f"decisions); got shape {S.shape}")
    bad = ~np.isfinite(S) | (S < 0)
    if bad.any():
        i, d = np.argwhere(bad)[0]
        raise ValueError(
            f"spend must be finite and non-negative (the spend of each decision per "
            f"case); the spend of {decisions[d]!r} in row {i} is {S[i, d]} "
            f"({int(bad.sum()):,} such values)")
    return S


def _best_unlimited(V, limited):
    """The best unlimited decision of every case, which every allocation starts from.

    At least one decision must be unlimited, so that every case can get one. Returns
    ``(best_free, free_arg, unlimited_total)``: the value and index of each case's best
    unlimited decision (the first of equals), and the total of the values without any
    limit.
    """
    unlimited = [d for d in range(V.shape[1]) if d not in limited]
    if not unlimited:
        raise ValueError(
            "every decision is limited: at least one decision must be unlimited so that "
            "every case gets one (add a 'do nothing' decision of value 0)"
        )
    best_free = V[:, unlimited].max(axis=1)
    free_arg = np.asarray(unlimited)[np.argmax(V[:, unlimited], axis=1)]
    unlimited_total = float(V.max(axis=1).sum())
    return best_free, free_arg, unlimited_total


def _budgets(V, cap, bud, S, decisions, best_free, free_arg, unlimited_total, method,
             time_limit):
    """Solve an allocation with at least one budget (and maybe capacities).

    The (case, limited decision) pairs that gain over the case's best unlimited decision
    are solved by ``method`` (:func:`_solve_budget`); each case keeps its best unlimited
    decision unless its pair is taken. Where the allocation is proven optimal, each
    limit is raised by one unit and solved again: the shadow price is the difference of
    the two totals when both are proven. Returns ``(result, proven)``: the Bunch of
    :func:`allocate` and whether the allocation is proven optimal.
    """
    rows = np.arange(V.shape[0])
    lim_of = sorted(set(cap) | set(bud))
    order = np.asarray(lim_of, dtype=np.intp)
    P = _Pairs(V, order, bud, S, best_free)
    lim = np.array([cap[d] if d in cap else bud[d] for d in lim_of])

    def solve(lim):
        sol = _solve_budget(P, lim, method, time_limit)
        dec = free_arg.copy()
        dec[P.case[sol.take]] = order[P.which[sol.take]]
        total = float(V[rows, dec].sum())
        return sol, dec, total, max(float(best_free.sum()) + sol.bound, total)

    sol, dec, total, bound = solve(lim)
    shadow = {}
    if sol.proven:  # exact only where both optima are proven
        for k, d in enumerate(lim_of):
            more = lim.copy()
            more[k] += 1
            sol2, _, t2, _ = solve(more)
            if sol2.proven:
                shadow[decisions[d]] = float(max(t2 - total, 0.0))
    dual = {} if sol.dual is None else {
        decisions[d]: float(sol.dual[k]) for k, d in enumerate(lim_of)}
    used = {}
    for d in lim_of:
        used[decisions[d]] = float(S[dec == d, d].sum()) if d in bud else int((dec == d).sum())
    out = _result(dec, total, unlimited_total, used, shadow, sol.how, bound=bound,
                  optimal=bool(sol.proven), lp_dual_price=dual)
    return out, sol.proven


def _warn_unproven(out, proven, method, time_limit):
    """Warn when a budget's allocation is not proven optimal and may matter.

    With ``method="exact"`` and a ``time_limit``, whenever the program stopped before its
    proof; with ``"auto"``, when the relative gap is over ``GAP_WARNING``. The warning
    points at the caller of :func:`allocate` (``stacklevel=3``: this stage is called by
    ``allocate``).
    """
    if not proven and method == "exact" and time_limit is not None:
        warnings.warn(
            f"allocate: the mixed-integer program stopped at time_limit={time_limit:g} s "
            f"without proving its allocation optimal; the allocation returned is within "
            f"{out.gap:.6g} ({out.relative_gap:.3g} of the bound) of the optimum",
            UserWarning, stacklevel=3)
    elif not proven and method == "auto" and out.relative_gap > GAP_WARNING:
        warnings.warn(
            f"allocate: the allocation is within {out.gap:.6g} ({out.relative_gap:.3g} of "
            f"the bound {out.bound:.6g}) of the optimum, not proven optimal; "
            "method='exact' (with a time_limit) may close the gap",
            UserWarning, stacklevel=3)


def _result(dec, total, unlimited_total, used, shadow, method, *, bound=None, optimal=True,
            lp_dual_price=None):
    bound = float(total) if bound is None else float(bound)
    gap = max(bound - float(total), 0.0)
    relative = 0.0 if gap == 0 else (gap / abs(bound) if bound != 0 else np.inf)
    return Bunch(decision=dec, total=float(total), unlimited_total=unlimited_total,
                 used=used, shadow_price=shadow, method=method, bound=bound, gap=gap,
                 relative_gap=float(relative), optimal=optimal,
                 lp_dual_price={} if lp_dual_price is None else lp_dual_price)


def _capacities(V, cap, decisions, best_free, free_arg, unlimited_total):
    """Capacities alone: exact by ranking (one) or an integral linear program."""
    def solve(cap):
        if len(cap) == 1:
            return _rank(V, cap, best_free, free_arg) + ("ranking by gain",)
        return _lp_capacities(V, cap) + ("linear program (integral)",)

    dec, total, method = solve(cap)
    shadow = {}
    for d in sorted(cap):
        more = dict(cap)
        more[d] = cap[d] + 1
        _, t2, _ = solve(more)
        shadow[decisions[d]] = float(max(t2 - total, 0.0))
    used = {decisions[d]: int((dec == d).sum()) for d in sorted(cap)}
    return _result(dec, total, unlimited_total, used, shadow, method)


def _rank(V, cap, best_free, free_arg):
    ((d, N),) = cap.items()
    gain = V[:, d] - best_free
    order = np.argsort(-gain, kind="stable")  # ties: the earlier case first
    take = order[: int(N)]
    take = take[gain[take] > 0]
    dec = free_arg.copy()
    dec[take] = d
    return dec, float(V[np.arange(V.shape[0]), dec].sum())


def _lp_capacities(V, cap):
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


class _Pairs:
    """The (case, limited decision) pairs that beat the case's best unlimited decision.

    A case not given a limited decision takes its best unlimited one, so only these
    pairs can pay: each is worth its *gain* over that decision and *uses* one unit of a
    capacity or its spend of a budget. ``which`` numbers the limited decision (position
    in ``limited``); the pairs are ordered by case.
    """

    def __init__(self, V, limited, bud, S, best_free):
        gain = V[:, limited] - best_free[:, None]
        self.case, self.which = np.nonzero(gain > 0)
        self.gain = gain[self.case, self.which]
        self.use = np.ones(self.case.size)
        for k, d in enumerate(limited):
            if d in bud:
                sel = self.which == k
                self.use[sel] = S[self.case[sel], d]
        self.limited = limited
        self.n_cases = V.shape[0]

    @property
    def m(self):
        return self.case.size

    def subset(self, keep):
        """The pairs ``keep`` (indices or a mask) as a problem of their own."""
        sub = object.__new__(_Pairs)
        sub.case, sub.which = self.case[keep], self.which[keep]
        sub.gain, sub.use = self.gain[keep], self.use[keep]
        sub.limited, sub.n_cases = self.limited, self.n_cases
        return sub

    def used(self, take):
        """Units of each limit that the taken pairs use."""
        return np.bincount(self.which[take], weights=self.use[take],
                           minlength=self.limited.size)


class _Solution:
    """Taken pairs, their total gain, a proven upper bound of the optimum gain."""

    def __init__(self, take, gain, bound, proven, how, dual=None):
        self.take, self.gain, self.bound, self.proven = take, gain, bound, proven
        self.how, self.dual = how, dual


def _slack(lim):
    # the float sums of many spends that meet a limit exactly may pass it by rounding
    return 1e-10 * np.maximum(1.0, np.abs(lim))


def _per_unit(gain, use):
    """Gain per unit of use; a pair that uses nothing is worth infinitely much per unit."""
    return np.divide(gain, use, out=np.full(gain.shape, np.inf), where=use > 0)


def _fractional_knapsack(P, lim):
    """The LP relaxation with one limited decision: by gain per unit, the last one cut."""
    ratio = _per_unit(P.gain, P.use)
    order = np.argsort(-ratio, kind="stable")
    cum = np.cumsum(P.use[order])
    k = int(np.searchsorted(cum, lim[0], side="right"))
    x = np.zeros(P.m)
    x[order[:k]] = 1.0
    dual = np.zeros(1)
    if k < P.m:
        j = order[k]
        x[j] = (lim[0] - (cum[k - 1] if k else 0.0)) / P.use[j]
        dual[0] = ratio[j]
    return x, float(P.gain @ x), dual


def _lp(P, lim):
    """The LP relaxation with several limits (HiGHS interior point and crossover).

    A vertex: at most as many cases are fractional as there are limits. HiGHS'
    presolve is left out: on one dense row of 20,000 columns it alone took seconds.
    """
    from scipy.optimize import linprog

    L = P.limited.size
    A = _pair_rows(P, L)
    b = np.concatenate([lim, np.ones(A.shape[0] - L)])
    res = linprog(-P.gain, A_ub=A, b_ub=b, bounds=(0, 1), method="highs-ipm",
                  options={"presolve": False})
    if res.status != 0:
        raise RuntimeError(f"the budget linear relaxation failed: {res.message}")
    x = np.clip(res.x, 0.0, 1.0)
    return x, float(-res.fun), np.maximum(-res.ineqlin.marginals[:L], 0.0)


def _pair_rows(P, L):
    """Rows over the pairs: one per limit (its use), then one per case with several
    pairs (at most one of them)."""
    from scipy.sparse import csr_matrix, vstack

    var = np.arange(P.m)
    limits = csr_matrix((P.use, (P.which, var)), shape=(L, P.m))
    several = np.flatnonzero(np.bincount(P.case, minlength=P.n_cases) > 1)
    if not several.size:
        return limits
    keep = np.isin(P.case, several)
    row_of = np.full(P.n_cases, -1, dtype=np.intp)
    row_of[several] = np.arange(several.size)
    one = csr_matrix((np.ones(int(keep.sum())), (row_of[P.case[keep]], var[keep])),
                     shape=(several.size, P.m))
    return vstack([limits, one]).tocsr()


def _relaxation(P, lim):
    """The LP relaxation's bound and a feasible allocation rounded from its optimum.

    The pairs the LP takes whole are kept (within the limits); each case the LP splits
    gets its best pair that still fits (else its unlimited decision); the units left
    go greedily, by gain per unit, to the cases still on an unlimited decision.
    """
    if P.limited.size == 1:
        x, bound, dual = _fractional_knapsack(P, lim)
    else:
        x, bound, dual = _lp(P, lim)
    take = x >= 1.0 - 1e-9
    split = (x > 1e-9) & ~take
    whole = not split.any()
    room = lim - P.used(take)
    slack = _slack(lim)
    for k in np.flatnonzero(room < -slack):  # a rounded-up pair may pass a limit
        mine = np.flatnonzero(take & (P.which == k))
        for j in mine[np.argsort(_per_unit(P.gain[mine], P.use[mine]))]:
            take[j] = False
            room[k] += P.use[j]
            whole = False
            if room[k] >= -slack[k]:
                break
    busy = np.zeros(P.n_cases, dtype=bool)
    busy[P.case[take]] = True
    starts = np.searchsorted(P.case, np.arange(P.n_cases + 1))
    split_cases = np.unique(P.case[split])
    worth = np.bincount(P.case[split], weights=(P.gain * x)[split], minlength=P.n_cases)
    for c in split_cases[np.argsort(-worth[split_cases], kind="stable")]:
        if busy[c]:
            continue
        mine = np.arange(starts[c], starts[c + 1])
        for j in mine[np.argsort(-P.gain[mine], kind="stable")]:
            if P.use[j] <= room[P.which[j]] + slack[P.which[j]]:
                take[j] = busy[c] = True
                room[P.which[j]] -= P.use[j]
                break
    cand = np.flatnonzero(~busy[P.case] & (P.use <= room[P.which] + slack[P.which]))
    for j in cand[np.argsort(-_per_unit(P.gain[cand], P.use[cand]), kind="stable")]:
        k = P.which[j]
        if not busy[P.case[j]] and P.use[j] <= room[k] + slack[k]:
            take[j] = busy[P.case[j]] = True
            room[k] -= P.use[j]
    gain = float(P.gain[take].sum())
    return _Solution(take, gain, max(bound, gain), whole, "linear relaxation, rounded", dual)


def _milp(P, lim, time_limit, rel_gap=None, node_limit=None):
    """The budget problem as a mixed-integer program over the pairs that can pay.

    The same optimum as the program over every (case, decision) pair, far smaller: with
    one budgeted decision it is the knapsack of the cases that gain by it. HiGHS'
    relative gap is set to 1e-9 (its default, 1e-4, would stop short of the optimum).
    """
    from scipy.optimize import Bounds, LinearConstraint, milp

    L = P.limited.size
    A = _pair_rows(P, L)
    b = np.concatenate([lim, np.ones(A.shape[0] - L)])
    # presolve: seconds on one dense row of many columns (one limit); it pays with more
    rel_gap = _MIP_REL_GAP if rel_gap is None else rel_gap
    options = {"mip_rel_gap": rel_gap, "presolve": L > 1}
    if time_limit is not None:
        options["time_limit"] = time_limit
    if node_limit is not None:
        options["node_limit"] = node_limit
    res = milp(-P.gain, constraints=LinearConstraint(A, -np.inf, b),
               integrality=np.ones(P.m), bounds=Bounds(0, 1), options=options)
    # stopped at time_limit or node_limit (HiGHS' own status for the node limit is not
    # one that SciPy names: 4, with "limit" in the message)
    stopped = res.status == 1 or (res.status == 4 and "limit" in str(res.message).lower())
    if not (res.status == 0 or stopped) or (res.status == 0 and res.x is None):
        raise RuntimeError(f"the budget mixed-integer program failed: {res.message}")
    bound = getattr(res, "mip_dual_bound", None)
    bound = np.inf if bound is None or not np.isfinite(bound) else float(-bound)
    if res.x is None:  # stopped at time_limit before any allocation
        return _Solution(None, -np.inf, bound, False, "mixed-integer program")
    take = res.x > 0.5
    gain = float(P.gain[take].sum())
    proven = res.status == 0
    if proven:
        bound = max(min(bound, gain + rel_gap * abs(gain)), gain)
    return _Solution(take, gain, max(bound, gain), proven, "mixed-integer program")


def _better(a, b):
    """The better allocation of two solutions of one problem, with the tighter bound."""
    best = a if a.gain >= b.gain else b
    bound = min(a.bound, b.bound)
    proven = a.proven or b.proven or bound - best.gain <= _tolerance(bound)
    dual = a.dual if a.dual is not None else b.dual
    how = best.how if best is a or a.take is None else f"{best.how} (better than the {a.how}'s)"
    return _Solution(best.take, best.gain, max(bound, best.gain), proven, how, dual)


def _tolerance(bound):
    return 1e-9 * max(1.0, abs(bound))


def _solve_budget(P, lim, method, time_limit):
    """Solve by ``method``; see :func:`allocate`."""
    if P.m == 0:
        return _Solution(np.zeros(0, dtype=bool), 0.0, 0.0, True, "no case gains",
                         np.zeros(P.limited.size))
    r = _relaxation(P, lim)
    if not r.proven and r.bound - r.gain <= _tolerance(r.bound):
        r.proven = True
    if method == "relaxation" or r.proven:
        return r
    fixed, core, bound = _fix_by_reduced_gain(P, lim, r)
    if bound < r.bound:
        r = _Solution(r.take, r.gain, max(bound, r.gain), r.proven, r.how, r.dual)
    if method == "exact":
        return _better(_core_program(P, lim, r, fixed, core, time_limit, None), r)
    if core.size > AUTO_EXACT_PAIRS:
        r.how = f"{r.how} (core of {core.size} pairs too large for the exact program)"
        return r
    node_limit = AUTO_NODE_LIMIT if time_limit is None else None
    return _better(_core_program(P, lim, r, fixed, core, time_limit, node_limit), r)


def _core_program(P, lim, r, fixed, core, time_limit, node_limit):
    """The mixed-integer program over the core, the fixed pairs kept: the optimum."""
    # the fixed pairs are the incumbent's: what they use fits (up to rounding)
    fixed_gain = float(P.gain[fixed].sum())
    # the core's gap relative to the whole allocation's gain, not the core's alone
    rel_gap = _MIP_REL_GAP * max(1.0, r.gain) / max(r.gain - fixed_gain, 1e-300)
    e = _milp(P.subset(core), np.maximum(lim - P.used(fixed), 0.0), time_limit,
              rel_gap=min(rel_gap, 1e-4), node_limit=node_limit)
    take = None
    if e.take is not None:
        take = fixed.copy()
        take[core[e.take]] = True
    gain, bound = fixed_gain + e.gain, fixed_gain + e.bound
    proven = e.proven and bound - gain <= _tolerance(bound) * (1 + 1e-6)
    return _Solution(take, gain, bound, proven,
                     "linear relaxation and reduced-gain fixing, then a mixed-integer "
                     f"program over {core.size} pairs")


def _fix_by_reduced_gain(P, lim, r):
    """Fix the cases that any allocation better than ``r`` must leave as the relaxation
    has them (reduced-cost fixing); the pairs of the other cases are the *core*.

    With the relaxation's dual values ``lam >= 0``, a pair's reduced gain is
    ``gain - lam[k] * use``, and a case's best is ``rho = max(0, its reduced gains)``.
    Every allocation's total is at most ``U - sum_i (rho_i - chosen reduced gain_i)``
    with ``U = lam . lim + sum_i rho_i`` (weak duality: ``U`` is an upper bound for any
    ``lam >= 0``). An allocation at least as good as ``r`` therefore never gives a case
    an option whose shortfall ``rho_i - reduced gain`` exceeds ``U - r.gain``; a case
    with one option left is fixed to it. The optimum lies among the allocations that
    keep the fixed cases and choose freely (within the limits) among the core pairs.
    Returns the fixed pairs (mask), the core pairs (indices) and ``U``.
    """
    lam = np.maximum(np.asarray(r.dual, dtype=float), 0.0)
    red = P.gain - lam[P.which] * P.use
    rho = np.zeros(P.n_cases)
    np.maximum.at(rho, P.case, red)
    bound = float(lam @ lim + rho.sum())
    room = bound - r.gain + _tolerance(bound)
    keep = rho[P.case] - red <= room          # pairs still possible
    none_ok = rho <= room                     # cases that may still take no pair
    options = none_ok + np.bincount(P.case[keep], minlength=P.n_cases)
    one = options[P.case] == 1
    fixed = keep & one                        # the case's one option is this pair
    core = np.flatnonzero(keep & ~one)
    return fixed, core, bound


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
                   target_name, method="auto", time_limit=None):
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
                     method=method, time_limit=time_limit)
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
    extra["allocation_gap"] = alloc.gap
    for d, v in alloc.lp_dual_price.items():
        extra[f"lp_dual_price[{d}]"] = v
    name = res.summary.name
    res.summary = pd.concat([res.summary, pd.Series(extra, dtype=float)])
    res.summary.name = name
    res.allocation = alloc
    return res
