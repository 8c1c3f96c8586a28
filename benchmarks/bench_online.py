"""One case at a time (online scoring): dtdecide against scikit-learn, in one run.

On the bank marketing data shipped with the package (``load_bank_marketing``, the
training split), every model scores a one-row pandas DataFrame per call, as a service
answering one request does. Timed, per call:

* ``sklearn predict``: ``DecisionTreeClassifier.predict`` of the same depth, fitted on
  the frame with its categorical columns as their integer codes (scikit-learn's trees
  take no pandas categories); encoding for it is not timed. The reference of every ratio.
* the leaf rule: ``predict``, ``predict_proba``, ``decide`` and ``decide`` with the case's
  cost row (``costs=``) of a ``ProfitTreeClassifier`` on the raw frame (categories,
  validation of every column, the result table);
* the case rule (``decision_rule="case"``): ``decide`` with the cost column given as a
  column of X (each case decides with its own contact cost);
* an interval target: ``ProfitTreeRegressor`` on the profit a contact would have made
  (30 per subscriber minus the calls), ``predict`` and ``decide``, beside
  ``DecisionTreeRegressor.predict``.

Each figure is the best over ``--repeat`` loops of ``--calls`` calls, in CPU time of
this process (``time.process_time``: other work on a shared machine slows it less than
wall time), in microseconds per call; the load average is printed with them. Ratios
are to scikit-learn's classifier ``predict`` in the same run: the goal of issue 26 is
at most 1.0 for ``predict`` and ``decide``.

Usage::

    python benchmarks/bench_online.py                     # ~20 s
    python benchmarks/bench_online.py --calls 500 --repeat 9 --kernels numpy
"""

import argparse
import os
import time
import warnings

import numpy as np
import pandas as pd


def best_us(fn, calls, repeat):
    """Best CPU microseconds per call over ``repeat`` loops of ``calls`` calls."""
    fn()  # warm: first-call caches (category tables, lists of the node arrays)
    best = np.inf
    for _ in range(repeat):
        start = time.process_time()
        for _ in range(calls):
            fn()
        best = min(best, (time.process_time() - start) / calls)
    return best * 1e6


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--calls", type=int, default=300, help="calls per timed loop")
    p.add_argument("--repeat", type=int, default=7, help="timed loops (best is shown)")
    p.add_argument("--depth", type=int, default=8)
    p.add_argument("--row", type=int, default=5, help="which training row is scored")
    p.add_argument("--kernels", choices=("auto", "compiled", "numpy"), default=None,
                   help="dtdecide's kernel setting (default: the package's)")
    args = p.parse_args()

    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    import dtdecide
    from dtdecide import DecisionMatrix, ProfitTreeClassifier, ProfitTreeRegressor
    from dtdecide.datasets import load_bank_marketing

    if args.kernels:
        dtdecide.set_config(kernels=args.kernels)
    bank = load_bank_marketing(split="train")
    X, y, costs, matrix = bank.data, bank.target, bank.costs, bank.decision_matrix
    X_codes = X.copy()
    for c in X_codes.columns:
        if isinstance(X_codes[c].dtype, pd.CategoricalDtype):
            X_codes[c] = X_codes[c].cat.codes.astype(np.float64)
    i = args.row
    row, row_codes, cost_row = X.iloc[[i]], X_codes.iloc[[i]], costs.iloc[[i]]
    with_cost = X.join(costs)
    row_with_cost = with_cost.iloc[[i]]

    sk = DecisionTreeClassifier(max_depth=args.depth, random_state=0).fit(X_codes, y)
    leaf = ProfitTreeClassifier(decision_matrix=matrix, max_depth=args.depth).fit(
        X, y, costs=costs)
    case = ProfitTreeClassifier(decision_matrix=matrix, max_depth=args.depth,
                                decision_rule="case").fit(with_cost, y)
    # interval target: what contacting the client would have earned
    profit = np.where(y == "yes", 30.0, 0.0) - costs["contact_cost"].to_numpy()
    lo, hi = float(profit.min()), float(profit.max())
    interval = DecisionMatrix({"contact": [lo, hi], "do nothing": [0.0, 0.0]}, knots=[lo, hi])
    reg = ProfitTreeRegressor(decision_matrix=interval, max_depth=args.depth).fit(X, profit)
    sk_reg = DecisionTreeRegressor(max_depth=args.depth, random_state=0).fit(X_codes, profit)

    calls = [
        ("sklearn predict", lambda: sk.predict(row_codes)),
        ("leaf predict", lambda: leaf.predict(row)),
        ("leaf predict_proba", lambda: leaf.predict_proba(row)),
        ("leaf decide", lambda: leaf.decide(row)),
        ("leaf decide, costs=", lambda: leaf.decide(row, costs=cost_row)),
        ("case decide, cost column", lambda: case.decide(row_with_cost)),
        ("sklearn regressor predict", lambda: sk_reg.predict(row_codes)),
        ("interval predict", lambda: reg.predict(row)),
        ("interval decide", lambda: reg.decide(row)),
    ]
    load_before = os.getloadavg()
    times = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning per call would be timed too
        for name, fn in calls:
            times[name] = best_us(fn, args.calls, args.repeat)
    load_after = os.getloadavg()
    ref = times["sklearn predict"]
    print(f"bank data, training split ({len(X)} rows, {X.shape[1]} inputs), depth "
          f"{args.depth}, one-row DataFrame per call; dtdecide {dtdecide.__version__}, "
          f"kernels={dtdecide.get_config()['kernels']}")
    print(f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f}; best of "
          f"{args.repeat} x {args.calls} calls, CPU time")
    print(f"{'call':28s} {'us/call':>9s} {'/sklearn':>9s}")
    for name, us in times.items():
        print(f"{name:28s} {us:9.1f} {us / ref:9.2f}")


if __name__ == "__main__":
    main()
