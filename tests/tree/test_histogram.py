"""Histogram kernels against a slow row-by-row twin; additivity over chunks."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dtdecide.tree._histogram import HistogramTarget, build_histograms


def slow_histograms(X_binned, rows, slots, n_slots, B, codes=None, n_classes=None,
                    weights=None, channels=None):
    """The obvious loop over rows and features."""
    n, F = X_binned.shape
    C = n_classes if codes is not None else channels.shape[1]
    hist = np.zeros((n_slots, F, B, C))
    counts = np.zeros((n_slots, F, B), dtype=np.int64)
    rows = range(n) if rows is None else rows
    for i, r in enumerate(rows):
        s = slots[i]
        for j in range(F):
            b = X_binned[r, j]
            counts[s, j, b] += 1
            if codes is not None:
                hist[s, j, b, codes[r]] += 1.0 if weights is None else weights[r]
            else:
                hist[s, j, b] += channels[r]
    return hist, counts


def _data(seed, n=200, F=3, B=7, K=3, n_slots=4):
    rng = np.random.default_rng(seed)
    Xb = np.asfortranarray(rng.integers(0, B, size=(n, F)).astype(np.uint8))
    rows = np.sort(rng.choice(n, size=n // 2, replace=False))
    slots = rng.integers(0, n_slots, size=rows.size)
    codes = rng.integers(0, K, size=n)
    w = rng.random(n) * 3
    return Xb, rows, slots, codes, w


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("chunk_size", [1 << 18, 7])
def test_classification_matches_slow_twin(weighted, chunk_size):
    Xb, rows, slots, codes, w = _data(0)
    weights = w if weighted else None
    target = HistogramTarget(codes=codes, n_classes=3, weights=weights)
    hist, counts = build_histograms(
        Xb, rows, slots, 4, 7, target, with_counts=True, chunk_size=chunk_size
    )
    ref_hist, ref_counts = slow_histograms(Xb, rows, slots, 4, 7, codes, 3, weights)
    np.testing.assert_allclose(hist, ref_hist, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(counts, ref_counts)
    assert target.counts_from_sums is (not weighted)
    if not weighted:
        np.testing.assert_array_equal(target.counts_of(hist), ref_counts)


@pytest.mark.parametrize("chunk_size", [1 << 18, 5])
def test_regression_matches_slow_twin(chunk_size):
    Xb, rows, slots, _, w = _data(1)
    y = np.random.default_rng(2).normal(size=w.size)
    channels = np.column_stack([w, w * y, w * y * y])
    target = HistogramTarget(channels=channels)
    hist, counts = build_histograms(
        Xb, rows, slots, 4, 7, target, with_counts=True, chunk_size=chunk_size
    )
    ref_hist, ref_counts = slow_histograms(Xb, rows, slots, 4, 7, channels=channels)
    np.testing.assert_allclose(hist, ref_hist, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(counts, ref_counts)


def test_all_rows_when_rows_is_none():
    Xb, _, _, codes, _ = _data(3)
    slots = np.zeros(Xb.shape[0], dtype=np.intp)
    target = HistogramTarget(codes=codes, n_classes=3)
    hist, counts = build_histograms(Xb, None, slots, 1, 7, target)
    assert counts is None
    ref, _ = slow_histograms(Xb, None, slots, 1, 7, codes, 3)
    np.testing.assert_array_equal(hist, ref)
    # every feature's histogram sums to the class counts
    np.testing.assert_array_equal(hist[0].sum(axis=1), np.tile(np.bincount(codes, minlength=3), (3, 1)))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 60))
def test_additive_over_row_partitions(seed, cut):
    """hist(all rows) = hist(first part) + hist(second part): the sibling subtraction."""
    Xb, rows, slots, codes, w = _data(seed, n=120)
    cut = min(cut, rows.size)
    target = HistogramTarget(codes=codes, n_classes=3, weights=w)
    full, full_c = build_histograms(Xb, rows, slots, 4, 7, target, with_counts=True)
    a, a_c = build_histograms(Xb, rows[:cut], slots[:cut], 4, 7, target, with_counts=True)
    b, b_c = build_histograms(Xb, rows[cut:], slots[cut:], 4, 7, target, with_counts=True)
    np.testing.assert_allclose(full - a, b, atol=1e-9)
    np.testing.assert_array_equal(full_c - a_c, b_c)


def test_target_requires_exactly_one_kind():
    with pytest.raises(ValueError, match="exactly one"):
        HistogramTarget()
