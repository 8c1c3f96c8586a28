"""Budget decisions by method: the rounded relaxation, the mixed-integer program, auto.

On random small problems the relaxation's total, the optimum (brute force) and the
relaxation's bound are ordered; every allocation respects the limits; the gap is at most
the gain of as many cases as there are limits.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dtdecide import DecisionMatrix, decide
from dtdecide.decision import _capacity, allocate
from dtdecide.decision._capacity import brute_force_allocation

SETTINGS = settings(max_examples=60, deadline=None)
TOL = 1e-7


@st.composite
def budget_problem(draw):
    """Values, spends and limits of 1 to 6 cases; decision 0 stays unlimited, at least
    one limited decision has a budget."""
    n = draw(st.integers(1, 6))
    D = draw(st.integers(2, 4))
    cents = st.integers(-300, 500)
    V = np.array(draw(st.lists(cents, min_size=n * D, max_size=n * D)),
                 dtype=float).reshape(n, D) / 100
    S = np.array(draw(st.lists(st.integers(0, 5), min_size=n * D, max_size=n * D)),
                 dtype=float).reshape(n, D)
    kinds = draw(st.lists(st.sampled_from(["none", "capacity", "budget"]),
                          min_size=D - 1, max_size=D - 1))
    if "budget" not in kinds:
        kinds[draw(st.integers(0, D - 2))] = "budget"
    cap, bud = {}, {}
    for d, kind in enumerate(kinds, start=1):
        if kind == "capacity":
            cap[d] = draw(st.integers(0, n))
        elif kind == "budget":
            bud[d] = draw(st.integers(0, 12)) / 2
    return V, S, cap, bud


def _names(limits):
    return {str(d): v for d, v in limits.items()} or None


def _run(V, S, cap, bud, method):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # auto's gap warning: checked below
        return allocate(V, _names(cap), budget=_names(bud), spend=S, method=method)


def _check_feasible(a, V, S, cap, bud):
    n, D = V.shape
    dec = np.asarray(a.decision)
    assert dec.shape == (n,) and ((dec >= 0) & (dec < D)).all()  # one decision per case
    assert a.total == pytest.approx(V[np.arange(n), dec].sum())
    for d, N in cap.items():
        assert (dec == d).sum() <= N
    for d, B in bud.items():
        assert S[dec == d, d].sum() <= B + 1e-9
    assert a.gap >= 0 and a.bound >= a.total
    assert a.gap == pytest.approx(a.bound - a.total, abs=1e-12)


@SETTINGS
@given(budget_problem())
def test_relaxation_total_optimum_and_bound_are_ordered(problem):
    V, S, cap, bud = problem
    best = brute_force_allocation(V, cap, budget=bud, spend=S)
    r = _run(V, S, cap, bud, "relaxation")
    e = _run(V, S, cap, bud, "exact")
    a = _run(V, S, cap, bud, "auto")
    for x in (r, e, a):
        _check_feasible(x, V, S, cap, bud)
        assert x.total <= best + TOL
        assert x.bound >= best - TOL
    assert e.total == pytest.approx(best) and e.optimal
    assert a.total == pytest.approx(best) and a.optimal  # small: auto proves the optimum
    if r.optimal:
        assert r.total == pytest.approx(best)
    # the rounding loses at most the gain of one case per limit
    free = V[:, [d for d in range(V.shape[1]) if d not in cap and d not in bud]].max(axis=1)
    gains = V - free[:, None]
    top = max(0.0, gains[:, sorted({*cap, *bud})].max())
    assert r.gap <= (len(cap) + len(bud)) * top + TOL
    assert set(r.lp_dual_price) == {str(d) for d in {*cap, *bud}}
    assert all(v >= 0 for v in r.lp_dual_price.values())
    # shadow prices only from proven optima, and then exact
    assert set(e.shadow_price) == {str(d) for d in {*cap, *bud}}
    if not r.optimal:
        assert r.shadow_price == {}


@SETTINGS
@given(budget_problem())
def test_the_two_relaxations_agree(problem):
    # one limited decision: the fractional knapsack by sorting is the linear program
    V, S, cap, bud = problem
    limited = np.array(sorted({*cap, *bud}), dtype=np.intp)
    free = V[:, [d for d in range(V.shape[1]) if d not in limited]].max(axis=1)
    P = _capacity._Pairs(V, limited, bud, S, free)
    lim = np.array([cap[d] if d in cap else bud[d] for d in limited], dtype=float)
    if P.m == 0 or limited.size != 1:
        return
    x, bound, dual = _capacity._fractional_knapsack(P, lim)
    y, bound_lp, dual_lp = _capacity._lp(P, lim)
    assert bound == pytest.approx(bound_lp, abs=1e-7)
    assert P.use @ x <= lim[0] + 1e-9
    assert ((x > 1e-9) & (x < 1 - 1e-9)).sum() <= 1
    # the dual: the profit per unit of the pair cut at the limit (0 if none is cut)
    cut = (x > 1e-9) & (x < 1 - 1e-9)
    if cut.any():
        assert dual[0] == pytest.approx(P.gain[cut][0] / P.use[cut][0])


def test_a_knapsack_the_rounding_misses_by_hand():
    # gains 6, 5, 5 for spends 6, 5, 5 and a budget of 10: the relaxation takes the first
    # letter and 4/5 of the second (bound 10); rounded, only the first fits (6)
    V = np.array([[0, 6], [0, 5], [0, 5]], dtype=float)
    S = np.array([[0, 6], [0, 5], [0, 5]], dtype=float)
    kw = dict(budget={"mail": 10}, spend=S, decisions=["skip", "mail"])
    r = allocate(V, method="relaxation", **kw)
    assert r.decision.tolist() == [1, 0, 0]
    assert (r.total, r.bound, r.gap, r.optimal) == (6.0, 10.0, 4.0, False)
    assert r.relative_gap == pytest.approx(0.4)
    assert r.lp_dual_price == {"mail": 1.0} and r.shadow_price == {}
    assert r.method == "linear relaxation, rounded"
    a = allocate(V, method="auto", **kw)  # three pairs: the mixed-integer program
    assert a.decision.tolist() == [0, 1, 1] and a.total == 10.0 and a.optimal
    assert a.shadow_price == {"mail": 1.0} and a.gap == 0.0  # B = 11: 6 + 5


def test_auto_keeps_the_relaxation_on_large_problems_and_warns_on_a_large_gap(monkeypatch):
    V = np.array([[0, 6], [0, 5], [0, 5]], dtype=float)
    S = V.copy()
    monkeypatch.setattr(_capacity, "AUTO_EXACT_PAIRS", 2)
    with pytest.warns(UserWarning, match="not proven optimal"):
        a = allocate(V, budget={"mail": 10}, spend=S, decisions=["skip", "mail"])
    assert a.total == 6.0 and not a.optimal
    assert a.method == ("linear relaxation, rounded (core of 3 pairs too large for the "
                        "exact program)")
    # a gap below GAP_WARNING (relative) passes in silence
    big = np.vstack([V, [[0, 1e5]]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        b = allocate(big, budget={"mail": 10}, spend=np.vstack([S, [[0, 0]]]),
                     decisions=["skip", "mail"])
    assert b.gap == 4.0 and b.relative_gap < _capacity.GAP_WARNING


def test_relaxation_proven_optimal_when_the_linear_optimum_is_integral():
    # spends fill the budget exactly: no case is cut, the rounding is the optimum
    V = np.array([[0, 4], [0, 3], [0, 1]], dtype=float)
    S = np.array([[0, 2], [0, 3], [0, 5]], dtype=float)
    r = allocate(V, budget={"1": 5}, spend=S, method="relaxation")
    assert r.optimal and r.gap == 0 and r.decision.tolist() == [1, 1, 0]
    # B = 6 has the same optimum, 7, but its relaxation cuts a case: no proof there
    assert r.shadow_price == {}
    assert allocate(V, budget={"1": 5}, spend=S).shadow_price == {"1": 0.0}  # auto


def test_exact_under_a_time_limit_returns_a_feasible_allocation_and_says_so():
    rng = np.random.default_rng(3)
    n = 3000
    gain = rng.gamma(2.0, 1.0, n)
    spend = rng.uniform(0.5, 3.0, n)
    V = np.column_stack([np.zeros(n), gain])
    S = np.column_stack([np.zeros(n), spend])
    B = 0.3 * spend.sum()
    r = allocate(V, budget={"1": B}, spend=S, method="relaxation")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        e = allocate(V, budget={"1": B}, spend=S, method="exact", time_limit=0.01)
    assert S[e.decision == 1, 1].sum() <= B + 1e-9
    assert e.total >= r.total - 1e-9  # the better of the two allocations
    assert e.bound <= r.bound + 1e-9  # the tighter of the two bounds
    if not e.optimal:
        assert any("time_limit" in str(w.message) for w in caught)
        assert e.shadow_price == {}


def test_capacities_alone_keep_their_exact_methods():
    V = np.array([[0, 5, 1], [0, 3, 4], [0, 4, 2]], dtype=float)
    for method in ("auto", "exact", "relaxation"):
        a = allocate(V, {"1": 1, "2": 1}, method=method)
        assert a.method == "linear program (integral)" and a.optimal and a.gap == 0
        assert a.total == brute_force_allocation(V, {1: 1, 2: 1}) == 9.0
        assert a.lp_dual_price == {}


def test_decide_passes_method_and_time_limit():
    rng = np.random.default_rng(0)
    n = 40
    post = pd.DataFrame({"yes": rng.uniform(0, 0.4, n)})
    post["no"] = 1 - post["yes"]
    cost = pd.DataFrame({"c": rng.uniform(0.5, 2, n)})
    m = DecisionMatrix({"mail": [20, 0], "skip": [0, 0]}, levels=["yes", "no"],
                       kind="revenue", costs={"mail": "c"})
    r = decide(post, m, costs=cost, budget={"mail": 6.0}, method="relaxation")
    e = decide(post, m, costs=cost, budget={"mail": 6.0}, method="exact", time_limit=30)
    assert r.allocation.method == "linear relaxation, rounded"
    assert e.allocation.method.endswith("mixed-integer program over 10 pairs")
    assert e.allocation.optimal
    s_r, s_e = r.summary, e.summary
    assert s_r["total_expected_profit"] <= s_e["total_expected_profit"] + 1e-9
    assert s_e["total_expected_profit"] <= s_r["total_expected_profit"] + s_r["allocation_gap"] + 1e-9
    assert s_r["lp_dual_price[mail]"] > 0 and "shadow_price[mail]" in s_e.index
    assert s_e["allocation_gap"] == 0.0
    assert s_r["used[mail]"] <= 6.0 + 1e-9


@pytest.mark.parametrize("kw, pattern", [
    (dict(method="fast"), "method must be one of"),
    (dict(method=None), "method must be one of"),
    (dict(time_limit=0), "time_limit must be a positive number"),
    (dict(time_limit=-1.0), "time_limit must be a positive number"),
    (dict(time_limit=float("nan")), "time_limit must be a positive number"),
    (dict(time_limit=float("inf")), "time_limit must be a positive number"),
    (dict(time_limit=True), "time_limit must be a positive number"),
    (dict(time_limit="10"), "time_limit must be a positive number"),
])
def test_method_and_time_limit_are_checked_by_name(kw, pattern):
    V = np.zeros((2, 2))
    with pytest.raises(ValueError, match=pattern):
        allocate(V, budget={"1": 1}, spend=V, **kw)
    m = DecisionMatrix({"mail": [20, 0], "skip": [0, 0]}, levels=["yes", "no"])
    with pytest.raises(ValueError, match=pattern):
        decide(np.tile([[0.5, 0.5]], (2, 1)), m, capacity={"mail": 1}, **kw)


@SETTINGS
@given(budget_problem())
def test_reduced_gain_fixing_keeps_an_optimum(problem):
    # the cases fixed by the relaxation's dual values: an optimum keeps them, and the
    # weak-duality bound U is above the optimum
    V, S, cap, bud = problem
    limited = np.array(sorted({*cap, *bud}), dtype=np.intp)
    free_cols = [d for d in range(V.shape[1]) if d not in limited]
    free = V[:, free_cols].max(axis=1)
    P = _capacity._Pairs(V, limited, bud, S, free)
    if P.m == 0:
        return
    lim = np.array([cap[d] if d in cap else bud[d] for d in limited], dtype=float)
    r = _capacity._relaxation(P, lim)
    fixed, core, U = _capacity._fix_by_reduced_gain(P, lim, r)
    best = brute_force_allocation(V, cap, budget=bud, spend=S)
    assert U >= best - free.sum() - TOL
    # the restricted problem: fixed cases take their pair, core cases their core pairs
    # or their best unlimited decision, every other case its best unlimited decision
    W = np.full_like(V, -1e6)
    rows = np.arange(V.shape[0])
    W[rows, np.asarray(free_cols)[np.argmax(V[:, free_cols], axis=1)]] = free
    for j in np.flatnonzero(fixed):
        c = P.case[j]
        W[c] = -1e6
        W[c, limited[P.which[j]]] = V[c, limited[P.which[j]]]
    for j in core:
        W[P.case[j], limited[P.which[j]]] = V[P.case[j], limited[P.which[j]]]
    assert brute_force_allocation(W, cap, budget=bud, spend=S) == pytest.approx(best)


@pytest.mark.parametrize("two", [False, True])
def test_auto_proves_the_optimum_through_the_core(two):
    rng = np.random.default_rng(7)
    n = 600
    p = rng.beta(1, 15, n)
    cm, cc = rng.uniform(0.5, 3, n), rng.uniform(2, 6, n)
    V = np.column_stack([np.zeros(n), 40 * p - cm, 80 * p - cc])
    S = np.column_stack([np.zeros(n), cm, cc])
    if two:
        kw = dict(capacity={"call": 12}, budget={"mail": 40.0})
    else:
        V, S = V[:, :2], S[:, :2]
        kw = dict(budget={"mail": 60.0})
    names = ["skip", "mail", "call"][:V.shape[1]]
    a = allocate(V, spend=S, decisions=names, **kw)
    e = allocate(V, spend=S, decisions=names, method="exact", **kw)
    r = allocate(V, spend=S, decisions=names, method="relaxation", **kw)
    assert not r.optimal and r.total < e.total  # the relaxation alone falls short here
    assert a.method.startswith("linear relaxation and reduced-gain fixing")
    assert a.optimal and a.total == pytest.approx(e.total, rel=1e-9)
    # the program over every pair, without the fixing, finds the same optimum
    whole = _whole_program(V, S, kw, names)
    assert e.optimal and e.total == pytest.approx(whole, rel=1e-9)
    assert a.shadow_price.keys() == e.shadow_price.keys()
    for d in e.shadow_price:
        assert a.shadow_price[d] == pytest.approx(e.shadow_price[d], rel=1e-6, abs=1e-6)


def _whole_program(V, S, limits, names):
    """The optimum total by the mixed-integer program over every pair (no fixing)."""
    cap = {names.index(d): v for d, v in (limits.get("capacity") or {}).items()}
    bud = {names.index(d): v for d, v in (limits.get("budget") or {}).items()}
    limited = np.array(sorted({*cap, *bud}), dtype=np.intp)
    free = V[:, [d for d in range(V.shape[1]) if d not in limited]].max(axis=1)
    P = _capacity._Pairs(V, limited, bud, S, free)
    lim = np.array([cap[d] if d in cap else bud[d] for d in limited], dtype=float)
    sol = _capacity._milp(P, lim, None)
    assert sol.proven
    return free.sum() + sol.gain


@pytest.mark.parametrize("seed", range(12))
def test_exact_through_the_core_equals_the_whole_program(seed):
    rng = np.random.default_rng(300 + seed)
    n, D = int(rng.integers(50, 300)), int(rng.integers(2, 5))
    V = rng.normal(size=(n, D)) * 10
    S = rng.uniform(0, 4, (n, D)) if seed % 2 else rng.integers(0, 4, (n, D)).astype(float)
    names = [f"d{k}" for k in range(D)]
    limits = {"budget": {names[-1]: float(S[:, -1].sum() / 5)}}
    if D > 2:
        limits["capacity"] = {names[1]: int(n // 10)}
    e = allocate(V, limits.get("capacity"), budget=limits["budget"], spend=S,
                 decisions=names, method="exact")
    assert e.optimal
    assert e.total == pytest.approx(_whole_program(V, S, limits, names), rel=1e-9)
