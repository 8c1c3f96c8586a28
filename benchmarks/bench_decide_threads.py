"""dtdecide.decide on threads: the NumPy chunk kernel and the compiled per-case step.

Decides ``--rows`` cases (default 10,000,000) x 2 levels x 3 decisions (call with a
case-level cost column, mail at a constant cost, skip) with a known target (every
output column: D_, EP_, IC_, CP_, BP_, ROI_ and the summary) for each combination of
kernels (``numpy``, ``compiled``) and ``n_jobs`` (``--threads``), the combinations
alternated within each of ``--repeat`` rounds; prints the best wall and CPU seconds of
each and the load average, and checks that every run gives the same result. Run it
under ``chrt -f 10`` on a shared machine and keep the run under a minute.

Usage::

    chrt -f 10 python benchmarks/bench_decide_threads.py --rows 10000000 --repeat 5
"""

import argparse
import os
import resource
import time

import numpy as np
import pandas as pd

from dtdecide import DecisionMatrix, config_context, decide


def cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main(n, threads, repeat, seed):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    post = np.column_stack([p, 1 - p])
    matrix = DecisionMatrix({"call": [30.0, 0.0], "mail": [12.0, 0.0], "skip": [0.0, 0.0]},
                            levels=["yes", "no"], kind="revenue",
                            costs={"call": "call_cost", "mail": 1.5})
    y = pd.Categorical(np.where(rng.random(n) < p, "yes", "no"), categories=["yes", "no"])
    costs = {"call_cost": rng.uniform(2.0, 8.0, n)}
    warm = np.empty(n * 8)  # the first large allocation's one-off cost, paid here
    warm[::512] = 1.0
    del warm
    runs = [(mode, k) for k in threads for mode in ("numpy", "compiled")]
    for mode in ("numpy", "compiled"):  # compile (or load the cache) before timing
        with config_context(kernels=mode):
            decide(post[:1000], matrix, y=y[:1000], costs={"call_cost": costs["call_cost"][:1000]},
                   n_jobs=max(threads))
    best = {}
    reference = None
    for _ in range(repeat):
        for mode, k in runs:
            with config_context(kernels=mode):
                c0, w0 = cpu_seconds(), time.perf_counter()
                res = decide(post, matrix, y=y, costs=costs, n_jobs=k)
                wall, cpu = time.perf_counter() - w0, cpu_seconds() - c0
            w, c = best.get((mode, k), (np.inf, np.inf))
            best[mode, k] = (min(w, wall), min(c, cpu))
            if reference is None:
                reference = res
            else:
                pd.testing.assert_frame_equal(res.cases, reference.cases, check_exact=True)
                pd.testing.assert_series_equal(res.summary, reference.summary,
                                               check_exact=True)
            del res
    print(f"rows {n:,}  levels 2  decisions 3  best of {repeat}  "
          f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    one = best["numpy", threads[0]][0]
    for (mode, k), (w, c) in best.items():
        print(f"{mode:9s} n_jobs={k:<3d} wall {w:6.3f} s  cpu {c:6.3f} s  "
              f"cpu/wall {c / w:4.2f}  vs numpy n_jobs={threads[0]}: {one / w:4.2f}x")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    main(args.rows, args.threads, args.repeat, args.seed)
