"""Greedy against exact shallow profit trees (``search="exact"``).

Run on demand (not part of the test suite)::

    python benchmarks/bench_exact.py                      # every setting, depth 2 and 3
    python benchmarks/bench_exact.py --depths 2 --settings xor
    python benchmarks/bench_exact.py --time-limit 30      # depth-3 search budget (s)

For every setting and depth the same ``ProfitTreeClassifier`` (``min_samples_leaf=50``)
is fitted with ``search="greedy"`` and ``search="exact"`` on the training rows and scored
on the held-out rows by the profit its leaf decisions realise there (each case's actual
costs). Reported: training and held-out total profit, fit seconds, the exact search's
proven gap (``search_gap_``, 0 = optimal) and "greedy reaches X % of the exact training
profit".

Settings
--------
bank
    The bundled bank-marketing data (:func:`dtdecide.datasets.load_bank_marketing`),
    revenue matrix with the per-client ``contact_cost`` variable; train / test halves of
    the documented split.
bank_costmatrix
    The same decisions framed as an example-dependent cost matrix
    (``DecisionMatrix.from_cost_matrix`` with ``[C_FP, C_FN, C_TP, C_TN] = [c, 0, c - 30,
    0]`` per client): case-specific consequences instead of a cost variable.
xor
    A planted interaction: a campaign that pays for young clients with a loan and for
    older ones without (no main effect of either input), plus a weak main effect of
    income that lures the greedy root, and two noise inputs; 20,000 training and 20,000
    test rows.
"""

import argparse
import time

import numpy as np
import pandas as pd

from dtdecide import DecisionMatrix, ProfitTreeClassifier
from dtdecide.datasets import load_bank_marketing


def _bank(framing):
    train = load_bank_marketing(split="train")
    test = load_bank_marketing(split="test")
    if framing == "variable":
        return (train.data, train.target, train.costs, test.data, test.target, test.costs,
                train.decision_matrix)

    def cost_matrix(costs):
        c = costs["contact_cost"].to_numpy(dtype=float)
        z = np.zeros_like(c)
        return np.column_stack([c, z, c - 30.0, z])

    def relabel(y):
        return np.where(np.asarray(y) == "yes", 1, 0)

    m = DecisionMatrix.case_specific(levels=(0, 1), decisions=("predict 1", "predict 0"),
                                     kind="loss")
    return (train.data, relabel(train.target), cost_matrix(train.costs), test.data,
            relabel(test.target), cost_matrix(test.costs), m)


def _xor(n=20_000, seed=0):
    def draw(rng):
        X = pd.DataFrame({"age": rng.uniform(18, 72, n), "loan": rng.integers(0, 2, n),
                          "income": rng.normal(50, 10, n), "tenure": rng.uniform(0, 20, n),
                          "noise": rng.normal(size=n)})
        young = X["age"] < 45
        pays = (young & (X["loan"] == 1)) | (~young & (X["loan"] == 0))
        p = np.where(pays, 0.3, 0.02) + 0.05 * (X["income"] > 55)
        return X, np.where(rng.random(n) < p, "yes", "no")

    rng = np.random.default_rng(seed)
    Xtr, ytr = draw(rng)
    Xte, yte = draw(rng)
    m = DecisionMatrix({"call": [20.0, -4.0], "skip": [0.0, 0.0]}, levels=["yes", "no"])
    return Xtr, ytr, None, Xte, yte, None, m


SETTINGS = {
    "bank": lambda: _bank("variable"),
    "bank_costmatrix": lambda: _bank("matrix"),
    "xor": _xor,
}


def _profit(tree, X, y, costs):
    s = tree.decide(X, y, costs=costs).summary
    key = "total_profit" if "total_profit" in s else "total_loss"
    sign = 1.0 if key == "total_profit" else -1.0
    return sign * float(s[key])


def run(settings, depths, time_limit):
    rows = []
    for name in settings:
        Xtr, ytr, ctr, Xte, yte, cte, m = SETTINGS[name]()
        for depth in depths:
            res = {}
            for search in ("greedy", "exact"):
                est = ProfitTreeClassifier(decision_matrix=m, max_depth=depth,
                                           min_samples_leaf=50, search=search,
                                           time_limit=time_limit)
                t0 = time.perf_counter()
                est.fit(Xtr, ytr, costs=ctr)
                secs = time.perf_counter() - t0
                res[search] = (est, secs, _profit(est, Xtr, ytr, ctr),
                               _profit(est, Xte, yte, cte))
            ex = res["exact"][0]
            for search, (est, secs, p_tr, p_te) in res.items():
                rows.append({
                    "setting": name, "depth": depth, "search": search,
                    "leaves": est.get_n_leaves(), "train_profit": round(p_tr, 1),
                    "test_profit": round(p_te, 1), "seconds": round(secs, 2),
                    "gap": round(ex.search_gap_, 1) if search == "exact" else np.nan,
                })
            share = res["greedy"][2] / res["exact"][2] if res["exact"][2] > 0 else np.nan
            rows[-2]["greedy_%_of_exact"] = round(100 * share, 1)
    return pd.DataFrame(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--settings", nargs="+", default=list(SETTINGS), choices=list(SETTINGS))
    ap.add_argument("--depths", nargs="+", type=int, default=[2, 3])
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--verbose", action="store_true",
                    help="progress bars of the searches (best value and bound) on a terminal")
    args = ap.parse_args()
    if args.verbose:
        import dtdecide

        dtdecide.set_config(verbose=1)
    table = run(args.settings, args.depths, args.time_limit)
    with pd.option_context("display.width", 160, "display.max_columns", 20):
        print(table.to_string(index=False))


if __name__ == "__main__":
    main()
