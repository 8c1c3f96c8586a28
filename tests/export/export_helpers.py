"""Helpers for the export tests.

Besides trees grown by the real grower, the tests use trees with a *random structure*:
the real estimators with ``_grow`` replaced by a splitter that picks random inputs,
thresholds equal to observed values (so that ``x == threshold`` happens often) and
random category subsets and missing-value directions. Everything after growing (decision
statistics, ``apply``, ``decide``, ``predict_proba``) is the estimators' own code, so the
exporters are checked against the real scoring on shapes the grower might rarely make.
"""

import numpy as np
import pandas as pd

from dtdecide import DecisionMatrix
from dtdecide.tree import ProfitTreeClassifier, ProfitTreeRegressor
from dtdecide.tree._structure._tree import TreeStructure

JOBS = ["admin", "tech", "retired", "o'neil", 'say "hi"', "a|b"]


def random_structure(X, target, F, *, is_categorical, n_classes, rng, max_depth, min_rows=30):
    """A random tree over the code matrix ``X`` with true node statistics."""
    n_features = X.shape[1]
    width = int(np.nanmax(np.where(is_categorical, np.nanmax(X, axis=0) + 1, 0))) if is_categorical.any() else 0
    nodes = []  # dicts, in breadth-first order so that children have larger ids
    queue = [(np.arange(X.shape[0]), -1, 0)]
    while queue:
        rows, parent, depth = queue.pop(0)
        node = dict(rows=rows, parent=parent, depth=depth, left=-1, right=-1, feature=-1,
                    threshold=np.nan, is_cat=False, cat_left=np.zeros(width, bool),
                    missing_left=False)
        idx = len(nodes)
        nodes.append(node)
        if parent >= 0:
            p = nodes[parent]
            if p["left"] < 0:
                p["left"] = idx
            else:
                p["right"] = idx
        if depth >= max_depth or rows.size < min_rows or (depth > 0 and rng.random() < 0.1):
            continue
        for _ in range(5):
            j = int(rng.integers(n_features))
            x = X[rows, j]
            seen = x[~np.isnan(x)]
            if seen.size == 0:
                continue
            miss_left = bool(rng.random() < 0.5)
            if is_categorical[j]:
                cat_left = rng.random(width) < 0.5
                code = np.where(np.isnan(x), -1, x).astype(int)
                go_left = np.where(code >= 0, cat_left[np.maximum(code, 0)], miss_left)
                thr = np.nan
            else:
                thr = float(rng.choice(seen))
                cat_left = np.zeros(width, bool)
                with np.errstate(invalid="ignore"):
                    go_left = np.where(np.isnan(x), miss_left, x <= thr)
            if 0 < go_left.sum() < rows.size:
                node.update(feature=j, threshold=thr, is_cat=bool(is_categorical[j]),
                            cat_left=cat_left, missing_left=miss_left, split=go_left)
                break
        if node["feature"] >= 0:
            go_left = node.pop("split")
            queue.append((rows[go_left], idx, depth + 1))
            queue.append((rows[~go_left], idx, depth + 1))
            node["feature_set"] = True
    value, impurity = [], []
    for node in nodes:
        r = node["rows"]
        w = F[r]
        if n_classes is not None:
            v = np.bincount(target[r], weights=w, minlength=n_classes)
            p = v / v.sum()
            impurity.append(1.0 - float(np.sum(p * p)))
        else:
            y = target[r]
            v = np.array([w.sum(), (w * y).sum(), (w * y * y).sum()])
            impurity.append(max(v[2] / v[0] - (v[1] / v[0]) ** 2, 0.0))
        value.append(v)
    return TreeStructure.from_arrays(
        children_left=[nd["left"] for nd in nodes],
        children_right=[nd["right"] for nd in nodes],
        feature=[nd["feature"] for nd in nodes],
        threshold=[nd["threshold"] for nd in nodes],
        is_categorical=[nd["is_cat"] for nd in nodes],
        cat_left=np.array([nd["cat_left"] for nd in nodes]).reshape(len(nodes), width),
        missing_left=[nd["missing_left"] for nd in nodes],
        n_node_samples=[nd["rows"].size for nd in nodes],
        weighted_n_node_samples=[F[nd["rows"]].sum() for nd in nodes],
        value=np.array(value),
        impurity=impurity,
    )


class RandomTreeClassifier(ProfitTreeClassifier):
    """ProfitTreeClassifier whose structure is random (see the module docstring)."""

    def _grow(self, X_codes, target, F, *, loss_matrix, priors):
        return random_structure(
            X_codes, np.asarray(target), F, is_categorical=self.is_categorical_,
            n_classes=len(self.classes_), rng=np.random.default_rng(self.random_state),
            max_depth=self.max_depth,
        )


class RandomTreeRegressor(ProfitTreeRegressor):
    """ProfitTreeRegressor whose structure is random."""

    def _grow(self, X_codes, target, F, *, loss_matrix, priors):
        return random_structure(
            X_codes, np.asarray(target, dtype=float), F, is_categorical=self.is_categorical_,
            n_classes=None, rng=np.random.default_rng(self.random_state),
            max_depth=self.max_depth,
        )


def make_inputs(n, rng, *, unseen=False, missing=0.1):
    """Numeric inputs with ties and NaN, string and integer-labelled categoricals."""
    age = rng.integers(18, 80, n).astype(float)
    balance = np.round(rng.normal(1000, 3000, n), 2)
    score = rng.random(n)
    jobs = JOBS + (["student"] if unseen else [])
    job = rng.choice(np.array(jobs, dtype=object), n)
    region = rng.choice([1, 2, 3, 4], n)
    X = pd.DataFrame({"age": age, "balance": balance, "score": score})
    X["job"] = pd.Series(job, dtype=object)
    X["region"] = pd.Categorical(region, categories=[1, 2, 3, 4])
    for col in ("age", "balance", "job", "region"):
        hole = rng.random(n) < missing
        X.loc[hole, col] = None if col in ("job",) else np.nan
    return X


def class_target(X, rng):
    z = (
        0.03 * np.nan_to_num(X["age"].to_numpy(float), nan=40.0)
        + np.where(X["job"].isin(["tech", "o'neil"]), 1.0, 0.0)
        + rng.normal(0, 1, len(X))
    )
    return pd.Series(np.where(z > 2.5, "yes", np.where(z > 1.5, "maybe", "no")), name="y")


def revenue_matrix():
    return DecisionMatrix(
        [[30.0, 12.0, 0.0], [8.0, 5.0, 0.0], [0.0, 0.0, 0.0]],
        levels=["yes", "maybe", "no"],
        decisions=["call", "mail", "skip"],
        kind="revenue",
        costs={"call": "cost_call", "mail": 0.75},
    )


def add_costs(X, rng, missing=0.0):
    X = X.copy()
    c = np.round(rng.uniform(1.0, 9.0, len(X)), 2)
    if missing:
        c[rng.random(len(X)) < missing] = np.nan
    X["cost_call"] = c
    return X


# ---- hand-given structures (statistics from the data)
def structure_from_splits(X, target, F, n_classes, **arrays):
    """TreeStructure with the given split arrays and true node statistics of ``X``."""
    n_nodes = len(arrays["children_left"])
    dummy = TreeStructure.from_arrays(
        n_node_samples=np.zeros(n_nodes, dtype=int),
        value=np.zeros((n_nodes, 1)),
        impurity=np.zeros(n_nodes),
        **arrays,
    )
    path = dummy.decision_path(X).toarray().astype(bool)  # (rows, nodes)
    value = []
    for node in range(n_nodes):
        rows = path[:, node]
        w = F[rows]
        if n_classes is None:
            y = np.asarray(target, dtype=float)[rows]
            value.append([w.sum(), (w * y).sum(), (w * y * y).sum()])
        else:
            value.append(np.bincount(np.asarray(target)[rows], weights=w, minlength=n_classes))
    return TreeStructure.from_arrays(
        n_node_samples=path.sum(axis=0),
        weighted_n_node_samples=path.T.astype(float) @ F,
        value=np.array(value, dtype=float),
        impurity=np.zeros(n_nodes),
        **arrays,
    )


class FixedTreeClassifier(ProfitTreeClassifier):
    """Set ``splits`` (a dict of TreeStructure split arrays) on the instance before fit."""

    splits: dict = {}

    def _grow(self, X_codes, target, F, *, loss_matrix, priors):
        return structure_from_splits(X_codes, target, F, len(self.classes_), **self.splits)


class FixedTreeRegressor(ProfitTreeRegressor):
    splits: dict = {}

    def _grow(self, X_codes, target, F, *, loss_matrix, priors):
        return structure_from_splits(X_codes, target, F, None, **self.splits)


# The hand-computed tree of the SQL and leaf-table tests, on columns (age, job) with jobs
# a, b, c: root age <= 20 (missing right); node 2 job in {c} (missing and unseen left).
HAND_SPLITS = dict(
    children_left=[1, -1, 3, -1, -1],
    children_right=[2, -1, 4, -1, -1],
    feature=[0, -1, 1, -1, -1],
    threshold=[20.0, np.nan, np.nan, np.nan, np.nan],
    missing_left=[False, False, True, False, False],
    is_categorical=[False, False, True, False, False],
    cat_left=[[False] * 3, [False] * 3, [False, False, True], [False] * 3, [False] * 3],
)


def interval_case(n_rows, n_fit, *, seed=8):
    """A regression tree with an interval matrix on ``make_inputs`` data (spend ~ age)."""
    rng = np.random.default_rng(seed)
    X = make_inputs(n_rows, rng)
    y = pd.Series(
        np.nan_to_num(X["age"].to_numpy(float), nan=40.0) * 10 + rng.normal(0, 50, len(X)),
        name="spend",
    )
    m = DecisionMatrix(
        [[-50.0, 0.0], [100.0, 10.0], [900.0, 20.0]],
        knots=[0.0, 300.0, 800.0],
        decisions=["premium", "basic"],
    )
    est = RandomTreeRegressor(decision_matrix=m, max_depth=5, random_state=5)
    return est.fit(X[:n_fit], y[:n_fit]), X, y


def loss_case(n_rows, n_fit, *, seed=6):
    """A classification tree with a three-level loss matrix and priors."""
    rng = np.random.default_rng(seed)
    X = make_inputs(n_rows, rng)
    y = class_target(X, rng)
    m = DecisionMatrix(
        [[0.0, 4.0], [1.0, 2.0], [3.0, 0.0]],
        levels=["yes", "maybe", "no"],
        decisions=["act", "wait"],
        kind="loss",
        priors=[0.2, 0.3, 0.5],  # posteriors in SQL are the prior-adjusted ones
    )
    est = RandomTreeClassifier(decision_matrix=m, max_depth=5, random_state=2)
    return est.fit(X[:n_fit], y[:n_fit]), X, y


def fixed(cls, splits, **params):
    est = cls(**params)
    est.splits = splits
    return est
