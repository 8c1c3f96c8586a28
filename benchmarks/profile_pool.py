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

``--simulate N`` predicts, from the fit at ``--threads`` on this machine, how the passes
would spread over ``N`` cores: every group's CPU time is recorded (``time.thread_time``
around the function the pool runs), and the groups of each call are replayed on ``N``
threads in the pool's own order (each thread takes the next group not yet taken, the
calling thread too). The prediction counts only the spread of the work, never memory
bandwidth or cache sharing, so it is an upper bound on the speed-up; a pass whose
predicted ``busy`` is far below ``N`` loses on its groups alone (too few, or one much
larger than the rest), which shows on two cores what otherwise needs many. Fit with
``--threads N`` so that the groups are cut for ``N`` threads::

    python benchmarks/profile_pool.py --rows 2000000 --threads 16 --simulate 16

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
    """Patch the pool to record ``{name: [calls, wall, cpu, the calling thread's cpu]}``;
    returns the dict."""
    from dtdecide import _parallel

    stats = collections.defaultdict(lambda: [0, 0.0, 0.0, 0.0])
    lock = threading.Lock()
    work = _parallel._Batch.work
    map_groups = _parallel.ThreadPool.map_groups

    def timed_work(self):
        t = time.thread_time()
        work(self)
        dt = time.thread_time() - t
        with lock:
            s = stats[_name(self.fn)]
            s[2] += dt
            if threading.current_thread() is threading.main_thread():
                s[3] += dt  # the calling thread's share

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


def record_groups():
    """Patch the pool to record every group's CPU time: returns a list of
    ``(name, [cpu of group 0, cpu of group 1, ...])``, one entry per call with two or
    more groups (a call of one group runs on the calling thread: it counts as serial)."""
    from dtdecide import _parallel

    calls = []
    batch_init = _parallel._Batch.__init__

    def init(self, fn, groups):
        times = [0.0] * len(groups)

        def timed(numbered):
            i, group = numbered
            t = time.thread_time()
            try:
                return fn(group)
            finally:
                times[i] = time.thread_time() - t

        timed.__qualname__ = _name(fn)
        batch_init(self, timed, list(enumerate(groups)))
        if len(groups) > 1:
            calls.append((_name(fn), times))

    _parallel._Batch.__init__ = init
    return calls


def replay(times, n_threads):
    """The wall time of groups of CPU ``times`` taken in order by ``n_threads`` threads,
    each taking the next group when it is free (the pool's rule)."""
    import heapq

    free = [0.0] * min(n_threads, max(len(times), 1))
    for t in times:
        heapq.heappush(free, heapq.heappop(free) + t)
    return max(free) if free else 0.0


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
    p.add_argument("--simulate", type=int, nargs="*", default=[], metavar="N",
                   help="predict each pass's wall time on N cores from its groups' CPU")
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


    X, y, cost = cached_data(args.rows, args.cache)
    costs = pd.DataFrame({"cost": cost})
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    del X
    from dtdecide import _parallel

    saved = (_parallel._Batch.__init__, _parallel._Batch.work,
             _parallel.ThreadPool.map_groups)
    try:
        _profile(args, frame, y, costs)
    finally:  # the pool as it was (main() may run inside another program: the tests)
        (_parallel._Batch.__init__, _parallel._Batch.work,
         _parallel.ThreadPool.map_groups) = saved


def _profile(args, frame, y, costs):
    from dtdecide import config_context

    stats = instrument()
    calls = record_groups() if args.simulate else None
    print(f"# {os.cpu_count()} cores; {args.rows:,} rows x 20, depth {args.depth}; "
          f"load {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    for model in args.models:
        for k in args.threads:
            fit, _ = build(model, k, args.depth)
            with config_context(kernels="compiled"):  # loads the kernels, as bench_cores
                w = slice(0, WARM_ROWS)
                fit(frame.iloc[w].copy(), y[w], costs.iloc[w])  # as bench_cores
            stats.clear()
            if calls is not None:
                calls.clear()
            t, c = time.perf_counter(), time.process_time()
            own = time.thread_time()
            fit(frame, y, costs)
            wall, cpu = time.perf_counter() - t, time.process_time() - c
            own = time.thread_time() - own
            print(f"\n{model}, {k} threads: fit {wall:.3f} s, CPU {cpu:.3f} s")
            print(f"  {'pass':44s} {'calls':>5s} {'wall s':>7s} {'cpu s':>7s} {'busy':>5s}")
            pooled = 0.0
            for name, (n, w, cp, _) in sorted(stats.items(), key=lambda kv: -kv[1][1]):
                pooled += w
                busy = f"{cp / w:5.1f}" if n and w > 1e-4 else f"{'-':>5s}"  # a submit: no wall
                print(f"  {name[:44]:44s} {n:5d} {w:7.3f} {cp:7.3f} {busy}")
            print(f"  {'serial (calling thread outside the pool)':44s} {'':5s} "
                  f"{wall - pooled:7.3f}")
            if calls is not None and k > 1:
                simulate(calls, stats, own, args.simulate)
            elif calls is not None:
                print("  (one thread: no groups to replay; fit with --threads N)")


def simulate(calls, stats, own, cores):
    """Print the predicted wall time of each pass on each of ``cores``, from the groups'
    CPU times (``record_groups``) and the calling thread's CPU outside them."""
    by_name = collections.defaultdict(list)
    for name, times in calls:
        by_name[name].append(times)
    # the calling thread's CPU outside the pool: its CPU in the fit less its share of
    # the groups (recorded per thread by instrument()) of the passes of 2+ groups
    inside = sum(stats[name][3] for name in by_name)
    serial = own - inside
    print(f"  predicted from the groups' CPU (spread only; no memory-bandwidth limit); "
          f"calling thread's CPU outside the passes {serial:.3f} s")
    head = " ".join(f"{f'{n} cores':>14s}" for n in [1, *cores])
    print(f"  {'pass':38s} {'groups':>7s} {head}")
    total = {n: serial for n in [1, *cores]}
    for name, runs in sorted(by_name.items(), key=lambda kv: -sum(map(sum, kv[1]))):
        cells = []
        for n in [1, *cores]:
            w = sum(replay(times, n) for times in runs)
            total[n] += w
            cpu = sum(map(sum, runs))
            cells.append(f"{w:7.3f} {cpu / w if w else 0:5.1f}x")
        groups = sum(len(t) for t in runs)
        print(f"  {name[:38]:38s} {groups:7d} {' '.join(cells)}")
    print(f"  {'fit (serial + passes)':38s} {'':7s} "
          + " ".join(f"{total[n]:7.3f} {total[1] / total[n]:5.1f}x" for n in [1, *cores]))


if __name__ == "__main__":
    main()
