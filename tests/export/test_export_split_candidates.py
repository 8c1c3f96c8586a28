"""tree.split_candidates: the splits of a node by the grower's own search, with what
each would decide; and split() on a criterion="profit" tree keeping the money impurity."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from dtdecide import DecisionMatrix, ProfitTreeClassifier, ProfitTreeRegressor
from dtdecide.datasets import load_bank_marketing
from dtdecide.export import leaf_table

SPLIT_ARGS = ["feature", "threshold", "categories", "missing"]


@pytest.fixture(scope="module")
def bank():
    full = load_bank_marketing(split="train")
    rows = slice(None, None, 4)
    return SimpleNamespace(X=full.data.iloc[rows], y=full.target.iloc[rows],
                           costs=full.costs.iloc[rows], m=full.decision_matrix)


def _tree_split(est, node):
    """The split the fitted tree made at ``node``, in split_candidates' terms."""
    t = est.tree_
    j = int(t.feature[node])
    if t.is_categorical[node]:
        labels = list(est.categories_[j])
        cats = [labels[c] for c in range(len(labels)) if t.cat_left[node, c]]
        thr = None
    else:
        cats, thr = None, float(t.threshold[node])
    return est.feature_names_in_[j], thr, cats, "left" if t.missing_left[node] else "right"


def _reaching(est, X, node):
    return est.decision_path(X)[:, node].toarray().ravel() > 0


def _row_split(row):
    thr = None if isinstance(row["categories"], list) else row["threshold"]
    return row["feature"], thr, row["categories"], row["missing"]


@pytest.mark.parametrize("kw", [
    dict(),
    dict(criterion="profit"),
    dict(criterion="entropy", max_bins=16),
])
def test_best_candidate_is_the_grown_split(bank, kw):
    est = ProfitTreeClassifier(decision_matrix=bank.m, max_depth=3, min_samples_leaf=30,
                               **kw).fit(bank.X, bank.y, costs=bank.costs)
    t = est.tree_
    for node in np.flatnonzero(t.children_left >= 0):
        cand = est.split_candidates(node, bank.X, bank.y, costs=bank.costs)
        best = cand.iloc[0]
        feature, thr, cats, missing = _tree_split(est, node)
        assert best["feature"] == feature
        if cats is None:
            assert best["threshold"] == thr and best["categories"] is None
        else:
            # categories absent from the node follow the missing side in both
            assert np.isnan(best["threshold"]) and best["categories"] == cats
        assert best["missing"] == missing
        left, right = int(t.children_left[node]), int(t.children_right[node])
        assert (best["n_left"], best["n_right"]) == (t.n_node_samples[left],
                                                    t.n_node_samples[right])
        # the criterion gain is the node's impurity decrease W(node) - W(l) - W(r)
        W = t.weighted_n_node_samples * t.impurity
        assert best["criterion_gain"] == pytest.approx(W[node] - W[left] - W[right],
                                                       rel=1e-9, abs=1e-9)
        assert (np.diff(cand["criterion_gain"]) <= 1e-12).all()  # best first
        # children's decisions as the tree took them
        assert best["decision_left"] == est.decisions_[t.node_decision[left]]
        assert best["EP_right"] == pytest.approx(t.node_expected[right, t.node_decision[right]])


def _bank_priors(bank):
    return bank.m.replace(priors=[0.3, 0.7])


@pytest.mark.parametrize("case", ["plain", "priors", "case_rule"])
def test_candidate_made_by_split_adds_its_profit_gain(bank, case):
    m, kw = bank.m, {}
    if case == "priors":
        m = _bank_priors(bank)
    elif case == "case_rule":
        kw = dict(decision_rule="case")
    est = ProfitTreeClassifier(decision_matrix=m, max_depth=1, min_samples_leaf=30,
                               **kw).fit(bank.X, bank.y, costs=bank.costs)
    leaf = 1
    cand = est.split_candidates(leaf, bank.X, bank.y, costs=bank.costs, n=None)
    assert len(cand) >= 10 and set(cand["feature"]) <= set(bank.X.columns)
    by_profit = est.split_candidates(leaf, bank.X, bank.y, costs=bank.costs, n=4, by="profit")
    assert (np.diff(by_profit["profit_gain"]) <= 1e-9).all()
    assert by_profit["profit_gain"].iloc[0] == pytest.approx(cand["profit_gain"].max())
    before = leaf_table(est).set_index("leaf")
    for _, row in pd.concat([cand.head(2), by_profit.head(2)]).iterrows():
        f, thr, cats, missing = _row_split(row)
        done = est.split(leaf, f, threshold=thr, categories=cats, missing=missing,
                         X=bank.X, y=bank.y, costs=bank.costs)
        t = done.tree_
        left, right = int(t.children_left[leaf]), int(t.children_right[leaf])
        table = leaf_table(done).set_index("leaf")
        assert (table.loc[left, "n"], table.loc[right, "n"]) == (row["n_left"], row["n_right"])
        assert table.loc[left, "weight"] == pytest.approx(row["weight_left"])
        gain = (table.loc[left, "total_profit"] + table.loc[right, "total_profit"]
                - before.loc[leaf, "total_profit"])
        assert row["profit_gain"] == pytest.approx(gain, abs=1e-6)
        ep_left = t.node_expected[left, t.node_decision[left]]
        assert row["EP_left"] == pytest.approx(ep_left)
        assert row["decision_right"] == done.decisions_[t.node_decision[right]]
        if case != "case_rule":
            assert row["decision_left"] == table.loc[left, "decision"]
        # the split made from the row is the tree's split with that row's rows
        x = bank.X[f]
        reach = _reaching(est, bank.X, leaf)
        goes = x.isin(cats) if cats is not None else x <= thr
        assert int((reach & goes.to_numpy()).sum()) == row["n_left"]


def test_profit_search_finds_the_most_profitable_threshold():
    """Slow twin: every threshold of one numeric input, the realised profit of the
    children's best decisions, against the best profit gain listed for that input."""
    rng = np.random.default_rng(3)
    n = 300
    X = pd.DataFrame({"x": rng.integers(0, 40, n).astype(float), "w": rng.normal(size=n)})
    p_yes = np.where((X["x"] > 12) & (X["x"] < 20), 0.6, 0.15)
    y = np.where(rng.uniform(size=n) < p_yes, "yes", "no")
    m = DecisionMatrix({"call": [10, -2], "skip": [0, 0]}, levels=["yes", "no"])
    est = ProfitTreeClassifier(decision_matrix=m, max_depth=1, min_samples_leaf=15,
                               max_bins=255).fit(X, y)
    cand = est.split_candidates(0, X, y, n=None)
    q = np.where((y == "yes")[:, None], [10.0, 0.0], [-2.0, 0.0])  # profit per decision
    x = X["x"].to_numpy()

    def best_sum(mask):
        return q[mask].sum(axis=0).max()

    brute = -np.inf
    values = np.unique(x)
    for lo, hi in zip(values[:-1], values[1:]):
        left = x <= (lo + hi) / 2
        if left.sum() >= 15 and (~left).sum() >= 15:
            brute = max(brute, best_sum(left) + best_sum(~left) - best_sum(np.ones(n, bool)))
    got = cand.loc[cand["feature"] == "x", "profit_gain"].max()
    assert got == pytest.approx(brute)
    assert brute > 0


def test_regressor_and_plain_trees():
    rng = np.random.default_rng(7)
    X = pd.DataFrame({"x": rng.uniform(0, 10, 300), "z": rng.choice(["a", "b", "c"], 300)})
    X.loc[::17, "x"] = np.nan
    y = X["x"].fillna(5).to_numpy() * 3 + (X["z"] == "b") * 6 + rng.normal(0, 1, 300)
    m = DecisionMatrix({"buy": [-20.0, 40.0], "wait": [0.0, 0.0]}, knots=[0.0, 40.0])
    reg = ProfitTreeRegressor(decision_matrix=m, max_depth=2, min_samples_leaf=10).fit(X, y)
    cand = reg.split_candidates(0, X, y)
    feature, thr, cats, missing = _tree_split(reg, 0)
    assert (cand.iloc[0]["feature"], cand.iloc[0]["threshold"]) == (feature, thr)
    assert cand.iloc[0]["missing"] == missing
    assert {"decision_left", "EP_left", "profit_gain"} <= set(cand.columns)
    plain = ProfitTreeRegressor(max_depth=2, min_samples_leaf=10).fit(X, y)
    cand = plain.split_candidates(1, X, y, n=None)
    assert "profit_gain" not in cand and "decision_left" not in cand
    assert set(cand["feature"]) == {"x", "z"}
    with pytest.raises(ValueError, match="by='profit' needs a tree fitted with a decision_matrix"):
        plain.split_candidates(0, X, y, by="profit")
    # a loss matrix shows expected losses
    loss = DecisionMatrix({"call": [0, 3], "skip": [8, 0]}, levels=["yes", "no"], kind="loss")
    yc = np.where(X["z"] == "b", "yes", "no")
    clf = ProfitTreeClassifier(decision_matrix=loss, max_depth=1, min_samples_leaf=5).fit(X, yc)
    cand = clf.split_candidates(0, X, yc)
    assert "EL_left" in cand and cand.iloc[0]["categories"] == ["b"]
    assert cand.iloc[0]["EL_left"] == pytest.approx(0.0) and cand.iloc[0]["profit_gain"] > 0


def test_split_of_a_profit_tree_keeps_the_money_impurity(bank):
    """A forced split of a criterion="profit" tree stores the money impurity its
    grower would: split a depth-1 tree's leaf as the depth-2 tree did."""
    kw = dict(decision_matrix=bank.m, criterion="profit", min_samples_leaf=30)
    deep = ProfitTreeClassifier(max_depth=2, **kw).fit(bank.X, bank.y, costs=bank.costs)
    shallow = ProfitTreeClassifier(max_depth=1, **kw).fit(bank.X, bank.y, costs=bank.costs)
    node = 1
    assert deep.tree_.children_left[node] >= 0
    f, thr, cats, missing = _tree_split(deep, node)
    done = shallow.split(node, f, threshold=thr, categories=cats, missing=missing,
                         X=bank.X, y=bank.y, costs=bank.costs)
    a, b = done.tree_, deep.tree_
    pairs = [(int(a.children_left[node]), int(b.children_left[node])),
             (int(a.children_right[node]), int(b.children_right[node]))]
    for i, j in pairs:
        assert a.n_node_samples[i] == b.n_node_samples[j]
        assert a.impurity[i] == pytest.approx(b.impurity[j], rel=1e-9)
    assert a.impurity[pairs[0][0]] != pytest.approx(0.5, abs=0.2)  # not a Gini in [0, 1)


def test_split_candidates_bad_input(bank):
    est = ProfitTreeClassifier(decision_matrix=bank.m, max_depth=1,
                               min_samples_leaf=30).fit(bank.X, bank.y, costs=bank.costs)
    args = dict(X=bank.X, y=bank.y, costs=bank.costs)
    with pytest.raises(ValueError, match="node=7 is not a node of this tree"):
        est.split_candidates(7, **args)
    with pytest.raises(ValueError, match="split_candidates needs the training rows"):
        est.split_candidates(0)
    with pytest.raises(ValueError, match="not the rows this tree was fitted on"):
        est.split_candidates(0, bank.X.iloc[:-5], bank.y.iloc[:-5], costs=bank.costs.iloc[:-5])
    with pytest.raises(ValueError, match="n must be a positive int"):
        est.split_candidates(0, n=0, **args)
    with pytest.raises(ValueError, match="by must be 'criterion' or 'profit'"):
        est.split_candidates(0, by="gain", **args)


def test_no_valid_split_gives_an_empty_table():
    X = pd.DataFrame({"x": np.arange(40.0)})
    y = np.where(np.arange(40) % 3 == 0, "yes", "no")
    m = DecisionMatrix({"call": [10, -2], "skip": [0, 0]}, levels=["yes", "no"])
    tree = ProfitTreeClassifier(decision_matrix=m, max_depth=1, min_samples_leaf=15).fit(X, y)
    leaf = int(np.argmin(tree.tree_.n_node_samples))
    assert tree.tree_.n_node_samples[leaf] < 30  # no split leaves 15 rows on each side
    cand = tree.split_candidates(leaf, X, y)
    assert cand.empty
    assert list(cand.columns) == list(tree.split_candidates(0, X, y).columns)
