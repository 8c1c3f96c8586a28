"""Binner: edges, exact routing equivalence, categorical codes, errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from dtdecide.tree._kernels._binning import Binner, numeric_bin_edges


def slow_bin(values, edges, missing):
    """First bin whose edge is >= v, by a plain loop; NaN -> missing."""
    out = []
    for v in values:
        if np.isnan(v):
            out.append(missing)
            continue
        b = 0
        while edges[b] < v:
            b += 1
        out.append(b)
    return np.array(out)


def test_few_distinct_values_get_exact_midpoints():
    X = np.array([[3.0], [1.0], [2.0], [2.0], [np.nan]])
    b = Binner().fit(X)
    assert b.bin_thresholds_[0].tolist() == [1.5, 2.5, np.inf]
    assert b.n_bins_.tolist() == [3]
    assert b.missing_bin_idx_ == 3
    assert b.transform(X)[:, 0].tolist() == [2, 0, 1, 1, 3]
    assert b.binned_dtype_ == np.uint8


def test_quantile_edges_are_midpoints_and_balanced():
    rng = np.random.default_rng(0)
    x = rng.normal(size=20_000)
    edges = numeric_bin_edges(x, None, 16)
    assert edges.size == 16 and np.isinf(edges[-1])
    distinct = np.unique(x)
    # every finite edge is a midpoint between two consecutive distinct values
    pos = np.searchsorted(distinct, edges[:-1])
    np.testing.assert_allclose(edges[:-1], (distinct[pos - 1] + distinct[pos]) / 2)
    counts = np.bincount(np.searchsorted(edges, x), minlength=16)
    assert counts.min() > 0.8 * x.size / 16 and counts.max() < 1.2 * x.size / 16


def test_weighted_quantiles_follow_weights():
    x = np.arange(1000, dtype=float)
    w = np.where(x < 500, 9.0, 1.0)  # 90% of the weight below 500
    edges = numeric_bin_edges(x, w, 10)
    assert np.sum(edges[:-1] < 500) == 9


@pytest.mark.parametrize("dist", ["normal", "lognormal", "integers", "constant", "few"])
def test_transform_matches_slow_twin(dist):
    rng = np.random.default_rng(1)
    n = 30_000
    x = {
        "normal": rng.normal(size=n),
        "lognormal": rng.lognormal(sigma=4, size=n),
        "integers": rng.integers(-20, 20, size=n).astype(float),
        "constant": np.full(n, 3.0),
        "few": rng.choice([0.1, 0.2, 0.30000000000000004], size=n),
    }[dist]
    x[rng.random(n) < 0.05] = np.nan
    X = np.column_stack([x, x[::-1]])
    b = Binner(max_bins=64, subsample=5000, random_state=0).fit(X)
    Xb = b.transform(X)
    for j in range(2):
        ref = slow_bin(X[:1500, j], b.bin_thresholds_[j], b.missing_bin_idx_)
        np.testing.assert_array_equal(Xb[:1500, j], ref)
        full_ref = np.searchsorted(b.bin_thresholds_[j], X[:, j], side="left")
        full_ref[np.isnan(X[:, j])] = b.missing_bin_idx_
        np.testing.assert_array_equal(Xb[:, j], full_ref)


@settings(max_examples=50, deadline=None)
@given(
    arrays(np.float64, st.integers(5, 300), elements=st.floats(-1e6, 1e6)),
    st.integers(2, 40),
)
def test_threshold_rule_equals_bin_rule(x, max_bins):
    """v <= bin_thresholds_[b]  <=>  bin(v) <= b, for every b: splits lose nothing."""
    b = Binner(max_bins=max_bins).fit(x[:, None])
    bins = b.transform(x[:, None])[:, 0]
    edges = b.bin_thresholds_[0]
    assert b.n_bins_[0] <= max_bins
    for k in range(edges.size):
        np.testing.assert_array_equal(x <= edges[k], bins <= k)


def test_categorical_codes_and_unseen():
    X = np.array([[0.0], [2.0], [1.0], [np.nan], [2.0]])
    b = Binner().fit(X, is_categorical=np.array([True]))
    assert b.n_bins_.tolist() == [3]
    new = np.array([[1.0], [5.0], [np.nan], [-1.0], [1.5]])
    # code 5 was never seen, -1 and 1.5 are not codes: all go to the missing bin
    assert b.transform(new)[:, 0].tolist() == [1, 3, 3, 3, 3]


def test_many_categories_use_uint16():
    codes = np.arange(1000, dtype=float)[:, None]
    b = Binner().fit(codes, is_categorical=np.array([True]))
    assert b.binned_dtype_ == np.uint16
    Xb = b.transform(codes)
    assert Xb.dtype == np.uint16 and Xb[:, 0].tolist() == list(range(1000))
    assert b.missing_bin_idx_ == 1000


def test_subsample_is_reproducible():
    X = np.random.default_rng(0).normal(size=(5000, 2))
    a = Binner(subsample=500, random_state=3).fit(X)
    b = Binner(subsample=500, random_state=3).fit(X)
    for ea, eb in zip(a.bin_thresholds_, b.bin_thresholds_):
        np.testing.assert_array_equal(ea, eb)


@pytest.mark.parametrize(
    "kwargs, match",
    [({"max_bins": 1}, "max_bins"), ({"max_bins": 2.5}, "max_bins"), ({"subsample": 1}, "subsample")],
)
def test_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        Binner(**kwargs).fit(np.ones((3, 1)))


def test_bad_inputs():
    with pytest.raises(ValueError, match="infinite"):
        Binner().fit(np.array([[1.0], [np.inf]]))
    b = Binner().fit(np.array([[1.0], [2.0]]))
    with pytest.raises(ValueError, match="infinite"):
        b.transform(np.array([[np.inf]]))
    with pytest.raises(ValueError, match="columns"):
        b.transform(np.ones((2, 2)))
    with pytest.raises(ValueError, match="is_categorical"):
        Binner().fit(np.ones((2, 2)), is_categorical=[True])
    with pytest.raises(ValueError, match="non-negative integer codes"):
        Binner().fit(np.array([[0.5]]), is_categorical=np.array([True]))
    with pytest.raises(ValueError, match="2-D"):
        Binner().fit(np.ones(3))
    with pytest.raises(TypeError, match="numeric"):
        Binner().fit(np.array([["a"]], dtype=object))
    with pytest.raises(ValueError, match="not fitted"):
        Binner().transform(np.ones((1, 1)))
    with pytest.raises(ValueError, match="sample_weight"):
        Binner().fit(np.ones((2, 1)), sample_weight=np.ones(3))
