"""Speed and memory of the tree grower against scikit-learn, in one run.

Fits on ``--rows`` rows x 20 numeric features, 3 classes, depth 10:

* dtdecide: the public ``ProfitTreeClassifier`` (without a decision matrix) and, to
  separate estimator overhead, ``Binner`` + ``grow_tree`` directly;
* scikit-learn ``DecisionTreeClassifier(max_depth=10)``;
* scikit-learn ``HistGradientBoostingClassifier(max_iter=1, max_depth=10,
  max_leaf_nodes=None, early_stopping=False)`` (one tree per class).

Then scores ``--score-rows`` rows: ``predict`` of both fitted trees and
``TreeStructure.apply``. Peak memory of our fit is traced with ``tracemalloc`` in a
separate (untimed) run and compared with the input and binned matrix sizes.

Machines are noisy and shared: read the ratios, not the seconds. Usage::

    python benchmarks/bench_tree.py                       # full run (~2 minutes)
    python benchmarks/bench_tree.py --rows 200000 --score-rows 1000000 --skip-dt
"""

import argparse
import time
import tracemalloc

import numpy as np


def make_data(n_rows, n_features=20, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, n_features))
    score = X[:, 0] + X[:, 1] * X[:, 2] - 0.5 * X[:, 3] ** 2 + rng.normal(size=n_rows)
    y = np.digitize(score, [-0.8, 0.6])  # 3 classes
    return X, y


def timed(fn, repeat=1):
    best = np.inf
    out = None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def ours_estimator(depth):
    from dtdecide import ProfitTreeClassifier

    return ProfitTreeClassifier(
        max_depth=depth, min_samples_leaf=1, min_samples_split=2, random_state=0
    )


def fit_kernels(X, y, depth):
    from dtdecide.tree._binning import Binner
    from dtdecide.tree._grower import grow_tree

    binner = Binner(random_state=0)
    X_binned = binner.fit_transform(X)
    tree = grow_tree(X_binned, binner, y=y, n_classes=3, max_depth=depth,
                     min_samples_leaf=1, min_samples_split=2)
    return tree, X_binned


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--score-rows", type=int, default=10_000_000)
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--skip-dt", action="store_true", help="skip DecisionTreeClassifier")
    args = parser.parse_args(argv)

    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.tree import DecisionTreeClassifier

    X, y = make_data(args.rows)
    print(f"data: {X.shape[0]:,} rows x {X.shape[1]} features, 3 classes, depth {args.depth}")

    t_kernels, (tree, X_binned) = timed(lambda: fit_kernels(X, y, args.depth))
    print(f"dtdecide Binner+grow_tree fit      {t_kernels:8.2f} s  ({tree.n_leaves} leaves)")
    try:
        t_est, est = timed(lambda: ours_estimator(args.depth).fit(X, y))
        print(f"dtdecide ProfitTreeClassifier fit  {t_est:8.2f} s")
    except Exception as exc:  # the estimator is a colleague's work in progress
        est, t_est = None, t_kernels
        print(f"dtdecide ProfitTreeClassifier unavailable ({type(exc).__name__}: {exc})")
    ours = t_est

    hgb = HistGradientBoostingClassifier(
        max_iter=1, max_depth=args.depth, max_leaf_nodes=None, early_stopping=False,
        random_state=0,
    )
    t_hgb, _ = timed(lambda: hgb.fit(X, y))
    print(f"HistGradientBoostingClassifier fit {t_hgb:8.2f} s  (all cores)")
    # like for like on a shared machine: our grower is single-threaded numpy
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        t_hgb1, _ = timed(lambda: hgb.fit(X, y))
    print(f"HistGradientBoostingClassifier fit {t_hgb1:8.2f} s  (1 thread)")
    t_dt = np.nan
    if not args.skip_dt:
        dt = DecisionTreeClassifier(max_depth=args.depth, random_state=0)
        t_dt, _ = timed(lambda: dt.fit(X, y))
        print(f"DecisionTreeClassifier fit         {t_dt:8.2f} s")
    print(f"ratio DecisionTree / dtdecide:  {t_dt / ours:6.2f}x faster (target >= 10)")
    print(f"ratio dtdecide / HGB:           {ours / t_hgb:6.2f}   (target <= 2)")
    print(f"ratio dtdecide / HGB 1 thread:  {ours / t_hgb1:6.2f}")

    # peak memory of our fit (separate run: tracing slows allocation-heavy code)
    tracemalloc.start()
    tracemalloc.reset_peak()
    if est is not None:
        ours_estimator(args.depth).fit(X, y)
    else:
        fit_kernels(X, y, args.depth)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    mb = 1 / 2**20
    budget = X.nbytes + 3 * X_binned.nbytes
    print(
        f"peak traced memory of fit {peak * mb:7.1f} MB; input {X.nbytes * mb:.1f} MB, "
        f"binned {X_binned.nbytes * mb:.1f} MB; budget input + 3 x binned = "
        f"{budget * mb:.1f} MB -> {'OK' if peak <= budget else 'OVER'}"
    )

    # scoring
    del X_binned
    Xs, _ = make_data(args.score_rows, seed=1)
    if args.skip_dt:
        dt = DecisionTreeClassifier(max_depth=args.depth, random_state=0).fit(X[:200_000], y[:200_000])
    t_sk, _ = timed(lambda: dt.predict(Xs))
    print(f"score {Xs.shape[0]:,} rows: DecisionTreeClassifier.predict {t_sk:7.2f} s")
    t_apply, _ = timed(lambda: tree.apply(Xs))
    print(f"score {Xs.shape[0]:,} rows: TreeStructure.apply            {t_apply:7.2f} s"
          f"  (sklearn / ours = {t_sk / t_apply:.2f}, target >= 1)")
    if est is not None:
        t_pred, _ = timed(lambda: est.predict(Xs))
        print(f"score {Xs.shape[0]:,} rows: ProfitTreeClassifier.predict   {t_pred:7.2f} s"
              f"  (sklearn / ours = {t_sk / t_pred:.2f}, target >= 1)")


if __name__ == "__main__":
    main()
