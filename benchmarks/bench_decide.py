"""Speed and memory of dtdecide.decide on many cases, against scikit-learn predict.

Decides 10 million cases x 3 target levels x 4 decisions (a revenue matrix with one
case-level cost column and a known target given as string labels, i.e. every output
column) and, in the same run, times ``DecisionTreeClassifier(max_depth=10).predict``
of a fitted tree on the same number of rows. Reports both times, their ratio and the
peak memory added by decide.

``--before REV`` also times the engine as it was at git revision ``REV`` (the
``dtdecide/decision`` files of that revision, loaded side by side as a separate
package) on the same data, and checks that both give the same results.

Run on demand (it is heavy; one repetition):

    python benchmarks/bench_decide.py            # 10 million rows
    python benchmarks/bench_decide.py --n 1000000 --before 295ebb6^
"""

import argparse
import importlib
import pathlib
import resource
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from dtdecide.decision import DecisionMatrix, decide

ROOT = pathlib.Path(__file__).resolve().parents[1]


def rss_mb():
    """Current resident set size (Linux), in MB."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20


class PeakRSS:
    """Largest resident set size seen while the block runs (sampled every 5 ms)."""

    def __enter__(self):
        self.start = self.peak = rss_mb()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self):
        while not self._stop.wait(0.005):
            self.peak = max(self.peak, rss_mb())

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, rss_mb())


def load_engine_at(rev, workdir):
    """The ``dtdecide.decision`` package of git revision ``rev``, as a separate package."""
    names = subprocess.run(
        ["git", "ls-tree", "--name-only", rev, "dtdecide/decision/"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout.split()
    pkg = pathlib.Path(workdir) / "dtdecide_decision_before"
    pkg.mkdir()
    for name in names:
        text = subprocess.run(["git", "show", f"{rev}:{name}"], cwd=ROOT, check=True,
                              capture_output=True, text=True).stdout
        (pkg / pathlib.Path(name).name).write_text(text)
    sys.path.insert(0, str(workdir))
    return importlib.import_module("dtdecide_decision_before")


def make_matrix(cls, levels):
    return cls(
        {"premium": [-20, 10, 60], "standard": [-5, 8, 25], "mail": [0, 2, 6],
         "none": [0, 0, 0]},
        levels=levels, kind="revenue",
        costs={"premium": "call_cost", "standard": 2.0, "mail": 0.5},
    )


def cpu_times():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime, r.ru_stime


def timed(f):
    """Wall, user and system seconds of ``f()``.

    User time is the steadiest figure on a shared machine; system time is mostly the
    page faults of fresh output arrays, which vary a lot from run to run on a VM.
    """
    w0, (u0, s0) = time.perf_counter(), cpu_times()
    out = f()
    u1, s1 = cpu_times()
    return out, time.perf_counter() - w0, (u1 - u0, s1 - s0)


def main(n, n_features, seed, before):
    rng = np.random.default_rng(seed)
    levels = ["low", "mid", "high"]
    matrix = make_matrix(DecisionMatrix, levels)
    # data: features, a target that depends on them, posteriors, costs
    X = rng.standard_normal((n, n_features), dtype=np.float32)
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1], [-0.5, 0.8])
    post = rng.dirichlet(np.ones(3), size=n)
    costs = {"call_cost": rng.uniform(1.0, 8.0, size=n)}
    fit_rows = min(n, 200_000)
    tree = DecisionTreeClassifier(max_depth=10, random_state=seed).fit(X[:fit_rows], y[:fit_rows])
    y_labels = np.asarray(levels, dtype=object)[y]
    rows = []

    # The first large allocation of a process can pay the kernel's one-off huge-page
    # compaction (seconds on a busy VM), whichever call comes first; touch and free a
    # block the size of the outputs once so that no timed call pays it.
    warm = np.empty(n * 6)
    warm[::512] = 1.0
    del warm

    _, w, c = timed(lambda: tree.predict(X))
    rows.append(("sklearn DecisionTreeClassifier(max_depth=10).predict", w, c))
    t_predict_w, t_predict_c = w, c

    with PeakRSS() as mem:
        res, w, c = timed(lambda: decide(post, matrix, y=y_labels, costs=costs))
    rows.append(("decide with target (all outputs)", w, c))
    _, w, c = timed(lambda: decide(post, matrix, costs=costs))
    rows.append(("decide without target", w, c))

    if before:
        with tempfile.TemporaryDirectory() as tmp:
            old = load_engine_at(before, tmp)
            old_matrix = make_matrix(old.DecisionMatrix, levels)
            old_res, w, c = timed(lambda: old.decide(post, old_matrix, y=y_labels, costs=costs))
            rows.append((f"BEFORE ({before}) decide with target", w, c))
            _, w, c = timed(lambda: old.decide(post, old_matrix, costs=costs))
            rows.append((f"BEFORE ({before}) decide without target", w, c))
        same = all(
            np.allclose(res.cases[k].to_numpy(np.float64) if k != "D_target" else
                        res.cases[k].cat.codes, old_res.cases[k].to_numpy(np.float64)
                        if k != "D_target" else old_res.cases[k].cat.codes,
                        rtol=1e-12, atol=0, equal_nan=True)
            for k in res.cases.columns
        ) and np.allclose(res.summary, old_res.summary, rtol=1e-12, equal_nan=True)
        del old_res

    print(f"rows: {n:,}  levels: 3  decisions: 4  tree features: {n_features}")
    print(f"{'':54s} {'wall s':>7s} {'user s':>7s} {'sys s':>6s} {'wall/pred':>10s} "
          f"{'user/pred':>10s} {'(u+s)/pred':>11s}")
    (pu, ps) = t_predict_c
    for name, w, (u, sy) in rows:
        print(f"{name:54s} {w:7.2f} {u:7.2f} {sy:6.2f} {w / t_predict_w:10.2f} "
              f"{u / pu:10.2f} {(u + sy) / (pu + ps):11.2f}")
    if before:
        print(f"same results as {before} (1e-12 relative): {same}")
    table_mb = res.cases.memory_usage(deep=False).sum() / 2**20
    print(f"decide with target: RSS {mem.start:,.0f} MB before, peak {mem.peak:,.0f} MB "
          f"(+{mem.peak - mem.start:,.0f} MB = the cases table {table_mb:,.0f} MB + "
          f"{max(0.0, mem.peak - mem.start - table_mb):,.0f} MB of work memory; posteriors held "
          f"by the caller: {post.nbytes / 2**20:,.0f} MB)")
    print(f"average profit {res.summary['average_profit']:.4f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000_000)
    parser.add_argument("--n-features", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--before", default=None,
                        help="git revision whose decision engine is timed too")
    args = parser.parse_args()
    main(args.n, args.n_features, args.seed, args.before)
