"""Histogram kernels against a slow row-by-row twin; additivity over chunks."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dtdecide.tree._kernels._histogram import BinLayout, HistogramTarget, build_histograms


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


# --- per-feature widths (flat BinLayout) ----------------------------------------------


def _mixed_width_data(seed, n=150, widths=(2, 7, 4, 12), K=3, n_slots=3):
    """Binned columns with per-feature widths and the Binner's shared missing code."""
    rng = np.random.default_rng(seed)
    B = max(widths)
    cols = []
    for w in widths:
        b = rng.integers(0, w - 1, size=n)  # non-missing bins of this feature
        b[rng.random(n) < 0.2] = B - 1  # shared missing code
        cols.append(b)
    Xb = np.asfortranarray(np.column_stack(cols).astype(np.uint8))
    rows = np.sort(rng.choice(n, size=2 * n // 3, replace=False))
    slots = rng.integers(0, n_slots, size=rows.size)
    codes = rng.integers(0, K, size=n)
    return Xb, rows, slots, codes, rng.random(n) * 2


def slow_flat_histograms(Xb, rows, slots, n_slots, widths, codes=None, n_classes=None,
                         weights=None, channels=None):
    """Row by row into the flat layout: feature j owns cells off_j .. off_j + w_j - 1."""
    B = max(widths)
    offsets = np.concatenate([[0], np.cumsum(widths)])
    C = n_classes if codes is not None else channels.shape[1]
    hist = np.zeros((n_slots, offsets[-1], C))
    counts = np.zeros((n_slots, offsets[-1]), dtype=np.int64)
    for i, r in enumerate(rows):
        for j, w in enumerate(widths):
            b = Xb[r, j]
            cell = offsets[j] + (w - 1 if b == B - 1 else b)
            counts[slots[i], cell] += 1
            if codes is not None:
                hist[slots[i], cell, codes[r]] += 1.0 if weights is None else weights[r]
            else:
                hist[slots[i], cell] += channels[r]
    return hist, counts


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("chunk_size", [1 << 18, 11])
def test_flat_layout_matches_slow_twin(weighted, chunk_size):
    widths = (2, 7, 4, 12)
    Xb, rows, slots, codes, w = _mixed_width_data(5, widths=widths)
    weights = w if weighted else None
    target = HistogramTarget(codes=codes, n_classes=3, weights=weights)
    hist, counts = build_histograms(
        Xb, rows, slots, 3, BinLayout(widths), target, with_counts=True,
        chunk_size=chunk_size,
    )
    assert hist.shape == (3, sum(widths), 3)
    ref_hist, ref_counts = slow_flat_histograms(Xb, rows, slots, 3, widths, codes, 3, weights)
    np.testing.assert_allclose(hist, ref_hist, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(counts, ref_counts)


def test_flat_layout_regression_matches_slow_twin():
    widths = (5, 3, 9)
    Xb, rows, slots, _, w = _mixed_width_data(6, widths=widths)
    y = np.random.default_rng(7).normal(size=w.size)
    channels = np.column_stack([w, w * y, w * y * y])
    target = HistogramTarget(channels=channels)
    hist, counts = build_histograms(
        Xb, rows, slots, 3, BinLayout(widths), target, with_counts=True, chunk_size=13
    )
    ref_hist, ref_counts = slow_flat_histograms(Xb, rows, slots, 3, widths, channels=channels)
    np.testing.assert_allclose(hist, ref_hist, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(counts, ref_counts)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.lists(st.integers(2, 9), min_size=1, max_size=5))
def test_flat_layout_is_the_padded_uniform_histogram_without_padding(seed, widths):
    """The uniform 4-D histogram (every feature max_width wide) holds the same sums; the
    flat one just leaves out the cells a narrower feature never uses."""
    Xb, rows, slots, codes, w = _mixed_width_data(seed, widths=tuple(widths))
    target = HistogramTarget(codes=codes, n_classes=3, weights=w)
    layout = BinLayout(widths)
    flat, flat_c = build_histograms(Xb, rows, slots, 3, layout, target, with_counts=True)
    full, full_c = build_histograms(Xb, rows, slots, 3, layout.max_width, target,
                                    with_counts=True)
    for j in range(len(widths)):
        gathered = layout.gather(flat, np.arange(3), np.full(3, j))
        np.testing.assert_allclose(gathered, full[:, j], atol=1e-12)
        np.testing.assert_array_equal(layout.gather(flat_c, np.arange(3), np.full(3, j)),
                                      full_c[:, j])
    # nothing is lost: every feature's cells sum to the node totals
    np.testing.assert_allclose(flat.sum(axis=1), full.sum(axis=(1, 2)), atol=1e-9)


def test_layout_from_binner_and_cell_index():
    from dtdecide.tree._kernels._binning import Binner

    X = np.array([[0.0, 1.0], [2.0, 3.5], [1.0, np.nan], [np.nan, 7.0]])
    binner = Binner().fit(X, np.array([True, False]))
    layout = BinLayout.from_binner(binner)
    assert layout.widths.tolist() == (binner.n_bins_ + 1).tolist() == [4, 4]
    assert layout.max_width == binner.n_bins_total_
    wide = BinLayout([2, 5])
    # feature 0 has one bin: binned values 1..3 never occur, 4 (shared missing) -> cell 1
    assert wide.cell_index.tolist() == [[0, -1, -1, -1, 1], [2, 3, 4, 5, 6]]
    assert not wide.is_uniform and BinLayout([3, 3]).is_uniform


@pytest.mark.parametrize("widths", [[], [1, 3], [[2, 3]], [2.0, 3.0]])
def test_bad_layouts(widths):
    with pytest.raises(ValueError, match="widths"):
        BinLayout(widths)


def test_layout_must_match_the_features():
    Xb, rows, slots, codes, _ = _mixed_width_data(1, widths=(3, 4))
    target = HistogramTarget(codes=codes, n_classes=3)
    with pytest.raises(ValueError, match="layout has 3 features"):
        build_histograms(Xb, rows, slots, 3, BinLayout([3, 4, 2]), target)


def test_out_arrays_are_filled_in_place():
    Xb, rows, slots, codes, w = _mixed_width_data(2, widths=(3, 5))
    target = HistogramTarget(codes=codes, n_classes=3, weights=w)
    layout = BinLayout([3, 5])
    ref, ref_c = build_histograms(Xb, rows, slots, 3, layout, target, with_counts=True)
    hist = np.full((3, layout.n_cells, 3), 7.0)
    counts = np.full((3, layout.n_cells), 7, dtype=np.int32)
    got, got_c = build_histograms(Xb, rows, slots, 3, layout, target, with_counts=True,
                                  out=(hist, counts))
    assert got is hist and got_c is counts
    np.testing.assert_allclose(hist, ref, atol=1e-12)
    np.testing.assert_array_equal(counts, ref_c)
    # uniform int layout: the 4-D out array itself holds the result
    hist4 = np.full((3, 2, 5, 3), 7.0)
    build_histograms(Xb, rows, slots, 3, 5, target, out=(hist4, None))
    full, _ = build_histograms(Xb, rows, slots, 3, 5, target)
    np.testing.assert_allclose(hist4, full, atol=1e-12)
    with pytest.raises(ValueError, match="C-contiguous"):
        build_histograms(Xb, rows, slots, 3, layout, target,
                         out=(np.zeros((3, 2 * layout.n_cells, 3))[:, ::2], None))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n_levels=st.integers(2, 4), n_dec=st.integers(2, 3),
       method=st.sampled_from(["cost_gini", "regret_gini", "profit"]),
       weighted=st.booleans(), threads=st.sampled_from([None, 2]),
       kernels=st.sampled_from(["numpy", "compiled"]))
def test_money_from_level_counts_equals_the_per_row_sums(seed, n_levels, n_dec, method,
                                                         weighted, threads, kernels):
    """``criterion="profit"`` without case costs: the money channels derived from the
    class-count histograms (``map_channels(counts, level_map)``) equal the histograms
    that add every case's own money amounts row by row (its level's row of the table,
    times its sample weight), to a relative 1e-12 of the node's money; the row counts
    are the same. The grower's ``level_map`` is the one tested (``_profit_target``)."""
    from types import SimpleNamespace
    from unittest import mock

    from dtdecide import config_context
    from dtdecide._parallel import ThreadPool
    from dtdecide.tree._algorithms import _grower
    from dtdecide.tree._algorithms._grower import _profit_target
    from dtdecide.tree._kernels._histogram import map_channels
    from dtdecide.tree._kernels._profit import ProfitCriterion

    rng = np.random.default_rng(seed)
    n = 400
    Xb, rows, slots, _, _ = _data(seed % 1000, n=n)
    level = rng.integers(0, n_levels, size=n).astype(np.int8)
    table = rng.normal(size=(n_levels, n_dec)).round(2) * 10
    sw = rng.random(n) * 3 if weighted else None
    cw = rng.random(n_levels) + 0.5
    counts_target = HistogramTarget(codes=level, n_classes=n_levels, weights=sw)
    case_profit = SimpleNamespace(level_table=table)
    # the level-count path for any number of levels (the grower takes it up to
    # _grower.LEVELS_PER_CHANNEL levels a money channel, fewer with sample weights)
    with mock.patch.multiple(_grower, LEVELS_PER_CHANNEL=100, WEIGHTED_LEVELS_PER_CHANNEL=100):
        profit, target, _, level_map = _profit_target(case_profit, method, level, n_levels,
                                                      sw, cw, n, counts_target)
    assert target is counts_target and level_map.shape == (n_levels, profit.n_channels)
    # the direct path: every case's own amounts (row_channels of its level's row)
    direct_codes, direct_w = ProfitCriterion(n_dec, method).row_channels(
        table[level], (np.ones(n) if sw is None else sw) * cw[level])
    direct = HistogramTarget(codes=direct_codes, n_classes=n_dec, weights=direct_w)
    layout = BinLayout([7, 5, 7])
    Xb = np.asfortranarray(np.minimum(Xb, np.array([6, 4, 6], dtype=np.uint8)))

    def build(t):
        with config_context(kernels=kernels):
            if threads is None:
                return build_histograms(Xb, rows, slots, 4, layout, t, with_counts=True)
            with ThreadPool(threads) as pool:
                return build_histograms(Xb, rows, slots, 4, layout, t, with_counts=True,
                                        pool=pool)

    (lev, lev_counts), (money, money_counts) = build(target), build(direct)
    assert lev.dtype == (np.float64 if weighted else np.float32)
    derived = map_channels(lev, level_map)
    scale = np.abs(money).sum(axis=(1, 2), keepdims=True) + 1e-300
    np.testing.assert_allclose(derived / scale, money / scale, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(lev_counts, money_counts)
    if not weighted:  # unit weights: the counts are the channels' sum, exactly
        np.testing.assert_array_equal(lev.sum(axis=-1), lev_counts)


def test_map_channels_adds_level_by_level():
    """``map_channels`` is ``sums @ channel_map`` with the products added in level order
    (the compiled scan's order), float64 from float32 counts."""
    from dtdecide.tree._kernels._histogram import map_channels

    rng = np.random.default_rng(3)
    counts = rng.integers(0, 1000, size=(5, 6, 3)).astype(np.float32)
    M = rng.normal(size=(3, 4))
    got = map_channels(counts, M)
    assert got.dtype == np.float64 and got.shape == (5, 6, 4)
    c = counts.astype(np.float64)
    expect = c[..., 0, None] * M[0] + c[..., 1, None] * M[1]
    expect = expect + c[..., 2, None] * M[2]
    assert got.tobytes() == expect.tobytes()
    np.testing.assert_allclose(got, c @ M, rtol=1e-12)


def test_bases_of_another_length_are_refused():
    """Row offsets worked out by the caller (``bases``) must be one per included row: a
    caller's mismatch is an error, not a reason to work them out again."""
    from dtdecide import config_context

    Xb, rows, slots, codes, w = _data(3)
    target = HistogramTarget(codes=codes, n_classes=3)
    with config_context(kernels="compiled"):
        with pytest.raises(ValueError, match="bases must hold one int32 offset per row"):
            build_histograms(Xb, rows, slots, 4, 7, target,
                             bases=np.zeros(slots.size - 1, dtype=np.int32))
        # the right length in another dtype than the kernels read for these slots
        with pytest.raises(ValueError, match="bases must hold one int32 offset per row"):
            build_histograms(Xb, rows, slots, 4, 7, target,
                             bases=np.zeros(slots.size, dtype=np.int64))
