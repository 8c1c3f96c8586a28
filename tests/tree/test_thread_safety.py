"""One fitted tree scoring from 8 threads at once gives exactly the single-thread results.

A fitted estimator is read-only at scoring time (web services share one model between
request threads): ``predict``, ``predict_proba``, ``apply``, ``predict_decision`` and
``decide`` (leaf and case rule, with unseen categories, missing values and costs) must
not share scratch state between calls.
"""

import threading
import warnings

import numpy as np
import pandas as pd
import pytest

from dtdecide import DecisionMatrix, ProfitTreeClassifier, ProfitTreeRegressor

N_THREADS = 8


def _data(n, seed):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "age": np.where(rng.random(n) < 0.05, np.nan, rng.normal(45, 12, n)),
        "job": pd.Series(rng.choice(["admin", "tech", "sales", "new"], n)),
        "balance": rng.gamma(2.0, 500.0, n),
    })
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-(X["age"].fillna(45) - 50) / 8)),
                 "yes", "no")
    costs = pd.DataFrame({"c": rng.uniform(1, 4, n)})
    return X, y, costs


@pytest.fixture(scope="module")
def fitted():
    X, y, costs = _data(3_000, 0)
    X = X.assign(job=X["job"].replace("new", "admin"))  # "new" is unseen when scoring
    m = DecisionMatrix({"call": [15.0, 0.0], "skip": [0.0, 0.0]}, levels=["yes", "no"],
                       kind="revenue", costs={"call": "c"})
    leaf = ProfitTreeClassifier(decision_matrix=m, max_depth=6, min_samples_leaf=10)
    case = ProfitTreeClassifier(decision_matrix=m, max_depth=5, decision_rule="case")
    reg = ProfitTreeRegressor(max_depth=6)
    return (leaf.fit(X, y, costs=costs), case.fit(X, y, costs=costs),
            reg.fit(X[["age", "balance"]], X["balance"] * 0.1 + np.nan_to_num(X["age"])))


def _run_together(calls):
    """Run every call in its own thread, all released at once; returns their results."""
    barrier = threading.Barrier(len(calls))
    results = [None] * len(calls)
    errors = []

    def work(k):
        try:
            barrier.wait()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                results[k] = calls[k]()
        except Exception as exc:  # reported below, with the thread's call
            errors.append((k, exc))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    return results


def _each(fn):
    """Eight calls, each on its own rows (so that no thread could pass for another)."""
    parts = [_data(4_000 + 250 * k, 10 + k) for k in range(N_THREADS)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        alone = [fn(*part) for part in parts]
    together = _run_together([lambda part=part: fn(*part) for part in parts])
    return alone, together


def test_predictions_from_eight_threads(fitted):
    leaf, case, reg = fitted

    def score(X, y, costs):
        return (leaf.predict(X), leaf.predict_proba(X), leaf.apply(X),
                leaf.predict_decision(X), case.predict_decision(X, costs=costs),
                reg.predict(X[["age", "balance"]]))

    alone, together = _each(score)
    for a, b in zip(alone, together):
        for x, z in zip(a, b):
            np.testing.assert_array_equal(x, z)


def test_decide_from_eight_threads(fitted):
    leaf, case, _ = fitted

    def decide(X, y, costs):
        return (leaf.decide(X, y, costs=costs), case.decide(X, y, costs=costs),
                leaf.decide(X, confidence=True, n_resamples=20))

    alone, together = _each(decide)
    for a, b in zip(alone, together):
        for x, z in zip(a, b):
            pd.testing.assert_frame_equal(x.cases, z.cases)
            pd.testing.assert_series_equal(x.summary, z.summary)


def test_same_rows_from_eight_threads(fitted):
    """All threads on the very same frame (shared input objects are only read)."""
    leaf, _, _ = fitted
    X, y, costs = _data(20_000, 99)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = leaf.decide(X, y, costs=costs)
    results = _run_together([lambda: leaf.decide(X, y, costs=costs)] * N_THREADS)
    for res in results:
        pd.testing.assert_frame_equal(res.cases, expected.cases)
        pd.testing.assert_series_equal(res.summary, expected.summary)
