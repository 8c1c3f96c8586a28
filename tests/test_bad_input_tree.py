"""A catalogue of bad inputs to the profit trees, their studies and the policy trees.

Completes ``tests/test_bad_input.py`` with what real data bring to the trees: pandas
nullable and Arrow dtypes, object columns of unusual values, non-text column names,
Dask collections, the options of ``fit_recommended`` and the editing methods. Every bad
case asserts the exception type and that the message names the offending parameter,
column or file and says what was expected (each pattern must be found in the message);
the accepted inputs assert the same tree as the plain float input.
"""

import datetime
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from bad_input_catalogue import catalogue_tests, check_message
from scipy import sparse
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.tree import DecisionTreeClassifier

import dtdecide as dt
from dtdecide import DecisionMatrix
from dtdecide.policy import PolicyTree, make_logged_campaign, policy_rewards

LEVELS = ["yes", "no"]
PARAMS = {"max_depth": 3, "min_samples_leaf": 2, "min_samples_split": 4}


@pytest.fixture(scope="module")
def f():
    """Small valid objects; each case spoils exactly one thing."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"x": rng.normal(size=60), "z": rng.integers(0, 5, 60).astype(float)})
    y = np.where(X["x"] + rng.normal(scale=0.5, size=60) > 0, "yes", "no")
    m = DecisionMatrix({"call": [10, -1], "skip": [0, 0]}, levels=LEVELS)
    rev = DecisionMatrix({"call": [10, 0], "skip": [0, 0]}, levels=LEVELS, kind="revenue",
                         costs={"call": "c"})
    knots = DecisionMatrix({"invest": [-5, 5], "wait": [0, 0]}, knots=[-1, 1])
    case = DecisionMatrix.case_specific(levels=LEVELS, decisions=["call", "skip"])
    tree = dt.ProfitTreeClassifier(decision_matrix=m, **PARAMS).fit(X, y)
    numbered = X.set_axis([0, 1], axis=1)  # pd.DataFrame(array): column names 0, 1
    campaign = make_logged_campaign(300, effect="step", random_state=0)
    return SimpleNamespace(
        X=X, y=y, m=m, rev=rev, knots=knots, case=case, tree=tree, numbered=numbered,
        numbered_tree=dt.ProfitTreeClassifier(decision_matrix=m, **PARAMS).fit(numbered, y),
        leaf=int(np.flatnonzero(tree.tree_.children_left == -1)[0]),
        campaign=campaign,
        policy=_policy().fit(campaign.X, campaign.action, campaign.outcome),
    )


def _policy(**kw):
    return PolicyTree(**{"outcome_model": LinearRegression(),
                         "propensity_model": LogisticRegression(), "cv": 2,
                         "random_state": 0, **kw})


def _clf(f, **kw):
    return dt.ProfitTreeClassifier(**{"decision_matrix": f.m, **PARAMS, **kw})


def _reg(f, **kw):
    return dt.ProfitTreeRegressor(**{"decision_matrix": f.knots, **PARAMS, **kw})


def _objects(values):
    """An object column of 60 rows repeating ``values``."""
    return pd.Series(list(values) * (60 // len(values)), dtype=object)


def _shifted(n):
    """Cost values indexed 5, 6, ...: not the rows of X."""
    return pd.Series(np.ones(n), index=range(5, 5 + n))


def _cost_tree(f, **kw):
    """A tree whose matrix reads the cost column "c" (taken from X at fit)."""
    return _clf(f, decision_matrix=f.rev, **kw).fit(f.X.assign(c=1.5), f.y)


def _same_tree(a, b):
    ta, tb = a.tree_, b.tree_
    return (ta.n_nodes == tb.n_nodes and np.array_equal(ta.feature, tb.feature)
            and np.allclose(ta.threshold, tb.threshold, equal_nan=True))


# (id, call(f), exception type, patterns every message must match)
CASES = [
    # ------------------------------------------------------------ column names
    # names that are not text still name the columns: never paired by position
    ("numbered-columns-reordered",
     lambda f: f.numbered_tree.predict(f.numbered[[1, 0]]), ValueError,
     ["feature names should match", "same order"]),
    ("numbered-columns-renamed",
     lambda f: f.numbered_tree.predict(f.X), ValueError,
     ["feature names should match", "unseen at fit time", "- x", "missing", "- 0"]),
    ("mixed-name-columns-reordered",
     lambda f: _clf(f).fit(f.X.set_axis(["x", 1], axis=1), f.y)
     .predict(f.X.set_axis(["x", 1], axis=1)[[1, "x"]]), ValueError,
     ["feature names should match", "same order"]),
    ("numbered-columns-reordered-decide",
     lambda f: f.numbered_tree.decide(f.numbered[[1, 0]]), ValueError,
     ["feature names should match", "same order"]),
    ("names-equal-as-text", lambda f: _clf(f).fit(f.X.set_axis(["0", 0], axis=1), f.y),
     ValueError, ["X has duplicated column names", r"\['0'\]", "as text", "unique"]),
    ("names-duplicated-numbers", lambda f: _clf(f).fit(f.X.set_axis([0, 0], axis=1), f.y),
     ValueError, ["X has duplicated column names", r"\['0'\]", "unique"]),
    # ------------------------------------------------------------ X values and dtypes
    ("object-column-of-lists",
     lambda f: _clf(f).fit(f.X.assign(o=_objects([[1], [2]])), f.y), TypeError,
     ["X column 'o'", "cannot be category labels", "unhashable", "expected numbers, text"]),
    ("object-column-of-dicts",
     lambda f: _clf(f).fit(f.X.assign(o=_objects([{1: 2}, {2: 3}])), f.y), TypeError,
     ["X column 'o'", "cannot be category labels"]),
    # dates held as Python objects are refused as a datetime64 column is (each date
    # would otherwise be a category of its own)
    ("object-column-of-timestamps",
     lambda f: _clf(f).fit(f.X.assign(o=_objects(list(pd.date_range("2020", periods=2)))),
                           f.y), TypeError,
     ["X column 'o'", "holding datetime values", "neither numeric nor categorical",
      "days since a date"]),
    ("object-column-of-dates",
     lambda f: _clf(f).fit(f.X.assign(o=_objects([datetime.date(2020, 1, d) for d in (1, 2)])),
                           f.y), TypeError, ["X column 'o'", "holding date values"]),
    ("object-column-of-durations",
     lambda f: _clf(f).fit(f.X.assign(o=_objects([datetime.timedelta(1), datetime.timedelta(2)])),
                           f.y), TypeError, ["X column 'o'", "holding timedelta values"]),
    ("datetime-column", lambda f: _clf(f).fit(f.X.assign(d=pd.date_range("2020", periods=60)),
                                              f.y), TypeError,
     ["X column 'd'", "datetime64", "neither numeric nor categorical"]),
    ("timedelta-column",
     lambda f: _clf(f).fit(f.X.assign(d=pd.to_timedelta(np.arange(60), "D")), f.y), TypeError,
     ["X column 'd'", "timedelta64", "neither numeric nor categorical"]),
    ("period-column",
     lambda f: _clf(f).fit(f.X.assign(d=pd.period_range("2020", periods=60, freq="D")), f.y),
     TypeError, ["X column 'd'", "period", "neither numeric nor categorical"]),
    ("predict-numeric-column-as-dates",
     lambda f: f.tree.predict(f.X.assign(z=_objects([datetime.date(2020, 1, 1)] * 2))),
     TypeError, ["X column 'z'", "holding date values"]),
    ("structured-array",
     lambda f: _clf(f).fit(f.X.to_records(index=False), f.y), TypeError,
     ["structured array", r"fields \['x', 'z'\]", r"pd.DataFrame\(X\)"]),
    ("structured-array-predict", lambda f: f.tree.predict(f.X.to_records(index=False)),
     TypeError, ["structured array", "DataFrame"]),
    # an array's infinite value is named by its column (the fitted name by position)
    ("predict-array-infinity",
     lambda f: f.tree.predict(np.c_[f.X["x"], np.r_[np.inf, f.X["z"][1:]]]), ValueError,
     ["infinity in column 'z'", "only NaN"]),
    ("fit-array-infinity",
     lambda f: _clf(f).fit(np.c_[f.X["x"], np.r_[-np.inf, f.X["z"][1:]]], f.y), ValueError,
     ["infinity in column 'x1'", "only NaN"]),
    ("sparse-matrix", lambda f: _clf(f).fit(sparse.csr_matrix(f.X.to_numpy()), f.y),
     TypeError, ["Sparse input is not supported", "dense array or a DataFrame"]),
    # scipy's dok_matrix is a dict: still the sparse message, not the dict one
    ("sparse-dok-matrix", lambda f: f.tree.predict(sparse.dok_matrix(f.X.to_numpy())),
     TypeError, ["Sparse input is not supported"]),
    ("complex-column", lambda f: _clf(f).fit(f.X.assign(c=f.X["x"] + 1j), f.y), ValueError,
     ["X column 'c' is complex"]),
    ("series-as-X", lambda f: _clf(f).fit(f.X["x"], f.y), ValueError,
     ["got a pandas Series", r"X.to_frame\(\)"]),
    ("no-rows", lambda f: _clf(f).fit(f.X[:0], f.y[:0]), ValueError,
     ["0 sample", "minimum of 1"]),
    ("no-columns", lambda f: _clf(f).fit(f.X[[]], f.y), ValueError,
     ["0 feature", "minimum of 1"]),
    ("predict-numeric-column-as-text",
     lambda f: f.tree.predict(f.X.astype({"z": str})), TypeError,
     ["X column 'z'", "numeric at fit time", "non-numeric"]),
    ("classifier-y-mixed-types",
     lambda f: dt.ProfitTreeClassifier().fit(f.X, np.array([1, "a"] * 30, dtype=object)),
     ValueError, ["y: Unknown label type", "mixes labels of several types", "one type"]),
    ("classifier-y-continuous",
     lambda f: dt.ProfitTreeClassifier().fit(f.X, f.X["x"].to_numpy()), ValueError,
     ["y: Unknown label type: continuous"]),
    ("regressor-decide-y-text",
     lambda f: _reg(f).fit(f.X, f.X["x"]).decide(f.X, f.y), ValueError,
     ["y must be numeric", "ProfitTreeRegressor", r"\['(yes|no)'\]"]),
    ("regressor-decide-y-dates",
     lambda f: _reg(f).fit(f.X, f.X["x"]).decide(f.X, pd.date_range("2020", periods=60)),
     ValueError, ["y must be numeric", "datetime64"]),
    ("regressor-y-datetime",
     lambda f: _reg(f).fit(f.X, pd.date_range("2020", periods=60)), ValueError,
     ["y must be numeric", "ProfitTreeRegressor", "datetime64"]),
    ("regressor-y-durations",
     lambda f: _reg(f).fit(f.X, pd.to_timedelta(np.arange(60), "D")), ValueError,
     ["y must be numeric", "timedelta64"]),
    ("regressor-y-mixed-objects",
     lambda f: _reg(f).fit(f.X, np.r_[np.arange(59).astype(object), ["a"]]), ValueError,
     ["y must be numeric", r"such as \['a'\]"]),
    ("regressor-y-nullable-missing",
     lambda f: _reg(f).fit(f.X, pd.array([1] * 59 + [None], dtype="Int64")), ValueError,
     ["y contains NaN", "finite"]),
    ("regressor-y-complex", lambda f: _reg(f).fit(f.X, np.ones(60) + 1j), ValueError,
     ["y must be numeric", "complex"]),
    ("X-none", lambda f: _clf(f).fit(None, f.y), TypeError,
     ["X must be an array or a DataFrame", "NoneType"]),
    ("X-dict-of-columns", lambda f: f.tree.predict({"x": [0.0], "z": [1.0]}), TypeError,
     ["X must be an array or a DataFrame", "dict", r"pd.DataFrame\(X\)"]),
    # ------------------------------------------------------------ editing and pruning
    ("split-threshold-text",
     lambda f: _clf(f).fit(f.X, f.y).split(f.leaf, "x", threshold="a", X=f.X, y=f.y),
     TypeError, ["threshold must be a number", "'a'"]),
    ("split-threshold-list",
     lambda f: _clf(f).fit(f.X, f.y).split(f.leaf, "x", threshold=[1.0], X=f.X, y=f.y),
     TypeError, ["threshold must be a number", r"\[1.0\]"]),
    ("prune-unknown-option", lambda f: f.tree.prune(alpha=0.1), TypeError,
     ["prune", "unexpected keyword argument 'alpha'"]),
    # scikit-learn's signature is cost_complexity_pruning_path(X, y): here no data
    ("pruning-path-with-data", lambda f: f.tree.cost_complexity_pruning_path(f.X, f.y),
     TypeError, ["cost_complexity_pruning_path takes no data", "training statistics"]),
    # ------------------------------------------------------------ costs
    # a Series in a dict of costs is aligned with X as a frame of costs is
    ("fit-cost-dict-series-misaligned",
     lambda f: _clf(f, decision_matrix=f.rev).fit(f.X, f.y, costs={"c": _shifted(60)}),
     ValueError, [r"costs\['c'\] has an index", "index of X", "align them first"]),
    ("decide-cost-dict-series-misaligned",
     lambda f: _cost_tree(f).decide(f.X, f.y, costs={"c": _shifted(60)}), ValueError,
     [r"costs\['c'\] has an index", "align them first"]),
    ("case-rule-decision-cost-dict-misaligned",
     lambda f: _cost_tree(f, decision_rule="case").predict_decision(
         f.X, costs={"c": _shifted(60)}), ValueError, [r"costs\['c'\] has an index"]),
    ("study-costs-valid-misaligned",
     lambda f: dt.PruningStudy(_cost_tree(f)).fit(
         f.X, f.y, costs_valid=pd.DataFrame({"c": _shifted(60)})), ValueError,
     ["costs_valid has an index", "index of X_valid", "align them first"]),
    ("study-costs-valid-dict-misaligned",
     lambda f: dt.PruningStudy(_cost_tree(f)).fit(f.X, f.y, costs_valid={"c": _shifted(60)}),
     ValueError, [r"costs_valid\['c'\] has an index", "index of X_valid"]),
    ("fit-cost-column-2d",
     lambda f: _clf(f, decision_matrix=f.rev).fit(f.X, f.y, costs={"c": np.ones((60, 2))}),
     ValueError, ["costs column 'c'", r"one value per case \(60\)", r"shape \(60, 2\)"]),
    # costs whose sums over the cases overflow: the leaf totals were inf or NaN
    ("fit-cost-column-overflow",
     lambda f: _clf(f, decision_matrix=f.rev).fit(f.X, f.y, costs={"c": np.full(60, 1e308)}),
     ValueError, ["costs are too large", "overflows", "1e[+]308", "rescale"]),
    ("fit-cost-column-overflow-profit-case",
     lambda f: _clf(f, decision_matrix=f.rev, criterion="profit", decision_rule="case").fit(
         f.X.assign(c=np.tile([1e308, -1e308], 30)), f.y),
     ValueError, ["costs are too large", "overflows"]),
    ("fit-cost-rows-overflow",
     lambda f: _clf(f, decision_matrix=f.case, criterion="profit").fit(
         f.X, f.y, costs=pd.DataFrame({"C_FP": np.full(60, 1e308), "C_FN": 1.0,
                                       "C_TP": 0.0, "C_TN": 0.0})),
     ValueError, ["costs are too large", "overflows"]),
    ("fit-case-specific-overflow",
     lambda f: _clf(f, decision_matrix=f.case, decision_rule="case").fit(
         f.X, f.y, costs=np.full((60, 2, 2), -1e308)),
     ValueError, ["costs are too large", "overflows"]),
    ("fit-regressor-cost-column-overflow",
     lambda f: _reg(f, criterion="profit", decision_matrix=DecisionMatrix(
         {"invest": [-5, 5], "wait": [0, 0]}, knots=[-1, 1], kind="revenue",
         costs={"invest": "c"})).fit(f.X.assign(c=1e308), f.X["x"]),
     ValueError, ["costs are too large", "overflows"]),
    # ------------------------------------------------------------ studies
    ("study-regressor-y-text",
     lambda f: dt.PruningStudy(_reg(f).fit(f.X, f.X["x"])).fit(f.X, f.y), ValueError,
     ["y_valid must be numeric", "ProfitTreeRegressor", r"\[.(yes|no).\]"]),
    ("study-plain-regressor-y-text",
     lambda f: dt.PruningStudy(dt.ProfitTreeRegressor(max_depth=2).fit(f.X, f.X["x"]))
     .fit(f.X, f.y), ValueError, ["y_valid must be numeric"]),
    ("study-regressor-y-datetime",
     lambda f: dt.PruningStudy(_reg(f).fit(f.X, f.X["x"])).fit(
         f.X, pd.date_range("2020", periods=60)), ValueError,
     ["y_valid must be numeric", "datetime64"]),
    ("study-not-a-profit-tree",
     lambda f: dt.PruningStudy(DecisionTreeClassifier().fit(f.X, f.y)).fit(f.X, f.y),
     TypeError, ["estimator must be a fitted ProfitTreeClassifier or ProfitTreeRegressor",
                 "DecisionTreeClassifier"]),
    # text has a split method: it is no splitter
    ("study-cv-text", lambda f: dt.PruningStudy(f.tree, cv="5").fit(X_train=f.X, y_train=f.y),
     ValueError, ["cv must be an integer >= 2 or a splitter", "'5'"]),
    ("subtrees-by-size-not-a-profit-tree",
     lambda f: dt.best_subtrees_by_size(DecisionTreeClassifier().fit(f.X, f.y)), TypeError,
     ["estimator must be a fitted ProfitTreeClassifier", "DecisionTreeClassifier"]),
    ("subtree-of-size-not-a-profit-tree",
     lambda f: dt.best_subtree_of_size(DecisionTreeClassifier().fit(f.X, f.y), 2), TypeError,
     ["estimator must be a fitted ProfitTreeClassifier"]),
    ("study-n-jobs-zero",
     lambda f: dt.PruningStudy(f.tree, cv=3, n_jobs=0).fit(X_train=f.X, y_train=f.y),
     ValueError, ["n_jobs must be None or a non-zero integer", "got 0"]),
    ("decide-confidence-seed-text",
     lambda f: f.tree.decide(f.X, f.y, confidence=True, random_state="x"), TypeError,
     ["random_state must be an int >= 0", "'x'"]),
    ("X-list-of-records", lambda f: f.tree.apply([{"x": 0.0, "z": 1.0}]), TypeError,
     ["X must be an array or a DataFrame", "a list of dicts", r"pd.DataFrame\(X\)"]),
    ("study-seed-bool",
     lambda f: dt.PruningStudy(f.tree, cv=3, random_state=True).fit(X_train=f.X, y_train=f.y),
     TypeError, ["random_state must be an int >= 0", "True"]),
    ("recommend-seed-text", lambda f: dt.fit_recommended(_clf(f), f.X, f.y, random_state="x"),
     TypeError, ["random_state must be an int >= 0", "'x'"]),
    ("study-more-folds-than-rows",
     lambda f: dt.PruningStudy(f.tree, cv=10).fit(X_train=f.X[:6], y_train=f.y[:6]),
     ValueError, ["cv=10 cannot split the 6 training rows", "fewer folds"]),
    # ------------------------------------------------------------ fit_recommended
    ("recommend-more-folds-than-cases-of-a-class",
     lambda f: dt.fit_recommended(_clf(f), f.X[:6], f.y[:6]), ValueError,
     ["cv=5 cannot split the 6 training rows", "members in each class", "fewer folds"]),
    ("recommend-not-a-tree", lambda f: dt.fit_recommended("tree", f.X, f.y), TypeError,
     ["estimator must be a ProfitTreeClassifier or ProfitTreeRegressor", "str"]),
    ("recommend-sklearn-tree",
     lambda f: dt.fit_recommended(DecisionTreeClassifier(), f.X, f.y), TypeError,
     ["estimator must be a ProfitTreeClassifier", "DecisionTreeClassifier"]),
    ("recommend-without-matrix",
     lambda f: dt.fit_recommended(dt.ProfitTreeClassifier(), f.X, f.y), ValueError,
     ["decision_matrix=None", "recommended candidates", "candidates="]),
    ("recommend-cv-text", lambda f: dt.fit_recommended(_clf(f), f.X, f.y, cv="5"),
     ValueError, ["cv must be None, an integer >= 2 or a splitter", "'5'"]),
    ("recommend-cv-float", lambda f: dt.fit_recommended(_clf(f), f.X, f.y, cv=2.5),
     ValueError, ["cv must be None, an integer >= 2", "2.5"]),
    ("recommend-candidates-not-dicts",
     lambda f: dt.fit_recommended(_clf(f), f.X, f.y, candidates=["gini"]), TypeError,
     [r"candidates\[0\] must be a dict of parameters", "'gini'"]),
    ("recommend-candidates-one-dict",
     lambda f: dt.fit_recommended(_clf(f), f.X, f.y, candidates={"criterion": "gini"}),
     TypeError, ["candidates must be a list of dicts", "dict"]),
    ("recommend-candidates-unknown-parameter",
     lambda f: dt.fit_recommended(_clf(f), f.X, f.y, candidates=[{"depth": 2}]),
     ValueError, [r"candidates\[0\]", r"\['depth'\] are not parameters",
                  "ProfitTreeClassifier", "max_depth"]),
    # the validation rows are checked as one set before they are joined to the training
    # rows for cross-validation (the message named the joined rows: "120 and 65")
    ("recommend-y-valid-length",
     lambda f: dt.fit_recommended(_clf(f), f.X, f.y, X_valid=f.X, y_valid=f.y[:5]),
     ValueError, ["y_valid must have one value per case", r"\(60\)", "got 5"]),
    ("recommend-y-valid-misaligned",
     lambda f: dt.fit_recommended(_clf(f), f.X, f.y, X_valid=f.X,
                                  y_valid=pd.Series(f.y, index=range(5, 65))),
     ValueError, ["y_valid has an index", "index of X_valid", "align them first"]),
    ("recommend-weight-valid-length",
     lambda f: dt.fit_recommended(_clf(f), f.X, f.y, X_valid=f.X, y_valid=f.y,
                                  sample_weight_valid=np.ones(5)), ValueError,
     ["sample_weight_valid", r"one value per case \(60\)"]),
    ("recommend-costs-valid-misaligned",
     lambda f: dt.fit_recommended(
         _clf(f, decision_matrix=f.rev), f.X, f.y, costs={"c": np.ones(60)}, X_valid=f.X,
         y_valid=f.y, costs_valid=pd.DataFrame({"c": _shifted(60)})), ValueError,
     ["costs_valid has an index", "index of X_valid"]),
    ("recommend-costs-valid-length",
     lambda f: dt.fit_recommended(_clf(f, decision_matrix=f.case), f.X, f.y,
                                  costs=np.ones((60, 2, 2)), X_valid=f.X, y_valid=f.y,
                                  costs_valid=np.ones((5, 2, 2))), ValueError,
     ["costs_valid must have one entry per case", r"\(60\)", "got 5"]),
    ("recommend-cost-column-length",
     lambda f: dt.fit_recommended(_clf(f, decision_matrix=f.rev), f.X, f.y,
                                  costs={"c": np.ones(5)}), ValueError,
     [r"costs\['c'\] must have one entry per case", r"\(60\)", "got 5"]),
    ("decide-case-specific-without-costs",
     lambda f: _clf(f, decision_matrix=f.case).fit(f.X, f.y, costs=np.ones((60, 2, 2)))
     .decide(f.X, f.y), ValueError,
     ["costs", "case-specific consequences", r"\(n_samples, n_levels, n_decisions\)"]),
    ("recommend-y-length", lambda f: dt.fit_recommended(_clf(f), f.X, f.y[:5]), ValueError,
     ["y must have one value per case", r"\(60\)", "got 5"]),
    # ------------------------------------------------------------ policy trees
    ("policy-rewards-text",
     lambda f: _policy().fit(f.campaign.X, f.campaign.action, None,
                             rewards=np.full((300, 3), "a")), TypeError,
     ["rewards must be numbers", "every decision for every case"]),
    ("policy-outcome-none",
     lambda f: _policy().fit(f.campaign.X, f.campaign.action, None), ValueError,
     ["outcome is None", "rewards="]),
    # the nuisance models read X as given: their error names them and the way out
    ("policy-text-column-for-the-nuisance-models",
     lambda f: _policy(outcome_model=None, propensity_model=None).fit(
         f.campaign.X.assign(c=["a", "b", "c"] * 100), f.campaign.action,
         f.campaign.outcome), ValueError,
     ["propensity_model HistGradientBoostingClassifier could not be fitted on X",
      "could not convert string", "'category' columns", "rewards="]),
    ("policy-date-column-for-the-nuisance-models",
     lambda f: _policy().fit(f.campaign.X.assign(d=pd.date_range("2020", periods=300)),
                             f.campaign.action, f.campaign.outcome), TypeError,
     ["could not be fitted on X", "encode text and date columns"]),
    ("policy-cost-text",
     lambda f: _policy().fit(f.campaign.X, f.campaign.action, f.campaign.outcome,
                             costs={"call": ["a"] * 300}), TypeError,
     [r"costs\['call'\] must be numbers"]),
    ("policy-decide-rewards-text",
     lambda f: f.policy.decide(f.campaign.X, rewards=np.full((300, 3), "a")), TypeError,
     ["rewards must be numbers"]),
]


test_bad_input, test_case_ids_are_unique = catalogue_tests(CASES)


# ---------------------------------------------------------------------------- accepted
def test_numbered_columns_are_matched_by_name(f):
    expected = f.tree.predict(f.X)
    assert (f.numbered_tree.predict(f.numbered) == expected).all()
    # the same names read back from a file (as text), or an array by position
    assert (f.numbered_tree.predict(f.numbered.set_axis(["0", "1"], axis=1))
            == expected).all()
    assert (f.numbered_tree.predict(f.X.to_numpy()) == expected).all()
    assert _same_tree(f.numbered_tree, f.tree)


# ---------------------------------------------------------------- a bool for a number
# scikit-learn's constraints let True pass for an int (bool is an Integral): refused,
# in memory, on Dask, in regrow and in the policy tree
BOOL_FOR_NUMBER = [
    (dt.ProfitTreeClassifier, "max_depth"),
    (dt.ProfitTreeClassifier, "min_samples_leaf"),
    (dt.ProfitTreeClassifier, "min_impurity_decrease"),
    (dt.ProfitTreeClassifier, "ccp_alpha"),
    (dt.ProfitTreeClassifier, "posterior_smoothing"),
    (dt.ProfitTreeClassifier, "time_limit"),
    (dt.ProfitTreeClassifier, "n_jobs"),
    (dt.ProfitTreeClassifier, "random_state"),
    (dt.ProfitTreeRegressor, "max_depth"),
    (dt.ProfitTreeRegressor, "min_samples_leaf"),
    (PolicyTree, "max_depth"),
    (PolicyTree, "min_action_support"),
]


@pytest.mark.parametrize("cls, param", BOOL_FOR_NUMBER,
                         ids=[f"{c.__name__}-{p}" for c, p in BOOL_FOR_NUMBER])
def test_a_bool_is_no_number(f, cls, param):
    est = cls(**{param: True})
    assert getattr(est, param) is True  # stored as given, validated in fit
    y = np.where(f.y == "yes", "a", "b") if cls is PolicyTree else f.y
    if cls is dt.ProfitTreeRegressor:
        y = f.X["x"].to_numpy()
    args = (y, f.X["x"].to_numpy()) if cls is PolicyTree else (y,)
    with pytest.raises(ValueError) as exc_info:
        est.fit(f.X, *args)
    check_message(exc_info, [f"'{param}' parameter of {cls.__name__}", "must be",
                              "Got True", "a bool is not a number"])


def test_a_bool_is_no_number_on_dask_and_in_regrow(f):
    dd = pytest.importorskip("dask.dataframe")
    with pytest.raises(ValueError, match="'max_depth' parameter.*a bool is not a number"):
        _clf(f, max_depth=True).fit(dd.from_pandas(f.X, npartitions=2),
                                    dd.from_pandas(pd.Series(f.y), npartitions=2))
    with pytest.raises(ValueError, match="regrow: The 'max_depth' parameter.*a bool"):
        _clf(f).fit(f.X, f.y).regrow(f.leaf, f.X, f.y, max_depth=True)


def test_booleans_stay_accepted_where_a_bool_is_meant(f):
    assert _clf(f, ordinal=True).fit(f.X, f.y).is_ordinal_
    assert not _clf(f, use_priors=False).fit(f.X, f.y).use_priors_
    assert _clf(f, max_depth=np.int64(3), n_jobs=np.int64(2)).fit(f.X, f.y).get_depth() <= 3


def test_policy_tree_takes_the_rewards_of_policy_rewards(f):
    """fit(rewards=policy_rewards(...)), as its documentation says (the Rewards object
    raised a raw TypeError from numpy), equals fit(rewards=the frame of rewards)."""
    c = f.campaign
    rewards = policy_rewards(c.X, c.action, c.outcome, decisions=c.decisions,
                             outcome_model=LinearRegression(),
                             propensity_model=LogisticRegression(), cv=2, random_state=0)
    a = _policy(decisions=c.decisions).fit(c.X, c.action, None, rewards=rewards)
    b = _policy(decisions=c.decisions).fit(c.X, c.action, None, rewards=rewards.rewards)
    assert (a.predict(c.X) == b.predict(c.X)).all()
    assert _same_tree(a.profit_tree_, b.profit_tree_)


def test_regression_targets_of_nullable_and_boolean_dtypes(f):
    t = f.X["x"].to_numpy()
    plain = _reg(f).fit(f.X, t)
    assert _same_tree(_reg(f).fit(f.X, pd.array(t, dtype="Float64")), plain)
    assert _same_tree(_reg(f).fit(f.X, t.astype(object)), plain)
    flags = f.y == "yes"
    assert _same_tree(_reg(f).fit(f.X, flags), _reg(f).fit(f.X, flags.astype(float)))


def test_too_many_categories_name_the_column():
    n = 70_000  # past the 65535 categories of a binned column
    X = pd.DataFrame({"client": [f"{i:05d}" for i in range(n)]})
    y = np.where(np.arange(n) >= 66_000, "yes", "no")
    with pytest.warns(dt.IdentifierColumnWarning), pytest.raises(
            ValueError, match="X column 'client' has 70000 categories.*at most 65535"):
        dt.ProfitTreeClassifier(max_depth=2).fit(X, y)
    dd = pytest.importorskip("dask.dataframe")
    # on Dask the codes past 65535 wrapped round in the binned dtype: a tree that
    # could not see the split at client 66000, grown without a word
    with pytest.raises(ValueError, match="X column 'client' has 70000 categories"):
        dt.ProfitTreeClassifier(max_depth=2).fit(dd.from_pandas(X, npartitions=2),
                                                 dd.from_pandas(pd.Series(y), npartitions=2))


def test_values_near_the_float_limits_bin_without_warnings(f):
    """Binning through the lookup grid overflowed to inf for such values (then binned by
    the binary search, so the tree was right, but numpy warned on every fit)."""
    import warnings

    x = f.X["x"].to_numpy().copy()
    x[:2] = [1.79e308, -1.79e308]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        tree = _clf(f).fit(f.X.assign(x=x), f.y)
        assert (tree.predict(f.X.assign(x=x)) == tree.predict(f.X.assign(x=x))).all()
        tiny = _clf(f).fit(f.X.assign(x=f.X["x"] * 1e-310), f.y)
    assert tiny.get_n_leaves() == f.tree.get_n_leaves()
    # adjacent values near the limits still split between them
    X = pd.DataFrame({"x": np.r_[np.full(30, 1.7e308), np.full(30, 1.79e308)]})
    y = np.r_[["a"] * 30, ["b"] * 30]
    tree = dt.ProfitTreeClassifier(max_depth=1, min_samples_leaf=1).fit(X, y)
    assert np.isfinite(tree.tree_.threshold[0]) and (tree.predict(X) == y).all()


@pytest.mark.parametrize("rule", ["leaf", "case"])
def test_large_costs_whose_sums_fit_are_kept(f, rule):
    """Costs near 1e306 whose sums over the 60 cases stay finite: accepted, the leaf
    figures finite (the overflow check refuses only sums past the largest float)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        tree = _clf(f, decision_matrix=f.rev, criterion="profit", decision_rule=rule).fit(
            f.X.assign(c=np.tile([1e306, -1e306], 30)), f.y)
    assert np.isfinite(tree.tree_.cost_sum).all()
    assert np.isfinite(tree.tree_.node_expected).all()


def test_more_threads_than_the_system_starts(f, monkeypatch):
    """n_jobs=10**6 raised threading's bare RuntimeError after starting thousands of
    threads; the pool now says what n_jobs asked for (the threads it started are
    stopped). The system's limit is stood in for by a worker that fails on the third."""
    from dtdecide import _parallel

    real, started = _parallel._Worker, []

    def worker(name):
        if len(started) == 2:
            raise RuntimeError("can't start new thread")
        started.append(real(name))
        return started[-1]

    monkeypatch.setattr(_parallel, "_Worker", worker)
    with pytest.raises(ValueError, match=r"n_jobs asks for 8 threads, but the system could "
                                         r"not start more than 3.*n_jobs=-1"):
        _clf(f, n_jobs=8).fit(f.X, f.y)
    assert not any(w.thread.is_alive() for w in started)


# ------------------------------------------------------------ real-data dtypes accepted
def _dtype_variants():
    return {
        "nullable-Int64": lambda X: X.astype({"b": "Int64"}),
        "nullable-Float64": lambda X: X.astype({"a": "Float64", "b": "Float64"}),
        "string": lambda X: X.astype({"c": "string"}),
        "category": lambda X: X.astype({"c": "category"}),
        "arrow": lambda X: X.astype({"a": "double[pyarrow]", "b": "double[pyarrow]",
                                     "c": "string[pyarrow]"}),
        "shuffled-index": lambda X: X.set_axis(np.random.default_rng(2).permutation(len(X))),
    }


@pytest.fixture(scope="module")
def mixed():
    rng = np.random.default_rng(1)
    n = 300
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.integers(0, 9, n).astype(float),
                      "c": rng.choice(["u", "v", "w"], n).astype(object)})
    X.loc[::7, "a"] = np.nan
    X.loc[::11, "b"] = np.nan
    X.loc[::13, "c"] = None
    y = np.where(X["a"].fillna(0) + (X["c"] == "v") + rng.normal(scale=0.7, size=n) > 0.3,
                 "yes", "no")
    return X, y, rng.uniform(0.5, 3, n)


@pytest.mark.parametrize("variant", list(_dtype_variants()))
@pytest.mark.parametrize("options", [{}, {"criterion": "profit"}, {"decision_rule": "case"},
                                     {"honest_fraction": 0.4, "random_state": 0},
                                     {"search": "exact", "max_depth": 2}],
                         ids=["gini", "profit", "case", "honest", "exact"])
def test_nullable_arrow_and_category_dtypes_grow_the_float_tree(f, mixed, variant, options):
    """pandas' nullable (with pd.NA), string, Arrow and category columns, and a shuffled
    index with y and costs aligned to it, grow the tree of the plain float/object
    frame and decide alike."""
    if variant == "arrow":
        pytest.importorskip("pyarrow")
    X, y, cost = mixed
    ref = _clf(f, decision_matrix=f.rev, **options).fit(X, y, costs={"c": cost})
    Xv = _dtype_variants()[variant](X)
    costs = pd.DataFrame({"c": cost}, index=Xv.index)
    tree = _clf(f, decision_matrix=f.rev, **options).fit(Xv, pd.Series(y, index=Xv.index),
                                                          costs=costs)
    assert _same_tree(tree, ref)
    assert (np.asarray(tree.predict_decision(Xv, costs=costs))
            == np.asarray(ref.predict_decision(X, costs={"c": cost}))).all()


def test_arrow_tables_keep_their_column_names(f):
    """A pyarrow Table (as a polars frame: the dataframe interchange protocol) is read as
    a frame: its names are the tree's inputs and are checked at scoring (as an array its
    columns were paired by position, a reordered table silently re-paired); its cost
    columns are taken by name."""
    pa = pytest.importorskip("pyarrow")
    table = pa.Table.from_pandas(f.X, preserve_index=False)
    tree = _clf(f).fit(table, f.y)
    assert list(tree.feature_names_in_) == ["x", "z"] and _same_tree(tree, f.tree)
    assert (f.tree.predict(table) == f.tree.predict(f.X)).all()
    with pytest.raises(ValueError, match="same order"):
        f.tree.predict(table.select(["z", "x"]))
    with_costs = pa.Table.from_pandas(f.X.assign(c=1.5), preserve_index=False)
    cost_tree = _clf(f, decision_matrix=f.rev).fit(with_costs, f.y)
    assert cost_tree.cost_features_ == ("c",)
    assert cost_tree.decide(with_costs, f.y).summary["n_cases"] == 60
