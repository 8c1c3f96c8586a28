"""A catalogue of bad inputs to the public API.

Every case asserts the exception type and that the message names the offending
parameter and says what was expected (each pattern below must be found in the message).
"""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from bad_input_catalogue import catalogue_tests, check_message
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression

import dtdecide as dt
from dtdecide import DecisionMatrix

LEVELS = ["yes", "no"]


@pytest.fixture(scope="module")
def f():
    """Small valid objects; each case spoils exactly one thing."""
    X = pd.DataFrame({"x": [1.0, 2, 3, 4, 5, 6, 7, 8]})
    y = np.array(["no", "no", "no", "no", "yes", "yes", "no", "yes"])
    m = DecisionMatrix({"call": [10, -1], "skip": [0, 0]}, levels=LEVELS)
    rev = DecisionMatrix({"call": [10, 0], "skip": [0, 0]}, levels=LEVELS, kind="revenue",
                         costs={"call": "c"})
    knots = DecisionMatrix({"invest": [-5, 5], "wait": [0, 0]}, knots=[0, 10])
    case = DecisionMatrix.case_specific(levels=LEVELS, decisions=["a", "b"])
    tree = dt.ProfitTreeClassifier(decision_matrix=m, max_depth=2, min_samples_leaf=1,
                                   min_samples_split=2).fit(X, y)
    plain = dt.ProfitTreeClassifier(max_depth=2, min_samples_leaf=1,
                                    min_samples_split=2).fit(X, y)
    # a revenue tree whose cost variable "c" is a column of X at fit time
    Xc = X.assign(c=[1.0, 2, 1, 2, 1, 2, 1, 2])
    ctree = dt.ProfitTreeClassifier(decision_matrix=rev, max_depth=2, min_samples_leaf=1,
                                    min_samples_split=2).fit(Xc, y)
    return SimpleNamespace(
        X=X, y=y, m=m, rev=rev, knots=knots, case=case, tree=tree, plain=plain,
        Xc=Xc, ctree=ctree,
        post=np.tile([[0.3, 0.7]], (8, 1)), score=np.linspace(0.1, 0.9, 8),
        bad_y=np.append(y[:-1], "maybe"), b=[[1, -1], [-2, 2]],
    )


def _prior_tree(f):
    m = DecisionMatrix({"call": [10, -1], "skip": [0, 0]}, levels=LEVELS, priors=[0.3, 0.7])
    return dt.ProfitTreeClassifier(decision_matrix=m, max_depth=2, min_samples_leaf=1,
                                   min_samples_split=2).fit(f.X, f.y)


def _dm(**kw):
    args = {"values": [[1, 0], [0, 1]], "levels": LEVELS}
    args.update(kw)
    return lambda f: DecisionMatrix(**args)


# (id, call(f), exception type, patterns every message must match)
CASES = [
    # ------------------------------------------------------------ DecisionMatrix
    ("matrix-1d-values", _dm(values=[1, 2]), ValueError, ["values", "2-D"]),
    ("matrix-shape-vs-levels", _dm(levels=["a", "b", "c"]), ValueError,
     ["values", r"shape \(n_levels, n_decisions\) = \(3, 2\)"]),
    ("matrix-shape-vs-decisions", _dm(decisions=["only"]), ValueError,
     ["values", r"\(2, 1\)"]),
    ("matrix-levels-and-knots", _dm(knots=[0, 1]), ValueError,
     ["exactly one of levels and knots"]),
    ("matrix-no-rows", _dm(levels=None), ValueError, ["exactly one of levels and knots"]),
    ("matrix-duplicate-levels", _dm(levels=["a", "a"]), ValueError,
     ["levels", "unique", "'a'"]),
    ("matrix-missing-level", _dm(levels=["a", None]), ValueError,
     ["levels", "missing"]),
    ("matrix-unsorted-knots", _dm(levels=None, knots=[1, 0]), ValueError,
     ["knots", "sorted ascending"]),
    ("matrix-duplicate-knots", _dm(levels=None, values=[[1, 0], [0, 1], [2, 2]],
                                   knots=[0, 1, 1]), ValueError,
     ["knots", "distinct"]),
    ("matrix-one-knot", _dm(levels=None, values=[[1, 0]], knots=[0]), ValueError,
     ["knots", "at least two"]),
    ("matrix-nan-knot", _dm(levels=None, knots=[0, np.nan]), ValueError,
     ["knots", "finite"]),
    ("matrix-unknown-kind", _dm(kind="gain"), ValueError,
     ["kind", "'profit', 'loss', 'revenue'", "'gain'"]),
    ("matrix-nan-values", _dm(values=[[1, np.nan], [0, 1]]), ValueError,
     ["values", "finite"]),
    ("matrix-inf-values", _dm(values=[[1, np.inf], [0, 1]]), ValueError,
     ["values", "finite"]),
    ("matrix-text-values", _dm(values=[["a", 0], [0, 1]]), TypeError,
     ["values", "numbers"]),
    ("matrix-duplicate-decisions", _dm(decisions=["x", "x"]), ValueError,
     ["decisions", "unique", "'x'"]),
    # decisions are matched as text: 1 and 1.0 were two decisions ('1', '1.0')
    ("matrix-decisions-int-and-float", _dm(decisions=[1, 1.0]), ValueError,
     ["decisions: the labels 1 and 1.0 are equal as values but not as text",
      "write each label one way"]),
    ("matrix-decisions-bool-and-int", _dm(decisions=[True, 1]), ValueError,
     ["decisions: the labels True and 1"]),
    ("matrix-columns-int-and-float",
     _dm(values=pd.DataFrame([[1, 0], [0, 1]], index=LEVELS,
                             columns=pd.Index([1, 1.0], dtype=object))),
     ValueError, ["the columns of values: the labels 1 and 1.0"]),
    # a missing label was the decision 'nan' or 'NaT'; from_frame took 1 and 1.0 as two
    ("matrix-columns-nan",
     _dm(values=pd.DataFrame([[1, 0], [0, 1]], index=LEVELS, columns=["a", np.nan])),
     ValueError, ["the columns of values must be non-empty names", "nan", "label 2 of 2"]),
    ("matrix-decisions-nat", _dm(decisions=["a", pd.NaT]), ValueError,
     ["decisions must be non-empty names", "NaT"]),
    ("matrix-decisions-unicode-forms", _dm(decisions=["\u00e9", "e\u0301"]), ValueError,
     ["decisions: the labels '\\\\xe9' and 'e\\\\u0301'", "different Unicode forms",
      "print alike"]),
    ("matrix-levels-unicode-forms", _dm(levels=["\u00e9", "e\u0301"]), ValueError,
     ["levels", "different Unicode forms"]),
    ("matrix-costs-keys-alike-as-text",
     _dm(values={1: [1, 0], 2: [0, 1]}, kind="revenue", costs={1: "c", "1": "d"}),
     ValueError, ["costs names the decision '1' twice"]),
    ("from-frame-columns-int-and-float",
     lambda f: DecisionMatrix.from_frame(pd.DataFrame([[1, 0], [0, 1]], index=LEVELS,
                                                      columns=pd.Index([1, 1.0], dtype=object))),
     ValueError, ["the columns of df: the labels 1 and 1.0 are equal as values"]),
    ("from-frame-columns-none",
     lambda f: DecisionMatrix.from_frame(pd.DataFrame([[1, 0], [0, 1]], index=LEVELS,
                                                      columns=["a", None])),
     ValueError, ["the columns of df must be non-empty names"]),
    # a missing value of a nullable column was "not a number" ("an array of dtype object")
    ("matrix-values-nullable-missing",
     _dm(values=pd.DataFrame({"a": pd.array([1, None], dtype="Int64"), "b": [0, 1]},
                             index=LEVELS)),
     ValueError, ["values must be finite numbers", "NaN"]),
    ("matrix-dict-values-nullable-missing",
     _dm(values={"a": pd.array([1, None], dtype="Int64"), "b": [0, 1]}), ValueError,
     ["values must be finite numbers"]),
    ("from-frame-values-nullable-missing",
     lambda f: DecisionMatrix.from_frame(pd.DataFrame(
         {"a": pd.array([1, None], dtype="Int64"), "b": [0, 1]}, index=LEVELS)),
     ValueError, ["values must be finite numbers"]),
    ("matrix-empty", _dm(values=np.zeros((0, 2)), levels=[]), ValueError,
     ["levels", "empty"]),
    ("priors-negative", _dm(priors=[-0.1, 1.1]), ValueError,
     ["priors", "non-negative", r"-0\.1"]),
    ("priors-all-zero", _dm(priors=[0, 0]), ValueError,
     ["priors", "at least one positive"]),
    ("priors-nan", _dm(priors=[np.nan, 1]), ValueError, ["priors", "finite"]),
    ("priors-length", _dm(priors=[1, 1, 1]), ValueError,
     ["priors", r"one value per level \(2\)"]),
    ("priors-unknown-level", _dm(priors={"yes": 1, "maybe": 1}), ValueError,
     ["priors", "unknown levels", "'maybe'"]),
    ("priors-missing-level", _dm(priors={"yes": 1}), ValueError,
     ["priors", "no value for levels", "'no'"]),
    ("priors-with-knots", _dm(levels=None, knots=[0, 1], priors=[0.5, 0.5]), ValueError,
     ["priors", "levels"]),
    ("costs-with-profit-matrix", _dm(costs={"d1": 1}), ValueError,
     ["costs", "kind='revenue'", "kind='profit'"]),
    ("costs-with-loss-matrix", _dm(kind="loss", costs={"d1": "c"}), ValueError,
     ["costs", "kind='revenue'", "kind='loss'"]),
    ("costs-unknown-decision", _dm(kind="revenue", costs={"zz": 1}), ValueError,
     ["costs", "'zz'", "expected one of"]),
    ("costs-list-value", _dm(kind="revenue", costs={"d1": [1, 2]}), TypeError,
     [r"costs\['d1'\]", "number or the name of a cost column"]),
    ("costs-nan-constant", _dm(kind="revenue", costs={"d1": np.nan}), ValueError,
     [r"costs\['d1'\]", "finite"]),
    ("cost-matrix-shape",
     lambda f: DecisionMatrix.from_cost_matrix(np.ones((3, 3))), ValueError,
     ["cost_mat", r"\(n_samples, 4\)", r"\(3, 3\)"]),
    ("case-specific-values-shape",
     lambda f: DecisionMatrix.case_specific(levels=LEVELS, decisions=["a", "b"],
                                            values=np.ones((3, 3, 2))), ValueError,
     ["values", r"\(n_samples, 2, 2\)", r"\(3, 3, 2\)"]),
    ("from-frame-prior-column",
     lambda f: DecisionMatrix.from_frame(pd.DataFrame({"a": [1, 0]}, index=LEVELS),
                                         prior_column="zz"), ValueError,
     ["prior_column", "'zz'", "not a column"]),
    ("from-json-not-json", lambda f: DecisionMatrix.from_json("{not json"), ValueError,
     ["source", "JSON"]),
    ("from-json-unknown-key",
     lambda f: DecisionMatrix.from_json('{"kind": "profit", "levels": ["a", "b"], '
                                        '"values": [[1], [0]], "zz": 1}'), ValueError,
     ["source", "unknown keys", "zz"]),
    # ------------------------------------------------------------ decide / engine
    ("decide-not-a-matrix", lambda f: dt.decide(f.post, [[1, 0], [0, 1]]), TypeError,
     ["matrix", "DecisionMatrix", "list"]),
    ("decide-posterior-columns", lambda f: dt.decide(np.full((8, 3), 1 / 3), f.m),
     ValueError, ["posteriors_or_predictions", "n_levels=2", r"\(8, 3\)"]),
    ("decide-posterior-1d", lambda f: dt.decide(np.ones(8), f.m), ValueError,
     ["posteriors_or_predictions", r"\(n_samples, n_levels=2\)", r"\(8,\)"]),
    ("decide-posterior-nan",
     lambda f: dt.decide(np.r_[f.post[:-1], [[np.nan, 1.0]]], f.m), ValueError,
     ["posteriors_or_predictions", "NaN", "row 7"]),
    ("decide-posterior-negative", lambda f: dt.decide(-f.post, f.m), ValueError,
     ["posteriors_or_predictions", "non-negative"]),
    ("decide-posterior-sum", lambda f: dt.decide(3 * f.post, f.m), ValueError,
     ["posteriors_or_predictions", "sum to 1"]),
    ("decide-prediction-nan",
     lambda f: dt.decide(np.array([1.0, np.nan]), f.knots), ValueError,
     ["posteriors_or_predictions", "finite"]),
    ("decide-unknown-level", lambda f: dt.decide(f.post, f.m, y=f.bad_y), ValueError,
     ["y", "not levels", "'maybe'", r"expected one of \['yes', 'no'\]"]),
    ("decide-y-length", lambda f: dt.decide(f.post, f.m, y=f.y[:5]), ValueError,
     ["y", r"one value per case \(8\)", "got 5"]),
    ("decide-costs-missing", lambda f: dt.decide(f.post, f.rev, y=f.y), ValueError,
     ["costs", "missing the cost column 'c'"]),
    ("decide-cost-column-missing",
     lambda f: dt.decide(f.post, f.rev, y=f.y, costs={"other": np.ones(8)}), ValueError,
     ["costs", "missing the cost column 'c'"]),
    ("decide-cost-column-length",
     lambda f: dt.decide(f.post, f.rev, y=f.y, costs={"c": np.ones(5)}), ValueError,
     ["costs column 'c'", r"one value per case \(8\)", "got 5"]),
    ("decide-case-specific-shape",
     lambda f: dt.decide(f.post, f.case, y=f.y, costs=np.ones((8, 3, 2))), ValueError,
     ["costs", r"\(n_samples, 2, 2\)", r"\(8, 3, 2\)"]),
    ("decide-posterior-frame-columns",
     lambda f: dt.decide(pd.DataFrame(f.post, columns=["a", "b"]), f.m), ValueError,
     ["posteriors_or_predictions", "no column for level 'yes'", r"\['a', 'b'\]"]),
    ("decide-y-missing-value",
     lambda f: dt.decide(f.post, f.m, y=np.append(f.y[:-1], None)), ValueError,
     ["y", "not levels", "None"]),
    ("decide-y-misaligned-index",
     lambda f: dt.decide(pd.DataFrame(f.post, columns=LEVELS), f.m,
                         y=pd.Series(f.y, index=range(10, 18))), ValueError,
     ["y has an index", "posteriors_or_predictions", "align them first"]),
    ("decide-costs-misaligned-index",
     lambda f: dt.decide(pd.DataFrame(f.post, columns=LEVELS), f.rev,
                         costs=pd.DataFrame({"c": np.ones(8)}, index=range(10, 18))),
     ValueError, ["costs has an index", "align them first"]),
    ("decide-weight-misaligned-index",
     lambda f: dt.decide(pd.DataFrame(f.post, columns=LEVELS), f.m, y=f.y,
                         sample_weight=pd.Series(np.ones(8), index=range(10, 18))),
     ValueError, ["sample_weight has an index", "align them first"]),
    ("decide-cost-infinite",
     lambda f: dt.decide(f.post, f.rev, costs={"c": np.r_[np.ones(7), -np.inf]}),
     ValueError, ["costs column 'c'", "infinite"]),
    ("decide-weight-negative",
     lambda f: dt.decide(f.post, f.m, y=f.y, sample_weight=-np.ones(8)), ValueError,
     ["sample_weight", "non-negative"]),
    ("decide-weight-nan",
     lambda f: dt.decide(f.post, f.m, y=f.y, sample_weight=np.r_[np.ones(7), np.nan]),
     ValueError, ["sample_weight", "finite"]),
    ("decide-weight-length",
     lambda f: dt.decide(f.post, f.m, y=f.y, sample_weight=np.ones(3)), ValueError,
     ["sample_weight", r"one value per case \(8\)"]),
    ("decide-train-priors-negative",
     lambda f: dt.decide(f.post, f.m, train_priors=[-1, 2]), ValueError,
     ["train_priors", "non-negative"]),
    ("decide-train-priors-length",
     lambda f: dt.decide(f.post, f.m, train_priors=[1, 1, 1]), ValueError,
     ["train_priors", r"one value per level \(2\)"]),
    ("decide-threshold-text", lambda f: dt.decide(f.post, f.m, threshold="x"), ValueError,
     ["threshold", "finite number", "'x'"]),
    ("decide-threshold-nan", lambda f: dt.decide(f.post, f.m, threshold=np.nan), ValueError,
     ["threshold", "finite number", "nan"]),
    ("decide-target-name", lambda f: dt.decide(f.post, f.m, target_name=5), TypeError,
     ["target_name", "str", "5"]),
    ("adjust-priors-negative", lambda f: dt.adjust_posteriors(f.post, [-1, 2], [0.5, 0.5]),
     ValueError, ["priors", "non-negative"]),
    ("adjust-priors-all-zero", lambda f: dt.adjust_posteriors(f.post, [0, 0], [0.5, 0.5]),
     ValueError, ["priors", "at least one positive"]),
    ("adjust-priors-length",
     lambda f: dt.adjust_posteriors(f.post, [0.2, 0.3, 0.5], [0.5, 0.5]), ValueError,
     ["priors", r"one value per level \(2\)"]),
    ("scorer-not-a-matrix", lambda f: dt.make_profit_scorer("m"), TypeError,
     ["matrix", "DecisionMatrix", "str"]),
    # ------------------------------------------------------------ DecisionEstimator
    ("estimator-none", lambda f: dt.DecisionEstimator(None, f.m).fit(f.X, f.y), TypeError,
     ["estimator", "scikit-learn estimator", "None"]),
    ("estimator-matrix-type",
     lambda f: dt.DecisionEstimator(LogisticRegression(), "m").fit(f.X, f.y), TypeError,
     ["decision_matrix", "DecisionMatrix or None", "str"]),
    ("estimator-classes-vs-levels",
     lambda f: dt.DecisionEstimator(LogisticRegression(), _dm(levels=["a", "b"])(f))
     .fit(f.X, f.y), ValueError,
     ["estimator", "not levels of the decision matrix", r"\['no', 'yes'\]",
      r"expected levels \['a', 'b'\]"]),
    ("estimator-unfitted",
     lambda f: dt.DecisionEstimator(LogisticRegression(), f.m).decide(f.X), NotFittedError,
     ["DecisionEstimator", "not fitted"]),
    # ------------------------------------------------------------ tree fit
    ("tree-matrix-type",
     lambda f: dt.ProfitTreeClassifier(decision_matrix=[[1, 0], [0, 1]]).fit(f.X, f.y),
     ValueError, ["'decision_matrix' parameter", "resolve"]),
    ("tree-interval-matrix-for-classifier",
     lambda f: dt.ProfitTreeClassifier(decision_matrix=f.knots).fit(f.X, f.y), ValueError,
     ["decision_matrix", "knots", "ProfitTreeRegressor"]),
    ("tree-categorical-matrix-for-regressor",
     lambda f: dt.ProfitTreeRegressor(decision_matrix=f.m).fit(f.X, np.arange(8.0)),
     ValueError, ["decision_matrix", "levels", "ProfitTreeClassifier"]),
    ("tree-unknown-level",
     lambda f: dt.ProfitTreeClassifier(decision_matrix=f.m).fit(f.X, f.bad_y), ValueError,
     ["y", "not levels", "'maybe'"]),
    ("tree-y-length", lambda f: dt.ProfitTreeClassifier().fit(f.X, f.y[:5]), ValueError,
     ["X and y", "inconsistent", "8 and 5"]),
    ("tree-y-missing",
     lambda f: dt.ProfitTreeClassifier().fit(f.X, np.append(f.y[:-1], None)), ValueError,
     ["y", "missing values"]),
    ("regressor-y-nan",
     lambda f: dt.ProfitTreeRegressor().fit(f.X, np.r_[np.arange(7.0), np.nan]),
     ValueError, ["y", "NaN", "finite"]),
    ("regressor-y-text", lambda f: dt.ProfitTreeRegressor().fit(f.X, f.y), ValueError,
     ["y", "numeric"]),
    ("tree-X-infinite",
     lambda f: dt.ProfitTreeClassifier().fit(f.X.assign(x=np.inf), f.y), ValueError,
     ["X", "infinity", "'x'", "only NaN"]),
    ("tree-weight-negative",
     lambda f: dt.ProfitTreeClassifier().fit(f.X, f.y, sample_weight=-np.ones(8)),
     ValueError, ["sample_weight", "non-negative"]),
    ("tree-weight-nan",
     lambda f: dt.ProfitTreeClassifier().fit(f.X, f.y,
                                             sample_weight=np.r_[np.ones(7), np.nan]),
     ValueError, ["sample_weight", "finite"]),
    ("tree-weight-length",
     lambda f: dt.ProfitTreeClassifier().fit(f.X, f.y, sample_weight=np.ones(3)),
     ValueError, ["sample_weight", r"\(8,\)"]),
    # a pandas input indexed differently from X is refused (never paired by position)
    ("tree-weight-misaligned-index",
     lambda f: dt.ProfitTreeClassifier().fit(
         f.X, f.y, sample_weight=pd.Series(np.ones(8), index=range(10, 18))),
     ValueError, ["sample_weight has an index", "index of X", "align them first"]),
    ("tree-decide-weight-misaligned-index",
     lambda f: f.tree.decide(f.X, f.y,
                             sample_weight=pd.Series(np.ones(8), index=range(10, 18))),
     ValueError, ["sample_weight has an index", "index of X"]),
    ("study-y-valid-misaligned-index",
     lambda f: dt.PruningStudy(f.tree).fit(f.X, pd.Series(f.y, index=range(10, 18))),
     ValueError, ["y_valid has an index", "index of X_valid"]),
    ("study-weight-valid-misaligned-index",
     lambda f: dt.PruningStudy(f.tree).fit(
         f.X, f.y, sample_weight_valid=pd.Series(np.ones(8), index=range(10, 18))),
     ValueError, ["sample_weight_valid has an index", "index of X_valid"]),
    ("leaf-table-weight-misaligned-index",
     lambda f: dt.leaf_table(f.tree, f.X, f.y,
                             sample_weight=pd.Series(np.ones(8), index=range(10, 18))),
     ValueError, ["sample_weight has an index", "index of X"]),
    ("leaf-table-y-misaligned-index",
     lambda f: dt.leaf_table(f.tree, f.X, pd.Series(f.y, index=range(10, 18))),
     ValueError, ["y has an index", "index of X"]),
    ("balanced-sample-y-misaligned-index",
     lambda f: dt.balanced_sample(f.X, pd.Series(f.y, index=range(10, 18))),
     ValueError, ["y has an index", "index of X"]),
    ("tree-weight-all-zero",
     lambda f: dt.ProfitTreeClassifier().fit(f.X, f.y, sample_weight=np.zeros(8)),
     ValueError, ["sample_weight", "non-zero"]),
    ("tree-cost-column-missing",
     lambda f: dt.ProfitTreeClassifier(decision_matrix=f.rev).fit(f.X, f.y), ValueError,
     ["costs", r"\['c'\]", "costs="]),
    ("tree-case-specific-shape",
     lambda f: dt.ProfitTreeClassifier(decision_matrix=f.case)
     .fit(f.X, f.y, costs=np.ones((8, 3, 3))), ValueError,
     ["costs", r"\(n_samples, 2, 2\)", r"\(8, 3, 3\)"]),
    ("tree-ordinal-not-square",
     lambda f: dt.ProfitTreeClassifier(
         decision_matrix=_dm(values=[[1, 0, 2], [0, 1, 3]])(f), ordinal=True
     ).fit(f.X, f.y), ValueError,
     ["decision_matrix", "square", "ordinal", "2 levels and 3 decisions"]),
    ("tree-use-priors-without-priors",
     lambda f: dt.ProfitTreeClassifier(decision_matrix=f.m, use_priors=True).fit(f.X, f.y),
     ValueError, ["use_priors", "priors"]),
    ("regressor-ordinal",
     lambda f: dt.ProfitTreeRegressor(ordinal=True), TypeError, ["ordinal"]),
    # ------------------------------------------------------------ tree use
    ("tree-unfitted-predict", lambda f: dt.ProfitTreeClassifier().predict(f.X),
     NotFittedError, ["ProfitTreeClassifier", "not fitted", "fit"]),
    ("tree-unfitted-decide", lambda f: dt.ProfitTreeRegressor().decide(f.X),
     NotFittedError, ["ProfitTreeRegressor", "not fitted", "fit"]),
    ("tree-wrong-column-names", lambda f: f.tree.predict(pd.DataFrame({"z": [1.0]})),
     ValueError, ["feature names", "z", "x"]),
    ("tree-wrong-feature-count", lambda f: f.tree.predict(np.ones((2, 3))), ValueError,
     ["X has 3 features", "expecting 1"]),
    ("tree-numeric-column-gets-text",
     lambda f: f.tree.predict(pd.DataFrame({"x": ["a", "b"]})), TypeError,
     ["X column 'x'", "numeric at fit time"]),
    ("tree-decide-without-matrix", lambda f: f.plain.decide(f.X), ValueError,
     ["decide", "decision_matrix"]),
    ("tree-decide-unknown-level", lambda f: f.tree.decide(f.X, f.bad_y), ValueError,
     ["y", "not levels", "'maybe'"]),
    ("tree-decide-cost-column-missing", lambda f: f.ctree.decide(f.X, f.y), ValueError,
     ["costs", "actual costs", r"costs= or X columns \['c'\]"]),
    ("tree-extra-column", lambda f: f.tree.predict(f.X.assign(z=1.0)), ValueError,
     ["feature names", "unseen at fit time", "z"]),
    ("leaf-table-cost-column-missing", lambda f: dt.leaf_table(f.ctree, f.X, f.y), ValueError,
     ["costs", r"X columns \['c'\]"]),
    ("study-cost-column-missing", lambda f: dt.PruningStudy(f.ctree).fit(f.X, f.y),
     ValueError, ["costs", "missing the cost column 'c'"]),
    ("estimator-wrong-column-names",
     lambda f: dt.DecisionEstimator(LogisticRegression(), f.m).fit(f.X, f.y)
     .decide(pd.DataFrame({"q": [1.0]})), ValueError, ["feature names", "q", "x"]),
    ("sql-unknown-cost-column", lambda f: dt.to_sql(f.ctree, cost_columns={"zz": "c"}),
     ValueError, ["cost_columns", r"\['c'\]", r"unknown names \['zz'\]"]),
    ("prune-no-choice", lambda f: f.tree.prune(), ValueError,
     ["exactly one of ccp_alpha, n_leaves or subtree_index"]),
    ("prune-two-choices", lambda f: f.tree.prune(n_leaves=1, ccp_alpha=0.0), ValueError,
     ["exactly one of ccp_alpha, n_leaves or subtree_index", "n_leaves=1"]),
    ("prune-zero-leaves", lambda f: f.tree.prune(n_leaves=0), ValueError,
     ["n_leaves", "at least 1", "0"]),
    ("prune-index-range", lambda f: f.tree.prune(subtree_index=99), ValueError,
     ["subtree_index", r"in \[0, \d+\)", "99"]),
    ("pruning-path-measure", lambda f: f.tree.cost_complexity_pruning_path(measure="foo"),
     ValueError, ["measure", "'decision'", "'foo'"]),
    ("study-method", lambda f: dt.PruningStudy(f.tree, method="foo").fit(f.X, f.y),
     ValueError, ["method", "'assessment'", "'foo'"]),
    ("study-se-rule", lambda f: dt.PruningStudy(f.tree, se_rule=-1).fit(f.X, f.y),
     ValueError, ["se_rule", "non-negative", "-1"]),
    ("study-half-validation", lambda f: dt.PruningStudy(f.tree).fit(f.X), ValueError,
     ["X_valid and y_valid"]),
    ("study-unfitted-tree",
     lambda f: dt.PruningStudy(dt.ProfitTreeClassifier()).fit(f.X, f.y), ValueError,
     ["estimator", "fitted tree"]),
    ("study-unfitted", lambda f: dt.PruningStudy(f.tree).to_frame(), ValueError,
     ["PruningStudy", "not fitted", "fit"]),
    ("select-subtree-method", lambda f: dt.select_subtree(f.tree, method="foo"), ValueError,
     ["method", "'largest'", "'foo'"]),
    # ------------------------------------------------------------ assess
    ("curve-unknown-event",
     lambda f: dt.profit_curve(f.y, f.score, f.m, event="maybe"), ValueError,
     ["event", r"level of the matrix \['yes', 'no'\]", "'maybe'"]),
    ("curve-no-event", lambda f: dt.profit_curve(f.y, f.score, f.m), ValueError,
     ["y_score", "event="]),
    ("curve-n-bins", lambda f: dt.profit_curve(f.y, f.score, f.m, event="yes", n_bins=0),
     ValueError, ["n_bins", "positive integer", "0"]),
    ("curve-unknown-level",
     lambda f: dt.profit_curve(f.bad_y, f.score, f.m, event="yes"), ValueError,
     ["y", "not levels", "'maybe'"]),
    ("curve-y-length",
     lambda f: dt.profit_curve(f.y[:4], f.score, f.m, event="yes"), ValueError,
     ["y", r"one value per case \(8\)", "got 4"]),
    ("curve-score-nan",
     lambda f: dt.profit_curve(f.y, np.r_[f.score[:-1], np.nan], f.m, event="yes"),
     ValueError, ["posteriors_or_predictions", "NaN"]),
    ("curve-all-zero-weight",
     lambda f: dt.profit_curve(f.y, f.score, f.m, event="yes", sample_weight=np.zeros(8)),
     ValueError, ["no case with a positive frequency", "sample_weight"]),
    ("best-depth-statistic",
     lambda f: dt.best_depth(dt.profit_curve(f.y, f.score, f.m, event="yes"),
                             statistic="zz"), ValueError,
     ["statistic must be a column of curve", "'zz'", "cum_profit"]),
    ("best-depth-not-a-curve", lambda f: dt.best_depth("x"), ValueError,
     ["curve", "DataFrame from profit_curve", "str"]),
    ("curve-display-bad-table", lambda f: dt.ProfitCurveDisplay(pd.DataFrame({"a": [1]})),
     TypeError, ["curve", "depth column", r"\['a'\]"]),
    ("study-display-unfitted-study",
     lambda f: dt.PruningStudyDisplay.from_study(dt.PruningStudy(f.tree)), TypeError,
     ["study", "fitted PruningStudy", "unfitted"]),
    ("best-threshold-event",
     lambda f: dt.best_threshold(f.y, f.score, f.m, event="zzz"), ValueError,
     ["event", "level of the matrix", "'zzz'"]),
    ("binary-threshold-3x3",
     lambda f: dt.binary_threshold(DecisionMatrix(np.eye(3), levels=list("abc"))),
     ValueError, ["matrix", "2 levels and 2 decisions", r"\(3, 3\)"]),
    ("diagonal-form-3x3",
     lambda f: dt.diagonal_form(DecisionMatrix(np.eye(3), levels=list("abc"))),
     ValueError, ["matrix", "2 levels and 2 decisions"]),
    ("equivalent-priors-negative",
     lambda f: dt.equivalent_priors(DecisionMatrix(np.eye(3), levels=list("abc")),
                                    priors=[-1, 1, 1]), ValueError,
     ["priors", "non-negative"]),
    ("compare-no-models", lambda f: dt.compare_models({}, {}, f.m), ValueError,
     ["models", "empty"]),
    ("compare-data-shape",
     lambda f: dt.compare_models({"t": f.tree}, {"train": f.X}, f.m), ValueError,
     [r"data\['train'\]", r"\(X, y\)", "DataFrame"]),
    ("redecide-unfitted", lambda f: dt.redecide(dt.ProfitTreeClassifier(), f.m), TypeError,
     ["model", "fitted", "ProfitTreeClassifier"]),
    ("redecide-matrix-type", lambda f: dt.redecide(f.tree, "m"), TypeError,
     ["matrix", "DecisionMatrix or None", "str"]),
    ("balanced-length", lambda f: dt.balanced_sample(f.X, f.y[:3]), ValueError,
     ["X and y", "8 and 3"]),
    ("misclassification-length", lambda f: dt.misclassification_rates(f.y, f.y[:3]),
     ValueError, ["y_true and y_pred", "same length", "8 and 3"]),
    # ------------------------------------------------------------ models
    ("benefit-matrix-shape",
     lambda f: dt.benefit_curve([0, 1, 0], [0.1, 0.9, 0.5], [[1, 0, 0], [0, 1, 0]]),
     ValueError, ["benefit_matrix", "square", r"\(2, 3\)"]),
    ("benefit-matrix-off-diagonal",
     lambda f: dt.benefit_curve([0, 1, 0], [0.1, 0.9, 0.5], [[1, 0], [0, 1]]), ValueError,
     ["benefit_matrix", "negative benefit", "off-diagonal < 0"]),
    ("benefit-matrix-diagonal", lambda f: dt.benefit_eta([[1, -1], [-2, -3]]), ValueError,
     ["benefit_matrix", "diagonal >= 0", "-3"]),
    ("benefit-three-classes",
     lambda f: dt.benefit_curve([0, 1, 2], [0.1, 0.9, 0.5], f.b), ValueError,
     ["y_true", "exactly two classes", "pos_label"]),
    ("benefit-length", lambda f: dt.benefit_curve([0, 1, 0], [0.1, 0.9], f.b), ValueError,
     ["y_true and y_score", "same length", r"\(3,\) and \(2,\)"]),
    ("benefit-score-nan",
     lambda f: dt.benefit_metric([0, 1, 0], [0.1, np.nan, 0.5], f.b), ValueError,
     ["y_score", "finite"]),
    ("benefit-priors-negative",
     lambda f: dt.benefit_metric([0, 1, 0], [0.1, 0.9, 0.5], f.b, priors=[-1, 2]),
     ValueError, ["priors", "non-negative"]),
    ("benefit-priors-all-zero",
     lambda f: dt.benefit_metric([0, 1, 0], [0.1, 0.9, 0.5], f.b, priors=[0, 0]),
     ValueError, ["priors", "at least one positive"]),
    ("benefit-threshold-text",
     lambda f: dt.benefit_metric([0, 1, 0], [0.1, 0.9, 0.5], f.b, threshold="x"),
     TypeError, ["threshold", "real number", "'x'"]),
    ("benefit-threshold-nan",
     lambda f: dt.benefit_metric([0, 1, 0], [0.1, 0.9, 0.5], f.b, threshold=np.nan),
     ValueError, ["threshold", "not NaN"]),
    ("benefit-absent-pos-label",
     lambda f: dt.benefit_metric([0, 1, 0], [0.1, 0.9, 0.5], f.b, pos_label=7),
     ValueError, ["y_true", "both classes", "pos_label"]),
    ("benefit-prior-of-absent-class",
     lambda f: dt.benefit_curve([0, 0, 0], [0.1, 0.2, 0.3], f.b, priors=[0.5, 0.5],
                                pos_label=1), ValueError,
     ["priors gives class 1", "y_true has no case"]),
    ("nb-cost-matrix-text",
     lambda f: dt.CostSensitiveNaiveBayes(cost_matrix=[["a", 1], [1, 0]]).fit(f.X, f.y),
     TypeError, ["cost_matrix", "square numeric", "'a'"]),
    ("benefit-weight-negative",
     lambda f: dt.best_benefit_threshold([0, 1, 0], [0.1, 0.9, 0.5], f.b,
                                         sample_weight=[1, -1, 1]), ValueError,
     ["sample_weight", "non-negative"]),
    ("benefit-confusion-shape",
     lambda f: dt.benefit_from_confusion([[1, 2, 3]], f.b), ValueError,
     ["confusion", "square", r"\(1, 3\)"]),
    ("hierarchical-parameters",
     lambda f: dt.hierarchical_cost_parameters(-1, 1, 1), ValueError,
     ["cost_hd", "positive", "-1"]),
    ("bwlr-C", lambda f: dt.BenefitWeightedLogisticRegression(C=-1).fit(f.X, f.y),
     ValueError, ["'C' parameter", r"range \(0\.0, inf\]", "-1"]),
    ("bwlr-matrix-shape",
     lambda f: dt.BenefitWeightedLogisticRegression(benefit_matrix=[[1, 2, 3]])
     .fit(f.X, f.y), ValueError, ["benefit_matrix", "square", r"\(1, 3\)"]),
    ("bwlr-matrix-vs-classes",
     lambda f: dt.BenefitWeightedLogisticRegression(benefit_matrix=f.b)
     .fit(np.arange(9.0).reshape(-1, 1), [0, 1, 2] * 3), ValueError,
     ["benefit_matrix", "one row and one column per class", r"\[0, 1, 2\]"]),
    ("bwlr-unfitted", lambda f: dt.BenefitWeightedLogisticRegression().predict(f.X),
     NotFittedError, ["BenefitWeightedLogisticRegression", "not fitted"]),
    ("bwlr-wrong-column-names",
     lambda f: dt.BenefitWeightedLogisticRegression().fit(f.X, f.y)
     .predict(pd.DataFrame({"z": [1.0]})), ValueError, ["feature names", "z"]),
    ("nb-cost-matrix-shape",
     lambda f: dt.CostSensitiveNaiveBayes(cost_matrix=[[0, 1, 2]]).fit(f.X, f.y),
     ValueError, ["cost_matrix", "per class", r"\['no', 'yes'\]", r"\(1, 3\)"]),
    ("nb-cost-matrix-nan",
     lambda f: dt.CostSensitiveNaiveBayes(cost_matrix=[[0, np.nan], [1, 0]]).fit(f.X, f.y),
     ValueError, ["cost_matrix", "finite"]),
    ("nb-alpha", lambda f: dt.CostSensitiveNaiveBayes(alpha=-1).fit(f.X, f.y), ValueError,
     ["'alpha' parameter", r"range \(0\.0, inf\)", "-1"]),
    ("nb-unfitted", lambda f: dt.CostSensitiveNaiveBayes().predict(f.X), NotFittedError,
     ["CostSensitiveNaiveBayes", "not fitted"]),
    ("hierarchical-cost",
     lambda f: dt.HierarchicalCostSensitiveClassifier(cost_dh=-1).fit(f.X, f.y),
     ValueError, ["'cost_dh' parameter", r"range \(0\.0, inf\)", "-1"]),
    ("hierarchical-majority",
     lambda f: dt.HierarchicalCostSensitiveClassifier(majority_class="zz").fit(f.X, f.y),
     ValueError, ["majority_class", r"one of the classes \['no', 'yes'\]", "'zz'"]),
    ("flat-cost", lambda f: dt.FlatCostSensitiveClassifier(cost_dd=0).fit(f.X, f.y),
     ValueError, ["'cost_dd' parameter", r"range \(0\.0, inf\)", "Got 0"]),
    ("flat-unfitted", lambda f: dt.FlatCostSensitiveClassifier().predict(f.X),
     NotFittedError, ["FlatCostSensitiveClassifier", "not fitted"]),
    ("hierarchical-unfitted",
     lambda f: dt.HierarchicalCostSensitiveClassifier().predict_proba(f.X), NotFittedError,
     ["HierarchicalCostSensitiveClassifier", "not fitted"]),
    ("compare-unfitted-model",
     lambda f: dt.compare_models({"lr": LogisticRegression()}, {"train": (f.X, f.y)}, f.m),
     NotFittedError, ["LogisticRegression", "not fitted"]),
    ("what-if-unfitted-model",
     lambda f: dt.what_if({"lr": LogisticRegression()}, f.X, f.y, {"a": f.m}),
     NotFittedError, ["LogisticRegression", "not fitted"]),
    ("curve-display-unfitted-model",
     lambda f: dt.ProfitCurveDisplay.from_estimator(LogisticRegression(), f.X, f.y,
                                                    matrix=f.m), NotFittedError,
     ["LogisticRegression", "not fitted"]),
    ("study-display-unfitted-tree",
     lambda f: dt.PruningStudyDisplay.from_estimator(dt.ProfitTreeClassifier(), f.X, f.y),
     ValueError, ["estimator", "fitted tree", "tree_"]),
    ("scorer-unfitted-model",
     lambda f: dt.make_profit_scorer(f.m)(LogisticRegression(), f.X, f.y), NotFittedError,
     ["LogisticRegression", "not fitted"]),
    # ------------------------------------------------------------ export
    ("leaf-table-unfitted", lambda f: dt.leaf_table(dt.ProfitTreeClassifier()), ValueError,
     ["estimator", "fitted", "call fit first"]),
    ("sql-unfitted", lambda f: dt.to_sql(dt.ProfitTreeClassifier()), ValueError,
     ["estimator", "fitted", "call fit first"]),
    ("sql-dialect", lambda f: dt.to_sql(f.tree, dialect="oracle"), ValueError,
     ["dialect", "'sqlite'", "'oracle'"]),
    ("sql-keep-columns-number", lambda f: dt.to_sql(f.tree, keep_columns=5), TypeError,
     ["keep_columns", "a list of names or None", "5"]),
    ("sql-keep-columns-text", lambda f: dt.to_sql(f.tree, keep_columns="age"), ValueError,
     ["keep_columns", "'\\*'", "'age'"]),
    ("rules-unfitted", lambda f: dt.export_rules(dt.ProfitTreeClassifier()), ValueError,
     ["estimator", "fitted"]),
    ("graphviz-unfitted", lambda f: dt.export_graphviz(dt.ProfitTreeRegressor()),
     ValueError, ["estimator", "fitted"]),
    ("importance-unfitted", lambda f: dt.variable_importance(dt.ProfitTreeClassifier()),
     ValueError, ["estimator", "fitted"]),
    ("write-leaf-table-type", lambda f: dt.write_leaf_table(f.tree, "/tmp/never.csv"),
     TypeError, ["table", "pandas DataFrame", "ProfitTreeClassifier"]),
    ("write-leaf-table-column-names",
     lambda f: dt.write_leaf_table(pd.DataFrame({0: [1]}), "/tmp/never.csv"), ValueError,
     ["table", "str column names", r"\[0\]"]),
    ("load-missing-file", lambda f: dt.load("/nonexistent/model.joblib"), FileNotFoundError,
     ["path", "/nonexistent/model.joblib"]),
    ("read-leaf-table-missing", lambda f: dt.read_leaf_table("/nonexistent/leaves.csv"),
     FileNotFoundError, ["path", "/nonexistent/leaves.csv"]),
    ("leaf-table-negative-precision", lambda f: dt.leaf_table(f.tree, precision=-2),
     ValueError, ["precision", "positive int", "significant digits", "-2"]),
    ("leaf-table-float-precision", lambda f: dt.leaf_table(f.tree, precision=2.5),
     ValueError, ["precision", "positive int", "2.5"]),
    ("leaf-table-negative-resamples", lambda f: dt.leaf_table(f.tree, n_resamples=-1),
     ValueError, ["n_resamples", ">= 0", "-1"]),
    ("study-absent-level-with-priors",
     lambda f: dt.PruningStudy(_prior_tree(f)).fit(f.X, np.array(["no"] * 8)), ValueError,
     ["y_valid", "no case of the level", r"\['yes'\]", "prior"]),
    ("study-valid-costs-all-nan",
     lambda f: dt.PruningStudy(f.ctree).fit(f.X, f.y, costs_valid=pd.DataFrame(
         {"c": np.full(8, np.nan)})), ValueError,
     ["costs_valid", r"missing \(NaN\) cost", r"\['c'\]"]),
    ("score-file-missing", lambda f: dt.score_file(f.tree, "/nonexistent/new.csv"),
     FileNotFoundError, ["data file", "/nonexistent/new.csv", "does not exist"]),
    ("score-file-chunk-size", lambda f: dt.score_file(f.tree, "/nonexistent/new.csv",
                                                      chunk_size=0),
     ValueError, ["chunk_size", "positive int", "0"]),
    ("score-file-unknown-suffix", lambda f: dt.score_file(f.tree, __file__), ValueError,
     ["data file", "unknown file type", "'.py'"]),
    ("score-file-unfitted", lambda f: dt.score_file(dt.ProfitTreeClassifier(), __file__),
     NotFittedError, ["ProfitTreeClassifier", "not fitted"]),
]

# every estimator hyper-parameter with a declared constraint, one invalid value each
HYPER = [
    (dt.ProfitTreeClassifier, "max_depth", 0),
    (dt.ProfitTreeClassifier, "min_samples_leaf", 0),
    (dt.ProfitTreeClassifier, "min_samples_split", 1),
    (dt.ProfitTreeClassifier, "min_impurity_decrease", -1.0),
    (dt.ProfitTreeClassifier, "max_leaf_nodes", 1),
    (dt.ProfitTreeClassifier, "max_bins", 1),
    (dt.ProfitTreeClassifier, "ccp_alpha", -1.0),
    (dt.ProfitTreeClassifier, "criterion", "variance"),
    (dt.ProfitTreeClassifier, "ordinal", "yes"),
    (dt.ProfitTreeClassifier, "random_state", "seed"),
    (dt.ProfitTreeRegressor, "criterion", "gini"),
    (dt.ProfitTreeRegressor, "max_depth", 0),
    (dt.ProfitTreeRegressor, "max_bins", 70000),
    (dt.ProfitTreeRegressor, "min_samples_leaf", 0.5),
    (dt.BenefitWeightedLogisticRegression, "C", 0.0),
    (dt.CostSensitiveNaiveBayes, "alpha", 0.0),
    (dt.HierarchicalCostSensitiveClassifier, "cost_hd", 0.0),
    (dt.HierarchicalCostSensitiveClassifier, "cost_dh", -2.0),
    (dt.FlatCostSensitiveClassifier, "cost_dh", 0.0),
]


test_bad_input, test_case_ids_are_unique = catalogue_tests(CASES)


@pytest.mark.parametrize(
    "cls, param, value",
    [pytest.param(c, p, v, id=f"{c.__name__}-{p}") for c, p, v in HYPER],
)
def test_invalid_hyper_parameter(f, cls, param, value):
    est = cls(**{param: value})
    assert getattr(est, param) is value  # stored as given, validated in fit
    with pytest.raises(ValueError) as exc_info:
        est.fit(f.X, f.y)
    check_message(exc_info, [f"'{param}' parameter of {cls.__name__}", "must be"])


def test_valid_inputs_of_the_catalogue_fixture_work(f):
    # the cases above spoil one thing each: the unspoilt versions must succeed
    assert dt.decide(f.post, f.m, y=f.y).summary["n_cases"] == 8
    dt.decide(f.post, f.rev, y=f.y, costs={"c": np.ones(8)})
    dt.profit_curve(f.y, f.score, f.m, event="yes", n_bins=4)
    dt.benefit_metric([0, 1, 0], [0.1, 0.9, 0.5], f.b, priors=[0.5, 0.5], threshold=0.5)
    assert f.tree.predict(f.X).shape == (8,)
    assert isinstance(dt.to_sql(f.tree, keep_columns=["x"]), str)
    assert f.ctree.decide(f.Xc, f.y).summary["n_cases"] == 8
    assert list(f.ctree.predict_decision(f.X)) == list(f.ctree.predict_decision(f.Xc))


# ---------------------------------------------------------------------------- properties
finite = st.floats(-10, 10, allow_nan=False)


@settings(max_examples=40, deadline=None)
@given(st.lists(finite, min_size=2, max_size=5).filter(lambda p: min(p) < 0))
def test_any_negative_prior_is_refused(priors):
    levels = [f"l{k}" for k in range(len(priors))]
    with pytest.raises(ValueError, match="priors must be non-negative"):
        DecisionMatrix(np.eye(len(priors)), levels=levels, priors=priors)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-5, 5), min_size=2, max_size=6))
def test_knots_are_accepted_exactly_when_strictly_increasing(knots):
    values = np.zeros((len(knots), 2))
    if all(a < b for a, b in zip(knots, knots[1:])):
        assert DecisionMatrix(values, knots=knots).n_levels == len(knots)
    else:
        with pytest.raises(ValueError, match="knots must be sorted ascending and distinct"):
            DecisionMatrix(values, knots=knots)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 6).filter(lambda k: k != 2))
def test_posterior_width_must_match_levels(n_columns):
    m = DecisionMatrix({"a": [1, 0], "b": [0, 1]}, levels=["u", "v"])
    post = np.full((3, n_columns), 1.0 / n_columns)
    with pytest.raises(ValueError, match=rf"n_levels=2.*got shape \(3, {n_columns}\)"):
        dt.decide(post, m)


LABELS = [0, 1, 2, 0.0, 1.0, 2.5, -0.0, True, False, "1", "1.0", "a", np.int64(1),
          np.float32(2.0), "\u00e9", "e\u0301", "\u00e9t\u00e9"]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(LABELS), min_size=1, max_size=8))
def test_decision_labels_are_refused_exactly_when_equal_as_values_but_not_as_text(labels):
    """Decision labels are matched as text: a list holding two labels equal as values
    but spelt differently (1 and 1.0, True and 1, 0.0 and -0.0, 2 and np.float32(2)),
    or one text in two Unicode forms (composed and decomposed "\u00e9"), is refused;
    any other list (1 and "1" are one decision) gives the texts."""
    import unicodedata

    from dtdecide.decision._validation import text_labels

    def nfc(v):
        return unicodedata.normalize("NFC", v) if isinstance(v, str) else v

    clash = [(a, b) for a in labels for b in labels
             if nfc(a) == nfc(b) and str(a) != str(b)]
    if clash:
        with pytest.raises(ValueError, match="are equal as values but not as text|"
                                             "same text in different Unicode forms"):
            text_labels(labels, "decisions")
    else:
        assert text_labels(labels, "decisions").tolist() == [str(v) for v in labels]


# ------------------------------------------------- costs without cost variables, SQL names
@pytest.mark.parametrize("kind", ["profit", "loss"])
def test_costs_with_a_matrix_without_cost_variables(f, kind):
    matrix = DecisionMatrix({"call": [10, -1], "skip": [0, 0]}, levels=LEVELS, kind=kind)
    with pytest.raises(ValueError, match="costs"):
        dt.decide(f.post, matrix, y=f.y, costs={"c": np.ones(8)})


def test_empty_sql_table_name(f):
    with pytest.raises(ValueError, match="table"):
        dt.to_sql(f.tree, table="")


# ---------------------------------------------------------------------------- unfitted
_NOT_METHODS = {"fit", "get_params", "set_params", "get_metadata_routing"}


def _public_methods(est):
    for name in sorted(dir(type(est))):
        attr = getattr(type(est), name, None)
        if name.startswith("_") or name in _NOT_METHODS or isinstance(attr, property):
            continue
        if name.startswith("set_") and name.endswith("_request") or not callable(attr):
            continue
        yield name


def _unfitted_estimators():
    m = DecisionMatrix({"call": [10, -1], "skip": [0, 0]}, levels=LEVELS)
    from dtdecide.policy import PolicyTree

    return [dt.ProfitTreeClassifier(decision_matrix=m), dt.ProfitTreeRegressor(),
            dt.DecisionEstimator(LogisticRegression(), m), PolicyTree(),
            dt.CostSensitiveNaiveBayes(), dt.BenefitWeightedLogisticRegression(),
            dt.HierarchicalCostSensitiveClassifier(), dt.FlatCostSensitiveClassifier()]


@pytest.mark.parametrize("est", _unfitted_estimators(), ids=lambda e: type(e).__name__)
def test_every_method_of_an_unfitted_estimator_raises_not_fitted(f, est):
    """prune_node, split, regrow, set_decision, split_candidates, decide, predict, ...:
    scikit-learn's NotFittedError (naming the estimator), never an AttributeError about a
    missing attribute or a plain ValueError; with Dask inputs too, at the call."""
    import inspect

    inputs = [f.X]
    try:
        import dask.dataframe as dd
    except ImportError:  # the Dask inputs are checked where Dask is installed
        dd = None
    if dd is not None:
        inputs.append(dd.from_pandas(f.X, npartitions=1))
    names = list(_public_methods(est))
    assert "predict" in names
    for name in names:
        method = getattr(est, name)
        required = [p.name for p in inspect.signature(method).parameters.values()
                    if p.default is inspect.Parameter.empty
                    and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        for X in inputs:
            args = [X if p == "X" else f.y if p == "y" else 0 for p in required]
            extra = {"X": X, "y": f.y} if "X" not in required and "X" in inspect.signature(
                method).parameters else {}
            with pytest.raises(NotFittedError, match=type(est).__name__):
                method(*args, **extra)
