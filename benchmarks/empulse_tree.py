"""Peer run for bench_decision_quality.py: empulse's CSTreeClassifier in its own process.

empulse (AGPL) is a peer only: it is installed in a separate directory (never into the
package's environment) and run here, in a child process whose ``PYTHONPATH`` starts
with that directory, so its own numpy/scikit-learn do not meet the package's. Nothing of
it is copied; this file only calls its public estimator.

Usage: python empulse_tree.py <in.npz> <out.npz>

``in.npz`` holds ``X_train, y_train, costs_train`` (columns C_FP, C_FN, C_TP, C_TN),
``X_valid, X_test`` (numeric, NaN for missing), ``depths`` (0 = unlimited), ``seed`` and
``min_samples_leaf``. For every depth the tree is fitted with the training cases' own
costs; ``out.npz`` gets its class predictions and class-1 probabilities on the
validation and test rows, its number of leaves and its fit seconds.
"""

import sys
import time

import numpy as np
from empulse.models import CSTreeClassifier


def main(src, dst):
    data = np.load(src)
    fp, fn, tp, tn = data["costs_train"].T
    out = {"valid_pred": [], "test_pred": [], "valid_prob": [], "test_prob": [],
           "n_leaves": [], "fit_seconds": []}
    for depth in data["depths"]:
        model = CSTreeClassifier(max_depth=None if depth == 0 else int(depth),
                                 min_samples_leaf=int(data["min_samples_leaf"]),
                                 random_state=int(data["seed"]))
        t0 = time.perf_counter()
        model.fit(data["X_train"], data["y_train"], fp_cost=fp, fn_cost=fn, tp_cost=tp,
                  tn_cost=tn)
        out["fit_seconds"].append(time.perf_counter() - t0)
        for part in ("valid", "test"):
            X = data[f"X_{part}"]
            out[f"{part}_pred"].append(np.asarray(model.predict(X), dtype=np.int64))
            out[f"{part}_prob"].append(np.asarray(model.predict_proba(X))[:, 1])
        out["n_leaves"].append(int(model.get_n_leaves()))
    np.savez(dst, **{k: np.asarray(v) for k, v in out.items()})


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
