"""Speed and memory of dtdecide.decide on many cases, against scikit-learn predict.

Decides 10 million cases x 3 target levels x 4 decisions (a revenue matrix with one
case-level cost column and a known target, i.e. every output column) and, in the same
run, times ``DecisionTreeClassifier.predict`` of a fitted tree on the same number of
rows. Reports both times, their ratio and the peak memory added by decide.

Run on demand (it is heavy; one repetition):

    python benchmarks/bench_decide.py            # 10 million rows
    python benchmarks/bench_decide.py --n 1000000
"""

import argparse
import resource
import time

import numpy as np
from sklearn.tree import DecisionTreeClassifier

from dtdecide.decision import DecisionMatrix, decide


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def main(n, n_features, seed):
    rng = np.random.default_rng(seed)
    levels = ["low", "mid", "high"]
    matrix = DecisionMatrix(
        {"premium": [-20, 10, 60], "standard": [-5, 8, 25], "mail": [0, 2, 6],
         "none": [0, 0, 0]},
        levels=levels, kind="revenue", costs={"premium": "call_cost", "standard": 2.0,
                                              "mail": 0.5},
    )
    # data: features, a target that depends on them, posteriors, costs
    X = rng.standard_normal((n, n_features), dtype=np.float32)
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1], [-0.5, 0.8])
    post = rng.dirichlet(np.ones(3), size=n)
    costs = {"call_cost": rng.uniform(1.0, 8.0, size=n)}
    fit_rows = min(n, 200_000)
    tree = DecisionTreeClassifier(max_depth=10, random_state=seed).fit(X[:fit_rows], y[:fit_rows])
    y_labels = np.asarray(levels, dtype=object)[y]
    before = peak_rss_mb()

    t0 = time.perf_counter()
    res = decide(post, matrix, y=y_labels, costs=costs)
    t_decide = time.perf_counter() - t0
    after = peak_rss_mb()

    t0 = time.perf_counter()
    res_noy = decide(post, matrix, costs=costs)
    t_decide_noy = time.perf_counter() - t0

    t0 = time.perf_counter()
    tree.predict(X)
    t_predict = time.perf_counter() - t0

    print(f"rows: {n:,}  levels: 3  decisions: 4  tree features: {n_features}")
    print(f"decide with target (all outputs): {t_decide:7.2f} s")
    print(f"decide without target:            {t_decide_noy:7.2f} s")
    print(f"sklearn DecisionTreeClassifier(max_depth=10).predict: {t_predict:7.2f} s")
    print(f"ratio decide(with target) / predict: {t_decide / t_predict:5.2f}")
    print(f"ratio decide(no target) / predict:   {t_decide_noy / t_predict:5.2f}")
    print(f"peak RSS before decide {before:,.0f} MB, after {after:,.0f} MB "
          f"(+{after - before:,.0f} MB; inputs already held: posteriors "
          f"{post.nbytes / 2**20:,.0f} MB)")
    print(f"average profit {res.summary['average_profit']:.4f}; "
          f"cases table {res.cases.memory_usage(deep=False).sum() / 2**20:,.0f} MB")
    del res_noy


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000_000)
    parser.add_argument("--n-features", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    main(args.n, args.n_features, args.seed)
