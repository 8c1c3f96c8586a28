"""Where a fit's wall time goes on the thread pool: per kind of threaded pass, its wall
time, the threads' CPU time and their ratio (how many threads it kept busy), and the
calling thread's serial rest.

Each :meth:`ThreadPool.map_groups <dtdecide._parallel.ThreadPool.map_groups>`
call is timed on the calling thread (wall) and every thread's share of it with
``time.thread_time`` (CPU); passes are named by the function handed to the pool
(``build_histograms.<locals>.accumulate``: the histograms by features;
``_chunked_pass.<locals>.task``: by features and rows; ``_bin_grid``/``bin_features``:
binning; ``route``/``collect``/``both_ends``: the partition; ``scan``: the split
search). ``serial`` is the fit's wall time outside the pool's passes: the calling
thread alone. On a machine with as many cores as threads, ``busy`` far below the
threads of a pass that takes much of the wall time is where the speed-up is lost.
The data and models are ``bench_cores.py``'s (``--cache`` shares its saved data)::

    python benchmarks/profile_pool.py --rows 10000000 --threads 1 16 --cache /tmp/data

``--patch MODULE:NAME=VALUE`` sets a module's constant (a Python literal) before the
fits, to compare a tuning choice in the same run (e.g. ``--patch
dtdecide.tree._kernels._histogram:_TASK_FEATURES=0``).
"""

import argparse
import collections
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_cores import WARM_ROWS, build, cached_data  # noqa: E402


def instrument():
    """Patch the pool to record ``{name: [calls, wall, cpu]}``; returns the dict."""
    from dtdecide import _parallel

    stats = collections.defaultdict(lambda: [0, 0.0, 0.0])
    lock = threading.Lock()
    work = _parallel._Batch.work
    map_groups = _parallel.ThreadPool.map_groups

    def timed_work(self):
        t = time.thread_time()
        work(self)
        dt = time.thread_time() - t
        with lock:
            stats[_name(self.fn)][2] += dt

    def timed_map(self, fn, groups):
        t, c = time.perf_counter(), time.thread_time()
        try:
            return map_groups(self, fn, groups)
        finally:
            s = stats[_name(fn)]
            s[0] += 1
            s[1] += time.perf_counter() - t
            if len(groups) <= 1 or not self._workers:  # ran on the calling thread alone
                s[2] += time.thread_time() - c

    _parallel._Batch.work = timed_work
    _parallel.ThreadPool.map_groups = timed_map
    return stats


def _name(fn):
    return getattr(fn, "__qualname__", type(fn).__name__)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=2_000_000)
    p.add_argument("--depth", type=int, default=10)
    p.add_argument("--threads", type=int, nargs="*", default=[1, 2])
    p.add_argument("--models", nargs="*", default=["gini"])
    p.add_argument("--cache", default=None)
    p.add_argument("--patch", nargs="*", default=[], metavar="MODULE:NAME=VALUE")
    args = p.parse_args(argv)
    for spec in args.patch:
        import ast
        import importlib

        target, value = spec.split("=", 1)
        module, name = target.split(":")
        mod = importlib.import_module(module)
        if not hasattr(mod, name):
            raise SystemExit(f"--patch: {module} has no {name}")
        setattr(mod, name, ast.literal_eval(value))
        print(f"# patched {module}.{name} = {value}")
    import pandas as pd

    from dtdecide import config_context

    X, y, cost = cached_data(args.rows, args.cache)
    costs = pd.DataFrame({"cost": cost})
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    del X
    stats = instrument()
    print(f"# {os.cpu_count()} cores; {args.rows:,} rows x 20, depth {args.depth}; "
          f"load {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    for model in args.models:
        for k in args.threads:
            fit, _ = build(model, k, args.depth)
            with config_context(kernels="compiled"):  # loads the kernels, as bench_cores
                w = slice(0, WARM_ROWS)
                fit(frame.iloc[w], y[w], costs.iloc[w])
            stats.clear()
            t, c = time.perf_counter(), time.process_time()
            fit(frame, y, costs)
            wall, cpu = time.perf_counter() - t, time.process_time() - c
            print(f"\n{model}, {k} threads: fit {wall:.3f} s, CPU {cpu:.3f} s")
            print(f"  {'pass':44s} {'calls':>5s} {'wall s':>7s} {'cpu s':>7s} {'busy':>5s}")
            pooled = 0.0
            for name, (n, w, cp) in sorted(stats.items(), key=lambda kv: -kv[1][1]):
                pooled += w
                busy = f"{cp / w:5.1f}" if n and w > 1e-4 else f"{'-':>5s}"  # a submit: no wall
                print(f"  {name[:44]:44s} {n:5d} {w:7.3f} {cp:7.3f} {busy}")
            print(f"  {'serial (calling thread outside the pool)':44s} {'':5s} "
                  f"{wall - pooled:7.3f}")


if __name__ == "__main__":
    main()
