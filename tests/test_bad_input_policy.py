"""A third catalogue of bad inputs: logged campaigns, uplift charts, scoring files,
progress bars, guided trees and the recommended candidates.

Each case asserts the exception type and that the message names the offending
parameter, column or file and says what was expected (every pattern must be found in
the message); accepted inputs are checked against hand-computed values.
"""

import gzip
import shutil
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from bad_input_catalogue import catalogue_tests
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.dummy import DummyRegressor
from sklearn.linear_model import LinearRegression, LogisticRegression

from dtdecide import DecisionMatrix, ProfitTreeClassifier, ProfitTreeRegressor, PruningStudy
from dtdecide._progress import StatusLog, progress_bar
from dtdecide.assess import ProfitCurveDisplay, UpliftCurveDisplay, uplift_curve
from dtdecide.export import leaf_table, score_file, to_sql
from dtdecide.policy import PolicyTree, make_logged_campaign, policy_rewards, policy_value
from dtdecide.tree import fit_recommended, recommended_candidates

N = 12
#: A free-text value given as a name: messages show it cut to 80 characters.
LONG = "x" * 10_000


def _files(folder):
    """A profit tree, a regression tree and data files of 40 cases to score (one good
    CSV and Parquet file, and files of one flaw each), in ``folder``."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"age": rng.integers(20, 70, 40), "inc": rng.normal(size=40)})
    y = np.where(X["age"] > 45, "yes", "no")
    m = DecisionMatrix({"call": [20, -2], "skip": [0, 0]}, levels=["yes", "no"])
    data = X.assign(y=y, job=["a", "b"] * 20)
    paths = {k: folder / k for k in ("ok.csv", "ok.parquet", "gz_named.csv",
                                     "parquet_named.csv", "csv_named.parquet",
                                     "dup.parquet", "dup.xlsx")}
    data.to_csv(paths["ok.csv"], index=False)
    data.assign(id=[*range(20), *(f"c{i}" for i in range(20, 40))],
                note=[None] * 20 + ["call back"] * 20).to_csv(folder / "mixed_id.csv",
                                                              index=False)
    data.to_parquet(paths["ok.parquet"])
    with open(paths["ok.csv"], "rb") as src, gzip.open(paths["gz_named.csv"], "wb") as out:
        shutil.copyfileobj(src, out)
    shutil.copy(paths["ok.parquet"], paths["parquet_named.csv"])
    shutil.copy(paths["ok.csv"], paths["csv_named.parquet"])
    pq.write_table(pa.table([data["age"], data["inc"]], names=["age", "age"]),
                   paths["dup.parquet"])
    data.rename(columns={"inc": "age"}).to_excel(paths["dup.xlsx"], index=False)
    return SimpleNamespace(
        **{k.replace(".", "_"): str(v) for k, v in paths.items()}, folder=folder,
        mixed_id_csv=str(folder / "mixed_id.csv"),
        tree=ProfitTreeClassifier(decision_matrix=m, max_depth=2).fit(X, y),
        reg=ProfitTreeRegressor(max_depth=2).fit(X, X["inc"]))


@pytest.fixture(scope="module")
def f(tmp_path_factory):
    """A tiny logged campaign (12 cases, two decisions) and files to score; each case
    spoils one thing."""
    X = pd.DataFrame({"x": np.arange(float(N))})
    action = np.array(["A", "B"] * (N // 2), dtype=object)
    outcome = np.arange(1.0, N + 1)
    p = np.full(N, 0.5)
    rewards = policy_rewards(X, action, outcome, propensity=p, outcome_model=DummyRegressor(),
                             cv=2, random_state=0)
    G = pd.DataFrame({"A": np.zeros(N), "B": np.r_[-np.ones(6), np.ones(6)]})
    return SimpleNamespace(X=X, a=action, y=outcome, p=p, r=rewards, G=G,
                           shifted=pd.RangeIndex(3, N + 3), t=action == "B",
                           files=_files(tmp_path_factory.mktemp("score")),
                           tree=PolicyTree(max_depth=1).fit(X, action, None, rewards=G))


def _from_tree(f, **kw):
    """UpliftCurveDisplay.from_estimator of the fixture's tree (B against A)."""
    args = dict(X=f.X, treatment=f.t, outcome=f.y, treated="B", control="A")
    args.update(kw)
    X, t, y = args.pop("X"), args.pop("treatment"), args.pop("outcome")
    return UpliftCurveDisplay.from_estimator(f.tree, X, t, y, **args)


def _rewards(f, **kw):
    """policy_rewards of the fixture's campaign with one argument changed."""
    args = dict(X=f.X, action=f.a, outcome=f.y, propensity=f.p,
                outcome_model=DummyRegressor(), cv=2, random_state=0)
    args.update(kw)
    X, action, outcome = args.pop("X"), args.pop("action"), args.pop("outcome")
    return policy_rewards(X, action, outcome, **args)


def _value(f, policy="A", **kw):
    """policy_value of the fixture's campaign with one argument changed."""
    args = dict(X=f.X, action=f.a, outcome=f.y, propensity=f.p,
                outcome_model=DummyRegressor(), cv=2, random_state=0)
    args.update(kw)
    X, action, outcome = args.pop("X"), args.pop("action"), args.pop("outcome")
    return policy_value(policy, X, action, outcome, **args)


def _fit(f, tree=None, **kw):
    """PolicyTree.fit on the fixture's rewards with one fit argument changed."""
    args = dict(X=f.X, action=f.a, outcome=None, rewards=f.G)
    args.update(kw)
    X, action, outcome = args.pop("X"), args.pop("action"), args.pop("outcome")
    return (tree or PolicyTree(max_depth=1)).fit(X, action, outcome, **args)


def _full_propensity(f, scale=1.0):
    """Probabilities of every decision (columns B, A: matched by name) times ``scale``."""
    return pd.DataFrame({"B": np.full(N, 0.5 * scale), "A": np.full(N, 0.5 * scale)})


class _Outcome(BaseEstimator):
    """An outcome model predicting one value too few."""

    def fit(self, X, y):
        return self

    def predict(self, X):
        return np.zeros(len(X) - 1)


class _Guide(ClassifierMixin, BaseEstimator):
    """A guide whose posteriors are spoilt as ``mode`` says."""

    def __init__(self, mode="ok"):
        self.mode = mode

    def fit(self, X, y, sample_weight=None):
        self.classes_ = np.unique(y)
        if self.mode == "labels":
            self.classes_ = np.array(["no", "yes"])
        return self

    def predict_proba(self, X):
        n, k = len(X), len(self.classes_)
        return {"ok": np.full((n, k), 1 / k), "nan": np.full((n, k), np.nan),
                "sum": np.full((n, k), 3.0), "columns": np.full((n, k + 1), 1 / (k + 1)),
                "rows": np.full((n + 1, k), 1 / k), "labels": np.full((n, k), 1 / k)}[
            self.mode]


def _guided(f, guide, X=None, **params):
    """A guided profit tree fitted on the scoring fixture's 40 cases."""
    data = pd.read_csv(f.files.ok_csv)
    m = DecisionMatrix({"call": [20, -2], "skip": [0, 0]}, levels=["yes", "no"])
    tree = ProfitTreeClassifier(decision_matrix=m, criterion="profit", max_depth=2,
                                guide_model=guide, guide_cv=2, random_state=0, **params)
    return tree.fit(data[["age", "inc"]] if X is None else X, data["y"])


def _recommended(f, **kw):
    """fit_recommended of a profit tree on the scoring fixture's 40 cases (cv=2)."""
    data = pd.read_csv(f.files.ok_csv)
    m = DecisionMatrix({"call": [20, -2], "skip": [0, 0]}, levels=["yes", "no"])
    args = dict(cv=2, random_state=0)
    args.update(kw)
    return fit_recommended(ProfitTreeClassifier(decision_matrix=m, max_depth=2),
                           data[["age", "inc"]], data["y"], **args)


# (id, call(f), exception type, patterns every message must match)
CASES = [
    # ------------------------------------------------------------ policy_rewards
    ("rewards-x-none", lambda f: _rewards(f, X=None), TypeError,
     ["X must be a DataFrame or a 2-D array", "NoneType"]),
    ("rewards-x-dict", lambda f: _rewards(f, X={"x": f.X["x"].to_numpy()}), TypeError,
     ["X must be a DataFrame or a 2-D array", "dict"]),
    ("rewards-x-1d", lambda f: _rewards(f, X=f.X["x"].to_numpy()), ValueError,
     ["X must be 2-D", r"\(12,\)"]),
    ("rewards-x-empty", lambda f: _rewards(f, X=f.X.iloc[:0], action=f.a[:0], outcome=f.y[:0],
                                           propensity=f.p[:0]), ValueError,
     ["X has no cases"]),
    ("rewards-propensity-text", lambda f: _rewards(f, propensity=np.full(N, "a")), TypeError,
     ["propensity must be probabilities"]),
    ("rewards-propensity-booleans", lambda f: _rewards(f, propensity=np.ones(N, bool)),
     TypeError, ["propensity", "booleans", "treatment"]),
    ("rewards-propensity-zero", lambda f: _rewards(f, propensity=np.r_[f.p[:-1], 0.0]),
     ValueError, ["propensity", r"\(0, 1\]", "row 11", "logged 'B'", "0.0"]),
    ("rewards-propensity-missing",
     lambda f: _rewards(f, propensity=pd.array([*f.p[:-1], None], dtype="Float64")),
     ValueError, ["propensity", "row 11", "nan"]),
    ("rewards-propensity-above-one", lambda f: _rewards(f, propensity=np.r_[1.5, f.p[1:]]),
     ValueError, ["propensity", "row 0", "1.5"]),
    ("rewards-propensity-rows-not-summing-to-one",
     lambda f: _rewards(f, propensity=_full_propensity(f, 1.8)), ValueError,
     ["propensity", "sum to 1", "row 0 holds", r"\['A', 'B'\]"]),
    ("rewards-propensity-duplicated-column",
     lambda f: _rewards(f, propensity=pd.concat([_full_propensity(f), _full_propensity(f)["A"]],
                                                axis=1)), ValueError,
     ["propensity has 2 columns named 'A'"]),
    ("rewards-outcome-dates",
     lambda f: _rewards(f, outcome=pd.Series(pd.date_range("2024-01-01", periods=N))),
     TypeError, ["outcome must be numeric", "dates or durations"]),
    ("rewards-outcome-durations",
     lambda f: _rewards(f, outcome=pd.to_timedelta(np.arange(N), "D")), TypeError,
     ["outcome must be numeric", "dates or durations"]),
    ("rewards-outcome-missing",
     lambda f: _rewards(f, outcome=pd.array([*f.y[:-1], None], dtype="Float64")), ValueError,
     ["outcome", "finite", "row 11"]),
    ("rewards-response-missing",
     lambda f: _rewards(f, outcome=pd.array([1, 0] * 5 + [1, None], dtype="Int64"),
                        outcome_value=2.0, outcome_model=LogisticRegression()), ValueError,
     ["outcome has 1 missing value", "row 11"]),
    ("rewards-outcome-value-text",
     lambda f: _rewards(f, outcome=np.r_[[1, 0] * 6], outcome_value="10",
                        outcome_model=LogisticRegression()), TypeError,
     ["outcome_value must be the value of a response", "'10'"]),
    ("rewards-outcome-value-bool",
     lambda f: _rewards(f, outcome=np.r_[[1, 0] * 6], outcome_value=True,
                        outcome_model=LogisticRegression()), TypeError,
     ["outcome_value", "True"]),
    ("rewards-outcome-value-text-array",
     lambda f: _rewards(f, outcome=np.r_[[1, 0] * 6], outcome_value=np.full(N, "a"),
                        outcome_model=LogisticRegression()), TypeError,
     ["outcome_value must be numbers"]),
    ("rewards-decisions-set", lambda f: _rewards(f, decisions={"A", "B"}), TypeError,
     ["decisions must be a sequence", "tie-break order"]),
    ("rewards-decisions-none-name", lambda f: _rewards(f, decisions=["A", "B", None]),
     ValueError, ["decisions must be non-empty names", "None"]),
    ("rewards-seed-text", lambda f: _rewards(f, random_state="a"), TypeError,
     ["random_state must be", "'a'"]),
    ("rewards-seed-bool", lambda f: _rewards(f, random_state=True), TypeError,
     ["random_state must be", "True"]),
    ("rewards-outcome-model-class", lambda f: _rewards(f, outcome_model=LinearRegression),
     TypeError, ["outcome_model must be a scikit-learn estimator instance", "instantiate"]),
    ("rewards-propensity-model-regressor",
     lambda f: _rewards(f, propensity=None, propensity_model=LinearRegression()), TypeError,
     ["propensity_model", "predict_proba", "LinearRegression"]),
    ("rewards-outcome-model-cannot-predict",
     lambda f: _rewards(f, X=f.X.assign(x=np.r_[np.nan, f.X["x"][1:]]),
                        outcome_model=LinearRegression()), ValueError,
     ["outcome_model LinearRegression could not be", "X", "NaN"]),
    ("rewards-propensity-model-nan",
     lambda f: _rewards(f, propensity=None, propensity_model=_Guide("nan")), ValueError,
     ["propensity_model _Guide.predict_proba must give probabilities", "nan"]),
    ("rewards-propensity-model-rows-summing-to-3",
     lambda f: _rewards(f, propensity=None, propensity_model=_Guide("sum")), ValueError,
     ["propensity_model _Guide.predict_proba", "summing to 1"]),
    ("rewards-propensity-model-labels",
     lambda f: _rewards(f, propensity=None, propensity_model=_Guide("labels")), ValueError,
     ["propensity_model _Guide: classes_ is", "decision codes"]),
    ("rewards-propensity-model-extra-row",
     lambda f: _rewards(f, propensity=None, propensity_model=_Guide("rows")), ValueError,
     ["propensity_model _Guide.predict_proba gave shape", r"\(7, 2\)"]),
    ("rewards-outcome-model-short",
     lambda f: _rewards(f, outcome_model=_Outcome()), ValueError,
     ["outcome_model _Outcome.predict gave shape", r"expected \(6,\)"]),
    ("rewards-costs-text-scalar", lambda f: _value(f, costs={"A": "1"}), TypeError,
     [r"costs\['A'\] must be a number or one number per case", "'1'"]),
    ("rewards-costs-bool-scalar", lambda f: _value(f, costs={"A": True}), TypeError,
     [r"costs\['A'\]", "True"]),
    ("rewards-costs-duplicated-column",
     lambda f: _value(f, costs=pd.DataFrame(np.ones((N, 2)), columns=["A", "A"])), ValueError,
     ["costs has 2 columns named 'A'"]),
    ("rewards-costs-missing-names-cell",
     lambda f: _value(f, costs={"B": pd.array([1.0] * 11 + [None], dtype="Float64")}),
     ValueError, ["costs", "finite", "'B' in row 11"]),
    # ------------------------------------------------------------ policy_value
    ("value-policy-none", lambda f: _value(f, policy=None), TypeError,
     ["policy must be a decision name", "None"]),
    ("value-policy-number", lambda f: _value(f, policy=3), TypeError,
     ["policy must be a decision name", "3"]),
    ("value-methods-none", lambda f: _value(f, methods=None), TypeError,
     ["methods must be a sequence", "None"]),
    ("value-methods-empty", lambda f: _value(f, methods=()), ValueError,
     ["methods must name at least one"]),
    ("value-x-none-without-rewards", lambda f: _value(f, X=None), TypeError,
     ["X is None", "rewards="]),
    ("value-seed-text", lambda f: _value(f, random_state="x"), TypeError,
     ["random_state must be"]),
    ("value-rewards-other-cases",
     lambda f: _value(f, X=f.X.iloc[:6], action=f.a[:6], outcome=None, rewards=f.r),
     ValueError, ["rewards were computed for 12 cases", "these are 6"]),
    ("value-rewards-other-decision-order",
     lambda f: _value(f, outcome=None, rewards=f.r, decisions=["B", "A"]), ValueError,
     [r"rewards were computed for the decisions \['A', 'B'\]", r"\['B', 'A'\]"]),
    ("value-rewards-other-index",
     lambda f: _value(f, X=f.X.set_axis(f.shifted), action=pd.Series(f.a, f.shifted),
                      outcome=None, rewards=f.r), ValueError,
     ["rewards.rewards has an index", "index of X"]),
    ("value-without-x-costs-misaligned-with-rewards",
     lambda f: _value(f, X=None, outcome=None, rewards=f.r,
                      costs=pd.DataFrame({"A": np.ones(N)}, index=f.shifted)), ValueError,
     ["costs has an index", "index of X"]),
    ("value-rewards-other-actions",
     lambda f: _value(f, action=f.a[::-1], outcome=None, rewards=f.r), ValueError,
     ["rewards were computed with other logged decisions", "row 0"]),
    ("value-policy-model-fails",
     lambda f: _value(f, policy=LogisticRegression().fit(f.X.rename(columns={"x": "z"}), f.a)),
     ValueError, ["policy LogisticRegression could not decide on X"]),
    ("value-costs-overflow",
     lambda f: _value(f, costs={"A": 1e308, "B": -1e308}, baseline="B"), ValueError,
     ["values of the cases overflow", "rescale"]),
    ("campaign-noise-overflow",
     lambda f: make_logged_campaign(20, noise_sd=1e308, random_state=0), ValueError,
     [r"noise_sd=1e\+308 is too large"]),
    # ------------------------------------------------------------ PolicyTree
    ("tree-action-none", lambda f: _fit(f, action=None), TypeError,
     ["action is None", "every logged case"]),
    ("tree-empty", lambda f: _fit(f, X=f.X.iloc[:0], action=f.a[:0], rewards=f.G.iloc[:0]),
     ValueError, ["X has no cases"]),
    ("tree-propensity-with-rewards", lambda f: _fit(f, propensity=f.p), ValueError,
     ["propensity is used to compute the rewards", "ignored"]),
    ("tree-outcome-value-with-rewards", lambda f: _fit(f, outcome_value=2.0), ValueError,
     ["outcome_value", "ignored"]),
    ("tree-rewards-duplicated-column",
     lambda f: _fit(f, rewards=pd.concat([f.G, f.G["B"]], axis=1)), ValueError,
     ["rewards has 2 columns named 'B'"]),
    # a free-text column given as names: the repeated name cut to 80 characters
    ("tree-rewards-duplicated-long-column",
     lambda f: _fit(f, rewards=pd.concat([f.G, f.G["B"].rename(LONG), f.G["B"].rename(LONG)],
                                         axis=1)), ValueError,
     [r"rewards has 2 columns named 'x{76}\.\.\.; give"]),
    ("rewards-costs-duplicated-long-column",
     lambda f: _value(f, costs=pd.DataFrame(np.ones((N, 2)), columns=[LONG, LONG])), ValueError,
     [r"costs has 2 columns named 'x{76}\.\.\.; give"]),
    ("rewards-propensity-duplicated-long-column",
     lambda f: _rewards(f, propensity=pd.concat(
         [_full_propensity(f), _full_propensity(f)["A"].rename(LONG),
          _full_propensity(f)["A"].rename(LONG)], axis=1)), ValueError,
     [r"propensity has 2 columns named 'x{76}\.\.\.; give"]),
    ("tree-rewards-dict", lambda f: _fit(f, rewards={"A": f.G["A"], "B": f.G["B"]}),
     TypeError, ["rewards must be a DataFrame", "got dict"]),
    ("tree-rewards-missing-cell",
     lambda f: _fit(f, rewards=f.G.astype("Float64").assign(
         A=pd.array([0.0] * 4 + [None] + [0.0] * 7, dtype="Float64"))), ValueError,
     ["rewards must be finite", "'A' in row 4"]),
    ("tree-decisions-set", lambda f: _fit(f, tree=PolicyTree(decisions={"A", "B"})),
     TypeError, ["decisions must be a sequence", "tie-break"]),
    # labels equal as values but not as text were two decisions ('1' and '1.0')
    ("tree-action-int-and-float",
     lambda f: _fit(f, action=np.array([1, 1.0] * (N // 2), dtype=object)), ValueError,
     ["action: the labels 1 and 1.0 are equal as values but not as text",
      "2 different decisions", "write each label one way"]),
    ("tree-action-bool-and-int",
     lambda f: _fit(f, action=np.array([True, 1, False, 0] * (N // 4), dtype=object)),
     ValueError, ["action: the labels True and 1 are equal as values"]),
    ("tree-decisions-int-and-float",
     lambda f: _fit(f, tree=PolicyTree(decisions=[1, 1.0]), action=np.ones(N, dtype=int)),
     ValueError, ["decisions: the labels 1 and 1.0 are equal as values"]),
    ("tree-action-floats-of-int-decisions",
     lambda f: _fit(f, tree=PolicyTree(decisions=[0, 1]), action=np.r_[np.zeros(6), np.ones(6)]),
     ValueError, ["action and decisions: the labels 0 and 0.0 are equal as values"]),
    ("rewards-action-int-and-float",
     lambda f: _rewards(f, action=np.array([2, 2.0] * (N // 2), dtype=object)), ValueError,
     ["action: the labels 2 and 2.0"]),
    ("value-action-int-and-float",
     lambda f: _value(f, policy="logged", action=np.array([2, 2.0] * (N // 2), dtype=object)),
     ValueError, ["action: the labels 2 and 2.0"]),
    # a free-text column given as action: each label cut to 80 characters, not 10,000
    ("tree-action-long-text",
     lambda f: _fit(f, tree=PolicyTree(decisions=["A", "B"]),
                    action=np.array(["x" * 10_000] + ["A"] * (N - 1), dtype=object)),
     ValueError, [r"not decisions: \['x{76}\.\.\.\]; expected one of"]),
    ("value-policy-long-text",
     lambda f: _value(f, policy=np.array(["x" * 10_000] + ["A"] * (N - 1), dtype=object)),
     ValueError, [r"policy takes decisions \['x{76}\.\.\.\] that are not among"]),
    # one text in two Unicode forms: two decisions that print alike
    ("tree-action-unicode-forms",
     lambda f: _fit(f, action=np.array(["\u00e9", "e\u0301"] * (N // 2), dtype=object),
                    rewards=f.G.set_axis(["\u00e9", "e\u0301"], axis=1)),
     ValueError, ["action: the labels", "different Unicode forms", "print alike"]),
    ("tree-decisions-unicode-form-of-an-action",
     lambda f: _fit(f, tree=PolicyTree(decisions=["e\u0301", "B"]),
                    action=np.array(["\u00e9", "B"] * (N // 2), dtype=object), rewards=f.G.values),
     ValueError, ["action and decisions", "different Unicode forms"]),
    ("tree-rewards-column-unicode-form",
     lambda f: _fit(f, action=np.array(["\u00e9", "B"] * (N // 2), dtype=object),
                    rewards=f.G.set_axis(["e\u0301", "B"], axis=1)),
     ValueError, ["rewards and the decisions", "different Unicode forms"]),
    ("value-policy-unicode-form",
     lambda f: _value(f, policy=np.array(["e\u0301", "B"] * (N // 2), dtype=object),
                      action=np.array(["\u00e9", "B"] * (N // 2), dtype=object)),
     ValueError, ["policy and the decisions", "different Unicode forms"]),
    # keys 1 and "1" name one decision: one of the costs was silently dropped
    ("value-costs-keys-alike-as-text",
     lambda f: _value(f, policy=np.array([1, 2] * (N // 2)), action=np.array([1, 2] * (N // 2)),
                      costs={1: 1.0, "1": 5.0}),
     ValueError, ["costs names the decision '1' twice", "keys 1 and '1'"]),
    ("tree-capacity-keys-alike-as-text",
     lambda f: _fit(f, action=np.array([1, 2] * (N // 2)), rewards=f.G.set_axis([1, 2], axis=1)
                    ).decide(f.X, capacity={1: 1, "1": 3}),
     ValueError, ["capacity names the decision '1' twice"]),
    ("tree-decisions-none",
     lambda f: _fit(f, tree=PolicyTree(decisions=["A", "B", pd.NaT]),
                    rewards=np.c_[f.G.values, np.zeros(N)]),
     ValueError, ["decisions must be non-empty names", "NaT"]),
    # a leaf's sum of rewards overflowed: leaf values inf and NaN, decisions arbitrary
    ("tree-rewards-sum-overflows",
     lambda f: _fit(f, rewards=f.G.assign(B=[1e308, -1e308] * (N // 2))), ValueError,
     ["rewards are too large", "overflows", "rescale"]),
    # 'boundary' marks the leaves whose cases are split: a decision of that name was
    # indistinguishable from the mark
    ("plan-decision-named-boundary",
     lambda f: _fit(f, action=np.array(["boundary", "B"] * (N // 2), dtype=object),
                    rewards=f.G.set_axis(["boundary", "B"], axis=1)
                    ).capacity_plan(f.X, {"B": 3}),
     ValueError, ["capacity_plan", "decision named 'boundary'", "rename"]),
    ("tree-budget-negative-costs",
     lambda f: f.tree.decide(f.X, budget={"B": 3.0}, costs={"B": -1.0}), ValueError,
     ["costs are the spend of the budget", "non-negative", "'B' in row 0"]),
    # a fitted policy tree holds a profit tree but is not one: the exports and
    # score_file name the tree to pass (they said "has no tree_ (call fit first)")
    ("tree-to-sql-of-the-policy", lambda f: to_sql(f.tree), TypeError,
     ["estimator must be a fitted ProfitTreeClassifier", "a fitted PolicyTree",
      r"pass its profit_tree_"]),
    ("tree-leaf-table-of-the-policy", lambda f: leaf_table(f.tree), TypeError,
     ["a fitted PolicyTree", r"pass its profit_tree_"]),
    ("tree-score-file-of-the-policy",
     lambda f: score_file(f.tree, f.files.ok_csv, str(f.files.folder / "o.csv")), TypeError,
     ["model must be a fitted ProfitTreeClassifier", "a fitted PolicyTree",
      r"pass its profit_tree_"]),

    # ------------------------------------------------------------ uplift charts
    ("uplift-empty", lambda f: uplift_curve([], [], []), ValueError, ["no cases"]),
    ("uplift-score-dates",
     lambda f: uplift_curve(pd.Series(pd.date_range("2024-01-01", periods=N)), f.t, f.y),
     TypeError, ["score must be numeric", "dates"]),
    ("uplift-outcome-dates",
     lambda f: uplift_curve(f.y, f.t, pd.Series(pd.date_range("2024-01-01", periods=N))),
     TypeError, ["outcome must be numeric", "dates"]),
    ("uplift-outcome-overflow", lambda f: uplift_curve(f.y, f.t, np.full(N, 1e308)),
     ValueError, ["outcome", "overflow", "rescale"]),
    ("uplift-propensity-weight-overflow",
     lambda f: uplift_curve(f.y, f.t, f.y, propensity=np.full(N, 1e-320)), ValueError,
     ["propensity of row 1", "too close to 0 or 1", "weight overflows"]),
    ("uplift-display-foreign-frame", lambda f: UpliftCurveDisplay(pd.DataFrame({"qini": [0]})),
     TypeError, ["curve must be a DataFrame from uplift_curve", r"columns \['qini'\]"]),
    ("uplift-tree-treatment-misaligned",
     lambda f: _from_tree(f, treatment=pd.Series(f.t, f.shifted)), ValueError,
     ["treatment has an index", "index of X"]),
    ("uplift-tree-x-reindexed",
     lambda f: _from_tree(f, X=f.X.set_axis(f.shifted), treatment=pd.Series(f.t)), ValueError,
     ["treatment has an index", "index of X"]),
    ("uplift-axes-text", lambda f: UpliftCurveDisplay.from_predictions(f.y, f.t, f.y, ax="left"),
     TypeError, ["ax must be a matplotlib Axes or None", "str"]),
    ("profit-chart-axes-array",
     lambda f: ProfitCurveDisplay.from_predictions(
         np.where(f.t, "yes", "no"), f.y / N, f.files.tree.decision_matrix, event="yes",
         ax=np.zeros(2)), TypeError, ["ax must be a matplotlib Axes or None", "ndarray"]),
    ("uplift-tree-same-decisions", lambda f: _from_tree(f, control="B"), ValueError,
     ["treated and control are the same decision 'B'"]),

    # ------------------------------------------------------------ scoring files
    ("score-gzip-named-csv", lambda f: score_file(f.files.tree, f.files.gz_named_csv),
     ValueError, ["gz_named.csv' could not be read", "it is a gzip-compressed file",
                  r"name it \.csv\.gz"]),
    ("score-parquet-named-csv", lambda f: score_file(f.files.tree, f.files.parquet_named_csv),
     ValueError, ["could not be read", "it is a Parquet file"]),
    ("score-csv-named-parquet", lambda f: score_file(f.files.tree, f.files.csv_named_parquet),
     ValueError, ["could not be read", "looks like a text file", r"name it \.csv"]),
    ("score-parquet-duplicated-column", lambda f: score_file(f.files.tree, f.files.dup_parquet),
     ValueError, ["dup.parquet", r"column\(s\) \['age'\] more than once"]),
    ("score-excel-duplicated-column", lambda f: score_file(f.files.tree, f.files.dup_xlsx),
     ValueError, ["dup.xlsx", r"header names the column\(s\) \['age'\] more than once"]),
    ("score-target-list", lambda f: score_file(f.files.tree, f.files.ok_csv, target=["y"]),
     TypeError, ["target must be the name of a column", r"\['y'\]"]),
    ("score-model-sklearn", lambda f: score_file(LogisticRegression(), f.files.ok_csv),
     TypeError, ["model must be a fitted ProfitTreeClassifier or ProfitTreeRegressor",
                 "LogisticRegression"]),
    ("score-parquet-output-type-change",
     lambda f: score_file(f.files.tree, f.files.mixed_id_csv, f.files.folder / "mixed.parquet",
                          keep=["id"], chunk_size=20), ValueError,
     ["chunk 2 \\(from data row 21\\)", "column 'id' was written as int64 from the first chunk",
      "'c20'", "CSV output"]),
    ("score-regression-target-text",
     lambda f: score_file(f.files.reg, f.files.ok_csv, target="job"), ValueError,
     ["ok.csv", "target column 'job' must be numeric", "data row 1 holds 'a'"]),

    # ------------------------------------------------------------ progress bars
    ("progress-study-verbose-bool",
     lambda f: PruningStudy(f.files.tree, verbose=True).fit(), ValueError,
     ["verbose must be an integer >= 0", "True"]),
    ("progress-study-verbose-text",
     lambda f: PruningStudy(f.files.tree, verbose="2").fit(), ValueError,
     ["verbose must be an integer >= 0", "'2'"]),
    # ------------------------------------------------------------ guided trees
    ("guide-class", lambda f: _guided(f, LogisticRegression), TypeError,
     ["guide_model must be a classifier instance", "LogisticRegression()"]),
    ("guide-nan-posteriors", lambda f: _guided(f, _Guide("nan")), ValueError,
     ["guide_model _Guide.predict_proba must give probabilities", "nan"]),
    ("guide-rows-not-summing-to-one", lambda f: _guided(f, _Guide("sum")), ValueError,
     ["guide_model _Guide.predict_proba", "summing to 1", r"\[3.0, 3.0\]"]),
    ("guide-extra-column", lambda f: _guided(f, _Guide("columns")), ValueError,
     ["guide_model _Guide.predict_proba gave shape", r"expected \(20, 2\)"]),
    ("guide-extra-row", lambda f: _guided(f, _Guide("rows")), ValueError,
     ["guide_model _Guide.predict_proba gave shape", r"\(21, 2\)"]),
    ("guide-other-labels", lambda f: _guided(f, _Guide("labels")), ValueError,
     ["guide_model _Guide: classes_ is", "'no', 'yes'", "level codes"]),
    ("guide-cannot-read-x",
     lambda f: _guided(f, LogisticRegression(), X=pd.read_csv(f.files.ok_csv)[["age", "job"]]),
     ValueError, ["guide_model LogisticRegression could not be fitted on X", "'a'"]),
    # ------------------------------------------------------------ recommended candidates
    ("recommend-estimator-sklearn",
     lambda f: recommended_candidates(LogisticRegression()), TypeError,
     ["estimator must be a ProfitTreeClassifier or ProfitTreeRegressor", "LogisticRegression"]),
    ("recommend-estimator-class", lambda f: recommended_candidates(ProfitTreeClassifier),
     TypeError, ["estimator must be", "the class ProfitTreeClassifier"]),
    ("recommend-rules-text",
     lambda f: recommended_candidates(ProfitTreeClassifier(), decision_rules="case"),
     TypeError, ["decision_rules must be a list", r"write \['case'\]"]),
    ("recommend-rules-set",
     lambda f: recommended_candidates(ProfitTreeClassifier(), decision_rules={"leaf", "case"}),
     TypeError, ["decision_rules must be a list", "order"]),
    ("recommend-guide-text",
     lambda f: recommended_candidates(ProfitTreeClassifier(), guide_model="boosting"),
     TypeError, ["guide_model must be a classifier instance", "'boosting'"]),
    ("recommend-fit-guide-class", lambda f: _recommended(f, guide_model=LogisticRegression),
     TypeError, ["guide_model must be a classifier instance", "instantiate"]),
    ("recommend-smoothing-tuple",
     lambda f: _recommended(f, candidates=[{"posterior_smoothing": ("oto", 1)}]), ValueError,
     [r"candidates\[0\]\['posterior_smoothing'\]", r"\('auto', k\)", "'oto'"]),
    ("recommend-smoothing-text-multiple",
     lambda f: _recommended(f, candidates=[{"posterior_smoothing": ("auto", "2")}]),
     ValueError, [r"\('auto', k\)", "'2'"]),
    ("recommend-tiny-validation-fraction",
     lambda f: _recommended(f, cv=None, validation_fraction=0.01), ValueError,
     ["validation_fraction=0.01 cannot hold out", "40 training rows"]),
    # settings for validation rows that no one uses were silently ignored
    ("recommend-validation-fraction-with-cv",
     lambda f: _recommended(f, validation_fraction=0.5), ValueError,
     ["validation_fraction=0.5 holds out training rows only with cv=None",
      "with cv=2 it would be ignored"]),
    ("recommend-validation-fraction-with-valid-rows",
     lambda f: _recommended(f, cv=None, validation_fraction=0.5,
                            X_valid=pd.DataFrame({"age": [30], "inc": [0.0]}),
                            y_valid=["yes"]),
     ValueError, ["validation_fraction=0.5", "with X_valid it would be ignored"]),
    ("recommend-costs-valid-without-valid-rows",
     lambda f: _recommended(f, costs_valid=np.ones(N)), ValueError,
     ["costs_valid is given without X_valid and y_valid"]),
    ("recommend-weights-valid-without-valid-rows",
     lambda f: _recommended(f, sample_weight_valid=np.ones(N)), ValueError,
     ["sample_weight_valid is given without X_valid"]),
    ("recommend-empty", lambda f: fit_recommended(
        ProfitTreeClassifier(decision_matrix=f.files.tree.decision_matrix),
        pd.DataFrame({"age": []}), np.array([], dtype=object)), ValueError,
     ["X has no rows"]),
    ("recommend-return-results-text", lambda f: _recommended(f, return_results="yes"),
     TypeError, ["return_results must be True or False"]),
]

test_bad_input, test_case_ids_are_unique = catalogue_tests(CASES)


# ------------------------------------------------------------------ accepted inputs
def test_doubly_robust_rewards_of_a_tiny_campaign_by_hand():
    """Each reward is mu_d + 1{a = d} (y - mu_d) / e with mu_d the mean outcome of the
    cases that got d in the other fold (a constant outcome model), and the policy
    value is their mean with the standard error of the per-case terms."""
    X = np.arange(8.0).reshape(-1, 1)
    a = np.array(["A", "B"] * 4)
    y = np.array([1.0, 2, 3, 4, 5, 6, 7, 8])
    p = np.array([0.5, 0.25, 0.5, 0.25, 0.8, 0.5, 0.8, 0.5])
    r = policy_rewards(X, a, y, propensity=p, outcome_model=DummyRegressor(), cv=2,
                       random_state=0, clip=0)
    G = np.zeros((8, 2))
    for i in range(8):
        for d, name in enumerate("AB"):
            mu = y[(r.fold != r.fold[i]) & (a == name)].mean()
            G[i, d] = mu + (a[i] == name) * (y[i] - mu) / p[i]
    np.testing.assert_allclose(r.rewards.to_numpy(), G)
    np.testing.assert_allclose(r.gamma("ipw"), (a[:, None] == ["A", "B"]) * (y / p)[:, None])
    table = policy_value("A", X, a, y, rewards=r, methods=("dr",))
    assert table.loc["dr", "value"] == pytest.approx(G[:, 0].mean())
    assert table.loc["dr", "std_error"] == pytest.approx(G[:, 0].std(ddof=1) / np.sqrt(8))


def test_labels_alike_as_text_or_unlike_as_values_are_kept(f):
    """Only labels equal as values but not as text are refused: 1 and "1" stay one
    decision (labels are matched as text), ints and text that differ, or floats alone,
    are decisions as before; so is allocate's single decision without a limit."""
    from dtdecide.decision import allocate

    same = _fit(f, action=np.array([1, "1", 2, "2"] * (N // 4), dtype=object),
                rewards=f.G.set_axis(["1", "2"], axis=1))
    assert same.decisions_ == ("1", "2")
    mixed = _fit(f, action=np.array([1, "b"] * (N // 2), dtype=object),
                 rewards=f.G.set_axis(["1", "b"], axis=1))
    assert mixed.decisions_ == ("1", "b")
    floats = _fit(f, action=np.r_[np.zeros(6), np.ones(6)],
                  rewards=f.G.set_axis(["0.0", "1.0"], axis=1))
    assert floats.decisions_ == ("0.0", "1.0")
    assert DecisionMatrix([[1, 0], [0, 1]], levels=["y", "n"], decisions=[1, "1.0"]).decisions \
        == ("1", "1.0")
    one = allocate(np.array([[2.0], [-1.0]]))
    assert one.decision.tolist() == [0, 0] and one.total == 1.0


def test_every_decision_propensities_are_matched_by_name(f):
    """A frame of every decision's probabilities in another column order gives the
    rewards of the logged decision's probability."""
    p = pd.DataFrame({"B": np.linspace(0.2, 0.8, N)})
    p["A"] = 1 - p["B"]
    logged = np.where(f.a == "A", p["A"], p["B"])
    by_name = _rewards(f, propensity=p)
    by_logged = _rewards(f, propensity=logged)
    np.testing.assert_allclose(by_name.rewards, by_logged.rewards)


def test_a_gz_output_is_compressed(f):
    """score_file to a .csv.gz path writes gzip (it wrote plain text under that name)."""
    out = f.files.folder / "scored.csv.gz"
    summary = score_file(f.files.tree, f.files.ok_parquet, out, target="y")
    back = pd.read_csv(out)  # pandas decompresses by the suffix
    expected = f.files.tree.decide(pd.read_csv(f.files.ok_csv)[["age", "inc"]])
    assert back["D_target"].tolist() == expected.cases["D_target"].tolist()
    assert summary["n_cases"] == 40


def test_no_standard_error_draws_no_bar(monkeypatch):
    """Under pythonw (sys.stderr None) a forced bar and the command line's status log
    are silent; tqdm raised AttributeError on None.write."""
    import sys

    import dtdecide as dt

    monkeypatch.setattr(sys, "stderr", None)
    with dt.config_context(verbose=1, progress=True):
        with progress_bar(total=2, desc="work") as bar:
            bar.update(2)
        assert bar.disable
        StatusLog()("a message")


def test_a_guide_that_sees_every_case_alike_grows_no_split(f):
    """Constant guide posteriors give every case the same expected profit (no cost
    rows): no split separates cases the guide sees alike, so the tree is one leaf."""
    assert _guided(f, _Guide("ok")).get_n_leaves() == 1
    assert _guided(f, LogisticRegression()).get_n_leaves() > 1


@pytest.mark.parametrize("scale", [1e300, 1e-300])
def test_policy_value_of_huge_and_tiny_outcomes_scales(f, scale):
    """Outcomes near 1e300 or 1e-300 give the value, standard error and interval of the
    plain outcomes times the scale (the squares of the standard deviation overflowed to
    an infinite interval, or underflowed to a zero standard error)."""
    plain = _value(f, baseline="B")
    scaled = _value(f, outcome=f.y * scale, baseline="B")
    for column in ("value", "std_error", "ci_low", "ci_high", "difference",
                   "difference_std_error"):
        np.testing.assert_allclose(scaled[column], plain[column] * scale, rtol=1e-9)


def test_a_kept_column_empty_in_the_first_chunk_is_written_as_text(f):
    """A sparse kept column (empty in the first chunk, text later) is read as floats in
    the first chunk; the Parquet output refused the later text. It is now text, with
    the values of the CSV output."""
    out = f.files.folder / "sparse.parquet"
    score_file(f.files.tree, f.files.mixed_id_csv, out, keep=["note"], chunk_size=20)
    back = pd.read_parquet(out)
    assert back["note"].isna().tolist() == [True] * 20 + [False] * 20
    assert back["note"].iloc[20:].eq("call back").all()


def test_cli_guide_on_a_rare_level_names_the_option(tmp_path, capsys):
    """dtdecide fit --guide on a level of 3 rows named guide_cv, which the command line
    has no option for; it now names --guide and its 5 folds."""
    from dtdecide.cli import main

    data = pd.DataFrame({"age": np.arange(40), "y": ["yes"] * 3 + ["no"] * 37})
    data.to_csv(tmp_path / "rare.csv", index=False)
    pd.DataFrame({"level": ["yes", "no"], "call": [20, -2], "skip": [0, 0]}).to_csv(
        tmp_path / "decisions.csv", index=False)
    rc = main(["fit", str(tmp_path / "rare.csv"), "--target", "y", "--decisions",
               str(tmp_path / "decisions.csv"), "--criterion", "profit", "--guide",
               "boosting", "-o", str(tmp_path / "m.dtdecide"), "--quiet"])
    err = capsys.readouterr().err
    assert rc == 2
    assert "--guide cross-fits the guide over 5 folds" in err
    assert "guide_cv" not in err


def test_text_codes_of_a_csv_keep_their_leading_zeros(tmp_path):
    """A tree fitted on text codes ("01", "02") scored from a CSV file: pandas read the
    codes as the numbers 1, 2, every row was an unseen category (a warning) and the
    file's profit was 0 instead of the tree's; the model's text categories are now read
    as text."""
    rng = np.random.default_rng(0)
    code = rng.choice(["01", "02", "03"], 120)
    X = pd.DataFrame({"code": code, "x": rng.normal(size=120)})
    y = np.where(code == "02", "yes", "no")
    m = DecisionMatrix({"call": [20, -2], "skip": [0, 0]}, levels=["yes", "no"])
    tree = ProfitTreeClassifier(decision_matrix=m, max_depth=2).fit(X, y)
    X.assign(y=y).to_csv(tmp_path / "codes.csv", index=False)
    summary = score_file(tree, tmp_path / "codes.csv", target="y", chunk_size=50)
    expected = tree.decide(X, y).summary
    assert summary["total_profit"] == pytest.approx(expected["total_profit"])
    assert expected["total_profit"] > 0


def test_bootstrap_in_blocks_draws_the_same_resamples(f, monkeypatch):
    """The bootstrap resamples are drawn a few at a time (bounded memory for many
    resamples of many cases) and give the interval of one draw of them all."""
    import dtdecide.policy._value as value

    whole = _value(f, n_bootstrap=50, baseline="B")
    monkeypatch.setattr(value, "_BOOT_BLOCK", 3 * N)  # three resamples a block
    blocks = _value(f, n_bootstrap=50, baseline="B")
    pd.testing.assert_frame_equal(blocks, whole)


def test_numeric_classes_match_a_float_target_column(tmp_path):
    """A tree of classes 0/1 scored from a Parquet file whose target is stored as floats
    (1.0, 0.0) or booleans: the classes were compared as text ("1.0" vs "1") and every
    row counted as misclassified (rate 1.0 instead of the tree's 0.0)."""
    X = pd.DataFrame({"age": np.arange(20.0, 70.0)})
    y = (X["age"] > 45).astype(int).to_numpy()
    tree = ProfitTreeClassifier(max_depth=2).fit(X, y)
    expected = float(np.mean(tree.predict(X) != y))
    for stored in (y.astype(float), y == 1):
        X.assign(y=stored).to_parquet(tmp_path / "cases.parquet")
        summary = score_file(tree, tmp_path / "cases.parquet", target="y")
        assert summary["misclassification_rate"] == pytest.approx(expected)
    X.assign(y=np.where(y == 1, "1", "one")).to_csv(tmp_path / "text.csv", index=False)
    with pytest.raises(ValueError, match="target column 'y' must hold the model's classes"):
        score_file(tree, tmp_path / "text.csv", target="y")


def test_the_policy_tree_s_profit_tree_exports_and_scores(f, tmp_path):
    # what the message above asks for works: the leaf table's decisions are the
    # policy's, and scoring a file gives each case its leaf's decision
    tree = f.tree.profit_tree_
    assert leaf_table(tree)["decision"].tolist() == ["A", "B"]
    X = pd.DataFrame({"x": [0.0, 11.0]})
    X.to_csv(tmp_path / "in.csv", index=False)
    score_file(tree, str(tmp_path / "in.csv"), str(tmp_path / "out.csv"))
    scored = pd.read_csv(tmp_path / "out.csv")
    assert scored.filter(like="D_").iloc[:, 0].tolist() == f.tree.predict(X).tolist() == [
        "A", "B"]


def test_labels_of_nullable_and_other_dtypes_are_kept(f):
    """Valid labels of every kind a frame holds are decisions as before the label rule:
    pandas nullable columns without a missing value (Int64, boolean, Float64, string),
    categories of ints (an unused category is no decision), tuples, and one text in one
    Unicode form, repeated; a bool target matches bool levels. allocate takes a frame's
    columns as its decisions, in the order of ``decisions``."""
    from dtdecide import decide
    from dtdecide.decision import allocate

    def fit(action, columns, **kw):
        return _fit(f, action=action, rewards=f.G.set_axis(columns, axis=1), **kw).decisions_

    assert fit(pd.array([0, 1] * (N // 2), dtype="Int64"), [0, 1]) == ("0", "1")
    assert fit(pd.array([False, True] * (N // 2), dtype="boolean"), ["False", "True"]) \
        == ("False", "True")
    assert fit(pd.array([0.5, 1.5] * (N // 2), dtype="Float64"), [0.5, 1.5]) == ("0.5", "1.5")
    assert fit(pd.array(["A", "B"] * (N // 2), dtype="string[python]"), ["A", "B"]) \
        == ("A", "B")
    assert fit(pd.Series(pd.Categorical([0, 1] * (N // 2), categories=[0, 1, 2])), [0, 1]) \
        == ("0", "1")
    pairs = pd.Series([("a", 1), ("b", 2)] * (N // 2)).to_numpy()
    assert fit(pairs, ["('a', 1)", "('b', 2)"]) == ("('a', 1)", "('b', 2)")
    assert fit(np.array(["\u00e9t\u00e9", "B"] * (N // 2), dtype=object),
               ["\u00e9t\u00e9", "B"]) == ("B", "\u00e9t\u00e9")  # sorted
    m = DecisionMatrix({"call": [10, -1], "skip": [0, 0]}, levels=[True, False])
    y = np.array([True, False, False, True])
    assert decide(np.tile([[0.3, 0.7]], (4, 1)), m, y=y).summary["total_profit"] == 18.0
    V = np.array([[0.0, 4.0], [0.0, 3.0], [0.0, 5.0]])
    by_position = allocate(V, {"mail": 1}, decisions=["skip", "mail"])
    by_name = allocate(pd.DataFrame(V[:, ::-1], columns=["mail", "skip"]), {"mail": 1},
                       decisions=["skip", "mail"])
    named = allocate(pd.DataFrame(V, columns=["skip", "mail"]), {"mail": 1})
    assert by_position.decision.tolist() == by_name.decision.tolist() \
        == named.decision.tolist() == [0, 0, 1]


def test_uplift_chart_takes_decision_labels_as_text(f):
    """treated=2 and control=1 name the decisions "2" and "1" of a tree fitted on int
    actions, as every decision label is matched (they were refused as not decisions)."""
    tree = _fit(f, action=np.array([1, 2] * (N // 2)), rewards=f.G.set_axis([1, 2], axis=1))
    by_number = UpliftCurveDisplay.from_estimator(tree, f.X, f.t, f.y, treated=2, control=1)
    by_text = UpliftCurveDisplay.from_estimator(tree, f.X, f.t, f.y, treated="2", control="1")
    np.testing.assert_array_equal(by_number.curve["qini"], by_text.curve["qini"])


def test_score_file_reads_a_target_of_text_levels_as_text(tmp_path):
    """A model whose levels are the texts "1" and "0" (or "True" and "False") scores a
    file whose target column pandas reads as numbers (or booleans): the file holds
    text, so the column is compared as text. It was refused as "not levels", with
    advice to convert y that score_file gives no way to follow."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"x": rng.normal(size=60)})
    bought = X["x"] + rng.normal(size=60) > 0
    for y_text, y_file in ((bought.astype(int).astype(str), bought.astype(int)),
                           (bought.astype(str), bought)):
        levels = sorted(set(y_text))
        m = DecisionMatrix({"call": [10, -1], "skip": [0, 0]}, levels=levels[::-1])
        tree = ProfitTreeClassifier(decision_matrix=m, max_depth=2).fit(X, y_text)
        X.assign(y=y_file).to_csv(tmp_path / "d.csv", index=False)
        summary = score_file(tree, tmp_path / "d.csv", tmp_path / "o.csv", target="y")
        assert summary["total_profit"] == tree.decide(X, y=y_text).summary["total_profit"]
