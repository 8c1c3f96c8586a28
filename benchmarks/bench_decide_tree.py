"""Where a fitted tree's ``decide()`` on all rows spends its time, per rule and kernels.

The data and models of ``benchmarks/bench_cores.py`` (``--rows`` x 20 normal features,
binary target, depth 10; ``gini``: the leaf rule with a profit matrix, ``case``:
``decision_rule="case"`` with a cost column, ``decide(X, costs=...)``), one tree per
model fitted once, then ``decide`` timed at each ``--threads`` count (the tree's
``n_jobs``) with the compiled kernels and with the NumPy twins. For each: the best and
median wall time of ``--repeat`` calls, the process CPU time, the CPU time of the
calling thread (what does not run on the package's threads: validation, the result
table, the summary), and CPU/wall. It also checks that both kernels give the same
table and summary.

Usage::

    python benchmarks/bench_decide_tree.py
    python benchmarks/bench_decide_tree.py --rows 2000000 --threads 1 2 --repeat 9
"""

import argparse
import os
import sys
import time

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_cores import build, make_data  # noqa: E402


def timed(fn, args, repeat):
    walls, cpus, mains = [], [], []
    for _ in range(repeat):
        w, c, m = time.perf_counter(), time.process_time(), time.thread_time()
        fn(*args)
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
        mains.append(time.thread_time() - m)
    return min(walls), float(np.median(walls)), min(cpus), min(mains)


def main():
    from dtdecide import config_context

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=2_000_000)
    p.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    p.add_argument("--models", nargs="+", default=["gini", "case"],
                   choices=["gini", "entropy", "profit", "case"])
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--depth", type=int, default=10)
    args = p.parse_args()

    X, y, cost = make_data(args.rows)
    costs = pd.DataFrame({"cost": cost})
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    del X
    print(f"{args.rows:,} rows x {frame.shape[1]} features, depth {args.depth}; "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'model':8} {'threads':>7} {'kernels':9} {'wall s':>7} {'median':>7} "
          f"{'CPU s':>7} {'main s':>7} {'cpu/wall':>8}")
    for model in args.models:
        fit, score = build(model, max(args.threads), args.depth)
        with config_context(kernels="compiled"):
            est = fit(frame, y, costs)
        results = {}
        for threads in args.threads:
            est.set_params(n_jobs=threads)
            for mode in ("compiled", "numpy"):
                with config_context(kernels=mode):
                    results[mode] = score(est, frame, costs)  # warm: kernels loaded
                    wall, med, cpu, main_cpu = timed(score, (est, frame, costs),
                                                     args.repeat)
                print(f"{model:8} {threads:>7} {mode:9} {wall:7.3f} {med:7.3f} {cpu:7.3f} "
                      f"{main_cpu:7.3f} {cpu / wall:8.2f}")
            a, b = results["compiled"], results["numpy"]
            pd.testing.assert_frame_equal(a.cases, b.cases, check_exact=False, rtol=1e-12)
            pd.testing.assert_series_equal(a.summary, b.summary, check_exact=False,
                                           rtol=1e-12)
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
