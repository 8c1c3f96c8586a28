"""The measuring tools of ``benchmarks/`` that other measurements rest on: the spread
model of ``profile_pool.py --simulate`` (how a fit's passes would share N cores,
predicted from their groups' CPU time on this machine) and ``bench_handoff.py``'s ideal
times. Nothing here times anything against a limit."""

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir, "benchmarks"))
profile_pool = pytest.importorskip("profile_pool")
bench_handoff = pytest.importorskip("bench_handoff")


@pytest.mark.parametrize("times, n, expected", [
    ([3.0, 1.0, 1.0, 1.0], 2, 3.0),   # the long group first: the others fill the second
    ([1.0, 1.0, 1.0, 3.0], 2, 4.0),   # the long group last: it starts after one round
    ([1.0] * 10, 4, 3.0),             # ten equal groups on four threads: three rounds
    ([2.0, 2.0], 16, 2.0),            # more threads than groups
    ([1.0, 2.0, 3.0], 1, 6.0),        # one thread: the sum
    ([], 4, 0.0),
])
def test_replay_takes_groups_in_order(times, n, expected):
    assert profile_pool.replay(times, n) == pytest.approx(expected)


def test_simulate_table(capsys):
    # a small fit on two threads, its passes replayed on four cores
    profile_pool.main(["--rows", "20000", "--depth", "4", "--threads", "2",
                       "--simulate", "4"])
    out = capsys.readouterr().out
    table = out.split("predicted from the groups' CPU")[1].splitlines()
    fit_row = [line for line in table if line.strip().startswith("fit (serial + passes)")]
    assert len(fit_row) == 1
    # 1 core: the groups' CPU summed; 4 cores: no faster than 4x and no slower than 1x
    one, one_x, four, four_x = fit_row[0].split()[-4:]
    assert float(one_x.rstrip("x")) == pytest.approx(1.0)
    assert 1.0 <= float(four_x.rstrip("x")) <= 4.0
    assert float(four) <= float(one)
    passes = [line for line in table[2:] if line.strip() and "fit (serial" not in line]
    assert passes, out  # at least one pass of two or more groups was recorded


def test_main_leaves_the_pool_as_it_was():
    from dtdecide import _parallel

    before = (_parallel._Batch.__init__, _parallel._Batch.work,
              _parallel.ThreadPool.map_groups)
    profile_pool.main(["--rows", "5000", "--depth", "2", "--threads", "2",
                       "--simulate", "2"])
    assert (_parallel._Batch.__init__, _parallel._Batch.work,
            _parallel.ThreadPool.map_groups) == before


def test_handoff_rows():
    rows = bench_handoff.main(["--threads", "2", "--groups", "3", "--work", "200",
                               "--steps", "0", "2", "--repeat", "3"])
    assert [(k, g, w, s) for k, g, w, s, *_ in rows] == [(2, 3, 200.0, 0), (2, 3, 200.0, 2)]
    for *_, ideal, wall, lost in rows:
        # three groups of 200 us on two threads: two rounds
        assert ideal == pytest.approx(400e-6, rel=0.05)
        assert lost == pytest.approx(wall - ideal)
