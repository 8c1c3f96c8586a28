"""Scoring a CSV file larger than memory: peak memory, rows per second, same output.

A ``ProfitTreeClassifier`` (revenue matrix with a per-case cost column, depth 8) is
fitted on 50,000 rows; then a CSV file of ``--rows`` rows x 20 columns (15 numeric and
3 categorical inputs, the cost and the target; 2% missing values) is written block by
block and scored by ``dtdecide score`` in a child process, chunk by chunk, to a CSV
output with the profit figures and the summary. Reported: wall time, rows per second,
the child's CPU time over its wall time, its peak resident memory (``ru_maxrss``) and the
machine load. A second, smaller file (``--check-rows``) is scored both ways, chunked by
the command line and whole in memory (``read_csv`` + ``decide`` + ``to_csv``), and the two
outputs must be byte for byte equal (and the summaries equal to rounding).

Usage::

    python benchmarks/bench_score_file.py                         # 20M rows (~3.5 GB CSV)
    python benchmarks/bench_score_file.py --rows 2000000 --chunk-size 200000
"""

import argparse
import hashlib
import io
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

N_NUMERIC, CATEGORIES = 15, (4, 12, 40)


def make_rows(n, rng):
    """``n`` rows of the 20 columns (inputs x0..x17, cost, y)."""
    cols = {}
    for j in range(N_NUMERIC):
        v = np.round(rng.normal(50, 20, n), 2)
        v[rng.random(n) < 0.02] = np.nan
        cols[f"x{j}"] = v
    for k, count in enumerate(CATEGORIES):
        labels = np.array([f"c{k}_{i:02d}" for i in range(count)], dtype=object)
        v = labels[rng.integers(0, count, n)]
        v[rng.random(n) < 0.02] = None
        cols[f"x{N_NUMERIC + k}"] = v
    cost = 1.0 + rng.integers(0, 5, n)
    x0 = np.nan_to_num(cols["x0"], nan=50.0)
    signal = 0.04 * (x0 - 50) + 0.8 * (cols["x15"] == "c0_01")
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-(signal - 1.0))), "yes", "no")
    return pd.DataFrame({**cols, "cost": cost, "y": y})


def write_csv(path, n_rows, seed, block=1_000_000):
    rng = np.random.default_rng(seed)
    with open(path, "w", newline="") as fh:
        for start in range(0, n_rows, block):
            part = make_rows(min(block, n_rows - start), rng)
            part.to_csv(fh, index=False, header=start == 0)


def fit_model(path):
    from dtdecide import DecisionMatrix, ProfitTreeClassifier
    from dtdecide.export import save

    train = make_rows(50_000, np.random.default_rng(0))
    m = DecisionMatrix({"offer": [30.0, 0.0], "skip": [0.0, 0.0]}, levels=["yes", "no"],
                       kind="revenue", costs={"offer": "cost"})
    X = train.drop(columns=["cost", "y"])
    tree = ProfitTreeClassifier(decision_matrix=m, max_depth=8, min_samples_leaf=50)
    tree.fit(X, train["y"], costs=train[["cost"]])
    save(tree, path)
    return tree


_CHILD = """
import sys
from dtdecide.cli import main
code = main(sys.argv[1:])
status = open("/proc/self/status").read().split("\\n")
peak = next((line.split()[1] for line in status if line.startswith("VmHWM")), "0")
print(f"VmHWM {peak}", file=sys.stderr)
sys.exit(code)
"""


def run_child(argv):
    """Run ``dtdecide`` with ``argv`` in a child process; returns (wall seconds, CPU
    seconds, peak RSS in MiB, stdout). The peak is the child's own ``VmHWM`` (its
    memory's high-water mark since its exec), not ``ru_maxrss``, which on Linux also
    counts the parent's pages at the fork."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", _CHILD, *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    out = proc.stdout.read()
    err = proc.stderr.read().decode()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"dtdecide {' '.join(argv)} failed ({code}):\n{err}")
    peak = next((int(line.split()[1]) for line in err.splitlines()
                 if line.startswith("VmHWM")), 0)
    return wall, usage.ru_utime + usage.ru_stime, peak / 1024, out.decode()


def score_argv(model, data, output, chunk_size):
    return ["score", str(model), str(data), "-o", str(output), "--target", "y",
            "--chunk-size", str(chunk_size), "--quiet"]


def check_same_output(model_path, tree, folder, n_rows, chunk_size):
    data = folder / "check.csv"
    write_csv(data, n_rows, seed=2)
    streamed = folder / "check_streamed.csv"
    run_child(score_argv(model_path, data, streamed, chunk_size))
    frame = pd.read_csv(data)
    res = tree.decide(frame.drop(columns=["cost", "y"]), frame["y"], costs=frame[["cost"]])
    buffer = io.StringIO()
    res.cases.to_csv(buffer, index=False)
    whole = hashlib.sha256(buffer.getvalue().encode()).hexdigest()
    chunked = hashlib.sha256(streamed.read_bytes()).hexdigest()
    from dtdecide.export import score_file

    summary = score_file(tree, data, None, target="y", chunk_size=chunk_size)
    close = np.allclose(summary.to_numpy(), res.summary.to_numpy(), rtol=1e-12,
                        equal_nan=True) and list(summary.index) == list(res.summary.index)
    return whole == chunked, close


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=20_000_000)
    parser.add_argument("--chunk-size", type=int, default=100_000)
    parser.add_argument("--check-rows", type=int, default=300_000)
    parser.add_argument("--dir", default=None, help="folder for the files (default: a temp)")
    parser.add_argument("--keep-files", action="store_true")
    args = parser.parse_args()

    folder = Path(args.dir or tempfile.mkdtemp(prefix="bench_score_file_"))
    folder.mkdir(parents=True, exist_ok=True)
    model_path = folder / "model.dtdecide"
    tree = fit_model(model_path)
    print(f"model: {tree.get_n_leaves()} leaves; files in {folder}")

    same, close = check_same_output(model_path, tree, folder, args.check_rows,
                                    min(args.chunk_size, max(args.check_rows // 7, 1)))
    print(f"same output as in memory on {args.check_rows:,} rows: bytes equal {same}, "
          f"summary equal {close}")

    data = folder / f"big_{args.rows}.csv"
    start = time.perf_counter()
    if not data.exists():  # kept with --keep-files: reused by the next run in --dir
        write_csv(data, args.rows, seed=1)
    size = data.stat().st_size / 2**30
    print(f"{args.rows:,} rows x 20 columns: {size:.2f} GiB CSV "
          f"(written in {time.perf_counter() - start:.0f} s)")

    load_before = os.getloadavg()[0]
    out = folder / "big_scored.csv"
    wall, cpu, peak, stdout = run_child(score_argv(model_path, data, out, args.chunk_size))
    load_after = os.getloadavg()[0]
    print(f"scored {args.rows:,} rows in {wall:.1f} s: {args.rows / wall:,.0f} rows/s, "
          f"CPU/wall {cpu / wall:.2f}, peak memory {peak:,.0f} MiB "
          f"(1-min load {load_before:.1f} before, {load_after:.1f} after; "
          f"{os.cpu_count()} CPUs)")
    print(f"output {out.stat().st_size / 2**30:.2f} GiB; "
          + " ".join(line.strip() for line in stdout.splitlines() if "total_profit" in line))
    out.unlink()
    if not args.keep_files:
        for p in folder.iterdir():
            p.unlink()
        folder.rmdir()


if __name__ == "__main__":
    main()
