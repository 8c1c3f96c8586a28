"""Policy trees from logged campaigns: regret, held-out policy value, capacity, speed.

Run on demand (not part of the test suite)::

    python benchmarks/bench_policy.py speed --rows 1000000      # exact depth 2, given Gamma
    python benchmarks/bench_policy.py regret                    # simulated campaigns
    /tmp/peers/bin/python benchmarks/bench_policy.py peers      # econml, where it installs

``speed``
    ``PolicyTree(max_depth=2, search="exact")`` fitted on given net rewards (``rewards=``:
    no nuisance models) of ``--rows`` cases x 20 numeric inputs x 4 decisions on
    ``--n-jobs`` threads (default 2), with and without a per-action minimum leaf support; wall and CPU seconds, and the machine's
    load average before and after. On ``--compare-rows`` cases the profit tree's own exact
    search (``ProfitTreeClassifier(search="exact")`` on the same case-specific
    consequences) runs too: the two values must agree and the ratio of times is shown.

``regret``
    :func:`dtdecide.policy.make_logged_campaign` (its module notes give the design:
    three decisions, effects ``step``, ``linear``, ``interaction``, confounded logging).
    For every effect, training size and reward method (DR, IPW, DM; linear outcome
    models, logistic propensity models: the outcome model is misspecified except for the
    linear effect) a depth-2 policy tree is fitted; reported: regret on 50,000 fresh
    cases (true expected outcomes), the held-out DR policy value on an independent
    logged set of 5,000 cases with its 95 % interval, and fit seconds. With a capacity
    (``call`` for at most 10 % of the cases) the regret is measured against the best
    assignment of the true values under the same capacity.

``peers``
    econml's ``DRPolicyTree`` (depth 2, the same linear / logistic nuisances) on the same
    simulated campaigns, and econml's ``PolicyTree`` on the same DR rewards as ours; then,
    on the cases logged with "none" or "mail", causalml's ``CausalTreeRegressor`` (depth
    2, not honest; treat where its effect is positive; it has no propensity model)
    against a two-decision policy tree.
    Needs econml and causalml (for instance in a separate venv: ``python -m venv
    /tmp/peers && /tmp/peers/bin/pip install econml causalml``, with this repository on
    ``PYTHONPATH``); each is skipped with a note when it does not import.
"""

import argparse
import os
import time

import numpy as np
from sklearn.linear_model import LinearRegression, LogisticRegression

from dtdecide.decision import allocate
from dtdecide.policy import PolicyTree, make_logged_campaign, policy_rewards, policy_value


def _load():
    return "load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def _timed(fn):
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def speed(rows, compare_rows, support, n_jobs=2):
    rng = np.random.default_rng(0)
    F, D = 20, 4
    X = rng.normal(size=(rows, F))
    G = rng.normal(size=(rows, D))
    G[:, 1] += X[:, 0]
    G[:, 2] += X[:, 1] * X[:, 2]
    G[:, 3] += 0.5 * (X[:, 3] > 1)
    action = rng.integers(0, D, size=rows).astype(str)
    print(f"exact depth 2, {rows:,} rows x {F} inputs x {D} decisions (given rewards), "
          f"n_jobs={n_jobs}")
    for mas in (0, support):
        print(f"  before: {_load()}")
        pt, wall, cpu = _timed(lambda mas=mas: PolicyTree(
            max_depth=2, min_action_support=mas, n_jobs=n_jobs, random_state=0).fit(X, action, None,
                                                                     rewards=G))
        print(f"  min_action_support={mas}: {wall:.1f} s wall, {cpu:.1f} s CPU "
              f"(CPU/wall {cpu / wall:.2f}), value {pt.search_profit_:.1f}, "
              f"{pt.profit_tree_.get_n_leaves()} leaves; after: {_load()}")
    if compare_rows:
        from dtdecide import ProfitTreeClassifier
        from dtdecide.policy._estimator import reward_matrix

        Xs, Gs, a = X[:compare_rows], G[:compare_rows], action[:compare_rows]
        ours, w1, c1 = _timed(lambda: PolicyTree(max_depth=2).fit(Xs, a, None, rewards=Gs))
        y = np.full(compare_rows, "reward")
        tree = ProfitTreeClassifier(decision_matrix=reward_matrix(ours.decisions_),
                                    max_depth=2, search="exact")
        tree, w2, c2 = _timed(lambda: tree.fit(Xs, y, costs=Gs[:, None, :]))
        print(f"  {compare_rows:,} rows: PolicyTree {w1:.1f} s ({c1:.1f} CPU), profit tree's "
              f"exact search {w2:.1f} s ({c2:.1f} CPU), ratio {w2 / w1:.1f}; values "
              f"{ours.search_profit_:.3f} and {tree.search_profit_:.3f}; {_load()}")


def _regret(decided, test):
    mu = test.expected.to_numpy()
    idx = np.array([test.decisions.index(v) for v in decided])
    return float(mu.max(axis=1).mean() - mu[np.arange(idx.shape[0]), idx].mean())


def _fit(data, method, seed, n):
    return PolicyTree(decisions=data.decisions, method=method, cv=5,
                      outcome_model=LinearRegression(), propensity_model=LogisticRegression(),
                      min_samples_leaf=max(5, n // 100), random_state=seed).fit(
        data.X, data.action, data.outcome)


def regret(sizes, seeds, effects):
    print(_load())
    for effect in effects:
        test = make_logged_campaign(50_000, effect=effect, random_state=10_000)
        held = make_logged_campaign(5_000, effect=effect, confounding=1.5, random_state=20_000)
        held_rewards = policy_rewards(held.X, held.action, held.outcome,
                                      decisions=held.decisions, propensity=held.propensity,
                                      outcome_model=LinearRegression(), random_state=0)
        cap = {"call": int(0.1 * len(test.X))}
        mu = test.expected.to_numpy()
        best_capped = allocate(mu, cap, decisions=test.decisions).total / len(test.X)
        print(f"\neffect={effect}  (oracle value {mu.max(axis=1).mean():.3f}; "
              f"under capacity call <= 10%: {best_capped:.3f})")
        print("  rows    method  regret  regret@cap  held-out DR value [95% CI]      fit s")
        for n in sizes:
            for method in ("dr", "ipw", "dm"):
                r, rc, v, lo, hi, secs = [], [], [], [], [], []
                for seed in range(seeds):
                    data = make_logged_campaign(n, effect=effect, confounding=1.5,
                                                random_state=seed)
                    pt, wall, _ = _timed(lambda data=data, seed=seed, m=method, n=n: _fit(
                        data, m, seed, n))
                    secs.append(wall)
                    r.append(_regret(pt.predict(test.X), test))
                    capped = pt.decide(test.X, capacity=cap).cases["D_policy"]
                    idx = np.array([test.decisions.index(x) for x in capped])
                    rc.append(best_capped - mu[np.arange(idx.shape[0]), idx].mean())
                    t = policy_value(pt, held.X, held.action, None, rewards=held_rewards,
                                     methods=("dr",))
                    v.append(t.loc["dr", "value"])
                    lo.append(t.loc["dr", "ci_low"])
                    hi.append(t.loc["dr", "ci_high"])
                print(f"  {n:6d}  {method:6s}  {np.mean(r):.3f}   {np.mean(rc):.3f}       "
                      f"{np.mean(v):.3f} [{np.mean(lo):.3f}, {np.mean(hi):.3f}]     "
                      f"{np.mean(secs):.2f}")


def peers(sizes, seeds, effects):
    try:
        from econml.policy import DRPolicyTree
        from econml.policy import PolicyTree as EconPolicyTree
    except ImportError as exc:
        print(f"econml does not import here ({exc}); peers skipped")
        return
    print(_load())
    for effect in effects:
        test = make_logged_campaign(50_000, effect=effect, random_state=10_000)
        print(f"\neffect={effect}")
        print("  rows   ours DR regret (s)   econml DRPolicyTree regret (s)   "
              "same Gamma: ours / econml PolicyTree / greedy training value")
        for n in sizes:
            out = {k: [] for k in ("ours", "ours_s", "econ", "econ_s", "v_ours", "v_econ",
                                   "v_greedy")}
            for seed in range(seeds):
                data = make_logged_campaign(n, effect=effect, confounding=1.5,
                                            random_state=seed)
                pt, w, _ = _timed(lambda data=data, seed=seed, n=n: _fit(data, "dr", seed, n))
                out["ours"].append(_regret(pt.predict(test.X), test))
                out["ours_s"].append(w)
                codes = np.array([data.decisions.index(a) for a in data.action])
                econ = DRPolicyTree(max_depth=2, min_samples_leaf=max(5, n // 100),
                                    model_regression=LinearRegression(),
                                    model_propensity=LogisticRegression(), cv=5,
                                    honest=False, random_state=seed)
                _, w, _ = _timed(lambda econ=econ, data=data, codes=codes: econ.fit(
                    data.outcome, codes, X=data.X.to_numpy()))
                pred = np.asarray(econ.predict(test.X.to_numpy()), dtype=int)
                out["econ"].append(_regret(np.asarray(test.decisions)[pred], test))
                out["econ_s"].append(w)
                G = pt.rewards_.to_numpy()
                tree = EconPolicyTree(max_depth=2, min_samples_leaf=max(5, n // 100),
                                      honest=False, random_state=seed)
                tree.fit(data.X.to_numpy(), G)
                pick = np.asarray(tree.predict(data.X.to_numpy()), dtype=int)
                out["v_econ"].append(G[np.arange(n), pick].mean())
                out["v_ours"].append(pt.search_profit_ / n)
                greedy = PolicyTree(decisions=data.decisions, search="greedy",
                                    min_samples_leaf=max(5, n // 100)).fit(
                    data.X, data.action, None, rewards=G)
                out["v_greedy"].append(greedy.search_profit_ / n)
            m = {k: np.mean(v) for k, v in out.items()}
            print(f"  {n:6d}  {m['ours']:.3f} ({m['ours_s']:.2f})        {m['econ']:.3f} "
                  f"({m['econ_s']:.2f})                    {m['v_ours']:.4f} / "
                  f"{m['v_econ']:.4f} / {m['v_greedy']:.4f}")


def peers_two(sizes, seeds, effects):
    """Two decisions (none / mail, the cases logged with them): causalml's causal tree."""
    try:
        from causalml.inference.tree import CausalTreeRegressor
    except ImportError as exc:
        print(f"causalml does not import here ({exc}); skipped")
        return
    print(f"\ntwo decisions (none / mail); {_load()}")
    for effect in effects:
        test = make_logged_campaign(50_000, effect=effect, random_state=10_000)
        mu = test.expected[["none", "mail"]].to_numpy()
        print(f"effect={effect}")
        print("  rows   ours DR regret (s)   causalml CausalTreeRegressor regret (s)")
        for n in sizes:
            r1, s1, r2, s2 = [], [], [], []
            for seed in range(seeds):
                data = make_logged_campaign(n, effect=effect, confounding=1.5,
                                            random_state=seed)
                keep = np.isin(data.action, ["none", "mail"])
                X, a, y = data.X[keep], data.action[keep], data.outcome[keep]
                msl = max(5, n // 100)
                pt = PolicyTree(decisions=["none", "mail"], outcome_model=LinearRegression(),
                                propensity_model=LogisticRegression(), min_samples_leaf=msl,
                                random_state=seed)
                pt, w, _ = _timed(lambda pt=pt, X=X, a=a, y=y: pt.fit(X, a, y))
                pick = (pt.predict(test.X) == "mail").astype(int)
                r1.append(mu.max(axis=1).mean() - mu[np.arange(len(pick)), pick].mean())
                s1.append(w)
                ct = CausalTreeRegressor(max_depth=2, min_samples_leaf=msl, honesty=False,
                                         control_name=0, random_state=seed)
                t = (a == "mail").astype(int)
                _, w, _ = _timed(lambda ct=ct, X=X, t=t, y=y: ct.fit(X.to_numpy(), treatment=t,
                                                                     y=y))
                pick = (np.asarray(ct.predict(test.X.to_numpy())) > 0).astype(int)
                r2.append(mu.max(axis=1).mean() - mu[np.arange(len(pick)), pick].mean())
                s2.append(w)
            print(f"  {n:6d}  {np.mean(r1):.3f} ({np.mean(s1):.2f})        {np.mean(r2):.3f} "
                  f"({np.mean(s2):.2f})")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("what", choices=["speed", "regret", "peers"])
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--compare-rows", type=int, default=100_000)
    p.add_argument("--support", type=int, default=50)
    p.add_argument("--n-jobs", type=int, default=2, help="threads of the search (speed)")
    p.add_argument("--sizes", type=int, nargs="+", default=[500, 2000, 8000])
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--effects", nargs="+", default=["step", "linear", "interaction"])
    a = p.parse_args()
    if a.what == "speed":
        speed(a.rows, a.compare_rows, a.support, a.n_jobs)
    elif a.what == "regret":
        regret(a.sizes, a.seeds, a.effects)
    else:
        peers(a.sizes, a.seeds, a.effects)
        peers_two(a.sizes, a.seeds, a.effects)


if __name__ == "__main__":
    main()
