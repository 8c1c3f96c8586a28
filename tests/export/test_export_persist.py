"""save/load: joblib (opt-in) and skops round trips score identically; tampering is caught.

The native format has its own tests in test_export_native.py."""

import joblib
import numpy as np
import pandas as pd
import pytest
from export_helpers import RandomTreeRegressor, make_inputs

from dtdecide import DecisionMatrix
from dtdecide.export import export_rules, load, save, to_sql


def assert_scores_identically(a, b, X, y, costs=None):
    pd.testing.assert_frame_equal(
        a.decide(X, y, costs=costs).cases, b.decide(X, y, costs=costs).cases, check_exact=True
    )
    assert np.array_equal(a.apply(X), b.apply(X))
    assert to_sql(a, target=y.name) == to_sql(b, target=y.name)
    assert export_rules(a) == export_rules(b)


@pytest.mark.parametrize("suffix", ["joblib", "pkl", "skops"])
def test_round_trip_scores_identically(revenue_tree, score_data, suffix, tmp_path):
    if suffix == "skops":
        pytest.importorskip("skops")
    X, y = score_data
    X, y = X[:20_000], y[:20_000]
    fmt = "joblib" if suffix != "skops" else None
    path = save(revenue_tree, tmp_path / f"model.{suffix}", format=fmt)
    # the test's own subclass is not a dtdecide type: skops wants it trusted explicitly
    trusted = ["export_helpers.RandomTreeClassifier"] if suffix == "skops" else None
    again = load(path, trusted=trusted, allow_pickle=suffix != "skops")
    assert type(again) is type(revenue_tree)
    assert again.tree_ == revenue_tree.tree_
    assert_scores_identically(revenue_tree, again, X, y)


def test_grown_tree_skops_needs_no_trust_list(tmp_path):
    pytest.importorskip("skops")
    from dtdecide import ProfitTreeClassifier
    from dtdecide.datasets import load_bank_marketing

    b = load_bank_marketing(split="validation")
    X, y, c = b.data[:4000], b.target[:4000].astype(object).rename("y"), b.costs[:4000]
    est = ProfitTreeClassifier(decision_matrix=b.decision_matrix, max_depth=4).fit(X, y, costs=c)
    again = load(save(est, tmp_path / "tree.skops"))
    assert_scores_identically(est, again, X, y, costs=c)


def test_regressor_round_trip_skops(tmp_path):
    pytest.importorskip("skops")
    rng = np.random.default_rng(41)
    X = make_inputs(800, rng)
    y = pd.Series(rng.normal(300, 100, len(X)), name="spend")
    m = DecisionMatrix([[0.0, 1.0], [50.0, 2.0]], knots=[0.0, 500.0], decisions=["a", "b"])
    est = RandomTreeRegressor(decision_matrix=m, max_depth=3, random_state=2).fit(X, y)
    again = load(save(est, tmp_path / "reg.skops"), trusted=["export_helpers.RandomTreeRegressor"])
    assert_scores_identically(est, again, X, y)


def test_format_argument_overrides_suffix(revenue_tree, tmp_path):
    pytest.importorskip("skops")
    path = save(revenue_tree, tmp_path / "model.bin", format="skops")
    with pytest.raises(Exception):  # noqa: B017 - a skops zip is not a joblib pickle
        joblib.load(path)
    trusted = ["export_helpers.RandomTreeClassifier"]
    assert load(path, format="skops", trusted=trusted).tree_ == revenue_tree.tree_


def test_skops_refuses_untrusted_types(tmp_path):
    sio = pytest.importorskip("skops.io")
    from export_helpers import RandomTreeClassifier

    path = tmp_path / "odd.skops"
    sio.dump({"model": RandomTreeClassifier(max_depth=2)}, path)
    with pytest.raises(ValueError, match=r"not trusted: \['export_helpers.RandomTreeClassifier'\]"):
        load(path)
    got = load(path, trusted=["export_helpers.RandomTreeClassifier"])
    assert got["model"].max_depth == 2


def test_tampered_tree_arrays_are_rejected_on_load(revenue_tree, tmp_path):
    tree_cls = type(revenue_tree.tree_)
    bad = dict(revenue_tree.tree_.__getstate__())
    left = bad["children_left"].copy()
    left[0] = 0  # the root pointing at itself
    bad["children_left"] = left

    class Corrupt:  # pickles as "rebuild a TreeStructure from this state"
        def __reduce__(self):
            return (_rebuild, (tree_cls, bad))

    path = save(Corrupt(), tmp_path / "bad.joblib", format="joblib")
    with pytest.raises(ValueError, match="corrupted TreeStructure"):
        load(path, allow_pickle=True)
    # the untouched state loads fine through the same route
    ok = save(_Wrap(tree_cls, revenue_tree.tree_.__getstate__()), tmp_path / "ok.joblib",
              format="joblib")
    assert load(ok, allow_pickle=True) == revenue_tree.tree_


class _Wrap:
    def __init__(self, cls, state):
        self.cls, self.state = cls, state

    def __reduce__(self):
        return (_rebuild, (self.cls, self.state))


def _rebuild(cls, state):
    obj = cls.__new__(cls)
    obj.__setstate__(state)
    return obj


def test_errors(revenue_tree, tmp_path):
    with pytest.raises(ValueError, match="format"):
        save(revenue_tree, tmp_path / "m.joblib", format="zip")
    with pytest.raises(TypeError, match="path"):
        save(revenue_tree, 3)
    with pytest.raises(ValueError, match="compress"):
        save(revenue_tree, tmp_path / "m.joblib", format="joblib", compress=12)
    with pytest.raises(FileNotFoundError):
        load(tmp_path / "absent.joblib")
    with pytest.raises(TypeError, match="trusted"):
        path = save(revenue_tree, tmp_path / "m.skops")
        load(path, trusted="dtdecide")


def test_missing_skops_message(monkeypatch, revenue_tree, tmp_path):
    import builtins

    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name.startswith("skops"):
            raise ImportError("no skops")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(ImportError, match="pip install skops"):
        save(revenue_tree, tmp_path / "m.skops")
