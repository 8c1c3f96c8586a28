"""PruningStudy / select_subtree with a Dask validation set: the pandas selection."""

import numpy as np
import pytest

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")

from test_dask_fit import COLS, MATRIX  # noqa: E402
from test_dask_options import COST_ROWS, frames  # noqa: E402

from dtdecide import DecisionMatrix, PruningStudy, select_subtree  # noqa: E402
from dtdecide.tree import ProfitTreeClassifier, ProfitTreeRegressor  # noqa: E402

PRIORS = DecisionMatrix({"call": [5.0, -1.0], "skip": [0.0, 0.0]}, levels=["good", "bad"],
                        priors=[0.3, 0.7])
DEEP = dict(max_depth=6, min_samples_leaf=3)


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


@pytest.mark.parametrize("make, target, costs, params", [
    (lambda: ProfitTreeClassifier(decision_matrix=MATRIX, **DEEP), "y", ["offer"], {}),
    (lambda: ProfitTreeClassifier(decision_matrix=MATRIX, decision_rule="case", **DEEP),
     "y", ["offer"], {}),
    (lambda: ProfitTreeClassifier(decision_matrix=MATRIX, decision_rule="case", **DEEP),
     "y", ["offer"], {"pruning_sequence": "leaf"}),
    # prior-adjusted profit: the levels' frequencies come from every partition
    (lambda: ProfitTreeClassifier(decision_matrix=PRIORS, **DEEP), "y", None, {}),
    (lambda: ProfitTreeClassifier(decision_matrix=PRIORS, **DEEP), "y", None,
     {"measure": "lift"}),
    (lambda: ProfitTreeClassifier(decision_matrix=PRIORS, **DEEP), "y", None,
     {"measure": "misclassification"}),
    (lambda: ProfitTreeClassifier(decision_matrix=DecisionMatrix.from_cost_matrix(), **DEEP),
     "y01", COST_ROWS, {}),
    # squared error of a regressor: centred on the mean of every partition's target
    (lambda: ProfitTreeRegressor(**DEEP), "amt", None, {}),
], ids=["leaf", "case", "case_leaf_sequence", "priors", "lift", "misclassification", "cost_rows", "regressor"])
def test_dask_validation_set_selects_the_pandas_subtree(make, target, costs, params):
    frame, _ = frames(6)
    valid, dvalid = frames(7)
    est = make().fit(frame[COLS], frame[target], sample_weight=frame["w"],
                     costs=None if costs is None else frame[costs])

    def study(data):
        return PruningStudy(est, **params).fit(
            data[COLS], data[target], costs_valid=None if costs is None else data[costs],
            sample_weight_valid=data["w"])

    ref, got = study(valid), study(dvalid)
    assert ref.path_.n_subtrees > 3
    a = ref.results_["valid_measure"].to_numpy()
    b = got.results_["valid_measure"].to_numpy()
    assert np.allclose(a, b, rtol=1e-12, atol=1e-12, equal_nan=True)
    assert got.selected_index_ == ref.selected_index_
    assert np.array_equal(got.best_estimator_.tree_.children_left,
                          ref.best_estimator_.tree_.children_left)


def test_select_subtree_and_dask_errors():
    frame, _ = frames(8)
    valid, dvalid = frames(9)
    est = ProfitTreeClassifier(decision_matrix=MATRIX, **DEEP).fit(
        frame[COLS], frame["y"], costs=frame[["offer"]])
    ref = select_subtree(est, valid[COLS], valid["y"], costs_valid=valid[["offer"]])
    got = select_subtree(est, dvalid[COLS], dvalid["y"], costs_valid=dvalid[["offer"]])
    assert np.array_equal(got.tree_.children_left, ref.tree_.children_left)
    assert got.pruning_subtree_index_ == ref.pruning_subtree_index_
    other = dd.from_pandas(valid, npartitions=2)
    with pytest.raises(ValueError, match="y_valid has 2 partitions and X_valid has 5"):
        select_subtree(est, dvalid[COLS], other["y"], costs_valid=dvalid[["offer"]])
    with pytest.raises(TypeError, match="y_valid must be a Dask Series"):
        select_subtree(est, dvalid[COLS], valid["y"], costs_valid=dvalid[["offer"]])


@pytest.mark.parametrize("make, target, costs, params", [
    (lambda: ProfitTreeClassifier(decision_matrix=MATRIX, max_depth=4), "y", ["offer"], {}),
    # prior-adjusted: the folds' rows weigh by the levels' frequencies of all training rows
    (lambda: ProfitTreeClassifier(decision_matrix=PRIORS, max_depth=4,
                                  decision_rule="case"), "y", None, {}),
    # the folds' trees pruned along their leaf decisions
    (lambda: ProfitTreeClassifier(decision_matrix=MATRIX, max_depth=4,
                                  decision_rule="case"), "y", ["offer"],
     {"pruning_sequence": "leaf"}),
    (lambda: ProfitTreeRegressor(max_depth=4), "amt", None, {}),
], ids=["leaf", "case_priors", "case_leaf_sequence", "regressor"])
def test_cross_validation_on_dask_training_data(make, target, costs, params):
    frame, ddf = frames(10)
    est = make().fit(frame[COLS], frame[target], sample_weight=frame["w"],
                     costs=None if costs is None else frame[costs])

    def study(data):
        return PruningStudy(est, cv=3, random_state=0, **params).fit(
            X_train=data[COLS], y_train=data[target], sample_weight_train=data["w"],
            costs_train=None if costs is None else data[costs])

    ref, got = study(frame), study(ddf)
    assert ref.path_.n_subtrees > 2
    for column in ("cv_mean", "cv_se"):
        assert np.allclose(got.results_[column], ref.results_[column], rtol=1e-9,
                           atol=1e-12, equal_nan=True), column
    assert got.selected_index_ == ref.selected_index_
