"""A classifier without a decision matrix refuses a target with an absurd number of classes.

An integer target with thousands of distinct values (an amount given to a classifier by
mistake) makes one class of each value; a classification tree's histograms and node
values grow with the classes (4,325 classes took 790 MB). The rule: more than 1,000
classes, or more than 100 classes and more classes than half the cases, is refused with
a ValueError naming ``y`` and pointing to ProfitTreeRegressor; a real multiclass target
stays accepted.
"""

import numpy as np
import pandas as pd
import pytest

from dtdecide import DecisionMatrix, ProfitTreeClassifier
from dtdecide.decision._validation import check_class_count
from dtdecide.models import (
    BenefitWeightedLogisticRegression,
    CostSensitiveNaiveBayes,
    FlatCostSensitiveClassifier,
    HierarchicalCostSensitiveClassifier,
)

REFUSED = r"y has {k} distinct values \(classes\) over {n} cases.*ProfitTreeRegressor"


def _amounts(n, k, seed=0):
    """``n`` cases whose integer target takes ``k`` distinct values, each at least once."""
    rng = np.random.default_rng(seed)
    y = np.concatenate([np.arange(k), rng.integers(0, k, n - k)]) * 7 + 100
    X = pd.DataFrame({"x": rng.normal(size=n), "z": rng.normal(size=n)})
    return X, rng.permutation(y)


def _msg(k, n):
    return REFUSED.format(k=f"{k:,}", n=f"{n:,}")


def test_an_integer_amount_is_refused_by_the_tree():
    X, y = _amounts(6000, 4325)
    with pytest.raises(ValueError, match=_msg(4325, 6000)):
        ProfitTreeClassifier(max_depth=3).fit(X, y)


def test_more_than_1000_classes_are_refused_whatever_the_cases():
    X, y = _amounts(5000, 1001)
    with pytest.raises(ValueError, match=_msg(1001, 5000)):
        ProfitTreeClassifier(max_depth=2).fit(X, y)


@pytest.mark.parametrize("n, k, refused", [
    (2000, 1000, False),  # at the limit
    (120, 100, False),  # 100 classes whatever the cases
    (202, 101, False),  # two cases a class
    (201, 101, True),  # fewer than two cases a class, beyond 100 classes
    (8, 5, False),  # tiny sets are not judged
])
def test_the_limits(n, k, refused):
    X, y = _amounts(n, k)
    est = ProfitTreeClassifier(max_depth=2)
    if refused:
        with pytest.raises(ValueError, match=_msg(k, n)):
            est.fit(X, y)
    else:
        assert est.fit(X, y).n_classes_ == k


def test_an_ordered_categorical_with_too_many_categories_is_refused():
    X, y = _amounts(3000, 1200)
    y = pd.Series(pd.Categorical(y, ordered=True))
    with pytest.raises(ValueError, match=_msg(1200, 3000)):
        ProfitTreeClassifier(max_depth=2).fit(X, y)


def test_string_labels_are_refused_too():
    X, y = _amounts(3000, 1500)
    with pytest.raises(ValueError, match=_msg(1500, 3000)):
        ProfitTreeClassifier(max_depth=2).fit(X, np.char.add("id", y.astype(str)))


def test_a_decision_matrix_sets_the_classes():
    # the matrix's levels are the classes: a target with other labels is refused there
    X, y = _amounts(400, 300)
    m = DecisionMatrix({"a": [1.0, 0.0], "b": [0.0, 1.0]}, levels=[100, 107])
    with pytest.raises(ValueError) as info:
        ProfitTreeClassifier(decision_matrix=m, max_depth=2).fit(X, y)
    assert "ProfitTreeRegressor" not in str(info.value)


def test_the_dask_fit_counts_the_cases():
    dd = pytest.importorskip("dask.dataframe")
    X, y = _amounts(3000, 1200)
    frame = X.assign(y=y)
    ddf = dd.from_pandas(frame, npartitions=3)
    with pytest.raises(ValueError, match=_msg(1200, 3000)):
        ProfitTreeClassifier(max_depth=2).fit(ddf[["x", "z"]], ddf["y"])
    small = dd.from_pandas(frame.iloc[:202].assign(y=np.arange(202) % 101), npartitions=2)
    assert ProfitTreeClassifier(max_depth=2).fit(small[["x", "z"]], small["y"]).n_classes_ == 101


@pytest.mark.parametrize("model", [
    BenefitWeightedLogisticRegression(),
    CostSensitiveNaiveBayes(),
    FlatCostSensitiveClassifier(ProfitTreeClassifier(max_depth=2)),
    HierarchicalCostSensitiveClassifier(),
], ids=lambda m: type(m).__name__)
def test_the_models_refuse_too(model):
    X, y = _amounts(3000, 1500)
    with pytest.raises(ValueError, match=_msg(1500, 3000)):
        model.fit(X, y)


def test_the_rule():
    check_class_count(1000, 2000)
    check_class_count(100, 100)
    check_class_count(3, 1)
    with pytest.raises(ValueError, match=r"^labels has 1,001 distinct"):
        check_class_count(1001, 10**6, name="labels")
    with pytest.raises(ValueError, match=r"101 distinct values \(classes\) over 200 cases"):
        check_class_count(101, 200)
