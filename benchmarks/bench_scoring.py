"""Scoring speed of the profit tree against scikit-learn, in one run.

A ``ProfitTreeClassifier`` (3 classes, a 3 x 3 profit matrix, depth 10) and a
scikit-learn ``DecisionTreeClassifier(max_depth=10)`` are fitted on ``--fit-rows`` rows,
then both score ``--rows`` rows (default 1,000,000). Cases (``--case``, default all):

* ``numeric``: 15 numeric inputs, 5% NaN; ours scores a DataFrame and the ndarray;
* ``mixed``: 10 numeric + 5 pandas ``category`` inputs with 5, 20, 50, 200 and 500
  categories, 5% NaN in every column;
* ``text``: as ``mixed`` but the 5 categorical inputs are pandas string columns.

scikit-learn gets the ordinal-encoded float matrix (category codes as numbers, NaN for
missing, which its trees route natively); encoding for it is not timed. For our tree the
timings are ``predict``, ``decide`` (the ``DecisionResult`` table without a target) and
the split of ``predict`` into input encoding (raw frame -> float64 codes, written block
by block as ``predict`` does) and ``TreeStructure.apply`` on the encoded matrix; the
whole code matrix at once (``_encode_X``) is shown too. Every figure is the best of
``--repeat`` runs; machines are shared and noisy, so read the ratios.

Usage::

    python benchmarks/bench_scoring.py                  # ~1 minute on 2 cores
    python benchmarks/bench_scoring.py --case mixed --rows 200000 --repeat 2
"""

import argparse
import time
import warnings

import numpy as np
from bench_tree import CATEGORY_COUNTS, make_categorical_data


def as_frame(X, is_categorical, category_counts, *, text=False):
    """The raw frame a user would hold: float columns, then category or string columns."""
    import pandas as pd

    cols = {}
    k = 0
    for j in range(X.shape[1]):
        if not is_categorical[j]:
            cols[f"x{j}"] = X[:, j]
            continue
        labels = np.array([f"level_{i:03d}" for i in range(category_counts[k])], dtype=object)
        codes = np.where(np.isnan(X[:, j]), -1, X[:, j]).astype(np.int64)
        cat = pd.Categorical.from_codes(codes, categories=labels)
        cols[f"x{j}"] = pd.Series(cat).astype("str") if text else cat
        if text:  # missing values as NaN in the string column, not the text 'nan'
            cols[f"x{j}"] = cols[f"x{j}"].where(codes >= 0)
        k += 1
    return pd.DataFrame(cols)


def timed(fn, repeat):
    best, out = np.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def profit_matrix():
    from dtdecide import DecisionMatrix

    return DecisionMatrix(
        {"offer": [12.0, -2.0, -4.0], "call": [4.0, 3.0, -1.0], "skip": [0.0, 0.0, 0.0]},
        levels=[0, 1, 2],
    )


def run_case(case, args):
    import pandas as pd
    from sklearn.tree import DecisionTreeClassifier

    from dtdecide import ProfitTreeClassifier
    from dtdecide.tree._structure._encode import encode_apply

    counts = () if case == "numeric" else CATEGORY_COUNTS
    n_numeric = 15 if case == "numeric" else 10
    n_total = args.fit_rows + args.rows
    X, y, is_cat = make_categorical_data(n_total, n_numeric, counts)
    frame = as_frame(X, is_cat, counts, text=case == "text")
    fit_frame, score_frame = frame.iloc[: args.fit_rows], frame.iloc[args.fit_rows:]
    score_frame = score_frame.reset_index(drop=True)
    # a fresh consolidated frame, as a user would read it from a file
    score_frame = pd.DataFrame({c: score_frame[c] for c in score_frame.columns})
    X_fit, X_score = X[: args.fit_rows], np.ascontiguousarray(X[args.fit_rows:])
    y_fit = y[: args.fit_rows]

    ours = ProfitTreeClassifier(decision_matrix=profit_matrix(), max_depth=args.depth,
                                min_samples_leaf=1, min_samples_split=2, random_state=0)
    fit_s, _ = timed(lambda: ours.fit(fit_frame, y_fit), 1)
    sk = DecisionTreeClassifier(max_depth=args.depth, random_state=0)
    sk_fit_s, _ = timed(lambda: sk.fit(X_fit, y_fit), 1)

    r = args.repeat
    rows = []
    codes = ours._encode_X(score_frame)

    def len_only(block):  # encoding cost alone: the blocks are written, then dropped
        return np.zeros(block.shape[0], dtype=np.intp)

    ours.predict(score_frame.iloc[:1000])  # warm-up: lazily built routing tables
    sk.predict(X_score[:1000])
    sk_s, _ = timed(lambda: sk.predict(X_score), r)
    rows.append(("sklearn DecisionTreeClassifier.predict (ordinal ndarray)", sk_s))
    pred_s, pred = timed(lambda: ours.predict(score_frame), r)
    rows.append(("dtdecide predict (DataFrame)", pred_s))
    dec_s, res = timed(lambda: ours.decide(score_frame), r)
    rows.append(("dtdecide decide (DataFrame)", dec_s))
    blk_s, _ = timed(lambda: encode_apply(score_frame, ours._encoding, len_only), r)
    rows.append(("  split: encode in blocks (what predict does)", blk_s))
    app_s, leaves = timed(lambda: ours.tree_.apply(codes), r)
    rows.append(("  split: TreeStructure.apply (encoded matrix)", app_s))
    enc_s, codes = timed(lambda: ours._encode_X(score_frame), r)
    rows.append(("  whole code matrix at once (_encode_X)", enc_s))
    if case == "numeric":
        with warnings.catch_warnings():  # fitted with column names, scored without
            warnings.simplefilter("ignore", UserWarning)
            arr_s, pred_arr = timed(lambda: ours.predict(X_score), r)
        rows.append(("dtdecide predict (ndarray)", arr_s))
        assert np.array_equal(pred_arr, pred)

    # the encoded matrix is the ordinal matrix scikit-learn scores (same labels order)
    assert np.array_equal(codes, X_score, equal_nan=True)
    assert np.array_equal(ours.classes_[np.argmax(ours.node_posteriors_[leaves], 1)], pred)
    assert len(res.cases) == args.rows

    print(f"\ncase {case}: fit on {args.fit_rows:,} rows (ours {fit_s:.2f} s, scikit-learn "
          f"{sk_fit_s:.2f} s), score {args.rows:,} rows x {X.shape[1]} inputs, "
          f"{ours.get_n_leaves()} leaves (scikit-learn {sk.get_n_leaves()})")
    print(f"  {'step':58s} {'seconds':>8s} {'/ sklearn':>10s}")
    for name, sec in rows:
        print(f"  {name:58s} {sec:8.3f} {sec / sk_s:10.2f}")
    print(f"  encoding share of predict: {blk_s / pred_s:.0%}")
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=["numeric", "mixed", "text", "all"], default="all")
    parser.add_argument("--rows", type=int, default=1_000_000, help="rows to score")
    parser.add_argument("--fit-rows", type=int, default=200_000, help="training rows")
    parser.add_argument("--depth", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    import dtdecide.tree  # noqa: F401  (import time stays out of the timings)

    cases = ["numeric", "mixed", "text"] if args.case == "all" else [args.case]
    for case in cases:
        run_case(case, args)


if __name__ == "__main__":
    main()
