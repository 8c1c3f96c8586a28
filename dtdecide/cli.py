"""The ``dtdecide`` command line.

``dtdecide demo`` runs the whole path on the bundled bank data; ``fit``, ``score``,
``leaf-table`` and ``prune-study`` do the same steps on the user's files. Every command
returns (and the console script exits with) 0 on success, 2 on bad arguments or bad input
files, and 1 on an unexpected error.
"""

import argparse
import gzip
import re
import sys
import warnings
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

from dtdecide._config import config_context
from dtdecide._progress import StatusLog

__all__ = ["CLIError", "build_parser", "main", "pruning_study", "read_data", "read_decisions"]

COMMANDS = ("demo", "fit", "score", "leaf-table", "prune-study")

EXIT_OK = 0
EXIT_ERROR = 1
EXIT_BAD_INPUT = 2

_DATA_SUFFIXES = {
    ".csv": "csv",
    ".txt": "csv",
    ".gz": "csv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".xlsx": "excel",
}
_ENGINES = {"parquet": ("pyarrow", "Parquet"), "excel": ("openpyxl", "Excel")}


def _need_engine(kind, path, what):
    """A CLIError naming the extra to install when Parquet/Excel support is missing."""
    if kind not in _ENGINES:
        return
    module, name = _ENGINES[kind]
    try:
        __import__(module)
    except ImportError:
        raise CLIError(
            f"{what} {str(path)!r}: reading and writing {name} files needs the package "
            f"{module}; install it with: pip install 'dtdecide[io]' (or pip install {module})"
        ) from None


def _version():
    from dtdecide import __version__

    return __version__


def _need_input_file(path, what):
    """A :class:`CLIError` unless ``path`` is a file (a folder, or nothing at all)."""
    from dtdecide.export._files import input_file_error

    error = input_file_error(path, what)
    if error is not None:
        raise CLIError(str(error))


class CLIError(Exception):
    """A problem with the user's arguments or files (exit status 2).

    Examples
    --------
    >>> from dtdecide.cli import CLIError, read_data
    >>> try:
    ...     read_data("no-such-file.csv")
    ... except CLIError as exc:
    ...     print(exc)
    data file 'no-such-file.csv' does not exist
    """


# --------------------------------------------------------------------------- input files
def read_data(path, *, what="data", sep=","):
    """Read a CSV (optionally gzipped), Parquet or Excel file into a DataFrame.

    Parameters
    ----------
    path : str or Path
        ``.csv``, ``.csv.gz``, ``.txt``, ``.parquet``/``.pq`` or ``.xlsx`` (the first
        sheet). Parquet and Excel need the ``io`` extra (pyarrow, openpyxl).
    what : str, default="data"
        Name of the file's role, used in error messages.
    sep : str, default=","
        Field separator of a CSV file.

    Returns
    -------
    DataFrame
        The file's rows and columns as read (CSV columns typed by pandas; a Parquet
        file's stored index, such as an ``id``, is kept as the index).

    Raises
    ------
    CLIError
        When the file is missing, of an unknown type, unreadable or empty.

    Examples
    --------
    >>> import tempfile, os
    >>> from dtdecide.cli import read_data
    >>> path = os.path.join(tempfile.mkdtemp(), "cases.csv")
    >>> _ = open(path, "w").write("age,job\\n30,admin\\n41,tech\\n")
    >>> read_data(path).shape
    (2, 2)
    """
    path = Path(path)
    _need_input_file(path, f"{what} file {str(path)!r}")
    kind = _DATA_SUFFIXES.get(path.suffix.lower())
    if kind is None:
        raise CLIError(
            f"{what} file {str(path)!r}: unknown file type {path.suffix!r}; "
            "expected .csv, .csv.gz, .txt, .parquet, .pq or .xlsx"
        )
    _need_engine(kind, path, f"{what} file")
    from dtdecide.export._files import other_kind_hint
    from dtdecide.export._score import read_excel_checked

    try:
        if kind == "parquet":
            import pyarrow.parquet as pq

            names = list(pq.read_schema(path).names)
            dup = _repeated(names)
            if dup:
                raise CLIError(f"{what} file {str(path)!r} names the column(s) {dup} "
                               "more than once")
            frame = pd.read_parquet(path)
        elif kind == "excel":
            frame = read_excel_checked(path, f"{what} file {str(path)!r}")
        else:
            frame = _read_csv_checked(path, sep, f"{what} file {str(path)!r}")
            _check_csv_layout(frame, path, sep, what)
    except CLIError:
        raise
    except (ValueError, OSError, ImportError, pd.errors.ParserError, EOFError,
            zlib.error) as exc:  # EOFError, zlib.error: a damaged .gz file
        if str(exc).startswith(f"{what} file {str(path)!r}"):  # named already
            raise CLIError(str(exc)) from exc
        hint = other_kind_hint(path, "gzip" if path.name.lower().endswith(".gz") else kind)
        raise CLIError(f"{what} file {str(path)!r} could not be read{hint}: {exc}") from exc
    if frame.shape[0] == 0 or frame.shape[1] == 0:
        raise CLIError(f"{what} file {str(path)!r} has no rows or no columns")
    if kind != "parquet":  # Parquet columns have their stored types
        _warn_numbers_read_as_text(frame, f"{what} file {str(path)!r}")
    return frame


def _warn_numbers_read_as_text(frame, label):
    """Warn about a text column whose values are mostly numbers: a few cells of text
    (``"abc"``, ``"n/a"``, ``"1,5"``) make the whole column text, and a tree would then
    treat it as categories. The warning names the column, the first such cells and
    their lines."""
    for name in frame.columns:
        col = frame[name]
        if pd.api.types.is_numeric_dtype(col.dtype) or \
                isinstance(col.dtype, pd.CategoricalDtype):
            continue
        known = col.dropna()
        known = known[known.astype(str).str.strip() != ""]
        is_text = pd.to_numeric(known, errors="coerce").isna()
        n_text = int(is_text.sum())
        if n_text == 0 or n_text * 2 >= len(known):
            continue
        first = known[is_text].head(3)
        cells = ", ".join(f"{v!r} (line {_data_line(frame, k)})" for k, v in first.items())
        warnings.warn(
            f"{label}: column {str(name)!r} holds numbers in {len(known) - n_text} rows but "
            f"text in {n_text}: {cells}{' ...' if n_text > 3 else ''}; the whole column is "
            "read as text (categories). Correct or blank those cells if the column is "
            "numeric.",
            UserWarning,
            stacklevel=3,
        )


def _data_line(frame, label):
    """The line of the data file (header = line 1) of the row ``label``."""
    return int(frame.index.get_loc(label)) + 2


def _read_csv_checked(path, sep, label):
    """The CSV file, every line checked to have the header's number of fields (pandas
    reads a shorter row with missing values in its last columns, silently)."""
    from dtdecide.export._score import _FieldCounter

    header = pd.read_csv(path, sep=sep, header=None, nrows=1, dtype=str,
                         keep_default_na=False).iloc[0].tolist()
    opener = gzip.open if str(path).lower().endswith(".gz") else open
    with opener(path, "rb") as raw:
        try:
            return pd.read_csv(_FieldCounter(raw, sep, len(header), label), sep=sep)
        except ValueError as exc:
            if str(exc).startswith(label):  # the field count's own message
                raise CLIError(str(exc)) from exc
            raise


def _check_csv_layout(frame, path, sep, what):
    """Refuse what pandas reads leniently: rows longer than the header (read as an
    index, shifting the columns), a repeated column name (renamed ``name.1``) and a file
    with another separator (one column)."""
    name = f"{what} file {str(path)!r}"
    header = pd.read_csv(path, sep=sep, header=None, nrows=1, dtype=str,
                         keep_default_na=False).iloc[0].tolist()
    if not frame.index.equals(pd.RangeIndex(len(frame))):  # pandas took a column as index
        import csv

        opener = gzip.open if str(path).lower().endswith(".gz") else open
        with opener(path, "rt", newline="", encoding="utf-8-sig") as fh:
            reader = csv.reader(fh, delimiter=sep)
            for row in reader:
                if row and len(row) != len(header):
                    raise CLIError(
                        f"{name}: line {reader.line_num} has {len(row)} fields, but the "
                        f"header has {len(header)}"
                    )
        raise CLIError(f"{name}: some rows have more fields than the header")
    dup = _repeated(header)
    if dup:
        raise CLIError(f"{name}: the header names the column(s) {dup} more than once")
    if frame.shape[1] == 1:
        only = str(frame.columns[0])
        other = next((s for s in (",", ";", "\t", "|") if s != sep and s in only), None)
        if other is not None:
            raise CLIError(
                f"{name} has a single column {only!r}: it looks {other!r}-separated; pass "
                f"--sep {other!r}" if other != "\t" else
                f"{name} has a single column {only!r}: it looks tab-separated; pass --sep "
                "$'\\t'"
            )


def read_decisions(path, *, kind=None, interval=None):
    """Read a decision data set (CSV) into a DecisionMatrix with errors naming the file.

    Parameters
    ----------
    path : str or Path
        CSV file: first column the target levels (or knots), one column per decision,
        optional ``prior`` column and ``cost`` row (see the docs' how-to).
    kind : {"profit", "loss", "revenue"}, default=None
        How to read the numbers; None takes the kind stored in the header
        (``level (kind=loss)``), or else reads a file with a ``cost`` row as revenue and
        any other as profit (a kind that conflicts with the stored one, or a ``cost``
        row with "profit" or "loss", is an error).
    interval : bool or None, default=None
        Read the rows as knots; None decides from the first column's header (``knot``).

    Returns
    -------
    DecisionMatrix
        The validated matrix (levels or knots, decisions, kind, costs and priors).

    Examples
    --------
    >>> import tempfile, os
    >>> from dtdecide.cli import read_decisions
    >>> path = os.path.join(tempfile.mkdtemp(), "decisions.csv")
    >>> _ = open(path, "w").write("level,mail,skip\\nyes,20,0\\nno,-1,0\\n")
    >>> read_decisions(path).decisions
    ('mail', 'skip')
    """
    from dtdecide.decision import DecisionMatrix

    path = Path(path)
    _need_input_file(path, f"decision data set {str(path)!r}")
    try:
        return DecisionMatrix.read_csv(path, kind=kind, interval=interval)
    except (ValueError, TypeError, KeyError, pd.errors.ParserError) as exc:
        raise CLIError(
            f"decision data set {str(path)!r} is malformed: {exc} (expected a first column "
            "of target levels or knots, one numeric column per decision, an optional "
            "'prior' column and an optional 'cost' row)"
        ) from exc


def _repeated(names):
    """The names given more than once, as a message shows them ("" if none)."""
    from dtdecide.decision._validation import repeated_names, shown_labels  # lazily: start-up

    dup = repeated_names(names)
    return shown_labels(dup) if dup else ""


def _split_names(text, option="the option"):
    if text is None:
        return None
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise CLIError(f"{option}: expected a comma-separated list of column names; got "
                       f"{text!r}")
    dup = _repeated(names)
    if dup:
        raise CLIError(f"{option} names the column(s) {dup} more than once")
    return names


def _require_columns(frame, columns, what, option=None):
    from dtdecide.export._score import missing_columns

    message = missing_columns(frame, columns, what, option)
    if message:
        raise CLIError(message)


def _weights(frame, weight, where):
    """The --weight column as float frequencies, with errors naming the option and file."""
    col = frame[weight]
    values = pd.to_numeric(col, errors="coerce")
    bad = col[values.isna() & col.notna()]
    if len(bad):
        raise CLIError(f"{where}: the --weight column {weight!r} must be numeric; got "
                       f"{bad.iloc[0]!r} in {len(bad)} row(s)")
    values = values.to_numpy(dtype=float)
    problems = [(np.isnan(values), "missing"), (np.isinf(values), "infinite"),
                (values < 0, "negative")]
    for mask, word in problems:
        if mask.any():
            raise CLIError(f"{where}: the --weight column {weight!r} has {int(mask.sum())} "
                           f"{word} value(s); case frequencies must be finite and >= 0")
    if not values.sum() > 0:
        raise CLIError(f"{where}: the --weight column {weight!r} sums to 0; at least one "
                       "case needs a positive frequency")
    return values


def _inputs(frame, *, target, matrix, inputs=None, exclude=None, weight=None,
            where="the data"):
    """Split a training frame into inputs X, target y, costs and weights."""
    cost_names = list(matrix.cost_variables) if matrix is not None else []
    _require_columns(frame, [target], where, "--target")
    _require_columns(frame, cost_names, where, "the decision data set's cost row")
    if weight is not None:
        _require_columns(frame, [weight], where, "--weight")
    taken = {target, *cost_names, *([weight] if weight else [])}
    if inputs is not None:
        _require_columns(frame, inputs, where, "--inputs")
        clash = sorted(taken.intersection(inputs))
        if clash:
            raise CLIError(f"--inputs must not name the target, a cost or the weight: {clash}")
        columns = list(inputs)
    else:
        columns = [c for c in frame.columns if c not in taken]
    if exclude is not None:
        _require_columns(frame, exclude, where, "--exclude")
        columns = [c for c in columns if c not in exclude]
    if not columns:
        raise CLIError(f"{where}: no input columns are left to grow a tree on")
    X = frame[columns]
    y = frame[target]
    if y.isna().any():
        raise CLIError(f"{where}: the --target column {target!r} has "
                       f"{int(y.isna().sum())} missing values")
    costs = frame[cost_names] if cost_names else None
    sample_weight = _weights(frame, weight, where) if weight else None
    return X, y, costs, sample_weight


def _in_cli_words(exc):
    """An estimator's error message with its keyword names replaced by the CLI options."""
    text = str(exc)
    for word, option in (("sample_weight_valid", "the --weight column"),
                         ("sample_weight", "the --weight column")):
        text = text.replace(word, option)
    # --guide cross-fits its guide over the default guide_cv=5 folds (no option sets it)
    text = re.sub(r"guide_cv=(\d+): (.*) needs at least guide_cv of each level",
                  r"--guide cross-fits the guide over \1 folds: \2 needs at least \1 rows "
                  r"of each level (add rows or leave out --guide)", text)
    return text


def _model_frame(model, frame, what):
    """Inputs and costs a fitted tree needs from ``frame``."""
    names = [str(n) for n in model.feature_names_in_]
    _require_columns(frame, names, what)
    from dtdecide.export._caserule import cost_column_names

    cost_names = cost_column_names(getattr(model, "decision_matrix_", None))
    costs = frame[cost_names] if cost_names and set(cost_names) <= set(frame.columns) else None
    return frame[names], costs


_PICKLE_SUFFIXES = (".joblib", ".pkl", ".pickle", ".jbl")
_MODEL_SUFFIX = ".dtdecide"


def _load_model(path, *, allow_pickle=False):
    from dtdecide.export import load

    path = Path(path)
    _need_input_file(path, f"model file {str(path)!r}")
    try:
        model = load(path, allow_pickle=allow_pickle)
    except Exception as exc:  # every load error names the file and says why
        message = str(exc)
        if str(path) not in message:
            message = f"model file {str(path)!r} could not be loaded: {message}"
        message = message.replace("allow_pickle=True (command line: --allow-pickle)",
                                  "--allow-pickle")
        raise CLIError(message) from exc
    if not hasattr(model, "tree_") or not hasattr(model, "feature_names_in_"):
        raise CLIError(
            f"model file {str(path)!r} does not hold a fitted dtdecide tree "
            f"(found {type(model).__name__})"
        )
    return model


def _check_output(path, option, *, folder=False, suffixes=None):
    """Refuse an output path that cannot be written before any work is done: a path
    under a file (its "folder" is a file), a folder given for a file, a file given for a
    folder, or a file type not among ``suffixes`` (exit status 2, naming the option and
    the path)."""
    if path is None:
        return None
    path = Path(path)
    shown = f"{option} {str(path)!r}"
    if suffixes is not None and path.suffix.lower() not in suffixes:
        raise CLIError(f"{shown}: unknown file type {path.suffix!r}; expected "
                       f"{', '.join(suffixes)}")
    if folder:
        if path.exists() and not path.is_dir():
            raise CLIError(f"{shown} is a file; give a folder (it is created if missing)")
    elif path.is_dir():
        raise CLIError(f"{shown} is a folder; give a file name")
    ancestor = path if folder else path.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if ancestor.exists() and not ancestor.is_dir():
        raise CLIError(f"{shown}: {str(ancestor)!r} is a file, not a folder, so nothing can "
                       "be written under it")
    return path


def _save_model(model, path, *, allow_pickle=False):
    """Write a model: the safe native format, or a pickle for a pickle suffix if allowed."""
    from dtdecide.export import save

    path = Path(path)
    if path.suffix.lower() in _PICKLE_SUFFIXES:
        if not allow_pickle:
            raise CLIError(
                f"model file {str(path)!r}: a {path.suffix} file is a pickle, which runs "
                "code when it is loaded; write the safe default format instead (e.g. "
                f"{path.with_suffix(_MODEL_SUFFIX).name!r}), or add --allow-pickle"
            )
        return save(model, path, format="joblib")
    return save(model, path)


# --------------------------------------------------------------------------- pruning
def pruning_study(tree, X_valid, y_valid, *, costs_valid=None, sample_weight_valid=None,
                  cv=None, X_train=None, y_train=None, costs_train=None, random_state=0):
    """Validation (or cross-validated) average profit of every subtree, as a table.

    Runs :class:`dtdecide.PruningStudy` and flattens its result for printing. A tree
    fitted without a decision matrix is assessed by its misclassification rate
    (classifier) or average squared error (regressor) instead.

    Parameters
    ----------
    tree : fitted ProfitTreeClassifier or ProfitTreeRegressor
        With or without a decision matrix.
    X_valid : DataFrame
        Validation inputs (None with ``cv``). The subtree with the best validation
        average profit is chosen (the smallest on ties).
    y_valid : array-like
        Validation target (None with ``cv``).
    costs_valid : DataFrame, default=None
        Validation cost columns (the keyword of :meth:`dtdecide.PruningStudy.fit` and
        :func:`dtdecide.select_subtree`).
    sample_weight_valid : array-like, default=None
        Validation frequencies.
    cv : int, default=None
        Folds of cross-validation on the training data instead; the 1-SE rule chooses
        (the smallest subtree within one standard error of the best).
    X_train : DataFrame, default=None
        Training inputs, needed with ``cv``.
    y_train : array-like, default=None
        Training target, needed with ``cv``.
    costs_train : DataFrame, default=None
        Training cost columns, with ``cv``.
    random_state : int, default=0
        Seeds the fold assignment.

    Returns
    -------
    table : DataFrame
        One row per subtree (``subtree`` 0 = the full tree): ``n_leaves``,
        ``ccp_alpha``, ``train_average``, ``valid_average`` (or ``cv_mean`` and
        ``cv_se``) of the average profit (loss for a loss matrix) and ``chosen``.
        Without a decision matrix the measure columns are ``train_misclassification``
        and ``valid_misclassification`` (``train_ase``, ``valid_ase`` for a regressor).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from dtdecide import DecisionMatrix, ProfitTreeClassifier
    >>> from dtdecide.cli import pruning_study
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame({"x": rng.normal(size=400)})
    >>> y = np.where(X["x"] + rng.normal(size=400) > 1, "yes", "no")
    >>> m = DecisionMatrix({"mail": [9, -1], "skip": [0, 0]}, levels=["yes", "no"])
    >>> tree = ProfitTreeClassifier(decision_matrix=m, max_depth=3).fit(X[:200], y[:200])
    >>> study = pruning_study(tree, X[200:], y[200:])
    >>> int(study["chosen"].sum())
    1
    """
    return _run_pruning_study(
        tree, X_valid, y_valid, costs=costs_valid, sample_weight=sample_weight_valid, cv=cv,
        X_train=X_train, y_train=y_train, costs_train=costs_train, random_state=random_state,
    )[1]


def _run_pruning_study(tree, X_valid, y_valid, *, costs=None, sample_weight=None, cv=None,
                       X_train=None, y_train=None, costs_train=None, sample_weight_train=None,
                       random_state=0, where="the validation data"):
    from dtdecide import PruningStudy

    # with a decision matrix: average profit (or loss); without one: misclassification
    # rate (classifier) or average squared error (regressor)
    measure = "decision" if tree.decision_matrix_ is not None else None
    try:
        if cv is None:
            study = PruningStudy(tree, method="assessment", measure=measure).fit(
                X_valid, y_valid, costs_valid=costs, sample_weight_valid=sample_weight
            )
        else:
            study = PruningStudy(
                tree, method="cv", measure=measure, cv=cv, random_state=random_state
            ).fit(X_train=X_train, y_train=y_train, costs_train=costs_train,
                  sample_weight_train=sample_weight_train)
    except (ValueError, TypeError) as exc:
        raise CLIError(f"{where}: {_in_cli_words(exc)}") from exc
    res = study.results_
    name = "average" if study.measure_ in ("profit", "loss") else study.measure_
    table = pd.DataFrame(
        {
            "subtree": np.asarray(res.index),
            "n_leaves": res["n_leaves"].to_numpy(),
            "ccp_alpha": res["alpha"].to_numpy(),
            f"train_{name}": res["train_measure"].to_numpy(),
        }
    )
    if "valid_measure" in res:
        table[f"valid_{name}"] = res["valid_measure"].to_numpy()
    if "cv_mean" in res:
        table["cv_mean"] = res["cv_mean"].to_numpy()
        table["cv_se"] = res["cv_se"].to_numpy()
    table["chosen"] = res["selected"].to_numpy(dtype=bool)
    return study, _drop_repeated_subtrees(table)


def _drop_repeated_subtrees(table):
    """Leave out a subtree whose figures (alpha, training and validation or CV measures)
    are those of the next, smaller one: the splits it adds gain nothing (the grown tree
    and its alpha-0 subtree, typically), and the table would show two identical rows.
    The smaller subtree is kept, as the selection prefers it on ties."""
    figures = [c for c in table.columns if c not in ("subtree", "n_leaves", "chosen")]
    values = table[figures].to_numpy(dtype=float)
    same_as_next = np.zeros(len(table), dtype=bool)
    if len(table) > 1:
        a, b = values[:-1], values[1:]
        same_as_next[:-1] = np.all((a == b) | (np.isnan(a) & np.isnan(b)), axis=1)
    keep = ~same_as_next | table["chosen"].to_numpy(dtype=bool)
    return table[keep].reset_index(drop=True)


def _plot_pruning_study(study, path):
    """Write the plot of a fitted :class:`dtdecide.PruningStudy` as a PNG file."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    from dtdecide import PruningStudyDisplay

    fig, ax = plt.subplots(figsize=(7, 4.2))
    PruningStudyDisplay.from_study(study, ax=ax)
    _log_leaf_axis(ax, int(np.max(study.results_["n_leaves"])))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return Path(path)


def _log_leaf_axis(ax, n_max):
    """A log x axis of leaf counts labelled with plain numbers (1, 2, 5, 10, 20, ...)."""
    from matplotlib.ticker import FixedLocator, NullFormatter, NullLocator, StrMethodFormatter

    ax.set_xscale("log")
    ticks = [m * 10 ** e for e in range(0, len(str(max(n_max, 1))) + 1) for m in (1, 2, 5)]
    ticks = [t for t in ticks if t <= n_max] or [1]
    if ticks[-1] != n_max:
        ticks.append(n_max)  # the full tree's size, so the right end is labelled too
        if len(ticks) > 2 and ticks[-1] < 1.3 * ticks[-2]:
            del ticks[-2]  # too close to the full tree's label to read
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_major_formatter(StrMethodFormatter("{x:.0f}"))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlim(0.9, n_max * 1.1)
    return ticks


def _profit_chart_points(ep, profit):
    """Depth (% of cases) and cumulative profit of acting on the cases ranked by ``ep``.

    Cases with equal expected profit (one leaf) form a block taken as a whole: the points
    are the block ends, and the chart is a straight line inside a block, whatever the
    order of its cases.
    """
    ep = np.asarray(ep, dtype=float)
    keys, block = np.unique(-ep, return_inverse=True)
    block_profit = np.bincount(block, weights=profit, minlength=len(keys))
    block_size = np.bincount(block, minlength=len(keys))
    cum = np.concatenate([[0.0], np.cumsum(block_profit)])
    depth = np.concatenate([[0.0], np.cumsum(block_size)]) / len(ep) * 100
    return depth, cum


def _plot_profit_chart(scored, y, costs, matrix, path, *, act="contact"):
    """Cumulative test profit of acting on the top share of cases ranked by expected profit.

    The cases are sorted by the expected profit of decision ``act`` (from the tree's
    leaves), and for each depth the chart shows the total computed profit of taking
    ``act`` for the cases above it and doing nothing (profit 0) for the rest.
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    t_idx = pd.Categorical(np.asarray(y, dtype=object), categories=matrix.levels).codes
    cons = matrix.resolve(costs, n_samples=len(scored))
    profit = cons.q_actual(t_idx)[:, matrix.decisions.index(act)] * cons.sign
    depth, cum = _profit_chart_points(scored[f"EP_{act}"], profit)
    fig, ax = plt.subplots(figsize=(7, 4.2))
    ax.plot(depth, cum, "o-", ms=3, label=f"profit tree: '{act}' the top cases")
    ax.plot([0, 100], [0, cum[-1]], color="grey", ls=":", label=f"'{act}' at random")
    chosen = np.mean(scored["decision"].to_numpy() == act) * 100
    ax.axvline(chosen, color="grey", ls="--", lw=1, label="the tree's own cut")
    ax.set_xlabel("share of test cases, ranked by expected profit (%)")
    ax.set_ylabel("cumulative computed profit")
    ax.set_title("Profit chart on the test data (implicit 'do nothing' for the rest)")
    # below the axes, never over the curve (which starts in the lower left corner)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=3, frameon=False,
              fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return Path(path)


# --------------------------------------------------------------------------- printing
def _format_number(value):
    if np.isfinite(value) and float(value).is_integer():
        return f"{value:,.0f}"
    return f"{value:,.3f}"


def _print_table(title, frame, *, max_colwidth=70):
    print(f"\n== {title}")
    text = frame.to_string(index=False, float_format=_format_number, max_colwidth=max_colwidth)
    print(text)


def _starred(table):
    return table.assign(chosen=np.where(table["chosen"], "*", ""))


def _summary_frame(summary):
    # label counts of categorical inputs are printed only when not zero
    keep = [k for k in summary.index if not k.startswith("adjusted_") and not (
        (k.startswith("n_unseen_") or k.startswith("n_missing_")) and summary[k] == 0)]
    return pd.DataFrame({"statistic": keep, "value": [summary[k] for k in keep]})


def _leaf_table_view(table):
    # training average profit of a leaf equals its EP (same cases), so it is not repeated
    cols = [c for c in ("leaf", "rule", "n", "decision", "EP", "EL", "valid_n",
                        "valid_average_profit", "valid_average_loss") if c in table.columns]
    post = [c for c in table.columns if c.startswith("post_")][-1:]
    return table[cols[:3] + post + cols[3:]]


# --------------------------------------------------------------------------- commands
def _grow(args, X, y, matrix, costs, sample_weight, progress, where="the training data"):
    from dtdecide.tree import ProfitTreeClassifier, ProfitTreeRegressor

    params = dict(
        decision_matrix=matrix,
        decision_rule=getattr(args, "decision_rule", "leaf"),
        max_depth=args.max_depth,
        min_samples_leaf=args.min_samples_leaf,
        random_state=args.random_state,
        handle_unknown=getattr(args, "handle_unknown", None) or "warn",
    )
    search = getattr(args, "search", "greedy")
    time_limit = getattr(args, "time_limit", None)
    if search == "exact":
        params["search"] = "exact"
        if time_limit is not None:
            if not time_limit > 0:
                raise CLIError(f"--time-limit must be a positive number of seconds; got "
                               f"{time_limit:g}")
            params["time_limit"] = time_limit
    elif time_limit is not None:
        raise CLIError("--time-limit applies to --search exact only")
    criterion = getattr(args, "criterion", None)
    if criterion is not None:
        params["criterion"] = criterion
    smoothing = getattr(args, "posterior_smoothing", None)
    interval = matrix is not None and matrix.is_interval
    if interval:
        if criterion in ("gini", "entropy"):
            raise CLIError(f"--criterion {criterion}: an interval target grows on 'variance' "
                           "or 'profit'")
        if smoothing is not None:
            raise CLIError("--posterior-smoothing: an interval target has no posteriors to "
                           "smooth")
        if getattr(args, "honest_fraction", None) is not None:
            raise CLIError("--honest-fraction applies to a categorical target")
        if getattr(args, "guide", None) is not None:
            raise CLIError("--guide applies to a categorical target")
        estimator = ProfitTreeRegressor(**params)
    else:
        if criterion == "variance":
            raise CLIError("--criterion variance: a categorical target grows on 'gini', "
                           "'entropy' or 'profit'")
        if smoothing is not None:
            params["posterior_smoothing"] = smoothing
        honest = getattr(args, "honest_fraction", None)
        if honest is not None:
            if not 0 < honest < 1:
                raise CLIError(f"--honest-fraction must be between 0 and 1; got {honest:g}")
            params["honest_fraction"] = honest
        if getattr(args, "guide", None) == "boosting":
            if matrix is None or params.get("criterion") != "profit" \
                    or params["decision_rule"] != "leaf":
                raise CLIError("--guide steers the splits of --criterion profit under the "
                               "leaf rule and needs --decisions")
            from sklearn.ensemble import HistGradientBoostingClassifier

            params["guide_model"] = HistGradientBoostingClassifier(
                categorical_features="from_dtype", random_state=args.random_state)
        estimator = ProfitTreeClassifier(**params, ordinal=bool(getattr(args, "ordinal", False)))
    how = "searching the best" if search == "exact" else "growing a"
    progress(
        f"{how} {type(estimator).__name__} on {X.shape[0]:,} rows x "
        f"{X.shape[1]} inputs (max_depth={args.max_depth})"
    )
    try:
        estimator.fit(X, y, sample_weight=sample_weight, costs=costs)
    except (ValueError, TypeError) as exc:
        raise CLIError(f"{where}: {_in_cli_words(exc)}") from exc
    progress(f"grown: {estimator.get_n_leaves()} leaves, depth {estimator.get_depth()}")
    if search == "exact":
        print(_exact_report(estimator))
    return estimator


def _exact_report(estimator):
    """One line on an exact search: its training objective, bound and gap."""
    what = "training profit" if estimator.decision_matrix_ is not None else (
        "training objective")
    value, bound, gap = (estimator.search_profit_, estimator.search_bound_,
                         estimator.search_gap_)
    if gap == 0:
        verdict = "proven optimal"
    else:
        verdict = (f"the best tree found within the time limit; gap {_format_number(gap)} "
                   f"({gap / max(abs(bound), 1e-300):.2%} of the bound)")
    return (f"exact search: {what} {_format_number(value)}, upper bound "
            f"{_format_number(bound)}: {verdict}")


def _cmd_demo(args):
    from dtdecide.datasets import load_bank_marketing
    from dtdecide.export import export_rules, leaf_table, save, to_sql, write_leaf_table

    progress = StatusLog(args.quiet)
    out = _check_output(args.output, "--output", folder=True)
    out.mkdir(parents=True, exist_ok=True)
    progress("loading the bundled bank-marketing data (train / validation / test)")
    train = load_bank_marketing(split="train")
    valid = load_bank_marketing(split="validation")
    test = load_bank_marketing(split="test")
    matrix = train.decision_matrix
    print("dtdecide demo: whom should the bank call?")
    print(
        f"  {len(train.target):,} training, {len(valid.target):,} validation and "
        f"{len(test.target):,} test clients; decisions {list(matrix.decisions)}; "
        f"a subscriber brings {matrix.values[1, 0]:g}, each call costs 1 (contact_cost)."
    )
    if getattr(args, "criterion", None) is None:
        _recommend_for_demo(args, train, valid, matrix, progress)
    tree = _grow(args, train.data, train.target, matrix, train.costs, None, progress)

    progress(f"pruning study: validation profit of {tree.get_n_leaves()}-leaf tree's subtrees")
    study, study_table = _run_pruning_study(tree, valid.data, valid.target, costs=valid.costs)
    best = study.best_estimator_
    _print_table(
        "Pruning table (average profit per client; * = chosen by validation)",
        _starred(study_table),
    )

    progress("leaf decision table of the chosen tree")
    table = leaf_table(best, valid.data, valid.target, costs=valid.costs, precision=4)
    _print_table("Leaf decision table (training figures; valid_* on validation)",
                 _leaf_table_view(table))

    progress("scoring the test data")
    result = best.decide(test.data, test.target, costs=test.costs)
    contact_all = -float(test.costs["contact_cost"].mean()) + matrix.values[1, 0] * float(
        (test.target == "yes").mean()
    )
    summary = _summary_frame(result.summary)
    _print_table("Test-set profit summary of the chosen tree", summary)
    print(
        f"\nFor comparison on the same test clients: calling everyone averages "
        f"{contact_all:.3f} per client, calling nobody 0."
    )

    progress(f"writing exports to {out}/")
    write_leaf_table(table, out / "leaf_table.csv")
    (out / "score.sql").write_text(to_sql(best, table="bank") + "\n")
    (out / "rules.txt").write_text(export_rules(best, precision=4) + "\n")
    result.cases.to_csv(out / "test_scored.csv", index_label="row")
    save(best, out / f"model{_MODEL_SUFFIX}")
    written = ["leaf_table.csv", "score.sql", "rules.txt", "test_scored.csv",
               f"model{_MODEL_SUFFIX}"]
    if _has_matplotlib():
        _plot_pruning_study(study, out / "pruning.png")
        scored = _leaf_expected(best, test.data)
        _plot_profit_chart(scored, test.target, test.costs, matrix, out / "profit_chart.png")
        written += ["pruning.png", "profit_chart.png"]
    else:
        print("\nmatplotlib is not installed, so pruning.png and profit_chart.png were not "
              "drawn; install it with: pip install 'dtdecide[plot]'")
    print(f"\nWrote {', '.join(written)} to {out}/")
    progress("done")
    return EXIT_OK


def _recommend_for_demo(args, train, valid, matrix, progress):
    """The recommended setting (:func:`dtdecide.fit_recommended`) of the demo's tree,
    printed and put into ``args`` for the tree the demo then grows and prunes."""
    from dtdecide import ProfitTreeClassifier, fit_recommended

    progress("choosing the growing criterion and smoothing by 5-fold cross-validation")
    tree = ProfitTreeClassifier(decision_matrix=matrix, max_depth=args.max_depth,
                                min_samples_leaf=args.min_samples_leaf,
                                random_state=args.random_state)
    _, results = fit_recommended(tree, train.data, train.target, costs=train.costs,
                                 X_valid=valid.data, y_valid=valid.target,
                                 costs_valid=valid.costs, return_results=True,
                                 random_state=args.random_state)
    view = results.drop(columns=["decision_rule", "measure", "n_leaves", "valid_measure"],
                        errors="ignore").rename(
        columns={"cv_measure": "cv_average_profit", "cv_se": "cv_std_error"})
    _print_table("Recommended setting (fit_recommended: each candidate's average profit "
                 "by 5-fold cross-validation over the training and validation clients; "
                 "the Gini tree unless another is better by more than one standard "
                 "error of the paired per-client difference (paired_diff, paired_se); "
                 "* = chosen)", _starred(view))
    chosen = results[results["chosen"]].iloc[0]
    args.criterion = chosen["criterion"]
    if "posterior_smoothing" in results and pd.notna(chosen["posterior_smoothing"]):
        args.posterior_smoothing = float(chosen["posterior_smoothing"])
    if "honest_fraction" in results and pd.notna(chosen["honest_fraction"]):
        args.honest_fraction = float(chosen["honest_fraction"])


def _has_matplotlib():
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _leaf_expected(tree, X):
    """Per case: the leaf's decision and the expected profit of each decision."""
    leaves = tree.apply(X)
    expected = tree.tree_.node_expected[leaves] * tree.decision_matrix_.sign
    frame = pd.DataFrame(expected, columns=[f"EP_{d}" for d in tree.decisions_], index=X.index)
    frame["decision"] = np.asarray(tree.decisions_, dtype=object)[tree.tree_.node_decision[leaves]]
    return frame


def _data_label(path, what="data"):
    return f"{what} file {str(path)!r}"


def _cmd_fit(args):
    progress = StatusLog(args.quiet)
    _check_output(args.output, "--output")
    progress(f"reading {args.data}")
    where = _data_label(args.data, "training data")
    frame = read_data(args.data, what="training data", sep=args.sep)
    if args.kind is not None and not args.decisions:
        raise CLIError("--kind gives the kind of the --decisions file; give --decisions too")
    matrix = read_decisions(args.decisions, kind=args.kind) if args.decisions else None
    if sum(x is not None for x in (args.validation, args.cv, args.n_leaves)) > 1:
        raise CLIError("give at most one of --validation, --cv and --n-leaves")
    if args.cv is not None and args.cv < 2:
        raise CLIError(f"--cv must be at least 2 folds; got {args.cv}")
    if args.cv is not None and args.cv > len(frame):
        raise CLIError(f"--cv {args.cv} needs at least one row per fold; the training data "
                       f"file {str(args.data)!r} has {len(frame)} rows")
    X, y, costs, weight = _inputs(
        frame,
        target=args.target,
        matrix=matrix,
        inputs=_split_names(args.inputs, "--inputs"),
        exclude=_split_names(args.exclude, "--exclude"),
        weight=args.weight,
        where=where,
    )
    y = y.rename(args.target)
    tree = _grow(args, X, y, matrix, costs, weight, progress, where=where)
    measure = "average profit" if matrix is not None else (
        "misclassification rate" if tree._is_classifier else "average squared error")
    if args.validation is not None:
        progress(f"reading {args.validation} and running the pruning study")
        vwhere = _data_label(args.validation, "validation data")
        vframe = read_data(args.validation, what="validation data", sep=args.sep)
        Xv, yv, cv, wv = _inputs(
            vframe, target=args.target, matrix=matrix, inputs=list(X.columns),
            weight=args.weight, where=vwhere,
        )
        study, table = _run_pruning_study(tree, Xv, yv, costs=cv, sample_weight=wv,
                                          where=vwhere)
        tree = study.best_estimator_
        _print_table(f"Pruning table ({measure}; * = chosen by validation)", _starred(table))
    elif args.cv is not None:
        progress(f"{args.cv}-fold cross-validation of the pruning sequence (1-SE rule)")
        study, table = _run_pruning_study(
            tree, None, None, cv=args.cv, X_train=X, y_train=y, costs_train=costs,
            sample_weight_train=weight, random_state=args.random_state, where=where,
        )
        tree = study.best_estimator_
        _print_table(f"Pruning table ({measure}; * = chosen by cross-validation, 1-SE rule)",
                     _starred(table))
    elif args.n_leaves is not None:
        tree = tree.prune(n_leaves=args.n_leaves)
    path = _save_model(tree, args.output, allow_pickle=args.allow_pickle)
    print(f"fitted {type(tree).__name__} with {tree.get_n_leaves()} leaves -> {path}")
    return EXIT_OK


def _cmd_score(args):
    from dtdecide.export._score import _score_file

    progress = StatusLog(args.quiet)
    _check_output(args.output, "--output")
    model = _apply_handle_unknown(_load_model(args.model, allow_pickle=args.allow_pickle), args)
    keep = _split_names(args.keep, "--keep")
    progress(f"scoring {args.data} in chunks of {args.chunk_size:,} rows")
    try:
        summary = _score_file(
            model, args.data, args.output if args.output else sys.stdout,
            target=args.target, keep=keep, chunk_size=args.chunk_size, sep=args.sep,
            confidence=getattr(args, "confidence", False), verbose=0 if args.quiet else 1,
            args={"target": "--target", "keep": "--keep"})
    except (ValueError, TypeError, FileNotFoundError, ImportError, OSError) as exc:
        text = _in_cli_words(exc).replace("confidence=True", "--confidence")
        text = text.replace("(sep=, on the command line --sep)", "with --sep")
        raise CLIError(text) from exc
    n = int(summary["n_cases"])
    if args.output:
        print(f"wrote {n:,} scored rows to {args.output}")
    realised = [k for k in summary.index if k.startswith(("total_profit", "total_loss"))
                or k in ("misclassification_rate", "average_squared_error")]
    if realised:
        if model.decision_matrix_ is not None:
            _print_table("Profit summary", _summary_frame(summary))
        else:
            table = pd.DataFrame({"statistic": list(summary.index),
                                  "value": summary.to_list()})
            _print_table("Assessment summary", table)
    progress(f"scored {n:,} rows")
    return EXIT_OK


def _keeps_index(frame):
    """Whether a frame's index carries information (a name or not 0..n-1) worth writing."""
    index = frame.index
    if index.name is not None or isinstance(index, pd.MultiIndex):
        return True
    return not (isinstance(index, pd.RangeIndex) and index.start == 0 and index.step == 1)


# the file types of the tables the commands write (by suffix)
_TABLE_SUFFIXES = (".csv", ".txt", ".gz", ".parquet", ".pq", ".xlsx")
_LEAF_TABLE_SUFFIXES = (".csv", ".json", ".md", ".markdown", ".xlsx", ".parquet", ".pq")


def _plot_suffixes():
    """The picture file types matplotlib writes (None, no check, without matplotlib)."""
    if not _has_matplotlib():
        return None
    from matplotlib.backend_bases import FigureCanvasBase

    return tuple(f".{k}" for k in sorted(FigureCanvasBase.get_supported_filetypes()))


def _write_frame(frame, path):
    """Write a table to CSV, Parquet or Excel (by suffix), creating the folder."""
    path = Path(path)
    suffix = path.suffix.lower()
    kind = "parquet" if suffix in (".parquet", ".pq") else "excel" if suffix == ".xlsx" else "csv"
    _need_engine(kind, path, "output file")
    path.parent.mkdir(parents=True, exist_ok=True)
    index = _keeps_index(frame)
    if kind == "parquet":
        frame.to_parquet(path, index=index)
    elif kind == "excel":
        frame.to_excel(path, index=index)
    else:
        frame.to_csv(path, index=index)


def _round_significant(table, digits):
    """Every float column of ``table`` rounded to ``digits`` significant digits.

    The integer part of a number is never rounded away (1506.2 stays 1506 at 2 digits),
    so totals and counts keep their magnitude while fractions get ``digits`` digits.
    """
    out = table.copy()
    for col in out.columns:
        if pd.api.types.is_float_dtype(out[col].dtype):
            values = out[col].to_numpy(dtype=float)
            finite = np.isfinite(values) & (values != 0)
            rounded = values.copy()
            decimals = digits - 1 - np.floor(np.log10(np.abs(values[finite])))
            rounded[finite] = [round(float(v), max(int(k), 0))
                               for v, k in zip(values[finite], decimals)]
            out[col] = rounded
    return out


def _cmd_leaf_table(args):
    from dtdecide.export import leaf_table, write_leaf_table

    if args.precision < 1:
        raise CLIError(f"--precision must be at least 1 significant digit; got {args.precision}")
    _check_output(args.output, "--output", suffixes=_LEAF_TABLE_SUFFIXES)
    model = _load_model(args.model, allow_pickle=args.allow_pickle)
    X = y = costs = None
    if args.data is not None:
        where = _data_label(args.data)
        frame = read_data(args.data, sep=args.sep)
        X, costs = _model_frame(model, frame, where)
        target = args.target or getattr(model, "target_name_", None)
        if args.target is not None:
            _require_columns(frame, [target], where, "--target")
        from dtdecide.export._score import _is_empty_column

        if target in frame.columns and not _is_empty_column(frame[target]):
            y = frame[target]
    table = leaf_table(model, X, y, costs=costs, precision=args.precision)
    table = _round_significant(table, args.precision)
    if args.output:
        path = Path(args.output)
        if path.suffix.lower() in (".xlsx", ".parquet", ".pq"):
            _need_engine("excel" if path.suffix.lower() == ".xlsx" else "parquet", path,
                         "output file")
        path.parent.mkdir(parents=True, exist_ok=True)
        write_leaf_table(table, path)
        print(f"wrote the leaf table ({len(table)} leaves) to {args.output}")
    else:
        _print_table("Leaf decision table", table)
    return EXIT_OK


def _pruned_note(model):
    """A note when the model is itself a pruned tree: the study starts from it."""
    full = getattr(model, "_full_tree_", None)
    if full is None or full.n_nodes == model.tree_.n_nodes:
        return None
    n_full = int(np.count_nonzero(full.children_left < 0))
    return (
        f"note: this model is a pruned tree ({model.get_n_leaves()} of the {n_full} leaves "
        "grown in fit, e.g. chosen by 'fit --validation'); the study shows the subtrees of "
        "the pruned tree, not of the tree as grown"
    )


def _cmd_prune_study(args):
    progress = StatusLog(args.quiet)
    _check_output(args.output, "--output", suffixes=_TABLE_SUFFIXES)
    _check_output(args.plot, "--plot", suffixes=_plot_suffixes())
    _check_output(args.model_out, "--model-out")
    model = _load_model(args.model, allow_pickle=args.allow_pickle)
    progress(f"reading {args.validation}")
    where = _data_label(args.validation, "validation data")
    frame = read_data(args.validation, what="validation data", sep=args.sep)
    X, costs = _model_frame(model, frame, where)
    target = args.target or model.target_name_
    _require_columns(frame, [target], where,
                     "--target" if args.target else "the model's target; set --target")
    y = frame[target]
    if y.isna().any():
        raise CLIError(f"{where}: the target column {target!r} has {int(y.isna().sum())} "
                       "missing values")
    progress("computing the validation measure of every subtree")
    study, table = _run_pruning_study(model, X, y, costs=costs, where=where)
    note = _pruned_note(model)
    if note:
        print(note)
    measure = "average profit" if model.decision_matrix_ is not None else (
        "misclassification rate" if model._is_classifier else "average squared error")
    _print_table(f"Pruning table ({measure}; * = chosen by validation)", _starred(table))
    if args.output:
        _write_frame(table, args.output)
        print(f"wrote the pruning table to {args.output}")
    if args.plot:
        if not _has_matplotlib():
            raise CLIError("--plot needs matplotlib: pip install 'dtdecide[plot]'")
        Path(args.plot).parent.mkdir(parents=True, exist_ok=True)
        _plot_pruning_study(study, args.plot)
        print(f"wrote the pruning plot to {args.plot}")
    if args.model_out:
        _save_model(study.best_estimator_, args.model_out, allow_pickle=args.allow_pickle)
        print(f"wrote the chosen subtree to {args.model_out}")
    return EXIT_OK


# --------------------------------------------------------------------------- parser
def _smoothing_value(text):
    if text == "auto":
        return text
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected 'auto' or a number >= 0; got {text!r}") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"expected 'auto' or a number >= 0; got {text!r}")
    return value


def _add_tree_options(parser):
    parser.add_argument("--max-depth", type=int, default=6, metavar="N",
                        help="deepest level of the grown tree (default: %(default)s)")
    parser.add_argument("--min-samples-leaf", type=int, default=50, metavar="N",
                        help="fewest training rows in a leaf (default: %(default)s)")
    parser.add_argument("--random-state", type=int, default=0, metavar="N",
                        help="seed of the row sample used for bin edges (default: %(default)s)")


def _add_common(parser):
    parser.add_argument("--quiet", action="store_true",
                        help="do not print progress messages on stderr")
    parser.add_argument("--traceback", action="store_true",
                        help="on an error, print the full Python traceback")


def _add_allow_pickle(parser, writes=False):
    what = "read (and write) pickle" if writes else "read pickle"
    parser.add_argument(
        "--allow-pickle", action="store_true",
        help=f"{what} (.joblib, .pkl) model files: loading a pickle runs any code it "
             "holds, so only for files you trust (default: the safe .dtdecide format only)",
    )


def _add_handle_unknown(parser, default_text):
    parser.add_argument(
        "--handle-unknown", choices=("warn", "error"), default=None,
        help="what category labels unseen in training do when scoring: 'warn' (a warning "
             "naming the columns; the cases follow the missing-value branch) or 'error' "
             f"(stop with exit status 2) (default: {default_text})",
    )


def _apply_handle_unknown(model, args):
    """The --handle-unknown flag overrides the setting stored in a loaded model."""
    if getattr(args, "handle_unknown", None) is not None:
        model.handle_unknown = args.handle_unknown  # setattr: old models lack the param
    return model


def _positive_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer; got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer; got {text!r}")
    return value


def _one_character(text):
    """The --sep value: exactly one character (a shell passes a tab as $'\\t')."""
    if len(text) != 1:
        raise argparse.ArgumentTypeError(
            f"expected one character (for a tab, pass $'\\t' in bash); got {text!r}")
    return text


def _add_sep(parser):
    parser.add_argument("--sep", default=",", type=_one_character, metavar="CHAR",
                        help="field separator of CSV data files (default: ',')")


def _add_demo_command(sub):
    """The ``demo`` sub-command of ``sub``: the main job on the bundled bank-marketing
    data, its output folder and the tree options (a deeper default tree)."""
    p = sub.add_parser(
        "demo",
        help="the main job on the bundled bank-marketing data",
        description=(
            "Load the bundled bank-marketing data, grow a profit tree on its training part, "
            "prune it by validation average profit, print the pruning table, the leaf "
            "decision table and the test-set profit summary, and write the exports "
            "(leaf_table.csv, score.sql, rules.txt, pruning.png, profit_chart.png, "
            "test_scored.csv, model.dtdecide) to the output folder."
        ),
    )
    p.add_argument("--output", default="dtdecide-output", metavar="DIR",
                   help="folder for the exports (default: %(default)s)")
    _add_tree_options(p)
    p.set_defaults(max_depth=8)
    _add_common(p)
    p.set_defaults(func=_cmd_demo)


def _add_fit_command(sub):
    """The ``fit`` sub-command of ``sub``: the training data, target, decision data set
    and inputs; the decision rule, criterion, smoothing, honest and guided growing;
    pruning (validation, cross-validation or a leaf count), the model file, the tree
    options and the exact search."""
    p = sub.add_parser(
        "fit",
        help="grow (and optionally prune) a profit tree on a data file",
        description=(
            "Grow a profit tree on DATA with the target column --target and the decision "
            "data set --decisions, optionally prune it (by validation average profit with "
            "--validation, or to --n-leaves leaves), and save it in the safe .dtdecide model "
            "format (a zip of JSON and arrays that runs no code when read). Columns named "
            "as costs in the decision data set are used as costs, never as inputs."
        ),
    )
    p.add_argument("data", help="training data file (CSV, Parquet or Excel)")
    p.add_argument("--target", required=True, help="name of the target column")
    p.add_argument("--decisions", metavar="CSV",
                   help="decision data set; without it a plain classification tree is grown")
    p.add_argument("--kind", choices=("profit", "loss", "revenue"), default=None,
                   help="how to read the decision data set's numbers (default: the kind "
                        "its header stores, as in 'level (kind=loss)'; else revenue for a "
                        "file with a 'cost' row, else profit; a 'cost' row needs revenue)")
    p.add_argument("--inputs", metavar="COLS",
                   help="comma-separated input columns (default: all other columns)")
    p.add_argument("--exclude", metavar="COLS",
                   help="comma-separated columns not to use as inputs")
    p.add_argument("--weight", metavar="COL", help="column of case frequencies")
    p.add_argument("--ordinal", action="store_true",
                   help="treat the target as ordinal (square decision matrix shapes growth)")
    _add_handle_unknown(p, "warn; stored in the model")
    p.add_argument("--decision-rule", choices=("leaf", "case"), default="leaf",
                   help="'leaf' (default): one decision per leaf from its training cases' "
                        "averaged costs, for costs known only after deciding; 'case': each "
                        "row decides from its leaf's posteriors and its own cost columns "
                        "(needed when scoring), for costs known when deciding. Pruning "
                        "assesses the same rule")
    p.add_argument("--criterion", choices=("gini", "entropy", "profit", "variance"),
                   default=None,
                   help="split criterion (default: gini, or variance for an interval target); "
                        "'profit' (needs --decisions) grows on the money of the decisions under "
                        "the leaf rule and on the class Gini under the case rule: recommended "
                        "with either rule")
    p.add_argument("--posterior-smoothing", type=_smoothing_value, default=None, metavar="M",
                   help="pull every node's posteriors (and, under the leaf rule, its "
                        "leaf-averaged costs) toward its parent's with the weight of M cases "
                        "('auto', the default under the case rule: 10 / share of the rarer "
                        "level; 0, the default under the leaf rule: the raw leaf figures)")
    p.add_argument("--honest-fraction", type=float, default=None, metavar="F",
                   help="honest leaves: hold this share of the training rows out of growing "
                        "and estimate every node's figures (posteriors, costs, decisions) on "
                        "them")
    p.add_argument("--guide", choices=("boosting",), default=None,
                   help="with --criterion profit under the leaf rule: grow on every row's "
                        "expected profit under a gradient-boosting model's cross-fitted "
                        "posteriors (guide_model; the leaves decide on it with cost rows), "
                        "one decision per leaf; the model is not kept. Five boosting fits "
                        "more")
    p.add_argument("--validation", metavar="FILE",
                   help="validation data: prune to the subtree with the best average profit "
                        "(without --decisions: the lowest misclassification rate or average "
                        "squared error)")
    p.add_argument("--cv", type=int, metavar="K",
                   help="prune by K-fold cross-validation on the training data, choosing the "
                        "smallest subtree within one standard error of the best")
    p.add_argument("--n-leaves", type=int, metavar="N",
                   help="prune to the largest subtree with at most N leaves")
    p.add_argument("--output", "-o", default=f"model{_MODEL_SUFFIX}", metavar="FILE",
                   help="model file to write; its folder is created if needed "
                        "(default: %(default)s)")
    _add_tree_options(p)
    p.add_argument("--search", choices=("greedy", "exact"), default="greedy",
                   help="'greedy' (default): grow split by split; 'exact': the tree of depth "
                        "--max-depth with the largest training profit over every split the "
                        "binning allows (exact at depth 1-2; deeper, the best found within "
                        "--time-limit with a proven bound, printed with the gap). Practical "
                        "for --max-depth 1 to 3")
    p.add_argument("--time-limit", type=float, default=None, metavar="SECONDS",
                   help="with --search exact: seconds the search of a depth-3 (or deeper) "
                        "tree may take before it keeps the best tree found (default: 60)")
    _add_allow_pickle(p, writes=True)
    _add_sep(p)
    _add_common(p)
    p.set_defaults(func=_cmd_fit)


def _add_score_command(sub):
    """The ``score`` sub-command of ``sub``: a model and the data to score, the target
    and kept columns, unknown labels, the confidence columns, the output file and the
    chunk size."""
    p = sub.add_parser(
        "score",
        help="decisions and profit figures for every row of a data file",
        description=(
            "Give every row of DATA its decision (D_: its leaf's, or under the case rule its "
            "own from its leaf's posteriors and its cost columns), expected profit (EP_) and, "
            "when the target and cost columns are present, computed and best profit, "
            "investment cost and ROI, plus a profit summary. Without the target column (or "
            "with an empty one) the rows get decisions only. A tree fitted without a "
            "decision data set gives its predicted level (I_) and posteriors (P_), or its "
            "prediction (P_) for an interval target. A non-default index of DATA (e.g. an "
            "id kept by Parquet) is written with the rows. DATA is read, scored and written "
            "in chunks (CSV by rows, Parquet by row groups), so a file larger than memory "
            "can be scored; every chunk is checked as the whole file would be."
        ),
    )
    p.add_argument("model", help="model file written by 'dtdecide fit'")
    p.add_argument("data", help="data to score (CSV, Parquet or Excel)")
    p.add_argument("--target", metavar="COL",
                   help="target column (default: the model's target, if the data have it)")
    p.add_argument("--keep", metavar="COLS",
                   help="comma-separated columns of DATA to copy into the output (e.g. an id)")
    _add_handle_unknown(p, "the model's setting")
    p.add_argument("--confidence", action="store_true",
                   help="add MARGIN_ (the row's leaf's expected profit per case over the "
                        "runner-up decision) and CONF_ (the share of bootstrap resamples of "
                        "the leaf's training cases keeping its decision), as in the leaf "
                        "table; leaf rule only")
    p.add_argument("--output", "-o", metavar="FILE",
                   help="write the scored rows here (.csv, .parquet or .xlsx); default: "
                        "stdout. The file appears only when every row is scored (it is "
                        "written beside it under a temporary name first)")
    p.add_argument("--chunk-size", type=_positive_int, default=100_000, metavar="N",
                   help="rows read, scored and written at a time: memory holds one chunk, "
                        "whatever the size of DATA (default: 100000)")
    _add_sep(p)
    _add_allow_pickle(p)
    _add_common(p)
    p.set_defaults(func=_cmd_score)


def _add_leaf_table_command(sub):
    """The ``leaf-table`` sub-command of ``sub``: a model, optional validation data and
    its target, the precision and the output file."""
    p = sub.add_parser(
        "leaf-table",
        help="the leaf decision table of a model",
        description=(
            "One row per leaf: rule, counts, posteriors, costs, expected profit of each "
            "decision and the leaf's decision; with --data also the same figures on it."
        ),
    )
    p.add_argument("model", help="model file written by 'dtdecide fit'")
    p.add_argument("--data", metavar="FILE", help="validation data to add valid_* columns")
    p.add_argument("--target", metavar="COL", help="target column of --data")
    p.add_argument("--precision", type=int, default=4, metavar="N",
                   help="significant digits of every number in the table, split values in "
                        "the rules included (default: %(default)s)")
    p.add_argument("--output", "-o", metavar="FILE",
                   help="write the table (.csv, .json, .md, .xlsx, .parquet); default: print")
    _add_sep(p)
    _add_allow_pickle(p)
    _add_common(p)
    p.set_defaults(func=_cmd_leaf_table)


def _add_prune_study_command(sub):
    """The ``prune-study`` sub-command of ``sub``: a model, the validation data and its
    target, the table, the plot and the chosen subtree's model file."""
    p = sub.add_parser(
        "prune-study",
        help="validation profit of every subtree of a model's pruning sequence",
        description=(
            "Compute the weakest-link subtree sequence of a fitted model and the average "
            "profit of each subtree on validation data (the misclassification rate or "
            "average squared error for a tree fitted without a decision data set); mark the "
            "best (the smallest on ties); optionally plot it and save the chosen subtree. "
            "The sequence starts from the model as saved: for a model already pruned by "
            "'fit --validation' it holds the pruned tree's subtrees (a note says so)."
        ),
    )
    p.add_argument("model", help="model file written by 'dtdecide fit'")
    p.add_argument("--validation", required=True, metavar="FILE",
                   help="validation data with the target (and cost) columns")
    p.add_argument("--target", metavar="COL", help="target column (default: the model's)")
    p.add_argument("--output", "-o", metavar="FILE",
                   help="write the table (.csv, .parquet or .xlsx)")
    p.add_argument("--plot", metavar="PNG", help="write the pruning plot (folder created)")
    p.add_argument("--model-out", metavar="FILE", help="save the chosen subtree here")
    _add_sep(p)
    _add_allow_pickle(p, writes=True)
    _add_common(p)
    p.set_defaults(func=_cmd_prune_study)


def build_parser():
    """The argument parser of the ``dtdecide`` command (see ``dtdecide --help``).

    Returns
    -------
    argparse.ArgumentParser
        With one sub-parser per name in ``COMMANDS``.

    Examples
    --------
    >>> from dtdecide.cli import build_parser
    >>> args = build_parser().parse_args(["score", "model.dtdecide", "new.csv", "--keep", "id"])
    >>> args.command, args.keep, args.output
    ('score', 'id', None)
    """
    parser = argparse.ArgumentParser(
        prog="dtdecide",
        description=(
            "Decision trees that make business decisions: grow a tree, prune it for "
            "profit, score data and export one decision per leaf."
        ),
        epilog=(
            "Data files are CSV (.csv, .csv.gz, .txt), Parquet (.parquet, .pq) or Excel "
            "(.xlsx, first sheet; Parquet and Excel need pip install 'dtdecide[io]'). Output "
            "folders are created when missing. A decision "
            "data set is a CSV file: first column the target levels (header 'level') or "
            "knots (header 'knot'), one column per decision, optionally a 'prior' column and "
            "a 'cost' row (numbers or names of cost columns of the data). Exit status: 0 "
            "success, 2 bad arguments or input files, 1 other errors."
        ),
    )
    parser.add_argument("--version", action="version", version=f"dtdecide {_version()}",
                        help="print the dtdecide version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add_command in (_add_demo_command, _add_fit_command,
                        _add_score_command, _add_leaf_table_command, _add_prune_study_command):
        add_command(sub)
    return parser


def main(argv=None):
    """Run the ``dtdecide`` command; returns the exit status.

    Parameters
    ----------
    argv : list of str, default=None
        Arguments without the program name; None reads ``sys.argv[1:]``.

    Returns
    -------
    int
        0 on success, 2 on bad arguments or input files, 1 on other errors.

    Examples
    --------
    >>> from dtdecide.cli import main
    >>> main(["score", "no-such-model.dtdecide", "data.csv", "--quiet"])
    2
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help or a usage error
        return int(exc.code or 0)
    if args.command is None:
        parser.print_help()
        return EXIT_BAD_INPUT
    previous_format = warnings.formatwarning
    if not args.traceback:  # warnings as one line each, like the errors
        warnings.formatwarning = _warning_line(args.command)
    try:
        # progress bars of long steps (cross-validation folds, levels of a large fit,
        # an exact search, scoring chunks) on a terminal, unless --quiet
        with config_context(verbose=0 if getattr(args, "quiet", False) else 1):
            return args.func(args)
    except CLIError as exc:
        print(f"dtdecide {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (ValueError, TypeError, KeyError) as exc:
        if args.traceback:
            raise
        print(f"dtdecide {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:
        if args.traceback:
            raise
        if exc.filename:  # a file or folder the command could not read or write
            print(f"dtdecide {args.command}: error: {exc.strerror or exc}: "
                  f"{str(exc.filename)!r}", file=sys.stderr)
            return EXIT_BAD_INPUT
        print(f"dtdecide {args.command}: unexpected {type(exc).__name__}: {exc} "
              "(run again with --traceback for details)", file=sys.stderr)
        return EXIT_ERROR
    except Exception as exc:  # anything else is a bug or an environment problem
        if args.traceback:
            raise
        print(f"dtdecide {args.command}: unexpected {type(exc).__name__}: {exc} "
              "(run again with --traceback for details)", file=sys.stderr)
        return EXIT_ERROR
    finally:
        warnings.formatwarning = previous_format


def _warning_line(command):
    """A :func:`warnings.formatwarning` that prints ``dtdecide <command>: warning: ...``
    (no source file and line: they name dtdecide's code, not the user's input)."""
    def format_warning(message, category, filename, lineno, line=None):
        return f"dtdecide {command}: warning: {message}\n"

    return format_warning
