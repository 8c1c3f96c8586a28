"""Decisions under capacities and budgets against brute force; decide(capacity=...)."""

import numpy as np
import pandas as pd
import pytest

from dtdecide import DecisionMatrix, decide
from dtdecide.decision import allocate
from dtdecide.decision._capacity import brute_force_allocation
from dtdecide.policy import PolicyTree


def _case(seed):
    rng = np.random.default_rng(seed)
    n, D = int(rng.integers(1, 7)), int(rng.integers(2, 4))
    V = rng.normal(size=(n, D)).round(2)
    S = rng.integers(0, 4, size=(n, D)).astype(float)
    return rng, n, D, V, S


@pytest.mark.parametrize("seed", range(40))
def test_allocation_and_shadow_price_equal_brute_force(seed):
    rng, n, D, V, S = _case(seed)
    kind = seed % 3
    if kind == 0:
        cap, bud = {1: int(rng.integers(0, n + 1))}, None
    elif kind == 1:
        cap, bud = {d: int(rng.integers(0, n + 1)) for d in range(1, D)}, None
    else:
        cap, bud = None, {1: float(rng.integers(0, 6))}
    names = [str(d) for d in range(D)]
    a = allocate(V, cap and {names[k]: v for k, v in cap.items()},
                 budget=bud and {names[k]: v for k, v in bud.items()},
                 spend=S if bud else None)
    assert a.total == pytest.approx(brute_force_allocation(V, cap, budget=bud, spend=S))
    assert a.total == pytest.approx(V[np.arange(n), a.decision].sum())
    for d, price in a.shadow_price.items():
        more_cap, more_bud = dict(cap or {}), dict(bud or {})
        (more_cap if cap else more_bud)[int(d)] += 1
        bigger = brute_force_allocation(V, more_cap or None, budget=more_bud or None, spend=S)
        assert a.total + price == pytest.approx(bigger)
    for d, used in a.used.items():
        if cap:
            assert used <= cap[int(d)]
        else:
            assert used <= bud[int(d)] + 1e-9


def test_one_capacity_takes_whole_groups_then_fills_the_boundary_in_case_order():
    # values constant within groups (leaves): gains 3 (cases 0-2), 2 (3-5), 1 (6-7)
    gain = np.array([2, 3, 3, 2, 3, 2, 1, 1], dtype=float)
    V = np.column_stack([np.zeros(8), gain])
    a = allocate(V, {"call": 5}, decisions=["skip", "call"])
    assert a.decision.tolist() == [1, 1, 1, 1, 1, 0, 0, 0]
    assert a.shadow_price == {"call": 2.0}
    assert a.method == "ranking by gain"
    # no positive gain: nothing is taken, however large the capacity
    b = allocate(-np.abs(V[:, ::-1]) - 1, {"0": 3})
    assert (b.decision == 1).all() and b.shadow_price == {"0": 0.0}


def test_limits_are_checked_by_name():
    V = np.zeros((3, 2))
    with pytest.raises(TypeError, match="capacity"):
        allocate(V, 2)
    with pytest.raises(ValueError, match="not a decision"):
        allocate(V, {"x": 1}, decisions=["a", "b"])
    with pytest.raises(ValueError, match="unlimited"):
        allocate(V, {"a": 1, "b": 1}, decisions=["a", "b"])
    with pytest.raises(ValueError, match="spend"):
        allocate(V, budget={"b": 1}, decisions=["a", "b"])
    with pytest.raises(ValueError, match="integer"):
        allocate(V, {"b": 1.5}, decisions=["a", "b"])


def test_decide_with_capacity_and_budget():
    rng = np.random.default_rng(0)
    n = 12
    post = pd.DataFrame({"yes": rng.uniform(0, 0.4, n)})
    post["no"] = 1 - post["yes"]
    cost = pd.DataFrame({"c_mail": rng.uniform(0.5, 2, n), "c_call": rng.uniform(2, 6, n)})
    m = DecisionMatrix({"mail": [20, 0], "call": [40, 0], "skip": [0, 0]},
                       levels=["yes", "no"], kind="revenue",
                       costs={"mail": "c_mail", "call": "c_call"})
    y = np.where(rng.random(n) < post["yes"], "yes", "no")
    free = decide(post, m, y=y, costs=cost)
    res = decide(post, m, y=y, costs=cost, capacity={"call": 2, "mail": 3})
    A = np.column_stack([20 * post["yes"] - cost["c_mail"], 40 * post["yes"] - cost["c_call"],
                         np.zeros(n)])
    want = brute_force_allocation(A[:8], {0: 3, 1: 2})  # brute force on 8 cases
    small = decide(post.iloc[:8], m, costs=cost.iloc[:8], capacity={"call": 2, "mail": 3})
    assert small.summary["total_expected_profit"] == pytest.approx(want)
    assert (res.cases["D_target"] == "call").sum() <= 2
    assert (res.cases["D_target"] == "mail").sum() <= 3
    assert res.summary["total_expected_profit"] <= free.summary["total_expected_profit"] + 1e-9
    assert res.summary["unlimited_total_expected_profit"] == pytest.approx(
        free.summary["total_expected_profit"])
    # realised figures follow the allocated decisions
    chosen = res.cases["D_target"].map({"mail": 0, "call": 1, "skip": 2}).to_numpy()
    Q = np.where((y == "yes")[:, None], [20, 40, 0], 0) - np.column_stack(
        [cost["c_mail"], cost["c_call"], np.zeros(n)])
    np.testing.assert_allclose(res.cases["CP_target"], Q[np.arange(n), chosen])
    bud = decide(post, m, costs=cost, budget={"call": 7.0})
    assert bud.summary["used[call]"] <= 7.0
    assert "shadow_price[call]" in bud.summary.index
    with pytest.raises(ValueError, match="threshold"):
        decide(post, m, costs=cost, capacity={"call": 1}, threshold=0.0)


def test_policy_tree_decide_under_capacity():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 2))
    G = np.column_stack([np.zeros(60), X[:, 0], 0.5 * X[:, 1]])
    a = rng.choice(["none", "mail", "call"], size=60)
    pt = PolicyTree(decisions=["none", "mail", "call"]).fit(X, a, None, rewards=G)
    res = pt.decide(X, capacity={"mail": 5, "call": 4})
    assert (res.cases["D_policy"] == "mail").sum() <= 5
    assert (res.cases["D_policy"] == "call").sum() <= 4
    V = pt.leaf_values_[pt.apply(X)]
    assert res.summary["total_expected_profit"] == pytest.approx(
        allocate(V, {"1": 5, "2": 4}).total)
    with pytest.raises(ValueError, match="policy_value"):
        pt.decide(X, G, capacity={"mail": 5})


def test_policy_tree_decide_under_a_budget_passes_method_and_time_limit():
    """PolicyTree.decide solves a budget as allocate does with the same method and
    time_limit (the relaxation's gap reported), and refuses them without a limit."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(400, 2))
    G = np.column_stack([np.zeros(400), X[:, 0] + 1, 0.5 * X[:, 1] + 1])
    a = rng.choice(["none", "mail", "call"], size=400)
    pt = PolicyTree(decisions=["none", "mail", "call"], max_depth=3).fit(
        X, a, None, rewards=G)
    spend = np.column_stack([np.zeros(400), rng.uniform(1, 3, 400), rng.uniform(2, 5, 400)])
    V = pt.leaf_values_[pt.apply(X)]
    for method in ("relaxation", "exact", "auto"):
        res = pt.decide(X, costs=spend, budget={"call": 40.0}, method=method, time_limit=20)
        want = allocate(V, budget={"2": 40.0}, spend=spend, method=method, time_limit=20)
        assert res.summary["total_expected_profit"] == pytest.approx(want.total)
        assert res.summary["allocation_gap"] == pytest.approx(want.gap)
        spent = spend[:, 2][res.cases["D_policy"].to_numpy() == "call"].sum()
        assert spent <= 40.0 + 1e-9
    with pytest.raises(ValueError, match="method"):
        pt.decide(X, costs=spend, budget={"call": 40.0}, method="greedy")
    with pytest.raises(ValueError, match="capacity= or budget="):
        pt.decide(X, method="exact")


def test_capacity_plan_matches_the_decisions_and_ranks_leaves_by_gain():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(200, 2))
    G = np.column_stack([np.zeros(200), X[:, 0] + 0.3 * X[:, 1]])
    pt = PolicyTree(decisions=["skip", "call"], max_depth=2).fit(
        X, rng.choice(["skip", "call"], 200), None, rewards=G)
    plan = pt.capacity_plan(X, {"call": 30})
    res = pt.decide(X, capacity={"call": 30})
    assert plan["taken"].sum() == (res.cases["D_policy"] == "call").sum() <= 30
    assert plan["gain"].is_monotonic_decreasing
    assert (plan["decision"] == "boundary").sum() <= 1
    assert plan["n"].sum() == 200
    assert plan.attrs["sql"].startswith('CASE "_LEAF_" WHEN')
    whole = plan[plan["decision"] == "call"]
    assert (whole["taken"] == whole["n"]).all()
    # the cases a leaf does not give the call get its "otherwise" decision (the boundary
    # leaf's rest included), so scoring code can follow the plan row by row
    decided, leaf = res.cases["D_policy"].to_numpy(), pt.apply(X)
    for row in plan.itertuples():
        rest = decided[(leaf == row.leaf) & (decided != "call")]
        assert rest.size == row.n - row.taken and set(rest) <= {row.otherwise}
    assert (plan["decision"] == "boundary").any()  # the check above met a boundary leaf
    with pytest.raises(ValueError, match="one decision"):
        pt.capacity_plan(X, {"call": 3, "skip": 2})


def test_capacity_with_interval_and_loss_matrices():
    # interval target: the expected profit of "mail" is interpolated at the prediction
    m = DecisionMatrix({"mail": [-1, 9], "skip": [0, 0]}, knots=[0, 10])
    pred = np.array([1.0, 5, 8, 2])
    res = decide(pred, m, y=[0, 6, 9, 3], capacity={"mail": 1})
    assert res.cases["D_target"].tolist() == ["skip", "skip", "mail", "skip"]
    assert res.summary["shadow_price[mail]"] == pytest.approx(4.0)  # case 1: 0.5 * 10 - 1
    assert res.cases["CP_target"].tolist() == [0.0, 0.0, 8.0, 0.0]
    # loss matrix: the limited decision goes where it saves the most loss; the shadow
    # price is the loss one more unit would save (profit orientation)
    loss = DecisionMatrix({"call": [1, 0], "wait": [0, 5]}, levels=["no", "yes"], kind="loss")
    post = pd.DataFrame({"no": [0.9, 0.5, 0.2], "yes": [0.1, 0.5, 0.8]})
    out = decide(post, loss, capacity={"call": 1})
    assert out.cases["D_target"].tolist() == ["wait", "wait", "call"]
    assert out.cases["EL_target"].tolist() == pytest.approx([0.5, 2.5, 0.2])
    assert out.summary["shadow_price[call]"] == pytest.approx(2.0)  # case 1: 2.5 - 0.5


@pytest.mark.parametrize("seed", range(30))
def test_several_limited_decisions_with_a_budget_equal_brute_force(seed):
    # the mixed-integer program keeps only the (case, limited decision) pairs that beat
    # the case's best unlimited decision, a case taking at most one of them
    rng = np.random.default_rng(100 + seed)
    n, D = int(rng.integers(1, 7)), int(rng.integers(3, 5))
    V = rng.normal(size=(n, D)).round(2)
    S = rng.integers(0, 4, size=(n, D)).astype(float)
    if seed % 2:
        cap, bud = None, {1: float(rng.integers(0, 6)), 2: float(rng.integers(0, 6))}
    else:
        cap, bud = {1: int(rng.integers(0, n + 1))}, {2: float(rng.integers(0, 6))}
    names = [str(d) for d in range(D)]
    a = allocate(V, cap and {names[k]: v for k, v in cap.items()},
                 budget={names[k]: v for k, v in bud.items()}, spend=S)
    assert a.total == pytest.approx(brute_force_allocation(V, cap, budget=bud, spend=S))
    assert a.total == pytest.approx(V[np.arange(n), a.decision].sum())
    for d in bud:
        assert S[a.decision == d, d].sum() <= bud[d] + 1e-9
    for d in cap or {}:
        assert (a.decision == d).sum() <= cap[d]
