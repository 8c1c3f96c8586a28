"""Rules mention missing values only for inputs that had some in training (issue 13 §4)."""

import numpy as np
import pandas as pd

from dtdecide import DecisionMatrix, ProfitTreeClassifier
from dtdecide.export import export_rules, leaf_table

M = DecisionMatrix({"call": [10, -1], "skip": [0, 0]}, levels=["yes", "no"])


def fit(X, y):
    return ProfitTreeClassifier(decision_matrix=M, max_depth=2, min_samples_leaf=5,
                                min_samples_split=10).fit(X, y)


def test_no_missing_in_training_no_missing_in_rules():
    rng = np.random.default_rng(0)
    n = 200
    X = pd.DataFrame({"age": rng.uniform(20, 70, n), "job": rng.choice(["a", "b", "c"], n)})
    y = np.where((X["age"] > 45) & (X["job"] != "c"), "yes", "no")
    tree = fit(X, y)
    assert not tree.has_missing_in_fit_.any()
    rules = export_rules(tree) + " ".join(leaf_table(tree)["rule"])
    assert "missing" not in rules
    assert "job is unseen" in rules  # unseen labels still follow a branch, and it says so


def test_missing_in_training_is_spelled_out():
    rng = np.random.default_rng(1)
    n = 200
    age = rng.uniform(20, 70, n)
    age[::7] = np.nan
    job = rng.choice(["a", "b", "c"], n).astype(object)
    job[::9] = None
    X = pd.DataFrame({"age": age, "job": job})
    y = np.where((np.nan_to_num(age, nan=60) > 45) & (X["job"] != "c"), "yes", "no")
    tree = fit(X, y)
    assert tree.has_missing_in_fit_.tolist() == [True, True]
    rules = export_rules(tree)
    assert "age is missing" in rules and "job is missing or unseen" in rules
