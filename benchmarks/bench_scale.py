"""Beyond one machine: the Dask fit against the in-memory fit, and ``n_jobs``.

Two measurements, each in the same run so that the ratios compare like with like:

``--case dask`` (default): writes ``--rows`` rows x 20 numeric features and a binary target
to a Parquet dataset (``--files`` files) under ``--dir``, then

* in-memory: ``pandas.read_parquet`` + ``ProfitTreeClassifier.fit``, in a fresh child
  process (its peak resident memory is the process's ``ru_maxrss``);
* Dask: ``dask.dataframe.read_parquet`` + the same ``fit`` on a
  ``LocalCluster(n_workers=2, threads_per_worker=1)``; peak resident memory of each
  worker (``ru_maxrss`` read on the workers) and of the client.

``--storage disk`` keeps the Dask fit's binned partitions on the workers' disks (Dask
configuration ``dtdecide.binned-storage``; bounded worker memory), ``--no-in-memory``
skips the in-memory fit (for sizes it cannot hold). ``--keep`` keeps the Parquet data,
and a later run with the same ``--dir``, ``--rows`` and ``--files`` reuses it.

Both fits get the same bins only on data small enough for the in-memory binner's
sub-sample (200,000 rows) to be the whole data; at larger sizes the Dask fit bins from
merged quantile summaries of every row, so the trees may differ slightly. The trees'
sizes and leaf counts are printed.

``--case n_jobs``: ``--rows`` rows x 20 features, binary target, depth 10, in memory:
``ProfitTreeClassifier(n_jobs=1)`` against ``n_jobs=2`` (best of ``--repeat``), and checks
that the trees are identical.

Machines are shared and noisy: read the ratios, and look at the load printed with them.
Usage::

    python benchmarks/bench_scale.py --rows 2000000              # Dask vs in-memory
    python benchmarks/bench_scale.py --rows 100000000 --files 100 --no-in-memory \
        --storage disk --dir /big/disk                            # out of core
    python benchmarks/bench_scale.py --case n_jobs --rows 3000000 --repeat 3
"""

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

FEATURES = [f"x{j}" for j in range(20)]


def make_frame(n_rows, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, len(FEATURES)))
    logit = X[:, 0] + 0.5 * X[:, 1] * X[:, 2] - X[:, 3] ** 2 + 0.3 * X[:, 4:10].sum(axis=1)
    y = (rng.random(n_rows) < 1.0 / (1.0 + np.exp(-logit))).astype(np.int8)
    frame = pd.DataFrame(X, columns=FEATURES)
    frame["y"] = y
    return frame


def write_parquet(directory, n_rows, n_files):
    """Write the dataset, or reuse one this script wrote with the same rows and files."""
    marker = directory / "_complete"
    if marker.exists() and marker.read_text() == f"{n_rows} {n_files}":
        return sum(f.stat().st_size for f in directory.glob("*.parquet")), True
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True, exist_ok=True)
    bounds = np.linspace(0, n_rows, n_files + 1).astype(int)
    for k, (a, b) in enumerate(zip(bounds[:-1], bounds[1:])):
        make_frame(b - a, seed=k).to_parquet(directory / f"part-{k:04d}.parquet", index=False)
    marker.write_text(f"{n_rows} {n_files}")
    return sum(f.stat().st_size for f in directory.glob("*.parquet")), False


def estimator(max_depth, n_jobs=None):
    from dtdecide.tree import ProfitTreeClassifier

    return ProfitTreeClassifier(max_depth=max_depth, min_samples_leaf=50, random_state=0,
                                n_jobs=n_jobs)


def peak_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _import_dtdecide():
    import dtdecide.tree  # noqa: F401


def in_memory_child(directory, max_depth):
    """Run in a fresh process: read the Parquet dataset, fit, print a JSON line."""
    _import_dtdecide()  # imports are not timed (as the Dask workers' below)
    start = time.perf_counter()
    frame = pd.read_parquet(directory)
    read = time.perf_counter() - start
    tree = estimator(max_depth).fit(frame[FEATURES], frame["y"])
    total = time.perf_counter() - start
    print(json.dumps({"seconds": total, "read_seconds": read, "peak_mib": peak_mib(),
                      "n_nodes": int(tree.tree_.children_left.size)}))


def run_in_memory(directory, max_depth):
    out = subprocess.run(
        [sys.executable, __file__, "--child", str(directory), "--max-depth", str(max_depth)],
        check=True, capture_output=True, text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def run_dask(directory, max_depth, memory_limit, storage):
    import dask
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    def worker_peak():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      memory_limit=memory_limit, dashboard_address=None) as cluster, \
            Client(cluster) as client, dask.config.set(
                {"scheduler": "distributed", "dtdecide.binned-storage": storage}):
        client.run(_import_dtdecide)  # workers up and imports done before the clock
        start = time.perf_counter()
        ddf = dd.read_parquet(str(directory))
        tree = estimator(max_depth).fit(ddf[FEATURES], ddf["y"])
        seconds = time.perf_counter() - start
        workers = client.run(worker_peak)
    return {"seconds": seconds, "worker_peak_mib": sorted(workers.values()),
            "client_peak_mib": peak_mib(), "n_nodes": int(tree.tree_.children_left.size)}


def case_dask(args):
    base = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="bench_scale_"))
    directory = base / f"rows_{args.rows}_files_{args.files}"
    try:
        start = time.perf_counter()
        size, reused = write_parquet(directory, args.rows, args.files)
        print(f"{'reused' if reused else 'wrote'} {args.rows:,} rows x {len(FEATURES)} "
              f"features in {args.files} Parquet files ({size / 2**20:.0f} MiB) in "
              f"{time.perf_counter() - start:.1f} s; load {os.getloadavg()[0]:.1f}",
              flush=True)
        mem = None
        if not args.no_in_memory:
            mem = run_in_memory(directory, args.max_depth)
            print(f"in-memory: {mem['seconds']:.1f} s (read {mem['read_seconds']:.1f} s), "
                  f"peak {mem['peak_mib']:.0f} MiB, {mem['n_nodes']} nodes", flush=True)
        dsk = run_dask(directory, args.max_depth, args.memory_limit, args.storage)
        print(f"dask (2 workers, binned-storage={args.storage}, memory_limit "
              f"{args.memory_limit}): {dsk['seconds']:.1f} s, peak per worker "
              + ", ".join(f"{m:.0f}" for m in dsk["worker_peak_mib"])
              + f" MiB, client {dsk['client_peak_mib']:.0f} MiB, {dsk['n_nodes']} nodes")
        line = (f"seconds per million rows: dask {dsk['seconds'] / args.rows * 1e6:.2f}")
        if mem is not None:
            line = (f"ratio dask / in-memory time: {dsk['seconds'] / mem['seconds']:.2f}; "
                    f"largest worker peak / in-memory peak: "
                    f"{max(dsk['worker_peak_mib']) / mem['peak_mib']:.2f}; " + line
                    + f", in-memory {mem['seconds'] / args.rows * 1e6:.2f}")
        print(f"{line}; load {os.getloadavg()[0]:.1f}")
    finally:
        if not args.keep:
            shutil.rmtree(directory, ignore_errors=True)
            if not args.dir:
                shutil.rmtree(base, ignore_errors=True)


def case_n_jobs(args):
    frame = make_frame(args.rows, seed=0)
    X, y = frame[FEATURES].to_numpy(), frame["y"].to_numpy()
    times, trees = {}, {}
    for _ in range(args.repeat):
        for n_jobs in (1, 2):
            start = time.perf_counter()
            tree = estimator(10, n_jobs=n_jobs).fit(X, y).tree_
            times.setdefault(n_jobs, []).append(time.perf_counter() - start)
            trees[n_jobs] = tree
    same = all(
        np.array_equal(getattr(trees[1], f), getattr(trees[2], f), equal_nan=True)
        for f in ("children_left", "feature", "threshold", "value", "impurity")
    )
    print(f"{args.rows:,} rows x 20 features, binary, depth 10: n_jobs=1 "
          + ", ".join(f"{t:.2f}" for t in times[1]) + " s; n_jobs=2 "
          + ", ".join(f"{t:.2f}" for t in times[2]) + " s")
    print(f"speed-up (best of {args.repeat}): {min(times[1]) / min(times[2]):.2f}x; "
          f"identical trees: {same}; load {os.getloadavg()[0]:.1f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=["dask", "n_jobs"], default="dask")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--files", type=int, default=8, help="Parquet files (dask case)")
    parser.add_argument("--max-depth", type=int, default=8)
    parser.add_argument("--memory-limit", default="4GiB", help="per Dask worker")
    parser.add_argument("--storage", choices=["memory", "disk", "auto"], default="memory",
                        help="Dask configuration dtdecide.binned-storage (dask case)")
    parser.add_argument("--no-in-memory", action="store_true",
                        help="only the Dask fit (sizes the in-memory fit cannot hold)")
    parser.add_argument("--dir", default=None, help="where to write the Parquet data")
    parser.add_argument("--keep", action="store_true", help="keep the Parquet data")
    parser.add_argument("--repeat", type=int, default=2, help="n_jobs case")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--verbose", action="store_true",
                        help="progress bars of the fits (a Dask fit's levels) on a terminal")
    args = parser.parse_args()
    if args.verbose:
        import dtdecide

        dtdecide.set_config(verbose=1)
    if args.child:
        in_memory_child(args.child, args.max_depth)
    elif args.case == "dask":
        case_dask(args)
    else:
        case_n_jobs(args)


if __name__ == "__main__":
    main()
