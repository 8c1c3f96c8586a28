"""Speed of profit pruning: path, scoring every subtree, cross-validation.

Run on demand (not part of the tests)::

    python benchmarks/bench_pruning.py            # 100,000 rows, 10-fold CV
    python benchmarks/bench_pruning.py --quick    # 20,000 rows, 3-fold CV

Reports, in the same run:

1. the weakest-link path of a ~10,000-leaf ProfitTreeClassifier (no refit), next to
   scikit-learn's own path kernel on a scikit-learn tree with as many leaves;
2. scoring every subtree of that sequence on validation rows (one routing per row);
3. k-fold cross-validation of a PruningStudy against one fit on all the rows: the design
   target is "about k fits" (each fold fits (k-1)/k of the rows).
"""

import argparse
import time

import numpy as np
import pandas as pd
from sklearn.tree import DecisionTreeClassifier

from dtdecide import DecisionMatrix, ProfitTreeClassifier, PruningStudy
from dtdecide.tree._estimator._pruning import pruning_path


def make_data(n, seed=0, n_features=10):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.normal(size=(n, n_features)),
                     columns=[f"x{i}" for i in range(n_features)])
    logit = X["x0"] + 0.5 * X["x1"] * X["x2"] - 1.5 + 0.3 * rng.normal(size=n)
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-logit)), "yes", "no")
    X["cost"] = np.round(rng.gamma(2.0, 1.0, n), 2)
    return X, y


MATRIX = DecisionMatrix({"call": [30, 0], "skip": [0, 0]}, levels=["yes", "no"],
                        kind="revenue", costs={"call": "cost"})


def best_of(fn, repeat=3):
    times = []
    out = None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes")
    parser.add_argument("--n-jobs", type=int, default=1)
    args = parser.parse_args()
    n = 20_000 if args.quick else 100_000
    folds = 3 if args.quick else 10
    leaves = 2_000 if args.quick else 10_000

    X, y = make_data(n)
    Xv, yv = make_data(n // 2, seed=1)

    # 1. path of a big tree
    big = ProfitTreeClassifier(decision_matrix=MATRIX, max_depth=None, min_samples_leaf=1,
                               min_samples_split=2, max_leaf_nodes=leaves).fit(X, y)
    t_path, path = best_of(lambda: pruning_path(big))
    print(f"tree: {big.get_n_leaves()} leaves, depth {big.get_depth()}; "
          f"path: {path.n_subtrees} subtrees in {t_path * 1e3:.1f} ms")
    try:
        from sklearn.tree._tree import ccp_pruning_path

        sk = DecisionTreeClassifier(max_leaf_nodes=leaves, random_state=0).fit(
            X.drop(columns="cost"), y)
        t_sk, _ = best_of(lambda: ccp_pruning_path(sk.tree_))
        print(f"scikit-learn path kernel on {sk.get_n_leaves()} leaves: "
              f"{t_sk * 1e3:.1f} ms (ratio dtdecide/sklearn {t_path / t_sk:.2f})")
    except ImportError:  # private kernel moved
        print("scikit-learn path kernel not importable; skipped")

    # 2. scoring all subtrees on validation data
    def study():
        return PruningStudy(big).fit(Xv, yv)

    t_study, st = best_of(study, repeat=1)
    t_apply, _ = best_of(lambda: big.apply(Xv), repeat=1)
    print(f"validation scoring of {st.path_.n_subtrees} subtrees on {len(yv)} rows: "
          f"{t_study:.2f} s (routing alone {t_apply:.2f} s)")

    # 3. cross-validation cost in fits
    params = dict(decision_matrix=MATRIX, max_depth=8, min_samples_leaf=20)
    t_fit, est = best_of(lambda: ProfitTreeClassifier(**params).fit(X, y), repeat=2)
    start = time.perf_counter()
    cv = PruningStudy(est, cv=folds, random_state=0, n_jobs=args.n_jobs).fit(
        X_train=X, y_train=y)
    t_cv = time.perf_counter() - start
    print(f"one fit on {n} rows: {t_fit:.2f} s; {folds}-fold CV study: {t_cv:.2f} s "
          f"= {t_cv / t_fit:.1f} fits (selected {cv.selected_n_leaves_} of "
          f"{est.get_n_leaves()} leaves)")


if __name__ == "__main__":
    main()
