"""Peak memory of one fit per process, against the float64 input's bytes.

Each (model, threads) pair is fitted in ``--repeat`` fresh child processes on the data of
``bench_cores.py`` (``--rows`` x 20 normal features in a pandas frame of one float64
block, binary target, depth 10): a warm-up fit on 3,000 rows (imports, compiled
kernels), then **one** fit, whose peak resident memory above the level before it is
sampled every millisecond (the definition of ``bench_cores.py``'s ``+MiB``, which is
taken there from the best of several fits in one process and so can reuse memory a
first fit freed). Prints, per pair, the smallest and largest peak over the processes
and their ratio to the input's bytes (issue 26's memory goal: <= 0.3x). Usage::

    python benchmarks/bench_memory.py --rows 2000000
    python benchmarks/bench_memory.py --models gini profit case --threads 1 2 --repeat 3
"""

import argparse
import json
import os
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_cores as bc  # noqa: E402


def child(spec):
    import pandas as pd
    from threadpoolctl import threadpool_limits

    from dtdecide import config_context

    X, y, cost = bc.make_data(spec["rows"])
    costs = pd.DataFrame({"cost": cost})
    frame = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    del X
    fit, _ = bc.build(spec["model"], spec["threads"], spec["depth"])
    with threadpool_limits(spec["threads"]):
        with config_context(kernels="compiled"):
            fit(frame.iloc[:3000], y[:3000], costs.iloc[:3000])
        base = bc._rss()
        peak = [base]
        stop = threading.Event()

        def sample():
            while not stop.is_set():
                peak[0] = max(peak[0], bc._rss())
                time.sleep(0.001)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        t0 = time.perf_counter()
        fit(frame, y, costs)
        wall = time.perf_counter() - t0
        stop.set()
        sampler.join()
        peak[0] = max(peak[0], bc._rss())
    input_mb = frame.memory_usage(index=False).sum() / 2**20
    print(json.dumps({**spec, "peak_mb": (peak[0] - base) / 2**20, "input_mb": input_mb,
                      "fit_s": wall}))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=2_000_000)
    p.add_argument("--depth", type=int, default=10)
    p.add_argument("--repeat", type=int, default=2, help="processes per (model, threads)")
    p.add_argument("--threads", type=int, nargs="*", default=[1, 2])
    p.add_argument("--models", nargs="*", default=list(bc.DTDECIDE_MODELS))
    p.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        child(json.loads(args.child))
        return
    print(f"# {args.rows:,} rows x 20, depth {args.depth}; one fit per process; "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
          f"load {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'model':9s} {'thr':>3s} {'+MiB min':>8s} {'+MiB max':>8s} {'x input':>11s}")
    for k in args.threads:
        for model in args.models:
            peaks = []
            for _ in range(args.repeat):
                spec = {"model": model, "threads": k, "rows": args.rows, "depth": args.depth}
                out = subprocess.run([sys.executable, __file__, "--child", json.dumps(spec)],
                                     capture_output=True, text=True, check=False)
                if out.returncode != 0:
                    print(f"# {model} threads={k} failed:\n{out.stderr[-2000:]}")
                    break
                res = json.loads(out.stdout.strip().splitlines()[-1])
                peaks.append(res["peak_mb"])
            if peaks:
                inp = res["input_mb"]
                print(f"{model:9s} {k:3d} {min(peaks):8.0f} {max(peaks):8.0f} "
                      f"{min(peaks) / inp:5.2f}-{max(peaks) / inp:4.2f}", flush=True)
    print(f"# load after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
