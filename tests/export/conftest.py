"""Fixtures for the export tests (helpers live in export_helpers.py)."""

import numpy as np
import pytest
from export_helpers import (
    RandomTreeClassifier,
    add_costs,
    class_target,
    make_inputs,
    revenue_matrix,
)


@pytest.fixture(scope="session")
def train_data():
    rng = np.random.default_rng(11)
    X = add_costs(make_inputs(3000, rng), rng)
    y = class_target(X, rng)
    return X, y


@pytest.fixture(scope="session")
def revenue_tree(train_data):
    X, y = train_data
    return RandomTreeClassifier(decision_matrix=revenue_matrix(), max_depth=6, random_state=3).fit(X, y)


@pytest.fixture(scope="session")
def score_data():
    """100,000 rows with missing values, unseen categories and missing costs."""
    rng = np.random.default_rng(12)
    X = add_costs(make_inputs(100_000, rng, unseen=True), rng, missing=0.02)
    y = class_target(X, rng)
    return X, y
