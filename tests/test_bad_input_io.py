"""A second catalogue of bad inputs: real-data dtypes, shapes, files and the command line.

Outside the tree estimators (see ``tests/test_bad_input.py`` for the first catalogue).
Each case asserts the exception type and that the message names the offending
parameter, column or file and says what was expected (every pattern must be found in
the message); inputs that are accepted are checked for the right answer.
"""

import io
import warnings
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from bad_input_catalogue import catalogue_tests, check_message
from sklearn.linear_model import LogisticRegression

import dtdecide as dt
from dtdecide import DecisionMatrix

LEVELS = ["yes", "no"]
#: A free-text value given as a name: messages show it cut to 80 characters.
LONG = "x" * 10_000


@pytest.fixture(scope="module")
def f():
    """Small valid objects; each case spoils exactly one thing."""
    m = DecisionMatrix({"call": [10, -1], "skip": [0, 0]}, levels=LEVELS)
    rev = DecisionMatrix({"call": [10, 0], "skip": [0, 0]}, levels=LEVELS, kind="revenue",
                         costs={"call": "c"})
    case = DecisionMatrix.case_specific(levels=LEVELS, decisions=["a", "b"])
    post = np.tile([[0.3, 0.7]], (4, 1))
    X = pd.DataFrame({"x": np.arange(8.0)})
    y8 = np.array(["no", "no", "no", "no", "yes", "yes", "no", "yes"])
    return SimpleNamespace(
        m=m, rev=rev, case=case, post=post, frame=pd.DataFrame(post, columns=LEVELS),
        y=np.array(["yes", "no", "no", "yes"]), c=np.array([1.0, 2.0, 1.0, 2.0]),
        X=X, y8=y8, score=np.linspace(0.1, 0.9, 8), lr=LogisticRegression().fit(X, y8),
        one=DecisionMatrix({"call": [10, -1]}, levels=LEVELS), b=[[1, -1], [-2, 2]],
        shifted=pd.RangeIndex(5, 13), treated=[1, 0] * 4, outcome=[1, 0, 0, 1, 1, 0, 0, 1],
    )


def _y8_missing(f, dtype=object):
    """The 8 training labels with the last one missing."""
    return pd.array([*f.y8[:-1], None], dtype=dtype)


def _nullable_post(f):
    """Posteriors in a pandas nullable Float64 frame with one missing cell (row 1)."""
    frame = f.frame.astype("Float64")
    frame.loc[1, "yes"] = pd.NA
    return frame


# (id, call(f), exception type, patterns every message must match)
CASES = [
    # ------------------------------------------------------------ decide: posteriors
    ("decide-nullable-posterior-missing", lambda f: dt.decide(_nullable_post(f), f.m),
     ValueError, ["posteriors_or_predictions", "NaN", "row 1"]),
    ("decide-capacity-posterior-negative",
     lambda f: dt.decide(np.array([[-1.0, 2.0], [0.5, 0.5]]), f.m, capacity={"call": 1}),
     ValueError, ["posteriors_or_predictions", "non-negative", "row 0"]),
    ("decide-capacity-posterior-sum",
     lambda f: dt.decide(np.array([[3.0, 7.0], [0.5, 0.5]]), f.m, capacity={"call": 1}),
     ValueError, ["posteriors_or_predictions", "sum to 1", "row 0 sums to 10"]),
    ("decide-capacity-posterior-nan",
     lambda f: dt.decide(np.array([[0.5, 0.5], [np.nan, 1.0]]), f.m, capacity={"call": 1}),
     ValueError, ["posteriors_or_predictions", "NaN", "row 1"]),
    ("decide-y-text-for-int-levels",
     lambda f: dt.decide(f.post, DecisionMatrix(np.eye(2), levels=[1, 0]), y=["1", "0", "0", "1"]),
     ValueError, ["y contains values that are not levels", r"'1', '0'", r"expected one of \[1, 0\]",
                  "match levels as text but not in type"]),
    ("decide-budget-method-unknown",
     lambda f: dt.decide(f.post, f.rev, costs={"c": f.c}, budget={"call": 2.0}, method="greedy"),
     ValueError, ["method must be one of", "'auto', 'exact', 'relaxation'", "'greedy'"]),
    ("decide-budget-time-limit-negative",
     lambda f: dt.decide(f.post, f.rev, costs={"c": f.c}, budget={"call": 2.0}, time_limit=-5),
     ValueError, ["time_limit must be a positive number of seconds", "-5"]),
    # method and time_limit say how limits are solved: without limits they are refused,
    # as PolicyTree.decide refuses them (they were silently ignored)
    ("decide-method-without-limits", lambda f: dt.decide(f.post, f.rev, method="exact"),
     ValueError, ["method and time_limit say how a capacity or budget is solved",
                  "give capacity= or budget= too", "method='exact'"]),
    ("decide-time-limit-without-limits", lambda f: dt.decide(f.post, f.rev, time_limit=5),
     ValueError, ["give capacity= or budget= too", "time_limit=5"]),
    ("decide-budget-infinite",
     lambda f: dt.decide(f.post, f.rev, costs={"c": f.c}, budget={"call": float("inf")}),
     ValueError, [r"budget\['call'\] must be a finite non-negative number",
                  r"for no limit, leave 'call' out of budget", "got inf"]),
    ("allocate-spend-nan",
     lambda f: dt.decision.allocate([[0, 4], [0, 3], [0, 5]], budget={"mail": 5},
                                    spend=[[0, 2], [0, np.nan], [0, 4]], decisions=["skip", "mail"]),
     ValueError, ["spend must be finite and non-negative", r"'mail' in row 1 is nan"]),
    ("allocate-spend-negative",
     lambda f: dt.decision.allocate([[0, 4], [0, 3], [0, 5]], budget={"mail": 5},
                                    spend=[[0, 2], [0, 3], [0, -4]], decisions=["skip", "mail"]),
     ValueError, ["spend must be finite and non-negative", r"'mail' in row 2 is -4"]),
    ("allocate-spend-shape",
     lambda f: dt.decision.allocate([[0, 4], [0, 3], [0, 5]], budget={"mail": 5},
                                    spend=[[0, 2], [0, 3]], decisions=["skip", "mail"]),
     ValueError, [r"spend must be an array of shape \(3, 2\)", r"got shape \(2, 2\)"]),
    ("allocate-decisions-repeated",
     lambda f: dt.decision.allocate([[0, 4], [0, 3]], {"a": 1}, decisions=["a", "a"]),
     ValueError, ["decisions must be distinct", "'a' names 2 columns of values"]),
    # a free-text column given as names: each repeated name cut to 80 characters
    ("allocate-decisions-repeated-long",
     lambda f: dt.decision.allocate([[0, 4], [0, 3]], {"a": 1}, decisions=[LONG, LONG]),
     ValueError, [r"'x{76}\.\.\. names 2 columns of values"]),
    ("matrix-decisions-repeated-long",
     lambda f: DecisionMatrix([[1, 0], [0, 1]], levels=LEVELS, decisions=[LONG, LONG]),
     ValueError, [r"decisions must be unique; duplicated: \['x{76}\.\.\.\]$"]),
    ("matrix-levels-repeated-long",
     lambda f: DecisionMatrix([[1, 0], [0, 1]], levels=[LONG, LONG]),
     ValueError, [r"levels must be unique; duplicated: \['x{76}\.\.\.\]$"]),
    ("matrix-frame-columns-repeated-long",
     lambda f: DecisionMatrix.from_frame(pd.DataFrame([[1, 0], [0, 1]], columns=[LONG, LONG],
                                                      index=LEVELS)),
     ValueError, [r"column\(s\) \['x{76}\.\.\.\] more than once"]),
    ("read-csv-header-repeated-long",
     lambda f: DecisionMatrix.read_csv(io.StringIO(f"level,{LONG},{LONG}\nyes,1,0\nno,0,1\n")),
     ValueError, [r"column\(s\) \['x{76}\.\.\.\] more than once"]),
    ("sql-keep-columns-twice-long",
     lambda f: dt.to_sql(_cost_tree(f), keep_columns=[LONG, LONG]),
     ValueError, [r"keep_columns names \['x{76}\.\.\.\] more than once"]),
    ("allocate-decisions-int-and-float",
     lambda f: dt.decision.allocate([[0, 4], [0, 3]], {1: 1}, decisions=[1, 1.0]),
     ValueError, ["decisions: the labels 1 and 1.0 are equal as values"]),
    # a decision named by a missing value or by nothing became the decision "None"
    ("allocate-decisions-none",
     lambda f: dt.decision.allocate([[0, 4], [0, 3]], {"a": 1}, decisions=[None, "a"]),
     ValueError, ["decisions must be non-empty names", "None", "label 1 of 2"]),
    ("allocate-decisions-empty",
     lambda f: dt.decision.allocate([[0, 4], [0, 3]], {"a": 1}, decisions=["", "a"]),
     ValueError, ["decisions must be non-empty names", "''"]),
    ("allocate-decisions-string",
     lambda f: dt.decision.allocate([[0, 4], [0, 3]], {"a": 1}, decisions="ba"),
     TypeError, ["decisions must be a sequence of names", "'ba'"]),
    # keys 1 and "1" name one decision: one limit was silently dropped
    ("allocate-capacity-keys-alike-as-text",
     lambda f: dt.decision.allocate([[0, 4], [0, 3]], {1: 1, "1": 2}, decisions=[0, 1]),
     ValueError, ["capacity names the decision '1' twice", "keys 1 and '1'"]),
    ("decide-capacity-keys-alike-as-text",
     lambda f: dt.decide(f.post, DecisionMatrix({1: [10, -1], 2: [0, 0]}, levels=LEVELS),
                         capacity={1: 1, "1": 2}),
     ValueError, ["capacity names the decision '1' twice"]),
    ("allocate-capacity-key-unicode-form",
     lambda f: dt.decision.allocate([[0, 4], [0, 3]], {"e\u0301": 1},
                                    decisions=["x", "\u00e9"]),
     ValueError, ["capacity and the decisions", "different Unicode forms"]),
    # values and spend that numpy cannot read: named, not numpy's message
    ("allocate-values-text",
     lambda f: dt.decision.allocate([["a", "b"]], {"1": 1}), TypeError,
     ["values must be numbers"]),
    ("allocate-values-nullable-missing",
     lambda f: dt.decision.allocate(
         pd.DataFrame({"x": pd.array([1, None], dtype="Int64"), "a": [1, 1]}), {"a": 1}),
     ValueError, ["values must be finite"]),
    ("allocate-spend-ragged",
     lambda f: dt.decision.allocate([[0, 4], [0, 3]], budget={"a": 1}, spend=[[1, 2], [1]],
                                    decisions=["x", "a"]),
     TypeError, ["spend must be numbers"]),
    # a DataFrame's columns name its decisions: never paired by position
    ("allocate-values-columns-not-decisions",
     lambda f: dt.decision.allocate(pd.DataFrame({"x": [0, 0], "b": [4, 3]}), {"a": 1},
                                    decisions=["x", "a"]),
     ValueError, ["values is a DataFrame whose columns", r"\['x', 'b'\]", "not the decisions"]),
    ("allocate-spend-columns-not-decisions",
     lambda f: dt.decision.allocate([[0, 4], [0, 3]], budget={"a": 1},
                                    spend=pd.DataFrame({"x": [0, 0], "b": [1, 1]}),
                                    decisions=["x", "a"]),
     ValueError, ["spend is a DataFrame whose columns", "not the decisions"]),
    ("decide-do-nothing-unicode-form-of-a-decision",
     lambda f: dt.decide(f.post, DecisionMatrix({"\u00e9": [10, -1], "skip": [0, 0]},
                                                levels=LEVELS), threshold=1,
                         do_nothing="e\u0301"),
     ValueError, ["do_nothing and the matrix decisions", "different Unicode forms"]),
    ("decide-posterior-column-unicode-form-of-a-level",
     lambda f: dt.decide(pd.DataFrame(f.post, columns=["e\u0301", "no"]),
                         DecisionMatrix({"call": [10, -1], "skip": [0, 0]},
                                        levels=["\u00e9", "no"])),
     ValueError, ["the columns of posteriors_or_predictions and the levels",
                  "different Unicode forms", "2 different levels"]),
    ("decide-y-unicode-form-of-a-level",
     lambda f: dt.decide(f.post, DecisionMatrix({"call": [10, -1], "skip": [0, 0]},
                                                levels=["\u00e9", "no"]),
                         y=np.array(["e\u0301", "no", "no", "no"])),
     ValueError, ["y contains values that are not levels", "another Unicode form"]),
    # frequencies were ignored by the allocation (a row of frequency 0 took a call) while
    # the summary weighed by them
    ("decide-capacity-with-frequencies",
     lambda f: dt.decide(f.post, f.m, sample_weight=[0, 1, 2, 1], capacity={"call": 1}),
     ValueError, ["capacity / budget do not combine with sample_weight other than 1",
                  "one row per case"]),
    # numpy's "ufunc 'isfinite' not supported" named no parameter
    ("decide-threshold-beyond-a-float",
     lambda f: dt.decide(f.post, f.m, threshold=10 ** 400), ValueError,
     ["threshold must be a finite number"]),
    # one decision: refused as limited, not as a shape of the values decide never shows
    ("decide-capacity-one-decision", lambda f: dt.decide(f.post, f.one, capacity={"call": 1}),
     ValueError, ["every decision is limited", "add a 'do nothing' decision"]),
    ("decide-capacity-too-large",
     lambda f: dt.decide(f.post, f.m, capacity={"call": 10 ** 400}), ValueError,
     [r"capacity\['call'\]", "non-negative number"]),
    # ------------------------------------------------------------ decide: costs
    ("decide-costs-duplicated-column",
     lambda f: dt.decide(f.post, f.rev, costs=pd.DataFrame(np.ones((4, 2)), columns=["c", "c"])),
     ValueError, ["costs has 2 columns named 'c'", "once"]),
    ("decide-costs-series", lambda f: dt.decide(f.post, f.rev, costs=pd.Series(f.c, name="c")),
     TypeError, ["costs must be a DataFrame or a dict", r"\['c'\]", "got Series"]),
    ("decide-costs-array", lambda f: dt.decide(f.post, f.rev, costs=f.c), TypeError,
     ["costs must be a DataFrame or a dict", "got ndarray"]),
    ("decide-costs-single-number", lambda f: dt.decide(f.post, f.rev, costs={"c": 2.0}),
     ValueError, ["costs column 'c'", r"one value per case \(4\)", "single number 2.0"]),
    ("decide-case-costs-text",
     lambda f: dt.decide(f.post, f.case, costs=np.full((4, 2, 2), "a")), TypeError,
     ["costs must contain only numbers", "dtype <U1"]),
    ("decide-do-nothing-empty", lambda f: dt.decide(f.post, f.m, threshold=0, do_nothing=""),
     ValueError, ["do_nothing", "not a matrix decision", "''"]),
    # a free-text column given as y: each label cut to 80 characters, not 10,000
    ("decide-y-long-text",
     lambda f: dt.decide(f.post, f.m, y=np.array(["x" * 10_000, "no", "no", "no"])),
     ValueError, ["y contains values that are not levels", r"'x{76}\.\.\.; expected"]),
    # it was silently ignored, as method= without limits was
    ("decide-do-nothing-without-threshold",
     lambda f: dt.decide(f.post, f.m, do_nothing="wait"), ValueError,
     ["do_nothing names the decision a threshold gives", "give threshold= too", "'wait'"]),
    ("decide-decision-costs-text",
     lambda f: dt.decide(f.post, f.rev, costs={"c": f.c}, decision_costs={"c": "2"}),
     TypeError, [r"decision_costs\['c'\]", "number or a column", "'2'"]),
    ("summary-by-misaligned",
     lambda f: dt.decide(f.frame.set_axis([10, 11, 12, 13]), f.m, y=f.y).summary_by(
         pd.Series(list("abab"))), ValueError,
     ["groups has an index", "result.cases", "align them first"]),
    ("summary-by-column-name",
     lambda f: dt.decide(f.post, f.m, y=f.y).summary_by("D_target"), TypeError,
     ["groups", "one label per case", "'D_target'"]),
    ("equivalent-priors-unknown-level",
     lambda f: dt.equivalent_priors(f.m, priors={"yes": 0.2, "maybe": 0.8}), ValueError,
     ["priors", "unknown levels", "'maybe'"]),
    ("decide-train-priors-unknown-level",
     lambda f: dt.decide(f.post, f.m.replace(priors=[0.5, 0.5]),
                         train_priors={"yes": 0.5, "maybe": 0.5}), ValueError,
     ["train_priors", "one value per level", r"\['yes', 'no'\]", "'maybe'"]),
    ("adjust-priors-by-label-of-an-array",
     lambda f: dt.adjust_posteriors(f.post, {"yes": 0.5, "no": 0.5}, [0.3, 0.7]), TypeError,
     ["priors", "array in level order"]),
    ("adjust-posterior-negative",
     lambda f: dt.adjust_posteriors([[-0.3, 1.3]], [0.5, 0.5], [0.2, 0.8]), ValueError,
     ["post", "non-negative", "row 0"]),
    ("adjust-posterior-nan",
     lambda f: dt.adjust_posteriors([[np.nan, 0.7]], [0.5, 0.5], [0.2, 0.8]), ValueError,
     ["post", "NaN"]),
    ("adjust-posterior-sum",
     lambda f: dt.adjust_posteriors([[3.0, 7.0]], [0.5, 0.5], [0.2, 0.8]), ValueError,
     ["post", "sum to 1", "10"]),
    ("adjust-posterior-text",
     lambda f: dt.adjust_posteriors([["a", "b"]], [0.5, 0.5], [0.2, 0.8]), TypeError,
     ["post", "numeric posteriors"]),
    # ------------------------------------------------------------ DecisionMatrix
    ("matrix-decision-none", lambda f: DecisionMatrix(np.eye(2), levels=LEVELS,
                                                      decisions=["call", None]),
     ValueError, ["decisions", "non-empty names", "None"]),
    ("matrix-decision-nan", lambda f: DecisionMatrix(np.eye(2), levels=LEVELS,
                                                     decisions=["call", np.nan]),
     ValueError, ["decisions", "non-empty names", "nan"]),
    ("matrix-decision-empty", lambda f: DecisionMatrix(np.eye(2), levels=LEVELS,
                                                       decisions=["call", ""]),
     ValueError, ["decisions", "non-empty names"]),
    ("matrix-decision-none-key", lambda f: DecisionMatrix({"call": [1, 0], None: [0, 1]},
                                                          levels=LEVELS),
     ValueError, ["decisions", "non-empty names"]),
    ("to-csv-level-named-cost",
     lambda f: DecisionMatrix(np.eye(2), levels=["cost", "other"]).to_csv(), ValueError,
     ["level named 'cost'", "read back by read_csv as the cost row", "to_json"]),
    ("to-csv-decision-named-prior",
     lambda f: DecisionMatrix(np.eye(2), levels=LEVELS, decisions=["prior", "skip"]).to_csv(),
     ValueError, ["decision named 'prior'", "as the priors", "to_json"]),
    # read_csv read these back as other labels: a silently different matrix
    ("to-csv-decision-with-spaces",
     lambda f: DecisionMatrix(np.eye(2), levels=LEVELS, decisions=["call ", "skip"]).to_csv(),
     ValueError, ["the decision 'call '", "read back by read_csv as 'call'", "to_json"]),
    ("to-csv-text-levels-read-as-numbers",
     lambda f: DecisionMatrix(np.eye(2), levels=["1", "0"]).to_csv(), ValueError,
     ["the level '1' would be read back by read_csv as 1", "to_json"]),
    ("to-csv-number-beside-text-levels",
     lambda f: DecisionMatrix(np.eye(2), levels=["a", 1]).to_csv(), ValueError,
     ["the level 1 would be read back by read_csv as '1'"]),
    ("read-csv-not-utf8",
     lambda f: DecisionMatrix.read_csv(io.BytesIO("level,a\nZ\xfcrich,1\nb,0\n".encode("latin-1"))),
     ValueError, ["path_or_buf", "not UTF-8", "save the file as UTF-8"]),
    ("read-csv-folder", lambda f: DecisionMatrix.read_csv("/"), IsADirectoryError,
     ["path_or_buf", "'/'", "folder"]),
    ("read-csv-number", lambda f: DecisionMatrix.read_csv(5), TypeError,
     ["path_or_buf", "path or a file-like", "int"]),
    ("read-csv-text-knots",
     lambda f: DecisionMatrix.read_csv(io.StringIO("level,a\nx,1\ny,0\n"), interval=True),
     TypeError, ["knots must be numbers", r"\['x', 'y'\]"]),
    ("read-csv-interval-text",
     lambda f: DecisionMatrix.read_csv(io.StringIO("level,a\nx,1\ny,0\n"), interval="yes"),
     TypeError, ["interval", "True, False or None", "'yes'"]),
    ("read-csv-header-unicode-forms",
     lambda f: DecisionMatrix.read_csv(io.StringIO("level,\u00e9,e\u0301\ny,1,0\nn,0,1\n")),
     ValueError, ["the header", "'\\\\xe9' and 'e\\\\u0301'", "different Unicode forms"]),
    ("read-csv-levels-unicode-forms",
     lambda f: DecisionMatrix.read_csv(io.StringIO("level,a,b\n\u00e9,1,0\ne\u0301,0,1\n")),
     ValueError, ["levels", "different Unicode forms", "2 different levels"]),
    ("read-csv-empty-level",
     lambda f: DecisionMatrix.read_csv(io.StringIO("level,a\n,1\ny,0\n")), ValueError,
     ["line 2 has no label in the first column"]),
    ("matrix-frame-rows-not-levels",
     lambda f: DecisionMatrix(pd.DataFrame({"call": [10, -1]}, index=["buyer", "other"]),
                              levels=LEVELS), ValueError,
     ["values is a DataFrame", r"index \['buyer', 'other'\]", r"levels \['yes', 'no'\]",
      "matched by name"]),
    ("matrix-frame-columns-not-decisions",
     lambda f: DecisionMatrix(pd.DataFrame({"call": [10, -1]}, index=LEVELS),
                              decisions=["mail"]), ValueError,
     ["values is a DataFrame", r"columns \['call'\]", r"decisions \['mail'\]"]),
    ("from-json-array", lambda f: DecisionMatrix.from_json("[1, 2]"), ValueError,
     ["source", "JSON object", "list"]),
    ("from-json-no-values",
     lambda f: DecisionMatrix.from_json('{"kind": "profit", "levels": ["a", "b"]}'),
     ValueError, ["source", "no 'values' key", r"\['kind', 'levels'\]"]),
    ("from-json-case-specific-no-decisions",
     lambda f: DecisionMatrix.from_json('{"case_specific": true, "levels": ["a", "b"]}'),
     ValueError, ["source", "no 'decisions' key"]),
    ("from-json-deeply-nested",
     lambda f: DecisionMatrix.from_json("[" * 100_000 + "]" * 100_000), ValueError,
     ["source", "JSON", "recursion"]),
    ("from-json-missing-file", lambda f: DecisionMatrix.from_json("/nonexistent/m.json"),
     FileNotFoundError, ["source", "/nonexistent/m.json", "neither JSON text", "existing file"]),
    ("from-json-folder", lambda f: DecisionMatrix.from_json("/"), IsADirectoryError,
     ["source", "'/'", "folder"]),
    # ------------------------------------------------------------ assess
    ("curve-empty", lambda f: dt.profit_curve(np.array([], dtype=str), np.array([]), f.one,
                                              event="yes"), ValueError,
     ["y_true and y_score", "no cases", "0 rows"]),
    ("best-threshold-empty",
     lambda f: dt.best_threshold(np.array([], dtype=str), np.array([]), f.one, event="yes"),
     ValueError, ["y_true and y_score", "no cases"]),
    ("curve-nullable-score-missing",
     lambda f: dt.profit_curve(f.y8, pd.array([*f.score[:-1], None], dtype="Float64"), f.one,
                               event="yes"), ValueError,
     ["posteriors_or_predictions", "NaN", "row 7"]),
    ("curve-event-score-above-one",
     lambda f: dt.profit_curve(f.y8, np.r_[f.score[:-1], 1.5], f.one, event="yes"),
     ValueError, ["y_score", "posterior of the event level 'yes'", r"\[0, 1\]",
                  "row 7 holds 1.5"]),
    ("curve-event-score-infinite",
     lambda f: dt.profit_curve(f.y8, np.r_[f.score[:-1], np.inf], f.one, event="yes"),
     ValueError, ["y_score", "row 7 holds inf"]),
    ("compare-y-misaligned-with-X",
     lambda f: dt.compare_models({"lr": f.lr}, {"train": (f.X, pd.Series(f.y8, f.shifted))},
                                 f.m), ValueError,
     ["y has an index", "index of X", "align them first"]),
    ("compare-weight-misaligned-with-X",
     lambda f: dt.compare_models(
         {"lr": f.lr}, {"train": (f.X, f.y8, pd.Series(np.ones(8), f.shifted))}, f.m),
     ValueError, ["sample_weight has an index", "index of X"]),
    ("compare-unknown-select-role",
     lambda f: dt.compare_models({"lr": f.lr}, {"train": (f.X, f.y8)}, f.m,
                                 select_role="valid"), ValueError,
     ["select_role", r"\['train'\]", "'valid'"]),
    ("profit-curves-no-data", lambda f: dt.profit_curves({"lr": f.lr}, {}, f.one),
     ValueError, ["data must be a non-empty dict"]),
    ("compare-event-missing",
     lambda f: dt.compare_models({"lr": f.lr}, {"train": (f.X, f.y8)}, f.m, event=pd.NA),
     ValueError, ["event must be a level", "<NA>"]),
    ("uplift-treatment-misaligned",
     lambda f: dt.uplift_curve(pd.Series(f.score), pd.Series(f.treated, f.shifted), f.outcome),
     ValueError, ["treatment has an index", "index of score"]),
    ("uplift-outcome-misaligned",
     lambda f: dt.uplift_curve(pd.Series(f.score), f.treated, pd.Series(f.outcome, f.shifted)),
     ValueError, ["outcome has an index", "index of score"]),
    ("uplift-treatment-missing",
     lambda f: dt.uplift_curve(f.score, pd.array([1, 0] * 3 + [1, None], dtype="Int64"),
                               f.outcome), ValueError, ["treatment", "missing values"]),
    ("uplift-outcome-missing",
     lambda f: dt.uplift_curve(f.score, f.treated,
                               pd.array([*f.outcome[:-1], None], dtype="Float64")),
     ValueError, ["outcome", "finite"]),
    ("misclassification-misaligned",
     lambda f: dt.misclassification_rates(pd.Series(f.y8), pd.Series(f.y8, f.shifted)),
     ValueError, ["y_pred has an index", "index of y_true"]),
    ("misclassification-weight-misaligned",
     lambda f: dt.misclassification_rates(pd.Series(f.y8), f.y8,
                                          sample_weight=pd.Series(np.ones(8), f.shifted)),
     ValueError, ["sample_weight has an index", "index of y_true"]),
    ("misclassification-priors-negative",
     lambda f: dt.misclassification_rates(f.y8, f.y8, priors=[1, -1]), ValueError,
     ["priors", "non-negative", r"\{0: 1.0, 1: -1.0\}"]),
    ("balanced-sample-too-few",
     lambda f: dt.balanced_sample(f.X, f.y8, n_per_class=100), ValueError,
     ["n_per_class=100", "3 cases of class 'yes'", "replace=True"]),
    # ------------------------------------------------------------ models
    ("benefit-score-misaligned",
     lambda f: dt.benefit_curve(pd.Series([0, 1, 0, 1]), pd.Series([0.1, 0.2, 0.3, 0.4],
                                                                    index=[5, 6, 7, 8]), f.b),
     ValueError, ["y_score has an index", "index of y_true"]),
    ("benefit-y-missing",
     lambda f: dt.benefit_curve(pd.Series([0, 1, None, 1]), [0.1, 0.2, 0.3, 0.4], f.b),
     ValueError, ["y_true", "missing values"]),
    ("benefit-score-nullable-missing",
     lambda f: dt.benefit_curve([0, 1, 0, 1], pd.array([0.1, None, 0.3, 0.4], dtype="Float64"),
                                f.b), ValueError, ["y_score", "finite"]),
    ("nb-priors-unknown-class",
     lambda f: dt.CostSensitiveNaiveBayes(priors={"yes": 0.9, "maybe": 0.1}).fit(f.X, f.y8),
     ValueError, ["priors", "one value per level", r"\['no', 'yes'\]", "'maybe'"]),
    ("benefit-priors-by-label",
     lambda f: dt.benefit_metric([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4], f.b,
                                 priors={0: 0.5, 1: 0.5}), TypeError,
     ["priors", "array in level order"]),
    ("nb-cost-frame-labels",
     lambda f: dt.CostSensitiveNaiveBayes(cost_matrix=pd.DataFrame(
         [[0, 1], [1, 0]], index=["a", "b"], columns=["no", "yes"])).fit(f.X, f.y8),
     ValueError, ["cost_matrix", r"classes \['no', 'yes'\]", r"index \['a', 'b'\]"]),
    ("benefit-threshold-bool",
     lambda f: dt.benefit_metric([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4], f.b, threshold=True),
     TypeError, ["threshold", "real number", "True"]),
]

CASES += [
    # ------------------------------------------------------------ DecisionEstimator, scorer
    ("estimator-fit-y-misaligned",
     lambda f: dt.DecisionEstimator(LogisticRegression(), f.m).fit(f.X, pd.Series(f.y8,
                                                                                f.shifted)),
     ValueError, ["y has an index", "index of X"]),
    ("estimator-fit-weight-misaligned",
     lambda f: dt.DecisionEstimator(LogisticRegression(), f.m).fit(
         f.X, f.y8, sample_weight=pd.Series(np.ones(8), f.shifted)), ValueError,
     ["sample_weight has an index", "index of X"]),
    ("estimator-fit-y-missing",
     lambda f: dt.DecisionEstimator(LogisticRegression(), f.m).fit(f.X, _y8_missing(f)),
     ValueError, ["y contains missing values"]),
    ("estimator-decide-y-misaligned",
     lambda f: dt.DecisionEstimator(LogisticRegression(), f.m).fit(f.X, f.y8).decide(
         f.X, pd.Series(f.y8, f.shifted)), ValueError, ["y has an index", "index of X"]),
    ("scorer-y-misaligned",
     lambda f: dt.make_profit_scorer(f.m)(f.lr, f.X, pd.Series(f.y8, f.shifted)), ValueError,
     ["y_true has an index", "index of X"]),
    ("scorer-weight-misaligned",
     lambda f: dt.make_profit_scorer(f.m)(f.lr, f.X, f.y8,
                                          sample_weight=pd.Series(np.ones(8), f.shifted)),
     ValueError, ["sample_weight has an index", "index of X"]),
    ("redecide-train-priors-negative",
     lambda f: dt.redecide(dt.DecisionEstimator(LogisticRegression(), f.m).fit(f.X, f.y8),
                           f.m.replace(priors=[0.2, 0.8]), train_priors=[1, -1]),
     ValueError, ["train_priors", "non-negative"]),
    ("redecide-train-priors-unknown-level",
     lambda f: dt.redecide(dt.DecisionEstimator(LogisticRegression(), f.m).fit(f.X, f.y8),
                           f.m.replace(priors=[0.2, 0.8]),
                           train_priors={"yes": 0.5, "maybe": 0.5}),
     ValueError, ["train_priors", "one value per level", "'maybe'"]),
    ("plot-curves-not-a-frame", lambda f: dt.plot_profit_curves("curves.csv"), TypeError,
     ["curves must be a DataFrame", "got str"]),
]

# every model of dtdecide.models: missing labels and misaligned pandas inputs at fit
MODELS = [dt.BenefitWeightedLogisticRegression, dt.CostSensitiveNaiveBayes,
          dt.FlatCostSensitiveClassifier, dt.HierarchicalCostSensitiveClassifier]
for _cls in MODELS:
    _n = _cls.__name__
    CASES += [
        (f"{_n}-y-none", lambda f, c=_cls: c().fit(f.X, _y8_missing(f)), ValueError,
         ["y contains missing values"]),
        (f"{_n}-y-string-na", lambda f, c=_cls: c().fit(f.X, _y8_missing(f, "string")),
         ValueError, ["y contains missing values"]),
        (f"{_n}-y-misaligned", lambda f, c=_cls: c().fit(f.X, pd.Series(f.y8, f.shifted)),
         ValueError, ["y has an index", "index of X"]),
        (f"{_n}-weight-misaligned",
         lambda f, c=_cls: c().fit(f.X, f.y8, sample_weight=pd.Series(np.ones(8), f.shifted)),
         ValueError, ["sample_weight has an index", "index of X"]),
        (f"{_n}-no-cases", lambda f, c=_cls: c().fit(f.X.iloc[:0], f.y8[:0]), ValueError,
         ["0 sample|no cases"]),
    ]


def _campaign(f):
    from dtdecide.policy import make_logged_campaign

    return make_logged_campaign(60, random_state=0)


def _rewards_with_action(f, action):
    from dtdecide.policy import policy_rewards

    data = _campaign(f)
    return policy_rewards(data.X, action(data.action), data.outcome, cv=2, random_state=0)


def _missing_action(dtype, value):
    def spoil(action):
        out = pd.array(action, dtype=dtype)
        out[3] = value
        return out
    return spoil


CASES += [
    # ------------------------------------------------------------ logged campaigns
    ("policy-action-none", lambda f: _rewards_with_action(f, _missing_action(object, None)),
     ValueError, ["action has 1 missing value", "drop those cases"]),
    ("policy-action-nan", lambda f: _rewards_with_action(f, _missing_action(object, np.nan)),
     ValueError, ["action has 1 missing value"]),
    ("policy-action-string-na",
     lambda f: _rewards_with_action(f, _missing_action("string", pd.NA)), ValueError,
     ["action has 1 missing value"]),
    ("policy-value-cost-text",
     lambda f: dt.policy_value("mail", _campaign(f).X, _campaign(f).action,
                               _campaign(f).outcome, costs={"mail": ["x"] * 60},
                               propensity=_campaign(f).propensity), TypeError,
     [r"costs\['mail'\]", "numbers"]),
    ("campaign-negative-size", lambda f: dt.make_logged_campaign(-1), ValueError,
     ["n_samples", "integer of at least 1", "-1"]),
    ("campaign-float-size", lambda f: dt.make_logged_campaign(10.5), ValueError,
     ["n_samples", "integer", "10.5"]),
    ("campaign-negative-noise", lambda f: dt.make_logged_campaign(10, noise_sd=-1),
     ValueError, ["noise_sd", "finite number >= 0", "-1"]),
]

def _cost_tree(f):
    """A revenue tree whose cost variable 'c' was an X column at fit time."""
    X = f.X.assign(c=[1.0, 2.0] * 4)
    return dt.ProfitTreeClassifier(decision_matrix=f.rev, max_depth=2, min_samples_leaf=1,
                                   min_samples_split=2).fit(X, f.y8)


CASES += [
    # ------------------------------------------------------------ exports
    ("sql-cost-column-number", lambda f: dt.to_sql(_cost_tree(f), cost_columns={"c": 5}),
     TypeError, ["cost_columns", "column names", r"\{'c': 5\}"]),
    ("sql-cost-column-empty", lambda f: dt.to_sql(_cost_tree(f), cost_columns={"c": ""}),
     TypeError, ["cost_columns", "non-empty str"]),
    ("sql-target-empty", lambda f: dt.to_sql(_cost_tree(f), target=""), TypeError,
     ["target", "non-empty str"]),
    ("sql-keep-columns-twice", lambda f: dt.to_sql(_cost_tree(f), keep_columns=["x", "x"]),
     ValueError, ["keep_columns", r"\['x'\] more than once"]),
    # the query returned two columns named x (the table's input and the leaf id)
    ("sql-leaf-column-named-like-an-input",
     lambda f: dt.to_sql(_cost_tree(f), leaf_column="x"), ValueError,
     ["leaf_column 'x' is also a column of the table", "keep_columns='\\*'",
      "two columns of that name"]),
    ("sql-decision-with-nul",
     lambda f: dt.to_sql(dt.ProfitTreeClassifier(
         decision_matrix=DecisionMatrix({"a\x00b": [10, -1], "skip": [0, 0]}, levels=LEVELS),
         max_depth=1, min_samples_leaf=1, min_samples_split=2).fit(f.X, f.y8)), ValueError,
     ["'a\\\\x00b'", "NUL character", "SQL text cannot hold"]),
    ("html-open-depth-negative",
     lambda f: dt.export_html(_cost_tree(f), "/tmp/never.html", open_depth=-1), ValueError,
     ["open_depth", "int >= 0", "-1"]),
    ("html-title-number", lambda f: dt.export_html(_cost_tree(f), "/tmp/never.html", title=5),
     TypeError, ["title", "str or None", "5"]),
    ("html-path-folder", lambda f: dt.export_html(_cost_tree(f), "/"), IsADirectoryError,
     ["path '/'", "folder"]),
    ("write-leaf-table-missing-text",
     lambda f: dt.write_leaf_table(pd.DataFrame({"rule": ["x > 1", None]}), "/tmp/never.md"),
     ValueError, ["table column 'rule'", "1 missing value", "fillna"]),
    ("leaf-table-seed-text", lambda f: dt.leaf_table(_cost_tree(f), random_state="x"),
     TypeError, ["random_state", "int >= 0", "'x'"]),
    ("campaign-seed-text", lambda f: dt.make_logged_campaign(10, random_state="x"),
     TypeError, ["random_state", "Generator", "'x'"]),
]

CASES += [
    ("from-json-text-too-long-for-a-path",
     lambda f: DecisionMatrix.from_json("x" * 10_000), ValueError,
     ["source", "neither JSON text", "readable file"]),
]


# ------------------------------------------------------------ files: leaf tables
def _file(tmp_path, name, content):
    path = tmp_path / name
    (path.write_bytes if isinstance(content, bytes) else path.write_text)(content)
    return path


# (id, file name, content, patterns of the ValueError of read_leaf_table)
LEAF_FILES = [
    ("csv-ragged", "t.csv", "a\n1\n2,3\n", ["t.csv", "cannot be read as a csv", "ParserError"]),
    ("csv-empty", "t.csv", "", ["t.csv", "cannot be read as a csv"]),
    ("csv-latin-1", "t.csv", "rule\nZ\xfcrich\n".encode("latin-1"),
     ["t.csv", "UnicodeDecodeError"]),
    ("json-broken", "t.json", "{not json", ["t.json", "cannot be read as a json", "JSON"]),
    ("json-array", "t.json", "[1, 2]", ["t.json", "not a dtdecide leaf-table JSON"]),
    ("json-no-columns", "t.json", '{"format": "dtdecide.leaf_table"}',
     ["t.json", "cannot be read as a json", "KeyError"]),
    ("markdown-prose", "t.md", "hello\nworld\n",
     ["t.md", "does not hold a Markdown table", "separator row"]),
    ("markdown-short-row", "t.md", "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 |\n",
     ["t.md", "row 2 has 1 cells", "header has 2"]),
    ("parquet-not-parquet", "t.parquet", b"not parquet at all",
     ["t.parquet", "cannot be read as a parquet"]),
]


@pytest.mark.parametrize("name, content, patterns",
                         [pytest.param(n, c, p, id=i) for i, n, c, p in LEAF_FILES])
def test_read_leaf_table_of_a_bad_file(tmp_path, name, content, patterns):
    if name.endswith(".parquet"):
        pytest.importorskip("pyarrow")
    path = _file(tmp_path, name, content)
    with pytest.raises(ValueError) as exc_info:
        dt.read_leaf_table(path)
    check_message(exc_info, patterns)


def test_a_folder_is_not_a_file_to_read(tmp_path):
    tree = dt.ProfitTreeClassifier(max_depth=1).fit(pd.DataFrame({"x": [0.0, 1.0]}), [0, 1])
    for call in (lambda: dt.read_leaf_table(tmp_path), lambda: dt.score_file(tree, tmp_path)):
        with pytest.raises(IsADirectoryError, match="is a folder, not a file"):
            call()


def test_markdown_leaf_table_round_trip_keeps_empty_cells(tmp_path):
    table = pd.DataFrame({"leaf": [1, 2], "rule": ["", "x > 1"], "ROI": [np.nan, 0.5]})
    path = dt.write_leaf_table(table, tmp_path / "t.md")
    pd.testing.assert_frame_equal(dt.read_leaf_table(path), table)


def _dot_labels(dot):
    """The node labels of DOT text, read as Graphviz reads a quoted string (``\\"`` a
    quote, ``\\\\`` a backslash, ``\\n`` a line break), one node statement per line."""
    import re

    statement = re.compile(r'  (\d+) \[label="((?:[^"\\\r\n]|\\.)*)"(?:, fillcolor="#\w+")?\];')
    labels = {}
    for line in dot.splitlines()[4:-1]:
        if " -> " not in line:
            m = statement.fullmatch(line)
            assert m, f"not one valid node statement: {line!r}"
            labels[int(m[1])] = re.sub(r"\\(.)", lambda e: "\n" if e[1] == "n" else e[1],
                                       m[2])
    return labels


def test_graphviz_labels_with_line_breaks_quotes_and_backslashes():
    """A decision or feature name with a line break wrote a raw one into the DOT text,
    splitting the node's statement over lines; quotes and backslashes stay escaped."""
    import shutil
    import subprocess

    odd = 'say "hi"\\\nnow'
    X = pd.DataFrame({"age\r\nin years": [20.0, 30.0, 40.0, 50.0]})
    m = DecisionMatrix({"ignore": [0, 0], odd: [-1, 9]}, levels=["no", "yes"])
    tree = dt.ProfitTreeClassifier(decision_matrix=m, min_samples_leaf=1,
                                   min_samples_split=2).fit(X, ["no", "no", "yes", "yes"])
    dot = dt.export_graphviz(tree)
    labels = _dot_labels(dot)
    assert sorted(labels) == [0, 1, 2]
    assert 'say "hi"\\\nnow: EP 9' in labels[2]
    assert "age\nin years <= 35" in labels[0]
    if shutil.which("dot"):  # Graphviz itself, where installed
        subprocess.run(["dot", "-Tcanon"], input=dot, text=True, check=True,
                       capture_output=True)


test_bad_input, test_case_ids_are_unique = catalogue_tests(CASES)


# ---------------------------------------------------------------------------- accepted
def test_nullable_posteriors_without_missing_values_decide_as_floats(f):
    expected = dt.decide(f.post, f.m, y=f.y).cases
    for frame in (f.frame.astype("Float64"), f.frame.astype(object)):
        got = dt.decide(frame, f.m, y=f.y).cases
        pd.testing.assert_frame_equal(got, expected)


def test_posterior_columns_in_another_order_are_matched_by_name(f):
    swapped = f.frame[["no", "yes"]]
    pd.testing.assert_frame_equal(dt.decide(swapped, f.m).cases, dt.decide(f.post, f.m).cases)


def test_a_large_capacity_is_no_limit(f):
    free = dt.decide(f.post, f.m).cases
    limited = dt.decide(f.post, f.m, capacity={"call": 10 ** 20}).cases
    assert limited["D_target"].tolist() == free["D_target"].tolist()


def test_nullable_cost_column_marks_the_missing_case(f):
    costs = pd.DataFrame({"c": pd.array([1.0, None, 1.0, 2.0], dtype="Float64")})
    res = dt.decide(f.post, f.rev, y=f.y, costs=costs)
    assert res.summary["n_missing"] == 1
    assert res.cases["D_target"].isna().tolist() == [False, True, False, False]


def test_nullable_case_costs_mark_the_missing_case(f):
    costs = pd.DataFrame({"C_FP": [1.0, 2, 3, 4], "C_FN": [1.0, 2, 3, 4], "C_TP": 0.0,
                          "C_TN": pd.array([0.0, None, 0, 0], dtype="Float64")})
    res = dt.decide(f.post, DecisionMatrix.from_cost_matrix(), costs=costs)
    assert res.summary["n_missing"] == 1
    assert res.cases["D_target"].isna().tolist() == [False, True, False, False]


def test_one_case_may_give_its_cost_as_a_number(f):
    res = dt.decide(f.post[:1], f.rev, y=f.y[:1], costs={"c": 2.0})
    assert res.cases["IC_target"].tolist() == [2.0]


def test_read_csv_of_a_file_path_that_is_not_utf8_names_it(tmp_path):
    path = tmp_path / "latin.csv"
    path.write_bytes("level,a\nZ\xfcrich,1\nb,0\n".encode("latin-1"))
    with pytest.raises(ValueError, match=r"latin\.csv: not UTF-8 text"):
        DecisionMatrix.read_csv(path)


def test_matrix_frame_is_matched_to_levels_and_decisions_by_name(f):
    """A frame whose rows (columns) are the levels (decisions) in another order: matched
    by name (it was taken by position: the consequences of 'no' became those of 'yes')."""
    frame = pd.DataFrame({"skip": [0, 0], "call": [-1, 10]}, index=["no", "yes"])
    assert DecisionMatrix(frame, levels=LEVELS, decisions=["call", "skip"]) == f.m
    knots = pd.DataFrame({"go": [5.0, -5.0]}, index=[10.0, 0.0])
    assert DecisionMatrix(knots, knots=[0, 10]).values[:, 0].tolist() == [-5.0, 5.0]
    # a default RangeIndex carries no labels: rows in the order given
    plain = pd.DataFrame([[10, 0], [-1, 0]], columns=["call", "skip"])
    assert DecisionMatrix(plain, levels=LEVELS) == f.m


def test_from_json_round_trip_and_bytes(f):
    for m in (f.m, f.rev, f.case):
        assert DecisionMatrix.from_json(m.to_json()) == m
        assert DecisionMatrix.from_json(m.to_json().encode()) == m


def test_models_accept_nullable_and_categorical_targets(f):
    for cls in MODELS:
        seed = {"random_state": 0} if "random_state" in cls().get_params() else {}
        plain = cls(**seed).fit(f.X, f.y8).predict(f.X)
        for y in (pd.Categorical(f.y8), pd.array(f.y8, dtype="string"), pd.Series(f.y8)):
            np.testing.assert_array_equal(cls(**seed).fit(f.X, y).predict(f.X), plain)


@pytest.mark.parametrize("cls", [dt.CostSensitiveNaiveBayes,
                                 dt.BenefitWeightedLogisticRegression])
def test_model_priors_by_label_are_matched_to_the_classes(f, cls):
    """A Series or dict of priors in another order than the classes is matched by label
    (a Series was taken by position: the priors of 'no' and 'yes' swapped)."""
    expected = cls(priors=[0.1, 0.9]).fit(f.X, f.y8).predict_proba(f.X)
    for priors in (pd.Series([0.9, 0.1], index=["yes", "no"]), {"yes": 0.9, "no": 0.1}):
        np.testing.assert_allclose(cls(priors=priors).fit(f.X, f.y8).predict_proba(f.X),
                                   expected)


def test_uplift_curve_of_nullable_columns(f):
    plain = dt.uplift_curve(f.score, f.treated, f.outcome)
    got = dt.uplift_curve(pd.Series(f.score, dtype="Float64"),
                          pd.Series(f.treated, dtype="Int64"),
                          pd.Series(f.outcome, dtype="Float64"))
    pd.testing.assert_frame_equal(got, plain)


def test_compare_models_takes_validation_by_default(f):
    data = {"train": (f.X, f.y8), "validation": (f.X, f.y8), "test": (f.X, f.y8)}
    assert dt.compare_models({"lr": f.lr}, data, f.m).attrs["select_role"] == "validation"
    data.pop("validation")
    assert dt.compare_models({"lr": f.lr}, data, f.m).attrs["select_role"] == "test"
    table = dt.compare_models({"lr": f.lr}, data, f.m, select_role="train")
    assert table.attrs["select_role"] == "train"


def test_scorer_in_a_cross_validation_keeps_working(f):
    """The folds of a search keep their index labels in X and y alike: no refusal."""
    from sklearn.model_selection import cross_val_score

    X = pd.concat([f.X] * 3, ignore_index=True).set_axis(range(100, 124))
    y = pd.Series(np.tile(f.y8, 3), index=X.index)
    scores = cross_val_score(dt.DecisionEstimator(LogisticRegression(), f.m), X, y, cv=3,
                             scoring=dt.make_profit_scorer(f.m))
    assert np.isfinite(scores).all()


def test_equivalent_priors_match_a_series_by_level(f):
    by_position = dt.equivalent_priors(f.m, priors=[0.2, 0.8])
    for priors in (pd.Series([0.8, 0.2], index=["no", "yes"]), {"no": 0.8, "yes": 0.2}):
        pd.testing.assert_series_equal(dt.equivalent_priors(f.m, priors=priors), by_position)


def test_train_priors_by_label_are_matched_to_the_levels(f):
    """decide(train_priors=Series) in another order than the levels: by label (it was
    taken by position), also for adjust_posteriors of a frame and DecisionEstimator."""
    m = f.m.replace(priors=[0.2, 0.8])
    by_label = pd.Series([0.7, 0.3], index=["no", "yes"])
    expected = dt.decide(f.post, m, train_priors=[0.3, 0.7]).cases
    pd.testing.assert_frame_equal(dt.decide(f.post, m, train_priors=by_label).cases, expected)
    np.testing.assert_allclose(
        dt.adjust_posteriors(f.frame, {"no": 0.8, "yes": 0.2}, by_label),
        dt.adjust_posteriors(f.post, [0.2, 0.8], [0.3, 0.7]))
    est = dt.DecisionEstimator(LogisticRegression(), m, train_priors=by_label).fit(f.X, f.y8)
    np.testing.assert_allclose(est.train_priors_, [0.3, 0.7])
    plain = dt.DecisionEstimator(LogisticRegression(), f.m).fit(f.X, f.y8)
    np.testing.assert_allclose(dt.redecide(plain, m, train_priors=by_label).train_priors_,
                               [0.3, 0.7])


def test_adjust_posteriors_of_a_frame(f):
    got = dt.adjust_posteriors(f.frame, [0.5, 0.5], [0.3, 0.7])
    np.testing.assert_allclose(got, np.full((4, 2), 0.5))


# ---------------------------------------------------------------------------- command line
@pytest.fixture(scope="module")
def cli(tmp_path_factory):
    """A training file, a decision file and a model fitted on them."""
    from dtdecide.cli import main

    root = tmp_path_factory.mktemp("cli_io")
    rng = np.random.default_rng(0)
    n = 300
    age = rng.integers(18, 80, n)
    frame = pd.DataFrame({"age": age, "region": rng.choice(["north", "south"], n),
                          "y": np.where(rng.random(n) < (age - 18) / 62, "yes", "no")})
    frame.to_csv(root / "train.csv", index=False)
    (root / "decisions.csv").write_text("level,call,skip\nno,-1,0\nyes,10,0\n")
    model = root / "m.dtdecide"
    assert main(["fit", str(root / "train.csv"), "--target", "y", "--decisions",
                 str(root / "decisions.csv"), "--max-depth", "2", "-o", str(model),
                 "--quiet"]) == 0
    return SimpleNamespace(root=root, frame=frame, model=model, main=main)


def _cli(cli, capsys, *argv):
    code = cli.main([str(a) for a in (*argv, "--quiet")])
    return code, capsys.readouterr().err


@pytest.mark.parametrize("argv, label", [
    (["fit", "{root}", "--target", "y"], "training data file"),
    (["fit", "{root}/train.csv", "--target", "y", "--decisions", "{root}"],
     "decision data set"),
    (["score", "{root}", "{root}/train.csv"], "model file"),
    (["score", "{model}", "{root}"], "data file"),
    (["leaf-table", "{model}", "--data", "{root}"], "data file"),
    (["prune-study", "{model}", "--validation", "{root}"], "validation data file"),
], ids=["fit-data", "fit-decisions", "score-model", "score-data", "leaf-table-data",
        "prune-study-validation"])
def test_cli_folder_given_for_a_file(cli, capsys, argv, label):
    """A folder where a file is expected: exit 2 naming it as a folder (was: 'does not
    exist', which it does)."""
    argv = [a.format(root=cli.root, model=cli.model) for a in argv]
    code, err = _cli(cli, capsys, *argv)
    assert code == 2
    assert f"{label} '{cli.root}' is a folder, not a file" in err


def test_cli_more_folds_than_rows(cli, capsys):
    code, err = _cli(cli, capsys, "fit", cli.root / "train.csv", "--target", "y", "--cv",
                     "1000", "-o", cli.root / "cv.dtdecide")
    assert code == 2
    assert "--cv 1000" in err and "300 rows" in err and "train.csv" in err


def test_cli_numbers_read_as_text_warn_naming_column_and_line(cli, capsys):
    bad = cli.frame.astype({"age": object})
    bad.loc[4, "age"] = "unknown"
    bad.to_csv(cli.root / "typo.csv", index=False)
    with pytest.warns(UserWarning) as record:
        code, _ = _cli(cli, capsys, "fit", cli.root / "typo.csv", "--target", "y",
                       "-o", cli.root / "typo.dtdecide")
    assert code == 0
    messages = [str(w.message) for w in record]
    assert any("typo.csv" in m and "column 'age'" in m and "'unknown' (line 6)" in m
               and "read as text" in m for m in messages), messages
    # a clean file gives no such warning
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        code, _ = _cli(cli, capsys, "fit", cli.root / "train.csv", "--target", "y",
                       "-o", cli.root / "clean.dtdecide")
    assert code == 0


def test_cli_warnings_are_one_line(cli, capsys):
    """A warning printed by the command line reads 'dtdecide <command>: warning: ...',
    without the source file and line of dtdecide's code."""
    bad = cli.frame.astype({"age": object})
    bad.loc[4, "age"] = "unknown"
    bad.to_csv(cli.root / "typo2.csv", index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        shown = []

        def show(message, category, filename, lineno, file=None, line=None):
            shown.append(warnings.formatwarning(message, category, filename, lineno, line))

        warnings.showwarning = show
        code, _ = _cli(cli, capsys, "fit", cli.root / "typo2.csv", "--target", "y",
                       "-o", cli.root / "typo2.dtdecide")
    assert code == 0
    assert shown and all(s.startswith("dtdecide fit: warning: ") for s in shown), shown
    assert not any(".py:" in s for s in shown)
    # outside the command line, warnings are formatted as usual again
    assert warnings.formatwarning is not None
    assert "UserWarning" in warnings.formatwarning("m", UserWarning, "f.py", 1, "")



def _new_cases(cli, n=None):
    frame = cli.frame.drop(columns=["y"])
    return frame if n is None else frame.head(n)


def test_score_damaged_gz_file_is_exit_2(cli, capsys):
    import gzip

    raw = gzip.compress(_new_cases(cli).to_csv(index=False).encode())
    for name, data in (("half.csv.gz", raw[: len(raw) // 2]), ("tiny.csv.gz", raw[:15]),
                       ("plain.csv.gz", _new_cases(cli).to_csv(index=False).encode())):
        (cli.root / name).write_bytes(data)
        for argv in (["score", cli.model, cli.root / name, "-o", cli.root / "s.csv"],
                     ["fit", cli.root / name, "--target", "age", "-o", cli.root / "g.dtdecide"]):
            code, err = _cli(cli, capsys, *argv)
            assert code == 2, (name, err)
            assert name in err and "could not be read" in err and "unexpected" not in err
    assert not (cli.root / "s.csv").exists()  # nothing half written


def test_score_text_in_a_numeric_column_names_the_row(cli, capsys):
    new = _new_cases(cli).astype({"age": object})
    new.loc[[120, 200], "age"] = "unknown"
    new.to_csv(cli.root / "late_text.csv", index=False)
    code, err = _cli(cli, capsys, "score", cli.model, cli.root / "late_text.csv",
                     "--chunk-size", "50", "-o", cli.root / "s.csv")
    assert code == 2
    assert "late_text.csv" in err and "chunk 3" in err
    assert "column 'age' was numeric at fit time" in err
    assert "data row 121 holds the text 'unknown'" in err
    # the API names it too
    with pytest.raises(TypeError, match=r"data row 121 holds the text 'unknown'"):
        dt.score_file(dt.load(cli.model), cli.root / "late_text.csv", chunk_size=50)


@pytest.mark.parametrize("kwargs, exc, patterns", [
    ({"data": "frame"}, TypeError, ["data must be the path", "DataFrame", "decide"]),
    ({"output": 5}, TypeError, ["output must be a path", "int"]),
    ({"keep": 5}, TypeError, ["keep must be a column name", "5"]),
    ({"keep": ["age", "age"]}, ValueError, [r"keep names the column\(s\) \['age'\] more than once"]),
    ({"keep": [LONG, LONG]}, ValueError,
     [r"keep names the column\(s\) \['x{76}\.\.\.\] more than once"]),
    ({"confidence": "yes"}, TypeError, ["confidence must be True or False", "'yes'"]),
], ids=["data-frame", "output-number", "keep-number", "keep-twice", "keep-twice-long",
        "confidence-text"])
def test_score_file_arguments(cli, kwargs, exc, patterns):
    data = kwargs.pop("data", cli.root / "train.csv")
    if isinstance(data, str):
        data = cli.frame
    with pytest.raises(exc) as exc_info:
        dt.score_file(dt.load(cli.model), data, **kwargs)
    check_message(exc_info, patterns)


def test_load_a_native_file_as_a_pickle_is_refused(cli):
    """format='joblib' on a dtdecide file: named as what it is (the message said it
    looked like a pickle; with allow_pickle=True the zip bytes were unpickled)."""
    from dtdecide.export import ModelFileError

    for allow in (False, True):
        with pytest.raises(ModelFileError, match="is a dtdecide model file, not a pickle"):
            dt.load(cli.model, format="joblib", allow_pickle=allow)


def test_score_a_row_longer_than_the_header(cli, capsys):
    lines = _new_cases(cli).to_csv(index=False).splitlines()
    lines[250] += ",7"
    (cli.root / "long_row.csv").write_text("\n".join(lines) + "\n")
    code, err = _cli(cli, capsys, "score", cli.model, cli.root / "long_row.csv")
    assert code == 2
    assert "line 251 has 3 fields, but the header has 2" in err
    assert "cannot be matched to the columns" in err and "shorter" not in err


@pytest.mark.parametrize("argv, patterns", [
    (["leaf-table", "{model}", "-o", "{root}/t.zzz"],
     ["--output", "t.zzz", "unknown file type '.zzz'", ".md"]),
    (["prune-study", "{model}", "--validation", "{root}/train.csv", "-o", "{root}/p.zzz"],
     ["--output", "unknown file type '.zzz'", ".parquet"]),
    (["prune-study", "{model}", "--validation", "{root}/train.csv", "--plot", "{root}/p.txt"],
     ["--plot", "unknown file type '.txt'", ".png"]),
    (["score", "{model}", "{root}/train.csv", "--keep", "age,age"],
     ["--keep names the column(s) ['age'] more than once"]),
    (["score", "{model}", "{root}/train.csv", "--keep", f"{LONG},{LONG}"],
     ["--keep names the column(s) ['" + "x" * 76 + "...] more than once"]),
    (["score", "{model}", "{root}/train.csv", "--keep", ""],
     ["--keep: expected a comma-separated list"]),
    (["fit", "{root}/train.csv", "--target", "y", "--exclude", "region,region"],
     ["--exclude names the column(s) ['region'] more than once"]),
    (["fit", "{root}/train.csv", "--target", "y", "--kind", "loss"],
     ["--kind", "give --decisions too"]),
    (["score", "{model}", "{root}/train.csv", "--sep", ";"],
     ["train.csv", "single column", "looks ','-separated"]),
], ids=["leaf-table-suffix", "prune-study-suffix", "plot-suffix", "keep-twice",
        "keep-twice-long", "keep-empty", "exclude-twice", "kind-without-decisions", "semicolon-for-a-comma-file"])
def test_cli_options_are_checked_before_any_work(cli, capsys, argv, patterns):
    if "--plot" in argv:
        pytest.importorskip("matplotlib")
    argv = [a.format(root=cli.root, model=cli.model) for a in argv]
    code, err = _cli(cli, capsys, *argv)
    assert code == 2, err
    assert "unexpected" not in err and "Traceback" not in err
    for pattern in patterns:
        assert pattern in err, (pattern, err)


def test_numbers_of_other_types_are_taken_by_decide(f):
    """Valid numbers of other types: a chunk size of np.uint8 (it overflowed in the
    chunk arithmetic), a Fraction threshold (numpy's isfinite refused it) and the
    largest np.uint64 capacity (refused as "not an integer" after rounding to a float)
    give the answers of plain ints and floats."""
    from fractions import Fraction

    def decisions(**kw):
        return dt.decide(f.post, f.m, **kw).cases["D_target"].tolist()

    assert decisions(chunk_size=np.uint8(1)) == decisions(chunk_size=1)
    assert decisions(threshold=Fraction(5, 2)) == decisions(threshold=2.5)
    assert decisions(capacity={"call": np.uint64(2 ** 64 - 1)}) == ["call"] * 4
