"""Every core: fit time per thread count, against peers, with CPU/wall and peak memory.

For every thread count 1, 2, ... up to the machine's cores (``--threads`` to choose), each
model is fitted in a fresh child process on the same data (``--rows`` x 20 normal
features, binary target, depth ``--depth``), best of ``--repeat``:

* dtdecide ``ProfitTreeClassifier(n_jobs=k)`` with each growing criterion and decision
  rule: ``gini``, ``entropy``, ``profit`` (leaf rule, a profit matrix) and ``case`` (the
  case rule: profit criterion, per-case costs, every case deciding with its own costs);
* scikit-learn ``HistGradientBoostingClassifier(max_iter=1)`` (one tree; threads limited
  with threadpoolctl), and LightGBM and XGBoost with one tree (``num_threads`` /
  ``n_jobs``), when installed;

and records the wall time, the process CPU time divided by the wall time during the fit
(the honest sign that the threads compute) and the CPU time itself, the peak resident
memory above the level
before the fit (sampled every 5 ms), the speed-up and parallel efficiency against one
thread, the ratio to each peer at the same thread count, and ``decide``/``predict`` on
the same rows. ``DTDECIDE_KERNELS`` (``compiled`` or ``numpy``) is passed on to the
children, so ``--kernels numpy`` measures the NumPy twins.

The machine's load average is printed before and after: on a shared machine, read the
numbers with it. Usage::

    python benchmarks/bench_cores.py --rows 2000000 --repeat 2
    python benchmarks/bench_cores.py --rows 2000000 --models gini hgb --threads 1 2
    python benchmarks/bench_cores.py --rows 200000 --json out.json     # quick
    python benchmarks/bench_cores.py --rows 10000000 --cache /tmp/data  # data drawn once

``benchmarks/device_cores.sh`` runs the 16-core table in stages.
"""

import argparse
import contextlib
import json
import os
import platform
import subprocess
import sys
import threading
import time

import numpy as np

DTDECIDE_MODELS = ("gini", "entropy", "profit", "case")
WARM_ROWS = 70_000  # the warm-up fit's rows
PEERS = ("hgb", "lightgbm", "xgboost")


def make_data(n_rows, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, 20))
    logit = X[:, 0] + 0.5 * X[:, 1] * X[:, 2] - X[:, 3] ** 2 + 0.3 * X[:, 4:10].sum(axis=1)
    y = (rng.random(n_rows) < 1.0 / (1.0 + np.exp(-logit))).astype(np.int64)
    cost = rng.uniform(0.5, 3.0, size=n_rows)  # per-case cost of calling (case rule)
    return X, y, cost


def cached_data(n_rows, cache=None):
    """``make_data(n_rows)``, read from ``cache`` (a directory) when it was saved there
    (10,000,000 rows take 10-15 s to draw in every child; read back, about 1 s)."""
    if cache is None:
        return make_data(n_rows)
    path = os.path.join(cache, f"bench_cores_{n_rows}.npz")
    if not os.path.exists(path):
        X, y, cost = make_data(n_rows)
        os.makedirs(cache, exist_ok=True)
        np.savez(path + ".tmp.npz", X=X, y=y, cost=cost)
        os.replace(path + ".tmp.npz", path)
        return X, y, cost
    with np.load(path) as data:
        return data["X"], data["y"], data["cost"]


def _rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class PeakRSS:
    """Peak resident memory while the block runs, sampled every 5 ms (Linux)."""

    def __enter__(self):
        self.base = _rss()
        self.peak = self.base
        self._stop = threading.Event()

        def sample():
            while not self._stop.is_set():
                self.peak = max(self.peak, _rss())
                time.sleep(0.005)

        self._thread = threading.Thread(target=sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, _rss())

    @property
    def above(self):
        return self.peak - self.base


def _matrix(with_costs):
    from dtdecide import DecisionMatrix

    if with_costs:
        return DecisionMatrix({"call": [12.0, 0.0], "skip": [0.0, 0.0]}, levels=[1, 0],
                              kind="revenue", costs={"call": "cost"})
    return DecisionMatrix({"call": [10.0, -1.0], "skip": [0.0, 0.0]}, levels=[1, 0])


def build(model, threads, depth):
    """``(fit(X, y, costs), score(fitted, X, costs))`` of one model at ``threads``."""
    if model in DTDECIDE_MODELS:
        from dtdecide import ProfitTreeClassifier

        kw = dict(max_depth=depth, random_state=0, n_jobs=threads)
        if model in ("gini", "entropy"):
            kw.update(criterion=model, decision_matrix=_matrix(False))
        elif model == "profit":
            kw.update(criterion="profit", decision_matrix=_matrix(False))
        else:
            kw.update(criterion="profit", decision_matrix=_matrix(True),
                      decision_rule="case", posterior_smoothing=0)
        costs_needed = model == "case"

        def fit(X, y, costs):
            est = ProfitTreeClassifier(**kw)
            return est.fit(X, y, costs=costs) if costs_needed else est.fit(X, y)

        def score(est, X, costs):
            return est.decide(X, costs=costs) if costs_needed else est.decide(X)

        return fit, score
    if model == "hgb":
        from sklearn.ensemble import HistGradientBoostingClassifier

        def fit(X, y, costs):
            return HistGradientBoostingClassifier(
                max_iter=1, max_depth=depth, max_leaf_nodes=None, min_samples_leaf=5,
                early_stopping=False, random_state=0).fit(X, y)
    elif model == "lightgbm":
        import lightgbm

        def fit(X, y, costs):
            return lightgbm.LGBMClassifier(
                n_estimators=1, max_depth=depth, num_leaves=2**depth, min_child_samples=5,
                num_threads=threads, verbose=-1).fit(X, y)
    elif model == "xgboost":
        import xgboost

        def fit(X, y, costs):
            return xgboost.XGBClassifier(
                n_estimators=1, max_depth=depth, tree_method="hist", n_jobs=threads,
                ).fit(X, y)
    else:
        raise ValueError(f"unknown model {model!r}")

    def score(est, X, costs):
        return est.predict(X)

    return fit, score


def child(spec):
    """Run one (model, threads) measurement; print one JSON line."""
    import pandas as pd
    from threadpoolctl import threadpool_limits

    X, y, cost = cached_data(spec["rows"], spec.get("cache"))
    costs = pd.DataFrame({"cost": cost})
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    del X
    fit, score = build(spec["model"], spec["threads"], spec["depth"])
    with threadpool_limits(spec["threads"]):
        # warm-up on a few rows: imports and (for dtdecide) loading the compiled kernels,
        # which "auto" would only use from AUTO_MIN_ROWS rows on
        warm = contextlib.nullcontext()
        if spec["model"] in DTDECIDE_MODELS:
            from dtdecide import config_context
            from dtdecide._jit import kernels_mode

            if kernels_mode() != "numpy":
                warm = config_context(kernels="compiled")
        with warm:
            # and scored once: decide's kernels (the walk, the case rule's step) are not
            # the fit's, and their first call loads them. WARM_ROWS rows also take the
            # paths of many rows (row-chunked histograms, slot offsets on the threads),
            # whose kernels would otherwise load during a timed fit (--repeat 1). The
            # rows are copied: a slice of the frame's rows is an array of neither memory
            # order, for which the binning kernel loads a version of its own (the full
            # frame's is Fortran-ordered, as the copy)
            w = slice(0, WARM_ROWS)
            head = frame.iloc[w].copy()
            score(fit(head, y[w], costs.iloc[w]), head, costs.iloc[w])
        best = None
        for _ in range(spec["repeat"]):
            t0, c0 = time.perf_counter(), time.process_time()
            with PeakRSS() as mem:
                est = fit(frame, y, costs)
            wall = time.perf_counter() - t0
            cpu = time.process_time() - c0
            run = {"fit_s": wall, "cpu_per_wall": cpu / wall, "peak_rss_mb": mem.above / 2**20}
            if best is None or wall < best["fit_s"]:
                best = run
        t0 = time.perf_counter()
        score(est, frame, costs)
        best["score_s"] = time.perf_counter() - t0
    best["input_mb"] = frame.memory_usage(index=False).sum() / 2**20
    print(json.dumps({**spec, **best}))


def available(model):
    if model in DTDECIDE_MODELS or model == "hgb":
        return True
    try:
        __import__(model)
    except ImportError:
        return False
    return True


def load():
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=2_000_000)
    p.add_argument("--depth", type=int, default=10)
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--threads", type=int, nargs="*", default=None,
                   help="thread counts (default: 1 .. os.cpu_count()); a count given "
                        "again runs again in a new process (--threads 1 16 1 16: "
                        "alternated), the table showing the median process")
    p.add_argument("--models", nargs="*", default=list(DTDECIDE_MODELS + PEERS))
    p.add_argument("--kernels", choices=("compiled", "numpy"), default=None,
                   help="DTDECIDE_KERNELS for the children (default: as set)")
    p.add_argument("--json", default=None, help="also write the results to this file")
    p.add_argument("--cache", default=None,
                   help="a directory to keep the data in: drawn once, read by every child")
    p.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        child(json.loads(args.child))
        return None

    threads = args.threads or list(range(1, (os.cpu_count() or 1) + 1))
    models = [m for m in args.models if available(m)]
    skipped = sorted(set(args.models) - set(models))
    env = dict(os.environ)
    if args.kernels:
        env["DTDECIDE_KERNELS"] = args.kernels
    print(f"# {platform.node()} {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores; {args.rows:,} rows x 20, depth {args.depth}; "
          f"kernels={env.get('DTDECIDE_KERNELS', 'compiled')}; "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    if skipped:
        print(f"# not installed, skipped: {', '.join(skipped)}")
    print(f"# load average before: {load()}")
    if args.cache:
        cached_data(args.rows, args.cache)  # drawn once, before the children
    results = []
    for k in threads:
        for model in models:
            spec = {"model": model, "threads": k, "rows": args.rows, "depth": args.depth,
                    "repeat": args.repeat, "cache": args.cache}
            out = subprocess.run([sys.executable, __file__, "--child", json.dumps(spec)],
                                 env=env, capture_output=True, text=True, check=False)
            if out.returncode != 0:
                print(f"# {model} threads={k} failed:\n{out.stderr[-2000:]}")
                continue
            res = json.loads(out.stdout.strip().splitlines()[-1])
            res["load"] = load()
            results.append(res)
            print(f"  {model:9s} threads={k}  fit {res['fit_s']:7.2f} s  "
                  f"cpu/wall {res['cpu_per_wall']:4.2f}  peak +{res['peak_rss_mb']:6.0f} MiB"
                  f"  score {res['score_s']:6.2f} s  (load {res['load']})", flush=True)
    print(f"# load average after: {load()}")
    report(results, models, threads)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return results


def report(results, models, threads):
    """The table: one row per model and thread count; where a thread count was given more
    than once (``--threads 1 16 1 16``: processes alternated), the row of the process
    with the median fit time (the lower middle one of an even number)."""
    runs = {}
    for r in results:
        runs.setdefault((r["model"], r["threads"]), []).append(r)
    by = {key: sorted(rs, key=lambda r: r["fit_s"])[(len(rs) - 1) // 2]
          for key, rs in runs.items()}
    threads = list(dict.fromkeys(threads))
    peers = [m for m in PEERS if m in models]
    head = (f"{'model':9s} {'thr':>3s} {'fit s':>7s} {'cpu s':>6s} {'cpu/wall':>8s} {'+MiB':>6s} "
            f"{'speedup':>7s} {'effic':>5s} {'score s':>7s} {'score/fit':>9s}"
            + "".join(f" {'/' + p:>9s}" for p in peers)
            + (f" {'/gini':>6s}" if "gini" in models else ""))
    print("\n" + head)
    for model in models:
        for k in threads:
            r = by.get((model, k))
            if r is None:
                continue
            one = by.get((model, 1))
            speed = one["fit_s"] / r["fit_s"] if one else float("nan")
            line = (f"{model:9s} {k:3d} {r['fit_s']:7.2f} {r['fit_s'] * r['cpu_per_wall']:6.2f} "
                    f"{r['cpu_per_wall']:8.2f} "
                    f"{r['peak_rss_mb']:6.0f} {speed:7.2f} {speed / k:5.2f} "
                    f"{r['score_s']:7.2f} {r['score_s'] / r['fit_s']:9.2f}")
            for p in peers:
                q = by.get((p, k))
                line += f" {r['fit_s'] / q['fit_s']:9.2f}" if q else f" {'-':>9s}"
            if "gini" in models:
                g = by.get(("gini", k))
                line += f" {r['fit_s'] / g['fit_s']:6.2f}" if g else f" {'-':>6s}"
            print(line)
    if results:
        print(f"\ninput: {results[0]['input_mb']:.0f} MiB of float64; '+MiB' is the fit's "
              "peak resident memory above the level before it; 'cpu s' the process CPU "
              "time of the fit (less sensitive than wall time to other work on the machine)")


if __name__ == "__main__":
    main()
