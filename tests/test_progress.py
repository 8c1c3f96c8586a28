"""The package settings (``config_context``, ``set_config``) and the progress facility.

A bar appears on standard error when ``verbose`` and the config ask for one, and nothing
is written otherwise: silent by default, silent when stderr is not a terminal under the
default ``progress="auto"``, drawn on a terminal or when ``progress=True``.
"""

import io
import threading

import pytest

import dtdecide
from dtdecide import _progress, config_context, get_config, set_config
from dtdecide._progress import StatusLog, progress, progress_bar, resolve_verbose


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_defaults_and_context_restore():
    assert get_config() == {"verbose": 0, "progress": "auto", "kernels": "auto"}
    with config_context(verbose=2):
        assert get_config()["verbose"] == 2
        with config_context(progress=False):
            assert get_config() == {"verbose": 2, "progress": False, "kernels": "auto"}
        assert get_config()["progress"] == "auto"
    assert get_config()["verbose"] == 0
    with pytest.raises(RuntimeError), config_context(verbose=1):
        raise RuntimeError("boom")
    assert get_config()["verbose"] == 0


def test_set_config_changes_the_process_default():
    try:
        set_config(verbose=1)
        assert get_config()["verbose"] == 1
        with config_context(verbose=0):
            assert get_config()["verbose"] == 0
        seen = []
        thread = threading.Thread(target=lambda: seen.append(get_config()["verbose"]))
        thread.start()
        thread.join()
        assert seen == [1]
    finally:
        set_config(verbose=0)
    assert get_config()["verbose"] == 0


def test_context_is_local_to_its_thread():
    seen = []
    with config_context(verbose=3):
        thread = threading.Thread(target=lambda: seen.append(get_config()["verbose"]))
        thread.start()
        thread.join()
    assert seen == [0]


@pytest.mark.parametrize(("key", "value"), [
    ("verbose", -1), ("verbose", 1.5), ("verbose", "1"), ("verbose", True),
    ("progress", "yes"), ("progress", 1), ("kernels", "fast"), ("kernels", True),
])
def test_bad_values_name_the_key(key, value):
    with pytest.raises(ValueError, match=key):
        set_config(**{key: value})
    with pytest.raises(ValueError, match=key), config_context(**{key: value}):
        pass
    assert get_config() == {"verbose": 0, "progress": "auto", "kernels": "auto"}


def test_public_names():
    assert dtdecide.config_context is config_context
    assert {"config_context", "get_config", "set_config"} <= set(dir(dtdecide))


def test_resolve_verbose():
    assert resolve_verbose(None) == 0
    assert resolve_verbose(2) == 2
    with config_context(verbose=1):
        assert resolve_verbose(None) == 1
        assert resolve_verbose(0) == 0
    with pytest.raises(ValueError, match="n_verbose"):
        resolve_verbose(-2, name="n_verbose")


def _run_bar(file=None, **kwargs):
    with progress_bar(total=3, desc="folds", unit="fold", file=file, **kwargs) as bar:
        for _ in range(3):
            bar.update(1)
    return bar


def test_bar_drawn_when_asked(capsys):
    with config_context(progress=True):
        bar = _run_bar(verbose=1)
    err = capsys.readouterr().err
    assert "folds" in err and "3/3" in err and "fold/s" in err
    assert bar.n == 3


def test_nothing_when_not_asked(capsys):
    _run_bar()  # verbose defaults to the config's 0
    with config_context(progress=True):
        _run_bar(verbose=0)
        _run_bar(verbose=1, level=2)  # an inner step's bar needs verbose=2
    with config_context(progress=False):
        _run_bar(verbose=2)
    out = capsys.readouterr()
    assert out.err == "" and out.out == ""


def test_auto_draws_on_a_terminal_only(capsys):
    # under pytest stderr is not a terminal: "auto" stays silent even with verbose
    _run_bar(verbose=1)
    assert capsys.readouterr().err == ""
    terminal = _Terminal()
    _run_bar(file=terminal, verbose=1)
    assert "3/3" in terminal.getvalue()
    with config_context(verbose=1):  # the package default switches it on too
        terminal = _Terminal()
        _run_bar(file=terminal)
        assert "3/3" in terminal.getvalue()


def test_notebook_counts_as_interactive(monkeypatch):
    class Shell:
        config = {"IPKernelApp": {}}

    class FakeIPython:
        @staticmethod
        def get_ipython():
            return Shell()

    assert not _progress.bars_allowed(io.StringIO())
    monkeypatch.setitem(__import__("sys").modules, "IPython", FakeIPython)
    assert _progress.bars_allowed(io.StringIO())


def test_progress_iterates_and_closes(capsys):
    with config_context(progress=True):
        assert list(progress(range(4), desc="subtrees", verbose=1)) == [0, 1, 2, 3]
        # an early stop still closes the bar
        for item in progress(iter([1, 2, 3]), desc="stop", verbose=1):
            if item == 2:
                break
    err = capsys.readouterr().err
    assert "subtrees" in err and "4/4" in err and "stop" in err
    assert list(progress(range(2))) == [0, 1]
    assert capsys.readouterr().err == ""


def test_status_log(capsys):
    log = StatusLog(quiet=False)
    log("reading data.csv")
    with config_context(progress=True), log.bar(total=10, desc="scoring", unit="rows") as bar:
        bar.update(10)
    StatusLog(quiet=True)("hidden")
    with config_context(progress=True), StatusLog(quiet=True).bar(total=1) as bar:
        bar.update(1)
    err = capsys.readouterr().err
    assert "s] reading data.csv" in err and "10/10" in err and "rows/s" in err
    assert "hidden" not in err and "1/1" not in err


# ---------------------------------------------------------------- the package's bars
def _bank_like(n, seed):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"age": rng.integers(18, 80, n).astype(float),
                      "job": rng.choice(["admin", "tech", "sales", "retired"], n),
                      "balance": rng.gamma(2.0, 400.0, n)})
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-(X["age"] - 55) / 6)), "yes", "no")
    return X, y


def _matrix(priors=None):
    from dtdecide import DecisionMatrix

    return DecisionMatrix({"call": [12.0, -1.0], "skip": [0.0, 0.0]}, levels=["yes", "no"],
                          priors=priors)


@pytest.mark.parametrize("priors", [None, [0.2, 0.8]])
def test_bootstrap_in_blocks_gives_the_same_confidence(monkeypatch, capsys, priors):
    """The leaves' bootstrap runs in blocks (with a bar over them): the same draws in the
    same order, so the same figures as all leaves at once."""
    from dtdecide import ProfitTreeClassifier, leaf_table
    from dtdecide.tree._structure import _confidence

    X, y = _bank_like(4_000, 1)
    tree = ProfitTreeClassifier(decision_matrix=_matrix(priors), max_depth=6,
                                min_samples_leaf=5).fit(X, y)
    whole = leaf_table(tree, n_resamples=50)["confidence"]
    monkeypatch.setattr(_confidence, "_BLOCK_CELLS", 50 * 2 * 3)  # 3 leaves a block
    with config_context(verbose=1, progress=True):
        blocks = leaf_table(tree, n_resamples=50)["confidence"]
    err = capsys.readouterr().err
    assert tree.get_n_leaves() > 6
    assert "bootstrap confidence" in err and f"{tree.get_n_leaves()}/" in err
    import numpy as np

    np.testing.assert_array_equal(whole.to_numpy(), blocks.to_numpy())


def test_fit_shows_its_levels_on_large_data_only(capsys):
    from dtdecide import ProfitTreeClassifier
    from dtdecide.tree._algorithms import _grower

    X, y = _bank_like(3_000, 2)
    with config_context(verbose=1, progress=True):
        ProfitTreeClassifier(max_depth=4).fit(X, y)  # small: silent
        assert capsys.readouterr().err == ""
        old = _grower.PROGRESS_MIN_ROWS
        _grower.PROGRESS_MIN_ROWS = 1_000
        try:
            ProfitTreeClassifier(max_depth=4).fit(X, y)
            ProfitTreeClassifier(max_depth=None, max_leaf_nodes=5).fit(X, y)
        finally:
            _grower.PROGRESS_MIN_ROWS = old
    err = capsys.readouterr().err
    assert "growing (3,000 rows)" in err and "level/s" in err and "4/4" in err
    assert "split/s" in err and "4/4" in err
    ProfitTreeClassifier(max_depth=4).fit(X, y)  # verbose 0 (the default): silent
    assert capsys.readouterr().err == ""


def test_exact_search_shows_its_root_splits(capsys):
    from dtdecide import ProfitTreeClassifier

    X, y = _bank_like(600, 3)
    tree = ProfitTreeClassifier(decision_matrix=_matrix(), max_depth=3, search="exact",
                                max_bins=8)
    with config_context(verbose=1, progress=True):
        a = tree.fit(X, y)
    err = capsys.readouterr().err
    assert "exact search" in err and "best" in err and "bound" in err
    b = ProfitTreeClassifier(**tree.get_params()).fit(X, y)
    assert capsys.readouterr().err == ""
    assert a.get_n_leaves() == b.get_n_leaves()


def test_policy_cross_fitting_shows_its_models(capsys):
    from sklearn.linear_model import LinearRegression, LogisticRegression

    from dtdecide.policy import make_logged_campaign, policy_rewards

    d = make_logged_campaign(200, effect="linear", confounding=1.0, random_state=0)
    with config_context(verbose=1, progress=True):
        policy_rewards(d.X, d.action, d.outcome, decisions=d.decisions, cv=2,
                       outcome_model=LinearRegression(), propensity_model=LogisticRegression(),
                       random_state=0)
    err = capsys.readouterr().err
    n_models = 2 + 2 * len(d.decisions)  # propensity per fold, outcome per fold and decision
    assert "cross-fitting nuisance models" in err and f"{n_models}/{n_models}" in err
    policy_rewards(d.X, d.action, d.outcome, decisions=d.decisions, cv=2,
                   outcome_model=LinearRegression(), propensity_model=LogisticRegression(),
                   random_state=0)
    assert capsys.readouterr().err == ""
