"""Decisions under a budget: time and gap of each ``allocate`` method.

Two made-up problems of ``--cases`` cases (seeded, the same for every method):

* ``one``: skip or mail; a letter is worth ``40 p - cost`` with ``p ~ Beta(1, 15)`` and
  the cost uniform on 0.5 to 3; the budget is 30% of what the gaining cases would spend;
* ``two``: skip, mail (``20 p - cost``, cost 0.5 to 2) or call (``60 p - cost``, cost 2
  to 6); a budget of 20% on the letters and a capacity of 2% of the cases on the calls.

Each (problem, method) runs in a fresh child process (the first call's imports are not
timed) and prints the wall time of ``allocate`` (the shadow prices included), the
total, the proven bound, the gap, whether it is proven optimal and how it was solved.
Run the timings under ``chrt -f 10`` on a shared machine and read them with the load
average printed before and after. Usage::

    python benchmarks/bench_budget.py --cases 20000 200000 --problems one two
    python benchmarks/bench_budget.py --cases 20000 --methods exact --time-limit 25
"""

import argparse
import json
import os
import subprocess
import sys
import time
import warnings

import numpy as np


def problem(kind, n, seed=0):
    """values, capacity, budget, spend and decision names of a made-up problem."""
    rng = np.random.default_rng(seed)
    p = rng.beta(1, 15, n)
    if kind == "one":
        cost = rng.uniform(0.5, 3.0, n)
        V = np.column_stack([np.zeros(n), 40 * p - cost])
        S = np.column_stack([np.zeros(n), cost])
        return V, None, {"mail": 0.3 * cost[V[:, 1] > 0].sum()}, S, ["skip", "mail"]
    cm, cc = rng.uniform(0.5, 2, n), rng.uniform(2, 6, n)
    V = np.column_stack([np.zeros(n), 20 * p - cm, 60 * p - cc])
    S = np.column_stack([np.zeros(n), cm, cc])
    return (V, {"call": int(0.02 * n)}, {"mail": 0.2 * cm[V[:, 1] > 0].sum()}, S,
            ["skip", "mail", "call"])


def child(kind, n, method, time_limit):
    from dtdecide.decision import allocate

    V, cap, bud, S, names = problem(kind, n)
    t = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        a = allocate(V, cap, budget=bud, spend=S, decisions=names, method=method,
                     time_limit=time_limit)
    wall = time.perf_counter() - t
    print(json.dumps(dict(problem=kind, cases=n, method=method, time_limit=time_limit,
                          seconds=round(wall, 3), total=a.total, bound=a.bound, gap=a.gap,
                          relative_gap=a.relative_gap, optimal=a.optimal, how=a.method,
                          warned=len(caught))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, nargs="+", default=[20000, 200000])
    ap.add_argument("--problems", nargs="+", choices=["one", "two"], default=["one", "two"])
    ap.add_argument("--methods", nargs="+", choices=["relaxation", "auto", "exact"],
                    default=["relaxation", "auto"])
    ap.add_argument("--time-limit", type=float, default=None)
    ap.add_argument("--timeout", type=float, default=600, help="seconds per child process")
    ap.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        kind, n, method, tl = args.child
        child(kind, int(n), method, None if tl == "None" else float(tl))
        return
    print("load average before:", os.getloadavg())
    for n in args.cases:
        for kind in args.problems:
            for method in args.methods:
                cmd = [sys.executable, __file__, "--child", kind, str(n), method,
                       str(args.time_limit)]
                try:
                    out = subprocess.run(cmd, capture_output=True, text=True,
                                         timeout=args.timeout).stdout
                except subprocess.TimeoutExpired:
                    print(json.dumps(dict(problem=kind, cases=n, method=method,
                                          seconds=f"> {args.timeout:g} (killed)")))
                    continue
                # HiGHS 1.12 prints a stray line to stdout now and then: keep the JSON
                print(*[line for line in out.splitlines() if line.startswith("{")], sep="\n")
    print("load average after:", os.getloadavg())


if __name__ == "__main__":
    main()
