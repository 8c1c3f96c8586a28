"""Would a compiled per-case decision step pay? NumPy chunk kernel against a Numba loop.

The per-case step of :func:`dtdecide.decide` (and of a tree's ``decide`` under
``decision_rule="case"``) computes, for every case, the expected profit of every
decision ``A(i, d) = sum_t Post(i, t) base(t, d) - cost(i, d) s(i)``, takes the first
maximum and the investment cost of the chosen decision. In the package it is NumPy:
``_decide_chunks_additive`` (one matrix product per 32,768-row chunk, costs subtracted
in place, branch-free first maximum). This script times that kernel against a plain
Numba loop over the rows (``nogil``; the same outputs, checked), on one thread and on
two threads over halves of the rows, at ``--rows`` cases (default 2,000,000), for

* ``2x2``: the bank data's shape (two levels, contact / do nothing, one cost column);
* ``3x4``: three levels, four decisions, two cost columns and a constant cost.

The Numba loop lives here, not in the package: for :func:`dtdecide.decide` it did not
pay (see docs/dev/kernels.rst). A tree's ``decide`` under the case rule has its own
compiled step (``decision/_compiled.py``, also behind ``decide(n_jobs=...)``; see
``benchmarks/bench_decide_threads.py``), which works from per-node
products and runs on the threads; ``benchmarks/bench_decide_tree.py`` times it. Times are CPU seconds of the process
(best of ``--repeat``) and, for the two-thread run, wall seconds too; the load average
is printed with them.

Usage::

    python benchmarks/bench_decide_step.py
    python benchmarks/bench_decide_step.py --rows 10000000 --repeat 3
"""

import argparse
import os
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np


def best(fn, repeat):
    cpu = wall = np.inf
    for _ in range(repeat):
        c, w = time.process_time(), time.perf_counter()
        fn()
        cpu = min(cpu, time.process_time() - c)
        wall = min(wall, time.perf_counter() - w)
    return cpu, wall


def compiled_step():
    from numba import njit

    @njit(nogil=True, cache=True)
    def step(P, base, const, var_j, var_col, D_out, E_out, IC_out, lo, hi):
        T, D = base.shape
        A = np.empty(D)
        for i in range(lo, hi):
            s = 0.0
            for t in range(T):
                s += P[i, t]
            for d in range(D):
                a = 0.0
                for t in range(T):
                    a += P[i, t] * base[t, d]
                A[d] = a - const[d] * s
            for k in range(var_j.shape[0]):
                A[var_j[k]] -= var_col[k, i] * s
            top = 0
            for d in range(1, D):
                if A[d] > A[top]:  # first maximum
                    top = d
            D_out[i] = top
            E_out[i] = A[top]
            ic = const[top]
            for k in range(var_j.shape[0]):
                if var_j[k] == top:
                    ic += var_col[k, i]
            IC_out[i] = ic

    return step


def case(shape, n, rng):
    from dtdecide import DecisionMatrix

    if shape == "2x2":
        p1 = rng.random(n)
        P = np.column_stack([1 - p1, p1])
        costs = {"c": rng.uniform(0, 3, n)}
        m = DecisionMatrix({"contact": [0.0, 30.0], "do nothing": [0.0, 0.0]},
                           levels=["no", "yes"], kind="revenue", costs={"contact": "c"})
    else:
        P = rng.dirichlet(np.ones(3), n)
        costs = {"c1": rng.uniform(0, 3, n), "c2": rng.uniform(0, 5, n)}
        m = DecisionMatrix({"a": [12.0, 2.0, 0.0], "b": [4.0, 9.0, 1.0], "c": [0.0, 0.0, 6.0],
                            "skip": [0.0, 0.0, 0.0]}, levels=[0, 1, 2], kind="revenue",
                           costs={"a": "c1", "b": "c2", "c": 1.5})
    return P, m, costs


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=2_000_000)
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()

    from dtdecide import decide
    from dtdecide.decision import _engine

    step = compiled_step()
    rng = np.random.default_rng(0)
    n = args.rows
    print(f"{n} cases; load average {os.getloadavg()[0]:.2f}; best of {args.repeat}, "
          "CPU seconds (wall for two threads)")
    print(f"{'shape':6s} {'decide()':>9s} {'NumPy step':>11s} {'Numba 1t':>9s} "
          f"{'Numba 2t cpu':>13s} {'2t wall':>8s}  same")
    for shape in ("2x2", "3x4"):
        P, m, costs = case(shape, n, rng)
        plan = _engine._AdditivePlan(m, costs)
        D_np, E_np, IC_np = np.empty(n, np.int8), np.empty(n), np.empty(n)
        missing = np.zeros(n, dtype=bool)

        def numpy_step(plan=plan, P=P, m=m, D_np=D_np, E_np=E_np, IC_np=IC_np,
                       missing=missing):
            _engine._decide_chunks_additive(P, m, plan, None, None, None, 32768, missing,
                                            D_np, E_np, None, None, IC_np, None, None, None)

        base = np.ascontiguousarray(m.profit_values, dtype=np.float64)
        const = plan.const.copy()
        var_j = np.array([j for j, _, _ in plan.var], dtype=np.intp)
        var_col = np.vstack([col for _, col, _ in plan.var])
        D_nb, E_nb, IC_nb = np.empty(n, np.int8), np.empty(n), np.empty(n)
        args_nb = (P, base, const, var_j, var_col, D_nb, E_nb, IC_nb)
        step(*args_nb, 0, 10)  # compile (or load the cache) outside the timing
        half = n // 2

        def two_threads(args_nb=args_nb, bounds=((0, half), (half, n))):
            with ThreadPoolExecutor(2) as pool:
                list(pool.map(lambda b: step(*args_nb, *b), bounds))

        t_dec, _ = best(lambda: decide(P, m, costs=costs), args.repeat)  # noqa: B023
        t_np, _ = best(numpy_step, args.repeat)
        t_nb, _ = best(lambda: step(*args_nb, 0, n), args.repeat)  # noqa: B023
        c2, w2 = best(two_threads, args.repeat)
        same = (np.array_equal(D_np, D_nb) and np.array_equal(IC_np, IC_nb)
                and np.allclose(E_np, E_nb, rtol=1e-12, atol=1e-12))
        print(f"{shape:6s} {t_dec:9.3f} {t_np:11.3f} {t_nb:9.3f} {c2:13.3f} {w2:8.3f}  {same}")


if __name__ == "__main__":
    main()
