"""The compiled (Numba) kernels against their NumPy twins (``DTDECIDE_KERNELS``).

Integer counts must be equal; float sums equal to a relative 1e-12 (the compiled
histogram adds the rows of a cell one by one in row order, the NumPy twin per chunk of
``chunk_size`` rows: on one chunk the two are the same sums in the same order, hence
bit for bit equal); trees grown on the same data are the same, node for node, for every
criterion, both decision rules, categorical inputs and missing values.
"""

import os
from contextlib import contextmanager, nullcontext
from unittest import mock

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_n_jobs import assert_same_tree

from dtdecide import DecisionMatrix, config_context
from dtdecide._jit import AUTO_MIN_ROWS, kernels_mode, use_compiled
from dtdecide._parallel import ThreadPool
from dtdecide.tree import ProfitTreeClassifier, ProfitTreeRegressor
from dtdecide.tree._kernels import _binning
from dtdecide.tree._kernels._binning import Binner
from dtdecide.tree._kernels._histogram import BinLayout, HistogramTarget, build_histograms

pytest.importorskip("numba")

SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@contextmanager
def kernels(mode):
    old = os.environ.get("DTDECIDE_KERNELS")
    os.environ["DTDECIDE_KERNELS"] = mode
    try:
        yield
    finally:
        if old is None:
            del os.environ["DTDECIDE_KERNELS"]
        else:
            os.environ["DTDECIDE_KERNELS"] = old


def both(fn):
    """``fn()`` under the NumPy twins, then under the compiled kernels."""
    with kernels("numpy"):
        a = fn()
    with kernels("compiled"):
        assert use_compiled(1)
        b = fn()
    return a, b


def test_switch_reads_the_environment_at_call_time():
    with kernels("numpy"):
        assert kernels_mode() == "numpy" and not use_compiled(10**9)
        with config_context(kernels="compiled"):  # the setting wins over the variable
            assert kernels_mode() == "compiled" and use_compiled(1)
    with kernels(" Compiled "):
        assert kernels_mode() == "compiled" and use_compiled(1)
        with config_context(kernels="numpy"):
            assert not use_compiled(10**9)
    with kernels("fortran"), pytest.raises(ValueError, match="DTDECIDE_KERNELS"):
        kernels_mode()


def test_auto_compiles_for_large_tables_only():
    with kernels("auto"):
        assert kernels_mode() == "auto"
        assert not use_compiled(AUTO_MIN_ROWS - 1)
        assert use_compiled(AUTO_MIN_ROWS)
    old = os.environ.pop("DTDECIDE_KERNELS", None)
    try:
        assert kernels_mode() == "auto"  # the default
    finally:
        if old is not None:
            os.environ["DTDECIDE_KERNELS"] = old


def test_config_context_reaches_the_worker_threads():
    """The choice is made in the calling thread; the fit's threads follow it."""
    X, signal, _ = data(0, 400)
    y = (signal > 0).astype(int)
    with config_context(kernels="numpy"):
        a = ProfitTreeClassifier(max_depth=4, random_state=0, n_jobs=2).fit(X, y)
    with config_context(kernels="compiled"):
        b = ProfitTreeClassifier(max_depth=4, random_state=0, n_jobs=2).fit(X, y)
    assert_same_tree(a.tree_, b.tree_)


@st.composite
def histogram_case(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n = draw(st.integers(1, 400))
    widths = np.array(draw(st.lists(st.integers(2, 40), min_size=1, max_size=5)))
    layout = BinLayout(widths)
    dtype = np.uint16 if draw(st.booleans()) else np.uint8
    Xb = np.column_stack([rng.integers(0, w - 1, size=n) for w in widths]).astype(dtype)
    Xb[rng.random(Xb.shape) < 0.1] = layout.max_width - 1  # the shared missing code
    Xb = np.asfortranarray(Xb)
    use_rows = draw(st.booleans())
    rows = np.sort(rng.choice(n, size=rng.integers(0, n + 1), replace=False)) \
        if use_rows else None
    n_rows = n if rows is None else rows.size
    n_slots = draw(st.integers(1, 4))
    slots = rng.integers(0, n_slots, size=n_rows).astype(np.int32)
    if n_slots == 1 and draw(st.booleans()):
        slots = None  # every row in slot 0
    kind = draw(st.sampled_from(["counts", "weights", "groups", "channels"]))
    if kind == "channels":
        y, w = rng.normal(size=n), rng.uniform(0.5, 2.0, size=n)
        target = HistogramTarget(channels=np.column_stack([w, w * y, w * y * y]))
    else:
        n_classes = draw(st.integers(2, 4))
        weights = {"counts": None, "weights": rng.uniform(0.0, 3.0, size=n),
                   "groups": rng.normal(size=(3, n))}[kind]
        target = HistogramTarget(codes=rng.integers(0, n_classes, size=n),
                                 n_classes=n_classes, weights=weights)
    return Xb, rows, slots, n_slots, layout, target, draw(st.booleans()), \
        draw(st.sampled_from([7, 1 << 18]))


@SETTINGS
@given(histogram_case())
def test_histograms_equal_numpy_twin(case):
    Xb, rows, slots, n_slots, layout, target, with_counts, chunk = case
    (ha, ca), (hb, cb) = both(lambda: build_histograms(
        Xb, rows, slots, n_slots, layout, target, with_counts=with_counts, chunk_size=chunk))
    assert ha.dtype == hb.dtype and ha.shape == hb.shape
    if target.is_classification and target.weights is None:
        assert np.array_equal(ha, hb)  # integer counts
    elif chunk > Xb.shape[0]:
        assert np.array_equal(ha, hb)  # one chunk: the same sums in the same order
    else:
        np.testing.assert_allclose(hb, ha, rtol=1e-12, atol=1e-12 * np.abs(ha).max())
    if with_counts:
        assert np.array_equal(ca, cb)
    else:
        assert ca is None and cb is None


def test_histograms_threads_and_out_buffers():
    rng = np.random.default_rng(0)
    layout = BinLayout([5, 9, 3, 7])
    Xb = np.asfortranarray(np.column_stack(
        [rng.integers(0, w, size=3000) for w in layout.widths]).astype(np.uint8))
    rows = np.sort(rng.choice(3000, 2000, replace=False)).astype(np.int32)
    slots = rng.integers(0, 3, size=2000).astype(np.int32)
    target = HistogramTarget(codes=rng.integers(0, 2, size=3000), n_classes=2,
                             weights=rng.random(3000))
    expect, expect_counts = build_histograms(Xb, rows, slots, 3, layout, target,
                                             with_counts=True)
    for mode in ("numpy", "compiled"):  # each thread clears its features' cells of out
        with kernels(mode), ThreadPool(2) as pool:
            out = (np.full_like(expect, 7.0), np.full_like(expect_counts, 7))
            build_histograms(Xb, rows, slots, 3, layout, target, with_counts=True, out=out,
                             pool=pool)
        np.testing.assert_allclose(out[0], expect, rtol=1e-12)
        assert np.array_equal(out[1], expect_counts)


def _random_histogram_case(rng, n, n_rows, n_slots, kind):
    """``(layout, Xb, rows, slots, target)``: five features of random bins, ``n_rows``
    sorted rows of ``n`` in ``n_slots`` random slots, and a target of ``kind``
    ("counts", "weights": three classes, unweighted or weighted; "channels": the
    regression channels 1, y, y**2)."""
    layout = BinLayout([5, 9, 3, 7, 4])
    Xb = np.asfortranarray(np.column_stack(
        [rng.integers(0, w, size=n) for w in layout.widths]).astype(np.uint8))
    rows = np.sort(rng.choice(n, n_rows, replace=False)).astype(np.int32)
    slots = rng.integers(0, n_slots, size=rows.shape[0]).astype(np.int32)
    if kind == "channels":
        y = rng.normal(size=n)
        target = HistogramTarget(channels=np.column_stack([np.ones(n), y, y * y]))
    else:
        target = HistogramTarget(codes=rng.integers(0, 3, size=n), n_classes=3,
                                 weights=None if kind == "counts" else rng.random(n))
    return layout, Xb, rows, slots, target


@pytest.mark.parametrize("kind", ["counts", "weights", "channels"])
@pytest.mark.parametrize("n_threads", [2, 3])
def test_histograms_with_slot_offsets_worked_out_on_the_threads(monkeypatch, kind, n_threads):
    # the rows' slot offsets of a threaded pass are worked out once, split between the
    # threads (from _THREADED_BASES_ROWS rows; lowered here so that a small case takes
    # that path), and every thread's features read them: the same histograms as one
    # thread and as the NumPy twin
    from dtdecide.tree._kernels import _histogram

    rng = np.random.default_rng(n_threads)
    n, n_slots = 3001, 4
    layout, Xb, rows, slots, target = _random_histogram_case(rng, n, 2003, n_slots, kind)

    def run(pool=None):
        return build_histograms(Xb, rows, slots, n_slots, layout, target, with_counts=True,
                                pool=pool)

    with kernels("numpy"):
        twin, twin_counts = run()
    monkeypatch.setattr(_histogram, "_THREADED_BASES_ROWS", 1)
    calls = []
    original = _histogram._fill_bases

    def spy(*args):
        calls.append(args[-1])
        return original(*args)

    monkeypatch.setattr(_histogram, "_fill_bases", spy)
    with kernels("compiled"):
        one, one_counts = run()
        with ThreadPool(n_threads) as pool:
            many, many_counts = run(pool)
    assert calls[0] is None and calls[1] is not None  # one thread, then the pool
    assert np.array_equal(one, many) and np.array_equal(one_counts, many_counts)
    assert np.array_equal(many_counts, twin_counts)
    if kind == "counts":
        assert np.array_equal(many, twin)
    else:
        np.testing.assert_allclose(many, twin, rtol=1e-12, atol=1e-12)


def test_row_chunk_plans():
    """Rows are shared out with the features only where whole features leave threads
    idle, on more than two threads, and when each chunk's rows outweigh its cells."""
    from dtdecide.tree._kernels._histogram import _row_chunks

    cost = np.full(20, 1.0)
    n, cells = 1 << 21, np.full(20, 512)
    groups, bounds = _row_chunks(cost, n, cells, 16)  # 4 runs of 5 features x 4 chunks
    assert [g.tolist() for g in groups] == [list(range(k, k + 5)) for k in (0, 5, 10, 15)]
    assert bounds.tolist() == [0, n // 4, n // 2, 3 * n // 4, n]
    groups, bounds = _row_chunks(cost, n, cells, 8)  # 4 runs x 2 chunks: one round
    assert len(groups) == 4 and len(bounds) == 3
    for threads in (1, 2, 4, 5):  # whole features share out evenly (or nearly)
        assert _row_chunks(cost, n, cells, threads) is None
    assert _row_chunks(cost, 1 << 15, cells, 16) is None  # too few rows per chunk
    assert _row_chunks(cost, n, np.full(20, 1 << 19), 16) is None  # cells outweigh rows


@pytest.mark.parametrize("level", ["root", "rows", "slots"])
@pytest.mark.parametrize("with_counts", [False, True])
@pytest.mark.parametrize("task_features", [0, 1])
def test_row_chunked_histograms_equal_one_thread(monkeypatch, level, with_counts,
                                                 task_features):
    # many threads against few features: each thread takes a run of features over a
    # chunk of the rows, into the chunk's own histograms, summed afterwards. Whole-number
    # float32 counts are exact in any order: the same numbers as one thread and as the
    # NumPy twin, bit for bit, into new arrays and into dirty out buffers
    from dtdecide.tree._kernels import _histogram

    rng = np.random.default_rng(len(level) + with_counts)
    n, n_slots = 5003, 4
    layout = BinLayout([5, 9, 3, 7, 4])
    Xb = np.asfortranarray(np.column_stack(
        [rng.integers(0, w, size=n) for w in layout.widths]).astype(np.uint8))
    Xb[rng.random(Xb.shape) < 0.1] = layout.max_width - 1
    rows = slots = None
    if level != "root":
        rows = np.sort(rng.choice(n, 3001, replace=False)).astype(np.int32)
        slots = rng.integers(0, n_slots, size=rows.shape[0]).astype(np.int32)
        if level == "slots":  # every row, in slots
            rows, slots = None, rng.integers(0, n_slots, size=n).astype(np.int32)
    k = 1 if slots is None else n_slots
    target = HistogramTarget(codes=rng.integers(0, 3, size=n), n_classes=3)

    def run(pool=None, out=None):
        return build_histograms(Xb, rows, slots, k, layout, target, with_counts=with_counts,
                                pool=pool, out=out)

    with kernels("numpy"):
        twin, twin_counts = run()
    monkeypatch.setattr(_histogram, "_MIN_CHUNK_ROWS", 1)
    monkeypatch.setattr(_histogram, "_ROWS_PER_CELL", 0)
    monkeypatch.setattr(_histogram, "_TASK_FEATURES", task_features)  # 0: whole runs
    plans = []
    original = _histogram._chunked_pass

    def spy(run_, plan, *args):
        plans.append(plan)
        return original(run_, plan, *args)

    monkeypatch.setattr(_histogram, "_chunked_pass", spy)
    with kernels("compiled"):
        one, one_counts = run()
        with ThreadPool(3) as pool:
            many, many_counts = run(pool)
            out = (np.full_like(one, 7.0), None if one_counts is None
                   else np.full_like(one_counts, 7))
            run(pool, out)
    assert len(plans) == 2
    groups, bounds = plans[0]  # 5 features on 3 threads: every feature x 3 chunks
    assert len(groups) == 1 and len(bounds) == 4
    assert many.dtype == np.float32
    for h in (many, out[0]):
        assert np.array_equal(h, one) and np.array_equal(h, twin)
    if with_counts:
        for c in (many_counts, out[1]):
            assert np.array_equal(c, one_counts) and np.array_equal(c, twin_counts)
    # weighted (float64) sums are never shared out by rows: not exact in any order
    weighted = HistogramTarget(codes=target.codes, n_classes=3, weights=rng.random(n))
    with kernels("compiled"), ThreadPool(3) as pool:
        build_histograms(Xb, rows, slots, k, layout, weighted, pool=pool)
    assert len(plans) == 2


def test_row_offsets_are_int32_unless_they_overflow(monkeypatch):
    """The compiled histograms' row offsets are 4 bytes whenever every offset fits
    (``bases_dtype``), 8 bytes beyond; a tree grown with 8-byte offsets forced is the
    tree grown with 4-byte ones, on one thread and on three (whose partition works the
    offsets out on the threads)."""
    from dtdecide.tree._kernels import _histogram
    from dtdecide.tree._kernels._histogram import bases_dtype

    big = np.iinfo(np.int32).max
    assert bases_dtype(1, 1000) == np.int32
    assert bases_dtype(big // 1000 - 2, 1000) == np.int32
    assert bases_dtype(big // 1000, 1000) == np.int64  # (n_slots + 1) * stride > 2^31 - 1
    rng = np.random.default_rng(11)
    X = rng.normal(size=(40_000, 4))
    X[rng.random(X.shape) < 0.05] = np.nan
    y = (X[:, 0] + rng.normal(size=X.shape[0]) > 0.3).astype(int) + (X[:, 1] > 1)
    trees = {}
    for wide in (False, True):
        if wide:
            monkeypatch.setattr(_histogram, "bases_dtype",
                                lambda n_slots, stride: np.dtype(np.int64))
        for n_jobs in (1, 3):
            with kernels("compiled"):
                trees[wide, n_jobs] = ProfitTreeClassifier(
                    max_depth=6, n_jobs=n_jobs, random_state=0).fit(X, y).tree_
    for tree in trees.values():
        assert_same_tree(trees[False, 1], tree)


@pytest.mark.parametrize("kind", ["counts", "weighted", "regression"])
@pytest.mark.parametrize("n_threads", [1, 3])
def test_histograms_of_rows_in_stretches(monkeypatch, kind, n_threads):
    """Included rows kept in stretches of longer arrays (``segments``: the partition's
    rows on many threads, each range in its own stretch of one buffer, garbage between)
    give the histograms of the same rows gathered, bit for bit (float64 sums too: each
    cell still receives its rows in row order), compiled on one and on three threads
    (row-chunked counts: chunks that cut stretches) and through the NumPy twin."""
    from dtdecide.tree._kernels import _histogram

    rng = np.random.default_rng(7 + n_threads + len(kind))
    n, n_slots = 6007, 5
    layout, Xb, rows, slots, target = _random_histogram_case(
        rng, n, 3001, n_slots, {"regression": "channels", "weighted": "weights"}.get(kind, kind))
    # the rows cut in 5 pieces (one empty), spread over a buffer with gaps of garbage
    cuts = np.sort(rng.integers(0, rows.shape[0], size=4))
    cuts[1] = cuts[2]
    pieces = np.split(np.arange(rows.shape[0]), cuts)
    size = rows.shape[0] + 40 * len(pieces)
    buf_rows = rng.integers(-5, 2 * n, size=size).astype(np.int32)  # garbage
    buf_slots = rng.integers(-5, 99, size=size).astype(np.int32)
    segments, at = [], 0
    for p in pieces:
        at += int(rng.integers(0, 40))
        buf_rows[at : at + p.size] = rows[p]
        buf_slots[at : at + p.size] = slots[p]
        segments.append((at, at + p.size))
        at += p.size
    segments = np.array(segments, dtype=np.int64)
    stride = layout.n_cells * target.n_channels
    fill = _histogram.slot_bases_of(layout, target, n_slots)
    assert fill.dtype == np.int32  # small offsets: 4 bytes each
    bases = np.full(size, -(1 << 30), dtype=fill.dtype)
    for a, b in segments:
        fill(buf_rows, buf_slots, bases, a, b)
    assert np.array_equal(
        np.concatenate([bases[a:b] for a, b in segments]),
        slots.astype(np.int64) * stride
        + (target.codes[rows] if kind != "regression" else 0))
    monkeypatch.setattr(_histogram, "_MIN_CHUNK_ROWS", 1)
    monkeypatch.setattr(_histogram, "_ROWS_PER_CELL", 0)
    chunked = []
    original = _histogram._chunked_pass
    monkeypatch.setattr(_histogram, "_chunked_pass",
                        lambda *args: chunked.append(1) or original(*args))

    def run(mode, gathered, pool=None, with_bases=True):
        with kernels(mode):
            if gathered:
                return build_histograms(Xb, rows, slots, n_slots, layout, target,
                                        with_counts=True, pool=pool)
            return build_histograms(Xb, buf_rows, buf_slots, n_slots, layout, target,
                                    with_counts=True, pool=pool,
                                    bases=bases if with_bases else None, segments=segments)

    want, want_counts = run("compiled", True)
    twin, twin_counts = run("numpy", False)
    with ThreadPool(n_threads) as pool:
        pool = pool if n_threads > 1 else None
        got, got_counts = run("compiled", False, pool)
        late, late_counts = run("compiled", False, pool, with_bases=False)
    assert bool(chunked) == (kind == "counts" and n_threads > 1)
    for h, c in ((got, got_counts), (late, late_counts)):
        assert np.array_equal(h, want) and np.array_equal(c, want_counts)
    assert np.array_equal(twin_counts, want_counts)
    np.testing.assert_allclose(twin, want, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("n_threads", [1, 2, 3])
def test_histograms_call_after_once_for_every_cell(monkeypatch, n_threads):
    """``after(a, b)`` of build_histograms is called on stretches of the cell axis that
    cover every cell once, each when those cells are final (one thread; whole
    features on two; runs of features x row chunks, summed in stretches, on three),
    and the grower's sibling subtraction through it (_SiblingCells) leaves the
    numbers of the subtraction after the pass; a partial subtraction is an error."""
    from dtdecide.tree._algorithms import _grower
    from dtdecide.tree._kernels import _histogram

    rng = np.random.default_rng(n_threads)
    n, n_slots = 5003, 4
    layout = BinLayout([5, 9, 3, 7, 4])
    Xb = np.asfortranarray(np.column_stack(
        [rng.integers(0, w, size=n) for w in layout.widths]).astype(np.uint8))
    rows = np.sort(rng.choice(n, 3001, replace=False)).astype(np.int32)
    slots = rng.integers(0, n_slots, size=rows.shape[0]).astype(np.int32)
    target = HistogramTarget(codes=rng.integers(0, 3, size=n), n_classes=3)
    monkeypatch.setattr(_histogram, "_MIN_CHUNK_ROWS", 1)
    monkeypatch.setattr(_histogram, "_ROWS_PER_CELL", 0)
    parents = rng.integers(3000, 4000, size=(6, layout.n_cells, 3)).astype(np.float32)
    parent_idx, small_idx = np.array([0, 2, 3, 5]), np.array([1, 0, 3, 2])
    with kernels("compiled"):
        want, _ = build_histograms(Xb, rows, slots, n_slots, layout, target)
        expect = parents.copy()
        _grower._subtract_siblings([(expect, parent_idx, want, small_idx)], None, True)
        seen = []
        out = (np.full_like(want, 9.0), None)

        def after(a, b):
            seen.append((a, b))
            hook(a, b)
            # the cells are final when handed over
            assert np.array_equal(out[0][:, a:b], want[:, a:b])

        got = parents.copy()
        jobs = [(got, parent_idx, out[0], small_idx)]
        hook = _grower._SiblingCells.of(jobs, True)
        with ThreadPool(n_threads) as pool:
            build_histograms(Xb, rows, slots, n_slots, layout, target, out=out,
                             pool=pool if n_threads > 1 else None, after=after)
    cells = np.zeros(layout.n_cells, dtype=int)
    for a, b in seen:
        cells[a:b] += 1
    assert np.all(cells == 1) and hook.covered == layout.n_cells
    assert len(seen) == {1: 1, 2: 2, 3: 3}[n_threads]
    done = _grower._subtract_siblings(jobs, None, True, hook)
    assert np.array_equal(done[0], expect[:4]) and np.shares_memory(done[0], got)
    hook.covered -= 1  # a cell not subtracted: never subtracted again, an error
    with pytest.raises(RuntimeError, match="subtracted siblings in"):
        _grower._subtract_siblings(jobs, None, True, hook)


@pytest.mark.parametrize("task_features", [0, 1])
def test_row_chunked_pass_raises_a_tasks_error_without_waiting_forever(monkeypatch,
                                                                         task_features):
    """The sums of a run wait for its last (piece, chunk) task in the same hand-off: a
    task that raises still counts as done, so the pass ends and raises its error (tasks
    of a whole run of features, or of one feature each)."""
    import threading

    from dtdecide.tree._kernels import _histogram

    rng = np.random.default_rng(0)
    n = 5003
    layout = BinLayout([5, 9, 3, 7, 4])
    Xb = np.asfortranarray(np.column_stack(
        [rng.integers(0, w, size=n) for w in layout.widths]).astype(np.uint8))
    target = HistogramTarget(codes=rng.integers(0, 3, size=n), n_classes=3)
    monkeypatch.setattr(_histogram, "_MIN_CHUNK_ROWS", 1)
    monkeypatch.setattr(_histogram, "_ROWS_PER_CELL", 0)
    monkeypatch.setattr(_histogram, "_TASK_FEATURES", task_features)
    original = _histogram._chunked_pass

    def failing(run, *args):
        def bad(features, into, lo, hi, clear):
            if lo > 0 and features[-1] == 4:
                raise ArithmeticError("planted")
            return run(features, into, lo, hi, clear)
        return original(bad, *args)

    monkeypatch.setattr(_histogram, "_chunked_pass", failing)
    raised = []

    def fit():
        with kernels("compiled"), ThreadPool(3) as pool:
            try:
                build_histograms(Xb, None, None, 1, layout, target, pool=pool)
            except ArithmeticError as exc:
                raised.append(exc)

    thread = threading.Thread(target=fit, daemon=True)
    thread.start()
    thread.join(60)
    assert not thread.is_alive() and raised


@pytest.mark.parametrize("with_counts", [False, True])
def test_chunk_kernels_clear_and_sum_cells(with_counts):
    """A row-chunked task's kernel clears its cells itself (``clear_lo:clear_hi`` of
    every slot, counts too), and the chunks' sums add each part's cells in turn: the
    same as NumPy's slice assignment and additions."""
    from dtdecide.tree._kernels import _compiled

    rng = np.random.default_rng(3)
    n, n_slots = 400, 3
    layout = BinLayout([4, 6, 5])
    Xb = np.asfortranarray(np.column_stack(
        [rng.integers(0, w, size=n) for w in layout.widths]).astype(np.uint8))
    codes = rng.integers(0, 2, size=n)
    slots = rng.integers(0, n_slots, size=n).astype(np.int32)
    stride = layout.n_cells * 2
    base = (slots.astype(np.int64) * stride + codes).astype(np.int32)
    features = np.array([1], dtype=np.intp)  # cells 4:10
    a, b = int(layout.offsets[1]), int(layout.offsets[2])
    hist = rng.integers(1, 9, size=(n_slots, layout.n_cells, 2)).astype(np.float32)
    counts = rng.integers(1, 9, size=(n_slots, layout.n_cells)).astype(np.int32)
    want_h, want_c = hist.copy(), counts.copy()
    want_h[:, a:b] = 0
    if with_counts:
        want_c[:, a:b] = 0
    for i in range(n):  # the rows' counts, by hand
        want_h[slots[i], a + Xb[i, 1], codes[i]] += 1
        if with_counts:
            want_c[slots[i], a + Xb[i, 1]] += 1
    _compiled.hist_classes(Xb, np.arange(1), False, slots, True, base, codes,
                           np.zeros((0, 1)), 2, features, layout.offsets, layout.widths,
                           hist, counts, with_counts, a, b)
    assert np.array_equal(hist, want_h) and np.array_equal(counts, want_c)
    # two more chunks' parts summed into cells a:b only, in turn
    parts = rng.integers(0, 5, size=(2, *hist.shape)).astype(np.float32)
    count_parts = rng.integers(0, 5, size=(2, *counts.shape)).astype(np.int32)
    want_h[:, a:b] += parts[0][:, a:b] + parts[1][:, a:b]
    if with_counts:
        want_c[:, a:b] += count_parts[0][:, a:b] + count_parts[1][:, a:b]
    _compiled.add_chunk_cells(hist, counts, with_counts, parts, count_parts, a, b)
    assert np.array_equal(hist, want_h) and np.array_equal(counts, want_c)


def test_row_chunked_histograms_grow_the_same_tree(monkeypatch):
    """Gini trees with the histograms shared out by rows on 3 and 4 threads are the tree
    of one thread and of the NumPy twins."""
    from dtdecide.tree._kernels import _histogram

    X, signal, rng = data(11, 4000)
    y = signal > 0.2
    kw = dict(max_depth=6, min_samples_leaf=2, random_state=0)
    with kernels("numpy"):
        ref = ProfitTreeClassifier(**kw).fit(X, y)
    monkeypatch.setattr(_histogram, "_MIN_CHUNK_ROWS", 1)
    monkeypatch.setattr(_histogram, "_ROWS_PER_CELL", 0)
    used = []
    original = _histogram._chunked_pass
    monkeypatch.setattr(_histogram, "_chunked_pass",
                        lambda *args: used.append(1) or original(*args))
    with kernels("compiled"):
        one = ProfitTreeClassifier(**kw).fit(X, y)
        assert not used
        for n_jobs in (3, 4):
            many = ProfitTreeClassifier(**kw, n_jobs=n_jobs).fit(X, y)
            assert_same_tree(one.tree_, many.tree_)
    assert used
    assert_same_tree(ref.tree_, one.tree_)


@pytest.mark.parametrize("criterion", ["gini", "profit", "weighted", "regressor"])
def test_partition_stretches_grow_the_same_tree(monkeypatch, criterion):
    """Level by level on more than two threads the partition leaves each range's rows
    in its own stretch of one buffer (read where they are by the histograms): the trees
    of 3 and 16 threads are the tree of 1 and 2 threads, with stretches that hold their
    rows and with stretches too short (no margin: ranges collected again), float32
    counts (row-chunked) and float64 sums (weights, regression) alike."""
    from dtdecide.tree._algorithms import _rows

    X, signal, rng = data(5, 6000)
    kw = dict(max_depth=7, min_samples_leaf=2, random_state=0)
    fit_kw = {}
    if criterion == "regressor":
        est, y = ProfitTreeRegressor, signal
    else:
        est, y = ProfitTreeClassifier, signal > 0.1
        if criterion == "profit":
            kw.update(criterion="profit", decision_matrix=LEVEL_MATRIX)
            y = np.where(y, "good", "bad")
        elif criterion == "weighted":
            fit_kw["sample_weight"] = rng.uniform(0.5, 2.0, size=y.size)
    used, n_ranges = [], []
    original = _rows._Partition._stretches

    def spy(self, args, ranges, *rest):
        got = original(self, args, ranges, *rest)
        used.append(got[5] is not None)
        n_ranges.append(len(ranges))
        return got

    monkeypatch.setattr(_rows._Partition, "_stretches", spy)
    monkeypatch.setattr(_rows, "_MIN_RANGE_ROWS", 1)  # two ranges a thread
    with kernels("compiled"):
        one = est(**kw).fit(X, y, **fit_kw)
        assert not used
        for margin in (None, 0):
            if margin == 0:
                monkeypatch.setattr(_rows, "_STRETCH_MARGIN_ROWS", 0)
                monkeypatch.setattr(_rows, "_STRETCH_MARGIN_SHIFT", 62)
            for n_jobs in (2, 3, 16):
                used.clear()
                n_ranges.clear()
                many = est(**kw, n_jobs=n_jobs).fit(X, y, **fit_kw)
                assert_same_tree(one.tree_, many.tree_)
                if n_jobs > 2:  # stretches kept (margin) or collected again (none)
                    assert used and (margin is None) == all(used)
                    assert max(n_ranges) == n_jobs * _rows._RANGES_PER_THREAD


@pytest.mark.parametrize("criterion", ["gini", "entropy", "profit", "weighted", "regressor"])
def test_scans_by_blocks_of_nodes_grow_the_same_tree(monkeypatch, criterion):
    """On many threads the split scans of numeric features are shared out as runs of
    features x blocks of nodes (each block into outputs of its own): the trees of 3 and
    16 threads are the tree of one thread, for every scan mode (counts as weights, row
    counts, raw weights, mapped profit channels, regression)."""
    from dtdecide.tree._kernels import _splitter

    rng = np.random.default_rng(3)
    n = 4000
    X = pd.DataFrame(rng.normal(size=(n, 5)), columns=list("abcde"))
    X.iloc[rng.random(n) < 0.05, 1] = np.nan
    signal = X["a"].fillna(0) - X["b"].fillna(0.3) + X["c"] * X["d"] + rng.normal(size=n)
    kw = dict(max_depth=7, min_samples_leaf=3, random_state=0)
    fit_kw = {}
    if criterion == "regressor":
        est, y = ProfitTreeRegressor, signal.to_numpy()
    else:
        est, y = ProfitTreeClassifier, (signal > 0.2).to_numpy()
        if criterion == "profit":
            kw.update(criterion="profit", decision_matrix=LEVEL_MATRIX)
            y = np.where(y, "good", "bad")
        elif criterion == "weighted":
            fit_kw["sample_weight"] = rng.uniform(0.5, 2.0, size=n)
        else:
            kw.update(criterion=criterion)
    monkeypatch.setattr(_splitter, "_SCAN_INLINE_CELLS", 0)
    monkeypatch.setattr(_splitter, "_SCAN_BLOCK_NODES", 2)
    monkeypatch.setattr(_splitter, "_SCAN_MAX_BLOCKS", 4)  # off by default
    blocks = []
    original = _splitter.feature_row_split
    monkeypatch.setattr(_splitter, "feature_row_split",
                        lambda *a: blocks.append(original(*a)[1]) or original(*a))
    with kernels("compiled"):
        one = est(**kw).fit(X, y, **fit_kw)
        for n_jobs in (3, 16):
            blocks.clear()
            many = est(**kw, n_jobs=n_jobs).fit(X, y, **fit_kw)
            assert_same_tree(one.tree_, many.tree_)
            assert max(blocks) > 1  # some level scanned by blocks of nodes


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 3000),
       max_bins=st.integers(2, 300), fortran=st.booleans())
def test_binning_equals_numpy_twin(seed, n, max_bins, fortran):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4)) * 10.0 ** rng.uniform(-3, 3)
    X[:, 1] = np.round(X[:, 1])
    X[:, 3] = rng.integers(0, 40, size=n)  # categorical codes
    X[rng.random(X.shape) < 0.1] = np.nan
    is_cat = np.array([False, False, False, True])
    binner = Binner(max_bins=max_bins, random_state=0).fit(X, is_cat)
    for Xt in (X, X * 1.7 - 0.5, X[::3]):  # unseen values, codes and a strided view
        Xt = np.asfortranarray(Xt) if fortran else np.ascontiguousarray(Xt)
        a, b = both(lambda Xt=Xt: binner.transform(Xt))
        assert a.dtype == b.dtype and np.array_equal(a, b)
        assert b.flags.f_contiguous


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(10_001, 60_000),
       frac=st.floats(0.0, 1.0), generator=st.booleans())
def test_subsample_rows_equal_numpy_choice(seed, n, frac, generator):
    # the compiled draw replays choice's tail shuffle: the same rows and the generator
    # left in the same state, for any size of the tail-shuffle regime (and choice itself
    # outside it)
    size = max(1, min(n - 1, int(round(frac * n))))
    rngs = [np.random.default_rng(seed) for _ in range(3)]
    if generator:  # a used generator: its buffered 32-bit half must be consumed alike
        for rng in rngs:
            rng.integers(0, 2**31, size=3, dtype=np.int32)
    want = rngs[0].choice(n, size=size, replace=False, shuffle=False)
    got = _binning.subsample_rows(rngs[1], n, size, compiled=True)
    assert got.dtype == np.int64 and np.array_equal(got, np.sort(want))
    if _binning._tail_shuffle(n, size):  # the kernel itself, unsorted, no fallback
        assert np.array_equal(_binning._compiled_tail(rngs[2], n, size), want)
    else:
        rngs[2].choice(n, size=size, replace=False, shuffle=False)
    assert len({rng.integers(0, 2**62) for rng in rngs}) == 1


def test_compiled_subsample_is_used_and_gives_the_same_bins(monkeypatch):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30_000, 3))
    assert _binning._compiled_draw_ok()  # the once-per-process check, done before counting
    calls = []
    tail = _binning._compiled_tail
    monkeypatch.setattr(_binning, "_compiled_tail",
                        lambda *a: calls.append(a[1:]) or tail(*a))
    # a generator handed in (an integer seed takes seeded_subsample_rows, below)
    a, b = both(lambda: Binner(subsample=10_000, random_state=np.random.default_rng(7))
                .fit(X).bin_thresholds_)
    assert calls == [(30_000, 10_000)]
    assert all(np.array_equal(x, y) for x, y in zip(a, b))


@SETTINGS
@given(seed=st.integers(0, 2**63 - 1), n=st.integers(10_001, 60_000), frac=st.floats(0.0, 1.0))
def test_seeded_subsample_rows_equal_numpy_choice(seed, n, frac):
    # from the generator's raw outputs alone (bounded draws, swaps, bitmap): the sorted
    # rows of a fresh generator's choice
    size = max(1, min(n - 1, int(round(frac * n))))
    want = np.sort(np.random.default_rng(seed).choice(n, size=size, replace=False,
                                                      shuffle=False))
    if _binning._tail_shuffle(n, size):  # the kernel itself, no fallback
        got = _binning._seed_tail(seed, n, size)
        assert got.dtype == np.int64 and np.array_equal(got, want)
    assert np.array_equal(_binning.seeded_subsample_rows(seed, n, size, compiled=True), want)


@SETTINGS
@given(seed=st.integers(0, 2**63 - 1), n=st.integers(2, 300_000), frac=st.floats(0.0, 0.05))
def test_floyd_rows_equal_numpy_choice(seed, n, frac):
    # Floyd's regime (NumPy's hash set of draws; here a bitmap): the sorted rows of a
    # fresh generator's choice, from its raw outputs alone; too few raw outputs: None
    size = max(1, min(n - 1, int(round(frac * n))))
    if _binning._tail_shuffle(n, size):
        size = max(1, n // 20)
    want = np.sort(np.random.default_rng(seed).choice(n, size=size, replace=False,
                                                      shuffle=False))
    got = _binning._seed_floyd(seed, n, size)
    assert got.dtype == np.int64 and np.array_equal(got, want)
    assert np.array_equal(_binning.seeded_subsample_rows(seed, n, size, compiled=True), want)
    if size > 200:
        from dtdecide.tree._kernels import _compiled_sums

        raw = np.random.default_rng(seed).bit_generator.random_raw(size // 4)
        bits = np.zeros((n + 63) // 64, dtype=np.uint64)
        assert not _compiled_sums.sorted_floyd_rows(raw, n, bits, np.empty(size, np.int64))


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), top=st.integers(2**31, 2**32 - 2),
       size=st.integers(1, 400))
def test_tail_draws_equal_generator_integers(seed, top, size):
    # bounds above 2**31: about a third of the 32-bit words are rejected (NumPy skips
    # them alike); too few raw outputs: -1
    from dtdecide.tree._kernels import _compiled_sums

    n = top + 1
    want = np.random.default_rng(seed).integers(0, np.arange(n - 1, n - size - 1, -1),
                                                endpoint=True)
    raw = np.random.default_rng(seed).bit_generator.random_raw(size + 64)
    draws = np.empty(size, dtype=np.int64)
    used = _compiled_sums.tail_draws(raw, n, draws)
    assert size <= used <= 2 * raw.shape[0] and np.array_equal(draws, want)
    assert _compiled_sums.tail_draws(raw[: size // 4], n, draws) == -1


def test_seeded_subsample_is_used_and_gives_the_same_bins(monkeypatch):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(30_000, 3))
    assert _binning._seed_draw_ok()  # the once-per-process check, done before counting
    calls = []
    tail = _binning._seed_tail
    monkeypatch.setattr(_binning, "_seed_tail", lambda *a: calls.append(a) or tail(*a))
    a, b = both(lambda: Binner(subsample=10_000, random_state=7).fit(X).bin_thresholds_)
    assert calls == [(7, 30_000, 10_000)]
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    # a generator handed in is advanced as choice advances it: not from its raw outputs
    Binner(subsample=10_000, random_state=np.random.default_rng(7)).fit(X)
    assert len(calls) == 1


def test_early_draw_gives_the_binners_rows(monkeypatch):
    """The sub-sample drawn ahead on a worker thread (EarlyDraw) is the binner's own:
    taken only for the same seed, rows, size and kernels; a fit of more rows than the
    sub-sample with an integer random_state starts it and grows the one-thread tree."""
    from dtdecide.tree._estimator import _growing

    with ThreadPool(2) as pool:
        assert _binning.EarlyDraw.start(pool, 11, 50_000, 5_000, False) is None  # NumPy's
        assert _binning.EarlyDraw.start(pool, 11, 9_000, 500, True) is None  # few rows
        floyd = _binning.EarlyDraw.start(pool, 11, 50_000, 500, True)  # Floyd's regime
        assert np.array_equal(floyd.rows_for(11, 50_000, 500, True), np.sort(
            np.random.default_rng(11).choice(50_000, size=500, replace=False, shuffle=False)))
        early = _binning.EarlyDraw.start(pool, 11, 50_000, 5_000, True)
        assert early.rows_for(12, 50_000, 5_000, True) is None
        assert early.rows_for(11, 50_000, 4_000, True) is None
        assert np.array_equal(early.rows_for(11, 50_000, 5_000, True),
                              _binning.seeded_subsample_rows(11, 50_000, 5_000))
        assert early.rows_for(11, 50_000, 5_000, True) is None  # taken once
    rng = np.random.default_rng(5)
    X = rng.normal(size=(Binner().subsample + 5_000, 2))
    y = (X[:, 0] + rng.normal(size=X.shape[0]) > 0).astype(int)
    taken = []
    real = _binning.EarlyDraw.rows_for

    def spy(self, *key):
        rows = real(self, *key)
        taken.append(rows is not None)
        return rows

    monkeypatch.setattr(_binning.EarlyDraw, "rows_for", spy)
    kw = dict(max_depth=3, random_state=3)
    with kernels("compiled"):
        one = ProfitTreeClassifier(n_jobs=1, **kw).fit(X, y)
        assert taken == []  # one thread: drawn in place
        two = ProfitTreeClassifier(n_jobs=2, **kw).fit(X, y)
        assert taken == [True] and not {"_early_draw", "_early_seed"} & set(two.__dict__)
        ProfitTreeClassifier(n_jobs=2, max_depth=3).fit(X, y)  # random_state=None
    assert taken == [True]
    assert_same_tree(one.tree_, two.tree_)
    assert _growing._binner_seed(two) == _growing._binner_seed(one)


def test_binning_inf_error_is_the_numpy_twins():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(20000, 3))
    binner = Binner(random_state=0).fit(X)
    X[15000, 0], X[3000, 2] = np.inf, -np.inf
    for mode in ("numpy", "compiled"):
        with kernels(mode), pytest.raises(ValueError, match="column 2 contains infinite"):
            binner.transform(X)


def data(seed, n):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({
        "a": rng.normal(size=n),
        "b": rng.exponential(size=n).round(2),
        "c": pd.Categorical(rng.choice(list("pqrstuvw"), size=n)),
        "d": rng.integers(0, 5, size=n).astype(float),
    })
    X.loc[rng.random(n) < 0.1, "a"] = np.nan
    X.loc[rng.random(n) < 0.08, "c"] = np.nan
    signal = X["a"].fillna(0.5) - X["b"] + (X["c"].cat.codes % 3 == 1) + rng.normal(size=n)
    return X, signal.to_numpy(), rng


MATRIX = DecisionMatrix({"accept": [20.0, -10.0], "reject": [0.0, 0.0]},
                        levels=["good", "bad"], kind="revenue", costs={"accept": "offer"})

# no case costs: the profit grower histograms class counts and maps them to money
LEVEL_MATRIX = DecisionMatrix({"accept": [20.3, -10.7], "reject": [0.0, 0.0]},
                              levels=["good", "bad"])

CLASSIFIER_CASES = {
    "gini": dict(criterion="gini"),
    "entropy": dict(criterion="entropy"),
    "profit": dict(criterion="profit", decision_matrix=MATRIX),
    "profit-levels": dict(criterion="profit", decision_matrix=LEVEL_MATRIX),
    "case-rule": dict(criterion="profit", decision_matrix=MATRIX, decision_rule="case",
                      posterior_smoothing=0),
    "best-first": dict(criterion="gini", max_depth=None, max_leaf_nodes=9),
}


@pytest.mark.parametrize("case", list(CLASSIFIER_CASES))
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), weighted=st.booleans(), n_jobs=st.sampled_from([1, 2]))
def test_same_classifier_tree(case, seed, weighted, n_jobs):
    X, signal, rng = data(seed, 600)
    y = np.where(signal > 0.0, "good", "bad")
    costs = pd.DataFrame({"offer": rng.uniform(1, 5, size=y.size)})
    w = rng.integers(1, 4, size=y.size).astype(float) if weighted else None
    kw = {"max_depth": 5, "min_samples_leaf": 3, "random_state": 0, "n_jobs": n_jobs,
          **CLASSIFIER_CASES[case]}
    fit_kw = {"sample_weight": w}
    if kw.get("decision_matrix") is MATRIX:
        fit_kw["costs"] = costs
    a, b = both(lambda: ProfitTreeClassifier(**kw).fit(X, y, **fit_kw))
    assert_same_tree(a.tree_, b.tree_)
    assert np.array_equal(a.predict(X), b.predict(X))


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_same_ordinal_and_regression_trees(seed):
    X, signal, rng = data(seed, 500)
    y = np.digitize(signal, [-1.0, 0.5])
    ordinal = DecisionMatrix([[5.0, 0.0, -1.0], [0.0, 3.0, 0.0], [-4.0, 0.0, 6.0]],
                             levels=[0, 1, 2], decisions=["x", "y", "z"])
    a, b = both(lambda: ProfitTreeClassifier(decision_matrix=ordinal, ordinal=True,
                                             max_depth=4, random_state=0).fit(X, y))
    assert_same_tree(a.tree_, b.tree_)
    w = rng.uniform(0.5, 2.0, size=signal.size)
    a, b = both(lambda: ProfitTreeRegressor(max_depth=5, random_state=0, n_jobs=2).fit(
        X, signal, sample_weight=w))
    assert_same_tree(a.tree_, b.tree_)


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 300), with_costs=st.booleans(),
       grouped=st.booleans(), squares=st.booleans())
def test_case_node_sums_equal_numpy_twin(seed, n, with_costs, grouped, squares):
    from dtdecide.tree._structure._caserule import case_node_sums

    rng = np.random.default_rng(seed)
    n_nodes = 15  # a full binary tree of depth 3
    parent = np.array([-1] + [(v - 1) // 2 for v in range(1, n_nodes)])
    leaf = rng.integers(0, n_nodes, size=n)  # cases may stop at inner nodes too
    post = rng.dirichlet(np.ones(3), size=n_nodes)
    post[rng.random(n_nodes) < 0.1] = np.nan  # a node without inputs: no decision
    costs = pd.DataFrame({"c": rng.uniform(0, 4, size=n)}) if with_costs else None
    if with_costs:
        costs.loc[rng.random(n) < 0.1, "c"] = np.nan  # missing costs: weight 0
        m = DecisionMatrix({"a": [9.0, 1.0, -3.0], "b": [0.0, 2.0, 0.5], "c": [1.0, 1.0, 1.0]},
                           levels=[0, 1, 2], kind="revenue", costs={"a": "c"})
    else:
        m = DecisionMatrix({"a": [9.0, 1.0, -3.0], "b": [0.0, 2.0, 0.5]}, levels=[0, 1, 2])
    cons = m.resolve(costs, n_samples=n)
    target = rng.integers(0, 3, size=n)
    q = cons.q_actual(target)
    w = rng.uniform(0, 2, size=n)
    group = rng.integers(0, 3, size=n) if grouped else None
    kw = dict(group=group, n_groups=3 if grouped else 1, squares=squares)
    a, b = both(lambda: case_node_sums(parent, leaf, post, cons, q, w, **kw))
    for x, y in zip(a, b) if squares else [(a, b)]:
        np.testing.assert_allclose(y, x, rtol=1e-12, atol=1e-9)
    # q=None with the targets: the consequences computed where they are summed
    c, d = both(lambda: case_node_sums(parent, leaf, post, cons, None, w, target=target,
                                       **kw))
    for x, y in [(a, c), (b, d)] if not squares else list(zip(a, c)) + list(zip(b, d)):
        assert np.array_equal(x, y)


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 300), chunk=st.sampled_from([7, 1 << 16]),
       forms=st.lists(st.sampled_from(["c1", "c2", "const", "none"]), min_size=3, max_size=3),
       grouped=st.booleans(), unit=st.booleans(), nan_rate=st.sampled_from([0.0, 0.1]))
def test_case_node_sums_of_every_cost_form(seed, n, chunk, forms, grouped, unit, nan_rate):
    # the compiled kernel reads the matrix's cost columns as they are (resolve's
    # cost_columns: one column, several, constants), a (cases x decisions) cost array or
    # a broadcast row of constants, and computes each case's consequences from its
    # target: the same sums bit for bit in every form, with q given or not, for any
    # n_jobs; the twin's within 1e-12 (bit for bit on one chunk)
    from unittest import mock

    from dtdecide.decision._consequences import Consequences
    from dtdecide.tree._structure import _caserule

    rng = np.random.default_rng(seed)
    n_nodes = 15
    parent = np.array([-1] + [(v - 1) // 2 for v in range(1, n_nodes)])
    leaf = rng.integers(0, n_nodes, size=n).astype(np.int32)
    post = rng.dirichlet(np.ones(3), size=n_nodes)
    post[rng.random(n_nodes) < 0.1] = np.nan
    cols = {k: rng.uniform(0, 4, size=n) for k in ("c1", "c2")}
    for c in cols.values():
        c[rng.random(n) < nan_rate] = np.nan
    spec = {d: (f if f.startswith("c") and f != "const" else 0.5 * (j + 1))
            for j, (d, f) in enumerate(zip("abc", forms)) if f != "none"}
    m = DecisionMatrix({"a": [9.0, 1.0, -3.0], "b": [0.0, 2.0, 0.5], "c": [1.0, 1.0, 1.0]},
                       levels=[0, 1, 2], kind="revenue", costs=spec)
    lazy = m.resolve(pd.DataFrame(cols), n_samples=n)
    made = Consequences(lazy.base, None if lazy.case_costs is None else np.array(
        lazy.case_costs), None, lazy.sign, None, n)
    target = rng.integers(0, 3, size=n).astype(np.int8)
    q = made.q_actual(target)
    w = np.broadcast_to(1.0, (n,)) if unit else rng.uniform(0, 2, size=n)
    kw = dict(group=target if grouped else None, n_groups=3 if grouped else 1, squares=True)
    with mock.patch.object(_caserule, "CASE_SUM_CHUNK", chunk):
        with kernels("numpy"):
            twin = _caserule.case_node_sums(parent, leaf, post, made, q, w, **kw)
        with kernels("compiled"):
            runs = [_caserule.case_node_sums(parent, leaf, post, cons, qq, w, n_jobs=j,
                                             target=target, **kw)
                    for cons in (lazy, made) for qq in (None, q) for j in (1, 2, 3)]
    for other in runs[1:]:
        for x, y in zip(runs[0], other):
            assert np.array_equal(x, y)
    for x, y in zip(runs[0], twin):
        if chunk >= n:
            assert np.array_equal(x, y)
        np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-9)
    if spec and not any(isinstance(c, str) for c in spec.values()):  # a broadcast row
        assert lazy.case_costs.strides[0] == 0


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 400), n_nodes=st.integers(1, 15),
       n_levels=st.integers(1, 4), k=st.integers(0, 2),
       weights=st.sampled_from(["unit", "whole", "float"]), chunk=st.sampled_from([5, 64, 1 << 16]))
def test_level_sums_equal_numpy_twin_for_any_n_jobs(seed, n, n_nodes, n_levels, k, weights,
                                                    chunk):
    # the compiled sums per chunk of rows, added in chunk order: bit for bit the same for
    # every n_jobs; the twin's within 1e-12, bit for bit on one chunk or whole numbers
    from unittest import mock

    from dtdecide.tree._structure import _leaf

    rng = np.random.default_rng(seed)
    node = rng.integers(0, n_nodes, size=n).astype(np.int32)
    level = rng.integers(0, n_levels, size=n).astype(np.int8)
    F = {"unit": np.broadcast_to(1.0, (n,)), "whole": rng.integers(0, 4, size=n) * 1.0,
         "float": rng.uniform(0, 2, size=n)}[weights]
    columns = rng.normal(size=(n, k)) * 10.0 ** rng.integers(-3, 4, size=k)
    with mock.patch.object(_leaf, "LEVEL_SUM_CHUNK", chunk):
        with kernels("numpy"):
            w0, s0 = _leaf.level_sums(node, level, F, columns, n_nodes, n_levels)
        with kernels("compiled"):
            runs = [_leaf.level_sums(node, level, F, columns, n_nodes, n_levels, n_jobs=j)
                    for j in (1, 2, 3)]
    assert s0.shape == (n_nodes, n_levels, 1 + k) and w0.shape == (n_nodes,)
    for w, s in runs[1:]:
        assert np.array_equal(w, runs[0][0]) and np.array_equal(s, runs[0][1])
    w1, s1 = runs[0]
    if chunk >= n or weights != "float":
        assert np.array_equal(w0, w1) and np.array_equal(s0[..., 0], s1[..., 0])
    if chunk >= n:
        assert np.array_equal(s0, s1)
    np.testing.assert_allclose(w1, w0, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(s1, s0, rtol=1e-12, atol=1e-9)
    # the twin's sums are the per-row definition's
    np.testing.assert_allclose(w0, np.bincount(node, weights=F, minlength=n_nodes))
    onehot = np.zeros((n, n_levels))
    onehot[np.arange(n), level] = 1.0
    per_row = (F[:, None, None] * onehot[:, :, None]
               * np.concatenate([np.ones((n, 1)), columns], axis=1)[:, None, :])
    expected = np.zeros((n_nodes, n_levels, 1 + k))
    np.add.at(expected, node, per_row)
    np.testing.assert_allclose(s0, expected, rtol=1e-9, atol=1e-6)


@pytest.mark.parametrize("case", ["gini", "profit"])
def test_decision_stats_in_chunks_are_the_same_for_any_n_jobs(monkeypatch, case):
    # many chunks of rows (a small LEVEL_SUM_CHUNK) and fractional weights: the node
    # statistics and the profit grower's node values are the same for every n_jobs
    from dtdecide.tree._structure import _leaf

    monkeypatch.setattr(_leaf, "LEVEL_SUM_CHUNK", 97)
    X, signal, rng = data(11, 2_000)
    y = np.where(signal > 0.0, "good", "bad")
    costs = pd.DataFrame({"offer": rng.uniform(1, 5, size=y.size)})
    w = rng.uniform(0.5, 2.0, size=y.size)
    kw = dict(max_depth=4, random_state=0, **CLASSIFIER_CASES[case])
    kw.setdefault("decision_matrix", MATRIX)
    with kernels("compiled"):
        fits = [ProfitTreeClassifier(n_jobs=j, **kw).fit(X, y, sample_weight=w, costs=costs)
                for j in (1, 2, 3)]
    for other in fits[1:]:
        assert_same_tree(fits[0].tree_, other.tree_)
        for name in ("weight", "class_weight", "cost_var_sums"):
            assert np.array_equal(getattr(fits[0]._decision_stats_, name),
                                  getattr(other._decision_stats_, name)), name


def test_compiled_decision_stats_of_case_specific_arrays():
    # the case-specific consequence arrays sum through the same kernel (by level, one
    # column per decision): the same fitted figures as the twin's, on one chunk
    rng = np.random.default_rng(3)
    X, signal, _ = data(3, 500)
    y = np.where(signal > 0.0, "good", "bad")
    q = rng.normal(size=(y.size, 2, 3))
    m = DecisionMatrix.case_specific(levels=["good", "bad"], decisions=["a", "b", "c"])
    kw = dict(decision_matrix=m, max_depth=4, random_state=0, n_jobs=2)
    w = rng.uniform(0.5, 2.0, size=y.size)
    a, b = both(lambda: ProfitTreeClassifier(**kw).fit(X, y, sample_weight=w, costs=q))
    assert_same_tree(a.tree_, b.tree_)
    sa, sb = a._decision_stats_, b._decision_stats_
    assert sa.is_case_specific and sb.is_case_specific
    for name in ("weight", "class_weight", "q_sums"):
        assert np.array_equal(getattr(sa, name), getattr(sb, name)), name


@pytest.mark.parametrize("grouped", [False, True])
def test_case_node_sums_in_chunks_are_the_same_for_any_n_jobs(monkeypatch, grouped):
    # above CASE_SUM_CHUNK cases the compiled sums are taken per chunk and added in
    # chunk order: equal bit for bit for every thread count, and to the twin within 1e-12
    from dtdecide.tree._structure import _caserule

    monkeypatch.setattr(_caserule, "CASE_SUM_CHUNK", 97)
    rng = np.random.default_rng(5)
    n, n_nodes = 1_000, 15
    parent = np.array([-1] + [(v - 1) // 2 for v in range(1, n_nodes)])
    leaf = rng.integers(7, n_nodes, size=n)
    post = rng.dirichlet(np.ones(3), size=n_nodes)
    costs = pd.DataFrame({"c": rng.uniform(0, 4, size=n)})
    m = DecisionMatrix({"a": [9.0, 1.0, -3.0], "b": [0.0, 2.0, 0.5]}, levels=[0, 1, 2],
                       kind="revenue", costs={"a": "c"})
    cons = m.resolve(costs, n_samples=n)
    target = rng.integers(0, 3, size=n)
    q = cons.q_actual(target)
    w = rng.uniform(0, 2, size=n)
    kw = dict(group=rng.integers(0, 3, size=n) if grouped else None,
              n_groups=3 if grouped else 1, squares=True)
    with kernels("compiled"):
        one = _caserule.case_node_sums(parent, leaf, post, cons, q, w, n_jobs=1, **kw)
        for n_jobs in (2, 3):
            other = _caserule.case_node_sums(parent, leaf, post, cons, q, w, n_jobs=n_jobs,
                                             **kw)
            for x, y in zip(one, other):
                assert np.array_equal(x, y)
        # compact inputs (int32 leaves, int8 level codes) are cast chunk by chunk: the same
        compact = dict(kw, group=None if kw["group"] is None else kw["group"].astype(np.int8))
        other = _caserule.case_node_sums(parent, leaf.astype(np.int32), post, cons, q, w,
                                         n_jobs=2, **compact)
        for x, y in zip(one, other):
            assert np.array_equal(x, y)
        # q=None: the consequences computed chunk by chunk on the threads, the same
        other = _caserule.case_node_sums(parent, leaf, post, cons, None, w, n_jobs=2,
                                         target=target, **kw)
        for x, y in zip(one, other):
            assert np.array_equal(x, y)
    with kernels("numpy"):
        twin = _caserule.case_node_sums(parent, leaf, post, cons, q, w, **kw)
        lazy = _caserule.case_node_sums(parent, leaf, post, cons, None, w, target=target,
                                        **kw)
        for x, y in zip(twin, lazy):
            assert np.array_equal(x, y)
    for x, y in zip(one, twin):
        np.testing.assert_allclose(x, y, rtol=1e-12, atol=1e-9)
    assert one[0][0].sum() != 0
    with kernels("compiled"):  # a broadcast weight of 1 (the estimators' default)
        ones = _caserule.case_node_sums(parent, leaf, post, cons, q,
                                        np.broadcast_to(1.0, (n,)), n_jobs=2, **kw)
        plain = _caserule.case_node_sums(parent, leaf, post, cons, q, np.ones(n), **kw)
    for x, y in zip(ones, plain):
        assert np.array_equal(x, y)


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), fortran=st.booleans())
def test_apply_equals_numpy_twin(seed, fortran):
    """Leaves of unseen rows: NaN, unseen and fractional codes, infinities."""
    X, signal, rng = data(seed % 1000, 400)
    est = ProfitTreeClassifier(max_depth=5, min_samples_leaf=2, random_state=0).fit(
        X, signal > 0)
    tree = est.tree_
    Xe = rng.normal(size=(300, 4)) * 2
    Xe[:, 2] = rng.integers(-2, 11, size=300) + np.where(rng.random(300) < 0.1, 0.5, 0.0)
    Xe[rng.random(Xe.shape) < 0.1] = np.nan
    Xe[rng.random(Xe.shape) < 0.02] = np.inf
    Xe = np.asfortranarray(Xe) if fortran else Xe
    a, b = both(lambda: tree.apply(Xe))
    assert np.array_equal(a, b)
    assert np.array_equal(tree._route_block(Xe), b)  # the level-by-level twin


def test_apply_threads_share_rows():
    X, signal, rng = data(3, 600)
    est = ProfitTreeClassifier(max_depth=6, random_state=0).fit(X, signal > 0)
    Xe = np.repeat(est._encode_X(X), 120, axis=0)  # enough rows for several ranges
    with kernels("compiled"):
        one = est.tree_.apply(Xe)
        assert np.array_equal(est.tree_.apply(Xe, n_threads=3), one)
    with kernels("numpy"):
        assert np.array_equal(est.tree_.apply(Xe, n_threads=3), one)


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1), from_start=st.booleans())
def test_route_binned_equals_numpy_twin(seed, from_start):
    from dtdecide.tree._algorithms._rows import route_binned

    rng = np.random.default_rng(seed)
    n_nodes = 15  # a full binary tree of depth 3; nodes 7.. are leaves
    left = np.array([2 * v + 1 if v < 7 else -1 for v in range(n_nodes)])
    right = np.where(left >= 0, left + 1, -1)
    feature = np.where(left >= 0, rng.integers(0, 3, size=n_nodes), -1)
    tables = rng.random((n_nodes, 6)) < 0.5
    Xb = np.asfortranarray(rng.integers(0, 6, size=(200, 3)).astype(np.uint8))
    start = rng.integers(0, n_nodes, size=200) if from_start else None
    a, b = both(lambda: route_binned(Xb, left, right, feature, tables, start=start))
    assert np.array_equal(a, b) and (left[b] < 0).all()


def test_partition_on_threads_same_tree_as_one_thread():
    """Ranges of rows counted, then written in place, on several threads."""
    X, signal, rng = data(7, 3000)
    w = rng.integers(1, 3, size=signal.size).astype(float)
    y = signal > 0.3
    kw = dict(max_depth=6, min_samples_leaf=2, random_state=0)
    with kernels("compiled"):
        one = ProfitTreeClassifier(**kw).fit(X, y, sample_weight=w)
        three = ProfitTreeClassifier(**kw, n_jobs=3).fit(X, y, sample_weight=w)
    with kernels("numpy"):
        ref = ProfitTreeClassifier(**kw, n_jobs=3).fit(X, y, sample_weight=w)
    assert_same_tree(one.tree_, three.tree_)
    assert_same_tree(ref.tree_, three.tree_)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n_jobs=st.sampled_from([1, 2]),
       mode=st.sampled_from(["level", "best-first", "profit", "weighted"]))
def test_grower_leaves_are_the_applied_leaves(seed, n_jobs, mode):
    """The leaf of every training row as the partitions leave it is ``tree.apply``'s
    (categorical inputs, missing values), under both kernels and any thread count."""
    from dtdecide._parallel import thread_pool
    from dtdecide.tree._algorithms._grower import grow_tree
    from dtdecide.tree._structure._encode import fit_encode

    X, signal, rng = data(seed % 1000, 700)
    Xc, enc = fit_encode(X)
    binner = Binner(max_bins=32).fit(Xc, enc.is_categorical)
    Xb = binner.transform(Xc)
    y = (signal > 0).astype(int)
    kw = dict(max_depth=6, min_samples_leaf=2, min_samples_split=4)
    if mode == "best-first":
        kw.update(max_depth=None, max_leaf_nodes=12)
    elif mode == "profit":
        kw.update(criterion="profit", case_profit=rng.normal(size=(y.size, 2)), n_classes=2)
    elif mode == "weighted":
        kw.update(sample_weight=rng.uniform(0.5, 2.0, size=y.size))

    def run():
        with thread_pool(n_jobs) as pool:
            return grow_tree(Xb, binner, y=y, pool=pool, return_leaves=True, **kw)

    (tree_a, leaves_a), (tree_b, leaves_b) = both(run)
    assert_same_tree(tree_a, tree_b)
    assert np.array_equal(leaves_a, leaves_b)
    assert np.array_equal(leaves_b, tree_b.apply(Xc))
    assert tree_b.is_leaf[leaves_b].all()


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.sampled_from([1, 37, 5000]),
       n_threads=st.sampled_from([1, 2, 3, 5]), keep_alive=st.booleans(),
       with_rows=st.booleans(), margin=st.sampled_from([None, 0]))
def test_partition_equals_numpy_twin(seed, n, n_threads, keep_alive, with_rows, margin):
    """The compiled partition (a buffer of built rows copied out every 512 rows, one or
    two ends, counted then collected, alive rows kept) writes the twin's leaves and rows:
    random levels whose nodes are split or not, children histogrammed, kept or dropped."""
    from dtdecide.tree._algorithms._rows import _Partition
    from dtdecide.tree._kernels import _histogram

    rng = np.random.default_rng(seed)
    n_total = n + int(rng.integers(0, 50))
    Xb = np.asfortranarray(rng.integers(0, 6, size=(n_total, 3)).astype(np.uint8))
    node_lo, n_nodes = 5, 9
    # rows of the level's nodes, of nodes outside it (below and above) and of leaves
    leaf0 = rng.integers(node_lo - 2, node_lo + n_nodes + 2, size=n_total).astype(np.int32)
    rows = (np.sort(rng.choice(n_total, size=n, replace=False)).astype(np.int32)
            if with_rows else None)
    k_of_node = np.full(n_nodes, -1, dtype=np.int32)
    split = np.flatnonzero(rng.random(n_nodes) < 0.7)
    k_of_node[split] = np.arange(split.size, dtype=np.int32)
    n_pairs = split.size
    feat = rng.integers(0, 3, size=n_pairs).astype(np.intp)
    table = rng.random((n_pairs, 6)) < 0.5
    child_node = np.arange(100, 100 + 2 * n_pairs, dtype=np.int32)
    slot_of_child = rng.permutation(2 * n_pairs).astype(np.int32)
    slot_of_child[rng.random(2 * n_pairs) < 0.2] = -1  # dropped children
    n_built = int(rng.integers(0, 2 * n_pairs + 1))
    n_small_cont = int(rng.integers(0, n_built + 1))
    # a level keeps a row list only growing best first (with its alive rows)
    rows_arg = rows if keep_alive else None
    n_level = n_total if rows_arg is None else n
    bounds = np.linspace(0, n_level, n_threads + 1).astype(np.intp)
    ranges = [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]

    def make(leaf, level_rows):
        return _Partition(Xb, level_rows, leaf, node_lo, k_of_node, feat, table,
                          slot_of_child, n_built, n_small_cont, child_node, keep_alive)

    leaf_a = leaf0.copy()
    with kernels("numpy"):
        twin = make(leaf_a, None if rows_arg is None else rows_arg.copy())
        expect = twin((0, n_level))
    leaf_b = leaf0.copy()
    # growing level by level the partition's threads also work out the histograms'
    # offsets of the rows they wrote (slot_bases_of): as build_histograms would
    codes = rng.integers(0, 3, size=n_total)
    layout = BinLayout(np.array([7, 4, 7]))
    fill = _histogram.slot_bases_of(layout, HistogramTarget(codes=codes, n_classes=3),
                                      n_built)
    # margin 0: on more than two threads each range's stretch of the built rows holds
    # only its share of them (no margin), so that a range overflows and is collected
    # again (else the stretches hold every range's rows but in the smallest levels)
    from dtdecide.tree._algorithms import _rows

    tight = (mock.patch.multiple(_rows, _STRETCH_MARGIN_ROWS=0, _STRETCH_MARGIN_SHIFT=62)
             if margin == 0 else nullcontext())
    with kernels("compiled"), tight:
        part = make(leaf_b, None if rows_arg is None else rows_arg.copy())
        assert part.compiled
        n_built_rows = expect[0].shape[0]
        if n_threads == 1:
            got = part.compiled_ranges(ranges, None, n_built_rows, fill)
        else:
            with ThreadPool(n_threads) as pool:
                got = part.compiled_ranges(ranges, pool, n_built_rows, fill)
    assert np.array_equal(leaf_a, leaf_b)
    segments = got[5]
    if segments is not None:
        # on more than two threads level by level: each range's rows in its own
        # stretch of one buffer, in range order
        assert n_threads > 2 and not keep_alive
        assert segments.shape == (len(ranges), 2) and segments.dtype == np.int64
        assert np.all(segments[:, 1] >= segments[:, 0])
        assert np.all(segments[1:, 0] >= segments[:-1, 1])
        got = [None if a is None else np.concatenate([a[lo:hi] for lo, hi in segments])
               for a in got[:5]]
    for a, b in zip(expect, got):
        if a is None:
            assert b is None
        else:
            assert np.array_equal(a, b)
    bases = got[4]
    if keep_alive:
        assert bases is None
    else:
        want = expect[1].astype(np.int64) * (layout.n_cells * 3) + codes[expect[0]]
        assert bases.dtype == fill.dtype == np.int32 and np.array_equal(bases, want)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n_threads=st.sampled_from([1, 2, 3]),
       big=st.booleans())
def test_sibling_subtraction_equals_numpy_twin(seed, n_threads, big):
    """Larger children as parent - smaller sibling, moved to the front of their parents'
    arrays: the compiled subtraction (threads on ranges of every slot's numbers, one
    hand-off for every part) leaves the twin's numbers, float histograms and integer
    counts, and a part that is not contiguous takes the NumPy way."""
    import contextlib

    from dtdecide.tree._algorithms import _grower

    rng = np.random.default_rng(seed)
    n_small, n_cells = 7, 11
    small = rng.integers(0, 50, size=(n_small, n_cells, 2)).astype(np.float32)
    small_counts = small.sum(axis=2).astype(np.int32)

    def level_parts():
        parts = []
        for m in (5, 9, 1):
            h = rng.integers(50, 100, size=(m, n_cells, 2)).astype(np.float32)
            parts.append((h, h.sum(axis=2).astype(np.int32)))
        # a part that is a strided view (not contiguous)
        h = rng.integers(50, 100, size=(6, n_cells, 4)).astype(np.float32)[:, :, ::2]
        parts.append((h, h.sum(axis=2).astype(np.int32)))
        return parts

    state = rng.bit_generator.state
    jobs_of = []
    for _ in range(2):
        rng.bit_generator.state = state
        parts = level_parts()
        jobs = []
        for h, c in parts:
            m = h.shape[0]
            k = int(rng.integers(0, m + 1))
            pidx = np.sort(rng.choice(m, size=k, replace=False))
            sidx = rng.integers(0, n_small, size=k)
            jobs.append((h, pidx, small, sidx))
            jobs.append((c, pidx, small_counts, sidx))
        jobs_of.append(jobs)
    inline = _grower._SUBTRACT_INLINE
    try:
        if big:  # hand the work to the threads, however small
            _grower._SUBTRACT_INLINE = 0
        with ThreadPool(n_threads) if n_threads > 1 else contextlib.nullcontext() as pool:
            expect = _grower._subtract_siblings(jobs_of[0], pool, compiled=False)
            got = _grower._subtract_siblings(jobs_of[1], pool, compiled=True)
    finally:
        _grower._SUBTRACT_INLINE = inline
    assert len(expect) == len(got)
    for a, b in zip(expect, got):
        assert a.dtype == b.dtype and np.array_equal(a, b)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), uniform=st.booleans())
def test_numeric_split_tables_equal_numpy_twin(seed, uniform):
    """Go-left tables and missing sides of numeric splits on whole-number float32
    counts: the compiled pass gives _split_result's NumPy tables (values a feature never
    takes, nodes with and without missing values, ties, invalid slots)."""
    from dtdecide.tree._kernels._splitter import _split_result

    rng = np.random.default_rng(seed)
    widths = [6] * 4 if uniform else list(rng.integers(2, 9, size=4))
    layout = BinLayout(widths)
    m = int(rng.integers(1, 12))
    hist = rng.integers(0, 4, size=(m, layout.n_cells, 2)).astype(np.float32)
    hist[rng.random(m) < 0.5, :, :] *= (rng.random(layout.n_cells) < 0.7)[:, None]
    node = np.arange(m)
    feature = rng.integers(-1, 4, size=m).astype(np.intp)
    pos = np.array([rng.integers(0, max(layout.widths[f] - 1, 1)) if f >= 0 else 0
                    for f in feature], dtype=np.intp)
    ml = rng.random(m) < 0.5
    gain = np.where(feature >= 0, rng.random(m), -np.inf)
    args = (hist, None, layout, node, gain, feature, pos, ml, None,
            np.zeros(4, dtype=bool), True)
    a = _split_result(*args)
    b = _split_result(*args, compiled=True)
    for name in ("gain", "feature", "bin_threshold", "is_categorical", "missing_left",
                 "go_left"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


def random_numeric_tree(rng, n_features, max_depth):
    """A random numeric tree (parents before children), NaN routed either way per node."""
    left, right, feature, depth_of = [-1], [-1], [-1], [0]
    v = 0
    while v < len(left):
        if depth_of[v] < max_depth and (v == 0 or rng.random() < 0.8):
            left[v], right[v] = len(left), len(left) + 1
            feature[v] = int(rng.integers(0, n_features))
            for _ in range(2):
                left.append(-1)
                right.append(-1)
                feature.append(-1)
                depth_of.append(depth_of[v] + 1)
        v += 1
    n = len(left)
    threshold = np.where(np.array(feature) >= 0, rng.normal(size=n).round(1), -2.0)
    return (np.array(left, dtype=np.intp), np.array(right, dtype=np.intp),
            np.array(feature, dtype=np.intp), threshold, rng.random(n) < 0.5,
            max(depth_of))


def walk_input(rng, n, n_features, order):
    """Rows to walk in one memory layout: C, F, a row block of a larger column-ordered
    matrix (a pandas block), a strided column slice, or every other row."""
    X = rng.normal(size=(3 * n + 5, n_features + 3)).round(1)  # ties with thresholds
    X[rng.random(X.shape) < 0.15] = np.nan
    X[rng.random(X.shape) < 0.02] = np.inf
    X[rng.random(X.shape) < 0.02] = -np.inf
    if order == "C":
        return np.ascontiguousarray(X[:n, :n_features])
    if order == "F":
        return np.asfortranarray(X[:n, :n_features])
    if order == "F-block":
        return np.asfortranarray(X)[n + 2:2 * n + 2, 1:n_features + 1]
    if order == "C-slice":
        return X[n:2 * n, 2:n_features + 2]
    return np.asfortranarray(X)[: 2 * n : 2, :n_features]


@SETTINGS
@given(seed=st.integers(0, 2**32 - 1),
       order=st.sampled_from(["C", "F", "F-block", "C-slice", "every-other"]),
       n=st.integers(1, 70))
def test_flat_walk_equals_numpy_twin(seed, order, n):
    """``apply_flat`` over any row range gives the leaves of the NumPy twin
    (``Router.route_fixed``), of the level-by-level walk and of ``apply_fixed``."""
    from dtdecide.tree._kernels import _compiled
    from dtdecide.tree._kernels._apply import Router
    from dtdecide.tree._structure._tree import _flat_view

    rng = np.random.default_rng(seed)
    n_features = int(rng.integers(1, 6))
    left, right, feature, threshold, missing_left, depth = random_numeric_tree(
        rng, n_features, int(rng.integers(0, 7)))
    n_nodes = left.shape[0]
    router = Router(left, right, feature, threshold, np.zeros(n_nodes, dtype=bool),
                    np.zeros((n_nodes, 1), dtype=bool), missing_left, depth)
    X = walk_input(rng, n, n_features, order)
    twin = router.route_fixed(np.ascontiguousarray(X))
    assert np.array_equal(router.route_levels(X), twin)
    flat, rs, cs = _flat_view(X)
    lo, hi = sorted(int(a) for a in rng.integers(0, n + 1, size=2))
    for a, b in [(0, n), (lo, hi)]:
        out = np.full(n, -1, dtype=np.intp)
        _compiled.apply_flat(flat, rs, cs, a, b, router.children, router.route_feature,
                             router.route_threshold, missing_left, depth, out)
        assert np.array_equal(out[a:b], twin[a:b])
        assert (out[:a] == -1).all() and (out[b:] == -1).all()
    fixed = np.empty(n, dtype=np.intp)
    _compiled.apply_fixed(X, 0, n, router.children, router.route_feature,
                          router.route_threshold, router.is_categorical, router.cat_left,
                          missing_left, depth, fixed)
    assert np.array_equal(fixed, twin)


def test_flat_view_refuses_negative_strides():
    from dtdecide.tree._structure._tree import _flat_view

    X = np.arange(12.0).reshape(4, 3)
    assert _flat_view(X[::-1]) is None and _flat_view(X[:, ::-1]) is None
    assert _flat_view(np.empty((3, 0))) is None
    flat, rs, cs = _flat_view(np.asfortranarray(X)[1:3, 1:])
    assert not flat.flags.writeable
    assert [flat[r * rs + f * cs] for r in range(2) for f in range(2)] == [4, 5, 7, 8]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("order", ["C", "F", "F-block", "C-slice", "every-other"])
def test_numeric_tree_apply_layouts_and_threads(dtype, order):
    """A fitted numeric tree's compiled ``apply`` (the flat walk) on every layout, dtype
    and 1-3 threads equals the NumPy twin; reversed rows take ``apply_fixed``."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(3000, 5))
    X[rng.random(X.shape) < 0.2] = np.nan
    y = (np.nan_to_num(X[:, 0], nan=1.0) + X[:, 1] > 0) | np.isnan(X[:, 2])
    tree = ProfitTreeClassifier(max_depth=8, random_state=0).fit(X, y).tree_
    assert not tree._router.has_cat and tree.missing_left[tree.children_left >= 0].any()
    Xe = walk_input(rng, 2500, 5, order).astype(dtype, copy=False)
    with kernels("numpy"):
        twin = tree.apply(Xe)
    with kernels("compiled"):
        for threads in (1, 2, 3):
            assert np.array_equal(tree.apply(Xe, n_threads=threads), twin)
        assert np.array_equal(tree.apply(Xe[::-1]), twin[::-1])
