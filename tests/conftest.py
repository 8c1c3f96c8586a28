"""Suite-wide hooks: the order in which parallel workers receive the tests.

The notebooks (marker ``notebook``) and the tests marked ``slow`` take seconds each, most
tests milliseconds. With ``pytest -n N`` (``--dist worksteal``, pyproject.toml) each
worker first receives an equal share of the collected tests in order, and a worker that
runs out takes the back half of the longest queue. Collected in file order, the
notebooks all landed in one worker's share, and one of them could start last, leaving
the other worker idle until it ended. So the long tests go first, dealt in turn to the
front of each worker's share: every long test starts early, and what is stolen and run
at the end is short. Without ``-n`` the order is the files' order, unchanged.

Hypothesis: the ``ci`` profile (``HYPOTHESIS_PROFILE=ci``, set by ``.ci/run``) draws the
same examples on every run and has no per-example deadline, so that a landing never
depends on the draw or on the machine's load; elsewhere every run draws new examples,
which is how rare cases are found (a case found that way becomes an ``@example``).
"""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

LONG_MARKERS = ("notebook", "slow")


def pytest_collection_modifyitems(config, items):
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0") or 0)
    if workers < 2:
        return
    long = [item for item in items if any(item.get_closest_marker(m) for m in LONG_MARKERS)]
    if not long:
        return
    ids = {id(item) for item in long}
    short = [item for item in items if id(item) not in ids]
    # the scheduler gives worker k the k-th of `workers` consecutive shares
    share = len(items) // workers
    ordered = []
    for k in range(workers):
        mine = long[k::workers]
        ordered.extend(mine)
        take = share - len(mine) if k < workers - 1 else len(short)
        ordered.extend(short[:max(take, 0)])
        short = short[max(take, 0):]
    ordered.extend(short)
    items[:] = ordered
