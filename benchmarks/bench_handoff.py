"""What one hand-off to the package's threads costs, apart from the work handed off.

A fit hands each pass to :class:`dtdecide._parallel.ThreadPool` (about 30 hand-offs a
depth-10 fit); every group of a pass runs a few Python steps (taking the group, slicing,
calling the kernel) that need the interpreter's lock, and the compiled kernel then runs
without it. On a many-core machine the threads take that lock in turn and wake each other
up, which the pass's CPU time does not show. This benchmark measures it with work of a
known length and no memory traffic: every group spins a compiled ``nogil`` loop for
``--work`` microseconds, optionally after ``--steps`` small NumPy steps under the lock
(each a slice assignment of a few bytes, as a pass's tasks zero their cells), and

* ``ideal``: the groups' spin times replayed on the threads in the pool's order (each
  thread takes the next group when it is free) -- the wall time with free hand-offs;
* ``wall``: the measured wall time of one ``map_groups`` call, median of ``--repeat``;
* ``lost``: wall - ideal, a call and a group.

On the 2-core machine it is the baseline (two threads); on a lent many-core machine it
says how much of the passes' measured wall above ``profile_pool.py --simulate``'s replay
is the hand-offs themselves. Usage::

    python benchmarks/bench_handoff.py --threads 2 --groups 2 8 32 --work 100 1000
    python benchmarks/bench_handoff.py --threads 16 --groups 16 32 80 --steps 0 4
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def _spin_kernel():
    import numba

    @numba.njit(nogil=True, cache=False)
    def spin(n):
        x = 0.0
        for _ in range(n):
            x = x * 0.999999 + 1.0
        return x

    return spin


def calibrate(spin, target_s=0.05):
    """Spin iterations a microsecond (one thread, best of five)."""
    spin(1000)  # compiled
    n = 1_000_000
    while True:
        t = time.perf_counter()
        spin(n)
        dt = time.perf_counter() - t
        if dt > target_s / 5:
            break
        n *= 4
    best = min(_timed(spin, n) for _ in range(5))
    return n / (best * 1e6)


def _timed(spin, n):
    t = time.perf_counter()
    spin(n)
    return time.perf_counter() - t


def measure(pool, spin, per_us, n_groups, work_us, steps, repeat):
    """``(ideal, median wall)`` in seconds of one ``map_groups`` of ``n_groups`` groups."""
    from profile_pool import replay

    n = max(1, int(work_us * per_us))
    scratch = [np.zeros(64) for _ in range(n_groups)]

    def group(g):
        a = scratch[g]
        for s in range(steps):  # small NumPy steps under the interpreter's lock
            a[s % 8 : s % 8 + 8] = 0.0
        spin(n)

    pool.map_groups(group, list(range(n_groups)))  # warm
    walls = []
    for _ in range(repeat):
        t = time.perf_counter()
        pool.map_groups(group, list(range(n_groups)))
        walls.append(time.perf_counter() - t)
    ideal = replay([n / per_us * 1e-6] * n_groups, pool.n_threads)
    return ideal, statistics.median(walls)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, nargs="*", default=[2])
    p.add_argument("--groups", type=int, nargs="*", default=[2, 8, 32])
    p.add_argument("--work", type=float, nargs="*", default=[100.0, 1000.0],
                   help="microseconds of spinning a group")
    p.add_argument("--steps", type=int, nargs="*", default=[0, 4],
                   help="small NumPy steps under the interpreter's lock a group")
    p.add_argument("--repeat", type=int, default=25)
    args = p.parse_args(argv)
    from dtdecide._parallel import ThreadPool

    spin = _spin_kernel()
    per_us = calibrate(spin)
    print(f"# {os.cpu_count()} cores; load {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
          f"median of {args.repeat} calls")
    print(f"{'threads':>7s} {'groups':>6s} {'work us':>8s} {'steps':>5s} {'ideal ms':>9s} "
          f"{'wall ms':>8s} {'lost ms':>8s} {'lost us/group':>13s}")
    rows = []
    for k in args.threads:
        with ThreadPool(k) as pool:
            for g in args.groups:
                for w in args.work:
                    for s in args.steps:
                        ideal, wall = measure(pool, spin, per_us, g, w, s, args.repeat)
                        lost = wall - ideal
                        rows.append((k, g, w, s, ideal, wall, lost))
                        print(f"{k:7d} {g:6d} {w:8.0f} {s:5d} {ideal * 1e3:9.3f} "
                              f"{wall * 1e3:8.3f} {lost * 1e3:8.3f} {lost / g * 1e6:13.1f}")
    return rows


if __name__ == "__main__":
    main()
