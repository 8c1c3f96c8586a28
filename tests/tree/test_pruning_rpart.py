"""Pruning against R rpart's cp table (0/1 loss, no priors).

On small data sets where rpart and dtdecide grow the same tree (same splitting inputs,
same node sizes, same partition of the training rows into leaves), the weakest-link
alphas must equal rpart's CP times the root risk and the leaf counts its ``nsplit + 1``.
Runs only where ``Rscript`` with the rpart package is installed
(Debian/Ubuntu: ``apt-get install r-base-core r-cran-rpart``).
"""

import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

from dtdecide import DecisionMatrix, ProfitTreeClassifier


def _has_rpart():
    if shutil.which("Rscript") is None:
        return False
    try:
        done = subprocess.run(["Rscript", "-e", "library(rpart)"], capture_output=True,
                              timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


pytestmark = [
    pytest.mark.rpart,
    pytest.mark.skipif(not _has_rpart(), reason="needs Rscript with the rpart package"),
]

# cp = -1 keeps every split rpart finds (cp = 0 would already drop splits that do not
# lower the risk); no competitor or surrogate splits, no cross-validation.
R_SCRIPT = """
library(rpart)
d <- read.csv("data.csv")
d$y <- factor(d$y)
k <- nlevels(d$y)
loss <- matrix(1, k, k) - diag(k)
fit <- rpart(y ~ ., data = d, method = "class",
             parms = list(loss = loss, split = "gini"),
             control = rpart.control(cp = -1, minsplit = 10, minbucket = 5,
                                     maxdepth = MAXDEPTH, xval = 0, maxcompete = 0,
                                     maxsurrogate = 0, usesurrogate = 0))
fr <- fit$frame
write.csv(data.frame(node = as.integer(rownames(fr)), var = as.character(fr$var),
                     n = fr$n, dev = fr$dev), "frame.csv", row.names = FALSE)
write.csv(data.frame(where = as.integer(rownames(fr))[fit$where]), "where.csv",
          row.names = FALSE)
write.csv(fit$cptable, "cptable.csv", row.names = FALSE)
"""


def run_rpart(tmp_path, frame, max_depth):
    frame.to_csv(tmp_path / "data.csv", index=False)
    (tmp_path / "fit.R").write_text(R_SCRIPT.replace("MAXDEPTH", str(max_depth)))
    done = subprocess.run(["Rscript", "fit.R"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return (pd.read_csv(tmp_path / "frame.csv"), pd.read_csv(tmp_path / "where.csv"),
            pd.read_csv(tmp_path / "cptable.csv"))


# Seeds where both growers pick the same splits; on others a tie between two equally
# good splits can be broken differently (the cp tables then usually still agree).
def make_data(seed, n_classes):
    rng = np.random.default_rng(seed)
    n = 300
    X = pd.DataFrame({f"x{i}": rng.integers(0, 100, n).astype(float) for i in range(3)})
    signal = (X["x0"] > 50).astype(int) + (X["x1"] < 30).astype(int)
    noisy = np.where(rng.random(n) < 0.3, rng.integers(0, n_classes, n), signal % n_classes)
    y = np.array(list("abc"))[noisy]
    return X, y


def canonical_dtdecide(est):
    t = est.tree_

    def node(v):
        if t.children_left[v] < 0:
            return ("leaf", int(t.n_node_samples[v]))
        kids = sorted([node(t.children_left[v]), node(t.children_right[v])], key=repr)
        return (str(est.feature_names_in_[t.feature[v]]), int(t.n_node_samples[v]), kids)

    return node(0)


def canonical_rpart(frame):
    rows = {int(r.node): r for r in frame.itertuples()}

    def node(k):
        r = rows[k]
        if r.var == "<leaf>":
            return ("leaf", int(r.n))
        kids = sorted([node(2 * k), node(2 * k + 1)], key=repr)
        return (r.var, int(r.n), kids)

    return node(1)


@pytest.mark.parametrize(
    "seed, n_classes, max_depth", [(1, 2, 4), (2, 3, 4), (4, 2, 5), (4, 3, 4), (6, 2, 5)]
)
def test_alphas_and_leaf_counts_match_rpart_cp_table(tmp_path, seed, n_classes, max_depth):
    X, y = make_data(seed, n_classes)
    levels = sorted(set(y))
    k = len(levels)
    zero_one = DecisionMatrix(np.ones((k, k)) - np.eye(k), levels=levels, decisions=levels,
                              kind="loss")
    est = ProfitTreeClassifier(decision_matrix=zero_one, max_depth=max_depth,
                               min_samples_leaf=5, min_samples_split=10).fit(X, y)
    frame, where, cptable = run_rpart(tmp_path, X.assign(y=y), max_depth)

    # the same tree: same splitting inputs and node sizes ...
    assert canonical_dtdecide(est) == canonical_rpart(frame)
    # ... and the same partition of the training rows into leaves
    pairs = pd.crosstab(est.apply(X), where["where"].to_numpy())
    assert ((pairs > 0).sum(axis=0) == 1).all() and ((pairs > 0).sum(axis=1) == 1).all()

    path = est.cost_complexity_pruning_path()
    assert path.measure == "loss"
    root_risk = float(frame.loc[frame["node"] == 1, "dev"].iloc[0])
    assert path.train_total[-1] == pytest.approx(root_risk)
    # rpart lists subtrees from the root down; its last row (CP = -1, the control value)
    # is the full tree, which dtdecide lists first with alpha 0
    cp = cptable.iloc[::-1].reset_index(drop=True)
    assert int(cp["nsplit"].iloc[0]) + 1 == path.n_leaves[0]
    # every other row: a subtree of dtdecide's sequence with alpha = CP * root risk
    ours = pd.DataFrame({"alpha": path.ccp_alphas, "n_leaves": path.n_leaves}).iloc[1:]
    theirs = cp.iloc[1:]
    assert ours["n_leaves"].tolist() == (theirs["nsplit"] + 1).tolist()
    np.testing.assert_allclose(ours["alpha"], theirs["CP"] * root_risk, atol=1e-9)
    np.testing.assert_allclose(path.train_total[1:] / root_risk, theirs["rel error"],
                               rtol=1e-9)
