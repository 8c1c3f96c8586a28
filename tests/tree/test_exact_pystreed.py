"""search="exact" against STreeD (pystreed's instance-cost-sensitive classifier).

STreeD optimises trees on binary features with one cost vector per case, each leaf taking
the label of least total cost. On binary 0/1 inputs (one threshold each, no missing
values) with case-specific consequences ``Q[i, t, d]`` that do not depend on the level,
its optimum and ours must be the same tree value: STreeD's least total regret
``sum_i max_d q(i, d) - q(i, d_leaf)`` is the largest training profit minus a constant.
Skipped when pystreed is not installed (it is optional: .ci/run installs it when it can).
"""

import numpy as np
import pandas as pd
import pytest

from dtdecide import DecisionMatrix, ProfitTreeClassifier

try:  # pystreed imports scikit-survival; any import failure means: no oracle here
    from pystreed import STreeDInstanceCostSensitiveClassifier
except Exception as exc:  # noqa: BLE001
    pytest.skip(f"pystreed is not usable here: {exc}", allow_module_level=True)


def _problem(seed, n, n_features, n_decisions):
    rng = np.random.default_rng(seed)
    Xb = rng.integers(0, 2, (n, n_features))
    q = rng.normal(size=(n, n_decisions))
    q[:, 0] += 1.5 * (Xb[:, 0] ^ Xb[:, 1]) - 0.5  # an interaction greedy cannot see
    return Xb, q


@pytest.mark.parametrize("seed,depth,n_decisions", [(0, 2, 3), (1, 2, 2), (2, 1, 3),
                                                    (3, 2, 4)])
def test_exact_matches_streed(seed, depth, n_decisions):
    n, n_features = 240, 6
    Xb, q = _problem(seed, n, n_features, n_decisions)
    regret = q.max(axis=1, keepdims=True) - q  # non-negative costs per case and label
    streed = STreeDInstanceCostSensitiveClassifier(max_depth=depth, time_limit=60)
    streed.fit(Xb, regret)
    streed_regret = float(regret[np.arange(n), streed.predict(Xb)].sum())

    decisions = [f"d{k}" for k in range(n_decisions)]
    m = DecisionMatrix.case_specific(levels=["a", "b"], decisions=decisions)
    Q = np.repeat(q[:, None, :], 2, axis=1)  # the same consequences at either level
    y = np.where(np.arange(n) % 2 == 0, "a", "b")
    X = pd.DataFrame(Xb.astype(float), columns=[f"x{j}" for j in range(n_features)])
    ours = ProfitTreeClassifier(decision_matrix=m, search="exact", max_depth=depth,
                                min_samples_leaf=1, min_samples_split=2).fit(X, y, costs=Q)
    assert ours.search_gap_ == 0.0
    our_regret = float(q.max(axis=1).sum() - ours.search_profit_)
    assert our_regret == pytest.approx(streed_regret, rel=1e-9, abs=1e-9)
    # and the profit of our tree's own decisions is that value
    leaf_d = ours.tree_.node_decision[ours.apply(X)]
    assert float(q[np.arange(n), leaf_d].sum()) == pytest.approx(ours.search_profit_)
