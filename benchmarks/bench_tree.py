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

With ``--case categorical``: ``--rows`` rows x 10 numeric + 5 categorical inputs (5, 20,
50, 200 and 500 categories), 5% NaN in every column, 3 classes, depth 10. It reports, in
the same run, fit and apply (scoring) times of

* dtdecide ``Binner`` + ``grow_tree`` with native categorical splits, and the same grower
  forced to one histogram width for all features (the layout before per-feature widths,
  kept as a twin: identical trees) -- "before/after";
* ``ProfitTreeClassifier`` on a DataFrame with pandas ``category`` columns;
* ``TreeStructure.apply`` (fixed steps with a per-node category lookup) against its
  level-by-level twin ``_route_block`` -- "before/after";
* scikit-learn ``DecisionTreeClassifier`` on ordinal-encoded data (NaN supported natively),
  and optionally (``--onehot``) on sparse one-hot data;
* ``HistGradientBoostingClassifier(max_iter=1, categorical_features=...)``. It accepts at
  most ``max_bins`` (255) categories per feature, so the 500-category input is given to it
  as an ordinal numeric column (said in the output).

Machines are noisy and shared: read the ratios, not the seconds. Usage::

    python benchmarks/bench_tree.py                       # full run (~2 minutes)
    python benchmarks/bench_tree.py --rows 200000 --score-rows 1000000 --skip-dt
    python benchmarks/bench_tree.py --case categorical    # 1M rows (~2 minutes)
    python benchmarks/bench_tree.py --case categorical --rows 200000 --score-rows 1000000
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
    from dtdecide.tree._algorithms._grower import grow_tree
    from dtdecide.tree._kernels._binning import Binner

    binner = Binner(random_state=0)
    X_binned = binner.fit_transform(X)
    tree = grow_tree(X_binned, binner, y=y, n_classes=3, max_depth=depth,
                     min_samples_leaf=1, min_samples_split=2)
    return tree, X_binned


CATEGORY_COUNTS = (5, 20, 50, 200, 500)


def make_categorical_data(n_rows, n_numeric=10, n_categories=CATEGORY_COUNTS, nan_rate=0.05,
                          seed=0):
    """Numeric columns first, then categorical codes (float, NaN missing); 3 classes."""
    rng = np.random.default_rng(seed)
    X = np.empty((n_rows, n_numeric + len(n_categories)))
    X[:, :n_numeric] = rng.normal(size=(n_rows, n_numeric))
    score = X[:, 0] - 0.5 * X[:, 1] * X[:, 2]
    effects = np.random.default_rng(1234).normal(
        size=(max(len(n_categories), 1), max(n_categories, default=1)))
    for k, n_cat in enumerate(n_categories):
        codes = rng.integers(0, n_cat, size=n_rows)
        X[:, n_numeric + k] = codes
        score += 0.7 * effects[k, codes]
    score += rng.normal(size=n_rows)
    y = np.digitize(score, np.quantile(score, [1 / 3, 2 / 3]))
    X[rng.random(X.shape) < nan_rate] = np.nan
    is_categorical = np.r_[np.zeros(n_numeric, bool), np.ones(len(n_categories), bool)]
    return X, y, is_categorical


def fit_kernels_categorical(X, y, is_categorical, depth, uniform=False):
    """Binner + grow_tree; ``uniform`` forces one histogram width (the old layout)."""
    import dtdecide.tree._algorithms._grower as grower_module
    from dtdecide.tree._kernels._binning import Binner
    from dtdecide.tree._kernels._histogram import BinLayout

    binner = Binner(random_state=0)
    X_binned = binner.fit_transform(X, is_categorical)
    real = BinLayout.from_binner
    if uniform:
        grower_module.BinLayout.from_binner = classmethod(
            lambda cls, b: cls.uniform(b.n_features_in_, b.n_bins_total_)
        )
    try:
        tree = grower_module.grow_tree(X_binned, binner, y=y, n_classes=3, max_depth=depth,
                                       min_samples_leaf=1, min_samples_split=2)
    finally:
        BinLayout.from_binner = real
    return tree, X_binned


def as_frame(X, is_categorical):
    import pandas as pd

    cols = {}
    for j in range(X.shape[1]):
        name = f"x{j}"
        if is_categorical[j]:
            cols[name] = pd.Categorical.from_codes(
                np.where(np.isnan(X[:, j]), -1, X[:, j]).astype(int),
                categories=np.arange(int(np.nanmax(X[:, j])) + 1),
            )
        else:
            cols[name] = X[:, j]
    return pd.DataFrame(cols)


def main_categorical(args):
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.tree import DecisionTreeClassifier

    import dtdecide.tree._algorithms._grower  # noqa: F401  (import time stays out of the timings)

    X, y, is_cat = make_categorical_data(args.rows)
    n_num = int((~is_cat).sum())
    print(f"data: {X.shape[0]:,} rows x {n_num} numeric + {int(is_cat.sum())} categorical "
          f"inputs ({', '.join(map(str, CATEGORY_COUNTS))} categories), 5% NaN, 3 classes, "
          f"depth {args.depth}")
    t_new, (tree, X_binned) = timed(lambda: fit_kernels_categorical(X, y, is_cat, args.depth))
    print(f"dtdecide Binner+grow_tree fit, per-feature widths {t_new:8.2f} s  "
          f"({tree.n_leaves} leaves, {int(tree.is_categorical.sum())} categorical splits)")
    t_old, (tree_old, _) = timed(
        lambda: fit_kernels_categorical(X, y, is_cat, args.depth, uniform=True)
    )
    print(f"dtdecide Binner+grow_tree fit, one width (before) {t_old:8.2f} s  "
          f"(same tree: {tree == tree_old}; before / after = {t_old / t_new:.2f}x)")
    del tree_old
    from dtdecide.tree._kernels._binning import Binner
    from dtdecide.tree._kernels._histogram import BinLayout

    layout = BinLayout.from_binner(Binner(random_state=0).fit(X[:50_000], is_cat))
    cells_flat = layout.n_cells
    cells_uniform = layout.widths.size * layout.max_width
    print(f"histogram cells per node and class: {cells_flat:,} (per-feature) vs "
          f"{cells_uniform:,} (one width) = {cells_uniform / cells_flat:.1f}x less")
    frame = as_frame(X, is_cat)
    try:
        from dtdecide import ProfitTreeClassifier

        est = ProfitTreeClassifier(max_depth=args.depth, min_samples_leaf=1,
                                   min_samples_split=2, random_state=0)
        t_est, _ = timed(lambda: est.fit(frame, y))
        print(f"dtdecide ProfitTreeClassifier fit (DataFrame)    {t_est:8.2f} s")
    except Exception as exc:  # a colleague's estimator
        est, t_est = None, np.nan
        print(f"dtdecide ProfitTreeClassifier unavailable ({type(exc).__name__}: {exc})")

    cat_idx = np.flatnonzero(is_cat)
    hgb_cat = np.array([j for j in cat_idx if np.nanmax(X[:, j]) + 1 <= 255])
    hgb = HistGradientBoostingClassifier(
        max_iter=1, max_depth=args.depth, max_leaf_nodes=None, early_stopping=False,
        categorical_features=hgb_cat, random_state=0,
    )
    t_hgb, _ = timed(lambda: hgb.fit(X, y))
    print(f"HistGradientBoostingClassifier fit (all cores)   {t_hgb:8.2f} s  "
          f"(categorical: columns {hgb_cat.tolist()}; > 255 categories given as numeric)")
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        t_hgb1, _ = timed(lambda: hgb.fit(X, y))
    print(f"HistGradientBoostingClassifier fit (1 thread)    {t_hgb1:8.2f} s")
    t_dt = np.nan
    dt = DecisionTreeClassifier(max_depth=args.depth, random_state=0)
    if not args.skip_dt:
        t_dt, _ = timed(lambda: dt.fit(X, y))
        print(f"DecisionTreeClassifier fit (ordinal codes, NaN)  {t_dt:8.2f} s")
    if args.onehot:
        from sklearn.preprocessing import OneHotEncoder

        enc = OneHotEncoder(handle_unknown="ignore", sparse_output=True)
        Xc = np.where(np.isnan(X[:, cat_idx]), -1, X[:, cat_idx])
        from scipy import sparse

        X_oh = sparse.hstack([sparse.csr_matrix(np.nan_to_num(X[:, ~is_cat], nan=-999.0)),
                              enc.fit_transform(Xc)]).tocsc()
        dt_oh = DecisionTreeClassifier(max_depth=args.depth, random_state=0)
        t_oh, _ = timed(lambda: dt_oh.fit(X_oh, y))
        print(f"DecisionTreeClassifier fit (sparse one-hot, {X_oh.shape[1]} cols) {t_oh:8.2f} s")
    print(f"ratio DecisionTree / dtdecide grow_tree:  {t_dt / t_new:6.2f}x faster")
    print(f"ratio dtdecide grow_tree / HGB:           {t_new / t_hgb:6.2f}")
    print(f"ratio dtdecide grow_tree / HGB 1 thread:  {t_new / t_hgb1:6.2f}")
    print(f"ratio ProfitTreeClassifier / HGB:         {t_est / t_hgb:6.2f}")

    # scoring
    del X_binned
    Xs, _, _ = make_categorical_data(args.score_rows, seed=1)
    if args.skip_dt:
        dt.fit(X[:200_000], y[:200_000])
    t_sk, _ = timed(lambda: dt.predict(Xs))
    print(f"score {Xs.shape[0]:,} rows: DecisionTreeClassifier.predict  {t_sk:7.2f} s")
    t_hp, _ = timed(lambda: hgb.predict(Xs))
    print(f"score {Xs.shape[0]:,} rows: HistGradientBoosting.predict    {t_hp:7.2f} s")
    t_apply, leaves = timed(lambda: tree.apply(Xs))
    print(f"score {Xs.shape[0]:,} rows: TreeStructure.apply (fixed)     {t_apply:7.2f} s"
          f"  (sklearn DT / ours = {t_sk / t_apply:.2f})")
    from dtdecide.tree._structure._tree import _APPLY_BLOCK

    def level_by_level():
        return np.concatenate([tree._route_block(Xs[s : s + _APPLY_BLOCK])
                               for s in range(0, Xs.shape[0], _APPLY_BLOCK)])

    t_lvl, leaves_lvl = timed(level_by_level)
    print(f"score {Xs.shape[0]:,} rows: level-by-level twin (before)    {t_lvl:7.2f} s"
          f"  (before / after = {t_lvl / t_apply:.2f}x; same leaves: "
          f"{np.array_equal(leaves, leaves_lvl)})")
    if est is not None:
        frame_s = as_frame(Xs, is_cat)
        t_pred, _ = timed(lambda: est.predict(frame_s))
        print(f"score {Xs.shape[0]:,} rows: ProfitTreeClassifier.predict    {t_pred:7.2f} s"
              f"  (sklearn DT / ours = {t_sk / t_pred:.2f})")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=["numeric", "categorical"], default="numeric")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--score-rows", type=int, default=None,
                        help="default: 10,000,000 (numeric), 1,000,000 (categorical)")
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--skip-dt", action="store_true", help="skip DecisionTreeClassifier")
    parser.add_argument("--onehot", action="store_true",
                        help="categorical case: also DecisionTreeClassifier on sparse one-hot")
    args = parser.parse_args(argv)
    if args.case == "categorical":
        if args.score_rows is None:
            args.score_rows = 1_000_000
        return main_categorical(args)
    if args.score_rows is None:
        args.score_rows = 10_000_000

    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.tree import DecisionTreeClassifier

    import dtdecide.tree._algorithms._grower  # noqa: F401  (import time stays out of the timings)

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
